//! The argv each kind of external agent is started with.

use std::path::Path;

use super::recipe_server::RecipeServer;
use crate::config::{ExecutorKind, ExternalExecutor};

/// Claude Code's own tools the agent may always use, comma-separated.
pub const CLAUDE_TOOLS: &str = "Read,Edit,Write,MultiEdit,Glob,Grep,LS";

/// Claude Code's tools the agent may never use, comma-separated.
pub const CLAUDE_DENIED: &str = "WebFetch,WebSearch";

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
    pub fn new(claude_rules: &[String], withheld: Option<&Path>) -> Result<Self, String> {
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
            super::rule::check_rule(rule)?;
        }
        Ok(Self { allow, deny })
    }

    /// The settings file's JSON: `{"permissions": {"allow": [..], "deny": [..]}}`.
    pub fn settings_json(&self) -> serde_json::Value {
        serde_json::json!({ "permissions": self })
    }
}

/// `Read(//abs/folder/**)`: Claude Code reads `//path` in a rule as absolute, and `/path`
/// as relative to the rule's own root, which would guard nothing.
fn withheld_rule(dir: &Path) -> Result<String, String> {
    let shown = dir.display();
    if !dir.is_absolute() {
        return Err(format!(
            "the withheld folder {shown} is not an absolute path"
        ));
    }
    let Some(text) = dir.to_str() else {
        return Err(format!(
            "the withheld folder {shown} is not valid UTF-8, so no rule can name it"
        ));
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
            argv
        }
        ExecutorKind::Codex => {
            // Codex has no per-command allow list: the allowances are not passed.
            let mut argv: Vec<String> = [
                "codex",
                "exec",
                "--sandbox",
                "workspace-write",
                "--skip-git-repo-check",
                "-C",
            ]
            .map(str::to_owned)
            .to_vec();
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

    fn executor(kind: ExecutorKind, model: Option<&str>) -> ExternalExecutor {
        ExternalExecutor {
            kind,
            argv: vec!["my-agent".into(), "--flag".into()],
            model: model.map(str::to_owned),
            timeout_secs: 1800,
            recipe_mcp: true,
        }
    }

    fn placement() -> Placement<'static> {
        Placement {
            worktree: Path::new("/w/tree"),
            last_message: Path::new("/tmp/x/last-message.txt"),
            settings: Path::new("/tmp/x/settings.json"),
            recipe_server: None,
        }
    }

    /// The seed's reference cases. Two changed on purpose (issue 10): the rules moved from
    /// `--allowedTools`/`--disallowedTools` into the settings file, and the withheld folder
    /// is `Read(//s/held-out/f/T1/**)`, with two slashes, because Claude Code reads
    /// `Read(/s/…)` as relative to the project and would withhold nothing.
    #[test]
    fn reference_cases() {
        let rules = vec!["Bash(cargo test)".to_owned()];
        let claude = agent_argv(&executor(ExecutorKind::Claude, Some("sonnet")), placement());
        assert_eq!(claude[claude.len() - 2..], ["--model", "sonnet"]);
        let permissions = ClaudePermissions::new(&rules, None).expect("rules");
        assert_eq!(
            permissions.allow.join(","),
            "Read,Edit,Write,MultiEdit,Glob,Grep,LS,Bash(cargo test)"
        );
        let held =
            ClaudePermissions::new(&rules, Some(Path::new("/s/held-out/f/T1"))).expect("rules");
        assert_eq!(
            held.deny.join(","),
            "WebFetch,WebSearch,Read(//s/held-out/f/T1/**)"
        );
        let codex = agent_argv(&executor(ExecutorKind::Codex, Some("o3")), placement());
        assert_eq!(
            codex[..4],
            ["codex", "exec", "--sandbox", "workspace-write"]
        );
        assert_eq!(
            codex,
            [
                "codex",
                "exec",
                "--sandbox",
                "workspace-write",
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
        let command = agent_argv(&executor(ExecutorKind::Command, None), placement());
        assert_eq!(command, ["my-agent", "--flag"]);
    }

    #[test]
    fn claude_argv_and_settings() {
        let claude = agent_argv(&executor(ExecutorKind::Claude, None), placement());
        let rules = vec![
            "Bash(make test)".to_owned(),
            "Bash(npm run x -- *)".to_owned(),
        ];
        let permissions =
            ClaudePermissions::new(&rules, Some(Path::new("/s/held/"))).expect("rules");
        crate::snapshot_settings().bind(|| {
            insta::assert_snapshot!(format!(
                "{}\n{}",
                claude.join(" "),
                serde_json::to_string_pretty(&permissions.settings_json()).expect("json")
            ));
        });
    }

    #[test]
    fn withheld_folders_no_rule_can_name_are_errors() {
        #[track_caller]
        fn case(dir: &str, want: &str) {
            assert_eq!(
                ClaudePermissions::new(&[], Some(Path::new(dir))),
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
