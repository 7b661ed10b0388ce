//! A scripted stand-in model on 127.0.0.1 for driving the real Claude Code and Codex CLIs.
//!
//! The server speaks the Anthropic Messages API (`POST /v1/messages`, Claude Code) and the
//! OpenAI Responses API (`POST /v1/responses`, Codex), answering with server-sent events
//! when the client asks for a stream (both CLIs always do). Each request of the agent's main
//! conversation (one that offers `tools`) consumes one [`Step`] of the script; any other
//! request (a side request without tools, `count_tokens`, a model list, Claude's
//! `HEAD /api/hello`) gets a short harmless answer and consumes nothing. Once the script has
//! run out every main request is answered with the final text [`EXHAUSTED`], so the CLI ends
//! rather than hangs. Every request is logged, so a test can assert on what the CLI sent back
//! to the model: both CLIs send the whole conversation each time, so the last request holds
//! every tool result ([`ScriptedModel::tool_results`]).
//!
//! Claude Code (2.1.332):
//!
//! ```ignore
//! let model = ScriptedModel::start(vec![
//!     Step::write("/abs/dir/a.txt", "hello\n"),      // Write {file_path, content}
//!     Step::edit("/abs/dir/a.txt", "hello", "bye"),   // Edit {file_path, old_string, new_string}
//!     Step::shell("cat a.txt"),                      // Bash {command, description, timeout}
//!     Step::mcp("speccoder", "recipe", json!({})),   // tool_use `mcp__speccoder__recipe`
//!     Step::text("done"),                            // the `result` of --output-format json
//! ]);
//! Command::new("claude")
//!     .args(["-p", "--output-format", "json", "--permission-mode", "acceptEdits"])
//!     .args(["--settings", settings_file])  // {"permissions":{"allow":["Bash","mcp__speccoder"]}}
//!     .envs(model.claude_env())             // ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY, ...
//!     .env("HOME", private_home);
//! assert!(model.tool_results().iter().any(|r| r.contains("bye")));
//! ```
//!
//! Codex (0.171.0):
//!
//! ```ignore
//! let model = ScriptedModel::start(vec![
//!     Step::shell("ls"),                        // exec_command {cmd, yield_time_ms: 30000}
//!     Step::poll(),                             // write_stdin to a command still running
//!     Step::write("a.txt", "hello\n"),          // apply_patch through exec_command
//!     Step::mcp("speccoder", "recipe", json!({})), // function `recipe`, namespace `mcp__speccoder`
//!     Step::text("done"),                       // the file of `codex exec -o FILE`
//! ]);
//! model.write_codex_config(&codex_home)?;
//! Command::new("codex")
//!     .args(["exec", "--sandbox", "danger-full-access", "--skip-git-repo-check", "-C", dir])
//!     .args(["-o", last_message_file, "-"])
//!     .args(["-c", "mcp_servers.speccoder.default_tools_approval_mode=\"approve\""])
//!     .env("CODEX_HOME", codex_home)
//!     .envs(model.codex_env());             // SCRIPTED_KEY=scripted
//! ```

use std::collections::VecDeque;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::{Map, Value, json};

/// The text answered once the script has run out, so that the CLI ends instead of hanging.
pub const EXHAUSTED: &str = "script exhausted";

/// The text answered to a side request (a title, a summary, a topic check).
pub const SIDE_ANSWER: &str = "ok";

/// The model name reported in responses when the request named none.
const DEFAULT_MODEL: &str = "scripted-model";

/// Largest request head (request line and headers) accepted, in bytes.
const MAX_HEAD: usize = 64 * 1024;

/// Largest request body accepted, in bytes.
const MAX_BODY: usize = 64 * 1024 * 1024;

/// One scripted turn of the model: what it answers to one main-conversation request.
///
/// [`Step::Tool`] and [`Step::Text`] are answered as they are; the other variants are
/// written once for both CLIs and turned into the right tool call for the API that asked.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Call a tool by the exact name the CLI gave it, with this input (Claude: a `tool_use`
    /// block; Codex: a `function_call` item whose arguments are this input as JSON text, or a
    /// `custom_tool_call` item when the tool is a freeform one and the input is a string).
    Tool {
        /// The tool's name as the CLI listed it in the request's `tools`.
        name: String,
        /// The tool's input.
        input: Value,
    },
    /// Give the final answer and end the turn.
    Text(String),
    /// Run a shell command (Claude: `Bash` with `command`; Codex: `exec_command` with `cmd`).
    Shell(String),
    /// Create or overwrite a file (Claude: `Write`; Codex: an `apply_patch` "Add File").
    Write {
        /// The file's path; Claude requires an absolute one.
        path: String,
        /// The new content; Codex's `apply_patch` always ends the file with a newline.
        content: String,
    },
    /// Replace text in a file (Claude: `Edit`; Codex: an `apply_patch` "Update File").
    ///
    /// For Codex `old` must be whole lines of the file and `new` their replacement.
    Edit {
        /// The file's path; Claude requires an absolute one.
        path: String,
        /// The text to replace; it must occur exactly once.
        old: String,
        /// The replacement.
        new: String,
    },
    /// Call a tool of an MCP server (Claude: the tool `mcp__<server>__<tool>`; Codex: the
    /// function `<tool>` with `namespace: "mcp__<server>"`, or whatever name the request's
    /// `tools` lists for that server and tool).
    Mcp {
        /// The MCP server's name in the CLI's configuration.
        server: String,
        /// The tool's name as the server lists it.
        tool: String,
        /// The tool's arguments.
        args: Value,
    },
    /// Wait for a shell command that is still running (Codex only).
    ///
    /// Codex returns from a shell call after at most 30 s, leaving a long command running in
    /// a session; this step then polls that session with `write_stdin` (empty input, up to
    /// 300 s). When the last tool result shows no running session, and always for Claude
    /// (whose `Bash` waits for the command, up to the 600 s timeout this server asks for),
    /// the step is skipped and the next one answers instead.
    Poll,
}

