//! TOML: tox.toml and pyproject.toml's [tool.tox].

use std::collections::{HashMap, HashSet};

use toml::de::{DeTable, DeValue};

use super::Env;
use super::budget::{Budget, Kind, MAX_ENVS};
use super::ini::ini_envs;

/// The envs of pyproject.toml: `[tool.tox]` in TOML form, else its `legacy_tox_ini` text;
/// `None` when it has neither.
pub(super) fn pyproject_envs(text: &str, budget: &mut Budget) -> Result<Option<Vec<Env>>, String> {
    let doc = DeTable::parse(text).map_err(|e| format!("not TOML: {}", e.message()))?;
    let tox = match get(doc.get_ref(), "tool") {
        Some(DeValue::Table(tool)) => match get(tool, "tox") {
            Some(DeValue::Table(tox)) => tox,
            _ => return Ok(None),
        },
        _ => return Ok(None),
    };
    if tox.iter().any(|(k, _)| k.get_ref() != "legacy_tox_ini") {
        return envs_of_table(tox, budget).map(Some);
    }
    match get(tox, "legacy_tox_ini") {
        Some(DeValue::String(ini)) => ini_envs(ini, "tox", budget)
            .map(Some)
            .map_err(|e| format!("legacy_tox_ini: {e}")),
        _ => Ok(None),
    }
}

/// The envs of a tox.toml; `None` when it sets nothing (tox passes over it).
pub(super) fn toml_envs(text: &str, budget: &mut Budget) -> Result<Option<Vec<Env>>, String> {
    let doc = DeTable::parse(text).map_err(|e| format!("not TOML: {}", e.message()))?;
    let table = doc.get_ref();
    if table.iter().all(|(k, _)| k.get_ref() == "legacy_tox_ini") {
        return Ok(None);
    }
    envs_of_table(table, budget).map(Some)
}

fn get<'t, 'i>(table: &'t DeTable<'i>, key: &str) -> Option<&'t DeValue<'i>> {
    table
        .iter()
        .find(|(k, _)| k.get_ref() == key)
        .map(|(_, v)| v.get_ref())
}

/// A table's entries in the order the file writes them (the parser's map sorts them).
fn ordered<'t, 'i>(table: &'t DeTable<'i>) -> Vec<(&'t str, &'t DeValue<'i>)> {
    let mut entries: Vec<_> = table.iter().collect();
    entries.sort_by_key(|(k, _)| k.span().start);
    entries
        .into_iter()
        .map(|(k, v)| (k.get_ref().as_ref(), v.get_ref()))
        .collect()
}

fn string_of<'t>(value: Option<&'t DeValue<'_>>) -> Option<&'t str> {
    match value {
        Some(DeValue::String(s)) => Some(s.as_ref()),
        _ => None,
    }
}

