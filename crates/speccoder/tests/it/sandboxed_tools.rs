//! The tools a real project's setup and checks run, in the attempt's sandbox, as the project
//! left them: yarn 4 with the `.yarnrc.yml` yarn itself writes (no `enableMirror: false`), a
//! `mise run test` whose task runs `go test` in a module below the root, and `go mod vendor`
//! run by speccoder on the candidate's files, inside the checks' sandbox.

use std::path::Path;

use crate::support;

use super::steering::{Kind, write};
use support::project::{Project, expect, said};

const CALC_STUB: &str =
    "function add(a, b) {\n  throw new Error(\"T1 adds this\");\n}\n\nmodule.exports = { add };\n";
const CALC: &str = "function add(a, b) {\n  return a + b;\n}\n\nmodule.exports = { add };\n";
const DATA_TEST: &str = "const test = require(\"node:test\");\nconst assert = require(\"node:assert\");\nconst { pairs } = require(\"calc-data\");\nconst { add } = require(\"../calc\");\n\ntest(\"pairs\", () => {\n  for (const [a, b, sum] of pairs) assert.strictEqual(add(a, b), sum);\n});\n";
const MORE_TEST: &str = "const test = require(\"node:test\");\nconst assert = require(\"node:assert\");\nconst { more } = require(\"calc-more\");\nconst { add } = require(\"../calc\");\n\ntest(\"more\", () => {\n  for (const [a, b, sum] of more) assert.strictEqual(add(a, b), sum);\n});\n";

/// Property: a yarn 4 project configured as yarn's own `init` leaves it (`yarnPath` and
/// `nodeLinker` only: the global cache and its mirror on) installs in `[attempt] setup` and
/// in the agent's sandbox, and its honest work passes. Before, yarn copied each package into
/// `~/.yarn/berry/cache`, which the sandbox keeps read-only: the setup failed with `EROFS`.
#[test]
fn a_default_yarn_4_project_installs_in_the_setup_and_the_agents_sandbox() {
    support::require_tools(&["node", "yarn", "yarn-berry"]);
    let project = Project::new(
        &[
            (
                "package.json",
                "{\"name\": \"calc\", \"private\": true, \"packageManager\": \"yarn@4.18.1\", \"dependencies\": {\"calc-data\": \"file:./data\"}, \"scripts\": {\"test\": \"node --test\"}}\n",
            ),
            (
                ".yarnrc.yml",
                "nodeLinker: pnp\n\nyarnPath: .yarn/releases/yarn-4.18.1.cjs\n",
            ),
            // yarn's own advice for a project without zero-installs.
            (
                ".gitignore",
                ".yarn/*\n!.yarn/patches\n!.yarn/plugins\n!.yarn/releases\n!.yarn/sdks\n!.yarn/versions\n.pnp.*\n",
            ),
            (
                "data/package.json",
                "{\"name\": \"calc-data\", \"version\": \"1.0.0\", \"main\": \"index.js\"}\n",
            ),
            (
                "data/index.js",
                "module.exports = { pairs: [[1, 2, 3], [-4, 1, -3]] };\n",
            ),
            ("calc.js", CALC_STUB),
            ("test/data.test.js", DATA_TEST),
        ],
        "setup = [\"yarn install\"]\n",
    );
    let root = project.root();
    let releases = root.join(".yarn/releases");
    std::fs::create_dir_all(&releases).expect("mkdir");
    std::fs::copy(
        support::tools_bin()
            .parent()
            .expect("tools dir")
            .join("yarn-berry-4.18.1.cjs"),
        releases.join("yarn-4.18.1.cjs"),
    )
    .expect("copy the yarn 4 release");
    // The lockfile is the project's, written once (CI would make the install immutable).
    let out = support::sh(
        "YARN_ENABLE_IMMUTABLE_INSTALLS=false yarn install",
        &root,
        std::time::Duration::from_secs(120),
    );
    assert!(out.success(), "yarn install: {}", out.stdout.text());
    support::commit_all(&root, "yarn install");
    // The agent adds a dependency and installs it in its own sandbox.
    let agent = format!(
        "{}{}{}{}node -e 'const f=require(\"fs\");const p=JSON.parse(f.readFileSync(\"package.json\"));p.dependencies[\"calc-more\"]=\"file:./more\";f.writeFileSync(\"package.json\",JSON.stringify(p))'\nYARN_ENABLE_IMMUTABLE_INSTALLS=false yarn install\n",
        write("calc.js", CALC),
        write(
            "more/package.json",
            "{\"name\": \"calc-more\", \"version\": \"1.0.0\", \"main\": \"index.js\"}\n"
        ),
        write("more/index.js", "module.exports = { more: [[2, 2, 4]] };\n"),
        write("test/more.test.js", MORE_TEST),
    );
    let story = project.attempt(&agent, None);
    let mut failures = Vec::new();
    expect(&mut failures, "honest", &story, "passed", None);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The agent's new test ran on the package it added, installed by the candidate's setup.
    let checks = story["attempts"][0]["checks"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        checks
            .iter()
            .any(|c| c["pass"] == "agent_tests" && c["tests"]["counts"]["passed"] == 2),
        "the agent's test of calc-more did not run: {}",
        said(&story)
    );
}

