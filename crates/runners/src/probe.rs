//! The probe interface: how detection runs a runner's own listing command.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Runs a listing command (`just --dump …`) for detection. `runners` only declares it; the
/// runtime implements it with its process runner, tests with whatever they need.
pub trait Probe: Sync {
    /// Runs `argv` in `cwd` within `timeout`; gives its stdout when it exits 0, else why not
    /// (missing, could not start, timed out, exit code and stderr).
    fn run(&self, argv: &[&str], cwd: &Path, timeout: Duration) -> Result<Vec<u8>, ProbeError>;

    /// Like [`Probe::run`] with `env` added to the command's environment. A probe that
    /// cannot set variables refuses rather than run the command without them: they are
    /// what keeps the project from choosing the program (`RUSTUP_TOOLCHAIN`).
    fn run_with_env(
        &self,
        argv: &[&str],
        env: &[(&str, &str)],
        cwd: &Path,
        timeout: Duration,
    ) -> Result<Vec<u8>, ProbeError> {
        if env.is_empty() {
            return self.run(argv, cwd, timeout);
        }
        Err(ProbeError::NoEnvironment {
            command: argv.join(" "),
        })
    }
}

/// Why a listing command gave no listing. `command` is the command line as a person would
/// type it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProbeError {
    /// The program is not on the PATH the probe looks in.
    #[error("`{command}` could not start: `{program}` is not on PATH")]
    Missing {
        /// The command line.
        command: String,
        /// Its program.
        program: String,
    },
    /// The system refused to start it.
    #[error("`{command}` could not start: {reason}")]
    NotStarted {
        /// The command line.
        command: String,
        /// What the system said.
        reason: String,
    },
    /// It ran past its deadline and was stopped.
    #[error("`{command}` did not finish within {} s", .timeout.as_secs_f64())]
    TimedOut {
        /// The command line.
        command: String,
        /// The deadline it passed.
        timeout: Duration,
    },
    /// It exited with a code other than 0.
    #[error("`{command}` exited with code {code}{}", said(.stderr))]
    Exited {
        /// The command line.
        command: String,
        /// Its exit code.
        code: i32,
        /// The first lines of its stderr that say something, joined by ` | `.
        stderr: String,
    },
    /// A signal ended it.
    #[error("`{command}` was killed by signal {signal}{}", said(.stderr))]
    Killed {
        /// The command line.
        command: String,
        /// The signal.
        signal: i32,
        /// The first lines of its stderr that say something, joined by ` | `.
        stderr: String,
    },
    /// It printed more than a listing may hold.
    #[error("`{command}` printed {bytes} bytes, more than the {max} a listing may have")]
    TooLong {
        /// The command line.
        command: String,
        /// What it printed.
        bytes: u64,
        /// The most a listing may have.
        max: usize,
    },
    /// The probe cannot give the command the variables it needs, so it did not run it.
    #[error("`{command}` not run: this probe cannot set its environment")]
    NoEnvironment {
        /// The command line.
        command: String,
    },
}

/// `: <stderr>` when the command said something there.
fn said(stderr: &str) -> String {
    if stderr.is_empty() {
        String::new()
    } else {
        format!(": {stderr}")
    }
}

/// The executable `name` would start from `PATH`, as a shell would find it, looking only
/// in absolute folders.
pub fn find_on_path(name: &str, path_var: Option<&OsStr>) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    std::env::split_paths(path_var?)
        // A relative folder (`.`, `node_modules/.bin`) is the project's own: a probe runs in
        // the root, where the project would choose the program.
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(name))
        .find(|candidate| {
            std::fs::metadata(candidate)
                .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What each kind of probe failure says, as detection reports it, as one reviewed
    /// snapshot.
    #[test]
    fn error_texts() {
        let command = || "just --dump --dump-format=json".to_owned();
        let errors = [
            ProbeError::Missing {
                command: command(),
                program: "just".into(),
            },
            ProbeError::NotStarted {
                command: command(),
                reason: "cannot start `just`: Permission denied (os error 13)".into(),
            },
            ProbeError::TimedOut {
                command: command(),
                timeout: Duration::from_millis(2500),
            },
            ProbeError::Exited {
                command: command(),
                code: 3,
                stderr: "error: Justfile does not exist".into(),
            },
            ProbeError::Exited {
                command: command(),
                code: 1,
                stderr: String::new(),
            },
            ProbeError::Killed {
                command: command(),
                signal: 9,
                stderr: String::new(),
            },
            ProbeError::TooLong {
                command: command(),
                bytes: 70_000_000,
                max: 64 << 20,
            },
            ProbeError::NoEnvironment { command: command() },
        ];
        let texts: Vec<String> = errors.iter().map(ToString::to_string).collect();
        crate::snapshot_settings()
            .bind(|| insta::assert_snapshot!("probe_errors", texts.join("\n")));
    }
}
