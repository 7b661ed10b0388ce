//! `speccoder attempt` end to end: a real git repository made from fixtures/attempt/project,
//! the real binary, and the stand-in agent fixtures/agents/attempt.sh in one mode per case
//! (an honest fix, each offence the audit must catch, a retry, a block, a hang, a spy on
//! the withheld tests), plus the real `claude` and `codex` CLIs without credentials.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::Value;
use support::{copy_dir, fixtures_dir, git, path_var, processes_with, require_tools};

/// A git repository holding a copy of the fixture project, with the bundle beside it.
struct Repo {
    dir: tempfile::TempDir,
}

impl Repo {
    /// The fixture project committed on `main`, with the stand-in agent in `mode` and
    /// `extra` appended to its speccoder.toml.
    fn new(mode: &str, extra: &str) -> Self {
        let agent = fixtures_dir().join("agents/attempt.sh");
        let executor = format!(
            "[executor]\nkind = \"command\"\nargv = [\"sh\", \"{}\", \"{mode}\", \"{}\"]\ntimeout_secs = 60\n",
            agent.display(),
            marker()
        );
        Self::with_config(&format!("{executor}{extra}"))
    }

    fn with_config(config: &str) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().join("repo");
        copy_dir(&fixtures_dir().join("attempt/project"), &root);
        support::write_config(
            &root.join("speccoder.toml"),
            &support::with_agent_env(config),
        );
        std::fs::copy(
            fixtures_dir().join("attempt/bundle.json"),
            dir.path().join("bundle.json"),
        )
        .expect("bundle");
        git(&root, &["init", "--quiet", "--initial-branch=main"]);
        support::commit_all(&root, "the calculator");
        Self { dir }
    }

    fn root(&self) -> PathBuf {
        self.dir.path().join("repo")
    }

    /// Record `n` of task T7's journal.
    fn journal_record(&self, n: u64) -> Value {
        let path = self
            .root()
            .join(format!(".git/speccoder/attempts/T7/{n}.json"));
        serde_json::from_slice(&std::fs::read(path).expect("record")).expect("json")
    }

    fn bundle(&self) -> PathBuf {
        self.dir.path().join("bundle.json")
    }

    fn command(&self, args: &[&str], env: &[(&str, &std::ffi::OsStr)]) -> Command {
        self.command_in(&self.root(), args, env)
    }

    /// `speccoder -C DIR attempt --bundle …` with the tests' own cache, state and git
    /// configuration, for a project anywhere in (or outside) the repository.
    fn command_in(&self, dir: &Path, args: &[&str], env: &[(&str, &std::ffi::OsStr)]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_speccoder"));
        command
            .arg("-C")
            .arg(dir)
            .arg("attempt")
            .arg("--bundle")
            .arg(self.bundle())
            .args(args)
            .env("PATH", path_var())
            .env("SPECCODER_CACHE_DIR", support::test_cache_dir())
            .env("XDG_STATE_HOME", support::test_state_dir())
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("WHERE_FILE", self.dir.path().join("where"));
        support::use_user_config(&mut command, dir);
        for (key, value) in env {
            command.env(key, value);
        }
        command
    }

    /// `speccoder attempt --json`: the exit code and the story.
    fn attempt(
        &self,
        args: &[&str],
        env: &[(&str, &std::ffi::OsStr)],
    ) -> (Option<i32>, Value, String) {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        let out: Output = self.command(&all, env).output().expect("speccoder starts");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let story = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
            panic!(
                "not JSON: {}\n{stderr}",
                String::from_utf8_lossy(&out.stdout)
            )
        });
        (out.status.code(), story, stderr)
    }

    fn git(&self, args: &[&str]) -> String {
        git(&self.root(), args)
    }

    /// The user's side is as the test left it: `main` checked out at its commit, a clean
    /// status, one worktree, and no branch but `main` and `keep`.
    #[track_caller]
    fn assert_untouched(&self, main: &str, keep: &[&str]) {
        assert_eq!(self.git(&["rev-parse", "HEAD"]).trim(), main);
        assert_eq!(
            self.git(&["symbolic-ref", "HEAD"]).trim(),
            "refs/heads/main"
        );
        assert_eq!(self.git(&["status", "--porcelain", "--ignored"]), "");
        let worktrees = self.git(&["worktree", "list", "--porcelain"]);
        assert_eq!(worktrees.matches("worktree ").count(), 1, "{worktrees}");
        let mut branches: Vec<String> = self
            .git(&["for-each-ref", "--format=%(refname:short)", "refs/heads"])
            .lines()
            .map(str::to_owned)
            .collect();
        branches.sort();
        let mut want: Vec<String> = keep.iter().map(|b| (*b).to_owned()).collect();
        want.push("main".into());
        want.sort();
        assert_eq!(branches, want);
        if let Ok(where_) = std::fs::read_to_string(self.dir.path().join("where")) {
            let worktree = Path::new(where_.trim());
            assert!(!worktree.exists(), "{} is left behind", worktree.display());
            assert!(
                !worktree.parent().expect("folder").exists(),
                "the private folder is left behind"
            );
        }
    }

    fn journal(&self, n: u32) -> Value {
        let path = self
            .root()
            .join(format!(".git/speccoder/attempts/T7/{n}.json"));
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|err| panic!("{}: {err}", path.display()));
        serde_json::from_str(&text).expect("journal JSON")
    }
}

/// The `[attempt]` lines that let a stand-in agent write its probe files into `dir`: the
/// rest of the file system is read-only to it.
fn probes_writable(dir: &Path) -> String {
    format!("[attempt]\nwritable = [\"{}\"]\n", dir.display())
}

/// The folder a process works in (`/proc/<pid>/cwd`), for the processes of `marker`.
fn cwd_of(marker: &str) -> Option<PathBuf> {
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if String::from_utf8_lossy(&cmdline).contains(marker)
            && let Ok(cwd) = std::fs::read_link(entry.path().join("cwd"))
        {
            return Some(cwd);
        }
    }
    None
}

/// The attempt's private folder (`speccoder-attempt-…`) that `path` is in.
fn attempt_folder(path: &Path) -> PathBuf {
    path.ancestors()
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("speccoder-attempt-"))
        })
        .unwrap_or_else(|| panic!("{} is in no attempt folder", path.display()))
        .to_path_buf()
}

/// A marker unique to this test process, for finding its agents' processes.
fn marker() -> String {
    format!("77{}", std::process::id())
}

fn verdicts(story: &Value) -> Vec<String> {
    story["attempts"]
        .as_array()
        .expect("attempts")
        .iter()
        .map(|a| a["verdict"].as_str().expect("verdict").to_owned())
        .collect()
}

