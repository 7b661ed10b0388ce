//! `tox`: the environments of the configuration file tox would read, parsed as text. tox
//! itself is never asked: `tox list` loads plugins and provisions the `requires` of the
//! configuration, which installs and runs packages.

use crate::detection::{Absence, Arguments, Context, RunnerDef, Words};
use crate::files::{self, MAX_MANIFEST};
use crate::python;
use crate::quote::quote;
use crate::runner::{Runner, TailRule, Task};
use crate::subprojects::Inside;

mod budget;
mod factor;
mod ini;
mod toml_config;

use budget::Budget;
pub(crate) use budget::shorten;
pub(crate) use ini::testenv_lines;
use ini::{envs_of_ini, parse_ini};
use toml_config::{pyproject_envs, toml_envs};

pub(crate) const RUNNER: RunnerDef = RunnerDef {
    id: "tox",
    label: "Tox",
    executes: "nothing: tox.ini, setup.cfg, pyproject.toml, tox.toml and hatch.toml are read as text, never with `tox list` (which loads plugins and provisions `requires`); running an env installs its deps and runs its commands, and when the project's own environment provides tox (a uv, pdm, poetry or hatch dev dependency) it runs through that tool (`uv run tox`, `pdm run -- tox`, `poetry run -- tox`, `hatch run -- tox`), which may first create or sync that environment",
    manifests: CONFIGS,
    detect,
    // Measured with tox 4.67: `tox -e lint -- --foo -- a 'b c'` hands `--foo -- a 'b c'`
    // to `{posargs}` (the first `--` dropped, later ones kept); a word before `--` is
    // tox's own (`tox -e lint --foo` fails with "unrecognized arguments", and `-x
    // testenv:lint.commands=…` would replace the env's commands).
    // Through hatch, every word is formatted first (`{env:HOME}` becomes the variable),
    // after `--` too: no words are admitted there.
    pattern: Some(on_demand_env),
    arguments: |_, task| {
        if task.command.starts_with("hatch ") {
            Arguments::Exact
        } else {
            Arguments::AfterDashDash
        }
    },
    words: Words::AfterDashDash {
        test_argument: "--verbose",
    },
    caches: crate::python::PYTHON_CACHES,
    ..RunnerDef::BASE
};

/// The files tox looks for in a folder, in its order (tox 4.67,
/// `tox/config/source/discover.py`): a `setup.cfg` without `[tox:tox]`, a `pyproject.toml`
/// without `[tool.tox]` and an empty `tox.toml` are passed over.
const CONFIGS: &[&str] = &["tox.ini", "setup.cfg", "pyproject.toml", "tox.toml"];

/// `sys.platform` as Python spells it here: a factor every env has.
const PLATFORM: &str = match std::env::consts::OS.as_bytes() {
    b"macos" => "darwin",
    b"windows" => "win32",
    _ => std::env::consts::OS,
};

/// A folder below the root is a subproject when tox would find a configuration there
/// beside a manifest: a Python package's `tox.ini`, or its pyproject.toml's `[tool.tox]`
/// (a pyproject.toml or setup.cfg without one is passed over, as tox passes it over).
fn detect(ctx: &Context<'_>) -> Result<Runner, Absence> {
    let task_file = |dir: &std::path::Path| {
        CONFIGS
            .iter()
            .find(|name| files::exists(&dir.join(name)))
            .map(|name| (*name).to_owned())
    };
    crate::subprojects::with_subprojects(ctx, detect_here, task_file, ("env", "on-demand envs"))
}

/// The envs of the tox configuration in `ctx.root` (the root, or a subproject's folder),
/// read through `inside`.
fn detect_here(ctx: &Context<'_>, inside: &Inside<'_>) -> Result<Runner, Absence> {
    for name in CONFIGS {
        // Creating one earlier in the order changes which file tox reads.
        ctx.depends_on_file(name);
    }
    if !CONFIGS.iter().any(|n| files::exists(&ctx.root.join(n))) {
        return Err(Absence::Absent(
            "no tox.ini, setup.cfg, pyproject.toml or tox.toml in the root".into(),
        ));
    }
    let mut launcher_notes = Vec::new();
    let through = python::tox_launcher(ctx, inside, &mut launcher_notes);
    if through.is_none() {
        ctx.needs_binary("tox")?;
    }
    for name in CONFIGS {
        let path = ctx.root.join(name);
        if !files::exists(&path) {
            continue;
        }
        let bytes = inside
            .read(&path, MAX_MANIFEST)
            .map_err(|err| Absence::Failed(format!("{name}: {err}")))?;
        let text = String::from_utf8(bytes)
            .map_err(|_| Absence::Failed(format!("{name}: not UTF-8, which tox cannot read")))?;
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        let mut budget = Budget::new();
        let envs = match *name {
            "tox.ini" => {
                parse_ini(text).and_then(|ini| envs_of_ini(&ini, "tox", &mut budget).map(Some))
            }
            // tox reads setup.cfg only when it has `[tox:tox]` (a broken one fails it all the
            // same: it is parsed first).
            "setup.cfg" => parse_ini(text).and_then(|ini| match ini.section("tox:tox") {
                Some(_) => envs_of_ini(&ini, "tox:tox", &mut budget).map(Some),
                None => Ok(None),
            }),
            "pyproject.toml" => pyproject_envs(text, &mut budget),
            _ => toml_envs(text, &mut budget),
        }
        .map_err(|err| Absence::Failed(format!("{name}: {err}")))?;
        if let Some(envs) = envs {
            let mut runner = into_runner(name, envs, through.as_ref().map(|t| t.prefix));
            add_on_demand(&mut runner);
            if let Some(through) = through {
                runner.notes.push(through.why);
            }
            runner.notes.extend(launcher_notes);
            runner.notes.extend(budget.into_notes());
            return Ok(runner);
        }
    }
    Err(Absence::Absent(
        "no tox configuration: setup.cfg has no [tox:tox], pyproject.toml no [tool.tox], tox.toml no settings"
            .into(),
    ))
}

