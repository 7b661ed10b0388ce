//! External coding agents: the prompt, the allowances, the argv, one attempt, its outcome.

mod allowances;
mod argv;
mod attempt;
mod caches;
mod outcome;
mod prompt;
mod recipe_server;
mod rule;

pub use allowances::{Allowances, Dropped, Match};
pub use argv::{
    CLAUDE_DENIED, CLAUDE_TOOLS, ClaudePermissions, Containment, Placement, RuleError, agent_argv,
};
pub use attempt::{Attempt, new_run_id};
pub use caches::{overlaid_caches, writable_roots};
pub use outcome::{Denials, Finished, Outcome, Report, Status, Usage, interpret};
pub use prompt::{Bundle, BundleError, BundleTask, build_prompt};
pub use recipe_server::{CLAUDE_RECIPE_RULE, RecipeServer, SERVER_NAME, server_env_vars};

use speccoder_foundation::quote::split_words;

use speccoder_config::Config;
use speccoder_recipe::Recipe;

/// The allowances of a project: its `[commands] allow` entries, exact, and with
/// `[recipe] allow_tasks` every detected task's command, with the arguments its runner
/// hands to the task unread (each runner's `arguments` says which).
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
                if runner.is_pattern(task) {
                    out.dropped.push(Dropped {
                        command: task.command.clone(),
                        reason: "it stands for a pattern; the recipe tool runs its matches".into(),
                    });
                    continue;
                }
                match split_words(&task.command) {
                    Some(argv) => out.push(argv, runner.arguments(task)),
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

/// Insta settings that keep this crate's unit-test snapshots in `snapshots/runtime`.
#[cfg(test)]
pub(crate) fn snapshot_settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../snapshots/runtime"
    ));
    settings
}
