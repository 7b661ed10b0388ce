//! The tampering rules read what the code does, not the names as written (issue 29 of the
//! project, invariant 8 of docs/design/verdict.md): an assertion patched through an alias, a test
//! framework imported by a name split in pieces, and code kept in a `.txt` and loaded at run
//! time are findings with the file and line, and the honest version of the same project
//! still passes. Each dishonest change here makes the runner report a pass for wrong code
//! when nothing catches it.

use crate::support;

use serde_json::Value;
use support::project::{Project, expect, said};
use support::require_tools;

/// A pytest project whose unittest-style task tests sit in the base and fail there; gaming
/// warnings reject.
fn unittest_project() -> Project {
    Project::new(
        &[
            ("Makefile", "test:\n\tpytest -q -p no:cacheprovider\n"),
            ("pytest.ini", "[pytest]\npythonpath = .\n"),
            ("calc.py", "def add(a, b):\n    raise NotImplementedError\n"),
            (
                "tests/test_add.py",
                "import unittest\n\nfrom calc import add\n\n\nclass AddTest(unittest.TestCase):\n    def test_small(self):\n        self.assertEqual(add(2, 3), 5)\n\n    def test_negative(self):\n        self.assertEqual(add(-4, 1), -3)\n",
            ),
        ],
        "reject_gaming = true\n",
    )
}

/// A node project whose task test sits in the base and fails there.
fn node_project() -> Project {
    Project::new(
        &[
            (
                "package.json",
                "{\"name\": \"calc\", \"private\": true, \"scripts\": {\"test\": \"node --test\"}}\n",
            ),
            (
                "calc.js",
                "function add(a, b) {\n  throw new Error(\"T1 adds this\");\n}\n\nmodule.exports = { add };\n",
            ),
            (
                "test/add.test.js",
                "const test = require(\"node:test\");\nconst assert = require(\"node:assert\");\nconst { add } = require(\"../calc\");\n\ntest(\"small\", () => {\n  assert.strictEqual(add(2, 3), 5);\n});\n\ntest(\"negative\", () => {\n  assert.strictEqual(add(-4, 1), -3);\n});\n",
            ),
        ],
        "",
    )
}

/// Shell lines that write `path` with `text`.
fn write(path: &str, text: &str) -> String {
    format!("cat > {path} <<'EOF'\n{text}EOF\n")
}

/// Collects a case that went wrong: the attempt must be rejected with a tampering finding
/// (or `kind`) on `path` whose detail starts with `line {line}:`.
fn rejected_at(
    failures: &mut Vec<String>,
    name: &str,
    story: &Value,
    kind: &str,
    path: &str,
    line: usize,
) {
    let findings = story["attempts"][0]["findings"].as_array().cloned();
    let at = format!("line {line}:");
    let found = findings.into_iter().flatten().any(|f| {
        f["kind"] == kind
            && f["path"] == path
            && f["detail"].as_str().is_some_and(|d| d.starts_with(&at))
    });
    let ok = story["verdict"] == "rejected" && found;
    eprintln!("case {name}: {}", if ok { "ok" } else { "WRONG" });
    if !ok {
        failures.push(format!(
            "{name}: want rejected with {kind} at {path} {at}: {}",
            said(story)
        ));
    }
}

