//! [`LocalSpawner`]: runs a command line through `/bin/sh -c` on this machine.

use std::ffi::OsStr;
use std::io::{ErrorKind, PipeReader, Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec, poll};
use rustix::fs::{OFlags, fcntl_getfl, fcntl_setfl};
use rustix::io::Errno;
use rustix::process::{
    Pid, Signal, WaitId, WaitIdOptions, kill_process, kill_process_group, waitid,
};

use crate::quote::{single_quote, split_words};

use super::capture::StreamCapture;
use super::cgroup::TaskCgroup;
use super::{
    CaptureSpec, Exit, Leftovers, MAX_ARG_BYTES, OutputMode, RunOutput, RunRequest, SpawnError,
    Spawner, StartMode, registry, sweep,
};
use super::{clone_into, platform};

/// Runs command lines through `/bin/sh -c` on this machine: stdin closed, its own process
/// group, output drained by one thread with `poll(2)`, the whole group stopped at the
/// deadline and when the shell leaves processes behind.
#[derive(Debug, Clone)]
pub struct LocalSpawner {
    shell: PathBuf,
    /// How long after the group is killed we wait for the pipes to close before looking for
    /// escaped holders.
    pub leak_wait: Duration,
    /// How long after that sweep we wait before giving up on the pipes.
    pub abandon_wait: Duration,
    /// Whether each run gets a cgroup of its own where the machine allows.
    pub cgroups: Cgroups,
    /// Whether runs use only what every Unix has: no cgroup, no pidfd, no `/proc` sweep of
    /// pipe holders, the process table read with `ps`, the leader signalled by its pid
    /// (safe while it is an unreaped child). Always so off Linux (macOS); on Linux it is off
    /// unless set, and set, it lets Linux's tests run the path macOS takes.
    pub portable: bool,
}

/// Whether runs are contained in cgroups.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Cgroups {
    /// A cgroup per run where cgroup v2 lets this user make one (see
    /// [`cgroups_available`](super::cgroups_available)).
    #[default]
    WhenAvailable,
    /// Never: the process group, the pidfd and the `/proc` sweeps only.
    Never,
}

impl Default for LocalSpawner {
    fn default() -> Self {
        Self {
            // An absolute path: `sh` alone would make the spawn walk PATH.
            shell: PathBuf::from("/bin/sh"),
            leak_wait: Duration::from_millis(100),
            abandon_wait: Duration::from_millis(100),
            cgroups: Cgroups::WhenAvailable,
            portable: cfg!(not(target_os = "linux")),
        }
    }
}

impl Spawner for LocalSpawner {
    fn run(&self, request: &RunRequest) -> Result<RunOutput, SpawnError> {
        match self.run_once(request) {
            // Nothing started: the kernel refused to start a child in a cgroup, and will not
            // be asked again; the run starts over the other way.
            Err(Attempt::Refused) => match self.run_once(request) {
                Err(Attempt::Refused) => unreachable!("clone3 is asked once"),
                Err(Attempt::Failed(err)) => Err(err),
                Ok(output) => Ok(output),
            },
            Err(Attempt::Failed(err)) => Err(err),
            Ok(output) => Ok(output),
        }
    }
}

/// Why a run did not get to its end.
enum Attempt {
    /// The kernel refused to start a child in a cgroup; nothing started.
    Refused,
    /// A real failure.
    Failed(SpawnError),
}

impl From<SpawnError> for Attempt {
    fn from(err: SpawnError) -> Self {
        Self::Failed(err)
    }
}

impl From<std::io::Error> for Attempt {
    fn from(err: std::io::Error) -> Self {
        Self::Failed(err.into())
    }
}

