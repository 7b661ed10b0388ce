//! `make`: targets of the makefile GNU make would read, parsed as text. make itself is never
//! asked: `make -p` runs `$(shell …)` and rebuilds included makefiles.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::detection::{Absence, Context, RunnerDef};
use crate::files::{MAX_MAKEFILE, read_limited};
use crate::quote::quote_cow;
use crate::runner::{Repeats, Runner, Task};

pub(crate) const RUNNER: RunnerDef = RunnerDef {
    id: "make",
    label: "Make",
    detect,
};

/// GNU make reads the first of these that exists.
const MAKEFILES: &[&str] = &["GNUmakefile", "makefile", "Makefile"];

/// Includes deeper than this are not followed (a guard beside the cycle check).
const MAX_INCLUDE_DEPTH: usize = 16;

fn detect(ctx: &Context<'_>) -> Result<Runner, Absence> {
    let name = MAKEFILES
        .iter()
        .find(|name| ctx.root.join(name).is_file())
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
    };
    let mut makefile = Makefile::default();
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

/// Reads makefiles and the literal includes they name, inside the root and once each.
struct Reader<'a> {
    ctx: &'a Context<'a>,
    root: &'a Path,
    canonical_root: PathBuf,
    seen: HashSet<PathBuf>,
    notes: Vec<String>,
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
        if !self.seen.insert(canonical) {
            return Ok(());
        }
        let bytes = read_limited(path, MAX_MAKEFILE).map_err(|err| format!("{shown}: {err}"))?;
        let text = String::from_utf8_lossy(&bytes);
        // Targets of an include come where the include line is, so it is followed at once.
        parse_lines(&text, |event| match event {
            Line::Target(target) => makefile.add(target),
            Line::Phony(names) => makefile.phony.extend(names),
            Line::Include { paths, optional } => {
                for include in paths {
                    self.include(&include, optional, makefile, depth);
                }
            }
        });
        Ok(())
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

/// Targets in order of appearance (repeats included: the runner keeps the first), and the
/// names declared phony.
#[derive(Debug, Default)]
struct Makefile {
    targets: Vec<Target>,
    phony: HashSet<String>,
}

impl Makefile {
    fn add(&mut self, target: Target) {
        self.targets.push(target);
    }

    /// With no `.PHONY`, every target is a task; with one, phony targets are, and file
    /// targets only when documented.
    fn into_runner(self) -> Runner {
        let mut runner = Runner::new("make", "Make", "make");
        let mut tasks = Vec::with_capacity(self.targets.len());
        for target in self.targets {
            let doc = if self.phony.is_empty() || self.phony.contains(&target.name) {
                target.doc
            } else if let Some(doc) = target.doc {
                Some(format!("{doc} (file target)"))
            } else {
                continue;
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
    /// The `## text` after it on its line.
    pub doc: Option<String>,
}

/// What a logical makefile line means for detection.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Line {
    Target(Target),
    Phony(Vec<String>),
    Include { paths: Vec<String>, optional: bool },
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
    let mut makefile = Makefile::default();
    parse_lines(text, |line| {
        if let Line::Target(t) = line {
            makefile.add(t)
        }
    });
    out.push(("collect targets", t.elapsed()));
    let t = std::time::Instant::now();
    let runner = makefile.into_runner();
    out.push(("into runner", t.elapsed()));
    assert!(n > 0 && count > 0 && !runner.tasks.is_empty());
    out
}

/// The targets of one makefile's text, in order, without following includes: what
/// detection lists for it when it includes nothing.
pub fn parse_makefile(text: &str) -> Vec<Target> {
    let mut makefile = Makefile::default();
    parse_lines(text, |line| match line {
        Line::Target(target) => makefile.add(target),
        Line::Phony(names) => makefile.phony.extend(names),
        Line::Include { .. } => {}
    });
    makefile
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
    for line in logical_lines(text) {
        let line: &str = &line;
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
        // Recipe lines start with a tab; comments and blank lines say nothing.
        if line.starts_with('\t') {
            continue;
        }
        let trimmed = line.trim_ascii_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if starts_define(trimmed) {
            define_depth += 1;
            continue;
        }
        if let Some(include) = include_line(trimmed) {
            emit(include);
            continue;
        }
        // A target line starts at column 0.
        if line.starts_with(' ') {
            continue;
        }
        target_line(line, &mut emit);
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
fn logical_lines(text: &str) -> impl Iterator<Item = std::borrow::Cow<'_, str>> {
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

fn include_line(trimmed: &str) -> Option<Line> {
    let (keyword, rest) = trimmed.split_once([' ', '\t'])?;
    let optional = match keyword {
        "include" => false,
        "-include" | "sinclude" => true,
        _ => return None,
    };
    let rest = rest.split('#').next().unwrap_or("");
    // Only literal paths: a path built from variables cannot be known without make.
    let paths = rest
        .split_ascii_whitespace()
        .filter(|p| !p.contains('$') && !p.contains(['*', '?', '[']))
        .map(str::to_owned)
        .collect();
    Some(Line::Include { paths, optional })
}

/// Emits the targets (or the `.PHONY` names) of a line that starts at column 0.
fn target_line(line: &str, emit: &mut impl FnMut(Line)) {
    let (code, doc) = match line.find("##") {
        Some(at) => (&line[..at], Some(line[at + 2..].trim_ascii())),
        None => (line, None),
    };
    let code = code.split('#').next().unwrap_or("");
    let Some(colon) = code.find(':') else {
        return;
    };
    let (names, after) = (&code[..colon], &code[colon + 1..]);
    // `=` before the colon is an assignment (`A = b:c`, `A ?= x`, `A != cmd`); `:=`, `::=`
    // and `:::=` are assignments too.
    if names.contains('=') || after.trim_start_matches(':').starts_with('=') {
        return;
    }
    // `target: VAR = value` sets a target-specific variable; it does not define the target.
    let prerequisites = after
        .trim_start_matches(':')
        .split(';')
        .next()
        .unwrap_or("");
    if is_variable_assignment(prerequisites) {
        return;
    }
    // `a b &: c` is a grouped target.
    let names = names.trim_ascii_end().trim_end_matches('&');
    if names.split_ascii_whitespace().any(|n| n == ".PHONY") {
        let phony = prerequisites
            .split_ascii_whitespace()
            .filter(|n| !n.contains('$'))
            .map(str::to_owned)
            .collect();
        emit(Line::Phony(phony));
        return;
    }
    let doc = doc.filter(|d| !d.is_empty());
    for name in names
        .split_ascii_whitespace()
        .filter(|name| is_task_name(name))
    {
        emit(Line::Target(Target {
            name: name.to_owned(),
            doc: doc.map(str::to_owned),
        }));
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

/// Names that are tasks: not special (`.PHONY`, `.SUFFIXES`, suffix rules), not patterns,
/// not built from variables.
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
                ("all", None),
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
            "docs.html: x\nbin/app:\n1st:\n",
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
}
