//! The recipe tool: detected runners, resolving an op to a command, the prompt, and running;
//! and `mcp`, the tool served over the Model Context Protocol.
//!
//! A host agent detects once, hands the prompt to its model as the tool description, and
//! resolves and runs the ops the model sends:
//!
//! ```
//! use speccoder_config::RecipeConfig;
//! use speccoder_foundation::process::LocalSpawner;
//! use speccoder_recipe::Recipe;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
//!     .join("../../fixtures/make-nophony")
//!     .canonicalize()?;
//! let config = RecipeConfig { cache: false, ..RecipeConfig::default() };
//! let recipe = Recipe::detect(&root, &config);
//!
//! let description = recipe.prompt().expect("make is detected");
//! assert!(description.contains("- `world` — say world (`make world`)"));
//!
//! assert_eq!(recipe.resolve("world")?.command, "make world");
//! let result = recipe.run("world", Some(10), &LocalSpawner::default())?;
//! assert!(result.success());
//! assert_eq!(result.output, "ran hello\nran world\n");
//!
//! let err = recipe.resolve("wrold").expect_err("a typo");
//! assert!(err.to_string().contains("did you mean `world`?"));
//! # Ok(())
//! # }
//! ```

mod cache;
mod documented;
mod follow;
mod list;
pub mod mcp;
mod op;
mod process_probe;
mod prompt;
mod prune;
mod resolve;
mod run;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use speccoder_runners::{Context, Detection, Probe, Runner, detect_all, detect_all_with_inputs};

pub use cache::{default_cache_dir, remember_entries};
pub use follow::{Follow, Follower, Progress};
pub use list::{ListJson, list_json, list_text};
pub use op::Op;
pub use process_probe::ProcessProbe;
pub use prompt::{PromptLimits, prompt};
pub use resolve::{ResolveError, Resolved, build_command, task_list};
pub use run::{
    MAX_KEPT_OUTPUT_BYTES, MAX_KEPT_OUTPUTS, OutputDir, RunError, RunResult, RunSettings,
    TIMEOUT_RANGE, default_output_dir, temp_output_dir,
};

use speccoder_config::RecipeConfig;
use speccoder_foundation::process::Spawner;

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
    env: Vec<(String, String)>,
    from_cache: bool,
}

/// Where a detection came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// The runners' own listing commands, just now.
    Probes,
    /// The detection cache.
    Cache,
}

fn context<'a>(
    root: &'a Path,
    config: &RecipeConfig,
    probe: &'a dyn Probe,
    path_var: Option<&'a OsStr>,
) -> Context<'a> {
    Context {
        root,
        probe,
        probe_timeout: Duration::from_secs(config.probe_timeout_secs),
        path_var,
        inputs: None,
    }
}

/// [`NON_INTERACTIVE_ENV`] followed by `extra`, as a process's additions to its environment.
pub(crate) fn task_env(extra: &[(String, String)]) -> Vec<(String, String)> {
    NON_INTERACTIVE_ENV
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .chain(extra.iter().cloned())
        .collect()
}

/// What besides the files decides detection: this program's version, the runners asked
/// for, and where binaries are looked up.
fn cache_key(config: &RecipeConfig, path_var: Option<&OsStr>) -> String {
    format!(
        "{}\n{}\n{}",
        env!("CARGO_PKG_VERSION"),
        config.runners.join(","),
        path_var.map(OsStr::to_string_lossy).unwrap_or_default()
    )
}

