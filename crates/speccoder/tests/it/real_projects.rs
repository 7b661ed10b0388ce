//! Shapes found in real projects that detection must get right: names that are not what
//! they look like, and inputs sized to cost a lot.

use crate::support;

use std::path::Path;
use std::time::Duration;

use serde_json::Value;
use support::{path_var, runner_json, task_names};

fn list(root: &Path) -> Value {
    support::list_explained(root, &path_var(), &root.join(".cache-test"))
}

/// The notes of runner `id` in an explained listing.
fn notes(json: &Value, id: &str) -> Vec<String> {
    runner_json(json, id)["notes"]
        .as_array()
        .expect("notes")
        .iter()
        .filter_map(|n| n.as_str().map(str::to_owned))
        .collect()
}

#[test]
fn make_names_an_op_cannot_run_are_left_out_with_a_note() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut text = b"-C..:\n\t@echo parent\ncaf".to_vec();
    text.extend_from_slice(b"\xe9:\n\t@echo latin1\nok:\n\t@echo ran ok\n");
    std::fs::write(dir.path().join("Makefile"), text).expect("write");
    let json = list(dir.path());
    assert_eq!(task_names(&json, "make"), ["ok"]);
    assert_eq!(
        notes(&json, "make"),
        [
            "target `-C..` is left out: make would read its name as an option",
            "target \"caf\u{fffd}\" is left out: its name is not valid UTF-8, so an op cannot \
             name it",
        ]
    );
}

#[test]
fn make_include_chains_share_one_byte_budget() {
    let dir = tempfile::tempdir().expect("temp dir");
    // Forty files of 2 MiB each: each is under the per-file cap, together they pass the
    // 64 MiB budget, so the last ones are not read.
    let filler = format!("# {}\n", "x".repeat(2 << 20));
    let mut main = String::from("all:\n\t@true\n");
    for i in 0..40 {
        std::fs::write(
            dir.path().join(format!("part{i:02}.mk")),
            format!("{filler}t{i:02}:\n\t@true\n"),
        )
        .expect("write");
    }
    main.push_str("include part*.mk\n");
    std::fs::write(dir.path().join("Makefile"), main).expect("write");
    let json = list(dir.path());
    let names = task_names(&json, "make");
    assert!(names.len() > 20 && names.len() < 41, "{names:?}");
    let notes = notes(&json, "make");
    assert!(
        notes
            .iter()
            .any(|n| n.ends_with("the makefiles together would pass 64 MiB; not read")),
        "{notes:?}"
    );
}

#[test]
fn a_manifest_with_a_flood_of_workspace_patterns_is_bounded() {
    let dir = tempfile::tempdir().expect("temp dir");
    let patterns: Vec<String> = (0..200_000).map(|i| format!("pkgs/p{i}/**")).collect();
    let manifest = serde_json::json!({"scripts": {"ok": "true"}, "workspaces": patterns});
    std::fs::write(dir.path().join("package.json"), manifest.to_string()).expect("write");
    std::fs::write(dir.path().join("package-lock.json"), "{}").expect("write");
    let json = list(dir.path());
    assert_eq!(task_names(&json, "pkg"), ["ok"]);
    assert!(
        notes(&json, "pkg")
            .contains(&"199000 workspace patterns past the first 1000 are ignored".to_owned()),
        "{:?}",
        notes(&json, "pkg")
    );
}

#[test]
fn go_task_names_that_are_options_or_settings_are_left_out() {
    support::require_tools(&["task"]);
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("Taskfile.yml"),
        "version: '3'\ntasks:\n  --dir=..:\n    cmds: [echo parent]\n  -d..:\n    cmds: [echo \
         parent]\n  X=1:\n    cmds: [echo set]\n  ok:\n    cmds: [echo ran ok]\n",
    )
    .expect("write");
    let json = list(dir.path());
    assert_eq!(task_names(&json, "task"), ["ok"]);
    assert_eq!(
        notes(&json, "task"),
        [
            "task `--dir=..` is left out: go-task would read its name as an option",
            "task `-d..` is left out: go-task would read its name as an option",
            "task `X=1` is left out: go-task would read its name as a variable setting",
        ]
    );
}

