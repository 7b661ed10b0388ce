//! The files the base's own run ran tests from (invariant 3 with invariant 10 of
//! `docs/design/verdict.md`): a file a test id names is a test file, frozen like one under the
//! `[attempt] tests` globs, whatever its name (`checks/check_add.py`, found by a Makefile's
//! `unittest discover -p "check_*.py"`). A source file that also holds tests stays
//! editable: Python doctests (pytest's `--doctest-modules`) freeze only their examples,
//! and Rust's `#[cfg(test)]` items are frozen item by item elsewhere.

use std::collections::{BTreeMap, BTreeSet};

use crate::shared::RanFrom;
use crate::store::{Entry, Store};

/// The most candidate files whose text is read to confirm they define tests.
const MAX_CANDIDATES: usize = 10_000;

/// The largest candidate read, in bytes; a larger one is taken to define tests.
const MAX_CANDIDATE_BYTES: usize = 1 << 20;

/// Candidates read at once: with `MAX_CANDIDATE_BYTES`, 32 MiB held at most.
const READ_BATCH: usize = 32;

/// Where a test id points.
#[derive(Debug, PartialEq, Eq)]
enum Points<'a> {
    /// A file path, relative to the project (`tests/x.py::t`, `test/a.test.js > t`).
    Path(&'a str),
    /// A doctest of a Python file (`calc.py::calc.add`).
    Doctest(&'a str),
    /// A dotted module path (`checks.check_add.AddTest.test_x`), resolved by its prefixes.
    Dotted(&'a str),
}

/// Where `id` points, by its shape.
fn points(id: &str) -> Option<Points<'_>> {
    if let Some((head, tail)) = id.split_once("::") {
        // pytest names a doctest item by its dotted name after the file; a test function
        // or class has none (a parameter's `[1.5]` aside).
        let name = tail.split('[').next().unwrap_or(tail);
        if head.ends_with(".py") && !name.contains("::") && name.contains('.') {
            return Some(Points::Doctest(head));
        }
        return Some(Points::Path(head));
    }
    if let Some((head, _)) = id.split_once(" > ") {
        return Some(Points::Path(head));
    }
    let dotted = id.split(' ').next().unwrap_or(id);
    (dotted.contains('.') && !dotted.contains('/')).then_some(Points::Dotted(dotted))
}

/// Whether a Python file's text defines a test a runner collects.
fn defines_python_tests(text: &str) -> bool {
    text.lines().any(|line| {
        let line = line.trim_start();
        line.starts_with("def test")
            || line.starts_with("async def test")
            || (line.starts_with("class ") && line.contains("Test"))
    })
}

/// The files `ids` name among the base's `entries`, for a project at `prefix` in its
/// repository. Files the globs call tests already, and Rust files, are left out.
pub(crate) fn ran_from<'i>(
    ids: impl Iterator<Item = &'i String>,
    entries: &[Entry],
    prefix: &str,
    is_test: impl Fn(&str) -> bool,
    store: &Store,
) -> Result<RanFrom, String> {
    let project = |path: &'_ str| -> Option<String> {
        if prefix.is_empty() {
            Some(path.to_owned())
        } else {
            path.strip_prefix(prefix)?
                .strip_prefix('/')
                .map(str::to_owned)
        }
    };
    // Regular files of the project, by their path in it.
    let files: BTreeMap<String, &Entry> = entries
        .iter()
        .filter(|e| e.utf8 && matches!(e.mode.as_str(), "100644" | "100755"))
        .filter_map(|e| Some((project(&e.path)?, e)))
        .collect();
    let modules = python_modules(&files);
    let (candidates, doctests) = named_files(ids, &files, &modules);
    let full = |path: &str| crate::prepare::join(prefix, path);
    let candidates: Vec<&str> = candidates
        .into_iter()
        .filter(|p| !p.ends_with(".rs") && !is_test(&full(p)))
        .collect();
    // A Python file must define a test: a doctest run through unittest's `load_tests`
    // names its module too, and that module stays editable.
    let python: Vec<&str> = candidates
        .iter()
        .copied()
        .filter(|p| p.ends_with(".py"))
        .collect();
    let defines = defining_tests(&python, &files, store)?;
    let mut tests: BTreeSet<String> = candidates
        .iter()
        .filter(|p| !p.ends_with(".py") || defines.contains(*p))
        .map(|p| full(p))
        .collect();
    // The tests' own helpers are tests too.
    tests.extend(super::helpers::helpers(entries, prefix, &is_test, store)?);
    Ok(RanFrom {
        doctests: doctests
            .into_iter()
            .map(full)
            .filter(|p| !tests.contains(p) && !is_test(p))
            .collect(),
        tests,
    })
}

