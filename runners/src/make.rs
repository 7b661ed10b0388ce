//! `make`: targets of the makefile GNU make would read, parsed as text. make itself is never
//! asked: `make -p` runs `$(shell …)` and rebuilds included makefiles.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::detection::{Absence, Context, RunnerDef, Words};
use crate::files::{MAX_MAKEFILE, ReadError, read_limited};
use crate::quote::quote_cow;
use crate::runner::{Repeats, Runner, Task};

pub(crate) const RUNNER: RunnerDef = RunnerDef {
    id: "make",
    label: "Make",
    executes: "nothing: makefiles are read as text, never with `make -p`",
    manifests: MAKEFILES,
    detect,
    words: Words::Settings,
    included: Some(included),
    ..RunnerDef::BASE
};

/// The files a makefile's `include`, `-include` and `sinclude` lines name.
fn included(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in text.lines() {
        let rest = ["include ", "-include ", "sinclude "]
            .iter()
            .find_map(|k| line.strip_prefix(k));
        if let Some(rest) = rest {
            found.extend(rest.split_whitespace().map(str::to_owned));
        }
    }
    found
}

/// GNU make reads the first of these that exists.
const MAKEFILES: &[&str] = &["GNUmakefile", "makefile", "Makefile"];

/// Includes deeper than this are not followed (a guard beside the cycle check).
const MAX_INCLUDE_DEPTH: usize = 16;

/// The most bytes the makefile and everything it includes may hold together: a chain of
/// includes (or one wildcard matching thousands of files) costs no more than one big file.
const MAX_TOTAL_BYTES: u64 = MAX_MAKEFILE;

/// The most makefiles read for one project, the main one included.
const MAX_MAKEFILES: usize = 1000;

/// How deeply variable references may nest while an include path is expanded.
const MAX_EXPANSION_DEPTH: usize = 16;

/// The longest text an include line may expand to.
const MAX_EXPANSION_BYTES: usize = 64 << 10;

fn detect(ctx: &Context<'_>) -> Result<Runner, Absence> {
    let name = MAKEFILES
        .iter()
        // Whatever its kind: make would pick it, and reading it says why it is refused.
        .find(|name| ctx.root.join(name).symlink_metadata().is_ok())
        .ok_or_else(|| Absence::Absent("no makefile in the root".into()))?;
    ctx.needs_binary("make")?;
    let mut reader = Reader {
        ctx,
        root: ctx.root,
        canonical_root: ctx
            .root
            .canonicalize()
            .unwrap_or_else(|_| ctx.root.to_path_buf()),
        seen: HashSet::new(),
        notes: Vec::new(),
        budget: MAX_TOTAL_BYTES,
    };
    let mut makefile = Makefile::default();
    // `$(CURDIR)` is where make runs: the root.
    makefile.vars.values.insert(
        "CURDIR".into(),
        Value::Simple(ctx.root.to_string_lossy().into_owned()),
    );
    reader
        .read(&ctx.root.join(name), name, &mut makefile, 0)
        .map_err(Absence::Failed)?;
    let mut runner = makefile.into_runner();
    runner.notes.extend(reader.notes);
    if runner.tasks.is_empty() {
        return Err(Absence::Absent(format!("{name} defines no targets")));
    }
    Ok(runner)
}

/// Reads makefiles and the includes they name, inside the root, once each, within a total
/// byte budget.
struct Reader<'a> {
    ctx: &'a Context<'a>,
    root: &'a Path,
    canonical_root: PathBuf,
    seen: HashSet<PathBuf>,
    notes: Vec<String>,
    /// Bytes still allowed to be read.
    budget: u64,
}

