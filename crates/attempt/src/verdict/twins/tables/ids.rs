//! pytest's ids for the rows of a `@pytest.mark.parametrize` table, so that the table's
//! twin runs under its original's ids. pytest names each row's test after the row's values
//! (`test_add[2-3-5]`), and code in the pytest process sees that name (`item.name`,
//! `PYTEST_CURRENT_TEST`): with the expected column changed, a twin would run as
//! `test_add[2-3-6]` and tell the process which pass it is in. The twin passes
//! `ids=[…]` holding exactly the ids pytest gave the original rows instead.
//!
//! pytest 9's rules (`IdMaker`, measured with the real pytest, see the tests): each cell
//! gives a part, the parts are joined with `-`, and ids met more than once get a suffix
//! (`2-3-5_0`, `2-3-5_1`; `a0`, `a1` after a letter). A part is `str(value)` for an
//! integer, a float, a bool or `None` (`1_000` is `1000`, `0x10` is `16`, `1e3` is
//! `1000.0`, `0.00001` is `1e-05`); the string itself, ASCII-escaped, for a string of at
//! most 100 characters; the argument's name and the row's index (`expected8`) for a list,
//! a tuple, a dict or a set. Everything else (a name, a call, bytes, a longer string, whose
//! part depends on pytest's settings or the value's type) leaves the table without a twin.
//!
//! An explicit id goes through the same escaping and the same suffixing as a generated one,
//! so each row's id is written as a Python expression of the raw text (a string cell's own
//! literal, adjacent to the plain parts: `"2-" 'a b' "-5"`), before suffixing: pytest
//! escapes and suffixes it exactly as it did the original's. A project's own
//! `pytest_make_parametrize_id` hook is not read: where one names the rows otherwise, the
//! twin's ids differ from the original's and the judge finds them by their test's name.

use super::super::lines::{PY, at_level, closing, elements};

/// One cell's part of its row's id.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece<'a> {
    /// Text pytest prints as it is: ASCII letters, digits, `-`, `+`, `.` and `_`.
    Plain(String),
    /// A Python string literal, whose value pytest escapes in a generated id as it does in
    /// an explicit one.
    Literal(&'a str),
}

/// The `ids=[…]` value for the table whose rows are the bracketed list at `rows` of
/// `text`, with the parameters `names`: each row's id as an expression of its raw text.
/// `None` where a cell's part cannot be known.
pub(super) fn of_rows(text: &str, rows: (usize, usize), names: &[String]) -> Option<String> {
    let close = closing(text, rows.0, PY.0)?;
    if close + 1 != rows.1 {
        return None;
    }
    let mut ids = Vec::new();
    for (index, (a, b)) in elements(text, rows.0, close, PY.0).into_iter().enumerate() {
        let cells = match param(text, (a, b)) {
            Some(param) => {
                let param = param?;
                // Its own id, where it is a literal; `id=None` generates one.
                let given = param.id.map(|(x, y)| &text[x..y]).filter(|v| *v != "None");
                if let Some(id) = given {
                    matches!(piece(id, "", 0), Some(Piece::Literal(_))).then_some(())?;
                    ids.push(id.to_owned());
                    continue;
                }
                param.values
            }
            None => {
                let row = &text[a..b];
                if !row.starts_with(['(', '[']) || closing(row, 0, PY.0)? + 1 != row.len() {
                    return None;
                }
                elements(text, a, b - 1, PY.0)
            }
        };
        if cells.len() != names.len() {
            return None;
        }
        let pieces = cells
            .iter()
            .zip(names)
            .map(|((x, y), name)| piece(&text[*x..*y], name, index))
            .collect::<Option<Vec<Piece<'_>>>>()?;
        ids.push(expression(&pieces));
    }
    (!ids.is_empty()).then(|| format!("[{}]", ids.join(", ")))
}

/// A `pytest.param(…)` row of a parametrize table: its values' ranges, and its `id=`
/// value's, if given.
pub(super) struct Param {
    pub(super) values: Vec<(usize, usize)>,
    pub(super) id: Option<(usize, usize)>,
}

/// The row at `row` of `text` read as `pytest.param(…)`: `None` for another row,
/// `Some(None)` for one with another keyword (`marks=`) than `id=`.
pub(super) fn param(text: &str, row: (usize, usize)) -> Option<Option<Param>> {
    let head = "pytest.param(";
    if !text[row.0..row.1].starts_with(head) {
        return None;
    }
    let open = row.0 + head.len() - 1;
    if closing(text, open, PY.0).map(|c| c + 1) != Some(row.1) {
        return Some(None);
    }
    let mut param = Param {
        values: Vec::new(),
        id: None,
    };
    for (a, b) in elements(text, open, row.1 - 1, PY.0) {
        let arg = &text[a..b];
        match at_level(arg, PY.0, "=").first() {
            None => param.values.push((a, b)),
            Some(eq) if arg[..*eq].trim() == "id" && param.id.is_none() => {
                let value = &arg[eq + 1..];
                let lead = value.len() - value.trim_start().len();
                param.id = Some((a + eq + 1 + lead, b));
            }
            Some(_) => return Some(None),
        }
    }
    Some(Some(param))
}