impl Step {
    /// A call of the tool `name` with `input`, passed through unchanged.
    pub fn tool(name: impl Into<String>, input: Value) -> Step {
        Step::Tool {
            name: name.into(),
            input,
        }
    }

    /// The final answer `text`.
    pub fn text(text: impl Into<String>) -> Step {
        Step::Text(text.into())
    }

    /// A shell command, for either CLI.
    pub fn shell(command: impl Into<String>) -> Step {
        Step::Shell(command.into())
    }

    /// Writing `content` to the file at `path`, for either CLI.
    pub fn write(path: impl Into<String>, content: impl Into<String>) -> Step {
        Step::Write {
            path: path.into(),
            content: content.into(),
        }
    }

    /// Replacing `old` by `new` in the file at `path`, for either CLI.
    pub fn edit(path: impl Into<String>, old: impl Into<String>, new: impl Into<String>) -> Step {
        Step::Edit {
            path: path.into(),
            old: old.into(),
            new: new.into(),
        }
    }

    /// A call of the tool `tool` of the MCP server `server` with `args`, for either CLI.
    pub fn mcp(server: impl Into<String>, tool: impl Into<String>, args: Value) -> Step {
        Step::Mcp {
            server: server.into(),
            tool: tool.into(),
            args,
        }
    }

    /// Waiting for a still running shell command (see [`Step::Poll`]).
    pub fn poll() -> Step {
        Step::Poll
    }
}

/// Which of the two APIs a request used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Api {
    /// The Anthropic Messages API (`/v1/messages`), as Claude Code speaks it.
    Anthropic,
    /// The OpenAI Responses API (`/v1/responses`), as Codex speaks it.
    Responses,
}

/// What the server keeps between connections.
#[derive(Debug)]
struct Shared {
    /// The steps not yet consumed.
    script: Mutex<VecDeque<Step>>,
    /// Every request, in arrival order, as a JSON record.
    log: Mutex<Vec<Value>>,
    /// The source of unique ids.
    next_id: AtomicU64,
    /// Set when the server is being torn down.
    stop: AtomicBool,
    /// A handle on each open connection, by a number of its own, to shut it down on drop.
    connections: Mutex<Vec<(u64, TcpStream)>>,
    /// The connection threads, joined on drop.
    threads: Mutex<Vec<JoinHandle<()>>>,
}

impl Shared {
    /// A fresh id with `prefix`, unique within this server.
    fn id(&self, prefix: &str) -> String {
        let n = self.next_id.fetch_add(1, Ordering::Relaxed);
        format!("{prefix}_{n:06}")
    }
}

/// Locks `mutex`, carrying on with the data if a panicking thread poisoned it.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A scripted model serving on 127.0.0.1 until dropped.
#[derive(Debug)]
pub struct ScriptedModel {
    /// The address it listens on.
    addr: SocketAddr,
    /// The state shared with the serving threads.
    shared: Arc<Shared>,
    /// The thread accepting connections.
    acceptor: Option<JoinHandle<()>>,
}

