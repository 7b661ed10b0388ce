//! `speccoder.toml`: the `[recipe]`, `[executor]`, `[commands]`, `[wording]`, `[attempt]`
//! and `[mcp]` tables; and your own file (`user.rs`), the one place the `[attempt]` keys
//! that loosen the sandbox ([`HOST_KEYS`]) are read from.
//!
//! serde reads the file into these structs (`deny_unknown_fields`); the checks of values
//! run as they are read, so toml gives every error the span of its value, and `located`
//! turns that span into the line, column and `[table] key`.

use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::{self, Deserializer};
use speccoder_foundation::files::ReadError;
use speccoder_foundation::suggest::closest;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

mod known_failures;
mod user;
pub use known_failures::{GLOB_PREFIX, KnownFailures};
pub use user::{HostKeys, USER_CONFIG_ENV, UserConfig, UserConfigPath};

/// The name of the configuration file in a project root.
pub const CONFIG_FILE: &str = "speccoder.toml";

/// The whole configuration.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// The file it was read from, when there was one.
    #[serde(skip)]
    pub source: Option<PathBuf>,
    /// `[recipe]`: task runners and running tasks.
    pub recipe: RecipeConfig,
    /// `[executor]`: the external agent, or none.
    pub executor: Option<ExternalExecutor>,
    /// `[commands]`: what agents may run.
    pub commands: CommandsConfig,
    /// `[wording]`: the words of the agent prompt.
    pub wording: Wording,
    /// `[attempt]`: the loop from a task bundle to a verified commit.
    pub attempt: AttemptConfig,
    /// `[mcp]`: the background jobs of `speccoder mcp`.
    pub mcp: McpConfig,
}

/// `[mcp]`: the bounds of `speccoder mcp`'s background jobs.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct McpConfig {
    /// Background jobs running at once; one more is refused.
    #[serde(deserialize_with = "ranged::<_, _, 1, 64>")]
    pub max_jobs: usize,
    /// Deadline of a background job, in seconds.
    #[serde(deserialize_with = "ranged::<_, _, 1, 86_400>")]
    pub job_timeout_secs: u64,
}

impl Default for McpConfig {
    fn default() -> Self {
        Self {
            max_jobs: 8,
            job_timeout_secs: 3600,
        }
    }
}

/// `[attempt]`: checks, retries, what the agent may not change, and where a pass goes.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AttemptConfig {
    /// Recipe ops that must all pass; `None` means the `test` task when one resolves.
    #[serde(deserialize_with = "ops")]
    pub checks: Option<Vec<String>>,
    /// Attempts before giving up (1..=20).
    #[serde(deserialize_with = "ranged::<_, _, 1, 20>")]
    pub max_attempts: u32,
    /// Globs of paths whose change rejects an attempt.
    #[serde(deserialize_with = "globs")]
    pub protected: Vec<String>,
    /// Globs of test files (their deletion or weakening rejects an attempt).
    #[serde(deserialize_with = "globs")]
    pub tests: Vec<String>,
    /// The branch a passing attempt is committed on; `{task}` is the task id.
    #[serde(deserialize_with = "branch")]
    pub branch: String,
    /// The file whose checkbox line for the task is ticked on pass.
    #[serde(deserialize_with = "tasks_file")]
    pub tasks_file: String,
    /// Whether a gaming warning rejects the attempt.
    pub reject_gaming: bool,
    /// Whether withheld tests may be used where no mount namespace can hide them (your
    /// own file only: [`HOST_KEYS`]).
    pub allow_unisolated_withheld: bool,
    /// Whether the agent may edit existing test files.
    pub test_edits: TestEdits,
    /// What the agent may write besides its own tree and a private `/tmp` (`~/` is the
    /// home folder); missing entries are left out. Your own file only ([`HOST_KEYS`]).
    #[serde(deserialize_with = "writable")]
    pub writable: Vec<String>,
    /// Shell commands run in a tree of the base before the baseline and the checks (`npm
    /// ci`, say); the files they make are carried into every check tree.
    #[serde(deserialize_with = "setup")]
    pub setup: Vec<String>,
    /// Exact test ids (`tests/test_x.py::test_y`) or globs marked `glob:` (`glob:pkg::*`)
    /// that may fail: the one excuse of a check's failing test. A listed test that fails is named in the verdict;
    /// one that passes is a note.
    #[serde(deserialize_with = "known_failures")]
    pub known_failures: Vec<String>,
    /// The most the agent's and each check's private `/tmp` (with `/var/tmp` and
    /// `/dev/shm`) may hold, in MiB.
    #[serde(deserialize_with = "ranged::<_, _, 16, { 1 << 20 }>")]
    pub tmp_size_mib: u64,
    /// Variables of your environment the checks and the setup get besides the allow-list
    /// (names). Your own file only ([`HOST_KEYS`]).
    #[serde(deserialize_with = "names")]
    pub env: Vec<String>,
    /// Variables of your environment the agent gets besides the allow-list and its
    /// executor's own (names). Your own file only ([`HOST_KEYS`]).
    #[serde(deserialize_with = "names")]
    pub agent_env: Vec<String>,
    /// Sockets and credential files of yours that the agent and the checks see, though
    /// the sandbox hides them by default (`~/.ssh`, `/run/user/<uid>`…): paths, `~/` the
    /// home folder. Your own file only ([`HOST_KEYS`]).
    #[serde(deserialize_with = "writable")]
    pub reveal: Vec<String>,
    /// Whether the checks keep the machine's network; by default they get a network
    /// namespace of their own with only loopback. Your own file only ([`HOST_KEYS`]).
    pub network: bool,
    /// Your own file, when it set any of [`HOST_KEYS`] for this project.
    #[serde(skip)]
    pub host_keys_from: Option<PathBuf>,
}

/// `[attempt] test_edits`: what happens to the agent's edits of existing test files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TestEdits {
    /// Test files that exist at the base are frozen: the checks run the base's versions,
    /// and a change is a finding.
    #[default]
    Frozen,
    /// The agent's versions run, and the weakening heuristics (tests, skips and
    /// assertions counted) judge them.
    Audit,
}

/// What Claude Code, Codex and the package managers write in the home folder, measured
/// (see docs/attempts.md); the rest of the file system is read-only to the agent.
pub const DEFAULT_WRITABLE: &[&str] = &[
    "~/.bun/install/cache",
    "~/.cache/pip",
    "~/.cache/pnpm",
    "~/.cache/uv",
    "~/.cache/yarn",
    "~/.cargo/git",
    "~/.cargo/registry",
    "~/.claude",
    "~/.claude.json",
    "~/.codex",
    "~/.npm",
];

