//! `nox`: the sessions of `noxfile.py`, found by reading its text. The noxfile is never
//! imported or run: `nox --list` executes it, and a noxfile is the project's Python.

use crate::detection::{Absence, Arguments, Context, RunnerDef, Words};
use crate::files::{self, MAX_MANIFEST};
use crate::runner::Runner;
use crate::subprojects::Inside;

mod lexer;
mod literal;
mod noxfile;
mod tasks;

use noxfile::parse_noxfile;

pub(crate) const RUNNER: RunnerDef = RunnerDef {
    id: "nox",
    label: "Nox",
    executes: "nothing: noxfile.py is read as text, never imported (`nox --list` runs it); running a session creates its virtualenv, installs what it asks and runs its code",
    manifests: &[NOXFILE],
    detect,
    // Measured with nox 2026.10: `nox -s lint -- --foo -- a 'b c'` gives the session
    // `session.posargs == ['--foo', '--', 'a', 'b c']` (the first `--` dropped); a word
    // before `--` is nox's own (`nox -s lint --foo` fails with "unrecognized arguments",
    // and `-s` takes every later plain word as one more session to run).
    arguments: |_, _| Arguments::AfterDashDash,
    pattern: Some(tasks::per_python),
    words: Words::AfterDashDash {
        test_argument: "--verbose",
    },
    // One parameter set of a parametrised session (`downstream(project='pip')`): `nox -s
    // downstream` runs them all, so each alone is rarely what a developer types.
    is_aside: |_, task| is_parameter_set(&task.name),
    caches: crate::python::PYTHON_CACHES,
    ..RunnerDef::BASE
};

/// Whether a session name is one parameter set of a parametrised session, as `nox --list`
/// prints it (`tests-3.11(django='4.2')`).
fn is_parameter_set(name: &str) -> bool {
    name.ends_with(')') && name.contains('(')
}

/// The file nox reads by default (`-f noxfile.py`).
const NOXFILE: &str = "noxfile.py";

/// The most sessions one noxfile may list, counting each Python of a session on several
/// (`tests-3.11`): a `python=` list of 300,000 versions lists the first of them, and a note
/// says how many were cut. Real noxfiles list tens.
pub(crate) const MAX_SESSIONS: usize = 10_000;

/// The most bytes the listed sessions' names may take in all (a name written once and
/// used by many sessions, `name=NAME`, counts each time).
const MAX_NAME_BYTES: usize = 1 << 20;

/// The most bytes the listed sessions' docs may take in all (a session's doc is repeated
/// for each of its Pythons).
const MAX_DOC_BYTES: usize = 16 << 20;

/// How many module-level constants deep a `*NAME` spread is followed (`ALL = [*OLD, "3.13"]`
/// spread again in `python=[*ALL]`); deeper, or a constant spreading itself, is an
/// expression only running the noxfile tells.
const MAX_SPREAD_DEPTH: usize = 4;

/// How deep a literal's brackets are read (`[[…]]`); deeper is an expression only running
/// the noxfile tells, so that nesting can neither exhaust the stack nor be read once per
/// level.
const MAX_DEPTH: usize = 16;

fn detect(ctx: &Context<'_>) -> Result<Runner, Absence> {
    let task_file =
        |dir: &std::path::Path| files::exists(&dir.join(NOXFILE)).then(|| NOXFILE.to_owned());
    crate::subprojects::with_subprojects(
        ctx,
        detect_here,
        task_file,
        ("session", "per-Python patterns"),
    )
}

