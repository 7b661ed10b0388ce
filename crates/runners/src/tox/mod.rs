//! `tox`: the environments of the configuration file tox would read, parsed as text. tox
//! itself is never asked: `tox list` loads plugins and provisions the `requires` of the
//! configuration, which installs and runs packages.

use std::collections::{HashMap, HashSet};

use toml::de::{DeTable, DeValue};

use crate::detection::{Absence, Arguments, Context, RunnerDef, Words};
use crate::files::{self, MAX_MANIFEST};
use crate::python;
use crate::quote::quote;
use crate::runner::{Runner, TailRule, Task};

pub(crate) const RUNNER: RunnerDef = RunnerDef {
    id: "tox",
    label: "Tox",
    executes: "nothing: tox.ini, setup.cfg, pyproject.toml, tox.toml and hatch.toml are read as text, never with `tox list` (which loads plugins and provisions `requires`); running an env installs its deps and runs its commands, and when the project's own environment provides tox (a uv, pdm, poetry or hatch dev dependency) it runs through that tool (`uv run tox`, `pdm run -- tox`, `poetry run -- tox`, `hatch run -- tox`), which may first create or sync that environment",
    manifests: CONFIGS,
    detect,
    // Measured with tox 4.67: `tox -e lint -- --foo -- a 'b c'` hands `--foo -- a 'b c'`
    // to `{posargs}` (the first `--` dropped, later ones kept); a word before `--` is
    // tox's own (`tox -e lint --foo` fails with "unrecognized arguments", and `-x
    // testenv:lint.commands=…` would replace the env's commands).
    // Through hatch, every word is formatted first (`{env:HOME}` becomes the variable),
    // after `--` too: no words are admitted there.
    arguments: |_, task| {
        if task.command.starts_with("hatch ") {
            Arguments::Exact
        } else {
            Arguments::AfterDashDash
        }
    },
    words: Words::AfterDashDash {
        test_argument: "--verbose",
    },
    caches: crate::python::PYTHON_CACHES,
    ..RunnerDef::BASE
};

/// The files tox looks for in a folder, in its order (tox 4.67,
/// `tox/config/source/discover.py`): a `setup.cfg` without `[tox:tox]`, a `pyproject.toml`
/// without `[tool.tox]` and an empty `tox.toml` are passed over.
const CONFIGS: &[&str] = &["tox.ini", "setup.cfg", "pyproject.toml", "tox.toml"];

/// `sys.platform` as Python spells it here: a factor every env has.
const PLATFORM: &str = match std::env::consts::OS.as_bytes() {
    b"macos" => "darwin",
    b"windows" => "win32",
    _ => std::env::consts::OS,
};

fn detect(ctx: &Context<'_>) -> Result<Runner, Absence> {
    for name in CONFIGS {
        // Creating one earlier in the order changes which file tox reads.
        ctx.depends_on_file(name);
    }
    if !CONFIGS.iter().any(|n| files::exists(&ctx.root.join(n))) {
        return Err(Absence::Absent(
            "no tox.ini, setup.cfg, pyproject.toml or tox.toml in the root".into(),
        ));
    }
    let mut launcher_notes = Vec::new();
    let through = python::tox_launcher(ctx, &mut launcher_notes);
    if through.is_none() {
        ctx.needs_binary("tox")?;
    }
    let inside = files::Root::new(ctx.root);
    for name in CONFIGS {
        let path = ctx.root.join(name);
        if !files::exists(&path) {
            continue;
        }
        let bytes = inside
            .read(&path, MAX_MANIFEST)
            .map_err(|err| Absence::Failed(format!("{name}: {err}")))?;
        let text = String::from_utf8(bytes)
            .map_err(|_| Absence::Failed(format!("{name}: not UTF-8, which tox cannot read")))?;
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        let mut budget = Budget::new();
        let envs = match *name {
            "tox.ini" => {
                parse_ini(text).and_then(|ini| envs_of_ini(&ini, "tox", &mut budget).map(Some))
            }
            // tox reads setup.cfg only when it has `[tox:tox]` (a broken one fails it all the
            // same: it is parsed first).
            "setup.cfg" => parse_ini(text).and_then(|ini| match ini.section("tox:tox") {
                Some(_) => envs_of_ini(&ini, "tox:tox", &mut budget).map(Some),
                None => Ok(None),
            }),
            "pyproject.toml" => pyproject_envs(text, &mut budget),
            _ => toml_envs(text, &mut budget),
        }
        .map_err(|err| Absence::Failed(format!("{name}: {err}")))?;
        if let Some(envs) = envs {
            let mut runner = into_runner(name, envs, through.as_ref().map(|t| t.prefix));
            if let Some(through) = through {
                runner.notes.push(through.why);
            }
            runner.notes.extend(launcher_notes);
            runner.notes.extend(budget.into_notes());
            return Ok(runner);
        }
    }
    Err(Absence::Absent(
        "no tox configuration: setup.cfg has no [tox:tox], pyproject.toml no [tool.tox], tox.toml no settings"
            .into(),
    ))
}

/// One environment tox lists, with its description.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Env {
    /// Its name, as `tox -e` takes it.
    pub name: String,
    /// Its `description`, on one line.
    pub description: Option<String>,
}

/// The runner of `envs`, read from `file`; `launcher` is what goes before `tox` when tox
/// runs through the tool managing the project's environment (`uv run`).
fn into_runner(file: &str, envs: Vec<Env>, launcher: Option<&str>) -> Runner {
    let tox = match launcher {
        Some(launcher) => format!("{launcher} tox"),
        None => "tox".to_owned(),
    };
    let mut runner = Runner::new("tox", "Tox", tox.clone());
    runner.tail_rule = TailRule::DashDashFirst;
    runner.notes.push(format!("configuration: {file}"));
    for env in envs {
        let name = env.name;
        if name == "ALL" || name.contains([',', '{', '}']) {
            runner.notes.push(format!(
                "env `{name}` is left out: `tox -e` reads `ALL`, commas and braces as a list of \
                 envs"
            ));
            continue;
        }
        // `tox -e -x` fails ("expected one argument"); `tox -e-x` runs the env `-x`.
        let command = if name.starts_with('-') {
            format!("{tox} -e{}", quote(&name))
        } else {
            format!("{tox} -e {}", quote(&name))
        };
        runner.push_task(Task {
            name,
            command,
            doc: env.description,
            params: Vec::new(),
            cwd: None,
        });
    }
    runner
}

