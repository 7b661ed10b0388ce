//! The argv each kind of external agent is started with.

use std::path::Path;

use crate::config::{ExecutorKind, ExternalExecutor};

/// Claude Code's own tools the agent may always use.
pub const CLAUDE_TOOLS: &str = "Read,Edit,Write,MultiEdit,Glob,Grep,LS";

/// Claude Code's tools the agent may never use.
pub const CLAUDE_DENIED: &str = "WebFetch,WebSearch";

/// Where an attempt works and what it may not read.
#[derive(Debug, Clone, Copy)]
pub struct Placement<'a> {
    /// The worktree the agent works in.
    pub worktree: &'a Path,
    /// Where Codex writes its last message.
    pub last_message: &'a Path,
    /// A directory the agent must not read (held-out tests).
    pub withheld: Option<&'a Path>,
}

/// The argv for `executor` with the Claude rules of the allowances.
pub fn agent_argv(
    executor: &ExternalExecutor,
    claude_rules: &[String],
    placement: Placement<'_>,
) -> Vec<String> {
    let model = executor.model.as_deref().filter(|m| !m.is_empty());
    match executor.kind {
        ExecutorKind::Claude => {
            let mut tools = CLAUDE_TOOLS.to_owned();
            for rule in claude_rules {
                tools.push(',');
                tools.push_str(rule);
            }
            let mut deny = CLAUDE_DENIED.to_owned();
            if let Some(dir) = placement.withheld {
                deny.push_str(&format!(",Read({}/**)", dir.display()));
            }
            let mut argv: Vec<String> = [
                "claude",
                "-p",
                "--output-format",
                "json",
                "--permission-mode",
                "acceptEdits",
                "--allowedTools",
            ]
            .map(str::to_owned)
            .to_vec();
            argv.push(tools);
            argv.push("--disallowedTools".into());
            argv.push(deny);
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
        }
    }

    fn placement(withheld: Option<&'static str>) -> Placement<'static> {
        Placement {
            worktree: Path::new("/w/tree"),
            last_message: Path::new("/tmp/x/last-message.txt"),
            withheld: withheld.map(Path::new),
        }
    }

    #[test]
    fn reference_cases() {
        let rules = vec!["Bash(cargo test)".to_owned()];
        let claude = agent_argv(
            &executor(ExecutorKind::Claude, Some("sonnet")),
            &rules,
            placement(None),
        );
        assert!(
            claude.contains(&"Read,Edit,Write,MultiEdit,Glob,Grep,LS,Bash(cargo test)".to_owned())
        );
        assert_eq!(claude[claude.len() - 2..], ["--model", "sonnet"]);
        let held = agent_argv(
            &executor(ExecutorKind::Claude, None),
            &rules,
            placement(Some("/s/held-out/f/T1")),
        );
        assert!(held.contains(&"WebFetch,WebSearch,Read(/s/held-out/f/T1/**)".to_owned()));
        let codex = agent_argv(
            &executor(ExecutorKind::Codex, Some("o3")),
            &rules,
            placement(None),
        );
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
        let command = agent_argv(
            &executor(ExecutorKind::Command, None),
            &rules,
            placement(None),
        );
        assert_eq!(command, ["my-agent", "--flag"]);
    }
}
