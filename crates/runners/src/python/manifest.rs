//! The project's files read as text: pyproject.toml (its dependency lists, pytest's
//! table, poe's and pdm's tasks, hatch's envs, entry points), hatch.toml, setup.cfg,
//! setup.py's strings and requirements files, with PEP 503's names.

use std::path::Path;

use crate::detection::Context;
use crate::files::{self, MAX_MANIFEST};
use crate::subprojects::Inside;

use super::MAX_REQUIREMENTS_FILES;

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
    /// When nothing `uv run` installs names pytest (the project's dependencies, its default
    /// dependency groups, `[tool.uv] dev-dependencies`) but an extra or another group does:
    /// that one, as uv's option that installs it (`--group test`, `--extra test`).
    pub pytest_outside_uv_run: Option<String>,
    /// The same for `poetry run`, as the `poetry install` option that installs it
    /// (`--with test`, `--extras test`).
    pub pytest_outside_poetry_run: Option<String>,
    /// The same for `pdm run`, as the `pdm install` option that installs it (`-G test`).
    pub pytest_outside_pdm_run: Option<String>,
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

pub(super) fn table<'a>(value: &'a toml::Value, path: &[&str]) -> Option<&'a toml::Table> {
    let mut value = value;
    for key in path {
        value = value.get(key)?;
    }
    value.as_table()
}

pub(super) fn strings(value: Option<&toml::Value>) -> impl Iterator<Item = String> + '_ {
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
    out.pytest_outside_uv_run = pytest_outside_uv_run(&doc, &out);
    out.pytest_outside_poetry_run = pytest_outside_poetry_run(&doc);
    out.pytest_outside_pdm_run = pytest_outside_pdm_run(&doc, &out);
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

/// The group or extra that names pytest when nothing `uv run` installs by default does
/// ([`Pyproject::pytest_outside_uv_run`]). uv installs the project's dependencies, the groups
/// `[tool.uv] default-groups` names (`dev` when it is not set, every group for `"all"`), with
/// the groups they include, and `[tool.uv] dev-dependencies`; never an extra.
fn pytest_outside_uv_run(doc: &toml::Value, out: &Pyproject) -> Option<String> {
    if out.pytest_groups.is_empty() && out.pytest_extras.is_empty() {
        return None;
    }
    let groups = table(doc, &["dependency-groups"]);
    let uv = table(doc, &["tool", "uv"]);
    let mut installed: Vec<String> = match uv.and_then(|uv| uv.get("default-groups")) {
        Some(toml::Value::String(all)) if all == "all" => groups
            .into_iter()
            .flatten()
            .map(|(g, _)| g.clone())
            .collect(),
        Some(list) => strings(Some(list)).collect(),
        None => vec!["dev".to_owned()],
    };
    // `{include-group = "x"}` entries, followed to a bound (a cycle is an error to uv).
    let mut at = 0;
    while at < installed.len() && installed.len() < 64 {
        let entries = groups
            .and_then(|g| g.get(&installed[at]))
            .and_then(toml::Value::as_array);
        for entry in entries.into_iter().flatten() {
            if let Some(name) = entry.get("include-group").and_then(toml::Value::as_str)
                && !installed.iter().any(|g| g == name)
            {
                installed.push(name.to_owned());
            }
        }
        at += 1;
    }
    let installed: Vec<String> = installed
        .iter()
        .filter_map(|g| requirement_name(g))
        .collect();
    let project = table(doc, &["project"]).and_then(|p| p.get("dependencies"));
    let dev = uv.and_then(|uv| uv.get("dev-dependencies"));
    if strings(project).chain(strings(dev)).any(|r| is_pytest(&r))
        || out.pytest_groups.iter().any(|g| installed.contains(g))
    {
        return None;
    }
    out.pytest_groups
        .first()
        .map(|g| format!("--group {g}"))
        .or_else(|| out.pytest_extras.first().map(|e| format!("--extra {e}")))
}

/// Whether a TOML list of requirements (PEP 508 strings) names pytest or a plugin.
fn list_names_pytest(list: Option<&toml::Value>) -> bool {
    strings(list).any(|r| is_pytest(&r))
}

/// Whether a poetry dependency table (`name = "^8"`, `name = {version = …}`) names pytest
/// or a plugin, counting only entries `optional` does not leave to an extra when
/// `optional` is `Some(false)`, only those it does when `Some(true)`, all when `None`.
fn table_names_pytest(table: Option<&toml::Value>, optional: Option<bool>) -> bool {
    table
        .and_then(toml::Value::as_table)
        .into_iter()
        .flatten()
        .any(|(name, spec)| {
            let is_optional = spec.get("optional").and_then(toml::Value::as_bool) == Some(true);
            is_pytest(name) && optional.is_none_or(|o| o == is_optional)
        })
}

