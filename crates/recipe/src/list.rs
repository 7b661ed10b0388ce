//! `speccoder recipe list`: every task of every runner, as text or JSON.

use std::fmt::Write;
use std::io;

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

impl ListJson<'_> {
    /// Writes what `serde_json::to_writer` writes for the listing, byte for byte, quicker:
    /// serde_json looks every byte of every string up in its escape table, which made it
    /// most of a 50,000-target listing's JSON, while a name, command or doc nearly always
    /// needs no escape, which one pass over it tells. A string that does need one is written
    /// by serde_json, and so are the small parts (absent runners, notes, probes).
    pub fn write_compact(&self, out: &mut impl io::Write) -> io::Result<()> {
        out.write_all(b"{\"root\":")?;
        write_str(out, &self.root)?;
        out.write_all(b",\"runners\":[")?;
        for (i, runner) in self.runners.iter().enumerate() {
            if i > 0 {
                out.write_all(b",")?;
            }
            out.write_all(b"{\"id\":")?;
            write_str(out, runner.id)?;
            out.write_all(b",\"label\":")?;
            write_str(out, runner.label)?;
            out.write_all(b",\"command_prefix\":")?;
            write_str(out, runner.command_prefix)?;
            out.write_all(b",\"tasks\":[")?;
            for (j, task) in runner.tasks.iter().enumerate() {
                if j > 0 {
                    out.write_all(b",")?;
                }
                write_task(out, task)?;
            }
            out.write_all(b"]")?;
            if let Some(notes) = runner.notes {
                out.write_all(b",\"notes\":")?;
                serde_json::to_writer(&mut *out, notes)?;
            }
            out.write_all(b"}")?;
        }
        out.write_all(b"],\"absent\":")?;
        serde_json::to_writer(&mut *out, &self.absent)?;
        if let Some(cached) = self.cached {
            out.write_all(if cached {
                b",\"cached\":true"
            } else {
                b",\"cached\":false"
            })?;
        }
        if let Some(probes) = &self.probes {
            out.write_all(b",\"probes\":")?;
            serde_json::to_writer(&mut *out, probes)?;
        }
        out.write_all(b"}")
    }
}

/// A task as its derived `Serialize` writes it, fields in their order.
fn write_task(out: &mut impl io::Write, task: &Task) -> io::Result<()> {
    out.write_all(b"{\"name\":")?;
    write_str(out, &task.name)?;
    out.write_all(b",\"command\":")?;
    write_str(out, &task.command)?;
    out.write_all(b",\"doc\":")?;
    write_opt_str(out, task.doc.as_deref())?;
    out.write_all(b",\"params\":[")?;
    for (i, param) in task.params.iter().enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        write_str(out, param)?;
    }
    out.write_all(b"],\"cwd\":")?;
    write_opt_str(out, task.cwd.as_deref())?;
    out.write_all(b"}")
}

fn write_opt_str(out: &mut impl io::Write, text: Option<&str>) -> io::Result<()> {
    match text {
        Some(text) => write_str(out, text),
        None => out.write_all(b"null"),
    }
}

/// `text` as a JSON string, as serde_json writes it.
fn write_str(out: &mut impl io::Write, text: &str) -> io::Result<()> {
    // serde_json escapes `"`, `\` and the controls below 0x20, nothing else. No early exit,
    // so that the check is a few vector instructions however long the text is.
    let plain = text.bytes().fold(true, |plain, b| {
        plain & (b >= 0x20) & (b != b'"') & (b != b'\\')
    });
    if !plain {
        return Ok(serde_json::to_writer(out, text)?);
    }
    out.write_all(b"\"")?;
    out.write_all(text.as_bytes())?;
    out.write_all(b"\"")
}

/// The text of `recipe list`: one block per runner, one line per task; with `explain`, each
/// configured runner's state and why.
#[expect(
    clippy::too_many_lines,
    reason = "over 80 lines when the limit was set; split it when it next changes"
)]
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

#[cfg(test)]
mod tests {
    use std::path::Path;

    use speccoder_runners::Runner;

    use super::*;
    use crate::Origin;
    use speccoder_config::RecipeConfig;

    #[test]
    fn compact_json_is_what_serde_json_writes() {
        // Strings with every kind of byte serde_json escapes, and some it leaves alone.
        let odd = [
            "plain",
            "",
            "quote \" and backslash \\ and slash /",
            "controls \u{0}\u{1}\u{8}\u{9}\u{a}\u{c}\u{d}\u{1f} and del \u{7f}",
            "non-ASCII é ✓ 🦀 \u{2028}",
        ];
        let mut runner = Runner::new("make", "Make", "make \"-s\"");
        for (i, text) in odd.iter().enumerate() {
            runner.tasks.push(Task {
                name: format!("t{i}{text}"),
                command: format!("make {text}"),
                doc: (i % 2 == 0).then(|| (*text).to_owned()),
                params: odd[..i].iter().map(|p| (*p).to_owned()).collect(),
                cwd: (i % 3 == 1).then(|| format!("sub/{text}")),
            });
        }
        runner.notes = odd.iter().map(|n| (*n).to_owned()).collect();
        let mut empty = Runner::new("just", "Just", "just");
        empty.notes.clear();
        let detections = || {
            vec![
                Detection::Detected(runner.clone()),
                Detection::Absent {
                    id: "task",
                    reason: "no \"Taskfile\"\n".into(),
                },
                Detection::Detected(empty.clone()),
                Detection::Failed {
                    id: "pkg",
                    reason: "bad\tjson".into(),
                },
            ]
        };
        for origin in [Origin::Probes, Origin::Cache] {
            let root = Path::new("/tmp/a \"root\"\\é");
            let recipe = Recipe::new(root, &RecipeConfig::default(), detections(), origin);
            for explain in [false, true] {
                let list = list_json(&recipe, explain);
                let mut ours = Vec::new();
                list.write_compact(&mut ours).expect("written to a Vec");
                let serde = serde_json::to_vec(&list).expect("serialised");
                assert_eq!(
                    String::from_utf8_lossy(&ours),
                    String::from_utf8_lossy(&serde),
                    "explain {explain}"
                );
            }
        }
        let none = Recipe::new(
            Path::new("/"),
            &RecipeConfig::default(),
            Vec::new(),
            Origin::Probes,
        );
        let list = list_json(&none, true);
        let mut ours = Vec::new();
        list.write_compact(&mut ours).expect("written to a Vec");
        assert_eq!(ours, serde_json::to_vec(&list).expect("serialised"));
    }
}
