//! Scenario tests of `LocalSpawner` against the real `/bin/sh`.

use std::io::Read;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::support;

use speccoder_foundation::process::{
    CaptureSpec, Cgroups, Exit, LocalSpawner, OutputMode, RunOutput, RunRequest, SpawnError,
    Spawner,
};
use support::processes_with;

fn request(command: &str) -> RunRequest {
    RunRequest::new(command, std::env::temp_dir(), Duration::from_secs(30))
}

fn run(request: &RunRequest) -> RunOutput {
    LocalSpawner::default()
        .run(request)
        .expect("the command starts")
}

fn run_text(command: &str) -> (Exit, String) {
    let out = run(&request(command));
    (out.exit, out.stdout.text())
}

#[track_caller]
fn assert_no_process(marker: &str) {
    assert_eq!(processes_with(marker), Vec::<String>::new());
}

#[test]
fn exit_codes_and_signals() {
    assert_eq!(run_text("exit 0"), (Exit::Code(0), String::new()));
    assert_eq!(run_text("echo hi; exit 3"), (Exit::Code(3), "hi\n".into()));
    assert_eq!(run_text("exit 300").0, Exit::Code(44));
    assert_eq!(run_text("kill -SEGV $$").0, Exit::Signal(11));
    assert_eq!(
        run_text("no_such_command_xyz 2>/dev/null").0,
        Exit::Code(127)
    );
    let out = run(&request("kill -SEGV $$"));
    assert_eq!(out.shell_code(), 139);
    assert!(!out.timed_out);
}

#[test]
fn merged_mode_keeps_arrival_order() {
    assert_eq!(
        run_text("echo a; echo b >&2; echo c"),
        (Exit::Code(0), "a\nb\nc\n".into())
    );
}

#[test]
fn split_mode_keeps_streams_apart() {
    let mut req = request("echo out1; echo err1 >&2; echo out2; echo err2 >&2");
    req.mode = OutputMode::Split;
    let out = run(&req);
    assert_eq!(out.stdout.text(), "out1\nout2\n");
    assert_eq!(
        out.stderr.expect("split mode has stderr").text(),
        "err1\nerr2\n"
    );
}

#[test]
fn one_gib_keeps_head_and_tail_and_spills_every_byte() {
    let dir = tempfile::tempdir().expect("temp dir");
    let spill = dir.path().join("out.log");
    let mut req = request("yes abcdefg | head -c 1073741824");
    req.stdout = CaptureSpec {
        head_bytes: 1000,
        tail_bytes: 2000,
        spill_to: Some(spill.clone()),
        ..CaptureSpec::default()
    };
    let out = run(&req);
    assert_eq!(out.exit, Exit::Code(0));
    assert_eq!(out.stdout.total_bytes, 1_073_741_824);
    assert_eq!(out.stdout.head.len(), 1000);
    assert_eq!(out.stdout.tail.len(), 2000);
    assert_eq!(out.stdout.omitted_bytes(), 1_073_741_824 - 3000);
    assert!(out.stdout.head.starts_with(b"abcdefg\nabcdefg\n"));
    assert!(out.stdout.tail.ends_with(b"abcdefg\nabcdefg\n"));
    let spilled = out.stdout.spill.expect("spill requested");
    assert_eq!(spilled.bytes_written, 1_073_741_824);
    assert_eq!(spilled.incomplete, None);

    // The file holds exactly the stream: 2^27 lines of "abcdefg\n".
    let mut file = std::fs::File::open(&spill).expect("spill file");
    let mut buf = vec![0u8; 1 << 20];
    let mut total = 0u64;
    loop {
        let n = file.read(&mut buf).expect("read spill");
        if n == 0 {
            break;
        }
        // Reads of 1 MiB from a regular file come whole except the last; 1 MiB is a
        // multiple of the 8-byte line, so every read starts on a line.
        assert_eq!(n % 8, 0);
        assert!(buf[..n].chunks(8).all(|line| line == b"abcdefg\n"));
        total += n as u64;
    }
    assert_eq!(total, 1_073_741_824);
}

