//! `python`: a Python project's tests (pytest or unittest, run with the interpreter its
//! package manager chooses), its poe, pdm and hatch tasks, and its entry points, all read
//! from its files: no Python code runs to list them (`setup.py` is read as text).
//!
//! Arguments, measured with a script printing `sys.argv` (poe 0.49, pdm 2.29, hatch 1.18,
//! uv 0.13, poetry 2.5, pytest 9.2):
//! - `poe NAME a -- --x -v -C /tmp --help` hands every word to a `cmd` or `script` task as
//!   written, a leading `--` too; poe reads its own options only before the task's name.
//!   Sequence and shell tasks drop the words (exit 0).
//! - `pdm run NAME -v --list -s` hands every word on, except a `--` right after the name,
//!   which pdm drops (`pdm run NAME -- a` gives `a`); after `pdm run --` nothing is dropped.
//! - `hatch run NAME a` drops words unless the script says `{args}`, formats them (`{env:HOME}`
//!   becomes the variable, `{root}` the project) and click removes the first `--` anywhere
//!   (`hatch run python x.py -- a` gives `a`); after `hatch run --` the later ones stay.
//! - `uv run pytest -v --help -- a` hands every word after the command on.
//! - `poetry run python x.py -v --help` reads `--help` (and `-C`, `-P`) as poetry's own;
//!   `poetry run -- python x.py --help -- a -C x` hands all of them on.
//! - `pytest -- --basetemp=/x` reads `--basetemp=/x` as a path, not the option (which
//!   would delete that folder).
//! - `hatch test` (hatch 1.18.2, in a throwaway project) runs `pytest -p no:randomly tests`
//!   in hatch's `hatch-test` environment: `tests` is the env's `default-args`, hatch's
//!   default when the project sets none, so tests kept elsewhere fail with "file or
//!   directory not found: tests". `hatch test a -k b` runs `pytest -p no:randomly a -k b`
//!   (words replace `tests`, unknown options are handed on), but hatch reads its own
//!   options anywhere among the words (`a -x` is its `--exclude`, which then wants a value;
//!   `-p` its `--parallel`, `-c` coverage, `--help` its help); after `hatch test --` every
//!   word reaches pytest as an option (`--basetemp=/x`, `-p plugin`), a later `--` kept;
//!   and the words are formatted as `hatch run`'s are, after `--` too (`{env:HOME}`
//!   becomes the variable, `{root}` the project).
//!
//! So every launcher that would read or drop a word is followed by `--`, the tail rule drops
//! the op's own leading `--` (as for pnpm), and allowances admit words only where they
//! reach the task unread: poe, pdm and entry points any words; pytest only after `--`
//! (test paths and node ids); unittest, hatch scripts and `hatch test` none.

use crate::detection::{Absence, Arguments, Cache, CacheDefault, Context, RunnerDef};
use crate::files::{self, MAX_MANIFEST};
use crate::quote::quote;
use crate::runner::{Runner, TailRule, Task, TaskIndex};
use crate::subprojects::Inside;

mod builtin_test;
mod launcher;
mod manifest;

use builtin_test::{HatchPlan, pytest_in_tox_ini, pytest_test_file, test_task};
pub(crate) use launcher::tox_launcher;
use launcher::{Launcher, launcher};
use manifest::{
    HatchEnvs, Pyproject, Script, ini_has_section, is_pytest, parse_hatch_toml, parse_pyproject,
    parse_requirements, parse_setup_cfg, parse_setup_py, read_manifest, requirements_files,
};

/// The caches of Python's installers: uv's (`uv run`, `uv sync`) and pip's (a tox or nox
/// environment being made).
pub(crate) const PYTHON_CACHES: &[Cache] = &[
    Cache {
        variables: &[("UV_CACHE_DIR", "")],
        default: CacheDefault::UserCache("uv"),
    },
    Cache {
        variables: &[("PIP_CACHE_DIR", "")],
        default: CacheDefault::UserCache("pip"),
    },
    // hatch's environments (`env/virtual`) and its downloads: `hatch run` makes them.
    Cache {
        variables: &[("HATCH_DATA_DIR", "")],
        default: CacheDefault::UserData("hatch"),
    },
    Cache {
        variables: &[("HATCH_CACHE_DIR", "")],
        default: CacheDefault::UserCache("hatch"),
    },
    // hatch writes its configuration file at its first run (hatch 1.18).
    Cache {
        variables: &[],
        default: CacheDefault::Home(".config/hatch"),
    },
];

