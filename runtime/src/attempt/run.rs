//! The loop of `speccoder attempt`: stages over values, attempt after attempt, until one
//! passes, the agent blocks, or the attempts run out. Each stage is a file: prepare →
//! turn (the agent) → candidate → audit → check tree → checks → verdict → commit. A stop
//! signal between stages ends the loop in one place ([`Stop`]).

use serde_json::Value;

use super::audit::{self, Finding, FindingKind, Inputs};
use super::candidate;
use super::check_tree::CheckTree;
use super::checks::{self, CheckResult, Pass};
use super::commit;
use super::prepare::{self, Prepared, join, prepare};
use super::story::{AttemptRecord, AttemptRequest, Story};
use super::turn;
use super::verdict::{self, Verdict};
use crate::agent::{Outcome, Status};
use crate::process::shutdown_signal;

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

/// Runs the whole loop. `Err` means the attempt could not start (exit 2); once the
/// attempt's folder exists every outcome is a [`Story`]. `note` receives notes as they
/// arise.
pub fn run_attempt(
    request: &AttemptRequest<'_>,
    note: &mut dyn FnMut(&str),
) -> Result<Story, String> {
    prepare::executor(request.config)?;
    let mut prepared = prepare(request)?;
    for n in &prepared.notes {
        note(n);
    }
    let max = request.config.attempt.max_attempts;
    let mut story = Story {
        task: prepared.bundle.bundle.task.id.clone(),
        verdict: Verdict::Failed,
        branch: None,
        commit: None,
        worktree: None,
        attempts: Vec::new(),
        max_attempts: max,
        notes: std::mem::take(&mut prepared.notes),
        signal: None,
        isolation: prepared.isolation.name(),
    };
    let mut digest: Option<Value> = None;
    for n in 1..=max {
        let (record, pass) = match attempt_once(request, &prepared, n, digest.as_ref()) {
            Ok(done) => done,
            Err(stop) => {
                interrupted(&mut story, &prepared, request, n, stop);
                break;
            }
        };
        story.notes.extend(pass.notes.iter().cloned());
        if let Err(err) = prepared
            .journal
            .write(&record.journal_entry(&story.task, max))
        {
            story.notes.push(err);
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
        match verdict {
            Verdict::Passed => {
                commit::commit(&mut story, &prepared, request, &pass, n);
                break;
            }
            Verdict::Blocked => break,
            // A program that cannot be started will not start on a retry either.
            Verdict::Failed if cannot_start => break,
            Verdict::Rejected | Verdict::Failed | Verdict::Interrupted => {
                digest = Some(this_digest);
            }
        }
    }
    if story.verdict != Verdict::Passed && request.keep_worktree {
        story.worktree = Some(prepared.tree.clone());
    }
    commit::finish(&mut story, prepared, request.keep_worktree);
    Ok(story)
}

/// What a passing attempt hands to the commit: the tree its checks ran on.
#[derive(Debug, Default)]
pub(crate) struct PassTree {
    /// The tree the checks ran on, without the withheld tests: what a pass commits.
    pub(crate) tree: String,
    /// The agent's summary.
    pub(crate) summary: String,
    /// Notes of the audit.
    pub(crate) notes: Vec<String>,
}

/// One attempt, from a fresh tree to its verdict.
fn attempt_once(
    request: &AttemptRequest<'_>,
    prepared: &Prepared,
    n: u32,
    digest: Option<&Value>,
) -> Result<(AttemptRecord, PassTree), Stop> {
    let config = request.config;
    go_on(None)?;
    let mut outcome = match turn::fresh_tree(prepared, n) {
        Ok(()) => turn::run_agent(prepared, config, digest),
        Err(err) => turn::never_started(config, &err),
    };
    go_on(Some(&outcome))?;

    // The candidate, built by speccoder from the agent's files, and its audit.
    let mut findings: Vec<Finding> = Vec::new();
    let mut pass = PassTree {
        summary: outcome
            .report
            .as_ref()
            .map(|r| r.summary.clone())
            .unwrap_or_default(),
        ..PassTree::default()
    };
    let mut warnings = Vec::new();
    let mut judged = None;
    match candidate::build(prepared) {
        Ok(candidate) => {
            let tree = candidate.tree;
            findings.extend(candidate.nested.iter().map(|path| Finding {
                kind: FindingKind::NestedRepository,
                path: path.clone(),
                detail: "a nested git repository: git reads its files as another repository's, so they are not the tree's".into(),
            }));
            let no_texts = Vec::new();
            let inputs = Inputs {
                store: &prepared.store,
                rules: &prepared.rules,
                test_edits: config.attempt.test_edits,
                withheld: prepared.withheld.as_ref().map_or(&[][..], |w| &w.paths),
                withheld_texts: prepared.withheld.as_ref().map_or(&no_texts, |w| &w.texts),
                tasks_file: &join(&prepared.prefix, &config.attempt.tasks_file),
                reject_gaming: config.attempt.reject_gaming,
            };
            match audit::audit(&prepared.base, &tree, &inputs) {
                Ok(audit) => {
                    if let Some(report) = outcome.report.as_mut() {
                        report.files_changed = audit.changed.clone();
                    }
                    findings.extend(audit.findings.iter().cloned());
                    warnings = audit.warnings.clone();
                    pass.notes = audit.notes.clone();
                    judged = Some((tree, audit));
                }
                Err(err) => findings.push(unreadable(&err)),
            }
        }
        Err(err) => findings.push(unreadable(&err)),
    }
    go_on(Some(&outcome))?;

    // The checks, in a fresh tree of the verdict's files, then with the agent's own tests.
    let mut checks: Vec<CheckResult> = Vec::new();
    let mut ran = false;
    if outcome.status == Status::Completed
        && findings.is_empty()
        && let Some((tree, audit)) = &judged
    {
        match check_pass(prepared, config, tree, audit, n) {
            Ok((results, tree)) => {
                checks = results;
                pass.tree = tree;
                ran = true;
            }
            Err(finding) => findings.push(finding),
        }
        go_on(Some(&outcome))?;
    }
    let ran_checks = ran && (!checks.is_empty() || prepared.ops.is_empty());
    let verdict = Verdict::decide(&outcome, &findings, ran_checks.then_some(checks.as_slice()));
    let reason = verdict::reason(verdict, &outcome, &findings, &checks);
    let digest = verdict::digest(verdict, &outcome, &findings, &checks);
    Ok((
        AttemptRecord {
            n,
            run_id: outcome.run_id.clone(),
            agent: outcome,
            findings,
            warnings,
            checks,
            verdict,
            reason,
            digest,
        },
        pass,
    ))
}

/// A finding for a candidate speccoder could not read.
fn unreadable(err: &str) -> Finding {
    Finding {
        kind: FindingKind::ProtectedChanged,
        path: ".".into(),
        detail: format!("the agent's tree cannot be staged: {err}"),
    }
}

/// Both passes of the checks. Returns their results and the tree they ran on (the commit
/// of a pass), or a finding when the check tree cannot be made.
fn check_pass(
    prepared: &Prepared,
    config: &crate::config::Config,
    candidate: &str,
    audit: &audit::Audit,
    n: u32,
) -> Result<(Vec<CheckResult>, String), Finding> {
    let store = &prepared.store;
    let scratch = &prepared.scratch;
    let fail = |detail: String| Finding {
        kind: FindingKind::ProtectedChanged,
        path: ".".into(),
        detail,
    };
    // The full candidate with the frozen files restored and the task ticked: what a pass
    // commits, and what the second pass runs.
    let mut restore = audit.restore.clone();
    let tasks_path = join(&prepared.prefix, &config.attempt.tasks_file);
    if let Some(ticked) = commit::ticked(prepared, &tasks_path) {
        restore.insert(tasks_path, Some(ticked));
    }
    let full = store.edit(scratch, candidate, &restore).map_err(fail)?;
    // The verdict's tree: the same without the agent's own new tests.
    let without: std::collections::BTreeMap<String, Option<(String, String)>> = audit
        .agent_tests
        .iter()
        .map(|p| (p.clone(), None))
        .collect();
    let verdict_tree = store.edit(scratch, &full, &without).map_err(fail)?;
    // With no checks the audit alone decides, and there is nothing to run a tree for.
    if prepared.ops.is_empty() {
        return Ok((Vec::new(), full));
    }
    let dir = prepared.folder.path().join(format!("check-{n}"));
    let check = CheckTree::make(
        store,
        &verdict_tree,
        &dir,
        scratch,
        &prepared.prefix,
        &audit.frozen,
        prepared.withheld.as_ref(),
    )
    .map_err(|err| fail(format!("the checks' tree cannot be made: {err}")))?;
    let runner = prepared.check_runner(&check.dir, check.read_only.clone());
    let mut results = checks::run_checks(
        &prepared.recipe,
        &prepared.ops,
        &check.project,
        runner.as_ref(),
        Pass::Verdict,
    );
    if results.iter().all(CheckResult::passed) && !audit.agent_tests.is_empty() {
        if shutdown_signal().is_some() {
            return Ok((results, full));
        }
        check
            .add(store, &full, &audit.agent_tests, scratch)
            .map_err(|err| {
                fail(format!(
                    "the agent's tests cannot be added to the checks' tree: {err}"
                ))
            })?;
        results.extend(checks::run_checks(
            &prepared.recipe,
            &prepared.ops,
            &check.project,
            runner.as_ref(),
            Pass::AgentTests,
        ));
    }
    Ok((results, full))
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
    if let Err(err) = prepared
        .journal
        .write(&record.journal_entry(&story.task, story.max_attempts))
    {
        story.notes.push(err);
    }
    story.attempts.push(record);
    story.verdict = Verdict::Interrupted;
    story.signal = Some(stop.signal);
}
