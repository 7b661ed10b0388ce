//! mise: the tasks of a project's mise config files (`[tasks]`), of the TOML task files
//! they include, and the file tasks of its task folders, read as data.
//!
//! `mise tasks` is never run: it renders the config's templates, and an
//! `{{exec(command="…")}}` in `[env]` or in a task's `description` of a trusted config (a
//! mise user trusts their projects) ran its command while listing (mise 2026.9.15,
//! measured; an untrusted config with a template is refused). Measured with that version:
//!
//! - the config files of a folder, highest precedence first: `mise.local.toml`,
//!   `.mise.toml`, `mise.toml`, `mise/config.toml`, `.mise/config.toml`,
//!   `.config/mise.toml`, `.config/mise/mise.toml`, `.config/mise/config.toml`, then
//!   `.config/mise/conf.d/*.toml`, then file tasks (`.rtx.toml`, `.mise/mise.toml` and
//!   `mise.dev.toml` without `MISE_ENV` are not read);
//! - file tasks: executable files below `mise-tasks/`, `.mise-tasks/`, `.mise/tasks/`,
//!   `.config/mise/tasks/` and `mise/tasks/` (all of them, searched recursively), unless a
//!   config sets `[task_config] includes`, whose files are TOML task files and whose
//!   folders hold file tasks; `a/b.sh` is `a:b` (the last extension dropped), `a/_default`
//!   is `a`; dotfiles and files without an executable bit are skipped; a non-executable
//!   `.toml` file in a task folder is a TOML task file;
//! - a file task's `#MISE description="…"` (also `# [MISE]`, `//MISE`, `::MISE`) headers
//!   anywhere in the file, TOML after the marker;
//! - `hide = true` keeps a task out of `mise tasks`; `mise tasks` sorts by name;
//! - `mise run t -- a b` hands `a b` to the task as written (after the command's text);
//!   without the `--`, mise reads `-h`/`--help`, `:::` (another task) and `--` itself.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::detection::{Absence, Arguments, Cache, CacheDefault, Context, RunnerDef, Words};
use crate::files::{self, MAX_MANIFEST, Root};
use crate::quote::quote;
use crate::runner::{Runner, TailRule, Task, doc_with_aliases};

pub(crate) const RUNNER: RunnerDef = RunnerDef {
    id: "mise",
    label: "mise",
    executes: "nothing: mise's config files in the root (mise.toml, .mise.toml, mise.local.toml, mise/config.toml, .mise/config.toml, .config/mise.toml, .config/mise/{mise,config}.toml, .config/mise/conf.d/*.toml; 4 MiB each), the TOML task files they include and the first 64 KiB of each executable file task in the task folders (at most 2,000 entries, 8 folders deep) are read as text; `mise tasks` is never run, since it runs a trusted config's `{{exec(…)}}` templates while listing; running a task may install the config's [tools]",
    manifests: &[
        "mise.toml",
        ".mise.toml",
        "mise.local.toml",
        ".mise.local.toml",
    ],
    detect,
    included: Some(included),
    arguments: |_, _| Arguments::AfterDashDash,
    words: Words::AfterDashDash {
        test_argument: "--verbose",
    },
    caches: &[
        Cache {
            variables: &[("MISE_DATA_DIR", "")],
            default: CacheDefault::UserData("mise"),
        },
        Cache {
            variables: &[("MISE_CACHE_DIR", "")],
            default: CacheDefault::UserCache("mise"),
        },
        Cache {
            variables: &[("MISE_STATE_DIR", ""), ("XDG_STATE_HOME", "mise")],
            default: CacheDefault::Home(".local/state/mise"),
        },
    ],
    ..RunnerDef::BASE
};

/// The config files of the root, highest precedence first (the first definition of a
/// task wins). With `MISE_ENV=e`, each (but the `.local` ones) has an `e` variant read
/// before it: `mise.e.toml`, `mise/config.e.toml`, `mise.e.local.toml`.
pub const CONFIGS: &[&str] = &[
    "mise.local.toml",
    ".mise.local.toml",
    ".mise.toml",
    "mise.toml",
    "mise/config.local.toml",
    "mise/config.toml",
    ".mise/config.local.toml",
    ".mise/config.toml",
    ".config/mise.local.toml",
    ".config/mise.toml",
    ".config/mise/mise.toml",
    ".config/mise/config.local.toml",
    ".config/mise/config.toml",
];

