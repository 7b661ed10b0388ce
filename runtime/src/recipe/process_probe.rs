//! [`ProcessProbe`]: the runners' probe interface backed by the process runner.

use std::path::Path;
use std::time::Duration;

use speccoder_runners::{Probe, quote};

use crate::process::{CaptureSpec, CommandRunner, LocalRunner, OutputMode, RunRequest};

/// The most a listing command may print; more is a failure, not a listing.
const MAX_PROBE_OUTPUT: usize = 64 * 1024 * 1024;

/// Runs detection probes through [`LocalRunner`]: split capture, bounded output, the probe
/// deadline, and a non-interactive environment.
#[derive(Debug, Default)]
pub struct ProcessProbe {
    runner: LocalRunner,
    env: Vec<(String, String)>,
}

impl ProcessProbe {
    /// A probe whose commands also get these variables (a `PATH`, say).
    pub fn with_env(env: Vec<(String, String)>) -> Self {
        Self {
            runner: LocalRunner::default(),
            env,
        }
    }
}

impl Probe for ProcessProbe {
    fn run(&self, argv: &[&str], cwd: &Path, timeout: Duration) -> Result<Vec<u8>, String> {
        let shown = argv.join(" ");
        let command: Vec<String> = argv.iter().map(|a| quote(a)).collect();
        let mut request = RunRequest::new(command.join(" "), cwd, timeout);
        request.mode = OutputMode::Split;
        request.grace = Duration::from_millis(500);
        request.env = super::task_env(&self.env);
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
            .map_err(|err| format!("`{shown}` could not start: {err}"))?;
        if output.timed_out {
            return Err(format!(
                "`{shown}` did not finish within {} s",
                timeout.as_secs_f64()
            ));
        }
        if !output.success() {
            let stderr = output.stderr.as_ref().map(|c| c.text()).unwrap_or_default();
            // Tools print the error first and context after it.
            let tail = first_lines(&stderr, 6);
            let how = match output.exit {
                crate::process::Exit::Code(code) => format!("exited with code {code}"),
                crate::process::Exit::Signal(signal) => format!("was killed by signal {signal}"),
            };
            return Err(if tail.is_empty() {
                format!("`{shown}` {how}")
            } else {
                format!("`{shown}` {how}: {tail}")
            });
        }
        if output.stdout.is_truncated() {
            return Err(format!(
                "`{shown}` printed {} bytes, more than the {MAX_PROBE_OUTPUT} a listing may have",
                output.stdout.total_bytes
            ));
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
