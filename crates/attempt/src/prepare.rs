//! The first stage: everything an attempt checks and fixes before the agent starts. The
//! bundle, the repository, the branch, the withheld tests, the sandbox, the attempt's
//! private folder with speccoder's own store and the agent's tree, the base commit, the
//! checks (resolved once, in the base), the allowances and the path rules.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::attempt_error::AttemptError;
use super::shared::environment::{self, Stage};
use super::shared::pycache::SharedPycache;
use super::shared::{
    AttemptBundle, AttemptRequest, Declared, FileText, Isolation, KnownFailures, MAX_READ_BYTES,
    Prepared, Rules, Withheld,
};
use super::store::Store;
use super::store::journal::{self, Journal, Running};
use super::store::repo::Repo;
use speccoder_agent::{Allowances, CLAUDE_RECIPE_RULE, Match, RecipeServer, allowances};
use speccoder_config::{Config, ExecutorKind, ExternalExecutor};
use speccoder_foundation::files::ReadError;
use speccoder_foundation::sandbox::{Namespaces, NamespacesError};
use speccoder_recipe::Recipe;

/// Checks everything that can be checked, and makes the attempt's folder, store, base and
/// the agent's tree.
pub(crate) fn prepare(request: &AttemptRequest<'_>) -> Result<Prepared, AttemptError> {
    let config = request.config;
    let (executor, bundle) = request_bundle(request)?;
    let task = bundle.bundle.task.id.clone();
    let repo = Repo::open(request.root).map_err(AttemptError::Repository)?;
    let (top, prefix) = project_prefix(request, &repo).map_err(AttemptError::Repository)?;
    // Runs of any task that were killed are settled first: a pass committed just before
    // the kill is recorded as the pass it was.
    let branch_at = |branch: &str| repo.branch_commit(branch);
    let mut notes = journal::settle_all(&repo.common_dir, &branch_at);
    let branch = attempt_branch(request, &repo, &task, &notes)?;
    let journal = Journal::new(&repo.common_dir, &task);
    let running = journal.start(&mut notes, &branch_at)?;
    note_uncommitted(&repo, &mut notes);
    note_unmarked_globs(&config.attempt.known_failures, &mut notes);
    let isolation = isolation(&mut notes)?;
    note_agent_sandbox(executor, isolation, &mut notes);
    let common = repo
        .common_dir
        .canonicalize()
        .unwrap_or_else(|_| repo.common_dir.clone());
    let withheld = match request.withheld {
        None => None,
        Some(dir) => Some(withheld(dir, &top, &common, &repo, &prefix)?),
    };
    check_withheld_isolation(config, withheld.is_some(), isolation, &mut notes)?;
    let trees = make_trees(&repo, &common, &bundle, (&prefix, &task, &branch), &running)
        .map_err(AttemptError::Io)?;
    let project_dir = trees.tree.join(&prefix);
    // The checks are resolved from your checkout, as `speccoder recipe list` shows them
    // there, and fixed before the agent runs: a lockfile your checkout ignores must not
    // change the package manager in the attempt's trees.
    let recipe = Recipe::detect(request.root, &config.recipe);
    let ops = check_ops(config, &recipe).map_err(AttemptError::Checks)?;
    let (allowed, recipe_server) = agent_allowances(config, executor, &recipe, &ops);
    let acceptance_files: Vec<String> = bundle.acceptance.keys().cloned().collect();
    let declared = declared(&trees, &prefix, &bundle, withheld.as_ref());
    let rules = attempt_rules(config, &acceptance_files, &prefix).map_err(AttemptError::Config)?;
    let pycache = shared_pycache(isolation, &repo, trees.folder.path());
    let writable = writable_noted(&config.attempt, &mut notes);
    Ok(Prepared {
        bundle,
        repo,
        prefix,
        withheld,
        isolation,
        branch,
        notes,
        folder: trees.folder,
        scratch: trees.scratch,
        store: trees.store,
        base: trees.base,
        tree: trees.tree,
        project_dir,
        caches: speccoder_agent::overlaid_caches(&recipe),
        recipe,
        ops,
        allowed,
        recipe_server,
        rules,
        journal,
        running,
        writable,
        reveal: revealed(&config.attempt.reveal),
        checks_network: config.attempt.network,
        products: None,
        agent_products: Vec::new(),
        acceptance_files,
        declared,
        known: KnownFailures::new(&config.attempt.known_failures).map_err(AttemptError::Config)?,
        tmp_mib: config.attempt.tmp_size_mib,
        pycache,
        check_env: environment::allowed(std::env::vars(), Stage::Checks, &config.attempt.env),
        agent_env: environment::allowed(
            std::env::vars(),
            Stage::Agent(executor.map_or(ExecutorKind::Command, |e| e.kind)),
            &config.attempt.agent_env,
        ),
    })
}

