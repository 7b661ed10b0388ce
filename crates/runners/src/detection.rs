//! Running every configured runner's detection, concurrently, and keeping why a runner is
//! missing.

use std::borrow::Cow;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use crate::probe::{Probe, find_on_path};
use crate::runner::{Runner, Task, TaskIndex};

/// What a runner's detection needs: the root, a way to run probes, and their deadline.
#[derive(Clone, Copy)]
pub struct Context<'a> {
    /// The project root (absolute).
    pub root: &'a Path,
    /// Runs listing commands.
    pub probe: &'a dyn Probe,
    /// Deadline of each probe.
    pub probe_timeout: Duration,
    /// The `PATH` binaries are looked up in.
    pub path_var: Option<&'a OsStr>,
    /// Where detection notes the files and folders it read, when someone listens.
    pub inputs: Option<&'a Inputs>,
}

/// The files and folders a detection read (for a folder: its list of entries), and the
/// environment variables it read, so a cache can tell when its answer is stale.
#[derive(Debug, Default)]
pub struct Inputs {
    paths: Mutex<Vec<PathBuf>>,
    vars: Mutex<Vec<String>>,
}

impl Inputs {
    /// Notes one path.
    pub fn add(&self, path: impl Into<PathBuf>) {
        self.paths
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(path.into());
    }

    /// Notes one environment variable by name.
    pub fn add_var(&self, name: &str) {
        self.vars
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(name.to_owned());
    }

    /// Every path and every variable name noted, each sorted, without repeats.
    pub fn into_parts(self) -> (Vec<PathBuf>, Vec<String>) {
        fn sorted<T: Ord>(list: Mutex<Vec<T>>) -> Vec<T> {
            let mut list = list
                .into_inner()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            list.sort();
            list.dedup();
            list
        }
        (sorted(self.paths), sorted(self.vars))
    }
}

impl std::fmt::Debug for Context<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("root", &self.root)
            .field("probe_timeout", &self.probe_timeout)
            .finish_non_exhaustive()
    }
}

impl Context<'_> {
    /// Notes a path detection depends on: a file read, or a folder whose entries matter
    /// (a missing path counts too: creating it changes the answer).
    pub fn depends_on(&self, path: impl Into<PathBuf>) {
        if let Some(inputs) = self.inputs {
            inputs.add(path);
        }
    }

    /// Notes `relative` under the root.
    pub fn depends_on_file(&self, relative: impl AsRef<Path>) {
        if self.inputs.is_some() {
            self.depends_on(self.root.join(relative));
        }
    }

    /// The environment variable `name` as this process has it, noted as an input: the
    /// listing a runner gives can depend on it (a makefile's `ifdef`, a Taskfile template,
    /// the toolchain `RUSTUP_TOOLCHAIN` pins), and it is not a file whose change shows.
    pub fn env_var(&self, name: &str) -> Option<std::ffi::OsString> {
        self.depends_on_env(name);
        std::env::var_os(name)
    }

    /// Notes the environment variable `name` as an input without reading it (a probe's tool
    /// reads it).
    pub fn depends_on_env(&self, name: &str) {
        if let Some(inputs) = self.inputs {
            inputs.add_var(name);
        }
    }

    /// Whether someone listens to [`Context::depends_on`] (so a costly path is worth
    /// building).
    pub fn records_inputs(&self) -> bool {
        self.inputs.is_some()
    }

    /// `Ok` when `binary` is on PATH, else the absence reason.
    pub fn needs_binary(&self, binary: &str) -> Result<(), Absence> {
        match self.find_binary(binary) {
            Some(_) => Ok(()),
            None => Err(Absence::Absent(format!("`{binary}` is not on PATH"))),
        }
    }

    /// The executable `binary` on PATH, as [`find_on_path`] finds it. Every PATH folder
    /// looked in becomes an input (installing the binary there changes the answer), and so
    /// does the binary found.
    pub fn find_binary(&self, binary: &str) -> Option<PathBuf> {
        let found = find_on_path(binary, self.path_var);
        if self.records_inputs() {
            for dir in self
                .path_var
                .map(std::env::split_paths)
                .into_iter()
                .flatten()
                .filter(|dir| dir.is_absolute())
            {
                let last = found.as_ref().is_some_and(|f| f.parent() == Some(&dir));
                self.depends_on(dir);
                if last {
                    break;
                }
            }
            if let Some(found) = &found {
                self.depends_on(found.canonicalize().unwrap_or_else(|_| found.clone()));
            }
        }
        found
    }

    /// Runs a probe in the root; a failure makes the runner failed with the probe's reason.
    pub fn probe(&self, argv: &[&str]) -> Result<Vec<u8>, Absence> {
        self.probe_with_env(argv, &[])
    }

    /// Like [`Context::probe_with_env`], run in `dir` (a subproject's folder) instead of
    /// the root.
    pub fn probe_in(
        &self,
        dir: &Path,
        argv: &[&str],
        env: &[(&str, &str)],
    ) -> Result<Vec<u8>, Absence> {
        self.probe
            .run_with_env(argv, env, dir, self.probe_timeout)
            .map_err(|err| Absence::Failed(err.to_string()))
    }

    /// Like [`Context::probe`] with variables added to the probe's environment.
    pub fn probe_with_env(&self, argv: &[&str], env: &[(&str, &str)]) -> Result<Vec<u8>, Absence> {
        self.probe
            .run_with_env(argv, env, self.root, self.probe_timeout)
            .map_err(|err| Absence::Failed(err.to_string()))
    }
}

