//! The loop of `speccoder attempt`: stages over values, attempt after attempt, until one
//! passes, the agent blocks, or the attempts run out. Each stage is a file: prepare →
//! turn (the agent) → candidate → audit → check tree → checks → verdict → commit. A stop
//! signal between stages ends the loop in one place ([`Stop`]).

use std::collections::BTreeSet;

use serde_json::Value;

use super::attempt_error::AttemptError;
use super::audit::ran_from;
use super::audit::{self, Inputs};
use super::candidate;
use super::check_tree::CheckTree;
use super::checks;
use super::commit::{self, PassTree};
use super::prepare::{join, prepare};
use super::setup;
use super::shared::environment;
use super::shared::{
    AttemptRecord, AttemptRequest, CheckResult, Finding, FindingKind, Pass, Prepared, Story,
    TwinsState, Verdict, Warning,
};
use super::turn;
use super::verdict;
use super::verdict::baseline::{self, Baseline};
use super::verdict::outcomes;
use super::verdict::results::TestReport;
use super::verdict::twins;
use speccoder_agent::{Outcome, Status};
use speccoder_foundation::process::shutdown_signal;

/// How the agent's outcome starts when its program could not be started.
const CANNOT_START: &str = "the agent could not be started";

/// Why the loop ends early: a stop signal, with the agent's outcome when it had one.
#[derive(Debug)]
struct Stop {
    signal: i32,
    outcome: Option<Box<Outcome>>,
}

/// Fails with [`Stop`] when a stop signal has come.
fn go_on(outcome: Option<&Outcome>) -> Result<(), Stop> {
    match shutdown_signal() {
        Some(signal) => Err(Stop {
            signal,
            outcome: outcome.cloned().map(Box::new),
        }),
        None => Ok(()),
    }
}

/// Runs the whole loop. `Err` means the attempt could not start, and says why; once the
/// attempt's folder exists every outcome is a [`Story`]. `note` receives notes as they
/// arise.
pub fn run_attempt(
    request: &AttemptRequest<'_>,
    note: &mut dyn FnMut(&str),
) -> Result<Story, AttemptError> {
    let mut prepared = prepare(request)?;
    for n in &prepared.notes {
        note(n);
    }
    let mut story = new_story(request, &mut prepared);
    let timeout = std::time::Duration::from_secs(request.config.recipe.timeout_secs);
    setup::install(&mut prepared, &request.config.attempt.setup, timeout)
        .map_err(AttemptError::Setup)?;
    if shutdown_signal().is_some() {
        return Err(AttemptError::Stopped);
    }
    let (baseline, at_base) = baseline::baseline(&prepared, &mut story.notes);
    story.baseline = at_base;
    if let Some(baseline) = &baseline {
        story.notes.extend(passing_already(baseline, &prepared));
        freeze_ran_from(baseline, &mut prepared, &mut story.notes);
    }
    let mut digest: Option<Value> = None;
    for n in 1..=story.max_attempts {
        let run = attempt_once(request, &prepared, baseline.as_ref(), n, digest.as_ref());
        let (record, pass) = match run {
            Ok(done) => done,
            Err(stop) => {
                interrupted(&mut story, &prepared, request, n, stop);
                break;
            }
        };
        match record_attempt(&mut story, &prepared, record, &pass) {
            AfterAttempt::Commit => {
                commit::commit(&mut story, &prepared, request, &pass, n);
                journal_last(&mut story, &prepared);
                break;
            }
            AfterAttempt::Stop => break,
            AfterAttempt::Retry(this_digest) => digest = Some(this_digest),
        }
    }
    if story.verdict != Verdict::Passed && request.keep_worktree {
        story.worktree = Some(prepared.tree.clone());
    }
    commit::finish(&mut story, prepared, request.keep_worktree);
    Ok(story)
}

/// The story before any attempt: the notes so far, the isolation and the environment.
fn new_story(request: &AttemptRequest<'_>, prepared: &mut Prepared) -> Story {
    Story {
        task: prepared.bundle.bundle.task.id.clone(),
        verdict: Verdict::Failed,
        branch: None,
        commit: None,
        worktree: None,
        attempts: Vec::new(),
        max_attempts: request.config.attempt.max_attempts,
        notes: std::mem::take(&mut prepared.notes),
        signal: None,
        isolation: prepared.isolation.name(),
        baseline: Vec::new(),
        environment: [
            ("agent", environment::names(&prepared.agent_env)),
            ("checks", environment::names(&prepared.check_env)),
        ]
        .into(),
    }
}

/// The files the base ran tests from are tests, whatever their names.
fn freeze_ran_from(baseline: &Baseline, prepared: &mut Prepared, notes: &mut Vec<String>) {
    let ids = baseline.checks.iter().flat_map(|c| c.tests.keys());
    let ran_from = prepared.store.entries(&prepared.base).and_then(|entries| {
        ran_from::ran_from(
            ids,
            &entries,
            &prepared.prefix,
            |p| prepared.rules.is_test(p),
            &prepared.store,
        )
    });
    match ran_from {
        Ok(ran_from) => prepared.rules.add_ran_from(ran_from),
        Err(err) => notes.push(format!("the files the base ran tests from cannot be read ({err}): only the `[attempt] tests` globs freeze test files")),
    }
}

