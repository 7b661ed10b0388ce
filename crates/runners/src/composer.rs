//! composer: the `scripts` of `composer.json`, read as data, with their
//! `scripts-descriptions` and `scripts-aliases`.
//!
//! Measured with composer 2.5.5 (Debian's): a script is a command string or a list of
//! them, where `@name` runs another script (and `@php`, `@composer`, `@putenv` are
//! composer's own); `composer run t -- a b` hands `a b` to each command of the script
//! (also through `@name`), while words before a `--` are composer's own options (`-x` is
//! refused, `--help` prints the help); event scripts (`pre-install-cmd`, …) run around
//! composer's commands and are listed by `composer run --list` without a description.
//! Composer's own commands (`install`, `update`, …) are not tasks: none of them runs the
//! project's checks.

use serde_json::Value;

use crate::detection::{Absence, Arguments, Cache, CacheDefault, Context, RunnerDef, Words};
use crate::files::{MAX_PACKAGE_JSON, Root};
use crate::quote::quote;
use crate::runner::{Runner, TailRule, Task, doc_with_aliases};

pub(crate) const RUNNER: RunnerDef = RunnerDef {
    id: "composer",
    label: "Composer",
    executes: "nothing: composer.json of the root is read as text (16 MiB at most); running a script runs its commands, and composer loads the plugins installed in vendor/ when it starts (as composer documents)",
    manifests: &["composer.json"],
    detect,
    is_aside: |_, task| is_event(&task.name),
    arguments: |_, _| Arguments::AfterDashDash,
    words: Words::AfterDashDash {
        test_argument: "--verbose",
    },
    caches: &[Cache {
        variables: &[("COMPOSER_CACHE_DIR", "")],
        default: CacheDefault::UserCache("composer"),
    }],
    ..RunnerDef::BASE
};

/// composer's events: a script of one of these names runs by itself around composer's own
/// commands.
const EVENTS: &[&str] = &[
    "pre-install-cmd",
    "post-install-cmd",
    "pre-update-cmd",
    "post-update-cmd",
    "pre-status-cmd",
    "post-status-cmd",
    "pre-archive-cmd",
    "post-archive-cmd",
    "pre-autoload-dump",
    "post-autoload-dump",
    "post-root-package-install",
    "post-create-project-cmd",
    "pre-operations-exec",
    "pre-package-install",
    "post-package-install",
    "pre-package-update",
    "post-package-update",
    "pre-package-uninstall",
    "post-package-uninstall",
    "init",
    "command",
    "pre-file-download",
    "post-file-download",
    "pre-command-run",
    "pre-pool-create",
];

fn is_event(name: &str) -> bool {
    EVENTS.contains(&name)
}

/// The `@` references composer itself answers.
const OWN_REFERENCES: &[&str] = &["php", "composer", "putenv", "additional_args"];

fn detect(ctx: &Context<'_>) -> Result<Runner, Absence> {
    ctx.depends_on_file("composer.json");
    let path = ctx.root.join("composer.json");
    if !crate::files::exists(&path) {
        return Err(Absence::Absent("no composer.json in the root".into()));
    }
    ctx.needs_binary("composer")?;
    let bytes = Root::new(ctx.root)
        .read(&path, MAX_PACKAGE_JSON)
        .map_err(|err| Absence::Failed(format!("composer.json: {err}")))?;
    parse_manifest(&bytes).map_err(|err| Absence::Failed(format!("composer.json: {err}")))
}

/// The scripts of composer.json's bytes as a runner.
pub fn parse_manifest(bytes: &[u8]) -> Result<Runner, String> {
    let manifest: Value = serde_json::from_slice(bytes).map_err(|err| err.to_string())?;
    let Some(manifest) = manifest.as_object() else {
        return Err("not a JSON object".into());
    };
    let mut runner = Runner::new("composer", "Composer", "composer run");
    runner.tail_rule = TailRule::DashDashFirst;
    let Some(scripts) = manifest.get("scripts") else {
        return Ok(runner);
    };
    let Some(scripts) = scripts.as_object() else {
        runner
            .notes
            .push("`scripts` is not an object; left out".into());
        return Ok(runner);
    };
    let text = |section: &str, name: &str| {
        manifest
            .get(section)
            .and_then(|s| s.get(name))
            .and_then(Value::as_str)
            .and_then(|d| d.lines().map(str::trim).find(|l| !l.is_empty()))
            .map(str::to_owned)
    };
    for (name, value) in scripts {
        let commands: Vec<&str> = match value {
            Value::String(command) => vec![command.as_str()],
            Value::Array(list) if list.iter().all(Value::is_string) => {
                list.iter().filter_map(Value::as_str).collect()
            }
            _ => {
                runner.notes.push(format!(
                    "script `{name}` is neither a command nor a list of commands; left out"
                ));
                continue;
            }
        };
        if name.starts_with('-') {
            runner.notes.push(format!(
                "script `{name}` is left out: `composer run` would read its name as an option"
            ));
            continue;
        }
        for reference in commands.iter().filter_map(|c| c.trim().strip_prefix('@')) {
            let target = reference.split_whitespace().next().unwrap_or("");
            if !OWN_REFERENCES.contains(&target) && !scripts.contains_key(target) {
                runner.notes.push(format!(
                    "script `{name}` runs `@{target}`, which composer.json does not define"
                ));
            }
        }
        let aliases: Vec<String> = manifest
            .get("scripts-aliases")
            .and_then(|a| a.get(name))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .filter(|a| !a.is_empty() && !a.starts_with('-') && !a.contains([',', ')']))
            .map(str::to_owned)
            .collect();
        runner.push_task(Task {
            command: format!("composer run {}", quote(name)),
            name: name.clone(),
            doc: doc_with_aliases(text("scripts-descriptions", name), &aliases),
            params: Vec::new(),
            cwd: None,
        });
    }
    Ok(runner)
}

/// Whether a task is an event script (for the unit tests, which have no registry).
#[cfg(test)]
fn asides(runner: &Runner) -> Vec<&str> {
    let index = crate::runner::TaskIndex::of(runner);
    runner
        .tasks
        .iter()
        .filter(|t| (RUNNER.is_aside)(&index, t))
        .map(|t| t.name.as_str())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_descriptions_aliases_and_events() {
        let json = br#"{
            "name": "acme/app",
            "scripts": {
                "test": "phpunit",
                "check": ["@cs", "@test", "@php -v", "@missing"],
                "cs": "phpcs",
                "post-install-cmd": "echo hook",
                "-x": "echo",
                "bad": 3
            },
            "scripts-descriptions": {"test": "Run the unit tests\nmore"},
            "scripts-aliases": {"test": ["t", "-o"]}
        }"#;
        let runner = parse_manifest(json).expect("valid");
        let names: Vec<&str> = runner.tasks.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["test", "check", "cs", "post-install-cmd"]);
        assert_eq!(
            runner.tasks[0].doc.as_deref(),
            Some("Run the unit tests (aliases: t)")
        );
        assert_eq!(runner.tasks[1].command, "composer run check");
        assert_eq!(runner.find("t").map(|(t, _)| t.name.as_str()), Some("test"));
        assert_eq!(asides(&runner), ["post-install-cmd"]);
        assert_eq!(runner.notes.len(), 3, "{:?}", runner.notes);
        assert!(runner.notes[0].contains("@missing"), "{:?}", runner.notes);
    }

    #[test]
    fn not_an_object() {
        assert!(parse_manifest(b"[]").is_err());
        assert!(parse_manifest(b"{").is_err());
        assert!(parse_manifest(b"{}").expect("no scripts").tasks.is_empty());
    }
}
