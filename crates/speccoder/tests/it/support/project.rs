//! A small project written whole by a test, with a stand-in agent of a few shell lines,
//! and one `speccoder attempt` at a time on it.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use super::{commit_all, git, path_var};

/// A repository holding `files`, with `agent` (shell lines run in the agent's tree) as
/// the executor and `attempt` lines added to `[attempt]`.
pub struct Project {
    dir: tempfile::TempDir,
    /// Whether `go` reads the tests' shared build cache.
    go: bool,
    /// Variables put in speccoder's environment, as a user's shell would.
    env: Vec<(String, String)>,
}

impl Project {
    pub fn new(files: &[(&str, &str)], attempt: &str) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let project = Self {
            dir,
            go: false,
            env: Vec::new(),
        };
        let root = project.root();
        for (path, text) in files {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
            std::fs::write(path, text).expect("write");
        }
        let agent = project.dir.path().join("agent.sh");
        std::fs::write(
            &agent,
            "#!/bin/sh\ncat >/dev/null\nsh \"$AGENT_SCRIPT\"\necho Done.\n",
        )
        .expect("agent");
        super::write_config(
            &root.join("speccoder.toml"),
            &format!(
                "[executor]\nkind = \"command\"\nargv = [\"sh\", \"{}\"]\ntimeout_secs = 60\n\n[attempt]\nmax_attempts = 1\n{}{attempt}",
                agent.display(),
                // A project naming its own keeps them (with `AGENT_SCRIPT` among them).
                if attempt.contains("agent_env") {
                    ""
                } else {
                    super::AGENT_ENV
                },
            ),
        );
        std::fs::write(root.join("tasks.md"), "# Tasks\n\n- [ ] T1 Do it\n").expect("tasks");
        git(&root, &["init", "--quiet", "--initial-branch=main"]);
        commit_all(&root, "base");
        std::fs::write(
            project.dir.path().join("bundle.json"),
            r#"{"task": {"id": "T1", "title": "Do it"}, "story": "s", "plan": "p", "constitution": "c"}"#,
        )
        .expect("bundle");
        project
    }

    /// The task's bundle with `files` as its acceptance tests (paths from the project root).
    #[allow(dead_code)]
    pub fn with_acceptance(self, files: &[(&str, &str)]) -> Self {
        let acceptance: serde_json::Map<String, Value> = files
            .iter()
            .map(|(p, t)| ((*p).to_owned(), Value::String((*t).to_owned())))
            .collect();
        let bundle = serde_json::json!({
            "task": {"id": "T1", "title": "Do it"},
            "story": "s", "plan": "p", "constitution": "c",
            "acceptance": acceptance,
        });
        std::fs::write(self.dir.path().join("bundle.json"), bundle.to_string()).expect("bundle");
        self
    }

    /// The project with `go` pointed at the tests' shared build cache.
    pub fn with_go_cache(mut self) -> Self {
        self.go = true;
        self
    }

    /// `name=value` in speccoder's environment.
    #[allow(dead_code)]
    pub fn with_env(mut self, name: &str, value: &str) -> Self {
        self.env.push((name.to_owned(), value.to_owned()));
        self
    }

    pub fn root(&self) -> PathBuf {
        self.dir.path().join("repo")
    }

    /// A folder of withheld tests holding `files`.
    pub fn withheld(&self, files: &[(&str, &str)]) -> PathBuf {
        let dir = self.dir.path().join("withheld");
        for (path, text) in files {
            let path = dir.join(path);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
            std::fs::write(path, text).expect("write");
        }
        dir
    }

    pub fn speccoder(&self, args: &[&str], agent: &str) -> std::process::Output {
        let script = self.dir.path().join("agent-script.sh");
        std::fs::write(&script, agent).expect("agent script");
        let mut command = Command::new(env!("CARGO_BIN_EXE_speccoder"));
        if self.go {
            super::attempts::use_go_cache(&mut command);
        }
        command
            .arg("-C")
            .arg(self.root())
            .args(args)
            .env("PATH", path_var())
            .env("AGENT_SCRIPT", &script)
            .env("SPECCODER_CACHE_DIR", super::test_cache_dir())
            .env("XDG_STATE_HOME", super::test_state_dir())
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .envs(self.env.iter().map(|(k, v)| (k, v)));
        super::use_user_config(&mut command, &self.root());
        command.output().expect("speccoder starts")
    }

    /// One attempt with `agent`, and `withheld` when given; the story.
    pub fn attempt(&self, agent: &str, withheld: Option<&Path>) -> Value {
        let bundle = self.dir.path().join("bundle.json");
        let mut args = vec![
            "attempt".to_owned(),
            "--json".into(),
            "--bundle".into(),
            bundle.display().to_string(),
        ];
        if let Some(dir) = withheld {
            args.extend(["--withheld".into(), dir.display().to_string()]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = self.speccoder(&args, agent);
        // A later attempt at the same task needs the branch of a pass gone.
        let _ = super::git_command(&self.root())
            .args(["branch", "-D", "speccoder/T1"])
            .output();
        serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
            serde_json::json!({
                "verdict": "no story",
                "stderr": String::from_utf8_lossy(&out.stderr),
            })
        })
    }
}

/// The verdict, the findings' kinds and paths, the last attempt's reason and its verdict
/// checks' tests, on one line.
pub fn said(story: &Value) -> String {
    let last = story["attempts"]
        .as_array()
        .and_then(|a| a.last())
        .cloned()
        .unwrap_or_default();
    let checks: Vec<String> = last["checks"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| format!("{} {}", c["pass"], c["tests"]))
        .collect();
    format!(
        "verdict {}; findings {}; reason {}; checks {}; notes {}; {}",
        story["verdict"],
        last["findings"],
        last["reason"],
        checks.join(" | "),
        story["notes"],
        story["stderr"]
    )
}

/// Collects a case that went wrong.
pub fn expect(
    failures: &mut Vec<String>,
    name: &str,
    story: &Value,
    verdict: &str,
    finding: Option<&str>,
) {
    let findings = story["attempts"][0]["findings"].to_string();
    let ok = story["verdict"] == verdict && finding.is_none_or(|f| findings.contains(f));
    eprintln!(
        "case {name}: {} ({})",
        if ok { "ok" } else { "WRONG" },
        story["verdict"]
    );
    if !ok {
        failures.push(format!(
            "{name}: want {verdict} {finding:?}: {}",
            said(story)
        ));
    }
}
