//! `make`: targets of the makefile GNU make would read, parsed as text. make itself is never
//! asked: `make -p` runs `$(shell …)` and rebuilds included makefiles.

use std::borrow::Cow;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::detection::{Absence, Context, FolderOption, RunnerDef, Words};
use crate::files::{MAX_MAKEFILE, ReadError, read_limited};
use crate::runner::Runner;

mod eval;
mod lexer;
mod tasks;

use eval::{Known, Makefile, Value};
use lexer::{Line, logical_lines, parse_lines};
use tasks::{is_aside, is_pattern, pattern_task};

pub(crate) const RUNNER: RunnerDef = RunnerDef {
    id: "make",
    label: "Make",
    executes: "nothing: makefiles are read as text, never with `make -p`",
    manifests: MAKEFILES,
    detect,
    words: Words::Settings,
    included: Some(included),
    pattern: Some(pattern_task),
    is_pattern,
    is_aside,
    folder_options: |program| match program {
        "make" => &[FolderOption::Dir("-C"), FolderOption::Dir("--directory")],
        _ => &[],
    },
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

/// Most word and pattern pairs one `$(filter …)` in a condition is evaluated for.
const MAX_FILTER_PAIRS: usize = 100_000;

/// How deeply variable references may nest while an include path is expanded.
const MAX_EXPANSION_DEPTH: usize = 16;

/// The longest text an include line may expand to.
const MAX_EXPANSION_BYTES: usize = 64 << 10;

fn detect(ctx: &Context<'_>) -> Result<Runner, Absence> {
    let name = makefile_in(ctx.root);
    let found = subprojects(ctx);
    let subprojects = &found.list;
    if name.is_none() && subprojects.is_empty() {
        return Err(Absence::Absent("no makefile in the root".into()));
    }
    ctx.needs_binary("make")?;
    let canonical_root = ctx
        .root
        .canonicalize()
        .unwrap_or_else(|_| ctx.root.to_path_buf());
    let mut budget = MAX_TOTAL_BYTES;
    let mut runner = match name {
        Some(name) => {
            let runner = read_project(ctx, ctx.root, &canonical_root, name, &mut budget)
                .map_err(Absence::Failed)?;
            if runner.tasks.is_empty() && subprojects.is_empty() {
                return Err(Absence::Absent(format!("{name} defines no targets")));
            }
            runner
        }
        None => Runner::new(RUNNER.id, RUNNER.label, "make"),
    };
    runner.notes.extend(found.note());
    for (folder, name) in subprojects {
        let dir = ctx.root.join(folder);
        match read_project(ctx, &dir, &canonical_root, name, &mut budget) {
            Ok(sub) => {
                crate::subprojects::add(&mut runner, folder, sub, "pattern rules");
            }
            Err(err) => runner
                .notes
                .push(format!("subproject {folder}/ is not listed: {err}")),
        }
    }
    if runner.tasks.is_empty() {
        return Err(Absence::Absent(
            "no makefile target in the root or a subproject".into(),
        ));
    }
    Ok(runner)
}

/// The makefile make reads in `dir`, whatever its kind (make would pick it, and reading it
/// says why it is refused).
fn makefile_in(dir: &Path) -> Option<&'static str> {
    MAKEFILES
        .iter()
        .find(|name| dir.join(name).symlink_metadata().is_ok())
        .copied()
}

/// The targets of the makefile `name` in `dir` (the root, or a subproject's folder, where
/// make runs and relative includes start), read within the budget shared by the project.
fn read_project(
    ctx: &Context<'_>,
    dir: &Path,
    canonical_root: &Path,
    name: &str,
    budget: &mut u64,
) -> Result<Runner, String> {
    let mut reader = Reader {
        ctx,
        root: dir,
        canonical_root: canonical_root.to_path_buf(),
        seen: HashSet::new(),
        notes: Vec::new(),
        budget: *budget,
    };
    let mut makefile = Makefile::default();
    makefile.vars.root = Some(ctx.root.to_path_buf());
    // `$(CURDIR)` is where make runs.
    makefile.vars.values.insert(
        "CURDIR".into(),
        Value::Simple(dir.to_string_lossy().into_owned()),
    );
    let read = reader.read(&dir.join(name), name, &mut makefile, 0);
    *budget = reader.budget;
    read?;
    for path in makefile.vars.looked_up.take() {
        ctx.depends_on(path);
    }
    for name in makefile.vars.env_read.take() {
        ctx.depends_on_env(&name);
    }
    let mut runner = makefile.into_runner();
    runner.notes.extend(reader.notes);
    Ok(runner)
}

