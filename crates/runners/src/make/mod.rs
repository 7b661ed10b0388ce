//! `make`: targets of the makefile GNU make would read, parsed as text. make itself is never
//! asked: `make -p` runs `$(shell …)` and rebuilds included makefiles.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::path::{Path, PathBuf};

use crate::detection::{Absence, Context, RunnerDef, Words};
use crate::files::{MAX_MAKEFILE, ReadError, read_limited};
use crate::quote::quote_cow;
use crate::runner::{Repeats, Runner, Task, TaskIndex};

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
    makefile.vars.root = Some(ctx.root.to_path_buf());
    // `$(CURDIR)` is where make runs: the root.
    makefile.vars.values.insert(
        "CURDIR".into(),
        Value::Simple(ctx.root.to_string_lossy().into_owned()),
    );
    reader
        .read(&ctx.root.join(name), name, &mut makefile, 0)
        .map_err(Absence::Failed)?;
    for path in makefile.vars.looked_up.take() {
        ctx.depends_on(path);
    }
    for name in makefile.vars.env_read.take() {
        ctx.depends_on_env(&name);
    }
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

/// What detection collects from a makefile and its includes.
#[derive(Debug, Default)]
struct Makefile {
    /// Targets in order of appearance (repeats included: the runner keeps the first), each
    /// already as the task it may become (its name and doc, no command yet):
    /// [`Makefile::into_runner`] completes, keeps or drops each in place, so a makefile of
    /// 50,000 targets never holds a second list of them.
    targets: Vec<Task>,
    /// What each target's rule says, at the target's index.
    rules: Vec<Rule>,
    /// The prerequisites of every rule, each rule's a range (the targets of one line share
    /// theirs).
    prerequisites: Vec<String>,
    /// Names declared phony.
    phony: HashSet<String>,
    /// Docs from `#? name: text` lines (the first for a name wins).
    help: HashMap<String, String>,
    /// Variables set so far, for include paths, target names and `.DEFAULT_GOAL`.
    vars: Variables,
    /// What could not be listed, with why (a target named by a variable make alone knows).
    notes: Vec<String>,
    /// The conditionals open where reading is.
    frames: Vec<Frame>,
    /// Where the targets of the rule being read start in `targets` (its recipe lines are
    /// theirs), when the last line was a rule or a recipe line.
    rule_start: Option<usize>,
    /// Targets false conditions leave out (the first 1,000 names).
    dropped: Vec<String>,
}

