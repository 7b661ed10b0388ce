//! Tasks: the makefile's targets as the runner's tasks (which a person would type, with
//! their docs), the default goal, and the tasks pattern rules make.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use crate::quote::quote_cow;
use crate::runner::{Repeats, Runner, Task, TaskIndex};

use super::eval::{Makefile, Rule, Value, stem_of};
use super::lexer::is_task_name;

impl Makefile {
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
    pub(super) fn into_runner(self) -> Runner {
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
                    names_goal: rule.names_goal,
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
pub(super) const UNDECIDED: &str = "(only under a condition make decides)";

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
        // A catch-all rule with a recipe and no pattern prerequisite (`%: ; @go run -C .make
        // . $@`) forwards every goal: any name no task has runs as `make NAME`.
        if !made_any && rule.names_goal && rule.name == "%" {
            if taken.insert(rule.name.clone()) {
                notes.push(
                    "the catch-all rule `%` forwards every goal: an op naming no task runs \
                     `make NAME`"
                        .to_owned(),
                );
                out.push(Task {
                    command: format!("make {FORWARDED}"),
                    name: rule.name.clone(),
                    doc: Some(match &rule.doc {
                        Some(doc) => format!("{doc} ({FORWARDER_DOC})"),
                        None => FORWARDER_DOC.to_owned(),
                    }),
                    params: Vec::new(),
                    cwd: None,
                });
            }
            continue;
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

/// What a catch-all rule's task shows where the goal goes.
const FORWARDED: &str = "<target>";

/// The doc of a catch-all rule's task, which the prompt shows.
const FORWARDER_DOC: &str =
    "a catch-all `%:` rule: any name no task has runs as `make NAME`, which it forwards";

/// The pattern task (`test-%`, or a catch-all `%`) whose pattern `name` matches, run under
/// that name. A catch-all takes no name make would read as an option or a variable
/// setting (`-C..`, `X=1`).
pub(super) fn pattern_task(runner: &Runner, name: &str) -> Option<(usize, String)> {
    // make takes the rule with the shortest stem: `test-%` before a catch-all.
    let index = runner
        .tasks
        .iter()
        .position(|t| is_pattern(t) && t.name != "%" && stem_of(&t.name, name).is_some())
        .or_else(|| {
            let forwards = !name.starts_with('-') && is_task_name(name);
            forwards.then(|| runner.tasks.iter().position(|t| t.name == "%"))?
        })?;
    Some((index, format!("make {}", quote_cow(name))))
}

/// Whether a task is a pattern rule listed by its pattern.
pub(super) fn is_pattern(task: &Task) -> bool {
    task.name.contains('%')
}

/// Targets the prompt shows last and never as examples: those under a condition only make
/// decides, and those a pattern rule gives a shorter name.
pub(super) fn is_aside(_: &TaskIndex<'_>, task: &Task) -> bool {
    task.doc.as_deref().is_some_and(|doc| {
        doc.ends_with(UNDECIDED)
            || doc.ends_with(FILE_TARGET)
            || doc
                .rsplit_once(ALSO)
                .is_some_and(|(_, name)| !name.contains(' '))
    })
}

/// A pattern rule (`test-%:`, `%: common-%`), for the tasks it makes.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PatternRule {
    name: String,
    doc: Option<String>,
    prerequisites: Vec<String>,
    recipe: bool,
    names_goal: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::make::collect;

    /// Property: a catch-all rule whose recipe names the goal forwards any name no task
    /// has, as `make NAME`, after the patterns with a shorter stem; never a name make reads
    /// as an option or a setting; a catch-all that names no goal (`@:`) only swallows.
    #[test]
    fn catch_all_rules_that_forward_the_goal() {
        let text = "help: ## Show the targets\n\t@echo help\n%: ; @go run -C .make . $@\ntest-%:\n\t@echo $*\n";
        let runner = collect(text).into_runner();
        let found = |name: &str| {
            pattern_task(&runner, name).map(|(i, command)| (runner.tasks[i].name.clone(), command))
        };
        assert_eq!(found("unit"), Some(("%".into(), "make unit".into())));
        assert_eq!(
            found("static-analysis"),
            Some(("%".into(), "make static-analysis".into()))
        );
        assert_eq!(
            found("test-e2e"),
            Some(("test-%".into(), "make test-e2e".into()))
        );
        assert_eq!(found("-C.."), None);
        assert_eq!(found("X=1"), None);
        let forward = runner.tasks.iter().find(|t| t.name == "%").expect("listed");
        assert_eq!(forward.command, "make <target>");
        assert!(is_pattern(forward));
        let goals = collect("all:\n\t@true\n%:\n\t@$(MAKE) -C sub $(MAKECMDGOALS)\n").into_runner();
        assert!(goals.tasks.iter().any(|t| t.name == "%"));
        let swallow = collect("all:\n\t@true\n%:\n\t@:\n").into_runner();
        assert!(pattern_task(&swallow, "unit").is_none());
        assert!(swallow.tasks.iter().all(|t| t.name != "%"));
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
