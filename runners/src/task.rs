//! go-task (`task`): tasks of a Taskfile, from `task --list-all --json --no-status`.

use serde_json::Value;

use crate::detection::{Absence, Context, RunnerDef};
use crate::quote::quote;
use crate::runner::{Runner, Task};

pub(crate) const RUNNER: RunnerDef = RunnerDef {
    id: "task",
    label: "Task",
    detect,
};

/// Every file name go-task looks for, in its order.
const TASKFILES: &[&str] = &[
    "Taskfile.yml",
    "taskfile.yml",
    "Taskfile.yaml",
    "taskfile.yaml",
    "Taskfile.dist.yml",
    "taskfile.dist.yml",
    "Taskfile.dist.yaml",
    "taskfile.dist.yaml",
];

fn detect(ctx: &Context<'_>) -> Result<Runner, Absence> {
    let taskfile = TASKFILES
        .iter()
        .find(|name| ctx.root.join(name).is_file())
        .ok_or_else(|| Absence::Absent("no Taskfile in the root".into()))?;
    ctx.depends_on_file(taskfile);
    ctx.needs_binary("task")?;
    // `--no-status` keeps `status:` commands and fingerprinting from running while listing.
    let list = ctx.probe(&["task", "--list-all", "--json", "--no-status"])?;
    let runner = parse_list(&list).map_err(|err| Absence::Failed(format!("{taskfile}: {err}")))?;
    // Included Taskfiles show up as the location of their tasks.
    if let Ok(value) = serde_json::from_slice::<Value>(&list) {
        let files = value
            .get("tasks")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|t| t.pointer("/location/taskfile").and_then(Value::as_str));
        for file in files {
            let file = std::path::Path::new(file);
            ctx.depends_on(file.to_path_buf());
            if let Some(dir) = file.parent() {
                ctx.depends_on(dir.to_path_buf());
            }
        }
    }
    Ok(runner)
}

/// Tasks from the JSON of `task --list-all --json`. The invocable name is the `task` field;
/// `name` is only the display label.
pub fn parse_list(json: &[u8]) -> Result<Runner, String> {
    let list: Value = serde_json::from_slice(json).map_err(|_| {
        "`task --list-all --json` did not print go-task's JSON (is `task` go-task?)".to_owned()
    })?;
    let tasks = list
        .get("tasks")
        .and_then(Value::as_array)
        .ok_or("`task --list-all --json` has no `tasks` array (is `task` go-task?)")?;
    let mut runner = Runner::new("task", "Task", "task");
    for entry in tasks {
        let Some(name) = entry
            .get("task")
            .or_else(|| entry.get("name"))
            .and_then(Value::as_str)
        else {
            continue;
        };
        let text = |key: &str| {
            entry
                .get(key)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|s| !s.is_empty())
        };
        let doc = text("desc").or_else(|| text("summary").and_then(|s| s.lines().next()));
        runner.push_task(Task {
            name: name.to_owned(),
            command: format!("task {}", quote(name)),
            doc: doc.map(str::to_owned),
            params: Vec::new(),
            cwd: None,
        });
    }
    Ok(runner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_list() {
        let json = include_bytes!("../tests/samples/task-list-all-nostatus.json");
        let runner = parse_list(json).expect("valid");
        let names: Vec<&str> = runner.tasks.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "build",
                "default",
                "greet",
                "test",
                "undocumented",
                "lib:fmt"
            ]
        );
        assert_eq!(runner.tasks[0].doc.as_deref(), Some("Build the project"));
        assert_eq!(runner.tasks[1].doc, None);
        assert_eq!(runner.tasks[5].command, "task lib:fmt");
    }

    #[test]
    fn label_is_not_the_name_and_summary_gives_its_first_line() {
        let json =
            br#"{"tasks":[{"name":"Say hi","task":"hi","desc":"","summary":"First.\n\nMore."}]}"#;
        let runner = parse_list(json).expect("valid");
        assert_eq!(runner.tasks[0].name, "hi");
        assert_eq!(runner.tasks[0].command, "task hi");
        assert_eq!(runner.tasks[0].doc.as_deref(), Some("First."));
    }

    #[test]
    fn not_go_task() {
        let err = parse_list(b"[task 1] pending").expect_err("taskwarrior");
        assert!(err.contains("is `task` go-task?"), "{err}");
    }
}
