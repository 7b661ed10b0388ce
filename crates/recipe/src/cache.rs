//! The detection cache: a project's detected runners kept on disk with a fingerprint of
//! every file and folder detection read, so repeated commands on an unchanged project skip
//! the probes. Any change to any of those paths (content, size, times, inode, appearing or
//! disappearing) makes the entry stale and detection runs again. Failed runners are kept
//! too (a broken runner would otherwise cost a full probe on every call), except probes that
//! ran out of time, which may pass on the next call.
//!
//! The folder is private (0700, owned by this user, not a symlink) and each entry 0600: an
//! entry holds commands that will be run, so no one else may write or redirect one. An entry
//! names its project root and serves no other.

use std::os::fd::AsFd;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};
use speccoder_runners::{Detection, RUNNERS, Repeats, Runner, TailRule, Task};

use speccoder_foundation::fnv1a;

/// How many projects' entries are kept; the least recently written go first.
const MAX_ENTRIES: usize = 1000;

/// Bumped whenever the entry format or what detection produces changes.
const FORMAT: u32 = 5;

/// The most bytes read from one entry.
const MAX_ENTRY: u64 = 64 << 20;

/// How close to the start of detection an input may have changed before the entry is not
/// kept: file times come from a coarse clock, and a change made while detection ran may or
/// may not have been seen.
const RACY_WINDOW: Duration = Duration::from_millis(50);

/// Where entries are kept: `$SPECCODER_CACHE_DIR`, else `$XDG_CACHE_HOME/speccoder`, else
/// `$HOME/.cache/speccoder`, each followed by `detect`.
pub fn default_cache_dir() -> Option<PathBuf> {
    default_cache_location().map(|(base, parts)| {
        let mut path = base;
        path.extend(parts);
        path
    })
}

/// [`default_cache_dir`] as a folder of the user's and the runtime's own folders in it,
/// each of which is checked before use.
pub(crate) fn default_cache_location() -> Option<(PathBuf, &'static [&'static str])> {
    let var = |name| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let own: &'static [&'static str] = &["speccoder", "detect"];
    var("SPECCODER_CACHE_DIR")
        .map(|d| (d, &own[1..]))
        .or_else(|| var("XDG_CACHE_HOME").map(|d| (d, own)))
        .or_else(|| var("HOME").map(|d| (d.join(".cache"), own)))
}

/// The cache folder at `base`/`parts`, made when missing, when every one of `parts` is this
/// user's own (see [`speccoder_foundation::private_dir::ensure_private_dirs`]); `None` when one is not, and
/// the cache is then neither read nor written.
pub(crate) fn prepare(base: &Path, parts: &[&str]) -> Option<PathBuf> {
    let parts: Vec<&std::ffi::OsStr> = parts.iter().map(std::ffi::OsStr::new).collect();
    speccoder_foundation::private_dir::ensure_private_dirs(base, &parts).ok()
}

/// One cached detection.
#[derive(Debug, Serialize, Deserialize)]
struct Entry {
    format: u32,
    /// The project root it was detected in: the file name is only a hash of it.
    root: PathBuf,
    key: String,
    /// Every file and folder detection read, with its fingerprint (`None`: it was missing).
    /// Paths inside the root are relative to it (`.` for the root) and looked up from it.
    inputs: Vec<(PathBuf, Option<Fingerprint>)>,
    /// Every environment variable detection read, with a hash of its value (`None`: unset).
    /// A hash, not the value: a Taskfile template may name a secret.
    env: Vec<(String, Option<u64>)>,
    detections: Vec<CachedDetection>,
}

/// What a path's `stat` says that any change to it changes: whether it is a folder, its
/// size, modification time (seconds, nanoseconds), change time (seconds, nanoseconds) and
/// inode. Kept as an array of numbers: nothing to format or parse as text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Fingerprint(bool, u64, i64, u32, i64, u32, u64);

