//! One MCP session on stdio: the reader (this thread) answers at once what needs no task,
//! and a worker thread runs the calls one at a time, in the order they came.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::jsonrpc::{
    self, INVALID_PARAMS, INVALID_REQUEST, Incoming, Line, MAX_LINE_BYTES, METHOD_NOT_FOUND,
};
use super::tool::{self, TOOL_NAME};
use crate::config::RecipeConfig;
use crate::process::{LocalRunner, stop_all_process_groups};
use crate::recipe::{Follow, Progress, Recipe};

/// Protocol versions this server speaks, newest first; the client's is echoed when it is one
/// of them, else the newest is offered.
const PROTOCOL_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// The most calls queued or running at once; past it a call is refused, so a client cannot
/// make the queue grow without bound.
const MAX_WAITING: usize = 1000;

/// Time between two attempts to stop a cancelled call whose process had not started yet.
const STOP_RETRY: Duration = Duration::from_millis(20);

/// Time between two progress notifications of one call.
const PROGRESS_EVERY: Duration = Duration::from_secs(1);

/// Serves the recipe tool for the project at `root` on this process's stdin and stdout
/// until stdin closes; then whatever runs is stopped and what waits is dropped. `recipe` is
/// the detection made at start.
pub fn serve(root: &Path, config: &RecipeConfig, recipe: Recipe) -> std::io::Result<()> {
    let stdin = std::io::stdin();
    serve_on(
        root,
        config,
        recipe,
        &mut stdin.lock(),
        Box::new(std::io::stdout()),
    )
}

/// [`serve`] on any input and output.
fn serve_on(
    root: &Path,
    config: &RecipeConfig,
    recipe: Recipe,
    input: &mut dyn BufRead,
    output: Box<dyn Write + Send>,
) -> std::io::Result<()> {
    let announced = recipe.prompt();
    let shared = Arc::new(Shared {
        root: root.to_path_buf(),
        config: config.clone(),
        out: Mutex::new(output),
        state: Mutex::new(State {
            recipe: Arc::new(recipe),
            announced,
        }),
        active: Mutex::new(HashMap::new()),
    });
    let (calls, queue) = channel::<Call>();
    let worker = {
        let shared = Arc::clone(&shared);
        std::thread::Builder::new()
            .name("mcp-worker".into())
            .spawn(move || work(&shared, &queue))?
    };
    let mut buf = Vec::new();
    loop {
        match jsonrpc::read_line(input, &mut buf, MAX_LINE_BYTES) {
            // A read error ends the session as a close does: no more requests can come.
            Ok(Line::Eof) | Err(_) => break,
            Ok(Line::TooLong(len)) => shared.send(&jsonrpc::error(
                &Value::Null,
                INVALID_REQUEST,
                &format!(
                    "Invalid Request: the message is {len} bytes; the limit is {MAX_LINE_BYTES}"
                ),
            )),
            Ok(Line::Text) => {
                let line = buf.trim_ascii();
                if line.is_empty() {
                    continue;
                }
                if let Some(call) = shared.handle(jsonrpc::classify(line)) {
                    let mut active = shared.lock_active();
                    if active.len() >= MAX_WAITING {
                        drop(active);
                        shared.send(&jsonrpc::response(
                            &call.id,
                            tool::error_result(&format!(
                                "{MAX_WAITING} calls are already waiting: wait for their \
                                 answers before sending more."
                            )),
                        ));
                        continue;
                    }
                    active.insert(call.key.clone(), CallState::default());
                    drop(active);
                    // The worker lives as long as the queue; a send cannot fail before the
                    // queue is dropped below.
                    let _ = calls.send(call);
                }
            }
        }
    }
    // The client is gone: nothing it asked for may keep running.
    let running = {
        let mut active = shared.lock_active();
        for state in active.values_mut() {
            state.cancelled = true;
        }
        active
            .iter()
            .find(|(_, state)| state.running)
            .map(|(key, _)| key.clone())
    };
    drop(calls);
    if let Some(key) = running {
        stop_while_running(&shared, &key);
    }
    let _ = worker.join();
    Ok(())
}

/// What the reader and the worker share.
struct Shared {
    root: PathBuf,
    config: RecipeConfig,
    /// stdout: one whole message per write, so the two threads never interleave.
    out: Mutex<Box<dyn Write + Send>>,
    state: Mutex<State>,
    /// Calls queued or running, by request id.
    active: Mutex<HashMap<String, CallState>>,
}

