//! The checks: each op, resolved as the recipe was detected in your checkout, runs in a
//! check tree with the recipe's deadline and the whole process group stopped, and the
//! tests' own report is read from its output (and pytest's JUnit XML).

mod check_flags;

use std::path::{Path, PathBuf};

use super::check_tree::NO_PYCACHE;
use super::shared::{CheckResult, Pass, Prepared, TestSummary};
use super::verdict::results::{self, TestReport};
use speccoder_foundation::process::{RunOutput, RunRequest, SpawnError, Spawner};
use speccoder_recipe::{Recipe, RunResult};

/// Lines of a check's output kept in the result and the digest.
pub(crate) const TAIL_LINES: usize = 60;

/// The most of a check's full output read for its tests' results.
const MAX_REPORT_BYTES: u64 = 64 << 20;

/// What a check's output says when a dependency is missing, in the shells, Python and
/// Node.
const MISSING: &[&str] = &[
    "Cannot find module",
    "ModuleNotFoundError",
    "No module named",
    "command not found",
    "not found in PATH",
];

/// The hint for an output that says a dependency is missing.
fn missing_hint(output: &str) -> Option<String> {
    let found = MISSING.iter().find(|m| output.contains(*m))?;
    Some(format!(
        "the output says `{found}`: if the project needs dependencies installed, `[attempt] setup` runs commands such as `npm ci` before the checks"
    ))
}

/// What a runner prints when it found no test to run.
const NO_TESTS: &[&str] = &[
    "No test files found",
    "No tests found",
    "Ran 0 tests",
    "no tests ran",
    "no tests to run",
];

/// The most characters of a cause kept.
const MAX_CAUSE: usize = 300;

/// Why a check that reported no test stopped, from its output: a runner that found no
/// tests, else the first line a tool printed as its error (`go vet`'s `file.go:3:2: …`,
/// eslint's `3:7  error  …` after its file, `error[E0432]: …`, `SyntaxError: …`, a read-only
/// file system), never the lines of the tools that only relay it (make's `***`, npm's
/// `ERR!`).
pub(crate) fn first_cause(output: &str) -> Option<String> {
    let lines: Vec<&str> = output.lines().map(str::trim_end).collect();
    let cut = |line: &str| line.chars().take(MAX_CAUSE).collect::<String>();
    if let Some(line) = lines
        .iter()
        .find(|l| NO_TESTS.iter().any(|m| l.contains(m)))
    {
        return Some(format!("the runner found no tests: `{}`", cut(line.trim())));
    }
    let relays = |l: &str| {
        l.starts_with("make: ***")
            || (l.starts_with("make[") && l.contains("***"))
            || l.starts_with("npm ERR!")
            || l.starts_with("npm error")
            || l.starts_with("error: Recipe `")
            || l.starts_with("task: Failed")
            || l.starts_with("ELIFECYCLE")
            || l.starts_with("error: script \"")
            || l.starts_with("Command exited with code")
    };
    for (i, raw) in lines.iter().enumerate() {
        let line = raw.trim();
        if line.is_empty() || relays(line) {
            continue;
        }
        if let Some(rest) = eslint_error(line) {
            let file = lines[..i]
                .iter()
                .rev()
                .map(|l| l.trim())
                .find(|l| !l.is_empty() && eslint_error(l).is_none());
            return Some(cut(&match file {
                Some(file) => format!("{file}: {rest}"),
                None => rest.to_owned(),
            }));
        }
        if tool_error(line) {
            return Some(cut(line));
        }
        // A titled message: jest's `● Validation Error:`, then what is wrong.
        if line.ends_with("Error:")
            && let Some(next) = lines[i + 1..]
                .iter()
                .map(|l| l.trim())
                .find(|l| !l.is_empty())
        {
            let title = line.trim_start_matches(|c: char| !c.is_alphanumeric());
            return Some(cut(&format!("{title} {next}")));
        }
    }
    None
}

/// eslint's line of an error under its file: `  3:7  error  'x' is …  no-unused-vars`.
fn eslint_error(line: &str) -> Option<&str> {
    let (place, rest) = line.split_once(char::is_whitespace)?;
    let (row, col) = place.split_once(':')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(row) && digits(col) && rest.trim_start().starts_with("error")).then_some(line)
}