impl Reader<'_> {
    fn read(
        &mut self,
        path: &Path,
        shown: &str,
        makefile: &mut Makefile,
        depth: usize,
    ) -> Result<(), String> {
        self.ctx.depends_on(path.to_path_buf());
        let canonical = path
            .canonicalize()
            .map_err(|err| format!("{shown}: cannot read: {err}"))?;
        // The root makefile too: `Makefile -> /etc/passwd` is not the project's.
        if !canonical.starts_with(&self.canonical_root) {
            let err = ReadError::OutsideRoot { target: canonical };
            return Err(format!("{shown}: {err}"));
        }
        if self.seen.contains(&canonical) {
            return Ok(());
        }
        if self.seen.len() >= MAX_MAKEFILES {
            return Err(format!(
                "{shown}: more than {MAX_MAKEFILES} makefiles are included; not read"
            ));
        }
        self.seen.insert(canonical);
        let bytes = read_limited(path, self.budget).map_err(|err| match err {
            ReadError::TooLarge { .. } if self.budget < MAX_TOTAL_BYTES => format!(
                "{shown}: the makefiles together would pass {} MiB; not read",
                MAX_TOTAL_BYTES >> 20
            ),
            err => format!("{shown}: {err}"),
        })?;
        self.budget = self.budget.saturating_sub(bytes.len() as u64);
        let (text, lossy) = match std::str::from_utf8(&bytes) {
            Ok(text) => (Cow::Borrowed(text), false),
            Err(_) => (String::from_utf8_lossy(&bytes), true),
        };
        // Targets of an include come where the include line is, so it is followed at once;
        // variables set so far are those make knows at that point.
        parse_lines(&text, |event| match event {
            Line::Include { words, optional } => {
                self.include_line(&words, optional, makefile, depth);
            }
            other => makefile.add(other, lossy),
        });
        Ok(())
    }

    /// Follows an include line: its variables expanded, its wildcards matched.
    fn include_line(&mut self, words: &str, optional: bool, makefile: &mut Makefile, depth: usize) {
        let expanded = match makefile.vars.expand(words, 0) {
            Ok(expanded) => expanded,
            Err(why) => {
                self.notes
                    .push(format!("include `{}` is not followed: {why}", words.trim()));
                return;
            }
        };
        for word in expanded.split_ascii_whitespace() {
            if word.contains(['*', '?', '[']) {
                self.include_wildcard(word, optional, makefile, depth);
            } else {
                self.include(word, optional, makefile, depth);
            }
        }
    }

    /// Follows each file a wildcard include matches, in sorted order as make does. Only
    /// the last part of the path may hold a wildcard.
    fn include_wildcard(
        &mut self,
        word: &str,
        optional: bool,
        makefile: &mut Makefile,
        depth: usize,
    ) {
        let (dir, pattern) = match word.rsplit_once('/') {
            Some((dir, pattern)) => (Some(dir), pattern),
            None => (None, word),
        };
        if dir.is_some_and(|d| d.contains(['*', '?', '['])) {
            self.notes.push(format!(
                "include `{word}` is not followed: a wildcard in a folder name is not read"
            ));
            return;
        }
        let folder = match dir {
            Some("") => PathBuf::from("/"),
            Some(dir) => self.root.join(dir),
            None => self.root.to_path_buf(),
        };
        // Adding a file that matches changes the listing.
        self.ctx.depends_on(folder.clone());
        let inside = folder
            .canonicalize()
            .is_ok_and(|c| c.starts_with(&self.canonical_root));
        if !inside {
            if folder.exists() {
                self.notes.push(format!(
                    "include `{word}` is outside the project root, not followed"
                ));
            }
            return;
        }
        let matcher = match globset::GlobBuilder::new(pattern)
            .literal_separator(true)
            .backslash_escape(true)
            .build()
        {
            Ok(glob) => glob.compile_matcher(),
            Err(err) => {
                self.notes
                    .push(format!("include `{word}` is not followed: {err}"));
                return;
            }
        };
        let mut names: Vec<String> = std::fs::read_dir(&folder)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|entry| entry.file_name().into_string().ok())
            // As in the shell, a wildcard matches a leading dot only when written.
            .filter(|name| !name.starts_with('.') || pattern.starts_with('.'))
            .filter(|name| matcher.is_match(name))
            .collect();
        names.sort_unstable();
        if names.is_empty() && !optional {
            self.notes.push(format!("include `{word}` matches no file"));
        }
        for name in names {
            let shown = match dir {
                Some(dir) => format!("{dir}/{name}"),
                None => name,
            };
            self.include(&shown, optional, makefile, depth);
        }
    }

    fn include(&mut self, include: &str, optional: bool, makefile: &mut Makefile, depth: usize) {
        if depth >= MAX_INCLUDE_DEPTH {
            self.notes.push(format!(
                "include `{include}`: nested too deep, not followed"
            ));
            return;
        }
        // make resolves includes against its working directory, which is the root.
        let path = self.root.join(include);
        // A missing optional include matters too: creating it adds targets.
        self.ctx.depends_on(path.clone());
        match path.canonicalize() {
            Ok(canonical) if canonical.starts_with(&self.canonical_root) => {
                if let Err(err) = self.read(&path, include, makefile, depth + 1) {
                    self.notes.push(err);
                }
            }
            Ok(_) => self.notes.push(format!(
                "include `{include}` is outside the project root, not followed"
            )),
            Err(_) if optional => {}
            Err(err) => self.notes.push(format!("include `{include}`: {err}")),
        }
    }
}

/// What detection collects from a makefile and its includes.
#[derive(Debug, Default)]
struct Makefile {
    /// Targets in order of appearance (repeats included: the runner keeps the first).
    targets: Vec<RawTarget>,
    /// Names declared phony.
    phony: HashSet<String>,
    /// Docs from `#? name: text` lines (the first for a name wins).
    help: HashMap<String, String>,
    /// Variables set so far, for include paths, target names and `.DEFAULT_GOAL`.
    vars: Variables,
    /// What could not be listed, with why (a target named by a variable make alone knows).
    notes: Vec<String>,
}

impl Makefile {
    /// Takes in what one line says (an include line is the reader's to follow); `lossy`
    /// says the text had bytes that are not UTF-8, which a name may then hold.
    fn add(&mut self, line: Line, lossy: bool) {
        match line {
            Line::Target(mut target) => {
                target.invalid_utf8 = lossy && target.name.contains('\u{FFFD}');
                self.targets.push(target);
            }
            Line::NamedByVariables { word, doc, above } => {
                let names = match self.target_names(&word) {
                    Ok(names) => names,
                    Err(why) => {
                        let note = format!("targets `{word}` are not listed: {why}");
                        if !self.notes.contains(&note) {
                            self.notes.push(note);
                        }
                        return;
                    }
                };
                for name in names {
                    let above = above.as_deref().and_then(|a| without_name(a, &name));
                    self.targets.push(RawTarget {
                        invalid_utf8: lossy && name.contains('\u{FFFD}'),
                        doc: doc.clone(),
                        above,
                        name,
                    });
                }
            }
            Line::Phony(words) => {
                for word in words {
                    if word.contains('$') {
                        // A phony name make alone knows cannot be listed anyway.
                        if let Ok(names) = self.target_names(&word) {
                            self.phony.extend(names);
                        }
                    } else {
                        self.phony.insert(word);
                    }
                }
            }
            Line::HelpDoc { name, text } => {
                self.help.entry(name).or_insert(text);
            }
            Line::Assign(assignment) => self.vars.assign(assignment),
            Line::Include { .. } => {}
        }
    }

