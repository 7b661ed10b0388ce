//! A known answer in every check (invariant 11 of `docs/design/verdict.md`). The code under test
//! runs inside the test runner's process, so it can print, write or exit as the runner
//! would; a canary tells a real report from a forged one. Before each check run, the check
//! tree gets one test that must pass and one that fails but is marked so (an expected
//! failure in Python, a skip in Go and JavaScript), under a name drawn afresh for that run,
//! in files the runner collects by its own rules. The report must show each as it is
//! written; a canary the base's run collected and that is missing now, or reported the
//! wrong way (a forger that reports every test passed), is `forged_results`. Neither
//! canary changes the run's exit code: a failing test would stop the steps after the
//! runner (`pytest` then `go test` in one Makefile recipe, `jest && eslint`), and the check
//! would lose them at the base and after the change alike.
//! Canaries never reach the commit (the check tree is not committed), the digest or the
//! story's test ids (they are taken out of the report before it is judged).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::results::{TestOutcome, TestReport};
use crate::check_tree::CheckTree;
use crate::shared::Prepared;
use crate::store::Entry;

/// The words of the failing canary's message.
const CANARY_WORDS: &str = "speccoder canary";

/// Go packages given a canary at most.
const MAX_GO_PACKAGES: usize = 200;

/// Rust test binaries given a canary at most.
const MAX_RUST_FILES: usize = 500;

/// The canaries of one check run.
#[derive(Debug, Clone, Default)]
pub(crate) struct Canary {
    /// The name drawn for this run; every canary test's id holds it.
    token: String,
    /// The files written or added to, as paths in the check tree.
    pub(crate) files: Vec<PathBuf>,
    /// The test binaries given a canary, by the source cargo names them by
    /// (`src/lib.rs`, `tests/sub.rs`).
    rust: BTreeSet<String>,
}

/// A token no file of the tree can know beforehand: 16 hex digits from the system's
/// random source (or, failing that, from a randomly keyed hash of the time).
fn token() -> String {
    let mut bytes = [0u8; 8];
    let read = std::fs::File::open("/dev/urandom")
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut bytes));
    if read.is_err() {
        use std::hash::{BuildHasher, Hasher};
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
        );
        bytes = hasher.finish().to_le_bytes();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The name of a Python canary module beside `test_file`, in the shape the project's test
/// files have, so that a custom discovery pattern (`check_*.py`) collects it too.
fn python_name(test_file: &str, token: &str) -> String {
    let stem = test_file.trim_end_matches(".py");
    if stem.starts_with("test_") || stem == "test" {
        format!("test_zz{token}.py")
    } else if stem.ends_with("_test") {
        format!("zz{token}_test.py")
    } else if let Some((head, _)) = stem.split_once('_') {
        format!("{head}_zz{token}.py")
    } else {
        format!("test_zz{token}.py")
    }
}

fn python_canary(token: &str) -> String {
    format!(
        "import unittest\n\n\nclass SpeccoderCanary{token}(unittest.TestCase):\n    def test_passes_{token}(self):\n        pass\n\n    @unittest.expectedFailure\n    def test_fails_{token}(self):\n        self.fail(\"{CANARY_WORDS}: this test fails on purpose\")\n"
    )
}

/// The JavaScript test runner a check runs, as far as the project says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Js {
    NodeTest,
    Mocha,
    Jest,
    Vitest,
}

impl Js {
    /// The runner `text` (the checks' commands and the package's manifest) names: vitest
    /// before jest (a vitest project may name jest's matchers), then mocha, then node's.
    fn named_in(text: &str) -> Option<Self> {
        if text.contains("vitest") {
            Some(Self::Vitest)
        } else if text.contains("jest") {
            Some(Self::Jest)
        } else if text.contains("mocha") {
            Some(Self::Mocha)
        } else if text.contains("--test") || text.contains("node:test") {
            Some(Self::NodeTest)
        } else {
            None
        }
    }

    /// The canary file's text, and its extension.
    fn canary(self, token: &str) -> (String, &'static str) {
        let tests = |call: &str| {
            format!(
                "{call}(\"canary passes {token}\", () => {{}});\n\n{call}.skip(\"canary fails {token}\", () => {{\n  throw new Error(\"{CANARY_WORDS}: this test is skipped on purpose\");\n}});\n"
            )
        };
        match self {
            // A CommonJS file, whatever the package's type: node runs `.cjs` as such.
            Self::NodeTest => (
                format!(
                    "const {{ test }} = require(\"node:test\");\n\n{}",
                    tests("test")
                ),
                "cjs",
            ),
            Self::Mocha => (tests("it"), "js"),
            Self::Jest => (tests("test"), "js"),
            // vitest reads ES imports in any file, and its globals may be off.
            Self::Vitest => (
                format!("import {{ test }} from \"vitest\";\n\n{}", tests("test")),
                "js",
            ),
        }
    }
}

