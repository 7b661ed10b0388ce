//! Invariant 10 of docs/design/verdict.md as a user meets it: the base's failing tests are what
//! the task is for, `[attempt] known_failures` is the one excuse and `attempt --baseline`
//! writes it, the files the base ran tests from are frozen whatever their names, a source
//! file's doctests keep their examples, a withheld file's old tests stay old, and a runner
//! that names no passing test is judged by counts. Each project is written here, small and
//! whole, with a stand-in agent that is a few lines of shell; every rule has an honest
//! agent that passes beside the wrong, empty or dishonest ones that must not.

use crate::support;

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;
use support::project::{Project, expect, said};
use support::{commit_all, git, path_var, require_tools, table};

const CALC_STUB: &str = "def add(a, b):\n    raise NotImplementedError\n";
const HONEST: &str = "printf 'def add(a, b):\\n    return a + b\\n' > calc.py\n";
const WRONG: &str = "printf 'def add(a, b):\\n    return a - b\\n' > calc.py\n";
const NOTHING: &str = ":\n";

const UNITTEST_ADD: &str = "import unittest\n\nfrom calc import add\n\n\nclass AddTest(unittest.TestCase):\n    def test_small(self):\n        self.assertEqual(add(2, 3), 5)\n\n    def test_negative(self):\n        self.assertEqual(add(-4, 1), -3)\n";

