//! `speccoder.toml`: the `[recipe]`, `[executor]`, `[commands]`, `[wording]` and `[attempt]`
//! tables.
//!
//! The file is walked by hand over toml's spanned document rather than deserialised with
//! serde, so every error can name the file, line, column and the key's path.

use std::ops::Range;
use std::path::{Path, PathBuf};

use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// The name of the configuration file in a project root.
pub const CONFIG_FILE: &str = "speccoder.toml";

/// The whole configuration.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Config {
    /// The file it was read from, when there was one.
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
}

/// `[attempt]`: checks, retries, what the agent may not change, and where a pass goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttemptConfig {
    /// Recipe ops that must all pass; `None` means the `test` task when one resolves.
    pub checks: Option<Vec<String>>,
    /// Attempts before giving up (1..=20).
    pub max_attempts: u32,
    /// Globs of paths whose change rejects an attempt.
    pub protected: Vec<String>,
    /// Globs of test files (their deletion or weakening rejects an attempt).
    pub tests: Vec<String>,
    /// The branch a passing attempt is committed on; `{task}` is the task id.
    pub branch: String,
    /// The file whose checkbox line for the task is ticked on pass.
    pub tasks_file: String,
    /// Whether a gaming warning rejects the attempt.
    pub reject_gaming: bool,
    /// Whether withheld tests may be used where no mount namespace can hide them.
    pub allow_unisolated_withheld: bool,
    /// Whether the agent may edit existing test files.
    pub test_edits: TestEdits,
    /// What the agent may write besides its own tree and a private `/tmp` (`~/` is the
    /// home folder); missing entries are left out.
    pub writable: Vec<String>,
    /// Shell commands run in a tree of the base before the baseline and the checks (`npm
    /// ci`, say); the files they make are carried into every check tree.
    pub setup: Vec<String>,
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
/// (see the README's "Attempts"); the rest of the file system is read-only to the agent.
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
        }
    }
}

/// `[wording]`: how the agent prompt names the project's format. Every key is optional.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wording {
    /// What the project format is called (`speccoder`).
    pub product: String,
    /// What a task belongs to (`feature`).
    pub unit: String,
    /// The file holding the intent, which the agent must not edit (`spec.md`).
    pub intent_file: String,
    /// Heading of the story section.
    pub story: String,
    /// Heading of the plan section.
    pub plan: String,
    /// Heading of the constitution section.
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecipeConfig {
    /// Whether the recipe tool exists at all.
    pub enabled: bool,
    /// Runner ids to probe, in this order.
    pub runners: Vec<String>,
    /// Default deadline of a task run, in seconds (1..=3600).
    pub timeout_secs: u64,
    /// Deadline of each detection probe, in seconds.
    pub probe_timeout_secs: u64,
    /// Tasks per runner shown in the prompt.
    pub task_limit: usize,
    /// Bytes kept from the start of a long output.
    pub output_head_bytes: usize,
    /// Bytes kept from the end of a long output.
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

/// `[executor]` when it names an external agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExternalExecutor {
    /// Which agent.
    pub kind: ExecutorKind,
    /// The program and its arguments (kind `command` only).
    pub argv: Vec<String>,
    /// The model to ask for.
    pub model: Option<String>,
    /// Deadline of one attempt, in seconds.
    pub timeout_secs: u64,
    /// Whether the agent reaches the recipe tool through `speccoder mcp` (when the recipe
    /// tool is enabled).
    pub recipe_mcp: bool,
}

/// `[commands]`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CommandsConfig {
    /// Exact commands the agent may run, each an argv.
    pub allow: Vec<Vec<String>>,
}

