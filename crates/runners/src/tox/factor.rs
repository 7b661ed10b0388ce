//! Factor expressions (tox/config/loader/ini/factor.py).

use std::collections::HashSet;

use super::PLATFORM;
use super::budget::{Budget, Kind, MAX_ENVS, shorten};

/// tox's `expand_ranges`: `{10-12}` is `{10,11,12}`, `{12-}` runs to 3.15's minor and
/// `{-13}` starts at 11. A range is written out to at most [`MAX_ENVS`] numbers, and to
/// what is left of the file's [`MAX_RANGE_NUMBERS`](super::budget::MAX_RANGE_NUMBERS).
#[expect(
    clippy::too_many_lines,
    reason = "over 80 lines when the limit was set; split it when it next changes"
)]
fn expand_ranges(value: &str, budget: &mut Budget) -> String {
    const MIN: u32 = 11;
    const MAX: u32 = 15;
    let bytes = value.as_bytes();
    let digits = |from: usize| {
        bytes[from..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count()
    };
    let delimiter = |at: usize| matches!(bytes.get(at), Some(b',' | b'}'));
    let number = |from: usize, len: usize| value[from..from + len].parse::<u32>().ok();
    // Writes `first..=last` (or down from `first` to `last`), as far as the budget goes.
    let list = |out: &mut String, budget: &mut Budget, first: u32, last: u32| {
        let count = first.abs_diff(last) as usize + 1;
        let allowed = count.min(MAX_ENVS).min(budget.numbers).max(1);
        if allowed < count {
            budget.range_cut(|| format!("`{}`", shorten(value)), count as u64);
        }
        budget.numbers = budget.numbers.saturating_sub(allowed);
        let numbers: Box<dyn Iterator<Item = u32>> = if first <= last {
            Box::new(first..=last)
        } else {
            Box::new((last..=first).rev())
        };
        for (n, number) in numbers.take(allowed).enumerate() {
            if n > 0 {
                out.push(',');
            }
            out.push_str(&number.to_string());
        }
    };
    let open = |start: Option<u32>, stop: Option<u32>| {
        let first = start.unwrap_or(MIN);
        let last = stop.unwrap_or(MAX);
        if first <= last {
            (first, last)
        } else if start.is_none() {
            (last, last)
        } else {
            (first, first)
        }
    };
    let mut out = String::with_capacity(value.len());
    let mut i = 0;
    while i < bytes.len() {
        let prev = i.checked_sub(1).map(|p| bytes[p]);
        // `(?<![\w.-])`: only an env or a brace item opens a range.
        let free = !value[..i]
            .chars()
            .next_back()
            .is_some_and(|p| p.is_alphanumeric() || matches!(p, '_' | '.' | '-'));
        let d1 = digits(i);
        if free && d1 > 0 && bytes.get(i + d1) == Some(&b'-') {
            let d2 = digits(i + d1 + 1);
            let end = i + d1 + 1 + d2;
            if d2 > 0 && delimiter(end) {
                if let (Some(a), Some(b)) = (number(i, d1), number(i + d1 + 1, d2)) {
                    list(&mut out, budget, a, b);
                    out.push(char::from(bytes[end]));
                    i = end + 1;
                    continue;
                }
            } else if d2 == 0 && delimiter(i + d1 + 1) {
                let (first, last) = open(number(i, d1), None);
                list(&mut out, budget, first, last);
                out.push(char::from(bytes[i + d1 + 1]));
                i += d1 + 2;
                continue;
            }
        }
        if matches!(prev, Some(b'{' | b',')) && bytes[i] == b'-' {
            let d = digits(i + 1);
            if d > 0 && delimiter(i + 1 + d) {
                let (first, last) = open(None, number(i + 1, d));
                list(&mut out, budget, first, last);
                out.push(char::from(bytes[i + 1 + d]));
                i += d + 2;
                continue;
            }
        }
        if d1 > 0 && delimiter(i + d1) {
            out.push_str(&value[i..=i + d1]);
            i += d1 + 1;
            continue;
        }
        // A run of digits that opens no range is copied whole: looking again from each
        // of its digits would read it once per digit.
        let skip = if d1 > 0 { d1 } else { 1 };
        let c = value[i..].chars().next().unwrap_or('\0');
        if skip > 1 {
            out.push_str(&value[i..i + skip]);
            i += skip;
        } else {
            out.push(c);
            i += c.len_utf8().max(1);
        }
    }
    out
}

/// Whether `factor` is one tox accepts (`_FACTOR_RE`): word characters, `.`, and fnmatch's
/// `*`, `?`, `[…]`, with an optional leading `!`; or nothing.
fn is_factor(factor: &str) -> bool {
    if factor.is_empty() {
        return true;
    }
    let rest = factor.strip_prefix('!').unwrap_or(factor);
    let mut chars = rest.chars().peekable();
    if chars.peek().is_none() {
        return false;
    }
    while let Some(c) = chars.next() {
        if c == '[' {
            chars.next_if_eq(&'!');
        } else if !(c.is_alphanumeric() || matches!(c, '_' | '.' | '*' | '?' | ']')) {
            return false;
        }
    }
    true
}

/// Where the next `}` at or after a place is, remembered: asked with places that never go
/// back, it reads the text once (a text of `{` alone would otherwise be read once per `{`).
struct Closes<'a> {
    text: &'a str,
    /// The place last asked about, and the answer.
    last: Option<(usize, Option<usize>)>,
}

