//! Resolving an op against the detected runners to one command and working directory.

use speccoder_foundation::suggest::edit_distance;
use speccoder_runners::{Runner, TailRule, Task};

use super::op::Op;

/// An op resolved to the command that runs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved<'r> {
    /// The runner the task belongs to.
    pub runner: &'r Runner,
    /// The task.
    pub task: &'r Task,
    /// The whole shell command: the task's command and the tail.
    pub command: String,
    /// Where it runs, relative to the root; the root when `None`.
    pub cwd: Option<&'r str>,
}

/// Why an op does not resolve. Each message ends with the list of available tasks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResolveError {
    /// The op holds nothing.
    #[error("recipe op is empty. Available tasks:\n{list}")]
    Empty {
        /// The task list.
        list: String,
    },
    /// `<runner>:` with no task after the runner's id.
    #[error(
        "op `{runner}:` names runner `{runner}` but no task: write `{runner}:<task>`. Available tasks:\n{list}"
    )]
    NoTask {
        /// The runner id.
        runner: String,
        /// The task list.
        list: String,
    },
    /// `<runner>:<task>` where the runner has no such task.
    #[error(
        "task `{task}` not found in runner `{runner}`{} Available tasks:\n{list}",
        did_you_mean(suggestion.as_deref())
    )]
    NotInRunner {
        /// The runner id.
        runner: String,
        /// The task name asked for.
        task: String,
        /// A close name of that runner.
        suggestion: Option<String>,
        /// The task list.
        list: String,
    },
    /// A bare name that several runners have.
    #[error(
        "task `{head}` exists in multiple runners ({}): use `<runner-id>:<task>`, for example `{}:{head}`{}. Available tasks:\n{list}",
        runners.join(", "),
        runners[0],
        documented.as_deref().map_or_else(String::new, |d| format!(" ({d})"))
    )]
    Ambiguous {
        /// The name.
        head: String,
        /// Every runner that has it, in detection order; the one the project's CI or docs
        /// run first.
        runners: Vec<String>,
        /// What the project's CI or docs run, when they run one of them (`the project's CI
        /// runs `make test``).
        documented: Option<String>,
        /// The task list.
        list: String,
    },
    /// A bare name no runner has.
    #[error(
        "no runner task named `{head}`{} Use one of the available runner ids ({}) as a prefix when needed, e.g. `{}`. Available tasks:\n{list}",
        did_you_mean(suggestion.as_deref()),
        runner_ids.join(", "),
        example
    )]
    NotFound {
        /// The name.
        head: String,
        /// A close name, when there is one.
        suggestion: Option<String>,
        /// The detected runner ids.
        runner_ids: Vec<String>,
        /// The example op, `<id>:<task>`: the suggestion with its runner, else the first
        /// runner's first task (an example always names a task that exists).
        example: String,
        /// The task list.
        list: String,
    },
    /// Not an op but the answer to `--list WORD`: the matching tasks.
    #[error("{text}")]
    Listing {
        /// The matching task names, one line per runner.
        text: String,
    },
    /// No runner was detected: nothing can run.
    #[error(
        "{} `speccoder recipe list --explain` shows why each runner is absent.",
        if failures.is_empty() {
            "no task runner detected in this project, so no task can run.".to_owned()
        } else {
            format!("no working task runner in this project, so no task can run: {failures}")
        }
    )]
    NoRunner {
        /// `` `task` failed: <why>. `` for each runner whose detection failed.
        failures: String,
    },
    /// `<runner>:<task>` where the runner's detection failed.
    #[error(
        "runner `{runner}` failed, so its tasks are unknown: {reason}. `speccoder recipe list \
         --explain` shows every runner's state. Available tasks:\n{list}"
    )]
    RunnerFailed {
        /// The runner id.
        runner: String,
        /// Why its detection failed.
        reason: String,
        /// The tasks of the other runners.
        list: String,
    },
}

/// `: did you mean `x`?` after what was not found, else the end of its sentence.
fn did_you_mean(suggestion: Option<&str>) -> String {
    suggestion.map_or_else(|| ".".to_owned(), |s| format!(": did you mean `{s}`?"))
}

/// The op that lists the tasks whose name or doc holds a word (`--list test`). No task can
/// be named so: names starting with `-` are left out by every runner.
pub(crate) const LIST_OP: &str = "--list";

