//! Running a resolved op: the process runner in merged mode, the timeout and its clamp, and
//! a result text with long output cut in the middle and kept whole on disk.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use super::follow::{Follow, while_running};
use super::resolve::{ResolveError, Resolved};
use speccoder_foundation::process::{
    CaptureSpec, Exit, RemoveOnSignal, RunRequest, SpawnError, Spawner,
};

/// How many full outputs are kept; the oldest go first.
pub const MAX_KEPT_OUTPUTS: usize = 50;

/// The most bytes the kept full outputs may add up to; the newest is kept whatever its size.
pub const MAX_KEPT_OUTPUT_BYTES: u64 = 2 << 30;

/// Allowed range of a run's timeout, in seconds.
pub const TIMEOUT_RANGE: std::ops::RangeInclusive<u64> = 1..=3600;

/// The outcome of running an op.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RunResult {
    /// Runner id.
    pub runner: String,
    /// Task name.
    pub task: String,
    /// The command that ran.
    pub command: String,
    /// Where it ran, relative to the root; `null` for the root.
    pub cwd: Option<String>,
    /// Its exit code, when it exited.
    pub exit_code: Option<i32>,
    /// The signal that ended it, when one did.
    pub signal: Option<i32>,
    /// Whether the deadline passed.
    pub timed_out: bool,
    /// Whether it was stopped on request (an MCP job's `recipe_stop`) before its deadline.
    pub stopped: bool,
    /// How long it took.
    pub duration_ms: u64,
    /// The output, cut in the middle when long, with a marker saying how much was left out.
    pub output: String,
    /// Whether the output was cut.
    pub truncated: bool,
    /// The file holding the whole output, when it was cut.
    pub full_output: Option<PathBuf>,
    /// The effective timeout in seconds.
    pub timeout_secs: u64,
    /// Set when the requested timeout was outside the allowed range, or the full output
    /// went to the temporary folder because the state folder could not be used.
    pub note: Option<String>,
}

impl RunResult {
    /// Whether the command exited 0 within its deadline, unstopped.
    pub fn success(&self) -> bool {
        !self.timed_out && !self.stopped && self.exit_code == Some(0)
    }

    /// The exit code a shell would give: the code, 128 + signal, or 124 on timeout.
    pub fn shell_code(&self) -> i32 {
        if self.timed_out {
            124
        } else {
            self.exit_code.or(self.signal.map(|s| 128 + s)).unwrap_or(1)
        }
    }

    /// What `recipe run` prints and the MCP tool returns: [`Self::text`] ending with a
    /// newline.
    pub fn printed_text(&self) -> String {
        let mut text = self.text();
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text
    }

    /// The line closing a run whose output was shown live: its note, exit code, duration
    /// and where the full output is kept.
    pub fn closing_line(&self) -> String {
        let mut line = String::new();
        if let Some(note) = &self.note {
            line.push_str(note);
            line.push('\n');
        }
        let took = if self.duration_ms < 1000 {
            format!("{} ms", self.duration_ms)
        } else {
            format!("{:.1} s", self.duration_ms as f64 / 1000.0)
        };
        line.push_str("speccoder: ");
        line.push_str(&if self.timed_out {
            format!(
                "timed out after {} s (exit code {})",
                self.timeout_secs,
                self.shell_code()
            )
        } else if self.stopped {
            format!(
                "stopped on request after {took} (exit code {})",
                self.shell_code()
            )
        } else if let Some(signal) = self.signal {
            format!(
                "killed by signal {signal} after {took} (exit code {})",
                self.shell_code()
            )
        } else {
            format!("exit code {} after {took}", self.shell_code())
        });
        if let Some(path) = &self.full_output {
            line.push_str(&format!("; full output in {}", path.display()));
        }
        line
    }

    /// The result text a model receives.
    pub fn text(&self) -> String {
        let mut text = String::new();
        if self.output.is_empty() {
            text.push_str("(no output)");
        } else {
            text.push_str(&self.output);
        }
        if self.timed_out {
            text = format!(
                "{}\n\nCommand timed out after {} seconds",
                text.trim_end(),
                self.timeout_secs
            );
        } else if self.stopped {
            text = format!("{}\n\nCommand was stopped on request", text.trim_end());
        } else if let Some(code) = self.exit_code.filter(|&c| c != 0) {
            text = format!("{}\n\nCommand exited with code {code}", text.trim_end());
        } else if let Some(signal) = self.signal {
            text = format!(
                "{}\n\nCommand was killed by signal {signal}",
                text.trim_end()
            );
        }
        // The clamp note comes after the output, after a blank line, as the spec says.
        if let Some(note) = &self.note {
            text = format!("{}\n\n{note}", text.trim_end());
        }
        text
    }
}

