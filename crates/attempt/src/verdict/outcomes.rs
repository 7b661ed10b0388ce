//! Judging a check by its tests' own results (invariant 9 of `docs/design/verdict.md`), against
//! the baseline (invariant 10). For a runner speccoder recognises, every test that ran at
//! the base (passed or failed) and every withheld and acceptance test must run and pass
//! now; a failing test at the base is what the task is for, never an excuse. The one
//! excuse is the user's word: `[attempt] known_failures`. A test in a frozen file that was
//! skipped at the base may stay skipped. An unrecognised runner keeps the exit-code rule.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::results::{TestFramework, TestOutcome, TestReport};
use crate::shared::declared::{HOLE, Naming, matches_title};
use crate::shared::{Declared, KnownFailures, Rule, TestSummary};

/// Test ids named in a summary at most, per list; the count says how many there were.
const MAX_NAMED: usize = 50;

/// How a withheld test's entry in a summary starts: the digest an agent reads leaves
/// these out (their ids may hold the hidden inputs and answers) and counts them.
pub(crate) const WITHHELD_MARK: &str = "(withheld) ";

/// The test files the task brings: each of their tests must run and pass.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct NewTests<'a> {
    /// The acceptance tests, which the agent reads.
    pub(crate) acceptance: &'a [String],
    /// The withheld tests, which it must not.
    pub(crate) withheld: &'a [String],
    /// The op at the base without the withheld tests, when there are some: a test it does
    /// not run is withheld (or cannot be told from one), and the digest does not name it;
    /// a test it runs is an old one, even in a withheld file.
    pub(crate) without_withheld: Option<&'a BaseTests>,
    /// What the withheld and acceptance files declare: the ids of their tests where the
    /// runner's ids do not name the file (Go, node, mocha).
    pub(crate) declared: Option<&'a Declared>,
}

impl<'a> NewTests<'a> {
    /// Whether `id` comes from one of `files`: its id names the file, or the file declares
    /// it.
    fn in_files(&self, id: &str, files: &[String]) -> bool {
        from_files(id, files) || self.declared.is_some_and(|d| d.owned_by(id, files))
    }

    /// The withheld and acceptance files.
    fn files(&self) -> impl Iterator<Item = &'a String> + use<'a> {
        self.acceptance.iter().chain(self.withheld.iter())
    }

    /// The withheld and acceptance files that tests of `report` come from. A runner that
    /// counts passes it does not name (jest and vitest over several files) names each
    /// file it ran: those count as run. One that names no file either (unittest without
    /// `-v`) may have run any of them: each counts as run, and the counts judge it.
    pub(crate) fn files_ran(&self, report: &TestReport) -> BTreeSet<String> {
        let named = report.tests.values().filter(|o| passing(**o)).count();
        if count(&report.counts, passing) > named {
            if !names_files(report) {
                return self.files().cloned().collect();
            }
            return self
                .files()
                .filter(|file| {
                    let one = std::slice::from_ref(*file);
                    report.files.keys().any(|f| same_file(f, file))
                        || report.tests.keys().any(|id| self.in_files(id, one))
                })
                .cloned()
                .collect();
        }
        self.files()
            .filter(|file| {
                let one = std::slice::from_ref(*file);
                report.tests.keys().any(|id| self.in_files(id, one))
            })
            .cloned()
            .collect()
    }

    /// The file whose failure to load `id` reports: the id is a withheld or acceptance
    /// file's path (node and jest name a file that could not load so).
    fn file_of_file_level(&self, id: &str) -> Option<&'a String> {
        self.files()
            .find(|f| id == f.as_str() || id.ends_with(&format!("/{f}")))
    }

    /// The ids read from the withheld and acceptance files' source that a check with
    /// `runners` must run: those of a file the check reached (one of its tests, or its
    /// Go package, in `seen`), by a runner whose ids they are.
    fn declared_ids<'k>(
        &self,
        runners: &[TestFramework],
        seen: impl Iterator<Item = &'k String> + Clone,
    ) -> Vec<&'a String> {
        let Some(declared) = self.declared else {
            return Vec::new();
        };
        let mut ids = Vec::new();
        for file in self.files().filter_map(|p| declared.file(p)) {
            let runs = match file.naming {
                Naming::Go => runners.contains(&TestFramework::GoTest),
                Naming::Titles => runners
                    .iter()
                    .any(|r| matches!(r, TestFramework::NodeTest | TestFramework::Mocha)),
                Naming::File => false,
            };
            let reached = || {
                seen.clone().any(|id| {
                    file.owns(id)
                        || file.same_package(id)
                        || id == &file.path
                        || id.ends_with(&format!("/{}", file.path))
                })
            };
            if runs && reached() {
                ids.extend(file.literal_ids());
            }
        }
        ids
    }

    /// The titles the withheld and acceptance files declare that too few tests of a check
    /// answer (invariant 10): a title with holes (a `.each` table, a template, a loop's
    /// `+`) names as many tests as its rows, so it must match at least one test now and
    /// no fewer than at the base; under jest and vitest, whose ids name the file, every
    /// title read, with or without holes. Only for a file the check reached (`tests_now`
    /// or `tests_at_base` has a test of it), by `runners` whose ids the titles are.
    fn titles_not_run(
        &self,
        runners: &[TestFramework],
        tests_now: &BTreeMap<String, TestOutcome>,
        tests_at_base: &BTreeMap<String, TestOutcome>,
    ) -> Vec<String> {
        let Some(declared) = self.declared else {
            return Vec::new();
        };
        let bare = runners
            .iter()
            .any(|r| matches!(r, TestFramework::NodeTest | TestFramework::Mocha));
        let prefixed = runners
            .iter()
            .any(|r| matches!(r, TestFramework::Jest | TestFramework::Vitest));
        let mut missing = Vec::new();
        for file in self.files().filter_map(|p| declared.file(p)) {
            if file.naming != Naming::Titles || !(bare || prefixed) {
                continue;
            }
            let one = std::slice::from_ref(&file.path);
            // A test of the file, by a runner of either naming.
            let of_file = |id: &str| (prefixed && from_files(id, one)) || (bare && file.owns(id));
            if !tests_now
                .keys()
                .chain(tests_at_base.keys())
                .any(|id| of_file(id))
            {
                continue;
            }
            let mark = if self.withheld.contains(&file.path) {
                WITHHELD_MARK
            } else {
                ""
            };
            for title in &file.ids {
                let holes = title.contains(HOLE);
                if !holes && !prefixed {
                    continue;
                }
                let answers = |id: &str| {
                    (bare && holes && matches_title(title, id))
                        || (prefixed
                            && from_files(id, one)
                            && matches_title(&format!("{HOLE} > {title}"), id))
                };
                let now = tests_now.keys().filter(|id| answers(id)).count();
                let at_base = tests_at_base.keys().filter(|id| answers(id)).count();
                // A title under a condition the source cannot settle (`if (process.platform
                // === 'win32')`) need not run where the base did not run it either.
                let least = if file.is_conditional(title) {
                    at_base
                } else {
                    at_base.max(1)
                };
                if now < least {
                    let shown = title.replace(HOLE, "*");
                    let what = if holes { "tests of the title" } else { "test" };
                    missing.push(format!(
                        "{mark}`{shown}` ({}): {now} {what} ran, {least} required",
                        file.path,
                    ));
                }
            }
        }
        missing
    }

    /// Where a runner counts passes without naming them but prints each file's count
    /// (vitest), the withheld and acceptance files it ran with fewer tests than their
    /// titles name (each title read answers one test at least) or than at the base.
    fn file_counts_short(
        &self,
        files_now: &BTreeMap<String, Option<usize>>,
        files_at_base: &BTreeMap<String, Option<usize>>,
    ) -> Vec<String> {
        let Some(declared) = self.declared else {
            return Vec::new();
        };
        let mut short = Vec::new();
        for file in self.files().filter_map(|p| declared.file(p)) {
            if file.naming != Naming::Titles {
                continue;
            }
            let count_in = |files: &BTreeMap<String, Option<usize>>| {
                files
                    .iter()
                    .find(|(f, _)| same_file(f, &file.path))
                    .and_then(|(_, n)| *n)
            };
            let Some(now) = count_in(files_now) else {
                continue;
            };
            let unconditional = file.ids.len().saturating_sub(file.conditional.len());
            let need = unconditional.max(count_in(files_at_base).unwrap_or(0));
            if now < need {
                let mark = if self.withheld.contains(&file.path) {
                    WITHHELD_MARK
                } else {
                    ""
                };
                short.push(format!(
                    "{mark}`{}`: {now} tests ran, {need} required (one a title it declares at least, and as many as at the base)",
                    file.path
                ));
            }
        }
        short
    }

    /// Whether `id` is withheld, or cannot be told from a withheld test.
    fn withheld(&self, id: &str) -> bool {
        if self.withheld.is_empty() || self.in_files(id, self.acceptance) {
            return false;
        }
        // `#02` of a withheld file's test is a position in the withheld version: the visible
        // test of that id may be another case, which passes. And a test of the withheld
        // version failing where the visible one passed is the withheld version's failure.
        if self.declared.is_some_and(|d| d.owned_by(id, self.withheld))
            && (index_named(id)
                || self
                    .without_withheld
                    .and_then(|v| v.tests.get(id))
                    .is_some_and(|o| passing(*o)))
        {
            return true;
        }
        match self.without_withheld {
            Some(visible) => !visible.tests.contains_key(id),
            None => true,
        }
    }

    /// Whether `id` is a test the task brings: an acceptance test, or a withheld one,
    /// which the base runs only with the withheld tests in place (`base`), or which comes
    /// from a withheld file and the base's visible tests do not have. A test that ran in
    /// neither run at the base (a runner stopped before it) is not known to be new.
    pub(crate) fn is_new(&self, id: &str, base: Option<&BaseTests>) -> bool {
        if self.in_files(id, self.acceptance) {
            return true;
        }
        if self.withheld.is_empty() {
            return false;
        }
        match self.without_withheld {
            Some(visible) => {
                !visible.tests.contains_key(id)
                    && (self.in_files(id, self.withheld)
                        || base.is_some_and(|b| b.tests.contains_key(id)))
            }
            None => self.in_files(id, self.withheld),
        }
    }

    /// Whether `id` is required only because its file declares it: its id does not name
    /// the file (`go test`'s, node's and mocha's).
    fn declared_only(&self, id: &str) -> bool {
        let files: Vec<String> = self.files().cloned().collect();
        !from_files(id, &files) && self.declared.is_some_and(|d| d.owned_by(id, &files))
    }

    /// Whether `id` comes from a withheld or acceptance file.
    pub(crate) fn required(&self, id: &str) -> bool {
        self.in_files(id, self.acceptance) || self.in_files(id, self.withheld)
    }

    /// `id` as a summary names it: marked when withheld.
    fn named(&self, id: &str, what: &str) -> String {
        let mark = if self.withheld(id) { WITHHELD_MARK } else { "" };
        format!("{mark}`{id}` {what}")
    }
}

