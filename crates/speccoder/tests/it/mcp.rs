//! `speccoder mcp` driven by real clients: the official MCP TypeScript SDK (through
//! `tests/it/mcp/client.mjs`), Claude Code's health check, and raw JSON-RPC lines for what no
//! client sends on purpose.

use crate::support;

use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// A project of its own for one test: a Makefile with `targets`.
fn project(targets: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("Makefile"), targets).expect("Makefile");
    dir
}

fn root(dir: &tempfile::TempDir) -> PathBuf {
    dir.path().canonicalize().expect("canonical")
}

/// Runs a scenario of `tests/it/mcp/client.mjs` against the server of `project`.
fn sdk_client(scenario: &str, project: &Path, config: Value) -> Value {
    let sdk = support::tools_bin().join("../mcp-sdk/node_modules/@modelcontextprotocol/sdk");
    assert!(
        sdk.exists(),
        "the MCP TypeScript SDK is not installed: run ./scripts/install-tools.sh"
    );
    let mut config = config;
    config["bin"] = json!(env!("CARGO_BIN_EXE_speccoder"));
    config["project"] = json!(project);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/mcp/client.mjs");
    let out = Command::new("node")
        .arg(script)
        .arg(scenario)
        .arg(config.to_string())
        .env("PATH", support::path_var())
        .env("SPECCODER_CACHE_DIR", support::test_cache_dir())
        .output()
        .expect("node starts");
    assert!(
        out.status.success(),
        "client {scenario}: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: Value = serde_json::from_slice(&out.stdout).expect("the client prints JSON");
    assert_eq!(
        seen["errors"],
        json!([]),
        "protocol faults the SDK reported"
    );
    seen
}

/// What the recipe tool's description says of background jobs after the prompt, with `op`
/// as its example.
fn background_words(op: &str) -> String {
    format!(
        "Long-running tasks (a dev server, a watcher, a long build): call with `\"background\": true`. The call answers at once with a job id, or, with `\"ready\"` (a regular expression), once the task's output matches it, with the output so far. Work against it with other calls meanwhile, read its output with `recipe_output`, list jobs with `recipe_jobs`, and stop it with `recipe_stop` when done; every job is stopped when this server exits. Example: `{{\"op\": \"{op}\", \"background\": true, \"ready\": \"[Ll]istening|ready|Serving\"}}`."
    )
}

fn stdout_of(out: &std::process::Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("utf-8")
}

#[test]
fn the_sdk_client_lists_the_prompt_and_calls_give_what_recipe_run_prints() {
    let dir = project(
        "hello:\n\t@echo hello from make\n\
         fail:\n\t@echo about to fail; exit 3\n\
         slow:\n\tsleep 30\n",
    );
    let root = root(&dir);
    let calls = json!([
        {"op": "hello"},
        {"op": "fail"},
        {"op": "hlelo"},
        {"op": "slow", "timeout": 1},
    ]);
    let seen = sdk_client("calls", &root, json!({ "calls": calls }));

    let tools = seen["tools"].as_array().expect("tools");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(
        names,
        ["recipe", "recipe_jobs", "recipe_output", "recipe_stop"],
        "{tools:?}"
    );
    let tool = &tools[0];
    // A title, and the schema of its `structuredContent`, which the SDK checks every
    // answer below against.
    assert_eq!(tool["title"], "Run a project task");
    assert_eq!(
        tool["outputSchema"]["properties"]["exit_code"]["type"],
        json!(["integer", "null"])
    );
    let prompt = stdout_of(&support::speccoder(&root, &["recipe", "prompt"]));
    assert_eq!(
        tool["description"],
        format!("{}\n\n{}\n", prompt.trim_end(), background_words("dev"))
    );
    let schema = &tool["inputSchema"];
    assert_eq!(schema["required"], json!(["op"]));
    assert_eq!(schema["properties"]["op"]["type"], "string");
    assert_eq!(schema["properties"]["timeout"]["type"], "integer");
    let op_doc = schema["properties"]["op"]["description"]
        .as_str()
        .expect("op has a description");
    let examples = op_examples(&prompt);
    assert!(!examples.is_empty(), "the prompt has examples:\n{prompt}");
    for example in &examples {
        assert!(op_doc.contains(example), "{example} in {op_doc:?}");
    }

    let calls = seen["calls"].as_array().expect("calls");
    for (call, op, is_error) in [(&calls[0], "hello", false), (&calls[1], "fail", true)] {
        let cli = support::speccoder(&root, &["recipe", "run", op]);
        assert_eq!(call["text"], stdout_of(&cli), "{op}");
        assert_eq!(call["isError"], is_error, "{op}");
        let cli_json: Value = serde_json::from_slice(
            &support::speccoder(&root, &["recipe", "run", "--json", op]).stdout,
        )
        .expect("json");
        let structured = &call["structured"];
        let keys = |v: &Value| v.as_object().map(|o| o.keys().cloned().collect::<Vec<_>>());
        assert_eq!(keys(structured), keys(&cli_json), "{op}");
        for key in [
            "runner",
            "task",
            "command",
            "cwd",
            "exit_code",
            "output",
            "timed_out",
        ] {
            assert_eq!(structured[key], cli_json[key], "{op}: {key}");
        }
    }
    // make reports a failed recipe with its own code, 2.
    assert_eq!(calls[1]["structured"]["exit_code"], 2);

    let unresolved = support::speccoder(&root, &["recipe", "run", "hlelo"]);
    assert_eq!(unresolved.status.code(), Some(2));
    let message = String::from_utf8_lossy(&unresolved.stderr);
    let message = message.trim_end().trim_start_matches("error: ");
    assert_eq!(calls[2]["text"], message);
    assert_eq!(calls[2]["isError"], true);
    assert_eq!(calls[2]["structured"], Value::Null);

    assert_eq!(calls[3]["isError"], true, "a timeout is an error");
    assert_eq!(calls[3]["structured"]["timed_out"], true);
    assert!(
        calls[3]["text"]
            .as_str()
            .is_some_and(|t| t.ends_with("Command timed out after 1 seconds\n")),
        "{}",
        calls[3]["text"]
    );
}

/// The ops the prompt gives as examples: the backticked words after `Examples:` and
/// `as in`.
fn op_examples(prompt: &str) -> Vec<String> {
    let mut examples = Vec::new();
    for part in prompt.split("Examples: ").skip(1) {
        let sentence = part.split(['\n', '.']).next().unwrap_or_default();
        examples.extend(sentence.split('`').skip(1).step_by(2).map(str::to_owned));
    }
    for part in prompt.split("as in `").skip(1) {
        examples.extend(part.split('`').next().map(str::to_owned));
    }
    examples
}

#[test]
fn progress_arrives_and_a_cancelled_task_leaves_no_process() {
    // A sleep no other test uses, to find its processes by.
    let secs = 3000 + std::process::id() % 600;
    let dir = project(&format!(
        "long:\n\t@echo started; sleep {secs}\n\
         quiet:\n\t@sleep 1.5; echo quiet\n"
    ));
    let root = root(&dir);
    let seen = sdk_client(
        "progress-and-cancel",
        &root,
        json!({"long": "long", "quiet": "quiet"}),
    );
    assert_eq!(seen["cancelled"], true, "{seen}");
    let progress = seen["progress"].as_array().expect("progress");
    assert!(!progress.is_empty(), "{seen}");
    let last = &progress[progress.len() - 1];
    assert!(
        last["progress"].as_f64().is_some_and(|p| p >= 1.0),
        "{last}"
    );
    assert!(
        last["message"]
            .as_str()
            .is_some_and(|m| m.ends_with(" elapsed, 8 bytes of output so far")),
        "{last}"
    );
    // The queue moved on, and the call without a token got no notification (the SDK
    // reports one for a token it did not send as an error).
    assert_eq!(seen["after"]["text"], "quiet\n");
    assert_eq!(
        support::processes_with(&format!("sleep {secs}")),
        Vec::<String>::new()
    );
}

#[test]
fn an_input_changed_between_calls_is_picked_up() {
    let dir = project("hello:\n\t@echo hello\n");
    let root = root(&dir);
    let seen = sdk_client(
        "changed",
        &root,
        json!({
            "op": "hello",
            "file": root.join("Makefile"),
            "append": "added:\n\t@echo added later\n",
            "newOp": "added",
        }),
    );
    assert_eq!(seen["first"]["text"], "hello\n");
    assert_eq!(seen["second"]["text"], "added later\n", "{seen}");
    assert_eq!(seen["second"]["isError"], false);
    assert_eq!(seen["listChanged"], 1, "notifications/tools/list_changed");
    assert!(!seen["before"].as_str().expect("text").contains("`added`"));
    let prompt = stdout_of(&support::speccoder(&root, &["recipe", "prompt"]));
    assert_eq!(
        seen["after"],
        format!("{}\n\n{}\n", prompt.trim_end(), background_words("dev"))
    );
    assert!(seen["after"].as_str().expect("text").contains("`added`"));
}

#[test]
fn claude_code_reports_the_server_connected() {
    support::require_tools(&["claude"]);
    let home = tempfile::tempdir().expect("home");
    let dir = project("hello:\n\t@echo hello\n");
    let root = root(&dir);
    let claude = |args: &[&str]| {
        Command::new(support::tools_bin().join("claude"))
            .args(args)
            .current_dir(&root)
            .env("HOME", home.path())
            .env("PATH", support::path_var())
            .env("SPECCODER_CACHE_DIR", support::test_cache_dir())
            .output()
            .expect("claude starts")
    };
    let bin = env!("CARGO_BIN_EXE_speccoder");
    let root_text = root.display().to_string();
    let added = claude(&[
        "mcp",
        "add",
        "speccoder",
        "--",
        bin,
        "-C",
        &root_text,
        "mcp",
    ]);
    assert!(added.status.success(), "{added:?}");
    let listed = claude(&["mcp", "list"]);
    let text = stdout_of(&listed);
    assert!(
        text.lines()
            .any(|l| l.starts_with("speccoder: ") && l.ends_with("Connected")),
        "{text}\n{}",
        String::from_utf8_lossy(&listed.stderr)
    );
}

/// A server started with pipes, spoken to in raw lines.
struct Raw {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Option<BufReader<ChildStdout>>,
}

impl Raw {
    fn start(root: &Path) -> Self {
        Self::start_with(root, |_| {})
    }

    /// [`Self::start`], with the server's environment changed by `env`.
    fn start_with(root: &Path, env: impl FnOnce(&mut Command)) -> Self {
        let mut command = Command::new(env!("CARGO_BIN_EXE_speccoder"));
        command
            .arg("-C")
            .arg(root)
            .arg("mcp")
            .env("PATH", support::path_var())
            .env("SPECCODER_CACHE_DIR", support::test_cache_dir())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped());
        env(&mut command);
        let mut child = command.spawn().expect("server starts");
        let stdin = child.stdin.take();
        let stdout = Some(BufReader::new(child.stdout.take().expect("stdout")));
        Self {
            child,
            stdin,
            stdout,
        }
    }

    fn send(&mut self, line: &[u8]) {
        let stdin = self.stdin.as_mut().expect("open");
        stdin.write_all(line).expect("write");
        stdin.write_all(b"\n").expect("write");
        stdin.flush().expect("flush");
    }

    /// The next line, as text, without its newline.
    fn recv_line(&mut self) -> String {
        let mut line = String::new();
        let stdout = self.stdout.as_mut().expect("stdout is open");
        stdout.read_line(&mut line).expect("read");
        assert!(line.ends_with('\n'), "the server closed its stdout");
        line.pop();
        line
    }

    /// The next line, which must be one JSON message: stdout carries only the protocol.
    fn recv(&mut self) -> Value {
        let line = self.recv_line();
        serde_json::from_str(&line).unwrap_or_else(|err| panic!("{err}: {line:?}"))
    }

    /// Closes stdin and returns the exit code.
    fn close(mut self) -> Option<i32> {
        drop(self.stdin.take());
        self.child.wait().expect("exits").code()
    }

    /// Waits for the server to exit on its own, at most `bound`: the exit code and the
    /// time it took. A server still running then is stopped (SIGTERM, so it stops its
    /// tasks) and the test fails.
    fn exits_within(&mut self, bound: Duration) -> (Option<i32>, Duration) {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return (status.code(), start.elapsed());
            }
            if start.elapsed() > bound {
                let _ = Command::new("kill")
                    .arg(self.child.id().to_string())
                    .status();
                let _ = self.child.wait();
                panic!("the server was still running {bound:?} later");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// Waits until a process whose command line holds `marker` runs.
#[track_caller]
fn wait_for_process(marker: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while support::processes_with(marker).is_empty() {
        assert!(Instant::now() < deadline, "`{marker}` never started");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A `tools/call` of the recipe tool, as a line.
fn call_line(id: &str, op: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"recipe","arguments":{{"op":{}}}}}}}"#,
        json!(op)
    )
}

