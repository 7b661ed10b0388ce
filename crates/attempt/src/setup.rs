//! `[attempt] setup`: commands such as `npm ci` run once in a tree of the base, in the
//! sandbox, before the baseline and the checks. The files they make (the products:
//! `node_modules/`, a `.venv/`) are kept in the journal's folder per base tree and
//! commands, and copied into every check tree, and into the agent's tree where its
//! `.gitignore` leaves them out of the candidate. They are never part of a commit.

mod hooks;

use std::path::Path;
use std::time::Duration;

use super::shared::{Finding, Isolation, Prepared, SetupProducts};
use super::store::kept;
use speccoder_foundation::process::{Exit, LocalSpawner, RunRequest, Spawner};
use speccoder_foundation::sandbox::{CacheLayers, Sandbox, Spec, TreeAt};

/// The path that the setup's tree, every check tree and the agent's tree are seen at: the
/// absolute paths the setup writes (an editable install's `.pth`, a venv's scripts and
/// `pyvenv.cfg`, node's `.bin` links) hold in each of them.
///
/// A folder of the sandbox's own `/dev/shm`, which is a fresh tmpfs in every sandbox (never
/// an overlay of the machine's), so nothing outside can stand there, and the path is the
/// same in every run, as the kept products need. No part of it is a name a runner skips:
/// under `<repo>/.git/` jest's crawler found no test (it skips every path holding
/// `/.git/`), and hidden folders and `node_modules` are skipped by others.
pub(crate) const TREE_AT: &str = "/dev/shm/speccoder-tree-at";

/// Runs the setup (or finds its products from an earlier run at the same base), and
/// copies into the agent's tree the products its `.gitignore` leaves out of a candidate.
pub(crate) fn install(
    prepared: &mut Prepared,
    commands: &[String],
    timeout: Duration,
) -> Result<(), String> {
    prepared.products = setup(prepared, commands, timeout)?;
    let Some(products) = &prepared.products else {
        return Ok(());
    };
    // Folders keep their `/`: the agent's tree has none of them yet, and only so does a
    // folder's pattern (`.venv/`, the usual shape) match.
    let ignored = prepared
        .store
        .ignored(&prepared.tree, &products.entries, &prepared.scratch);
    prepared.agent_products = products
        .entries
        .iter()
        .filter(|e| ignored.contains(e))
        .cloned()
        .collect();
    add_products(prepared)
}

/// Runs the setup, or finds its products from an earlier run at the same base. `Ok(None)`
/// when there is no setup; `Err` names the command that failed.
pub(crate) fn setup(
    prepared: &Prepared,
    commands: &[String],
    timeout: Duration,
) -> Result<Option<SetupProducts>, String> {
    if commands.is_empty() {
        return Ok(None);
    }
    setup_at(prepared, commands, &prepared.base, timeout).map(Some)
}

/// The files a setup reads beyond its commands, by name: the package managers' manifests,
/// lockfiles and their own settings in the project (`.yarnrc.yml`'s `nodeLinker` decides
/// whether `node_modules` or `.pnp.cjs` is made). Sorted: looked up by halves.
const MANIFESTS: &[&str] = &[
    ".npmrc",
    ".pnpmfile.cjs",
    ".yarnrc",
    ".yarnrc.yml",
    "Cargo.lock",
    "Cargo.toml",
    "Gemfile",
    "Gemfile.lock",
    "Pipfile",
    "Pipfile.lock",
    "bun.lock",
    "bun.lockb",
    "bunfig.toml",
    "composer.json",
    "composer.lock",
    "deno.json",
    "deno.jsonc",
    "deno.lock",
    "go.mod",
    "go.sum",
    "go.work",
    "go.work.sum",
    "npm-shrinkwrap.json",
    "package-lock.json",
    "package.json",
    "pdm.lock",
    "pdm.toml",
    "pixi.lock",
    "pixi.toml",
    "pnpm-lock.yaml",
    "pnpm-workspace.yaml",
    "poetry.lock",
    "poetry.toml",
    "pyproject.toml",
    "setup.cfg",
    "setup.py",
    "uv.lock",
    "uv.toml",
    "yarn.lock",
];

