//! The built-in `test`: whether the project's tests run under pytest, `hatch test` or
//! unittest, and why, from its configuration, its dependencies and the shape of its test
//! files.

use crate::detection::Context;
use crate::runner::Task;
use crate::subprojects::Inside;

use super::launcher::Launcher;
use super::manifest::{HatchEnv, HatchEnvs, Pyproject, is_pytest, requirement_name};
use super::task;

/// Whether a file name is one unittest's default pattern (`test*.py`) finds.
fn is_test_file(name: &str) -> bool {
    name.starts_with("test") && name.ends_with(".py")
}

/// The built-in `test` and why it is pytest, `hatch test` or unittest.
pub(super) fn test_task(
    ctx: &Context<'_>,
    launcher: &Launcher,
    pytest_why: Option<&str>,
    hatch: &HatchPlan,
) -> Option<(Task, String)> {
    let doc = |what: &str| Some(format!("run the tests with {what}"));
    if *launcher == Launcher::Hatch {
        let hatch_test = |why: String| {
            let (command, folder) = hatch_test_command(ctx, hatch.default_args);
            let why = match folder {
                Some(folder) => format!(
                    "{why}; `{folder}` named, since without words it runs `tests`, which is \
                     not a folder here"
                ),
                None => why,
            };
            Some((
                task("test", command, doc("pytest in hatch's test environment")),
                why,
            ))
        };
        if let Some(table) = hatch.test_env {
            return hatch_test(format!("`hatch test` ({table})"));
        }
        if let Some(why) = pytest_why {
            return match hatch.pytest_env.as_deref() {
                Some("default") => Some((
                    task("test", launcher.pytest(), doc("pytest")),
                    format!("pytest in hatch's default environment ({why})"),
                )),
                Some(env) => Some((
                    task("test", format!("hatch run -- {env}:pytest"), doc("pytest")),
                    format!("pytest in hatch's `{env}` environment, which installs it ({why})"),
                )),
                None => hatch_test(format!(
                    "`hatch test`: pytest ({why}), and no hatch environment of the project \
                     installs it"
                )),
            };
        }
    }
    if let Some(why) = pytest_why {
        return Some((
            task("test", launcher.pytest(), doc("pytest")),
            format!("pytest ({why})"),
        ));
    }
    // unittest's discovery from `.` finds test*.py files in the root and in packages only
    // (Python 3.11: a tests/ folder without __init__.py is not entered), so a tests/ folder
    // becomes the start folder.
    let has_tests = |dir: &str| -> bool {
        let Ok(entries) = std::fs::read_dir(ctx.root.join(dir)) else {
            return false;
        };
        entries.flatten().take(10_000).any(|e| {
            e.file_type().is_ok_and(|t| t.is_file())
                && e.file_name().to_str().is_some_and(is_test_file)
        })
    };
    let start = ["tests", "test"].into_iter().find(|dir| has_tests(dir));
    if start.is_none() && !has_tests(".") {
        return None;
    }
    Some((
        task("test", launcher.unittest(start), doc("unittest")),
        format!(
            "unittest (test*.py files in {}; no pytest configuration or dependency)",
            start.map_or("the root".to_owned(), |s| format!("{s}/"))
        ),
    ))
}

/// `hatch test`, and the folder it is given when it needs one: without words it runs
/// pytest on the env's `default-args`, hatch's default being `tests`, so a project that
/// sets none and keeps its tests elsewhere names `test` (or `.`).
fn hatch_test_command(
    ctx: &Context<'_>,
    default_args: DefaultArgs,
) -> (String, Option<&'static str>) {
    let folder = |name: &str| ctx.root.join(name).is_dir();
    let named = match default_args {
        DefaultArgs::Configured => None,
        DefaultArgs::Hatch if folder("tests") => None,
        DefaultArgs::Hatch if folder("test") => Some("test"),
        DefaultArgs::Hatch => Some("."),
    };
    match named {
        Some(folder) => (format!("hatch test {folder}"), Some(folder)),
        None => ("hatch test".into(), None),
    }
}

