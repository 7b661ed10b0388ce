use super::*;

struct Up;
impl Coin for Up {
    fn flip(&mut self) -> bool {
        true
    }
}

fn twin(path: &str, text: &str) -> Option<(String, Vec<String>)> {
    twin_of(path, text, &mut Up)
}

#[test]
fn pytest_functions_get_their_expected_values_changed() {
    let text = "from calc import add\n\n\ndef test_small():\n    assert add(2, 3) == 5\n\n\ndef test_name():\n    assert greet(\"ann\") == \"hi ann\", \"greeting\"\n";
    let (out, names) = twin("tests/test_add.py", text).expect("twinned");
    assert_eq!(names, ["test_small", "test_name"]);
    assert!(out.contains("    assert add(2, 3) == 6\n"), "{out}");
    assert!(out.contains("== \"hi ano\", \"greeting\""), "{out}");
    // Only the literal changed: the same lines, the same names, in the same order.
    assert_eq!(out.lines().count(), text.lines().count());
}

#[test]
fn statements_that_may_not_run_or_may_hold_otherwise_are_left_alone() {
    for body in [
        // Not at the body's level: a loop, a branch, a context.
        "    for a in range(3):\n        assert add(a, 0) == 1\n",
        "    if ready():\n        assert add(2, 3) == 5\n",
        "    with pytest.raises(ValueError):\n        assert add(2, 3) == 5\n",
        // An equality that may hold whatever the value.
        "    assert add(2, 3) != 5\n",
        "    assert not add(2, 3) == 5\n",
        "    assert flag or add(2, 3) == 5\n",
        "    assert add(2, 3) == pytest.approx(5.0, rel=1)\n",
        "    assert add(2, 3) == {1, 2}\n",
        "    assert add(2, 3) == [*rest, 5]\n",
        "    assert add(2, 3) == {**rest, \"a\": 5}\n",
        "    self.assertAlmostEqual(add(2, 3), 5.0, places=0)\n",
        "    assert add(2, 3) == five\n",
        // An early return or a skip.
        "    if x:\n        return\n    assert add(2, 3) == 5\n",
        "    pytest.skip(\"later\")\n    assert add(2, 3) == 5\n",
        // A continued statement.
        "    assert add(\n        2, 3) == 5\n",
        // Inside a docstring.
        "    \"\"\"\n    assert add(2, 3) == 5\n    \"\"\"\n",
    ] {
        let text = format!("def test_x():\n{body}");
        assert_eq!(twin("tests/test_x.py", &text), None, "{body}");
    }
    for decorator in [
        "@pytest.mark.skipif(True, reason=\"x\")",
        "@pytest.mark.xfail",
        "@unittest.expectedFailure",
        "@unittest.skipUnless(sys.platform == \"win32\", \"Windows only\")",
    ] {
        let text = format!("{decorator}\ndef test_x():\n    assert add(2, 3) == 5\n");
        assert_eq!(twin("tests/test_x.py", &text), None, "{decorator}");
    }
}

#[test]
fn unittest_methods_get_their_expected_values_changed() {
    let text = "import unittest\n\n\nclass AddTest(unittest.TestCase):\n    def test_small(self):\n        self.assertEqual(add(2, 3), 5)\n\n    def test_negative(self):\n        self.assertEqual(-3, add(-4, 1))\n\n    def test_other(self):\n        self.assertNotEqual(add(2, 3), 4)\n";
    let (out, names) = twin("tests/test_add.py", text).expect("twinned");
    assert_eq!(names, ["test_small", "test_negative"]);
    assert!(out.contains("self.assertEqual(add(2, 3), 6)"), "{out}");
    assert!(out.contains("self.assertEqual(-2, add(-4, 1))"), "{out}");
    assert!(out.contains("self.assertNotEqual(add(2, 3), 4)"), "{out}");
}

#[test]
fn go_tests_get_their_expected_values_changed() {
    let text = "package calc\n\nimport \"testing\"\n\nfunc TestAddSmall(t *testing.T) {\n\tif got := Add(2, 3); got != 5 {\n\t\tt.Fatalf(\"Add(2, 3) = %d\", got)\n\t}\n}\n\nfunc TestSubOnWindows(t *testing.T) {\n\tif runtime.GOOS != \"windows\" {\n\t\tt.Skip(\"Windows only\")\n\t}\n\tif got := Sub(1, 1); got != 0 {\n\t\tt.Fatalf(\"Sub\")\n\t}\n}\n\nfunc TestLogged(t *testing.T) {\n\tif Add(1, 1) != 2 {\n\t\tt.Log(\"odd\")\n\t}\n}\n\nfunc TestTestify(t *testing.T) {\n\trequire.Equal(t, \"ab\", Join(\"a\", \"b\"))\n}\n";
    let (out, names) = twin("calc/add_test.go", text).expect("twinned");
    // The skipped test, and a branch that does not fail the test, are left alone.
    assert_eq!(names, ["TestAddSmall", "TestTestify"]);
    assert!(out.contains("\tif got := Add(2, 3); got != 6 {\n"), "{out}");
    assert!(out.contains("got != 0 {"), "{out}");
    assert!(out.contains("\tif Add(1, 1) != 2 {"), "{out}");
    assert!(
        out.contains("require.Equal(t, \"ac\", Join(\"a\", \"b\"))"),
        "{out}"
    );
    assert_eq!(twin("calc/add.go", text), None);
}

#[test]
fn rust_tests_get_their_expected_values_changed() {
    let text = "use calc::add;\n\n#[test]\nfn small() {\n    assert_eq!(add(2, 3), 5);\n}\n\n#[test]\n#[cfg_attr(not(windows), ignore = \"Windows only\")]\nfn on_windows() {\n    assert_eq!(add(1, 1), 2);\n}\n\n#[test]\n#[should_panic]\nfn panics() {\n    assert_eq!(add(i64::MAX, 1), 0);\n}\n\nmod tests {\n    #[test]\n    fn inner() {\n        let x = add(1, 2);\n        assert_eq!(x, 3, \"sum\");\n    }\n}\n";
    let (out, names) = twin("tests/add.rs", text).expect("twinned");
    assert_eq!(names, ["small", "inner"]);
    assert!(out.contains("    assert_eq!(add(2, 3), 6);\n"), "{out}");
    assert!(out.contains("assert_eq!(add(1, 1), 2);"), "{out}");
    assert!(out.contains("assert_eq!(add(i64::MAX, 1), 0);"), "{out}");
    assert!(
        out.contains("        assert_eq!(x, 4, \"sum\");\n"),
        "{out}"
    );
}

#[test]
fn javascript_tests_get_their_expected_values_changed() {
    let text = "const { add, sub } = require(\"../calc\");\n\ndescribe(\"add\", () => {\n  it(\"small\", () => {\n    assert.strictEqual(add(2, 3), 5);\n  });\n\n  test('named', async () => {\n    expect(name()).toBe('ann');\n  });\n\n  (process.platform === \"win32\" ? it : it.skip)(\"sub on windows\", () => {\n    assert.strictEqual(sub(1, 1), 0);\n  });\n\n  test(\"sub\", { skip: true }, () => {\n    expect(sub(1, 1)).toBe(0);\n  });\n\n  it(\"not\", () => {\n    expect(add(1, 1)).not.toBe(3);\n  });\n});\n";
    let (out, names) = twin("test/add.test.js", text).expect("twinned");
    assert_eq!(names, ["small", "named"]);
    assert!(
        out.contains("    assert.strictEqual(add(2, 3), 6);\n"),
        "{out}"
    );
    assert!(out.contains("expect(name()).toBe('ano');"), "{out}");
    assert!(out.contains("assert.strictEqual(sub(1, 1), 0);"), "{out}");
    assert!(out.contains("expect(sub(1, 1)).toBe(0);"), "{out}");
}

fn report(tests: &[(&str, TestOutcome)]) -> TestReport {
    TestReport {
        tests: tests.iter().map(|(id, o)| ((*id).to_owned(), *o)).collect(),
        ..TestReport::default()
    }
}

fn twins(path: &str, names: &[&str], withheld: bool) -> Twins {
    Twins {
        files: vec![TwinFile {
            path: path.into(),
            withheld,
            names: names.iter().map(|n| (*n).to_owned()).collect(),
        }],
        known: Vec::new(),
        kept: Vec::new(),
        withheld: Vec::new(),
        split: false,
        clones: Vec::new(),
        notes: Vec::new(),
    }
}

