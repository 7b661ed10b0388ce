//! `python`: a Python project's tests (pytest or unittest, run with the interpreter its
//! package manager chooses), its poe, pdm and hatch tasks, and its entry points, all read
//! from its files: no Python code runs to list them (`setup.py` is read as text).
//!
//! Arguments, measured with a script printing `sys.argv` (poe 0.49, pdm 2.29, hatch 1.18,
//! uv 0.13, poetry 2.5, pytest 9.2):
//! - `poe NAME a -- --x -v -C /tmp --help` hands every word to a `cmd` or `script` task as
//!   written, a leading `--` too; poe reads its own options only before the task's name.
//!   Sequence and shell tasks drop the words (exit 0).
//! - `pdm run NAME -v --list -s` hands every word on, except a `--` right after the name,
//!   which pdm drops (`pdm run NAME -- a` gives `a`); after `pdm run --` nothing is dropped.
//! - `hatch run NAME a` drops words unless the script says `{args}`, formats them (`{env:HOME}`
//!   becomes the variable, `{root}` the project) and click removes the first `--` anywhere
//!   (`hatch run python x.py -- a` gives `a`); after `hatch run --` the later ones stay.
//! - `uv run pytest -v --help -- a` hands every word after the command on.
//! - `poetry run python x.py -v --help` reads `--help` (and `-C`, `-P`) as poetry's own;
//!   `poetry run -- python x.py --help -- a -C x` hands all of them on.
//! - `pytest -- --basetemp=/x` reads `--basetemp=/x` as a path, not the option (which
//!   would delete that folder).
//! - `hatch test` (hatch 1.18.2, in a throwaway project) runs `pytest -p no:randomly tests`
//!   in hatch's `hatch-test` environment: `tests` is the env's `default-args`, hatch's
//!   default when the project sets none, so tests kept elsewhere fail with "file or
//!   directory not found: tests". `hatch test a -k b` runs `pytest -p no:randomly a -k b`
//!   (words replace `tests`, unknown options are handed on), but hatch reads its own
//!   options anywhere among the words (`a -x` is its `--exclude`, which then wants a value;
//!   `-p` its `--parallel`, `-c` coverage, `--help` its help); after `hatch test --` every
//!   word reaches pytest as an option (`--basetemp=/x`, `-p plugin`), a later `--` kept;
//!   and the words are formatted as `hatch run`'s are, after `--` too (`{env:HOME}`
//!   becomes the variable, `{root}` the project).
//!
//! So every launcher that would read or drop a word is followed by `--`, the tail rule drops
//! the op's own leading `--` (as for pnpm), and allowances admit words only where they
//! reach the task unread: poe, pdm and entry points any words; pytest only after `--`
//! (test paths and node ids); unittest, hatch scripts and `hatch test` none.

use std::path::Path;

use crate::detection::{Absence, Arguments, Cache, CacheDefault, Context, RunnerDef};
use crate::files::{self, MAX_MANIFEST};
use crate::quote::quote;
use crate::runner::{Runner, TailRule, Task, TaskIndex};

/// The caches of Python's installers: uv's (`uv run`, `uv sync`) and pip's (a tox or nox
/// environment being made).
pub(crate) const PYTHON_CACHES: &[Cache] = &[
    Cache {
        variables: &[("UV_CACHE_DIR", "")],
        default: CacheDefault::UserCache("uv"),
    },
    Cache {
        variables: &[("PIP_CACHE_DIR", "")],
        default: CacheDefault::UserCache("pip"),
    },
];

pub(crate) const RUNNER: RunnerDef = RunnerDef {
    id: "python",
    label: "Python",
    executes: "nothing: pyproject.toml, hatch.toml, setup.cfg, setup.py (never run), tox.ini, pytest.ini and requirements files are read as text, and so are the first 16 test files of the root, tests/ and test/ (64 KiB of each) when nothing else names pytest; lockfiles, conftest.py and the project's .venv are only looked for. Running a task may create or sync an environment: `uv run` installs the locked packages (and may download a Python), `poetry run`, `pdm run` and `hatch run` create the project's environment (hatch and pdm also install into it), and `hatch test` creates hatch's test environment and installs pytest and its plugins into it",
    manifests: MANIFESTS,
    detect,
    is_builtin,
    is_aside: is_hook,
    arguments,
    caches: PYTHON_CACHES,
    ..RunnerDef::BASE
};

/// The most requirements files read.
const MAX_REQUIREMENTS_FILES: usize = 32;

/// Whether `task` is the runner's own `test` (pytest, unittest or `hatch test`) rather
/// than a task of the project: a `test` of another runner wins over it.
fn is_builtin(task: &Task) -> bool {
    task.name == "test"
        && (task.command.ends_with("pytest")
            || task.command.contains(" -m unittest discover")
            || is_hatch_test(&task.command))
}

/// Whether a command is `hatch test`, alone or with the folder it runs.
fn is_hatch_test(command: &str) -> bool {
    command == "hatch test" || command.starts_with("hatch test ")
}

/// pdm runs `pre_NAME` and `post_NAME` around `NAME`, and its own hooks around its commands.
fn is_hook(tasks: &TaskIndex<'_>, task: &Task) -> bool {
    if !task.command.starts_with("pdm run -- ") {
        return false;
    }
    const PDM_HOOKS: &[&str] = &[
        "install", "lock", "build", "publish", "script", "run", "init", "use",
    ];
    ["pre_", "post_"].iter().any(|prefix| {
        task.name.strip_prefix(prefix).is_some_and(|rest| {
            PDM_HOOKS.contains(&rest)
                || tasks
                    .get(rest)
                    .is_some_and(|t| t.command.starts_with("pdm run -- "))
        })
    })
}

fn arguments(_: &Runner, task: &Task) -> Arguments {
    if task.command.ends_with(" -m unittest discover") || task.command.contains(" -m unittest ") {
        Arguments::Exact
    } else if is_hatch_test(&task.command) {
        // hatch reads its own options among the words and formats them all.
        Arguments::Exact
    } else if is_builtin(task) {
        Arguments::AfterDashDash
    } else if task.command.starts_with("hatch ") {
        Arguments::Exact
    } else {
        Arguments::WithArguments
    }
}

/// How commands are started in the project's environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Launcher {
    /// `uv run` (uv.lock).
    Uv,
    /// `poetry run --` (poetry.lock).
    Poetry,
    /// `pdm run --` (pdm.lock).
    Pdm,
    /// `hatch run --` (hatch.toml or `[tool.hatch.envs]`).
    Hatch,
    /// The project's own virtual environment folder (`.venv` or `venv`).
    Venv(&'static str),
    /// No environment: `python3` (and `pytest`) from PATH.
    System {
        /// Whether `pytest` is on PATH.
        pytest: bool,
        /// Whether the code lives under `src/` (a src layout): nothing installs it, so
        /// the command puts `src` on `PYTHONPATH` (`env PYTHONPATH=src …`).
        src: bool,
    },
}

impl Launcher {
    /// What runs a command in the environment, when something must come before it.
    fn prefix(&self) -> Option<&'static str> {
        match self {
            Self::Uv => Some("uv run"),
            Self::Poetry => Some("poetry run --"),
            Self::Pdm => Some("pdm run --"),
            Self::Hatch => Some("hatch run --"),
            Self::Venv(_) | Self::System { .. } => None,
        }
    }

    /// The interpreter and module form (`uv run python -m`, `.venv/bin/python -m`).
    fn python_m(&self) -> String {
        match (self.prefix(), self) {
            (Some(prefix), _) => format!("{prefix} python -m"),
            (None, Self::Venv(dir)) => format!("{dir}/bin/python -m"),
            (None, _) => format!("{}python3 -m", self.src_path()),
        }
    }

    /// `env PYTHONPATH=src ` for a src layout without an environment, else nothing.
    fn src_path(&self) -> &'static str {
        match self {
            Self::System { src: true, .. } => "env PYTHONPATH=src ",
            _ => "",
        }
    }

    /// The command that runs pytest.
    pub(crate) fn pytest(&self) -> String {
        match (self.prefix(), self) {
            (Some(prefix), _) => format!("{prefix} pytest"),
            (None, Self::System { pytest: true, .. }) => format!("{}pytest", self.src_path()),
            (None, _) => format!("{} pytest", self.python_m()),
        }
    }

    /// The command that runs unittest's discovery, from `start` when given.
    pub(crate) fn unittest(&self, start: Option<&str>) -> String {
        let mut command = format!("{} unittest discover", self.python_m());
        if let Some(start) = start {
            command.push_str(" -s ");
            command.push_str(start);
        }
        command
    }

    /// The command that runs an installed entry point, when one can be named.
    fn entry_point(&self, name: &str) -> Option<String> {
        match (self.prefix(), self) {
            (Some(prefix), _) => Some(format!("{prefix} {}", quote(name))),
            (None, Self::Venv(dir)) => Some(format!("{dir}/bin/{}", quote(name))),
            (None, _) => None,
        }
    }
}

/// A task a pyproject (or hatch.toml) defines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Script {
    /// Its name.
    pub name: String,
    /// Its `help`, when it has one.
    pub doc: Option<String>,
}

/// What detection needs of a pyproject.toml.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Pyproject {
    /// Every requirement of every dependency list, as written.
    pub requirements: Vec<String>,
    /// Where pytest is configured in it (`[tool.pytest.ini_options]`), if it is.
    pub pytest_config: Option<&'static str>,
    /// `[tool.poe.tasks]`.
    pub poe: Vec<Script>,
    /// `[tool.pdm.scripts]`.
    pub pdm: Vec<Script>,
    /// `[tool.hatch.envs]`, when it has that table.
    pub hatch: Option<HatchEnvs>,
    /// The extras (`[project.optional-dependencies]`) that name pytest or a plugin,
    /// normalised: a hatch env's `features` installs them.
    pub pytest_extras: Vec<String>,
    /// The groups of `[dependency-groups]` that do, normalised: a hatch env's
    /// `dependency-groups` installs them.
    pub pytest_groups: Vec<String>,
    /// `[project.scripts]` and `[tool.poetry.scripts]` names.
    pub entry_points: Vec<String>,
}

