//! Following a task's output while it runs. Every run writes its whole output to a file as
//! it arrives; reading that file as it grows shows the output before the task ends, without
//! a second path for the bytes through the process runner.

use std::fs::File;
use std::io::{ErrorKind, Read};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How often the file is looked at while nothing new has arrived.
const POLL: Duration = Duration::from_millis(50);

/// Bytes read from the file per call of the follower, so memory stays bounded whatever the
/// task prints.
const CHUNK: usize = 64 * 1024;

/// What a follower is told while a task runs.
#[derive(Debug, Clone, Copy)]
pub struct Progress<'a> {
    /// Output that arrived since the last call (often empty).
    pub new_output: &'a [u8],
    /// Bytes of output so far.
    pub total_bytes: u64,
    /// Time since the task started.
    pub elapsed: Duration,
}

/// Told about a run's output as it grows: called from a thread of its own about every 50 ms
/// while the task runs, and once more after it ended.
pub type Follower<'a> = &'a mut (dyn FnMut(Progress<'_>) + Send);

/// What a follower wants to be told.
pub enum Follow<'a> {
    /// The output itself as it arrives (a terminal).
    Output(Follower<'a>),
    /// Only how much there is so far: the file is not read (a progress report).
    Size(Follower<'a>),
}

impl std::fmt::Debug for Follow<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Output(_) => "Follow::Output",
            Self::Size(_) => "Follow::Size",
        })
    }
}

/// Calls `run`, telling the follower about the file at `path` until `run` returns.
pub(crate) fn while_running<T>(path: &Path, follow: Follow<'_>, run: impl FnOnce() -> T) -> T {
    let done = AtomicBool::new(false);
    let start = Instant::now();
    std::thread::scope(|scope| {
        let watcher = scope.spawn(|| watch(path, &done, follow, start));
        let out = run();
        done.store(true, Ordering::SeqCst);
        watcher.thread().unpark();
        // A follower that panicked has only lost its view of the output; the run's
        // outcome stands.
        let _ = watcher.join();
        out
    })
}

fn watch(path: &Path, done: &AtomicBool, follow: Follow<'_>, start: Instant) {
    let (follower, read) = match follow {
        Follow::Output(follower) => (follower, true),
        Follow::Size(follower) => (follower, false),
    };
    let mut file: Option<File> = None;
    let mut total: u64 = 0;
    let mut buf = vec![0u8; CHUNK];
    loop {
        // Read before draining: everything written before the run returned is then seen
        // by the last pass.
        let finished = done.load(Ordering::SeqCst);
        if file.is_none() {
            file = File::open(path).ok();
        }
        let mut told = false;
        if let Some(file) = &file
            && !read
        {
            total = file.metadata().map_or(total, |meta| meta.len());
        } else if let Some(file) = &mut file {
            loop {
                match file.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => {
                        total += n as u64;
                        follower(Progress {
                            new_output: &buf[..n],
                            total_bytes: total,
                            elapsed: start.elapsed(),
                        });
                        told = true;
                    }
                    Err(err) if err.kind() == ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
        }
        if !told {
            follower(Progress {
                new_output: &[],
                total_bytes: total,
                elapsed: start.elapsed(),
            });
        }
        if finished {
            return;
        }
        std::thread::park_timeout(POLL);
    }
}
