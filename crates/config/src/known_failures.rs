//! `[attempt] known_failures`: exact test ids, and globs marked `glob:`, bounded.
//!
//! An entry is an exact id unless it starts with `glob:`: pytest's parametrised ids hold
//! `[`, `*`, `?` and `{` as plain characters (`test_p[a*b]`), so reading every entry as a
//! glob made one id excuse others. Exact ids are a hash set (150,000 of them took 12–22 s
//! and 1.8 GB as one compiled glob each); the globs are one `GlobSet`, whose compile fails
//! with an error where a single `GlobMatcher` panics on an automaton over its size limit.

use std::collections::HashSet;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

/// The prefix that marks an entry as a glob.
pub const GLOB_PREFIX: &str = "glob:";

/// The most entries the list may hold.
pub(crate) const MAX_ENTRIES: usize = 100_000;

/// The most of them that may be globs.
pub(crate) const MAX_GLOBS: usize = 1_000;

/// The longest entry, in bytes (a test id with long parameters fits).
pub(crate) const MAX_ENTRY_BYTES: usize = 4_096;

/// The matcher of `[attempt] known_failures`.
#[derive(Debug, Clone, Default)]
pub struct KnownFailures {
    exact: HashSet<String>,
    globs: Option<GlobSet>,
}

impl KnownFailures {
    /// The matcher of `entries`, or why they cannot be one: an empty or over-long entry,
    /// too many entries or globs, a glob that does not parse or whose automaton would be
    /// too large.
    ///
    /// # Errors
    /// A message naming the entry and the bound, with a hint.
    pub fn new(entries: &[String]) -> Result<Self, String> {
        if entries.len() > MAX_ENTRIES {
            return Err(format!(
                "{} entries, at most {MAX_ENTRIES}: list only the tests that fail for the environment, or cover them with a `glob:` entry",
                entries.len()
            ));
        }
        let mut exact = HashSet::with_capacity(entries.len());
        let mut globs = GlobSetBuilder::new();
        let mut glob_count = 0;
        for entry in entries {
            if entry.trim().is_empty() {
                return Err("a test id cannot be empty".to_owned());
            }
            if entry.len() > MAX_ENTRY_BYTES {
                return Err(format!(
                    "an entry of {} bytes (starting `{}`), at most {MAX_ENTRY_BYTES}: name the tests one by one, or with a shorter `glob:`",
                    entry.len(),
                    entry.chars().take(40).collect::<String>()
                ));
            }
            let Some(pattern) = entry.strip_prefix(GLOB_PREFIX) else {
                exact.insert(entry.clone());
                continue;
            };
            glob_count += 1;
            if glob_count > MAX_GLOBS {
                return Err(format!(
                    "more than {MAX_GLOBS} `glob:` entries: join them into fewer globs"
                ));
            }
            let glob = GlobBuilder::new(pattern)
                .literal_separator(false)
                .backslash_escape(true)
                .build()
                .map_err(|err| {
                    format!("`{entry}` is not a glob: {err}; without `glob:` it is an exact id")
                })?;
            globs.add(glob);
        }
        let globs = if glob_count == 0 {
            None
        } else {
            Some(globs.build().map_err(|err| {
                format!("the `glob:` entries are too large to compile ({err}): use fewer or simpler globs")
            })?)
        };
        Ok(Self { exact, globs })
    }

    /// Whether `id` is listed: an exact entry equal to it, or a glob matching it.
    #[must_use]
    pub fn matches(&self, id: &str) -> bool {
        self.exact.contains(id) || self.globs.as_ref().is_some_and(|g| g.is_match(id))
    }

