//! Per-test results: what a check's output says about each test it ran, for the runners
//! invariant 9 of `spec/verdict.md` recognises (pytest, unittest, libtest, node's test
//! runner, mocha, jest, vitest and `go test`).
//!
//! A check's output is whatever its command printed, and one command may run several
//! runners between lines of noise, so each runner has one reader that takes a line only
//! when it has that runner's exact shape, and only in the context the runner prints it in
//! (libtest's lines after `running N tests`, node's after `TAP version 13`, pytest's after
//! its `short test summary info` rule). The readers know only what the runners print by
//! default when their output is not a terminal, plus the JUnit XML that pytest writes when
//! the attempt asks for it through `PYTEST_ADDOPTS`. Every sample they are tested on was
//! recorded from the real tool, under `fixtures/results/`.
//!
//! Each runner's reader has a file of its own, with its tests; this module holds what they
//! share: the report and its bounds, the [`Sink`] they write to, the cleaned lines they
//! read, and the small parsers of counts and rules.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

/// A recorded sample under `fixtures/results/`, for the readers' tests.
#[cfg(test)]
macro_rules! sample {
    ($name:literal) => {
        include_str!(concat!("../../../../../fixtures/results/", $name))
    };
}

mod go_test;
mod jest;
mod junit;
mod libtest;
mod mocha;
mod node_test;
mod pytest;
mod unittest;
mod vitest;

/// How one test ended, as its runner reported it.
///
/// Public because the attempt's public `TestSummary` counts tests by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TestOutcome {
    /// It ran and passed.
    Passed,
    /// It ran and an assertion failed.
    Failed,
    /// It did not run: skipped, ignored, pending or todo.
    Skipped,
    /// It failed, as it was marked to.
    Xfailed,
    /// It passed, though marked to fail.
    Xpassed,
    /// It could not run to an assertion: an error in setup, a hook, or the module's import.
    Errored,
}

impl TestOutcome {
    /// How bad the outcome is: a test reported twice keeps its worse report.
    ///
    /// A test is reported twice when two sources name it (pytest's XML and its summary
    /// lines; unittest's verbose line and its failure block) or when a subtest's failure is
    /// read as its parent's. pytest's XML shows an unexpected pass as a plain pass, so the
    /// summary line's `XPASS` has to win over it.
    fn severity(self) -> u8 {
        match self {
            TestOutcome::Passed => 0,
            TestOutcome::Xfailed => 1,
            TestOutcome::Skipped => 2,
            TestOutcome::Xpassed => 3,
            TestOutcome::Failed => 4,
            TestOutcome::Errored => 5,
        }
    }
}

/// The runners recognised.
///
/// Public because the attempt's public `TestSummary` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TestRunner {
    /// pytest, from its summary lines and JUnit XML.
    Pytest,
    /// Python's `unittest`.
    Unittest,
    /// Rust's libtest, as `cargo test` runs it.
    Libtest,
    /// `node --test`.
    NodeTest,
    /// mocha.
    Mocha,
    /// jest.
    Jest,
    /// vitest.
    Vitest,
    /// `go test`.
    GoTest,
}

/// What a check's output says about its tests.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub(crate) struct TestReport {
    /// Every runner whose output was recognised, in the order its output first appears (a
    /// check may run several: `make test` running pytest then cargo).
    pub(crate) runners: Vec<TestRunner>,
    /// Each test by a stable id, with its outcome; a test named twice keeps its worse
    /// outcome. pytest: the node id `file::Class::name`; unittest: `module.Class.test_x`;
    /// libtest: the name, prefixed by the test binary's source when cargo names it
    /// (`tests/sub.rs::it_works`); node: the subtest path `parent > name`; mocha: the title
    /// path; jest and vitest: the file and title path (`test/a.test.js > Calc > adds`); go:
    /// `pkg/TestX`, or `TestX` when no package line follows. Tests that only appear in
    /// counts are not here.
    pub(crate) tests: BTreeMap<String, TestOutcome>,
    /// The summary counts the runners printed, summed over runners: the only word on tests
    /// from runners that print only counts (unittest without `-v`, vitest's passing files,
    /// `go test` without `-v` prints none). Tests a runner names are counted here as well,
    /// when it prints a summary; deselected and filtered-out tests are not counted, and
    /// todo tests count as skipped.
    pub(crate) counts: BTreeMap<TestOutcome, usize>,
    /// Lines where the output itself says the run failed, the first few in output order,
    /// for the digest: a check whose exit code is 0 but whose output says this has failed.
    pub(crate) failure_claims: Vec<String>,
    /// The test binaries cargo says it ran (`src/lib.rs`, `tests/sub.rs`): cargo prints
    /// their names itself, so the code under test cannot take one out.
    pub(crate) binaries: BTreeSet<String>,
}

