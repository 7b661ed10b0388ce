//! Which paths are protected, which are tests and which are snapshots, from the `[attempt]`
//! globs.

use std::collections::BTreeSet;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

/// Snapshot files of the common snapshot tools: insta (`.snap`, pending `.snap.new`,
/// `.pending-snap`), Jest and Vitest (`__snapshots__/`), syrupy (`.ambr`), and
/// `snapshots/` folders.
const SNAPSHOT_GLOBS: &[&str] = &[
    "**/*.ambr",
    "**/*.pending-snap",
    "**/*.snap",
    "**/*.snap.new",
    "**/__snapshots__/**",
    "**/snapshots/**",
];

/// Compiled path rules of an attempt.
#[derive(Debug, Clone)]
pub(crate) struct Rules {
    protected: GlobSet,
    tests: GlobSet,
    /// The patterns of `tests`, by index.
    test_patterns: Vec<String>,
    snapshots: GlobSet,
    /// Paths protected by name (the acceptance tests, the intent file).
    protected_paths: Vec<String>,
    /// The project root's path in the repository (`""` at its top); globs are read from
    /// the project root.
    prefix: String,
    /// Files the base's own run ran tests from, as repository paths: tests whatever their
    /// names.
    ran_from: std::collections::BTreeSet<String>,
    /// Source files whose doctests the base ran, as repository paths: their examples are
    /// frozen, the rest is free.
    doctests: std::collections::BTreeSet<String>,
}

/// A glob set from `globs`. `*` stays within one folder; a glob without `/` matches the
/// file name in any folder, as in `.gitignore` (`spec.md` protects every `spec.md`).
fn compile(globs: &[String]) -> Result<GlobSet, String> {
    compile_listed(globs).map(|(set, _)| set)
}

/// [`compile`], with the pattern of each index of the set.
fn compile_listed(globs: &[String]) -> Result<(GlobSet, Vec<String>), String> {
    let mut set = GlobSetBuilder::new();
    let mut patterns = Vec::new();
    for glob in globs {
        let mut add = |pattern: &str| -> Result<(), String> {
            let compiled = GlobBuilder::new(pattern)
                .literal_separator(true)
                .build()
                .map_err(|err| format!("`{glob}` is not a valid glob: {}", err.kind()))?;
            set.add(compiled);
            patterns.push(pattern.to_owned());
            Ok(())
        };
        let pattern = glob.trim_start_matches('/');
        add(pattern)?;
        if !glob.contains('/') {
            add(&format!("**/{pattern}"))?;
        }
    }
    let set = set.build().map_err(|err| err.to_string())?;
    Ok((set, patterns))
}

/// Folders whose name is a test folder of other languages only (RSpec's and JavaScript's
/// `spec/`, jest's `__tests__/`): a Python or Go file there is a test only by its own
/// runner's naming, and `spec/` is a fine name for a product package in both.
const FOREIGN_TEST_FOLDERS: &[&str] = &["__tests__", "spec"];

/// Whether the project path `path`, matched by the folder glob `pattern` alone, is product
/// code by its runner's conventions: a Python or Go file under a [`FOREIGN_TEST_FOLDERS`]
/// folder that pytest (`test_*.py`, `*_test.py`, `conftest.py`) or `go test`
/// (`*_test.go`) would not read as a test.
fn product_by_convention(pattern: &str, path: &str) -> bool {
    let Some(folder) = pattern.strip_suffix("/**") else {
        return false;
    };
    let folder = folder.rsplit('/').next().unwrap_or(folder);
    let name = path.rsplit('/').next().unwrap_or(path);
    FOREIGN_TEST_FOLDERS.contains(&folder)
        && match name.rsplit_once('.') {
            Some((stem, "py")) => {
                !(stem.starts_with("test_") || stem.ends_with("_test") || stem == "conftest")
            }
            Some((stem, "go")) => !stem.ends_with("_test"),
            _ => false,
        }
}

impl Rules {
    /// The rules from the configured globs, with `protected_paths` protected as well, for a
    /// project at `prefix` in its repository. Every method takes a repository path.
    pub(crate) fn new(
        protected: &[String],
        tests: &[String],
        protected_paths: Vec<String>,
        prefix: &str,
    ) -> Result<Self, String> {
        let snapshots: Vec<String> = SNAPSHOT_GLOBS.iter().map(|g| (*g).to_owned()).collect();
        let (tests, test_patterns) = compile_listed(tests)?;
        Ok(Self {
            protected: compile(protected)?,
            tests,
            test_patterns,
            snapshots: compile(&snapshots)?,
            protected_paths,
            prefix: prefix.to_owned(),
            ran_from: std::collections::BTreeSet::new(),
            doctests: std::collections::BTreeSet::new(),
        })
    }

    /// The project's folder in its repository, `""` at the root.
    pub(crate) fn prefix(&self) -> &str {
        &self.prefix
    }