/// Why an op could not run.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The op does not resolve.
    #[error(transparent)]
    Resolve(#[from] ResolveError),
    /// The task's working directory leaves the project root.
    #[error("working directory is outside the project root: {}", .0.display())]
    CwdOutsideRoot(PathBuf),
    /// The command could not start.
    #[error(transparent)]
    Spawn(#[from] SpawnError),
    /// The directory for full outputs could not be made.
    #[error("cannot keep the full output: {0}")]
    OutputFile(std::io::Error),
}

/// Everything a run needs besides the resolved op.
#[derive(Debug, Clone)]
pub struct RunSettings<'a> {
    /// The project root (absolute).
    pub root: &'a Path,
    /// Requested timeout in seconds; clamped to [`TIMEOUT_RANGE`].
    pub timeout_secs: u64,
    /// Bytes kept from the start of a long output.
    pub head_bytes: usize,
    /// Bytes kept from the end of a long output.
    pub tail_bytes: usize,
    /// Where full outputs are kept.
    pub output_dir: OutputDir,
    /// Variables added to the environment.
    pub env: Vec<(String, String)>,
}

/// Where full outputs are kept: the runtime's own folders `parts`, one inside the other, in
/// a folder of the user's, `base`. Each of `parts` is checked before every run (made 0700,
/// a real folder, owned by this user); `base` is the user's choice and is not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputDir {
    /// A folder of the user's (`$XDG_STATE_HOME`, the temporary folder).
    pub base: PathBuf,
    /// The runtime's folders inside it (`speccoder`, `outputs`).
    pub parts: Vec<String>,
}

impl OutputDir {
    /// The outputs folder's path.
    pub fn path(&self) -> PathBuf {
        let mut path = self.base.clone();
        path.extend(&self.parts);
        path
    }
}

/// The folder full outputs go to by default, private to the user:
/// `$XDG_STATE_HOME/speccoder/outputs`, else `$HOME/.local/state/speccoder/outputs`, else
/// (no home) [`temp_output_dir`]. A run whose folder cannot be made or written uses
/// [`temp_output_dir`] too, and says so.
pub fn default_output_dir() -> OutputDir {
    let var = |name| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    match var("XDG_STATE_HOME")
        .filter(|d| d.is_absolute())
        .or_else(|| var("HOME").map(|d| d.join(".local/state")))
    {
        Some(base) => OutputDir {
            base,
            parts: vec!["speccoder".into(), "outputs".into()],
        },
        None => temp_output_dir(),
    }
}

/// `speccoder-outputs-<uid>` in the temporary folder, checked like the others: where full
/// outputs go when the user has no home, or their state folder cannot be used (Codex starts
/// MCP servers inside a sandbox where the home folder is read-only).
pub fn temp_output_dir() -> OutputDir {
    let uid = rustix::process::geteuid().as_raw();
    OutputDir {
        base: std::env::temp_dir(),
        parts: vec![format!("speccoder-outputs-{uid}")],
    }
}

/// How the name of an output file starts.
const OUTPUT_PREFIX: &str = "run-";
/// How the name of an output file ends.
const OUTPUT_SUFFIX: &str = ".log";
/// How many random characters an output file's name holds between prefix and suffix.
const OUTPUT_RANDOM: usize = 6;

/// Whether `name` is the name of an output file the runtime writes (`run-XXXXXX.log`):
/// pruning removes nothing else from the outputs folder.
fn is_output_name(name: &str) -> bool {
    name.strip_prefix(OUTPUT_PREFIX)
        .and_then(|rest| rest.strip_suffix(OUTPUT_SUFFIX))
        .is_some_and(|random| {
            random.len() == OUTPUT_RANDOM && random.bytes().all(|b| b.is_ascii_alphanumeric())
        })
}

/// The folder, inside the outputs folder, of the output files of runs in progress: pruning
/// looks only at the outputs folder itself, so it never takes the file of a running task.
const RUNNING: &str = "running";

/// How old a file in [`RUNNING`] must be before it is taken for a leftover of a process that
/// was killed outright: longer than the longest run (the timeout's upper bound and its grace).
const STALE_RUNNING: Duration = Duration::from_secs(2 * 3600);