    /// The names a word of a rule's target list stands for, its variables expanded as make
    /// expands them when it reads the rule (with the values set so far), or why that takes
    /// make itself.
    fn target_names(&self, word: &str) -> Result<Vec<String>, String> {
        let expanded = self.vars.expand(word, 0)?;
        if expanded.contains(['*', '?', '[']) {
            return Err("they are files only make would find".into());
        }
        Ok(expanded
            .split_ascii_whitespace()
            .map(|name| unescape_colons(name).into_owned())
            .collect())
    }

    /// The goal `make` alone builds: `.DEFAULT_GOAL` when set, else the first target whose
    /// name does not start with `.` (pattern rules never are).
    fn default_goal(&self) -> Option<String> {
        if let Some(Value::Simple(goal) | Value::Recursive(goal)) =
            self.vars.values.get(".DEFAULT_GOAL")
        {
            let goal = goal.trim();
            return (!goal.is_empty() && !goal.contains('$')).then(|| goal.to_owned());
        }
        let first = self
            .targets
            .iter()
            .find(|t| !t.name.starts_with('.') && !t.name.contains('%'))?;
        // A goal built from a variable cannot be named without make.
        (!first.name.contains('$')).then(|| first.name.clone())
    }

    /// The tasks: every explicit target a person would type. Phony targets, documented
    /// ones, names that look like commands (no `.`, `/`, `%` or `$`) and the default goal;
    /// file-like names (`foo.o`, `build/out.txt`) only when documented.
    fn into_runner(self) -> Runner {
        let mut runner = Runner::new("make", "Make", "make");
        let default_goal = self.default_goal();
        runner.notes = self.notes;
        let mut tasks = Vec::with_capacity(self.targets.len());
        let mut left_out = HashSet::new();
        for target in self.targets {
            if !is_task_name(&target.name) {
                continue;
            }
            if target.invalid_utf8 || target.name.starts_with('-') {
                if left_out.insert(target.name.clone()) {
                    runner.notes.push(if target.invalid_utf8 {
                        format!(
                            "target {:?} is left out: its name is not valid UTF-8, so an op \
                             cannot name it",
                            target.name
                        )
                    } else {
                        format!(
                            "target `{}` is left out: make would read its name as an option",
                            target.name
                        )
                    });
                }
                continue;
            }
            let phony = self.phony.contains(&target.name);
            let file_like = target.name.contains(['.', '/']);
            // `_name` is the usual mark of a helper rule not meant to be typed.
            let helper = target.name.starts_with('_');
            let doc = target
                .doc
                .or_else(|| self.help.get(&target.name).cloned())
                .or(target.above);
            let doc = match doc {
                Some(doc) if file_like && !phony && !self.phony.is_empty() => {
                    Some(format!("{doc} (file target)"))
                }
                Some(doc) => Some(doc),
                None if phony
                    || (!file_like && !helper)
                    || default_goal.as_deref() == Some(target.name.as_str()) =>
                {
                    None
                }
                None => continue,
            };
            let quoted = quote_cow(&target.name);
            let mut command = String::with_capacity(5 + quoted.len());
            command.push_str("make ");
            command.push_str(&quoted);
            tasks.push(Task {
                command,
                name: target.name,
                doc,
                params: Vec::new(),
                cwd: None,
            });
        }
        runner.extend_first(tasks, Repeats::Quiet);
        runner
    }
}

/// A target found in a makefile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// Its name.
    pub name: String,
    /// What it does: `## text` after it on its line, a `#? name: text` line, or the comment
    /// block right above it.
    pub doc: Option<String>,
}

/// A target as a line states it, before the makefile as a whole decides about it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct RawTarget {
    name: String,
    /// `## text` on its line.
    doc: Option<String>,
    /// The comment block directly above its line.
    above: Option<String>,
    /// Its name came from bytes that are not UTF-8.
    invalid_utf8: bool,
}

/// A variable assignment line.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Assignment {
    name: String,
    op: AssignOp,
    value: String,
}

/// The flavours of make's assignment operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AssignOp {
    /// `=`: expanded when used.
    Recursive,
    /// `:=`, `::=`, `:::=`: expanded now.
    Simple,
    /// `?=`: only when not set.
    IfUnset,
    /// `+=`: appended.
    Append,
    /// `!=`: the output of a shell command.
    Shell,
}

/// A variable's value as far as detection can know it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Value {
    /// Text expanded when used.
    Recursive(String),
    /// Text already expanded.
    Simple(String),
    /// Only running make could tell (a shell command's output).
    Unknown(&'static str),
}

/// Variables set in the makefiles so far, in reading order. Conditionals are not
/// evaluated: the last assignment read wins, which is right for the usual layouts.
#[derive(Debug, Default)]
struct Variables {
    values: HashMap<String, Value>,
}