/// A `ping` whose id is a string of `len` bytes: its answer is as long, so a few fill any
/// pipe.
fn big_ping(n: usize, len: usize) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":"{n}-{}","method":"ping"}}"#,
        "x".repeat(len)
    )
}

#[test]
fn malformed_input_gets_errors_and_the_server_survives() {
    let dir = project("hello:\n\t@echo hello\n");
    let mut server = Raw::start(&root(&dir));
    let error = |code: i64, id: Value| {
        move |answer: &Value| {
            assert_eq!(answer["error"]["code"], code, "{answer}");
            assert_eq!(answer["id"], id, "{answer}");
        }
    };
    server.send(br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#);
    assert_eq!(server.recv()["result"]["protocolVersion"], "2025-11-25");
    server.send(b"garbage");
    error(-32700, Value::Null)(&server.recv());
    server.send(b"{\"jsonrpc\":\"2.0\",\"id\":2,");
    error(-32700, Value::Null)(&server.recv());
    server.send(b"[]");
    error(-32600, Value::Null)(&server.recv());
    server.send(&vec![b'x'; 6 * 1024 * 1024]);
    let answer = server.recv();
    error(-32600, Value::Null)(&answer);
    assert!(
        answer["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("the limit is 4194304")),
        "{answer}"
    );
    server.send(br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"rm","arguments":{"op":"x"}}}"#);
    error(-32602, json!(3))(&server.recv());
    server.send(br#"{"jsonrpc":"2.0","id":"server-discover-probe-1","method":"server/discover","params":{}}"#);
    error(-32601, json!("server-discover-probe-1"))(&server.recv());
    server.send(br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"recipe","arguments":{"op":7}}}"#);
    let answer = server.recv();
    assert_eq!(answer["id"], 4);
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    // Still serving.
    server.send(br#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"recipe","arguments":{"op":"hello"}}}"#);
    let answer = server.recv();
    assert_eq!(answer["id"], 5);
    assert_eq!(answer["result"]["content"][0]["text"], "hello\n");
    assert_eq!(server.close(), Some(0));
}

#[test]
fn closing_stdin_stops_the_running_task() {
    let secs = 2400 + std::process::id() % 600;
    let dir = project(&format!("long:\n\t@sleep {secs}\n"));
    let mut server = Raw::start(&root(&dir));
    server.send(br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"recipe","arguments":{"op":"long"}}}"#);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while support::processes_with(&format!("sleep {secs}")).is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "the task never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(server.close(), Some(0));
    assert_eq!(
        support::processes_with(&format!("sleep {secs}")),
        Vec::<String>::new()
    );
}

/// `agent argv` of a project with this configuration, with the binary and the root
/// replaced by placeholders.
fn agent_argv(config: &str, json: bool) -> String {
    let dir = project("hello:\n\t@echo hello\n");
    let root = root(&dir);
    std::fs::write(root.join("speccoder.toml"), config).expect("config");
    let args: &[&str] = if json {
        &["agent", "argv", "--json"]
    } else {
        &["agent", "argv"]
    };
    // A home of its own, so that the folders Codex may write (`[attempt] writable`: the
    // ones of `~/.npm`, `~/.codex`… that exist) are the same on every machine.
    let home = tempfile::tempdir().expect("home");
    std::fs::create_dir(home.path().join(".npm")).expect("npm cache");
    let out = support::speccoder_with(&root, args, &[("HOME", home.path().as_os_str())]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let home_path = home.path().canonicalize().expect("real home");
    let text = stdout_of(&out)
        .replace(&home_path.display().to_string(), "<home>")
        .replace(env!("CARGO_BIN_EXE_speccoder"), "<speccoder>")
        .replace(&root.display().to_string(), "<root>");
    // The variables passed through are this machine's names: checked apart, not snapshot.
    match text.split_once("env_vars=[") {
        Some((before, after)) => {
            let (names, rest) = after.split_once(']').expect("the list ends");
            assert!(
                names.contains("\"XDG_STATE_HOME\"") && names.contains("\"TMPDIR\""),
                "{names}"
            );
            format!("{before}env_vars=[<names>]{rest}")
        }
        None => text,
    }
}

#[test]
fn agents_get_the_recipe_server() {
    let settings = support::snapshots("mcp");
    settings.bind(|| {
        insta::assert_snapshot!(
            "agent_argv_claude",
            agent_argv("[executor]\nkind = \"claude\"\n", false)
        );
        insta::assert_snapshot!(
            "agent_argv_codex",
            agent_argv("[executor]\nkind = \"codex\"\n", false)
        );
    });
    for config in [
        "[executor]\nkind = \"claude\"\nrecipe_mcp = false\n",
        "[recipe]\nenabled = false\n[executor]\nkind = \"claude\"\n",
        "[executor]\nkind = \"codex\"\nrecipe_mcp = false\n",
    ] {
        let argv = agent_argv(config, false);
        assert!(!argv.contains("mcp"), "{config}: {argv}");
    }
}

#[test]
fn claude_connects_to_the_server_agent_argv_names() {
    support::require_tools(&["claude"]);
    let dir = project("hello:\n\t@echo hello\n");
    let root = root(&dir);
    std::fs::write(
        root.join("speccoder.toml"),
        "[executor]\nkind = \"claude\"\n",
    )
    .expect("config");
    let argv: Value =
        serde_json::from_slice(&support::speccoder(&root, &["agent", "argv", "--json"]).stdout)
            .expect("json");
    let words: Vec<&str> = argv["argv"]
        .as_array()
        .expect("argv")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let at = words
        .iter()
        .position(|w| *w == "--mcp-config")
        .expect("--mcp-config");
    let config: Value = serde_json::from_str(words[at + 1]).expect("the config is JSON");
    let entry = config["mcpServers"]["speccoder"].to_string();
    // The entry Claude would read from --mcp-config, given to its health check.
    let home = tempfile::tempdir().expect("home");
    let claude = |args: &[&str]| {
        Command::new(support::tools_bin().join("claude"))
            .args(args)
            .current_dir(home.path())
            .env("HOME", home.path())
            .env("PATH", support::path_var())
            .env("SPECCODER_CACHE_DIR", support::test_cache_dir())
            .output()
            .expect("claude starts")
    };
    let added = claude(&["mcp", "add-json", "speccoder", &entry]);
    assert!(added.status.success(), "{added:?}");
    let text = stdout_of(&claude(&["mcp", "list"]));
    assert!(
        text.lines()
            .any(|l| l.starts_with("speccoder: ") && l.ends_with("Connected")),
        "{text}"
    );

    // The whole argv, without credentials: Claude connects to the server before it finds
    // out it cannot log in, and its debug log says so.
    let settings = root.join("settings.json");
    std::fs::write(&settings, argv["settings"].to_string()).expect("settings");
    let debug = root.join("debug.txt");
    let mut words: Vec<String> = words
        .iter()
        .map(|w| match *w {
            "<settings-file>" => settings.display().to_string(),
            other => other.to_owned(),
        })
        .collect();
    words.push("--debug-file".into());
    words.push(debug.display().to_string());
    let out = Command::new(support::tools_bin().join(&words[0]))
        .args(&words[1..])
        .current_dir(&root)
        .env("HOME", home.path())
        .env("PATH", support::path_var())
        .env("SPECCODER_CACHE_DIR", support::test_cache_dir())
        .stdin(std::fs::File::open(root.join("Makefile")).expect("a prompt"))
        .output()
        .expect("claude starts");
    let log = std::fs::read_to_string(&debug).expect("debug log");
    assert!(
        log.contains("MCP server \"speccoder\": Successfully connected"),
        "{out:?}\n{log}"
    );
}

#[test]
fn a_cancelled_call_gets_no_answer_and_the_next_one_runs() {
    let secs = 1800 + std::process::id() % 600;
    let dir = project(&format!("long:\n\t@sleep {secs}\nhello:\n\t@echo hello\n"));
    let mut server = Raw::start(&root(&dir));
    // No progress token: nothing follows the output, the cancel alone stops the task.
    server.send(br#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"recipe","arguments":{"op":"long"}}}"#);
    server.send(br#"{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"recipe","arguments":{"op":"hello"}}}"#);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while support::processes_with(&format!("sleep {secs}")).is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "the task never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    server.send(br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a","reason":"enough"}}"#);
    // The first answer is the second call's: the cancelled one gets none.
    let answer = server.recv();
    assert_eq!(answer["id"], "b", "{answer}");
    assert_eq!(answer["result"]["content"][0]["text"], "hello\n");
    assert_eq!(
        support::processes_with(&format!("sleep {secs}")),
        Vec::<String>::new()
    );
    assert_eq!(server.close(), Some(0));
}

#[test]
fn calls_run_one_at_a_time_in_order() {
    // If `second` ran beside `first`, it would find no marker (first writes it after a
    // second) and fail.
    let dir = project(
        "first:\n\t@sleep 1; echo from first > marker\n\
         second:\n\t@cat marker\n",
    );
    let mut server = Raw::start(&root(&dir));
    for (id, op) in [(1, "first"), (2, "second")] {
        server.send(
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                   "params": {"name": "recipe", "arguments": {"op": op}}})
            .to_string()
            .as_bytes(),
        );
    }
    let first = server.recv();
    let second = server.recv();
    assert_eq!((&first["id"], &second["id"]), (&json!(1), &json!(2)));
    assert_eq!(second["result"]["isError"], false, "{second}");
    assert_eq!(second["result"]["content"][0]["text"], "from first\n");
    assert_eq!(server.close(), Some(0));
}

#[test]
fn a_project_without_runners_lists_no_tool_until_one_appears() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = root(&dir);
    let mut server = Raw::start(&root);
    server.send(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    assert_eq!(server.recv()["result"]["tools"], json!([]));
    server.send(br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"recipe","arguments":{"op":"hello"}}}"#);
    let answer = server.recv();
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    std::fs::write(root.join("Makefile"), "hello:\n\t@echo hello\n").expect("Makefile");
    server.send(br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"recipe","arguments":{"op":"hello"}}}"#);
    assert_eq!(server.recv()["method"], "notifications/tools/list_changed");
    assert_eq!(server.recv()["result"]["content"][0]["text"], "hello\n");
    assert_eq!(server.close(), Some(0));
}