/// Whether `line` is a tool's own error message.
fn tool_error(line: &str) -> bool {
    // `./calc.go:5:2: …` (go vet, go build), `src/a.ts(3,7): error TS2322: …`.
    let go_place = line.split_once(": ").is_some_and(|(place, _)| {
        let mut parts = place.rsplitn(3, ':');
        let (col, row, file) = (parts.next(), parts.next(), parts.next());
        let digits = |s: Option<&str>| {
            s.is_some_and(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
        };
        digits(col) && digits(row) && file.is_some_and(|f| f.ends_with(".go"))
    });
    let word_error = line.split_once(": ").is_some_and(|(head, _)| {
        !head.contains(' ')
            && (head.ends_with("Error") || head.ends_with("Exception") || head == "Error")
    });
    go_place
        || word_error
        || line.starts_with("vet: ")
        || line.starts_with("error: ")
        || line.starts_with("error[")
        || line.starts_with("fatal: ")
        || line.starts_with("FATAL")
        || line.contains("error TS")
        || line.contains("read-only file system")
        || line.contains("Read-only file system")
        || line.contains("command not found")
        || line.contains("Permission denied")
}

/// The last `n` lines of `text`.
pub(crate) fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// One check as it ran: its result (not yet judged) and its tests' report.
#[derive(Debug)]
pub(crate) struct CheckRun {
    pub(crate) result: CheckResult,
    pub(crate) report: TestReport,
}

/// A runner that adds variables to every request: where pytest writes its JUnit report.
struct WithEnv<'a> {
    inner: &'a dyn Spawner,
    env: Vec<(String, String)>,
}

impl Spawner for WithEnv<'_> {
    fn run(&self, request: &RunRequest) -> Result<RunOutput, SpawnError> {
        let mut request = request.clone();
        request.env.extend(self.env.iter().cloned());
        self.inner.run(&request)
    }
}

/// Where checks run.
#[derive(Debug, Clone)]
pub(crate) struct Place<'a> {
    /// The check tree.
    tree: &'a Path,
    /// The fixed path the tree is seen at, when `[attempt] setup` ran.
    seen_at: Option<&'a Path>,
    /// Python's bytecode prefix (`PYTHONPYCACHEPREFIX`), which the checks must not be able
    /// to write but for the base's.
    pycache: PathBuf,
    /// Whether the checks write it (the base's, into the shared one): Python is then told
    /// to write bytecode even where your `PYTHONDONTWRITEBYTECODE` says not to, since it
    /// goes to speccoder's folder, not yours.
    fills_pycache: bool,
}

impl<'a> Place<'a> {
    /// The check tree `tree` of `prepared`'s attempt, with the shared bytecode where there
    /// is one (`shared/pycache.rs`), which the checks fill when `base` (the base's alone
    /// may), else an empty folder of the tree.
    pub(crate) fn new(prepared: &'a Prepared, tree: &'a Path, base: bool) -> Self {
        let shared = prepared.shared_pycache();
        Self {
            tree,
            seen_at: prepared.products.as_ref().map(|p| p.at.as_path()),
            pycache: shared.map_or_else(|| tree.join(NO_PYCACHE), Path::to_path_buf),
            fills_pycache: base && shared.is_some(),
        }
    }

    /// What the checks may write besides their tree: the shared bytecode they fill.
    pub(crate) fn also_writable(&self) -> Option<&Path> {
        self.fills_pycache.then_some(self.pycache.as_path())
    }
}