/// What comes after an attempt.
enum AfterAttempt {
    /// It passed: commit it.
    Commit,
    /// No attempt after it: blocked, or an agent that cannot start.
    Stop,
    /// Another attempt, with this digest.
    Retry(Value),
}

/// Adds an attempt's record to the story and the journal, and says what comes next.
fn record_attempt(
    story: &mut Story,
    prepared: &Prepared,
    record: AttemptRecord,
    pass: &PassTree,
) -> AfterAttempt {
    for n in pass
        .notes
        .iter()
        .cloned()
        .chain(known_passing(&record.checks))
    {
        if !story.notes.contains(&n) {
            story.notes.push(n);
        }
    }
    story.verdict = record.verdict;
    let verdict = record.verdict;
    let cannot_start = record
        .agent
        .reason
        .as_deref()
        .is_some_and(|why| why.starts_with(CANNOT_START));
    let this_digest = record.digest.clone();
    story.attempts.push(record);
    // A pass is journalled once its commit and branch exist, or as the failure it became.
    if verdict != Verdict::Passed {
        journal_last(story, prepared);
    }
    match verdict {
        Verdict::Passed => AfterAttempt::Commit,
        Verdict::Blocked => AfterAttempt::Stop,
        // A program that cannot be started will not start on a retry either.
        Verdict::Failed if cannot_start => AfterAttempt::Stop,
        Verdict::Rejected | Verdict::Failed | Verdict::Interrupted => {
            AfterAttempt::Retry(this_digest)
        }
    }
}

/// Writes the story's last attempt into the journal, with the commit and branch of a pass.
fn journal_last(story: &mut Story, prepared: &Prepared) {
    let Some(record) = story.attempts.last() else {
        return;
    };
    let mut entry = record.journal_entry(story);
    if record.verdict == Verdict::Passed {
        entry["commit"] = serde_json::json!(story.commit);
        entry["branch"] = serde_json::json!(story.branch);
    }
    if let Err(err) = prepared.journal.write(&entry) {
        story.notes.push(err);
    }
}

/// A note for each new withheld or acceptance test that passes at the base already: it
/// checks nothing the task adds. An old test in a withheld file (the visible file had it
/// too) is not new.
fn passing_already(baseline: &Baseline, prepared: &Prepared) -> Vec<String> {
    let required = prepared.required_tests();
    let mut ids: Vec<&String> = baseline
        .checks
        .iter()
        .flat_map(|c| {
            let new = baseline::new_tests(prepared, Some(baseline), &c.op);
            let required = &required;
            c.tests.iter().filter(move |(id, outcome)| {
                **outcome == super::verdict::results::TestOutcome::Passed
                    && (outcomes::from_files(id, required) || new.required(id))
                    && new.is_new(id, Some(c))
            })
        })
        .map(|(id, _)| id)
        .collect();
    ids.sort();
    ids.dedup();
    ids.into_iter()
        .take(20)
        .map(|id| format!("the withheld or acceptance test `{id}` passes at the base already: it checks nothing the task adds"))
        .collect()
}

/// A note for each `[attempt] known_failures` entry's test that passed in `checks`.
fn known_passing(checks: &[CheckResult]) -> Vec<String> {
    let mut ids: Vec<&String> = checks
        .iter()
        .flat_map(|c| c.tests.known_failures_passing.iter())
        .collect();
    ids.sort();
    ids.dedup();
    ids.into_iter()
        .take(20)
        .map(|id| format!("`{id}` is listed in [attempt] known_failures and passes now: remove it from the list"))
        .collect()
}

/// One attempt, from a fresh tree to its verdict.
fn attempt_once(
    request: &AttemptRequest<'_>,
    prepared: &Prepared,
    baseline: Option<&Baseline>,
    n: u32,
    digest: Option<&Value>,
) -> Result<(AttemptRecord, PassTree), Stop> {
    let config = request.config;
    go_on(None)?;
    let outcome = match turn::fresh_tree(prepared, n) {
        Ok(()) => turn::run_agent(prepared, config, digest),
        Err(err) => turn::never_started(config, &err),
    };
    go_on(Some(&outcome))?;
    let mut done = Finished::new(n, outcome, prepared);
    let judged = judge(prepared, config, &mut done);
    go_on(Some(&done.outcome))?;
    if let Some((tree, audit)) = judged
        && done.outcome.status == Status::Completed
        && done.findings.is_empty()
    {
        match check_pass(
            prepared,
            config,
            baseline,
            (&tree, &audit),
            n,
            &mut done.pass.notes,
        ) {
            Ok((results, tree)) => {
                done.checks = results;
                done.pass.tree = tree;
                done.ran_checks = true;
            }
            Err(finding) => done.findings.push(finding),
        }
        go_on(Some(&done.outcome))?;
    }
    Ok(done.decide())
}