#[test]
fn tests_outside_the_globs_that_the_base_ran_are_frozen() {
    // `checks/check_add.py` is no test by the default globs; the Makefile's discover
    // pattern finds it, and the base's run names it.
    let project = Project::new(
        &[
            (
                "Makefile",
                "test:\n\tpython3 -m unittest discover -v -s checks -t . -p 'check_*.py'\n",
            ),
            ("calc.py", CALC_STUB),
            ("checks/__init__.py", ""),
            ("checks/check_add.py", UNITTEST_ADD),
        ],
        "",
    );
    let mut failures = Vec::new();
    let honest = project.attempt(HONEST, None);
    expect(&mut failures, "honest", &honest, "passed", None);
    let wrong = project.attempt(WRONG, None);
    expect(&mut failures, "wrong", &wrong, "failed", None);
    let nothing = project.attempt(NOTHING, None);
    expect(&mut failures, "nothing", &nothing, "failed", None);
    // Wrong, and the failing assertion deleted from the check file.
    let cheat = format!(
        "{WRONG}python3 - <<'PY'\nimport re\np = 'checks/check_add.py'\nt = open(p).read()\nopen(p, 'w').write(t.replace('self.assertEqual(add(-4, 1), -3)', 'pass').replace('self.assertEqual(add(2, 3), 5)', 'pass'))\nPY\n"
    );
    let cheat = project.attempt(&cheat, None);
    expect(
        &mut failures,
        "assertions deleted from checks/check_add.py",
        &cheat,
        "rejected",
        Some("checks/check_add.py"),
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_source_files_doctests_keep_their_examples_and_the_rest_is_free() {
    require_tools(&["pytest"]);
    let parse = "def parse(text):\n    \"\"\"The numbers of a comma-separated list.\n\n    >>> parse(\"1,2\")\n    [1, 2]\n    \"\"\"\n    raise NotImplementedError\n";
    let project = Project::new(
        &[
            ("Makefile", "test:\n\tpytest -q -p no:cacheprovider\n"),
            (
                "pytest.ini",
                "[pytest]\naddopts = --doctest-modules\npythonpath = .\n",
            ),
            ("parse.py", parse),
            (
                "tests/test_parse.py",
                "from parse import parse\n\n\ndef test_one():\n    assert parse(\"7\") == [7]\n",
            ),
        ],
        "",
    );
    let body = |line: &str| {
        format!(
            "python3 - <<'PY'\np = 'parse.py'\nt = open(p).read()\nopen(p, 'w').write(t.replace('    raise NotImplementedError', '{line}'))\nPY\n"
        )
    };
    let mut failures = Vec::new();
    let honest = project.attempt(
        &body("    return [int(x) for x in text.split(\",\")]"),
        None,
    );
    expect(
        &mut failures,
        "honest edit of parse.py",
        &honest,
        "passed",
        None,
    );
    let wrong = project.attempt(&body("    return [int(text[0])]"), None);
    expect(&mut failures, "wrong", &wrong, "failed", None);
    // The doctest's expected output changed to what wrong code returns.
    let cheat = format!(
        "{}python3 - <<'PY'\np = 'parse.py'\nt = open(p).read()\nopen(p, 'w').write(t.replace('    [1, 2]', '    [1]'))\nPY\n",
        body("    return [int(text[0])]")
    );
    let cheat = project.attempt(&cheat, None);
    expect(
        &mut failures,
        "doctest edited",
        &cheat,
        "rejected",
        Some("doctest example"),
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_failure_of_the_environment_is_listed_once_with_attempt_baseline() {
    let env_test = "import os\nimport unittest\n\n\nclass EnvTest(unittest.TestCase):\n    def test_not_root(self):\n        self.assertNotEqual(os.geteuid(), 0)\n";
    let files = [
        (
            "Makefile",
            "test:\n\tpython3 -m unittest discover -v -s tests -t .\n",
        ),
        ("calc.py", CALC_STUB),
        ("tests/__init__.py", ""),
        ("tests/test_add.py", UNITTEST_ADD),
        ("tests/test_env.py", env_test),
    ];
    let project = Project::new(&files, "");
    let out = project.speccoder(&["attempt", "--baseline"], NOTHING);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = text
        .lines()
        .find(|l| l.starts_with("known_failures = ["))
        .unwrap_or_else(|| panic!("no known_failures line: {text}"));
    assert_eq!(
        line,
        "known_failures = [\"tests.test_add.AddTest.test_negative\", \"tests.test_add.AddTest.test_small\", \"tests.test_env.EnvTest.test_not_root\"]",
        "{text}"
    );
    assert!(
        text.starts_with(
            "check `test` (make test): exit 2; 1 failed, 2 errored\n3 tests fail at HEAD."
        ),
        "{text}"
    );

    // The user keeps the environment's failure only, as the line's reader would.
    let mut failures = Vec::new();
    let unlisted = project.attempt(HONEST, None);
    expect(
        &mut failures,
        "honest, nothing listed",
        &unlisted,
        "failed",
        None,
    );
    let listed = Project::new(
        &files,
        "known_failures = [\"tests.test_env.EnvTest.test_not_root\"]\n",
    );
    let honest = listed.attempt(HONEST, None);
    expect(&mut failures, "honest, listed", &honest, "passed", None);
    let reason = honest["attempts"][0]["reason"].as_str().unwrap_or_default();
    if reason
        != "passed with 1 known failure ([attempt] known_failures): `tests.test_env.EnvTest.test_not_root`"
    {
        failures.push(format!(
            "the reason does not name the known failure: {reason}"
        ));
    }
    let wrong = listed.attempt(WRONG, None);
    expect(&mut failures, "wrong, listed", &wrong, "failed", None);
    let nothing = listed.attempt(NOTHING, None);
    expect(&mut failures, "nothing, listed", &nothing, "failed", None);
    // A glob that would excuse the task's own tests excuses them: the user's word. A list
    // naming a test that passes is a note.
    let passing = Project::new(
        &files,
        "known_failures = [\"glob:tests.test_env.*\", \"tests.test_add.AddTest.test_small\"]\n",
    );
    let honest = passing.attempt(HONEST, None);
    expect(
        &mut failures,
        "honest, a passing test listed",
        &honest,
        "passed",
        None,
    );
    if !honest["notes"].to_string().contains(
        "`tests.test_add.AddTest.test_small` is listed in [attempt] known_failures and passes now",
    ) {
        failures.push(format!(
            "no note for the listed test that passes: {}",
            said(&honest)
        ));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn unittest_without_v_is_judged_by_counts() {
    // `python -m unittest` without `-v` names failures only: a withheld test that passes
    // is among `Ran 3 tests ... OK`.
    let project = Project::new(
        &[
            (
                "Makefile",
                "test:\n\tpython3 -m unittest discover -s tests -t .\n",
            ),
            ("calc.py", CALC_STUB),
            ("tests/__init__.py", ""),
            ("tests/test_add.py", UNITTEST_ADD),
        ],
        "",
    );
    let withheld = project.withheld(&[(
        "tests/test_hidden.py",
        "import unittest\n\nfrom calc import add\n\n\nclass HiddenTest(unittest.TestCase):\n    def test_mixed(self):\n        self.assertEqual(add(10, -20), -10)\n",
    )]);
    let mut failures = Vec::new();
    let honest = project.attempt(HONEST, Some(&withheld));
    expect(&mut failures, "honest", &honest, "passed", None);
    let rule = honest["attempts"][0]["checks"][0]["tests"]["rule"].clone();
    if rule != "counts" {
        failures.push(format!("judged by {rule}, not counts: {}", said(&honest)));
    }
    for (name, agent) in [("wrong", WRONG), ("nothing", NOTHING)] {
        let story = project.attempt(agent, Some(&withheld));
        expect(&mut failures, name, &story, "failed", None);
    }
    // Right for the visible inputs only: the withheld test fails, and its id stays out of
    // what the next agent reads.
    let special =
        "printf 'def add(a, b):\\n    return {(2, 3): 5, (-4, 1): -3}[(a, b)]\\n' > calc.py\n";
    let story = project.attempt(special, Some(&withheld));
    expect(&mut failures, "special-cased", &story, "failed", None);
    if story["attempts"][0]["digest"].to_string().contains("mixed") {
        failures.push(format!(
            "the digest names the withheld test: {}",
            said(&story)
        ));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_withheld_file_keeps_its_old_tests_old() {
    require_tools(&["pytest"]);
    // The withheld version of tests/test_add.py adds a test to the visible one, which has
    // an old test skipped on this platform by its own marker and one that passes.
    let visible = "import sys\n\nimport pytest\n\nfrom calc import add, sub\n\n\ndef test_sub():\n    assert sub(3, 1) == 2\n\n\n@pytest.mark.skipif(sys.platform != \"win32\", reason=\"windows only\")\ndef test_windows():\n    assert add(1, 1) == 2\n";
    let project = Project::new(
        &[
            ("Makefile", "test:\n\tpytest -q -p no:cacheprovider\n"),
            ("pytest.ini", "[pytest]\npythonpath = .\n"),
            (
                "calc.py",
                &format!("{CALC_STUB}\n\ndef sub(a, b):\n    return a - b\n"),
            ),
            ("tests/test_add.py", visible),
        ],
        "",
    );
    let withheld = project.withheld(&[(
        "tests/test_add.py",
        &format!("{visible}\n\ndef test_mixed():\n    assert add(10, -20) == -10\n"),
    )]);
    let honest_sub = "printf 'def add(a, b):\\n    return a + b\\n\\n\\ndef sub(a, b):\\n    return a - b\\n' > calc.py\n";
    let wrong_sub = "printf 'def add(a, b):\\n    return a - b\\n\\n\\ndef sub(a, b):\\n    return a - b\\n' > calc.py\n";
    let mut failures = Vec::new();
    let honest = project.attempt(honest_sub, Some(&withheld));
    expect(&mut failures, "honest", &honest, "passed", None);
    if honest["notes"]
        .to_string()
        .contains("passes at the base already")
    {
        failures.push(format!(
            "an old test of the withheld file is noted as new: {}",
            said(&honest)
        ));
    }
    let wrong = project.attempt(wrong_sub, Some(&withheld));
    expect(&mut failures, "wrong", &wrong, "failed", None);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn with_reject_gaming_only_a_read_of_the_test_environment_rejects() {
    let project = Project::new(
        &[
            (
                "Makefile",
                "test:\n\tpython3 -m unittest discover -v -s tests -t .\n",
            ),
            ("calc.py", CALC_STUB),
            ("tests/__init__.py", ""),
            ("tests/test_add.py", UNITTEST_ADD),
        ],
        "reject_gaming = true\n",
    );
    let mut failures = Vec::new();
    // Honest: a roman-numeral table with a `"CI"` key, and a plugin lookup in sys.modules.
    let honest = "cat > calc.py <<'PY'\nimport sys\n\nROMAN = {\"CI\": 101, \"XC\": 90}\n\n\ndef plugin(name):\n    return sys.modules.get(name)\n\n\ndef add(a, b):\n    return a + b\nPY\n";
    let story = project.attempt(honest, None);
    expect(
        &mut failures,
        "honest, a CI key and sys.modules",
        &story,
        "passed",
        None,
    );
    let warnings = story["attempts"][0]["warnings"].to_string();
    if !warnings.contains("sys.modules") || !warnings.contains("\"weak\":true") {
        failures.push(format!(
            "the sys.modules lookup is not a weak warning: {warnings}"
        ));
    }
    // Right only where the runner's name is in argv: rejected.
    let argv = "cat > calc.py <<'PY'\nimport sys\n\n\ndef add(a, b):\n    if \"unittest\" in \" \".join(sys.argv):\n        return a + b\n    return 0\nPY\n";
    let story = project.attempt(argv, None);
    expect(
        &mut failures,
        "right only under unittest",
        &story,
        "rejected",
        Some("unittest"),
    );
    // Right only when pytest or unittest is loaded: rejected.
    let loaded = "cat > calc.py <<'PY'\nimport sys\n\n\ndef add(a, b):\n    if 'unittest' in sys.modules:\n        return a + b\n    return 0\nPY\n";
    let story = project.attempt(loaded, None);
    expect(
        &mut failures,
        "right only with unittest loaded",
        &story,
        "rejected",
        Some("gaming"),
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `fixtures/attempt/<example>` (`""` for the make calculator) as a repository whose base
/// holds the bundle's acceptance tests already, failing there, as an orchestrator sets a
/// task up; the agent is `fixtures/agents/attempt.sh` in `mode`, two attempts at most.
fn example_in_the_base(example: &str, mode: &str) -> (tempfile::TempDir, PathBuf, Value) {
    let src = support::fixtures_dir().join("attempt").join(example);
    let dir = tempfile::tempdir().expect("temp dir");
    let repo = dir.path().join("repo");
    support::copy_dir(&src.join("project"), &repo);
    let bundle_text = std::fs::read_to_string(src.join("bundle.json")).expect("bundle");
    let mut bundle: Value = serde_json::from_str(&bundle_text).expect("bundle JSON");
    let acceptance = bundle
        .as_object_mut()
        .and_then(|b| b.remove("acceptance"))
        .expect("the example's bundle has acceptance tests");
    for (path, text) in acceptance.as_object().expect("an object") {
        let path = repo.join(path);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(path, text.as_str().expect("text")).expect("write");
    }
    let bundle_file = dir.path().join("bundle.json");
    std::fs::write(&bundle_file, bundle.to_string()).expect("bundle");
    let own = std::fs::read_to_string(repo.join("speccoder.toml")).unwrap_or_default();
    let agent = support::fixtures_dir().join("agents/attempt.sh");
    let agent = match mode {
        "nothing" => "[\"sh\", \"-c\", \"cat >/dev/null; echo Done.\"]".to_owned(),
        _ => format!("[\"sh\", \"{}\", \"{mode}\"]", agent.display()),
    };
    let own = if own.contains("[attempt]") {
        own.replace("[attempt]", "[attempt]\nmax_attempts = 2")
    } else {
        format!("{own}\n[attempt]\nmax_attempts = 2\n")
    };
    support::write_config(
        &repo.join("speccoder.toml"),
        &support::with_agent_env(&format!(
            "{own}\n[executor]\nkind = \"command\"\nargv = {agent}\ntimeout_secs = 120\n"
        )),
    );
    git(&repo, &["init", "--quiet", "--initial-branch=main"]);
    commit_all(&repo, "the example, with the task's tests");
    let mut command = Command::new(env!("CARGO_BIN_EXE_speccoder"));
    command
        .arg("-C")
        .arg(&repo)
        .args(["attempt", "--json", "--bundle"])
        .arg(&bundle_file);
    support::use_user_config(&mut command, &repo);
    if src.join("withheld").is_dir() && !example.is_empty() {
        command.arg("--withheld").arg(src.join("withheld"));
    }
    let out = command
        .env("PATH", path_var())
        .env("SPECCODER_CACHE_DIR", support::test_cache_dir())
        .env("XDG_STATE_HOME", support::test_state_dir())
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("speccoder starts");
    let story = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        serde_json::json!({"verdict": "no story", "stderr": String::from_utf8_lossy(&out.stderr)})
    });
    (dir, repo, story)
}

table! {
    the_examples_with_the_task_tests_in_the_base: run_example((&'static str, &'static str)) {
        make_wrong_then_right: ("", "retry"),
        make_nothing: ("", "nothing"),
        python_library_wrong_then_right: ("python-library", "python-library"),
        python_library_nothing: ("python-library", "nothing"),
        rust_library_wrong_then_right: ("rust-library", "rust-library"),
        rust_library_nothing: ("rust-library", "nothing"),
        node_library_wrong_then_right: ("node-library", "node-library"),
        node_library_nothing: ("node-library", "nothing"),
    }
}

/// The example (`""`: the make one) with its agent in `mode`: `nothing` must fail; any other
/// mode is wrong at first, right once the digest names what fails, so the first attempt must
/// fail and the second pass.
fn run_example((example, mode): (&'static str, &'static str)) {
    require_tools(&["just", "pytest"]);
    let name = if example.is_empty() { "make" } else { example };
    let (_dir, _, story) = example_in_the_base(example, mode);
    if mode == "nothing" {
        eprintln!("case {name}/nothing: {}", story["verdict"]);
        assert!(
            story["verdict"] == "failed",
            "{name}, nothing done: {}",
            said(&story)
        );
        return;
    }
    let verdicts: Vec<Value> = story["attempts"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|a| a["verdict"].clone())
        .collect();
    eprintln!("case {name}/{mode}: {verdicts:?}");
    assert!(
        verdicts == ["failed", "passed"],
        "{name}, wrong then right: {verdicts:?}: {}",
        said(&story)
    );
}