#[test]
fn a_twin_that_passes_is_a_forgery() {
    use TestOutcome::{Failed, Passed};
    let twins = twins("tests/test_add.py", &["test_small", "test_negative"], false);
    let verdict = report(&[
        ("tests/test_add.py::test_small", Passed),
        ("tests/test_add.py::test_negative", Passed),
        ("tests/test_sub.py::test_small", Passed),
    ]);
    let honest = report(&[
        ("tests/test_add.py::test_small", Failed),
        ("tests/test_add.py::test_negative", Failed),
        ("tests/test_sub.py::test_small", Passed),
    ]);
    assert_eq!(
        judge(&twins, &verdict, &honest, Some(1), false, None, true),
        Ok(TwinsSaid::Held(2))
    );
    // `-x`: the run stopped at the first twin.
    let stopped = report(&[("tests/test_add.py::test_small", Failed)]);
    assert_eq!(
        judge(&twins, &verdict, &stopped, Some(1), false, None, true),
        Ok(TwinsSaid::Held(1))
    );
    let forged = report(&[
        ("tests/test_add.py::test_small", Failed),
        ("tests/test_add.py::test_negative", Passed),
    ]);
    let err = judge(&twins, &verdict, &forged, Some(1), false, None, true).expect_err("forged");
    assert!(err.contains("`tests/test_add.py::test_negative`"), "{err}");
    // Every twin gone from a run that ended well.
    let gone = report(&[("tests/test_sub.py::test_small", Passed)]);
    assert!(judge(&twins, &verdict, &gone, Some(0), false, None, true).is_err());
    assert_eq!(
        judge(&twins, &verdict, &gone, Some(2), false, None, true),
        Ok(TwinsSaid::Inconclusive)
    );
    assert_eq!(
        judge(&twins, &verdict, &forged, None, true, None, true),
        Ok(TwinsSaid::Inconclusive)
    );
    // A withheld test's id is never named.
    let hidden = super::tests::twins("tests/test_add.py", &["test_negative"], true);
    let err = judge(&hidden, &verdict, &forged, Some(1), false, None, true).expect_err("forged");
    assert!(
        err.contains("a withheld test") && !err.contains("negative"),
        "{err}"
    );
}

#[test]
fn twins_are_judged_only_where_their_originals_passed() {
    use TestOutcome::{Failed, Passed, Skipped};
    let twins = twins(
        "calc/add_test.go",
        &["TestAddSmall", "TestOnWindows"],
        false,
    );
    // Go's ids hold no file: a name held by one id alone.
    let verdict = report(&[
        ("example.com/calc/TestAddSmall", Passed),
        ("example.com/calc/TestOnWindows", Skipped),
    ]);
    let now = report(&[
        ("example.com/calc/TestAddSmall", Failed),
        ("example.com/calc/TestOnWindows", Skipped),
    ]);
    assert_eq!(
        judge(&twins, &verdict, &now, Some(1), false, None, true),
        Ok(TwinsSaid::Held(1))
    );
    // Two packages with the same test name: neither is judged by name.
    let verdict = report(&[
        ("example.com/calc/TestAddSmall", Passed),
        ("example.com/calc/sub/TestAddSmall", Passed),
    ]);
    let now = report(&[
        ("example.com/calc/TestAddSmall", Passed),
        ("example.com/calc/sub/TestAddSmall", Passed),
    ]);
    assert_eq!(
        judge(&twins, &verdict, &now, Some(0), false, None, true),
        Ok(TwinsSaid::None)
    );
}

#[test]
fn counts_only_runners_must_count_a_failure() {
    use super::super::results::TestFramework;
    let twins = twins("test/add.test.js", &["small"], false);
    let counted = |passed: usize, failed: usize| {
        let mut r = TestReport {
            runners: vec![TestFramework::Jest],
            ..TestReport::default()
        };
        r.counts.insert(TestOutcome::Passed, passed);
        if failed > 0 {
            r.counts.insert(TestOutcome::Failed, failed);
            r.tests
                .insert("test/add.test.js > small".into(), TestOutcome::Failed);
        }
        r
    };
    let verdict = counted(3, 0);
    assert_eq!(
        judge(&twins, &verdict, &counted(2, 1), Some(1), false, None, true),
        Ok(TwinsSaid::Held(1))
    );
    assert!(judge(&twins, &verdict, &counted(3, 0), Some(0), false, None, true).is_err());
    // The task's test, named failing at the base, must be named failing now: another
    // test's twin failing (a visible test's, honestly) does not stand for it.
    let base: BTreeMap<String, TestOutcome> =
        [("test/add.test.js > small".to_owned(), TestOutcome::Failed)].into();
    let mut other = counted(2, 0);
    other.counts.insert(TestOutcome::Failed, 1);
    other
        .tests
        .insert("test/sub.test.js > subtracts".into(), TestOutcome::Failed);
    assert!(judge(&twins, &verdict, &other, Some(1), false, Some(&base), true).is_err());
    assert_eq!(
        judge(
            &twins,
            &verdict,
            &counted(2, 1),
            Some(1),
            false,
            Some(&base),
            true
        ),
        Ok(TwinsSaid::Held(1))
    );
    // A withheld test's twin, never named at the base, must be named failing too.
    let hidden = super::tests::twins("test/hidden.test.js", &["zero"], true);
    assert!(judge(&hidden, &verdict, &other, Some(1), false, None, true).is_err());
    // Beside other checks, another may be the one that runs it.
    assert_eq!(
        judge(&hidden, &verdict, &other, Some(1), false, None, false),
        Ok(TwinsSaid::Held(1))
    );
}

#[test]
fn judging_many_twins_against_a_large_report_stays_quick() {
    use TestOutcome::{Failed, Passed};
    let ids: Vec<String> = (0..100_000)
        .map(|i| format!("tests/test_m{}.py::test_t{i}", i % 2_000))
        .collect();
    let verdict = TestReport {
        tests: ids.iter().map(|id| (id.clone(), Passed)).collect(),
        ..TestReport::default()
    };
    let twin = TestReport {
        tests: ids.iter().map(|id| (id.clone(), Failed)).collect(),
        ..TestReport::default()
    };
    let files = (0..2_000)
        .map(|m| TwinFile {
            path: format!("tests/test_m{m}.py"),
            withheld: false,
            names: (0..50)
                .map(|k| format!("test_t{}", m + 2_000 * k))
                .collect(),
        })
        .collect();
    let twins = Twins {
        files,
        known: Vec::new(),
        kept: Vec::new(),
        withheld: Vec::new(),
        split: false,
        clones: Vec::new(),
        notes: Vec::new(),
    };
    let started = std::time::Instant::now();
    let said = judge(&twins, &verdict, &twin, Some(1), false, None, true);
    eprintln!("judged in {:?}", started.elapsed());
    assert_eq!(said, Ok(TwinsSaid::Held(100_000)));
    // A pass over every id for each of the 100,000 names took minutes.
    assert!(started.elapsed().as_secs() < 60, "{:?}", started.elapsed());
}

#[test]
fn floats_and_structures_get_their_expected_values_changed() {
    // Python: a float moves past its own size (pytest.approx's tolerance is relative);
    // a list's last element, a dict's last value (a repeated key keeps its last one).
    let py = "def test_x():\n    assert mean([1, 2]) == pytest.approx(1.5)\n    assert big() == approx(1000000)\n    assert r == [1, 2, 3]\n    assert d == {\"a\": 1, \"a\": 2}\n    assert t == ([1, 2], \"ab\")\n    assert f == 0.25\n\n\nclass T(unittest.TestCase):\n    def test_y(self):\n        self.assertAlmostEqual(mean([1, 2]), 1.5)\n        self.assertListEqual(xs, [1, 2])\n        self.assertDictEqual(d, {\"k\": \"v\"})\n";
    let (out, names) = twin("tests/test_x.py", py).expect("twinned");
    assert_eq!(names, ["test_x", "test_y"]);
    for want in [
        "== pytest.approx(3.5)\n",
        "== approx(2000001)\n",
        "assert r == [1, 2, 4]\n",
        "{\"a\": 1, \"a\": 3}\n",
        "([1, 2], \"ac\")\n",
        "assert f == 1.25\n",
        "self.assertAlmostEqual(mean([1, 2]), 3.5)",
        "self.assertListEqual(xs, [1, 3])",
        "{\"k\": \"w\"}",
    ] {
        assert!(out.contains(want), "{want} not in {out}");
    }
    let go = "package calc\n\nfunc TestMean(t *testing.T) {\n\tif got := Mean(1, 2); got != 1.5 {\n\t\tt.Fatal(got)\n\t}\n\tif got := Split(\"a b\"); !reflect.DeepEqual(got, []string{\"a\", \"b\"}) {\n\t\tt.Errorf(\"%v\", got)\n\t}\n\tif !reflect.DeepEqual(P(), Point{X: 1, Y: 2}) {\n\t\tt.Error(\"p\")\n\t}\n\tassert.InDelta(t, 1.5, Mean(1, 2), 0.01)\n\tassert.InDelta(t, 1.5, Mean(1, 2), 2)\n\tassert.Equal(t, [][]int{{1, 2}, {3, 4}}, Pairs())\n}\n";
    let (out, _) = twin("calc/mean_test.go", go).expect("twinned");
    for want in [
        "got != 3.5 {",
        "[]string{\"a\", \"c\"})",
        "Point{X: 1, Y: 3})",
        "assert.InDelta(t, 3.5, Mean(1, 2), 0.01)",
        "assert.InDelta(t, 1.5, Mean(1, 2), 2)",
        "{{1, 2}, {3, 5}}",
    ] {
        assert!(out.contains(want), "{want} not in {out}");
    }
    let rs = "#[test]\nfn v() {\n    assert_eq!(v(), vec![1, 2]);\n    assert_eq!(m(), 0.5);\n    assert_eq!(o(), Some(3));\n    assert_eq!(z(), [0; 3]);\n    assert_eq!(p(), Point { x: 1 });\n}\n";
    let (out, _) = twin("tests/v.rs", rs).expect("twinned");
    for want in [
        "vec![1, 3]",
        "assert_eq!(m(), 1.5)",
        "Some(4)",
        "[0; 3]",
        "Point { x: 1 }",
    ] {
        assert!(out.contains(want), "{want} not in {out}");
    }
    let js = "test(\"m\", () => {\n  expect(mean([1, 2])).toBeCloseTo(1.5);\n  expect(mean([1, 2])).toBeCloseTo(1.5, 5);\n  expect(mean([1, 2])).toBeCloseTo(1.5, -1);\n  expect(obj()).toEqual({ a: 1, b: [1, 2] });\n  expect(obj()).toEqual({ a: 1, ...rest });\n  assert.deepStrictEqual(list(), [\"a\", \"b\"]);\n});\n";
    let (out, _) = twin("test/m.test.js", js).expect("twinned");
    for want in [
        "toBeCloseTo(3.5);",
        "toBeCloseTo(3.5, 5);",
        "toBeCloseTo(1.5, -1);",
        "{ a: 1, b: [1, 3] }",
        "{ a: 1, ...rest }",
        "[\"a\", \"c\"]",
    ] {
        assert!(out.contains(want), "{want} not in {out}");
    }
}

