//! The real `claude` and `codex` CLIs, driven by a scripted model on 127.0.0.1
//! (`support/model.rs`), doing real work through speccoder: `agent run` and `attempt`, each
//! with an edit, a check in the agent's own shell, a recipe tool call, and a background job
//! started, read and stopped through the recipe tool. Every assertion on what the agent did
//! reads what the CLI itself sent back to the model (the scripted server's log), besides
//! what speccoder reports.

#[path = "support/model.rs"]
#[allow(dead_code, reason = "each test uses a part of the scripted model")]
mod model;
use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;

use model::{ScriptedModel, Step};
use serde_json::{Value, json};
use support::{copy_dir, fixtures_dir, path_var, require_tools};

/// Which CLI.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Agent {
    Claude,
    Codex,
}

impl Agent {
    fn kind(self) -> &'static str {
        match self {
            Self::Claude => "claude",
            Self::Codex => "codex",
        }
    }
}

/// The long-running task the agents start as a background job.
const SERVE: &str = "serve:\n\t@echo listening on 8000; sleep 300\n";

/// A project (the attempt fixture's calculator, with a `serve` task), committed, with a
/// home folder of its own for the agent's CLI and the bundle beside it.
struct Cell {
    dir: tempfile::TempDir,
    agent: Agent,
}

impl Cell {
    fn new(agent: Agent) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().join("repo");
        copy_dir(&fixtures_dir().join("attempt/project"), &root);
        let makefile = std::fs::read_to_string(root.join("Makefile")).expect("Makefile");
        std::fs::write(root.join("Makefile"), format!("{makefile}\n{SERVE}")).expect("Makefile");
        // The Codex provider's key variable is no Codex variable: the project passes it.
        // In your own file: a repository cannot hand the agent a variable.
        support::write_config(
            &root.join("speccoder.toml"),
            &format!(
                "[executor]\nkind = \"{}\"\ntimeout_secs = 300\n\n[attempt]\nmax_attempts = 1\nagent_env = [\"{}\"]\n",
                agent.kind(),
                ScriptedModel::CODEX_KEY_VAR
            ),
        );
        std::fs::copy(
            fixtures_dir().join("attempt/bundle.json"),
            dir.path().join("bundle.json"),
        )
        .expect("bundle");
        support::git(&root, &["init", "--quiet", "--initial-branch=main"]);
        support::commit_all(&root, "the calculator");
        for folder in ["home/.claude", "home/.codex"] {
            std::fs::create_dir_all(dir.path().join(folder)).expect("home");
        }
        Self { dir, agent }
    }

    fn root(&self) -> PathBuf {
        self.dir.path().join("repo")
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    /// `speccoder …` in the project, with the agent's home, the model's variables and the
    /// tests' git, cache and state folders.
    fn speccoder(&self, model: &ScriptedModel, args: &[&str]) -> std::process::Output {
        let mut command = Command::new(env!("CARGO_BIN_EXE_speccoder"));
        command
            .arg("-C")
            .arg(self.root())
            .args(args)
            .env_clear()
            .env("PATH", path_var())
            .env("HOME", self.home())
            .env("LANG", "C.UTF-8")
            .env("CLAUDE_CONFIG_DIR", self.home().join(".claude"))
            .env("CODEX_HOME", self.home().join(".codex"))
            .env("SPECCODER_CACHE_DIR", support::test_cache_dir())
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("SPECCODER_CONFIG", support::user_config_for(&self.root()))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("PYTHONDONTWRITEBYTECODE", "1");
        if let Some(tmp) = std::env::var_os("TMPDIR") {
            command.env("TMPDIR", tmp);
        }
        match self.agent {
            Agent::Claude => command.envs(model.claude_env()),
            Agent::Codex => {
                model
                    .write_codex_config(&self.home().join(".codex"))
                    .expect("codex config");
                command.envs(model.codex_env())
            }
        };
        command.output().expect("speccoder starts")
    }

    /// The script of an agent that implements `add` with `body`, checks in its shell, and,
    /// when `recipe`, runs the tests and a background job through the recipe tool.
    fn script(&self, body: &str, recipe: bool) -> Vec<Step> {
        let mut steps = Vec::new();
        if self.agent == Agent::Claude {
            // Claude edits only a file it has read.
            steps.push(Step::tool("Read", json!({"file_path": "{cwd}/calc.py"})));
        }
        steps.push(Step::edit(
            "{cwd}/calc.py",
            "    raise NotImplementedError(\"T7 adds this\")\n",
            format!("    return {body}\n"),
        ));
        steps.push(Step::shell("make test"));
        if recipe {
            steps.extend([
                Step::mcp("speccoder", "recipe", json!({"op": "test"})),
                Step::mcp(
                    "speccoder",
                    "recipe",
                    json!({"op": "serve", "background": true, "ready": "listening"}),
                ),
                Step::mcp("speccoder", "recipe_jobs", json!({})),
                Step::mcp("speccoder", "recipe_output", json!({"job": "job-1"})),
                Step::mcp("speccoder", "recipe_stop", json!({"job": "job-1"})),
            ]);
        }
        steps.push(Step::text("Implemented add in calc.py."));
        steps
    }
}