/// What the twin writes for the table's `ids=` argument, where the original passes
/// `given` (`None`: none) and pytest would generate `computed` (a list's text): `Ok(None)`
/// where the original's ids hold no generated one (a list of literal ids, one a row), the
/// new value otherwise; `Err(())` for ids the twin cannot keep (a callable, a name).
pub(super) fn kept(given: Option<&str>, computed: &str) -> Result<Option<String>, ()> {
    let Some(given) = given.map(str::trim) else {
        return Ok(Some(computed.to_owned()));
    };
    if given == "None" || given == "[]" || given == "()" {
        return Ok(Some(computed.to_owned()));
    }
    if !given.starts_with(['[', '(']) || closing(given, 0, PY.0) != Some(given.len() - 1) {
        return Err(());
    }
    let close = computed.len() - 1;
    let new: Vec<&str> = elements(computed, 0, close, PY.0)
        .into_iter()
        .map(|(a, b)| &computed[a..b])
        .collect();
    let old: Vec<&str> = elements(given, 0, given.len() - 1, PY.0)
        .into_iter()
        .map(|(a, b)| &given[a..b])
        .collect();
    if old.len() != new.len() {
        return Err(());
    }
    let mut generated = false;
    let mut out = Vec::new();
    for (old, new) in old.iter().zip(&new) {
        if *old == "None" {
            generated = true;
            out.push(*new);
        } else if matches!(piece(old, "", 0), Some(Piece::Literal(_))) || integer(old).is_some() {
            out.push(*old);
        } else {
            return Err(());
        }
    }
    Ok(generated.then(|| format!("[{}]", out.join(", "))))
}

/// A row's id as a Python expression of its raw text: plain parts in one literal, string
/// cells' literals adjacent to them.
fn expression(pieces: &[Piece<'_>]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut plain = String::new();
    for (n, piece) in pieces.iter().enumerate() {
        if n > 0 {
            plain.push('-');
        }
        match piece {
            Piece::Plain(text) => plain.push_str(text),
            Piece::Literal(literal) => {
                if !plain.is_empty() {
                    out.push(format!("\"{plain}\""));
                    plain.clear();
                }
                out.push((*literal).to_owned());
            }
        }
    }
    if !plain.is_empty() || out.is_empty() {
        out.push(format!("\"{plain}\""));
    }
    out.join(" ")
}

/// pytest's part of an id for the cell `cell` of row `row`, parameter `name`.
fn piece<'a>(cell: &'a str, name: &str, row: usize) -> Option<Piece<'a>> {
    let cell = cell.trim();
    if let Some(n) = integer(cell).or_else(|| float(cell)) {
        return Some(Piece::Plain(n));
    }
    if matches!(cell, "None" | "True" | "False") {
        return Some(Piece::Plain(cell.to_owned()));
    }
    if string_literal(cell) {
        return Some(Piece::Literal(cell));
    }
    // A list, a tuple, a dict or a set has no `__name__`: the name and the index, which
    // pytest does not escape (so an ASCII name alone).
    let name_ok = !name.is_empty()
        && name.is_ascii()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    (name_ok && displayed(cell)).then(|| Piece::Plain(format!("{name}{row}")))
}

/// Whether `cell` is a list, dict or set display, or a tuple (`()`, or a top-level
/// comma): never an expression in brackets, nor a generator, which has a `__name__`.
fn displayed(cell: &str) -> bool {
    let Some(first) = cell.chars().next() else {
        return false;
    };
    if !matches!(first, '(' | '[' | '{') || closing(cell, 0, PY.0) != Some(cell.len() - 1) {
        return false;
    }
    let inner = &cell[1..cell.len() - 1];
    first != '(' || inner.trim().is_empty() || !at_level(inner, PY.0, ",").is_empty()
}

