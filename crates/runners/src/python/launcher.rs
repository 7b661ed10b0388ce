//! The launcher: what the project's commands run under (uv, poetry, pdm, hatch, its
//! venv, or PATH), chosen from its lockfiles and folders, and whether tox runs through it.

use std::path::Path;

use crate::detection::{Absence, Context};
use crate::files;
use crate::quote::quote;
use crate::subprojects::Inside;

use super::manifest::{read_manifest, requirement_name, strings, table};

/// How commands are started in the project's environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Launcher {
    /// `uv run` (uv.lock).
    Uv,
    /// `poetry run --` (poetry.lock).
    Poetry,
    /// `pdm run --` (pdm.lock).
    Pdm,
    /// `hatch run --` (hatch.toml or `[tool.hatch.envs]`).
    Hatch,
    /// The project's own virtual environment folder (`.venv` or `venv`).
    Venv(&'static str),
    /// No environment: `python3` (and `pytest`) from PATH.
    System {
        /// Whether `pytest` is on PATH.
        pytest: bool,
        /// Whether the code lives under `src/` (a src layout): nothing installs it, so
        /// the command puts `src` on `PYTHONPATH` (`env PYTHONPATH=src …`).
        src: bool,
    },
}

impl Launcher {
    /// What runs a command in the environment, when something must come before it.
    pub(super) fn prefix(&self) -> Option<&'static str> {
        match self {
            Self::Uv => Some("uv run"),
            Self::Poetry => Some("poetry run --"),
            Self::Pdm => Some("pdm run --"),
            Self::Hatch => Some("hatch run --"),
            Self::Venv(_) | Self::System { .. } => None,
        }
    }

    /// The interpreter and module form (`uv run python -m`, `.venv/bin/python -m`).
    fn python_m(&self) -> String {
        match (self.prefix(), self) {
            (Some(prefix), _) => format!("{prefix} python -m"),
            (None, Self::Venv(dir)) => format!("{dir}/bin/python -m"),
            (None, _) => format!("{}python3 -m", self.src_path()),
        }
    }

    /// `env PYTHONPATH=src ` for a src layout without an environment, else nothing.
    fn src_path(&self) -> &'static str {
        match self {
            Self::System { src: true, .. } => "env PYTHONPATH=src ",
            _ => "",
        }
    }

    /// The command that runs pytest.
    pub(crate) fn pytest(&self) -> String {
        match (self.prefix(), self) {
            (Some(prefix), _) => format!("{prefix} pytest"),
            // `pytest` from PATH, unlike `python -m pytest`, does not put the root on
            // `sys.path`, and nothing installed the package (tox had, for a project that
            // names pytest only in tox.ini): every test module failed to import it.
            (None, Self::System { pytest: true, src }) => match src {
                true => format!("{}pytest", self.src_path()),
                false => "env PYTHONPATH=. pytest".to_owned(),
            },
            (None, _) => format!("{} pytest", self.python_m()),
        }
    }

    /// The command that runs unittest's discovery, from `start` when given.
    pub(crate) fn unittest(&self, start: Option<&str>) -> String {
        let mut command = format!("{} unittest discover", self.python_m());
        if let Some(start) = start {
            command.push_str(" -s ");
            command.push_str(start);
        }
        command
    }

    /// The command that runs an installed entry point, when one can be named.
    pub(super) fn entry_point(&self, name: &str) -> Option<String> {
        match (self.prefix(), self) {
            (Some(prefix), _) => Some(format!("{prefix} {}", quote(name))),
            (None, Self::Venv(dir)) => Some(format!("{dir}/bin/{}", quote(name))),
            (None, _) => None,
        }
    }
}

/// The tool that manages the project's environment, and why: a lockfile's tool when on
/// PATH, else hatch for a hatch project; `None` when neither is there.
fn managed_launcher(
    ctx: &Context<'_>,
    hatch_project: bool,
    notes: &mut Vec<String>,
) -> Option<(Launcher, String)> {
    let root = ctx.root;
    for (lock, tool, launcher) in [
        ("uv.lock", "uv", Launcher::Uv),
        ("poetry.lock", "poetry", Launcher::Poetry),
        ("pdm.lock", "pdm", Launcher::Pdm),
    ] {
        ctx.depends_on_file(lock);
        if files::is_regular_file(&root.join(lock)) {
            if ctx.find_binary(tool).is_some() {
                return Some((launcher, lock.to_owned()));
            }
            notes.push(format!("{lock} is there but `{tool}` is not on PATH"));
        }
    }
    if hatch_project {
        if ctx.find_binary("hatch").is_some() {
            return Some((
                Launcher::Hatch,
                "hatch environments in hatch.toml or `[tool.hatch.envs]`".into(),
            ));
        }
        notes.push("a hatch project, but `hatch` is not on PATH".into());
    }
    None
}

