//! What `speccoder attempt` is asked, and the story it tells: every attempt's record and
//! the outcome.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Value, json};

use super::check_result::CheckResult;
use super::finding::Finding;
use super::verdict::Verdict;
use super::warning::Warning;
use speccoder_agent::Outcome;
use speccoder_config::Config;

/// What `speccoder attempt` was asked to do.
#[derive(Debug, Clone)]
pub struct AttemptRequest<'a> {
    /// The project root (absolute).
    pub root: &'a Path,
    /// Its configuration.
    pub config: &'a Config,
    /// The task bundle file; `None` for `--baseline`, which runs no agent.
    pub bundle: Option<&'a Path>,
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
    /// How the agent and the checks were isolated: `namespaces`, or `none` where no
    /// namespace could be made.
    pub isolation: &'static str,
    /// The checks at the base, before the agent ran (empty when the journal had them
    /// already): what each attempt is compared with.
    pub baseline: Vec<CheckResult>,
    /// The names of the variables each stage got from your environment (never their
    /// values): `agent` and `checks`.
    pub environment: BTreeMap<&'static str, Vec<String>>,
    /// The signal that interrupted the attempt, if one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
}

impl AttemptRecord {
    /// The journal's file for this attempt: the record with the task, the limit and how
    /// the agent and the checks were isolated.
    pub(crate) fn journal_entry(&self, story: &Story) -> Value {
        let mut value = serde_json::to_value(self).unwrap_or(Value::Null);
        value["task"] = json!(story.task);
        value["max_attempts"] = json!(story.max_attempts);
        value["isolation"] = json!(story.isolation);
        value
    }
}
