//! Which folder is the project when no `-C DIR` is given: the nearest folder at or above
//! the current one that holds a manifest a runner claims (or speccoder's configuration),
//! looking no further up than the repository's root, the way cargo, npm, just and go-task
//! find their project from a subfolder.

use std::path::{Path, PathBuf};

use speccoder_runners::RUNNERS;

use speccoder_config::CONFIG_FILE;

/// The folder chosen, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    /// The project root.
    pub root: PathBuf,
    /// The file that made it the root, when the search moved up from where it started.
    pub claimed_by: Option<String>,
}

/// The project for a command started in `start` (absolute, canonical): the nearest of
/// `start` and its parents holding a file some runner reads as its manifest or
/// `speccoder.toml`. The search stops at the first folder holding `.git` (a folder or a
/// worktree's file), so it never leaves the repository; outside any repository, or when
/// no folder up to the repository's root is claimed, `start` is the root, as with `-C`.
pub(crate) fn find(start: &Path) -> Found {
    let at_start = Found {
        root: start.to_path_buf(),
        claimed_by: None,
    };
    // Only a search bounded by a repository: above one, any stray `package.json` in a
    // parent folder (`/tmp`, a home folder) would become the project.
    let Some(top) = start.ancestors().find(|dir| has_entry(dir, ".git")) else {
        return at_start;
    };
    for dir in start.ancestors() {
        if let Some(file) = claim(dir) {
            if dir == start {
                return at_start;
            }
            return Found {
                root: dir.to_path_buf(),
                claimed_by: Some(file),
            };
        }
        if dir == top {
            break;
        }
    }
    at_start
}

/// The first manifest in `dir` that a runner reads (in the runners' order), or speccoder's
/// configuration.
fn claim(dir: &Path) -> Option<String> {
    RUNNERS
        .iter()
        .flat_map(|def| def.manifests.iter().copied())
        .chain([CONFIG_FILE])
        .find(|name| has_entry(dir, name))
        .map(str::to_owned)
}

/// Whether `dir` has an entry called `name`, of whatever kind (a symlink to nowhere
/// counts: the runner reads and reports it). Only the entry is looked at, never opened.
fn has_entry(dir: &Path, name: &str) -> bool {
    std::fs::symlink_metadata(dir.join(name)).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(paths: &[&str]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("temp dir");
        for path in paths {
            let path = dir.path().join(path);
            if let Some(folder) = path.to_str().and_then(|p| p.strip_suffix('/')) {
                std::fs::create_dir_all(folder).expect("mkdir");
            } else {
                std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
                std::fs::write(&path, "").expect("write");
            }
        }
        dir
    }

    fn found(dir: &tempfile::TempDir, start: &str) -> (String, Option<String>) {
        let base = dir.path().canonicalize().expect("canonical");
        let got = find(&base.join(start));
        let rel = got
            .root
            .strip_prefix(&base)
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| got.root.display().to_string());
        (rel, got.claimed_by)
    }

    #[test]
    fn nearest_claimed_folder_within_the_repository() {
        let dir = tree(&[
            ".git/",
            "Cargo.toml",
            "runtime/Cargo.toml",
            "runtime/src/deep/",
            "docs/guide/",
            "web/package.json",
            "web/src/",
        ]);
        // A member crate is nearer than the workspace, as cargo sees it from there.
        assert_eq!(
            found(&dir, "runtime/src/deep"),
            ("runtime".into(), Some("Cargo.toml".into()))
        );
        assert_eq!(
            found(&dir, "docs/guide"),
            ("".into(), Some("Cargo.toml".into()))
        );
        assert_eq!(
            found(&dir, "web/src"),
            ("web".into(), Some("package.json".into()))
        );
        // Where the command starts is claimed: no note, nothing moves.
        assert_eq!(found(&dir, "web"), ("web".into(), None));
        assert_eq!(found(&dir, ""), ("".into(), None));
    }

    #[test]
    fn never_above_the_repository_root() {
        // The parent holds a manifest, but the repository starts below it.
        let dir = tree(&["package.json", "repo/.git/", "repo/src/"]);
        assert_eq!(found(&dir, "repo/src"), ("repo/src".into(), None));
        // Outside any repository nothing moves.
        let dir = tree(&["package.json", "loose/src/"]);
        assert_eq!(found(&dir, "loose/src"), ("loose/src".into(), None));
    }

    #[test]
    fn a_worktree_file_and_speccoder_toml_count() {
        let dir = tree(&["wt/.git", "wt/speccoder.toml", "wt/a/b/"]);
        assert_eq!(
            found(&dir, "wt/a/b"),
            ("wt".into(), Some("speccoder.toml".into()))
        );
    }

    #[test]
    fn a_dangling_manifest_link_still_claims_its_folder() {
        let dir = tree(&[".git/", "sub/"]);
        std::os::unix::fs::symlink("/nonexistent/justfile", dir.path().join("justfile"))
            .expect("link");
        assert_eq!(found(&dir, "sub"), ("".into(), Some("justfile".into())));
    }
}
