//! Hostile projects, faulty tools and interruptions: nothing hangs, nothing leaks, a reason
//! names the file, and the other runners are still detected.

use crate::support;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use support::{path_var, processes_with, require_tools};

fn speccoder(root: &Path, args: &[&str], path: &std::ffi::OsStr) -> Output {
    let cache = root.join(".cache-test");
    support::speccoder_with(
        root,
        args,
        &[("PATH", path), ("SPECCODER_CACHE_DIR", cache.as_os_str())],
    )
}

fn list(root: &Path, path: &std::ffi::OsStr) -> Value {
    support::list_explained(root, path, &root.join(".cache-test"))
}

/// The reason of an absent or failed runner, or `detected`.
fn state(json: &Value, id: &str) -> String {
    if json["runners"]
        .as_array()
        .expect("runners")
        .iter()
        .any(|r| r["id"] == id)
    {
        return "detected".into();
    }
    json["absent"]
        .as_array()
        .expect("absent")
        .iter()
        .find(|a| a["id"] == id)
        .map(|a| {
            format!(
                "{}: {}",
                a["state"].as_str().unwrap_or(""),
                a["reason"].as_str().unwrap_or("")
            )
        })
        .expect("every configured runner is reported")
}

/// A folder of stand-in programs, first on PATH, each a shell script.
fn fake_tools(scripts: &[(&str, &str)]) -> (tempfile::TempDir, std::ffi::OsString) {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("temp dir");
    for (name, body) in scripts {
        let path = dir.path().join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("script");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    let mut dirs = vec![dir.path().to_path_buf()];
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    let path = std::env::join_paths(dirs).expect("join");
    (dir, path)
}

/// A project with a manifest for every probing runner and a working Makefile.
fn probing_project(probe_timeout: u64) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for (file, text) in [
        ("justfile", "build:\n    echo build\n"),
        (
            "Cargo.toml",
            "[package]\nname = \"p\"\nversion = \"0.1.0\"\n",
        ),
        (
            "Taskfile.yml",
            "version: '3'\ntasks:\n  t:\n    cmds: [echo t]\n",
        ),
        ("Makefile", "ok: ## still detected\n\t@echo ran ok\n"),
        (
            "speccoder.toml",
            &format!("[recipe]\nprobe_timeout_secs = {probe_timeout}\n"),
        ),
    ] {
        std::fs::write(dir.path().join(file), text).expect("write");
    }
    dir
}

#[test]
fn probes_that_hang_flood_or_are_another_program() {
    let marker = format!("7{}", std::process::id());
    let (_tools, path) = fake_tools(&[
        ("just", &format!("exec sleep 1000.{marker}")),
        ("cargo", &format!("exec yes {marker}")),
        (
            "task",
            "echo '[task next]'; echo 'ID Age Description'; echo '1  2d  buy milk'",
        ),
    ]);
    let project = probing_project(1);
    let started = Instant::now();
    let json = list(project.path(), &path);
    // The probe deadline (1 s), its grace (0.5 s) and a margin.
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(
        state(&json, "just"),
        "failed: `just --dump --dump-format=json` did not finish within 1 s"
    );
    assert_eq!(
        state(&json, "cargo"),
        "failed: `cargo metadata --no-deps --format-version=1` did not finish within 1 s"
    );
    assert_eq!(
        state(&json, "task"),
        "failed: Taskfile.yml: `task --list-all --json` did not print go-task's JSON (is `task` go-task?)"
    );
    assert_eq!(state(&json, "make"), "detected");
    assert_eq!(processes_with(&marker), Vec::<String>::new());
}

#[test]
fn probes_that_fail() {
    let (_tools, path) = fake_tools(&[
        ("just", "echo 'error: something broke' >&2; exit 3"),
        (
            "cargo",
            "echo 'error: failed to parse manifest' >&2; echo '  --> Cargo.toml:1:1' >&2; exit 101",
        ),
        (
            "task",
            "echo 'task: Task \"x\" does not exist' >&2; exit 200",
        ),
    ]);
    let project = probing_project(5);
    let json = list(project.path(), &path);
    assert_eq!(
        state(&json, "just"),
        "failed: `just --dump --dump-format=json` exited with code 3: error: something broke"
    );
    assert_eq!(
        state(&json, "cargo"),
        "failed: `cargo metadata --no-deps --format-version=1` exited with code 101: error: failed to parse manifest | --> Cargo.toml:1:1"
    );
    assert!(
        state(&json, "task")
            .starts_with("failed: `task --list-all --json --no-status` exited with code 200")
    );
    assert_eq!(state(&json, "make"), "detected");
}