impl ScriptedModel {
    /// Starts serving `script` on 127.0.0.1 at a free port.
    ///
    /// Panics if no port can be bound, which in a test is the right outcome.
    pub fn start(script: Vec<Step>) -> ScriptedModel {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        let addr = listener
            .local_addr()
            .expect("local address of the listener");
        let shared = Arc::new(Shared {
            script: Mutex::new(script.into()),
            log: Mutex::new(Vec::new()),
            next_id: AtomicU64::new(1),
            stop: AtomicBool::new(false),
            connections: Mutex::new(Vec::new()),
            threads: Mutex::new(Vec::new()),
        });
        let accepting = Arc::clone(&shared);
        let acceptor = std::thread::Builder::new()
            .name("scripted-model".into())
            .spawn(move || accept_loop(&listener, &accepting))
            .expect("spawn the scripted model's thread");
        ScriptedModel {
            addr,
            shared,
            acceptor: Some(acceptor),
        }
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// Its base URL without a path, e.g. `http://127.0.0.1:40123`: Claude's
    /// `ANTHROPIC_BASE_URL`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Its base URL for the Responses API, e.g. `http://127.0.0.1:40123/v1`: the `base_url`
    /// of a Codex model provider.
    pub fn openai_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// The environment Claude Code needs to talk to this model: `ANTHROPIC_BASE_URL`,
    /// `ANTHROPIC_API_KEY` (any value), `CLAUDE_CODE_MAX_RETRIES=0`, and the variables that
    /// stop its other traffic (without them it sends `HEAD /api/hello` here and looks up
    /// outside hosts).
    pub fn claude_env(&self) -> Vec<(String, String)> {
        [
            ("ANTHROPIC_BASE_URL", self.url()),
            ("ANTHROPIC_API_KEY", "scripted".to_string()),
            ("CLAUDE_CODE_MAX_RETRIES", "0".to_string()),
            ("DISABLE_AUTOUPDATER", "1".to_string()),
            ("DISABLE_TELEMETRY", "1".to_string()),
            ("DISABLE_ERROR_REPORTING", "1".to_string()),
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }

    /// The environment variable Codex reads the provider's key from (see [`Self::codex_config`]).
    pub const CODEX_KEY_VAR: &'static str = "SCRIPTED_KEY";

    /// A `config.toml` for a private `CODEX_HOME` that points Codex at this model, with its
    /// network side work turned off (without `features.plugins = false` it looks up outside
    /// hosts to sync plugins). The variable [`Self::CODEX_KEY_VAR`] must be set (to anything)
    /// in Codex's environment.
    ///
    /// The model name, unknown to Codex, makes it warn "Model metadata ... not found" and
    /// offer MCP tools up front, as namespace tools; a known name (`-m gpt-5.5`) defers them
    /// behind `tool_search` and offers a freeform `apply_patch` tool, which [`Step`] handles
    /// too.
    pub fn codex_config(&self) -> String {
        format!(
            r#"model = "scripted-model"
model_provider = "scripted"
check_for_update_on_startup = false

[model_providers.scripted]
name = "scripted"
base_url = "{url}"
wire_api = "responses"
env_key = "{key}"
request_max_retries = 0
stream_max_retries = 0
stream_idle_timeout_ms = 60000

[features]
plugins = false
remote_plugin = false
apps = false
enable_request_compression = false

[analytics]
enabled = false

[feedback]
enabled = false

[otel]
exporter = "none"
"#,
            url = self.openai_url(),
            key = Self::CODEX_KEY_VAR,
        )
    }

    /// Writes [`Self::codex_config`] to `codex_home/config.toml`, creating `codex_home`.
    pub fn write_codex_config(&self, codex_home: &std::path::Path) -> io::Result<()> {
        std::fs::create_dir_all(codex_home)?;
        std::fs::write(codex_home.join("config.toml"), self.codex_config())
    }

    /// The environment Codex needs besides `CODEX_HOME`: the provider's key variable.
    pub fn codex_env(&self) -> Vec<(String, String)> {
        vec![(Self::CODEX_KEY_VAR.to_string(), "scripted".to_string())]
    }

    /// How many steps are still to be consumed.
    pub fn remaining(&self) -> usize {
        lock(&self.shared.script).len()
    }

    /// The JSON bodies of the main-conversation requests, in arrival order.
    pub fn requests(&self) -> Vec<Value> {
        lock(&self.shared.log)
            .iter()
            .filter(|r| r["main"] == Value::Bool(true))
            .map(|r| r["body"].clone())
            .collect()
    }

    /// Every request, in arrival order, as a record with `method`, `path`, `headers` (an
    /// object of lower-cased names), `body` (the parsed JSON, or the text when it is not
    /// JSON), `main` (whether it consumed a step) and `api` (`"anthropic"`, `"responses"` or
    /// null).
    pub fn all_requests(&self) -> Vec<Value> {
        lock(&self.shared.log).clone()
    }

    /// The last main-conversation request's body, or null before the first.
    pub fn last_request(&self) -> Value {
        self.requests().pop().unwrap_or(Value::Null)
    }

    /// The `tools` array of the first main-conversation request, or empty before the first.
    pub fn first_tools(&self) -> Vec<Value> {
        self.requests()
            .first()
            .and_then(|body| body.get("tools"))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    }

    /// The tool called `name` in the first main-conversation request, if offered.
    ///
    /// Claude lists each tool by its full name (`mcp__x__echo`); Codex groups an MCP server's
    /// tools in a `namespace` tool (`mcp__x`, holding a function `echo`), which this finds by
    /// the joined name `mcp__x__echo` too.
    pub fn first_tool(&self, name: &str) -> Option<Value> {
        find_tool(&self.first_tools(), name).cloned()
    }

    /// The text of every tool result in the last main-conversation request, in order.
    ///
    /// Claude: the `tool_result` blocks of user messages (a string content as it is, a list
    /// of blocks, as MCP results come, as their texts joined by newlines). Codex: the
    /// `output` of every `*_call_output` item: `function_call_output` for shell commands and
    /// MCP calls (an MCP result is a list of `input_text` items, here joined by newlines:
    /// `"Wall time: 0.0034 seconds\nOutput:\necho: pong"`), `custom_tool_call_output` for
    /// the freeform `apply_patch` tool. Results carry the CLI's own framing (Codex's
    /// "Chunk ID ... Output:", a `<system-reminder>` Claude may append), so match with
    /// `contains`.
    pub fn tool_results(&self) -> Vec<String> {
        tool_results_of(&self.last_request())
    }
}

impl Drop for ScriptedModel {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        // Wake the acceptor, which then sees the stop flag; should that fail, leave it be
        // rather than hang.
        let woken = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1)).is_ok();
        for (_, connection) in lock(&self.shared.connections).drain(..) {
            let _ = connection.shutdown(Shutdown::Both);
        }
        if let Some(acceptor) = self.acceptor.take()
            && woken
        {
            let _ = acceptor.join();
        }
        let threads: Vec<_> = lock(&self.shared.threads).drain(..).collect();
        for thread in threads {
            let _ = thread.join();
        }
    }
}