/// The name of a JavaScript canary beside `test_file`, in its shape (`x.test.js`,
/// `x.spec.ts`, `x_test.js`, or any name in a test folder).
fn js_name(test_file: &str, token: &str, extension: &str) -> String {
    let mark = [".test.", ".spec.", "_test.", "-test."]
        .into_iter()
        .find(|mark| test_file.contains(mark))
        .unwrap_or(".");
    format!("zz{token}{mark}{extension}")
}

fn go_canary(package: &str, token: &str) -> String {
    format!(
        "package {package}\n\nimport \"testing\"\n\nfunc TestSpeccoderCanaryPasses{token}(t *testing.T) {{}}\n\nfunc TestSpeccoderCanaryFails{token}(t *testing.T) {{\n\tt.Skip(\"{CANARY_WORDS}: this test is skipped on purpose\")\n}}\n"
    )
}

/// The canary of a Rust test binary, added at the end of the file the binary is built from:
/// items at the top level, with no indentation, so that `cargo fmt --check` passes whatever
/// the project's indentation, and `#[test]` items are built only into the test binary.
/// The reason on `#[ignore]` keeps clippy's pedantic lints quiet.
fn rust_canary(token: &str) -> String {
    format!(
        "\n#[test]\nfn speccoder_canary_passes_{token}() {{}}\n\n#[test]\n#[ignore = \"{CANARY_WORDS}\"]\nfn speccoder_canary_fails_{token}() {{}}\n"
    )
}

/// Whether `file` is empty or ends in a newline.
fn ends_in_newline(file: &mut std::fs::File) -> std::io::Result<bool> {
    use std::io::{Read, Seek, SeekFrom};
    if file.metadata()?.len() == 0 {
        return Ok(true);
    }
    file.seek(SeekFrom::End(-1))?;
    let mut last = [0u8; 1];
    file.read_exact(&mut last)?;
    Ok(last[0] == b'\n')
}

/// The Rust files `cargo test` builds test binaries from, with the source cargo names each
/// by: for every crate (a folder with `Cargo.toml`, not a vendored one), `src/lib.rs`,
/// `tests/NAME.rs` and `tests/NAME/main.rs`. Targets at other paths go without a canary.
fn rust_targets(paths: &BTreeSet<&str>) -> Vec<(String, String)> {
    let mut targets = Vec::new();
    for manifest in paths
        .iter()
        .filter(|p| **p == "Cargo.toml" || p.ends_with("/Cargo.toml"))
    {
        let folder = &manifest[..manifest.len() - "Cargo.toml".len()];
        // A vendored crate's files are checked against its checksums.
        if paths.contains(format!("{folder}.cargo-checksum.json").as_str()) {
            continue;
        }
        let lib = format!("{folder}src/lib.rs");
        if paths.contains(lib.as_str()) {
            targets.push((lib, "src/lib.rs".to_owned()));
        }
        let tests = format!("{folder}tests/");
        for path in paths
            .range(tests.as_str()..)
            .take_while(|p| p.starts_with(&tests))
        {
            let name = &path[folder.len()..];
            let rest = &name["tests/".len()..];
            let binary = match rest.split_once('/') {
                None => rest.ends_with(".rs"),
                Some((_, file)) => file == "main.rs",
            };
            if binary {
                targets.push(((*path).to_owned(), name.to_owned()));
            }
        }
        if targets.len() >= MAX_RUST_FILES {
            break;
        }
    }
    targets.truncate(MAX_RUST_FILES);
    targets
}