/// Whether the setup `commands` read the file `path` of the tree: a manifest or lockfile
/// by its name (`requirements*.txt` and `constraints*.txt` included, and any `.txt` of a
/// `requirements/` folder), or a file a command names.
fn read_by_setup(path: &str, commands: &[String]) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let txt = name.ends_with(".txt");
    MANIFESTS.binary_search(&name).is_ok()
        || (txt && (name.starts_with("requirements") || name.starts_with("constraints")))
        || (txt && path.split('/').rev().nth(1) == Some("requirements"))
        || commands.iter().any(|c| {
            c.split(|ch: char| ch.is_whitespace() || matches!(ch, '=' | '\'' | '"'))
                .any(|word| word.trim_start_matches("./") == path)
        })
}

/// What the setup reads of `treeish` (its files by [`read_by_setup`]): path, mode and blob.
fn what_setup_reads(
    prepared: &Prepared,
    treeish: &str,
    commands: &[String],
) -> Result<Vec<(String, String, String)>, String> {
    let prefix = if prepared.prefix.is_empty() {
        String::new()
    } else {
        format!("{}/", prepared.prefix.trim_end_matches('/'))
    };
    Ok(prepared
        .store
        .entries(treeish)?
        .into_iter()
        .filter(|e| {
            let rel = e.path.strip_prefix(&prefix).unwrap_or(&e.path);
            read_by_setup(&e.path, commands) || read_by_setup(rel, commands)
        })
        .map(|e| (e.path, e.mode, e.object))
        .collect())
}

/// The setup's products for a candidate's check tree `tree`: `Ok(None)` when the setup
/// reads nothing there that differs from the base (the base's products serve), else the
/// setup run again in a tree of `tree` (or found kept for it). Only the products under the
/// names the base's setup made and the install folders (`node_modules/`, `.venv/`) are carried: a file the
/// candidate's own install scripts write beside them (a `conftest.py`) is no product.
pub(crate) fn for_candidate(
    prepared: &Prepared,
    commands: &[String],
    tree: &str,
    timeout: Duration,
) -> Result<Option<SetupProducts>, String> {
    if commands.is_empty() {
        return Ok(None);
    }
    if what_setup_reads(prepared, &prepared.base, commands)?
        == what_setup_reads(prepared, tree, commands)?
    {
        return Ok(None);
    }
    let mut products = setup_at(prepared, commands, tree, timeout)?;
    let tops: Vec<&str> = prepared
        .products
        .iter()
        .flat_map(|p| p.entries.iter())
        .map(|e| top_name(e))
        .chain(PRODUCT_FOLDERS.iter().copied())
        .collect();
    products.entries.retain(|e| tops.contains(&top_name(e)));
    Ok(Some(products))
}

/// A finding (`tampering`) for what the candidate's setup, run again for its tree (`own`),
/// made in a Python install folder beyond what an honest install makes (a `.pth` that runs
/// code, a `sitecustomize`, a module no distribution records): compared with the base's
/// products, whose files are the same bytes when the candidate's change did not touch them.
/// The rules and their measurements are in `setup/hooks.rs`.
pub(crate) fn beyond_install(
    prepared: &Prepared,
    own: Option<&SetupProducts>,
) -> Result<(), Finding> {
    match own {
        Some(own) => hooks::verify(prepared.products.as_ref(), own),
        None => Ok(()),
    }
}

/// The folders package managers install into, carried from a candidate's setup even when
/// the base's made none of them (its manifest had no dependency yet).
const PRODUCT_FOLDERS: &[&str] = &["node_modules", ".venv", "venv"];

