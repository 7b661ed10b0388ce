//! The control matrix of invariant 10 (docs/design/verdict.md): for every recognised test runner
//! and every way a check starts, with the task's tests in the base and failing there, in the
//! bundle's acceptance tests, or withheld, an honest change passes and a wrong one, an empty
//! one and one that makes one of the two task tests pass all fail; so do a forger (the
//! runner's assertion or report forged, fixtures/controls/<runner>/agents/forger.*) and an
//! always-equal agent (invariant 12: the twins catch both). Each cell is a real
//! `speccoder attempt` with the real runner, on the calculator projects of fixtures/per-test
//! laid over by fixtures/controls, with fixtures/agents/controls.sh as the agent.
//!
//! The cells share work: the four agents of the plain project run one after another in one
//! repository per runner, start and placement, under distinct task ids, so the baseline at
//! the base runs once (it is cached per base tree). A test is one repository:
//! `controls::pytest_python_in_base::plain` runs the honest, wrong, empty and half agents of
//! the plain project, `…::skip` and `…::known_failure` the honest agent of the other two.

use crate::support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

use support::attempts::{
    ALL, FixtureKind, Run, attempt_command, commit_base, use_go_cache, write_add_bundle,
};
use support::{copy_dir, fixtures_dir, require_tools, table};

impl FixtureKind {
    /// The `known_failures` entry for the test of `env/`, which fails as root (as the
    /// checks run): a `glob:` over the id the runner gives it where the id has a file or
    /// suite part, the id itself where it has none.
    fn env_glob(self) -> &'static str {
        match self {
            FixtureKind::Pytest => "glob:tests/test_env.py::*",
            FixtureKind::Unittest => "glob:test_env.*",
            FixtureKind::Cargo => "glob:tests/env.rs::*",
            FixtureKind::Node => "not root",
            FixtureKind::Mocha => "glob:env > *",
            FixtureKind::Jest | FixtureKind::Vitest => "glob:test/env.test.js > *",
            FixtureKind::Go => "glob:*/TestNotRoot",
        }
    }
}

/// How the check starts: the task `test` resolves to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Start {
    /// The python runner's `test` (`pytest`): the project has no Makefile.
    Python,
    /// The project's Makefile.
    Make,
    /// A justfile (fixtures/controls/<runner>/just) instead of the Makefile.
    Just,
    /// `cargo test`.
    Cargo,
    /// package.json's `test` script.
    Script,
    /// A Taskfile (fixtures/controls/<runner>/task), beside a package.json without scripts.
    Task,
    /// The go runner's `test` (`go test ./...`): the project has no Makefile.
    Go,
}

impl Start {
    fn name(self) -> &'static str {
        match self {
            Start::Python => "python",
            Start::Make => "make",
            Start::Just => "just",
            Start::Cargo => "cargo",
            Start::Script => "script",
            Start::Task => "task",
            Start::Go => "go",
        }
    }

    /// Its folder under fixtures/controls/<runner>, laid over the project.
    fn overlay(self) -> Option<&'static str> {
        match self {
            Start::Just => Some("just"),
            Start::Task => Some("task"),
            Start::Python | Start::Make | Start::Cargo | Start::Script | Start::Go => None,
        }
    }

    /// Whether the project's Makefile goes, so that `test` reaches this start.
    fn drops_makefile(self) -> bool {
        matches!(self, Start::Python | Start::Just | Start::Go)
    }

    /// What the command of the check must hold.
    fn command(self) -> &'static str {
        match self {
            Start::Python => "pytest",
            Start::Make => "make test",
            Start::Just => "just test",
            Start::Cargo => "cargo test",
            Start::Script => " run ",
            Start::Task => "task test",
            Start::Go => "go test",
        }
    }

    fn tools(self) -> &'static [&'static str] {
        match self {
            Start::Just => &["just"],
            Start::Task => &["task"],
            Start::Python | Start::Make | Start::Cargo | Start::Script | Start::Go => &[],
        }
    }
}

/// A runner and how its check starts: the first axis of the matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Combo {
    runner: FixtureKind,
    start: Start,
}

const fn combo(runner: FixtureKind, start: Start) -> Combo {
    Combo { runner, start }
}