impl Variables {
    fn assign(&mut self, a: Assignment) {
        let value = match a.op {
            AssignOp::Recursive => Value::Recursive(a.value),
            AssignOp::Simple => match self.expand(&a.value, 0) {
                Ok(text) => Value::Simple(text),
                Err(_) => Value::Recursive(a.value),
            },
            AssignOp::IfUnset => {
                if self.values.contains_key(&a.name) {
                    return;
                }
                Value::Recursive(a.value)
            }
            AssignOp::Append => match self.values.get(&a.name) {
                Some(Value::Recursive(old)) => Value::Recursive(format!("{old} {}", a.value)),
                Some(Value::Simple(old)) => match self.expand(&a.value, 0) {
                    Ok(text) => Value::Simple(format!("{old} {text}")),
                    Err(_) => Value::Recursive(format!("{old} {}", a.value)),
                },
                Some(Value::Unknown(why)) => Value::Unknown(why),
                None => Value::Recursive(a.value),
            },
            AssignOp::Shell => Value::Unknown("is set by a shell command"),
        };
        self.values.insert(a.name, value);
    }

    /// `text` with its variable references replaced, or why that cannot be done without
    /// running make. `$(wildcard …)` gives its patterns, which the caller matches.
    fn expand(&self, text: &str, depth: usize) -> Result<String, String> {
        if depth > MAX_EXPANSION_DEPTH {
            return Err("its variables nest too deeply".into());
        }
        if !text.contains('$') {
            return Ok(text.to_owned());
        }
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find('$') {
            out.push_str(&rest[..at]);
            let after = &rest[at + 1..];
            let mut chars = after.chars();
            let (reference, used) = match chars.next() {
                None => ("", 0),
                Some('$') => {
                    out.push('$');
                    rest = &after[1..];
                    continue;
                }
                Some(open @ ('(' | '{')) => {
                    let close = if open == '(' { ')' } else { '}' };
                    let end = matching_close(after, open, close)
                        .ok_or_else(|| "it has an unclosed `$(`".to_owned())?;
                    (&after[1..end], end + 1)
                }
                Some(c) => (&after[..c.len_utf8()], c.len_utf8()),
            };
            rest = &after[used..];
            if reference.is_empty() {
                continue;
            }
            out.push_str(&self.reference(reference, depth)?);
            if out.len() > MAX_EXPANSION_BYTES {
                return Err("it expands to too much text".into());
            }
        }
        out.push_str(rest);
        Ok(out)
    }

    /// The value of one `$(…)` reference.
    fn reference(&self, inner: &str, depth: usize) -> Result<String, String> {
        if let Some((function, args)) = inner.split_once([' ', '\t']) {
            return match function {
                "wildcard" => self.expand(args, depth + 1),
                _ => Err(format!("`$({function} …)` needs make to evaluate")),
            };
        }
        if inner.contains(':') {
            return Err(format!("`$({inner})` needs make to evaluate"));
        }
        let name = self.expand(inner, depth + 1)?;
        match self.values.get(&name) {
            Some(Value::Recursive(text)) => self.expand(text, depth + 1),
            Some(Value::Simple(text)) => Ok(text.clone()),
            Some(Value::Unknown(why)) => Err(format!("`{name}` {why}")),
            None => Err(format!(
                "`{name}` is not set in the makefile (only make knows its value)"
            )),
        }
    }
}

/// Where the reference opened by `after[0]` closes, counting nested pairs.
fn matching_close(after: &str, open: char, close: char) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in after.char_indices() {
        if c == open {
            depth += 1;
        } else if c == close {
            depth -= 1;
            if depth == 0 {
                return Some(i);
            }
        }
    }
    None
}

/// What a logical makefile line means for detection.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Line {
    Target(RawTarget),
    /// A word of a rule's target list that holds a variable reference (`$(CMDS)`), with
    /// the rule's `##` doc and the comment block above it.
    NamedByVariables {
        word: String,
        doc: Option<String>,
        above: Option<String>,
    },
    /// The words of a `.PHONY` line, `\:` unescaped in plain ones.
    Phony(Vec<String>),
    HelpDoc {
        name: String,
        text: String,
    },
    Assign(Assignment),
    Include {
        words: String,
        optional: bool,
    },
}

/// Times the stages of parsing (a development aid for the benchmarks).
#[doc(hidden)]
pub fn stage_timings(text: &str) -> Vec<(&'static str, std::time::Duration)> {
    let mut out = Vec::new();
    let t = std::time::Instant::now();
    let n = logical_lines(text).count();
    out.push(("logical lines", t.elapsed()));
    let t = std::time::Instant::now();
    let mut count = 0;
    parse_lines(text, |_| count += 1);
    out.push(("parse lines", t.elapsed()));
    let t = std::time::Instant::now();
    let makefile = collect(text);
    out.push(("collect targets", t.elapsed()));
    let t = std::time::Instant::now();
    let runner = makefile.into_runner();
    out.push(("into runner", t.elapsed()));
    assert!(n > 0 && count > 0 && !runner.tasks.is_empty());
    out
}

/// What one makefile's text says, without following includes.
fn collect(text: &str) -> Makefile {
    let mut makefile = Makefile::default();
    parse_lines(text, |line| makefile.add(line, false));
    makefile
}