/// A project holding `files`, with a Makefile that always works beside them.
fn project_with(files: &[(&str, Vec<u8>)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("Makefile"),
        "ok: ## still detected\n\t@echo ran ok\n",
    )
    .expect("w");
    for (name, bytes) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, bytes).expect("write");
    }
    dir
}

/// Peak memory of one `speccoder recipe list` run, in KiB, through GNU time.
fn peak_kib(root: &Path) -> Option<u64> {
    let out = Command::new("/usr/bin/time")
        .args(["-f", "%M"])
        .arg(env!("CARGO_BIN_EXE_speccoder"))
        .arg("-C")
        .arg(root)
        .args(["recipe", "list", "--json"])
        .env("PATH", path_var())
        .env("SPECCODER_CACHE_DIR", root.join(".cache-test"))
        .stdout(Stdio::null())
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .last()?
        .trim()
        .parse()
        .ok()
}

#[test]
fn hostile_package_json() {
    let deep = format!(
        "{{\"scripts\": {{\"a\": \"x\"}}, \"x\": {}{}}}",
        "[".repeat(200_000),
        "]".repeat(200_000)
    );
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("deep", deep.into_bytes(), "recursion limit exceeded"),
        (
            "huge",
            {
                let mut big = b"{\"scripts\": {\"a\": \"".to_vec();
                big.resize(17 << 20, b'x');
                big.extend_from_slice(b"\"}}");
                big
            },
            "is larger than 16 MiB; not read",
        ),
        (
            "garbage",
            (0..4096u32)
                .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
                .collect(),
            "invalid JSON",
        ),
    ];
    for (label, bytes, reason) in cases {
        let project = project_with(&[("package.json", bytes)]);
        let json = list(project.path(), &path_var());
        let got = state(&json, "pkg");
        assert!(got.starts_with("failed: package.json: "), "{label}: {got}");
        assert!(got.contains(reason), "{label}: {got}");
        assert_eq!(state(&json, "make"), "detected", "{label}");
        if let Some(kib) = peak_kib(project.path()) {
            assert!(kib < 64 * 1024, "{label}: {kib} KiB");
        }
    }
    // A byte-order mark is fine; a repeated key counts as its last occurrence.
    let project = project_with(&[(
        "package.json",
        b"\xEF\xBB\xBF{\"scripts\": {\"first\": \"x\"}, \"scripts\": {\"second\": \"y\"}}".to_vec(),
    )]);
    let json = list(project.path(), &path_var());
    let pkg = support::runner_json(&json, "pkg");
    assert_eq!(pkg["tasks"].as_array().map(|t| t.len()), Some(1));
    assert_eq!(pkg["tasks"][0]["name"], "second");
}

#[test]
fn hostile_makefiles() {
    // One 10 MB line.
    let mut long = b"huge: ".to_vec();
    long.resize(10_000_000, b'p');
    long.extend_from_slice(b" ## one long line\n\t@echo ran huge\n");
    // A million lines, most of them recipe lines.
    let mut many = String::with_capacity(12_000_000);
    for i in 0..1_000_000 {
        if i % 1000 == 0 {
            many.push_str(&format!("t{i}:\n"));
        } else {
            many.push_str("\t@true\n");
        }
    }
    for (label, text, targets) in [
        ("long line", long, 1usize),
        ("million lines", many.into_bytes(), 1000),
    ] {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("Makefile"), text).expect("write");
        let started = Instant::now();
        let json = list(dir.path(), &path_var());
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{label}: {:?}",
            started.elapsed()
        );
        let make = support::runner_json(&json, "make");
        assert_eq!(
            make["tasks"].as_array().map(Vec::len),
            Some(targets),
            "{label}"
        );
    }
    // Includes that loop, and one that leaves the root.
    let outer = tempfile::tempdir().expect("temp dir");
    let root = outer.path().join("project");
    std::fs::create_dir(&root).expect("mkdir");
    std::fs::write(
        outer.path().join("secret.mk"),
        "stolen: ## outside\n\t@true\n",
    )
    .expect("w");
    std::fs::write(
        root.join("Makefile"),
        "a: ## in Makefile\n\t@true\ninclude b.mk\ninclude ../secret.mk\n",
    )
    .expect("w");
    std::fs::write(
        root.join("b.mk"),
        "b: ## in b.mk\n\t@true\ninclude Makefile\n",
    )
    .expect("w");
    let json = list(&root, &path_var());
    let make = support::runner_json(&json, "make");
    let names: Vec<&str> = make["tasks"]
        .as_array()
        .expect("tasks")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, ["a", "b"]);
    let notes = make["notes"].to_string();
    assert!(
        notes.contains("include `../secret.mk` is outside the project root, not followed"),
        "{notes}"
    );
}

