//! External agents through `speccoder agent run`, `agent argv` and `allow`: stand-in agents
//! from fixtures/agents, and the real `claude` and `codex` CLIs without credentials.

use crate::support;

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
        support::use_user_config(&mut command, self.root());
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
        "the agent could not be started: working directory does not exist: /nonexistent/wt"
    );
}

#[test]
fn no_external_executor_exits_4() {
    for config in ["", "[executor]\nkind = \"native\"\n"] {
        let project = Project::new(config);
        for args in [
            &["agent", "argv"][..],
            &["agent", "run", "--prompt-file", "bundle.json"],
        ] {
            let out = project.speccoder(args, &[]);
            assert_eq!(out.status.code(), Some(4), "{args:?}");
            assert_eq!(
                String::from_utf8_lossy(&out.stderr),
                "error: no external executor is configured (`[executor] kind` is absent or \
                 \"native\"): set it to \"claude\", \"codex\" or \"command\" in speccoder.toml\n"
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
    let allow: Vec<&str> = argv["settings"]["permissions"]["allow"]
        .as_array()
        .expect("allow")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    // ...and the recipe tool over MCP, which `recipe_mcp` (on by default) adds.
    assert_eq!(
        allow.join(","),
        format!("Read,Edit,Write,{},mcp__speccoder", rules.join(","))
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
    let mut request = speccoder_foundation::process::RunRequest::new(
        format!(
            "exec {} < /dev/null",
            words
                .iter()
                .map(|w| speccoder_foundation::quote::single_quote(w))
                .collect::<Vec<_>>()
                .join(" ")
        ),
        project.root(),
        Duration::from_secs(5),
    );
    request.mode = speccoder_foundation::process::OutputMode::Split;
    request.env = vec![
        ("HOME".into(), home.path().display().to_string()),
        ("CODEX_HOME".into(), home.path().display().to_string()),
        ("PATH".into(), path_var().to_string_lossy().into_owned()),
    ];
    let out = speccoder_foundation::process::Spawner::run(
        &speccoder_foundation::process::LocalSpawner::default(),
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

/// PATH with the Claude stand-in of fixtures/agents/fake-claude first.
fn fake_claude_path() -> std::ffi::OsString {
    let mut paths = vec![fixtures_dir().join("agents/fake-claude")];
    paths.extend(std::env::split_paths(&path_var()));
    std::env::join_paths(paths).expect("PATH")
}

/// What the Claude stand-in reported about its start.
fn fake_claude_report(outcome: &Value) -> Value {
    let summary = outcome["report"]["summary"]
        .as_str()
        .unwrap_or_else(|| panic!("completed: {outcome}"));
    serde_json::from_str(summary).expect("the stand-in's report")
}

#[test]
fn claude_gets_its_rules_in_a_private_settings_file() {
    let project = Project::new(
        "[executor]\nkind = \"claude\"\nmodel = \"sonnet\"\n\n[commands]\nallow = [[\"cargo\", \"test\"]]\n",
    );
    std::fs::create_dir(project.root().join("held")).expect("held");
    let root = project.root().canonicalize().expect("root");
    // Relative paths are read from -C, not from where speccoder was started.
    let elsewhere = tempfile::tempdir().expect("elsewhere");
    let out = Command::new(env!("CARGO_BIN_EXE_speccoder"))
        .current_dir(elsewhere.path())
        .env("SPECCODER_CACHE_DIR", support::test_cache_dir())
        .env("PATH", fake_claude_path())
        .arg("-C")
        .arg(project.root())
        .args([
            "agent",
            "run",
            "--bundle",
            "bundle.json",
            "--worktree",
            "worktree",
            "--withheld",
            "held",
        ])
        .output()
        .expect("runs");
    let outcome: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!("not JSON: {}", String::from_utf8_lossy(&out.stderr));
    });
    let report = fake_claude_report(&outcome);
    assert_eq!(report["cwd"], root.join("worktree").display().to_string());
    let settings = report["settings_path"].as_str().expect("a settings file");
    assert_eq!(
        report["args"],
        json!([
            "-p",
            "--output-format",
            "json",
            "--permission-mode",
            "acceptEdits",
            "--setting-sources",
            "user",
            "--settings",
            settings,
            "--mcp-config",
            json!({"mcpServers": {"speccoder": {
                "type": "stdio",
                "command": env!("CARGO_BIN_EXE_speccoder"),
                "args": [
                    "-C",
                    root.join("worktree"),
                    "--config",
                    root.join("speccoder.toml"),
                    "mcp"
                ],
                "alwaysLoad": true,
            }}})
            .to_string(),
            "--strict-mcp-config",
            "--model",
            "sonnet"
        ])
    );
    assert_eq!(
        report["deny"],
        json!([
            "WebFetch",
            "WebSearch",
            format!("Read(/{}/**)", root.join("held").display())
        ])
    );
    assert_eq!(
        report["allow_head"],
        json!([
            "Read",
            "Edit",
            "Write",
            "Bash(cargo test)",
            "mcp__speccoder"
        ])
    );
    // Only the owner can read the prompt and the rules, and both are gone afterwards.
    assert_eq!(
        (
            &report["prompt_mode"],
            &report["folder_mode"],
            &report["settings_mode"]
        ),
        (&json!("600"), &json!("700"), &json!("600"))
    );
    assert!(!Path::new(settings).exists(), "{settings} was left behind");
    assert!(!Path::new(settings).parent().expect("folder").exists());
}

#[test]
fn thousands_of_tasks_fit_in_the_settings_file() {
    require_tools(&["make"]);
    let project = Project::new("[executor]\nkind = \"claude\"\n");
    let makefile: String = (0..6000)
        .map(|i| format!("target-with-a-long-name-{i:05}:\n\t@echo {i}\n"))
        .collect();
    std::fs::write(project.root().join("Makefile"), makefile).expect("Makefile");
    let out = project.speccoder(
        &["agent", "run", "--bundle", "bundle.json"],
        &[("PATH", Path::new(&fake_claude_path()))],
    );
    let outcome: Value = serde_json::from_slice(&out.stdout).expect("json");
    let report = fake_claude_report(&outcome);
    // Claude's own tools, the tasks, and the recipe tool over MCP.
    assert_eq!(report["allow_count"], 3 + 6000 + 1, "{report}");
    // make reads options anywhere on its line: its tasks are allowed exactly.
    assert_eq!(
        report["allow_head"][3],
        "Bash(make target-with-a-long-name-00000)"
    );
}

#[test]
fn real_claude_reads_the_settings_file() {
    require_tools(&["claude"]);
    let project = Project::new(
        "[executor]\nkind = \"claude\"\n\n[commands]\nallow = [[\"cargo\", \"test\"]]\n",
    );
    let out = project.speccoder(&["agent", "argv", "--json", "--withheld", "held"], &[]);
    let json: Value = serde_json::from_slice(&out.stdout).expect("json");
    let settings = project.root().join("settings.json");
    std::fs::write(&settings, json["settings"].to_string()).expect("settings");
    let debug = project.root().join("debug.txt");
    let mut argv: Vec<String> = json["argv"]
        .as_array()
        .expect("argv")
        .iter()
        .filter_map(|w| w.as_str())
        .map(|w| {
            if w == "<settings-file>" {
                settings.display().to_string()
            } else {
                w.to_owned()
            }
        })
        .collect();
    argv.push("--debug-file".into());
    argv.push(debug.display().to_string());
    let home = tempfile::tempdir().expect("home");
    let out = Command::new(&argv[0])
        .args(&argv[1..])
        .current_dir(project.worktree())
        .env("PATH", path_var())
        .envs(no_credentials(home.path()))
        .stdin(std::fs::File::open(project.root().join("bundle.json")).expect("stdin"))
        .output()
        .expect("claude starts");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("Not logged in"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Claude's own log says which rules it took from the file.
    let log = std::fs::read_to_string(&debug).expect("debug log");
    assert!(
        log.contains(
            "Adding 5 allow rule(s) to destination 'flagSettings': [\"Read\",\"Edit\",\"Write\",\
             \"Bash(cargo test)\",\"mcp__speccoder\"]"
        ),
        "{log}"
    );
    assert!(
        log.contains(&format!(
            "Adding 3 deny rule(s) to destination 'flagSettings': [\"WebFetch\",\"WebSearch\",\
             \"Read(/{}/**)\"]",
            project.root().join("held").display()
        )),
        "{log}"
    );
}

#[test]
fn an_agent_that_exits_127_is_not_a_start_failure() {
    let project = Project::new(
        "[executor]\nkind = \"command\"\nargv = [\"sh\", \"-c\", \"cat >/dev/null; echo 'lookup failed' >&2; exit 127\"]\n",
    );
    let (code, outcome) = project.run(&[]);
    assert_eq!(code, Some(1));
    assert_eq!(outcome["reason"], "the agent exited 127: lookup failed");
    // A program that is not executable cannot start at all.
    let script = project.root().join("not-executable");
    std::fs::write(&script, "#!/bin/sh\necho hi\n").expect("script");
    std::fs::write(
        project.root().join("speccoder.toml"),
        format!(
            "[executor]\nkind = \"command\"\nargv = [\"{}\"]\n",
            script.display()
        ),
    )
    .expect("config");
    let (_, outcome) = project.run(&[]);
    assert_eq!(
        outcome["reason"],
        format!(
            "the agent could not be started: cannot start `{}`: Permission denied (os error 13)",
            script.display()
        )
    );
}

#[test]
fn bundles_digests_and_configs_as_the_seed_reads_them() {
    let project = Project::new("[executor]\nkind = \"command\"\nargv = [\"cat\"]\n");
    let write = |name: &str, text: &str| {
        std::fs::write(project.root().join(name), text).expect("write");
    };
    let prompt_of = |args: &[&str]| -> String {
        let out = project.speccoder(args, &[]);
        let outcome: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
            panic!("{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        });
        outcome["report"]["summary"]
            .as_str()
            .expect("the prompt came back")
            .to_owned()
    };
    // Fields of the wrong type are empty text, as in the seed.
    write(
        "lenient.json",
        r#"{"task": {"id": 12, "title": "Add"}, "story": null, "plan": "Do it."}"#,
    );
    let prompt = prompt_of(&["agent", "run", "--bundle", "lenient.json"]);
    assert!(prompt.contains("# Task : Add\n"), "{prompt}");
    assert!(prompt.contains("Do it."), "{prompt}");
    // A digest of `null` says nothing failed before.
    write("null.json", "null");
    let prompt = prompt_of(&[
        "agent",
        "run",
        "--bundle",
        "lenient.json",
        "--digest",
        "null.json",
    ]);
    assert!(!prompt.contains("Previous attempt"), "{prompt}");

    let error = |args: &[&str]| {
        let out = project.speccoder(args, &[]);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty());
        String::from_utf8_lossy(&out.stderr)
            .replace(&project.root().display().to_string(), "<root>")
    };
    write("array.json", "[1, 2]");
    write("broken.json", "{\"task\": ");
    write("prompt.md", "do it");
    let missing = tempfile::tempdir().expect("dir").path().join("none.toml");
    let texts = [
        error(&["agent", "run", "--bundle", "array.json"]),
        error(&["agent", "run", "--bundle", "broken.json"]),
        error(&[
            "agent",
            "run",
            "--prompt-file",
            "prompt.md",
            "--digest",
            "null.json",
        ]),
        error(&["--config", "nowhere.toml", "agent", "argv"]),
        error(&[
            "--config",
            missing.to_str().expect("utf-8"),
            "agent",
            "run",
            "--bundle",
            "lenient.json",
        ])
        .replace(&missing.display().to_string(), "<missing>"),
    ];
    snapshots("agent").bind(|| insta::assert_snapshot!("input_errors", texts.join("")));
}

/// A repository's own Claude settings neither widen the rules nor run hooks: the real
/// `claude`, started by `agent run` in a worktree whose `.claude/settings.json` has a
/// `SessionStart` hook, never runs it (before, it ran even without credentials).
#[test]
fn real_claude_ignores_the_worktrees_own_settings() {
    require_tools(&["claude"]);
    let project = Project::new("[executor]\nkind = \"claude\"\ntimeout_secs = 60\n");
    let marker = project.root().join("hook-ran");
    let claude_dir = project.worktree().join(".claude");
    std::fs::create_dir(&claude_dir).expect("mkdir");
    std::fs::write(
        claude_dir.join("settings.json"),
        json!({
            "permissions": {"allow": ["Bash(*)"]},
            "hooks": {"SessionStart": [{"hooks": [
                {"type": "command", "command": format!("touch {}", marker.display())}
            ]}]}
        })
        .to_string(),
    )
    .expect("settings");
    let home = tempfile::tempdir().expect("home");
    let (_, outcome) = project.run(&no_credentials(home.path()));
    assert!(
        outcome["reason"]
            .as_str()
            .is_some_and(|r| r.contains("Not logged in")),
        "{outcome}"
    );
    assert!(!marker.exists(), "the repository's hook ran");
}

/// A just rule admits only words just hands to the recipe: for a recipe without a variadic
/// parameter, just reads words past its parameters as more recipes to run (a `[private]` one
/// too), so no rule may let them follow. Every rule is tried with the real just and extra
/// words naming the private recipe: it never runs.
#[test]
fn just_rules_never_run_another_recipe() {
    require_tools(&["just"]);
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("justfile"),
        "nocd:\n  @echo nocd\n\n\
         [private]\nsecret:\n  @echo SECRET-RAN\n\n\
         two a b:\n  @echo two {{a}} {{b}}\n\n\
         dflt a='x' b='y':\n  @echo dflt {{a}} {{b}}\n\n\
         plus +rest:\n  @echo plus {{rest}}\n\n\
         star *rest:\n  @echo star {{rest}}\n\n\
         fixplus a +rest:\n  @echo fixplus {{a}} {{rest}}\n",
    )
    .expect("justfile");
    let allow = |json: bool| {
        let mut args = vec!["allow"];
        if json {
            args.push("--json");
        }
        let out = support::speccoder_with(
            dir.path(),
            &args,
            &[("SPECCODER_CACHE_DIR", dir.path().join(".cache").as_os_str())],
        );
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let json: Value = serde_json::from_str(&allow(true)).expect("json");
    let rules: Vec<String> = json["claude_rules"]
        .as_array()
        .expect("rules")
        .iter()
        .filter_map(|r| r.as_str().map(str::to_owned))
        .collect();
    assert!(!rules.is_empty());
    for rule in &rules {
        let content = rule
            .strip_prefix("Bash(")
            .and_then(|r| r.strip_suffix(')'))
            .expect("a Bash rule");
        // What the rule admits: the exact command, or its prefix and any words.
        let commands: Vec<String> = match content.strip_suffix(" *") {
            Some(prefix) => ["", " secret", " 1 secret", " 1 2 secret", " 1 2 3 secret"]
                .iter()
                .map(|tail| format!("{prefix}{tail}"))
                .collect(),
            None => vec![content.to_owned()],
        };
        for command in commands {
            let out = support::sh(&command, dir.path(), Duration::from_secs(30));
            assert!(
                !out.stdout.text().contains("SECRET-RAN"),
                "{rule} admits `{command}`, which runs the private recipe"
            );
        }
    }
    snapshots("agent").bind(|| insta::assert_snapshot!("allow_just", allow(false)));
}

/// Script names with format characters (a right-to-left override, a zero-width space, a byte
/// order mark) could look like another name in a rule: none becomes one, each is dropped
/// with its reason.
#[test]
fn names_with_format_characters_get_no_rule() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("package.json"),
        r#"{"name": "x", "scripts": {"test": "echo t", "te\u202etset": "echo a", "\u200btest": "echo b", "\ufefftest": "echo c"}}"#,
    )
    .expect("package.json");
    std::fs::write(dir.path().join("package-lock.json"), "{}").expect("lockfile");
    let out = support::speccoder_with(
        dir.path(),
        &["allow", "--json"],
        &[("SPECCODER_CACHE_DIR", dir.path().join(".cache").as_os_str())],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let json: Value = serde_json::from_slice(&out.stdout).expect("json");
    let rules = json["claude_rules"].to_string();
    assert!(rules.contains("Bash(npm run test)"), "{rules}");
    for c in ['\u{202e}', '\u{200b}', '\u{feff}'] {
        assert!(!rules.contains(c), "{c:?} in {rules}");
    }
    let reasons: Vec<&str> = json["dropped"]
        .as_array()
        .expect("dropped")
        .iter()
        .filter_map(|d| d["reason"].as_str())
        .collect();
    assert_eq!(reasons.len(), 3, "{reasons:?}");
    for reason in reasons {
        assert!(
            reason.starts_with("it holds the format character"),
            "{reason}"
        );
    }
}