impl Makefile {
    /// Takes in what one line says (an include line is the reader's to follow); `lossy`
    /// says the text had bytes that are not UTF-8, which a name may then hold.
    #[expect(
        clippy::too_many_lines,
        reason = "over 80 lines when the limit was set; split it when it next changes"
    )]
    fn add(&mut self, line: Line, lossy: bool) {
        if let Line::Conditional(directive) = line {
            self.rule_start = None;
            self.conditional(directive);
            return;
        }
        let active = self.active();
        if active == Known::False {
            if let Line::Target(target) = line
                && is_task_name(&target.name)
                && self.dropped.len() < 1000
            {
                self.dropped.push(target.name);
            }
            return;
        }
        let rule_start = self.rule_start.take();
        let uncertain = active == Known::Unknown;
        match line {
            Line::Target(target) => {
                self.rule_start = match (target.first, rule_start) {
                    (false, Some(start)) => Some(start),
                    _ => Some(self.targets.len()),
                };
                let prerequisites = self.prerequisites_range(target.prerequisites);
                self.push_target(
                    target.name,
                    target.doc,
                    Rule {
                        prerequisites,
                        doc_is_above: target.doc_is_above,
                        invalid_utf8: false,
                        recipe: target.recipe,
                        writes_target: target.writes_target,
                        uncertain,
                    },
                    lossy,
                );
            }
            Line::Recipe { writes_target } => {
                if let Some(start) = rule_start {
                    for rule in &mut self.rules[start..] {
                        rule.recipe = true;
                        rule.writes_target |= writes_target;
                    }
                    self.rule_start = Some(start);
                }
            }
            Line::NamedByVariables {
                word,
                doc,
                above,
                prerequisites,
                recipe,
                first,
            } => {
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
                self.rule_start = match (first, rule_start) {
                    (false, Some(start)) => Some(start),
                    _ => Some(self.targets.len()),
                };
                let prerequisites = match names.is_empty() {
                    // A rule that names no target leaves no prerequisites anywhere.
                    true => 0..0,
                    false => self.prerequisites_range(prerequisites),
                };
                for name in names {
                    let above = above.as_deref().and_then(|a| without_name(a, &name));
                    let rule = Rule {
                        prerequisites: prerequisites.clone(),
                        doc_is_above: above.is_some(),
                        invalid_utf8: false,
                        recipe,
                        writes_target: false,
                        uncertain,
                    };
                    self.push_target(name, doc.clone().or(above), rule, lossy);
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
            Line::Include { .. } | Line::Conditional(_) => {}
        }
    }

    /// Adds a target and its rule; `lossy` says its name may hold bytes that are not UTF-8.
    fn push_target(&mut self, name: String, doc: Option<String>, mut rule: Rule, lossy: bool) {
        rule.invalid_utf8 = lossy && name.contains('\u{FFFD}');
        self.targets.push(Task {
            name,
            command: String::new(),
            doc,
            params: Vec::new(),
            cwd: None,
        });
        self.rules.push(rule);
    }

    /// Where `words` are among the prerequisites, added unless they are those of the target
    /// added last (the targets of one line share them).
    fn prerequisites_range(&mut self, words: Vec<String>) -> Range<u32> {
        if let Some(last) = self.rules.last()
            && self.prerequisites_of(last) == words.as_slice()
        {
            return last.prerequisites.clone();
        }
        let start = index(self.prerequisites.len());
        self.prerequisites.extend(words);
        start..index(self.prerequisites.len())
    }

    /// The prerequisites of a target's rule.
    fn prerequisites_of(&self, rule: &Rule) -> &[String] {
        let Range { start, end } = rule.prerequisites;
        &self.prerequisites[start as usize..end as usize]
    }

    /// Whether the lines being read count: every open conditional's branch taken.
    fn active(&self) -> Known {
        self.frames
            .iter()
            .fold(Known::True, |known, frame| known.and(frame.branch))
    }

    /// Opens, turns or closes a conditional.
    fn conditional(&mut self, directive: Directive) {
        match directive {
            Directive::If(condition) => {
                let branch = self.decide(&condition);
                self.frames.push(Frame {
                    branch,
                    taken: branch,
                });
            }
            Directive::Else(condition) => {
                let decided = condition.map_or(Known::True, |c| self.decide(&c));
                if let Some(frame) = self.frames.last_mut() {
                    frame.branch = frame.taken.not().and(decided);
                    frame.taken = frame.taken.or(decided);
                }
            }
            Directive::EndIf => {
                self.frames.pop();
            }
        }
    }

    /// What a condition comes to with the variables set so far and the environment (make
    /// reads both); unknown where a value needs make itself (`$(shell …)`, most functions).
    fn decide(&self, condition: &Condition) -> Known {
        let known = match &condition.test {
            Test::Defined(name) => match self.vars.expand_in(name, 0, true) {
                Err(_) => Known::Unknown,
                Ok(name) => match self.vars.values.get(name.trim_ascii()) {
                    Some(Value::Recursive(text) | Value::Simple(text)) => {
                        known(!text.trim_ascii().is_empty())
                    }
                    Some(Value::Unknown(_)) => Known::Unknown,
                    None => known(
                        self.vars
                            .env(name.trim_ascii())
                            .is_some_and(|v| !v.is_empty()),
                    ),
                },
            },
            Test::Equal(a, b) => match (
                self.vars.expand_in(a, 0, true),
                self.vars.expand_in(b, 0, true),
            ) {
                (Ok(a), Ok(b)) => known(a == b),
                _ => Known::Unknown,
            },
            Test::Unreadable => Known::Unknown,
        };
        if condition.negated {
            known.not()
        } else {
            known
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
    /// file-like names (`foo.o`, `build/out.txt`) only when documented. A target whose
    /// recipe writes `$@`, or that depends on an empty rule (`FORCE:`), is a file however
    /// it is named; the empty rule itself is a helper. A pattern rule over listed targets
    /// (`%: common-%`) lists what it makes of them (`lint` for `common-lint`), and a
    /// pattern rule with a recipe (`test-%:`) is listed as its pattern, run for any stem.
    #[expect(
        clippy::too_many_lines,
        reason = "over 80 lines when the limit was set; split it when it next changes"
    )]
    fn into_runner(self) -> Runner {
        let mut runner = Runner::new("make", "Make", "make");
        let default_goal = self.default_goal();
        let Makefile {
            mut targets,
            rules,
            prerequisites,
            phony,
            help,
            notes,
            dropped,
            ..
        } = self;
        let prerequisites_of = |rule: &Rule| {
            let Range { start, end } = rule.prerequisites;
            &prerequisites[start as usize..end as usize]
        };
        runner.notes = notes;
        // A name every rule of which has neither prerequisites nor a recipe, that other
        // rules depend on (`FORCE:`): it only makes them always out of date.
        // Phony or not: git's `.PHONY: FORCE` is still only a helper. Only names with an
        // empty rule are indexed (a 50,000-target makefile has next to none); the value
        // says whether another rule depends on the name.
        let mut empty: HashMap<String, bool> = targets
            .iter()
            .zip(&rules)
            .filter(|(_, rule)| rule.prerequisites.is_empty() && !rule.recipe)
            .map(|(target, _)| (target.name.clone(), false))
            .collect();
        if !empty.is_empty() {
            for (target, rule) in targets.iter().zip(&rules) {
                if !rule.prerequisites.is_empty() || rule.recipe {
                    // A name with a rule that does something is no helper.
                    empty.remove(target.name.as_str());
                }
            }
            for prerequisite in &prerequisites {
                if let Some(depended_on) = empty.get_mut(prerequisite.as_str()) {
                    *depended_on = true;
                }
            }
        }
        let is_empty_rule =
            |name: &str| !empty.is_empty() && empty.get(name).copied().unwrap_or(false);
        let files: HashSet<String> = targets
            .iter()
            .zip(&rules)
            .filter(|(target, rule)| {
                (rule.writes_target
                    || (!empty.is_empty()
                        && prerequisites_of(rule).iter().any(|p| is_empty_rule(p))))
                    && !phony.contains(&target.name)
            })
            .map(|(target, _)| target.name.clone())
            .collect();
        let mut left_out = HashSet::new();
        let mut uncertain: Vec<String> = Vec::new();
        let mut patterns: Vec<PatternRule> = Vec::new();
        let mut rules = rules.iter();
        // Each target becomes its task where it is, or is dropped.
        targets.retain_mut(|target| {
            let Some(rule) = rules.next() else {
                return false;
            };
            if target.name.contains('%') {
                patterns.push(PatternRule {
                    name: std::mem::take(&mut target.name),
                    doc: target.doc.take(),
                    prerequisites: prerequisites_of(rule).to_vec(),
                    recipe: rule.recipe,
                });
                return false;
            }
            if !is_task_name(&target.name) {
                return false;
            }
            if rule.invalid_utf8 || target.name.starts_with('-') {
                if left_out.insert(target.name.clone()) {
                    runner.notes.push(if rule.invalid_utf8 {
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
                return false;
            }
            let is_phony = phony.contains(&target.name);
            let is_default = default_goal.as_deref() == Some(target.name.as_str());
            let generated = !files.is_empty() && files.contains(target.name.as_str());
            let file_like = generated || target.name.bytes().any(|b| b == b'.' || b == b'/');
            // `_name` is the usual mark of a helper rule not meant to be typed, and so is a
            // rule with nothing in it that others depend on to be always out of date.
            let helper = target.name.starts_with('_') || is_empty_rule(&target.name);
            let (own, above) = match rule.doc_is_above {
                true => (None, target.doc.take()),
                false => (target.doc.take(), None),
            };
            let doc = own
                .or_else(|| help.get(&target.name).cloned())
                // A comment above a generated file is the maintainer's note on how it is
                // made (`VERSION-FILE`), not a task's doc.
                .or_else(|| above.filter(|_| !generated));
            let doc = match doc {
                Some(doc) if file_like && !is_phony && (!phony.is_empty() || generated) => {
                    Some(format!("{doc} {FILE_TARGET}"))
                }
                Some(doc) => Some(doc),
                None if ((is_phony || !file_like) && !helper) || is_default => None,
                None => return false,
            };
            target.doc = if rule.uncertain {
                uncertain.push(target.name.clone());
                Some(match doc {
                    Some(doc) => format!("{doc} {UNDECIDED}"),
                    None => UNDECIDED.to_owned(),
                })
            } else {
                doc
            };
            let quoted = quote_cow(&target.name);
            let mut command = String::with_capacity(5 + quoted.len());
            command.push_str("make ");
            command.push_str(&quoted);
            target.command = command;
            true
        });
        let mut tasks = targets;
        let pattern_tasks = pattern_tasks(&patterns, &mut tasks, &mut runner.notes);
        tasks.extend(pattern_tasks);
        // Names a true branch defines after all (a doc per platform) are not left out.
        let listed: HashSet<&str> = match dropped.is_empty() {
            true => HashSet::new(),
            false => tasks.iter().map(|t| t.name.as_str()).collect(),
        };
        let mut names: Vec<&str> = dropped
            .iter()
            .map(String::as_str)
            .filter(|name| !listed.contains(name))
            .collect();
        names.sort_unstable();
        names.dedup();
        if !names.is_empty() {
            let count = &names.len();
            let names: Vec<&str> = names.iter().take(10).copied().collect();
            runner.notes.push(format!(
                "{count} {} left out: {} under conditions that are false here, so make does \
                 not know {} either: {}{}",
                if *count == 1 {
                    "target is"
                } else {
                    "targets are"
                },
                if *count == 1 { "it is" } else { "they are" },
                if *count == 1 { "it" } else { "them" },
                names.join(", "),
                if *count > names.len() { ", …" } else { "" }
            ));
        }
        if !uncertain.is_empty() {
            uncertain.dedup();
            let shown: Vec<&str> = uncertain.iter().take(10).map(String::as_str).collect();
            runner.notes.push(format!(
                "{} {} defined under conditions only make can decide (`$(shell …)` and \
                 the like); listed, never shown as examples: {}{}",
                uncertain.len(),
                if uncertain.len() == 1 {
                    "target is"
                } else {
                    "targets are"
                },
                shown.join(", "),
                if uncertain.len() > shown.len() {
                    ", …"
                } else {
                    ""
                }
            ));
        }
        runner.extend_first(tasks, Repeats::Quiet);
        runner
    }
}

/// What a doc ends with for a documented target that is a file.
const FILE_TARGET: &str = "(file target)";

/// What a doc ends with for a target under a condition detection cannot decide.
const UNDECIDED: &str = "(only under a condition make decides)";

/// Where a pattern task's command names its stem.
const STEM: &str = "<stem>";

/// The tasks pattern rules make: a rule whose prerequisite is a pattern (`%: common-%`,
/// `docker-%: build-%`) gives, for each listed task that prerequisite matches, the name
/// the rule makes of it; a rule with a recipe and a pattern a person types (`test-%`, not
/// `%.o` or a bare `%`) is a task of its own, named by its pattern.
#[expect(
    clippy::too_many_lines,
    reason = "over 80 lines when the limit was set; split it when it next changes"
)]
fn pattern_tasks(
    patterns: &[PatternRule],
    listed: &mut [Task],
    notes: &mut Vec<String>,
) -> Vec<Task> {
    let mut out: Vec<Task> = Vec::new();
    let mut sources: Vec<(usize, String)> = Vec::new();
    if patterns.is_empty() {
        return out;
    }
    // Every name listed or made so far, so a made name is checked in constant time (a
    // `%: common-%` over 50,000 targets would otherwise scan them for each one).
    let mut taken: HashSet<String> = listed.iter().map(|t| t.name.clone()).collect();
    if patterns.len() > MAX_PATTERN_RULES {
        notes.push(format!(
            "only the first {MAX_PATTERN_RULES} of {} pattern rules are read for tasks",
            patterns.len()
        ));
    }
    let patterns = &patterns[..patterns.len().min(MAX_PATTERN_RULES)];
    for rule in patterns {
        let Some((prefix, suffix)) = rule.name.split_once('%') else {
            continue;
        };
        let file_like = |text: &str| text.contains(['.', '/', '%', '$']);
        if file_like(prefix) || file_like(suffix) || rule.name.starts_with('-') {
            continue;
        }
        let mut made_any = false;
        for prerequisite in rule.prerequisites.iter().filter(|p| p.contains('%')) {
            for (index, task) in listed.iter().enumerate() {
                let Some(stem) = stem_of(prerequisite, &task.name) else {
                    continue;
                };
                let name = format!("{prefix}{stem}{suffix}");
                if taken.contains(&name) || !is_task_name(&name) {
                    continue;
                }
                // Of the pattern rules that match a name, make uses the one with the
                // shortest stem: `make test-short` runs `test-%`, not `%: common-%`.
                let nearer = patterns.iter().any(|other| {
                    !std::ptr::eq(other, rule)
                        && other.recipe
                        && stem_of(&other.name, &name).is_some_and(|s| s.len() < stem.len())
                });
                if nearer {
                    continue;
                }
                made_any = true;
                taken.insert(name.clone());
                sources.push((index, name.clone()));
                out.push(Task {
                    command: format!("make {}", quote_cow(&name)),
                    doc: Some(match &task.doc {
                        Some(doc) => format!("{doc} (through `{}`)", task.name),
                        None => format!("runs `{}`", task.name),
                    }),
                    name,
                    params: Vec::new(),
                    cwd: None,
                });
            }
        }
        if made_any || !rule.recipe || prefix.is_empty() && suffix.is_empty() {
            continue;
        }
        if !taken.insert(rule.name.clone()) {
            continue;
        }
        let doc = rule.doc.clone();
        notes.push(format!(
            "pattern rule `{}` is listed as a pattern: an op naming `{prefix}…{suffix}` runs it",
            rule.name
        ));
        out.push(Task {
            command: format!("make {prefix}{STEM}{suffix}"),
            name: rule.name.clone(),
            doc,
            params: Vec::new(),
            cwd: None,
        });
    }
    // `common-lint` is what `lint` runs: the short name is the one people type.
    for (index, name) in sources {
        let task = &mut listed[index];
        let also = format!("{ALSO}{name}`)");
        task.doc = Some(match task.doc.take() {
            Some(doc) => format!("{doc} {also}"),
            None => also,
        });
    }
    out
}

/// The most pattern rules read for tasks.
const MAX_PATTERN_RULES: usize = 1000;

/// What a doc ends with for a target a pattern rule gives a shorter name (`common-lint`,
/// run as `make lint`).
const ALSO: &str = "(also as `make ";

/// The pattern task (`test-%`) whose pattern `name` matches, run under that name.
fn pattern_task(runner: &Runner, name: &str) -> Option<(usize, String)> {
    let index = runner
        .tasks
        .iter()
        .position(|t| is_pattern(t) && stem_of(&t.name, name).is_some())?;
    Some((index, format!("make {}", quote_cow(name))))
}

/// Whether a task is a pattern rule listed by its pattern.
fn is_pattern(task: &Task) -> bool {
    task.name.contains('%')
}

/// Targets the prompt shows last and never as examples: those under a condition only make
/// decides, and those a pattern rule gives a shorter name.
fn is_aside(_: &TaskIndex<'_>, task: &Task) -> bool {
    task.doc.as_deref().is_some_and(|doc| {
        doc.ends_with(UNDECIDED)
            || doc.ends_with(FILE_TARGET)
            || doc
                .rsplit_once(ALSO)
                .is_some_and(|(_, name)| !name.contains(' '))
    })
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
    /// `## text` on its line, else the comment block directly above its line (a target has
    /// one or the other: a block only counts for a line without `##`).
    doc: Option<String>,
    /// `doc` is the comment block above.
    doc_is_above: bool,
    /// Its rule's prerequisites, as written.
    prerequisites: Vec<String>,
    /// Its rule has a recipe (`;` on the rule's line; tab lines come as lines of their own).
    recipe: bool,
    /// Its inline recipe writes `$@`.
    writes_target: bool,
    /// It is the first target of its rule's line (the recipe lines below are its rule's).
    first: bool,
}

/// What the makefile says about one target's rule, kept beside the target's task.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Rule {
    /// Where its prerequisites are in [`Makefile::prerequisites`].
    prerequisites: Range<u32>,
    /// The task's doc is the comment block above: a rule's `#? name:` doc goes first, and
    /// for a generated file the block is the maintainer's note rather than a doc.
    doc_is_above: bool,
    /// Its name came from bytes that are not UTF-8.
    invalid_utf8: bool,
    /// It has a recipe (tab lines, or `;` on the rule's line).
    recipe: bool,
    /// Its recipe writes `$@`.
    writes_target: bool,
    /// It is defined under a condition detection cannot decide.
    uncertain: bool,
}

/// A pattern rule (`test-%:`, `%: common-%`), for the tasks it makes.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PatternRule {
    name: String,
    doc: Option<String>,
    prerequisites: Vec<String>,
    recipe: bool,
}

