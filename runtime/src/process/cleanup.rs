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
}