#[test]
fn the_queue_is_bounded() {
    let secs = 1200 + std::process::id() % 600;
    let dir = project(&format!("long:\n\t@sleep {secs}\n"));
    let mut server = Raw::start(&root(&dir));
    for id in 1..=1001 {
        server.send(
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                   "params": {"name": "recipe", "arguments": {"op": "long"}}})
            .to_string()
            .as_bytes(),
        );
    }
    let answer = server.recv();
    assert_eq!(answer["id"], 1001, "{answer}");
    assert_eq!(answer["result"]["isError"], true);
    assert_eq!(
        answer["result"]["content"][0]["text"],
        "1000 calls are already waiting: wait for their answers before sending more."
    );
    assert_eq!(server.close(), Some(0));
    assert_eq!(
        support::processes_with(&format!("sleep {secs}")),
        Vec::<String>::new()
    );
}

#[test]
fn codex_connects_to_the_server_agent_argv_names() {
    support::require_tools(&["codex"]);
    let dir = project("hello:\n\t@echo hello\n");
    let root = root(&dir);
    std::fs::write(
        root.join("speccoder.toml"),
        "[executor]\nkind = \"codex\"\n",
    )
    .expect("config");
    std::fs::write(root.join("prompt.md"), "say hello").expect("prompt");
    let argv: Value =
        serde_json::from_slice(&support::speccoder(&root, &["agent", "argv", "--json"]).stdout)
            .expect("json");
    let words: Vec<String> = argv["argv"]
        .as_array()
        .expect("argv")
        .iter()
        .filter_map(Value::as_str)
        .map(|w| match w {
            "<last-message-file>" => root.join("last.txt").display().to_string(),
            other => other.to_owned(),
        })
        .collect();
    // Without network Codex retries for ever: its log is read until it has listed the MCP
    // servers' tools, then its process group is killed (`timeout` bounds a failing run).
    let home = tempfile::tempdir().expect("home");
    let mut child = Command::new("timeout")
        .arg("60")
        .args(&words)
        .current_dir(&root)
        .process_group(0)
        .env("HOME", home.path())
        .env("CODEX_HOME", home.path())
        .env("PATH", support::path_var())
        .env("RUST_LOG", "info")
        .env("SPECCODER_CACHE_DIR", support::test_cache_dir())
        .stdin(std::fs::File::open(root.join("prompt.md")).expect("prompt"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("codex starts");
    let stderr = BufReader::new(child.stderr.take().expect("stderr"));
    let mut named = false;
    let mut listed = false;
    let mut seen = Vec::new();
    for line in stderr.lines() {
        let Ok(line) = line else { break };
        named |= line.contains("name: \"speccoder\"");
        // The recipe tool and the three of background jobs.
        listed |= line.contains("tool_count=4");
        if named && listed {
            break;
        }
        seen.push(line.chars().take(300).collect::<String>());
    }
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{}", child.id())])
        .status();
    let _ = child.wait();
    assert!(named && listed, "{}", seen.join("\n"));
    // The server goes when Codex does.
    assert_eq!(
        support::processes_with(root.to_str().expect("utf-8")),
        Vec::<String>::new()
    );
}

/// The longest a server may take to exit once its client is gone: the task's stop grace
/// (0.5 s), the bounded drain of answers already queued (0.5 s), and room for a loaded
/// machine.
const EXIT_BOUND: Duration = Duration::from_secs(3);

#[test]
fn a_client_that_never_reads_cannot_keep_the_server_alive() {
    let secs = 3600 + std::process::id() % 600;
    // `big`'s answer (70 KiB of text, twice: as text and as structuredContent) is more
    // than a pipe holds.
    let dir = project(&format!(
        "big:\n\t@yes 'a line of output' | head -c 500000\n\
         long:\n\t@sleep {secs}\n"
    ));
    let mut server = Raw::start(&root(&dir));
    server.send(call_line("1", "big").as_bytes());
    server.send(call_line("2", "long").as_bytes());
    // The worker got past `big`'s answer, which nobody reads, to the next task.
    wait_for_process(&format!("sleep {secs}"));
    // Answers the reader gives at once, too big for the pipe as well.
    for n in 0..3 {
        server.send(big_ping(n, 100 * 1024).as_bytes());
    }
    drop(server.stdin.take());
    let (code, took) = server.exits_within(EXIT_BOUND);
    eprintln!("exited {took:?} after stdin closed, stdout unread");
    assert_eq!(code, Some(0));
    assert_eq!(
        support::processes_with(&format!("sleep {secs}")),
        Vec::<String>::new()
    );
}

#[test]
fn a_client_that_sends_without_reading_past_the_limit_cannot_keep_the_server_alive() {
    let dir = project("hello:\n\t@echo hello\n");
    let mut server = Raw::start(&root(&dir));
    // 16 answers of 1 MiB and a little: past the 16 MiB the server holds unsent (the
    // answer being written counts until it is), it reads no more requests, so it must see
    // stdin close without reading to the end of it. One more would not fit in the pipe.
    for n in 0..16 {
        server.send(big_ping(n, 1024 * 1024).as_bytes());
    }
    drop(server.stdin.take());
    let (code, took) = server.exits_within(EXIT_BOUND);
    eprintln!("exited {took:?} after stdin closed, 16 MiB of answers unread");
    assert_eq!(code, Some(0));
}

#[test]
fn a_client_that_reads_slowly_gets_every_answer_in_order() {
    let dir = project("big:\n\t@yes 'a line of output' | head -c 500000\n");
    let root = root(&dir);
    let want = without_file(&stdout_of(&support::speccoder(
        &root,
        &["recipe", "run", "big"],
    )));
    assert!(want.len() > 64 * 1024, "{want}");
    let mut server = Raw::start(&root);
    // 30 MiB of pings, past what the server holds unsent, between the calls: the writer
    // runs on its own, since the server stops reading until the client catches up.
    let mut stdin = server.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        for n in 0..20 {
            let mut line = if n % 4 == 0 {
                call_line(&n.to_string(), "big")
            } else {
                big_ping(n, 2 * 1024 * 1024)
            };
            line.push('\n');
            stdin.write_all(line.as_bytes()).expect("write");
        }
        stdin
    });
    let mut calls = Vec::new();
    let mut pings = Vec::new();
    while calls.len() + pings.len() < 20 {
        std::thread::sleep(Duration::from_millis(50));
        let line = server.recv_line();
        let answer: Value = serde_json::from_str(&line).expect("one whole message");
        match &answer["id"] {
            Value::Number(n) => {
                let text = answer["result"]["content"][0]["text"]
                    .as_str()
                    .expect("text");
                assert_eq!(without_file(text), want);
                calls.push(n.as_u64().expect("an integer"));
            }
            Value::String(id) => {
                let (n, rest) = id.split_once('-').expect("n-xxx");
                assert_eq!(rest.len(), 2 * 1024 * 1024, "the whole id came back");
                pings.push(n.parse::<u64>().expect("n"));
            }
            other => panic!("{other}"),
        }
    }
    assert_eq!(calls, [0, 4, 8, 12, 16]);
    assert_eq!(pings, (0..20).filter(|n| n % 4 != 0).collect::<Vec<u64>>());
    server.stdin = Some(writer.join().expect("the writer"));
    assert_eq!(server.close(), Some(0));
}

