use super::*;
use crate::verdict::twins::naming::{Style, drawn_name, parts, words};
use crate::verdict::twins::{Coin, twin_of};

struct Up;
impl Coin for Up {
    fn flip(&mut self) -> bool {
        true
    }
}

/// The known answer of `text` drawn for `seed`, which its twin changes.
fn known(path: &str, text: &str, seed: &str) -> (String, String) {
    let mut draw = Draw::new(seed, path);
    let (out, name) = known_answer(path, text, &mut draw, &|_| false).expect("a known answer");
    let (_, names) = twin_of(path, &out, &mut Up).expect("twinned");
    assert!(names.contains(&name), "{names:?} lacks {name}");
    (out, name)
}

const PYTEST: &str = "from calc import add\n\n\ndef test_small():\n    assert add(2, 3) == 5\n\n\ndef test_negative_numbers():\n    assert add(-4, 1) == -3\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n";

#[test]
fn a_known_answer_takes_the_files_own_shape() {
    let (out, name) = known("tests/test_add.py", PYTEST, "a");
    assert!(name.starts_with("test_"), "{name}");
    // One test more, a function like the others, spaced as they are.
    assert_eq!(out.matches("\ndef test_").count(), 4, "{out}");
    assert!(!out.contains("\n\n\n\n"), "{out}");
    let at = out.find(&format!("def {name}():\n")).expect("a function");
    let body: Vec<&str> = out[at..].lines().skip(1).take(2).collect();
    let (variable, value) = body[0].trim().split_once(" = ").expect("a value");
    assert_eq!(body[1].trim(), format!("assert {variable} == {value}"));
    // A TestCase's method, before the module's `__main__` block.
    let (out, name) = known(
        "tests/test_add.py",
        "import unittest\n\n\nclass AddTest(unittest.TestCase):\n    def test_small(self):\n        self.assertEqual(add(2, 3), 5)\n\n\nif __name__ == \"__main__\":\n    unittest.main()\n",
        "a",
    );
    assert!(
        out.contains(&format!(
            "        self.assertEqual(add(2, 3), 5)\n\n    def {name}(self):\n"
        )),
        "{out}"
    );
    assert!(out.contains("self.assertEqual("), "{out}");
    assert!(
        out.ends_with("\n\n\nif __name__ == \"__main__\":\n    unittest.main()\n"),
        "{out}"
    );
    let (out, name) = known(
        "add_test.go",
        "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatalf(\"no\")\n\t}\n}\n",
        "a",
    );
    assert!(name.starts_with("TestAdd") && name.len() > 7, "{name}");
    assert!(
        out.contains(&format!("}}\n\nfunc {name}(t *testing.T) {{\n\tif ")),
        "{out}"
    );
    assert!(out.contains("\t\tt.Fatalf(\"got %d\", "), "{out}");
    let (out, name) = known(
        "src/lib.rs",
        "pub fn f() {}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() {\n        assert_eq!(1 + 1, 2);\n    }\n}\n",
        "a",
    );
    assert!(
        out.contains(&format!(
            "    }}\n\n    #[test]\n    fn {name}() {{\n        let "
        )),
        "{out}"
    );
    let (out, name) = known(
        "test/add.test.js",
        "const assert = require(\"node:assert\");\n\ndescribe(\"add\", () => {\n  it(\"small\", () => {\n    assert.strictEqual(add(2, 3), 5);\n  });\n});\n",
        "a",
    );
    assert!(name.starts_with("small "), "{name}");
    assert!(
        out.contains(&format!("  }});\n\n  it(\"{name}\", () => {{\n    const ")),
        "{out}"
    );
    assert!(out.contains("    assert.strictEqual("), "{out}");
    let (out, name) = known(
        "test/add.test.ts",
        "test('small', () => {\n  expect(add(2, 3)).toBe(5)\n})\n",
        "a",
    );
    assert!(
        out.contains(&format!("\n\ntest('{name}', () => {{\n  const ")),
        "{out}"
    );
    // No test to take the shape of: no known answer.
    let mut draw = Draw::new("a", "tests/conftest.py");
    assert_eq!(
        known_answer("tests/conftest.py", "import pytest\n", &mut draw, &|_| {
            false
        }),
        None
    );
}

