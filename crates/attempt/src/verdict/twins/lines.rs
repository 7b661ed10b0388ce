//! The small readers the twins share: indentation, brackets outside strings, a call's
//! arguments, and the changed literal.

/// A source of coin flips: which way an integer moves.
pub(crate) trait Coin {
    fn flip(&mut self) -> bool;
}

/// A coin that always lands one way.
pub(super) struct Fixed(pub(super) bool);

impl Coin for Fixed {
    fn flip(&mut self) -> bool {
        self.0
    }
}

/// Coin flips from the system's random source (all tails where it cannot be read).
pub(super) struct Urandom {
    bytes: Vec<u8>,
    bit: usize,
}

impl Urandom {
    pub(super) fn new() -> Self {
        let mut bytes = vec![0u8; 64];
        let _ = std::fs::File::open("/dev/urandom")
            .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut bytes));
        Self { bytes, bit: 0 }
    }
}

impl Coin for Urandom {
    fn flip(&mut self) -> bool {
        if self.bit >= self.bytes.len() * 8 {
            *self = Self::new();
        }
        let (byte, bit) = (self.bit / 8, self.bit % 8);
        self.bit += 1;
        self.bytes[byte] >> bit & 1 == 1
    }
}

/// The leading whitespace of `line`.
pub(super) fn indent(line: &str) -> &str {
    &line[..line.len() - line.trim_start().len()]
}

/// Walks `text`'s characters outside string literals (quoted by one of `quotes`, with
/// backslash escapes), calling `on` with each one's byte offset.
fn outside_strings(text: &str, quotes: &[char], mut on: impl FnMut(usize, char) -> bool) {
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        if quotes.contains(&c) {
            quote = Some(c);
            continue;
        }
        if !on(i, c) {
            return;
        }
    }
}

/// How much `text` opens brackets outside strings: negative when it closes more than it
/// opens. `None` when a string is left open.
pub(super) fn depth(text: &str, quotes: &[char]) -> i32 {
    let mut depth = 0;
    outside_strings(text, quotes, |_, c| {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            _ => {}
        }
        true
    });
    depth
}

/// Whether `text` holds `word` outside its strings (`return`, `skip`): a plain substring
/// test on the text with its strings blanked.
pub(super) fn holds_code(text: &str, quotes: &[char], word: &str) -> bool {
    let mut code = String::with_capacity(text.len());
    let mut last = 0;
    outside_strings(text, quotes, |i, c| {
        if i > last {
            code.push(' ');
        }
        code.push(c);
        last = i + c.len_utf8();
        true
    });
    code.contains(word)
}

/// The byte offsets of `needle` in `text` outside strings, at the text's own bracket level.
pub(super) fn at_level(text: &str, quotes: &[char], needle: &str) -> Vec<usize> {
    let mut found = Vec::new();
    let mut depth = 0i32;
    outside_strings(text, quotes, |i, c| {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            _ => {}
        }
        if depth == 0 && text[i..].starts_with(needle) {
            found.push(i);
        }
        true
    });
    found
}

/// The byte offset of the bracket closing the one at `open` in `text`.
pub(super) fn closing(text: &str, open: usize, quotes: &[char]) -> Option<usize> {
    let mut depth = 0i32;
    let mut found = None;
    outside_strings(&text[open..], quotes, |i, c| {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth -= 1;
                if depth == 0 {
                    found = Some(open + i);
                    return false;
                }
            }
            _ => {}
        }
        true
    });
    found
}

/// The arguments of a call's inner text, split at its own commas, trimmed, with their
/// byte ranges in `inner`.
pub(super) fn arguments(inner: &str, quotes: &[char]) -> Vec<(usize, usize)> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    outside_strings(inner, quotes, |i, c| {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push((start, i));
                start = i + 1;
            }
            _ => {}
        }
        true
    });
    parts.push((start, inner.len()));
    parts
        .into_iter()
        .filter_map(|(a, b)| {
            let part = &inner[a..b];
            let lead = part.len() - part.trim_start().len();
            let trimmed = part.trim();
            (!trimmed.is_empty()).then_some((a + lead, a + lead + trimmed.len()))
        })
        .collect()
}