/// What `hatch test` runs when no words follow it.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum DefaultArgs {
    /// hatch's default, `tests`.
    #[default]
    Hatch,
    /// The `hatch-test` env's own `default-args`.
    Configured,
}

/// How a hatch project runs its tests, from the envs of hatch.toml and pyproject.toml.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct HatchPlan {
    /// Where hatch's own test environment, `hatch-test`, is configured, if it is.
    pub(super) test_env: Option<&'static str>,
    /// What `hatch test` runs without words.
    default_args: DefaultArgs,
    /// The env `hatch run` finds pytest in: `default` when it installs pytest, else the
    /// first other env (in the files' order) that installs the project and pytest.
    pytest_env: Option<String>,
}

impl HatchPlan {
    /// The plan of the envs of each file (hatch.toml's first); `pyproject` gives the extras
    /// and dependency groups that an env's `features` and `dependency-groups` install.
    pub(super) fn of(files: &[(&str, HatchEnvs)], pyproject: &Pyproject) -> Self {
        let mut plan = Self::default();
        let envs = || {
            files
                .iter()
                .flat_map(|(file, e)| e.envs.iter().map(move |env| (*file, env)))
        };
        for (file, env) in envs().filter(|(_, env)| env.name == "hatch-test") {
            plan.test_env.get_or_insert(match file {
                "hatch.toml" => "`[envs.hatch-test]` in hatch.toml",
                _ => "`[tool.hatch.envs.hatch-test]` in pyproject.toml",
            });
            if env.default_args {
                plan.default_args = DefaultArgs::Configured;
            }
        }
        let installs_pytest = |env: &HatchEnv| {
            env.installs_project
                && (env.pytest
                    || env
                        .features
                        .iter()
                        .any(|f| pyproject.pytest_extras.contains(f))
                    || env
                        .groups
                        .iter()
                        .any(|g| pyproject.pytest_groups.contains(g)))
        };
        // hatch's own envs (`hatch-test`, `hatch-static-analysis`) are not the project's,
        // and a name hatch cannot take in `ENV:pytest` is passed over.
        let usable = |name: &str| {
            !name.starts_with(['-', '+'])
                && !name.starts_with("hatch-")
                && !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        };
        plan.pytest_env = envs()
            .map(|(_, env)| env)
            .filter(|env| env.name == "default")
            .chain(
                envs()
                    .map(|(_, env)| env)
                    .filter(|env| env.name != "default"),
            )
            .find(|env| usable(&env.name) && installs_pytest(env))
            .map(|env| env.name.clone());
        plan
    }
}

/// Where tox.ini's envs install or run pytest, read with the tox runner's own reader: a
/// `deps` line naming pytest or a plugin, or a `commands` line that runs it, in any
/// testenv (comments are not read; a `{[base]deps}` reference is followed).
pub(crate) fn pytest_in_tox_ini(text: &str) -> Result<Option<String>, String> {
    for line in crate::tox::testenv_lines(text, &["commands", "deps"])? {
        let found = match line.key.as_str() {
            "deps" => {
                let dep = line.text.trim();
                (!dep.starts_with('-') && is_pytest(dep)).then(|| requirement_name(dep))
            }
            _ => runs_pytest(&line.text).then(|| Some("pytest".to_owned())),
        };
        if let Some(Some(name)) = found {
            return Ok(Some(format!(
                "`{}` in the `{}` of `[{}]` in tox.ini",
                crate::tox::shorten(&name),
                line.key,
                crate::tox::shorten(&line.section)
            )));
        }
    }
    Ok(None)
}

/// Whether a command line runs pytest: `pytest` or `py.test` as a word (a path ending in
/// either, as `{envbindir}/pytest`, counts), or the module `-m pytest`.
fn runs_pytest(command: &str) -> bool {
    let words: Vec<&str> = command
        .split_whitespace()
        .map(|w| w.trim_matches(['"', '\'']))
        .collect();
    let is_pytest = |word: &str| matches!(word, "pytest" | "py.test");
    words.iter().enumerate().any(|(i, word)| {
        // tox runs `-pytest` as `pytest`, ignoring its exit status.
        let word = if i == 0 {
            word.trim_start_matches('-')
        } else {
            word
        };
        is_pytest(word.rsplit('/').next().unwrap_or(word))
            || word.strip_prefix("-m").is_some_and(is_pytest)
            || (word == "-m" && words.get(i + 1).is_some_and(|next| is_pytest(next)))
    })
}

