//! The process groups this process has started and not yet reaped, so that they can be
//! stopped when the process itself is told to stop.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, kill_process_group, test_kill_process_group};

static LIVE_GROUPS: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());

/// The write end of the pipe to this process's reaper ([`reaper_main`]), when it has one:
/// every group and cgroup registered is told to it as well.
static REAPER: Mutex<Option<std::fs::File>> = Mutex::new(None);

/// The cgroups of the runs in progress.
static LIVE_CGROUPS: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());

/// The signal that told this process to stop, 0 while none has.
static SHUTDOWN_SIGNAL: AtomicI32 = AtomicI32::new(0);

/// The signal (SIGINT, SIGTERM, SIGHUP) that told this process to stop, if one did. A caller
/// that finishes its work after that must exit with 128 + the signal, as the signal thread
/// would.
pub fn shutdown_signal() -> Option<i32> {
    match SHUTDOWN_SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        signal => Some(signal),
    }
}

/// How long the groups get to end on SIGTERM before SIGKILL when this process is stopped.
const SHUTDOWN_GRACE: Duration = Duration::from_millis(500);

/// How many callers are tidying up after a stop signal and asked the exit to wait.
static DEFERRALS: AtomicUsize = AtomicUsize::new(0);

/// The longest the exit waits for those callers.
const DEFERRAL_LIMIT: Duration = Duration::from_secs(30);

/// While alive, a stop signal still stops every process group at once, but the process
/// exits only once this is dropped (or after 30 s): its owner has state outside this
/// process to put right first (a git worktree, a journal).
#[derive(Debug)]
pub struct ExitDeferral(());

/// Asks the signal thread to let the caller finish tidying up before the process exits.
pub fn defer_exit() -> ExitDeferral {
    DEFERRALS.fetch_add(1, Ordering::SeqCst);
    ExitDeferral(())
}

impl Drop for ExitDeferral {
    fn drop(&mut self) {
        DEFERRALS.fetch_sub(1, Ordering::SeqCst);
    }
}

pub(crate) fn register(pgid: Pid) {
    live_groups().insert(pgid.as_raw_nonzero().get());
    tell_reaper(&format!("+g {}", pgid.as_raw_nonzero()));
}

pub(crate) fn unregister(pgid: Pid) {
    live_groups().remove(&pgid.as_raw_nonzero().get());
    tell_reaper(&format!("-g {}", pgid.as_raw_nonzero()));
}

pub(crate) fn register_cgroup(dir: &Path) {
    live_cgroups().insert(dir.to_path_buf());
    tell_reaper_path("+c ", dir);
}

pub(crate) fn unregister_cgroup(dir: &Path) {
    live_cgroups().remove(dir);
    tell_reaper_path("-c ", dir);
}

/// Tells the reaper to remove `dir` once this process is gone, unless told otherwise by
/// [`unregister_dir`]. A path holding a newline cannot be told in a line, and is not.
pub(super) fn register_dir(dir: &Path) {
    tell_reaper_path("+d ", dir);
}

/// Tells the reaper that `dir` is no longer its to remove.
pub(super) fn unregister_dir(dir: &Path) {
    tell_reaper_path("-d ", dir);
}

/// A line of `kind` and `path` to the reaper, byte for byte: a path need not be UTF-8, and
/// one changed on the way could name another folder.
fn tell_reaper_path(kind: &str, path: &Path) {
    use std::os::unix::ffi::OsStrExt;
    let bytes = path.as_os_str().as_bytes();
    if bytes.contains(&b'\n') {
        return;
    }
    tell_reaper_bytes(&[kind.as_bytes(), bytes].concat());
}

/// One line to the reaper, when there is one; a reaper gone is forgotten.
fn tell_reaper(line: &str) {
    tell_reaper_bytes(line.as_bytes());
}

/// One line of bytes to the reaper, when there is one; a reaper gone is forgotten.
fn tell_reaper_bytes(line: &[u8]) {
    use std::io::Write;
    let mut reaper = REAPER
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    // One write for the line and its end, so that lines of two threads never interleave.
    let line = [line, b"\n"].concat();
    if let Some(pipe) = reaper.as_mut()
        && pipe.write_all(&line).is_err()
    {
        *reaper = None;
    }
}

/// Starts a reaper for this process: `speccoder __reaper`, in a process group of its own,
/// which outlives this process and, once this process is gone (even by SIGKILL, which no
/// handler sees), kills every process group and cgroup still registered and removes every
/// folder registered. The pipe's end here closes on exec, so no task holds it open.
pub fn start_reaper() -> std::io::Result<()> {
    use std::os::unix::process::CommandExt;
    let mut child = std::process::Command::new(super::platform::this_program()?)
        .arg("__reaper")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .process_group(0)
        .spawn()?;
    let pipe = child.stdin.take().expect("stdin is piped");
    *REAPER
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) =
        Some(std::fs::File::from(std::os::fd::OwnedFd::from(pipe)));
    // Nobody waits for it: it outlives this process, and init reaps it.
    drop(child);
    Ok(())
}