#[test]
fn a_known_answer_has_no_name_place_or_value_of_its_own() {
    // Over many draws: names from the file's own words, never one fixed shape, after any
    // of its tests, with values of no one range.
    let mut names = BTreeSet::new();
    let mut places = BTreeSet::new();
    let mut values = BTreeSet::new();
    for seed in 0..60 {
        let (out, name) = known("tests/test_add.py", PYTEST, &seed.to_string());
        assert!(!name.contains("again"), "{name}");
        assert!(!PYTEST.contains(&name), "{name}");
        let words: Vec<&str> = name.split('_').collect();
        for word in &words[1..] {
            assert!(PYTEST.contains(word), "{word} of {name} is not the file's");
        }
        let at = out.find(&format!("def {name}")).expect("planted");
        places.insert(out[..at].matches("\ndef test_").count());
        let line = out[at..].lines().nth(1).expect("a body").to_owned();
        values.insert(line.rsplit(' ').next().expect("a value").to_owned());
        names.insert(name);
    }
    assert!(names.len() > 10, "{names:?}");
    assert_eq!(places, [1, 2, 3].into(), "after every test of the file");
    assert!(values.len() > 10, "{values:?}");
    // The same tree and file draw the same: both passes of a tree hold one test.
    assert_eq!(
        known("tests/test_add.py", PYTEST, "t"),
        known("tests/test_add.py", PYTEST, "t")
    );
}

#[test]
fn a_drawn_name_is_new_to_the_tree() {
    let mut draw = Draw::new("a", "tests/test_add.py");
    let taken = |name: &str| name != "test_small_zero";
    let text = "def test_small():\n    assert add(2, 3) == 5\n\ndef test_zero():\n    assert add(0, 0) == 0\n";
    let name = drawn_name(text, "test_small", Style::Snake, &mut draw, &taken);
    assert_eq!(name.as_deref(), Some("test_small_zero"));
    assert_eq!(
        drawn_name(text, "test_small", Style::Snake, &mut draw, &|_| true),
        None
    );
    assert_eq!(
        parts("TestAddSmall", Style::Camel),
        ["Test", "Add", "Small"]
    );
    assert_eq!(
        words("assertEqual(add_two, 5) # the MaxValue"),
        ["add", "equal", "max", "the", "two", "value"]
    );
}

#[test]
fn units_are_what_a_runner_reports_apart() {
    assert_eq!(unit("tests/test_a.py").as_deref(), Some("py"));
    assert_eq!(unit("web/a.test.ts").as_deref(), Some("js"));
    assert_eq!(unit("pkg/calc/add_test.go").as_deref(), Some("go:pkg/calc"));
    assert_eq!(unit("calc.go"), None);
    assert_eq!(unit("src/lib.rs").as_deref(), Some("rs:src"));
    assert_eq!(unit("src/add/mod.rs").as_deref(), Some("rs:src"));
    assert_eq!(unit("tests/sub.rs").as_deref(), Some("rs:tests/sub"));
    assert_eq!(unit("tests/it/main.rs").as_deref(), Some("rs:tests/it"));
    assert_eq!(unit("tests/it/calc.rs").as_deref(), Some("rs:tests/it"));
    assert_eq!(
        unit("crates/core/tests/it.rs").as_deref(),
        Some("rs:crates/core/tests/it")
    );
    assert_eq!(
        unit("crates/core/src/x.rs").as_deref(),
        Some("rs:crates/core/src")
    );
}

fn report(tests: &[(&str, TestOutcome)]) -> TestReport {
    TestReport {
        tests: tests.iter().map(|(id, o)| ((*id).to_owned(), *o)).collect(),
        ..TestReport::default()
    }
}

fn answer() -> Known {
    Known {
        path: "tests/test_add.py".into(),
        name: "test_small_zero".into(),
        lines: (0, 0),
    }
}

#[test]
fn the_known_answer_is_taken_out_of_the_report_and_its_counts() {
    use TestOutcome::Passed;
    let mut r = report(&[
        ("tests/test_add.py::test_small", Passed),
        ("tests/test_add.py::test_small_zero", Passed),
    ]);
    r.counts.insert(Passed, 2);
    strip(&[answer()], &mut r);
    assert_eq!(r.tests.len(), 1);
    assert_eq!(r.counts.get(&Passed), Some(&1));
    assert_eq!(
        scrub(
            &[answer()],
            "PASSED tests/test_add.py::test_small_zero\nPASSED tests/test_add.py::test_small_zeros\n1 passed"
        ),
        "PASSED tests/test_add.py::test_small_zeros\n1 passed"
    );
}