/// The keys of the table at `path` in the order the text writes them (`toml::Table` sorts
/// them; authors put the important tasks first).
fn keys_in_order(de: &toml::de::DeTable<'_>, path: &[&str]) -> Vec<String> {
    let mut table = de;
    for key in path {
        let Some(next) = table
            .iter()
            .find(|(k, _)| k.get_ref() == key)
            .and_then(|(_, v)| v.get_ref().as_table())
        else {
            return Vec::new();
        };
        table = next;
    }
    let mut keys: Vec<(usize, String)> = table
        .iter()
        .map(|(k, _)| (k.span().start, k.get_ref().to_string()))
        .collect();
    keys.sort();
    keys.into_iter().map(|(_, k)| k).collect()
}

fn table<'a>(value: &'a toml::Value, path: &[&str]) -> Option<&'a toml::Table> {
    let mut value = value;
    for key in path {
        value = value.get(key)?;
    }
    value.as_table()
}

fn strings(value: Option<&toml::Value>) -> impl Iterator<Item = String> + '_ {
    value
        .and_then(toml::Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(toml::Value::as_str)
        .map(str::to_owned)
}

/// Parses pyproject.toml text.
#[expect(
    clippy::too_many_lines,
    reason = "over 80 lines when the limit was set; split it when it next changes"
)]
pub(crate) fn parse_pyproject(text: &str) -> Result<Pyproject, String> {
    let doc: toml::Value = toml::from_str::<toml::Table>(text)
        .map(toml::Value::Table)
        .map_err(|err| format!("invalid TOML: {}", err.message()))?;
    let spanned =
        toml::de::DeTable::parse(text).map_err(|err| format!("invalid TOML: {}", err.message()))?;
    let de = spanned.get_ref();
    let mut out = Pyproject::default();
    if let Some(project) = table(&doc, &["project"]) {
        out.requirements
            .extend(strings(project.get("dependencies")));
        for (extra, list) in project
            .get("optional-dependencies")
            .and_then(toml::Value::as_table)
            .into_iter()
            .flatten()
        {
            let list: Vec<String> = strings(Some(list)).collect();
            if list.iter().any(|r| is_pytest(r)) {
                out.pytest_extras.extend(requirement_name(extra));
            }
            out.requirements.extend(list);
        }
        for source in ["scripts", "gui-scripts"] {
            out.entry_points
                .extend(keys_in_order(de, &["project", source]));
        }
    }
    for (group, list) in table(&doc, &["dependency-groups"]).into_iter().flatten() {
        let list: Vec<String> = strings(Some(list)).collect();
        if list.iter().any(|r| is_pytest(r)) {
            out.pytest_groups.extend(requirement_name(group));
        }
        out.requirements.extend(list);
    }
    if let Some(poetry) = table(&doc, &["tool", "poetry"]) {
        for key in ["dependencies", "dev-dependencies"] {
            if let Some(deps) = poetry.get(key).and_then(toml::Value::as_table) {
                out.requirements.extend(deps.keys().cloned());
            }
        }
        for (_, group) in poetry
            .get("group")
            .and_then(toml::Value::as_table)
            .into_iter()
            .flatten()
        {
            if let Some(deps) = group.get("dependencies").and_then(toml::Value::as_table) {
                out.requirements.extend(deps.keys().cloned());
            }
        }
        if poetry.get("scripts").is_some_and(toml::Value::is_table) {
            out.entry_points
                .extend(keys_in_order(de, &["tool", "poetry", "scripts"]));
        }
    }
    for (_, list) in table(&doc, &["tool", "pdm", "dev-dependencies"])
        .into_iter()
        .flatten()
    {
        out.requirements.extend(strings(Some(list)));
    }
    if let Some(uv) = table(&doc, &["tool", "uv"]) {
        out.requirements.extend(strings(uv.get("dev-dependencies")));
    }
    if let Some(envs) = table(&doc, &["tool", "hatch", "envs"]) {
        let hatch = hatch_envs(envs, de, &["tool", "hatch", "envs"]);
        out.requirements.extend(hatch.requirements.iter().cloned());
        out.hatch = Some(hatch);
    }
    if table(&doc, &["tool", "pytest"]).is_some() {
        out.pytest_config = Some(
            if table(&doc, &["tool", "pytest", "ini_options"]).is_some() {
                "`[tool.pytest.ini_options]` in pyproject.toml"
            } else {
                "`[tool.pytest]` in pyproject.toml"
            },
        );
    }
    for (path, list) in [
        (["tool", "poe", "tasks"], &mut out.poe),
        (["tool", "pdm", "scripts"], &mut out.pdm),
    ] {
        if let Some(tasks) = table(&doc, &path) {
            *list = keys_in_order(de, &path)
                .into_iter()
                .map(|name| Script {
                    doc: tasks.get(&name).and_then(help),
                    name,
                })
                .collect();
        }
    }
    Ok(out)
}

/// A task's `help`, on one line.
fn help(task: &toml::Value) -> Option<String> {
    let help = task.get("help")?.as_str()?;
    let line = help.split_whitespace().collect::<Vec<_>>().join(" ");
    (!line.is_empty()).then_some(line)
}

/// What detection needs of hatch's `envs` table (pyproject's `[tool.hatch.envs]` or
/// hatch.toml's `[envs]`).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct HatchEnvs {
    /// Every env's `dependencies` and `extra-dependencies`, as written.
    pub requirements: Vec<String>,
    /// Every env's scripts, with the env, in the file's order.
    pub scripts: Vec<(String, Script)>,
    /// Every env, in the file's order.
    pub envs: Vec<HatchEnv>,
}

/// One environment of hatch's `envs` table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HatchEnv {
    /// Its name (`default`, `hatch-test`, `lint`).
    pub name: String,
    /// Whether the project is installed in it: a `detached` env has only its own
    /// dependencies.
    pub installs_project: bool,
    /// Whether its `dependencies` or `extra-dependencies` name pytest or a plugin.
    pub pytest: bool,
    /// Its `features` (extras of the project it installs), normalised.
    pub features: Vec<String>,
    /// Its `dependency-groups`, normalised.
    pub groups: Vec<String>,
    /// Whether it sets `default-args` (what `hatch test` runs without words, in
    /// `hatch-test`).
    pub default_args: bool,
}

/// The dependencies, scripts and envs of hatch's `envs` table (of pyproject's
/// `[tool.hatch]` or of hatch.toml).
fn hatch_envs(envs: &toml::Table, de: &toml::de::DeTable<'_>, path: &[&str]) -> HatchEnvs {
    let mut out = HatchEnvs::default();
    for env in keys_in_order(de, path) {
        let Some(config) = envs.get(&env) else {
            continue;
        };
        let mut deps: Vec<String> = strings(config.get("dependencies")).collect();
        deps.extend(strings(config.get("extra-dependencies")));
        let names = |key: &str| -> Vec<String> {
            strings(config.get(key))
                .filter_map(|n| requirement_name(&n))
                .collect()
        };
        out.envs.push(HatchEnv {
            name: env.clone(),
            installs_project: config.get("detached").and_then(toml::Value::as_bool) != Some(true),
            pytest: deps.iter().any(|r| is_pytest(r)),
            features: names("features"),
            groups: names("dependency-groups"),
            default_args: config.get("default-args").is_some(),
        });
        out.requirements.extend(deps);
        if !config.get("scripts").is_some_and(toml::Value::is_table) {
            continue;
        }
        let mut at: Vec<&str> = path.to_vec();
        at.extend([env.as_str(), "scripts"]);
        for name in keys_in_order(de, &at) {
            out.scripts.push((env.clone(), Script { name, doc: None }));
        }
    }
    out
}

/// Parses hatch.toml text: its `[envs.*]` dependencies, scripts and envs.
pub(crate) fn parse_hatch_toml(text: &str) -> Result<HatchEnvs, String> {
    let doc = toml::from_str::<toml::Table>(text)
        .map_err(|err| format!("invalid TOML: {}", err.message()))?;
    let spanned =
        toml::de::DeTable::parse(text).map_err(|err| format!("invalid TOML: {}", err.message()))?;
    Ok(doc
        .get("envs")
        .and_then(toml::Value::as_table)
        .map(|envs| hatch_envs(envs, spanned.get_ref(), &["envs"]))
        .unwrap_or_default())
}

/// A requirement's distribution name, normalised as PEP 503 says (lower case, each run of
/// `-`, `_` and `.` one `-`).
pub(crate) fn requirement_name(requirement: &str) -> Option<String> {
    let name: String = requirement
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        .collect();
    if name.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if matches!(c, '-' | '_' | '.') {
            if !out.ends_with('-') {
                out.push('-');
            }
        } else {
            out.push(c.to_ascii_lowercase());
        }
    }
    Some(out)
}

/// Whether a distribution name means pytest is installed: `pytest` itself, or a plugin
/// (`pytest-cov`, `pytest_asyncio`), which depends on it.
pub(crate) fn is_pytest(requirement: &str) -> bool {
    requirement_name(requirement).is_some_and(|n| n == "pytest" || n.starts_with("pytest-"))
}

/// The requirements of a requirements file (options, `-r` includes and comments skipped).
pub(crate) fn parse_requirements(text: &str) -> Vec<String> {
    text.lines()
        .map(|line| line.split(" #").next().unwrap_or("").trim())
        .filter(|line| !line.is_empty() && !line.starts_with(['#', '-']))
        .map(str::to_owned)
        .collect()
}