/// The candidate and its audit: the findings, warnings and notes go into `done`; the
/// candidate tree and the audit come back when they could be made.
fn judge(
    prepared: &Prepared,
    config: &speccoder_config::Config,
    done: &mut Finished,
) -> Option<(String, audit::Audit)> {
    let candidate = match candidate::build(prepared) {
        Ok(candidate) => candidate,
        Err(err) => {
            done.findings.push(unreadable(&err));
            return None;
        }
    };
    done.findings.extend(candidate.findings());
    let tree = candidate.tree?;
    let no_texts = Vec::new();
    // What each check runs, as far as its op resolves: the audit freezes the configs of
    // the tools a check runs (a linter's, mise's).
    let checks: Vec<(String, String)> = prepared
        .ops
        .iter()
        .filter_map(|op| prepared.recipe.resolve(op).ok())
        .map(|r| (r.runner.id.to_owned(), r.command))
        .collect();
    let inputs = Inputs {
        store: &prepared.store,
        rules: &prepared.rules,
        test_edits: config.attempt.test_edits,
        withheld: prepared.withheld.as_ref().map_or(&[][..], |w| &w.paths),
        withheld_texts: prepared.withheld.as_ref().map_or(&no_texts, |w| &w.texts),
        tasks_file: &join(&prepared.prefix, &config.attempt.tasks_file),
        reject_gaming: config.attempt.reject_gaming,
        checks: &checks,
        setup: !config.attempt.setup.is_empty(),
    };
    match audit::audit(&prepared.base, &tree, &inputs) {
        Ok(audit) => {
            if let Some(report) = done.outcome.report.as_mut() {
                report.files_changed = audit.changed.clone();
            }
            done.findings.extend(audit.findings.iter().cloned());
            // Only for a candidate nothing else rejects: `go` runs on its files.
            let modules = if done.findings.is_empty() {
                &audit.vendored[..]
            } else {
                &[]
            };
            let (findings, notes) = audit::vendored::verify(&audit::vendored::Vendored {
                prepared,
                candidate: &tree,
                modules,
            });
            done.findings.extend(findings);
            done.warnings = audit.warnings.clone();
            done.pass.notes = audit.notes.clone();
            done.pass.notes.extend(notes);
            Some((tree, audit))
        }
        Err(err) => {
            done.findings.push(unreadable(&err));
            None
        }
    }
}

/// An attempt's parts, before its verdict.
struct Finished {
    n: u32,
    outcome: Outcome,
    findings: Vec<Finding>,
    warnings: Vec<Warning>,
    checks: Vec<CheckResult>,
    pass: PassTree,
    quote: verdict::Quote,
    /// Whether the checks ran (an empty list of checks runs too: the audit decides).
    ran_checks: bool,
}

impl Finished {
    /// The parts of an attempt whose agent ended with `outcome`.
    fn new(n: u32, outcome: Outcome, prepared: &Prepared) -> Self {
        let summary = outcome
            .report
            .as_ref()
            .map(|r| r.summary.clone())
            .unwrap_or_default();
        Self {
            n,
            outcome,
            findings: Vec::new(),
            warnings: Vec::new(),
            checks: Vec::new(),
            pass: PassTree {
                summary,
                ..PassTree::default()
            },
            quote: match prepared.withheld {
                Some(_) => verdict::Quote::TestIdsOnly,
                None => verdict::Quote::Output,
            },
            ran_checks: false,
        }
    }

    /// The verdict, its reason and the digest.
    fn decide(self) -> (AttemptRecord, PassTree) {
        let checks = self.ran_checks.then_some(self.checks.as_slice());
        let verdict = Verdict::decide(&self.outcome, &self.findings, checks);
        let reason = verdict::reason(verdict, &self.outcome, &self.findings, &self.checks);
        let digest = verdict::digest(
            verdict,
            &self.outcome,
            &self.findings,
            &self.checks,
            self.quote,
        );
        (
            AttemptRecord {
                n: self.n,
                run_id: self.outcome.run_id.clone(),
                agent: self.outcome,
                findings: self.findings,
                warnings: self.warnings,
                checks: self.checks,
                verdict,
                reason,
                digest,
            },
            self.pass,
        )
    }
}

/// A finding for a candidate speccoder could not read.
fn unreadable(err: &str) -> Finding {
    Finding {
        kind: FindingKind::ProtectedChanged,
        path: ".".into(),
        detail: format!("the agent's tree cannot be staged: {err}"),
    }
}

/// A finding for a tree the checks cannot get.
fn tree_finding(detail: String) -> Finding {
    Finding {
        kind: FindingKind::ProtectedChanged,
        path: ".".into(),
        detail,
    }
}

