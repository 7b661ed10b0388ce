//! Temporary files and folders removed when this process is told to stop.
//!
//! The signal thread ends the process with `exit`, which runs no destructors: without this
//! list a `recipe run` or `agent run` interrupted by SIGINT or SIGTERM would leave its
//! output file or its prompt folder behind.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

static PATHS: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());

fn paths() -> std::sync::MutexGuard<'static, BTreeSet<PathBuf>> {
    // A panic while the set was held leaves a set that is still correct.
    PATHS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A file or folder to remove if this process is stopped by a signal while the guard
/// lives. Dropping the guard only forgets the path: its owner removes or keeps it.
#[derive(Debug)]
pub struct RemoveOnSignal {
    path: PathBuf,
}

impl RemoveOnSignal {
    /// Registers `path` for removal on a stopping signal.
    pub fn new(path: &Path) -> Self {
        paths().insert(path.to_path_buf());
        Self {
            path: path.to_path_buf(),
        }
    }
}

impl Drop for RemoveOnSignal {
    fn drop(&mut self) {
        paths().remove(&self.path);
    }
}

/// A temporary folder of this process's own, private to the user, that goes however the
/// process ends: when removed or dropped, by the signal thread on a stop signal, and by the
/// reaper (when [`super::start_reaper`] started one) after SIGKILL, which no handler sees.
/// `speccoder mcp` keeps its jobs' outputs in one; its threads outlive the session's end,
/// so it is removed there rather than when dropped.
#[derive(Debug)]
pub struct ProcessTempDir {
    path: PathBuf,
    _on_signal: RemoveOnSignal,
}

impl ProcessTempDir {
    /// Makes `<prefix>XXXXXX` (0700) in the temporary folder.
    pub fn new(prefix: &str) -> std::io::Result<Self> {
        let path = crate::private_dir::temp_dir(prefix)?.keep();
        super::registry::register_dir(&path);
        Ok(Self {
            _on_signal: RemoveOnSignal::new(&path),
            path,
        })
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Removes the folder and all in it; the reaper is then told it is gone. A second call
    /// finds nothing to do.
    pub fn remove(&self) {
        // A folder that will not go stays the reaper's to try once this process is gone.
        if remove_own_dir(&self.path).is_ok() {
            super::registry::unregister_dir(&self.path);
        }
    }
}

impl Drop for ProcessTempDir {
    fn drop(&mut self) {
        self.remove();
    }
}

/// Removes `dir` and everything in it when it is a real folder of this user's, and nothing
/// else: a symlink or another user's folder put in its place is left as it is, and no link
/// inside it is followed (`remove_dir_all` removes a link, never what it points to).
pub(crate) fn remove_own_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::symlink_metadata(dir)?;
    let own = meta.is_dir() && meta.uid() == rustix::process::geteuid().as_raw();
    if !dir.is_absolute() || !own {
        return Err(std::io::Error::other(format!(
            "{}: not a folder of this user's, so it is left as it is",
            dir.display()
        )));
    }
    std::fs::remove_dir_all(dir)
}

/// Removes every registered file and folder. Called by the signal thread before it exits.
pub(crate) fn remove_registered() {
    for path in std::mem::take(&mut *paths()) {
        let removed = match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(&path),
            Ok(_) => std::fs::remove_file(&path),
            Err(_) => Ok(()),
        };
        // Nothing more can be done for a path that will not go, this late.
        let _ = removed;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registered_paths_are_removed_and_dropped_ones_forgotten() {
        let dir = tempfile::tempdir().expect("temp dir");
        let folder = dir.path().join("agent");
        std::fs::create_dir(&folder).expect("mkdir");
        std::fs::write(folder.join("prompt.md"), "x").expect("write");
        let file = dir.path().join("run-1.log");
        std::fs::write(&file, "x").expect("write");
        let kept = dir.path().join("kept.log");
        std::fs::write(&kept, "x").expect("write");
        let _folder = RemoveOnSignal::new(&folder);
        let _file = RemoveOnSignal::new(&file);
        drop(RemoveOnSignal::new(&kept));
        remove_registered();
        assert!(!folder.exists() && !file.exists());
        assert!(kept.exists());
    }

    #[test]
    fn an_own_folder_is_removed_without_following_links() {
        let dir = tempfile::tempdir().expect("temp dir");
        let outside = dir.path().join("outside");
        std::fs::create_dir(&outside).expect("mkdir");
        std::fs::write(outside.join("keep.txt"), "x").expect("write");
        let folder = dir.path().join("jobs");
        std::fs::create_dir_all(folder.join("sub")).expect("mkdir");
        std::fs::write(folder.join("sub/job-1.out"), "x").expect("write");
        std::os::unix::fs::symlink(&outside, folder.join("link")).expect("link");
        // A link put where the folder was is left, and so is what it points to.
        let swapped = dir.path().join("swapped");
        std::os::unix::fs::symlink(&outside, &swapped).expect("link");
        assert!(remove_own_dir(&swapped).is_err());
        assert!(swapped.symlink_metadata().is_ok());

        remove_own_dir(&folder).expect("removed");
        assert!(!folder.exists());
        assert!(outside.join("keep.txt").exists());
        assert!(remove_own_dir(Path::new("relative")).is_err());
    }

    #[test]
    fn a_process_temp_dir_goes_when_removed_or_dropped() {
        let dir = ProcessTempDir::new("speccoder-test-").expect("made");
        let path = dir.path().to_path_buf();
        std::fs::write(path.join("job-1.out"), "x").expect("write");
        dir.remove();
        assert!(!path.exists());
        dir.remove();
        let dir = ProcessTempDir::new("speccoder-test-").expect("made");
        let path = dir.path().to_path_buf();
        drop(dir);
        assert!(!path.exists());
    }
}