impl Closes<'_> {
    fn from(&mut self, at: usize) -> Option<usize> {
        if let Some((asked, found)) = self.last
            && asked <= at
            && found.is_none_or(|f| f >= at)
        {
            return found;
        }
        let found = self.text[at..].find('}').map(|f| at + f);
        self.last = Some((at, found));
        found
    }
}

/// The index past a run of brace groups starting at `at` (`{a,b}{c}`), if one starts there.
fn brace_run(value: &str, at: usize, closes: &mut Closes<'_>) -> Option<usize> {
    let mut end = at;
    while value[end..].starts_with('{') {
        let close = closes.from(end + 1)?;
        if close == end + 1 {
            break;
        }
        end = close + 1;
    }
    (end > at).then_some(end)
}

/// tox's `expand_env_with_negation`: `{py,!pi}-{a,b},c` is `py-a`, `py-b`, `!pi-a`,
/// `!pi-b`, `c`. An expression whose factors tox refuses is an error, with the variant.
/// Each item's product is counted first and made in tox's order only as far as the budget
/// of `kind` goes; the rest is noted.
fn expand_env_with_negation(
    value: &str,
    budget: &mut Budget,
    kind: Kind,
) -> Result<Vec<String>, String> {
    // Split on commas outside brace groups; empty items drop out.
    let mut items = Vec::new();
    let mut start = 0;
    let mut i = 0;
    let mut closes = Closes {
        text: value,
        last: None,
    };
    while i < value.len() {
        if let Some(end) = brace_run(value, i, &mut closes) {
            i = end;
            continue;
        }
        let c = value[i..].chars().next().unwrap_or('\0');
        if c == ',' {
            items.push(&value[start..i]);
            start = i + 1;
        }
        i += c.len_utf8();
    }
    items.push(&value[start..]);
    let mut out = Vec::new();
    for item in items.iter().map(|i| i.trim()).filter(|i| !i.is_empty()) {
        // Literal parts and brace contents alternate.
        let mut parts: Vec<Vec<&str>> = Vec::new();
        let mut rest = item;
        loop {
            let open = rest
                .find('{')
                .filter(|&o| rest[o + 1..].find('}').is_some_and(|c| c > 0));
            match open {
                Some(o) => {
                    let close = o + 1 + rest[o + 1..].find('}').unwrap_or(0);
                    parts.push(rest[..o].split(',').map(str::trim).collect());
                    parts.push(rest[o + 1..close].split(',').map(str::trim).collect());
                    rest = &rest[close + 1..];
                }
                None => {
                    parts.push(rest.split(',').map(str::trim).collect());
                    break;
                }
            }
        }
        let total = parts
            .iter()
            .fold(1usize, |n, part| n.saturating_mul(part.len()));
        // The product in tox's order (the last part turns fastest), made one at a time.
        let mut index = vec![0usize; parts.len()];
        let mut made = 0;
        while made < total {
            let len: usize = parts.iter().zip(&index).map(|(p, &i)| p[i].len()).sum();
            if !budget.take(kind, len.max(parts.len())) {
                budget.cut(kind, item, total, made);
                break;
            }
            let mut variant = String::with_capacity(len);
            for (part, &i) in parts.iter().zip(&index) {
                variant.push_str(part[i]);
            }
            if !variant.split('-').all(is_factor) {
                return Err(format!("`{variant}` is not an env name tox can expand"));
            }
            out.push(variant);
            made += 1;
            for (k, part) in parts.iter().enumerate().rev() {
                index[k] += 1;
                if index[k] < part.len() {
                    break;
                }
                index[k] = 0;
            }
        }
    }
    Ok(out)
}