/// The first name of a product's path (`node_modules` of `node_modules/` or
/// `pkg/node_modules/x`).
fn top_name(entry: &str) -> &str {
    entry.split('/').next().unwrap_or(entry)
}

/// Runs the setup in a tree of `treeish`, or finds its products from an earlier run there.
fn setup_at(
    prepared: &Prepared,
    commands: &[String],
    treeish: &str,
    timeout: Duration,
) -> Result<SetupProducts, String> {
    let tree_id = prepared
        .store
        .run(&["rev-parse", &format!("{treeish}^{{tree}}")])?;
    // The path their tree was seen at is part of what the products hold.
    let key = fingerprint(&format!("{tree_id}\0{TREE_AT}\0{}", commands.join("\0")));
    let root = prepared.repo.common_dir.join("speccoder").join("setup");
    speccoder_foundation::private_dir::ensure_private_dir(&root)
        .map_err(|err| format!("cannot create {}: {err}", root.display()))?;
    let done = root.join(&key);
    let list = done.join("products");
    // The path every tree is seen at, by the setup and by each check: made in each
    // sandbox's private `/dev/shm`, never on the machine.
    let at = std::path::PathBuf::from(TREE_AT);
    if let Ok(text) = std::fs::read_to_string(&list) {
        kept::mark_used(&done);
        kept::prune(&root, std::time::SystemTime::now());
        return Ok(SetupProducts {
            at,
            tree: done.join("tree"),
            caches: done.join("caches"),
            entries: text
                .split('\0')
                .filter(|e| !e.is_empty())
                .map(str::to_owned)
                .collect(),
        });
    }
    let part = root.join(format!("{key}.part-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&part);
    std::fs::create_dir(&part).map_err(|err| format!("cannot create {}: {err}", part.display()))?;
    let tree = part.join("tree");
    std::fs::create_dir(&tree).map_err(|err| err.to_string())?;
    let layers = part.join("caches");
    let made =
        run_commands(prepared, commands, treeish, (&tree, &layers), &at, timeout).and_then(|()| {
            let entries = prepared
                .store
                .untracked(&tree, treeish, &prepared.scratch)?;
            std::fs::write(part.join("products"), entries.join("\0"))
                .map_err(|err| err.to_string())?;
            Ok(entries)
        });
    match made {
        Ok(entries) => {
            std::fs::rename(&part, &done)
                .map_err(|err| format!("cannot keep the setup's products: {err}"))?;
            // Every landed commit is a new base tree: the older setups are bounded.
            kept::mark_used(&done);
            kept::prune(&root, std::time::SystemTime::now());
            Ok(SetupProducts {
                at,
                tree: done.join("tree"),
                caches: done.join("caches"),
                entries,
            })
        }
        Err(err) => {
            let _ = std::fs::remove_dir_all(&part);
            Err(err)
        }
    }
}

fn run_commands(
    prepared: &Prepared,
    commands: &[String],
    treeish: &str,
    (tree, layers): (&Path, &Path),
    at: &Path,
    timeout: Duration,
) -> Result<(), String> {
    prepared.store.checkout(treeish, tree, &prepared.scratch)?;
    let project = tree.join(&prepared.prefix);
    let runner: Box<dyn Spawner> = match prepared.isolation {
        Isolation::None => Box::new(LocalSpawner::default()),
        Isolation::Namespaces(namespaces) => {
            // The caches' kept layers are written there, through its own mount.
            std::fs::create_dir_all(layers)
                .map_err(|err| format!("cannot create {}: {err}", layers.display()))?;
            let mut writable = vec![tree.to_path_buf(), layers.to_path_buf()];
            writable.extend(prepared.writable_beside_caches());
            Box::new(Sandbox {
                namespaces,
                spec: Spec {
                    hidden: prepared.hidden_from_setup(&writable),
                    writable,
                    read_only: Vec::new(),
                    tmp_mib: Some(prepared.tmp_mib),
                    // The setup fetches the base's dependencies.
                    private_network: false,
                    overlays: prepared.caches.clone(),
                    // What it downloads into a cache is kept for the checks, which have
                    // no network (`cargo fetch`: the checks' `cargo test` failed with
                    // "Could not resolve host" when the download was gone).
                    cache_layers: Some(CacheLayers {
                        dir: layers.to_path_buf(),
                        keep: true,
                    }),
                    shown: prepared.reveal.clone(),
                    tree_at: Some(TreeAt {
                        tree: tree.to_path_buf(),
                        at: at.to_path_buf(),
                        run_there: true,
                    }),
                },
                scratch: prepared.scratch.clone(),
                inner: LocalSpawner::default(),
            })
        }
    };
    // A repository chose these commands: they get the checks' environment, not yours.
    let runner = prepared.setup_spawner(runner);
    for command in commands {
        let request = RunRequest::new(command.clone(), &project, timeout);
        let out = runner
            .run(&request)
            .map_err(|err| format!("`[attempt] setup` `{command}` could not start: {err}"))?;
        if !out.success() {
            return Err(failure(command, &out, timeout));
        }
    }
    Ok(())
}

/// Why the setup `command` failed, with the head and the tail of what it printed: tools
/// print the cause first (npm's "can only install with an existing package-lock.json")
/// and a usage text after it.
fn failure(
    command: &str,
    out: &speccoder_foundation::process::RunOutput,
    timeout: Duration,
) -> String {
    let text = out.stdout.text();
    let lines: Vec<&str> = text.lines().collect();
    let tail = if lines.len() <= 30 {
        lines.join("\n")
    } else {
        format!(
            "{}\n[… {} lines …]\n{}",
            lines[..10].join("\n"),
            lines.len() - 20,
            lines[lines.len() - 10..].join("\n")
        )
    };
    let how = if out.timed_out {
        format!("did not finish within {} s", timeout.as_secs())
    } else {
        match out.exit {
            Exit::Code(code) => format!("failed (exit code {code})"),
            Exit::Signal(signal) => format!("failed (killed by signal {signal})"),
        }
    };
    format!("`[attempt] setup` `{command}` {how}:\n{tail}")
}

/// Copies the setup's products that the tree ignores into the agent's tree, so its own
/// runs of the tests find them as the checks will.
pub(crate) fn add_products(prepared: &Prepared) -> Result<(), String> {
    match &prepared.products {
        Some(products) => products.copy_into(&prepared.tree, Some(&prepared.agent_products)),
        None => Ok(()),
    }
}

/// A short, stable fingerprint of `text` (FNV-1a), naming a cache file.
pub(crate) fn fingerprint(text: &str) -> String {
    format!("{:016x}", speccoder_foundation::fnv1a(text.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_the_setup_reads_by_name_and_by_command() {
        let mut sorted = MANIFESTS.to_vec();
        sorted.sort_unstable();
        assert_eq!(
            MANIFESTS, sorted,
            "keep MANIFESTS sorted: looked up by halves"
        );
        let npm = ["npm ci".to_owned()];
        assert!(read_by_setup("package-lock.json", &npm));
        assert!(read_by_setup("web/package.json", &npm));
        assert!(read_by_setup("requirements-dev.txt", &npm));
        assert!(read_by_setup("requirements/test.txt", &npm));
        assert!(read_by_setup(".yarnrc.yml", &npm));
        assert!(read_by_setup("web/.npmrc", &npm));
        assert!(read_by_setup("poetry.toml", &npm));
        assert!(!read_by_setup("src/index.js", &npm));
        assert!(!read_by_setup("notes.txt", &npm));
        let pip = ["pip install -r deps/dev.in".to_owned()];
        assert!(read_by_setup("deps/dev.in", &pip));
        let quoted = ["pip install -c './deps/pins'".to_owned()];
        assert!(read_by_setup("deps/pins", &quoted));
    }
}
