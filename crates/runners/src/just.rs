//! `just`: recipes of a justfile, from `just --dump --dump-format=json`.

use std::borrow::Cow;

use serde_json::Value;

use crate::detection::{Absence, Arguments, Context, FolderOption, RunnerDef};
use crate::files::{self, MAX_MAKEFILE};
use crate::parse_error::ListingError;
use crate::quote::quote;
use crate::runner::{Runner, Task, doc_with_aliases};

pub(crate) const RUNNER: RunnerDef = RunnerDef {
    id: "just",
    label: "Just",
    executes: "`just --dump --dump-format=json`: just parses the justfile, its imports and modules, and evaluates nothing (no backtick, `.env` or `set shell`); a justfile is refused when an import or module is not a regular file (or over 64 MiB) or an import resolves outside the root, and a module outside the root is left out",
    manifests: &["justfile", "Justfile", ".justfile"],
    detect,
    with_words: command_with_words,
    arguments,
    included: Some(included),
    folder_options: |program| match program {
        "just" => &[
            FolderOption::FileIn("-f"),
            FolderOption::FileIn("--justfile"),
            FolderOption::PathArgument,
        ],
        _ => &[],
    },
    // `just --dump`: ~2 ms of CPU on all-five (perf stat, task-clock).
    probe_cost: 1,
    ..RunnerDef::BASE
};

/// The files a justfile names: `import`, `import?`, `mod` (with a path, or each file just
/// looks for), and the dotenv settings.
fn included(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in text.lines().map(str::trim) {
        if let Some(rest) = line
            .strip_prefix("import? ")
            .or_else(|| line.strip_prefix("import "))
        {
            found.push(rest.to_owned());
        } else if let Some(rest) = line
            .strip_prefix("mod? ")
            .or_else(|| line.strip_prefix("mod "))
        {
            let mut words = rest.splitn(2, char::is_whitespace);
            let name = words.next().unwrap_or("");
            match words.next().map(str::trim).filter(|p| !p.is_empty()) {
                Some(file) => found.push(file.to_owned()),
                None => found.extend([
                    format!("{name}.just"),
                    format!("{name}/mod.just"),
                    format!("{name}/justfile"),
                    format!("{name}/.justfile"),
                ]),
            }
        } else if line.starts_with("set dotenv-load") {
            found.push(".env".to_owned());
        } else if let Some(rest) = line
            .strip_prefix("set dotenv-filename")
            .or_else(|| line.strip_prefix("set dotenv-path"))
        {
            found.extend(rest.trim_start().strip_prefix(":=").map(str::to_owned));
        }
    }
    found
}

/// Which words an allowance lets follow a recipe. just reads no option after the recipe's
/// name, but it hands the recipe only as many words as it has parameters and runs the
/// words after them as more recipes, private ones too (measured with just 1.59). So a
/// recipe without parameters is allowed exactly; one whose last parameter is variadic
/// (`+rest`, `*rest`) takes every later word, so any may follow; and one with a fixed
/// number of parameters takes words only after `--one`, with which just refuses a second
/// recipe on its command line (just 1.36 and later).
fn arguments(_: &Runner, task: &Task) -> Arguments {
    match task.params.last() {
        None => Arguments::Exact,
        Some(last) if last.starts_with(['+', '*']) => Arguments::WithArguments,
        Some(_) => Arguments::WithArgumentsAfterOption("--one"),
    }
}

/// The environment variables just reads as options that change what `--dump` reads.
const JUST_OPTION_VARS: &[&str] = &[
    "JUST_JUSTFILE",
    "JUST_JUSTFILE_NAME",
    "JUST_WORKING_DIRECTORY",
    "JUST_UNSTABLE",
];