/// Why a runner is not detected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Absence {
    /// Nothing to detect: no manifest, no binary, no tasks.
    Absent(String),
    /// There was something to detect and it went wrong: a probe failed, a manifest is
    /// broken.
    Failed(String),
}

/// Finds the task a pattern of the runner matches: its index in the runner's tasks and the
/// command that runs it under the name given.
pub(crate) type PatternFn = fn(&Runner, &str) -> Option<(usize, String)>;

/// A runner's entry in the registration table: how it is found, and every way it differs
/// from the others once found. Everything runner-specific lives here, in the runner's own
/// file; code outside names no runner id. Start from [`RunnerDef::BASE`]:
/// `RunnerDef { id: "x", label: "X", executes: "…", detect, ..RunnerDef::BASE }`.
#[derive(Debug, Clone, Copy)]
pub struct RunnerDef {
    /// Fixed id.
    pub id: &'static str,
    /// Display label.
    pub label: &'static str,
    /// What detecting it may execute, in one line, for `recipe list --explain` and the
    /// docs: a repository is untrusted, so a user can check what reading one runs.
    pub executes: &'static str,
    /// The files whose presence in a folder makes it a project of this runner, so that a
    /// command run in a subfolder finds its root the way the runner would.
    pub manifests: &'static [&'static str],
    /// Finds the runner and its tasks in a project.
    pub detect: fn(&Context<'_>) -> Result<Runner, Absence>,
    /// A task that a name no task has still selects, with the command that runs it under
    /// that name (go-task's wildcard tasks); `None` for runners without patterns.
    pub pattern: Option<PatternFn>,
    /// The command that runs a task when words follow its name, from the command
    /// [`Runner::find`] gave (just adds `--one`).
    pub with_words: for<'c> fn(&Task, &'c str) -> Cow<'c, str>,
    /// Whether a task is one of the runner's own commands (cargo's `test`) rather than the
    /// project's; a task of the same name in another runner wins over it.
    pub is_builtin: fn(&Task) -> bool,
    /// Whether a task is one a developer rarely types: a lifecycle hook that runs by
    /// itself around others (npm's `prepare`, `pretest`), a target that exists only under
    /// a condition make decides. Such tasks are shown last and never as examples.
    /// The tasks by name ([`TaskIndex`]) answer the runners whose asides depend on their
    /// siblings without a scan of every task.
    pub is_aside: fn(&TaskIndex<'_>, &Task) -> bool,
    /// Whether a task stands for a pattern (`release:*`, `test-%`) that [`RunnerDef::pattern`]
    /// matches: its command shows the pattern (`make test-<stem>`) and is never run as it
    /// is, an op names one of its matches, and it gets no allowance of its own.
    pub is_pattern: fn(&Task) -> bool,
    /// Which words an agent's allowance lets follow the task's command.
    pub arguments: fn(&Runner, &Task) -> Arguments,
    /// How the prompt tells a model where the words after a task's name go.
    pub words: Words,
    /// For a runner whose manifest can include other files (make's `include`, just's
    /// `import`): the files a manifest's text names, relative to its folder, whether they
    /// exist or not. An attempt freezes them with the manifest.
    pub included: Option<fn(&str) -> Vec<String>>,
    /// The folders outside the project the runner's tools write when a task runs (a build
    /// cache, a download cache), which an agent's own sandbox must leave writable.
    pub caches: &'static [Cache],
    /// How a command line of `program` (the runner's own, as its tasks' commands start)
    /// names another folder to run in (`make -C DIR`, `just -f DIR/justfile`), so that a
    /// documented line reaches a subproject's task; none for another program.
    pub folder_options: fn(&str) -> &'static [FolderOption],
    /// How long detecting it takes when it runs the runner's own program, by rank: 0 for a
    /// runner read as text, higher for a slower probe. [`detect_all`] starts the slowest
    /// first, so that on a machine with fewer cores than runners the probe a cold listing
    /// waits for is not the last to get one.
    pub probe_cost: u8,
}