/// How many task names an error lists in full; past it, only the names closest to what was
/// asked, so a monorepo of hundreds of tasks answers in a few lines.
const FULL_LIST_MAX: usize = 40;

/// How many names a bounded list or a `--list` answer shows.
const SHOWN_NAMES: usize = 10;

/// The op that reaches `task` of `runner` with no arguments: its name, or `<id>:<name>`
/// when the name starts with a detected runner's id and the bare name would reach another
/// task (go-task's `just:build` beside a justfile's `build` is `task:just:build`). Decided
/// as [`resolve`] decides a prefixed head, without building its error texts.
pub(crate) fn op_name<'t>(
    runners: &[&Runner],
    runner: &Runner,
    task: &'t Task,
) -> std::borrow::Cow<'t, str> {
    let bare = task.name.as_str().into();
    let Some((prefix, rest)) = task.name.split_once(':') else {
        return bare;
    };
    let Some(prefixed) = runners
        .iter()
        .find(|r| r.id == prefix && !prefix.is_empty())
    else {
        return bare;
    };
    if runner.id != prefix && !runner.is_builtin(task) {
        // The prefixed runner yields when it has no task of the project's own by that name,
        // and then the whole name runs the one other runner's task that has it.
        let yields = prefixed
            .find(rest)
            .is_none_or(|(found, _)| prefixed.is_builtin(found));
        let holders = runners
            .iter()
            .filter(|r| r.id != prefix)
            .filter(|r| {
                r.find(&task.name)
                    .is_some_and(|(found, _)| !r.is_builtin(found))
            })
            .count();
        if yields && holders == 1 {
            return bare;
        }
    }
    format!("{}:{}", runner.id, task.name).into()
}

/// One line per runner: `- <id>: <task names joined by ", ">`.
pub fn task_list(runners: &[&Runner]) -> String {
    bounded_list(runners, None)
}

/// [`task_list`], or with more than [`FULL_LIST_MAX`] tasks the [`SHOWN_NAMES`] names
/// closest to `near` (or the first ones), the count of the rest, and how to find them.
fn bounded_list(runners: &[&Runner], near: Option<&str>) -> String {
    let total: usize = runners.iter().map(|r| r.tasks.len()).sum();
    if total <= FULL_LIST_MAX {
        let lines: Vec<String> = runners
            .iter()
            .map(|runner| {
                let names: Vec<std::borrow::Cow<'_, str>> = runner
                    .tasks
                    .iter()
                    .map(|t| op_name(runners, runner, t))
                    .collect();
                format!("- {}: {}", runner.id, names.join(", "))
            })
            .collect();
        return lines.join("\n");
    }
    let mut ranked: Vec<(usize, usize, &str, &Task)> = runners
        .iter()
        .enumerate()
        .flat_map(|(i, r)| {
            r.tasks.iter().enumerate().map(move |(j, t)| {
                let distance = near.map_or(0, |n| closeness(n, &t.name));
                (distance, i * 1_000_000 + j, r.id, t)
            })
        })
        .collect();
    ranked.sort_unstable_by_key(|&(distance, order, _, _)| (distance, order));
    ranked.truncate(SHOWN_NAMES);
    // Back in listing order, grouped by runner.
    ranked.sort_unstable_by_key(|&(_, order, _, _)| order);
    let mut lines: Vec<String> = Vec::new();
    for runner in runners {
        let names: Vec<std::borrow::Cow<'_, str>> = ranked
            .iter()
            .filter(|(_, _, id, _)| *id == runner.id)
            .map(|(_, _, _, task)| op_name(runners, runner, task))
            .collect();
        if !names.is_empty() {
            lines.push(format!("- {}: {}", runner.id, names.join(", ")));
        }
    }
    lines.push(format!(
        "- … and {} more; `{LIST_OP} <word>` lists the tasks whose name or doc holds a word.",
        total - ranked.len()
    ));
    lines.join("\n")
}

/// How far `name` is from `wanted`: a name holding it is close, then edit distance.
fn closeness(wanted: &str, name: &str) -> usize {
    if name.contains(wanted) {
        return name.len() - wanted.len();
    }
    1000 + edit_distance(wanted, name)
}