/// `str()` of the Python integer literal `cell` (a sign, underscores, `0x`, `0o`, `0b`).
fn integer(cell: &str) -> Option<String> {
    let (negative, body) = match cell.as_bytes().first()? {
        b'-' => (true, &cell[1..]),
        b'+' => (false, &cell[1..]),
        _ => (false, cell),
    };
    let lower = body.to_ascii_lowercase();
    let radix = [("0x", 16), ("0o", 8), ("0b", 2)]
        .iter()
        .find(|(p, _)| lower.starts_with(p));
    let digits: String = match radix {
        Some((p, _)) => lower[p.len()..].replace('_', ""),
        None => body.replace('_', ""),
    };
    if digits.is_empty() || digits.len() > 100 || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let value = match radix {
        Some((_, r)) => u128::from_str_radix(&digits, *r).ok()?.to_string(),
        None => {
            if !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            let trimmed = digits.trim_start_matches('0');
            // Python writes no leading zero but in zero itself (`00`).
            if trimmed.len() != digits.len() && !trimmed.is_empty() {
                return None;
            }
            if trimmed.is_empty() { "0" } else { trimmed }.to_owned()
        }
    };
    Some(if negative && value != "0" {
        format!("-{value}")
    } else {
        value
    })
}

/// `str()` of the Python float literal `cell` (`1.5`, `-2.`, `.5`, `1e3`), of 15
/// significant digits at most (each then is its own shortest form): Python's `repr`, fixed
/// from 1e-4 below 1e16 (`1000.0`), `1e-05` and `1e+16` beyond.
fn float(cell: &str) -> Option<String> {
    let body = cell.strip_prefix(['-', '+']).unwrap_or(cell);
    let body = body.replace('_', "").to_ascii_lowercase();
    let (mantissa, exponent) = body
        .split_once('e')
        .map_or((body.as_str(), None), |(m, e)| (m, Some(e)));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let exponent_ok = exponent.map_or(mantissa.contains('.'), |e| {
        let d = e.strip_prefix(['-', '+']).unwrap_or(e);
        !d.is_empty() && d.len() < 4 && digits(d)
    });
    let significant = format!("{whole}{fraction}");
    if !digits(whole)
        || !digits(fraction)
        || significant.is_empty()
        || !exponent_ok
        || significant.trim_start_matches('0').len() > 15
    {
        return None;
    }
    let value: f64 = cell.replace('_', "").parse().ok()?;
    if !value.is_finite() || (value != 0.0 && value.abs() < 1e-300) {
        return None;
    }
    Some(python_repr(value))
}

/// Python's `repr` of a finite float, from Rust's shortest digits.
fn python_repr(value: f64) -> String {
    let sci = format!("{value:e}");
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    if !(-4..16).contains(&exponent) {
        let (first, rest) = digits.split_at(1);
        let dot = if rest.is_empty() { "" } else { "." };
        let e_sign = if exponent < 0 { '-' } else { '+' };
        return format!("{sign}{first}{dot}{rest}e{e_sign}{:02}", exponent.abs());
    }
    let point = exponent + 1;
    if point <= 0 {
        let zeros = "0".repeat(usize::try_from(-point).unwrap_or(0));
        return format!("{sign}0.{zeros}{digits}");
    }
    let point = usize::try_from(point).unwrap_or(0);
    if digits.len() <= point {
        let zeros = "0".repeat(point - digits.len());
        format!("{sign}{digits}{zeros}.0")
    } else {
        format!("{sign}{}.{}", &digits[..point], &digits[point..])
    }
}

/// Whether `cell` is one Python string literal on one line (prefixes `r` and `u`, never
/// bytes or f-strings) of at most 100 characters, whose value (no longer than its text)
/// pytest then writes escaped whatever its settings for longer strings.
fn string_literal(cell: &str) -> bool {
    if cell.contains('\n') {
        return false;
    }
    let body = cell.strip_prefix(['r', 'R', 'u', 'U']).unwrap_or(cell);
    let Some(quote) = body.chars().next().filter(|q| *q == '"' || *q == '\'') else {
        return false;
    };
    let triple = quote.to_string().repeat(3);
    let delimiter = if body.len() >= 6 && body.starts_with(&triple) {
        triple
    } else {
        quote.to_string()
    };
    let inner_start = delimiter.len();
    let mut chars = body[inner_start..].char_indices();
    while let Some((i, c)) = chars.next() {
        let at = inner_start + i;
        if c == '\\' {
            chars.next();
        } else if body[at..].starts_with(&delimiter) {
            let end = at + delimiter.len();
            return end == body.len() && body[inner_start..at].chars().count() <= 100;
        }
    }
    false
}

/// The arguments of the call text `inner` given by keyword, by name: their value ranges.
pub(super) fn keyword(inner: &str, args: &[(usize, usize)], name: &str) -> Option<(usize, usize)> {
    args.iter().find_map(|(a, b)| {
        let arg = &inner[*a..*b];
        let eq = *at_level(arg, PY.0, "=").first()?;
        (arg[..eq].trim() == name).then(|| {
            let value = &arg[eq + 1..];
            let lead = value.len() - value.trim_start().len();
            (a + eq + 1 + lead, *b)
        })
    })
}

#[cfg(test)]
mod tests;