fn detect(ctx: &Context<'_>) -> Result<Runner, Absence> {
    let justfile = find_justfile(ctx.root);
    if let Some(justfile) = &justfile {
        ctx.depends_on_file(justfile);
    }
    let found = crate::subprojects::find(ctx, find_justfile, true);
    if justfile.is_none() && found.list.is_empty() {
        return Err(Absence::Absent("no justfile in the root".into()));
    }
    ctx.needs_binary("just")?;
    // just takes these options from the environment too: another justfile, folder or
    // name to look for lists other recipes (measured with just 1.59 and JUST_JUSTFILE).
    for name in JUST_OPTION_VARS {
        ctx.depends_on_env(name);
    }
    let mut runner = match &justfile {
        Some(justfile) => list(ctx, ctx.root, justfile)?,
        None => Runner::new(RUNNER.id, RUNNER.label, "just"),
    };
    runner.notes.extend(found.note());
    for (folder, justfile) in found.list {
        let shown = format!("{folder}/{justfile}");
        match list(ctx, &ctx.root.join(&folder), &shown) {
            Ok(sub) => {
                crate::subprojects::add(&mut runner, &folder, sub, "patterns");
            }
            Err(Absence::Failed(err) | Absence::Absent(err)) => runner
                .notes
                .push(format!("subproject {folder}/ is not listed: {err}")),
        }
    }
    if runner.tasks.is_empty() {
        return Err(Absence::Absent(crate::subprojects::none_listed(
            "public recipe",
            &runner.notes,
        )));
    }
    Ok(runner)
}

/// The recipes of the justfile `justfile` (a path under the root, as shown) dumped by just
/// in `dir` (the root, or a subproject's folder, where just finds it and runs them).
fn list(ctx: &Context<'_>, dir: &std::path::Path, justfile: &str) -> Result<Runner, Absence> {
    let inside = files::Root::new(ctx.root);
    let path = ctx.root.join(justfile);
    inside
        .check_manifest(&path)
        .map_err(|err| Absence::Failed(format!("{justfile}: {err}")))?;
    check_sources(ctx, &inside, justfile).inspect_err(|_| {
        if ctx.records_inputs() {
            record_inputs(ctx, justfile, b"");
        }
    })?;
    let dump = ctx
        .probe_in(dir, &["just", "--dump", "--dump-format=json"], &[])
        .inspect_err(|_| {
            // A failure is cached like a listing: the justfile and what it imports.
            if ctx.records_inputs() {
                record_inputs(ctx, justfile, b"");
            }
        })?;
    let mut runner =
        parse_dump(&dump).map_err(|err| Absence::Failed(format!("{justfile}: {err}")))?;
    leave_out_outside(&mut runner, &dump, &inside);
    if ctx.records_inputs() {
        record_inputs(ctx, justfile, &dump);
    }
    Ok(runner)
}

/// Refuses a justfile whose imports or modules, as just would look for them, include a
/// file just must not be let read (a device, a FIFO, one over the cap), or an import that
/// resolves outside the root: `just --dump` merges an import's recipes into the importer's
/// with nothing saying where each came from, so they could not be left out. A module
/// outside the root is left out after the dump instead ([`leave_out_outside`]).
fn check_sources(ctx: &Context<'_>, inside: &files::Root, justfile: &str) -> Result<(), Absence> {
    let shown = |path: &std::path::Path| {
        path.strip_prefix(ctx.root)
            .unwrap_or(path)
            .display()
            .to_string()
    };
    let mut todo = vec![ctx.root.join(justfile)];
    let mut next = 0;
    while next < todo.len() && next < 256 {
        let file = todo[next].clone();
        next += 1;
        let dir = file.parent().unwrap_or(ctx.root).to_path_buf();
        // Files outside the root are not read: their modules are not the project's.
        let Ok(text) = inside.read(&file, MAX_MAKEFILE) else {
            continue;
        };
        let text = String::from_utf8_lossy(&text);
        let imports = imports(&text).into_iter().map(|i| (dir.join(i), true));
        let modules = module_candidates(&dir, &text)
            .into_iter()
            .map(|m| (m, false));
        for (path, imported) in imports.chain(modules) {
            // A folder is where just looks for `mod.just` or `justfile`, not a source.
            if !files::exists(&path) || path.is_dir() {
                continue;
            }
            if let Err(err) = files::check_regular(&path, MAX_MAKEFILE) {
                return Err(Absence::Failed(format!(
                    "{justfile}: not listed: it reads {}, which {err}",
                    shown(&path)
                )));
            }
            match inside.check(&path) {
                Err(files::ReadError::OutsideRoot { target }) if imported => {
                    return Err(Absence::Failed(format!(
                        "{justfile}: not listed: it imports {}, which resolves outside the \
                         project root (to {}); just would list that file's recipes as the \
                         justfile's own",
                        shown(&path),
                        target.display()
                    )));
                }
                Ok(()) if !todo.contains(&path) => todo.push(path),
                _ => {}
            }
        }
    }
    Ok(())
}