/// The Python bytecode the checks share, in the sandbox only: outside it the checks could
/// write it, and each check tree gets an empty one.
fn shared_pycache(isolation: Isolation, repo: &Repo, folder: &Path) -> Option<SharedPycache> {
    match isolation {
        Isolation::Namespaces(_) => SharedPycache::open(&repo.common_dir, folder),
        Isolation::None => None,
    }
}

/// What the acceptance and withheld files declare, with the Go modules of the base (each
/// `go.mod` of the project, by its folder from the project root).
fn declared(
    trees: &Trees,
    prefix: &str,
    bundle: &AttemptBundle,
    withheld: Option<&Withheld>,
) -> Declared {
    let (store, base) = (&trees.store, trees.base.as_str());
    let mut files: Vec<(String, String)> = bundle
        .acceptance
        .iter()
        .map(|(p, t)| (p.clone(), t.clone()))
        .collect();
    if let Some(withheld) = withheld {
        for (file, text) in withheld.files.iter().zip(&withheld.texts) {
            files.push((file.clone(), text.text.clone()));
        }
    }
    let top = if prefix.is_empty() {
        String::new()
    } else {
        format!("{}/", prefix.trim_end_matches('/'))
    };
    let go_mods: Vec<(String, String)> = store
        .entries(base)
        .unwrap_or_default()
        .into_iter()
        .filter(|e| e.path == format!("{top}go.mod") || e.path.ends_with("/go.mod"))
        .filter_map(|e| {
            let rel = e.path.strip_prefix(&top)?.to_owned();
            Some((rel, e.object))
        })
        .take(1000)
        .collect();
    let objects: Vec<String> = go_mods.iter().map(|(_, o)| o.clone()).collect();
    let blobs = store.read_blobs(&objects, 1 << 20).unwrap_or_default();
    let mut modules = std::collections::BTreeMap::new();
    for ((path, _), blob) in go_mods.iter().zip(blobs) {
        let Some(text) = blob.map(|b| String::from_utf8_lossy(&b).into_owned()) else {
            continue;
        };
        let module = text.lines().find_map(|l| {
            let name = l.trim().strip_prefix("module")?.trim();
            (!name.is_empty()).then(|| name.trim_matches('"').to_owned())
        });
        if let Some(module) = module {
            let dir = path
                .strip_suffix("go.mod")
                .unwrap_or("")
                .trim_end_matches('/');
            modules.insert(dir.to_owned(), module);
        }
    }
    Declared::read(&files, &modules)
}

/// The rules of paths: `[attempt] protected` and `tests`, with the acceptance tests and
/// the intent file protected.
fn attempt_rules(config: &Config, acceptance: &[String], prefix: &str) -> Result<Rules, String> {
    let mut protected_paths = acceptance.to_vec();
    protected_paths.push(config.wording.intent_file.clone());
    Rules::new(
        &config.attempt.protected,
        &config.attempt.tests,
        protected_paths,
        prefix,
    )
}