/// `text` without spaces or line breaks, so JSON matches however the CLI printed it.
fn squeezed(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

/// The tool results the CLI sent back to the model, in order, checked against what an
/// honest agent with the recipe tool must have seen: the tests passing in its shell, the
/// recipe's run of them exiting 0, and the background job started, listed, read and
/// stopped.
#[track_caller]
fn assert_honest_results(agent: Agent, results: &[String]) {
    let all = results.join("\n----\n");
    let squeezed_all: Vec<String> = results.iter().map(|r| squeezed(r)).collect();
    let find = |what: &str, test: &dyn Fn(&str) -> bool| {
        squeezed_all
            .iter()
            .position(|r| test(r))
            .unwrap_or_else(|| panic!("{agent:?}: no tool result {what}:\n{all}"))
    };
    let shell = find("of the tests passing in the shell", &|r| {
        r.contains("Ran") && r.contains("OK") && !r.contains("FAILED")
    });
    let recipe = find("of the recipe's test run exiting 0", &|r| {
        r.contains("\"exit_code\":0") && r.contains("\"task\":\"test\"")
    });
    let started = find("of the background job's start", &|r| {
        r.contains("\"job\":\"job-1\"") && r.contains("\"ready\":true")
    });
    let listed = find("of the job list", &|r| {
        r.contains("\"jobs\":[") && r.contains("job-1") && r.contains("\"state\":\"running\"")
    });
    let read = find("of the job's output", &|r| {
        r.contains("listeningon8000") && r.contains("\"next\"")
    });
    let stopped = find("of the stop", &|r| {
        r.contains("\"state\":\"stopped\"") && r.contains("job-1")
    });
    assert!(
        shell < recipe && recipe < started && started < listed && listed < read && read < stopped,
        "{agent:?}: results out of order:\n{all}"
    );
}

/// `agent run`: the agent edits the project, runs the tests in its shell and through the
/// recipe tool, and starts, reads and stops a background job.
fn agent_run_cell(agent: Agent) {
    require_tools(&[agent.kind()]);
    let cell = Cell::new(agent);
    let model = ScriptedModel::start(cell.script("a + b", true));
    let out = cell.speccoder(&model, &["agent", "run", "--bundle", "../bundle.json"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let outcome: Value = serde_json::from_str(&stdout).unwrap_or_else(|_| {
        panic!(
            "not JSON: {stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert_eq!(outcome["status"], "completed", "{outcome}");
    assert_eq!(out.status.code(), Some(0));
    assert_honest_results(agent, &model.tool_results());
    let calc = std::fs::read_to_string(cell.root().join("calc.py")).expect("calc.py");
    assert!(calc.contains("return a + b"), "{calc}");
    assert_eq!(
        model.remaining(),
        0,
        "the agent stopped before the script's end"
    );
}

/// `attempt`: the honest agent's work passes on the first try and is committed; a wrong
/// implementation fails, its own shell having shown it the failing tests.
fn attempt_cell(agent: Agent, honest: bool) {
    require_tools(&[agent.kind()]);
    let cell = Cell::new(agent);
    let body = if honest { "a + b" } else { "a - b" };
    let model = ScriptedModel::start(cell.script(body, honest));
    let out = cell.speccoder(&model, &["attempt", "--json", "--bundle", "../bundle.json"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let story: Value = serde_json::from_str(&stdout).unwrap_or_else(|_| {
        panic!(
            "not JSON: {stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let results = model.tool_results();
    if honest {
        assert_eq!(story["verdict"], "passed", "{story:#}");
        assert_eq!(
            story["attempts"].as_array().map(Vec::len),
            Some(1),
            "{story:#}"
        );
        assert_eq!(out.status.code(), Some(0));
        assert_honest_results(agent, &results);
        let commit = story["commit"].as_str().expect("commit");
        let calc = support::git(&cell.root(), &["show", &format!("{commit}:calc.py")]);
        assert!(calc.contains("return a + b"), "{calc}");
        // The story says whose sandbox held the agent.
        let notes = story["notes"].to_string();
        assert!(
            notes.contains("speccoder's namespace is the agent's sandbox"),
            "{notes}"
        );
    } else {
        assert_eq!(story["verdict"], "failed", "{story:#}");
        assert_ne!(out.status.code(), Some(0));
        // The agent's own shell ran the tests and showed it the failure.
        assert!(
            results.iter().any(|r| r.contains("FAILED (failures=")),
            "{results:#?}"
        );
        assert!(
            support::git(&cell.root(), &["branch", "--list", "speccoder/*"]).is_empty(),
            "a failed attempt leaves no branch"
        );
    }
    assert_eq!(
        model.remaining(),
        0,
        "the agent stopped before the script's end"
    );
}

#[test]
fn claude_agent_run() {
    agent_run_cell(Agent::Claude);
}

#[test]
fn codex_agent_run() {
    agent_run_cell(Agent::Codex);
}

#[test]
fn claude_attempt_passes() {
    attempt_cell(Agent::Claude, true);
}

#[test]
fn claude_attempt_with_a_wrong_implementation_fails() {
    attempt_cell(Agent::Claude, false);
}

#[test]
fn codex_attempt_passes() {
    attempt_cell(Agent::Codex, true);
}

#[test]
fn codex_attempt_with_a_wrong_implementation_fails() {
    attempt_cell(Agent::Codex, false);
}

/// Claude's first request to the model carries the recipe tool with its whole description
/// (the tasks and the op syntax), not only its name behind the tool search.
#[test]
fn claudes_first_request_carries_the_recipe_description() {
    require_tools(&["claude"]);
    let cell = Cell::new(Agent::Claude);
    let model = ScriptedModel::start(vec![Step::text("Nothing to do.")]);
    let out = cell.speccoder(&model, &["agent", "run", "--bundle", "../bundle.json"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let tool = model
        .first_tool("mcp__speccoder__recipe")
        .unwrap_or_else(|| panic!("no recipe tool: {:#?}", model.first_tools()));
    let description = tool["description"].as_str().unwrap_or_default();
    let prompt = support::speccoder(&cell.root(), &["recipe", "prompt"]);
    let prompt = String::from_utf8_lossy(&prompt.stdout);
    assert!(
        description.contains(prompt.trim()),
        "the description is not the prompt:\n{description}\n---\n{prompt}"
    );
    assert!(description.contains("`serve`"), "{description}");
    for other in ["recipe_jobs", "recipe_output", "recipe_stop"] {
        assert!(
            model
                .first_tool(&format!("mcp__speccoder__{other}"))
                .is_some(),
            "{other} is missing"
        );
    }
}

/// A person whose own Claude settings turn its sandbox on and fail without one: inside an
/// attempt's namespace that sandbox cannot start, and speccoder's settings turn it off, so
/// the attempt still passes.
#[test]
fn claude_attempt_passes_with_the_persons_sandbox_setting() {
    require_tools(&["claude"]);
    let cell = Cell::new(Agent::Claude);
    std::fs::write(
        cell.home().join(".claude/settings.json"),
        json!({"sandbox": {"enabled": true, "failIfUnavailable": true}}).to_string(),
    )
    .expect("settings");
    let model = ScriptedModel::start(cell.script("a + b", false));
    let out = cell.speccoder(&model, &["attempt", "--json", "--bundle", "../bundle.json"]);
    let story: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("not JSON: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(story["verdict"], "passed", "{story:#}");
    assert!(
        model.tool_results().iter().any(|r| r.contains("OK")),
        "{:#?}",
        model.tool_results()
    );
}

/// Codex in `agent run` on a Go module: its own sandbox leaves the home read-only, and the
/// Go build cache (cold, in a fresh home) is opened in it, so `go test ./...` passes.
#[test]
fn codex_agent_run_builds_go_with_a_cold_cache() {
    require_tools(&["codex", "go"]);
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("mod");
    std::fs::create_dir_all(root.join("sum")).expect("mkdir");
    std::fs::write(root.join("go.mod"), "module example.com/sum\n\ngo 1.22\n").expect("go.mod");
    std::fs::write(
        root.join("sum/sum.go"),
        "package sum\n\n// Of adds its arguments.\nfunc Of(xs ...int) int {\n\tt := 0\n\tfor _, x := range xs {\n\t\tt += x\n\t}\n\treturn t\n}\n",
    )
    .expect("sum.go");
    std::fs::write(
        root.join("sum/sum_test.go"),
        "package sum\n\nimport (\n\t\"go/build\"\n\t\"testing\"\n)\n\nfunc TestOf(t *testing.T) {\n\t_ = build.Default\n\tif Of(1, 2, 3) != 6 {\n\t\tt.Fatal(\"wrong\")\n\t}\n}\n",
    )
    .expect("sum_test.go");
    std::fs::write(
        root.join("speccoder.toml"),
        "[executor]\nkind = \"codex\"\ntimeout_secs = 300\nrecipe_mcp = false\n",
    )
    .expect("config");
    std::fs::write(
        dir.path().join("prompt.md"),
        "Run the tests of this module.\n",
    )
    .expect("prompt");
    let home = dir.path().join("home");
    let codex_home = home.join(".codex");
    let model = ScriptedModel::start(vec![
        Step::shell("go test ./..."),
        Step::poll(),
        Step::text("The tests pass."),
    ]);
    model.write_codex_config(&codex_home).expect("config");
    let out = Command::new(env!("CARGO_BIN_EXE_speccoder"))
        .arg("-C")
        .arg(&root)
        .args(["agent", "run", "--prompt-file", "../prompt.md"])
        .env_clear()
        .env("PATH", path_var())
        .env("HOME", &home)
        .env("CODEX_HOME", &codex_home)
        .env("GOTOOLCHAIN", "local")
        .env("GOFLAGS", "-mod=mod")
        .env("SPECCODER_CACHE_DIR", support::test_cache_dir())
        .envs(model.codex_env())
        .output()
        .expect("speccoder starts");
    let outcome: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("not JSON: {}", String::from_utf8_lossy(&out.stderr)));
    let results = model.tool_results().join("\n----\n");
    assert!(
        results.contains("ok  \texample.com/sum/sum"),
        "{results}\n{outcome}"
    );
    assert!(!results.contains("read-only file system"), "{results}");
    assert_eq!(outcome["status"], "completed", "{outcome}");
    assert!(
        Path::new(&home.join(".cache/go-build")).is_dir(),
        "the build cache was made in the fake home"
    );
}

/// Wiring done by hand: the table `mcp --print-config codex` prints, pasted into Codex's
/// own `config.toml`, lets `codex exec` (approval `never`) call the recipe tool, which a
/// bare `codex mcp add` entry would have refused.
#[test]
fn codex_wired_by_hand_from_print_config_runs_the_recipe() {
    require_tools(&["codex"]);
    let cell = Cell::new(Agent::Codex);
    let printed = support::speccoder(&cell.root(), &["mcp", "--print-config", "codex"]);
    assert_eq!(printed.status.code(), Some(0), "{printed:?}");
    let table = String::from_utf8(printed.stdout).expect("utf-8");
    let model = ScriptedModel::start(vec![
        Step::mcp("speccoder", "recipe", json!({"op": "test"})),
        Step::text("Ran the tests."),
    ]);
    let codex_home = cell.home().join(".codex");
    model.write_codex_config(&codex_home).expect("config");
    let config = codex_home.join("config.toml");
    let mut text = std::fs::read_to_string(&config).expect("config");
    text.push('\n');
    text.push_str(&table);
    std::fs::write(&config, text).expect("config");
    let out = Command::new("codex")
        .args(["exec", "--skip-git-repo-check", "-C"])
        .arg(cell.root())
        .arg("Run the tests.")
        .env_clear()
        .env("PATH", path_var())
        .env("HOME", cell.home())
        .env("CODEX_HOME", &codex_home)
        .env("SPECCODER_CACHE_DIR", support::test_cache_dir())
        .envs(model.codex_env())
        .stdin(std::process::Stdio::null())
        .output()
        .expect("codex starts");
    let results = model.tool_results();
    assert!(
        results
            .iter()
            .any(|r| squeezed(r).contains("\"exit_code\":0") && r.contains("Ran 3 tests")),
        "{results:#?}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Claude stopped by `[executor] max_turns`: its JSON has no `result`, and the outcome
/// says why from its `errors` and `subtype`.
#[test]
fn claude_stopped_by_max_turns_says_so() {
    require_tools(&["claude"]);
    let cell = Cell::new(Agent::Claude);
    let config = cell.root().join("speccoder.toml");
    let text = std::fs::read_to_string(&config).expect("config");
    std::fs::write(
        &config,
        text.replace(
            "timeout_secs = 300\n",
            "timeout_secs = 300\nmax_turns = 1\n",
        ),
    )
    .expect("config");
    let model = ScriptedModel::start(vec![
        Step::shell("make test"),
        Step::shell("make test"),
        Step::shell("make test"),
        Step::text("Done."),
    ]);
    let out = cell.speccoder(&model, &["agent", "run", "--bundle", "../bundle.json"]);
    let outcome: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("not JSON: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(outcome["status"], "failed", "{outcome}");
    let reason = outcome["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("error_max_turns"), "{reason}");
    assert!(!reason.contains("the agent reported an error"), "{reason}");
}

/// A command Claude's rules refuse is counted in the outcome, and reaches the next
/// attempt's prompt through the digest: the second conversation is told what was refused.
#[test]
fn claudes_refused_commands_reach_the_next_attempt() {
    require_tools(&["claude"]);
    let cell = Cell::new(Agent::Claude);
    let config = cell.root().join("speccoder.toml");
    let text = std::fs::read_to_string(&config).expect("config");
    std::fs::write(
        &config,
        text.replace("max_attempts = 1", "max_attempts = 2"),
    )
    .expect("config");
    let mut script = vec![Step::shell("curl -s http://127.0.0.1:9/nowhere")];
    script.push(Step::text("I could not fetch the page."));
    script.extend(cell.script("a + b", false));
    let model = ScriptedModel::start(script);
    let out = cell.speccoder(&model, &["attempt", "--json", "--bundle", "../bundle.json"]);
    let story: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("not JSON: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(story["verdict"], "passed", "{story:#}");
    let first = &story["attempts"][0];
    assert_eq!(
        first["agent"]["permission_denials"]["count"], 1,
        "{first:#}"
    );
    assert_eq!(
        first["agent"]["permission_denials"]["commands"],
        json!(["curl -s http://127.0.0.1:9/nowhere"])
    );
    // The first request of the second conversation: its prompt holds the digest.
    let second = model
        .requests()
        .into_iter()
        .find(|r| {
            let text = r.to_string();
            text.contains("Previous attempt") && !text.contains("tool_result")
        })
        .expect("a second conversation with the digest");
    assert!(
        second
            .to_string()
            .contains("curl -s http://127.0.0.1:9/nowhere"),
        "{second}"
    );
}