/// The tool called `name` in `tools`, looking inside namespace tools under the name
/// `<namespace>__<member>` too.
pub fn find_tool<'a>(tools: &'a [Value], name: &str) -> Option<&'a Value> {
    tools.iter().find_map(|tool| {
        let own = tool.get("name").and_then(Value::as_str).unwrap_or_default();
        if own == name {
            return Some(tool);
        }
        let member = name.strip_prefix(own)?.strip_prefix("__")?;
        tool.get("tools")?
            .as_array()?
            .iter()
            .find(|inner| inner.get("name").and_then(Value::as_str) == Some(member))
    })
}

/// The text of every tool result in one request body of either API (see
/// [`ScriptedModel::tool_results`]).
pub fn tool_results_of(body: &Value) -> Vec<String> {
    let mut results = Vec::new();
    if let Some(messages) = body.get("messages").and_then(Value::as_array) {
        for message in messages {
            let Some(blocks) = message.get("content").and_then(Value::as_array) else {
                continue;
            };
            for block in blocks {
                if block["type"] == "tool_result" {
                    results.push(content_text(&block["content"]));
                }
            }
        }
    }
    if let Some(items) = body.get("input").and_then(Value::as_array) {
        for item in items {
            let kind = item["type"].as_str().unwrap_or_default();
            if kind.ends_with("_call_output") {
                results.push(content_text(&item["output"]));
            }
        }
    }
    results
}

/// The text of a tool result's content: a string as it is, a list of blocks as the text of
/// each joined by newlines, an object with `content` or `text` by those, anything else as JSON.
fn content_text(content: &Value) -> String {
    match content {
        Value::Null => String::new(),
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .map(content_text)
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Object(map) => {
            if let Some(text) = map.get("text").and_then(Value::as_str) {
                text.to_string()
            } else if let Some(inner) = map.get("content") {
                content_text(inner)
            } else if let Some(inner) = map.get("output") {
                content_text(inner)
            } else {
                content.to_string()
            }
        }
        other => other.to_string(),
    }
}

/// Accepts connections until the stop flag is set, serving each on its own thread.
fn accept_loop(listener: &TcpListener, shared: &Arc<Shared>) {
    for stream in listener.incoming() {
        if shared.stop.load(Ordering::SeqCst) {
            break;
        }
        let Ok(stream) = stream else { continue };
        let number = shared.next_id.fetch_add(1, Ordering::Relaxed);
        if let Ok(handle) = stream.try_clone() {
            lock(&shared.connections).push((number, handle));
        }
        let serving = Arc::clone(shared);
        let spawned = std::thread::Builder::new()
            .name("scripted-model-conn".into())
            .spawn(move || {
                let _ = serve_connection(&stream, &serving);
                // Close for real: the clone kept for drop would otherwise hold it open.
                let _ = stream.shutdown(Shutdown::Both);
                lock(&serving.connections).retain(|(n, _)| *n != number);
            });
        if let Ok(handle) = spawned {
            let mut threads = lock(&shared.threads);
            threads.retain(|t| !t.is_finished());
            threads.push(handle);
        }
    }
}

/// One parsed HTTP request.
#[derive(Debug)]
struct Request {
    /// The method, e.g. `POST`.
    method: String,
    /// The target without its query string.
    path: String,
    /// The headers, names lower-cased.
    headers: Vec<(String, String)>,
    /// The body, de-chunked.
    body: Vec<u8>,
}

impl Request {
    /// The value of header `name` (lower case), if present.
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// One HTTP response.
#[derive(Debug)]
struct Response {
    /// The status code.
    status: u16,
    /// The content type.
    content_type: &'static str,
    /// The body.
    body: Vec<u8>,
}

impl Response {
    /// A JSON response with status 200.
    fn json(value: &Value) -> Response {
        Response {
            status: 200,
            content_type: "application/json",
            body: value.to_string().into_bytes(),
        }
    }

    /// A JSON error response.
    fn error(status: u16, message: &str) -> Response {
        Response {
            status,
            content_type: "application/json",
            body:
                json!({"type": "error", "error": {"type": "not_found_error", "message": message}})
                    .to_string()
                    .into_bytes(),
        }
    }

