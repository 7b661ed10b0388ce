//! go-task (`task`): tasks of a Taskfile, from `task --list-all --json --no-status`.

use std::path::PathBuf;

use serde_json::Value;

use crate::detection::{Absence, Arguments, Context, FolderOption, RunnerDef, Words};
use crate::files::{self, MAX_MANIFEST};
use crate::parse_error::ListingError;
use crate::quote::quote;
use crate::runner::{Runner, Task, doc_with_aliases};
use crate::yaml_tree::{Node, Tree};

pub(crate) const RUNNER: RunnerDef = RunnerDef {
    id: "task",
    label: "Task",
    executes: "`task --list-all --json --no-status`: go-task reads the Taskfile, its includes (even outside the root) and dotenv files; a Taskfile is refused when its listing could run `sh:` variables (a root `dotenv` key in any YAML spelling, with any `sh` key), when it is not readable YAML, or when a dotenv file or include is not a regular file (or over 4 MiB)",
    manifests: TASKFILES,
    detect,
    pattern: Some(wildcard_task),
    is_pattern: |task| task.name.contains('*'),
    included: Some(included),
    arguments: |_, _| Arguments::AfterDashDash,
    words: Words::AfterDashDash {
        test_argument: "--verbose",
    },
    folder_options: |program| match program {
        "task" => &[
            FolderOption::Dir("-d"),
            FolderOption::Dir("--dir"),
            FolderOption::FileIn("-t"),
            FolderOption::FileIn("--taskfile"),
        ],
        _ => &[],
    },
    // `task --list-all` is a Go program: ~60 ms of CPU on all-five, the slowest probe (perf stat, task-clock).
    probe_cost: 3,
    ..RunnerDef::BASE
};

/// The files a Taskfile names: `includes` (short and `taskfile:` forms) and `dotenv`.
fn included(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut in_includes = false;
    for line in text.lines() {
        let trimmed = line.trim();
        if !line.starts_with([' ', '\t']) {
            in_includes = trimmed.starts_with("includes:");
        }
        let value = |key: &str| trimmed.strip_prefix(key).map(str::trim);
        if let Some(file) = value("taskfile:") {
            found.push(file.to_owned());
        } else if let Some(list) = value("dotenv:") {
            found.extend(list.trim_matches(['[', ']']).split(',').map(str::to_owned));
        } else if in_includes
            && line.starts_with([' ', '\t'])
            && let Some((_, file)) = trimmed.split_once(':')
            && (file.contains('/')
                || file.trim().ends_with(".yml")
                || file.trim().ends_with(".yaml"))
        {
            found.push(file.to_owned());
        }
    }
    found
}

/// The wildcard task (`release:*`) whose pattern `name` matches, run under that name, as
/// go-task runs it.
fn wildcard_task(runner: &Runner, name: &str) -> Option<(usize, String)> {
    let index = runner
        .tasks
        .iter()
        .position(|t| t.name.contains('*') && wildcard_matches(&t.name, name))?;
    Some((index, format!("task {}", quote(name))))
}

/// Every file name go-task looks for, in its order.
const TASKFILES: &[&str] = &[
    "Taskfile.yml",
    "taskfile.yml",
    "Taskfile.yaml",
    "taskfile.yaml",
    "Taskfile.dist.yml",
    "taskfile.dist.yml",
    "Taskfile.dist.yaml",
    "taskfile.dist.yaml",
];

