//! Detection of a project's task runners — just, package.json scripts, cargo, make and
//! go-task — and of their tasks.
//!
//! Each runner is one file with one `detect` function; [`RUNNERS`] registers them. Parsers
//! are pure functions over text; only the `detect` functions read files and run probes.

mod cargo;
mod detection;
pub mod files;
mod just;
mod make;
mod pkg;
mod probe;
mod quote;
mod runner;
mod task;
mod yaml_tree;

pub use detection::{
    Absence, Context, Detection, Inputs, RunnerDef, detect_all, detect_all_with_inputs,
};
pub use probe::{Probe, find_on_path};
pub use quote::{quote, single_quote, split_words};
pub use runner::{Runner, TailRule, Task, aliases};

/// Every runner, in the default probe order. Adding a runner: one file beside this one with
/// a `pub(crate) const RUNNER: RunnerDef`, and one line here.
pub const RUNNERS: &[RunnerDef] = &[
    just::RUNNER,
    pkg::RUNNER,
    cargo::RUNNER,
    make::RUNNER,
    task::RUNNER,
];

/// The runner ids, in the default probe order.
pub const RUNNER_IDS: &[&str] = &["just", "pkg", "cargo", "make", "task"];

/// The parsers, for tests and fuzzing from outside the crate.
pub mod parse {
    pub use crate::cargo::parse_metadata as cargo_metadata;
    pub use crate::just::parse_dump as just_dump;
    pub use crate::make::parse_makefile as makefile;
    #[doc(hidden)]
    pub use crate::make::stage_timings as makefile_stage_timings;
    pub use crate::pkg::{
        parse_manifest as package_json, parse_member as workspace_package_json,
        parse_pnpm_workspace as pnpm_workspace,
    };
    pub use crate::task::parse_list as task_list;
}

/// Insta settings that keep this crate's snapshots in the top-level `snapshots/` folder.
#[cfg(test)]
pub(crate) fn snapshot_settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots/runners"));
    settings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runner_ids_match_the_table() {
        let ids: Vec<&str> = RUNNERS.iter().map(|r| r.id).collect();
        assert_eq!(ids, RUNNER_IDS, "keep RUNNER_IDS in the order of RUNNERS");
    }
}