// ---------------------------------------------------------------------------------------
// Bounds. A factor expression stands for a product of its brace groups and ranges, which
// grows with the power of its length (`py{1-4000000000}` is 33 bytes; 300 headers of two
// 99-item groups are 2.9 M envs). Everything one configuration file expands draws from one
// budget, counted before a name is written out, so reading a file takes time linear in it
// and memory bounded whatever it says; what passes the budget is cut, with a note.

/// The most env names one file's `env_list`, `[testenv:…]` headers, conditions naming new
/// envs, TOML products, ranges and `env_base` factors may make in all (a repeated name
/// counts: it is made before it is dropped). Real projects list tens of envs; the largest
/// matrices seen are a few hundred.
pub(crate) const MAX_ENVS: usize = 10_000;

/// The most bytes those names may take in all, counting a byte for each part of a product
/// too (so that a product of empty parts costs its length).
const MAX_NAME_BYTES: usize = 1 << 20;

/// The most factor groups the conditions of one file (`py311,django42: …`) may expand to,
/// in all: a budget of their own, so that conditions cannot crowd out envs.
const MAX_CONDITION_GROUPS: usize = 10_000;

/// The most numbers the ranges of one file (`{10-12}`) are written out to in all. A range
/// of more than [`MAX_ENVS`] numbers is cut to its first [`MAX_ENVS`] first: no product it
/// stands in lists more of them.
const MAX_RANGE_NUMBERS: usize = 100_000;

/// The work the descriptions of one file's envs may take in all: lines looked at and bytes
/// written, over every env (a description is filtered for each env by its factors).
const MAX_DESCRIPTION_WORK: usize = 32 << 20;

/// What one configuration file may still make, and what was cut.
#[derive(Debug)]
pub(crate) struct Budget {
    envs: Allowance,
    conditions: Allowance,
    numbers: usize,
    /// The first range cut, as a note shows it, and how many were.
    ranges_cut: Option<(String, usize)>,
    work: usize,
    /// Envs listed without their description, the work being spent.
    descriptions_cut: usize,
    notes: Vec<String>,
    /// Expressions cut after the first one of their kind (told in full), and the names
    /// they stood for that were not made.
    more_cut: usize,
    more_names: usize,
}

/// Names and bytes left to one kind of expansion.
#[derive(Debug)]
struct Allowance {
    names: usize,
    bytes: usize,
    limit: usize,
    /// What the names are, for notes.
    what: &'static str,
    /// Whether a note told of a cut already.
    told: bool,
}

/// Which allowance an expansion draws from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Envs,
    Conditions,
}

impl Budget {
    pub(crate) fn new() -> Self {
        let allowance = |limit, what| Allowance {
            names: limit,
            bytes: MAX_NAME_BYTES,
            limit,
            what,
            told: false,
        };
        Self {
            envs: allowance(MAX_ENVS, "envs"),
            conditions: allowance(MAX_CONDITION_GROUPS, "factor groups of conditions"),
            numbers: MAX_RANGE_NUMBERS,
            ranges_cut: None,
            work: MAX_DESCRIPTION_WORK,
            descriptions_cut: 0,
            notes: Vec::new(),
            more_cut: 0,
            more_names: 0,
        }
    }

    fn allowance(&mut self, kind: Kind) -> &mut Allowance {
        match kind {
            Kind::Envs => &mut self.envs,
            Kind::Conditions => &mut self.conditions,
        }
    }

    /// Takes one name that costs `cost` bytes, if the allowance has room for it; once one
    /// does not fit, none does.
    fn take(&mut self, kind: Kind, cost: usize) -> bool {
        let allowance = self.allowance(kind);
        if allowance.names == 0 || allowance.bytes < cost {
            allowance.names = 0;
            return false;
        }
        allowance.names -= 1;
        allowance.bytes -= cost;
        true
    }

    /// Records that `expression`, which stands for `total` names (`usize::MAX`: at least
    /// that many), made only `made`.
    fn cut(&mut self, kind: Kind, expression: &str, total: usize, made: usize) {
        let allowance = self.allowance(kind);
        if allowance.told {
            self.more_cut += 1;
            self.more_names = self.more_names.saturating_add(total - made);
            return;
        }
        allowance.told = true;
        if total == 1 && made == 0 {
            let note = format!(
                "`{}` and what follows it are not read (at most {} {} in all, of at most {} \
                 MiB, per file)",
                shorten(expression),
                allowance.limit,
                allowance.what,
                MAX_NAME_BYTES >> 20,
            );
            self.notes.push(note);
            return;
        }
        let total = match total {
            usize::MAX => format!("at least {}", usize::MAX),
            n => n.to_string(),
        };
        let made = match made {
            0 => "none is read".to_owned(),
            n => format!("only the first {n} are read"),
        };
        let note = format!(
            "`{}` stands for {total} {}; {made} (at most {} in all, of at most {} MiB, per \
             file)",
            shorten(expression),
            allowance.what,
            allowance.limit,
            MAX_NAME_BYTES >> 20,
        );
        self.notes.push(note);
    }

    /// Records that a range (`what`, of `count` numbers) was cut.
    fn range_cut(&mut self, what: impl FnOnce() -> String, count: u64) {
        match &mut self.ranges_cut {
            Some((_, n)) => *n += 1,
            None => {
                self.ranges_cut = Some((format!("a range of {count} numbers in {}", what()), 1))
            }
        }
    }

    /// Whether describing one more env, at `cost`, fits the work left.
    fn describe(&mut self, cost: usize) -> bool {
        if self.work < cost {
            self.work = 0;
            return false;
        }
        self.work -= cost;
        true
    }

    /// The notes that say what was cut.
    pub(crate) fn into_notes(self) -> Vec<String> {
        let mut notes = self.notes;
        if self.more_cut > 0 {
            let names = match self.more_names {
                usize::MAX => format!("at least {}", usize::MAX),
                n => n.to_string(),
            };
            notes.push(format!(
                "{} more expressions past those limits are cut ({names} names not read)",
                self.more_cut
            ));
        }
        if let Some((first, count)) = self.ranges_cut {
            let others = match count {
                1 => String::new(),
                n => format!(" and {} more", n - 1),
            };
            notes.push(format!(
                "{first}{others} cut: ranges are written out to at most {MAX_ENVS} numbers \
                 each and {MAX_RANGE_NUMBERS} in all, per file; their other numbers are not read"
            ));
        }
        if self.descriptions_cut > 0 {
            notes.push(format!(
                "{} envs are listed without their description: describing the file's envs \
                 passed {} MiB of work",
                self.descriptions_cut,
                MAX_DESCRIPTION_WORK >> 20
            ));
        }
        notes
    }
}

