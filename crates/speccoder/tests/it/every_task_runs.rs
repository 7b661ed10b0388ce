//! Every task detection lists runs with the real runner and prints what it prints.
//!
//! Fixture tasks print `ran <leaf>`, where the leaf is the task name after its last `/` or
//! `:`, or `ran <name>` (see fixtures/README.md); cargo test targets are checked by
//! libtest's summary.

use crate::support;

use std::time::Duration;

use speccoder_config::RecipeConfig;
use support::{Fixtures, detect, require_tools, sh};

/// Fixtures whose tasks are all safe to run (the broken ones are left out on purpose).
const RUNNABLE: &[&str] = &[
    "all-five",
    "cargo-bench",
    "cargo-single",
    "cargo-workspace",
    "go-module",
    "go-workspace",
    "just",
    "make-crlf",
    "make-gnumakefile",
    "make-names",
    "make-nophony",
    "make-project",
    "hostile",
    "make-rules",
    "make-common",
    "make-platform",
    "pkg-bun",
    "pkg-manager-conflict",
    "pkg-many",
    "pkg-npm",
    "pkg-npm-workspaces",
    "pkg-pnpm-monorepo",
    "pkg-pnpm-workspace",
    "pkg-workspaces",
    "pkg-yarn-berry",
    "pkg-yarn1",
    "polyglot",
    "polyglot-cargo",
    "polyglot-prefixed",
    "python-pdm",
    "python-pdm-hooks",
    "python-poetry",
    "python-pytest-requirements",
    "python-src-layout",
    "python-unittest",
    "python-uv",
    "task",
    "task-altname",
    "task-project",
    "just-project",
    "just-modules",
    "tox-project",
    "nox-project",
    "scripts-httpx",
];

/// Tasks that need a Python this machine may lack (only 3.11 is installed here), with what
/// the tool says then: that it reached the env or session and found no interpreter
/// (measured: `tox -e py310` fails with this line; `nox -s tests-3.10` skips with it and
/// exits 0, as `error_on_missing_interpreters = False` keeps it under `CI`). With that
/// Python installed, the task must print `ran <leaf>` like any other.
const NEED_ABSENT_PYTHON: &[(&str, &str, &str)] = &[
    (
        "tox-project",
        "py310",
        "could not find python interpreter matching any of the specs py310",
    ),
    (
        "nox-project",
        "tests-3.10",
        "Python interpreter 3.10 not found",
    ),
    (
        "nox-project",
        "tests-3.10(storage='sqlite')",
        "Python interpreter 3.10 not found",
    ),
    (
        "nox-project",
        "tests-3.10(storage='memory')",
        "Python interpreter 3.10 not found",
    ),
];

#[test]
fn every_listed_task_runs() {
    require_tools(&[
        "just",
        "task",
        "pnpm",
        "yarn",
        "yarn-berry",
        "bun",
        "pytest",
        "poe",
        "hatch",
        "uv",
        "poetry",
        "go",
        "tox",
        "nox",
    ]);
    let fixtures = Fixtures::copy();
    support::prepare_yarn_berry(&fixtures.path("pkg-yarn-berry"));
    // poetry runs in an environment it installed; uv and hatch make theirs on the first
    // run (the committed uv.lock has no packages yet: `uv run` locks pytest itself).
    support::prepare_poetry(&fixtures.path("python-poetry"));
    let mut ran = 0;
    let mut failures = Vec::new();
    for fixture in RUNNABLE {
        let root = fixtures.path(fixture);
        let recipe = detect(&root, &RecipeConfig::default());
        assert!(
            recipe.runners().next().is_some(),
            "{fixture}: nothing detected"
        );
        for runner in recipe.runners() {
            for task in &runner.tasks {
                let cwd = task.cwd.as_ref().map_or(root.clone(), |c| root.join(c));
                // A pattern task (go-task's `release:*`, make's `print-%`) runs under a
                // name its pattern matches.
                let name = task.name.replace(['*', '%'], "x");
                let (_, command) = runner.find(&name).expect("a listed task is found");
                let out = sh(&command, &cwd, Duration::from_secs(300));
                let mut text = out.stdout.text();
                if let Some(stderr) = &out.stderr {
                    text.push_str(&stderr.text());
                }
                let leaf = name.rsplit(['/', ':']).next().unwrap_or(&name);
                // cargo's own commands print what cargo prints: success is the check.
                let expected = if runner.is_builtin(task) {
                    Vec::new()
                } else if task.command.starts_with("cargo test") {
                    vec!["test result: ok. 1 passed".to_owned()]
                } else if let Some(source) = task
                    .doc
                    .as_deref()
                    .and_then(|d| d.rsplit_once("(through `"))
                    .and_then(|(_, rest)| rest.split('`').next())
                    .or_else(|| {
                        task.doc
                            .as_deref()?
                            .strip_prefix("runs `")?
                            .split('`')
                            .next()
                    })
                {
                    // A name a make pattern rule makes of another target runs that one, a
                    // just module's name its default recipe.
                    vec![
                        format!("ran {source}"),
                        format!("ran {leaf}"),
                        format!("ran {name}"),
                    ]
                } else if runner.is_pattern(task) {
                    // make's `print-%` prints the variable its stem names.
                    vec![
                        format!("ran {leaf}"),
                        format!("ran {name}"),
                        "x =".to_owned(),
                    ]
                } else {
                    vec![format!("ran {leaf}"), format!("ran {name}")]
                };
                ran += 1;
                let printed =
                    expected.is_empty() || expected.iter().any(|e| text.contains(e.as_str()));
                // A make target only a condition decides (`framework` on Darwin) may be
                // one make does not know here: it is listed with that said.
                let undecided = task
                    .doc
                    .as_deref()
                    .is_some_and(|d| d.ends_with("(only under a condition make decides)"));
                if undecided && !out.success() {
                    continue;
                }
                let absent_python = NEED_ABSENT_PYTHON
                    .iter()
                    .any(|(f, t, says)| *f == *fixture && *t == task.name && text.contains(says));
                if absent_python {
                    continue;
                }
                if !out.success() || !printed {
                    failures.push(format!(
                        "{fixture}: `{}` ({}) gave {:?} without {expected:?}:\n{text}",
                        task.name, task.command, out.exit
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // Names built to inject commands ran as the scripts they name, nothing more.
    let hostile = fixtures.path("hostile");
    assert!(!hostile.join("pwned").exists() && !hostile.join("pwned2").exists());
    // A check that the loop really ran the fixtures' tasks, not an empty list.
    assert!(ran >= 50, "only {ran} tasks ran");
}
