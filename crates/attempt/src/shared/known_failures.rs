//! `[attempt] known_failures`: the tests that may fail.

use globset::{GlobBuilder, GlobMatcher};

/// `[attempt] known_failures`: test ids, or globs over them, that may fail.
#[derive(Debug, Clone, Default)]
pub(crate) struct KnownFailures {
    entries: Vec<(String, Option<GlobMatcher>)>,
}

impl KnownFailures {
    /// The matcher of `entries`. An entry is an exact id, or a glob whose `*` matches any
    /// characters, `/` and `::` included; an id that is not a valid glob (a parametrised
    /// pytest id with an unclosed `[`) is matched exactly.
    pub(crate) fn new(entries: &[String]) -> Self {
        Self {
            entries: entries
                .iter()
                .map(|e| {
                    let glob = GlobBuilder::new(e)
                        .literal_separator(false)
                        .backslash_escape(true)
                        .build()
                        .ok()
                        .map(|g| g.compile_matcher());
                    (e.clone(), glob)
                })
                .collect(),
        }
    }

    /// Whether `id` is listed.
    pub(crate) fn matches(&self, id: &str) -> bool {
        self.entries
            .iter()
            .any(|(e, glob)| e == id || glob.as_ref().is_some_and(|g| g.is_match(id)))
    }
}
