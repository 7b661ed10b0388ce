//! `speccoder attempt`: carries one task of a bundle to a verified commit. A worktree on a
//! new branch, the frozen acceptance tests as its base, the external agent (hidden from
//! withheld tests), the audit of its diff, the gaming monitor, the checks through the
//! recipe, a verdict, retries with the digest, and on a pass one commit with the task
//! ticked. Every attempt goes to the journal. See `spec/attempt.md`.

mod audit;
mod bundle;
mod checks;
mod gaming;
mod git;
mod isolation;
mod journal;
mod rules;
mod scan;
mod tasks_file;
mod verdict;
mod worktree;

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Value, json};

pub use audit::{Finding, FindingKind};
pub use checks::CheckResult;
pub use gaming::Warning;
pub use verdict::Verdict;

use self::audit::Baseline;
use self::bundle::AttemptBundle;
use self::gaming::{FileText, SourceChange};
use self::isolation::{IsolatedRunner, Namespaces};
use self::journal::Journal;
use self::rules::Rules;
use self::worktree::{ChangeKind, Leave, Repo, Worktree};
use crate::agent::{
    Attempt, CLAUDE_RECIPE_TOOL, Match, Outcome, RecipeServer, Status, allowances, build_prompt,
    new_run_id,
};
use crate::config::{Config, ExecutorKind, RecipeConfig};
use crate::process::{CommandRunner, LocalRunner, shutdown_signal};
use crate::recipe::Recipe;

/// Test files read by the gaming monitor at most, so a huge suite costs a bounded time.
const MAX_TEST_FILES_READ: usize = 300;

/// What `speccoder attempt` was asked to do.
#[derive(Debug, Clone)]
pub struct AttemptRequest<'a> {
    /// The project root (absolute).
    pub root: &'a Path,
    /// Its configuration.
    pub config: &'a Config,
    /// The task bundle file.
    pub bundle: &'a Path,
    /// A folder of tests the agent must never read, used by the checks only.
    pub withheld: Option<&'a Path>,
    /// Keep the worktree at the end.
    pub keep_worktree: bool,
}

/// One attempt's record, as printed and journalled.
#[derive(Debug, Clone, Serialize)]
pub struct AttemptRecord {
    /// 1-based.
    pub n: u32,
    /// The agent run's id.
    pub run_id: String,
    /// The agent's outcome.
    pub agent: Outcome,
    /// The audit's findings.
    pub findings: Vec<Finding>,
    /// The gaming monitor's warnings.
    pub warnings: Vec<Warning>,
    /// The checks, when they ran.
    pub checks: Vec<CheckResult>,
    /// The verdict.
    pub verdict: Verdict,
    /// Why, in one line.
    pub reason: String,
    /// The digest handed to the next attempt.
    pub digest: Value,
}

/// The whole story of `speccoder attempt`.
#[derive(Debug, Clone, Serialize)]
pub struct Story {
    /// The task id.
    pub task: String,
    /// The final verdict.
    pub verdict: Verdict,
    /// The branch holding the commit (or the kept worktree).
    pub branch: Option<String>,
    /// The commit of a pass.
    pub commit: Option<String>,
    /// The worktree, when kept.
    pub worktree: Option<PathBuf>,
    /// Every attempt, in order.
    pub attempts: Vec<AttemptRecord>,
    /// The most attempts this run could make.
    pub max_attempts: u32,
    /// Things a person should know (uncommitted changes left out, isolation, cleanup).
    pub notes: Vec<String>,
    /// The signal that interrupted the attempt, if one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
}

/// Everything fixed before the first attempt.
struct Setup {
    bundle: AttemptBundle,
    repo: Repo,
    /// The project root's path inside the repository (`""` at the top).
    prefix: String,
    withheld: Option<Withheld>,
    runner: Box<dyn CommandRunner>,
    branch: String,
    notes: Vec<String>,
}