/// `len` as an index into [`Makefile::prerequisites`]: the makefiles together hold at most
/// [`MAX_TOTAL_BYTES`], fewer words than a `u32` counts.
fn index(len: usize) -> u32 {
    u32::try_from(len).expect("fewer prerequisites than the makefiles have bytes")
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
    /// The project root, where `$(wildcard NAME)` in a condition looks (none: such a
    /// condition is undecided).
    root: Option<PathBuf>,
    /// The paths those lookups asked about, for the detection cache.
    looked_up: std::cell::RefCell<Vec<PathBuf>>,
    /// The environment variables a condition read, for the detection cache: exporting one
    /// changes which branch make takes.
    env_read: std::cell::RefCell<Vec<String>>,
}

impl Variables {
    /// The environment variable `name`, noted as read.
    fn env(&self, name: &str) -> Option<std::ffi::OsString> {
        self.env_read.borrow_mut().push(name.to_owned());
        std::env::var_os(name)
    }

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
        self.expand_in(text, depth, false)
    }

    /// Like [`Variables::expand`]; `as_condition` reads a variable no makefile sets from
    /// the environment, else as empty, as make does when it tests a condition (a target
    /// name or include built from it is left to make instead).
    fn expand_in(&self, text: &str, depth: usize, as_condition: bool) -> Result<String, String> {
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
            out.push_str(&self.reference(reference, depth, as_condition)?);
            if out.len() > MAX_EXPANSION_BYTES {
                return Err("it expands to too much text".into());
            }
        }
        out.push_str(rest);
        Ok(out)
    }

    /// The value of one `$(…)` reference.
    #[expect(
        clippy::too_many_lines,
        reason = "over 80 lines when the limit was set; split it when it next changes"
    )]
    fn reference(&self, inner: &str, depth: usize, as_condition: bool) -> Result<String, String> {
        let expand = |text: &str| self.expand_in(text, depth + 1, as_condition);
        if let Some((function, args)) = inner.split_once([' ', '\t']) {
            return match function {
                "wildcard" if !as_condition => expand(args),
                // `ifneq ($(wildcard go.mod),)`: whether plain names exist under the root.
                // Only the entries are looked at, never opened; a pattern or a name that
                // could leave the root is left to make.
                "wildcard" => {
                    let root = self.root.as_ref().ok_or("`$(wildcard …)` needs make")?;
                    let names = expand(args)?;
                    let mut found = Vec::new();
                    for word in names.split_ascii_whitespace() {
                        let plain = !word.contains(['*', '?', '[', '\\'])
                            && Path::new(word)
                                .components()
                                .all(|c| matches!(c, std::path::Component::Normal(_)));
                        if !plain {
                            return Err(format!("`$(wildcard {word})` needs make to evaluate"));
                        }
                        let path = root.join(word);
                        let exists = path.symlink_metadata().is_ok();
                        self.looked_up.borrow_mut().push(path);
                        if exists {
                            found.push(word);
                        }
                    }
                    Ok(found.join(" "))
                }
                "addprefix" | "addsuffix" => {
                    let comma = outside_references(args, b',')
                        .ok_or_else(|| format!("`$({function} …)` needs make to evaluate"))?;
                    let (affix, names) = (expand(&args[..comma])?, expand(&args[comma + 1..])?);
                    let affix = affix.trim_ascii();
                    Ok(names
                        .split_ascii_whitespace()
                        .map(|name| match function {
                            "addprefix" => format!("{affix}{name}"),
                            _ => format!("{name}{affix}"),
                        })
                        .collect::<Vec<_>>()
                        .join(" "))
                }
                "strip" => Ok(expand(args)?
                    .split_ascii_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")),
                "findstring" | "filter" | "filter-out" if as_condition => {
                    let comma = outside_references(args, b',')
                        .ok_or_else(|| format!("`$({function} …)` needs make to evaluate"))?;
                    let (find, within) = (expand(&args[..comma])?, expand(&args[comma + 1..])?);
                    Ok(match function {
                        "findstring" => match within.contains(&find) {
                            true => find,
                            false => String::new(),
                        },
                        _ => {
                            let patterns: Vec<&str> = find.split_ascii_whitespace().collect();
                            // Every word against every pattern: bounded, so a makefile of
                            // long lists cannot make listing slow.
                            let words = within.split_ascii_whitespace().count();
                            if patterns.len().saturating_mul(words) > MAX_FILTER_PAIRS {
                                return Err(format!("`$({function} …)` is too long to evaluate"));
                            }
                            let keep = function == "filter";
                            within
                                .split_ascii_whitespace()
                                .filter(|w| {
                                    patterns.iter().any(|p| stem_of(p, w).is_some()) == keep
                                })
                                .collect::<Vec<_>>()
                                .join(" ")
                        }
                    })
                }
                _ => Err(format!("`$({function} …)` needs make to evaluate")),
            };
        }
        if inner.contains(':') {
            return Err(format!("`$({inner})` needs make to evaluate"));
        }
        let name = expand(inner)?;
        match self.values.get(&name) {
            Some(Value::Recursive(text)) => expand(text),
            Some(Value::Simple(text)) => Ok(text.clone()),
            Some(Value::Unknown(why)) => Err(format!("`{name}` {why}")),
            None if as_condition => Ok(self
                .env(&name)
                .and_then(|v| v.into_string().ok())
                .unwrap_or_default()),
            None => Err(format!(
                "`{name}` is not set in the makefile (only make knows its value)"
            )),
        }
    }
}

