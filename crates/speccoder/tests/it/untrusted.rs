//! An untrusted repository: reading it runs none of its code, a special file in place of a
//! manifest never hangs detection or takes its memory, and a manifest that resolves outside
//! the root is not read. Each detection runs in a child with a deadline (and, where no Go
//! tool is involved, a memory bound), so a regression fails instead of hanging.

use crate::support;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use support::{path_var, require_tools, task_names, tasks_of};

/// How long a detection may take before the test calls it hung.
const DEADLINE: Duration = Duration::from_secs(30);

/// The memory a detection may reserve, in KiB, when bounded.
const MEMORY_KIB: u64 = 512 * 1024;

/// Whether the child gets a memory bound (Go programs such as go-task reserve more address
/// space than that at start, so their tests go without).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Memory {
    Bounded,
    Unbounded,
}

/// Runs `speccoder -C root ARGS` with `path` as PATH, a private cache, a deadline and
/// optionally a memory bound; panics when it does not finish in time.
fn bounded(root: &Path, args: &[&str], path: &OsString, memory: Memory) -> Output {
    let out_dir = tempfile::tempdir().expect("temp dir");
    let stdout = std::fs::File::create(out_dir.path().join("out")).expect("out");
    let stderr = std::fs::File::create(out_dir.path().join("err")).expect("err");
    let limit = match memory {
        Memory::Bounded => format!("ulimit -v {MEMORY_KIB}; "),
        Memory::Unbounded => String::new(),
    };
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("{limit}exec \"$@\""))
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_speccoder"))
        .arg("-C")
        .arg(root)
        .args(args)
        .env("PATH", path)
        .env("SPECCODER_CACHE_DIR", root.join(".cache-test"))
        // Fewer malloc arenas, so that the bound measures what is used, not reserved.
        .env("MALLOC_ARENA_MAX", "2")
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        .spawn()
        .expect("speccoder starts");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "`speccoder {}` in {} did not finish within {DEADLINE:?}",
                args.join(" "),
                root.display()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: std::fs::read(out_dir.path().join("out")).expect("stdout"),
        stderr: std::fs::read(out_dir.path().join("err")).expect("stderr"),
    }
}

/// `recipe list --json --explain`, which must succeed.
fn list(root: &Path, path: &OsString, memory: Memory) -> Value {
    let out = bounded(
        root,
        &["recipe", "list", "--json", "--explain"],
        path,
        memory,
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("json")
}

/// A project of `files` (relative path, content) in a fresh folder, under `base/project`.
fn project(files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let base = tempfile::tempdir().expect("temp dir");
    let root = base.path().join("project");
    for (rel, text) in files {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }
    std::fs::create_dir_all(&root).expect("root");
    (base, root)
}

/// A special file in place of `path`: a FIFO, or a symlink to `/dev/zero`.
#[derive(Clone, Copy, Debug)]
enum Special {
    Fifo,
    DevZero,
}

fn make_special(path: &Path, special: Special) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    let _ = std::fs::remove_file(path);
    match special {
        Special::Fifo => {
            let made = Command::new("mkfifo").arg(path).status().expect("mkfifo");
            assert!(made.success());
        }
        Special::DevZero => std::os::unix::fs::symlink("/dev/zero", path).expect("symlink"),
    }
}

/// Every note and absence reason of a `recipe list --json --explain` answer, one per line.
fn explained(json: &Value) -> String {
    let mut lines = Vec::new();
    for runner in json["runners"].as_array().expect("runners") {
        for note in runner["notes"].as_array().into_iter().flatten() {
            lines.push(format!("{}: {}", runner["id"], note.as_str().unwrap_or("")));
        }
    }
    for absent in json["absent"].as_array().expect("absent") {
        lines.push(format!(
            "{} {}: {}",
            absent["id"],
            absent["state"].as_str().unwrap_or(""),
            absent["reason"].as_str().unwrap_or("")
        ));
    }
    lines.join("\n")
}

#[track_caller]
fn assert_mentions(json: &Value, words: &[&str]) {
    let text = explained(json);
    for word in words {
        assert!(text.contains(word), "{word:?} missing from:\n{text}");
    }
}

const WORKSPACE_ROOT: &str =
    r#"{"name":"root","private":true,"workspaces":["pkgs/*"],"scripts":{"hello":"echo hi"}}"#;
const MEMBER: &str = r#"{"name":"a","scripts":{"a-script":"echo a"}}"#;

/// Property: a FIFO or `/dev/zero` in place of `pnpm-workspace.yaml`, a workspace member's
/// package.json or a Makefile include is refused with a reason; the rest is still listed.
#[test]
fn special_files_in_place_of_manifests() {
    for special in [Special::Fifo, Special::DevZero] {
        let (_base, root) = project(&[
            ("package.json", WORKSPACE_ROOT),
            ("pkgs/a/package.json", MEMBER),
            ("pkgs/b/package.json", MEMBER),
            ("Makefile", "include extra.mk\nbuild:\n\techo b\n"),
        ]);
        make_special(&root.join("pnpm-workspace.yaml"), special);
        make_special(&root.join("pkgs/b/package.json"), special);
        make_special(&root.join("extra.mk"), special);
        let json = list(&root, &path_var(), Memory::Bounded);
        assert_eq!(
            task_names(&json, "pkg"),
            ["hello", "a/a-script"],
            "{special:?}"
        );
        assert_eq!(task_names(&json, "make"), ["build"], "{special:?}");
        let (kind, include) = match special {
            Special::Fifo => (
                "is a FIFO, not a regular file; not read",
                "extra.mk: is a FIFO, not a regular file; not read",
            ),
            Special::DevZero => (
                "resolves outside the project root (to /dev/zero); not read",
                "include `extra.mk` is outside the project root, not followed",
            ),
        };
        assert_mentions(
            &json,
            &[
                &format!("pnpm-workspace.yaml: {kind}"),
                &format!("pkgs/b/package.json: {kind}"),
                include,
            ],
        );
    }
}

/// Property: a FIFO or `/dev/zero` as `speccoder.toml` is a configuration error that says
/// what it is, at once.
#[test]
fn special_file_as_the_configuration() {
    for (special, want) in [
        (Special::Fifo, "is a FIFO, not a regular file; not read"),
        (
            Special::DevZero,
            "is a character device, not a regular file; not read",
        ),
    ] {
        let (_base, root) = project(&[("Makefile", "build:\n\techo b\n")]);
        make_special(&root.join("speccoder.toml"), special);
        let out = bounded(&root, &["recipe", "list"], &path_var(), Memory::Bounded);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{special:?}: {stderr}");
        assert!(stderr.contains(want), "{special:?}: {stderr}");
    }
}

/// Property: a special file as the root manifest of a runner is refused with a reason, and
/// no runner's own tool is left to hang on it.
#[test]
fn special_files_as_root_manifests() {
    require_tools(&["just", "task"]);
    let (_base, root) = project(&[]);
    for name in [
        "package.json",
        "Makefile",
        "justfile",
        "Taskfile.yml",
        "Cargo.toml",
    ] {
        make_special(&root.join(name), Special::Fifo);
    }
    let json = list(&root, &path_var(), Memory::Unbounded);
    assert_eq!(json["runners"], Value::Array(Vec::new()));
    assert_mentions(
        &json,
        &[
            "\"just\" failed: justfile: is a FIFO",
            "\"cargo\" failed: Cargo.toml: is a FIFO",
            "\"make\" failed: Makefile: is a FIFO",
            "\"task\" failed: Taskfile.yml: is a FIFO",
        ],
    );
}

