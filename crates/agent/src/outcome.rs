//! Turning what an agent printed into completed, blocked or failed.

use serde::Serialize;
use serde_json::Value;

use speccoder_config::ExecutorKind;

/// Characters of the message kept as the summary.
const SUMMARY_CHARS: usize = 2000;
/// Characters of a failure reason.
const REASON_CHARS: usize = 500;

/// How an attempt ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The agent says it did the task.
    Completed,
    /// The agent says the task cannot be done as written.
    Blocked,
    /// The agent failed, ran past its deadline, or could not start.
    Failed,
}

impl Status {
    /// The CLI's exit code: 0 completed, 1 failed, 3 blocked.
    pub fn exit_code(self) -> u8 {
        match self {
            Self::Completed => 0,
            Self::Failed => 1,
            Self::Blocked => 3,
        }
    }
}

/// Token counts and cost, as Claude reports them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Usage {
    /// Input tokens, cached ones included.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Input tokens read from the cache.
    pub cache_read_tokens: u64,
    /// Input tokens written to the cache.
    pub cache_write_tokens: u64,
    /// Cost in US dollars, when reported.
    pub cost_usd: Option<f64>,
}

/// The report of a completed attempt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Report {
    /// The start of the agent's final message.
    pub summary: String,
    /// Always `done`.
    pub status: String,
    /// Left for the verifier to fill from the diff.
    pub files_changed: Vec<String>,
    /// Left for the verifier.
    pub checks_run: Vec<String>,
    /// Where the report comes from.
    pub notes: Vec<String>,
}

/// The outcome of one attempt, as `agent run` prints it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Outcome {
    /// `external_<kind>_<unix seconds>_<unique suffix>`.
    pub run_id: String,
    /// How it ended.
    pub status: Status,
    /// The report, when completed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report: Option<Report>,
    /// Why, when blocked or failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Always empty: the agent's own tool calls are not seen.
    pub tool_calls: Vec<Value>,
    /// Token counts, when the agent reports them.
    pub usage: Option<Usage>,
    /// The tool calls the agent's CLI refused, when it reports them (Claude).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permission_denials: Option<Denials>,
}

/// The tool calls an agent's CLI refused by its permission rules.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Denials {
    /// How many calls were refused.
    pub count: usize,
    /// The refused tools' names, each once, in the order first refused.
    pub tools: Vec<String>,
    /// The refused shell commands, each once (at most 20, each cut to 200
    /// characters), so the next attempt knows what not to run again.
    pub commands: Vec<String>,
}

/// Refused shell commands kept in an outcome.
const MAX_DENIED_COMMANDS: usize = 20;
/// Characters of a refused command kept.
const DENIED_COMMAND_CHARS: usize = 200;

impl Denials {
    /// Reads Claude's `permission_denials`: `[{"tool_name": …, "tool_input": {…}}, …]`.
    fn from_claude(list: &[Value]) -> Self {
        let mut out = Self {
            count: list.len(),
            ..Self::default()
        };
        for denial in list {
            let tool = denial
                .get("tool_name")
                .and_then(Value::as_str)
                .unwrap_or("(unnamed)");
            if !out.tools.iter().any(|t| t == tool) {
                out.tools.push(first_chars(tool, DENIED_COMMAND_CHARS));
            }
            if let Some(command) = denial
                .get("tool_input")
                .and_then(|input| input.get("command"))
                .and_then(Value::as_str)
            {
                let command = first_chars(command.trim(), DENIED_COMMAND_CHARS);
                if out.commands.len() < MAX_DENIED_COMMANDS && !out.commands.contains(&command) {
                    out.commands.push(command);
                }
            }
        }
        out
    }
}

/// What a finished agent left behind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finished {
    /// Which agent.
    pub kind: ExecutorKind,
    /// Its exit code, or `None` when a signal ended it.
    pub exit_code: Option<i32>,
    /// Its stdout.
    pub stdout: String,
    /// Its stderr.
    pub stderr: String,
    /// Codex's last-message file, when it holds anything.
    pub last_message: Option<String>,
}

