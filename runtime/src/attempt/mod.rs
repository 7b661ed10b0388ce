//! `speccoder attempt`: carries one task of a bundle to a verified commit. The agent works
//! in a sandbox on a tree of its own; speccoder builds the candidate from its files, audits
//! it, runs the checks in a fresh tree with the frozen files as the base has them (and a
//! second pass with the agent's own tests), decides, retries with the digest, and on a pass
//! commits exactly the tree that was checked, with the task ticked. Every attempt goes to
//! the journal. See `spec/attempt.md` and `spec/verdict.md`.

mod audit;
mod baseline;
mod bundle;
mod canary;
mod candidate;
mod check_tree;
mod checks;
mod commit;
mod environment;
mod gaming;
mod git;
mod infrastructure;
mod journal;
mod loads;
mod outcomes;
mod prepare;
mod ran_from;
mod repo;
mod results;
mod rules;
mod run;
mod scan;
mod setup;
mod store;
mod story;
mod tampering;
mod tasks_file;
mod turn;
mod verdict;

pub use audit::{Finding, FindingKind};
pub use baseline::{BaselineReport, measure as measure_baseline};
pub use canary::CanaryState;
pub use checks::{CheckResult, Pass};
pub use gaming::Warning;
pub use outcomes::{Rule, TestSummary};
pub use run::run_attempt;
pub use story::{AttemptRecord, AttemptRequest, Story};
pub use verdict::Verdict;
