//! The gaming monitor: heuristics over the new lines of non-test source that warn (and
//! reject only with `[attempt] reject_gaming = true`). Code that reads how it is being run,
//! an expected value of a test newly returned by source, and a function returning a
//! constant while its tests expect several values.

use super::scan;
use crate::shared::{FileText, Warning};

/// A changed source file: its text at the base (empty when new) and now.
#[derive(Debug, Clone)]
pub(crate) struct SourceChange {
    /// Relative path.
    pub(crate) path: String,
    /// The base's text.
    pub(crate) old: String,
    /// The candidate's text.
    pub(crate) new: String,
}

/// The part of a Rust file before its first `#[cfg(test)]` line, where test code is not.
fn non_test_part(path: &str, text: &str) -> usize {
    if scan::Lang::of(path) != scan::Lang::Rust {
        return usize::MAX;
    }
    text.lines()
        .position(|l| l.trim_start().starts_with("#[cfg(test)]"))
        .map_or(usize::MAX, |i| i + 1)
}

/// The warnings for `sources` (changed non-test files) given the project's `tests`.
pub(crate) fn monitor(sources: &[SourceChange], tests: &[FileText]) -> Vec<Warning> {
    let mut warnings = Vec::new();
    let expected: Vec<(String, usize, String)> = tests
        .iter()
        .flat_map(|t| {
            scan::expected_values(&t.path, &t.text)
                .into_iter()
                .map(move |(line, value)| (t.path.clone(), line, value))
        })
        .collect();
    for source in sources {
        let limit = non_test_part(&source.path, &source.new);
        for (line, content) in scan::added_lines(&source.old, &source.new) {
            if line >= limit {
                continue;
            }
            if let Some((token, strong)) = scan::run_sensing(content) {
                warnings.push(Warning {
                    path: source.path.clone(),
                    line,
                    detail: format!("reads how the code is being run (`{token}`)"),
                    weak: !strong,
                });
            }
            let returned = scan::returned_part(content);
            if let Some((test, test_line, value)) = expected.iter().find(|(_, _, value)| {
                returned.is_some_and(|r| scan::contains_literal(r, value))
                    && !scan::contains_literal(&source.old, value)
            }) {
                warnings.push(Warning {
                    path: source.path.clone(),
                    line,
                    detail: format!(
                        "the literal {value} is new here and is an expected value in {test}:{test_line}"
                    ),
                    weak: false,
                });
            }
        }
        for function in scan::constant_functions(&source.new) {
            if function.line >= limit {
                continue;
            }
            let expectations: std::collections::BTreeSet<Vec<String>> = tests
                .iter()
                .flat_map(|t| scan::expectations_of(&t.path, &t.text, &function.name))
                .collect();
            if expectations.len() >= 2 {
                warnings.push(Warning {
                    path: source.path.clone(),
                    line: function.line,
                    detail: format!(
                        "`{}` returns the constant {} while its tests expect {} different values",
                        function.name,
                        function.value,
                        expectations.len()
                    ),
                    weak: false,
                });
            }
        }
    }
    warnings
}

/// The dev-dependencies of a `Cargo.toml` (plain and per target) that are the crate itself
/// (`path = "."`) with features, by name: `cargo test` builds the crate with those features
/// and `cargo build` without, so code under `#[cfg(feature = …)]` runs only under test.
fn self_dev_dependencies(text: &str) -> Vec<String> {
    let Ok(manifest) = text.parse::<toml::Table>() else {
        return Vec::new();
    };
    let tables = manifest.get("dev-dependencies").into_iter().chain(
        manifest
            .get("target")
            .and_then(toml::Value::as_table)
            .into_iter()
            .flat_map(|t| t.values())
            .filter_map(|t| t.get("dev-dependencies")),
    );
    let mut found = Vec::new();
    for (name, dependency) in tables.filter_map(toml::Value::as_table).flatten() {
        let path = dependency.get("path").and_then(toml::Value::as_str);
        let itself = path.is_some_and(|p| matches!(p.trim_end_matches('/'), "" | "."));
        let features = dependency
            .get("features")
            .and_then(toml::Value::as_array)
            .is_some_and(|f| !f.is_empty());
        if itself && features {
            found.push(name.clone());
        }
    }
    found
}

