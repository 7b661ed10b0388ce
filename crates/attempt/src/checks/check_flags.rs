//! The flags a check adds to a test runner's own command, so that its report can judge
//! every withheld and acceptance test.
//!
//! **Past failures.** A known failure (`[attempt] known_failures`) must not keep a withheld
//! or acceptance test from running, which then would not pass. Measured: `cargo test` runs
//! no test binary after the first that fails (`error: test failed, to rerun pass --test
//! env`, and `tests/hidden.rs`, later in the order, never runs); `go test -failfast` starts
//! no test of the package after its first failure; `pytest -x` (`--exitfirst`,
//! `--maxfail=N`) stops the session. Each runner's own flag undoes it where it comes last:
//! `cargo test --no-fail-fast`, `go test … -failfast=false`, `pytest … --maxfail=0`. The
//! environment carries the Go and pytest ones for the flags set there or in `pytest.ini`
//! (`GOFLAGS`, `PYTEST_ADDOPTS`, read before the command line); a flag on the command line
//! wins over the environment, so a check whose command runs the runner itself gets the
//! flag added to its command. mocha's `--bail` gets `--no-bail` and jest's `--bail` gets
//! `--bail=0` the same way (measured: `mocha --bail --no-bail` runs the test after the
//! failure); vitest refuses `--bail` given twice, and is run as it is.
//!
//! **Naming each test.** jest over several files prints `PASS file` for each and counts
//! its passes without naming them, so a test that vanished from a file that ran cannot be
//! told from one that passed; `--verbose` makes it print each test's title. A check whose
//! command runs jest itself, or an npm script that is one `jest` command, gets it. So does
//! `python -m unittest` get `-v`: without it unittest prints `Ran 3 tests` and names no
//! file, so any withheld file could have run.
//!
//! A command that runs the runner behind another tool (`make test`, a shell script, a
//! `yarn` or `pnpm` script) is run as it is.

use std::path::Path;

use serde_json::Value;
use speccoder_foundation::files;
use speccoder_recipe::Resolved;

/// The most of `package.json` read for its scripts.
const MAX_MANIFEST: u64 = 4 << 20;

/// The program whose `test` subcommand is read, as the command line spells it.
const CARGO: &str = "cargo"; // not a runner id

/// The resolved op's command with the flags this module adds, when it adds any; `root` is
/// the project's folder in the check tree.
pub(super) fn amend(resolved: &Resolved<'_>, root: &Path) -> Option<String> {
    let past = past_failures(&resolved.command);
    let command = past.as_deref().unwrap_or(&resolved.command);
    let dir = resolved
        .cwd
        .map_or_else(|| root.to_path_buf(), |c| root.join(c));
    names_tests(command, &dir).or(past)
}

/// `command` with jest's `--verbose` added: when it runs `jest` (or `npx jest`) itself, or
/// is `npm run 'script'` (or `npm test`) whose script in `dir`'s `package.json` is one
/// `jest` command. npm passes what follows `--` to the script.
fn names_tests(command: &str, dir: &Path) -> Option<String> {
    if !simple(command) {
        return None;
    }
    let command_words = words(command);
    let at = program(&command_words)?;
    let rest: Vec<&str> = command_words[at..].iter().map(|(_, w)| *w).collect();
    if runs_jest(&rest) {
        return Some(format!("{} --verbose", command.trim_end()));
    }
    if runs_unittest(&rest) {
        return Some(format!("{} -v", command.trim_end()));
    }
    let script = match rest.as_slice() {
        ["npm", "test"] => "test".to_owned(),
        ["npm", "run" | "run-script", name] => name.trim_matches('\'').to_owned(),
        _ => return None,
    };
    let root = files::Root::new(dir);
    let text = root.read(&dir.join("package.json"), MAX_MANIFEST).ok()?;
    let manifest: Value = serde_json::from_slice(&text).ok()?;
    let body = manifest.pointer("/scripts")?.get(&script)?.as_str()?;
    if !simple(body) {
        return None;
    }
    let body_words = words(body);
    let at = program(&body_words)?;
    let body: Vec<&str> = body_words[at..].iter().map(|(_, w)| *w).collect();
    runs_jest(&body).then(|| format!("{} -- --verbose", command.trim_end()))
}

/// Whether `words` (from the program on) run jest without `--verbose` already.
fn runs_jest(words: &[&str]) -> bool {
    let words = match words {
        ["npx", rest @ ..] => rest,
        _ => words,
    };
    let Some(first) = words.first() else {
        return false;
    };
    first.rsplit('/').next() == Some("jest")
        && !words
            .iter()
            .any(|w| *w == "--" || w.starts_with("--verbose") || w.starts_with("--json"))
}

