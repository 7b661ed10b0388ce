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

/// The descendants of `pid` as `/proc` shows them now: children, their children, and so
/// on, found by their parent ids in one scan. Linux only; elsewhere none.
pub(crate) fn descendants(pid: u32) -> Vec<Pid> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut children: std::collections::HashMap<u32, Vec<u32>> = Default::default();
    for entry in entries.flatten() {
        let Some(child) = entry
            .file_name()
            .to_str()
            .and_then(|name| name.parse::<u32>().ok())
        else {
            continue;
        };
        if let Some(parent) = parent_of(child) {
            children.entry(parent).or_default().push(child);
        }
    }
    let mut found = Vec::new();
    let mut queue = vec![pid];
    while let Some(next) = queue.pop() {
        for &child in children.get(&next).map(Vec::as_slice).unwrap_or_default() {
            // A cycle cannot happen in a real process tree, but /proc is read while it
            // changes: never visit one twice.
            if child != pid && !found.contains(&child) {
                found.push(child);
                queue.push(child);
            }
        }
    }
    found
        .into_iter()
        .filter_map(|p| i32::try_from(p).ok().and_then(Pid::from_raw))
        .collect()
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
