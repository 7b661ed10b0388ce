//! Running one command line through `/bin/sh -c` with a deadline, bounded capture and
//! process-group cleanup.

mod capture;
mod cgroup;
mod cleanup;
mod clone_into;
mod local_spawner;
mod platform;
mod registry;
mod sweep;

use std::path::PathBuf;
use std::time::Duration;

pub use capture::{Captured, Spill};
pub use cgroup::cgroups_available;
pub use cleanup::ProcessTempDir;
pub use cleanup::RemoveOnSignal;
pub use local_spawner::{Cgroups, LocalSpawner};
pub use platform::input_hung_up;
pub use registry::{
    ExitDeferral, defer_exit, reaper_main, shutdown_signal, start_reaper, stop_all_process_groups,
    stop_process_groups_on_signals,
};
pub use sweep::start_time;

/// The longest single argument Linux passes to a program (`MAX_ARG_STRLEN` less the NUL).
/// A longer command line goes to `sh` through a script file instead.
pub const MAX_ARG_BYTES: usize = 131_071;

/// How stdout and stderr are captured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputMode {
    /// One pipe behind both, so the bytes keep the order the command wrote them in.
    Merged,
    /// Two pipes, for programs whose stdout is a machine channel (JSON) and stderr a log.
    Split,
}

/// How much of one stream to keep in memory, and whether to keep all of it on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptureSpec {
    /// Bytes kept from the start.
    pub head_bytes: usize,
    /// Bytes kept from the end.
    pub tail_bytes: usize,
    /// A file to write the whole stream to (created or truncated).
    pub spill_to: Option<PathBuf>,
    /// The most bytes written to the spill file; past it the stream is still counted.
    pub spill_max_bytes: u64,
}

impl Default for CaptureSpec {
    fn default() -> Self {
        Self {
            head_bytes: 256 * 1024,
            tail_bytes: 768 * 1024,
            spill_to: None,
            spill_max_bytes: 4 * 1024 * 1024 * 1024,
        }
    }
}

/// One command to run.
#[derive(Debug, Clone)]
pub struct RunRequest {
    /// The shell text given to `/bin/sh -c`.
    pub command: String,
    /// The working directory; it must exist and be a directory.
    pub cwd: PathBuf,
    /// Variables set on top of the caller's environment.
    pub env: Vec<(String, String)>,
    /// Whether the command gets `env` alone, none of the caller's environment.
    pub env_clear: bool,
    /// Set from another thread to stop the command as its deadline would: TERM to the
    /// group (and cgroup), the grace, then KILL. The run then reports `stopped`.
    pub stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    /// When the command is stopped.
    pub timeout: Duration,
    /// Time between SIGTERM and SIGKILL once the deadline has passed.
    pub grace: Duration,
    /// Merged or split capture.
    pub mode: OutputMode,
    /// stdout, or the merged stream.
    pub stdout: CaptureSpec,
    /// stderr in split mode; unused when merged.
    pub stderr: CaptureSpec,
    /// A file the command reads as stdin; `None` closes stdin.
    pub stdin: Option<PathBuf>,
    /// Whether the shell may start the command.
    pub start: StartMode,
    /// The most data memory (`RLIMIT_DATA`, `ulimit -d`) the command may take, in KiB, set
    /// before its first instruction; `None` leaves this process's limit.
    pub data_limit_kib: Option<u64>,
}

/// How a command line is started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StartMode {
    /// A line of plain words starts its program directly; when that program cannot be
    /// started, or the line is more than plain words, `/bin/sh -c` runs it, so it behaves
    /// and fails (127, 126) as in a shell.
    #[default]
    ShellWhenNeeded,
    /// The line must be plain words (see [`crate::quote::split_words`]); its program is
    /// started directly, and a program that cannot be started is a [`SpawnError::Start`],
    /// never an exit code: a program that itself exits 127 stays distinct from one missing.
    DirectOnly,
}

impl RunRequest {
    /// A request with the defaults: merged output, a 2 s grace, the default capture sizes.
    pub fn new(command: impl Into<String>, cwd: impl Into<PathBuf>, timeout: Duration) -> Self {
        Self {
            command: command.into(),
            cwd: cwd.into(),
            env: Vec::new(),
            env_clear: false,
            stop: None,
            timeout,
            grace: Duration::from_secs(2),
            mode: OutputMode::Merged,
            stdout: CaptureSpec::default(),
            stderr: CaptureSpec::default(),
            stdin: None,
            start: StartMode::ShellWhenNeeded,
            data_limit_kib: None,
        }
    }
}

/// How the shell ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// It exited with this code.
    Code(i32),
    /// A signal ended it.
    Signal(i32),
}

/// What happened to processes that outlived the shell.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Leftovers {
    /// Processes of the command's group were still alive after the shell exited and were
    /// killed.
    pub killed_group: bool,
    /// Processes outside the group that held the output pipe and were killed.
    pub swept: u32,
    /// The pipes were given up while something still held them open.
    pub abandoned_pipes: bool,
    /// Processes that had left the group were still in the run's cgroup and were killed
    /// (see [`cgroups_available`]).
    pub cgroup_killed: bool,
}

/// The outcome of a command that started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOutput {
    /// Exit code or signal of the shell.
    pub exit: Exit,
    /// The deadline passed and the group was signalled.
    pub timed_out: bool,
    /// The caller stopped the run ([`RunRequest::stop`]) before its deadline and the group
    /// was signalled; `timed_out` is then false.
    pub stopped: bool,
    /// From start to return.
    pub duration: Duration,
    /// stdout, or both streams in merged mode.
    pub stdout: Captured,
    /// stderr in split mode.
    pub stderr: Option<Captured>,
    /// Processes that outlived the shell.
    pub leftovers: Leftovers,
}

impl RunOutput {
    /// The exit code a shell would report: the code, 128 + signal, or 124 after a timeout.
    pub fn shell_code(&self) -> i32 {
        if self.timed_out {
            return 124;
        }
        match self.exit {
            Exit::Code(code) => code,
            Exit::Signal(signal) => 128 + signal,
        }
    }

    /// Whether the command exited 0 within its deadline, unstopped.
    pub fn success(&self) -> bool {
        !self.timed_out && !self.stopped && self.exit == Exit::Code(0)
    }
}

/// Why a command could not be started.
#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    /// The working directory is missing.
    #[error("working directory does not exist: {}", .0.display())]
    CwdNotFound(PathBuf),
    /// The working directory is something else than a directory.
    #[error("working directory is not a directory: {}", .0.display())]
    CwdNotDirectory(PathBuf),
    /// A spill file could not be created.
    #[error("cannot create the output file {}: {source}", path.display())]
    SpillFile {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The system refused to start the program.
    #[error("cannot start `{program}`: {source}")]
    Start {
        /// The program (`/bin/sh`, or the first word of a plain command).
        program: String,
        /// Why.
        source: std::io::Error,
    },
    /// A command to be started directly is not a line of plain words.
    #[error("not a plain command line, so it cannot start without a shell: {0}")]
    NotPlain(String),
    /// The file given as stdin could not be opened.
    #[error("cannot open {} as stdin: {source}", path.display())]
    Stdin {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Setting the run up or watching it failed (pipes, poll).
    #[error("cannot run the command: {0}")]
    Io(#[from] std::io::Error),
}

/// Runs command lines. The runtime uses [`LocalSpawner`]; the trait lets a host put its own
/// (a sandbox, a remote machine) in its place.
pub trait Spawner: Send + Sync {
    /// Runs one command and waits for it within its deadline.
    fn run(&self, request: &RunRequest) -> Result<RunOutput, SpawnError>;
}