/// Where a queued call is.
#[derive(Debug, Default, Clone, Copy)]
struct CallState {
    /// Its task has started.
    running: bool,
    /// The client cancelled it, or went away.
    cancelled: bool,
}

/// The detection the server answers from.
struct State {
    recipe: Arc<Recipe>,
    /// The description the client last received or was told changed.
    announced: Option<String>,
}

/// A `tools/call` of the recipe tool waiting for its turn.
#[derive(Debug)]
struct Call {
    id: Value,
    /// The id as text: a number and a string of the same digits are different ids.
    key: String,
    op: String,
    timeout: Option<u64>,
    progress_token: Option<Value>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A thread that panicked while holding a lock left data that is still whole.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Shared {
    fn lock_active(&self) -> MutexGuard<'_, HashMap<String, CallState>> {
        lock(&self.active)
    }

    /// Writes one message as one line.
    fn send(&self, message: &Value) {
        let mut line = message.to_string().into_bytes();
        line.push(b'\n');
        let mut out = lock(&self.out);
        // A client that stopped reading is handled when its stdin closes.
        let _ = out.write_all(&line).and_then(|()| out.flush());
    }

    /// Detects again (through the cache, so an unchanged project costs a few file checks)
    /// and returns the detection with its description.
    fn detect(&self) -> (Arc<Recipe>, Option<String>) {
        let recipe = Arc::new(Recipe::detect(&self.root, &self.config));
        let description = recipe.prompt();
        lock(&self.state).recipe = Arc::clone(&recipe);
        (recipe, description)
    }

    /// Answers a message, or returns the call it asks for, which must wait its turn.
    fn handle(self: &Arc<Self>, message: Incoming) -> Option<Call> {
        let (id, method, params) = match message {
            Incoming::Request { id, method, params } => (id, method, params),
            Incoming::Notification { method, params } => {
                if method == "notifications/cancelled" {
                    self.cancel(&params);
                }
                return None;
            }
            Incoming::Response => return None,
            Incoming::Invalid { id, code, message } => {
                self.send(&jsonrpc::error(&id, code, &message));
                return None;
            }
        };
        let result = match method.as_str() {
            "initialize" => initialize(&params),
            "ping" => json!({}),
            "tools/list" => {
                let (_, description) = self.detect();
                let tools: Vec<Value> = description
                    .iter()
                    .map(|d| tool::definition(d, self.config.timeout_secs))
                    .collect();
                lock(&self.state).announced = description;
                json!({ "tools": tools })
            }
            "tools/call" => match self.call(id.clone(), &params) {
                Ok(call) => return Some(call),
                Err(Refusal::Error(message)) => {
                    self.send(&jsonrpc::error(&id, INVALID_PARAMS, &message));
                    return None;
                }
                Err(Refusal::Result(result)) => result,
            },
            other => {
                self.send(&jsonrpc::error(
                    &id,
                    METHOD_NOT_FOUND,
                    &format!("Method not found: {other}"),
                ));
                return None;
            }
        };
        self.send(&jsonrpc::response(&id, result));
        None
    }

    /// Reads a `tools/call`: the call to queue, or the answer to give at once.
    fn call(&self, id: Value, params: &Value) -> Result<Call, Refusal> {
        let name = params.get("name").and_then(Value::as_str);
        if name != Some(TOOL_NAME) {
            return Err(Refusal::Error(match name {
                Some(name) => format!("Unknown tool: `{name}` (the only tool is `{TOOL_NAME}`)"),
                None => "Invalid params: `name` must name a tool".into(),
            }));
        }
        let empty = Value::Object(Map::new());
        let args = tool::arguments(params.get("arguments").unwrap_or(&empty))
            .map_err(|text| Refusal::Result(tool::error_result(&text)))?;
        let progress_token = params
            .get("_meta")
            .and_then(|meta| meta.get("progressToken"))
            .filter(|token| token.is_string() || token.is_number())
            .cloned();
        Ok(Call {
            key: id.to_string(),
            id,
            op: args.op,
            timeout: args.timeout,
            progress_token,
        })
    }

    /// Marks a queued or running call as cancelled: the worker skips a queued one, and a
    /// thread of its own stops a running one's processes.
    fn cancel(self: &Arc<Self>, params: &Value) {
        let Some(id) = params.get("requestId") else {
            return;
        };
        let key = id.to_string();
        let running = match self.lock_active().get_mut(&key) {
            Some(state) if !state.cancelled => {
                state.cancelled = true;
                state.running
            }
            _ => false,
        };
        if running {
            let shared = Arc::clone(self);
            // Stopping takes up to the grace; the reader must go on reading meanwhile.
            let _ = std::thread::Builder::new()
                .name("mcp-cancel".into())
                .spawn(move || stop_while_running(&shared, &key));
        }
    }

