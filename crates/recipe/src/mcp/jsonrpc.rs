//! JSON-RPC 2.0 over newline-delimited stdio: reading bounded lines, telling requests,
//! notifications and responses apart, and the messages the server writes.

use std::collections::HashMap;
use std::io::{BufRead, ErrorKind};

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;

use super::id::Id;

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
        id: Id,
        /// The method.
        method: String,
        /// Its parameters (`null` when absent).
        params: Value,
        /// MCP's `params._meta.progressToken`, kept as written like the id.
        progress_token: Option<Id>,
    },
    /// A message that wants no answer.
    Notification {
        /// The method.
        method: String,
        /// Its parameters as JSON text (`null` when absent), read with [`member`]: a
        /// notification cannot be answered, so nothing in it may make it unreadable.
        params: String,
    },
    /// An answer to something the server asked (it asks nothing, so these are dropped).
    Response,
    /// Not a message: answered with this error.
    Invalid {
        /// The id when one could be read.
        id: Option<Id>,
        /// The JSON-RPC error code.
        code: i64,
        /// What is wrong.
        message: String,
    },
}

/// The members of a JSON object, each kept as its text, or `None` when `json` is not an
/// object. Only what is looked at is decoded, so a string the server cannot hold (a lone
/// surrogate) elsewhere in the message does not stop it from reading the id.
fn members(json: &str) -> Option<HashMap<String, &RawValue>> {
    serde_json::from_str(json).ok()
}

/// The member `name` of the JSON object `json`, as its text.
pub(crate) fn member<'a>(json: &'a str, name: &str) -> Option<&'a RawValue> {
    members(json)?.remove(name)
}

/// Decodes `raw`, a part of `line`, with an error that gives its column in the whole line.
fn decode<T: DeserializeOwned>(line: &str, raw: &RawValue) -> Result<T, String> {
    serde_json::from_str(raw.get()).map_err(|err| {
        let text = err.to_string();
        let position = format!(" at line {} column {}", err.line(), err.column());
        let what = text.strip_suffix(&position).unwrap_or(&text);
        // The part is a slice of the line (it was read without copying).
        let offset = (raw.get().as_ptr() as usize).saturating_sub(line.as_ptr() as usize);
        format!("{what} at column {}", offset + err.column())
    })
}

