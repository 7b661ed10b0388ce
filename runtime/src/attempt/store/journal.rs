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

    /// Marks this run as in progress. A mark left by an earlier run whose process is gone
    /// (killed with SIGKILL, or the machine stopped) is cleaned up first: its private
    /// folder is removed and an `interrupted` record says what happened. A mark of a run
    /// that is still going refuses this one.
    pub(crate) fn start(&self, notes: &mut Vec<String>) -> Result<Running, String> {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&self.dir)
            .map_err(|err| format!("cannot create {}: {err}", self.dir.display()))?;
        let path = self.dir.join("running.json");
        if let Ok(bytes) = speccoder_runners::files::read_limited(&path, 64 << 10) {
            let mark: serde_json::Value = serde_json::from_slice(&bytes).unwrap_or_default();
            let pid = mark["pid"].as_u64().unwrap_or(0);
            let started = mark["started"].as_u64();
            if pid != 0 && started.is_some() && start_time(pid) == started {
                return Err(format!(
                    "another attempt at this task is running (speccoder, pid {pid}); wait for it to end, or stop it with `kill {pid}`"
                ));
            }
            let mut what = format!("an earlier run (pid {pid}) ended without cleaning up");
            if let Some(folder) = mark["folder"].as_str().map(Path::new)
                && folder
                    .file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("speccoder-attempt-"))
                && std::fs::symlink_metadata(folder).is_ok_and(|m| m.is_dir())
            {
                match std::fs::remove_dir_all(folder) {
                    Ok(()) => {
                        what.push_str(&format!("; its folder {} was removed", folder.display()))
                    }
                    Err(err) => what.push_str(&format!(
                        "; its folder {} could not be removed ({err}): remove it with `rm -rf {}`",
                        folder.display(),
                        folder.display()
                    )),
                }
            }
            let _ = self.write(&serde_json::json!({
                "verdict": "interrupted",
                "reason": what,
                "pid": pid,
            }));
            notes.push(what);
            let _ = std::fs::remove_file(&path);
        }
        let running = Running { path };
        running.write(None)?;
        Ok(running)
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

/// The mark of a run in progress: `running.json` in the task's journal folder, with this
/// process's id, its start time (so a reused id is not mistaken for it) and the attempt's
/// folder. Removed when dropped.
#[derive(Debug)]
pub(crate) struct Running {
    path: PathBuf,
}

impl Running {
    fn write(&self, folder: Option<&Path>) -> Result<(), String> {
        let pid = u64::from(std::process::id());
        let mark = serde_json::json!({
            "pid": pid,
            "started": start_time(pid),
            "folder": folder.map(|f| f.display().to_string()),
        });
        let part = self.path.with_extension("json.part");
        std::fs::write(&part, mark.to_string())
            .and_then(|()| std::fs::rename(&part, &self.path))
            .map_err(|err| format!("cannot write {}: {err}", self.path.display()))
    }

    /// Records the attempt's private folder, so that a later run can remove it.
    pub(crate) fn record_folder(&self, folder: &Path) {
        let _ = self.write(Some(folder));
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// When process `pid` started (field 22 of `/proc/<pid>/stat`), if it is alive.
fn start_time(pid: u64) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name in parentheses may hold spaces; fields count from after it.
    let rest = &stat[stat.rfind(')')? + 2..];
    rest.split(' ').nth(19)?.parse().ok()
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

    #[test]
    fn a_mark_of_a_dead_run_is_cleaned_up_and_a_live_one_refuses() {
        let dir = tempfile::tempdir().expect("temp dir");
        let journal = Journal::new(dir.path(), "T7");
        let mut notes = Vec::new();
        let running = journal.start(&mut notes).expect("first");
        assert_eq!(notes, Vec::<String>::new());
        let err = journal
            .start(&mut notes)
            .expect_err("this process is alive");
        assert!(err.contains("another attempt"), "{err}");
        std::mem::forget(running);
        let folder = dir.path().join("speccoder-attempt-x");
        std::fs::create_dir(&folder).expect("mkdir");
        std::fs::write(
            dir.path().join("speccoder/attempts/T7/running.json"),
            serde_json::json!({"pid": 999_999_999u64, "started": 1, "folder": folder}).to_string(),
        )
        .expect("mark");
        let _running = journal.start(&mut notes).expect("a dead run");
        assert!(!folder.exists());
        assert!(notes[0].contains("pid 999999999"), "{notes:?}");
        assert!(dir.path().join("speccoder/attempts/T7/1.json").exists());
    }
}
