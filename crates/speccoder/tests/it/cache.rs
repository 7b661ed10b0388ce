//! The detection cache: a warm command skips the probes, and any change to what detection
//! read is seen at once.

use crate::support;

use std::path::Path;
use std::time::Duration;

use serde_json::Value;
use support::{Fixtures, path_var, require_tools, task_names};

/// `recipe list --json --explain` with a private cache folder.
fn list(root: &Path, cache: &Path) -> Value {
    list_with_path(root, cache, &path_var())
}

fn list_with_path(root: &Path, cache: &Path, path: &std::ffi::OsStr) -> Value {
    support::list_explained(root, path, cache)
}

/// Runs detection until it is served from the cache (the first run after files were
/// written may decline to keep an entry, since a change could have raced it).
#[track_caller]
fn warm(root: &Path, cache: &Path) -> Value {
    until_cached(root, || list(root, cache))
}

/// Runs `list` (a detection of `root`) until its answer came from the cache.
#[track_caller]
fn until_cached(root: &Path, list: impl Fn() -> Value) -> Value {
    for _ in 0..5 {
        std::thread::sleep(Duration::from_millis(60));
        let json = list();
        if json["cached"] == true {
            return json;
        }
    }
    panic!("detection of {} never came from the cache", root.display());
}

/// Edits a project and checks the next detection is fresh and shows the change.
#[track_caller]
fn case(fixture: &str, runner: &str, edit: impl FnOnce(&Path), check: impl Fn(&Value)) {
    let fixtures = Fixtures::copy();
    let cache = tempfile::tempdir().expect("cache dir");
    let root = fixtures.path(fixture);
    let before = warm(&root, cache.path());
    edit(&root);
    let after = list(&root, cache.path());
    assert_eq!(after["cached"], false, "{fixture}: a stale entry was used");
    check(&after);
    assert_ne!(
        task_names(&before, runner),
        task_names(&after, runner),
        "{fixture}"
    );
    // The new answer is cached in turn and still right.
    let again = warm(&root, cache.path());
    check(&again);
}

fn has_task(runner: &'static str, name: &'static str) -> impl Fn(&Value) {
    move |json| {
        let names = task_names(json, runner);
        assert!(
            names.iter().any(|n| n == name),
            "{name} missing from {names:?}"
        );
    }
}

fn edit_file(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).expect("read");
    assert!(text.contains(from), "{} lacks {from:?}", path.display());
    std::fs::write(path, text.replacen(from, to, 1)).expect("write");
}

#[test]
fn a_warm_run_comes_from_the_cache_and_matches() {
    require_tools(&["just"]);
    let fixtures = Fixtures::copy();
    let cache = tempfile::tempdir().expect("cache dir");
    let root = fixtures.path("polyglot");
    let cold = list(&root, cache.path());
    let hot = warm(&root, cache.path());
    let strip = |mut v: Value| {
        v.as_object_mut().expect("object").remove("cached");
        v
    };
    assert_eq!(strip(cold), strip(hot));
}

#[test]
fn new_script_is_seen() {
    case(
        "pkg-npm",
        "pkg",
        |root| {
            edit_file(
                &root.join("package.json"),
                "\"build\":",
                "\"fresh\": \"echo ran fresh\",\n    \"build\":",
            );
        },
        has_task("pkg", "fresh"),
    );
}

#[test]
fn new_cargo_binary_is_seen() {
    case(
        "cargo-single",
        "cargo",
        |root| {
            std::fs::write(root.join("src/bin/fresh.rs"), "fn main() {}\n").expect("write");
        },
        has_task("cargo", "bin/fresh"),
    );
}

/// Property: a cargo alias added to the root's or a member's `.cargo/config.toml`, and a
/// member's new `.cargo/config` (which cargo prefers), are seen at once.
#[test]
fn new_cargo_aliases_are_seen() {
    require_tools(&["cargo"]);
    case(
        "cargo-xtask",
        "cargo",
        |root| {
            edit_file(
                &root.join(".cargo/config.toml"),
                "[alias]\n",
                "[alias]\nci = \"test\"\n",
            )
        },
        has_task("cargo", "ci"),
    );
    case(
        "cargo-xtask",
        "cargo",
        |root| {
            std::fs::create_dir_all(root.join("crates/core/.cargo")).expect("mkdir");
            std::fs::write(
                root.join("crates/core/.cargo/config"),
                "[alias]\nbench-core = \"bench\"\n",
            )
            .expect("write");
        },
        has_task("cargo", "edit-core/bench-core"),
    );
}

/// Property: a makefile made in an existing folder below the root that holds a manifest
/// makes it a subproject at once, and so does a manifest made beside a folder's makefile.
#[test]
fn a_new_subproject_is_seen() {
    let fixtures = Fixtures::copy();
    let cache = tempfile::tempdir().expect("cache dir");
    let root = fixtures.path("cargo-py-subproject");
    std::fs::create_dir_all(root.join("site")).expect("mkdir");
    std::fs::write(root.join("site/package.json"), "{}").expect("write");
    std::fs::create_dir_all(root.join("bench")).expect("mkdir");
    std::fs::write(root.join("bench/Makefile"), "run:\n\t@true\n").expect("write");
    let before = warm(&root, cache.path());
    assert_eq!(
        task_names(&before, "make"),
        [
            "py-frame/build",
            "py-frame/test",
            "py-frame/doctest",
            "py-frame/help"
        ]
    );
    std::fs::write(root.join("site/Makefile"), "serve:\n\t@true\n").expect("write");
    let after = list(&root, cache.path());
    assert_eq!(after["cached"], false, "a stale entry was used");
    has_task("make", "site/serve")(&after);
    warm(&root, cache.path());
    std::fs::write(root.join("bench/Cargo.toml"), "").expect("write");
    let after = list(&root, cache.path());
    assert_eq!(after["cached"], false, "a stale entry was used");
    has_task("make", "bench/run")(&after);
}

/// Property: a subproject's new script, a justfile made in a subproject's folder, and a
/// recipe added to it are each seen at once: the folders below the root and the
/// subprojects' files are inputs of the cached listing.
#[test]
fn a_subprojects_new_tasks_are_seen() {
    require_tools(&["just", "task"]);
    let fixtures = Fixtures::copy();
    let cache = tempfile::tempdir().expect("cache dir");
    let root = fixtures.path("go-web-subprojects");
    let before = warm(&root, cache.path());
    assert!(!task_names(&before, "pkg").contains(&"web/e2e-ci".to_owned()));
    edit_file(
        &root.join("web/package.json"),
        "\"dev\": \"echo ran dev\",",
        "\"dev\": \"echo ran dev\",\n    \"e2e-ci\": \"echo ran e2e-ci\",",
    );
    let after = list(&root, cache.path());
    assert_eq!(after["cached"], false, "a stale entry was used");
    has_task("pkg", "web/e2e-ci")(&after);
    warm(&root, cache.path());
    std::fs::write(root.join("docs/justfile"), "serve:\n    @echo ran serve\n").expect("write");
    let after = list(&root, cache.path());
    assert_eq!(after["cached"], false, "a stale entry was used");
    has_task("just", "docs/serve")(&after);
    warm(&root, cache.path());
    edit_file(
        &root.join("tools/Taskfile.yml"),
        "tasks:\n",
        "tasks:\n  fmt:\n    cmds:\n      - echo ran fmt\n",
    );
    let after = list(&root, cache.path());
    assert_eq!(after["cached"], false, "a stale entry was used");
    has_task("task", "tools/fmt")(&after);
}

