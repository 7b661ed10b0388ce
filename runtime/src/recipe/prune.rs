//! Keeping the folders of full outputs and cache entries bounded.

use std::path::Path;
use std::time::SystemTime;

/// Removes the oldest regular files of `dir` (by modification time) until at most `keep`
/// are left. Errors are ignored: this only frees space.
pub(crate) fn keep_newest(dir: &Path, keep: usize) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut files: Vec<(SystemTime, std::path::PathBuf)> = entries
        .flatten()
        .filter_map(|entry| {
            let meta = entry.metadata().ok()?;
            meta.is_file().then(|| {
                (
                    meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
                    entry.path(),
                )
            })
        })
        .collect();
    if files.len() <= keep {
        return;
    }
    files.sort();
    let excess = files.len() - keep;
    for (_, path) in files.into_iter().take(excess) {
        let _ = std::fs::remove_file(path);
    }
}

/// Removes the regular files of `dir` last modified more than `age` ago. Errors are
/// ignored: this only frees space.
pub(crate) fn remove_older_than(dir: &Path, age: std::time::Duration) {
    let Some(cutoff) = SystemTime::now().checked_sub(age) else {
        return;
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if let Ok(meta) = entry.metadata()
            && meta.is_file()
            && meta.modified().is_ok_and(|when| when < cutoff)
        {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oldest_files_go_first() {
        let dir = tempfile::tempdir().expect("temp dir");
        for (i, name) in ["a", "b", "c", "d"].iter().enumerate() {
            let path = dir.path().join(name);
            std::fs::write(&path, "x").expect("write");
            let when = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000 + i as u64);
            std::fs::File::options()
                .write(true)
                .open(&path)
                .and_then(|f| f.set_modified(when))
                .expect("set time");
        }
        std::fs::create_dir(dir.path().join("sub")).expect("a folder is never removed");
        keep_newest(dir.path(), 2);
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .expect("dir")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["c", "d", "sub"]);
        remove_older_than(dir.path(), std::time::Duration::from_secs(3600));
        assert!(!dir.path().join("c").exists() && dir.path().join("sub").exists());
        std::fs::write(dir.path().join("new"), "x").expect("write");
        remove_older_than(dir.path(), std::time::Duration::from_secs(3600));
        assert!(dir.path().join("new").exists());
    }
}
