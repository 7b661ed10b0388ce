//! A cgroup (v2) per run, where the machine lets this process make one, so that everything
//! the command starts can be found and stopped: also processes that left its process group
//! or session and closed its pipes (`setsid daemon &`), which neither `killpg` nor the pipe
//! sweep can see.
//!
//! Linux only: elsewhere [`cgroups_available`] is false and no run gets one.
//!
//! Available when a cgroup2 hierarchy is mounted and this process may create a cgroup below
//! its own and move a process into it: as root, or under a delegated user cgroup (systemd's
//! `user@.service`). Elsewhere every run goes without one, and the process group, the pidfd
//! and the `/proc` sweeps are all the containment there is.
//!
//! The child starts inside its cgroup (`clone_into.rs`, `clone3` with `CLONE_INTO_CGROUP`).
//! Where the kernel refuses that, the shell that runs the command moves itself in before it
//! runs anything, and a program that must start directly is moved right after it starts.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use std::os::fd::{BorrowedFd, OwnedFd};

use rustix::process::{Pid, Signal, kill_process};

/// The cgroup this process runs in, when cgroup v2 is mounted and a child cgroup can be made
/// in it; found once.
fn base() -> Option<&'static Path> {
    static BASE: OnceLock<Option<PathBuf>> = OnceLock::new();
    BASE.get_or_init(find_base).as_deref()
}

#[cfg(not(target_os = "linux"))]
fn find_base() -> Option<PathBuf> {
    None
}

#[cfg(target_os = "linux")]
fn find_base() -> Option<PathBuf> {
    // Where systemd and container runtimes mount it (unified, then hybrid), known by the
    // file system's magic number; elsewhere, wherever the mount table says. One `statfs`
    // instead of the kernel writing out the whole mount table for every speccoder start.
    const CGROUP2_SUPER_MAGIC: u64 = 0x6367_7270;
    let mount = ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"]
        .into_iter()
        .find(|dir| {
            rustix::fs::statfs(*dir)
                .is_ok_and(|fs| u64::try_from(fs.f_type) == Ok(CGROUP2_SUPER_MAGIC))
        })
        .map(PathBuf::from)
        .or_else(cgroup2_in_mount_table)?;
    let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let own = own.lines().find_map(|line| line.strip_prefix("0::"))?;
    let base = mount.join(own.trim_start_matches('/'));
    remove_stale(&base);
    // Whether a cgroup can be made here is known by trying, when the first run makes its
    // own (see `TaskCgroup::create`).
    Some(base)
}

/// Whether a cgroup made here is worth having: `cgroup.kill` (Linux 5.14) is what stops all
/// of a run at once. Asked of the first run's cgroup, so no cgroup is made only to look.
fn has_kill(made: &Path) -> bool {
    *HAS_KILL.get_or_init(|| made.join("cgroup.kill").exists())
}

static HAS_KILL: OnceLock<bool> = OnceLock::new();

/// The first cgroup2 mount point in this process's mount table.
#[cfg(target_os = "linux")]
fn cgroup2_in_mount_table() -> Option<PathBuf> {
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    // Fields: id, parent, major:minor, root, mount point, options, optional fields, `-`,
    // filesystem type, source, super options.
    mountinfo.lines().find_map(|line| {
        let (left, right) = line.split_once(" - ")?;
        (right.split_whitespace().next()? == "cgroup2")
            .then(|| left.split_whitespace().nth(4).map(PathBuf::from))
            .flatten()
    })
}

/// Removes the cgroups left by speccoder processes that are gone (killed before they could
/// remove theirs). A cgroup that still holds a process is refused by the kernel and stays.
#[cfg(target_os = "linux")]
fn remove_stale(base: &Path) {
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix("speccoder-"))
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir(entry.path());
        }
    }
}