/// Both passes of the checks. Returns their results and the tree they ran on (the commit
/// of a pass), or a finding when the check tree cannot be made.
fn check_pass(
    prepared: &Prepared,
    config: &speccoder_config::Config,
    baseline: Option<&Baseline>,
    (candidate, audit): (&str, &audit::Audit),
    n: u32,
    notes: &mut Vec<String>,
) -> Result<(Vec<CheckResult>, String), Finding> {
    let (full, verdict_tree) = pass_trees(prepared, config, candidate, audit)?;
    let timeout = std::time::Duration::from_secs(config.recipe.timeout_secs);
    // With no checks the audit alone decides, and there is nothing to run a tree for; the
    // files the setup regenerates are still compared with what it makes.
    if prepared.ops.is_empty() {
        if !audit.regenerated.is_empty() {
            let own = setup::for_candidate(prepared, &config.attempt.setup, &verdict_tree, timeout)
                .ok()
                .flatten();
            regenerated_as_setup_makes(prepared, own.as_ref(), candidate, &audit.regenerated)?;
        }
        return Ok((Vec::new(), full));
    }
    // A candidate that changes what the setup reads (a lockfile, a manifest) gets the setup
    // run again for its tree: the base's products would not hold its dependencies.
    let own = match setup::for_candidate(prepared, &config.attempt.setup, &verdict_tree, timeout) {
        Ok(own) => own,
        Err(err) => return Ok((setup_failed(prepared, &err), full)),
    };
    setup::beyond_install(prepared, own.as_ref())?;
    regenerated_as_setup_makes(prepared, own.as_ref(), candidate, &audit.regenerated)?;
    // Every pass of this attempt's checks gets a fresh tree at the same path, made alike.
    let make = || {
        CheckTree::make_with(
            prepared,
            own.as_ref().or(prepared.products.as_ref()),
            &verdict_tree,
            &format!("check-{n}"),
            &audit.frozen,
            true,
        )
    };
    let (mut results, reports) = verdict_passes(
        prepared,
        baseline,
        &make,
        (&full, &verdict_tree),
        audit,
        notes,
    )?;
    if results.iter().all(CheckResult::passed) && shutdown_signal().is_none() {
        twin_pass(
            prepared,
            baseline,
            &make,
            &verdict_tree,
            &mut results,
            &reports,
        )?;
    }
    Ok((results, full))
}

/// The largest loader the setup is read as having made (yarn's `.pnp.cjs` of a large
/// monorepo is a few MiB).
const MAX_REGENERATED_BYTES: u64 = 64 << 20;

/// Each file of `paths` (repository paths, yarn's `.pnp.cjs`) that the candidate changed
/// must be what the setup, run again for the candidate (`own`), wrote there: else the
/// candidate carries a loader no install made. With no setup run for the candidate (what it
/// reads did not change), nothing made the change, and it is a finding.
fn regenerated_as_setup_makes(
    prepared: &Prepared,
    own: Option<&super::shared::SetupProducts>,
    candidate: &str,
    paths: &[String],
) -> Result<(), Finding> {
    for path in paths {
        let finding = |detail: String| Finding {
            kind: FindingKind::TestConfigChanged,
            path: path.clone(),
            detail: format!(
                "yarn's configuration or its runtime, which defines the checks, {detail}"
            ),
        };
        let Some(own) = own else {
            return Err(finding(
                "was changed, while the manifests and lockfiles the setup reads were not: no install made it".into(),
            ));
        };
        // The setup ran the project's commands: what they left there is read bounded, and
        // not through a link out of the tree or a FIFO (either reads as nothing made).
        let made = speccoder_foundation::files::read_inside(
            &own.tree,
            &own.tree.join(path),
            MAX_REGENERATED_BYTES,
        )
        .unwrap_or_default();
        let carried = prepared
            .store
            .run(&["cat-file", "blob", &format!("{candidate}:{path}")])
            .unwrap_or_default();
        let made = String::from_utf8_lossy(&made);
        if made.trim_end() != carried {
            let line = made
                .lines()
                .zip(carried.lines())
                .position(|(a, b)| a != b)
                .unwrap_or_else(|| made.lines().count().min(carried.lines().count()))
                + 1;
            return Err(finding(format!(
                "was changed: line {line}: not what `[attempt] setup` makes of the candidate's manifests and lockfile"
            )));
        }
    }
    Ok(())
}

