//! Subprojects: a folder right below the root with its own manifest and task file (a
//! justfile, a Taskfile, a package.json that is no workspace member) lists its tasks as
//! `folder/task`, run in that folder; the real tools list the same; a subproject the root's
//! own task file already lists (a just module, a go-task include) is listed once.

use crate::support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use speccoder_config::RecipeConfig;
use speccoder_recipe::Recipe;
use support::{Fixtures, detect, require_tools, sh};

/// A project of `files` (relative path, content) in a fresh folder.
fn project(files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("p");
    std::fs::create_dir_all(&root).expect("root");
    for (rel, text) in files {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }
    (dir, root)
}

/// `(name, cwd)` of each task of runner `id`.
fn tasks(recipe: &Recipe, id: &str) -> Vec<(String, Option<String>)> {
    recipe
        .runners()
        .find(|r| r.id == id)
        .map(|r| {
            r.tasks
                .iter()
                .map(|t| (t.name.clone(), t.cwd.clone()))
                .collect()
        })
        .unwrap_or_default()
}

/// Runs `command` in `dir`, failing the test when it fails, and returns its stdout.
fn run(command: &str, dir: &Path) -> String {
    let out = sh(command, dir, Duration::from_secs(60));
    let text = out.stdout.text();
    assert!(out.success(), "`{command}` failed:\n{text}");
    text
}

/// Property: a subproject's recipes, tasks and scripts are the ones the real tools list in
/// its folder (`just --summary`, `task --list-all --json`, `npm run`), each under the
/// folder's name and run there.
#[test]
fn subprojects_list_what_their_tools_list() {
    require_tools(&["just", "task"]);
    let fixtures = Fixtures::copy();
    let root = fixtures.path("go-web-subprojects");
    let recipe = detect(&root, &RecipeConfig::default());
    let in_folder = |id: &str, folder: &str| -> Vec<String> {
        let prefix = format!("{folder}/");
        tasks(&recipe, id)
            .into_iter()
            .filter(|(_, cwd)| cwd.as_deref() == Some(folder))
            .map(|(name, _)| name.strip_prefix(&prefix).expect("folder/").to_owned())
            .collect()
    };
    let mut just: Vec<String> = run("just --summary", &root.join("web"))
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    just.sort();
    let mut ours = in_folder("just", "web");
    ours.sort();
    assert_eq!(ours, just);
    let listed: serde_json::Value = serde_json::from_str(&run(
        "task --list-all --json --no-status",
        &root.join("tools"),
    ))
    .expect("json");
    let mut task: Vec<String> = listed["tasks"]
        .as_array()
        .expect("tasks")
        .iter()
        .filter_map(|t| t["task"].as_str())
        // A wildcard task cannot be named under the folder: left out, with a note.
        .filter(|name| !name.contains('*'))
        .map(str::to_owned)
        .collect();
    task.sort();
    let mut ours = in_folder("task", "tools");
    ours.sort();
    assert_eq!(ours, task);
    // `npm run` with no script lists the scripts, each on a line of its own, indented.
    let npm = run("npm run", &root.join("web"));
    let mut scripts: Vec<String> = npm
        .lines()
        .filter(|l| l.starts_with("  ") && !l.starts_with("    "))
        .map(|l| l.trim().to_owned())
        .collect();
    scripts.sort();
    let mut ours = in_folder("pkg", "web");
    ours.sort();
    assert_eq!(ours, scripts);
}

