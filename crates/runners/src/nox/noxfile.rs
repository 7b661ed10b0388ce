//! Reading a noxfile: its imports of nox, its `@nox.session` functions with their
//! decorators' arguments, parameter sets and docstrings, and the module-level constants
//! those name.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use super::lexer::{Line, logical_lines};
use super::literal::{Lit, for_each_item, literal, python_repr, split_top, string_literal};
use super::{MAX_NAME_BYTES, MAX_SESSIONS};

/// What reading a noxfile found.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Noxfile {
    /// The sessions, in the order of the file.
    pub sessions: Vec<Session>,
    /// `nox.options.sessions`, when it is a list of strings: what `nox` alone runs.
    pub default: Option<Vec<String>>,
    /// What could not be read, with why.
    pub notes: Vec<String>,
}

/// One `@nox.session` function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Session {
    /// Its name: `name=`, else the function's.
    pub name: String,
    /// The Python versions it runs on when it runs on several (`python=["3.10", "3.11"]`),
    /// each also a session `name-3.10`; empty for one or none.
    pub pythons: Vec<String>,
    /// The first line of its docstring.
    pub doc: Option<String>,
    /// The argument names `@nox.parametrize` gives it.
    pub params: Vec<String>,
    /// Its parameter sets as `nox --list` names them, inside the parentheses
    /// (`project='pip'`, or an `ids=` entry), when they can be read; each is also a session
    /// (`downstream(project='pip')`, `tests-3.11(django='4.2')` on several Pythons).
    pub ids: Vec<String>,
    /// Its `python=` is computed, wholly or in part (`[*PYTHON_VERSIONS, "3.13t"]` where
    /// `PYTHON_VERSIONS = nox.project.python_versions(PYPROJECT)`): only the session is
    /// listed, and any `NAME-X.Y` resolves.
    pub computed_pythons: bool,
}

/// The names a module binds to nox, its `session` decorator and `parametrize`.
#[derive(Debug, Default)]
struct Names {
    modules: Vec<String>,
    session: Vec<String>,
    parametrize: Vec<String>,
}

impl Names {
    fn import(&mut self, text: &str) {
        if let Some(rest) = text.strip_prefix("import ") {
            for part in split_top(rest) {
                let mut words = part.split_whitespace();
                match (words.next(), words.next(), words.next()) {
                    (Some("nox"), None, _) => self.modules.push("nox".into()),
                    (Some("nox"), Some("as"), Some(alias)) => self.modules.push(alias.into()),
                    _ => {}
                }
            }
        } else if let Some(rest) = text.strip_prefix("from nox import ") {
            let rest = rest.trim().trim_start_matches('(').trim_end_matches(')');
            for part in split_top(rest) {
                let mut words = part.split_whitespace();
                let (name, alias) = match (words.next(), words.next(), words.next()) {
                    (Some(name), Some("as"), Some(alias)) => (name, alias),
                    (Some(name), None, _) => (name, name),
                    _ => continue,
                };
                match name {
                    "session" => self.session.push(alias.into()),
                    "parametrize" => self.parametrize.push(alias.into()),
                    "*" => {
                        self.session.push("session".into());
                        self.parametrize.push("parametrize".into());
                    }
                    _ => {}
                }
            }
        }
    }

    fn is(&self, dotted: &str, attribute: &str, bare: &[String]) -> bool {
        bare.iter().any(|b| b == dotted)
            || dotted
                .strip_suffix(attribute)
                .and_then(|m| m.strip_suffix('.'))
                .is_some_and(|m| self.modules.iter().any(|x| x == m))
    }
}

/// A decorator line (`@nox.session(python=…)`): its dotted name and the text between its
/// parentheses, if it is called.
fn decorator(text: &str) -> Option<(&str, Option<&str>)> {
    let rest = text.strip_prefix('@')?.trim();
    match rest.find('(') {
        Some(open) => {
            let args = rest[open + 1..].trim_end().strip_suffix(')')?;
            Some((rest[..open].trim(), Some(args)))
        }
        None => Some((rest, None)),
    }
}