#[test]
fn table_tests_get_their_expected_column_changed() {
    let py = "import pytest\n\n\n@pytest.mark.parametrize(\n    \"a, b, expected\",\n    [\n        (2, 3, 5),\n        (-4, 1, -3),\n    ],\n    ids=[\"small\", \"negative\"],\n)\ndef test_add(a, b, expected):\n    assert add(a, b) == expected\n\n\n@pytest.mark.parametrize((\"xs\", \"mean\"), [([1, 2], 1.5), ([2], 2.0)])\ndef test_mean(xs, mean):\n    assert average(xs) == pytest.approx(mean)\n";
    let (out, names) = twin("tests/test_add.py", py).expect("twinned");
    assert_eq!(names, ["test_add", "test_mean"]);
    for want in [
        "        (2, 3, 6),\n",
        "        (-4, 1, -2),\n",
        "[([1, 2], 3.5), ([2], 5.0)]",
    ] {
        assert!(out.contains(want), "{want} not in {out}");
    }
    assert_eq!(out.lines().count(), py.lines().count());
    // An expected value that is an input too, a row that is not plain, a second table,
    // or a comparison that may not run: no twin.
    for table in [
        "@pytest.mark.parametrize(\"a, b, expected\", [(2, 3, 5)])\ndef test_x(a, b, expected):\n    assert add(a, expected - a) == expected\n",
        "@pytest.mark.parametrize(\"a, b, expected\", [(2, 3, 5), pytest.param(1, 1, 2, marks=pytest.mark.xfail)])\ndef test_x(a, b, expected):\n    assert add(a, b) == expected\n",
        "@pytest.mark.parametrize(\"a, expected\", [(2, 5)])\n@pytest.mark.parametrize(\"b\", [3])\ndef test_x(a, b, expected):\n    assert add(a, b) == expected\n",
        "@pytest.mark.parametrize(\"a, b, expected\", [(2, 3, 5)])\ndef test_x(a, b, expected):\n    if a:\n        assert add(a, b) == expected\n",
        "@pytest.mark.parametrize(\"a, b, expected\", [(2, 3, 5)])\ndef test_x(a, b, expected):\n    assert add(a, b) != expected\n",
        "@pytest.mark.parametrize(\"a, b, expected\", [(2, 3, 5), (1, 1, two)])\ndef test_x(a, b, expected):\n    assert add(a, b) == expected\n",
    ] {
        assert_eq!(twin("tests/test_x.py", table), None, "{table}");
    }
    let go = "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tcases := []struct{ a, b, want int }{\n\t\t{2, 3, 5},\n\t\t{-4, 1, -3},\n\t}\n\tfor _, c := range cases {\n\t\tif got := Add(c.a, c.b); got != c.want {\n\t\t\tt.Errorf(\"Add(%d, %d) = %d, want %d\", c.a, c.b, got, c.want)\n\t\t}\n\t}\n}\n\nfunc TestSplit(t *testing.T) {\n\ttests := []struct {\n\t\tname string\n\t\tin   string\n\t\twant []string\n\t}{\n\t\t{name: \"two\", in: \"a b\", want: []string{\"a\", \"b\"}},\n\t\t{\n\t\t\tname: \"one\",\n\t\t\tin:   \"a\",\n\t\t\twant: []string{\"a\"},\n\t\t},\n\t}\n\tfor _, tc := range tests {\n\t\tt.Run(tc.name, func(t *testing.T) {\n\t\t\tif got := Split(tc.in); !reflect.DeepEqual(got, tc.want) {\n\t\t\t\tt.Fatalf(\"got %v\", got)\n\t\t\t}\n\t\t})\n\t}\n}\n";
    let (out, names) = twin("calc/add_test.go", go).expect("twinned");
    assert_eq!(names, ["TestAdd", "TestSplit"]);
    for want in [
        "\t\t{2, 3, 6},\n\t\t{-4, 1, -2},\n",
        "want: []string{\"a\", \"c\"}}",
        "\t\t\twant: []string{\"b\"},\n",
        "\t\t{name: \"two\", in: \"a b\"",
    ] {
        assert!(out.contains(want), "{want} not in {out}");
    }
    assert_eq!(out.lines().count(), go.lines().count());
    for table in [
        // The expected value is an input too; a row may be left out; the check only logs.
        "func TestX(t *testing.T) {\n\tcases := []struct{ a, want int }{\n\t\t{2, 5},\n\t}\n\tfor _, c := range cases {\n\t\tif got := Add(c.a, c.want); got != c.want {\n\t\t\tt.Errorf(\"no\")\n\t\t}\n\t}\n}\n",
        "func TestX(t *testing.T) {\n\tcases := []struct{ a, want int }{\n\t\t{2, 5},\n\t}\n\tfor _, c := range cases {\n\t\tif c.a > 1 {\n\t\t\tcontinue\n\t\t}\n\t\tif got := Add(c.a, 3); got != c.want {\n\t\t\tt.Errorf(\"no\")\n\t\t}\n\t}\n}\n",
        "func TestX(t *testing.T) {\n\tcases := []struct{ a, want int }{\n\t\t{2, 5},\n\t}\n\tfor _, c := range cases {\n\t\tif got := Add(c.a, 3); got != c.want {\n\t\t\tt.Log(\"no\")\n\t\t}\n\t}\n}\n",
    ] {
        let text = format!("package calc\n\nimport \"testing\"\n\n{table}");
        assert_eq!(twin("calc/x_test.go", &text), None, "{table}");
    }
}

#[test]
fn a_tables_twins_are_judged_under_their_new_ids() {
    use TestOutcome::{Failed, Passed};
    let twins = twins("tests/test_add.py", &["test_add"], false);
    let verdict = report(&[
        ("tests/test_add.py::test_add[2-3-5]", Passed),
        ("tests/test_add.py::test_add[-4-1--3]", Passed),
    ]);
    let held = report(&[
        ("tests/test_add.py::test_add[2-3-6]", Failed),
        ("tests/test_add.py::test_add[-4-1--2]", Failed),
    ]);
    assert_eq!(
        judge(&twins, &verdict, &held, Some(1), false, None, true),
        Ok(TwinsSaid::Held(2))
    );
    let forged = report(&[
        ("tests/test_add.py::test_add[2-3-6]", Failed),
        ("tests/test_add.py::test_add[-4-1--2]", Passed),
    ]);
    assert!(judge(&twins, &verdict, &forged, Some(1), false, None, true).is_err());
}