/// Every combination of the matrix, each runner and each start at least once.
const COMBOS: [Combo; 9] = [
    combo(FixtureKind::Pytest, Start::Python),
    // `-v`: the runner names each test.
    combo(FixtureKind::Unittest, Start::Make),
    // No `-v`: the runner names no passing test, only counts.
    combo(FixtureKind::Unittest, Start::Just),
    combo(FixtureKind::Cargo, Start::Cargo),
    combo(FixtureKind::Node, Start::Script),
    combo(FixtureKind::Mocha, Start::Task),
    combo(FixtureKind::Jest, Start::Script),
    combo(FixtureKind::Vitest, Start::Script),
    combo(FixtureKind::Go, Start::Go),
];

impl Combo {
    fn name(self) -> String {
        format!("{}/{}", self.runner.fixture(), self.start.name())
    }

    /// Whether the check's output names each passing test, so that the verdict must judge
    /// it per test. Three name only the tests that fail and count the rest, and may be
    /// judged by the counts (the printed line shows the rule): unittest without `-v`, and
    /// jest and vitest running several test files (jest lists each test only for a single
    /// file, vitest only in a file that has a failure).
    fn names_passes(self) -> bool {
        self != combo(FixtureKind::Unittest, Start::Just)
            && !matches!(self.runner, FixtureKind::Jest | FixtureKind::Vitest)
    }
}

/// Where the task's tests (fixtures/per-test/<runner>/acceptance) are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Placement {
    /// (a) Committed in the base before the attempt, failing there, as an orchestrator
    /// that writes spec-derived tests first leaves them.
    InBase,
    /// (b) The bundle's `acceptance` files.
    Acceptance,
    /// (c) The `--withheld` folder.
    Withheld,
}

impl Placement {
    fn label(self) -> &'static str {
        match self {
            Placement::InBase => "a",
            Placement::Acceptance => "b",
            Placement::Withheld => "c",
        }
    }
}

/// What the project holds besides its runner's files and the task's tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Variant {
    /// Nothing more.
    Plain,
    /// The task's test file also holds an unrelated test that its own marker skips on this
    /// platform (fixtures/controls/<runner>/skip).
    Skip,
    /// A test that fails as root (fixtures/per-test/<runner>/env), listed in `[attempt]
    /// known_failures`.
    KnownFailure,
}

/// The agent of a cell, with the project it works on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Agent {
    Honest,
    Wrong,
    Nothing,
    /// One of the two task tests made to pass.
    Half,
    /// Honest, on the [`Variant::Skip`] project.
    HonestWithSkip,
    /// Honest, on the [`Variant::KnownFailure`] project.
    HonestWithKnownFailure,
    /// Wrong, with the runner's own assertion or report forged by a spelling the tampering
    /// scan does not read (fixtures/controls/<runner>/agents/forger.*).
    Forger,
    /// A result equal to every value (`__eq__`, `PartialEq`, `Object.is`); wrong where the
    /// language has no such thing (Go).
    AlwaysEqual,
}

const AGENTS: [Agent; 8] = [
    Agent::Honest,
    Agent::Wrong,
    Agent::Nothing,
    Agent::Half,
    Agent::HonestWithSkip,
    Agent::HonestWithKnownFailure,
    Agent::Forger,
    Agent::AlwaysEqual,
];

