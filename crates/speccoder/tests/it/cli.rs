//! The `speccoder` binary, driven as a user would.

use crate::support;

use std::path::Path;
use std::process::Command;

use support::{Fixtures, path_var, require_tools, snapshots, speccoder};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn recipe_list_text_and_explain() {
    require_tools(&["just"]);
    let fixtures = Fixtures::copy();
    let root = fixtures.path("polyglot");
    let out = speccoder(&root, &["recipe", "list"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    snapshots("cli").bind(|| insta::assert_snapshot!("recipe_list_polyglot", text(&out.stdout)));
    let out = speccoder(
        &fixtures.path("broken-pkg-json"),
        &["recipe", "list", "--explain"],
    );
    assert_eq!(out.status.code(), Some(0));
    snapshots("cli").bind(|| {
        insta::assert_snapshot!("recipe_list_explain_broken_pkg_json", text(&out.stdout));
    });
}

#[test]
fn recipe_list_json_shape() {
    require_tools(&["pnpm"]);
    let fixtures = Fixtures::copy();
    let root = fixtures.path("pkg-pnpm-workspace");
    let out = speccoder(&root, &["recipe", "list", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(json["root"], root.display().to_string());
    let runner = &json["runners"][0];
    assert_eq!(runner["id"], "pkg");
    assert_eq!(runner["label"], "Pkg");
    assert_eq!(runner["command_prefix"], "pnpm run");
    assert_eq!(
        runner["tasks"][2],
        serde_json::json!({
            "name": "@demo/web/dev",
            "command": "pnpm run 'dev'",
            "doc": "apps/web",
            "params": [],
            "cwd": "apps/web",
        })
    );
    assert_eq!(json["absent"][0]["id"], "just");
    assert_eq!(json["absent"][0]["reason"], "no justfile in the root");
    // Every runner but pkg: just, cargo, make, task, python, tox, nox, go, scripts.
    assert_eq!(json["absent"].as_array().map(Vec::len), Some(13));
}

/// A repository's file that asks to loosen the sandbox is refused by every command, and so
/// is a `--config` file: both are read as the repository's.
#[test]
fn a_key_only_your_own_file_may_hold_is_refused_by_every_command() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().canonicalize().expect("canon");
    std::fs::write(root.join("speccoder.toml"), "[attempt]\nnetwork = true\n").expect("w");
    for args in [&["recipe", "list"][..], &["allow"], &["agent", "argv"]] {
        let out = speccoder(&root, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = text(&out.stderr);
        assert!(
            stderr.starts_with(&format!(
                "error: {}:2:1: [attempt] network: a repository's speccoder.toml cannot loosen the sandbox",
                root.join("speccoder.toml").display()
            )),
            "{args:?}: {stderr}"
        );
        assert!(
            stderr.contains(&format!("under [repo.\"{}\"]", root.display())),
            "{stderr}"
        );
        assert!(out.stdout.is_empty());
    }
    let other = root.join("other.toml");
    std::fs::write(&other, "[attempt]\nreveal = [\"/run/user/0\"]\n").expect("w");
    let out = speccoder(
        &root,
        &["--config", other.to_str().expect("utf-8"), "recipe", "list"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("other.toml:2:1: [attempt] reveal: a repository's"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn config_errors_exit_2_with_file_line_and_key() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("speccoder.toml"),
        "[recipe]\n\nbogus_key = 1\n",
    )
    .expect("w");
    let out = speccoder(dir.path(), &["recipe", "list"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    let file = dir
        .path()
        .canonicalize()
        .expect("canon")
        .join("speccoder.toml");
    assert!(
        stderr.starts_with(&format!(
            "error: {}:3:1: [recipe] bogus_key: unknown key",
            file.display()
        )),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());

    let other = dir.path().join("other.toml");
    std::fs::write(&other, "[executor]\nkind = \"gpt\"\n").expect("w");
    let out = Command::new(env!("CARGO_BIN_EXE_speccoder"))
        .env("SPECCODER_CACHE_DIR", support::test_cache_dir())
        .arg("-C")
        .arg(dir.path())
        .arg("--config")
        .arg(&other)
        .args(["recipe", "list"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        format!(
            "error: {}:2:8: [executor] kind: unknown executor kind \"gpt\" (native, claude, codex, \
             command)\n",
            other.display()
        )
    );
}

#[test]
fn disabled_recipe_tool_says_so() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("speccoder.toml"),
        "[recipe]\nenabled = false\n",
    )
    .expect("w");
    let out = speccoder(dir.path(), &["recipe", "list"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "error: the recipe tool is disabled (`[recipe] enabled = false`)\n"
    );
}

#[test]
fn missing_root_is_an_error() {
    let out = speccoder(Path::new("/nonexistent/speccoder"), &["recipe", "list"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).starts_with("error: project root /nonexistent/speccoder: "));
}

#[test]
fn version_and_help() {
    let out = Command::new(env!("CARGO_BIN_EXE_speccoder"))
        .env("SPECCODER_CACHE_DIR", support::test_cache_dir())
        .arg("--version")
        .output()
        .expect("runs");
    // The version, and the commit it was built from (this checkout's HEAD when built).
    let version = text(&out.stdout);
    let commit = version
        .strip_prefix(&format!("speccoder {} (", env!("CARGO_PKG_VERSION")))
        .and_then(|rest| rest.strip_suffix(")\n"))
        .unwrap_or_else(|| panic!("{version:?}"));
    assert!(
        commit == "unknown"
            || (commit.len() == 12 && commit.bytes().all(|b| b.is_ascii_hexdigit())),
        "{version:?}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_speccoder"))
        .env("SPECCODER_CACHE_DIR", support::test_cache_dir())
        .arg("--help")
        .output()
        .expect("runs");
    let help = text(&out.stdout);
    for word in ["recipe", "allow", "agent", "-C <DIR>", "--config <FILE>"] {
        assert!(help.contains(word), "help lacks {word}: {help}");
    }
}

/// Property: SIGINT or SIGTERM to `speccoder` stops the process groups it started, even
/// children that ignore SIGTERM, before it exits.
#[test]
fn signals_stop_the_children() {
    require_tools(&["just"]);
    let dir = tempfile::tempdir().expect("temp dir");
    let state = tempfile::tempdir().expect("state");
    let running = state.path().join("speccoder/outputs/running");
    support::assert_signals_stop_children(|marker| {
        // The output file of the run before was removed when it was stopped.
        if running.exists() {
            assert_eq!(std::fs::read_dir(&running).expect("dir").count(), 0);
        }
        std::fs::write(
            dir.path().join("justfile"),
            format!("stubborn:\n    @trap '' TERM INT; sleep 100{marker} & sleep 200{marker}; echo never\n"),
        )
        .expect("justfile");
        Command::new(env!("CARGO_BIN_EXE_speccoder"))
            .env("SPECCODER_CACHE_DIR", support::test_cache_dir())
            .arg("-C")
            .arg(dir.path())
            .args(["recipe", "run", "stubborn"])
            .env("PATH", path_var())
            .env("SPECCODER_CACHE_DIR", dir.path().join(".cache"))
            .env("XDG_STATE_HOME", state.path())
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("starts")
    });
    assert_eq!(std::fs::read_dir(&running).expect("dir").count(), 0);
}

#[test]
fn a_list_answer_is_output_not_an_error() {
    require_tools(&["just"]);
    let fixtures = Fixtures::copy();
    let root = fixtures.path("polyglot");
    for command in ["resolve", "run"] {
        let out = speccoder(&root, &["recipe", command, "--list", "lin"]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{command}: {}",
            text(&out.stderr)
        );
        assert_eq!(
            text(&out.stdout),
            "Tasks whose name or doc holds `lin`: 1:\n- pkg: lint\n",
            "{command}"
        );
        assert_eq!(text(&out.stderr), "", "{command}");
    }
    let out = speccoder(&root, &["recipe", "resolve", "--json", "--list", "lin"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert!(
        json["list"]
            .as_str()
            .is_some_and(|l| l.contains("- pkg: lint")),
        "{json}"
    );
}

/// Runs `speccoder` with no `-C`, started in `cwd`.
fn speccoder_in(cwd: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_speccoder"))
        .current_dir(cwd)
        .args(args)
        .env("PATH", path_var())
        .env("SPECCODER_CACHE_DIR", support::test_cache_dir())
        .env("XDG_STATE_HOME", support::test_state_dir())
        .output()
        .expect("speccoder starts")
}

/// Without `-C`, the project is the nearest folder above with a runner's manifest, within
/// the repository; `-C` stays exact, and relative paths are read from where the command
/// started.
#[test]
fn a_subfolder_finds_its_project() {
    require_tools(&["cargo"]);
    let fixtures = Fixtures::copy();
    let root = fixtures.path("cargo-workspace");
    support::git(&root, &["init", "-q"]);
    let deep = root.join("app/src");
    let out = speccoder_in(&deep, &["recipe", "list", "--explain"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let app = root.join("app").canonicalize().expect("canonical");
    assert!(
        stdout.starts_with(&format!(
            "Root: {} (the nearest folder above {} holding `Cargo.toml`)\n",
            app.display(),
            deep.canonicalize().expect("canonical").display()
        )),
        "{stdout}"
    );
    assert!(stdout.contains("$ cargo test"), "{stdout}");
    // The JSON says the same, and `root` is the project found.
    let out = speccoder_in(&deep, &["recipe", "list", "--json", "--explain"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(json["root"], app.display().to_string());
    assert_eq!(json["root_found"]["claimed_by"], "Cargo.toml");
    // Tasks run in the project found (the root: no `cwd`), not in the subfolder.
    let out = speccoder_in(&deep, &["recipe", "resolve", "--json", "test"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(json["command"], "cargo test");
    assert_eq!(json["cwd"], serde_json::Value::Null);
    // A folder without a manifest of its own below the workspace finds the workspace.
    std::fs::create_dir_all(root.join("docs/guide")).expect("mkdir");
    let out = speccoder_in(&root.join("docs/guide"), &["recipe", "list", "--explain"]);
    assert!(
        text(&out.stdout).starts_with(&format!(
            "Root: {} ",
            root.canonicalize().expect("canonical").display()
        )),
        "{}",
        text(&out.stdout)
    );
    // `-C` is exact: the subfolder itself, where nothing is detected.
    let out = speccoder(&deep, &["recipe", "list"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        text(&out.stdout).starts_with("No task runner detected."),
        "{}",
        text(&out.stdout)
    );
    // A relative `--config` is read from where the command started, as before.
    std::fs::write(deep.join("here.toml"), "[recipe]\nenabled = false\n").expect("config");
    let out = speccoder_in(&deep, &["--config", "here.toml", "recipe", "list"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    assert!(
        text(&out.stderr).contains("disabled"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn known_failures_are_bounded_by_a_config_error() {
    // One alternation of 200,000 ids made every attempt panic (exit 101); 150,000 exact
    // ids took 12–22 s and 1.8 GB. Both are configuration errors now, found at once.
    let branches: Vec<String> = (0..200_000).map(|i| format!("t{i}")).collect();
    let ids: Vec<String> = (0..150_000).map(|i| format!("\"t.test_{i}\"")).collect();
    for (what, list) in [
        (
            "one huge glob",
            format!("\"glob:{{{}}}\"", branches.join(",")),
        ),
        (
            "the same, unmarked",
            format!("\"{{{}}}\"", branches.join(",")),
        ),
        ("150,000 ids", ids.join(", ")),
    ] {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(
            dir.path().join("speccoder.toml"),
            format!("[attempt]\nknown_failures = [{list}]\n"),
        )
        .expect("w");
        for args in [&["recipe", "list"][..], &["attempt", "--baseline"]] {
            let start = std::time::Instant::now();
            let out = speccoder(dir.path(), args);
            let stderr = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{what}, {args:?}: {stderr}");
            assert!(
                stderr.contains("speccoder.toml:2:") && stderr.contains("[attempt] known_failures"),
                "{what}: {}",
                stderr.chars().take(300).collect::<String>()
            );
            assert!(
                stderr.contains("at most"),
                "{what}: {}",
                &stderr[..300.min(stderr.len())]
            );
            assert!(
                start.elapsed().as_secs() < 10,
                "{what}: {:?}",
                start.elapsed()
            );
        }
    }
}