/// Leaves out the recipes of modules whose file resolves outside the root (`mod1.just`
/// a symlink out), with a note: just follows such a module itself, but its recipes are not
/// this project's.
fn leave_out_outside(runner: &mut Runner, dump: &[u8], inside: &files::Root) {
    let Ok(value) = serde_json::from_slice::<Value>(dump) else {
        return;
    };
    let mut todo: Vec<(String, &Value)> = vec![(String::new(), &value)];
    let mut outside: Vec<(String, std::path::PathBuf)> = Vec::new();
    while let Some((path, module)) = todo.pop() {
        let Some(modules) = module.get("modules").and_then(Value::as_object) else {
            continue;
        };
        for (name, sub) in modules {
            let sub_path = if path.is_empty() {
                name.clone()
            } else {
                format!("{path}/{name}")
            };
            let source = sub.get("source").and_then(Value::as_str).unwrap_or("");
            match inside.check(std::path::Path::new(source)) {
                Err(files::ReadError::OutsideRoot { target }) => {
                    outside.push((sub_path, target));
                }
                _ => todo.push((sub_path, sub)),
            }
        }
    }
    outside.sort();
    for (module, target) in outside {
        // Its recipes, and its own name (which runs its default recipe).
        let prefix = format!("{module}/");
        runner
            .tasks
            .retain(|task| !task.name.starts_with(&prefix) && task.name != module);
        runner.notes.push(format!(
            "module `{module}` is left out: it comes from {}, outside the project root \
             (just follows that module itself, so `just {}::RECIPE` still runs it)",
            target.display(),
            module.replace('/', "::")
        ));
    }
}

/// Notes the files detection depends on: the justfile, its modules' files and the folders
/// they were found in, and the files they import.
fn record_inputs(ctx: &Context<'_>, justfile: &str, dump: &[u8]) {
    // Modules and imports are other files: each, and the folder a module was found in.
    let inside = files::Root::new(ctx.root);
    let mut files = vec![ctx.root.join(justfile)];
    // `JUST_JUSTFILE` (or `JUST_JUSTFILE_NAME`) makes just read another file than the
    // root's justfile, perhaps outside the root: the dump names it, and the variable names
    // it when just failed.
    if let Some(named) = ctx.env_var("JUST_JUSTFILE").filter(|v| !v.is_empty()) {
        files.push(ctx.root.join(named));
    }
    if let Ok(value) = serde_json::from_slice::<Value>(dump) {
        if let Some(source) = value.get("source").and_then(Value::as_str)
            && !files.iter().any(|f| f.as_os_str() == source)
        {
            files.push(source.into());
        }
        module_sources(&value, &mut files);
    }
    // Without a dump (just failed), modules are found from the text, as just looks for
    // them: fixing a broken module must make the entry stale.
    let from_text = dump.is_empty();
    let mut next = 0;
    while next < files.len() && next < 256 {
        let file = files[next].clone();
        next += 1;
        ctx.depends_on(file.clone());
        let dir = file.parent().unwrap_or(ctx.root).to_path_buf();
        ctx.depends_on(dir.clone());
        // Only files inside the root are read; one outside is still watched.
        let text = inside.read(&file, MAX_MAKEFILE).unwrap_or_default();
        let text = String::from_utf8_lossy(&text);
        for import in imports(&text) {
            let path = dir.join(import);
            // An imported file's own imports are read by just too.
            if files.len() < 256 && path.is_file() && !files.contains(&path) {
                files.push(path.clone());
            }
            ctx.depends_on(path);
        }
        if from_text {
            for candidate in module_candidates(&dir, &text) {
                if candidate.is_file() && !files.contains(&candidate) {
                    files.push(candidate.clone());
                }
                ctx.depends_on(candidate);
            }
        }
    }
}