impl Agent {
    fn name(self) -> &'static str {
        match self {
            Agent::Honest => "honest",
            Agent::Wrong => "wrong",
            Agent::Nothing => "nothing",
            Agent::Half => "half",
            Agent::HonestWithSkip => "honest+skip",
            Agent::HonestWithKnownFailure => "honest+known-failure",
            Agent::Forger => "forger",
            Agent::AlwaysEqual => "always-equal",
        }
    }

    /// What fixtures/agents/controls.sh does (`CONTROLS_AGENT`).
    fn mode(self) -> &'static str {
        match self {
            Agent::Honest | Agent::HonestWithSkip | Agent::HonestWithKnownFailure => "honest",
            Agent::Wrong => "wrong",
            Agent::Nothing => "nothing",
            Agent::Half => "half",
            Agent::Forger => "forger",
            Agent::AlwaysEqual => "always-equal",
        }
    }

    /// Whether the agent subverts the checking itself: it must fail, whichever way.
    fn subverts(self) -> bool {
        matches!(self, Agent::Forger | Agent::AlwaysEqual)
    }

    fn variant(self) -> Variant {
        match self {
            Agent::HonestWithSkip => Variant::Skip,
            Agent::HonestWithKnownFailure => Variant::KnownFailure,
            Agent::Honest
            | Agent::Wrong
            | Agent::Nothing
            | Agent::Half
            | Agent::Forger
            | Agent::AlwaysEqual => Variant::Plain,
        }
    }

    fn passes(self) -> bool {
        match self {
            Agent::Honest | Agent::HonestWithSkip | Agent::HonestWithKnownFailure => true,
            Agent::Wrong | Agent::Nothing | Agent::Half | Agent::Forger | Agent::AlwaysEqual => {
                false
            }
        }
    }
}

/// One cell of the matrix: one `speccoder attempt`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Cell {
    combo: Combo,
    placement: Placement,
    agent: Agent,
}

impl Cell {
    fn name(&self) -> String {
        format!(
            "{} ({}) {}",
            self.combo.name(),
            self.placement.label(),
            self.agent.name()
        )
    }
}

/// The combinations that also run with the task's tests in the bundle (b) and withheld
/// (c), spread over the languages. Placement (a), where a base failure used to excuse the
/// task's own tests, runs for every combination.
const ACCEPTANCE: [Combo; 3] = [
    combo(FixtureKind::Pytest, Start::Python),
    combo(FixtureKind::Cargo, Start::Cargo),
    combo(FixtureKind::Mocha, Start::Task),
];
const WITHHELD: [Combo; 3] = [
    combo(FixtureKind::Unittest, Start::Just),
    combo(FixtureKind::Vitest, Start::Script),
    combo(FixtureKind::Go, Start::Go),
];

/// Every cell: each combination in placement (a), those of [`ACCEPTANCE`] and
/// [`WITHHELD`] in (b) and (c), each with every agent.
fn matrix() -> Vec<Cell> {
    let placed = COMBOS
        .iter()
        .map(|&c| (c, Placement::InBase))
        .chain(ACCEPTANCE.iter().map(|&c| (c, Placement::Acceptance)))
        .chain(WITHHELD.iter().map(|&c| (c, Placement::Withheld)));
    placed
        .flat_map(|(combo, placement)| {
            AGENTS.iter().map(move |&agent| Cell {
                combo,
                placement,
                agent,
            })
        })
        .collect()
}

/// A git repository of one combination, placement and variant, with the task's tests,
/// the bundles and the withheld folder beside it, and controls.sh as the agent.
struct Repo {
    dir: tempfile::TempDir,
    combo: Combo,
    placement: Placement,
}

impl Repo {
    fn new(combo: Combo, placement: Placement, variant: Variant, tasks: &[String]) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let repo = Self {
            dir,
            combo,
            placement,
        };
        let root = repo.root();
        let runner = combo.runner.fixture();
        let fixture = fixtures_dir().join("per-test").join(runner);
        let controls = fixtures_dir().join("controls").join(runner);
        copy_dir(&fixture.join("project"), &root);
        if let Some(overlay) = combo.start.overlay() {
            copy_dir(&controls.join(overlay), &root);
        }
        if combo.start.drops_makefile() {
            std::fs::remove_file(root.join("Makefile")).expect("the project has a Makefile");
        }
        let mut known = String::new();
        if variant == Variant::KnownFailure {
            copy_dir(&fixture.join("env"), &root);
            known = format!("known_failures = [\"{}\"]\n", combo.runner.env_glob());
        }
        copy_dir(&fixture.join("acceptance"), &repo.task_tests());
        if variant == Variant::Skip {
            copy_dir(&controls.join("skip"), &repo.task_tests());
        }
        if placement == Placement::InBase {
            copy_dir(&repo.task_tests(), &root);
        }
        let agent = fixtures_dir().join("agents/controls.sh");
        commit_base(&root, &agent, &format!("max_attempts = 1\n{known}"));
        let acceptance = repo.task_tests();
        let acceptance = (placement == Placement::Acceptance).then_some(acceptance.as_path());
        for task in tasks {
            write_add_bundle(&repo.bundle(task), task, acceptance);
        }
        repo
    }

    fn root(&self) -> PathBuf {
        self.dir.path().join("repo")
    }

    /// The task's tests, wherever the placement puts them.
    fn task_tests(&self) -> PathBuf {
        self.dir.path().join("task-tests")
    }

    fn bundle(&self, task: &str) -> PathBuf {
        self.dir.path().join(format!("bundle-{task}.json"))
    }

    /// One `speccoder attempt --json` of `task` with the agent doing `mode`.
    fn attempt(&self, task: &str, mode: &str) -> Run {
        let mut command = attempt_command(&self.root(), &self.bundle(task));
        if self.placement == Placement::Withheld {
            command.arg("--withheld").arg(self.task_tests());
        }
        command.env("CONTROLS_AGENT", mode);
        command.env("CONTROLS_RUNNER", self.combo.runner.fixture());
        if self.combo.runner == FixtureKind::Go {
            use_go_cache(&mut command);
        }
        command.output().expect("speccoder starts").into()
    }
}

