//! One MCP session on stdio. A reader thread answers at once what needs no task; a worker
//! thread runs the calls one at a time, in the order they came; background jobs run in
//! threads of their own ([`Jobs`]), beside the worker; a writer thread (the [`Outbox`])
//! alone writes stdout. This thread waits for the session to end, then stops what runs.

use std::collections::HashMap;
use std::io::BufRead;
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::id::Id;
use super::jobs::{self, Jobs};
use super::jsonrpc::{
    self, INVALID_PARAMS, INVALID_REQUEST, Incoming, Line, MAX_LINE_BYTES, METHOD_NOT_FOUND,
};
use super::outbox::Outbox;
use super::tool::{self, JOBS_TOOL, OUTPUT_TOOL, STOP_TOOL, TOOL_NAME};
use crate::{Follow, Progress, Recipe};
use speccoder_config::{McpConfig, RecipeConfig};
use speccoder_foundation::process::stop_all_process_groups;

/// Protocol versions this server speaks, newest first; the client's is echoed when it is one
/// of them, else the newest is offered.
const PROTOCOL_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// The most calls queued or running at once; past it a call is refused, so a client cannot
/// make the queue grow without bound.
const MAX_WAITING: usize = 1000;

/// Time between two progress notifications of one call.
const PROGRESS_EVERY: Duration = Duration::from_secs(1);

/// How long the answers already queued may take to be written once stdin has closed: a
/// client that closes stdin and then reads gets them, one that reads nothing cannot hold
/// the server.
const DRAIN_GRACE: Duration = Duration::from_millis(500);

/// Time between two looks at whether stdin has closed, while the reader waits for a client
/// that is behind to read.
const HANGUP_CHECK_EVERY: Duration = Duration::from_millis(50);

/// Why a session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SessionEnd {
    /// stdin closed (or could not be read): no more requests can come.
    InputClosed,
    /// A write to stdout failed: no answer can reach the client.
    OutputFailed,
}

/// Serves the recipe tool for the project at `root` on this process's stdin and stdout
/// until stdin closes or stdout cannot be written; then whatever runs is stopped and what
/// waits is dropped. `recipe` is the detection made at start.
pub fn serve(
    root: &Path,
    config: &RecipeConfig,
    mcp: &McpConfig,
    recipe: Recipe,
) -> std::io::Result<()> {
    // What the tasks start must not outlive a server killed by SIGKILL either, which no
    // handler sees: a reaper process kills what is left once the server is gone.
    speccoder_foundation::process::start_reaper()?;
    let (end_tx, ended) = channel::<SessionEnd>();
    // A file of its own on stdout's descriptor: the writer never takes std's stdout lock,
    // so a write that hangs on a full pipe holds nothing anyone else needs.
    let output = std::fs::File::from(std::io::stdout().as_fd().try_clone_to_owned()?);
    let outbox = {
        let end_tx = end_tx.clone();
        Outbox::start(Box::new(output), move || {
            let _ = end_tx.send(SessionEnd::OutputFailed);
        })?
    };
    // Detection runs before every call: the cache entry is read and parsed once.
    crate::remember_entries();
    let announced = recipe.prompt();
    let shared = Arc::new(Shared {
        root: root.to_path_buf(),
        config: config.clone(),
        out: Arc::clone(&outbox),
        state: Mutex::new(State {
            recipe: Arc::new(recipe),
            description: announced.clone(),
            announced,
        }),
        calls: Mutex::new(Calls::default()),
        jobs: Jobs::new(mcp.max_jobs, mcp.job_timeout_secs)?,
        logging: AtomicBool::new(false),
    });
    let (calls, queue) = channel::<Call>();
    {
        let shared = Arc::clone(&shared);
        std::thread::Builder::new()
            .name("mcp-worker".into())
            .spawn(move || work(&shared, &queue))?;
    }
    {
        let shared = Arc::clone(&shared);
        std::thread::Builder::new()
            .name("mcp-reader".into())
            .spawn(move || {
                read(&shared, &mut std::io::stdin().lock(), &calls, stdin_closed);
                let _ = end_tx.send(SessionEnd::InputClosed);
            })?;
    }
    // Both senders live as long as their threads, and this function holds the receiver.
    let end = ended.recv().unwrap_or(SessionEnd::InputClosed);
    // The client is gone: nothing it asked for may keep running. The worker and reader
    // threads are left as they are (one may be blocked on stdin, one on the queue); the
    // process exits when this returns.
    {
        let mut calls = shared.lock_calls();
        calls.closing = true;
        for state in calls.states.values_mut() {
            state.cancelled = true;
            state.stop.store(true, Ordering::Relaxed);
        }
    }
    // Every background job too, each waited for; then whatever is left of any run. The
    // jobs' outputs go with them: `shared` lives on in the threads left as they are, so
    // nothing it holds is dropped.
    shared.jobs.stop_all();
    stop_all_process_groups();
    shared.jobs.remove_outputs();
    match end {
        SessionEnd::InputClosed => outbox.close(DRAIN_GRACE),
        SessionEnd::OutputFailed => {}
    }
    Ok(())
}