/// The stem of `name` under a make pattern (`test-%` and `test-full` give `full`; a
/// pattern without `%` matches only itself, with an empty stem); `None` when it does not
/// match.
fn stem_of<'n>(pattern: &str, name: &'n str) -> Option<&'n str> {
    match pattern.split_once('%') {
        None => (pattern == name).then_some(""),
        Some((prefix, suffix)) => name
            .strip_prefix(prefix)?
            .strip_suffix(suffix)
            .filter(|stem| !stem.is_empty()),
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
        prerequisites: Vec<String>,
        recipe: bool,
        first: bool,
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
    /// `ifdef`, `ifndef`, `ifeq`, `ifneq`, `else [if…]`, `endif`.
    Conditional(Directive),
    /// A recipe line (it starts with a tab) of the rule above: whether it writes `$@`.
    Recipe {
        writes_target: bool,
    },
}

/// A conditional directive.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Directive {
    If(Condition),
    Else(Option<Condition>),
    EndIf,
}

/// The test of an `ifdef`/`ifeq` line, `negated` for `ifndef`/`ifneq`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Condition {
    negated: bool,
    test: Test,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Test {
    /// `ifdef NAME`: the variable has a non-empty value.
    Defined(String),
    /// `ifeq (a,b)`, `ifeq "a" "b"`: the two expand to the same text.
    Equal(String, String),
    /// A line too odd to read: nobody but make decides it.
    Unreadable,
}

