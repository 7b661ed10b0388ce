//! The tool description a model receives: what the tool does, how to write an op, and the
//! detected runners with their tasks.

use std::fmt::Write;

use speccoder_runners::{Asides, Runner, Task, Words};

use super::documented::Documented;
use super::resolve::{LIST_OP, op_name};

/// Verbs developers run most, in the order they are shown first past the cap.
const COMMON_VERBS: &[&str] = &[
    "test",
    "build",
    "check",
    "lint",
    "fmt",
    "dev",
    "start",
    "run",
    "typecheck",
];

/// Longest doc shown for one task, in characters.
const MAX_DOC_CHARS: usize = 160;

/// What the prompt needs besides the runners.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PromptLimits {
    /// Bullets per runner before the closing "more tasks" bullet.
    pub task_limit: usize,
    /// Bytes kept from the start of a long output.
    pub head_bytes: usize,
    /// Bytes kept from the end of a long output.
    pub tail_bytes: usize,
}

/// The tool description for `runners`, or `None` when there is none (no recipe tool). Pure:
/// the same runners give the same text.
pub fn prompt(runners: &[&Runner], limits: PromptLimits) -> Option<String> {
    prompt_with(runners, limits, &Documented::default())
}

/// [`prompt`], with the tasks the project's CI and docs run first in each runner, marked,
/// and its examples taken from them.
#[expect(
    clippy::too_many_lines,
    reason = "over 80 lines when the limit was set; split it when it next changes"
)]
pub(crate) fn prompt_with(
    runners: &[&Runner],
    limits: PromptLimits,
    documented: &Documented<'_>,
) -> Option<String> {
    if runners.is_empty() {
        return None;
    }
    let mut out = String::new();
    out.push_str(
        "Runs one of this project's own tasks (tests, builds, linters, scripts) with the \
         project's task runner and returns its output.\n\n",
    );
    out.push_str("How to use it:\n");
    // Which tasks are asides, found once: asked of every task below.
    let asides = Asides::of(runners.iter().copied());
    let examples = examples(&asides, runners, documented);
    let _ = writeln!(
        out,
        "- `op` is a single string: the task name, then any arguments for it, separated by \
         spaces. {}: {}.",
        if examples.len() == 1 {
            "Example"
        } else {
            "Examples"
        },
        examples
            .iter()
            .map(|e| format!("`{e}`"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let namespaced = runners
        .iter()
        .flat_map(|r| &r.tasks)
        .find(|t| t.name.contains('/') && plain(t));
    if let Some(task) = namespaced {
        let _ = writeln!(
            out,
            "- Tasks of workspace packages, modules and targets are namespaced with `/`, as in \
             `{}`.",
            task.name
        );
    }
    if runners
        .iter()
        .flat_map(|r| &r.tasks)
        .any(|t| t.cwd.is_some())
    {
        out.push_str(
            "- A workspace package's task runs in its package directory, shown after `in`.\n",
        );
    }
    if runners.len() > 1 {
        let ids: Vec<String> = runners.iter().map(|r| format!("`{}`", r.id)).collect();
        // The runner the project's CI or docs name, where they name one (`make:test`).
        let documented_example = documented.ops.iter().find_map(|o| {
            let name = o.op.strip_prefix(o.runner.id)?.strip_prefix(':')?;
            (name == o.task.name && !asides.contains(o.task))
                .then_some((o.runner.id, o.task.name.as_str()))
        });
        let example = documented_example
            .or_else(|| shared_name(&asides, runners))
            .or_else(|| {
                runners.iter().find_map(|r| {
                    // Not `just:build` when that is also another task's whole name.
                    let task = r.tasks.iter().find(|t| {
                        let op = format!("{}:{}", r.id, t.name);
                        example_worthy(&asides, r, t)
                            && !runners.iter().any(|o| o.tasks.iter().any(|t| t.name == op))
                    })?;
                    Some((r.id, task.name.as_str()))
                })
            });
        let (example_id, example_name) = example.unwrap_or((runners[0].id, "test"));
        let _ = writeln!(
            out,
            "- Several runners are detected ({}). When a name belongs to more than one of them, \
             put the runner id and `:` before it, as in `{}:{}`.",
            ids.join(", "),
            example_id,
            example_name
        );
    }
    // The `--` notes first, then make's (each runner's `words` says which it needs).
    let mut by_words: Vec<&Runner> = runners.to_vec();
    by_words.sort_by_key(|r| matches!(r.words(), Words::Settings));
    for runner in by_words {
        match runner.words() {
            Words::AsWritten => {}
            Words::AfterDashDash { test_argument } => {
                // cargo's `test` takes libtest's `--nocapture` after `--`; a go-task task
                // gets whatever follows `--` as `CLI_ARGS`.
                let (example, args) = match runner.tasks.iter().find(|t| t.name == "test") {
                    Some(test) if runner.is_builtin(test) => {
                        (example_of(runners, runner, test), test_argument)
                    }
                    _ => (
                        example_name(&asides, runners, runner, "<task>"),
                        "--verbose",
                    ),
                };
                let _ = writeln!(
                    out,
                    "- With `{}`, arguments for the program go after `--`, as in `{example} -- \
                     {args}`; words before `--` are options of {} itself.",
                    runner.id, runner.id
                );
            }
            Words::Settings => {
                let example = example_name(&asides, runners, runner, "<target>");
                let _ = writeln!(
                    out,
                    "- With `{}`, words after the target are more targets or `NAME=value` \
                     settings for {}, as in `{example} VERBOSE=1`.",
                    runner.id, runner.id
                );
            }
        }
    }
    let _ = writeln!(
        out,
        "- Arguments reach the script, recipe or program as written; shell quoting works.\n\
         - A long output is cut to its first {} and last {}; the full output is saved to a \
         file whose path the result gives.",
        kib(limits.head_bytes),
        kib(limits.tail_bytes)
    );
    // Names more than one runner holds: only those may need the runner id in front.
    let shared = shared_names(runners);
    for runner in runners {
        out.push('\n');
        let _ = writeln!(
            out,
            "<runner id=\"{}\" label=\"{}\" command=\"{}\">",
            runner.id, runner.label, runner.command_prefix
        );
        let mut shown: Vec<&Task> = runner
            .tasks
            .iter()
            .filter(|t| presentable(runner, t))
            .collect();
        let hidden_unsafe = runner.tasks.len() - shown.len();
        // The tasks a developer runs most come first (a stable sort keeps the runner's
        // order within each rank); `recipe list` keeps the declared order.
        // What the project's CI and docs run comes first of all.
        shown.sort_by_cached_key(|t| (documented.mark(t).is_none(), importance(&asides, t)));
        for task in shown.iter().take(limits.task_limit) {
            // A pattern task is shown as the op its matches take (`test-<stem>`): the last
            // word of its shown command.
            let op = match runner.is_pattern(task) {
                true => task.command.rsplit(' ').next().unwrap_or(&task.name).into(),
                false => reaching_op(runners, runner, task, &shared),
            };
            out.push_str(&bullet(&op, task));
            if let Some(mark) = documented.mark(task) {
                let _ = write!(out, " [{mark}]");
            }
            out.push('\n');
        }
        let more = shown.len().saturating_sub(limits.task_limit) + hidden_unsafe;
        if more > 0 {
            let _ = writeln!(
                out,
                "- … and {more} more {} not listed here; {} the same way by name. The op \
                 `{LIST_OP} <word>` lists the tasks whose name or doc holds a word.",
                if more == 1 { "task" } else { "tasks" },
                if more == 1 { "it runs" } else { "they run" },
            );
        }
        out.push_str("</runner>\n");
    }
    Some(out)
}

/// The task names that more than one runner holds.
fn shared_names<'r>(runners: &[&'r Runner]) -> std::collections::HashSet<&'r str> {
    let mut first: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let mut shared = std::collections::HashSet::new();
    for (i, runner) in runners.iter().enumerate() {
        for task in &runner.tasks {
            if *first.entry(&task.name).or_insert(i) != i {
                shared.insert(task.name.as_str());
            }
        }
    }
    shared
}

