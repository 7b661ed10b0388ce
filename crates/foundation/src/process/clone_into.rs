//! Starting a program inside its run's cgroup with `clone3(CLONE_INTO_CGROUP)`: the one
//! place in the workspace with `unsafe` code (docs/reliability.md, "One module has `unsafe`").
//!
//! Why it is needed, measured (scripts/bench-notes.md, row 1): moving a process that already
//! runs into a cgroup is a write to `cgroup.procs`, which takes the kernel's global
//! `cgroup_threadgroup_rwsem` for writing, and that waits for an RCU grace period: 10–25 ms
//! on the benchmark machine for the first move after a quiet moment, most of what cold
//! detection added over its slowest probe. A child made by `clone3` with
//! `CLONE_INTO_CGROUP` takes only the read side. It is also in its cgroup from its first
//! instruction, where a move after the start left a moment in which it could fork outside,
//! and the shell no longer has to start first only to move itself.
//!
//! std cannot start a child this way, rustix leaves `clone3` out, and the one crate that
//! binds it (`clone3`, last released in 2022) is the raw call, which would leave the same
//! `unsafe` here. So the call and what the child does until `execve` are written out below.
//!
//! The child is started as posix_spawn starts one (CLONE_VM | CLONE_VFORK): it runs in this
//! process's memory, on a stack of its own, while the calling thread waits until it has
//! called `execve` or exited. Other threads of this process keep running, and one of them
//! may hold the allocator's lock. So between `clone3` and `execve` the child makes only
//! async-signal-safe calls (POSIX's list: `sigprocmask`, `dup2`, `fcntl`, `setpgid`,
//! `chdir`, `execve`, `_exit`) on memory prepared before the call, allocates nothing, takes
//! no lock and writes only its own stack and one atomic. `setrlimit`, not on that list, is
//! glibc's wrapper of the one `prlimit64` system call. The call itself is a few lines of
//! x86_64 assembly (`clone3_then`), because the child must not return through the caller's
//! frames; on other architectures `usable` is false and runs start the other way.

// The lint is `deny` for the workspace and allowed only in this file; a test in
// crates/foundation/src/lib.rs fails if another file allows it.
#![allow(unsafe_code)]

use std::ffi::{CString, OsStr, OsString};
#[cfg(target_os = "linux")]
use std::os::fd::{AsFd, AsRawFd, FromRawFd};
use std::os::fd::{BorrowedFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::Path;
#[cfg(target_os = "linux")]
use std::sync::atomic::AtomicI32;
use std::sync::atomic::{AtomicBool, Ordering};

use rustix::process::Pid;
#[cfg(target_os = "linux")]
use rustix::process::{WaitId, WaitIdOptions, waitid};

/// `struct clone_args` of `<linux/sched.h>` up to `cgroup` (Linux 5.7), 88 bytes.
#[cfg(target_os = "linux")]
#[repr(C)]
#[derive(Default)]
struct CloneArgs {
    flags: u64,
    pidfd: u64,
    child_tid: u64,
    parent_tid: u64,
    exit_signal: u64,
    stack: u64,
    stack_size: u64,
    tls: u64,
    set_tid: u64,
    set_tid_size: u64,
    cgroup: u64,
}

// From <linux/sched.h>; libc's own constants are typed for `clone(2)`.
#[cfg(target_os = "linux")]
const CLONE_VM: u64 = 0x100;
#[cfg(target_os = "linux")]
const CLONE_VFORK: u64 = 0x4000;
#[cfg(target_os = "linux")]
const CLONE_PIDFD: u64 = 0x1000;
#[cfg(target_os = "linux")]
const CLONE_CLEAR_SIGHAND: u64 = 0x1_0000_0000;
#[cfg(target_os = "linux")]
const CLONE_INTO_CGROUP: u64 = 0x2_0000_0000;

/// Set once `clone3` has refused a cgroup: runs start the old way from then on.
static REFUSED: AtomicBool = AtomicBool::new(false);

/// Whether starting children inside a cgroup has not been refused yet (and is written for
/// this platform: Linux on x86_64 only, see `clone3_then`).
pub(crate) fn usable() -> bool {
    cfg!(all(target_os = "linux", target_arch = "x86_64")) && !REFUSED.load(Ordering::Relaxed)
}

/// Makes this process start children the old way, as after a refusal (tests of that way).
#[cfg(test)]
pub(crate) fn refuse() {
    REFUSED.store(true, Ordering::Relaxed);
}

/// A program ready to be started: every byte the child needs, prepared by the parent.
#[derive(Debug)]
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(crate) struct Program {
    /// The paths to try in turn, as `execvp` tries the folders of `PATH`.
    candidates: Vec<CString>,
    argv: Vec<CString>,
    envp: Vec<CString>,
    cwd: CString,
}

impl Program {
    /// `program` with `args`, run in `cwd` with this process's environment (none of it when
    /// `clear`) and `env` set on top, `program` looked up in the `PATH` the child will have
    /// when it has no `/`.
    pub(crate) fn new(
        program: &OsStr,
        args: &[&OsStr],
        cwd: &Path,
        env: &[(String, String)],
        clear: bool,
    ) -> std::io::Result<Self> {
        let mut vars: Vec<(OsString, OsString)> = std::env::vars_os()
            .filter(|_| !clear)
            .filter(|(key, _)| !env.iter().any(|(k, _)| OsStr::new(k) == key))
            .collect();
        vars.extend(env.iter().map(|(k, v)| (k.into(), v.into())));
        let path = vars
            .iter()
            .rev()
            .find(|(key, _)| key == "PATH")
            .map(|(_, value)| value.clone());
        let envp = vars
            .into_iter()
            .map(|(mut key, value)| {
                key.push("=");
                key.push(value);
                c_string(key)
            })
            .collect::<std::io::Result<_>>()?;
        let mut argv = vec![c_string(program.into())?];
        for arg in args {
            argv.push(c_string((*arg).into())?);
        }
        Ok(Self {
            candidates: candidates(program, path.as_deref())
                .into_iter()
                .map(c_string)
                .collect::<std::io::Result<_>>()?,
            argv,
            envp,
            cwd: c_string(cwd.as_os_str().into())?,
        })
    }
}

fn c_string(bytes: OsString) -> std::io::Result<CString> {
    CString::new(bytes.into_vec()).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "a NUL byte in the program, an argument or a variable",
        )
    })
}