/// One environment tox lists, with its description.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Env {
    /// Its name, as `tox -e` takes it.
    pub name: String,
    /// Its `description`, on one line.
    pub description: Option<String>,
}

/// The runner of `envs`, read from `file`; `launcher` is what goes before `tox` when tox
/// runs through the tool managing the project's environment (`uv run`).
fn into_runner(file: &str, envs: Vec<Env>, launcher: Option<&str>) -> Runner {
    let tox = match launcher {
        Some(launcher) => format!("{launcher} tox"),
        None => "tox".to_owned(),
    };
    let mut runner = Runner::new("tox", "Tox", tox.clone());
    runner.tail_rule = TailRule::DashDashFirst;
    runner.notes.push(format!("configuration: {file}"));
    for env in envs {
        let name = env.name;
        if name == "ALL" || name.contains([',', '{', '}']) {
            runner.notes.push(format!(
                "env `{name}` is left out: `tox -e` reads `ALL`, commas and braces as a list of \
                 envs"
            ));
            continue;
        }
        // `tox -e -x` fails ("expected one argument"); `tox -e-x` runs the env `-x`.
        let command = if name.starts_with('-') {
            format!("{tox} -e{}", quote(&name))
        } else {
            format!("{tox} -e {}", quote(&name))
        };
        runner.push_task(Task {
            name,
            command,
            doc: env.description,
            params: Vec::new(),
            cwd: None,
        });
    }
    runner
}

/// Adds `py`, which `tox list` does not show: tox makes `py`, `py3`, `py312`, `pypy310` on
/// demand even when an `env_list` names others (black's and pytest's guides say `tox -e
/// py`), and `py` stands for them all ([`on_demand_env`]).
fn add_on_demand(runner: &mut Runner) {
    // Within the file's bound on envs.
    if runner.tasks.is_empty()
        || runner.tasks.len() >= budget::MAX_ENVS
        || runner.tasks.iter().any(|t| t.name == "py")
    {
        return;
    }
    runner.push_task(Task {
        name: "py".to_owned(),
        command: format!("{} -e py", runner.command_prefix),
        doc: Some(ON_DEMAND_DOC.to_owned()),
        params: Vec::new(),
        cwd: None,
    });
}

/// The doc of the on-demand `py` env tox makes when the configuration does not list it.
const ON_DEMAND_DOC: &str = "tox's on-demand env on the Python tox finds; `py3`, `py312`, \
     `pypy310` run it on another Python";

/// An env tox makes on demand from its name alone, as `tox -e NAME` accepts it (tox 4:
/// an implementation, `py`, `pypy`, `cpython` or `graalpy`, then an optional version `3`,
/// `312` or `3.12`, then an optional `t` for a free-threaded build): the `py` task, run
/// under that name.
fn on_demand_env(runner: &Runner, name: &str) -> Option<(usize, String)> {
    let version = ["pypy", "cpython", "graalpy", "py"]
        .iter()
        .find_map(|implementation| name.strip_prefix(implementation))?;
    let version = version.strip_suffix('t').unwrap_or(version);
    let (major, minor) = version.split_at(version.len().min(1));
    let minor = minor.strip_prefix('.').unwrap_or(minor);
    let plausible = version.is_empty()
        || (matches!(major, "2" | "3")
            && minor.len() <= 2
            && minor.bytes().all(|b| b.is_ascii_digit()));
    if !plausible || name == "py" {
        return None;
    }
    let index = runner.tasks.iter().position(|t| t.name == "py")?;
    Some((index, format!("{} -e {name}", runner.command_prefix)))
}

#[cfg(test)]
mod tests {
    use super::*;

    use budget::MAX_ENVS;

    /// The listing of `text` as the runner makes it (`name` is the file), with its notes.
    fn listing(name: &str, text: &str) -> Runner {
        let mut budget = Budget::new();
        let envs = match name {
            "tox.ini" => super::ini::ini_envs(text, "tox", &mut budget),
            _ => super::toml_envs(text, &mut budget).map(|e| e.expect("settings")),
        }
        .expect("read");
        let mut runner = into_runner(name, envs, None);
        runner.notes.extend(budget.into_notes());
        runner
    }

