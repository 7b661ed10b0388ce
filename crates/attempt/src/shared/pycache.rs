//! The Python bytecode the checks share across attempts: `.git/speccoder/pycache`, where
//! `PYTHONPYCACHEPREFIX` points in every check of a sandboxed attempt.
//!
//! Why: the checks must not read a `__pycache__` of their tree (code under test could write
//! a forged one for a test before the runner imports it), so Python's bytecode goes to a
//! prefix the checks cannot write. An empty prefix made every check compile the standard
//! library and the test runner from source again (about a second of CPU for pytest).
//!
//! Who writes it: only the base's checks, which run the user's own committed code before
//! any agent ran. The agent never sees it (its sandbox hides `.git/speccoder`), and the
//! candidate's checks see it read-only, so nothing they write reaches a later run.
//!
//! What never goes there: the bytecode of the trees themselves. Python keeps a source's
//! bytecode at the prefix joined with the source's folder, so a file standing where the
//! folder of the attempt's trees (and the fixed path setup's trees are seen at) would be
//! makes Python neither find nor write any: a tree's own files are compiled from their
//! source in every run, as with an empty prefix. Without that, the base's bytecode of a
//! file seen at the fixed path could be taken for the candidate's file of the same size and
//! modification second.

use std::path::{Component, Path, PathBuf};

/// Past this size the shared bytecode is dropped and grows again from nothing.
const MAX_BYTES: u64 = 512 << 20;

/// The most entries looked at when measuring it.
const MAX_ENTRIES: usize = 200_000;

/// The shared bytecode folder of one attempt run.
#[derive(Debug)]
pub(crate) struct SharedPycache {
    dir: PathBuf,
    /// Blocking files of this run only (its attempt folder), removed when dropped.
    own: Vec<PathBuf>,
}

impl SharedPycache {
    /// Opens `.git/speccoder/pycache` of the git folder `common_dir` for a run whose trees
    /// all live in `folder`, or `None` when it cannot be used (the caller then points the
    /// checks at an empty folder of each check tree, as before).
    pub(crate) fn open(common_dir: &Path, folder: &Path) -> Option<Self> {
        let dir = common_dir.join("speccoder").join("pycache");
        if too_big(&dir) {
            let _ = std::fs::remove_dir_all(&dir);
        }
        std::fs::create_dir_all(&dir).ok()?;
        let mut this = Self {
            dir,
            own: Vec::new(),
        };
        for path in spellings(folder) {
            this.own.push(this.block(&path).ok()?);
        }
        Some(this)
    }

    /// The folder, for `PYTHONPYCACHEPREFIX`.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// Keeps the bytecode of everything below `path` (a tree's fixed path) out, for good:
    /// every run of the repository sees its trees there.
    pub(crate) fn block_for_good(&self, path: &Path) -> Result<(), String> {
        for spelling in spellings(path) {
            self.block(&spelling)?;
        }
        Ok(())
    }

    /// Puts an empty file where Python would keep the bytecode of the folder `path`, over a
    /// folder that may be there; the file's path.
    fn block(&self, path: &Path) -> Result<PathBuf, String> {
        let mirrored = mirror(&self.dir, path)
            .ok_or_else(|| format!("{} is not an absolute path", path.display()))?;
        let fail = |err: std::io::Error| format!("cannot block {}: {err}", mirrored.display());
        match std::fs::symlink_metadata(&mirrored) {
            Ok(meta) if meta.is_file() => return Ok(mirrored),
            Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(&mirrored).map_err(fail)?,
            Ok(_) => std::fs::remove_file(&mirrored).map_err(fail)?,
            Err(_) => {}
        }
        if let Some(parent) = mirrored.parent() {
            std::fs::create_dir_all(parent).map_err(fail)?;
        }
        std::fs::File::create(&mirrored).map_err(fail)?;
        Ok(mirrored)
    }
}

impl Drop for SharedPycache {
    fn drop(&mut self) {
        for file in &self.own {
            let _ = std::fs::remove_file(file);
            // The folders made to hold it, while they are empty.
            for parent in file.ancestors().skip(1) {
                if parent == self.dir || std::fs::remove_dir(parent).is_err() {
                    break;
                }
            }
        }
    }
}

/// `path` as given and as the kernel resolves it (a run's working folder is the second).
fn spellings(path: &Path) -> Vec<PathBuf> {
    let mut all = vec![path.to_path_buf()];
    if let Ok(real) = path.canonicalize()
        && real != path
    {
        all.push(real);
    }
    all
}

/// Where Python keeps the bytecode of sources in the folder `path` under the prefix `dir`
/// (the prefix joined with the folder's path less its root); `None` for a relative path or
/// one with `..`.
fn mirror(dir: &Path, path: &Path) -> Option<PathBuf> {
    let mut mirrored = dir.to_path_buf();
    let mut components = path.components();
    if components.next() != Some(Component::RootDir) {
        return None;
    }
    for component in components {
        match component {
            Component::Normal(name) => mirrored.push(name),
            Component::CurDir => {}
            _ => return None,
        }
    }
    (mirrored != dir).then_some(mirrored)
}

/// Whether the folder holds more than [`MAX_BYTES`] (or more entries than are looked at).
fn too_big(dir: &Path) -> bool {
    let mut bytes = 0u64;
    let mut seen = 0usize;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(next) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&next) else {
            continue;
        };
        for entry in entries.flatten() {
            seen += 1;
            if seen > MAX_ENTRIES {
                return true;
            }
            match entry.file_type() {
                Ok(kind) if kind.is_dir() => stack.push(entry.path()),
                Ok(_) => bytes += entry.metadata().map_or(0, |m| m.len()),
                Err(_) => {}
            }
            if bytes > MAX_BYTES {
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirrors_follow_pythons_layout() {
        let dir = Path::new("/c");
        assert_eq!(mirror(dir, Path::new("/a/b")), Some("/c/a/b".into()));
        assert_eq!(mirror(dir, Path::new("/a/./b")), Some("/c/a/b".into()));
        assert_eq!(mirror(dir, Path::new("a/b")), None);
        assert_eq!(mirror(dir, Path::new("/a/../b")), None);
        assert_eq!(mirror(dir, Path::new("/")), None);
    }

    #[test]
    fn blocks_replace_folders_and_go_with_the_run() {
        let git = tempfile::tempdir().expect("git");
        let folder = tempfile::tempdir().expect("folder");
        // Bytecode an older run left for a tree's folder goes.
        let old = mirror(&git.path().join("speccoder/pycache"), folder.path()).expect("mirror");
        std::fs::create_dir_all(old.join("x")).expect("old");
        std::fs::write(old.join("x/m.cpython-311.pyc"), "old").expect("pyc");
        let cache = SharedPycache::open(git.path(), folder.path()).expect("opens");
        assert!(old.is_file(), "a file stands where the folder was");
        let fixed = git.path().join("speccoder-tree-at");
        cache.block_for_good(&fixed).expect("blocked");
        let fixed_mirror = mirror(cache.dir(), &fixed).expect("mirror");
        assert!(fixed_mirror.is_file());
        let dir = cache.dir().to_path_buf();
        drop(cache);
        assert!(!old.exists(), "the run's own block goes with it");
        assert!(fixed_mirror.is_file(), "the fixed path's stays");
        assert!(dir.is_dir());
    }
}