fn finding_kinds(attempt: &Value) -> Vec<String> {
    attempt["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| f["kind"].as_str().expect("kind").to_owned())
        .collect()
}

#[test]
fn honest_agent_passes_with_one_commit_and_a_ticked_box() {
    let repo = Repo::new("honest", "");
    let main = repo.git(&["rev-parse", "HEAD"]).trim().to_owned();
    let (code, story, stderr) = repo.attempt(&[], &[]);
    assert_eq!(code, Some(0), "{story}\n{stderr}");
    assert_eq!(story["verdict"], "passed");
    assert_eq!(verdicts(&story), ["passed"]);
    let attempt = &story["attempts"][0];
    assert_eq!(attempt["findings"], serde_json::json!([]));
    assert_eq!(attempt["warnings"], serde_json::json!([]));
    assert_eq!(attempt["checks"][0]["op"], "test");
    // The check's known answer held, and left the exit code as it was.
    assert_eq!(attempt["checks"][0]["exit_code"], 0);
    assert_eq!(attempt["checks"][0]["tests"]["canary"], "held");
    assert_eq!(attempt["checks"][0]["passed"], true);
    assert_eq!(story["branch"], "speccoder/T7");
    let commit = story["commit"].as_str().expect("commit");
    assert_eq!(repo.git(&["rev-parse", "speccoder/T7"]).trim(), commit);
    // One commit on top of the frozen base, which sits on main.
    let base = repo.git(&["rev-parse", &format!("{commit}^")]);
    assert_eq!(
        repo.git(&["rev-parse", &format!("{commit}^^")]).trim(),
        main
    );
    assert_eq!(
        repo.git(&["diff", "--name-only", &main, base.trim()]),
        "tests/test_add.py\n"
    );
    assert_eq!(
        repo.git(&["diff", "--name-only", base.trim(), commit]),
        "calc.py\ntasks.md\n"
    );
    let message = repo.git(&["log", "-1", "--format=%B", commit]);
    assert!(message.starts_with("T7: Add two numbers\n"), "{message}");
    assert!(
        message.contains("Implemented add in calc.py (honest)."),
        "{message}"
    );
    assert!(message.contains("Attempt: 1 of 3"), "{message}");
    let tasks = repo.git(&["show", &format!("{commit}:tasks.md")]);
    assert!(tasks.contains("- [x] T7 Add two numbers"), "{tasks}");
    assert!(tasks.contains("- [ ] T70 Add many numbers"), "{tasks}");
    assert!(
        repo.git(&["show", &format!("{commit}:calc.py")])
            .contains("return a + b")
    );
    assert_eq!(repo.journal(1)["verdict"], "passed");
    repo.assert_untouched(&main, &["speccoder/T7"]);
}

#[test]
fn the_prompt_names_the_commands_the_verdict_runs() {
    let probes = tempfile::tempdir().expect("temp dir");
    let repo = Repo::new("prompt", &probes_writable(probes.path()));
    let probe = probes.path().join("prompt");
    let (code, story, stderr) = repo.attempt(&[], &[("PROBE_FILE", probe.as_os_str())]);
    assert_eq!(code, Some(0), "{story}\n{stderr}");
    let prompt = std::fs::read_to_string(&probe).expect("the agent wrote its prompt");
    let section = prompt
        .split("# How your work is judged")
        .nth(1)
        .expect("the section");
    assert!(section.contains("\n- `make test`\n"), "{section}");
}

/// Makes the fixture's `make test` need `build/ready`, which only a setup command makes
/// (the folder is ignored), and commits it.
fn needs_setup(repo: &Repo) {
    let root = repo.root();
    std::fs::write(
        root.join("Makefile"),
        "test:\n\t@test -f build/ready || { echo 'ready-tool: command not found'; exit 127; }\n\tpython3 -m unittest discover -s tests -v\n",
    )
    .expect("Makefile");
    std::fs::write(root.join(".gitignore"), "__pycache__/\nbuild/\n").expect(".gitignore");
    repo.git(&["add", "--all"]);
    git(
        &root,
        &[
            "-c",
            "user.name=T",
            "-c",
            "user.email=t@e",
            "commit",
            "--quiet",
            "-m",
            "needs setup",
        ],
    );
}

#[test]
fn setup_products_reach_every_check_tree_and_a_missing_one_is_hinted() {
    // Without a setup the checks fail, and say where a setup goes.
    let repo = Repo::new("honest", "[attempt]\nmax_attempts = 1\n");
    needs_setup(&repo);
    let (code, story, _) = repo.attempt(&[], &[]);
    assert_eq!(code, Some(1), "{story}");
    let check = &story["attempts"][0]["checks"][0];
    assert!(
        check["hint"]
            .as_str()
            .is_some_and(|h| h.contains("[attempt] setup")),
        "{check}"
    );
    // With one, its product reaches the baseline and the checks, and no commit holds it.
    let repo = Repo::new(
        "honest",
        "[attempt]\nmax_attempts = 1\nsetup = [\"mkdir -p build && echo ok > build/ready\"]\n",
    );
    needs_setup(&repo);
    let (code, story, stderr) = repo.attempt(&[], &[]);
    assert_eq!(code, Some(0), "{story}\n{stderr}");
    // The baseline ran the tests (the product was there), and the new ones failed at the
    // base, as they must.
    let counts = &story["baseline"][0]["tests"]["counts"];
    assert_eq!(counts["errored"], 2, "{}", story["baseline"]);
    let commit = story["commit"].as_str().expect("commit");
    let files = repo.git(&["ls-tree", "-r", "--name-only", commit]);
    assert!(!files.contains("build/"), "{files}");
    let kept = repo.root().join(".git/speccoder/setup");
    assert_eq!(std::fs::read_dir(&kept).expect("kept").count(), 1);
    // A failing setup stops before the agent, naming the command.
    let repo = Repo::new(
        "honest",
        "[attempt]\nsetup = [\"echo broken >&2; exit 3\"]\n",
    );
    let out = repo.command(&[], &[]).output().expect("starts");
    assert_eq!(out.status.code(), Some(4));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("`[attempt] setup` `echo broken >&2; exit 3` failed"),
        "{stderr}"
    );
}

#[test]
fn each_offence_is_rejected_with_its_finding() {
    for (mode, kind, path) in [
        ("delete-test", "test_deleted", "tests/test_sub.py"),
        ("skip-test", "test_changed", "tests/test_sub.py"),
        ("remove-assertion", "test_changed", "tests/test_sub.py"),
        ("edit-spec", "protected_changed", "spec.md"),
        (
            "rewrite-snapshot",
            "snapshot_changed",
            "snapshots/report.snap",
        ),
        ("ignore-in-config", "test_config_changed", "setup.cfg"),
    ] {
        let repo = Repo::new(mode, "[attempt]\nmax_attempts = 1\n");
        let main = repo.git(&["rev-parse", "HEAD"]).trim().to_owned();
        let (code, story, stderr) = repo.attempt(&[], &[]);
        assert_eq!(code, Some(1), "{mode}: {story}\n{stderr}");
        assert_eq!(story["verdict"], "rejected", "{mode}");
        let attempt = &story["attempts"][0];
        assert_eq!(finding_kinds(attempt), [kind], "{mode}: {attempt}");
        assert_eq!(attempt["findings"][0]["path"], path, "{mode}");
        // The checks do not run on a rejected diff; the digest carries the finding.
        assert_eq!(attempt["checks"], serde_json::json!([]), "{mode}");
        assert_eq!(attempt["digest"]["findings"][0]["kind"], kind, "{mode}");
        assert_eq!(story["commit"], Value::Null);
        repo.assert_untouched(&main, &[]);
    }
}

#[test]
fn with_audited_test_edits_the_counters_judge_the_agents_versions() {
    for (mode, kinds) in [
        ("skip-test", &["test_skipped"][..]),
        ("remove-assertion", &["assertions_removed"][..]),
        ("remove-test", &["tests_removed", "assertions_removed"][..]),
        ("delete-test", &["test_deleted"][..]),
    ] {
        let repo = Repo::new(
            mode,
            "[attempt]\nmax_attempts = 1\ntest_edits = \"audit\"\n",
        );
        let (code, story, _) = repo.attempt(&[], &[]);
        assert_eq!(code, Some(1), "{mode}: {story}");
        assert_eq!(finding_kinds(&story["attempts"][0]), kinds, "{mode}");
    }
}

#[test]
fn a_gitignore_line_or_a_removed_git_folder_hides_nothing() {
    // Both used to hide a test from the audit. The candidate is staged by speccoder from
    // the files themselves, on top of the base's index: a tracked test stays tracked
    // whatever `.gitignore` says, and the agent's own `.git` steers nothing.
    for mode in ["ignore-test", "break-git"] {
        let repo = Repo::new(mode, "[attempt]\nmax_attempts = 1\n");
        let (code, story, stderr) = repo.attempt(&[], &[]);
        assert_eq!(code, Some(0), "{mode}: {story}\n{stderr}");
        let commit = story["commit"].as_str().expect("commit");
        let listed = repo.git(&["ls-tree", "-r", "--name-only", commit]);
        assert!(listed.contains("tests/test_sub.py"), "{mode}: {listed}");
    }
}

#[test]
fn removing_a_test_function_is_rejected() {
    let repo = Repo::new("remove-test", "[attempt]\nmax_attempts = 1\n");
    let (code, story, _) = repo.attempt(&[], &[]);
    assert_eq!(code, Some(1), "{story}");
    assert_eq!(finding_kinds(&story["attempts"][0]), ["test_changed"]);
    let detail = story["attempts"][0]["findings"][0]["detail"]
        .as_str()
        .expect("detail");
    assert!(
        detail.starts_with("2 test functions before, 1 now; 3 assertions before, 2 now"),
        "{detail}"
    );
}

#[test]
fn a_retry_reads_the_digest_and_passes() {
    let repo = Repo::new("retry", "");
    let main = repo.git(&["rev-parse", "HEAD"]).trim().to_owned();
    let (code, story, stderr) = repo.attempt(&[], &[]);
    assert_eq!(code, Some(0), "{story}\n{stderr}");
    assert_eq!(verdicts(&story), ["failed", "passed"]);
    let first = &story["attempts"][0];
    assert_eq!(first["digest"]["verdict"], "failed");
    let tail = first["digest"]["failed_checks"][0]["output_tail"]
        .as_str()
        .expect("output tail");
    assert!(tail.contains("AssertionError"), "{tail}");
    let commit = story["commit"].as_str().expect("commit");
    assert!(
        repo.git(&["log", "-1", "--format=%B", commit])
            .contains("Attempt: 2 of 3")
    );
    assert_eq!(repo.journal(1)["verdict"], "failed");
    assert_eq!(repo.journal(2)["verdict"], "passed");
    repo.assert_untouched(&main, &["speccoder/T7"]);
}

