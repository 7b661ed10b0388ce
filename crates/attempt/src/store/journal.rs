//! The journal: every attempt's record under `.git/speccoder/attempts/<task>/<n>.json`,
//! inside the repository's git folder and never in the tree.

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use super::super::attempt_error::AttemptError;

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

    /// Marks this run as in progress. The mark is taken under an exclusive lock on
    /// `running.lock`, held for the whole run (the kernel lets it go when the process ends,
    /// however it ends): a second start of the task finds it held and is refused with the
    /// first run's process id, however close together the two start. A mark left by an
    /// earlier run whose process is gone (killed with SIGKILL, or the machine stopped) is
    /// settled first (see [`settle`]).
    pub(crate) fn start(
        &self,
        notes: &mut Vec<String>,
        branch_at: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Running, AttemptError> {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&self.dir)
            .map_err(|err| {
                AttemptError::Io(format!("cannot create {}: {err}", self.dir.display()))
            })?;
        let path = self.dir.join("running.json");
        let Some(lock) = self.lock().map_err(AttemptError::Io)? else {
            return Err(AttemptError::Busy { pid: self.holder() });
        };
        if let Some(mark) = read_mark(&path) {
            // A run of a speccoder that took no lock.
            if alive(&mark) {
                let pid = mark["pid"].as_u64().unwrap_or(0);
                return Err(AttemptError::Busy { pid });
            }
            notes.push(self.settle(&mark, branch_at));
            let _ = std::fs::remove_file(&path);
        }
        #[cfg(test)]
        tests::between_read_and_write();
        let running = Running {
            path,
            mark: std::sync::Mutex::new(serde_json::json!({})),
            _lock: lock,
        };
        running.write(|_| {}).map_err(AttemptError::Io)?;
        Ok(running)
    }

    /// The task's lock, taken without waiting: `None` when another run holds it. The file
    /// stays when the run ends: removing it would let a run lock a new file while another
    /// holds the old one.
    fn lock(&self) -> Result<Option<std::fs::File>, String> {
        let path = self.dir.join("running.lock");
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits().cast_signed())
            .open(&path)
            .map_err(|err| format!("cannot open {}: {err}", path.display()))?;
        match rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => {
                // Its holder, for a run refused meanwhile.
                let _ = file.set_len(0).and_then(|()| {
                    (&file).write_all(format!("{}\n", std::process::id()).as_bytes())
                });
                Ok(Some(file))
            }
            Err(rustix::io::Errno::WOULDBLOCK) => Ok(None),
            Err(err) => Err(format!("cannot lock {}: {err}", path.display())),
        }
    }

    /// The process id of the run holding the lock, as it wrote it in the lock file right
    /// after taking it (waited for up to 100 ms); 0 when it is not there yet.
    fn holder(&self) -> u64 {
        let path = self.dir.join("running.lock");
        for _ in 0..10 {
            if let Some(pid) = speccoder_foundation::files::read_limited(&path, 64)
                .ok()
                .and_then(|b| String::from_utf8(b).ok())
                .and_then(|t| t.trim().parse().ok())
            {
                return pid;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        0
    }

    /// Settles the mark of a run whose process is gone: its private folder is removed, and
    /// a record says how it ended. When the mark names the commit the run was making and
    /// its branch points at that commit, the run was killed after its pass was committed:
    /// the record is that pass. Otherwise it is `interrupted`. The note returned says so.
    fn settle(
        &self,
        mark: &serde_json::Value,
        branch_at: &dyn Fn(&str) -> Option<String>,
    ) -> String {
        let pid = mark["pid"].as_u64().unwrap_or(0);
        let mut what = format!("an earlier run (pid {pid}) ended without cleaning up");
        if let Some(folder) = mark["folder"].as_str().map(Path::new)
            && folder
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("speccoder-attempt-"))
            && std::fs::symlink_metadata(folder).is_ok_and(|m| m.is_dir())
        {
            match std::fs::remove_dir_all(folder) {
                Ok(()) => what.push_str(&format!("; its folder {} was removed", folder.display())),
                Err(err) => what.push_str(&format!(
                    "; its folder {} could not be removed ({err}): remove it with `rm -rf {}`",
                    folder.display(),
                    folder.display()
                )),
            }
        }
        let committed = match (mark["branch"].as_str(), mark["commit"].as_str()) {
            (Some(branch), Some(commit)) if branch_at(branch).as_deref() == Some(commit) => {
                Some((branch, commit))
            }
            _ => None,
        };
        let record = match committed {
            Some((branch, commit)) => {
                what.push_str(&format!(
                    "; it had committed its pass as {commit} on `{branch}`, recorded now as the pass it was"
                ));
                serde_json::json!({
                    "verdict": "passed",
                    "reason": what,
                    "pid": pid,
                    "branch": branch,
                    "commit": commit,
                    "reconciled": true,
                })
            }
            None => serde_json::json!({"verdict": "interrupted", "reason": what, "pid": pid}),
        };
        let _ = self.write(&record);
        format!("{}: {what}", self.task())
    }

    /// The task this journal is of.
    fn task(&self) -> String {
        self.dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
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
/// process's id, its start time (so a reused id is not mistaken for it), the attempt's
/// folder, and the commit of a pass with its branch while they are being made. Removed
/// when dropped.
#[derive(Debug)]
pub(crate) struct Running {
    path: PathBuf,
    /// What the mark says besides the process.
    mark: std::sync::Mutex<serde_json::Value>,
    /// `running.lock`, locked for as long as the run lasts.
    _lock: std::fs::File,
}

impl Running {
    /// Writes the mark anew, with `change` made to what it says.
    fn write(&self, change: impl FnOnce(&mut serde_json::Value)) -> Result<(), String> {
        let mut mark = self
            .mark
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        change(&mut mark);
        let pid = u64::from(std::process::id());
        mark["pid"] = pid.into();
        mark["started"] = start_time(pid).into();
        // A temporary file of a unique name, renamed over the mark: a reader sees the old
        // mark or the new one, never a part.
        let dir = self.path.parent().unwrap_or(Path::new("."));
        tempfile::Builder::new()
            .prefix("running.")
            .suffix(".part")
            .tempfile_in(dir)
            .and_then(|mut part| {
                part.write_all(mark.to_string().as_bytes())?;
                part.persist(&self.path).map_err(|err| err.error)?;
                Ok(())
            })
            .map_err(|err| format!("cannot write {}: {err}", self.path.display()))
    }

    /// Records the attempt's private folder, so that a later run can remove it.
    pub(crate) fn record_folder(&self, folder: &Path) {
        let _ = self.write(|mark| mark["folder"] = folder.display().to_string().into());
    }

    /// Records the commit of a pass before its branch is set, so that a later run can tell
    /// a run killed after the branch was set from one killed before.
    pub(crate) fn record_commit(&self, branch: &str, commit: &str) {
        let _ = self.write(|mark| {
            mark["branch"] = branch.into();
            mark["commit"] = commit.into();
        });
    }
}

/// The mark at `path`, if there is one.
fn read_mark(path: &Path) -> Option<serde_json::Value> {
    let bytes = speccoder_foundation::files::read_limited(path, 64 << 10).ok()?;
    Some(serde_json::from_slice(&bytes).unwrap_or_default())
}

/// Whether the run that wrote `mark` is still going (its process, not a reused id).
fn alive(mark: &serde_json::Value) -> bool {
    let pid = mark["pid"].as_u64().unwrap_or(0);
    let started = mark["started"].as_u64();
    pid != 0 && started.is_some() && start_time(pid) == started
}

/// Settles the marks of every task's run whose process is gone, in the git folder
/// `common_dir` (a run of any task does it): the notes say what each was.
pub(crate) fn settle_all(
    common_dir: &Path,
    branch_at: &dyn Fn(&str) -> Option<String>,
) -> Vec<String> {
    let attempts = common_dir.join("speccoder").join("attempts");
    let Ok(entries) = std::fs::read_dir(&attempts) else {
        return Vec::new();
    };
    let mut notes = Vec::new();
    // Bounded: a journal of many tasks is read a thousand folders at most.
    for entry in entries.flatten().take(1000) {
        let path = entry.path().join("running.json");
        if read_mark(&path).is_none() {
            continue;
        }
        let journal = Journal { dir: entry.path() };
        // A run holding its lock is going, whatever its mark says yet; the lock is held
        // here while its mark is settled, so no run of that task starts meanwhile.
        let Ok(Some(_lock)) = journal.lock() else {
            continue;
        };
        let Some(mark) = read_mark(&path) else {
            continue;
        };
        if alive(&mark) {
            continue;
        }
        notes.push(journal.settle(&mark, branch_at));
        let _ = std::fs::remove_file(&path);
    }
    notes
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// When process `pid` started, if it is alive.
fn start_time(pid: u64) -> Option<u64> {
    speccoder_foundation::process::start_time(u32::try_from(pid).ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    /// A pause injected between reading the mark and writing it, in milliseconds.
    static DELAY_MS: AtomicU64 = AtomicU64::new(0);

    pub(super) fn between_read_and_write() {
        std::thread::sleep(std::time::Duration::from_millis(
            DELAY_MS.load(Ordering::Relaxed),
        ));
    }

    #[test]
    fn simultaneous_starts_of_one_task_run_once() {
        DELAY_MS.store(300, Ordering::Relaxed);
        let dir = tempfile::tempdir().expect("temp dir");
        let barrier = std::sync::Barrier::new(4);
        let results: Vec<Result<Running, AttemptError>> = std::thread::scope(|s| {
            let threads: Vec<_> = (0..4)
                .map(|_| {
                    s.spawn(|| {
                        barrier.wait();
                        Journal::new(dir.path(), "T1").start(&mut Vec::new(), &|_| None)
                    })
                })
                .collect();
            threads
                .into_iter()
                .map(|t| t.join().expect("thread"))
                .collect()
        });
        DELAY_MS.store(0, Ordering::Relaxed);
        let started = results.iter().filter(|r| r.is_ok()).count();
        assert_eq!(started, 1, "{results:?}");
        for result in &results {
            if let Err(err) = result {
                assert!(
                    matches!(err, AttemptError::Busy { pid } if *pid == u64::from(std::process::id())),
                    "refused with the first run's id: {err}"
                );
            }
        }
        // No temporary mark left beside the mark.
        let names: Vec<String> = std::fs::read_dir(dir.path().join("speccoder/attempts/T1"))
            .expect("journal")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        assert!(names.iter().all(|n| !n.ends_with(".part")), "{names:?}");
        drop(results);
        // The run over, the task starts again.
        let again = Journal::new(dir.path(), "T1").start(&mut Vec::new(), &|_| None);
        assert!(again.is_ok(), "{again:?}");
    }

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
        let running = journal.start(&mut notes, &|_| None).expect("first");
        assert_eq!(notes, Vec::<String>::new());
        let err = journal
            .start(&mut notes, &|_| None)
            .expect_err("this process is alive");
        assert!(
            matches!(err, AttemptError::Busy { pid } if pid == u64::from(std::process::id())),
            "{err}"
        );
        drop(running);
        let folder = dir.path().join("speccoder-attempt-x");
        std::fs::create_dir(&folder).expect("mkdir");
        std::fs::write(
            dir.path().join("speccoder/attempts/T7/running.json"),
            serde_json::json!({"pid": 999_999_999u64, "started": 1, "folder": folder}).to_string(),
        )
        .expect("mark");
        let _running = journal.start(&mut notes, &|_| None).expect("a dead run");
        assert!(!folder.exists());
        assert!(notes[0].contains("pid 999999999"), "{notes:?}");
        assert!(dir.path().join("speccoder/attempts/T7/1.json").exists());
    }

    #[test]
    fn a_run_killed_after_its_pass_was_committed_is_recorded_as_that_pass() {
        let dir = tempfile::tempdir().expect("temp dir");
        let mark = |task: &str, folder: &Path| {
            std::fs::create_dir_all(dir.path().join("speccoder/attempts").join(task))
                .expect("mkdir");
            std::fs::create_dir(folder).expect("mkdir");
            std::fs::write(
                dir.path()
                    .join("speccoder/attempts")
                    .join(task)
                    .join("running.json"),
                serde_json::json!({"pid": 999_999_999u64, "started": 1, "folder": folder,
                                   "branch": format!("speccoder/{task}"), "commit": "c0ffee"})
                .to_string(),
            )
            .expect("mark");
        };
        let (t1, t2) = (
            dir.path().join("speccoder-attempt-1"),
            dir.path().join("speccoder-attempt-2"),
        );
        mark("T1", &t1);
        mark("T2", &t2);
        // T1's branch points at the commit its run was making; T2's was never set.
        let branch_at = |branch: &str| (branch == "speccoder/T1").then(|| "c0ffee".to_owned());
        let notes = settle_all(dir.path(), &branch_at);
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(!t1.exists() && !t2.exists());
        let record = |task: &str| -> serde_json::Value {
            let path = dir
                .path()
                .join("speccoder/attempts")
                .join(task)
                .join("1.json");
            serde_json::from_slice(&std::fs::read(path).expect("record")).expect("json")
        };
        assert_eq!(record("T1")["verdict"], "passed");
        assert_eq!(record("T1")["commit"], "c0ffee");
        assert_eq!(record("T2")["verdict"], "interrupted");
        assert!(
            !dir.path()
                .join("speccoder/attempts/T1/running.json")
                .exists()
        );
        // Settled once: a second run finds nothing to settle.
        assert!(settle_all(dir.path(), &branch_at).is_empty());
    }
}