impl Default for AttemptConfig {
    fn default() -> Self {
        let strings = |items: &[&str]| items.iter().map(|s| (*s).to_owned()).collect();
        Self {
            checks: None,
            max_attempts: 3,
            protected: strings(&["spec.md", "speccoder.toml", ".ci/**", ".github/**"]),
            tests: strings(&[
                "**/*-test.*",
                "**/*.snap",
                "**/*.spec.*",
                "**/*.test.*",
                "**/*_test.*",
                "**/__snapshots__/**",
                "**/test-*.*",
                "**/test.cjs",
                "**/test.js",
                "**/test.mjs",
                "**/test_*.py",
                "__tests__/**",
                "snapshots/**",
                "spec/**",
                "test/**",
                "tests/**",
            ]),
            branch: "speccoder/{task}".into(),
            tasks_file: "tasks.md".into(),
            reject_gaming: false,
            allow_unisolated_withheld: false,
            test_edits: TestEdits::Frozen,
            writable: strings(DEFAULT_WRITABLE),
            setup: Vec::new(),
            known_failures: Vec::new(),
            tmp_size_mib: 4096,
            env: Vec::new(),
            agent_env: Vec::new(),
            reveal: Vec::new(),
            network: false,
            host_keys_from: None,
        }
    }
}

/// `[wording]`: how the agent prompt names the project's format. Every key is optional.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Wording {
    /// What the project format is called (`speccoder`).
    #[serde(deserialize_with = "one_line")]
    pub product: String,
    /// What a task belongs to (`feature`).
    #[serde(deserialize_with = "one_line")]
    pub unit: String,
    /// The file holding the intent, which the agent must not edit (`spec.md`).
    #[serde(deserialize_with = "one_line")]
    pub intent_file: String,
    /// Heading of the story section.
    #[serde(deserialize_with = "one_line")]
    pub story: String,
    /// Heading of the plan section.
    #[serde(deserialize_with = "one_line")]
    pub plan: String,
    /// Heading of the constitution section.
    #[serde(deserialize_with = "one_line")]
    pub constitution: String,
}

impl Default for Wording {
    fn default() -> Self {
        Self {
            product: "speccoder".into(),
            unit: "feature".into(),
            intent_file: "spec.md".into(),
            story: "User story".into(),
            plan: "Implementation plan".into(),
            constitution: "Constitution".into(),
        }
    }
}

/// `[recipe]`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RecipeConfig {
    /// Whether the recipe tool exists at all.
    pub enabled: bool,
    /// Runner ids to probe, in this order.
    pub runners: Vec<String>,
    /// Default deadline of a task run, in seconds (1..=3600; out of range is clamped when
    /// the task runs, with a note, as `--timeout` is).
    #[serde(deserialize_with = "ranged::<_, _, 0, { u64::MAX }>")]
    pub timeout_secs: u64,
    /// Deadline of each detection probe, in seconds.
    #[serde(deserialize_with = "ranged::<_, _, 1, 600>")]
    pub probe_timeout_secs: u64,
    /// Tasks per runner shown in the prompt.
    #[serde(deserialize_with = "ranged::<_, _, 1, 10_000>")]
    pub task_limit: usize,
    /// Bytes kept from the start of a long output.
    #[serde(deserialize_with = "ranged::<_, _, 0, { 16 << 20 }>")]
    pub output_head_bytes: usize,
    /// Bytes kept from the end of a long output.
    #[serde(deserialize_with = "ranged::<_, _, 0, { 16 << 20 }>")]
    pub output_tail_bytes: usize,
    /// Whether detected tasks become agent allowances.
    pub allow_tasks: bool,
    /// Whether detection results are kept on disk and reused while nothing they depend on
    /// changes.
    pub cache: bool,
}

impl Default for RecipeConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            runners: speccoder_runners::RUNNER_IDS
                .iter()
                .map(|id| (*id).to_owned())
                .collect(),
            timeout_secs: 300,
            probe_timeout_secs: 10,
            task_limit: 20,
            output_head_bytes: 20 * 1024,
            output_tail_bytes: 50 * 1024,
            allow_tasks: true,
            cache: true,
        }
    }
}

/// Which external agent makes the attempts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExecutorKind {
    /// Claude Code, `claude -p`.
    Claude,
    /// Codex, `codex exec`.
    Codex,
    /// Any program, started with the configured argv.
    Command,
}

impl ExecutorKind {
    /// The name used in the configuration and in run ids.
    pub fn name(self) -> &'static str {
        match self {
            Self::Claude => "claude",
            Self::Codex => "codex",
            Self::Command => "command",
        }
    }
}

/// There is no external agent to run: `[executor] kind` is absent or `"native"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "no external executor is configured (`[executor] kind` is absent or \"native\"): set it to \
     \"claude\", \"codex\" or \"command\" in speccoder.toml"
)]
pub struct NoExecutor;

/// `[executor]` when it names an external agent.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExternalExecutor {
    /// Which agent.
    pub kind: ExecutorKind,
    /// The program and its arguments (kind `command` only).
    #[serde(default)]
    pub argv: Vec<String>,
    /// The model to ask for.
    pub model: Option<String>,
    /// Deadline of one attempt, in seconds.
    #[serde(default = "half_hour", deserialize_with = "ranged::<_, _, 1, 86_400>")]
    pub timeout_secs: u64,
    /// Whether the agent reaches the recipe tool through `speccoder mcp` (when the recipe
    /// tool is enabled).
    #[serde(default = "yes")]
    pub recipe_mcp: bool,
    /// The most turns the agent may take (Claude's `--max-turns`).
    #[serde(default, deserialize_with = "some_ranged::<_, _, 1, 100_000>")]
    pub max_turns: Option<u32>,
    /// The most the agent may spend, in US dollars (Claude's `--max-budget-usd`).
    #[serde(default)]
    pub max_budget_usd: Option<Usd>,
}

/// An amount in US dollars: finite and above zero.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Usd(pub f64);

// Finite by construction, so equality is reflexive.
impl Eq for Usd {}

impl<'de> Deserialize<'de> for Usd {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let amount = f64::deserialize(d)?;
        if amount.is_finite() && amount > 0.0 {
            Ok(Self(amount))
        } else {
            Err(de::Error::custom(format!(
                "{amount} is not an amount above zero"
            )))
        }
    }
}

/// [`ranged`], for a key that may be left out.
fn some_ranged<'de, D: Deserializer<'de>, T: TryFrom<u64>, const LO: u64, const HI: u64>(
    d: D,
) -> Result<Option<T>, D::Error> {
    ranged::<D, T, LO, HI>(d).map(Some)
}

/// `[commands]`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CommandsConfig {
    /// Exact commands the agent may run, each an argv.
    pub allow: Vec<Vec<String>>,
}

/// A configuration error, with where it is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{kind}", location(.file, *.line, *.column))]
pub struct ConfigError {
    /// The file, when the error is in one.
    pub file: Option<PathBuf>,
    /// 1-based line, 0 when unknown.
    pub line: usize,
    /// 1-based column, 0 when unknown.
    pub column: usize,
    /// What is wrong (boxed: a `Result` of a configuration stays small).
    pub kind: Box<ConfigErrorKind>,
}