/// Every Python module of `files` by each dotted suffix of its path: unittest names a
/// module from its start folder, so `tests/unit/test_x.py` may be `test_x` or `unit.test_x`.
fn python_modules<'f>(files: &'f BTreeMap<String, &Entry>) -> BTreeMap<String, Vec<&'f str>> {
    let mut modules: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for path in files.keys().filter(|p| p.ends_with(".py")) {
        let dotted = path.trim_end_matches(".py").replace('/', ".");
        let mut rest = dotted.as_str();
        loop {
            modules.entry(rest.to_owned()).or_default().push(path);
            match rest.split_once('.') {
                Some((_, tail)) => rest = tail,
                None => break,
            }
        }
    }
    modules
}

/// The `files` that `ids` point to, as (candidate test files, files of doctests), a dotted
/// id resolved through `modules`; at most about [`MAX_CANDIDATES`] candidates.
fn named_files<'i, 'f>(
    ids: impl Iterator<Item = &'i String>,
    files: &'f BTreeMap<String, &Entry>,
    modules: &BTreeMap<String, Vec<&'f str>>,
) -> (BTreeSet<&'f str>, BTreeSet<&'f str>) {
    let mut candidates: BTreeSet<&str> = BTreeSet::new();
    let mut doctests: BTreeSet<&str> = BTreeSet::new();
    for id in ids {
        match points(id) {
            Some(Points::Path(path)) => {
                if let Some((path, _)) = files.get_key_value(path) {
                    candidates.insert(path);
                }
            }
            Some(Points::Doctest(path)) => {
                if let Some((path, _)) = files.get_key_value(path) {
                    doctests.insert(path);
                }
            }
            Some(Points::Dotted(dotted)) => {
                let mut rest = dotted;
                while let Some((head, _)) = rest.rsplit_once('.') {
                    if let Some(paths) = modules.get(head) {
                        candidates.extend(paths.iter().copied());
                        break;
                    }
                    rest = head;
                }
            }
            None => {}
        }
        if candidates.len() >= MAX_CANDIDATES {
            break;
        }
    }
    (candidates, doctests)
}

/// The `python` files whose text defines a test, or is too large to read.
fn defining_tests<'p>(
    python: &[&'p str],
    files: &BTreeMap<String, &Entry>,
    store: &Store,
) -> Result<BTreeSet<&'p str>, String> {
    // Read a batch at a time, so that at most `READ_BATCH` texts are held at once.
    let mut defines: BTreeSet<&str> = BTreeSet::new();
    for batch in python.chunks(READ_BATCH) {
        let objects: Vec<String> = batch.iter().map(|p| files[*p].object.clone()).collect();
        let texts = store.read_blobs(&objects, MAX_CANDIDATE_BYTES)?;
        defines.extend(
            batch
                .iter()
                .zip(texts)
                .filter(|(_, text)| {
                    text.as_deref()
                        .is_none_or(|t| defines_python_tests(&String::from_utf8_lossy(t)))
                })
                .map(|(p, _)| *p),
        );
    }
    Ok(defines)
}

