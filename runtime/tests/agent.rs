//! External agents through `speccoder agent run`, `agent argv` and `allow`: stand-in agents
//! from fixtures/agents, and the real `claude` and `codex` CLIs without credentials.

mod support;

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::{Fixtures, fixtures_dir, path_var, require_tools, snapshots};

/// A project with `config` as its speccoder.toml, a bundle and a worktree.
struct Project {
    dir: tempfile::TempDir,
}

impl Project {
    fn new(config: &str) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("speccoder.toml"), config).expect("config");
        std::fs::create_dir(dir.path().join("worktree")).expect("worktree");
        std::fs::write(
            dir.path().join("bundle.json"),
            json!({
                "task": {"id": "T7", "title": "Add the adder", "phase": "core"},
                "story": "As a user I add numbers.",
                "plan": "",
                "constitution": "Keep it small."
            })
            .to_string(),
        )
        .expect("bundle");
        Self { dir }
    }

    fn with_agent(script: &str, extra: &str) -> Self {
        let path = fixtures_dir().join("agents").join(script);
        Self::new(&format!(
            "[executor]\nkind = \"command\"\nargv = [\"sh\", \"{}\"{extra}]\ntimeout_secs = 60\n",
            path.display()
        ))
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn worktree(&self) -> std::path::PathBuf {
        self.dir.path().join("worktree")
    }

    fn speccoder(&self, args: &[&str], env: &[(&str, &Path)]) -> Output {
        let mut command = Command::new(env!("CARGO_BIN_EXE_speccoder"));
        command
            .env("SPECCODER_CACHE_DIR", support::test_cache_dir())
            .arg("-C")
            .arg(self.root())
            .args(args)
            .env("PATH", path_var());
        for (key, value) in env {
            command.env(key, value);
        }
        command.output().expect("speccoder starts")
    }

    fn run(&self, env: &[(&str, &Path)]) -> (Option<i32>, Value) {
        let worktree = self.worktree();
        let out = self.speccoder(
            &[
                "agent",
                "run",
                "--bundle",
                "bundle.json",
                "--worktree",
                worktree.to_str().expect("utf-8"),
            ],
            env,
        );
        let json: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
            panic!(
                "not JSON: {}\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        });
        (out.status.code(), json)
    }
}

#[test]
fn completed_agent_edits_the_worktree() {
    let project = Project::with_agent("complete.sh", "");
    let (code, outcome) = project.run(&[]);
    assert_eq!(code, Some(0));
    assert_eq!(outcome["status"], "completed");
    assert_eq!(outcome["report"]["summary"], "Implemented the task.");
    assert_eq!(outcome["report"]["notes"], json!(["external executor"]));
    assert_eq!(outcome["tool_calls"], json!([]));
    assert_eq!(outcome["usage"], Value::Null);
    let run_id = outcome["run_id"].as_str().expect("run id");
    assert!(run_id.starts_with("external_command_"), "{run_id}");
    let written = std::fs::read_to_string(project.worktree().join("AGENT_WAS_HERE.txt"))
        .expect("the agent wrote in the worktree");
    let mut lines = written.lines();
    assert_eq!(lines.next(), Some("# Task T7: Add the adder"));
    // The prompt came through a file in a private folder, which is gone afterwards.
    let prompt_file = lines
        .next()
        .and_then(|l| l.strip_prefix("prompt file: "))
        .expect("prompt path");
    let folder = Path::new(prompt_file).parent().expect("folder");
    assert!(
        folder
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("speccoder-agent-"))
    );
    assert!(!folder.exists(), "{} was not removed", folder.display());
}

#[test]
fn blocked_agent_gives_its_reason() {
    let project = Project::with_agent("blocked.sh", "");
    let (code, outcome) = project.run(&[]);
    assert_eq!(code, Some(3));
    assert_eq!(outcome["status"], "blocked");
    assert_eq!(outcome["reason"], "the test asserts 2+2=5");
    assert!(outcome.get("report").is_none());
}

#[test]
fn failing_agent_reports_its_stderr_tail() {
    let project = Project::with_agent("stderr-fail.sh", "");
    let (code, outcome) = project.run(&[]);
    assert_eq!(code, Some(1));
    assert_eq!(outcome["status"], "failed");
    assert_eq!(
        outcome["reason"],
        "the agent exited 4: log line 4 | log line 5 | log line 6 | log line 7 | fatal: cannot reach the model"
    );
}

