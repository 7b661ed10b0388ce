//! Keeping the folders of full outputs and cache entries bounded.
//!
//! Only files the runtime itself writes are ever removed: each caller names its files'
//! pattern, and anything else in the folder (a user's own file, a symlink, a folder) stays.

use std::path::Path;
use std::time::SystemTime;

/// Whether `meta` and `name` are of a file the runtime wrote: a regular file of this user's
/// (a symlink is not followed) whose name `ours` accepts.
fn is_ours(name: &std::ffi::OsStr, meta: &std::fs::Metadata, ours: fn(&str) -> bool) -> bool {
    use std::os::unix::fs::MetadataExt;
    meta.is_file()
        && meta.uid() == rustix::process::geteuid().as_raw()
        && name.to_str().is_some_and(ours)
}

/// How much of the runtime's files a folder may hold.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Budget {
    /// The most files kept.
    pub(crate) files: usize,
    /// The most bytes the kept files may add up to.
    pub(crate) bytes: u64,
}

/// Removes the oldest of the runtime's files in `dir` (regular files whose name `ours`
/// accepts, by modification time) until what is left fits `budget`. The newest file is
/// always kept, whatever its size: it is the output of the run that just ended. Errors are
/// ignored: this only frees space.
pub(crate) fn keep_newest(dir: &Path, budget: Budget, ours: fn(&str) -> bool) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut files: Vec<(SystemTime, u64, std::path::PathBuf)> = entries
        .flatten()
        .filter_map(|entry| {
            let meta = entry.metadata().ok()?;
            is_ours(&entry.file_name(), &meta, ours).then(|| {
                (
                    meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
                    meta.len(),
                    entry.path(),
                )
            })
        })
        .collect();
    // Newest first: each file is kept while the newer ones and it still fit.
    files.sort_by(|a, b| b.cmp(a));
    let mut bytes = 0u64;
    for (kept, (_, len, path)) in files.into_iter().enumerate() {
        bytes = bytes.saturating_add(len);
        if kept > 0 && (kept >= budget.files || bytes > budget.bytes) {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Removes the runtime's files in `dir` (regular files whose name `ours` accepts) last
/// modified more than `age` ago. Errors are ignored: this only frees space.
pub(crate) fn remove_older_than(dir: &Path, age: std::time::Duration, ours: fn(&str) -> bool) {
    let Some(cutoff) = SystemTime::now().checked_sub(age) else {
        return;
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if let Ok(meta) = entry.metadata()
            && is_ours(&entry.file_name(), &meta, ours)
            && meta.modified().is_ok_and(|when| when < cutoff)
        {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes `len` bytes to `dir/name`, last modified `order` seconds after a fixed moment.
    fn write_dated(dir: &Path, name: &str, len: usize, order: u64) {
        let path = dir.join(name);
        std::fs::write(&path, vec![b'x'; len]).expect("write");
        let when = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000 + order);
        std::fs::File::options()
            .write(true)
            .open(&path)
            .and_then(|f| f.set_modified(when))
            .expect("set time");
    }

    #[test]
    fn oldest_files_go_first() {
        let dir = tempfile::tempdir().expect("temp dir");
        for (i, name) in ["a", "b", "c", "d", "mine"].iter().enumerate() {
            write_dated(dir.path(), name, 1, i as u64);
        }
        std::fs::create_dir(dir.path().join("sub")).expect("a folder is never removed");
        std::os::unix::fs::symlink(dir.path().join("a"), dir.path().join("link"))
            .expect("a symlink is never removed");
        let ours = |name: &str| name.len() == 1;
        keep_newest(
            dir.path(),
            Budget {
                files: 2,
                bytes: u64::MAX,
            },
            ours,
        );
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .expect("dir")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        // `mine` is the newest yet not the runtime's: it neither goes nor counts.
        assert_eq!(left, ["c", "d", "link", "mine", "sub"]);
        remove_older_than(dir.path(), std::time::Duration::from_secs(3600), ours);
        assert!(!dir.path().join("c").exists() && dir.path().join("sub").exists());
        assert!(dir.path().join("mine").exists());
        std::fs::write(dir.path().join("n"), "x").expect("write");
        remove_older_than(dir.path(), std::time::Duration::from_secs(3600), ours);
        assert!(dir.path().join("n").exists());
    }

    #[test]
    fn a_byte_budget_removes_old_files_but_never_the_newest() {
        let dir = tempfile::tempdir().expect("temp dir");
        // Oldest first: 40, 30, 20 and 100 bytes.
        for (i, (name, len)) in [("a", 40), ("b", 30), ("c", 20), ("d", 100)]
            .iter()
            .enumerate()
        {
            write_dated(dir.path(), name, *len, i as u64);
        }
        let left = |dir: &Path| {
            let mut names: Vec<String> = std::fs::read_dir(dir)
                .expect("dir")
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            names
        };
        let ours = |name: &str| name.len() == 1;
        let budget = |bytes| Budget { files: 10, bytes };
        // 100 + 20 + 30 = 150 fit; the oldest, 40 more, does not.
        keep_newest(dir.path(), budget(150), ours);
        assert_eq!(left(dir.path()), ["b", "c", "d"]);
        // The newest alone is over the budget: it stays, everything older goes.
        keep_newest(dir.path(), budget(50), ours);
        assert_eq!(left(dir.path()), ["d"]);
    }
}