/// One way a runner's command line names the folder it runs in, right after the program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FolderOption {
    /// An option whose value is the folder (`-C DIR`, `--dir=DIR`, `-CDIR` when short).
    Dir(&'static str),
    /// An option whose value is a file in the folder (`-f DIR/justfile`).
    FileIn(&'static str),
    /// A first argument `DIR/NAME` runs `NAME` from `DIR` (`just web/e2e`).
    PathArgument,
}

/// A folder a runner's tools write outside the project: the first of `variables` that is
/// set (with its `suffix` joined), else `default`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cache {
    /// Variables that name it, in the order the tool reads them, each with the path inside
    /// the folder it names (`("GOPATH", "pkg/mod")`); `""` for the folder itself.
    pub variables: &'static [(&'static str, &'static str)],
    /// Where it is when no variable says.
    pub default: CacheDefault,
}

/// Where a cache is by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheDefault {
    /// Under the user's cache folder (`$XDG_CACHE_HOME`, else `~/.cache`).
    UserCache(&'static str),
    /// Under the user's data folder (`$XDG_DATA_HOME`, else `~/.local/share`).
    UserData(&'static str),
    /// Under the home folder.
    Home(&'static str),
}

impl Cache {
    /// The folder, with the environment `var` and the home folder `home`; `None` when
    /// neither a variable nor a home folder says where.
    pub fn path(
        &self,
        var: &dyn Fn(&str) -> Option<PathBuf>,
        home: Option<&Path>,
    ) -> Option<PathBuf> {
        // Relative values are ignored, as the tools ignore (or refuse) them.
        let absolute = |name: &str| var(name).filter(|p| p.is_absolute());
        for (name, suffix) in self.variables {
            if let Some(dir) = absolute(name) {
                return Some(if suffix.is_empty() {
                    dir
                } else {
                    dir.join(suffix)
                });
            }
        }
        let under = |variable: &str, fallback: &str, rest: &str| {
            absolute(variable)
                .or_else(|| home.map(|h| h.join(fallback)))
                .map(|base| base.join(rest))
        };
        match self.default {
            CacheDefault::UserCache(rest) => under("XDG_CACHE_HOME", ".cache", rest),
            CacheDefault::UserData(rest) => under("XDG_DATA_HOME", ".local/share", rest),
            CacheDefault::Home(rest) => home.map(|h| h.join(rest)),
        }
    }
}

impl RunnerDef {
    /// The defaults: no manifest, nothing detected, no patterns or built-ins, words as
    /// written, allowances exact.
    pub const BASE: RunnerDef = RunnerDef {
        id: "",
        label: "",
        executes: "",
        manifests: &[],
        detect: |_| Err(Absence::Absent("not a runner".into())),
        pattern: None,
        with_words: |_, command| Cow::Borrowed(command),
        is_builtin: |_| false,
        is_aside: |_, _| false,
        is_pattern: |_| false,
        arguments: |_, _| Arguments::Exact,
        words: Words::AsWritten,
        included: None,
        caches: &[],
        folder_options: |_| &[],
        probe_cost: 0,
    };

    /// Whether a file named `name` is one of this runner's manifests (in any case: just
    /// reads `JUSTFILE`, and on a case-insensitive disk so do the others).
    pub fn reads_file(&self, name: &str) -> bool {
        self.manifests.iter().any(|m| m.eq_ignore_ascii_case(name))
    }

    /// The registered definition of the runner `id`.
    pub fn of(id: &str) -> Option<&'static RunnerDef> {
        crate::RUNNERS.iter().find(|def| def.id == id)
    }
}

/// Which arguments an agent's allowance admits after a task's command. A runner's own
/// options can read files or run code (`make --eval`, `npm --script-shell`, `cargo
/// --config`), so a rule admits words only where the runner hands them on unread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arguments {
    /// Only this command (`[commands] allow`, and tasks of runners that read their own
    /// options anywhere on the line, such as make).
    Exact,
    /// This command with any words after it: for runners that hand every word after the
    /// task's name to the task (pnpm, yarn, bun, and just for a recipe whose last parameter
    /// is variadic).
    WithArguments,
    /// This command alone, or with the given option of the runner put after the program's
    /// name and any words after the command: for a just recipe with parameters but none
    /// variadic, where just reads words past the parameters as more recipes to run unless
    /// `--one` forbids a second one.
    WithArgumentsAfterOption(&'static str),
    /// This command alone, or followed by `--` and any words: for runners that read their
    /// own options up to `--` and hand everything after it to the task (npm, go-task,
    /// cargo).
    AfterDashDash,
}

/// How the prompt describes the words after a task's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Words {
    /// They reach the task as written; nothing more to say.
    AsWritten,
    /// Words before `--` are the runner's own options, the program's go after it; the
    /// example argument is `test_argument` for a built-in `test`, `--verbose` otherwise.
    AfterDashDash {
        /// An argument the runner's own `test` takes after `--` (libtest's `--nocapture`).
        test_argument: &'static str,
    },
    /// Words after the target are more targets or `NAME=value` settings (make).
    Settings,
}

