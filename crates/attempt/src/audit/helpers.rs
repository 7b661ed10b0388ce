//! The tests' own helpers, frozen like the tests (invariant 3 of `docs/design/verdict.md`).
//! A helper module the base's tests import (`tests/helpers.py` with `def check(got, want):
//! assert got == want`, `test/support/check.js`, a Go `testutil` package) decides what the
//! tests assert as much as they do; neutered, every test through it passes. So the files
//! the base's Python and JavaScript test files import from the project, which assert
//! (`assert`, a test framework, `expect(`, node's `assert`), and which no product file
//! imports, are tests whatever their names; so is every Go file that is not a test file
//! and imports `testing`, which product code never does.

use std::collections::{BTreeMap, BTreeSet};

use crate::shared::imports::{
    javascript_module_paths, javascript_relative_imports, python_from_imports, python_module_paths,
};
use crate::store::{Entry, Store};

/// Files read at most, of each kind (tests, candidates, product files).
const MAX_READ: usize = 5_000;

/// The largest file read.
const MAX_BYTES: usize = 1 << 20;

/// Files read at once.
const BATCH: usize = 32;

/// The language of a path, for imports: Python, JavaScript, Go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lang {
    Python,
    Js,
    Go,
}

fn lang(path: &str) -> Option<Lang> {
    let ext = path.rsplit_once('.').map(|(_, e)| e)?;
    match ext {
        "py" => Some(Lang::Python),
        "js" | "cjs" | "mjs" | "ts" | "cts" | "mts" | "jsx" | "tsx" => Some(Lang::Js),
        "go" => Some(Lang::Go), // not a runner id
        _ => None,
    }
}

/// The texts of `paths` (at most [`MAX_READ`]), read from `files`.
fn read(
    paths: &[&str],
    files: &BTreeMap<String, &Entry>,
    store: &Store,
) -> Result<Vec<(String, String)>, String> {
    let mut texts = Vec::new();
    let paths = &paths[..paths.len().min(MAX_READ)];
    for batch in paths.chunks(BATCH) {
        let objects: Vec<String> = batch.iter().map(|p| files[*p].object.clone()).collect();
        for (path, blob) in batch.iter().zip(store.read_blobs(&objects, MAX_BYTES)?) {
            if let Some(blob) = blob {
                texts.push((
                    (*path).to_owned(),
                    String::from_utf8_lossy(&blob).into_owned(),
                ));
            }
        }
    }
    Ok(texts)
}

/// The project files `text` (of the file `path`) imports.
fn imports(path: &str, text: &str, files: &BTreeMap<String, &Entry>) -> Vec<String> {
    let candidates: Vec<String> = match lang(path) {
        Some(Lang::Python) => python_from_imports(text)
            .into_iter()
            .flat_map(|(module, _, _)| python_module_paths(&module, path))
            .collect(),
        Some(Lang::Js) => javascript_relative_imports(text)
            .iter()
            .filter_map(|spec| javascript_module_paths(spec, path))
            .flatten()
            .collect(),
        _ => Vec::new(),
    };
    candidates
        .into_iter()
        .filter(|p| files.contains_key(p))
        .collect()
}

/// Words of a path that name test support (`support/check.py`, `test_helpers.js`), as
/// whole words between `/`, `_`, `-` and `.`: `latest.py` or `checkout.js` name none.
const SUPPORT_WORDS: [&str; 20] = [
    "test",
    "tests",
    "testing",
    "testutil",
    "testutils",
    "testlib",
    "helper",
    "helpers",
    "support",
    "check",
    "checks",
    "checker",
    "assert",
    "asserts",
    "assertions",
    "fixture",
    "fixtures",
    "spec",
    "specs",
    "conftest",
];

/// Whether `path` names test support by one of its words.
fn names_support(path: &str) -> bool {
    path.to_ascii_lowercase()
        .split(['/', '_', '-', '.'])
        .any(|word| SUPPORT_WORDS.contains(&word))
}

/// Whether a module's text is a test helper's: it imports a test framework (pytest,
/// unittest, chai, jest's or vitest's globals) or calls jest's `expect(`; or it asserts
/// (`assert`, node's `assert`) and its path names test support. A product module the
/// tests import that asserts its own invariants is none: the module under test is often
/// imported by the tests alone.
fn asserts(path: &str, text: &str) -> bool {
    let support = names_support(path);
    match lang(path) {
        Some(Lang::Python) => {
            let lines = || text.lines().map(str::trim_start);
            let framework = lines().any(|l| {
                [
                    "import pytest",
                    "from pytest",
                    "from _pytest",
                    "import unittest",
                    "from unittest",
                ]
                .iter()
                .any(|h| l.starts_with(h))
            });
            framework
                || (support
                    && lines().any(|l| l.starts_with("assert ") || l.starts_with("self.assert")))
        }
        Some(Lang::Js) => {
            let framework = ["expect(", "chai", "@jest/globals", "\"vitest\"", "'vitest'"]
                .iter()
                .any(|w| text.contains(w));
            let assert = [
                "\"node:assert",
                "'node:assert",
                "\"assert\"",
                "'assert'",
                "\"assert/strict\"",
                "'assert/strict'",
            ]
            .iter()
            .any(|w| text.contains(w));
            framework || (support && assert)
        }
        _ => false,
    }
}

