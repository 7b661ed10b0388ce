//! The journal: every attempt's record under `.git/speccoder/attempts/<task>/<n>.json`,
//! inside the repository's git folder and never in the tree.

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The journal folder of one task.
#[derive(Debug, Clone)]
pub(crate) struct Journal {
    dir: PathBuf,
}

impl Journal {
    /// The journal of `task` in the git folder `common_dir`.
    pub(crate) fn new(common_dir: &Path, task: &str) -> Self {
        Self {
            dir: common_dir.join("speccoder").join("attempts").join(task),
        }
    }

    /// Writes `record` as the next numbered file (numbers continue across runs, so an
    /// earlier run's records are never overwritten) and returns its path.
    pub(crate) fn write(&self, record: &serde_json::Value) -> Result<PathBuf, String> {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&self.dir)
            .map_err(|err| format!("cannot create {}: {err}", self.dir.display()))?;
        let text = serde_json::to_string_pretty(record).map_err(|err| err.to_string())?;
        let mut n = self.last_number() + 1;
        loop {
            let path = self.dir.join(format!("{n}.json"));
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&path)
            {
                Ok(mut file) => {
                    file.write_all(text.as_bytes())
                        .and_then(|()| file.write_all(b"\n"))
                        .map_err(|err| format!("cannot write {}: {err}", path.display()))?;
                    return Ok(path);
                }
                // Another run took this number in the meantime.
                Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => n += 1,
                Err(err) => return Err(format!("cannot write {}: {err}", path.display())),
            }
        }
    }

    fn last_number(&self) -> u64 {
        std::fs::read_dir(&self.dir)
            .map(|entries| {
                entries
                    .flatten()
                    .filter_map(|e| {
                        e.file_name()
                            .to_str()?
                            .strip_suffix(".json")?
                            .parse::<u64>()
                            .ok()
                    })
                    .max()
                    .unwrap_or(0)
            })
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_continue() {
        let dir = tempfile::tempdir().expect("temp dir");
        let journal = Journal::new(dir.path(), "T7");
        let first = journal.write(&serde_json::json!({"n": 1})).expect("write");
        let second = journal.write(&serde_json::json!({"n": 2})).expect("write");
        assert!(first.ends_with("speccoder/attempts/T7/1.json"));
        assert!(second.ends_with("speccoder/attempts/T7/2.json"));
        let again = Journal::new(dir.path(), "T7")
            .write(&serde_json::json!({}))
            .expect("write");
        assert!(again.ends_with("3.json"));
    }
}
