//! Everything an attempt checks and fixes before its worktree exists: the bundle, the
//! repository, the branch, the withheld tests and their isolation, and the checks.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::bundle::AttemptBundle;
use super::isolation::{self, IsolatedRunner, Namespaces};
use super::story::AttemptRequest;
use super::worktree::Repo;
use crate::config::Config;
use crate::process::{CommandRunner, LocalRunner};
use crate::recipe::Recipe;

/// Everything fixed before the first attempt.
pub(crate) struct Setup {
    pub(crate) bundle: AttemptBundle,
    pub(crate) repo: Repo,
    /// The project root's path inside the repository (`""` at the top).
    pub(crate) prefix: String,
    pub(crate) withheld: Option<Withheld>,
    pub(crate) runner: Box<dyn CommandRunner>,
    pub(crate) branch: String,
    pub(crate) notes: Vec<String>,
}

/// The withheld tests.
pub(crate) struct Withheld {
    pub(crate) dir: PathBuf,
    pub(crate) files: Vec<String>,
}

/// Checks everything that can be checked before a worktree exists.
pub(crate) fn prepare(request: &AttemptRequest<'_>) -> Result<Setup, String> {
    let config = request.config;
    if config.executor.is_none() {
        return Err(
            "no external executor is configured (`[executor] kind` is absent or \"native\")".into(),
        );
    }
    let bundle = AttemptBundle::load(request.bundle)?;
    let task = bundle.bundle.task.id.clone();
    let repo = Repo::open(request.root)?;
    let top = repo.top.canonicalize().unwrap_or_else(|_| repo.top.clone());
    let prefix = request
        .root
        .strip_prefix(&top)
        .map_err(|_| format!("{} is not inside {}", request.root.display(), top.display()))?
        .to_str()
        .ok_or("the project root is not a UTF-8 path")?
        .to_owned();
    let branch = config.attempt.branch.replace("{task}", &task);
    if !repo.valid_branch(&branch) {
        return Err(format!(
            "`{branch}` is not a valid branch name (`[attempt] branch`)"
        ));
    }
    if repo.has_branch(&branch) {
        return Err(format!(
            "the branch `{branch}` exists already: merge or delete it (`git branch -D {branch}`) before a new attempt"
        ));
    }
    let mut notes = Vec::new();
    let uncommitted = repo.uncommitted();
    if !uncommitted.is_empty() {
        notes.push(format!(
            "the checkout has uncommitted changes ({} paths, such as {}); the attempt starts from HEAD without them",
            uncommitted.len(),
            uncommitted[0]
        ));
    }
    let mut runner: Box<dyn CommandRunner> = Box::new(LocalRunner::default());
    let withheld = match request.withheld {
        None => None,
        Some(dir) => {
            let dir = dir
                .canonicalize()
                .map_err(|err| format!("--withheld {}: {err}", dir.display()))?;
            if !dir.is_dir() {
                return Err(format!("--withheld {} is not a folder", dir.display()));
            }
            if top.starts_with(&dir) {
                return Err(format!(
                    "--withheld {} holds the repository itself",
                    dir.display()
                ));
            }
            if let Ok(inside) = dir.strip_prefix(&top) {
                let inside = inside.to_string_lossy();
                let tracked = repo.tracked_under(&inside);
                if !tracked.is_empty() {
                    return Err(format!(
                        "--withheld {}: {} is committed in the repository, so the agent would find it in its worktree",
                        dir.display(),
                        tracked[0]
                    ));
                }
            }
            let files = isolation::withheld_files(&dir)?;
            match Namespaces::probe() {
                Ok(namespaces) => {
                    runner = Box::new(IsolatedRunner {
                        namespaces,
                        hidden: dir.clone(),
                        inner: LocalRunner::default(),
                    });
                }
                Err(why) if config.attempt.allow_unisolated_withheld => notes.push(format!(
                    "the withheld tests are NOT hidden from the agent by a namespace ({why}); only Claude's deny rule guards them (`[attempt] allow_unisolated_withheld = true`)"
                )),
                Err(why) => {
                    return Err(format!(
                        "withheld tests need a private mount namespace to be hidden from the agent, and {why}. Set `[attempt] allow_unisolated_withheld = true` to run without one"
                    ));
                }
            }
            Some(Withheld { dir, files })
        }
    };
    Ok(Setup {
        bundle,
        repo,
        prefix,
        withheld,
        runner,
        branch,
        notes,
    })
}

/// The checks: the configured ops, each of which must resolve, or the `test` task.
pub(crate) fn check_ops(config: &Config, recipe: &Recipe) -> Result<Vec<String>, String> {
    match &config.attempt.checks {
        Some(ops) => {
            if !config.recipe.enabled && !ops.is_empty() {
                return Err("`[attempt] checks` run through the recipe, which is disabled (`[recipe] enabled = false`)".into());
            }
            for op in ops {
                recipe
                    .resolve(op)
                    .map_err(|err| format!("the check `{op}` ([attempt] checks) does not resolve: {err}"))?;
            }
            Ok(ops.clone())
        }
        None if config.recipe.enabled && recipe.resolve("test").is_ok() => Ok(vec!["test".into()]),
        None => Err(
            "no checks: the project has no `test` task; name the checks in `[attempt] checks` (an empty list means the audit alone decides)".into(),
        ),
    }
}

pub(crate) fn join(prefix: &str, path: &str) -> String {
    if prefix.is_empty() {
        path.to_owned()
    } else {
        format!("{prefix}/{path}")
    }
}

pub(crate) fn prefixed(prefix: &str, files: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    files
        .iter()
        .map(|(k, v)| (join(prefix, k), v.clone()))
        .collect()
}
