//! Hiding withheld tests from the agent: the agent runs in private mount and PID
//! namespaces (util-linux `unshare`) in which the withheld folder is an empty read-only
//! tmpfs, with every capability dropped (`setpriv`) so that it cannot unmount it.
//!
//! Measured on a machine where everything runs as root: a plain `unshare --mount` plus a
//! tmpfs is undone by the agent's own `umount`; with the bounding set emptied it is not.
//! For a user who is not root, `--user --map-root-user` makes the namespaces possible, and
//! the same capability drop applies inside it. The PID namespace ends every process the
//! agent left behind when its first process ends, so none of them is alive when the
//! withheld tests are copied in for the checks; its own `/proc` shows no process outside.

use std::path::{Path, PathBuf};
use std::time::Duration;

use speccoder_runners::single_quote;

use crate::process::{CommandRunner, LocalRunner, RunOutput, RunRequest, SpawnError};

/// The script the namespace's first process runs: mount the tmpfs over `$1`, then run
/// `$2` with no capabilities. It stays the first process (the command is not its last, so
/// the shell does not `exec` it) and reaps what the agent orphans.
const INSIDE: &str = "mount -t tmpfs -o size=64k,mode=0555 speccoder-withheld \"$1\" || exit 125; \
setpriv --bounding-set=-all --inh-caps=-all --ambient-caps=-all -- /bin/sh -c \"$2\"; exit $?";

/// How the namespace is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Namespaces {
    /// As root: mount and PID namespaces directly.
    Root,
    /// As another user: inside a new user namespace mapping the user to root.
    User,
}

impl Namespaces {
    fn unshare_args(self) -> Vec<&'static str> {
        let mut args = vec![
            "unshare",
            "--mount",
            "--propagation",
            "private",
            "--pid",
            "--fork",
            "--kill-child",
            "--mount-proc",
        ];
        if self == Self::User {
            args.extend(["--user", "--map-root-user"]);
        }
        args
    }

    /// `command` run inside the namespaces with `hidden` covered.
    pub(crate) fn wrap(self, command: &str, hidden: &Path) -> String {
        let mut words: Vec<String> = self.unshare_args().into_iter().map(str::to_owned).collect();
        words.extend([
            "--".into(),
            "/bin/sh".into(),
            "-c".into(),
            INSIDE.into(),
            "speccoder-isolation".into(),
            hidden.display().to_string(),
            command.into(),
        ]);
        words
            .iter()
            .map(|w| single_quote(w))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The namespaces this machine can make, found by trying them on a scratch folder: the
    /// tmpfs must hide a file and `umount` must fail inside.
    pub(crate) fn probe() -> Result<Self, String> {
        let scratch = tempfile::Builder::new()
            .prefix("speccoder-probe-")
            .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o700))
            .tempdir()
            .map_err(|err| format!("cannot create a temporary folder: {err}"))?;
        let hidden = scratch.path().join("hidden");
        std::fs::create_dir(&hidden).map_err(|err| err.to_string())?;
        std::fs::write(hidden.join("secret"), "x").map_err(|err| err.to_string())?;
        let check = format!(
            "test ! -e {dir}/secret && ! umount {dir} 2>/dev/null && test ! -e {dir}/secret",
            dir = single_quote(&hidden.display().to_string())
        );
        let kinds = if rustix::process::geteuid().is_root() {
            [Self::Root, Self::User]
        } else {
            [Self::User, Self::User]
        };
        let mut why = String::new();
        for kind in kinds {
            let request = RunRequest::new(
                kind.wrap(&check, &hidden),
                scratch.path(),
                Duration::from_secs(10),
            );
            match LocalRunner::default().run(&request) {
                Ok(out) if out.success() => return Ok(kind),
                Ok(out) => why = out.stdout.text().trim().to_owned(),
                Err(err) => why = err.to_string(),
            }
        }
        Err(if why.is_empty() {
            "no private mount namespace could be made".into()
        } else {
            format!("no private mount namespace could be made: {why}")
        })
    }
}

/// A runner that starts every command inside the namespaces, with `hidden` covered.
#[derive(Debug, Clone)]
pub(crate) struct IsolatedRunner {
    /// How the namespaces are made.
    pub(crate) namespaces: Namespaces,
    /// The folder the command must not see.
    pub(crate) hidden: PathBuf,
    /// What runs the wrapped command.
    pub(crate) inner: LocalRunner,
}

impl CommandRunner for IsolatedRunner {
    fn run(&self, request: &RunRequest) -> Result<RunOutput, SpawnError> {
        let mut wrapped = request.clone();
        wrapped.command = self.namespaces.wrap(&request.command, &self.hidden);
        self.inner.run(&wrapped)
    }
}

/// The regular files under `dir`, as paths relative to it, sorted. Symlinks and special
/// files are refused: a withheld test is a plain file.
pub(crate) fn withheld_files(dir: &Path) -> Result<Vec<String>, String> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        let entries = std::fs::read_dir(&folder)
            .map_err(|err| format!("cannot read {}: {err}", folder.display()))?;
        for entry in entries {
            let entry = entry.map_err(|err| err.to_string())?;
            let kind = entry.file_type().map_err(|err| err.to_string())?;
            let path = entry.path();
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file() {
                let rel = path
                    .strip_prefix(dir)
                    .map_err(|err| err.to_string())?
                    .to_str()
                    .ok_or_else(|| format!("{} is not a UTF-8 path", path.display()))?
                    .to_owned();
                files.push(rel);
            } else {
                return Err(format!(
                    "{} is not a regular file or folder",
                    path.display()
                ));
            }
        }
    }
    files.sort();
    Ok(files)
}

/// Withheld tests copied into a worktree for the checks, and what they replaced.
#[derive(Debug)]
pub(crate) struct CopiedIn {
    /// Each target, with its earlier content when the worktree had the file.
    placed: Vec<(PathBuf, Option<Vec<u8>>)>,
}

/// Copies `files` from `dir` to `into` at the same relative paths. On an error, what was
/// placed is removed again.
pub(crate) fn copy_in(dir: &Path, files: &[String], into: &Path) -> Result<CopiedIn, String> {
    let mut copied = CopiedIn { placed: Vec::new() };
    for rel in files {
        if let Err(err) = copy_one(dir, rel, into, &mut copied) {
            copied.remove();
            return Err(err);
        }
    }
    Ok(copied)
}

fn copy_one(dir: &Path, rel: &str, into: &Path, copied: &mut CopiedIn) -> Result<(), String> {
    // A folder on the way that is a link would send the copy, and the test, elsewhere.
    let target = super::worktree::place(into, rel)?;
    let earlier = std::fs::symlink_metadata(&target)
        .ok()
        .filter(|m| m.is_file())
        .and_then(|_| std::fs::read(&target).ok());
    // A link the agent left at the place itself is replaced, never followed.
    let _ = std::fs::remove_file(&target);
    copied.placed.push((target.clone(), earlier));
    std::fs::copy(dir.join(rel), &target)
        .map_err(|err| format!("cannot copy {rel} into the worktree: {err}"))?;
    Ok(())
}

impl CopiedIn {
    /// Removes the copies and puts back what they replaced.
    pub(crate) fn remove(self) {
        for (target, earlier) in self.placed {
            let _ = std::fs::remove_file(&target);
            if let Some(bytes) = earlier {
                let _ = std::fs::write(&target, bytes);
            }
        }
    }
}