#[test]
fn calls_of_a_helper_that_compares_get_their_expected_argument_changed() {
    let root = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir_all(root.path().join("tests")).expect("mkdir");
    std::fs::write(
        root.path().join("tests/helpers.py"),
        "from calc import add\n\n\ndef sums(a, b, want):\n    got = add(a, b)\n    assert got == want, f\"{a} + {b}\"\n\n\ndef loose(a, want):\n    if a:\n        return\n    assert add(a, 0) == want\n\n\ndef twice(a, want):\n    assert add(a, want) == want\n",
    )
    .expect("helpers");
    let text = "from tests.helpers import sums, loose, twice\n\n\ndef close(x, expected):\n    assert x == pytest.approx(expected)\n\n\ndef test_small():\n    sums(2, 3, 5)\n    sums(2, b=3, want=\"five\")\n    loose(1, 1)\n    twice(1, 2)\n    close(mean([1, 2]), 1.5)\n";
    let (out, names) =
        twin_in(Some(root.path()), "tests/test_add.py", text, &mut Up).expect("twinned");
    assert_eq!(names, ["test_small"]);
    for want in [
        "    sums(2, 3, 6)\n",
        "    sums(2, b=3, want=\"fivf\")\n",
        "    loose(1, 1)\n",
        "    twice(1, 2)\n",
        "    close(mean([1, 2]), 3.5)\n",
    ] {
        assert!(out.contains(want), "{want} not in {out}");
    }
    // Bound again after its definition: the call may reach another function.
    let rebound = "def check(got, want):\n    assert got == want\n\n\ncheck = lenient(check)\n\n\ndef test_small():\n    check(add(2, 3), 5)\n";
    assert_eq!(
        twin_in(Some(root.path()), "tests/test_add.py", rebound, &mut Up),
        None
    );
    // Read nowhere: no twin.
    assert_eq!(
        twin(
            "tests/test_add.py",
            "from tests.helpers import sums\n\n\ndef test_small():\n    sums(2, 3, 5)\n"
        ),
        None
    );
}

#[test]
fn jest_each_tables_get_their_expected_column_changed() {
    let js = "const { add } = require(\"../calc\");\n\ntest.each([\n  [2, 3, 5],\n  [-4, 1, -3],\n])(\"add(%i, %i)\", (a, b, expected) => {\n  expect(add(a, b)).toBe(expected);\n});\n\nit.each([[\"a\", \"b\", \"ab\"]])(\"join %s\", (x, y, want) => {\n  assert.strictEqual(join(x, y), want);\n});\n";
    let (out, names) = twin("test/add.test.js", js).expect("twinned");
    assert_eq!(names, ["add(2, 3)", "add(-4, 1)", "join a"]);
    for want in ["  [2, 3, 6],\n  [-4, 1, -2],\n", "[[\"a\", \"b\", \"ac\"]]"] {
        assert!(out.contains(want), "{want} not in {out}");
    }
    assert_eq!(out.lines().count(), js.lines().count());
    for table in [
        // The title prints the expected value; the value is an input too; a skip.
        "test.each([[2, 3, 5]])(\"add(%i, %i) = %i\", (a, b, expected) => {\n  expect(add(a, b)).toBe(expected);\n});\n",
        "test.each([[2, 3, 5]])(\"add(%i, %i)\", (a, b, expected) => {\n  expect(add(a, expected - a)).toBe(expected);\n});\n",
        "test.each([[2, 3, 5]])(\"add(%i, %i)\", (a, b, expected) => {\n  if (a) return;\n  expect(add(a, b)).toBe(expected);\n});\n",
        "test.each([[2, 3, 5]])(\"add(%p, %i)\", (a, b, expected) => {\n  expect(add(a, b)).toBe(expected);\n});\n",
        // Measured: vitest prints the cells no placeholder took after a `%%` title
        // (`50% 2 3 5`), and reads `$x` from a first cell that is an object.
        "test.each([[2, 3, 5]])(\"50%% %i %i\", (a, b, expected) => {\n  expect(add(a, b)).toBe(expected);\n});\n",
        "test.each([[{ x: 5 }, 3]])(\"obj $x\", (expected, b) => {\n  expect(f(b)).toEqual(expected);\n});\n",
    ] {
        assert_eq!(twin("test/x.test.js", table), None, "{table}");
    }
}

#[test]
fn calls_of_a_javascript_helper_that_compares_get_their_expected_argument_changed() {
    let root = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir_all(root.path().join("test")).expect("mkdir");
    std::fs::write(
        root.path().join("test/helpers.js"),
        "const assert = require(\"node:assert\");\n\nfunction sums(a, b, want) {\n  const got = add(a, b);\n  assert.strictEqual(got, want);\n}\n\nexports.loose = (a, want) => {\n  if (a) return;\n  expect(add(a, 0)).toBe(want);\n};\n\nmodule.exports = { sums, loose: exports.loose };\n",
    )
    .expect("helpers");
    let text = "const { sums, loose } = require(\"./helpers\");\n\nconst same = (got, want) => {\n  expect(got).toEqual(want);\n};\n\ntest(\"small\", () => {\n  sums(2, 3, 5);\n  loose(1, 1);\n  same(pair(), [1, 2]);\n});\n";
    let (out, names) =
        twin_in(Some(root.path()), "test/add.test.js", text, &mut Up).expect("twinned");
    assert_eq!(names, ["small"]);
    for want in [
        "  sums(2, 3, 6);\n",
        "  loose(1, 1);\n",
        "  same(pair(), [1, 3]);\n",
    ] {
        assert!(out.contains(want), "{want} not in {out}");
    }
}

#[test]
fn a_table_walked_by_a_loop_gets_its_expected_column_changed() {
    let py = "def test_add():\n    for a, b, want in [\n        (2, 3, 5),\n        (-4, 1, -3),\n    ]:\n        assert add(a, b) == want\n";
    let (out, names) = twin("tests/test_add.py", py).expect("twinned");
    assert_eq!(names, ["test_add"]);
    assert!(
        out.contains("        (2, 3, 6),\n        (-4, 1, -2),\n"),
        "{out}"
    );
    for body in [
        // A row may be left out; the expected value is an input too; the comparison may
        // not run; the table is not written in the loop.
        "    for a, b, want in [(2, 3, 5)]:\n        if a > 9:\n            continue\n        assert add(a, b) == want\n",
        "    for a, b, want in [(2, 3, 5)]:\n        assert add(a, want - a) == want\n",
        "    for a, b, want in [(2, 3, 5)]:\n        if a:\n            assert add(a, b) == want\n",
        "    for a, b, want in CASES:\n        assert add(a, b) == want\n",
    ] {
        let text = format!("def test_x():\n{body}");
        assert_eq!(twin("tests/test_x.py", &text), None, "{body}");
    }
}

#[test]
fn a_step_the_twin_pass_never_reached_is_told_apart() {
    use TestOutcome::{Failed, Passed};
    let twins = Twins {
        files: vec![
            TwinFile {
                path: "tests/test_add.py".into(),
                withheld: false,
                names: vec!["test_small".into()],
            },
            TwinFile {
                path: "add_test.go".into(),
                withheld: false,
                names: vec!["TestAdd".into()],
            },
        ],
        known: Vec::new(),
        kept: Vec::new(),
        withheld: Vec::new(),
        split: false,
        clones: Vec::new(),
        notes: Vec::new(),
    };
    let verdict = report(&[
        ("tests/test_add.py::test_small", Passed),
        ("calc/TestAdd", Passed),
    ]);
    // `pytest && go test`: pytest's twin failed, and go never ran.
    let first = report(&[("tests/test_add.py::test_small", Failed)]);
    assert_eq!(
        reached(&twins, &verdict, &first),
        (
            vec!["tests/test_add.py".to_owned()],
            vec!["add_test.go".to_owned()]
        )
    );
    assert_eq!(language("add_test.go"), "go");
    assert_eq!(language("tests/test_add.py"), "python");
    let both = report(&[
        ("tests/test_add.py::test_small", Passed),
        ("calc/TestAdd", Failed),
    ]);
    assert_eq!(reached(&twins, &verdict, &both).1, Vec::<String>::new());
}