#[test]
fn counts_never_include_the_known_answer() {
    use TestOutcome::{Failed, Passed};
    // pytest without its XML (tox passes no PYTEST_ADDOPTS): `350 passed`, one of them
    // speccoder's; the project's own run says 349.
    let mut r = TestReport {
        runners: vec![TestFramework::Pytest],
        counts: [(Passed, 350)].into(),
        ..TestReport::default()
    };
    strip(&[answer()], &mut r);
    assert_eq!(r.counts.get(&Passed), Some(&349));
    // unittest without -v, naming only its failures.
    let mut r = report(&[("test_add.AddTest.test_small", Failed)]);
    r.runners = vec![TestFramework::Unittest];
    r.counts = [(Passed, 3), (Failed, 1)].into();
    strip(&[answer()], &mut r);
    assert_eq!(r.counts, [(Passed, 2), (Failed, 1)].into());
    // A runner of another language counts nothing of a Python file's.
    let mut r = TestReport {
        runners: vec![TestFramework::Jest],
        counts: [(Passed, 5)].into(),
        ..TestReport::default()
    };
    strip(&[answer()], &mut r);
    assert_eq!(r.counts.get(&Passed), Some(&5));
    // Named by a runner that names every pass: out once, never twice.
    let mut r = report(&[
        ("tests/test_add.py::test_small", Passed),
        ("tests/test_add.py::test_small_zero", Passed),
    ]);
    r.runners = vec![TestFramework::Pytest];
    r.counts = [(Passed, 2)].into();
    strip(&[answer()], &mut r);
    assert_eq!(r.counts.get(&Passed), Some(&1));
}

#[test]
fn the_base_shows_where_the_known_answer_is_reported_and_now_must_again() {
    use TestOutcome::{Failed, Passed, Skipped};
    let known = [answer()];
    let with = |o| {
        report(&[
            ("tests/test_add.py::test_small", Passed),
            ("tests/test_add.py::test_small_zero", o),
        ])
    };
    let mut base = BaseTests::default();
    assert_eq!(at_base(&known, &with(Passed), &mut base), CanaryState::Held);
    assert_eq!(base.known_places, ["tests/test_add.py".to_owned()].into());
    let (stripped, state) = now(&known, with(Passed), Some(0), false, Some(&base)).expect("held");
    assert_eq!(state, Some(CanaryState::Held));
    assert_eq!(stripped.tests.len(), 1);
    // Missing from a run that ended well: its part ended early, or the report is forged.
    let without = report(&[("tests/test_add.py::test_small", Passed)]);
    assert!(now(&known, without.clone(), Some(0), false, Some(&base)).is_err());
    // A runner that now counts passes it does not name (vitest over several files, the
    // file passing whole) may have run it among them.
    let mut counted = without.clone();
    counted.runners = vec![TestFramework::Vitest, TestFramework::Pytest];
    counted.counts = [(Passed, 2)].into();
    assert!(now(&known, counted.clone(), Some(0), false, Some(&base)).is_ok());
    counted.runners = vec![TestFramework::Jest];
    assert!(now(&known, counted, Some(0), false, Some(&base)).is_err());
    // A run that failed, or was stopped, fails as it is.
    assert!(now(&known, without.clone(), Some(1), false, Some(&base)).is_ok());
    assert!(now(&known, without, None, true, Some(&base)).is_ok());
    // Reported failing or skipped: it compares a value with itself.
    assert!(now(&known, with(Failed), Some(1), false, Some(&base)).is_err());
    assert!(now(&known, with(Skipped), Some(0), false, Some(&base)).is_err());
    // Not reported at the base (a counts-only runner, a check that names its files).
    let mut none = BaseTests::default();
    let counts = report(&[]);
    assert_eq!(
        at_base(&known, &counts, &mut none),
        CanaryState::NotCollected
    );
    let (_, state) = now(&known, report(&[]), Some(0), false, Some(&none)).expect("judged");
    assert_eq!(state, Some(CanaryState::NotCollected));
    // Misread at the base itself: the check goes without.
    let mut misread = BaseTests::default();
    assert_eq!(
        at_base(&known, &with(Failed), &mut misread),
        CanaryState::Unreliable
    );
    let (_, state) = now(&known, with(Failed), Some(0), false, Some(&misread)).expect("judged");
    assert_eq!(state, Some(CanaryState::Unreliable));
}

#[test]
fn the_lines_a_known_answer_takes_are_where_it_was_inserted() {
    assert_eq!(inserted("a\nb\nc", "a\nb\nx\ny\nc"), (2, 4));
    // Inserted after a line like the ones it holds: still the new lines' count.
    assert_eq!(inserted("a\n\n", "a\n\nz\n\n"), (2, 4));
    assert_eq!(inserted("a", "a\nz"), (1, 2));
}
