//! The checks: each op, resolved as the recipe was detected in the base, runs in the check
//! tree with the recipe's deadline and the whole process group stopped.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::process::CommandRunner;
use crate::recipe::Recipe;

/// Lines of a check's output kept in the result and the digest.
pub(crate) const TAIL_LINES: usize = 60;

/// Which pass of the checks a result is from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Pass {
    /// The verdict's pass: the candidate without the agent's own new tests.
    Verdict,
    /// The second pass, with the agent's own new tests.
    AgentTests,
}

/// The result of one check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CheckResult {
    /// The op.
    pub op: String,
    /// Which pass.
    pub pass: Pass,
    /// The command it resolved to.
    pub command: Option<String>,
    /// Its exit code, when it exited.
    pub exit_code: Option<i32>,
    /// The signal that ended it, when one did.
    pub signal: Option<i32>,
    /// Whether its deadline passed.
    pub timed_out: bool,
    /// The last lines of its output.
    pub output_tail: String,
    /// The file holding the whole output, when it was too long to keep.
    pub full_output: Option<PathBuf>,
}

impl CheckResult {
    /// Whether the check passed.
    pub fn passed(&self) -> bool {
        !self.timed_out && self.exit_code == Some(0)
    }
}

/// The last `n` lines of `text`.
pub(crate) fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// Runs `ops` with `recipe` in the project folder `root` of a check tree, each to its end,
/// in order.
pub(crate) fn run_checks(
    recipe: &Recipe,
    ops: &[String],
    root: &Path,
    runner: &dyn CommandRunner,
    pass: Pass,
) -> Vec<CheckResult> {
    ops.iter()
        .map(|op| match recipe.run_in(op, root, runner) {
            Ok(result) => CheckResult {
                op: op.clone(),
                pass,
                command: Some(result.command.clone()),
                exit_code: result.exit_code,
                signal: result.signal,
                timed_out: result.timed_out,
                output_tail: last_lines(&result.text(), TAIL_LINES),
                full_output: result.full_output,
            },
            Err(err) => CheckResult {
                op: op.clone(),
                pass,
                command: None,
                exit_code: None,
                signal: None,
                timed_out: false,
                output_tail: err.to_string(),
                full_output: None,
            },
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_lines_keeps_the_end() {
        assert_eq!(last_lines("a\nb\nc\n", 2), "b\nc");
        assert_eq!(last_lines("a", 5), "a");
        assert_eq!(last_lines("", 5), "");
    }
}