/// Property: a folder the root's justfile takes as a module (`mod web`) or the root's
/// Taskfile includes (`web: ./web`) is listed once, the root's way, with a note; a
/// workspace member's package.json is listed as the member, not as a subproject; a root
/// make target named like the folder does not hide the folder's makefile.
#[test]
fn a_subproject_the_root_lists_already_is_listed_once() {
    require_tools(&["just", "task"]);
    let (_dir, root) = project(&[
        ("justfile", "mod web\n\nbuild:\n    @echo ran build\n"),
        (
            "Taskfile.yml",
            "version: '3'\nincludes:\n  web: ./web\ntasks:\n  ci:\n    cmds: [echo ran ci]\n",
        ),
        (
            "package.json",
            r#"{"name":"root","private":true,"workspaces":["web"],"scripts":{"dev":"echo ran dev"}}"#,
        ),
        ("Makefile", "web:\n\t@echo ran web\n"),
        ("web/Makefile", "serve:\n\t@echo ran serve\n"),
        ("web/justfile", "e2e:\n    @echo ran e2e\n"),
        (
            "web/Taskfile.yml",
            "version: '3'\ntasks:\n  gen:\n    cmds: [echo ran gen]\n",
        ),
        (
            "web/package.json",
            r#"{"name":"ledger-web","scripts":{"test":"echo ran test"}}"#,
        ),
    ]);
    let recipe = detect(&root, &RecipeConfig::default());
    let names =
        |id: &str| -> Vec<String> { tasks(&recipe, id).into_iter().map(|(n, _)| n).collect() };
    assert_eq!(names("just"), ["build", "web", "web/e2e"]);
    assert_eq!(names("task"), ["ci", "web:gen"]);
    assert_eq!(names("pkg"), ["dev", "ledger-web/test"]);
    // A root target named like the folder is another task: the subproject is listed.
    assert_eq!(names("make"), ["web", "web/serve"]);
    let notes: Vec<&String> = recipe
        .runners()
        .flat_map(|r| &r.notes)
        .filter(|n| n.contains("subproject"))
        .collect();
    assert_eq!(
        notes,
        [
            "subproject web/ is not listed: the root's tasks already hold `web/…`",
            "subproject web/ is not listed: the root Taskfile includes web/Taskfile.yml",
        ]
    );
}

/// Property: npm init's placeholder `test` in a workspace member is an aside, as the root's
/// is: shown last, never an example; and the root's placeholder is shown as `pkg:test` where
/// the bare `test` runs another runner's.
#[test]
fn placeholders_are_asides_in_members_too() {
    let placeholder = r#"echo \"Error: no test specified\" && exit 1"#;
    let member = format!(
        r#"{{"name":"glyphs","scripts":{{"test":"{placeholder}","build":"echo ran build"}}}}"#
    );
    let root_pkg = format!(
        r#"{{"name":"site","private":true,"workspaces":["packages/*"],"scripts":{{"test":"{placeholder}","dev":"echo ran dev"}}}}"#
    );
    let (_dir, root) = project(&[
        ("package.json", &root_pkg),
        ("packages/glyphs/package.json", &member),
        ("Makefile", "test:\n\t@echo ran test\n"),
    ]);
    let recipe = detect(&root, &RecipeConfig::default());
    let prompt = recipe.prompt().expect("runners");
    let pkg = prompt
        .split("<runner id=\"pkg\"")
        .nth(1)
        .and_then(|rest| rest.split("</runner>").next())
        .expect("pkg");
    let bullets: Vec<&str> = pkg
        .lines()
        .filter(|l| l.starts_with("- "))
        .map(|l| l.split(" (`").next().unwrap_or(l))
        .collect();
    assert_eq!(
        bullets,
        [
            "- `dev`",
            "- `glyphs/build`",
            "- `pkg:test` — npm init's placeholder: it only prints an error and fails",
            "- `glyphs/test` — npm init's placeholder: it only prints an error and fails",
        ],
        "{prompt}"
    );
    // `test` is make's: the placeholders yield.
    let resolved = recipe.resolve("test").expect("test resolves");
    assert_eq!(resolved.command, "make test");
}