    /// `path` relative to the project root when it is inside it.
    pub(crate) fn project<'p>(&self, path: &'p str) -> &'p str {
        if self.prefix.is_empty() {
            return path;
        }
        path.strip_prefix(self.prefix.as_str())
            .and_then(|p| p.strip_prefix('/'))
            .unwrap_or(path)
    }

    /// Whether a change to `path` rejects the attempt.
    pub(crate) fn is_protected(&self, path: &str) -> bool {
        let path = self.project(path);
        self.protected_paths.iter().any(|p| p == path) || self.protected.is_match(path)
    }

    /// Whether `path` is a test file: by the `tests` globs (a folder's glob alone by the
    /// runner's naming too, [`product_by_convention`]), or because the base's own run ran
    /// tests from it.
    pub(crate) fn is_test(&self, path: &str) -> bool {
        let project = self.project(path);
        self.ran_from.contains(path)
            || self.tests.matches(project).into_iter().any(|i| {
                self.test_patterns
                    .get(i)
                    .is_none_or(|p| !product_by_convention(p, project))
            })
    }

    /// Adds what the base's run ran tests from: test files, and source files whose doctest
    /// examples are frozen.
    pub(crate) fn add_ran_from(&mut self, ran_from: RanFrom) {
        self.ran_from.extend(ran_from.tests);
        self.doctests.extend(ran_from.doctests);
    }

    /// Whether the base ran doctests from the source file `path`.
    pub(crate) fn has_doctests(&self, path: &str) -> bool {
        self.doctests.contains(path)
    }

    /// Whether `path` is a snapshot file.
    pub(crate) fn is_snapshot(&self, path: &str) -> bool {
        self.snapshots.is_match(self.project(path))
    }
}

/// What the base's test ids say about its files, as repository paths.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct RanFrom {
    /// Files the base ran tests from: test files.
    pub(crate) tests: BTreeSet<String>,
    /// Source files whose doctests the base ran: their examples are frozen.
    pub(crate) doctests: BTreeSet<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use speccoder_config::AttemptConfig;

    fn rules() -> Rules {
        let config = AttemptConfig::default();
        Rules::new(
            &config.protected,
            &config.tests,
            vec!["tests/test_frozen.py".into()],
            "",
        )
        .expect("valid")
    }

    #[test]
    fn default_globs() {
        let rules = rules();
        #[track_caller]
        fn case(got: bool, want: bool, what: &str) {
            assert_eq!(got, want, "{what}");
        }
        case(rules.is_protected("spec.md"), true, "spec.md");
        case(
            rules.is_protected("specs/001/spec.md"),
            true,
            "nested spec.md",
        );
        case(
            rules.is_protected(".github/workflows/ci.yml"),
            true,
            ".github",
        );
        case(
            rules.is_protected("src/.github/x"),
            false,
            "anchored .github/**",
        );
        case(rules.is_protected("tests/test_frozen.py"), true, "by name");
        case(rules.is_protected("src/spec.md.bak"), false, "other name");
        case(rules.is_test("tests/unit/test_a.py"), true, "tests/**");
        case(rules.is_test("src/test_a.py"), true, "test_*.py");
        case(rules.is_test("web/sum.test.ts"), true, "*.test.*");
        case(rules.is_test("pkg/sum_test.go"), true, "*_test.*");
        case(rules.is_test("src/lib.rs"), false, "source");
        case(rules.is_test("test/serialize.js"), true, "test/** (mocha)");
        case(
            rules.is_test("src/index.spec.ts"),
            true,
            "*.spec.* (vitest, jest)",
        );
        case(rules.is_test("__tests__/sum.js"), true, "__tests__/**");
        case(rules.is_test("spec/models/user_spec.rb"), true, "spec/**");
        case(
            rules.is_test("spec/calc.spec.js"),
            true,
            "spec/** (jasmine)",
        );
        case(
            rules.is_test("spec/helper.js"),
            true,
            "spec/** (mocha's helper)",
        );
        case(
            rules.is_test("spec/__init__.py"),
            false,
            "a Python package named spec",
        );
        case(rules.is_test("spec/parser.py"), false, "its module");
        case(rules.is_test("spec/test_parser.py"), true, "pytest's name");
        case(rules.is_test("spec/conftest.py"), true, "pytest's conftest");
        case(
            rules.is_test("spec/parse.go"),
            false,
            "a Go package named spec",
        );
        case(rules.is_test("spec/parse_test.go"), true, "go test's name");
        case(
            rules.is_test("tests/helpers.py"),
            true,
            "a helper of a Python test folder",
        );
        case(rules.is_test("src/spec_helper.rs"), false, "a source file");
        case(
            rules.is_test("src/testing.rs"),
            false,
            "another source file",
        );
        case(rules.is_snapshot("snapshots/a.snap"), true, "snap");
        case(
            rules.is_snapshot("web/__snapshots__/a.js.snap"),
            true,
            "jest",
        );
        case(rules.is_snapshot("src/snap.rs"), false, "source");
    }

    #[test]
    fn a_project_in_a_subfolder_reads_globs_from_its_root() {
        let rules =
            Rules::new(&[".ci/**".into()], &["tests/**".into()], Vec::new(), "app").expect("valid");
        assert!(rules.is_protected("app/.ci/x.yml"));
        assert!(!rules.is_protected("other/.ci/x.yml"));
        assert!(rules.is_test("app/tests/t.py"));
    }

    #[test]
    fn bad_glob_is_an_error() {
        let err = Rules::new(&["a/[b".into()], &[], Vec::new(), "").expect_err("bad glob");
        assert!(err.contains("`a/[b` is not a valid glob"), "{err}");
    }

    #[test]
    fn snapshot_globs_are_sorted() {
        let mut sorted = SNAPSHOT_GLOBS.to_vec();
        sorted.sort_unstable();
        assert_eq!(SNAPSHOT_GLOBS, sorted, "keep SNAPSHOT_GLOBS sorted");
    }
}