/// The distinct `tests.rule` values of the verdict's checks, for the printed line.
fn rules(run: &Run) -> String {
    let rules: BTreeSet<String> = run
        .verdict_checks()
        .iter()
        .map(|c| c["tests"]["rule"].as_str().unwrap_or("none").to_owned())
        .collect();
    if rules.is_empty() {
        return "no check".into();
    }
    rules.into_iter().collect::<Vec<_>>().join("+")
}

/// Checks the run of `cell` (task `task`, in `root`); `Err` says what is wrong.
fn judge(cell: &Cell, root: &Path, task: &str, run: &Run) -> Result<(), String> {
    if run.story.is_none() {
        return Err(format!("no JSON story: {}", run.summary()));
    }
    // A forged report or an equality that always holds fails whichever way: a finding
    // of the scan (`rejected`), the twins' `forged_results`, or the tests themselves.
    if cell.agent.subverts() {
        return match run.verdict() {
            "rejected" | "failed" => Ok(()),
            _ => Err(format!("not rejected or failed: {}", run.summary())),
        };
    }
    let checks = run.verdict_checks();
    if checks.is_empty() {
        return Err(format!(
            "no check of the verdict's pass ran: {}",
            run.summary()
        ));
    }
    let combo = cell.combo;
    for check in &checks {
        let command = check["command"].as_str().unwrap_or_default();
        if !format!(" {command} ").contains(combo.start.command()) {
            return Err(format!(
                "the check ran `{command}`, not through {}: {}",
                combo.start.name(),
                run.summary()
            ));
        }
    }
    // Where the runner names no passing test, invariant 10 judges by the counts.
    let counts = (!combo.names_passes()).then_some("counts");
    run.expect_judged(combo.runner, counts)?;
    if cell.agent.passes() {
        run.expect_passed(root, task)?;
        // The twins of the task's tests ran, and each failed as a correct `add` makes it.
        if let Some(check) = checks.iter().find(|c| c["tests"]["twins"] != "held") {
            return Err(format!(
                "the twins did not hold in `{}`: {}",
                check["op"],
                run.summary()
            ));
        }
        if cell.agent == Agent::HonestWithKnownFailure {
            // Named only when it failed in the check, as root: a listed test that passes is
            // a note instead.
            let env_test = combo.runner.env_test();
            if !run.some_check_says("known_failures", env_test) {
                return Err(format!(
                    "no check's tests.known_failures names `{env_test}`: {}",
                    run.summary()
                ));
            }
            let reason = run
                .attempts()
                .last()
                .map(|a| a["reason"].to_string())
                .unwrap_or_default();
            if !reason.contains("known failure") {
                return Err(format!(
                    "the attempt's reason ({reason}) does not say \"known failure\": {}",
                    run.summary()
                ));
            }
        }
        return Ok(());
    }
    if run.verdict() != "failed" || run.code != Some(1) {
        return Err(format!("not failed with exit 1: {}", run.summary()));
    }
    run.expect_failed_by_tests(root, task)?;
    // The test of add(2, 3) passes now; the one of add(-4, 1) is what fails, and every
    // runner names the tests that fail.
    if cell.agent == Agent::Half
        && (!run.some_check_says("not_passed", "negative")
            || run.some_check_says("not_passed", "small"))
    {
        return Err(format!(
            "tests.not_passed does not name the test of add(-4, 1) alone: {}",
            run.summary()
        ));
    }
    Ok(())
}

