//! External coding agents: the prompt, the allowances, the argv, one attempt, its outcome.

mod allowances;
mod argv;
mod attempt;
mod outcome;
mod prompt;

pub use allowances::{Allowances, Dropped, Match};
pub use argv::{CLAUDE_DENIED, CLAUDE_TOOLS, Placement, agent_argv};
pub use attempt::{Attempt, new_run_id};
pub use outcome::{Finished, Outcome, Report, Status, Usage, interpret};
pub use prompt::{Bundle, BundleTask, build_prompt};

use speccoder_runners::split_words;

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
        for task in recipe.runners().flat_map(|r| &r.tasks) {
            match split_words(&task.command) {
                Some(argv) => out.push(argv, Match::WithArguments),
                None => out.dropped.push(Dropped {
                    command: task.command.clone(),
                    reason: "it is not a plain command line".into(),
                }),
            }
        }
    }
    out
}
