//! The integrity audit of an attempt's diff (base → candidate tree, new files included):
//! protected paths, deleted or weakened tests, skip markers, snapshots, and rules that hide
//! tests. Any finding rejects the attempt.

use std::collections::BTreeSet;

use serde::Serialize;

use super::rules::Rules;
use super::scan::{self, Counts};
use super::worktree::{Change, ChangeKind, Worktree, nul_separated};

/// Files larger than this are not read for counting (a test file is never this big; a
/// generated blob is not a test).
const MAX_READ_BYTES: usize = 4 << 20;

/// Words that leave tests out, in pytest's configuration files.
const PYTEST_WORDS: &[&str] = &[
    "--deselect",
    "--ignore",
    "-k ",
    "collect_ignore",
    "norecursedirs",
    "python_files",
    "testpaths",
];
/// Words that leave tests out, in Jest's and Vitest's configuration.
const JS_WORDS: &[&str] = &[
    "exclude",
    "modulePathIgnorePatterns",
    "testMatch",
    "testPathIgnorePatterns",
    "testRegex",
];
/// Words that leave tests out, in Mocha's configuration.
const MOCHA_WORDS: &[&str] = &["ignore", "spec"];
/// Words that leave tests out, in a Cargo manifest.
const CARGO_WORDS: &[&str] = &["autotests", "harness", "test = false"];

/// Test-runner configuration files, by file name, and the words in a new line of one that
/// hide tests.
const RUNNER_CONFIGS: &[(&str, &[&str])] = &[
    (".mocharc.cjs", MOCHA_WORDS),
    (".mocharc.js", MOCHA_WORDS),
    (".mocharc.json", MOCHA_WORDS),
    (".mocharc.yml", MOCHA_WORDS),
    ("Cargo.toml", CARGO_WORDS),
    ("conftest.py", PYTEST_WORDS),
    ("jest.config.js", JS_WORDS),
    ("jest.config.json", JS_WORDS),
    ("jest.config.mjs", JS_WORDS),
    ("jest.config.ts", JS_WORDS),
    ("package.json", JS_WORDS),
    ("pyproject.toml", PYTEST_WORDS),
    ("pytest.ini", PYTEST_WORDS),
    ("setup.cfg", PYTEST_WORDS),
    ("tox.ini", PYTEST_WORDS),
    ("vitest.config.js", JS_WORDS),
    ("vitest.config.mjs", JS_WORDS),
    ("vitest.config.ts", JS_WORDS),
];

/// What the audit found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    /// A protected path was added, changed or deleted.
    ProtectedChanged,
    /// A test file was removed.
    TestDeleted,
    /// A test file has fewer test functions than before.
    TestsRemoved,
    /// A skip (or focus) marker was added.
    TestSkipped,
    /// A test file has fewer assertions than before.
    AssertionsRemoved,
    /// A snapshot file was changed, accepted or deleted.
    SnapshotChanged,
    /// `.gitignore` or a test runner's configuration now hides tests.
    IgnoreAdded,
    /// A gaming warning, when `[attempt] reject_gaming` makes warnings reject.
    Gaming,
    /// A frozen test file (a base file matching `[attempt] tests`) was changed.
    TestChanged,
    /// Test infrastructure (what the check's runner reads to define the check) was added,
    /// changed or deleted.
    TestConfigChanged,
    /// New or changed non-test code reaches into what judges it (the test framework, the
    /// process's exit, equality answering a constant, its callers, the test files).
    Tampering,
    /// A nested git repository in the candidate, whose files git would never read.
    NestedRepository,
    /// A symbolic link in the candidate that points outside the tree.
    LinkOutside,
}

/// One finding of the audit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// What kind.
    pub kind: FindingKind,
    /// The path it is about.
    pub path: String,
    /// What exactly.
    pub detail: String,
}

/// What the audit compares against, fixed before the agent starts.
#[derive(Debug, Clone)]
pub(crate) struct Baseline {
    /// Test paths that git already ignored at the base.
    pub(crate) ignored: BTreeSet<String>,
    /// Test paths whose hiding the audit looks for: the base's test files and the
    /// withheld tests' relative paths.
    pub(crate) test_paths: Vec<String>,
}

/// The paths of `paths` that git ignores in the worktree as it is now (`.gitignore` files,
/// `.git/info/exclude` and the configured excludes), tracked or not.
pub(crate) fn ignored(worktree: &Worktree, paths: &[String]) -> BTreeSet<String> {
    if paths.is_empty() {
        return BTreeSet::new();
    }
    let input = paths.join("\0");
    // Exit 1 means none is ignored.
    worktree
        .git()
        .run_with(
            &["check-ignore", "--no-index", "-z", "--stdin"],
            &[],
            Some(input.as_bytes()),
        )
        .map(|out| nul_separated(&out).into_iter().collect())
        .unwrap_or_default()
}