/// Where `execvp` would look for `program`: itself when it names a path, else each folder
/// of `path` (an empty entry is the working directory; no `PATH` is glibc's `/bin:/usr/bin`).
fn candidates(program: &OsStr, path: Option<&OsStr>) -> Vec<OsString> {
    if program.as_bytes().contains(&b'/') {
        return vec![program.to_owned()];
    }
    let path = path.map_or(&b"/bin:/usr/bin"[..], OsStr::as_bytes);
    path.split(|&b| b == b':')
        .map(|dir| {
            let dir = if dir.is_empty() { &b"."[..] } else { dir };
            let mut full = dir.to_vec();
            full.push(b'/');
            full.extend_from_slice(program.as_bytes());
            OsString::from_vec(full)
        })
        .collect()
}

/// A child started in its cgroup.
#[derive(Debug)]
pub(crate) struct Started {
    pub(crate) pid: Pid,
    pub(crate) pidfd: OwnedFd,
}

/// Why a start failed.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The kernel refused `clone3` into this cgroup (an old kernel, a seccomp filter, a
    /// cgroup it may not join): nothing was started, [`usable`] is false from now on, and
    /// the caller starts it another way.
    Unsupported,
    /// The child started but could not run the program (missing, not executable, a working
    /// directory it could not enter); it has exited and been reaped.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    Start(std::io::Error),
}