/// The envs of tox's TOML configuration (the table that holds `env_list`): `env_list`
/// (strings as written, `product`, range and labelled groups expanded), the `[env.…]`
/// tables, then the envs `[env_base.…]` generates from its `factors`; as far as the budget
/// goes.
#[expect(
    clippy::too_many_lines,
    reason = "over 80 lines when the limit was set; split it when it next changes"
)]
fn envs_of_table(tox: &DeTable<'_>, budget: &mut Budget) -> Result<Vec<Env>, String> {
    let mut names: Vec<String> = Vec::new();
    // A name written as one, drawn from the budget like the others.
    let one = |budget: &mut Budget, names: &mut Vec<String>, name: &str| {
        if budget.take(Kind::Envs, name.len()) {
            names.push(name.to_owned());
        } else {
            budget.cut(Kind::Envs, name, 1, 0);
        }
    };
    match get(tox, "env_list") {
        None => {}
        Some(DeValue::Array(items)) => {
            for item in items.iter().map(|i| i.get_ref()) {
                match item {
                    DeValue::String(s) => one(budget, &mut names, s),
                    DeValue::Table(t) if get(t, "product").is_some() => {
                        names.extend(product(t, budget)?);
                    }
                    DeValue::Table(_) => {
                        let group = factor_group(item, budget)?;
                        names.extend(cartesian(&[group], "env_list", 0, budget));
                    }
                    _ => return Err("env_list holds an item tox cannot read".into()),
                }
            }
        }
        Some(_) => return Err("env_list is not a list".into()),
    }
    if names.is_empty() {
        names.push("py".into());
    }
    let envs = match get(tox, "env") {
        Some(DeValue::Table(envs)) => ordered(envs),
        Some(_) => return Err("env is not a table".into()),
        None => Vec::new(),
    };
    for (name, _) in &envs {
        one(budget, &mut names, name);
    }
    let mut generated: Vec<(String, &str)> = Vec::new();
    let bases = match get(tox, "env_base") {
        Some(DeValue::Table(bases)) => ordered(bases),
        _ => Vec::new(),
    };
    for (base, config) in &bases {
        let DeValue::Table(config) = config else {
            return Err(format!("env_base.{base} is not a table"));
        };
        let Some(DeValue::Array(factors)) = get(config, "factors") else {
            return Err(format!("env_base.{base} has no `factors` list"));
        };
        let grouped = factors
            .first()
            .is_some_and(|f| matches!(f.get_ref(), DeValue::Array(_) | DeValue::Table(_)));
        let groups = if grouped {
            factors
                .iter()
                .map(|g| factor_group(g.get_ref(), budget))
                .collect::<Result<Vec<_>, _>>()?
        } else {
            vec![
                factors
                    .iter()
                    .map(|f| scalar(f.get_ref()))
                    .collect::<Result<Vec<_>, _>>()?,
            ]
        };
        let what = format!("env_base.{base}");
        generated.extend(
            cartesian(&groups, &what, base.len() + 1, budget)
                .into_iter()
                .map(|suffix| (format!("{base}-{suffix}"), *base)),
        );
    }
    names.extend(generated.iter().map(|(n, _)| n.clone()));
    let run_base = match get(tox, "env_run_base") {
        Some(DeValue::Table(t)) => string_of(get(t, "description")),
        _ => None,
    };
    // The first table of each name, in `[env.…]` and in the generated ones.
    let mut own: HashMap<&str, &DeValue<'_>> = HashMap::new();
    for (name, value) in &envs {
        own.entry(name).or_insert(value);
    }
    let mut base_tables: HashMap<&str, &DeValue<'_>> = HashMap::new();
    for (base, value) in &bases {
        base_tables.entry(base).or_insert(value);
    }
    let mut from_base: HashMap<&str, &DeValue<'_>> = HashMap::new();
    for (name, base) in &generated {
        if let Some(table) = base_tables.get(base) {
            from_base.entry(name.as_str()).or_insert(table);
        }
    }
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for name in &names {
        if name.starts_with('.') || !seen.insert(name.as_str()) {
            continue;
        }
        let own = own.get(name.as_str()).and_then(description_of);
        let from_base = from_base.get(name.as_str()).and_then(description_of);
        let description = own
            .or(from_base)
            .or(run_base)
            .and_then(|d| {
                let grown = d
                    .len()
                    .saturating_add(d.matches("{env_name}").count().saturating_mul(name.len()));
                if !budget.describe(grown) {
                    budget.descriptions_cut += 1;
                    return None;
                }
                Some(()).map(|()| {
                    d.replace("{env_name}", name)
                        .replace('\n', " ")
                        .trim()
                        .to_owned()
                })
            })
            .filter(|d| !d.is_empty());
        out.push(Env {
            name: name.clone(),
            description,
        });
    }
    Ok(out)
}

fn description_of<'t>(value: &&'t DeValue<'_>) -> Option<&'t str> {
    match value {
        DeValue::Table(t) => string_of(get(t, "description")),
        _ => None,
    }
}

fn scalar(value: &DeValue<'_>) -> Result<String, String> {
    match value {
        DeValue::String(s) => Ok(s.to_string()),
        DeValue::Integer(i) => Ok(i.as_str().to_owned()),
        _ => Err("a factor that is not a string".into()),
    }
}