/// The outcome of one runner's detection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Detection {
    /// Found, with at least one task.
    Detected(Runner),
    /// Not there, with why.
    Absent {
        /// Runner id.
        id: &'static str,
        /// Why.
        reason: String,
    },
    /// There, but detection failed, with why.
    Failed {
        /// Runner id.
        id: &'static str,
        /// Why.
        reason: String,
    },
}

impl Detection {
    /// The runner id.
    pub fn id(&self) -> &'static str {
        match self {
            Self::Detected(runner) => runner.id,
            Self::Absent { id, .. } | Self::Failed { id, .. } => id,
        }
    }
}

/// Detects the runners named in `ids` (unknown ids are skipped), all at once on their own
/// threads so the wall time is that of the slowest probe. Results come in the order of
/// `ids`; a runner's failure or panic never hides another.
pub fn detect_all(ctx: &Context<'_>, ids: &[impl AsRef<str>]) -> Vec<Detection> {
    let defs: Vec<&RunnerDef> = ids
        .iter()
        .filter_map(|id| crate::RUNNERS.iter().find(|def| def.id == id.as_ref()))
        .collect();
    // Started slowest probe first; joined in the order of `ids`.
    let mut start: Vec<usize> = (0..defs.len()).collect();
    start.sort_by_key(|&i| std::cmp::Reverse(defs[i].probe_cost));
    std::thread::scope(|scope| {
        let mut handles: Vec<_> = start
            .into_iter()
            .map(|i| {
                let def = defs[i];
                (i, scope.spawn(move || detect_one(def, ctx)))
            })
            .collect();
        handles.sort_by_key(|(i, _)| *i);
        handles
            .into_iter()
            .map(|(i, handle)| {
                handle.join().unwrap_or_else(|_| Detection::Failed {
                    id: defs[i].id,
                    reason: "detection panicked".into(),
                })
            })
            .collect()
    })
}

/// Like [`detect_all`], and also every file and folder the detections read (the root always
/// among them) and the names of the environment variables they read.
pub fn detect_all_with_inputs(
    ctx: &Context<'_>,
    ids: &[impl AsRef<str>],
) -> (Vec<Detection>, Vec<PathBuf>, Vec<String>) {
    let inputs = Inputs::default();
    inputs.add(ctx.root);
    let recording = Context {
        inputs: Some(&inputs),
        ..*ctx
    };
    let detections = detect_all(&recording, ids);
    let (paths, vars) = inputs.into_parts();
    (detections, paths, vars)
}