/// Starts `program` as the leader of a new process group inside the cgroup whose folder is
/// open as `cgroup`, with `stdio` as its fds 0, 1 and 2, signals at their defaults and none
/// blocked, as std's `Command` would start it, and at most `data_limit_kib` of data memory.
#[cfg(target_os = "linux")]
pub(crate) fn spawn(
    program: &Program,
    stdio: [BorrowedFd<'_>; 3],
    cgroup: BorrowedFd<'_>,
    data_limit_kib: Option<u64>,
) -> Result<Started, Failure> {
    // Pointer arrays ending in NULL, made before the call: the child cannot allocate.
    let argv: Vec<*const libc::c_char> = program
        .argv
        .iter()
        .map(|a| a.as_ptr())
        .chain([std::ptr::null()])
        .collect();
    let envp: Vec<*const libc::c_char> = program
        .envp
        .iter()
        .map(|e| e.as_ptr())
        .chain([std::ptr::null()])
        .collect();
    let child = Child {
        candidates: &program.candidates,
        argv: argv.as_ptr(),
        envp: envp.as_ptr(),
        cwd: &program.cwd,
        stdio: stdio.map(|fd| fd.as_raw_fd()),
        data_limit: data_limit_kib.map(|kib| {
            // No higher than the hard limit now, which only root could raise.
            let hard = rustix::process::getrlimit(rustix::process::Resource::Data).maximum;
            let bytes = kib.saturating_mul(1024).min(hard.unwrap_or(u64::MAX));
            libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            }
        }),
        failed: AtomicI32::new(0),
    };
    let stack = Stack::new().map_err(Failure::Start)?;
    let mut pidfd: libc::c_int = -1;
    // CLONE_VM | CLONE_VFORK, as posix_spawn starts a child: it runs in this memory, on its
    // own stack, while this thread waits until it has called `execve` or exited. Nothing is
    // copied, so other threads of this process pay no copy-on-write faults and no TLB
    // flushes (a copy, measured beside four busy threads, made a start 1.9 ms against
    // 0.8 ms). CLONE_CLEAR_SIGHAND: no handler of this process runs in the child.
    let args = CloneArgs {
        flags: CLONE_VM | CLONE_VFORK | CLONE_PIDFD | CLONE_CLEAR_SIGHAND | CLONE_INTO_CGROUP,
        pidfd: std::ptr::addr_of_mut!(pidfd) as u64,
        exit_signal: libc::SIGCHLD as u64,
        stack: stack.base as u64,
        stack_size: STACK_BYTES as u64,
        cgroup: cgroup.as_raw_fd() as u64,
        ..CloneArgs::default()
    };
    let ret = clone3_then(&args, &child);
    if ret < 0 {
        let err = std::io::Error::from_raw_os_error(-ret as i32);
        // Out of processes or memory: std's spawn would fail the same way.
        if matches!(err.raw_os_error(), Some(libc::EAGAIN | libc::ENOMEM)) {
            return Err(Failure::Start(err));
        }
        REFUSED.store(true, Ordering::Relaxed);
        return Err(Failure::Unsupported);
    }
    // SAFETY: with CLONE_PIDFD the kernel stored a new fd, owned by nobody else, in `pidfd`.
    let pidfd = unsafe { OwnedFd::from_raw_fd(pidfd) };
    let pid = Pid::from_raw(ret as i32).expect("clone3 returns a positive pid to the parent");
    drop(stack);
    // With CLONE_VFORK the child has called `execve` or exited by now; it wrote `failed`
    // before exiting.
    match child.failed.load(Ordering::Acquire) {
        0 => Ok(Started { pid, pidfd }),
        errno => {
            let _ = waitid(WaitId::PidFd(pidfd.as_fd()), WaitIdOptions::EXITED);
            Err(Failure::Start(std::io::Error::from_raw_os_error(errno)))
        }
    }
}

/// Elsewhere there are no cgroups to start in, and nothing is started.
#[cfg(not(target_os = "linux"))]
pub(crate) fn spawn(
    _program: &Program,
    _stdio: [BorrowedFd<'_>; 3],
    _cgroup: BorrowedFd<'_>,
    _data_limit_kib: Option<u64>,
) -> Result<Started, Failure> {
    REFUSED.store(true, Ordering::Relaxed);
    Err(Failure::Unsupported)
}

/// The child's stack size: it only calls a few system call wrappers.
#[cfg(target_os = "linux")]
const STACK_BYTES: usize = 64 * 1024;

/// A stack for the child, with an inaccessible page below it.
#[cfg(target_os = "linux")]
struct Stack {
    /// The lowest byte the child may use.
    base: *mut libc::c_void,
    /// The whole mapping, guard page included.
    mapping: *mut libc::c_void,
}

#[cfg(target_os = "linux")]
impl Stack {
    fn new() -> std::io::Result<Self> {
        let page = 4096;
        // SAFETY: a fresh anonymous mapping, unmapped only by `drop`.
        unsafe {
            let mapping = libc::mmap(
                std::ptr::null_mut(),
                STACK_BYTES + page,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_STACK,
                -1,
                0,
            );
            if mapping == libc::MAP_FAILED {
                return Err(std::io::Error::last_os_error());
            }
            let stack = Self {
                base: mapping.cast::<u8>().add(page).cast(),
                mapping,
            };
            if libc::mprotect(mapping, page, libc::PROT_NONE) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(stack)
        }
    }
}

#[cfg(target_os = "linux")]
impl Drop for Stack {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, no longer used (the child has left it).
        unsafe {
            libc::munmap(self.mapping, STACK_BYTES + 4096);
        }
    }
}

