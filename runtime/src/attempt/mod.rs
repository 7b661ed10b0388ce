//! `speccoder attempt`: carries one task of a bundle to a verified commit. A worktree on a
//! new branch, the frozen acceptance tests as its base, the external agent (hidden from
//! withheld tests), the audit of its diff, the gaming monitor, the checks through the
//! recipe, a verdict, retries with the digest, and on a pass one commit with the task
//! ticked. Every attempt goes to the journal. See `spec/attempt.md`.

mod audit;
mod bundle;
mod checks;
mod gaming;
mod infrastructure;
mod git;
mod isolation;
mod journal;
mod judge;
mod rules;
mod run;
mod scan;
mod setup;
mod story;
mod tampering;
mod tasks_file;
mod verdict;
mod worktree;

pub use audit::{Finding, FindingKind};
pub use checks::CheckResult;
pub use gaming::Warning;
pub use run::run_attempt;
pub use story::{AttemptRecord, AttemptRequest, Story};
pub use verdict::Verdict;
