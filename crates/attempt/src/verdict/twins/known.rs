//! The known answer (invariants 11 and 12 of `docs/design/verdict.md`): the one test
//! speccoder plants. In every run of the checks, at the base, in the verdict's pass and in
//! the twin pass alike, one test is added to a test file of each unit a runner reports
//! apart (a Python project, a JavaScript project, a Go package, a Rust test binary), in
//! that file's own shape: a function or a method as its tests are, among them after one
//! drawn at random, named from the file's own words, comparing a value with itself through
//! the file's own assertion. It passes in the base's and the verdict's run, where it is
//! taken out of the report (its counts too); its twin must fail in the twin pass, like
//! every twin. The base's run shows where it is reported, and a run that ended well must
//! report it there again.
//!
//! Nothing but reading the test sources tells it from the project's tests: no file, name
//! shape, marker, empty body or place of its own. Its name and value are drawn from a key
//! this process makes at random, so that both passes of one tree hold the same test and
//! no code can know them beforehand.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use super::naming::{Draw, names};
use crate::check_tree::CheckTree;
use crate::shared::{CanaryState, Prepared};
use crate::verdict::outcomes::BaseTests;
use crate::verdict::results::{TestFramework, TestOutcome, TestReport};

/// Test files given twins at most.
pub(super) const MAX_FILES: usize = 2_000;

/// The largest test file given twins.
pub(super) const MAX_FILE_BYTES: usize = 1 << 20;

/// Units given a known answer at most.
const MAX_UNITS: usize = 500;

/// The most bytes of test files read to keep a drawn name new to the tree.
const MAX_READ_FOR_NAMES: usize = 32 << 20;

/// A known answer planted in one test file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Known {
    /// The file, as a repository path.
    pub(crate) path: String,
    /// The test's name (a JavaScript test's title).
    pub(crate) name: String,
    /// The lines it takes in its file, from the first to the one after the last.
    pub(crate) lines: (usize, usize),
}

/// Whether the file's name is one its runner collects by default.
fn named_like_a_test(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.starts_with("test")
        || name.ends_with("_test.py")
        || name.ends_with("_test.go")
        || [".test.", ".spec.", "_test.", "-test."]
            .iter()
            .any(|mark| name.contains(mark))
        || (path.ends_with(".rs") && (path.starts_with("tests/") || path.contains("/tests/")))
}

/// The unit a test file's tests are reported in, where one known answer stands for all:
/// each Python and each JavaScript project as one (one runner process collects all its
/// files), each Go package (a test binary of its own), each Rust test binary (`src` of a
/// crate, each `tests/NAME.rs` or `tests/NAME/`).
pub(super) fn unit(path: &str) -> Option<String> {
    if path.starts_with("node_modules/") || path.contains("/node_modules/") {
        return None;
    }
    let extension = path.rsplit_once('.').map_or("", |(_, e)| e);
    let folder = path.rsplit_once('/').map_or("", |(f, _)| f);
    match extension {
        "py" => Some("py".into()),
        "js" | "cjs" | "mjs" | "ts" | "cts" | "mts" | "jsx" | "tsx" => Some("js".into()),
        "go" if path.ends_with("_test.go") => Some(format!("go:{folder}")),
        "rs" => {
            let at = if path.starts_with("tests/") {
                Some(0)
            } else {
                path.find("/tests/").map(|i| i + 1)
            };
            if let Some(at) = at {
                let rest = &path[at + "tests/".len()..];
                let binary = rest.split('/').next().unwrap_or(rest);
                let binary = binary.strip_suffix(".rs").unwrap_or(binary);
                Some(format!("rs:{}tests/{binary}", &path[..at]))
            } else if let Some(at) = path.rfind("src/") {
                Some(format!("rs:{}src", &path[..at]))
            } else {
                Some(format!("rs:{folder}"))
            }
        }
        _ => None,
    }
}