/// A configuration error, with where it is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", location(.file, *.line, *.column))]
pub struct ConfigError {
    /// The file, when the error is in one.
    pub file: Option<PathBuf>,
    /// 1-based line, 0 when unknown.
    pub line: usize,
    /// 1-based column, 0 when unknown.
    pub column: usize,
    /// What is wrong, naming the key (`[recipe] bogus_key: unknown key …`).
    pub message: String,
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
    /// Reads `path`; a missing file means the defaults.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        // Through the one reading layer: a FIFO or `/dev/zero` in its place never hangs or
        // fills memory.
        let read =
            speccoder_runners::files::read_limited(path, speccoder_runners::files::MAX_MANIFEST)
                .and_then(|bytes| {
                    String::from_utf8(bytes).map_err(|err| {
                        speccoder_runners::files::ReadError::Io(std::io::Error::new(
                            std::io::ErrorKind::InvalidData,
                            err.utf8_error(),
                        ))
                    })
                });
        let text = match read {
            Ok(text) => text,
            Err(err) if err.is_not_found() => return Ok(Self::default()),
            Err(err) => {
                return Err(ConfigError {
                    file: Some(path.to_path_buf()),
                    line: 0,
                    column: 0,
                    message: err.to_string(),
                });
            }
        };
        let mut config = Self::parse(&text).map_err(|mut err| {
            err.file = Some(path.to_path_buf());
            err
        })?;
        config.source = Some(path.to_path_buf());
        Ok(config)
    }

    /// Parses the text of a configuration file.
    pub fn parse(text: &str) -> Result<Self, ConfigError> {
        let doc = DeTable::parse(text).map_err(|err| {
            let (line, column) = err
                .span()
                .map_or((0, 0), |span| line_column(text, span.start));
            ConfigError {
                file: None,
                line,
                column,
                message: format!("invalid TOML: {}", err.message().trim_end()),
            }
        })?;
        let reader = Reader { text };
        let mut config = Self::default();
        for (key, value) in doc.get_ref() {
            match key.get_ref().as_ref() {
                "recipe" => config.recipe = reader.recipe(value)?,
                "executor" => config.executor = reader.executor(value)?,
                "commands" => config.commands = reader.commands(value)?,
                "wording" => config.wording = reader.wording(value)?,
                "attempt" => config.attempt = reader.attempt(value)?,
                other => {
                    return Err(reader.error(
                        key.span(),
                        format!(
                            "{other}: unknown table (known: recipe, executor, commands, wording, attempt)"
                        ),
                    ));
                }
            }
        }
        Ok(config)
    }
}

/// Whether `glob` compiles, with the glob crate's reason when it does not.
fn check_glob(glob: &str) -> Result<(), String> {
    globset::Glob::new(glob)
        .map(drop)
        .map_err(|err| format!("`{glob}` is not a valid glob: {}", err.kind()))
}

/// The 1-based line and column of byte `offset` in `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |s| s.chars().count()) + 1;
    (line, column)
}

type Value<'i> = Spanned<DeValue<'i>>;

/// Walks the document, turning each problem into a located error.
struct Reader<'t> {
    text: &'t str,
}

const RECIPE_KEYS: &[&str] = &[
    "enabled",
    "runners",
    "timeout_secs",
    "probe_timeout_secs",
    "task_limit",
    "output_head_bytes",
    "output_tail_bytes",
    "allow_tasks",
    "cache",
];
const EXECUTOR_KEYS: &[&str] = &["kind", "argv", "model", "timeout_secs", "recipe_mcp"];
const COMMANDS_KEYS: &[&str] = &["allow"];
const ATTEMPT_KEYS: &[&str] = &[
    "checks",
    "max_attempts",
    "protected",
    "tests",
    "branch",
    "tasks_file",
    "reject_gaming",
    "allow_unisolated_withheld",
    "test_edits",
    "writable",
    "setup",
];
const WORDING_KEYS: &[&str] = &[
    "product",
    "unit",
    "intent_file",
    "story",
    "plan",
    "constitution",
];