/// The folders right below the root that hold a makefile and a manifest of their own
/// (polars' `py-polars/` with pyproject.toml and a Makefile beside the root Cargo.toml):
/// their targets run there, as `cd py-polars && make test` does.
fn subprojects(ctx: &Context<'_>) -> crate::subprojects::Subprojects {
    crate::subprojects::find(ctx, |dir| makefile_in(dir).map(str::to_owned), true)
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
                // An include under a false condition is not read by make either.
                if makefile.active() != Known::False {
                    self.include_line(&words, optional, makefile, depth);
                }
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

/// A target found in a makefile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// Its name.
    pub name: String,
    /// What it does: `## text` after it on its line, a `#? name: text` line, or the comment
    /// block right above it.
    pub doc: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::tasks::UNDECIDED;
    use super::*;

    /// Each task of `runner` as its name and doc.
    fn names_and_docs(runner: &Runner) -> Vec<(&str, Option<&str>)> {
        runner
            .tasks
            .iter()
            .map(|t| (t.name.as_str(), t.doc.as_deref()))
            .collect()
    }

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
            include_str!("../../tests/samples/Makefile.input"),
            &[
                ("all", Some("Build everything")),
                ("build", Some("compile the program")),
                ("test", Some("run the tests")),
                ("clean", Some("remove build outputs")),
                ("help", None),
            ],
        );
    }

    /// The byte searches for `#`, `##`, `$@` and `\:` find them anywhere on a line, the
    /// last line without a newline included.
    #[test]
    fn marks_found_by_byte_search() {
        case(
            "a: # a note ## the doc\nb:#\nc: ##\nd\\:e: ## colon#\n\t@touch $@\nf: ## last",
            &[
                ("a", Some("the doc")),
                ("b", None),
                ("c", None),
                ("d:e", Some("colon# (file target)")),
                ("f", Some("last")),
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
                ("x-a", None, "make x-a"),
                ("x-b", None, "make x-b"),
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
    fn conditionals_are_decided_as_make_decides_them() {
        // Variables the makefile sets, in order; an unset one is empty (no such variable
        // is in the test's environment).
        case(
            concat!(
                "PLATFORM := linux\n",
                "ifeq ($(PLATFORM),linux)\nlinux-only:\nelse\nother-only:\nendif\n",
                "ifneq \"$(PLATFORM)\" 'darwin'\nnot-darwin:\nendif\n",
                "ifdef SPECCODER_TEST_SURELY_UNSET\nunset-var:\n",
                "else ifeq ($(strip  $(PLATFORM) ),linux)\nelse-if:\nelse\nlast-else:\nendif\n",
                "ifndef PLATFORM\nno-platform:\nendif\n",
                "ifeq ($(OS),Windows_NT)\nwindows:\nendif\n",
                "ifneq ($(filter linux freebsd,$(PLATFORM)),)\nunix:\nendif\n",
                "ifeq (1,1)\n  ifeq (1,2)\ninner-false:\n  endif\nouter-true:\nendif\n",
            ),
            &[
                ("linux-only", None),
                ("not-darwin", None),
                ("else-if", None),
                ("unix", None),
                ("outer-true", None),
            ],
        );
        // A variable set in a false branch is not set.
        case(
            "ifeq (a,b)\nX := 1\nendif\nifdef X\nhas-x:\nendif\nok:\n",
            &[("ok", None)],
        );
    }

    #[test]
    fn undecidable_conditions_list_their_targets_with_a_note() {
        let makefile = collect(concat!(
            "UNAME_S := $(shell uname -s)\n",
            "ifeq ($(UNAME_S),Darwin)\n",
            "## Sign the app bundle\nsign:\n",
            "else\n",
            "package-deb:\n",
            "endif\n",
            "test:\n",
        ));
        let runner = makefile.into_runner();
        let got = names_and_docs(&runner);
        assert_eq!(
            got,
            [
                (
                    "sign",
                    Some("Sign the app bundle (only under a condition make decides)")
                ),
                ("package-deb", Some("(only under a condition make decides)")),
                ("test", None),
            ]
        );
        assert!(runner.is_aside(&runner.tasks[0]) && !runner.is_aside(&runner.tasks[2]));
        assert_eq!(
            runner.notes,
            [
                "2 targets are defined under conditions only make can decide (`$(shell …)` and \
              the like); listed, never shown as examples: sign, package-deb"
            ]
        );
    }

    #[test]
    fn generated_files_and_force_helpers_are_not_tasks() {
        case(
            concat!(
                ".PHONY: all install doc clean\n",
                "all: install\n",
                "VERSION-FILE: FORCE\n\t@./GEN-VERSION-FILE\n",
                "FORCE:\n",
                ".PHONY: FORCE\n",
                "version.h: VERSION-FILE\n\tsed s/x/y/ VERSION-FILE > $@\n",
                "manpage:\n\tpandoc -o $@ doc.md\n",
                "install: VERSION-FILE\n\tinstall -m 755 app /usr/bin\n",
                "doc:\n\t@echo building $@\n",
                "clean:\n\trm -f VERSION-FILE\n",
                "idle:\n",
                "# A recipe belongs to the rule right above it only.\n",
                "stays:\nout-file:\n\tgen > $@\n",
            ),
            &[
                ("all", None),
                ("install", None),
                ("doc", None),
                ("clean", None),
                ("idle", None),
                (
                    "stays",
                    Some("A recipe belongs to the rule right above it only."),
                ),
            ],
        );
    }

    #[test]
    fn hostile_conditionals_stay_bounded() {
        // Deep nesting, stray `else`/`endif`, and a filter over long lists.
        let mut text = "ifeq (1,1)\n".repeat(20_000);
        text.push_str("deep:\n");
        text.push_str(&"endif\n".repeat(20_005));
        text.push_str("else\nendif\nafter:\n");
        let words: Vec<String> = (0..2_000).map(|i| format!("w{i}")).collect();
        text.push_str(&format!("LIST := {}\n", words.join(" ")));
        text.push_str("ifneq ($(filter $(LIST),$(LIST)),)\nfiltered:\nendif\n");
        text.push_str("ifeq (unclosed\nodd:\nendif\n");
        let runner = collect(&text).into_runner();
        let got = names_and_docs(&runner);
        assert_eq!(
            got,
            [
                ("deep", None),
                ("after", None),
                ("filtered", Some(UNDECIDED)),
                ("odd", Some(UNDECIDED)),
            ]
        );
    }

    #[test]
    fn marked_lines_of_a_block_are_its_doc() {
        case(
            concat!(
                "# The root `test` wins over the catch-all rule: a maintainer's note.\n",
                "## test: run the unit tests\n",
                "test:\n",
                "##@ Building\n",
                "# plain comment only\n",
                "build:\n",
            ),
            &[
                ("test", Some("run the unit tests")),
                ("build", Some("plain comment only")),
            ],
        );
    }

    #[test]
    fn targets_of_false_branches_are_noted() {
        let runner = collect(concat!(
            "ifeq ($(OS),Windows_NT)\ninstaller-msi:\ninstaller-zip:\nendif\n",
            "ifdef SPECCODER_TEST_SURELY_UNSET\nmemcheck:\nendif\nall:\n",
        ))
        .into_runner();
        let names: Vec<&str> = runner.tasks.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["all"]);
        assert_eq!(
            runner.notes,
            [
                "3 targets are left out: they are under conditions that are false here, so \
              make does not know them either: installer-msi, installer-zip, memcheck"
            ]
        );
    }

    #[test]
    fn wildcard_in_a_condition_looks_under_the_root() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("go.mod"), "module x\n").expect("go.mod");
        let text = concat!(
            "ifneq ($(wildcard go.mod),)\nmod-deps:\nelse\ngopath-deps:\nendif\n",
            "ifeq ($(wildcard vendor),)\nno-vendor:\nendif\n",
            "ifneq ($(wildcard ../outside),)\nescape:\nendif\n",
            "ifneq ($(wildcard *.go),)\nglob:\nendif\n",
        );
        let mut makefile = Makefile::default();
        makefile.vars.root = Some(dir.path().to_path_buf());
        parse_lines(text, |line| makefile.add(line, false));
        let looked: Vec<PathBuf> = makefile.vars.looked_up.borrow().clone();
        let runner = makefile.into_runner();
        let got = names_and_docs(&runner);
        assert_eq!(
            got,
            [
                ("mod-deps", None),
                ("no-vendor", None),
                ("escape", Some(UNDECIDED)),
                ("glob", Some(UNDECIDED)),
            ]
        );
        // Both lookups are inputs of the detection: creating `vendor/` changes the answer.
        assert_eq!(
            looked,
            [dir.path().join("go.mod"), dir.path().join("vendor")]
        );
    }
}
