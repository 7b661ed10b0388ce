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
}

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
#[expect(
    clippy::too_many_lines,
    reason = "over 80 lines when the limit was set; split it when it next changes"
)]
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
    /// A decimal integer, as written (`3`, `-2`).
    Int(String),
    List(Vec<Lit>),
    /// `*NAME` inside a list: the items of a module-level constant, spread.
    Spread(String),
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
    let digits = expr.strip_prefix('-').unwrap_or(expr);
    if !digits.is_empty() && digits.len() <= 40 && digits.bytes().all(|b| b.is_ascii_digit()) {
        // Python prints `007` as an error and `0` as itself; other leading zeros are not
        // integers it writes back the same.
        if digits == "0" || !digits.starts_with('0') {
            return Lit::Int(expr.to_owned());
        }
        return Lit::Other;
    }
    if let Some(name) = expr.strip_prefix('*')
        && depth > 0
        && let Lit::Name(name) = literal_at(name, depth)
    {
        return Lit::Spread(name);
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

/// Stands for an item a spread cannot be followed into.
static UNREADABLE: Lit = Lit::Other;

/// The items of a list literal with each `*NAME` spread of a module-level list replaced by
/// its items, in order, passed to `each`. Constants are read where they are, never copied.
/// Every item looked at costs one of `visits`, a budget for the whole noxfile, so a list
/// spread many times over cannot make reading it more than linear; `false` when the
/// budget ran out before the end.
fn for_each_item<'a>(
    items: &'a [Lit],
    constants: &'a HashMap<String, Lit>,
    depth: usize,
    visits: &mut usize,
    each: &mut dyn FnMut(&'a Lit),
) -> bool {
    for item in items {
        if *visits == 0 {
            return false;
        }
        *visits -= 1;
        match item {
            Lit::Spread(name) => match constants.get(name) {
                Some(Lit::List(inner)) if depth < MAX_SPREAD_DEPTH => {
                    if !for_each_item(inner, constants, depth + 1, visits, each) {
                        return false;
                    }
                }
                _ => each(&UNREADABLE),
            },
            item => each(item),
        }
    }
    true
}

/// How Python's `repr` writes a parameter value, the way nox names a parameter set
/// (`'pip'`, `"it's"`, `3`, `True`); `None` for a value whose repr this does not know
/// (floats, tuples, calls) or holding characters repr would escape.
fn python_repr(value: &Lit) -> Option<String> {
    match value {
        Lit::Str(s) => {
            // Letters and ASCII marks only: repr escapes unprintable characters in ways
            // not worth copying, and a name with whitespace cannot be an op anyway.
            if !s
                .chars()
                .all(|c| c.is_alphanumeric() || (c.is_ascii_punctuation() && c != '\\') || c == ' ')
            {
                return None;
            }
            if s.contains('\'') && !s.contains('"') {
                Some(format!("\"{s}\""))
            } else {
                Some(format!("'{}'", s.replace('\'', "\\'")))
            }
        }
        Lit::Int(n) => Some(n.clone()),
        Lit::Bool(true) => Some("True".into()),
        Lit::Bool(false) => Some("False".into()),
        Lit::None => Some("None".into()),
        _ => None,
    }
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
                        total,
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

    /// Property: spreads are followed a few constants deep and never into themselves, and
    /// what reading lists looks at stays within the noxfile's size however often a long
    /// list is spread.
    #[test]
    fn spreads_are_bounded() {
        let source = "import nox\nA = ['3.9']\nA = [*A, '3.10']\nB = [*A, *C]\n@nox.session(python=[*B, '3.13'])\ndef t(s): pass\n";
        let noxfile = parse_noxfile(source);
        // `A` spreading itself is followed no further than the depth bound; `C` is unknown.
        assert_eq!(noxfile.sessions[0].pythons, ["3.10", "3.13"]);
        assert_eq!(
            noxfile.notes,
            ["session `t`: 2 pythons that are not strings are left out"]
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