/// The launcher, and why: the tool managing the project's environment
/// ([`managed_launcher`]), else the project's venv, else the system's python3.
pub(super) fn launcher(
    ctx: &Context<'_>,
    hatch_project: bool,
    notes: &mut Vec<String>,
) -> Result<(Launcher, String), Absence> {
    let root = ctx.root;
    if let Some(found) = managed_launcher(ctx, hatch_project, notes) {
        return Ok(found);
    }
    for dir in [".venv", "venv"] {
        let folder = root.join(dir);
        ctx.depends_on_file(format!("{dir}/bin/python"));
        // The root is the project's whatever it is; a folder in it must be a real one.
        match folder.symlink_metadata() {
            _ if dir.is_empty() => {}
            Ok(meta) if meta.file_type().is_symlink() => {
                notes.push(format!(
                    "{dir} is a symlink; it is not used as the project's environment"
                ));
            }
            // Its `bin/python` links to a system interpreter, as in every venv: only the
            // folder itself must be the project's.
            Ok(meta) if meta.is_dir() && !bin_is_link(&folder) => {
                if std::fs::metadata(folder.join("bin/python")).is_ok_and(|m| m.is_file()) {
                    return Ok((Launcher::Venv(dir), format!("the project's {dir}")));
                }
                notes.push(format!("{dir} has no bin/python; it is not used"));
            }
            Ok(_) => notes.push(format!(
                "{dir} is not a folder with a bin/ of its own; it is not used"
            )),
            Err(_) => {}
        }
    }
    let pytest = ctx.find_binary("pytest").is_some();
    // A src layout (`src/` a real folder) is importable only once installed.
    ctx.depends_on_file("src");
    let src = ctx
        .root
        .join("src")
        .symlink_metadata()
        .is_ok_and(|m| m.is_dir());
    if ctx.find_binary("python3").is_none() {
        return Err(Absence::Absent(
            "`python3` is not on PATH and the project has no lockfile or .venv".into(),
        ));
    }
    Ok((
        Launcher::System { pytest, src },
        match src {
            true => "no uv.lock, poetry.lock, pdm.lock, hatch environments or .venv; `src/` put \
                     on PYTHONPATH, since nothing installs the package"
                .into(),
            false => "no uv.lock, poetry.lock, pdm.lock, hatch environments or .venv".into(),
        },
    ))
}

/// tox run through the tool that manages the project's environment, when that
/// environment provides tox: click and attrs name `tox` and `tox-uv` in a dev dependency
/// group, and their contributors run `uv run tox`, which also brings the plugin a bare
/// `tox` from PATH lacks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ToxLauncher {
    /// What goes before `tox` (`uv run`, `pdm run --`).
    pub prefix: &'static str,
    /// Why, for the runner's notes.
    pub why: String,
}

/// The launcher tox runs through, when the launcher the python runner would choose for
/// the project (a lockfile's tool on PATH, else hatch for a hatch project) installs tox
/// into the project's environment; notes say why not when a file cannot be read.
pub(crate) fn tox_launcher(
    ctx: &Context<'_>,
    inside: &Inside<'_>,
    notes: &mut Vec<String>,
) -> Option<ToxLauncher> {
    let read = |name: &str, notes: &mut Vec<String>| {
        ctx.depends_on_file(name);
        read_manifest(inside, ctx.root, name, notes)
    };
    let pyproject = read("pyproject.toml", notes);
    let hatch_toml = read("hatch.toml", notes);
    let pyproject = pyproject.as_deref().unwrap_or("");
    let hatch_project = hatch_toml.is_some()
        || toml::from_str::<toml::Table>(pyproject).is_ok_and(|doc| {
            doc.get("tool")
                .and_then(|t| t.get("hatch"))
                .and_then(|h| h.get("envs"))
                .is_some()
        });
    // Its notes (a lockfile without its tool) are the python runner's to give.
    let (launcher, lock) = managed_launcher(ctx, hatch_project, &mut Vec::new())?;
    let source = tox_source(pyproject, hatch_toml.as_deref(), &launcher)?;
    Some(ToxLauncher {
        prefix: launcher.prefix()?,
        why: format!(
            "tox runs through `{}`: the project's environment ({lock}) installs it ({source})",
            launcher.prefix()?
        ),
    })
}