/// The folder whose `*.toml` files are configs too, after those above.
pub const CONF_D: &str = ".config/mise/conf.d";

/// The task folders read when no config sets `[task_config] includes`, in mise's order.
pub const TASK_DIRS: &[&str] = &[
    "mise-tasks",
    ".mise-tasks",
    ".mise/tasks",
    ".config/mise/tasks",
    "mise/tasks",
];

/// How much of a file task is read for its `#MISE` headers.
const HEAD_BYTES: u64 = 64 << 10;

/// The most entries looked at in all task folders together, and how deep they are read.
const MAX_ENTRIES: usize = 2000;
const MAX_DEPTH: usize = 8;

/// The most `conf.d` files and included task files read.
const MAX_FILES: usize = 100;

/// The most tasks kept: a hundred 4 MiB files of one-line tasks would make millions.
const MAX_TASKS: usize = 20_000;

/// One task as read, before it becomes a [`Task`].
#[derive(Debug, Default)]
struct Entry {
    description: Option<String>,
    aliases: Vec<String>,
    hidden: bool,
}

/// The tasks read so far by name (a `BTreeMap`: mise lists them sorted), the first
/// definition of a name winning, and what was left out.
#[derive(Debug, Default)]
struct Found {
    tasks: BTreeMap<String, Entry>,
    notes: Vec<String>,
    includes: Vec<String>,
    entries: usize,
    full: bool,
}

impl Found {
    fn add(&mut self, name: String, entry: Entry) {
        if self.tasks.len() == MAX_TASKS && !self.tasks.contains_key(&name) {
            if !self.full {
                self.full = true;
                self.notes.push(format!(
                    "more than {MAX_TASKS} tasks; the rest are left out"
                ));
            }
            return;
        }
        self.tasks.entry(name).or_insert(entry);
    }
}

fn detect(ctx: &Context<'_>) -> Result<Runner, Absence> {
    let inside = Root::new(ctx.root);
    let mut found = Found::default();
    let mut any = false;
    let mut configs: Vec<String> = CONFIGS.iter().map(|c| (*c).to_owned()).collect();
    ctx.depends_on_file(CONF_D);
    configs.extend(toml_files_in(&ctx.root.join(CONF_D), CONF_D));
    for config in &configs {
        ctx.depends_on_file(config);
        let path = ctx.root.join(config);
        if !files::exists(&path) {
            continue;
        }
        any = true;
        let table = read_toml(&inside, &path, config).map_err(Absence::Failed)?;
        read_config(&table, config, &mut found);
    }
    if !any {
        return Err(Absence::Absent(
            "no mise config (mise.toml, .mise.toml, …) in the root".into(),
        ));
    }
    ctx.needs_binary("mise")?;
    if found.includes.is_empty() {
        for dir in TASK_DIRS {
            ctx.depends_on_file(dir);
            walk(ctx, &inside, dir, &mut found);
        }
    } else {
        for include in std::mem::take(&mut found.includes)
            .into_iter()
            .take(MAX_FILES)
        {
            ctx.depends_on_file(&include);
            let path = ctx.root.join(&include);
            if path.is_dir() {
                walk(ctx, &inside, &include, &mut found);
            } else if files::exists(&path) {
                match read_toml(&inside, &path, &include) {
                    Ok(table) => read_tasks(&table, &include, &mut found),
                    Err(err) => found.notes.push(format!("{err}; its tasks are left out")),
                }
            }
        }
    }
    Ok(into_runner(found))
}

/// The TOML task files and task folders a config's `[task_config] includes` names (an
/// attempt freezes them with the config).
fn included(text: &str) -> Vec<String> {
    let mut found = Found::default();
    if let Ok(table) = parse_toml(text) {
        read_config(&table, "", &mut found);
    }
    found.includes
}

/// The runner of the tasks found: each runs as `mise run NAME`.
fn into_runner(found: Found) -> Runner {
    let mut runner = Runner::new("mise", "mise", "mise run");
    runner.tail_rule = TailRule::DashDashFirst;
    runner.notes = found.notes;
    for (name, entry) in found.tasks {
        if name.starts_with('-') {
            runner.notes.push(format!(
                "task `{name}` is left out: `mise run` would read its name as an option"
            ));
            continue;
        }
        if entry.hidden {
            runner.notes.push(format!(
                "task `{name}` is left out: it is hidden (`hide = true`), and `mise tasks` does not list it"
            ));
            continue;
        }
        let aliases: Vec<String> = entry
            .aliases
            .into_iter()
            .filter(|a| !a.is_empty() && !a.starts_with('-') && !a.contains([',', ')']))
            .collect();
        runner.push_task(Task {
            command: format!("mise run {}", quote(&name)),
            name,
            doc: doc_with_aliases(entry.description, &aliases),
            params: Vec::new(),
            cwd: None,
        });
    }
    runner
}