/// Envs as their factors, each with whether it is negated (`!lint`).
pub(super) type FactorGroups = Vec<Vec<(String, bool)>>;

/// tox's `find_factor_groups`: each env of an expression, as its factors with whether each
/// is negated.
fn factor_groups(value: &str, budget: &mut Budget, kind: Kind) -> Result<FactorGroups, String> {
    Ok(
        expand_env_with_negation(&expand_ranges(value, budget), budget, kind)?
            .into_iter()
            .map(|env| {
                env.split('-')
                    .map(|f| match f.strip_prefix('!') {
                        Some(name) => (name.to_owned(), true),
                        None => (f.to_owned(), false),
                    })
                    .collect()
            })
            .collect(),
    )
}

/// tox's `extend_factors`: the env names an expression stands for (`py3{10,11}` is
/// `py310`, `py311`), as far as the budget goes.
pub(super) fn expand(value: &str, budget: &mut Budget) -> Result<Vec<String>, String> {
    Ok(factor_groups(value, budget, Kind::Envs)?
        .into_iter()
        .map(|group| {
            group
                .into_iter()
                .map(|(name, _)| name)
                .collect::<Vec<_>>()
                .join("-")
        })
        .collect())
}

/// A line split at its factor condition (`django42,!lint: text`): the condition's groups,
/// when it has one tox reads, and the text.
pub(super) fn split_condition<'l>(
    line: &'l str,
    budget: &mut Budget,
) -> (Option<FactorGroups>, &'l str) {
    let marker = line
        .char_indices()
        .find(|&(i, c)| c == ':' && line[i + 1..].chars().next().is_none_or(char::is_whitespace));
    if let Some((at, _)) = marker
        && let Ok(groups) = factor_groups(line[..at].trim(), budget, Kind::Conditions)
    {
        return (Some(groups), line[at + 1..].trim());
    }
    (None, line)
}

/// A value's lines with their conditions read, once for every env that uses it.
pub(super) struct Conditional {
    pub(super) lines: Vec<(Option<FactorGroups>, String)>,
    /// What filtering it for one env costs: its lines and their conditions' factors.
    pub(super) cost: usize,
}

impl Conditional {
    pub(super) fn new(value: &str, budget: &mut Budget) -> Self {
        let mut cost = 0;
        let lines = value
            .split('\n')
            .map(|line| {
                let (groups, content) = split_condition(line, budget);
                cost += 1 + groups.as_ref().map_or(0, |g| g.iter().map(Vec::len).sum());
                (groups, content.to_owned())
            })
            .collect();
        Self { lines, cost }
    }

