//! The commands a fixture's README, CI workflow and contributing notes name, each resolving
//! to that command: the op a model would write from those docs reaches what the docs run.

use crate::support;

use speccoder_config::RecipeConfig;
use support::{Fixtures, detect, require_tools, table};

/// One documented command: the fixture, the op, the command it resolves to, and where it runs.
type Case = (
    &'static str,
    &'static str,
    &'static str,
    Option<&'static str>,
);

fn resolves_as_documented((fixture, op, command, cwd): Case) {
    require_tools(&["cargo", "tox", "nox", "make", "go", "just", "task"]);
    let fixtures = Fixtures::copy();
    let recipe = detect(&fixtures.path(fixture), &RecipeConfig::default());
    let resolved = recipe
        .resolve(op)
        .unwrap_or_else(|err| panic!("{fixture}: `{op}` does not resolve: {err}"));
    assert_eq!(
        (resolved.command.as_str(), resolved.cwd),
        (command, cwd),
        "{fixture}: `{op}`"
    );
}

table! {
    /// Each fixture's documented commands, as the op a model writes from them.
    documented_commands_resolve: resolves_as_documented(Case) {
        // `cargo xtask tidy` (README, CI): the alias of `.cargo/config.toml`, words handed on.
        cargo_xtask_tidy: ("cargo-xtask", "xtask tidy", "cargo xtask tidy", None),
        cargo_lint: ("cargo-xtask", "lint", "cargo lint", None),
        // `default-members` narrows plain `cargo test`; the docs say `--workspace`.
        cargo_test_workspace: ("cargo-xtask", "test", "cargo test --workspace", None),
        // `cd crates/term && cargo integration-test`: the member's own alias, in its folder.
        cargo_member_alias: (
            "cargo-xtask",
            "term/integration-test",
            "cargo integration-test",
            Some("crates/term")
        ),
        // `cargo test` beside npm init's placeholder `test`, which only fails.
        placeholder_yields: ("pkg-placeholder", "test", "cargo test", None),
        // No lockfile: the manager its own scripts call (npm), whatever is on PATH (bun).
        scripts_choose_npm: ("pkg-placeholder", "build:wasm", "npm run 'build:wasm'", None),
        // pytest only in a group `uv run` does not install: no Python `test` makes it ambiguous.
        uv_group_leaves_test_to_cargo: ("cargo-maturin-uv", "test", "cargo test", None),
        // CI's `make unit`, `make static-analysis`: a `%:` rule forwards every goal to Go.
        make_forwarded_unit: ("make-forward", "unit", "make unit", None),
        make_forwarded_analysis: ("make-forward", "static-analysis", "make static-analysis", None),
        // `tox -e py`, `tox -e py312` beside an `env_list` of others: tox makes them on demand.
        tox_on_demand_py: ("tox-project", "py", "tox -e py", None),
        tox_on_demand_py312: ("tox-project", "py312", "tox -e py312", None),
        // `cd py-frame && make test`: a subproject's own Makefile, run in its folder.
        subproject_test: ("cargo-py-subproject", "py-frame/test", "make test", Some("py-frame")),
        subproject_build: ("cargo-py-subproject", "py-frame/build", "make build", Some("py-frame")),
        // `cd py-frame && tox -e lint`: the subproject's own tox.ini.
        subproject_tox_lint: ("cargo-py-subproject", "py-frame/lint", "tox -e lint", Some("py-frame")),
        // `cd python` then `poe test`, `poe lint`: a folder with only a pyproject.toml.
        bindings_poe_test: ("rust-py-bindings", "python/test", "poe test", Some("python")),
        bindings_poe_lint: ("rust-py-bindings", "python/lint", "poe lint", Some("python")),
        // `cd bench && tox -e bench`: its pyproject.toml's `[tool.tox]`.
        bindings_tox_bench: ("rust-py-bindings", "bench/bench", "tox -e bench", Some("bench")),
        // A Go service's subprojects, as its README and CI name them: `cd web && npm test`,
        // `just -f web/justfile e2e` (and CI's `just web/e2e`), `task -d tools lint`, and
        // `cd docs` then `yarn build` (docs/ has its own yarn.lock).
        web_npm_test: ("go-web-subprojects", "web/test", "npm run 'test'", Some("web")),
        web_just_e2e: ("go-web-subprojects", "web/e2e", "just e2e", Some("web")),
        tools_task_lint: ("go-web-subprojects", "tools/lint", "task lint", Some("tools")),
        docs_yarn_build: ("go-web-subprojects", "docs/build", "yarn run 'build'", Some("docs")),
        // docs/ holds npm init's placeholder: `test` stays go's.
        go_test_over_placeholder: ("go-web-subprojects", "test", "go test ./...", None),
        // CI's `nox -s tests-3.12`, where the noxfile computes the Pythons from pyproject.
        nox_computed_312: ("nox-computed", "tests-3.12", "nox -s tests-3.12", None),
        nox_computed_free_threaded: ("nox-computed", "tests-3.13t", "nox -s tests-3.13t", None),
    }
}