#[test]
fn new_cargo_example_folder_is_seen() {
    case(
        "cargo-workspace",
        "cargo",
        |root| {
            std::fs::create_dir(root.join("app/examples")).expect("mkdir");
            std::fs::write(root.join("app/examples/fresh.rs"), "fn main() {}\n").expect("write");
        },
        has_task("cargo", "app/example/fresh"),
    );
}

#[test]
fn edited_justfile_and_module_are_seen() {
    require_tools(&["just"]);
    case(
        "just",
        "just",
        |root| {
            edit_file(
                &root.join("justfile"),
                "alias b := build",
                "alias b := build\n\nfresh:\n    @echo ran fresh",
            );
        },
        has_task("just", "fresh"),
    );
    case(
        "just",
        "just",
        |root| {
            edit_file(
                &root.join("sub/mod.just"),
                "[private]",
                "fresh:\n    @echo ran fresh\n\n[private]",
            );
        },
        has_task("just", "sub/fresh"),
    );
}

#[test]
fn new_workspace_package_is_seen() {
    case(
        "pkg-workspaces",
        "pkg",
        |root| {
            std::fs::create_dir(root.join("packages/b")).expect("mkdir");
            std::fs::write(
                root.join("packages/b/package.json"),
                r#"{"name": "b", "scripts": {"go": "echo ran go"}}"#,
            )
            .expect("write");
        },
        has_task("pkg", "b/go"),
    );
    case(
        "pkg-pnpm-workspace",
        "pkg",
        |root| {
            edit_file(
                &root.join("pnpm-workspace.yaml"),
                "  - 'apps/*'",
                "  - 'apps/*'\n  - 'tools'",
            );
            std::fs::create_dir(root.join("tools")).expect("mkdir");
            std::fs::write(
                root.join("tools/package.json"),
                r#"{"name": "tools", "scripts": {"gen": "echo ran gen"}}"#,
            )
            .expect("write");
        },
        has_task("pkg", "tools/gen"),
    );
}

#[test]
fn changed_package_manager_is_seen() {
    let fixtures = Fixtures::copy();
    let cache = tempfile::tempdir().expect("cache dir");
    let root = fixtures.path("pkg-manager-conflict");
    let before = warm(&root, cache.path());
    assert_eq!(before["runners"][0]["command_prefix"], "yarn run");
    edit_file(&root.join("package.json"), "yarn@1.22.22", "pnpm@12.21.0");
    let after = list(&root, cache.path());
    assert_eq!(after["cached"], false);
    assert_eq!(after["runners"][0]["command_prefix"], "pnpm run");
}

#[test]
fn included_makefile_and_taskfile_edits_are_seen() {
    case(
        "make-rules",
        "make",
        |root| {
            edit_file(
                &root.join("extra.mk"),
                ".PHONY: lint",
                ".PHONY: lint fresh\nfresh:\n\t@echo ran fresh",
            );
        },
        has_task("make", "fresh"),
    );
    require_tools(&["task"]);
    case(
        "task",
        "task",
        |root| {
            edit_file(
                &root.join("lib/Taskfile.yml"),
                "tasks:\n",
                "tasks:\n  fresh:\n    cmds:\n      - echo ran fresh\n\n",
            );
        },
        has_task("task", "lib:fresh"),
    );
}

#[test]
fn taskfile_include_with_only_internal_tasks_is_watched() {
    require_tools(&["task"]);
    let fixtures = Fixtures::copy();
    let cache = tempfile::tempdir().expect("cache dir");
    let root = fixtures.path("task");
    std::fs::create_dir(root.join("hidden")).expect("mkdir");
    std::fs::write(
        root.join("hidden/Taskfile.yml"),
        "version: '3'\ntasks:\n  quiet:\n    internal: true\n    cmds: [echo ran quiet]\n",
    )
    .expect("write");
    edit_file(
        &root.join("Taskfile.yml"),
        "includes:\n",
        "includes:\n  hidden: ./hidden\n",
    );
    let before = warm(&root, cache.path());
    assert!(!task_names(&before, "task").contains(&"hidden:quiet".to_owned()));
    edit_file(
        &root.join("hidden/Taskfile.yml"),
        "    internal: true\n",
        "",
    );
    let after = list(&root, cache.path());
    assert_eq!(after["cached"], false);
    assert!(task_names(&after, "task").contains(&"hidden:quiet".to_owned()));
}

#[test]
fn removed_manifest_and_missing_include_are_seen() {
    require_tools(&["just"]);
    let fixtures = Fixtures::copy();
    let cache = tempfile::tempdir().expect("cache dir");
    let root = fixtures.path("polyglot");
    warm(&root, cache.path());
    std::fs::remove_file(root.join("Makefile")).expect("remove");
    let after = list(&root, cache.path());
    assert_eq!(after["cached"], false);
    assert!(task_names(&after, "make").is_empty());

    // `-include missing.mk` did not exist; creating it adds its targets.
    let root = fixtures.path("make-rules");
    warm(&root, cache.path());
    std::fs::write(
        root.join("missing.mk"),
        ".PHONY: late\nlate:\n\t@echo ran late\n",
    )
    .expect("write");
    let after = list(&root, cache.path());
    assert!(task_names(&after, "make").contains(&"late".to_owned()));
}

#[test]
fn a_different_path_is_a_different_entry() {
    let fixtures = Fixtures::copy();
    let cache = tempfile::tempdir().expect("cache dir");
    let root = fixtures.path("polyglot");
    warm(&root, cache.path());
    // Without the tools folder on PATH, just is gone: the cached answer must not be used.
    let bare = std::env::var_os("PATH").unwrap_or_default();
    let json = list_with_path(&root, cache.path(), &bare);
    assert_eq!(json["cached"], false);
}

#[test]
fn cache_can_be_turned_off() {
    let fixtures = Fixtures::copy();
    let cache = tempfile::tempdir().expect("cache dir");
    let root = fixtures.path("pkg-npm");
    std::fs::write(root.join("speccoder.toml"), "[recipe]\ncache = false\n").expect("config");
    std::thread::sleep(Duration::from_millis(100));
    for _ in 0..3 {
        assert_eq!(list(&root, cache.path())["cached"], false);
    }
    assert_eq!(
        std::fs::read_dir(cache.path())
            .map(|d| d.count())
            .unwrap_or(0),
        0
    );
}