impl Reader<'_> {
    fn error(&self, span: Range<usize>, message: String) -> ConfigError {
        let (line, column) = line_column(self.text, span.start);
        ConfigError {
            file: None,
            line,
            column,
            message,
        }
    }

    fn table<'a, 'i>(
        &self,
        name: &str,
        value: &'a Value<'i>,
        known: &[&str],
    ) -> Result<Vec<(&'a str, &'a Value<'i>)>, ConfigError> {
        let DeValue::Table(table) = value.get_ref() else {
            return Err(self.error(
                value.span(),
                format!(
                    "[{name}]: expected a table, found {}",
                    value.get_ref().type_str()
                ),
            ));
        };
        let mut entries = Vec::new();
        for (key, value) in table {
            let key_name: &str = key.get_ref().as_ref();
            if !known.contains(&key_name) {
                return Err(self.error(
                    key.span(),
                    format!(
                        "[{name}] {key_name}: unknown key (known: {})",
                        known.join(", ")
                    ),
                ));
            }
            entries.push((key_name, value));
        }
        Ok(entries)
    }

    fn recipe(&self, value: &Value<'_>) -> Result<RecipeConfig, ConfigError> {
        let mut recipe = RecipeConfig::default();
        for (key, value) in self.table("recipe", value, RECIPE_KEYS)? {
            let at = |what: &str| format!("[recipe] {key}: {what}");
            match key {
                "enabled" => recipe.enabled = self.boolean(value, &at)?,
                "allow_tasks" => recipe.allow_tasks = self.boolean(value, &at)?,
                "cache" => recipe.cache = self.boolean(value, &at)?,
                "runners" => recipe.runners = self.runner_ids(value, &at)?,
                // Out of range is clamped when the task runs, with a note, as `--timeout` is.
                "timeout_secs" => recipe.timeout_secs = self.integer(value, 0..=u64::MAX, &at)?,
                "probe_timeout_secs" => {
                    recipe.probe_timeout_secs = self.integer(value, 1..=600, &at)?;
                }
                "task_limit" => recipe.task_limit = self.size(value, 1..=10_000, &at)?,
                "output_head_bytes" => {
                    recipe.output_head_bytes = self.size(value, 0..=16 << 20, &at)?;
                }
                "output_tail_bytes" => {
                    recipe.output_tail_bytes = self.size(value, 0..=16 << 20, &at)?;
                }
                _ => unreachable!("keys are checked against RECIPE_KEYS"),
            }
        }
        Ok(recipe)
    }

    fn executor(&self, value: &Value<'_>) -> Result<Option<ExternalExecutor>, ConfigError> {
        let entries = self.table("executor", value, EXECUTOR_KEYS)?;
        let mut kind = None;
        let mut argv = Vec::new();
        let mut model = None;
        let mut timeout_secs = 1800;
        let mut recipe_mcp = true;
        for &(key, value) in &entries {
            let at = |what: &str| format!("[executor]: {key}: {what}");
            let at = &at;
            match key {
                "kind" => kind = Some((self.string(value, at)?, value.span())),
                "argv" => argv = self.strings(value, at)?,
                "model" => model = Some(self.string(value, at)?),
                "timeout_secs" => timeout_secs = self.integer(value, 1..=86_400, at)?,
                "recipe_mcp" => recipe_mcp = self.boolean(value, at)?,
                _ => unreachable!("keys are checked against EXECUTOR_KEYS"),
            }
        }
        let Some((kind, kind_span)) = kind else {
            return Err(self.error(value.span(), "[executor]: `kind` is required".into()));
        };
        let kind = match kind.as_str() {
            "native" => return Ok(None),
            "claude" => ExecutorKind::Claude,
            "codex" => ExecutorKind::Codex,
            "command" => ExecutorKind::Command,
            other => {
                return Err(self.error(
                    kind_span,
                    format!("[executor]: kind = \"{other}\" (native, claude, codex or command)"),
                ));
            }
        };
        if kind == ExecutorKind::Command && argv.first().is_none_or(String::is_empty) {
            return Err(self.error(
                kind_span,
                "[executor]: kind = \"command\" needs `argv`".into(),
            ));
        }
        Ok(Some(ExternalExecutor {
            kind,
            argv,
            model,
            timeout_secs,
            recipe_mcp,
        }))
    }

    fn commands(&self, value: &Value<'_>) -> Result<CommandsConfig, ConfigError> {
        let mut commands = CommandsConfig::default();
        for (key, value) in self.table("commands", value, COMMANDS_KEYS)? {
            let DeValue::Array(items) = value.get_ref() else {
                return Err(self.type_error(value, "an array of commands", |w| {
                    format!("[commands] {key}: {w}")
                }));
            };
            for (i, item) in items.iter().enumerate() {
                let at = |what: &str| format!("[commands] {key}[{i}]: {what}");
                let argv = self.strings(item, &at)?;
                if argv.first().is_none_or(String::is_empty) {
                    return Err(
                        self.error(item.span(), at("a command needs at least a program name"))
                    );
                }
                commands.allow.push(argv);
            }
        }
        Ok(commands)
    }

    fn wording(&self, value: &Value<'_>) -> Result<Wording, ConfigError> {
        let mut wording = Wording::default();
        for (key, value) in self.table("wording", value, WORDING_KEYS)? {
            let at = |what: &str| format!("[wording] {key}: {what}");
            let text = self.string(value, &at)?;
            if text.trim().is_empty() || text.contains(['\n', '\r']) {
                return Err(self.error(value.span(), at("must be one non-empty line")));
            }
            let slot = match key {
                "product" => &mut wording.product,
                "unit" => &mut wording.unit,
                "intent_file" => &mut wording.intent_file,
                "story" => &mut wording.story,
                "plan" => &mut wording.plan,
                "constitution" => &mut wording.constitution,
                _ => unreachable!("keys are checked against WORDING_KEYS"),
            };
            *slot = text;
        }
        Ok(wording)
    }

    fn attempt(&self, value: &Value<'_>) -> Result<AttemptConfig, ConfigError> {
        let mut attempt = AttemptConfig::default();
        for (key, value) in self.table("attempt", value, ATTEMPT_KEYS)? {
            let at = |what: &str| format!("[attempt] {key}: {what}");
            match key {
                "checks" => {
                    let ops = self.strings(value, &at)?;
                    if ops.iter().any(|op| op.trim().is_empty()) {
                        return Err(self.error(value.span(), at("an op cannot be empty")));
                    }
                    attempt.checks = Some(ops);
                }
                "max_attempts" => {
                    let n = self.integer(value, 1..=20, &at)?;
                    attempt.max_attempts = u32::try_from(n).unwrap_or(20);
                }
                "protected" | "tests" => {
                    let globs = self.strings(value, &at)?;
                    if let Some(bad) = globs.iter().find_map(|g| check_glob(g).err()) {
                        return Err(self.error(value.span(), at(&bad)));
                    }
                    if key == "protected" {
                        attempt.protected = globs;
                    } else {
                        attempt.tests = globs;
                    }
                }
                "branch" => {
                    let branch = self.string(value, &at)?;
                    if !branch.contains("{task}") {
                        return Err(self.error(
                            value.span(),
                            at("must hold `{task}`, so that each task has its own branch"),
                        ));
                    }
                    attempt.branch = branch;
                }
                "tasks_file" => {
                    let file = self.string(value, &at)?;
                    if file.trim().is_empty()
                        || Path::new(&file).is_absolute()
                        || file.contains("..")
                    {
                        return Err(self.error(
                            value.span(),
                            at("must be a relative path inside the project"),
                        ));
                    }
                    attempt.tasks_file = file;
                }
                "reject_gaming" => attempt.reject_gaming = self.boolean(value, &at)?,
                "allow_unisolated_withheld" => {
                    attempt.allow_unisolated_withheld = self.boolean(value, &at)?;
                }
                "test_edits" => {
                    attempt.test_edits = match self.string(value, &at)?.as_str() {
                        "frozen" => TestEdits::Frozen,
                        "audit" => TestEdits::Audit,
                        _ => {
                            return Err(
                                self.error(value.span(), at("must be \"frozen\" or \"audit\""))
                            );
                        }
                    };
                }
                "writable" => {
                    let paths = self.strings(value, &at)?;
                    if let Some(bad) = paths
                        .iter()
                        .find(|p| !(p.starts_with('/') || p.starts_with("~/")))
                    {
                        return Err(self.error(
                            value.span(),
                            at(&format!(
                                "`{bad}` must be an absolute path or start with `~/`"
                            )),
                        ));
                    }
                    attempt.writable = paths;
                }
                "setup" => {
                    let commands = self.strings(value, &at)?;
                    if commands.iter().any(|c| c.trim().is_empty()) {
                        return Err(self.error(value.span(), at("a command cannot be empty")));
                    }
                    attempt.setup = commands;
                }
                _ => unreachable!("keys are checked against ATTEMPT_KEYS"),
            }
        }
        Ok(attempt)
    }

    fn runner_ids(
        &self,
        value: &Value<'_>,
        at: &dyn Fn(&str) -> String,
    ) -> Result<Vec<String>, ConfigError> {
        let ids = self.strings(value, at)?;
        let DeValue::Array(items) = value.get_ref() else {
            unreachable!("strings() accepted an array")
        };
        for (i, (id, item)) in ids.iter().zip(items.iter()).enumerate() {
            if ids[..i].contains(id) {
                return Err(self.error(item.span(), at(&format!("runner `{id}` is listed twice"))));
            }
            if !speccoder_runners::RUNNER_IDS.contains(&id.as_str()) {
                return Err(self.error(
                    item.span(),
                    at(&format!(
                        "unknown runner `{id}` (known: {})",
                        speccoder_runners::RUNNER_IDS.join(", ")
                    )),
                ));
            }
        }
        Ok(ids)
    }

    fn type_error(
        &self,
        value: &Value<'_>,
        expected: &str,
        at: impl Fn(&str) -> String,
    ) -> ConfigError {
        self.error(
            value.span(),
            at(&format!(
                "expected {expected}, found {}",
                value.get_ref().type_str()
            )),
        )
    }

    fn boolean(&self, value: &Value<'_>, at: &dyn Fn(&str) -> String) -> Result<bool, ConfigError> {
        value
            .get_ref()
            .as_bool()
            .ok_or_else(|| self.type_error(value, "true or false", at))
    }

    fn string(
        &self,
        value: &Value<'_>,
        at: &dyn Fn(&str) -> String,
    ) -> Result<String, ConfigError> {
        value
            .get_ref()
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| self.type_error(value, "a string", at))
    }

    fn strings(
        &self,
        value: &Value<'_>,
        at: &dyn Fn(&str) -> String,
    ) -> Result<Vec<String>, ConfigError> {
        let DeValue::Array(items) = value.get_ref() else {
            return Err(self.type_error(value, "an array of strings", at));
        };
        items
            .iter()
            .map(|item| {
                item.get_ref()
                    .as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| self.type_error(item, "an array of strings", at))
            })
            .collect()
    }

    fn integer(
        &self,
        value: &Value<'_>,
        range: std::ops::RangeInclusive<u64>,
        at: &dyn Fn(&str) -> String,
    ) -> Result<u64, ConfigError> {
        let Some(int) = value.get_ref().as_integer() else {
            return Err(self.type_error(value, "an integer", at));
        };
        let parsed = i128::from_str_radix(int.as_str(), int.radix()).ok();
        match parsed.and_then(|n| u64::try_from(n).ok()) {
            Some(n) if range.contains(&n) => Ok(n),
            _ => Err(self.error(
                value.span(),
                at(&format!(
                    "{} is out of range ({}..={})",
                    &self.text[value.span()],
                    range.start(),
                    range.end()
                )),
            )),
        }
    }

    fn size(
        &self,
        value: &Value<'_>,
        range: std::ops::RangeInclusive<u64>,
        at: &dyn Fn(&str) -> String,
    ) -> Result<usize, ConfigError> {
        let n = self.integer(value, range, at)?;
        Ok(usize::try_from(n).unwrap_or(usize::MAX))
    }
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
            ["just", "pkg", "cargo", "make", "task"]
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
            "1:2: recipes: unknown table (known: recipe, executor, commands, wording, attempt)"
        );
        assert_eq!(
            error("[executor]\nkind = \"claude\"\nflavour = 1\n"),
            "3:1: [executor] flavour: unknown key (known: kind, argv, model, timeout_secs, recipe_mcp)"
        );
    }

    #[test]
    fn wrong_types_and_ranges() {
        assert_eq!(
            error("[recipe]\ntimeout_secs = \"5\"\n"),
            "2:16: [recipe] timeout_secs: expected an integer, found string"
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
            "3:16: [executor]: timeout_secs: 90000 is out of range (1..=86400)"
        );
        assert_eq!(
            error("[recipe]\nenabled = 1\n"),
            "2:11: [recipe] enabled: expected true or false, found integer"
        );
        assert_eq!(
            error("[recipe]\nrunners = [\"just\", \"rake\"]\n"),
            "2:20: [recipe] runners: unknown runner `rake` (known: just, pkg, cargo, make, task)"
        );
        assert_eq!(
            error("[commands]\nallow = [[\"cargo\", 1]]\n"),
            "2:20: [commands] allow[0]: expected an array of strings, found integer"
        );
        assert_eq!(
            error("[commands]\nallow = [[]]\n"),
            "2:10: [commands] allow[0]: a command needs at least a program name"
        );
        assert_eq!(
            error("recipe = 3\n"),
            "1:10: [recipe]: expected a table, found integer"
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
allow_unisolated_withheld = true
test_edits = "audit"
writable = ["~/.cache/x", "/opt/y"]
setup = ["npm ci"]
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
                allow_unisolated_withheld: true,
                test_edits: TestEdits::Audit,
                writable: vec!["~/.cache/x".into(), "/opt/y".into()],
                setup: vec!["npm ci".into()],
            }
        );
        assert_eq!(
            error("[attempt]\ntest_edits = \"some\"\n"),
            "2:14: [attempt] test_edits: must be \"frozen\" or \"audit\""
        );
        assert_eq!(
            error("[attempt]\nwritable = [\"cache\"]\n"),
            "2:12: [attempt] writable: `cache` must be an absolute path or start with `~/`"
        );
        let defaults = Config::parse("").expect("valid").attempt;
        assert_eq!(defaults.checks, None);
        assert_eq!(defaults.max_attempts, 3);
        assert_eq!(defaults.branch, "speccoder/{task}");
        assert_eq!(
            error("[attempt]\nretries = 2\n"),
            "2:1: [attempt] retries: unknown key (known: checks, max_attempts, protected, tests, \
             branch, tasks_file, reject_gaming, allow_unisolated_withheld, test_edits, writable, \
             setup)"
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

    #[test]
    fn syntax_errors_are_located() {
        let got = error("[recipe]\nenabled = \n");
        assert!(got.starts_with("2:11: invalid TOML: "), "{got}");
    }

    #[test]
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
            })
        );
        let codex = Config::parse("[executor]\nkind = \"codex\"\n").expect("valid");
        assert_eq!(codex.executor.map(|e| e.kind), Some(ExecutorKind::Codex));
        assert_eq!(
            error("[executor]\nkind = \"command\"\n"),
            "2:8: [executor]: kind = \"command\" needs `argv`"
        );
        assert_eq!(
            error("[executor]\nkind = \"command\"\nargv = [\"\"]\n"),
            "2:8: [executor]: kind = \"command\" needs `argv`"
        );
        assert_eq!(
            error("[executor]\nkind = \"gpt\"\n"),
            "2:8: [executor]: kind = \"gpt\" (native, claude, codex or command)"
        );
        assert_eq!(
            error("[executor]\nkind = \"claude\"\ntimeout_secs = \"long\"\n"),
            "3:16: [executor]: timeout_secs: expected an integer, found string"
        );
        assert_eq!(
            error("[executor]\nkind = 1\n"),
            "2:8: [executor]: kind: expected a string, found integer"
        );
        assert_eq!(
            error("[executor]\nmodel = \"x\"\n"),
            "1:1: [executor]: `kind` is required"
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
