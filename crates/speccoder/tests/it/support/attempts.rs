//! `speccoder attempt` on the calculator projects of fixtures/per-test: the command, the
//! task's bundle, and what the JSON story says.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use serde_json::Value;

use super::{copy_dir, fixtures_dir, git, path_var};

/// The projects of fixtures/per-test, one per runner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FixtureKind {
    /// pytest, through make.
    Pytest,
    /// `python3 -m unittest discover -v`, through make.
    Unittest,
    /// `cargo test`.
    Cargo,
    /// package.json's `node --test`.
    Node,
    /// package.json's `mocha`.
    Mocha,
    /// package.json's `jest`.
    Jest,
    /// package.json's `vitest run --globals`.
    Vitest,
    /// `go test -v ./...`, through make.
    Go,
}

use FixtureKind::{Cargo, Go, Jest, Mocha, Node, Pytest, Unittest, Vitest};

/// Every runner.
pub const ALL: [FixtureKind; 8] = [Pytest, Unittest, Cargo, Node, Mocha, Jest, Vitest, Go];

impl FixtureKind {
    /// Its folder in fixtures/per-test.
    pub fn fixture(self) -> &'static str {
        match self {
            Pytest => "pytest",
            Unittest => "unittest",
            Cargo => "cargo",
            Node => "node",
            Mocha => "mocha",
            Jest => "jest",
            Vitest => "vitest",
            Go => "go",
        }
    }

    /// The runner as the story names it in `tests.runners`.
    pub fn story_name(self) -> &'static str {
        match self {
            Pytest => "pytest",
            Unittest => "unittest",
            Cargo => "libtest",
            Node => "node_test",
            Mocha => "mocha",
            Jest => "jest",
            Vitest => "vitest",
            Go => "go_test",
        }
    }

    pub fn tools(self) -> &'static [&'static str] {
        match self {
            Pytest => &["pytest"],
            Unittest | Cargo | Node => &[],
            Mocha => &["mocha"],
            Jest => &["jest"],
            Vitest => &["vitest"],
            Go => &["go"],
        }
    }

    /// Part of the id the runner gives the test that fails at the base as root.
    pub fn env_test(self) -> &'static str {
        match self {
            Pytest | Unittest | Cargo => "not_root",
            Node | Mocha | Jest | Vitest => "not root",
            Go => "TestNotRoot",
        }
    }
}