/// Runs detection until it is served from the cache, with `path` as PATH.
#[track_caller]
fn warm_with_path(root: &Path, cache: &Path, path: &std::ffi::OsStr) -> Value {
    until_cached(root, || list_with_path(root, cache, path))
}

#[test]
fn a_main_file_in_an_existing_empty_target_folder_is_seen() {
    let fixtures = Fixtures::copy();
    let cache = tempfile::tempdir().expect("cache dir");
    let root = fixtures.path("cargo-single");
    let folders = ["src/bin/foo", "examples/ex", "tests/it", "benches/b"];
    for folder in folders {
        std::fs::create_dir_all(root.join(folder)).expect("mkdir");
    }
    warm(&root, cache.path());
    for (folder, task) in folders.iter().zip(["bin/foo", "example/ex", "test/it", ""]) {
        std::fs::write(root.join(folder).join("main.rs"), "fn main() {}\n").expect("write");
        let after = list(&root, cache.path());
        assert_eq!(after["cached"], false, "{folder}: a stale entry was used");
        if !task.is_empty() {
            has_task("cargo", task)(&after);
        }
        warm(&root, cache.path());
    }
}

#[test]
fn a_runner_installed_in_a_path_folder_is_seen() {
    use std::os::unix::fs::PermissionsExt;
    let fixtures = Fixtures::copy();
    let cache = tempfile::tempdir().expect("cache dir");
    let root = fixtures.path("nox-project");
    let early = tempfile::tempdir().expect("PATH folder");
    let mut path = std::ffi::OsString::from(early.path());
    path.push(":/usr/bin:/bin");
    let before = warm_with_path(&root, cache.path(), &path);
    assert!(
        before.to_string().contains("`nox` is not on PATH"),
        "{before}"
    );
    // nox installed after the first detection: the runner is now there.
    let nox = early.path().join("nox");
    std::fs::write(&nox, "#!/bin/sh\nexit 0\n").expect("nox");
    std::fs::set_permissions(&nox, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let after = list_with_path(&root, cache.path(), &path);
    assert_eq!(after["cached"], false, "a stale entry was used");
    assert!(
        support::runner_json(&after, "nox")["tasks"]
            .as_array()
            .is_some_and(|t| !t.is_empty()),
        "{after}"
    );
}

/// Property: the package manager is the project's, never what is on PATH: with no
/// declaration or lockfile, bun on PATH leaves npm chosen (it chose bun before).
#[test]
fn the_package_manager_does_not_follow_path() {
    use std::os::unix::fs::PermissionsExt;
    let fixtures = Fixtures::copy();
    let cache = tempfile::tempdir().expect("cache dir");
    let root = fixtures.path("pkg-npm");
    std::fs::remove_file(root.join("package-lock.json")).expect("no lockfile");
    let early = tempfile::tempdir().expect("PATH folder");
    let bun = early.path().join("bun");
    std::fs::write(&bun, "#!/bin/sh\nexit 0\n").expect("bun");
    std::fs::set_permissions(&bun, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let mut path = std::ffi::OsString::from(early.path());
    path.push(":/usr/bin:/bin");
    let listed = list_with_path(&root, cache.path(), &path);
    assert_eq!(
        support::runner_json(&listed, "pkg")["command_prefix"],
        "npm run",
        "{listed}"
    );
    // A manager's own configuration names it without a lockfile, and is seen at once.
    std::fs::write(root.join("pnpm-workspace.yaml"), "packages: []\n").expect("write");
    let listed = list_with_path(&root, cache.path(), &path);
    assert_eq!(listed["cached"], false, "a stale entry was used");
    assert_eq!(
        support::runner_json(&listed, "pkg")["command_prefix"],
        "pnpm run",
        "{listed}"
    );
}

#[test]
fn a_runner_shadowed_by_a_new_binary_earlier_on_path_is_seen() {
    use std::os::unix::fs::PermissionsExt;
    require_tools(&["just"]);
    let fixtures = Fixtures::copy();
    let cache = tempfile::tempdir().expect("cache dir");
    let root = fixtures.path("just");
    let early = tempfile::tempdir().expect("PATH folder");
    let mut path = std::ffi::OsString::from(early.path());
    path.push(":");
    path.push(path_var());
    warm_with_path(&root, cache.path(), &path);
    let just = early.path().join("just");
    std::fs::write(&just, "#!/bin/sh\nexit 3\n").expect("just");
    std::fs::set_permissions(&just, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let after = list_with_path(&root, cache.path(), &path);
    assert_eq!(after["cached"], false, "a stale entry was used");
    assert!(after.to_string().contains("exited with code 3"), "{after}");
}

#[test]
fn a_failed_runner_is_kept_until_its_inputs_change() {
    use std::os::unix::fs::PermissionsExt;
    let fixtures = Fixtures::copy();
    let cache = tempfile::tempdir().expect("cache dir");
    let root = fixtures.path("just");
    let bin = tempfile::tempdir().expect("bin");
    let calls = bin.path().join("calls");
    let just = bin.path().join("just");
    std::fs::write(
        &just,
        format!(
            "#!/bin/sh\necho call >> '{}'\necho broken >&2\nexit 1\n",
            calls.display()
        ),
    )
    .expect("just");
    std::fs::set_permissions(&just, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let mut path = std::ffi::OsString::from(bin.path());
    path.push(":/usr/bin:/bin");
    let count = || {
        std::fs::read_to_string(&calls)
            .unwrap_or_default()
            .lines()
            .count()
    };
    let cached = warm_with_path(&root, cache.path(), &path);
    assert!(cached.to_string().contains("broken"), "{cached}");
    let probed = count();
    for _ in 0..3 {
        assert_eq!(list_with_path(&root, cache.path(), &path)["cached"], true);
    }
    assert_eq!(count(), probed, "a cached failure probed again");
    // Editing the justfile (or what it imports) probes again.
    edit_file(&root.join("justfile"), "build", "build2");
    assert_eq!(list_with_path(&root, cache.path(), &path)["cached"], false);
    assert_eq!(count(), probed + 1);
}

#[test]
fn a_failed_cargo_workspace_is_probed_again_once_a_member_is_fixed() {
    let base = tempfile::tempdir().expect("temp dir");
    let cache = tempfile::tempdir().expect("cache dir");
    let root = base.path().join("ws");
    std::fs::create_dir_all(root.join("crates/a/src")).expect("mkdir");
    std::fs::write(
        root.join("Cargo.toml"),
        "[workspace]\nmembers = [\"crates/*\"]\n",
    )
    .expect("write");
    let member = root.join("crates/a/Cargo.toml");
    let good = "[package]\nname = \"a\"\nversion = \"0.1.0\"\nedition = \"2021\"\n";
    std::fs::write(&member, format!("{good}broken = = 1\n")).expect("write");
    std::fs::write(root.join("crates/a/src/main.rs"), "fn main() {}\n").expect("write");
    let failed = warm(&root, cache.path());
    assert!(
        failed["absent"]
            .as_array()
            .expect("absent")
            .iter()
            .any(|a| a["id"] == "cargo" && a["state"] == "failed"),
        "{failed}"
    );
    // The error names the member's manifest relative to the root (`--> crates/a/…`).
    std::fs::write(&member, good).expect("fix");
    let fixed = list(&root, cache.path());
    assert_eq!(fixed["cached"], false, "the stale failure was served");
    has_task("cargo", "bin/a")(&fixed);
}

#[test]
fn a_failed_justfile_is_probed_again_once_its_module_is_fixed() {
    require_tools(&["just"]);
    let fixtures = Fixtures::copy();
    let cache = tempfile::tempdir().expect("cache dir");
    let root = fixtures.path("just");
    let module = root.join("sub/mod.just");
    let good = std::fs::read_to_string(&module).expect("module");
    std::fs::write(&module, format!("{good}\nbroken recipe ((\n")).expect("break");
    let failed = warm(&root, cache.path());
    assert!(failed.to_string().contains("\"failed\""), "{failed}");
    std::fs::write(&module, good).expect("fix");
    let fixed = list(&root, cache.path());
    assert_eq!(fixed["cached"], false, "the stale failure was served");
    assert!(!task_names(&fixed, "just").is_empty());
}

#[test]
fn a_failed_taskfile_is_probed_again_once_its_include_is_fixed() {
    require_tools(&["task"]);
    let fixtures = Fixtures::copy();
    let cache = tempfile::tempdir().expect("cache dir");
    let root = fixtures.path("task");
    let included = root.join("lib/Taskfile.yml");
    let good = std::fs::read_to_string(&included).expect("include");
    std::fs::write(&included, format!("{good}\n  : [broken\n")).expect("break");
    let failed = warm(&root, cache.path());
    assert!(failed.to_string().contains("\"failed\""), "{failed}");
    std::fs::write(&included, good).expect("fix");
    let fixed = list(&root, cache.path());
    assert_eq!(fixed["cached"], false, "the stale failure was served");
    assert!(!task_names(&fixed, "task").is_empty());
}

/// The cache's own folders on the way (`speccoder` in `$XDG_CACHE_HOME`) are checked like
/// the outputs folder's: a `speccoder` that is a symlink, or another user's open to all, is
/// neither read nor written (detection still works, uncached).
#[test]
fn a_cache_parent_not_safely_ours_is_not_used() {
    require_tools(&["just"]);
    let fixtures = Fixtures::copy();
    let root = fixtures.path("just");
    let home = tempfile::tempdir().expect("cache home");
    let speccoder = home.path().join("speccoder");
    let list = || {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_speccoder"))
            .arg("-C")
            .arg(&root)
            .args(["recipe", "list", "--json", "--explain"])
            .env("PATH", path_var())
            .env_remove("SPECCODER_CACHE_DIR")
            .env("XDG_CACHE_HOME", home.path())
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let json: Value = serde_json::from_slice(&out.stdout).expect("json");
        assert!(!task_names(&json, "just").is_empty());
        json
    };
    let elsewhere = home.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).expect("mkdir");
    std::os::unix::fs::symlink(&elsewhere, &speccoder).expect("link");
    for _ in 0..3 {
        std::thread::sleep(Duration::from_millis(60));
        assert_ne!(list()["cached"], true);
    }
    assert_eq!(std::fs::read_dir(&elsewhere).expect("dir").count(), 0);
    if rustix::process::geteuid().is_root() {
        use std::os::unix::fs::PermissionsExt;
        std::fs::remove_file(&speccoder).expect("unlink");
        std::fs::create_dir(&speccoder).expect("mkdir");
        std::fs::set_permissions(&speccoder, std::fs::Permissions::from_mode(0o777))
            .expect("chmod");
        std::os::unix::fs::chown(&speccoder, Some(65534), Some(65534)).expect("chown");
        for _ in 0..3 {
            std::thread::sleep(Duration::from_millis(60));
            assert_ne!(list()["cached"], true);
        }
        assert_eq!(std::fs::read_dir(&speccoder).expect("dir").count(), 0);
    }
}

#[test]
fn go_work_members_and_new_commands_are_seen() {
    require_tools(&["go"]);
    // A member dropped from go.work leaves with its commands.
    case(
        "go-workspace",
        "go",
        |root| edit_file(&root.join("go.work"), "\t./tools\n", ""),
        |json| {
            let names = task_names(json, "go");
            assert!(!names.iter().any(|n| n.starts_with("tools/")), "{names:?}");
        },
    );
    // A member whose go.mod goes is no module: left out.
    case(
        "go-workspace",
        "go",
        |root| std::fs::remove_file(root.join("tools/go.mod")).expect("remove"),
        |json| {
            let names = task_names(json, "go");
            assert!(!names.contains(&"tools/run/gen".to_owned()), "{names:?}");
        },
    );
    // A new command folder, in the root module and in a member.
    case(
        "go-workspace",
        "go",
        |root| {
            std::fs::create_dir(root.join("tools/cmd/fresh")).expect("mkdir");
            std::fs::write(
                root.join("tools/cmd/fresh/main.go"),
                "package main\n\nfunc main() {}\n",
            )
            .expect("write");
        },
        has_task("go", "tools/run/fresh"),
    );
    case(
        "go-module",
        "go",
        |root| {
            std::fs::create_dir(root.join("cmd/fresh")).expect("mkdir");
            std::fs::write(root.join("cmd/fresh/main.go"), "package main\n").expect("write");
        },
        has_task("go", "run/fresh"),
    );
    // A command's file turned into an ignored one, and the root package into a library.
    case(
        "go-module",
        "go",
        |root| {
            edit_file(
                &root.join("cmd/migrate/main.go"),
                "/*",
                "//go:build ignore\n\n/*",
            );
            edit_file(&root.join("main.go"), "package main", "package notes");
        },
        |json| {
            assert_eq!(task_names(json, "go"), ["test", "build", "vet"]);
        },
    );
    // A go.work that did not exist makes the project a workspace.
    case(
        "go-module",
        "go",
        |root| {
            std::fs::write(
                root.join("go.work"),
                "go 1.22\n\nuse (\n\t.\n\t./plugins\n)\n",
            )
            .expect("go.work");
            std::fs::create_dir_all(root.join("plugins/cmd/hello")).expect("mkdir");
            std::fs::write(root.join("plugins/go.mod"), "module example.com/plugins\n")
                .expect("go.mod");
            std::fs::write(root.join("plugins/cmd/hello/main.go"), "package main\n").expect("main");
        },
        has_task("go", "plugins/run/hello"),
    );
}

#[test]
fn an_edited_go_mod_is_seen() {
    require_tools(&["go"]);
    let fixtures = Fixtures::copy();
    let cache = tempfile::tempdir().expect("cache dir");
    let root = fixtures.path("go-module");
    let note = |json: &Value| json["runners"][0]["notes"].to_string();
    let before = warm(&root, cache.path());
    assert!(note(&before).contains("toolchain go1.22.0"), "{before}");
    edit_file(
        &root.join("go.mod"),
        "toolchain go1.22.0",
        "toolchain go1.22.1",
    );
    let after = list(&root, cache.path());
    assert_eq!(after["cached"], false);
    assert!(note(&after).contains("toolchain go1.22.1"), "{after}");
    std::fs::remove_file(root.join("go.mod")).expect("remove");
    let after = list(&root, cache.path());
    assert_eq!(task_names(&after, "go"), Vec::<String>::new());
}

/// The command of a task of the `python` runner, if it is listed.
fn python_command(json: &Value, name: &str) -> Option<String> {
    json["runners"]
        .as_array()?
        .iter()
        .find(|r| r["id"] == "python")?["tasks"]
        .as_array()?
        .iter()
        .find(|t| t["name"] == name)
        .and_then(|t| t["command"].as_str())
        .map(str::to_owned)
}

/// Property: every file the Python runner looks at is an input: a conftest.py appearing
/// makes `test` pytest, a new `.venv` and then a uv.lock change the launcher, an edited
/// pyproject.toml adds its tasks, and edits to a requirements file, to a test file read for
/// its shape and to tox.ini's commands turn `test` between pytest and unittest.
#[test]
fn python_inputs_are_seen() {
    require_tools(&["pytest", "uv", "poe"]);
    let fixtures = Fixtures::copy();
    let cache = tempfile::tempdir().expect("cache dir");
    let root = fixtures.path("python-unittest");
    #[track_caller]
    fn step(root: &Path, cache: &Path, edit: impl FnOnce(&Path), task: &str, want: &str) {
        warm(root, cache);
        edit(root);
        let after = list(root, cache);
        assert_eq!(after["cached"], false, "a stale entry was used");
        assert_eq!(python_command(&after, task).as_deref(), Some(want));
        let again = warm(root, cache);
        assert_eq!(python_command(&again, task).as_deref(), Some(want));
    }
    let before = list(&root, cache.path());
    assert_eq!(
        python_command(&before, "test").as_deref(),
        Some("python3 -m unittest discover -s tests")
    );
    step(
        &root,
        cache.path(),
        |root| std::fs::write(root.join("tests/conftest.py"), "").expect("conftest"),
        "test",
        "env PYTHONPATH=. pytest",
    );
    step(
        &root,
        cache.path(),
        |root| {
            std::fs::create_dir_all(root.join(".venv/bin")).expect("venv");
            std::fs::write(root.join(".venv/bin/python"), "").expect("python");
        },
        "test",
        ".venv/bin/python -m pytest",
    );
    step(
        &root,
        cache.path(),
        |root| std::fs::write(root.join("uv.lock"), "version = 1\n").expect("lock"),
        "test",
        "uv run pytest",
    );
    step(
        &root,
        cache.path(),
        |root| {
            std::fs::write(
                root.join("pyproject.toml"),
                "[tool.poe.tasks]\ndocs = \"echo docs\"\n",
            )
            .expect("pyproject")
        },
        "docs",
        "poe docs",
    );
    step(
        &root,
        cache.path(),
        |root| edit_file(&root.join("pyproject.toml"), "docs", "site"),
        "site",
        "poe site",
    );
    // A requirements file that no longer names pytest: the bare test functions still say
    // pytest; then the test file read for its shape, edited in place (its folder does not
    // change), turns `test` to unittest and back.
    let root = fixtures.path("python-pytest-requirements");
    step(
        &root,
        cache.path(),
        |root| std::fs::write(root.join("tests/requirements.txt"), "hypothesis\n").expect("edit"),
        "test",
        "env PYTHONPATH=. pytest",
    );
    step(
        &root,
        cache.path(),
        |root| {
            std::fs::write(
                root.join("tests/test_parse.py"),
                "import unittest\n\n\nclass ParseTest(unittest.TestCase):\n    def test_x(self):\n        pass\n",
            )
            .expect("edit")
        },
        "test",
        "python3 -m unittest discover -s tests",
    );
    step(
        &root,
        cache.path(),
        |root| {
            edit_file(
                &root.join("tests/test_parse.py"),
                "import unittest",
                "import pytest",
            )
        },
        "test",
        "env PYTHONPATH=. pytest",
    );
    // tox.ini's commands: the docs env made to run pytest.
    let root = fixtures.path("python-tox-unittest");
    step(
        &root,
        cache.path(),
        |root| {
            edit_file(
                &root.join("tox.ini"),
                "sphinx-build -b doctest docs docs/_build",
                "pytest --doctest-glob='*.rst' docs",
            )
        },
        "test",
        "env PYTHONPATH=. pytest",
    );
}

/// Property: an edited tox.ini or noxfile.py, and a tox configuration tox would read
/// before tox.ini's (none comes before it, so a new tox.toml is not used while tox.ini is
/// there), change the listing at once.
#[test]
fn edited_tox_ini_and_noxfile_are_seen() {
    require_tools(&["tox", "nox"]);
    case(
        "tox-project",
        "tox",
        |root| {
            edit_file(
                &root.join("tox.ini"),
                "[testenv:docs]",
                "[testenv:fresh]\ncommands = python -c \"print('ran fresh')\"\n\n[testenv:docs]",
            );
        },
        has_task("tox", "fresh"),
    );
    case(
        "tox-project",
        "tox",
        |root| {
            edit_file(&root.join("tox.ini"), "py3{10,11}", "py3{10,11,12}");
        },
        has_task("tox", "py312"),
    );
    case(
        "nox-project",
        "nox",
        |root| {
            edit_file(
                &root.join("noxfile.py"),
                "@session(python=False)",
                "@session(python=False)\ndef fresh(session):\n    print(\"ran fresh\")\n\n\n@session(python=False)",
            );
        },
        has_task("nox", "fresh"),
    );
}

/// Property: with tox.ini gone, the `[tool.tox]` of pyproject.toml is read, and that
/// change is seen.
#[test]
fn removed_tox_ini_falls_back_to_pyproject() {
    require_tools(&["tox"]);
    case(
        "tox-project",
        "tox",
        |root| {
            std::fs::remove_file(root.join("tox.ini")).expect("remove");
            let pyproject = root.join("pyproject.toml");
            let mut text = std::fs::read_to_string(&pyproject).expect("read");
            text.push_str("\n[tool.tox]\nenv_list = [\"fresh\"]\n");
            std::fs::write(&pyproject, text).expect("write");
        },
        has_task("tox", "fresh"),
    );
}

/// A `$(wildcard NAME)` in a make condition makes NAME an input: creating it turns the
/// branch (the doc of `common-deps` is the other branch's).
#[test]
fn a_file_a_make_condition_looks_for_is_an_input() {
    let fixtures = Fixtures::copy();
    let cache = tempfile::tempdir().expect("cache dir");
    let root = fixtures.path("make-common");
    let deps_doc = |json: &Value| -> String {
        support::runner_tasks(json, "make")
            .find(|t| t["name"] == "common-deps")
            .and_then(|t| t["doc"].as_str().map(str::to_owned))
            .unwrap_or_default()
    };
    let before = warm(&root, cache.path());
    assert!(
        deps_doc(&before).contains("GOPATH"),
        "{}",
        deps_doc(&before)
    );
    std::fs::write(root.join("go.mod"), "module example.com/x\n").expect("go.mod");
    let after = list(&root, cache.path());
    assert_eq!(after["cached"], false, "a stale entry was used");
    let doc = deps_doc(&after);
    assert!(doc.contains("go.mod") && !doc.contains("GOPATH"), "{doc}");
}

/// A package that is not a workspace itself, three folders down: `outer/mid/lone`.
fn lone_package(dir: &Path) -> std::path::PathBuf {
    let root = dir.join("outer/mid/lone");
    std::fs::create_dir_all(root.join("src")).expect("mkdir");
    std::fs::write(
        root.join("Cargo.toml"),
        "[package]\nname = \"lone\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .expect("manifest");
    std::fs::write(root.join("src/main.rs"), "fn main() {}\n").expect("main");
    root.canonicalize().expect("canonical")
}

#[test]
fn a_workspace_made_two_folders_above_a_cargo_package_is_seen() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cache = tempfile::tempdir().expect("cache dir");
    let root = lone_package(dir.path());
    has_task("cargo", "bin/lone")(&warm(&root, cache.path()));
    // cargo looks for the package's workspace in every folder above it, not just the
    // nearest: this one does not list it, so cargo refuses the package.
    std::fs::write(
        dir.path().join("outer/Cargo.toml"),
        "[workspace]\nmembers = []\n",
    )
    .expect("workspace");
    let after = list(&root, cache.path());
    assert_eq!(after["cached"], false, "a stale entry was used");
    assert!(
        after.to_string().contains("believes it's in a workspace"),
        "{after}"
    );
}

#[test]
fn a_folder_made_beside_a_cargo_package_keeps_its_entry() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cache = tempfile::tempdir().expect("cache dir");
    let root = lone_package(dir.path());
    warm(&root, cache.path());
    // Another project next to this one changes nothing cargo reads for it.
    std::fs::create_dir(dir.path().join("outer/mid/other")).expect("mkdir");
    std::fs::write(dir.path().join("outer/mid/notes.txt"), "x\n").expect("write");
    assert_eq!(list(&root, cache.path())["cached"], true);
}

/// `recipe list --json --explain` with a private cache folder and `env` added to the
/// environment.
fn list_with_env(root: &Path, cache: &Path, env: &[(&str, &str)]) -> Value {
    support::list_explained_with(root, &path_var(), cache, env)
}

/// Like [`warm`], with `env` added to the environment of every run.
#[track_caller]
fn warm_with_env(root: &Path, cache: &Path, env: &[(&str, &str)]) -> Value {
    until_cached(root, || list_with_env(root, cache, env))
}

#[test]
fn an_environment_variable_a_makefile_condition_reads_is_seen() {
    require_tools(&["make"]);
    let dir = tempfile::tempdir().expect("temp dir");
    let cache = tempfile::tempdir().expect("cache dir");
    let root = dir.path().canonicalize().expect("canonical");
    std::fs::write(
        root.join("Makefile"),
        "build:\n\techo b\nifdef SPECCODER_TEST_EXTRA\nextra:\n\techo e\nendif\n\
         ifeq ($(SPECCODER_TEST_MODE),full)\nfull:\n\techo f\nendif\n",
    )
    .expect("makefile");
    let before = warm_with_env(&root, cache.path(), &[]);
    assert_eq!(task_names(&before, "make"), ["build"]);
    // make takes a variable no makefile sets from the environment.
    let extra = [("SPECCODER_TEST_EXTRA", "1")];
    let after = list_with_env(&root, cache.path(), &extra);
    assert_eq!(after["cached"], false, "a stale entry was used");
    assert_eq!(task_names(&after, "make"), ["build", "extra"]);
    let both = [
        ("SPECCODER_TEST_EXTRA", "1"),
        ("SPECCODER_TEST_MODE", "full"),
    ];
    warm_with_env(&root, cache.path(), &extra);
    let full = list_with_env(&root, cache.path(), &both);
    assert_eq!(full["cached"], false, "a stale entry was used");
    assert_eq!(task_names(&full, "make"), ["build", "extra", "full"]);
    // A variable no condition reads keeps the entry.
    let unrelated = [
        ("SPECCODER_TEST_EXTRA", "1"),
        ("SPECCODER_TEST_MODE", "full"),
        ("SPECCODER_TEST_OTHER", "x"),
    ];
    warm_with_env(&root, cache.path(), &both);
    assert_eq!(
        list_with_env(&root, cache.path(), &unrelated)["cached"],
        true
    );
}

#[test]
fn an_environment_variable_a_taskfile_template_reads_is_seen() {
    require_tools(&["task"]);
    let dir = tempfile::tempdir().expect("temp dir");
    let cache = tempfile::tempdir().expect("cache dir");
    let root = dir.path().canonicalize().expect("canonical");
    std::fs::write(
        root.join("Taskfile.yml"),
        "version: '3'\nincludes:\n  sub:\n    taskfile: ./{{.SPECCODER_TEST_SUBDIR}}\n    \
         optional: true\ntasks:\n  build:\n    cmds: [echo b]\n",
    )
    .expect("taskfile");
    for (sub, task) in [("a", "ta"), ("b", "tb")] {
        std::fs::create_dir(root.join(sub)).expect("mkdir");
        std::fs::write(
            root.join(sub).join("Taskfile.yml"),
            format!("version: '3'\ntasks:\n  {task}:\n    cmds: [echo {task}]\n"),
        )
        .expect("include");
    }
    let before = warm_with_env(&root, cache.path(), &[("SPECCODER_TEST_SUBDIR", "a")]);
    has_task("task", "sub:ta")(&before);
    // go-task expands an include's path with the environment's variables.
    let after = list_with_env(&root, cache.path(), &[("SPECCODER_TEST_SUBDIR", "b")]);
    assert_eq!(after["cached"], false, "a stale entry was used");
    has_task("task", "sub:tb")(&after);
}

#[test]
fn another_rustup_toolchain_is_seen() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cache = tempfile::tempdir().expect("cache dir");
    let root = lone_package(dir.path());
    has_task("cargo", "bin/lone")(&warm(&root, cache.path()));
    // The toolchain the listing is pinned to comes from RUSTUP_TOOLCHAIN: one that is not
    // installed makes cargo fail (whatever RUSTUP_TOOLCHAIN the test runs under).
    let after = list_with_env(
        &root,
        cache.path(),
        &[("RUSTUP_TOOLCHAIN", "no-such-toolchain")],
    );
    assert_eq!(after["cached"], false, "a stale entry was used");
    assert!(after.to_string().contains("no-such-toolchain"), "{after}");
}

/// A project `p` with a justfile (`build`), and `other.just` (`other`) beside it, outside
/// the project; the folder holding both comes first.
fn justfile_and_another_outside() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("p");
    std::fs::create_dir(&root).expect("mkdir");
    std::fs::write(root.join("justfile"), "build:\n    echo b\n").expect("justfile");
    let other = dir.path().join("other.just");
    std::fs::write(&other, "other:\n    echo o\n").expect("other");
    (dir, root, other)
}