fn text(bytes: Option<Vec<u8>>) -> Option<String> {
    bytes
        .filter(|b| b.len() <= MAX_READ_BYTES)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Audits the candidate `tree` against the base.
pub(crate) fn audit(
    worktree: &Worktree,
    tree: &str,
    changes: &[Change],
    rules: &Rules,
    baseline: &Baseline,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    let mut add = |kind, path: &str, detail: String| {
        findings.push(Finding {
            kind,
            path: path.to_owned(),
            detail,
        });
    };
    let git = worktree.git();
    let base = worktree.base();
    for change in changes {
        let path = change.path.as_str();
        let how = match change.kind {
            ChangeKind::Added => "added",
            ChangeKind::Modified => "changed",
            ChangeKind::Deleted => "deleted",
        };
        if rules.is_protected(path) {
            add(
                FindingKind::ProtectedChanged,
                path,
                format!("protected file {how}"),
            );
            continue;
        }
        if rules.is_snapshot(path) {
            let pending = [format!("{path}.new"), format!("{path}.pending-snap")];
            let accepted = change.kind == ChangeKind::Added
                && pending.iter().any(|p| git.file(base, p).is_some());
            if change.kind != ChangeKind::Added || accepted {
                let how = if accepted { "accepted" } else { how };
                add(
                    FindingKind::SnapshotChanged,
                    path,
                    format!("snapshot {how}: the tests are checked against it"),
                );
            }
            continue;
        }
        let old = text(git.file(base, path));
        let new = text(git.file(tree, path));
        let is_test = rules.is_test(path)
            || old
                .as_deref()
                .or(new.as_deref())
                .is_some_and(|t| scan::holds_rust_tests(path, t));
        if is_test {
            let before = old.as_deref().map(|t| scan::counts(path, t));
            let after = new.as_deref().map(|t| scan::counts(path, t));
            match (before, after) {
                (Some(_), None) if change.kind == ChangeKind::Deleted => {
                    add(FindingKind::TestDeleted, path, "test file deleted".into());
                }
                (before, Some(after)) => {
                    let before = before.unwrap_or(Counts::default());
                    if after.tests < before.tests {
                        add(
                            FindingKind::TestsRemoved,
                            path,
                            format!(
                                "{} test functions before, {} now",
                                before.tests, after.tests
                            ),
                        );
                    }
                    if after.skips > before.skips {
                        add(
                            FindingKind::TestSkipped,
                            path,
                            format!(
                                "{} skip or focus markers before, {} now",
                                before.skips, after.skips
                            ),
                        );
                    }
                    if after.assertions < before.assertions {
                        add(
                            FindingKind::AssertionsRemoved,
                            path,
                            format!(
                                "{} assertions before, {} now",
                                before.assertions, after.assertions
                            ),
                        );
                    }
                }
                _ => {}
            }
        }
        if let Some((_, words)) = RUNNER_CONFIGS.iter().find(|(n, _)| *n == file_name(path)) {
            let old = old.unwrap_or_default();
            let new = new.unwrap_or_default();
            for (line, content) in scan::added_lines(&old, &new) {
                if let Some(word) = words.iter().find(|w| content.contains(*w)) {
                    add(
                        FindingKind::IgnoreAdded,
                        path,
                        format!(
                            "line {line} of the test runner's configuration adds `{word}`: {}",
                            content.trim()
                        ),
                    );
                }
            }
        }
    }
    let now = ignored(worktree, &baseline.test_paths);
    for path in now.difference(&baseline.ignored) {
        add(
            FindingKind::IgnoreAdded,
            path,
            "this test is now ignored by git (`.gitignore` or an exclude file)".into(),
        );
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_sorted() {
        let names: Vec<&str> = RUNNER_CONFIGS.iter().map(|(n, _)| *n).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(names, sorted, "keep RUNNER_CONFIGS sorted");
        for (name, table) in [
            ("PYTEST_WORDS", PYTEST_WORDS),
            ("JS_WORDS", JS_WORDS),
            ("MOCHA_WORDS", MOCHA_WORDS),
            ("CARGO_WORDS", CARGO_WORDS),
        ] {
            let mut sorted = table.to_vec();
            sorted.sort_unstable();
            assert_eq!(table, sorted, "keep {name} sorted");
        }
    }
}