/// The targets of one makefile's text, in order, without following includes: what
/// detection lists for it when it includes nothing.
pub fn parse_makefile(text: &str) -> Vec<Target> {
    collect(text)
        .into_runner()
        .tasks
        .into_iter()
        .map(|t| Target {
            name: t.name,
            doc: t.doc,
        })
        .collect()
}

/// Calls `emit` with what each logical line of `text` means, in order.
fn parse_lines(text: &str, mut emit: impl FnMut(Line)) {
    let mut define_depth = 0usize;
    // The comment lines right above the current line: a rule's doc when a rule follows.
    let mut comments: Vec<Cow<'_, str>> = Vec::new();
    for line in logical_lines(text) {
        // Lines inside `define … endef` are a variable's value, whatever they look like.
        if define_depth > 0 {
            let trimmed = line.trim_ascii_start();
            if trimmed.split_ascii_whitespace().next() == Some("endef") {
                define_depth -= 1;
            } else if starts_define(trimmed) {
                define_depth += 1;
            }
            continue;
        }
        // Recipe lines start with a tab; blank lines end a comment block.
        let trimmed = line.trim_ascii_start();
        if line.starts_with('\t') || trimmed.is_empty() {
            comments.clear();
            continue;
        }
        if let Some(rest) = trimmed.strip_prefix('#') {
            match rest.strip_prefix('?') {
                Some(help) => {
                    if let Some(doc) = help_doc(help) {
                        emit(doc);
                    }
                }
                None => comments.push(line),
            }
            continue;
        }
        if starts_define(trimmed) {
            define_depth += 1;
            comments.clear();
            continue;
        }
        if let Some(include) = include_line(trimmed) {
            emit(include);
            comments.clear();
            continue;
        }
        if let Some(assignment) = assignment(trimmed) {
            emit(Line::Assign(assignment));
            comments.clear();
            continue;
        }
        // A target line starts at column 0.
        if line.starts_with(' ') {
            comments.clear();
            continue;
        }
        // A comment above `.PHONY: x` still documents the rule of `x` below it.
        if !target_line(&line, &comments, &mut emit) {
            comments.clear();
        }
    }
}

fn starts_define(trimmed: &str) -> bool {
    // Most lines are not: skip the word splitting for them.
    if !trimmed.contains("define") {
        return false;
    }
    let mut words = trimmed.split_ascii_whitespace();
    let mut word = words.next();
    while matches!(word, Some("override" | "export" | "private")) {
        word = words.next();
    }
    word == Some("define")
}

/// The lines of `text` with CRLF endings and `\` continuations taken care of; a line is
/// borrowed from `text` unless it had to be joined.
fn logical_lines(text: &str) -> impl Iterator<Item = Cow<'_, str>> {
    let mut raw_lines = text.split('\n');
    std::iter::from_fn(move || {
        let mut joined: Option<String> = None;
        loop {
            let Some(raw) = raw_lines.next() else {
                return joined.filter(|j| !j.is_empty()).map(Into::into);
            };
            let raw = raw.strip_suffix('\r').unwrap_or(raw);
            // An odd number of trailing backslashes continues the line.
            let trailing = raw.bytes().rev().take_while(|&b| b == b'\\').count();
            if trailing % 2 == 1 {
                let part = joined.get_or_insert_with(String::new);
                part.push_str(raw[..raw.len() - 1].trim_ascii_end());
                part.push(' ');
                continue;
            }
            return Some(match joined {
                Some(mut part) => {
                    part.push_str(raw);
                    part.into()
                }
                None => raw.into(),
            });
        }
    })
}

/// A `#? name: text` line (after its `#?`), a convention of self-documenting makefiles.
fn help_doc(rest: &str) -> Option<Line> {
    let (name, text) = rest.split_once(':')?;
    let (name, text) = (name.trim_ascii(), text.trim_ascii());
    (!name.is_empty() && !text.is_empty() && !name.contains(char::is_whitespace)).then(|| {
        Line::HelpDoc {
            name: name.to_owned(),
            text: text.to_owned(),
        }
    })
}