/// Property: a 1 GiB yarn.lock (sparse: no disk) costs no memory: lockfiles are consulted
/// for their name only.
#[test]
fn huge_lockfile_is_not_read() {
    let (_base, root) = project(&[("package.json", r#"{"scripts":{"hello":"echo hi"}}"#)]);
    let lock = std::fs::File::create(root.join("yarn.lock")).expect("lock");
    lock.set_len(1 << 30).expect("sparse");
    let json = list(&root, &path_var(), Memory::Bounded);
    assert_eq!(task_names(&json, "pkg"), ["hello"]);
    assert_mentions(&json, &["yarn run (from its lockfile)"]);
    // The bound above only catches a reader that fails: measure the peak as well.
    let _ = std::fs::remove_dir_all(root.join(".cache-test"));
    let out = Command::new("timeout")
        .args(["30", "/usr/bin/time", "-f", "%M"])
        .arg(env!("CARGO_BIN_EXE_speccoder"))
        .arg("-C")
        .arg(&root)
        .args(["recipe", "list", "--json"])
        .env("PATH", path_var())
        .env("SPECCODER_CACHE_DIR", root.join(".cache-test"))
        .stdout(Stdio::null())
        .output()
        .expect("GNU time and timeout");
    let peak: u64 = String::from_utf8_lossy(&out.stderr)
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .expect("GNU time prints the peak in KiB");
    assert!(peak < 64 * 1024, "peak {peak} KiB for a 1 GiB yarn.lock");
}

/// Property: a manifest that is a symlink resolving outside the root is not read, with a
/// reason: a Makefile, a member's package.json, pnpm-workspace.yaml.
#[test]
fn manifests_symlinked_outside_the_root() {
    let (base, root) = project(&[
        ("package.json", WORKSPACE_ROOT),
        ("pkgs/a/package.json", MEMBER),
    ]);
    let outside = base.path().join("outside");
    std::fs::create_dir_all(&outside).expect("outside");
    std::fs::write(outside.join("Makefile"), "secret:\n\techo s\n").expect("makefile");
    std::fs::write(
        outside.join("package.json"),
        r#"{"name":"stolen","scripts":{"steal":"echo s"}}"#,
    )
    .expect("package.json");
    std::fs::write(outside.join("pnpm.yaml"), "packages:\n  - 'stolen/*'\n").expect("pnpm");
    std::fs::create_dir_all(root.join("pkgs/b")).expect("b");
    std::os::unix::fs::symlink(outside.join("Makefile"), root.join("Makefile")).expect("link");
    std::os::unix::fs::symlink(
        outside.join("package.json"),
        root.join("pkgs/b/package.json"),
    )
    .expect("link");
    std::os::unix::fs::symlink(outside.join("pnpm.yaml"), root.join("pnpm-workspace.yaml"))
        .expect("link");
    let json = list(&root, &path_var(), Memory::Bounded);
    assert_eq!(task_names(&json, "pkg"), ["hello", "a/a-script"]);
    assert_eq!(task_names(&json, "make"), Vec::<String>::new());
    assert_mentions(
        &json,
        &[
            "\"make\" failed: Makefile: resolves outside the project root",
            "pkgs/b/package.json: resolves outside the project root",
            "pnpm-workspace.yaml: resolves outside the project root",
        ],
    );
}

/// Property: tasks of a Taskfile included from outside the root are not listed as the
/// project's; a note says go-task follows that include itself.
#[test]
fn taskfile_include_outside_the_root() {
    require_tools(&["task"]);
    let (base, root) = project(&[(
        "Taskfile.yml",
        "version: '3'\nincludes:\n  out: ../other\ntasks:\n  build:\n    cmds: [echo b]\n",
    )]);
    let other = base.path().join("other");
    std::fs::create_dir_all(&other).expect("other");
    std::fs::write(
        other.join("Taskfile.yml"),
        "version: '3'\ntasks:\n  steal:\n    cmds: [echo s]\n",
    )
    .expect("write");
    let json = list(&root, &path_var(), Memory::Unbounded);
    assert_eq!(task_names(&json, "task"), ["build"]);
    assert_mentions(
        &json,
        &[
            "task `out:steal` is left out",
            "go-task follows that include itself",
        ],
    );
}

/// A folder of programs that each leave a marker file when run, standing in for a
/// repository's own tools.
fn planted(root: &Path, dir: &str, names: &[&str]) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let bin = root.join(dir);
    std::fs::create_dir_all(&bin).expect("bin");
    for name in names {
        let path = bin.join(name);
        std::fs::write(
            &path,
            format!(
                "#!/bin/sh\ntouch \"{}/RAN-{name}\"\nexit 1\n",
                root.display()
            ),
        )
        .expect("write");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    bin
}

/// The marker files planted programs left.
fn markers(root: &Path) -> Vec<String> {
    let mut found: Vec<String> = std::fs::read_dir(root)
        .expect("root")
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.starts_with("RAN-"))
        .collect();
    found.sort();
    found
}

const CARGO_TOML: &str = "[package]\nname = \"x\"\nversion = \"0.1.0\"\nedition = \"2021\"\n";

/// Whether `cargo` on this machine is rustup's proxy (the case the toolchain file matters).
fn cargo_is_rustup() -> bool {
    Command::new("rustup")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Property: a `rust-toolchain.toml` whose `path` names a toolchain inside the repository
/// does not choose the cargo that lists the project, for `recipe list` and `allow` alike.
#[test]
fn rust_toolchain_file_does_not_choose_cargo() {
    if !cargo_is_rustup() {
        eprintln!("skipped: cargo is not rustup's proxy here");
        return;
    }
    let (_base, root) = project(&[
        ("Cargo.toml", CARGO_TOML),
        ("src/main.rs", "fn main() {}\n"),
    ]);
    planted(&root, "evil/bin", &["cargo", "rustc"]);
    std::fs::write(
        root.join("rust-toolchain.toml"),
        format!("[toolchain]\npath = \"{}/evil\"\n", root.display()),
    )
    .expect("toolchain file");
    let json = list(&root, &path_var(), Memory::Unbounded);
    assert_eq!(markers(&root), Vec::<String>::new());
    assert_eq!(
        task_names(&json, "cargo").last().map(String::as_str),
        Some("bin/x")
    );
    assert_mentions(&json, &["rust-toolchain.toml is not used for listing"]);
    let _ = std::fs::remove_dir_all(root.join(".cache-test"));
    let out = bounded(&root, &["allow", "--json"], &path_var(), Memory::Unbounded);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(markers(&root), Vec::<String>::new());
}

/// Property: a relative folder on PATH (`node_modules/.bin`, `.`) never makes a probe run
/// a program of the repository: probes run in the root, where it would be the project's.
#[test]
fn relative_path_folders_are_not_the_users_tools() {
    require_tools(&["just"]);
    let (_base, root) = project(&[
        ("Cargo.toml", CARGO_TOML),
        ("src/main.rs", "fn main() {}\n"),
        ("justfile", "build:\n    echo b\n"),
    ]);
    planted(&root, "node_modules/.bin", &["cargo", "just", "rustup"]);
    let mut path = OsString::from("node_modules/.bin:");
    path.push(path_var());
    let json = list(&root, &path, Memory::Unbounded);
    assert_eq!(markers(&root), Vec::<String>::new());
    assert_eq!(
        task_names(&json, "cargo").last().map(String::as_str),
        Some("bin/x")
    );
    assert_eq!(task_names(&json, "just"), ["build"]);
}

/// Property: with `dotenv:`, go-task's listing would run the Taskfile's dynamic variables,
/// so the Taskfile is not listed and the reason says why; without it, it is listed and
/// nothing runs.
#[test]
fn go_task_dynamic_variables_never_run() {
    require_tools(&["task"]);
    let taskfile = |dotenv: &str, root: &Path| {
        format!(
            "version: '3'\n{dotenv}vars:\n  V:\n    sh: touch {0}/RAN-var\nenv:\n  E: {{sh: touch {0}/RAN-env}}\ntasks:\n  build:\n    desc: 'b {{{{.V}}}}'\n    vars:\n      T: {{sh: touch {0}/RAN-taskvar}}\n    status: [touch {0}/RAN-status]\n    cmds: [echo b]\n",
            root.display()
        )
    };
    let (_base, root) = project(&[(".env", "A=1\n")]);
    std::fs::write(
        root.join("Taskfile.yml"),
        taskfile("dotenv: ['.env']\n", &root),
    )
    .expect("write");
    let json = list(&root, &path_var(), Memory::Unbounded);
    assert_eq!(markers(&root), Vec::<String>::new());
    assert_eq!(task_names(&json, "task"), Vec::<String>::new());
    assert_mentions(
        &json,
        &["\"task\" failed: Taskfile.yml:5: not listed: with `dotenv` set"],
    );
    std::fs::write(root.join("Taskfile.yml"), taskfile("", &root)).expect("write");
    let json = list(&root, &path_var(), Memory::Unbounded);
    assert_eq!(markers(&root), Vec::<String>::new());
    assert_eq!(task_names(&json, "task"), ["build"]);
}

/// Property: `just --dump` evaluates no backtick, loads no `.env` and runs no `set shell`.
#[test]
fn just_listing_runs_nothing() {
    require_tools(&["just"]);
    let (_base, root) = project(&[(".env", "A=1\n")]);
    let r = root.display();
    std::fs::write(
        root.join("justfile"),
        format!(
            "set dotenv-load\nset shell := [\"sh\", \"-c\", \"touch {r}/RAN-shell; sh -c \\\"$1\\\"\", \"x\"]\nx := `touch {r}/RAN-backtick`\nexport Y := `touch {r}/RAN-export`\n\nbuild arg=`touch {r}/RAN-default`:\n    echo {{{{x}}}}\n"
        ),
    )
    .expect("justfile");
    let json = list(&root, &path_var(), Memory::Bounded);
    assert_eq!(markers(&root), Vec::<String>::new());
    assert_eq!(task_names(&json, "just"), ["build"]);
}

/// Property: `cargo metadata --no-deps` runs nothing that `.cargo/config.toml` names
/// (`rustc`, wrappers, `rustdoc`, runners), and creates no `target-dir`.
#[test]
fn cargo_config_runs_nothing() {
    let (_base, root) = project(&[
        ("Cargo.toml", CARGO_TOML),
        ("src/main.rs", "fn main() {}\n"),
    ]);
    let bin = planted(&root, "evil", &["rustc", "wrap", "rustdoc", "runner"]);
    let b = bin.display();
    let r = root.display();
    std::fs::create_dir_all(root.join(".cargo")).expect("mkdir");
    std::fs::write(
        root.join(".cargo/config.toml"),
        format!(
            "[build]\nrustc = \"{b}/rustc\"\nrustc-wrapper = \"{b}/wrap\"\nrustc-workspace-wrapper = \"{b}/wrap\"\nrustdoc = \"{b}/rustdoc\"\ntarget-dir = \"{r}/RAN-target-dir\"\n[target.x86_64-unknown-linux-gnu]\nrunner = \"{b}/runner\"\n[alias]\nmetadata = \"run\"\n"
        ),
    )
    .expect("config");
    let json = list(&root, &path_var(), Memory::Unbounded);
    assert_eq!(markers(&root), Vec::<String>::new());
    assert_eq!(
        task_names(&json, "cargo").last().map(String::as_str),
        Some("bin/x")
    );
}

/// Property: `--explain` says, for every configured runner in order, what detecting it may
/// execute, and names the probes that run a program.
#[test]
fn explain_says_what_each_probe_may_execute() {
    let (_base, root) = project(&[("Makefile", "build:\n\techo b\n")]);
    let json = list(&root, &path_var(), Memory::Bounded);
    let probes = json["probes"].as_array().expect("probes under --explain");
    let ids: Vec<&str> = probes.iter().filter_map(|p| p["id"].as_str()).collect();
    assert_eq!(
        ids,
        [
            "just", "pkg", "cargo", "make", "task", "python", "tox", "nox", "go", "scripts",
            "mise", "deno", "composer", "pixi"
        ]
    );
    let executes = |id: &str| {
        probes
            .iter()
            .find(|p| p["id"] == id)
            .and_then(|p| p["executes"].as_str())
            .unwrap_or_default()
            .to_owned()
    };
    assert!(executes("cargo").contains("RUSTUP_TOOLCHAIN"));
    assert!(executes("task").contains("task --list-all"));
    assert!(executes("make").starts_with("nothing"));
    assert!(executes("python").contains("setup.py (never run)"));
    assert!(executes("go").starts_with("nothing") && executes("go").contains("GOTOOLCHAIN"));
    assert!(executes("scripts").starts_with("nothing") && executes("scripts").contains("4 KiB"));
    assert!(
        executes("mise").starts_with("nothing")
            && executes("mise").contains("`mise tasks` is never run")
    );
    for id in ["deno", "composer", "pixi"] {
        assert!(
            executes(id).starts_with("nothing"),
            "{id}: {}",
            executes(id)
        );
    }
    let out = bounded(
        &root,
        &["recipe", "list", "--explain"],
        &path_var(),
        Memory::Bounded,
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("What detecting each runner may execute:\n  just      `just --dump"),
        "{text}"
    );
}

/// Property: a Taskfile including a FIFO is refused with a reason before go-task is asked;
/// go-task itself would wait on it until the probe's deadline.
#[test]
fn taskfile_including_a_fifo_is_refused_at_once() {
    require_tools(&["task"]);
    let (_base, root) = project(&[(
        "Taskfile.yml",
        "version: '3'\nincludes:\n  x: ./x.yml\ntasks:\n  build:\n    cmds: [echo b]\n",
    )]);
    make_special(&root.join("x.yml"), Special::Fifo);
    let json = list(&root, &path_var(), Memory::Unbounded);
    assert_mentions(
        &json,
        &[
            "\"task\" failed: Taskfile.yml: not listed: it includes",
            "x.yml, which is a FIFO, not a regular file",
        ],
    );
    // An included folder whose Taskfile has another of go-task's names.
    std::fs::write(
        root.join("Taskfile.yml"),
        "version: '3'\nincludes:\n  lib: ./lib\ntasks:\n  build:\n    cmds: [echo b]\n",
    )
    .expect("write");
    make_special(&root.join("lib/Taskfile.yaml"), Special::Fifo);
    let _ = std::fs::remove_dir_all(root.join(".cache-test"));
    let json = list(&root, &path_var(), Memory::Unbounded);
    assert_mentions(
        &json,
        &["lib/Taskfile.yaml, which is a FIFO, not a regular file"],
    );
}

/// Property: a remote include (`https://…`) is not downloaded while listing: go-task is
/// asked with `--offline`, and says the copy is not in its cache.
#[test]
fn taskfile_remote_include_is_not_downloaded() {
    require_tools(&["task"]);
    let (_base, root) = project(&[(
        "Taskfile.yml",
        "version: '3'\nincludes:\n  r: https://127.0.0.1:9/Taskfile.yml\ntasks:\n  build:\n    cmds: [echo b]\n",
    )]);
    let json = list(&root, &path_var(), Memory::Unbounded);
    assert_mentions(
        &json,
        &[
            "`task --list-all --json --no-status --offline` exited",
            "was not found in the cache",
        ],
    );
}

/// A Taskfile whose root sets `dotenv` in `spelling` (`{{.Z}}` names the dynamic variable
/// `Z`, whose `sh:` leaves a marker when run).
fn dotenv_taskfile(spelling: &str, root: &Path) -> String {
    let r = root.display();
    match spelling {
        "json" => format!(
            r#"{{"version":"3","dotenv":["{{{{.Z}}}}"],"vars":{{"Z":{{"sh":"touch {r}/RAN-json; echo e"}}}},"tasks":{{"a":{{"cmds":["echo a"]}}}}}}"#
        ),
        "quoted" => format!(
            "version: '3'\n\"dotenv\": ['{{{{.Z}}}}']\nvars:\n  Z: {{sh: 'touch {r}/RAN-quoted; echo e'}}\ntasks:\n  a: {{cmds: [echo a]}}\n"
        ),
        "merge" => format!(
            "version: '3'\n<<: {{dotenv: ['{{{{.Z}}}}']}}\nvars:\n  Z: {{sh: 'touch {r}/RAN-merge; echo e'}}\ntasks:\n  a: {{cmds: [echo a]}}\n"
        ),
        "escape" => format!(
            "version: '3'\n\"dot\\u0065nv\": ['{{{{.Z}}}}']\nvars:\n  Z: {{sh: 'touch {r}/RAN-escape; echo e'}}\ntasks:\n  a: {{cmds: [echo a]}}\n"
        ),
        "alias" => format!(
            "version: '3'\nx: &k dotenv\n*k : ['{{{{.Z}}}}']\nvars:\n  Z: {{!!str sh: 'touch {r}/RAN-alias; echo e'}}\ntasks:\n  a: {{cmds: [echo a]}}\n"
        ),
        other => panic!("no spelling {other}"),
    }
}

/// Property: whatever the spelling of the root Taskfile's `dotenv` key (JSON, a quoted
/// key, a merge key, an escape, an alias to an anchored key), go-task's listing would run
/// the `sh:` variables, so the Taskfile is refused with a reason and nothing runs, under
/// `recipe list` and `allow` alike.
#[test]
fn go_task_dotenv_in_any_spelling_runs_nothing() {
    require_tools(&["task"]);
    for spelling in ["json", "quoted", "merge", "escape", "alias"] {
        let (_base, root) = project(&[(".env", "A=1\n")]);
        std::fs::write(root.join("Taskfile.yml"), dotenv_taskfile(spelling, &root)).expect("write");
        let json = list(&root, &path_var(), Memory::Unbounded);
        assert_eq!(markers(&root), Vec::<String>::new(), "{spelling}");
        assert_eq!(
            task_names(&json, "task"),
            Vec::<String>::new(),
            "{spelling}"
        );
        assert_mentions(
            &json,
            &[
                "\"task\" failed: Taskfile.yml:",
                "not listed: with `dotenv`",
            ],
        );
        let _ = std::fs::remove_dir_all(root.join(".cache-test"));
        let out = bounded(&root, &["allow", "--json"], &path_var(), Memory::Unbounded);
        assert_eq!(out.status.code(), Some(0), "{spelling}");
        assert_eq!(markers(&root), Vec::<String>::new(), "{spelling}");
    }
    // A Taskfile no YAML reader can read is refused too (go-task would not list it).
    let (_base, root) = project(&[("Taskfile.yml", "version: '3'\ntasks: {a: [\n")]);
    let json = list(&root, &path_var(), Memory::Unbounded);
    assert_mentions(
        &json,
        &["\"task\" failed: Taskfile.yml: not listed: not YAML"],
    );
}

/// Property: a file the runner's own tool would read, named by the manifest, that is
/// `/dev/zero` (a just module, a cargo workspace member's manifest, `.cargo/config.toml`, a
/// go-task dotenv file) is refused with a reason before the tool is asked; the tool never
/// reads gigabytes from it (the run is bounded to 512 MiB of address space where no Go
/// tool is involved).
#[test]
fn special_files_the_runners_tool_would_read() {
    require_tools(&["just", "task"]);
    let (_base, root) = project(&[
        ("justfile", "mod big\nown:\n    echo o\n"),
        ("Cargo.toml", "[workspace]\nmembers = [\"m*\"]\n"),
    ]);
    make_special(&root.join("big.just"), Special::DevZero);
    make_special(&root.join("m1/Cargo.toml"), Special::DevZero);
    let json = list(&root, &path_var(), Memory::Bounded);
    assert_mentions(
        &json,
        &[
            "\"just\" failed: justfile: not listed: it reads big.just, which is a character device",
            "\"cargo\" failed: Cargo.toml: not listed: it reads m1/Cargo.toml, which is a character device",
        ],
    );
    // A member reached through a symlinked folder: cargo's glob follows it.
    let (_base, root) = project(&[("Cargo.toml", "[workspace]\nmembers = [\"l*\"]\n")]);
    make_special(&root.join("hidden/Cargo.toml"), Special::DevZero);
    std::os::unix::fs::symlink("hidden", root.join("l1")).expect("link");
    let json = list(&root, &path_var(), Memory::Bounded);
    assert_mentions(
        &json,
        &[
            "\"cargo\" failed: Cargo.toml: not listed: it reads l1/Cargo.toml, which is a character device",
        ],
    );
    let (_base, root) = project(&[(
        "Cargo.toml",
        "[package]\nname = \"x\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )]);
    make_special(&root.join(".cargo/config.toml"), Special::DevZero);
    let json = list(&root, &path_var(), Memory::Bounded);
    assert_mentions(
        &json,
        &[
            "\"cargo\" failed: Cargo.toml: not listed: it reads .cargo/config.toml, which is a character device",
        ],
    );
    let (_base, root) = project(&[(
        "Taskfile.yml",
        "version: '3'\ndotenv: ['.env']\ntasks:\n  a: {cmds: [echo a]}\n",
    )]);
    make_special(&root.join(".env"), Special::DevZero);
    let json = list(&root, &path_var(), Memory::Unbounded);
    assert_mentions(
        &json,
        &["\"task\" failed: Taskfile.yml: not listed: it reads .env, which is a character device"],
    );
}

/// Property: a just module that is a symlink resolving outside the root is left out with
/// a note (just follows it itself); a justfile importing a file outside the root (through
/// a symlinked folder) is refused with a reason, since `just --dump` merges an import's
/// recipes into the importer's with nothing saying where each came from.
#[test]
fn just_modules_and_imports_outside_the_root() {
    require_tools(&["just"]);
    let (base, root) = project(&[("justfile", "mod mod1\nown:\n    echo o\n")]);
    let outside = base.path().join("outside");
    std::fs::create_dir_all(outside.join("mk")).expect("outside");
    for file in ["evil.just", "mk/evil.just"] {
        std::fs::write(outside.join(file), "evilrecipe:\n    echo e\n").expect("evil");
    }
    std::os::unix::fs::symlink("../outside/evil.just", root.join("mod1.just")).expect("link");
    let json = list(&root, &path_var(), Memory::Bounded);
    assert_eq!(task_names(&json, "just"), ["own"]);
    assert_mentions(
        &json,
        &[
            "module `mod1` is left out: it comes from",
            "outside the project root (just follows that module itself",
        ],
    );
    std::fs::write(
        root.join("justfile"),
        "import 'mk/evil.just'\nown:\n    echo o\n",
    )
    .expect("justfile");
    std::fs::remove_file(root.join("mod1.just")).expect("rm");
    std::os::unix::fs::symlink("../outside/mk", root.join("mk")).expect("link");
    let _ = std::fs::remove_dir_all(root.join(".cache-test"));
    let json = list(&root, &path_var(), Memory::Bounded);
    assert_eq!(task_names(&json, "just"), Vec::<String>::new());
    assert_mentions(
        &json,
        &[
            "\"just\" failed: justfile: not listed: it imports mk/evil.just, which resolves outside the project root",
        ],
    );
}

/// Property: a probe's tool cannot take the machine's memory, whatever a repository makes
/// it read: a `just` that needs 1.2 GB (standing in for one reading a device no check
/// named) fails at the probe's 1 GiB data bound, with a reason, instead of listing.
#[test]
fn a_probe_cannot_take_the_machines_memory() {
    use std::os::unix::fs::PermissionsExt;
    let (base, root) = project(&[("justfile", "own:\n    echo o\n")]);
    let bin = base.path().join("bin");
    std::fs::create_dir_all(&bin).expect("bin");
    let fake = bin.join("just");
    std::fs::write(
        &fake,
        "#!/bin/sh\nperl -e '$x = q(a) x shift; print qq({\"recipes\":{\"own\":{\"parameters\":[]}}})' 1200000000\n",
    )
    .expect("fake just");
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let mut path = bin.into_os_string();
    path.push(":");
    path.push(path_var());
    let json = list(&root, &path, Memory::Unbounded);
    assert_eq!(task_names(&json, "just"), Vec::<String>::new());
    assert_mentions(
        &json,
        &["\"just\" failed: `just --dump --dump-format=json` exited"],
    );
}

/// Property: a FIFO or `/dev/zero` as `go.mod` or `go.work` fails the go runner at once
/// with the reason; nothing of go runs.
#[test]
fn special_files_as_go_manifests() {
    require_tools(&["go"]);
    for (name, special, want) in [
        (
            "go.mod",
            Special::Fifo,
            "\"go\" failed: go.mod: is a FIFO, not a regular file",
        ),
        (
            "go.mod",
            Special::DevZero,
            "\"go\" failed: go.mod: resolves outside the project root (to /dev/zero)",
        ),
        (
            "go.work",
            Special::Fifo,
            "\"go\" failed: go.work: is a FIFO, not a regular file",
        ),
    ] {
        let (_base, root) = project(&[("cmd/x/main.go", "package main\nfunc main() {}\n")]);
        make_special(&root.join(name), special);
        let json = list(&root, &path_var(), Memory::Bounded);
        assert_eq!(task_names(&json, "go"), Vec::<String>::new(), "{name}");
        assert_mentions(&json, &[want]);
    }
}

/// Property: the Go files under `cmd/` are read as an untrusted repository's: a symlinked
/// command folder (out of the root) or `cmd` folder is never followed, a 1 GiB Go file
/// costs only its first bytes, a folder go would refuse (`-rf`, a space) is left out with a
/// note, and every command names its package with `./`, so no folder is read as an option.
#[test]
fn go_commands_of_an_untrusted_repository() {
    require_tools(&["go"]);
    let main = "package main\n\nfunc main() {}\n";
    let (base, root) = project(&[
        ("go.mod", "module example.com/x\n\ngo 1.22\n"),
        ("cmd/ok/main.go", main),
        ("cmd/-rf/main.go", main),
        ("cmd/a b/main.go", main),
        ("cmd/lib/lib.go", "package lib\n"),
        ("member/go.mod", "module example.com/m\n"),
        ("member/cmd/tool/main.go", main),
    ]);
    let outside = base.path().join("outside");
    std::fs::create_dir_all(outside.join("cmd/stolen")).expect("outside");
    std::fs::write(outside.join("cmd/stolen/main.go"), main).expect("main");
    std::os::unix::fs::symlink(outside.join("cmd/stolen"), root.join("cmd/escape")).expect("link");
    let big = root.join("cmd/big/main.go");
    std::fs::create_dir_all(big.parent().expect("parent")).expect("mkdir");
    std::fs::write(&big, "// Big is huge.\npackage main\n").expect("write");
    std::fs::File::options()
        .write(true)
        .open(&big)
        .and_then(|f| f.set_len(1 << 30))
        .expect("sparse");
    make_special(&root.join("cmd/fifo/main.go"), Special::Fifo);
    let json = list(&root, &path_var(), Memory::Bounded);
    assert_eq!(
        tasks_of(&json, "go"),
        [
            ("test", "go test ./..."),
            ("build", "go build ./..."),
            ("vet", "go vet ./..."),
            ("run/big", "go run ./cmd/big"),
            ("run/ok", "go run ./cmd/ok"),
        ]
        .map(|(n, c)| (n.to_owned(), c.to_owned()))
    );
    assert_mentions(
        &json,
        &[
            "cmd/-rf is left out: go refuses a package folder whose name starts with `-`",
            "cmd/a b is left out: go refuses a package folder whose name holds characters",
            "cmd/escape is a symlink; not followed",
            "cmd/fifo/main.go: is a FIFO, not a regular file; not read",
        ],
    );
    // The member is not in a workspace: go.mod alone lists the root module only.
    assert!(!explained(&json).contains("stolen"));
    // The same in a workspace, where a `cmd` folder linked out of the root and `use` lines
    // leaving it are not followed, and hundreds of `use` lines are bounded.
    let mut work = String::from("go 1.22\n\nuse (\n\t.\n\t./member\n\t../outside\n\t/etc\n");
    for i in 0..1500 {
        work.push_str(&format!("\t./missing/{i}\n"));
    }
    work.push_str(")\n");
    std::fs::write(root.join("go.work"), work).expect("go.work");
    std::fs::remove_dir_all(root.join("member/cmd")).expect("rm");
    std::os::unix::fs::symlink(outside.join("cmd"), root.join("member/cmd")).expect("link");
    let json = list(&root, &path_var(), Memory::Bounded);
    assert_eq!(
        tasks_of(&json, "go")[..3],
        [
            ("test", "go test ./... ./member/..."),
            ("build", "go build ./... ./member/..."),
            ("vet", "go vet ./... ./member/..."),
        ]
        .map(|(n, c)| (n.to_owned(), c.to_owned()))
    );
    assert_eq!(
        task_names(&json, "go")[3..],
        ["run/big", "run/ok"].map(str::to_owned)
    );
    assert_mentions(
        &json,
        &[
            "go.work has 1504 `use` entries; only the first 1000 are read",
            "go.work: `use ../outside` is outside the project root; its module is left out",
            "go.work: `use /etc` is outside the project root; its module is left out",
            "go.work: `use ./missing/0` and 995 more: no such folder",
            "member/cmd is a symlink; not followed",
        ],
    );
}

/// Property: pyproject.toml as a FIFO, a link to `/dev/zero`, a link out of the root or a
/// 1 GiB file fails the Python runner at once with the reason; a requirements file that is a
/// FIFO is a note; a `.venv` linked from elsewhere is not the project's environment.
#[test]
fn python_special_files() {
    #[track_caller]
    fn failed(root: &Path, want: &str) {
        let json = list(root, &path_var(), Memory::Bounded);
        assert_eq!(task_names(&json, "python"), Vec::<String>::new());
        assert_mentions(
            &json,
            &[&format!("\"python\" failed: pyproject.toml: {want}")],
        );
    }
    for (special, want) in [
        (Special::Fifo, "is a FIFO"),
        (
            Special::DevZero,
            "resolves outside the project root (to /dev/zero)",
        ),
    ] {
        let (_base, root) = project(&[]);
        make_special(&root.join("pyproject.toml"), special);
        failed(&root, want);
    }
    let (base, root) = project(&[]);
    std::fs::write(
        base.path().join("pyproject.toml"),
        "[tool.poe.tasks]\nx = 'echo'\n",
    )
    .expect("outside");
    std::os::unix::fs::symlink(
        base.path().join("pyproject.toml"),
        root.join("pyproject.toml"),
    )
    .expect("link");
    failed(&root, "resolves outside the project root");
    let (_base, root) = project(&[]);
    let huge = std::fs::File::create(root.join("pyproject.toml")).expect("create");
    huge.set_len(1 << 30).expect("sparse");
    failed(&root, "is larger than 4 MiB; not read");

    let (base, root) = project(&[
        ("setup.py", "from setuptools import setup\nsetup()\n"),
        ("tests/test_a.py", "import unittest\n"),
    ]);
    make_special(&root.join("requirements.txt"), Special::Fifo);
    make_special(&root.join("tests/requirements-dev.txt"), Special::DevZero);
    let venv = base.path().join("elsewhere");
    std::fs::create_dir_all(venv.join("bin")).expect("venv");
    std::fs::write(venv.join("bin/python"), "").expect("python");
    std::os::unix::fs::symlink(&venv, root.join(".venv")).expect("link");
    let json = list(&root, &path_var(), Memory::Bounded);
    assert_eq!(task_names(&json, "python"), ["test"]);
    assert_eq!(
        support::runner_json(&json, "python")["tasks"][0]["command"],
        "python3 -m unittest discover -s tests"
    );
    assert_mentions(
        &json,
        &[
            "requirements.txt: is a FIFO, not a regular file; not read",
            "tests/requirements-dev.txt: resolves outside the project root (to /dev/zero)",
            ".venv is a symlink; it is not used as the project's environment",
        ],
    );
}

/// Property: the test files read for their shape are read with care: a FIFO in place of
/// one is a note and never blocks, a link to `/dev/zero` or to a pytest-shaped file outside
/// the root is not read, nor is a `test/` folder linked to one outside (so `test` stays
/// unittest), and a 1 GiB test file costs only its first 64 KiB.
#[test]
fn python_test_files_are_read_with_care() {
    let pytest_shaped = "import pytest\n\n\ndef test_x():\n    pass\n";
    let (base, root) = project(&[
        ("setup.py", "from setuptools import setup\nsetup()\n"),
        ("tests/test_a.py", "import unittest\n"),
    ]);
    make_special(&root.join("tests/test_fifo.py"), Special::Fifo);
    make_special(&root.join("tests/test_zero.py"), Special::DevZero);
    std::fs::write(base.path().join("outside_test.py"), pytest_shaped).expect("outside");
    std::os::unix::fs::symlink(
        base.path().join("outside_test.py"),
        root.join("tests/test_outside.py"),
    )
    .expect("link");
    let huge = std::fs::File::create(root.join("tests/test_huge.py")).expect("create");
    huge.set_len(1 << 30).expect("sparse");
    let elsewhere = base.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).expect("mkdir");
    std::fs::write(elsewhere.join("test_e.py"), pytest_shaped).expect("outside");
    std::os::unix::fs::symlink(&elsewhere, root.join("test")).expect("link");
    let json = list(&root, &path_var(), Memory::Bounded);
    assert_eq!(
        support::runner_json(&json, "python")["tasks"][0]["command"],
        "python3 -m unittest discover -s tests"
    );
    assert_mentions(
        &json,
        &[
            "tests/test_fifo.py: is a FIFO, not a regular file; not read",
            "tests/test_outside.py: resolves outside the project root",
            "tests/test_zero.py: resolves outside the project root (to /dev/zero)",
            "test is a symlink; its test files are not read for their shape",
        ],
    );
}

/// Property: poe, pdm and hatch task names the tool would read as an option (`-x`), hatch
/// would read as a matrix or environment selection (`+py`, `a:b`), or that hold whitespace
/// are never tasks; the others are, and no command has a word starting with `-` where the
/// name goes.
#[test]
fn python_task_names_are_never_options() {
    require_tools(&["poe", "pdm", "hatch"]);
    let (_base, root) = project(&[(
        "pyproject.toml",
        r#"
[tool.poe.tasks]
"--help" = "echo poe-help"
"-C" = "echo c"
"a b" = "echo space"
ok = "echo ok"

[tool.pdm.scripts]
"-v" = "echo v"
"--list" = "echo list"
tidy = "echo tidy"

[tool.hatch.envs.default.scripts]
"-py" = "echo matrix"
"+py" = "echo matrix"
"a:b" = "echo env"
"x y" = "echo space"
cov = "echo cov"

[tool.hatch.envs."-e".scripts]
bad = "echo env"
"#,
    )]);
    let json = list(&root, &path_var(), Memory::Bounded);
    assert_eq!(task_names(&json, "python"), ["ok", "tidy", "cov"]);
    let commands: Vec<&str> = support::runner_json(&json, "python")["tasks"]
        .as_array()
        .expect("tasks")
        .iter()
        .filter_map(|t| t["command"].as_str())
        .collect();
    assert_eq!(commands, ["poe ok", "pdm run -- tidy", "hatch run -- cov"]);
    assert_mentions(
        &json,
        &[
            "poe task `--help` is left out: the tool would read its name as an option",
            "poe task `-C` is left out",
            "pdm script `-v` is left out",
            "pdm script `--list` is left out",
            "hatch script `-py` is left out",
            "hatch script `+py` is left out: hatch would read it as an environment or matrix selection",
            "hatch script `a:b` is left out",
            "task \"a b\" is left out: an op cannot name a task with whitespace",
            "task \"x y\" is left out",
            "hatch env `-e` is left out",
        ],
    );
}

/// Property: a noxfile whose import runs code (a top-level `os.system`, a file written) and
/// a tox.ini whose `requires` tox would provision are only read: nothing runs. Names
/// starting with `-` become `tox -e-x` and `nox --session=-x`, which select the env (never
/// an option), and names with whitespace are left out with a note.
#[test]
fn tox_and_nox_configurations_run_nothing() {
    require_tools(&["tox", "nox"]);
    let noxfile = r#"import os
import nox

os.system("touch pwned-system")
open("pwned-open", "w").write("ran")

@nox.session(python=False)
def tests(session):
    print("ran tests")

@nox.session(name="-x", python=False)
def dash(session):
    print("ran -x")

@nox.session(name="has space", python=False)
def space(session):
    print("ran space")
"#;
    let tox_ini = "[tox]\nrequires = tox-pwned-plugin>=99\nenv_list = lint\n\n[testenv]\nskip_install = true\n\n[testenv:lint]\ncommands = python -c \"print('ran lint')\"\n\n[testenv:-x]\ncommands = python -c \"print('ran -x')\"\n";
    let (_base, root) = project(&[("noxfile.py", noxfile), ("tox.ini", tox_ini)]);
    let json = list(&root, &path_var(), Memory::Bounded);
    let owned = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
            .collect()
    };
    assert_eq!(
        tasks_of(&json, "nox"),
        owned(&[("tests", "nox -s tests"), ("-x", "nox --session=-x")])
    );
    assert_eq!(
        tasks_of(&json, "tox"),
        // `py`, which tox makes on demand, last.
        owned(&[
            ("lint", "tox -e lint"),
            ("-x", "tox -e-x"),
            ("py", "tox -e py")
        ])
    );
    assert_mentions(&json, &["\"has space\" is left out"]);
    assert!(!root.join("pwned-system").exists() && !root.join("pwned-open").exists());
    // The dash names select the session and the env: the tools print what they ran.
    let nox = support::sh("nox --session=-x", &root, Duration::from_secs(60));
    assert!(
        nox.success() && nox.stdout.text().contains("ran -x"),
        "{}",
        nox.stdout.text()
    );
}

/// Property: a FIFO, a symlink to `/dev/zero`, a symlink out of the root or a 1 GiB file
/// as tox.ini or noxfile.py fails that runner at once with the reason.
#[test]
fn special_files_as_tox_ini_and_noxfile() {
    require_tools(&["tox", "nox"]);
    #[track_caller]
    fn case(prepare: impl Fn(&Path, &Path), kind: &str) {
        let (base, root) = project(&[]);
        for name in ["tox.ini", "noxfile.py"] {
            prepare(&root.join(name), base.path());
        }
        let json = list(&root, &path_var(), Memory::Bounded);
        assert_mentions(
            &json,
            &[
                &format!("\"tox\" failed: tox.ini: {kind}"),
                &format!("\"nox\" failed: noxfile.py: {kind}"),
            ],
        );
    }
    case(
        |path, _| make_special(path, Special::Fifo),
        "is a FIFO, not a regular file; not read",
    );
    case(
        |path, _| make_special(path, Special::DevZero),
        "resolves outside the project root (to /dev/zero); not read",
    );
    case(
        |path, base| {
            let outside = base.join(path.file_name().expect("name"));
            std::fs::write(&outside, "[testenv:secret]\n").expect("outside");
            std::os::unix::fs::symlink(&outside, path).expect("link");
        },
        "resolves outside the project root",
    );
    case(
        |path, _| {
            let file = std::fs::File::create(path).expect("create");
            file.set_len(1 << 30).expect("sparse");
        },
        "is larger than 4 MiB; not read",
    );
}

/// A stand-in `pixi` first on PATH, for detection only (it reads pixi.toml as text and
/// never runs pixi, which the registries here do not publish).
fn path_with_pixi(base: &Path) -> OsString {
    use std::os::unix::fs::PermissionsExt;
    let bin = base.join("pixi-bin");
    std::fs::create_dir_all(&bin).expect("bin");
    let pixi = bin.join("pixi");
    std::fs::write(&pixi, "#!/bin/sh\nexit 97\n").expect("stand-in");
    std::fs::set_permissions(&pixi, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let mut path = OsString::from(&bin);
    path.push(":");
    path.push(path_var());
    path
}

/// Property: a FIFO, `/dev/zero`, a link out of the root or a 1 GiB file as the manifest
/// of mise, deno, composer or pixi fails that runner at once with the reason; nothing
/// hangs or reads it whole.
#[test]
fn special_files_as_mise_deno_composer_and_pixi_manifests() {
    require_tools(&["mise", "deno", "composer"]);
    #[track_caller]
    fn case(prepare: impl Fn(&Path, &Path), kind: &str, composer_kind: &str) {
        let (base, root) = project(&[]);
        for name in ["mise.toml", "deno.json", "composer.json", "pixi.toml"] {
            prepare(&root.join(name), base.path());
        }
        let json = list(&root, &path_with_pixi(base.path()), Memory::Bounded);
        assert_mentions(
            &json,
            &[
                &format!("\"mise\" failed: mise.toml: {kind}"),
                &format!("\"deno\" failed: deno.json: {kind}"),
                &format!("\"composer\" failed: composer.json: {composer_kind}"),
                &format!("\"pixi\" failed: pixi.toml: {kind}"),
            ],
        );
    }
    let fifo = "is a FIFO, not a regular file; not read";
    case(|path, _| make_special(path, Special::Fifo), fifo, fifo);
    let zero = "resolves outside the project root (to /dev/zero); not read";
    case(|path, _| make_special(path, Special::DevZero), zero, zero);
    let outside = "resolves outside the project root";
    case(
        |path, base| {
            let target = base.join(path.file_name().expect("name"));
            std::fs::write(&target, "{}\n").expect("outside");
            std::os::unix::fs::symlink(&target, path).expect("link");
        },
        outside,
        outside,
    );
    case(
        |path, _| {
            let file = std::fs::File::create(path).expect("create");
            file.set_len(1 << 30).expect("sparse");
        },
        "is larger than 4 MiB; not read",
        "is larger than 16 MiB; not read",
    );
}

/// Property: inside mise's task folders and deno's workspace, hostile entries are left out
/// with a note while the rest is listed: an executable FIFO and a file task linked out of
/// the root, a task folder that is a symlink to `/`, an include out of the root, a member
/// manifest that is `/dev/zero`, a manifest nested a million levels deep.
#[test]
fn hostile_entries_of_mise_task_folders_and_deno_workspaces() {
    use std::os::unix::fs::PermissionsExt;
    require_tools(&["mise", "deno"]);
    let (base, root) = project(&[
        (
            "mise.toml",
            "[tasks.test]\nrun = 'echo ran test'\n[task_config]\nincludes = ['mise-tasks', '../outside.toml', 'tasks.toml']\n",
        ),
        ("tasks.toml", "[lint]\nrun = 'echo ran lint'\n"),
        (
            "mise-tasks/ok",
            "#!/bin/sh\n#MISE description=\"fine\"\necho ran ok\n",
        ),
        (
            "deno.json",
            r#"{"workspace": ["./a", "./b", "../out"], "tasks": {"dev": "echo ran dev"}}"#,
        ),
        ("a/deno.json", r#"{"tasks": {"serve": "echo ran serve"}}"#),
    ]);
    std::fs::write(base.path().join("outside.toml"), "[steal]\nrun = 'x'\n").expect("outside");
    let executable = |path: &Path| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    };
    executable(&root.join("mise-tasks/ok"));
    make_special(&root.join("mise-tasks/fifo"), Special::Fifo);
    executable(&root.join("mise-tasks/fifo"));
    std::fs::write(
        base.path().join("secret"),
        "#!/bin/sh\n#MISE description=\"secret\"\n",
    )
    .expect("secret");
    executable(&base.path().join("secret"));
    std::os::unix::fs::symlink(base.path().join("secret"), root.join("mise-tasks/linked"))
        .expect("link");
    std::os::unix::fs::symlink("/", root.join("mise-tasks/root")).expect("link");
    std::fs::create_dir_all(root.join("shared")).expect("shared");
    std::fs::write(root.join("shared/x"), "#!/bin/sh\n").expect("x");
    executable(&root.join("shared/x"));
    std::os::unix::fs::symlink(root.join("shared"), root.join("mise-tasks/shared")).expect("link");
    make_special(&root.join("b/deno.json"), Special::DevZero);
    let json = list(&root, &path_var(), Memory::Bounded);
    assert_eq!(task_names(&json, "mise"), ["lint", "ok", "test"]);
    assert_eq!(task_names(&json, "deno"), ["dev", "a/serve"]);
    assert_mentions(
        &json,
        &[
            "mise-tasks/fifo is left out: it is not a regular file",
            "mise-tasks/linked is left out: resolves outside the project root",
            "mise-tasks/root is left out: resolves outside the project root",
            "mise-tasks/shared is a symlinked folder; not followed",
            "the include `../outside.toml` is not a path inside the project",
            "b/deno.json: resolves outside the project root (to /dev/zero)",
            "workspace member `../out` is not a folder inside the project",
        ],
    );
    std::fs::write(root.join("deno.json"), "[".repeat(1 << 20)).expect("deep");
    let json = list(&root, &path_var(), Memory::Bounded);
    assert_mentions(
        &json,
        &["\"deno\" failed: deno.json: nested deeper than 128 levels"],
    );
}

/// Property: a task name mise, deno, composer or pixi would read as one of its own options
/// is left out with a note, and never becomes a command.
#[test]
fn new_runners_task_names_are_never_options() {
    require_tools(&["mise", "deno", "composer"]);
    let (base, root) = project(&[
        (
            "mise.toml",
            "[tasks.'--cd=/']\nrun = 'x'\n[tasks.ok]\nrun = 'echo ok'\n",
        ),
        (
            "deno.json",
            r#"{"tasks": {"--config=x": "x", "ok": "echo ok"}}"#,
        ),
        (
            "composer.json",
            r#"{"scripts": {"-d/": "x", "ok": "echo ok"}}"#,
        ),
        ("pixi.toml", "[tasks]\n'--frozen' = 'x'\nok = 'echo ok'\n"),
    ]);
    let json = list(&root, &path_with_pixi(base.path()), Memory::Bounded);
    for id in ["mise", "deno", "composer", "pixi"] {
        assert_eq!(task_names(&json, id), ["ok"], "{id}");
    }
    assert_mentions(
        &json,
        &[
            "task `--cd=/` is left out: `mise run` would read its name as an option",
            "task `--config=x` is left out: `deno task` would read its name as an option",
            "script `-d/` is left out: `composer run` would read its name as an option",
            "task `--frozen` is left out: `pixi run` would read its name as an option",
        ],
    );
}

/// Property: a flood of file tasks (3,000 executables in `mise-tasks/`, 30 folders nested
/// inside each other) is read up to mise's bounds, once noted, in bounded memory.
#[test]
fn a_flood_of_mise_file_tasks_is_bounded() {
    use std::os::unix::fs::PermissionsExt;
    require_tools(&["mise"]);
    let (_base, root) = project(&[("mise.toml", "[tasks.test]\nrun = 'echo ran test'\n")]);
    let dir = root.join("mise-tasks");
    std::fs::create_dir_all(&dir).expect("mkdir");
    for i in 0..3000 {
        let path = dir.join(format!("t{i:04}"));
        std::fs::write(&path, "#!/bin/sh\n").expect("write");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    let deep = (0..30).fold(root.join(".mise/tasks"), |p, i| p.join(format!("d{i}")));
    std::fs::create_dir_all(&deep).expect("deep");
    let json = list(&root, &path_var(), Memory::Bounded);
    let names = task_names(&json, "mise");
    assert!(names.len() <= 2001 && names.len() > 1000, "{}", names.len());
    assert!(names.contains(&"test".to_owned()));
    let text = explained(&json);
    assert_eq!(
        text.matches("the task folders hold more than 2000 entries")
            .count(),
        1,
        "{text}"
    );
}

/// Property: subprojects (a folder right below the root with a task file and a manifest)
/// are read within the root's bounds: a FIFO justfile, Taskfile, package.json, tox.ini or
/// noxfile.py there is refused with a note and the others are listed; a folder linked out of the root, hidden
/// folders, `node_modules` and `vendor` are never subprojects; a package.json linked out of
/// the root is not read; past 32 subprojects a note says how many are left out.
#[test]
fn hostile_subprojects() {
    require_tools(&["just", "task", "tox", "nox"]);
    let pkg = r#"{"scripts":{"t":"echo t"}}"#;
    let mut files: Vec<(String, &str)> = vec![
        ("go.mod".into(), "module example.com/x\n\ngo 1.22\n"),
        ("web/package.json".into(), pkg),
        ("web/justfile".into(), "e2e:\n    echo e\n"),
        ("tools/go.mod".into(), "module example.com/x/tools\n"),
        ("api/go.mod".into(), "module example.com/x/api\n"),
        ("api/justfile".into(), "gen:\n    echo g\n"),
        (".hidden/package.json".into(), pkg),
        ("node_modules/package.json".into(), pkg),
        ("vendor/package.json".into(), pkg),
        ("vendor/justfile".into(), "v:\n    echo v\n"),
        ("lib/pyproject.toml".into(), "[project]\nname = \"lib\"\n"),
        (
            "bindings/setup.py".into(),
            "from setuptools import setup\nsetup()\n",
        ),
    ];
    let flood: Vec<String> = (0..40).map(|i| format!("z{i:02}/package.json")).collect();
    files.extend(flood.iter().map(|name| (name.clone(), pkg)));
    let borrowed: Vec<(&str, &str)> = files.iter().map(|(n, t)| (n.as_str(), *t)).collect();
    let (base, root) = project(&borrowed);
    make_special(&root.join("web/justfile"), Special::Fifo);
    make_special(&root.join("tools/Taskfile.yml"), Special::Fifo);
    make_special(&root.join("site/package.json"), Special::Fifo);
    make_special(&root.join("bad/package.json"), Special::DevZero);
    make_special(&root.join("lib/tox.ini"), Special::Fifo);
    make_special(&root.join("bindings/noxfile.py"), Special::Fifo);
    let outside = base.path().join("outside");
    std::fs::create_dir_all(&outside).expect("outside");
    for (name, text) in [
        ("package.json", r#"{"scripts":{"steal":"echo s"}}"#),
        ("justfile", "steal:\n    echo s\n"),
        (
            "Taskfile.yml",
            "version: '3'\ntasks:\n  steal:\n    cmds: [echo s]\n",
        ),
        ("Makefile", "steal:\n\techo s\n"),
    ] {
        std::fs::write(outside.join(name), text).expect("write");
    }
    std::os::unix::fs::symlink(&outside, root.join("linked")).expect("link");
    std::fs::create_dir_all(root.join("docs")).expect("docs");
    std::os::unix::fs::symlink(outside.join("package.json"), root.join("docs/package.json"))
        .expect("link");
    let json = list(&root, &path_var(), Memory::Unbounded);
    assert_eq!(task_names(&json, "just"), ["api/gen"]);
    let pkg_tasks = task_names(&json, "pkg");
    let mut want = vec!["web/t".to_owned()];
    // bad, docs, site and web take four of the 32 places, z00 to z27 the rest.
    want.extend((0..28).map(|i| format!("z{i:02}/t")));
    assert_eq!(pkg_tasks, want);
    let text = explained(&json);
    assert!(
        !text.contains("steal") && !text.contains("hidden"),
        "{text}"
    );
    assert_mentions(
        &json,
        &[
            "subproject web/ is not listed: web/justfile: is a FIFO",
            "\"task\" absent: no task in the root or a subproject (subproject tools/ is not \
             listed: tools/Taskfile.yml: is a FIFO",
            "subproject site/ is not listed: site/package.json: is a FIFO",
            "subproject docs/ is not listed: docs/package.json: resolves outside the project root",
            "subproject bad/ is not listed: bad/package.json: resolves outside the project root",
            "12 subprojects past the first 32 are not listed",
            "subproject lib/ is not listed: tox.ini: is a FIFO",
            "subproject bindings/ is not listed: noxfile.py: is a FIFO",
        ],
    );
}
