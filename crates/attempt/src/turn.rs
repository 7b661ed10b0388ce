//! The agent's turn: a fresh tree from the base, then the external agent in the sandbox,
//! with the prompt (and the previous attempt's digest), the allowances and the recipe tool.

use serde_json::Value;

use super::setup::add_products;
use super::shared::{Isolation, Prepared};
use speccoder_agent::{
    Attempt, Containment, Outcome, Status, build_prompt, new_run_id, writable_roots,
};
use speccoder_config::Config;

/// Makes the agent's tree anew from the base: whatever an earlier attempt left (ignored
/// files, nested repositories, its own `.git`) is gone.
pub(crate) fn fresh_tree(prepared: &Prepared, n: u32) -> Result<(), String> {
    if n == 1 {
        return Ok(());
    }
    std::fs::remove_dir_all(&prepared.tree)
        .map_err(|err| format!("cannot remove the earlier attempt's tree: {err}"))?;
    let objects = prepared.repo.common_dir.join("objects");
    prepared.store.seed(
        &prepared.tree,
        &prepared.base,
        &prepared.branch,
        &objects,
        &prepared.scratch,
    )?;
    add_products(prepared)
}

/// Runs the agent once in the sandbox and returns its outcome.
pub(crate) fn run_agent(prepared: &Prepared, config: &Config, digest: Option<&Value>) -> Outcome {
    let Some(executor) = config.executor.as_ref() else {
        return never_started(config, "no external executor is configured");
    };
    let mut prompt = build_prompt(&prepared.bundle.bundle, digest, &config.wording);
    prompt.push_str(&judged_by(prepared));
    let folder = prepared.folder.path().join("agent");
    if let Err(err) = std::fs::create_dir_all(&folder) {
        return never_started(
            config,
            &format!("cannot create {}: {err}", folder.display()),
        );
    }
    let runner = prepared.agent_spawner(&folder);
    // Inside the namespaces the agents' own sandboxes cannot start, and speccoder's is the
    // boundary; without them, Codex keeps its own, with the caches and `[attempt] writable`
    // open in it.
    let (containment, writable) = match prepared.isolation {
        Isolation::Namespaces(_) => (Containment::Namespaces, Vec::new()),
        Isolation::None => (
            Containment::Host,
            writable_roots(Some(&prepared.recipe), &prepared.writable),
        ),
    };
    Attempt {
        executor,
        claude_rules: &prepared.allowed.claude_rules,
        worktree: &prepared.project_dir,
        withheld: prepared.withheld.as_ref().map(|w| w.dir.as_path()),
        prompt: &prompt,
        recipe_server: prepared.recipe_server.as_ref(),
        folder: Some(&folder),
        containment,
        writable: &writable,
    }
    .run(runner.as_ref())
}

/// The prompt's last section: the commands the verdict runs, so the agent runs the same.
fn judged_by(prepared: &Prepared) -> String {
    let mut out = String::from(
        "\n# How your work is judged\n\nWhen you stop, the runtime copies your files into a fresh tree, puts every test file, \
         test configuration and task definition that exists now back as it is now, and runs:\n",
    );
    let commands: Vec<String> = prepared
        .ops
        .iter()
        .filter_map(|op| prepared.recipe.resolve(op).ok().map(|r| r.command))
        .collect();
    if commands.is_empty() {
        out.push_str("- no command: the audit of your changes alone decides\n");
    }
    for command in commands {
        out.push_str(&format!("- `{command}`\n"));
    }
    out.push_str("Your own new test files run in a second pass, which must pass too.\n");
    out
}

/// The outcome of an agent that was never started.
pub(crate) fn never_started(config: &Config, why: &str) -> Outcome {
    let kind = config.executor.as_ref().map_or("native", |e| e.kind.name());
    Outcome {
        run_id: new_run_id(kind),
        status: Status::Failed,
        report: None,
        reason: Some(format!("the agent was not started: {why}")),
        tool_calls: Vec::new(),
        usage: None,
        permission_denials: None,
    }
}