    /// A stream of server-sent events, each `(event name, data)`.
    fn sse(events: &[(String, Value)]) -> Response {
        let mut body = String::new();
        for (event, data) in events {
            body.push_str("event: ");
            body.push_str(event);
            body.push_str("\ndata: ");
            body.push_str(&data.to_string());
            body.push_str("\n\n");
        }
        Response {
            status: 200,
            content_type: "text/event-stream",
            body: body.into_bytes(),
        }
    }
}

/// Serves requests on one keep-alive connection until the client closes it.
fn serve_connection(stream: &TcpStream, shared: &Shared) -> io::Result<()> {
    let mut writer = stream.try_clone()?;
    let mut reader = BufReader::new(stream.try_clone()?);
    loop {
        if shared.stop.load(Ordering::SeqCst) {
            return Ok(());
        }
        let Some(request) = read_request(&mut reader, &mut writer)? else {
            return Ok(());
        };
        let close = request
            .header("connection")
            .is_some_and(|v| v.eq_ignore_ascii_case("close"));
        let response = handle(&request, shared);
        write_response(&mut writer, &request, &response, close)?;
        if close {
            return Ok(());
        }
    }
}

/// Reads one request, or `None` when the client closed the connection between requests.
fn read_request(
    reader: &mut BufReader<TcpStream>,
    writer: &mut TcpStream,
) -> io::Result<Option<Request>> {
    let mut line = String::new();
    // Skip blank lines between requests, as HTTP/1.1 allows.
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        if !line.trim().is_empty() {
            break;
        }
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_string();
    let target = parts.next().unwrap_or_default();
    let path = target.split('?').next().unwrap_or_default().to_string();
    let mut headers = Vec::new();
    let mut head_size = line.len();
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "connection closed inside a request head",
            ));
        }
        head_size += line.len();
        if head_size > MAX_HEAD {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "request head too large",
            ));
        }
        let trimmed = line.trim_end_matches(['\r', '\n']);
        if trimmed.is_empty() {
            break;
        }
        if let Some((name, value)) = trimmed.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
        }
    }
    let mut request = Request {
        method,
        path,
        headers,
        body: Vec::new(),
    };
    if request
        .header("expect")
        .is_some_and(|v| v.eq_ignore_ascii_case("100-continue"))
    {
        writer.write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
        writer.flush()?;
    }
    let chunked = request
        .header("transfer-encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
    if chunked {
        request.body = read_chunked(reader)?;
    } else if let Some(length) = request.header("content-length") {
        let length: usize = length
            .parse()
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "bad Content-Length"))?;
        if length > MAX_BODY {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "request body too large",
            ));
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body)?;
        request.body = body;
    }
    Ok(Some(request))
}

/// Reads a chunked body up to and including its trailers.
fn read_chunked(reader: &mut BufReader<TcpStream>) -> io::Result<Vec<u8>> {
    let mut body = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "closed inside a chunk",
            ));
        }
        let size_text = line.trim().split(';').next().unwrap_or_default();
        let size = usize::from_str_radix(size_text, 16)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "bad chunk size"))?;
        if size == 0 {
            // Trailers, up to an empty line.
            loop {
                line.clear();
                if reader.read_line(&mut line)? == 0 || line.trim().is_empty() {
                    return Ok(body);
                }
            }
        }
        if body.len() + size > MAX_BODY {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "request body too large",
            ));
        }
        let start = body.len();
        body.resize(start + size, 0);
        reader.read_exact(&mut body[start..])?;
        let mut crlf = [0; 2];
        reader.read_exact(&mut crlf)?;
    }
}

/// Writes `response`, keeping the connection open unless `close`.
fn write_response(
    writer: &mut TcpStream,
    request: &Request,
    response: &Response,
    close: bool,
) -> io::Result<()> {
    let reason = match response.status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        _ => "Error",
    };
    let head = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nCache-Control: no-cache\r\nConnection: {}\r\n\r\n",
        response.status,
        reason,
        response.content_type,
        response.body.len(),
        if close { "close" } else { "keep-alive" },
    );
    writer.write_all(head.as_bytes())?;
    if request.method != "HEAD" {
        writer.write_all(&response.body)?;
    }
    writer.flush()
}

/// Logs `request` and builds its answer.
fn handle(request: &Request, shared: &Shared) -> Response {
    let text = String::from_utf8_lossy(&request.body).into_owned();
    let body: Value = if text.trim().is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).unwrap_or(Value::String(text))
    };
    let path = request.path.trim_end_matches('/');
    let api = match (request.method.as_str(), path) {
        ("POST", "/v1/messages") => Some(Api::Anthropic),
        ("POST", "/v1/responses") => Some(Api::Responses),
        _ => None,
    };
    let main = api.is_some_and(|api| is_main(api, &body));
    let headers: Map<String, Value> = request
        .headers
        .iter()
        .map(|(n, v)| (n.clone(), Value::String(v.clone())))
        .collect();
    lock(&shared.log).push(json!({
        "method": request.method,
        "path": request.path,
        "headers": headers,
        "body": body,
        "main": main,
        "api": match api {
            Some(Api::Anthropic) => json!("anthropic"),
            Some(Api::Responses) => json!("responses"),
            None => Value::Null,
        },
    }));
    match api {
        Some(api) => {
            let step = if main {
                next_step(shared, api, &body)
            } else {
                Step::Text(SIDE_ANSWER.into())
            };
            match api {
                Api::Anthropic => anthropic_answer(&step, &body, shared),
                Api::Responses => responses_answer(&step, &body, shared),
            }
        }
        None => other_endpoint(request, path, &body),
    }
}