fn detect(ctx: &Context<'_>) -> Result<Runner, Absence> {
    let taskfile = taskfile_in(ctx.root);
    if let Some(taskfile) = taskfile {
        ctx.depends_on_file(taskfile);
    }
    let find = || crate::subprojects::find(ctx, |dir| taskfile_in(dir).map(str::to_owned), true);
    // The root's probe first: the slowest step of a cold listing, it starts before the
    // folders below are looked through.
    let (mut runner, included, found) = match taskfile {
        Some(taskfile) => {
            ctx.needs_binary("task")?;
            let inside = files::Root::new(ctx.root);
            let included = taskfiles(ctx.root, &inside, taskfile);
            (list(ctx, ctx.root, taskfile)?, included, find())
        }
        None => {
            let found = find();
            if found.list.is_empty() {
                return Err(Absence::Absent("no Taskfile in the root".into()));
            }
            ctx.needs_binary("task")?;
            let runner = Runner::new(RUNNER.id, RUNNER.label, "task");
            (runner, Vec::new(), found)
        }
    };
    runner.notes.extend(found.note());
    for (folder, name) in found.list {
        let shown = format!("{folder}/{name}");
        // A Taskfile the root's includes (`web: ./web`) lists already, as `web:build`.
        if included.contains(&ctx.root.join(&shown)) {
            runner.notes.push(format!(
                "subproject {folder}/ is not listed: the root Taskfile includes {shown}"
            ));
            continue;
        }
        match list(ctx, &ctx.root.join(&folder), &shown) {
            Ok(sub) => {
                crate::subprojects::add(&mut runner, &folder, sub, "wildcard tasks");
            }
            Err(Absence::Failed(err) | Absence::Absent(err)) => runner
                .notes
                .push(format!("subproject {folder}/ is not listed: {err}")),
        }
    }
    if runner.tasks.is_empty() {
        return Err(Absence::Absent(crate::subprojects::none_listed(
            "task",
            &runner.notes,
        )));
    }
    Ok(runner)
}

/// The Taskfile go-task reads in `dir`, by the first name it looks for.
fn taskfile_in(dir: &std::path::Path) -> Option<&'static str> {
    TASKFILES
        .iter()
        .find(|name| files::exists(&dir.join(name)))
        .copied()
}

/// The tasks of `taskfile` (a path under the root) as go-task lists them in `dir` (the
/// root, or a subproject's folder, where they run).
fn list(ctx: &Context<'_>, dir: &std::path::Path, taskfile: &str) -> Result<Runner, Absence> {
    let inside = files::Root::new(ctx.root);
    let text = inside
        .read(&ctx.root.join(taskfile), MAX_MANIFEST)
        .map_err(|err| Absence::Failed(format!("{taskfile}: {err}")))?;
    // Decided on the document as a YAML reader sees it, not on its lines: JSON, a quoted or
    // escaped key, a merge key or an alias all spell `dotenv:` too.
    let tree = String::from_utf8(text)
        .map_err(|_| "not UTF-8".to_owned())
        .and_then(|text| Tree::parse(&text))
        .map_err(|err| {
            if ctx.records_inputs() {
                record_inputs(ctx, &inside, taskfile, b"");
            }
            Absence::Failed(format!(
                "{taskfile}: not listed: not YAML that can be read ({err}), so go-task would \
                 not list it either"
            ))
        })?;
    if let Some(line) = listing_runs_code(&tree) {
        return Err(Absence::Failed(format!(
            "{taskfile}:{line}: not listed: with `dotenv` set, `task --list-all` runs the \
             Taskfile's dynamic variables (`sh:` in `vars:` or `env:`), and detection runs \
             no code of the project"
        )));
    }
    // go-task reads the dotenv files while listing: a device there would be read forever.
    // Their variables fill the templates of the listing (a `desc:`), so each is an input,
    // wherever it is (go-task reads it there), within a bound.
    for (index, file) in dotenv_paths(&tree).into_iter().enumerate() {
        let path = dir.join(&file);
        if index < MAX_DOTENV_FILES {
            ctx.depends_on(path.clone());
        }
        if files::exists(&path)
            && let Err(err) = files::check_regular(&path, MAX_MANIFEST)
        {
            ctx.depends_on(path);
            return Err(Absence::Failed(format!(
                "{taskfile}: not listed: it reads {file}, which {err}"
            )));
        }
    }
    // go-task waits forever on an included FIFO (measured): refused before it is asked.
    for include in taskfiles(ctx.root, &inside, taskfile).iter().skip(1) {
        if files::exists(include)
            && let Err(err) = files::check_regular(include, MAX_MANIFEST)
        {
            if ctx.records_inputs() {
                record_inputs(ctx, &inside, taskfile, b"");
            }
            return Err(Absence::Failed(format!(
                "{taskfile}: not listed: it includes {}, which {err} (go-task would wait on \
                 it or read it whole)",
                include.display()
            )));
        }
    }
    // `--no-status` keeps `status:` commands and fingerprinting from running while listing.
    let mut argv = vec!["task", "--list-all", "--json", "--no-status"];
    // go-task downloads remote includes (`https://…`) while listing; `--offline` keeps
    // detection off the network (a copy the user downloaded is still used). Only then,
    // because go-task versions without remote includes do not know the flag.
    if include_paths(&tree)
        .iter()
        .any(|include| include.contains("://") || include.starts_with("git@"))
    {
        argv.push("--offline");
    }
    // One thread of Go's runtime: a listing gains nothing from more, and the garbage
    // collector's workers on every core compete with the other probes of a cold listing.
    // On two cores busy with other work, go-task's listing alone took 0.94 of its default
    // time, and all-five's cold listing 1.14-1.19 of go-task's own instead of 1.22-1.24
    // (medians of 150 interleaved runs); on an idle machine the two are the same.
    let list = ctx
        .probe_in(dir, &argv, &[("GOMAXPROCS", "1")])
        .inspect_err(|_| {
            // A failure is cached like a listing: the Taskfile and what it includes.
            if ctx.records_inputs() {
                record_inputs(ctx, &inside, taskfile, b"");
            }
        })?;
    let mut runner =
        parse_list(&list).map_err(|err| Absence::Failed(format!("{taskfile}: {err}")))?;
    leave_out_outside(&mut runner, &list, &inside);
    if ctx.records_inputs() {
        record_inputs(ctx, &inside, taskfile, &list);
    }
    Ok(runner)
}