#[test]
fn a_blocked_agent_is_not_retried() {
    let repo = Repo::new("blocked", "");
    let main = repo.git(&["rev-parse", "HEAD"]).trim().to_owned();
    let (code, story, _) = repo.attempt(&[], &[]);
    assert_eq!(code, Some(3), "{story}");
    assert_eq!(verdicts(&story), ["blocked"]);
    assert_eq!(
        story["attempts"][0]["reason"],
        "the spec does not say what add does with floats"
    );
    repo.assert_untouched(&main, &[]);
}

#[test]
fn an_agent_that_cannot_start_is_not_retried() {
    let repo =
        Repo::with_config("[executor]\nkind = \"command\"\nargv = [\"/nonexistent/agent\"]\n");
    let main = repo.git(&["rev-parse", "HEAD"]).trim().to_owned();
    let (code, story, _) = repo.attempt(&[], &[]);
    assert_eq!(code, Some(1), "{story}");
    assert_eq!(verdicts(&story), ["failed"]);
    let reason = story["attempts"][0]["reason"].as_str().expect("reason");
    assert!(
        reason.starts_with("the agent could not be started: "),
        "{reason}"
    );
    assert!(reason.contains("/nonexistent/agent"), "{reason}");
    repo.assert_untouched(&main, &[]);
}

#[test]
fn a_hanging_agent_fails_at_its_deadline_and_leaves_nothing_running() {
    let agent = fixtures_dir().join("agents/attempt.sh");
    let marker = format!("{}91", std::process::id());
    let repo = Repo::with_config(&format!(
        "[executor]\nkind = \"command\"\nargv = [\"sh\", \"{}\", \"hang\", \"{marker}\"]\ntimeout_secs = 2\n\n[attempt]\nmax_attempts = 1\n",
        agent.display()
    ));
    let main = repo.git(&["rev-parse", "HEAD"]).trim().to_owned();
    let (code, story, _) = repo.attempt(&[], &[]);
    assert_eq!(code, Some(1), "{story}");
    assert_eq!(verdicts(&story), ["failed"]);
    assert_eq!(
        story["attempts"][0]["reason"],
        "the agent did not finish within 2 s"
    );
    assert_eq!(processes_with(&marker), Vec::<String>::new());
    repo.assert_untouched(&main, &[]);
}

#[test]
fn a_hard_coded_expected_value_is_a_gaming_warning() {
    let repo = Repo::new("hardcode", "");
    let (code, story, _) = repo.attempt(&[], &[]);
    assert_eq!(code, Some(0), "{story}");
    let warnings = story["attempts"][0]["warnings"]
        .as_array()
        .expect("warnings");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(warnings[0]["path"], "calc.py");
    assert_eq!(warnings[0]["line"], 6);
    let detail = warnings[0]["detail"].as_str().expect("detail");
    assert!(
        detail.contains("the literal 5") && detail.contains("tests/test_add.py:8"),
        "{detail}"
    );

    let strict = Repo::new(
        "hardcode",
        "[attempt]\nreject_gaming = true\nmax_attempts = 1\n",
    );
    let (code, story, _) = strict.attempt(&[], &[]);
    assert_eq!(code, Some(1), "{story}");
    assert_eq!(verdicts(&story), ["rejected"]);
    assert_eq!(finding_kinds(&story["attempts"][0]), ["gaming"]);
}