impl LocalSpawner {
    fn run_once(&self, request: &RunRequest) -> Result<RunOutput, Attempt> {
        check_cwd(&request.cwd)?;
        let start = Instant::now();

        // Where the machine allows, the run gets a cgroup, which holds everything it starts,
        // in its process group or not (see `cgroup.rs`).
        let mut cgroup = match self.cgroups {
            Cgroups::WhenAvailable if !self.portable => TaskCgroup::create(),
            Cgroups::WhenAvailable | Cgroups::Never => None,
        };
        // Whether the child can start inside it (`clone_into.rs`).
        let born_inside = cgroup.is_some() && clone_into::usable();

        // A command line of plain words is one program with its arguments: starting it
        // directly does what `sh -c` would do, without the shell's own start (about 1.5 ms
        // here). When that program cannot be started (missing, not executable, a script
        // without `#!`), nothing has run yet and the shell runs the line instead, so it
        // behaves, and its errors read and exit (127, 126), as they always do. Where a child
        // cannot start inside its cgroup, the shell always runs the line: it moves itself
        // into the cgroup before running anything, and only a program that must start
        // directly is moved after its start.
        // A data limit, likewise, is set by the child itself where it starts inside, and
        // by the shell (`ulimit -d`) elsewhere, since std cannot set it before `exec`.
        let direct_allowed = born_inside
            || request.start == StartMode::DirectOnly
            || (cgroup.is_none() && request.data_limit_kib.is_none());
        if let Some(words) = plain_words(&request.command).filter(|_| direct_allowed) {
            let args: Vec<&OsStr> = words[1..].iter().map(OsStr::new).collect();
            match (
                self.spawn(request, OsStr::new(&words[0]), &args, &mut cgroup, start),
                request.start,
            ) {
                (Err(Attempt::Failed(SpawnError::Start { .. })), StartMode::ShellWhenNeeded) => {}
                (other, _) => return other,
            }
        } else if request.start == StartMode::DirectOnly {
            return Err(SpawnError::NotPlain(request.command.clone()).into());
        }
        // On the command's first line, so the shell's messages keep their line numbers.
        let mut script = String::new();
        if !born_inside {
            if let Some(kib) = request.data_limit_kib {
                // A shell without `-d` runs the command unbounded rather than not at all.
                script.push_str(&format!("ulimit -d {kib} 2>/dev/null; "));
            }
            if let Some(cgroup) = &cgroup {
                script.push_str(&format!(
                    "echo 0 >{} 2>/dev/null; ",
                    single_quote(&cgroup.dir().join("cgroup.procs").display().to_string()),
                ));
            }
        }
        script.push_str(&request.command);
        // Linux refuses one argument longer than MAX_ARG_BYTES (E2BIG), so a longer command
        // line reaches the shell as a script file instead.
        let script_file = if script.len() > MAX_ARG_BYTES {
            let mut file = tempfile::Builder::new()
                .prefix("speccoder-script-")
                .suffix(".sh")
                .tempfile()?;
            file.write_all(script.as_bytes())?;
            file.flush()?;
            Some(file)
        } else {
            None
        };
        let args: Vec<&OsStr> = match &script_file {
            Some(file) => vec![file.path().as_os_str()],
            None => vec![OsStr::new("-c"), OsStr::new(&script)],
        };
        self.spawn(request, self.shell.as_os_str(), &args, &mut cgroup, start)
    }