/// A `product` item of `env_list`: every combination of its groups joined with `-`, less
/// its `exclude`, as far as the budget goes.
fn product(table: &DeTable<'_>, budget: &mut Budget) -> Result<Vec<String>, String> {
    let Some(DeValue::Array(groups)) = get(table, "product") else {
        return Err("`product` is not a list".into());
    };
    let groups = groups
        .iter()
        .map(|g| factor_group(g.get_ref(), budget))
        .collect::<Result<Vec<_>, _>>()?;
    let exclude: HashSet<String> = match get(table, "exclude") {
        Some(DeValue::Array(items)) => items
            .iter()
            .filter_map(|i| scalar(i.get_ref()).ok())
            .collect(),
        _ => HashSet::new(),
    };
    if groups.is_empty() {
        return Ok(Vec::new());
    }
    Ok(cartesian(&groups, "product", 0, budget)
        .into_iter()
        .filter(|n| !exclude.contains(n))
        .collect())
}

/// Every combination of `groups` joined with `-`, in tox's order (the last group turns
/// fastest), made one at a time as far as the budget goes; `what` names them in a note, and
/// each costs `extra` bytes more (a prefix the caller adds).
fn cartesian(groups: &[Vec<String>], what: &str, extra: usize, budget: &mut Budget) -> Vec<String> {
    let total = groups
        .iter()
        .fold(1usize, |n, group| n.saturating_mul(group.len()));
    let mut out = Vec::new();
    let mut index = vec![0usize; groups.len()];
    while out.len() < total {
        let len = groups
            .iter()
            .zip(&index)
            .map(|(g, &i)| g[i].len() + 1)
            .sum::<usize>()
            .saturating_add(extra);
        if !budget.take(Kind::Envs, len) {
            budget.cut(Kind::Envs, what, total, out.len());
            break;
        }
        let mut name = String::with_capacity(len);
        for (group, &i) in groups.iter().zip(&index) {
            if !name.is_empty() {
                name.push('-');
            }
            name.push_str(&group[i]);
        }
        out.push(name);
        for (k, group) in groups.iter().enumerate().rev() {
            index[k] += 1;
            if index[k] < group.len() {
                break;
            }
            index[k] = 0;
        }
    }
    out
}

/// One factor group: a list of names, a range (`{ prefix = "py3", start = 10, stop = 13 }`)
/// or a labelled group (`{ django = ["42", "50"] }`, `{ py = { prefix = … } }`).
fn factor_group(value: &DeValue<'_>, budget: &mut Budget) -> Result<Vec<String>, String> {
    match value {
        DeValue::Array(items) => items
            .iter()
            .map(|i| match i.get_ref() {
                DeValue::String(s) => Ok(s.to_string()),
                _ => Err("a factor group item that is not a string".to_owned()),
            })
            .collect(),
        DeValue::Table(t) if get(t, "prefix").is_some() => range(t, budget),
        DeValue::Table(t) if t.len() == 1 => {
            let (_, inner) = t
                .iter()
                .next()
                .map(|(k, v)| (k, v.get_ref()))
                .ok_or("empty")?;
            match inner {
                DeValue::Table(inner) if get(inner, "prefix").is_some() => range(inner, budget),
                DeValue::Table(inner) => match get(inner, "values") {
                    Some(DeValue::Array(values)) => {
                        values.iter().map(|v| scalar(v.get_ref())).collect()
                    }
                    _ => Err("a labelled factor group without `values`".into()),
                },
                DeValue::Array(values) => values.iter().map(|v| scalar(v.get_ref())).collect(),
                _ => Err("a labelled factor group tox cannot read".into()),
            }
        }
        _ => Err("a factor group tox cannot read".into()),
    }
}

