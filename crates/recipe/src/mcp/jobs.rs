//! Background jobs: a task the agent starts with `"background": true` (a dev server, a
//! watcher, a long build), reads while it runs and stops. Each runs in a thread of its own
//! with the deadline `[mcp] job_timeout_secs`, its output appended to a file of the
//! server's own (at most [`MAX_JOB_OUTPUT`] bytes; the run's own full-output file keeps it
//! all, as a foreground run's does), and is stopped as a deadline stops a task: TERM to its
//! process group and cgroup, the grace, then KILL. At most `[mcp] max_jobs` run at once.

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::{Follow, Progress, Recipe};
use speccoder_foundation::process::{
    LocalSpawner, ProcessTempDir, RunOutput, RunRequest, SpawnError, Spawner,
};

/// The most output a job keeps for `recipe_output`.
pub(crate) const MAX_JOB_OUTPUT: u64 = 64 << 20;

/// The most bytes one `recipe_output` answer carries.
pub(crate) const MAX_PAGE: u64 = 64 << 10;

/// The most recent output a `ready` pattern is matched against: a line that arrives in
/// pieces is still seen whole.
const READY_WINDOW: usize = 64 << 10;

/// The most jobs remembered, ended ones included; the oldest ended go first.
const MAX_REMEMBERED: usize = 256;

/// A runner whose runs stop when `stop` is set.
struct Stoppable {
    stop: Arc<AtomicBool>,
}

impl Spawner for Stoppable {
    fn run(&self, request: &RunRequest) -> Result<RunOutput, SpawnError> {
        let mut request = request.clone();
        request.stop = Some(Arc::clone(&self.stop));
        LocalSpawner::default().run(&request)
    }
}

/// Runs `op` of `recipe` on this thread, stopped when `stop` is set.
pub(crate) fn run_stoppable(
    recipe: &Recipe,
    op: &str,
    timeout: Option<u64>,
    stop: &Arc<AtomicBool>,
    follow: Option<Follow<'_>>,
) -> Value {
    let runner = Stoppable {
        stop: Arc::clone(stop),
    };
    match recipe.run_following(op, timeout, &runner, follow) {
        Ok(result) => super::tool::run_result(&result),
        Err(err) => super::tool::error_result(&err.to_string()),
    }
}

/// Where a job is.
#[derive(Debug, Default)]
struct State {
    /// Its output matched the `ready` pattern.
    ready: bool,
    /// The result, once it ended: what a foreground call would have answered.
    result: Option<Value>,
    /// Its time, once it ended.
    secs: Option<f64>,
    /// Its end was announced (the `ended` callback returned): a `recipe_stop` answer
    /// waits for this, so a client hears of the end before the answer.
    announced: bool,
}

