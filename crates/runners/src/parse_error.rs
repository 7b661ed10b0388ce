//! Why a tool's listing, or a package.json, could not be read as one: the errors of the
//! parsers that [`crate::parse`] lends to tests outside the crate.

/// Why the JSON a runner's listing command printed holds no tasks. `command` is the
/// listing command as a person would type it (`` `just --dump` ``).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ListingError {
    /// It is not JSON.
    #[error("{command} printed invalid JSON: {detail}")]
    NotJson {
        /// The listing command, in backticks.
        command: &'static str,
        /// What the JSON reader said.
        detail: String,
    },
    /// It is not the JSON of the tool expected: another program of the same name answered.
    #[error("{command} did not print {tool}'s JSON (is `{program}` {tool}?)")]
    OtherTool {
        /// The listing command, in backticks.
        command: &'static str,
        /// The program's name.
        program: &'static str,
        /// The tool it should be.
        tool: &'static str,
    },
    /// It lacks the part that holds the tasks.
    #[error("{command} has no `{field}` {shape}{}", hint.map_or_else(String::new, |h| format!(" ({h})")))]
    NoField {
        /// The listing command, in backticks.
        command: &'static str,
        /// The missing field.
        field: &'static str,
        /// What it should be (`object`, `array`).
        shape: &'static str,
        /// What the person may check.
        hint: Option<&'static str>,
    },
}

/// Why a package.json is not a manifest.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ManifestError {
    /// It is not JSON.
    #[error("invalid JSON: {0}")]
    NotJson(String),
    /// It is JSON, but not an object.
    #[error("is not a JSON object")]
    NotAnObject,
}