/// One check of the baseline: how its tests ended at the base.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct BaseTests {
    /// The op.
    pub(crate) op: String,
    /// Its exit code at the base.
    pub(crate) exit_code: Option<i32>,
    /// Each test's outcome at the base.
    pub(crate) tests: BTreeMap<String, TestOutcome>,
    /// The counts at the base.
    pub(crate) counts: BTreeMap<TestOutcome, usize>,
    /// The runners recognised at the base: one that prints nothing now ended early.
    #[serde(default)]
    pub(crate) runners: Vec<TestFramework>,
    /// The files where the base's run reported the known answer speccoder added (invariant
    /// 11): a run that ends well must report it there again.
    #[serde(default)]
    pub(crate) known_places: BTreeSet<String>,
    /// Whether the runner reported a known answer the wrong way at the base itself.
    #[serde(default)]
    pub(crate) known_misread: bool,
    /// The test files the runner named as run at the base, with their test counts.
    #[serde(default)]
    pub(crate) files: BTreeMap<String, Option<usize>>,
}

impl BaseTests {
    /// The baseline entry of `op` from its report.
    pub(crate) fn of(op: &str, exit_code: Option<i32>, report: &TestReport) -> Self {
        Self {
            op: op.to_owned(),
            exit_code,
            tests: report.tests.clone(),
            counts: report.counts.clone(),
            runners: report.runners.clone(),
            files: report.files.clone(),
            ..Self::default()
        }
    }
}

/// Whether every runner of `report` names the test files it runs (jest's heads, vitest's
/// file lines), and it named some.
fn names_files(report: &TestReport) -> bool {
    !report.files.is_empty()
        && report
            .runners
            .iter()
            .all(|r| matches!(r, TestFramework::Jest | TestFramework::Vitest))
}

/// Whether the runner's `named` file (from where it runs) is `file` (from the project root).
fn same_file(named: &str, file: &str) -> bool {
    named == file || file.ends_with(&format!("/{named}")) || named.ends_with(&format!("/{file}"))
}