    /// Starts `program` with `args` for `request` and supervises it to the end.
    #[expect(
        clippy::too_many_lines,
        reason = "over 80 lines when the limit was set; split it when it next changes"
    )]
    fn spawn(
        &self,
        request: &RunRequest,
        program: &OsStr,
        args: &[&OsStr],
        cgroup: &mut Option<TaskCgroup>,
        start: Instant,
    ) -> Result<RunOutput, Attempt> {
        let stdin: OwnedFd = match &request.stdin {
            Some(path) => std::fs::File::open(path)
                .map_err(|source| SpawnError::Stdin {
                    path: path.clone(),
                    source,
                })?
                .into(),
            None => std::fs::File::open("/dev/null")?.into(),
        };
        let mut streams = Vec::with_capacity(2);
        let (stdout, stderr): (OwnedFd, OwnedFd) = match request.mode {
            OutputMode::Merged => {
                // One pipe behind fd 1 and fd 2: the kernel keeps the order of the writes.
                let (reader, writer) = std::io::pipe()?;
                streams.push(Stream::new(reader, &request.stdout)?);
                (writer.try_clone()?.into(), writer.into())
            }
            OutputMode::Split => {
                let (out_reader, out_writer) = std::io::pipe()?;
                let (err_reader, err_writer) = std::io::pipe()?;
                streams.push(Stream::new(out_reader, &request.stdout)?);
                streams.push(Stream::new(err_reader, &request.stderr)?);
                (out_writer.into(), err_writer.into())
            }
        };
        let start_error = |source| SpawnError::Start {
            program: program.to_string_lossy().into_owned(),
            source,
        };

        let born_inside = cgroup.is_some() && clone_into::usable();
        let (pgid, pidfd) = if let Some(inside) = cgroup.as_ref().filter(|_| born_inside) {
            let prepared = clone_into::Program::new(
                program,
                args,
                &request.cwd,
                &request.env,
                request.env_clear,
            )
            .map_err(start_error)?;
            let stdio = [stdin.as_fd(), stdout.as_fd(), stderr.as_fd()];
            match clone_into::spawn(&prepared, stdio, inside.fd(), request.data_limit_kib) {
                Ok(started) => {
                    // Our copies of the write ends must close, or the pipes never reach end
                    // of file (on the std path `command` holds them and drops them).
                    drop((stdin, stdout, stderr));
                    (started.pid, Some(started.pidfd))
                }
                Err(clone_into::Failure::Unsupported) => return Err(Attempt::Refused),
                Err(clone_into::Failure::Start(source)) => return Err(start_error(source).into()),
            }
        } else {
            let mut command = Command::new(program);
            command
                .args(args)
                .current_dir(&request.cwd)
                .stdin(stdin)
                .stdout(stdout)
                .stderr(stderr)
                .process_group(0);
            if request.env_clear {
                command.env_clear();
            }
            command.envs(request.env.iter().map(|(k, v)| (k, v)));
            let child = command.spawn().map_err(start_error)?;
            let pid = Pid::from_child(&child);
            // Moved now, where it could not start inside (a shell has moved itself already).
            if let Some(moved) = cgroup.as_ref()
                && moved.add(child.id()).is_err()
            {
                *cgroup = None;
            }
            // The leader's pidfd reaches it even after it left its process group.
            (pid, platform::pidfd_open(pid).filter(|_| !self.portable))
        };
        // Our copies of the pipes' write ends must close now, or the pipes never reach end
        // of file (on the std path `command` held them, and is gone).

        registry::register(pgid);
        let cgroup = cgroup.take();
        if let Some(cgroup) = &cgroup {
            registry::register_cgroup(cgroup.dir());
        }
        let supervised = Supervisor {
            runner: self,
            request,
            leader: pgid,
            pidfd: pidfd.as_ref(),
            cgroup: cgroup.as_ref(),
            start,
        }
        .supervise(&mut streams);
        if supervised.is_err() {
            // Watching failed (a read or poll error): nothing of the run may outlive the call.
            let _ = kill_process_group(pgid, Signal::KILL);
            if let Some(pidfd) = &pidfd {
                platform::pidfd_signal(pidfd, Signal::KILL);
            }
        }
        registry::unregister(pgid);
        if let Some(cgroup) = cgroup {
            registry::unregister_cgroup(cgroup.dir());
            // Dropping it kills whatever is still in it and removes it.
            drop(cgroup);
        }
        let (cut, leftovers) = match supervised {
            Ok(done) => done,
            Err(err) => {
                let _ = reap(pgid);
                return Err(err.into());
            }
        };

        let exit = reap(pgid)?;
        let mut captures = streams.into_iter().map(|s| s.capture.finish());
        let stdout = captures.next().expect("one stream is always captured");
        Ok(RunOutput {
            exit,
            timed_out: cut == Some(Cut::Deadline),
            stopped: cut == Some(Cut::Stopped),
            duration: start.elapsed(),
            stdout,
            stderr: captures.next(),
            leftovers,
        })
    }
}

/// The words of `command` when the shell would only split it into words and start the
/// first one: plain words and single quotes (see [`split_words`]), and no `NAME=value`
/// first word, which the shell reads as a variable for the command.
fn plain_words(command: &str) -> Option<Vec<String>> {
    let words = split_words(command)?;
    match words.first() {
        Some(first) if !first.is_empty() && !first.contains('=') => Some(words),
        _ => None,
    }
}

