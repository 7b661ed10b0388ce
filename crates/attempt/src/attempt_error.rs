//! [`AttemptError`]: why an attempt, or `--baseline`, could not start. Once the attempt's
//! folder exists every outcome is a story instead; these are the refusals before it.
//!
//! Each variant says whose move it is: the request or the configuration (fix the command
//! line, the bundle or speccoder.toml), the machine or the repository (install, free or
//! wait for something), or the file system. The CLI gives each its own exit code.

use speccoder_config::NoExecutor;

/// Why an attempt could not start. Nothing was committed, and the repository's branches
/// are as they were.
#[derive(Debug, thiserror::Error)]
pub enum AttemptError {
    /// No external agent is configured.
    #[error(transparent)]
    NoExecutor(#[from] NoExecutor),
    /// The bundle is no task bundle, or names no usable task.
    #[error("{0}")]
    Bundle(String),
    /// A file given on the command line (the bundle, a withheld test) could not be read.
    #[error("{message}")]
    Read {
        /// What could not be read, and why.
        message: String,
        /// What the system said.
        kind: std::io::ErrorKind,
    },
    /// `--withheld` names a folder that cannot hold withheld tests.
    #[error("{0}")]
    Withheld(String),
    /// The configuration cannot be carried out: a branch name it makes is invalid, or its
    /// path rules do not build.
    #[error("{0}")]
    Config(String),
    /// The checks: one does not resolve, or there are none to run.
    #[error("{0}")]
    Checks(String),
    /// The project is not in a git repository with a commit, or git failed.
    #[error("{0}")]
    Repository(String),
    /// The branch a pass would go to exists already.
    #[error(
        "the branch `{branch}` exists already: merge or delete it (`git branch -D {branch}`) before a new attempt{}",
        settled.as_ref().map_or_else(String::new, |note| format!(" ({note})"))
    )]
    BranchExists {
        /// The branch.
        branch: String,
        /// What happened to the run that left it, when an earlier run was settled now.
        settled: Option<String>,
    },
    /// The branch a pass would go to cannot be made beside an existing one.
    #[error(
        "the branch `{branch}` cannot be made: the branch `{other}` exists, and git cannot keep both (one would be a folder of the other); rename it (`git branch -m {other} …`) or choose another name in `[attempt] branch`"
    )]
    BranchConflict {
        /// The branch.
        branch: String,
        /// The existing branch in its way.
        other: String,
    },
    /// Another attempt at the same task is running.
    #[error(
        "another attempt at this task is running (speccoder, pid {pid}); wait for it to end, or stop it with `kill {pid}`"
    )]
    Busy {
        /// Its process id.
        pid: u64,
    },
    /// Withheld tests need a private mount namespace, and this machine makes none.
    #[error(
        "withheld tests need a private mount namespace to be hidden from the agent, and none could be made here: set `[attempt] allow_unisolated_withheld = true` to run without one"
    )]
    NoSandbox,
    /// The sandbox cannot be made as promised on this machine, and nobody asked for none.
    #[error(
        "the agent's and the checks' sandbox cannot be made here ({0}); speccoder never runs them with less: fix what is named, or run without a sandbox on purpose with SPECCODER_ISOLATION=none in your environment"
    )]
    SandboxRefused(String),
    /// `[attempt] setup` failed.
    #[error("{0}")]
    Setup(String),
    /// A folder or file of the attempt's own could not be made, read or written.
    #[error("{0}")]
    Io(String),
    /// A stop signal came before the agent started.
    #[error("stopped by a signal before the agent started")]
    Stopped,
}