impl Recipe {
    /// Detects the configured runners in `root` with the real probes and this process's
    /// `PATH`, through the detection cache unless `[recipe] cache = false`.
    pub fn detect(root: &Path, config: &RecipeConfig) -> Self {
        let path_var = std::env::var_os("PATH");
        let probe = ProcessProbe::default();
        // The cache's own folders on the way must be this user's before anything there is
        // read or written; otherwise detection runs uncached.
        let Some(cache_dir) = config
            .cache
            .then(cache::default_cache_location)
            .flatten()
            .and_then(|(base, parts)| cache::prepare(&base, parts))
        else {
            return Self::detect_with(root, config, &probe, path_var.as_deref());
        };
        let key = cache_key(config, path_var.as_deref());
        if let Some(detections) = cache::load(&cache_dir, root, &key) {
            return Self::new(root, config, detections, Origin::Cache);
        }
        let started = std::time::SystemTime::now();
        let ctx = context(root, config, &probe, path_var.as_deref());
        let (detections, inputs, vars) = detect_all_with_inputs(&ctx, &config.runners);
        cache::store(&cache_dir, root, &key, started, &detections, &inputs, &vars);
        Self::new(root, config, detections, Origin::Probes)
    }

    /// Detects the configured runners in `root` with the given probe, looking binaries up
    /// in `path_var`; no cache.
    pub fn detect_with(
        root: &Path,
        config: &RecipeConfig,
        probe: &dyn Probe,
        path_var: Option<&OsStr>,
    ) -> Self {
        let detections = detect_all(&context(root, config, probe, path_var), &config.runners);
        Self::new(root, config, detections, Origin::Probes)
    }

    fn new(root: &Path, config: &RecipeConfig, detections: Vec<Detection>, origin: Origin) -> Self {
        Self {
            root: root.to_path_buf(),
            config: config.clone(),
            detections,
            env: Vec::new(),
            from_cache: origin == Origin::Cache,
        }
    }