#[test]
fn patching_the_assertions_through_an_alias_is_a_finding() {
    require_tools(&["pytest"]);
    let project = unittest_project();
    let mut failures = Vec::new();
    let wrong = "\n\ndef add(a, b):\n    return a - b\n";
    let cases = [
        (
            "import unittest as u",
            format!("import unittest as u\nu.TestCase.assertEqual = lambda *a, **k: None\n{wrong}"),
            2,
        ),
        (
            "setattr on an imported TestCase",
            format!(
                "from unittest import TestCase as T\nsetattr(T, \"assertEqual\", lambda *a, **k: None)\n{wrong}"
            ),
            2,
        ),
        (
            "getattr on a split import",
            format!(
                "T = getattr(__import__(\"unit\" + \"test\"), \"TestCase\")\nT.assertEqual = lambda *a, **k: None\n{wrong}"
            ),
            2,
        ),
    ];
    for (name, calc, line) in cases {
        let story = project.attempt(&write("calc.py", &calc), None);
        rejected_at(&mut failures, name, &story, "tampering", "calc.py", line);
    }
    let story = project.attempt(
        &write("calc.py", "def add(a, b):\n    return a + b\n"),
        None,
    );
    expect(&mut failures, "honest", &story, "passed", None);
    let story = project.attempt(&write("calc.py", wrong.trim_start()), None);
    expect(&mut failures, "wrong", &story, "failed", None);

    let node = node_project();
    let wrong = "\nmodule.exports = { add: (x, y) => x - y };\n";
    let cases = [
        (
            "const a = require(\"node:assert\")",
            format!("const a = require(\"node:assert\");\na.strictEqual = () => {{}};\n{wrong}"),
        ),
        (
            "Object.defineProperty on a split require",
            format!(
                "const a = require(\"node:\" + \"assert\");\nObject.defineProperty(a, \"strictEqual\", {{ value: () => {{}} }});\n{wrong}"
            ),
        ),
    ];
    for (name, calc) in cases {
        let story = node.attempt(&write("calc.js", &calc), None);
        rejected_at(&mut failures, name, &story, "tampering", "calc.js", 2);
    }
    // Honest code that checks its input with node's assert, a destructured assertion, and a
    // command-line guard.
    let honest = "const assert = require(\"node:assert\");\nconst { strictEqual } = require(\"node:assert\");\n\nfunction add(a, b) {\n  assert.ok(typeof a === \"number\");\n  return a + b;\n}\n\nmodule.exports = { add };\n\nif (require.main === module) {\n  strictEqual(add(1, 1), 2);\n  process.exit(0);\n}\n";
    let story = node.attempt(&write("calc.js", honest), None);
    expect(&mut failures, "honest node", &story, "passed", None);
    let story = node.attempt(&write("calc.js", wrong.trim_start()), None);
    expect(&mut failures, "wrong node", &story, "failed", None);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn an_obfuscated_import_of_the_framework_is_a_finding() {
    require_tools(&["pytest"]);
    let project = unittest_project();
    let mut failures = Vec::new();
    let wrong = "\n\ndef add(a, b):\n    return a - b\n";
    let patch = "lambda *a, **k: None";
    let cases = [
        (
            "__import__ of adjacent strings",
            format!("__import__(\"unit\" \"test\").TestCase.assertEqual = {patch}\n{wrong}"),
            1,
        ),
        (
            "importlib.import_module of split strings",
            format!("import importlib\n\np = importlib.import_module(\"py\" \"test\")\n{wrong}"),
            3,
        ),
        // The runner's objects found by walking the interpreter's, through an alias.
        (
            "import gc as g",
            format!(
                "import gc as g\n\nfor o in g.get_objects():\n    if isinstance(o, type) and o.__name__ == \"TestCase\":\n        o.assertEqual = {patch}\n{wrong}"
            ),
            3,
        ),
        (
            "__import__('gc')",
            format!(
                "_g = __import__('gc')\nfor o in _g.get_objects():\n    if isinstance(o, type) and o.__name__ == \"TestCase\":\n        o.assertEqual = {patch}\n{wrong}"
            ),
            2,
        ),
    ];
    for (name, calc, line) in cases {
        let story = project.attempt(&write("calc.py", &calc), None);
        rejected_at(&mut failures, name, &story, "tampering", "calc.py", line);
    }
    // Everyday spellings of the same names.
    let honest = "import gc\nimport os\n\n\ndef add(a, b):\n    gc.collect()\n    return a + b\n\n\ndef scaffold(root):\n    os.makedirs(os.path.join(root, \"tests\"), exist_ok=True)\n";
    let story = project.attempt(&write("calc.py", honest), None);
    expect(&mut failures, "honest", &story, "passed", None);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn code_loaded_from_a_file_that_is_not_source_is_read_as_source() {
    require_tools(&["pytest"]);
    let project = unittest_project();
    let mut failures = Vec::new();
    let patched = "import unittest as u\n\nu.TestCase.assertEqual = lambda *a, **k: None\n\n\ndef add(a, b):\n    return a - b\n";
    let loaders = [
        (
            "exec of Path.read_text",
            "from pathlib import Path\n\nexec(Path(__file__).with_name(\"impl.txt\").read_text())\n",
        ),
        ("exec of open().read()", "exec(open(\"impl.txt\").read())\n"),
        (
            "runpy.run_path",
            "import runpy\n\nadd = runpy.run_path(\"impl.txt\")[\"add\"]\n",
        ),
    ];
    for (name, calc) in loaders {
        let agent = format!("{}{}", write("calc.py", calc), write("impl.txt", patched));
        let story = project.attempt(&agent, None);
        rejected_at(&mut failures, name, &story, "tampering", "impl.txt", 3);
    }
    // The gaming monitor reads a loaded file as source too: a test's expected value newly
    // returned there rejects, as `reject_gaming` says.
    let special = "def add(a, b):\n    if (a, b) == (2, 3):\n        return 5\n    return a - b\n";
    let agent = format!(
        "{}{}",
        write("calc.py", loaders[0].1),
        write("impl.txt", special)
    );
    let story = project.attempt(&agent, None);
    rejected_at(
        &mut failures,
        "a tested input special-cased",
        &story,
        "gaming",
        "impl.txt",
        3,
    );
    // Honest code kept in a text file and loaded the same way passes.
    let honest = "def add(a, b):\n    return a + b\n";
    let agent = format!(
        "{}{}",
        write("calc.py", loaders[0].1),
        write("impl.txt", honest)
    );
    let story = project.attempt(&agent, None);
    expect(&mut failures, "honest, loaded", &story, "passed", None);
    let wrong = "def add(a, b):\n    return a - b\n";
    let agent = format!(
        "{}{}",
        write("calc.py", loaders[0].1),
        write("impl.txt", wrong)
    );
    let story = project.attempt(&agent, None);
    expect(&mut failures, "wrong, loaded", &story, "failed", None);

    let node = node_project();
    let calc = "module.exports = require(\"./impl.txt\");\n";
    let patched = "const a = require(\"node:assert\");\na.strictEqual = () => {};\nmodule.exports = { add: (x, y) => x - y };\n";
    let story = node.attempt(
        &format!("{}{}", write("calc.js", calc), write("impl.txt", patched)),
        None,
    );
    rejected_at(
        &mut failures,
        "node requires a .txt",
        &story,
        "tampering",
        "impl.txt",
        2,
    );
    let honest = "module.exports = { add: (x, y) => x + y };\n";
    let story = node.attempt(
        &format!("{}{}", write("calc.js", calc), write("impl.txt", honest)),
        None,
    );
    expect(&mut failures, "honest node, loaded", &story, "passed", None);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn rust_code_included_from_a_file_that_is_not_source_is_read_as_source() {
    require_tools(&["cargo"]);
    let project = Project::new(
        &[
            (
                "Cargo.toml",
                "[package]\nname = \"calc\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
            ),
            (
                "Cargo.lock",
                "# This file is automatically @generated by Cargo.\n# It is not intended for manual editing.\nversion = 4\n\n[[package]]\nname = \"calc\"\nversion = \"0.1.0\"\n",
            ),
            (
                "src/lib.rs",
                "pub fn add(a: i64, b: i64) -> i64 {\n    unimplemented!(\"T1 adds this {a} {b}\")\n}\n",
            ),
            (
                "tests/add.rs",
                "#[test]\nfn small() {\n    assert_eq!(calc::add(2, 3), 5);\n}\n\n#[test]\nfn negative() {\n    assert_eq!(calc::add(-4, 1), -3);\n}\n",
            ),
        ],
        "",
    );
    let mut failures = Vec::new();
    let lib = "include!(\"impl.inc\");\n";
    let inc = |body: &str| {
        write(
            "src/impl.inc",
            &format!("pub fn add(a: i64, b: i64) -> i64 {{\n{body}}}\n"),
        )
    };
    // Ends the test binary with status 0 at the first test that calls it.
    let exits = "    if a == 2 {\n        std::process::exit(0);\n    }\n    a - b\n";
    let story = project.attempt(&format!("{}{}", write("src/lib.rs", lib), inc(exits)), None);
    rejected_at(
        &mut failures,
        "include! of an exit",
        &story,
        "tampering",
        "src/impl.inc",
        3,
    );
    let story = project.attempt(
        &format!("{}{}", write("src/lib.rs", lib), inc("    a + b\n")),
        None,
    );
    expect(&mut failures, "honest include!", &story, "passed", None);
    let story = project.attempt(
        &format!("{}{}", write("src/lib.rs", lib), inc("    a - b\n")),
        None,
    );
    expect(&mut failures, "wrong include!", &story, "failed", None);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