/// Whether the last part of `id` is a position, as `go test` names an unnamed subtest
/// (`TestDecode/#02`).
fn index_named(id: &str) -> bool {
    let last = id.rsplit(['/', ' ']).next().unwrap_or(id);
    last.strip_prefix('#')
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether test `id` comes from one of `files` (repository paths of withheld and acceptance
/// tests): the id names the file's path, its module path (`tests.test_x`), or, for a Rust
/// integration test, its binary (`tests/sub.rs` runs as `sub`).
pub(crate) fn from_files(id: &str, files: &[String]) -> bool {
    files.iter().any(|file| {
        let stem = file.rsplit_once('.').map_or(file.as_str(), |(s, _)| s);
        let module = stem.replace('/', ".");
        let name = stem.rsplit('/').next().unwrap_or(stem);
        id.contains(file.as_str())
            || id.starts_with(&format!("{module}."))
            // unittest names a module from its start folder (`-s tests`): `test_x.Class.t`.
            || (file.ends_with(".py") && id.starts_with(&format!("{name}.")))
            || (file.ends_with(".rs") && id.starts_with(&format!("{name}::")))
            || id.contains(&format!("/{}", file.rsplit('/').next().unwrap_or(file)))
    })
}

fn outcome_word(outcome: Option<TestOutcome>) -> &'static str {
    match outcome {
        None => "did not run",
        Some(TestOutcome::Passed) => "passed",
        Some(TestOutcome::Failed) => "failed",
        Some(TestOutcome::Skipped) => "was skipped",
        Some(TestOutcome::Xfailed) => "was an expected failure",
        Some(TestOutcome::Xpassed) => "passed unexpectedly",
        Some(TestOutcome::Errored) => "errored",
    }
}

fn failing(outcome: TestOutcome) -> bool {
    matches!(outcome, TestOutcome::Failed | TestOutcome::Errored)
}

fn passing(outcome: TestOutcome) -> bool {
    matches!(outcome, TestOutcome::Passed | TestOutcome::Xpassed)
}

fn skipped(outcome: TestOutcome) -> bool {
    matches!(outcome, TestOutcome::Skipped | TestOutcome::Xfailed)
}

/// How many tests ended each way: the counts the runners printed, or the named tests where
/// they name more (a check running a runner that prints counts and one that does not).
fn tally(
    report_counts: &BTreeMap<TestOutcome, usize>,
    tests: &BTreeMap<String, TestOutcome>,
) -> BTreeMap<TestOutcome, usize> {
    let mut named: BTreeMap<TestOutcome, usize> = BTreeMap::new();
    for outcome in tests.values() {
        *named.entry(*outcome).or_default() += 1;
    }
    let mut counts = report_counts.clone();
    for (outcome, n) in named {
        let entry = counts.entry(outcome).or_default();
        *entry = (*entry).max(n);
    }
    counts
}

fn count(counts: &BTreeMap<TestOutcome, usize>, pred: fn(TestOutcome) -> bool) -> usize {
    counts
        .iter()
        .filter(|(o, _)| pred(**o))
        .map(|(_, n)| n)
        .sum()
}

fn runner_name(runner: &TestFramework) -> String {
    serde_json::to_value(runner)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// Judges one check: whether it passed, and the summary. `base` is the same op at the
/// base with the withheld and acceptance tests in place, when the baseline ran; `new` are
/// the withheld and acceptance tests, as paths from the project root; `known` the tests
/// that may fail.
pub(crate) fn judge(
    exit_code: Option<i32>,
    timed_out: bool,
    report: &TestReport,
    base: Option<&BaseTests>,
    new: NewTests<'_>,
    known: &KnownFailures,
) -> (bool, TestSummary) {
    let exit_ok = exit_code == Some(0) && !timed_out;
    let counts = tally(&report.counts, &report.tests);
    let mut summary = TestSummary {
        runners: report.runners.clone(),
        counts: counts.clone(),
        ..TestSummary::default()
    };
    let empty = BTreeMap::new();
    let base_tests = base.map_or(&empty, |b| &b.tests);
    let judged = Judged {
        report,
        base,
        base_tests,
        new,
        known,
    };
    // A runner that reported at the base and prints no results now ended before its
    // report (an exit partway through the run, whatever its status).
    let silent = base.and_then(|b| b.runners.iter().find(|r| !report.runners.contains(r)));
    if let Some(runner) = silent {
        judged.ended_early(runner, &mut summary);
        return (false, summary);
    }
    if report.runners.is_empty() {
        return (exit_ok, summary);
    }
    if timed_out {
        summary.rule = Rule::PerTest;
        summary.unexplained = Some("the check timed out".into());
        return (false, summary);
    }
    // The runner names fewer passing tests than it counts: a required test it does not
    // name may be among them, and the counts decide.
    let unnamed_passes =
        count(&report.counts, passing) > report.tests.values().filter(|o| passing(**o)).count();
    summary.rule = if unnamed_passes {
        Rule::Counts
    } else {
        Rule::PerTest
    };
    let required = judged.required();
    let mut not_passed =
        judged.required_not_passed(&required, unnamed_passes, &mut summary.renamed_subtests);
    // A runner that counts passes it does not name cannot show which titles ran; vitest
    // still prints how many tests each file ran.
    if unnamed_passes {
        let empty_files = BTreeMap::new();
        let base_files = base.map_or(&empty_files, |b| &b.files);
        not_passed.extend(judged.new.file_counts_short(&report.files, base_files));
    } else {
        let mut runners = report.runners.clone();
        runners.extend(base.iter().flat_map(|b| b.runners.iter().copied()));
        not_passed.extend(
            judged
                .new
                .titles_not_run(&runners, &report.tests, base_tests),
        );
    }
    summary.renamed_subtests.truncate(MAX_NAMED);
    let excused = judged.failing_now(&required, &mut summary, &mut not_passed);
    judged.against_base_counts(&counts, excused, unnamed_passes, &mut not_passed);
    judged.hidden_by_stop(&mut not_passed);
    let (passed, mut summary) = finish(summary, not_passed, exit_code, exit_ok, excused, report);
    say_stop(passed, report, &mut summary);
    (passed, summary)
}

/// Where required tests did not pass and the runner said it stopped at a failure, a stop
/// the check could not undo (`checks/check_flags.rs`) hid the tests after it: `summary`
/// says so.
fn say_stop(passed: bool, report: &TestReport, summary: &mut TestSummary) {
    if !passed
        && summary.not_passed_count > 0
        && summary.unexplained.is_none()
        && let Some(stop) = &report.stopped
    {
        summary.unexplained = Some(format!(
            "the runner stopped at a failure (`{stop}`) and the tests after it did not run: speccoder undoes such a stop only in a check whose command runs the runner itself, not one set behind another tool (`make`, a script) or in its configuration (`addopts` of `pytest.ini`, `bail` of a script)"
        ));
    }
}

/// What one check's tests are judged by: its report, and the base's.
#[derive(Debug)]
struct Judged<'a> {
    /// The check's report now.
    report: &'a TestReport,
    /// The same op at the base, when the baseline ran.
    base: Option<&'a BaseTests>,
    /// Each test's outcome at the base (none without a baseline).
    base_tests: &'a BTreeMap<String, TestOutcome>,
    /// The withheld and acceptance tests.
    new: NewTests<'a>,
    /// The tests that may fail.
    known: &'a KnownFailures,
}

impl<'a> Judged<'a> {
    /// Whether a failure of `id` is excused: an old test the user named as known to fail.
    fn excuse(&self, id: &str) -> bool {
        !self.new.is_new(id, self.base) && self.known.matches(id)
    }

    /// Fills `summary` for a check whose `runner` reported at the base and printed nothing
    /// now: every test required at the base did not run.
    fn ended_early(&self, runner: &TestFramework, summary: &mut TestSummary) {
        summary.rule = Rule::PerTest;
        let mut missing: Vec<String> = self
            .base_tests
            .iter()
            .filter(|(id, o)| !skipped(**o) || self.new.required(id))
            .map(|(id, _)| self.new.named(id, "did not run"))
            .collect();
        summary.not_passed_count = missing.len();
        missing.truncate(MAX_NAMED);
        summary.not_passed = missing;
        summary.unexplained = Some(format!(
            "`{}` reported its tests at the base and printed no results now: the run ended before its report",
            runner_name(runner)
        ));
    }

    /// Where the runner stopped at a failure, each withheld or acceptance file that
    /// declares tests and of which no test ran: the stop may have hidden it, and a file the
    /// verdict cannot see run is not judged a pass (though another check might run it).
    fn hidden_by_stop(&self, not_passed: &mut Vec<String>) {
        let (Some(_), Some(declared)) = (&self.report.stopped, self.new.declared) else {
            return;
        };
        let ran = self.new.files_ran(self.report);
        for file in self.new.files() {
            let declares = declared.file(file).is_some_and(|d| d.declares_tests);
            if declares && !ran.contains(file) {
                let mark = if self.new.withheld.contains(file) {
                    WITHHELD_MARK
                } else {
                    ""
                };
                not_passed.push(format!("{mark}`{file}` did not run"));
            }
        }
    }

    /// Every test that ran at the base, passed or failed, and every withheld and acceptance
    /// test, at the base or now; sorted, once each.
    fn required(&self) -> Vec<&'a String> {
        let mut required: Vec<&String> = self
            .base_tests
            .iter()
            .filter(|(id, o)| !skipped(**o) || self.new.required(id))
            .map(|(id, _)| id)
            .collect();
        required.extend(self.report.tests.keys().filter(|id| self.new.required(id)));
        // The tests the task's files declare, though the base never reached them (a Go stub
        // that panics ends the binary first) or they vanished now.
        let mut runners = self.report.runners.clone();
        if let Some(base) = self.base {
            runners.extend(base.runners.iter().copied());
        }
        let seen = self.report.tests.keys().chain(self.base_tests.keys());
        required.extend(self.new.declared_ids(&runners, seen));
        required.sort();
        required.dedup();
        required
    }

    /// Each `required` test that does not pass now, nor is excused, as the summary names it.
    fn required_not_passed(
        &self,
        required: &[&String],
        unnamed_passes: bool,
        renamed: &mut Vec<String>,
    ) -> Vec<String> {
        let mut not_passed = Vec::new();
        for id in required {
            let at_base = self.base_tests.get(*id).copied();
            match self.report.tests.get(*id).copied() {
                Some(now) if passing(now) => {}
                // Skipped at the base and now, by the marker of a frozen file.
                Some(now) if skipped(now) && at_base.is_some_and(skipped) => {}
                // A test its file declares that the base never reached (a Go stub's panic
                // ended the binary first), skipped now by its own marker: as the base
                // would have, for all it showed.
                Some(now)
                    if skipped(now)
                        && at_base.is_none()
                        && self.base.is_some()
                        && self.new.declared_only(id) => {}
                Some(now) if failing(now) && self.excuse(id) => {}
                Some(now) => not_passed.push(self.new.named(id, outcome_word(Some(now)))),
                // Among the passes the runner counts without naming them.
                None if unnamed_passes => {}
                // A module that errored at the base (it could not be imported) is named no
                // more once its tests run: the counts below see that they did.
                None if at_base == Some(TestOutcome::Errored) => {}
                // A withheld or acceptance file that could not load at the base (node and
                // jest name the file then): its tests run now, and each is required.
                None if at_base.is_some_and(failing)
                    && self.new.file_of_file_level(id).is_some_and(|file| {
                        let one = std::slice::from_ref(file);
                        self.report
                            .tests
                            .keys()
                            .any(|now| now != *id && self.new.in_files(now, one))
                    }) => {}
                // Skipped at the base: the counts see that no more are skipped now.
                None if at_base.is_some_and(skipped) => {}
                None if self.renamed_subtest(id) => renamed.push((*id).clone()),
                None => not_passed.push(self.new.named(id, outcome_word(None))),
            }
        }
        not_passed
    }

    /// Whether the subtest `id` of the base did not run now because the change renamed it:
    /// its parent (a test of both runs) passes now, every subtest of the parent that ran
    /// now passed, and no fewer ran than at the base. An index-named subtest (`#02`) is a
    /// position, never a name the change could have changed.
    fn renamed_subtest(&self, id: &str) -> bool {
        if index_named(id) {
            return false;
        }
        let Some((parent, sep)) = [("/", '/'), (" > ", '>')].iter().find_map(|(sep, _)| {
            let (parent, _) = id.rsplit_once(sep)?;
            (self.report.tests.contains_key(parent) && self.base_tests.contains_key(parent))
                .then_some((parent, *sep))
        }) else {
            return false;
        };
        if !self.report.tests.get(parent).copied().is_some_and(passing) {
            return false;
        }
        let prefix = format!("{parent}{sep}");
        let now: Vec<TestOutcome> = self
            .report
            .tests
            .iter()
            .filter(|(t, _)| t.starts_with(&prefix))
            .map(|(_, o)| *o)
            .collect();
        let at_base = self
            .base_tests
            .keys()
            .filter(|t| t.starts_with(&prefix))
            .count();
        !now.is_empty() && now.iter().all(|o| passing(*o)) && now.len() >= at_base
    }

    /// Sorts every test failing now into `summary` (excused, failing at the base too) and,
    /// when not `required`, into `not_passed`; notes known failures that pass. Returns how
    /// many failures are excused.
    fn failing_now(
        &self,
        required: &[&String],
        summary: &mut TestSummary,
        not_passed: &mut Vec<String>,
    ) -> usize {
        let mut excused = 0;
        // Every test failing now: a new failure, or one the base had too.
        for (id, outcome) in &self.report.tests {
            if !failing(*outcome) {
                if passing(*outcome) && self.known.matches(id) {
                    summary.known_failures_passing.push(id.clone());
                }
                continue;
            }
            if self.excuse(id) {
                excused += 1;
                summary.known_failures.push(id.clone());
                continue;
            }
            if self.base_tests.get(id).copied().is_some_and(failing) && !self.new.withheld(id) {
                summary.failing_at_base.push(format!("`{id}`"));
            }
            if !required.contains(&id) {
                not_passed.push(self.new.named(id, outcome_word(Some(*outcome))));
            }
        }
        excused
    }

    /// The `counts`, against the base's, where no test named in `not_passed` explains the
    /// failure already: no failure but the `excused` ones, no fewer tests ran (none ran is
    /// never a pass), none more was skipped, and every test that ran there passes, or fails
    /// excused.
    fn against_base_counts(
        &self,
        counts: &BTreeMap<TestOutcome, usize>,
        excused: usize,
        unnamed_passes: bool,
        not_passed: &mut Vec<String>,
    ) {
        let failed_now = count(counts, failing);
        if failed_now > excused && not_passed.is_empty() {
            not_passed.push(format!("{} tests failed or errored", failed_now - excused));
        }
        if let Some(base) = self.base.filter(|_| not_passed.is_empty()) {
            let at_base = tally(&base.counts, &base.tests);
            let ran =
                |c: &BTreeMap<TestOutcome, usize>| c.values().sum::<usize>() - count(c, skipped);
            let (ran_now, ran_base) = (ran(counts), ran(&at_base));
            if ran_now == 0 && ran_base > 0 {
                not_passed.push(format!("no test ran, {ran_base} at the base"));
            } else if ran_now < ran_base {
                not_passed.push(format!("{ran_now} tests ran, {ran_base} at the base"));
            }
            // A runner that names its tests is judged test by test for skips: one the base
            // never reached (a panic ended its run early) may be skipped now by its marker.
            // One that counts skips or expected failures it does not name as such (vitest's
            // verbose reporter marks a `test.fails` `✓`, counted as `1 expected fail`) is
            // judged by the counts.
            let (skipped_now, skipped_base) = (count(counts, skipped), count(&at_base, skipped));
            let named_skips = self.report.tests.values().filter(|o| skipped(**o)).count();
            let unnamed_skips = count(&self.report.counts, skipped) > named_skips;
            if skipped_now > skipped_base && (unnamed_passes || unnamed_skips) {
                not_passed.push(format!(
                    "{skipped_now} tests skipped or expected to fail, {skipped_base} at the base"
                ));
            }
            let passed_now = count(counts, passing);
            if passed_now + excused < ran_base && ran_now >= ran_base {
                not_passed.push(format!(
                    "{passed_now} tests passed, {ran_base} must (every test that ran at the base)"
                ));
            }
        }
    }
}