/// The text of test file `path` with a known answer added, and the answer's test name;
/// `taken` says a name is used in the tree already.
pub(super) fn known_answer(
    path: &str,
    text: &str,
    draw: &mut Draw,
    taken: &dyn Fn(&str) -> bool,
) -> Option<(String, String)> {
    let extension = path.rsplit_once('.').map_or("", |(_, e)| e);
    let value = 3 + u32::try_from(draw.below(90)).unwrap_or(0);
    match extension {
        "py" => super::lang::python_known(text, value, draw, taken),
        "go" if path.ends_with("_test.go") => super::lang::go_known(text, value, draw, taken),
        "rs" => super::lang::rust_known(text, value, draw, taken),
        "js" | "cjs" | "mjs" | "ts" | "cts" | "mts" | "jsx" | "tsx" => {
            super::lang::javascript_known(text, value, draw, taken)
        }
        _ => None,
    }
}

/// The test files of `tree` a check tree holds (visible ones first, then the withheld), as
/// repository paths with whether each is withheld.
pub(super) fn test_files(prepared: &Prepared, tree: &str) -> Vec<(String, bool)> {
    let Ok(entries) = prepared.store.entries(tree) else {
        return Vec::new();
    };
    let withheld: Vec<&String> = prepared.withheld.iter().flat_map(|w| &w.paths).collect();
    let mut paths: Vec<(String, bool)> = entries
        .iter()
        .filter(|e| e.utf8 && e.mode.starts_with("100") && prepared.rules.is_test(&e.path))
        .filter(|e| !withheld.contains(&&e.path))
        .map(|e| (e.path.clone(), false))
        .collect();
    paths.extend(withheld.iter().map(|p| ((*p).clone(), true)));
    paths.truncate(MAX_FILES);
    paths
}

/// A plain file (not a link, not a FIFO) of at most `MAX_FILE_BYTES`, read, the read itself
/// bounded too.
pub(super) fn read_plain(file: &std::path::Path) -> Option<String> {
    let meta = std::fs::symlink_metadata(file).ok()?;
    if !meta.file_type().is_file() || meta.len() > MAX_FILE_BYTES as u64 {
        return None;
    }
    let bytes = speccoder_foundation::files::read_limited(file, MAX_FILE_BYTES as u64).ok()?;
    String::from_utf8(bytes).ok()
}

/// Adds a known answer to the check tree `check` of `tree` for each unit of its test files:
/// to the first visible test file of the unit that takes one, else to a withheld file's
/// copy (a project whose tests are all withheld). Both passes of one tree get the same
/// tests; a file that cannot be read or written goes without.
pub(crate) fn plant_known(prepared: &Prepared, tree: &str, check: &CheckTree) -> Vec<Known> {
    let files = test_files(prepared, tree);
    let mut units: BTreeMap<String, Vec<(&String, bool)>> = BTreeMap::new();
    for (path, withheld) in &files {
        if let Some(unit) = unit(path) {
            units.entry(unit).or_default().push((path, *withheld));
        }
    }
    // Files named as a runner collects them by default first (`test_x.py`, `x.test.js`):
    // a helper module holding a `def test…` may be collected by nothing. Visible files stay
    // before withheld ones.
    for paths in units.values_mut() {
        paths.sort_by_key(|(p, withheld)| (*withheld, !named_like_a_test(p)));
    }
    // What the tree's test files hold, by language: a drawn name new to them all is never
    // taken for another test, nor scrubbed from its output. Names by their identifiers, so
    // that each draw is one look-up; titles (JavaScript's, with spaces) by the text.
    let mut read = 0;
    let mut words: BTreeMap<String, HashSet<String>> = BTreeMap::new();
    let mut titles = String::new();
    for (path, _) in &files {
        let Some(unit) = unit(path) else { continue };
        if read > MAX_READ_FOR_NAMES {
            break;
        }
        if let Some(text) = read_plain(&check.dir.join(path)) {
            read += text.len();
            identifiers(&text, words.entry(unit[..2].to_owned()).or_default());
            if unit == "js" {
                titles.push_str(&text);
                titles.push('\n');
            }
        }
    }
    let mut planted: Vec<Known> = Vec::new();
    for (unit, paths) in units.into_iter().take(MAX_UNITS) {
        let empty = HashSet::new();
        let language = words.get(&unit[..2]).unwrap_or(&empty);
        // Go: any name of the package's files, test or not, would clash.
        let mut package = HashSet::new();
        if let Some(folder) = unit.strip_prefix("go:") {
            identifiers(&go_package_text(&check.dir.join(folder)), &mut package);
        }
        for (path, _) in paths {
            let file = check.dir.join(path);
            let Some(text) = read_plain(&file) else {
                continue;
            };
            let taken = |name: &str| {
                language.contains(name)
                    || package.contains(name)
                    || (name.contains(' ') && titles.contains(name))
                    || planted.iter().any(|k| k.name == name)
            };
            let mut draw = Draw::new(tree, path);
            let Some((new, name)) = known_answer(path, &text, &mut draw, &taken) else {
                continue;
            };
            // Replaced with its times kept, as every test file is in both passes.
            if replace(&file, &new).is_ok() {
                planted.push(Known {
                    path: path.clone(),
                    name,
                    lines: inserted(&text, &new),
                });
                break;
            }
        }
    }
    planted
}

