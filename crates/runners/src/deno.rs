//! deno: the `tasks` of `deno.json` or `deno.jsonc` (JSON with comments and trailing
//! commas, read with dprint's jsonc-parser, the reader deno itself uses), and those of its
//! workspace members, read as data.
//!
//! Measured with deno 2.9.6: `deno.json` is read when both files exist; a task is a command
//! string or `{"command", "description", "dependencies"}` (a task of dependencies only has
//! no command, and runs them); `deno task t a "b c" -x --help -- z` hands every word after
//! the task's name to its command as written (`--` and `--help` included); `workspace` is
//! a list of member folders (globs such as `./packages/*` too) or `{"members": [...]}`, and
//! a member's tasks run from its folder with `deno task NAME` (from the root,
//! `deno task` lists only the root's).

use std::path::Path;

use serde_json::Value;

use crate::detection::{Absence, Arguments, Cache, CacheDefault, Context, RunnerDef};
use crate::files::{self, MAX_MANIFEST, Root};
use crate::quote::quote;
use crate::runner::{Runner, Task};

pub(crate) const RUNNER: RunnerDef = RunnerDef {
    id: "deno",
    label: "Deno",
    executes: "nothing: deno.json or deno.jsonc of the root and of each workspace member (4 MiB each, at most 1,000 members) are read as text; running a task runs its command with deno's shell, which may download the modules it imports",
    manifests: CONFIGS,
    detect,
    // deno hands every word after the task's name to its command unread.
    arguments: |_, _| Arguments::WithArguments,
    caches: &[Cache {
        variables: &[("DENO_DIR", "")],
        default: CacheDefault::UserCache("deno"),
    }],
    ..RunnerDef::BASE
};

/// deno's config files, the first found read.
const CONFIGS: &[&str] = &["deno.json", "deno.jsonc"];

/// The most workspace members read.
const MAX_MEMBERS: usize = 1000;

/// The most tasks listed, members' included.
const MAX_TASKS: usize = 50_000;

/// The deepest nesting of arrays and objects read: jsonc-parser recurses without a bound,
/// so a file of a million `[` would overflow the stack.
const MAX_DEPTH: usize = 128;

fn detect(ctx: &Context<'_>) -> Result<Runner, Absence> {
    for config in CONFIGS {
        ctx.depends_on_file(config);
    }
    let config = CONFIGS
        .iter()
        .find(|name| files::exists(&ctx.root.join(name)))
        .ok_or_else(|| Absence::Absent("no deno.json or deno.jsonc in the root".into()))?;
    ctx.needs_binary("deno")?;
    let inside = Root::new(ctx.root);
    let root = read_config(&inside, &ctx.root.join(config), config).map_err(Absence::Failed)?;
    let mut runner = Runner::new("deno", "Deno", "deno task");
    for (name, doc) in tasks(&root, config, &mut runner.notes) {
        runner.push_task(Task {
            command: format!("deno task {}", quote(&name)),
            name,
            doc,
            params: Vec::new(),
            cwd: None,
        });
    }
    for dir in members(ctx, &root, &mut runner.notes) {
        if runner.tasks.len() >= MAX_TASKS {
            runner.notes.push(format!(
                "more than {MAX_TASKS} tasks; the members from {dir} on are left out"
            ));
            break;
        }
        let Some(file) = CONFIGS
            .iter()
            .map(|name| format!("{dir}/{name}"))
            .inspect(|file| ctx.depends_on_file(file))
            .find(|file| files::exists(&ctx.root.join(file)))
        else {
            runner.notes.push(format!(
                "workspace member {dir} has no deno.json or deno.jsonc; left out"
            ));
            continue;
        };
        let member = match read_config(&inside, &ctx.root.join(&file), &file) {
            Ok(member) => member,
            Err(err) => {
                runner.notes.push(format!("{err}; its tasks are left out"));
                continue;
            }
        };
        let label = member
            .get("name")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())
            .unwrap_or(&dir)
            .to_owned();
        for (name, doc) in tasks(&member, &file, &mut runner.notes) {
            runner.push_task(Task {
                command: format!("deno task {}", quote(&name)),
                name: format!("{label}/{name}"),
                // As a package.json member's script: the folder when there is no description.
                doc: Some(doc.unwrap_or_else(|| dir.clone())),
                params: Vec::new(),
                cwd: Some(dir.clone()),
            });
        }
    }
    Ok(runner)
}

/// A deno config inside the root, as a JSON object; errors name the file.
fn read_config(inside: &Root, path: &Path, shown: &str) -> Result<Value, String> {
    let bytes = inside
        .read(path, MAX_MANIFEST)
        .map_err(|err| format!("{shown}: {err}"))?;
    let text = String::from_utf8(bytes).map_err(|_| format!("{shown}: not UTF-8"))?;
    parse_config(&text).map_err(|err| format!("{shown}: {err}"))
}

/// deno.json(c) text as a JSON object: comments, trailing commas and the other JSONC
/// forms deno accepts.
pub fn parse_config(text: &str) -> Result<Value, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if nesting(text) > MAX_DEPTH {
        return Err(format!("nested deeper than {MAX_DEPTH} levels; not read"));
    }
    let value: Value =
        jsonc_parser::parse_to_serde_value(text, &jsonc_parser::ParseOptions::default())
            .map_err(|err| err.to_string().lines().next().unwrap_or("").to_owned())?;
    match value {
        Value::Object(_) => Ok(value),
        _ => Err("not a JSON object".into()),
    }
}