fn detect_one(def: &RunnerDef, ctx: &Context<'_>) -> Detection {
    match (def.detect)(ctx) {
        Ok(runner) if runner.tasks.is_empty() => Detection::Absent {
            id: def.id,
            reason: match runner.notes.first() {
                Some(note) => format!("no tasks ({note})"),
                None => "no tasks".into(),
            },
        },
        Ok(runner) => Detection::Detected(runner),
        Err(Absence::Absent(reason)) => Detection::Absent { id: def.id, reason },
        Err(Absence::Failed(reason)) => Detection::Failed { id: def.id, reason },
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Barrier};

    use super::*;
    use crate::probe::ProbeError;

    #[test]
    fn a_cache_is_where_its_variables_say_else_under_home() {
        let go_mod = Cache {
            variables: &[("GOMODCACHE", ""), ("GOPATH", "pkg/mod")],
            default: CacheDefault::Home("go/pkg/mod"),
        };
        let build = Cache {
            variables: &[("GOCACHE", "")],
            default: CacheDefault::UserCache("go-build"),
        };
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| PathBuf::from(v))
            }
        };
        let home = Some(Path::new("/h"));
        let path = |cache: &Cache, pairs| cache.path(&env(pairs), home);
        assert_eq!(path(&go_mod, &[]), Some(PathBuf::from("/h/go/pkg/mod")));
        assert_eq!(
            path(&go_mod, &[("GOPATH", "/g"), ("GOMODCACHE", "/m")]),
            Some(PathBuf::from("/m"))
        );
        assert_eq!(
            path(&go_mod, &[("GOPATH", "/g")]),
            Some(PathBuf::from("/g/pkg/mod"))
        );
        // A relative value is no place: the default stands.
        assert_eq!(
            path(&build, &[("GOCACHE", "rel")]),
            Some(PathBuf::from("/h/.cache/go-build"))
        );
        assert_eq!(
            path(&build, &[("XDG_CACHE_HOME", "/x")]),
            Some(PathBuf::from("/x/go-build"))
        );
        assert_eq!(build.path(&env(&[]), None), None);
    }

    /// A probe that only answers once all three probing runners are inside it at the same
    /// time, so it can only succeed when detection runs them concurrently.
    struct MeetingProbe {
        barrier: Arc<Barrier>,
    }

    impl Probe for MeetingProbe {
        fn run(&self, argv: &[&str], _: &Path, _: Duration) -> Result<Vec<u8>, ProbeError> {
            self.barrier.wait();
            let json: &[u8] = match argv[0] {
                "just" => br#"{"recipes":{"a":{"parameters":[]}}}"#,
                "cargo" => br#"{"packages":[{"name":"p","id":"p","targets":[{"name":"p","kind":["bin"]}]}],"workspace_members":["p"]}"#,
                "task" => br#"{"tasks":[{"name":"t","task":"t"}]}"#,
                other => {
                    return Err(ProbeError::NotStarted {
                        command: argv.join(" "),
                        reason: format!("unexpected probe {other}"),
                    });
                }
            };
            Ok(json.to_vec())
        }

        fn run_with_env(
            &self,
            argv: &[&str],
            _: &[(&str, &str)],
            cwd: &Path,
            timeout: Duration,
        ) -> Result<Vec<u8>, ProbeError> {
            self.run(argv, cwd, timeout)
        }
    }

    /// Property: probes run at the same time, not one after another.
    #[test]
    fn probes_overlap() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("temp dir");
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).expect("bin");
        for name in ["just", "cargo", "task"] {
            let path = bin.join(name);
            std::fs::write(&path, "").expect("write");
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        let root = dir.path().join("project");
        std::fs::create_dir(&root).expect("root");
        for file in ["justfile", "Cargo.toml", "Taskfile.yml"] {
            std::fs::write(root.join(file), "").expect("manifest");
        }
        let probe = MeetingProbe {
            barrier: Arc::new(Barrier::new(3)),
        };
        let ctx = Context {
            root: &root,
            probe: &probe,
            probe_timeout: Duration::from_secs(5),
            path_var: Some(bin.as_os_str()),
            inputs: None,
        };
        let got: Vec<(&str, usize)> = detect_all(&ctx, crate::RUNNER_IDS)
            .iter()
            .map(|d| match d {
                Detection::Detected(r) => (r.id, r.tasks.len()),
                other => (other.id(), 0),
            })
            .collect();
        assert_eq!(
            got,
            [
                ("just", 1),
                ("pkg", 0),
                ("cargo", 8),
                ("make", 0),
                ("task", 1),
                ("python", 0),
                ("tox", 0),
                ("nox", 0),
                ("go", 0),
                ("scripts", 0),
                ("mise", 0),
                ("deno", 0),
                ("composer", 0),
                ("pixi", 0),
            ]
        );
    }
}
