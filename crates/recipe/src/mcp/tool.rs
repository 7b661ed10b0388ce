//! The one tool, `recipe`: its definition (description = the recipe prompt), its arguments,
//! and its results.

use serde_json::{Value, json};

use crate::{RunResult, TIMEOUT_RANGE};

/// The tool's name; an agent sees it as `mcp__speccoder__recipe`.
pub(crate) const TOOL_NAME: &str = "recipe";

/// The tools of background jobs.
pub(crate) const JOBS_TOOL: &str = "recipe_jobs";
pub(crate) const OUTPUT_TOOL: &str = "recipe_output";
pub(crate) const STOP_TOOL: &str = "recipe_stop";

/// Task names that look like a server or a watcher, for the background example.
const LONG_RUNNING: &[&str] = &["dev", "serve", "start", "watch", "server", "preview"];

/// A task of the prompt that looks long-running (`dev`, `serve`, …), written as the prompt
/// writes it (`` `dev` ``), if one is there.
fn long_running_example(prompt: &str) -> Option<&'static str> {
    LONG_RUNNING
        .iter()
        .copied()
        .find(|name| prompt.contains(&format!("`{name}`")) || prompt.contains(&format!("`{name} ")))
}

/// What the recipe tool's description adds about background jobs.
fn background_paragraph(prompt: &str) -> String {
    let op = long_running_example(prompt).unwrap_or("dev");
    format!(
        "Long-running tasks (a dev server, a watcher, a long build): call with `\"background\": true`. The call answers at once with a job id, or, with `\"ready\"` (a regular expression), once the task's output matches it, with the output so far. Work against it with other calls meanwhile, read its output with `{OUTPUT_TOOL}`, list jobs with `{JOBS_TOOL}`, and stop it with `{STOP_TOOL}` when done; every job is stopped when this server exits. Example: `{{\"op\": \"{op}\", \"background\": true, \"ready\": \"[Ll]istening|ready|Serving\"}}`."
    )
}

/// The schema of the recipe tool's `structuredContent`: the `recipe run --json` object of a
/// run, or, for a background start, the job's summary. Nothing is required, so that one
/// schema holds both; a result with `isError` for an op that ran nothing has none.
fn output_schema() -> Value {
    let nullable =
        |kind: &str, description: &str| json!({"type": [kind, "null"], "description": description});
    let of = |kind: &str, description: &str| json!({"type": kind, "description": description});
    json!({
        "type": "object",
        "properties": {
            "runner": of("string", "The runner's id."),
            "task": of("string", "The task's name."),
            "command": of("string", "The command that ran."),
            "cwd": nullable("string", "Where it ran, relative to the project root; null for the root."),
            "exit_code": nullable("integer", "Its exit code, when it exited."),
            "signal": nullable("integer", "The signal that ended it, when one did."),
            "timed_out": of("boolean", "Whether its deadline passed."),
            "stopped": of("boolean", "Whether it was stopped on request (`recipe_stop`, or this server's exit) before its deadline."),
            "duration_ms": of("integer", "How long it took."),
            "output": of("string", "The output, cut in the middle when long."),
            "truncated": of("boolean", "Whether the output was cut."),
            "full_output": nullable("string", "The file holding the whole output, when it was cut."),
            "timeout_secs": of("integer", "The deadline in seconds."),
            "note": nullable("string", "Set when the requested deadline was out of range, or when the full output went to the temporary folder because the state folder could not be used; both, joined by a space, when both apply."),
            "job": of("string", "A background job's id."),
            "op": of("string", "A background job's op."),
            "state": of("string", "A background job's state: running, exited, timed_out or stopped."),
            "seconds": of("number", "A background job's seconds so far."),
            "output_bytes": of("integer", "A background job's bytes of output so far."),
            "ready": of("boolean", "Whether the job's output matched `ready`."),
            "next": of("integer", "The offset `recipe_output` reads from next."),
        },
    })
}