#[test]
fn a_justfile_named_by_the_environment_is_seen() {
    require_tools(&["just"]);
    let (_dir, root, other) = justfile_and_another_outside();
    let cache = tempfile::tempdir().expect("cache dir");
    has_task("just", "build")(&warm_with_env(&root, cache.path(), &[]));
    // just reads `--justfile` from JUST_JUSTFILE.
    let named = other.to_str().expect("utf-8");
    let after = list_with_env(&root, cache.path(), &[("JUST_JUSTFILE", named)]);
    assert_eq!(after["cached"], false, "a stale entry was used");
    has_task("just", "other")(&after);
}

#[test]
fn an_edit_to_a_justfile_the_environment_names_outside_the_root_is_seen() {
    require_tools(&["just"]);
    let (_dir, root, other) = justfile_and_another_outside();
    let cache = tempfile::tempdir().expect("cache dir");
    let env = [("JUST_JUSTFILE", other.to_str().expect("utf-8"))];
    has_task("just", "other")(&warm_with_env(&root, cache.path(), &env));
    // just lists the file JUST_JUSTFILE names, not the root's justfile.
    std::fs::write(&other, "other:\n    echo o\nadded:\n    echo a\n").expect("edit");
    let after = list_with_env(&root, cache.path(), &env);
    assert_eq!(after["cached"], false, "a stale entry was used");
    has_task("just", "added")(&after);
}

