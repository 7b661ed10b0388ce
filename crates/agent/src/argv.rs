//! The argv each kind of external agent is started with.

use std::path::{Path, PathBuf};

use super::recipe_server::RecipeServer;
use speccoder_config::{ExecutorKind, ExternalExecutor};

/// Claude Code's own tools the agent may always use, comma-separated. (Claude Code 2.1
/// has no `Glob`, `Grep`, `LS` or `MultiEdit` any more: it searches through `Bash`.)
pub const CLAUDE_TOOLS: &str = "Read,Edit,Write";

/// Claude Code's tools the agent may never use, comma-separated.
pub const CLAUDE_DENIED: &str = "WebFetch,WebSearch";

/// Whose sandbox holds the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Containment {
    /// speccoder's own namespaces (an attempt's sandbox). The agents' own sandboxes cannot
    /// start inside them (bubblewrap cannot write its uid map there), so they are turned
    /// off: speccoder's namespace is the boundary.
    Namespaces,
    /// None of speccoder's (`agent run`, or an attempt on a machine with no namespaces):
    /// the agent's own sandbox, as the person set it, is what there is.
    Host,
}

/// Where an attempt works and where its files are.
#[derive(Debug, Clone, Copy)]
pub struct Placement<'a> {
    /// The worktree the agent works in.
    pub worktree: &'a Path,
    /// Where Codex writes its last message.
    pub last_message: &'a Path,
    /// Where Claude's settings file with its permission rules is.
    pub settings: &'a Path,
    /// The recipe tool's MCP server the agent gets, if any.
    pub recipe_server: Option<&'a RecipeServer>,
    /// Whose sandbox holds the agent.
    pub containment: Containment,
    /// Folders besides the worktree the agent writes to (`[attempt] writable`, the
    /// toolchains' caches), which Codex's own sandbox must leave writable.
    pub writable: &'a [PathBuf],
}

/// Why no permission rules can be written for Claude Code: an attempt that was meant to
/// withhold a folder must not start without the rule that hides it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    /// The withheld folder is given as a relative path, which a rule would read from
    /// elsewhere.
    #[error("the withheld folder {} is not an absolute path", .0.display())]
    RelativeWithheld(PathBuf),
    /// The withheld folder's path is not UTF-8, which a rule is.
    #[error("the withheld folder {} is not valid UTF-8, so no rule can name it", .0.display())]
    NotUtf8Withheld(PathBuf),
    /// A rule is not of the forms the runtime writes (the reason names the rule).
    #[error("{0}")]
    Grammar(String),
}

/// Claude Code's permission rules for one attempt, as its settings file holds them.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ClaudePermissions {
    /// Tools and commands allowed without asking.
    pub allow: Vec<String>,
    /// Tools and reads never allowed.
    pub deny: Vec<String>,
}

impl ClaudePermissions {
    /// The rules for `claude_rules` and a withheld folder: the allowed tools then the rules;
    /// the denied tools then `Read(//<folder>/**)` for the folder as given and, when it
    /// differs, as its symlinks resolve. Every rule is checked against the grammar of the
    /// rules we write; a folder that no rule can name exactly is an error, because an
    /// attempt that was meant to withhold it must not start without the rule.
    pub fn new(claude_rules: &[String], withheld: Option<&Path>) -> Result<Self, RuleError> {
        let allow: Vec<String> = CLAUDE_TOOLS
            .split(',')
            .map(str::to_owned)
            .chain(claude_rules.iter().cloned())
            .collect();
        let mut deny: Vec<String> = CLAUDE_DENIED.split(',').map(str::to_owned).collect();
        if let Some(dir) = withheld {
            let mut folders = vec![dir.to_path_buf()];
            if let Ok(real) = dir.canonicalize()
                && real != dir
            {
                folders.push(real);
            }
            for folder in folders {
                deny.push(withheld_rule(&folder)?);
            }
        }
        for rule in allow.iter().chain(&deny) {
            super::rule::check_rule(rule).map_err(RuleError::Grammar)?;
        }
        Ok(Self { allow, deny })
    }

    /// The settings file's JSON: `{"permissions": {"allow": [..], "deny": [..]}}`, and
    /// inside speccoder's namespaces `"sandbox": {"enabled": false}`, which overrides a
    /// person's own `sandbox.enabled` (with `failIfUnavailable`, Claude would otherwise
    /// exit 1 at start, its sandbox being unable to start there).
    pub fn settings_json(&self, containment: Containment) -> serde_json::Value {
        match containment {
            Containment::Namespaces => {
                serde_json::json!({ "permissions": self, "sandbox": {"enabled": false} })
            }
            Containment::Host => serde_json::json!({ "permissions": self }),
        }
    }
}

/// `Read(//abs/folder/**)`: Claude Code reads `//path` in a rule as absolute, and `/path`
/// as relative to the rule's own root, which would guard nothing.
fn withheld_rule(dir: &Path) -> Result<String, RuleError> {
    if !dir.is_absolute() {
        return Err(RuleError::RelativeWithheld(dir.to_path_buf()));
    }
    let Some(text) = dir.to_str() else {
        return Err(RuleError::NotUtf8Withheld(dir.to_path_buf()));
    };
    let trimmed = text.trim_end_matches('/');
    Ok(format!("Read(/{trimmed}/**)"))
}