/// The group or extra that names pytest when nothing `poetry install` installs by default
/// does ([`Pyproject::pytest_outside_poetry_run`]). Measured with poetry 2.5.1: it
/// installs the project's dependencies (`[project] dependencies`, the entries of
/// `[tool.poetry.dependencies]` not marked `optional`), `[tool.poetry.dev-dependencies]`,
/// and every group (`[tool.poetry.group.*]`, `[dependency-groups]`) whose
/// `[tool.poetry.group.NAME]` does not say `optional = true`; never an extra.
fn pytest_outside_poetry_run(doc: &toml::Value) -> Option<String> {
    let poetry = table(doc, &["tool", "poetry"]);
    let poetry_groups = poetry
        .and_then(|p| p.get("group"))
        .and_then(toml::Value::as_table);
    let optional_group = |name: &str| {
        poetry_groups
            .and_then(|g| g.get(name))
            .and_then(|g| g.get("optional"))
            .and_then(toml::Value::as_bool)
            == Some(true)
    };
    let project = table(doc, &["project"]);
    let mut installed = list_names_pytest(project.and_then(|p| p.get("dependencies")))
        || table_names_pytest(poetry.and_then(|p| p.get("dependencies")), Some(false))
        || table_names_pytest(poetry.and_then(|p| p.get("dev-dependencies")), None);
    let mut elsewhere: Option<String> = None;
    for (name, group) in poetry_groups.into_iter().flatten() {
        if table_names_pytest(group.get("dependencies"), None) {
            if optional_group(name) {
                elsewhere.get_or_insert_with(|| format!("--with {name}"));
            } else {
                installed = true;
            }
        }
    }
    for (name, list) in table(doc, &["dependency-groups"]).into_iter().flatten() {
        if list_names_pytest(Some(list)) {
            if optional_group(name) {
                elsewhere.get_or_insert_with(|| format!("--with {name}"));
            } else {
                installed = true;
            }
        }
    }
    if installed {
        return None;
    }
    let extras = project
        .and_then(|p| p.get("optional-dependencies"))
        .and_then(toml::Value::as_table);
    if let Some((extra, _)) = extras
        .into_iter()
        .flatten()
        .find(|(_, list)| list_names_pytest(Some(list)))
    {
        elsewhere.get_or_insert_with(|| format!("--extras {extra}"));
    }
    if table_names_pytest(poetry.and_then(|p| p.get("dependencies")), Some(true)) {
        elsewhere.get_or_insert_with(|| "--all-extras".to_owned());
    }
    elsewhere
}