/// The verdict's pass of the checks on `verdict_tree` in the tree `make` makes and, when it
/// passed and the agent added tests, the pass with them (`full`); the results, and the
/// verdict's pass's reports of its checks (with the known answer, for the twins).
fn verdict_passes(
    prepared: &Prepared,
    baseline: Option<&Baseline>,
    make: &dyn Fn() -> Result<CheckTree, String>,
    (full, verdict_tree): (&str, &str),
    audit: &audit::Audit,
    notes: &mut Vec<String>,
) -> Result<(Vec<CheckResult>, Vec<TestReport>), Finding> {
    let check =
        make().map_err(|err| tree_finding(format!("the checks' tree cannot be made: {err}")))?;
    let known = twins::plant_known(prepared, verdict_tree, &check);
    // The test files written as the twin pass writes them, with their own text: nothing
    // in the tree tells the two passes apart but the twins' values.
    let planted = twins::plant_in(prepared, verdict_tree, &check, &known, twins::Plant::Own);
    // Withheld tests that leave a twin pass without a question: the story says so (once,
    // as `record_attempt` keeps every note).
    notes.extend(planted.notes);
    let place = checks::Place::new(prepared, &check.dir, false);
    let runner = prepared.check_spawner(
        &check.dir,
        (check.read_only.clone(), check.caches.as_deref()),
        place.also_writable(),
    );
    let run = |pass: Pass| {
        let ran = checks::run_checks(
            &prepared.recipe,
            &prepared.ops,
            &check.project,
            &place,
            runner.as_ref(),
            pass,
        );
        ran.into_iter()
            .map(|ran| {
                // The twins read the known answers; the verdict never does.
                let report = ran.report.clone();
                judged(prepared, baseline, &known, ran)
                    .map(|(result, files)| (result, files, report))
            })
            .collect::<Result<Vec<(CheckResult, BTreeSet<String>, TestReport)>, Finding>>()
    };
    let mut results = Vec::new();
    let mut ran = Vec::new();
    let mut reports = Vec::new();
    for (result, files, report) in run(Pass::Verdict)? {
        results.push(result);
        ran.push(files);
        reports.push(report);
    }
    if results.iter().all(CheckResult::passed) {
        ran_in_no_check(prepared, &ran, &mut results);
    }
    if results.iter().all(CheckResult::passed) && !audit.agent_tests.is_empty() {
        if shutdown_signal().is_some() {
            return Ok((results, reports));
        }
        check
            .add(&prepared.store, full, &audit.agent_tests, &prepared.scratch)
            .map_err(|err| {
                tree_finding(format!(
                    "the agent's tests cannot be added to the checks' tree: {err}"
                ))
            })?;
        results.extend(run(Pass::AgentTests)?.into_iter().map(|(r, _, _)| r));
    }
    Ok((results, reports))
}

/// Rounds of the twin pass at most: a check of several steps whose first step's failing
/// twins stop the rest gets a round for the steps after it (`pytest a && pytest b`, `go
/// test ./x && go test ./y`, `pytest && go test`), with the files judged so far original.
const MAX_TWIN_ROUNDS: usize = 4;

/// The twin pass (invariant 12 of `docs/design/verdict.md`): the verdict's checks once more,
/// in a fresh check tree at the same path (`make`), with the same known answers,
/// where the test files' expected values are changed. A twin that passes, or that vanishes
/// from a run that ended well, is `forged_results`; otherwise each check's story says
/// whether its twins held, and a check whose twins could not be judged (a pass stopped
/// from outside, a run that ended before its twins) fails: no attempt passes without its
/// twins held. A run that stopped before some files' twins gets another round, with the
/// files reached so far original, while rounds reach new files (at most
/// [`MAX_TWIN_ROUNDS`]). `reports` are the verdict's pass's reports of the checks, in
/// order.
///
/// Where any unit's withheld tests take twins, they alone do, in every unit, in the pass
/// the code under test cannot tell from the verdict's by its files
/// ([`twins::Side::Unseen`]). It runs three times, each run one half of the withheld tests'
/// twins or the other, both among them, in an order drawn at random ([`twins::runs`]): each
/// withheld test is twinned in some runs and as written in the others, so that code
/// telling the runs apart by the clock meets twins in whichever it forges, and one that
/// bets on the order wins one time in six. When every check still passes, a last pass
/// twins the files the agent saw, the withheld ones kept ([`twins::Side::Seen`]).
fn twin_pass(
    prepared: &Prepared,
    baseline: Option<&Baseline>,
    make: &dyn Fn() -> Result<CheckTree, String>,
    verdict_tree: &str,
    results: &mut [CheckResult],
    reports: &[TestReport],
) -> Result<(), Finding> {
    let pass = TwinPass {
        prepared,
        baseline,
        make,
        verdict_tree,
        reports,
    };
    let [first, rest @ ..] = twins::runs();
    let split = twin_rounds(&pass, results, twins::Side::Unseen(first))?;
    let go_on = |results: &[CheckResult]| {
        split && results.iter().all(CheckResult::passed) && shutdown_signal().is_none()
    };
    let sides = rest
        .into_iter()
        .map(twins::Side::Unseen)
        .chain([twins::Side::Seen]);
    for side in sides {
        if go_on(results) {
            twin_rounds(&pass, results, side)?;
        }
    }
    Ok(())
}

/// What every round of the twin pass shares.
struct TwinPass<'a> {
    prepared: &'a Prepared,
    baseline: Option<&'a Baseline>,
    make: &'a dyn Fn() -> Result<CheckTree, String>,
    verdict_tree: &'a str,
    /// The verdict's pass's reports of the checks, in order.
    reports: &'a [TestReport],
}

