//! Honest work on projects shaped like real ones passes, and the empty and wrong changes
//! of the same task fail (issue 40 of the project): jest and mocha with `[attempt] setup`,
//! a new npm `file:` dependency, a cargo workspace member's acceptance test, Go's withheld
//! tests behind a stub that panics, and a node acceptance test of a module the task
//! creates. Each project is written whole here, with stand-in agents of a few shell lines.

use crate::support;

use serde_json::Value;
use support::project::{Project, expect, said};
use support::require_tools;

/// The calculator's stub in JavaScript, and the agents' versions of it.
const JS_STUB: &str = "exports.add = (a, b) => {\n  throw new Error('T1 adds this');\n};\n";
const JS_HONEST: &str = "printf 'exports.add = (a, b) => a + b;\\n' > calc.js\n";
const JS_WRONG: &str = "printf 'exports.add = (a, b) => a - b;\\n' > calc.js\n";
const EMPTY: &str = "true\n";

/// An npm lockfile of a package without dependencies, as `npm install` writes it.
const LOCK_NO_DEPS: &str = "{\n  \"name\": \"calc\",\n  \"version\": \"1.0.0\",\n  \"lockfileVersion\": 3,\n  \"requires\": true,\n  \"packages\": {\n    \"\": {\n      \"name\": \"calc\",\n      \"version\": \"1.0.0\"\n    }\n  }\n}\n";

fn package_json(test: &str, deps: &str) -> String {
    format!(
        "{{\n  \"name\": \"calc\",\n  \"version\": \"1.0.0\",\n  \"private\": true,\n  \"scripts\": {{\n    \"test\": \"{test}\"\n  }}{deps}\n}}\n"
    )
}

/// The honest, empty and wrong agents on `project`: passed, failed, failed. The honest
/// story comes back.
fn three_agents(
    project: &Project,
    honest: &str,
    wrong: &str,
    withheld: Option<&std::path::Path>,
    failures: &mut Vec<String>,
) -> Value {
    let story = project.attempt(honest, withheld);
    expect(failures, "honest", &story, "passed", None);
    for (name, agent) in [("empty", EMPTY), ("wrong", wrong)] {
        let other = project.attempt(agent, withheld);
        expect(failures, name, &other, "failed", None);
    }
    story
}

/// The verdict pass's first check of the story's first attempt.
fn first_check(story: &Value) -> &Value {
    &story["attempts"][0]["checks"][0]
}

/// A node project whose `test` script is `runner`, with `npm ci` as its setup and the
/// task's test in the base, failing there.
fn npm_project(runner: &str, test: &str) -> Project {
    Project::new(
        &[
            ("package.json", &package_json(runner, "")),
            ("package-lock.json", LOCK_NO_DEPS),
            (".gitignore", "node_modules/\n"),
            ("calc.js", JS_STUB),
            ("test/add.test.js", test),
        ],
        "setup = [\"npm ci --no-audit --no-fund\"]\n",
    )
}

const JEST_TEST: &str = "const { add } = require('../calc');\n\ntest('adds two', () => {\n  expect(add(2, 3)).toBe(5);\n});\n\ntest('adds negatives', () => {\n  expect(add(-4, 1)).toBe(-3);\n});\n";
const MOCHA_TEST: &str = "const assert = require('node:assert');\nconst { add } = require('../calc');\n\ndescribe('add', () => {\n  it('adds two', () => {\n    assert.strictEqual(add(2, 3), 5);\n  });\n  it('adds negatives', () => {\n    assert.strictEqual(add(-4, 1), -3);\n  });\n});\n";

