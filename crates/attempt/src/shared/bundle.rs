//! The task bundle of an attempt: the agent's [`Bundle`] and the frozen acceptance tests.

use std::collections::BTreeMap;
use std::path::{Component, Path};

use serde_json::Value;

use super::super::attempt_error::AttemptError;
use speccoder_agent::Bundle;
use speccoder_foundation::files::{ReadError, read_limited};

/// The longest task id; it names a branch and a journal folder.
const MAX_TASK_ID: usize = 64;

/// The largest bundle read: a task with its acceptance tests is text, and a larger file is
/// a mistake (or a device) that must not take the machine's memory.
pub(crate) const MAX_BUNDLE_BYTES: u64 = 64 << 20;

/// A bundle with its acceptance tests.
#[derive(Debug, Clone)]
pub(crate) struct AttemptBundle {
    /// What the agent's prompt is built from.
    pub(crate) bundle: Bundle,
    /// Relative path → content of each spec-derived acceptance test.
    pub(crate) acceptance: BTreeMap<String, String>,
}

impl AttemptBundle {
    /// Reads and checks the bundle file.
    pub(crate) fn load(path: &Path) -> Result<Self, AttemptError> {
        let shown = path.display();
        let bytes = read_limited(path, MAX_BUNDLE_BYTES).map_err(|err| {
            let message = format!("bundle {shown}: {err}");
            match err {
                ReadError::Io(io) => AttemptError::Read {
                    message,
                    kind: io.kind(),
                },
                _ => AttemptError::Bundle(message),
            }
        })?;
        let text = String::from_utf8(bytes)
            .map_err(|err| AttemptError::Bundle(format!("bundle {shown}: not UTF-8: {err}")))?;
        Self::parse(&text).map_err(|err| AttemptError::Bundle(format!("bundle {shown}: {err}")))
    }

    /// Parses and checks a bundle's text.
    pub(crate) fn parse(text: &str) -> Result<Self, String> {
        let value: Value = serde_json::from_str(text).map_err(|err| err.to_string())?;
        let bundle: Bundle =
            serde_json::from_value(value.clone()).map_err(|err| err.to_string())?;
        check_task_id(&bundle.task.id)?;
        let mut acceptance = BTreeMap::new();
        match value.get("acceptance") {
            None | Some(Value::Null) => {}
            Some(Value::Object(map)) => {
                for (path, content) in map {
                    check_relative(path)?;
                    let Value::String(content) = content else {
                        return Err(format!("acceptance `{path}`: the content must be a string"));
                    };
                    acceptance.insert(path.clone(), content.clone());
                }
            }
            Some(_) => {
                return Err(
                    "`acceptance` must be an object mapping relative paths to file contents".into(),
                );
            }
        }
        Ok(Self { bundle, acceptance })
    }
}

/// A task id names a branch and a folder: letters, digits, `.`, `_` and `-`, not starting
/// with `.` or `-`.
fn check_task_id(id: &str) -> Result<(), String> {
    if id.is_empty() {
        return Err(format!(
            "the bundle has no task id: an attempt needs `task.id`, of letters, digits, `.`, `_` and `-` (at most {MAX_TASK_ID}), as in `{{\"task\": {{\"id\": \"T1\"}}}}`"
        ));
    }
    let ok = id.len() <= MAX_TASK_ID
        && id.len() <= MAX_TASK_ID
        && !id.starts_with(['.', '-'])
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "task id `{id}`: an attempt needs an id of letters, digits, `.`, `_` and `-` (at most {MAX_TASK_ID})"
        ))
    }
}

/// An acceptance path stays inside the project and out of `.git`.
fn check_relative(path: &str) -> Result<(), String> {
    let p = Path::new(path);
    let normal = !path.is_empty()
        && p.components().all(|c| matches!(c, Component::Normal(_)))
        && !p.components().any(|c| c.as_os_str() == ".git");
    if normal {
        Ok(())
    } else {
        Err(format!(
            "acceptance `{path}`: a path must be relative, inside the project and outside `.git`"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acceptance_paths_and_ids() {
        let ok = AttemptBundle::parse(
            r#"{"task": {"id": "T7", "title": "Add"}, "acceptance": {"tests/test_add.py": "x"}}"#,
        )
        .expect("valid");
        assert_eq!(ok.acceptance["tests/test_add.py"], "x");
        for (text, want) in [
            (
                r#"{"task": {"id": "T7"}, "acceptance": {"../x": "y"}}"#,
                "acceptance `../x`",
            ),
            (
                r#"{"task": {"id": "T7"}, "acceptance": {"/etc/x": "y"}}"#,
                "acceptance `/etc/x`",
            ),
            (
                r#"{"task": {"id": "T7"}, "acceptance": {".git/hooks/x": "y"}}"#,
                "acceptance `.git/hooks/x`",
            ),
            (
                r#"{"task": {"id": "T7"}, "acceptance": {"a": 1}}"#,
                "must be a string",
            ),
            (
                r#"{"task": {"id": "T7"}, "acceptance": []}"#,
                "must be an object",
            ),
            (r#"{"task": {"id": "../T7"}}"#, "task id `../T7`"),
            (r#"{"task": {"id": ""}}"#, "the bundle has no task id"),
            (
                r#"{"task": {"title": "Add"}}"#,
                "an attempt needs `task.id`",
            ),
        ] {
            let err = AttemptBundle::parse(text).expect_err(text);
            assert!(err.contains(want), "{text}: {err}");
        }
    }
}