/// Why a test file's text needs pytest, if it does: a test function at module level (`def
/// test…` at the start of a line, which unittest never collects), a test class without a
/// base (`class TestX:`), or an import of pytest. A file of `unittest.TestCase` classes
/// gives `None`. `def test_suite()` is the old setuptools and zope hook that builds a
/// unittest suite, not a test.
pub(crate) fn pytest_shape(text: &str) -> Option<&'static str> {
    let identifier = |rest: &str| -> usize {
        rest.find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len())
    };
    for line in text.lines() {
        let code = line.trim_start();
        let import = code
            .strip_prefix("import pytest")
            .or_else(|| code.strip_prefix("from pytest"));
        if import
            .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t', ',', '.', ';']))
        {
            return Some("imports pytest");
        }
        if code.len() != line.len() {
            continue;
        }
        if let Some(rest) = code
            .strip_prefix("async ")
            .unwrap_or(code)
            .strip_prefix("def ")
        {
            let rest = rest.trim_start();
            let name = &rest[..identifier(rest)];
            if name.starts_with("test") && name != "test_suite" {
                return Some("a test function at module level");
            }
        }
        if let Some(rest) = code.strip_prefix("class ") {
            let rest = rest.trim_start();
            let name = &rest[..identifier(rest)];
            let bases = rest[name.len()..].trim_start();
            if name.starts_with("Test")
                && [":", "():", "(object):"]
                    .iter()
                    .any(|b| bases.replace(' ', "").starts_with(b))
            {
                return Some("a test class without a base");
            }
        }
    }
    None
}

/// The most test files [`pytest_test_file`] reads.
const MAX_TEST_FILES: usize = 16;

/// The most bytes read of one test file: its imports and first tests come first.
const MAX_TEST_FILE_BYTES: u64 = 64 << 10;

/// Why the project's test files need pytest (see [`pytest_shape`]), from the first
/// [`MAX_TEST_FILES`] of tests/, test/ and the root (`test*.py`, unittest's pattern, and
/// pytest's `*_test.py`; sorted in each folder), [`MAX_TEST_FILE_BYTES`] of each. A
/// symlinked folder is not entered and a symlinked file is read only when it resolves
/// inside the root; a FIFO or device is never opened for reading. Each file read is an
/// input, so editing one is seen.
pub(super) fn pytest_test_file(
    ctx: &Context<'_>,
    inside: &Inside<'_>,
    notes: &mut Vec<String>,
) -> Option<String> {
    let mut names = Vec::new();
    for dir in ["tests", "test", ""] {
        let folder = ctx.root.join(dir);
        // The root is the project's whatever it is; a folder in it must be a real one.
        match folder.symlink_metadata() {
            _ if dir.is_empty() => {}
            Ok(meta) if meta.file_type().is_symlink() => {
                notes.push(format!(
                    "{dir} is a symlink; its test files are not read for their shape"
                ));
                continue;
            }
            Ok(meta) if meta.is_dir() => {}
            _ => continue,
        }
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        let mut found: Vec<String> = entries
            .flatten()
            .take(10_000)
            .filter(|e| e.file_type().is_ok_and(|t| !t.is_dir()))
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| is_test_file(n) || n.ends_with("_test.py"))
            .map(|n| {
                if dir.is_empty() {
                    n
                } else {
                    format!("{dir}/{n}")
                }
            })
            .collect();
        found.sort();
        names.extend(found);
        if names.len() >= MAX_TEST_FILES {
            break;
        }
    }
    names.truncate(MAX_TEST_FILES);
    for name in names {
        ctx.depends_on_file(&name);
        match inside.read_walked_prefix(&ctx.root.join(&name), MAX_TEST_FILE_BYTES) {
            Ok(bytes) => {
                if let Some(why) = pytest_shape(&String::from_utf8_lossy(&bytes)) {
                    return Some(format!("{why} in {name}"));
                }
            }
            Err(err) => notes.push(format!("{name}: {err}")),
        }
    }
    None
}
#[cfg(test)]
mod tests {
    use super::*;