#[test]
fn a_file_an_imported_justfile_imports_is_seen() {
    require_tools(&["just"]);
    let dir = tempfile::tempdir().expect("temp dir");
    let cache = tempfile::tempdir().expect("cache dir");
    let root = dir.path().canonicalize().expect("canonical");
    std::fs::create_dir(root.join("inc")).expect("mkdir");
    std::fs::write(
        root.join("justfile"),
        "import 'inc/a.just'\nbuild:\n    echo b\n",
    )
    .expect("justfile");
    std::fs::write(root.join("inc/a.just"), "import 'b.just'\na:\n    echo a\n").expect("a");
    std::fs::write(root.join("inc/b.just"), "b:\n    echo b\n").expect("b");
    has_task("just", "b")(&warm(&root, cache.path()));
    // Edited in place: no folder's entries change, only the file two imports down.
    edit_file(&root.join("inc/b.just"), "b:", "fresh:\n    echo f\nb:");
    let after = list(&root, cache.path());
    assert_eq!(after["cached"], false, "a stale entry was used");
    has_task("just", "fresh")(&after);
}

#[test]
fn an_edited_dotenv_file_of_a_taskfile_is_seen() {
    require_tools(&["task"]);
    let dir = tempfile::tempdir().expect("temp dir");
    let cache = tempfile::tempdir().expect("cache dir");
    let root = dir.path().canonicalize().expect("canonical");
    std::fs::write(
        root.join("Taskfile.yml"),
        "version: '3'\ndotenv: ['.env']\ntasks:\n  build:\n    desc: 'build {{.SPECCODER_TEST_WHAT}}'\n    cmds: [echo b]\n",
    )
    .expect("taskfile");
    std::fs::write(root.join(".env"), "SPECCODER_TEST_WHAT=one\n").expect("dotenv");
    let doc = |json: &Value| -> String {
        support::runner_tasks(json, "task")
            .find(|t| t["name"] == "build")
            .and_then(|t| t["doc"].as_str().map(str::to_owned))
            .unwrap_or_default()
    };
    assert_eq!(doc(&warm(&root, cache.path())), "build one");
    // go-task fills the listing's templates with the dotenv file's variables.
    std::fs::write(root.join(".env"), "SPECCODER_TEST_WHAT=two\n").expect("dotenv");
    let after = list(&root, cache.path());
    assert_eq!(after["cached"], false, "a stale entry was used");
    assert_eq!(doc(&after), "build two");
}

