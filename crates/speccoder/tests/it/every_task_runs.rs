//! Every task detection lists runs with the real runner and prints what it prints.
//!
//! Fixture tasks print `ran <leaf>`, where the leaf is the task name after its last `/` or
//! `:`, or `ran <name>` (see fixtures/README.md); cargo test targets are checked by
//! libtest's summary.

use crate::support;

use std::time::Duration;

use speccoder_config::RecipeConfig;
use support::{Fixtures, detect, require_tools, sh, table};

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

table! {
    /// Fixtures whose tasks are all safe to run (the broken ones are left out on purpose), a
    /// test each.
    every_listed_task_runs: runs_every_task(&'static str) {
        all_five: "all-five",
        cargo_bench: "cargo-bench",
        cargo_single: "cargo-single",
        cargo_workspace: "cargo-workspace",
        cargo_xtask: "cargo-xtask",
        cargo_py_subproject: "cargo-py-subproject",
        rust_py_bindings: "rust-py-bindings",
        go_module: "go-module",
        go_workspace: "go-workspace",
        just: "just",
        make_crlf: "make-crlf",
        make_forward: "make-forward",
        make_gnumakefile: "make-gnumakefile",
        make_names: "make-names",
        make_nophony: "make-nophony",
        make_project: "make-project",
        hostile: "hostile",
        make_rules: "make-rules",
        make_common: "make-common",
        make_platform: "make-platform",
        pkg_bun: "pkg-bun",
        pkg_make_documented: "pkg-make-documented",
        pkg_manager_conflict: "pkg-manager-conflict",
        pkg_many: "pkg-many",
        pkg_npm: "pkg-npm",
        pkg_npm_workspaces: "pkg-npm-workspaces",
        pkg_pnpm_monorepo: "pkg-pnpm-monorepo",
        pkg_pnpm_workspace: "pkg-pnpm-workspace",
        pkg_workspaces: "pkg-workspaces",
        pkg_yarn_berry: "pkg-yarn-berry",
        pkg_yarn1: "pkg-yarn1",
        polyglot: "polyglot",
        polyglot_cargo: "polyglot-cargo",
        polyglot_prefixed: "polyglot-prefixed",
        python_pdm: "python-pdm",
        python_pdm_hooks: "python-pdm-hooks",
        python_poetry: "python-poetry",
        python_pytest_requirements: "python-pytest-requirements",
        python_src_layout: "python-src-layout",
        python_unittest: "python-unittest",
        python_uv: "python-uv",
        task: "task",
        task_altname: "task-altname",
        task_project: "task-project",
        just_project: "just-project",
        just_modules: "just-modules",
        tox_project: "tox-project",
        nox_project: "nox-project",
        scripts_httpx: "scripts-httpx",
        mise_go: "mise-go",
        deno_workspace: "deno-workspace",
        composer_app: "composer-app",
        go_web_subprojects: "go-web-subprojects",
    }
}

/// The doc of npm init's placeholder `test` script, which only fails.
const PLACEHOLDER_DOC: &str = "npm init's placeholder: it only prints an error and fails";

/// The tools the fixtures' tasks run.
const TOOLS: &[&str] = &[
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
    "mise",
    "deno",
    "composer",
];

/// Runs every task detection lists in `fixture`, in a copy of the fixtures of its own.
fn runs_every_task(fixture: &'static str) {
    require_tools(TOOLS);
    let fixtures = Fixtures::copy();
    match fixture {
        "pkg-yarn-berry" => support::prepare_yarn_berry(&fixtures.path(fixture)),
        // poetry runs in an environment it installed; uv and hatch make theirs on the first
        // run (the committed uv.lock has no packages yet: `uv run` locks pytest itself).
        "python-poetry" => support::prepare_poetry(&fixtures.path(fixture)),
        _ => {}
    }
    let mut ran = 0;
    let mut failures = Vec::new();
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
            // A cargo alias runs what it expands to: a cargo command of its own (success
            // is the check), a test (libtest's summary) or a program (`ran <leaf>`).
            let alias = task
                .doc
                .as_deref()
                .and_then(|d| d.strip_prefix("cargo alias for `cargo "));
            let expected = if runner.is_builtin(task)
                || alias.is_some_and(|a| !a.starts_with("run ") && !a.starts_with("test "))
            {
                Vec::new()
            } else if task.command.starts_with("cargo test")
                || alias.is_some_and(|a| a.starts_with("test "))
            {
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
            // npm init's placeholder only fails, as its doc says.
            if task.doc.as_deref() == Some(PLACEHOLDER_DOC) {
                if out.success() || !text.contains("Error: no test specified") {
                    failures.push(format!(
                        "{fixture}: the placeholder `{}` did not fail as npm init's does:\n{text}",
                        task.name
                    ));
                }
                continue;
            }
            let printed = expected.is_empty() || expected.iter().any(|e| text.contains(e.as_str()));
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
                .any(|(f, t, says)| *f == fixture && *t == task.name && text.contains(says));
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
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    if fixture == "hostile" {
        // Names built to inject commands ran as the scripts they name, nothing more.
        let hostile = fixtures.path("hostile");
        assert!(!hostile.join("pwned").exists() && !hostile.join("pwned2").exists());
    }
    assert!(ran > 0, "{fixture}: no task ran");
}

/// Property: the runnable fixtures list at least 50 tasks between them, so the tests above
/// really run the fixtures' tasks, not an empty list.
#[test]
fn the_runnable_fixtures_list_at_least_50_tasks() {
    require_tools(TOOLS);
    let fixtures = Fixtures::copy();
    let listed: usize = every_listed_task_runs::cases()
        .into_iter()
        .map(|(_, fixture)| {
            let recipe = detect(&fixtures.path(fixture), &RecipeConfig::default());
            recipe.runners().map(|r| r.tasks.len()).sum::<usize>()
        })
        .sum();
    assert!(listed >= 50, "only {listed} tasks listed");
}