/// Interprets a finished attempt: exit code, then `BLOCKED:`, then `FAILED:`, else completed.
pub fn interpret(run_id: String, finished: &Finished) -> Outcome {
    let Read {
        message,
        usage,
        denials,
    } = match message_and_usage(finished) {
        Ok(read) => read,
        // Exit 0 with output that is not Claude's JSON: nothing says the task was done.
        Err(why) if finished.exit_code == Some(0) => {
            return failed(
                run_id,
                first_chars(
                    &format!("the agent's output was not valid JSON: {why}"),
                    REASON_CHARS,
                ),
            );
        }
        Err(_) => Read {
            message: finished.stdout.clone(),
            ..Read::default()
        },
    };
    let message = message.trim();
    let summary = first_chars(message, SUMMARY_CHARS);
    let outcome = |status, report, reason| Outcome {
        run_id: run_id.clone(),
        status,
        report,
        reason,
        tool_calls: Vec::new(),
        usage: usage.clone(),
        permission_denials: denials.clone(),
    };
    if finished.exit_code != Some(0) {
        let how = finished
            .exit_code
            .map_or_else(|| "by signal".to_owned(), |c| c.to_string());
        let text = if finished.stdout.trim().is_empty() {
            last_lines(&finished.stderr, 5)
        } else {
            summary.clone()
        };
        let reason = format!(
            "the agent exited {how}: {}",
            first_chars(&text, REASON_CHARS)
        );
        return outcome(Status::Failed, None, Some(reason));
    }
    // A blank message with a verdict on stderr's last line: an agent that says it could not
    // do the task must not pass as completed with an empty summary.
    let stderr_verdict = (message.is_empty() && finished.kind != ExecutorKind::Claude)
        .then(|| last_lines(&finished.stderr, 1))
        .filter(|line| line.starts_with("BLOCKED:") || line.starts_with("FAILED:"));
    let (message, summary) = match &stderr_verdict {
        Some(line) => (line.as_str(), first_chars(line, SUMMARY_CHARS)),
        None => (message, summary),
    };
    if let Some(rest) = message.strip_prefix("BLOCKED:") {
        return outcome(Status::Blocked, None, Some(rest.trim().to_owned()));
    }
    if message.starts_with("FAILED:") {
        return outcome(Status::Failed, None, Some(summary));
    }
    let report = Report {
        summary,
        status: "done".into(),
        files_changed: Vec::new(),
        checks_run: Vec::new(),
        notes: vec!["external executor".into()],
    };
    outcome(Status::Completed, Some(report), None)
}

/// The outcome of an attempt that never produced a result.
pub(crate) fn failed(run_id: String, reason: String) -> Outcome {
    Outcome {
        run_id,
        status: Status::Failed,
        report: None,
        reason: Some(reason),
        tool_calls: Vec::new(),
        usage: None,
        permission_denials: None,
    }
}

/// What an agent's output says: its final message, usage and refused calls.
#[derive(Debug, Default)]
struct Read {
    message: String,
    usage: Option<Usage>,
    denials: Option<Denials>,
}

/// The agent's final message and usage; for Claude, an error when its stdout is not its
/// JSON result.
fn message_and_usage(finished: &Finished) -> Result<Read, String> {
    Ok(match finished.kind {
        ExecutorKind::Claude => claude_message(&finished.stdout)?,
        ExecutorKind::Codex => Read {
            message: finished
                .last_message
                .clone()
                .filter(|m| !m.trim().is_empty())
                .unwrap_or_else(|| finished.stdout.clone()),
            ..Read::default()
        },
        ExecutorKind::Command => Read {
            message: finished.stdout.clone(),
            ..Read::default()
        },
    })
}