/// The rounds of one twin pass, twinning `side` of the units with withheld twins, each
/// check concluded in `results`; whether some unit's twins were split that way.
fn twin_rounds(
    pass: &TwinPass<'_>,
    results: &mut [CheckResult],
    side: twins::Side,
) -> Result<bool, Finding> {
    let (prepared, baseline, reports) = (pass.prepared, pass.baseline, pass.reports);
    let mut split = false;
    // Files left original in the next round (those some round reached), and the
    // languages whose twins some round reached.
    let mut original: BTreeSet<String> = BTreeSet::new();
    let mut languages: BTreeSet<&'static str> = BTreeSet::new();
    let mut states: Vec<TwinRound> = vec![TwinRound::default(); results.len()];
    // Each check's files not reached yet.
    let mut unreached: Vec<Vec<String>> = vec![Vec::new(); results.len()];
    for _ in 0..MAX_TWIN_ROUNDS {
        if shutdown_signal().is_some() {
            break;
        }
        let (planted, ran) = twin_round(pass, &original, side)?;
        split |= planted.split;
        if planted.files.is_empty() {
            // Nothing (left) to judge.
            for state in &mut states {
                state.done = true;
            }
            break;
        }
        let round = Round {
            planted: &planted,
            reports,
        };
        let mut reached: BTreeSet<String> = BTreeSet::new();
        let left = judge_round(
            prepared,
            baseline,
            &round,
            ran,
            results,
            (&mut states, &mut reached),
        )?;
        languages.extend(reached.iter().map(|f| twins::language(f)));
        // Another round for the checks with files no round reached.
        for (i, files) in left {
            states[i].done = files.is_empty();
            unreached[i] = files;
        }
        let new = reached.iter().any(|f| !original.contains(f));
        original.extend(reached);
        if states.iter().all(|s| s.done) || !new {
            break;
        }
    }
    for ((result, state), files) in results.iter_mut().zip(&mut states).zip(&unreached) {
        // Files left after the last round in a language some round reached: a runner that
        // stops at its first failing twin (`pytest -x`, cargo at its first failing test
        // binary) leaves its other files, and that step was judged.
        if !state.done && files.iter().all(|f| languages.contains(twins::language(f))) {
            state.done = true;
        }
        state.conclude(result);
    }
    Ok(split)
}

/// One round of the twin pass: a fresh tree with the known answers and the twins of
/// `side`, the files in `original` kept, and the checks run there.
fn twin_round(
    pass: &TwinPass<'_>,
    original: &BTreeSet<String>,
    side: twins::Side,
) -> Result<(twins::Twins, Vec<checks::CheckRun>), Finding> {
    let (prepared, verdict_tree) = (pass.prepared, pass.verdict_tree);
    let check = (pass.make)()
        .map_err(|err| tree_finding(format!("the twins' tree cannot be made: {err}")))?;
    // The known answers too, as in the verdict's pass: nothing tells the two passes
    // apart but the expected values.
    let known = twins::plant_known(prepared, verdict_tree, &check);
    let plant = twins::Plant::Twins {
        judged: original,
        side,
    };
    let planted = twins::plant_in(prepared, verdict_tree, &check, &known, plant);
    if planted.files.is_empty() {
        return Ok((planted, Vec::new()));
    }
    let place = checks::Place::new(prepared, &check.dir, false);
    let runner = prepared.check_spawner(
        &check.dir,
        (check.read_only.clone(), check.caches.as_deref()),
        place.also_writable(),
    );
    // A copy runs its test a second time in the same run: twice the deadline, so that an
    // honest check whose time is mostly that test is not stopped for it.
    let doubled;
    let recipe = if planted.clones.is_empty() {
        &prepared.recipe
    } else {
        let secs = prepared.recipe.timeout_secs().saturating_mul(2);
        doubled = prepared.recipe.clone().with_timeout_secs(secs);
        &doubled
    };
    let ran = checks::run_checks(
        recipe,
        &prepared.ops,
        &check.project,
        &place,
        runner.as_ref(),
        Pass::Verdict,
    );
    Ok((planted, ran))
}

/// What one round of the twin pass planted, and the verdict's reports of the checks.
struct Round<'a> {
    planted: &'a twins::Twins,
    reports: &'a [TestReport],
}

