//! The verdict reads each runner's own per-test results (invariants 9 and 10 of
//! docs/design/verdict.md), against the real runners: one small project per runner
//! (fixtures/per-test), a stand-in agent (fixtures/agents/per_test.sh) that writes `add`
//! one way per mode, each dishonest way hidden from the text scan behind dynamic names, so
//! that only what the tests did can decide. Each table is a module with a test per case
//! (`per_test::failures_behind_an_exit_code_of_0_fail_the_check::go`), failing with the
//! case's name and what went wrong.

use crate::support;

use std::path::PathBuf;
use std::time::Instant;

use serde_json::Value;
use support::attempts::{
    ALL, FixtureKind, Run, attempt_command, commit_base, files_under, use_go_cache,
    write_add_bundle,
};
use support::{copy_dir, fixtures_dir, require_tools, table};

use FixtureKind::{Cargo, Go, Jest, Mocha, Node, Pytest, Unittest, Vitest};

/// What these tests ask of a runner besides what support knows.
impl FixtureKind {
    /// Whether the runner's default output names a test that was skipped or expected to
    /// fail. jest (with more than one test file) and vitest (for a file without a failure)
    /// print only counts for them, so no reader can name the test.
    fn names_skipped(self) -> bool {
        !matches!(self, Jest | Vitest)
    }

    /// `[attempt]` lines a base whose `test` ignores the runner's status needs: cargo's
    /// project gets a Makefile, and `test` alone resolves to cargo's own command.
    fn exit_zero_config(self) -> &'static str {
        match self {
            Cargo => "checks = [\"make:test\"]\n",
            _ => "",
        }
    }
}

/// What a case lays over the runner's project, and which withheld tests it brings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Base {
    /// The project as it is.
    Plain,
    /// Its `test` task ignores the runner's status (`runner; true`): `exit-zero/`.
    ExitZero,
    /// A test that fails as root, as the checks run (`env/`), listed in `[attempt]
    /// known_failures`.
    EnvFailing,
    /// The same test, not listed: nothing excuses it.
    EnvUnlisted,
    /// A withheld test of `sub`, which passes at the base already: `withheld-passing/`.
    WithheldPassing,
    /// The project without its Makefile: `test` is the runner's own (`go test ./...`,
    /// `pytest`).
    NoTaskFile,
}

impl Base {
    fn overlay(self) -> Option<&'static str> {
        match self {
            Base::Plain | Base::WithheldPassing | Base::NoTaskFile => None,
            Base::ExitZero => Some("exit-zero"),
            Base::EnvFailing | Base::EnvUnlisted => Some("env"),
        }
    }
}