/// The executor and the bundle: `--baseline` runs the checks alone, with no agent, no task
/// and no branch, under a task id of its own.
fn request_bundle<'c>(
    request: &AttemptRequest<'c>,
) -> Result<(Option<&'c ExternalExecutor>, AttemptBundle), AttemptError> {
    let config = request.config;
    Ok(match request.bundle {
        Some(file) => (
            Some(config.external_executor()?),
            AttemptBundle::load(file)?,
        ),
        None => (
            config.executor.as_ref(),
            AttemptBundle::parse(r#"{"task": {"id": "speccoder-baseline", "title": "baseline"}}"#)
                .map_err(AttemptError::Bundle)?,
        ),
    })
}

/// The repository's top, resolved, and the project root as a path inside it.
fn project_prefix(request: &AttemptRequest<'_>, repo: &Repo) -> Result<(PathBuf, String), String> {
    let top = repo.top.canonicalize().unwrap_or_else(|_| repo.top.clone());
    let prefix = request
        .root
        .strip_prefix(&top)
        .map_err(|_| format!("{} is not inside {}", request.root.display(), top.display()))?
        .to_str()
        .ok_or("the project root is not a UTF-8 path")?
        .to_owned();
    Ok((top, prefix))
}

/// The branch a pass goes to: a valid name, and not there yet for a real attempt. When it
/// is there, the error says what became of the run that left it, from `notes`.
fn attempt_branch(
    request: &AttemptRequest<'_>,
    repo: &Repo,
    task: &str,
    notes: &[String],
) -> Result<String, AttemptError> {
    let branch = request.config.attempt.branch.replace("{task}", task);
    if !repo.valid_branch(&branch) {
        return Err(AttemptError::Config(format!(
            "`{branch}` is not a valid branch name (`[attempt] branch`)"
        )));
    }
    if request.bundle.is_some() && repo.has_branch(&branch) {
        let settled = notes.iter().find(|n| n.starts_with(&format!("{task}: ")));
        return Err(AttemptError::BranchExists {
            branch,
            settled: settled.cloned(),
        });
    }
    // Found now rather than at the commit, after the agent and the checks.
    if request.bundle.is_some()
        && let Some(other) = repo.branch_conflict(&branch)
    {
        return Err(AttemptError::BranchConflict { branch, other });
    }
    Ok(branch)
}

/// A note when the checkout has changes the attempt leaves out.
fn note_uncommitted(repo: &Repo, notes: &mut Vec<String>) {
    let uncommitted = repo.uncommitted();
    if !uncommitted.is_empty() {
        notes.push(format!(
            "the checkout has uncommitted changes ({} paths, such as {}); the attempt starts from HEAD without them",
            uncommitted.len(),
            uncommitted[0]
        ));
    }
}

/// A note for each `known_failures` entry that reads as a glob but is not marked as one:
/// such entries were globs before `glob:`, and now match only an id spelled the same.
fn note_unmarked_globs(entries: &[String], notes: &mut Vec<String>) {
    let unmarked: Vec<&String> = entries
        .iter()
        .filter(|e| e.contains('*') && !e.starts_with(speccoder_config::GLOB_PREFIX))
        .collect();
    if let Some(first) = unmarked.first() {
        notes.push(format!(
            "`[attempt] known_failures` has {} entr{} holding `*` without `glob:` (such as `{first}`), matched as exact ids; write `glob:{first}` to match a glob",
            unmarked.len(),
            if unmarked.len() == 1 { "y" } else { "ies" }
        ));
    }
}

/// `[attempt] writable`, resolved, with the notes of what your own configuration file
/// loosens and of the file itself inside a writable folder.
fn writable_noted(
    attempt: &speccoder_config::AttemptConfig,
    notes: &mut Vec<String>,
) -> Vec<PathBuf> {
    note_loosened(attempt, notes);
    let writable = writable(&attempt.writable);
    note_own_file_writable(&writable, notes);
    writable
}

/// A note naming what your own configuration file loosens for this project, and the file:
/// the story says what the sandbox let through, as it does for `SPECCODER_ISOLATION=none`.
fn note_loosened(attempt: &speccoder_config::AttemptConfig, notes: &mut Vec<String>) {
    let Some(file) = &attempt.host_keys_from else {
        return;
    };
    let default = speccoder_config::AttemptConfig::default();
    let list = |items: &[String]| format!("{items:?}");
    let mut set = Vec::new();
    if !attempt.reveal.is_empty() {
        set.push(format!("reveal = {}", list(&attempt.reveal)));
    }
    if attempt.network {
        set.push("network = true".to_owned());
    }
    if attempt.writable != default.writable {
        set.push(format!("writable = {}", list(&attempt.writable)));
    }
    if !attempt.env.is_empty() {
        set.push(format!("env = {}", list(&attempt.env)));
    }
    if !attempt.agent_env.is_empty() {
        set.push(format!("agent_env = {}", list(&attempt.agent_env)));
    }
    if attempt.allow_unisolated_withheld {
        set.push("allow_unisolated_withheld = true".to_owned());
    }
    if !set.is_empty() {
        notes.push(format!(
            "your own configuration file ({}) sets for this project: {}",
            file.display(),
            set.join(", ")
        ));
    }
}

/// A note when your own configuration file is inside a folder the agent may write: the
/// agent could then loosen the sandbox of every later run.
fn note_own_file_writable(writable: &[PathBuf], notes: &mut Vec<String>) {
    let Some(own) = speccoder_config::UserConfig::location() else {
        return;
    };
    let path = own.path.canonicalize().unwrap_or(own.path);
    if let Some(open) = writable.iter().find(|w| path.starts_with(w)) {
        notes.push(format!(
            "your own configuration file ({}) is inside `[attempt] writable` ({}): the agent can change what later runs let through; keep it out of `writable`",
            path.display(),
            open.display()
        ));
    }
}

/// The sandbox, with notes of the mounts it covers. No sandbox only where you asked for
/// none (`SPECCODER_ISOLATION=none`) or the platform has no namespaces, with a note; a
/// sandbox this machine cannot make stops the attempt, with the reason.
fn isolation(notes: &mut Vec<String>) -> Result<Isolation, AttemptError> {
    match Namespaces::probe() {
        Ok((namespaces, covered)) => {
            notes.extend(covered);
            Ok(Isolation::Namespaces(namespaces))
        }
        Err(why @ (NamespacesError::TurnedOff | NamespacesError::Unsupported)) => {
            notes.push(format!(
                "the agent and the checks run without a sandbox ({why}): the agent can write anything you can"
            ));
            Ok(Isolation::None)
        }
        Err(why) => Err(AttemptError::SandboxRefused(why.to_string())),
    }
}

/// A note when the agent's own sandbox is turned off because speccoder's namespace holds
/// it: neither Claude's nor Codex's can start inside it (bubblewrap cannot write its uid
/// map there), and a person's `sandbox.enabled` with `failIfUnavailable` would make Claude
/// exit at start.
fn note_agent_sandbox(
    executor: Option<&ExternalExecutor>,
    isolation: Isolation,
    notes: &mut Vec<String>,
) {
    let Isolation::Namespaces(_) = isolation else {
        return;
    };
    let how = match executor.map(|e| e.kind) {
        Some(ExecutorKind::Claude) => {
            "Claude's own sandbox is off (`sandbox.enabled = false` in its settings)"
        }
        Some(ExecutorKind::Codex) => "Codex runs with `--sandbox danger-full-access`",
        Some(ExecutorKind::Command) | None => return,
    };
    notes.push(format!(
        "{how}: speccoder's namespace is the agent's sandbox, and the agent's own cannot start inside it"
    ));
}

/// Withheld tests need a namespace to hide them, unless the configuration says otherwise.
fn check_withheld_isolation(
    config: &Config,
    withheld: bool,
    isolation: Isolation,
    notes: &mut Vec<String>,
) -> Result<(), AttemptError> {
    if withheld && isolation == Isolation::None {
        if config.attempt.allow_unisolated_withheld {
            notes.push("the withheld tests are NOT hidden from the agent by a namespace; only Claude's deny rule guards them (`[attempt] allow_unisolated_withheld = true`)".into());
        } else {
            return Err(AttemptError::NoSandbox);
        }
    }
    Ok(())
}

/// The attempt's private folder, its store, the frozen base and the agent's tree.
struct Trees {
    folder: tempfile::TempDir,
    scratch: PathBuf,
    store: Store,
    base: String,
    tree: PathBuf,
}

/// Makes the attempt's folder and store, freezes the base (HEAD with the acceptance tests)
/// and seeds the agent's tree on the branch.
/// The folder is recorded in `running` as soon as it exists, so that a run killed while
/// the store is made still has it removed.
fn make_trees(
    repo: &Repo,
    common: &Path,
    bundle: &AttemptBundle,
    (prefix, task, branch): (&str, &str, &str),
    running: &Running,
) -> Result<Trees, String> {
    let folder = speccoder_foundation::private_dir::temp_dir("speccoder-attempt-")
        .map_err(|err| format!("cannot create a temporary folder: {err}"))?;
    let root = folder
        .path()
        .canonicalize()
        .map_err(|err| format!("cannot resolve the temporary folder: {err}"))?;
    running.record_folder(&root);
    let scratch = root.join("scratch");
    std::fs::create_dir(&scratch)
        .map_err(|err| format!("cannot create {}: {err}", scratch.display()))?;
    let objects = common.join("objects");
    let store = Store::create(&root.join("store.git"), &objects, repo.identity())?;
    let base = freeze(
        &store,
        &repo.head,
        &prefixed(prefix, &bundle.acceptance),
        task,
        &scratch,
    )?;
    store.run(&["update-ref", "refs/speccoder/base", &base])?;
    let tree = root.join("tree");
    store.seed(&tree, &base, branch, &objects, &scratch)?;
    Ok(Trees {
        folder,
        scratch,
        store,
        base,
        tree,
    })
}

/// What the agent may run: the configured allowances, each check's command, and the
/// recipe tool over MCP, as `agent run` gives it, with the configuration the attempt was
/// started with rather than the tree's copy, which the agent could edit.
fn agent_allowances(
    config: &Config,
    executor: Option<&ExternalExecutor>,
    recipe: &Recipe,
    ops: &[String],
) -> (Allowances, Option<RecipeServer>) {
    let mut allowed = if config.recipe.enabled {
        allowances(config, Some(recipe))
    } else {
        allowances(config, None)
    };
    let recipe_server = executor
        .filter(|e| e.recipe_mcp && config.recipe.enabled)
        .map(|_| RecipeServer {
            program: std::env::current_exe().unwrap_or_else(|_| PathBuf::from("speccoder")),
            config: config.source.clone(),
            env_vars: super::recipe_server_env(),
        });
    if recipe_server.is_some() && executor.is_some_and(|e| e.kind == ExecutorKind::Claude) {
        allowed.claude_rules.push(CLAUDE_RECIPE_RULE.to_owned());
    }
    for op in ops {
        if let Ok(resolved) = recipe.resolve(op)
            && let Some(argv) = speccoder_foundation::quote::split_words(&resolved.command)
        {
            allowed.push(argv, Match::Exact);
        }
    }
    (allowed, recipe_server)
}

/// Variables naming where an agent CLI keeps its state, instead of the home folder: what
/// they name is writable too.
const AGENT_HOMES: &[&str] = &["CLAUDE_CONFIG_DIR", "CODEX_HOME"];

/// The `[attempt] writable` entries that exist, `~/` read as the home folder, and the
/// agents' own state folders.
pub fn writable(entries: &[String]) -> Vec<PathBuf> {
    expand(entries)
        .into_iter()
        .chain(
            AGENT_HOMES
                .iter()
                .filter_map(|v| std::env::var_os(v).map(PathBuf::from)),
        )
        .filter(|path| path.exists())
        .filter_map(|path| path.canonicalize().ok())
        .collect()
}

/// The `[attempt] reveal` entries that exist, resolved.
fn revealed(entries: &[String]) -> Vec<PathBuf> {
    expand(entries)
        .into_iter()
        .filter_map(|path| path.canonicalize().ok())
        .collect()
}

/// Paths of the configuration, `~/` read as the home folder.
fn expand(entries: &[String]) -> Vec<PathBuf> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    entries
        .iter()
        .filter_map(|entry| match entry.strip_prefix("~/") {
            Some(rest) => home.as_ref().map(|h| h.join(rest)),
            None => Some(PathBuf::from(entry)),
        })
        .collect()
}

