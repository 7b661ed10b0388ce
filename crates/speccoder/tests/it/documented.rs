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
    require_tools(&["cargo"]);
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
    }
}