/// Property: every session the real `nox -l --json` lists for a noxfile whose Pythons are
/// computed (`nox.project.python_versions`) resolves to `nox -s` of that session, though
/// detection, which never runs the noxfile, lists only the session's name.
#[test]
fn every_session_nox_lists_resolves_where_pythons_are_computed() {
    require_tools(&["nox"]);
    let fixtures = Fixtures::copy();
    let root = fixtures.path("nox-computed");
    let out = support::sh("nox -l --json", &root, std::time::Duration::from_secs(60));
    assert!(out.success(), "{}", out.stdout.text());
    let listed: serde_json::Value = serde_json::from_str(&out.stdout.text()).expect("json");
    let sessions: Vec<&str> = listed
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|s| s["session"].as_str())
        .collect();
    assert!(
        sessions.contains(&"tests-3.10") && sessions.len() == 7,
        "{sessions:?}"
    );
    let recipe = detect(&root, &RecipeConfig::default());
    for session in sessions {
        let resolved = recipe
            .resolve(session)
            .unwrap_or_else(|err| panic!("`{session}` does not resolve: {err}"));
        assert_eq!(resolved.command, format!("nox -s {session}"));
    }
}

/// Property: where package.json and the Makefile both have `test`, `build` and `lint`, and
/// AGENTS.md and CI say `make test`, the prompt's examples are the Makefile's documented
/// targets (they were `dev` and `run`), those targets come first in their runner, marked,
/// and the ambiguity error's example is `make:test` with what the project runs.
#[test]
fn the_prompt_and_errors_lead_with_what_ci_and_the_docs_run() {
    require_tools(&["make"]);
    let fixtures = Fixtures::copy();
    let recipe = detect(
        &fixtures.path("pkg-make-documented"),
        &RecipeConfig::default(),
    );
    let prompt = recipe.prompt().expect("runners");
    assert!(
        prompt.contains("Examples: `make:test`, `make:lint`."),
        "{prompt}"
    );
    assert!(prompt.contains("as in `make:test`."), "{prompt}");
    let make = prompt.split("<runner id=\"make\"").nth(1).expect("make");
    let bullets: Vec<&str> = make.lines().filter(|l| l.starts_with("- ")).collect();
    assert_eq!(
        bullets,
        [
            "- `test` — Run every test suite, with the fixtures (`make test`) [CI, docs]",
            "- `lint` — Lint the sources and the styles (`make lint`) [docs]",
            "- `build` — Build the app with its assets (`make build`)",
        ]
    );
    let err = recipe.resolve("test").expect_err("ambiguous").to_string();
    assert!(
        err.starts_with(
            "task `test` exists in multiple runners (make, pkg): use `<runner-id>:<task>`, for \
             example `make:test` (the project's CI and docs run `make test`)."
        ),
        "{err}"
    );
    // Not named by them: detection order, nothing said.
    let err = recipe.resolve("build").expect_err("ambiguous").to_string();
    assert!(
        err.starts_with(
            "task `build` exists in multiple runners (pkg, make): use `<runner-id>:<task>`, for \
             example `pkg:build`. Available"
        ),
        "{err}"
    );
}