/// The next step of the script for a main request of `api` with `body`, skipping
/// [`Step::Poll`] where there is nothing to wait for.
fn next_step(shared: &Shared, api: Api, body: &Value) -> Step {
    let mut script = lock(&shared.script);
    loop {
        match script.pop_front() {
            None => return Step::Text(EXHAUSTED.into()),
            Some(Step::Poll) => {
                if api == Api::Responses
                    && let Some(session) = running_session(body)
                {
                    return Step::Tool {
                        name: "write_stdin".into(),
                        input: json!({"session_id": session, "chars": "", "yield_time_ms": 300_000}),
                    };
                }
            }
            Some(step) => return with_cwd(step, body),
        }
    }
}

/// The placeholder a step's paths and inputs may hold for the agent's working directory,
/// which a test does not know in advance (an attempt's tree is a private temporary
/// folder): each CLI says it in its request.
pub const CWD: &str = "{cwd}";

/// `step` with [`CWD`] replaced by the working directory the request names: Claude's
/// "Primary working directory: …" line, Codex's `<cwd>…</cwd>`. Left as it is when the
/// request names none.
fn with_cwd(step: Step, body: &Value) -> Step {
    let text = body.to_string();
    let found = text
        .split_once("Primary working directory: ")
        .and_then(|(_, rest)| rest.split(['\\', '"']).next())
        .or_else(|| {
            text.split_once("<cwd>")
                .and_then(|(_, rest)| rest.split_once("</cwd>"))
                .map(|(cwd, _)| cwd)
        })
        .map(str::trim);
    let Some(cwd) = found.filter(|c| !c.is_empty()) else {
        return step;
    };
    let fill = |s: String| s.replace(CWD, cwd);
    match step {
        Step::Tool { name, input } => Step::Tool {
            name,
            input: fill_value(input, &fill),
        },
        Step::Write { path, content } => Step::Write {
            path: fill(path),
            content,
        },
        Step::Edit { path, old, new } => Step::Edit {
            path: fill(path),
            old,
            new,
        },
        Step::Shell(command) => Step::Shell(fill(command)),
        other => other,
    }
}

/// `value` with every string passed through `fill`.
fn fill_value(value: Value, fill: &dyn Fn(String) -> String) -> Value {
    match value {
        Value::String(s) => Value::String(fill(s)),
        Value::Array(items) => {
            Value::Array(items.into_iter().map(|v| fill_value(v, fill)).collect())
        }
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| (k, fill_value(v, fill)))
                .collect(),
        ),
        other => other,
    }
}