/// Claude's `--output-format json` result: the message, usage and refused calls, or why
/// stdout is not that JSON object (the parser's error and the start of stdout). `subtype`
/// alone never decides: Claude says "success" even when `is_error` is true. When Claude
/// stops on a limit (`--max-turns`, `--max-budget-usd`) its JSON has no `result`: the
/// reason is then its `errors`, else its `subtype`.
fn claude_message(stdout: &str) -> Result<Read, String> {
    let start = || {
        let start = first_chars(stdout.trim(), 200);
        if start.is_empty() {
            "(no output)".to_owned()
        } else {
            format!("{start:?}")
        }
    };
    let result = match serde_json::from_str::<Value>(stdout.trim()) {
        Ok(Value::Object(result)) => result,
        Ok(_) => return Err(format!("not a JSON object: {}", start())),
        Err(err) => return Err(format!("{err}: {}", start())),
    };
    let text = result
        .get("result")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let message = if result.get("is_error").and_then(Value::as_bool) == Some(true) {
        let text = text.trim();
        let why = if text.is_empty() {
            claude_error(&result)
        } else {
            text.to_owned()
        };
        format!("FAILED: {why}")
    } else {
        text
    };
    let usage = result.get("usage");
    let count = |key: &str| {
        usage
            .and_then(|u| u.get(key))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    let cache_read = count("cache_read_input_tokens");
    let cache_write = count("cache_creation_input_tokens");
    let usage = Usage {
        input_tokens: count("input_tokens") + cache_read + cache_write,
        output_tokens: count("output_tokens"),
        cache_read_tokens: cache_read,
        cache_write_tokens: cache_write,
        cost_usd: result.get("total_cost_usd").and_then(Value::as_f64),
    };
    let denials = result
        .get("permission_denials")
        .and_then(Value::as_array)
        .filter(|list| !list.is_empty())
        .map(|list| Denials::from_claude(list));
    Ok(Read {
        message,
        usage: Some(usage),
        denials,
    })
}

/// Why Claude stopped with an error and no `result`: its `errors`, joined, then its
/// `subtype` (`error_max_turns`, `error_max_budget_usd`).
fn claude_error(result: &serde_json::Map<String, Value>) -> String {
    let errors: Vec<String> = result
        .get("errors")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|e| match e {
            Value::String(text) => Some(text.trim().to_owned()),
            Value::Null => None,
            other => Some(other.to_string()),
        })
        .filter(|text| !text.is_empty())
        .collect();
    let subtype = result
        .get("subtype")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty() && *s != "success");
    match (errors.is_empty(), subtype) {
        (false, Some(subtype)) => format!("{} ({subtype})", errors.join("; ")),
        (false, None) => errors.join("; "),
        (true, Some(subtype)) => format!("the agent stopped with `{subtype}`"),
        (true, None) => "the agent reported an error".to_owned(),
    }
}

fn first_chars(text: &str, n: usize) -> String {
    text.chars().take(n).collect()
}

