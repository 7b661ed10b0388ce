//! The loop of `speccoder attempt`: attempts until one passes, the agent blocks, or the
//! attempts run out; a stop signal ends it cleanly.

use std::path::PathBuf;

use serde_json::Value;

use super::audit::{self, Baseline, Finding, FindingKind};
use super::checks;
use super::isolation;
use super::journal::Journal;
use super::judge::judge;
use super::rules::Rules;
use super::setup::{Setup, check_ops, join, prefixed, prepare};
use super::story::{AttemptRecord, AttemptRequest, Story};
use super::tasks_file;
use super::verdict::{self, Verdict};
use super::worktree::{Leave, Worktree};
use crate::agent::{
    Attempt, CLAUDE_RECIPE_TOOL, Match, Outcome, RecipeServer, Status, allowances, build_prompt,
    new_run_id,
};
use crate::config::{Config, ExecutorKind, RecipeConfig};
use crate::process::{LocalRunner, shutdown_signal};
use crate::recipe::Recipe;

/// How the agent's outcome starts when its program could not be started.
const CANNOT_START: &str = "the agent could not be started";

/// Runs the whole loop. `Err` means the attempt could not start (exit 2); once the worktree
/// exists every outcome is a [`Story`]. `note` receives notes as they arise.
pub fn run_attempt(
    request: &AttemptRequest<'_>,
    note: &mut dyn FnMut(&str),
) -> Result<Story, String> {
    let mut setup = prepare(request)?;
    for n in &setup.notes {
        note(n);
    }
    let config = request.config;
    let executor = config
        .executor
        .as_ref()
        .ok_or("no external executor is configured (`[executor] kind` is absent or \"native\")")?;
    let task = setup.bundle.bundle.task.id.clone();
    let mut worktree = Worktree::create(&setup.repo, &setup.branch)?;
    worktree.freeze(&prefixed(&setup.prefix, &setup.bundle.acceptance), &task)?;
    let project_dir = worktree.path().join(&setup.prefix);

    let recipe_config = RecipeConfig {
        cache: false,
        ..config.recipe.clone()
    };
    let recipe = Recipe::detect(&project_dir, &recipe_config);
    let ops = check_ops(config, &recipe)?;
    let mut allowed = if config.recipe.enabled {
        allowances(config, Some(&recipe))
    } else {
        allowances(config, None)
    };
    // The recipe tool over MCP, as `agent run` gives it, with the configuration the attempt
    // was started with rather than the worktree's copy, which the agent could edit.
    let recipe_server = (executor.recipe_mcp && config.recipe.enabled).then(|| RecipeServer {
        program: std::env::current_exe().unwrap_or_else(|_| PathBuf::from("speccoder")),
        config: config.source.clone(),
    });
    if recipe_server.is_some() && executor.kind == ExecutorKind::Claude {
        allowed.claude_rules.push(CLAUDE_RECIPE_TOOL.to_owned());
    }
    for op in &ops {
        if let Ok(resolved) = recipe.resolve(op)
            && let Some(argv) = speccoder_runners::split_words(&resolved.command)
        {
            allowed.push(argv, Match::Exact);
        }
    }

    let mut protected_paths: Vec<String> = setup.bundle.acceptance.keys().cloned().collect();
    protected_paths.push(config.wording.intent_file.clone());
    let rules = Rules::new(
        &config.attempt.protected,
        &config.attempt.tests,
        protected_paths,
        &setup.prefix,
    )?;
    let mut test_paths: Vec<String> = worktree
        .files(worktree.base())
        .into_iter()
        .filter(|p| rules.is_test(p))
        .collect();
    if let Some(withheld) = &setup.withheld {
        test_paths.extend(withheld.files.iter().map(|f| join(&setup.prefix, f)));
    }
    let baseline = Baseline {
        ignored: audit::ignored(&worktree, &test_paths),
        test_paths,
    };

    let journal = Journal::new(&setup.repo.common_dir, &task);
    let max = config.attempt.max_attempts;
    let mut records: Vec<AttemptRecord> = Vec::new();
    let mut digest: Option<Value> = None;
    let mut story = Story {
        task: task.clone(),
        verdict: Verdict::Failed,
        branch: None,
        commit: None,
        worktree: None,
        attempts: Vec::new(),
        max_attempts: max,
        notes: std::mem::take(&mut setup.notes),
        signal: None,
    };
    let leave_unpassed = if request.keep_worktree {
        Leave::KeepWorktree
    } else {
        Leave::RemoveBranch
    };

    for n in 1..=max {
        if n > 1
            && let Err(err) = worktree.reset()
        {
            story.notes.push(err);
            break;
        }
        if let Some(signal) = shutdown_signal() {
            let outcome = not_started(executor.kind.name(), "a stop signal came first");
            return Ok(interrupted(
                story,
                records,
                outcome,
                (n, max),
                signal,
                &journal,
                worktree,
                leave_unpassed,
            ));
        }
        let prompt = build_prompt(&setup.bundle.bundle, digest.as_ref(), &config.wording);
        let claude_rules = allowed.claude_rules.clone();
        let outcome = Attempt {
            executor,
            claude_rules: &claude_rules,
            worktree: &project_dir,
            withheld: setup.withheld.as_ref().map(|w| w.dir.as_path()),
            prompt: &prompt,
            recipe_server: recipe_server.as_ref(),
        }
        .run(setup.runner.as_ref());
        if let Some(signal) = shutdown_signal() {
            return Ok(interrupted(
                story,
                records,
                outcome,
                (n, max),
                signal,
                &journal,
                worktree,
                leave_unpassed,
            ));
        }
        let judged = judge(
            &worktree,
            &setup,
            &rules,
            &baseline,
            config.attempt.reject_gaming,
        );
        let (tree, mut findings, warnings) = match judged {
            Ok(judged) => judged,
            // Staging fails when the agent broke the worktree's git state (`.git`), which
            // it must not touch: that is a finding of its own, and nothing can be judged.
            Err(err) => (
                String::new(),
                vec![Finding {
                    kind: FindingKind::ProtectedChanged,
                    path: ".git".into(),
                    detail: format!("the worktree's git state cannot be read: {err}"),
                }],
                Vec::new(),
            ),
        };
        let mut checks = Vec::new();
        if outcome.status == Status::Completed && findings.is_empty() {
            let copied = match &setup.withheld {
                Some(w) => match isolation::copy_in(&w.dir, &w.files, &project_dir) {
                    Ok(copied) => Some(copied),
                    // The agent put a link or a file where a withheld test goes.
                    Err(err) => {
                        findings.push(Finding {
                            kind: FindingKind::ProtectedChanged,
                            path: w.dir.display().to_string(),
                            detail: format!("the withheld tests cannot be placed: {err}"),
                        });
                        None
                    }
                },
                None => None,
            };
            if findings.is_empty() {
                checks = checks::run_checks(&recipe, &ops, &LocalRunner::default());
            }
            if let Some(copied) = copied {
                copied.remove();
            }
            if let Some(signal) = shutdown_signal() {
                return Ok(interrupted(
                    story,
                    records,
                    outcome,
                    (n, max),
                    signal,
                    &journal,
                    worktree,
                    leave_unpassed,
                ));
            }
        }
        let ran_checks = (!checks.is_empty() || ops.is_empty())
            && outcome.status == Status::Completed
            && findings.is_empty();
        let verdict = Verdict::decide(&outcome, &findings, ran_checks.then_some(checks.as_slice()));
        let reason = verdict::reason(verdict, &outcome, &findings, &checks);
        let this_digest = verdict::digest(verdict, &outcome, &findings, &checks);
        let record = AttemptRecord {
            n,
            run_id: outcome.run_id.clone(),
            agent: outcome,
            findings,
            warnings,
            checks,
            verdict,
            reason,
            digest: this_digest.clone(),
        };
        if let Err(err) = journal.write(&record.journal_entry(&task, max)) {
            story.notes.push(err);
        }
        records.push(record);
        story.verdict = verdict;
        match verdict {
            Verdict::Passed => {
                let summary = records
                    .last()
                    .and_then(|r| r.agent.report.as_ref())
                    .map(|r| r.summary.clone())
                    .unwrap_or_default();
                return Ok(commit_pass(
                    story,
                    records,
                    &setup,
                    &tree,
                    worktree,
                    &summary,
                    n,
                    max,
                    request.keep_worktree,
                    config,
                ));
            }
            Verdict::Blocked => break,
            // A program that cannot be started will not start on a retry either.
            Verdict::Failed
                if records.last().is_some_and(|r| {
                    r.agent
                        .reason
                        .as_deref()
                        .is_some_and(|why| why.starts_with(CANNOT_START))
                }) =>
            {
                break;
            }
            Verdict::Rejected | Verdict::Failed | Verdict::Interrupted => {
                digest = Some(this_digest)
            }
        }
    }
    story.attempts = records;
    if leave_unpassed == Leave::KeepWorktree {
        story.branch = Some(setup.branch.clone());
        story.worktree = Some(worktree.path().to_path_buf());
    }
    story.notes.extend(worktree.finish(leave_unpassed));
    Ok(story)
}