/// The doc a comment block gives the rule below it: its lines without their `#` marks,
/// joined, cut at a sentence-sized length; a leading `name:` is left out.
fn block_doc(comments: &[Cow<'_, str>], name: &str) -> Option<String> {
    /// About two lines of prose: the prompt shows one line anyway.
    const MAX: usize = 200;
    let mut doc = String::new();
    for line in comments {
        let text = line
            .trim_ascii()
            .trim_start_matches('#')
            .trim_end_matches('#')
            .trim_ascii();
        if text.is_empty() {
            continue;
        }
        if !doc.is_empty() {
            doc.push(' ');
        }
        doc.push_str(text);
        if doc.len() > MAX {
            let mut cut = MAX;
            while !doc.is_char_boundary(cut) {
                cut -= 1;
            }
            doc.truncate(cut);
            doc.push('…');
            break;
        }
    }
    without_name(&doc, name)
}

/// A doc without a leading `name:` (a comment block often starts with the rule's name), or
/// nothing when that leaves it empty.
fn without_name(doc: &str, name: &str) -> Option<String> {
    let doc = match doc.strip_prefix(name).and_then(|d| d.strip_prefix(':')) {
        Some(rest) => rest.trim_ascii_start(),
        None => doc,
    };
    (!doc.is_empty()).then(|| doc.to_owned())
}

fn include_line(trimmed: &str) -> Option<Line> {
    let (keyword, rest) = trimmed.split_once([' ', '\t'])?;
    let optional = match keyword {
        "include" => false,
        "-include" | "sinclude" => true,
        _ => return None,
    };
    let words = rest.split('#').next().unwrap_or("").to_owned();
    Some(Line::Include { words, optional })
}

/// A variable assignment (`A = b`, `export A := b`, `A ?= b`, …), not a rule.
fn assignment(trimmed: &str) -> Option<Assignment> {
    let eq = trimmed.find('=')?;
    let before = &trimmed[..eq];
    let (name, op) = if let Some(name) = before
        .strip_suffix(":::")
        .or_else(|| before.strip_suffix("::"))
        .or_else(|| before.strip_suffix(':'))
    {
        (name, AssignOp::Simple)
    } else if let Some(name) = before.strip_suffix('?') {
        (name, AssignOp::IfUnset)
    } else if let Some(name) = before.strip_suffix('+') {
        (name, AssignOp::Append)
    } else if let Some(name) = before.strip_suffix('!') {
        (name, AssignOp::Shell)
    } else {
        (before, AssignOp::Recursive)
    };
    // Another `:` before the `=` makes a rule (`a: X = 1` sets a variable for `a` only).
    if name.contains(':') {
        return None;
    }
    let mut words = name.split_ascii_whitespace();
    let mut name = words.next()?;
    while matches!(name, "export" | "override" | "private") {
        name = words.next()?;
    }
    if words.next().is_some() {
        return None;
    }
    let value = trimmed[eq + 1..]
        .split('#')
        .next()
        .unwrap_or("")
        .trim_ascii();
    Some(Assignment {
        name: name.to_owned(),
        op,
        value: value.to_owned(),
    })
}

/// Emits the targets (or the `.PHONY` names) of a line that starts at column 0; says
/// whether it was a `.PHONY` line.
fn target_line(line: &str, comments: &[Cow<'_, str>], emit: &mut impl FnMut(Line)) -> bool {
    let (code, doc) = match line.find("##") {
        Some(at) => (&line[..at], Some(line[at + 2..].trim_ascii())),
        None => (line, None),
    };
    let code = code.split('#').next().unwrap_or("");
    let Some(colon) = rule_colon(code) else {
        return false;
    };
    let (names, after) = (&code[..colon], &code[colon + 1..]);
    // `=` before the colon is an assignment (`A = b:c`, `A ?= x`, `A != cmd`); `:=`, `::=`
    // and `:::=` are assignments too.
    if outside_references(names, b'=').is_some() || after.trim_start_matches(':').starts_with('=') {
        return false;
    }
    // `target: VAR = value` sets a target-specific variable; it does not define the target.
    let prerequisites = after
        .trim_start_matches(':')
        .split(';')
        .next()
        .unwrap_or("");
    if is_variable_assignment(prerequisites) {
        return false;
    }
    // `a b &: c` is a grouped target.
    let names = names.trim_ascii_end().trim_end_matches('&');
    if names.split_ascii_whitespace().any(|n| n == ".PHONY") {
        let phony: Vec<String> = words(prerequisites)
            .map(|word| match word.contains('$') {
                true => word.to_owned(),
                false => unescape_colons(word).into_owned(),
            })
            .collect();
        // `.PHONY: install  ## Install the package` is a common way to document a target
        // (`make help` scripts grep for it); with one name, the doc is that target's.
        if let (Some(doc), [name]) = (doc.filter(|d| !d.is_empty()), phony.as_slice())
            && !name.contains('$')
        {
            emit(Line::HelpDoc {
                name: name.clone(),
                text: doc.to_owned(),
            });
        }
        emit(Line::Phony(phony));
        return true;
    }
    let doc = doc.filter(|d| !d.is_empty());
    let above = |name: &str| {
        if comments.is_empty() || doc.is_some() {
            None
        } else {
            block_doc(comments, name)
        }
    };
    for word in words(names) {
        if word.contains('$') {
            emit(Line::NamedByVariables {
                word: word.to_owned(),
                doc: doc.map(str::to_owned),
                above: above(""),
            });
            continue;
        }
        let name = unescape_colons(word);
        emit(Line::Target(RawTarget {
            above: above(&name),
            name: name.into_owned(),
            doc: doc.map(str::to_owned),
            invalid_utf8: false,
        }));
    }
    false
}

/// Where the colon that ends a rule's target list is: the first one that is neither
/// escaped (`docker\:build`) nor inside a variable reference (`$(SRC:.c=.o)`).
fn rule_colon(code: &str) -> Option<usize> {
    outside_references(code, b':')
}

/// The first `wanted` byte of `code` that is neither escaped with `\` nor inside a
/// variable reference.
fn outside_references(code: &str, wanted: u8) -> Option<usize> {
    let bytes = code.as_bytes();
    let mut depth = 0usize;
    let mut backslashes = 0usize;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'(' | b'{' if depth > 0 || (i > 0 && bytes[i - 1] == b'$') => depth += 1,
            b')' | b'}' if depth > 0 => depth -= 1,
            _ if b == wanted && depth == 0 && backslashes.is_multiple_of(2) => return Some(i),
            _ => {}
        }
        backslashes = if b == b'\\' { backslashes + 1 } else { 0 };
    }
    None
}