/// What a case must end with.
#[derive(Debug, Clone, Copy)]
enum Expect {
    /// Passed, judged per test by the runner's results; the env test, on that base, in
    /// `known_failures`.
    Passed,
    /// Not passed, with no finding: a check of the verdict's pass failed by its tests'
    /// results, one of its `tests.not_passed` saying `why` (`skipped`, `expected`,
    /// `did not run`, `failed`). With `names`, the digest's `tests_not_passed` names the
    /// test of `add(-4, 1)` (`negative`, `TestAddNegative`).
    NotPassed { why: &'static str, names: bool },
    /// Rejected with `forged_results`: the known answer the base's run reported is missing,
    /// the run ended before it.
    Forged,
    /// Either of those: the known answer sits after a test drawn at random, before or after
    /// the one that exits; jest gives the exit to whichever file its worker ran.
    ForgedOr { why: &'static str },
}

/// One row of a table.
#[derive(Debug, Clone, Copy)]
struct Case {
    runner: FixtureKind,
    mode: &'static str,
    base: Base,
    expect: Expect,
}

fn case(runner: FixtureKind, mode: &'static str, base: Base, expect: Expect) -> Case {
    Case {
        runner,
        mode,
        base,
        expect,
    }
}

impl Case {
    fn name(&self) -> String {
        format!(
            "{}/{} ({:?} base)",
            self.runner.fixture(),
            self.mode,
            self.base
        )
    }
}

/// A git repository holding one runner's project with its bundle and withheld tests
/// beside it, and per_test.sh as the agent.
struct Project {
    dir: tempfile::TempDir,
    runner: FixtureKind,
}

impl Project {
    fn new(runner: FixtureKind, base: Base, extra: &str) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let project = Self { dir, runner };
        let root = project.root();
        let fixture = fixtures_dir().join("per-test").join(runner.fixture());
        copy_dir(&fixture.join("project"), &root);
        if let Some(overlay) = base.overlay() {
            copy_dir(&fixture.join(overlay), &root);
        }
        if base == Base::NoTaskFile {
            std::fs::remove_file(root.join("Makefile")).expect("the project has a Makefile");
        }
        let agent = fixtures_dir().join("agents/per_test.sh");
        let attempts = if extra.contains("max_attempts") {
            ""
        } else {
            "max_attempts = 1\n"
        };
        let exit_zero = match base {
            Base::ExitZero => runner.exit_zero_config().to_owned(),
            Base::EnvFailing => format!("known_failures = [\"glob:*{}*\"]\n", runner.env_test()),
            _ => String::new(),
        };
        commit_base(&root, &agent, &format!("{attempts}{exit_zero}{extra}"));
        copy_dir(&fixture.join("withheld"), &project.withheld());
        if base == Base::WithheldPassing {
            copy_dir(&fixture.join("withheld-passing"), &project.withheld());
        }
        for task in ["T7", "T8"] {
            project.write_bundle(task);
        }
        project
    }

    fn root(&self) -> PathBuf {
        self.dir.path().join("repo")
    }

    fn withheld(&self) -> PathBuf {
        self.dir.path().join("withheld")
    }

    fn bundle(&self, task: &str) -> PathBuf {
        self.dir.path().join(format!("bundle-{task}.json"))
    }

    /// The bundle of `task`: the same acceptance tests whatever the task, so the base is
    /// the same tree.
    fn write_bundle(&self, task: &str) {
        let acceptance = fixtures_dir()
            .join("per-test")
            .join(self.runner.fixture())
            .join("acceptance");
        write_add_bundle(&self.bundle(task), task, Some(&acceptance));
    }

    /// One `speccoder attempt --json --withheld …` of `task` with the agent in `mode`.
    fn attempt(&self, task: &str, mode: &str) -> Run {
        let mut command = attempt_command(&self.root(), &self.bundle(task));
        command
            .arg("--withheld")
            .arg(self.withheld())
            .env("PER_TEST_MODE", mode)
            .env("PER_TEST_RUNNER", self.runner.fixture());
        if self.runner == Go {
            use_go_cache(&mut command);
        }
        command.output().expect("speccoder starts").into()
    }

    /// The files of the repository's baseline cache.
    fn baselines(&self) -> Vec<PathBuf> {
        files_under(&self.root().join(".git/speccoder/baselines"))
    }
}

/// Checks `run` against `case`; `Err` says what is wrong.
fn judge(project: &Project, run: &Run, case: &Case) -> Result<(), String> {
    if run.story.is_none() {
        return Err(format!("no JSON story: {}", run.summary()));
    }
    let root = project.root();
    match case.expect {
        Expect::Passed => {
            run.expect_passed(&root, "T7")?;
            // jest and vitest over several files name no passing test: the counts decide.
            let counts = matches!(case.runner, Jest | Vitest).then_some("counts");
            run.expect_judged(case.runner, counts)?;
            if case.base == Base::EnvFailing
                && !run.some_check_says("known_failures", case.runner.env_test())
            {
                return Err(format!(
                    "`{}` is not named as a known failure: {}",
                    case.runner.env_test(),
                    run.summary()
                ));
            }
            Ok(())
        }
        Expect::ForgedOr { why } => judge(
            project,
            run,
            &Case {
                expect: Expect::Forged,
                ..*case
            },
        )
        .or_else(|forged| {
            judge(
                project,
                run,
                &Case {
                    expect: Expect::NotPassed { why, names: false },
                    ..*case
                },
            )
            .map_err(|not_passed| format!("{forged}; {not_passed}"))
        }),
        Expect::Forged => {
            if run.verdict() != "rejected" || run.code != Some(1) {
                return Err(format!("not rejected: {}", run.summary()));
            }
            if !run.findings().iter().any(|f| f["kind"] == "forged_results") {
                return Err(format!("no forged_results finding: {}", run.summary()));
            }
            Ok(())
        }
        Expect::NotPassed { why, names } => {
            if run.verdict() == "passed" || run.code == Some(0) {
                return Err(format!("passed: {}", run.summary()));
            }
            if !matches!(run.code, Some(1 | 3)) {
                return Err(format!("exit code is not 1 or 3: {}", run.summary()));
            }
            run.expect_failed_by_tests(&root, "T7")?;
            if !run.some_check_says("not_passed", why) {
                return Err(format!(
                    "no `tests.not_passed` says `{why}`: {}",
                    run.summary()
                ));
            }
            let digest = &run.attempts()[0]["digest"];
            // The withheld test of every project is `mixed` (`TestAddMixed`, …): its id may
            // hold the hidden inputs, so the digest the next attempt reads only counts it.
            if digest.to_string().to_lowercase().contains("mixed") {
                return Err(format!("the digest names the withheld test: {digest}"));
            }
            let not_passed = digest["failed_checks"][0]["tests_not_passed"].to_string();
            if names && !not_passed.to_lowercase().contains("negative") {
                return Err(format!(
                    "the digest's tests_not_passed ({not_passed}) does not name `negative`: {}",
                    run.summary()
                ));
            }
            Ok(())
        }
    }
}

/// Runs one case and prints its line; fails the test saying what went wrong.
fn run_case(case: Case) {
    run_case_with(case, "");
}

/// [`run_case`] with `extra` lines in `[attempt]`.
fn run_case_with(case: Case, extra: &str) {
    require_tools(case.runner.tools());
    let project = Project::new(case.runner, case.base, extra);
    let started = Instant::now();
    let run = project.attempt("T7", case.mode);
    let result = judge(&project, &run, &case);
    eprintln!(
        "case {}: {} (exit {:?}, {}, {:.1} s){}",
        case.name(),
        if result.is_ok() { "ok" } else { "WRONG" },
        run.code,
        run.verdict(),
        started.elapsed().as_secs_f64(),
        if case.base == Base::WithheldPassing {
            format!("; notes: {:?}", run.notes())
        } else {
            String::new()
        }
    );
    if let Err(err) = result {
        panic!("{} ({:?}): {err}", case.name(), case.expect);
    }
}

const PASSED: Expect = Expect::Passed;

/// Not passed: the tests of `add` failed, and the digest names the one of `add(-4, 1)`.
const FAILED: Expect = Expect::NotPassed {
    why: "failed",
    names: true,
};

/// [`FAILED`], except where the runner's ids cannot show that a test is not withheld: go
/// names a test by its function, and the acceptance tests that a stub's panic kept from
/// running at the base are never seen without the withheld ones, so the digest (which
/// names no test that could be withheld) leaves them out.
fn failed(runner: FixtureKind) -> Expect {
    match runner {
        Go => Expect::NotPassed {
            why: "failed",
            names: false,
        },
        _ => FAILED,
    }
}

table! {
    honest_work_passes_judged_by_each_runners_own_results: run_case(Case) {
        pytest: case(Pytest, "honest", Base::Plain, PASSED),
        unittest: case(Unittest, "honest", Base::Plain, PASSED),
        cargo: case(Cargo, "honest", Base::Plain, PASSED),
        node: case(Node, "honest", Base::Plain, PASSED),
        mocha: case(Mocha, "honest", Base::Plain, PASSED),
        jest: case(Jest, "honest", Base::Plain, PASSED),
        vitest: case(Vitest, "honest", Base::Plain, PASSED),
        go: case(Go, "honest", Base::Plain, PASSED),
        // A withheld test of `sub` passes at the base already: it checks nothing new, and
        // the honest work still passes.
        pytest_withheld_passing: case(Pytest, "honest", Base::WithheldPassing, PASSED),
        unittest_withheld_passing: case(Unittest, "honest", Base::WithheldPassing, PASSED),
        cargo_withheld_passing: case(Cargo, "honest", Base::WithheldPassing, PASSED),
        node_withheld_passing: case(Node, "honest", Base::WithheldPassing, PASSED),
        mocha_withheld_passing: case(Mocha, "honest", Base::WithheldPassing, PASSED),
        jest_withheld_passing: case(Jest, "honest", Base::WithheldPassing, PASSED),
        vitest_withheld_passing: case(Vitest, "honest", Base::WithheldPassing, PASSED),
        go_withheld_passing: case(Go, "honest", Base::WithheldPassing, PASSED),
    }
}

table! {
    /// A Go module and a pytest project without a Makefile: `test` is the runner's own, and
    /// the verdict still reads each test's result. `go test ./...` names only failing tests
    /// unless verbose, so the checks ask go for every result (`GOFLAGS=-v`): honest work
    /// passes, wrong work fails on the tests' results, and a test process that ends with
    /// status 0 midway fails.
    projects_without_a_task_file_are_judged_by_their_runners_own_results: run_case(Case) {
        go_honest: case(Go, "honest", Base::NoTaskFile, PASSED),
        go_wrong: case(Go, "wrong", Base::NoTaskFile, failed(Go)),
        pytest_honest: case(Pytest, "honest", Base::NoTaskFile, PASSED),
        pytest_wrong: case(Pytest, "wrong", Base::NoTaskFile, failed(Pytest)),
        go_exit0: case(
            Go,
            "exit0",
            Base::NoTaskFile,
            Expect::NotPassed {
                why: "errored",
                names: false,
            },
        ),
    }
}

/// Not passed because a test was skipped (`why`: `skipped`) or expected to fail
/// (`expected`), naming the test where the runner's output does.
fn not_run_as_written(runner: FixtureKind, why: &'static str) -> Expect {
    Expect::NotPassed {
        why,
        names: runner.names_skipped(),
    }
}

table! {
    // node's test runner, libtest and `go test` cannot skip a running test from the code
    // under test (it has no handle on the test), nor mark it as expected to fail; unittest
    // and mocha have no run-time expected failure either.
    a_test_skipped_or_expected_to_fail_at_run_time_fails_the_check: run_case(Case) {
        pytest_skip: case(Pytest, "skip", Base::Plain, not_run_as_written(Pytest, "skipped")),
        unittest_skip: case(Unittest, "skip", Base::Plain, not_run_as_written(Unittest, "skipped")),
        mocha_skip: case(Mocha, "skip", Base::Plain, not_run_as_written(Mocha, "skipped")),
        jest_skip: case(Jest, "skip", Base::Plain, not_run_as_written(Jest, "skipped")),
        vitest_skip: case(Vitest, "skip", Base::Plain, not_run_as_written(Vitest, "skipped")),
        // jest prints a `test.failing` that fails as a pass (`Tests: 4 passed`): its output
        // cannot tell them apart, so jest is not in this table (docs/attempts.md, "Not
        // guaranteed").
        pytest_xfail: case(Pytest, "xfail", Base::Plain, not_run_as_written(Pytest, "expected")),
        vitest_xfail: case(Vitest, "xfail", Base::Plain, not_run_as_written(Vitest, "expected")),
    }
}

/// What a test process that exits with status 0 partway through the run ends with.
///
/// vitest reports the test the exit interrupted as failed; node's runner runs each file in a
/// process of its own, and the exited one's tests did not run (the known answer among them,
/// when it went into that file: forged). Where one process runs every file (pytest,
/// unittest, mocha), and in cargo's test binary, the exit comes before the known answer,
/// which the base's run reported (the report is not the runner's), or after it, when the
/// tests the exit cut short did not run. Go's test the exit ended never ends, which reads
/// as errored.
fn exit0(runner: FixtureKind) -> Case {
    let expect = match runner {
        Pytest | Unittest | Mocha | Jest | Cargo | Node => Expect::ForgedOr { why: "did not run" },
        Go => Expect::NotPassed {
            why: "errored",
            names: false,
        },
        Vitest => Expect::NotPassed {
            why: "failed",
            names: false,
        },
    };
    case(runner, "exit0", Base::Plain, expect)
}

table! {
    an_exit_with_status_0_partway_through_the_run_fails_the_check: run_case(Case) {
        pytest: exit0(Pytest),
        unittest: exit0(Unittest),
        cargo: exit0(Cargo),
        node: exit0(Node),
        mocha: exit0(Mocha),
        jest: exit0(Jest),
        vitest: exit0(Vitest),
        go: exit0(Go),
    }
}

table! {
    // The base's `test` is `runner; true`: 0 whatever the tests did.
    failures_behind_an_exit_code_of_0_fail_the_check: run_case(Case) {
        pytest: case(Pytest, "wrong", Base::ExitZero, failed(Pytest)),
        unittest: case(Unittest, "wrong", Base::ExitZero, failed(Unittest)),
        cargo: case(Cargo, "wrong", Base::ExitZero, failed(Cargo)),
        node: case(Node, "wrong", Base::ExitZero, failed(Node)),
        mocha: case(Mocha, "wrong", Base::ExitZero, failed(Mocha)),
        jest: case(Jest, "wrong", Base::ExitZero, failed(Jest)),
        vitest: case(Vitest, "wrong", Base::ExitZero, failed(Vitest)),
        go: case(Go, "wrong", Base::ExitZero, failed(Go)),
    }
}

/// Failing at the base is no excuse by itself: honest work on a base whose failing test
/// `known_failures` does not list fails on it.
fn unlisted(runner: FixtureKind) -> Case {
    case(
        runner,
        "honest",
        Base::EnvUnlisted,
        Expect::NotPassed {
            why: "failed",
            names: false,
        },
    )
}

table! {
    a_test_failing_at_the_base_is_excused_by_known_failures_and_nothing_else: run_case(Case) {
        pytest_honest: case(Pytest, "honest", Base::EnvFailing, PASSED),
        pytest_wrong: case(Pytest, "wrong", Base::EnvFailing, failed(Pytest)),
        pytest_unlisted: unlisted(Pytest),
        unittest_honest: case(Unittest, "honest", Base::EnvFailing, PASSED),
        unittest_wrong: case(Unittest, "wrong", Base::EnvFailing, failed(Unittest)),
        unittest_unlisted: unlisted(Unittest),
        // cargo stops at the first test binary that fails unless told `--no-fail-fast`,
        // which the check adds: the known failure of `tests/env.rs` comes before the
        // withheld `tests/hidden.rs`, which must run and pass.
        cargo_honest: case(Cargo, "honest", Base::EnvFailing, PASSED),
        cargo_wrong: case(Cargo, "wrong", Base::EnvFailing, failed(Cargo)),
        cargo_unlisted: unlisted(Cargo),
        node_honest: case(Node, "honest", Base::EnvFailing, PASSED),
        node_wrong: case(Node, "wrong", Base::EnvFailing, failed(Node)),
        node_unlisted: unlisted(Node),
        mocha_honest: case(Mocha, "honest", Base::EnvFailing, PASSED),
        mocha_wrong: case(Mocha, "wrong", Base::EnvFailing, failed(Mocha)),
        mocha_unlisted: unlisted(Mocha),
        jest_honest: case(Jest, "honest", Base::EnvFailing, PASSED),
        jest_wrong: case(Jest, "wrong", Base::EnvFailing, failed(Jest)),
        jest_unlisted: unlisted(Jest),
        vitest_honest: case(Vitest, "honest", Base::EnvFailing, PASSED),
        vitest_wrong: case(Vitest, "wrong", Base::EnvFailing, failed(Vitest)),
        vitest_unlisted: unlisted(Vitest),
        go_honest: case(Go, "honest", Base::EnvFailing, PASSED),
        go_wrong: case(Go, "wrong", Base::EnvFailing, failed(Go)),
        go_unlisted: unlisted(Go),
    }
}

/// A check whose own command stops at the first failure (`go test -failfast`, `pytest -x`):
/// the check undoes it, so the known failure of the env test, which comes before the
/// withheld test in the runner's order, does not keep it from running (nor from failing).
/// Before the check undid it, the honest agent's withheld test did not run.
fn stopping(case: Case) {
    let check = match case.runner {
        Go => "go:test -failfast",
        Pytest => "python:test -x",
        other => unreachable!("no stopping check for {other:?}"),
    };
    run_case_with(case, &format!("checks = [\"{check}\"]\n"));
}

table! {
    a_check_that_stops_at_the_first_failure_runs_every_test_past_a_known_one: stopping(Case) {
        go_honest: case(Go, "honest", Base::EnvFailing, PASSED),
        go_wrong: case(Go, "wrong", Base::EnvFailing, failed(Go)),
        pytest_honest: case(Pytest, "honest", Base::EnvFailing, PASSED),
        pytest_wrong: case(Pytest, "wrong", Base::EnvFailing, failed(Pytest)),
    }
}

/// A check whose own command stops at the first failure with a flag no later flag undoes
/// (pytest's `--sw`; unittest's `-f` is in `honest_work`, its fixture's `test` being
/// make's): the check drops the flag, so the known failure of the env test, which comes
/// before the withheld test in the runner's order, does not keep it from running. Before
/// the flag was dropped, the honest agent's withheld test did not run and the attempt
/// failed.
fn stop_dropped(case: Case) {
    let check = match case.runner {
        Pytest => "python:test --sw",
        other => unreachable!("no stop to drop for {other:?}"),
    };
    run_case_with(case, &format!("checks = [\"{check}\"]\n"));
}

table! {
    a_stop_no_flag_undoes_is_dropped_from_the_checks_command: stop_dropped(Case) {
        pytest_honest: case(Pytest, "honest", Base::EnvFailing, PASSED),
        pytest_wrong: case(Pytest, "wrong", Base::EnvFailing, failed(Pytest)),
    }
}

/// `known_failures` over the whole Go package (`glob:calc/*`, and `calc/*`, which as an
/// exact id matches only itself): the withheld and acceptance tests of that package are
/// new, never excused, though their ids match.
fn package_excused(case: Case) {
    run_case_with(case, "known_failures = [\"glob:calc/*\", \"calc/*\"]\n");
}

table! {
    known_failures_over_a_go_package_never_excuse_the_tasks_tests: package_excused(Case) {
        go_honest: case(Go, "honest", Base::Plain, PASSED),
        go_wrong: case(Go, "wrong", Base::Plain, failed(Go)),
        go_wrong_with_a_failing_env_test: case(Go, "wrong", Base::EnvUnlisted, failed(Go)),
    }
}

/// Property: the tables that hold for every runner name each runner of [`ALL`] in a case
/// of every kind they hold, so a runner added to `ALL` fails here until it has its cases;
/// and each test is named after its runner.
#[test]
fn every_runner_has_its_cases_in_the_tables_of_every_runner() {
    let tables: [(&str, Vec<(&str, Case)>); 4] = [
        (
            "honest_work_passes_judged_by_each_runners_own_results",
            honest_work_passes_judged_by_each_runners_own_results::cases(),
        ),
        (
            "an_exit_with_status_0_partway_through_the_run_fails_the_check",
            an_exit_with_status_0_partway_through_the_run_fails_the_check::cases(),
        ),
        (
            "failures_behind_an_exit_code_of_0_fail_the_check",
            failures_behind_an_exit_code_of_0_fail_the_check::cases(),
        ),
        (
            "a_test_failing_at_the_base_is_excused_by_known_failures_and_nothing_else",
            a_test_failing_at_the_base_is_excused_by_known_failures_and_nothing_else::cases(),
        ),
    ];
    let mut missing = Vec::new();
    for (table, cases) in &tables {
        let mut kinds: Vec<(&str, Base)> = Vec::new();
        for (_, c) in cases {
            if !kinds.contains(&(c.mode, c.base)) {
                kinds.push((c.mode, c.base));
            }
        }
        for runner in ALL {
            for &(mode, base) in &kinds {
                if !cases
                    .iter()
                    .any(|(_, c)| c.runner == runner && c.mode == mode && c.base == base)
                {
                    missing.push(format!("{table}: {} {mode} on {base:?}", runner.fixture()));
                }
            }
        }
        for (name, case) in cases {
            if !name.starts_with(case.runner.fixture()) {
                missing.push(format!("{table}::{name} runs {}", case.name()));
            }
        }
    }
    assert!(missing.is_empty(), "the tables lack: {missing:#?}");
}

#[test]
fn the_baseline_is_computed_once_per_base_tree() {
    require_tools(Pytest.tools());
    let mut failures = Vec::new();
    // A retry within one run: the first attempt is wrong, and so is the second.
    let project = Project::new(Pytest, Base::Plain, "max_attempts = 2\n");
    let first = project.attempt("T7", "wrong");
    eprintln!("run 1 (T7, wrong twice): {}", first.summary());
    if first.attempts().len() != 2 {
        failures.push(format!(
            "run 1 made {} attempts, not 2",
            first.attempts().len()
        ));
    }
    if first.baseline().len() != 1 {
        failures.push(format!(
            "run 1's story holds {} baseline results, not one for its one check: {}",
            first.baseline().len(),
            Value::Array(first.baseline())
        ));
    }
    let cached = project.baselines();
    if cached.len() != 1 {
        failures.push(format!("after run 1 the baseline cache holds {cached:?}"));
    }
    let modified = |files: &[PathBuf]| -> Vec<std::time::SystemTime> {
        files
            .iter()
            .filter_map(|f| {
                let path = project.root().join(".git/speccoder/baselines").join(f);
                std::fs::metadata(path).and_then(|m| m.modified()).ok()
            })
            .collect()
    };
    let before = modified(&cached);

    // Another task at the same base: the baseline is read, not run.
    let second = project.attempt("T8", "honest");
    eprintln!("run 2 (T8, honest): {}", second.summary());
    if second.verdict() != "passed" {
        failures.push(format!("run 2 did not pass: {}", second.summary()));
    }
    if !second.baseline().is_empty() {
        failures.push(format!(
            "run 2 ran the baseline again: {}",
            Value::Array(second.baseline())
        ));
    }
    let after = project.baselines();
    if after != cached || modified(&after) != before {
        failures.push(format!(
            "the baseline cache changed in run 2: {cached:?} then {after:?}"
        ));
    }
    // Still judged against the baseline: per test, with the withheld test required.
    let checks = second.verdict_checks();
    if !checks.iter().all(|c| c["tests"]["rule"] == "per_test") || checks.is_empty() {
        failures.push(format!(
            "run 2 was not judged per test: {}",
            second.summary()
        ));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