/// The three tools of background jobs.
pub(crate) fn job_definitions() -> Vec<Value> {
    let job = json!({"type": "string", "description": "The job id a background call answered with (`job-1`)."});
    vec![
        json!({
            "name": JOBS_TOOL,
            "title": "Background jobs",
            "description": "Lists every background job of this session: id, op, state (running, exited, timed_out, stopped), exit code or signal, seconds, bytes of output.",
            "inputSchema": {"type": "object", "properties": {}, "additionalProperties": false},
            "annotations": annotations(true),
        }),
        json!({
            "name": OUTPUT_TOOL,
            "title": "A background job's output",
            "description": format!("A background job's output from byte `since` (0 when left out), at most {} KiB a call, with the offset to ask from next and the job's state. Pages join exactly: ask again from the `next` it gives.", super::jobs::MAX_PAGE >> 10),
            "inputSchema": {
                "type": "object",
                "properties": {
                    "job": job,
                    "since": {"type": "integer", "minimum": 0, "description": "The byte offset to read from: 0, or the `next` of the last answer."},
                },
                "required": ["job"],
                "additionalProperties": false,
            },
            "annotations": annotations(true),
        }),
        json!({
            "name": STOP_TOOL,
            "title": "Stop a background job",
            "description": "Stops a background job and everything it started (TERM, a grace, then KILL), and answers with how it ended and the end of its output: stopped, or timed_out or exited when it had already ended.",
            "inputSchema": {
                "type": "object",
                "properties": {"job": job},
                "required": ["job"],
                "additionalProperties": false,
            },
            "annotations": annotations(false),
        }),
    ]
}

/// A tool's annotations: whether it only reads (Codex runs a tool marked read-only
/// without asking; under `codex exec`'s approval policy `never`, any other tool needs the
/// server's tools approved), and that it reaches nothing outside the project's tasks.
fn annotations(read_only: bool) -> Value {
    json!({"readOnlyHint": read_only, "openWorldHint": false})
}

/// The tool as `tools/list` gives it: the prompt as its description, and an input schema
/// whose descriptions carry the prompt's op examples.
pub(crate) fn definition(prompt: &str, default_timeout: u64) -> Value {
    json!({
        "name": TOOL_NAME,
        "title": "Run a project task",
        "annotations": annotations(false),
        // Claude Code defers MCP tools behind its tool search, showing the model the name
        // alone; the description is the whole prompt (the tasks, the op syntax), so it
        // asks to be loaded up front.
        "_meta": {"anthropic/alwaysLoad": true},
        "outputSchema": output_schema(),
        "description": format!("{}\n\n{}\n", prompt.trim_end(), background_paragraph(prompt)),
        "inputSchema": {
            "type": "object",
            "properties": {
                "op": {"type": "string", "description": op_description(prompt)},
                "background": {
                    "type": "boolean",
                    "description": "Run as a background job (a server, a watcher): the call answers with a job id instead of waiting for the end.",
                },
                "ready": {
                    "type": "string",
                    "description": "With `background`: a regular expression; the call answers once the job's output matches it (or `ready_secs` pass, or the job ends).",
                },
                "ready_secs": {
                    "type": "integer",
                    "minimum": 0,
                    "maximum": 600,
                    "description": "With `ready`: how long to wait for it at most (default 30).",
                },
                "timeout": {
                    "type": "integer",
                    "minimum": TIMEOUT_RANGE.start(),
                    "maximum": TIMEOUT_RANGE.end(),
                    "description": format!(
                        "Deadline in seconds ({}-{}, default {default_timeout}). At the \
                         deadline the task and everything it started are stopped.",
                        TIMEOUT_RANGE.start(),
                        TIMEOUT_RANGE.end()
                    ),
                },
            },
            "required": ["op"],
            "additionalProperties": false,
        },
    })
}

/// The `op` property's description: what an op is, then the prompt's own "How to use it"
/// bullets, which hold the examples that fit this project's runners.
fn op_description(prompt: &str) -> String {
    let mut text = String::from("The task to run: its name, then any arguments, as one string.");
    let how = prompt
        .lines()
        .skip_while(|line| !line.starts_with("How to use it"))
        .skip(1)
        .take_while(|line| !line.trim().is_empty());
    for line in how {
        text.push('\n');
        text.push_str(line);
    }
    text
}

/// A call's arguments.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Arguments {
    /// The op.
    pub op: String,
    /// The deadline in seconds, when given.
    pub timeout: Option<u64>,
    /// Whether to run it as a background job.
    pub background: bool,
    /// The pattern that says a background job is ready.
    pub ready: Option<String>,
    /// How long to wait for `ready`.
    pub ready_secs: Option<u64>,
}

