//! `nox`: the sessions of `noxfile.py`, found by reading its text. The noxfile is never
//! imported or run: `nox --list` executes it, and a noxfile is the project's Python.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use crate::detection::{Absence, Arguments, Context, RunnerDef, Words};
use crate::files::{self, MAX_MANIFEST};
use crate::quote::quote;
use crate::runner::{Runner, TailRule, Task};

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
    words: Words::AfterDashDash {
        test_argument: "--verbose",
    },
    ..RunnerDef::BASE
};

/// The file nox reads by default (`-f noxfile.py`).
const NOXFILE: &str = "noxfile.py";

/// The most sessions one noxfile may list, counting each Python of a session on several
/// (`tests-3.11`): a `python=` list of 300,000 versions lists the first of them, and a note
/// says how many were cut. Real noxfiles list tens.
pub const MAX_SESSIONS: usize = 10_000;

/// The most bytes the listed sessions' names may take in all (a name written once and
/// used by many sessions, `name=NAME`, counts each time).
const MAX_NAME_BYTES: usize = 1 << 20;

/// The most bytes the listed sessions' docs may take in all (a session's doc is repeated
/// for each of its Pythons).
const MAX_DOC_BYTES: usize = 16 << 20;

/// How deep a literal's brackets are read (`[[…]]`); deeper is an expression only running
/// the noxfile tells, so that nesting can neither exhaust the stack nor be read once per
/// level.
const MAX_DEPTH: usize = 16;

fn detect(ctx: &Context<'_>) -> Result<Runner, Absence> {
    let path = ctx.root.join(NOXFILE);
    ctx.depends_on(path.clone());
    if !files::exists(&path) {
        return Err(Absence::Absent("no noxfile.py in the root".into()));
    }
    ctx.needs_binary("nox")?;
    let bytes = files::Root::new(ctx.root)
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

/// What reading a noxfile found.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Noxfile {
    /// The sessions, in the order of the file.
    pub sessions: Vec<Session>,
    /// `nox.options.sessions`, when it is a list of strings: what `nox` alone runs.
    pub default: Option<Vec<String>>,
    /// What could not be read, with why.
    pub notes: Vec<String>,
}

/// One `@nox.session` function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    /// Its name: `name=`, else the function's.
    pub name: String,
    /// The Python versions it runs on when it runs on several (`python=["3.10", "3.11"]`),
    /// each also a session `name-3.10`; empty for one or none.
    pub pythons: Vec<String>,
    /// The first line of its docstring.
    pub doc: Option<String>,
    /// The argument names `@nox.parametrize` gives it.
    pub params: Vec<String>,
}