#[test]
fn code_that_reads_how_it_is_run_and_a_constant_function_are_gaming_warnings() {
    // Passes only because the checks run with CI set.
    let repo = Repo::new("sense-ci", "");
    let (code, story, _) = repo.attempt(&[], &[]);
    assert_eq!(code, Some(0), "{story}");
    let warnings = &story["attempts"][0]["warnings"];
    assert_eq!(warnings.as_array().map(Vec::len), Some(1), "{warnings}");
    assert_eq!(warnings[0]["path"], "calc.py");
    assert_eq!(warnings[0]["line"], 6);
    assert_eq!(
        warnings[0]["detail"],
        "reads how the code is being run (`\"CI\"`)"
    );

    let repo = Repo::new("constant", "[attempt]\nmax_attempts = 1\n");
    let (code, story, _) = repo.attempt(&[], &[]);
    assert_eq!(code, Some(1), "{story}");
    let details: Vec<&str> = story["attempts"][0]["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .filter_map(|w| w["detail"].as_str())
        .collect();
    assert!(
        details.contains(&"`add` returns the constant 5 while its tests expect 2 different values"),
        "{details:?}"
    );
}

#[test]
fn signals_stop_the_attempt_and_leave_the_repository_as_it_was() {
    for (signal, code, keep) in [
        ("INT", 130, false),
        ("TERM", 143, false),
        ("INT", 130, true),
    ] {
        let probes = tempfile::tempdir().expect("temp dir");
        let repo = Repo::new("sleep", &probes_writable(probes.path()));
        let main = repo.git(&["rev-parse", "HEAD"]).trim().to_owned();
        let probe = probes.path().join("probe");
        let args: &[&str] = if keep {
            &["--json", "--keep-worktree"]
        } else {
            &["--json"]
        };
        let child = repo
            .command(args, &[("PROBE_FILE", probe.as_os_str())])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("speccoder starts");
        let deadline = Instant::now() + Duration::from_secs(30);
        while !probe.exists() {
            assert!(Instant::now() < deadline, "the agent never started");
            std::thread::sleep(Duration::from_millis(20));
        }
        let worktree = PathBuf::from(std::fs::read_to_string(&probe).expect("probe").trim());
        assert!(worktree.exists());
        let sent = Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .expect("kill");
        assert!(sent.success());
        let out = child.wait_with_output().expect("exits");
        assert_eq!(
            out.status.code(),
            Some(code),
            "SIG{signal}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let story: Value = serde_json::from_slice(&out.stdout).expect("the story is printed");
        assert_eq!(story["verdict"], "interrupted");
        assert_eq!(repo.journal(1)["verdict"], "interrupted");
        assert_eq!(
            processes_with(&format!("3000{}", marker())),
            Vec::<String>::new()
        );
        std::fs::remove_file(&probe).expect("probe");
        if keep {
            // Kept for a person to look at: the agent's tree, a repository of its own.
            assert_eq!(story["worktree"], worktree.to_str().expect("utf-8"));
            assert!(worktree.join("calc.py").exists());
            git(&worktree, &["rev-parse", "--verify", "speccoder/T7"]);
            remove_private_folder(&worktree);
        } else {
            assert!(!worktree.exists(), "SIG{signal}: the tree is left");
            assert!(
                !attempt_folder(&worktree).exists(),
                "SIG{signal}: the folder is left"
            );
        }
        repo.assert_untouched(&main, &[]);
    }
}

#[test]
fn a_signal_during_the_checks_stops_them_and_cleans_up() {
    let repo = Repo::new("slow-check", "");
    let main = repo.git(&["rev-parse", "HEAD"]).trim().to_owned();
    let child = repo
        .command(&["--json"], &[])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("speccoder starts");
    let deadline = Instant::now() + Duration::from_secs(30);
    let sleeper = format!("4000{}", marker());
    let cwd = loop {
        if let Some(cwd) = cwd_of(&sleeper) {
            break cwd;
        }
        assert!(Instant::now() < deadline, "the check never started");
        std::thread::sleep(Duration::from_millis(20));
    };
    let folder = attempt_folder(&cwd);
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(sent.success());
    let out = child.wait_with_output().expect("exits");
    assert_eq!(out.status.code(), Some(130));
    let story: Value = serde_json::from_slice(&out.stdout).expect("the story is printed");
    assert_eq!(story["verdict"], "interrupted");
    assert_eq!(repo.journal(1)["verdict"], "interrupted");
    assert!(!folder.exists(), "the attempt's folder is left");
    assert_eq!(processes_with(&sleeper), Vec::<String>::new());
    repo.assert_untouched(&main, &[]);
}

/// Moves the repository's project one folder down, to `app/`, and commits the move.
fn move_into_app(repo: &Repo) {
    let root = repo.root();
    let app = repo.dir.path().join("app");
    std::fs::rename(&root, &app).expect("move");
    std::fs::create_dir(&root).expect("mkdir");
    std::fs::rename(app.join(".git"), root.join(".git")).expect("move .git");
    std::fs::rename(&app, root.join("app")).expect("move app");
    repo.git(&["add", "--all"]);
    git(
        &root,
        &[
            "-c",
            "user.name=T",
            "-c",
            "user.email=t@e",
            "commit",
            "--quiet",
            "-m",
            "app/",
        ],
    );
}

#[test]
fn a_project_in_a_subfolder_of_its_repository() {
    let repo = Repo::new("honest", "");
    // Move the project one folder down: the repository's top holds only `app/`.
    move_into_app(&repo);
    let main = repo.git(&["rev-parse", "HEAD"]).trim().to_owned();
    let out = repo
        .command_in(&repo.root().join("app"), &["--json"], &[])
        .output()
        .expect("starts");
    let story: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(out.status.code(), Some(0), "{story}");
    let commit = story["commit"].as_str().expect("commit");
    assert_eq!(
        repo.git(&["diff", "--name-only", &format!("{commit}^"), commit]),
        "app/calc.py\napp/tasks.md\n"
    );
    assert!(
        repo.git(&["show", &format!("{commit}^:app/tests/test_add.py")])
            .contains("add(40, 2)")
    );
    repo.assert_untouched(&main, &["speccoder/T7"]);

    // `spec.md` of the project is protected there too.
    let edit = Repo::new("edit-spec", "[attempt]\nmax_attempts = 1\n");
    move_into_app(&edit);
    let out = edit
        .command_in(&edit.root().join("app"), &["--json"], &[])
        .output()
        .expect("starts");
    let story: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(out.status.code(), Some(1), "{story}");
    assert_eq!(story["attempts"][0]["findings"][0]["path"], "app/spec.md");
}

#[test]
fn keep_worktree_keeps_the_agents_tree() {
    let repo = Repo::new("honest", "");
    let (code, story, _) = repo.attempt(&["--keep-worktree"], &[]);
    assert_eq!(code, Some(0), "{story}");
    let worktree = PathBuf::from(story["worktree"].as_str().expect("kept worktree"));
    assert!(
        std::fs::read_to_string(worktree.join("calc.py"))
            .expect("calc.py")
            .contains("return a + b")
    );
    // The agent's tree is a repository of its own; the commit is in the user's.
    assert_eq!(
        git(&worktree, &["rev-parse", "--show-toplevel"]).trim(),
        worktree.to_str().expect("utf-8")
    );
    repo.git(&["rev-parse", "--verify", "speccoder/T7"]);
    remove_private_folder(&worktree);
}

/// Removes the private folder that held a kept tree, after checking that it is private.
fn remove_private_folder(worktree: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let folder = attempt_folder(worktree);
    let mode = std::fs::metadata(&folder)
        .expect("folder")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o700, "{}", folder.display());
    std::fs::remove_dir_all(&folder).expect("removed");
}

#[test]
fn the_agent_cannot_read_the_withheld_tests() {
    let probes = tempfile::tempdir().expect("temp dir");
    let repo = Repo::new("spy", &probes_writable(probes.path()));
    // The withheld test under a name and with a line no other file on this machine has,
    // so that finding either anywhere means the agent reached it.
    let withheld = repo.dir.path().join("withheld");
    let name = format!("test_hidden_{}.py", marker());
    let secret = format!("# SECRET-{}", marker());
    std::fs::create_dir_all(withheld.join("tests")).expect("mkdir");
    let text =
        std::fs::read_to_string(fixtures_dir().join("attempt/withheld/tests/test_hidden.py"))
            .expect("fixture");
    std::fs::write(
        withheld.join("tests").join(&name),
        format!("{secret}\n{text}"),
    )
    .expect("write");
    let probe = probes.path().join("probe");
    let pid = std::process::id().to_string();
    let (code, story, stderr) = repo.attempt(
        &["--withheld", withheld.to_str().expect("utf-8")],
        &[
            ("PROBE_FILE", probe.as_os_str()),
            ("WITHHELD_DIR", withheld.as_os_str()),
            ("HIDDEN_NAME", name.as_ref()),
            ("SPY_PID", pid.as_ref()),
        ],
    );
    let seen = std::fs::read_to_string(&probe).expect("the spy reported");
    assert!(
        !seen.contains(&secret),
        "the agent read a withheld test:\n{seen}"
    );
    let found = seen
        .split("== find")
        .nth(1)
        .and_then(|s| s.split("== umount").next())
        .expect("find section");
    assert_eq!(found.trim(), "", "find / saw the withheld test:\n{seen}");
    assert!(seen.contains("== copy\n"), "{seen}");
    assert_eq!(code, Some(0), "{story}\n{stderr}\n{seen}");
    // The checks ran the withheld test, and the commit does not hold it.
    let output = story["attempts"][0]["checks"][0]["output_tail"]
        .as_str()
        .expect("output");
    assert!(output.contains("test_negative"), "{output}");
    let commit = story["commit"].as_str().expect("commit");
    let files = repo.git(&["ls-tree", "-r", "--name-only", commit]);
    assert!(!files.contains("test_hidden"), "{files}");
    assert!(withheld.join("tests").join(&name).exists());
}

#[test]
fn a_link_where_a_withheld_test_goes_is_rejected_and_nothing_leaves_the_worktree() {
    let repo = Repo::new("link-withheld", "[attempt]\nmax_attempts = 1\n");
    let withheld = repo.dir.path().join("withheld");
    std::fs::create_dir_all(withheld.join("hidden")).expect("mkdir");
    std::fs::write(withheld.join("hidden/test_h.py"), "# held out\n").expect("write");
    let stash = repo.dir.path().join("stash");
    std::fs::create_dir(&stash).expect("mkdir");
    let (code, story, stderr) = repo.attempt(
        &["--withheld", withheld.to_str().expect("utf-8")],
        &[("STASH_DIR", stash.as_os_str())],
    );
    assert_eq!(code, Some(1), "{story}\n{stderr}");
    assert_eq!(finding_kinds(&story["attempts"][0]), ["link_outside"]);
    assert_eq!(story["attempts"][0]["findings"][0]["path"], "hidden");
    assert_eq!(std::fs::read_dir(&stash).expect("stash").count(), 0);
}

#[test]
fn a_sandbox_that_cannot_be_made_stops_the_attempt_and_none_is_only_asked_for() {
    // An `unshare` that cannot make namespaces, found first on PATH.
    let fake = tempfile::tempdir().expect("temp dir");
    let unshare = fake.path().join("unshare");
    std::fs::write(
        &unshare,
        "#!/bin/sh\necho 'unshare: unshare failed: Operation not permitted' >&2\nexit 1\n",
    )
    .expect("fake unshare");
    std::fs::set_permissions(
        &unshare,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .expect("chmod");
    let mut path = std::ffi::OsString::from(fake.path());
    path.push(":");
    path.push(path_var());
    let none = std::ffi::OsStr::new("none");
    // Never a fallback: without SPECCODER_ISOLATION=none, exit 2 with the reason, and
    // nothing run, whatever the repository's configuration allows.
    for extra in ["", "[attempt]\nallow_unisolated_withheld = true\n"] {
        let repo = Repo::new("honest", extra);
        let main = repo.git(&["rev-parse", "HEAD"]).trim().to_owned();
        let out = repo
            .command(&[], &[("PATH", path.as_os_str())])
            .output()
            .expect("speccoder starts");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{extra}: {stderr}");
        assert!(
            stderr.contains("sandbox cannot be made here")
                && stderr.contains("Operation not permitted")
                && stderr.contains("SPECCODER_ISOLATION=none"),
            "{stderr}"
        );
        assert!(!repo.dir.path().join("where").exists(), "the agent ran");
        repo.assert_untouched(&main, &[]);
    }
    // Asked for none: withheld tests are refused unless the configuration allows them.
    for (extra, want) in [
        ("", Some(4)),
        ("[attempt]\nallow_unisolated_withheld = true\n", Some(0)),
    ] {
        let repo = Repo::new("honest", extra);
        let main = repo.git(&["rev-parse", "HEAD"]).trim().to_owned();
        let withheld = repo.dir.path().join("withheld");
        copy_dir(&fixtures_dir().join("attempt/withheld"), &withheld);
        let out = repo
            .command(
                &["--withheld", withheld.to_str().expect("utf-8")],
                &[("PATH", path.as_os_str()), ("SPECCODER_ISOLATION", none)],
            )
            .output()
            .expect("speccoder starts");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), want, "{extra}: {stderr}");
        if want == Some(4) {
            assert!(stderr.contains("allow_unisolated_withheld"), "{stderr}");
            repo.assert_untouched(&main, &[]);
        } else {
            assert!(stderr.contains("NOT hidden"), "{stderr}");
        }
    }
}

/// `command`, run in a mount namespace of the test's own where a tmpfs is mounted at `at`
/// first (as an AppImage's `/tmp/.mount_*`, sshfs or a tmpfs would be).
fn with_a_mount_at(command: &Command, at: &Path) -> Command {
    let mut wrapped = Command::new("unshare");
    wrapped
        .args(["--mount", "--propagation", "private", "--", "sh", "-c"])
        .arg("mount -t tmpfs speccoder-test-mount \"$1\" && shift && exec \"$@\"")
        .arg("sh")
        .arg(at)
        .arg(command.get_program())
        .args(command.get_args());
    for (key, value) in command.get_envs() {
        match value {
            Some(value) => wrapped.env(key, value),
            None => wrapped.env_remove(key),
        };
    }
    wrapped
}

