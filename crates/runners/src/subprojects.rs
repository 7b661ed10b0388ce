//! Subprojects: folders right below the root that hold a task file and a manifest of their
//! own (polars' `py-polars/` with its Makefile and pyproject.toml, a Go service's `web/`
//! with its package.json and justfile). Their tasks are listed as `folder/task`, run in
//! that folder, as `cd py-polars && make test` runs them. Shared by the runners that list
//! them: make, just, go-task and pkg.

use std::path::Path;

use crate::detection::{Absence, Context};
use crate::files;
use crate::runner::{Repeats, Runner, Task};

/// The files beside a task file that make its folder a project of its own.
pub(crate) const MANIFESTS: &[&str] = &[
    "pyproject.toml",
    "setup.py",
    "package.json",
    "Cargo.toml",
    "go.mod",
    "composer.json",
    "Gemfile",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "CMakeLists.txt",
];

/// Folders never taken as subprojects: dependencies and build outputs.
const NOT_SUBPROJECTS: &[&str] = &["node_modules", "target", "vendor", "dist", "build"];

/// The most subprojects listed per runner, and the most root entries looked at for them.
pub(crate) const MAX_SUBPROJECTS: usize = 32;
const MAX_ROOT_ENTRIES: usize = 10_000;

/// The folders right below the root, in sorted order, that may be subprojects: not hidden
/// (`.git`, `.venv`), not a dependency or build output, not a symlink (which may lead out
/// of the root), at most [`MAX_ROOT_ENTRIES`] entries looked at.
pub(crate) fn folders(root: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut folders: Vec<String> = entries
        .take(MAX_ROOT_ENTRIES)
        .flatten()
        // `file_type` does not follow a symlink: a linked folder is no folder here.
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|name| !name.starts_with('.') && !NOT_SUBPROJECTS.contains(&name.as_str()))
        .collect();
    folders.sort();
    folders
}

/// The subprojects of a runner: each folder of [`folders`] where `task_file` finds the
/// runner's task file and a manifest of [`MANIFESTS`] stands beside it (when `manifest` is
/// set; pkg's package.json is both), with that file's name, at most [`MAX_SUBPROJECTS`].
/// Each folder's list of entries is an input: a task file or manifest appearing changes
/// the answer.
pub(crate) fn find(
    ctx: &Context<'_>,
    task_file: impl Fn(&Path) -> Option<String>,
    manifest: bool,
) -> Subprojects {
    let mut found = Subprojects::default();
    for folder in folders(ctx.root) {
        let dir = ctx.root.join(&folder);
        ctx.depends_on(dir.clone());
        let Some(name) = task_file(&dir) else {
            continue;
        };
        if manifest && !MANIFESTS.iter().any(|m| files::exists(&dir.join(m))) {
            continue;
        }
        if found.list.len() == MAX_SUBPROJECTS {
            found.left_out += 1;
        } else {
            found.list.push((folder, name));
        }
    }
    found
}

/// The subprojects [`find`] found: folder and task file name, and how many more it left
/// out past [`MAX_SUBPROJECTS`].
#[derive(Debug, Default)]
pub(crate) struct Subprojects {
    pub(crate) list: Vec<(String, String)>,
    pub(crate) left_out: usize,
}

impl Subprojects {
    /// The note saying how many were left out, when some were.
    pub(crate) fn note(&self) -> Option<String> {
        (self.left_out > 0).then(|| {
            format!(
                "{} subprojects past the first {MAX_SUBPROJECTS} are not listed",
                self.left_out
            )
        })
    }
}

