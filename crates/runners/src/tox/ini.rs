//! INI files, read as Python's configparser reads them (tox 4.67 uses `ConfigParser(
//! interpolation=None)`): `#`/`;` comment lines, values continued on deeper-indented lines,
//! keys lowercased, a repeated section or key an error.

use std::collections::{HashMap, HashSet};

use super::Env;
use super::budget::{Budget, Kind};
use super::factor::{Conditional, expand, factors_of_name, split_condition};

#[derive(Debug, Default)]
pub(super) struct Ini {
    sections: Vec<IniSection>,
}

#[derive(Debug)]
pub(super) struct IniSection {
    name: String,
    values: Vec<(String, String)>,
}

impl Ini {
    pub(super) fn section(&self, name: &str) -> Option<&IniSection> {
        self.sections.iter().find(|s| s.name == name)
    }
}

impl IniSection {
    fn get(&self, key: &str) -> Option<&str> {
        self.values
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

pub(super) fn parse_ini(text: &str) -> Result<Ini, String> {
    let mut ini = Ini::default();
    // The lines of the value being read, and the indentation of its key.
    let mut current: Option<(String, Vec<String>)> = None;
    let mut indent_level = 0;
    // The section names and the keys of the last section, to find a repeat at once.
    let mut headers: HashSet<&str> = HashSet::new();
    let mut keys: HashSet<String> = HashSet::new();
    let flush = |ini: &mut Ini, current: &mut Option<(String, Vec<String>)>| {
        if let (Some((key, lines)), Some(section)) = (current.take(), ini.sections.last_mut()) {
            let value = lines.join("\n").trim_end().to_owned();
            section.values.push((key, value));
        }
    };
    for (number, line) in text.lines().enumerate() {
        let number = number + 1;
        let line = line.strip_suffix('\r').unwrap_or(line);
        let comment = line.trim_start().starts_with(['#', ';']);
        let value = if comment { "" } else { line.trim() };
        if value.is_empty() {
            if !comment && let Some((_, lines)) = &mut current {
                lines.push(String::new());
            }
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        if let Some((_, lines)) = &mut current
            && indent > indent_level
        {
            lines.push(value.to_owned());
            continue;
        }
        indent_level = indent;
        flush(&mut ini, &mut current);
        if let Some(header) = value
            .strip_prefix('[')
            .and_then(|rest| rest.rfind(']').filter(|&c| c > 0).map(|c| &rest[..c]))
        {
            if !headers.insert(header) {
                return Err(format!(
                    "line {number}: section [{header}] appears twice, which tox refuses"
                ));
            }
            ini.sections.push(IniSection {
                name: header.to_owned(),
                values: Vec::new(),
            });
            keys.clear();
            continue;
        }
        let Some(section) = ini.sections.last() else {
            return Err(format!("line {number}: a value before any [section]"));
        };
        let Some(at) = value.find(['=', ':']) else {
            return Err(format!(
                "line {number}: neither a section, a key nor a value"
            ));
        };
        let key = value[..at].trim_end().to_lowercase();
        if key.is_empty() {
            return Err(format!("line {number}: a value without a key"));
        }
        if !keys.insert(key.clone()) {
            return Err(format!(
                "line {number}: `{key}` is set twice in [{}], which tox refuses",
                section.name
            ));
        }
        current = Some((key, vec![value[at + 1..].trim().to_owned()]));
    }
    flush(&mut ini, &mut current);
    Ok(ini)
}

/// A value tox uses, read as `IniLoader.process_raw` reads it, once for every env: comments
/// dropped and conditions read; [`Processed::for_env`] keeps the lines for one env and
/// joins continued lines.
struct Processed {
    conditional: Conditional,
    /// Whether the value holds nothing but blanks once comments are dropped.
    blank: bool,
}

impl Processed {
    fn new(value: &str, budget: &mut Budget) -> Self {
        let mut lines = Vec::new();
        for line in value.split('\n') {
            if line.starts_with('#') {
                continue;
            }
            let cut = unescaped_hash(line).map_or(line, |at| line[..at].trim_end());
            lines.push(cut.replace("\\#", "#"));
        }
        let stripped = lines.join("\n").replace('\r', "");
        Self {
            conditional: Conditional::new(&stripped, budget),
            blank: stripped.trim().is_empty(),
        }
    }

    /// The value for an env of `factors`; `None` when no line holds for it (tox then looks
    /// further, as if the key were not set).
    fn for_env(&self, factors: &HashSet<&str>) -> Option<String> {
        let filtered = self.conditional.filter(factors);
        if filtered.is_empty() && !self.blank {
            return None;
        }
        Some(filtered.replace("\\\n", ""))
    }
}

/// Where a `#` not preceded by `\` starts a comment.
fn unescaped_hash(line: &str) -> Option<usize> {
    line.char_indices()
        .find(|&(i, c)| c == '#' && !line[..i].ends_with('\\'))
        .map(|(i, _)| i)
}

/// The envs `tox list` shows for INI text whose core section is `core` (`tox` in tox.ini
/// and pyproject's `legacy_tox_ini`, `tox:tox` in setup.cfg), in its order: the default
/// `env_list` (else `py`), the `[testenv:…]` sections (generative names expanded), then envs
/// that only factor conditions name with a factor nothing else has (tox lists
/// `mysql: mysqlclient` as the env `mysql`). What passes the budget is cut and noted in it.
pub(super) fn ini_envs(text: &str, core: &str, budget: &mut Budget) -> Result<Vec<Env>, String> {
    envs_of_ini(&parse_ini(text)?, core, budget)
}

#[expect(
    clippy::too_many_lines,
    reason = "over 80 lines when the limit was set; split it when it next changes"
)]
pub(super) fn envs_of_ini(ini: &Ini, core: &str, budget: &mut Budget) -> Result<Vec<Env>, String> {
    let core_prefix = core.split_once(':').map(|(p, _)| p);
    let core_section = ini.section(core);
    let raw_list = core_section.and_then(|s| s.get("env_list").or_else(|| s.get("envlist")));
    let mut explicit = Vec::new();
    if let Some(raw) = raw_list.and_then(|r| Processed::new(r, budget).for_env(&HashSet::new())) {
        for line in raw.split('\n') {
            explicit.extend(expand(line, budget).map_err(|e| format!("[{core}] env_list: {e}"))?);
        }
    }
    let mut known: HashSet<String> = factors_of(&explicit);
    // (name, section index) for every env a [testenv:…] section defines.
    let mut defined: Vec<(String, usize)> = Vec::new();
    for (index, section) in ini.sections.iter().enumerate() {
        let Some(("testenv", name)) = section.name.split_once(':') else {
            continue;
        };
        let names = expand(name, budget).map_err(|e| format!("[{}]: {e}", section.name))?;
        known.extend(factors_of(&names));
        defined.extend(names.into_iter().map(|n| (n, index)));
    }
    let is_tox_section = |s: &IniSection| match s.name.split_once(':') {
        Some(("testenv", _)) => true,
        _ if s.name == core => true,
        Some((prefix, rest)) => {
            Some(prefix) == core_prefix && (rest == "testenv" || rest.starts_with("testenv:"))
        }
        None => core_prefix.is_none() && s.name == "testenv",
    };
    let mut conditional = Vec::new();
    for section in ini.sections.iter().filter(|s| is_tox_section(s)) {
        for (_, value) in &section.values {
            for line in value.split('\n') {
                if let (Some(groups), _) = split_condition(line, budget) {
                    for group in groups {
                        let env: Vec<String> = group.into_iter().map(|(n, _)| n).collect();
                        if env.iter().any(|f| !known.contains(f)) {
                            let name = env.join("-");
                            // A new env draws from the envs' budget like any other.
                            if budget.take(Kind::Envs, name.len()) {
                                conditional.push(name);
                            } else {
                                budget.cut(Kind::Envs, &name, 1, 0);
                            }
                        }
                    }
                }
            }
        }
    }
    let base = ini.section("testenv");
    let mut order = explicit;
    if order.is_empty() {
        // tox runs `py` when no env is chosen.
        order.push("py".into());
    }
    // Each env's own section: the first that defines it.
    let mut own: HashMap<&str, usize> = HashMap::new();
    for (name, index) in &defined {
        own.entry(name.as_str()).or_insert(*index);
    }
    let mut order: Vec<(String, Option<usize>)> = order.into_iter().map(|n| (n, None)).collect();
    order.extend(defined.iter().map(|(n, _)| (n.clone(), None)));
    order.extend(conditional.into_iter().map(|n| (n, None)));
    for (name, section) in &mut order {
        *section = own.get(name.as_str()).copied();
    }
    // The descriptions, each read once.
    let mut descriptions: HashMap<usize, Option<Processed>> = HashMap::new();
    let base_description = base
        .and_then(|s| s.get("description"))
        .map(|v| Processed::new(v, budget));
    let mut seen = HashSet::new();
    let mut envs = Vec::new();
    for (name, section) in order {
        if name.starts_with('.') || !seen.insert(name.clone()) {
            // `.pkg` and its kind are packaging envs, which `tox list` leaves out.
            continue;
        }
        let own = section.and_then(|index| {
            descriptions
                .entry(index)
                .or_insert_with(|| {
                    ini.sections[index]
                        .get("description")
                        .map(|v| Processed::new(v, budget))
                })
                .as_ref()
        });
        let factors = factors_of_name(&name);
        let spent = budget.work == 0;
        let description = [own, base_description.as_ref()]
            .into_iter()
            .flatten()
            .find_map(|value| {
                if !budget.describe(value.conditional.cost) {
                    return None;
                }
                let text = value.for_env(&factors)?;
                // `{env_name}` grows by the name each time it is written.
                let grown = text.len().saturating_add(
                    (text.matches("{env_name}").count() + text.matches("{envname}").count())
                        .saturating_mul(name.len()),
                );
                budget.describe(grown).then(|| {
                    text.replace("{env_name}", &name)
                        .replace("{envname}", &name)
                        .replace('\n', " ")
                        .trim()
                        .to_owned()
                })
            })
            .filter(|d| !d.is_empty());
        if description.is_none() && (spent || budget.work == 0) {
            budget.descriptions_cut += 1;
        }
        envs.push(Env { name, description });
    }
    Ok(envs)
}

fn factors_of(names: &[String]) -> HashSet<String> {
    names
        .iter()
        .flat_map(|n| n.split('-').map(str::to_owned))
        .collect()
}

/// One line of a testenv's value, for a runner that asks what the envs install or run
/// (python's `test` looks for pytest there).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EnvLine {
    /// The section it is read from (`testenv`, `testenv:lint`, or `base` for a line that a
    /// `{[base]deps}` reference brings in).
    pub(crate) section: String,
    /// The key (`commands`, `deps`).
    pub(crate) key: String,
    /// The line as tox reads it: comments dropped, its factor condition (`py311: `) cut off.
    pub(crate) text: String,
}