/// Property: CI files and docs are read only inside the root and within bounds: a
/// workflows folder linked out of the root, a README that is a FIFO and a 50 MB
/// CONTRIBUTING.md neither hang nor count; the prompt is made in bounded time.
#[test]
fn ci_files_and_docs_are_read_safely() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("p");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(outside.join("workflows")).expect("outside");
    std::fs::write(
        outside.join("workflows/ci.yml"),
        "jobs:\n  a:\n    steps:\n      - run: make secret\n",
    )
    .expect("write");
    std::fs::create_dir_all(root.join(".github")).expect("mkdir");
    std::fs::write(
        root.join("Makefile"),
        "all:\n\t@true\nsecret:\n\t@true\nlint:\n\t@true\n",
    )
    .expect("write");
    std::os::unix::fs::symlink(outside.join("workflows"), root.join(".github/workflows"))
        .expect("ln");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(root.join("README.md"))
            .status()
            .expect("mkfifo")
            .success()
    );
    let mut big = "```sh\nmake lint\n```\n".to_owned();
    big.push_str(&"x".repeat(50 << 20));
    std::fs::write(root.join("CONTRIBUTING.md"), big).expect("write");
    let started = std::time::Instant::now();
    let recipe = detect(&root, &RecipeConfig::default());
    let prompt = recipe.prompt().expect("make");
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    assert!(!prompt.contains("[CI"), "{prompt}");
    // The first MiB of the large file is read: its block names `make lint`.
    assert!(prompt.contains("(`make lint`) [docs]"), "{prompt}");
}

/// Property: a Python `test` counts pytest only from what the chosen launcher installs by
/// default: with pytest only in an optional poetry group (or an extra pdm leaves out), a
/// maturin crate's `test` is cargo's, the python runner says which install option would
/// bring pytest, and `python:test` does not exist; with pytest in a group they install, the
/// Python `test` is there and `test` is ambiguous.
#[test]
fn a_python_test_counts_only_what_poetry_and_pdm_install() {
    require_tools(&["cargo", "poetry", "pdm"]);
    let cargo =
        "[package]\nname = \"frame\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n";
    let cases = [
        (
            "poetry.lock",
            "[tool.poetry]\nname = \"frame\"\nversion = \"0.1.0\"\npackage-mode = false\n\n\
             [tool.poetry.group.test]\noptional = true\n\n\
             [tool.poetry.group.test.dependencies]\npytest = \"^8\"\n",
            "`poetry install --with test` would",
        ),
        (
            "pdm.lock",
            "[project]\nname = \"frame\"\nversion = \"0.1.0\"\n\n\
             [project.optional-dependencies]\ntest = [\"pytest>=8\"]\n",
            "`pdm install -G test` would",
        ),
    ];
    for (lock, pyproject, hint) in cases {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path();
        std::fs::create_dir_all(root.join("src")).expect("src");
        std::fs::create_dir_all(root.join("tests")).expect("tests");
        std::fs::write(root.join("Cargo.toml"), cargo).expect("write");
        std::fs::write(root.join("src/lib.rs"), "").expect("write");
        std::fs::write(root.join("pyproject.toml"), pyproject).expect("write");
        std::fs::write(root.join(lock), "").expect("write");
        std::fs::write(
            root.join("tests/test_frame.py"),
            "def test_frame():\n    assert True\n",
        )
        .expect("write");
        let recipe = detect(root, &RecipeConfig::default());
        let resolved = recipe.resolve("test").expect("test resolves");
        assert_eq!(resolved.command, "cargo test", "{lock}");
        assert!(recipe.resolve("python:test").is_err(), "{lock}");
        let notes: Vec<&String> = recipe.runners().flat_map(|r| &r.notes).collect();
        let absent = recipe
            .detections()
            .iter()
            .map(|d| format!("{d:?}"))
            .collect::<Vec<_>>()
            .join("\n");
        assert!(
            notes.iter().any(|n| n.contains(hint)) || absent.contains(hint),
            "{lock}: {notes:?}\n{absent}"
        );
        // Installed by default: the Python `test` is there again.
        let installed = pyproject
            .replace("[tool.poetry.group.test]\noptional = true\n\n", "")
            .replace("[project.optional-dependencies]", "[dependency-groups]");
        std::fs::write(root.join("pyproject.toml"), installed).expect("write");
        let recipe = detect(root, &RecipeConfig::default());
        assert!(recipe.resolve("python:test").is_ok(), "{lock}");
    }
}

