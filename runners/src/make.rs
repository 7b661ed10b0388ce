//! `make`: targets of the makefile GNU make would read, parsed as text. make itself is never
//! asked: `make -p` runs `$(shell …)` and rebuilds included makefiles.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::detection::{Absence, Context, RunnerDef};
use crate::quote::quote;
use crate::runner::{Runner, Task};

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
        let bytes = std::fs::read(path).map_err(|err| format!("{shown}: cannot read: {err}"))?;
        let text = String::from_utf8_lossy(&bytes);
        for event in parse_lines(&text) {
            match event {
                Line::Target(target) => makefile.add(target),
                Line::Phony(names) => makefile.phony.extend(names),
                Line::Include { paths, optional } => {
                    for include in paths {
                        self.include(&include, optional, makefile, depth);
                    }
                }
            }
        }
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

/// Targets in order of first appearance, and the names declared phony.
#[derive(Debug, Default)]
struct Makefile {
    targets: Vec<Target>,
    names: HashSet<String>,
    phony: HashSet<String>,
}

impl Makefile {
    fn add(&mut self, target: Target) {
        if self.names.insert(target.name.clone()) {
            self.targets.push(target);
        }
    }

    /// With no `.PHONY`, every target is a task; with one, phony targets are, and file
    /// targets only when documented.
    fn into_runner(self) -> Runner {
        let mut runner = Runner::new("make", "Make", "make");
        for target in self.targets {
            let doc = if self.phony.is_empty() || self.phony.contains(&target.name) {
                target.doc
            } else if let Some(doc) = target.doc {
                Some(format!("{doc} (file target)"))
            } else {
                continue;
            };
            runner.push_task(Task {
                command: format!("make {}", quote(&target.name)),
                name: target.name,
                doc,
                params: Vec::new(),
                cwd: None,
            });
        }
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

/// The targets of one makefile's text, in order, without following includes: what
/// detection lists for it when it includes nothing.
pub fn parse_makefile(text: &str) -> Vec<Target> {
    let mut makefile = Makefile::default();
    for line in parse_lines(text) {
        match line {
            Line::Target(target) => makefile.add(target),
            Line::Phony(names) => makefile.phony.extend(names),
            Line::Include { .. } => {}
        }
    }
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

fn parse_lines(text: &str) -> Vec<Line> {
    let mut out = Vec::new();
    let mut define_depth = 0usize;
    for line in logical_lines(text) {
        let trimmed = line.trim_start();
        let first = trimmed.split_whitespace().next().unwrap_or("");
        // Lines inside `define … endef` are a variable's value, whatever they look like.
        if define_depth > 0 {
            if first == "endef" {
                define_depth -= 1;
            } else if starts_define(trimmed) {
                define_depth += 1;
            }
            continue;
        }
        if starts_define(trimmed) {
            define_depth += 1;
            continue;
        }
        // Recipe lines start with a tab; comments and blank lines say nothing.
        if line.starts_with('\t') || trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if let Some(include) = include_line(trimmed) {
            out.push(include);
            continue;
        }
        // A target line starts at column 0.
        if line.starts_with(' ') {
            continue;
        }
        out.extend(target_line(&line));
    }
    out
}

fn starts_define(trimmed: &str) -> bool {
    let mut words = trimmed.split_whitespace();
    let mut word = words.next();
    while matches!(word, Some("override" | "export" | "private")) {
        word = words.next();
    }
    word == Some("define")
}

/// The lines of `text` with CRLF endings and `\` continuations taken care of.
fn logical_lines(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut current = String::new();
    for raw in text.split('\n') {
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        // An odd number of trailing backslashes continues the line.
        let trailing = raw.bytes().rev().take_while(|&b| b == b'\\').count();
        if trailing % 2 == 1 {
            current.push_str(raw[..raw.len() - 1].trim_end());
            current.push(' ');
        } else {
            current.push_str(raw);
            lines.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        lines.push(current);
    }
    lines
}

fn include_line(trimmed: &str) -> Option<Line> {
    let (keyword, rest) = trimmed.split_once(char::is_whitespace)?;
    let optional = match keyword {
        "include" => false,
        "-include" | "sinclude" => true,
        _ => return None,
    };
    let rest = rest.split('#').next().unwrap_or("");
    // Only literal paths: a path built from variables cannot be known without make.
    let paths = rest
        .split_whitespace()
        .filter(|p| !p.contains('$') && !p.contains(['*', '?', '[']))
        .map(str::to_owned)
        .collect();
    Some(Line::Include { paths, optional })
}

fn target_line(line: &str) -> Vec<Line> {
    let (code, doc) = match line.find("##") {
        Some(at) => (&line[..at], Some(line[at + 2..].trim())),
        None => (line, None),
    };
    let code = code.split('#').next().unwrap_or("");
    let Some(colon) = code.find(':') else {
        return Vec::new();
    };
    let (names, after) = (&code[..colon], &code[colon + 1..]);
    // `=` before the colon is an assignment (`A = b:c`, `A ?= x`, `A != cmd`); `:=`, `::=`
    // and `:::=` are assignments too.
    if names.contains('=') || after.trim_start_matches(':').starts_with('=') {
        return Vec::new();
    }
    // `target: VAR = value` sets a target-specific variable; it does not define the target.
    let prerequisites = after
        .trim_start_matches(':')
        .split(';')
        .next()
        .unwrap_or("");
    if is_variable_assignment(prerequisites) {
        return Vec::new();
    }
    // `a b &: c` is a grouped target.
    let names = names.trim_end().trim_end_matches('&');
    let names: Vec<String> = names.split_whitespace().map(str::to_owned).collect();
    if names.iter().any(|n| n == ".PHONY") {
        let phony = prerequisites
            .split_whitespace()
            .filter(|n| !n.contains('$'))
            .map(str::to_owned)
            .collect();
        return vec![Line::Phony(phony)];
    }
    let doc = doc.filter(|d| !d.is_empty()).map(str::to_owned);
    names
        .into_iter()
        .filter(|name| is_task_name(name))
        .map(|name| {
            Line::Target(Target {
                name,
                doc: doc.clone(),
            })
        })
        .collect()
}

/// Whether `text` (what follows a target's colon) is `VAR = value`, `VAR := value`, …
fn is_variable_assignment(text: &str) -> bool {
    let text = text.trim_start();
    let Some(eq) = text.find('=') else {
        return false;
    };
    let before = text[..eq].trim_end();
    let before = before
        .strip_suffix([':', '?', '+', '!'])
        .unwrap_or(before)
        .trim_end_matches(':');
    let mut words = before.split_whitespace();
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