/// Set once making a cgroup or moving a process into one has failed: runs go without one
/// from then on.
static MOVE_REFUSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether runs get a cgroup of their own on this machine (known for sure once one was
/// made: this makes and removes one when none was made yet).
pub fn cgroups_available() -> bool {
    if HAS_KILL.get().is_none() {
        drop(TaskCgroup::create());
    }
    base().is_some() && !MOVE_REFUSED.load(Ordering::Relaxed)
}

/// The cgroup of one run.
#[derive(Debug)]
pub(crate) struct TaskCgroup {
    dir: PathBuf,
    /// The folder, open for `clone3` to start a child in it.
    fd: OwnedFd,
    /// The folder has been removed (it was empty).
    removed: AtomicBool,
}

impl TaskCgroup {
    /// Makes a new, empty cgroup for a run, or `None` where that is not possible.
    pub(crate) fn create() -> Option<Self> {
        if MOVE_REFUSED.load(Ordering::Relaxed) {
            return None;
        }
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir = base()?.join(format!("speccoder-{}-{n}", std::process::id()));
        if std::fs::create_dir(&dir).is_err() {
            MOVE_REFUSED.store(true, Ordering::Relaxed);
            return None;
        }
        if !has_kill(&dir) {
            MOVE_REFUSED.store(true, Ordering::Relaxed);
            let _ = std::fs::remove_dir(&dir);
            return None;
        }
        match crate::files::open_lookup_dir(&dir) {
            Ok(fd) => Some(Self {
                dir,
                fd,
                removed: AtomicBool::new(false),
            }),
            Err(_) => {
                let _ = std::fs::remove_dir(&dir);
                None
            }
        }
    }

    /// The cgroup's folder.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// The cgroup's folder, open.
    pub(crate) fn fd(&self) -> BorrowedFd<'_> {
        std::os::fd::AsFd::as_fd(&self.fd)
    }

    /// Moves the process `pid` (and so all it starts from now on) into the cgroup.
    pub(crate) fn add(&self, pid: u32) -> std::io::Result<()> {
        let moved = std::fs::write(self.dir.join("cgroup.procs"), pid.to_string());
        if let Err(err) = &moved
            && err.kind() == std::io::ErrorKind::PermissionDenied
        {
            MOVE_REFUSED.store(true, Ordering::Relaxed);
        }
        moved
    }

    /// The processes in the cgroup now.
    pub(crate) fn pids(&self) -> Vec<Pid> {
        pids_of(&self.dir)
    }

    /// Sends `signal` to every process in the cgroup.
    pub(crate) fn signal(&self, signal: Signal) {
        for pid in self.pids() {
            // ESRCH: it ended meanwhile.
            let _ = kill_process(pid, signal);
        }
    }

    /// Kills everything in the cgroup at once; returns whether anything was there.
    ///
    /// The kernel removes a cgroup only when no process is left in it (and no cgroup below
    /// it), so the one `rmdir` that succeeds is also the answer that nothing was there,
    /// where reading `cgroup.procs` takes four calls. Once removed, nothing can start in it.
    pub(crate) fn kill(&self) -> bool {
        if self.removed.load(Ordering::Relaxed) || self.remove() {
            return false;
        }
        // Something is there, maybe only in a cgroup the task made below this one (as
        // root it may), where `cgroup.procs` of this one does not list it: `cgroup.kill`
        // takes the whole tree.
        kill_dir(&self.dir);
        true
    }

    /// Removes the cgroup if no process is left in it, with any cgroups the task made
    /// below it; returns whether it is gone.
    fn remove(&self) -> bool {
        let gone = std::fs::remove_dir(&self.dir).is_ok() || {
            remove_below(&self.dir, 8);
            std::fs::remove_dir(&self.dir).is_ok()
        };
        if gone {
            self.removed.store(true, Ordering::Relaxed);
        }
        gone
    }
}