/// `recipe run`'s text with the name of the full-output file, which each run has its own,
/// left out.
fn without_file(text: &str) -> String {
    let marker = ") is in ";
    match text.split_once(marker) {
        Some((before, after)) => {
            let rest = after.split_once(' ').map_or("", |(_, rest)| rest);
            format!("{before}{marker}<file> {rest}")
        }
        None => text.to_owned(),
    }
}

#[test]
fn a_client_that_closes_its_end_of_stdout_stops_the_running_task() {
    let secs = 4200 + std::process::id() % 600;
    let dir = project(&format!("long:\n\t@sleep {secs}\n"));
    let mut server = Raw::start(&root(&dir));
    // With a progress token, the server writes every second while the task runs.
    server.send(br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"recipe","arguments":{"op":"long"},"_meta":{"progressToken":"p"}}}"#);
    wait_for_process(&format!("sleep {secs}"));
    drop(server.stdout.take());
    // stdin stays open: the failed write alone ends the session.
    let (code, took) = server.exits_within(EXIT_BOUND + Duration::from_secs(1));
    eprintln!("exited {took:?} after stdout closed");
    assert_eq!(code, Some(0));
    assert_eq!(
        support::processes_with(&format!("sleep {secs}")),
        Vec::<String>::new()
    );
}