#[test]
fn spill_stops_at_its_cap_and_keeps_counting() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut req = request("head -c 10000 /dev/zero");
    req.stdout.spill_to = Some(dir.path().join("out"));
    req.stdout.spill_max_bytes = 4096;
    let out = run(&req);
    let spill = out.stdout.spill.expect("spill requested");
    assert_eq!(out.stdout.total_bytes, 10_000);
    assert_eq!(spill.bytes_written, 4096);
    assert_eq!(std::fs::metadata(&spill.path).expect("spill").len(), 4096);
    assert!(spill.incomplete.expect("cut short").contains("4096"));
}

#[test]
fn head_and_tail_are_right_around_the_spill_cap() {
    let full: String = (1..=5000).map(|i| format!("{i}\n")).collect();
    for cap in [0u64, 50, 150, 8192, 23_000, 1 << 30] {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut req = request("seq 1 5000");
        req.stdout = CaptureSpec {
            head_bytes: 100,
            tail_bytes: 120,
            spill_to: Some(dir.path().join("out")),
            spill_max_bytes: cap,
        };
        let out = run(&req);
        assert_eq!(out.stdout.total_bytes, full.len() as u64, "cap {cap}");
        assert_eq!(out.stdout.head, full.as_bytes()[..100], "cap {cap}");
        assert_eq!(
            out.stdout.tail,
            full.as_bytes()[full.len() - 120..],
            "cap {cap}"
        );
        let kept = std::fs::read(dir.path().join("out")).expect("spill");
        let want = (cap as usize).min(full.len());
        assert_eq!(kept, full.as_bytes()[..want], "cap {cap}");
    }
}

#[test]
fn timeout_with_sigterm_honoured() {
    let mut req = request("sleep 100.101");
    req.timeout = Duration::from_millis(300);
    let out = run(&req);
    assert!(out.timed_out);
    assert_eq!(out.exit, Exit::Signal(15));
    assert_eq!(out.shell_code(), 124);
    assert!(out.duration >= Duration::from_millis(300));
    assert!(out.duration < Duration::from_secs(2), "{:?}", out.duration);
    assert_no_process("100.101");
}

#[test]
fn sigterm_ignored_is_killed_after_the_grace() {
    let mut req = request("trap '' TERM; sleep 100.102 & sleep 100.102; echo never");
    req.timeout = Duration::from_millis(300);
    req.grace = Duration::from_millis(400);
    let out = run(&req);
    assert!(out.timed_out);
    assert_eq!(out.exit, Exit::Signal(9));
    assert!(
        out.duration >= Duration::from_millis(700),
        "{:?}",
        out.duration
    );
    assert!(out.duration < Duration::from_secs(3), "{:?}", out.duration);
    assert_eq!(out.stdout.text(), "");
    assert_no_process("100.102");
}

#[test]
fn background_child_does_not_keep_the_caller_waiting() {
    let out = run(&request("sleep 100.103 & echo done"));
    assert_eq!(out.exit, Exit::Code(0));
    assert_eq!(out.stdout.text(), "done\n");
    assert!(out.duration < Duration::from_secs(2), "{:?}", out.duration);
    assert!(out.leftovers.killed_group);
    assert_no_process("100.103");
}

#[test]
fn silent_leftover_in_the_group_is_stopped_too() {
    let out = run(&request("sleep 100.107 >/dev/null 2>&1 & echo done"));
    assert_eq!(out.stdout.text(), "done\n");
    assert_no_process("100.107");
}

#[test]
fn setsid_escapee_holding_the_pipe_is_bounded() {
    let started = Instant::now();
    let out = run(&request("setsid sleep 100.104 & sleep 0.3; echo done"));
    assert_eq!(out.exit, Exit::Code(0));
    assert_eq!(out.stdout.text(), "done\n");
    assert!(
        started.elapsed() < Duration::from_millis(1500),
        "{:?}",
        started.elapsed()
    );
    // Killed by the pipe sweep, or before it as part of the run's cgroup.
    assert!(
        out.leftovers.swept == 1 || out.leftovers.cgroup_killed,
        "{:?}",
        out.leftovers
    );
    assert_no_process("100.104");
}