/// The withheld tests.
struct Withheld {
    dir: PathBuf,
    files: Vec<String>,
}

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
        if let Err(err) = journal.write(&journal_entry(&task, max, &record)) {
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

/// Checks everything that can be checked before a worktree exists.
fn prepare(request: &AttemptRequest<'_>) -> Result<Setup, String> {
    let config = request.config;
    if config.executor.is_none() {
        return Err(
            "no external executor is configured (`[executor] kind` is absent or \"native\")".into(),
        );
    }
    let bundle = AttemptBundle::load(request.bundle)?;
    let task = bundle.bundle.task.id.clone();
    let repo = Repo::open(request.root)?;
    let top = repo.top.canonicalize().unwrap_or_else(|_| repo.top.clone());
    let prefix = request
        .root
        .strip_prefix(&top)
        .map_err(|_| format!("{} is not inside {}", request.root.display(), top.display()))?
        .to_str()
        .ok_or("the project root is not a UTF-8 path")?
        .to_owned();
    let branch = config.attempt.branch.replace("{task}", &task);
    if !repo.valid_branch(&branch) {
        return Err(format!(
            "`{branch}` is not a valid branch name (`[attempt] branch`)"
        ));
    }
    if repo.has_branch(&branch) {
        return Err(format!(
            "the branch `{branch}` exists already: merge or delete it (`git branch -D {branch}`) before a new attempt"
        ));
    }
    let mut notes = Vec::new();
    let uncommitted = repo.uncommitted();
    if !uncommitted.is_empty() {
        notes.push(format!(
            "the checkout has uncommitted changes ({} paths, such as {}); the attempt starts from HEAD without them",
            uncommitted.len(),
            uncommitted[0]
        ));
    }
    let mut runner: Box<dyn CommandRunner> = Box::new(LocalRunner::default());
    let withheld = match request.withheld {
        None => None,
        Some(dir) => {
            let dir = dir
                .canonicalize()
                .map_err(|err| format!("--withheld {}: {err}", dir.display()))?;
            if !dir.is_dir() {
                return Err(format!("--withheld {} is not a folder", dir.display()));
            }
            if top.starts_with(&dir) {
                return Err(format!(
                    "--withheld {} holds the repository itself",
                    dir.display()
                ));
            }
            if let Ok(inside) = dir.strip_prefix(&top) {
                let inside = inside.to_string_lossy();
                let tracked = repo.tracked_under(&inside);
                if !tracked.is_empty() {
                    return Err(format!(
                        "--withheld {}: {} is committed in the repository, so the agent would find it in its worktree",
                        dir.display(),
                        tracked[0]
                    ));
                }
            }
            let files = isolation::withheld_files(&dir)?;
            match Namespaces::probe() {
                Ok(namespaces) => {
                    runner = Box::new(IsolatedRunner {
                        namespaces,
                        hidden: dir.clone(),
                        inner: LocalRunner::default(),
                    });
                }
                Err(why) if config.attempt.allow_unisolated_withheld => notes.push(format!(
                    "the withheld tests are NOT hidden from the agent by a namespace ({why}); only Claude's deny rule guards them (`[attempt] allow_unisolated_withheld = true`)"
                )),
                Err(why) => {
                    return Err(format!(
                        "withheld tests need a private mount namespace to be hidden from the agent, and {why}. Set `[attempt] allow_unisolated_withheld = true` to run without one"
                    ));
                }
            }
            Some(Withheld { dir, files })
        }
    };
    Ok(Setup {
        bundle,
        repo,
        prefix,
        withheld,
        runner,
        branch,
        notes,
    })
}

/// The checks: the configured ops, each of which must resolve, or the `test` task.
fn check_ops(config: &Config, recipe: &Recipe) -> Result<Vec<String>, String> {
    match &config.attempt.checks {
        Some(ops) => {
            if !config.recipe.enabled && !ops.is_empty() {
                return Err("`[attempt] checks` run through the recipe, which is disabled (`[recipe] enabled = false`)".into());
            }
            for op in ops {
                recipe
                    .resolve(op)
                    .map_err(|err| format!("the check `{op}` ([attempt] checks) does not resolve: {err}"))?;
            }
            Ok(ops.clone())
        }
        None if config.recipe.enabled && recipe.resolve("test").is_ok() => Ok(vec!["test".into()]),
        None => Err(
            "no checks: the project has no `test` task; name the checks in `[attempt] checks` (an empty list means the audit alone decides)".into(),
        ),
    }
}

fn join(prefix: &str, path: &str) -> String {
    if prefix.is_empty() {
        path.to_owned()
    } else {
        format!("{prefix}/{path}")
    }
}

fn prefixed(
    prefix: &str,
    files: &std::collections::BTreeMap<String, String>,
) -> std::collections::BTreeMap<String, String> {
    files
        .iter()
        .map(|(k, v)| (join(prefix, k), v.clone()))
        .collect()
}

/// Stages the candidate and runs the audit and the gaming monitor on it.
fn judge(
    worktree: &Worktree,
    setup: &Setup,
    rules: &Rules,
    baseline: &Baseline,
    reject_gaming: bool,
) -> Result<(String, Vec<Finding>, Vec<Warning>), String> {
    let tree = worktree.stage()?;
    let changes = worktree.changes(&tree)?;
    let mut findings = audit::audit(worktree, &tree, &changes, rules, baseline);
    let git = worktree.git();
    let read = |treeish: &str, path: &str| {
        git.file(treeish, path)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    };
    let sources: Vec<SourceChange> = changes
        .iter()
        .filter(|c| c.kind != ChangeKind::Deleted)
        .filter(|c| {
            scan::is_source(&c.path) && !rules.is_test(&c.path) && !rules.is_snapshot(&c.path)
        })
        .filter_map(|c| {
            Some(SourceChange {
                path: c.path.clone(),
                old: read(worktree.base(), &c.path).unwrap_or_default(),
                new: read(&tree, &c.path)?,
            })
        })
        .collect();
    let mut tests: Vec<FileText> = Vec::new();
    if !sources.is_empty() {
        for path in worktree
            .files(&tree)
            .into_iter()
            .filter(|p| rules.is_test(p) && !rules.is_snapshot(p))
            .take(MAX_TEST_FILES_READ)
        {
            if let Some(text) = read(&tree, &path) {
                tests.push(FileText { path, text });
            }
        }
        if let Some(w) = &setup.withheld {
            for file in &w.files {
                if let Ok(text) = std::fs::read_to_string(w.dir.join(file)) {
                    tests.push(FileText {
                        path: format!("(withheld) {file}"),
                        text,
                    });
                }
            }
        }
    }
    let warnings = gaming::monitor(&sources, &tests);
    if reject_gaming {
        findings.extend(warnings.iter().map(|w| Finding {
            kind: FindingKind::Gaming,
            path: w.path.clone(),
            detail: format!("line {}: {}", w.line, w.detail),
        }));
    }
    Ok((tree, findings, warnings))
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

/// The journal's file for one attempt.
fn journal_entry(task: &str, max: u32, record: &AttemptRecord) -> Value {
    let mut value = serde_json::to_value(record).unwrap_or(Value::Null);
    value["task"] = json!(task);
    value["max_attempts"] = json!(max);
    value
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
    if let Err(err) = journal.write(&journal_entry(&story.task, max, &record)) {
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