/// Whether INI text has a `[name]` section.
pub(crate) fn ini_has_section(text: &str, name: &str) -> bool {
    text.lines().any(|line| {
        line.trim()
            .strip_prefix('[')
            .and_then(|l| l.strip_suffix(']'))
            .is_some_and(|s| s.trim() == name)
    })
}

/// The requirements setup.cfg lists in `[options] install_requires` / `tests_require` and
/// `[options.extras_require]`.
pub(crate) fn parse_setup_cfg(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut section = String::new();
    let mut in_list = false;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with(['#', ';']) {
            continue;
        }
        if let Some(name) = trimmed.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = name.trim().to_owned();
            in_list = false;
            continue;
        }
        let continued = line.starts_with([' ', '\t']);
        let value = if continued {
            in_list.then_some(trimmed)
        } else {
            let (key, value) = trimmed.split_once(['=', ':']).unwrap_or((trimmed, ""));
            let key = key.trim();
            in_list = section == "options.extras_require"
                || (section == "options"
                    && matches!(key, "install_requires" | "tests_require" | "setup_requires"));
            in_list.then_some(value.trim())
        };
        if let Some(value) = value.filter(|v| !v.is_empty()) {
            out.extend(value.split(';').next().map(str::to_owned));
        }
    }
    out
}

/// The string literals of setup.py that read as requirements (setup.py is never run: its
/// `install_requires`, `tests_require` and `extras_require` are found by their strings).
pub(crate) fn parse_setup_py(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find(['"', '\'']) {
        let quote = &rest[start..=start];
        let after = &rest[start + 1..];
        let Some(end) = after.find(quote) else {
            break;
        };
        let literal = &after[..end];
        if !literal.contains('\n') {
            out.push(literal.to_owned());
        }
        rest = &after[end + 1..];
    }
    out
}

/// Whether a file name is one unittest's default pattern (`test*.py`) finds.
fn is_test_file(name: &str) -> bool {
    name.starts_with("test") && name.ends_with(".py")
}

/// The files that make a folder a Python project: its packaging files, or pytest's own
/// configuration (a project of scripts and tests has nothing else).
const MANIFESTS: &[&str] = &[
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "pytest.ini",
    ".pytest.ini",
    "pytest.toml",
    ".pytest.toml",
];

#[expect(
    clippy::too_many_lines,
    reason = "over 80 lines when the limit was set; split it when it next changes"
)]
fn detect(ctx: &Context<'_>) -> Result<Runner, Absence> {
    let root = ctx.root;
    for file in [
        "pyproject.toml",
        "setup.py",
        "setup.cfg",
        "hatch.toml",
        "tox.ini",
        "pytest.ini",
        ".pytest.ini",
        "pytest.toml",
        ".pytest.toml",
        "uv.lock",
        "poetry.lock",
        "pdm.lock",
        "conftest.py",
        "tests",
        "test",
        "requirements",
        ".venv",
        ".venv/bin",
        "venv",
        "venv/bin",
    ] {
        ctx.depends_on_file(file);
    }
    if !MANIFESTS.iter().any(|m| files::exists(&root.join(m))) {
        return Err(Absence::Absent(
            "no pyproject.toml, setup.py, setup.cfg or pytest.ini in the root".into(),
        ));
    }
    let inside = files::Root::new(root);
    let mut notes = Vec::new();
    let read = |name: &str, notes: &mut Vec<String>| read_manifest(&inside, root, name, notes);
    // pyproject.toml is the project's description: when it cannot be read, nothing said of
    // the project can be trusted.
    let pyproject = match files::exists(&root.join("pyproject.toml")) {
        true => {
            let bytes = inside
                .read(&root.join("pyproject.toml"), MAX_MANIFEST)
                .map_err(|err| Absence::Failed(format!("pyproject.toml: {err}")))?;
            let text = String::from_utf8_lossy(&bytes);
            parse_pyproject(&text)
                .map_err(|err| Absence::Failed(format!("pyproject.toml: {err}")))?
        }
        false => Pyproject::default(),
    };
    let mut requirements: Vec<(&str, String)> = pyproject
        .requirements
        .iter()
        .map(|r| ("pyproject.toml", r.clone()))
        .collect();
    // hatch.toml's envs, then pyproject's (the scripts of both are listed).
    let mut hatch: Vec<(&str, HatchEnvs)> = Vec::new();
    let hatch_toml = files::exists(&root.join("hatch.toml"));
    if let Some(text) = read("hatch.toml", &mut notes) {
        match parse_hatch_toml(&text) {
            Ok(envs) => {
                requirements.extend(envs.requirements.iter().map(|r| ("hatch.toml", r.clone())));
                hatch.push(("hatch.toml", envs));
            }
            Err(err) => notes.push(format!("hatch.toml: {err}")),
        }
    }
    if let Some(envs) = &pyproject.hatch {
        hatch.push(("pyproject.toml", envs.clone()));
    }
    let hatch_scripts: Vec<(String, Script)> = hatch
        .iter()
        .flat_map(|(_, envs)| envs.scripts.iter().cloned())
        .collect();
    let hatch_plan = HatchPlan::of(&hatch, &pyproject);

    // Where pytest is configured, or why it is the test runner.
    let mut pytest_why = pyproject.pytest_config.map(str::to_owned);
    if let Some(text) = read("setup.cfg", &mut notes) {
        if pytest_why.is_none() && ini_has_section(&text, "tool:pytest") {
            pytest_why = Some("`[tool:pytest]` in setup.cfg".into());
        }
        requirements.extend(parse_setup_cfg(&text).into_iter().map(|r| ("setup.cfg", r)));
    }
    let tox_ini = read("tox.ini", &mut notes);
    if let Some(text) = &tox_ini
        && pytest_why.is_none()
        && ini_has_section(text, "pytest")
    {
        pytest_why = Some("`[pytest]` in tox.ini".into());
    }
    for name in ["pytest.ini", ".pytest.ini", "pytest.toml", ".pytest.toml"] {
        if pytest_why.is_none() && files::exists(&root.join(name)) {
            pytest_why = Some(name.to_owned());
        }
    }
    for name in ["conftest.py", "tests/conftest.py", "test/conftest.py"] {
        ctx.depends_on_file(name);
        if pytest_why.is_none() && files::exists(&root.join(name)) {
            pytest_why = Some(name.to_owned());
        }
    }
    if pytest_why.is_none()
        && let Some((file, found)) = requirements.iter().find(|(_, r)| is_pytest(r))
    {
        pytest_why = Some(format!("`{}` in {file}", found.trim()));
    }
    if pytest_why.is_none()
        && let Some(text) = read("setup.py", &mut notes)
        && let Some(found) = parse_setup_py(&text).iter().find(|r| is_pytest(r))
    {
        pytest_why = Some(format!("`{found}` in setup.py"));
    }
    if pytest_why.is_none() {
        for (name, text) in requirements_files(ctx, &inside, &mut notes) {
            if let Some(found) = parse_requirements(&text).iter().find(|r| is_pytest(r)) {
                pytest_why = Some(format!("`{found}` in {name}"));
                break;
            }
        }
    }
    if pytest_why.is_none()
        && let Some(file) = hatch_plan.test_env
    {
        pytest_why = Some(format!("{file}: hatch's test environment runs pytest"));
    }
    if pytest_why.is_none()
        && let Some(text) = &tox_ini
    {
        match pytest_in_tox_ini(text) {
            Ok(found) => pytest_why = found,
            Err(err) => notes.push(format!("tox.ini: {err}")),
        }
    }
    if pytest_why.is_none() {
        pytest_why = pytest_test_file(ctx, &inside, &mut notes);
    }

    let hatch_project = hatch_toml || pyproject.hatch.is_some();
    let (launcher, launcher_why) = launcher(ctx, hatch_project, &mut notes)?;
    let mut runner = Runner::new("python", "Python", launcher.prefix().unwrap_or("python3"));
    runner.tail_rule = TailRule::NoLeadingDashDash;
    runner.notes.push(format!(
        "interpreter: {} ({launcher_why})",
        match &launcher {
            Launcher::Venv(dir) => format!("{dir}/bin/python"),
            Launcher::System { .. } => "python3 from PATH".into(),
            other => other.prefix().unwrap_or_default().to_owned(),
        }
    ));

    // The project's own tasks come first in the name check, so its `test` wins.
    let mut own: Vec<Task> = Vec::new();
    let has = |tool: &str, notes: &mut Vec<String>, what: &str| -> bool {
        if ctx.find_binary(tool).is_some() {
            return true;
        }
        notes.push(format!("{what} are left out: `{tool}` is not on PATH"));
        false
    };
    if !pyproject.poe.is_empty() && has("poe", &mut notes, "poe tasks") {
        for script in &pyproject.poe {
            if let Some(name) = nameable(&script.name, "poe task", &mut notes) {
                own.push(task(
                    name,
                    format!("poe {}", quote(name)),
                    script.doc.clone(),
                ));
            }
        }
    }
    if !pyproject.pdm.is_empty() && has("pdm", &mut notes, "pdm scripts") {
        for script in &pyproject.pdm {
            if let Some(name) = nameable(&script.name, "pdm script", &mut notes) {
                own.push(task(
                    name,
                    format!("pdm run -- {}", quote(name)),
                    script.doc.clone(),
                ));
            }
        }
    }
    if !hatch_scripts.is_empty() && has("hatch", &mut notes, "hatch scripts") {
        for (env, script) in &hatch_scripts {
            let Some(name) = nameable(&script.name, "hatch script", &mut notes) else {
                continue;
            };
            // hatch reads `ENV:NAME` (the last colon splits), and `+`/`-` first as a matrix
            // selection.
            if name.contains(':') || name.starts_with('+') {
                notes.push(format!(
                    "hatch script `{name}` is left out: hatch would read it as an environment or matrix selection"
                ));
                continue;
            }
            if env == "default" {
                own.push(task(name, format!("hatch run -- {}", quote(name)), None));
            } else if env.contains(':') || env.starts_with(['-', '+']) || env.is_empty() {
                notes.push(format!(
                    "hatch env `{env}` is left out: hatch cannot name it in `ENV:SCRIPT`"
                ));
            } else {
                own.push(task(
                    &format!("{env}/{name}"),
                    format!("hatch run -- {}", quote(&format!("{env}:{name}"))),
                    Some(format!("hatch env {env}")),
                ));
            }
        }
    }

    let own_test = own.iter().any(|t| t.name == "test");
    match test_task(ctx, &launcher, pytest_why.as_deref(), &hatch_plan) {
        Some(_) if own_test => runner.notes.push(
            "`test` is the project's own task; the built-in pytest/unittest `test` is not listed"
                .into(),
        ),
        Some((task, why)) => {
            runner.notes.push(format!("test: {why}"));
            runner.push_task(task);
        }
        None => runner.notes.push(
            "no `test`: no pytest configuration, conftest.py or pytest dependency, and no \
             test*.py file in the root, tests/ or test/"
                .into(),
        ),
    }
    for task in own {
        runner.push_task(task);
    }
    for name in &pyproject.entry_points {
        let Some(name) = nameable(name, "entry point", &mut notes) else {
            continue;
        };
        match launcher.entry_point(name) {
            Some(command) => {
                if let Launcher::Venv(dir) = launcher {
                    let path = format!("{dir}/bin/{name}");
                    ctx.depends_on_file(&path);
                    if !files::exists(&root.join(&path)) {
                        notes.push(format!(
                            "entry point `{name}` is left out: it is not installed in {dir}"
                        ));
                        continue;
                    }
                }
                runner.push_task(task(
                    &format!("run/{name}"),
                    command,
                    Some(format!("entry point {name}")),
                ));
            }
            None => notes.push(format!(
                "entry point `{name}` is left out: it exists only once the project is \
                 installed, and there is no lockfile or .venv to run it from"
            )),
        }
    }
    runner.notes.extend(notes);
    Ok(runner)
}