impl Fingerprint {
    /// The fingerprint of what `meta` describes.
    fn of(meta: &std::fs::Metadata) -> Self {
        Self(
            meta.is_dir(),
            meta.size(),
            meta.mtime(),
            u32::try_from(meta.mtime_nsec()).unwrap_or(0),
            meta.ctime(),
            u32::try_from(meta.ctime_nsec()).unwrap_or(0),
            meta.ino(),
        )
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct CachedDetection {
    id: String,
    state: String,
    reason: Option<String>,
    command_prefix: String,
    tail_rule: String,
    tasks: Vec<CachedTask>,
    notes: Vec<String>,
}

/// A task's name, command, doc, params and cwd: an array, as a monorepo's thousands of
/// tasks read quicker without their keys.
#[derive(Debug, Serialize, Deserialize)]
struct CachedTask(String, String, Option<String>, Vec<String>, Option<String>);

/// The entry file of a project root: one per root, named by a hash of its path.
fn entry_path(dir: &Path, root: &Path) -> PathBuf {
    dir.join(format!(
        "{:016x}.json",
        fnv1a(root.as_os_str().as_encoded_bytes())
    ))
}

/// Whether `name` is that of an entry (`<16 hex digits>.json`): pruning removes nothing else
/// from the cache folder.
fn is_entry_name(name: &str) -> bool {
    name.strip_suffix(".json")
        .is_some_and(|hash| hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The fingerprint of `path` (symlinks followed), looked up from the folder `dir` when it is
/// relative; `None` when there is nothing there.
fn fingerprint(dir: impl AsFd, path: &Path) -> Option<Fingerprint> {
    use rustix::fs::{AtFlags, FileType};
    let st = rustix::fs::statat(dir, path, AtFlags::empty()).ok()?;
    Some(Fingerprint(
        FileType::from_raw_mode(st.st_mode) == FileType::Directory,
        u64::try_from(st.st_size).unwrap_or_default(),
        st.st_mtime,
        u32::try_from(st.st_mtime_nsec).unwrap_or(0),
        st.st_ctime,
        u32::try_from(st.st_ctime_nsec).unwrap_or(0),
        st.st_ino,
    ))
}

/// How an input is kept: relative to the root when inside it (`.` for the root itself).
fn input_path(root: &Path, path: &Path) -> PathBuf {
    match path.strip_prefix(root) {
        Ok(rel) if rel.as_os_str().is_empty() => PathBuf::from("."),
        Ok(rel) => rel.to_path_buf(),
        Err(_) => path.to_path_buf(),
    }
}

/// Whether a path changed at or after `since` (less the racy window).
fn changed_since(path: &Path, since: SystemTime) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    let limit = since - RACY_WINDOW;
    let changed = |secs: i64, nanos: i64| {
        let Ok(secs) = u64::try_from(secs) else {
            return false;
        };
        let at = SystemTime::UNIX_EPOCH
            + Duration::from_secs(secs)
            + Duration::from_nanos(u64::try_from(nanos).unwrap_or(0));
        at >= limit
    };
    changed(meta.mtime(), meta.mtime_nsec()) || changed(meta.ctime(), meta.ctime_nsec())
}

/// The cached detections of `root`, when the entry's key matches and none of its inputs
/// changed.
pub(crate) fn load(dir: &Path, root: &Path, key: &str) -> Option<Vec<Detection>> {
    speccoder_foundation::private_dir::check_private_dir(dir).ok()?;
    let path = entry_path(dir, root);
    let meta = path.symlink_metadata().ok()?;
    if !speccoder_foundation::private_dir::is_own_private_file(&meta) {
        return None;
    }
    let file = Fingerprint::of(&meta);
    let mut last = LAST
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let read = match last.take() {
        Some(kept) if kept.path == path && kept.file == file => kept,
        _ => {
            let text = speccoder_foundation::files::read_limited(&path, MAX_ENTRY).ok()?;
            let entry: Entry = serde_json::from_slice(&text).ok()?;
            Read {
                path,
                file,
                format: entry.format,
                root: entry.root,
                key: entry.key,
                inputs: entry.inputs,
                env: entry.env,
                detections: entry.detections.into_iter().map(restore).collect(),
            }
        }
    };
    if !read.is_fresh(root, key) {
        return None;
    }
    if !REMEMBER.load(std::sync::atomic::Ordering::Relaxed) {
        return read.detections;
    }
    let detections = read.detections.clone();
    *last = Some(read);
    detections
}

/// Makes the cache's `load` keep the entry it read last in memory, for a process that detects
/// before every call (`speccoder mcp`). A command that detects once would only pay for the
/// copy.
pub fn remember_entries() {
    REMEMBER.store(true, std::sync::atomic::Ordering::Relaxed);
}

static REMEMBER: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The entry file this process read last, parsed, with the fingerprint of the file as it
/// was read: a process that detects before every call (`speccoder mcp`) reads and parses an
/// unchanged entry once. Entries are written aside and renamed into place, so a new entry
/// is a new file (another inode, other times). What the entry says is checked every time:
/// its key, its root and the fingerprint of every input.
static LAST: std::sync::Mutex<Option<Read>> = std::sync::Mutex::new(None);

/// An entry as read.
struct Read {
    path: PathBuf,
    file: Fingerprint,
    format: u32,
    root: PathBuf,
    key: String,
    inputs: Vec<(PathBuf, Option<Fingerprint>)>,
    env: Vec<(String, Option<u64>)>,
    /// `None` when a detection named a runner this build does not know.
    detections: Option<Vec<Detection>>,
}

impl Read {
    /// Whether the entry is for `root` and `key` and none of its inputs changed.
    fn is_fresh(&self, root: &Path, key: &str) -> bool {
        if self.format != FORMAT || self.key != key || self.root != root {
            return false;
        }
        self.env
            .iter()
            .all(|(name, value)| env_print(name) == *value)
            && inputs_unchanged(root, &self.inputs)
    }
}

/// What an entry keeps of the environment variable `name`: a hash of its value.
fn env_print(name: &str) -> Option<u64> {
    std::env::var_os(name).map(|v| fnv1a(v.as_encoded_bytes()))
}

/// Whether every input has the fingerprint it had when the entry was written.
fn inputs_unchanged(root: &Path, inputs: &[(PathBuf, Option<Fingerprint>)]) -> bool {
    // Relative inputs are looked up from the root, not through every folder above it again;
    // without a root, there is nothing there.
    let root_dir = speccoder_foundation::files::open_lookup_dir(root);
    let now = |path: &Path| match &root_dir {
        Ok(dir) => fingerprint(dir, path),
        Err(_) if path.is_absolute() => fingerprint(rustix::fs::CWD, path),
        Err(_) => None,
    };
    inputs.iter().all(|(path, print)| now(path) == *print)
}

/// Keeps `detections` of `root`, failures included, unless a probe ran out of time (that may
/// not last) or an input changed while detection ran. Errors are ignored: the cache only
/// saves time.
pub(crate) fn store(
    dir: &Path,
    root: &Path,
    key: &str,
    started: SystemTime,
    detections: &[Detection],
    inputs: &[PathBuf],
    vars: &[String],
) {
    if detections.iter().any(timed_out) || inputs.iter().any(|p| changed_since(p, started)) {
        return;
    }
    let entry = Entry {
        format: FORMAT,
        root: root.to_path_buf(),
        key: key.to_owned(),
        inputs: inputs
            .iter()
            .map(|p| (input_path(root, p), fingerprint(rustix::fs::CWD, p)))
            .collect(),
        env: vars
            .iter()
            .map(|name| (name.clone(), env_print(name)))
            .collect(),
        detections: detections.iter().map(save).collect(),
    };
    let Ok(text) = serde_json::to_vec(&entry) else {
        return;
    };
    if speccoder_foundation::private_dir::ensure_private_dir(dir).is_err() {
        return;
    }
    // Written aside (0600) and renamed, so a reader never sees half an entry.
    let Ok(mut file) = tempfile::NamedTempFile::new_in(dir) else {
        return;
    };
    if std::io::Write::write_all(&mut file, &text).is_ok() {
        let _ = file.persist(entry_path(dir, root));
    }
    // One entry per project: a bound keeps years of temporary projects from piling up.
    let budget = super::prune::Budget {
        files: MAX_ENTRIES,
        bytes: u64::MAX,
    };
    super::prune::keep_newest(dir, budget, is_entry_name);
}

/// Whether a runner failed because its probe ran out of time: the machine may just have
/// been busy, so that failure is probed again next time.
fn timed_out(detection: &Detection) -> bool {
    matches!(detection, Detection::Failed { reason, .. }
        if reason.contains(super::process_probe::TIMED_OUT))
}

fn save(detection: &Detection) -> CachedDetection {
    let (state, reason, runner) = match detection {
        Detection::Detected(runner) => ("detected", None, Some(runner)),
        Detection::Absent { reason, .. } => ("absent", Some(reason.clone()), None),
        Detection::Failed { reason, .. } => ("failed", Some(reason.clone()), None),
    };
    CachedDetection {
        id: detection.id().to_owned(),
        state: state.to_owned(),
        reason,
        command_prefix: runner.map(|r| r.command_prefix.clone()).unwrap_or_default(),
        tail_rule: match runner.map(|r| r.tail_rule) {
            Some(TailRule::DashDashFirst) => "dash-dash-first",
            Some(TailRule::NoLeadingDashDash) => "no-leading-dash-dash",
            Some(TailRule::AsWritten) | None => "as-written",
        }
        .to_owned(),
        tasks: runner
            .map(|r| {
                r.tasks
                    .iter()
                    .map(|t| {
                        CachedTask(
                            t.name.clone(),
                            t.command.clone(),
                            t.doc.clone(),
                            t.params.clone(),
                            t.cwd.clone(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default(),
        notes: runner.map(|r| r.notes.clone()).unwrap_or_default(),
    }
}

fn restore(cached: CachedDetection) -> Option<Detection> {
    let def = RUNNERS.iter().find(|def| def.id == cached.id)?;
    Some(match cached.state.as_str() {
        "detected" => {
            let mut runner = Runner::new(def.id, def.label, cached.command_prefix);
            runner.tail_rule = match cached.tail_rule.as_str() {
                "dash-dash-first" => TailRule::DashDashFirst,
                "no-leading-dash-dash" => TailRule::NoLeadingDashDash,
                _ => TailRule::AsWritten,
            };
            let tasks = cached
                .tasks
                .into_iter()
                .map(|CachedTask(name, command, doc, params, cwd)| Task {
                    name,
                    command,
                    doc,
                    params,
                    cwd,
                })
                .collect();
            // Checked as when they were added (each name once, each one an op can name),
            // without copying the names.
            runner.extend_first(tasks, Repeats::Note);
            runner.notes = cached.notes;
            Detection::Detected(runner)
        }
        "absent" => Detection::Absent {
            id: def.id,
            reason: cached.reason?,
        },
        _ => Detection::Failed {
            id: def.id,
            reason: cached.reason?,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_is_stable() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    /// Pruning takes only entries: the name every entry gets, and nothing like it.
    #[test]
    fn only_entries_are_pruned() {
        let name = entry_path(Path::new("/c"), Path::new("/some/root"));
        let name = name.file_name().and_then(|n| n.to_str()).expect("a name");
        assert!(is_entry_name(name), "{name}");
        for other in [
            "notes.json",
            "0123456789abcdef.json.bak",
            ".tmpAbC123",
            "0123456789abcdeg.json",
        ] {
            assert!(!is_entry_name(other), "{other}");
        }
    }

    #[test]
    fn round_trip_and_staleness() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().join("p");
        std::fs::create_dir(&root).expect("mkdir");
        let file = root.join("Makefile");
        std::fs::write(&file, "a:\n").expect("write");
        let mut runner = Runner::new("make", "Make", "make");
        runner.push_task(Task {
            name: "a".into(),
            command: "make a".into(),
            doc: Some("doc".into()),
            params: vec![],
            cwd: None,
        });
        let detections = vec![
            Detection::Detected(runner),
            Detection::Absent {
                id: "just",
                reason: "no justfile in the root".into(),
            },
        ];
        let cache = dir.path().join("cache");
        let inputs = vec![root.clone(), file.clone()];
        let long_ago = SystemTime::now() + Duration::from_secs(3600);
        // Inputs changed "after" detection started: nothing is kept.
        store(
            &cache,
            &root,
            "k",
            long_ago - Duration::from_secs(7200),
            &detections,
            &inputs,
            &[],
        );
        assert_eq!(load(&cache, &root, "k"), None);
        // Started after every change: kept, and read back whole.
        store(&cache, &root, "k", long_ago, &detections, &inputs, &[]);
        assert_eq!(load(&cache, &root, "k"), Some(detections.clone()));
        assert_eq!(load(&cache, &root, "other key"), None);
        std::fs::write(&file, "a:\nb:\n").expect("edit");
        assert_eq!(load(&cache, &root, "k"), None);
    }

    /// Property: inputs inside the root are kept relative to it and those outside as they
    /// are; an edit of the same size, a removal or a new file is seen either way.
    #[test]
    fn inputs_inside_and_outside_the_root() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().join("p");
        std::fs::create_dir_all(root.join("sub")).expect("mkdir");
        let inside = root.join("sub/package.json");
        let outside = dir.path().join("outside.mk");
        let missing = root.join("later.json");
        std::fs::write(&inside, "{}").expect("write");
        std::fs::write(&outside, "a:\n").expect("write");
        let cache = dir.path().join("cache");
        let later = SystemTime::now() + Duration::from_secs(3600);
        let inputs = vec![
            root.clone(),
            inside.clone(),
            outside.clone(),
            missing.clone(),
        ];
        let fresh = |edit: &dyn Fn()| {
            store(&cache, &root, "k", later, &make_runner(), &inputs, &[]);
            assert_eq!(load(&cache, &root, "k"), Some(make_runner()));
            edit();
            load(&cache, &root, "k").is_some()
        };
        assert!(!fresh(&|| std::fs::write(&inside, "[]").expect("edit")));
        let text = std::fs::read_to_string(entry_path(&cache, &root)).expect("entry");
        assert!(text.contains(r#"[".",[true,"#), "{text}");
        assert!(text.contains(r#"["sub/package.json",[false,2,"#), "{text}");
        assert!(text.contains(r#"["later.json",null]"#), "{text}");
        assert!(text.contains(&format!("[{:?},[false,3,", outside.display().to_string())));
        assert!(!fresh(&|| std::fs::write(&outside, "b:\n").expect("edit")));
        assert!(!fresh(&|| std::fs::write(&missing, "{}").expect("create")));
        assert!(!fresh(&|| std::fs::remove_file(&missing).expect("remove")));
        assert!(!fresh(&|| std::fs::remove_file(&inside).expect("remove")));
        assert!(fresh(&|| ()));
    }

    fn make_runner() -> Vec<Detection> {
        let mut runner = Runner::new("make", "Make", "make");
        runner.push_task(Task {
            name: "a".into(),
            command: "make a".into(),
            doc: None,
            params: vec![],
            cwd: None,
        });
        vec![Detection::Detected(runner)]
    }

    /// Property: an entry read before is not served from memory once it was replaced, and
    /// its inputs are checked again on every load.
    #[test]
    fn a_replaced_entry_is_read_again() {
        remember_entries();
        let dir = tempfile::tempdir().expect("temp dir");
        let cache = dir.path().join("cache");
        let root = dir.path().join("p");
        std::fs::create_dir(&root).expect("mkdir");
        let input = root.join("Makefile");
        std::fs::write(&input, "a:\n").expect("write");
        let later = SystemTime::now() + Duration::from_secs(3600);
        store(
            &cache,
            &root,
            "k",
            later,
            &make_runner(),
            std::slice::from_ref(&input),
            &[],
        );
        assert_eq!(load(&cache, &root, "k"), Some(make_runner()));
        let mut other = make_runner();
        if let Detection::Detected(runner) = &mut other[0] {
            runner.tasks[0].command = "make b".into();
        }
        store(
            &cache,
            &root,
            "k",
            later,
            &other,
            std::slice::from_ref(&input),
            &[],
        );
        assert_eq!(load(&cache, &root, "k"), Some(other.clone()));
        assert_eq!(load(&cache, &root, "k"), Some(other));
        std::fs::write(&input, "b:\n").expect("edit");
        assert_eq!(load(&cache, &root, "k"), None);
        assert_eq!(load(&cache, &root, "k"), None);
    }

    /// Property: an entry serves only the root it names, even under another root's file
    /// name (a hash collision, or a planted file).
    #[test]
    fn an_entry_serves_only_its_root() {
        let dir = tempfile::tempdir().expect("temp dir");
        let cache = dir.path().join("cache");
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        let later = SystemTime::now() + Duration::from_secs(3600);
        store(&cache, &a, "k", later, &make_runner(), &[], &[]);
        assert_eq!(load(&cache, &a, "k"), Some(make_runner()));
        std::fs::rename(entry_path(&cache, &a), entry_path(&cache, &b)).expect("rename");
        assert_eq!(load(&cache, &b, "k"), None);
    }

    /// Property: failures are kept like listings; a probe that ran out of time is not.
    #[test]
    fn failures_are_kept_but_not_timeouts() {
        let dir = tempfile::tempdir().expect("temp dir");
        let cache = dir.path().join("cache");
        let root = dir.path().join("p");
        let later = SystemTime::now() + Duration::from_secs(3600);
        let failed = vec![Detection::Failed {
            id: "just",
            reason: "`just --dump` exited with code 1: error".into(),
        }];
        store(&cache, &root, "k", later, &failed, &[], &[]);
        assert_eq!(load(&cache, &root, "k"), Some(failed));
        // The reason as the probe's error gives it.
        let reason = speccoder_runners::ProbeError::TimedOut {
            command: "just --dump".into(),
            timeout: Duration::from_secs(10),
        };
        assert!(
            reason
                .to_string()
                .contains(super::super::process_probe::TIMED_OUT)
        );
        let timed_out = vec![Detection::Failed {
            id: "just",
            reason: reason.to_string(),
        }];
        store(&cache, &root, "k2", later, &timed_out, &[], &[]);
        assert_eq!(load(&cache, &root, "k2"), None);
    }

    /// Property: the folder is 0700 and entries 0600; a folder that is a symlink, or an
    /// entry others may write, is never used.
    #[test]
    fn entries_are_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("temp dir");
        let cache = dir.path().join("cache");
        let root = dir.path().join("p");
        let later = SystemTime::now() + Duration::from_secs(3600);
        store(&cache, &root, "k", later, &make_runner(), &[], &[]);
        let mode = |p: &Path| p.metadata().expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode(&cache), 0o700);
        let entry = entry_path(&cache, &root);
        assert_eq!(mode(&entry), 0o600);
        std::fs::set_permissions(&entry, std::fs::Permissions::from_mode(0o666)).expect("chmod");
        assert_eq!(load(&cache, &root, "k"), None, "an entry others may write");
        std::fs::set_permissions(&entry, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        assert_eq!(load(&cache, &root, "k"), Some(make_runner()));
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&cache, &link).expect("symlink");
        assert_eq!(load(&link, &root, "k"), None, "a symlinked folder");
        let other = dir.path().join("other");
        std::os::unix::fs::symlink(dir.path().join("elsewhere"), &other).expect("symlink");
        store(&other, &root, "k", later, &make_runner(), &[], &[]);
        assert!(
            !dir.path().join("elsewhere").exists(),
            "written through a symlink"
        );
    }
}