/// The `*.toml` files of a `conf.d` folder, sorted, as paths under the root.
fn toml_files_in(dir: &Path, shown: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .take(MAX_FILES)
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.ends_with(".toml") && !n.starts_with('.'))
        .collect();
    names.sort();
    names.into_iter().map(|n| format!("{shown}/{n}")).collect()
}

/// A TOML file inside the root, as a table; errors name the file.
fn read_toml(inside: &Root, path: &Path, shown: &str) -> Result<toml::Table, String> {
    let bytes = inside
        .read(path, MAX_MANIFEST)
        .map_err(|err| format!("{shown}: {err}"))?;
    let text = String::from_utf8(bytes).map_err(|_| format!("{shown}: not UTF-8"))?;
    parse_toml(&text).map_err(|err| format!("{shown}: {err}"))
}

/// TOML text as a table, the parser's message on one line.
fn parse_toml(text: &str) -> Result<toml::Table, String> {
    text.parse::<toml::Table>().map_err(|err| {
        err.to_string()
            .lines()
            .next()
            .unwrap_or("not TOML")
            .trim()
            .to_owned()
    })
}

/// A config's `[tasks]` and its `[task_config] includes`.
fn read_config(table: &toml::Table, shown: &str, found: &mut Found) {
    if let Some(tasks) = table.get("tasks") {
        match tasks.as_table() {
            Some(tasks) => read_tasks(tasks, shown, found),
            None => found
                .notes
                .push(format!("{shown}: `tasks` is not a table; left out")),
        }
    }
    let includes = table
        .get("task_config")
        .and_then(|c| c.get("includes"))
        .and_then(toml::Value::as_array);
    for include in includes
        .into_iter()
        .flatten()
        .filter_map(toml::Value::as_str)
    {
        let include = include.trim_start_matches("./").trim_end_matches('/');
        if include.is_empty() || include.starts_with('/') || include.split('/').any(|p| p == "..") {
            found.notes.push(format!(
                "{shown}: the include `{include}` is not a path inside the project; not read"
            ));
        } else if !found.includes.iter().any(|i| i == include) {
            found.includes.push(include.to_owned());
        }
    }
}

/// The tasks of a table whose keys are task names (a config's `[tasks]`, a TOML task file).
fn read_tasks(tasks: &toml::Table, shown: &str, found: &mut Found) {
    for (name, value) in tasks {
        match task_entry(value) {
            Some(entry) => found.add(name.clone(), entry),
            None => found.notes.push(format!(
                "{shown}: task `{name}` is neither a command, a list of commands nor a table; left out"
            )),
        }
    }
}

/// A task's value: a command, a list of commands, or a table (`run`, `description`,
/// `alias`, `hide`, …).
fn task_entry(value: &toml::Value) -> Option<Entry> {
    match value {
        toml::Value::String(_) | toml::Value::Array(_) => Some(Entry::default()),
        toml::Value::Table(table) => Some(entry_of(table)),
        _ => None,
    }
}

