//! The user's repository as the attempt sees it: its top, its git folder, `HEAD`, its
//! branches, and a helper that writes a file inside a tree without following links.

use std::path::{Path, PathBuf};

use super::git::Git;

/// `root.join(rel)`, with every folder on the way made if missing. A folder on the way that
/// is a symbolic link, or something else than a folder, is an error: a repository or an
/// agent could otherwise send a write outside the worktree.
pub(crate) fn place(root: &Path, rel: &str) -> Result<PathBuf, String> {
    let target = root.join(rel);
    let Some(parent) = Path::new(rel).parent() else {
        return Ok(target);
    };
    let mut at = root.to_path_buf();
    for part in parent.components() {
        at.push(part);
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => {
                return Err(format!(
                    "`{rel}` cannot be written: {} is a link or a file, not a folder",
                    at.strip_prefix(root).unwrap_or(&at).display()
                ));
            }
            Err(_) => std::fs::create_dir(&at)
                .map_err(|err| format!("cannot create {}: {err}", at.display()))?,
        }
    }
    if std::fs::symlink_metadata(&target).is_ok_and(|m| m.is_dir()) {
        return Err(format!("`{rel}` cannot be written: it is a folder"));
    }
    Ok(target)
}

/// The user's repository, as found from the project root.
#[derive(Debug, Clone)]
pub(crate) struct Repo {
    /// The checkout's top level.
    pub(crate) top: PathBuf,
    /// The git folder shared by every worktree (`.git`).
    pub(crate) common_dir: PathBuf,
    /// The commit `HEAD` points at.
    pub(crate) head: String,
    git: Git,
}

impl Repo {
    /// The repository holding `dir`, or why there is none usable.
    pub(crate) fn open(dir: &Path) -> Result<Self, String> {
        let git = Git::new(dir);
        let top = git.run(&["rev-parse", "--show-toplevel"]).map_err(|_| {
            format!(
                "{} is not inside a git repository: an attempt starts from a commit of one",
                dir.display()
            )
        })?;
        let top = PathBuf::from(top.trim());
        let git = Git::new(&top);
        let common_dir = git.run(&["rev-parse", "--path-format=absolute", "--git-common-dir"])?;
        let head = git
            .run(&["rev-parse", "--verify", "--quiet", "HEAD^{commit}"])
            .map_err(|_| "the repository has no commit yet: an attempt starts from `HEAD`")?;
        Ok(Self {
            top,
            common_dir: PathBuf::from(common_dir.trim()),
            head: head.trim().to_owned(),
            git,
        })
    }

    /// Paths with uncommitted changes in the user's checkout (which the attempt does not
    /// see). Reads without taking the index lock or refreshing the index.
    pub(crate) fn uncommitted(&self) -> Vec<String> {
        self.git
            .run(&["--no-optional-locks", "status", "--porcelain", "-z"])
            .map(|out| {
                out.split('\0')
                    .filter(|e| e.len() > 3)
                    .map(|e| e[3..].to_owned())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Whether the branch `name` exists.
    pub(crate) fn has_branch(&self, name: &str) -> bool {
        self.git.succeeds(&[
            "show-ref",
            "--verify",
            "--quiet",
            &format!("refs/heads/{name}"),
        ])
    }

    /// The commit branch `name` points at, if it exists.
    pub(crate) fn branch_commit(&self, name: &str) -> Option<String> {
        self.git
            .run(&[
                "rev-parse",
                "--verify",
                "--quiet",
                &format!("refs/heads/{name}^{{commit}}"),
            ])
            .ok()
            .map(|c| c.trim().to_owned())
            .filter(|c| !c.is_empty())
    }

    /// An existing branch that keeps `name` from being made: git keeps a branch as a file
    /// under `refs/heads`, so `speccoder` and `speccoder/T1` cannot both exist, nor
    /// `speccoder/T1` and `speccoder/T1/old`.
    pub(crate) fn branch_conflict(&self, name: &str) -> Option<String> {
        let out = self
            .git
            .run(&["for-each-ref", "--format=%(refname)", "refs/heads/"])
            .ok()?;
        out.lines()
            .filter_map(|r| r.strip_prefix("refs/heads/"))
            .find(|other| {
                name.strip_prefix(other).is_some_and(|r| r.starts_with('/'))
                    || other.strip_prefix(name).is_some_and(|r| r.starts_with('/'))
            })
            .map(str::to_owned)
    }

    /// Whether `name` is a valid branch name.
    pub(crate) fn valid_branch(&self, name: &str) -> bool {
        self.git.succeeds(&["check-ref-format", "--branch", name])
    }

    /// The author and committer of the attempt's commits (see [`Git::identity_env`]).
    pub(crate) fn identity(&self) -> Vec<(&'static str, String)> {
        self.git.identity_env()
    }

    /// Brings `branch` of the attempt's store `store` into this repository as a new
    /// branch of the same name. The store is speccoder's own, so its side of the fetch
    /// runs under speccoder's settings; this side runs with hooks off, as every git
    /// command of the attempt does.
    pub(crate) fn fetch_branch(&self, store: &Path, branch: &str) -> Result<(), String> {
        let store = store
            .to_str()
            .ok_or("the attempt's folder is not a UTF-8 path")?;
        let spec = format!("refs/heads/{branch}:refs/heads/{branch}");
        self.git.run(&[
            "fetch",
            "--quiet",
            "--no-tags",
            "--no-write-fetch-head",
            "--no-recurse-submodules",
            store,
            &spec,
        ])?;
        Ok(())
    }

    /// Files under `dir` (relative to the top level) that `HEAD` holds.
    pub(crate) fn tracked_under(&self, dir: &str) -> Vec<String> {
        self.git
            .run(&["ls-tree", "-r", "--name-only", "-z", "HEAD", "--", dir])
            .map(|out| nul_separated(&out))
            .unwrap_or_default()
    }
}

/// The entries of git's `-z` output: NUL-separated, the empty ones left out.
pub(crate) fn nul_separated(out: &str) -> Vec<String> {
    out.split('\0')
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn place_refuses_links_on_the_way() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().join("w");
        std::fs::create_dir(&root).expect("mkdir");
        let outside = dir.path().join("outside");
        std::fs::create_dir(&outside).expect("mkdir");
        std::os::unix::fs::symlink(&outside, root.join("tests")).expect("link");
        let err = place(&root, "tests/test_x.py").expect_err("a link on the way");
        assert!(err.contains("tests is a link"), "{err}");
        assert_eq!(
            place(&root, "new/deep/test_y.py").expect("made"),
            root.join("new/deep/test_y.py")
        );
        assert!(root.join("new/deep").is_dir());
    }
}