/// Ends the judging: puts `not_passed` into `summary`, the lists cut to [`MAX_NAMED`], and
/// says what the exit (`exit_code`, `exit_ok`) or the output claims that no test explains
/// (`excused` failures do).
fn finish(
    mut summary: TestSummary,
    mut not_passed: Vec<String>,
    exit_code: Option<i32>,
    exit_ok: bool,
    excused: usize,
    report: &TestReport,
) -> (bool, TestSummary) {
    summary.not_passed_count = not_passed.len();
    not_passed.truncate(MAX_NAMED);
    summary.not_passed = not_passed;
    summary.failing_at_base.truncate(MAX_NAMED);
    summary.known_failures.truncate(MAX_NAMED);
    summary.known_failures_passing.truncate(MAX_NAMED);
    let tests_ok = summary.not_passed_count == 0;
    // A non-zero exit is explained only by excused failures; an output that says it failed
    // is believed, whatever the exit code.
    let explained = excused > 0;
    if tests_ok && !exit_ok && !explained {
        summary.unexplained = Some(match exit_code {
            Some(code) => format!("it exited {code}, and no test failed"),
            None => "it was killed, and no test failed".into(),
        });
    } else if tests_ok && exit_ok && !report.failure_claims.is_empty() && !explained {
        summary.unexplained = Some(format!(
            "it exited 0, but its output says it failed: {}",
            report.failure_claims.join(" | ")
        ));
    }
    let passed = tests_ok && summary.unexplained.is_none();
    (passed, summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(tests: &[(&str, TestOutcome)]) -> TestReport {
        TestReport {
            runners: vec![TestFramework::Pytest],
            tests: tests.iter().map(|(id, o)| ((*id).to_owned(), *o)).collect(),
            ..TestReport::default()
        }
    }

    fn base(tests: &[(&str, TestOutcome)]) -> BaseTests {
        BaseTests::of("test", Some(1), &report(tests))
    }

    use TestFramework::{GoTest, NodeTest};
    use TestOutcome::{Errored, Failed, Passed, Skipped, Xfailed};

    const A: &str = "tests/test_a.py::test_a";
    const B: &str = "tests/test_a.py::test_b";
    const ENV: &str = "tests/test_env.py::test_root_only";
    const HIDDEN: &str = "tests/test_hidden.py::test_new";

    /// Judges `now` (exit code `exit`) against `at_base`, with `tests/test_hidden.py`
    /// withheld and `known` excused.
    #[track_caller]
    fn case(
        exit: i32,
        now: &[(&str, TestOutcome)],
        at_base: &[(&str, TestOutcome)],
        known: &[&str],
        want: bool,
        want_not_passed: &[&str],
    ) -> TestSummary {
        let withheld = ["tests/test_hidden.py".to_owned()];
        // The base without the withheld test runs the others.
        let visible: Vec<(&str, TestOutcome)> = at_base
            .iter()
            .filter(|(id, _)| !id.contains("hidden"))
            .copied()
            .collect();
        let without_withheld = base(&visible);
        let known: Vec<String> = known.iter().map(|k| (*k).to_owned()).collect();
        let (passed, summary) = judge(
            Some(exit),
            false,
            &report(now),
            Some(&base(at_base)),
            NewTests {
                acceptance: &[],
                withheld: &withheld,
                without_withheld: Some(&without_withheld),
                declared: None,
            },
            &KnownFailures::new(&known).expect("valid"),
        );
        assert_eq!(passed, want, "{summary:?}");
        assert_eq!(summary.not_passed, want_not_passed, "{summary:?}");
        summary
    }

    #[test]
    fn every_test_that_ran_at_the_base_must_pass() {
        // All pass.
        case(
            0,
            &[(A, Passed), (HIDDEN, Passed)],
            &[(A, Passed), (HIDDEN, Failed)],
            &[],
            true,
            &[],
        );
        // A test that passed at the base is skipped now.
        case(
            0,
            &[(A, Skipped), (HIDDEN, Passed)],
            &[(A, Passed), (HIDDEN, Failed)],
            &[],
            false,
            &[&format!("`{A}` was skipped")],
        );
        // Not collected at all.
        case(
            0,
            &[(HIDDEN, Passed)],
            &[(A, Passed), (HIDDEN, Failed)],
            &[],
            false,
            &[&format!("`{A}` did not run")],
        );
        // A withheld test that is deselected.
        case(
            0,
            &[(A, Passed)],
            &[(A, Passed), (HIDDEN, Failed)],
            &[],
            false,
            &[&format!("(withheld) `{HIDDEN}` did not run")],
        );
        // A new failure is blamed; never seen at the base without the withheld tests, it
        // could be one, and the digest does not name it.
        case(
            1,
            &[(A, Passed), (B, Errored)],
            &[(A, Passed)],
            &[],
            false,
            &[&format!("(withheld) `{B}` errored")],
        );
    }

    #[test]
    fn a_test_failing_at_the_base_must_pass_now() {
        // The task's own test fails at the base (it sits there, as an orchestrator puts
        // it) and still fails: a wrong or empty change.
        let summary = case(
            1,
            &[(A, Passed), (B, Failed)],
            &[(A, Passed), (B, Failed)],
            &[],
            false,
            &[&format!("`{B}` failed")],
        );
        assert_eq!(summary.failing_at_base, [format!("`{B}`")]);
        // Passing now: the change did what the task asks.
        case(
            0,
            &[(A, Passed), (B, Passed)],
            &[(A, Passed), (B, Failed)],
            &[],
            true,
            &[],
        );
    }

    #[test]
    fn no_test_running_where_the_base_ran_some_is_no_pass() {
        // Zero tests where the base ran some, with an exit code of 0.
        // Zero tests where the base ran some (unittest without -v names none).
        let unittest = |passed| TestReport {
            runners: vec![TestFramework::Unittest],
            counts: [(Passed, passed)]
                .into_iter()
                .filter(|(_, n)| *n > 0)
                .collect(),
            ..TestReport::default()
        };
        let (passed, summary) = judge(
            Some(0),
            false,
            &unittest(0),
            Some(&BaseTests::of("test", Some(0), &unittest(4))),
            NewTests::default(),
            &KnownFailures::default(),
        );
        assert!(!passed);
        assert_eq!(summary.not_passed, ["no test ran, 4 at the base"]);
    }

    #[test]
    fn only_known_failures_excuse_a_failing_test() {
        // Failing at the base for the environment: not excused by that alone.
        case(
            1,
            &[(A, Passed), (ENV, Failed), (HIDDEN, Passed)],
            &[(A, Passed), (ENV, Failed), (HIDDEN, Failed)],
            &[],
            false,
            &[&format!("`{ENV}` failed")],
        );
        // Listed: excused, named, and it explains the exit code.
        let summary = case(
            1,
            &[(A, Passed), (ENV, Failed), (HIDDEN, Passed)],
            &[(A, Passed), (ENV, Failed), (HIDDEN, Failed)],
            &["glob:tests/test_env.py::*"],
            true,
            &[],
        );
        assert_eq!(summary.known_failures, [ENV]);
        // The glob excuses nothing else: the withheld test still must pass, and a new
        // withheld id is never excused, even when listed.
        case(
            1,
            &[(A, Passed), (ENV, Failed), (HIDDEN, Failed)],
            &[(A, Passed), (ENV, Failed), (HIDDEN, Failed)],
            &["glob:tests/test_env.py::*", HIDDEN],
            false,
            &[&format!("(withheld) `{HIDDEN}` failed")],
        );
        // A listed test that passes now is noted.
        let summary = case(
            0,
            &[(A, Passed), (ENV, Passed)],
            &[(A, Passed), (ENV, Failed)],
            &[ENV],
            true,
            &[],
        );
        assert_eq!(summary.known_failures_passing, [ENV]);
        // Exact ids match even where they read as a glob that would not match them.
        let param = "tests/test_a.py::test_p[1-2]";
        case(
            1,
            &[(A, Passed), (param, Failed)],
            &[(A, Passed), (param, Failed)],
            &[param],
            true,
            &[],
        );
    }

    #[test]
    fn a_test_skipped_at_the_base_may_stay_skipped() {
        let win = "tests/test_hidden.py::test_windows_only";
        // In a withheld file, an old test skipped at the base by its marker and skipped
        // now: a skip, not a failure.
        case(
            0,
            &[(A, Passed), (win, Skipped), (HIDDEN, Passed)],
            &[(A, Passed), (win, Skipped), (HIDDEN, Failed)],
            &[],
            true,
            &[],
        );
        // An expected failure by its marker, likewise.
        case(
            0,
            &[(A, Passed), (B, Xfailed)],
            &[(A, Passed), (B, Xfailed)],
            &[],
            true,
            &[],
        );
        // One that ran at the base and is skipped now fails.
        case(
            0,
            &[(A, Passed), (B, Xfailed)],
            &[(A, Passed), (B, Failed)],
            &[],
            false,
            &[&format!("`{B}` was an expected failure")],
        );
    }

    #[test]
    fn a_module_that_errored_at_the_base_may_be_named_no_more() {
        // pytest names a module that cannot be imported by its path; once it imports, its
        // tests are named instead.
        let module = "tests/test_add.py";
        let small = "tests/test_add.py::test_small";
        let negative = "tests/test_add.py::test_negative";
        case(
            0,
            &[(A, Passed), (small, Passed), (negative, Passed)],
            &[(A, Passed), (module, Errored)],
            &[],
            true,
            &[],
        );
        case(
            1,
            &[(A, Passed), (small, Passed), (negative, Failed)],
            &[(A, Passed), (module, Errored)],
            &[],
            false,
            &[&format!("(withheld) `{negative}` failed")],
        );
        // Still erroring: the change did nothing.
        case(
            2,
            &[(A, Passed), (module, Errored)],
            &[(A, Passed), (module, Errored)],
            &[],
            false,
            &[&format!("`{module}` errored")],
        );
    }

    #[test]
    fn exit_codes_the_tests_do_not_explain() {
        let (passed, summary) = judge(
            Some(0),
            false,
            &TestReport {
                failure_claims: vec!["FAILED (failures=2)".into()],
                ..report(&[(A, Passed)])
            },
            Some(&base(&[(A, Passed)])),
            NewTests::default(),
            &KnownFailures::default(),
        );
        assert!(!passed);
        assert!(
            summary
                .unexplained
                .expect("why")
                .contains("FAILED (failures=2)")
        );
        let (passed, summary) = judge(
            Some(2),
            false,
            &report(&[(A, Passed)]),
            Some(&base(&[(A, Passed)])),
            NewTests::default(),
            &KnownFailures::default(),
        );
        assert!(!passed);
        assert_eq!(
            summary.unexplained.as_deref(),
            Some("it exited 2, and no test failed")
        );
    }

    #[test]
    fn a_runner_silent_now_ended_early() {
        let at_base = base(&[(A, Failed)]);
        let (passed, summary) = judge(
            Some(0),
            false,
            &TestReport::default(),
            Some(&at_base),
            NewTests::default(),
            &KnownFailures::default(),
        );
        assert!(!passed);
        assert_eq!(summary.not_passed, [format!("`{A}` did not run")]);
        assert!(
            summary
                .unexplained
                .expect("why")
                .contains("`pytest` reported its tests at the base")
        );
        // With withheld tests and no run without them, a test the ids cannot place is
        // not named: it could be withheld.
        let hidden = base(&[("hidden case 7", Passed)]);
        let withheld = ["tests/test_hidden.py".to_owned()];
        let new = NewTests {
            acceptance: &[],
            withheld: &withheld,
            without_withheld: None,
            declared: None,
        };
        let (_, summary) = judge(
            Some(0),
            false,
            &TestReport::default(),
            Some(&hidden),
            new,
            &KnownFailures::default(),
        );
        assert_eq!(
            summary.not_passed,
            ["(withheld) `hidden case 7` did not run"]
        );
    }

    #[test]
    fn runners_that_name_no_passes_are_judged_by_counts() {
        // jest over several files names only failures: at the base the task's test failed
        // and one passed.
        let mut at_base = TestReport {
            runners: vec![TestFramework::Jest],
            tests: [("test/add.test.js > small".to_owned(), Failed)]
                .into_iter()
                .collect(),
            ..TestReport::default()
        };
        at_base.counts = [(Passed, 2), (Failed, 1)].into_iter().collect();
        let base = BaseTests::of("test", Some(1), &at_base);
        let now = |passed, skipped| TestReport {
            runners: vec![TestFramework::Jest],
            counts: [(Passed, passed), (Skipped, skipped)]
                .into_iter()
                .filter(|(_, n)| *n > 0)
                .collect(),
            ..TestReport::default()
        };
        let judge_now = |r: &TestReport| {
            judge(
                Some(0),
                false,
                r,
                Some(&base),
                NewTests::default(),
                &KnownFailures::default(),
            )
        };
        let (passed, summary) = judge_now(&now(3, 0));
        assert!(passed, "{summary:?}");
        assert_eq!(summary.rule, Rule::Counts);
        let (passed, summary) = judge_now(&now(2, 1));
        assert!(!passed);
        assert_eq!(
            summary.not_passed,
            [
                "2 tests ran, 3 at the base",
                "1 tests skipped or expected to fail, 0 at the base"
            ]
        );
        // unittest without -v: `Ran 3 tests` and `OK`, where the base had an error.
        let counts = |p, e| -> BTreeMap<TestOutcome, usize> {
            [(Passed, p), (Errored, e)]
                .into_iter()
                .filter(|(_, n)| *n > 0)
                .collect()
        };
        let unittest = |p, e| TestReport {
            runners: vec![TestFramework::Unittest],
            counts: counts(p, e),
            ..TestReport::default()
        };
        let mut with_error = unittest(2, 1);
        with_error
            .tests
            .insert("tests.test_add.AddTest.test_small".into(), Errored);
        let base = BaseTests::of("test", Some(1), &with_error);
        let judge_now = |r: &TestReport, exit| {
            judge(
                Some(exit),
                false,
                r,
                Some(&base),
                NewTests::default(),
                &KnownFailures::default(),
            )
        };
        assert!(judge_now(&unittest(3, 0), 0).0);
        // The same error now: named, and it fails.
        assert!(!judge_now(&with_error, 1).0);
        // Fewer ran.
        assert!(!judge_now(&unittest(2, 0), 0).0);
    }

    #[test]
    fn an_unrecognised_runner_keeps_the_exit_code_rule() {
        let none = KnownFailures::default();
        let (passed, summary) = judge(
            Some(0),
            false,
            &TestReport::default(),
            None,
            NewTests::default(),
            &none,
        );
        assert!(passed);
        assert_eq!(summary.rule, Rule::ExitCode);
        assert!(
            !judge(
                Some(1),
                false,
                &TestReport::default(),
                None,
                NewTests::default(),
                &none
            )
            .0
        );
    }

    #[test]
    fn old_tests_in_a_withheld_file_are_not_new() {
        // The withheld file replaces a visible one that had `test_old`.
        let old = "tests/test_hidden.py::test_old";
        let withheld = ["tests/test_hidden.py".to_owned()];
        let visible = base(&[(old, Failed)]);
        let new = NewTests {
            acceptance: &[],
            withheld: &withheld,
            without_withheld: Some(&visible),
            declared: None,
        };
        assert!(!new.is_new(old, None));
        assert!(!new.withheld(old));
        assert!(new.is_new(HIDDEN, None));
        assert!(new.withheld(HIDDEN));
        // So an environment failure of the old test may be excused.
        let (passed, summary) = judge(
            Some(1),
            false,
            &report(&[(old, Failed), (HIDDEN, Passed)]),
            Some(&base(&[(old, Failed), (HIDDEN, Failed)])),
            new,
            &KnownFailures::new(&[old.to_owned()]).expect("valid"),
        );
        assert!(passed, "{summary:?}");
    }

    #[test]
    fn test_ids_from_files() {
        let files = ["tests/test_hidden.py".to_owned(), "tests/sub.rs".to_owned()];
        assert!(from_files("tests/test_hidden.py::test_x", &files));
        assert!(from_files("tests.test_hidden.TestX.test_x", &files));
        assert!(from_files("sub::adds", &files));
        assert!(from_files("test_hidden.HiddenTest.test_x", &files));
        assert!(!from_files("tests/test_a.py::test_x", &files));
        assert!(!from_files("subtract::x", &files));
    }

    /// A report of `runner` with `tests`.
    fn of(runner: TestFramework, tests: &[(&str, TestOutcome)]) -> TestReport {
        TestReport {
            runners: vec![runner],
            tests: tests.iter().map(|(id, o)| ((*id).to_owned(), *o)).collect(),
            ..TestReport::default()
        }
    }

    const GO_WITHHELD: &str = "package calc\n\nimport \"testing\"\n\nfunc TestAddMixed(t *testing.T) {}\nfunc TestAddBig(t *testing.T) {}\n";

    fn go_declared() -> Declared {
        let modules = [(String::new(), "example.com/calc".to_owned())]
            .into_iter()
            .collect();
        Declared::read(
            &[("hidden_test.go".to_owned(), GO_WITHHELD.to_owned())],
            &modules,
        )
    }

    #[test]
    fn go_tests_a_withheld_file_declares_are_required_though_the_base_never_ran_them() {
        let declared = go_declared();
        let withheld = ["hidden_test.go".to_owned()];
        // At the base the stub's panic ended the binary in the visible test.
        let at_base = BaseTests::of(
            "test",
            Some(1),
            &of(GoTest, &[("example.com/calc/TestAdd", Errored)]),
        );
        let visible = at_base.clone();
        let new = NewTests {
            acceptance: &[],
            withheld: &withheld,
            without_withheld: Some(&visible),
            declared: Some(&declared),
        };
        let judge_now = |tests: &[(&str, TestOutcome)], known: &[&str]| {
            let known: Vec<String> = known.iter().map(|k| (*k).to_owned()).collect();
            judge(
                Some(0),
                false,
                &of(GoTest, tests),
                Some(&at_base),
                new,
                &KnownFailures::new(&known).expect("valid"),
            )
        };
        // Every test of the package ran and passed.
        let all = [
            ("example.com/calc/TestAdd", Passed),
            ("example.com/calc/TestAddMixed", Passed),
            ("example.com/calc/TestAddBig/huge", Passed),
            ("example.com/calc/TestAddBig", Passed),
        ];
        assert!(judge_now(&all, &[]).0);
        // One withheld test vanished: the file declares it, so it is required.
        let (passed, summary) = judge_now(&all[..3], &[]);
        assert!(!passed);
        assert_eq!(
            summary.not_passed,
            ["(withheld) `example.com/calc/TestAddBig` did not run"]
        );
        // `known_failures` over the package excuses the visible test, never a withheld one.
        let failing = [
            ("example.com/calc/TestAdd", Failed),
            ("example.com/calc/TestAddMixed", Failed),
            ("example.com/calc/TestAddBig", Passed),
        ];
        let (passed, summary) = judge_now(&failing, &["glob:example.com/calc/*"]);
        assert!(!passed);
        assert_eq!(
            summary.not_passed,
            ["(withheld) `example.com/calc/TestAddMixed` failed"]
        );
        assert_eq!(summary.known_failures, ["example.com/calc/TestAdd"]);
        // A jest check never requires Go's ids.
        let (passed, _) = judge(
            Some(0),
            false,
            &of(TestFramework::Jest, &[("test/a.test.js > a", Passed)]),
            None,
            new,
            &KnownFailures::default(),
        );
        assert!(passed);
    }

    #[test]
    fn a_node_file_that_could_not_load_at_the_base_is_replaced_by_its_tests() {
        let text = "const { add } = require('../add');\ntest('adds two', () => {});\ntest('adds negatives', () => {});\n";
        let declared = Declared::read(
            &[("test/add.test.js".to_owned(), text.to_owned())],
            &BTreeMap::new(),
        );
        let acceptance = ["test/add.test.js".to_owned()];
        let new = NewTests {
            acceptance: &acceptance,
            withheld: &[],
            without_withheld: None,
            declared: Some(&declared),
        };
        let at_base = BaseTests::of(
            "test",
            Some(1),
            &of(
                NodeTest,
                &[("test/add.test.js", Failed), ("sub > one", Passed)],
            ),
        );
        let now = |tests: &[(&str, TestOutcome)]| {
            judge(
                Some(0),
                false,
                &of(NodeTest, tests),
                Some(&at_base),
                new,
                &KnownFailures::default(),
            )
        };
        assert!(
            now(&[
                ("adds two", Passed),
                ("adds negatives", Passed),
                ("sub > one", Passed)
            ])
            .0
        );
        // One of its tests is missing: the file declares it.
        let (passed, summary) = now(&[("adds two", Passed), ("sub > one", Passed)]);
        assert!(!passed);
        assert_eq!(summary.not_passed, ["`adds negatives` did not run"]);
        // The file still does not load: its id is required.
        let (passed, summary) = now(&[("sub > one", Passed)]);
        assert!(!passed, "{summary:?}");
        assert!(
            summary
                .not_passed
                .contains(&"`test/add.test.js` did not run".to_owned())
        );
    }

    #[test]
    fn titles_with_holes_must_match_as_many_tests_as_at_the_base() {
        let text = "const { slug } = require('../slug');\ndescribe('slug', () => {\n  it('lowers', () => {});\n  for (const [a, b] of rows) {\n    it('slug of ' + a + ' is ' + b, () => {});\n  }\n});\ntest.each(rows)('slug(%s) is %s', (a, b) => {});\n";
        let declared = Declared::read(
            &[("test/slug.test.js".to_owned(), text.to_owned())],
            &BTreeMap::new(),
        );
        let acceptance = ["test/slug.test.js".to_owned()];
        let new = NewTests {
            acceptance: &acceptance,
            withheld: &[],
            without_withheld: None,
            declared: Some(&declared),
        };
        let judge_as =
            |runner: TestFramework, base: &[(&str, TestOutcome)], tests: &[(&str, TestOutcome)]| {
                let at_base = BaseTests::of("test", Some(1), &of(runner, base));
                judge(
                    Some(0),
                    false,
                    &of(runner, tests),
                    Some(&at_base),
                    new,
                    &KnownFailures::default(),
                )
            };
        // mocha: the file could not load at the base (the module is new).
        let base = [("test/slug.test.js", Failed), ("sub > one", Passed)];
        let all = [
            ("slug > lowers", Passed),
            ("slug > slug of Hello World is hello-world", Passed),
            ("slug > slug of Route 66 is route-66", Passed),
            ("slug(Route 66) is route-66", Passed),
            ("sub > one", Passed),
        ];
        assert!(judge_as(TestFramework::Mocha, &base, &all).0);
        // The loop's tests vanished: the title with holes matched none.
        let (passed, summary) = judge_as(TestFramework::Mocha, &base, &[all[0], all[3], all[4]]);
        assert!(!passed);
        assert_eq!(
            summary.not_passed,
            ["`slug > slug of * is *` (test/slug.test.js): 0 tests of the title ran, 1 required"]
        );
        // Fewer than at the base.
        let (passed, _) = judge_as(
            TestFramework::Mocha,
            &all,
            &[all[0], all[1], all[3], all[4]],
        );
        assert!(!passed);
        // jest names the file: every title read is required, with holes or not.
        let prefixed: Vec<(String, TestOutcome)> = all[..4]
            .iter()
            .map(|(id, o)| (format!("test/slug.test.js > {id}"), *o))
            .collect();
        let prefixed: Vec<(&str, TestOutcome)> =
            prefixed.iter().map(|(id, o)| (id.as_str(), *o)).collect();
        let jest_base = [("test/slug.test.js", Failed)];
        assert!(judge_as(TestFramework::Jest, &jest_base, &prefixed).0);
        let (passed, summary) = judge_as(TestFramework::Jest, &jest_base, &prefixed[1..]);
        assert!(!passed);
        assert_eq!(
            summary.not_passed,
            ["`slug > lowers` (test/slug.test.js): 0 test ran, 1 required"]
        );
    }

    #[test]
    fn an_expected_failure_the_runner_names_as_a_pass_is_counted() {
        // vitest's verbose reporter: `✓` for a `test.fails`, which its summary counts as an
        // expected failure.
        let of_vitest = |tests: &[(&str, TestOutcome)], counts: &[(TestOutcome, usize)]| {
            let mut report = report(tests);
            report.runners = vec![TestFramework::Vitest];
            report.counts = counts.iter().copied().collect();
            report
        };
        let named = [(A, Passed), (B, Passed)];
        let at_base = BaseTests::of("test", Some(1), &of_vitest(&named, &[(Passed, 2)]));
        let judge_now = |now: &TestReport| {
            judge(
                Some(0),
                false,
                now,
                Some(&at_base),
                NewTests {
                    acceptance: &[],
                    withheld: &[],
                    without_withheld: None,
                    declared: None,
                },
                &KnownFailures::default(),
            )
        };
        let (passed, summary) = judge_now(&of_vitest(&named, &[(Passed, 1), (Xfailed, 1)]));
        assert!(!passed);
        assert_eq!(
            summary.not_passed,
            ["1 tests skipped or expected to fail, 0 at the base"]
        );
        assert!(judge_now(&of_vitest(&named, &[(Passed, 2)])).0);
    }

    #[test]
    fn a_stop_the_check_could_not_undo_is_named_in_the_reason() {
        let withheld = ["tests/test_hidden.py".to_owned()];
        let known = KnownFailures::new(&[ENV.to_owned()]).expect("valid");
        let at_base = base(&[(A, Failed), (ENV, Failed), (HIDDEN, Failed)]);
        let mut now = report(&[(A, Passed), (ENV, Failed)]);
        now.stopped = Some("stopping after 1 failures".into());
        let judge_now = |now: &TestReport| {
            judge(
                Some(1),
                false,
                now,
                Some(&at_base),
                NewTests {
                    acceptance: &[],
                    withheld: &withheld,
                    without_withheld: None,
                    declared: None,
                },
                &known,
            )
        };
        let (passed, summary) = judge_now(&now);
        assert!(!passed);
        assert_eq!(
            summary.not_passed,
            [format!("(withheld) `{HIDDEN}` did not run")]
        );
        let why = summary.unexplained.expect("the stop is said");
        assert!(why.contains("`stopping after 1 failures`"), "{why}");
        // A run that did not stop says nothing of a stop.
        now.stopped = None;
        assert_eq!(judge_now(&now).1.unexplained, None);
        // The base stopped there too, so only the file says the withheld test exists.
        let declared = Declared::read(
            &[(
                withheld[0].clone(),
                "def test_new():\n    pass\n".to_owned(),
            )],
            &BTreeMap::new(),
        );
        let stopped_base = base(&[(A, Failed), (ENV, Failed)]);
        now.stopped = Some("stopping after 1 failures".into());
        let (passed, summary) = judge(
            Some(1),
            false,
            &now,
            Some(&stopped_base),
            NewTests {
                acceptance: &[],
                withheld: &withheld,
                without_withheld: None,
                declared: Some(&declared),
            },
            &known,
        );
        assert!(!passed);
        assert_eq!(
            summary.not_passed,
            ["(withheld) `tests/test_hidden.py` did not run"]
        );
        assert!(summary.unexplained.is_some_and(|w| w.contains("stopped")));
    }

    #[test]
    fn a_title_under_a_condition_is_required_only_where_the_base_ran_it() {
        let text = "test('lowers', () => {});\nif (process.platform === 'win32') {\n  test('keeps drive letters', () => {});\n}\n";
        let declared = Declared::read(
            &[("test/slug.test.js".to_owned(), text.to_owned())],
            &BTreeMap::new(),
        );
        let acceptance = ["test/slug.test.js".to_owned()];
        let new = NewTests {
            acceptance: &acceptance,
            withheld: &[],
            without_withheld: None,
            declared: Some(&declared),
        };
        let lowers = "test/slug.test.js > lowers";
        let drives = "test/slug.test.js > keeps drive letters";
        let judge_as = |runner, base: &[(&str, TestOutcome)], tests: &[(&str, TestOutcome)]| {
            let at_base = BaseTests::of("test", Some(1), &of(runner, base));
            judge(
                Some(0),
                false,
                &of(runner, tests),
                Some(&at_base),
                new,
                &KnownFailures::default(),
            )
        };
        let jest = TestFramework::Jest;
        let load_failed = [("test/slug.test.js", Failed)];
        // Not on this platform: the literal test under the `if` ran at neither.
        let (passed, summary) = judge_as(jest, &load_failed, &[(lowers, Passed)]);
        assert!(passed, "{summary:?}");
        // It ran, so it is judged.
        let (passed, _) = judge_as(jest, &load_failed, &[(lowers, Passed), (drives, Failed)]);
        assert!(!passed);
        // It ran at the base and vanished now.
        let (passed, summary) = judge_as(
            jest,
            &[(lowers, Failed), (drives, Failed)],
            &[(lowers, Passed)],
        );
        assert!(!passed);
        assert!(
            summary
                .not_passed
                .iter()
                .any(|n| n.contains("keeps drive letters")),
            "{summary:?}"
        );
        // The unconditional title is still required.
        let (passed, _) = judge_as(jest, &load_failed, &[(drives, Passed)]);
        assert!(!passed);
    }

    #[test]
    fn counts_only_runners_show_files_run_and_vitest_their_counts() {
        let text = "test('lowers', () => {});\ntest.each(rows)('slug(%s) is %s', () => {});\n";
        let declared = Declared::read(
            &[("test/slug.test.js".to_owned(), text.to_owned())],
            &BTreeMap::new(),
        );
        let acceptance = ["test/slug.test.js".to_owned()];
        let new = NewTests {
            acceptance: &acceptance,
            withheld: &[],
            without_withheld: None,
            declared: Some(&declared),
        };
        let counted = |runner: TestFramework, files: &[(&str, Option<usize>)], passed: usize| {
            let mut report = of(runner, &[]);
            report.counts = [(Passed, passed)].into_iter().collect();
            report.files = files.iter().map(|(f, n)| ((*f).to_owned(), *n)).collect();
            report
        };
        // jest named only the visible file: the acceptance file did not run.
        let jest = counted(TestFramework::Jest, &[("test/calc.test.js", None)], 2);
        assert!(new.files_ran(&jest).is_empty());
        let jest = counted(
            TestFramework::Jest,
            &[("test/calc.test.js", None), ("test/slug.test.js", None)],
            4,
        );
        assert_eq!(new.files_ran(&jest).len(), 1);
        // unittest names no file: any may have run.
        let mut unittest = of(TestFramework::Unittest, &[]);
        unittest.counts = [(Passed, 2)].into_iter().collect();
        assert_eq!(new.files_ran(&unittest).len(), 1);
        // vitest's count for the file: one test, where its two titles name two at least.
        let at_base = BaseTests::of(
            "test",
            Some(1),
            &counted(TestFramework::Vitest, &[("test/slug.test.js", Some(0))], 0),
        );
        let now = |n| {
            judge(
                Some(0),
                false,
                &counted(
                    TestFramework::Vitest,
                    &[
                        ("test/slug.test.js", Some(n)),
                        ("test/calc.test.js", Some(1)),
                    ],
                    n + 1,
                ),
                Some(&at_base),
                new,
                &KnownFailures::default(),
            )
        };
        assert!(now(3).0);
        let (passed, summary) = now(1);
        assert!(!passed);
        assert_eq!(summary.not_passed.len(), 1, "{summary:?}");
        assert!(summary.not_passed[0].starts_with("`test/slug.test.js`: 1 tests ran, 2 required"));
    }

    #[test]
    fn subtests_renamed_by_the_change_pass_when_their_parent_and_every_subtest_do() {
        const P: &str = "example.com/cast/TestToTime";
        let sub = |name: &str| format!("{P}/{name}");
        let (a, b, c, c2) = (
            sub("0;fmt=1"),
            sub("1;fmt=2"),
            sub("2;fmt=3"),
            sub("2;fmt=4"),
        );
        let at_base = BaseTests::of(
            "test",
            Some(1),
            &of(
                GoTest,
                &[(P, Failed), (&a, Passed), (&b, Passed), (&c, Failed)],
            ),
        );
        let now = |tests: &[(&str, TestOutcome)]| {
            judge(
                Some(0),
                false,
                &of(GoTest, tests),
                Some(&at_base),
                NewTests::default(),
                &KnownFailures::default(),
            )
        };
        let (passed, summary) = now(&[(P, Passed), (&a, Passed), (&b, Passed), (&c2, Passed)]);
        assert!(passed, "{summary:?}");
        assert_eq!(summary.renamed_subtests, std::slice::from_ref(&c));
        // Fewer subtests than at the base: one is gone, not renamed.
        let (passed, summary) = now(&[(P, Passed), (&a, Passed), (&c2, Passed)]);
        assert!(!passed);
        assert_eq!(
            summary.not_passed,
            [format!("`{b}` did not run"), format!("`{c}` did not run")]
        );
        // A position is no name: `#02` missing is missing.
        let at_base = BaseTests::of(
            "test",
            Some(0),
            &of(
                GoTest,
                &[(P, Passed), (&sub("#00"), Passed), (&sub("#01"), Passed)],
            ),
        );
        let (passed, _) = judge(
            Some(0),
            false,
            &of(
                GoTest,
                &[(P, Passed), (&sub("#00"), Passed), (&sub("x"), Passed)],
            ),
            Some(&at_base),
            NewTests::default(),
            &KnownFailures::default(),
        );
        assert!(!passed);
    }

    #[test]
    fn index_named_subtests_of_a_withheld_file_are_never_named_to_the_agent() {
        let text = "package toml\n\nimport \"testing\"\n\nfunc TestDecodeErrors(t *testing.T) {}\n";
        let modules = [(String::new(), "example.com/toml".to_owned())]
            .into_iter()
            .collect();
        let declared = Declared::read(&[("decode_test.go".to_owned(), text.to_owned())], &modules);
        let withheld = ["decode_test.go".to_owned()];
        let p = "example.com/toml/TestDecodeErrors";
        let (s0, s2) = (format!("{p}/#00"), format!("{p}/#02"));
        // The visible file's #02 passes; the withheld copy inserts a case at #02, which
        // fails at the base with the withheld file in place.
        let visible = BaseTests::of(
            "test",
            Some(0),
            &of(GoTest, &[(p, Passed), (&s0, Passed), (&s2, Passed)]),
        );
        let at_base = BaseTests::of(
            "test",
            Some(1),
            &of(GoTest, &[(p, Failed), (&s0, Passed), (&s2, Failed)]),
        );
        let (passed, summary) = judge(
            Some(1),
            false,
            &of(GoTest, &[(p, Failed), (&s0, Passed), (&s2, Failed)]),
            Some(&at_base),
            NewTests {
                acceptance: &[],
                withheld: &withheld,
                without_withheld: Some(&visible),
                declared: Some(&declared),
            },
            &KnownFailures::default(),
        );
        assert!(!passed);
        assert!(summary.failing_at_base.is_empty(), "{summary:?}");
        assert!(
            summary
                .not_passed
                .iter()
                .all(|n| n.starts_with(WITHHELD_MARK)),
            "{summary:?}"
        );
    }

    #[test]
    fn a_file_ran_when_a_test_of_it_ran_or_the_runner_counts_unnamed_passes() {
        let acceptance = ["tests/test_new.py".to_owned(), "tests/reset.rs".to_owned()];
        let new = NewTests {
            acceptance: &acceptance,
            ..NewTests::default()
        };
        let named = of(
            TestFramework::Pytest,
            &[
                ("tests/test_new.py::test_a", Failed),
                ("tests/test_old.py::t", Passed),
            ],
        );
        assert_eq!(
            new.files_ran(&named).into_iter().collect::<Vec<_>>(),
            ["tests/test_new.py"]
        );
        // unittest without `-v`: 3 passes counted, none named.
        let mut counted = of(TestFramework::Unittest, &[]);
        counted.counts = [(Passed, 3)].into_iter().collect();
        assert_eq!(new.files_ran(&counted).len(), 2);
    }
}