/// An expression as a note shows it: its first 60 characters.
pub(crate) fn shorten(expression: &str) -> String {
    match expression.char_indices().nth(60) {
        Some((at, _)) => format!("{}…", &expression[..at]),
        None => expression.to_owned(),
    }
}

// ---------------------------------------------------------------------------------------
// Factor expressions (tox/config/loader/ini/factor.py).

/// tox's `expand_ranges`: `{10-12}` is `{10,11,12}`, `{12-}` runs to 3.15's minor and
/// `{-13}` starts at 11. A range is written out to at most [`MAX_ENVS`] numbers, and to
/// what is left of the file's [`MAX_RANGE_NUMBERS`].
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
type FactorGroups = Vec<Vec<(String, bool)>>;

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
fn expand(value: &str, budget: &mut Budget) -> Result<Vec<String>, String> {
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
fn split_condition<'l>(line: &'l str, budget: &mut Budget) -> (Option<FactorGroups>, &'l str) {
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
struct Conditional {
    lines: Vec<(Option<FactorGroups>, String)>,
    /// What filtering it for one env costs: its lines and their conditions' factors.
    cost: usize,
}

impl Conditional {
    fn new(value: &str, budget: &mut Budget) -> Self {
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
    fn filter(&self, factors: &HashSet<&str>) -> String {
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
fn factors_of_name(name: &str) -> HashSet<&str> {
    name.split('-')
        .map(|f| f.strip_prefix('!').unwrap_or(f))
        .collect()
}

// ---------------------------------------------------------------------------------------
// INI files, read as Python's configparser reads them (tox 4.67 uses `ConfigParser(
// interpolation=None)`): `#`/`;` comment lines, values continued on deeper-indented lines,
// keys lowercased, a repeated section or key an error.

#[derive(Debug, Default)]
struct Ini {
    sections: Vec<IniSection>,
}

#[derive(Debug)]
struct IniSection {
    name: String,
    values: Vec<(String, String)>,
}

impl Ini {
    fn section(&self, name: &str) -> Option<&IniSection> {
        self.sections.iter().find(|s| s.name == name)
    }
}

impl IniSection {
    fn get(&self, key: &str) -> Option<&str> {
        self.values
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

fn parse_ini(text: &str) -> Result<Ini, String> {
    let mut ini = Ini::default();
    // The lines of the value being read, and the indentation of its key.
    let mut current: Option<(String, Vec<String>)> = None;
    let mut indent_level = 0;
    // The section names and the keys of the last section, to find a repeat at once.
    let mut headers: HashSet<&str> = HashSet::new();
    let mut keys: HashSet<String> = HashSet::new();
    let flush = |ini: &mut Ini, current: &mut Option<(String, Vec<String>)>| {
        if let (Some((key, lines)), Some(section)) = (current.take(), ini.sections.last_mut()) {
            let value = lines.join("\n").trim_end().to_owned();
            section.values.push((key, value));
        }
    };
    for (number, line) in text.lines().enumerate() {
        let number = number + 1;
        let line = line.strip_suffix('\r').unwrap_or(line);
        let comment = line.trim_start().starts_with(['#', ';']);
        let value = if comment { "" } else { line.trim() };
        if value.is_empty() {
            if !comment && let Some((_, lines)) = &mut current {
                lines.push(String::new());
            }
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        if let Some((_, lines)) = &mut current
            && indent > indent_level
        {
            lines.push(value.to_owned());
            continue;
        }
        indent_level = indent;
        flush(&mut ini, &mut current);
        if let Some(header) = value
            .strip_prefix('[')
            .and_then(|rest| rest.rfind(']').filter(|&c| c > 0).map(|c| &rest[..c]))
        {
            if !headers.insert(header) {
                return Err(format!(
                    "line {number}: section [{header}] appears twice, which tox refuses"
                ));
            }
            ini.sections.push(IniSection {
                name: header.to_owned(),
                values: Vec::new(),
            });
            keys.clear();
            continue;
        }
        let Some(section) = ini.sections.last() else {
            return Err(format!("line {number}: a value before any [section]"));
        };
        let Some(at) = value.find(['=', ':']) else {
            return Err(format!(
                "line {number}: neither a section, a key nor a value"
            ));
        };
        let key = value[..at].trim_end().to_lowercase();
        if key.is_empty() {
            return Err(format!("line {number}: a value without a key"));
        }
        if !keys.insert(key.clone()) {
            return Err(format!(
                "line {number}: `{key}` is set twice in [{}], which tox refuses",
                section.name
            ));
        }
        current = Some((key, vec![value[at + 1..].trim().to_owned()]));
    }
    flush(&mut ini, &mut current);
    Ok(ini)
}

/// A value tox uses, read as `IniLoader.process_raw` reads it, once for every env: comments
/// dropped and conditions read; [`Processed::for_env`] keeps the lines for one env and
/// joins continued lines.
struct Processed {
    conditional: Conditional,
    /// Whether the value holds nothing but blanks once comments are dropped.
    blank: bool,
}

impl Processed {
    fn new(value: &str, budget: &mut Budget) -> Self {
        let mut lines = Vec::new();
        for line in value.split('\n') {
            if line.starts_with('#') {
                continue;
            }
            let cut = unescaped_hash(line).map_or(line, |at| line[..at].trim_end());
            lines.push(cut.replace("\\#", "#"));
        }
        let stripped = lines.join("\n").replace('\r', "");
        Self {
            conditional: Conditional::new(&stripped, budget),
            blank: stripped.trim().is_empty(),
        }
    }

    /// The value for an env of `factors`; `None` when no line holds for it (tox then looks
    /// further, as if the key were not set).
    fn for_env(&self, factors: &HashSet<&str>) -> Option<String> {
        let filtered = self.conditional.filter(factors);
        if filtered.is_empty() && !self.blank {
            return None;
        }
        Some(filtered.replace("\\\n", ""))
    }
}

/// Where a `#` not preceded by `\` starts a comment.
fn unescaped_hash(line: &str) -> Option<usize> {
    line.char_indices()
        .find(|&(i, c)| c == '#' && !line[..i].ends_with('\\'))
        .map(|(i, _)| i)
}

/// The envs `tox list` shows for INI text whose core section is `core` (`tox` in tox.ini
/// and pyproject's `legacy_tox_ini`, `tox:tox` in setup.cfg), in its order: the default
/// `env_list` (else `py`), the `[testenv:…]` sections (generative names expanded), then envs
/// that only factor conditions name with a factor nothing else has (tox lists
/// `mysql: mysqlclient` as the env `mysql`). What passes the budget is cut and noted in it.
fn ini_envs(text: &str, core: &str, budget: &mut Budget) -> Result<Vec<Env>, String> {
    envs_of_ini(&parse_ini(text)?, core, budget)
}

#[expect(
    clippy::too_many_lines,
    reason = "over 80 lines when the limit was set; split it when it next changes"
)]
fn envs_of_ini(ini: &Ini, core: &str, budget: &mut Budget) -> Result<Vec<Env>, String> {
    let core_prefix = core.split_once(':').map(|(p, _)| p);
    let core_section = ini.section(core);
    let raw_list = core_section.and_then(|s| s.get("env_list").or_else(|| s.get("envlist")));
    let mut explicit = Vec::new();
    if let Some(raw) = raw_list.and_then(|r| Processed::new(r, budget).for_env(&HashSet::new())) {
        for line in raw.split('\n') {
            explicit.extend(expand(line, budget).map_err(|e| format!("[{core}] env_list: {e}"))?);
        }
    }
    let mut known: HashSet<String> = factors_of(&explicit);
    // (name, section index) for every env a [testenv:…] section defines.
    let mut defined: Vec<(String, usize)> = Vec::new();
    for (index, section) in ini.sections.iter().enumerate() {
        let Some(("testenv", name)) = section.name.split_once(':') else {
            continue;
        };
        let names = expand(name, budget).map_err(|e| format!("[{}]: {e}", section.name))?;
        known.extend(factors_of(&names));
        defined.extend(names.into_iter().map(|n| (n, index)));
    }
    let is_tox_section = |s: &IniSection| match s.name.split_once(':') {
        Some(("testenv", _)) => true,
        _ if s.name == core => true,
        Some((prefix, rest)) => {
            Some(prefix) == core_prefix && (rest == "testenv" || rest.starts_with("testenv:"))
        }
        None => core_prefix.is_none() && s.name == "testenv",
    };
    let mut conditional = Vec::new();
    for section in ini.sections.iter().filter(|s| is_tox_section(s)) {
        for (_, value) in &section.values {
            for line in value.split('\n') {
                if let (Some(groups), _) = split_condition(line, budget) {
                    for group in groups {
                        let env: Vec<String> = group.into_iter().map(|(n, _)| n).collect();
                        if env.iter().any(|f| !known.contains(f)) {
                            let name = env.join("-");
                            // A new env draws from the envs' budget like any other.
                            if budget.take(Kind::Envs, name.len()) {
                                conditional.push(name);
                            } else {
                                budget.cut(Kind::Envs, &name, 1, 0);
                            }
                        }
                    }
                }
            }
        }
    }
    let base = ini.section("testenv");
    let mut order = explicit;
    if order.is_empty() {
        // tox runs `py` when no env is chosen.
        order.push("py".into());
    }
    // Each env's own section: the first that defines it.
    let mut own: HashMap<&str, usize> = HashMap::new();
    for (name, index) in &defined {
        own.entry(name.as_str()).or_insert(*index);
    }
    let mut order: Vec<(String, Option<usize>)> = order.into_iter().map(|n| (n, None)).collect();
    order.extend(defined.iter().map(|(n, _)| (n.clone(), None)));
    order.extend(conditional.into_iter().map(|n| (n, None)));
    for (name, section) in &mut order {
        *section = own.get(name.as_str()).copied();
    }
    // The descriptions, each read once.
    let mut descriptions: HashMap<usize, Option<Processed>> = HashMap::new();
    let base_description = base
        .and_then(|s| s.get("description"))
        .map(|v| Processed::new(v, budget));
    let mut seen = HashSet::new();
    let mut envs = Vec::new();
    for (name, section) in order {
        if name.starts_with('.') || !seen.insert(name.clone()) {
            // `.pkg` and its kind are packaging envs, which `tox list` leaves out.
            continue;
        }
        let own = section.and_then(|index| {
            descriptions
                .entry(index)
                .or_insert_with(|| {
                    ini.sections[index]
                        .get("description")
                        .map(|v| Processed::new(v, budget))
                })
                .as_ref()
        });
        let factors = factors_of_name(&name);
        let spent = budget.work == 0;
        let description = [own, base_description.as_ref()]
            .into_iter()
            .flatten()
            .find_map(|value| {
                if !budget.describe(value.conditional.cost) {
                    return None;
                }
                let text = value.for_env(&factors)?;
                // `{env_name}` grows by the name each time it is written.
                let grown = text.len().saturating_add(
                    (text.matches("{env_name}").count() + text.matches("{envname}").count())
                        .saturating_mul(name.len()),
                );
                budget.describe(grown).then(|| {
                    text.replace("{env_name}", &name)
                        .replace("{envname}", &name)
                        .replace('\n', " ")
                        .trim()
                        .to_owned()
                })
            })
            .filter(|d| !d.is_empty());
        if description.is_none() && (spent || budget.work == 0) {
            budget.descriptions_cut += 1;
        }
        envs.push(Env { name, description });
    }
    Ok(envs)
}

fn factors_of(names: &[String]) -> HashSet<String> {
    names
        .iter()
        .flat_map(|n| n.split('-').map(str::to_owned))
        .collect()
}

/// One line of a testenv's value, for a runner that asks what the envs install or run
/// (python's `test` looks for pytest there).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EnvLine {
    /// The section it is read from (`testenv`, `testenv:lint`, or `base` for a line that a
    /// `{[base]deps}` reference brings in).
    pub(crate) section: String,
    /// The key (`commands`, `deps`).
    pub(crate) key: String,
    /// The line as tox reads it: comments dropped, its factor condition (`py311: `) cut off.
    pub(crate) text: String,
}

/// The lines of `keys` in every testenv section of tox.ini text (`[testenv]` and each
/// `[testenv:…]`), whichever env they belong to: a line under a factor condition runs in
/// some env, so the condition is cut off rather than checked. A `{[section]key}`
/// reference in one of them brings in that value's lines, one level deep and each value
/// once, so the work stays linear in the file.
pub(crate) fn testenv_lines(text: &str, keys: &[&str]) -> Result<Vec<EnvLine>, String> {
    let ini = parse_ini(text.strip_prefix('\u{feff}').unwrap_or(text))?;
    let mut budget = Budget::new();
    let mut out = Vec::new();
    let mut referenced: Vec<(String, String)> = Vec::new();
    let mut seen: HashSet<(String, String)> = HashSet::new();
    let mut push = |section: &str, key: &str, value: &str, out: &mut Vec<EnvLine>| {
        for (_, line) in Processed::new(value, &mut budget).conditional.lines {
            if !line.trim().is_empty() {
                out.push(EnvLine {
                    section: section.to_owned(),
                    key: key.to_owned(),
                    text: line,
                });
            }
        }
    };
    let is_testenv = |name: &str| name == "testenv" || name.starts_with("testenv:");
    for section in ini.sections.iter().filter(|s| is_testenv(&s.name)) {
        for &key in keys {
            let Some(value) = section.get(key) else {
                continue;
            };
            push(&section.name, key, value, &mut out);
            let mut rest = value;
            while let Some(at) = rest.find("{[") {
                rest = &rest[at + 2..];
                let Some((target, after)) = rest.split_once(']') else {
                    break;
                };
                let Some((name, _)) = after.split_once('}') else {
                    break;
                };
                let pair = (target.to_owned(), name.trim().to_lowercase());
                // A testenv section is read already.
                if !is_testenv(target) && seen.insert(pair.clone()) {
                    referenced.push(pair);
                }
            }
        }
    }
    for (target, key) in &referenced {
        if let Some(value) = ini.section(target).and_then(|s| s.get(key)) {
            push(target, key, value, &mut out);
        }
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------
// TOML: tox.toml and pyproject.toml's [tool.tox].

/// The envs of pyproject.toml: `[tool.tox]` in TOML form, else its `legacy_tox_ini` text;
/// `None` when it has neither.
fn pyproject_envs(text: &str, budget: &mut Budget) -> Result<Option<Vec<Env>>, String> {
    let doc = DeTable::parse(text).map_err(|e| format!("not TOML: {}", e.message()))?;
    let tox = match get(doc.get_ref(), "tool") {
        Some(DeValue::Table(tool)) => match get(tool, "tox") {
            Some(DeValue::Table(tox)) => tox,
            _ => return Ok(None),
        },
        _ => return Ok(None),
    };
    if tox.iter().any(|(k, _)| k.get_ref() != "legacy_tox_ini") {
        return envs_of_table(tox, budget).map(Some);
    }
    match get(tox, "legacy_tox_ini") {
        Some(DeValue::String(ini)) => ini_envs(ini, "tox", budget)
            .map(Some)
            .map_err(|e| format!("legacy_tox_ini: {e}")),
        _ => Ok(None),
    }
}

/// The envs of a tox.toml; `None` when it sets nothing (tox passes over it).
fn toml_envs(text: &str, budget: &mut Budget) -> Result<Option<Vec<Env>>, String> {
    let doc = DeTable::parse(text).map_err(|e| format!("not TOML: {}", e.message()))?;
    let table = doc.get_ref();
    if table.iter().all(|(k, _)| k.get_ref() == "legacy_tox_ini") {
        return Ok(None);
    }
    envs_of_table(table, budget).map(Some)
}

fn get<'t, 'i>(table: &'t DeTable<'i>, key: &str) -> Option<&'t DeValue<'i>> {
    table
        .iter()
        .find(|(k, _)| k.get_ref() == key)
        .map(|(_, v)| v.get_ref())
}

/// A table's entries in the order the file writes them (the parser's map sorts them).
fn ordered<'t, 'i>(table: &'t DeTable<'i>) -> Vec<(&'t str, &'t DeValue<'i>)> {
    let mut entries: Vec<_> = table.iter().collect();
    entries.sort_by_key(|(k, _)| k.span().start);
    entries
        .into_iter()
        .map(|(k, v)| (k.get_ref().as_ref(), v.get_ref()))
        .collect()
}

fn string_of<'t>(value: Option<&'t DeValue<'_>>) -> Option<&'t str> {
    match value {
        Some(DeValue::String(s)) => Some(s.as_ref()),
        _ => None,
    }
}

/// The envs of tox's TOML configuration (the table that holds `env_list`): `env_list`
/// (strings as written, `product`, range and labelled groups expanded), the `[env.…]`
/// tables, then the envs `[env_base.…]` generates from its `factors`; as far as the budget
/// goes.
#[expect(
    clippy::too_many_lines,
    reason = "over 80 lines when the limit was set; split it when it next changes"
)]
fn envs_of_table(tox: &DeTable<'_>, budget: &mut Budget) -> Result<Vec<Env>, String> {
    let mut names: Vec<String> = Vec::new();
    // A name written as one, drawn from the budget like the others.
    let one = |budget: &mut Budget, names: &mut Vec<String>, name: &str| {
        if budget.take(Kind::Envs, name.len()) {
            names.push(name.to_owned());
        } else {
            budget.cut(Kind::Envs, name, 1, 0);
        }
    };
    match get(tox, "env_list") {
        None => {}
        Some(DeValue::Array(items)) => {
            for item in items.iter().map(|i| i.get_ref()) {
                match item {
                    DeValue::String(s) => one(budget, &mut names, s),
                    DeValue::Table(t) if get(t, "product").is_some() => {
                        names.extend(product(t, budget)?);
                    }
                    DeValue::Table(_) => {
                        let group = factor_group(item, budget)?;
                        names.extend(cartesian(&[group], "env_list", 0, budget));
                    }
                    _ => return Err("env_list holds an item tox cannot read".into()),
                }
            }
        }
        Some(_) => return Err("env_list is not a list".into()),
    }
    if names.is_empty() {
        names.push("py".into());
    }
    let envs = match get(tox, "env") {
        Some(DeValue::Table(envs)) => ordered(envs),
        Some(_) => return Err("env is not a table".into()),
        None => Vec::new(),
    };
    for (name, _) in &envs {
        one(budget, &mut names, name);
    }
    let mut generated: Vec<(String, &str)> = Vec::new();
    let bases = match get(tox, "env_base") {
        Some(DeValue::Table(bases)) => ordered(bases),
        _ => Vec::new(),
    };
    for (base, config) in &bases {
        let DeValue::Table(config) = config else {
            return Err(format!("env_base.{base} is not a table"));
        };
        let Some(DeValue::Array(factors)) = get(config, "factors") else {
            return Err(format!("env_base.{base} has no `factors` list"));
        };
        let grouped = factors
            .first()
            .is_some_and(|f| matches!(f.get_ref(), DeValue::Array(_) | DeValue::Table(_)));
        let groups = if grouped {
            factors
                .iter()
                .map(|g| factor_group(g.get_ref(), budget))
                .collect::<Result<Vec<_>, _>>()?
        } else {
            vec![
                factors
                    .iter()
                    .map(|f| scalar(f.get_ref()))
                    .collect::<Result<Vec<_>, _>>()?,
            ]
        };
        let what = format!("env_base.{base}");
        generated.extend(
            cartesian(&groups, &what, base.len() + 1, budget)
                .into_iter()
                .map(|suffix| (format!("{base}-{suffix}"), *base)),
        );
    }
    names.extend(generated.iter().map(|(n, _)| n.clone()));
    let run_base = match get(tox, "env_run_base") {
        Some(DeValue::Table(t)) => string_of(get(t, "description")),
        _ => None,
    };
    // The first table of each name, in `[env.…]` and in the generated ones.
    let mut own: HashMap<&str, &DeValue<'_>> = HashMap::new();
    for (name, value) in &envs {
        own.entry(name).or_insert(value);
    }
    let mut base_tables: HashMap<&str, &DeValue<'_>> = HashMap::new();
    for (base, value) in &bases {
        base_tables.entry(base).or_insert(value);
    }
    let mut from_base: HashMap<&str, &DeValue<'_>> = HashMap::new();
    for (name, base) in &generated {
        if let Some(table) = base_tables.get(base) {
            from_base.entry(name.as_str()).or_insert(table);
        }
    }
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for name in &names {
        if name.starts_with('.') || !seen.insert(name.as_str()) {
            continue;
        }
        let own = own.get(name.as_str()).and_then(description_of);
        let from_base = from_base.get(name.as_str()).and_then(description_of);
        let description = own
            .or(from_base)
            .or(run_base)
            .and_then(|d| {
                let grown = d
                    .len()
                    .saturating_add(d.matches("{env_name}").count().saturating_mul(name.len()));
                if !budget.describe(grown) {
                    budget.descriptions_cut += 1;
                    return None;
                }
                Some(()).map(|()| {
                    d.replace("{env_name}", name)
                        .replace('\n', " ")
                        .trim()
                        .to_owned()
                })
            })
            .filter(|d| !d.is_empty());
        out.push(Env {
            name: name.clone(),
            description,
        });
    }
    Ok(out)
}

fn description_of<'t>(value: &&'t DeValue<'_>) -> Option<&'t str> {
    match value {
        DeValue::Table(t) => string_of(get(t, "description")),
        _ => None,
    }
}

fn scalar(value: &DeValue<'_>) -> Result<String, String> {
    match value {
        DeValue::String(s) => Ok(s.to_string()),
        DeValue::Integer(i) => Ok(i.as_str().to_owned()),
        _ => Err("a factor that is not a string".into()),
    }
}

/// A `product` item of `env_list`: every combination of its groups joined with `-`, less
/// its `exclude`, as far as the budget goes.
fn product(table: &DeTable<'_>, budget: &mut Budget) -> Result<Vec<String>, String> {
    let Some(DeValue::Array(groups)) = get(table, "product") else {
        return Err("`product` is not a list".into());
    };
    let groups = groups
        .iter()
        .map(|g| factor_group(g.get_ref(), budget))
        .collect::<Result<Vec<_>, _>>()?;
    let exclude: HashSet<String> = match get(table, "exclude") {
        Some(DeValue::Array(items)) => items
            .iter()
            .filter_map(|i| scalar(i.get_ref()).ok())
            .collect(),
        _ => HashSet::new(),
    };
    if groups.is_empty() {
        return Ok(Vec::new());
    }
    Ok(cartesian(&groups, "product", 0, budget)
        .into_iter()
        .filter(|n| !exclude.contains(n))
        .collect())
}

/// Every combination of `groups` joined with `-`, in tox's order (the last group turns
/// fastest), made one at a time as far as the budget goes; `what` names them in a note, and
/// each costs `extra` bytes more (a prefix the caller adds).
fn cartesian(groups: &[Vec<String>], what: &str, extra: usize, budget: &mut Budget) -> Vec<String> {
    let total = groups
        .iter()
        .fold(1usize, |n, group| n.saturating_mul(group.len()));
    let mut out = Vec::new();
    let mut index = vec![0usize; groups.len()];
    while out.len() < total {
        let len = groups
            .iter()
            .zip(&index)
            .map(|(g, &i)| g[i].len() + 1)
            .sum::<usize>()
            .saturating_add(extra);
        if !budget.take(Kind::Envs, len) {
            budget.cut(Kind::Envs, what, total, out.len());
            break;
        }
        let mut name = String::with_capacity(len);
        for (group, &i) in groups.iter().zip(&index) {
            if !name.is_empty() {
                name.push('-');
            }
            name.push_str(&group[i]);
        }
        out.push(name);
        for (k, group) in groups.iter().enumerate().rev() {
            index[k] += 1;
            if index[k] < group.len() {
                break;
            }
            index[k] = 0;
        }
    }
    out
}

/// One factor group: a list of names, a range (`{ prefix = "py3", start = 10, stop = 13 }`)
/// or a labelled group (`{ django = ["42", "50"] }`, `{ py = { prefix = … } }`).
fn factor_group(value: &DeValue<'_>, budget: &mut Budget) -> Result<Vec<String>, String> {
    match value {
        DeValue::Array(items) => items
            .iter()
            .map(|i| match i.get_ref() {
                DeValue::String(s) => Ok(s.to_string()),
                _ => Err("a factor group item that is not a string".to_owned()),
            })
            .collect(),
        DeValue::Table(t) if get(t, "prefix").is_some() => range(t, budget),
        DeValue::Table(t) if t.len() == 1 => {
            let (_, inner) = t
                .iter()
                .next()
                .map(|(k, v)| (k, v.get_ref()))
                .ok_or("empty")?;
            match inner {
                DeValue::Table(inner) if get(inner, "prefix").is_some() => range(inner, budget),
                DeValue::Table(inner) => match get(inner, "values") {
                    Some(DeValue::Array(values)) => {
                        values.iter().map(|v| scalar(v.get_ref())).collect()
                    }
                    _ => Err("a labelled factor group without `values`".into()),
                },
                DeValue::Array(values) => values.iter().map(|v| scalar(v.get_ref())).collect(),
                _ => Err("a labelled factor group tox cannot read".into()),
            }
        }
        _ => Err("a factor group tox cannot read".into()),
    }
}

/// A range group, counted before it is written out: at most [`MAX_ENVS`] numbers, and what
/// is left of the file's [`MAX_RANGE_NUMBERS`].
fn range(table: &DeTable<'_>, budget: &mut Budget) -> Result<Vec<String>, String> {
    let prefix = match get(table, "prefix") {
        Some(DeValue::String(p)) => p.to_string(),
        Some(other) => scalar(other)?,
        None => String::new(),
    };
    let int = |key| match get(table, key) {
        Some(DeValue::Integer(i)) if i.radix() == 10 => i
            .as_str()
            .replace('_', "")
            .parse::<u32>()
            .map(Some)
            .map_err(|_| format!("range `{key}` is not a small number")),
        None => Ok(None),
        Some(_) => Err(format!("range `{key}` is not an integer")),
    };
    let (start, stop) = (int("start")?, int("stop")?);
    let (first, last) = match (start, stop) {
        (None, None) => return Err("a range without `start` or `stop`".into()),
        (Some(a), Some(b)) if a > b => return Ok(Vec::new()),
        (Some(a), Some(b)) => (a, b),
        (a, b) => {
            let first = a.unwrap_or(11);
            let last = b.unwrap_or(15);
            if first <= last {
                (first, last)
            } else if a.is_none() {
                (last, last)
            } else {
                (first, first)
            }
        }
    };
    let count = (last - first) as usize + 1;
    let allowed = count.min(MAX_ENVS).min(budget.numbers);
    if allowed < count {
        budget.range_cut(
            || format!("`{{ prefix = {prefix:?}, start = {first}, stop = {last} }}`"),
            count as u64,
        );
    }
    budget.numbers -= allowed;
    Ok((first..=last)
        .take(allowed)
        .map(|m| format!("{prefix}{m}"))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(envs: &[Env]) -> Vec<&str> {
        envs.iter().map(|e| e.name.as_str()).collect()
    }

    fn expand(value: &str) -> Result<Vec<String>, String> {
        super::expand(value, &mut Budget::new())
    }

    fn ini_envs(text: &str, core: &str) -> Result<Vec<Env>, String> {
        super::ini_envs(text, core, &mut Budget::new())
    }

    fn toml_envs(text: &str) -> Result<Option<Vec<Env>>, String> {
        super::toml_envs(text, &mut Budget::new())
    }

    fn pyproject_envs(text: &str) -> Result<Option<Vec<Env>>, String> {
        super::pyproject_envs(text, &mut Budget::new())
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

    /// The listing of `text` as the runner makes it (`name` is the file), with its notes.
    fn listing(name: &str, text: &str) -> Runner {
        let mut budget = Budget::new();
        let envs = match name {
            "tox.ini" => super::ini_envs(text, "tox", &mut budget),
            _ => super::toml_envs(text, &mut budget).map(|e| e.expect("settings")),
        }
        .expect("read");
        let mut runner = into_runner(name, envs, None);
        runner.notes.extend(budget.into_notes());
        runner
    }

    /// A 99-item brace group: `{0,1,…,98}`.
    fn group99() -> String {
        let items: Vec<String> = (0..99).map(|n| n.to_string()).collect();
        format!("{{{}}}", items.join(","))
    }

    /// Property: whatever a file says, its envs are at most [`MAX_ENVS`] in all, counted
    /// before they are written out, and what was cut is noted. (Each of these took
    /// gigabytes or minutes when every expression was written out whole, and the limit held
    /// per expression.)
    #[test]
    fn hostile_expansions_stay_within_the_files_budget() {
        #[track_caller]
        fn case(name: &str, text: &str, tasks: usize, note: &str) {
            let runner = listing(name, text);
            assert_eq!(runner.tasks.len(), tasks, "{name}: {:#?}", runner.notes);
            assert!(
                runner.notes.iter().any(|n| n.contains(note)),
                "{name}: {note}: {:#?}",
                runner.notes
            );
        }
        case(
            "tox.ini",
            "[tox]\nenvlist = py{1-4000000000}\n",
            MAX_ENVS,
            "a range of 4000000000 numbers in `py{1-4000000000}` cut: ranges are written out \
             to at most 10000 numbers each",
        );
        // Through a condition: conditions have a budget of their own, and the envs they
        // name draw from the envs'.
        case(
            "tox.ini",
            "[tox]\nenvlist = lint\n[testenv]\ndeps =\n    py{1-4000000000}: pytest\n",
            MAX_ENVS,
            "ranges are written out",
        );
        case(
            "tox.toml",
            "env_list = [{ product = [{ prefix = \"py\", start = 1, stop = 4000000000 }] }]\n",
            MAX_ENVS,
            "a range of 4000000000 numbers in `{ prefix = \"py\", start = 1, stop = 4000000000 }` \
             cut",
        );
        case(
            "tox.toml",
            "env_list = [{ prefix = \"py\", start = 1, stop = 4000000000 }]\n",
            MAX_ENVS,
            "ranges are written out",
        );
        // 300 headers of 9,801 envs each: the first header whole, a piece of the second.
        let group = group99();
        let sections: String = (0..300)
            .map(|k| format!("[testenv:s{k}-{group}-{group}]\n"))
            .collect();
        case(
            "tox.ini",
            &format!("[tox]\nenvlist = lint\n{sections}"),
            MAX_ENVS,
            "298 more expressions past those limits are cut (2920698 names not read)",
        );
        // 200 env_list lines of that shape.
        let lines: String = (0..200)
            .map(|k| format!("    e{k}-{group}-{group}\n"))
            .collect();
        case(
            "tox.ini",
            &format!("[tox]\nenvlist =\n{lines}"),
            MAX_ENVS,
            "stands for 9801 envs; only the first 199 are read",
        );
        // Long names: the bytes run out before the count does.
        let long = "x".repeat(100_000);
        case(
            "tox.ini",
            &format!("[tox]\nenvlist = {long}{{1-99}}\n"),
            10,
            "of at most 1 MiB, per file",
        );
        // A product of empty parts costs its length.
        case(
            "tox.ini",
            &format!("[tox]\nenvlist = a{}\n", "{,}".repeat(100_000)),
            1,
            "stands for at least 18446744073709551615 envs; only the first 5 are read",
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

    /// Measured: `tox l` in a folder holding this tox.ini (tox 4.67.13) lists these, in
    /// this order, with these descriptions (and `.pkg`, which is tox's packaging env in any
    /// project that builds a package).
    #[test]
    fn tox_ini_lists_what_tox_list_lists() {
        let text = "\
[tox]
env_list = py3{10,11}, lint  # the usual
    type
requires = tox>=4

[testenv]
description = run the tests on {env_name}
deps =
    django42: Django>=4.2
    mysql: mysqlclient
    !lint: pytest
commands = pytest {posargs}

[testenv:lint]
description = lint
  the code
commands = ruff check

[testenv:py{310,311}-django{42,50}]
; a comment
description =
    py310: old
    py311: new

[testenv:.pkg]
[testenv:-x]
";
        let envs = ini_envs(text, "tox").expect("parsed");
        assert_eq!(
            names(&envs),
            [
                "py310",
                "py311",
                "lint",
                "type",
                "py310-django42",
                "py310-django50",
                "py311-django42",
                "py311-django50",
                "-x",
                "mysql"
            ]
        );
        let doc = |name: &str| {
            envs.iter()
                .find(|e| e.name == name)
                .and_then(|e| e.description.clone())
        };
        assert_eq!(doc("py310").as_deref(), Some("run the tests on py310"));
        assert_eq!(doc("lint").as_deref(), Some("lint the code"));
        assert_eq!(doc("py310-django50").as_deref(), Some("old"));
        assert_eq!(doc("py311-django42").as_deref(), Some("new"));
    }

    #[test]
    fn without_env_list_tox_runs_py() {
        let envs = ini_envs("[testenv:lint]\ncommands = ruff\n", "tox").expect("parsed");
        assert_eq!(names(&envs), ["py", "lint"]);
    }

    #[test]
    fn ini_errors_tox_would_refuse() {
        assert!(ini_envs("[testenv:has space]\n", "tox").is_err());
        assert!(ini_envs("[tox]\n[tox]\n", "tox").is_err());
        assert!(ini_envs("[tox]\nenv_list = a\nenvlist = b\nenv_list = c\n", "tox").is_err());
        assert!(ini_envs("key = before any section\n", "tox").is_err());
    }

    #[test]
    fn setup_cfg_core_section() {
        let text = "[metadata]\nname = x\n[tox:tox]\nenvlist = py311\n[testenv:lint]\n";
        assert_eq!(
            names(&ini_envs(text, "tox:tox").expect("parsed")),
            ["py311", "lint"]
        );
    }

    /// Measured the same way with this tox.toml (without `has space`, on which `tox l`
    /// fails: "failed to load has space.description").
    #[test]
    fn toml_forms() {
        let text = r#"
env_list = ["lint", { product = [["py310", "py311"], { django = ["42", "50"] }], exclude = ["py310-50"] }, { prefix = "py3", start = 12, stop = 13 }]

[env_run_base]
description = "run {env_name}"

[env.type]
description = "check types"

[env.lint]

[env."has space"]

[env_base.test]
factors = [["a", "b"]]
description = "generated"
"#;
        let envs = toml_envs(text).expect("parsed").expect("settings");
        assert_eq!(
            names(&envs),
            [
                "lint",
                "py310-42",
                "py311-42",
                "py311-50",
                "py312",
                "py313",
                "type",
                "has space",
                "test-a",
                "test-b"
            ]
        );
        assert_eq!(envs[0].description.as_deref(), Some("run lint"));
        assert_eq!(envs[6].description.as_deref(), Some("check types"));
        assert_eq!(envs[8].description.as_deref(), Some("generated"));
        assert_eq!(toml_envs("").expect("empty"), None);
    }

    #[test]
    fn pyproject_forms() {
        let native = "[project]\nname = 'x'\n[tool.tox]\nenv_list = ['a']\n[tool.tox.env.b]\n";
        assert_eq!(
            names(&pyproject_envs(native).expect("ok").expect("tox")),
            ["a", "b"]
        );
        let legacy = "[tool.tox]\nlegacy_tox_ini = \"\"\"\n[tox]\nenvlist = py3{10,11}\n\"\"\"\n";
        assert_eq!(
            names(&pyproject_envs(legacy).expect("ok").expect("tox")),
            ["py310", "py311"]
        );
        assert_eq!(pyproject_envs("[project]\nname = 'x'\n").expect("ok"), None);
    }

    #[test]
    fn commands_never_read_a_name_as_an_option() {
        let envs = ["lint", "-x", "ALL", "a,b", "py{a}", "has space"]
            .map(|n| Env {
                name: n.into(),
                description: None,
            })
            .to_vec();
        let runner = into_runner("tox.toml", envs, None);
        let got: Vec<(&str, &str)> = runner
            .tasks
            .iter()
            .map(|t| (t.name.as_str(), t.command.as_str()))
            .collect();
        assert_eq!(got, [("lint", "tox -e lint"), ("-x", "tox -e-x")]);
        assert_eq!(runner.notes.len(), 5, "{:#?}", runner.notes);
    }

    #[test]
    fn testenv_lines_are_read_as_tox_reads_them() {
        let text = "\u{feff}[tox]\nenv_list = py311, docs\n\
            [base]\ndeps =\n    hypothesis\n    pytest-xdist\n\
            [testenv]\n# pytest is commented out\ndeps =\n    {[base]deps}\n    py311: coverage  # not pytest\n\
            commands = python -m unittest {posargs}\n\
            [testenv:docs]\ndescription = pytest is not run here\ncommands = sphinx-build docs out\n\
            [other]\ncommands = pytest\n";
        let lines = testenv_lines(text, &["deps", "commands"]).expect("valid");
        let got: Vec<(&str, &str, &str)> = lines
            .iter()
            .map(|l| (l.section.as_str(), l.key.as_str(), l.text.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("testenv", "deps", "{[base]deps}"),
                ("testenv", "deps", "coverage"),
                ("testenv", "commands", "python -m unittest {posargs}"),
                ("testenv:docs", "commands", "sphinx-build docs out"),
                ("base", "deps", "hypothesis"),
                ("base", "deps", "pytest-xdist"),
            ]
        );
        assert!(testenv_lines("[testenv]\n[testenv]\n", &["deps"]).is_err());
    }
}