/// The outcome of an agent that was never started.
fn not_started(kind: &str, why: &str) -> Outcome {
    Outcome {
        run_id: new_run_id(kind),
        status: Status::Failed,
        report: None,
        reason: Some(format!("the agent was not started: {why}")),
        tool_calls: Vec::new(),
        usage: None,
    }
}

/// The story of an attempt stopped by a signal: journalled as interrupted, the worktree
/// removed (or kept), its branch gone unless kept.
#[expect(
    clippy::too_many_arguments,
    reason = "the loop's whole state, handed over once"
)]
fn interrupted(
    mut story: Story,
    mut records: Vec<AttemptRecord>,
    outcome: Outcome,
    (n, max): (u32, u32),
    signal: i32,
    journal: &Journal,
    worktree: Worktree,
    leave: Leave,
) -> Story {
    let record = AttemptRecord {
        n,
        run_id: outcome.run_id.clone(),
        agent: outcome,
        findings: Vec::new(),
        warnings: Vec::new(),
        checks: Vec::new(),
        verdict: Verdict::Interrupted,
        reason: format!("interrupted by signal {signal}"),
        digest: Value::Null,
    };
    if let Err(err) = journal.write(&record.journal_entry(&story.task, max)) {
        story.notes.push(err);
    }
    records.push(record);
    story.attempts = records;
    story.verdict = Verdict::Interrupted;
    story.signal = Some(signal);
    if leave == Leave::KeepWorktree {
        story.worktree = Some(worktree.path().to_path_buf());
    }
    story.notes.extend(worktree.finish(leave));
    story
}