/// Checks the withheld folder and reads its files.
fn withheld(
    dir: &Path,
    top: &Path,
    common: &Path,
    repo: &Repo,
    prefix: &str,
) -> Result<Withheld, AttemptError> {
    let refused = |why: String| AttemptError::Withheld(format!("--withheld {why}"));
    let dir = dir.canonicalize().map_err(|err| AttemptError::Read {
        message: format!("--withheld {}: {err}", dir.display()),
        kind: err.kind(),
    })?;
    let shown = dir.display();
    if !dir.is_dir() {
        return Err(refused(format!("{shown} is not a folder")));
    }
    if top.starts_with(&dir) {
        return Err(refused(format!("{shown} holds the repository itself")));
    }
    if dir.starts_with(common)
        || common.starts_with(&dir)
        || dir.components().any(|c| c.as_os_str() == ".git")
    {
        return Err(refused(format!(
            "{shown} is inside a git folder: withheld tests are a folder of their own"
        )));
    }
    if let Ok(inside) = dir.strip_prefix(top) {
        let inside = inside.to_string_lossy();
        let tracked = repo.tracked_under(&inside);
        if !tracked.is_empty() {
            return Err(refused(format!(
                "{shown}: {} is committed in the repository, so the agent would find it in its tree",
                tracked[0]
            )));
        }
    }
    let files = withheld_files(&dir).map_err(AttemptError::Withheld)?;
    let mut texts = Vec::new();
    for file in &files {
        let bytes =
            speccoder_foundation::files::read_limited(&dir.join(file), MAX_READ_BYTES as u64)
                .map_err(|err| {
                    let message = format!("--withheld {shown}: {file} {err}");
                    match err {
                        ReadError::Io(io) => AttemptError::Read {
                            message,
                            kind: io.kind(),
                        },
                        _ => AttemptError::Withheld(message),
                    }
                })?;
        texts.push(FileText {
            path: format!("(withheld) {file}"),
            text: String::from_utf8_lossy(&bytes).into_owned(),
        });
    }
    let paths = files.iter().map(|f| join(prefix, f)).collect();
    Ok(Withheld {
        dir,
        files,
        paths,
        texts,
    })
}

