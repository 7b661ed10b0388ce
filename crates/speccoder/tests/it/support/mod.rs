//! Shared helpers of the integration tests: the real tools' PATH, a private copy of the
//! fixtures, and snapshot settings.

pub mod project;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use speccoder_config::RecipeConfig;
use speccoder_foundation::process::{LocalSpawner, RunOutput, RunRequest, Spawner};
use speccoder_recipe::{ProcessProbe, Recipe};

pub mod attempts;
mod table;

pub(crate) use table::table;

/// Where `scripts/install-tools.sh` puts the real tools' binaries.
pub fn tools_bin() -> PathBuf {
    std::env::var_os("TOOLS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").expect("HOME is set"))
                .join(".cache/speccoder-tools")
        })
        .join("bin")
}

/// `PATH` with the tools folder first.
pub fn path_var() -> OsString {
    let mut dirs = vec![tools_bin()];
    if let Some(path) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&path));
    }
    std::env::join_paths(dirs).expect("PATH joins")
}

/// Fails the test with a clear message unless every tool in `names` is installed.
#[track_caller]
pub fn require_tools(names: &[&str]) {
    let path = path_var();
    for name in names {
        assert!(
            speccoder_runners::find_on_path(name, Some(&path)).is_some(),
            "`{name}` is not installed: run ./scripts/install-tools.sh (or ./scripts/test)"
        );
    }
}

/// The repository's `fixtures/` folder.
pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// A private copy of the whole fixtures tree (symlinks kept as symlinks, so relative links
/// between fixtures still point where they did), removed when dropped.
pub struct Fixtures {
    dir: tempfile::TempDir,
}

impl Fixtures {
    pub fn copy() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        copy_tree(&fixtures_dir(), &dir.path().join("fixtures"));
        Self { dir }
    }

    /// The copy of `fixtures/<name>`, canonical.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir
            .path()
            .join("fixtures")
            .join(name)
            .canonicalize()
            .expect("fixture exists")
    }

    /// The copy's `fixtures/` folder, canonical.
    pub fn root(&self) -> PathBuf {
        self.dir
            .path()
            .join("fixtures")
            .canonicalize()
            .expect("fixtures")
    }
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create dir");
    for entry in std::fs::read_dir(from).expect("read fixtures").flatten() {
        let name = entry.file_name();
        // Build outputs of a fixture someone ran by hand are not part of it.
        if name == "target" {
            continue;
        }
        let kind = entry.file_type().expect("file type");
        let target = to.join(&name);
        if kind.is_symlink() {
            let link = std::fs::read_link(entry.path()).expect("read link");
            std::os::unix::fs::symlink(link, &target).expect("symlink");
        } else if kind.is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy file");
        }
    }
}

/// Every fixture folder name, sorted.
pub fn fixture_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(fixtures_dir())
        .expect("fixtures")
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| e.file_name().into_string().ok())
        // Fixtures of the attempt and recorded test outputs, not projects to detect.
        .filter(|name| {
            ![
                "agents", "attempt", "controls", "per-test", "results", "sandbox", "verdict",
            ]
            .contains(&name.as_str())
        })
        .collect();
    names.sort();
    names
}

/// Detection with the real probes and the tools' PATH.
pub fn detect(root: &Path, config: &RecipeConfig) -> Recipe {
    let path = path_var();
    let probe = ProcessProbe::with_env(vec![(
        "PATH".into(),
        path.to_str().expect("PATH is UTF-8").into(),
    )]);
    Recipe::detect_with(root, config, &probe, Some(&path))
}

/// Runs `command` in `cwd` through the real shell with the tools' PATH.
pub fn sh(command: &str, cwd: &Path, timeout: Duration) -> RunOutput {
    let mut request = RunRequest::new(command, cwd, timeout);
    request.env.push((
        "PATH".into(),
        path_var().to_str().expect("PATH is UTF-8").into(),
    ));
    request.env.push(("NO_COLOR".into(), "1".into()));
    LocalSpawner::default()
        .run(&request)
        .expect("the shell starts")
}

/// Insta settings keeping snapshots in `snapshots/<folder>`.
pub fn snapshots(folder: &str) -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../snapshots")
            .join(folder),
    );
    settings.set_prepend_module_to_snapshot(false);
    settings
}

/// Yarn 4 runs from a release file the project carries, after one install.
pub fn prepare_yarn_berry(root: &Path) {
    let release = tools_bin()
        .parent()
        .expect("tools dir")
        .join("yarn-berry-4.18.1.cjs");
    let releases = root.join(".yarn/releases");
    std::fs::create_dir_all(&releases).expect("mkdir");
    std::fs::copy(&release, releases.join("yarn-4.18.1.cjs")).expect("copy the yarn 4 release");
    let out = sh("yarn install", root, std::time::Duration::from_secs(120));
    assert!(out.success(), "yarn install: {}", out.stdout.text());
}