pub(crate) const RUNNER: RunnerDef = RunnerDef {
    id: "python",
    label: "Python",
    executes: "nothing: pyproject.toml, hatch.toml, setup.cfg, setup.py (never run), tox.ini, pytest.ini and requirements files are read as text, and so are the first 16 test files of the root, tests/ and test/ (64 KiB of each) when nothing else names pytest; lockfiles, conftest.py and the project's .venv are only looked for. Running a task may create or sync an environment: `uv run` installs the locked packages (and may download a Python), `poetry run`, `pdm run` and `hatch run` create the project's environment (hatch and pdm also install into it), and `hatch test` creates hatch's test environment and installs pytest and its plugins into it",
    manifests: MANIFESTS,
    detect,
    is_builtin,
    is_aside: is_hook,
    arguments,
    caches: PYTHON_CACHES,
    ..RunnerDef::BASE
};

/// The most requirements files read.
const MAX_REQUIREMENTS_FILES: usize = 32;

/// Whether `task` is the runner's own `test` (pytest, unittest or `hatch test`) rather
/// than a task of the project: a `test` of another runner wins over it.
fn is_builtin(task: &Task) -> bool {
    // A subproject's (`bindings/test`, run in its folder) yields to another runner's
    // `bindings/test` as the root's yields to `test`.
    let test = task.name == "test" || (task.cwd.is_some() && task.name.ends_with("/test"));
    test && (task.command.ends_with("pytest")
        || task.command.contains(" -m unittest discover")
        || is_hatch_test(&task.command))
}

/// Whether a command is `hatch test`, alone or with the folder it runs.
fn is_hatch_test(command: &str) -> bool {
    command == "hatch test" || command.starts_with("hatch test ")
}

/// pdm runs `pre_NAME` and `post_NAME` around `NAME`, and its own hooks around its commands.
fn is_hook(tasks: &TaskIndex<'_>, task: &Task) -> bool {
    if !task.command.starts_with("pdm run -- ") {
        return false;
    }
    const PDM_HOOKS: &[&str] = &[
        "install", "lock", "build", "publish", "script", "run", "init", "use",
    ];
    ["pre_", "post_"].iter().any(|prefix| {
        task.name.strip_prefix(prefix).is_some_and(|rest| {
            PDM_HOOKS.contains(&rest)
                || tasks
                    .get(rest)
                    .is_some_and(|t| t.command.starts_with("pdm run -- "))
        })
    })
}

fn arguments(_: &Runner, task: &Task) -> Arguments {
    if task.command.ends_with(" -m unittest discover") || task.command.contains(" -m unittest ") {
        Arguments::Exact
    } else if is_hatch_test(&task.command) {
        // hatch reads its own options among the words and formats them all.
        Arguments::Exact
    } else if is_builtin(task) {
        Arguments::AfterDashDash
    } else if task.command.starts_with("hatch ") {
        Arguments::Exact
    } else {
        Arguments::WithArguments
    }
}

/// The files that make a folder a Python project: its packaging files, or pytest's own
/// configuration (a project of scripts and tests has nothing else).
const MANIFESTS: &[&str] = &[
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "pytest.ini",
    ".pytest.ini",
    "pytest.toml",
    ".pytest.toml",
];

/// The project in the root and, as subprojects, the Python projects of the folders right
/// below it (a Rust root's `py-polars/` or `bindings/`, with its own pyproject.toml) where
/// this runner lists a test or a task, run in that folder as `cd bindings && poe lint` runs.
fn detect(ctx: &Context<'_>) -> Result<Runner, Absence> {
    let task_file = |dir: &std::path::Path| {
        MANIFESTS
            .iter()
            .find(|name| files::exists(&dir.join(name)))
            .map(|name| (*name).to_owned())
    };
    crate::subprojects::with_subprojects(ctx, detect_here, task_file, ("test or task", "patterns"))
}

