//! The process groups this process has started and not yet reaped, so that they can be
//! stopped when the process itself is told to stop.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, kill_process_group, test_kill_process_group};

static LIVE_GROUPS: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());

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
}

pub(crate) fn unregister(pgid: Pid) {
    live_groups().remove(&pgid.as_raw_nonzero().get());
}

pub(crate) fn register_cgroup(dir: &Path) {
    live_cgroups().insert(dir.to_path_buf());
}

pub(crate) fn unregister_cgroup(dir: &Path) {
    live_cgroups().remove(dir);
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