#[test]
fn agent_past_its_deadline_is_stopped_with_its_children() {
    let marker = format!(".{}{}", std::process::id(), 4242);
    let path = fixtures_dir().join("agents/never-finishes.sh");
    let project = Project::new(&format!(
        "[executor]\nkind = \"command\"\nargv = [\"sh\", \"{}\", \"{marker}\"]\ntimeout_secs = 2\n",
        path.display()
    ));
    let started = Instant::now();
    let (code, outcome) = project.run(&[]);
    assert_eq!(code, Some(1));
    assert_eq!(outcome["status"], "failed");
    assert_eq!(outcome["reason"], "the agent did not finish within 2 s");
    // The deadline, a 1 s grace at most, and a little more.
    assert!(
        started.elapsed() < Duration::from_secs(6),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(support::processes_with(&marker), Vec::<String>::new());
}

#[test]
fn missing_program_could_not_start() {
    let project = Project::new(
        "[executor]\nkind = \"command\"\nargv = [\"no-such-agent-xyz\"]\ntimeout_secs = 10\n",
    );
    let (code, outcome) = project.run(&[]);
    assert_eq!(code, Some(1));
    let reason = outcome["reason"].as_str().expect("reason");
    assert!(
        reason.starts_with("the agent could not be started: "),
        "{reason}"
    );
    assert!(reason.contains("no-such-agent-xyz"), "{reason}");
    let project = Project::with_agent("complete.sh", "");
    let out = project.speccoder(
        &[
            "agent",
            "run",
            "--bundle",
            "bundle.json",
            "--worktree",
            "/nonexistent/wt",
        ],
        &[],
    );
    let outcome: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(
        outcome["reason"],
        "the agent could not be started: Working directory does not exist: /nonexistent/wt"
    );
}

#[test]
fn no_external_executor_exits_2() {
    for config in ["", "[executor]\nkind = \"native\"\n"] {
        let project = Project::new(config);
        for args in [
            &["agent", "argv"][..],
            &["agent", "run", "--prompt-file", "bundle.json"],
        ] {
            let out = project.speccoder(args, &[]);
            assert_eq!(out.status.code(), Some(2), "{args:?}");
            assert_eq!(
                String::from_utf8_lossy(&out.stderr),
                "error: no external executor is configured (`[executor] kind` is absent or \"native\")\n"
            );
        }
    }
}

#[test]
fn agent_prompt_snapshot() {
    let project = Project::with_agent("complete.sh", "");
    std::fs::write(
        project.root().join("digest.json"),
        json!({"failed_checks": ["cargo test"], "notes": "```rust\npanic!()\n```"}).to_string(),
    )
    .expect("digest");
    // A stand-in that only prints the prompt it got on stdin.
    std::fs::write(project.root().join("echo.sh"), "#!/bin/sh\ncat\n").expect("echo");
    std::fs::write(
        project.root().join("speccoder.toml"),
        "[executor]\nkind = \"command\"\nargv = [\"sh\", \"../echo.sh\"]\n\n\
         [wording]\nunit = \"story\"\nintent_file = \"intent.md\"\n",
    )
    .expect("config");
    let worktree = project.worktree();
    let out = project.speccoder(
        &[
            "agent",
            "run",
            "--bundle",
            "bundle.json",
            "--digest",
            "digest.json",
            "--worktree",
            worktree.to_str().expect("utf-8"),
        ],
        &[],
    );
    let outcome: Value = serde_json::from_slice(&out.stdout).expect("json");
    let prompt = outcome["report"]["summary"]
        .as_str()
        .expect("the prompt came back");
    snapshots("agent").bind(|| insta::assert_snapshot!("prompt_with_digest", prompt));
}

#[test]
fn allowances_never_widen_from_hostile_names() {
    require_tools(&["task"]);
    let fixtures = Fixtures::copy();
    let root = fixtures.path("hostile");
    std::fs::write(
        root.join("speccoder.toml"),
        "[commands]\nallow = [[\"cargo\", \"test\"]]\n",
    )
    .expect("config");
    let out = Command::new(env!("CARGO_BIN_EXE_speccoder"))
        .env("SPECCODER_CACHE_DIR", support::test_cache_dir())
        .arg("-C")
        .arg(&root)
        .args(["allow", "--json"])
        .env("PATH", path_var())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let json: Value = serde_json::from_slice(&out.stdout).expect("json");
    let rules: Vec<&str> = json["claude_rules"]
        .as_array()
        .expect("rules")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for rule in &rules {
        // One rule each: `Bash(` once, one closing parenthesis at the end, no comma.
        assert!(rule.starts_with("Bash(") && rule.ends_with(')'), "{rule}");
        assert_eq!(rule.matches('(').count(), 1, "{rule}");
        assert_eq!(rule.matches(')').count(), 1, "{rule}");
        assert!(!rule.contains(','), "{rule}");
        assert!(
            !rule.contains("Bash(rm") && !rule.contains("Bash(curl"),
            "{rule}"
        );
    }
    let dropped: Vec<&str> = json["dropped"]
        .as_array()
        .expect("dropped")
        .iter()
        .filter_map(|d| d["command"].as_str())
        .collect();
    assert!(dropped.contains(&"npm run 'x,Bash(rm'"), "{dropped:?}");
    assert!(dropped.contains(&"npm run 'y)Bash(curl'"), "{dropped:?}");
    snapshots("agent").bind(|| {
        insta::assert_snapshot!(
            "allow_hostile",
            String::from_utf8_lossy(
                &Command::new(env!("CARGO_BIN_EXE_speccoder"))
                    .env("SPECCODER_CACHE_DIR", support::test_cache_dir())
                    .arg("-C")
                    .arg(&root)
                    .arg("allow")
                    .env("PATH", path_var())
                    .output()
                    .expect("runs")
                    .stdout
            )
        );
    });
    // The argv Claude would get joins exactly these rules.
    std::fs::write(
        root.join("speccoder.toml"),
        "[executor]\nkind = \"claude\"\n[commands]\nallow = [[\"cargo\", \"test\"]]\n",
    )
    .expect("config");
    let out = Command::new(env!("CARGO_BIN_EXE_speccoder"))
        .env("SPECCODER_CACHE_DIR", support::test_cache_dir())
        .arg("-C")
        .arg(&root)
        .args(["agent", "argv", "--json"])
        .env("PATH", path_var())
        .output()
        .expect("runs");
    let argv: Value = serde_json::from_slice(&out.stdout).expect("json");
    let tools = argv["argv"][7].as_str().expect("tools");
    assert_eq!(
        tools,
        format!("Read,Edit,Write,MultiEdit,Glob,Grep,LS,{}", rules.join(","))
    );
}

/// An environment with no credentials: HOME is an empty folder.
fn no_credentials(home: &Path) -> Vec<(&'static str, &Path)> {
    vec![
        ("HOME", home),
        ("XDG_CONFIG_HOME", home),
        ("CODEX_HOME", home),
    ]
}

#[test]
fn real_claude_without_credentials_fails_with_its_own_message() {
    require_tools(&["claude"]);
    let project = Project::new(
        "[executor]\nkind = \"claude\"\nmodel = \"sonnet\"\ntimeout_secs = 60\n\n[commands]\nallow = [[\"cargo\", \"test\"]]\n",
    );
    let home = tempfile::tempdir().expect("home");
    let started = Instant::now();
    let (code, outcome) = project.run(&no_credentials(home.path()));
    assert_eq!(code, Some(1), "{outcome}");
    assert_eq!(outcome["status"], "failed");
    let reason = outcome["reason"].as_str().expect("reason");
    assert!(reason.contains("Not logged in"), "{reason}");
    assert!(
        !reason.contains("unknown option") && !reason.contains("error: option"),
        "{reason}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    assert!(
        outcome["usage"].is_object(),
        "Claude's JSON was read: {outcome}"
    );
}

#[test]
fn real_codex_without_network_is_stopped_at_the_deadline() {
    require_tools(&["codex"]);
    let project = Project::new("[executor]\nkind = \"codex\"\ntimeout_secs = 5\n");
    let home = tempfile::tempdir().expect("home");
    let worktree = project.worktree();
    let started = Instant::now();
    let (code, outcome) = project.run(&no_credentials(home.path()));
    assert_eq!(code, Some(1));
    assert_eq!(outcome["reason"], "the agent did not finish within 5 s");
    assert!(
        started.elapsed() < Duration::from_secs(12),
        "{:?}",
        started.elapsed()
    );
    // Codex's command line names the worktree: nothing with it may be left running.
    assert_eq!(
        support::processes_with(worktree.to_str().expect("utf-8")),
        Vec::<String>::new()
    );
}

#[test]
fn real_codex_accepts_the_argv() {
    require_tools(&["codex"]);
    let project = Project::new("[executor]\nkind = \"codex\"\nmodel = \"gpt-5\"\n");
    let out = project.speccoder(&["agent", "argv", "--json"], &[]);
    let argv: Value = serde_json::from_slice(&out.stdout).expect("json");
    let mut words: Vec<String> = argv["argv"]
        .as_array()
        .expect("argv")
        .iter()
        .filter_map(|w| w.as_str().map(str::to_owned))
        .collect();
    let last = project.root().join("last.txt");
    let at = words
        .iter()
        .position(|w| w == "<last-message-file>")
        .expect("placeholder");
    words[at] = last.display().to_string();
    let home = tempfile::tempdir().expect("home");
    let mut request = speccoder_runtime::process::RunRequest::new(
        format!(
            "exec {} < /dev/null",
            words
                .iter()
                .map(|w| speccoder_runners::single_quote(w))
                .collect::<Vec<_>>()
                .join(" ")
        ),
        project.root(),
        Duration::from_secs(5),
    );
    request.mode = speccoder_runtime::process::OutputMode::Split;
    request.env = vec![
        ("HOME".into(), home.path().display().to_string()),
        ("CODEX_HOME".into(), home.path().display().to_string()),
        ("PATH".into(), path_var().to_string_lossy().into_owned()),
    ];
    let out = speccoder_runtime::process::CommandRunner::run(
        &speccoder_runtime::process::LocalRunner::default(),
        &request,
    )
    .expect("starts");
    let stderr = out.stderr.expect("split").text();
    // With stdin empty Codex stops at once, after parsing every argument.
    assert!(stderr.contains("No prompt provided via stdin"), "{stderr}");
    assert!(
        !stderr.contains("unexpected argument") && !stderr.contains("Usage:"),
        "{stderr}"
    );
}