/// A folder outside `/tmp` (whose sandbox copy is a private overlay, writable anyway).
fn outside_tmp() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("temp dir")
}

/// Property: a check run through mise whose task runs go in a module below the root (so no
/// go runner is detected) gets go's build cache as a direct go check does: through a
/// private overlay, writable there and never written here. Before, only the detected
/// runners' caches were overlays, and go found an empty `GOCACHE` read-only: `failed to
/// initialize build cache … read-only file system`. (`go build` of a package importing
/// nothing: the cache's first use is what fails, and `go test` on an empty cache would
/// build the standard library's `testing` in every check.)
#[test]
fn a_mise_task_running_go_below_the_root_gets_gos_build_cache() {
    support::require_tools(&["go", "mise"]);
    let cache = outside_tmp();
    let project = Project::new(
        &[
            (
                "mise.toml",
                "[tasks.build]\ndescription = \"Build the service\"\ndir = \"svc\"\nrun = \"go build ./...\"\n",
            ),
            ("svc/go.mod", "module example.com/calc\n\ngo 1.21\n"),
            (
                "svc/calc.go",
                "package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n",
            ),
        ],
        "checks = [\"mise:build\"]\n",
    )
    .with_env("GOCACHE", &cache.path().display().to_string())
    .with_env("GOTOOLCHAIN", "local");
    let out = project.speccoder(&["attempt", "--baseline", "--json"], "");
    let story: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("no story: {}", String::from_utf8_lossy(&out.stderr)));
    let check = &story["checks"][0];
    assert_eq!(
        check["exit_code"], 0,
        "the check failed: {}",
        check["output_tail"]
    );
    let left: Vec<_> = std::fs::read_dir(cache.path())
        .expect("the cache")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(left.is_empty(), "the check wrote your cache: {left:?}");
}