/// The line of the first dynamic variable (`sh:` key) that `task --list-all` might run,
/// when the root Taskfile sets `dotenv`. Measured with go-task 3.54: listing evaluates the
/// root Taskfile's `vars:` and `env:` (running their `sh:` commands) when it has a
/// non-empty `dotenv`, because dotenv paths may use variables; without it nothing runs, a
/// task's own `dotenv` runs nothing, and an included Taskfile may not set one. Any `dotenv`
/// key of a document's top-level mapping (merge keys resolved) with any `sh` key anywhere
/// is refused: simpler to get right than telling which `sh:` would run.
fn listing_runs_code(tree: &Tree) -> Option<usize> {
    let dotenv = tree
        .roots()
        .iter()
        .any(|&root| tree.get(root, "dotenv").is_some());
    if !dotenv {
        return None;
    }
    tree.first_key("sh").map(|key| tree.line(key))
}

/// The most dotenv files of the root Taskfile checked and noted as inputs.
const MAX_DOTENV_FILES: usize = 1000;

/// The dotenv files the root Taskfile names without a template (`{{…}}`), as written.
fn dotenv_paths(tree: &Tree) -> Vec<String> {
    let mut out = Vec::new();
    for &root in tree.roots() {
        let Some(value) = tree.get(root, "dotenv") else {
            continue;
        };
        let items = match tree.node(value) {
            Node::Seq(items) => items.clone(),
            _ => vec![value],
        };
        out.extend(
            items
                .into_iter()
                .filter_map(|item| tree.scalar(item))
                .filter(|path| !path.is_empty() && !path.contains("{{"))
                .map(str::to_owned),
        );
    }
    out
}

/// Leaves out tasks whose Taskfile lies outside the root (an include such as `../other`),
/// with a note: go-task follows such an include itself, but its tasks are not this
/// project's.
fn leave_out_outside(runner: &mut Runner, list: &[u8], inside: &files::Root) {
    let Ok(value) = serde_json::from_slice::<Value>(list) else {
        return;
    };
    let mut outside: Vec<(String, String)> = Vec::new();
    let mut verdicts: std::collections::HashMap<&str, bool> = std::collections::HashMap::new();
    for entry in value
        .get("tasks")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let (Some(name), Some(file)) = (
            entry.get("task").and_then(Value::as_str),
            entry.pointer("/location/taskfile").and_then(Value::as_str),
        ) else {
            continue;
        };
        let out = *verdicts.entry(file).or_insert_with(|| {
            matches!(
                inside.check(std::path::Path::new(file)),
                Err(files::ReadError::OutsideRoot { .. })
            )
        });
        if out {
            outside.push((name.to_owned(), file.to_owned()));
        }
    }
    if outside.is_empty() {
        return;
    }
    runner
        .tasks
        .retain(|task| !outside.iter().any(|(name, _)| *name == task.name));
    for (name, file) in outside {
        runner.notes.push(format!(
            "task `{name}` is left out: it comes from {file}, outside the project root \
             (go-task follows that include itself, so `task {name}` still runs it)"
        ));
    }
}

