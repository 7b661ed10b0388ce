//! What the audit finds: each finding rejects the attempt.

use serde::Serialize;

/// Files read for the audit at most this large; a larger changed file that must be read
/// is a finding of its own, so padding a file never hides what it holds.
pub(crate) const MAX_READ_BYTES: usize = 16 << 20;

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
    /// A name speccoder cannot judge: not UTF-8, or the same as another once read.
    UnreadableName,
    /// A file too large for a candidate (by its apparent size).
    FileTooLarge,
    /// A check's report is not its runner's: the known answer came out the wrong way, or
    /// went missing where the base's run reported it, or a twin passed.
    ForgedResults,
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