/// The reader: answers or queues each message until stdin closes. While the client is
/// behind on reading, it reads no more (a client that sends without reading cannot make
/// the server hold unbounded answers) but still looks whether stdin has closed.
fn read(shared: &Arc<Shared>, input: &mut dyn BufRead, calls: &Sender<Call>, closed: fn() -> bool) {
    let mut buf = Vec::new();
    loop {
        while !shared.out.has_room() {
            if closed() {
                return;
            }
            shared.out.wait_for_room(HANGUP_CHECK_EVERY);
        }
        match jsonrpc::read_line(input, &mut buf, MAX_LINE_BYTES) {
            // A read error ends the session as a close does: no more requests can come.
            Ok(Line::Eof) | Err(_) => return,
            Ok(Line::TooLong(len)) => shared.send(jsonrpc::error(
                None,
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
                    shared.enqueue(call, calls);
                }
            }
        }
    }
}

/// Whether stdin has closed, though unread requests may still be in it.
fn stdin_closed() -> bool {
    speccoder_foundation::process::input_hung_up(std::io::stdin())
}

/// What the threads share.
struct Shared {
    root: PathBuf,
    config: RecipeConfig,
    /// stdout, written by its own thread, one whole message at a time, in order.
    out: Arc<Outbox>,
    state: Mutex<State>,
    calls: Mutex<Calls>,
    /// The background jobs.
    jobs: Jobs,
    /// Whether the client asked for log messages (`logging/setLevel`).
    logging: AtomicBool,
}

/// The calls queued or running.
#[derive(Debug, Default)]
struct Calls {
    /// Each call's state, by [`Id::key`].
    states: HashMap<String, CallState>,
    /// The session is over: no call starts any more.
    closing: bool,
}

/// Where a queued call is.
#[derive(Debug, Default, Clone)]
struct CallState {
    /// Its task has started.
    running: bool,
    /// The client cancelled it, or went away.
    cancelled: bool,
    /// Set to stop its task (this call's alone: background jobs run beside it).
    stop: Arc<AtomicBool>,
}

/// The detection the server answers from.
struct State {
    recipe: Arc<Recipe>,
    /// `recipe`'s description.
    description: Option<String>,
    /// The description the client last received or was told changed.
    announced: Option<String>,
}

/// A `tools/call` of the recipe tool waiting for its turn.
#[derive(Debug)]
struct Call {
    id: Id,
    /// The id as compared: a number and a string of the same digits are different ids.
    key: String,
    op: String,
    timeout: Option<u64>,
    progress_token: Option<Id>,
    /// Stops its task.
    stop: Arc<AtomicBool>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A thread that panicked while holding a lock left data that is still whole.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Shared {
    fn lock_calls(&self) -> MutexGuard<'_, Calls> {
        lock(&self.calls)
    }

