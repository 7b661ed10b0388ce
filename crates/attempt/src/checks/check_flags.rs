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
//! failure).
//!
//! Three runners have no flag that undoes their stop, so the check's command loses the
//! flag instead (measured with vitest 4.1, pytest 9.2 and Python 3.11's unittest):
//! vitest refuses `--bail` given twice (`Expected a single value for option "--bail
//! <number>"`) and `--no-bail` (`value is missing`), so its `--bail N` is dropped and
//! `--bail=0` added, which also overrides a `bail` of `vitest.config` (it then ran 6
//! tests of 3 files where `bail: 1` ran 2 of 1); pytest's `--sw` (`--stepwise`,
//! `--sw-skip`, `--sw-reset`) is a switch with no `no` form, and `-p no:stepwise` turns
//! `--sw` into a usage error, so they are dropped (also from `PYTEST_ADDOPTS`); unittest's
//! `-f` (`--failfast`, any prefix of it, `f` among short flags run together) is dropped.
//! A stop set where the check cannot reach it (`addopts = --sw` in `pytest.ini`, a
//! vitest `--bail` inside an npm script) stays, and the tests it hides fail as not run.
//!
//! **Naming each test.** jest over several files prints `PASS file` for each and counts
//! its passes without naming them, so a test that vanished from a file that ran cannot be
//! told from one that passed; `--verbose` makes it print each test's title. A check whose
//! command runs jest itself, or an npm script that is one `jest` command, gets it. So does
//! `python -m unittest` get `-v`: without it unittest prints `Ran 3 tests` and names no
//! file, so any withheld file could have run. vitest's default reporter prints a file's
//! tests only when one failed, and each other file with its count, so a test that vanished
//! while another took its place in the same file went unseen; `--reporter=verbose` makes it
//! print every test (`✓ test/a.test.js > suite > title 2ms`).
//!
//! An npm, yarn or pnpm script that is one jest or vitest command gets the same flags
//! through the package manager, which passes what follows the script's name to it
//! (measured with yarn 1.22, yarn 4.18 and pnpm; npm needs `--` before them, and yarn 4
//! and pnpm would pass a `--` on to the runner). A command that runs the runner behind
//! another tool (`make test`, a shell script) is run as it is: jest and unittest read
//! their verbosity from their command line alone (jest reads no `JEST_*` variable for it).

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
    let dropped = stops_dropped(&resolved.command);
    let command = dropped.as_deref().unwrap_or(&resolved.command);
    let past = past_failures(command).or(dropped);
    let command = past.as_deref().unwrap_or(&resolved.command);
    let dir = resolved
        .cwd
        .map_or_else(|| root.to_path_buf(), |c| root.join(c));
    names_tests(command, &dir).or(past)
}