#[test]
fn closed_stdio_does_not_end_the_wait_early() {
    let mut req = request("exec >&- 2>&-; sleep 100.105");
    req.timeout = Duration::from_millis(300);
    let out = run(&req);
    assert!(out.timed_out, "{out:?}");
    assert_eq!(out.exit, Exit::Signal(15), "{out:?}");
    assert_no_process("100.105");
}

#[test]
fn invalid_utf8_and_nul_survive() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut req = request(r"printf '\377\376abc\000def\n'");
    req.stdout.spill_to = Some(dir.path().join("out"));
    let out = run(&req);
    assert_eq!(out.stdout.total_bytes, 10);
    assert_eq!(out.stdout.text(), "\u{FFFD}\u{FFFD}abc\0def\n");
    let bytes = std::fs::read(dir.path().join("out")).expect("spill");
    assert_eq!(bytes, b"\xff\xfeabc\0def\n");
}

#[test]
fn working_directory_is_checked_first() {
    let runner = LocalSpawner::default();
    let missing = Path::new("/nonexistent/speccoder/dir");
    let err = runner
        .run(&RunRequest::new("true", missing, Duration::from_secs(5)))
        .expect_err("missing cwd");
    assert!(matches!(err, SpawnError::CwdNotFound(_)));
    assert_eq!(
        err.to_string(),
        "working directory does not exist: /nonexistent/speccoder/dir"
    );

    let file = tempfile::NamedTempFile::new().expect("temp file");
    let err = runner
        .run(&RunRequest::new(
            "true",
            file.path(),
            Duration::from_secs(5),
        ))
        .expect_err("cwd is a file");
    assert_eq!(
        err.to_string(),
        format!(
            "working directory is not a directory: {}",
            file.path().display()
        )
    );
}

#[test]
fn runs_in_the_cwd_with_the_env() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut req = RunRequest::new(
        "pwd; echo \"$SPECCODER_X\"",
        dir.path(),
        Duration::from_secs(5),
    );
    req.env.push(("SPECCODER_X".into(), "a b".into()));
    let out = run(&req);
    let want = format!(
        "{}\na b\n",
        dir.path().canonicalize().expect("canon").display()
    );
    assert_eq!(out.stdout.text(), want);
}

#[test]
fn a_command_longer_than_one_argument_still_runs() {
    let filler = "x".repeat(200_000);
    let out = run(&request(&format!(": {filler}; echo ok")));
    assert_eq!(
        (out.exit, out.stdout.text()),
        (Exit::Code(0), "ok\n".into())
    );
    let at_limit = format!(": {}; echo ok", "y".repeat(131_071 - 11));
    assert_eq!(at_limit.len(), 131_071);
    assert_eq!(run(&request(&at_limit)).stdout.text(), "ok\n");
}

#[test]
fn stdin_is_closed() {
    let out = run(&request("cat; read x; echo $?"));
    assert_eq!(out.exit, Exit::Code(0));
    assert_eq!(out.stdout.text(), "1\n");
    assert!(out.duration < Duration::from_secs(2));
}

#[test]
fn plain_commands_behave_as_through_the_shell() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("temp dir");
    let script = dir.path().join("no-shebang");
    std::fs::write(&script, "echo from the script \"$1\"\n").expect("script");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    std::fs::write(dir.path().join("data"), "not a program\n").expect("data");
    let run_in = |command: &str| {
        let out = run(&RunRequest::new(
            command,
            dir.path(),
            Duration::from_secs(10),
        ));
        (out.exit, out.stdout.text())
    };
    // A script without `#!` cannot be exec'd; the shell runs it, as it would have.
    assert_eq!(
        run_in("./no-shebang 'a b'"),
        (Exit::Code(0), "from the script a b\n".into())
    );
    let (exit, text) = run_in("./data");
    assert_eq!(exit, Exit::Code(126), "{text}");
    let (exit, text) = run_in("no_such_program_xyz now");
    assert_eq!(exit, Exit::Code(127));
    assert!(text.contains("not found"), "{text}");
    // A builtin with no program of its name runs in the shell.
    assert_eq!(run_in("exit 7").0, Exit::Code(7));
}