/// The last `n` non-blank lines of `text`, trimmed and joined by ` | `.
fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    lines[lines.len().saturating_sub(n)..].join(" | ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finished(kind: ExecutorKind, code: Option<i32>, stdout: &str, stderr: &str) -> Finished {
        Finished {
            kind,
            exit_code: code,
            stdout: stdout.into(),
            stderr: stderr.into(),
            last_message: None,
        }
    }

    fn outcome(f: &Finished) -> Outcome {
        interpret("id".into(), f)
    }

    #[test]
    fn claude_completed_with_usage() {
        let out = outcome(&finished(
            ExecutorKind::Claude,
            Some(0),
            r#"{"type":"result","is_error":false,"result":"Implemented add.","total_cost_usd":0.01,"usage":{"input_tokens":10,"cache_read_input_tokens":90,"output_tokens":5}}"#,
            "",
        ));
        assert_eq!(out.status, Status::Completed);
        assert_eq!(
            out.usage,
            Some(Usage {
                input_tokens: 100,
                output_tokens: 5,
                cache_read_tokens: 90,
                cache_write_tokens: 0,
                cost_usd: Some(0.01),
            })
        );
        let report = out.report.expect("report");
        assert_eq!(report.summary, "Implemented add.");
        assert_eq!(report.status, "done");
        assert_eq!(report.notes, ["external executor"]);
    }

    #[test]
    fn claude_blocked() {
        let out = outcome(&finished(
            ExecutorKind::Claude,
            Some(0),
            r#"{"is_error":false,"result":"BLOCKED: the test asserts 2+2=5"}"#,
            "",
        ));
        assert_eq!(out.status, Status::Blocked);
        assert_eq!(out.reason.as_deref(), Some("the test asserts 2+2=5"));
        assert_eq!(out.usage.as_ref().map(|u| u.cost_usd), Some(None));
    }

    #[test]
    fn claude_error_and_not_logged_in() {
        let out = outcome(&finished(
            ExecutorKind::Claude,
            Some(1),
            r#"{"type":"result","subtype":"success","is_error":true,"result":"Not logged in · Please run /login"}"#,
            "",
        ));
        assert_eq!(out.status, Status::Failed);
        assert_eq!(
            out.reason.as_deref(),
            Some("the agent exited 1: FAILED: Not logged in · Please run /login")
        );
        let out = outcome(&finished(
            ExecutorKind::Claude,
            Some(0),
            r#"{"is_error":true}"#,
            "",
        ));
        assert_eq!(
            out.reason.as_deref(),
            Some("FAILED: the agent reported an error")
        );
        let out = outcome(&finished(ExecutorKind::Claude, Some(0), "plain words", ""));
        assert_eq!(
            (out.status, out.reason.as_deref(), out.usage),
            (
                Status::Failed,
                Some(
                    "the agent's output was not valid JSON: expected value at line 1 column 1: \
                     \"plain words\""
                ),
                None
            )
        );
        let out = outcome(&finished(ExecutorKind::Claude, Some(0), " \n", ""));
        assert_eq!(
            out.reason.as_deref(),
            Some(
                "the agent's output was not valid JSON: EOF while parsing a value at line 1 \
                 column 0: (no output)"
            )
        );
        let out = outcome(&finished(ExecutorKind::Claude, Some(0), "[1]", ""));
        assert_eq!(
            out.reason.as_deref(),
            Some("the agent's output was not valid JSON: not a JSON object: \"[1]\"")
        );
        // A failing exit keeps its own reason, with stdout as the message.
        let out = outcome(&finished(ExecutorKind::Claude, Some(2), "boom", ""));
        assert_eq!(out.reason.as_deref(), Some("the agent exited 2: boom"));
    }

    #[test]
    fn a_verdict_on_stderr_counts_when_stdout_is_blank() {
        let out = outcome(&finished(
            ExecutorKind::Command,
            Some(0),
            " \n",
            "working\nBLOCKED: the spec contradicts itself\n\n",
        ));
        assert_eq!(
            (out.status, out.reason.as_deref()),
            (Status::Blocked, Some("the spec contradicts itself"))
        );
        let out = outcome(&finished(
            ExecutorKind::Codex,
            Some(0),
            "",
            "FAILED: no key\n",
        ));
        assert_eq!(
            (out.status, out.reason.as_deref()),
            (Status::Failed, Some("FAILED: no key"))
        );
        // Only the last line, and only when stdout says nothing.
        let out = outcome(&finished(
            ExecutorKind::Command,
            Some(0),
            "",
            "BLOCKED: x\ndone\n",
        ));
        assert_eq!(out.status, Status::Completed);
        let out = outcome(&finished(
            ExecutorKind::Command,
            Some(0),
            "Did it.",
            "BLOCKED: x",
        ));
        assert_eq!(out.status, Status::Completed);
    }

    #[test]
    fn command_failures() {
        let out = outcome(&finished(ExecutorKind::Command, Some(2), "boom", ""));
        assert_eq!(out.status, Status::Failed);
        assert_eq!(out.reason.as_deref(), Some("the agent exited 2: boom"));
        let out = outcome(&finished(
            ExecutorKind::Command,
            Some(1),
            " \n",
            "one\n\ntwo\nthree\nfour\nfive\nsix\n",
        ));
        assert_eq!(
            out.reason.as_deref(),
            Some("the agent exited 1: two | three | four | five | six")
        );
        let out = outcome(&finished(ExecutorKind::Command, None, "", "killed"));
        assert_eq!(
            out.reason.as_deref(),
            Some("the agent exited by signal: killed")
        );
        let out = outcome(&finished(
            ExecutorKind::Command,
            Some(0),
            "FAILED: no luck",
            "",
        ));
        assert_eq!(
            (out.status, out.reason.as_deref()),
            (Status::Failed, Some("FAILED: no luck"))
        );
        let long = "x".repeat(3000);
        let out = outcome(&finished(ExecutorKind::Command, Some(9), &long, ""));
        assert_eq!(
            out.reason.map(|r| r.chars().count()),
            Some("the agent exited 9: ".len() + 500)
        );
    }

    #[test]
    fn codex_prefers_the_last_message_file() {
        let mut f = finished(ExecutorKind::Codex, Some(0), "stdout text", "");
        f.last_message = Some("BLOCKED:   needs a key  ".into());
        assert_eq!(outcome(&f).reason.as_deref(), Some("needs a key"));
        f.last_message = Some(String::new());
        assert_eq!(
            outcome(&f).report.map(|r| r.summary),
            Some("stdout text".into())
        );
    }

    #[test]
    fn outcome_json_shape() {
        let out = outcome(&finished(ExecutorKind::Command, Some(0), "done it", ""));
        let json = serde_json::to_value(&out).expect("json");
        assert_eq!(
            json,
            serde_json::json!({
                "run_id": "id",
                "status": "completed",
                "report": {"summary": "done it", "status": "done", "files_changed": [],
                           "checks_run": [], "notes": ["external executor"]},
                "tool_calls": [],
                "usage": null,
            })
        );
    }

    /// Claude 2.1 at `--max-budget-usd` or `--max-turns`: no `result`, the reason in
    /// `errors` and `subtype` (measured).
    #[test]
    fn claude_stopped_on_a_limit_says_which() {
        let out = outcome(&finished(
            ExecutorKind::Claude,
            Some(1),
            r#"{"type":"result","subtype":"error_max_budget_usd","is_error":true,"errors":["Reached maximum budget ($0.0002)"],"total_cost_usd":0.0003}"#,
            "",
        ));
        assert_eq!(out.status, Status::Failed);
        assert_eq!(
            out.reason.as_deref(),
            Some(
                "the agent exited 1: FAILED: Reached maximum budget ($0.0002) (error_max_budget_usd)"
            )
        );
        let out = outcome(&finished(
            ExecutorKind::Claude,
            Some(1),
            r#"{"type":"result","subtype":"error_max_turns","is_error":true}"#,
            "",
        ));
        assert_eq!(
            out.reason.as_deref(),
            Some("the agent exited 1: FAILED: the agent stopped with `error_max_turns`")
        );
    }

    #[test]
    fn claude_denials_are_counted_with_their_tools_and_commands() {
        let out = outcome(&finished(
            ExecutorKind::Claude,
            Some(0),
            r#"{"is_error":false,"result":"Done.","permission_denials":[
                {"tool_name":"Bash","tool_use_id":"a","tool_input":{"command":"curl http://x"}},
                {"tool_name":"WebFetch","tool_use_id":"b","tool_input":{"url":"http://x"}},
                {"tool_name":"Bash","tool_use_id":"c","tool_input":{"command":"curl http://x"}},
                {"tool_name":"Bash","tool_use_id":"d","tool_input":{"command":"rm -rf /"}}]}"#,
            "",
        ));
        assert_eq!(out.status, Status::Completed);
        assert_eq!(
            out.permission_denials,
            Some(Denials {
                count: 4,
                tools: vec!["Bash".into(), "WebFetch".into()],
                commands: vec!["curl http://x".into(), "rm -rf /".into()],
            })
        );
        let json = serde_json::to_value(&out).expect("json");
        assert_eq!(json["permission_denials"]["count"], 4);
        // None refused: no key at all.
        let clean = outcome(&finished(
            ExecutorKind::Claude,
            Some(0),
            r#"{"is_error":false,"result":"Done.","permission_denials":[]}"#,
            "",
        ));
        let json = serde_json::to_value(&clean).expect("json");
        assert!(json.get("permission_denials").is_none(), "{json}");
    }
}