    /// tox's `filter_for_env`: the lines that hold for an env of `factors` (those without a
    /// condition, and those whose condition its factors or the platform meet).
    pub(super) fn filter(&self, factors: &HashSet<&str>) -> String {
        let holds = |f: &str| factors.contains(f) || f == PLATFORM || f == std::env::consts::ARCH;
        let mut overall: Vec<&str> = Vec::new();
        let mut continuation = false;
        let mut pending_skip = false;
        for (groups, content) in &self.lines {
            match groups {
                None => {
                    if pending_skip && !continuation && !content.ends_with('\\') {
                        pending_skip = false;
                        continue;
                    }
                    if !content.is_empty() {
                        overall.push(content);
                        continuation = content.ends_with('\\');
                    }
                    pending_skip = false;
                }
                Some(groups) => {
                    let matched = groups
                        .iter()
                        .any(|group| group.iter().all(|(f, negate)| holds(f) ^ negate));
                    if matched {
                        overall.push(content);
                        continuation = content.ends_with('\\');
                        pending_skip = false;
                    } else {
                        pending_skip = content.ends_with('\\');
                    }
                }
            }
        }
        overall.join("\n")
    }
}

/// The factors of an env name (`py311-django42`): its parts between `-`, without a `!`.
pub(super) fn factors_of_name(name: &str) -> HashSet<&str> {
    name.split('-')
        .map(|f| f.strip_prefix('!').unwrap_or(f))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand(value: &str) -> Result<Vec<String>, String> {
        super::expand(value, &mut Budget::new())
    }

    fn filter_for_env(value: &str, name: Option<&str>) -> String {
        let factors = name.map(factors_of_name).unwrap_or_default();
        Conditional::new(value, &mut Budget::new()).filter(&factors)
    }

    #[test]
    fn factor_expressions_expand_as_tox_expands_them() {
        #[track_caller]
        fn case(value: &str, want: &[&str]) {
            assert_eq!(expand(value).expect(value), want, "{value}");
        }
        case("py3{10,11}", &["py310", "py311"]);
        case(
            "py{310,311}-django{42,50}",
            &[
                "py310-django42",
                "py310-django50",
                "py311-django42",
                "py311-django50",
            ],
        );
        case("py311, lint ,type", &["py311", "lint", "type"]);
        case("py3{10-12}", &["py310", "py311", "py312"]);
        case("py3{13-}", &["py313", "py314", "py315"]);
        case("py3{-12}", &["py311", "py312"]);
        case("py3{12-10}", &["py312", "py311", "py310"]);
        case("py-django-4-2", &["py-django-4-2"]);
        case("{py,!pi}-a", &["py-a", "pi-a"]);
        case("", &[]);
        case("-x", &["-x"]);
        assert!(expand("has space").is_err());
        assert!(expand("a/b").is_err());
        // 16,384 envs: the first 10,000 are made, in tox's order, and the cut is noted.
        let mut budget = Budget::new();
        let made = super::expand(
            "{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}{q,r}{s,t}{u,v}{w,x}{y,z}{1,2}",
            &mut budget,
        )
        .expect("cut, not refused");
        assert_eq!(made.len(), MAX_ENVS);
        assert_eq!(made[..2], ["acegikmoqsuwy1", "acegikmoqsuwy2"]);
        assert_eq!(
            budget.into_notes(),
            [
                "`{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}{q,r}{s,t}{u,v}{w,x}…` stands for \
                 16384 envs; only the first 10000 are read (at most 10000 in all, of at most 1 \
                 MiB, per file)"
            ]
        );
    }

    #[test]
    fn factor_conditions_hold_per_env() {
        let value = "pytest\ndjango42: Django>=4.2,<4.3\ndjango50: Django>=5.0\n!lint: coverage";
        assert_eq!(
            filter_for_env(value, Some("py311-django42")),
            "pytest\nDjango>=4.2,<4.3\ncoverage"
        );
        assert_eq!(filter_for_env(value, Some("lint")), "pytest");
    }
}