/// Reads a noxfile's text: every function decorated with nox's `session` (through `import
/// nox`, `import nox as n`, `from nox import session [as s]`), with the keyword arguments
/// that name it (`name=`, `python=`/`py=`, `venv_backend=`), the `@nox.parametrize`
/// decorators stacked on it, and its docstring. Module-level constants a decorator names
/// (`python=PYTHONS`) are looked up when they are literals.
#[expect(
    clippy::too_many_lines,
    reason = "over 80 lines when the limit was set; split it when it next changes"
)]
pub(crate) fn parse_noxfile(source: &str) -> Noxfile {
    let lines = logical_lines(source);
    let mut names = Names::default();
    let mut constants: HashMap<String, Lit> = HashMap::new();
    let mut default_backend_none = false;
    let mut out = Noxfile::default();
    // What the listing may still hold: sessions (each Python of one on several counts) and
    // the bytes of their names.
    let mut listed = 0usize;
    let mut name_bytes = MAX_NAME_BYTES;
    let mut sessions_cut = 0usize;
    // What reading lists may still look at: each item of a literal list once, plus what
    // spreads and constants named again make it read again.
    let mut visits = source.len().saturating_add(1024);
    let mut visits_ran_out = false;
    let mut pending: Vec<(String, Option<String>)> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = &lines[i];
        let text = line.text.as_str();
        i += 1;
        if text.starts_with("import ") || text.starts_with("from nox import ") {
            names.import(text);
            pending.clear();
            continue;
        }
        if let Some((dotted, args)) = decorator(text) {
            pending.push((dotted.to_owned(), args.map(str::to_owned)));
            continue;
        }
        let def = text
            .strip_prefix("async ")
            .unwrap_or(text)
            .strip_prefix("def ");
        let Some(def) = def else {
            if let Some((target, value)) = assignment(text) {
                let value = literal(value);
                let module = |attr: &str| {
                    names
                        .modules
                        .iter()
                        .any(|m| target == format!("{m}.options.{attr}"))
                };
                if module("sessions") {
                    out.default = match &value {
                        Lit::List(items) => items
                            .iter()
                            .map(|i| match i {
                                Lit::Str(s) => Some(s.clone()),
                                _ => None,
                            })
                            .collect(),
                        _ => None,
                    };
                } else if module("default_venv_backend") {
                    default_backend_none = value == Lit::Str("none".into());
                } else if line.indent == 0 {
                    constants.insert(target.to_owned(), value);
                }
            }
            pending.clear();
            continue;
        };
        let decorators = std::mem::take(&mut pending);
        let function: String = def
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let Some(session_args) = decorators
            .iter()
            .find(|(d, _)| names.is(d, "session", &names.session))
            .map(|(_, args)| args.as_deref().unwrap_or(""))
        else {
            continue;
        };
        if listed >= MAX_SESSIONS || name_bytes < function.len() {
            sessions_cut += 1;
            continue;
        }
        let mut session = Session {
            name: function.clone(),
            pythons: Vec::new(),
            doc: docstring(def, &lines, i, line.indent),
            params: Vec::new(),
            ids: Vec::new(),
            computed_pythons: false,
        };
        let mut backend_none = default_backend_none;
        let mut python = Cow::Owned(Lit::None);
        let mut name_too_long = false;
        for arg in split_top(session_args) {
            let Some((key, value)) = arg.split_once('=') else {
                continue;
            };
            // A constant is looked at where it is, never copied: a long list named by
            // many sessions would be copied for each.
            let value = match literal(value) {
                Lit::Name(constant) if constants.contains_key(&constant) => {
                    Cow::Borrowed(&constants[&constant])
                }
                value => Cow::Owned(value),
            };
            match key.trim() {
                "name" => match value.as_ref() {
                    // Measured before it is copied.
                    Lit::Str(name) if name.len() > name_bytes => name_too_long = true,
                    Lit::Str(name) => session.name = name.clone(),
                    _ => out.notes.push(format!(
                        "session `{function}` is named by `{}`, which only running the \
                         noxfile tells; listed as `{function}`",
                        value_text(arg)
                    )),
                },
                "python" | "py" => python = value,
                "venv_backend" => backend_none = *value == Lit::Str("none".into()),
                _ => {}
            }
        }
        if name_too_long || name_bytes < session.name.len() {
            sessions_cut += 1;
            continue;
        }
        name_bytes -= session.name.len();
        listed += 1;
        match python.as_ref() {
            // nox runs a session whose backend is "none" once, whatever `python` says.
            Lit::List(_) if backend_none => {}
            Lit::List(items) => {
                let mut seen = HashSet::new();
                let mut others = 0usize;
                let mut cut = 0usize;
                let mut total = 0usize;
                let whole = for_each_item(items, &constants, 0, &mut visits, &mut |item| {
                    total += 1;
                    match item {
                        Lit::Str(p) if seen.contains(p.as_str()) => {}
                        Lit::Str(p) => {
                            // Each Python is a session `name-python` of its own.
                            let cost = session.name.len() + 1 + p.len();
                            if cut > 0 || listed >= MAX_SESSIONS || name_bytes < cost {
                                cut += 1;
                                return;
                            }
                            seen.insert(p.as_str());
                            name_bytes -= cost;
                            listed += 1;
                            session.pythons.push(p.clone());
                        }
                        _ => others += 1,
                    }
                });
                if !whole {
                    visits_ran_out = true;
                }
                // A list only partly read would list some of the session's Pythons as if
                // they were all: the session alone is listed, and `NAME-X.Y` resolves.
                if others > 0 {
                    session.pythons.clear();
                    session.computed_pythons = true;
                    out.notes.push(format!(
                        "session `{}`: {others} of its pythons come from an expression only \
                         running the noxfile tells; listed by its name alone (`nox -s {}` \
                         runs them all, and `{}-X.Y` one)",
                        session.name, session.name, session.name
                    ));
                }
                if cut > 0 {
                    out.notes.push(format!(
                        "session `{}`: {cut} of its {} pythons are not listed (at most \
                         {MAX_SESSIONS} sessions, of at most {} MiB of names, per noxfile)",
                        session.name,
                        total,
                        MAX_NAME_BYTES >> 20
                    ));
                }
            }
            Lit::Name(_) | Lit::Other => {
                session.computed_pythons = true;
                out.notes.push(format!(
                    "session `{}`: its pythons come from an expression only running the \
                     noxfile tells; listed by its name alone (`nox -s {}` runs them all, and \
                     `{}-X.Y` one)",
                    session.name, session.name, session.name
                ));
            }
            _ => {}
        }
        let mut parametrized = 0usize;
        let mut values = None;
        for (dotted, args) in &decorators {
            if names.is(dotted, "parametrize", &names.parametrize) {
                parametrized += 1;
                let args = args.as_deref().unwrap_or("");
                let parts = split_top(args);
                let first = parts
                    .iter()
                    .find(|a| !a.contains('=') || a.trim_start().starts_with("arg_names"))
                    .map(|a| a.split_once('=').map_or(*a, |(_, v)| v));
                let before = session.params.len();
                match first.map(literal) {
                    Some(Lit::Str(list)) => session
                        .params
                        .extend(list.split(',').map(|p| p.trim().to_owned())),
                    Some(Lit::List(items)) => {
                        session
                            .params
                            .extend(items.into_iter().filter_map(|i| match i {
                                Lit::Str(s) => Some(s),
                                _ => None,
                            }))
                    }
                    _ => session.params.push("…".into()),
                }
                values = (session.params.len() == before + 1).then_some(parts);
            }
        }
        if parametrized > 0 {
            let ids = match values {
                Some(parts) if parametrized == 1 => parameter_sets(
                    &session.params[0],
                    &parts,
                    &constants,
                    &mut visits,
                    &mut visits_ran_out,
                ),
                _ => Err(
                    "stacked or multi-argument parameter sets are named with spaces, which an op cannot name",
                ),
            };
            match ids {
                Ok(ids) => {
                    // Each id is a session of its own, once per Python the session lists.
                    let times = session.pythons.len().max(1);
                    let mut cut = 0usize;
                    for id in ids {
                        let per = session.name.len() + id.len() + 2;
                        let cost = session
                            .pythons
                            .iter()
                            .map(|p| per + 1 + p.len())
                            .sum::<usize>()
                            .max(per);
                        if cut > 0
                            || listed.saturating_add(times) > MAX_SESSIONS
                            || name_bytes < cost
                        {
                            cut += 1;
                            continue;
                        }
                        listed += times;
                        name_bytes -= cost;
                        session.ids.push(id);
                    }
                    if cut > 0 {
                        out.notes.push(format!(
                            "session `{}`: {cut} of its parameter sets are not listed (at most \
                             {MAX_SESSIONS} sessions, of at most {} MiB of names, per noxfile)",
                            session.name,
                            MAX_NAME_BYTES >> 20
                        ));
                    }
                }
                Err(why) => out.notes.push(format!(
                    "session `{}`: its parameter sets are not listed one by one ({why}); \
                     `nox -s {}` runs them all",
                    session.name, session.name
                )),
            }
        }
        out.sessions.push(session);
    }
    if visits_ran_out {
        out.notes.push(format!(
            "some lists were not read to their end: reading them would look at more items \
             than the noxfile has bytes ({})",
            source.len()
        ));
    }
    if sessions_cut > 0 {
        out.notes.push(format!(
            "{sessions_cut} more sessions are not listed (at most {MAX_SESSIONS} sessions, of \
             at most {} MiB of names, per noxfile)",
            MAX_NAME_BYTES >> 20
        ));
    }
    out
}

