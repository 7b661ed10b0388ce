//! Tasks: the sessions as the runner's tasks, one per Python of a session on several and
//! one per parameter set.

use crate::quote::quote;
use crate::runner::{Runner, TailRule, Task};

use super::MAX_DOC_BYTES;
use super::noxfile::Noxfile;

impl Noxfile {
    /// The tasks: each session by its name (`nox -s tests` runs every Python and every
    /// parameter set), and for a session on several Pythons one per Python (`tests-3.11`,
    /// as `nox --list` shows it).
    /// Each parameter set `nox --list` names is a task too (`downstream(project='pip')`,
    /// `tests-3.11(django='4.2')`), an aside.
    #[expect(
        clippy::too_many_lines,
        reason = "over 80 lines when the limit was set; split it when it next changes"
    )]
    pub(crate) fn into_runner(self) -> Runner {
        let mut runner = Runner::new("nox", "Nox", "nox");
        runner.tail_rule = TailRule::DashDashFirst;
        runner.notes = self.notes;
        // Docs draw from one budget; past it, sessions are listed without theirs.
        let mut doc_bytes = MAX_DOC_BYTES;
        let mut undocumented = 0usize;
        let mut budget = |doc: Option<String>| match doc {
            Some(doc) if doc.len() > doc_bytes => {
                doc_bytes = 0;
                undocumented += 1;
                None
            }
            Some(doc) => {
                doc_bytes -= doc.len();
                Some(doc)
            }
            None => None,
        };
        if let Some(default) = &self.default {
            runner.notes.push(format!(
                "`nox` alone runs {} (nox.options.sessions)",
                default.join(", ")
            ));
        }
        for session in self.sessions {
            let params = (!session.params.is_empty())
                .then(|| format!("parametrized by {}", session.params.join(", ")));
            let doc = |pythons: &str| {
                let extra: Vec<&str> = [Some(pythons).filter(|p| !p.is_empty()), params.as_deref()]
                    .into_iter()
                    .flatten()
                    .collect();
                match (&session.doc, extra.is_empty()) {
                    (doc, true) => doc.clone(),
                    (Some(doc), false) => Some(format!("{doc} ({})", extra.join("; "))),
                    (None, false) => Some(format!("({})", extra.join("; "))),
                }
            };
            let all = match session.pythons.as_slice() {
                [] if session.computed_pythons => COMPUTED.to_owned(),
                [] => String::new(),
                pythons => format!("python {}", pythons.join(", ")),
            };
            runner.push_task(Task {
                command: command(&session.name),
                doc: budget(doc(&all)),
                name: session.name.clone(),
                params: Vec::new(),
                cwd: None,
            });
            // A single Python adds nothing `nox -s NAME` does not already run.
            for python in session.pythons.iter().filter(|_| session.pythons.len() > 1) {
                let name = format!("{}-{python}", session.name);
                runner.push_task(Task {
                    command: command(&name),
                    doc: budget(doc(&format!("python {python} only"))),
                    name,
                    params: Vec::new(),
                    cwd: None,
                });
            }
            // nox names a parameter set after the Python when the session lists any
            // (`python=["3.11"]` too), else after the session alone.
            let prefixes: Vec<(String, Option<&str>)> = match session.pythons.as_slice() {
                [] => vec![(session.name.clone(), None)],
                pythons => pythons
                    .iter()
                    .map(|p| (format!("{}-{p}", session.name), Some(p.as_str())))
                    .collect(),
            };
            // nox names them after Pythons only running the noxfile tells.
            let prefixes = match session.computed_pythons {
                true => Vec::new(),
                false => prefixes,
            };
            for (prefix, python) in &prefixes {
                for id in &session.ids {
                    let name = format!("{prefix}({id})");
                    let only = match python {
                        Some(python) => format!("python {python}, {id} only"),
                        None => format!("{id} only"),
                    };
                    let doc = match &session.doc {
                        Some(doc) => format!("{doc} ({only})"),
                        None => format!("({only})"),
                    };
                    runner.push_task(Task {
                        command: command(&name),
                        doc: budget(Some(doc)),
                        name,
                        params: Vec::new(),
                        cwd: None,
                    });
                }
            }
        }
        if undocumented > 0 {
            runner.notes.push(format!(
                "{undocumented} sessions are listed without their doc: the docs passed \
                 {} MiB in all",
                MAX_DOC_BYTES >> 20
            ));
        }
        runner
    }
}

/// What the doc of a session whose Pythons are computed says, last.
pub(super) const COMPUTED: &str = "pythons computed by the noxfile: NAME-X.Y runs one";

/// The session whose Pythons are computed that `name` (`tests-3.12`, `tests-pypy3.10`,
/// `tests-3.13t`) selects one Python of, with the command that runs it.
pub(super) fn per_python(runner: &Runner, name: &str) -> Option<(usize, String)> {
    let (session, python) = name.rsplit_once('-')?;
    let version = python.strip_prefix("pypy").unwrap_or(python);
    let version = version.strip_suffix('t').unwrap_or(version);
    let plausible = version.starts_with(|c: char| c.is_ascii_digit())
        && version.len() <= 8
        && version.bytes().all(|b| b.is_ascii_digit() || b == b'.');
    if !plausible {
        return None;
    }
    let index = runner.tasks.iter().position(|t| {
        t.name == session && t.doc.as_deref().is_some_and(|d| d.contains(COMPUTED))
    })?;
    Some((index, command(name)))
}

/// `nox -s NAME`; a name starting with `-` as `--session=-x`, since `nox -s -x` reads it
/// as an option (measured: it lists the sessions instead).
fn command(name: &str) -> String {
    if name.starts_with('-') {
        format!("nox --session={}", quote(name))
    } else {
        format!("nox -s {}", quote(name))
    }
}