    /// Queues one message for stdout; never waits for the client.
    fn send(&self, message: String) {
        self.out.push(message);
    }

    /// Detects again (through the cache, so an unchanged project costs a few file checks)
    /// and returns the detection with its description.
    fn detect(&self) -> (Arc<Recipe>, Option<String>) {
        let recipe = Recipe::detect(&self.root, &self.config);
        let mut state = lock(&self.state);
        // The description follows from the runners (root and configuration are the
        // server's) and from the CI files and docs that rank their tasks: an unchanged
        // detection keeps the one already written, so an edited README is read again only
        // once the runners change (a call costs no re-read of the docs).
        if recipe.detections() != state.recipe.detections() {
            state.description = recipe.prompt();
            state.recipe = Arc::new(recipe);
        }
        (Arc::clone(&state.recipe), state.description.clone())
    }

    /// Answers a message, or returns the call it asks for, which must wait its turn.
    fn handle(self: &Arc<Self>, message: Incoming) -> Option<Call> {
        let (id, method, params, progress_token) = match message {
            Incoming::Request {
                id,
                method,
                params,
                progress_token,
            } => (id, method, params, progress_token),
            Incoming::Notification { method, params } => {
                if method == "notifications/cancelled" {
                    self.cancel(&params);
                }
                return None;
            }
            Incoming::Response => return None,
            Incoming::Invalid { id, code, message } => {
                self.send(jsonrpc::error(id.as_ref(), code, &message));
                return None;
            }
        };
        // JSON-RPC asks ids to be unique among the requests in flight (MCP: within the
        // session); two answers with one id could not be told apart, so the second request
        // is refused and the first goes on.
        if self.lock_calls().states.contains_key(&id.key()) {
            self.send(jsonrpc::error(
                Some(&id),
                INVALID_REQUEST,
                &format!(
                    "Invalid Request: id {} is already in use by a call not yet answered",
                    id.as_json()
                ),
            ));
            return None;
        }
        let result = match method.as_str() {
            "initialize" => initialize(&params),
            "ping" => json!({}),
            "logging/setLevel" => {
                self.logging.store(true, Ordering::Relaxed);
                json!({})
            }
            "tools/list" => {
                let (_, description) = self.detect();
                let mut tools: Vec<Value> = description
                    .iter()
                    .map(|d| tool::definition(d, self.config.timeout_secs))
                    .collect();
                if description.is_some() {
                    tools.extend(tool::job_definitions());
                }
                lock(&self.state).announced = description;
                json!({ "tools": tools })
            }
            "tools/call" => match self.call(id.clone(), &params, progress_token) {
                Ok(call) => return Some(call),
                Err(Refusal::Error(message)) => {
                    self.send(jsonrpc::error(Some(&id), INVALID_PARAMS, &message));
                    return None;
                }
                Err(Refusal::Result(result)) => result,
                Err(Refusal::Later) => return None,
            },
            other => {
                self.send(jsonrpc::error(
                    Some(&id),
                    METHOD_NOT_FOUND,
                    &format!("Method not found: {other}"),
                ));
                return None;
            }
        };
        self.send(jsonrpc::response(&id, &result));
        None
    }

    /// Hands a call to the worker, or refuses it when too many wait.
    fn enqueue(&self, call: Call, queue: &Sender<Call>) {
        let mut calls = self.lock_calls();
        if calls.closing {
            return;
        }
        if calls.states.len() >= MAX_WAITING {
            drop(calls);
            self.send(jsonrpc::response(
                &call.id,
                &tool::error_result(&format!(
                    "{MAX_WAITING} calls are already waiting: wait for their answers before \
                     sending more."
                )),
            ));
            return;
        }
        calls.states.insert(
            call.key.clone(),
            CallState {
                stop: Arc::clone(&call.stop),
                ..CallState::default()
            },
        );
        drop(calls);
        // The worker never stops reading the queue; a send cannot fail.
        let _ = queue.send(call);
    }

