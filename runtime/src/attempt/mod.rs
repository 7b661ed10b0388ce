//! `speccoder attempt`: carries one task of a bundle to a verified commit. The agent works
//! in a sandbox on a tree of its own; speccoder builds the candidate from its files, audits
//! it, runs the checks in a fresh tree with the frozen files as the base has them (and a
//! second pass with the agent's own tests), decides, retries with the digest, and on a pass
//! commits exactly the tree that was checked, with the task ticked. Every attempt goes to
//! the journal. See `spec/attempt.md` and `spec/verdict.md`.

mod audit;
mod bundle;
mod candidate;
mod check_tree;
mod checks;
mod commit;
mod environment;
mod prepare;
mod run;
mod setup;
mod shared;
mod store;
mod tasks_file;
mod turn;
mod verdict;

pub use audit::gaming::Warning;
pub use audit::{Finding, FindingKind};
pub use checks::{CheckResult, Pass};
pub use run::run_attempt;
pub use shared::story::{AttemptRecord, AttemptRequest, Story};
pub use verdict::Verdict;
pub use verdict::baseline::{BaselineReport, measure as measure_baseline};
pub use verdict::canary::CanaryState;
pub use verdict::outcomes::{Rule, TestSummary};