/// The kinds of literal a language writes: its string quote characters, and whether its
/// integers are typed (Go, Rust), so that a changed one must stay in its type's range.
#[derive(Debug, Clone, Copy)]
pub(super) struct Strings(pub(super) &'static [char], pub(super) bool);

/// Another literal of the same kind as `literal`, which no value equal to `literal`
/// equals: an integer one more or one less (typed ones one nearer zero, which every type
/// that holds the original holds too), a plain string with its last letter or digit
/// changed to another (never only its case). `None` for anything else.
pub(super) fn changed(literal: &str, strings: Strings, coin: &mut dyn Coin) -> Option<String> {
    let literal = literal.trim();
    let digits = literal.strip_prefix('-').unwrap_or(literal);
    if !digits.is_empty()
        && digits.len() <= 15
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'))
    {
        let n: i64 = literal.parse().ok()?;
        let up = match (strings.1, n) {
            (_, 0) => true,
            (true, n) if at_a_types_end(n) => n < 0,
            _ => coin.flip(),
        };
        let m = if up { n + 1 } else { n - 1 };
        return Some(m.to_string());
    }
    let quote = literal.chars().next()?;
    if !strings.0.contains(&quote) || literal.len() < 2 || !literal.ends_with(quote) {
        return None;
    }
    let inner = &literal[1..literal.len() - 1];
    if inner.contains(quote) || inner.contains('\\') || inner.contains("${") {
        return None;
    }
    let (at, c) = inner
        .char_indices()
        .rev()
        .find(|(_, c)| c.is_ascii_alphanumeric())?;
    let step = if coin.flip() { 1 } else { 25 };
    let new = match c {
        '0'..='9' => char::from(b'0' + (c as u8 - b'0' + if step == 1 { 1 } else { 9 }) % 10),
        'a'..='z' => char::from(b'a' + (c as u8 - b'a' + step) % 26),
        _ => char::from(b'A' + (c as u8 - b'A' + step) % 26),
    };
    Some(format!(
        "{quote}{}{new}{}{quote}",
        &inner[..at],
        &inner[at + c.len_utf8()..]
    ))
}

/// Whether a typed language's integer `n` is the largest or smallest value of an integer
/// type (`127`, `255`, `-128`, …; a changed literal has at most fifteen digits, so the
/// 64-bit ends never come): a step away from zero would leave that type, so its
/// twin steps toward zero. Any other value steps either way by a coin: every type that
/// holds it holds both neighbours (a rule that always stepped one way would tell the
/// original from its twin wherever both are seen, as beside a copy of a test).
fn at_a_types_end(n: i64) -> bool {
    const ENDS: [i64; 9] = [
        127,
        255,
        32_767,
        65_535,
        2_147_483_647,
        4_294_967_295,
        -128,
        -32_768,
        -2_147_483_648,
    ];
    ENDS.contains(&n)
}

/// How a language writes its structures, for [`changed_value`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Shape {
    /// Lists, tuples and dicts (never sets: a changed element may fall on another).
    Python,
    /// Composite literals: `[]int{1, 2}`, `map[string]int{"a": 1}`, `Point{X: 1}`.
    Go,
    /// `vec![…]`, arrays, tuples, `Some(…)`, `Ok(…)`, `String::from("…")`.
    Rust,
    /// Arrays and object literals.
    Js,
}

/// How far a number must move: by one for an exact comparison or one whose tolerance is
/// below a half, farther than the value's own size for a relative tolerance
/// (`pytest.approx`'s 1e-6 of the value meets two integers one apart past 500,000).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reach {
    Near,
    Far,
}

/// A float literal `-?D+.D+` with a number moved by more than its own size and at least
/// one: the integer part `n` becomes `2n + 1`, the fraction stays. `None` for anything
/// else (exponents, `3.`, `.5`, fifteen digits or more).
fn changed_float(literal: &str) -> Option<String> {
    let (sign, digits) = match literal.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", literal),
    };
    let (whole, fraction) = digits.split_once('.')?;
    let plain = |s: &str| !s.is_empty() && s.len() < 15 && s.bytes().all(|b| b.is_ascii_digit());
    if !plain(whole) || !plain(fraction) || (whole.len() > 1 && whole.starts_with('0')) {
        return None;
    }
    let n: u64 = whole.parse().ok()?;
    Some(format!("{sign}{}.{fraction}", 2 * n + 1))
}

