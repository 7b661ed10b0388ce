//! JSON-RPC 2.0 over newline-delimited stdio: reading bounded lines, telling requests,
//! notifications and responses apart, and the messages the server writes.

use std::io::{BufRead, ErrorKind};

use serde_json::{Map, Value, json};

/// The line is not JSON.
pub(crate) const PARSE_ERROR: i64 = -32700;
/// The line is JSON but not a JSON-RPC message, or is too long.
pub(crate) const INVALID_REQUEST: i64 = -32600;
/// The method is not one the server has.
pub(crate) const METHOD_NOT_FOUND: i64 = -32601;
/// The method's parameters are wrong (an unknown tool, say).
pub(crate) const INVALID_PARAMS: i64 = -32602;

/// The longest message read; a longer line is answered with an error and skipped, so a
/// client cannot make the server hold an unbounded line in memory.
pub(crate) const MAX_LINE_BYTES: usize = 4 * 1024 * 1024;

/// What reading one line gave.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Line {
    /// A line, now in the buffer (without its newline).
    Text,
    /// A line longer than the limit, of this many bytes; it was skipped.
    TooLong(usize),
    /// The input is closed.
    Eof,
}

/// Reads one line into `buf`, keeping at most `max` bytes in memory.
pub(crate) fn read_line(
    input: &mut dyn BufRead,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<Line> {
    buf.clear();
    let mut len = 0usize;
    let mut too_long = false;
    loop {
        let available = match input.fill_buf() {
            Ok(bytes) => bytes,
            Err(err) if err.kind() == ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        if available.is_empty() {
            // A last line without its newline still counts as a line.
            return Ok(match (len, too_long) {
                (0, _) => Line::Eof,
                (_, true) => Line::TooLong(len),
                (_, false) => Line::Text,
            });
        }
        let newline = available.iter().position(|&b| b == b'\n');
        let chunk = &available[..newline.unwrap_or(available.len())];
        len += chunk.len();
        if !too_long {
            if buf.len() + chunk.len() > max {
                too_long = true;
                *buf = Vec::new();
            } else {
                buf.extend_from_slice(chunk);
            }
        }
        let used = chunk.len() + usize::from(newline.is_some());
        input.consume(used);
        if newline.is_some() {
            return Ok(if too_long {
                Line::TooLong(len)
            } else {
                Line::Text
            });
        }
    }
}

/// One message read from the client.
#[derive(Debug, PartialEq)]
pub(crate) enum Incoming {
    /// A call that wants an answer.
    Request {
        /// Its id, echoed in the answer.
        id: Value,
        /// The method.
        method: String,
        /// Its parameters (`null` when absent).
        params: Value,
    },
    /// A message that wants no answer.
    Notification {
        /// The method.
        method: String,
        /// Its parameters (`null` when absent).
        params: Value,
    },
    /// An answer to something the server asked (it asks nothing, so these are dropped).
    Response,
    /// Not a message: answered with this error.
    Invalid {
        /// The id when one could be read, else `null`.
        id: Value,
        /// The JSON-RPC error code.
        code: i64,
        /// What is wrong.
        message: String,
    },
}

/// Reads one line as a message.
pub(crate) fn classify(line: &[u8]) -> Incoming {
    let invalid = |id: Value, code, message: String| Incoming::Invalid { id, code, message };
    let value: Value = match serde_json::from_slice(line) {
        Ok(value) => value,
        Err(err) => return invalid(Value::Null, PARSE_ERROR, format!("Parse error: {err}")),
    };
    let Value::Object(mut object) = value else {
        let what = if value.is_array() {
            "Invalid Request: batches are not supported"
        } else {
            "Invalid Request: a message is a JSON object"
        };
        return invalid(Value::Null, INVALID_REQUEST, what.to_owned());
    };
    let id = object.remove("id");
    // An id that is not a string or a number cannot be echoed faithfully.
    let echo = match &id {
        Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
        _ => Value::Null,
    };
    if object.get("jsonrpc") != Some(&Value::String("2.0".into())) {
        return invalid(
            echo,
            INVALID_REQUEST,
            "Invalid Request: `jsonrpc` must be \"2.0\"".into(),
        );
    }
    let params = object.remove("params").unwrap_or(Value::Null);
    match (object.remove("method"), id) {
        (Some(Value::String(method)), None) => Incoming::Notification { method, params },
        (Some(Value::String(method)), Some(Value::String(_) | Value::Number(_))) => {
            Incoming::Request {
                id: echo,
                method,
                params,
            }
        }
        (Some(Value::String(_)), Some(_)) => invalid(
            Value::Null,
            INVALID_REQUEST,
            "Invalid Request: `id` must be a string or a number".into(),
        ),
        (Some(_), _) => invalid(
            echo,
            INVALID_REQUEST,
            "Invalid Request: `method` must be a string".into(),
        ),
        (None, Some(_)) if object.contains_key("result") || object.contains_key("error") => {
            Incoming::Response
        }
        (None, _) => invalid(echo, INVALID_REQUEST, "Invalid Request: no `method`".into()),
    }
}

/// The answer to request `id`.
pub(crate) fn response(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// The error answer to request `id` (`null` when it has none).
pub(crate) fn error(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// A notification to the client.
pub(crate) fn notification(method: &str, params: Option<Map<String, Value>>) -> Value {
    match params {
        Some(params) => json!({"jsonrpc": "2.0", "method": method, "params": params}),
        None => json!({"jsonrpc": "2.0", "method": method}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_bounded() {
        #[track_caller]
        fn case(input: &str, max: usize, want: &[(Line, &str)]) {
            let mut reader = std::io::BufReader::with_capacity(4, input.as_bytes());
            let mut buf = Vec::new();
            for (line, text) in want {
                let got = read_line(&mut reader, &mut buf, max).expect("reads");
                assert_eq!(
                    (&got, String::from_utf8_lossy(&buf).as_ref()),
                    (line, *text)
                );
            }
        }
        case(
            "ab\ncdefgh\n\nxy",
            4,
            &[
                (Line::Text, "ab"),
                (Line::TooLong(6), ""),
                (Line::Text, ""),
                (Line::Text, "xy"),
                (Line::Eof, ""),
            ],
        );
        case("abcdefgh", 4, &[(Line::TooLong(8), ""), (Line::Eof, "")]);
        case("", 4, &[(Line::Eof, "")]);
    }

    #[test]
    fn messages_are_told_apart() {
        #[track_caller]
        fn case(line: &str, want: Incoming) {
            assert_eq!(classify(line.as_bytes()), want, "{line}");
        }
        let invalid = |id: Value, code, message: &str| Incoming::Invalid {
            id,
            code,
            message: message.to_owned(),
        };
        case(
            r#"{"jsonrpc":"2.0","id":"probe-1","method":"server/discover","params":{}}"#,
            Incoming::Request {
                id: json!("probe-1"),
                method: "server/discover".into(),
                params: json!({}),
            },
        );
        case(
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            Incoming::Notification {
                method: "notifications/initialized".into(),
                params: Value::Null,
            },
        );
        case(
            r#"{"jsonrpc":"2.0","id":3,"result":{}}"#,
            Incoming::Response,
        );
        case(
            "not json",
            invalid(
                Value::Null,
                PARSE_ERROR,
                "Parse error: expected ident at line 1 column 2",
            ),
        );
        case(
            "[1]",
            invalid(
                Value::Null,
                INVALID_REQUEST,
                "Invalid Request: batches are not supported",
            ),
        );
        case(
            r#"{"id":1,"method":"ping"}"#,
            invalid(
                json!(1),
                INVALID_REQUEST,
                "Invalid Request: `jsonrpc` must be \"2.0\"",
            ),
        );
        case(
            r#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#,
            invalid(
                Value::Null,
                INVALID_REQUEST,
                "Invalid Request: `id` must be a string or a number",
            ),
        );
        case(
            r#"{"jsonrpc":"2.0","id":2,"method":7}"#,
            invalid(
                json!(2),
                INVALID_REQUEST,
                "Invalid Request: `method` must be a string",
            ),
        );
        case(
            r#"{"jsonrpc":"2.0","id":2}"#,
            invalid(json!(2), INVALID_REQUEST, "Invalid Request: no `method`"),
        );
    }
}