impl Drop for TaskCgroup {
    fn drop(&mut self) {
        if self.removed.load(Ordering::Relaxed) || self.remove() {
            return;
        }
        // The kernel removes only an empty cgroup: kill what is left and give it a moment
        // to go (a process stuck in the kernel may not; its cgroup is then left for
        // `remove_stale` of a later speccoder).
        kill_dir(&self.dir);
        let until = Instant::now() + Duration::from_millis(500);
        while !self.remove() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

fn pids_of(dir: &Path) -> Vec<Pid> {
    std::fs::read_to_string(dir.join("cgroup.procs"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse::<i32>().ok())
        .filter_map(Pid::from_raw)
        .collect()
}

/// Removes the empty cgroups below `dir`, deepest first, down to `depth` levels.
fn remove_below(dir: &Path, depth: usize) {
    let Some(depth) = depth.checked_sub(1) else {
        return;
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
            remove_below(&entry.path(), depth);
            let _ = std::fs::remove_dir(entry.path());
        }
    }
}

/// Kills every process in the cgroup `dir` and the cgroups below it; returns whether this
/// cgroup listed any.
pub(crate) fn kill_dir(dir: &Path) -> bool {
    let pids = pids_of(dir);
    if std::fs::write(dir.join("cgroup.kill"), "1").is_err() {
        for &pid in &pids {
            let _ = kill_process(pid, Signal::KILL);
        }
    }
    !pids.is_empty()
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn the_well_known_mount_is_the_one_the_mount_table_names() {
        let Some(listed) = cgroup2_in_mount_table() else {
            eprintln!("no cgroup2 mounted: nothing to check");
            return;
        };
        let own = std::fs::read_to_string("/proc/self/cgroup").expect("own cgroup");
        let own = own
            .lines()
            .find_map(|l| l.strip_prefix("0::"))
            .expect("v2 line");
        assert_eq!(find_base(), Some(listed.join(own.trim_start_matches('/'))));
    }

    #[test]
    fn a_cgroup_holds_what_its_process_starts() {
        let Some(cgroup) = TaskCgroup::create() else {
            eprintln!("no cgroup v2 available to this user: nothing to check");
            return;
        };
        let mut child = std::process::Command::new("/bin/sh")
            // It waits before starting anything, so it is moved first.
            .args(["-c", "sleep 0.2; sleep 100.301 & sleep 100.302"])
            .spawn()
            .expect("sh");
        cgroup.add(child.id()).expect("moved");
        let until = Instant::now() + Duration::from_secs(5);
        while cgroup.pids().len() < 3 && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(cgroup.pids().len(), 3, "the shell and its two children");
        assert!(cgroup.kill());
        assert_killed_and_removed(cgroup, &mut child);
    }

    /// `child` died of SIGKILL, and dropping `cgroup` removes its folder.
    #[track_caller]
    fn assert_killed_and_removed(cgroup: TaskCgroup, child: &mut std::process::Child) {
        let status = child.wait().expect("reaped");
        assert_eq!(
            std::os::unix::process::ExitStatusExt::signal(&status),
            Some(9)
        );
        let dir = cgroup.dir().to_path_buf();
        drop(cgroup);
        assert!(!dir.exists(), "{} was not removed", dir.display());
    }

    #[test]
    fn what_hides_in_a_cgroup_below_is_killed_and_the_tree_removed() {
        let Some(cgroup) = TaskCgroup::create() else {
            eprintln!("no cgroup v2 available to this user: nothing to check");
            return;
        };
        // A process that makes a cgroup below its own and moves itself there: this
        // cgroup's `cgroup.procs` no longer lists it.
        let below = cgroup.dir().join("below");
        let script = format!(
            "sleep 0.2; mkdir {0} && echo $$ > {0}/cgroup.procs && exec sleep 100.303",
            below.display()
        );
        let mut child = std::process::Command::new("/bin/sh")
            .args(["-c", &script])
            .spawn()
            .expect("sh");
        cgroup.add(child.id()).expect("moved");
        let until = Instant::now() + Duration::from_secs(5);
        while pids_of(&below).is_empty() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(5));
        }
        if pids_of(&below).is_empty() {
            // A machine that lets this user make cgroups but not nest them: nothing to hide.
            let _ = child.kill();
            let _ = child.wait();
            return;
        }
        assert!(
            cgroup.pids().is_empty(),
            "the process left for the cgroup below"
        );
        assert!(cgroup.kill(), "something was there");
        assert_killed_and_removed(cgroup, &mut child);
    }

    #[test]
    fn an_empty_cgroup_is_removed_by_the_kill_that_finds_nothing() {
        let Some(cgroup) = TaskCgroup::create() else {
            eprintln!("no cgroup v2 available to this user: nothing to check");
            return;
        };
        assert!(!cgroup.kill(), "nothing was there");
        assert!(!cgroup.dir().exists(), "removed by the kill");
        assert!(!cgroup.kill(), "and still nothing");
    }
}