/// Where just looks for the modules a justfile's `mod` lines declare: the path given, or
/// `NAME.just`, and `mod.just` or `justfile` in the folder `NAME` (itself an input: a file
/// appearing there changes the answer).
fn module_candidates(dir: &std::path::Path, text: &str) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("mod") else {
            continue;
        };
        let rest = rest.strip_prefix('?').unwrap_or(rest);
        if !rest.starts_with([' ', '\t']) {
            continue;
        }
        let rest = rest.trim_start();
        let name_end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let name = &rest[..name_end];
        if name.is_empty() {
            continue;
        }
        // The path is a quoted string, which may hold spaces.
        let after = rest[name_end..].trim_start();
        let path = after
            .chars()
            .next()
            .filter(|c| matches!(c, '\'' | '"'))
            .and_then(|quote| {
                let inner = &after[1..];
                inner.find(quote).map(|end| &inner[..end])
            })
            .filter(|p| !p.is_empty());
        match path {
            Some(path) => out.push(dir.join(path)),
            None => {
                out.push(dir.join(format!("{name}.just")));
                out.push(dir.join(name));
                out.push(dir.join(name).join("mod.just"));
                out.push(dir.join(name).join("justfile"));
            }
        }
    }
    out
}

/// The `source` file of every module in a dump, recursively.
fn module_sources(module: &Value, out: &mut Vec<std::path::PathBuf>) {
    let Some(modules) = module.get("modules").and_then(Value::as_object) else {
        return;
    };
    for sub in modules.values() {
        if let Some(source) = sub.get("source").and_then(Value::as_str) {
            out.push(source.into());
        }
        module_sources(sub, out);
    }
}

/// The paths of `import 'path'` and `import? 'path'` lines of a justfile.
fn imports(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            let rest = line.strip_prefix("import")?;
            let rest = rest.strip_prefix('?').unwrap_or(rest).trim();
            let quote = rest.chars().next().filter(|c| matches!(c, '\'' | '"'))?;
            let rest = &rest[1..];
            Some(rest[..rest.find(quote)?].to_owned())
        })
        .collect()
}

/// The justfile just itself would read in `root`: `justfile` or `.justfile` in any casing.
fn find_justfile(root: &std::path::Path) -> Option<String> {
    let mut names: Vec<String> = std::fs::read_dir(root)
        .ok()?
        .flatten()
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|name| {
            name.eq_ignore_ascii_case("justfile") || name.eq_ignore_ascii_case(".justfile")
        })
        .collect();
    names.sort();
    names.into_iter().next()
}

/// Tasks from the JSON of `just --dump --dump-format=json`: public recipes of the justfile
/// and, named `module/recipe`, of its modules.
pub fn parse_dump(json: &[u8]) -> Result<Runner, ListingError> {
    let dump: Value = serde_json::from_slice(json).map_err(|err| ListingError::NotJson {
        command: DUMP,
        detail: err.to_string(),
    })?;
    let mut runner = Runner::new("just", "Just", "just");
    collect(&dump, &[], &mut runner)?;
    Ok(runner)
}

/// The listing command, as its errors name it.
const DUMP: &str = "`just --dump`";