fn task(name: &str, command: String, doc: Option<String>) -> Task {
    Task {
        name: name.to_owned(),
        command,
        doc,
        params: Vec::new(),
        cwd: None,
    }
}

/// The name, unless the tool would read it as an option or keeps it private (`_name`, by
/// poe's and pdm's convention; left out without a note).
fn nameable<'a>(name: &'a str, what: &str, notes: &mut Vec<String>) -> Option<&'a str> {
    if name.starts_with('_') {
        return None;
    }
    if name.starts_with('-') {
        notes.push(format!(
            "{what} `{name}` is left out: the tool would read its name as an option"
        ));
        return None;
    }
    Some(name)
}

/// The tool that manages the project's environment, and why: a lockfile's tool when on
/// PATH, else hatch for a hatch project; `None` when neither is there.
fn managed_launcher(
    ctx: &Context<'_>,
    hatch_project: bool,
    notes: &mut Vec<String>,
) -> Option<(Launcher, String)> {
    let root = ctx.root;
    for (lock, tool, launcher) in [
        ("uv.lock", "uv", Launcher::Uv),
        ("poetry.lock", "poetry", Launcher::Poetry),
        ("pdm.lock", "pdm", Launcher::Pdm),
    ] {
        ctx.depends_on_file(lock);
        if files::is_regular_file(&root.join(lock)) {
            if ctx.find_binary(tool).is_some() {
                return Some((launcher, lock.to_owned()));
            }
            notes.push(format!("{lock} is there but `{tool}` is not on PATH"));
        }
    }
    if hatch_project {
        if ctx.find_binary("hatch").is_some() {
            return Some((
                Launcher::Hatch,
                "hatch environments in hatch.toml or `[tool.hatch.envs]`".into(),
            ));
        }
        notes.push("a hatch project, but `hatch` is not on PATH".into());
    }
    None
}

/// The launcher, and why: the tool managing the project's environment
/// ([`managed_launcher`]), else the project's venv, else the system's python3.
fn launcher(
    ctx: &Context<'_>,
    hatch_project: bool,
    notes: &mut Vec<String>,
) -> Result<(Launcher, String), Absence> {
    let root = ctx.root;
    if let Some(found) = managed_launcher(ctx, hatch_project, notes) {
        return Ok(found);
    }
    for dir in [".venv", "venv"] {
        let folder = root.join(dir);
        ctx.depends_on_file(format!("{dir}/bin/python"));
        // The root is the project's whatever it is; a folder in it must be a real one.
        match folder.symlink_metadata() {
            _ if dir.is_empty() => {}
            Ok(meta) if meta.file_type().is_symlink() => {
                notes.push(format!(
                    "{dir} is a symlink; it is not used as the project's environment"
                ));
            }
            // Its `bin/python` links to a system interpreter, as in every venv: only the
            // folder itself must be the project's.
            Ok(meta) if meta.is_dir() && !bin_is_link(&folder) => {
                if std::fs::metadata(folder.join("bin/python")).is_ok_and(|m| m.is_file()) {
                    return Ok((Launcher::Venv(dir), format!("the project's {dir}")));
                }
                notes.push(format!("{dir} has no bin/python; it is not used"));
            }
            Ok(_) => notes.push(format!(
                "{dir} is not a folder with a bin/ of its own; it is not used"
            )),
            Err(_) => {}
        }
    }
    let pytest = ctx.find_binary("pytest").is_some();
    // A src layout (`src/` a real folder) is importable only once installed.
    ctx.depends_on_file("src");
    let src = ctx
        .root
        .join("src")
        .symlink_metadata()
        .is_ok_and(|m| m.is_dir());
    if ctx.find_binary("python3").is_none() {
        return Err(Absence::Absent(
            "`python3` is not on PATH and the project has no lockfile or .venv".into(),
        ));
    }
    Ok((
        Launcher::System { pytest, src },
        match src {
            true => "no uv.lock, poetry.lock, pdm.lock, hatch environments or .venv; `src/` put \
                     on PYTHONPATH, since nothing installs the package"
                .into(),
            false => "no uv.lock, poetry.lock, pdm.lock, hatch environments or .venv".into(),
        },
    ))
}

/// The manifest `name` in `root`, read within the root and its bound; `None` when it is
/// not there, or with a note when it cannot be read.
fn read_manifest(
    inside: &files::Root,
    root: &Path,
    name: &str,
    notes: &mut Vec<String>,
) -> Option<String> {
    let path = root.join(name);
    if !files::exists(&path) {
        return None;
    }
    match inside.read(&path, MAX_MANIFEST) {
        Ok(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
        Err(err) => {
            notes.push(format!("{name}: {err}"));
            None
        }
    }
}

/// tox run through the tool that manages the project's environment, when that
/// environment provides tox: click and attrs name `tox` and `tox-uv` in a dev dependency
/// group, and their contributors run `uv run tox`, which also brings the plugin a bare
/// `tox` from PATH lacks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ToxLauncher {
    /// What goes before `tox` (`uv run`, `pdm run --`).
    pub prefix: &'static str,
    /// Why, for the runner's notes.
    pub why: String,
}

/// The launcher tox runs through, when the launcher the python runner would choose for
/// the project (a lockfile's tool on PATH, else hatch for a hatch project) installs tox
/// into the project's environment; notes say why not when a file cannot be read.
pub(crate) fn tox_launcher(ctx: &Context<'_>, notes: &mut Vec<String>) -> Option<ToxLauncher> {
    let inside = files::Root::new(ctx.root);
    let read = |name: &str, notes: &mut Vec<String>| {
        ctx.depends_on_file(name);
        read_manifest(&inside, ctx.root, name, notes)
    };
    let pyproject = read("pyproject.toml", notes);
    let hatch_toml = read("hatch.toml", notes);
    let pyproject = pyproject.as_deref().unwrap_or("");
    let hatch_project = hatch_toml.is_some()
        || toml::from_str::<toml::Table>(pyproject).is_ok_and(|doc| {
            doc.get("tool")
                .and_then(|t| t.get("hatch"))
                .and_then(|h| h.get("envs"))
                .is_some()
        });
    // Its notes (a lockfile without its tool) are the python runner's to give.
    let (launcher, lock) = managed_launcher(ctx, hatch_project, &mut Vec::new())?;
    let source = tox_source(pyproject, hatch_toml.as_deref(), &launcher)?;
    Some(ToxLauncher {
        prefix: launcher.prefix()?,
        why: format!(
            "tox runs through `{}`: the project's environment ({lock}) installs it ({source})",
            launcher.prefix()?
        ),
    })
}