/// Commits a passing attempt with the task ticked and ends the worktree.
#[expect(
    clippy::too_many_arguments,
    reason = "the loop's whole state, handed over once"
)]
fn commit_pass(
    mut story: Story,
    records: Vec<AttemptRecord>,
    setup: &Setup,
    tree: &str,
    worktree: Worktree,
    summary: &str,
    n: u32,
    max: u32,
    keep: bool,
    config: &Config,
) -> Story {
    let task = &setup.bundle.bundle.task;
    let tasks_path = join(&setup.prefix, &config.attempt.tasks_file);
    let ticked = worktree
        .git()
        .file(tree, &tasks_path)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .and_then(|text| tasks_file::tick(&text, &task.id));
    let mut message = format!("{}: {}\n", task.id, task.title.trim());
    if !summary.trim().is_empty() {
        message.push('\n');
        message.push_str(summary.trim());
        message.push('\n');
    }
    message.push_str(&format!("\nAttempt: {n} of {max}\n"));
    story.attempts = records;
    match worktree.commit(
        tree,
        ticked.as_deref().map(|t| (tasks_path.as_str(), t)),
        &message,
    ) {
        Ok(commit) => {
            story.commit = Some(commit);
            story.branch = Some(setup.branch.clone());
            let leave = if keep {
                story.worktree = Some(worktree.path().to_path_buf());
                Leave::KeepWorktree
            } else {
                Leave::KeepBranch
            };
            story.notes.extend(worktree.finish(leave));
        }
        Err(err) => {
            story.verdict = Verdict::Failed;
            story
                .notes
                .push(format!("the passing attempt could not be committed: {err}"));
            story.notes.extend(worktree.finish(Leave::RemoveBranch));
        }
    }
    story
}