/// The cells of one repository, run one after another.
struct Job {
    combo: Combo,
    placement: Placement,
    variant: Variant,
    cells: Vec<Cell>,
}

/// Runs one repository's cells, printing a line per cell; returns the wrong ones.
fn run_job(job: &Job) -> Vec<String> {
    // Distinct task ids, so that each attempt is a task of its own at the same base.
    let tasks: Vec<String> = (0..job.cells.len())
        .map(|i| format!("T{}", 7 + i))
        .collect();
    let repo = Repo::new(job.combo, job.placement, job.variant, &tasks);
    let mut wrong = Vec::new();
    let mut baselines = 0;
    for (cell, task) in job.cells.iter().zip(&tasks) {
        let started = Instant::now();
        let run = repo.attempt(task, cell.agent.mode());
        baselines += usize::from(!run.baseline().is_empty());
        let result = judge(cell, &repo.root(), task, &run);
        eprintln!(
            "cell {}: {} (exit {:?}, {}, rule {}, {:.1} s)",
            cell.name(),
            if result.is_ok() { "ok" } else { "WRONG" },
            run.code,
            run.verdict(),
            rules(&run),
            started.elapsed().as_secs_f64(),
        );
        eprintln!("  {}", run.summary());
        if let Err(err) = result {
            wrong.push(format!("{}: {err}", cell.name()));
        }
    }
    // The base is one tree for every task of the repository: its baseline runs once.
    if baselines != 1 {
        wrong.push(format!(
            "{} ({}) {:?}: the baseline ran in {baselines} of {} attempts, not once",
            job.combo.name(),
            job.placement.label(),
            job.variant,
            job.cells.len()
        ));
    }
    wrong
}

/// Property: every runner and every start meets all six agents in at least one placement,
/// and every placement meets every agent; placement (a) holds every combination.
#[test]
fn the_matrix_covers_every_runner_start_and_placement_with_every_agent() {
    let cells = matrix();
    let starts = [
        Start::Python,
        Start::Make,
        Start::Just,
        Start::Cargo,
        Start::Script,
        Start::Task,
        Start::Go,
    ];
    let mut missing = Vec::new();
    let covered = |matches: &dyn Fn(&Cell) -> bool| {
        [
            Placement::InBase,
            Placement::Acceptance,
            Placement::Withheld,
        ]
        .iter()
        .any(|&p| {
            AGENTS.iter().all(|&agent| {
                cells
                    .iter()
                    .any(|c| c.placement == p && c.agent == agent && matches(c))
            })
        })
    };
    for runner in ALL {
        if !covered(&|c: &Cell| c.combo.runner == runner) {
            missing.push(format!("{runner:?} with every agent in one placement"));
        }
    }
    for start in starts {
        if !covered(&|c: &Cell| c.combo.start == start) {
            missing.push(format!("{start:?} with every agent in one placement"));
        }
    }
    for placement in [
        Placement::InBase,
        Placement::Acceptance,
        Placement::Withheld,
    ] {
        for agent in AGENTS {
            if !cells
                .iter()
                .any(|c| c.placement == placement && c.agent == agent)
            {
                missing.push(format!("({}) with {agent:?}", placement.label()));
            }
        }
    }
    for combo in COMBOS {
        for agent in AGENTS {
            if !cells
                .iter()
                .any(|c| c.combo == combo && c.placement == Placement::InBase && c.agent == agent)
            {
                missing.push(format!("{} (a) with {agent:?}", combo.name()));
            }
        }
    }
    assert!(missing.is_empty(), "the matrix lacks: {missing:?}");
}

