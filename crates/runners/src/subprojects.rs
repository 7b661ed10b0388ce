//! Subprojects: folders right below the root that hold a task file and a manifest of their
//! own (polars' `py-polars/` with its Makefile and pyproject.toml, a Go service's `web/`
//! with its package.json and justfile). Their tasks are listed as `folder/task`, run in
//! that folder, as `cd py-polars && make test` runs them. Shared by the runners that list
//! them: make, just, go-task, pkg, python, tox and nox.

use std::cell::Cell;
use std::path::Path;

use crate::detection::{Absence, Context};
use crate::files::{self, ReadError};
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

/// The most bytes the subprojects of one runner's listing read in all: 32 subprojects each
/// holding a 16 MiB package.json would otherwise cost 512 MiB. A real subproject's files
/// are a few KiB (the largest package.json of a big monorepo's app is under 100 KiB).
pub(crate) const MAX_SUBPROJECT_BYTES: u64 = 16 << 20;

/// The bytes the subprojects of one listing may still read, shared by all of them; the
/// root's files are bounded one by one instead ([`ReadBudget::unbounded`]).
#[derive(Debug)]
pub(crate) struct ReadBudget {
    left: Cell<u64>,
    /// Whether a read was cut short by the budget (not by its own file's cap).
    spent: Cell<bool>,
}

impl ReadBudget {
    /// No budget beyond each file's own cap: for the root's files.
    pub(crate) fn unbounded() -> Self {
        Self::of(u64::MAX)
    }

    /// The subprojects' shared budget, [`MAX_SUBPROJECT_BYTES`].
    pub(crate) fn subprojects() -> Self {
        Self::of(MAX_SUBPROJECT_BYTES)
    }

    fn of(bytes: u64) -> Self {
        Self {
            left: Cell::new(bytes),
            spent: Cell::new(false),
        }
    }

    /// Whether a read was refused or cut because the budget ran out.
    pub(crate) fn spent(&self) -> bool {
        self.spent.get()
    }

    /// The cap for a file whose own cap is `max`: what is left, when less.
    fn cap(&self, max: u64) -> u64 {
        max.min(self.left.get())
    }

    fn charge(&self, bytes: &[u8]) {
        let read = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
        self.left.set(self.left.get().saturating_sub(read));
    }
}

/// A project folder's files (the root's, or a subproject's), read as [`files::Root`] reads
/// them, each within its own cap and all within a [`ReadBudget`].
#[derive(Debug)]
pub(crate) struct Inside<'a> {
    root: files::Root,
    budget: &'a ReadBudget,
}

impl<'a> Inside<'a> {
    pub(crate) fn new(root: &Path, budget: &'a ReadBudget) -> Self {
        Self {
            root: files::Root::new(root),
            budget,
        }
    }

    /// Whether the budget ran out (see [`ReadBudget::spent`]).
    pub(crate) fn spent(&self) -> bool {
        self.budget.spent()
    }

    /// The root, for reads the budget does not cover (a workspace's members).
    pub(crate) fn root(&self) -> &files::Root {
        &self.root
    }

    /// [`files::Root::read`], within the budget: a file the budget cannot hold is not read.
    pub(crate) fn read(&self, path: &Path, max: u64) -> Result<Vec<u8>, ReadError> {
        let cap = self.budget.cap(max);
        match self.root.read(path, cap) {
            Ok(bytes) => {
                self.budget.charge(&bytes);
                Ok(bytes)
            }
            Err(err @ ReadError::TooLarge { .. }) if cap < max => {
                self.budget.spent.set(true);
                Err(err)
            }
            Err(err) => Err(err),
        }
    }

    /// [`files::Root::read_walked_prefix`], within the budget: a prefix the budget cut
    /// short spends it.
    pub(crate) fn read_walked_prefix(&self, path: &Path, max: u64) -> Result<Vec<u8>, ReadError> {
        let cap = self.budget.cap(max);
        let bytes = self.root.read_walked_prefix(path, cap)?;
        if cap < max && bytes.len() as u64 == cap {
            self.budget.spent.set(true);
        }
        self.budget.charge(&bytes);
        Ok(bytes)
    }
}

