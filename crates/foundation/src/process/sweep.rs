//! Finding and killing processes outside the command's group that still hold its output
//! pipe (a `setsid` escapee, a daemon), and reading the process table: on Linux from
//! `/proc`, elsewhere from `ps`.

use std::os::fd::AsFd;

use rustix::process::Pid;
#[cfg(target_os = "linux")]
use rustix::process::{Signal, kill_process};

/// Kills every process, other than this one and its own children, that has one of `pipes`
/// open, and returns how many it killed. Linux only: elsewhere no process's open files can be
/// read without privileges, and nothing is done (the process group is all there is).
#[cfg(target_os = "linux")]
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

#[cfg(not(target_os = "linux"))]
pub(crate) fn kill_pipe_holders<F: AsFd>(_pipes: &[F]) -> u32 {
    0
}

/// The descendants of `pid` now: children, their children, and so on, found by their parent
/// ids in one read of the process table: `/proc` on Linux unless `portable`, else `ps`.
pub(crate) fn descendants(pid: u32, portable: bool) -> Vec<Pid> {
    #[cfg(target_os = "linux")]
    let table = if portable {
        ps_parents()
    } else {
        proc_parents()
    };
    #[cfg(not(target_os = "linux"))]
    let table = {
        let _ = portable;
        ps_parents()
    };
    descendants_in(pid, &table)
}

/// Every process's (pid, parent pid), from `/proc`.
#[cfg(target_os = "linux")]
fn proc_parents() -> Vec<(u32, u32)> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| Some((pid, parent_of(pid)?)))
        .collect()
}

/// Every process's (pid, parent pid), from `ps` (POSIX options), for where there is no
/// `/proc`, and for Linux's portable runs.
fn ps_parents() -> Vec<(u32, u32)> {
    let Ok(out) = std::process::Command::new("ps")
        .args(["-A", "-o", "pid=", "-o", "ppid="])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
    else {
        return Vec::new();
    };
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            Some((fields.next()?.parse().ok()?, fields.next()?.parse().ok()?))
        })
        .collect()
}

fn descendants_in(pid: u32, table: &[(u32, u32)]) -> Vec<Pid> {
    let mut children: std::collections::HashMap<u32, Vec<u32>> = Default::default();
    for &(child, parent) in table {
        children.entry(parent).or_default().push(child);
    }
    let mut found = Vec::new();
    let mut queue = vec![pid];
    while let Some(next) = queue.pop() {
        for &child in children.get(&next).map(Vec::as_slice).unwrap_or_default() {
            // A cycle cannot happen in a real process tree, but the table is read while it
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

/// When process `pid` started, as a number that differs for a later process given the same
/// pid; `None` when no such process is alive. On Linux field 22 of `/proc/<pid>/stat` (in
/// clock ticks since boot); elsewhere what `ps` says of its start (to the second).
pub fn start_time(pid: u32) -> Option<u64> {
    #[cfg(target_os = "linux")]
    return proc_start_time(pid);
    #[cfg(not(target_os = "linux"))]
    ps_start_time(pid)
}

#[cfg(target_os = "linux")]
fn proc_start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name in parentheses may hold spaces; fields count from after it.
    let rest = &stat[stat.rfind(')')? + 2..];
    rest.split(' ').nth(19)?.parse().ok()
}

/// `ps -o lstart=` of `pid`, hashed (FNV-1a) into a number. Compiled everywhere, so that
/// Linux's tests hold it.
#[cfg_attr(target_os = "linux", allow(dead_code))]
fn ps_start_time(pid: u32) -> Option<u64> {
    let out = std::process::Command::new("ps")
        .args(["-o", "lstart=", "-p", &pid.to_string()])
        .env("LC_ALL", "C")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let text = text.trim();
    (out.status.success() && !text.is_empty()).then(|| crate::fnv1a(text.as_bytes()))
}

#[cfg(target_os = "linux")]
fn holds_any(pid: u32, names: &[String]) -> bool {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.flatten().any(|fd| {
        std::fs::read_link(fd.path())
            .is_ok_and(|target| names.iter().any(|name| target.as_os_str() == name.as_str()))
    })
}

#[cfg(target_os = "linux")]
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name in parentheses may hold spaces and parentheses; fields after the last
    // `)` are plain: state, then the parent pid.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

/// The `ps` readers that stand in for `/proc` elsewhere, held to `/proc`'s answers.
#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn ps_finds_the_descendants_proc_finds() {
        // A shell with a child that has a child of its own.
        let mut shell = std::process::Command::new("/bin/sh")
            .args(["-c", "sh -c 'sleep 30.411 & wait' & sleep 30.412 & wait"])
            .spawn()
            .expect("sh");
        let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while descendants(shell.id(), false).len() < 3 && std::time::Instant::now() < until {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let from_proc = descendants_in(shell.id(), &proc_parents());
        let from_ps = descendants_in(shell.id(), &ps_parents());
        for pid in &from_proc {
            let _ = kill_process(*pid, Signal::KILL);
        }
        let _ = shell.kill();
        let _ = shell.wait();
        let sorted = |pids: Vec<Pid>| {
            let mut raw: Vec<i32> = pids.into_iter().map(Pid::as_raw_pid).collect();
            raw.sort_unstable();
            raw
        };
        let (from_proc, from_ps) = (sorted(from_proc), sorted(from_ps));
        assert_eq!(from_proc.len(), 3, "the inner shell and two sleeps");
        assert_eq!(from_ps, from_proc);
    }

    #[test]
    fn ps_tells_a_live_process_from_a_gone_one() {
        let me = std::process::id();
        assert!(ps_start_time(me).is_some());
        assert_eq!(ps_start_time(me), ps_start_time(me));
        let mut child = std::process::Command::new("true").spawn().expect("true");
        let pid = child.id();
        let _ = child.wait();
        assert_eq!(ps_start_time(pid), None);
        assert_eq!(proc_start_time(pid), None);
        assert!(proc_start_time(me).is_some());
    }
}