/// A range group, counted before it is written out: at most [`MAX_ENVS`] numbers, and what
/// is left of the file's [`MAX_RANGE_NUMBERS`](super::budget::MAX_RANGE_NUMBERS).
fn range(table: &DeTable<'_>, budget: &mut Budget) -> Result<Vec<String>, String> {
    let prefix = match get(table, "prefix") {
        Some(DeValue::String(p)) => p.to_string(),
        Some(other) => scalar(other)?,
        None => String::new(),
    };
    let int = |key| match get(table, key) {
        Some(DeValue::Integer(i)) if i.radix() == 10 => i
            .as_str()
            .replace('_', "")
            .parse::<u32>()
            .map(Some)
            .map_err(|_| format!("range `{key}` is not a small number")),
        None => Ok(None),
        Some(_) => Err(format!("range `{key}` is not an integer")),
    };
    let (start, stop) = (int("start")?, int("stop")?);
    let (first, last) = match (start, stop) {
        (None, None) => return Err("a range without `start` or `stop`".into()),
        (Some(a), Some(b)) if a > b => return Ok(Vec::new()),
        (Some(a), Some(b)) => (a, b),
        (a, b) => {
            let first = a.unwrap_or(11);
            let last = b.unwrap_or(15);
            if first <= last {
                (first, last)
            } else if a.is_none() {
                (last, last)
            } else {
                (first, first)
            }
        }
    };
    let count = (last - first) as usize + 1;
    let allowed = count.min(MAX_ENVS).min(budget.numbers);
    if allowed < count {
        budget.range_cut(
            || format!("`{{ prefix = {prefix:?}, start = {first}, stop = {last} }}`"),
            count as u64,
        );
    }
    budget.numbers -= allowed;
    Ok((first..=last)
        .take(allowed)
        .map(|m| format!("{prefix}{m}"))
        .collect())
}
#[cfg(test)]
mod tests {
    use super::*;

    fn names(envs: &[Env]) -> Vec<&str> {
        envs.iter().map(|e| e.name.as_str()).collect()
    }

    fn toml_envs(text: &str) -> Result<Option<Vec<Env>>, String> {
        super::toml_envs(text, &mut Budget::new())
    }

    fn pyproject_envs(text: &str) -> Result<Option<Vec<Env>>, String> {
        super::pyproject_envs(text, &mut Budget::new())
    }

    /// Measured the same way with this tox.toml (without `has space`, on which `tox l`
    /// fails: "failed to load has space.description").
    #[test]
    fn toml_forms() {
        let text = r#"
env_list = ["lint", { product = [["py310", "py311"], { django = ["42", "50"] }], exclude = ["py310-50"] }, { prefix = "py3", start = 12, stop = 13 }]

[env_run_base]
description = "run {env_name}"

[env.type]
description = "check types"

[env.lint]

[env."has space"]

[env_base.test]
factors = [["a", "b"]]
description = "generated"
"#;
        let envs = toml_envs(text).expect("parsed").expect("settings");
        assert_eq!(
            names(&envs),
            [
                "lint",
                "py310-42",
                "py311-42",
                "py311-50",
                "py312",
                "py313",
                "type",
                "has space",
                "test-a",
                "test-b"
            ]
        );
        assert_eq!(envs[0].description.as_deref(), Some("run lint"));
        assert_eq!(envs[6].description.as_deref(), Some("check types"));
        assert_eq!(envs[8].description.as_deref(), Some("generated"));
        assert_eq!(toml_envs("").expect("empty"), None);
    }

    #[test]
    fn pyproject_forms() {
        let native = "[project]\nname = 'x'\n[tool.tox]\nenv_list = ['a']\n[tool.tox.env.b]\n";
        assert_eq!(
            names(&pyproject_envs(native).expect("ok").expect("tox")),
            ["a", "b"]
        );
        let legacy = "[tool.tox]\nlegacy_tox_ini = \"\"\"\n[tox]\nenvlist = py3{10,11}\n\"\"\"\n";
        assert_eq!(
            names(&pyproject_envs(legacy).expect("ok").expect("tox")),
            ["py310", "py311"]
        );
        assert_eq!(pyproject_envs("[project]\nname = 'x'\n").expect("ok"), None);
    }
}
