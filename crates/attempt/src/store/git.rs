//! Running `git` for the attempt: fixed options that keep the user's and the repository's
//! programs out (hooks, signing, fsmonitor), no prompts, no optional locks.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Options given to every git command. Hooks and the fsmonitor are programs the repository
/// (or an agent that wrote into it) chooses, and signing may wait for a passphrase.
const FIXED_OPTIONS: &[&str] = &[
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "commit.gpgsign=false",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "advice.detachedHead=false",
];

/// The identity of commits made when the repository has none configured.
const FALLBACK_NAME: &str = "speccoder";
/// The e-mail of commits made when the repository has none configured.
const FALLBACK_EMAIL: &str = "speccoder@localhost";

/// `git` in one directory.
#[derive(Debug, Clone)]
pub(crate) struct Git {
    dir: PathBuf,
}

impl Git {
    /// Git working in `dir`.
    pub(crate) fn new(dir: &Path) -> Self {
        Self {
            dir: dir.to_path_buf(),
        }
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new("git");
        command
            .current_dir(&self.dir)
            .args(FIXED_OPTIONS)
            .args(args)
            .stdin(Stdio::null())
            // Its own process group: a Ctrl-C at the terminal reaches speccoder, which
            // decides how to stop, and never kills git halfway through a worktree change.
            .process_group(0)
            // Variables that would point git at another repository or index than `dir`'s.
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE")
            .env_remove("GIT_COMMON_DIR")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_OPTIONAL_LOCKS", "0")
            .env("GIT_EDITOR", "true")
            .env("LC_ALL", "C");
        command
    }

    /// Runs git and returns its stdout; a non-zero exit is an error naming the command and
    /// its stderr.
    pub(crate) fn run(&self, args: &[&str]) -> Result<String, String> {
        self.run_with(args, &[], None)
    }

    /// Runs git with `env` added and `input` on stdin.
    pub(crate) fn run_with(
        &self,
        args: &[&str],
        env: &[(&str, &str)],
        input: Option<&[u8]>,
    ) -> Result<String, String> {
        let mut command = self.command(args);
        command.envs(env.iter().copied());
        output_of(command, args, input).map(|out| String::from_utf8_lossy(&out).into_owned())
    }

    /// Whether git exits 0.
    pub(crate) fn succeeds(&self, args: &[&str]) -> bool {
        self.command(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }

    /// The author and committer of the attempt's commits, as variables: the repository's
    /// identity (its configuration, the user's included), or speccoder's when none is
    /// configured, so that an attempt never fails on a missing `user.name`. Given as
    /// variables because the attempt's own store reads no configuration of the user's;
    /// variables the user set already win.
    pub(crate) fn identity_env(&self) -> Vec<(&'static str, String)> {
        let get = |key: &str| {
            self.run(&["config", "--get", key])
                .ok()
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty())
        };
        let mut env = Vec::new();
        for (key, variables, fallback) in [
            (
                "user.name",
                ["GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"],
                FALLBACK_NAME,
            ),
            (
                "user.email",
                ["GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"],
                FALLBACK_EMAIL,
            ),
        ] {
            let value = get(key).unwrap_or_else(|| fallback.to_owned());
            for variable in variables {
                if std::env::var_os(variable).is_none() {
                    env.push((variable, value.clone()));
                }
            }
        }
        env
    }
}

/// Runs the git `command` (whose arguments are `args`) to its end with `input` on its
/// stdin, and returns its stdout; a non-zero exit is an error naming the command and its
/// stderr. The input is written by a thread of its own: git may fill its stdout before it
/// has read all of it, and would wait on us as we wait on it.
pub(super) fn output_of(
    mut command: Command,
    args: &[&str],
    input: Option<&[u8]>,
) -> Result<Vec<u8>, String> {
    let output = match input {
        None => command.output(),
        Some(bytes) => {
            command
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            command.spawn().and_then(|mut child| {
                let mut stdin = child.stdin.take();
                let bytes = bytes.to_vec();
                let writer = std::thread::spawn(move || {
                    if let Some(stdin) = stdin.as_mut() {
                        use std::io::Write;
                        let _ = stdin.write_all(&bytes);
                    }
                });
                let output = child.wait_with_output();
                let _ = writer.join();
                output
            })
        }
    }
    .map_err(|err| format!("cannot run git: {err}"))?;
    if output.status.success() {
        Ok(output.stdout)
    } else {
        Err(format!(
            "`git {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}