/// The package clause of a Go file.
fn go_package(text: &str) -> Option<&str> {
    text.lines().find_map(|line| {
        let name = line.trim().strip_prefix("package ")?.trim();
        let name = name.split("//").next().unwrap_or(name).trim();
        (!name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_')).then_some(name)
    })
}

/// Writes a canary's `text` to `path` and adds it to `files`; a path taken already is left
/// as it is.
fn write_canary(files: &mut Vec<PathBuf>, path: PathBuf, text: String) -> Result<(), String> {
    if std::fs::symlink_metadata(&path).is_ok() {
        return Ok(());
    }
    std::fs::write(&path, text)
        .map_err(|err| format!("cannot write the canary {}: {err}", path.display()))?;
    files.push(path);
    Ok(())
}

/// Plants the Python canary in `dir`: one module beside the first test module of `tests`
/// (one named like a test first; never beside a package's `__init__.py` or a
/// `conftest.py` alone).
fn plant_python(
    dir: &Path,
    tests: &[&Entry],
    token: &str,
    files: &mut Vec<PathBuf>,
) -> Result<(), String> {
    let python: Vec<&Entry> = tests
        .iter()
        .copied()
        .filter(|e| {
            let name = e.path.rsplit('/').next().unwrap_or(&e.path);
            name.ends_with(".py") && !name.starts_with('_') && name != "conftest.py"
        })
        .collect();
    let first = python
        .iter()
        .find(|e| {
            let name = e.path.rsplit('/').next().unwrap_or(&e.path);
            name.starts_with("test") || name.ends_with("_test.py")
        })
        .or(python.first())
        .copied();
    if let Some(entry) = first {
        let (folder, name) = entry.path.rsplit_once('/').unwrap_or(("", &entry.path));
        let folder = dir.join(folder);
        if folder.is_dir() {
            write_canary(
                files,
                folder.join(python_name(name, token)),
                python_canary(token),
            )?;
        }
    }
    Ok(())
}

/// Plants the JavaScript canary in `dir`: one file beside the first test file of `tests`,
/// for the runner the check names (`js`, none without one).
fn plant_js(
    dir: &Path,
    tests: &[&Entry],
    js: Option<Js>,
    token: &str,
    files: &mut Vec<PathBuf>,
) -> Result<(), String> {
    let is_js = |p: &str| {
        [".js", ".cjs", ".mjs", ".ts", ".mts", ".cts", ".jsx", ".tsx"]
            .iter()
            .any(|e| p.ends_with(e))
    };
    if let Some(js) = js
        && let Some(entry) = tests
            .iter()
            .find(|e| is_js(&e.path) && !e.path.contains("node_modules/"))
    {
        let (folder, name) = entry.path.rsplit_once('/').unwrap_or(("", &entry.path));
        let folder = dir.join(folder);
        let (text, extension) = js.canary(token);
        if folder.is_dir() {
            write_canary(files, folder.join(js_name(name, token, extension)), text)?;
        }
    }
    Ok(())
}

/// Plants the Go canaries in `dir`: one file in each package of `tests` that has tests, in
/// its own package, read from a test file's text through `read`.
fn plant_go(
    dir: &Path,
    tests: &[&Entry],
    read: impl Fn(&Entry) -> Option<String>,
    token: &str,
    files: &mut Vec<PathBuf>,
) -> Result<(), String> {
    let mut packages: BTreeMap<&str, &Entry> = BTreeMap::new();
    for entry in tests.iter().filter(|e| e.path.ends_with("_test.go")) {
        let folder = entry.path.rsplit_once('/').map_or("", |(f, _)| f);
        packages.entry(folder).or_insert(entry);
    }
    for (folder, entry) in packages.into_iter().take(MAX_GO_PACKAGES) {
        let Some(text) = read(entry) else { continue };
        let Some(package) = go_package(&text) else {
            continue;
        };
        let folder = dir.join(folder);
        if folder.is_dir() {
            // First in the package: go runs a package's tests in file order, and a
            // panic in a later test ends them all.
            write_canary(
                files,
                folder.join(format!("0canary_{token}_test.go")),
                go_canary(package, token),
            )?;
        }
    }
    Ok(())
}

/// Plants the Rust canaries in `dir`: at the end of each test binary's own file of `rust`,
/// so that every binary cargo runs reports one; a canary that never fails cannot stop
/// cargo's run either. Returns the binaries given one.
fn plant_rust(
    dir: &Path,
    rust: &[(String, String)],
    token: &str,
    files: &mut Vec<PathBuf>,
) -> Result<BTreeSet<String>, String> {
    let mut binaries = BTreeSet::new();
    for (path, binary) in rust {
        let path = dir.join(path);
        // Only a plain file of the tree: never through a link.
        let plain = std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_file());
        if !plain {
            continue;
        }
        let fail =
            |err: std::io::Error| format!("cannot add the canary to {}: {err}", path.display());
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .append(true)
            .open(&path)
            .map_err(fail)?;
        // The canary's blank line comes after the file's last line, ended or not.
        let mut text = rust_canary(token);
        if !ends_in_newline(&mut file).map_err(fail)? {
            text.insert(0, '\n');
        }
        std::io::Write::write_all(&mut file, text.as_bytes()).map_err(fail)?;
        files.push(path);
        binaries.insert(binary.clone());
    }
    Ok(binaries)
}