/// One background job.
#[derive(Debug)]
pub(crate) struct Job {
    pub(crate) id: String,
    pub(crate) op: String,
    started: Instant,
    stop: Arc<AtomicBool>,
    /// Its output, as far as kept.
    path: PathBuf,
    /// Bytes of output kept in `path`.
    kept: AtomicU64,
    /// Bytes of output seen, kept or not.
    seen: AtomicU64,
    state: Mutex<State>,
    changed: Condvar,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Job {
    fn running(&self) -> bool {
        lock(&self.state).result.is_none()
    }

    /// Waits until the job is ready, has ended, or `until` passes; whether it is ready.
    pub(crate) fn wait_ready(&self, until: Instant) -> bool {
        let mut state = lock(&self.state);
        loop {
            if state.ready || state.result.is_some() {
                return state.ready;
            }
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            state = self
                .changed
                .wait_timeout(state, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Waits for the job's end and its announcement; its result.
    pub(crate) fn wait_end(&self) -> Value {
        let mut state = lock(&self.state);
        loop {
            if let (Some(result), true) = (&state.result, state.announced) {
                return result.clone();
            }
            state = self
                .changed
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// The result, when it ended.
    pub(crate) fn result(&self) -> Option<Value> {
        lock(&self.state).result.clone()
    }

    /// Asks the job to stop (TERM, the grace, KILL). Its run then says `stopped`, unless
    /// it had already ended or passed its deadline.
    pub(crate) fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// The job as `recipe_jobs` lists it.
    pub(crate) fn summary(&self) -> Value {
        let state = lock(&self.state);
        let run = state
            .result
            .as_ref()
            .and_then(|r| r.get("structuredContent"));
        let (label, exit_code, signal) = match (&state.result, run) {
            (None, _) => ("running", None, None),
            // The run says how it ended: a job asked to stop after it ended, or in its
            // deadline's grace, ended as it would have anyway.
            (Some(_), Some(run)) => (
                if run["stopped"] == true {
                    "stopped"
                } else if run["timed_out"] == true {
                    "timed_out"
                } else {
                    "exited"
                },
                run.get("exit_code").and_then(Value::as_i64),
                run.get("signal").and_then(Value::as_i64),
            ),
            (Some(_), None) => ("failed_to_start", None, None),
        };
        let secs = state
            .secs
            .unwrap_or_else(|| self.started.elapsed().as_secs_f64());
        json!({
            "job": self.id,
            "op": self.op,
            "state": label,
            "exit_code": exit_code,
            "signal": signal,
            "seconds": (secs * 10.0).round() / 10.0,
            "output_bytes": self.seen.load(Ordering::Relaxed),
        })
    }

    /// The output kept from byte `since` (at most the bytes kept), one page of at most
    /// [`MAX_PAGE`] bytes ending on a whole character: the text, and the offset the next
    /// page starts at.
    pub(crate) fn output(&self, since: u64) -> (String, u64) {
        let kept = self.kept.load(Ordering::Acquire);
        let from = since.min(kept);
        let len = (kept - from).min(MAX_PAGE);
        let mut bytes = vec![0u8; usize::try_from(len).unwrap_or(0)];
        let read = std::fs::File::open(&self.path).and_then(|mut f| {
            f.seek(SeekFrom::Start(from))?;
            f.read_exact(&mut bytes)
        });
        if read.is_err() {
            return (String::new(), from);
        }
        // A page ends on a whole character: the next one starts where this one stopped.
        let whole = match std::str::from_utf8(&bytes) {
            Ok(_) => bytes.len(),
            Err(err) if err.error_len().is_none() => err.valid_up_to(),
            Err(_) => bytes.len(),
        };
        let next = from + whole as u64;
        (String::from_utf8_lossy(&bytes[..whole]).into_owned(), next)
    }
}

/// Every job of a session.
#[derive(Debug)]
pub(crate) struct Jobs {
    max: usize,
    timeout: u64,
    /// The jobs' output files: gone with the server, however it ends.
    dir: ProcessTempDir,
    next: AtomicU64,
    list: Mutex<Vec<Arc<Job>>>,
}

/// How a job is started.
pub(crate) struct Start<'a> {
    pub(crate) recipe: Arc<Recipe>,
    pub(crate) op: &'a str,
    pub(crate) ready: Option<regex::bytes::Regex>,
    /// Called once when the job ends, with the job.
    pub(crate) ended: Box<dyn FnOnce(&Job) + Send>,
}

impl Jobs {
    pub(crate) fn new(max: usize, timeout: u64) -> std::io::Result<Self> {
        Ok(Self {
            max,
            timeout,
            dir: ProcessTempDir::new("speccoder-jobs-")?,
            next: AtomicU64::new(1),
            list: Mutex::new(Vec::new()),
        })
    }

    /// The job `id`.
    pub(crate) fn get(&self, id: &str) -> Option<Arc<Job>> {
        lock(&self.list).iter().find(|j| j.id == id).cloned()
    }

    /// Every job, oldest first, as `recipe_jobs` lists them.
    pub(crate) fn summaries(&self) -> Vec<Value> {
        lock(&self.list).iter().map(|j| j.summary()).collect()
    }

    /// Starts a job, or says why not: `[mcp] max_jobs` run already.
    pub(crate) fn start(&self, start: Start<'_>) -> Result<Arc<Job>, String> {
        let mut list = lock(&self.list);
        let running: Vec<&Arc<Job>> = list.iter().filter(|j| j.running()).collect();
        if running.len() >= self.max {
            let names: Vec<String> = running
                .iter()
                .map(|j| format!("{} (`{}`)", j.id, j.op))
                .collect();
            return Err(format!(
                "{} background jobs run already, the most at once ([mcp] max_jobs): {}. Stop one with `recipe_stop` first.",
                running.len(),
                names.join(", ")
            ));
        }
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let job = Arc::new(Job {
            id: format!("job-{n}"),
            op: start.op.to_owned(),
            started: Instant::now(),
            stop: Arc::new(AtomicBool::new(false)),
            path: self.dir.path().join(format!("job-{n}.out")),
            kept: AtomicU64::new(0),
            seen: AtomicU64::new(0),
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
        });
        let file = std::fs::File::create(&job.path)
            .map_err(|err| format!("cannot keep the job's output: {err}"))?;
        // Forget the oldest ended jobs past the bound.
        while list.len() >= MAX_REMEMBERED {
            match list.iter().position(|j| !j.running()) {
                Some(at) => {
                    let gone = list.remove(at);
                    let _ = std::fs::remove_file(&gone.path);
                }
                None => break,
            }
        }
        list.push(Arc::clone(&job));
        drop(list);
        let timeout = self.timeout;
        let Start {
            recipe,
            op,
            ready,
            ended,
        } = start;
        let op = op.to_owned();
        let running = Arc::clone(&job);
        std::thread::Builder::new()
            .name(format!("mcp-{}", job.id))
            .spawn(move || {
                let job = running;
                let result = follow_job(&job, &recipe, &op, timeout, file, ready);
                {
                    let mut state = lock(&job.state);
                    state.secs = Some(job.started.elapsed().as_secs_f64());
                    state.result = Some(result);
                }
                job.changed.notify_all();
                ended(&job);
                lock(&job.state).announced = true;
                job.changed.notify_all();
            })
            .map_err(|err| format!("cannot start the job: {err}"))?;
        Ok(job)
    }

    /// Stops every running job and waits for each to end (the session is over).
    pub(crate) fn stop_all(&self) {
        let list: Vec<Arc<Job>> = lock(&self.list).clone();
        for job in &list {
            job.stop();
        }
        for job in list.iter().filter(|j| j.running()) {
            let _ = job.wait_end();
        }
    }

    /// Removes the jobs' output files and their folder, once every job has ended
    /// ([`Self::stop_all`]): `recipe_output` reads nothing after this.
    pub(crate) fn remove_outputs(&self) {
        self.dir.remove();
    }
}

/// Runs the job's op, keeping its output and marking it ready when `ready` matches.
fn follow_job(
    job: &Job,
    recipe: &Recipe,
    op: &str,
    timeout: u64,
    mut file: std::fs::File,
    ready: Option<regex::bytes::Regex>,
) -> Value {
    let mut window: Vec<u8> = Vec::new();
    let mut follower = |progress: Progress<'_>| {
        let new = progress.new_output;
        if new.is_empty() {
            return;
        }
        job.seen.fetch_add(new.len() as u64, Ordering::Relaxed);
        let kept = job.kept.load(Ordering::Relaxed);
        let room = usize::try_from(MAX_JOB_OUTPUT.saturating_sub(kept)).unwrap_or(usize::MAX);
        let take = new.len().min(room);
        if take > 0 && file.write_all(&new[..take]).is_ok() {
            job.kept.fetch_add(take as u64, Ordering::Release);
        }
        if let Some(pattern) = &ready
            && !lock(&job.state).ready
        {
            window.extend_from_slice(new);
            if window.len() > READY_WINDOW {
                window.drain(..window.len() - READY_WINDOW);
            }
            if pattern.is_match(&window) {
                lock(&job.state).ready = true;
                job.changed.notify_all();
                window = Vec::new();
            }
        }
    };
    run_stoppable(
        recipe,
        op,
        Some(timeout),
        &job.stop,
        Some(Follow::Output(&mut follower)),
    )
}

/// The text `recipe_output` and a background start give: the job's line, then its output.
pub(crate) fn job_text(job: &Job, text: &str, next: u64) -> String {
    let summary = job.summary();
    format!(
        "{} `{}`: {} after {} s, {} bytes of output (next offset {next})\n{text}",
        job.id,
        job.op,
        summary["state"].as_str().unwrap_or("running"),
        summary["seconds"],
        summary["output_bytes"]
    )
}

/// How long a background start waits for `ready` at most.
pub(crate) fn ready_wait(secs: Option<u64>) -> Duration {
    Duration::from_secs(secs.unwrap_or(30).clamp(0, 600))
}