/// The answer to `--list WORD`: the matching tasks, at most a bounded number of them.
fn listing(runners: &[&Runner], word: &str) -> String {
    const MAX: usize = 50;
    let word = word.trim();
    let lower = word.to_lowercase();
    let mut shown = 0;
    let mut matched = 0;
    let mut lines = Vec::new();
    for runner in runners {
        let mut names = Vec::new();
        for task in &runner.tasks {
            let hit = lower.is_empty()
                || task.name.to_lowercase().contains(&lower)
                || task
                    .doc
                    .as_deref()
                    .is_some_and(|d| d.to_lowercase().contains(&lower));
            if hit {
                matched += 1;
                if shown < MAX {
                    shown += 1;
                    names.push(op_name(runners, runner, task));
                }
            }
        }
        if !names.is_empty() {
            lines.push(format!("- {}: {}", runner.id, names.join(", ")));
        }
    }
    let what = if word.is_empty() {
        "Tasks".to_owned()
    } else {
        format!("Tasks whose name or doc holds `{word}`")
    };
    let mut out = format!("{what}: {matched}");
    if matched > shown {
        out.push_str(&format!(" (the first {shown} shown)"));
    }
    out.push_str(if matched == 0 { "." } else { ":\n" });
    out.push_str(&lines.join("\n"));
    out
}

/// Resolves `op` against `runners` (in detection order).
#[expect(
    clippy::too_many_lines,
    reason = "over 80 lines when the limit was set; split it when it next changes"
)]
pub(crate) fn resolve<'r>(runners: &[&'r Runner], op: &str) -> Result<Resolved<'r>, ResolveError> {
    let Some(op) = Op::parse(op) else {
        return Err(ResolveError::Empty {
            list: bounded_list(runners, None),
        });
    };
    let list = || bounded_list(runners, Some(op.head));
    if op.head == LIST_OP {
        return Err(ResolveError::Listing {
            text: listing(runners, op.tail),
        });
    }
    let ids: Vec<&str> = runners.iter().map(|r| r.id).collect();
    if let Some((id, name)) = op.runner_prefix(&ids) {
        let runner = runners
            .iter()
            .find(|r| r.id == id)
            .expect("the prefix is a detected id");
        let prefixed = runner.find(name);
        // A head like `cargo:build` may be a task's whole name in another runner (a
        // package.json script). It runs when the prefixed runner has no such task of the
        // project's own (cargo's built-in `build` yields, as it does to a same-named task).
        let whole: Vec<Found<'r>> = match &prefixed {
            Some((task, _)) if !runner.is_builtin(task) => Vec::new(),
            _ => runners
                .iter()
                .filter(|r| r.id != id)
                .filter_map(|r| {
                    let (task, command) = r.find(op.head)?;
                    (!r.is_builtin(task)).then_some((*r, task, command))
                })
                .collect(),
        };
        return match (prefixed, whole.as_slice()) {
            (_, [(other, task, command)]) => Ok(resolved(other, task, command, op.tail)),
            (Some((task, command)), _) => Ok(resolved(runner, task, &command, op.tail)),
            (None, []) if name.is_empty() => Err(ResolveError::NoTask {
                runner: id.to_owned(),
                list: list(),
            }),
            (None, several) => {
                Err(ResolveError::NotInRunner {
                    runner: id.to_owned(),
                    task: name.to_owned(),
                    // With several runners holding the whole name, the full form is the answer.
                    suggestion: match several.first() {
                        Some((other, _, _)) => Some(format!("{}:{}", other.id, op.head)),
                        None => closest(name, runner.tasks.iter().map(|t| t.name.as_str())).map(
                            |close| match runner.tasks.iter().find(|t| t.name == close) {
                                Some(task) => op_name(runners, runner, task).into_owned(),
                                None => close,
                            },
                        ),
                    },
                    list: list(),
                })
            }
        };
    }
    // Names first; an alias or a wildcard pattern only when no runner has the name itself.
    let mut matches: Vec<Found<'r>> = runners
        .iter()
        .filter_map(|r| {
            // A pattern task (`test-%`) shows its pattern; its own matching runs it.
            let task = r
                .tasks
                .iter()
                .find(|t| t.name == op.head && !r.is_pattern(t))?;
            Some((*r, task, task.command.as_str().into()))
        })
        .collect();
    if matches.is_empty() {
        matches = runners
            .iter()
            .filter_map(|r| r.find(op.head).map(|(task, command)| (*r, task, command)))
            .collect();
    }
    // An aside (a lifecycle hook, npm init's placeholder `test` that only fails) yields to
    // a task of that name a developer types; then a runner's own command (cargo's `test`)
    // yields to the project's task of that name: that is what its authors meant.
    if matches.len() > 1 && matches.iter().any(|(r, t, _)| !r.is_aside(t)) {
        matches.retain(|(r, t, _)| !r.is_aside(t));
    }
    if matches.len() > 1 && matches.iter().any(|(r, t, _)| !r.is_builtin(t)) {
        matches.retain(|(r, t, _)| !r.is_builtin(t));
    }
    match matches.as_slice() {
        [(runner, task, command)] => Ok(resolved(runner, task, command, op.tail)),
        [] => {
            let all = runners
                .iter()
                .flat_map(|r| r.tasks.iter().map(move |t| (r.id, t.name.as_str())));
            let suggestion = closest_with_owner(op.head, all);
            // The suggestion is an op that reaches the task it names.
            let suggested_op = suggestion.and_then(|(owner, name)| {
                let runner = runners.iter().find(|r| r.id == owner)?;
                let task = runner.tasks.iter().find(|t| t.name == name)?;
                Some(op_name(runners, runner, task).into_owned())
            });
            // The example must exist: the suggestion with its runner, else the first task.
            let (example_runner, example_task) = suggestion
                .or_else(|| {
                    let runner = runners.first()?;
                    Some((runner.id, runner.tasks.first()?.name.as_str()))
                })
                .unwrap_or((speccoder_runners::RUNNER_IDS[0], op.head));
            Err(ResolveError::NotFound {
                head: op.head.to_owned(),
                suggestion: suggested_op,
                runner_ids: ids.iter().map(|id| (*id).to_owned()).collect(),
                example: format!("{example_runner}:{example_task}"),
                list: list(),
            })
        }
        several => Err(ResolveError::Ambiguous {
            head: op.head.to_owned(),
            runners: several.iter().map(|(r, _, _)| r.id.to_owned()).collect(),
            documented: None,
            list: list(),
        }),
    }
}

