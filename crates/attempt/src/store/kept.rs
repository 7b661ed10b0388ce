//! The setups kept in the user's git folder (`.git/speccoder/setup/<key>/`): their products
//! and cache layers, one folder per base tree and commands, often hundreds of megabytes
//! each (a `node_modules`, a venv, Go's module cache). Every commit that lands is a new
//! base tree, so without a bound they would grow with every attempt.
//!
//! The bound: the [`KEEP`] most recently used are kept, and so is every one used in the
//! last [`GRACE`] (another run may be copying from it now); the rest are removed. A folder
//! left by a setup that was killed (`<key>.part-<pid>`) is removed once its process is
//! gone and it is older than the grace. A folder is renamed out of the way before it is
//! removed, so a removal cut short leaves nothing that looks kept.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The kept setups always kept, most recently used first.
pub(crate) const KEEP: usize = 4;

/// How long a kept setup stays after its last use, whatever [`KEEP`] says.
pub(crate) const GRACE: Duration = Duration::from_secs(2 * 60 * 60);

/// Folders of the setup folder read at most: a bound on the work, never on correctness
/// (what is not read now is read by a later run).
const MAX_ENTRIES: usize = 10_000;

/// The file whose time says when a kept setup was last used.
const USED: &str = "used";

/// Marks the kept setup `dir` as used now.
pub(crate) fn mark_used(dir: &Path) {
    let _ = std::fs::write(dir.join(USED), b"");
}

/// Removes the kept setups of the folder `root` beyond the bound, at time `now`; the
/// names of those removed.
pub(crate) fn prune(root: &Path, now: SystemTime) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut kept: Vec<(SystemTime, PathBuf)> = Vec::new();
    let mut stale: Vec<PathBuf> = Vec::new();
    for entry in entries.flatten().take(MAX_ENTRIES) {
        let path = entry.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if !meta.is_dir() {
            continue;
        }
        let old = |at: SystemTime| now.duration_since(at).is_ok_and(|age| age > GRACE);
        if name.starts_with(".trash-") {
            stale.push(path);
        } else if let Some((_, pid)) = name.rsplit_once(".part-") {
            let gone = pid
                .parse::<u32>()
                .is_ok_and(|pid| !Path::new(&format!("/proc/{pid}")).exists());
            if gone && meta.modified().is_ok_and(old) {
                stale.push(path);
            }
        } else if let Some(used) = last_used(&path) {
            kept.push((used, path));
        }
    }
    // Most recently used first.
    kept.sort_by_key(|(used, _)| std::cmp::Reverse(*used));
    for (used, path) in kept.into_iter().skip(KEEP) {
        if now.duration_since(used).is_ok_and(|age| age > GRACE) {
            stale.push(path);
        }
    }
    let mut removed = Vec::new();
    for path in stale {
        if remove(root, &path) {
            removed.push(
                path.file_name()
                    .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
            );
        }
    }
    removed
}

/// When the kept setup `dir` was last used: its mark's time, else when it was kept (its
/// list of products); `None` for a folder that is no kept setup.
fn last_used(dir: &Path) -> Option<SystemTime> {
    let time = |name: &str| {
        std::fs::symlink_metadata(dir.join(name))
            .ok()
            .filter(std::fs::Metadata::is_file)
            .and_then(|m| m.modified().ok())
    };
    time(USED).or_else(|| time("products"))
}

/// Moves `path` (a folder of `root`) out of the way and removes it, its read-only folders
/// (Go's module cache makes them so) opened first; whether it is gone.
fn remove(root: &Path, path: &Path) -> bool {
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let trash = if name.starts_with(".trash-") {
        path.to_path_buf()
    } else {
        let trash = root.join(format!(".trash-{name}-{}", std::process::id()));
        if std::fs::rename(path, &trash).is_err() {
            return false;
        }
        trash
    };
    if std::fs::remove_dir_all(&trash).is_ok() {
        return true;
    }
    open_folders(&trash, 0);
    std::fs::remove_dir_all(&trash).is_ok()
}

