//! Judging a candidate: staging what the agent left, the audit, and the gaming monitor.

use super::audit::{self, Baseline, Finding, FindingKind};
use super::gaming::{self, FileText, SourceChange, Warning};
use super::rules::Rules;
use super::scan;
use super::setup::Setup;
use super::worktree::{ChangeKind, Worktree};

/// Test files read by the gaming monitor at most, so a huge suite costs a bounded time.
const MAX_TEST_FILES_READ: usize = 300;

/// Stages the candidate and runs the audit and the gaming monitor on it.
pub(crate) fn judge(
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