/// What detection knows of a condition make decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Known {
    True,
    False,
    Unknown,
}

impl Known {
    fn and(self, other: Known) -> Known {
        match (self, other) {
            (Known::False, _) | (_, Known::False) => Known::False,
            (Known::Unknown, _) | (_, Known::Unknown) => Known::Unknown,
            _ => Known::True,
        }
    }

    fn or(self, other: Known) -> Known {
        match (self, other) {
            (Known::True, _) | (_, Known::True) => Known::True,
            (Known::Unknown, _) | (_, Known::Unknown) => Known::Unknown,
            _ => Known::False,
        }
    }

    fn not(self) -> Known {
        match self {
            Known::True => Known::False,
            Known::False => Known::True,
            Known::Unknown => Known::Unknown,
        }
    }
}

/// One open conditional: whether the branch being read is taken, and whether an earlier
/// branch of it was.
#[derive(Debug, Clone, Copy)]
struct Frame {
    branch: Known,
    taken: Known,
}

fn known(value: bool) -> Known {
    if value { Known::True } else { Known::False }
}

/// The directive of a line starting with `ifdef`, `ifeq`, `else`, `endif`, …
fn conditional(trimmed: &str) -> Option<Directive> {
    let word = first_word(trimmed);
    let unreadable = |negated| Condition {
        negated,
        test: Test::Unreadable,
    };
    match word {
        "endif" => Some(Directive::EndIf),
        "else" => {
            let rest = trimmed[4..].split('#').next().unwrap_or("").trim_ascii();
            Some(Directive::Else((!rest.is_empty()).then(|| {
                condition_of(rest).unwrap_or(unreadable(first_word(rest).starts_with("ifn")))
            })))
        }
        "ifdef" | "ifndef" | "ifeq" | "ifneq" => Some(Directive::If(
            condition_of(trimmed).unwrap_or(unreadable(word.starts_with("ifn"))),
        )),
        _ => None,
    }
}