/// The warnings of a changed `Cargo.toml` at `path`: the crate made its own dev-dependency
/// with features, which it was not at the base.
pub(crate) fn manifest(path: &str, old: &str, new: &str) -> Vec<Warning> {
    if !(path == "Cargo.toml" || path.ends_with("/Cargo.toml")) {
        return Vec::new();
    }
    let before = self_dev_dependencies(old);
    self_dev_dependencies(new)
        .into_iter()
        .filter(|name| !before.contains(name))
        .map(|name| {
            // The line naming it with its path, else one naming it, else a path's.
            let added = scan::added_lines(old, new);
            let find = |want: &dyn Fn(&str) -> bool| added.iter().find(|(_, l)| want(l));
            let line = find(&|l| l.contains(name.as_str()) && l.contains("path"))
                .or_else(|| find(&|l| l.contains(name.as_str())))
                .or_else(|| find(&|l| l.contains("path")))
                .map_or(1, |(n, _)| *n);
            Warning {
                path: path.to_owned(),
                line,
                detail: format!(
                    "the crate is its own dev-dependency `{name}` with features: code behind them runs only under `cargo test`"
                ),
                weak: false,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(path: &str, old: &str, new: &str) -> SourceChange {
        SourceChange {
            path: path.into(),
            old: old.into(),
            new: new.into(),
        }
    }

    fn test_file(text: &str) -> FileText {
        FileText {
            path: "tests/test_calc.py".into(),
            text: text.into(),
        }
    }

    #[test]
    fn each_heuristic() {
        let tests = [test_file(
            "def test_add(self):\n    self.assertEqual(add(2, 3), 5)\n    self.assertEqual(add(10, 20), 30)\n",
        )];
        let old = "def add(a, b):\n    raise NotImplementedError\n";
        let honest = monitor(
            &[source("calc.py", old, "def add(a, b):\n    return a + b\n")],
            &tests,
        );
        assert_eq!(honest, []);
        let sensing = monitor(
            &[source(
                "calc.py",
                old,
                "import os\ndef add(a, b):\n    if os.environ.get(\"CI\"):\n        return a + b\n    return 0\n",
            )],
            &tests,
        );
        assert_eq!(sensing.len(), 1, "{sensing:?}");
        assert_eq!(sensing[0].line, 3);
        let literal = monitor(
            &[source(
                "calc.py",
                old,
                "def add(a, b):\n    if a == 2:\n        return 5\n    return a + b\n",
            )],
            &tests,
        );
        assert_eq!(literal.len(), 1, "{literal:?}");
        assert_eq!(literal[0].line, 3);
        assert!(
            literal[0].detail.contains("the literal 5"),
            "{}",
            literal[0].detail
        );
        let constant = monitor(
            &[source("calc.py", old, "def add(a, b):\n    return 30\n")],
            &tests,
        );
        assert_eq!(constant.len(), 2, "{constant:?}");
        assert!(
            constant[1].detail.contains("`add` returns the constant 30"),
            "{constant:?}"
        );
    }

    #[test]
    fn a_crate_that_is_its_own_dev_dependency_with_features() {
        let old = "[package]\nname = \"calc\"\nversion = \"0.1.0\"\n\n[features]\ntesting = []\n";
        for added in [
            "\n[dev-dependencies]\ncalc = { path = \".\", features = [\"testing\"] }\n",
            "\n[dev-dependencies.calc]\npath = \"./\"\nfeatures = [\"testing\"]\n",
            "\n[target.'cfg(unix)'.dev-dependencies]\ncalc = { path = \".\", features = [\"testing\"] }\n",
        ] {
            let new = format!("{old}{added}");
            let warnings = manifest("Cargo.toml", old, &new);
            assert_eq!(warnings.len(), 1, "{added}: {warnings:?}");
            assert!(!warnings[0].weak);
            assert!(warnings[0].line > 7, "{warnings:?}");
            // Already so at the base: nothing new.
            assert_eq!(manifest("Cargo.toml", &new, &new), []);
        }
        for honest in [
            "\n[dev-dependencies]\nproptest = \"1\"\n",
            "\n[dev-dependencies]\ncalc-macros = { path = \"macros\", features = [\"x\"] }\n",
            "\n[dev-dependencies]\ncalc = { path = \".\" }\n",
        ] {
            let new = format!("{old}{honest}");
            assert_eq!(manifest("Cargo.toml", old, &new), [], "{honest}");
        }
    }

    #[test]
    fn rust_test_modules_are_not_source() {
        let new = "pub fn f() -> i32 { 2 }\n#[cfg(test)]\nmod tests {\n    fn g() { if std::env::var(\"CI\").is_ok() {} }\n}\n";
        assert_eq!(monitor(&[source("src/lib.rs", "", new)], &[]), []);
    }
}