/// Reads a call's arguments; the error is a text for the model, which can then correct
/// its call.
pub(crate) fn arguments(args: &Value) -> Result<Arguments, String> {
    let op = match args.get("op") {
        Some(Value::String(op)) if !op.trim().is_empty() => op.clone(),
        Some(Value::String(_)) => return Err("`op` is empty: give a task name.".into()),
        Some(other) => {
            return Err(format!(
                "`op` must be a string (the task name, then its arguments), not {other}."
            ));
        }
        None => return Err("`op` is required: the task name, then its arguments.".into()),
    };
    let timeout = match args.get("timeout") {
        None | Some(Value::Null) => None,
        // Models sometimes send a number as a string or as `30.0`; the meaning is plain.
        Some(value) => Some(
            value
                .as_u64()
                .or_else(|| value.as_str().and_then(|s| s.trim().parse().ok()))
                .or_else(|| {
                    value
                        .as_f64()
                        .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= u64::MAX as f64)
                        .map(|f| f as u64)
                })
                .ok_or_else(|| {
                    format!("`timeout` must be a whole number of seconds, not {value}.")
                })?,
        ),
    };
    let background = match args.get("background") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => return Err(format!("`background` must be true or false, not {other}.")),
    };
    let ready = match args.get("ready") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => {
            return Err(format!(
                "`ready` must be a regular expression as a string, not {other}."
            ));
        }
    };
    let ready_secs = match args.get("ready_secs") {
        None | Some(Value::Null) => None,
        Some(value) => Some(value.as_u64().ok_or_else(|| {
            format!("`ready_secs` must be a whole number of seconds, not {value}.")
        })?),
    };
    if !background && (ready.is_some() || ready_secs.is_some()) {
        return Err("`ready` and `ready_secs` go with `\"background\": true`.".into());
    }
    Ok(Arguments {
        op,
        timeout,
        background,
        ready,
        ready_secs,
    })
}

/// The `job` of a jobs tool's arguments.
pub(crate) fn job_argument(args: &Value) -> Result<&str, String> {
    match args.get("job") {
        Some(Value::String(job)) => Ok(job),
        Some(other) => Err(format!(
            "`job` must be a job id such as `job-1`, not {other}."
        )),
        None => Err("`job` is required: the id a background call answered with.".into()),
    }
}

/// `recipe_output`'s `since`: 0 when left out, else a byte offset.
pub(crate) fn since_argument(args: &Value) -> Result<u64, String> {
    match args.get("since") {
        None | Some(Value::Null) => Ok(0),
        Some(value) => value.as_u64().ok_or_else(|| {
            format!(
                "`since` must be a byte offset (0, or the `next` of the last answer), not {value}."
            )
        }),
    }
}

/// The result of a run: the text `recipe run` prints, `isError` unless it exited 0 in
/// time, and the `recipe run --json` object.
pub(crate) fn run_result(result: &RunResult) -> Value {
    json!({
        "content": [{"type": "text", "text": result.printed_text()}],
        "structuredContent": result,
        "isError": !result.success(),
    })
}

/// The result of a call that ran nothing (an op that does not resolve, say).
pub(crate) fn error_result(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}], "isError": true})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_reference_cases() {
        #[track_caller]
        fn case(args: Value, want: Result<(&str, Option<u64>), &str>) {
            let got = arguments(&args);
            let want = want
                .map(|(op, timeout)| Arguments {
                    op: op.to_owned(),
                    timeout,
                    background: false,
                    ready: None,
                    ready_secs: None,
                })
                .map_err(str::to_owned);
            assert_eq!(got, want, "{args}");
        }
        case(json!({"op": "test"}), Ok(("test", None)));
        case(
            json!({"op": "build --release", "timeout": 30}),
            Ok(("build --release", Some(30))),
        );
        case(json!({"op": "t", "timeout": "30"}), Ok(("t", Some(30))));
        case(json!({"op": "t", "timeout": 30.0}), Ok(("t", Some(30))));
        case(json!({"op": "t", "timeout": null}), Ok(("t", None)));
        case(
            json!({}),
            Err("`op` is required: the task name, then its arguments."),
        );
        case(json!({"op": " "}), Err("`op` is empty: give a task name."));
        case(
            json!({"op": ["test"]}),
            Err("`op` must be a string (the task name, then its arguments), not [\"test\"]."),
        );
        case(
            json!({"op": "t", "timeout": -1}),
            Err("`timeout` must be a whole number of seconds, not -1."),
        );
        case(
            json!({"op": "t", "timeout": 1.5}),
            Err("`timeout` must be a whole number of seconds, not 1.5."),
        );
    }

    #[test]
    fn op_description_carries_the_how_to_bullets() {
        let prompt = "Runs tasks.\n\nHow to use it:\n- `op` is one string. Examples: `test`.\n\
                      - Put `pkg:` first.\n\n<runner id=\"make\">\n- `x`\n</runner>\n";
        assert_eq!(
            op_description(prompt),
            "The task to run: its name, then any arguments, as one string.\n\
             - `op` is one string. Examples: `test`.\n- Put `pkg:` first."
        );
    }
}