/// The ids `nox --list` gives the parameter sets of `@nox.parametrize(NAME, VALUES,
/// ids=…)` with one argument name (`project='pip'`, or the `ids=` entry), from its
/// arguments split at top-level commas; why not, when a value is one only running the
/// noxfile tells.
fn parameter_sets(
    param: &str,
    args: &[&str],
    constants: &HashMap<String, Lit>,
    visits: &mut usize,
    ran_out: &mut bool,
) -> Result<Vec<String>, &'static str> {
    let mut positional = args.iter().filter(|a| assignment(a).is_none());
    let keyword = |key: &str| {
        args.iter()
            .filter_map(|a| assignment(a))
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v)
    };
    positional.next();
    let values = positional
        .next()
        .copied()
        .or_else(|| keyword("arg_values_list"))
        .ok_or("its values are not a list literal")?;
    // A constant is read where it is, never copied (one long list may parametrise many
    // sessions).
    let list = |text: &str| -> Result<Cow<'_, [Lit]>, &'static str> {
        match literal(text) {
            Lit::List(items) => Ok(Cow::Owned(items)),
            Lit::Name(name) => match constants.get(&name) {
                Some(Lit::List(items)) => Ok(Cow::Borrowed(items.as_slice())),
                _ => Err("its values are not a list literal"),
            },
            _ => Err("its values are not a list literal"),
        }
    };
    let values = list(values)?;
    let mut reprs = Vec::new();
    let mut unreadable = false;
    let whole = for_each_item(
        &values,
        constants,
        0,
        visits,
        &mut |value| match python_repr(value) {
            Some(repr) => reprs.push(format!("{param}={repr}")),
            None => unreadable = true,
        },
    );
    if !whole {
        *ran_out = true;
        return Err("the noxfile's lists were too long to read");
    }
    if let Some(ids) = keyword("ids") {
        let ids = list(ids)?;
        if ids.len() > *visits {
            *ran_out = true;
            return Err("the noxfile's lists were too long to read");
        }
        *visits -= ids.len();
        let ids: Vec<String> = ids
            .iter()
            .map(|id| match id {
                Lit::Str(id) => Some(id.clone()),
                _ => None,
            })
            .collect::<Option<_>>()
            .ok_or("its `ids=` are not all strings")?;
        if ids.len() != reprs.len() && !unreadable {
            return Err("its `ids=` and values differ in number");
        }
        reprs = ids;
    } else if unreadable {
        return Err("a value is one whose name only running the noxfile tells");
    }
    if reprs.iter().any(|r| r.chars().any(char::is_whitespace)) {
        return Err("some are named with spaces, which an op cannot name");
    }
    Ok(reprs)
}

