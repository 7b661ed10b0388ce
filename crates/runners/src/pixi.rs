//! pixi: the tasks of `pixi.toml` (or of `pyproject.toml`'s `[tool.pixi]`), with the
//! environments their features belong to, read as data.
//!
//! pixi is not published on the registries this project installs tools from, so what
//! follows is pixi's documented behaviour, not measured: `[tasks]` belong to the default
//! feature and `[feature.NAME.tasks]` to that feature; an environment of `[environments]`
//! is a list of features (or `{features = [...], no-default-feature = true}`) and has the
//! default feature's tasks unless `no-default-feature`; `pixi run -e ENV TASK` runs a task
//! in that environment, and `pixi run TASK` in the default one (or in the one environment
//! that has it); a task is a command string or a table (`cmd`, `depends-on`,
//! `description`, `cwd`, …; a table without `cmd` only runs its dependencies).

use crate::detection::{Absence, Cache, CacheDefault, Context, RunnerDef};
use crate::files::{self, MAX_MANIFEST, Root};
use crate::quote::quote;
use crate::runner::{Runner, Task};

pub(crate) const RUNNER: RunnerDef = RunnerDef {
    id: "pixi",
    label: "pixi",
    executes: "nothing: pixi.toml, else pyproject.toml's [tool.pixi], of the root is read as text (4 MiB at most); running a task may first solve and install its environment's packages",
    manifests: &["pixi.toml"],
    detect,
    // `ENV:TASK` where the task runs under its own name too.
    is_aside: |index, task| {
        task.name
            .split_once(':')
            .is_some_and(|(_, name)| index.get(name).is_some())
    },
    // Words after the task's name are appended to its command (pixi's documentation);
    // not measured, so an allowance admits the task's command alone.
    caches: &[Cache {
        variables: &[("PIXI_CACHE_DIR", ""), ("RATTLER_CACHE_DIR", "")],
        default: CacheDefault::UserCache("rattler"),
    }],
    ..RunnerDef::BASE
};

fn detect(ctx: &Context<'_>) -> Result<Runner, Absence> {
    ctx.depends_on_file("pixi.toml");
    ctx.depends_on_file("pyproject.toml");
    let inside = Root::new(ctx.root);
    let (shown, table) = if files::exists(&ctx.root.join("pixi.toml")) {
        ("pixi.toml", read(&inside, ctx, "pixi.toml")?)
    } else if files::exists(&ctx.root.join("pyproject.toml")) {
        let pyproject = read(&inside, ctx, "pyproject.toml")?;
        match pyproject
            .get("tool")
            .and_then(|t| t.get("pixi"))
            .and_then(toml::Value::as_table)
        {
            Some(pixi) => ("pyproject.toml", pixi.clone()),
            None => {
                return Err(Absence::Absent(
                    "no pixi.toml, and pyproject.toml has no [tool.pixi]".into(),
                ));
            }
        }
    } else {
        return Err(Absence::Absent(
            "no pixi.toml or pyproject.toml in the root".into(),
        ));
    };
    ctx.needs_binary("pixi")?;
    Ok(parse_manifest(&table, shown))
}

fn read(inside: &Root, ctx: &Context<'_>, name: &str) -> Result<toml::Table, Absence> {
    let bytes = inside
        .read(&ctx.root.join(name), MAX_MANIFEST)
        .map_err(|err| Absence::Failed(format!("{name}: {err}")))?;
    let text =
        String::from_utf8(bytes).map_err(|_| Absence::Failed(format!("{name}: not UTF-8")))?;
    parse_toml(&text).map_err(|err| Absence::Failed(format!("{name}: {err}")))
}

/// TOML text as a table, the parser's message on one line.
fn parse_toml(text: &str) -> Result<toml::Table, String> {
    text.parse::<toml::Table>().map_err(|err| {
        let message = err.to_string();
        message
            .lines()
            .next()
            .unwrap_or("not TOML")
            .trim()
            .to_owned()
    })
}

/// One task of a feature: its name and description.
type FeatureTasks = Vec<(String, Option<String>)>;

/// An environment: its name and features (the default feature first when it has it).
struct Environment {
    name: String,
    features: Vec<String>,
}

/// The most tasks listed: every environment repeats the default feature's tasks as
/// `ENV:TASK`, so a manifest of many environments and tasks would multiply them.
const MAX_TASKS: usize = 10_000;