/// Notes the Taskfiles detection depends on: the root one, those its `includes:` name
/// (even one holding only internal tasks), and those the listed tasks come from, with
/// their folders.
fn record_inputs(ctx: &Context<'_>, inside: &files::Root, taskfile: &str, list: &[u8]) {
    let mut files = taskfiles(ctx.root, inside, taskfile);
    if let Ok(value) = serde_json::from_slice::<Value>(list) {
        let located = value
            .get("tasks")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|t| t.pointer("/location/taskfile").and_then(Value::as_str));
        files.extend(located.map(std::path::PathBuf::from));
    }
    // Each task names the file it comes from: one file is read once.
    files.sort();
    files.dedup();
    for file in files {
        if let Some(dir) = file.parent() {
            ctx.depends_on(dir.to_path_buf());
        }
        // go-task's templates see every environment variable as a variable: an include
        // path `./{{.SUBDIR}}` or a `desc:` changes with the environment.
        let text = inside.read(&file, MAX_MANIFEST).unwrap_or_default();
        for name in template_words(&String::from_utf8_lossy(&text)) {
            ctx.depends_on_env(name);
        }
        ctx.depends_on(file);
    }
}

/// The most template words of one Taskfile that are noted as inputs.
const MAX_TEMPLATE_WORDS: usize = 1000;

/// The words that could name a variable inside the `{{ … }}` templates of a Taskfile's text
/// (function names and keywords among them, harmlessly), each once, sorted. Bounded by
/// distinct words, so a template repeated all over a file does not crowd out the rest.
fn template_words(text: &str) -> Vec<&str> {
    let mut words = std::collections::BTreeSet::new();
    for part in text.split("{{").skip(1) {
        let inside = part.split_once("}}").map_or(part, |(inside, _)| inside);
        for word in inside
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| w.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
        {
            if words.len() >= MAX_TEMPLATE_WORDS {
                return words.into_iter().collect();
            }
            words.insert(word);
        }
    }
    words.into_iter().collect()
}

/// The root Taskfile and those its `includes:` name, transitively (at most 64), as go-task
/// would look for them; only those inside the root are read.
fn taskfiles(root: &std::path::Path, inside: &files::Root, taskfile: &str) -> Vec<PathBuf> {
    let mut files = vec![root.join(taskfile)];
    let mut seen = 0;
    while seen < files.len() && seen < 64 {
        let file = files[seen].clone();
        seen += 1;
        let dir = file.parent().unwrap_or(root).to_path_buf();
        // Only files inside the root are read; one outside is still watched.
        let text = inside.read(&file, MAX_MANIFEST).unwrap_or_default();
        let Ok(tree) = Tree::parse(&String::from_utf8_lossy(&text)) else {
            continue;
        };
        for include in include_paths(&tree) {
            let path = dir.join(include);
            // An include may name a folder, where go-task reads its Taskfile by any of the
            // names it looks for.
            let path = if path.is_dir() {
                TASKFILES
                    .iter()
                    .map(|name| path.join(name))
                    .find(|file| files::exists(file))
                    .unwrap_or_else(|| path.join("Taskfile.yml"))
            } else {
                path
            };
            if !files.contains(&path) {
                files.push(path);
            }
        }
    }
    files
}

/// The paths an `includes:` mapping names, in both of its forms (`lib: ./lib` and
/// `lib: {taskfile: ./lib/Taskfile.yml}`), leaving out those with a template.
fn include_paths(tree: &Tree) -> Vec<String> {
    let mut out = Vec::new();
    for &root in tree.roots() {
        let Some(includes) = tree.get(root, "includes") else {
            continue;
        };
        for (_, value) in tree.entries(includes) {
            let path = match tree.node(value) {
                Node::Scalar(path) => Some(path.as_str()),
                Node::Map(_) => tree.get(value, "taskfile").and_then(|v| tree.scalar(v)),
                Node::Seq(_) => None,
            };
            if let Some(path) = path.filter(|p| !p.is_empty() && !p.contains("{{")) {
                out.push(path.to_owned());
            }
        }
    }
    out
}

