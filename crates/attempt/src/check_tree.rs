//! The tree the checks run in: a fresh folder written from the verdict's tree (the
//! candidate with the frozen files as the base has them), with the withheld tests copied
//! in. It is new for every attempt, so nothing the code under test leaves there reaches a
//! later one; while the checks run, its frozen files and withheld tests are read-only.

use std::path::{Path, PathBuf};

use super::shared::{Prepared, SetupProducts};
use super::store::Store;
use super::store::repo::place;

/// The folder of a check tree that Python's bytecode cache is pointed at
/// (`PYTHONPYCACHEPREFIX`), empty and read-only while the checks run.
pub(crate) const NO_PYCACHE: &str = ".speccoder-no-pycache";

/// A check tree, removed when dropped.
#[derive(Debug)]
pub(crate) struct CheckTree {
    /// The tree's top (the repository's top).
    pub(crate) dir: PathBuf,
    /// The project in it.
    pub(crate) project: PathBuf,
    /// The files the checks must not change.
    pub(crate) read_only: Vec<PathBuf>,
    /// What the setup whose products the tree holds wrote into the runners' caches.
    pub(crate) caches: Option<PathBuf>,
}

impl CheckTree {
    /// Writes `tree` into a new folder of the attempt's folder named `name` and random
    /// characters, copies the setup's
    /// products and (with `withheld`) the withheld tests in, and lists the read-only files:
    /// `frozen` (repository paths) and the withheld tests. An error names what could not
    /// be placed (a link where a withheld test goes, say).
    pub(crate) fn make(
        prepared: &Prepared,
        tree: &str,
        name: &str,
        frozen: &[String],
        withheld: bool,
    ) -> Result<Self, String> {
        Self::make_with(
            prepared,
            prepared.products.as_ref(),
            tree,
            name,
            frozen,
            withheld,
        )
    }

    /// [`CheckTree::make`] with the setup's `products` made for this tree (a candidate whose
    /// lockfiles differ from the base's) instead of the base's.
    pub(crate) fn make_with(
        prepared: &Prepared,
        products: Option<&SetupProducts>,
        tree: &str,
        name: &str,
        frozen: &[String],
        withheld: bool,
    ) -> Result<Self, String> {
        // A name the agent's code can predict (`check-1` beside its own tree) lets it point
        // a file the checks read at the check tree before the checks exist
        // (`rust-toolchain.toml`'s `path`): 16 random characters make it unguessable.
        let dir = &tempfile::Builder::new()
            .prefix(&format!("{name}-"))
            .rand_bytes(16)
            .tempdir_in(prepared.folder.path())
            .map_err(|err| {
                format!(
                    "cannot create a check tree in {}: {err}",
                    prepared.folder.path().display()
                )
            })?
            .keep();
        // `tempfile` makes it 0700; the checks see it as `create_dir` made it before.
        std::fs::set_permissions(dir, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .map_err(|err| format!("cannot open {}: {err}", dir.display()))?;
        let (store, scratch, prefix) = (&prepared.store, &prepared.scratch, &prepared.prefix);
        let withheld = prepared.withheld.as_ref().filter(|_| withheld);
        let mut check = Self {
            dir: dir.to_path_buf(),
            project: dir.join(prefix),
            read_only: Vec::new(),
            caches: products.map(|p| p.caches.clone()),
        };
        store.checkout(tree, dir, scratch)?;
        if let Some(products) = products {
            products.copy_into(dir, None)?;
        }
        let mut read_only: Vec<PathBuf> = frozen
            .iter()
            .map(|p| dir.join(p))
            // A frozen file may sit under a folder the candidate made a link: it is not
            // written then, and there is nothing to protect.
            .filter(|p| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file()))
            .collect();
        if let Some(withheld) = withheld {
            for (file, path) in withheld.files.iter().zip(&withheld.paths) {
                let target = place(dir, path)?;
                if std::fs::symlink_metadata(&target).is_ok() {
                    std::fs::remove_file(&target)
                        .map_err(|err| format!("cannot replace {path}: {err}"))?;
                }
                std::fs::copy(withheld.dir.join(file), &target).map_err(|err| {
                    format!("cannot copy the withheld {file} into the checks' tree: {err}")
                })?;
                read_only.push(target);
            }
        }
        // Python's bytecode goes to an empty folder the checks cannot write: otherwise the
        // code under test could write a forged `__pycache__` for a test before the runner
        // imports it, and Python would run that instead of the read-only source.
        let pycache = dir.join(NO_PYCACHE);
        std::fs::create_dir(&pycache)
            .map_err(|err| format!("cannot create {}: {err}", pycache.display()))?;
        read_only.push(pycache);
        read_only.sort();
        read_only.dedup();
        check.read_only = read_only;
        Ok(check)
    }

    /// Writes the files `paths` of `tree` into this tree, over what is there: the agent's
    /// own tests, for the second pass.
    pub(crate) fn add(
        &self,
        store: &Store,
        tree: &str,
        paths: &[String],
        scratch: &Path,
    ) -> Result<(), String> {
        store.checkout_paths(tree, paths, &self.dir, scratch)
    }
}

impl Drop for CheckTree {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
