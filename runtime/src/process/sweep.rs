//! Finding and killing processes outside the command's group that still hold its output
//! pipe (a `setsid` escapee, a daemon).

use std::os::fd::AsFd;

use rustix::process::{Pid, Signal, kill_process};

/// Kills every process, other than this one and its own children, that has one of `pipes`
/// open, and returns how many it killed. Linux only: elsewhere there is no `/proc` to read
/// and nothing is done.
pub(crate) fn kill_pipe_holders<F: AsFd>(pipes: &[F]) -> u32 {
    let names: Vec<String> = pipes
        .iter()
        .filter_map(|fd| rustix::fs::fstat(fd).ok())
        .map(|stat| format!("pipe:[{}]", stat.st_ino))
        .collect();
    if names.is_empty() {
        return 0;
    }
    let me = std::process::id();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let mut killed = 0;
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|name| name.parse::<u32>().ok())
        else {
            continue;
        };
        // Our own children may be another run's shell between fork and exec, holding a copy
        // of our pipe for a moment; they are never escapees.
        if pid == me || parent_of(pid) == Some(me) {
            continue;
        }
        if holds_any(pid, &names)
            && let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw)
            && kill_process(pid, Signal::KILL).is_ok()
        {
            killed += 1;
        }
    }
    killed
}

fn holds_any(pid: u32, names: &[String]) -> bool {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.flatten().any(|fd| {
        std::fs::read_link(fd.path())
            .is_ok_and(|target| names.iter().any(|name| target.as_os_str() == name.as_str()))
    })
}

fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name in parentheses may hold spaces and parentheses; fields after the last
    // `)` are plain: state, then the parent pid.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(1)?.parse().ok()
}