/// Tasks from the JSON of `task --list-all --json`. The invocable name is the `task` field;
/// `name` is only the display label.
pub fn parse_list(json: &[u8]) -> Result<Runner, ListingError> {
    const LIST: &str = "`task --list-all --json`";
    let list: Value = serde_json::from_slice(json).map_err(|_| ListingError::OtherTool {
        command: LIST,
        program: "task",
        tool: "go-task",
    })?;
    let tasks = list
        .get("tasks")
        .and_then(Value::as_array)
        .ok_or(ListingError::NoField {
            command: LIST,
            field: "tasks",
            shape: "array",
            hint: Some("is `task` go-task?"),
        })?;
    let mut runner = Runner::new("task", "Task", "task");
    for entry in tasks {
        let Some(name) = entry
            .get("task")
            .or_else(|| entry.get("name"))
            .and_then(Value::as_str)
        else {
            continue;
        };
        let text = |key: &str| {
            entry
                .get(key)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|s| !s.is_empty())
        };
        // go-task reads `-x` as its own option and `X=1` as a variable, whatever the
        // Taskfile says: such a task cannot be run by its name.
        if name.starts_with('-') || name.contains('=') {
            runner.notes.push(format!(
                "task `{name}` is left out: go-task would read its name as {}",
                if name.starts_with('-') {
                    "an option"
                } else {
                    "a variable setting"
                }
            ));
            continue;
        }
        let doc = text("desc").or_else(|| text("summary").and_then(|s| s.lines().next()));
        let mut doc = doc.map(str::to_owned);
        // A wildcard task (`release:*`) runs under a name its pattern matches.
        if name.contains('*') {
            let example = name.replace('*', "x");
            let how = format!("a pattern: any text in place of each *, as in {example}");
            doc = Some(match doc {
                Some(doc) => format!("{doc} ({how})"),
                None => format!("({how})"),
            });
        }
        let aliases: Vec<String> = entry
            .get("aliases")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .filter(|a| !a.is_empty() && !a.starts_with('-') && !a.contains(['=', ',', ')']))
            .map(str::to_owned)
            .collect();
        runner.push_task(Task {
            name: name.to_owned(),
            // A wildcard task shows its pattern (`task release:<arg>`); an op runs a match.
            command: match name.contains('*') {
                true => format!("task {}", name.replace('*', "<arg>")),
                false => format!("task {}", quote(name)),
            },
            doc: doc_with_aliases(doc, &aliases),
            params: Vec::new(),
            cwd: None,
        });
    }
    Ok(runner)
}

/// Whether `name` matches a wildcard task's pattern, where each `*` stands for any
/// non-empty text, as go-task matches it.
fn wildcard_matches(pattern: &str, name: &str) -> bool {
    let mut parts = pattern.split('*');
    let Some(first) = parts.next() else {
        return false;
    };
    let Some(mut rest) = name.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    for (i, part) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        if last {
            // The last piece closes the name; the `*` before it takes at least one char.
            return rest.len() > part.len() && rest.ends_with(part);
        }
        // Skip at least one character for the `*`, then find the piece.
        let Some(skip) = rest.chars().next().map(char::len_utf8) else {
            return false;
        };
        match rest[skip..].find(part) {
            Some(at) => rest = &rest[skip + at + part.len()..],
            None => return false,
        }
    }
    rest.is_empty()
}

#[cfg(test)]
mod tests {
    /// Property: every distinct template word is noted once, however often a word repeats,
    /// and the bound counts distinct words.
    #[test]
    fn template_words_are_distinct_and_bounded_by_distinct_words() {
        let repeated = "{{.CLI_ARGS}} ".repeat(5000);
        let text = format!("{repeated} {{{{if eq .MODE \"x\"}}}}{{{{.SUBDIR}}}} {{{{ .Open");
        assert_eq!(
            template_words(&text),
            ["CLI_ARGS", "MODE", "Open", "SUBDIR", "eq", "if", "x"]
        );
        let many: String = (0..3000).map(|i| format!("{{{{.V{i}}}}}")).collect();
        assert_eq!(template_words(&many).len(), MAX_TEMPLATE_WORDS);
        assert!(template_words("no templates {here} }}").is_empty());
    }

