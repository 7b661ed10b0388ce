//! One attempt by an external agent: prompt file, start in the worktree, deadline, cleanup.

use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use speccoder_foundation::quote::single_quote;

use super::argv::{ClaudePermissions, Containment, Placement, agent_argv};
use super::outcome::{Finished, Outcome, failed, interpret};
use super::recipe_server::RecipeServer;
use speccoder_config::{ExecutorKind, ExternalExecutor};
use speccoder_foundation::process::{
    CaptureSpec, Exit, OutputMode, RemoveOnSignal, RunRequest, Spawner, StartMode,
};

/// What one attempt needs.
#[derive(Debug, Clone, Copy)]
pub struct Attempt<'a> {
    /// The configured agent.
    pub executor: &'a ExternalExecutor,
    /// Claude rules of the project's allowances.
    pub claude_rules: &'a [String],
    /// Where the agent works.
    pub worktree: &'a Path,
    /// A directory the agent must not read.
    pub withheld: Option<&'a Path>,
    /// The whole prompt.
    pub prompt: &'a str,
    /// The recipe tool's MCP server the agent gets, if any.
    pub recipe_server: Option<&'a RecipeServer>,
    /// Where the agent's private folder (prompt, settings, last message) is made; the
    /// temporary folder when `None`. A sandboxed agent gets a private `/tmp`, so its folder
    /// must be somewhere it can see.
    pub folder: Option<&'a Path>,
    /// Whose sandbox holds the agent.
    pub containment: Containment,
    /// Folders besides the worktree the agent writes to.
    pub writable: &'a [std::path::PathBuf],
}

/// A run id `external_<kind>_<unix seconds>_<pid>_<n>`: the process id and a counter make
/// two runs in the same second differ, in one process or several.
pub fn new_run_id(kind: &str) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("external_{kind}_{secs}_{}_{n}", std::process::id())
}

/// The grace between SIGTERM and SIGKILL for an agent: a tenth of its deadline, 1 to 10 s,
/// so a CLI can stop its own children and write its transcript.
fn grace(timeout: Duration) -> Duration {
    (timeout / 10).clamp(Duration::from_secs(1), Duration::from_secs(10))
}

impl Attempt<'_> {
    /// Runs the attempt with `runner` and interprets its result. Never fails: a start
    /// failure or a missed deadline is a `failed` outcome.
    #[expect(
        clippy::too_many_lines,
        reason = "over 80 lines when the limit was set; split it when it next changes"
    )]
    pub fn run(&self, runner: &dyn Spawner) -> Outcome {
        let run_id = new_run_id(self.executor.kind.name());
        let cannot_start = |why: String| {
            failed(
                run_id.clone(),
                format!("the agent could not be started: {why}"),
            )
        };
        // A private folder (mode 0700) for the prompt, Claude's settings and Codex's last
        // message; removed when `dir` is dropped, or by the signal thread if this process is
        // told to stop first.
        let mut builder = tempfile::Builder::new();
        builder
            .prefix("speccoder-agent-")
            .permissions(std::fs::Permissions::from_mode(0o700));
        let made = match self.folder {
            Some(folder) => builder.tempdir_in(folder),
            None => builder.tempdir(),
        };
        let dir = match made {
            Ok(dir) => dir,
            Err(err) => return cannot_start(format!("cannot create a temporary folder: {err}")),
        };
        let _remove_on_signal = RemoveOnSignal::new(dir.path());
        let prompt_file = dir.path().join("prompt.md");
        let last_message = dir.path().join("last-message.txt");
        let settings = dir.path().join("settings.json");
        if let Err(err) = write_private(&prompt_file, self.prompt.as_bytes()) {
            return cannot_start(format!("cannot write the prompt file: {err}"));
        }
        if self.executor.kind == ExecutorKind::Claude {
            let permissions = match ClaudePermissions::new(self.claude_rules, self.withheld) {
                Ok(permissions) => permissions,
                Err(err) => return cannot_start(err.to_string()),
            };
            let json = permissions.settings_json(self.containment).to_string();
            if let Err(err) = write_private(&settings, json.as_bytes()) {
                return cannot_start(format!("cannot write the settings file: {err}"));
            }
        }
        let argv = agent_argv(
            self.executor,
            Placement {
                worktree: self.worktree,
                last_message: &last_message,
                settings: &settings,
                recipe_server: self.recipe_server,
                containment: self.containment,
                writable: self.writable,
            },
        );
        // The prompt arrives on stdin: an argument could be mistaken for a value of an option
        // that takes several (Claude's `--mcp-config`), and Codex waits forever on an open
        // stdin. The program is
        // started directly, never through a shell, so a program that cannot start is told
        // apart from one that runs and exits 127.
        let words: Vec<String> = argv.iter().map(|w| single_quote(w)).collect();
        let command = words.join(" ");
        let timeout = Duration::from_secs(self.executor.timeout_secs);
        let mut request = RunRequest::new(command, self.worktree, timeout);
        request.stdin = Some(prompt_file.clone());
        request.start = StartMode::DirectOnly;
        request.mode = OutputMode::Split;
        request.grace = grace(timeout);
        request.stdout = CaptureSpec {
            head_bytes: 1 << 20,
            tail_bytes: 1 << 20,
            ..CaptureSpec::default()
        };
        request.stderr = CaptureSpec {
            head_bytes: 64 << 10,
            tail_bytes: 64 << 10,
            ..CaptureSpec::default()
        };
        let output = match runner.run(&request) {
            Ok(output) => output,
            Err(err) => return cannot_start(err.to_string()),
        };
        if output.timed_out {
            return failed(
                run_id,
                format!(
                    "the agent did not finish within {} s",
                    self.executor.timeout_secs
                ),
            );
        }
        let stdout = output.stdout.text();
        let stderr = output.stderr.as_ref().map(|c| c.text()).unwrap_or_default();
        let exit_code = match output.exit {
            Exit::Code(code) => Some(code),
            Exit::Signal(_) => None,
        };
        let finished = Finished {
            kind: self.executor.kind,
            exit_code,
            stdout,
            stderr,
            last_message: std::fs::read_to_string(&last_message).ok(),
        };
        interpret(run_id, &finished)
    }
}

/// Writes a new file only its owner can read (0600).
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_ids_are_unique_within_a_second() {
        let a = new_run_id("claude");
        let b = new_run_id("claude");
        assert_ne!(a, b);
        assert!(a.starts_with("external_claude_"));
        let secs: u64 = a
            .split('_')
            .nth(2)
            .and_then(|s| s.parse().ok())
            .expect("seconds");
        assert!(secs > 1_700_000_000);
    }

    #[test]
    fn grace_scales_with_the_deadline() {
        assert_eq!(grace(Duration::from_secs(2)), Duration::from_secs(1));
        assert_eq!(grace(Duration::from_secs(50)), Duration::from_secs(5));
        assert_eq!(grace(Duration::from_secs(1800)), Duration::from_secs(10));
    }
}