/// Where the dependencies that `launcher` installs into the project's environment name
/// tox, as a table name; `None` when they do not (or the text is not TOML).
/// - uv installs `[tool.uv] dev-dependencies` and the groups of `[dependency-groups]` in
///   `[tool.uv] default-groups` (`dev` unless set; `"all"` for every group).
/// - pdm installs every group of `[tool.pdm.dev-dependencies]` and `[dependency-groups]`.
/// - poetry installs `[tool.poetry.dev-dependencies]` and each group of
///   `[tool.poetry.group]` not marked `optional = true`.
/// - hatch runs `hatch run` in its `default` env: its `dependencies`,
///   `extra-dependencies`, and the `[dependency-groups]` its `dependency-groups` names
///   (in `[tool.hatch.envs.default]` or hatch.toml's `[envs.default]`).
#[expect(
    clippy::too_many_lines,
    reason = "over 80 lines when the limit was set; split it when it next changes"
)]
pub(crate) fn tox_source(
    pyproject: &str,
    hatch_toml: Option<&str>,
    launcher: &Launcher,
) -> Option<String> {
    let doc: toml::Value = toml::from_str::<toml::Table>(pyproject)
        .map(toml::Value::Table)
        .ok()?;
    let is_tox = |r: &str| requirement_name(r).is_some_and(|n| n == "tox");
    let names_tox = |list: Option<&toml::Value>| strings(list).any(|r| is_tox(&r));
    let groups = table(&doc, &["dependency-groups"]);
    let group_names_tox = |group: &str| {
        groups
            .and_then(|g| {
                g.iter()
                    .find(|(name, _)| requirement_name(name) == requirement_name(group))
            })
            .is_some_and(|(_, list)| names_tox(Some(list)))
    };
    match launcher {
        Launcher::Uv => {
            let uv = table(&doc, &["tool", "uv"]);
            if names_tox(uv.and_then(|uv| uv.get("dev-dependencies"))) {
                return Some("`[tool.uv] dev-dependencies`".into());
            }
            let defaults = uv.and_then(|uv| uv.get("default-groups"));
            let all = defaults.and_then(toml::Value::as_str) == Some("all");
            let chosen: Vec<String> = match defaults {
                Some(list) if list.is_array() => strings(Some(list)).collect(),
                _ => vec!["dev".into()],
            };
            groups?
                .keys()
                .find(|g| {
                    (all || chosen
                        .iter()
                        .any(|c| requirement_name(c) == requirement_name(g)))
                        && group_names_tox(g)
                })
                .map(|g| format!("`[dependency-groups] {g}`"))
        }
        Launcher::Pdm => {
            // Measured (pdm 2.29): `pdm run -- tox` runs a pdm script named `tox` rather
            // than the program, so with one there is no way to reach tox through pdm.
            if table(&doc, &["tool", "pdm", "scripts"]).is_some_and(|s| s.contains_key("tox")) {
                return None;
            }
            if let Some((group, _)) = table(&doc, &["tool", "pdm", "dev-dependencies"])
                .into_iter()
                .flatten()
                .find(|(_, list)| names_tox(Some(list)))
            {
                return Some(format!("`[tool.pdm.dev-dependencies] {group}`"));
            }
            groups?
                .keys()
                .find(|g| group_names_tox(g))
                .map(|g| format!("`[dependency-groups] {g}`"))
        }
        Launcher::Poetry => {
            let poetry = table(&doc, &["tool", "poetry"])?;
            let keys_name_tox = |deps: Option<&toml::Value>| {
                deps.and_then(toml::Value::as_table)
                    .is_some_and(|d| d.keys().any(|k| is_tox(k)))
            };
            if keys_name_tox(poetry.get("dev-dependencies")) {
                return Some("`[tool.poetry.dev-dependencies]`".into());
            }
            poetry
                .get("group")
                .and_then(toml::Value::as_table)?
                .iter()
                .find(|(_, group)| {
                    group.get("optional").and_then(toml::Value::as_bool) != Some(true)
                        && keys_name_tox(group.get("dependencies"))
                })
                .map(|(name, _)| format!("`[tool.poetry.group.{name}.dependencies]`"))
        }
        Launcher::Hatch => {
            let hatch_doc = hatch_toml.and_then(|t| toml::from_str::<toml::Table>(t).ok());
            let from_hatch_toml = hatch_doc
                .as_ref()
                .and_then(|d| d.get("envs"))
                .and_then(|e| e.get("default"));
            let (file, env) = match from_hatch_toml {
                Some(env) => ("hatch.toml `[envs.default]`", env),
                None => (
                    "`[tool.hatch.envs.default]`",
                    doc.get("tool")?.get("hatch")?.get("envs")?.get("default")?,
                ),
            };
            if names_tox(env.get("dependencies")) || names_tox(env.get("extra-dependencies")) {
                return Some(file.into());
            }
            strings(env.get("dependency-groups"))
                .find(|g| group_names_tox(g))
                .map(|g| format!("{file}, through `[dependency-groups] {g}`"))
        }
        Launcher::Venv(_) | Launcher::System { .. } => None,
    }
}

/// Whether a venv's `bin` is a symlink (which could lead anywhere).
fn bin_is_link(folder: &Path) -> bool {
    folder
        .join("bin")
        .symlink_metadata()
        .map_or(true, |m| !m.is_dir())
}

/// The built-in `test` and why it is pytest, `hatch test` or unittest.
fn test_task(
    ctx: &Context<'_>,
    launcher: &Launcher,
    pytest_why: Option<&str>,
    hatch: &HatchPlan,
) -> Option<(Task, String)> {
    let doc = |what: &str| Some(format!("run the tests with {what}"));
    if *launcher == Launcher::Hatch {
        let hatch_test = |why: String| {
            let (command, folder) = hatch_test_command(ctx, hatch.default_args);
            let why = match folder {
                Some(folder) => format!(
                    "{why}; `{folder}` named, since without words it runs `tests`, which is \
                     not a folder here"
                ),
                None => why,
            };
            Some((
                task("test", command, doc("pytest in hatch's test environment")),
                why,
            ))
        };
        if let Some(table) = hatch.test_env {
            return hatch_test(format!("`hatch test` ({table})"));
        }
        if let Some(why) = pytest_why {
            return match hatch.pytest_env.as_deref() {
                Some("default") => Some((
                    task("test", launcher.pytest(), doc("pytest")),
                    format!("pytest in hatch's default environment ({why})"),
                )),
                Some(env) => Some((
                    task("test", format!("hatch run -- {env}:pytest"), doc("pytest")),
                    format!("pytest in hatch's `{env}` environment, which installs it ({why})"),
                )),
                None => hatch_test(format!(
                    "`hatch test`: pytest ({why}), and no hatch environment of the project \
                     installs it"
                )),
            };
        }
    }
    if let Some(why) = pytest_why {
        return Some((
            task("test", launcher.pytest(), doc("pytest")),
            format!("pytest ({why})"),
        ));
    }
    // unittest's discovery from `.` finds test*.py files in the root and in packages only
    // (Python 3.11: a tests/ folder without __init__.py is not entered), so a tests/ folder
    // becomes the start folder.
    let has_tests = |dir: &str| -> bool {
        let Ok(entries) = std::fs::read_dir(ctx.root.join(dir)) else {
            return false;
        };
        entries.flatten().take(10_000).any(|e| {
            e.file_type().is_ok_and(|t| t.is_file())
                && e.file_name().to_str().is_some_and(is_test_file)
        })
    };
    let start = ["tests", "test"].into_iter().find(|dir| has_tests(dir));
    if start.is_none() && !has_tests(".") {
        return None;
    }
    Some((
        task("test", launcher.unittest(start), doc("unittest")),
        format!(
            "unittest (test*.py files in {}; no pytest configuration or dependency)",
            start.map_or("the root".to_owned(), |s| format!("{s}/"))
        ),
    ))
}

/// `hatch test`, and the folder it is given when it needs one: without words it runs
/// pytest on the env's `default-args`, hatch's default being `tests`, so a project that
/// sets none and keeps its tests elsewhere names `test` (or `.`).
fn hatch_test_command(
    ctx: &Context<'_>,
    default_args: DefaultArgs,
) -> (String, Option<&'static str>) {
    let folder = |name: &str| ctx.root.join(name).is_dir();
    let named = match default_args {
        DefaultArgs::Configured => None,
        DefaultArgs::Hatch if folder("tests") => None,
        DefaultArgs::Hatch if folder("test") => Some("test"),
        DefaultArgs::Hatch => Some("."),
    };
    match named {
        Some(folder) => (format!("hatch test {folder}"), Some(folder)),
        None => ("hatch test".into(), None),
    }
}

/// What `hatch test` runs when no words follow it.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum DefaultArgs {
    /// hatch's default, `tests`.
    #[default]
    Hatch,
    /// The `hatch-test` env's own `default-args`.
    Configured,
}

/// How a hatch project runs its tests, from the envs of hatch.toml and pyproject.toml.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct HatchPlan {
    /// Where hatch's own test environment, `hatch-test`, is configured, if it is.
    test_env: Option<&'static str>,
    /// What `hatch test` runs without words.
    default_args: DefaultArgs,
    /// The env `hatch run` finds pytest in: `default` when it installs pytest, else the
    /// first other env (in the files' order) that installs the project and pytest.
    pytest_env: Option<String>,
}

impl HatchPlan {
    /// The plan of the envs of each file (hatch.toml's first); `pyproject` gives the extras
    /// and dependency groups that an env's `features` and `dependency-groups` install.
    fn of(files: &[(&str, HatchEnvs)], pyproject: &Pyproject) -> Self {
        let mut plan = Self::default();
        let envs = || {
            files
                .iter()
                .flat_map(|(file, e)| e.envs.iter().map(move |env| (*file, env)))
        };
        for (file, env) in envs().filter(|(_, env)| env.name == "hatch-test") {
            plan.test_env.get_or_insert(match file {
                "hatch.toml" => "`[envs.hatch-test]` in hatch.toml",
                _ => "`[tool.hatch.envs.hatch-test]` in pyproject.toml",
            });
            if env.default_args {
                plan.default_args = DefaultArgs::Configured;
            }
        }
        let installs_pytest = |env: &HatchEnv| {
            env.installs_project
                && (env.pytest
                    || env
                        .features
                        .iter()
                        .any(|f| pyproject.pytest_extras.contains(f))
                    || env
                        .groups
                        .iter()
                        .any(|g| pyproject.pytest_groups.contains(g)))
        };
        // hatch's own envs (`hatch-test`, `hatch-static-analysis`) are not the project's,
        // and a name hatch cannot take in `ENV:pytest` is passed over.
        let usable = |name: &str| {
            !name.starts_with(['-', '+'])
                && !name.starts_with("hatch-")
                && !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        };
        plan.pytest_env = envs()
            .map(|(_, env)| env)
            .filter(|env| env.name == "default")
            .chain(
                envs()
                    .map(|(_, env)| env)
                    .filter(|env| env.name != "default"),
            )
            .find(|env| usable(&env.name) && installs_pytest(env))
            .map(|env| env.name.clone());
        plan
    }
}

