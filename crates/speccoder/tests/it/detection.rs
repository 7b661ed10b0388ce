//! Detection of every fixture with the real runners, as insta snapshots; broken manifests;
//! and the probes' own behaviour.

use crate::support;

use speccoder_config::RecipeConfig;
use speccoder_recipe::{ProcessProbe, Recipe, list_json};
use speccoder_runners::Detection;
use support::{Fixtures, detect, fixture_names, require_tools, snapshots};

/// Property: every fixture's detection (runners, tasks, commands, cwds, and why the others are
/// absent) is what its snapshot says.
#[test]
fn every_fixture_snapshot() {
    require_tools(&["just", "task", "pnpm", "yarn", "bun"]);
    let fixtures = Fixtures::copy();
    let fixtures_root = fixtures.root().display().to_string();
    for name in fixture_names() {
        let root = fixtures.path(&name);
        let recipe = detect(&root, &RecipeConfig::default());
        let json = serde_json::to_string_pretty(&list_json(&recipe, true)).expect("json");
        let json = json
            .replace(&root.display().to_string(), "[ROOT]")
            .replace(&fixtures_root, "[FIXTURES]");
        snapshots("detection").bind(|| insta::assert_snapshot!(name.clone(), json));
    }
}

/// Property: a broken manifest makes only its own runner absent or failed, with a reason
/// naming the file, and the other runner of the same project is still detected.
#[test]
fn broken_manifests_fail_alone() {
    require_tools(&["just", "task"]);
    #[track_caller]
    fn case(fixture: &str, broken: &str, file: &str, working: &str) {
        let fixtures = Fixtures::copy();
        let recipe = detect(&fixtures.path(fixture), &RecipeConfig::default());
        let detection = recipe
            .detections()
            .iter()
            .find(|d| d.id() == broken)
            .expect("configured");
        let reason = match detection {
            Detection::Absent { reason, .. } | Detection::Failed { reason, .. } => reason,
            Detection::Detected(_) => panic!("{fixture}: `{broken}` should not be detected"),
        };
        assert!(
            reason.contains(file),
            "{fixture}: {reason:?} names no {file}"
        );
        let ids: Vec<&str> = recipe.runners().map(|r| r.id).collect();
        assert_eq!(ids, [working], "{fixture}");
    }
    case("broken-pkg-json", "pkg", "package.json", "make");
    case("broken-cargo-toml", "cargo", "Cargo.toml", "just");
    case("broken-justfile", "just", "justfile", "pkg");
    case("broken-taskfile", "task", "Taskfile.yml", "make");
    case("broken-binary", "pkg", "package.json", "just");
    case("broken-binary", "make", "Makefile", "just");
}

/// Property: a runner whose binary is missing is absent with that reason, and detection
/// of the others goes on.
#[test]
fn missing_binary_is_a_reason() {
    let fixtures = Fixtures::copy();
    let root = fixtures.path("polyglot");
    let probe = ProcessProbe::default();
    let empty = tempfile::tempdir().expect("temp dir");
    let recipe = Recipe::detect_with(
        &root,
        &RecipeConfig::default(),
        &probe,
        Some(empty.path().as_os_str()),
    );
    let reasons: Vec<(&str, String)> = recipe
        .detections()
        .iter()
        .map(|d| match d {
            Detection::Absent { id, reason } | Detection::Failed { id, reason } => {
                (*id, reason.clone())
            }
            Detection::Detected(runner) => (runner.id, "detected".into()),
        })
        .collect();
    assert_eq!(
        reasons,
        [
            ("just", "`just` is not on PATH".to_owned()),
            ("pkg", "detected".into()),
            ("cargo", "no Cargo.toml in the root".into()),
            ("make", "`make` is not on PATH".into()),
            ("task", "no Taskfile in the root".into()),
            (
                "python",
                "no pyproject.toml, setup.py, setup.cfg or pytest.ini in the root".into(),
            ),
            (
                "tox",
                "no tox.ini, setup.cfg, pyproject.toml or tox.toml in the root".into(),
            ),
            ("nox", "no noxfile.py in the root".into()),
            ("go", "no go.mod or go.work in the root".into()),
            (
                "scripts",
                "no script/ or scripts/ folder in the root".into()
            ),
            (
                "mise",
                "no mise config (mise.toml, .mise.toml, …) in the root".into()
            ),
            ("deno", "no deno.json or deno.jsonc in the root".into()),
            ("composer", "no composer.json in the root".into()),
            ("pixi", "no pixi.toml or pyproject.toml in the root".into()),
        ]
    );
}

/// Property: `[recipe] runners` picks and orders the runners probed.
#[test]
fn configured_runners_and_order() {
    require_tools(&["just"]);
    let fixtures = Fixtures::copy();
    let config = RecipeConfig {
        runners: vec!["make".into(), "just".into()],
        ..RecipeConfig::default()
    };
    let recipe = detect(&fixtures.path("polyglot"), &config);
    let ids: Vec<&str> = recipe.runners().map(|r| r.id).collect();
    assert_eq!(ids, ["make", "just"]);
}