fn check_cwd(cwd: &Path) -> Result<(), SpawnError> {
    match std::fs::metadata(cwd) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(_) => Err(SpawnError::CwdNotDirectory(cwd.to_path_buf())),
        Err(err) if err.kind() == ErrorKind::NotADirectory => {
            Err(SpawnError::CwdNotDirectory(cwd.to_path_buf()))
        }
        Err(_) => Err(SpawnError::CwdNotFound(cwd.to_path_buf())),
    }
}

/// Reaps the run's leader, which has exited by now (or is killed and about to).
fn reap(leader: Pid) -> std::io::Result<Exit> {
    loop {
        match waitid(WaitId::Pid(leader), WaitIdOptions::EXITED) {
            Ok(Some(status)) => {
                return Ok(match (status.exit_status(), status.terminating_signal()) {
                    (Some(code), _) => Exit::Code(code),
                    (None, Some(signal)) => Exit::Signal(signal),
                    (None, None) => Exit::Code(-1),
                });
            }
            Ok(None) => return Ok(Exit::Code(-1)),
            Err(Errno::INTR) => {}
            Err(err) => return Err(err.into()),
        }
    }
}

/// How often a run that may be stopped from another thread looks whether it was.
const STOP_CHECK_EVERY: Duration = Duration::from_millis(50);

/// The most a stream is read at a time: the buffer starts at 64 KiB and grows to this for
/// a command whose output fills it.
const MAX_READ: usize = 256 * 1024;

/// One pipe being drained into its capture.
struct Stream {
    reader: Option<PipeReader>,
    capture: StreamCapture,
}

impl Stream {
    fn new(reader: PipeReader, spec: &CaptureSpec) -> Result<Self, SpawnError> {
        // A larger pipe lets a chatty command write more per wake-up (Linux lets anyone
        // raise it to 1 MiB); when refused, the default 64 KiB works as well, only slower.
        platform::grow_pipe(&reader, 1 << 20);
        // Only our end becomes non-blocking: the child's end is a separate file description.
        let flags = fcntl_getfl(&reader).map_err(std::io::Error::from)?;
        fcntl_setfl(&reader, flags | OFlags::NONBLOCK).map_err(std::io::Error::from)?;
        let mut capture = StreamCapture::new(spec.head_bytes, spec.tail_bytes);
        if let Some(path) = &spec.spill_to {
            capture = capture
                .with_spill(path.clone(), spec.spill_max_bytes)
                .map_err(|source| SpawnError::SpillFile {
                    path: path.clone(),
                    source,
                })?;
        }
        Ok(Self {
            reader: Some(reader),
            capture,
        })
    }

    /// Moves what is available into the capture, a bounded number of chunks so the
    /// deadlines are still checked while a command floods its output.
    ///
    /// Read and written, not spliced: `splice(2)` from the pipe into the file holds the
    /// pipe's lock while the file system copies the bytes in, so the writer spins on it
    /// instead of filling the pipe; 1 GiB took 0.87 s that way and 0.56 s read and written
    /// through a 256 KiB buffer.
    fn drain(&mut self, buf: &mut Vec<u8>) -> std::io::Result<()> {
        for _ in 0..16 {
            let Some(reader) = &mut self.reader else {
                return Ok(());
            };
            let n = match reader.read(buf) {
                Ok(n) => n,
                Err(err) if err.kind() == ErrorKind::WouldBlock => return Ok(()),
                Err(err) if err.kind() == ErrorKind::Interrupted => continue,
                Err(err) => return Err(err),
            };
            if n == 0 {
                self.reader = None;
                return Ok(());
            }
            self.capture.push(&buf[..n]);
            // A command that fills the buffer gets a larger one, once.
            if n == buf.len() && buf.len() < MAX_READ {
                buf.resize(MAX_READ, 0);
            }
        }
        Ok(())
    }
}