/// A leader that moves itself into another process group (here the caller's own, where
/// `killpg` of the run's group cannot reach it) is still stopped at the deadline, with the
/// child it started there, and the call returns within the deadline and the grace.
#[test]
fn a_leader_that_leaves_its_group_is_stopped_at_the_deadline() {
    support::require_tools(&["python3"]);
    let mut req = request(
        "x=1; exec python3 -c 'import os, time\n\
         os.setpgid(0, os.getpgid(os.getppid()))\n\
         os.fork()\n\
         time.sleep(40.401)'",
    );
    req.timeout = Duration::from_millis(500);
    req.grace = Duration::from_millis(500);
    // With the run's cgroup, without one (the pidfd and the descendants in /proc), and as
    // macOS runs it (the leader by its pid, the descendants from `ps`).
    for (cgroups, portable) in [
        (Cgroups::WhenAvailable, false),
        (Cgroups::Never, false),
        (Cgroups::WhenAvailable, true),
    ] {
        let mut runner = LocalSpawner::default();
        runner.cgroups = cgroups;
        runner.portable = portable;
        let started = Instant::now();
        let out = runner.run(&req).expect("starts");
        assert!(out.timed_out);
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{cgroups:?}, portable {portable}: {:?}",
            started.elapsed()
        );
        assert_no_process("40.401");
    }
}

/// The path macOS takes, run here: no cgroup, no pidfd (the exit is polled for), no sweep of
/// pipe holders, the process table from `ps`. What it must stop, it stops; a `setsid`
/// escapee that holds the pipe is given up on in bounded time and left running, as the
/// docs/reliability.md says.
#[test]
fn the_portable_path_stops_the_run_its_group_and_its_descendants() {
    let mut runner = LocalSpawner::default();
    runner.portable = true;
    let run = |command: &str, timeout_ms: u64| {
        let mut req = request(command);
        req.timeout = Duration::from_millis(timeout_ms);
        req.grace = Duration::from_millis(400);
        let started = Instant::now();
        let out = runner.run(&req).expect("starts");
        (out, started.elapsed())
    };
    let (out, took) = run("echo out; echo err >&2; exit 3", 30_000);
    assert_eq!(
        (out.exit, out.stdout.text()),
        (Exit::Code(3), "out\nerr\n".into())
    );
    assert!(!out.leftovers.cgroup_killed && out.leftovers.swept == 0);
    assert!(took < Duration::from_secs(2), "{took:?}");
    let (out, _) = run("sleep 100.601", 300);
    assert_eq!((out.timed_out, out.exit), (true, Exit::Signal(15)));
    assert_no_process("100.601");
    let (out, took) = run(
        "trap '' TERM; sleep 100.602 & sleep 100.602; echo never",
        300,
    );
    assert_eq!((out.timed_out, out.exit), (true, Exit::Signal(9)));
    assert!(took >= Duration::from_millis(700), "{took:?}");
    assert_no_process("100.602");
    let (out, took) = run("sleep 100.603 & echo done", 30_000);
    assert_eq!(out.stdout.text(), "done\n");
    assert!(
        out.leftovers.killed_group && took < Duration::from_secs(2),
        "{took:?}"
    );
    assert_no_process("100.603");
    // A child that left the group but not the tree is stopped at the deadline as a
    // descendant.
    let (out, _) = run("setsid sleep 100.604 >/dev/null 2>&1 & sleep 100.605", 300);
    assert!(out.timed_out);
    assert_no_process("100.604");
    let (out, took) = run("setsid sleep 3.606 & sleep 0.2; echo done", 30_000);
    assert_eq!(out.stdout.text(), "done\n");
    assert_eq!(out.leftovers.swept, 0);
    assert!(took < Duration::from_millis(1500), "{took:?}");
    let _ = std::process::Command::new("pkill")
        .args(["-f", "sleep 3.606"])
        .status();
}

