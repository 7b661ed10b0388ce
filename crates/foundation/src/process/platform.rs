//! The few process primitives that exist on Linux only, each with what stands in for it
//! elsewhere. The bigger Linux-only mechanisms own their platform choice where they live:
//! cgroups (`cgroup.rs`), starting inside one (`clone_into.rs`), the `/proc` sweeps
//! (`sweep.rs`) and the sandbox (`sandbox.rs`).

use std::os::fd::{AsFd, OwnedFd};
use std::path::PathBuf;

use rustix::process::{Pid, Signal};

/// A pidfd of `pid` (Linux 5.3): it reaches the process even after it left its process
/// group, and `poll` reports it readable when the process exits. `None` on kernels without
/// one and on other platforms, where the run's supervision polls for the exit instead.
pub(crate) fn pidfd_open(pid: Pid) -> Option<OwnedFd> {
    #[cfg(target_os = "linux")]
    return rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty()).ok();
    #[cfg(not(target_os = "linux"))]
    {
        let _ = pid;
        None
    }
}

/// Sends `signal` through a pidfd from [`pidfd_open`] (or `clone3`).
pub(crate) fn pidfd_signal(pidfd: impl AsFd, signal: Signal) {
    #[cfg(target_os = "linux")]
    let _ = rustix::process::pidfd_send_signal(pidfd, signal);
    #[cfg(not(target_os = "linux"))]
    let _ = (pidfd.as_fd(), signal);
}

/// Asks for a pipe buffer of `bytes`, so that a command writing fast blocks less often
/// (Linux's `F_SETPIPE_SZ`; elsewhere pipes size themselves and this does nothing).
pub(crate) fn grow_pipe(pipe: impl AsFd, bytes: usize) {
    #[cfg(target_os = "linux")]
    let _ = rustix::pipe::fcntl_setpipe_size(pipe, bytes);
    #[cfg(not(target_os = "linux"))]
    let _ = (pipe.as_fd(), bytes);
}

/// Whether the input `fd` has hung up, though unread bytes may still be in it: a pipe whose
/// writer closed reports a hangup, and on Linux a socket whose peer shut its side down
/// too (`POLLRDHUP`; elsewhere a socket reports it once both sides are shut).
pub fn input_hung_up(fd: impl AsFd) -> bool {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    #[cfg(target_os = "linux")]
    let peer_shut = PollFlags::RDHUP;
    #[cfg(not(target_os = "linux"))]
    let peer_shut = PollFlags::empty();
    let mut fds = [PollFd::new(&fd, peer_shut)];
    let now = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    match poll(&mut fds, Some(&now)) {
        Ok(_) => fds[0]
            .revents()
            .intersects(PollFlags::HUP | peer_shut | PollFlags::ERR | PollFlags::NVAL),
        Err(_) => false,
    }
}

/// The path that starts this program again: `/proc/self/exe` on Linux, which stays right
/// even when the file was replaced or removed since; elsewhere the path it was started
/// from, as the platform tells it.
pub(crate) fn this_program() -> std::io::Result<PathBuf> {
    #[cfg(target_os = "linux")]
    return Ok(PathBuf::from("/proc/self/exe"));
    #[cfg(not(target_os = "linux"))]
    std::env::current_exe()
}