/// What is wrong with a configuration file. Each message names the table and key it is
/// about as `[table] key: …` (`[table]: …` for the table itself).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigErrorKind {
    /// The system refused to read the file.
    #[error("{0}")]
    Io(String),
    /// The file is no text a configuration can be read from: a FIFO, a device, larger than
    /// the bound, not UTF-8.
    #[error("{0}")]
    NotText(String),
    /// Not TOML.
    #[error("invalid TOML: {0}")]
    Syntax(String),
    /// A table speccoder does not have.
    #[error("{name}: unknown table{} (known: {})", did_you_mean(.suggestion.as_deref()), .known.join(", "))]
    UnknownTable {
        /// Its name.
        name: String,
        /// The known table closest to it, when one is close.
        suggestion: Option<String>,
        /// Every known table.
        known: Vec<String>,
    },
    /// A key its table does not have.
    #[error("[{table}] {key}: unknown key{} (known: {})", did_you_mean(.suggestion.as_deref()), .known.join(", "))]
    UnknownKey {
        /// The table.
        table: String,
        /// The key.
        key: String,
        /// The known key closest to it, when one is close.
        suggestion: Option<String>,
        /// Every key of the table.
        known: Vec<String>,
    },
    /// A key that loosens the sandbox, in a repository's file: read only from your own
    /// configuration file ([`UserConfig`]).
    #[error(
        "[attempt] {key}: a repository's speccoder.toml cannot loosen the sandbox, so this key is read only from your own configuration file; if you trust this repository with it, move the line to {user_file} under [repo.\"{root}\"]{} (docs/security.md)",
        also(.others)
    )]
    FromRepository {
        /// The key.
        key: String,
        /// The other such keys of the file, which go the same way.
        others: Vec<String>,
        /// Where your own file is (`~/.config/speccoder/config.toml`).
        user_file: String,
        /// The repository's folder, as the user file's `[repo."…"]` table names it.
        root: String,
    },
    /// A value of the wrong type, out of range, or otherwise wrong, or a table of the wrong
    /// shape.
    #[error("[{table}]{}: {message}", .key.as_ref().map_or_else(String::new, |key| format!(" {key}")))]
    Invalid {
        /// The table.
        table: String,
        /// The key, or `None` when the table itself is wrong.
        key: Option<String>,
        /// What is wrong.
        message: String,
    },
}

/// `, with `b` and `c`` when the file holds other keys to move.
fn also(others: &[String]) -> String {
    if others.is_empty() {
        return String::new();
    }
    let named: Vec<String> = others.iter().map(|k| format!("`{k}`")).collect();
    format!(", with its {}", named.join(" and "))
}

/// `: did you mean `x`?` when there is a suggestion.
fn did_you_mean(suggestion: Option<&str>) -> String {
    suggestion.map_or_else(String::new, |s| format!(": did you mean `{s}`?"))
}

impl ConfigErrorKind {
    /// The error about `key` of `[table]` (`None`: the table itself).
    fn invalid(table: &str, key: Option<&str>, message: impl Into<String>) -> Self {
        Self::Invalid {
            table: table.to_owned(),
            key: key.map(str::to_owned),
            message: message.into(),
        }
    }
}

fn location(file: &Option<PathBuf>, line: usize, column: usize) -> String {
    match (file, line) {
        (Some(file), 0) => format!("{}: ", file.display()),
        (Some(file), _) => format!("{}:{line}:{column}: ", file.display()),
        (None, 0) => String::new(),
        (None, _) => format!("{line}:{column}: "),
    }
}

impl Config {
    /// The configured external agent, or the error that says there is none.
    pub fn external_executor(&self) -> Result<&ExternalExecutor, NoExecutor> {
        self.executor.as_ref().ok_or(NoExecutor)
    }

    /// Reads `path`; a missing file means the defaults. It is a repository's file: a key
    /// that loosens the sandbox ([`HOST_KEYS`]) is an error naming where it belongs.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let Some(text) = read_text(path)? else {
            return Ok(Self::default());
        };
        let mut config = Self::parse(&text).map_err(|mut err| {
            err.file = Some(path.to_path_buf());
            if let ConfigErrorKind::FromRepository {
                user_file, root, ..
            } = err.kind.as_mut()
            {
                if let Some(location) = UserConfig::location() {
                    *user_file = location.path.display().to_string();
                }
                let folder = path.parent().unwrap_or(Path::new("."));
                let folder = folder
                    .canonicalize()
                    .unwrap_or_else(|_| folder.to_path_buf());
                *root = folder.display().to_string();
            }
            err
        })?;
        config.source = Some(path.to_path_buf());
        Ok(config)
    }

    /// Parses the text of a configuration file.
    pub fn parse(text: &str) -> Result<Self, ConfigError> {
        let doc = DeTable::parse(text).map_err(|err| {
            let kind = ConfigErrorKind::Syntax(err.message().trim_end().to_owned());
            error(text, err.span(), kind)
        })?;
        refuse_host_keys(text, doc.get_ref())?;
        let read = Self::deserialize(toml::de::Deserializer::from(doc.clone()));
        let doc = doc.get_ref();
        // serde also reads a struct from an array of its fields, and toml hands it a datetime
        // as a map: the first table that is not one is the error, unless serde's comes first
        // (an unknown table is serde's, at its name).
        let first = read.as_ref().err().and_then(toml::de::Error::span);
        let first = first.map_or(usize::MAX, |span| span.start);
        let misshaped = doc.iter().find(|(_, value)| !value.get_ref().is_table());
        if let Some((name, value)) = misshaped
            .filter(|(name, value)| name.span().start < first || value.span().contains(&first))
        {
            let found = value.get_ref().type_str();
            let kind = ConfigErrorKind::invalid(
                name.get_ref(),
                None,
                format!("expected a table, found {found}"),
            );
            return Err(error(text, Some(value.span()), kind));
        }
        read.map_err(|err| located(text, doc, &err))?
            .checked(text, doc)
    }

    /// The checks that need two keys, or a place inside an array.
    fn checked(mut self, text: &str, doc: &DeTable<'_>) -> Result<Self, ConfigError> {
        let value = |table: &str, key: &str| doc.get(table)?.get_ref().get(key);
        // The error about `key` of `[table]` (named `shown`), at its value or at one item
        // of it.
        let at = |(table, key, shown): (&str, &str, &str), item: Option<usize>, message: String| {
            let value = value(table, key);
            let value = item.map_or(value, |i| value?.get_ref().get(i));
            let kind = ConfigErrorKind::invalid(table, Some(shown), message);
            error(text, value.map(Spanned::span), kind)
        };
        let runners = &self.recipe.runners;
        for (i, id) in runners.iter().enumerate() {
            let why = if runners[..i].contains(id) {
                format!("runner `{id}` is listed twice")
            } else if !speccoder_runners::RUNNER_IDS.contains(&id.as_str()) {
                let known = speccoder_runners::RUNNER_IDS;
                let close = closest(id, known.iter().copied());
                format!(
                    "unknown runner `{id}`{} (known: {})",
                    did_you_mean(close),
                    known.join(", ")
                )
            } else {
                continue;
            };
            return Err(at(("recipe", "runners", "runners"), Some(i), why));
        }
        let allow = &self.commands.allow;
        if let Some(i) = allow
            .iter()
            .position(|argv| argv.first().is_none_or(String::is_empty))
        {
            let message = "a command needs at least a program name".to_owned();
            let shown = format!("allow[{i}]");
            return Err(at(("commands", "allow", &shown), Some(i), message));
        }
        // `native` names no external agent; it was read as another kind to check the rest.
        if value("executor", "kind").and_then(|kind| kind.get_ref().as_str()) == Some("native") {
            self.executor = None;
        }
        if let Some(executor) = &self.executor
            && executor.kind == ExecutorKind::Command
            && executor.argv.first().is_none_or(String::is_empty)
        {
            let message =
                "\"command\" needs `argv`, the program to start and its arguments".to_owned();
            return Err(at(("executor", "kind", "kind"), None, message));
        }
        // Limits only Claude's CLI has a flag for: refused for the others rather than
        // dropped, since an agent that runs past a limit you set costs you.
        if let Some(executor) = &self.executor
            && executor.kind != ExecutorKind::Claude
        {
            let set = [
                ("max_turns", executor.max_turns.is_some()),
                ("max_budget_usd", executor.max_budget_usd.is_some()),
            ];
            if let Some((key, _)) = set.iter().find(|(_, set)| *set) {
                let message = format!(
                    "kind = \"{}\" has no such limit; only kind = \"claude\" takes it",
                    executor.kind.name()
                );
                return Err(at(("executor", key, key), None, message));
            }
        }
        Ok(self)
    }
}