/// The deepest nesting of `[` and `{` in `text`, counting those inside strings and
/// comments too (so it is never less than the real nesting).
fn nesting(text: &str) -> usize {
    let mut depth = 0usize;
    let mut deepest = 0;
    for byte in text.bytes() {
        match byte {
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// The tasks of a config with their descriptions, leaving out (with a note) names deno
/// would read as an option and values that are no task.
fn tasks(config: &Value, shown: &str, notes: &mut Vec<String>) -> Vec<(String, Option<String>)> {
    let Some(tasks) = config.get("tasks") else {
        return Vec::new();
    };
    let Some(tasks) = tasks.as_object() else {
        notes.push(format!("{shown}: `tasks` is not an object; left out"));
        return Vec::new();
    };
    let mut out = Vec::with_capacity(tasks.len());
    for (name, value) in tasks {
        if name.starts_with('-') {
            notes.push(format!(
                "{shown}: task `{name}` is left out: `deno task` would read its name as an option"
            ));
            continue;
        }
        let doc = match value {
            Value::String(_) => None,
            Value::Object(task) => task
                .get("description")
                .and_then(Value::as_str)
                .and_then(|d| d.lines().map(str::trim).find(|l| !l.is_empty()))
                .map(str::to_owned),
            _ => {
                notes.push(format!(
                    "{shown}: task `{name}` is neither a command nor an object; left out"
                ));
                continue;
            }
        };
        out.push((name.clone(), doc));
    }
    out
}

/// The member folders `workspace` names (a list, or `{"members": [...]}`), relative and
/// `/`-separated, in order: a folder, or a folder's subfolders for `dir/*`. Paths out of
/// the root, symlinked folders and other globs are left out with a note.
fn members(ctx: &Context<'_>, config: &Value, notes: &mut Vec<String>) -> Vec<String> {
    let list = match config.get("workspace") {
        Some(Value::Array(list)) => list,
        Some(Value::Object(obj)) => match obj.get("members") {
            Some(Value::Array(list)) => list,
            _ => return Vec::new(),
        },
        _ => return Vec::new(),
    };
    let mut out: Vec<String> = Vec::new();
    for pattern in list.iter().filter_map(Value::as_str) {
        let pattern = pattern.trim_start_matches("./").trim_end_matches('/');
        if pattern.is_empty()
            || pattern.starts_with('/')
            || pattern.split('/').any(|part| part == "..")
        {
            notes.push(format!(
                "workspace member `{pattern}` is not a folder inside the project; left out"
            ));
            continue;
        }
        let (parent, all) = match pattern.strip_suffix("/*") {
            Some(parent) => (parent, true),
            None => (pattern, false),
        };
        if parent.contains(['*', '?', '[', '{', '!']) {
            notes.push(format!(
                "workspace member `{pattern}`: only a folder or `folder/*` is read; left out"
            ));
            continue;
        }
        let found = if all {
            ctx.depends_on_file(parent);
            let mut dirs: Vec<String> = std::fs::read_dir(ctx.root.join(parent))
                .into_iter()
                .flatten()
                .flatten()
                .filter(|e| e.file_type().is_ok_and(|k| k.is_dir()))
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|name| !name.starts_with('.'))
                .map(|name| format!("{parent}/{name}"))
                .collect();
            dirs.sort();
            dirs
        } else {
            vec![parent.to_owned()]
        };
        for dir in found {
            let is_link = ctx
                .root
                .join(&dir)
                .symlink_metadata()
                .is_ok_and(|m| m.file_type().is_symlink());
            if is_link {
                notes.push(format!("workspace member {dir} is a symlink; not followed"));
            } else if out.len() == MAX_MEMBERS {
                notes.push(format!(
                    "more than {MAX_MEMBERS} workspace members; the rest are left out"
                ));
                return out;
            } else if !out.contains(&dir) {
                out.push(dir);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jsonc_with_comments_trailing_commas_and_order() {
        let text = "\u{feff}{\n  // a comment\n  \"tasks\": {\n    \"z\": \"echo z\", /* block */\n    \"a\": { \"command\": \"echo a\", \"description\": \"\\n The a.\\nmore\", \"dependencies\": [\"z\"] },\n    \"deps\": { \"dependencies\": [\"a\"] },\n    \"-x\": \"echo\",\n    \"n\": 3,\n  },\n}\n";
        let config = parse_config(text).expect("jsonc");
        let mut notes = Vec::new();
        let got = tasks(&config, "deno.jsonc", &mut notes);
        assert_eq!(
            got,
            [
                ("z".to_owned(), None),
                ("a".to_owned(), Some("The a.".to_owned())),
                ("deps".to_owned(), None)
            ]
        );
        assert_eq!(notes.len(), 2, "{notes:?}");
    }

    #[test]
    fn deep_and_broken_files_are_errors_not_crashes() {
        let deep = "[".repeat(1_000_000);
        assert!(
            parse_config(&deep)
                .expect_err("deep")
                .contains("nested deeper")
        );
        assert!(parse_config("{\"tasks\": ").is_err());
        assert_eq!(parse_config("[1]").expect_err("array"), "not a JSON object");
        assert!(parse_config(&format!("{}{}", "[".repeat(100), "]".repeat(100))).is_err());
    }
}