/// The reaper (`speccoder __reaper`): reads `+g PGID`, `-g PGID`, `+c DIR`, `-c DIR`,
/// `+d DIR` and `-d DIR` lines until its input closes, which happens when the process that
/// started it is gone; then kills the process groups and cgroups still registered, and
/// removes the folders (`+d`) still registered. Stop signals are ignored: it goes when its
/// owner does, not before.
pub fn reaper_main() -> i32 {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    use std::io::BufRead;
    use std::os::unix::ffi::OsStrExt;
    for signal in [SIGHUP, SIGINT, SIGTERM] {
        // Registered with no action, a signal no longer ends the process.
        let _ = signal_hook::flag::register(
            signal,
            std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false)),
        );
    }
    let mut groups: BTreeSet<i32> = BTreeSet::new();
    let mut cgroups: BTreeSet<PathBuf> = BTreeSet::new();
    let mut dirs: BTreeSet<PathBuf> = BTreeSet::new();
    // Lines of bytes: a folder's path is told byte for byte.
    for line in std::io::stdin().lock().split(b'\n') {
        let Ok(line) = line else { break };
        let Some((kind, rest)) = line.split_at_checked(3) else {
            continue;
        };
        let path = || PathBuf::from(std::ffi::OsStr::from_bytes(rest));
        let pgid = || std::str::from_utf8(rest).ok()?.parse::<i32>().ok();
        match kind {
            b"+g " => groups.extend(pgid()),
            b"-g " => {
                if let Some(n) = pgid() {
                    groups.remove(&n);
                }
            }
            b"+c " => {
                cgroups.insert(path());
            }
            b"-c " => {
                cgroups.remove(&path());
            }
            b"+d " => {
                dirs.insert(path());
            }
            b"-d " => {
                dirs.remove(&path());
            }
            _ => {}
        }
    }
    for pgid in groups.iter().filter_map(|&raw| Pid::from_raw(raw)) {
        let _ = kill_process_group(pgid, Signal::KILL);
    }
    for dir in &cgroups {
        super::cgroup::kill_dir(dir);
    }
    // After the kills: nothing of the owner's writes to these folders any more.
    for dir in &dirs {
        // Nothing more can be done for a folder that will not go, this late.
        let _ = super::cleanup::remove_own_dir(dir);
    }
    0
}

fn live_cgroups() -> std::sync::MutexGuard<'static, BTreeSet<PathBuf>> {
    // A panic while the set was held leaves a set that is still correct.
    LIVE_CGROUPS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn live_groups() -> std::sync::MutexGuard<'static, BTreeSet<i32>> {
    // A panic while the set was held leaves a set that is still correct.
    LIVE_GROUPS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Stops every process group started by this process and still running: SIGTERM and
/// SIGCONT, a short grace, then SIGKILL, and kills what is left in the runs' cgroups.
pub fn stop_all_process_groups() {
    let groups: Vec<Pid> = live_groups()
        .iter()
        .filter_map(|&raw| Pid::from_raw(raw))
        .collect();
    for &pgid in &groups {
        let _ = kill_process_group(pgid, Signal::TERM);
        let _ = kill_process_group(pgid, Signal::CONT);
    }
    let deadline = Instant::now() + SHUTDOWN_GRACE;
    while Instant::now() < deadline
        && groups
            .iter()
            .any(|&pgid| test_kill_process_group(pgid).is_ok())
    {
        std::thread::sleep(Duration::from_millis(10));
    }
    for &pgid in &groups {
        let _ = kill_process_group(pgid, Signal::KILL);
    }
    // What left its group is still in its run's cgroup.
    for dir in live_cgroups().iter() {
        super::cgroup::kill_dir(dir);
    }
}

/// Starts a thread that, on SIGINT, SIGTERM or SIGHUP, stops every live process group and
/// exits with 128 + the signal number, as a shell would report it.
pub fn stop_process_groups_on_signals() -> std::io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                SHUTDOWN_SIGNAL.store(signal, Ordering::SeqCst);
                stop_all_process_groups();
                let deadline = Instant::now() + DEFERRAL_LIMIT;
                while DEFERRALS.load(Ordering::SeqCst) > 0 && Instant::now() < deadline {
                    // A group started in the moment before the caller saw the signal is
                    // stopped too.
                    stop_all_process_groups();
                    std::thread::sleep(Duration::from_millis(10));
                }
                stop_all_process_groups();
                super::cleanup::remove_registered();
                std::process::exit(128 + signal);
            }
        })?;
    Ok(())
}