    /// Property: with an `env_list`, tox's on-demand envs (`py`, `py3`, `py312`, `py3.12`,
    /// `pypy310`, `py313t`) resolve to `tox -e NAME`; listed envs stay theirs, and names
    /// that are no Python (`pyx`, `py4`, `python`) do not resolve.
    #[test]
    fn on_demand_python_envs_resolve() {
        let mut runner = listing("tox.ini", "[tox]\nenv_list = py3{10,11}, lint\n");
        add_on_demand(&mut runner);
        let found = |name: &str| {
            runner
                .find(name)
                .map(|(t, c)| (t.name.clone(), c.into_owned()))
        };
        assert_eq!(found("py"), Some(("py".into(), "tox -e py".into())));
        for name in [
            "py3", "py312", "py3.12", "pypy310", "py313t", "pypy3", "pypy",
        ] {
            assert_eq!(
                found(name),
                Some(("py".into(), format!("tox -e {name}"))),
                "{name}"
            );
        }
        assert_eq!(
            found("py310"),
            Some(("py310".into(), "tox -e py310".into()))
        );
        for name in ["pyx", "py4", "python", "py3.123", "py-3", "pypy3.x"] {
            assert_eq!(found(name), None, "{name}");
        }
    }

    /// A 99-item brace group: `{0,1,…,98}`.
    fn group99() -> String {
        let items: Vec<String> = (0..99).map(|n| n.to_string()).collect();
        format!("{{{}}}", items.join(","))
    }

    /// Property: whatever a file says, its envs are at most [`MAX_ENVS`] in all, counted
    /// before they are written out, and what was cut is noted. (Each of these took
    /// gigabytes or minutes when every expression was written out whole, and the limit held
    /// per expression.)
    #[test]
    fn hostile_expansions_stay_within_the_files_budget() {
        #[track_caller]
        fn case(name: &str, text: &str, tasks: usize, note: &str) {
            let runner = listing(name, text);
            assert_eq!(runner.tasks.len(), tasks, "{name}: {:#?}", runner.notes);
            assert!(
                runner.notes.iter().any(|n| n.contains(note)),
                "{name}: {note}: {:#?}",
                runner.notes
            );
        }
        case(
            "tox.ini",
            "[tox]\nenvlist = py{1-4000000000}\n",
            MAX_ENVS,
            "a range of 4000000000 numbers in `py{1-4000000000}` cut: ranges are written out \
             to at most 10000 numbers each",
        );
        // Through a condition: conditions have a budget of their own, and the envs they
        // name draw from the envs'.
        case(
            "tox.ini",
            "[tox]\nenvlist = lint\n[testenv]\ndeps =\n    py{1-4000000000}: pytest\n",
            MAX_ENVS,
            "ranges are written out",
        );
        case(
            "tox.toml",
            "env_list = [{ product = [{ prefix = \"py\", start = 1, stop = 4000000000 }] }]\n",
            MAX_ENVS,
            "a range of 4000000000 numbers in `{ prefix = \"py\", start = 1, stop = 4000000000 }` \
             cut",
        );
        case(
            "tox.toml",
            "env_list = [{ prefix = \"py\", start = 1, stop = 4000000000 }]\n",
            MAX_ENVS,
            "ranges are written out",
        );
        // 300 headers of 9,801 envs each: the first header whole, a piece of the second.
        let group = group99();
        let sections: String = (0..300)
            .map(|k| format!("[testenv:s{k}-{group}-{group}]\n"))
            .collect();
        case(
            "tox.ini",
            &format!("[tox]\nenvlist = lint\n{sections}"),
            MAX_ENVS,
            "298 more expressions past those limits are cut (2920698 names not read)",
        );
        // 200 env_list lines of that shape.
        let lines: String = (0..200)
            .map(|k| format!("    e{k}-{group}-{group}\n"))
            .collect();
        case(
            "tox.ini",
            &format!("[tox]\nenvlist =\n{lines}"),
            MAX_ENVS,
            "stands for 9801 envs; only the first 199 are read",
        );
        // Long names: the bytes run out before the count does.
        let long = "x".repeat(100_000);
        case(
            "tox.ini",
            &format!("[tox]\nenvlist = {long}{{1-99}}\n"),
            10,
            "of at most 1 MiB, per file",
        );
        // A product of empty parts costs its length.
        case(
            "tox.ini",
            &format!("[tox]\nenvlist = a{}\n", "{,}".repeat(100_000)),
            1,
            "stands for at least 18446744073709551615 envs; only the first 5 are read",
        );
    }

    #[test]
    fn commands_never_read_a_name_as_an_option() {
        let envs = ["lint", "-x", "ALL", "a,b", "py{a}", "has space"]
            .map(|n| Env {
                name: n.into(),
                description: None,
            })
            .to_vec();
        let runner = into_runner("tox.toml", envs, None);
        let got: Vec<(&str, &str)> = runner
            .tasks
            .iter()
            .map(|t| (t.name.as_str(), t.command.as_str()))
            .collect();
        assert_eq!(got, [("lint", "tox -e lint"), ("-x", "tox -e-x")]);
        assert_eq!(runner.notes.len(), 5, "{:#?}", runner.notes);
    }
}