/// Every file under `dir`, relative to it, sorted.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if entry.file_type().expect("type").is_dir() {
                walk(root, &path, out);
            } else {
                out.push(path.strip_prefix(root).expect("under root").to_owned());
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// The last `n` bytes of `text` (at a character boundary), on one line.
pub fn tail(text: &str, n: usize) -> String {
    let start = text.len().saturating_sub(n);
    let start = (start..text.len())
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(text.len());
    text[start..].replace('\n', " ⏎ ")
}

/// A Go build cache filled once per test process, outside the system's temporary folder
/// (the checks get a private one): read-only in the checks' sandbox, where `go test` still
/// reads it and builds only the project, instead of the standard library's `testing` and
/// its imports anew in every check (15 to 30 s each here). Test binaries share the cache
/// (go locks its entries) and fill it from projects of their own.
pub fn go_cache() -> &'static Path {
    static CACHE: OnceLock<PathBuf> = OnceLock::new();
    CACHE.get_or_init(|| {
        let top = Path::new(env!("CARGO_TARGET_TMPDIR")).join("per-test-go");
        let cache = top.join("cache");
        let project = top.join(format!("project-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&project);
        let fixture = fixtures_dir().join("per-test/go");
        for part in ["project", "acceptance", "withheld", "env"] {
            copy_dir(&fixture.join(part), &project);
        }
        // Honest, so that every test runs: the stub's panic would end the run.
        let calc = project.join("calc.go");
        let text = std::fs::read_to_string(&calc).expect("calc.go");
        std::fs::write(
            &calc,
            text.replace("panic(\"T7 adds this\")", "return a + b"),
        )
        .expect("calc.go");
        let out = Command::new("go")
            .args(["test", "-v", "./..."])
            .current_dir(&project)
            .env("PATH", path_var())
            .env("GOCACHE", &cache)
            .env("GOPATH", top.join("gopath"))
            .env("GOTOOLCHAIN", "local")
            .output()
            .expect("go runs");
        let _ = std::fs::remove_dir_all(&project);
        // TestNotRoot fails as root; what matters is that the cache is filled.
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("--- PASS: TestAddMixed"),
            "go test did not run: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        cache
    })
}

/// Gives `command` the [`go_cache`], unless `PER_TEST_GO_CACHE=none` leaves the cache to
/// go (`~/.cache/go-build`).
pub fn use_go_cache(command: &mut Command) {
    if std::env::var_os("PER_TEST_GO_CACHE").is_none_or(|v| v != "none") {
        command
            .env("GOCACHE", go_cache())
            .env("GOPATH", "/tmp/go")
            .env("GOTOOLCHAIN", "local");
    }
}

/// Writes to `path` the bundle of `task`, adding two numbers, with the files under
/// `acceptance` (when given) as its acceptance tests.
pub fn write_add_bundle(path: &Path, task: &str, acceptance: Option<&Path>) {
    let mut bundle = serde_json::json!({
        "task": { "id": task, "title": "Add two numbers", "phase": "core" },
        "story": "As a user I add two integers.",
        "plan": "Implement `add(a, b)`.",
        "constitution": "Keep it small.",
    });
    if let Some(dir) = acceptance {
        let mut files = serde_json::Map::new();
        for file in files_under(dir) {
            let text = std::fs::read_to_string(dir.join(&file)).expect("acceptance");
            files.insert(file.to_str().expect("utf-8").to_owned(), text.into());
        }
        bundle["acceptance"] = files.into();
    }
    std::fs::write(path, bundle.to_string()).expect("bundle");
}

/// Writes `root`'s `speccoder.toml` (the command executor running `sh agent`, with
/// `attempt` as the `[attempt]` lines) and commits the folder as the first commit of a new
/// repository: the base of the attempts.
pub fn commit_base(root: &Path, agent: &Path, attempt: &str) {
    super::write_config(
        &root.join("speccoder.toml"),
        &format!(
            "[executor]\nkind = \"command\"\nargv = [\"sh\", \"{}\"]\ntimeout_secs = 120\n\n[attempt]\n{}{attempt}",
            agent.display(),
            super::AGENT_ENV,
        ),
    );
    git(root, &["init", "--quiet", "--initial-branch=main"]);
    super::commit_all(root, "the calculator");
}

/// `speccoder -C root attempt --bundle bundle --json` with the tools' PATH, the tests'
/// cache and state folders, and no git configuration of the person's.
pub fn attempt_command(root: &Path, bundle: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_speccoder"));
    command
        .arg("-C")
        .arg(root)
        .arg("attempt")
        .arg("--bundle")
        .arg(bundle)
        .arg("--json")
        .env("PATH", path_var())
        .env("SPECCODER_CACHE_DIR", super::test_cache_dir())
        .env("XDG_STATE_HOME", super::test_state_dir())
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1");
    super::use_user_config(&mut command, root);
    command
}

/// The commit of the branch `speccoder/<task>` in `root`, when there is one.
pub fn task_branch(root: &Path, task: &str) -> Option<String> {
    let refs = git(
        root,
        &[
            "for-each-ref",
            "--format=%(objectname)",
            &format!("refs/heads/speccoder/{task}"),
        ],
    );
    let commit = refs.trim();
    (!commit.is_empty()).then(|| commit.to_owned())
}

/// What one `speccoder attempt --json` said.
pub struct Run {
    pub code: Option<i32>,
    pub story: Option<Value>,
    pub stdout: String,
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(out: Output) -> Self {
        Self {
            code: out.status.code(),
            story: serde_json::from_slice(&out.stdout).ok(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

impl Run {
    pub fn verdict(&self) -> &str {
        self.story
            .as_ref()
            .and_then(|s| s["verdict"].as_str())
            .unwrap_or("(no story)")
    }

    pub fn attempts(&self) -> Vec<Value> {
        self.story
            .as_ref()
            .and_then(|s| s["attempts"].as_array().cloned())
            .unwrap_or_default()
    }

    pub fn findings(&self) -> Vec<Value> {
        self.attempts()
            .iter()
            .flat_map(|a| a["findings"].as_array().cloned().unwrap_or_default())
            .collect()
    }

    /// The checks of the verdict's pass of the last attempt.
    pub fn verdict_checks(&self) -> Vec<Value> {
        self.attempts()
            .last()
            .and_then(|a| a["checks"].as_array().cloned())
            .unwrap_or_default()
            .into_iter()
            .filter(|c| c["pass"] == "verdict")
            .collect()
    }

    /// The story's `baseline` results.
    pub fn baseline(&self) -> Vec<Value> {
        self.story
            .as_ref()
            .and_then(|s| s["baseline"].as_array().cloned())
            .unwrap_or_default()
    }

    pub fn notes(&self) -> Vec<String> {
        self.story
            .as_ref()
            .and_then(|s| s["notes"].as_array().cloned())
            .unwrap_or_default()
            .iter()
            .filter_map(|n| n.as_str().map(str::to_owned))
            .collect()
    }

    /// Whether the JSON text of `tests.<field>` in some check of the verdict's pass holds
    /// `part`, ignoring case.
    pub fn some_check_says(&self, field: &str, part: &str) -> bool {
        let part = part.to_lowercase();
        self.verdict_checks()
            .iter()
            .any(|c| c["tests"][field].to_string().to_lowercase().contains(&part))
    }

    /// `Err` unless the attempt passed (exit 0) after at least one check, with
    /// `speccoder/<task>` in `root` at the story's commit.
    pub fn expect_passed(&self, root: &Path, task: &str) -> Result<(), String> {
        if self.code != Some(0) || self.verdict() != "passed" {
            return Err(format!("did not pass: {}", self.summary()));
        }
        let commit = self.story.as_ref().and_then(|s| s["commit"].as_str());
        if task_branch(root, task).as_deref() != commit {
            return Err(format!(
                "speccoder/{task} is not the story's commit: {}",
                self.summary()
            ));
        }
        if self.verdict_checks().is_empty() {
            return Err(format!("no check ran: {}", self.summary()));
        }
        Ok(())
    }

    /// `Err` unless every check of the verdict's pass was judged from `runner`'s results,
    /// per test (or by `other_rule`, when given).
    pub fn expect_judged(
        &self,
        runner: FixtureKind,
        other_rule: Option<&str>,
    ) -> Result<(), String> {
        for check in self.verdict_checks() {
            let tests = &check["tests"];
            let rule = tests["rule"].as_str();
            if rule != Some("per_test") && (other_rule.is_none() || rule != other_rule) {
                return Err(format!(
                    "judged by {}, not per test: {}",
                    tests["rule"],
                    self.summary()
                ));
            }
            let runners = tests["runners"].as_array().cloned().unwrap_or_default();
            if !runners.iter().any(|r| r == runner.story_name()) {
                return Err(format!(
                    "tests.runners is {}, not {}: {}",
                    tests["runners"],
                    runner.story_name(),
                    self.summary()
                ));
            }
        }
        Ok(())
    }

    /// `Err` unless the tests' results decided a failure: no finding, a check of the
    /// verdict's pass failed, and no `speccoder/<task>` in `root`.
    pub fn expect_failed_by_tests(&self, root: &Path, task: &str) -> Result<(), String> {
        if let Some(branch) = task_branch(root, task) {
            return Err(format!("a task branch was left at {branch}"));
        }
        if !self.findings().is_empty() {
            return Err(format!(
                "a finding decided, not the tests' results: {}",
                self.summary()
            ));
        }
        if !self.verdict_checks().iter().any(|c| c["passed"] == false) {
            return Err(format!(
                "no check of the verdict's pass failed: {}",
                self.summary()
            ));
        }
        Ok(())
    }

    /// For a failure message: exit code, verdict, findings, the verdict checks' tests and
    /// output tails, or stderr when there is no story.
    pub fn summary(&self) -> String {
        if self.story.is_none() {
            return format!(
                "exit {:?}, no story; stdout …{}; stderr …{}",
                self.code,
                tail(&self.stdout, 400),
                tail(&self.stderr, 800)
            );
        }
        let checks: Vec<String> = self
            .verdict_checks()
            .iter()
            .map(|c| {
                format!(
                    "[{} exit {} passed {}: tests {}; output …{}]",
                    c["command"],
                    c["exit_code"],
                    c["passed"],
                    c["tests"],
                    tail(c["output_tail"].as_str().unwrap_or_default(), 700)
                )
            })
            .collect();
        format!(
            "exit {:?}, verdict {}, findings {}, checks {}",
            self.code,
            self.verdict(),
            Value::Array(self.findings()),
            checks.join(" ")
        )
    }
}