#[test]
fn a_mount_under_tmp_keeps_the_sandbox_whole() {
    if !rustix::process::geteuid().is_root() {
        eprintln!("skipped: mounting a tmpfs in a mount namespace of the test's own needs root");
        return;
    }
    // The agent's program is under /tmp, as a tool unpacked there would be.
    let programs = tempfile::tempdir().expect("temp dir");
    let agent = programs.path().join("agent.sh");
    std::fs::copy(fixtures_dir().join("agents/attempt.sh"), &agent).expect("agent");
    for tmpdir_there in [false, true] {
        let repo = Repo::with_config(&format!(
            "[executor]\nkind = \"command\"\nargv = [\"sh\", \"{}\", \"honest\"]\ntimeout_secs = 60\n",
            agent.display()
        ));
        let main = repo.git(&["rev-parse", "HEAD"]).trim().to_owned();
        let mount = tempfile::tempdir().expect("mount point under /tmp");
        let mut command = repo.command(&["--json"], &[]);
        if tmpdir_there {
            command.env("TMPDIR", mount.path());
        }
        let out = with_a_mount_at(&command, mount.path())
            .output()
            .expect("starts");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let story: Value =
            serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("not JSON: {stderr}"));
        assert_eq!(
            out.status.code(),
            Some(0),
            "TMPDIR there {tmpdir_there}: {story}\n{stderr}"
        );
        assert_eq!(story["verdict"], "passed", "{story}");
        assert_eq!(story["isolation"], "namespaces", "{story}");
        assert!(
            !story["notes"].to_string().contains("without a sandbox"),
            "{story}"
        );
        // The agent wrote into its tree, never the checkout.
        repo.git(&["branch", "-D", "speccoder/T7"]);
        repo.assert_untouched(&main, &[]);
    }
}

#[test]
fn could_not_start_exits_2_or_4_and_changes_nothing() {
    let repo = Repo::new("honest", "");
    let main = repo.git(&["rev-parse", "HEAD"]).trim().to_owned();
    repo.git(&["branch", "speccoder/T7"]);
    let out = repo.command(&[], &[]).output().expect("starts");
    assert_eq!(out.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&out.stderr).contains("exists already"));
    repo.git(&["branch", "-D", "speccoder/T7"]);

    let no_repo = tempfile::tempdir().expect("temp dir");
    std::fs::copy(
        repo.root().join("speccoder.toml"),
        no_repo.path().join("speccoder.toml"),
    )
    .expect("config");
    let out = repo
        .command_in(
            no_repo.path(),
            &[],
            &[(
                "GIT_CEILING_DIRECTORIES",
                no_repo.path().parent().expect("parent").as_os_str(),
            )],
        )
        .output()
        .expect("starts");
    assert_eq!(out.status.code(), Some(4));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not inside a git repository"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let native = Repo::with_config("[executor]\nkind = \"native\"\n");
    let out = native.command(&[], &[]).output().expect("starts");
    assert_eq!(out.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no external executor"));

    let bad_check = Repo::new("honest", "[attempt]\nchecks = [\"tset\"]\n");
    let out = bad_check.command(&[], &[]).output().expect("starts");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("did you mean `test`?"));
    bad_check.assert_untouched(bad_check.git(&["rev-parse", "HEAD"]).trim(), &[]);
    repo.assert_untouched(&main, &[]);
}

#[test]
fn uncommitted_changes_are_left_out_and_said() {
    let repo = Repo::new("honest", "");
    std::fs::write(repo.root().join("scratch.txt"), "mine\n").expect("write");
    // A staged change too: the index must be exactly as it was.
    let calc = repo.root().join("calc.py");
    let staged = format!("{}# mine\n", std::fs::read_to_string(&calc).expect("calc"));
    std::fs::write(&calc, &staged).expect("write");
    repo.git(&["add", "calc.py"]);
    let index = std::fs::read(repo.root().join(".git/index")).expect("index");
    let (code, story, stderr) = repo.attempt(&[], &[]);
    assert_eq!(code, Some(0), "{story}");
    assert!(stderr.contains("uncommitted changes"), "{stderr}");
    let commit = story["commit"].as_str().expect("commit");
    assert!(
        !repo
            .git(&["ls-tree", "-r", "--name-only", commit])
            .contains("scratch.txt")
    );
    assert_eq!(
        std::fs::read_to_string(repo.root().join("scratch.txt")).expect("kept"),
        "mine\n"
    );
    assert_eq!(
        std::fs::read(repo.root().join(".git/index")).expect("index"),
        index
    );
    assert_eq!(std::fs::read_to_string(&calc).expect("calc"), staged);
    assert_eq!(repo.git(&["diff", "--cached", "--name-only"]), "calc.py\n");
}

#[test]
fn human_report_has_one_line_per_attempt() {
    let repo = Repo::new("retry", "");
    let out = repo.command(&[], &[]).output().expect("starts");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let commit = repo.git(&["rev-parse", "speccoder/T7"]);
    support::snapshots("attempt").bind(|| {
        insta::assert_snapshot!("human_report", text.replace(commit.trim(), "[COMMIT]"));
    });
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with(
            "attempt 1 of 3: failed: check `test`: `test_add.AddTest.test_large` failed"
        ),
        "{text}"
    );
    assert_eq!(
        lines[1], "attempt 2 of 3: passed: every check passed",
        "{text}"
    );
    assert_eq!(lines[2], "T7: passed");
    assert!(
        lines[3].starts_with("committed ") && lines[3].ends_with(" on speccoder/T7"),
        "{text}"
    );
}

/// An environment with no credentials: HOME is an empty folder.
fn no_credentials(home: &Path) -> Vec<(&'static str, &std::ffi::OsStr)> {
    vec![
        ("HOME", home.as_os_str()),
        ("XDG_CONFIG_HOME", home.as_os_str()),
        ("CODEX_HOME", home.as_os_str()),
    ]
}

#[test]
fn real_claude_without_credentials_fails_with_its_own_reason() {
    require_tools(&["claude"]);
    let repo = Repo::with_config(
        "[executor]\nkind = \"claude\"\ntimeout_secs = 60\n\n[attempt]\nmax_attempts = 1\n",
    );
    let main = repo.git(&["rev-parse", "HEAD"]).trim().to_owned();
    let home = tempfile::tempdir().expect("home");
    let (code, story, stderr) = repo.attempt(&[], &no_credentials(home.path()));
    assert_eq!(code, Some(1), "{story}\n{stderr}");
    assert_eq!(verdicts(&story), ["failed"]);
    let reason = story["attempts"][0]["reason"].as_str().expect("reason");
    assert!(reason.contains("Not logged in"), "{reason}");
    repo.assert_untouched(&main, &[]);

    // The same inside the namespaces that hide withheld tests: Claude starts there too,
    // with its settings file and MCP configuration intact.
    let withheld = repo.dir.path().join("withheld");
    copy_dir(&fixtures_dir().join("attempt/withheld"), &withheld);
    let (code, story, stderr) = repo.attempt(
        &["--withheld", withheld.to_str().expect("utf-8")],
        &no_credentials(home.path()),
    );
    assert_eq!(code, Some(1), "{story}\n{stderr}");
    let reason = story["attempts"][0]["reason"].as_str().expect("reason");
    assert!(reason.contains("Not logged in"), "{reason}");
    repo.assert_untouched(&main, &[]);
}

#[test]
fn real_codex_without_network_fails_at_its_deadline() {
    require_tools(&["codex"]);
    let repo = Repo::with_config(
        "[executor]\nkind = \"codex\"\ntimeout_secs = 5\n\n[attempt]\nmax_attempts = 1\n",
    );
    let main = repo.git(&["rev-parse", "HEAD"]).trim().to_owned();
    let home = tempfile::tempdir().expect("home");
    // The worktree goes under a folder of this test's own, which Codex's command line
    // names (`-C`), so no other test's Codex is mistaken for this one.
    let tmp = repo.dir.path().join("tmp");
    std::fs::create_dir(&tmp).expect("tmp");
    let mut env = no_credentials(home.path());
    env.push(("TMPDIR", tmp.as_os_str()));
    let (code, story, stderr) = repo.attempt(&[], &env);
    assert_eq!(code, Some(1), "{story}\n{stderr}");
    assert_eq!(verdicts(&story), ["failed"]);
    assert_eq!(
        story["attempts"][0]["reason"],
        "the agent did not finish within 5 s"
    );
    assert_eq!(
        processes_with(tmp.to_str().expect("utf-8")),
        Vec::<String>::new()
    );
    let left: Vec<_> = std::fs::read_dir(&tmp)
        .expect("tmp")
        .flatten()
        .map(|e| e.path())
        .collect();
    assert!(left.is_empty(), "left in TMPDIR: {left:?}");
    repo.assert_untouched(&main, &[]);
}