/// The variables a check gets on top of its environment: where pytest writes its JUnit
/// report (`junit`), Python's bytecode prefix, `go test -v`, the flags that run every test
/// past a failure, and a build folder of the check tree for cargo when you set one of your
/// own.
fn check_env(place: &Place<'_>, junit: &Path) -> Vec<(String, String)> {
    // pytest's `--sw` has no flag that undoes it (`checks/check_flags.rs`): it leaves
    // your `PYTEST_ADDOPTS`.
    let mut addopts = std::env::var("PYTEST_ADDOPTS")
        .unwrap_or_default()
        .split_whitespace()
        .filter(|w| !check_flags::STEPWISE.contains(w))
        .collect::<Vec<_>>()
        .join(" ");
    // Every test runs past a failure (`checks/check_flags.rs`): after `-x` in the
    // user's `PYTEST_ADDOPTS` or `pytest.ini`.
    addopts.push_str(&format!(" --junitxml={} -rA --maxfail=0", junit.display()));
    // `go test` names only its failing tests unless verbose, and `-v` in GOFLAGS makes it
    // name every one (go's own `test` task is `go test ./...`, without it).
    let mut goflags = std::env::var("GOFLAGS").unwrap_or_default();
    goflags.push_str(" -v -failfast=false");
    let mut env = vec![
        ("PYTEST_ADDOPTS".into(), addopts.trim().to_owned()),
        (
            "PYTHONPYCACHEPREFIX".into(),
            place.pycache.display().to_string(),
        ),
        ("GOFLAGS".into(), goflags.trim().to_owned()),
    ];
    if place.fills_pycache {
        env.push(("PYTHONDONTWRITEBYTECODE".into(), String::new()));
    }
    // A `CARGO_TARGET_DIR` of the user's lies outside the check tree: read-only in the
    // sandbox (cargo could not build), and shared with what the agent built. The checks
    // build in a folder of the check tree instead.
    if std::env::var_os("CARGO_TARGET_DIR").is_some() {
        let target = place.tree.join(".speccoder-cargo-target");
        env.push(("CARGO_TARGET_DIR".into(), target.display().to_string()));
    }
    env
}

/// Runs `ops` with `recipe` in the project folder `root` of the check tree at `place`, each
/// to its end, in order, and reads each one's tests.
pub(crate) fn run_checks(
    recipe: &Recipe,
    ops: &[String],
    root: &Path,
    place: &Place<'_>,
    runner: &dyn Spawner,
    pass: Pass,
) -> Vec<CheckRun> {
    let (tree, seen_at) = (place.tree, place.seen_at);
    ops.iter()
        .enumerate()
        .map(|(i, op)| {
            // In the check tree, which is the only place the checks may write; removed
            // first, so a report the code under test left is not read as this one.
            let junit = tree.join(format!(".speccoder-junit-{i}.xml"));
            let _ = std::fs::remove_file(&junit);
            let env = check_env(place, &junit);
            let with_env = WithEnv { inner: runner, env };
            match recipe.run_in_amended(op, root, &with_env, &|resolved| {
                check_flags::amend(resolved, root)
            }) {
                Ok(result) => {
                    let report = read_report(&result, &junit, tree, seen_at);
                    let _ = std::fs::remove_file(&junit);
                    // No test reported: whatever stopped the check is the first message.
                    let no_tests =
                        report.tests.is_empty() && report.counts.values().all(|n| *n == 0);
                    let cause = (!result.success() && no_tests)
                        .then(|| first_cause(&result.text()))
                        .flatten();
                    CheckRun {
                        result: CheckResult {
                            op: op.clone(),
                            pass,
                            command: Some(result.command.clone()),
                            exit_code: result.exit_code,
                            signal: result.signal,
                            timed_out: result.timed_out,
                            passed: result.success(),
                            tests: TestSummary::default(),
                            hint: (!result.success())
                                .then(|| missing_hint(&result.output))
                                .flatten(),
                            cause,
                            output_tail: last_lines(&result.text(), TAIL_LINES),
                            full_output: result.full_output,
                        },
                        report,
                    }
                }
                Err(err) => CheckRun {
                    result: CheckResult {
                        op: op.clone(),
                        pass,
                        command: None,
                        exit_code: None,
                        signal: None,
                        timed_out: false,
                        passed: false,
                        tests: TestSummary::default(),
                        hint: None,
                        cause: None,
                        output_tail: err.to_string(),
                        full_output: None,
                    },
                    report: TestReport::default(),
                },
            }
        })
        .collect()
}

