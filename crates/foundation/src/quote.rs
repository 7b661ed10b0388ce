//! POSIX shell quoting.

/// `s` as one shell word: unchanged when it holds only characters no shell treats
/// specially, else single-quoted.
pub fn quote(s: &str) -> String {
    quote_cow(s).into_owned()
}

/// [`quote`] without a copy when `s` needs no quotes.
pub fn quote_cow(s: &str) -> std::borrow::Cow<'_, str> {
    let plain = !s.is_empty()
        && s.bytes().all(|b| {
            b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'/' | b':' | b'@' | b'%' | b'+' | b',' | b'=')
        })
        // A leading `=` or `~` may be expanded by some shells; a leading `-` is still one
        // word, so it stays plain.
        && !s.starts_with(['=', '~']);
    if plain {
        s.into()
    } else {
        single_quote(s).into()
    }
}

/// `s` in single quotes, each `'` written as `'\''`.
pub fn single_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    push_single_quoted(&mut out, s);
    out
}

/// [`single_quote`] of `s`, added to `out`.
pub fn push_single_quoted(out: &mut String, s: &str) {
    out.push('\'');
    for (i, part) in s.split('\'').enumerate() {
        if i > 0 {
            out.push_str(r"'\''");
        }
        out.push_str(part);
    }
    out.push('\'');
}

/// The words of `command` when it is nothing but plain words (the characters [`quote`]
/// leaves bare), single-quoted strings and backslash escapes: no expansion, globbing,
/// redirection, operator or comment that a shell would act on. `None` means only a shell
/// can read it. Every command line detection builds splits this way.
pub fn split_words(command: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '\'' => break,
                        c => word.push(c),
                    }
                }
            }
            // An escaped character stands for itself (`'\\''` is how a quote is written).
            '\\' => match chars.next()? {
                '\n' => return None,
                c => {
                    in_word = true;
                    word.push(c);
                }
            },
            c if c.is_ascii_alphanumeric() || "-_./:,@%+=".contains(c) => {
                in_word = true;
                word.push(c);
            }
            _ => return None,
        }
    }
    if in_word {
        words.push(word);
    }
    Some(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        #[track_caller]
        fn case(input: &str, want: &str) {
            assert_eq!(quote(input), want);
        }
        case("build", "build");
        case("docs.html", "docs.html");
        case("bin/app", "bin/app");
        case("lib:fmt", "lib:fmt");
        case("", "''");
        case("a b", "'a b'");
        case("it's", r"'it'\''s'");
        case("$(rm -rf /)", "'$(rm -rf /)'");
        case("`x`", "'`x`'");
        case("a;b", "'a;b'");
        case("~home", "'~home'");
        assert_eq!(single_quote("test"), "'test'");
        assert_eq!(single_quote("''a'"), r"''\'''\''a'\'''");
        let mut out = "npm run ".to_owned();
        push_single_quoted(&mut out, "it's");
        assert_eq!(out, r"npm run 'it'\''s'");
    }

    fn argv(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn splitting_detection_commands() {
        #[track_caller]
        fn case(command: &str, want: Option<&[&str]>) {
            assert_eq!(split_words(command), want.map(argv));
        }
        case("npm run 'test'", Some(&["npm", "run", "test"]));
        case("npm run 'it'\\''s'", Some(&["npm", "run", "it's"]));
        case(
            "cargo run --package 'a b' --bin 'x'",
            Some(&["cargo", "run", "--package", "a b", "--bin", "x"]),
        );
        case("just sub::hello", Some(&["just", "sub::hello"]));
        case("make ''", Some(&["make", ""]));
        case("echo $(rm)", None);
        case("ls *.rs", None);
        case("ls ~/x", None);
        case("a && b", None);
        case("echo x # note", None);
        case("echo a\\ b", Some(&["echo", "a b"]));
        case("a 'unterminated", None);
    }
}

/// `text` safe to print on a terminal: every control character but newline and tab (ESC,
/// BEL, a carriage return, DEL, the C1 controls) written as `\u{1b}`, so a name a
/// repository or a bundle chose cannot move the cursor, recolour, retitle or ring.
pub fn escape_controls(text: &str) -> std::borrow::Cow<'_, str> {
    let unsafe_char = |c: char| c.is_control() && c != '\n' && c != '\t';
    if !text.chars().any(unsafe_char) {
        return text.into();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if unsafe_char(c) {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out.into()
}

#[cfg(test)]
mod escape_tests {
    use super::escape_controls;

    #[test]
    fn control_bytes_are_written_out() {
        assert_eq!(
            escape_controls("task id `T\u{1b}]0;x\u{7}`\n\tok"),
            "task id `T\\u{1b}]0;x\\u{7}`\n\tok"
        );
        assert_eq!(
            escape_controls("a\rb\u{7f}\u{9b}"),
            "a\\u{d}b\\u{7f}\\u{9b}"
        );
        assert!(matches!(
            escape_controls("plain é"),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
