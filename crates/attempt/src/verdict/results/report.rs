//! What the readers make of a check's output: the report, its bounds, the [`Sink`] every
//! reader writes to, and the small parsers of counts and rules they share.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

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
    pub(super) fn severity(self) -> u8 {
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
pub enum TestFramework {
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
    pub(crate) runners: Vec<TestFramework>,
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
    /// The test files the runner named as it ran them (jest's `PASS file` and `FAIL file`
    /// heads, vitest's file lines), with the count of tests it printed beside one where it
    /// does (vitest's `✓ test/a.test.js (3 tests)`): the word on which files ran from a
    /// runner that names no passing test.
    pub(crate) files: BTreeMap<String, Option<usize>>,
    /// The line where a runner says it stopped at a failure before running every test
    /// (pytest's `stopping after 1 failures` and `Interrupted: Test failed, continuing from
    /// this test next run.`, vitest's `Test Files` that ran fewer files than it found): a
    /// stop the check could not undo, which hid the tests after it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) stopped: Option<String>,
}

/// The most tests a report keeps; more are dropped, so a runaway output stays bounded.
pub(crate) const MAX_TESTS: usize = 100_000;

/// Lines longer than this are nobody's result line, so they are skipped unread.
pub(super) const MAX_LINE: usize = 64 * 1024;

/// The most failure claims a report keeps, and the most each runner contributes.
pub(super) const MAX_CLAIMS: usize = 8;

/// The most test binaries a report names.
pub(super) const MAX_BINARIES: usize = 10_000;

/// The most characters kept of one failure claim.
pub(super) const MAX_CLAIM_CHARS: usize = 200;

/// Collects what the readers find, keeping every bound.
#[derive(Debug, Default)]
pub(super) struct Sink {
    /// The tests found so far.
    pub(super) tests: BTreeMap<String, TestOutcome>,
    /// The summary counts found so far.
    pub(super) counts: BTreeMap<TestOutcome, usize>,
    /// Each runner recognised, with the first line it was recognised on.
    pub(super) runners: Vec<(usize, TestFramework)>,
    /// Each failure claim with its line and runner.
    pub(super) claims: Vec<(usize, TestFramework, String)>,
    /// The test binaries cargo named.
    pub(super) binaries: BTreeSet<String>,
    /// The test files named as run, with their test counts.
    pub(super) files: BTreeMap<String, Option<usize>>,
    /// The first line saying a runner stopped at a failure.
    pub(super) stopped: Option<String>,
}

impl Sink {
    /// Notes that `runner`'s output appears at line `at`.
    pub(super) fn saw(&mut self, runner: TestFramework, at: usize) {
        match self.runners.iter_mut().find(|(_, r)| *r == runner) {
            Some(entry) => entry.0 = entry.0.min(at),
            None => self.runners.push((at, runner)),
        }
    }

    /// Records one test, keeping the worse outcome of a test already recorded.
    pub(super) fn test(&mut self, id: String, outcome: TestOutcome) {
        if let Some(old) = self.tests.get_mut(&id) {
            if outcome.severity() > old.severity() {
                *old = outcome;
            }
        } else if self.tests.len() < MAX_TESTS {
            self.tests.insert(id, outcome);
        }
    }

    /// Notes that cargo ran the test binary of `source`.
    pub(super) fn binary(&mut self, source: &str) {
        if self.binaries.len() < MAX_BINARIES {
            self.binaries.insert(source.to_owned());
        }
    }

    /// Notes that the runner ran the test file `path`, with `count` tests where it says.
    pub(super) fn file(&mut self, path: &str, count: Option<usize>) {
        if let Some(old) = self.files.get_mut(path) {
            *old = (*old).max(count);
        } else if self.files.len() < MAX_BINARIES {
            self.files.insert(path.to_owned(), count);
        }
    }

    /// Notes that a runner stopped at a failure, as `text` says, unless one did before.
    pub(super) fn stopped(&mut self, text: &str) {
        if self.stopped.is_none() {
            self.stopped = Some(text.trim().chars().take(MAX_CLAIM_CHARS).collect());
        }
    }

    /// Adds `n` to the count of `outcome`.
    pub(super) fn count(&mut self, outcome: TestOutcome, n: usize) {
        let total = self.counts.entry(outcome).or_default();
        *total = total.saturating_add(n);
    }

    /// Records line `at`, `text`, as `runner`'s claim that the run failed.
    pub(super) fn claim(&mut self, runner: TestFramework, at: usize, text: &str) {
        let own = self.claims.iter().filter(|(_, r, _)| *r == runner).count();
        if own < MAX_CLAIMS {
            let text: String = text.trim().chars().take(MAX_CLAIM_CHARS).collect();
            self.claims.push((at, runner, text));
        }
    }

    /// The report, runners and claims in output order.
    pub(super) fn finish(mut self) -> TestReport {
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
            files: self.files,
            stopped: self.stopped,
        }
    }
}

/// Looks `key` up in a sorted table of pairs.
pub(super) fn lookup<T: Copy>(table: &[(&str, T)], key: &str) -> Option<T> {
    table
        .binary_search_by(|(k, _)| k.cmp(&key))
        .ok()
        .map(|i| table[i].1)
}

/// `text` as a count, when it is all ASCII digits.
pub(super) fn number(text: &str) -> Option<usize> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// Reads a list of `N word` counts split by `sep`, each word looked up in `table`; `None`
/// when a part has another shape. Words the table maps to `None` are known but counted
/// nowhere.
pub(super) fn word_counts(
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
pub(super) fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// The title of a rule line such as `===== short test summary info =====`, made of `ch`.
pub(super) fn rule_title(line: &str, ch: char) -> Option<&str> {
    let inner = line.strip_prefix(ch)?.strip_suffix(ch)?;
    Some(inner.trim_matches(ch).trim())
}

/// `title` without a trailing duration such as ` (61ms)`: `open`, digits (and a dot),
/// then `close`.
pub(super) fn strip_duration<'a>(title: &'a str, close: &str, open: &str) -> &'a str {
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