/// The whitespace-separated words of a target list, a variable reference with spaces in it
/// (`$(addprefix x-, a b)`) kept whole.
fn words(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut start = 0;
    std::iter::from_fn(move || {
        while start < bytes.len() && bytes[start].is_ascii_whitespace() {
            start += 1;
        }
        if start >= bytes.len() {
            return None;
        }
        let mut depth = 0usize;
        let mut end = start;
        while end < bytes.len() && (depth > 0 || !bytes[end].is_ascii_whitespace()) {
            match bytes[end] {
                b'(' | b'{' if depth > 0 || (end > 0 && bytes[end - 1] == b'$') => depth += 1,
                b')' | b'}' if depth > 0 => depth -= 1,
                _ => {}
            }
            end += 1;
        }
        let word = &text[start..end];
        start = end;
        Some(word)
    })
}

/// A target name as make knows it: `\:` in a makefile is a colon in the name
/// (`docker\:build` is the goal `make docker:build` builds).
fn unescape_colons(word: &str) -> Cow<'_, str> {
    if word.contains("\\:") {
        word.replace("\\:", ":").into()
    } else {
        word.into()
    }
}

/// Whether `text` (what follows a target's colon) is `VAR = value`, `VAR := value`, …
fn is_variable_assignment(text: &str) -> bool {
    let text = text.trim_ascii_start();
    let Some(eq) = text.find('=') else {
        return false;
    };
    let before = text[..eq].trim_ascii_end();
    let before = before
        .strip_suffix([':', '?', '+', '!'])
        .unwrap_or(before)
        .trim_end_matches(':');
    let mut words = before.split_ascii_whitespace();
    let name = match words.next() {
        Some("export" | "override" | "private") => words.next(),
        other => other,
    };
    name.is_some_and(|n| !n.is_empty()) && words.next().is_none()
}