    use crate::python::manifest::{parse_hatch_toml, parse_pyproject};

    #[test]
    fn test_files_only_pytest_runs_are_told_by_their_shape() {
        #[track_caller]
        fn case(text: &str, want: Option<&str>) {
            assert_eq!(pytest_shape(text), want, "{text:?}");
        }
        let test_function = Some("a test function at module level");
        let imports = Some("imports pytest");
        let class = Some("a test class without a base");
        case(
            "from tabulate import tabulate\n\n\ndef test_plain():\n    pass\n",
            test_function,
        );
        case("async def test_fetch():\n    pass\n", test_function);
        case("def testOutput():\n    pass\n", test_function);
        case("import pytest\n", imports);
        case("import pytest as pt\n", imports);
        case("from pytest import raises\n", imports);
        case(
            "try:\n    import pytest\nexcept ImportError:\n    pass\n",
            imports,
        );
        case(
            "class TestOutput:\n    def test_x(self):\n        pass\n",
            class,
        );
        case("class TestOutput(object):\n    pass\n", class);
        case("class TestOutput():\n    pass\n", class);
        // unittest's own shapes.
        case(
            "import unittest\n\n\nclass OutputTest(unittest.TestCase):\n    def test_x(self):\n        pass\n",
            None,
        );
        case(
            "from unittest import TestCase\n\nclass TestOutput(TestCase):\n    def test_x(self):\n        pass\n",
            None,
        );
        case(
            "import unittest\n\ndef test_suite():\n    return unittest.TestSuite()\n",
            None,
        );
        // Not a test function, not module level, not pytest.
        case("def helper():\n    pass\n", None);
        case(
            "class Case(unittest.TestCase):\n    def test_x(self):\n        pass\n",
            None,
        );
        case("import pytestify\nimport unittest\n", None);
        case("", None);
    }

    #[test]
    fn tox_ini_names_pytest_in_its_commands_or_deps() {
        #[track_caller]
        fn case(text: &str, want: Option<&str>) {
            assert_eq!(
                pytest_in_tox_ini(text).expect("valid").as_deref(),
                want,
                "{text:?}"
            );
        }
        // python-tabulate's shape: `deps` and `commands` of `[testenv]`.
        case(
            "[tox]\nenvlist = lint, py{38,39,310}\n\n[testenv]\ncommands = pytest -v --doctest-modules --ignore benchmark {posargs}\ndeps =\n    pytest\n",
            Some("`pytest` in the `commands` of `[testenv]` in tox.ini"),
        );
        case(
            "[testenv:py311-extra]\ndeps =\n    py311: pytest-cov\ncommands = {envpython} run_tests.py\n",
            Some("`pytest-cov` in the `deps` of `[testenv:py311-extra]` in tox.ini"),
        );
        for command in [
            "python -m pytest {posargs}",
            "{envpython} -m pytest",
            "{envbindir}/py.test tests",
            "- pytest",
            "-pytest",
            "python -mpytest",
            "\"pytest\" -x",
        ] {
            case(
                &format!("[testenv:t]\ncommands = {command}\n"),
                Some("`pytest` in the `commands` of `[testenv:t]` in tox.ini"),
            );
        }
        case(
            "[base]\ndeps = pytest>=7\n[testenv]\ndeps = {[base]deps}\ncommands = python run.py\n",
            Some("`pytest` in the `deps` of `[base]` in tox.ini"),
        );
        // Controls: comments, descriptions, other sections and other programs.
        case(
            "[testenv]\ncommands = python -m unittest discover -s tests\n\n[testenv:docs]\n# pytest is not needed to build the docs\ndescription = docs (no pytest)\ndeps = sphinx  # not pytest\ncommands = sphinx-build docs out\n",
            None,
        );
        case(
            "[testenv]\ndeps =\n    -r requirements.txt\n    pytestify\ncommands = python -c \"print('pytest')\"\n[pytest-plugins]\ndeps = pytest\n",
            None,
        );
        assert!(pytest_in_tox_ini("[testenv]\ndeps = a\ndeps = b\n").is_err());
    }