#[test]
fn malformed_configuration_is_one_clear_error() {
    let cases = [
        ("[recipe\n", "1:8: invalid TOML: "),
        (
            "[recipe]\ntimeout_secs = \"5\"\n",
            "2:16: [recipe] timeout_secs: invalid type: string \"5\", expected an integer",
        ),
        ("[recipe]\nbogus = 1\n", "2:1: [recipe] bogus: unknown key"),
        (
            "[recipe]\nprobe_timeout_secs = 99999\n",
            "2:22: [recipe] probe_timeout_secs: 99999 is out of range (1..=600)",
        ),
        (
            "[executor]\nkind = \"gpt\"\n",
            "2:8: [executor] kind: unknown executor kind \"gpt\" (native, claude, codex, command)",
        ),
        (
            "[commands]\nallow = \"cargo test\"\n",
            "2:9: [commands] allow: invalid type: string \"cargo test\", expected a sequence",
        ),
        (
            "[attempt]\nmax_attempts = 0\n",
            "2:16: [attempt] max_attempts: 0 is out of range (1..=20)",
        ),
    ];
    for (text, want) in cases {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("speccoder.toml");
        std::fs::write(&file, text).expect("write");
        for args in [
            &["recipe", "list"][..],
            &["recipe", "run", "x"],
            &["allow"],
            &["agent", "argv"],
            &["attempt", "--bundle", "bundle.json"],
        ] {
            let out = speccoder(dir.path(), args, &path_var());
            assert_eq!(out.status.code(), Some(2), "{text:?} {args:?}");
            let stderr = String::from_utf8_lossy(&out.stderr);
            let canonical = dir
                .path()
                .canonicalize()
                .expect("canon")
                .join("speccoder.toml");
            let prefix = format!("error: {}:{want}", canonical.display());
            assert!(stderr.starts_with(&prefix), "{text:?} {args:?}: {stderr}");
            assert_eq!(stderr.lines().count(), 1, "{stderr}");
            assert!(out.stdout.is_empty());
        }
        // Nothing was written next to it.
        let entries = std::fs::read_dir(dir.path()).expect("dir").count();
        assert_eq!(entries, 1, "{text:?}");
    }
}

#[test]
fn agent_run_stops_its_children_on_signals() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("prompt.md"), "do it").expect("prompt");
    // The prompt's folder goes to this TMPDIR: it must be empty again after each signal.
    let tmp = tempfile::tempdir().expect("TMPDIR");
    support::assert_signals_stop_children(|marker| {
        let left: Vec<_> = std::fs::read_dir(tmp.path())
            .expect("TMPDIR")
            .flatten()
            .map(|e| e.path())
            .collect();
        assert_eq!(left, Vec::<std::path::PathBuf>::new(), "left behind");
        let agent = dir.path().join("agent.sh");
        std::fs::write(
            &agent,
            format!("trap '' TERM INT\ncat >/dev/null\nsleep 100{marker} &\nsleep 200{marker}\n"),
        )
        .expect("agent");
        std::fs::write(
            dir.path().join("speccoder.toml"),
            format!(
                "[executor]\nkind = \"command\"\nargv = [\"sh\", \"{}\"]\n",
                agent.display()
            ),
        )
        .expect("config");
        Command::new(env!("CARGO_BIN_EXE_speccoder"))
            .env("SPECCODER_CACHE_DIR", support::test_cache_dir())
            .arg("-C")
            .arg(dir.path())
            .args(["agent", "run", "--prompt-file", "prompt.md"])
            .env("TMPDIR", tmp.path())
            .stdout(Stdio::null())
            .spawn()
            .expect("starts")
    });
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .expect("TMPDIR")
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(left, Vec::<std::path::PathBuf>::new(), "left behind");
}

#[test]
fn recipe_run_with_its_reader_gone() {
    require_tools(&["just"]);
    let marker = format!("8{}", std::process::id());
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("justfile"),
        format!("work:\n    @sleep 0.5; seq 1 100000; sleep 100{marker} & exit 4\n"),
    )
    .expect("justfile");
    let mut child = Command::new(env!("CARGO_BIN_EXE_speccoder"))
        .env("SPECCODER_CACHE_DIR", support::test_cache_dir())
        .arg("-C")
        .arg(dir.path())
        .args(["recipe", "run", "work"])
        .env("PATH", path_var())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    // Whoever read the output is gone before the task ends.
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("exits");
    assert_eq!(out.status.code(), Some(4), "the task's own exit code");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(processes_with(&marker), Vec::<String>::new());
}