/// Judges the checks of one round of the twin pass (`ran`), adding to `states` and to the
/// files `reached`; the checks not yet done, with the files whose twins the round did not
/// reach. `Err` for a forgery.
fn judge_round(
    prepared: &Prepared,
    baseline: Option<&Baseline>,
    round: &Round<'_>,
    ran: Vec<checks::CheckRun>,
    results: &mut [CheckResult],
    (states, reached_files): (&mut [TwinRound], &mut BTreeSet<String>),
) -> Result<Vec<(usize, Vec<String>)>, Finding> {
    // The kept files that declare their tests (withheld and acceptance ones), asked what
    // they declare by the agreement of the files the round left alone.
    let declaring: Vec<String> = round
        .planted
        .kept
        .iter()
        .filter(|p| prepared.declared.file(p).is_some())
        .cloned()
        .collect();
    let declared = |id: &str| prepared.declared.owned_by(id, &declaring);
    let mut left: Vec<(usize, Vec<String>)> = Vec::new();
    for (i, (((result, verdict), ran), state)) in results
        .iter_mut()
        .zip(round.reports)
        .zip(ran)
        .zip(states.iter_mut())
        .enumerate()
    {
        if state.done {
            continue;
        }
        let report = &ran.report;
        let said = twins::judge(
            round.planted,
            verdict,
            report,
            ran.result.exit_code,
            ran.result.timed_out,
            baseline.and_then(|b| b.of(&result.op)).map(|b| &b.tests),
            prepared.ops.len() == 1,
        )
        .map_err(|detail| Finding {
            kind: FindingKind::ForgedResults,
            path: result.op.clone(),
            detail: format!("check `{}`: {detail}", result.op),
        })?;
        let (reached, unreached) = twins::reached(round.planted, verdict, report);
        reached_files.extend(reached);
        state.record(&said);
        if state.changed.is_none() {
            state.changed = twins::changed(round.planted, (verdict, report), &declared);
        }
        let stopped = ran.result.timed_out || ran.result.exit_code.is_none();
        left.push((i, if stopped { Vec::new() } else { unreached }));
    }
    Ok(left)
}

/// One check's twins over the rounds of the twin pass.
#[derive(Debug, Clone, Default)]
struct TwinRound {
    /// Twins that failed, as they must.
    held: usize,
    /// A round that could not be judged, with nothing left to reach.
    inconclusive: bool,
    /// Judged: no further round.
    done: bool,
    /// A test of a file a round left as it was that passed in the verdict's pass and
    /// failed there, shown.
    changed: Option<String>,
}

impl TwinRound {
    /// What a round said. A round that could not be judged leaves the check inconclusive
    /// unless a later one holds.
    fn record(&mut self, said: &twins::TwinsSaid) {
        match said {
            twins::TwinsSaid::None => {}
            twins::TwinsSaid::Held(n) => {
                self.held += n;
                self.inconclusive = false;
            }
            twins::TwinsSaid::Inconclusive => self.inconclusive = self.held == 0,
        }
    }

    /// The check's story after the last round: a check whose twins were not all judged
    /// fails.
    fn conclude(&self, result: &mut CheckResult) {
        if let Some(test) = &self.changed {
            result.tests.twins = Some(TwinsState::Inconclusive);
            result.passed = false;
            result.tests.unexplained = Some(format!(
                "{test} passed in the verdict's pass and failed in the twin pass, where it ran as written: the test is flaky, or the code under test behaves differently in the two passes; an attempt passes only when both agree"
            ));
        } else if self.inconclusive || !self.done {
            result.tests.twins = Some(TwinsState::Inconclusive);
            result.passed = false;
            result.tests.unexplained = Some(
                "the twin pass (the checks again, with the tests' expected values changed) could not be judged: it was stopped, timed out, or ended before its twins ran; an attempt passes only with its twins held".into(),
            );
        } else if self.held > 0 {
            result.tests.twins = Some(TwinsState::Held);
        }
    }
}

/// The checks' results when the setup failed for a candidate's own lockfiles: each check
/// fails with the setup's message.
fn setup_failed(prepared: &Prepared, err: &str) -> Vec<CheckResult> {
    prepared
        .ops
        .iter()
        .map(|op| CheckResult {
            op: op.clone(),
            pass: Pass::Verdict,
            command: None,
            exit_code: None,
            signal: None,
            timed_out: false,
            passed: false,
            tests: crate::shared::TestSummary::default(),
            hint: None,
            cause: None,
            output_tail: format!(
                "the change alters what `[attempt] setup` reads, and the setup run again for it failed: {err}"
            ),
            full_output: None,
        })
        .collect()
}

/// The full candidate with the frozen files restored and the task ticked (what a pass
/// commits, and what the second pass runs), and the verdict's tree: the same without the
/// agent's own new tests.
fn pass_trees(
    prepared: &Prepared,
    config: &speccoder_config::Config,
    candidate: &str,
    audit: &audit::Audit,
) -> Result<(String, String), Finding> {
    let (store, scratch) = (&prepared.store, &prepared.scratch);
    let mut restore = audit.restore.clone();
    let tasks_path = join(&prepared.prefix, &config.attempt.tasks_file);
    if let Some(ticked) = commit::ticked(prepared, &tasks_path) {
        restore.insert(tasks_path, Some(ticked));
    }
    let full = store
        .edit(scratch, candidate, &restore)
        .map_err(tree_finding)?;
    let without: std::collections::BTreeMap<String, Option<(String, String)>> = audit
        .agent_tests
        .iter()
        .map(|p| (p.clone(), None))
        .collect();
    let verdict_tree = store.edit(scratch, &full, &without).map_err(tree_finding)?;
    Ok((full, verdict_tree))
}