/// The tests and tasks of the Python project in `ctx.root` (the root, or a subproject's
/// folder), its files read through `inside`.
#[expect(
    clippy::too_many_lines,
    reason = "over 80 lines when the limit was set; split it when it next changes"
)]
fn detect_here(ctx: &Context<'_>, inside: &Inside<'_>) -> Result<Runner, Absence> {
    let root = ctx.root;
    for file in [
        "pyproject.toml",
        "setup.py",
        "setup.cfg",
        "hatch.toml",
        "tox.ini",
        "pytest.ini",
        ".pytest.ini",
        "pytest.toml",
        ".pytest.toml",
        "uv.lock",
        "poetry.lock",
        "pdm.lock",
        "conftest.py",
        "tests",
        "test",
        "requirements",
        ".venv",
        ".venv/bin",
        "venv",
        "venv/bin",
    ] {
        ctx.depends_on_file(file);
    }
    if !MANIFESTS.iter().any(|m| files::exists(&root.join(m))) {
        return Err(Absence::Absent(
            "no pyproject.toml, setup.py, setup.cfg or pytest.ini in the root".into(),
        ));
    }
    let mut notes = Vec::new();
    let read = |name: &str, notes: &mut Vec<String>| read_manifest(inside, root, name, notes);
    // pyproject.toml is the project's description: when it cannot be read, nothing said of
    // the project can be trusted.
    let pyproject = match files::exists(&root.join("pyproject.toml")) {
        true => {
            let bytes = inside
                .read(&root.join("pyproject.toml"), MAX_MANIFEST)
                .map_err(|err| Absence::Failed(format!("pyproject.toml: {err}")))?;
            let text = String::from_utf8_lossy(&bytes);
            parse_pyproject(&text)
                .map_err(|err| Absence::Failed(format!("pyproject.toml: {err}")))?
        }
        false => Pyproject::default(),
    };
    let mut requirements: Vec<(&str, String)> = pyproject
        .requirements
        .iter()
        .map(|r| ("pyproject.toml", r.clone()))
        .collect();
    // hatch.toml's envs, then pyproject's (the scripts of both are listed).
    let mut hatch: Vec<(&str, HatchEnvs)> = Vec::new();
    let hatch_toml = files::exists(&root.join("hatch.toml"));
    if let Some(text) = read("hatch.toml", &mut notes) {
        match parse_hatch_toml(&text) {
            Ok(envs) => {
                requirements.extend(envs.requirements.iter().map(|r| ("hatch.toml", r.clone())));
                hatch.push(("hatch.toml", envs));
            }
            Err(err) => notes.push(format!("hatch.toml: {err}")),
        }
    }
    if let Some(envs) = &pyproject.hatch {
        hatch.push(("pyproject.toml", envs.clone()));
    }
    let hatch_scripts: Vec<(String, Script)> = hatch
        .iter()
        .flat_map(|(_, envs)| envs.scripts.iter().cloned())
        .collect();
    let hatch_plan = HatchPlan::of(&hatch, &pyproject);

    // Where pytest is configured, or why it is the test runner.
    let mut pytest_why = pyproject.pytest_config.map(str::to_owned);
    if let Some(text) = read("setup.cfg", &mut notes) {
        if pytest_why.is_none() && ini_has_section(&text, "tool:pytest") {
            pytest_why = Some("`[tool:pytest]` in setup.cfg".into());
        }
        requirements.extend(parse_setup_cfg(&text).into_iter().map(|r| ("setup.cfg", r)));
    }
    let tox_ini = read("tox.ini", &mut notes);
    if let Some(text) = &tox_ini
        && pytest_why.is_none()
        && ini_has_section(text, "pytest")
    {
        pytest_why = Some("`[pytest]` in tox.ini".into());
    }
    for name in ["pytest.ini", ".pytest.ini", "pytest.toml", ".pytest.toml"] {
        if pytest_why.is_none() && files::exists(&root.join(name)) {
            pytest_why = Some(name.to_owned());
        }
    }
    for name in ["conftest.py", "tests/conftest.py", "test/conftest.py"] {
        ctx.depends_on_file(name);
        if pytest_why.is_none() && files::exists(&root.join(name)) {
            pytest_why = Some(name.to_owned());
        }
    }
    if pytest_why.is_none()
        && let Some((file, found)) = requirements.iter().find(|(_, r)| is_pytest(r))
    {
        pytest_why = Some(format!("`{}` in {file}", found.trim()));
    }
    if pytest_why.is_none()
        && let Some(text) = read("setup.py", &mut notes)
        && let Some(found) = parse_setup_py(&text).iter().find(|r| is_pytest(r))
    {
        pytest_why = Some(format!("`{found}` in setup.py"));
    }
    if pytest_why.is_none() {
        for (name, text) in requirements_files(ctx, inside, &mut notes) {
            if let Some(found) = parse_requirements(&text).iter().find(|r| is_pytest(r)) {
                pytest_why = Some(format!("`{found}` in {name}"));
                break;
            }
        }
    }
    if pytest_why.is_none()
        && let Some(file) = hatch_plan.test_env
    {
        pytest_why = Some(format!("{file}: hatch's test environment runs pytest"));
    }
    if pytest_why.is_none()
        && let Some(text) = &tox_ini
    {
        match pytest_in_tox_ini(text) {
            Ok(found) => pytest_why = found,
            Err(err) => notes.push(format!("tox.ini: {err}")),
        }
    }
    if pytest_why.is_none() {
        pytest_why = pytest_test_file(ctx, inside, &mut notes);
    }

    let hatch_project = hatch_toml || pyproject.hatch.is_some();
    let (launcher, launcher_why) = launcher(ctx, hatch_project, &mut notes)?;
    let mut runner = Runner::new("python", "Python", launcher.prefix().unwrap_or("python3"));
    runner.tail_rule = TailRule::NoLeadingDashDash;
    runner.notes.push(format!(
        "interpreter: {} ({launcher_why})",
        match &launcher {
            Launcher::Venv(dir) => format!("{dir}/bin/python"),
            Launcher::System { .. } => "python3 from PATH".into(),
            other => other.prefix().unwrap_or_default().to_owned(),
        }
    ));

    // The project's own tasks come first in the name check, so its `test` wins.
    let mut own: Vec<Task> = Vec::new();
    let has = |tool: &str, notes: &mut Vec<String>, what: &str| -> bool {
        if ctx.find_binary(tool).is_some() {
            return true;
        }
        notes.push(format!("{what} are left out: `{tool}` is not on PATH"));
        false
    };
    if !pyproject.poe.is_empty() && has("poe", &mut notes, "poe tasks") {
        for script in &pyproject.poe {
            if let Some(name) = nameable(&script.name, "poe task", &mut notes) {
                own.push(task(
                    name,
                    format!("poe {}", quote(name)),
                    script.doc.clone(),
                ));
            }
        }
    }
    if !pyproject.pdm.is_empty() && has("pdm", &mut notes, "pdm scripts") {
        for script in &pyproject.pdm {
            if let Some(name) = nameable(&script.name, "pdm script", &mut notes) {
                own.push(task(
                    name,
                    format!("pdm run -- {}", quote(name)),
                    script.doc.clone(),
                ));
            }
        }
    }
    if !hatch_scripts.is_empty() && has("hatch", &mut notes, "hatch scripts") {
        for (env, script) in &hatch_scripts {
            let Some(name) = nameable(&script.name, "hatch script", &mut notes) else {
                continue;
            };
            // hatch reads `ENV:NAME` (the last colon splits), and `+`/`-` first as a matrix
            // selection.
            if name.contains(':') || name.starts_with('+') {
                notes.push(format!(
                    "hatch script `{name}` is left out: hatch would read it as an environment or matrix selection"
                ));
                continue;
            }
            if env == "default" {
                own.push(task(name, format!("hatch run -- {}", quote(name)), None));
            } else if env.contains(':') || env.starts_with(['-', '+']) || env.is_empty() {
                notes.push(format!(
                    "hatch env `{env}` is left out: hatch cannot name it in `ENV:SCRIPT`"
                ));
            } else {
                own.push(task(
                    &format!("{env}/{name}"),
                    format!("hatch run -- {}", quote(&format!("{env}:{name}"))),
                    Some(format!("hatch env {env}")),
                ));
            }
        }
    }

    let own_test = own.iter().any(|t| t.name == "test");
    // `uv run pytest` finds no pytest when only a group or extra uv does not install
    // names it (ruff: it built the Rust extension, then failed), and so do `poetry run` and
    // `pdm run` when only what their install leaves out names it: no `test` that cannot run.
    let uv_lacks_pytest = match (&launcher, own_test) {
        (_, true) => None,
        (Launcher::Uv, false) => pyproject.pytest_outside_uv_run.as_ref().map(|option| {
            format!("`uv run` does not install it (`uv run {option} pytest` would run it)")
        }),
        (Launcher::Poetry, false) => pyproject.pytest_outside_poetry_run.as_ref().map(|option| {
            format!("`poetry install` does not install it (`poetry install {option}` would)")
        }),
        (Launcher::Pdm, false) => pyproject.pytest_outside_pdm_run.as_ref().map(|option| {
            // Measured with pdm 2.29.4: `pdm install -G NAME` refuses a group its pdm.lock
            // was locked without ("Requested groups not in lockfile").
            format!(
                "`pdm install` does not install it (`pdm install {option}` would, once \
                 pdm.lock holds that group: `pdm lock {option}`)"
            )
        }),
        _ => None,
    };
    if let Some(why) = &uv_lacks_pytest {
        // First: a runner left with no task says this as its reason.
        runner
            .notes
            .insert(0, format!("no `test`: pytest is named only where {why}"));
    }
    match test_task(ctx, &launcher, pytest_why.as_deref(), &hatch_plan)
        .filter(|_| uv_lacks_pytest.is_none())
    {
        Some(_) if own_test => runner.notes.push(
            "`test` is the project's own task; the built-in pytest/unittest `test` is not listed"
                .into(),
        ),
        Some((task, why)) => {
            runner.notes.push(format!("test: {why}"));
            runner.push_task(task);
        }
        None if uv_lacks_pytest.is_some() => {}
        None => runner.notes.push(
            "no `test`: no pytest configuration, conftest.py or pytest dependency, and no \
             test*.py file in the root, tests/ or test/"
                .into(),
        ),
    }
    for task in own {
        runner.push_task(task);
    }
    for name in &pyproject.entry_points {
        let Some(name) = nameable(name, "entry point", &mut notes) else {
            continue;
        };
        match launcher.entry_point(name) {
            Some(command) => {
                if let Launcher::Venv(dir) = launcher {
                    let path = format!("{dir}/bin/{name}");
                    ctx.depends_on_file(&path);
                    if !files::exists(&root.join(&path)) {
                        notes.push(format!(
                            "entry point `{name}` is left out: it is not installed in {dir}"
                        ));
                        continue;
                    }
                }
                runner.push_task(task(
                    &format!("run/{name}"),
                    command,
                    Some(format!("entry point {name}")),
                ));
            }
            None => notes.push(format!(
                "entry point `{name}` is left out: it exists only once the project is \
                 installed, and there is no lockfile or .venv to run it from"
            )),
        }
    }
    runner.notes.extend(notes);
    Ok(runner)
}