/// Where a pdm project names pytest (one of pyproject.toml's tables), whether the real
/// `pdm install` puts it in the project's environment.
type PdmCase = (&'static str, bool);

/// Property: the python runner counts pytest for `pdm run` exactly where the real
/// `pdm install` (pdm 2.29.4, a fresh project whose lockfile it writes) installs it: the
/// project's dependencies, every `[dependency-groups]` group and `[tool.pdm.dev-dependencies]`
/// group, a group another includes; never an extra. Where it installs pytest, the Python
/// `test` is listed (`python:test`) and runs; where it does not, it is not. (`pdm run --
/// pytest` still finds a pytest on PATH then, outside the project's environment.)
fn pdm_install_decides((tables, installs): PdmCase) {
    require_tools(&["pdm"]);
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    std::fs::write(
        root.join("pyproject.toml"),
        format!(
            "[project]\nname = \"ledger\"\nversion = \"0.1.0\"\nrequires-python = \">=3.9\"\n\
             {tables}"
        ),
    )
    .expect("write");
    std::fs::create_dir_all(root.join("tests")).expect("tests");
    std::fs::write(
        root.join("tests/test_ledger.py"),
        "def test_ledger():\n    assert True\n",
    )
    .expect("write");
    let install = support::sh(
        "env PDM_CHECK_UPDATE=false pdm install --no-self",
        root,
        std::time::Duration::from_secs(300),
    );
    assert!(install.success(), "pdm install: {}", install.stdout.text());
    assert!(root.join("pdm.lock").is_file());
    assert_eq!(
        root.join(".venv/bin/pytest").is_file(),
        installs,
        "pdm install: {tables}"
    );
    let recipe = detect(root, &RecipeConfig::default());
    let test = recipe.resolve("python:test");
    assert_eq!(test.is_ok(), installs, "{tables}: {test:?}");
    if let Ok(test) = test {
        assert_eq!(test.command, "pdm run -- pytest");
        let ran = support::sh(&test.command, root, std::time::Duration::from_secs(120));
        assert!(ran.success(), "{}", ran.stdout.text());
    }
}

table! {
    /// pdm's install rule, measured case by case.
    pdm_installs_pytest_where_python_test_counts_it: pdm_install_decides(PdmCase) {
        dependencies: ("dependencies = [\"pytest\"]\n", true),
        dependency_group_test: ("[dependency-groups]\ntest = [\"pytest\"]\n", true),
        dependency_group_dev: ("[dependency-groups]\ndev = [\"pytest\"]\n", true),
        pdm_dev_dependencies: ("[tool.pdm.dev-dependencies]\ntest = [\"pytest\"]\n", true),
        included_group: (
            "[dependency-groups]\ndev = [{include-group = \"test\"}]\ntest = [\"pytest\"]\n",
            true
        ),
        extra: ("[project.optional-dependencies]\ntest = [\"pytest\"]\n", false),
    }
}