/// The op a bullet shows for `task`: [`op_name`], with the runner id in front when the bare
/// name reaches another runner's task (npm init's placeholder `test` beside cargo's, cargo's
/// own `test` beside a justfile's).
fn reaching_op<'t>(
    runners: &[&Runner],
    runner: &Runner,
    task: &'t Task,
    shared: &std::collections::HashSet<&str>,
) -> std::borrow::Cow<'t, str> {
    let op = op_name(runners, runner, task);
    if op != task.name || !shared.contains(task.name.as_str()) {
        return op;
    }
    // An ambiguous name stays bare: the prompt says to put the id before it.
    match super::resolve::resolve(runners, &op) {
        Ok(other) if !std::ptr::eq(other.task, task) => {
            format!("{}:{}", runner.id, task.name).into()
        }
        _ => op,
    }
}

/// Where a task goes when a runner has more tasks than the prompt shows: root tasks with
/// a common verb, other root tasks, workspace tasks with a common verb, other workspace
/// tasks, and lifecycle hooks (`pre*`/`post*` of a sibling, `prepare`) last.
fn importance(asides: &Asides, task: &Task) -> (u8, usize) {
    let (scope, leaf) = match task.name.rsplit_once('/') {
        Some((scope, leaf)) => (Some(scope), leaf),
        None => (None, task.name.as_str()),
    };
    // A lifecycle hook (npm's `prepare`, `pretest` beside `test`) runs by itself.
    let hook = asides.contains(task);
    let verb = COMMON_VERBS.iter().position(|v| *v == leaf);
    let root = scope.is_none() && task.cwd.is_none();
    match (hook, root, verb) {
        (true, _, _) => (4, 0),
        (false, true, Some(rank)) => (0, rank),
        (false, true, None) => (1, 0),
        (false, false, Some(_)) => (2, 0),
        (false, false, None) => (3, 0),
    }
}