/// The doctest examples of a Python text: each `>>>` line with its continuation lines and
/// the expected output after it, trimmed, in order.
pub(crate) fn doctest_examples(text: &str) -> Vec<(usize, String)> {
    let mut examples = Vec::new();
    let mut current: Option<(usize, Vec<&str>)> = None;
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.starts_with(">>>") {
            if let Some((at, lines)) = current.take() {
                examples.push((at, lines.join("\n")));
            }
            current = Some((n + 1, vec![line]));
        } else if line.is_empty() || line.starts_with("\"\"\"") || line.starts_with("'''") {
            if let Some((at, lines)) = current.take() {
                examples.push((at, lines.join("\n")));
            }
        } else if let Some((_, lines)) = current.as_mut() {
            lines.push(line);
        }
    }
    if let Some((at, lines)) = current {
        examples.push((at, lines.join("\n")));
    }
    examples
}

/// What changed of the base's doctest examples in `new`: each one missing, by its line at
/// the base. Examples added are new tests, and free.
pub(crate) fn doctests_changed(old: &str, new: &str) -> Vec<String> {
    let mut now: BTreeMap<String, usize> = BTreeMap::new();
    for (_, example) in doctest_examples(new) {
        *now.entry(example).or_default() += 1;
    }
    let mut changed = Vec::new();
    for (line, example) in doctest_examples(old) {
        match now.get_mut(&example) {
            Some(n) if *n > 0 => *n -= 1,
            _ => changed.push(format!(
                "the doctest example at line {line} of the base was changed or removed (`{}`): the base's doctests are tests, and frozen",
                example.lines().next().unwrap_or_default()
            )),
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_point_at_files_by_their_shape() {
        assert_eq!(
            points("tests/test_x.py::test_a[1.5]"),
            Some(Points::Path("tests/test_x.py"))
        );
        assert_eq!(
            points("tests/test_x.py::TestX::test_a"),
            Some(Points::Path("tests/test_x.py"))
        );
        assert_eq!(
            points("parse.py::parse.parse"),
            Some(Points::Doctest("parse.py"))
        );
        assert_eq!(
            points("test/a.test.js > Calc > adds"),
            Some(Points::Path("test/a.test.js"))
        );
        assert_eq!(
            points("checks.check_add.AddTest.test_x"),
            Some(Points::Dotted("checks.check_add.AddTest.test_x"))
        );
        assert_eq!(points("calc/TestAdd"), None);
        assert_eq!(points("negative"), None);
    }

    #[test]
    fn doctest_examples_are_frozen_and_the_rest_is_free() {
        let old = "def add(a, b):\n    \"\"\"Adds.\n\n    >>> add(2, 3)\n    5\n    >>> add(-1,\n    ...     1)\n    0\n    \"\"\"\n    raise NotImplementedError\n";
        // The body changes, an example is added: free.
        let honest = old
            .replace("raise NotImplementedError", "return a + b")
            .replace("    0\n", "    0\n    >>> add(0, 0)\n    0\n");
        assert_eq!(doctests_changed(old, &honest), Vec::<String>::new());
        // An expected output edited to what the code returns: a change.
        let edited = old.replace("    5\n", "    -1\n");
        let changed = doctests_changed(old, &edited);
        assert_eq!(changed.len(), 1, "{changed:?}");
        assert!(
            changed[0].contains("line 4") && changed[0].contains(">>> add(2, 3)"),
            "{changed:?}"
        );
        // Removed.
        assert_eq!(
            doctests_changed(old, "def add(a, b):\n    return a + b\n").len(),
            2
        );
    }

    #[test]
    fn python_files_must_define_tests() {
        assert!(defines_python_tests(
            "import unittest\n\nclass AddTest(unittest.TestCase):\n    pass\n"
        ));
        assert!(defines_python_tests("def test_add():\n    assert 1\n"));
        assert!(!defines_python_tests(
            "ROMAN = {'CI': 101}\n\ndef add(a, b):\n    return a + b\n"
        ));
    }
}