/// An integer literal moved farther than its own size: `n` becomes `2n + 1` (`2n - 1`
/// below zero).
fn changed_far(literal: &str) -> Option<String> {
    let digits = literal.strip_prefix('-').unwrap_or(literal);
    if digits.is_empty()
        || digits.len() > 15
        || !digits.bytes().all(|b| b.is_ascii_digit())
        || (digits.len() > 1 && digits.starts_with('0'))
    {
        return None;
    }
    let n: i64 = literal.parse().ok()?;
    Some((if n < 0 { 2 * n - 1 } else { 2 * n + 1 }).to_string())
}

/// `text` with the byte range `at` replaced by `new`.
fn splice(text: &str, at: (usize, usize), new: &str) -> String {
    format!("{}{new}{}", &text[..at.0], &text[at.1..])
}

/// The elements of a bracketed structure `text[open..close]` (exclusive of the brackets),
/// as ranges of `text`.
pub(super) fn elements(
    text: &str,
    open: usize,
    close: usize,
    quotes: &[char],
) -> Vec<(usize, usize)> {
    let inner = &text[open + 1..close];
    arguments(inner, quotes)
        .into_iter()
        .map(|(a, b)| (open + 1 + a, open + 1 + b))
        .collect()
}

/// The value part of a keyed element `key: value` (a dict's, an object's, a keyed
/// composite literal's): the range after its one top-level `:`.
pub(super) fn keyed_value(
    text: &str,
    at: (usize, usize),
    quotes: &[char],
) -> Option<(usize, usize)> {
    let part = &text[at.0..at.1];
    let colons = at_level(part, quotes, ":");
    let [colon] = colons.as_slice() else {
        return None;
    };
    let value = &part[colon + 1..];
    let lead = value.len() - value.trim_start().len();
    let start = at.0 + colon + 1 + lead;
    (start < at.1).then_some((start, at.1))
}

/// A value equal to none that `value` equals: `value` with one literal changed, found
/// in the last place that decides (a list's or tuple's elements from the last, a dict's
/// or object's last entry, since a repeated key keeps its last value), or `None`. The
/// argument is the one of [`changed`]: for every honest type equality is an equivalence,
/// so what equals the old structure cannot equal the new one, which differs from it.
pub(super) fn changed_value(
    value: &str,
    strings: Strings,
    shape: Shape,
    reach: Reach,
    coin: &mut dyn Coin,
) -> Option<String> {
    changed_in(value.trim(), strings, shape, reach, coin, 0)
}

/// Structures nested deeper than this are left alone.
const MAX_NESTING: usize = 8;

fn changed_in(
    value: &str,
    strings: Strings,
    shape: Shape,
    reach: Reach,
    coin: &mut dyn Coin,
    nesting: usize,
) -> Option<String> {
    if nesting > MAX_NESTING || value.is_empty() {
        return None;
    }
    let scalar = match reach {
        Reach::Near => changed(value, strings, coin),
        Reach::Far => changed_far(value).or_else(|| {
            let quote = value.chars().next()?;
            strings
                .0
                .contains(&quote)
                .then(|| changed(value, strings, coin))
                .flatten()
        }),
    };
    if let Some(new) = scalar {
        return Some(new);
    }
    if let Some(new) = changed_float(value) {
        // Go compares `3.0` with an integer too: a whole float past 63 could leave an
        // `int8`'s range when doubled.
        let small = value
            .trim_start_matches('-')
            .split_once('.')
            .is_some_and(|(w, f)| {
                !f.bytes().all(|b| b == b'0') || w.parse::<u64>().is_ok_and(|n| n < 64)
            });
        if shape == Shape::Go && !small {
            return None;
        }
        return Some(new);
    }
    let quotes = strings.0;
    // The bracket that opens the structure, the kind, and whether its entries are keyed.
    let (open, keyed) = structure(value, shape, quotes)?;
    let close = closing(value, open, quotes)?;
    if close + 1 != value.len() {
        return None;
    }
    let parts = elements(value, open, close, quotes);
    if parts.is_empty() {
        return None;
    }
    let candidates: Vec<(usize, usize)> = match keyed {
        Keys::Never => parts.iter().rev().copied().collect(),
        Keys::Always => vec![keyed_value(value, *parts.last()?, quotes)?],
        Keys::Maybe => {
            let last = *parts.last()?;
            match keyed_value(value, last, quotes) {
                Some(v) => vec![v],
                None if parts
                    .iter()
                    .all(|p| keyed_value(value, *p, quotes).is_none()) =>
                {
                    parts.iter().rev().copied().collect()
                }
                None => return None,
            }
        }
    };
    if shape == Shape::Python && parts.iter().any(|(a, b)| value[*a..*b].starts_with('*')) {
        return None;
    }
    if shape == Shape::Js && parts.iter().any(|(a, b)| value[*a..*b].starts_with("...")) {
        return None;
    }
    candidates.into_iter().find_map(|at| {
        let new = changed_in(&value[at.0..at.1], strings, shape, reach, coin, nesting + 1)?;
        Some(splice(value, at, &new))
    })
}