/// The `[attempt]` keys that loosen the sandbox or hand the agent and the checks more of
/// your machine: read only from your own configuration file ([`UserConfig`]), never from a
/// repository's, which is untrusted input (docs/security.md says why each is here).
pub const HOST_KEYS: &[&str] = &[
    "reveal",
    "network",
    "writable",
    "env",
    "agent_env",
    "allow_unisolated_withheld",
];

/// The first [`HOST_KEYS`] key of a repository's `[attempt]`, as an error at its name.
fn refuse_host_keys(text: &str, doc: &DeTable<'_>) -> Result<(), ConfigError> {
    let Some(attempt) = doc.get("attempt").and_then(|t| t.get_ref().as_table()) else {
        return Ok(());
    };
    let mut found: Vec<_> = attempt
        .iter()
        .map(|(key, _)| key)
        .filter(|key| HOST_KEYS.contains(&key.get_ref().as_ref()))
        .collect();
    found.sort_by_key(|key| key.span().start);
    let Some((key, others)) = found.split_first() else {
        return Ok(());
    };
    let kind = ConfigErrorKind::FromRepository {
        key: key.get_ref().to_string(),
        others: others.iter().map(|k| k.get_ref().to_string()).collect(),
        user_file: user::DEFAULT_SHOWN.to_owned(),
        root: "/path/to/this/checkout".to_owned(),
    };
    Err(error(text, Some(key.span()), kind))
}

/// The text of a configuration file through the one reading layer (a FIFO or `/dev/zero`
/// in its place never hangs or fills memory); `None` when there is no file.
fn read_text(path: &Path) -> Result<Option<String>, ConfigError> {
    let read =
        speccoder_foundation::files::read_limited(path, speccoder_foundation::files::MAX_MANIFEST)
            .and_then(|bytes| {
                String::from_utf8(bytes).map_err(|err| {
                    ReadError::Io(std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        err.utf8_error(),
                    ))
                })
            });
    match read {
        Ok(text) => Ok(Some(text)),
        Err(err) if err.is_not_found() => Ok(None),
        Err(err) => {
            let message = err.to_string();
            let kind = match err {
                ReadError::Io(io) if io.kind() != std::io::ErrorKind::InvalidData => {
                    ConfigErrorKind::Io(message)
                }
                _ => ConfigErrorKind::NotText(message),
            };
            Err(ConfigError {
                file: Some(path.to_path_buf()),
                line: 0,
                column: 0,
                kind: Box::new(kind),
            })
        }
    }
}

/// A located error: the line and column of the start of `span`.
fn error(text: &str, span: Option<Range<usize>>, kind: ConfigErrorKind) -> ConfigError {
    let (line, column) = span.map_or((0, 0), |span| line_column(text, span.start));
    ConfigError {
        file: None,
        line,
        column,
        kind: Box::new(kind),
    }
}

/// The 1-based line and column of byte `offset` in `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |s| s.chars().count()) + 1;
    (line, column)
}

/// A serde error, located: toml gives it the span of the key or value it is about, and the
/// `[table] key` is the one whose key or value holds that span.
fn located(text: &str, doc: &DeTable<'_>, err: &toml::de::Error) -> ConfigError {
    let span = err.span();
    let start = span.as_ref().map_or(0, |span| span.start);
    let message = err.message().to_owned();
    // serde says "unknown field `x`, expected one of `a`, `b`" (or "expected `a`").
    let known: Option<Vec<String>> = message
        .strip_prefix("unknown field ")
        .and_then(|rest| rest.split_once("expected "))
        .map(|(_, known)| {
            known
                .trim_start_matches("one of ")
                .replace(" or ", ", ")
                .split(", ")
                .map(|name| name.trim_matches('`').to_owned())
                .collect()
        });
    let unknown = |name: &str, known: &[String]| {
        closest(name, known.iter().map(String::as_str)).map(str::to_owned)
    };
    let mut kind = None;
    'find: for (name_key, table) in doc {
        let name = name_key.get_ref();
        if let Some(known) = known.as_ref().filter(|_| Some(name_key.span()) == span) {
            kind = Some(ConfigErrorKind::UnknownTable {
                name: name.to_string(),
                suggestion: unknown(name, known),
                known: known.clone(),
            });
            break;
        }
        if Some(table.span()) == span {
            if let Some(field) = message.strip_prefix("missing field ") {
                let hint = if field == "`kind`" {
                    format!(" ({EXECUTOR_KINDS})")
                } else {
                    String::new()
                };
                kind = Some(ConfigErrorKind::invalid(
                    name,
                    None,
                    format!("{field} is required{hint}"),
                ));
            }
            break;
        }
        for (key, value) in table.get_ref().as_table().into_iter().flatten() {
            if let Some(known) = known.as_ref().filter(|_| Some(key.span()) == span) {
                kind = Some(ConfigErrorKind::UnknownKey {
                    table: name.to_string(),
                    key: key.get_ref().to_string(),
                    suggestion: unknown(key.get_ref(), known),
                    known: known.clone(),
                });
                break 'find;
            }
            if !value.span().contains(&start) {
                continue;
            }
            // An error inside one of a list of commands names it (`allow[0]`).
            let mut key = key.get_ref().to_string();
            if let Some(items) = value.get_ref().as_array()
                && items.iter().any(|item| item.get_ref().is_array())
                && let Some(i) = items.iter().position(|item| item.span().contains(&start))
            {
                key = format!("{key}[{i}]");
            }
            // serde says map for a table, and toml hands it a datetime as one.
            let found = if holds_datetime(value, start) {
                "datetime"
            } else {
                "table"
            };
            let message =
                message.replacen("invalid type: map", &format!("invalid type: {found}"), 1);
            kind = Some(ConfigErrorKind::invalid(name, Some(&key), message));
            break 'find;
        }
    }
    let kind = kind.unwrap_or_else(|| ConfigErrorKind::NotText(message.clone()));
    error(text, span, kind)
}

