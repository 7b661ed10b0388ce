//! A twin's failure messages follow its values. Go's own idiom spells the expected value in
//! the message of the block that fails the test (`t.Errorf("Add(10, 20) = %d; want 30",
//! got)`), and assertions take messages that do the same (`assert x == 30, "should be
//! 30"`, `assert_eq!(x, 30, "want 30")`). A twin that changed the comparison and kept the
//! message would disagree with itself, and code reading the tests at run time would tell
//! the twin from the original by that alone (the red team's `halves-message`). So where a
//! twin changes a number, the same number written as a word inside a string on that line,
//! or in the block below it, changes with it. Messages decide nothing: a test passes or
//! fails the same with either.

use super::lines::indent;

/// `twin` (the twin of `text`, line for line) with each changed number also changed where
/// a string literal of its line, or of the lines indented under it, spells it as a word.
pub(super) fn follow(text: &str, twin: &str) -> String {
    let own: Vec<&str> = text.split('\n').collect();
    let mut new: Vec<String> = twin.split('\n').map(str::to_owned).collect();
    if own.len() != new.len() {
        return twin.to_owned();
    }
    for i in 0..own.len() {
        if own[i] == new[i] {
            continue;
        }
        let Some((at, old, changed)) = number_changed(own[i], &new[i]) else {
            continue;
        };
        // The rest of the line past the value (a message after the comparison).
        let tail = respelled(&new[i][at + changed.len()..], &old, &changed);
        new[i] = format!("{}{tail}", &new[i][..at + changed.len()]);
        let level = indent(own[i]).len();
        for j in i + 1..own.len() {
            let line = own[j];
            if !line.trim().is_empty() && indent(line).len() <= level {
                break;
            }
            if new[j] == line {
                new[j] = respelled(line, &old, &changed);
            }
        }
    }
    new.join("\n")
}

/// Where `new` differs from `old` by one number (`30` to `31`, `-3` to `-2`, `1.75` to
/// `3.75`): its offset in `new`, the old number and the new.
fn number_changed(old: &str, new: &str) -> Option<(usize, String, String)> {
    let start = old
        .bytes()
        .zip(new.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    let end = old
        .bytes()
        .rev()
        .zip(new.bytes().rev())
        .take_while(|(a, b)| a == b)
        .count();
    // Widen to the whole number on both sides.
    let numeric = |c: u8| c.is_ascii_digit() || c == b'.' || c == b'-';
    let mut from = start.min(old.len()).min(new.len());
    while from > 0 && numeric(old.as_bytes()[from - 1]) {
        from -= 1;
    }
    let old_to = (old.len() - end.min(old.len() - from)).max(from);
    let new_to = (new.len() - end.min(new.len() - from)).max(from);
    let grow = |s: &str, mut to: usize| {
        while to < s.len() && numeric(s.as_bytes()[to]) {
            to += 1;
        }
        to
    };
    let (old_to, new_to) = (grow(old, old_to), grow(new, new_to));
    let (a, b) = (&old[from..old_to], &new[from..new_to]);
    let number = |s: &str| {
        let digits = s.strip_prefix('-').unwrap_or(s);
        !digits.is_empty()
            && digits.bytes().all(|c| c.is_ascii_digit() || c == b'.')
            && digits.bytes().next().is_some_and(|c| c.is_ascii_digit())
    };
    (number(a) && number(b) && a != b && old[old_to..] == new[new_to..])
        .then(|| (from, a.to_owned(), b.to_owned()))
}

/// `line` with `old` spelled as a word inside its string literals replaced by `new`.
fn respelled(line: &str, old: &str, new: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let mut rest = line;
    while let Some(c) = rest.chars().next() {
        match quote {
            Some(q) if !escaped && c == q => quote = None,
            Some(_) if !escaped && c == '\\' => {
                escaped = true;
                out.push(c);
                rest = &rest[1..];
                continue;
            }
            Some(_) if rest.starts_with(old) && !escaped => {
                let before = out.chars().next_back();
                let after = rest[old.len()..].chars().next();
                let part = |c: Option<char>| {
                    c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_')
                };
                // A word of its own: not inside a longer number or name, nor after a sign
                // the old value did not have.
                if !part(before) && !part(after) && before != Some('-') {
                    out.push_str(new);
                    rest = &rest[old.len()..];
                    continue;
                }
            }
            None if matches!(c, '"' | '\'' | '`') => quote = Some(c),
            _ => {}
        }
        escaped = false;
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_go_message_spelling_the_expected_value_follows_the_twin() {
        let text = "func TestBig(t *testing.T) {\n\tif got := Add(10, 20); got != 30 {\n\t\tt.Errorf(\"Add(10, 20) = %d; want 30\", got)\n\t}\n\tif Sub(1, 1) != 0 {\n\t\tt.Error(\"want 30 too\")\n\t}\n}\n";
        let twin = text.replacen("got != 30", "got != 31", 1);
        let out = follow(text, &twin);
        assert!(
            out.contains("t.Errorf(\"Add(10, 20) = %d; want 31\", got)"),
            "{out}"
        );
        // Another block's message, and the call's own arguments, stay.
        assert!(out.contains("t.Error(\"want 30 too\")"), "{out}");
        assert!(out.contains("Add(10, 20); got != 31"), "{out}");
    }

    #[test]
    fn a_message_on_the_assertions_line_follows_it() {
        let text = "    assert add(10, 20) == 30, \"10 + 20 should be 30, not 300 or 3.0\"\n";
        let twin = text.replacen("== 30,", "== 29,", 1);
        assert_eq!(
            follow(text, &twin),
            "    assert add(10, 20) == 29, \"10 + 20 should be 29, not 300 or 3.0\"\n"
        );
        let rust = "    assert_eq!(add(10, 20), 30, \"want 30\");";
        let twin = rust.replacen("20), 30,", "20), 31,", 1);
        assert_eq!(
            follow(rust, &twin),
            "    assert_eq!(add(10, 20), 31, \"want 31\");"
        );
        let negative = "\tif got != -3 {\n\t\tt.Fatalf(\"want -3, got %d\", got)\n\t}";
        let twin = negative.replacen("!= -3", "!= -2", 1);
        assert!(
            follow(negative, &twin).contains("want -2, got"),
            "{}",
            follow(negative, &twin)
        );
    }

    #[test]
    fn nothing_else_changes() {
        // A string's twin, and numbers outside strings, are left as they are.
        let text = "    self.assertEqual(name(), \"ab\", \"want ab\")\n";
        let twin = text.replacen("\"ab\",", "\"ac\",", 1);
        assert_eq!(follow(text, &twin), twin);
        let text = "\tif got != 30 {\n\t\tt.Errorf(\"%d\", 30+got)\n\t}";
        let twin = text.replacen("!= 30", "!= 31", 1);
        assert_eq!(follow(text, &twin), twin);
    }
}