/// The checks share Python's bytecode across attempts (`.git/speccoder/pycache`): the
/// base's checks write the standard library's there, the candidate's cannot write it, and
/// no tree's own bytecode goes there, so each tree's files run from their source.
#[test]
fn the_checks_share_python_bytecode_but_never_a_trees_own() {
    let repo = Repo::new("poison-pycache", "");
    // Set or not, Python writes the shared bytecode: it is speccoder's folder, not yours.
    let (code, story, stderr) = repo.attempt(
        &[],
        &[("PYTHONDONTWRITEBYTECODE", std::ffi::OsStr::new("1"))],
    );
    if story["isolation"] != "namespaces" {
        eprintln!("no namespaces here: every check gets an empty bytecode folder");
        return;
    }
    assert_eq!(code, Some(0), "{story}\n{stderr}");
    assert!(
        !story["attempts"][0]["checks"][0]["command"].is_null(),
        "{story}"
    );
    let shared = repo.root().join(".git/speccoder/pycache");
    let mut files = Vec::new();
    let mut stack = vec![shared.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("folder").flatten() {
            if entry.file_type().expect("type").is_dir() {
                stack.push(entry.path());
            } else {
                files.push(entry.path().display().to_string());
            }
        }
    }
    assert!(
        files
            .iter()
            .any(|f| f.contains("/unittest/") && f.ends_with(".pyc")),
        "{files:?}"
    );
    assert!(
        !files
            .iter()
            .any(|f| f.contains("calc.") || f.contains("test_")),
        "a tree's own bytecode is shared: {files:?}"
    );
    assert!(
        !shared.join("poisoned").exists(),
        "the candidate wrote the shared bytecode"
    );
    // What the run blocked for its own trees went with it.
    assert!(
        !files.iter().any(|f| f.contains("speccoder-attempt-")),
        "{files:?}"
    );
}

/// Where no namespace can be made (macOS; here `SPECCODER_ISOLATION=none` takes that path on
/// purpose), the verdict still holds: an honest change passes, a wrong one and an empty one
/// fail, the story and the journal say `none`, and withheld tests are refused unless the
/// user allows them unhidden.
#[test]
fn without_namespaces_the_verdict_still_holds_and_says_so() {
    let none = [("SPECCODER_ISOLATION", std::ffi::OsStr::new("none"))];
    for (mode, passes) in [("honest", true), ("subtract", false), ("nothing", false)] {
        let repo = Repo::new(mode, "[attempt]\nmax_attempts = 1\n");
        let (code, story, stderr) = repo.attempt(&[], &none);
        assert_eq!(story["isolation"], "none", "{mode}: {story}");
        assert!(
            story["notes"].to_string().contains("without a sandbox"),
            "{mode}: {story}"
        );
        let record = repo.journal_record(1);
        assert_eq!(record["isolation"], "none", "{mode}: {record}");
        if passes {
            assert_eq!(
                (code, &story["verdict"]),
                (Some(0), &serde_json::json!("passed")),
                "{stderr}"
            );
        } else {
            assert_eq!(code, Some(1), "{mode}: {story}\n{stderr}");
            assert_ne!(story["verdict"], "passed", "{mode}: {story}");
        }
    }
    let repo = Repo::new("honest", "");
    let withheld = repo.dir.path().join("withheld");
    std::fs::create_dir_all(withheld.join("tests")).expect("mkdir");
    let out = repo
        .command(
            &["--json", "--withheld", withheld.to_str().expect("utf-8")],
            &none,
        )
        .output()
        .expect("speccoder starts");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert!(stderr.contains("allow_unisolated_withheld"), "{stderr}");
}

#[test]
fn a_run_killed_once_its_pass_is_committed_is_recorded_as_that_pass_by_the_next_run() {
    let repo = Repo::new("honest", "");
    let (code, story, stderr) = repo.attempt(&[], &[]);
    assert_eq!(code, Some(0), "{story}\n{stderr}");
    let commit = story["commit"].as_str().expect("commit").to_owned();
    // As a run killed with SIGKILL just after it set the branch leaves it: its mark, with
    // the commit it was making, a dead process and its private folder.
    let journal = repo.root().join(".git/speccoder/attempts/T7");
    // Each record says how the agent and the checks were isolated, as the story does.
    let first = repo.journal_record(1);
    assert!(
        ["namespaces", "none"].contains(&story["isolation"].as_str().unwrap_or_default()),
        "{story}"
    );
    assert_eq!(first["isolation"], story["isolation"], "{first}");
    let folder = tempfile::Builder::new()
        .prefix("speccoder-attempt-")
        .tempdir()
        .expect("folder")
        .keep();
    std::fs::write(
        journal.join("running.json"),
        serde_json::json!({"pid": 999_999_999u64, "started": 1, "folder": folder,
                           "branch": "speccoder/T7", "commit": commit})
        .to_string(),
    )
    .expect("mark");
    let records = || std::fs::read_dir(&journal).expect("journal").count();
    let before = records();
    // The next run: refused, since the branch is there, and saying the pass was recorded.
    let out = repo
        .command(&["--json"], &[])
        .output()
        .expect("speccoder starts");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert!(
        stderr.contains("exists already") && stderr.contains("recorded now as the pass it was"),
        "{stderr}"
    );
    assert!(!folder.exists(), "the killed run's folder is left");
    assert!(!journal.join("running.json").exists());
    // The mark went and a record came: the pass, with its commit.
    assert_eq!(records(), before);
    let last = std::fs::read_dir(&journal)
        .expect("journal")
        .flatten()
        .filter_map(|e| {
            e.file_name()
                .to_str()?
                .strip_suffix(".json")?
                .parse::<u64>()
                .ok()
        })
        .max()
        .expect("records");
    let record = repo.journal_record(last);
    assert_eq!(record["verdict"], "passed", "{record}");
    assert_eq!(record["commit"], serde_json::json!(commit));
}

#[test]
fn a_branch_that_cannot_be_made_is_found_before_the_agent() {
    for other in ["speccoder", "speccoder/T7/old"] {
        let repo = Repo::new("honest", "");
        let main = repo.git(&["rev-parse", "HEAD"]).trim().to_owned();
        repo.git(&["branch", other]);
        let out = repo.command(&[], &[]).output().expect("starts");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(4), "{other}: {stderr}");
        assert!(
            stderr.contains("`speccoder/T7` cannot be made")
                && stderr.contains(&format!("the branch `{other}` exists")),
            "{stderr}"
        );
        // The agent never ran, and the journal holds no record.
        assert!(!repo.dir.path().join("where").exists(), "the agent ran");
        assert!(
            !repo
                .root()
                .join(".git/speccoder/attempts/T7/1.json")
                .exists()
        );
        repo.assert_untouched(&main, &[other]);
    }
}

#[test]
fn a_pass_that_cannot_be_committed_is_journalled_as_the_failure_it_is() {
    // An honest agent that, given the user's `.git` to write, makes the branch `speccoder`
    // there while it works: the pass cannot become `speccoder/T7`.
    let scripts = tempfile::tempdir().expect("temp dir");
    let agent = scripts.path().join("agent.sh");
    std::fs::write(
        &agent,
        "cat >/dev/null\nsed -i 's/    raise NotImplementedError(\"T7 adds this\")/    return a + b/' calc.py\ngit -C \"$USER_REPO\" branch speccoder\n",
    )
    .expect("agent");
    let repo = Repo::with_config(&format!(
        "[executor]\nkind = \"command\"\nargv = [\"sh\", \"{}\"]\ntimeout_secs = 60\n",
        agent.display()
    ));
    // In your own file: a repository cannot make anything writable.
    let own = support::user_config_file(&repo.root());
    let text = std::fs::read_to_string(&own).expect("your own file");
    let git_dir = repo.root().join(".git");
    std::fs::write(
        &own,
        text.replacen(
            "[attempt]\n",
            &format!("[attempt]\nwritable = [\"{}\"]\n", git_dir.display()),
            1,
        ),
    )
    .expect("your own file");
    let (code, story, stderr) = repo.attempt(&[], &[("USER_REPO", repo.root().as_os_str())]);
    assert_eq!(code, Some(1), "{story}\n{stderr}");
    assert_eq!(story["verdict"], "failed", "{story}");
    assert_eq!(story["commit"], Value::Null);
    let record = repo.journal(1);
    assert_eq!(record["verdict"], "failed", "{record}");
    assert!(
        record["reason"]
            .as_str()
            .is_some_and(|r| r.contains("could not be committed")),
        "{record}"
    );
    assert!(
        !repo
            .root()
            .join(".git/speccoder/attempts/T7/2.json")
            .exists()
    );
    assert_eq!(
        repo.git(&[
            "for-each-ref",
            "--format=%(refname:short)",
            "refs/heads/speccoder/"
        ]),
        ""
    );
}