/// Whether the value at `start` is a datetime, in `value` or in an array in it.
fn holds_datetime(value: &Spanned<DeValue<'_>>, start: usize) -> bool {
    match value.get_ref() {
        DeValue::Datetime(_) => value.span().start == start,
        DeValue::Array(items) => items.iter().any(|item| holds_datetime(item, start)),
        _ => false,
    }
}

/// The values of `[executor] kind`, as its errors list them.
const EXECUTOR_KINDS: &str = "native, claude, codex, command";

impl<'de> Deserialize<'de> for ExecutorKind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match String::deserialize(d)?.as_str() {
            // `native` is no external agent: `Config::parse` drops the table once it is read.
            "native" | "claude" => Ok(Self::Claude),
            "codex" => Ok(Self::Codex),
            "command" => Ok(Self::Command),
            other => {
                let hint = closest(other, EXECUTOR_KINDS.split(", "))
                    .map_or_else(String::new, |kind| format!(": did you mean \"{kind}\"?"));
                Err(de::Error::custom(format!(
                    "unknown executor kind \"{other}\"{hint} ({EXECUTOR_KINDS})"
                )))
            }
        }
    }
}

impl<'de> Deserialize<'de> for TestEdits {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match String::deserialize(d)?.as_str() {
            "frozen" => Ok(Self::Frozen),
            "audit" => Ok(Self::Audit),
            _ => Err(de::Error::custom("must be \"frozen\" or \"audit\"")),
        }
    }
}

// The checks of single values. An error they raise is located by toml at the key's value.

/// `T`, unless `bad` finds something wrong with it.
fn check<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
    bad: impl FnOnce(&T) -> Option<String>,
) -> Result<T, D::Error> {
    let value = T::deserialize(d)?;
    bad(&value).map_or(Ok(value), |why| Err(de::Error::custom(why)))
}

/// An integer in `LO..=HI`.
fn ranged<'de, D: Deserializer<'de>, T: TryFrom<u64>, const LO: u64, const HI: u64>(
    d: D,
) -> Result<T, D::Error> {
    struct Integer;
    impl de::Visitor<'_> for Integer {
        type Value = i128;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an integer")
        }
        fn visit_i64<E>(self, n: i64) -> Result<i128, E> {
            Ok(n.into())
        }
        fn visit_u64<E>(self, n: u64) -> Result<i128, E> {
            Ok(n.into())
        }
        fn visit_i128<E>(self, n: i128) -> Result<i128, E> {
            Ok(n)
        }
        fn visit_u128<E>(self, n: u128) -> Result<i128, E> {
            Ok(n.try_into().unwrap_or(i128::MAX))
        }
    }
    let n = d.deserialize_i64(Integer)?;
    u64::try_from(n)
        .ok()
        .filter(|n| (LO..=HI).contains(n))
        .and_then(|n| T::try_from(n).ok())
        .ok_or_else(|| de::Error::custom(format!("{n} is out of range ({LO}..={HI})")))
}

fn one_line<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    check(d, |text: &String| {
        (text.trim().is_empty() || text.contains(['\n', '\r']))
            .then(|| "must be one non-empty line".to_owned())
    })
}

fn ops<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    check(d, |ops: &Vec<String>| {
        ops.iter()
            .any(|op| op.trim().is_empty())
            .then(|| "an op cannot be empty".to_owned())
    })
    .map(Some)
}

fn globs<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    check(d, |globs: &Vec<String>| {
        globs.iter().find_map(|glob| {
            let err = globset::Glob::new(glob).err()?;
            Some(format!("`{glob}` is not a valid glob: {}", err.kind()))
        })
    })
}

fn branch<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    check(d, |branch: &String| {
        (!branch.contains("{task}"))
            .then(|| "must hold `{task}`, so that each task has its own branch".to_owned())
    })
}

fn tasks_file<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    check(d, |file: &String| {
        (file.trim().is_empty() || Path::new(file).is_absolute() || file.contains(".."))
            .then(|| "must be a relative path inside the project".to_owned())
    })
}

fn writable<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    check(d, |paths: &Vec<String>| {
        let bad = paths
            .iter()
            .find(|path| !(path.starts_with('/') || path.starts_with("~/")))?;
        Some(format!(
            "`{bad}` must be an absolute path or start with `~/`"
        ))
    })
}

fn setup<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    check(d, |commands: &Vec<String>| {
        commands
            .iter()
            .any(|command| command.trim().is_empty())
            .then(|| "a command cannot be empty".to_owned())
    })
}

fn known_failures<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    // Compiled here, so that a bound is a configuration error at the line of the key.
    check(d, |ids: &Vec<String>| KnownFailures::new(ids).err())
}

fn names<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    check(d, |names: &Vec<String>| {
        let bad = names
            .iter()
            .find(|name| name.is_empty() || name.contains('=') || name.contains('\0'))?;
        Some(format!("`{bad}` is not a variable's name"))
    })
}

fn half_hour() -> u64 {
    1800
}