/// `clone3(args)`; in the child, on the stack `args` names, `child_main(child)`, which never
/// returns. Returns the child's pid, or a negated errno.
///
/// A plain `syscall()` cannot be used: with CLONE_VM the child would return through this
/// thread's frames on its own, empty stack. So the call is made here, and the child's side
/// jumps straight into `child_main`.
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
fn clone3_then(args: &CloneArgs, child: &Child<'_>) -> i64 {
    let ret: i64;
    // SAFETY: `args` is a valid `clone_args` of the size given, naming a stack of
    // STACK_BYTES that ends 16-byte aligned (the kernel starts the child with its stack
    // pointer at `stack + stack_size`, so the `call` below leaves it as a function entry
    // expects). In this thread only rax, rcx and r11 change (the system call's own
    // clobbers). The child starts with this thread's registers and memory, clears the
    // frame pointer and calls `child_main`, which never returns; `child` stays valid
    // because this thread is held by CLONE_VFORK until the child has left it.
    unsafe {
        std::arch::asm!(
            "syscall",
            "test rax, rax",
            "jnz 2f",
            "xor ebp, ebp",
            "mov rdi, r12",
            "call r13",
            "ud2",
            "2:",
            inlateout("rax") libc::SYS_clone3 => ret,
            in("rdi") std::ptr::from_ref(args),
            in("rsi") std::mem::size_of::<CloneArgs>(),
            in("r12") std::ptr::from_ref(child),
            in("r13") child_main as *const (),
            lateout("rcx") _,
            lateout("r11") _,
            options(nostack),
        );
    }
    ret
}

/// Elsewhere `usable` is false and this is never called.
#[cfg(all(target_os = "linux", not(target_arch = "x86_64")))]
fn clone3_then(_args: &CloneArgs, _child: &Child<'_>) -> i64 {
    // Never called here (`usable` is false); naming the child's entry keeps it compiled
    // and linted on this architecture too.
    let _ = child_main as extern "C" fn(*const Child<'_>) -> !;
    -i64::from(libc::ENOSYS)
}

/// Where the child starts.
#[cfg(target_os = "linux")]
extern "C" fn child_main(child: *const Child<'_>) -> ! {
    // SAFETY: see `clone3_then`.
    unsafe { (*child).exec() }
}

/// What the child needs, as raw pointers and fds.
#[cfg(target_os = "linux")]
struct Child<'a> {
    candidates: &'a [CString],
    argv: *const *const libc::c_char,
    envp: *const *const libc::c_char,
    cwd: &'a CString,
    stdio: [libc::c_int; 3],
    data_limit: Option<libc::rlimit>,
    /// Set by the child to the errno of a step that failed, before it exits.
    failed: AtomicI32,
}