#[test]
fn a_go_tests_named_expected_value_gets_changed() {
    let text = "package calc\n\nimport (\n\t\"reflect\"\n\t\"testing\"\n\n\t\"github.com/google/go-cmp/cmp\"\n)\n\nfunc TestAdd(t *testing.T) {\n\twant := 5\n\tif got := Add(2, 3); got != want {\n\t\tt.Fatalf(\"Add(2, 3) = %d, want %d\", got, want)\n\t}\n}\n\nfunc TestSplit(t *testing.T) {\n\twant := []string{\"a\", \"b\"}\n\tgot := Split(\"a b\")\n\tif !reflect.DeepEqual(got, want) {\n\t\tt.Errorf(\"got %v\", got)\n\t}\n}\n\nfunc TestDiff(t *testing.T) {\n\tconst want = \"ab\"\n\tif diff := cmp.Diff(want, Join(\"a\", \"b\")); diff != \"\" {\n\t\tt.Error(diff)\n\t}\n}\n";
    let (out, names) = twin("calc/add_test.go", text).expect("twinned");
    assert_eq!(names, ["TestAdd", "TestSplit", "TestDiff"]);
    assert!(out.contains("\twant := 6\n"), "{out}");
    assert!(out.contains("\twant := []string{\"a\", \"c\"}\n"), "{out}");
    assert!(out.contains("\tconst want = \"ac\"\n"), "{out}");
    let testify = "package calc\n\nfunc TestJoin(t *testing.T) {\n\twant := \"ab\"\n\tassert.Equal(t, want, Join(\"a\", \"b\"))\n}\n";
    let (joined, _) = twin("calc/join_test.go", testify).expect("twinned");
    assert!(joined.contains("\twant := \"ac\"\n"), "{joined}");
    assert_eq!(out.lines().count(), text.lines().count());
    // A name used elsewhere, compared where the comparison may not run or may hold
    // otherwise, or a diff whose package is not go-cmp, is left alone.
    for body in [
        "\twant := 5\n\tif got := Add(2, 3); got != want {\n\t\tt.Fatal(got)\n\t}\n\twant = 6\n",
        "\twant := 5\n\tif got := Add(2, 3); got != want {\n\t\tt.Log(got)\n\t}\n",
        "\twant := 5\n\tif ready() {\n\t\tif got := Add(2, 3); got != want {\n\t\t\tt.Fatal(got)\n\t\t}\n\t}\n",
        "\twant := 5\n\tif got := Add(2, 3); got != want && got != 7 {\n\t\tt.Fatal(got)\n\t}\n",
        "\twant := 5\n\tif got := Add(want, 3); got != c {\n\t\tt.Fatal(got)\n\t}\n",
        "\twant := 5\n\tif diff := cmp.Diff(want, Add(2, 3)); diff != \"\" {\n\t\tt.Fatal(diff)\n\t}\n",
        "\twant := 5\n\tif !reflect.DeepEqual(Add(2, 3), want, opt) {\n\t\tt.Fatal()\n\t}\n",
        "\twant := 5\n\tassert.Equal(t, want, Add(2, 3), want)\n",
        "\twant := 5\n\tassert.NotEqual(t, want, Add(2, 3))\n",
        "\twant := 5\n\tif got := Add(2, 3); got != want {\n\t\tt.Fatal(got)\n\t} else {\n\t\tt.Log(got)\n\t}\n",
    ] {
        let text = format!("package calc\n\nfunc TestX(t *testing.T) {{\n{body}}}\n");
        assert_eq!(twin("calc/x_test.go", &text), None, "{body}");
    }
}

#[test]
fn a_sub_test_loop_over_literal_rows_gets_its_expected_column_changed() {
    let text = "import unittest\n\n\nclass AddTest(unittest.TestCase):\n    def test_add(self):\n        for a, b, want in [(2, 3, 5), (-4, 1, -3)]:\n            with self.subTest(a=a, b=b):\n                self.assertEqual(add(a, b), want)\n\n    def test_plain_loop(self):\n        for a, want in [(1, 2)]:\n            self.assertEqual(want, inc(a))\n";
    let (out, names) = twin("tests/test_add.py", text).expect("twinned");
    assert_eq!(names, ["test_add", "test_plain_loop"]);
    assert!(
        out.contains("for a, b, want in [(2, 3, 6), (-4, 1, -2)]:"),
        "{out}"
    );
    assert!(out.contains("for a, want in [(1, 3)]:"), "{out}");
    // The expected name in the sub-test's label, another context, a second statement
    // beside the block, or a comparison that is not equality: left alone.
    for body in [
        "        for a, want in [(1, 2)]:\n            with self.subTest(want=want):\n                self.assertEqual(inc(a), want)\n",
        // The label shows in the report (unittest's `(want=2)`, pytest's subtest
        // reports): whatever spells the expected value there.
        "        for a, want in [(1, 2)]:\n            with self.subTest(f\"{a} -> {want}\"):\n                self.assertEqual(inc(a), want)\n",
        "        for a, want in [(1, 2)]:\n            with self.subTest(row=(a, want)):\n                self.assertEqual(inc(a), want)\n",
        "        for a, want in [(1, 2)]:\n            with suppress(AssertionError):\n                self.assertEqual(inc(a), want)\n",
        "        for a, want in [(1, 2)]:\n            with self.subTest(a=a):\n                self.assertNotEqual(inc(a), want)\n",
        "        for a, want in [(1, 2)]:\n            with self.subTest(a=a):\n                if a:\n                    self.assertEqual(inc(a), want)\n",
        "        for a, want in [(1, 2)]:\n            with self.subTest(a=a):\n                self.assertEqual(inc(a), want, msg=want)\n",
    ] {
        let text = format!("class T(unittest.TestCase):\n    def test_x(self):\n{body}");
        assert_eq!(twin("tests/test_x.py", &text), None, "{body}");
    }
}

#[test]
fn a_javascript_loop_over_literal_rows_gets_its_expected_column_changed() {
    let text = "const { add } = require(\"../calc\");\n\ntest(\"adds\", () => {\n  for (const [a, b, want] of [\n    [2, 3, 5],\n    [-4, 1, -3],\n  ]) {\n    expect(add(a, b)).toBe(want);\n  }\n});\n\ntest(\"joins\", () => {\n  for (const [a, want] of [[\"a\", \"ab\"]]) {\n    assert.strictEqual(join(a, \"b\"), want);\n  }\n});\n";
    let (out, names) = twin("test/add.test.js", text).expect("twinned");
    assert_eq!(names, ["adds", "joins"]);
    assert!(out.contains("    [2, 3, 6],\n    [-4, 1, -2],\n"), "{out}");
    assert!(out.contains("of [[\"a\", \"ac\"]]) {"), "{out}");
    assert_eq!(out.lines().count(), text.lines().count());
    for body in [
        "  for (const [a, want] of [[1, 2]]) {\n    if (a) {\n      break;\n    }\n    expect(inc(a)).toBe(want);\n  }\n",
        "  for (const [a, want] of [[1, 2]]) {\n    expect(inc(a)).not.toBe(want);\n  }\n",
        "  for (const [a, want] of [[1, 2]]) {\n    expect(inc(a, want)).toBe(want);\n  }\n",
        "  for (const [a, want] of rows) {\n    expect(inc(a)).toBe(want);\n  }\n",
        "  for (const [a, want] of [[1, 2]]) {\n    if (a) {\n      expect(inc(a)).toBe(want);\n    }\n  }\n",
    ] {
        let text = format!("test(\"x\", () => {{\n{body}}});\n");
        assert_eq!(twin("test/x.test.js", &text), None, "{body}");
    }
}

#[test]
fn calls_of_a_test_classs_helper_method_get_their_expected_argument_changed() {
    let text = "import unittest\n\n\nclass AddTest(unittest.TestCase):\n    def check(self, a, b, want):\n        self.assertEqual(add(a, b), want)\n\n    def _sums(self, got, want):\n        assert got == want\n\n    def test_small(self):\n        self.check(2, 3, 5)\n\n    def test_sums(self):\n        self._sums(add(1, 1), want=2)\n\n\nclass Other(unittest.TestCase):\n    def test_other(self):\n        self.check(2, 3, 5)\n";
    let (out, names) = twin("tests/test_add.py", text).expect("twinned");
    assert_eq!(names, ["test_small", "test_sums"]);
    assert!(out.contains("        self.check(2, 3, 6)\n"), "{out}");
    assert!(
        out.contains("        self._sums(add(1, 1), want=3)\n"),
        "{out}"
    );
    // Another class's `self.check` is not this one.
    assert!(
        out.ends_with("    def test_other(self):\n        self.check(2, 3, 5)\n"),
        "{out}"
    );
    // An override, a method bound again, one that returns, decorates or uses the
    // expected value twice: left alone.
    for methods in [
        "    def check(self, got, want):\n        self.assertEqual(got, want)\n\n    def check(self, got, want):\n        pass\n",
        "    def check(self, got, want):\n        self.assertEqual(got, want)\n\n    check = staticmethod(print)\n",
        "    def check(self, got, want):\n        if got is None:\n            return\n        self.assertEqual(got, want)\n",
        "    @some_decorator\n    def check(self, got, want):\n        self.assertEqual(got, want)\n",
        "    def check(self, got, want):\n        self.assertEqual(got, want)\n        print(want)\n",
        "    def check(self, got, want):\n        self.assertNotEqual(got, want)\n",
        "    def setUp(self):\n        self.check = print\n\n    def check(self, got, want):\n        self.assertEqual(got, want)\n",
        "    def setUp(self):\n        setattr(self, \"check\", print)\n\n    def check(self, got, want):\n        self.assertEqual(got, want)\n",
    ] {
        let text = format!(
            "class T(unittest.TestCase):\n{methods}\n    def test_x(self):\n        self.check(add(2, 3), 5)\n"
        );
        assert_eq!(twin("tests/test_x.py", &text), None, "{methods}");
    }
}