    /// Reads a `tools/call`: the call to queue, or the answer to give at once (or from a
    /// thread of its own, for what waits on a background job).
    fn call(
        self: &Arc<Self>,
        id: Id,
        params: &Value,
        progress_token: Option<Id>,
    ) -> Result<Call, Refusal> {
        let name = params.get("name").and_then(Value::as_str);
        let empty = Value::Object(Map::new());
        let raw = params.get("arguments").unwrap_or(&empty);
        let refuse = |text: String| Refusal::Result(tool::error_result(&text));
        match name {
            Some(TOOL_NAME) => {}
            Some(JOBS_TOOL) => return Err(Refusal::Result(self.jobs_result())),
            Some(OUTPUT_TOOL) => {
                let job = tool::job_argument(raw).map_err(refuse)?;
                let since = tool::since_argument(raw).map_err(refuse)?;
                return Err(Refusal::Result(self.output_result(job, since)));
            }
            Some(STOP_TOOL) => {
                let job = tool::job_argument(raw).map_err(refuse)?;
                let job = self.job(job).map_err(refuse)?;
                self.answer_later(id, move |_| {
                    job.stop();
                    let result = job.wait_end();
                    ended_result(&job, result)
                });
                return Err(Refusal::Later);
            }
            Some(name) => {
                return Err(Refusal::Error(format!(
                    "Unknown tool: `{name}` (the tools are `{TOOL_NAME}`, `{JOBS_TOOL}`, `{OUTPUT_TOOL}` and `{STOP_TOOL}`)"
                )));
            }
            None => {
                return Err(Refusal::Error(
                    "Invalid params: `name` must name a tool".into(),
                ));
            }
        }
        let args = tool::arguments(raw).map_err(refuse)?;
        if args.background {
            let ready = match args.ready.as_deref().map(regex::bytes::Regex::new) {
                None => None,
                Some(Ok(re)) => Some(re),
                Some(Err(err)) => {
                    return Err(refuse(format!(
                        "`ready` is not a regular expression: {err}"
                    )));
                }
            };
            let job = self.start_job(&args.op, ready.clone()).map_err(refuse)?;
            let wait = jobs::ready_wait(args.ready_secs);
            self.answer_later(id, move |_| {
                let ready = ready.is_some() && job.wait_ready(std::time::Instant::now() + wait);
                match job.result() {
                    // Ended before it was ready: the answer a foreground call gets.
                    Some(result) if !ready => result,
                    _ => {
                        let (text, next) = job.output(0);
                        let mut summary = job.summary();
                        summary["ready"] = json!(ready);
                        summary["next"] = json!(next);
                        json!({
                            "content": [{"type": "text", "text": jobs::job_text(&job, &text, next)}],
                            "structuredContent": summary,
                            "isError": false,
                        })
                    }
                }
            });
            return Err(Refusal::Later);
        }
        Ok(Call {
            key: id.key(),
            id,
            op: args.op,
            timeout: args.timeout,
            progress_token,
            stop: Arc::new(AtomicBool::new(false)),
        })
    }

    /// The job `id`, or why there is none.
    fn job(&self, id: &str) -> Result<Arc<jobs::Job>, String> {
        self.jobs
            .get(id)
            .ok_or_else(|| format!("there is no background job `{id}`: `{JOBS_TOOL}` lists them."))
    }

    /// Starts a background job of `op`, told to the client when it ends.
    fn start_job(
        self: &Arc<Self>,
        op: &str,
        ready: Option<regex::bytes::Regex>,
    ) -> Result<Arc<jobs::Job>, String> {
        let (recipe, description) = self.detect();
        if description.is_none() {
            return Err(format!(
                "no task runner detected in {}: there is no task to run.",
                self.root.display()
            ));
        }
        // An op that does not resolve is the same answer as in the foreground, at once.
        recipe.resolve(op).map_err(|err| err.to_string())?;
        let shared = Arc::clone(self);
        self.jobs.start(jobs::Start {
            recipe,
            op,
            ready,
            ended: Box::new(move |job| shared.job_ended(job)),
        })
    }

