//! What a check's tests said, judged against the baseline.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::verdict::results::{TestFramework, TestOutcome};

/// The rule a check was judged by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// The exit code alone: no recognised runner's output was found.
    #[default]
    ExitCode,
    /// The tests' own results, each required test by its id, against the baseline.
    PerTest,
    /// The runner names no passing test (unittest without `-v`, jest and vitest over
    /// several files): the named failures, and the counts against the baseline's.
    Counts,
}

/// What a check's tests said, for the story and the digest.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TestSummary {
    /// How the check was judged.
    pub rule: Rule,
    /// The runners recognised in its output.
    pub runners: Vec<TestFramework>,
    /// How many tests ended each way.
    pub counts: BTreeMap<TestOutcome, usize>,
    /// Tests that had to pass and did not (failed, skipped, xfailed, or not run), first
    /// ones, with what happened.
    pub not_passed: Vec<String>,
    /// How many tests had to pass and did not.
    pub not_passed_count: usize,
    /// Tests that failed at the base and still fail, not withheld: the change must make
    /// them pass.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub failing_at_base: Vec<String>,
    /// Tests that failed now and are listed in `[attempt] known_failures`: excused, and
    /// named.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub known_failures: Vec<String>,
    /// Tests listed in `[attempt] known_failures` that passed now.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub known_failures_passing: Vec<String>,
    /// Subtests of the base that did not run now because the change renamed them: their
    /// parent passes, every subtest of it that ran passed, and at least as many ran as at
    /// the base (a table test whose subtest names come from the data the change edits).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub renamed_subtests: Vec<String>,
    /// Why the check failed although no test did, if so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unexplained: Option<String>,
    /// What the check's known answer said, for a recognised runner (the key keeps the
    /// name of the canary it replaced).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub canary: Option<CanaryState>,
    /// What the check's twins said (invariant 12): tests with their expected values
    /// changed, run in a pass of their own after the verdict's passed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub twins: Option<TwinsState>,
}

/// What the twins of a check say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TwinsState {
    /// Every twin that ran failed, as a correct implementation makes it: the checking
    /// itself was not subverted.
    Held,
    /// The twin pass was stopped from outside, or failed before any twin was reported:
    /// nothing could be judged.
    Inconclusive,
}

/// What the known answer of a check says (invariant 11 of `docs/design/verdict.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CanaryState {
    /// It was reported passed where the base's run reported it: the report is the
    /// runner's.
    Held,
    /// None was reported, at the base either: the check names other test files, its
    /// runner names no passing test, or it runs no recognised runner; it is judged
    /// without one (its twin still is, in the twin pass).
    NotCollected,
    /// The runner reported it the wrong way at the base too, where no agent had acted:
    /// the check is judged without one.
    Unreliable,
}