/// Reads one line as a message.
#[expect(
    clippy::too_many_lines,
    reason = "over 80 lines when the limit was set; split it when it next changes"
)]
pub(crate) fn classify(line: &[u8]) -> Incoming {
    let invalid = |id: Option<Id>, code, message: String| Incoming::Invalid { id, code, message };
    // Read as text kept verbatim: only the members looked at are decoded below.
    let raw: &RawValue = match serde_json::from_slice(line) {
        Ok(raw) => raw,
        Err(err) => return invalid(None, PARSE_ERROR, format!("Parse error: {err}")),
    };
    let text = raw.get();
    let object = match text.as_bytes().first() {
        Some(b'{') => members(text),
        _ => None,
    };
    let Some(mut object) = object else {
        let what = match text.as_bytes().first() {
            Some(b'[') => "Invalid Request: batches are not supported",
            Some(b'{') => "Invalid Request: a member name is not valid Unicode",
            _ => "Invalid Request: a message is a JSON object",
        };
        return invalid(None, INVALID_REQUEST, what.to_owned());
    };
    let given_id = object.remove("id");
    // An id that is not a string or a number cannot be echoed faithfully.
    let id = given_id.and_then(Id::new);
    let version = object.get("jsonrpc").map(|raw| decode::<Value>(text, raw));
    if !matches!(version, Some(Ok(Value::String(v))) if v == "2.0") {
        return invalid(
            id,
            INVALID_REQUEST,
            "Invalid Request: `jsonrpc` must be \"2.0\"".into(),
        );
    }
    let params = object.remove("params");
    let method = match object.remove("method") {
        None => None,
        Some(raw) if raw.get().starts_with('"') => match decode::<String>(text, raw) {
            Ok(method) => Some(method),
            Err(err) => {
                return invalid(
                    id,
                    INVALID_REQUEST,
                    format!("Invalid Request: `method`: {err}"),
                );
            }
        },
        Some(_) => {
            return invalid(
                id,
                INVALID_REQUEST,
                "Invalid Request: `method` must be a string".into(),
            );
        }
    };
    match (method, given_id, id) {
        (Some(method), None, _) => Incoming::Notification {
            method,
            params: params.map_or_else(|| "null".to_owned(), |raw| raw.get().to_owned()),
        },
        (Some(method), Some(_), Some(id)) => {
            let raw_params = params;
            let params = match params.map(|raw| decode::<Value>(text, raw)) {
                None => Value::Null,
                Some(Ok(params)) => params,
                Some(Err(err)) => {
                    return invalid(Some(id), INVALID_PARAMS, format!("Invalid params: {err}"));
                }
            };
            let progress_token = raw_params
                .and_then(|raw| member(raw.get(), "_meta"))
                .and_then(|meta| member(meta.get(), "progressToken"))
                .and_then(Id::new);
            Incoming::Request {
                id,
                method,
                params,
                progress_token,
            }
        }
        (Some(_), Some(_), None) => invalid(
            None,
            INVALID_REQUEST,
            "Invalid Request: `id` must be a string or a number".into(),
        ),
        (None, Some(_), _) if object.contains_key("result") || object.contains_key("error") => {
            Incoming::Response
        }
        (None, _, id) => invalid(id, INVALID_REQUEST, "Invalid Request: no `method`".into()),
    }
}
/// The answer to request `id`, as one line of JSON.
pub(crate) fn response(id: &Id, result: &Value) -> String {
    #[derive(Serialize)]
    struct Response<'a> {
        jsonrpc: &'static str,
        id: &'a Id,
        result: &'a Value,
    }
    line(&Response {
        jsonrpc: "2.0",
        id,
        result,
    })
}

/// The error answer to request `id` (`null` when it has none), as one line of JSON.
pub(crate) fn error(id: Option<&Id>, code: i64, message: &str) -> String {
    #[derive(Serialize)]
    struct ErrorResponse<'a> {
        jsonrpc: &'static str,
        id: Option<&'a Id>,
        error: ErrorObject<'a>,
    }
    #[derive(Serialize)]
    struct ErrorObject<'a> {
        code: i64,
        message: &'a str,
    }
    line(&ErrorResponse {
        jsonrpc: "2.0",
        id,
        error: ErrorObject { code, message },
    })
}

/// A notification to the client, as one line of JSON.
pub(crate) fn notification<P: Serialize>(method: &str, params: Option<&P>) -> String {
    #[derive(Serialize)]
    struct Notification<'a, P> {
        jsonrpc: &'static str,
        method: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        params: Option<&'a P>,
    }
    line(&Notification {
        jsonrpc: "2.0",
        method,
        params,
    })
}