/// `command` with the flags that make its runner name every test: jest's `--verbose`,
/// vitest's `--reporter=verbose` (with `--bail=0` through a script), unittest's `-v`. When
/// it runs the runner itself (`jest`, `npx vitest run`, `python -m unittest`), or is an
/// npm, yarn or pnpm script (`npm test`, `yarn run 'test'`) whose body in `dir`'s
/// `package.json` is one jest or vitest command.
fn names_tests(command: &str, dir: &Path) -> Option<String> {
    if !simple(command) {
        return None;
    }
    let command_words = words(command);
    let at = program(&command_words)?;
    let rest: Vec<&str> = command_words[at..].iter().map(|(_, w)| *w).collect();
    if let Some(flags) = naming_flags(&rest, false) {
        return Some(format!("{} {flags}", command.trim_end()));
    }
    let (manager, script) = match rest.as_slice() {
        [manager @ ("npm" | "yarn" | "pnpm"), "test"] => (*manager, "test".to_owned()),
        [manager @ ("npm" | "yarn" | "pnpm"), "run", name]
        | ["npm", manager @ "run-script", name] => (*manager, name.trim_matches('\'').to_owned()),
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
    let flags = naming_flags(&body, true)?;
    // npm passes to the script what follows `--`; yarn and pnpm what follows its name.
    let gap = if matches!(manager, "npm" | "run-script") {
        " --"
    } else {
        ""
    };
    Some(format!("{}{gap} {flags}", command.trim_end()))
}

/// The flags `words` (from the program on) need to name every test, when they run jest,
/// vitest or `python -m unittest` without them; in a `script`, vitest's `--bail` cannot be
/// dropped, so `--bail=0` is added where it has none (its own `--bail` and ours would make
/// it refuse to run).
fn naming_flags(words: &[&str], script: bool) -> Option<String> {
    if runs_jest(words) {
        return Some("--verbose".to_owned());
    }
    if runs_unittest(words) && !script {
        return Some("-v".to_owned());
    }
    let from = vitest_args(words)?;
    let args = &words[from..];
    if args.contains(&"--") {
        return None;
    }
    let mut flags = Vec::new();
    if script && !args.iter().any(|w| w.starts_with("--bail")) {
        flags.push("--bail=0");
    }
    if !args.iter().any(|w| w.starts_with("--reporter")) {
        flags.push("--reporter=verbose");
    }
    (!flags.is_empty()).then(|| flags.join(" "))
}

/// Where the arguments of vitest start among `words` (from the program on), when they run
/// it (`vitest`, `npx vitest`), past its `run` subcommand.
fn vitest_args(words: &[&str]) -> Option<usize> {
    let at = usize::from(words.first() == Some(&"npx"));
    if words.get(at)?.rsplit('/').next() != Some("vitest") {
        return None;
    }
    Some(at + 1 + usize::from(words.get(at + 1) == Some(&"run")))
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
    runs_unittest_at_all(words)
        && !words[3..]
            .iter()
            .any(|w| matches!(*w, "-v" | "--verbose" | "-q" | "--quiet" | "--"))
}

/// `command` without the flags that stop its runner at a failure and have no flag that
/// undoes them, when it is one simple command that runs the runner itself: vitest's
/// `--bail N` (`--bail=0` added, which also overrides a config's `bail`), pytest's `--sw`
/// family, unittest's `-f`.
fn stops_dropped(command: &str) -> Option<String> {
    if !simple(command) {
        return None;
    }
    let words = words(command);
    let program = program(&words)?;
    let rest = &words[program..];
    let plain: Vec<&str> = rest.iter().map(|(_, w)| *w).collect();
    let end = ends_at(rest, &["--"]);
    let name = plain[0].rsplit('/').next().unwrap_or(plain[0]);
    let pytest = matches!(name, "pytest" | "py.test")
        || (name.starts_with("python") && plain.get(1..3) == Some(&["-m", "pytest"]));
    // (word index, what replaces it: nothing, or its short flags without `f`)
    let mut edits: Vec<(usize, String)> = Vec::new();
    let mut add = None;
    if let Some(from) = vitest_args(&plain) {
        let mut i = from;
        while i < end {
            let w = plain[i];
            if w.starts_with("--bail=") {
                edits.push((i, String::new()));
            } else if w == "--bail" {
                edits.push((i, String::new()));
                if plain.get(i + 1).is_some_and(|v| v.parse::<u64>().is_ok()) && i + 1 < end {
                    i += 1;
                    edits.push((i, String::new()));
                }
            }
            i += 1;
        }
        add = Some("--bail=0");
    } else if pytest {
        for (i, w) in plain.iter().enumerate().take(end) {
            if STEPWISE.contains(w) {
                edits.push((i, String::new()));
            }
        }
    } else if runs_unittest_at_all(&plain) {
        for (i, w) in plain.iter().enumerate().take(end).skip(3) {
            if let Some(kept) = without_failfast(w) {
                edits.push((i, kept));
            }
        }
    } else {
        return None;
    }
    if edits.is_empty() && add.is_none() {
        return None;
    }
    let mut out = String::new();
    let mut last = 0;
    for (i, kept) in &edits {
        let (at, w) = rest[*i];
        out.push_str(command[last..at].trim_end());
        if !kept.is_empty() {
            out.push(' ');
            out.push_str(kept);
        }
        last = at + w.len();
    }
    let tail = &command[last..];
    if let Some(flag) = add {
        // Before the `--` that ends the runner's own flags, or at the end.
        let cut = rest.get(end).map_or(command.len(), |(at, _)| *at).max(last);
        out.push_str(command[last..cut].trim_end());
        out.push(' ');
        out.push_str(flag);
        let after = &command[cut..];
        if !after.is_empty() {
            out.push(' ');
            out.push_str(after.trim_start());
        }
    } else {
        out.push_str(tail);
    }
    Some(out.trim_end().to_owned())
}

/// pytest's flags that stop at a failure and resume there next time.
pub(super) const STEPWISE: &[&str] = &[
    "--sw",
    "--stepwise",
    "--sw-skip",
    "--stepwise-skip",
    "--sw-reset",
    "--stepwise-reset",
];

/// Whether `words` (from the program on) run `python -m unittest`.
fn runs_unittest_at_all(words: &[&str]) -> bool {
    words
        .first()
        .and_then(|p| p.rsplit('/').next())
        .is_some_and(|p| p.starts_with("python"))
        && words.get(1..3) == Some(&["-m", "unittest"])
}

/// The unittest argument `word` without its failfast: `Some("")` for `-f`, `--failfast`
/// or a prefix of it (argparse takes `--fail`), `Some("-v")` for `-fv`; `None` for any
/// other word. Short flags run together are read only when each is a switch (`-fk x`
/// is left alone).
fn without_failfast(word: &str) -> Option<String> {
    if word.len() >= 3 && "--failfast".starts_with(word) {
        return Some(String::new());
    }
    let short = word.strip_prefix('-').filter(|w| !w.starts_with('-'))?;
    if !short.contains('f') || !short.chars().all(|c| "hvqfcb".contains(c)) {
        return None;
    }
    let kept: String = short.chars().filter(|c| *c != 'f').collect();
    Some(if kept.is_empty() {
        String::new()
    } else {
        format!("-{kept}")
    })
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
            r#"{"scripts": {"test": "jest", "ci": "jest --ci", "lint": "eslint .", "both": "jest && tsc", "loud": "jest --verbose", "vt": "vitest run", "vtbail": "vitest run --bail 1", "vtdots": "vitest --bail 1 --reporter=dot", "unit": "python3 -m unittest"}}"#,
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
            ("vitest run", Some("vitest run --reporter=verbose")),
            ("npx vitest --reporter=dot", None),
            ("yarn run 'test'", Some("yarn run 'test' --verbose")),
            ("pnpm test", Some("pnpm test --verbose")),
            (
                "pnpm run 'vt'",
                Some("pnpm run 'vt' --bail=0 --reporter=verbose"),
            ),
            (
                "npm run 'vt'",
                Some("npm run 'vt' -- --bail=0 --reporter=verbose"),
            ),
            (
                "npm run 'vtbail'",
                Some("npm run 'vtbail' -- --reporter=verbose"),
            ),
            ("yarn run 'vtdots'", None),
            ("yarn run 'unit'", None),
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

    #[test]
    fn stops_without_an_undo_are_dropped() {
        let cases = [
            ("vitest run", Some("vitest run --bail=0")),
            ("vitest run --bail 1", Some("vitest run --bail=0")),
            (
                "npx vitest --bail=2 --globals",
                Some("npx vitest --globals --bail=0"),
            ),
            (
                "vitest run --bail 1 -- test/a.test.js",
                Some("vitest run --bail=0 -- test/a.test.js"),
            ),
            ("pytest --sw tests", Some("pytest tests")),
            (
                "python3 -m pytest --stepwise-skip -q --sw-reset",
                Some("python3 -m pytest -q"),
            ),
            ("pytest -q -- --sw", None),
            (
                "python3 -m unittest -f discover -s tests",
                Some("python3 -m unittest discover -s tests"),
            ),
            ("python -m unittest -fv", Some("python -m unittest -v")),
            (
                "python -m unittest --fail -b",
                Some("python -m unittest -b"),
            ),
            ("python -m unittest -fk add", None),
            ("python -m unittest -v", None),
            ("make test --bail 1", None),
            ("vitest run --bail 1 && tsc", None),
        ];
        for (command, want) in cases {
            assert_eq!(stops_dropped(command).as_deref(), want, "{command}");
        }
    }
}