/// Up to two ops to show as examples: real tasks of this project that resolve as written,
/// those its CI and docs run first (both before either), then common verbs.
fn examples(asides: &Asides, runners: &[&Runner], documented: &Documented<'_>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut ops: Vec<_> = documented
        .ops
        .iter()
        .filter(|o| !asides.contains(o.task) && o.op.len() <= 60)
        .collect();
    ops.sort_by_key(|o| !(o.ci && o.docs));
    for op in ops {
        if out.len() == 2 {
            return out;
        }
        // One example per task, and none whose text the prompt would have to alter.
        let shown = neutral(&op.op, 60) == op.op;
        if shown && !out.iter().any(|e| e == &op.op) {
            out.push(op.op.clone());
        }
    }
    if out.len() == 2 {
        return out;
    }
    // A common verb that resolves as written (to whichever runner it goes), then any task.
    let verbs = COMMON_VERBS.iter().filter_map(|verb| {
        let resolved = super::resolve::resolve(runners, verb).ok()?;
        Some((resolved.runner, resolved.task))
    });
    let candidates = verbs
        .filter(|(runner, task)| example_worthy(asides, runner, task))
        .chain(runners.iter().flat_map(|r| {
            ranked(asides, r)
                .into_iter()
                .filter(move |t| example_worthy(asides, r, t))
                .map(move |t| (*r, t))
        }));
    let mut names: Vec<&str> = documented
        .ops
        .iter()
        .filter(|o| out.contains(&o.op))
        .map(|o| o.task.name.as_str())
        .collect();
    for (runner, task) in candidates {
        if names.contains(&task.name.as_str()) {
            continue;
        }
        let example = example_of(runners, runner, task);
        if super::resolve::resolve(runners, &example).is_ok() {
            names.push(&task.name);
            out.push(example);
        }
        if out.len() == 2 {
            break;
        }
    }
    out
}

/// One bullet: `` - `OP`[ — DOC] (`COMMAND`[ in `CWD`])[; takes values … PARAMS] ``, where
/// `OP` is the task's name, with its runner's id in front when the bare name reaches
/// another task.
fn bullet(op: &str, task: &Task) -> String {
    let mut line = format!("- `{op}`");
    if let Some(doc) = task.doc.as_deref().map(|d| neutral(d, MAX_DOC_CHARS))
        && !doc.is_empty()
        && task.cwd.as_deref() != task.doc.as_deref()
    {
        let _ = write!(line, " — {doc}");
    }
    let _ = write!(line, " (`{}`", task.command);
    if let Some(cwd) = &task.cwd {
        let _ = write!(line, " in `{}`", neutral(cwd, MAX_DOC_CHARS));
    }
    line.push(')');
    // Parameters stand outside the op: sent inside it, `name='x'` would be a value.
    if !task.params.is_empty() {
        let params: Vec<String> = task
            .params
            .iter()
            .map(|p| neutral(&described(p), MAX_DOC_CHARS))
            .collect();
        let _ = write!(
            line,
            "; takes values after the name, in this order: {}",
            params.join(", ")
        );
    }
    line
}

/// A parameter as a model reads it: `env='staging'` is `env (default 'staging')`, `+targets`
/// is `targets… (one or more)`, `*args` is `args… (any number)`.
fn described(param: &str) -> String {
    let param = param.strip_prefix('$').unwrap_or(param);
    let (many, param) = match param.strip_prefix('+') {
        Some(rest) => (Some("one or more"), rest),
        None => match param.strip_prefix('*') {
            Some(rest) => (Some("any number"), rest),
            None => (None, param),
        },
    };
    let (name, default) = match param.split_once('=') {
        Some((name, default)) => (name, Some(default)),
        None => (param, None),
    };
    let dots = if many.is_some() { "…" } else { "" };
    match (many, default) {
        (None, None) => name.to_owned(),
        (None, Some(default)) => format!("{name} (default {default})"),
        (Some(many), None) => format!("{name}{dots} ({many})"),
        (Some(many), Some(default)) => format!("{name}{dots} ({many}, default {default})"),
    }
}