/// Whether `words` (from the program on) run `python -m unittest` without `-v` already:
/// it then prints `Ran 3 tests` and names only the tests that fail.
fn runs_unittest(words: &[&str]) -> bool {
    words
        .first()
        .and_then(|p| p.rsplit('/').next())
        .is_some_and(|p| p.starts_with("python"))
        && words.get(1) == Some(&"-m")
        && words.get(2) == Some(&"unittest")
        && !words[3..]
            .iter()
            .any(|w| matches!(*w, "-v" | "--verbose" | "-q" | "--quiet" | "--"))
}

/// Whether `command` is one simple command: no `;`, `&&`, `|`, redirection, substitution
/// or newline.
fn simple(command: &str) -> bool {
    !command
        .chars()
        .any(|c| matches!(c, ';' | '&' | '|' | '\n' | '`' | '<' | '>' | '(' | ')'))
        && !command.contains("$(")
}

/// `command` with its runner's run-past-failures flag added, when it is one simple command
/// (no `;`, `&&`, `|`, substitution or newline) that runs `cargo test`, a `go test` given
/// `-failfast`, or a pytest given `-x`, `--exitfirst` or `--maxfail`. The flag goes before
/// the part that is the test binaries' own (`--` for cargo and pytest, `-args` for go).
fn past_failures(command: &str) -> Option<String> {
    if !simple(command) {
        return None;
    }
    let words = words(command);
    let program = program(&words)?;
    let rest = &words[program..];
    let name = rest[0].1.rsplit('/').next().unwrap_or(rest[0].1);
    let (flag, end) = match name {
        CARGO => {
            // `cargo +nightly --locked test …`: the subcommand is its first bare word.
            let sub = rest[1..]
                .iter()
                .position(|(_, w)| !w.starts_with(['-', '+']))?;
            if rest[1 + sub].1 != "test" {
                return None;
            }
            let end = ends_at(rest, &["--"]);
            if rest[..end].iter().any(|(_, w)| *w == "--no-fail-fast") {
                return None;
            }
            ("--no-fail-fast", end)
        }
        "go" if rest.get(1).is_some_and(|(_, w)| *w == "test") => {
            let end = ends_at(rest, &["-args", "--args"]);
            let fails_fast = rest[..end].iter().any(|(_, w)| {
                let w = w.trim_start_matches('-');
                w == "failfast" || w == "failfast=true"
            });
            if !fails_fast {
                return None;
            }
            ("-failfast=false", end)
        }
        "mocha" | "jest" | "npx" => bail_undone(name, rest)?,
        _ => {
            let pytest = if matches!(name, "pytest" | "py.test") {
                1
            } else if name.starts_with("python")
                && rest.get(1).is_some_and(|(_, w)| *w == "-m")
                && rest.get(2).is_some_and(|(_, w)| *w == "pytest")
            {
                3
            } else {
                return None;
            };
            let end = ends_at(rest, &["--"]);
            if !rest[pytest..end].iter().any(|(_, w)| stops_pytest(w)) {
                return None;
            }
            ("--maxfail=0", end)
        }
    };
    let at = rest.get(end).map_or(command.len(), |(at, _)| *at);
    let (head, tail) = command.split_at(at);
    let head = head.trim_end();
    Some(if tail.is_empty() {
        format!("{head} {flag}")
    } else {
        format!("{head} {flag} {tail}")
    })
}

/// mocha's `--bail` (`-b`) stops at the first failure, and `--no-bail` after it undoes it;
/// jest's `--bail[=n]` stops after n files fail, and `--bail=0` after it undoes it. The
/// flag to add to `rest` (the command from the program `name` on), and where.
fn bail_undone(name: &str, rest: &[(usize, &str)]) -> Option<(&'static str, usize)> {
    let (tool, from) = if name == "npx" {
        (rest.get(1).map(|(_, w)| *w)?, 2)
    } else {
        (name, 1)
    };
    let undo = match tool {
        "mocha" => "--no-bail",
        "jest" => "--bail=0",
        _ => return None,
    };
    let end = ends_at(rest, &["--"]);
    let bails = rest[from.min(end)..end]
        .iter()
        .any(|(_, w)| *w == "-b" || *w == "--bail" || w.starts_with("--bail="));
    if !bails || rest[..end].iter().any(|(_, w)| *w == undo) {
        return None;
    }
    Some((undo, end))
}

/// The whitespace-separated words of `command`, each with where it starts.
fn words(command: &str) -> Vec<(usize, &str)> {
    let base = command.as_ptr() as usize;
    command
        .split_whitespace()
        .map(|w| (w.as_ptr() as usize - base, w))
        .collect()
}

/// Where the program is among `words`: after `VAR=value` assignments and `env` with its
/// own.
fn program(words: &[(usize, &str)]) -> Option<usize> {
    let assignment = |w: &str| {
        w.split_once('=').is_some_and(|(k, _)| {
            !k.is_empty() && k.chars().all(|c| c.is_alphanumeric() || c == '_')
        })
    };
    let mut i = 0;
    while words.get(i).is_some_and(|(_, w)| assignment(w)) {
        i += 1;
    }
    if words.get(i).is_some_and(|(_, w)| *w == "env") {
        i += 1;
        while words.get(i).is_some_and(|(_, w)| assignment(w)) {
            i += 1;
        }
    }
    (i < words.len()).then_some(i)
}

