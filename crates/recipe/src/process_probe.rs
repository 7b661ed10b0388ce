//! [`ProcessProbe`]: the runners' probe interface backed by the process runner.

use std::path::Path;
use std::time::Duration;

use speccoder_foundation::quote::quote;
use speccoder_runners::{Probe, ProbeError, find_on_path};

use speccoder_foundation::process::{
    CaptureSpec, Exit, LocalSpawner, OutputMode, RunRequest, Spawner,
};

/// The most a listing command may print; more is a failure, not a listing.
const MAX_PROBE_OUTPUT: usize = 64 * 1024 * 1024;

/// The most data memory a probe may take, in KiB (`RLIMIT_DATA`, `ulimit -d`): whatever a repository makes
/// its tool read (a device in place of a file no check named), the probe fails at this
/// bound instead of taking the machine's memory. Measured: `just`, go-task, `cargo
/// metadata` and `rustup` list under it; Go reserves address space without counting here,
/// which is why this is not `ulimit -v`.
pub(crate) const PROBE_MEMORY_KIB: u64 = 1 << 20;

/// What a probe's failure says when it ran out of time ([`ProbeError::TimedOut`]); the cache
/// does not keep those.
pub(crate) const TIMED_OUT: &str = "did not finish within";

/// Runs detection probes through [`LocalSpawner`]: split capture, bounded output, the probe
/// deadline, and a non-interactive environment.
#[derive(Debug, Default)]
pub struct ProcessProbe {
    runner: LocalSpawner,
    env: Vec<(String, String)>,
}

impl ProcessProbe {
    /// A probe whose commands also get these variables (a `PATH`, say).
    pub fn with_env(env: Vec<(String, String)>) -> Self {
        Self {
            runner: LocalSpawner::default(),
            env,
        }
    }
}

impl ProcessProbe {
    /// `PATH` for a probe: this probe's own or the process's, without relative folders.
    /// A probe runs in the project root, where `.` or `node_modules/.bin` would let the
    /// project choose the program that lists it.
    fn absolute_path_var(&self) -> Option<String> {
        let given = self
            .env
            .iter()
            .rev()
            .find(|(key, _)| key == "PATH")
            .map(|(_, value)| std::ffi::OsString::from(value))
            .or_else(|| std::env::var_os("PATH"))?;
        let kept: Vec<std::path::PathBuf> = std::env::split_paths(&given)
            .filter(|dir| dir.is_absolute())
            .collect();
        std::env::join_paths(kept)
            .ok()
            .map(|joined| joined.to_string_lossy().into_owned())
    }
}

impl Probe for ProcessProbe {
    fn run(&self, argv: &[&str], cwd: &Path, timeout: Duration) -> Result<Vec<u8>, ProbeError> {
        self.run_with_env(argv, &[], cwd, timeout)
    }

    fn run_with_env(
        &self,
        argv: &[&str],
        env: &[(&str, &str)],
        cwd: &Path,
        timeout: Duration,
    ) -> Result<Vec<u8>, ProbeError> {
        let shown = argv.join(" ");
        let path_var = self.absolute_path_var();
        // A program looked up on PATH that is not there is told apart from one that ran and
        // failed: the shell would say so only as exit 127, which a tool may exit with too.
        if let Some(program) = argv.first().filter(|p| !p.contains('/'))
            && find_on_path(program, path_var.as_deref().map(std::ffi::OsStr::new)).is_none()
        {
            return Err(ProbeError::Missing {
                command: shown,
                program: (*program).to_owned(),
            });
        }
        let command: Vec<String> = argv.iter().map(|a| quote(a)).collect();
        let mut request = RunRequest::new(command.join(" "), cwd, timeout);
        // Set before the tool's first instruction (see `RunRequest::data_limit_kib`).
        request.data_limit_kib = Some(PROBE_MEMORY_KIB);
        request.mode = OutputMode::Split;
        request.grace = Duration::from_millis(500);
        request.env = super::task_env(&self.env);
        if let Some(path) = path_var {
            request.env.push(("PATH".to_owned(), path));
        }
        request
            .env
            .extend(env.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
        request.stdout = CaptureSpec {
            head_bytes: MAX_PROBE_OUTPUT,
            tail_bytes: 0,
            ..CaptureSpec::default()
        };
        request.stderr = CaptureSpec {
            head_bytes: 4096,
            tail_bytes: 0,
            ..CaptureSpec::default()
        };
        let output = self
            .runner
            .run(&request)
            .map_err(|err| ProbeError::NotStarted {
                command: shown.clone(),
                reason: err.to_string(),
            })?;
        if output.timed_out {
            return Err(ProbeError::TimedOut {
                command: shown,
                timeout,
            });
        }
        if !output.success() {
            let stderr = output.stderr.as_ref().map(|c| c.text()).unwrap_or_default();
            // Tools print the error first and context after it.
            let stderr = first_lines(&stderr, 6);
            return Err(match output.exit {
                Exit::Code(code) => ProbeError::Exited {
                    command: shown,
                    code,
                    stderr,
                },
                Exit::Signal(signal) => ProbeError::Killed {
                    command: shown,
                    signal,
                    stderr,
                },
            });
        }
        if output.stdout.is_truncated() {
            return Err(ProbeError::TooLong {
                command: shown,
                bytes: output.stdout.total_bytes,
                max: MAX_PROBE_OUTPUT,
            });
        }
        Ok(output.stdout.head)
    }
}

/// The first `n` lines of `text` that say something, trimmed and joined by ` | `.
fn first_lines(text: &str, n: usize) -> String {
    text.lines()
        .map(str::trim)
        .filter(|l| l.chars().any(char::is_alphanumeric))
        .take(n)
        .collect::<Vec<_>>()
        .join(" | ")
}