    /// Whether the runners came from the detection cache.
    pub fn from_cache(&self) -> bool {
        self.from_cache
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

    /// The runners whose detection failed, with why.
    pub fn failed(&self) -> impl Iterator<Item = (&'static str, &str)> {
        self.detections.iter().filter_map(|d| match d {
            Detection::Failed { id, reason } => Some((*id, reason.as_str())),
            Detection::Detected(_) | Detection::Absent { .. } => None,
        })
    }

    /// One sentence per failed runner: `` `task` failed: <why>. ``
    pub fn failures_text(&self) -> String {
        self.failed()
            .map(|(id, reason)| format!("`{id}` failed: {}.", reason.trim_end_matches('.')))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Resolves an op to the command and working directory that run it. An op naming a
    /// runner whose detection failed (`task:build`) says that it failed and why.
    pub fn resolve(&self, op: &str) -> Result<Resolved<'_>, ResolveError> {
        let runners: Vec<&Runner> = self.runners().collect();
        if runners.is_empty() {
            return Err(ResolveError::NoRunner {
                failures: self.failures_text(),
            });
        }
        resolve::resolve(&runners, op).map_err(|err| {
            let head = op.split_whitespace().next().unwrap_or("");
            let failed = head
                .split_once(':')
                .and_then(|(id, _)| self.failed().find(|(failed, _)| *failed == id));
            match (err, failed) {
                (
                    ResolveError::Ambiguous {
                        head,
                        runners: ids,
                        list,
                        ..
                    },
                    _,
                ) => {
                    let (ids, documented) = self.documented_runner(&runners, &head, ids);
                    ResolveError::Ambiguous {
                        head,
                        runners: ids,
                        documented,
                        list,
                    }
                }
                (ResolveError::NotFound { list, .. }, Some((id, reason))) => {
                    ResolveError::RunnerFailed {
                        runner: id.to_owned(),
                        reason: reason.trim_end_matches('.').to_owned(),
                        list,
                    }
                }
                (err, _) => err,
            }
        })
    }

    /// The runners of an ambiguous name with the one the project's CI or docs run first,
    /// and what they run (read as text, never run).
    fn documented_runner(
        &self,
        runners: &[&Runner],
        head: &str,
        mut ids: Vec<String>,
    ) -> (Vec<String>, Option<String>) {
        let documented = documented::match_lines(runners, &documented::read_lines(&self.root));
        let Some(found) = documented
            .ops
            .iter()
            .filter(|o| o.task.name == head && ids.iter().any(|id| id == o.runner.id))
            .min_by_key(|o| !(o.ci && o.docs))
        else {
            return (ids, None);
        };
        ids.retain(|id| id != found.runner.id);
        ids.insert(0, found.runner.id.to_owned());
        let who = match (found.ci, found.docs) {
            (true, true) => "the project's CI and docs run",
            (true, false) => "the project's CI runs",
            _ => "the project's docs run",
        };
        // Repository text, shown inside backticks: made plain first.
        let written: String = found
            .written
            .chars()
            .filter(|c| !c.is_control() && *c != '`')
            .take(120)
            .collect();
        (ids, Some(format!("{who} `{written}`")))
    }

    /// The tool description, or `None` when no runner was detected. The tasks the project's
    /// CI files and docs run come first, marked (read as text, never run).
    pub fn prompt(&self) -> Option<String> {
        let runners: Vec<&Runner> = self.runners().collect();
        let documented = match runners.is_empty() {
            true => documented::Documented::default(),
            false => documented::match_lines(&runners, &documented::read_lines(&self.root)),
        };
        prompt::prompt_with(
            &runners,
            PromptLimits {
                task_limit: self.config.task_limit,
                head_bytes: self.config.output_head_bytes,
                tail_bytes: self.config.output_tail_bytes,
            },
            &documented,
        )
    }

    /// Resolves `op` and runs it with `runner`, in the root or the task's directory.
    /// `timeout_secs` overrides the configured timeout.
    pub fn run(
        &self,
        op: &str,
        timeout_secs: Option<u64>,
        runner: &dyn Spawner,
    ) -> Result<RunResult, RunError> {
        self.run_following(op, timeout_secs, runner, None)
    }

    /// [`Self::run`], telling a follower, when given, about the output as it arrives.
    pub fn run_following(
        &self,
        op: &str,
        timeout_secs: Option<u64>,
        runner: &dyn Spawner,
        follow: Option<Follow<'_>>,
    ) -> Result<RunResult, RunError> {
        let resolved = self.resolve(op)?;
        let settings = RunSettings {
            root: &self.root,
            timeout_secs: timeout_secs.unwrap_or(self.config.timeout_secs),
            head_bytes: self.config.output_head_bytes,
            tail_bytes: self.config.output_tail_bytes,
            output_dir: default_output_dir(),
            env: self.env.clone(),
        };
        run::run(&resolved, &settings, runner, follow)
    }

    /// [`Self::run`] in another copy of the project: the op resolves as detected here, and
    /// runs in the same place relative to `root`. An attempt detects in the agent's tree
    /// before the agent starts, and runs its checks in a fresh copy of the candidate.
    pub fn run_in(
        &self,
        op: &str,
        root: &Path,
        runner: &dyn Spawner,
    ) -> Result<RunResult, RunError> {
        self.run_in_amended(op, root, runner, &|_| None)
    }

    /// [`Self::run_in`] with the resolved shell command replaced by what `amend` makes of
    /// the resolved op, where it makes something: an attempt's checks add a test runner's
    /// own flag so.
    pub fn run_in_amended(
        &self,
        op: &str,
        root: &Path,
        runner: &dyn Spawner,
        amend: &dyn Fn(&Resolved<'_>) -> Option<String>,
    ) -> Result<RunResult, RunError> {
        let mut resolved = self.resolve(op)?;
        if let Some(command) = amend(&resolved) {
            resolved.command = command;
        }
        let settings = RunSettings {
            root,
            timeout_secs: self.config.timeout_secs,
            head_bytes: self.config.output_head_bytes,
            tail_bytes: self.config.output_tail_bytes,
            output_dir: default_output_dir(),
            env: self.env.clone(),
        };
        run::run(&resolved, &settings, runner, None)
    }

    /// Adds variables to the environment of every task run (a `PATH`, say).
    pub fn with_env(mut self, env: Vec<(String, String)>) -> Self {
        self.env = env;
        self
    }

    /// The deadline of each task run, in seconds.
    pub fn timeout_secs(&self) -> u64 {
        self.config.timeout_secs
    }

    /// The same recipe with another deadline for each task run.
    pub fn with_timeout_secs(mut self, secs: u64) -> Self {
        self.config.timeout_secs = secs;
        self
    }
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
