//! The speccoder runtime: detects a project's task runners, resolves and runs their tasks,
//! and runs external coding agents with the project's allowances.

pub mod agent;
pub mod cli;
pub mod config;
pub mod process;
pub mod recipe;

/// Insta settings that keep this crate's unit-test snapshots in `snapshots/runtime`.
#[cfg(test)]
pub(crate) fn snapshot_settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots/runtime"));
    settings
}