/// The tasks of a pixi manifest (`pixi.toml`, or pyproject's `[tool.pixi]` table): the
/// default environment's as `TASK`, a task only one other environment has as `TASK` run
/// in that environment, and every task of every other environment as `ENV:TASK`.
pub(crate) fn parse_manifest(manifest: &toml::Table, shown: &str) -> Runner {
    let mut runner = Runner::new("pixi", "pixi", "pixi run");
    let features = features(manifest, shown, &mut runner.notes);
    let environments = environments(manifest);
    let tasks_of = |env: &Environment| -> FeatureTasks {
        let mut out: FeatureTasks = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for feature in &env.features {
            let Some((_, tasks)) = features.iter().find(|(name, _)| name == feature) else {
                continue;
            };
            for (task, doc) in tasks {
                if seen.insert(task.as_str()) {
                    out.push((task.clone(), doc.clone()));
                }
            }
        }
        out
    };
    let default = tasks_of(&environments[0]);
    let mut tasks: Vec<Task> = default
        .iter()
        .map(|(name, doc)| Task {
            name: name.clone(),
            command: format!("pixi run {}", quote(name)),
            doc: doc.clone(),
            params: Vec::new(),
            cwd: None,
        })
        .collect();
    let others: Vec<(&Environment, FeatureTasks)> = environments[1..]
        .iter()
        .map(|env| (env, tasks_of(env)))
        .collect();
    environment_tasks(&default, &others, &mut tasks);
    if tasks.len() > MAX_TASKS {
        runner.notes.push(format!(
            "{shown}: {} tasks with their environments; the first {MAX_TASKS} are listed",
            tasks.len()
        ));
        tasks.truncate(MAX_TASKS);
    }
    for task in tasks {
        runner.push_task(task);
    }
    runner
}

/// Each feature's tasks, the default feature (`[tasks]`) first; `[target.*.tasks]` noted.
fn features(
    manifest: &toml::Table,
    shown: &str,
    notes: &mut Vec<String>,
) -> Vec<(String, FeatureTasks)> {
    let mut features = vec![(
        "default".to_owned(),
        feature_tasks(manifest.get("tasks"), shown, "", notes),
    )];
    if let Some(table) = manifest.get("feature").and_then(toml::Value::as_table) {
        for (name, feature) in table {
            let section = format!("feature.{name}.");
            let tasks = feature_tasks(feature.get("tasks"), shown, &section, notes);
            features.push((name.clone(), tasks));
        }
    }
    let targets = manifest.get("target").and_then(toml::Value::as_table);
    if targets.is_some_and(|t| t.values().any(|p| p.get("tasks").is_some())) {
        notes.push(format!(
            "{shown}: the tasks of [target.PLATFORM.tasks] are left out: they exist on that platform only"
        ));
    }
    features
}

/// The other environments' tasks: one only one of them has (and the default one has
/// not) under its own name, run in that environment; then every one as `ENV:TASK`
/// (`pixi run -e ENV TASK`). Stops adding past [`MAX_TASKS`].
fn environment_tasks(
    default: &FeatureTasks,
    others: &[(&Environment, FeatureTasks)],
    out: &mut Vec<Task>,
) {
    let mut homes: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (_, tasks) in others {
        for (name, _) in tasks {
            *homes.entry(name.as_str()).or_default() += 1;
        }
    }
    for (name, _) in default {
        homes.remove(name.as_str());
    }
    let task = |env: &str, name: String, task: &str, doc: &Option<String>| {
        let note = format!("environment {env}");
        Task {
            name,
            command: format!("pixi run -e {} {}", quote(env), quote(task)),
            doc: Some(
                doc.as_ref()
                    .map_or(note.clone(), |doc| format!("{doc} ({note})")),
            ),
            params: Vec::new(),
            cwd: None,
        }
    };
    for (env, tasks) in others {
        for (name, doc) in tasks {
            if homes.get(name.as_str()) == Some(&1) {
                out.push(task(&env.name, name.clone(), name, doc));
            }
        }
    }
    for (env, tasks) in others {
        for (name, doc) in tasks {
            if out.len() > MAX_TASKS {
                return;
            }
            out.push(task(&env.name, format!("{}:{name}", env.name), name, doc));
        }
    }
}

/// The environments, the default one first: each with the default feature unless
/// `no-default-feature`, then its own features in order.
fn environments(manifest: &toml::Table) -> Vec<Environment> {
    let mut out = vec![Environment {
        name: "default".into(),
        features: vec!["default".into()],
    }];
    let Some(table) = manifest.get("environments").and_then(toml::Value::as_table) else {
        return out;
    };
    for (name, value) in table {
        let (list, no_default) = match value {
            toml::Value::Array(list) => (Some(list), false),
            toml::Value::Table(t) => (
                t.get("features").and_then(toml::Value::as_array),
                t.get("no-default-feature").and_then(toml::Value::as_bool) == Some(true),
            ),
            _ => continue,
        };
        let mut features: Vec<String> = Vec::new();
        if !no_default {
            features.push("default".into());
        }
        features.extend(
            list.into_iter()
                .flatten()
                .filter_map(toml::Value::as_str)
                .map(str::to_owned),
        );
        if name == "default" {
            out[0].features = features;
        } else if !name.starts_with('-') {
            out.push(Environment {
                name: name.clone(),
                features,
            });
        }
    }
    out
}