    use super::*;

    #[test]
    fn recorded_list() {
        let json = include_bytes!("../tests/samples/task-list-all-nostatus.json");
        let runner = parse_list(json).expect("valid");
        let names: Vec<&str> = runner.tasks.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "build",
                "default",
                "greet",
                "test",
                "undocumented",
                "lib:fmt"
            ]
        );
        assert_eq!(
            runner.tasks[0].doc.as_deref(),
            Some("Build the project (aliases: b, compile)")
        );
        assert_eq!(runner.tasks[1].doc, None);
        assert_eq!(runner.tasks[5].command, "task lib:fmt");
    }

    #[test]
    fn label_is_not_the_name_and_summary_gives_its_first_line() {
        let json =
            br#"{"tasks":[{"name":"Say hi","task":"hi","desc":"","summary":"First.\n\nMore."}]}"#;
        let runner = parse_list(json).expect("valid");
        assert_eq!(runner.tasks[0].name, "hi");
        assert_eq!(runner.tasks[0].command, "task hi");
        assert_eq!(runner.tasks[0].doc.as_deref(), Some("First."));
    }

    #[test]
    fn includes_in_both_forms() {
        let text = "version: '3'\nincludes:\n  short: ./short\n  long:\n    taskfile: ./lib/Tasks.yml\n    dir: ./lib\n  opt:\n    taskfile: \"opt.yml\" # optional\n    optional: true\ntasks:\n  a:\n    cmds: [echo]\n";
        let tree = Tree::parse(text).expect("yaml");
        assert_eq!(
            include_paths(&tree),
            ["./short", "./lib/Tasks.yml", "opt.yml"]
        );
    }

    #[test]
    fn not_go_task() {
        let err = parse_list(b"[task 1] pending")
            .expect_err("taskwarrior")
            .to_string();
        assert!(err.contains("is `task` go-task?"), "{err}");
    }

    #[test]
    fn wildcards() {
        #[track_caller]
        fn case(pattern: &str, name: &str, want: bool) {
            assert_eq!(wildcard_matches(pattern, name), want, "{pattern} ~ {name}");
        }
        case("release:*", "release:1.2.3", true);
        case("release:*", "release:", false);
        case("release:*", "releases:1", false);
        case("start:*:*", "start:web:prod", true);
        case("start:*:*", "start:web", false);
        case("*-up", "db-up", true);
        case("*-up", "-up", false);
        case("a*b", "ab", false);
        case("a*b", "axxb", true);
    }

    #[test]
    fn aliases_and_patterns_in_the_doc_resolve() {
        let json = br#"{"tasks":[
            {"name":"build","task":"build","desc":"Build it","aliases":["b","compile"]},
            {"name":"lib:fmt","task":"lib:fmt","desc":"","aliases":["l:f","-x","a=b"]},
            {"name":"release:*","task":"release:*","desc":"Ship","aliases":[]}]}"#;
        let runner = parse_list(json).expect("valid");
        let docs: Vec<Option<&str>> = runner.tasks.iter().map(|t| t.doc.as_deref()).collect();
        assert_eq!(
            docs,
            [
                Some("Build it (aliases: b, compile)"),
                Some("(aliases: l:f)"),
                Some("Ship (a pattern: any text in place of each *, as in release:x)"),
            ]
        );
        let found = |name: &str| {
            runner
                .find(name)
                .map(|(task, command)| (task.name.clone(), command.into_owned()))
        };
        assert_eq!(
            found("compile"),
            Some(("build".into(), "task build".into()))
        );
        assert_eq!(
            found("l:f"),
            Some(("lib:fmt".into(), "task lib:fmt".into()))
        );
        assert_eq!(
            found("release:1.2"),
            Some(("release:*".into(), "task release:1.2".into()))
        );
        assert_eq!(found("-x"), None);
        assert_eq!(found("Build"), None);
    }
}
