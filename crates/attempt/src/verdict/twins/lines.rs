//! The small readers the twins share: indentation, brackets outside strings, a call's
//! arguments, and the changed literal.

/// A source of coin flips: which way an integer moves.
pub(crate) trait Coin {
    fn flip(&mut self) -> bool;
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
            (true, n) => n < 0,
            (false, _) => coin.flip(),
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

#[cfg(test)]
mod tests {
    use super::*;

    struct Fixed(bool);
    impl Coin for Fixed {
        fn flip(&mut self) -> bool {
            self.0
        }
    }

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
        // Typed integers move toward zero: a `u8`'s 255 never becomes 256.
        let rust = Strings(&['"'], true);
        assert_eq!(changed("255", rust, up).as_deref(), Some("254"));
        assert_eq!(changed("-128", rust, down).as_deref(), Some("-127"));
        assert_eq!(changed("0", rust, down).as_deref(), Some("1"));
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
