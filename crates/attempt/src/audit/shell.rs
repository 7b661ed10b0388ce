//! Shell text as the audit reads it: the words of each line as the shell splits them
//! (comments left out, quotes taken away so that `"te""sts"` is `tests`, simple variables
//! put in), which of them start a command, and what a script hands to an interpreter. A
//! script the product runs, or a check runs as its shell, is read through these words.

use std::collections::BTreeMap;

/// Characters that end a word and may start the next command.
const OPERATORS: &str = ";&|()<>`";

/// Words after which the next word starts a command (a keyword, a group's `{`, or a command
/// that runs the rest of its line: `env`, `exec`, `xargs`).
const COMMAND_PREFIXES: &[&str] = &[
    "!", "busybox", "{", "command", "do", "elif", "else", "env", "exec", "if", "nice", "nohup",
    "sudo", "then", "time", "timeout", "until", "while", "xargs",
];

/// The longest value of a variable put into the words, in bytes.
const MAX_VALUE: usize = 4096;

/// The longest word variables are put into, in bytes: past it the rest stays as written.
const MAX_EXPANDED: usize = 1 << 16;

/// One word of a shell line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Word {
    /// The word with its quotes taken away and its simple variables put in.
    pub(super) text: String,
    /// Whether the word names the command its words run.
    pub(super) command: bool,
}

/// The words of each line of `text`, 1-based lines in order: `#` comments left out, quotes
/// taken away, `$NAME` and `${NAME}` replaced by the first value a `NAME=value` word of
/// the script sets.
pub(super) fn lines(text: &str) -> Vec<(usize, Vec<Word>)> {
    let raw: Vec<(usize, Vec<Word>)> = text
        .lines()
        .enumerate()
        .map(|(k, line)| (k + 1, split(line)))
        .collect();
    let mut values: BTreeMap<String, String> = BTreeMap::new();
    for (_, words) in &raw {
        for word in words.iter().filter(|w| w.command) {
            if let Some((name, value)) = assignment(&word.text)
                && value.len() <= MAX_VALUE
            {
                values
                    .entry(name.to_owned())
                    .or_insert_with(|| value.to_owned());
            }
        }
    }
    raw.into_iter()
        .map(|(n, words)| {
            let words = words
                .into_iter()
                .map(|w| Word {
                    text: expand(&w.text, &values),
                    command: w.command,
                })
                .collect();
            (n, words)
        })
        .collect()
}

/// `NAME` and `value` of a `NAME=value` word.
fn assignment(word: &str) -> Option<(&str, &str)> {
    let (name, value) = word.split_once('=')?;
    let first = name.chars().next()?;
    let is_name = (first.is_ascii_alphabetic() || first == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    is_name.then_some((name, value))
}

/// `word` with `$NAME` and `${NAME}` replaced by their `values`; unknown ones stay.
fn expand(word: &str, values: &BTreeMap<String, String>) -> String {
    if !word.contains('$') {
        return word.to_owned();
    }
    let mut out = String::new();
    let mut rest = word;
    while let Some(at) = rest.find('$') {
        if out.len() > MAX_EXPANDED {
            break;
        }
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (name, used) = match after.strip_prefix('{') {
            Some(inner) => match inner.find('}') {
                Some(end) => (&inner[..end], end + 2),
                None => ("", 0),
            },
            None => {
                let end = after
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(after.len());
                (&after[..end], end)
            }
        };
        match values.get(name) {
            Some(value) if !name.is_empty() => out.push_str(value),
            _ => out.push_str(&rest[at..at + 1 + used]),
        }
        rest = &after[used..];
    }
    out.push_str(rest);
    out
}

/// The words of one line, with the commands among them.
fn split(line: &str) -> Vec<Word> {
    let mut words = Vec::new();
    let mut current = String::new();
    // Whether the next word starts a command, and whether the current word was quoted.
    let (mut command, mut quoted) = (true, false);
    let mut chars = line.chars().peekable();
    let end =
        |current: &mut String, quoted: &mut bool, command: &mut bool, words: &mut Vec<Word>| {
            if current.is_empty() && !*quoted {
                return;
            }
            let text = std::mem::take(current);
            let starts = *command;
            // A variable set before the command leaves the next word the command.
            *command = (starts && assignment(&text).is_some())
                || COMMAND_PREFIXES.contains(&text.rsplit('/').next().unwrap_or_default());
            *command &= !*quoted || starts && assignment(&text).is_some();
            words.push(Word {
                text,
                command: starts,
            });
            *quoted = false;
        };
    while let Some(c) = chars.next() {
        match c {
            '#' if current.is_empty() && !quoted => break,
            '\\' => current.extend(chars.next()),
            // `${NAME}` is one piece of a word, its braces no group.
            '$' if chars.peek() == Some(&'{') => {
                current.push(c);
                for d in chars.by_ref() {
                    current.push(d);
                    if d == '}' {
                        break;
                    }
                }
            }
            '\'' | '"' => {
                quoted = true;
                while let Some(d) = chars.next() {
                    if d == c {
                        break;
                    }
                    if d == '\\' && c == '"' {
                        current.extend(chars.next());
                    } else {
                        current.push(d);
                    }
                }
            }
            '$' if chars.peek() == Some(&'(') => {
                chars.next();
                end(&mut current, &mut quoted, &mut command, &mut words);
                command = true;
            }
            c if c.is_whitespace() => end(&mut current, &mut quoted, &mut command, &mut words),
            c if OPERATORS.contains(c) => {
                end(&mut current, &mut quoted, &mut command, &mut words);
                command = !"<>".contains(c);
            }
            c => current.push(c),
        }
    }
    end(&mut current, &mut quoted, &mut command, &mut words);
    words
}

/// The programs that run a JavaScript file named after them (names of programs, not of
/// the task runners some of them also are).
const JS_INTERPRETERS: &[&str] = &["node", "nodejs", "bun", "deno", "tsx", "ts-node"];

/// The interpreter a command's name runs the file after it with: `sh`, `bash`,
/// `python3.12`, `node`, by the name's last part (`/usr/bin/env` is no interpreter; the
/// word after it is the command).
pub(super) fn interpreter(word: &str) -> Option<Reader> {
    let name = word.rsplit('/').next().unwrap_or(word);
    let version = |n: &str, stem: &str| {
        n.strip_prefix(stem)
            .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'))
    };
    match name {
        "sh" | "bash" | "dash" | "zsh" | "ksh" | "mksh" | "ash" | "." | "source" => {
            Some(Reader::Shell)
        }
        n if JS_INTERPRETERS.contains(&n) => Some(Reader::Js),
        n if version(n, "python") || version(n, "pypy") => Some(Reader::Python),
        _ => None,
    }
}

/// How a file that is run is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reader {
    /// As a shell script.
    Shell,
    /// As Python.
    Python,
    /// As JavaScript.
    Js,
    /// By its own first line (`#!/usr/bin/env python3`), a shell script without one.
    Itself,
}

