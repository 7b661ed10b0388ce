//! Python literals, as far as a noxfile's decorators need them: strings, integers, lists
//! and tuples, spreads of module-level constants, and how `repr` writes a value.

use std::collections::HashMap;

use super::{MAX_DEPTH, MAX_SPREAD_DEPTH};

/// A Python literal, as far as a noxfile's decorators need one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Lit {
    Str(String),
    /// A decimal integer, as written (`3`, `-2`).
    Int(String),
    List(Vec<Lit>),
    /// `*NAME` inside a list: the items of a module-level constant, spread.
    Spread(String),
    Bool(bool),
    None,
    /// A name (a module-level constant, perhaps).
    Name(String),
    /// Anything else: a call, an f-string, arithmetic.
    Other,
}

/// Splits `text` at the commas outside brackets and strings.
pub(super) fn split_top(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let mut start = 0;
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
        match c {
            '\'' | '"' => quote = Some(c),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
        .into_iter()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect()
}

pub(super) fn literal(expr: &str) -> Lit {
    literal_at(expr, 0)
}

/// A literal inside `depth` brackets.
fn literal_at(expr: &str, depth: usize) -> Lit {
    let expr = expr.trim();
    match expr {
        "True" => return Lit::Bool(true),
        "False" => return Lit::Bool(false),
        "None" => return Lit::None,
        _ => {}
    }
    if let Some(inner) = expr
        .strip_prefix('[')
        .and_then(|e| e.strip_suffix(']'))
        .or_else(|| expr.strip_prefix('(').and_then(|e| e.strip_suffix(')')))
    {
        if depth >= MAX_DEPTH {
            return Lit::Other;
        }
        return Lit::List(
            split_top(inner)
                .into_iter()
                .map(|item| literal_at(item, depth + 1))
                .collect(),
        );
    }
    if let Some(s) = string_literal(expr) {
        return Lit::Str(s);
    }
    let digits = expr.strip_prefix('-').unwrap_or(expr);
    if !digits.is_empty() && digits.len() <= 40 && digits.bytes().all(|b| b.is_ascii_digit()) {
        // Python prints `007` as an error and `0` as itself; other leading zeros are not
        // integers it writes back the same.
        if digits == "0" || !digits.starts_with('0') {
            return Lit::Int(expr.to_owned());
        }
        return Lit::Other;
    }
    if let Some(name) = expr.strip_prefix('*')
        && depth > 0
        && let Lit::Name(name) = literal_at(name, depth)
    {
        return Lit::Spread(name);
    }
    if !expr.is_empty()
        && expr
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
        && !expr.starts_with(|c: char| c.is_ascii_digit())
    {
        return Lit::Name(expr.to_owned());
    }
    Lit::Other
}

/// Stands for an item a spread cannot be followed into.
static UNREADABLE: Lit = Lit::Other;

/// The items of a list literal with each `*NAME` spread of a module-level list replaced by
/// its items, in order, passed to `each`. Constants are read where they are, never copied.
/// Every item looked at costs one of `visits`, a budget for the whole noxfile, so a list
/// spread many times over cannot make reading it more than linear; `false` when the
/// budget ran out before the end.
pub(super) fn for_each_item<'a>(
    items: &'a [Lit],
    constants: &'a HashMap<String, Lit>,
    depth: usize,
    visits: &mut usize,
    each: &mut dyn FnMut(&'a Lit),
) -> bool {
    for item in items {
        if *visits == 0 {
            return false;
        }
        *visits -= 1;
        match item {
            Lit::Spread(name) => match constants.get(name) {
                Some(Lit::List(inner)) if depth < MAX_SPREAD_DEPTH => {
                    if !for_each_item(inner, constants, depth + 1, visits, each) {
                        return false;
                    }
                }
                _ => each(&UNREADABLE),
            },
            item => each(item),
        }
    }
    true
}

/// How Python's `repr` writes a parameter value, the way nox names a parameter set
/// (`'pip'`, `"it's"`, `3`, `True`); `None` for a value whose repr this does not know
/// (floats, tuples, calls) or holding characters repr would escape.
pub(super) fn python_repr(value: &Lit) -> Option<String> {
    match value {
        Lit::Str(s) => {
            // Letters and ASCII marks only: repr escapes unprintable characters in ways
            // not worth copying, and a name with whitespace cannot be an op anyway.
            if !s
                .chars()
                .all(|c| c.is_alphanumeric() || (c.is_ascii_punctuation() && c != '\\') || c == ' ')
            {
                return None;
            }
            if s.contains('\'') && !s.contains('"') {
                Some(format!("\"{s}\""))
            } else {
                Some(format!("'{}'", s.replace('\'', "\\'")))
            }
        }
        Lit::Int(n) => Some(n.clone()),
        Lit::Bool(true) => Some("True".into()),
        Lit::Bool(false) => Some("False".into()),
        Lit::None => Some("None".into()),
        _ => None,
    }
}

/// The value of one Python string literal (`'x'`, `"x"`, `"""x"""`, `r'x'`, `u"x"`); `None`
/// for an f-string, bytes, or anything that is not exactly one literal.
pub(super) fn string_literal(expr: &str) -> Option<String> {
    let prefix_len = expr
        .find(['\'', '"'])
        .filter(|&p| p <= 2 && expr[..p].chars().all(|c| "rRuU".contains(c)))?;
    let raw = expr[..prefix_len].contains(['r', 'R']);
    let body = &expr[prefix_len..];
    let quote = if body.starts_with("\"\"\"") || body.starts_with("'''") {
        &body[..3]
    } else {
        &body[..1]
    };
    let inner = body.strip_prefix(quote)?.strip_suffix(quote)?;
    // `'a' 'b'` (two literals) would end inside.
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            let next = chars.next()?;
            if raw {
                out.push(c);
                out.push(next);
                continue;
            }
            match next {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                '\n' => {}
                other @ ('\\' | '\'' | '"') => out.push(other),
                other => {
                    out.push('\\');
                    out.push(other);
                }
            }
        } else if quote.len() == 1 && quote.starts_with(c) {
            return None;
        } else {
            out.push(c);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals() {
        assert_eq!(literal(r#"'a\'b'"#), Lit::Str("a'b".into()));
        assert_eq!(literal(r#"r"a\n""#), Lit::Str(r"a\n".into()));
        assert_eq!(literal(r#"f"a{b}""#), Lit::Other);
        assert_eq!(literal(r#""a" "b""#), Lit::Other);
        assert_eq!(
            literal(r#"("3.10", '3.11',)"#),
            Lit::List(vec![Lit::Str("3.10".into()), Lit::Str("3.11".into())])
        );
    }
}