#[test]
fn package_scripts_that_are_options_are_left_out() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("package.json"),
        r#"{"workspaces": ["app"], "scripts": {"--cwd=..": "echo parent", "ok": "echo ok"}}"#,
    )
    .expect("write");
    std::fs::write(dir.path().join("bun.lock"), "{}").expect("write");
    std::fs::create_dir(dir.path().join("app")).expect("mkdir");
    std::fs::write(
        dir.path().join("app/package.json"),
        r#"{"name": "app", "scripts": {"-x": "echo x", "dev": "echo dev"}}"#,
    )
    .expect("write");
    let json = list(dir.path());
    assert_eq!(task_names(&json, "pkg"), ["ok", "app/dev"]);
    let notes = notes(&json, "pkg");
    for left_out in [
        "script `--cwd=..` is left out: the package manager would read its name as an option",
        "script `-x` of app/package.json is left out: the package manager would read its name \
         as an option",
    ] {
        assert!(notes.iter().any(|n| n == left_out), "{notes:?}");
    }
    // Nothing option-like becomes an allowance.
    let out = support::speccoder_with(
        dir.path(),
        &["allow", "--json"],
        &[
            ("PATH", path_var().as_os_str()),
            (
                "SPECCODER_CACHE_DIR",
                dir.path().join(".cache-test").as_os_str(),
            ),
        ],
    );
    let allow = String::from_utf8_lossy(&out.stdout);
    assert!(!allow.contains("--cwd") && !allow.contains("-x"), "{allow}");
}