#[test]
fn confinement_of_workspaces_and_symlinked_members() {
    let outer = tempfile::tempdir().expect("temp dir");
    let root = outer.path().join("project");
    let outside = outer.path().join("outside");
    std::fs::create_dir_all(root.join("packages/real")).expect("mkdir");
    std::fs::create_dir_all(&outside).expect("mkdir");
    std::fs::write(
        outside.join("package.json"),
        r#"{"name":"outside","scripts":{"steal":"echo"}}"#,
    )
    .expect("w");
    std::fs::write(
        root.join("packages/real/package.json"),
        r#"{"name":"real","scripts":{"go":"echo"}}"#,
    )
    .expect("w");
    std::os::unix::fs::symlink(&outside, root.join("packages/link-out")).expect("link");
    std::os::unix::fs::symlink(root.join("packages/real"), root.join("packages/link-in"))
        .expect("link");
    std::fs::write(
        root.join("package.json"),
        format!(r#"{{"workspaces": ["packages/*", "../outside", "{}", "packages/../../outside"], "scripts": {{}}}}"#, outside.display()),
    )
    .expect("w");
    let json = list(&root, &path_var());
    let pkg = support::runner_json(&json, "pkg");
    let names: Vec<&str> = pkg["tasks"]
        .as_array()
        .expect("tasks")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, ["real/go"]);
    let notes = pkg["notes"].to_string();
    for want in [
        "workspace pattern `../outside` reaches outside the root",
        "workspace match `packages/link-out` is a symlink; not followed",
        "workspace match `packages/link-in` is a symlink; not followed",
        "workspace pattern `packages/../../outside` reaches outside the root",
    ] {
        assert!(notes.contains(want), "{want}: {notes}");
    }
    assert!(!json.to_string().contains("steal"));
}

/// A 99-item brace group, `{0,1,…,98}`.
fn group99() -> String {
    let items: Vec<String> = (0..99).map(|n| n.to_string()).collect();
    format!("{{{}}}", items.join(","))
}

/// tox and nox configurations that stand for more envs and sessions than any listing can
/// hold: (label, file, content, runner, a note the listing must hold). Each took gigabytes
/// (the ranges aborted the process: "memory allocation of 96000000000 bytes failed") or
/// more than a minute when every expression was written out whole.
fn hostile_tox_and_nox() -> Vec<(
    &'static str,
    &'static str,
    String,
    &'static str,
    &'static str,
)> {
    let group = group99();
    let sections: String = (0..300)
        .map(|k| format!("[testenv:s{k}-{group}-{group}]\n"))
        .collect();
    let lines: String = (0..200)
        .map(|k| format!("    e{k}-{group}-{group}\n"))
        .collect();
    let versions: Vec<String> = (0..300_000).map(|i| format!("\"3.{i}\"")).collect();
    vec![
        (
            "range",
            "tox.ini",
            "[tox]\nenvlist = py{1-4000000000}\n".into(),
            "tox",
            "a range of 4000000000 numbers in `py{1-4000000000}` cut",
        ),
        (
            "range in a deps condition",
            "tox.ini",
            "[tox]\nenvlist = lint\n[testenv]\ndeps =\n    py{1-4000000000}: pytest\n".into(),
            "tox",
            "a range of 4000000000 numbers in `py{1-4000000000}` cut",
        ),
        (
            "tox.toml product of a range",
            "tox.toml",
            "env_list = [{ product = [{ prefix = \"py\", start = 1, stop = 4000000000 }] }]\n"
                .into(),
            "tox",
            "a range of 4000000000 numbers in `{ prefix = \"py\", start = 1, stop = 4000000000 }` cut",
        ),
        (
            "300 sections of 9,801 envs",
            "tox.ini",
            format!("[tox]\nenvlist = lint\n{sections}"),
            "tox",
            "298 more expressions past those limits are cut (2920698 names not read)",
        ),
        (
            "200 env_list lines of 9,801 envs",
            "tox.ini",
            format!("[tox]\nenvlist =\n{lines}"),
            "tox",
            "198 more expressions past those limits are cut (1940598 names not read)",
        ),
        (
            "300,000 pythons",
            "noxfile.py",
            format!(
                "import nox\n\n@nox.session(python=[{}])\ndef tests(session):\n    pass\n",
                versions.join(", ")
            ),
            "nox",
            "session `tests`: 290001 of its 300000 pythons are not listed",
        ),
    ]
}