/// The id of the exec session Codex's last tool result says is still running, if any.
fn running_session(body: &Value) -> Option<u64> {
    let items = body.get("input")?.as_array()?;
    let last = items
        .iter()
        .rev()
        .find(|item| item["type"] == "function_call_output")?;
    let text = content_text(&last["output"]);
    let marker = "Process running with session ID ";
    let start = text.find(marker)? + marker.len();
    let digits: String = text[start..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// Whether a request of `api` belongs to the agent's main conversation: it offers tools and
/// does not forbid calling them.
///
/// Neither CLI sent a side request in `-p` / `exec` runs; Claude Code's side requests
/// (titles, summaries, memory extraction) are made without tools.
fn is_main(api: Api, body: &Value) -> bool {
    let has_tools = body
        .get("tools")
        .and_then(Value::as_array)
        .is_some_and(|tools| !tools.is_empty());
    let choice = body.get("tool_choice");
    let forbidden = match api {
        Api::Anthropic => {
            choice.and_then(|c| c.get("type")).and_then(Value::as_str) == Some("none")
        }
        Api::Responses => choice.and_then(Value::as_str) == Some("none"),
    };
    has_tools && !forbidden
}

/// A harmless answer to an endpoint that is not a model turn.
fn other_endpoint(request: &Request, path: &str, body: &Value) -> Response {
    match (request.method.as_str(), path) {
        ("POST", "/v1/messages/count_tokens") => {
            let size = body.to_string().len() / 4;
            Response::json(&json!({"input_tokens": size.max(1)}))
        }
        ("GET", "/v1/models") => Response::json(&json!({
            "object": "list",
            "data": [{"id": DEFAULT_MODEL, "object": "model", "created": 0, "owned_by": "scripted",
                      "type": "model", "display_name": DEFAULT_MODEL}],
            "models": [],
            "has_more": false,
            "first_id": DEFAULT_MODEL,
            "last_id": DEFAULT_MODEL,
        })),
        ("HEAD", _) | ("GET", "" | "/" | "/api/hello") => Response::json(&json!({})),
        _ => Response::error(404, "the scripted model does not serve this endpoint"),
    }
}

/// The model named in a request, or a default.
fn model_of(body: &Value) -> String {
    body.get("model")
        .and_then(Value::as_str)
        .unwrap_or(DEFAULT_MODEL)
        .to_string()
}

/// The Claude tool call for `step`, as `(name, input)`, or `None` for a text.
fn anthropic_tool(step: &Step) -> Option<(String, Value)> {
    match step {
        Step::Tool { name, input } => Some((name.clone(), input.clone())),
        Step::Text(_) | Step::Poll => None,
        Step::Shell(command) => Some((
            "Bash".into(),
            json!({"command": command, "description": "Run a scripted command", "timeout": 600_000}),
        )),
        Step::Write { path, content } => Some((
            "Write".into(),
            json!({"file_path": path, "content": content}),
        )),
        Step::Edit { path, old, new } => Some((
            "Edit".into(),
            json!({"file_path": path, "old_string": old, "new_string": new}),
        )),
        Step::Mcp { server, tool, args } => Some((format!("mcp__{server}__{tool}"), args.clone())),
    }
}

/// Answers a Messages API request with `step`, streamed when the request asks for it.
fn anthropic_answer(step: &Step, body: &Value, shared: &Shared) -> Response {
    let message_id = shared.id("msg");
    let model = model_of(body);
    let (block, stop_reason) = match anthropic_tool(step) {
        Some((name, input)) => (
            json!({"type": "tool_use", "id": shared.id("toolu"), "name": name, "input": input}),
            "tool_use",
        ),
        None => {
            let text = match step {
                Step::Text(text) => text.clone(),
                _ => String::new(),
            };
            (json!({"type": "text", "text": text}), "end_turn")
        }
    };
    let usage = json!({"input_tokens": 10, "output_tokens": 10,
                       "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0});
    let streaming = body.get("stream").and_then(Value::as_bool).unwrap_or(false);
    if !streaming {
        return Response::json(&json!({
            "id": message_id, "type": "message", "role": "assistant", "model": model,
            "content": [block], "stop_reason": stop_reason, "stop_sequence": null,
            "usage": usage,
        }));
    }
    let (start_block, delta) = if block["type"] == "tool_use" {
        let mut start = block.clone();
        start["input"] = json!({});
        let partial = block["input"].to_string();
        (
            start,
            json!({"type": "input_json_delta", "partial_json": partial}),
        )
    } else {
        (
            json!({"type": "text", "text": ""}),
            json!({"type": "text_delta", "text": block["text"]}),
        )
    };
    let events = vec![
        (
            "message_start".to_string(),
            json!({"type": "message_start", "message": {
                "id": message_id, "type": "message", "role": "assistant", "model": model,
                "content": [], "stop_reason": null, "stop_sequence": null,
                "usage": {"input_tokens": 10, "output_tokens": 1,
                          "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
            }}),
        ),
        (
            "content_block_start".to_string(),
            json!({"type": "content_block_start", "index": 0, "content_block": start_block}),
        ),
        (
            "content_block_delta".to_string(),
            json!({"type": "content_block_delta", "index": 0, "delta": delta}),
        ),
        (
            "content_block_stop".to_string(),
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            "message_delta".to_string(),
            json!({"type": "message_delta",
                   "delta": {"stop_reason": stop_reason, "stop_sequence": null},
                   "usage": {"output_tokens": 10}}),
        ),
        ("message_stop".to_string(), json!({"type": "message_stop"})),
    ];
    Response::sse(&events)
}

/// The tool named `name` in a Responses request's `tools`, if offered.
fn offered_tool<'a>(body: &'a Value, name: &str) -> Option<&'a Value> {
    body.get("tools")?
        .as_array()?
        .iter()
        .find(|tool| tool.get("name").and_then(Value::as_str) == Some(name))
}

/// An `apply_patch` patch adding the file `path` with `content`.
fn add_file_patch(path: &str, content: &str) -> String {
    let mut patch = format!("*** Begin Patch\n*** Add File: {path}\n");
    for line in content.lines() {
        patch.push('+');
        patch.push_str(line);
        patch.push('\n');
    }
    patch.push_str("*** End Patch\n");
    patch
}

/// An `apply_patch` patch replacing the lines `old` by `new` in the file `path`.
fn update_file_patch(path: &str, old: &str, new: &str) -> String {
    let mut patch = format!("*** Begin Patch\n*** Update File: {path}\n@@\n");
    for line in old.lines() {
        patch.push('-');
        patch.push_str(line);
        patch.push('\n');
    }
    for line in new.lines() {
        patch.push('+');
        patch.push_str(line);
        patch.push('\n');
    }
    patch.push_str("*** End Patch\n");
    patch
}

/// The Codex call for a patch: the `apply_patch` tool when offered, else `apply_patch`
/// through the shell.
fn codex_patch_call(patch: String, body: &Value) -> (String, Value) {
    match offered_tool(body, "apply_patch") {
        Some(tool) if tool["type"] == "custom" => ("apply_patch".into(), Value::String(patch)),
        Some(_) => ("apply_patch".into(), json!({"input": patch})),
        None => codex_shell_call(&format!("apply_patch <<'PATCH'\n{patch}PATCH\n"), body),
    }
}

/// The Codex call for a shell command, by whichever shell tool the request offers.
fn codex_shell_call(command: &str, body: &Value) -> (String, Value) {
    if offered_tool(body, "exec_command").is_some() {
        (
            "exec_command".into(),
            json!({"cmd": command, "yield_time_ms": 30000}),
        )
    } else if offered_tool(body, "shell_command").is_some() {
        ("shell_command".into(), json!({"command": command}))
    } else if offered_tool(body, "shell").is_some() {
        ("shell".into(), json!({"command": ["bash", "-lc", command]}))
    } else {
        ("exec_command".into(), json!({"cmd": command}))
    }
}

/// The name under which a Responses request offers the tool `tool` of MCP server `server`,
/// and the namespace it sits in, if any.
fn codex_mcp_name(server: &str, tool: &str, body: &Value) -> (String, Option<String>) {
    let plain = format!("mcp__{server}__{tool}");
    let tools = body.get("tools").and_then(Value::as_array);
    for entry in tools.into_iter().flatten() {
        let name = entry
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if name == plain {
            return (plain, None);
        }
        // A namespace tool groups the server's tools under its own name.
        if let Some(inner) = entry.get("tools").and_then(Value::as_array) {
            for member in inner {
                let member_name = member
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                if member_name == tool || member_name == plain {
                    return (member_name.to_string(), Some(name.to_string()));
                }
            }
        }
    }
    // Not offered up front (deferred behind `tool_search`): Codex 0.171 still runs a call
    // by the namespaced name.
    (tool.to_string(), Some(format!("mcp__{server}")))
}

/// The Responses output item for `step`.
fn responses_item(step: &Step, body: &Value, shared: &Shared) -> Value {
    let (name, input, namespace) = match step {
        Step::Text(text) => {
            return json!({
                "type": "message", "id": shared.id("msg"), "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            });
        }
        Step::Tool { name, input } => (name.clone(), input.clone(), None),
        Step::Poll => {
            return json!({
                "type": "message", "id": shared.id("msg"), "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": "", "annotations": []}],
            });
        }
        Step::Shell(command) => {
            let (name, input) = codex_shell_call(command, body);
            (name, input, None)
        }
        Step::Write { path, content } => {
            let (name, input) = codex_patch_call(add_file_patch(path, content), body);
            (name, input, None)
        }
        Step::Edit { path, old, new } => {
            let (name, input) = codex_patch_call(update_file_patch(path, old, new), body);
            (name, input, None)
        }
        Step::Mcp { server, tool, args } => {
            let (name, namespace) = codex_mcp_name(server, tool, body);
            (name, args.clone(), namespace)
        }
    };
    let call_id = shared.id("call");
    if let Value::String(text) = &input {
        return json!({
            "type": "custom_tool_call", "id": shared.id("ctc"), "call_id": call_id,
            "name": name, "input": text, "status": "completed",
        });
    }
    let mut item = json!({
        "type": "function_call", "id": shared.id("fc"), "call_id": call_id,
        "name": name, "arguments": input.to_string(), "status": "completed",
    });
    if let Some(namespace) = namespace {
        item["namespace"] = Value::String(namespace);
    }
    item
}

/// Answers a Responses API request with `step`, streamed when the request asks for it.
fn responses_answer(step: &Step, body: &Value, shared: &Shared) -> Response {
    let response_id = shared.id("resp");
    let model = model_of(body);
    let item = responses_item(step, body, shared);
    let usage = json!({
        "input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 10, "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 20,
    });
    let completed = json!({
        "id": response_id, "object": "response", "created_at": 0, "status": "completed",
        "model": model, "output": [item.clone()], "usage": usage,
    });
    let streaming = body.get("stream").and_then(Value::as_bool).unwrap_or(false);
    if !streaming {
        return Response::json(&completed);
    }
    let mut in_progress = completed.clone();
    in_progress["status"] = json!("in_progress");
    in_progress["output"] = json!([]);
    let mut events = vec![
        (
            "response.created".to_string(),
            json!({"type": "response.created", "sequence_number": 0, "response": in_progress}),
        ),
        (
            "response.output_item.added".to_string(),
            json!({"type": "response.output_item.added", "sequence_number": 1,
                   "output_index": 0, "item": item}),
        ),
    ];
    if item["type"] == "message" {
        let text = item["content"][0]["text"].clone();
        events.push((
            "response.output_text.delta".to_string(),
            json!({"type": "response.output_text.delta", "sequence_number": 2,
                   "item_id": item["id"], "output_index": 0, "content_index": 0,
                   "delta": text}),
        ));
    }
    events.push((
        "response.output_item.done".to_string(),
        json!({"type": "response.output_item.done", "sequence_number": 3,
               "output_index": 0, "item": item}),
    ));
    events.push((
        "response.completed".to_string(),
        json!({"type": "response.completed", "sequence_number": 4, "response": completed}),
    ));
    Response::sse(&events)
}