#[test]
fn a_default_toolchain_installed_after_a_failure_is_seen() {
    require_tools(&["rustup", "rustc"]);
    let dir = tempfile::tempdir().expect("temp dir");
    let cache = tempfile::tempdir().expect("cache dir");
    let root = lone_package(dir.path());
    // A rustup folder of its own whose default toolchain is not installed yet.
    let home = dir.path().join("rustup");
    std::fs::create_dir_all(home.join("toolchains")).expect("mkdir");
    std::fs::write(
        home.join("settings.toml"),
        "version = \"12\"\ndefault_toolchain = \"speccoder-test\"\n",
    )
    .expect("settings");
    // An empty RUSTUP_TOOLCHAIN is no choice: the default in settings.toml is used.
    let env = [
        ("RUSTUP_HOME", home.to_str().expect("utf-8")),
        ("RUSTUP_TOOLCHAIN", ""),
    ];
    let before = warm_with_env(&root, cache.path(), &env);
    assert!(before.to_string().contains("speccoder-test"), "{before}");
    // Installed as `rustup toolchain link` does: this toolchain's folder, by a link.
    let sysroot = std::process::Command::new("rustc")
        .args(["--print", "sysroot"])
        .output()
        .expect("rustc");
    let sysroot = String::from_utf8(sysroot.stdout).expect("utf-8");
    std::os::unix::fs::symlink(sysroot.trim(), home.join("toolchains/speccoder-test"))
        .expect("link");
    let after = list_with_env(&root, cache.path(), &env);
    assert_eq!(after["cached"], false, "a stale entry was used");
    has_task("cargo", "bin/lone")(&after);
}

