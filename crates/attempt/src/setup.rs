//! `[attempt] setup`: commands such as `npm ci` run once in a tree of the base, in the
//! sandbox, before the baseline and the checks. The files they make (the products:
//! `node_modules/`, a `.venv/`) are kept in the journal's folder per base tree and
//! commands, and copied into every check tree, and into the agent's tree where its
//! `.gitignore` leaves them out of the candidate. They are never part of a commit.

use std::path::Path;
use std::time::Duration;

use super::shared::{Isolation, Prepared, SetupProducts};
use speccoder_foundation::process::{Exit, LocalSpawner, RunRequest, Spawner};
use speccoder_foundation::sandbox::{Sandbox, Spec, TreeAt};

/// The folder, in the repository's git folder, that the setup's tree, every check tree and
/// the agent's tree are seen at: the absolute paths the setup writes (an editable
/// install's `.pth`, a venv's scripts and `pyvenv.cfg`) hold in each of them. Outside
/// `speccoder/`, which the agent's sandbox hides.
const TREE_AT: &str = "speccoder-tree-at";

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
    let tree_id = prepared
        .store
        .run(&["rev-parse", &format!("{}^{{tree}}", prepared.base)])?;
    // "at": the setups run since their tree is seen at `TREE_AT`.
    let key = fingerprint(&format!("{tree_id}\0at\0{}", commands.join("\0")));
    let root = prepared.repo.common_dir.join("speccoder").join("setup");
    speccoder_foundation::private_dir::ensure_private_dir(&root)
        .map_err(|err| format!("cannot create {}: {err}", root.display()))?;
    let done = root.join(&key);
    let list = done.join("products");
    // The path every tree is seen at, by the setup and by each check: empty, and never
    // written outside a sandbox.
    let at = prepared.repo.common_dir.join(TREE_AT);
    match std::fs::create_dir(&at) {
        Ok(()) => {}
        Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists && at.is_dir() => {}
        Err(err) => return Err(format!("cannot create {}: {err}", at.display())),
    }
    if let Ok(text) = std::fs::read_to_string(&list) {
        return Ok(Some(SetupProducts {
            at,
            tree: done.join("tree"),
            entries: text
                .split('\0')
                .filter(|e| !e.is_empty())
                .map(str::to_owned)
                .collect(),
        }));
    }
    let part = root.join(format!("{key}.part-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&part);
    std::fs::create_dir(&part).map_err(|err| format!("cannot create {}: {err}", part.display()))?;
    let tree = part.join("tree");
    std::fs::create_dir(&tree).map_err(|err| err.to_string())?;
    let made = run_commands(prepared, commands, &tree, &at, timeout).and_then(|()| {
        let entries = prepared
            .store
            .untracked(&tree, &prepared.base, &prepared.scratch)?;
        std::fs::write(part.join("products"), entries.join("\0")).map_err(|err| err.to_string())?;
        Ok(entries)
    });
    match made {
        Ok(entries) => {
            std::fs::rename(&part, &done)
                .map_err(|err| format!("cannot keep the setup's products: {err}"))?;
            Ok(Some(SetupProducts {
                at,
                tree: done.join("tree"),
                entries,
            }))
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
    tree: &Path,
    at: &Path,
    timeout: Duration,
) -> Result<(), String> {
    prepared
        .store
        .checkout(&prepared.base, tree, &prepared.scratch)?;
    let project = tree.join(&prepared.prefix);
    let runner: Box<dyn Spawner> = match prepared.isolation {
        Isolation::None => Box::new(LocalSpawner::default()),
        Isolation::Namespaces(namespaces) => {
            let mut writable = vec![tree.to_path_buf()];
            writable.extend(prepared.writable.iter().cloned());
            Box::new(Sandbox {
                namespaces,
                spec: Spec {
                    writable,
                    hidden: prepared.withheld.iter().map(|w| w.dir.clone()).collect(),
                    read_only: Vec::new(),
                    tmp_mib: Some(prepared.tmp_mib),
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
    for command in commands {
        let request = RunRequest::new(command.clone(), &project, timeout);
        let out = runner
            .run(&request)
            .map_err(|err| format!("`[attempt] setup` `{command}` could not start: {err}"))?;
        if !out.success() {
            // The head and the tail: tools print the cause first (npm's "can only install
            // with an existing package-lock.json") and a usage text after it.
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
            return Err(format!("`[attempt] setup` `{command}` {how}:\n{tail}"));
        }
    }
    Ok(())
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