/// Names that can be tasks: not special (`.PHONY`, `.SUFFIXES`, suffix rules), not
/// patterns, not built from variables.
fn is_task_name(name: &str) -> bool {
    !name.is_empty() && !name.starts_with('.') && !name.contains(['%', '$', '=', '(', ')'])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn case(text: &str, want: &[(&str, Option<&str>)]) {
        let got = parse_makefile(text);
        let got: Vec<(&str, Option<&str>)> = got
            .iter()
            .map(|t| (t.name.as_str(), t.doc.as_deref()))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn recorded_sample() {
        case(
            include_str!("../tests/samples/Makefile.input"),
            &[
                ("all", Some("Build everything")),
                ("build", Some("compile the program")),
                ("test", Some("run the tests")),
                ("clean", Some("remove build outputs")),
                ("help", None),
            ],
        );
    }

    #[test]
    fn rules() {
        case(
            "a:\n\techo\nb: a ## doc b\n",
            &[("a", None), ("b", Some("doc b"))],
        );
        case(
            "a:\r\n\techo\r\nb: ## crlf doc\r\n",
            &[("a", None), ("b", Some("crlf doc"))],
        );
        case(
            "X ::= 1\nY :::= 2\nZ := 3\nW = a:b\nV ?= 1\nU += 2\nT != date\nok:\n",
            &[("ok", None)],
        );
        case(
            "define BODY\nfake: target\nendef\nreal:\n",
            &[("real", None)],
        );
        case("a b: dep\n", &[("a", None), ("b", None)]);
        case(
            ".PHONY: docs.html bin/app 1st\ndocs.html: x\nbin/app:\n1st:\n",
            &[("docs.html", None), ("bin/app", None), ("1st", None)],
        );
        case(
            "%.o: %.c\n$(OUT): x\n${B}:\n.SUFFIXES:\n.c.o:\nok:\n",
            &[("ok", None)],
        );
        case(
            "long: a \\\n  b \\\n  c ## joined\n",
            &[("long", Some("joined"))],
        );
        case("a:\na: ## second\n", &[("a", None)]);
        case("build: CFLAGS += -O2\nbuild:\n", &[("build", None)]);
        case("a b &: c\n", &[("a", None), ("b", None)]);
        case("x:: y\n", &[("x", None)]);
        case("  indented: no\n", &[]);
    }

    #[test]
    fn phony_rules() {
        case(
            ".PHONY: test\ntest:\nout.txt: ## writes out.txt\nother.o:\n",
            &[
                ("test", None),
                ("out.txt", Some("writes out.txt (file target)")),
            ],
        );
    }

    #[test]
    fn targets_people_type() {
        // A partial `.PHONY` no longer hides the undocumented targets people use, and file
        // targets stay out unless documented or the default goal.
        case(
            concat!(
                "server: main.o\n\tcc -o server main.o\n",
                ".PHONY: clean\n",
                "clean:\n",
                "test install check:\n",
                "main.o: main.c\n",
                "build/out.txt:\n",
                "docs/index.html: ## the manual\n",
                "_helper:\n",
            ),
            &[
                ("server", None),
                ("clean", None),
                ("test", None),
                ("install", None),
                ("check", None),
                ("docs/index.html", Some("the manual (file target)")),
            ],
        );
        // Without `.PHONY` the rule is the same: `foo.o` is not a task.
        case(
            "all: foo.o\nfoo.o:\nbuild/out.txt:\nrun:\n",
            &[("all", None), ("run", None)],
        );
        // `.DEFAULT_GOAL` names the default goal, listed even when file-like.
        case(
            ".DEFAULT_GOAL := app.bin\nrun:\napp.bin:\n",
            &[("run", None), ("app.bin", None)],
        );
    }

    #[test]
    fn docs_from_comments_and_help_lines() {
        case(
            concat!(
                "#? lint: check the style\n",
                "# Build the program.\n",
                "# Needs a C compiler.\n",
                "build:\n",
                "\n",
                "# not above anything\n",
                "\n",
                "lint:\n",
                "## test: run every test\n",
                ".PHONY: test\n",
                "test: ## inline wins\n",
                "#######\n",
                "# Fmt #\n",
                "#######\n",
                "fmt:\n",
                "#? -weird line without a colon\n",
                "bench:\n",
            ),
            &[
                ("build", Some("Build the program. Needs a C compiler.")),
                ("lint", Some("check the style")),
                ("test", Some("inline wins")),
                ("fmt", Some("Fmt")),
                ("bench", None),
            ],
        );
        // `.PHONY: x  ## doc` documents `x`; the rule's own `##` wins.
        case(
            ".PHONY: install  ## Install the package\ninstall:\n.PHONY: lint ## phony doc\nlint: ## the rule's doc\n.PHONY: a b ## two names\na:\nb:\n",
            &[
                ("install", Some("Install the package")),
                ("lint", Some("the rule's doc")),
                ("a", None),
                ("b", None),
            ],
        );
        // A comment above `.PHONY: x` documents `x` below it; a leading `name:` is dropped.
        case(
            "## deploy: ship it\n.PHONY: deploy\ndeploy:\n",
            &[("deploy", Some("ship it"))],
        );
    }

    #[test]
    fn targets_named_through_variables() {
        let makefile = collect(concat!(
            "CMDS := server worker\n",
            "JOBS = migrate\n",
            "JOBS += seed\n",
            ".PHONY: $(CMDS) $(JOBS) docker\\:build\n",
            "$(CMDS): ## run one of the commands\n",
            "# One-off jobs.\n",
            "$(JOBS):\n",
            "docker\\:build: ; @echo docker\n",
            "$(FROM_OUTSIDE):\n",
            "$(wildcard *.c):\n",
            "$(SRC:.c=.o) $(addprefix x-, a b): dep\n",
            "OUT = out.bin\n",
            "$(OUT): ## the binary\n",
        ));
        let runner = makefile.into_runner();
        let got: Vec<(&str, Option<&str>, &str)> = runner
            .tasks
            .iter()
            .map(|t| (t.name.as_str(), t.doc.as_deref(), t.command.as_str()))
            .collect();
        let doc = Some("run one of the commands");
        let jobs = Some("One-off jobs.");
        assert_eq!(
            got,
            [
                ("server", doc, "make server"),
                ("worker", doc, "make worker"),
                ("migrate", jobs, "make migrate"),
                ("seed", jobs, "make seed"),
                ("docker:build", None, "make docker:build"),
                ("out.bin", Some("the binary (file target)"), "make out.bin"),
            ]
        );
        assert_eq!(
            runner.notes,
            [
                "targets `$(FROM_OUTSIDE)` are not listed: `FROM_OUTSIDE` is not set in the \
                 makefile (only make knows its value)",
                "targets `$(wildcard *.c)` are not listed: they are files only make would find",
                "targets `$(SRC:.c=.o)` are not listed: `$(SRC:.c=.o)` needs make to evaluate",
                "targets `$(addprefix x-, a b)` are not listed: `$(addprefix …)` needs make to \
                 evaluate",
            ]
        );
    }

    #[test]
    fn option_like_names_are_left_out() {
        let makefile = collect("-C..:\n\t@echo parent\nok:\n");
        let runner = makefile.into_runner();
        let names: Vec<&str> = runner.tasks.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["ok"]);
        assert_eq!(
            runner.notes,
            ["target `-C..` is left out: make would read its name as an option"]
        );
    }

    #[test]
    fn include_paths_expand_variables() {
        #[track_caller]
        fn case(text: &str, include: &str, want: Result<&str, &str>) {
            let makefile = collect(text);
            let got = makefile.vars.expand(include, 0);
            assert_eq!(got.as_deref().map_err(String::as_str), want);
        }
        case("MK = mk\n", "$(MK)/common.mk", Ok("mk/common.mk"));
        case("A := x\nB = $(A)/y\nA := z\n", "${B}.mk", Ok("z/y.mk"));
        case("A := x\nB := $(A)/y\nA := z\n", "$(B)", Ok("x/y"));
        case("A ?= 1\nA ?= 2\nA += 3\n", "$(A)", Ok("1 3"));
        case("D = mk\n", "$(wildcard $(D)/*.mk)", Ok("mk/*.mk"));
        case("", "$$x", Ok("$x"));
        case(
            "",
            "$(HOME)/x.mk",
            Err("`HOME` is not set in the makefile (only make knows its value)"),
        );
        case(
            "V != git describe\n",
            "$(V).mk",
            Err("`V` is set by a shell command"),
        );
        case(
            "",
            "$(shell ls *.mk)",
            Err("`$(shell …)` needs make to evaluate"),
        );
        case("A = $(A)\n", "$(A)", Err("its variables nest too deeply"));
        case("", "$(A", Err("it has an unclosed `$(`"));
    }
}