/// The state of one run between spawn and reap.
struct Supervisor<'a> {
    runner: &'a LocalSpawner,
    request: &'a RunRequest,
    /// The program started, leader of its own process group.
    leader: Pid,
    /// The leader's pidfd (none on kernels without them).
    pidfd: Option<&'a OwnedFd>,
    /// The run's cgroup, where the machine allows one.
    cgroup: Option<&'a TaskCgroup>,
    start: Instant,
}

/// Why the supervisor signalled the group before the shell exited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cut {
    /// The deadline passed.
    Deadline,
    /// The caller asked for it ([`RunRequest::stop`]).
    Stopped,
}

/// The steps after the shell exited while its pipes were still open.
enum Cleanup {
    /// Waiting for the moment to kill the group (at once, or at the end of the grace).
    Pending,
    /// The group was killed at this instant.
    GroupKilled(Instant),
    /// Pipe holders outside the group were killed at this instant.
    Swept(Instant),
}

impl Supervisor<'_> {
    /// Drains the streams until the shell has exited and the pipes are closed (or given up),
    /// signalling the group on the way as the deadlines pass.
    #[expect(
        clippy::too_many_lines,
        reason = "over 80 lines when the limit was set; split it when it next changes"
    )]
    fn supervise(&self, streams: &mut [Stream]) -> std::io::Result<(Option<Cut>, Leftovers)> {
        // With a pidfd the shell's exit is one more event for poll; without one (old
        // kernels) we check for it with a short backoff.
        let pidfd = self.pidfd;
        let mut backoff = Duration::from_millis(1);
        let mut buf = vec![0u8; 64 * 1024];

        let deadline = self.start + self.request.timeout;
        let mut cut: Option<Cut> = None;
        let mut kill_at: Option<Instant> = None;
        let mut killed = false;
        let mut exited = false;
        let mut cleanup = Cleanup::Pending;
        let mut leftovers = Leftovers::default();

        // With a pidfd, the exit is checked only when poll says it happened (or woke for a
        // deadline): a flood of output then costs no `waitid` per chunk.
        let mut check_exit = true;
        loop {
            if !exited && check_exit && self.leader_exited() {
                exited = true;
            }
            let now = Instant::now();
            let open = streams.iter().any(|s| s.reader.is_some());
            let mut wake: Option<Instant> = None;

            if !exited {
                let stop = self.request.stop.as_ref();
                let asked = stop.is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed));
                if cut.is_none() && (now >= deadline || asked) {
                    // A deadline that has passed is what ended the run, even when a stop was
                    // asked in the same moment.
                    cut = Some(if now >= deadline {
                        Cut::Deadline
                    } else {
                        Cut::Stopped
                    });
                    // A stopped process cannot act on SIGTERM until it is continued.
                    self.stop_all(&[Signal::TERM, Signal::CONT]);
                    kill_at = Some(now + self.request.grace);
                }
                if let Some(at) = kill_at
                    && !killed
                    && now >= at
                {
                    self.stop_all(&[Signal::KILL]);
                    killed = true;
                }
                wake = earliest(wake, cut.is_none().then_some(deadline));
                // A stop asked from another thread is seen within this much.
                if stop.is_some() && cut.is_none() {
                    wake = earliest(wake, Some(now + STOP_CHECK_EVERY));
                }
                wake = earliest(wake, kill_at.filter(|_| !killed));
            } else {
                // The shell is gone but a zombie until we reap it, so its group id cannot be
                // reused and signalling the group is safe.
                if !open {
                    // Anything left in the group runs unwatched: stop it, and with a cgroup
                    // also what left the group and closed its pipes (a detached daemon).
                    self.signal(Signal::KILL);
                    if self.cgroup.is_some_and(TaskCgroup::kill) {
                        leftovers.cgroup_killed = true;
                    }
                    break;
                }
                match cleanup {
                    Cleanup::Pending => {
                        // After a timeout the rest of the group keeps its grace.
                        let at = if killed { now } else { kill_at.unwrap_or(now) };
                        if now >= at {
                            self.signal(Signal::KILL);
                            leftovers.killed_group = true;
                            // Pipe holders that left the group are still in the cgroup.
                            if self.cgroup.is_some_and(TaskCgroup::kill) {
                                leftovers.cgroup_killed = true;
                            }
                            cleanup = Cleanup::GroupKilled(now);
                        }
                        wake = earliest(wake, Some(at));
                    }
                    Cleanup::GroupKilled(at) => {
                        if now >= at + self.runner.leak_wait {
                            let fds: Vec<_> = streams
                                .iter()
                                .filter_map(|s| s.reader.as_ref().map(AsFd::as_fd))
                                .collect();
                            if !self.runner.portable {
                                leftovers.swept = sweep::kill_pipe_holders(&fds);
                            }
                            cleanup = Cleanup::Swept(now);
                        }
                        wake = earliest(wake, Some(at + self.runner.leak_wait));
                    }
                    Cleanup::Swept(at) => {
                        if now >= at + self.runner.abandon_wait {
                            // Something we cannot find or kill holds the pipes: give them up.
                            leftovers.abandoned_pipes = true;
                            break;
                        }
                        wake = earliest(wake, Some(at + self.runner.abandon_wait));
                    }
                }
            }
            if !exited && pidfd.is_none() {
                wake = earliest(wake, Some(now + backoff));
                backoff = (backoff * 2).min(Duration::from_millis(50));
            }

            let mut fds: Vec<PollFd<'_>> = Vec::with_capacity(3);
            let mut which: Vec<usize> = Vec::with_capacity(2);
            for (i, stream) in streams.iter().enumerate() {
                if let Some(reader) = &stream.reader {
                    fds.push(PollFd::new(reader, PollFlags::IN));
                    which.push(i);
                }
            }
            if !exited && let Some(pidfd) = &pidfd {
                fds.push(PollFd::new(pidfd, PollFlags::IN));
            }
            let timeout = wake.map(|at| {
                let left = at.saturating_duration_since(Instant::now());
                Timespec::try_from(left).unwrap_or(Timespec {
                    tv_sec: i64::MAX,
                    tv_nsec: 0,
                })
            });
            if fds.is_empty() {
                if let Some(at) = wake {
                    std::thread::sleep(at.saturating_duration_since(Instant::now()));
                }
                continue;
            }
            let woke = match poll(&mut fds, timeout.as_ref()) {
                Ok(n) => n,
                Err(rustix::io::Errno::INTR) => 0,
                Err(err) => return Err(err.into()),
            };
            let pidfd_ready =
                fds.len() > which.len() && fds.last().is_some_and(|fd| !fd.revents().is_empty());
            check_exit = pidfd.is_none() || pidfd_ready || woke == 0;
            let ready: Vec<usize> = fds
                .iter()
                .zip(&which)
                .filter(|(fd, _)| !fd.revents().is_empty())
                .map(|(_, &i)| i)
                .collect();
            drop(fds);
            for i in ready {
                streams[i].drain(&mut buf)?;
            }
        }
        Ok((cut, leftovers))
    }

    /// Whether the shell has exited, without reaping it.
    fn leader_exited(&self) -> bool {
        matches!(
            waitid(
                WaitId::Pid(self.leader),
                WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT,
            ),
            Ok(Some(_))
        )
    }

    fn signal(&self, signal: Signal) {
        // ESRCH (nobody left in the group) is the expected answer once the group is gone.
        let _ = kill_process_group(self.leader, signal);
    }

    /// Sends each of `signals` to everything of the run while its leader lives: the group,
    /// the leader through its pidfd or its pid (it may have moved to another group, even
    /// ours), and either everything in the run's cgroup or, without one, the leader's
    /// descendants as the process table shows them.
    fn stop_all(&self, signals: &[Signal]) {
        let descendants = match self.cgroup {
            Some(_) => Vec::new(),
            None => sweep::descendants(self.leader.as_raw_pid() as u32, self.runner.portable),
        };
        for &signal in signals {
            self.signal(signal);
            match self.pidfd {
                Some(pidfd) => platform::pidfd_signal(pidfd, signal),
                // Unreaped, the leader keeps its pid: no other process can have it.
                None => {
                    let _ = kill_process(self.leader, signal);
                }
            }
            match self.cgroup {
                Some(cgroup) if signal == Signal::KILL => {
                    cgroup.kill();
                }
                Some(cgroup) => cgroup.signal(signal),
                None => {
                    for &pid in &descendants {
                        let _ = kill_process(pid, signal);
                    }
                }
            }
        }
    }
}

