//! The recipe tool: detected runners, resolving an op to a command, the prompt, and running.

mod list;
mod process_probe;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use speccoder_runners::{Context, Detection, Probe, Runner, detect_all};

pub use list::{list_json, list_text};
pub use process_probe::ProcessProbe;

use crate::config::RecipeConfig;

/// Environment added to every task and probe so that tools behave as in CI and never wait for
/// a person.
pub const NON_INTERACTIVE_ENV: &[(&str, &str)] = &[
    ("CI", "1"),
    ("NO_COLOR", "1"),
    ("TERM", "dumb"),
    ("PAGER", "cat"),
    ("GIT_PAGER", "cat"),
    ("GIT_TERMINAL_PROMPT", "0"),
    ("GIT_EDITOR", "true"),
];

/// A project's detected runners: detect once, then resolve and run many times.
#[derive(Debug, Clone)]
pub struct Recipe {
    root: PathBuf,
    config: RecipeConfig,
    detections: Vec<Detection>,
}

impl Recipe {
    /// Detects the configured runners in `root` with the real probes and this process's
    /// `PATH`.
    pub fn detect(root: &Path, config: &RecipeConfig) -> Self {
        let path_var = std::env::var_os("PATH");
        Self::detect_with(root, config, &ProcessProbe::default(), path_var.as_deref())
    }

    /// Detects the configured runners in `root` with the given probe, looking binaries up
    /// in `path_var`.
    pub fn detect_with(
        root: &Path,
        config: &RecipeConfig,
        probe: &dyn Probe,
        path_var: Option<&OsStr>,
    ) -> Self {
        let ctx = Context {
            root,
            probe,
            probe_timeout: Duration::from_secs(config.probe_timeout_secs),
            path_var,
        };
        let detections = detect_all(&ctx, &config.runners);
        Self {
            root: root.to_path_buf(),
            config: config.clone(),
            detections,
        }
    }

    /// The project root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The configuration it was detected with.
    pub fn config(&self) -> &RecipeConfig {
        &self.config
    }

    /// Every configured runner's outcome, in the configured order.
    pub fn detections(&self) -> &[Detection] {
        &self.detections
    }

    /// The detected runners, each with at least one task.
    pub fn runners(&self) -> impl Iterator<Item = &Runner> {
        self.detections.iter().filter_map(|d| match d {
            Detection::Detected(runner) => Some(runner),
            Detection::Absent { .. } | Detection::Failed { .. } => None,
        })
    }
}