/// Makes every folder below `dir` (not following links) writable and searchable by its
/// owner, to the depth a removal needs.
fn open_folders(dir: &Path, depth: usize) {
    use std::os::unix::fs::PermissionsExt;
    if depth > 256 {
        return;
    }
    let Ok(meta) = std::fs::symlink_metadata(dir) else {
        return;
    };
    if !meta.is_dir() {
        return;
    }
    let mode = meta.permissions().mode() | 0o700;
    let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode));
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                open_folders(&entry.path(), depth + 1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    /// A kept setup named `name`, last used `age` before `now`.
    fn kept(root: &Path, name: &str, now: SystemTime, age: Duration) {
        let dir = root.join(name);
        std::fs::create_dir_all(dir.join("tree")).expect("mkdir");
        std::fs::write(dir.join("products"), b"a\0").expect("write");
        mark_used(&dir);
        let at = std::fs::File::options()
            .write(true)
            .open(dir.join(USED))
            .expect("open");
        at.set_modified(now - age).expect("times");
    }

    fn names(root: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(root)
            .expect("read")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn the_most_recently_used_and_those_used_lately_stay() {
        let root = tempfile::tempdir().expect("tempdir");
        let now = SystemTime::now();
        let hour = Duration::from_secs(3600);
        // Six old ones, used an hour apart, the oldest a week ago; two used in the grace.
        for (i, age) in [3, 4, 5, 6, 7, 168].iter().enumerate() {
            kept(root.path(), &format!("old{i}"), now, hour * *age);
        }
        kept(root.path(), "lately0", now, Duration::from_secs(60));
        kept(root.path(), "lately1", now, hour);
        let mut removed = prune(root.path(), now);
        removed.sort();
        // The four most recent stay; the rest, all past the grace, go.
        assert_eq!(removed, ["old2", "old3", "old4", "old5"]);
        assert_eq!(names(root.path()), ["lately0", "lately1", "old0", "old1"]);
        // A new one pushes the oldest of the four out.
        kept(root.path(), "lately2", now, Duration::from_secs(5));
        assert_eq!(prune(root.path(), now), ["old1"]);
        // Those used in the grace all stay, however many.
        kept(root.path(), "lately3", now, Duration::from_secs(5));
        kept(root.path(), "lately4", now, Duration::from_secs(5));
        assert_eq!(prune(root.path(), now), ["old0"]);
        assert_eq!(
            names(root.path()),
            ["lately0", "lately1", "lately2", "lately3", "lately4"]
        );
    }

    #[test]
    fn read_only_folders_and_the_leftovers_of_killed_setups_go_too() {
        let root = tempfile::tempdir().expect("tempdir");
        let now = SystemTime::now() + GRACE * 2;
        for i in 0..KEEP {
            kept(root.path(), &format!("new{i}"), now, Duration::from_secs(1));
        }
        // Go's module cache: read-only folders.
        kept(root.path(), "gomod", now, GRACE * 2);
        let locked = root.path().join("gomod/caches/mod/x@v1");
        std::fs::create_dir_all(&locked).expect("mkdir");
        std::fs::write(locked.join("x.go"), b"package x").expect("write");
        for dir in [locked.as_path(), locked.parent().expect("parent")] {
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o555)).expect("chmod");
        }
        // A setup killed long ago (no such process), one still running (this one), and a
        // removal cut short.
        std::fs::create_dir(root.path().join("abc.part-4194304999")).expect("mkdir");
        let running = format!("abc.part-{}", std::process::id());
        std::fs::create_dir(root.path().join(&running)).expect("mkdir");
        std::fs::create_dir(root.path().join(".trash-old-1")).expect("mkdir");
        prune(root.path(), now);
        let mut want: Vec<String> = (0..KEEP).map(|i| format!("new{i}")).collect();
        want.insert(0, running);
        want.sort();
        assert_eq!(names(root.path()), want);
    }
}