/// Where tox.ini's envs install or run pytest, read with the tox runner's own reader: a
/// `deps` line naming pytest or a plugin, or a `commands` line that runs it, in any
/// testenv (comments are not read; a `{[base]deps}` reference is followed).
pub(crate) fn pytest_in_tox_ini(text: &str) -> Result<Option<String>, String> {
    for line in crate::tox::testenv_lines(text, &["commands", "deps"])? {
        let found = match line.key.as_str() {
            "deps" => {
                let dep = line.text.trim();
                (!dep.starts_with('-') && is_pytest(dep)).then(|| requirement_name(dep))
            }
            _ => runs_pytest(&line.text).then(|| Some("pytest".to_owned())),
        };
        if let Some(Some(name)) = found {
            return Ok(Some(format!(
                "`{}` in the `{}` of `[{}]` in tox.ini",
                crate::tox::shorten(&name),
                line.key,
                crate::tox::shorten(&line.section)
            )));
        }
    }
    Ok(None)
}

/// Whether a command line runs pytest: `pytest` or `py.test` as a word (a path ending in
/// either, as `{envbindir}/pytest`, counts), or the module `-m pytest`.
fn runs_pytest(command: &str) -> bool {
    let words: Vec<&str> = command
        .split_whitespace()
        .map(|w| w.trim_matches(['"', '\'']))
        .collect();
    let is_pytest = |word: &str| matches!(word, "pytest" | "py.test");
    words.iter().enumerate().any(|(i, word)| {
        // tox runs `-pytest` as `pytest`, ignoring its exit status.
        let word = if i == 0 {
            word.trim_start_matches('-')
        } else {
            word
        };
        is_pytest(word.rsplit('/').next().unwrap_or(word))
            || word.strip_prefix("-m").is_some_and(is_pytest)
            || (word == "-m" && words.get(i + 1).is_some_and(|next| is_pytest(next)))
    })
}

/// Why a test file's text needs pytest, if it does: a test function at module level (`def
/// test…` at the start of a line, which unittest never collects), a test class without a
/// base (`class TestX:`), or an import of pytest. A file of `unittest.TestCase` classes
/// gives `None`. `def test_suite()` is the old setuptools and zope hook that builds a
/// unittest suite, not a test.
pub(crate) fn pytest_shape(text: &str) -> Option<&'static str> {
    let identifier = |rest: &str| -> usize {
        rest.find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len())
    };
    for line in text.lines() {
        let code = line.trim_start();
        let import = code
            .strip_prefix("import pytest")
            .or_else(|| code.strip_prefix("from pytest"));
        if import
            .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t', ',', '.', ';']))
        {
            return Some("imports pytest");
        }
        if code.len() != line.len() {
            continue;
        }
        if let Some(rest) = code
            .strip_prefix("async ")
            .unwrap_or(code)
            .strip_prefix("def ")
        {
            let rest = rest.trim_start();
            let name = &rest[..identifier(rest)];
            if name.starts_with("test") && name != "test_suite" {
                return Some("a test function at module level");
            }
        }
        if let Some(rest) = code.strip_prefix("class ") {
            let rest = rest.trim_start();
            let name = &rest[..identifier(rest)];
            let bases = rest[name.len()..].trim_start();
            if name.starts_with("Test")
                && [":", "():", "(object):"]
                    .iter()
                    .any(|b| bases.replace(' ', "").starts_with(b))
            {
                return Some("a test class without a base");
            }
        }
    }
    None
}

/// The most test files [`pytest_test_file`] reads.
const MAX_TEST_FILES: usize = 16;

/// The most bytes read of one test file: its imports and first tests come first.
const MAX_TEST_FILE_BYTES: u64 = 64 << 10;

/// Why the project's test files need pytest (see [`pytest_shape`]), from the first
/// [`MAX_TEST_FILES`] of tests/, test/ and the root (`test*.py`, unittest's pattern, and
/// pytest's `*_test.py`; sorted in each folder), [`MAX_TEST_FILE_BYTES`] of each. A
/// symlinked folder is not entered and a symlinked file is read only when it resolves
/// inside the root; a FIFO or device is never opened for reading. Each file read is an
/// input, so editing one is seen.
fn pytest_test_file(
    ctx: &Context<'_>,
    inside: &files::Root,
    notes: &mut Vec<String>,
) -> Option<String> {
    let mut names = Vec::new();
    for dir in ["tests", "test", ""] {
        let folder = ctx.root.join(dir);
        // The root is the project's whatever it is; a folder in it must be a real one.
        match folder.symlink_metadata() {
            _ if dir.is_empty() => {}
            Ok(meta) if meta.file_type().is_symlink() => {
                notes.push(format!(
                    "{dir} is a symlink; its test files are not read for their shape"
                ));
                continue;
            }
            Ok(meta) if meta.is_dir() => {}
            _ => continue,
        }
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        let mut found: Vec<String> = entries
            .flatten()
            .take(10_000)
            .filter(|e| e.file_type().is_ok_and(|t| !t.is_dir()))
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| is_test_file(n) || n.ends_with("_test.py"))
            .map(|n| {
                if dir.is_empty() {
                    n
                } else {
                    format!("{dir}/{n}")
                }
            })
            .collect();
        found.sort();
        names.extend(found);
        if names.len() >= MAX_TEST_FILES {
            break;
        }
    }
    names.truncate(MAX_TEST_FILES);
    for name in names {
        ctx.depends_on_file(&name);
        match inside.read_walked_prefix(&ctx.root.join(&name), MAX_TEST_FILE_BYTES) {
            Ok(bytes) => {
                if let Some(why) = pytest_shape(&String::from_utf8_lossy(&bytes)) {
                    return Some(format!("{why} in {name}"));
                }
            }
            Err(err) => notes.push(format!("{name}: {err}")),
        }
    }
    None
}