/// A task an op may select: its runner, the task, and the command that runs it.
type Found<'r> = (&'r Runner, &'r Task, std::borrow::Cow<'r, str>);

fn resolved<'r>(runner: &'r Runner, task: &'r Task, command: &str, tail: &str) -> Resolved<'r> {
    let command = if tail.trim().is_empty() {
        command.into()
    } else {
        runner.command_with_words(task, command)
    };
    Resolved {
        runner,
        task,
        command: build_command(&command, runner.tail_rule, tail),
        cwd: task.cwd.as_deref(),
    }
}

/// The task's command and the tail, joined by one space with blank parts dropped, the tail
/// adjusted so its words reach the task on this runner.
pub fn build_command(task_command: &str, rule: TailRule, tail: &str) -> String {
    let first_word = tail.split_whitespace().next();
    let tail: std::borrow::Cow<'_, str> = match rule {
        TailRule::AsWritten => tail.into(),
        TailRule::DashDashFirst if !tail.trim().is_empty() && first_word != Some("--") => {
            format!("-- {tail}").into()
        }
        TailRule::DashDashFirst => tail.into(),
        TailRule::NoLeadingDashDash if first_word == Some("--") => {
            let after = tail.trim_start();
            after["--".len()..].trim_start().into()
        }
        TailRule::NoLeadingDashDash => tail.into(),
    };
    [task_command.trim(), tail.as_ref()]
        .iter()
        .filter(|part| !part.trim().is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join(" ")
        .trim()
        .to_owned()
}

/// The name in `names` closest to `wanted` by edit distance, when it is close enough to be
/// a likely typo.
fn closest<'n>(wanted: &str, names: impl Iterator<Item = &'n str>) -> Option<String> {
    closest_with_owner(wanted, names.map(|n| ("", n))).map(|(_, n)| n.to_owned())
}