/// The note for subprojects left unread once the budget ran out at `folder`.
pub(crate) fn spent_note(folder: &str, after: usize) -> String {
    let which = match after {
        0 => format!("subproject {folder}/ is"),
        n => format!("subproject {folder}/ and the {n} after it are"),
    };
    format!(
        "{which} not listed: the subprojects' files would pass {} MiB in all",
        MAX_SUBPROJECT_BYTES >> 20
    )
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
/// with a note for each (`patterns` names the runner's patterns: `pattern rules`). Whether
/// it was added.
pub(crate) fn add(runner: &mut Runner, folder: &str, sub: Runner, patterns: &str) -> bool {
    let prefix = format!("{folder}/");
    // Only names under the folder: a root target named like it (`make docs` beside
    // `docs/`) is another task.
    if runner.tasks.iter().any(|t| t.name.starts_with(&prefix)) {
        runner.notes.push(format!(
            "subproject {folder}/ is not listed: the root's tasks already hold `{folder}/…`"
        ));
        return false;
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
    true
}

/// The command a runner's header shows (`command="…"` in the prompt) when its subprojects
/// run theirs otherwise than the root (`root`: its command, when the root has tasks), each
/// `folder/: command` where it differs: `npm run; docs/: yarn run`, or with no root
/// `docs/: yarn run; web/: npm run` (one command alone when they all agree). `None` when
/// the runner's own command already says it all.
pub(crate) fn header(root: Option<&str>, subprojects: &[(String, String)]) -> Option<String> {
    let (first, rest) = match root {
        Some(root) => (root, subprojects),
        None => {
            let (_, first) = subprojects.first()?;
            if subprojects.iter().all(|(_, prefix)| prefix == first) {
                return Some(first.clone());
            }
            let all: Vec<String> = subprojects
                .iter()
                .map(|(folder, prefix)| format!("{folder}/: {prefix}"))
                .collect();
            return Some(all.join("; "));
        }
    };
    let differing: Vec<String> = rest
        .iter()
        .filter(|(_, prefix)| prefix != first)
        .map(|(folder, prefix)| format!("{folder}/: {prefix}"))
        .collect();
    (!differing.is_empty()).then(|| format!("{first}; {}", differing.join("; ")))
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
/// Go root; python: a pyproject.toml whose project has tests or tasks). The root's failure
/// fails the runner; a subproject's is a note, and one where the runner finds nothing (a
/// pyproject.toml with no `[tool.tox]`) is passed over. The subprojects read within one
/// [`ReadBudget`]; past it, the rest are left out with a note. `what` names the runner's
/// tasks and `patterns` its patterns, for notes.
pub(crate) fn with_subprojects(
    ctx: &Context<'_>,
    here: fn(&Context<'_>, &Inside<'_>) -> Result<Runner, Absence>,
    task_file: impl Fn(&Path) -> Option<String>,
    (what, patterns): (&str, &str),
) -> Result<Runner, Absence> {
    let root = here(ctx, &Inside::new(ctx.root, &ReadBudget::unbounded()));
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
    let budget = ReadBudget::subprojects();
    let root_prefix = runner.as_ref().map(|r| r.command_prefix.clone());
    let mut prefixes = Vec::new();
    for (at, (folder, _)) in found.list.iter().enumerate() {
        let dir = ctx.root.join(folder);
        let sub_ctx = Context { root: &dir, ..*ctx };
        let inside = Inside::new(&dir, &budget);
        let sub = here(&sub_ctx, &inside);
        if inside.spent() {
            notes.push(spent_note(folder, found.list.len() - at - 1));
            break;
        }
        let sub = match sub {
            Ok(sub) if sub.tasks.is_empty() => continue,
            Ok(sub) => sub,
            Err(Absence::Absent(_)) => continue,
            Err(Absence::Failed(err)) => {
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
        let prefix = sub.command_prefix.clone();
        if add(runner, folder, sub, patterns) {
            prefixes.push((folder.clone(), prefix));
        }
    }
    notes.extend(found.note());
    if let Some(runner) = &mut runner
        && let Some(header) = header(root_prefix.as_deref(), &prefixes)
    {
        runner.command_prefix = header;
    }
    match runner {
        Some(mut runner) if !runner.tasks.is_empty() => {
            runner.notes.extend(notes);
            Ok(runner)
        }
        runner => {
            let mut all: Vec<String> = root_absent.into_iter().collect();
            all.extend(runner.into_iter().flat_map(|r| r.notes));
            all.extend(notes);
            Err(Absence::Absent(none_listed(what, &all)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::time::Duration;

    use crate::detection::Context;
    use crate::probe::{Probe, ProbeError};

    /// None of the runners tested here runs a probe.
    struct NoProbe;

    impl Probe for NoProbe {
        fn run(&self, argv: &[&str], _: &Path, _: Duration) -> Result<Vec<u8>, ProbeError> {
            Err(ProbeError::NotStarted {
                command: argv.join(" "),
                reason: "no probe runs in this test".into(),
            })
        }
    }

    /// The bytes this thread has read so far: `rchar` of `/proc/thread-self/io`, which
    /// counts every `read` the thread made, whatever read it.
    fn read_by_this_thread() -> u64 {
        let io = std::fs::read_to_string("/proc/thread-self/io").expect("/proc/thread-self/io");
        io.lines()
            .find_map(|l| l.strip_prefix("rchar: "))
            .and_then(|n| n.trim().parse().ok())
            .expect("rchar")
    }

    /// Property: 32 subprojects each holding a 3 MiB file (a package.json, a tox.ini, a
    /// noxfile.py, a pyproject.toml) cost one listing at most [`MAX_SUBPROJECT_BYTES`] of
    /// reading in all, whatever the runner: the first five are listed, and a note says which
    /// are not and why. (Before the shared budget, each runner read all 96 MiB.)
    #[test]
    fn subprojects_read_within_one_budget() {
        use std::os::unix::fs::PermissionsExt;
        let pad = "#".repeat(3 << 20);
        let padded_pkg = format!(r#"{{"scripts":{{"t":"echo t"}},"pad":"{pad}"}}"#);
        let small_pyproject = "[project]\nname = \"p\"\nversion = \"0\"\n";
        let tox_ini = format!("{pad}\n[tox]\nenv_list = lint\n\n[testenv:lint]\ncommands = ruff\n");
        let noxfile = format!("{pad}\nimport nox\n\n@nox.session\ndef lint(session):\n    pass\n");
        let pyproject = format!("{pad}\n{small_pyproject}\n[tool.pytest.ini_options]\n");
        // Per runner: its id, each subproject's files (name, text), the task each lists.
        type Case<'a> = (&'a str, Vec<(&'a str, &'a str)>, &'a str);
        let cases: [Case<'_>; 4] = [
            ("pkg", vec![("package.json", &padded_pkg)], "t"),
            (
                "tox",
                vec![("pyproject.toml", small_pyproject), ("tox.ini", &tox_ini)],
                "lint",
            ),
            (
                "nox",
                vec![
                    ("pyproject.toml", small_pyproject),
                    ("noxfile.py", &noxfile),
                ],
                "lint",
            ),
            ("python", vec![("pyproject.toml", &pyproject)], "test"),
        ];
        for (id, files, task) in cases {
            let dir = tempfile::tempdir().expect("temp dir");
            let bin = dir.path().join("bin");
            std::fs::create_dir(&bin).expect("bin");
            for tool in ["tox", "nox", "python3"] {
                let path = bin.join(tool);
                std::fs::write(&path, "").expect("write");
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
                    .expect("chmod");
            }
            let root = dir.path().join("project");
            for i in 0..32 {
                let folder = root.join(format!("s{i:02}"));
                std::fs::create_dir_all(&folder).expect("folder");
                for (name, text) in &files {
                    std::fs::write(folder.join(name), text).expect("write");
                }
            }
            let ctx = Context {
                root: &root,
                probe: &NoProbe,
                probe_timeout: Duration::from_secs(5),
                path_var: Some(bin.as_os_str()),
                inputs: None,
            };
            let def = crate::RUNNERS.iter().find(|d| d.id == id).expect("runner");
            let before = read_by_this_thread();
            let runner = (def.detect)(&ctx).unwrap_or_else(|err| panic!("{id}: {err:?}"));
            let read = read_by_this_thread() - before;
            // The five listed were read whole: the count sees them.
            assert!(
                (15 << 20..=MAX_SUBPROJECT_BYTES + (64 << 10)).contains(&read),
                "{id}: read {read} bytes"
            );
            // tox's on-demand `py` too.
            let names: Vec<&str> = runner
                .tasks
                .iter()
                .map(|t| t.name.as_str())
                .filter(|name| name.ends_with(&format!("/{task}")))
                .collect();
            let want: Vec<String> = (0..5).map(|i| format!("s{i:02}/{task}")).collect();
            assert_eq!(names, want, "{id}");
            assert!(
                runner.notes.iter().any(|n| n
                    == "subproject s05/ and the 26 after it are not listed: the subprojects' \
                        files would pass 16 MiB in all"),
                "{id}: {:#?}",
                runner.notes
            );
        }
    }

    /// Property: the header's command names each subproject's where it differs from the
    /// root's, and every one when there is no root and they differ.
    #[test]
    fn the_header_names_each_command_where_they_differ() {
        let subs = |list: &[(&str, &str)]| -> Vec<(String, String)> {
            list.iter()
                .map(|(f, p)| ((*f).to_owned(), (*p).to_owned()))
                .collect()
        };
        assert_eq!(header(Some("npm run"), &subs(&[("web", "npm run")])), None);
        assert_eq!(
            header(
                Some("npm run"),
                &subs(&[("docs", "yarn run"), ("web", "npm run")])
            )
            .as_deref(),
            Some("npm run; docs/: yarn run")
        );
        assert_eq!(
            header(None, &subs(&[("docs", "yarn run"), ("web", "npm run")])).as_deref(),
            Some("docs/: yarn run; web/: npm run")
        );
        assert_eq!(
            header(None, &subs(&[("docs", "npm run"), ("web", "npm run")])).as_deref(),
            Some("npm run")
        );
        assert_eq!(header(None, &[]), None);
    }
}