fn line(message: &impl Serialize) -> String {
    // Our messages hold only strings, numbers, `Value`s and verbatim ids: nothing that can
    // fail to serialize.
    serde_json::to_string(message).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

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

    fn id(text: &str) -> Option<Id> {
        Id::new(&RawValue::from_string(text.to_owned()).expect("json"))
    }

    #[test]
    #[expect(
        clippy::too_many_lines,
        reason = "over 80 lines when the limit was set; split it when it next changes"
    )]
    fn messages_are_told_apart() {
        #[track_caller]
        fn case(line: &str, want: Incoming) {
            assert_eq!(classify(line.as_bytes()), want, "{line}");
        }
        let invalid = |id: Option<Id>, code, message: &str| Incoming::Invalid {
            id,
            code,
            message: message.to_owned(),
        };
        let request = |id_text: &str, method: &str, params: Value| Incoming::Request {
            id: id(id_text).expect("an id"),
            method: method.into(),
            params,
            progress_token: None,
        };
        case(
            r#"{"jsonrpc":"2.0","id":"probe-1","method":"server/discover","params":{}}"#,
            request(r#""probe-1""#, "server/discover", json!({})),
        );
        case(
            r#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}"#,
            request("123456789012345678901234567890", "ping", Value::Null),
        );
        case(
            r#"{"jsonrpc":"2.0","id":"\ud800","method":"ping"}"#,
            request(r#""\ud800""#, "ping", Value::Null),
        );
        case(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"recipe","_meta":{"progressToken":98765432109876543210}}}"#,
            Incoming::Request {
                id: id("1").expect("an id"),
                method: "tools/call".into(),
                params: json!({"name": "recipe", "_meta": {"progressToken": 98765432109876543210.0}}),
                progress_token: id("98765432109876543210"),
            },
        );
        case(
            r#"{"jsonrpc":"2.0","id":"\ud800","method":"tools/call","params":{"op":"\udc00"}}"#,
            invalid(
                id(r#""\ud800""#),
                INVALID_PARAMS,
                "Invalid params: lone leading surrogate in hex escape at column 75",
            ),
        );
        case(
            r#"{"jsonrpc":"2.0","id":5,"method":"\ud800"}"#,
            invalid(
                id("5"),
                INVALID_REQUEST,
                "Invalid Request: `method`: unexpected end of hex escape at column 41",
            ),
        );
        case(
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            Incoming::Notification {
                method: "notifications/initialized".into(),
                params: "null".into(),
            },
        );
        case(
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"\ud800","reason":"\udc00"}}"#,
            Incoming::Notification {
                method: "notifications/cancelled".into(),
                params: r#"{"requestId":"\ud800","reason":"\udc00"}"#.into(),
            },
        );
        case(
            r#"{"jsonrpc":"2.0","id":3,"result":{}}"#,
            Incoming::Response,
        );
        case(
            "not json",
            invalid(
                None,
                PARSE_ERROR,
                "Parse error: expected ident at line 1 column 2",
            ),
        );
        case(
            "[1]",
            invalid(
                None,
                INVALID_REQUEST,
                "Invalid Request: batches are not supported",
            ),
        );
        case(
            "7",
            invalid(
                None,
                INVALID_REQUEST,
                "Invalid Request: a message is a JSON object",
            ),
        );
        case(
            r#"{"id":1,"method":"ping"}"#,
            invalid(
                id("1"),
                INVALID_REQUEST,
                "Invalid Request: `jsonrpc` must be \"2.0\"",
            ),
        );
        case(
            r#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#,
            invalid(
                None,
                INVALID_REQUEST,
                "Invalid Request: `id` must be a string or a number",
            ),
        );
        case(
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            invalid(
                None,
                INVALID_REQUEST,
                "Invalid Request: `id` must be a string or a number",
            ),
        );
        case(
            r#"{"jsonrpc":"2.0","id":2,"method":7}"#,
            invalid(
                id("2"),
                INVALID_REQUEST,
                "Invalid Request: `method` must be a string",
            ),
        );
        case(
            r#"{"jsonrpc":"2.0","id":2}"#,
            invalid(id("2"), INVALID_REQUEST, "Invalid Request: no `method`"),
        );
    }

    #[test]
    fn messages_are_written_with_the_id_verbatim() {
        let big = id("123456789012345678901234567890").expect("an id");
        let lone = id(r#""\ud800""#).expect("an id");
        assert_eq!(
            response(&big, &json!({})),
            r#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"result":{}}"#
        );
        assert_eq!(
            error(Some(&lone), METHOD_NOT_FOUND, "Method not found: x"),
            r#"{"jsonrpc":"2.0","id":"\ud800","error":{"code":-32601,"message":"Method not found: x"}}"#
        );
        assert_eq!(
            error(None, PARSE_ERROR, "Parse error"),
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#
        );
        assert_eq!(
            notification::<Value>("notifications/tools/list_changed", None),
            r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#
        );
    }
}
