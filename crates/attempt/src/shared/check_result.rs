//! The result of one check, as the story and the verdict read it.

use std::path::PathBuf;

use serde::Serialize;

use super::test_summary::TestSummary;

/// Which pass of the checks a result is from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Pass {
    /// The checks at the base, before the agent ran: what the attempt is compared with.
    Baseline,
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
    /// Whether it passed: by the tests' own results for a runner speccoder recognises,
    /// else by its exit code.
    pub passed: bool,
    /// What its tests' own results say, compared with the baseline.
    pub tests: TestSummary,
    /// A hint for a person, when the output says a dependency is missing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// Why it stopped before any test ran, when its output says: the first message of the
    /// tool that stopped it (`go vet`'s finding, eslint's error, jest's "No tests found").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<String>,
    /// The last lines of its output.
    pub output_tail: String,
    /// The file holding the whole output, when it was too long to keep.
    pub full_output: Option<PathBuf>,
}

impl CheckResult {
    /// Whether the check passed.
    pub fn passed(&self) -> bool {
        self.passed
    }
}