#[test]
fn a_failed_runner_is_visible_without_explain() {
    support::require_tools(&["task"]);
    let fixtures = support::Fixtures::copy();
    let env = |root: &Path| {
        vec![
            ("PATH", path_var()),
            (
                "SPECCODER_CACHE_DIR",
                root.join(".cache-test").into_os_string(),
            ),
        ]
    };
    let run = |root: &Path, args: &[&str]| {
        let env = env(root);
        let env: Vec<(&str, &std::ffi::OsStr)> =
            env.iter().map(|(k, v)| (*k, v.as_os_str())).collect();
        let out = support::speccoder_with(root, args, &env);
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    // Beside a working runner: one stderr line, and an op naming it says why.
    let root = fixtures.path("broken-taskfile");
    let (_, stderr) = run(&root, &["recipe", "list"]);
    assert!(
        stderr.starts_with("speccoder: runner `task` failed: Taskfile.yml: not listed: not YAML"),
        "{stderr}"
    );
    let (_, stderr) = run(&root, &["recipe", "resolve", "task:build"]);
    assert!(
        stderr.starts_with("error: runner `task` failed, so its tasks are unknown: "),
        "{stderr}"
    );
    // Alone: never "No task runner detected".
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::copy(root.join("Taskfile.yml"), dir.path().join("Taskfile.yml")).expect("copy");
    for args in [
        &["recipe", "list"][..],
        &["recipe", "resolve", "build"],
        &["recipe", "prompt"],
    ] {
        let (stdout, stderr) = run(dir.path(), args);
        let both = format!("{stdout}{stderr}");
        assert!(
            !both.to_lowercase().contains("no task runner detected")
                && both.contains("`task` failed: "),
            "{args:?}: {both}"
        );
    }
    // No runner at all: said plainly, with no runner id suggested.
    let empty = tempfile::tempdir().expect("temp dir");
    let (_, stderr) = run(empty.path(), &["recipe", "resolve", "test"]);
    assert_eq!(
        stderr,
        "error: no task runner detected in this project, so no task can run. `speccoder recipe \
         list --explain` shows why each runner is absent.\n"
    );
}

/// Writes a pnpm monorepo of `packages` packages under `root`, shaped like a real one: a
/// root with a few scripts (a lifecycle hook among them) and packages under `apps/`,
/// `libs/` and `tools/**` with their own scripts, some excluded by a `!` pattern.
pub fn write_monorepo(root: &Path, packages: usize) {
    let write = |path: &Path, text: String| {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    };
    write(
        &root.join("package.json"),
        r#"{"name":"mono","private":true,"scripts":{"postinstall":"echo ran postinstall","build":"echo ran build","test":"echo ran test","lint":"echo ran lint","release":"echo ran release"}}"#.into(),
    );
    write(
        &root.join("pnpm-lock.yaml"),
        "lockfileVersion: '9.0'\n".into(),
    );
    write(
        &root.join("pnpm-workspace.yaml"),
        "packages:\n  - '{apps,libs}/*'\n  - 'tools/**'\n  - '!**/fixtures/**'\n".into(),
    );
    for i in 0..packages {
        let dir = match i % 3 {
            0 => format!("apps/app{i:03}"),
            1 => format!("libs/lib{i:03}"),
            _ => format!("tools/group{}/tool{i:03}", i % 7),
        };
        write(
            &root.join(&dir).join("package.json"),
            format!(
                r#"{{"name":"@mono/p{i:03}","scripts":{{"prebuild":"echo ran prebuild","build":"echo ran build","test":"echo ran test","storybook":"echo ran storybook","clean":"echo ran clean"}}}}"#
            ),
        );
        if i % 50 == 0 {
            write(
                &root.join(&dir).join("fixtures/sample/package.json"),
                r#"{"name":"sample","scripts":{"x":"echo x"}}"#.into(),
            );
        }
    }
}

#[test]
fn a_large_monorepo_prompt_and_errors_stay_bounded() {
    let dir = tempfile::tempdir().expect("temp dir");
    write_monorepo(dir.path(), 300);
    let recipe = support::detect(dir.path(), &speccoder_config::RecipeConfig::default());
    assert_eq!(
        recipe.runners().map(|r| r.tasks.len()).sum::<usize>(),
        5 + 300 * 5
    );
    let prompt = recipe.prompt().expect("a prompt");
    support::snapshots("prompt").bind(|| insta::assert_snapshot!("monorepo-300", prompt));
    // Every example op resolves.
    for example in ["test", "build"] {
        assert!(prompt.contains(&format!("`{example}`")));
        assert!(recipe.resolve(example).is_ok());
    }
    let unknown = recipe
        .resolve("@mono/p123/tset")
        .expect_err("unknown")
        .to_string();
    let listed = recipe
        .resolve("--list storybook")
        .expect_err("a listing")
        .to_string();
    let none = recipe
        .resolve("--list zzz")
        .expect_err("a listing")
        .to_string();
    support::snapshots("errors").bind(|| {
        insta::assert_snapshot!(
            "monorepo-300-errors",
            format!("{unknown}\n\n{listed}\n\n{none}")
        );
    });
    assert!(unknown.lines().count() < 6, "{unknown}");
}

/// A manifest of 40,000 scripts, half of them `pre` hooks of the other half: every hook is
/// found (each asks whether its sibling is there, once, through an index, where a scan of
/// every script for each made the prompt quadratic: 25 s for 60,000 in a release build), and
/// the prompt shows the others first and never a hook as an example.
#[test]
fn a_manifest_of_many_hooks_is_ranked_by_one_index() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut scripts = serde_json::Map::new();
    for i in 0..20_000 {
        scripts.insert(format!("pretask{i}"), "echo".into());
        scripts.insert(format!("task{i}"), "echo".into());
    }
    scripts.insert("postinstall".into(), "echo".into());
    scripts.insert("prefix".into(), "echo no fix".into());
    std::fs::write(
        dir.path().join("package.json"),
        serde_json::json!({"name": "many", "scripts": scripts}).to_string(),
    )
    .expect("manifest");
    let recipe = support::detect(dir.path(), &speccoder_config::RecipeConfig::default());
    let runner = recipe.runners().next().expect("pkg");
    let asides = speccoder_runners::Asides::of([runner]);
    let hooks: Vec<&str> = runner
        .tasks
        .iter()
        .filter(|t| asides.contains(t))
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(hooks.len(), 20_001, "every pretask and postinstall");
    assert!(hooks.contains(&"pretask19999") && hooks.contains(&"postinstall"));
    // `prefix` has no `fix` beside it: a script, not a hook. One at a time says the same.
    assert!(!hooks.contains(&"prefix") && !runner.is_aside(&runner.tasks[40_001]));
    assert!(
        runner.is_aside(&runner.tasks[0]),
        "{:?}",
        runner.tasks[0].name
    );
    let prompt = recipe.prompt().expect("a prompt");
    let bullets: Vec<&str> = prompt.lines().filter(|l| l.starts_with("- `")).collect();
    assert!(!bullets.is_empty(), "{prompt}");
    assert!(
        bullets
            .iter()
            .all(|b| !b.starts_with("- `pre") || b.starts_with("- `prefix`")),
        "a hook shown before the scripts: {bullets:?}"
    );
}