/// Property: the scripts runner's answer follows its folders: a new script, an existing
/// file made executable (which changes the file, not the folder), a new `script/` folder
/// and an edited doc line are each seen at once.
#[test]
fn scripts_folders_are_inputs() {
    use std::os::unix::fs::PermissionsExt;
    let executable = |path: &Path| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod")
    };
    case(
        "scripts-httpx",
        "scripts",
        |root| {
            let path = root.join("scripts/fresh");
            std::fs::write(&path, "#!/bin/sh\necho ran fresh\n").expect("write");
            executable(&path);
        },
        has_task("scripts", "fresh"),
    );
    case(
        "scripts-httpx",
        "scripts",
        |root| {
            edit_file(
                &root.join("scripts/env.sh"),
                "# Sourced",
                "#!/bin/sh\n# Sourced",
            );
            executable(&root.join("scripts/env.sh"));
        },
        has_task("scripts", "env.sh"),
    );
    case(
        "scripts-httpx",
        "scripts",
        |root| {
            std::fs::create_dir(root.join("script")).expect("mkdir");
            let path = root.join("script/bootstrap");
            std::fs::write(&path, "#!/bin/sh\necho ran bootstrap\n").expect("write");
            executable(&path);
        },
        has_task("scripts", "bootstrap"),
    );
    let fixtures = Fixtures::copy();
    let cache = tempfile::tempdir().expect("cache dir");
    let root = fixtures.path("scripts-httpx");
    warm(&root, cache.path());
    edit_file(&root.join("scripts/lint"), "# Format", "# Check and format");
    let after = list(&root, cache.path());
    assert_eq!(after["cached"], false, "a stale entry was used");
    let doc = support::runner_tasks(&after, "scripts")
        .find(|t| t["name"] == "lint")
        .and_then(|t| t["doc"].as_str().map(str::to_owned));
    assert_eq!(
        doc.as_deref(),
        Some("Check and format the code and sort the imports.")
    );
}