fn closest_with_owner<'n>(
    wanted: &str,
    names: impl Iterator<Item = (&'n str, &'n str)>,
) -> Option<(&'n str, &'n str)> {
    let length = wanted.chars().count();
    let limit = (length / 3).max(1);
    let mut best: Option<(usize, (&str, &str))> = None;
    for (owner, name) in names {
        // The distance is at least the difference in length: most names are ruled out
        // without the table.
        if name.chars().count().abs_diff(length) > limit {
            continue;
        }
        let distance = edit_distance(wanted, name);
        if distance <= limit && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, (owner, name)));
        }
    }
    best.map(|(_, found)| found)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn runner(id: &'static str, rule: TailRule, prefix: &str, names: &[&str]) -> Runner {
        let mut runner = Runner::new(id, "L", prefix);
        runner.tail_rule = rule;
        for name in names {
            runner.push_task(Task {
                name: (*name).to_owned(),
                command: format!("{prefix} {name}"),
                doc: None,
                params: Vec::new(),
                cwd: name.contains('/').then(|| "pkgs/web".to_owned()),
            });
        }
        runner
    }

    fn project() -> Vec<Runner> {
        vec![
            runner(
                "just",
                TailRule::AsWritten,
                "just",
                &["build", "test", "sub/hello"],
            ),
            runner(
                "pkg",
                TailRule::DashDashFirst,
                "npm run",
                &["test", "lint", "web/dev"],
            ),
            runner("task", TailRule::AsWritten, "task", &["lib:fmt", "tests"]),
        ]
    }

    fn ok(runners: &[Runner], op: &str) -> (&'static str, String, Option<String>) {
        let refs: Vec<&Runner> = runners.iter().collect();
        let r = resolve(&refs, op).expect("resolves");
        (r.runner.id, r.command, r.cwd.map(str::to_owned))
    }

    fn err(runners: &[Runner], op: &str) -> String {
        let refs: Vec<&Runner> = runners.iter().collect();
        resolve(&refs, op)
            .expect_err("does not resolve")
            .to_string()
    }

    #[test]
    fn resolution() {
        let p = project();
        assert_eq!(
            ok(&p, "build --release"),
            ("just", "just --one build --release".into(), None)
        );
        assert_eq!(ok(&p, "build"), ("just", "just build".into(), None));
        assert_eq!(
            ok(&p, "pkg:test --watch"),
            ("pkg", "npm run test -- --watch".into(), None)
        );
        assert_eq!(ok(&p, "just:test"), ("just", "just test".into(), None));
        assert_eq!(ok(&p, "lib:fmt"), ("task", "task lib:fmt".into(), None));
        assert_eq!(
            ok(&p, "task:lib:fmt -x"),
            ("task", "task lib:fmt -x".into(), None)
        );
        assert_eq!(
            ok(&p, "web/dev --port 1"),
            (
                "pkg",
                "npm run web/dev -- --port 1".into(),
                Some("pkgs/web".into())
            )
        );
        assert_eq!(
            ok(&p, "  sub/hello   a  "),
            (
                "just",
                "just --one sub/hello a".into(),
                Some("pkgs/web".into())
            )
        );
    }

    #[test]
    fn just_recipes_take_words_after_one_unless_variadic() {
        let mut just = runner("just", TailRule::AsWritten, "just", &[]);
        for (name, params) in [("two", vec!["a", "b"]), ("rest", vec!["a", "*more"])] {
            just.push_task(Task {
                name: name.to_owned(),
                command: format!("just {name}"),
                doc: None,
                params: params.into_iter().map(str::to_owned).collect(),
                cwd: None,
            });
        }
        let p = vec![just];
        assert_eq!(
            ok(&p, "two 1 2 secret"),
            ("just", "just --one two 1 2 secret".into(), None)
        );
        assert_eq!(ok(&p, "two  "), ("just", "just two".into(), None));
        assert_eq!(
            ok(&p, "rest 1 secret"),
            ("just", "just rest 1 secret".into(), None)
        );
    }

    /// Property: an aside (npm init's placeholder `test`, a lifecycle hook) yields to
    /// another runner's task of that name, even cargo's own; alone it still resolves, and
    /// its runner's prefix reaches it.
    #[test]
    fn asides_yield_to_any_other_task() {
        let mut cargo = runner("cargo", TailRule::AsWritten, "cargo", &[]);
        cargo.push_task(Task {
            name: "test".to_owned(),
            command: "cargo test".to_owned(),
            doc: None,
            params: Vec::new(),
            cwd: None,
        });
        let mut pkg = runner("pkg", TailRule::AsWritten, "npm run", &["prepare", "build"]);
        pkg.push_task(Task {
            name: "test".to_owned(),
            command: "npm run test".to_owned(),
            doc: Some("npm init's placeholder: it only prints an error and fails".to_owned()),
            params: Vec::new(),
            cwd: None,
        });
        let make = runner("make", TailRule::AsWritten, "make", &["prepare"]);
        let p = vec![pkg, cargo, make];
        assert_eq!(ok(&p, "test"), ("cargo", "cargo test".into(), None));
        assert_eq!(ok(&p, "pkg:test"), ("pkg", "npm run test".into(), None));
        assert_eq!(ok(&p, "prepare"), ("make", "make prepare".into(), None));
        assert_eq!(ok(&p[..1], "test"), ("pkg", "npm run test".into(), None));
    }

    #[test]
    fn runner_commands_yield_to_project_tasks() {
        let mut cargo = runner("cargo", TailRule::AsWritten, "cargo", &[]);
        for verb in ["test", "build"] {
            cargo.push_task(Task {
                name: verb.to_owned(),
                command: format!("cargo {verb}"),
                doc: None,
                params: Vec::new(),
                cwd: None,
            });
        }
        let pkg = runner(
            "pkg",
            TailRule::AsWritten,
            "npm run",
            &["test", "cargo:build", "cargo:release"],
        );
        let make = runner("make", TailRule::AsWritten, "make", &["cargo:release"]);
        let p = vec![cargo, pkg];
        // The project's `test` wins over cargo's own, with no ambiguity.
        assert_eq!(ok(&p, "test"), ("pkg", "npm run test".into(), None));
        assert_eq!(ok(&p, "cargo:test"), ("cargo", "cargo test".into(), None));
        assert_eq!(ok(&p, "build -r"), ("cargo", "cargo build -r".into(), None));
        // `cargo:release` is no task of cargo but a script's whole name.
        assert_eq!(
            ok(&p, "cargo:release x"),
            ("pkg", "npm run cargo:release x".into(), None)
        );
        // The script `cargo:build` wins over cargo's built-in `build`.
        assert_eq!(
            ok(&p, "cargo:build"),
            ("pkg", "npm run cargo:build".into(), None)
        );
        // Two runners with the whole name: the error names the full form.
        let mut p = p;
        p.push(make);
        assert!(
            err(&p, "cargo:release").starts_with(
                "task `release` not found in runner `cargo`: did you mean `pkg:cargo:release`?"
            ),
            "{}",
            err(&p, "cargo:release")
        );
    }

    #[test]
    fn tail_rules() {
        #[track_caller]
        fn case(rule: TailRule, tail: &str, want: &str) {
            assert_eq!(build_command("x run 's'", rule, tail), want);
        }
        case(TailRule::AsWritten, "", "x run 's'");
        case(TailRule::AsWritten, "-- --watch", "x run 's' -- --watch");
        case(
            TailRule::DashDashFirst,
            "--watch x",
            "x run 's' -- --watch x",
        );
        case(
            TailRule::DashDashFirst,
            "-- --watch",
            "x run 's' -- --watch",
        );
        case(TailRule::DashDashFirst, "   ", "x run 's'");
        case(TailRule::DashDashFirst, "--watch", "x run 's' -- --watch");
        case(
            TailRule::NoLeadingDashDash,
            "-- --watch x",
            "x run 's' --watch x",
        );
        case(TailRule::NoLeadingDashDash, "--watch", "x run 's' --watch");
        case(TailRule::NoLeadingDashDash, "-- -- x", "x run 's' -- x");
        case(TailRule::NoLeadingDashDash, "--", "x run 's'");
        case(TailRule::NoLeadingDashDash, "--x", "x run 's' --x");
    }

    #[test]
    fn error_texts() {
        let p = project();
        let list =
            "- just: build, test, sub/hello\n- pkg: test, lint, web/dev\n- task: lib:fmt, tests";
        assert_eq!(
            err(&p, "  "),
            format!("recipe op is empty. Available tasks:\n{list}")
        );
        assert_eq!(
            err(&p, "pkg:nope"),
            format!("task `nope` not found in runner `pkg`. Available tasks:\n{list}")
        );
        assert_eq!(
            err(&p, "pkg:"),
            format!(
                "op `pkg:` names runner `pkg` but no task: write `pkg:<task>`. Available \
                 tasks:\n{list}"
            )
        );
        assert_eq!(
            err(&p, "pkg:lnt"),
            format!(
                "task `lnt` not found in runner `pkg`: did you mean `lint`? Available tasks:\n{list}"
            )
        );
        assert_eq!(
            err(&p, "test"),
            format!(
                "task `test` exists in multiple runners (just, pkg): use `<runner-id>:<task>`, \
                 for example `just:test`. Available tasks:\n{list}"
            )
        );
        assert_eq!(
            err(&p, "zzz"),
            format!(
                "no runner task named `zzz`. Use one of the available runner ids (just, pkg, \
                 task) as a prefix when needed, e.g. `just:build`. Available tasks:\n{list}"
            )
        );
        assert_eq!(
            err(&p, "tset"),
            format!(
                "no runner task named `tset`: did you mean `test`? Use one of the available \
                 runner ids (just, pkg, task) as a prefix when needed, e.g. `just:test`. \
                 Available tasks:\n{list}"
            )
        );
        assert_eq!(
            err(&p, "lnit"),
            format!(
                "no runner task named `lnit`: did you mean `lint`? Use one of the available \
                 runner ids (just, pkg, task) as a prefix when needed, e.g. `pkg:lint`. \
                 Available tasks:\n{list}"
            )
        );
    }

    #[test]
    fn distances() {
        assert_eq!(edit_distance("test", "tests"), 1);
        assert_eq!(edit_distance("tset", "test"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    fn arb_name() -> impl Strategy<Value = String> {
        "[a-z][a-z0-9:/_-]{0,8}"
    }

    fn arb_project() -> impl Strategy<Value = Vec<Runner>> {
        let ids = ["just", "pkg", "cargo", "make", "task"];
        prop::collection::vec(prop::collection::vec(arb_name(), 1..6), 1..5).prop_map(
            move |lists| {
                lists
                    .iter()
                    .enumerate()
                    .map(|(i, names)| {
                        let names: Vec<&str> = names.iter().map(String::as_str).collect();
                        runner(ids[i], TailRule::AsWritten, ids[i], &names)
                    })
                    .collect()
            },
        )
    }

    proptest! {
        /// Property: a name that exactly one runner has always resolves to that runner.
        #[test]
        fn unique_names_pick_their_runner(project in arb_project(), tail in "[ -~]{0,20}") {
            let refs: Vec<&Runner> = project.iter().collect();
            let ids: Vec<&str> = project.iter().map(|r| r.id).collect();
            for runner in &project {
                for task in &runner.tasks {
                    let owners = project.iter().filter(|r| r.tasks.iter().any(|t| t.name == task.name)).count();
                    // A name that starts with `<runner id>:` reads as a prefix instead.
                    let prefixed = task.name.split_once(':').is_some_and(|(p, _)| ids.contains(&p));
                    if owners != 1 || prefixed {
                        continue;
                    }
                    let op = format!("{} {}", task.name, tail);
                    let resolved = resolve(&refs, &op).expect("a unique name resolves");
                    prop_assert_eq!(resolved.runner.id, runner.id);
                    prop_assert_eq!(&resolved.task.name, &task.name);
                }
            }
        }

        /// Property: a name several runners have always errors and names every one of them.
        #[test]
        fn shared_names_are_ambiguous(project in arb_project(), name in arb_name()) {
            let mut project = project;
            if project.len() < 2 || name.contains(':') {
                return Ok(());
            }
            for runner in project.iter_mut().take(2) {
                runner.push_task(Task { name: name.clone(), command: "x".into(), doc: None, params: vec![], cwd: None });
            }
            let owners: Vec<&str> = project.iter().filter(|r| r.tasks.iter().any(|t| t.name == name)).map(|r| r.id).collect();
            let refs: Vec<&Runner> = project.iter().collect();
            match resolve(&refs, &name) {
                Err(ResolveError::Ambiguous { runners, .. }) => prop_assert_eq!(runners, owners),
                other => prop_assert!(false, "expected ambiguity, got {:?}", other),
            }
        }

        /// Property: the command always starts with the task's command, and an as-written
        /// tail reaches its end unchanged (up to trailing whitespace).
        #[test]
        fn command_starts_with_the_task_command(
            rule in prop::sample::select(vec![TailRule::AsWritten, TailRule::DashDashFirst, TailRule::NoLeadingDashDash]),
            tail in "(\\PC|\\n){0,30}",
        ) {
            let tail = tail.trim_start();
            let command = build_command("npm run 'x'", rule, tail);
            prop_assert!(command.starts_with("npm run 'x'"));
            if rule == TailRule::AsWritten && !tail.trim().is_empty() {
                prop_assert!(command.ends_with(tail.trim_end()));
            }
        }
    }
}