/// Property: `go mod vendor`, which speccoder runs on a candidate's files to compare its
/// `vendor/`, runs inside the checks' sandbox: a `go` on speccoder's PATH that notes every
/// run it can write down outside the sandbox notes none of it. Before, it ran as speccoder,
/// outside any namespace.
#[test]
fn go_mod_vendor_runs_inside_the_checks_sandbox() {
    let project = Kind::GoHelper.project_with("");
    let notes = outside_tmp();
    let marker = notes.path().join("runs");
    let bin = outside_tmp();
    let path = support::path_var();
    let go = speccoder_runners::find_on_path("go", Some(&path)).expect("go");
    let wrapper = bin.path().join("go");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\necho \"$*\" >>'{}' 2>/dev/null\nexec '{}' \"$@\"\n",
            marker.display(),
            go.display()
        ),
    )
    .expect("wrapper");
    std::fs::set_permissions(
        &wrapper,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .expect("chmod");
    let mut dirs = vec![bin.path().to_path_buf()];
    dirs.extend(std::env::split_paths(&path));
    let path = std::env::join_paths(dirs).expect("PATH");
    let project = project.with_env("PATH", path.to_str().expect("PATH is UTF-8"));
    let agent = format!("{}go mod vendor\n", Kind::GoHelper.honest());
    let story = project.attempt(&agent, None);
    let mut failures = Vec::new();
    expect(&mut failures, "honest", &story, "passed", None);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // It did compare: the note says the vendored copy is go's own.
    assert!(
        story.to_string().contains("is what `go mod vendor` makes"),
        "no comparison: {}",
        said(&story)
    );
    let runs = std::fs::read_to_string(&marker).unwrap_or_default();
    assert!(
        !runs.lines().any(|l| l.contains("mod vendor")),
        "go mod vendor ran outside the sandbox: {runs}"
    );
}

/// Writes a Go module proxy (`GOPROXY=file://…`'s layout) into `proxy` serving
/// `example.com/th` v1.0.0, a helper the tests assert with.
fn write_go_proxy(proxy: &Path) {
    let at = proxy.join("example.com/th/@v");
    std::fs::create_dir_all(&at).expect("mkdir");
    let module = "module example.com/th\n\ngo 1.21\n";
    std::fs::write(at.join("list"), "v1.0.0\n").expect("list");
    std::fs::write(
        at.join("v1.0.0.info"),
        "{\"Version\":\"v1.0.0\",\"Time\":\"2026-01-01T00:00:00Z\"}\n",
    )
    .expect("info");
    std::fs::write(at.join("v1.0.0.mod"), module).expect("mod");
    let sources = tempfile::tempdir().expect("temp dir");
    let src = sources.path().join("example.com/th@v1.0.0");
    std::fs::create_dir_all(&src).expect("mkdir");
    std::fs::write(src.join("go.mod"), module).expect("go.mod");
    std::fs::write(
        src.join("th.go"),
        "package th\n\nimport \"testing\"\n\n// Equal fails t when got is not want.\nfunc Equal(t *testing.T, got, want int) {\n\tt.Helper()\n\tif got != want {\n\t\tt.Fatalf(\"got %d, want %d\", got, want)\n\t}\n}\n",
    )
    .expect("th.go");
    let zip = at.join("v1.0.0.zip");
    // Files only: go refuses a folder's own entry in a module's zip.
    let out = support::sh(
        &format!("zip -qrD '{}' example.com", zip.display()),
        sources.path(),
        std::time::Duration::from_secs(30),
    );
    assert!(out.success(), "zip: {}", out.stdout.text());
}

/// `project` run with go's module cache at `modules` (a folder of yours the setup must
/// never write), writable by go's cleanup, and the shared build cache, on the local go.
fn with_go_caches(project: Project, modules: &Path) -> Project {
    project
        .with_env("GOMODCACHE", &modules.display().to_string())
        .with_env("GOFLAGS", "-modcacherw")
        .with_env(
            "GOCACHE",
            &support::attempts::go_cache().display().to_string(),
        )
        .with_env("GOTOOLCHAIN", "local")
}