/// Where the dependencies that `launcher` installs into the project's environment name
/// tox, as a table name; `None` when they do not (or the text is not TOML).
/// - uv installs `[tool.uv] dev-dependencies` and the groups of `[dependency-groups]` in
///   `[tool.uv] default-groups` (`dev` unless set; `"all"` for every group).
/// - pdm installs every group of `[tool.pdm.dev-dependencies]` and `[dependency-groups]`.
/// - poetry installs `[tool.poetry.dev-dependencies]` and each group of
///   `[tool.poetry.group]` not marked `optional = true`.
/// - hatch runs `hatch run` in its `default` env: its `dependencies`,
///   `extra-dependencies`, and the `[dependency-groups]` its `dependency-groups` names
///   (in `[tool.hatch.envs.default]` or hatch.toml's `[envs.default]`).
#[expect(
    clippy::too_many_lines,
    reason = "over 80 lines when the limit was set; split it when it next changes"
)]
pub(crate) fn tox_source(
    pyproject: &str,
    hatch_toml: Option<&str>,
    launcher: &Launcher,
) -> Option<String> {
    let doc: toml::Value = toml::from_str::<toml::Table>(pyproject)
        .map(toml::Value::Table)
        .ok()?;
    let is_tox = |r: &str| requirement_name(r).is_some_and(|n| n == "tox");
    let names_tox = |list: Option<&toml::Value>| strings(list).any(|r| is_tox(&r));
    let groups = table(&doc, &["dependency-groups"]);
    let group_names_tox = |group: &str| {
        groups
            .and_then(|g| {
                g.iter()
                    .find(|(name, _)| requirement_name(name) == requirement_name(group))
            })
            .is_some_and(|(_, list)| names_tox(Some(list)))
    };
    match launcher {
        Launcher::Uv => {
            let uv = table(&doc, &["tool", "uv"]);
            if names_tox(uv.and_then(|uv| uv.get("dev-dependencies"))) {
                return Some("`[tool.uv] dev-dependencies`".into());
            }
            let defaults = uv.and_then(|uv| uv.get("default-groups"));
            let all = defaults.and_then(toml::Value::as_str) == Some("all");
            let chosen: Vec<String> = match defaults {
                Some(list) if list.is_array() => strings(Some(list)).collect(),
                _ => vec!["dev".into()],
            };
            groups?
                .keys()
                .find(|g| {
                    (all || chosen
                        .iter()
                        .any(|c| requirement_name(c) == requirement_name(g)))
                        && group_names_tox(g)
                })
                .map(|g| format!("`[dependency-groups] {g}`"))
        }
        Launcher::Pdm => {
            // Measured (pdm 2.29): `pdm run -- tox` runs a pdm script named `tox` rather
            // than the program, so with one there is no way to reach tox through pdm.
            if table(&doc, &["tool", "pdm", "scripts"]).is_some_and(|s| s.contains_key("tox")) {
                return None;
            }
            if let Some((group, _)) = table(&doc, &["tool", "pdm", "dev-dependencies"])
                .into_iter()
                .flatten()
                .find(|(_, list)| names_tox(Some(list)))
            {
                return Some(format!("`[tool.pdm.dev-dependencies] {group}`"));
            }
            groups?
                .keys()
                .find(|g| group_names_tox(g))
                .map(|g| format!("`[dependency-groups] {g}`"))
        }
        Launcher::Poetry => {
            let poetry = table(&doc, &["tool", "poetry"])?;
            let keys_name_tox = |deps: Option<&toml::Value>| {
                deps.and_then(toml::Value::as_table)
                    .is_some_and(|d| d.keys().any(|k| is_tox(k)))
            };
            if keys_name_tox(poetry.get("dev-dependencies")) {
                return Some("`[tool.poetry.dev-dependencies]`".into());
            }
            poetry
                .get("group")
                .and_then(toml::Value::as_table)?
                .iter()
                .find(|(_, group)| {
                    group.get("optional").and_then(toml::Value::as_bool) != Some(true)
                        && keys_name_tox(group.get("dependencies"))
                })
                .map(|(name, _)| format!("`[tool.poetry.group.{name}.dependencies]`"))
        }
        Launcher::Hatch => {
            let hatch_doc = hatch_toml.and_then(|t| toml::from_str::<toml::Table>(t).ok());
            let from_hatch_toml = hatch_doc
                .as_ref()
                .and_then(|d| d.get("envs"))
                .and_then(|e| e.get("default"));
            let (file, env) = match from_hatch_toml {
                Some(env) => ("hatch.toml `[envs.default]`", env),
                None => (
                    "`[tool.hatch.envs.default]`",
                    doc.get("tool")?.get("hatch")?.get("envs")?.get("default")?,
                ),
            };
            if names_tox(env.get("dependencies")) || names_tox(env.get("extra-dependencies")) {
                return Some(file.into());
            }
            strings(env.get("dependency-groups"))
                .find(|g| group_names_tox(g))
                .map(|g| format!("{file}, through `[dependency-groups] {g}`"))
        }
        Launcher::Venv(_) | Launcher::System { .. } => None,
    }
}