/// The lines of `keys` in every testenv section of tox.ini text (`[testenv]` and each
/// `[testenv:…]`), whichever env they belong to: a line under a factor condition runs in
/// some env, so the condition is cut off rather than checked. A `{[section]key}`
/// reference in one of them brings in that value's lines, one level deep and each value
/// once, so the work stays linear in the file.
pub(crate) fn testenv_lines(text: &str, keys: &[&str]) -> Result<Vec<EnvLine>, String> {
    let ini = parse_ini(text.strip_prefix('\u{feff}').unwrap_or(text))?;
    let mut budget = Budget::new();
    let mut out = Vec::new();
    let mut referenced: Vec<(String, String)> = Vec::new();
    let mut seen: HashSet<(String, String)> = HashSet::new();
    let mut push = |section: &str, key: &str, value: &str, out: &mut Vec<EnvLine>| {
        for (_, line) in Processed::new(value, &mut budget).conditional.lines {
            if !line.trim().is_empty() {
                out.push(EnvLine {
                    section: section.to_owned(),
                    key: key.to_owned(),
                    text: line,
                });
            }
        }
    };
    let is_testenv = |name: &str| name == "testenv" || name.starts_with("testenv:");
    for section in ini.sections.iter().filter(|s| is_testenv(&s.name)) {
        for &key in keys {
            let Some(value) = section.get(key) else {
                continue;
            };
            push(&section.name, key, value, &mut out);
            let mut rest = value;
            while let Some(at) = rest.find("{[") {
                rest = &rest[at + 2..];
                let Some((target, after)) = rest.split_once(']') else {
                    break;
                };
                let Some((name, _)) = after.split_once('}') else {
                    break;
                };
                let pair = (target.to_owned(), name.trim().to_lowercase());
                // A testenv section is read already.
                if !is_testenv(target) && seen.insert(pair.clone()) {
                    referenced.push(pair);
                }
            }
        }
    }
    for (target, key) in &referenced {
        if let Some(value) = ini.section(target).and_then(|s| s.get(key)) {
            push(target, key, value, &mut out);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(envs: &[Env]) -> Vec<&str> {
        envs.iter().map(|e| e.name.as_str()).collect()
    }

    fn ini_envs(text: &str, core: &str) -> Result<Vec<Env>, String> {
        super::ini_envs(text, core, &mut Budget::new())
    }

    /// Measured: `tox l` in a folder holding this tox.ini (tox 4.67.13) lists these, in
    /// this order, with these descriptions (and `.pkg`, which is tox's packaging env in any
    /// project that builds a package).
    #[test]
    fn tox_ini_lists_what_tox_list_lists() {
        let text = "\
[tox]
env_list = py3{10,11}, lint  # the usual
    type
requires = tox>=4

[testenv]
description = run the tests on {env_name}
deps =
    django42: Django>=4.2
    mysql: mysqlclient
    !lint: pytest
commands = pytest {posargs}

[testenv:lint]
description = lint
  the code
commands = ruff check

[testenv:py{310,311}-django{42,50}]
; a comment
description =
    py310: old
    py311: new

[testenv:.pkg]
[testenv:-x]
";
        let envs = ini_envs(text, "tox").expect("parsed");
        assert_eq!(
            names(&envs),
            [
                "py310",
                "py311",
                "lint",
                "type",
                "py310-django42",
                "py310-django50",
                "py311-django42",
                "py311-django50",
                "-x",
                "mysql"
            ]
        );
        let doc = |name: &str| {
            envs.iter()
                .find(|e| e.name == name)
                .and_then(|e| e.description.clone())
        };
        assert_eq!(doc("py310").as_deref(), Some("run the tests on py310"));
        assert_eq!(doc("lint").as_deref(), Some("lint the code"));
        assert_eq!(doc("py310-django50").as_deref(), Some("old"));
        assert_eq!(doc("py311-django42").as_deref(), Some("new"));
    }

    #[test]
    fn without_env_list_tox_runs_py() {
        let envs = ini_envs("[testenv:lint]\ncommands = ruff\n", "tox").expect("parsed");
        assert_eq!(names(&envs), ["py", "lint"]);
    }

    #[test]
    fn ini_errors_tox_would_refuse() {
        assert!(ini_envs("[testenv:has space]\n", "tox").is_err());
        assert!(ini_envs("[tox]\n[tox]\n", "tox").is_err());
        assert!(ini_envs("[tox]\nenv_list = a\nenvlist = b\nenv_list = c\n", "tox").is_err());
        assert!(ini_envs("key = before any section\n", "tox").is_err());
    }

    #[test]
    fn setup_cfg_core_section() {
        let text = "[metadata]\nname = x\n[tox:tox]\nenvlist = py311\n[testenv:lint]\n";
        assert_eq!(
            names(&ini_envs(text, "tox:tox").expect("parsed")),
            ["py311", "lint"]
        );
    }

    #[test]
    fn testenv_lines_are_read_as_tox_reads_them() {
        let text = "\u{feff}[tox]\nenv_list = py311, docs\n\
            [base]\ndeps =\n    hypothesis\n    pytest-xdist\n\
            [testenv]\n# pytest is commented out\ndeps =\n    {[base]deps}\n    py311: coverage  # not pytest\n\
            commands = python -m unittest {posargs}\n\
            [testenv:docs]\ndescription = pytest is not run here\ncommands = sphinx-build docs out\n\
            [other]\ncommands = pytest\n";
        let lines = testenv_lines(text, &["deps", "commands"]).expect("valid");
        let got: Vec<(&str, &str, &str)> = lines
            .iter()
            .map(|l| (l.section.as_str(), l.key.as_str(), l.text.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("testenv", "deps", "{[base]deps}"),
                ("testenv", "deps", "coverage"),
                ("testenv", "commands", "python -m unittest {posargs}"),
                ("testenv:docs", "commands", "sphinx-build docs out"),
                ("base", "deps", "hypothesis"),
                ("base", "deps", "pytest-xdist"),
            ]
        );
        assert!(testenv_lines("[testenv]\n[testenv]\n", &["deps"]).is_err());
    }
}