impl Canary {
    /// Writes the canaries of one check run into the check tree `dir`, placed by the
    /// tree's test files (`tests`, with their texts read on demand through `read`) and
    /// added to the Rust files of `rust` (repository path, and the source cargo names).
    pub(crate) fn plant(
        dir: &Path,
        tests: &[&Entry],
        js: Option<Js>,
        rust: &[(String, String)],
        read: impl Fn(&Entry) -> Option<String>,
    ) -> Result<Self, String> {
        let token = token();
        let mut files = Vec::new();
        plant_python(dir, tests, &token, &mut files)?;
        plant_js(dir, tests, js, &token, &mut files)?;
        plant_go(dir, tests, read, &token, &mut files)?;
        let binaries = plant_rust(dir, rust, &token, &mut files)?;
        Ok(Self {
            token,
            files,
            rust: binaries,
        })
    }

    /// `text` (a check's output) without the lines that name the canaries: what a person
    /// and the next agent read never shows them.
    pub(crate) fn scrub(&self, text: &str) -> String {
        if self.files.is_empty() {
            return text.to_owned();
        }
        text.lines()
            .filter(|line| !line.contains(&self.token) && !line.contains(CANARY_WORDS))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The report without the canaries' tests and counts.
    pub(crate) fn strip(&self, report: &TestReport) -> TestReport {
        let mut stripped = report.clone();
        if self.token.is_empty() {
            return stripped;
        }
        let mut gone = Vec::new();
        stripped.tests.retain(|id, outcome| {
            let canary = id.contains(&self.token);
            if canary {
                gone.push(*outcome);
            }
            !canary
        });
        for outcome in gone {
            if let Some(count) = stripped.counts.get_mut(&outcome) {
                *count = count.saturating_sub(1);
            }
        }
        stripped.counts.retain(|_, n| *n > 0);
        stripped
    }

    /// What the report says of the canaries: `Ok(Some(held))`, the report without them
    /// and where they were, when they held; `Ok(None)` when none was collected; `Err(why)`
    /// when the report is not the runner's. A canary reported the wrong way always says
    /// so; a missing one only when the run `ended_well` (exit code 0): a run that failed
    /// fails as it is, and what it did not get to print is no forgery.
    pub(crate) fn read(
        &self,
        report: &TestReport,
        ended_well: bool,
    ) -> Result<Option<CanariesHeld>, String> {
        if self.token.is_empty() || self.files.is_empty() {
            return Ok(None);
        }
        let token = &self.token;
        let mut passing = Vec::new();
        let mut failing = Vec::new();
        for (id, outcome) in &report.tests {
            if !id.contains(token) {
                continue;
            }
            // By the test's own name (`test_fails_<t>`, `TestSpeccoderCanaryFails<t>`,
            // `canary fails <t>`), never by a word elsewhere in the id: a folder named
            // `emails` must not make the passing canary the marked one.
            let marked = ["fails_", "Fails", "fails "]
                .iter()
                .any(|name| id.contains(&format!("{name}{token}")));
            if marked {
                failing.push((id, *outcome));
            } else {
                passing.push((id, *outcome));
            }
        }
        if let Some((id, outcome)) = failing
            .iter()
            .find(|(_, o)| !matches!(o, TestOutcome::Xfailed | TestOutcome::Skipped))
        {
            let id = id.replace(token.as_str(), "*");
            return Err(format!(
                "the canary `{id}`, an expected failure or a skip, is reported as {outcome:?}: the report is not the runner's"
            ));
        }
        if let Some((id, outcome)) = passing.iter().find(|(_, o)| *o != TestOutcome::Passed) {
            let id = id.replace(token.as_str(), "*");
            return Err(format!(
                "the canary `{id}`, which passes, is reported as {outcome:?}: the report is not the runner's"
            ));
        }
        if ended_well {
            if failing.is_empty() != passing.is_empty() {
                return Err(
                    "one of the two canaries is missing from the report, beside the other".into(),
                );
            }
            // cargo names each test binary it runs itself; one with a canary must report it.
            for binary in report.binaries.iter().filter(|b| self.rust.contains(*b)) {
                let reported = |name: &str| {
                    report
                        .tests
                        .contains_key(&format!("{binary}::speccoder_canary_{name}_{token}"))
                };
                if !reported("passes") || !reported("fails") {
                    return Err(format!(
                        "cargo ran the test binary of `{binary}`, but its canary is missing from the report: the binary ended early, or its report is not the runner's"
                    ));
                }
            }
        }
        if failing.is_empty() && passing.is_empty() {
            return Ok(None);
        }
        let places = failing
            .iter()
            .chain(&passing)
            .map(|(id, _)| id.replace(token.as_str(), "*"))
            .collect();
        Ok(Some(CanariesHeld {
            report: self.strip(report),
            places,
        }))
    }
}

/// A report whose canaries held.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CanariesHeld {
    /// The report without the canaries.
    pub(crate) report: TestReport,
    /// The canaries' ids with the drawn name as `*`: where a canary was collected, the
    /// same from one run to the next.
    pub(crate) places: BTreeSet<String>,
}

