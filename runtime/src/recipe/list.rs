//! `speccoder recipe list`: every task of every runner, as text or JSON.

use std::fmt::Write;

use serde::Serialize;
use speccoder_runners::{Detection, RUNNERS, Task};
use unicode_width::UnicodeWidthStr;

use super::Recipe;

/// The JSON of `recipe list --json`, borrowing the detection (tens of thousands of tasks
/// serialise without a copy). Absent and failed runners are both under `absent`, with
/// `state` telling which.
#[derive(Debug, Serialize)]
pub struct ListJson<'a> {
    root: String,
    runners: Vec<RunnerJson<'a>>,
    absent: Vec<AbsentJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cached: Option<bool>,
    /// With `--explain`: what each configured runner's detection may execute.
    #[serde(skip_serializing_if = "Option::is_none")]
    probes: Option<Vec<ProbeJson>>,
}

/// What one runner's detection may execute.
#[derive(Debug, Serialize)]
struct ProbeJson {
    id: &'static str,
    executes: &'static str,
}

/// Each configured runner's id and what its detection may execute, in the configured order.
fn probes(recipe: &Recipe) -> Vec<ProbeJson> {
    recipe
        .detections()
        .iter()
        .filter_map(|d| RUNNERS.iter().find(|def| def.id == d.id()))
        .map(|def| ProbeJson {
            id: def.id,
            executes: def.executes,
        })
        .collect()
}

#[derive(Debug, Serialize)]
struct RunnerJson<'a> {
    id: &'a str,
    label: &'a str,
    command_prefix: &'a str,
    tasks: &'a [Task],
    #[serde(skip_serializing_if = "Option::is_none")]
    notes: Option<&'a [String]>,
}

#[derive(Debug, Serialize)]
struct AbsentJson<'a> {
    id: &'a str,
    state: &'a str,
    reason: &'a str,
}

/// The JSON of `recipe list --json`; with `explain`, each runner's notes and whether the
/// detection came from the cache.
pub fn list_json(recipe: &Recipe, explain: bool) -> ListJson<'_> {
    let runners = recipe
        .runners()
        .map(|runner| RunnerJson {
            id: runner.id,
            label: runner.label,
            command_prefix: &runner.command_prefix,
            tasks: &runner.tasks,
            notes: explain.then_some(runner.notes.as_slice()),
        })
        .collect();
    let absent = recipe
        .detections()
        .iter()
        .filter_map(|d| match d {
            Detection::Detected(_) => None,
            Detection::Absent { id, reason } => Some(AbsentJson {
                id,
                state: "absent",
                reason,
            }),
            Detection::Failed { id, reason } => Some(AbsentJson {
                id,
                state: "failed",
                reason,
            }),
        })
        .collect();
    ListJson {
        root: recipe.root().display().to_string(),
        runners,
        absent,
        cached: explain.then_some(recipe.from_cache()),
        probes: explain.then(|| probes(recipe)),
    }
}

/// The text of `recipe list`: one block per runner, one line per task; with `explain`, each
/// configured runner's state and why.
pub fn list_text(recipe: &Recipe, explain: bool) -> String {
    let mut out = String::new();
    for runner in recipe.runners() {
        let _ = writeln!(
            out,
            "{} ({}): {}",
            runner.label,
            runner.id,
            tasks(runner.tasks.len())
        );
        let rows: Vec<(String, &str, String)> = runner
            .tasks
            .iter()
            .map(|task| {
                let mut head = task.name.clone();
                for param in &task.params {
                    head.push(' ');
                    head.push_str(param);
                }
                let mut tail = String::new();
                if let Some(cwd) = &task.cwd {
                    let _ = write!(tail, " (in {cwd})");
                }
                if let Some(doc) = task
                    .doc
                    .as_deref()
                    .filter(|d| Some(*d) != task.cwd.as_deref())
                {
                    let _ = write!(tail, "  # {}", one_line(doc));
                }
                (head, task.command.as_str(), tail)
            })
            .collect();
        // Columns are aligned by how wide the text shows (CJK and emoji take two cells),
        // but a very long name or command does not push the others.
        let width = column_width(rows.iter().map(|r| r.0.width()));
        let command_width = column_width(rows.iter().map(|r| r.1.width()));
        for (head, command, tail) in rows {
            let line = format!(
                "  {head}{}  $ {command}{}{tail}",
                pad(&head, width),
                pad(command, command_width)
            );
            let _ = writeln!(out, "{}", line.trim_end());
        }
        out.push('\n');
    }
    if recipe.runners().next().is_none() {
        if recipe.failed().next().is_some() {
            let _ = writeln!(out, "No working task runner: {}\n", recipe.failures_text());
        } else {
            out.push_str("No task runner detected.\n\n");
        }
    }
    if explain {
        out.push_str(if recipe.from_cache() {
            "Runners (from the detection cache):\n"
        } else {
            "Runners:\n"
        });
        let width = recipe
            .detections()
            .iter()
            .map(|d| d.id().len())
            .max()
            .unwrap_or(0);
        for detection in recipe.detections() {
            let id = detection.id();
            match detection {
                Detection::Detected(runner) => {
                    let _ = writeln!(
                        out,
                        "  {id:<width$}  detected  {}, command `{}`",
                        tasks(runner.tasks.len()),
                        runner.command_prefix
                    );
                    for note in &runner.notes {
                        let _ = writeln!(out, "  {:<width$}            note: {note}", "");
                    }
                }
                Detection::Absent { reason, .. } => {
                    let _ = writeln!(out, "  {id:<width$}  absent    {reason}");
                }
                Detection::Failed { reason, .. } => {
                    let _ = writeln!(out, "  {id:<width$}  failed    {reason}");
                }
            }
        }
        out.push_str("\nWhat detecting each runner may execute:\n");
        for probe in probes(recipe) {
            let _ = writeln!(out, "  {:<width$}  {}", probe.id, probe.executes);
        }
    }
    out
}

/// The spaces that fill `text` up to `width` display cells (none when it is wider).
fn pad(text: &str, width: usize) -> String {
    " ".repeat(width.saturating_sub(text.width()))
}

fn column_width(widths: impl Iterator<Item = usize>) -> usize {
    widths.filter(|&w| w <= 40).max().unwrap_or(0)
}

fn tasks(count: usize) -> String {
    if count == 1 {
        "1 task".into()
    } else {
        format!("{count} tasks")
    }
}

/// `text` on one line: control characters become spaces.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .trim()
        .to_owned()
}