/// Adds a subproject's tasks to `runner` as `folder/task`, run in its folder, after the
/// root's. Its patterns are not listed (an op names them under the folder, which the
/// pattern does not match), and a subproject the root's own tasks already hold under that
/// folder's name (a just module `mod web`, a go-task include named `web`) is left out,
/// with a note for each (`patterns` names the runner's patterns: `pattern rules`).
pub(crate) fn add(runner: &mut Runner, folder: &str, sub: Runner, patterns: &str) {
    let prefix = format!("{folder}/");
    // Only names under the folder: a root target named like it (`make docs` beside
    // `docs/`) is another task.
    if runner.tasks.iter().any(|t| t.name.starts_with(&prefix)) {
        runner.notes.push(format!(
            "subproject {folder}/ is not listed: the root's tasks already hold `{folder}/…`"
        ));
        return;
    }
    let mut left_out = 0usize;
    let tasks: Vec<Task> = sub
        .tasks
        .into_iter()
        .filter(|task| {
            let pattern = runner.is_pattern(task);
            left_out += usize::from(pattern);
            !pattern
        })
        .map(|task| Task {
            name: format!("{folder}/{}", task.name),
            cwd: Some(match task.cwd {
                Some(inner) => format!("{folder}/{inner}"),
                None => folder.to_owned(),
            }),
            ..task
        })
        .collect();
    if left_out > 0 {
        runner.notes.push(format!(
            "subproject {folder}/: its {patterns} are not listed ({left_out}; `{}:{folder}/…` \
             cannot name them; they run from {folder}/)",
            runner.id
        ));
    }
    runner
        .notes
        .extend(sub.notes.into_iter().map(|n| format!("{folder}/: {n}")));
    runner.extend_first(tasks, Repeats::Note);
}

/// Why a runner whose root and subprojects gave no task is absent, with what was left out.
pub(crate) fn none_listed(what: &str, notes: &[String]) -> String {
    let mut reason = format!("no {what} in the root or a subproject");
    if !notes.is_empty() {
        reason.push_str(&format!(" ({})", notes.join("; ")));
    }
    reason
}

/// A runner found by `here` in the root and, as subprojects, in each folder where
/// `task_file` finds its file beside a manifest, each found by `here` with that folder as
/// the root (tox and nox: a Python package's own `tox.ini` or `noxfile.py` below a Rust or
/// Go root). The root's failure fails the runner; a subproject's is a note.
pub(crate) fn with_subprojects(
    ctx: &Context<'_>,
    here: fn(&Context<'_>) -> Result<Runner, Absence>,
    task_file: impl Fn(&Path) -> Option<String>,
    patterns: &str,
) -> Result<Runner, Absence> {
    let root = here(ctx);
    let found = find(ctx, task_file, true);
    if found.list.is_empty() {
        return root;
    }
    let (mut runner, root_absent) = match root {
        Ok(runner) => (Some(runner), None),
        Err(Absence::Failed(reason)) => return Err(Absence::Failed(reason)),
        Err(Absence::Absent(reason)) => (None, Some(reason)),
    };
    let mut notes = Vec::new();
    for (folder, _) in &found.list {
        let dir = ctx.root.join(folder);
        let sub_ctx = Context { root: &dir, ..*ctx };
        let sub = match here(&sub_ctx) {
            Ok(sub) => sub,
            Err(Absence::Failed(err) | Absence::Absent(err)) => {
                notes.push(format!("subproject {folder}/ is not listed: {err}"));
                continue;
            }
        };
        let runner = runner.get_or_insert_with(|| {
            let mut first = Runner::new(sub.id, sub.label, sub.command_prefix.clone());
            first.tail_rule = sub.tail_rule;
            first
        });
        if runner.tail_rule != sub.tail_rule {
            notes.push(format!(
                "subproject {folder}/ is not listed: it hands words to a task unlike the root's \
                 `{}`",
                runner.command_prefix
            ));
            continue;
        }
        add(runner, folder, sub, patterns);
    }
    notes.extend(found.note());
    match runner {
        Some(mut runner) if !runner.tasks.is_empty() => {
            runner.notes.extend(notes);
            Ok(runner)
        }
        runner => {
            let mut all: Vec<String> = root_absent.into_iter().collect();
            all.extend(runner.into_iter().flat_map(|r| r.notes));
            all.extend(notes);
            Err(Absence::Absent(none_listed("env or session", &all)))
        }
    }
}