/// Property: whatever a tox or nox configuration says, its listing holds at most 10,000 envs
/// or sessions (counted before any is written out), a note says what was cut, the listing
/// completes, and its peak memory stays small; the other runners are still detected.
#[test]
fn hostile_tox_and_nox_configurations() {
    require_tools(&["tox", "nox"]);
    for (label, file, text, runner, note) in hostile_tox_and_nox() {
        let project = project_with(&[(file, text.into_bytes())]);
        let json = list(project.path(), &path_var());
        let listed = support::runner_json(&json, runner);
        assert_eq!(
            listed["tasks"].as_array().map(Vec::len),
            Some(10_000),
            "{label}"
        );
        let notes = listed["notes"].as_array().expect("notes");
        assert!(
            notes
                .iter()
                .any(|n| n.as_str().is_some_and(|n| n.contains(note))),
            "{label}: {notes:#?}"
        );
        assert_eq!(state(&json, "make"), "detected", "{label}");
        if let Some(kib) = peak_kib(project.path()) {
            assert!(kib < 64 * 1024, "{label}: {kib} KiB");
        }
    }
}

/// Property: the python runner reads each hostile tox.ini above (for pytest in its
/// testenvs, with the tox runner's own reader and bounds) beside a setup.py: detection ends
/// in seconds under 64 MiB, and `test` is pytest only where a testenv installs it.
#[test]
fn python_reads_a_hostile_tox_ini_within_bounds() {
    require_tools(&["pytest"]);
    let mut checked = 0;
    for (label, file, text, _, _) in hostile_tox_and_nox() {
        if file != "tox.ini" {
            continue;
        }
        let project = project_with(&[
            (file, text.into_bytes()),
            (
                "setup.py",
                b"from setuptools import setup\nsetup()\n".to_vec(),
            ),
            ("tests/test_a.py", b"import unittest\n".to_vec()),
        ]);
        let started = Instant::now();
        let json = list(project.path(), &path_var());
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{label}: {:?}",
            started.elapsed()
        );
        let want = match label {
            "range in a deps condition" => "env PYTHONPATH=. pytest",
            _ => "python3 -m unittest discover -s tests",
        };
        assert_eq!(
            support::tasks_of(&json, "python"),
            [("test".to_owned(), want.to_owned())],
            "{label}"
        );
        if let Some(kib) = peak_kib(project.path()) {
            assert!(kib < 64 * 1024, "{label}: {kib} KiB");
        }
        checked += 1;
    }
    assert_eq!(checked, 4);
}

/// Property: `speccoder mcp` in a repository whose tox.ini stands for four billion envs (the
/// process used to abort before it answered) answers `initialize` and lists its tool.
#[test]
fn mcp_answers_in_a_hostile_repository() {
    use std::io::{BufRead, BufReader, Write};
    require_tools(&["tox"]);
    let project = project_with(&[("tox.ini", b"[tox]\nenvlist = py{1-4000000000}\n".to_vec())]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_speccoder"))
        .arg("-C")
        .arg(project.path())
        .arg("mcp")
        .env("PATH", path_var())
        .env("SPECCODER_CACHE_DIR", project.path().join(".cache-test"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("server starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = BufReader::new(child.stdout.take().expect("stdout"));
    // Answers are read on a thread, so that a server that hangs fails the test.
    let (answers, received) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in stdout.lines() {
            if answers.send(line.expect("read")).is_err() {
                break;
            }
        }
    });
    // It owns stdin: dropping it closes the server's input, which ends the server.
    let mut ask = move |line: &str| -> Value {
        stdin.write_all(line.as_bytes()).expect("write");
        stdin.write_all(b"\n").expect("write");
        stdin.flush().expect("flush");
        let answer = received
            .recv_timeout(Duration::from_secs(60))
            .expect("the server answers (it did not die or hang)");
        serde_json::from_str(&answer).expect("one JSON message")
    };
    let init = ask(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
    );
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
    let tools = ask(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#);
    assert_eq!(tools["result"]["tools"][0]["name"], "recipe", "{tools}");
    let call = ask(
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"recipe","arguments":{"op":"--list py99999"}}}"#,
    );
    assert_eq!(call["id"], 3, "{call}");
    assert!(call.to_string().contains("py99999"), "{call}");
    drop(ask);
    let status = child.wait().expect("exits");
    assert_eq!(status.code(), Some(0));
}
