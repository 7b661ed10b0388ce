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

use speccoder_runners::{Runner, TailRule, split_words};

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
            let how = task_arguments(runner);
            for task in &runner.tasks {
                match split_words(&task.command) {
                    Some(argv) => out.push(argv, how),
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

/// Which words a rule lets follow a task of `runner`. A runner's own options can read files
/// or run code (`make --eval`, `npm --script-shell`, `cargo --config`, `task --taskfile`), so
/// a rule admits words only where the runner hands them to the task unread: after `--` for
/// npm, go-task and cargo; anywhere after the name for just, pnpm, yarn and bun, which pass
/// every later word on (measured). GNU make reads options and `NAME=value` overrides
/// anywhere, even after `--`, so its tasks are allowed exactly, without arguments.
fn task_arguments(runner: &Runner) -> Match {
    match runner.id {
        "just" => Match::WithArguments,
        "pkg" => match runner.tail_rule {
            TailRule::DashDashFirst => Match::AfterDashDash,
            TailRule::AsWritten | TailRule::NoLeadingDashDash => Match::WithArguments,
        },
        "cargo" | "task" => Match::AfterDashDash,
        _ => Match::Exact,
    }
}