    fn is_cancelled(&self, key: &str) -> bool {
        self.lock_active()
            .get(key)
            .is_some_and(|state| state.cancelled)
    }

    /// Marks a call as started, unless it was cancelled while it waited.
    fn start(&self, key: &str) -> bool {
        match self.lock_active().get_mut(key) {
            Some(state) if !state.cancelled => {
                state.running = true;
                true
            }
            _ => false,
        }
    }

    /// Runs one call and answers it, unless it was cancelled: a cancelled request gets no
    /// answer.
    fn run(&self, call: &Call) {
        let result = self.run_result(call);
        if let Some(result) = result
            && !self.is_cancelled(&call.key)
        {
            self.send(&jsonrpc::response(&call.id, result));
        }
        self.lock_active().remove(&call.key);
    }

    /// The result of a call, or `None` when it was cancelled before its task started.
    fn run_result(&self, call: &Call) -> Option<Value> {
        if self.is_cancelled(&call.key) {
            return None;
        }
        let (recipe, description) = self.detect();
        {
            let mut state = lock(&self.state);
            if state.announced != description {
                state.announced = description.clone();
                drop(state);
                self.send(&jsonrpc::notification(
                    "notifications/tools/list_changed",
                    None,
                ));
            }
        }
        if description.is_none() {
            return Some(tool::error_result(&format!(
                "No task runner detected in {}: there is no task to run.",
                self.root.display()
            )));
        }
        if !self.start(&call.key) {
            return None;
        }
        let mut reported = Duration::ZERO;
        let mut follower = |progress: Progress<'_>| {
            if let Some(token) = &call.progress_token
                && progress.elapsed >= reported + PROGRESS_EVERY
            {
                reported = progress.elapsed;
                self.send(&progress_notification(token, progress));
            }
        };
        // Following the output costs a thread per call: only a client that asked for
        // progress pays it.
        let follow = call
            .progress_token
            .as_ref()
            .map(|_| Follow::Size(&mut follower));
        Some(
            match recipe.run_following(&call.op, call.timeout, &LocalRunner::default(), follow) {
                Ok(result) => tool::run_result(&result),
                Err(err) => tool::error_result(&err.to_string()),
            },
        )
    }
}

/// Why a `tools/call` gets its answer at once.
enum Refusal {
    /// A JSON-RPC error (an unknown tool).
    Error(String),
    /// A tool result with `isError` (arguments the model can correct).
    Result(Value),
}

/// Stops the processes of the running call `key` until its task has ended. The server
/// runs one task at a time, so the process groups alive are this call's; the check and the
/// stop happen under the lock the worker takes to finish the call, so the next call's task
/// is never hit. Repeated, because a cancel can come between the call's start and its
/// process's.
fn stop_while_running(shared: &Shared, key: &str) {
    loop {
        {
            let active = shared.lock_active();
            if !active.get(key).is_some_and(|state| state.running) {
                return;
            }
            stop_all_process_groups();
        }
        std::thread::sleep(STOP_RETRY);
    }
}

/// The worker: runs the queued calls one at a time until the queue closes.
fn work(shared: &Shared, queue: &Receiver<Call>) {
    for call in queue {
        shared.run(&call);
    }
}

/// The answer to `initialize`.
fn initialize(params: &Value) -> Value {
    let asked = params.get("protocolVersion").and_then(Value::as_str);
    let version = asked
        .filter(|v| PROTOCOL_VERSIONS.contains(v))
        .unwrap_or(PROTOCOL_VERSIONS[0]);
    json!({
        "protocolVersion": version,
        "capabilities": {"tools": {"listChanged": true}},
        "serverInfo": {"name": "speccoder", "version": env!("CARGO_PKG_VERSION")},
    })
}

/// `notifications/progress` for a running call: the seconds elapsed as the progress, and
/// the bytes of output so far in the message.
fn progress_notification(token: &Value, progress: Progress<'_>) -> Value {
    let secs = (progress.elapsed.as_secs_f64() * 10.0).round() / 10.0;
    let mut params = Map::new();
    params.insert("progressToken".into(), token.clone());
    params.insert("progress".into(), json!(secs));
    params.insert(
        "message".into(),
        json!(format!(
            "{secs:.1} s elapsed, {} bytes of output so far",
            progress.total_bytes
        )),
    );
    jsonrpc::notification("notifications/progress", Some(params))
}