    /// `id` as an entry that matches exactly it: itself, or an escaped `glob:` when it
    /// starts with the prefix (as `attempt --baseline` writes it).
    #[must_use]
    pub fn entry_for(id: &str) -> String {
        if id.starts_with(GLOB_PREFIX) {
            format!("{GLOB_PREFIX}{}", globset::escape(id))
        } else {
            id.to_owned()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(entries: &[&str]) -> Result<KnownFailures, String> {
        KnownFailures::new(&entries.iter().map(|e| (*e).to_owned()).collect::<Vec<_>>())
    }

    #[test]
    fn an_exact_id_matches_only_itself() {
        // Each of these read as a glob before and matched the ids beside it.
        for (entry, other) in [
            (
                "tests/test_a.py::test_p[a*b]",
                "tests/test_a.py::test_p[aXb]",
            ),
            ("tests/test_a.py::test_p[?]", "tests/test_a.py::test_p[x]"),
            ("tests/test_a.py::test_p[ab]", "tests/test_a.py::test_pa"),
            ("tests/test_a.py::test_{a,b}", "tests/test_a.py::test_a"),
            ("example.com/calc/*", "example.com/calc/TestAdd"),
            ("*", "anything"),
        ] {
            let known = list(&[entry]).expect("valid");
            assert!(known.matches(entry), "{entry}");
            assert!(!known.matches(other), "`{entry}` matched `{other}`");
        }
    }

    #[test]
    fn a_marked_glob_matches_across_separators() {
        let known = list(&["glob:tests/test_env.py::*", "glob:integration::*"]).expect("valid");
        assert!(known.matches("tests/test_env.py::test_a"));
        assert!(known.matches("integration::deep::test"));
        assert!(!known.matches("tests/test_other.py::test_a"));
        assert!(!known.matches("glob:integration::x"));
    }

    #[test]
    fn entry_for_round_trips_every_id() {
        for id in ["a::b", "t[1-2]", "glob:t[*]", "glob:x"] {
            let entry = KnownFailures::entry_for(id);
            let known = list(&[&entry]).expect("valid");
            assert!(known.matches(id), "{entry} does not match {id}");
            assert!(!known.matches("glob:t[1]"), "{entry}");
        }
    }

    #[test]
    fn bounds_are_errors_not_panics() {
        // One alternation of 200,000 branches made `compile_matcher` panic (exit 101).
        let branches: Vec<String> = (0..200_000).map(|i| format!("t{i}")).collect();
        let huge = format!("glob:{{{}}}", branches.join(","));
        let err = list(&[&huge]).expect_err("bounded");
        assert!(err.contains("at most 4096"), "{err}");
        // Within the length bound, an automaton over globset's size limit: an error.
        let wide = format!("glob:{}", "[^a]*".repeat(800));
        match list(&[&wide]) {
            Ok(known) => assert!(!known.matches("b")),
            Err(err) => assert!(err.contains("too large"), "{err}"),
        }
        let many: Vec<String> = (0..=MAX_GLOBS).map(|i| format!("glob:t{i}*")).collect();
        let err = KnownFailures::new(&many).expect_err("bounded");
        assert!(err.contains("more than 1000 `glob:`"), "{err}");
        let err = list(&["glob:t[", "x"]).expect_err("unclosed");
        assert!(err.contains("is not a glob"), "{err}");
        assert!(list(&["t["]).expect("an exact id").matches("t["));
        assert!(list(&[" "]).is_err());
    }

    #[test]
    fn many_exact_ids_are_cheap_and_their_count_is_bounded() {
        let ids: Vec<String> = (0..MAX_ENTRIES)
            .map(|i| format!("tests/test_{i}.py::t"))
            .collect();
        let start = std::time::Instant::now();
        let known = KnownFailures::new(&ids).expect("valid");
        assert!(known.matches("tests/test_99999.py::t"));
        assert!(!known.matches("tests/test_100000.py::t"));
        // 150,000 as one compiled glob each took 12–22 s; a hash set takes milliseconds
        // (seconds, unoptimised and shared).
        assert!(start.elapsed().as_secs() < 5, "{:?}", start.elapsed());
        let mut more = ids;
        more.push("one more".into());
        let err = KnownFailures::new(&more).expect_err("bounded");
        assert!(err.contains("at most 100000"), "{err}");
    }
}