#[test]
fn jest_each_object_rows_get_their_expected_cell_changed() {
    let text = "test.each([\n  { a: 2, b: 3, expected: 5 },\n  { a: -4, b: 1, expected: -3 },\n])(\"add($a, $b)\", ({ a, b, expected }) => {\n  expect(add(a, b)).toBe(expected);\n});\n";
    let (out, names) = twin("test/add.test.js", text).expect("twinned");
    assert_eq!(names, ["add(2, 3)", "add(-4, 1)"]);
    assert!(out.contains("  { a: 2, b: 3, expected: 6 },\n"), "{out}");
    assert!(out.contains("  { a: -4, b: 1, expected: -2 },\n"), "{out}");
    for (title, rows) in [
        // The title prints the expected value, prints another way, or a row lacks it.
        ("add($a, $b) is $expected", "{ a: 2, b: 3, expected: 5 }"),
        ("add(%s)", "{ a: 2, b: 3, expected: 5 }"),
        ("add($a.b)", "{ a: 2, b: 3, expected: 5 }"),
        ("add($a)", "{ a: \"2\", b: 3, expected: 5 }"),
        ("add($a)", "{ a: 2, b: 3 }"),
        ("add($a)", "{ a: 2, b: 3, expected: 5, expected: 6 }"),
        ("add($a)", "{ a: 2, b: 3, expected }"),
    ] {
        let text = format!(
            "test.each([\n  {rows},\n])(\"{title}\", ({{ a, b, expected }}) => {{\n  expect(add(a, b)).toBe(expected);\n}});\n"
        );
        assert_eq!(twin("test/x.test.js", &text), None, "{title} {rows}");
    }
}

#[test]
fn a_module_level_table_used_by_one_test_gets_its_expected_column_changed() {
    let text = "import pytest\n\nfrom calc import add, sub\n\nCASES = [\n    (2, 3, 5),\n    (-4, 1, -3),\n]\n\nSUBS = ((5, 3, 2),)\n\n\n@pytest.mark.parametrize(\"a, b, expected\", CASES)\ndef test_add(a, b, expected):\n    assert add(a, b) == expected\n\n\ndef test_sub():\n    for a, b, want in SUBS:\n        assert sub(a, b) == want\n";
    let (out, names) = twin("tests/test_calc.py", text).expect("twinned");
    assert_eq!(names, ["test_add", "test_sub"]);
    assert!(out.contains("    (2, 3, 6),\n    (-4, 1, -2),\n"), "{out}");
    assert!(out.contains("SUBS = ((5, 3, 3),)\n"), "{out}");
    assert_eq!(out.lines().count(), text.lines().count());
    // A table used twice, changed after its definition, or built otherwise: left alone.
    for table in [
        "CASES = [(2, 3, 5)]\nMORE = CASES\n",
        "CASES = [(2, 3, 5)]\nCASES.append((1, 1, 2))\n",
        "CASES = [(2, 3, 5)] + EXTRA\n",
        "CASES = list(ROWS)\n",
    ] {
        let text = format!(
            "{table}\n\ndef test_add():\n    for a, b, want in CASES:\n        assert add(a, b) == want\n"
        );
        assert_eq!(twin("tests/test_x.py", &text), None, "{table}");
    }
}

#[test]
fn a_go_package_level_table_used_by_one_test_gets_its_want_column_changed() {
    let text = "package calc\n\nimport \"testing\"\n\nvar addCases = []struct {\n\ta, b, want int\n}{\n\t{2, 3, 5},\n\t{a: -4, b: 1, want: -3},\n}\n\nfunc TestAdd(t *testing.T) {\n\tfor _, c := range addCases {\n\t\tif got := Add(c.a, c.b); got != c.want {\n\t\t\tt.Errorf(\"Add(%d, %d) = %d\", c.a, c.b, got)\n\t\t}\n\t}\n}\n";
    let (out, names) = twin("calc/add_test.go", text).expect("twinned");
    assert_eq!(names, ["TestAdd"]);
    assert!(
        out.contains("\t{2, 3, 6},\n\t{a: -4, b: 1, want: -2},\n"),
        "{out}"
    );
    assert_eq!(out.lines().count(), text.lines().count());
    // Ranged over by two tests, or named by another file of the package: left alone.
    let twice = format!(
        "{text}\nfunc TestAgain(t *testing.T) {{\n\tfor _, c := range addCases {{\n\t\tif got := Add(c.a, c.b); got != c.want {{\n\t\t\tt.Error(got)\n\t\t}}\n\t}}\n}}\n"
    );
    assert_eq!(
        twin("calc/add_test.go", &twice).map(|(_, n)| n),
        None,
        "{twice}"
    );
    let named = |name: &str| name == "addCases";
    let (out, names) = lang::go_with(text, &named, &mut Up);
    assert!(names.is_empty() && out == text, "{out}");
}

#[test]
fn a_kept_files_test_that_fails_only_in_the_twin_pass_is_named() {
    use TestOutcome::{Failed, Passed};
    let mut twins = twins("tests/test_big.py", &["test_big"], true);
    twins.kept = vec!["tests/test_add.py".into()];
    let verdict = report(&[
        ("tests/test_add.py::test_small", Passed),
        ("tests/test_big.py::test_big", Passed),
        ("tests/test_addition.py::test_other", Passed),
    ]);
    // The withheld twin failing, as it must, and a file not kept failing, are no change.
    let twin = report(&[
        ("tests/test_add.py::test_small", Passed),
        ("tests/test_big.py::test_big", Failed),
        ("tests/test_addition.py::test_other", Failed),
    ]);
    assert_eq!(changed(&twins, (&verdict, &twin), &|_| false), None);
    let twin = report(&[
        ("tests/test_add.py::test_small", Failed),
        ("tests/test_big.py::test_big", Failed),
    ]);
    assert_eq!(
        changed(&twins, (&verdict, &twin), &|_| false).as_deref(),
        Some("`tests/test_add.py::test_small`")
    );
    // A withheld file's test is never named.
    twins.withheld = vec!["tests/test_add.py".into()];
    assert_eq!(
        changed(&twins, (&verdict, &twin), &|_| false).as_deref(),
        Some("a withheld test (or speccoder's known answer)")
    );
    twins.withheld = Vec::new();
    // A test the kept file's run did not reach is no change.
    let twin = report(&[("tests/test_big.py::test_big", Failed)]);
    assert_eq!(changed(&twins, (&verdict, &twin), &|_| false), None);
    // A Go test, whose id names no file, where the kept file declares it.
    let mut twins = self::twins("calc/add_test.go", &["TestAdd"], false);
    twins.kept = vec!["calc/big_test.go".into()];
    let verdict = report(&[("calc/TestAdd", Passed), ("calc/TestBig", Passed)]);
    let twin = report(&[("calc/TestAdd", Failed), ("calc/TestBig", Failed)]);
    assert_eq!(changed(&twins, (&verdict, &twin), &|_| false), None);
    // Read through what a kept file declares; an id that names no file is never shown (it
    // may be a withheld test's).
    let declares = |id: &str| id == "calc/TestBig";
    assert_eq!(
        changed(&twins, (&verdict, &twin), &declares).as_deref(),
        Some("a withheld test (or speccoder's known answer)")
    );
}

#[test]
fn a_known_answer_keeps_its_lines_in_a_withheld_files_twin() {
    let text = "def test_a():\n    assert f() == 5\n\n\ndef test_a_zero():\n    v = 7\n    assert v == 7\n";
    let twin = "def test_a():\n    assert f() == 6\n\n\ndef test_a_zero():\n    v = 7\n    assert v == 8\n";
    let known = Known {
        path: "tests/test_a.py".into(),
        name: "test_a_zero".into(),
        lines: (4, 7),
    };
    let names = vec!["test_a".to_owned(), "test_a_zero".to_owned()];
    let (kept, names) = plant::keeping_known(text, (twin.to_owned(), names.clone()), Some(&known))
        .expect("a twin besides the known answer");
    assert_eq!(
        kept,
        "def test_a():\n    assert f() == 6\n\n\ndef test_a_zero():\n    v = 7\n    assert v == 7\n"
    );
    assert_eq!(names, ["test_a"]);
    // Its twin alone: nothing left to ask.
    let only = vec!["test_a_zero".to_owned()];
    assert_eq!(
        plant::keeping_known(text, (text.to_owned(), only), Some(&known)),
        None
    );
    // Lines that do not line up: no twin rather than a wrong one.
    let longer = format!("{twin}\n");
    assert_eq!(
        plant::keeping_known(text, (longer, names), Some(&known)),
        None
    );
}

