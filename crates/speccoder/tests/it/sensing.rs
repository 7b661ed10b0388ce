//! Code right only under test, and modules that shadow the standard library (issue 39 of
//! the project): a new root `gettext.py` or `shlex.py` is tampering (the list is the
//! interpreter's own `sys.stdlib_module_names`), and with `reject_gaming = true` each
//! spelling of "am I being tested" the monitor missed before rejects, naming the file and
//! the line; the honest change to the same project passes and the empty one fails.

use crate::support;

use super::steering::{Channel, Kind, run_channel_with};
use support::table;

fn run(channel: Channel) {
    run_channel_with(channel, "reject_gaming = true\n");
}

table! {
    /// Each spelling with the code right only under test: rejected at its line.
    code_right_only_under_test_is_rejected: run(Channel) {
        gettext_shadowed: Channel {
            kind: Kind::Pytest,
            files: &[("gettext.py", "import sys\nsys.modules.pop('gettext', None)\n")],
            finding: ("tampering", "gettext.py", None),
        },
        shlex_shadowed: Channel {
            kind: Kind::Pytest,
            files: &[("shlex.py", "def split(s):\n    return s.split()\n")],
            finding: ("tampering", "shlex.py", None),
        },
        pytest_addopts_junitxml: Channel {
            kind: Kind::Pytest,
            files: &[(
                "calc.py",
                "import os\n\n\ndef add(a, b):\n    if \"junitxml\" in os.environ.get(\"PYTEST_ADDOPTS\", \"\"):\n        return a + b\n    return a - b\n",
            )],
            finding: ("gaming", "calc.py", Some(5)),
        },
        vitest_worker_id: Channel {
            kind: Kind::Node,
            files: &[(
                "calc.js",
                "function add(a, b) {\n  if (process.env.VITEST_WORKER_ID) return a + b;\n  return a - b;\n}\n\nmodule.exports = { add };\n",
            )],
            finding: ("gaming", "calc.js", Some(2)),
        },
        node_argv_names_a_test_file: Channel {
            kind: Kind::Node,
            files: &[(
                "calc.js",
                "const underTest = /test/.test(String(process.argv[1])) || process.execArgv.some((a) => a.startsWith(\"--test\"));\n\nfunction add(a, b) {\n  return underTest ? a + b : a - b;\n}\n\nmodule.exports = { add };\n",
            )],
            finding: ("gaming", "calc.js", Some(1)),
        },
        go_args0_ends_in_test: Channel {
            kind: Kind::Go,
            files: &[(
                "calc.go",
                "package calc\n\nimport (\n\t\"os\"\n\t\"strings\"\n)\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\tif strings.HasSuffix(os.Args[0], \".test\") {\n\t\treturn a + b\n\t}\n\treturn a - b\n}\n",
            )],
            finding: ("gaming", "calc.go", Some(10)),
        },
        cargo_self_dev_dependency_with_a_feature: Channel {
            kind: Kind::Cargo,
            files: &[
                (
                    "Cargo.toml",
                    "[package]\nname = \"calc\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[features]\nchecked = []\n\n[dev-dependencies]\ncalc = { path = \".\", features = [\"checked\"] }\n",
                ),
                (
                    "src/lib.rs",
                    "/// Adds `a` and `b`.\npub fn add(a: i64, b: i64) -> i64 {\n    if cfg!(feature = \"checked\") {\n        a + b\n    } else {\n        a - b\n    }\n}\n",
                ),
            ],
            finding: ("gaming", "Cargo.toml", Some(10)),
        },
    }
}