/// One check's result, judged: its known answers read (a report that is not the runner's
/// is the finding `forged_results`), then its tests against the base's.
fn judged(
    prepared: &Prepared,
    baseline: Option<&Baseline>,
    known: &[twins::Known],
    checks::CheckRun { mut result, report }: checks::CheckRun,
) -> Result<(CheckResult, BTreeSet<String>), Finding> {
    let base = baseline.and_then(|b| b.of(&result.op));
    result.output_tail = twins::scrub(known, &result.output_tail);
    result.cause = result.cause.as_deref().map(|c| twins::scrub(known, c));
    // The digest quotes the cause: a message about a withheld file is not.
    if let (Some(cause), Some(withheld)) = (&result.cause, &prepared.withheld)
        && withheld
            .files
            .iter()
            .any(|f| cause.contains(f.rsplit('/').next().unwrap_or(f)))
    {
        result.cause = Some("a message about a withheld test file (its text is not shown)".into());
    }
    let (report, state) = twins::now(known, report, result.exit_code, result.timed_out, base)
        .map_err(|detail| Finding {
            kind: FindingKind::ForgedResults,
            path: result.op.clone(),
            detail: format!("check `{}`: {detail}", result.op),
        })?;
    let new = baseline::new_tests(prepared, baseline, &result.op);
    let (passed, mut summary) = outcomes::judge(
        result.exit_code,
        result.timed_out,
        &report,
        base,
        new,
        &prepared.known,
    );
    summary.canary = state;
    result.passed = passed;
    result.tests = summary;
    Ok((result, new.files_ran(&report)))
}

/// Fails the first check for each withheld or acceptance file that declares tests and that
/// no check ran (`ran`: the files each check ran tests of), naming the task that would run
/// it: a workspace member's tests that the root's `cargo test` leaves out, a package whose
/// tests vanished. A withheld file is named only in the story, not the digest.
fn ran_in_no_check(prepared: &Prepared, ran: &[BTreeSet<String>], results: &mut [CheckResult]) {
    let Some(first) = results.first_mut() else {
        return;
    };
    let withheld = prepared.withheld.as_ref().map_or(&[][..], |w| &w.files);
    let files = prepared.acceptance_files.iter().chain(withheld);
    for file in files {
        let declares = prepared
            .declared
            .file(file)
            .is_some_and(|d| d.declares_tests);
        if !declares || ran.iter().any(|r| r.contains(file)) {
            continue;
        }
        let mark = if withheld.contains(file) {
            outcomes::WITHHELD_MARK
        } else {
            ""
        };
        let would = match task_for(prepared, file) {
            Some(task) if !prepared.ops.contains(&task) => {
                format!(": the task `{task}` would run it; add it to `[attempt] checks`")
            }
            _ => String::new(),
        };
        first.passed = false;
        first
            .tests
            .not_passed
            .push(format!("{mark}`{file}`: no check ran its tests{would}"));
        first.tests.not_passed_count += 1;
    }
}

/// The test task of the deepest folder holding `file` (`csv-core/test` for
/// `csv-core/tests/reset.rs`), as the recipe names it.
fn task_for(prepared: &Prepared, file: &str) -> Option<String> {
    prepared
        .recipe
        .runners()
        .flat_map(|r| r.tasks.iter())
        .filter(|t| t.name == "test" || t.name.ends_with("/test"))
        .filter_map(|t| {
            // Where it runs, or the folder its name is for (cargo's `csv-core/test` runs at
            // the root with `--package csv-core`).
            let named = t.name.rsplit_once('/').map_or("", |(d, _)| d);
            let dir = t.cwd.as_deref().unwrap_or(named).trim_end_matches('/');
            let inside = dir.is_empty() || file.starts_with(&format!("{dir}/"));
            inside.then_some((dir.len(), t.name.clone()))
        })
        .max_by_key(|(len, _)| *len)
        .map(|(_, name)| name)
}

/// Ends the story of an attempt stopped by a signal: journalled as interrupted.
fn interrupted(
    story: &mut Story,
    prepared: &Prepared,
    request: &AttemptRequest<'_>,
    n: u32,
    stop: Stop,
) {
    let outcome = stop.outcome.map_or_else(
        || turn::never_started(request.config, "a stop signal came first"),
        |outcome| *outcome,
    );
    let record = AttemptRecord {
        n,
        run_id: outcome.run_id.clone(),
        agent: outcome,
        findings: Vec::new(),
        warnings: Vec::new(),
        checks: Vec::new(),
        verdict: Verdict::Interrupted,
        reason: format!("interrupted by signal {}", stop.signal),
        digest: Value::Null,
    };
    if let Err(err) = prepared.journal.write(&record.journal_entry(story)) {
        story.notes.push(err);
    }
    story.attempts.push(record);
    story.verdict = Verdict::Interrupted;
    story.signal = Some(stop.signal);
}
