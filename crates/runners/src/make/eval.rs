//! Evaluation: what the lines of a makefile and its includes come to, in reading order:
//! targets and their rules, variables and their expansion, conditionals decided as make
//! decides them.

use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::path::{Path, PathBuf};

use crate::runner::Task;

use super::lexer::{
    AssignOp, Assignment, Condition, Directive, Line, Test, is_task_name, matching_close,
    outside_references, unescape_colons, without_name,
};
use super::{MAX_EXPANSION_BYTES, MAX_EXPANSION_DEPTH, MAX_FILTER_PAIRS};

/// What detection collects from a makefile and its includes.
#[derive(Debug, Default)]
pub(super) struct Makefile {
    /// Targets in order of appearance (repeats included: the runner keeps the first), each
    /// already as the task it may become (its name and doc, no command yet):
    /// [`Makefile::into_runner`] completes, keeps or drops each in place, so a makefile of
    /// 50,000 targets never holds a second list of them.
    pub(super) targets: Vec<Task>,
    /// What each target's rule says, at the target's index.
    pub(super) rules: Vec<Rule>,
    /// The prerequisites of every rule, each rule's a range (the targets of one line share
    /// theirs).
    pub(super) prerequisites: Vec<String>,
    /// Names declared phony.
    pub(super) phony: HashSet<String>,
    /// Docs from `#? name: text` lines (the first for a name wins).
    pub(super) help: HashMap<String, String>,
    /// Variables set so far, for include paths, target names and `.DEFAULT_GOAL`.
    pub(super) vars: Variables,
    /// What could not be listed, with why (a target named by a variable make alone knows).
    pub(super) notes: Vec<String>,
    /// The conditionals open where reading is.
    frames: Vec<Frame>,
    /// Where the targets of the rule being read start in `targets` (its recipe lines are
    /// theirs), when the last line was a rule or a recipe line.
    rule_start: Option<usize>,
    /// Targets false conditions leave out (the first 1,000 names).
    pub(super) dropped: Vec<String>,
}

impl Makefile {
    /// Takes in what one line says (an include line is the reader's to follow); `lossy`
    /// says the text had bytes that are not UTF-8, which a name may then hold.
    #[expect(
        clippy::too_many_lines,
        reason = "over 80 lines when the limit was set; split it when it next changes"
    )]
    pub(super) fn add(&mut self, line: Line, lossy: bool) {
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
                        names_goal: target.names_goal,
                        uncertain,
                    },
                    lossy,
                );
            }
            Line::Recipe {
                writes_target,
                names_goal,
            } => {
                if let Some(start) = rule_start {
                    for rule in &mut self.rules[start..] {
                        rule.recipe = true;
                        rule.writes_target |= writes_target;
                        rule.names_goal |= names_goal;
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
                        names_goal: false,
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
    pub(super) fn active(&self) -> Known {
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
}

/// What the makefile says about one target's rule, kept beside the target's task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Rule {
    /// Where its prerequisites are in [`Makefile::prerequisites`].
    pub(super) prerequisites: Range<u32>,
    /// The task's doc is the comment block above: a rule's `#? name:` doc goes first, and
    /// for a generated file the block is the maintainer's note rather than a doc.
    pub(super) doc_is_above: bool,
    /// Its name came from bytes that are not UTF-8.
    pub(super) invalid_utf8: bool,
    /// It has a recipe (tab lines, or `;` on the rule's line).
    pub(super) recipe: bool,
    /// Its recipe writes `$@`.
    pub(super) writes_target: bool,
    /// Its recipe names the goal (`$@`, `$(MAKECMDGOALS)`).
    pub(super) names_goal: bool,
    /// It is defined under a condition detection cannot decide.
    pub(super) uncertain: bool,
}

/// `len` as an index into [`Makefile::prerequisites`]: the makefiles together hold at most
/// [`MAX_TOTAL_BYTES`](super::MAX_TOTAL_BYTES), fewer words than a `u32` counts.
fn index(len: usize) -> u32 {
    u32::try_from(len).expect("fewer prerequisites than the makefiles have bytes")
}

/// A variable's value as far as detection can know it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Value {
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
pub(super) struct Variables {
    pub(super) values: HashMap<String, Value>,
    /// The project root, where `$(wildcard NAME)` in a condition looks (none: such a
    /// condition is undecided).
    pub(super) root: Option<PathBuf>,
    /// The paths those lookups asked about, for the detection cache.
    pub(super) looked_up: std::cell::RefCell<Vec<PathBuf>>,
    /// The environment variables a condition read, for the detection cache: exporting one
    /// changes which branch make takes.
    pub(super) env_read: std::cell::RefCell<Vec<String>>,
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
    pub(super) fn expand(&self, text: &str, depth: usize) -> Result<String, String> {
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
pub(super) fn stem_of<'n>(pattern: &str, name: &'n str) -> Option<&'n str> {
    match pattern.split_once('%') {
        None => (pattern == name).then_some(""),
        Some((prefix, suffix)) => name
            .strip_prefix(prefix)?
            .strip_suffix(suffix)
            .filter(|stem| !stem.is_empty()),
    }
}

/// What detection knows of a condition make decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Known {
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

#[cfg(test)]
mod tests {
    use crate::make::collect;

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
