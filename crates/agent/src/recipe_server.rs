//! [`RecipeServer`]: how an external agent starts `speccoder mcp` for its worktree, so that
//! it runs the project's tasks through the recipe tool, and how each CLI is told so.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// The server's name in the agent's configuration.
pub const SERVER_NAME: &str = "speccoder";

/// The Claude Code permission rule that admits every tool of the server: `recipe` and the
/// three tools of background jobs (`mcp__speccoder__recipe` alone would leave a job the
/// agent started impossible to read or stop).
pub const CLAUDE_RECIPE_RULE: &str = "mcp__speccoder";

/// How long Codex waits for one tool call, in seconds: the recipe tool's longest deadline
/// (an hour) and a minute for its grace and answer. Codex's own default is a minute, which
/// would cut a test run short and leave the model without its result.
const CODEX_TOOL_TIMEOUT_SECS: u64 = 3660;

/// How long Codex waits for the server to start, in seconds: the server detects the
/// project's runners first, which in a large monorepo takes a few seconds.
const CODEX_STARTUP_TIMEOUT_SECS: u64 = 60;

/// This program started as `speccoder -C <worktree> [--config <file>] mcp`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecipeServer {
    /// The `speccoder` binary.
    pub program: PathBuf,
    /// The project's configuration file, when it has one; the worktree's own copy could
    /// differ from the file the attempt was started with.
    pub config: Option<PathBuf>,
    /// Variables the server must get from the agent's environment: Codex starts MCP
    /// servers with only HOME, LANG, PATH, SHELL, TERM and the CA variables, which loses
    /// the state folder an attempt's sandbox sets and the toolchains' own variables.
    pub env_vars: Vec<String>,
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

    /// Claude Code's server entry. `alwaysLoad` puts the tools, with their descriptions,
    /// in the model's first request: Claude otherwise defers MCP tools behind its tool
    /// search, and the model sees the name `recipe` without the description that lists
    /// the tasks and the op syntax.
    pub fn claude_entry(&self, worktree: &Path) -> Value {
        json!({
            "type": "stdio",
            "command": self.program.display().to_string(),
            "args": self.args(worktree),
            "alwaysLoad": true,
        })
    }

    /// Claude Code's `--mcp-config` JSON.
    pub fn claude_config(&self, worktree: &Path) -> String {
        json!({ "mcpServers": { SERVER_NAME: self.claude_entry(worktree) } }).to_string()
    }

    /// Codex's server settings as `(key, TOML value)` pairs, for `-c key=value` or a
    /// `[mcp_servers.speccoder]` table (a JSON string, array of strings or number is a TOML
    /// value too). `codex exec` runs with the approval policy `never`, under which every
    /// MCP tool not marked read-only is refused unless the server's tools are approved.
    pub fn codex_settings(&self, worktree: &Path) -> Vec<(&'static str, String)> {
        let mut settings = vec![
            (
                "command",
                Value::from(self.program.display().to_string()).to_string(),
            ),
            ("args", Value::from(self.args(worktree)).to_string()),
            ("default_tools_approval_mode", "\"approve\"".to_owned()),
            (
                "startup_timeout_sec",
                CODEX_STARTUP_TIMEOUT_SECS.to_string(),
            ),
            ("tool_timeout_sec", CODEX_TOOL_TIMEOUT_SECS.to_string()),
        ];
        if !self.env_vars.is_empty() {
            settings.push(("env_vars", Value::from(self.env_vars.clone()).to_string()));
        }
        settings
    }

    /// Codex's `-c` overrides: `mcp_servers.speccoder.<key>=<value>`.
    pub fn codex_overrides(&self, worktree: &Path) -> Vec<String> {
        self.codex_settings(worktree)
            .into_iter()
            .map(|(key, value)| format!("mcp_servers.{SERVER_NAME}.{key}={value}"))
            .collect()
    }

    /// Codex's `config.toml` table for the server, as a person pastes it.
    pub fn codex_table(&self, worktree: &Path) -> String {
        let mut out = format!("[mcp_servers.{SERVER_NAME}]\n");
        for (key, value) in self.codex_settings(worktree) {
            out.push_str(&format!("{key} = {value}\n"));
        }
        out
    }
}

