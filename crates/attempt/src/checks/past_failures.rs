//! A check runs every test past a failure: a known failure (`[attempt] known_failures`) must
//! not keep a withheld or acceptance test from running, which then would not pass.
//!
//! Measured: `cargo test` runs no test binary after the first that fails (`error: test
//! failed, to rerun pass --test env`, and `tests/hidden.rs`, later in the order, never
//! runs); `go test -failfast` starts no test of the package after its first failure;
//! `pytest -x` (`--exitfirst`, `--maxfail=N`) stops the session. Each runner's own flag
//! undoes it where it comes last: `cargo test --no-fail-fast`, `go test … -failfast=false`,
//! `pytest … --maxfail=0`. The environment carries the Go and pytest ones for the flags
//! set there or in `pytest.ini` (`GOFLAGS`, `PYTEST_ADDOPTS`, read before the command
//! line); a flag on the command line wins over the environment, so a check whose command
//! runs the runner itself gets the flag added to its command. A command that runs the
//! runner behind another tool (`make test`, a script) is run as it is.

/// `command` with its runner's run-past-failures flag added, when it is one simple command
/// (no `;`, `&&`, `|`, substitution or newline) that runs `cargo test`, a `go test` given
/// `-failfast`, or a pytest given `-x`, `--exitfirst` or `--maxfail`. The flag goes before
/// the part that is the test binaries' own (`--` for cargo and pytest, `-args` for go).
pub(super) fn past_failures(command: &str) -> Option<String> {
    if command
        .chars()
        .any(|c| matches!(c, ';' | '&' | '|' | '\n' | '`' | '<' | '>' | '(' | ')'))
        || command.contains("$(")
    {
        return None;
    }
    let words = words(command);
    let program = program(&words)?;
    let rest = &words[program..];
    let name = rest[0].1.rsplit('/').next().unwrap_or(rest[0].1);
    let (flag, end) = match name {
        "cargo" => {
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