#[expect(
    clippy::too_many_lines,
    reason = "over 80 lines when the limit was set; split it when it next changes"
)]
fn collect(module: &Value, path: &[&str], runner: &mut Runner) -> Result<(), ListingError> {
    let recipes =
        module
            .get("recipes")
            .and_then(Value::as_object)
            .ok_or(ListingError::NoField {
                command: DUMP,
                field: "recipes",
                shape: "object",
                hint: None,
            })?;
    // `just test` with a module `test` runs the module's default recipe (its `[default]`
    // one, else its first; the dump's `first`), so the module's name is a task of its own.
    // Words after it name more recipes of the module, so it takes none, and a default
    // recipe that needs an argument cannot run this way.
    if !path.is_empty()
        && let Some(first) = module.get("first").and_then(Value::as_str)
        && recipes.get(first).is_some_and(|recipe| {
            params(recipe)
                .iter()
                .all(|p| p.contains('=') || p.starts_with('*'))
        })
    {
        let namepath = path.join("::");
        let doc = module
            .get("doc")
            .and_then(Value::as_str)
            .or_else(|| recipes.get(first)?.get("doc")?.as_str());
        let runs = format!("runs `{namepath}::{first}`, the module's default");
        runner.push_task(Task {
            command: format!("just {}", quote(&namepath)),
            name: path.join("/"),
            doc: Some(match doc {
                Some(doc) => format!("{doc} ({runs})"),
                None => runs,
            }),
            params: Vec::new(),
            cwd: None,
        });
    }
    // `alias t := test`: shown in the doc of the recipe it names, and resolved to it.
    let mut aliases: std::collections::HashMap<&str, Vec<String>> = Default::default();
    for (alias, value) in module
        .get("aliases")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let private = value
            .get("attributes")
            .and_then(Value::as_array)
            .is_some_and(|attrs| attrs.iter().any(|a| a.as_str() == Some("private")));
        if let Some(target) = value.get("target").and_then(Value::as_str)
            && !private
            && !alias.starts_with('_')
        {
            let mut full = path.join("/");
            if !full.is_empty() {
                full.push('/');
            }
            full.push_str(alias);
            aliases.entry(target).or_default().push(full);
        }
    }
    for (name, recipe) in recipes {
        if is_private(name, recipe) {
            continue;
        }
        let mut task_name = path.join("/");
        let mut namepath = path.join("::");
        if !path.is_empty() {
            task_name.push('/');
            namepath.push_str("::");
        }
        task_name.push_str(name);
        namepath.push_str(name);
        runner.push_task(Task {
            command: format!("just {}", quote(&namepath)),
            name: task_name,
            doc: doc_with_aliases(
                recipe.get("doc").and_then(Value::as_str).map(str::to_owned),
                aliases.get(name.as_str()).map_or(&[], Vec::as_slice),
            ),
            params: params(recipe),
            cwd: None,
        });
    }
    if let Some(modules) = module.get("modules").and_then(Value::as_object) {
        for (name, sub) in modules {
            let mut sub_path = path.to_vec();
            sub_path.push(name);
            collect(sub, &sub_path, runner)?;
        }
    }
    Ok(())
}

/// The command that runs `task` with words after it: just reads words past a recipe's
/// parameters as more recipes to run (`just nocd secret` runs `secret`, a `[private]` one
/// too), so unless the last parameter is variadic (and takes every later word) the command
/// gets `--one`, with which just refuses a second recipe and runs nothing (just 1.36 and
/// later; measured with 1.59). The form matches the allowance `just --one NAME *`.
fn command_with_words<'c>(task: &Task, command: &'c str) -> Cow<'c, str> {
    let variadic = task
        .params
        .last()
        .is_some_and(|last| last.starts_with(['+', '*']));
    match command.strip_prefix("just ") {
        Some(rest) if !variadic => format!("just --one {rest}").into(),
        _ => command.into(),
    }
}

/// Private recipes: `private: true`, a name starting with `_`, or a `[private]` attribute
/// (which just before 1.37 did not reflect in `private`).
fn is_private(name: &str, recipe: &Value) -> bool {
    name.starts_with('_')
        || recipe.get("private").and_then(Value::as_bool) == Some(true)
        || recipe
            .get("attributes")
            .and_then(Value::as_array)
            .is_some_and(|attrs| attrs.iter().any(|a| a.as_str() == Some("private")))
}