/// The regular files under `dir`, as paths relative to it, sorted. Symlinks and special
/// files are refused: a withheld test is a plain file.
fn withheld_files(dir: &Path) -> Result<Vec<String>, String> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        let entries = std::fs::read_dir(&folder)
            .map_err(|err| format!("cannot read {}: {err}", folder.display()))?;
        for entry in entries {
            let entry = entry.map_err(|err| err.to_string())?;
            let kind = entry.file_type().map_err(|err| err.to_string())?;
            let path = entry.path();
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file() {
                let rel = path
                    .strip_prefix(dir)
                    .map_err(|err| err.to_string())?
                    .to_str()
                    .ok_or_else(|| format!("{} is not a UTF-8 path", path.display()))?
                    .to_owned();
                files.push(rel);
            } else {
                return Err(format!(
                    "{} is not a regular file or folder",
                    path.display()
                ));
            }
        }
    }
    files.sort();
    Ok(files)
}

/// The base: `head`, with the acceptance tests committed on top when there are some. Made
/// in the store from objects alone; no tree is written.
fn freeze(
    store: &Store,
    head: &str,
    files: &BTreeMap<String, String>,
    task: &str,
    scratch: &Path,
) -> Result<String, String> {
    if files.is_empty() {
        return Ok(head.to_owned());
    }
    let mut changes = BTreeMap::new();
    for (path, content) in files {
        let blob = store.blob(content.as_bytes())?;
        changes.insert(path.clone(), Some(("100644".to_owned(), blob)));
    }
    let tree = store.edit(scratch, &format!("{head}^{{tree}}"), &changes)?;
    let message = format!("{task}: acceptance tests\n\nFrozen by speccoder before the attempt.\n");
    store.commit(&tree, head, &message)
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

/// `path` under the project's `prefix` in the repository.
pub(crate) fn join(prefix: &str, path: &str) -> String {
    if prefix.is_empty() {
        path.to_owned()
    } else {
        format!("{prefix}/{path}")
    }
}

fn prefixed(prefix: &str, files: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    files
        .iter()
        .map(|(k, v)| (join(prefix, k), v.clone()))
        .collect()
}
