//! [`Outbox`]: the messages waiting for stdout, and the thread that writes them.
//!
//! Only that thread ever writes, so no other thread blocks on a client that stopped
//! reading: the reader still sees stdin close, and the server can stop the running task and
//! exit while a write hangs on a full pipe.

use std::collections::VecDeque;
use std::io::Write;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// The most bytes waiting to be written before the server stops reading requests and
/// starting calls, so a client that sends without reading cannot make the server hold
/// unbounded output. One message longer than this is still queued whole.
pub(crate) const MAX_UNSENT_BYTES: usize = 16 * 1024 * 1024;

/// Messages waiting for stdout, written in the order they were queued.
#[derive(Debug)]
pub(crate) struct Outbox {
    queue: Mutex<Queue>,
    /// Signalled when a message is queued or written, and when the phase changes.
    changed: Condvar,
}

#[derive(Debug)]
struct Queue {
    lines: VecDeque<Vec<u8>>,
    /// Bytes queued or being written.
    unsent: usize,
    phase: Phase,
}

/// Where the outbox is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Taking messages.
    Open,
    /// The session is over: what is queued is written, then the writer stops.
    Closing,
    /// A write failed (the client is gone): nothing more is written.
    Failed,
}

impl Outbox {
    /// Starts the thread that writes to `output`; `on_failure` runs on it when a write
    /// fails.
    pub(crate) fn start(
        output: Box<dyn Write + Send>,
        on_failure: impl FnOnce() + Send + 'static,
    ) -> std::io::Result<Arc<Self>> {
        let outbox = Arc::new(Self {
            queue: Mutex::new(Queue {
                lines: VecDeque::new(),
                unsent: 0,
                phase: Phase::Open,
            }),
            changed: Condvar::new(),
        });
        let writer = Arc::clone(&outbox);
        std::thread::Builder::new()
            .name("mcp-writer".into())
            .spawn(move || {
                if writer.write_all(output).is_err() {
                    on_failure();
                }
            })?;
        Ok(outbox)
    }

    fn lock(&self) -> MutexGuard<'_, Queue> {
        // A thread that panicked while holding the lock left a queue that is still whole.
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues one message (a line of JSON without its newline); dropped once a write
    /// failed, since nobody can read it.
    pub(crate) fn push(&self, message: String) {
        let mut line = message.into_bytes();
        line.push(b'\n');
        let mut queue = self.lock();
        if queue.phase == Phase::Failed {
            return;
        }
        queue.unsent += line.len();
        queue.lines.push_back(line);
        drop(queue);
        self.changed.notify_all();
    }

    /// Queues a message that may be skipped (a progress notification): skipped while the
    /// client is behind, so a long task's progress does not pile up unread.
    pub(crate) fn push_unless_behind(&self, message: String) {
        if self.has_room() {
            self.push(message);
        }
    }

    /// Whether more may be queued: the client is not behind, or no longer matters.
    pub(crate) fn has_room(&self) -> bool {
        let queue = self.lock();
        queue.unsent <= MAX_UNSENT_BYTES || queue.phase != Phase::Open
    }

    /// Waits until there is room, or `timeout` passes.
    pub(crate) fn wait_for_room(&self, timeout: Duration) {
        let queue = self.lock();
        let _ = self
            .changed
            .wait_timeout_while(queue, timeout, |queue| {
                queue.unsent > MAX_UNSENT_BYTES && queue.phase == Phase::Open
            })
            .unwrap_or_else(PoisonError::into_inner);
    }

    /// Ends the session's output: what is queued is still written, for at most `timeout`
    /// (a client that does not read must not keep the server alive).
    pub(crate) fn close(&self, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        let mut queue = self.lock();
        if queue.phase == Phase::Open {
            queue.phase = Phase::Closing;
        }
        self.changed.notify_all();
        while queue.unsent > 0 && queue.phase == Phase::Closing {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return;
            }
            queue = self
                .changed
                .wait_timeout(queue, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// The writer: writes the queue, one whole message per write, until the session is
    /// over and the queue empty, or a write fails.
    fn write_all(&self, mut output: Box<dyn Write + Send>) -> std::io::Result<()> {
        loop {
            let line = {
                let mut queue = self.lock();
                loop {
                    if let Some(line) = queue.lines.pop_front() {
                        break line;
                    }
                    if queue.phase != Phase::Open {
                        return Ok(());
                    }
                    queue = self
                        .changed
                        .wait(queue)
                        .unwrap_or_else(PoisonError::into_inner);
                }
            };
            let written = output.write_all(&line).and_then(|()| output.flush());
            let mut queue = self.lock();
            match written {
                Ok(()) => queue.unsent -= line.len(),
                Err(err) => {
                    queue.phase = Phase::Failed;
                    queue.lines.clear();
                    queue.unsent = 0;
                    drop(queue);
                    self.changed.notify_all();
                    return Err(err);
                }
            }
            drop(queue);
            self.changed.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An output that fails every write, as a closed pipe does.
    struct Closed;

    impl Write for Closed {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// An output that keeps what is written.
    #[derive(Clone, Default)]
    struct Kept(Arc<Mutex<Vec<u8>>>);

    impl Write for Kept {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().expect("lock").extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn messages_are_written_in_order_and_closing_writes_what_is_queued() {
        let kept = Kept::default();
        let outbox = Outbox::start(Box::new(kept.clone()), || {}).expect("starts");
        for n in 0..100 {
            outbox.push(format!("{n}"));
        }
        outbox.close(Duration::from_secs(10));
        let want: String = (0..100).map(|n| format!("{n}\n")).collect();
        assert_eq!(String::from_utf8_lossy(&kept.0.lock().expect("lock")), want);
    }

    #[test]
    fn a_failed_write_is_reported_and_makes_room() {
        let (failed, reported) = std::sync::mpsc::channel();
        let outbox = Outbox::start(Box::new(Closed), move || {
            let _ = failed.send(());
        })
        .expect("starts");
        outbox.push("x".repeat(MAX_UNSENT_BYTES + 1));
        reported
            .recv_timeout(Duration::from_secs(10))
            .expect("the failure is reported");
        assert!(outbox.has_room());
        // Closing does not wait for a reader that is gone.
        outbox.close(Duration::from_secs(60));
    }
}