/// The word a directive line starts with (up to whitespace or `(`).
fn first_word(text: &str) -> &str {
    let end = text
        .find(|c: char| c.is_ascii_whitespace() || c == '(')
        .unwrap_or(text.len());
    &text[..end]
}

/// The condition of `ifdef X`, `ifeq (a,b)`, `ifneq "a" 'b'`, …
fn condition_of(text: &str) -> Option<Condition> {
    let word = first_word(text);
    let rest = text[word.len()..].trim_ascii();
    let test = match word {
        "ifdef" | "ifndef" => {
            let name = rest.split('#').next().unwrap_or("").trim_ascii();
            if name.is_empty() || name.contains(char::is_whitespace) {
                return None;
            }
            Test::Defined(name.to_owned())
        }
        "ifeq" | "ifneq" => {
            if rest.starts_with('(') {
                let close = matching_close(rest, '(', ')')?;
                let inner = &rest[1..close];
                let comma = outside_references(inner, b',')?;
                Test::Equal(
                    inner[..comma].trim_ascii().to_owned(),
                    inner[comma + 1..].trim_ascii().to_owned(),
                )
            } else {
                let (a, after) = quoted(rest)?;
                let (b, _) = quoted(after.trim_ascii_start())?;
                Test::Equal(a.to_owned(), b.to_owned())
            }
        }
        _ => return None,
    };
    Some(Condition {
        negated: word.starts_with("ifn"),
        test,
    })
}

/// The text of a `"…"` or `'…'` word at the start of `text`, and what follows it.
fn quoted(text: &str) -> Option<(&str, &str)> {
    let quote = text.chars().next().filter(|c| matches!(c, '"' | '\''))?;
    let end = text[1..].find(quote)? + 1;
    Some((&text[1..end], &text[end + 1..]))
}

