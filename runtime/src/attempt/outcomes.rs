//! Judging a check by its tests' own results (invariant 9 of `spec/verdict.md`), against
//! the baseline (invariant 10): for a runner speccoder recognises, every test that passed
//! at the base and every withheld and acceptance test must run and pass, and a test may
//! fail only if it failed at the base too. An unrecognised runner keeps the exit-code rule.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::results::{TestOutcome, TestReport, TestRunner};

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
    /// not run is withheld, or unknown, and the digest does not name it.
    pub(crate) without_withheld: Option<&'a BaseTests>,
}

/// The rule a check was judged by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// The exit code alone: no recognised runner's output was found.
    #[default]
    ExitCode,
    /// The tests' own results, against the baseline.
    PerTest,
}

/// What a check's tests said, for the story and the digest.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TestSummary {
    /// How the check was judged.
    pub rule: Rule,
    /// The runners recognised in its output.
    pub runners: Vec<TestRunner>,
    /// How many tests ended each way.
    pub counts: BTreeMap<TestOutcome, usize>,
    /// Tests that had to pass and did not (failed, skipped, xfailed, or not run), first
    /// ones, with what happened.
    pub not_passed: Vec<String>,
    /// How many tests had to pass and did not.
    pub not_passed_count: usize,
    /// Tests failing now that already failed at the base, neither required nor blamed.
    pub failing_before: Vec<String>,
    /// Why the check failed although no test did, if so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unexplained: Option<String>,
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
    pub(crate) runners: Vec<TestRunner>,
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
        }
    }
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