/// The index of the first of `ends` among `words`, or their count.
fn ends_at(words: &[(usize, &str)], ends: &[&str]) -> usize {
    words
        .iter()
        .position(|(_, w)| ends.contains(w))
        .unwrap_or(words.len())
}

/// Whether a pytest argument stops the session at a failure: `-x`, `--exitfirst`,
/// `--maxfail[=N]`, or short flags run together with `x` among them (`-vx`).
fn stops_pytest(word: &str) -> bool {
    word == "--exitfirst"
        || word.starts_with("--maxfail")
        || word
            .strip_prefix('-')
            .filter(|w| !w.starts_with('-'))
            .is_some_and(|w| w.contains('x') && w.chars().all(|c| c.is_ascii_alphabetic()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cargo_test_runs_every_binary() {
        let cases = [
            ("cargo test", Some("cargo test --no-fail-fast")),
            (
                "cargo test --workspace",
                Some("cargo test --workspace --no-fail-fast"),
            ),
            (
                "cargo test --package 'core' -- --nocapture",
                Some("cargo test --package 'core' --no-fail-fast -- --nocapture"),
            ),
            (
                "cargo +nightly test",
                Some("cargo +nightly test --no-fail-fast"),
            ),
            ("cargo test --no-fail-fast", None),
            ("cargo build", None),
            ("cargo test && cargo clippy", None),
            ("make test", None),
        ];
        for (command, want) in cases {
            assert_eq!(past_failures(command).as_deref(), want, "{command}");
        }
    }

    #[test]
    fn go_test_failfast_is_undone() {
        let cases = [
            (
                "go test -failfast ./...",
                Some("go test -failfast ./... -failfast=false"),
            ),
            (
                "go test --failfast ./... -args -x",
                Some("go test --failfast ./... -failfast=false -args -x"),
            ),
            ("go test ./...", None),
            ("go test -failfast=false ./...", None),
            ("go vet -failfast ./...", None),
        ];
        for (command, want) in cases {
            assert_eq!(past_failures(command).as_deref(), want, "{command}");
        }
    }

    #[test]
    fn jest_is_made_to_name_its_tests() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(
            dir.path().join("package.json"),
            r#"{"scripts": {"test": "jest", "ci": "jest --ci", "lint": "eslint .", "both": "jest && tsc", "loud": "jest --verbose"}}"#,
        )
        .expect("write");
        let cases = [
            ("jest", Some("jest --verbose")),
            ("npx jest --ci", Some("npx jest --ci --verbose")),
            ("npm run 'test'", Some("npm run 'test' -- --verbose")),
            ("npm test", Some("npm test -- --verbose")),
            ("npm run 'ci'", Some("npm run 'ci' -- --verbose")),
            ("npm run 'lint'", None),
            ("npm run 'both'", None),
            ("npm run 'loud'", None),
            ("npm run 'missing'", None),
            ("jest --verbose", None),
            ("vitest run", None),
            (
                "python3 -m unittest discover -s tests",
                Some("python3 -m unittest discover -s tests -v"),
            ),
            (
                "env PYTHONPATH=. python -m unittest",
                Some("env PYTHONPATH=. python -m unittest -v"),
            ),
            ("python3 -m unittest -v", None),
            ("python3 -m pytest", None),
        ];
        for (command, want) in cases {
            assert_eq!(
                names_tests(command, dir.path()).as_deref(),
                want,
                "{command}"
            );
        }
    }

    #[test]
    fn mocha_and_jest_bail_is_undone() {
        let cases = [
            ("mocha --bail", Some("mocha --bail --no-bail")),
            ("npx mocha -b test", Some("npx mocha -b test --no-bail")),
            ("jest --bail", Some("jest --bail --bail=0")),
            ("jest --bail=2 --ci", Some("jest --bail=2 --ci --bail=0")),
            ("mocha test", None),
            ("jest --ci", None),
            ("npx eslint --bail", None),
        ];
        for (command, want) in cases {
            assert_eq!(past_failures(command).as_deref(), want, "{command}");
        }
    }

    #[test]
    fn pytest_stop_flags_are_undone() {
        let cases = [
            ("pytest -x", Some("pytest -x --maxfail=0")),
            ("pytest -vx tests", Some("pytest -vx tests --maxfail=0")),
            (
                "env PYTHONPATH=. pytest --maxfail=2",
                Some("env PYTHONPATH=. pytest --maxfail=2 --maxfail=0"),
            ),
            (
                "python3 -m pytest --exitfirst -- tests",
                Some("python3 -m pytest --exitfirst --maxfail=0 -- tests"),
            ),
            ("pytest -v tests", None),
            ("pytest -k x", None),
            ("tox -e py -x", None),
        ];
        for (command, want) in cases {
            assert_eq!(past_failures(command).as_deref(), want, "{command}");
        }
    }
}