/// The lines `new` holds that `old` does not, where `new` is `old` with lines inserted in
/// one place: from the first to the one after the last.
fn inserted(old: &str, new: &str) -> (usize, usize) {
    let (old, new): (Vec<&str>, Vec<&str>) = (old.split('\n').collect(), new.split('\n').collect());
    let before = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let after = old[before..]
        .iter()
        .rev()
        .zip(new[before..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    (before, new.len() - after)
}

/// Adds the identifiers of `text` to `into`.
fn identifiers(text: &str, into: &mut HashSet<String>) {
    for word in text.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
        if !word.is_empty() && !into.contains(word) {
            into.insert(word.to_owned());
        }
    }
}

/// The texts of a Go package's files in `folder`, bounded.
fn go_package_text(folder: &std::path::Path) -> String {
    let mut all = String::new();
    let Ok(entries) = std::fs::read_dir(folder) else {
        return all;
    };
    for entry in entries.flatten().take(2_000) {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "go") // not a runner id
            && let Some(text) = read_plain(&path)
        {
            all.push_str(&text);
            if all.len() > MAX_READ_FOR_NAMES {
                break;
            }
        }
    }
    all
}

/// Whether `text` holds `name` as a whole word: not inside a longer name.
fn holds_word(text: &str, name: &str) -> bool {
    let ident = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    text.match_indices(name).any(|(at, _)| {
        !ident(text[..at].chars().next_back()) && !ident(text[at + name.len()..].chars().next())
    })
}

impl Known {
    /// Whether `id` is this test's: it ends in its name, which was drawn new to every
    /// test file of its language in the tree (go, node and mocha ids hold no file to tell
    /// by).
    pub(super) fn is(&self, id: &str) -> bool {
        names(id, &self.name)
    }

    /// The runners that may count this test without naming it.
    fn counted_by(&self, runner: TestFramework) -> bool {
        let python = self.path.ends_with(".py");
        match runner {
            TestFramework::Pytest | TestFramework::Unittest => python,
            TestFramework::NodeTest
            | TestFramework::Mocha
            | TestFramework::Jest
            | TestFramework::Vitest => {
                !python && !self.path.ends_with(".go") && !self.path.ends_with(".rs")
            }
            TestFramework::Libtest | TestFramework::GoTest => false,
        }
    }