/// The argv for `executor`. Claude gets its permission rules from the settings file
/// `placement.settings` (see [`ClaudePermissions`]): thousands of rules do not fit in one
/// argument, and a settings file keeps them off the process list. It reads the person's own
/// settings but not the worktree's (`--setting-sources user`): a repository's
/// `.claude/settings.json` could otherwise add allow rules, and its hooks run as soon as
/// Claude starts (measured: a `SessionStart` hook ran, even with no credentials).
pub fn agent_argv(executor: &ExternalExecutor, placement: Placement<'_>) -> Vec<String> {
    let model = executor.model.as_deref().filter(|m| !m.is_empty());
    match executor.kind {
        ExecutorKind::Claude => {
            let mut argv: Vec<String> = [
                "claude",
                "-p",
                "--output-format",
                "json",
                "--permission-mode",
                "acceptEdits",
                "--setting-sources",
                "user",
                "--settings",
            ]
            .map(str::to_owned)
            .to_vec();
            argv.push(placement.settings.display().to_string());
            if let Some(server) = placement.recipe_server {
                argv.push("--mcp-config".into());
                argv.push(server.claude_config(placement.worktree));
                argv.push("--strict-mcp-config".into());
            }
            if let Some(model) = model {
                argv.push("--model".into());
                argv.push(model.into());
            }
            if let Some(turns) = executor.max_turns {
                argv.push("--max-turns".into());
                argv.push(turns.to_string());
            }
            if let Some(budget) = executor.max_budget_usd {
                argv.push("--max-budget-usd".into());
                argv.push(budget.0.to_string());
            }
            argv
        }
        ExecutorKind::Codex => {
            // Codex's rules are no allow list: the allowances are not passed (see
            // docs: a rule that allows a command runs it outside Codex's sandbox).
            let sandbox = match placement.containment {
                Containment::Namespaces => "danger-full-access",
                Containment::Host => "workspace-write",
            };
            let mut argv: Vec<String> = ["codex", "exec", "--sandbox", sandbox]
                .map(str::to_owned)
                .to_vec();
            if placement.containment == Containment::Host && !placement.writable.is_empty() {
                let roots: Vec<String> = placement
                    .writable
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect();
                argv.push("-c".into());
                argv.push(format!(
                    "sandbox_workspace_write.writable_roots={}",
                    serde_json::Value::from(roots)
                ));
            }
            // Codex runs commands in a login shell by default, whose profile resets PATH
            // (Debian's /etc/profile does for every user): the agent's shell would not find
            // the tools the checks find with the environment speccoder hands on.
            argv.extend(["-c".to_owned(), "allow_login_shell=false".to_owned()]);
            argv.extend(["--skip-git-repo-check".to_owned(), "-C".to_owned()]);
            argv.push(placement.worktree.display().to_string());
            argv.push("-o".into());
            argv.push(placement.last_message.display().to_string());
            if let Some(server) = placement.recipe_server {
                for value in server.codex_overrides(placement.worktree) {
                    argv.push("-c".into());
                    argv.push(value);
                }
            }
            if let Some(model) = model {
                argv.push("-m".into());
                argv.push(model.into());
            }
            // `-` makes Codex read the prompt from stdin.
            argv.push("-".into());
            argv
        }
        ExecutorKind::Command => executor.argv.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use speccoder_config::Usd;

    fn executor(kind: ExecutorKind, model: Option<&str>) -> ExternalExecutor {
        ExternalExecutor {
            kind,
            argv: vec!["my-agent".into(), "--flag".into()],
            model: model.map(str::to_owned),
            timeout_secs: 1800,
            recipe_mcp: true,
            max_turns: None,
            max_budget_usd: None,
        }
    }

    fn placement(containment: Containment) -> Placement<'static> {
        Placement {
            worktree: Path::new("/w/tree"),
            last_message: Path::new("/tmp/x/last-message.txt"),
            settings: Path::new("/tmp/x/settings.json"),
            recipe_server: None,
            containment,
            writable: &[],
        }
    }

    /// The seed's reference cases. Changed on purpose: the rules moved from
    /// `--allowedTools`/`--disallowedTools` into the settings file (issue 10), the withheld
    /// folder is `Read(//s/held-out/f/T1/**)`, with two slashes, because Claude Code reads
    /// `Read(/s/…)` as relative to the project and would withhold nothing, and Codex runs
    /// with `danger-full-access` inside speccoder's namespace, where its own sandbox
    /// cannot start (issue 37).
    #[test]
    fn reference_cases() {
        let rules = vec!["Bash(cargo test)".to_owned()];
        let claude = agent_argv(
            &executor(ExecutorKind::Claude, Some("sonnet")),
            placement(Containment::Namespaces),
        );
        assert_eq!(claude[claude.len() - 2..], ["--model", "sonnet"]);
        let permissions = ClaudePermissions::new(&rules, None).expect("rules");
        assert_eq!(
            permissions.allow.join(","),
            "Read,Edit,Write,Bash(cargo test)"
        );
        let held =
            ClaudePermissions::new(&rules, Some(Path::new("/s/held-out/f/T1"))).expect("rules");
        assert_eq!(
            held.deny.join(","),
            "WebFetch,WebSearch,Read(//s/held-out/f/T1/**)"
        );
        let codex = agent_argv(
            &executor(ExecutorKind::Codex, Some("o3")),
            placement(Containment::Namespaces),
        );
        assert_eq!(
            codex,
            [
                "codex",
                "exec",
                "--sandbox",
                "danger-full-access",
                "-c",
                "allow_login_shell=false",
                "--skip-git-repo-check",
                "-C",
                "/w/tree",
                "-o",
                "/tmp/x/last-message.txt",
                "-m",
                "o3",
                "-"
            ]
        );
        let command = agent_argv(
            &executor(ExecutorKind::Command, None),
            placement(Containment::Host),
        );
        assert_eq!(command, ["my-agent", "--flag"]);
    }

    /// Outside speccoder's namespaces Codex keeps its own sandbox, with the caches and
    /// `[attempt] writable` open in it (a cold `go test` writes `~/.cache/go-build`).
    #[test]
    fn codex_on_the_host_keeps_its_sandbox_with_the_writable_folders() {
        let writable = [
            PathBuf::from("/h/.cache/go-build"),
            PathBuf::from("/h/x \"y\""),
        ];
        let codex = agent_argv(
            &executor(ExecutorKind::Codex, None),
            Placement {
                writable: &writable,
                ..placement(Containment::Host)
            },
        );
        assert_eq!(
            codex[..6],
            [
                "codex",
                "exec",
                "--sandbox",
                "workspace-write",
                "-c",
                r#"sandbox_workspace_write.writable_roots=["/h/.cache/go-build","/h/x \"y\""]"#
            ]
        );
        // Inside the namespace there is no Codex sandbox to open folders in.
        let inside = agent_argv(
            &executor(ExecutorKind::Codex, None),
            Placement {
                writable: &writable,
                ..placement(Containment::Namespaces)
            },
        );
        assert!(
            !inside.iter().any(|w| w.contains("writable_roots")),
            "{inside:?}"
        );
        let server = RecipeServer {
            program: PathBuf::from("/bin/speccoder"),
            config: None,
            env_vars: vec!["XDG_STATE_HOME".into()],
        };
        let with_server = agent_argv(
            &executor(ExecutorKind::Codex, None),
            Placement {
                recipe_server: Some(&server),
                ..placement(Containment::Host)
            },
        );
        assert!(
            with_server.contains(
                &r#"mcp_servers.speccoder.default_tools_approval_mode="approve""#.to_owned()
            ),
            "{with_server:?}"
        );
        assert_eq!(with_server.last().map(String::as_str), Some("-"));
        assert!(with_server.contains(&"allow_login_shell=false".to_owned()));
    }

    #[test]
    fn claude_limits_are_passed() {
        let mut limited = executor(ExecutorKind::Claude, None);
        limited.max_turns = Some(30);
        limited.max_budget_usd = Some(Usd(2.5));
        let argv = agent_argv(&limited, placement(Containment::Host));
        assert_eq!(
            argv[argv.len() - 4..],
            ["--max-turns", "30", "--max-budget-usd", "2.5"]
        );
    }

    #[test]
    fn claude_argv_and_settings() {
        let claude = agent_argv(
            &executor(ExecutorKind::Claude, None),
            placement(Containment::Namespaces),
        );
        let rules = vec![
            "Bash(make test)".to_owned(),
            "Bash(npm run x -- *)".to_owned(),
            crate::CLAUDE_RECIPE_RULE.to_owned(),
        ];
        let permissions =
            ClaudePermissions::new(&rules, Some(Path::new("/s/held/"))).expect("rules");
        crate::snapshot_settings().bind(|| {
            insta::assert_snapshot!(format!(
                "{}\n{}",
                claude.join(" "),
                serde_json::to_string_pretty(&permissions.settings_json(Containment::Namespaces))
                    .expect("json")
            ));
        });
        // On the host the person's own sandbox setting stays theirs.
        assert_eq!(
            permissions.settings_json(Containment::Host).get("sandbox"),
            None
        );
    }

    #[test]
    fn withheld_folders_no_rule_can_name_are_errors() {
        #[track_caller]
        fn case(dir: &str, want: &str) {
            assert_eq!(
                ClaudePermissions::new(&[], Some(Path::new(dir))).map_err(|err| err.to_string()),
                Err(want.to_owned())
            );
        }
        case("held", "the withheld folder held is not an absolute path");
        case(
            "/s/a*b",
            "the rule `Read(//s/a*b/**)` names a folder that a rule cannot name exactly",
        );
        case(
            "/s/a)b",
            "the rule `Read(//s/a)b/**)` holds a parenthesis inside its parentheses",
        );
        case(
            "/",
            "the rule `Read(//**)` is not of the form `Read(//<absolute folder>/**)`",
        );
    }
}