/// A home folder with an ssh key and the usual credential files, and the key's path.
fn home_with_credentials(dir: &Path) -> (PathBuf, PathBuf) {
    let home = dir.join("home");
    for folder in [".ssh", ".aws", ".config/gh"] {
        std::fs::create_dir_all(home.join(folder)).expect("mkdir");
    }
    let key = home.join(".ssh/id_ed25519");
    let made = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-f"])
        .arg(&key)
        .output()
        .expect("ssh-keygen");
    assert!(made.status.success(), "{made:?}");
    std::fs::write(
        home.join(".netrc"),
        "machine example.org login u password p\n",
    )
    .expect("netrc");
    std::fs::write(
        home.join(".aws/credentials"),
        "[default]\naws_secret_access_key = x\n",
    )
    .expect("aws");
    std::fs::write(
        home.join(".config/gh/hosts.yml"),
        "github.com:\n  oauth_token: x\n",
    )
    .expect("gh");
    (home, key)
}

#[test]
fn the_users_sockets_and_keys_stay_out_of_the_agents_and_the_checks_sandbox() {
    on_a_desktop("", "REACHED", "[]");
}

#[test]
fn reveal_and_network_let_through_what_they_name() {
    on_a_desktop(
        "reveal = [\"/run/user/0\"]\nnetwork = true\n",
        "REACHED ssh-agent\nREACHED ssh-add",
        // Abstract sockets stay closed by Landlock's scope, network or not.
        "[\"ssh-agent\", \"machine-loopback\"]",
    );
}

/// The same keys in your own file, in the table of this checkout only.
#[test]
fn reveal_and_network_of_your_file_for_this_checkout_let_through_what_they_name() {
    on_a_desktop(
        "reveal = [\"/run/user/0\"]\nnetwork = true\n[repo]\n",
        "REACHED ssh-agent\nREACHED ssh-add",
        "[\"ssh-agent\", \"machine-loopback\"]",
    );
}

/// A repository's own speccoder.toml asking for what only your file may hold: the attempt
/// stops before anything runs (exit 2), naming the file, line and key, and where the line
/// belongs if you trust the repository with it.
#[test]
fn a_repository_that_asks_to_loosen_the_sandbox_is_refused_before_anything_runs() {
    for (line, key) in [
        ("reveal = [\"/run/user/0\"]", "reveal"),
        ("network = true", "network"),
        ("writable = [\"~/\"]", "writable"),
        ("agent_env = [\"GITHUB_TOKEN\"]", "agent_env"),
        ("env = [\"AWS_SECRET_ACCESS_KEY\"]", "env"),
        (
            "allow_unisolated_withheld = true",
            "allow_unisolated_withheld",
        ),
    ] {
        let repo = Repo::new("honest", "");
        let config = repo.root().join("speccoder.toml");
        let text = std::fs::read_to_string(&config).expect("config");
        // Written as a hostile repository would, past the tests' own split.
        let (before, after) = text.split_once("[attempt]\n").expect("an [attempt] table");
        std::fs::write(&config, format!("{before}[attempt]\n{line}\n{after}")).expect("config");
        support::commit_all(&repo.root(), "the repository asks for more");
        let main = repo.git(&["rev-parse", "HEAD"]).trim().to_owned();
        let line_no = before.lines().count() + 2;
        let out = repo.command(&["--json"], &[]).output().expect("starts");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{key}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "{}:{line_no}:1: [attempt] {key}: a repository's speccoder.toml cannot loosen the sandbox",
                config.display()
            )),
            "{key}: {stderr}"
        );
        let root = repo.root().canonicalize().expect("canonical");
        let own = support::user_config_for(&root);
        assert!(
            stderr.contains(&format!(
                "move the line to {} under [repo.\"{}\"]",
                own.display(),
                root.display()
            )),
            "{key}: {stderr}"
        );
        assert!(out.stdout.is_empty(), "{key}: no story");
        assert!(
            !repo.dir.path().join("where").exists(),
            "{key}: the agent ran"
        );
        assert!(
            !repo.root().join(".git/speccoder/attempts").exists(),
            "{key}"
        );
        repo.assert_untouched(&main, &[]);
    }
}

/// Your own file is read as hostile input too: bad TOML, a FIFO, a file anyone may write,
/// or a `$SPECCODER_CONFIG` naming no file stop the attempt before anything runs, naming
/// the file (and the line where there is one).
#[test]
fn your_own_file_that_cannot_be_read_stops_the_attempt_naming_it() {
    let repo = Repo::new("honest", "");
    let own = support::user_config_file(&repo.root());
    let run = |env: &[(&str, &std::ffi::OsStr)]| {
        let out = repo.command(&["--json"], env).output().expect("starts");
        assert!(!repo.dir.path().join("where").exists(), "the agent ran");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    std::fs::write(&own, "[attempt]\nnetwork = true\nreveal = \"/run\"\n").expect("write");
    let (code, stderr) = run(&[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{}:3:10: [attempt] reveal: invalid type: string \"/run\", expected a sequence",
            own.display()
        )),
        "{stderr}"
    );
    std::fs::remove_file(&own).expect("rm");
    let made = Command::new("mkfifo").arg(&own).status().expect("mkfifo");
    assert!(made.success());
    let started = Instant::now();
    let (code, stderr) = run(&[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains(&own.display().to_string()), "{stderr}");
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "waited on the FIFO"
    );
    std::fs::remove_file(&own).expect("rm");
    std::fs::write(&own, "[attempt]\nnetwork = true\n").expect("write");
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&own, std::fs::Permissions::from_mode(0o646)).expect("chmod");
    }
    let (code, stderr) = run(&[]);
    assert_eq!(code, Some(5), "{stderr}");
    assert!(stderr.contains("anyone may write it"), "{stderr}");
    let missing = repo.dir.path().join("no-such.toml");
    let (code, stderr) = run(&[("SPECCODER_CONFIG", missing.as_os_str())]);
    assert_eq!(code, Some(5), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{}: no such file, named by $SPECCODER_CONFIG",
            missing.display()
        )),
        "{stderr}"
    );
}

/// Your own file inside a folder you made writable: the agent could loosen every later
/// run, and the story says so.
#[test]
fn your_own_file_inside_writable_is_noted() {
    let probe = tempfile::tempdir().expect("temp dir");
    let repo = Repo::new("honest", &probes_writable(probe.path()));
    let own = support::user_config_file(&repo.root());
    let folder = own
        .parent()
        .expect("a folder")
        .canonicalize()
        .expect("canonical");
    let text = std::fs::read_to_string(&own).expect("your own file");
    let widened = text.replace(
        &format!("\"{}\"", probe.path().display()),
        &format!("\"{}\", \"{}\"", probe.path().display(), folder.display()),
    );
    assert_ne!(text, widened);
    std::fs::write(&own, widened).expect("your own file");
    let (code, story, stderr) = repo.attempt(&[], &[]);
    assert_eq!(code, Some(0), "{story}\n{stderr}");
    let notes = story["notes"].to_string();
    assert!(
        notes.contains(&format!(
            "is inside `[attempt] writable` ({}): the agent can change what later runs let through",
            folder.display()
        )),
        "{notes}"
    );
}

/// `[attempt] setup` is the repository's choice and runs with the network: it sees
/// neither your credential files nor the secrets of your environment, only what the checks
/// get.
#[test]
fn the_setup_a_repository_chose_sees_neither_your_credentials_nor_your_secrets() {
    let scratch = tempfile::tempdir().expect("temp dir");
    let (home, _) = home_with_credentials(scratch.path());
    std::fs::write(
        home.join(".aws/credentials"),
        "[default]\naws_secret_access_key = aws-from-the-home\n",
    )
    .expect("aws");
    let repo = Repo::new(
        "honest",
        "[attempt]\nsetup = [\"echo setup ran; cat \\\"$HOME/.aws/credentials\\\" \\\"$HOME/.netrc\\\"; echo \\\"token=$GITHUB_TOKEN\\\"; exit 3\"]\n",
    );
    let out = repo
        .command(&["--json"], &[])
        .env("HOME", &home)
        .env("GITHUB_TOKEN", "token-from-the-shell")
        .output()
        .expect("starts");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        said.contains("setup ran"),
        "the setup's output is shown: {said}"
    );
    assert!(said.contains("token="), "{said}");
    for secret in ["aws-from-the-home", "example.org", "token-from-the-shell"] {
        assert!(!said.contains(secret), "the setup saw `{secret}`: {said}");
    }
    assert_ne!(out.status.code(), Some(0), "{said}");
}