/// Whether a task's name and command can be shown as they are: repository text with
/// backticks, angle brackets or control characters could break the structure, and such a
/// name cannot be shown changed either (the model would then call a name that does not
/// exist), so the task is counted in the closing bullet instead.
fn presentable(runner: &Runner, task: &Task) -> bool {
    let safe = |s: &str| {
        !s.chars()
            .any(|c| c.is_control() || matches!(c, '`' | '<' | '>'))
    };
    // A pattern's command is the runner's own: its name with a `<placeholder>`.
    safe(&task.name) && (runner.is_pattern(task) || safe(&task.command))
}

/// Repository text made safe to show: control characters become spaces, backticks and
/// angle brackets become look-alikes, runs of spaces shrink, and it is cut to `max` chars.
fn neutral(text: &str, max: usize) -> String {
    let mapped: String = text
        .chars()
        .map(|c| match c {
            c if c.is_control() => ' ',
            '`' => '\'',
            '<' => '‹',
            '>' => '›',
            c => c,
        })
        .collect();
    let squeezed = mapped.split_whitespace().collect::<Vec<_>>().join(" ");
    if squeezed.chars().count() <= max {
        return squeezed;
    }
    let cut: String = squeezed.chars().take(max - 1).collect();
    format!("{}…", cut.trim_end())
}

/// A plain task name of `runner` to show in an example, with the runner id in front when
/// another runner has the same name (the example must resolve as written).
fn example_name(asides: &Asides, runners: &[&Runner], runner: &Runner, fallback: &str) -> String {
    match ranked(asides, runner)
        .into_iter()
        .find(|t| example_worthy(asides, runner, t))
    {
        Some(task) => example_of(runners, runner, task),
        None => fallback.to_owned(),
    }
}

/// `task`'s name as an op reaching it: bare, or with the runner id when the bare name goes
/// elsewhere.
fn example_of(runners: &[&Runner], runner: &Runner, task: &Task) -> String {
    // The bare name must resolve to this runner's task, else the id goes in front.
    let bare = super::resolve::resolve(runners, &task.name).is_ok_and(|r| r.runner.id == runner.id);
    if !bare {
        format!("{}:{}", runner.id, task.name)
    } else {
        task.name.clone()
    }
}

/// Whether a task may be an example: its name plain, and neither an aside (a lifecycle
/// hook, a target only a condition make decides defines) nor a pattern.
fn example_worthy(asides: &Asides, runner: &Runner, task: &Task) -> bool {
    plain(task) && !asides.contains(task) && !runner.is_pattern(task)
}

/// A runner's tasks in the order the prompt shows them: common verbs first, asides last
/// (a stable sort keeps the runner's order within each rank).
fn ranked<'r>(asides: &Asides, runner: &'r Runner) -> Vec<&'r Task> {
    let mut tasks: Vec<&Task> = runner.tasks.iter().collect();
    tasks.sort_by_cached_key(|t| importance(asides, t));
    tasks
}

/// Whether a task's name is plain enough to serve as an example: short, and only letters,
/// digits and `_-.:/@`.
fn plain(task: &Task) -> bool {
    task.name.len() <= 40
        && task
            .name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':' | '/' | '@'))
}

/// The first task name (in runner order) that needs a runner id because several runners
/// hold it, with the first runner holding it.
fn shared_name<'r>(asides: &Asides, runners: &[&'r Runner]) -> Option<(&'r str, &'r str)> {
    // The last runner holding each name: one pass, where asking every later runner of each
    // task was quadratic in a project of two large runners.
    let mut last: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (i, runner) in runners.iter().enumerate() {
        for task in &runner.tasks {
            last.insert(&task.name, i);
        }
    }
    for (i, runner) in runners.iter().enumerate() {
        for task in runner
            .tasks
            .iter()
            .filter(|t| example_worthy(asides, runner, t))
        {
            if last.get(task.name.as_str()).is_some_and(|&at| at > i)
                && matches!(
                    super::resolve::resolve(runners, &task.name),
                    Err(super::resolve::ResolveError::Ambiguous { .. })
                )
            {
                return Some((runner.id, &task.name));
            }
        }
    }
    None
}

fn kib(bytes: usize) -> String {
    if bytes.is_multiple_of(1024) {
        format!("{} KiB", bytes / 1024)
    } else {
        format!("{bytes} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neutralising() {
        assert_eq!(neutral("a\nb\t`c` <x>", 100), "a b 'c' ‹x›");
        assert_eq!(neutral("abcdef", 4), "abc…");
        assert_eq!(kib(20480), "20 KiB");
        assert_eq!(kib(1000), "1000 bytes");
    }
}