/// A poetry project's environment, in the project (`poetry.toml` keeps it in `.venv`):
/// `poetry run` and poe run in it but never install into it.
pub fn prepare_poetry(root: &Path) {
    let out = sh(
        "poetry install --no-interaction",
        root,
        Duration::from_secs(300),
    );
    assert!(out.success(), "poetry install: {}", out.stdout.text());
}

/// Processes whose command line holds `marker`, other than this test process, once those
/// already killed have had a moment to go (signal delivery is asynchronous).
pub fn processes_with(marker: &str) -> Vec<String> {
    let deadline = std::time::Instant::now() + Duration::from_secs(2);
    loop {
        let me = std::process::id().to_string();
        let found: Vec<String> = std::fs::read_dir("/proc")
            .expect("/proc")
            .flatten()
            .filter(|e| {
                e.file_name()
                    .to_str()
                    .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
            })
            .filter(|e| e.file_name().to_str() != Some(me.as_str()))
            .filter_map(|e| {
                let raw = std::fs::read(e.path().join("cmdline")).ok()?;
                let line = String::from_utf8_lossy(&raw).replace('\0', " ");
                line.contains(marker).then_some(line)
            })
            .collect();
        if found.is_empty() || std::time::Instant::now() > deadline {
            return found;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs the `speccoder` binary in `dir` with the tools on PATH and `env` added.
pub fn speccoder_with(
    dir: &Path,
    args: &[&str],
    env: &[(&str, &std::ffi::OsStr)],
) -> std::process::Output {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_speccoder"));
    // Detection entries of test projects stay out of the user's own cache.
    command
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("PATH", path_var())
        .env("SPECCODER_CACHE_DIR", test_cache_dir())
        .env("XDG_STATE_HOME", test_state_dir());
    use_user_config(&mut command, dir);
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().expect("speccoder starts")
}

/// Runs the `speccoder` binary in `dir` with the tools on PATH.
pub fn speccoder(dir: &Path, args: &[&str]) -> std::process::Output {
    speccoder_with(dir, args, &[])
}

/// Sends SIGTERM, then (to a second start) SIGINT to the `speccoder` that `start` starts
/// for a marker, once a process whose command line holds `200<marker>` runs, and checks it
/// exits with 128 + the signal and leaves no process holding the marker.
#[track_caller]
pub fn assert_signals_stop_children(start: impl Fn(&str) -> std::process::Child) {
    for (signal, code) in [("TERM", 143), ("INT", 130)] {
        let marker = format!("{}{code}", std::process::id());
        let mut child = start(&marker);
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while processes_with(&format!("200{marker}")).is_empty() {
            assert!(
                std::time::Instant::now() < deadline,
                "the children never started"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        let sent = std::process::Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .expect("kill");
        assert!(sent.success());
        let status = child.wait().expect("exits");
        assert_eq!(status.code(), Some(code), "SIG{signal}");
        assert_eq!(processes_with(&marker), Vec::<String>::new(), "SIG{signal}");
    }
}

/// The runner `id` of a `recipe list --json` answer.
pub fn runner_json<'a>(json: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    json["runners"]
        .as_array()
        .expect("runners")
        .iter()
        .find(|r| r["id"] == id)
        .unwrap_or_else(|| panic!("runner {id} detected"))
}

/// The tasks of runner `id` in a `recipe list --json` answer (none when it is absent).
pub fn runner_tasks<'j>(
    json: &'j serde_json::Value,
    id: &str,
) -> impl Iterator<Item = &'j serde_json::Value> {
    json["runners"]
        .as_array()
        .expect("runners")
        .iter()
        .filter(move |r| r["id"] == id)
        .flat_map(|r| r["tasks"].as_array().expect("tasks").iter())
}

/// The task names of a runner of a `recipe list --json` answer (none when it is absent).
pub fn task_names(json: &serde_json::Value, id: &str) -> Vec<String> {
    runner_tasks(json, id)
        .filter_map(|t| t["name"].as_str().map(str::to_owned))
        .collect()
}

/// The `(name, command)` of each task of runner `id` in a `recipe list --json` answer.
pub fn tasks_of(json: &serde_json::Value, id: &str) -> Vec<(String, String)> {
    runner_tasks(json, id)
        .map(|t| {
            (
                t["name"].as_str().unwrap_or("").to_owned(),
                t["command"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

/// The detection cache of the tests' `speccoder` runs, apart from the user's own.
pub fn test_cache_dir() -> PathBuf {
    std::env::temp_dir().join("speccoder-test-cache")
}

/// The state folder (kept outputs) of tests that do not need one of their own, so their
/// outputs stay out of the user's.
pub fn test_state_dir() -> PathBuf {
    std::env::temp_dir().join("speccoder-test-state")
}

/// `recipe list --json --explain` in `root` with `path` as PATH and `cache` as the cache
/// folder; the command must succeed.
pub fn list_explained(root: &Path, path: &std::ffi::OsStr, cache: &Path) -> serde_json::Value {
    list_explained_with(root, path, cache, &[])
}

/// [`list_explained`] with `env` added to the command's environment.
pub fn list_explained_with(
    root: &Path,
    path: &std::ffi::OsStr,
    cache: &Path,
    env: &[(&str, &str)],
) -> serde_json::Value {
    let mut vars = vec![("PATH", path), ("SPECCODER_CACHE_DIR", cache.as_os_str())];
    vars.extend(env.iter().map(|(k, v)| (*k, std::ffi::OsStr::new(*v))));
    let out = speccoder_with(root, &["recipe", "list", "--json", "--explain"], &vars);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("json")
}

/// Git with no user or system configuration, so the tests never depend on the person's.
pub fn git_command(dir: &Path) -> std::process::Command {
    let mut command = std::process::Command::new("git");
    command
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1");
    command
}

/// Runs git in `dir` and returns its stdout; a failure fails the test with git's stderr.
#[track_caller]
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = git_command(dir).args(args).output().expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Stages everything in `root` and commits it as the tests' own identity.
#[track_caller]
pub fn commit_all(root: &Path, message: &str) {
    git(root, &["add", "--all"]);
    git(
        root,
        &[
            "-c",
            "user.name=Test",
            "-c",
            "user.email=test@example.com",
            "commit",
            "--quiet",
            "-m",
            message,
        ],
    );
}

/// Copies the folder `from` to `to`, leaving out `__pycache__` and `target` folders a
/// local run of a fixture may have left.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read").flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            if entry.file_name() != "__pycache__" && entry.file_name() != "target" {
                copy_dir(&entry.path(), &target);
            }
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// Where a test keeps "your own" configuration file for the project whose `speccoder.toml`
/// is in `dir`: outside the repository, as a person's is.
pub fn user_config_file(dir: &Path) -> PathBuf {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let name: String = dir
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    test_state_dir()
        .join("user-config")
        .join(format!("{name}.toml"))
}

/// Writes the `speccoder.toml` at `path` from `text`, moving the `[attempt]` lines that only
/// your own file may hold (`speccoder_config::HOST_KEYS`, each on one line) into the
/// test's own file for that project, which [`use_user_config`] hands to speccoder.
pub fn write_config(path: &Path, text: &str) {
    let (mut repo, mut user) = (String::new(), String::new());
    let mut table = String::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('[') {
            table = trimmed.to_owned();
        }
        let key = trimmed.split('=').next().unwrap_or("").trim();
        if table == "[attempt]" && speccoder_config::HOST_KEYS.contains(&key) {
            user.push_str(line);
            user.push('\n');
        } else {
            repo.push_str(line);
            repo.push('\n');
        }
    }
    std::fs::write(path, repo).expect("speccoder.toml");
    let own = user_config_file(path.parent().expect("a folder"));
    if user.is_empty() {
        let _ = std::fs::remove_file(&own);
    } else {
        std::fs::create_dir_all(own.parent().expect("a folder")).expect("mkdir");
        std::fs::write(&own, format!("[attempt]\n{user}")).expect("your own file");
    }
}

/// Sets `SPECCODER_CONFIG` for a speccoder run in `dir`: the test's own file of the project
/// holding `dir`, else an empty one, so that the person's own file never reaches a test.
pub fn use_user_config(command: &mut std::process::Command, dir: &Path) {
    command.env("SPECCODER_CONFIG", user_config_for(dir));
}

/// The file [`use_user_config`] names for `dir`.
pub fn user_config_for(dir: &Path) -> PathBuf {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    dir.ancestors()
        .map(user_config_file)
        .find(|file| file.symlink_metadata().is_ok())
        .unwrap_or_else(|| {
            let empty = test_state_dir().join("user-config").join("none.toml");
            if !empty.is_file() {
                std::fs::create_dir_all(empty.parent().expect("a folder")).expect("mkdir");
                std::fs::write(&empty, "").expect("empty file");
            }
            empty
        })
}

/// The variables the stand-in agents read, which the tests put in speccoder's environment:
/// an attempt's agent gets only the allow-list and `[attempt] agent_env`, so each config
/// names them (without them a cheat that escapes through `$USER_REPO` would do nothing,
/// and pass for stopped).
pub const AGENT_ENV: &str = "agent_env = [\"AGENT_SCRIPT\", \"CHEAT_MODE\", \"CONTROLS_AGENT\", \"CONTROLS_RUNNER\", \"HIDDEN_NAME\", \"OUTPUTS_DIR\", \"PER_TEST_MODE\", \"PER_TEST_RUNNER\", \"PROBE_FILE\", \"SPY_PID\", \"STASH_DIR\", \"USER_REPO\", \"WHERE_FILE\", \"WITHHELD_DIR\"]\n";

/// `config` (a speccoder.toml) with [`AGENT_ENV`] in its `[attempt]` table.
pub fn with_agent_env(config: &str) -> String {
    if config.contains("agent_env") {
        config.to_owned()
    } else if config.contains("[attempt]\n") {
        config.replacen("[attempt]\n", &format!("[attempt]\n{AGENT_ENV}"), 1)
    } else {
        format!("{config}\n[attempt]\n{AGENT_ENV}")
    }
}
