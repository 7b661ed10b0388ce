//! POSIX shell quoting.

/// `s` as one shell word: unchanged when it holds only characters no shell treats
/// specially, else single-quoted.
pub fn quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.bytes().all(|b| {
            b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'/' | b':' | b'@' | b'%' | b'+' | b',' | b'=')
        })
        // A leading `=` or `~` may be expanded by some shells; a leading `-` is still one
        // word, so it stays plain.
        && !s.starts_with(['=', '~']);
    if plain { s.to_owned() } else { single_quote(s) }
}

/// `s` in single quotes, each `'` written as `'\''`.
pub fn single_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
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
    }
}
