//! The products of `[attempt] setup`, kept for a base.

use std::path::{Path, PathBuf};

use crate::store::repo;

/// The products of the setup, kept for this base.
#[derive(Debug, Clone)]
pub(crate) struct SetupProducts {
    /// Where the setup's tree was seen, and each check tree is.
    pub(crate) at: PathBuf,
    /// The tree the setup ran in.
    pub(crate) tree: PathBuf,
    /// The products, as paths in that tree (a folder ends with `/`).
    pub(crate) entries: Vec<String>,
    /// What the setup wrote into the runners' caches (what `cargo fetch` downloaded), one
    /// layer per cache, read by the checks below their own ([`CacheLayers`]).
    ///
    /// [`CacheLayers`]: speccoder_foundation::sandbox::CacheLayers
    pub(crate) caches: PathBuf,
}

impl SetupProducts {
    /// Copies the products into `into` (a tree of the same project), those of `only` when
    /// given. A copy, never a link: what the code under test does to them stays in that tree.
    pub(crate) fn copy_into(&self, into: &Path, only: Option<&[String]>) -> Result<(), String> {
        for entry in &self.entries {
            if only.is_some_and(|only| !only.contains(entry)) {
                continue;
            }
            let rel = entry.trim_end_matches('/');
            let target = repo::place(into, rel)?;
            if std::fs::symlink_metadata(&target).is_ok() {
                continue;
            }
            let status = std::process::Command::new("cp")
                .args(["-a", "--reflink=auto", "--"])
                .arg(self.tree.join(rel))
                .arg(&target)
                .status()
                .map_err(|err| format!("cannot run cp: {err}"))?;
            if !status.success() {
                return Err(format!("cannot copy the setup's `{rel}`"));
            }
        }
        Ok(())
    }
}