/// Property: whether tox runs through the project's launcher follows the files that decide
/// it: without uv.lock the envs run with bare `tox`, and with it back, through `uv run`.
#[test]
fn tox_launcher_follows_the_lockfile() {
    require_tools(&["tox", "uv"]);
    let fixtures = Fixtures::copy();
    let cache = tempfile::tempdir().expect("cache dir");
    let root = fixtures.path("tox-click");
    let style = |json: &Value| {
        support::tasks_of(json, "tox")
            .into_iter()
            .find(|(name, _)| name == "style")
            .map(|(_, command)| command)
    };
    let before = warm(&root, cache.path());
    assert_eq!(style(&before).as_deref(), Some("uv run tox -e style"));
    let lock = std::fs::read(root.join("uv.lock")).expect("read");
    std::fs::remove_file(root.join("uv.lock")).expect("remove");
    let after = list(&root, cache.path());
    assert_eq!(after["cached"], false, "a stale entry was used");
    assert_eq!(style(&after).as_deref(), Some("tox -e style"));
    warm(&root, cache.path());
    std::fs::write(root.join("uv.lock"), lock).expect("write");
    let back = list(&root, cache.path());
    assert_eq!(back["cached"], false, "a stale entry was used");
    assert_eq!(style(&back).as_deref(), Some("uv run tox -e style"));
}

/// Property: the mise runner's answer follows every file it reads: a config of a lower
/// precedence created (`.config/mise/conf.d/`), a file task added deep in a task folder, a
/// file made executable, and a task file that an include names.
#[test]
fn mise_configs_and_task_folders_are_inputs() {
    use std::os::unix::fs::PermissionsExt;
    require_tools(&["mise"]);
    let executable = |path: &Path| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod")
    };
    case(
        "mise-go",
        "mise",
        |root| {
            std::fs::create_dir_all(root.join(".config/mise/conf.d")).expect("mkdir");
            std::fs::write(
                root.join(".config/mise/conf.d/ops.toml"),
                "[tasks.deploy]\nrun = 'echo ran deploy'\n",
            )
            .expect("write");
        },
        has_task("mise", "deploy"),
    );
    case(
        "mise-go",
        "mise",
        |root| {
            let dir = root.join(".mise/tasks/db/seed");
            std::fs::create_dir_all(&dir).expect("mkdir");
            std::fs::write(dir.join("users.sh"), "#!/bin/sh\necho ran users\n").expect("write");
            executable(&dir.join("users.sh"));
        },
        has_task("mise", "db:seed:users"),
    );
    case(
        "mise-go",
        "mise",
        |root| executable(&root.join(".mise/tasks/helpers.sh")),
        has_task("mise", "helpers"),
    );
    case(
        "mise-go",
        "mise",
        |root| {
            edit_file(
                &root.join("mise.toml"),
                "min_version",
                "[task_config]\nincludes = ['ops.toml']\n\nmin_version",
            );
            std::fs::write(
                root.join("ops.toml"),
                "[rollout]\nrun = 'echo ran rollout'\n",
            )
            .expect("write");
        },
        has_task("mise", "rollout"),
    );
}

/// Property: deno's and composer's answers follow their manifests: a member added under a
/// `packages/*` workspace, an edited member, a new script.
#[test]
fn deno_and_composer_manifests_are_inputs() {
    require_tools(&["deno", "composer"]);
    case(
        "deno-workspace",
        "deno",
        |root| {
            std::fs::create_dir_all(root.join("packages/cli")).expect("mkdir");
            std::fs::write(
                root.join("packages/cli/deno.json"),
                r#"{"name": "@relay/cli", "tasks": {"bundle": "echo ran bundle"}}"#,
            )
            .expect("write");
        },
        has_task("deno", "@relay/cli/bundle"),
    );
    case(
        "deno-workspace",
        "deno",
        |root| {
            edit_file(
                &root.join("packages/ui/deno.jsonc"),
                "\"build\"",
                "\"bundle\"",
            )
        },
        has_task("deno", "@relay/ui/bundle"),
    );
    case(
        "composer-app",
        "composer",
        |root| {
            edit_file(
                &root.join("composer.json"),
                "\"cs\": \"echo ran cs\"",
                "\"cs\": \"echo ran cs\",\n        \"rector\": \"echo ran rector\"",
            );
        },
        has_task("composer", "rector"),
    );
}

/// Property: the pixi runner's answer follows pixi.toml (a task added to a feature), with a
/// stand-in `pixi` on PATH (pixi is not on the registries here; detection never runs it).
#[test]
fn pixi_manifest_is_an_input() {
    use std::os::unix::fs::PermissionsExt;
    let fixtures = Fixtures::copy();
    let cache = tempfile::tempdir().expect("cache dir");
    let root = fixtures.path("pixi-lab");
    let bin = tempfile::tempdir().expect("bin");
    std::fs::write(bin.path().join("pixi"), "#!/bin/sh\nexit 97\n").expect("stand-in");
    std::fs::set_permissions(
        bin.path().join("pixi"),
        std::fs::Permissions::from_mode(0o755),
    )
    .expect("chmod");
    let mut path = std::ffi::OsString::from(bin.path());
    path.push(":");
    path.push(path_var());
    let before = until_cached(&root, || list_with_path(&root, cache.path(), &path));
    assert!(!task_names(&before, "pixi").contains(&"docs:serve".to_owned()));
    edit_file(
        &root.join("pixi.toml"),
        "[feature.gpu.dependencies]",
        "serve = \"python -m http.server\"\n\n[feature.gpu.dependencies]",
    );
    let after = list_with_path(&root, cache.path(), &path);
    assert_eq!(after["cached"], false, "a stale entry was used");
    has_task("pixi", "docs:serve")(&after);
}