fn earliest(a: Option<Instant>, b: Option<Instant>) -> Option<Instant> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, None) => a,
        (None, b) => b,
    }
}

#[cfg(test)]
mod tests {
    use super::plain_words;
    use crate::process::{LocalSpawner, RunRequest, Spawner, StartMode, cgroups_available};

    /// Where the kernel refuses `clone3` into a cgroup, the shell moves itself in before it
    /// runs the line, and a program that must start directly is moved after its start.
    #[test]
    fn where_a_child_cannot_start_inside_the_shell_moves_itself() {
        super::clone_into::refuse();
        let runner = LocalSpawner::default();
        let mut request = RunRequest::new(
            "cat /proc/self/cgroup",
            std::env::temp_dir(),
            std::time::Duration::from_secs(10),
        );
        let out = runner.run(&request).expect("runs");
        if !cgroups_available() {
            eprintln!("no cgroup v2 for this user: nothing to check");
            return;
        }
        let inside = |text: &str| {
            text.lines().any(|l| {
                l.starts_with("0::") && l.contains(&format!("/speccoder-{}-", std::process::id()))
            })
        };
        assert!(inside(&out.stdout.text()), "{}", out.stdout.text());
        // Started directly and moved: it runs, inside or not yet, and is contained.
        request.start = StartMode::DirectOnly;
        request.command = "sh -c 'sleep 0.2; cat /proc/self/cgroup'".into();
        let out = runner.run(&request).expect("runs");
        assert!(inside(&out.stdout.text()), "{}", out.stdout.text());
    }