/// With a cgroup per run, a daemon that left the session and closed every pipe is stopped
/// when the run ends; without one, docs/reliability.md says it is not contained.
#[test]
fn a_fully_detached_daemon_is_stopped_where_cgroups_allow() {
    // It sleeps longer than `assert_no_process` waits, and ends by itself where it is not
    // contained. The shell waits until the daemon has left its session (it writes `up`
    // after `setsid`): on a busy machine the shell could end first, and the daemon would be
    // killed with the shell's group before it detached, with no cgroup needed.
    let out = run(&request(
        "d=$(mktemp -d); setsid sh -c \"echo x > $d/up; exec sleep 5.402\" </dev/null >/dev/null 2>&1 & \
         while [ ! -s \"$d/up\" ]; do sleep 0.01; done; rm -rf \"$d\"; echo started",
    ));
    assert_eq!(out.stdout.text(), "started\n");
    if !speccoder_foundation::process::cgroups_available() {
        eprintln!("no cgroup v2 for this user: a detached daemon is not contained");
        return;
    }
    assert!(out.leftovers.cgroup_killed, "{:?}", out.leftovers);
    assert_no_process("5.402");
}

/// The run's cgroup as `/proc/self/cgroup` names it, from a run's output line `0::/…`.
fn own_run_cgroup(line: &str) -> bool {
    let name = line.rsplit('/').next().unwrap_or_default();
    name.starts_with(&format!("speccoder-{}-", std::process::id()))
}

#[test]
fn a_plain_command_starts_directly_inside_its_cgroup() {
    // `cat` reads its cgroup as the first thing it does, and the shell started as a plain
    // command names its parent: a start through a wrapper shell, or a move into the cgroup
    // after the start, each shows here.
    let out = run(&request(
        "/bin/sh -c 'cat /proc/self/cgroup; echo \"parent $PPID\"'",
    ));
    let text = out.stdout.text();
    let mut lines = text.lines();
    let cgroup = lines.find(|l| l.starts_with("0::")).unwrap_or_default();
    let parent = lines.next().unwrap_or_default();
    assert_eq!(parent, format!("parent {}", std::process::id()), "{text}");
    if !speccoder_foundation::process::cgroups_available() {
        eprintln!("no cgroup v2 for this user: nothing more to check");
        return;
    }
    assert!(own_run_cgroup(cgroup), "{text}");
}

#[test]
fn a_program_run_directly_is_in_its_cgroup_from_the_start() {
    let mut req = request("cat /proc/self/cgroup");
    req.start = speccoder_foundation::process::StartMode::DirectOnly;
    for _ in 0..20 {
        let out = run(&req);
        let text = out.stdout.text();
        if !speccoder_foundation::process::cgroups_available() {
            eprintln!("no cgroup v2 for this user: nothing to check");
            return;
        }
        let cgroup = text
            .lines()
            .find(|l| l.starts_with("0::"))
            .unwrap_or_default();
        assert!(own_run_cgroup(cgroup), "{text}");
    }
}

#[test]
fn a_data_limit_holds_from_the_first_instruction() {
    // Started directly inside a cgroup, the child sets it itself; elsewhere the shell's
    // `ulimit -d` does, before the program starts.
    for cgroups in [Cgroups::WhenAvailable, Cgroups::Never] {
        let mut req = request("grep 'Max data size' /proc/self/limits");
        req.data_limit_kib = Some(65_536);
        let mut runner = LocalSpawner::default();
        runner.cgroups = cgroups;
        let out = runner.run(&req).expect("runs");
        let text = out.stdout.text();
        let limits: Vec<&str> = text.split_whitespace().skip(3).take(2).collect();
        assert_eq!(limits, ["67108864", "67108864"], "{cgroups:?}: {text}");
    }
}

#[test]
fn a_spill_file_that_has_bytes_is_emptied_first() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("out");
    std::fs::write(&path, "older and longer content\n").expect("old file");
    let mut req = request("echo new");
    req.stdout.spill_to = Some(path.clone());
    run(&req);
    assert_eq!(std::fs::read_to_string(&path).expect("spill"), "new\n");
}