/// Whether a recipe line writes the rule's target (`> $@`, `-o $@`, `touch $@`, `cp a
/// $@`): then the target is a file, whatever its name looks like. `echo $@` is not.
fn writes_target(recipe: &str) -> bool {
    if find_pair(recipe, 0, *b"$@").is_none() {
        return false;
    }
    let recipe = recipe.trim_ascii().trim_start_matches(['@', '-', '+']);
    [
        "> $@",
        ">$@",
        "-o $@",
        "-o$@",
        "--output $@",
        "--output=$@",
        "touch $@",
    ]
    .iter()
    .any(|form| recipe.contains(form))
        || (["cp ", "mv ", "ln ", "install "]
            .iter()
            .any(|cmd| recipe.starts_with(cmd))
            && recipe.ends_with("$@"))
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
        if let Some(recipe) = line.strip_prefix('\t') {
            comments.clear();
            emit(Line::Recipe {
                writes_target: writes_target(recipe),
            });
            continue;
        }
        if trimmed.is_empty() {
            comments.clear();
            continue;
        }
        if trimmed.starts_with(['i', 'e'])
            && let Some(directive) = conditional(trimmed)
        {
            emit(Line::Conditional(directive));
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
    // Most lines are not: the first word is `define` or one of the words before it.
    if !trimmed.starts_with(['d', 'o', 'e', 'p']) {
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
    // `text.split('\n')`, with the newline found by `memchr` alone (a `char` pattern also
    // calls `memcmp` for each line it finds).
    let mut rest = Some(text);
    let mut raw_lines = std::iter::from_fn(move || {
        let text = rest?;
        match memchr::memchr(b'\n', text.as_bytes()) {
            Some(end) => {
                rest = Some(&text[end + 1..]);
                Some(&text[..end])
            }
            None => {
                rest = None;
                Some(text)
            }
        }
    });
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
    // `## text` is the doc convention (`make help` scripts grep for it): in a block that
    // has such lines, the plain `#` ones are the maintainer's notes. `##@` lines title a
    // section of `make help`.
    let marked = |line: &str| {
        let line = line.trim_ascii();
        line.starts_with("##")
            && !line.starts_with("##@")
            && !line.trim_matches('#').trim_ascii().is_empty()
    };
    let only_marked = comments.iter().any(|line| marked(line));
    let mut doc = String::new();
    for line in comments
        .iter()
        .filter(|line| !line.trim_ascii().starts_with("##@"))
        .filter(|line| !only_marked || marked(line))
    {
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
    if !trimmed.starts_with(['i', '-', 's']) {
        return None;
    }
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
    let eq = memchr::memchr(b'=', trimmed.as_bytes())?;
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
    // The code ends at the first `#`; the doc starts after the first `##` (at or after it).
    let (code, doc) = match memchr::memchr(b'#', line.as_bytes()) {
        Some(hash) => (
            &line[..hash],
            find_pair(line, hash, *b"##").map(|at| line[at + 2..].trim_ascii()),
        ),
        None => (line, None),
    };
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
    let mut parts = after.trim_start_matches(':').splitn(2, ';');
    let prerequisites = parts.next().unwrap_or("");
    let inline_recipe = parts.next();
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
    // Order-only prerequisites (after `|`) count as prerequisites too.
    let prerequisite_words: Vec<String> = words(prerequisites)
        .filter(|w| *w != "|")
        .map(str::to_owned)
        .collect();
    for (i, word) in words(names).enumerate() {
        let first = i == 0;
        if word.contains('$') {
            emit(Line::NamedByVariables {
                word: word.to_owned(),
                doc: doc.map(str::to_owned),
                above: above(""),
                prerequisites: prerequisite_words.clone(),
                recipe: inline_recipe.is_some(),
                first,
            });
            continue;
        }
        let name = unescape_colons(word);
        let above = above(&name);
        emit(Line::Target(RawTarget {
            doc_is_above: above.is_some(),
            doc: doc.map(str::to_owned).or(above),
            name: name.into_owned(),
            prerequisites: prerequisite_words.clone(),
            recipe: inline_recipe.is_some(),
            writes_target: inline_recipe.is_some_and(writes_target),
            first,
        }));
    }
    false
}

/// Where the two bytes of `pair` (`##`, `$@`) first follow each other in `text`, from
/// `from` on: a search for the first byte, where `str::find("##")` would set up a
/// substring searcher for each of a makefile's lines.
fn find_pair(text: &str, from: usize, pair: [u8; 2]) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = from;
    loop {
        let found = at + memchr::memchr(pair[0], bytes.get(at..)?)?;
        if bytes.get(found + 1) == Some(&pair[1]) {
            return Some(found);
        }
        at = found + 1;
    }
}

/// Where the colon that ends a rule's target list is: the first one that is neither
/// escaped (`docker\:build`) nor inside a variable reference (`$(SRC:.c=.o)`).
fn rule_colon(code: &str) -> Option<usize> {
    outside_references(code, b':')
}

/// The first `wanted` byte of `code` that is neither escaped with `\` nor inside a
/// variable reference.
fn outside_references(code: &str, wanted: u8) -> Option<usize> {
    debug_assert!(!matches!(wanted, b'(' | b'{' | b')' | b'}' | b'\\'));
    let bytes = code.as_bytes();
    // The first `wanted`, when no `(`, `{` or backslash comes before it, is the one: the
    // usual line (`name: prerequisites`) takes one plain pass, where the walk below cost a
    // 50,000-rule makefile more than any other step of its lines (and `memchr` is slower
    // than a loop on text this short).
    match bytes
        .iter()
        .position(|&b| b == wanted || matches!(b, b'(' | b'{' | b'\\'))
    {
        None => return None,
        Some(i) if bytes[i] == wanted => return Some(i),
        Some(_) => {}
    }
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
    if find_pair(word, 0, *b"\\:").is_some() {
        word.replace("\\:", ":").into()
    } else {
        word.into()
    }
}

/// Whether `text` (what follows a target's colon) is `VAR = value`, `VAR := value`, …
fn is_variable_assignment(text: &str) -> bool {
    let text = text.trim_ascii_start();
    // A loop, not `find` or `memchr`: the text is a rule's prerequisites, most often short.
    let Some(eq) = text.bytes().position(|b| b == b'=') else {
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
    !name.is_empty()
        && !name.starts_with('.')
        && !name
            .bytes()
            .any(|b| matches!(b, b'%' | b'$' | b'=' | b'(' | b')'))
}

#[cfg(test)]
mod tests {
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
    fn pattern_rules_over_listed_targets_and_with_recipes() {
        let text = concat!(
            "## Lint the code\ncommon-lint:\n\t@golangci-lint run\n",
            "common-proto: ## Generate protobuf code\n\t@buf generate\n",
            "common-%-skip:\n\t@true\n",
            "common-test-short: ## the short tests\n\t@true\n",
            "%: common-% ;\n",
            "## Run one test suite: make test-unit, make test-e2e\n",
            "test-%:\n\t@go test ./$*/...\n",
            "%.o: %.c\n\tcc -c $<\n",
            "%:\n\t@:\n",
            "protoc:\n",
        );
        let runner = collect(text).into_runner();
        let got: Vec<(&str, &str, Option<&str>)> = runner
            .tasks
            .iter()
            .map(|t| (t.name.as_str(), t.command.as_str(), t.doc.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                (
                    "common-lint",
                    "make common-lint",
                    Some("Lint the code (also as `make lint`)")
                ),
                (
                    "common-proto",
                    "make common-proto",
                    Some("Generate protobuf code (also as `make proto`)")
                ),
                (
                    "common-test-short",
                    "make common-test-short",
                    Some("the short tests")
                ),
                ("protoc", "make protoc", None),
                ("common-%-skip", "make common-<stem>-skip", None),
                (
                    "lint",
                    "make lint",
                    Some("Lint the code (through `common-lint`)")
                ),
                (
                    "proto",
                    "make proto",
                    Some("Generate protobuf code (through `common-proto`)")
                ),
                (
                    "test-%",
                    "make test-<stem>",
                    Some("Run one test suite: make test-unit, make test-e2e")
                ),
            ]
        );
        // An op naming a match runs it; the pattern's own command is never run as shown.
        let run = |name: &str| {
            runner
                .find(name)
                .map(|(t, c)| (t.name.clone(), c.into_owned()))
        };
        assert_eq!(
            run("test-e2e"),
            Some(("test-%".into(), "make test-e2e".into()))
        );
        assert_eq!(run("proto"), Some(("proto".into(), "make proto".into())));
        assert_eq!(run("test-%"), Some(("test-%".into(), "make test-%".into())));
        assert_eq!(run("test-"), None);
        assert!(
            runner
                .notes
                .iter()
                .any(|n| n.contains("pattern rule `test-%` is listed as a pattern"))
        );
    }

    #[test]
    fn outside_references_finds_what_a_byte_walk_finds() {
        // The byte walk `outside_references` takes when a reference or a backslash comes
        // first, run over every line of up to five bytes from the bytes that matter.
        fn walk(code: &str, wanted: u8) -> Option<usize> {
            let bytes = code.as_bytes();
            let (mut depth, mut backslashes) = (0usize, 0usize);
            for (i, &b) in bytes.iter().enumerate() {
                match b {
                    b'(' | b'{' if depth > 0 || (i > 0 && bytes[i - 1] == b'$') => depth += 1,
                    b')' | b'}' if depth > 0 => depth -= 1,
                    _ if b == wanted && depth == 0 && backslashes.is_multiple_of(2) => {
                        return Some(i);
                    }
                    _ => {}
                }
                backslashes = if b == b'\\' { backslashes + 1 } else { 0 };
            }
            None
        }
        let alphabet = b"a:=$({)}\\";
        let mut line = Vec::new();
        for len in 0..=5u32 {
            for mut n in 0..alphabet.len().pow(len) {
                line.clear();
                for _ in 0..len {
                    line.push(alphabet[n % alphabet.len()]);
                    n /= alphabet.len();
                }
                let line = std::str::from_utf8(&line).expect("ASCII");
                for wanted in [b':', b'='] {
                    assert_eq!(
                        outside_references(line, wanted),
                        walk(line, wanted),
                        "{line:?}"
                    );
                }
            }
        }
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

    #[test]
    fn many_pattern_rules_and_targets_stay_bounded() {
        let mut text = String::from("%: common-% ;\n");
        for i in 0..20_000 {
            text.push_str(&format!("common-t{i}:\n\t@true\n"));
        }
        for i in 0..1_200 {
            text.push_str(&format!("p{i}-%:\n\t@true\n"));
        }
        let runner = collect(&text).into_runner();
        let made = runner
            .tasks
            .iter()
            .filter(|t| t.name.starts_with('t'))
            .count();
        let patterns = runner.tasks.iter().filter(|t| is_pattern(t)).count();
        assert_eq!((made, patterns), (20_000, MAX_PATTERN_RULES - 1));
        assert!(
            runner
                .notes
                .contains(&"only the first 1000 of 1201 pattern rules are read for tasks".into()),
            "{:?}",
            &runner.notes[..3]
        );
    }
}