fn task(name: &str, command: String, doc: Option<String>) -> Task {
    Task {
        name: name.to_owned(),
        command,
        doc,
        params: Vec::new(),
        cwd: None,
    }
}

/// The name, unless the tool would read it as an option or keeps it private (`_name`, by
/// poe's and pdm's convention; left out without a note).
fn nameable<'a>(name: &'a str, what: &str, notes: &mut Vec<String>) -> Option<&'a str> {
    if name.starts_with('_') {
        return None;
    }
    if name.starts_with('-') {
        notes.push(format!(
            "{what} `{name}` is left out: the tool would read its name as an option"
        ));
        return None;
    }
    Some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Measured with pdm 2.29: `pdm run release` runs `pre_release`, `release` and
    /// `post_release` (after pdm's own `pre_run`); `pdm run pre_release` runs that alone.
    /// A `pre_deploy` with no `deploy` script and a `prerelease` (no underscore) run only
    /// when named: they are tasks like any other.
    #[test]
    fn pdm_hooks_are_asides() {
        let mut runner = Runner::new("python", "Python", "pdm run --");
        for name in [
            "pre_release",
            "release",
            "post_release",
            "post_install",
            "prerelease",
            "pre_deploy",
            "pre_",
        ] {
            runner.push_task(task(name, format!("pdm run -- {}", quote(name)), None));
        }
        // A poe task of a hook's shape is poe's, and poe runs no hooks.
        runner.push_task(task("pre_lint", "poe pre_lint".into(), None));
        runner.push_task(task("lint", "poe lint".into(), None));
        let asides: Vec<&str> = runner
            .tasks
            .iter()
            .filter(|t| runner.is_aside(t))
            .map(|t| t.name.as_str())
            .collect();
        assert_eq!(asides, ["pre_release", "post_release", "post_install"]);
    }

    #[test]
    #[expect(
        clippy::too_many_lines,
        reason = "over 80 lines when the limit was set; split it when it next changes"
    )]
    fn launcher_commands() {
        let cases = [
            (
                Launcher::Uv,
                "uv run pytest",
                "uv run python -m unittest discover -s tests",
            ),
            (
                Launcher::Poetry,
                "poetry run -- pytest",
                "poetry run -- python -m unittest discover -s tests",
            ),
            (
                Launcher::Pdm,
                "pdm run -- pytest",
                "pdm run -- python -m unittest discover -s tests",
            ),
            (
                Launcher::Hatch,
                "hatch run -- pytest",
                "hatch run -- python -m unittest discover -s tests",
            ),
            (
                Launcher::Venv(".venv"),
                ".venv/bin/python -m pytest",
                ".venv/bin/python -m unittest discover -s tests",
            ),
            (
                Launcher::System {
                    pytest: true,
                    src: false,
                },
                "env PYTHONPATH=. pytest",
                "python3 -m unittest discover -s tests",
            ),
            (
                Launcher::System {
                    pytest: false,
                    src: false,
                },
                "python3 -m pytest",
                "python3 -m unittest discover -s tests",
            ),
        ];
        for (launcher, pytest, unittest) in cases {
            assert_eq!(launcher.pytest(), pytest);
            assert_eq!(launcher.unittest(Some("tests")), unittest);
            let test = task("test", launcher.pytest(), None);
            assert!(is_builtin(&test), "{pytest}");
            assert_eq!(arguments_of(&test), Arguments::AfterDashDash, "{pytest}");
            let test = task("test", launcher.unittest(None), None);
            assert!(is_builtin(&test), "{unittest}");
            assert_eq!(arguments_of(&test), Arguments::Exact, "{unittest}");
        }
        assert_eq!(
            Launcher::System {
                pytest: true,
                src: false
            }
            .unittest(None),
            "python3 -m unittest discover"
        );
        assert_eq!(
            Launcher::Venv("venv").entry_point("a b").as_deref(),
            Some("venv/bin/'a b'")
        );
        assert_eq!(
            Launcher::System {
                pytest: true,
                src: false
            }
            .entry_point("x"),
            None
        );
        assert!(!is_builtin(&task("test", "poe test".into(), None)));
        assert_eq!(
            arguments_of(&task("lint", "poe lint".into(), None)),
            Arguments::WithArguments
        );
        assert_eq!(
            arguments_of(&task("x", "pdm run -- x".into(), None)),
            Arguments::WithArguments
        );
        assert_eq!(
            arguments_of(&task("x", "hatch run -- x".into(), None)),
            Arguments::Exact
        );
    }

    fn arguments_of(task: &Task) -> Arguments {
        arguments(&Runner::new("python", "Python", "x"), task)
    }

    #[test]
    fn hatch_test_is_the_built_in_test_and_takes_no_words() {
        for command in ["hatch test", "hatch test test", "hatch test ."] {
            let test = task("test", command.into(), None);
            assert!(is_builtin(&test), "{command}");
            assert_eq!(arguments_of(&test), Arguments::Exact, "{command}");
        }
        let in_env = task("test", "hatch run -- tests:pytest".into(), None);
        assert!(is_builtin(&in_env));
        assert_eq!(arguments_of(&in_env), Arguments::AfterDashDash);
        assert!(!is_builtin(&task("test", "hatch run -- test".into(), None)));
        assert!(!is_builtin(&task("lint", "hatch test".into(), None)));
    }
}