/// The red team's `parametrize-ids` table: its twin passes the ids pytest gave the
/// original rows (measured: `test_add[2-3-5]`, `test_add[-4-1--3]` in both passes), on the
/// lines they were on, so the pytest process sees the same names in both passes.
#[test]
fn a_pytest_tables_twin_keeps_its_rows_ids() {
    let text = include_str!(
        "../../../../../docs/design/red-team/parametrize-ids/project/tests/test_add.py"
    );
    let (out, names) = twin("tests/test_add.py", text).expect("twinned");
    assert_eq!(names, ["test_add"]);
    assert!(
        out.contains(
            "        (2, 3, 6),\n        (-4, 1, -2),\n    ], ids=[\"2-3-5\", \"-4-1--3\"],\n)\n"
        ),
        "{out}"
    );
    assert_eq!(out.lines().count(), text.lines().count());
    // Ids the twin cannot keep: a callable's, a cell's whose part pytest takes from its
    // type or its settings. No twin, rather than a twin under other ids.
    for table in [
        "@pytest.mark.parametrize(\"a, b, expected\", [(2, 3, 5)], ids=lambda v: str(v))\n",
        "@pytest.mark.parametrize(\"a, b, expected\", [(2, 3, 5)], ids=IDS)\n",
        "@pytest.mark.parametrize(\"a, b, expected\", [(int, 3, 5)])\n",
        "@pytest.mark.parametrize(\"a, b, expected\", [(b\"x\", 3, 5)])\n",
        "@pytest.mark.parametrize(\"a, b, expected\", [(f\"{x}\", 3, 5)])\n",
    ] {
        let text =
            format!("{table}def test_x(a, b, expected):\n    assert add(a, b) == expected\n");
        assert_eq!(twin("tests/test_x.py", &text), None, "{table}");
    }
}

/// A table of `pytest.param` rows has a twin too, each row under its own id (an `id=` it
/// gives, or the one pytest generates from its values); a row with marks leaves it alone.
#[test]
fn a_pytest_param_tables_twin_keeps_its_rows_ids() {
    let text = "@pytest.mark.parametrize(\n    \"a, b, expected\",\n    [\n        pytest.param(2, 3, 5, id=\"small\"),\n        pytest.param(-4, 1, -3),\n        (1, 1, 2),\n    ],\n)\ndef test_add(a, b, expected):\n    assert add(a, b) == expected\n";
    let (out, names) = twin("tests/test_add.py", text).expect("twinned");
    assert_eq!(names, ["test_add"]);
    assert!(
        out.contains("        pytest.param(2, 3, 6, id=\"small\"),\n        pytest.param(-4, 1, -2),\n        (1, 1, 3),\n    ], ids=[\"small\", \"-4-1--3\", \"1-1-2\"],\n"),
        "{out}"
    );
    assert_eq!(out.lines().count(), text.lines().count());
    let marked = text.replace("id=\"small\"", "marks=pytest.mark.slow");
    assert_eq!(twin("tests/test_add.py", &marked), None);
}

/// With its ids kept, a table's twin is judged under the verdict's own ids.
#[test]
fn a_tables_twins_are_judged_under_their_kept_ids() {
    use TestOutcome::{Failed, Passed};
    let twins = twins("tests/test_add.py", &["test_add"], false);
    let verdict = report(&[
        ("tests/test_add.py::test_add[2-3-5]", Passed),
        ("tests/test_add.py::test_add[-4-1--3]", Passed),
    ]);
    let held = report(&[
        ("tests/test_add.py::test_add[2-3-5]", Failed),
        ("tests/test_add.py::test_add[-4-1--3]", Failed),
    ]);
    assert_eq!(
        judge(&twins, &verdict, &held, Some(1), false, None, true),
        Ok(TwinsSaid::Held(2))
    );
    let forged = report(&[
        ("tests/test_add.py::test_add[2-3-5]", Passed),
        ("tests/test_add.py::test_add[-4-1--3]", Failed),
    ]);
    let err = judge(&twins, &verdict, &forged, Some(1), false, None, true).expect_err("forged");
    assert!(
        err.contains("`tests/test_add.py::test_add[2-3-5]`"),
        "{err}"
    );
    let (reached, unreached) = reached(&twins, &verdict, &held);
    assert_eq!((reached.len(), unreached.len()), (1, 0));
}

/// A Go subtest named after its whole row (`t.Run(fmt.Sprint(c), …)`, measured with go
/// 1.27: `TestAdd/{two_2_3_5}`) would run under its changed value's name: no twin. A
/// subtest named by a field the twin leaves alone keeps its name, and has one.
#[test]
fn a_go_subtest_named_after_its_expected_value_has_no_twin() {
    let table = |run: &str| {
        format!(
            "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {{\n\tcases := []struct {{\n\t\tname       string\n\t\ta, b, want int\n\t}}{{\n\t\t{{\"two\", 2, 3, 5}},\n\t}}\n\tfor _, c := range cases {{\n\t\tt.Run({run}, func(t *testing.T) {{\n\t\t\tif got := Add(c.a, c.b); got != c.want {{\n\t\t\t\tt.Errorf(\"%v: got %d\", c, got)\n\t\t\t}}\n\t\t}})\n\t}}\n}}\n"
        )
    };
    for run in [
        "fmt.Sprint(c)",
        "fmt.Sprintf(\"%+v\", c)",
        "name(c)",
        "fmt.Sprint(c.want)",
    ] {
        assert_eq!(twin("calc/add_test.go", &table(run)), None, "{run}");
    }
    for run in ["c.name", "fmt.Sprint(c.a)"] {
        let (out, names) = twin("calc/add_test.go", &table(run)).expect("twinned");
        assert_eq!(names, ["TestAdd"], "{run}");
        assert!(out.contains("{\"two\", 2, 3, 6}"), "{out}");
    }
}

#[test]
fn agreement_over_many_kept_files_and_a_large_report_stays_quick() {
    use TestOutcome::Passed;
    // 100,000 passing tests in 2,000 files the twin pass left alone, all passing again but
    // one: each id is matched by its file's name in one look-up (0.5 s here in a debug
    // build), never against every kept file in turn.
    let ids: Vec<String> = (0..100_000)
        .map(|i| format!("pkg/tests/test_m{}.py::test_t{i}", i % 2_000))
        .collect();
    let verdict = TestReport {
        tests: ids.iter().map(|id| (id.clone(), Passed)).collect(),
        ..TestReport::default()
    };
    let mut twin = verdict.clone();
    twin.tests.insert(
        "pkg/tests/test_m1007.py::test_t99007".into(),
        TestOutcome::Failed,
    );
    let mut twins = self::twins("tests/test_w.py", &["test_w"], true);
    twins.kept = (0..2_000)
        .map(|m| format!("pkg/tests/test_m{m}.py"))
        .collect();
    let started = std::time::Instant::now();
    let declared = |_: &str| false;
    let said = changed(&twins, (&verdict, &twin), &declared);
    eprintln!("read in {:?}", started.elapsed());
    assert_eq!(
        said.as_deref(),
        Some("`pkg/tests/test_m1007.py::test_t99007`")
    );
    assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
}

#[test]
fn a_withheld_files_tests_as_written_must_agree_in_the_half_that_twins_its_others() {
    use TestOutcome::{Failed, Passed};
    // The first half twinned `test_big`; `test_huge`, in the same file, ran as written.
    let mut twins = self::twins("tests/test_big.py", &["test_big"], true);
    twins.kept = vec!["tests/test_big.py".into()];
    twins.withheld = vec!["tests/test_big.py".into()];
    let verdict = report(&[
        ("tests/test_big.py::test_big", Passed),
        ("tests/test_big.py::test_huge", Passed),
    ]);
    let twin = report(&[
        ("tests/test_big.py::test_big", Failed),
        ("tests/test_big.py::test_huge", Passed),
    ]);
    assert_eq!(changed(&twins, (&verdict, &twin), &|_| false), None);
    let twin = report(&[
        ("tests/test_big.py::test_big", Failed),
        ("tests/test_big.py::test_huge", Failed),
    ]);
    assert_eq!(
        changed(&twins, (&verdict, &twin), &|_| false).as_deref(),
        Some("a withheld test (or speccoder's known answer)")
    );
    // A table's twin under ids of its own is still the twin, not a test as written.
    let twin = report(&[
        ("tests/test_big.py::test_big[10-20-31]", Failed),
        ("tests/test_big.py::test_huge", Passed),
    ]);
    let verdict = report(&[
        ("tests/test_big.py::test_big[10-20-30]", Passed),
        ("tests/test_big.py::test_huge", Passed),
    ]);
    assert_eq!(changed(&twins, (&verdict, &twin), &|_| false), None);
}

