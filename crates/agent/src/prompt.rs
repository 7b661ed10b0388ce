//! The prompt an external agent receives: one task of a bundle, the rules checked afterwards,
//! and on a retry the previous attempt's digest.

use std::fmt::Write;

use serde::Deserialize;

use speccoder_config::Wording;

/// A task bundle: the task and the texts around it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct Bundle {
    /// The task.
    pub task: BundleTask,
    /// The story the task serves.
    pub story: String,
    /// The plan it is part of.
    pub plan: String,
    /// The project's standing rules.
    pub constitution: String,
}

/// The task of a bundle.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct BundleTask {
    /// Its id (`T012`).
    pub id: String,
    /// Its title.
    pub title: String,
    /// The phase it belongs to.
    pub phase: String,
}

impl Bundle {
    /// A bundle read as the seed reads one: `json` must be an object, and any field that is
    /// missing or not a string (a numeric id, `"story": null`) is empty text.
    pub fn from_json(json: &serde_json::Value) -> Result<Self, BundleError> {
        let serde_json::Value::Object(fields) = json else {
            return Err(BundleError::NotAnObject {
                found: json_kind(json),
            });
        };
        let text = |object: &serde_json::Map<String, serde_json::Value>, key: &str| {
            object
                .get(key)
                .and_then(serde_json::Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        let empty = serde_json::Map::new();
        let task = fields
            .get("task")
            .and_then(serde_json::Value::as_object)
            .unwrap_or(&empty);
        Ok(Self {
            task: BundleTask {
                id: text(task, "id"),
                title: text(task, "title"),
                phase: text(task, "phase"),
            },
            story: text(fields, "story"),
            plan: text(fields, "plan"),
            constitution: text(fields, "constitution"),
        })
    }
}

/// Why a JSON value is no task bundle.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BundleError {
    /// It is not a JSON object.
    #[error("a task bundle is a JSON object, not {found}")]
    NotAnObject {
        /// What it is, with its article (`an array`).
        found: &'static str,
    },
}

/// What kind of JSON value `json` is, with its article.
fn json_kind(json: &serde_json::Value) -> &'static str {
    match json {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

/// The prompt for one attempt at `bundle`'s task; `digest` is the verifier's digest of the
/// previous attempt on a retry. A `null` digest is no digest: nothing failed before.
pub fn build_prompt(
    bundle: &Bundle,
    digest: Option<&serde_json::Value>,
    wording: &Wording,
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "You are implementing exactly one task of a {} {} in this git worktree.",
        wording.product, wording.unit
    );
    out.push_str(
        "\nWhen you stop, the runtime checks your work from the diff, so keep to these rules:\n",
    );
    let rules = [
        "Change only what this task needs.".to_owned(),
        format!(
            "Do not edit the spec (`{}`), the checks' configuration (`speccoder.toml`, CI \
             files, test-runner configuration) or anything under `.git`.",
            wording.intent_file
        ),
        "Tests that exist now are frozen: add new tests in new files; never weaken, skip or \
         delete a test."
            .to_owned(),
        "Do not commit, branch or push. The runtime commits the task once it passes.".to_owned(),
        "Run the project's tests to see whether your change works. The runtime runs them again \
         afterwards and decides."
            .to_owned(),
        "If the task cannot be done as written, stop and make your final message start with \
         `BLOCKED:` followed by the reason. Block rather than guess when the spec says two \
         things that cannot both hold, when a test expects something the spec rules out, or \
         when something you need to know is written nowhere."
            .to_owned(),
    ];
    for rule in rules {
        let _ = writeln!(out, "- {rule}");
    }
    let task = &bundle.task;
    let _ = writeln!(
        out,
        "\n# Task {}: {}",
        one_line(&task.id),
        one_line(&task.title)
    );
    if !task.phase.trim().is_empty() {
        let _ = writeln!(out, "\nPhase: {}", one_line(&task.phase));
    }
    for (heading, text) in [
        (&wording.story, &bundle.story),
        (&wording.plan, &bundle.plan),
        (&wording.constitution, &bundle.constitution),
    ] {
        if !text.trim().is_empty() {
            let _ = write!(out, "\n## {heading}\n\n{}\n", text.trim());
        }
    }
    if let Some(digest) = digest.filter(|d| !d.is_null()) {
        let pretty = serde_json::to_string_pretty(digest).unwrap_or_else(|_| digest.to_string());
        let fence = fence_for(&pretty);
        let _ = write!(
            out,
            "\n## Previous attempt\n\nThe previous attempt at this task failed and its changes \
             were undone. The verifier's digest of it:\n\n{fence}json\n{pretty}\n{fence}\n"
        );
    }
    out
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A code fence longer than any run of backticks in `text`, so the text cannot close it.
fn fence_for(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    "`".repeat(longest.max(2) + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_attempt_with_reference_wording() {
        let bundle = Bundle {
            task: BundleTask {
                id: "T3".into(),
                title: "Parse the\nconfig".into(),
                phase: String::new(),
            },
            story: "  As an operator I want one config file.  ".into(),
            plan: "1. Read the file.\n2. Check the keys.".into(),
            constitution: " \n ".into(),
        };
        let prompt = build_prompt(&bundle, None, &Wording::default());
        crate::snapshot_settings().bind(|| insta::assert_snapshot!(prompt));
    }

    #[test]
    fn bundle_fields_are_optional() {
        let bundle: Bundle = serde_json::from_str(r#"{"task": {"id": "T1"}}"#).expect("json");
        assert_eq!(bundle.task.id, "T1");
        assert_eq!(bundle.story, "");
    }

    #[test]
    fn bundles_are_read_leniently() {
        let bundle = Bundle::from_json(&serde_json::json!({
            "task": {"id": 12, "title": "Add", "phase": null},
            "story": null,
            "plan": ["not", "text"],
            "constitution": "Be kind."
        }))
        .expect("any object is a bundle");
        assert_eq!(
            bundle,
            Bundle {
                task: BundleTask {
                    id: String::new(),
                    title: "Add".into(),
                    phase: String::new(),
                },
                constitution: "Be kind.".into(),
                ..Bundle::default()
            }
        );
        assert_eq!(
            Bundle::from_json(&serde_json::json!({"task": "T1"})),
            Ok(Bundle::default())
        );
        assert_eq!(
            Bundle::from_json(&serde_json::json!([1])),
            Err(BundleError::NotAnObject { found: "an array" })
        );
    }

    #[test]
    fn a_null_digest_is_no_digest() {
        let bundle = Bundle::default();
        let wording = Wording::default();
        let without = build_prompt(&bundle, None, &wording);
        assert_eq!(
            build_prompt(&bundle, Some(&serde_json::Value::Null), &wording),
            without
        );
        assert!(!without.contains("Previous attempt"));
        assert!(
            build_prompt(&bundle, Some(&serde_json::json!({})), &wording)
                .contains("Previous attempt")
        );
    }

    #[test]
    fn fences_outgrow_backticks() {
        assert_eq!(fence_for("plain"), "```");
        assert_eq!(fence_for("a ```` b"), "`````");
    }
}