/// The most tests a report keeps; more are dropped, so a runaway output stays bounded.
pub(crate) const MAX_TESTS: usize = 100_000;

/// Lines longer than this are nobody's result line, so they are skipped unread.
const MAX_LINE: usize = 64 * 1024;

/// The most failure claims a report keeps, and the most each runner contributes.
const MAX_CLAIMS: usize = 8;

/// The most test binaries a report names.
const MAX_BINARIES: usize = 10_000;

/// The most characters kept of one failure claim.
const MAX_CLAIM_CHARS: usize = 200;

/// Reads a check's merged output (and the JUnit XML pytest wrote, when there is one).
pub(crate) fn read(output: &str, junit: Option<&str>) -> TestReport {
    let lines = clean_lines(output);
    let mut sink = Sink::default();
    pytest::read_pytest(&lines, junit, &mut sink);
    unittest::read_unittest(&lines, &mut sink);
    libtest::read_libtest(&lines, &mut sink);
    node_test::read_node_test(&lines, &mut sink);
    mocha::read_mocha(&lines, &mut sink);
    jest::read_jest(&lines, &mut sink);
    vitest::read_vitest(&lines, &mut sink);
    go_test::read_go_test(&lines, &mut sink);
    sink.finish()
}

/// The output's lines without line endings and colour codes, overlong lines left out.
///
/// vitest colours its output whenever `TERM` names a colour terminal, even into a pipe,
/// and a carriage return inside a line means the text before it was overwritten.
fn clean_lines(output: &str) -> Vec<Cow<'_, str>> {
    output
        .split('\n')
        .filter(|line| line.len() <= MAX_LINE)
        .map(|line| {
            let line = line.trim_end_matches('\r');
            let line = line.rsplit('\r').next().unwrap_or(line);
            strip_ansi(line)
        })
        .collect()
}