/// The tests' report of a run: from its whole output (the full-output file when the
/// output was cut) and pytest's JUnit file when it wrote one.
fn read_report(
    result: &RunResult,
    junit: &Path,
    tree: &Path,
    seen_at: Option<&Path>,
) -> TestReport {
    let full = result
        .full_output
        .as_deref()
        .and_then(|f| speccoder_foundation::files::read_limited(f, MAX_REPORT_BYTES).ok())
        .map(|b| String::from_utf8_lossy(&b).into_owned());
    let output = full.as_deref().unwrap_or(&result.output);
    let xml = speccoder_foundation::files::read_limited(junit, MAX_REPORT_BYTES)
        .ok()
        .map(|b| String::from_utf8_lossy(&b).into_owned());
    let mut report = results::read(output, xml.as_deref());
    // A runner may name a test by its absolute path (node, for a file that fails to
    // load): the same test in another check tree must keep its id. The tree may be seen
    // at the setup's fixed path too.
    for top in std::iter::once(tree).chain(seen_at) {
        let top = format!("{}/", top.display());
        if report.tests.keys().any(|id| id.contains(&top)) {
            report.tests = std::mem::take(&mut report.tests)
                .into_iter()
                .map(|(id, outcome)| (id.replace(&top, ""), outcome))
                .collect();
        }
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_dependencies_get_the_setup_hint() {
        let hint = missing_hint("sh: 1: ts-scripts: command not found\n").expect("a hint");
        assert!(
            hint.contains("`command not found`") && hint.contains("[attempt] setup"),
            "{hint}"
        );
        assert_eq!(missing_hint("1 failed"), None);
        let mut sorted = MISSING.to_vec();
        sorted.sort_unstable();
        assert_eq!(MISSING, sorted, "keep MISSING sorted");
    }

    #[test]
    fn the_first_message_of_the_tool_that_stopped_a_check() {
        let vet = "go vet ./...\n# example.com/calc\n./calc.go:9:2: fmt.Printf format %d has arg s of wrong type string\nmake: *** [Makefile:2: test] Error 1\n";
        assert_eq!(
            first_cause(vet).as_deref(),
            Some("./calc.go:9:2: fmt.Printf format %d has arg s of wrong type string")
        );
        let eslint = "> eslint .\n\n/tmp/x/src/calc.js\n  3:7  error  'unused' is assigned a value but never used  no-unused-vars\n\n✖ 1 problem (1 error, 0 warnings)\nnpm error Lifecycle script `test` failed\n";
        assert_eq!(
            first_cause(eslint).as_deref(),
            Some(
                "/tmp/x/src/calc.js: 3:7  error  'unused' is assigned a value but never used  no-unused-vars"
            )
        );
        let jest = "> jest\n\nNo tests found, exiting with code 1\nRun with `--passWithNoTests` to exit with code 0\n";
        assert_eq!(
            first_cause(jest).as_deref(),
            Some("the runner found no tests: `No tests found, exiting with code 1`")
        );
        let cache =
            "go: creating work dir: mkdir /root/.cache/go-build/tmp: read-only file system\n";
        assert!(first_cause(cache).is_some_and(|c| c.contains("read-only file system")));
        let py = "Traceback (most recent call last):\n  File \"x.py\", line 1\nModuleNotFoundError: No module named 'calc'\n";
        assert_eq!(
            first_cause(py).as_deref(),
            Some("ModuleNotFoundError: No module named 'calc'")
        );
        let jest = "● Validation Error:\n\n  Directory /x/spec in the roots[0] option was not found.\n\nerror: script \"test\" exited with code 1\n";
        assert_eq!(
            first_cause(jest).as_deref(),
            Some("Validation Error: Directory /x/spec in the roots[0] option was not found.")
        );
        // Only the relays: nothing to name.
        assert_eq!(first_cause("make: *** [Makefile:2: test] Error 1\n"), None);
        let mut sorted = NO_TESTS.to_vec();
        sorted.sort_unstable();
        assert_eq!(NO_TESTS, sorted, "keep NO_TESTS sorted");
    }

    #[test]
    fn last_lines_keeps_the_end() {
        assert_eq!(last_lines("a\nb\nc\n", 2), "b\nc");
        assert_eq!(last_lines("a", 5), "a");
        assert_eq!(last_lines("", 5), "");
    }
}