/// Whether a structure's entries are `key: value`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Keys {
    Never,
    Always,
    /// Go's composite literals: either every entry or none.
    Maybe,
}

/// Where the structure `value` opens its brackets, and how its entries read; `None` for
/// anything else, a set among them.
fn structure(value: &str, shape: Shape, quotes: &[char]) -> Option<(usize, Keys)> {
    let first = value.chars().next()?;
    match shape {
        Shape::Python => match first {
            '[' => Some((0, Keys::Never)),
            // A tuple, or an expression in brackets whose one element is looked into.
            '(' => Some((0, Keys::Never)),
            '{' => {
                let close = closing(value, 0, quotes)?;
                let parts = elements(value, 0, close, quotes);
                let dict = !parts.is_empty()
                    && parts
                        .iter()
                        .all(|p| keyed_value(value, *p, quotes).is_some());
                dict.then_some((0, Keys::Always))
            }
            _ => None,
        },
        Shape::Js => match first {
            '[' => Some((0, Keys::Never)),
            '{' => Some((0, Keys::Always)),
            _ => None,
        },
        Shape::Rust => {
            if first == '[' || first == '(' {
                // `[0; 3]` repeats one value: not a list of elements.
                let close = closing(value, 0, quotes)?;
                let inner = &value[1..close];
                return (!at_level(inner, quotes, ";").is_empty())
                    .then_some(())
                    .map_or(Some((0, Keys::Never)), |()| None);
            }
            ["vec![", "Some(", "Ok(", "Err(", "String::from("]
                .iter()
                .find(|head| value.starts_with(**head))
                .map(|head| (head.len() - 1, Keys::Never))
        }
        Shape::Go => {
            let open = value.find('{')?;
            let head = &value[..open];
            let typed = head
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '[' | ']' | '.' | '*'));
            // A nested element may leave its type out (`[][]int{{1, 2}}`).
            typed.then_some((open, Keys::Maybe))
        }
    }
}

/// unittest's assertions of equality: the plain one and the typed ones (a multiset's,
/// for `assertCountEqual`, differs too when one element changes).
pub(super) const PY_EQUALS: [&str; 7] = [
    "self.assertEqual(",
    "self.assertEquals(",
    "self.assertListEqual(",
    "self.assertTupleEqual(",
    "self.assertDictEqual(",
    "self.assertSequenceEqual(",
    "self.assertCountEqual(",
];

pub(super) const PY: Strings = Strings(&['"', '\''], false);
pub(super) const JS: Strings = Strings(&['"', '\''], false);
pub(super) const GO: Strings = Strings(&['"'], true);
pub(super) const RUST: Strings = Strings(&['"'], true);

/// One test found in a file: its name, and its body's lines (`body.0..body.1`).
pub(super) struct Test {
    pub(super) name: String,
    pub(super) body: (usize, usize),
}

/// The lines of a test's body `body.0..body.1` that start a statement at the body's own
/// level (not inside a block, a bracket left open or a triple-quoted string).
pub(super) fn level_lines(lines: &[String], body: (usize, usize), strings: Strings) -> Vec<usize> {
    let (start, end) = body;
    let Some(level) = lines[start..end]
        .iter()
        .find(|l| !l.trim().is_empty())
        .map(|l| indent(l).to_owned())
    else {
        return Vec::new();
    };
    let mut found = Vec::new();
    let mut open = 0;
    let mut triple = false;
    for (i, line) in lines.iter().enumerate().take(end).skip(start) {
        let quotes3 = line.matches("\"\"\"").count() + line.matches("'''").count();
        let in_string = triple;
        if quotes3 % 2 == 1 {
            triple = !triple;
        }
        if in_string || quotes3 > 0 || line.trim().is_empty() {
            continue;
        }
        let at_level = open == 0 && indent(line) == level;
        open += depth(line, strings.0);
        if at_level {
            found.push(i);
        }
    }
    found
}