/// Property: what `[attempt] setup` downloads into a runner's cache (it has the network) is
/// there for the checks (which have none), and your cache is never written: `go mod
/// download` from a module proxy only the setup names, then `go test` of a package that
/// imports the downloaded module. Before, the setup's writes to the module cache were gone
/// with its namespace, and the check failed to fetch the module (measured the same with
/// `cargo fetch`: `Could not resolve host: index.crates.io`).
#[test]
fn what_the_setup_downloads_into_a_cache_is_there_for_the_checks() {
    support::require_tools(&["go"]);
    let cache = outside_tmp();
    let modules = cache.path().join("mod");
    std::fs::create_dir_all(&modules).expect("mkdir");
    let project = Project::new(
        &[
            (
                "go.mod",
                "module example.com/calc\n\ngo 1.21\n\nrequire example.com/th v1.0.0\n",
            ),
            (
                "calc.go",
                "package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\tpanic(\"T1 adds this\")\n}\n",
            ),
            (
                "add_test.go",
                "package calc\n\nimport (\n\t\"testing\"\n\n\t\"example.com/th\"\n)\n\nfunc TestAddSmall(t *testing.T) {\n\tth.Equal(t, Add(2, 3), 5)\n}\n",
            ),
        ],
        "setup = [\"GOPROXY=file://$PWD/proxy GOSUMDB=off go mod download\"]\n",
    );
    let root = project.root();
    write_go_proxy(&root.join("proxy"));
    // go.sum, as the project keeps it: written once from the proxy into a scratch cache.
    let scratch = outside_tmp();
    let out = support::sh(
        &format!(
            "GOFLAGS=-modcacherw GOMODCACHE='{}' GOPROXY=file://$PWD/proxy GOSUMDB=off go mod tidy",
            scratch.path().display()
        ),
        &root,
        std::time::Duration::from_secs(60),
    );
    assert!(out.success(), "go mod tidy: {}", out.stdout.text());
    support::commit_all(&root, "the helper module, served by the project's proxy");
    let project = with_go_caches(project, &modules);
    let story = project.attempt(Kind::Go.honest(), None);
    let mut failures = Vec::new();
    expect(&mut failures, "honest", &story, "passed", None);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let left: Vec<_> = std::fs::read_dir(&modules)
        .expect("the module cache")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(
        left.is_empty(),
        "the setup wrote your module cache: {left:?}"
    );
}

/// Property: a dependency the candidate adds is downloaded by the setup run again for its
/// tree, and that download is what its checks read: the agent requires
/// `example.com/th` (served by the project's own module proxy) and imports it, so the
/// setup, which reads `go.mod`, runs again for the candidate, and the checks (with no
/// network) build against the module it fetched. Before, the checks read the cache layer
/// of the base's setup alone, where the module is not, and an honest change failed.
#[test]
fn a_dependency_the_candidate_adds_is_there_for_its_checks() {
    support::require_tools(&["go", "zip"]);
    let cache = outside_tmp();
    let modules = cache.path().join("mod");
    std::fs::create_dir_all(&modules).expect("mkdir");
    let project = Project::new(
        &[
            ("go.mod", "module example.com/calc\n\ngo 1.21\n"),
            (
                "calc.go",
                "package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\tpanic(\"T1 adds this\")\n}\n",
            ),
            (
                "add_test.go",
                "package calc\n\nimport \"testing\"\n\nfunc TestAddSmall(t *testing.T) {\n\tif got := Add(2, 3); got != 5 {\n\t\tt.Fatalf(\"Add(2, 3) = %d\", got)\n\t}\n}\n",
            ),
        ],
        "setup = [\"GOPROXY=file://$PWD/proxy GOSUMDB=off go mod download\"]\n",
    );
    let root = project.root();
    write_go_proxy(&root.join("proxy"));
    support::commit_all(&root, "the project's module proxy");
    let project = with_go_caches(project, &modules);
    // The right sum, through a module the base did not require.
    let agent = "cat > calc.go <<'GO'\npackage calc\n\nimport \"example.com/th\"\n\n// Equal is the helper this package builds on.\nvar Equal = th.Equal\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a + b\n}\nGO\nprintf 'module example.com/calc\\n\\ngo 1.21\\n\\nrequire example.com/th v1.0.0\\n' > go.mod\nGOPROXY=file://$PWD/proxy GOSUMDB=off go mod tidy\n";
    let story = project.attempt(agent, None);
    let mut failures = Vec::new();
    expect(
        &mut failures,
        "honest, with a new dependency",
        &story,
        "passed",
        None,
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
