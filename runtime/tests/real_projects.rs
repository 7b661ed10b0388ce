//! Shapes found in real projects that detection must get right: names that are not what
//! they look like, and inputs sized to cost a lot.

mod support;

use std::path::Path;

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
        stderr.starts_with("error: Runner `task` failed, so its tasks are unknown: "),
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
            !both.contains("No task runner detected") && both.contains("`task` failed: "),
            "{args:?}: {both}"
        );
    }
    // No runner at all: said plainly, with no runner id suggested.
    let empty = tempfile::tempdir().expect("temp dir");
    let (_, stderr) = run(empty.path(), &["recipe", "resolve", "test"]);
    assert_eq!(
        stderr,
        "error: No task runner detected in this project, so no task can run. `speccoder recipe \
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
    let recipe = support::detect(
        dir.path(),
        &speccoder_runtime::config::RecipeConfig::default(),
    );
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