/// Runs a resolved op, telling a follower, when given, about its output as it arrives.
#[expect(
    clippy::too_many_lines,
    reason = "over 80 lines when the limit was set; split it when it next changes"
)]
pub(crate) fn run(
    resolved: &Resolved<'_>,
    settings: &RunSettings<'_>,
    runner: &dyn Spawner,
    follow: Option<Follow<'_>>,
) -> Result<RunResult, RunError> {
    let cwd = working_dir(settings.root, resolved.cwd)?;
    let timeout_secs = settings
        .timeout_secs
        .clamp(*TIMEOUT_RANGE.start(), *TIMEOUT_RANGE.end());
    let clamped = (timeout_secs != settings.timeout_secs).then(|| {
        format!(
            "Timeout clamped to {timeout_secs}s (requested {}s; allowed range {}-{}s).",
            settings.timeout_secs,
            TIMEOUT_RANGE.start(),
            TIMEOUT_RANGE.end()
        )
    });
    let SpillFile {
        file: spill,
        running,
        outputs: output_dir,
        moved,
    } = spill_file(&settings.output_dir)?;
    // `recipe run` stopped by a signal exits without dropping `spill`.
    let remove_on_signal = RemoveOnSignal::new(spill.path());
    let mut request = RunRequest::new(
        resolved.command.clone(),
        cwd,
        Duration::from_secs(timeout_secs),
    );
    request.env = super::task_env(&settings.env);
    request.stdout = CaptureSpec {
        head_bytes: settings.head_bytes,
        tail_bytes: settings.tail_bytes,
        spill_to: Some(spill.path().to_path_buf()),
        ..CaptureSpec::default()
    };
    let output = match follow {
        Some(follow) => while_running(spill.path(), follow, || runner.run(&request))?,
        None => runner.run(&request)?,
    };
    let captured = &output.stdout;
    let (output_text, full_output) = if captured.is_truncated() {
        let path = output_dir.join(spill.path().file_name().unwrap_or_default());
        spill
            .persist_noclobber(&path)
            .map_err(|e| RunError::OutputFile(e.error))?;
        drop(remove_on_signal);
        // Full outputs are kept for reading after the run, not forever.
        let budget = super::prune::Budget {
            files: MAX_KEPT_OUTPUTS,
            bytes: MAX_KEPT_OUTPUT_BYTES,
        };
        super::prune::keep_newest(&output_dir, budget, is_output_name);
        super::prune::remove_older_than(&running, STALE_RUNNING, is_output_name);
        let (head, tail) = captured.head_and_tail_text();
        let text = format!(
            "{}\n[... {} bytes left out; the full output ({} bytes) is in {} ...]\n{}",
            head.trim_end_matches('\n'),
            captured.omitted_bytes(),
            captured.total_bytes,
            path.display(),
            tail.trim_start_matches('\n')
        );
        (text, Some(path))
    } else {
        (captured.text(), None)
    };
    // Where the full output went matters only when it was kept.
    let moved = moved.filter(|_| full_output.is_some()).map(|why| {
        format!(
            "The full output is in the temporary folder instead of the state folder, which \
             could not be used: {why}."
        )
    });
    let note = match (clamped, moved) {
        (Some(clamped), Some(moved)) => Some(format!("{clamped} {moved}")),
        (clamped, moved) => clamped.or(moved),
    };
    let (exit_code, signal) = match output.exit {
        Exit::Code(code) => (Some(code), None),
        Exit::Signal(signal) => (None, Some(signal)),
    };
    Ok(RunResult {
        runner: resolved.runner.id.to_owned(),
        task: resolved.task.name.clone(),
        command: resolved.command.clone(),
        cwd: resolved.cwd.map(str::to_owned),
        exit_code,
        signal,
        timed_out: output.timed_out,
        stopped: output.stopped,
        duration_ms: u64::try_from(output.duration.as_millis()).unwrap_or(u64::MAX),
        truncated: full_output.is_some(),
        output: output_text,
        full_output,
        timeout_secs,
        note,
    })
}

/// A run's output file, written while it runs, and the outputs folder it is kept in.
struct SpillFile {
    file: tempfile::NamedTempFile,
    /// The folder of runs in progress it is in.
    running: PathBuf,
    /// The outputs folder it is moved to when kept.
    outputs: PathBuf,
    /// Why the outputs folder asked for could not be used, when the temporary folder's is.
    moved: Option<String>,
}

/// Makes the run's output file in `asked`, or, when that folder cannot be made or written,
/// in [`temp_output_dir`]: nothing is lost for a read-only home. A folder that is there but
/// not safely ours (a symlink, another user's) is refused instead, so that whoever aimed it
/// is seen.
fn spill_file(asked: &OutputDir) -> Result<SpillFile, RunError> {
    let why = match spill_file_in(asked) {
        Ok(spill) => return Ok(spill),
        Err(err) if speccoder_foundation::private_dir::is_not_safely_ours(&err) => {
            return Err(RunError::OutputFile(err));
        }
        Err(err) => err,
    };
    let fallback = temp_output_dir();
    if *asked == fallback {
        return Err(RunError::OutputFile(why));
    }
    match spill_file_in(&fallback) {
        Ok(spill) => Ok(SpillFile {
            moved: Some(why.to_string()),
            ..spill
        }),
        Err(err) => Err(RunError::OutputFile(std::io::Error::new(
            why.kind(),
            format!("{why}; nor in the temporary folder: {err}"),
        ))),
    }
}

