//! External coding agents: the prompt, the allowances, the argv, one attempt, its outcome.

mod allowances;
mod argv;
mod attempt;
mod outcome;
mod prompt;
mod recipe_server;
mod rule;

pub use allowances::{Allowances, Dropped, Match};
pub use argv::{CLAUDE_DENIED, CLAUDE_TOOLS, ClaudePermissions, Placement, agent_argv};
pub use attempt::{Attempt, new_run_id};
pub use outcome::{Finished, Outcome, Report, Status, Usage, interpret};
pub use prompt::{Bundle, BundleTask, build_prompt};
pub use recipe_server::{CLAUDE_RECIPE_TOOL, RecipeServer, SERVER_NAME};

use speccoder_runners::{Runner, TailRule, Task, split_words};

use crate::config::Config;
use crate::recipe::Recipe;

/// The allowances of a project: its `[commands] allow` entries, exact, and with
/// `[recipe] allow_tasks` every detected task's command, with arguments.
pub fn allowances(config: &Config, recipe: Option<&Recipe>) -> Allowances {
    let mut out = Allowances::default();
    for argv in &config.commands.allow {
        out.push(argv.clone(), Match::Exact);
    }
    if config.recipe.allow_tasks
        && let Some(recipe) = recipe
    {
        for runner in recipe.runners() {
            for task in &runner.tasks {
                match split_words(&task.command) {
                    Some(argv) => out.push(argv, task_arguments(runner, task)),
                    None => out.dropped.push(Dropped {
                        command: task.command.clone(),
                        reason: "it is not a plain command line".into(),
                    }),
                }
            }
        }
    }
    out
}

/// Which words a rule lets follow `task` of `runner`. A runner's own options can read files
/// or run code (`make --eval`, `npm --script-shell`, `cargo --config`, `task --taskfile`), so
/// a rule admits words only where the runner hands them to the task unread: after `--` for
/// npm, go-task and cargo; anywhere after the name for pnpm, yarn and bun, which pass every
/// later word on (measured). GNU make reads options and `NAME=value` overrides anywhere,
/// even after `--`, so its tasks are allowed exactly, without arguments.
///
/// just reads no option after the recipe's name, but it hands the recipe only as many words
/// as it has parameters and runs the words after them as more recipes, private ones too
/// (measured with just 1.59). So a recipe without parameters is allowed exactly; one whose
/// last parameter is variadic (`+rest`, `*rest`) takes every later word, so any may follow;
/// and one with a fixed number of parameters takes words only after `--one`, with which just
/// refuses a second recipe on its command line (just 1.36 and later).
fn task_arguments(runner: &Runner, task: &Task) -> Match {
    match runner.id {
        "just" => match task.params.last() {
            None => Match::Exact,
            Some(last) if last.starts_with(['+', '*']) => Match::WithArguments,
            Some(_) => Match::WithArgumentsAfterOption("--one"),
        },
        "pkg" => match runner.tail_rule {
            TailRule::DashDashFirst => Match::AfterDashDash,
            TailRule::AsWritten | TailRule::NoLeadingDashDash => Match::WithArguments,
        },
        "cargo" | "task" => Match::AfterDashDash,
        _ => Match::Exact,
    }
}
