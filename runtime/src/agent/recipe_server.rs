//! [`RecipeServer`]: how an external agent starts `speccoder mcp` for its worktree, so that
//! it runs the project's tasks through the recipe tool.

use std::path::{Path, PathBuf};

/// The server's name in the agent's configuration.
pub const SERVER_NAME: &str = "speccoder";

/// The recipe tool as Claude Code names it in its permission rules.
pub const CLAUDE_RECIPE_TOOL: &str = "mcp__speccoder__recipe";

/// This program started as `speccoder -C <worktree> [--config <file>] mcp`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecipeServer {
    /// The `speccoder` binary.
    pub program: PathBuf,
    /// The project's configuration file, when it has one; the worktree's own copy could
    /// differ from the file the attempt was started with.
    pub config: Option<PathBuf>,
}

impl RecipeServer {
    /// The server's arguments for an agent working in `worktree`.
    pub fn args(&self, worktree: &Path) -> Vec<String> {
        let mut args = vec!["-C".to_owned(), worktree.display().to_string()];
        if let Some(config) = &self.config {
            args.push("--config".into());
            args.push(config.display().to_string());
        }
        args.push("mcp".into());
        args
    }

    /// Claude Code's `--mcp-config` JSON.
    pub fn claude_config(&self, worktree: &Path) -> String {
        serde_json::json!({
            "mcpServers": {
                SERVER_NAME: {
                    "type": "stdio",
                    "command": self.program.display().to_string(),
                    "args": self.args(worktree),
                }
            }
        })
        .to_string()
    }

    /// Codex's `-c` overrides: `mcp_servers.speccoder.command=…` and `….args=[…]`, each a
    /// TOML value (a JSON string or array of strings is one).
    pub fn codex_overrides(&self, worktree: &Path) -> [String; 2] {
        let command = serde_json::Value::from(self.program.display().to_string());
        let args = serde_json::Value::from(self.args(worktree));
        [
            format!("mcp_servers.{SERVER_NAME}.command={command}"),
            format!("mcp_servers.{SERVER_NAME}.args={args}"),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_cases() {
        let server = RecipeServer {
            program: PathBuf::from("/opt/bin/speccoder"),
            config: Some(PathBuf::from("/p/speccoder.toml")),
        };
        let worktree = Path::new("/w/a \"b\"");
        assert_eq!(
            server.args(worktree),
            ["-C", "/w/a \"b\"", "--config", "/p/speccoder.toml", "mcp"]
        );
        assert_eq!(
            server.claude_config(worktree),
            r#"{"mcpServers":{"speccoder":{"type":"stdio","command":"/opt/bin/speccoder","args":["-C","/w/a \"b\"","--config","/p/speccoder.toml","mcp"]}}}"#
        );
        assert_eq!(
            server.codex_overrides(Path::new("/w")),
            [
                r#"mcp_servers.speccoder.command="/opt/bin/speccoder""#,
                r#"mcp_servers.speccoder.args=["-C","/w","--config","/p/speccoder.toml","mcp"]"#
            ]
        );
        let bare = RecipeServer {
            program: PathBuf::from("speccoder"),
            config: None,
        };
        assert_eq!(bare.args(Path::new("/w")), ["-C", "/w", "mcp"]);
    }
}