#[cfg(target_os = "linux")]
impl Child<'_> {
    /// Runs in the child: sets it up and starts the program, or leaves the errno in
    /// `failed` and exits 127.
    fn exec(&self) -> ! {
        // SAFETY: each call below is async-signal-safe and gets pointers into memory
        // prepared before `clone3` (NUL-terminated strings, NULL-terminated arrays).
        unsafe {
            let errno = self.setup().err().unwrap_or_else(|| self.try_each());
            self.failed.store(errno.max(1), Ordering::Release);
            libc::_exit(127)
        }
    }

    /// Signals, fds, process group and working directory; the errno of a failed step.
    unsafe fn setup(&self) -> Result<(), libc::c_int> {
        let check = |ret: libc::c_int| {
            if ret == -1 {
                Err(unsafe { *libc::__errno_location() })
            } else {
                Ok(())
            }
        };
        // SAFETY: see `exec`.
        unsafe {
            // Handlers were reset by CLONE_CLEAR_SIGHAND; SIGPIPE, which Rust ignores, is
            // restored as std restores it, and nothing is blocked.
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
            let mut none: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut none);
            check(libc::sigprocmask(
                libc::SIG_SETMASK,
                &none,
                std::ptr::null_mut(),
            ))?;
            for (target, fd) in self.stdio.iter().enumerate() {
                let target = target as libc::c_int;
                if *fd == target {
                    // Already in place: only the close-on-exec flag has to go.
                    check(libc::fcntl(target, libc::F_SETFD, 0))?;
                } else {
                    check(libc::dup2(*fd, target))?;
                }
            }
            check(libc::setpgid(0, 0))?;
            if let Some(limit) = &self.data_limit {
                // Both the soft and the hard limit, as `ulimit -d` sets them, so the program
                // cannot raise it again. A refusal leaves the program unbounded rather than
                // not run, as the shell's `ulimit -d … 2>/dev/null` did.
                libc::setrlimit(libc::RLIMIT_DATA, limit);
            }
            check(libc::chdir(self.cwd.as_ptr()))
        }
    }

    /// `execve` of each candidate in turn, as `execvp` does: a missing or forbidden one
    /// moves on, any other error stops. Returns only on failure, with the errno to report
    /// (EACCES when some candidate existed but could not be run).
    unsafe fn try_each(&self) -> libc::c_int {
        let mut denied = false;
        let mut last = libc::ENOENT;
        for path in self.candidates {
            // SAFETY: see `exec`.
            unsafe {
                libc::execve(path.as_ptr(), self.argv, self.envp);
                last = *libc::__errno_location();
            }
            match last {
                libc::EACCES => denied = true,
                libc::ENOENT | libc::ENOTDIR | libc::ESTALE | libc::ENODEV | libc::ETIMEDOUT => {}
                _ => return last,
            }
        }
        if denied { libc::EACCES } else { last }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn candidates_follow_path_as_execvp_does() {
        let got = |program: &str, path: Option<&str>| {
            candidates(OsStr::new(program), path.map(OsStr::new))
                .into_iter()
                .map(|p| p.into_string().expect("utf-8"))
                .collect::<Vec<_>>()
        };
        assert_eq!(got("make", Some("/a:/b")), ["/a/make", "/b/make"]);
        assert_eq!(
            got("make", Some("/a::/b")),
            ["/a/make", "./make", "/b/make"]
        );
        assert_eq!(got("./x", Some("/a")), ["./x"]);
        assert_eq!(got("bin/x", Some("/a")), ["bin/x"]);
        assert_eq!(got("make", None), ["/bin/make", "/usr/bin/make"]);
    }

    /// A folder that is no cgroup stands in for one the kernel will not start a child in:
    /// nothing starts, and from then on this process starts children the other way.
    #[test]
    fn a_refused_cgroup_starts_nothing_and_turns_the_way_off() {
        let program =
            Program::new(OsStr::new("true"), &[], Path::new("/"), &[], false).expect("ok");
        let null = std::fs::File::open("/dev/null").expect("null");
        let not_a_cgroup = std::fs::File::open(std::env::temp_dir()).expect("tmp");
        let stdio = [null.as_fd(), null.as_fd(), null.as_fd()];
        let got = spawn(&program, stdio, not_a_cgroup.as_fd(), None);
        assert!(matches!(got, Err(Failure::Unsupported)), "{got:?}");
        assert!(!usable());
    }

    #[test]
    fn a_missing_program_is_reported_by_the_child() {
        let Some(cgroup) = crate::process::cgroup::TaskCgroup::create() else {
            eprintln!("no cgroup v2 for this user: nothing to check");
            return;
        };
        let program = Program::new(
            OsStr::new("no-such-program-xyz"),
            &[],
            Path::new("/"),
            &[],
            false,
        )
        .expect("ok");
        let null = std::fs::File::open("/dev/null").expect("null");
        let stdio = [null.as_fd(), null.as_fd(), null.as_fd()];
        match spawn(&program, stdio, cgroup.fd(), None) {
            Err(Failure::Start(err)) => assert_eq!(err.kind(), std::io::ErrorKind::NotFound),
            other => panic!("{other:?}"),
        }
        assert!(cgroup.pids().is_empty(), "the child was reaped");
    }

    #[test]
    fn a_nul_byte_is_an_error_not_a_truncation() {
        let err = Program::new(
            OsStr::new("echo"),
            &[OsStr::new("a\0b")],
            Path::new("/"),
            &[],
            false,
        )
        .expect_err("refused");
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
    }
}