fn yes() -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn error(text: &str) -> String {
        Config::parse(text).expect_err("an error").to_string()
    }

    #[test]
    fn default_writable_is_sorted() {
        let mut sorted = DEFAULT_WRITABLE.to_vec();
        sorted.sort_unstable();
        assert_eq!(DEFAULT_WRITABLE, sorted, "keep DEFAULT_WRITABLE sorted");
    }

    #[test]
    fn empty_text_means_defaults() {
        let config = Config::parse("").expect("valid");
        assert_eq!(config, Config::default());
        assert!(config.recipe.enabled);
        assert_eq!(
            config.recipe.runners,
            [
                "just", "pkg", "cargo", "make", "task", "python", "tox", "nox", "go", "scripts",
                "mise", "deno", "composer", "pixi"
            ]
        );
        assert_eq!(config.recipe.timeout_secs, 300);
        assert_eq!(config.recipe.probe_timeout_secs, 10);
        assert_eq!(config.recipe.task_limit, 20);
        assert_eq!(config.recipe.output_head_bytes, 20_480);
        assert_eq!(config.recipe.output_tail_bytes, 51_200);
        assert!(config.recipe.allow_tasks);
        assert_eq!(config.executor, None);
        assert!(config.commands.allow.is_empty());
    }

    #[test]
    fn every_key_is_read() {
        let config = Config::parse(
            r#"
[recipe]
enabled = false
runners = ["make", "just"]
timeout_secs = 60
probe_timeout_secs = 3
task_limit = 5
output_head_bytes = 100
output_tail_bytes = 200
allow_tasks = false
cache = false

[executor]
kind = "command"
argv = ["my-agent", "--flag"]
model = "m1"
timeout_secs = 90
recipe_mcp = false

[commands]
allow = [["cargo", "test"], ["cargo", "clippy"]]
"#,
        )
        .expect("valid");
        assert_eq!(
            config.recipe,
            RecipeConfig {
                enabled: false,
                runners: vec!["make".into(), "just".into()],
                timeout_secs: 60,
                probe_timeout_secs: 3,
                task_limit: 5,
                output_head_bytes: 100,
                output_tail_bytes: 200,
                allow_tasks: false,
                cache: false,
            }
        );
        assert_eq!(
            config.executor,
            Some(ExternalExecutor {
                kind: ExecutorKind::Command,
                argv: vec!["my-agent".into(), "--flag".into()],
                model: Some("m1".into()),
                timeout_secs: 90,
                recipe_mcp: false,
                max_turns: None,
                max_budget_usd: None,
            })
        );
        assert_eq!(
            config.commands.allow,
            vec![
                vec!["cargo".to_owned(), "test".into()],
                vec!["cargo".into(), "clippy".into()]
            ]
        );
    }

    #[test]
    fn unknown_keys_name_line_column_and_key() {
        assert_eq!(
            error("[recipe]\ntimeout_secs = 5\n  bogus_key = 1\n"),
            "3:3: [recipe] bogus_key: unknown key (known: enabled, runners, timeout_secs, \
             probe_timeout_secs, task_limit, output_head_bytes, output_tail_bytes, allow_tasks, cache)"
        );
        assert_eq!(
            error("[recipes]\n"),
            "1:2: recipes: unknown table: did you mean `recipe`? (known: recipe, executor, \
             commands, wording, attempt, mcp)"
        );
        assert_eq!(
            error("[recipe]\ntimeout = 5\n"),
            "2:1: [recipe] timeout: unknown key: did you mean `timeout_secs`? (known: enabled, \
             runners, timeout_secs, probe_timeout_secs, task_limit, output_head_bytes, \
             output_tail_bytes, allow_tasks, cache)"
        );
        assert_eq!(
            error("[attempt]\nmax_attempt = 5\n"),
            "2:1: [attempt] max_attempt: unknown key: did you mean `max_attempts`? (known: \
             checks, max_attempts, protected, tests, branch, tasks_file, reject_gaming, \
             allow_unisolated_withheld, test_edits, writable, setup, known_failures, \
             tmp_size_mib, env, agent_env, reveal, network)"
        );
        assert_eq!(
            error("[executor]\nkind = \"claude\"\nflavour = 1\n"),
            "3:1: [executor] flavour: unknown key (known: kind, argv, model, timeout_secs, recipe_mcp, max_turns, max_budget_usd)"
        );
    }

    #[test]
    fn wrong_types_and_ranges() {
        assert_eq!(
            error("[recipe]\ntimeout_secs = \"5\"\n"),
            "2:16: [recipe] timeout_secs: invalid type: string \"5\", expected an integer"
        );
        // Out of 1..=3600 is clamped when a task runs, with a note, like `--timeout`.
        assert_eq!(
            Config::parse("[recipe]\ntimeout_secs = 99999\n")
                .expect("valid")
                .recipe
                .timeout_secs,
            99999
        );
        assert_eq!(
            error("[recipe]\ntimeout_secs = -5\n"),
            "2:16: [recipe] timeout_secs: -5 is out of range (0..=18446744073709551615)"
        );
        assert_eq!(
            error("[recipe]\nrunners = [\"make\", \"just\", \"make\"]\n"),
            "2:28: [recipe] runners: runner `make` is listed twice"
        );
        // The seed takes any positive number; one day is the bound here, and the error says it.
        assert_eq!(
            error("[executor]\nkind = \"claude\"\ntimeout_secs = 90000\n"),
            "3:16: [executor] timeout_secs: 90000 is out of range (1..=86400)"
        );
        assert_eq!(
            error("[recipe]\nenabled = 1\n"),
            "2:11: [recipe] enabled: invalid type: integer `1`, expected a boolean"
        );
        assert_eq!(
            error("[recipe]\nrunners = [\"jsut\"]\n"),
            "2:12: [recipe] runners: unknown runner `jsut`: did you mean `just`? (known: just, \
             pkg, cargo, make, task, python, tox, nox, go, scripts, mise, deno, composer, pixi)"
        );
        assert_eq!(
            error("[recipe]\nrunners = [\"just\", \"rake\"]\n"),
            "2:20: [recipe] runners: unknown runner `rake`: did you mean `make`? (known: just, \
             pkg, cargo, make, task, \
             python, tox, nox, go, scripts, mise, deno, composer, pixi)"
        );
        assert_eq!(
            error("[commands]\nallow = [[\"cargo\", 1]]\n"),
            "2:20: [commands] allow[0]: invalid type: integer `1`, expected a string"
        );
        assert_eq!(
            error("[commands]\nallow = [[]]\n"),
            "2:10: [commands] allow[0]: a command needs at least a program name"
        );
        assert_eq!(
            error("recipe = 3\n"),
            "1:10: [recipe]: expected a table, found integer"
        );
        // serde would read a struct from an array of its fields in order; a table it must be.
        assert_eq!(
            error("recipe = [false, [\"make\"], 1, 1, 1, 1, 1, true, true]\n"),
            "1:10: [recipe]: expected a table, found array"
        );
        assert_eq!(
            error("[[executor]]\nkind = \"claude\"\n"),
            "1:1: [executor]: expected a table, found array"
        );
        // toml hands a datetime to serde as a map: it is still named a datetime.
        assert_eq!(
            error("recipe = 1979-05-27\n"),
            "1:10: [recipe]: expected a table, found datetime"
        );
        assert_eq!(
            error("[recipe]\nenabled = 1979-05-27\n"),
            "2:11: [recipe] enabled: invalid type: datetime, expected a boolean"
        );
        assert_eq!(
            error("[wording]\nunit = {a = 1}\n"),
            "2:8: [wording] unit: invalid type: table, expected a string"
        );
        // Not a table, but not one of the known ones either.
        assert_eq!(
            error("foo = 1\n"),
            "1:1: foo: unknown table (known: recipe, executor, commands, wording, attempt, mcp)"
        );
        assert_eq!(
            error("[commands]\nallow = [1]\n"),
            "2:10: [commands] allow: invalid type: integer `1`, expected a sequence"
        );
    }

    #[test]
    fn wording_overrides() {
        let config = Config::parse("[wording]\nunit = \"story\"\nintent_file = \"intent.md\"\n")
            .expect("valid");
        assert_eq!(config.wording.unit, "story");
        assert_eq!(config.wording.intent_file, "intent.md");
        assert_eq!(config.wording.plan, Wording::default().plan);
        assert_eq!(
            error("[wording]\nunit = \"\"\n"),
            "2:8: [wording] unit: must be one non-empty line"
        );
    }

    #[test]
    fn attempt_keys() {
        let config = Config::parse(
            r#"
[attempt]
checks = ["test", "lint --strict"]
max_attempts = 2
protected = ["spec.md", "ci/**"]
tests = ["t/**"]
branch = "agent/{task}"
tasks_file = "docs/tasks.md"
reject_gaming = true
test_edits = "audit"
setup = ["npm ci"]
known_failures = ["glob:tests/test_env.py::*", "test_p[1-"]
"#,
        )
        .expect("valid");
        assert_eq!(
            config.attempt,
            AttemptConfig {
                checks: Some(vec!["test".into(), "lint --strict".into()]),
                max_attempts: 2,
                protected: vec!["spec.md".into(), "ci/**".into()],
                tests: vec!["t/**".into()],
                branch: "agent/{task}".into(),
                tasks_file: "docs/tasks.md".into(),
                reject_gaming: true,
                test_edits: TestEdits::Audit,
                setup: vec!["npm ci".into()],
                known_failures: vec!["glob:tests/test_env.py::*".into(), "test_p[1-".into()],
                ..AttemptConfig::default()
            }
        );
        assert_eq!(
            error("[attempt]\ntest_edits = \"some\"\n"),
            "2:14: [attempt] test_edits: must be \"frozen\" or \"audit\""
        );
        let defaults = Config::parse("").expect("valid").attempt;
        assert_eq!(defaults.checks, None);
        assert_eq!(defaults.max_attempts, 3);
        assert_eq!(defaults.branch, "speccoder/{task}");
        assert_eq!(
            error("[attempt]\nretries = 2\n"),
            "2:1: [attempt] retries: unknown key (known: checks, max_attempts, protected, tests, \
             branch, tasks_file, reject_gaming, allow_unisolated_withheld, test_edits, writable, \
             setup, known_failures, tmp_size_mib, env, agent_env, reveal, network)"
        );
        assert_eq!(
            error("[attempt]\nmax_attempts = 99999999999999999999999\n"),
            "2:16: [attempt] max_attempts: 99999999999999999999999 is out of range (1..=20)"
        );
        assert_eq!(
            error("[attempt]\nmax_attempts = 0\n"),
            "2:16: [attempt] max_attempts: 0 is out of range (1..=20)"
        );
        assert_eq!(
            error("[attempt]\nbranch = \"fixed\"\n"),
            "2:10: [attempt] branch: must hold `{task}`, so that each task has its own branch"
        );
        assert_eq!(
            error("[attempt]\ntests = [\"a/[b\"]\n"),
            "2:9: [attempt] tests: `a/[b` is not a valid glob: unclosed character class; missing ']'"
        );
        assert_eq!(
            error("[attempt]\nchecks = [\" \"]\n"),
            "2:10: [attempt] checks: an op cannot be empty"
        );
        assert_eq!(
            error("[attempt]\ntasks_file = \"../x.md\"\n"),
            "2:14: [attempt] tasks_file: must be a relative path inside the project"
        );
    }

    /// A repository cannot loosen the sandbox: each key that would is an error at its name,
    /// whatever its value, naming where it belongs instead.
    #[test]
    fn a_repository_cannot_set_the_keys_that_loosen_the_sandbox() {
        for (line, key) in [
            ("reveal = [\"/run/user/1000\"]", "reveal"),
            ("reveal = []", "reveal"),
            ("network = true", "network"),
            ("network = false", "network"),
            ("writable = [\"~/\"]", "writable"),
            ("env = [\"AWS_SECRET_ACCESS_KEY\"]", "env"),
            ("agent_env = [\"GITHUB_TOKEN\"]", "agent_env"),
            (
                "allow_unisolated_withheld = true",
                "allow_unisolated_withheld",
            ),
            // Even a value that would be wrong anyway: the place is what is wrong.
            ("writable = [\"cache\"]", "writable"),
        ] {
            let got = error(&format!("[attempt]\nmax_attempts = 2\n{line}\n"));
            assert_eq!(
                got,
                format!(
                    "3:1: [attempt] {key}: a repository's speccoder.toml cannot loosen the sandbox, so this key is read only from your own configuration file; if you trust this repository with it, move the line to ~/.config/speccoder/config.toml under [repo.\"/path/to/this/checkout\"] (docs/security.md)"
                )
            );
        }
        // Inline tables and dotted keys are the same keys.
        assert!(
            error("attempt = { network = true }\n").contains("[attempt] network: a repository")
        );
        assert!(error("attempt.reveal = [\"/run\"]\n").contains("[attempt] reveal: a repository"));
        // The first one in the file is named where it is, with the others to move.
        let both = error("[attempt]\nnetwork = true\nreveal = []\nenv = []\n");
        assert!(both.starts_with("2:1: [attempt] network:"), "{both}");
        assert!(
            both.ends_with(
                "under [repo.\"/path/to/this/checkout\"], with its `reveal` and `env` (docs/security.md)"
            ),
            "{both}"
        );
        // The keys that are a repository's own stay readable.
        let config =
            Config::parse("[attempt]\nsetup = [\"npm ci\"]\ntmp_size_mib = 64\n").expect("valid");
        assert_eq!(config.attempt.tmp_size_mib, 64);
    }

    #[test]
    fn load_names_the_repository_folder_and_your_file_in_the_refusal() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join(CONFIG_FILE);
        std::fs::write(&path, "[attempt]\nnetwork = true\n").expect("write");
        let err = Config::load(&path).expect_err("refused");
        let root = dir.path().canonicalize().expect("canonical");
        let text = err.to_string();
        assert!(
            text.starts_with(&format!("{}:2:1: [attempt] network: ", path.display())),
            "{text}"
        );
        assert!(
            text.contains(&format!("under [repo.\"{}\"]", root.display())),
            "{text}"
        );
    }

    /// Every kind of error a person reads about their speccoder.toml, one per line, as one
    /// reviewed snapshot.
    #[test]
    fn error_texts() {
        let cases = [
            "[recipe\n",
            "[recipes]\n",
            "[agent]\n",
            "[recipe]\ntimeout = 5\n",
            "[recipe]\nbogus_key = 1\n",
            "[executor]\nkind = \"claude-code\"\n",
            "[executor]\nkind = \"codx\"\n",
            "[executor]\nkind = \"gpt\"\n",
            "[executor]\nmodel = \"x\"\n",
            "[executor]\nkind = \"command\"\n",
            "[executor]\nkind = \"codex\"\nmax_turns = 5\n",
            "[executor]\nkind = \"claude\"\ntimeout_secs = 0\n",
            "[recipe]\nrunners = [\"jsut\"]\n",
            "[recipe]\nenabled = \"yes\"\n",
            "[commands]\nallow = [[]]\n",
            "[attempt]\ntest_edits = \"some\"\n",
            "[attempt]\nreveal = [\"/run/user/1000\"]\n",
            "recipe = 3\n",
        ];
        let texts: Vec<String> = cases
            .iter()
            .map(|text| format!("{text:?}\n  {}", error(text)))
            .collect();
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../snapshots/errors"
        ));
        settings.set_prepend_module_to_snapshot(false);
        settings.bind(|| insta::assert_snapshot!("config_errors", texts.join("\n")));
    }

    #[test]
    fn syntax_errors_are_located() {
        let got = error("[recipe]\nenabled = \n");
        assert!(got.starts_with("2:11: invalid TOML: "), "{got}");
    }

    #[test]
    #[expect(
        clippy::too_many_lines,
        reason = "over 80 lines when the limit was set; split it when it next changes"
    )]
    fn executor_reference_cases() {
        assert_eq!(Config::parse("").expect("valid").executor, None);
        let native = Config::parse("[executor]\nkind = \"native\"\n").expect("valid");
        assert_eq!(native.executor, None);
        let claude =
            Config::parse("[executor]\nkind = \"claude\"\nmodel = \"sonnet\"\n").expect("valid");
        assert_eq!(
            claude.executor,
            Some(ExternalExecutor {
                kind: ExecutorKind::Claude,
                argv: vec![],
                model: Some("sonnet".into()),
                timeout_secs: 1800,
                recipe_mcp: true,
                max_turns: None,
                max_budget_usd: None,
            })
        );
        let limited =
            Config::parse("[executor]\nkind = \"claude\"\nmax_turns = 40\nmax_budget_usd = 2.5\n")
                .expect("valid");
        let limited = limited.executor.expect("claude");
        assert_eq!(limited.max_turns, Some(40));
        assert_eq!(limited.max_budget_usd, Some(Usd(2.5)));
        let whole = Config::parse("[executor]\nkind = \"claude\"\nmax_budget_usd = 3\n")
            .expect("an integer is an amount too");
        assert_eq!(
            whole.executor.and_then(|e| e.max_budget_usd),
            Some(Usd(3.0))
        );
        assert_eq!(
            error("[executor]\nkind = \"codex\"\nmax_turns = 5\n"),
            "3:13: [executor] max_turns: kind = \"codex\" has no such limit; only kind = \"claude\" takes it"
        );
        assert_eq!(
            error("[executor]\nkind = \"command\"\nargv = [\"a\"]\nmax_budget_usd = 1.0\n"),
            "4:18: [executor] max_budget_usd: kind = \"command\" has no such limit; only kind = \"claude\" takes it"
        );
        assert_eq!(
            error("[executor]\nkind = \"claude\"\nmax_budget_usd = -1.0\n"),
            "3:18: [executor] max_budget_usd: -1 is not an amount above zero"
        );
        assert_eq!(
            error("[executor]\nkind = \"claude\"\nmax_turns = 0\n"),
            "3:13: [executor] max_turns: 0 is out of range (1..=100000)"
        );
        let codex = Config::parse("[executor]\nkind = \"codex\"\n").expect("valid");
        assert_eq!(codex.executor.map(|e| e.kind), Some(ExecutorKind::Codex));
        assert_eq!(
            error("[executor]\nkind = \"command\"\n"),
            "2:8: [executor] kind: \"command\" needs `argv`, the program to start and its arguments"
        );
        assert_eq!(
            error("[executor]\nkind = \"command\"\nargv = [\"\"]\n"),
            "2:8: [executor] kind: \"command\" needs `argv`, the program to start and its arguments"
        );
        assert_eq!(
            error("[executor]\nkind = \"claude-code\"\n"),
            "2:8: [executor] kind: unknown executor kind \"claude-code\": did you mean \"claude\"? \
             (native, claude, codex, command)"
        );
        assert_eq!(
            error("[executor]\nkind = \"gpt\"\n"),
            "2:8: [executor] kind: unknown executor kind \"gpt\" (native, claude, codex, command)"
        );
        assert_eq!(
            error("[executor]\nkind = \"claude\"\ntimeout_secs = \"long\"\n"),
            "3:16: [executor] timeout_secs: invalid type: string \"long\", expected an integer"
        );
        assert_eq!(
            error("[executor]\nkind = 1\n"),
            "2:8: [executor] kind: invalid type: integer `1`, expected a string"
        );
        assert_eq!(
            error("[executor]\nmodel = \"x\"\n"),
            "1:1: [executor]: `kind` is required (native, claude, codex, command)"
        );
        assert_eq!(
            error("executor = { model = \"x\" }\n"),
            "1:12: [executor]: `kind` is required (native, claude, codex, command)"
        );
        // `native` drops the table, but only after every key in it is checked.
        assert_eq!(
            error("[executor]\nkind = \"native\"\ntimeout_secs = 0\n"),
            "3:16: [executor] timeout_secs: 0 is out of range (1..=86400)"
        );
    }

    #[test]
    fn load_names_the_file_and_missing_file_means_defaults() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join(CONFIG_FILE);
        assert_eq!(Config::load(&path).expect("defaults"), Config::default());
        std::fs::write(&path, "[recipe]\nbogus = true\n").expect("write");
        let err = Config::load(&path).expect_err("unknown key");
        assert_eq!(err.line, 2);
        assert_eq!(err.column, 1);
        assert_eq!(
            err.to_string(),
            format!(
                "{}:2:1: [recipe] bogus: unknown key (known: enabled, runners, timeout_secs, \
                 probe_timeout_secs, task_limit, output_head_bytes, output_tail_bytes, allow_tasks, cache)",
                path.display()
            )
        );
        // What cannot be read as text is told apart from what the system refused.
        std::fs::write(&path, b"[recipe]\n\xff\n").expect("write");
        let err = Config::load(&path).expect_err("not UTF-8");
        assert!(matches!(*err.kind, ConfigErrorKind::NotText(_)), "{err}");
        let err = Config::load(dir.path()).expect_err("a folder");
        assert!(matches!(*err.kind, ConfigErrorKind::NotText(_)), "{err}");
        std::fs::write(&path, "[recipe]\ntask_limit = 3\n").expect("write");
        let config = Config::load(&path).expect("valid");
        assert_eq!(config.recipe.task_limit, 3);
        assert_eq!(config.source, Some(path));
    }

    proptest::proptest! {
        /// Property: parsing any text gives a configuration or an error, never a panic, and
        /// an error always says where.
        #[test]
        fn any_text(text in "(\\PC|\\n|[\\[\\]=\"'{}]){0,200}") {
            if let Err(err) = Config::parse(&text) {
                proptest::prop_assert!(err.line > 0, "{err}");
            }
        }

        /// Property: any value under a known key gives a configuration or a located error.
        #[test]
        fn any_value(
            table in proptest::sample::select(vec!["recipe", "executor", "commands", "wording"]),
            key in proptest::sample::select(vec!["enabled", "runners", "timeout_secs", "kind", "argv", "allow", "unit", "cache"]),
            value in "(-?[0-9]{1,25}|true|\"[a-z]{0,5}\"|\\[\\]|\\[\"x\"\\]|\\[\\[\"a\"\\]\\]|1\\.5)",
        ) {
            let text = format!("[{table}]\n{key} = {value}\n");
            if let Err(err) = Config::parse(&text) {
                proptest::prop_assert!(err.line > 0, "{text}: {err}");
            }
        }
    }
}