/// Property: a Python package below a Rust root with its own noxfile.py (or tox.ini) beside
/// its pyproject.toml lists its sessions as `folder/session`, run there with `nox -s`; a
/// noxfile with no manifest beside it is no subproject.
#[test]
fn a_python_subprojects_nox_sessions() {
    require_tools(&["nox"]);
    let noxfile = "import nox\n\n\n@nox.session\ndef lint(session):\n    \"\"\"Lint the bindings.\"\"\"\n    session.run(\"ruff\", \"check\")\n";
    let (_dir, root) = project(&[
        (
            "Cargo.toml",
            "[package]\nname = \"frame\"\nversion = \"0.1.0\"\n\n[workspace]\n",
        ),
        ("src/lib.rs", ""),
        (
            "py-frame/pyproject.toml",
            "[project]\nname = \"frame\"\nversion = \"0.1.0\"\n",
        ),
        ("py-frame/noxfile.py", noxfile),
        ("notes/noxfile.py", noxfile),
    ]);
    let recipe = detect(&root, &RecipeConfig::default());
    assert_eq!(
        tasks(&recipe, "nox"),
        [("py-frame/lint".to_owned(), Some("py-frame".to_owned()))]
    );
    let resolved = recipe.resolve("py-frame/lint").expect("resolves");
    assert_eq!(
        (resolved.command.as_str(), resolved.cwd),
        ("nox -s lint", Some("py-frame"))
    );
}

/// Property: a folder right below a Rust root whose only file of its own is a
/// pyproject.toml is a subproject of the Python runners where they list something there,
/// the same names the real tools list run in that folder: poe's tasks (`poe --help`),
/// tox's `[tool.tox]` envs (`tox list`); a pyproject.toml whose project has no test, task or
/// tox env (`docs/`) is no subproject and adds no note.
#[test]
fn a_folder_with_only_a_pyproject_lists_what_poe_and_tox_list_there() {
    require_tools(&["poe", "tox"]);
    let fixtures = Fixtures::copy();
    let root = fixtures.path("rust-py-bindings");
    let recipe = detect(&root, &RecipeConfig::default());
    let under = |id: &str, folder: &str| -> Vec<String> {
        let prefix = format!("{folder}/");
        let mut names: Vec<String> = tasks(&recipe, id)
            .into_iter()
            .map(|(name, cwd)| {
                assert_eq!(cwd.as_deref(), Some(folder), "{name}");
                name.strip_prefix(&prefix).expect("folder/").to_owned()
            })
            .collect();
        names.sort();
        names
    };
    // `poe --help` lists the tasks under "Configured tasks:".
    let help = run("poe --help", &root.join("python"));
    let mut poe: Vec<String> = help
        .split("Configured tasks:")
        .nth(1)
        .expect("poe lists its tasks")
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_owned)
        .collect();
    poe.sort();
    assert_eq!(under("python", "python"), poe);
    // `tox list`: the default envs and the additional ones, `NAME -> description`.
    let listed = run("tox list", &root.join("bench"));
    let mut tox: Vec<String> = listed
        .lines()
        .filter_map(|l| l.split_once(" -> ").map(|(name, _)| name.trim().to_owned()))
        .collect();
    tox.sort();
    // tox makes `py` on demand, which `tox list` does not show.
    let ours: Vec<String> = under("tox", "bench")
        .into_iter()
        .filter(|name| name != "py")
        .collect();
    assert_eq!(ours, tox);
    let resolved = recipe.resolve("python/lint").expect("resolves");
    assert_eq!(
        (resolved.command.as_str(), resolved.cwd),
        ("poe lint", Some("python"))
    );
    let resolved = recipe.resolve("bench/bench").expect("resolves");
    assert_eq!(
        (resolved.command.as_str(), resolved.cwd),
        ("tox -e bench", Some("bench"))
    );
    let notes: Vec<&String> = recipe
        .runners()
        .flat_map(|r| &r.notes)
        .filter(|n| n.contains("docs"))
        .collect();
    assert!(notes.is_empty(), "{notes:?}");
}