/// The requirements files read, with their text: `requirements*.txt`,
/// `test-requirements.txt` and `dev-requirements.txt` in the root, `requirements/*.txt`,
/// `tests/requirements*.txt`; at most [`MAX_REQUIREMENTS_FILES`], in sorted order.
fn requirements_files(
    ctx: &Context<'_>,
    inside: &files::Root,
    notes: &mut Vec<String>,
) -> Vec<(String, String)> {
    let mut names = Vec::new();
    for (dir, wanted) in [
        (
            "",
            (|n: &str| {
                (n.starts_with("requirements") && n.ends_with(".txt"))
                    || n == "test-requirements.txt"
                    || n == "dev-requirements.txt"
            }) as fn(&str) -> bool,
        ),
        ("requirements", |n: &str| n.ends_with(".txt")),
        ("tests", |n: &str| {
            n.starts_with("requirements") && n.ends_with(".txt")
        }),
    ] {
        let folder = ctx.root.join(dir);
        // A symlinked folder is not entered: it could lead out of the root.
        if !dir.is_empty() && folder.symlink_metadata().is_ok_and(|m| !m.is_dir()) {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        let mut found: Vec<String> = entries
            .flatten()
            .take(10_000)
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| wanted(n))
            .map(|n| {
                if dir.is_empty() {
                    n
                } else {
                    format!("{dir}/{n}")
                }
            })
            .collect();
        found.sort();
        names.extend(found);
    }
    if names.len() > MAX_REQUIREMENTS_FILES {
        notes.push(format!(
            "{} requirements files; only the first {MAX_REQUIREMENTS_FILES} are read",
            names.len()
        ));
        names.truncate(MAX_REQUIREMENTS_FILES);
    }
    let mut out = Vec::new();
    for name in names {
        ctx.depends_on_file(&name);
        match inside.read(&ctx.root.join(&name), MAX_MANIFEST) {
            Ok(bytes) => out.push((name, String::from_utf8_lossy(&bytes).into_owned())),
            Err(err) => notes.push(format!("{name}: {err}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Measured with pdm 2.29: `pdm run release` runs `pre_release`, `release` and
    /// `post_release` (after pdm's own `pre_run`); `pdm run pre_release` runs that alone.
    /// A `pre_deploy` with no `deploy` script and a `prerelease` (no underscore) run only
    /// when named: they are tasks like any other.
    #[test]
    fn pdm_hooks_are_asides() {
        let mut runner = Runner::new("python", "Python", "pdm run --");
        for name in [
            "pre_release",
            "release",
            "post_release",
            "post_install",
            "prerelease",
            "pre_deploy",
            "pre_",
        ] {
            runner.push_task(task(name, format!("pdm run -- {}", quote(name)), None));
        }
        // A poe task of a hook's shape is poe's, and poe runs no hooks.
        runner.push_task(task("pre_lint", "poe pre_lint".into(), None));
        runner.push_task(task("lint", "poe lint".into(), None));
        let asides: Vec<&str> = runner
            .tasks
            .iter()
            .filter(|t| runner.is_aside(t))
            .map(|t| t.name.as_str())
            .collect();
        assert_eq!(asides, ["pre_release", "post_release", "post_install"]);
    }

    /// Property: tox runs through the launcher only when what that launcher installs
    /// names tox itself (not `tox-uv` alone, not a group it leaves out).
    #[test]
    #[expect(
        clippy::too_many_lines,
        reason = "over 80 lines when the limit was set; split it when it next changes"
    )]
    fn tox_in_the_launchers_environment() {
        #[track_caller]
        fn case(pyproject: &str, hatch_toml: Option<&str>, launcher: Launcher, want: Option<&str>) {
            assert_eq!(
                tox_source(pyproject, hatch_toml, &launcher).as_deref(),
                want,
                "{pyproject}"
            );
        }
        // Shaped like click: tox and tox-uv in the `dev` group uv installs by default.
        let click = "[dependency-groups]\ndev = [\"ruff\", \"tox\", \"tox-uv\"]\ntests = [\"pytest\"]\n\n[tool.uv]\ndefault-groups = [\"dev\", \"tests\"]\n";
        case(click, None, Launcher::Uv, Some("`[dependency-groups] dev`"));
        case(
            "[dependency-groups]\ndev = [\"tox>=4\"]\n",
            None,
            Launcher::Uv,
            Some("`[dependency-groups] dev`"),
        );
        case(
            "[dependency-groups]\ncheck = [\"tox\"]\n",
            None,
            Launcher::Uv,
            None,
        );
        case(
            "[dependency-groups]\ncheck = [\"tox\"]\n[tool.uv]\ndefault-groups = \"all\"\n",
            None,
            Launcher::Uv,
            Some("`[dependency-groups] check`"),
        );
        case(
            "[tool.uv]\ndev-dependencies = [\"Tox[testing] ; python_version>'3.9'\"]\n",
            None,
            Launcher::Uv,
            Some("`[tool.uv] dev-dependencies`"),
        );
        case(
            "[dependency-groups]\ndev = [\"tox-uv\"]\n",
            None,
            Launcher::Uv,
            None,
        );
        case(
            "[tool.pdm.dev-dependencies]\ntest = [\"tox\"]\n",
            None,
            Launcher::Pdm,
            Some("`[tool.pdm.dev-dependencies] test`"),
        );
        case(
            "[tool.pdm.dev-dependencies]\ntest = [\"tox\"]\n[tool.pdm.scripts]\ntox = \"tox -p\"\n",
            None,
            Launcher::Pdm,
            None,
        );
        case(
            "[dependency-groups]\nlint = [\"tox\"]\n",
            None,
            Launcher::Pdm,
            Some("`[dependency-groups] lint`"),
        );
        case(
            "[tool.poetry.group.dev.dependencies]\ntox = \"^4\"\n",
            None,
            Launcher::Poetry,
            Some("`[tool.poetry.group.dev.dependencies]`"),
        );
        case(
            "[tool.poetry.group.dev]\noptional = true\n[tool.poetry.group.dev.dependencies]\ntox = \"^4\"\n",
            None,
            Launcher::Poetry,
            None,
        );
        case(
            "[tool.hatch.envs.default]\ndependencies = [\"tox\"]\n",
            None,
            Launcher::Hatch,
            Some("`[tool.hatch.envs.default]`"),
        );
        case(
            "[dependency-groups]\ndev = [\"tox\"]\n",
            Some("[envs.default]\ndependency-groups = [\"dev\"]\n"),
            Launcher::Hatch,
            Some("hatch.toml `[envs.default]`, through `[dependency-groups] dev`"),
        );
        case(
            "[tool.hatch.envs.lint]\ndependencies = [\"tox\"]\n",
            None,
            Launcher::Hatch,
            None,
        );
        case(click, None, Launcher::Venv(".venv"), None);
        case("not toml [", None, Launcher::Uv, None);
    }

    #[test]
    fn names_are_normalised_and_pytest_is_the_distribution() {
        assert_eq!(requirement_name("PyTest>=8").as_deref(), Some("pytest"));
        assert_eq!(
            requirement_name("  Foo_Bar.baz [x]").as_deref(),
            Some("foo-bar-baz")
        );
        assert!(is_pytest("pytest"));
        assert!(is_pytest("Pytest==8.0; python_version>'3'"));
        assert!(is_pytest("pytest_cov"));
        assert!(is_pytest("pytest-cov>=4"));
        assert!(!is_pytest("pytestify"));
        assert!(!is_pytest("mypytest"));
        assert!(!is_pytest("py"));
        assert!(!is_pytest(""));
    }

    #[test]
    fn requirements_files_skip_options_and_comments() {
        let text =
            "# tests\n-r base.txt\n--index-url x\npytest>=7  # runner\n\n  hypothesis\n-e .\n";
        assert_eq!(parse_requirements(text), ["pytest>=7", "hypothesis"]);
    }

    #[test]
    fn setup_cfg_lists_and_sections() {
        let text = "[metadata]\nname = x\n[options]\ninstall_requires =\n    attrs\ntests_require = pytest\nzip_safe = False\n[options.extras_require]\ntest =\n    pytest-cov\n[tool:pytest]\naddopts = -q\n";
        assert_eq!(parse_setup_cfg(text), ["attrs", "pytest", "pytest-cov"]);
        assert!(ini_has_section(text, "tool:pytest"));
        assert!(!ini_has_section(text, "pytest"));
    }

    #[test]
    fn setup_py_strings() {
        let text =
            "setup(name='x', tests_require=[\"pytest>=6\"], extras_require={'dev': ['tox']})";
        let got = parse_setup_py(text);
        assert!(got.iter().any(|r| is_pytest(r)), "{got:?}");
        assert!(
            !parse_setup_py("setup(name='mypytest')")
                .iter()
                .any(|r| is_pytest(r))
        );
    }

    #[test]
    fn pyproject_tables() {
        let text = r#"
[project]
name = "p"
dependencies = ["attrs"]
optional-dependencies = { test = ["pytest-xdist"] }
scripts = { p-cli = "p:main" }
[dependency-groups]
dev = ["ruff", { include-group = "test" }]
[tool.poetry.group.lint.dependencies]
mypy = "*"
[tool.pdm.dev-dependencies]
doc = ["sphinx"]
[tool.uv]
dev-dependencies = ["coverage"]
[tool.pytest.ini_options]
addopts = "-q"
[tool.poe.tasks]
fmt = "ruff format"
lint = { cmd = "ruff check", help = "check  the\n code" }
_private = "echo"
[tool.pdm.scripts]
serve = { cmd = "python -m p", help = "serve it" }
[tool.hatch.envs.default.scripts]
cov = "pytest --cov"
[tool.hatch.envs.lint]
dependencies = ["black"]
[tool.hatch.envs.lint.scripts]
style = ["black --check ."]
"#;
        let got = parse_pyproject(text).expect("valid");
        assert_eq!(
            got.requirements,
            [
                "attrs",
                "pytest-xdist",
                "ruff",
                "mypy",
                "sphinx",
                "coverage",
                "black"
            ]
        );
        assert_eq!(
            got.pytest_config,
            Some("`[tool.pytest.ini_options]` in pyproject.toml")
        );
        let names = |s: &[Script]| s.iter().map(|s| s.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(&got.poe), ["fmt", "lint", "_private"]);
        assert_eq!(got.poe[1].doc.as_deref(), Some("check the code"));
        assert_eq!(names(&got.pdm), ["serve"]);
        let envs = got.hatch.as_ref().expect("hatch envs");
        let hatch: Vec<(&str, &str)> = envs
            .scripts
            .iter()
            .map(|(e, s)| (e.as_str(), s.name.as_str()))
            .collect();
        assert_eq!(hatch, [("default", "cov"), ("lint", "style")]);
        assert_eq!(got.pytest_extras, ["test"]);
        assert_eq!(got.pytest_groups, Vec::<String>::new());
        assert_eq!(
            parse_pyproject("[project]\nname = 'x'\n")
                .expect("valid")
                .hatch,
            None
        );
        assert_eq!(got.entry_points, ["p-cli"]);
        assert!(parse_pyproject("[project").is_err());
    }

    #[test]
    #[expect(
        clippy::too_many_lines,
        reason = "over 80 lines when the limit was set; split it when it next changes"
    )]
    fn launcher_commands() {
        let cases = [
            (
                Launcher::Uv,
                "uv run pytest",
                "uv run python -m unittest discover -s tests",
            ),
            (
                Launcher::Poetry,
                "poetry run -- pytest",
                "poetry run -- python -m unittest discover -s tests",
            ),
            (
                Launcher::Pdm,
                "pdm run -- pytest",
                "pdm run -- python -m unittest discover -s tests",
            ),
            (
                Launcher::Hatch,
                "hatch run -- pytest",
                "hatch run -- python -m unittest discover -s tests",
            ),
            (
                Launcher::Venv(".venv"),
                ".venv/bin/python -m pytest",
                ".venv/bin/python -m unittest discover -s tests",
            ),
            (
                Launcher::System {
                    pytest: true,
                    src: false,
                },
                "pytest",
                "python3 -m unittest discover -s tests",
            ),
            (
                Launcher::System {
                    pytest: false,
                    src: false,
                },
                "python3 -m pytest",
                "python3 -m unittest discover -s tests",
            ),
        ];
        for (launcher, pytest, unittest) in cases {
            assert_eq!(launcher.pytest(), pytest);
            assert_eq!(launcher.unittest(Some("tests")), unittest);
            let test = task("test", launcher.pytest(), None);
            assert!(is_builtin(&test), "{pytest}");
            assert_eq!(arguments_of(&test), Arguments::AfterDashDash, "{pytest}");
            let test = task("test", launcher.unittest(None), None);
            assert!(is_builtin(&test), "{unittest}");
            assert_eq!(arguments_of(&test), Arguments::Exact, "{unittest}");
        }
        assert_eq!(
            Launcher::System {
                pytest: true,
                src: false
            }
            .unittest(None),
            "python3 -m unittest discover"
        );
        assert_eq!(
            Launcher::Venv("venv").entry_point("a b").as_deref(),
            Some("venv/bin/'a b'")
        );
        assert_eq!(
            Launcher::System {
                pytest: true,
                src: false
            }
            .entry_point("x"),
            None
        );
        assert!(!is_builtin(&task("test", "poe test".into(), None)));
        assert_eq!(
            arguments_of(&task("lint", "poe lint".into(), None)),
            Arguments::WithArguments
        );
        assert_eq!(
            arguments_of(&task("x", "pdm run -- x".into(), None)),
            Arguments::WithArguments
        );
        assert_eq!(
            arguments_of(&task("x", "hatch run -- x".into(), None)),
            Arguments::Exact
        );
    }

    fn arguments_of(task: &Task) -> Arguments {
        arguments(&Runner::new("python", "Python", "x"), task)
    }

    #[test]
    fn a_src_layout_without_an_environment_is_put_on_the_path() {
        let src = Launcher::System {
            pytest: true,
            src: true,
        };
        assert_eq!(src.pytest(), "env PYTHONPATH=src pytest");
        assert_eq!(
            src.unittest(Some("tests")),
            "env PYTHONPATH=src python3 -m unittest discover -s tests"
        );
        let no_pytest = Launcher::System {
            pytest: false,
            src: true,
        };
        assert_eq!(no_pytest.pytest(), "env PYTHONPATH=src python3 -m pytest");
        // An environment installs the package itself.
        assert_eq!(
            Launcher::Venv(".venv").pytest(),
            ".venv/bin/python -m pytest"
        );
    }

    #[test]
    fn test_files_only_pytest_runs_are_told_by_their_shape() {
        #[track_caller]
        fn case(text: &str, want: Option<&str>) {
            assert_eq!(pytest_shape(text), want, "{text:?}");
        }
        let test_function = Some("a test function at module level");
        let imports = Some("imports pytest");
        let class = Some("a test class without a base");
        case(
            "from tabulate import tabulate\n\n\ndef test_plain():\n    pass\n",
            test_function,
        );
        case("async def test_fetch():\n    pass\n", test_function);
        case("def testOutput():\n    pass\n", test_function);
        case("import pytest\n", imports);
        case("import pytest as pt\n", imports);
        case("from pytest import raises\n", imports);
        case(
            "try:\n    import pytest\nexcept ImportError:\n    pass\n",
            imports,
        );
        case(
            "class TestOutput:\n    def test_x(self):\n        pass\n",
            class,
        );
        case("class TestOutput(object):\n    pass\n", class);
        case("class TestOutput():\n    pass\n", class);
        // unittest's own shapes.
        case(
            "import unittest\n\n\nclass OutputTest(unittest.TestCase):\n    def test_x(self):\n        pass\n",
            None,
        );
        case(
            "from unittest import TestCase\n\nclass TestOutput(TestCase):\n    def test_x(self):\n        pass\n",
            None,
        );
        case(
            "import unittest\n\ndef test_suite():\n    return unittest.TestSuite()\n",
            None,
        );
        // Not a test function, not module level, not pytest.
        case("def helper():\n    pass\n", None);
        case(
            "class Case(unittest.TestCase):\n    def test_x(self):\n        pass\n",
            None,
        );
        case("import pytestify\nimport unittest\n", None);
        case("", None);
    }

    #[test]
    fn tox_ini_names_pytest_in_its_commands_or_deps() {
        #[track_caller]
        fn case(text: &str, want: Option<&str>) {
            assert_eq!(
                pytest_in_tox_ini(text).expect("valid").as_deref(),
                want,
                "{text:?}"
            );
        }
        // python-tabulate's shape: `deps` and `commands` of `[testenv]`.
        case(
            "[tox]\nenvlist = lint, py{38,39,310}\n\n[testenv]\ncommands = pytest -v --doctest-modules --ignore benchmark {posargs}\ndeps =\n    pytest\n",
            Some("`pytest` in the `commands` of `[testenv]` in tox.ini"),
        );
        case(
            "[testenv:py311-extra]\ndeps =\n    py311: pytest-cov\ncommands = {envpython} run_tests.py\n",
            Some("`pytest-cov` in the `deps` of `[testenv:py311-extra]` in tox.ini"),
        );
        for command in [
            "python -m pytest {posargs}",
            "{envpython} -m pytest",
            "{envbindir}/py.test tests",
            "- pytest",
            "-pytest",
            "python -mpytest",
            "\"pytest\" -x",
        ] {
            case(
                &format!("[testenv:t]\ncommands = {command}\n"),
                Some("`pytest` in the `commands` of `[testenv:t]` in tox.ini"),
            );
        }
        case(
            "[base]\ndeps = pytest>=7\n[testenv]\ndeps = {[base]deps}\ncommands = python run.py\n",
            Some("`pytest` in the `deps` of `[base]` in tox.ini"),
        );
        // Controls: comments, descriptions, other sections and other programs.
        case(
            "[testenv]\ncommands = python -m unittest discover -s tests\n\n[testenv:docs]\n# pytest is not needed to build the docs\ndescription = docs (no pytest)\ndeps = sphinx  # not pytest\ncommands = sphinx-build docs out\n",
            None,
        );
        case(
            "[testenv]\ndeps =\n    -r requirements.txt\n    pytestify\ncommands = python -c \"print('pytest')\"\n[pytest-plugins]\ndeps = pytest\n",
            None,
        );
        assert!(pytest_in_tox_ini("[testenv]\ndeps = a\ndeps = b\n").is_err());
    }

    fn hatch_plan(pyproject: &str, hatch_toml: Option<&str>) -> HatchPlan {
        let pyproject = parse_pyproject(pyproject).expect("pyproject");
        let mut files = Vec::new();
        if let Some(text) = hatch_toml {
            files.push(("hatch.toml", parse_hatch_toml(text).expect("hatch.toml")));
        }
        if let Some(envs) = &pyproject.hatch {
            files.push(("pyproject.toml", envs.clone()));
        }
        HatchPlan::of(&files, &pyproject)
    }

    #[test]
    fn hatch_test_env_and_the_env_that_installs_pytest() {
        #[track_caller]
        fn case(pyproject: &str, hatch_toml: Option<&str>, want: HatchPlan) {
            assert_eq!(hatch_plan(pyproject, hatch_toml), want, "{pyproject}");
        }
        let plan = |test_env, default_args, pytest_env: Option<&str>| HatchPlan {
            test_env,
            default_args,
            pytest_env: pytest_env.map(str::to_owned),
        };
        let in_pyproject = Some("`[tool.hatch.envs.hatch-test]` in pyproject.toml");
        // pypa/hatch's shape: a matrix of hatch-test, a default env without pytest.
        case(
            "[tool.hatch.envs.default]\ndependencies = [\"httpx\"]\n[tool.hatch.envs.hatch-test]\nextra-dependencies = [\"pyfakefs\"]\n[[tool.hatch.envs.hatch-test.matrix]]\npython = [\"3.11\", \"3.12\"]\n",
            None,
            plan(in_pyproject, DefaultArgs::Hatch, None),
        );
        case(
            "[tool.hatch.envs.hatch-test]\ndefault-args = [\"src/pkg/tests\"]\n",
            None,
            plan(in_pyproject, DefaultArgs::Configured, None),
        );
        case(
            "[project]\nname = 'x'\n",
            Some(
                "[envs.hatch-test]\nrandomize = true\n[envs.default]\ndependencies = [\"pytest\"]\n",
            ),
            plan(
                Some("`[envs.hatch-test]` in hatch.toml"),
                DefaultArgs::Hatch,
                Some("default"),
            ),
        );
        // The default env is asked first, then the others in order; a detached env does
        // not install the project.
        case(
            "[tool.hatch.envs.lint]\ndetached = true\ndependencies = [\"pytest\"]\n[tool.hatch.envs.tests]\ndependencies = [\"pytest-cov\"]\n[tool.hatch.envs.default]\ndependencies = [\"pytest\"]\n",
            None,
            plan(None, DefaultArgs::Hatch, Some("default")),
        );
        case(
            "[tool.hatch.envs.lint]\ndetached = true\ndependencies = [\"pytest\"]\n[tool.hatch.envs.tests]\ndependencies = [\"pytest-cov\"]\n",
            None,
            plan(None, DefaultArgs::Hatch, Some("tests")),
        );
        // Through an extra or a dependency group of the project.
        case(
            "[project]\nname = 'x'\noptional-dependencies = { Test = [\"pytest\"] }\n[tool.hatch.envs.default]\nfeatures = [\"test\"]\n",
            None,
            plan(None, DefaultArgs::Hatch, Some("default")),
        );
        case(
            "[dependency-groups]\ndev = [\"pytest\"]\n[tool.hatch.envs.ci]\ndependency-groups = [\"dev\"]\n",
            None,
            plan(None, DefaultArgs::Hatch, Some("ci")),
        );
        // A hatch project whose envs do not install pytest, and names hatch cannot take.
        case(
            "[tool.hatch.envs.default]\ndependencies = [\"httpx\"]\n[tool.hatch.envs.\"a:b\"]\ndependencies = [\"pytest\"]\n[tool.hatch.envs.hatch-static-analysis]\ndependencies = [\"pytest\"]\n",
            None,
            plan(None, DefaultArgs::Hatch, None),
        );
    }

    #[test]
    fn hatch_test_is_the_built_in_test_and_takes_no_words() {
        for command in ["hatch test", "hatch test test", "hatch test ."] {
            let test = task("test", command.into(), None);
            assert!(is_builtin(&test), "{command}");
            assert_eq!(arguments_of(&test), Arguments::Exact, "{command}");
        }
        let in_env = task("test", "hatch run -- tests:pytest".into(), None);
        assert!(is_builtin(&in_env));
        assert_eq!(arguments_of(&in_env), Arguments::AfterDashDash);
        assert!(!is_builtin(&task("test", "hatch run -- test".into(), None)));
        assert!(!is_builtin(&task("lint", "hatch test".into(), None)));
    }
}