/// Whether a Go file imports `testing`.
fn imports_testing(text: &str) -> bool {
    text.lines()
        .map(str::trim)
        .any(|l| l == "\"testing\"" || l == "import \"testing\"")
}

/// The helpers of the base's tests among `entries`, as repository paths, for a project at
/// `prefix`; `is_test` takes a repository path.
pub(crate) fn helpers(
    entries: &[Entry],
    prefix: &str,
    is_test: impl Fn(&str) -> bool,
    store: &Store,
) -> Result<BTreeSet<String>, String> {
    let full = |path: &str| crate::prepare::join(prefix, path);
    let files: BTreeMap<String, &Entry> = entries
        .iter()
        .filter(|e| e.utf8 && matches!(e.mode.as_str(), "100644" | "100755"))
        .filter_map(|e| {
            let path = if prefix.is_empty() {
                e.path.clone()
            } else {
                e.path.strip_prefix(prefix)?.strip_prefix('/')?.to_owned()
            };
            lang(&path).map(|_| (path, e))
        })
        .collect();
    let (tests, product): (Vec<&str>, Vec<&str>) = files
        .keys()
        .map(String::as_str)
        .partition(|p| is_test(&full(p)));
    let mut found = BTreeSet::new();
    // Go: a file that is not a test and imports `testing`.
    let go: Vec<&str> = product
        .iter()
        .copied()
        .filter(|p| lang(p) == Some(Lang::Go) && !p.ends_with("_test.go"))
        .collect();
    for (path, text) in read(&go, &files, store)? {
        if imports_testing(&text) {
            found.insert(full(&path));
        }
    }
    // Python and JavaScript: what the tests import, which asserts, and which no product
    // file imports.
    let scripts = |paths: &[&str]| -> Vec<String> {
        paths
            .iter()
            .filter(|p| matches!(lang(p), Some(Lang::Python | Lang::Js)))
            .map(|p| (*p).to_owned())
            .collect()
    };
    let test_scripts = scripts(&tests);
    let test_refs: Vec<&str> = test_scripts.iter().map(String::as_str).collect();
    let mut imported: BTreeSet<String> = BTreeSet::new();
    for (path, text) in read(&test_refs, &files, store)? {
        imported.extend(imports(&path, &text, &files));
    }
    let candidates: Vec<&str> = imported
        .iter()
        .map(String::as_str)
        .filter(|p| !is_test(&full(p)))
        .collect();
    if candidates.is_empty() {
        return Ok(found);
    }
    let product_scripts = scripts(&product);
    let product_refs: Vec<&str> = product_scripts
        .iter()
        .map(String::as_str)
        .filter(|p| !candidates.contains(p))
        .collect();
    let mut used: BTreeSet<String> = BTreeSet::new();
    for (path, text) in read(&product_refs, &files, store)? {
        used.extend(imports(&path, &text, &files));
    }
    for (path, text) in read(&candidates, &files, store)? {
        if asserts(&path, &text) && !used.contains(&path) {
            found.insert(full(&path));
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_helper_is_told_by_its_framework_or_by_a_support_name() {
        let asserting = "def sums(a, b, want):\n    assert a + b == want\n";
        assert!(asserts("support/check.py", asserting));
        assert!(asserts("tests_helpers.py", asserting));
        // The module under test may assert its invariants, and `latest` is no `test`.
        assert!(!asserts("calc.py", asserting));
        assert!(!asserts("latest.py", asserting));
        assert!(!asserts("checkout.py", asserting));
        assert!(asserts("calc_pytest_glue.py", "import pytest\n"));
        let node = "const assert = require(\"node:assert\");\nexports.check = (a, b) => assert.strictEqual(a, b);\n";
        assert!(asserts("test/support/check.js", node));
        assert!(!asserts("lib/calc.js", node));
        assert!(asserts(
            "lib/calc.js",
            "exports.check = (a, b) => expect(a).toBe(b);\n"
        ));
        assert!(imports_testing("package testutil\n\nimport \"testing\"\n"));
        assert!(imports_testing(
            "package x\n\nimport (\n\t\"fmt\"\n\t\"testing\"\n)\n"
        ));
        assert!(!imports_testing("package x\n\nimport \"testing/quick\"\n"));
    }
}
