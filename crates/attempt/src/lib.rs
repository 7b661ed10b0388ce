//! `speccoder attempt`: carries one task of a bundle to a verified commit. The agent works
//! in a sandbox on a tree of its own; speccoder builds the candidate from its files, audits
//! it, runs the checks in a fresh tree with the frozen files as the base has them (and a
//! second pass with the agent's own tests), decides, retries with the digest, and on a pass
//! commits exactly the tree that was checked, with the task ticked. Every attempt goes to
//! the journal. See `docs/design/attempt.md` and `docs/design/verdict.md`.
//!
//! The room of the loop: `run.rs` and its stages, one file each, in the order a request
//! passes them: `prepare`, `setup`, `turn`, `candidate`, `audit/`, `check_tree`, `checks`,
//! `verdict/`, `commit`. Each takes the value the stage before it made and returns its
//! own, and may use the stages before it, never one after. Below them, `shared/` holds the
//! values they hand each other and `store/` the git plumbing; neither uses a stage.
//! `scripts/check-rooms` checks that no import closes a circle. `attempt_error.rs` is why an
//! attempt could not start; it uses no room, and every room may use it.

mod attempt_error;
mod audit;
mod candidate;
mod check_tree;
mod checks;
mod commit;
mod prepare;
mod run;
mod setup;
mod shared;
mod store;
mod tasks_file;
mod turn;
mod verdict;

pub use attempt_error::AttemptError;
pub use prepare::writable;
pub use run::run_attempt;
pub use shared::{
    AttemptRecord, AttemptRequest, CanaryState, CheckResult, Finding, FindingKind, Pass, Rule,
    Story, TestSummary, TwinsState, Verdict, Warning,
};
pub use verdict::baseline::{BaselineReport, measure as measure_baseline};

/// The variables of this process's environment the recipe server needs from an agent
/// whose CLI strips the environment of its MCP servers (Codex): the allow-list every stage
/// gets (the toolchains' variables, screened for secrets), the state and temporary
/// folders, speccoder's own settings.
pub fn recipe_server_env() -> Vec<String> {
    let names: Vec<String> = std::env::vars_os()
        .filter_map(|(name, _)| name.into_string().ok())
        .collect();
    speccoder_agent::server_env_vars(
        names.iter().map(String::as_str),
        shared::environment::in_allow_list,
    )
}

/// Insta settings that keep this crate's unit-test snapshots in `snapshots/runtime`.
#[cfg(test)]
pub fn snapshot_settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../snapshots/runtime"
    ));
    settings
}