#[test]
fn a_configured_timeout_out_of_range_is_clamped_with_a_note_after_the_output() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("Makefile"), "hello:\n\t@echo ran hello\n").expect("write");
    std::fs::write(
        dir.path().join("speccoder.toml"),
        "[recipe]\ntimeout_secs = 99999\n",
    )
    .expect("write");
    let cache = dir.path().join(".cache-test");
    let out = support::speccoder_with(
        dir.path(),
        &["recipe", "run", "hello"],
        &[
            ("PATH", path_var().as_os_str()),
            ("SPECCODER_CACHE_DIR", cache.as_os_str()),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "ran hello\n\nTimeout clamped to 3600s (requested 99999s; allowed range 1-3600s).\n"
    );
}

#[test]
fn list_columns_align_by_display_width() {
    use unicode_width::UnicodeWidthStr;
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("package.json"),
        r#"{"scripts": {"测试": "echo t", "build": "echo b", "🚀deploy": "echo d", "lint": "echo l"}}"#,
    )
    .expect("write");
    std::fs::write(dir.path().join("package-lock.json"), "{}").expect("write");
    let cache = dir.path().join(".cache-test");
    let out = support::speccoder_with(
        dir.path(),
        &["recipe", "list"],
        &[
            ("PATH", path_var().as_os_str()),
            ("SPECCODER_CACHE_DIR", cache.as_os_str()),
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let columns: Vec<usize> = text
        .lines()
        .filter_map(|line| line.find(" $ ").map(|at| line[..at].width()))
        .collect();
    assert_eq!(columns.len(), 4, "{text}");
    assert!(columns.iter().all(|c| *c == columns[0]), "{text}");
}

/// The command of the python runner's `test` and the note saying why, in an explained
/// listing.
fn python_test(json: &Value) -> (String, String) {
    let command = support::tasks_of(json, "python")
        .into_iter()
        .find(|(name, _)| name == "test")
        .map(|(_, command)| command)
        .expect("a python `test`");
    let why = notes(json, "python")
        .into_iter()
        .find(|n| n.starts_with("test: "))
        .expect("a note on `test`");
    (command, why)
}

/// Writes `files` (relative path, text) under `root`.
fn write_files(root: &Path, files: &[(&str, &str)]) {
    for (rel, text) in files {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }
}

/// Property: a project shaped like python-tabulate, which names pytest only in tox.ini's
/// `deps` and `commands`, gets pytest as its `test`, and that runs its six tests, where
/// unittest's discovery ran none and said OK; the control project, whose tox.ini names
/// pytest only in a comment, keeps unittest, which runs its tests.
#[test]
fn a_project_naming_pytest_only_in_tox_ini_tests_with_pytest() {
    support::require_tools(&["pytest"]);
    let fixtures = support::Fixtures::copy();
    let root = fixtures.path("python-tabulate");
    let (command, why) = python_test(&list(&root));
    assert_eq!(command, "env PYTHONPATH=. pytest");
    assert_eq!(
        why,
        "test: pytest (`pytest` in the `commands` of `[testenv]` in tox.ini)"
    );
    // Nothing installs the package here (tox would): the command itself puts the root on
    // `sys.path`, as `python -m pytest` does, so it runs the suite from a fresh clone
    // (a bare `pytest` failed every module with `No module named 'gridtext'`).
    let out = support::sh(
        &format!("{command} -p no:cacheprovider"),
        &root,
        Duration::from_secs(120),
    );
    let text = out.stdout.text();
    assert!(out.success(), "{text}");
    assert!(text.contains("6 passed"), "{text}");
    let bare = support::sh(
        "pytest -p no:cacheprovider",
        &root,
        Duration::from_secs(120),
    );
    let text = bare.stdout.text();
    assert!(
        !bare.success() && text.contains("No module named 'gridtext'"),
        "{text}"
    );
    let before = support::sh(
        "python3 -m unittest discover -s test",
        &root,
        Duration::from_secs(60),
    );
    let text = before.stdout.text();
    assert!(text.contains("Ran 0 tests"), "{text}");

    let root = fixtures.path("python-tox-unittest");
    let (command, why) = python_test(&list(&root));
    assert_eq!(command, "python3 -m unittest discover -s tests");
    assert_eq!(
        why,
        "test: unittest (test*.py files in tests/; no pytest configuration or dependency)"
    );
    let out = support::sh(&command, &root, Duration::from_secs(60));
    let text = out.stdout.text();
    assert!(out.success() && text.contains("Ran 3 tests"), "{text}");
}

/// Property: the shape of the test files decides between pytest and unittest when no file
/// names pytest: module-level test functions, a base-less `Test` class or `import pytest`
/// in any of the files read is pytest; `unittest.TestCase` classes alone (with a
/// `test_suite` hook) stay unittest; and a test file made pytest-shaped past the first 64
/// KiB is not read that far.
#[test]
fn test_files_say_pytest_by_their_shape() {
    support::require_tools(&["pytest"]);
    let unittest_file = "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_x(self):\n        pass\n\n\ndef test_suite():\n    return unittest.TestSuite()\n";
    #[track_caller]
    fn case(files: &[(&str, &str)], command: &str, why: &str) {
        let dir = tempfile::tempdir().expect("temp dir");
        write_files(dir.path(), files);
        let got = python_test(&list(dir.path()));
        assert_eq!(
            got,
            (command.to_owned(), format!("test: {why}")),
            "{files:?}"
        );
    }
    let setup = ("setup.py", "from setuptools import setup\nsetup()\n");
    case(
        &[setup, ("tests/test_a.py", unittest_file)],
        "python3 -m unittest discover -s tests",
        "unittest (test*.py files in tests/; no pytest configuration or dependency)",
    );
    case(
        &[
            setup,
            ("tests/test_a.py", unittest_file),
            ("tests/test_b.py", "from pytest import raises\n"),
        ],
        "env PYTHONPATH=. pytest",
        "pytest (imports pytest in tests/test_b.py)",
    );
    case(
        &[
            setup,
            ("test/test_a.py", unittest_file),
            (
                "test/test_b.py",
                "class TestB:\n    def test_b(self):\n        pass\n",
            ),
        ],
        "env PYTHONPATH=. pytest",
        "pytest (a test class without a base in test/test_b.py)",
    );
    // pytest's own `*_test.py` name, in the root.
    case(
        &[
            setup,
            ("calc_test.py", "def test_add():\n    assert 1 + 1 == 2\n"),
        ],
        "env PYTHONPATH=. pytest",
        "pytest (a test function at module level in calc_test.py)",
    );
    let late = format!(
        "{unittest_file}{}\ndef test_late():\n    pass\n",
        "#\n".repeat(40_000)
    );
    case(
        &[setup, ("tests/test_a.py", &late)],
        "python3 -m unittest discover -s tests",
        "unittest (test*.py files in tests/; no pytest configuration or dependency)",
    );
}

/// Property: a hatch project runs `hatch test` when it configures hatch's test environment
/// or no env of its own installs pytest (naming `test/` when hatch's default `tests` is
/// not a folder and `default-args` is not set), pytest in the env that installs it
/// otherwise, and unittest through hatch when its tests are TestCase classes only and
/// `hatch-test` is not configured.
#[test]
fn hatch_projects_test_with_hatch_test_unless_an_env_installs_pytest() {
    support::require_tools(&["hatch"]);
    let bare = "def test_a():\n    assert True\n";
    let unittest_file =
        "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_x(self):\n        pass\n";
    #[track_caller]
    fn case(files: &[(&str, &str)], command: &str, why: &str) {
        let dir = tempfile::tempdir().expect("temp dir");
        write_files(dir.path(), files);
        let got = python_test(&list(dir.path()));
        assert_eq!(
            got,
            (command.to_owned(), format!("test: {why}")),
            "{files:?}"
        );
    }
    case(
        &[
            ("hatch.toml", "[envs.default]\ndependencies = [\"httpx\"]\n"),
            (
                "pyproject.toml",
                "[project]\nname = \"p\"\nversion = \"1\"\n",
            ),
            ("tests/test_a.py", bare),
        ],
        "hatch test",
        "`hatch test`: pytest (a test function at module level in tests/test_a.py), and no \
         hatch environment of the project installs it",
    );
    case(
        &[
            (
                "pyproject.toml",
                "[project]\nname = \"p\"\nversion = \"1\"\n[tool.hatch.envs.hatch-test]\nparallel = true\n",
            ),
            ("test/test_a.py", bare),
        ],
        "hatch test test",
        "`hatch test` (`[tool.hatch.envs.hatch-test]` in pyproject.toml); `test` named, since \
         without words it runs `tests`, which is not a folder here",
    );
    case(
        &[
            (
                "pyproject.toml",
                "[project]\nname = \"p\"\nversion = \"1\"\n[tool.hatch.envs.hatch-test]\ndefault-args = [\"test\"]\n",
            ),
            ("test/test_a.py", unittest_file),
        ],
        "hatch test",
        "`hatch test` (`[tool.hatch.envs.hatch-test]` in pyproject.toml)",
    );
    case(
        &[
            (
                "pyproject.toml",
                "[project]\nname = \"p\"\nversion = \"1\"\n[tool.hatch.envs.default]\ndependencies = [\"pytest\"]\n[tool.hatch.envs.hatch-test]\n",
            ),
            ("tests/test_a.py", bare),
        ],
        "hatch test",
        "`hatch test` (`[tool.hatch.envs.hatch-test]` in pyproject.toml)",
    );
    case(
        &[
            (
                "pyproject.toml",
                "[project]\nname = \"p\"\nversion = \"1\"\n[tool.hatch.envs.default]\ndependencies = [\"pytest\"]\n",
            ),
            ("tests/test_a.py", bare),
        ],
        "hatch run -- pytest",
        "pytest in hatch's default environment (`pytest` in pyproject.toml)",
    );
    case(
        &[
            (
                "pyproject.toml",
                "[project]\nname = \"p\"\nversion = \"1\"\noptional-dependencies = { test = [\"pytest\"] }\n[tool.hatch.envs.lint]\ndetached = true\n[tool.hatch.envs.tests]\nfeatures = [\"test\"]\n",
            ),
            ("tests/test_a.py", bare),
        ],
        "hatch run -- tests:pytest",
        "pytest in hatch's `tests` environment, which installs it (`pytest` in pyproject.toml)",
    );
    case(
        &[
            ("hatch.toml", "[envs.default]\n"),
            ("setup.py", "from setuptools import setup\nsetup()\n"),
            ("tests/test_a.py", unittest_file),
        ],
        "hatch run -- python -m unittest discover -s tests",
        "unittest (test*.py files in tests/; no pytest configuration or dependency)",
    );
}

/// Property: the `test` a hatch-test project gets is what runs its tests: `hatch test` in
/// the python-hatch-test fixture creates hatch's test environment (its data in a temporary
/// folder), installs pytest there and passes all four tests.
#[test]
fn hatch_test_runs_the_tests_of_a_hatch_test_project() {
    support::require_tools(&["hatch", "uv"]);
    let fixtures = support::Fixtures::copy();
    let root = fixtures.path("python-hatch-test");
    let (command, _) = python_test(&list(&root));
    assert_eq!(command, "hatch test");
    let data = tempfile::tempdir().expect("hatch data");
    let out = support::sh(
        &format!(
            "env HATCH_DATA_DIR={} {command}",
            speccoder_foundation::quote::quote(&data.path().display().to_string())
        ),
        &root,
        Duration::from_secs(300),
    );
    let text = out.stdout.text();
    assert!(out.success(), "{text}");
    assert!(text.contains("4 passed"), "{text}");
}

/// Property: every session `nox -l` prints for a noxfile shaped like pypa/packaging's
/// (`python=[*PYTHON_VERSIONS, "3.13t"]`, a `@nox.parametrize` over a module-level list)
/// resolves as an op to `nox -s` of that very name, and the listing holds no session nox
/// does not print (besides the bare names, which run them all). The issue: `tests-3.12`
/// did not resolve ("Did you mean `tests-3.13t`?").
#[test]
fn nox_sessions_resolve_as_nox_lists_them() {
    support::require_tools(&["nox"]);
    let fixtures = support::Fixtures::copy();
    let root = fixtures.path("nox-packaging");
    let out = support::sh("nox -l", &root, Duration::from_secs(60));
    let text = out.stdout.text();
    assert!(out.success(), "{text}");
    let printed: Vec<String> = text
        .lines()
        .filter_map(|l| l.strip_prefix("* ").or_else(|| l.strip_prefix("- ")))
        .map(|l| l.split(" -> ").next().unwrap_or(l).to_owned())
        .collect();
    assert_eq!(printed.len(), 11, "{text}");
    assert!(printed.contains(&"tests-3.12".to_owned()), "{printed:?}");
    for name in &printed {
        let out = support::speccoder(&root, &["recipe", "resolve", name]);
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            format!("nox -s {}\n", speccoder_foundation::quote::quote(name)),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let listed = support::task_names(&list(&root), "nox");
    let bare = ["tests", "downstream"];
    let extra: Vec<&String> = listed
        .iter()
        .filter(|n| !printed.contains(n) && !bare.contains(&n.as_str()))
        .collect();
    assert!(extra.is_empty(), "listed but not printed by nox: {extra:?}");
    // The parametrised session runs, and gets the words after `--`.
    let out = support::speccoder(
        &root,
        &["recipe", "run", "downstream(project='pip') -- --x"],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("ran downstream(project='pip') --x"), "{text}");
}

/// Property: a project shaped like httpx, whose tasks are shell scripts in `scripts/`, lists
/// each executable file with a `#!` line directly inside it, with the comment under that
/// line as its doc; a README, a sourced helper, a nested folder, an executable without
/// `#!` and a symlink out of the root are not tasks (the last two say why). The words after
/// the name reach the script as written.
#[test]
fn scripts_folder_lists_its_executable_scripts() {
    let fixtures = support::Fixtures::copy();
    let root = fixtures.path("scripts-httpx");
    let json = list(&root);
    let tasks: Vec<(String, String, Option<String>)> = support::runner_tasks(&json, "scripts")
        .map(|t| {
            (
                t["name"].as_str().unwrap_or("").to_owned(),
                t["command"].as_str().unwrap_or("").to_owned(),
                t["doc"].as_str().map(str::to_owned),
            )
        })
        .collect();
    let want = |name: &str, doc: Option<&str>| {
        (
            name.to_owned(),
            format!("./scripts/{name}"),
            doc.map(str::to_owned),
        )
    };
    assert_eq!(
        tasks,
        [
            want("args", Some("Print each argument it gets, one per line.")),
            want("check", None),
            want(
                "install",
                Some("Install the package and its development tools into ./venv.")
            ),
            want("lint", Some("Format the code and sort the imports.")),
            want(
                "publish",
                Some("Build and upload a release (asks before uploading).")
            ),
            want(
                "test",
                Some("Run the test suite (arguments go to pytest), then the coverage report.")
            ),
        ]
    );
    let notes = notes(&json, "scripts");
    assert_eq!(notes.len(), 2, "{notes:#?}");
    assert!(
        notes[0].starts_with("scripts/nobang is left out: it is executable but has no `#!`"),
        "{notes:#?}"
    );
    assert!(
        notes[1].starts_with("scripts/outside is left out: ") && notes[1].contains("outside"),
        "{notes:#?}"
    );
    let out = support::speccoder(&root, &["recipe", "run", "args -k 'a b' -- --x"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "ran args\narg:-k\narg:a b\narg:--\narg:--x\n"
    );
}

/// Property: hostile entries of a `scripts/` folder are looked at, never opened or
/// followed: a FIFO (which would block a reader), a symlink to `/dev/zero`, a folder that
/// is a symlink out of the root, and thousands of entries; listing stays bounded.
#[test]
fn scripts_folder_hostile_entries_stay_unread() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("temp dir");
    let scripts = dir.path().join("scripts");
    std::fs::create_dir(&scripts).expect("mkdir");
    let fifo = scripts.join("fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    assert!(made.success());
    std::fs::set_permissions(&fifo, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    std::os::unix::fs::symlink("/dev/zero", scripts.join("zero")).expect("symlink");
    let outside = tempfile::tempdir().expect("outside");
    std::os::unix::fs::symlink(outside.path(), dir.path().join("script")).expect("symlink");
    let big = scripts.join("big");
    std::fs::write(&big, format!("#!/bin/sh\n# Big.\n{}", "x".repeat(8 << 20))).expect("write");
    std::fs::set_permissions(&big, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let json = list(dir.path());
    assert_eq!(support::task_names(&json, "scripts"), ["big"]);
    let found = notes(&json, "scripts");
    assert_eq!(found.len(), 3, "{found:#?}");
    assert_eq!(found[0], "script/ is a symlink; not followed");
    assert_eq!(
        found[1],
        "scripts/fifo is left out: it is not a regular file"
    );
    assert!(
        found[2].starts_with("scripts/zero is left out: ") && found[2].contains("/dev/zero"),
        "{found:#?}"
    );
    // Thousands of entries: a bounded number is looked at, and a note says so.
    let many = tempfile::tempdir().expect("temp dir");
    let scripts = many.path().join("scripts");
    std::fs::create_dir(&scripts).expect("mkdir");
    for i in 0..3000 {
        std::fs::write(scripts.join(format!("n{i:04}")), "").expect("write");
    }
    let json = list(many.path());
    let reason = json["absent"]
        .as_array()
        .expect("absent")
        .iter()
        .find(|a| a["id"] == "scripts")
        .and_then(|a| a["reason"].as_str())
        .unwrap_or_default();
    assert_eq!(
        reason,
        "no tasks (scripts/ holds more than 1000 entries; only 1000 are read)"
    );
}

/// Property: a project shaped like click, whose `dev` dependency group (installed by `uv
/// run`, with a uv.lock) names tox and tox-uv, runs its tox envs through `uv run tox`, and
/// says why; words still go after `--`. Measured with uv 0.13 and tox 4.67: `uv run tox -e
/// lint -- --foo -- a 'b c'` hands `--foo -- a 'b c'` to `{posargs}`, as bare tox does.
#[test]
fn tox_runs_through_the_launcher_that_installs_it() {
    support::require_tools(&["uv"]);
    let fixtures = support::Fixtures::copy();
    let root = fixtures.path("tox-click");
    let json = list(&root);
    let tasks = support::tasks_of(&json, "tox");
    let commands: Vec<&str> = tasks.iter().map(|(_, c)| c.as_str()).collect();
    assert_eq!(
        commands,
        [
            "uv run tox -e py313",
            "uv run tox -e py312",
            "uv run tox -e py311",
            "uv run tox -e py310",
            "uv run tox -e style",
            "uv run tox -e typing",
            "uv run tox -e docs",
            "uv run tox -e py",
        ]
    );
    assert!(
        notes(&json, "tox").contains(
            &"tox runs through `uv run`: the project's environment (uv.lock) installs it \
              (`[dependency-groups] dev`)"
                .to_owned()
        ),
        "{:#?}",
        notes(&json, "tox")
    );
    let out = support::speccoder(&root, &["recipe", "resolve", "style --x"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "uv run tox -e style -- --x\n"
    );
}

/// Property: subprojects (a folder with its own makefile and manifest) list their targets
/// as `folder/target`; one whose makefile is a FIFO or leads out of the root is left out
/// with a note and never read or waited on; a folder without a manifest, a hidden or
/// symlinked folder and `node_modules` are no subprojects; the root's own targets stay.
#[test]
fn subprojects_are_listed_and_hostile_ones_left_out() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("p");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&outside).expect("outside");
    std::fs::write(outside.join("Makefile"), "stolen:\n\t@true\n").expect("write");
    write_files(
        &root,
        &[
            ("Makefile", "all:\n\t@true\n"),
            ("py/pyproject.toml", "[project]\nname = \"p\"\n"),
            ("py/Makefile", "test:\n\t@true\ntest-%:\n\t@true\n"),
            ("docs/Makefile", "html:\n\t@true\n"),
            ("fifo/package.json", "{}"),
            ("link/Cargo.toml", ""),
            (".hidden/go.mod", ""),
            (".hidden/Makefile", "secret:\n\t@true\n"),
            ("node_modules/x/Makefile", "dep:\n\t@true\n"),
            ("node_modules/package.json", "{}"),
            ("node_modules/Makefile", "dep:\n\t@true\n"),
        ],
    );
    let fifo = root.join("fifo/Makefile");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo")
            .success()
    );
    std::os::unix::fs::symlink(outside.join("Makefile"), root.join("link/Makefile")).expect("ln");
    std::os::unix::fs::symlink(&outside, root.join("away")).expect("ln");
    let started = std::time::Instant::now();
    let json = list(&root);
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(task_names(&json, "make"), ["all", "py/test"]);
    let notes = notes(&json, "make");
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("subproject fifo/ is not listed")),
        "{notes:#?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("subproject link/ is not listed")),
        "{notes:#?}"
    );
}