/// With `[attempt] setup`, setup and every check see their tree at one fixed path: jest's
/// crawler skips every path holding `/.git/`, so that path is outside any git folder,
/// and the checks find the tests.
#[test]
fn jest_and_mocha_with_setup_find_their_tests() {
    require_tools(&["jest", "mocha", "npm"]);
    let mut failures = Vec::new();
    for (runner, test, name) in [("jest", JEST_TEST, "jest"), ("mocha", MOCHA_TEST, "mocha")] {
        let project = npm_project(runner, test);
        let story = three_agents(&project, JS_HONEST, JS_WRONG, None, &mut failures);
        let check = first_check(&story);
        let ran = check["tests"]["counts"]["passed"].as_u64().unwrap_or(0);
        if ran < 2 || check["output_tail"].to_string().contains("No tests found") {
            failures.push(format!("{name}: the check ran no tests: {}", said(&story)));
        }
        // The path every tree is seen at holds no name a runner skips.
        let base = &story["baseline"];
        if base.to_string().contains("/.git/") {
            failures.push(format!("{name}: the baseline saw a git folder: {base}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A new npm `file:` dependency with the lockfile updated: the candidate changes what
/// `npm ci` reads, so the setup runs again for its check tree, which then finds the module.
#[test]
fn a_new_file_dependency_gets_its_setup() {
    require_tools(&["npm"]);
    let project = Project::new(
        &[
            ("package.json", &package_json("node --test", "")),
            ("package-lock.json", LOCK_NO_DEPS),
            (".gitignore", "node_modules/\n"),
            (
                "vendor/calc-core/package.json",
                "{\n  \"name\": \"calc-core\",\n  \"version\": \"1.0.0\",\n  \"main\": \"index.js\"\n}\n",
            ),
            (
                "vendor/calc-core/index.js",
                "exports.sum = (a, b) => a + b;\n",
            ),
            ("calc.js", JS_STUB),
            (
                "test/add.test.js",
                "const test = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('../calc');\n\ntest('adds two', () => {\n  assert.strictEqual(add(2, 3), 5);\n});\n\ntest('adds negatives', () => {\n  assert.strictEqual(add(-4, 1), -3);\n});\n",
            ),
        ],
        "setup = [\"npm ci --no-audit --no-fund\"]\n",
    );
    let deps = ",\n  \"dependencies\": {\n    \"calc-core\": \"file:vendor/calc-core\"\n  }";
    let lock = "{\n  \"name\": \"calc\",\n  \"version\": \"1.0.0\",\n  \"lockfileVersion\": 3,\n  \"requires\": true,\n  \"packages\": {\n    \"\": {\n      \"name\": \"calc\",\n      \"version\": \"1.0.0\",\n      \"dependencies\": {\n        \"calc-core\": \"file:vendor/calc-core\"\n      }\n    },\n    \"node_modules/calc-core\": {\n      \"resolved\": \"vendor/calc-core\",\n      \"link\": true\n    },\n    \"vendor/calc-core\": {\n      \"version\": \"1.0.0\"\n    }\n  }\n}\n";
    let uses = |body: &str| {
        format!(
            "cat > package.json <<'EOF'\n{}EOF\ncat > package-lock.json <<'EOF'\n{lock}EOF\nprintf \"const {{ sum }} = require('calc-core');\\nexports.add = (a, b) => {body};\\n\" > calc.js\n",
            package_json("node --test", deps)
        )
    };
    let mut failures = Vec::new();
    let story = three_agents(
        &project,
        &uses("sum(a, b)"),
        &uses("sum(a, -b)"),
        None,
        &mut failures,
    );
    if first_check(&story)["tests"]["counts"]["passed"].as_u64() != Some(2) {
        failures.push(format!("the honest check: {}", said(&story)));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

const CSV_STUB: &str = "/// Clears the reader's state.\npub fn reset(state: &mut Vec<u8>) {\n    let _ = state;\n    unimplemented!(\"T1 adds this\")\n}\n";
const CSV_ACCEPTANCE: &str = "#[test]\nfn reset_clears_the_state() {\n    let mut state = vec![1, 2, 3];\n    csv_core::reset(&mut state);\n    assert!(state.is_empty());\n}\n";

/// A cargo workspace whose root is a package too: `cargo test` there tests the root
/// package alone (so speccoder's `test` is `cargo test --workspace`), and a check of the
/// root package (`csv/test`) leaves the member's own tests to `csv-core/test`.
fn cargo_workspace(checks: &str) -> Project {
    Project::new(
        &[
            (
                "Cargo.toml",
                "[package]\nname = \"csv\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\ncsv-core = { path = \"csv-core\" }\n\n[workspace]\nmembers = [\"csv-core\"]\n",
            ),
            ("src/lib.rs", "pub use csv_core::reset;\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn links() {\n        let _ = super::reset;\n    }\n}\n"),
            (
                "csv-core/Cargo.toml",
                "[package]\nname = \"csv-core\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
            ),
            ("csv-core/src/lib.rs", CSV_STUB),
            (".gitignore", "target/\n"),
        ],
        checks,
    )
    .with_acceptance(&[("csv-core/tests/reset.rs", CSV_ACCEPTANCE)])
}

const CSV_HONEST: &str = "printf 'pub fn reset(state: &mut Vec<u8>) {\\n    state.clear();\\n}\\n' > csv-core/src/lib.rs\n";
const CSV_WRONG: &str = "printf 'pub fn reset(state: &mut Vec<u8>) {\\n    state.pop();\\n}\\n' > csv-core/src/lib.rs\n";

/// An acceptance test that no configured check runs fails the attempt, naming the file and
/// the task that would run it; with that task among the checks, the three agents are
/// judged by it.
#[test]
fn an_acceptance_test_no_check_runs_fails_and_names_its_task() {
    let mut failures = Vec::new();
    let project = cargo_workspace("checks = [\"csv/test\"]\n");
    for (name, agent) in [("empty", EMPTY), ("honest", CSV_HONEST)] {
        let story = project.attempt(agent, None);
        expect(&mut failures, name, &story, "failed", None);
        let reason = story["attempts"][0]["reason"].as_str().unwrap_or("");
        if !reason.contains("`csv-core/tests/reset.rs`: no check ran its tests")
            || !reason.contains("`csv-core/test` would run it")
        {
            failures.push(format!("{name}: the reason: {}", said(&story)));
        }
    }
    let project = cargo_workspace("checks = [\"test\", \"csv-core/test\"]\n");
    three_agents(&project, CSV_HONEST, CSV_WRONG, None, &mut failures);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

const GO_STUB: &str = "package calc\n\n// Add adds two numbers.\nfunc Add(a, b int) int {\n\tpanic(\"not implemented\")\n}\n";
const GO_VISIBLE: &str = "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 3); got != 5 {\n\t\tt.Fatalf(\"Add(2, 3) = %d\", got)\n\t}\n}\n";
const GO_WITHHELD: &str = "package calc\n\nimport \"testing\"\n\nfunc TestAddMixed(t *testing.T) {\n\tif got := Add(10, -20); got != -10 {\n\t\tt.Fatalf(\"Add(10, -20) = %d\", got)\n\t}\n}\n\nfunc TestAddZero(t *testing.T) {\n\tif got := Add(0, 7); got != 7 {\n\t\tt.Fatalf(\"Add(0, 7) = %d\", got)\n\t}\n}\n";

/// Go's stub panics, which ends the test binary before the withheld tests start, at the
/// base and after an empty change: the withheld file's functions are required all the
/// same, and `known_failures` over the whole module excuses none of them.
#[test]
fn go_withheld_tests_behind_a_panicking_stub_are_required() {
    require_tools(&["go"]);
    let project = Project::new(
        &[
            ("go.mod", "module example.com/calc\n\ngo 1.21\n"),
            ("calc.go", GO_STUB),
            ("calc_test.go", GO_VISIBLE),
        ],
        "known_failures = [\"example.com/calc/*\"]\n",
    )
    .with_go_cache();
    let withheld = project.withheld(&[("hidden_test.go", GO_WITHHELD)]);
    let honest = "sed -i 's/panic(\"not implemented\")/return a + b/' calc.go\n";
    let wrong = "sed -i 's/panic(\"not implemented\")/return a - b/' calc.go\n";
    let mut failures = Vec::new();
    three_agents(&project, honest, wrong, Some(&withheld), &mut failures);
    let story = project.attempt(EMPTY, Some(&withheld));
    let tests = &first_check(&story)["tests"];
    if tests["withheld_tests_not_passed"].is_null()
        && !tests["not_passed"].to_string().contains("(withheld)")
    {
        failures.push(format!("empty: no withheld test named: {}", said(&story)));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A node acceptance test that requires a module the task creates: node names the file as
/// a failed test at the base, and its tests once the module exists.
#[test]
fn a_node_acceptance_test_of_a_new_module_passes_once_the_module_exists() {
    let project = Project::new(
        &[
            ("package.json", &package_json("node --test", "")),
            ("calc.js", "exports.sub = (a, b) => a - b;\n"),
            (
                "test/calc.test.js",
                "const test = require('node:test');\nconst assert = require('node:assert');\nconst { sub } = require('../calc');\n\ntest('subtracts', () => {\n  assert.strictEqual(sub(5, 3), 2);\n});\n",
            ),
        ],
        "",
    )
    .with_acceptance(&[(
        "test/slug.test.js",
        "const test = require('node:test');\nconst assert = require('node:assert');\nconst { slug } = require('../slug');\n\ntest('lowers and joins words', () => {\n  assert.strictEqual(slug('Hello World'), 'hello-world');\n});\n\ntest('keeps digits', () => {\n  assert.strictEqual(slug('Route 66'), 'route-66');\n});\n",
    )]);
    let honest =
        "printf \"exports.slug = (s) => s.toLowerCase().split(' ').join('-');\\n\" > slug.js\n";
    let wrong = "printf \"exports.slug = (s) => s.split(' ').join('-');\\n\" > slug.js\n";
    let mut failures = Vec::new();
    let story = three_agents(&project, honest, wrong, None, &mut failures);
    if first_check(&story)["tests"]["counts"]["passed"].as_u64() != Some(3) {
        failures.push(format!("the honest check: {}", said(&story)));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A `make test` that runs `go vet` first: a change vet rejects stops the check before
/// its tests, and the reason names vet's message, not the tests that did not run. (With
/// the tests' shared Go cache, read-only in the checks, vet cannot run at all on a clean
/// change: the reason then names the read-only file system.)
#[test]
fn a_check_stopped_before_its_tests_names_the_tools_message() {
    require_tools(&["go"]);
    let project = Project::new(
        &[
            ("go.mod", "module example.com/calc\n\ngo 1.21\n"),
            ("calc.go", GO_STUB),
            ("calc_test.go", GO_VISIBLE),
            ("Makefile", "test:\n\tgo vet ./...\n\tgo test ./...\n"),
        ],
        "checks = [\"make:test\"]\n",
    )
    .with_go_cache();
    let vetted = "cat > calc.go <<'EOF'\npackage calc\n\nimport \"fmt\"\n\n// Add adds two numbers.\nfunc Add(a, b int) int {\n\tfmt.Printf(\"%d\\n\", \"sum\")\n\treturn a + b\n}\nEOF\n";
    let mut failures = Vec::new();
    let story = project.attempt(vetted, None);
    expect(&mut failures, "vetted", &story, "failed", None);
    let reason = story["attempts"][0]["reason"].as_str().unwrap_or("");
    if !reason.contains("stopped before its tests: calc.go:7:") || !reason.contains("%d") {
        failures.push(format!("the reason: {}", said(&story)));
    }
    let digest = &story["attempts"][0]["digest"]["failed_checks"][0];
    if !digest["stopped_before_its_tests"]
        .as_str()
        .is_some_and(|c| c.contains("calc.go:7:"))
    {
        failures.push(format!("the digest: {digest}"));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `attempt --baseline` on a check that fails at HEAD without test results (jest's
/// `testMatch` matches no file) says so, with the runner's message and its last lines,
/// and never that no test fails.
#[test]
fn baseline_says_a_check_fails_at_head_without_test_results() {
    require_tools(&["jest"]);
    let project = Project::new(
        &[
            (
                "package.json",
                &package_json(
                    "jest",
                    ",\n  \"jest\": {\n    \"testMatch\": [\"**/spec/**/*.js\"]\n  }",
                ),
            ),
            ("package-lock.json", LOCK_NO_DEPS),
            ("calc.js", "exports.add = (a, b) => a + b;\n"),
            ("test/add.test.js", JEST_TEST),
        ],
        "",
    );
    let out = project.speccoder(&["attempt", "--baseline"], EMPTY);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("it fails at HEAD without test results")
            && text.contains("the runner found no tests")
            && text.contains("known_failures` cannot excuse that")
            && !text.contains("no test fails at HEAD"),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The attempt's reason says the same.
    let story = project.attempt(EMPTY, None);
    let reason = story["attempts"][0]["reason"].as_str().unwrap_or("");
    assert!(
        reason.contains("stopped before its tests: the runner found no tests"),
        "{}",
        said(&story)
    );
}

const PY_STUB: &str = "def add(a, b):\n    raise NotImplementedError\n";
const PY_TEST: &str = "from calc import add\n\n\ndef test_small():\n    assert add(2, 3) == 5\n\n\ndef test_negative():\n    assert add(-4, 1) == -3\n";

/// A Python project whose change puts `add` in a product package of `folder`, and the
/// agents that write it (`op` `+` for honest, `-` for wrong).
fn python_package_agent(package: &str, op: &str) -> String {
    let module = package.replace('/', ".");
    let mut lines = String::new();
    let mut path = String::new();
    for part in package.split('/') {
        path = if path.is_empty() {
            part.to_owned()
        } else {
            format!("{path}/{part}")
        };
        lines.push_str(&format!("mkdir -p {path} && touch {path}/__init__.py\n"));
    }
    format!(
        "{lines}printf 'def plus(a, b):\\n    return a {op} b\\n' > {package}/rules.py\nprintf 'from {module}.rules import plus\\n\\n\\ndef add(a, b):\\n    return plus(a, b)\\n' > calc.py\n"
    )
}

/// `spec/` and `testing/` product packages, in Python and Go: test files are known by
/// what ran and by each runner's naming, not by a folder's name alone, and importing such
/// a package is not reaching into the tests.
#[test]
fn spec_and_testing_product_packages_pass() {
    require_tools(&["pytest", "go"]);
    let mut failures = Vec::new();
    for package in ["spec", "calc_tools/testing"] {
        let project = Project::new(
            &[
                ("Makefile", "test:\n\tpytest -q -p no:cacheprovider\n"),
                ("pytest.ini", "[pytest]\npythonpath = .\n"),
                ("calc.py", PY_STUB),
                ("tests/test_add.py", PY_TEST),
            ],
            "",
        );
        eprintln!("python {package}");
        three_agents(
            &project,
            &python_package_agent(package, "+"),
            &python_package_agent(package, "-"),
            None,
            &mut failures,
        );
    }
    let project = Project::new(
        &[
            ("go.mod", "module example.com/calc\n\ngo 1.21\n"),
            ("calc.go", GO_STUB),
            ("calc_test.go", GO_VISIBLE),
        ],
        "",
    )
    .with_go_cache();
    let go_agent = |op: &str| {
        format!(
            "mkdir -p spec && printf 'package spec\\n\\n// Plus adds.\\nfunc Plus(a, b int) int {{\\n\\treturn a {op} b\\n}}\\n' > spec/spec.go\nprintf 'package calc\\n\\nimport \"example.com/calc/spec\"\\n\\n// Add adds two numbers.\\nfunc Add(a, b int) int {{\\n\\treturn spec.Plus(a, b)\\n}}\\n' > calc.go\n"
        )
    };
    eprintln!("go spec");
    three_agents(
        &project,
        &go_agent("+"),
        &go_agent("-"),
        None,
        &mut failures,
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A table test whose subtest names come from the product's own table, which the fix
/// edits (as spf13/cast names its time-format subtests from its formats): the fixed
/// entry's subtest gets a new name. Its parent passes and every subtest ran and passed, so
/// the change passes, and the story names the renamed subtest.
#[test]
fn subtests_named_from_the_data_the_fix_edits_pass() {
    require_tools(&["go"]);
    let formats = |layout: &str| {
        format!(
            "package when\n\n// Format is a layout the parser tries, and its kind.\ntype Format struct {{\n\tLayout string\n\tKind   int\n}}\n\n// Formats are the layouts, in order.\nvar Formats = []Format{{\n\t{{\"2006-01-02\", 1}},\n\t{{\"{layout}\", 2}},\n\t{{\"15:04\", 3}},\n}}\n"
        )
    };
    let project = Project::new(
        &[
            ("go.mod", "module example.com/when\n\ngo 1.21\n"),
            ("formats.go", &formats("2006-01-02T15:04:05Z07")),
            (
                "formats_test.go",
                "package when\n\nimport (\n\t\"fmt\"\n\t\"testing\"\n\t\"time\"\n)\n\nvar samples = map[int]string{1: \"2024-03-01\", 2: \"2024-03-01T10:20:30+02:00\", 3: \"10:20\"}\n\nfunc TestFormats(t *testing.T) {\n\tfor i, f := range Formats {\n\t\tt.Run(fmt.Sprintf(\"%d;kind=%d;%s\", i, f.Kind, f.Layout), func(t *testing.T) {\n\t\t\tif _, err := time.Parse(f.Layout, samples[f.Kind]); err != nil {\n\t\t\t\tt.Fatal(err)\n\t\t\t}\n\t\t})\n\t}\n}\n",
            ),
        ],
        "",
    )
    .with_go_cache();
    let agent = |layout: &str| format!("cat > formats.go <<'EOF'\n{}EOF\n", formats(layout));
    let mut failures = Vec::new();
    let story = three_agents(
        &project,
        &agent("2006-01-02T15:04:05Z07:00"),
        &agent("2006-01-02 15:04:05"),
        None,
        &mut failures,
    );
    let renamed = first_check(&story)["tests"]["renamed_subtests"].to_string();
    if !renamed.contains("TestFormats/1;kind=2;2006-01-02T15:04:05Z07") {
        failures.push(format!("the renamed subtest: {}", said(&story)));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Unnamed subtests are numbered (`#02`): the withheld copy of a test file inserts two
/// cases, so its `#02` and `#03` are new cases while the visible `#02` and `#03` are other,
/// passing ones (as BurntSushi/toml's `TestDecodeErrors`). The empty change fails, and its
/// digest never tells the next agent that tests it can see, which pass, fail.
#[test]
fn index_named_subtests_of_a_withheld_copy_are_not_named_to_the_agent() {
    require_tools(&["go"]);
    let cases = |extra: &str| {
        format!(
            "package kv\n\nimport \"testing\"\n\nfunc TestDecodeErrors(t *testing.T) {{\n\tfor _, in := range []string{{\n\t\t\"=\",\n\t\t\"a\",\n{extra}\t\t\"=b\",\n\t\t\"a=b=c\",\n\t}} {{\n\t\tt.Run(\"\", func(t *testing.T) {{\n\t\t\tif err := Decode(in); err == nil {{\n\t\t\t\tt.Fatalf(\"Decode(%q) took it\", in)\n\t\t\t}}\n\t\t}})\n\t}}\n}}\n"
        )
    };
    let decode = |checks: &str| {
        format!(
            "package kv\n\nimport (\n\t\"errors\"\n\t\"strings\"\n)\n\n// Decode reads one `key=value` line.\nfunc Decode(line string) error {{\n\tkey, value, ok := strings.Cut(line, \"=\")\n\tif !ok || key == \"\" || strings.Contains(value, \"=\"){checks} {{\n\t\treturn errors.New(\"not a key=value line\")\n\t}}\n\treturn nil\n}}\n"
        )
    };
    let project = Project::new(
        &[
            ("go.mod", "module example.com/kv\n\ngo 1.21\n"),
            ("decode.go", &decode("")),
            ("decode_test.go", &cases("")),
        ],
        "",
    )
    .with_go_cache();
    let withheld = project.withheld(&[("decode_test.go", &cases("\t\t\"a=\",\n\t\t\" =b\",\n"))]);
    let agent = |checks: &str| format!("cat > decode.go <<'EOF'\n{}EOF\n", decode(checks));
    let mut failures = Vec::new();
    three_agents(
        &project,
        &agent(" || value == \"\" || strings.TrimSpace(key) == \"\""),
        &agent(" || value == \"\""),
        Some(&withheld),
        &mut failures,
    );
    let story = project.attempt(EMPTY, Some(&withheld));
    let digest = story["attempts"][0]["digest"].to_string();
    if digest.contains("TestDecodeErrors") || !digest.contains("\"withheld_tests_not_passed\":") {
        failures.push(format!("the digest names a visible test: {digest}"));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// An acceptance test of a Go package the task creates: at the base the package does not
/// build, so no test of it ran. A package whose load ends the test binary with status 0
/// makes its tests vanish, and the file is then run by no check: not a pass.
#[test]
fn a_go_package_whose_tests_vanish_is_not_a_pass() {
    require_tools(&["go"]);
    let project = Project::new(
        &[
            ("go.mod", "module example.com/calc\n\ngo 1.21\n"),
            ("calc.go", "package calc\n\n// Sub subtracts.\nfunc Sub(a, b int) int {\n\treturn a - b\n}\n"),
            (
                "calc_test.go",
                "package calc\n\nimport \"testing\"\n\nfunc TestSub(t *testing.T) {\n\tif Sub(5, 3) != 2 {\n\t\tt.Fatal(\"Sub\")\n\t}\n}\n",
            ),
        ],
        "",
    )
    .with_go_cache()
    .with_acceptance(&[(
        "mathx/mathx_test.go",
        "package mathx\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal(\"Add(2, 3)\")\n\t}\n}\n\nfunc TestAddNegative(t *testing.T) {\n\tif Add(-4, 1) != -3 {\n\t\tt.Fatal(\"Add(-4, 1)\")\n\t}\n}\n",
    )]);
    let package = |body: &str, extra: &str| {
        format!(
            "mkdir -p mathx && cat > mathx/mathx.go <<'EOF'\npackage mathx\n{extra}\n// Add adds.\nfunc Add(a, b int) int {{\n\treturn {body}\n}}\nEOF\n"
        )
    };
    let mut failures = Vec::new();
    three_agents(
        &project,
        &package("a + b", ""),
        &package("a - b", ""),
        None,
        &mut failures,
    );
    // The load ends the binary with status 0 before any test: `ok` and no test.
    let vanish = package(
        "0",
        "\nimport \"syscall\"\n\nfunc init() {\n\tsyscall.RawSyscall(syscall.SYS_EXIT_GROUP, 0, 0, 0)\n}\n",
    );
    let story = project.attempt(&vanish, None);
    if story["verdict"] == "passed" {
        failures.push(format!("vanish passed: {}", said(&story)));
    }
    if story["verdict"] == "failed"
        && !story["attempts"][0]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("`mathx/mathx_test.go`: no check ran its tests"))
    {
        failures.push(format!("vanish: the reason: {}", said(&story)));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A slug module the task creates, and the agents' versions of it. The vanishing agent
/// writes the right module and, as the test file loads it, drops every test the file
/// declares through a `.each` table, a template or a loop, keeping the one with a literal
/// title (the names built so the text scan does not read them).
const SLUG_HONEST: &str =
    "printf \"exports.slug = (s) => s.toLowerCase().split(' ').join('-');\\n\" > slug.js\n";
const SLUG_WRONG: &str = "printf \"exports.slug = (s) => s.split(' ').join('-');\\n\" > slug.js\n";

fn slug_vanishing(global: &str) -> String {
    format!(
        "cat > slug.js <<'JS'\nexports.slug = (s) => s.toLowerCase().split(' ').join('-');\nconst g = globalThis, k = {global}, real = g[k];\nconst kept = (name, fn) => (name === 'lowers and joins words' ? real(name, fn) : undefined);\nkept.each = () => () => undefined;\ng[k] = Object.assign(kept, {{ skip: real.skip, only: real.only }});\nJS\n"
    )
}

/// The acceptance file of a jest or vitest project: a literal title, a `.each` table with
/// printf placeholders, and titles from a template in a loop.
const SLUG_EACH_TEST: &str = "const { slug } = require('../slug');\n\ntest('lowers and joins words', () => {\n  expect(slug('Hello World')).toBe('hello-world');\n});\n\ntest.each([\n  ['Route 66', 'route-66'],\n  ['A B C', 'a-b-c'],\n])('slug(%s) is %s', (input, want) => {\n  expect(slug(input)).toBe(want);\n});\n\nfor (const word of ['One', 'Two']) {\n  test(`keeps the single word ${word}`, () => {\n    expect(slug(word)).toBe(word.toLowerCase());\n  });\n}\n";

/// The same for mocha: titles joined with `+` in a `forEach`, and a template in a loop.
const SLUG_MOCHA_TEST: &str = "const assert = require('node:assert');\nconst { slug } = require('../slug');\n\ndescribe('slug', () => {\n  it('lowers and joins words', () => {\n    assert.strictEqual(slug('Hello World'), 'hello-world');\n  });\n  [['Route 66', 'route-66'], ['A B C', 'a-b-c']].forEach(([input, want]) => {\n    it('turns ' + input + ' into ' + want, () => {\n      assert.strictEqual(slug(input), want);\n    });\n  });\n  for (const word of ['One', 'Two']) {\n    it(`keeps the single word ${word}`, () => {\n      assert.strictEqual(slug(word), word.toLowerCase());\n    });\n  }\n});\n";

/// Tests whose titles are built at run time (a `.each` table, a template, a loop's `+`) are
/// required by their file as titles with holes: with real jest, vitest and mocha, the honest
/// change passes, the empty and wrong ones fail, and one that makes those tests vanish (the
/// file's literal test still runs and passes) fails, naming the file. Before titles with
/// holes were read, the vanishing change passed: the file could not load at the base (its
/// module is the task's), so nothing else knew those tests.
#[test]
fn tests_titled_at_run_time_are_required_by_their_file() {
    require_tools(&["jest", "vitest", "mocha"]);
    let mut failures = Vec::new();
    for (runner, script, test, global) in [
        ("jest", "jest", SLUG_EACH_TEST, "\"te\" + \"st\""),
        (
            "vitest",
            "vitest run --globals",
            SLUG_EACH_TEST,
            "\"te\" + \"st\"",
        ),
        ("mocha", "mocha", SLUG_MOCHA_TEST, "\"i\" + \"t\""),
    ] {
        let project = Project::new(
            &[
                ("package.json", &package_json(script, "")),
                ("calc.js", "exports.sub = (a, b) => a - b;\n"),
                (
                    "test/calc.test.js",
                    if runner == "mocha" {
                        "const assert = require('node:assert');\nconst { sub } = require('../calc');\n\nit('subtracts', () => {\n  assert.strictEqual(sub(5, 3), 2);\n});\n"
                    } else {
                        "const { sub } = require('../calc');\n\ntest('subtracts', () => {\n  expect(sub(5, 3)).toBe(2);\n});\n"
                    },
                ),
            ],
            "",
        )
        .with_acceptance(&[("test/slug.test.js", test)]);
        let story = project.attempt(SLUG_HONEST, None);
        expect(
            &mut failures,
            &format!("{runner} honest"),
            &story,
            "passed",
            None,
        );
        for (name, agent) in [
            ("empty", EMPTY.to_owned()),
            ("wrong", SLUG_WRONG.to_owned()),
        ] {
            let other = project.attempt(&agent, None);
            expect(
                &mut failures,
                &format!("{runner} {name}"),
                &other,
                "failed",
                None,
            );
        }
        let vanished = project.attempt(&slug_vanishing(global), None);
        expect(
            &mut failures,
            &format!("{runner} vanishing"),
            &vanished,
            "failed",
            None,
        );
        let reason = said(&vanished);
        if !reason.contains("test/slug.test.js") {
            failures.push(format!(
                "{runner} vanishing: the file is not named: {reason}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// jest behind `make test` over several files names no passing test, but names each file it
/// ran (`PASS test/calc.test.js`): an acceptance file outside its `roots` ran in no check,
/// which fails the empty change and the honest one alike, naming the file. Before the
/// files jest names were read, every file of a counts-only report counted as run, and the
/// empty change passed.
#[test]
fn a_file_jest_never_ran_fails_though_jest_names_no_passing_test() {
    require_tools(&["jest", "make"]);
    let visible = "const { sub } = require('../calc');\n\ntest('subtracts', () => {\n  expect(sub(5, 3)).toBe(2);\n});\n";
    let project = Project::new(
        &[
            (
                "package.json",
                "{\n  \"name\": \"calc\",\n  \"version\": \"1.0.0\",\n  \"private\": true,\n  \"jest\": {\n    \"roots\": [\"<rootDir>/test\"]\n  }\n}\n",
            ),
            ("Makefile", ".PHONY: test\ntest:\n\tjest\n"),
            ("calc.js", "exports.sub = (a, b) => a - b;\n"),
            ("test/calc.test.js", visible),
            ("test/more.test.js", visible),
        ],
        "",
    )
    .with_acceptance(&[(
        "lib/slug.test.js",
        "const { slug } = require('../slug');\n\ntest('lowers and joins words', () => {\n  expect(slug('Hello World')).toBe('hello-world');\n});\n",
    )]);
    let mut failures = Vec::new();
    for (name, agent) in [("empty", EMPTY), ("honest", SLUG_HONEST)] {
        let story = project.attempt(agent, None);
        expect(&mut failures, name, &story, "failed", None);
        let reason = said(&story);
        if !reason.contains("`lib/slug.test.js`: no check ran its tests") {
            failures.push(format!("{name}: the file is not named: {reason}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A calculator in Python for unittest, the agents' versions of it, and a test that fails
/// whatever the change (a known failure), in a module discovery runs before the withheld one.
const PY_HONEST: &str = "printf 'def add(a, b):\\n    return a + b\\n' > calc.py\n";
const PY_WRONG: &str = "printf 'def add(a, b):\\n    return a - b\\n' > calc.py\n";
const UNITTEST_VISIBLE: &str = "import unittest\n\nfrom calc import add\n\n\nclass TestAdd(unittest.TestCase):\n    def test_small(self):\n        self.assertEqual(add(2, 3), 5)\n";
const UNITTEST_KNOWN: &str = "import unittest\n\n\nclass TestEnv(unittest.TestCase):\n    def test_locale(self):\n        self.assertEqual('C', 'en_US')\n";
const UNITTEST_HIDDEN: &str = "import unittest\n\nfrom calc import add\n\n\nclass TestHidden(unittest.TestCase):\n    def test_negative(self):\n        self.assertEqual(add(-4, 1), -3)\n";

/// unittest's `-f` has no flag that undoes it: a check that runs `python -m unittest -f`
/// itself runs without it (and with `-v`), so the known failure in `tests/test_env.py`
/// does not hide the withheld `tests/test_hidden.py` after it. Before the flag was
/// dropped, the honest change failed with the withheld test not run.
#[test]
fn unittest_failfast_in_the_checks_command_is_dropped() {
    require_tools(&["python3"]);
    let project = Project::new(
        &[
            (
                "pyproject.toml",
                "[project]\nname = \"calc\"\nversion = \"0.1.0\"\n",
            ),
            ("calc.py", PY_STUB),
            ("tests/__init__.py", ""),
            ("tests/test_add.py", UNITTEST_VISIBLE),
            ("tests/test_env.py", UNITTEST_KNOWN),
        ],
        "checks = [\"python:test -f\"]\nknown_failures = [\"glob:*test_env*\"]\n",
    );
    let withheld = project.withheld(&[("tests/test_hidden.py", UNITTEST_HIDDEN)]);
    let mut failures = Vec::new();
    let story = three_agents(
        &project,
        PY_HONEST,
        PY_WRONG,
        Some(&withheld),
        &mut failures,
    );
    let command = first_check(&story)["command"].to_string();
    if command.contains(" -f") || !command.contains("-v") {
        failures.push(format!("the check ran `{command}`"));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// vitest's `bail` set in `vitest.config.mjs` stops the run after the known failure of
/// `test/env.test.js`, which runs first; the check, an npm script that is one vitest
/// command, gets `--bail=0` (which overrides the config's) and `--reporter=verbose` through
/// npm, so the withheld test runs and is named: the honest change passes, the empty and
/// wrong ones fail.
#[test]
fn vitest_bail_of_its_config_is_undone_through_the_npm_script() {
    require_tools(&["vitest", "npm"]);
    let project = Project::new(
        &[
            ("package.json", &package_json("vitest run --globals", "")),
            (
                "vitest.config.mjs",
                "export default { test: { bail: 1, fileParallelism: false } };\n",
            ),
            ("calc.js", JS_STUB),
            (
                "test/env.test.js",
                &format!(
                    "// vitest runs the larger files first when it knows no durations yet: this one,\n// with its known failure, runs before the withheld file.\n{}test('reads the locale', () => {{\n  expect('C').toBe('en_US');\n}});\n",
                    "// padding\n".repeat(40)
                ),
            ),
            (
                "test/sub.test.js",
                "test('subtracts nothing', () => {\n  expect(1 - 0).toBe(1);\n});\n",
            ),
        ],
        "known_failures = [\"glob:test/env.test.js*\"]\n",
    );
    let withheld = project.withheld(&[("test/hidden.test.js", JEST_TEST)]);
    let mut failures = Vec::new();
    let story = three_agents(
        &project,
        JS_HONEST,
        JS_WRONG,
        Some(&withheld),
        &mut failures,
    );
    let command = first_check(&story)["command"].to_string();
    if !command.contains("-- --bail=0 --reporter=verbose") {
        failures.push(format!("the check ran `{command}`"));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The vitest acceptance file of a slug module, with two literal titles.
const SLUG_TWO_TITLES: &str = "const { slug } = require('../slug');\n\ntest('lowers', () => {\n  expect(slug('Hello')).toBe('hello');\n});\n\ntest('joins words', () => {\n  expect(slug('A B')).toBe('a-b');\n});\n";

/// A change that, as the test file loads its module, swaps one of the file's tests for
/// another that passes (the names built so the text scan does not read them): the file
/// still runs two tests.
const SLUG_SWAPPED: &str = "cat > slug.js <<'JS'\nexports.slug = (s) => s.toLowerCase();\nconst g = globalThis, k = 'te' + 'st', real = g[k];\nconst swap = (name, fn) => (name === 'joins words' ? real('joins ' + 'nothing', () => {}) : real(name, fn));\ng[k] = Object.assign(swap, { skip: real.skip, only: real.only, each: real.each });\nJS\n";

/// vitest over several files printed each passing file with its count alone, so a test
/// swapped for another in the same file went unseen (the swapping change passed); the
/// check now runs vitest's verbose reporter, which names every test, and the swapped
/// title did not run.
#[test]
fn a_vitest_test_swapped_for_another_in_its_file_is_seen() {
    require_tools(&["vitest"]);
    let project = Project::new(
        &[
            ("package.json", &package_json("vitest run --globals", "")),
            ("calc.js", "exports.sub = (a, b) => a - b;\n"),
            (
                "test/calc.test.js",
                "const { sub } = require('../calc');\n\ntest('subtracts', () => {\n  expect(sub(5, 3)).toBe(2);\n});\n",
            ),
        ],
        "",
    )
    .with_acceptance(&[("test/slug.test.js", SLUG_TWO_TITLES)]);
    let mut failures = Vec::new();
    let honest =
        "printf \"exports.slug = (s) => s.toLowerCase().split(' ').join('-');\\n\" > slug.js\n";
    let wrong = "printf \"exports.slug = (s) => s.toLowerCase();\\n\" > slug.js\n";
    three_agents(&project, honest, wrong, None, &mut failures);
    let swapped = project.attempt(SLUG_SWAPPED, None);
    expect(&mut failures, "swapped", &swapped, "failed", None);
    let reason = said(&swapped);
    if !reason.contains("joins words") {
        failures.push(format!("swapped: the title is not named: {reason}"));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A literal title under a condition the verdict cannot evaluate (a platform test) need
/// not run, but is judged where it runs; the file's other titles are still required. Before
/// conditions were read, the honest change failed: "`on windows` … 0 test ran, 1 required".
#[test]
fn a_literal_title_under_a_platform_condition_is_not_required() {
    require_tools(&["jest", "vitest"]);
    let test = "const { slug } = require('../slug');\n\ntest('lowers', () => {\n  expect(slug('Hello')).toBe('hello');\n});\n\nif (process.platform === 'win32') {\n  test('keeps drive letters', () => {\n    expect(slug('C:')).toBe('c:');\n  });\n}\n\nif (process.platform !== 'win32') {\n  test('joins words', () => {\n    expect(slug('A B')).toBe('a-b');\n  });\n}\n";
    let mut failures = Vec::new();
    for script in ["jest", "vitest run --globals"] {
        let project = Project::new(
            &[
                ("package.json", &package_json(script, "")),
                ("calc.js", "exports.sub = (a, b) => a - b;\n"),
                (
                    "test/calc.test.js",
                    "const { sub } = require('../calc');\n\ntest('subtracts', () => {\n  expect(sub(5, 3)).toBe(2);\n});\n",
                ),
            ],
            "",
        )
        .with_acceptance(&[("test/slug.test.js", test)]);
        let honest =
            "printf \"exports.slug = (s) => s.toLowerCase().split(' ').join('-');\\n\" > slug.js\n";
        // Right on one title, wrong on the one under the condition that holds here.
        let wrong = "printf \"exports.slug = (s) => s.toLowerCase();\\n\" > slug.js\n";
        eprintln!("{script}");
        let story = three_agents(&project, honest, wrong, None, &mut failures);
        if failures.iter().any(|f| f.starts_with("honest")) {
            failures.push(format!("{script}: {}", said(&story)));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// pytest's `-x` behind `make` is out of the check's reach: the known failure stops the
/// run before the withheld file, whose test then did not run, and the honest change fails
/// with the reason naming pytest's own word for the stop (before, only "did not run").
#[test]
fn a_stop_behind_make_is_named_in_the_reason() {
    require_tools(&["pytest", "make"]);
    let project = Project::new(
        &[
            ("Makefile", "test:\n\tpytest -x -q -p no:cacheprovider\n"),
            ("pytest.ini", "[pytest]\npythonpath = .\n"),
            ("calc.py", PY_STUB),
            ("tests/test_add.py", PY_TEST),
            (
                "tests/test_env.py",
                "def test_locale():\n    assert 'C' == 'en_US'\n",
            ),
        ],
        "known_failures = [\"tests/test_env.py::test_locale\"]\n",
    );
    let withheld = project.withheld(&[(
        "tests/test_hidden.py",
        "from calc import add\n\n\ndef test_large():\n    assert add(40, 2) == 42\n",
    )]);
    let mut failures = Vec::new();
    let story = project.attempt(PY_HONEST, Some(&withheld));
    expect(&mut failures, "honest", &story, "failed", None);
    let reason = said(&story);
    if !reason.contains("test_hidden.py") || !reason.contains("stopping after 1 failures") {
        failures.push(format!("the stop is not named: {reason}"));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