    /// Tells a client that enabled logging that `job` ended.
    fn job_ended(&self, job: &jobs::Job) {
        if self.logging.load(Ordering::Relaxed) {
            let params = json!({"level": "info", "logger": "speccoder", "data": job.summary()});
            self.out.push_unless_behind(jsonrpc::notification(
                "notifications/message",
                Some(&params),
            ));
        }
    }

    /// `recipe_jobs`' answer.
    fn jobs_result(&self) -> Value {
        let jobs = self.jobs.summaries();
        let text = if jobs.is_empty() {
            "No background jobs.".to_owned()
        } else {
            jobs.iter()
                .map(|j| {
                    format!(
                        "{} `{}`: {} ({} s, {} bytes of output{})",
                        j["job"].as_str().unwrap_or_default(),
                        j["op"].as_str().unwrap_or_default(),
                        j["state"].as_str().unwrap_or_default(),
                        j["seconds"],
                        j["output_bytes"],
                        match (j["exit_code"].as_i64(), j["signal"].as_i64()) {
                            (Some(code), _) => format!(", exit code {code}"),
                            (None, Some(signal)) => format!(", signal {signal}"),
                            (None, None) => String::new(),
                        }
                    )
                })
                .collect::<Vec<_>>()
                .join("\n")
        };
        json!({
            "content": [{"type": "text", "text": text}],
            "structuredContent": {"jobs": jobs},
            "isError": false,
        })
    }

    /// `recipe_output`'s answer.
    fn output_result(&self, id: &str, since: u64) -> Value {
        let job = match self.job(id) {
            Ok(job) => job,
            Err(text) => return tool::error_result(&text),
        };
        let (text, next) = job.output(since);
        let mut summary = job.summary();
        summary["since"] = json!(since);
        summary["next"] = json!(next);
        summary["output"] = json!(text);
        json!({
            "content": [{"type": "text", "text": jobs::job_text(&job, &text, next)}],
            "structuredContent": summary,
            "isError": false,
        })
    }

    /// Answers request `id` from a thread of its own with what `answer` returns; the id
    /// stays in use until then.
    fn answer_later(
        self: &Arc<Self>,
        id: Id,
        answer: impl FnOnce(&Self) -> Value + Send + 'static,
    ) {
        let key = id.key();
        self.lock_calls().states.insert(
            key.clone(),
            CallState {
                running: true,
                ..CallState::default()
            },
        );
        let shared = Arc::clone(self);
        let (again, refused) = (key.clone(), id.clone());
        let spawned = std::thread::Builder::new()
            .name("mcp-job-call".into())
            .spawn(move || {
                let result = answer(&shared);
                // Queued under the lock that frees the id, as a foreground answer is.
                let mut calls = shared.lock_calls();
                calls.states.remove(&key);
                shared.send(jsonrpc::response(&id, &result));
            });
        if let Err(err) = spawned {
            let mut calls = self.lock_calls();
            calls.states.remove(&again);
            self.send(jsonrpc::response(
                &refused,
                &tool::error_result(&format!("cannot wait for the job: {err}")),
            ));
        }
    }

    /// Marks a queued or running call as cancelled: the worker skips a queued one, and a
    /// running one's task is stopped (its own: background jobs go on). A background start
    /// waiting for `ready` is answered all the same; `recipe_stop` stops its job.
    fn cancel(self: &Arc<Self>, params: &str) {
        let Some(id) = jsonrpc::member(params, "requestId").and_then(Id::new) else {
            return;
        };
        if let Some(state) = self.lock_calls().states.get_mut(&id.key())
            && !state.cancelled
        {
            state.cancelled = true;
            state.stop.store(true, Ordering::Relaxed);
        }
    }

