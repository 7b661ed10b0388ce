//! The one tool, `recipe`: its definition (description = the recipe prompt), its arguments,
//! and its results.

use serde_json::{Value, json};

use crate::recipe::{RunResult, TIMEOUT_RANGE};

/// The tool's name; an agent sees it as `mcp__speccoder__recipe`.
pub(crate) const TOOL_NAME: &str = "recipe";

/// The tool as `tools/list` gives it: the prompt as its description, and an input schema
/// whose descriptions carry the prompt's op examples.
pub(crate) fn definition(prompt: &str, default_timeout: u64) -> Value {
    json!({
        "name": TOOL_NAME,
        "description": prompt,
        "inputSchema": {
            "type": "object",
            "properties": {
                "op": {"type": "string", "description": op_description(prompt)},
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
    Ok(Arguments { op, timeout })
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