/// Judges one check: whether it passed, and the summary. `base` is the same op at the
/// base (with the withheld and acceptance tests), when the baseline ran; `without` the same
/// op at `HEAD` without them, when there are some: what fails there is the environment's;
/// a test only `base` runs is one of theirs. `new` are the withheld and acceptance tests,
/// as paths from the project root.
pub(crate) fn judge(
    exit_code: Option<i32>,
    timed_out: bool,
    report: &TestReport,
    base: Option<&BaseTests>,
    without: Option<&BaseTests>,
    new: NewTests<'_>,
) -> (bool, TestSummary) {
    let required_files: Vec<String> = new.acceptance.iter().chain(new.withheld).cloned().collect();
    let required_files = required_files.as_slice();
    let exit_ok = exit_code == Some(0) && !timed_out;
    let mut summary = TestSummary {
        runners: report.runners.clone(),
        counts: report.counts.clone(),
        ..TestSummary::default()
    };
    // Runners that name each test: the counts are those of the named tests.
    if summary.counts.is_empty() {
        for outcome in report.tests.values() {
            *summary.counts.entry(*outcome).or_default() += 1;
        }
    }
    // A withheld test, or one speccoder cannot tell from one: from a withheld file, or not
    // run at the base without the withheld tests (the digest names neither).
    let withheld = |id: &str| {
        from_files(id, new.withheld)
            || (!new.withheld.is_empty()
                && new
                    .without_withheld
                    .is_none_or(|w| !w.tests.contains_key(id))
                && !from_files(id, new.acceptance))
    };
    // A runner that reported at the base and prints no results now ended before its
    // report (an exit partway through the run, whatever its status).
    let silent: Vec<&TestRunner> = base
        .map(|b| {
            b.runners
                .iter()
                .filter(|r| !report.runners.contains(r))
                .collect()
        })
        .unwrap_or_default();
    if let (Some(runner), Some(base)) = (silent.first(), base) {
        summary.rule = Rule::PerTest;
        // Every test that passed at the base, and every new one, did not run.
        let mut missing: Vec<String> = base
            .tests
            .iter()
            .filter(|(id, o)| {
                **o == TestOutcome::Passed
                    || from_files(id, new.acceptance)
                    || from_files(id, new.withheld)
            })
            .map(|(id, _)| {
                let mark = if withheld(id) { WITHHELD_MARK } else { "" };
                format!("{mark}`{id}` did not run")
            })
            .collect();
        summary.not_passed_count = missing.len();
        missing.truncate(MAX_NAMED);
        summary.not_passed = missing;
        summary.unexplained = Some(format!(
            "`{}` reported its tests at the base and printed no results now: the run ended before its report",
            serde_json::to_value(runner)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default()
        ));
        return (false, summary);
    }
    if report.runners.is_empty() {
        return (exit_ok, summary);
    }
    summary.rule = Rule::PerTest;
    if timed_out {
        summary.unexplained = Some("the check timed out".into());
        return (false, summary);
    }
    let empty = BTreeMap::new();
    let base_tests = base.map_or(&empty, |b| &b.tests);
    // Every test that passed at the base, and every withheld and acceptance test.
    let mut required: Vec<&String> = base_tests
        .iter()
        .filter(|(_, o)| **o == TestOutcome::Passed)
        .map(|(id, _)| id)
        .collect();
    for id in base_tests.keys().chain(report.tests.keys()) {
        if from_files(id, required_files) && !required.contains(&id) {
            required.push(id);
        }
    }
    // What the base runs only with the withheld and acceptance tests in place is theirs.
    if let Some(without) = without {
        required.extend(
            base_tests
                .keys()
                .filter(|id| !without.tests.contains_key(*id)),
        );
    }
    required.sort();
    required.dedup();
    // What fails for the environment: at HEAD without the new tests, or else at the base.
    let environment = without.map_or(base_tests, |w| &w.tests);
    // jest and vitest name only the failing tests when they run several files: a test
    // they do not name passed, and the counts must say so.
    let unnamed_passes = report
        .runners
        .iter()
        .any(|r| matches!(r, TestRunner::Jest | TestRunner::Vitest));
    let mut not_passed = Vec::new();
    let mut newly_passing = 0;
    for id in &required {
        let now = report.tests.get(*id).copied();
        if now.is_none() && unnamed_passes {
            newly_passing += usize::from(base_tests.get(*id) != Some(&TestOutcome::Passed));
            continue;
        }
        if now != Some(TestOutcome::Passed) && now != Some(TestOutcome::Xpassed) {
            let mark = if withheld(id) { WITHHELD_MARK } else { "" };
            not_passed.push(format!("{mark}`{id}` {}", outcome_word(now)));
        }
    }
    if unnamed_passes && let Some(base) = base {
        let count = |c: &BTreeMap<TestOutcome, usize>, o| c.get(&o).copied().unwrap_or(0);
        let passed_now = count(&report.counts, TestOutcome::Passed);
        let needed = count(&base.counts, TestOutcome::Passed) + newly_passing;
        if passed_now < needed {
            not_passed.push(format!(
                "{passed_now} tests passed, {needed} must (every test that passed at the base and every new one)"
            ));
        }
        let skipped = |c: &BTreeMap<TestOutcome, usize>| {
            count(c, TestOutcome::Skipped) + count(c, TestOutcome::Xfailed)
        };
        if skipped(&report.counts) > skipped(&base.counts) {
            not_passed.push(format!(
                "{} tests skipped or expected to fail, {} at the base",
                skipped(&report.counts),
                skipped(&base.counts)
            ));
        }
    }
    let mut failing_before = Vec::new();
    for (id, outcome) in &report.tests {
        if !failing(*outcome) || required.contains(&id) {
            continue;
        }
        if environment.get(id).copied().is_some_and(failing) {
            failing_before.push(format!("`{id}`"));
        } else {
            let mark = if withheld(id) { WITHHELD_MARK } else { "" };
            not_passed.push(format!("{mark}`{id}` {}", outcome_word(Some(*outcome))));
        }
    }
    // Runners that print only counts: no fewer tests may pass, and no more may be
    // skipped, than at the base.
    if report.tests.is_empty() {
        let count = |counts: &BTreeMap<TestOutcome, usize>, o| counts.get(&o).copied().unwrap_or(0);
        let base_counts = base.map(|b| &b.counts);
        let passed_now = count(&report.counts, TestOutcome::Passed);
        let skipped_now = count(&report.counts, TestOutcome::Skipped)
            + count(&report.counts, TestOutcome::Xfailed);
        if let Some(base_counts) = base_counts {
            let passed_base = count(base_counts, TestOutcome::Passed);
            let skipped_base =
                count(base_counts, TestOutcome::Skipped) + count(base_counts, TestOutcome::Xfailed);
            let total = |c: &BTreeMap<TestOutcome, usize>| c.values().sum::<usize>();
            if total(&report.counts) < total(base_counts) {
                not_passed.push(format!(
                    "{} tests ran, {} at the base",
                    total(&report.counts),
                    total(base_counts)
                ));
            }
            if passed_now < passed_base {
                not_passed.push(format!(
                    "{passed_now} tests passed, {passed_base} at the base"
                ));
            }
            if skipped_now > skipped_base {
                not_passed.push(format!(
                    "{skipped_now} tests skipped or expected to fail, {skipped_base} at the base"
                ));
            }
        }
        let failed_now = count(&report.counts, TestOutcome::Failed)
            + count(&report.counts, TestOutcome::Errored);
        // Only the environment's failures, counted at HEAD without the new tests, may stay.
        let allowed = without.or(base).map_or(0, |b| {
            count(&b.counts, TestOutcome::Failed) + count(&b.counts, TestOutcome::Errored)
        });
        let allowed = if without.is_none() && !required_files.is_empty() {
            0
        } else {
            allowed
        };
        if failed_now > allowed {
            not_passed.push(format!("{failed_now} tests failed or errored"));
        } else if failed_now > 0 {
            failing_before.push(format!("{failed_now} tests, as at the base"));
        }
    }
    summary.not_passed_count = not_passed.len();
    not_passed.truncate(MAX_NAMED);
    summary.not_passed = not_passed;
    failing_before.truncate(MAX_NAMED);
    summary.failing_before = failing_before;
    let tests_ok = summary.not_passed_count == 0;
    // A non-zero exit is explained only by tests that failed at the base too; an output
    // that says it failed is believed, whatever the exit code.
    let explained = !summary.failing_before.is_empty();
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
            runners: vec![TestRunner::Pytest],
            tests: tests.iter().map(|(id, o)| ((*id).to_owned(), *o)).collect(),
            ..TestReport::default()
        }
    }

    fn base(tests: &[(&str, TestOutcome)]) -> BaseTests {
        BaseTests::of("test", Some(1), &report(tests))
    }

    use TestOutcome::{Errored, Failed, Passed, Skipped};

    #[track_caller]
    fn case(
        exit: i32,
        now: &[(&str, TestOutcome)],
        at_base: &[(&str, TestOutcome)],
        want: bool,
        want_not_passed: &[&str],
    ) {
        let withheld = ["tests/test_hidden.py".to_owned()];
        // The base without the withheld test runs the others.
        let visible: Vec<(&str, TestOutcome)> = at_base
            .iter()
            .filter(|(id, _)| !id.contains("hidden"))
            .copied()
            .collect();
        let without_withheld = base(&visible);
        let (passed, summary) = judge(
            Some(exit),
            false,
            &report(now),
            Some(&base(at_base)),
            None,
            NewTests {
                acceptance: &[],
                withheld: &withheld,
                without_withheld: Some(&without_withheld),
            },
        );
        assert_eq!(passed, want, "{summary:?}");
        assert_eq!(summary.not_passed, want_not_passed, "{summary:?}");
    }

    #[test]
    fn per_test_rules() {
        let a = "tests/test_a.py::test_a";
        let b = "tests/test_a.py::test_b";
        let env = "tests/test_env.py::test_root_only";
        let hidden = "tests/test_hidden.py::test_new";
        // All pass.
        case(
            0,
            &[(a, Passed), (hidden, Passed)],
            &[(a, Passed), (hidden, Failed)],
            true,
            &[],
        );
        // A test that passed at the base is skipped now.
        case(
            0,
            &[(a, Skipped), (hidden, Passed)],
            &[(a, Passed)],
            false,
            &[&format!("`{a}` was skipped")],
        );
        // Not collected at all.
        case(
            0,
            &[(hidden, Passed)],
            &[(a, Passed)],
            false,
            &[&format!("`{a}` did not run")],
        );
        // A withheld test that is deselected.
        case(
            0,
            &[(a, Passed)],
            &[(a, Passed), (hidden, Failed)],
            false,
            &[&format!("(withheld) `{hidden}` did not run")],
        );
        // Failing at the base for the environment: neither required nor blamed, and it
        // explains the exit code.
        case(
            1,
            &[(a, Passed), (env, Failed), (hidden, Passed)],
            &[(a, Passed), (env, Failed)],
            true,
            &[],
        );
        // A new failure is blamed.
        case(
            1,
            &[(a, Passed), (b, Errored)],
            &[(a, Passed)],
            false,
            // Never seen at the base without the withheld tests: it could be one, and the
            // digest does not name it.
            &[&format!("(withheld) `{b}` errored")],
        );
    }

    #[test]
    fn exit_codes_the_tests_do_not_explain() {
        let a = "tests/test_a.py::test_a";
        let (passed, summary) = judge(
            Some(0),
            false,
            &TestReport {
                failure_claims: vec!["FAILED (failures=2)".into()],
                ..report(&[(a, Passed)])
            },
            Some(&base(&[(a, Passed)])),
            None,
            NewTests::default(),
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
            &report(&[(a, Passed)]),
            Some(&base(&[(a, Passed)])),
            None,
            NewTests::default(),
        );
        assert!(!passed);
        assert_eq!(
            summary.unexplained.as_deref(),
            Some("it exited 2, and no test failed")
        );
    }

    #[test]
    fn a_runner_silent_now_ended_early() {
        let at_base = base(&[("tests/test_a.py::test_a", Passed)]);
        let (passed, summary) = judge(
            Some(0),
            false,
            &TestReport::default(),
            Some(&at_base),
            None,
            NewTests::default(),
        );
        assert!(!passed);
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
        };
        let (_, summary) = judge(
            Some(0),
            false,
            &TestReport::default(),
            Some(&hidden),
            None,
            new,
        );
        assert_eq!(
            summary.not_passed,
            ["(withheld) `hidden case 7` did not run"]
        );
    }

    #[test]
    fn jest_and_vitest_passes_are_counted() {
        // With several files jest names only failures: the counts must cover every test.
        let mut at_base = TestReport {
            runners: vec![TestRunner::Jest],
            tests: [("test/add.test.js > small".to_owned(), Failed)]
                .into_iter()
                .collect(),
            ..TestReport::default()
        };
        at_base.counts = [(Passed, 2), (Failed, 1)].into_iter().collect();
        let base = BaseTests::of("test", Some(1), &at_base);
        let now = |passed| TestReport {
            runners: vec![TestRunner::Jest],
            counts: [(Passed, passed)].into_iter().collect(),
            ..TestReport::default()
        };
        let files = ["test/add.test.js".to_owned()];
        let new = NewTests {
            acceptance: &files,
            withheld: &[],
            without_withheld: None,
        };
        assert!(judge(Some(0), false, &now(3), Some(&base), None, new).0);
        let (passed, summary) = judge(Some(0), false, &now(2), Some(&base), None, new);
        assert!(!passed);
        assert_eq!(
            summary.not_passed,
            [
                "2 tests passed, 3 must (every test that passed at the base and every new one)",
                "2 tests ran, 3 at the base"
            ]
        );
    }

    #[test]
    fn an_unrecognised_runner_keeps_the_exit_code_rule() {
        let (passed, summary) = judge(
            Some(0),
            false,
            &TestReport::default(),
            None,
            None,
            NewTests::default(),
        );
        assert!(passed);
        assert_eq!(summary.rule, Rule::ExitCode);
        assert!(
            !judge(
                Some(1),
                false,
                &TestReport::default(),
                None,
                None,
                NewTests::default()
            )
            .0
        );
    }

    #[test]
    fn tests_only_the_base_runs_are_the_new_ones() {
        // Node names tests without their file: the new ones are told apart by the run at
        // HEAD without them, where the environment's failures show too.
        let small = "small";
        let sub = "sub";
        let env = "needs root";
        let with = base(&[(small, Failed), (sub, Passed), (env, Failed)]);
        let without = base(&[(sub, Passed), (env, Failed)]);
        let judge_now = |now: &[(&str, TestOutcome)], exit| {
            judge(
                Some(exit),
                false,
                &report(now),
                Some(&with),
                Some(&without),
                NewTests::default(),
            )
        };
        let (passed, summary) = judge_now(&[(small, Failed), (sub, Passed), (env, Failed)], 1);
        assert!(!passed);
        assert_eq!(summary.not_passed, ["`small` failed"]);
        let (passed, summary) = judge_now(&[(small, Passed), (sub, Passed), (env, Failed)], 1);
        assert!(passed, "{summary:?}");
        assert_eq!(summary.failing_before, ["`needs root`"]);
    }

    #[test]
    fn counts_only_runners_compare_counts() {
        let counts = |p, f| {
            let mut c = BTreeMap::new();
            c.insert(Passed, p);
            c.insert(Failed, f);
            c
        };
        let report = |p, f| TestReport {
            runners: vec![TestRunner::Unittest],
            counts: counts(p, f),
            ..TestReport::default()
        };
        let with = BaseTests {
            op: "test".into(),
            exit_code: Some(1),
            tests: BTreeMap::new(),
            counts: counts(3, 2),
            runners: vec![TestRunner::Unittest],
        };
        let without = BaseTests {
            op: "test".into(),
            exit_code: Some(0),
            tests: BTreeMap::new(),
            counts: counts(3, 0),
            runners: vec![TestRunner::Unittest],
        };
        let files = ["tests/test_add.py".to_owned()];
        let files = NewTests {
            acceptance: &files,
            withheld: &[],
            without_withheld: None,
        };
        assert!(
            judge(
                Some(0),
                false,
                &report(5, 0),
                Some(&with),
                Some(&without),
                files
            )
            .0
        );
        assert!(
            !judge(
                Some(1),
                false,
                &report(3, 2),
                Some(&with),
                Some(&without),
                files
            )
            .0
        );
        assert!(
            !judge(
                Some(0),
                false,
                &report(4, 0),
                Some(&with),
                Some(&without),
                files
            )
            .0
        );
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
}