/// The names of the variables the recipe server needs from an agent's environment, among
/// `present` (the names this environment has), and always the state and temporary folders:
/// speccoder's own settings, and `toolchain`, the names the checks get (the toolchains'
/// variables: `GOCACHE`, `CARGO_HOME`, `VIRTUAL_ENV`…). Codex passes HOME, LANG, PATH,
/// SHELL and TERM itself.
pub fn server_env_vars<'a>(
    present: impl Iterator<Item = &'a str>,
    toolchain: impl Fn(&str) -> bool,
) -> Vec<String> {
    const CODEX_PASSES: &[&str] = &["HOME", "LANG", "PATH", "SHELL", "TERM"];
    // The state and temporary folders always: an attempt's sandbox sets both for the
    // agent, whether or not this process has them.
    let mut names: Vec<String> = present
        .chain(["TMPDIR", "XDG_STATE_HOME"])
        .filter(|name| !CODEX_PASSES.contains(name))
        .filter(|name| {
            matches!(*name, "TMPDIR" | "XDG_STATE_HOME")
                || name.starts_with("SPECCODER_")
                || toolchain(name)
        })
        // A name that is not a plain identifier is no variable Codex could pass.
        .filter(|name| {
            !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        })
        .map(str::to_owned)
        .collect();
    names.sort();
    names.dedup();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_cases() {
        let server = RecipeServer {
            program: PathBuf::from("/opt/bin/speccoder"),
            config: Some(PathBuf::from("/p/speccoder.toml")),
            env_vars: vec!["XDG_STATE_HOME".into(), "GOCACHE".into()],
        };
        let worktree = Path::new("/w/a \"b\"");
        assert_eq!(
            server.args(worktree),
            ["-C", "/w/a \"b\"", "--config", "/p/speccoder.toml", "mcp"]
        );
        assert_eq!(
            server.claude_config(worktree),
            r#"{"mcpServers":{"speccoder":{"type":"stdio","command":"/opt/bin/speccoder","args":["-C","/w/a \"b\"","--config","/p/speccoder.toml","mcp"],"alwaysLoad":true}}}"#
        );
        assert_eq!(
            server.codex_overrides(Path::new("/w")),
            [
                r#"mcp_servers.speccoder.command="/opt/bin/speccoder""#,
                r#"mcp_servers.speccoder.args=["-C","/w","--config","/p/speccoder.toml","mcp"]"#,
                r#"mcp_servers.speccoder.default_tools_approval_mode="approve""#,
                "mcp_servers.speccoder.startup_timeout_sec=60",
                "mcp_servers.speccoder.tool_timeout_sec=3660",
                r#"mcp_servers.speccoder.env_vars=["XDG_STATE_HOME","GOCACHE"]"#,
            ]
        );
        // The table is TOML a person can paste: it reads back as the same settings.
        let table: toml::Table =
            toml::from_str(&server.codex_table(Path::new("/w"))).expect("toml");
        let entry = &table["mcp_servers"]["speccoder"];
        assert_eq!(
            entry["default_tools_approval_mode"].as_str(),
            Some("approve")
        );
        assert_eq!(entry["tool_timeout_sec"].as_integer(), Some(3660));
        assert_eq!(
            entry["env_vars"].as_array().map(Vec::len),
            Some(2),
            "{entry:?}"
        );
        let bare = RecipeServer {
            program: PathBuf::from("speccoder"),
            config: None,
            env_vars: Vec::new(),
        };
        assert_eq!(bare.args(Path::new("/w")), ["-C", "/w", "mcp"]);
        assert!(
            !bare
                .codex_overrides(Path::new("/w"))
                .iter()
                .any(|o| o.contains("env_vars")),
            "no empty list: Codex would read it as a setting"
        );
    }

    #[test]
    fn the_server_gets_its_state_folder_and_the_toolchains_but_no_secrets() {
        let present = [
            "HOME",
            "PATH",
            "SPECCODER_CACHE_DIR",
            "GOCACHE",
            "GITHUB_TOKEN",
            "OPENAI_API_KEY",
            "BAD NAME",
        ];
        let toolchain = |name: &str| name.starts_with("GO") || name == "BAD NAME";
        assert_eq!(
            server_env_vars(present.into_iter(), toolchain),
            ["GOCACHE", "SPECCODER_CACHE_DIR", "TMPDIR", "XDG_STATE_HOME"]
        );
    }
}