/// The description, aliases and `hide` of a task's table (or a file task's headers).
fn entry_of(table: &toml::Table) -> Entry {
    let description = table
        .get("description")
        .and_then(toml::Value::as_str)
        .and_then(|d| d.lines().map(str::trim).find(|l| !l.is_empty()))
        .map(str::to_owned);
    let aliases = match table.get("alias") {
        Some(toml::Value::String(alias)) => vec![alias.clone()],
        Some(toml::Value::Array(list)) => list
            .iter()
            .filter_map(toml::Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    };
    let hidden = table.get("hide").and_then(toml::Value::as_bool) == Some(true);
    Entry {
        description,
        aliases,
        hidden,
    }
}

/// Reads the task folder `dir` (under the root) recursively: executable files are file
/// tasks, non-executable `.toml` files TOML task files. Symlinked folders are not entered;
/// a symlinked file is read only when it resolves inside the root.
fn walk(ctx: &Context<'_>, inside: &Root, dir: &str, found: &mut Found) {
    let mut stack: Vec<(String, Vec<String>)> = vec![(dir.to_owned(), Vec::new())];
    while let Some((folder, parts)) = stack.pop() {
        let path = ctx.root.join(&folder);
        ctx.depends_on(path.clone());
        let Ok(meta) = path.symlink_metadata() else {
            continue;
        };
        if !meta.is_dir() {
            continue;
        }
        let mut entries: Vec<(String, std::fs::FileType)> = Vec::new();
        let mut full = false;
        for entry in std::fs::read_dir(&path).into_iter().flatten().flatten() {
            if found.entries >= MAX_ENTRIES {
                let note = format!(
                    "the task folders hold more than {MAX_ENTRIES} entries; the rest are not read"
                );
                if !found.notes.contains(&note) {
                    found.notes.push(note);
                }
                full = true;
                break;
            }
            found.entries += 1;
            let (Ok(name), Ok(kind)) = (entry.file_name().into_string(), entry.file_type()) else {
                continue;
            };
            if !name.starts_with('.') {
                entries.push((name, kind));
            }
        }
        entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        for (name, kind) in entries {
            let shown = format!("{folder}/{name}");
            if kind.is_dir() {
                if parts.len() + 1 < MAX_DEPTH {
                    let mut deeper = parts.clone();
                    deeper.push(name);
                    stack.push((shown, deeper));
                }
                continue;
            }
            let file = ctx.root.join(&shown);
            ctx.depends_on(file.clone());
            file_task(inside, &file, &shown, &name, &parts, kind, found);
        }
        if full {
            return;
        }
    }
}

/// One entry of a task folder: a file task, a TOML task file, or nothing.
fn file_task(
    inside: &Root,
    file: &Path,
    shown: &str,
    name: &str,
    parts: &[String],
    kind: std::fs::FileType,
    found: &mut Found,
) {
    let meta = if kind.is_symlink() {
        if let Err(err) = inside.check(file) {
            found.notes.push(format!("{shown} is left out: {err}"));
            return;
        }
        std::fs::metadata(file)
    } else {
        file.symlink_metadata()
    };
    let Ok(meta) = meta else { return };
    let executable = meta.permissions().mode() & 0o111 != 0;
    if meta.is_dir() {
        found
            .notes
            .push(format!("{shown} is a symlinked folder; not followed"));
        return;
    }
    if !meta.is_file() {
        if executable {
            found
                .notes
                .push(format!("{shown} is left out: it is not a regular file"));
        }
        return;
    }
    if !executable {
        if name.ends_with(".toml") {
            match read_toml(inside, file, shown) {
                Ok(table) => read_tasks(&table, shown, found),
                Err(err) => found.notes.push(format!("{err}; its tasks are left out")),
            }
        }
        return;
    }
    let head = match inside.read_walked_prefix(file, HEAD_BYTES) {
        Ok(head) => head,
        Err(err) => {
            found.notes.push(format!("{shown} is left out: {err}"));
            return;
        }
    };
    let Some(task) = file_task_name(parts, name) else {
        return;
    };
    found.add(
        task,
        entry_of(&parse_headers(&String::from_utf8_lossy(&head))),
    );
}

/// A file task's name from its folders under the task folder and its file name: `a:b` for
/// `a/b.sh`, `a` for `a/_default`.
fn file_task_name(parts: &[String], file: &str) -> Option<String> {
    let stem = match file.rsplit_once('.') {
        Some((stem, _)) if !stem.is_empty() => stem,
        _ => file,
    };
    let mut all: Vec<&str> = parts.iter().map(String::as_str).collect();
    if stem != "_default" {
        all.push(stem);
    }
    (!all.is_empty()).then(|| all.join(":"))
}

/// The `#MISE key=value` headers of a file task (also `# [MISE]`, `//MISE`, `::MISE`), each
/// one TOML line, as one table; a line that is not TOML is skipped.
pub fn parse_headers(text: &str) -> toml::Table {
    let mut table = toml::Table::new();
    for line in text.lines() {
        let Some(rest) = ["#", "//", "::"]
            .iter()
            .find_map(|mark| line.strip_prefix(mark))
        else {
            continue;
        };
        let rest = rest.trim_start();
        let Some(rest) = rest
            .strip_prefix("[MISE]")
            .or_else(|| rest.strip_prefix("MISE"))
        else {
            continue;
        };
        if !rest.starts_with([' ', '\t']) {
            continue;
        }
        if let Ok(line) = rest.trim().parse::<toml::Table>() {
            for (key, value) in line {
                table.entry(key).or_insert(value);
            }
        }
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_task_names_drop_the_last_extension_and_default() {
        let parts = |p: &[&str]| p.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(file_task_name(&[], "test.sh").as_deref(), Some("test"));
        assert_eq!(file_task_name(&[], "y.tar.gz").as_deref(), Some("y.tar"));
        assert_eq!(
            file_task_name(&parts(&["db"]), "migrate.sh").as_deref(),
            Some("db:migrate")
        );
        assert_eq!(
            file_task_name(&parts(&["db"]), "_default").as_deref(),
            Some("db")
        );
        assert_eq!(file_task_name(&[], "_default"), None);
        assert_eq!(file_task_name(&[], ".x").as_deref(), Some(".x"));
    }

    #[test]
    fn headers_as_mise_reads_them() {
        let text = "#!/bin/sh\n# MISE description=\"a\"\n#[MISE] alias=[\"x\"]\n// [MISE] hide=true\n-- [MISE] dir=\"no\"\n# mise depends=[\"no\"]\n#MISEx=1\n#MISE description=\"second\"\necho\n";
        let table = parse_headers(text);
        assert_eq!(table.get("description").and_then(|v| v.as_str()), Some("a"));
        assert_eq!(entry_of(&table).aliases, ["x".to_owned()]);
        assert!(entry_of(&table).hidden);
        assert!(table.get("dir").is_none());
        assert!(table.get("depends").is_none());
        assert!(table.get("x").is_none());
    }

    #[test]
    fn task_forms() {
        let table = parse_toml(
            "[tasks]\nfmt = 'gofmt'\nmulti = ['a', 'b']\nbad = 3\n[tasks.build]\nrun = 'go build'\ndescription = '''\n\n  Build it\nmore'''\nalias = 'b'\n[tasks.h]\nhide = true\n[task_config]\nincludes = ['tasks.toml', './more/', '../out', '/abs']\n",
        )
        .expect("toml");
        let mut found = Found::default();
        read_config(&table, "mise.toml", &mut found);
        let names: Vec<&str> = found.tasks.keys().map(String::as_str).collect();
        assert_eq!(names, ["build", "fmt", "h", "multi"]);
        assert_eq!(
            found.tasks["build"].description.as_deref(),
            Some("Build it")
        );
        assert_eq!(found.tasks["build"].aliases, ["b".to_owned()]);
        assert!(found.tasks["h"].hidden);
        assert_eq!(found.includes, ["tasks.toml", "more"]);
        assert_eq!(found.notes.len(), 3, "{:?}", found.notes);
        let runner = into_runner(found);
        let names: Vec<&str> = runner.tasks.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["build", "fmt", "multi"]);
        assert_eq!(
            runner.find("b").map(|(t, _)| t.name.as_str()),
            Some("build")
        );
    }

    #[test]
    fn tasks_are_bounded() {
        let text: String = (0..MAX_TASKS + 5)
            .map(|i| format!("t{i} = 'x'\n"))
            .collect();
        let mut found = Found::default();
        read_tasks(&parse_toml(&text).expect("toml"), "tasks.toml", &mut found);
        assert_eq!(found.tasks.len(), MAX_TASKS);
        assert_eq!(
            found.notes,
            [format!(
                "more than {MAX_TASKS} tasks; the rest are left out"
            )]
        );
    }

    #[test]
    fn includes_are_what_an_attempt_freezes() {
        let text = "[task_config]\nincludes = ['tasks.toml', 'ops/']\n[tasks]\nt = 'x'\n";
        assert_eq!(included(text), ["tasks.toml", "ops"]);
        assert!(included("not toml [").is_empty());
    }

    #[test]
    fn the_first_definition_wins() {
        let mut found = Found::default();
        let first = parse_toml("[tasks.t]\ndescription = 'local'\n").expect("toml");
        let second = parse_toml("[tasks.t]\ndescription = 'shared'\n").expect("toml");
        read_config(&first, "mise.local.toml", &mut found);
        read_config(&second, "mise.toml", &mut found);
        assert_eq!(found.tasks["t"].description.as_deref(), Some("local"));
    }
}