    fn hatch_plan(pyproject: &str, hatch_toml: Option<&str>) -> HatchPlan {
        let pyproject = parse_pyproject(pyproject).expect("pyproject");
        let mut files = Vec::new();
        if let Some(text) = hatch_toml {
            files.push(("hatch.toml", parse_hatch_toml(text).expect("hatch.toml")));
        }
        if let Some(envs) = &pyproject.hatch {
            files.push(("pyproject.toml", envs.clone()));
        }
        HatchPlan::of(&files, &pyproject)
    }

    #[test]
    fn hatch_test_env_and_the_env_that_installs_pytest() {
        #[track_caller]
        fn case(pyproject: &str, hatch_toml: Option<&str>, want: HatchPlan) {
            assert_eq!(hatch_plan(pyproject, hatch_toml), want, "{pyproject}");
        }
        let plan = |test_env, default_args, pytest_env: Option<&str>| HatchPlan {
            test_env,
            default_args,
            pytest_env: pytest_env.map(str::to_owned),
        };
        let in_pyproject = Some("`[tool.hatch.envs.hatch-test]` in pyproject.toml");
        // pypa/hatch's shape: a matrix of hatch-test, a default env without pytest.
        case(
            "[tool.hatch.envs.default]\ndependencies = [\"httpx\"]\n[tool.hatch.envs.hatch-test]\nextra-dependencies = [\"pyfakefs\"]\n[[tool.hatch.envs.hatch-test.matrix]]\npython = [\"3.11\", \"3.12\"]\n",
            None,
            plan(in_pyproject, DefaultArgs::Hatch, None),
        );
        case(
            "[tool.hatch.envs.hatch-test]\ndefault-args = [\"src/pkg/tests\"]\n",
            None,
            plan(in_pyproject, DefaultArgs::Configured, None),
        );
        case(
            "[project]\nname = 'x'\n",
            Some(
                "[envs.hatch-test]\nrandomize = true\n[envs.default]\ndependencies = [\"pytest\"]\n",
            ),
            plan(
                Some("`[envs.hatch-test]` in hatch.toml"),
                DefaultArgs::Hatch,
                Some("default"),
            ),
        );
        // The default env is asked first, then the others in order; a detached env does
        // not install the project.
        case(
            "[tool.hatch.envs.lint]\ndetached = true\ndependencies = [\"pytest\"]\n[tool.hatch.envs.tests]\ndependencies = [\"pytest-cov\"]\n[tool.hatch.envs.default]\ndependencies = [\"pytest\"]\n",
            None,
            plan(None, DefaultArgs::Hatch, Some("default")),
        );
        case(
            "[tool.hatch.envs.lint]\ndetached = true\ndependencies = [\"pytest\"]\n[tool.hatch.envs.tests]\ndependencies = [\"pytest-cov\"]\n",
            None,
            plan(None, DefaultArgs::Hatch, Some("tests")),
        );
        // Through an extra or a dependency group of the project.
        case(
            "[project]\nname = 'x'\noptional-dependencies = { Test = [\"pytest\"] }\n[tool.hatch.envs.default]\nfeatures = [\"test\"]\n",
            None,
            plan(None, DefaultArgs::Hatch, Some("default")),
        );
        case(
            "[dependency-groups]\ndev = [\"pytest\"]\n[tool.hatch.envs.ci]\ndependency-groups = [\"dev\"]\n",
            None,
            plan(None, DefaultArgs::Hatch, Some("ci")),
        );
        // A hatch project whose envs do not install pytest, and names hatch cannot take.
        case(
            "[tool.hatch.envs.default]\ndependencies = [\"httpx\"]\n[tool.hatch.envs.\"a:b\"]\ndependencies = [\"pytest\"]\n[tool.hatch.envs.hatch-static-analysis]\ndependencies = [\"pytest\"]\n",
            None,
            plan(None, DefaultArgs::Hatch, None),
        );
    }
}