    fn is_cancelled(&self, key: &str) -> bool {
        self.lock_calls()
            .states
            .get(key)
            .is_some_and(|state| state.cancelled)
    }

    /// Marks a call as started, unless it was cancelled while it waited or the session is
    /// over.
    fn start(&self, key: &str) -> bool {
        let mut calls = self.lock_calls();
        if calls.closing {
            return false;
        }
        match calls.states.get_mut(key) {
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
        let mut calls = self.lock_calls();
        let state = calls.states.remove(&call.key);
        // The answer is queued under the lock that frees the id, so a client that reuses
        // the id once it has the answer is never told the id is in use.
        if let Some(result) = result
            && state.is_some_and(|state| !state.cancelled)
        {
            self.send(jsonrpc::response(&call.id, &result));
        }
    }

    /// The result of a call, or `None` when it was cancelled before its task started.
    fn run_result(&self, call: &Call) -> Option<Value> {
        // A client that is behind on reading gets no new task run until it catches up.
        while !self.out.has_room() && !self.lock_calls().closing {
            self.out.wait_for_room(HANGUP_CHECK_EVERY);
        }
        if self.is_cancelled(&call.key) {
            return None;
        }
        let (recipe, description) = self.detect();
        {
            let mut state = lock(&self.state);
            if state.announced != description {
                state.announced = description.clone();
                drop(state);
                self.send(jsonrpc::notification::<Value>(
                    "notifications/tools/list_changed",
                    None,
                ));
            }
        }
        if description.is_none() {
            return Some(tool::error_result(&format!(
                "no task runner detected in {}: there is no task to run.",
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
                self.out
                    .push_unless_behind(progress_notification(token, progress));
            }
        };
        // Following the output costs a thread per call: only a client that asked for
        // progress pays it.
        let follow = call
            .progress_token
            .as_ref()
            .map(|_| Follow::Size(&mut follower));
        Some(jobs::run_stoppable(
            &recipe,
            &call.op,
            call.timeout,
            &call.stop,
            follow,
        ))
    }
}

/// Why a `tools/call` gets its answer at once.
enum Refusal {
    /// A JSON-RPC error (an unknown tool).
    Error(String),
    /// A tool result with `isError` (arguments the model can correct).
    Result(Value),
    /// A thread of its own answers (it waits on a background job).
    Later,
}

/// The answer of `recipe_stop`: how the job ended, with the end of its output, as a
/// foreground call's answer gives them.
fn ended_result(job: &jobs::Job, mut result: Value) -> Value {
    let summary = job.summary();
    if let Some(Value::Array(content)) = result.get_mut("content") {
        content.insert(
            0,
            json!({"type": "text", "text": format!("{} `{}`: {}", job.id, job.op, summary["state"].as_str().unwrap_or_default())}),
        );
    }
    if let Some(run) = result.get_mut("structuredContent") {
        run["job"] = json!(job.id);
        run["state"] = summary["state"].clone();
    }
    // Stopped on request is what was asked for.
    result["isError"] = json!(false);
    result
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
        "capabilities": {"tools": {"listChanged": true}, "logging": {}},
        "serverInfo": {"name": "speccoder", "version": env!("CARGO_PKG_VERSION")},
    })
}

/// `notifications/progress` for a running call: the seconds elapsed as the progress, and
/// the bytes of output so far in the message.
fn progress_notification(token: &Id, progress: Progress<'_>) -> String {
    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Params<'a> {
        progress_token: &'a Id,
        progress: f64,
        message: String,
    }
    let secs = (progress.elapsed.as_secs_f64() * 10.0).round() / 10.0;
    let params = Params {
        progress_token: token,
        progress: secs,
        message: format!(
            "{secs:.1} s elapsed, {} bytes of output so far",
            progress.total_bytes
        ),
    };
    jsonrpc::notification("notifications/progress", Some(&params))
}