/// `target = value` at the start of a line (not `==`, `+=` or a keyword argument).
fn assignment(text: &str) -> Option<(&str, &str)> {
    let (target, value) = text.split_once('=')?;
    let target = target.trim();
    if value.starts_with('=')
        || target.is_empty()
        || !target
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
    {
        return None;
    }
    Some((target, value))
}

fn value_text(arg: &str) -> &str {
    arg.split_once('=').map_or(arg, |(_, v)| v).trim()
}

/// The first line of a function's docstring, as nox shows it: the body's first statement
/// when it is a string (on the `def` line after `:`, or the next line indented deeper).
fn docstring(def: &str, lines: &[Line], next: usize, indent: usize) -> Option<String> {
    let on_line = def
        .rsplit_once("):")
        .map(|(_, rest)| rest.trim())
        .filter(|rest| !rest.is_empty());
    let body = match on_line {
        Some(rest) => rest,
        None => lines
            .get(next)
            .filter(|l| l.indent > indent)
            .map(|l| l.text.as_str())?,
    };
    let doc = string_literal(body)?;
    let first = doc.trim().split('\n').next()?.trim_end();
    (!first.is_empty()).then(|| first.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_and_unknowns() {
        let source = "import nox as n\n\n@n.session(python=versions())\ndef t(session):\n    pass\n\n@n.session(name=NAME)\ndef u(session):\n    pass\n";
        let noxfile = parse_noxfile(source);
        let names: Vec<&str> = noxfile.sessions.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["t", "u"]);
        assert_eq!(noxfile.notes.len(), 2, "{:#?}", noxfile.notes);
        // Without an import, `@session` is someone else's decorator.
        assert!(
            parse_noxfile("@session\ndef t(s):\n    pass\n")
                .sessions
                .is_empty()
        );
        // Strings that look like code are not read as code.
        let tricky = "import nox\nX = '''\n@nox.session\ndef fake(s): pass\n'''\n@nox.session # (\ndef real(s):\n    pass\n";
        let names: Vec<String> = parse_noxfile(tricky)
            .sessions
            .into_iter()
            .map(|s| s.name)
            .collect();
        assert_eq!(names, ["real"]);
    }
}
