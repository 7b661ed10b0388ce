//! `speccoder.toml`: the `[recipe]`, `[executor]`, `[commands]`, `[wording]` and `[attempt]`
//! tables.
//!
//! serde reads the file (`deny_unknown_fields`), each value in a [`Spanned`] so that the
//! checks after it, and the errors serde itself raises, name the file, line, column and key.

use std::fmt;
use std::marker::PhantomData;
use std::ops::{Range, RangeInclusive};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{self, Deserializer, IntoDeserializer, MapAccess, SeqAccess, Visitor};
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
        let check = Check { text };
        let raw = RawConfig::deserialize(toml::de::Deserializer::from(doc.clone()))
            .map_err(|err| check.serde_error(doc.get_ref(), &err))?;
        let mut config = Self::default();
        if let Some(recipe) = check.table(raw.recipe, "recipe")? {
            config.recipe = check.recipe(recipe.into_inner())?;
        }
        if let Some(executor) = check.table(raw.executor, "executor")? {
            config.executor = check.executor(executor)?;
        }
        if let Some(commands) = check.table(raw.commands, "commands")? {
            config.commands = check.commands(commands.into_inner())?;
        }
        if let Some(wording) = check.table(raw.wording, "wording")? {
            config.wording = check.wording(wording.into_inner())?;
        }
        if let Some(attempt) = check.table(raw.attempt, "attempt")? {
            config.attempt = check.attempt(attempt.into_inner())?;
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

/// A key's value and where it is, when the key is there.
type Field<T> = Option<Spanned<Got<T>>>;
/// An array of strings, each with where it is.
type Strings = Vec<Spanned<Got<String>>>;

// The file as serde reads it: the keys (in the order the unknown-key errors list them),
// with each value's span for the checks below.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    recipe: Field<RawRecipe>,
    executor: Field<RawExecutor>,
    commands: Field<RawCommands>,
    wording: Field<RawWording>,
    attempt: Field<RawAttempt>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRecipe {
    enabled: Field<bool>,
    runners: Field<Strings>,
    timeout_secs: Field<i128>,
    probe_timeout_secs: Field<i128>,
    task_limit: Field<i128>,
    output_head_bytes: Field<i128>,
    output_tail_bytes: Field<i128>,
    allow_tasks: Field<bool>,
    cache: Field<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawExecutor {
    kind: Field<String>,
    argv: Field<Strings>,
    model: Field<String>,
    timeout_secs: Field<i128>,
    recipe_mcp: Field<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCommands {
    allow: Field<Vec<Spanned<Got<Strings>>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawWording {
    product: Field<String>,
    unit: Field<String>,
    intent_file: Field<String>,
    story: Field<String>,
    plan: Field<String>,
    constitution: Field<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAttempt {
    checks: Field<Strings>,
    max_attempts: Field<i128>,
    protected: Field<Strings>,
    tests: Field<Strings>,
    branch: Field<String>,
    tasks_file: Field<String>,
    reject_gaming: Field<bool>,
    allow_unisolated_withheld: Field<bool>,
    test_edits: Field<String>,
    writable: Field<Strings>,
    setup: Field<Strings>,
}

/// A value of the TOML type a key wants, or the name of the type it holds instead: the
/// checks word that error themselves, as serde's words would name Rust types.
enum Got<T> {
    Value(T),
    Found(&'static str),
}

/// The TOML type a value is read from, named as `DeValue::type_str` names it.
trait Kind {
    const KIND: &'static str;
}

macro_rules! kind {
    ($kind:literal: $($ty:ty),*) => {
        $(impl Kind for $ty {
            const KIND: &'static str = $kind;
        })*
    };
}
kind!("boolean": bool);
kind!("integer": i128);
kind!("string": String);
kind!("array": Strings, Vec<Spanned<Got<Strings>>>);
kind!("table": RawRecipe, RawExecutor, RawCommands, RawWording, RawAttempt);

impl<'de, T: Deserialize<'de> + Kind> Deserialize<'de> for Got<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(GotVisitor(PhantomData))
    }
}

struct GotVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de> + Kind> GotVisitor<T> {
    fn read<D: Deserializer<'de>>(found: &'static str, value: D) -> Result<Got<T>, D::Error> {
        if found == T::KIND {
            T::deserialize(value).map(Got::Value)
        } else {
            Ok(Got::Found(found))
        }
    }
}

impl<'de, T: Deserialize<'de> + Kind> Visitor<'de> for GotVisitor<T> {
    type Value = Got<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a TOML value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Got<T>, E> {
        Self::read("boolean", v.into_deserializer())
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Got<T>, E> {
        Self::read("integer", i128::from(v).into_deserializer())
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Got<T>, E> {
        Self::read("integer", i128::from(v).into_deserializer())
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Got<T>, E> {
        Self::read("integer", v.into_deserializer())
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Got<T>, E> {
        // Out of every range the checks allow either way.
        Self::read(
            "integer",
            i128::try_from(v).unwrap_or(i128::MAX).into_deserializer(),
        )
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Got<T>, E> {
        Ok(Got::Found("float"))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Got<T>, E> {
        Self::read("string", v.into_deserializer())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Got<T>, A::Error> {
        Self::read("array", SeqAccessDeserializer::new(seq))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Got<T>, A::Error> {
        if T::KIND == "table" {
            return Self::read("table", MapAccessDeserializer::new(map));
        }
        // toml hands a datetime over as a map of one private key.
        let datetime = toml::value::Datetime::deserialize(MapAccessDeserializer::new(map));
        Ok(Got::Found(if datetime.is_ok() {
            "datetime"
        } else {
            "table"
        }))
    }
}

/// Sets `slot` from the key's value, when the key is there.
fn set<T, U>(
    slot: &mut U,
    field: Option<T>,
    read: impl FnOnce(T) -> Result<U, ConfigError>,
) -> Result<(), ConfigError> {
    if let Some(field) = field {
        *slot = read(field)?;
    }
    Ok(())
}

fn plain(items: Vec<Spanned<String>>) -> Vec<String> {
    items.into_iter().map(Spanned::into_inner).collect()
}

/// Turns what serde read into the configuration, each problem a located error.
struct Check<'t> {
    text: &'t str,
}

impl Check<'_> {
    /// `at: what`, located at the start of `span`.
    fn error(&self, span: Range<usize>, at: &str, what: impl fmt::Display) -> ConfigError {
        let (line, column) = line_column(self.text, span.start);
        ConfigError {
            file: None,
            line,
            column,
            message: format!("{at}: {what}"),
        }
    }

    /// An error from serde (an unknown key or table, or a value toml could not hold), worded
    /// as the checks word theirs: the `[table] key` is the one whose span holds the error's.
    fn serde_error(&self, doc: &DeTable<'_>, err: &toml::de::Error) -> ConfigError {
        let span = err.span().unwrap_or(0..0);
        let message = err.message();
        // serde says "unknown field `x`, expected one of `a`, `b`" (or "expected `a`").
        let known = message.strip_prefix("unknown field ").map(|rest| {
            let known = rest.split_once("expected ").map_or("", |(_, known)| known);
            known.trim_start_matches("one of ").replace('`', "")
        });
        for (name_key, value) in doc {
            let name: &str = name_key.get_ref().as_ref();
            if let Some(known) = known.as_ref().filter(|_| name_key.span() == span) {
                return self.error(span, name, format_args!("unknown table (known: {known})"));
            }
            if value.span() == span {
                // A datetime where a table should be reaches serde as a map.
                let found = value.get_ref().type_str();
                return self.error(
                    span,
                    &format!("[{name}]"),
                    format_args!("expected a table, found {found}"),
                );
            }
            let DeValue::Table(table) = value.get_ref() else {
                continue;
            };
            for (key, value) in table {
                let at = format!("[{name}] {}", key.get_ref());
                match &known {
                    Some(known) if key.span() == span => {
                        return self.error(span, &at, format_args!("unknown key (known: {known})"));
                    }
                    _ if value.span().contains(&span.start) => {
                        return self.error(span, &at, message);
                    }
                    _ => {}
                }
            }
        }
        let (line, column) = line_column(self.text, span.start);
        ConfigError {
            file: None,
            line,
            column,
            message: message.to_owned(),
        }
    }

    /// The value, or an error saying what `at` wants and what it holds.
    fn take<T>(
        &self,
        field: Spanned<Got<T>>,
        wanted: &str,
        at: &str,
    ) -> Result<Spanned<T>, ConfigError> {
        let span = field.span();
        match field.into_inner() {
            Got::Value(value) => Ok(Spanned::new(span, value)),
            Got::Found(found) => {
                Err(self.error(span, at, format_args!("expected {wanted}, found {found}")))
            }
        }
    }

    fn table<T>(&self, field: Field<T>, name: &str) -> Result<Option<Spanned<T>>, ConfigError> {
        field
            .map(|field| self.take(field, "a table", &format!("[{name}]")))
            .transpose()
    }

    fn boolean(&self, field: Spanned<Got<bool>>, at: &str) -> Result<bool, ConfigError> {
        self.take(field, "true or false", at)
            .map(Spanned::into_inner)
    }

    /// The string, when `ok` holds for it, else an error saying `why`.
    fn string(
        &self,
        field: Spanned<Got<String>>,
        at: &str,
        ok: impl Fn(&str) -> bool,
        why: &str,
    ) -> Result<String, ConfigError> {
        let text = self.take(field, "a string", at)?;
        if !ok(text.get_ref()) {
            return Err(self.error(text.span(), at, why));
        }
        Ok(text.into_inner())
    }

    /// The strings, and the array's span.
    fn strings(
        &self,
        field: Spanned<Got<Strings>>,
        at: &str,
    ) -> Result<(Range<usize>, Vec<Spanned<String>>), ConfigError> {
        let array = self.take(field, "an array of strings", at)?;
        let span = array.span();
        let items = array
            .into_inner()
            .into_iter()
            .map(|item| self.take(item, "an array of strings", at))
            .collect::<Result<_, _>>()?;
        Ok((span, items))
    }

    /// The strings, when `bad` finds nothing wrong with any, else the first thing it found.
    fn list(
        &self,
        field: Spanned<Got<Strings>>,
        at: &str,
        bad: impl Fn(&str) -> Option<String>,
    ) -> Result<Vec<String>, ConfigError> {
        let (span, items) = self.strings(field, at)?;
        let items = plain(items);
        match items.iter().find_map(|item| bad(item)) {
            Some(why) => Err(self.error(span, at, why)),
            None => Ok(items),
        }
    }

    fn integer(
        &self,
        field: Spanned<Got<i128>>,
        range: RangeInclusive<u64>,
        at: &str,
    ) -> Result<u64, ConfigError> {
        let int = self.take(field, "an integer", at)?;
        match u64::try_from(*int.get_ref()) {
            Ok(n) if range.contains(&n) => Ok(n),
            _ => Err(self.error(
                int.span(),
                at,
                format_args!(
                    "{} is out of range ({}..={})",
                    &self.text[int.span()],
                    range.start(),
                    range.end()
                ),
            )),
        }
    }

    fn size(
        &self,
        field: Spanned<Got<i128>>,
        range: RangeInclusive<u64>,
        at: &str,
    ) -> Result<usize, ConfigError> {
        let n = self.integer(field, range, at)?;
        Ok(usize::try_from(n).unwrap_or(usize::MAX))
    }

    fn recipe(&self, raw: RawRecipe) -> Result<RecipeConfig, ConfigError> {
        let mut recipe = RecipeConfig::default();
        let at = |key: &str| format!("[recipe] {key}");
        set(&mut recipe.enabled, raw.enabled, |f| {
            self.boolean(f, &at("enabled"))
        })?;
        set(&mut recipe.runners, raw.runners, |f| {
            self.runner_ids(f, &at("runners"))
        })?;
        // Out of range is clamped when the task runs, with a note, as `--timeout` is.
        set(&mut recipe.timeout_secs, raw.timeout_secs, |f| {
            self.integer(f, 0..=u64::MAX, &at("timeout_secs"))
        })?;
        set(
            &mut recipe.probe_timeout_secs,
            raw.probe_timeout_secs,
            |f| self.integer(f, 1..=600, &at("probe_timeout_secs")),
        )?;
        set(&mut recipe.task_limit, raw.task_limit, |f| {
            self.size(f, 1..=10_000, &at("task_limit"))
        })?;
        set(&mut recipe.output_head_bytes, raw.output_head_bytes, |f| {
            self.size(f, 0..=16 << 20, &at("output_head_bytes"))
        })?;
        set(&mut recipe.output_tail_bytes, raw.output_tail_bytes, |f| {
            self.size(f, 0..=16 << 20, &at("output_tail_bytes"))
        })?;
        set(&mut recipe.allow_tasks, raw.allow_tasks, |f| {
            self.boolean(f, &at("allow_tasks"))
        })?;
        set(&mut recipe.cache, raw.cache, |f| {
            self.boolean(f, &at("cache"))
        })?;
        Ok(recipe)
    }

    fn executor(&self, raw: Spanned<RawExecutor>) -> Result<Option<ExternalExecutor>, ConfigError> {
        let span = raw.span();
        let raw = raw.into_inner();
        let at = |key: &str| format!("[executor]: {key}");
        let kind = raw
            .kind
            .map(|f| self.take(f, "a string", &at("kind")))
            .transpose()?;
        let mut argv = Vec::new();
        set(&mut argv, raw.argv, |f| {
            Ok(plain(self.strings(f, &at("argv"))?.1))
        })?;
        let model = raw
            .model
            .map(|f| self.string(f, &at("model"), |_| true, ""))
            .transpose()?;
        let mut timeout_secs = 1800;
        set(&mut timeout_secs, raw.timeout_secs, |f| {
            self.integer(f, 1..=86_400, &at("timeout_secs"))
        })?;
        let mut recipe_mcp = true;
        set(&mut recipe_mcp, raw.recipe_mcp, |f| {
            self.boolean(f, &at("recipe_mcp"))
        })?;
        let Some(kind) = kind else {
            return Err(self.error(span, "[executor]", "`kind` is required"));
        };
        let kind_span = kind.span();
        let kind = match kind.get_ref().as_str() {
            "native" => return Ok(None),
            "claude" => ExecutorKind::Claude,
            "codex" => ExecutorKind::Codex,
            "command" => ExecutorKind::Command,
            other => {
                return Err(self.error(
                    kind_span,
                    "[executor]",
                    format_args!("kind = \"{other}\" (native, claude, codex or command)"),
                ));
            }
        };
        if kind == ExecutorKind::Command && argv.first().is_none_or(String::is_empty) {
            return Err(self.error(kind_span, "[executor]", "kind = \"command\" needs `argv`"));
        }
        Ok(Some(ExternalExecutor {
            kind,
            argv,
            model,
            timeout_secs,
            recipe_mcp,
        }))
    }

    fn commands(&self, raw: RawCommands) -> Result<CommandsConfig, ConfigError> {
        let mut commands = CommandsConfig::default();
        let Some(allow) = raw.allow else {
            return Ok(commands);
        };
        let items = self.take(allow, "an array of commands", "[commands] allow")?;
        for (i, item) in items.into_inner().into_iter().enumerate() {
            let at = format!("[commands] allow[{i}]");
            let (span, argv) = self.strings(item, &at)?;
            let argv = plain(argv);
            if argv.first().is_none_or(String::is_empty) {
                return Err(self.error(span, &at, "a command needs at least a program name"));
            }
            commands.allow.push(argv);
        }
        Ok(commands)
    }

    fn wording(&self, raw: RawWording) -> Result<Wording, ConfigError> {
        let mut wording = Wording::default();
        let fields = [
            ("product", raw.product, &mut wording.product),
            ("unit", raw.unit, &mut wording.unit),
            ("intent_file", raw.intent_file, &mut wording.intent_file),
            ("story", raw.story, &mut wording.story),
            ("plan", raw.plan, &mut wording.plan),
            ("constitution", raw.constitution, &mut wording.constitution),
        ];
        for (key, field, slot) in fields {
            set(slot, field, |f| {
                let one_line = |text: &str| !text.trim().is_empty() && !text.contains(['\n', '\r']);
                self.string(
                    f,
                    &format!("[wording] {key}"),
                    one_line,
                    "must be one non-empty line",
                )
            })?;
        }
        Ok(wording)
    }

    fn attempt(&self, raw: RawAttempt) -> Result<AttemptConfig, ConfigError> {
        let mut attempt = AttemptConfig::default();
        let at = |key: &str| format!("[attempt] {key}");
        let blank = |why: &str| {
            let why = why.to_owned();
            move |item: &str| item.trim().is_empty().then(|| why.clone())
        };
        if let Some(f) = raw.checks {
            attempt.checks = Some(self.list(f, &at("checks"), blank("an op cannot be empty"))?);
        }
        set(&mut attempt.max_attempts, raw.max_attempts, |f| {
            let n = self.integer(f, 1..=20, &at("max_attempts"))?;
            Ok(u32::try_from(n).unwrap_or(20))
        })?;
        set(&mut attempt.protected, raw.protected, |f| {
            self.list(f, &at("protected"), |glob| check_glob(glob).err())
        })?;
        set(&mut attempt.tests, raw.tests, |f| {
            self.list(f, &at("tests"), |glob| check_glob(glob).err())
        })?;
        set(&mut attempt.branch, raw.branch, |f| {
            let why = "must hold `{task}`, so that each task has its own branch";
            self.string(f, &at("branch"), |branch| branch.contains("{task}"), why)
        })?;
        set(&mut attempt.tasks_file, raw.tasks_file, |f| {
            let inside = |file: &str| {
                !(file.trim().is_empty() || Path::new(file).is_absolute() || file.contains(".."))
            };
            let why = "must be a relative path inside the project";
            self.string(f, &at("tasks_file"), inside, why)
        })?;
        set(&mut attempt.reject_gaming, raw.reject_gaming, |f| {
            self.boolean(f, &at("reject_gaming"))
        })?;
        set(
            &mut attempt.allow_unisolated_withheld,
            raw.allow_unisolated_withheld,
            |f| self.boolean(f, &at("allow_unisolated_withheld")),
        )?;
        set(&mut attempt.test_edits, raw.test_edits, |f| {
            let known = |edits: &str| matches!(edits, "frozen" | "audit");
            let why = "must be \"frozen\" or \"audit\"";
            let edits = self.string(f, &at("test_edits"), known, why)?;
            Ok(if edits == "audit" {
                TestEdits::Audit
            } else {
                TestEdits::Frozen
            })
        })?;
        set(&mut attempt.writable, raw.writable, |f| {
            self.list(f, &at("writable"), |path| {
                let ok = path.starts_with('/') || path.starts_with("~/");
                (!ok).then(|| format!("`{path}` must be an absolute path or start with `~/`"))
            })
        })?;
        set(&mut attempt.setup, raw.setup, |f| {
            self.list(f, &at("setup"), blank("a command cannot be empty"))
        })?;
        Ok(attempt)
    }

    fn runner_ids(
        &self,
        field: Spanned<Got<Strings>>,
        at: &str,
    ) -> Result<Vec<String>, ConfigError> {
        let (_, ids) = self.strings(field, at)?;
        for (i, id) in ids.iter().enumerate() {
            let id_str = id.get_ref().as_str();
            if ids[..i]
                .iter()
                .any(|earlier| earlier.get_ref() == id.get_ref())
            {
                return Err(self.error(
                    id.span(),
                    at,
                    format_args!("runner `{id_str}` is listed twice"),
                ));
            }
            if !speccoder_runners::RUNNER_IDS.contains(&id_str) {
                return Err(self.error(
                    id.span(),
                    at,
                    format_args!(
                        "unknown runner `{id_str}` (known: {})",
                        speccoder_runners::RUNNER_IDS.join(", ")
                    ),
                ));
            }
        }
        Ok(plain(ids))
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
            "2:11: [recipe] enabled: expected true or false, found datetime"
        );
        assert_eq!(
            error("[commands]\nallow = [1]\n"),
            "2:10: [commands] allow[0]: expected an array of strings, found integer"
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