/// `line` without its ANSI escape sequences.
fn strip_ansi(line: &str) -> Cow<'_, str> {
    if !line.contains('\x1b') {
        return Cow::Borrowed(line);
    }
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\x1b' {
            out.push(c);
            continue;
        }
        match chars.next() {
            // A control sequence: parameters and intermediates, then one final byte.
            Some('[') => {
                for c in chars.by_ref() {
                    if ('\x40'..='\x7e').contains(&c) {
                        break;
                    }
                }
            }
            // An operating system command, ended by BEL or by ESC `\`.
            Some(']') => {
                while let Some(c) = chars.next() {
                    if c == '\x07' {
                        break;
                    }
                    if c == '\x1b' && chars.peek() == Some(&'\\') {
                        chars.next();
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    Cow::Owned(out)
}

/// Collects what the readers find, keeping every bound.
#[derive(Debug, Default)]
struct Sink {
    /// The tests found so far.
    tests: BTreeMap<String, TestOutcome>,
    /// The summary counts found so far.
    counts: BTreeMap<TestOutcome, usize>,
    /// Each runner recognised, with the first line it was recognised on.
    runners: Vec<(usize, TestRunner)>,
    /// Each failure claim with its line and runner.
    claims: Vec<(usize, TestRunner, String)>,
    /// The test binaries cargo named.
    binaries: BTreeSet<String>,
}

impl Sink {
    /// Notes that `runner`'s output appears at line `at`.
    fn saw(&mut self, runner: TestRunner, at: usize) {
        match self.runners.iter_mut().find(|(_, r)| *r == runner) {
            Some(entry) => entry.0 = entry.0.min(at),
            None => self.runners.push((at, runner)),
        }
    }

    /// Records one test, keeping the worse outcome of a test already recorded.
    fn test(&mut self, id: String, outcome: TestOutcome) {
        if let Some(old) = self.tests.get_mut(&id) {
            if outcome.severity() > old.severity() {
                *old = outcome;
            }
        } else if self.tests.len() < MAX_TESTS {
            self.tests.insert(id, outcome);
        }
    }

    /// Notes that cargo ran the test binary of `source`.
    fn binary(&mut self, source: &str) {
        if self.binaries.len() < MAX_BINARIES {
            self.binaries.insert(source.to_owned());
        }
    }

    /// Adds `n` to the count of `outcome`.
    fn count(&mut self, outcome: TestOutcome, n: usize) {
        let total = self.counts.entry(outcome).or_default();
        *total = total.saturating_add(n);
    }

    /// Records line `at`, `text`, as `runner`'s claim that the run failed.
    fn claim(&mut self, runner: TestRunner, at: usize, text: &str) {
        let own = self.claims.iter().filter(|(_, r, _)| *r == runner).count();
        if own < MAX_CLAIMS {
            let text: String = text.trim().chars().take(MAX_CLAIM_CHARS).collect();
            self.claims.push((at, runner, text));
        }
    }

    /// The report, runners and claims in output order.
    fn finish(mut self) -> TestReport {
        self.runners.sort_by_key(|(at, _)| *at);
        self.claims.sort_by_key(|(at, _, _)| *at);
        TestReport {
            runners: self.runners.into_iter().map(|(_, r)| r).collect(),
            tests: self.tests,
            counts: self.counts.into_iter().filter(|(_, n)| *n > 0).collect(),
            failure_claims: self
                .claims
                .into_iter()
                .take(MAX_CLAIMS)
                .map(|(_, _, text)| text)
                .collect(),
            binaries: self.binaries,
        }
    }
}

/// Looks `key` up in a sorted table of pairs.
fn lookup<T: Copy>(table: &[(&str, T)], key: &str) -> Option<T> {
    table
        .binary_search_by(|(k, _)| k.cmp(&key))
        .ok()
        .map(|i| table[i].1)
}

/// `text` as a count, when it is all ASCII digits.
fn number(text: &str) -> Option<usize> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// Reads a list of `N word` counts split by `sep`, each word looked up in `table`; `None`
/// when a part has another shape. Words the table maps to `None` are known but counted
/// nowhere.
fn word_counts(
    text: &str,
    sep: &str,
    table: &[(&'static str, Option<TestOutcome>)],
) -> Option<Vec<(&'static str, Option<TestOutcome>, usize)>> {
    let mut found = Vec::new();
    for part in text.split(sep) {
        let (n, word) = part.trim().split_once(' ')?;
        let n = number(n)?;
        let i = table.binary_search_by(|(k, _)| k.cmp(&word)).ok()?;
        found.push((table[i].0, table[i].1, n));
    }
    Some(found)
}

/// The number of leading spaces of `line`.
fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// The title of a rule line such as `===== short test summary info =====`, made of `ch`.
fn rule_title(line: &str, ch: char) -> Option<&str> {
    let inner = line.strip_prefix(ch)?.strip_suffix(ch)?;
    Some(inner.trim_matches(ch).trim())
}

/// `title` without a trailing duration such as ` (61ms)`: `open`, digits (and a dot),
/// then `close`.
fn strip_duration<'a>(title: &'a str, close: &str, open: &str) -> &'a str {
    let Some(rest) = title.strip_suffix(close) else {
        return title;
    };
    let Some((head, digits)) = rest.rsplit_once(open) else {
        return title;
    };
    let digits = digits.trim_end();
    let timed = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit() || b == b'.');
    if timed { head } else { title }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    use super::TestOutcome::Passed;
    use super::TestRunner::{GoTest, Jest, Libtest, Mocha, NodeTest, Pytest, Unittest, Vitest};

    /// A report from its parts.
    pub(super) fn report(
        runners: &[TestRunner],
        tests: &[(&str, TestOutcome)],
        counts: &[(TestOutcome, usize)],
        claims: &[&str],
    ) -> TestReport {
        TestReport {
            runners: runners.to_vec(),
            tests: tests.iter().map(|(id, o)| ((*id).to_owned(), *o)).collect(),
            counts: counts.iter().copied().collect(),
            failure_claims: claims.iter().map(|c| (*c).to_owned()).collect(),
            ..TestReport::default()
        }
    }

    impl TestReport {
        /// The report with the test binaries cargo named.
        pub(super) fn ran(mut self, binaries: &[&str]) -> Self {
            self.binaries = binaries.iter().map(|b| (*b).to_owned()).collect();
            self
        }
    }

    #[track_caller]
    pub(super) fn case(output: &str, junit: Option<&str>, expected: TestReport) {
        assert_eq!(read(output, junit), expected);
    }

    /// Asserts that a table's keys are sorted and without repeats.
    #[track_caller]
    pub(super) fn sorted(name: &str, keys: Vec<&str>) {
        let mut want = keys.clone();
        want.sort_unstable();
        want.dedup();
        assert_eq!(
            keys, want,
            "keep {name} sorted (and without repeats): lookups search it by halves"
        );
    }

    /// The keys of a lookup table.
    pub(super) fn keys<T>(table: &[(&'static str, T)]) -> Vec<&'static str> {
        table.iter().map(|(k, _)| *k).collect()
    }

    #[test]
    fn output_mixing_two_runners_gives_both() {
        let output = format!(
            "noise: ok 1 - not tap\n{}\n$ cargo test\n{}\nPASSED tests/x.py::nope\n",
            sample!("pytest-mixed.txt"),
            sample!("cargo-ignored.txt"),
        );
        let got = read(&output, None);
        assert_eq!(got.runners, [Pytest, Libtest]);
        let from = |prefix: &str| got.tests.keys().filter(|id| id.starts_with(prefix)).count();
        assert_eq!(
            (
                from("tests/test_mixed.py::"),
                from("src/lib.rs::"),
                got.tests.len()
            ),
            (8, 4, 12)
        );
        assert_eq!(got.counts.get(&Passed), Some(&5));
        // The libtest sample first, then mocha's: both, in output order.
        let output = format!(
            "{}{}",
            sample!("cargo-ignored.txt"),
            sample!("mocha-spec-pending.txt")
        );
        assert_eq!(read(&output, None).runners, [Libtest, Mocha]);
    }

    #[test]
    fn no_sample_is_read_as_another_runner() {
        let samples: &[(&str, &str, &[TestRunner])] = &[
            (
                "cargo-compile-error",
                sample!("cargo-compile-error.txt"),
                &[],
            ),
            ("cargo-ignored", sample!("cargo-ignored.txt"), &[Libtest]),
            ("cargo-mixed", sample!("cargo-mixed.txt"), &[Libtest]),
            ("go-test", sample!("go-test-documented.txt"), &[GoTest]),
            (
                "go-test-v",
                sample!("go-test-v-fail-documented.txt"),
                &[GoTest],
            ),
            (
                "jest-summary-fail",
                sample!("jest-summary-fail.txt"),
                &[Jest],
            ),
            (
                "jest-summary-skip",
                sample!("jest-summary-skip.txt"),
                &[Jest],
            ),
            (
                "jest-verbose-console",
                sample!("jest-verbose-console.txt"),
                &[Jest],
            ),
            (
                "jest-verbose-fail",
                sample!("jest-verbose-fail.txt"),
                &[Jest],
            ),
            (
                "mocha-import-error",
                sample!("mocha-import-error.txt"),
                &[Mocha],
            ),
            ("mocha-spec-fail", sample!("mocha-spec-fail.txt"), &[Mocha]),
            (
                "mocha-spec-pending",
                sample!("mocha-spec-pending.txt"),
                &[Mocha],
            ),
            (
                "node-tap-escape",
                sample!("node-tap-escape.txt"),
                &[NodeTest],
            ),
            ("node-tap-mixed", sample!("node-tap-mixed.txt"), &[NodeTest]),
            ("node-tap-skip", sample!("node-tap-skip.txt"), &[NodeTest]),
            (
                "pytest-collect-error",
                sample!("pytest-collect-error.txt"),
                &[Pytest],
            ),
            (
                "pytest-default-fail",
                sample!("pytest-default-fail.txt"),
                &[Pytest],
            ),
            (
                "pytest-deselected-pass",
                sample!("pytest-deselected-pass.txt"),
                &[Pytest],
            ),
            ("pytest-mixed", sample!("pytest-mixed.txt"), &[Pytest]),
            (
                "unittest-plain-fail",
                sample!("unittest-plain-fail.txt"),
                &[Unittest],
            ),
            (
                "unittest-plain-ok",
                sample!("unittest-plain-ok.txt"),
                &[Unittest],
            ),
            (
                "unittest-verbose-fail",
                sample!("unittest-verbose-fail.txt"),
                &[Unittest],
            ),
            (
                "unittest-verbose-py310",
                sample!("unittest-verbose-py310.txt"),
                &[Unittest],
            ),
            (
                "unittest-verbose-subtests-py310",
                sample!("unittest-verbose-subtests-py310.txt"),
                &[Unittest],
            ),
            (
                "unittest-verbose-subtests-py312",
                sample!("unittest-verbose-subtests-py312.txt"),
                &[Unittest],
            ),
            (
                "vitest-nocolor-fail",
                sample!("vitest-nocolor-fail.txt"),
                &[Vitest],
            ),
            ("vitest-summary", sample!("vitest-summary.txt"), &[Vitest]),
            (
                "vitest-summary-fail",
                sample!("vitest-summary-fail.txt"),
                &[Vitest],
            ),
            (
                "go-test-1.27.3-mixed",
                sample!("go-test-1.27.3-mixed.txt"),
                &[GoTest],
            ),
            (
                "go-test-1.27.3-v-cached",
                sample!("go-test-1.27.3-v-cached.txt"),
                &[GoTest],
            ),
            (
                "go-test-1.27.3-v-mixed",
                sample!("go-test-1.27.3-v-mixed.txt"),
                &[GoTest],
            ),
            (
                "jest-27.5.1-one-file",
                sample!("jest-27.5.1-one-file.txt"),
                &[Jest],
            ),
            (
                "jest-27.5.1-two-files",
                sample!("jest-27.5.1-two-files.txt"),
                &[Jest],
            ),
            (
                "jest-29.7.0-one-file",
                sample!("jest-29.7.0-one-file.txt"),
                &[Jest],
            ),
            (
                "jest-29.7.0-two-files",
                sample!("jest-29.7.0-two-files.txt"),
                &[Jest],
            ),
            (
                "jest-30.5.2-one-file",
                sample!("jest-30.5.2-one-file.txt"),
                &[Jest],
            ),
            (
                "jest-30.5.2-two-files",
                sample!("jest-30.5.2-two-files.txt"),
                &[Jest],
            ),
            (
                "libtest-1.95.0-mixed",
                sample!("libtest-1.95.0-mixed.txt"),
                &[Libtest],
            ),
            (
                "libtest-1.95.0-nocapture-one-thread",
                sample!("libtest-1.95.0-nocapture-one-thread.txt"),
                &[Libtest],
            ),
            (
                "libtest-1.95.0-nocapture",
                sample!("libtest-1.95.0-nocapture.txt"),
                &[Libtest],
            ),
            (
                "mocha-10.8.2-spec-mixed",
                sample!("mocha-10.8.2-spec-mixed.txt"),
                &[Mocha],
            ),
            (
                "mocha-11.8.0-spec-mixed",
                sample!("mocha-11.8.0-spec-mixed.txt"),
                &[Mocha],
            ),
            (
                "mocha-6.2.3-spec-mixed",
                sample!("mocha-6.2.3-spec-mixed.txt"),
                &[Mocha],
            ),
            (
                "mocha-8.4.0-spec-mixed",
                sample!("mocha-8.4.0-spec-mixed.txt"),
                &[Mocha],
            ),
            (
                "node-20.20.2-test-mixed",
                sample!("node-20.20.2-test-mixed.txt"),
                &[NodeTest],
            ),
            (
                "node-22.23.5-test-mixed",
                sample!("node-22.23.5-test-mixed.txt"),
                &[NodeTest],
            ),
            (
                "node-24.22.3-test-spec-mixed",
                sample!("node-24.22.3-test-spec-mixed.txt"),
                &[],
            ),
            (
                "pytest-7.0.1-rA-full",
                sample!("pytest-7.0.1-rA-full.txt"),
                &[Pytest],
            ),
            (
                "pytest-7.4.4-rA-full",
                sample!("pytest-7.4.4-rA-full.txt"),
                &[Pytest],
            ),
            (
                "pytest-8.4.2-rA-full",
                sample!("pytest-8.4.2-rA-full.txt"),
                &[Pytest],
            ),
            (
                "pytest-7.4.4-rA-mixed",
                sample!("pytest-7.4.4-rA-mixed.txt"),
                &[Pytest],
            ),
            (
                "pytest-8.4.2-rA-mixed",
                sample!("pytest-8.4.2-rA-mixed.txt"),
                &[Pytest],
            ),
            (
                "pytest-9.2.0-rA-mixed",
                sample!("pytest-9.2.0-rA-mixed.txt"),
                &[Pytest],
            ),
            (
                "vitest-1.6.1-one-file",
                sample!("vitest-1.6.1-one-file.txt"),
                &[Vitest],
            ),
            (
                "vitest-1.6.1-two-files",
                sample!("vitest-1.6.1-two-files.txt"),
                &[Vitest],
            ),
            (
                "vitest-2.1.9-one-file",
                sample!("vitest-2.1.9-one-file.txt"),
                &[Vitest],
            ),
            (
                "vitest-2.1.9-two-files",
                sample!("vitest-2.1.9-two-files.txt"),
                &[Vitest],
            ),
            (
                "vitest-3.2.7-nested",
                sample!("vitest-3.2.7-nested.txt"),
                &[Vitest],
            ),
            (
                "vitest-3.2.7-one-file",
                sample!("vitest-3.2.7-one-file.txt"),
                &[Vitest],
            ),
            (
                "vitest-3.2.7-two-files",
                sample!("vitest-3.2.7-two-files.txt"),
                &[Vitest],
            ),
            (
                "vitest-4.1.12-nested",
                sample!("vitest-4.1.12-nested.txt"),
                &[Vitest],
            ),
            (
                "vitest-4.1.12-one-file",
                sample!("vitest-4.1.12-one-file.txt"),
                &[Vitest],
            ),
            (
                "vitest-4.1.12-two-files",
                sample!("vitest-4.1.12-two-files.txt"),
                &[Vitest],
            ),
            (
                "vitest-5.1.2-nested",
                sample!("vitest-5.1.2-nested.txt"),
                &[Vitest],
            ),
            (
                "vitest-5.1.2-one-file",
                sample!("vitest-5.1.2-one-file.txt"),
                &[Vitest],
            ),
            (
                "vitest-5.1.2-two-files",
                sample!("vitest-5.1.2-two-files.txt"),
                &[Vitest],
            ),
            (
                "jest-27.5.1-one-file-todo",
                sample!("jest-27.5.1-one-file-todo.txt"),
                &[Jest],
            ),
            (
                "jest-27.5.1-three-files-import-error",
                sample!("jest-27.5.1-three-files-import-error.txt"),
                &[Jest],
            ),
            (
                "jest-29.7.0-one-file-todo",
                sample!("jest-29.7.0-one-file-todo.txt"),
                &[Jest],
            ),
            (
                "jest-29.7.0-three-files-import-error",
                sample!("jest-29.7.0-three-files-import-error.txt"),
                &[Jest],
            ),
            (
                "jest-30.5.2-one-file-todo",
                sample!("jest-30.5.2-one-file-todo.txt"),
                &[Jest],
            ),
            (
                "jest-30.5.2-three-files-import-error",
                sample!("jest-30.5.2-three-files-import-error.txt"),
                &[Jest],
            ),
            (
                "mocha-10.8.2-spec-hooks",
                sample!("mocha-10.8.2-spec-hooks.txt"),
                &[Mocha],
            ),
            (
                "mocha-11.8.0-spec-hooks",
                sample!("mocha-11.8.0-spec-hooks.txt"),
                &[Mocha],
            ),
            (
                "mocha-6.2.3-spec-hooks",
                sample!("mocha-6.2.3-spec-hooks.txt"),
                &[Mocha],
            ),
            (
                "mocha-8.4.0-spec-hooks",
                sample!("mocha-8.4.0-spec-hooks.txt"),
                &[Mocha],
            ),
            (
                "vitest-1.6.1-three-files-import-error",
                sample!("vitest-1.6.1-three-files-import-error.txt"),
                &[Vitest],
            ),
            (
                "vitest-2.1.9-three-files-import-error",
                sample!("vitest-2.1.9-three-files-import-error.txt"),
                &[Vitest],
            ),
            (
                "vitest-3.2.7-three-files-import-error",
                sample!("vitest-3.2.7-three-files-import-error.txt"),
                &[Vitest],
            ),
            (
                "vitest-4.1.12-three-files-import-error",
                sample!("vitest-4.1.12-three-files-import-error.txt"),
                &[Vitest],
            ),
            (
                "vitest-5.1.2-three-files-import-error",
                sample!("vitest-5.1.2-three-files-import-error.txt"),
                &[Vitest],
            ),
        ];
        for (name, output, runners) in samples {
            assert_eq!(read(output, None).runners, *runners, "{name}");
        }
        // Every sample after every other reads as the two apart: the same runners in
        // order and, for two runners, the same tests.
        for (first, before, a) in samples {
            for (second, after, b) in samples {
                let both = read(&format!("{before}\n{after}"), None);
                let mut want = a.to_vec();
                want.extend(b.iter().filter(|r| !a.contains(r)));
                assert_eq!(both.runners, want, "{first} then {second}");
                if a.iter().all(|r| !b.contains(r)) {
                    let mut tests = read(before, None).tests;
                    tests.extend(read(after, None).tests);
                    assert_eq!(both.tests, tests, "{first} then {second}");
                }
            }
        }
    }

    #[test]
    fn reports_keep_their_bounds() {
        let mut output = String::from("running 100001 tests\n");
        for i in 0..=MAX_TESTS {
            output.push_str(&format!("test t{i} ... FAILED\n"));
        }
        output.push_str(&format!("test {} ... ok\n", "x".repeat(MAX_LINE)));
        output.push_str(&"test result: FAILED. 0 passed; 100001 failed; 0 ignored; 0 measured; 0 filtered out; finished in 1.00s\n".repeat(20));
        let got = read(&output, None);
        assert_eq!(got.tests.len(), MAX_TESTS);
        assert!(!got.tests.contains_key(&"x".repeat(MAX_LINE)));
        assert_eq!(
            got.failure_claims.len(),
            1,
            "one `test result` is counted, once `running` is over"
        );
        let claims = "--- FAIL: TestX (0.00s)\n".repeat(20);
        assert_eq!(read(&claims, None).failure_claims.len(), MAX_CLAIMS);
    }

    /// Lines from every sample, to build outputs that reach deep into the readers.
    fn sample_lines() -> Vec<&'static str> {
        [
            sample!("cargo-mixed.txt"),
            sample!("go-test-v-fail-documented.txt"),
            sample!("jest-verbose-fail.txt"),
            sample!("mocha-spec-fail.txt"),
            sample!("node-tap-mixed.txt"),
            sample!("pytest-mixed.txt"),
            sample!("unittest-verbose-py310.txt"),
            sample!("vitest-summary-fail.txt"),
            sample!("go-test-1.27.3-v-mixed.txt"),
            sample!("libtest-1.95.0-nocapture-one-thread.txt"),
            sample!("mocha-6.2.3-spec-hooks.txt"),
            sample!("node-24.22.3-test-spec-mixed.txt"),
            sample!("pytest-7.0.1-rA-full.txt"),
            sample!("vitest-5.1.2-three-files-import-error.txt"),
        ]
        .iter()
        .flat_map(|s| s.lines())
        .collect()
    }

    proptest! {
        /// Property: any text reads to a report without panicking, and at most 100,000 tests.
        #[test]
        fn any_text_reads_to_a_bounded_report(
            parts in prop::collection::vec(
                prop_oneof![prop::sample::select(sample_lines()).prop_map(str::to_owned), "\\PC{0,40}"],
                0..60,
            ),
            junit in prop::option::of("(<testcase name='[a-z&;#0-9]{0,6}'>|</testcase>|<skipped/>|<!--|\\PC{0,8}){0,12}"),
        ) {
            let got = read(&parts.join("\n"), junit.as_deref());
            prop_assert!(got.tests.len() <= MAX_TESTS);
            prop_assert!(got.failure_claims.len() <= MAX_CLAIMS);
        }
    }
}