impl Noxfile {
    /// The tasks: each session by its name (`nox -s tests` runs every Python and every
    /// parameter set), and for a session on several Pythons one per Python (`tests-3.11`,
    /// as `nox --list` shows it).
    /// Parametrised ids (`tests(django='4.2')`) are not tasks: the parameters are in the
    /// doc.
    pub fn into_runner(self) -> Runner {
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

/// `nox -s NAME`; a name starting with `-` as `--session=-x`, since `nox -s -x` reads it
/// as an option (measured: it lists the sessions instead).
fn command(name: &str) -> String {
    if name.starts_with('-') {
        format!("nox --session={}", quote(name))
    } else {
        format!("nox -s {}", quote(name))
    }
}

/// A logical line of Python: physical lines joined inside brackets and after `\`, comments
/// removed, strings kept as written.
#[derive(Debug)]
struct Line {
    indent: usize,
    text: String,
}

/// Splits Python source into logical lines, with a lexer that knows strings (single,
/// triple, any prefix), comments, brackets and backslash continuations.
fn logical_lines(source: &str) -> Vec<Line> {
    let mut lines = Vec::new();
    let mut text = String::new();
    let mut indent = 0;
    let mut at_start = true;
    let mut depth = 0usize;
    let mut chars = source.chars().peekable();
    let end_line = |lines: &mut Vec<Line>, text: &mut String, indent: usize| {
        let trimmed = text.trim();
        if !trimmed.is_empty() {
            lines.push(Line {
                indent,
                text: trimmed.to_owned(),
            });
        }
        text.clear();
    };
    while let Some(c) = chars.next() {
        if at_start {
            match c {
                ' ' => {
                    indent += 1;
                    continue;
                }
                '\t' => {
                    indent = (indent / 8 + 1) * 8;
                    continue;
                }
                '\n' | '\r' | '\x0c' => {
                    indent = 0;
                    continue;
                }
                _ => at_start = false,
            }
        }
        match c {
            '#' => while chars.next_if(|&c| c != '\n').is_some() {},
            '\\' if chars.peek() == Some(&'\n') => {
                chars.next();
                text.push(' ');
            }
            '\'' | '"' => {
                text.push(c);
                let triple = chars.peek() == Some(&c) && {
                    let mut ahead = chars.clone();
                    ahead.next();
                    ahead.peek() == Some(&c)
                };
                if triple {
                    text.push(c);
                    text.push(c);
                    chars.next();
                    chars.next();
                }
                let mut run = 0;
                while let Some(s) = chars.next() {
                    text.push(s);
                    if s == '\\' {
                        if let Some(escaped) = chars.next() {
                            text.push(escaped);
                        }
                        run = 0;
                        continue;
                    }
                    if s == c {
                        run += 1;
                        if !triple || run == 3 {
                            break;
                        }
                    } else {
                        run = 0;
                        // An unclosed one-line string ends with its line.
                        if s == '\n' && !triple {
                            break;
                        }
                    }
                }
            }
            '(' | '[' | '{' => {
                depth += 1;
                text.push(c);
            }
            ')' | ']' | '}' => {
                depth = depth.saturating_sub(1);
                text.push(c);
            }
            '\n' if depth == 0 => {
                end_line(&mut lines, &mut text, indent);
                indent = 0;
                at_start = true;
            }
            '\n' | '\r' => text.push(' '),
            ';' if depth == 0 => {
                end_line(&mut lines, &mut text, indent);
            }
            c => text.push(c),
        }
    }
    end_line(&mut lines, &mut text, indent);
    lines
}

/// A Python literal, as far as a noxfile's decorators need one.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Lit {
    Str(String),
    List(Vec<Lit>),
    Bool(bool),
    None,
    /// A name (a module-level constant, perhaps).
    Name(String),
    /// Anything else: a call, an f-string, arithmetic.
    Other,
}

/// Splits `text` at the commas outside brackets and strings.
fn split_top(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' => quote = Some(c),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
        .into_iter()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect()
}

fn literal(expr: &str) -> Lit {
    literal_at(expr, 0)
}

/// A literal inside `depth` brackets.
fn literal_at(expr: &str, depth: usize) -> Lit {
    let expr = expr.trim();
    match expr {
        "True" => return Lit::Bool(true),
        "False" => return Lit::Bool(false),
        "None" => return Lit::None,
        _ => {}
    }
    if let Some(inner) = expr
        .strip_prefix('[')
        .and_then(|e| e.strip_suffix(']'))
        .or_else(|| expr.strip_prefix('(').and_then(|e| e.strip_suffix(')')))
    {
        if depth >= MAX_DEPTH {
            return Lit::Other;
        }
        return Lit::List(
            split_top(inner)
                .into_iter()
                .map(|item| literal_at(item, depth + 1))
                .collect(),
        );
    }
    if let Some(s) = string_literal(expr) {
        return Lit::Str(s);
    }
    if !expr.is_empty()
        && expr
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
        && !expr.starts_with(|c: char| c.is_ascii_digit())
    {
        return Lit::Name(expr.to_owned());
    }
    Lit::Other
}

/// The value of one Python string literal (`'x'`, `"x"`, `"""x"""`, `r'x'`, `u"x"`); `None`
/// for an f-string, bytes, or anything that is not exactly one literal.
fn string_literal(expr: &str) -> Option<String> {
    let prefix_len = expr
        .find(['\'', '"'])
        .filter(|&p| p <= 2 && expr[..p].chars().all(|c| "rRuU".contains(c)))?;
    let raw = expr[..prefix_len].contains(['r', 'R']);
    let body = &expr[prefix_len..];
    let quote = if body.starts_with("\"\"\"") || body.starts_with("'''") {
        &body[..3]
    } else {
        &body[..1]
    };
    let inner = body.strip_prefix(quote)?.strip_suffix(quote)?;
    // `'a' 'b'` (two literals) would end inside.
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            let next = chars.next()?;
            if raw {
                out.push(c);
                out.push(next);
                continue;
            }
            match next {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                '\n' => {}
                other @ ('\\' | '\'' | '"') => out.push(other),
                other => {
                    out.push('\\');
                    out.push(other);
                }
            }
        } else if quote.len() == 1 && quote.starts_with(c) {
            return None;
        } else {
            out.push(c);
        }
    }
    Some(out)
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
pub fn parse_noxfile(source: &str) -> Noxfile {
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
                for item in items {
                    match item {
                        Lit::Str(p) if seen.contains(p.as_str()) => {}
                        Lit::Str(p) => {
                            // Each Python is a session `name-python` of its own.
                            let cost = session.name.len() + 1 + p.len();
                            if cut > 0 || listed >= MAX_SESSIONS || name_bytes < cost {
                                cut += 1;
                                continue;
                            }
                            seen.insert(p.as_str());
                            name_bytes -= cost;
                            listed += 1;
                            session.pythons.push(p.clone());
                        }
                        _ => others += 1,
                    }
                }
                match others {
                    0 => {}
                    1 => out.notes.push(format!(
                        "session `{}`: a python that is not a string is left out",
                        session.name
                    )),
                    n => out.notes.push(format!(
                        "session `{}`: {n} pythons that are not strings are left out",
                        session.name
                    )),
                }
                if cut > 0 {
                    out.notes.push(format!(
                        "session `{}`: {cut} of its {} pythons are not listed (at most \
                         {MAX_SESSIONS} sessions, of at most {} MiB of names, per noxfile)",
                        session.name,
                        items.len(),
                        MAX_NAME_BYTES >> 20
                    ));
                }
            }
            Lit::Name(_) | Lit::Other => out.notes.push(format!(
                "session `{}`: its pythons come from an expression only running the noxfile \
                 tells; listed by its name alone (`nox -s {}` runs them all)",
                session.name, session.name
            )),
            _ => {}
        }
        for (dotted, args) in &decorators {
            if names.is(dotted, "parametrize", &names.parametrize) {
                let args = args.as_deref().unwrap_or("");
                let first = split_top(args)
                    .into_iter()
                    .find(|a| !a.contains('=') || a.trim_start().starts_with("arg_names"))
                    .map(|a| a.split_once('=').map_or(a, |(_, v)| v));
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
            }
        }
        out.sessions.push(session);
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

    #[test]
    fn literals() {
        assert_eq!(literal(r#"'a\'b'"#), Lit::Str("a'b".into()));
        assert_eq!(literal(r#"r"a\n""#), Lit::Str(r"a\n".into()));
        assert_eq!(literal(r#"f"a{b}""#), Lit::Other);
        assert_eq!(literal(r#""a" "b""#), Lit::Other);
        assert_eq!(
            literal(r#"("3.10", '3.11',)"#),
            Lit::List(vec![Lit::Str("3.10".into()), Lit::Str("3.11".into())])
        );
    }
}