/// Whether a venv's `bin` is a symlink (which could lead anywhere).
fn bin_is_link(folder: &Path) -> bool {
    folder
        .join("bin")
        .symlink_metadata()
        .map_or(true, |m| !m.is_dir())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Property: tox runs through the launcher only when what that launcher installs
    /// names tox itself (not `tox-uv` alone, not a group it leaves out).
    #[test]
    #[expect(
        clippy::too_many_lines,
        reason = "over 80 lines when the limit was set; split it when it next changes"
    )]
    fn tox_in_the_launchers_environment() {
        #[track_caller]
        fn case(pyproject: &str, hatch_toml: Option<&str>, launcher: Launcher, want: Option<&str>) {
            assert_eq!(
                tox_source(pyproject, hatch_toml, &launcher).as_deref(),
                want,
                "{pyproject}"
            );
        }
        // Shaped like click: tox and tox-uv in the `dev` group uv installs by default.
        let click = "[dependency-groups]\ndev = [\"ruff\", \"tox\", \"tox-uv\"]\ntests = [\"pytest\"]\n\n[tool.uv]\ndefault-groups = [\"dev\", \"tests\"]\n";
        case(click, None, Launcher::Uv, Some("`[dependency-groups] dev`"));
        case(
            "[dependency-groups]\ndev = [\"tox>=4\"]\n",
            None,
            Launcher::Uv,
            Some("`[dependency-groups] dev`"),
        );
        case(
            "[dependency-groups]\ncheck = [\"tox\"]\n",
            None,
            Launcher::Uv,
            None,
        );
        case(
            "[dependency-groups]\ncheck = [\"tox\"]\n[tool.uv]\ndefault-groups = \"all\"\n",
            None,
            Launcher::Uv,
            Some("`[dependency-groups] check`"),
        );
        case(
            "[tool.uv]\ndev-dependencies = [\"Tox[testing] ; python_version>'3.9'\"]\n",
            None,
            Launcher::Uv,
            Some("`[tool.uv] dev-dependencies`"),
        );
        case(
            "[dependency-groups]\ndev = [\"tox-uv\"]\n",
            None,
            Launcher::Uv,
            None,
        );
        case(
            "[tool.pdm.dev-dependencies]\ntest = [\"tox\"]\n",
            None,
            Launcher::Pdm,
            Some("`[tool.pdm.dev-dependencies] test`"),
        );
        case(
            "[tool.pdm.dev-dependencies]\ntest = [\"tox\"]\n[tool.pdm.scripts]\ntox = \"tox -p\"\n",
            None,
            Launcher::Pdm,
            None,
        );
        case(
            "[dependency-groups]\nlint = [\"tox\"]\n",
            None,
            Launcher::Pdm,
            Some("`[dependency-groups] lint`"),
        );
        case(
            "[tool.poetry.group.dev.dependencies]\ntox = \"^4\"\n",
            None,
            Launcher::Poetry,
            Some("`[tool.poetry.group.dev.dependencies]`"),
        );
        case(
            "[tool.poetry.group.dev]\noptional = true\n[tool.poetry.group.dev.dependencies]\ntox = \"^4\"\n",
            None,
            Launcher::Poetry,
            None,
        );
        case(
            "[tool.hatch.envs.default]\ndependencies = [\"tox\"]\n",
            None,
            Launcher::Hatch,
            Some("`[tool.hatch.envs.default]`"),
        );
        case(
            "[dependency-groups]\ndev = [\"tox\"]\n",
            Some("[envs.default]\ndependency-groups = [\"dev\"]\n"),
            Launcher::Hatch,
            Some("hatch.toml `[envs.default]`, through `[dependency-groups] dev`"),
        );
        case(
            "[tool.hatch.envs.lint]\ndependencies = [\"tox\"]\n",
            None,
            Launcher::Hatch,
            None,
        );
        case(click, None, Launcher::Venv(".venv"), None);
        case("not toml [", None, Launcher::Uv, None);
    }

    #[test]
    fn a_src_layout_without_an_environment_is_put_on_the_path() {
        let src = Launcher::System {
            pytest: true,
            src: true,
        };
        assert_eq!(src.pytest(), "env PYTHONPATH=src pytest");
        assert_eq!(
            src.unittest(Some("tests")),
            "env PYTHONPATH=src python3 -m unittest discover -s tests"
        );
        let no_pytest = Launcher::System {
            pytest: false,
            src: true,
        };
        assert_eq!(no_pytest.pytest(), "env PYTHONPATH=src python3 -m pytest");
        // A flat layout: the root, as `python -m pytest` would put it.
        let flat = Launcher::System {
            pytest: true,
            src: false,
        };
        assert_eq!(flat.pytest(), "env PYTHONPATH=. pytest");
        // An environment installs the package itself.
        assert_eq!(
            Launcher::Venv(".venv").pytest(),
            ".venv/bin/python -m pytest"
        );
    }
}