/// An honest attempt on a machine made to look like a desktop (`fixtures/sandbox/desktop.sh`),
/// with `extra` in `[attempt]` (the keys only your own file holds go there; with `extra`
/// ending in `[repo]`, into its table of this checkout): the agent's probe prints
/// `agent_sees`, and the checks' probe (a test of the project) asserts that what they
/// reach is the Python list `checks_see`.
fn on_a_desktop(extra: &str, agent_sees: &str, checks_see: &str) {
    if !rustix::process::geteuid().is_root() {
        eprintln!("skipped: a /run of the test's own needs root");
        return;
    }
    require_tools(&["ssh-agent", "ssh-add", "ssh-keygen"]);
    let sandbox = fixtures_dir()
        .join("sandbox")
        .canonicalize()
        .expect("fixtures");
    let scratch = tempfile::tempdir().expect("temp dir");
    let (home, key) = home_with_credentials(scratch.path());
    let abstract_name = format!("speccoder-test-{}", std::process::id());
    let port_file = scratch.path().join("port");
    let probes = scratch.path().join("probes");
    std::fs::create_dir(&probes).expect("mkdir");
    // The agent probes (also with ssh-add, the real client), then does the task. It keeps
    // the machine's network, so its probe leaves out the loopback port.
    let agent = scratch.path().join("agent.sh");
    std::fs::write(
        &agent,
        format!(
            "cat >/dev/null\n/usr/bin/python3 {probe} {abstract_name} > \"$PROBE_FILE\" 2>&1\nSSH_AUTH_SOCK=/run/user/0/ssh-agent.sock ssh-add -l >/dev/null 2>&1 && echo 'REACHED ssh-add' >> \"$PROBE_FILE\"\nsed -i 's/    raise NotImplementedError(\"T7 adds this\")/    return a + b/' calc.py\n",
            probe = sandbox.join("probe.py").display(),
        ),
    )
    .expect("agent");
    let scoped = extra.ends_with("[repo]\n");
    let extra = extra.trim_end_matches("[repo]\n");
    let repo = Repo::with_config(&format!(
        "[executor]\nkind = \"command\"\nargv = [\"sh\", \"{}\"]\ntimeout_secs = 60\n{}{extra}",
        agent.display(),
        probes_writable(&probes),
    ));
    if scoped {
        // Your file's table for this checkout only, with an `[attempt]` that names no key.
        let root = repo.root().canonicalize().expect("canonical");
        let own = support::user_config_file(&root);
        let text = std::fs::read_to_string(&own).expect("your own file");
        let scoped = text.replacen(
            "[attempt]\n",
            &format!("[attempt]\n\n[repo.{:?}]\n", root.display().to_string()),
            1,
        );
        std::fs::write(&own, scoped).expect("your own file");
    }
    // The checks probe too: a test of the project that fails on anything reached, and
    // needs the sandbox's own loopback.
    std::fs::write(
        repo.root().join("tests/test_probe.py"),
        format!(
            "import sys\nimport unittest\n\nsys.path.insert(0, {dir:?})\nimport probe\n\n\nclass ProbeTest(unittest.TestCase):\n    def test_nothing_of_the_users_is_reached(self):\n        with open({port:?}) as f:\n            port = int(f.read())\n        self.assertEqual(probe.reached({abstract_name:?}, port), {checks_see})\n\n    def test_the_own_loopback_works(self):\n        self.assertTrue(probe.own_loopback())\n",
            dir = sandbox.display().to_string(),
            port = port_file.display().to_string(),
        ),
    )
    .expect("probe test");
    support::commit_all(&repo.root(), "a probe of the sandbox");
    let probe_file = probes.join("agent");
    let mut command = repo.command(&["--json"], &[("PROBE_FILE", probe_file.as_os_str())]);
    command
        .env("HOME", &home)
        .env("SSH_AUTH_SOCK", "/run/user/0/ssh-agent.sock")
        .env("KEY_FILE", &key)
        .env("ABSTRACT", &abstract_name)
        .env("PORT_FILE", &port_file);
    let mut wrapped = Command::new("unshare");
    wrapped
        .args(["--mount", "--propagation", "private", "--"])
        .arg(sandbox.join("desktop.sh"))
        .arg(command.get_program())
        .args(command.get_args());
    for (name, value) in command.get_envs() {
        if let Some(value) = value {
            wrapped.env(name, value);
        }
    }
    let out = wrapped.output().expect("starts");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let story: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("not JSON: {stderr}"));
    let agent_saw = std::fs::read_to_string(&probe_file).expect("the agent probed");
    assert_eq!(
        agent_saw.trim(),
        agent_sees,
        "the agent reached: {agent_saw}"
    );
    assert_eq!(out.status.code(), Some(0), "{story}\n{stderr}");
    assert_eq!(
        story["verdict"], "passed",
        "the checks reached something: {story}"
    );
    let check = &story["attempts"][0]["checks"][0];
    assert_eq!(check["tests"]["counts"]["passed"], 7, "{check}");
    // The story says what your own file let through, and from where.
    let own = support::user_config_file(&repo.root().canonicalize().expect("canonical"));
    let said = story["notes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .find(|n| n.starts_with("your own configuration file ("))
        .unwrap_or_default();
    assert!(said.contains(&own.display().to_string()), "{story}");
    assert_eq!(
        said.contains("reveal = [\"/run/user/0\"], network = true"),
        extra.contains("network = true"),
        "{said}"
    );
}

/// A project of `fixtures/sandbox/NAME` committed with a stand-in agent that runs `fix`
/// (shell, in the project) and `[attempt]` lines `extra`, in a folder outside the system's
/// temporary folder (as a home folder's caches are); its bundle of task T7.
fn cache_project(name: &str, fix: &str, extra: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("temp dir");
    let root = dir.path().join("repo");
    copy_dir(&fixtures_dir().join("sandbox").join(name), &root);
    let agent = dir.path().join("agent.sh");
    std::fs::write(&agent, format!("cat >/dev/null\n{fix}\n")).expect("agent");
    support::attempts::commit_base(&root, &agent, extra);
    let bundle = dir.path().join("bundle.json");
    support::attempts::write_add_bundle(&bundle, "T7", None);
    (dir, root, bundle)
}

#[test]
fn go_on_a_cold_build_cache_and_with_race_passes_honest_work() {
    require_tools(&["go", "gcc", "make"]);
    let (dir, root, bundle) = cache_project(
        "go-cold",
        "sed -i 's/\tpanic(\"T7 adds this\")/\treturn a + b/' calc.go",
        "",
    );
    // The user's caches, empty: a fresh CI runner's or a new container's.
    let cache = dir.path().join("go-build");
    let gopath = dir.path().join("gopath");
    std::fs::create_dir(&cache).expect("mkdir");
    let out = support::attempts::attempt_command(&root, &bundle)
        .env("GOCACHE", &cache)
        .env("GOPATH", &gopath)
        .env("GOTOOLCHAIN", "local")
        .output()
        .expect("starts");
    let run = support::attempts::Run::from(out);
    run.expect_passed(&root, "T7")
        .unwrap_or_else(|err| panic!("{err}\n{}", run.stderr));
    let check = &run.verdict_checks()[0];
    assert!(
        check["output_tail"]
            .as_str()
            .is_some_and(|c| c.contains("go test -race")),
        "{check}"
    );
    assert_eq!(check["tests"]["counts"]["passed"], 3, "{check}");
    // What the checks built stayed in their namespaces: your cache is as it was.
    assert_eq!(
        support::attempts::files_under(&cache),
        Vec::<PathBuf>::new()
    );
}

#[test]
fn a_hatch_run_check_makes_its_environment_and_passes_honest_work() {
    require_tools(&["hatch"]);
    let (dir, root, bundle) = cache_project(
        "hatch",
        "sed -i 's/    raise NotImplementedError(\"T7 adds this\")/    return a + b/' calc.py",
        "",
    );
    // A home where hatch has made no environment yet.
    let home = dir.path().join("home");
    std::fs::create_dir(&home).expect("mkdir");
    let out = support::attempts::attempt_command(&root, &bundle)
        .env("HOME", &home)
        .env_remove("XDG_DATA_HOME")
        .env_remove("XDG_CACHE_HOME")
        .env_remove("HATCH_DATA_DIR")
        .env_remove("HATCH_CACHE_DIR")
        .output()
        .expect("starts");
    let run = support::attempts::Run::from(out);
    run.expect_passed(&root, "T7")
        .unwrap_or_else(|err| panic!("{err}\n{}", run.stderr));
    let check = &run.verdict_checks()[0];
    assert!(
        check["command"]
            .as_str()
            .is_some_and(|c| c.starts_with("hatch run")),
        "{check}"
    );
    assert_eq!(check["tests"]["counts"]["passed"], 2, "{check}");
    // hatch's environments were made in the checks' namespaces, not in your home.
    assert_eq!(
        support::attempts::files_under(&home.join(".local/share/hatch")),
        Vec::<PathBuf>::new()
    );
}

#[test]
fn a_task_id_with_control_bytes_is_refused_without_them() {
    let repo = Repo::new("honest", "");
    std::fs::write(
        repo.bundle(),
        "{\"task\": {\"id\": \"T7\\u001b]0;pwned\\u0007\\u001b[2J\", \"title\": \"x\"}}",
    )
    .expect("bundle");
    let out = repo.command(&[], &[]).output().expect("starts");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        !out.stderr.iter().any(|b| *b == 0x1b || *b == 0x07),
        "raw control bytes on the terminal: {:?}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("task id `T7\\u{1b}]0;pwned\\u{7}\\u{1b}[2J`"),
        "{stderr}"
    );
}