/// Makes the run's output file in `dir`'s folder of runs in progress.
fn spill_file_in(dir: &OutputDir) -> std::io::Result<SpillFile> {
    // Every folder on the way is checked, through the one checked before it.
    let parts: Vec<&std::ffi::OsStr> = dir
        .parts
        .iter()
        .map(std::ffi::OsStr::new)
        .chain([std::ffi::OsStr::new(RUNNING)])
        .collect();
    let running = speccoder_foundation::private_dir::ensure_private_dirs(&dir.base, &parts)?;
    // Every run writes its whole output (a file only its owner reads); the file is kept only
    // when the output was cut.
    let file = tempfile::Builder::new()
        .prefix(OUTPUT_PREFIX)
        .suffix(OUTPUT_SUFFIX)
        .rand_bytes(OUTPUT_RANDOM)
        .tempfile_in(&running)?;
    Ok(SpillFile {
        file,
        running,
        outputs: dir.path(),
        moved: None,
    })
}

/// The task's working directory, which must resolve (symlinks followed) inside the root.
fn working_dir(root: &Path, cwd: Option<&str>) -> Result<PathBuf, RunError> {
    let Some(cwd) = cwd else {
        return Ok(root.to_path_buf());
    };
    let joined = root.join(cwd);
    let canonical_root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    match joined.canonicalize() {
        Ok(real) if real.starts_with(&canonical_root) => Ok(real),
        Ok(real) => Err(RunError::CwdOutsideRoot(real)),
        // Missing or not a directory: the process runner says which.
        Err(_) => Ok(joined),
    }
}

#[cfg(test)]
mod tests {
    use speccoder_runners::{Runner, Task};

    use super::*;
    use speccoder_foundation::process::LocalSpawner;

    fn run_in(root: &Path, cwd: &str) -> Result<RunResult, RunError> {
        let mut runner = Runner::new("pkg", "Pkg", "npm run");
        runner.push_task(Task {
            name: "x".into(),
            command: "pwd".into(),
            doc: None,
            params: Vec::new(),
            cwd: Some(cwd.into()),
        });
        let resolved = Resolved {
            runner: &runner,
            task: &runner.tasks[0],
            command: "pwd".into(),
            cwd: Some(cwd),
        };
        let out = tempfile::tempdir().expect("temp dir");
        let settings = RunSettings {
            root,
            timeout_secs: 10,
            head_bytes: 1000,
            tail_bytes: 1000,
            output_dir: OutputDir {
                base: out.path().to_path_buf(),
                parts: vec!["outputs".into()],
            },
            env: Vec::new(),
        };
        run(&resolved, &settings, &LocalSpawner::default(), None)
    }

    #[test]
    fn working_directory_must_stay_inside_the_root() {
        let dir = tempfile::tempdir().expect("temp dir");
        let base = dir.path().canonicalize().expect("canon");
        let root = base.join("root");
        std::fs::create_dir_all(root.join("pkg")).expect("mkdir");
        std::fs::create_dir_all(base.join("outside")).expect("mkdir");
        std::os::unix::fs::symlink(base.join("outside"), root.join("link-out")).expect("link");
        std::os::unix::fs::symlink(root.join("pkg"), root.join("link-in")).expect("link");

        let ok = run_in(&root, "pkg").expect("runs");
        assert_eq!(ok.output, format!("{}\n", root.join("pkg").display()));
        let ok = run_in(&root, "link-in").expect("a link inside the root is fine");
        assert_eq!(ok.output, format!("{}\n", root.join("pkg").display()));

        for cwd in ["..", "../outside", "link-out", "pkg/../../outside"] {
            let err = run_in(&root, cwd).expect_err("outside the root");
            assert_eq!(
                err.to_string(),
                format!(
                    "working directory is outside the project root: {}",
                    if cwd == ".." {
                        base.clone()
                    } else {
                        base.join("outside")
                    }
                    .display()
                )
            );
        }
        let err = run_in(&root, "missing").expect_err("missing");
        assert_eq!(
            err.to_string(),
            format!(
                "working directory does not exist: {}",
                root.join("missing").display()
            )
        );
    }
}