#[test]
fn a_withheld_test_the_verdicts_report_did_not_name_must_not_fail_as_written() {
    use TestOutcome::Failed;
    // unittest without `-v` names failures alone: the verdict's pass (which passed) named
    // nothing, and the half that twinned `test_big` names `test_huge` failing as written.
    let mut twins = self::twins("tests/test_big.py", &["test_big"], true);
    twins.kept = vec!["tests/test_big.py".into()];
    twins.withheld = vec!["tests/test_big.py".into()];
    let verdict = report(&[]);
    let twin = report(&[("tests.test_big.BigTest.test_big", Failed)]);
    assert_eq!(changed(&twins, (&verdict, &twin), &|_| false), None);
    let twin = report(&[
        ("tests.test_big.BigTest.test_big", Failed),
        ("tests.test_big.BigTest.test_huge", Failed),
    ]);
    assert_eq!(
        changed(&twins, (&verdict, &twin), &|_| false).as_deref(),
        Some("a withheld test (or speccoder's known answer)")
    );
    // A clone planted beside a unit's one withheld test is judged by its twin alone.
    let mut cloned = twins.clone();
    cloned.clones = vec![("test_huge".into(), "test_big".into())];
    assert_eq!(changed(&cloned, (&verdict, &twin), &|_| false), None);
    // Run from the tests' folder, the module has no package: matched by its file's name.
    let twin = report(&[("test_big.BigTest.test_huge", Failed)]);
    assert!(changed(&twins, (&verdict, &twin), &|_| false).is_some());
    // A visible file's test the verdict did not name is no evidence: it may not have run.
    let mut twins = self::twins("tests/test_big.py", &["test_big"], true);
    twins.kept = vec!["tests/test_add.py".into()];
    twins.withheld = vec!["tests/test_big.py".into()];
    let twin = report(&[("tests.test_add.AddTest.test_small", Failed)]);
    assert_eq!(changed(&twins, (&verdict, &twin), &|_| false), None);
}

#[test]
fn a_known_answer_moves_past_a_copy_inserted_before_it() {
    let text = "def test_a():\n    assert f() == 5\n\n\ndef test_a_zero():\n    v = 7\n    assert v == 7\n";
    let known = Known {
        path: "tests/test_a.py".into(),
        name: "test_a_zero".into(),
        lines: (4, 7),
    };
    // A copy of `test_a` right after it: four lines before the known answer.
    let cloned = "def test_a():\n    assert f() == 5\n\n\ndef test_b():\n    assert f() == 5\n\n\ndef test_a_zero():\n    v = 7\n    assert v == 7\n";
    let moved = plant::moved(text, cloned, &known).expect("moved");
    assert_eq!(moved.lines, (8, 11));
    let lines: Vec<&str> = cloned.split('\n').collect();
    assert_eq!(lines[8], "def test_a_zero():");
    // A copy after it leaves it where it is.
    let after = format!("{text}\n\ndef test_b():\n    assert f() == 5\n");
    assert_eq!(
        plant::moved(text, &after, &known).expect("kept").lines,
        (4, 7)
    );
    // A copy placed where the known answer was, both opening with blank lines: the first
    // line they differ on is past those.
    let text = "def test_a():\n    assert f() == 5\n\n\ndef test_a_zero():\n    v = 7\n    assert v == 7\n";
    let known = Known {
        lines: (2, 7),
        ..known
    };
    let cloned = "def test_a():\n    assert f() == 5\n\n\ndef test_b():\n    assert f() == 5\n\n\ndef test_a_zero():\n    v = 7\n    assert v == 7\n";
    let moved = plant::moved(text, cloned, &known).expect("moved");
    assert_eq!(moved.lines, (6, 11));
    let lines: Vec<&str> = cloned.split('\n').collect();
    assert_eq!(
        lines[6..11],
        [
            "",
            "",
            "def test_a_zero():",
            "    v = 7",
            "    assert v == 7"
        ]
    );
    // Rust's: the copy and the known answer both open with a blank line and `#[test]`.
    let rust = "#[test]\nfn big() {\n    assert_eq!(add(10, 20), 30);\n}\n\n#[test]\nfn big_zero() {\n    let v = 7;\n    assert_eq!(v, 7);\n}\n";
    let rust_known = Known {
        path: "tests/big.rs".into(),
        name: "big_zero".into(),
        lines: (4, 10),
    };
    let cloned = rust.replacen(
        "}\n\n#[test]\nfn big_zero",
        "}\n\n#[test]\nfn big_add() {\n    assert_eq!(add(10, 20), 30);\n}\n\n#[test]\nfn big_zero",
        1,
    );
    let moved = plant::moved(rust, &cloned, &rust_known).expect("moved");
    let lines: Vec<&str> = cloned.split('\n').collect();
    assert_eq!(
        lines[moved.lines.0..moved.lines.1].join("\n"),
        "\n#[test]\nfn big_zero() {\n    let v = 7;\n    assert_eq!(v, 7);\n}"
    );
    // Lines inserted inside it: no place for it.
    let inside = text.replace("    v = 7\n", "    v = 7\n    w = 1\n");
    assert_eq!(plant::moved(text, &inside, &known), None);
}

#[test]
fn a_copys_twin_is_judged_by_the_twin_pass_report_alone() {
    use TestOutcome::{Failed, Passed};
    // The half that twins the copy `test_copy` of `test_big`: the verdict's pass never
    // ran the copy, so its twin is found in this run's report.
    let mut twins = twins("tests/test_big.py", &["test_copy"], true);
    twins.clones = vec![("test_copy".into(), "test_big".into())];
    let verdict = report(&[("tests/test_big.py::test_big", Passed)]);
    let held = report(&[
        ("tests/test_big.py::test_big", Passed),
        ("tests/test_big.py::test_copy", Failed),
    ]);
    assert_eq!(
        judge(&twins, &verdict, &held, Some(1), false, None, true),
        Ok(TwinsSaid::Held(1))
    );
    assert_eq!(
        reached(&twins, &verdict, &held),
        (vec!["tests/test_big.py".to_owned()], Vec::new())
    );
    let forged = report(&[
        ("tests/test_big.py::test_big", Passed),
        ("tests/test_big.py::test_copy", Passed),
    ]);
    let err = judge(&twins, &verdict, &forged, Some(0), false, None, true).expect_err("forged");
    assert!(
        err.contains("a withheld test") && !err.contains("test_copy"),
        "{err}"
    );
    // Gone from a report that names the test beside it.
    let gone = report(&[("tests/test_big.py::test_big", Passed)]);
    assert!(judge(&twins, &verdict, &gone, Some(1), false, None, true).is_err());
    // A run that never reached the file: unreached, for another round.
    let elsewhere = report(&[("tests/test_add.py::test_small", Failed)]);
    assert_eq!(
        judge(&twins, &verdict, &elsewhere, Some(1), false, None, true),
        Ok(TwinsSaid::Inconclusive)
    );
    assert_eq!(
        reached(&twins, &verdict, &elsewhere),
        (Vec::new(), vec!["tests/test_big.py".to_owned()])
    );
}

#[test]
fn no_copy_where_tests_may_run_beside_it() {
    let root = tempfile::tempdir().expect("a folder");
    let go = "package calc\n\nfunc TestBig(t *testing.T) {\n\tif got := Add(1, 2); got != 3 {\n\t\tt.Fatal(got)\n\t}\n}\n";
    let helper = "package calc\n\nfunc parallel(t *testing.T) {\n\tt.Helper()\n\tt.Parallel()\n}\n"
        .to_owned();
    assert!(!plant::runs_beside(
        root.path(),
        "calc/big_test.go",
        go,
        &[]
    ));
    assert!(plant::runs_beside(
        root.path(),
        "calc/big_test.go",
        go,
        &[helper]
    ));
    let js = "test.concurrent('big', async () => {\n  expect(add(1, 2)).toBe(3);\n});\n";
    assert!(plant::runs_beside(root.path(), "test/big.test.js", js, &[]));
    assert!(!plant::runs_beside(
        root.path(),
        "test/big.test.js",
        &js.replace(".concurrent", ""),
        &[]
    ));
    let rust = "#[test]\nfn big() {\n    std::fs::write(\"out\", \"1\").unwrap();\n    assert_eq!(add(1, 2), 3);\n}\n";
    assert!(plant::runs_beside(root.path(), "tests/big.rs", rust, &[]));
    let py = "def test_big():\n    assert add(1, 2) == 3\n";
    assert!(!plant::runs_beside(
        root.path(),
        "tests/test_big.py",
        py,
        &[]
    ));
    std::fs::write(
        root.path().join("pytest.ini"),
        "[pytest]\naddopts = -n auto\n",
    )
    .expect("written");
    assert!(plant::runs_beside(
        root.path(),
        "tests/test_big.py",
        py,
        &[]
    ));
}