/// Whether `expression` is one plain equality: a single `==` (or Go's `!=`, as `op`) at its
/// own level, and nothing that could make it hold otherwise. The two sides' ranges.
pub(super) fn equality(
    expression: &str,
    op: &str,
    strings: Strings,
) -> Option<((usize, usize), (usize, usize))> {
    let banned = [
        " or ", " and ", "not ", " if ", "lambda", " in ", " is ", "<", ">", ":=", "&&", "||", "?",
        " else ",
    ];
    if banned.iter().any(|b| holds_code(expression, strings.0, b)) {
        return None;
    }
    let equal = at_level(expression, strings.0, "==");
    let unequal = at_level(expression, strings.0, "!=");
    // `===`, `!==` and chains are not one plain equality.
    let at = match (op, equal.as_slice(), unequal.as_slice()) {
        ("==", [at], []) | ("!=", [], [at]) => *at,
        _ => return None,
    };
    let trim = |a: usize, b: usize| {
        let part = &expression[a..b];
        let lead = part.len() - part.trim_start().len();
        (a + lead, a + lead + part.trim().len())
    };
    Some((trim(0, at), trim(at + 2, expression.len())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_change_to_another_of_their_kind() {
        let py = Strings(&['"', '\''], false);
        let up = &mut Fixed(true);
        let down = &mut Fixed(false);
        assert_eq!(changed("5", py, up).as_deref(), Some("6"));
        assert_eq!(changed("5", py, down).as_deref(), Some("4"));
        assert_eq!(changed("-3", py, down).as_deref(), Some("-4"));
        assert_eq!(changed("0", py, down).as_deref(), Some("1"));
        assert_eq!(changed("\"abc\"", py, up).as_deref(), Some("\"abd\""));
        assert_eq!(changed("'Zz!'", py, up).as_deref(), Some("'Za!'"));
        assert_eq!(changed("\"a9\"", py, up).as_deref(), Some("\"a0\""));
        assert_eq!(changed("\"a1\"", py, down).as_deref(), Some("\"a0\""));
        // Nothing that could still compare equal, or that is not a plain literal.
        for literal in [
            "2.5", "007", "True", "\"\"", "\"!\"", "\"a\\n\"", "x", "f'a'", "0x10", "5u8",
        ] {
            assert_eq!(changed(literal, py, up), None, "{literal}");
        }
        assert_eq!(changed("'a'", Strings(&['"'], true), up), None);
        // Typed integers at a type's end move toward zero: a `u8`'s 255 never becomes 256.
        let rust = Strings(&['"'], true);
        assert_eq!(changed("255", rust, up).as_deref(), Some("254"));
        assert_eq!(changed("-128", rust, down).as_deref(), Some("-127"));
        assert_eq!(changed("0", rust, down).as_deref(), Some("1"));
        assert_eq!(
            changed("2147483647", rust, up).as_deref(),
            Some("2147483646")
        );
        // Any other moves either way by the coin, as in Python: every type that holds it
        // holds both neighbours, and a pair of the value and its twin says nothing.
        assert_eq!(changed("5", rust, up).as_deref(), Some("6"));
        assert_eq!(changed("5", rust, down).as_deref(), Some("4"));
        assert_eq!(changed("-3", rust, up).as_deref(), Some("-2"));
        assert_eq!(changed("-3", rust, down).as_deref(), Some("-4"));
        assert_eq!(changed("254", rust, up).as_deref(), Some("255"));
    }

    #[test]
    fn brackets_and_arguments_skip_strings() {
        let q = &['"', '\''];
        assert_eq!(depth("f(\"(\", [1", q), 2);
        assert_eq!(depth("x)", q), -1);
        let inner = "add(2, 3), \"a,b\", [1, 2]";
        let args: Vec<&str> = arguments(inner, q)
            .iter()
            .map(|(a, b)| &inner[*a..*b])
            .collect();
        assert_eq!(args, ["add(2, 3)", "\"a,b\"", "[1, 2]"]);
        assert_eq!(closing("expect(f(1)).toBe(2)", 6, q), Some(11));
        assert!(holds_code("x = 1  # return", q, "return"));
        assert!(!holds_code("x = \"return\"", q, "return"));
    }
}
