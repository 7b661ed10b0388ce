//! How an attempt ended.

use serde::Serialize;

use super::check_result::CheckResult;
use super::finding::Finding;
use speccoder_agent::{Outcome, Status};

/// How an attempt ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// The agent completed, the audit is clean and every check passed.
    Passed,
    /// The audit found something.
    Rejected,
    /// A check failed, or the agent failed.
    Failed,
    /// The agent said the task cannot be done as written.
    Blocked,
    /// A signal stopped the attempt.
    Interrupted,
}

impl Verdict {
    /// The CLI's exit code: 0 passed, 1 failed or rejected, 3 blocked, and 128 + the signal
    /// when interrupted (given by the caller, which knows the signal).
    pub fn exit_code(self) -> u8 {
        match self {
            Self::Passed => 0,
            Self::Rejected | Self::Failed => 1,
            Self::Blocked => 3,
            Self::Interrupted => 130,
        }
    }

    /// The verdict from the agent's outcome, the findings and the checks (`None` when they
    /// did not run).
    pub(crate) fn decide(
        agent: &Outcome,
        findings: &[Finding],
        checks: Option<&[CheckResult]>,
    ) -> Self {
        match agent.status {
            Status::Blocked => Self::Blocked,
            _ if !findings.is_empty() => Self::Rejected,
            Status::Failed => Self::Failed,
            Status::Completed => match checks {
                Some(checks) if checks.iter().all(CheckResult::passed) => Self::Passed,
                _ => Self::Failed,
            },
        }
    }
}