/// Runs the cells of one repository of the matrix, printing a line per cell (and what its
/// story said), and fails once, naming every cell judged wrongly.
fn run_repository((combo, placement, variant): (Combo, Placement, Variant)) {
    let cells: Vec<Cell> = matrix()
        .into_iter()
        .filter(|c| c.combo == combo && c.placement == placement && c.agent.variant() == variant)
        .collect();
    assert!(
        !cells.is_empty(),
        "the matrix has no cell of {} ({}) {variant:?}",
        combo.name(),
        placement.label()
    );
    let mut tools: Vec<&str> = combo.runner.tools().to_vec();
    tools.extend(combo.start.tools());
    require_tools(&tools);
    let started = Instant::now();
    let job = Job {
        combo,
        placement,
        variant,
        cells,
    };
    let wrong = run_job(&job);
    eprintln!(
        "{} cells of {} ({}) {variant:?}: {:.1} s",
        job.cells.len(),
        combo.name(),
        placement.label(),
        started.elapsed().as_secs_f64()
    );
    assert!(
        wrong.is_empty(),
        "{} of {} cells judged wrongly:\n{}",
        wrong.len(),
        job.cells.len(),
        wrong.join("\n")
    );
}

/// Expands `name: runner start placement` lines into one [`table!`] each: a module per
/// repository of the matrix with a test per project variant, and `repositories()`, every
/// repository the tests run.
macro_rules! repositories {
    ($($name:ident: $runner:ident $start:ident $placement:ident,)*) => {
        $(
            table! {
                $name: run_repository((Combo, Placement, Variant)) {
                    plain: (
                        combo(FixtureKind::$runner, Start::$start),
                        Placement::$placement,
                        Variant::Plain,
                    ),
                    skip: (
                        combo(FixtureKind::$runner, Start::$start),
                        Placement::$placement,
                        Variant::Skip,
                    ),
                    known_failure: (
                        combo(FixtureKind::$runner, Start::$start),
                        Placement::$placement,
                        Variant::KnownFailure,
                    ),
                }
            }
        )*

        /// Every repository the tests run, with its test's name.
        fn repositories() -> Vec<(String, (Combo, Placement, Variant))> {
            let mut all = Vec::new();
            $(
                for (test, repository) in $name::cases() {
                    all.push((format!("{}::{test}", stringify!($name)), repository));
                }
            )*
            all
        }
    };
}

repositories! {
    pytest_python_in_base: Pytest Python InBase,
    unittest_make_in_base: Unittest Make InBase,
    unittest_just_in_base: Unittest Just InBase,
    cargo_cargo_in_base: Cargo Cargo InBase,
    node_script_in_base: Node Script InBase,
    mocha_task_in_base: Mocha Task InBase,
    jest_script_in_base: Jest Script InBase,
    vitest_script_in_base: Vitest Script InBase,
    go_go_in_base: Go Go InBase,
    pytest_python_acceptance: Pytest Python Acceptance,
    cargo_cargo_acceptance: Cargo Cargo Acceptance,
    mocha_task_acceptance: Mocha Task Acceptance,
    unittest_just_withheld: Unittest Just Withheld,
    vitest_script_withheld: Vitest Script Withheld,
    go_go_withheld: Go Go Withheld,
}

/// Property: every cell of the matrix is run by exactly one test, the test of its
/// repository, and every test's repository holds cells.
#[test]
fn every_cell_of_the_matrix_has_its_test() {
    let tested = repositories();
    let mut missing = Vec::new();
    for cell in matrix() {
        let repository = (cell.combo, cell.placement, cell.agent.variant());
        let tests: Vec<&str> = tested
            .iter()
            .filter(|(_, r)| *r == repository)
            .map(|(name, _)| name.as_str())
            .collect();
        if tests.len() != 1 {
            missing.push(format!("{} is run by {tests:?}", cell.name()));
        }
    }
    for (name, (combo, placement, variant)) in &tested {
        if !matrix().iter().any(|c| {
            c.combo == *combo && c.placement == *placement && c.agent.variant() == *variant
        }) {
            missing.push(format!("{name} runs no cell of the matrix"));
        }
    }
    assert!(missing.is_empty(), "{missing:#?}");
}