/// The reader of a file run by its own first line: the interpreter its `#!` names, and a
/// shell for any other (the shell runs a file with no `#!` itself).
pub(crate) fn by_first_line(text: &str) -> Reader {
    let first = text.lines().next().unwrap_or_default();
    let Some(line) = first.strip_prefix("#!") else {
        return Reader::Shell;
    };
    let words: Vec<&str> = line.split_whitespace().collect();
    let found = words.iter().find_map(|w| interpreter(w));
    match found {
        Some(Reader::Shell) | None => Reader::Shell,
        Some(reader) => reader,
    }
}

/// The files the words of a shell script run, each with its line and reader: the word
/// after an interpreter (`sh tools/x.sh`, `python3 gen.txt`, `. ./env.sh`), and a command
/// named by a path (`./tools/x`, `tools/x.sh`), read by its own first line.
pub(super) fn runs(text: &str) -> Vec<(usize, String, Reader)> {
    let mut found = Vec::new();
    for ((n, words), raw) in lines(text).into_iter().zip(text.lines()) {
        found.extend(substituted(raw, &words).map(|(file, r)| (n, file.to_owned(), r)));
        let mut reader: Option<Reader> = None;
        for word in &words {
            let text = &word.text;
            if word.command {
                reader = interpreter(text);
                if reader.is_none() && text.contains('/') {
                    found.push((n, text.clone(), Reader::Itself));
                }
            } else if let Some(r) = reader
                && !text.starts_with('-')
                && !placeholder(text)
            {
                // The interpreter's name again is its `argv[0]` (`execv("/bin/sh", ["sh",
                // …])`), never a script of that name.
                match interpreter(text).filter(|_| !text.contains('/')) {
                    Some(again) => reader = Some(again),
                    None => {
                        found.push((n, text.clone(), r));
                        reader = None;
                    }
                }
            }
        }
    }
    found
}

/// How a command substitution reads a file's text into the line: `$(cat F)`, `` `cat F` ``,
/// bash's `$(<F)` and `<(cat F)`.
const SUBSTITUTIONS: &[&str] = &["$(cat ", "$(<", "<(cat ", "`cat "];