/// The extra that names pytest when nothing `pdm install` installs by default does
/// ([`Pyproject::pytest_outside_pdm_run`]). pdm installs the project's dependencies and
/// every dev group (`[tool.pdm.dev-dependencies]`, `[dependency-groups]`, and a group another
/// includes), not an extra of `[project.optional-dependencies]` (measured with pdm 2.29.4:
/// after `pdm install`, pytest was in `.venv` for each of those and not for an extra;
/// `documented::pdm_installs_pytest_where_python_test_counts_it`).
fn pytest_outside_pdm_run(doc: &toml::Value, out: &Pyproject) -> Option<String> {
    let project = table(doc, &["project"]);
    let dev = table(doc, &["tool", "pdm", "dev-dependencies"]);
    let installed = list_names_pytest(project.and_then(|p| p.get("dependencies")))
        || dev
            .into_iter()
            .flatten()
            .any(|(_, l)| list_names_pytest(Some(l)))
        || !out.pytest_groups.is_empty();
    if installed {
        return None;
    }
    out.pytest_extras.first().map(|e| format!("-G {e}"))
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

/// The manifest `name` in `root`, read within the root and its bound; `None` when it is
/// not there, or with a note when it cannot be read.
pub(super) fn read_manifest(
    inside: &Inside<'_>,
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

/// The requirements files read, with their text: `requirements*.txt`,
/// `test-requirements.txt` and `dev-requirements.txt` in the root, `requirements/*.txt`,
/// `tests/requirements*.txt`; at most [`MAX_REQUIREMENTS_FILES`], in sorted order.
pub(super) fn requirements_files(
    ctx: &Context<'_>,
    inside: &Inside<'_>,
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

    /// Property: pytest counts for `poetry run` only from what `poetry install` installs by
    /// default (measured with poetry 2.5.1): the project's dependencies, the dev
    /// dependencies, and every group not marked optional, PEP 735's included; never an
    /// extra or an optional group, whose option is named instead.
    #[test]
    fn pytest_outside_what_poetry_run_installs() {
        #[track_caller]
        fn case(text: &str, want: Option<&str>) {
            let got = parse_pyproject(text)
                .expect("valid")
                .pytest_outside_poetry_run;
            assert_eq!(got.as_deref(), want, "{text}");
        }
        let optional_test = "[tool.poetry.group.test]\noptional = true\n\n[tool.poetry.group.test.dependencies]\npytest = \"^8\"\n";
        case(optional_test, Some("--with test"));
        case(
            "[tool.poetry.group.test.dependencies]\npytest = \"^8\"\n",
            None,
        );
        case(
            &format!("{optional_test}[tool.poetry.dev-dependencies]\npytest-cov = \"*\"\n"),
            None,
        );
        // PEP 735 groups are installed, unless poetry's table marks them optional.
        case("[dependency-groups]\ntest = [\"pytest\"]\n", None);
        case(
            "[dependency-groups]\ntest = [\"pytest\"]\n[tool.poetry.group.test]\noptional = true\n",
            Some("--with test"),
        );
        // Extras are not installed.
        case(
            "[project]\nname = \"x\"\noptional-dependencies = { test = [\"pytest\"] }\n",
            Some("--extras test"),
        );
        case(
            "[tool.poetry.dependencies]\npytest = { version = \"^8\", optional = true }\n",
            Some("--all-extras"),
        );
        case(
            "[tool.poetry.dependencies]\npytest = { version = \"^8\" }\n",
            None,
        );
        case("[project]\nname = \"x\"\n", None);
    }

    /// Property: pytest counts for `pdm run` from the project's dependencies and every dev
    /// group (`[tool.pdm.dev-dependencies]`, `[dependency-groups]`), never from an extra.
    #[test]
    fn pytest_outside_what_pdm_run_installs() {
        #[track_caller]
        fn case(text: &str, want: Option<&str>) {
            let got = parse_pyproject(text).expect("valid").pytest_outside_pdm_run;
            assert_eq!(got.as_deref(), want, "{text}");
        }
        let extra = "[project]\nname = \"x\"\noptional-dependencies = { test = [\"pytest\"] }\n";
        case(extra, Some("-G test"));
        case(
            &format!(
                "{extra}[tool.pdm.dev-dependencies]\nlint = [\"ruff\"]\ntest = [\"pytest\"]\n"
            ),
            None,
        );
        case(
            &format!("{extra}[dependency-groups]\ncheck = [\"pytest-xdist\"]\n"),
            None,
        );
        case("[dependency-groups]\ntest = [\"pytest\"]\n", None);
    }

    /// Property: pytest counts for `uv run` only from what uv installs by default: the
    /// project's dependencies, its default groups (`dev` unless `default-groups` says,
    /// `"all"`, the groups they include) and `[tool.uv] dev-dependencies`; never an extra.
    #[test]
    fn pytest_outside_what_uv_run_installs() {
        #[track_caller]
        fn case(text: &str, want: Option<&str>) {
            let got = parse_pyproject(text).expect("valid").pytest_outside_uv_run;
            assert_eq!(got.as_deref(), want, "{text}");
        }
        // ruff's shape: pytest in a group of its own, `dev` without it.
        let ruff = "[dependency-groups]\ndev = [\"maturin\"]\ntest = [\"pytest>=8\"]\n";
        case(ruff, Some("--group test"));
        case(
            &format!("{ruff}[tool.uv]\ndefault-groups = [\"dev\", \"test\"]\n"),
            None,
        );
        case(
            &format!("{ruff}[tool.uv]\ndefault-groups = \"all\"\n"),
            None,
        );
        case(
            "[dependency-groups]\ndev = [{include-group = \"Test\"}]\nTest = [\"pytest\"]\n",
            None,
        );
        case(
            "[dependency-groups]\ndev = [{include-group = \"dev\"}]\nt = [\"pytest\"]\n",
            Some("--group t"),
        );
        case("[dependency-groups]\ndev = [\"pytest-cov\"]\n", None);
        case(
            "[project]\nname = \"x\"\noptional-dependencies = { test = [\"pytest\"] }\n",
            Some("--extra test"),
        );
        case(
            "[project]\nname = \"x\"\ndependencies = [\"pytest\"]\n[dependency-groups]\nt = [\"pytest\"]\n",
            None,
        );
        case(
            &format!("{ruff}[tool.uv]\ndev-dependencies = [\"pytest\"]\n"),
            None,
        );
    }
}