/// The sessions of the noxfile in `ctx.root` (the root, or a subproject's folder), read
/// through `inside`.
fn detect_here(ctx: &Context<'_>, inside: &Inside<'_>) -> Result<Runner, Absence> {
    let path = ctx.root.join(NOXFILE);
    ctx.depends_on(path.clone());
    if !files::exists(&path) {
        return Err(Absence::Absent("no noxfile.py in the root".into()));
    }
    ctx.needs_binary("nox")?;
    let bytes = inside
        .read(&path, MAX_MANIFEST)
        .map_err(|err| Absence::Failed(format!("{NOXFILE}: {err}")))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| Absence::Failed(format!("{NOXFILE}: not UTF-8, which Python refuses")))?;
    let noxfile = parse_noxfile(text.strip_prefix('\u{feff}').unwrap_or(&text));
    let runner = noxfile.into_runner();
    if runner.tasks.is_empty() && runner.notes.is_empty() {
        return Err(Absence::Absent(format!(
            "{NOXFILE} has no function decorated with `@nox.session`"
        )));
    }
    Ok(runner)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tasks(source: &str) -> Vec<(String, String, Option<String>)> {
        parse_noxfile(source)
            .into_runner()
            .tasks
            .into_iter()
            .map(|t| (t.name, t.command, t.doc))
            .collect()
    }

    /// Measured: `nox --list` on this noxfile (nox 2026.10.20) shows `tests-3.10(django=
    /// '4.2')`, `tests-3.10(django='5.0')`, `tests-3.11(…)` twice, `lint`, `build-docs`,
    /// `typed`, `-x`, `has space`, `one-3.11`, `collapsed` and `inclass`; `nox -s tests`
    /// runs the four `tests` sessions and `nox -s tests-3.11` the two on 3.11.
    #[test]
    #[expect(
        clippy::too_many_lines,
        reason = "over 80 lines when the limit was set; split it when it next changes"
    )]
    fn sessions_as_nox_names_them() {
        let source = r#"
import os
import nox
from nox import session, parametrize as param

nox.options.sessions = ["lint", "tests"]
PYTHONS = ["3.10", "3.11"]

@nox.session(python=PYTHONS)
@param("django", ["4.2", "5.0"])
def tests(session, django):
    """Run the tests.

    More."""
    session.run("pytest", *session.posargs)

@nox.session(python=False)
def lint(session):
    '''Lint it.'''

@session(
    name="build-docs",  # a comment, with a comma
    python=False,
    tags=["docs"],
)
def docs(session):
    "Build the docs."

@nox.session(python="3.11", venv_backend="none")
async def typed(session): "Check types."

@nox.session(name="-x", python=False)
def dash(session): pass

@nox.session(name="has space", python=False)
def space(session): pass

@nox.session(python=["3.11"])
def one(session): pass

@nox.session(python=["3.10", "3.11"], venv_backend="none")
def collapsed(session): pass

def helper():
    """Not a session."""

class Grouped:
    @nox.session
    def inclass(session):
        pass
"#;
        let got = tasks(source);
        let want: Vec<(&str, &str, Option<&str>)> = vec![
            (
                "tests",
                "nox -s tests",
                Some("Run the tests. (python 3.10, 3.11; parametrized by django)"),
            ),
            (
                "tests-3.10",
                "nox -s tests-3.10",
                Some("Run the tests. (python 3.10 only; parametrized by django)"),
            ),
            (
                "tests-3.11",
                "nox -s tests-3.11",
                Some("Run the tests. (python 3.11 only; parametrized by django)"),
            ),
            (
                "tests-3.10(django='4.2')",
                "nox -s 'tests-3.10(django='\\''4.2'\\'')'",
                Some("Run the tests. (python 3.10, django='4.2' only)"),
            ),
            (
                "tests-3.10(django='5.0')",
                "nox -s 'tests-3.10(django='\\''5.0'\\'')'",
                Some("Run the tests. (python 3.10, django='5.0' only)"),
            ),
            (
                "tests-3.11(django='4.2')",
                "nox -s 'tests-3.11(django='\\''4.2'\\'')'",
                Some("Run the tests. (python 3.11, django='4.2' only)"),
            ),
            (
                "tests-3.11(django='5.0')",
                "nox -s 'tests-3.11(django='\\''5.0'\\'')'",
                Some("Run the tests. (python 3.11, django='5.0' only)"),
            ),
            ("lint", "nox -s lint", Some("Lint it.")),
            ("build-docs", "nox -s build-docs", Some("Build the docs.")),
            ("typed", "nox -s typed", Some("Check types.")),
            ("-x", "nox --session=-x", None),
            ("one", "nox -s one", Some("(python 3.11)")),
            ("collapsed", "nox -s collapsed", None),
            ("inclass", "nox -s inclass", None),
        ];
        let got: Vec<(&str, &str, Option<&str>)> = got
            .iter()
            .map(|(n, c, d)| (n.as_str(), c.as_str(), d.as_deref()))
            .collect();
        assert_eq!(got, want);
        let runner = parse_noxfile(source).into_runner();
        assert!(
            runner
                .notes
                .iter()
                .any(|n| n.contains("\"has space\" is left out")),
            "{:#?}",
            runner.notes
        );
        assert!(
            runner
                .notes
                .contains(&"`nox` alone runs lint, tests (nox.options.sessions)".to_owned())
        );
    }

    /// Property: whatever a noxfile says, it lists at most [`MAX_SESSIONS`] sessions, and a
    /// note says what was cut. (A `python=` of 300,000 versions took minutes when each was
    /// looked for among the others; brackets 100,000 deep overflowed the stack.)
    #[test]
    fn hostile_noxfiles_stay_within_the_budget() {
        let versions: Vec<String> = (0..300_000).map(|i| format!("\"3.{i}\"")).collect();
        let source = format!(
            "import nox\n\n@nox.session(python=[{}])\ndef tests(session):\n    pass\n",
            versions.join(", ")
        );
        let runner = parse_noxfile(&source).into_runner();
        assert_eq!(runner.tasks.len(), MAX_SESSIONS);
        assert_eq!(runner.tasks[1].name, "tests-3.0");
        assert!(
            runner.notes.iter().any(|n| n
                == "session `tests`: 290001 of its 300000 pythons are not listed (at most \
                    10000 sessions, of at most 1 MiB of names, per noxfile)"),
            "{:#?}",
            runner.notes
        );
        // One long list named by many sessions is read where it is, each time.
        let many: String = (0..20_000)
            .map(|i| format!("@nox.session(python=PYTHONS)\ndef s{i}(session): pass\n"))
            .collect();
        let source = format!("import nox\nPYTHONS = [{}]\n{many}", versions.join(", "));
        let runner = parse_noxfile(&source).into_runner();
        assert_eq!(runner.tasks.len(), MAX_SESSIONS);
        assert!(
            runner
                .notes
                .iter()
                .any(|n| n.starts_with("19999 more sessions are not listed")),
            "{:#?}",
            runner.notes
        );
        // Brackets nested past any reason are an expression.
        let deep = format!(
            "import nox\nX = {}{}\n@nox.session(python=X)\ndef t(s): pass\n",
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        let noxfile = parse_noxfile(&deep);
        assert_eq!(noxfile.sessions.len(), 1);
        assert!(noxfile.sessions[0].pythons.is_empty());
        // A name of 2 MiB, used twice, is measured before it is copied.
        let source = format!(
            "import nox\nN = '{}'\n@nox.session(name=N)\ndef a(s): pass\n@nox.session(name=N)\ndef b(s): pass\n@nox.session\ndef c(s): pass\n",
            "n".repeat(2 << 20)
        );
        let runner = parse_noxfile(&source).into_runner();
        let names: Vec<&str> = runner.tasks.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["c"]);
        assert!(
            runner
                .notes
                .iter()
                .any(|n| n.starts_with("2 more sessions are not listed")),
            "{:#?}",
            runner.notes
        );
    }

    /// Measured: `nox -l` (nox 2026.10.20) on this noxfile prints `tests-3.9`,
    /// `tests-3.10`, `tests-3.13t`, `both-3.9` … `both-3.12`, `tup-3.11`, `tup-3.12`,
    /// `tup-pypy3`, `downstream(project='pip')`, `downstream(project='setuptools')`,
    /// `dj-3.11(django='4.2')`, `dj-3.11(django='5.0')`, `dj-3.12(…)` twice,
    /// `strpy(p='a')`, `onepy-3.11(p='a')`, `reprs(p="it's")`, `reprs(p=3)`, `reprs(p=-2)`,
    /// `reprs(p=True)`, `reprs(p=None)`, `withids(one)`, `withids(two)`,
    /// `multi(a=1, b='x')` and `multi(a=2, b='y')`.
    #[test]
    #[expect(
        clippy::too_many_lines,
        reason = "over 80 lines when the limit was set; split it when it next changes"
    )]
    fn spreads_and_parameter_sets_as_nox_lists_them() {
        let source = r#"
import nox

PYTHON_VERSIONS = ["3.9", "3.10"]
EXTRA = ("3.11", "3.12")
DOWNSTREAM = ["pip", "setuptools"]

@nox.session(python=[*PYTHON_VERSIONS, "3.13t"])
def tests(session):
    """Run the tests."""

@nox.session(python=[*PYTHON_VERSIONS, *EXTRA])
def both(session):
    pass

@nox.session(python=(*EXTRA, "pypy3"))
def tup(session):
    pass

@nox.session(python=False)
@nox.parametrize("project", DOWNSTREAM)
def downstream(session, project):
    """Downstream."""

@nox.session(python=EXTRA)
@nox.parametrize("django", ["4.2", "5.0"])
def dj(session, django):
    pass

@nox.session(python="3.11")
@nox.parametrize("p", ["a"])
def strpy(session, p):
    pass

@nox.session(python=["3.11"])
@nox.parametrize("p", ["a"])
def onepy(session, p):
    pass

@nox.session
@nox.parametrize("p", ["it's", 3, -2, True, None])
def reprs(session, p):
    pass

@nox.session
@nox.parametrize("n", [1, 2], ids=["one", "two"])
def withids(session, n):
    pass

@nox.session
@nox.parametrize("a,b", [(1, "x"), (2, "y")])
def multi(session, a, b):
    pass

@nox.session
@nox.parametrize("p", [1.5])
def floats(session, p):
    pass
"#;
        let runner = parse_noxfile(source).into_runner();
        let names: Vec<&str> = runner.tasks.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "tests",
                "tests-3.9",
                "tests-3.10",
                "tests-3.13t",
                "both",
                "both-3.9",
                "both-3.10",
                "both-3.11",
                "both-3.12",
                "tup",
                "tup-3.11",
                "tup-3.12",
                "tup-pypy3",
                "downstream",
                "downstream(project='pip')",
                "downstream(project='setuptools')",
                "dj",
                "dj-3.11",
                "dj-3.12",
                "dj-3.11(django='4.2')",
                "dj-3.11(django='5.0')",
                "dj-3.12(django='4.2')",
                "dj-3.12(django='5.0')",
                "strpy",
                "strpy(p='a')",
                "onepy",
                "onepy-3.11(p='a')",
                "reprs",
                "reprs(p=\"it's\")",
                "reprs(p=3)",
                "reprs(p=-2)",
                "reprs(p=True)",
                "reprs(p=None)",
                "withids",
                "withids(one)",
                "withids(two)",
                "multi",
                "floats",
            ]
        );
        let task = |name: &str| {
            runner
                .tasks
                .iter()
                .find(|t| t.name == name)
                .expect("listed")
        };
        assert_eq!(
            task("tests").doc.as_deref(),
            Some("Run the tests. (python 3.9, 3.10, 3.13t)")
        );
        let pip = task("downstream(project='pip')");
        assert_eq!(pip.command, "nox -s 'downstream(project='\\''pip'\\'')'");
        assert_eq!(pip.doc.as_deref(), Some("Downstream. (project='pip' only)"));
        assert_eq!(
            task("dj-3.12(django='5.0')").doc.as_deref(),
            Some("(python 3.12, django='5.0' only)")
        );
        assert!(runner.is_aside(pip));
        assert!(!runner.is_aside(task("downstream")));
        assert_eq!(
            runner.notes,
            [
                "session `multi`: its parameter sets are not listed one by one (stacked or \
                 multi-argument parameter sets are named with spaces, which an op cannot \
                 name); `nox -s multi` runs them all",
                "session `floats`: its parameter sets are not listed one by one (a value is \
                 one whose name only running the noxfile tells); `nox -s floats` runs them all",
            ]
        );
    }

    /// Property: a session whose `python=` is computed in part (`nox.project.python_versions`
    /// spread beside literals) is listed alone, never with the few Pythons read as if they
    /// were all, and any `NAME-X.Y` of it resolves; a session with a literal list does not
    /// take other versions.
    #[test]
    fn computed_pythons_list_the_session_and_resolve_any_version() {
        let source = "import nox\n\nPYPROJECT = nox.project.load_toml(\"pyproject.toml\")\nPYTHON_VERSIONS = nox.project.python_versions(PYPROJECT)\n\n@nox.session(python=[*PYTHON_VERSIONS, \"3.13t\", \"pypy3.10\"])\ndef tests(session):\n    \"\"\"Run the test suite.\"\"\"\n\n@nox.session(python=[\"3.11\", \"3.12\"])\ndef docs(session):\n    pass\n";
        let runner = parse_noxfile(source).into_runner();
        let names: Vec<&str> = runner.tasks.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["tests", "docs", "docs-3.11", "docs-3.12"]);
        assert_eq!(
            runner.tasks[0].doc.as_deref(),
            Some("Run the test suite. (pythons computed by the noxfile: NAME-X.Y runs one)")
        );
        let found = |name: &str| {
            runner
                .find(name)
                .map(|(t, c)| (t.name.clone(), c.into_owned()))
        };
        for version in ["3.10", "3.12", "3.15", "3.13t", "pypy3.10"] {
            let name = format!("tests-{version}");
            assert_eq!(
                found(&name),
                Some(("tests".into(), format!("nox -s tests-{version}"))),
                "{name}"
            );
        }
        assert_eq!(found("docs-3.10"), None);
        assert_eq!(found("tests-x"), None);
        assert_eq!(found("tests-"), None);
        assert_eq!(found("other-3.12"), None);
    }

    /// Property: spreads are followed a few constants deep and never into themselves, and
    /// what reading lists looks at stays within the noxfile's size however often a long
    /// list is spread.
    #[test]
    fn spreads_are_bounded() {
        let source = "import nox\nA = ['3.9']\nA = [*A, '3.10']\nB = [*A, *C]\n@nox.session(python=[*B, '3.13'])\ndef t(s): pass\n";
        let noxfile = parse_noxfile(source);
        // `A` spreading itself is followed no further than the depth bound; `C` is unknown:
        // a list read in part lists the session alone.
        assert!(noxfile.sessions[0].pythons.is_empty());
        assert!(noxfile.sessions[0].computed_pythons);
        assert_eq!(
            noxfile.notes,
            [
                "session `t`: 2 of its pythons come from an expression only running the \
                 noxfile tells; listed by its name alone (`nox -s t` runs them all, and \
                 `t-X.Y` one)"
            ]
        );
        // 200,000 items spread in 20,000 sessions: a duplicate-only list never fills the
        // session budget, so only the visit budget stops it.
        let dups = vec!["'3.1'"; 200_000].join(", ");
        let many: String = (0..20_000)
            .map(|i| format!("@nox.session(python=[*P, *P])\ndef s{i}(session): pass\n"))
            .collect();
        let source = format!("import nox\nP = [{dups}]\n{many}");
        let started = std::time::Instant::now();
        let runner = parse_noxfile(&source).into_runner();
        assert!(started.elapsed() < std::time::Duration::from_secs(20));
        assert!(
            runner
                .notes
                .iter()
                .any(|n| n.starts_with("some lists were not read to their end")),
            "{:#?}",
            &runner.notes[..3]
        );
        assert!(runner.tasks.len() <= MAX_SESSIONS);
    }
}