/// The files whose text a line hands to an interpreter (`sh -c "$(cat F)"`, `python3 -c
/// "$(cat F)"`) or to `eval` (`eval "$(cat F)"`), with the interpreter's reader: that text
/// runs as code as surely as `sh F` would run it. The `raw` line, whose `words` are read.
fn substituted<'r>(raw: &'r str, words: &[Word]) -> impl Iterator<Item = (&'r str, Reader)> {
    let commands = words.iter().filter(|w| w.command);
    let reader = commands
        .clone()
        .find_map(|w| interpreter(&w.text))
        .or_else(|| {
            commands
                .clone()
                .any(|w| w.text == "eval")
                .then_some(Reader::Shell)
        });
    let files = SUBSTITUTIONS.iter().flat_map(move |s| {
        raw.match_indices(s).map(move |(at, _)| {
            let rest = raw[at + s.len()..].trim_start();
            let end = rest
                .find(|c: char| c.is_whitespace() || ")`\"'".contains(c))
                .unwrap_or(rest.len());
            &rest[..end]
        })
    });
    files
        .filter(|f| !f.is_empty())
        .filter_map(move |f| reader.map(|r| (f, r)))
}

/// Commands that read the contents of every file under the folders they are given, or
/// under the working folder when given none.
const RECURSIVE_READERS: &[&str] = &["ack", "ag", "rg"];

/// Commands that read every file under a folder when told to (`grep -r`).
const RECURSIVE_WHEN_TOLD: &[&str] = &["egrep", "fgrep", "grep"];

/// The words that name the whole tree the checks run in: the working folder and what it
/// holds.
const WHOLE_TREE: &[&str] = &[".", "./", "./*", "*", "..", "../"];

/// The command of `line` that reads every file of the tree, the tests' among them, if one
/// does: `grep -r PATTERN .`, `rg PATTERN`, `git grep PATTERN`, `find . -exec cat {} +`,
/// `find . | xargs grep PATTERN`.
pub(super) fn reads_the_tree(line: &[Word]) -> Option<String> {
    let starts: Vec<usize> = (0..line.len()).filter(|k| line[*k].command).collect();
    for (i, &start) in starts.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(line.len());
        let name = line[start].text.rsplit('/').next().unwrap_or_default();
        let mut args: Vec<&str> = line[start + 1..end]
            .iter()
            .map(|w| w.text.as_str())
            .collect();
        let git_grep = name == "git" && args.first() == Some(&"grep");
        if git_grep {
            args.remove(0);
        }
        let told = |a: &&str| {
            matches!(*a, "--recursive" | "--dereference-recursive")
                || (a.starts_with('-') && !a.starts_with("--") && a.contains(['r', 'R']))
        };
        let recursive = git_grep
            || RECURSIVE_READERS.contains(&name)
            || (RECURSIVE_WHEN_TOLD.contains(&name) && args.iter().any(told));
        let operands: Vec<&str> = args
            .iter()
            .copied()
            .filter(|a| !a.starts_with('-'))
            .collect();
        // The first operand is the pattern; the rest are where to look, the working folder
        // when none is given.
        let whole = operands.len() <= 1 || operands[1..].iter().any(|o| WHOLE_TREE.contains(o));
        if recursive && whole {
            return Some(if git_grep {
                "git grep".to_owned()
            } else {
                name.to_owned()
            });
        }
        let xargs = line.iter().any(|w| w.command && w.text == "xargs");
        let find_reads = name == "find"
            && args
                .first()
                .is_none_or(|a| a.starts_with('-') || WHOLE_TREE.contains(a))
            && (xargs || args.iter().any(|a| a.starts_with("-exec")));
        if find_reads {
            return Some("find".to_owned());
        }
    }
    None
}

/// Whether the glob `pattern` (`*`, `?`, `[…]`) matches all of `name`.
pub(super) fn glob_matches(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    // The classic two-pointer match, `[…]` read as any one character.
    let (mut i, mut j) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while j < n.len() {
        let class_end = (p.get(i) == Some(&'['))
            .then(|| p[i..].iter().position(|c| *c == ']'))
            .flatten();
        if p.get(i) == Some(&'*') {
            star = Some((i, j));
            i += 1;
        } else if let Some(end) = class_end {
            i += end + 1;
            j += 1;
        } else if p.get(i).is_some_and(|c| *c == '?' || *c == n[j]) {
            i += 1;
            j += 1;
        } else if let Some((si, sj)) = star {
            i = si + 1;
            j = sj + 1;
            star = Some((si, sj + 1));
        } else {
            return false;
        }
    }
    p[i..].iter().all(|c| *c == '*')
}