/// Plants the canaries of one run of the checks in `check`, a check tree of `tree`, placed
/// by `tree`'s test files; they are read-only while the checks run. A canary that cannot
/// be placed leaves the check without one, which the base's run shows too.
pub(crate) fn plant_in(prepared: &Prepared, tree: &str, check: &mut CheckTree) -> Canary {
    let Ok(entries) = prepared.store.entries(tree) else {
        return Canary::default();
    };
    let tests: Vec<&Entry> = entries
        .iter()
        .filter(|e| e.utf8 && e.mode.starts_with("100") && prepared.rules.is_test(&e.path))
        .collect();
    let read = |entry: &Entry| -> Option<String> {
        let blobs = prepared
            .store
            .read_blobs(std::slice::from_ref(&entry.object), 1 << 20)
            .ok()?;
        let bytes = blobs.into_iter().next()??;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    };
    // What the checks run, and the package's manifest: which JavaScript runner it is.
    let mut named = String::new();
    for op in &prepared.ops {
        if let Ok(resolved) = prepared.recipe.resolve(op) {
            named.push_str(&resolved.command);
            named.push('\n');
        }
    }
    if let Ok(bytes) =
        speccoder_foundation::files::read_limited(&check.project.join("package.json"), 1 << 20)
    {
        named.push_str(&String::from_utf8_lossy(&bytes));
    }
    // Rust: unless a check runs ignored tests, which would run the marked canary.
    let rust = if named.contains("--ignored") || named.contains("--include-ignored") {
        Vec::new()
    } else {
        // The withheld tests are in the check tree, not in `tree`.
        let withheld = prepared.withheld.iter().flat_map(|w| &w.paths);
        let present = withheld.filter(|p| check.dir.join(p).is_file());
        let paths = entries.iter().map(|e| e.path.as_str());
        rust_targets(&paths.chain(present.map(String::as_str)).collect())
    };
    match Canary::plant(&check.dir, &tests, Js::named_in(&named), &rust, read) {
        Ok(canary) => {
            check.read_only.extend(canary.files.iter().cloned());
            canary
        }
        Err(_) => Canary::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_canaries_take_the_shape_of_the_projects_test_files() {
        assert_eq!(python_name("test_add.py", "ab"), "test_zzab.py");
        assert_eq!(python_name("add_test.py", "ab"), "zzab_test.py");
        assert_eq!(python_name("check_add.py", "ab"), "check_zzab.py");
        assert_eq!(python_name("tests.py", "ab"), "test_zzab.py");
    }

    #[test]
    fn javascript_canaries_take_the_shape_of_the_projects_test_files() {
        assert_eq!(js_name("add.test.js", "ab", "js"), "zzab.test.js");
        assert_eq!(js_name("add.spec.ts", "ab", "js"), "zzab.spec.js");
        assert_eq!(js_name("add_test.js", "ab", "cjs"), "zzab_test.cjs");
        assert_eq!(js_name("add.js", "ab", "js"), "zzab.js");
        assert_eq!(
            Js::named_in("vitest run --globals\n\"jest-dom\""),
            Some(Js::Vitest)
        );
        assert_eq!(
            Js::named_in("{\"scripts\": {\"test\": \"node --test\"}}"),
            Some(Js::NodeTest)
        );
        assert_eq!(Js::named_in("make test"), None);
    }

    #[test]
    fn python_canaries_go_beside_a_test_module() {
        let entry = |path: &str| Entry {
            mode: "100644".into(),
            object: String::new(),
            path: path.into(),
            utf8: true,
        };
        let dir = tempfile::tempdir().expect("temp dir");
        for folder in ["checks", "tests"] {
            std::fs::create_dir(dir.path().join(folder)).expect("mkdir");
        }
        let tests = [
            entry("checks/__init__.py"),
            entry("checks/check_add.py"),
            entry("tests/__init__.py"),
            entry("tests/conftest.py"),
            entry("tests/test_add.py"),
        ];
        let refs: Vec<&Entry> = tests.iter().collect();
        let canary = Canary::plant(dir.path(), &refs, None, &[], |_| None).expect("planted");
        assert_eq!(canary.files.len(), 1);
        let name = canary.files[0].strip_prefix(dir.path()).expect("inside");
        assert!(
            name.to_string_lossy().starts_with("tests/test_zz"),
            "{name:?}"
        );
        let canary = Canary::plant(dir.path(), &refs[..2], None, &[], |_| None).expect("planted");
        let name = canary.files[0].strip_prefix(dir.path()).expect("inside");
        assert!(
            name.to_string_lossy().starts_with("checks/check_zz"),
            "{name:?}"
        );
    }

    #[test]
    fn tokens_differ() {
        let (a, b) = (token(), token());
        assert_eq!(a.len(), 16);
        assert_ne!(a, b);
    }

    #[test]
    fn go_packages_are_read_from_the_clause() {
        assert_eq!(
            go_package("// x\npackage calc_test // ext\n"),
            Some("calc_test")
        );
        assert_eq!(go_package("package main\n"), Some("main"));
        assert_eq!(go_package("func x() {}\n"), None);
    }

    fn canary() -> Canary {
        Canary {
            token: "f00d".into(),
            files: vec![PathBuf::from("tests/test_zzf00d.py")],
            rust: ["src/lib.rs".to_owned(), "tests/sub.rs".to_owned()].into(),
        }
    }

    fn report(tests: &[(&str, TestOutcome)]) -> TestReport {
        TestReport {
            tests: tests.iter().map(|(id, o)| ((*id).to_owned(), *o)).collect(),
            ..TestReport::default()
        }
    }

    #[test]
    fn the_canaries_must_come_out_as_they_are_written() {
        use TestOutcome::{Failed, Passed, Skipped, Xfailed};
        let pass = "tests/test_zzf00d.py::SpeccoderCanaryf00d::test_passes_f00d";
        let fail = "tests/test_zzf00d.py::SpeccoderCanaryf00d::test_fails_f00d";
        let real = "tests/test_add.py::test_small";
        let read = |tests: &[(&str, TestOutcome)]| canary().read(&report(tests), true);
        let held = read(&[(pass, Passed), (fail, Xfailed), (real, Passed)])
            .expect("held")
            .expect("collected");
        assert_eq!(held.report.tests.keys().collect::<Vec<_>>(), [real]);
        assert_eq!(
            held.places,
            [
                "tests/test_zz*.py::SpeccoderCanary*::test_fails_*".to_owned(),
                "tests/test_zz*.py::SpeccoderCanary*::test_passes_*".to_owned()
            ]
            .into()
        );
        assert!(read(&[(pass, Passed), (fail, Skipped)]).is_ok());
        // Every test reported passed, or the marked one failed: not the runner's report.
        assert!(read(&[(pass, Passed), (fail, Passed)]).is_err());
        assert!(read(&[(pass, Passed), (fail, Failed)]).is_err());
        assert!(read(&[(pass, Failed), (fail, Xfailed)]).is_err());
        assert!(read(&[(pass, Passed)]).is_err());
        assert!(read(&[(fail, Xfailed)]).is_err());
        // A folder whose name holds "fails" or "ails" changes nothing.
        let pass = "emails/details/test_zzf00d.py::SpeccoderCanaryf00d::test_passes_f00d";
        let fail = "emails/details/test_zzf00d.py::SpeccoderCanaryf00d::test_fails_f00d";
        assert!(read(&[(pass, Passed), (fail, Xfailed)]).is_ok());
        assert!(read(&[(pass, Passed), (fail, Passed)]).is_err());
        // Go's and JavaScript's names.
        let go = |name: &str| format!("calc/TestSpeccoderCanary{name}f00d");
        assert!(read(&[(&go("Passes"), Passed), (&go("Fails"), Skipped)]).is_ok());
        let js = |name: &str| format!("test/zzf00d.test.js > canary {name} f00d");
        assert!(read(&[(&js("passes"), Passed), (&js("fails"), Skipped)]).is_ok());
        assert_eq!(canary().read(&report(&[(real, Passed)]), true), Ok(None));
        // A run that failed may end before a canary; one reported wrong is still forged.
        assert!(canary().read(&report(&[(pass, Passed)]), false).is_ok());
        assert!(
            canary()
                .read(&report(&[(pass, Passed), (fail, Passed)]), false)
                .is_err()
        );
    }

    #[test]
    fn every_test_binary_cargo_ran_must_report_its_canary() {
        use TestOutcome::{Passed, Skipped};
        let mut ran = report(&[
            ("src/lib.rs::speccoder_canary_passes_f00d", Passed),
            ("src/lib.rs::speccoder_canary_fails_f00d", Skipped),
            ("src/lib.rs::tests::adds", Passed),
        ]);
        ran.binaries = ["src/lib.rs".to_owned()].into();
        let held = canary().read(&ran, true).expect("held").expect("collected");
        assert_eq!(held.report.tests.len(), 1);
        // cargo ran `tests/sub.rs`, which printed nothing of its canary: it ended early,
        // or what it printed is not libtest's.
        ran.binaries.insert("tests/sub.rs".to_owned());
        assert!(canary().read(&ran, true).is_err());
        assert!(canary().read(&ran, false).is_ok());
        // A binary without a canary (a path cargo names but none was added to) is free.
        ran.binaries.remove("tests/sub.rs");
        ran.binaries.insert("benches/b.rs".to_owned());
        assert!(canary().read(&ran, true).is_ok());
    }

    #[test]
    fn rust_canaries_go_into_each_test_binary_of_each_crate() {
        let paths: BTreeSet<&str> = [
            "Cargo.toml",
            "src/lib.rs",
            "src/main.rs",
            "tests/sub.rs",
            "tests/common/mod.rs",
            "tests/suite/main.rs",
            "tests/data/input.txt",
            "crates/core/Cargo.toml",
            "crates/core/src/lib.rs",
            "crates/core/tests/it.rs",
            "vendor/dep/Cargo.toml",
            "vendor/dep/.cargo-checksum.json",
            "vendor/dep/src/lib.rs",
        ]
        .into();
        let targets = rust_targets(&paths);
        let pairs: Vec<(&str, &str)> = targets
            .iter()
            .map(|(p, b)| (p.as_str(), b.as_str()))
            .collect();
        assert_eq!(
            pairs,
            [
                ("src/lib.rs", "src/lib.rs"),
                ("tests/sub.rs", "tests/sub.rs"),
                ("tests/suite/main.rs", "tests/suite/main.rs"),
                ("crates/core/src/lib.rs", "src/lib.rs"),
                ("crates/core/tests/it.rs", "tests/it.rs"),
            ]
        );
    }

    #[test]
    fn a_rust_canary_follows_the_last_line() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir(dir.path().join("src")).expect("mkdir");
        std::fs::write(dir.path().join("src/lib.rs"), "pub fn f() {}").expect("write");
        std::os::unix::fs::symlink("/etc/hostname", dir.path().join("src/link.rs")).expect("link");
        let rust = [
            ("src/lib.rs".to_owned(), "src/lib.rs".to_owned()),
            ("src/link.rs".to_owned(), "tests/link.rs".to_owned()),
        ];
        let canary = Canary::plant(dir.path(), &[], None, &rust, |_| None).expect("planted");
        let text = std::fs::read_to_string(dir.path().join("src/lib.rs")).expect("read");
        let token = &canary.token;
        assert_eq!(
            text,
            format!(
                "pub fn f() {{}}\n\n#[test]\nfn speccoder_canary_passes_{token}() {{}}\n\n#[test]\n#[ignore = \"speccoder canary\"]\nfn speccoder_canary_fails_{token}() {{}}\n"
            )
        );
        // Never through a link.
        assert_eq!(canary.rust, ["src/lib.rs".to_owned()].into());
        assert_eq!(canary.files, [dir.path().join("src/lib.rs")]);
    }
}
