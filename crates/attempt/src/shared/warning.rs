//! What the gaming monitor warns of, and the files it reads.

use serde::Serialize;

/// One warning, naming the file and line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Warning {
    /// The source file.
    pub path: String,
    /// The 1-based line.
    pub line: usize,
    /// What looks like gaming.
    pub detail: String,
    /// Whether `[attempt] reject_gaming` rejects on it: a lookup everyday code makes too
    /// (`sys.modules.get(name)`) stays a warning whatever the setting.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub weak: bool,
}

/// A file as the monitor reads it.
#[derive(Debug, Clone)]
pub(crate) struct FileText {
    /// Relative path.
    pub(crate) path: String,
    /// Its text.
    pub(crate) text: String,
}