/// Whether `word` stands for a value filled in later, which leaves the file to run after
/// it: a variable the script never sets (`$1`, `${SCRIPT}`), a command's output, a
/// format's slot (`%s`, `{}`, `{script}`), as a command string built in another language
/// spells it.
fn placeholder(word: &str) -> bool {
    let variable = word.strip_prefix('$').is_some_and(|v| {
        let v = v
            .strip_prefix('{')
            .and_then(|v| v.strip_suffix('}'))
            .unwrap_or(v);
        v.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_@*#".contains(c))
    });
    let slot = word.starts_with('{') && word.ends_with('}') && !word[1..].contains('{');
    // A command's output (`"$(cat F)"`), read by [`substituted`].
    let output = word.starts_with("$(") || word.starts_with('`');
    variable || output || (word.starts_with('%') && word.len() <= 3) || slot
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words of `line`, a command's marked with `^`.
    fn words(line: &str) -> Vec<String> {
        let (_, words) = lines(line).into_iter().next().unwrap_or_default();
        words
            .into_iter()
            .map(|w| format!("{}{}", if w.command { "^" } else { "" }, w.text))
            .collect()
    }

    #[test]
    fn words_as_the_shell_splits_them() {
        assert_eq!(
            words("grep -q \"add(2, 3) == 5\" tests/test_add.py # a comment"),
            ["^grep", "-q", "add(2, 3) == 5", "tests/test_add.py"]
        );
        assert_eq!(
            words("cat \"te\"'sts'/x.py|wc -l"),
            ["^cat", "tests/x.py", "^wc", "-l"]
        );
        assert_eq!(
            words("if [ -f x ]; then LC_ALL=C sort y && echo '#' done; fi"),
            [
                "^if",
                "^[",
                "-f",
                "x",
                "]",
                "^then",
                "^LC_ALL=C",
                "^sort",
                "y",
                "^echo",
                "#",
                "done",
                "^fi"
            ]
        );
        assert_eq!(words("x=$(ls tests)"), ["^x=", "^ls", "tests"]);
        assert_eq!(
            words("/usr/bin/env bash -c 'cat a'"),
            ["^/usr/bin/env", "^bash", "-c", "cat a"]
        );
    }

    #[test]
    fn simple_variables_are_put_in() {
        let text = "d=tests\nf=\"${d}/test_add.py\"\ncat $d/x \"$f\" $unknown ${\n";
        let last = lines(text).pop().map(|(_, w)| w).unwrap_or_default();
        let texts: Vec<&str> = last.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(
            texts,
            ["cat", "tests/x", "${d}/test_add.py", "$unknown", "${"]
        );
    }

    #[test]
    fn what_a_script_runs() {
        let text = "#!/bin/sh\nsh tools/probe.sh\n./bin/helper --fast\n. ./env.sh\npython3 -u gen.txt\ngit status\necho tools/x.sh\nsh %s {} $1 a.sh\nsh -c \"$(cat b.txt)\"\neval `cat c.txt`\necho \"$(cat VERSION)\"\nsh < d.txt\n";
        assert_eq!(
            runs(text),
            [
                (2, "tools/probe.sh".to_owned(), Reader::Shell),
                (3, "./bin/helper".to_owned(), Reader::Itself),
                (4, "./env.sh".to_owned(), Reader::Shell),
                (5, "gen.txt".to_owned(), Reader::Python),
                (8, "a.sh".to_owned(), Reader::Shell),
                (9, "b.txt".to_owned(), Reader::Shell),
                (10, "c.txt".to_owned(), Reader::Shell),
                (12, "d.txt".to_owned(), Reader::Shell),
            ]
        );
        assert_eq!(by_first_line("#!/usr/bin/env python3\n"), Reader::Python);
        assert_eq!(
            by_first_line("#!/usr/bin/env -S node --no-warnings\n"),
            Reader::Js
        );
        assert_eq!(by_first_line("#!/bin/bash\n"), Reader::Shell);
        assert_eq!(by_first_line("#!/usr/bin/perl\n"), Reader::Shell);
        assert_eq!(by_first_line("grep x y\n"), Reader::Shell);
    }
    #[test]
    fn reads_of_the_whole_tree() {
        let read = |line: &str| {
            let (_, words) = lines(line).into_iter().next().unwrap_or_default();
            reads_the_tree(&words)
        };
        for (line, command) in [
            ("grep -rq \"add(2, 3) == 5\" .", "grep"),
            ("grep -R x", "grep"),
            ("rg -q 'add\\(2'", "rg"),
            ("git grep -q x", "git grep"),
            ("find . -type f -exec cat {} +", "find"),
            ("cd src && grep --recursive x ./", "grep"),
        ] {
            assert_eq!(read(line).as_deref(), Some(command), "{line}");
        }
        for line in [
            "grep -q x VERSION",
            "grep -r x src",
            "rg x docs",
            "find build -name '*.o' -delete",
            "git status",
        ] {
            assert_eq!(read(line), None, "{line}");
        }
    }

    #[test]
    fn globs_match_names() {
        assert!(glob_matches("t*", "tests"));
        assert!(glob_matches("te?ts", "tests"));
        assert!(glob_matches("test_*.py", "test_add.py"));
        assert!(glob_matches("[t]ests", "tests"));
        assert!(glob_matches("*", "tests"));
        assert!(!glob_matches("s*", "tests"));
        assert!(!glob_matches("test_*.js", "test_add.py"));
    }
}