/// Parameters as just shows them: `name`, `name='default'`, `+rest`, `*rest`.
fn params(recipe: &Value) -> Vec<String> {
    let Some(list) = recipe.get("parameters").and_then(Value::as_array) else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|param| {
            let name = param.get("name")?.as_str()?;
            let sigil = match param.get("kind").and_then(Value::as_str) {
                Some("plus") => "+",
                Some("star") => "*",
                _ => "",
            };
            let default = match param.get("default") {
                Some(Value::String(d)) => format!("='{d}'"),
                // A default that is an expression is dumped as a JSON array; show it as set.
                Some(Value::Null) | None => String::new(),
                Some(_) => "=…".into(),
            };
            Some(format!("{sigil}{name}{default}"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = include_str!("../tests/samples/just-dump.json");

    #[test]
    fn recorded_dump() {
        let runner = parse_dump(SAMPLE.as_bytes()).expect("valid dump");
        let names: Vec<&str> = runner.tasks.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "build",
                "danger",
                "deploy",
                "lint",
                "release",
                "test",
                "sub",
                "sub/hello"
            ]
        );
        let test = &runner.tasks[5];
        assert_eq!(test.params, ["filter=''", "*args"]);
        assert_eq!(
            test.doc.as_deref(),
            Some("Run tests, forwarding any extra args (aliases: t)")
        );
        assert_eq!(test.command, "just test");
        assert_eq!(runner.tasks[2].params, ["env", "+targets"]);
        assert_eq!(
            runner.tasks[3].doc.as_deref(),
            Some("Documented via the doc attribute")
        );
        // The module's name runs its default recipe, and takes no words.
        let module = &runner.tasks[6];
        assert_eq!(module.command, "just sub");
        assert!(module.params.is_empty());
        assert_eq!(
            module.doc.as_deref(),
            Some("Submodule recipe (runs `sub::hello`, the module's default)")
        );
        let hello = &runner.tasks[7];
        assert_eq!(hello.command, "just sub::hello");
        assert_eq!(hello.params, ["name='world'"]);
        assert_eq!(hello.doc.as_deref(), Some("Submodule recipe"));
    }

    #[test]
    fn a_module_default_that_needs_an_argument_is_not_a_task() {
        let json = r#"{"recipes":{},"modules":{"db":{"first":"seed","recipes":{
            "seed":{"parameters":[{"name":"n","kind":"singular","default":null}]}}}}}"#;
        let runner = parse_dump(json.as_bytes()).expect("valid");
        let names: Vec<&str> = runner.tasks.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["db/seed"]);
    }

    #[test]
    fn private_attribute_without_private_flag() {
        let json = r#"{"recipes":{"a":{"attributes":["private"],"private":false,"parameters":[]},
            "b":{"attributes":[],"private":false,"parameters":[]}}}"#;
        let runner = parse_dump(json.as_bytes()).expect("valid");
        assert_eq!(runner.tasks.len(), 1);
        assert_eq!(runner.tasks[0].name, "b");
    }

    #[test]
    fn module_lines() {
        let dir = std::path::Path::new("/r");
        let got = module_candidates(dir, "mod a\nmod? b 'x y.just'\nmod c \"c.just\" # c\n");
        let want: Vec<std::path::PathBuf> = [
            "/r/a.just",
            "/r/a",
            "/r/a/mod.just",
            "/r/a/justfile",
            "/r/x y.just",
            "/r/c.just",
        ]
        .iter()
        .map(std::path::PathBuf::from)
        .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn import_lines() {
        assert_eq!(
            imports("import 'a.just'\nimport? \"b/c.just\"\n# import 'no'\nbuild:\n"),
            ["a.just", "b/c.just"]
        );
    }

    #[test]
    fn broken_json() {
        let err = parse_dump(b"not json").expect_err("invalid").to_string();
        assert!(
            err.starts_with("`just --dump` printed invalid JSON"),
            "{err}"
        );
        let err = parse_dump(b"{}").expect_err("no recipes");
        assert_eq!(err.to_string(), "`just --dump` has no `recipes` object");
    }
}