/// A feature's tasks with their descriptions, leaving out (with a note) names pixi would
/// read as an option and values that are no task.
fn feature_tasks(
    tasks: Option<&toml::Value>,
    shown: &str,
    section: &str,
    notes: &mut Vec<String>,
) -> FeatureTasks {
    let Some(tasks) = tasks else {
        return Vec::new();
    };
    let Some(tasks) = tasks.as_table() else {
        notes.push(format!(
            "{shown}: [{section}tasks] is not a table; left out"
        ));
        return Vec::new();
    };
    let mut out = Vec::with_capacity(tasks.len());
    for (name, value) in tasks {
        let doc = match value {
            toml::Value::String(_) | toml::Value::Array(_) => None,
            toml::Value::Table(task) => task
                .get("description")
                .and_then(toml::Value::as_str)
                .and_then(|d| d.lines().map(str::trim).find(|l| !l.is_empty()))
                .map(str::to_owned),
            _ => {
                notes.push(format!(
                    "{shown}: task `{section}tasks.{name}` is neither a command nor a table; left out"
                ));
                continue;
            }
        };
        if name.starts_with('-') {
            notes.push(format!(
                "{shown}: task `{name}` is left out: `pixi run` would read its name as an option"
            ));
            continue;
        }
        out.push((name.clone(), doc));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn features_and_environments() {
        let manifest = parse_toml(
            r#"
[workspace]
name = "lab"
[tasks]
test = "pytest"
lint = { cmd = "ruff check", description = "Lint the code" }
all = { depends-on = ["lint", "test"] }
[feature.docs.tasks]
docs = { cmd = "sphinx-build docs out", description = "Build the docs" }
[feature.py310.dependencies]
python = "3.10.*"
[feature.gpu.tasks]
bench = "python bench.py"
[target.linux-64.tasks]
native = "make"
[environments]
docs = { features = ["docs"], no-default-feature = true }
py310 = ["py310", "gpu"]
py311 = ["gpu"]
"#,
        )
        .expect("toml");
        let runner = parse_manifest(&manifest, "pixi.toml");
        let got: Vec<(&str, &str)> = runner
            .tasks
            .iter()
            .map(|t| (t.name.as_str(), t.command.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("all", "pixi run all"),
                ("lint", "pixi run lint"),
                ("test", "pixi run test"),
                ("docs", "pixi run -e docs docs"),
                ("docs:docs", "pixi run -e docs docs"),
                ("py310:all", "pixi run -e py310 all"),
                ("py310:lint", "pixi run -e py310 lint"),
                ("py310:test", "pixi run -e py310 test"),
                ("py310:bench", "pixi run -e py310 bench"),
                ("py311:all", "pixi run -e py311 all"),
                ("py311:lint", "pixi run -e py311 lint"),
                ("py311:test", "pixi run -e py311 test"),
                ("py311:bench", "pixi run -e py311 bench"),
            ]
        );
        assert_eq!(runner.tasks[1].doc.as_deref(), Some("Lint the code"));
        // The TOML reader keeps a table's keys sorted.
        assert_eq!(
            runner.tasks[3].doc.as_deref(),
            Some("Build the docs (environment docs)")
        );
        assert_eq!(runner.notes.len(), 1, "{:?}", runner.notes);
        let index = crate::runner::TaskIndex::of(&runner);
        let asides: Vec<&str> = runner
            .tasks
            .iter()
            .filter(|t| (RUNNER.is_aside)(&index, t))
            .map(|t| t.name.as_str())
            .collect();
        assert_eq!(
            asides,
            [
                "docs:docs",
                "py310:all",
                "py310:lint",
                "py310:test",
                "py311:all",
                "py311:lint",
                "py311:test"
            ]
        );
    }

    #[test]
    fn a_default_environment_adds_its_features() {
        let manifest = parse_toml(
            "[tasks]\na = 'x'\n[feature.dev.tasks]\nb = 'y'\n[environments]\ndefault = ['dev']\n",
        )
        .expect("toml");
        let runner = parse_manifest(&manifest, "pixi.toml");
        let names: Vec<&str> = runner.tasks.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(runner.tasks[1].command, "pixi run b");
    }
}