    /// A run stopped on request says `stopped`, and one past its deadline `timed_out`, never
    /// both.
    #[test]
    fn a_stop_asked_for_is_told_from_a_deadline() {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::time::Duration;
        let runner = LocalSpawner::default();
        let stop = Arc::new(AtomicBool::new(false));
        let mut request =
            RunRequest::new("sleep 30", std::env::temp_dir(), Duration::from_secs(30));
        request.grace = Duration::from_millis(200);
        request.stop = Some(Arc::clone(&stop));
        let asker = {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(200));
                stop.store(true, Ordering::Relaxed);
            })
        };
        let out = runner.run(&request).expect("runs");
        asker.join().expect("asker");
        assert_eq!((out.stopped, out.timed_out), (true, false), "{out:?}");
        assert!(!out.success());

        request.stop = Some(Arc::new(AtomicBool::new(false)));
        request.timeout = Duration::from_millis(200);
        let out = runner.run(&request).expect("runs");
        assert_eq!((out.stopped, out.timed_out), (false, true), "{out:?}");
    }

    #[test]
    fn plain_words_only() {
        #[track_caller]
        fn case(command: &str, want: Option<&[&str]>) {
            let want = want.map(|w| w.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>());
            assert_eq!(plain_words(command), want, "{command:?}");
        }
        case("make noop", Some(&["make", "noop"]));
        case(
            "npm run 'test' -- --watch x",
            Some(&["npm", "run", "test", "--", "--watch", "x"]),
        );
        case("npm run 'it'\\''s'", Some(&["npm", "run", "it's"]));
        case(
            "cargo run --features 'a,b' ''",
            Some(&["cargo", "run", "--features", "a,b", ""]),
        );
        case("make FOO=1", Some(&["make", "FOO=1"]));
        case("FOO=1 make", None);
        case("echo $HOME", None);
        case("ls *.rs", None);
        case("ls ~/x", None);
        case("a && b", None);
        case("a; b", None);
        case("echo \"x\"", None);
        case("echo x # note", None);
        case("echo a\\ b", Some(&["echo", "a b"]));
        case("echo 'unterminated", None);
        case("", None);
        case("   ", None);
    }
}
