//! `cargo`: binaries, examples and integration tests, from `cargo metadata --no-deps`.

use serde_json::Value;

use crate::detection::{Absence, Context, RunnerDef};
use crate::quote::single_quote;
use crate::runner::{Runner, Task};

pub(crate) const RUNNER: RunnerDef = RunnerDef {
    id: "cargo",
    label: "Cargo",
    detect,
};

fn detect(ctx: &Context<'_>) -> Result<Runner, Absence> {
    if !ctx.root.join("Cargo.toml").is_file() {
        return Err(Absence::Absent("no Cargo.toml in the root".into()));
    }
    ctx.needs_binary("cargo")?;
    // Never without --no-deps: that resolves dependencies, writes a lockfile and may go to
    // the network.
    ctx.depends_on_file("Cargo.toml");
    let metadata = ctx.probe(&["cargo", "metadata", "--no-deps", "--format-version=1"])?;
    let runner =
        parse_metadata(&metadata).map_err(|err| Absence::Failed(format!("Cargo.toml: {err}")))?;
    if let Ok(value) = serde_json::from_slice::<Value>(&metadata) {
        for path in metadata_inputs(&value) {
            ctx.depends_on(path);
        }
    }
    Ok(runner)
}

/// What cargo read to list the targets: every manifest and target source, the folders it
/// scans for targets it finds by itself, and the folders workspace members sit in.
fn metadata_inputs(metadata: &Value) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let packages = metadata.get("packages").and_then(Value::as_array);
    for package in packages.into_iter().flatten() {
        let Some(manifest) = package.get("manifest_path").and_then(Value::as_str) else {
            continue;
        };
        let manifest = std::path::Path::new(manifest);
        out.push(manifest.to_path_buf());
        if let Some(dir) = manifest.parent() {
            for sub in ["", "src", "src/bin", "examples", "tests", "benches"] {
                out.push(dir.join(sub));
            }
            if let Some(parent) = dir.parent() {
                out.push(parent.to_path_buf());
            }
        }
        let targets = package.get("targets").and_then(Value::as_array);
        for target in targets.into_iter().flatten() {
            if let Some(src) = target.get("src_path").and_then(Value::as_str) {
                out.push(src.into());
            }
        }
    }
    out
}

/// The kinds of target that become tasks, in the order a target's kinds are tried.
const KINDS: &[&str] = &["bin", "example", "test"];

/// Tasks from the JSON of `cargo metadata --no-deps --format-version=1`.
pub fn parse_metadata(json: &[u8]) -> Result<Runner, String> {
    let metadata: Value = serde_json::from_slice(json)
        .map_err(|err| format!("`cargo metadata` printed invalid JSON: {err}"))?;
    let packages = metadata
        .get("packages")
        .and_then(Value::as_array)
        .ok_or("`cargo metadata` has no `packages` array")?;
    let members: Vec<&str> = metadata
        .get("workspace_members")
        .and_then(Value::as_array)
        .map(|ids| ids.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let packages: Vec<&Value> = packages
        .iter()
        .filter(|p| {
            members.is_empty()
                || p.get("id")
                    .and_then(Value::as_str)
                    .is_some_and(|id| members.contains(&id))
        })
        .collect();
    let several = packages.len() > 1;
    let mut runner = Runner::new("cargo", "Cargo", "cargo");
    for package in packages {
        let Some(pkg) = package.get("name").and_then(Value::as_str) else {
            continue;
        };
        let targets = package.get("targets").and_then(Value::as_array);
        for target in targets.into_iter().flatten() {
            let Some(target_name) = target.get("name").and_then(Value::as_str) else {
                continue;
            };
            let kinds: Vec<&str> = target
                .get("kind")
                .and_then(Value::as_array)
                .map(|k| k.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let Some(kind) = KINDS.iter().find(|k| kinds.contains(k)) else {
                continue;
            };
            let mut command = match *kind {
                "test" => format!(
                    "cargo test --package {} --test {}",
                    single_quote(pkg),
                    single_quote(target_name)
                ),
                _ => format!(
                    "cargo run --package {} --{kind} {}",
                    single_quote(pkg),
                    single_quote(target_name)
                ),
            };
            let features: Vec<&str> = target
                .get("required-features")
                .and_then(Value::as_array)
                .map(|f| f.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if !features.is_empty() {
                command.push_str(&format!(
                    " --features {}",
                    single_quote(&features.join(","))
                ));
            }
            let name = if several {
                format!("{pkg}/{kind}/{target_name}")
            } else {
                format!("{kind}/{target_name}")
            };
            runner.push_task(Task {
                name,
                command,
                doc: Some(format!("{pkg} {kind} target {target_name}")),
                params: Vec::new(),
                cwd: None,
            });
        }
    }
    Ok(runner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_metadata() {
        let json = include_bytes!("../tests/samples/cargo-metadata.json");
        let runner = parse_metadata(json).expect("valid");
        let got: Vec<(&str, &str)> = runner
            .tasks
            .iter()
            .map(|t| (t.name.as_str(), t.command.as_str()))
            .collect();
        crate::snapshot_settings().bind(|| insta::assert_debug_snapshot!(got));
    }

    #[test]
    fn required_features_and_several_packages() {
        let json = br#"{"packages":[
            {"name":"a","id":"a-id","targets":[{"name":"srv","kind":["bin"],"required-features":["x","y"]},
                                               {"name":"a","kind":["lib"]}]},
            {"name":"b","id":"b-id","targets":[{"name":"it","kind":["test"]},{"name":"demo","kind":["example"]}]},
            {"name":"dep","id":"dep-id","targets":[{"name":"dep","kind":["bin"]}]}],
            "workspace_members":["a-id","b-id"]}"#;
        let runner = parse_metadata(json).expect("valid");
        let got: Vec<(&str, &str, Option<&str>)> = runner
            .tasks
            .iter()
            .map(|t| (t.name.as_str(), t.command.as_str(), t.doc.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                (
                    "a/bin/srv",
                    "cargo run --package 'a' --bin 'srv' --features 'x,y'",
                    Some("a bin target srv")
                ),
                (
                    "b/test/it",
                    "cargo test --package 'b' --test 'it'",
                    Some("b test target it")
                ),
                (
                    "b/example/demo",
                    "cargo run --package 'b' --example 'demo'",
                    Some("b example target demo")
                ),
            ]
        );
    }
}