#[test]
fn ids_come_back_exactly_as_sent() {
    let secs = 5400 + std::process::id() % 600;
    let dir = project(&format!("hello:\n\t@echo hello\nlong:\n\t@sleep {secs}\n"));
    let mut server = Raw::start(&root(&dir));
    // Lines compared as text: a JSON parser would turn the number into an f64 and could
    // not hold the lone surrogate.
    let big = "123456789012345678901234567890";
    server.send(format!(r#"{{"jsonrpc":"2.0","id":{big},"method":"ping"}}"#).as_bytes());
    assert_eq!(
        server.recv_line(),
        format!(r#"{{"jsonrpc":"2.0","id":{big},"result":{{}}}}"#)
    );
    server.send(br#"{"jsonrpc":"2.0","id":"\ud800","method":"ping"}"#);
    assert_eq!(
        server.recv_line(),
        r#"{"jsonrpc":"2.0","id":"\ud800","result":{}}"#
    );
    server.send(call_line(r#""\udbff""#, "hello").as_bytes());
    let line = server.recv_line();
    let prefix = r#"{"jsonrpc":"2.0","id":"\udbff","result":{"#;
    assert!(line.starts_with(prefix), "{line}");
    let answer: Value = serde_json::from_str(&line.replacen(r#""\udbff""#, "0", 1)).expect("json");
    assert_eq!(answer["result"]["content"][0]["text"], "hello\n");
    // A lone surrogate elsewhere is refused, with the id.
    server.send(
        format!(
            r#"{{"jsonrpc":"2.0","id":{big},"method":"tools/call","params":{{"name":"recipe","arguments":{{"op":"\udc00"}}}}}}"#
        )
        .as_bytes(),
    );
    let line = server.recv_line();
    let prefix = format!(r#"{{"jsonrpc":"2.0","id":{big},"error":{{"code":-32602,"#);
    assert!(line.starts_with(&prefix), "{line}");
    assert!(line.contains("surrogate"), "{line}");
    // A call with such an id can be cancelled by it.
    server.send(call_line(r#""\udfff""#, "long").as_bytes());
    server.send(call_line("2", "hello").as_bytes());
    wait_for_process(&format!("sleep {secs}"));
    server.send(
        br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"\udfff"}}"#,
    );
    let answer = server.recv();
    assert_eq!(answer["id"], 2, "{answer}");
    assert_eq!(
        support::processes_with(&format!("sleep {secs}")),
        Vec::<String>::new()
    );
    assert_eq!(server.close(), Some(0));
}

#[test]
fn an_id_in_flight_is_refused_and_the_first_call_still_answered() {
    let dir = project("slow:\n\t@sleep 1; echo slow done\nhello:\n\t@echo hello\n");
    let mut server = Raw::start(&root(&dir));
    server.send(call_line("7", "slow").as_bytes());
    server.send(call_line("7", "hello").as_bytes());
    server.send(br#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#);
    for _ in 0..2 {
        let refused = server.recv();
        assert_eq!(refused["id"], 7, "{refused}");
        assert_eq!(refused["error"]["code"], -32600, "{refused}");
        assert_eq!(
            refused["error"]["message"],
            "Invalid Request: id 7 is already in use by a call not yet answered"
        );
    }
    let first = server.recv();
    assert_eq!(first["id"], 7, "{first}");
    assert_eq!(first["result"]["content"][0]["text"], "slow done\n");
    // Once answered, the id is free again.
    server.send(call_line("7", "hello").as_bytes());
    let again = server.recv();
    assert_eq!(again["id"], 7, "{again}");
    assert_eq!(again["result"]["content"][0]["text"], "hello\n");
    assert_eq!(server.close(), Some(0));
}

impl Raw {
    /// Sends a `tools/call` of `tool` with `arguments` as request `id`, and returns its
    /// answer, with the notifications that came before it.
    fn call(&mut self, id: u64, tool: &str, arguments: Value) -> (Value, Vec<Value>) {
        self.send(
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                   "params": {"name": tool, "arguments": arguments}})
            .to_string()
            .as_bytes(),
        );
        let mut notes = Vec::new();
        loop {
            let message = self.recv();
            if message.get("id") == Some(&json!(id)) {
                return (message, notes);
            }
            notes.push(message);
        }
    }
}

/// A loopback port nothing listens on now.
fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("addr").port()
}

#[test]
fn a_background_server_is_started_read_in_pages_and_stopped() {
    let port = free_port();
    let dir = project(
        "serve:\n\t@python3 -u -m http.server --bind 127.0.0.1 $(PORT)\n\
         fetch:\n\t@python3 -c \"import sys, urllib.request; print(urllib.request.urlopen('http://127.0.0.1:' + sys.argv[1] + '/hello.txt').read().decode())\" $(PORT)\n",
    );
    let root = root(&dir);
    std::fs::write(root.join("hello.txt"), "hello from the job").expect("page");
    let mut server = Raw::start(&root);
    server
        .send(br#"{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"info"}}"#);
    assert_eq!(server.recv()["result"], json!({}));
    let (started, _) = server.call(
        2,
        "recipe",
        json!({"op": format!("serve PORT={port}"), "background": true, "ready": "Serving HTTP"}),
    );
    let job = started["result"]["structuredContent"].clone();
    assert_eq!(job["ready"], true, "{started}");
    assert_eq!(job["state"], "running", "{started}");
    let id = job["job"].as_str().expect("a job id").to_owned();
    // A foreground call runs while the job does, and reaches it.
    let (fetched, _) = server.call(3, "recipe", json!({"op": format!("fetch PORT={port}")}));
    assert_eq!(
        fetched["result"]["content"][0]["text"], "hello from the job\n",
        "{fetched}"
    );
    // The log in pages of any offset: each page starts where the last one stopped.
    let page = |server: &mut Raw, n: u64, since: u64| -> (String, u64) {
        let (answer, _) = server.call(n, "recipe_output", json!({"job": id, "since": since}));
        let content = &answer["result"]["structuredContent"];
        (
            content["output"].as_str().expect("output").to_owned(),
            content["next"].as_u64().expect("next"),
        )
    };
    // The server logs the request as it answers: the log reaches the job a moment later.
    let deadline = Instant::now() + Duration::from_secs(10);
    let (mut whole, mut end) = page(&mut server, 4, 0);
    while !whole.contains("GET /hello.txt") && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
        (whole, end) = page(&mut server, 4, 0);
    }
    assert!(
        whole.contains("Serving HTTP") && whole.contains("GET /hello.txt"),
        "{whole}"
    );
    assert_eq!(end, whole.len() as u64);
    let (head, cut) = page(&mut server, 5, 0);
    assert_eq!((head.as_str(), cut), (whole.as_str(), end));
    let (rest, at) = page(&mut server, 6, 10);
    assert_eq!(format!("{}{rest}", &whole[..10]), whole);
    assert_eq!(at, end);
    assert_eq!(page(&mut server, 7, end), (String::new(), end));
    // An offset that is not one is refused, not read as 0.
    let (refused, _) = server.call(71, "recipe_output", json!({"job": id, "since": "10"}));
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    assert!(
        refused["result"]["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("`since` must be a byte offset")),
        "{refused}"
    );
    let (jobs, _) = server.call(8, "recipe_jobs", json!({}));
    assert_eq!(
        jobs["result"]["structuredContent"]["jobs"][0]["state"],
        "running"
    );
    // Stopped: its processes and its port are gone, and the client is told it ended.
    let (stopped, notes) = server.call(9, "recipe_stop", json!({"job": id}));
    assert_eq!(
        stopped["result"]["structuredContent"]["state"], "stopped",
        "{stopped}"
    );
    let (jobs, more) = server.call(10, "recipe_jobs", json!({}));
    assert_eq!(
        jobs["result"]["structuredContent"]["jobs"][0]["state"],
        "stopped"
    );
    let told = notes
        .iter()
        .chain(&more)
        .any(|n| n["method"] == "notifications/message" && n["params"]["data"]["job"] == json!(id));
    assert!(
        told,
        "no notifications/message for the job: {notes:?} {more:?}"
    );
    assert!(support::processes_with(&format!("127.0.0.1 {port}")).is_empty());
    assert!(
        std::net::TcpStream::connect(("127.0.0.1", port)).is_err(),
        "the port is still served"
    );
    assert_eq!(server.close(), Some(0));
}

#[test]
fn jobs_are_bounded_timed_out_and_gone_with_the_server() {
    let secs = 3000 + std::process::id() % 600;
    let dir = project(&format!(
        "long:\n\t@sleep {secs}\nshort:\n\t@sleep {}\n",
        secs + 1
    ));
    let root = root(&dir);
    std::fs::write(
        root.join("speccoder.toml"),
        "[mcp]\nmax_jobs = 8\njob_timeout_secs = 2\n",
    )
    .expect("config");
    let mut server = Raw::start(&root);
    // The deadline: a job past it is stopped as timed out.
    let (started, _) = server.call(1, "recipe", json!({"op": "short", "background": true}));
    let first = started["result"]["structuredContent"]["job"]
        .as_str()
        .expect("job")
        .to_owned();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (jobs, _) = server.call(2, "recipe_jobs", json!({}));
        let job = &jobs["result"]["structuredContent"]["jobs"][0];
        assert_eq!(job["job"], json!(first));
        if job["state"] == "timed_out" {
            // Stopped at its deadline, not before.
            assert!(job["seconds"].as_f64().is_some_and(|s| s >= 2.0), "{job}");
            break;
        }
        assert!(Instant::now() < deadline, "never timed out: {job}");
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(support::processes_with(&format!("sleep {}", secs + 1)).is_empty());
    drop(server);
    // Eight run; the ninth is refused with the list of those running.
    let other = project(&format!("long:\n\t@sleep {secs}\n"));
    let mut server = Raw::start(&self::root(&other));
    for n in 1..=8 {
        let (started, _) = server.call(n, "recipe", json!({"op": "long", "background": true}));
        assert_eq!(started["result"]["isError"], false, "{started}");
    }
    let (refused, _) = server.call(9, "recipe", json!({"op": "long", "background": true}));
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    let text = refused["result"]["content"][0]["text"]
        .as_str()
        .expect("text");
    assert!(
        text.contains("8 background jobs run already") && text.contains("job-8"),
        "{text}"
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    while support::processes_with(&format!("sleep {secs}")).len() < 8 {
        assert!(Instant::now() < deadline, "the jobs never all started");
        std::thread::sleep(Duration::from_millis(20));
    }
    // SIGKILL to the server: every job goes within a second.
    let _ = Command::new("kill")
        .args(["-KILL", &server.child.id().to_string()])
        .status();
    let _ = server.child.wait();
    let killed = Instant::now();
    while !support::processes_with(&format!("sleep {secs}")).is_empty() {
        assert!(
            killed.elapsed() < Duration::from_secs(1),
            "jobs outlived the server: {:?}",
            support::processes_with(&format!("sleep {secs}"))
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn the_python_sdk_client_initializes_lists_calls_and_calls_twenty_at_once() {
    let python = support::tools_bin().join("../mcp-py/bin/python");
    assert!(
        python.exists(),
        "the MCP Python SDK is not installed: run ./scripts/install-tools.sh"
    );
    let dir = project(
        "hello:\n\t@echo hello $(N)\nslow:\n\t@sleep 1.5; echo slow done\nfail:\n\t@echo bad; exit 3\n",
    );
    let root = root(&dir);
    let config = json!({
        "bin": env!("CARGO_BIN_EXE_speccoder"),
        "project": root,
        "env": {
            "PATH": support::path_var().to_string_lossy(),
            "SPECCODER_CACHE_DIR": support::test_cache_dir().display().to_string(),
            "HOME": std::env::var("HOME").unwrap_or_default(),
        },
    });
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/mcp/client.py");
    let out = Command::new(&python)
        .arg(script)
        .arg(config.to_string())
        .output()
        .expect("python starts");
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: Value = serde_json::from_slice(&out.stdout).expect("the client prints JSON");
    assert_eq!(seen["serverName"], "speccoder");
    assert_eq!(
        seen["tools"],
        json!(["recipe", "recipe_jobs", "recipe_output", "recipe_stop"])
    );
    assert_eq!(seen["titles"][0], "Run a project task");
    assert_eq!(
        seen["slow"],
        json!({"text": "slow done\n", "isError": false})
    );
    assert!(
        seen["progress"].as_array().is_some_and(|p| !p.is_empty()),
        "no progress: {seen}"
    );
    assert_eq!(seen["unknown"]["isError"], true);
    assert!(
        seen["unknown"]["text"]
            .as_str()
            .is_some_and(|t| t.contains("nosuch"))
    );
    assert_eq!(seen["fail"]["isError"], true);
    // Twenty at once, each answered with its own output, none lost or swapped.
    let many: Vec<String> = (0..20).map(|i| format!("hello {i}\n")).collect();
    assert_eq!(seen["many"], json!(many));
}

#[test]
fn a_stopped_job_says_stopped_not_timed_out() {
    let secs = 4800 + std::process::id() % 600;
    let dir = project(&format!("long:\n\t@echo started; sleep {secs}\n"));
    let mut server = Raw::start(&root(&dir));
    let (started, _) = server.call(
        1,
        "recipe",
        json!({"op": "long", "background": true, "ready": "started"}),
    );
    let id = started["result"]["structuredContent"]["job"]
        .as_str()
        .expect("a job id")
        .to_owned();
    wait_for_process(&format!("sleep {secs}"));
    let (stopped, _) = server.call(2, "recipe_stop", json!({"job": id}));
    let run = &stopped["result"]["structuredContent"];
    assert_eq!(
        (&run["state"], &run["stopped"], &run["timed_out"]),
        (&json!("stopped"), &json!(true), &json!(false)),
        "{stopped}"
    );
    let text = stopped["result"]["content"]
        .as_array()
        .expect("content")
        .iter()
        .map(|c| c["text"].as_str().expect("text"))
        .collect::<Vec<_>>()
        .join("\n");
    // make may or may not get to say its recipe was terminated.
    assert!(
        text.starts_with(&format!("{id} `long`: stopped\nstarted\n"))
            && text.ends_with("\n\nCommand was stopped on request\n"),
        "{text}"
    );
    assert_eq!(stopped["result"]["isError"], false, "{stopped}");
    let (jobs, _) = server.call(3, "recipe_jobs", json!({}));
    assert_eq!(
        jobs["result"]["structuredContent"]["jobs"][0]["state"],
        "stopped"
    );
    assert!(support::processes_with(&format!("sleep {secs}")).is_empty());
    assert_eq!(server.close(), Some(0));
}

#[test]
fn a_job_past_its_deadline_stays_timed_out_when_stopped_later() {
    let dir = project("long:\n\t@sleep 60\n");
    let root = root(&dir);
    std::fs::write(root.join("speccoder.toml"), "[mcp]\njob_timeout_secs = 1\n").expect("config");
    let mut server = Raw::start(&root);
    let (started, _) = server.call(1, "recipe", json!({"op": "long", "background": true}));
    let id = started["result"]["structuredContent"]["job"]
        .as_str()
        .expect("a job id")
        .to_owned();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (jobs, _) = server.call(2, "recipe_jobs", json!({}));
        if jobs["result"]["structuredContent"]["jobs"][0]["state"] != "running" {
            break;
        }
        assert!(Instant::now() < deadline, "never ended: {jobs}");
        std::thread::sleep(Duration::from_millis(100));
    }
    let (stopped, _) = server.call(3, "recipe_stop", json!({"job": id}));
    let run = &stopped["result"]["structuredContent"];
    assert_eq!(
        (&run["state"], &run["stopped"], &run["timed_out"]),
        (&json!("timed_out"), &json!(false), &json!(true)),
        "{stopped}"
    );
    let (jobs, _) = server.call(4, "recipe_jobs", json!({}));
    assert_eq!(
        jobs["result"]["structuredContent"]["jobs"][0]["state"],
        "timed_out"
    );
    assert_eq!(server.close(), Some(0));
}

/// How a test ends a server.
#[derive(Debug, Clone, Copy)]
enum Ending {
    /// Its stdin closes.
    InputClosed,
    /// Its client stops reading: a write fails while stdin stays open, so the thread
    /// reading stdin never ends.
    OutputClosed,
    /// SIGTERM, which its signal thread sees.
    Term,
    /// SIGKILL, which nothing of it sees: its reaper is left to tidy up.
    Kill,
}

/// The `speccoder-jobs-*` folders in `tmp`.
fn jobs_folders(tmp: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(tmp)
        .expect("the temporary folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("speccoder-jobs-"))
        })
        .collect()
}

#[test]
fn the_jobs_folder_goes_with_the_server_however_it_ends() {
    let endings = [
        Ending::InputClosed,
        Ending::OutputClosed,
        Ending::Term,
        Ending::Kill,
    ];
    for (n, ending) in endings.into_iter().enumerate() {
        let secs = 5000 + std::process::id() % 200 + n as u32 * 200;
        let dir = project(&format!("long:\n\t@echo started; sleep {secs}\n"));
        // A temporary folder of its own, so that only this server's folders are in it.
        let tmp = tempfile::tempdir().expect("tmp");
        let mut server = Raw::start_with(&root(&dir), |c| {
            c.env("TMPDIR", tmp.path());
        });
        let (started, _) = server.call(
            1,
            "recipe",
            json!({"op": "long", "background": true, "ready": "started"}),
        );
        assert_eq!(
            started["result"]["structuredContent"]["ready"], true,
            "{started}"
        );
        let folders = jobs_folders(tmp.path());
        assert_eq!(folders.len(), 1, "{ending:?}: {folders:?}");
        assert!(
            folders[0].join("job-1.out").is_file(),
            "{ending:?}: the job's output is kept there"
        );
        match ending {
            Ending::InputClosed => assert_eq!(server.close(), Some(0)),
            Ending::OutputClosed => {
                // With a progress token, the server writes every second while the call runs.
                server.send(br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"recipe","arguments":{"op":"long"},"_meta":{"progressToken":"p"}}}"#);
                drop(server.stdout.take());
                let (code, _) = server.exits_within(EXIT_BOUND + Duration::from_secs(1));
                assert_eq!(code, Some(0));
            }
            Ending::Term | Ending::Kill => {
                let signal = if matches!(ending, Ending::Term) {
                    "-TERM"
                } else {
                    "-KILL"
                };
                let sent = Command::new("kill")
                    .args([signal, &server.child.id().to_string()])
                    .status()
                    .expect("kill");
                assert!(sent.success());
                let _ = server.child.wait();
            }
        }
        let ended = Instant::now();
        while !jobs_folders(tmp.path()).is_empty() {
            assert!(
                ended.elapsed() < Duration::from_secs(5),
                "{ending:?}: the jobs folder outlived the server: {:?}",
                jobs_folders(tmp.path())
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(
            support::processes_with(&format!("sleep {secs}")).is_empty(),
            "{ending:?}"
        );
    }
}

/// Where the state folder cannot be made, and how the test's environment says so.
#[derive(Debug, Clone, Copy)]
enum Unusable {
    /// `HOME` is a folder no one may write (a sandbox's read-only home); root writes
    /// anyway, so this case is skipped for root.
    ReadOnlyHome,
    /// `HOME` is a regular file: nothing can be made under it, root or not.
    HomeIsAFile,
    /// `XDG_STATE_HOME` is a path under a regular file.
    StateUnderAFile,
}

#[test]
fn a_state_folder_that_cannot_be_made_sends_full_outputs_to_the_temp_folder() {
    use std::os::unix::fs::PermissionsExt;
    let dir = project("big:\n\t@seq 1 100000\n");
    let root = root(&dir);
    std::fs::write(
        root.join("speccoder.toml"),
        "[recipe]\noutput_head_bytes = 100\noutput_tail_bytes = 50\n",
    )
    .expect("config");
    let full: String = (1..=100_000).map(|i| format!("{i}\n")).collect();
    let uid = rustix::process::geteuid().as_raw();
    for unusable in [
        Unusable::ReadOnlyHome,
        Unusable::HomeIsAFile,
        Unusable::StateUnderAFile,
    ] {
        if matches!(unusable, Unusable::ReadOnlyHome) && rustix::process::geteuid().is_root() {
            continue;
        }
        let tmp = tempfile::tempdir().expect("tmp");
        let place = tempfile::tempdir().expect("home");
        let file = place.path().join("file");
        std::fs::write(&file, "not a folder").expect("file");
        let home = place.path().join("home");
        std::fs::create_dir(&home).expect("home");
        std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o555)).expect("chmod");
        // The environment Codex gives an MCP server: no XDG_STATE_HOME of the test's.
        let (home, state, base) = match unusable {
            Unusable::ReadOnlyHome => (home.clone(), None, home.join(".local/state")),
            Unusable::HomeIsAFile => (file.clone(), None, file.join(".local/state")),
            Unusable::StateUnderAFile => {
                (home.clone(), Some(file.join("state")), file.join("state"))
            }
        };
        let why = match unusable {
            Unusable::ReadOnlyHome => "Permission denied (os error 13)",
            Unusable::HomeIsAFile | Unusable::StateUnderAFile => "Not a directory (os error 20)",
        };
        let why = format!("{}: {why}", base.display());
        let note = format!(
            "The full output is in the temporary folder instead of the state folder, which \
             could not be used: {why}."
        );
        let env = |c: &mut Command| {
            c.env("TMPDIR", tmp.path()).env("HOME", &home);
            match &state {
                Some(state) => c.env("XDG_STATE_HOME", state),
                None => c.env_remove("XDG_STATE_HOME"),
            };
        };
        let kept = tmp.path().join(format!("speccoder-outputs-{uid}"));
        let check = |how: &str, run: &Value, note: &str| {
            assert_eq!(run["exit_code"], 0, "{how} {unusable:?}: {run}");
            assert_eq!(run["note"], note, "{how} {unusable:?}");
            let path = run["full_output"].as_str().expect("a kept output");
            assert!(
                Path::new(path).starts_with(&kept),
                "{how} {unusable:?}: {path} is not in {}",
                kept.display()
            );
            assert_eq!(
                std::fs::read_to_string(path).expect("the full output"),
                full,
                "{how} {unusable:?}"
            );
        };

        let mut cli = Command::new(env!("CARGO_BIN_EXE_speccoder"));
        cli.arg("-C")
            .arg(&root)
            .args(["recipe", "run", "--json", "--timeout", "5000", "big"])
            .env("PATH", support::path_var())
            .env("SPECCODER_CACHE_DIR", support::test_cache_dir());
        env(&mut cli);
        let out = cli.output().expect("speccoder starts");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{unusable:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        // Both notes, when both apply.
        check(
            "recipe run",
            &serde_json::from_slice(&out.stdout).expect("json"),
            &format!("Timeout clamped to 3600s (requested 5000s; allowed range 1-3600s). {note}"),
        );

        let mut server = Raw::start_with(&root, env);
        let (answer, _) = server.call(1, "recipe", json!({"op": "big"}));
        assert_eq!(answer["result"]["isError"], false, "{unusable:?}: {answer}");
        check("mcp", &answer["result"]["structuredContent"], &note);
        let text = answer["result"]["content"][0]["text"]
            .as_str()
            .expect("text");
        assert!(
            text.ends_with(&format!("\n\n{note}\n")),
            "{unusable:?}: {text}"
        );
        assert_eq!(server.close(), Some(0));
        // The home was left as it was.
        assert!(!place.path().join("home/.local").exists(), "{unusable:?}");
    }
}