    /// `text` (a check's output) without the lines that name this test.
    pub(crate) fn scrub(&self, text: &str) -> String {
        text.lines()
            .filter(|line| !holds_word(line, &self.name))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// The report without the known answers, their counts too: one a runner counts without
/// naming it (pytest without its XML, unittest without `-v`, jest and vitest over several
/// files) is taken out of the passes it counts, so the counts are what the project's own
/// run says. A runner that counts passes but ran no file holding one would show one pass
/// fewer than it ran; that is the cost of never showing one more.
pub(crate) fn strip(known: &[Known], report: &mut TestReport) {
    for answer in known {
        let gone: Vec<String> = report
            .tests
            .keys()
            .filter(|id| answer.is(id))
            .cloned()
            .collect();
        if gone.is_empty() {
            let (counted, named) = passes(report);
            if counted > named && report.runners.iter().any(|r| answer.counted_by(*r)) {
                report.counts.insert(TestOutcome::Passed, counted - 1);
            }
        }
        for id in gone {
            if let Some(outcome) = report.tests.remove(&id)
                && let Some(count) = report.counts.get_mut(&outcome)
            {
                *count = count.saturating_sub(1);
            }
        }
    }
    report.counts.retain(|_, n| *n > 0);
}

/// `text` without the lines that name a known answer.
pub(crate) fn scrub(known: &[Known], text: &str) -> String {
    known
        .iter()
        .fold(text.to_owned(), |text, answer| answer.scrub(&text))
}

/// Where a report names the known answers: the files of those it reports passed, or why
/// the report is not the runner's (one reported any other way: it compares a value with
/// itself, so only a forged report or a broken assertion fails it).
pub(crate) fn reported(known: &[Known], report: &TestReport) -> Result<BTreeSet<String>, String> {
    let mut places = BTreeSet::new();
    for answer in known {
        for (_, outcome) in report.tests.iter().filter(|(id, _)| answer.is(id)) {
            if *outcome != TestOutcome::Passed {
                return Err(format!(
                    "a test speccoder added, which compares a value with itself through the file's own assertion, is reported as {outcome:?}: the report is not the runner's, or its assertion was changed"
                ));
            }
            places.insert(answer.path.clone());
        }
    }
    Ok(places)
}

/// The base's run of a check: the report without the known answers, and where they were
/// reported (or that the runner misreports them) kept in `base`.
pub(crate) fn at_base(known: &[Known], report: &TestReport, base: &mut BaseTests) -> CanaryState {
    match reported(known, report) {
        Ok(places) if places.is_empty() => CanaryState::NotCollected,
        Ok(places) => {
            base.known_places = places;
            CanaryState::Held
        }
        Err(_) => {
            base.known_misread = true;
            CanaryState::Unreliable
        }
    }
}

/// A check's report now, against the base's (invariant 11): the report without the known
/// answers and what they said, or why the report is not the runner's: one reported other
/// than passed, or one the base's run reported missing from a run that ended well (its part
/// of the run ended early, or the report is not the runner's). A run stopped from outside,
/// or one that failed, fails as it is: what it did not print is no forgery.
pub(crate) fn now(
    known: &[Known],
    mut report: TestReport,
    exit_code: Option<i32>,
    timed_out: bool,
    base: Option<&BaseTests>,
) -> Result<(TestReport, Option<CanaryState>), String> {
    let state = if timed_out || exit_code.is_none() {
        None
    } else if base.is_some_and(|b| b.known_misread) {
        Some(CanaryState::Unreliable)
    } else {
        let places = reported(known, &report)?;
        let at_base = base.map(|b| &b.known_places);
        // One a runner may count among passes it does not name (vitest names a file's
        // passing tests only beside a failure, as at the base) is not missing.
        let (counted, named) = passes(&report);
        let unnamed = |path: &String| {
            counted > named
                && known
                    .iter()
                    .any(|k| &k.path == path && report.runners.iter().any(|r| k.counted_by(*r)))
        };
        let missing = at_base.is_some_and(|b| b.difference(&places).any(|path| !unnamed(path)));
        if exit_code == Some(0) && missing {
            return Err(
                "a test speccoder added, which the base's run reported, is missing from the report: its part of the run ended early, or the report is not the runner's"
                    .into(),
            );
        }
        if places.is_empty() && at_base.is_none_or(BTreeSet::is_empty) {
            Some(CanaryState::NotCollected)
        } else {
            Some(CanaryState::Held)
        }
    };
    strip(known, &mut report);
    Ok((report, state))
}

/// The passes `report` counts and the passes it names: a runner that counts more than it
/// names (vitest) may hold a known answer among the passes it does not name.
fn passes(report: &TestReport) -> (usize, usize) {
    let named = report
        .tests
        .values()
        .filter(|o| **o == TestOutcome::Passed)
        .count();
    let counted = report
        .counts
        .get(&TestOutcome::Passed)
        .copied()
        .unwrap_or(0);
    (counted, named)
}

/// Replaces the file `file` by one holding `text`, with the old one's access and
/// modification times. A copied withheld test may be read-only: replaced, not written through.
pub(super) fn replace(file: &std::path::Path, text: &str) -> std::io::Result<()> {
    let old = std::fs::symlink_metadata(file)?;
    std::fs::remove_file(file)?;
    std::fs::write(file, text)?;
    let mut times = std::fs::FileTimes::new();
    if let Ok(at) = old.accessed() {
        times = times.set_accessed(at);
    }
    if let Ok(at) = old.modified() {
        times = times.set_modified(at);
    }
    std::fs::OpenOptions::new()
        .write(true)
        .open(file)?
        .set_times(times)
}

#[cfg(test)]
#[path = "known_tests.rs"]
mod tests;
