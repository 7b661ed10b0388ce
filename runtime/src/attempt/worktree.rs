//! The attempt's git worktree: a new branch from `HEAD` in a private temporary folder, the
//! frozen base commit, resets between attempts, the commit of a pass, and removal.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
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
        let top = git
            .run(&["rev-parse", "--show-toplevel"])
            .map_err(|_| format!("{} is not inside a git repository", dir.display()))?;
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

    /// Whether `name` is a valid branch name.
    pub(crate) fn valid_branch(&self, name: &str) -> bool {
        self.git.succeeds(&["check-ref-format", "--branch", name])
    }

    /// Files under `dir` (relative to the top level) that `HEAD` holds.
    pub(crate) fn tracked_under(&self, dir: &str) -> Vec<String> {
        self.git
            .run(&["ls-tree", "-r", "--name-only", "-z", "HEAD", "--", dir])
            .map(|out| nul_separated(&out))
            .unwrap_or_default()
    }
}

/// One entry of the diff between the base and the attempt's candidate tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Change {
    /// Added, modified or deleted.
    pub(crate) kind: ChangeKind,
    /// The path, relative to the worktree.
    pub(crate) path: String,
}

/// How a path changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ChangeKind {
    /// New in the candidate.
    Added,
    /// In both, with other content or mode.
    Modified,
    /// Only in the base.
    Deleted,
}

/// What a worktree's end leaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Leave {
    /// Remove the worktree and keep the branch (a pass).
    KeepBranch,
    /// Remove the worktree and the branch, which holds nothing but the base.
    RemoveBranch,
    /// Keep both (`--keep-worktree`).
    KeepWorktree,
}

/// The attempt's worktree on its own branch.
#[derive(Debug)]
pub(crate) struct Worktree {
    repo: Repo,
    /// Private folder (0700) holding the worktree; removed on drop.
    folder: Option<tempfile::TempDir>,
    path: PathBuf,
    branch: String,
    base: String,
    git: Git,
    identity: Vec<(&'static str, String)>,
    finished: bool,
}

impl Worktree {
    /// `git worktree add` on a new branch `branch` from `HEAD`, in a new private folder.
    pub(crate) fn create(repo: &Repo, branch: &str) -> Result<Self, String> {
        // Private (0700): tempfile alone leaves the mode to the umask.
        let folder = tempfile::Builder::new()
            .prefix("speccoder-attempt-")
            .permissions(std::fs::Permissions::from_mode(0o700))
            .tempdir()
            .map_err(|err| format!("cannot create a temporary folder: {err}"))?;
        let path = folder.path().join("worktree");
        let path_text = path
            .to_str()
            .ok_or("the temporary folder's path is not UTF-8")?;
        repo.git.run(&[
            "worktree", "add", "--quiet", "-b", branch, path_text, &repo.head,
        ])?;
        // Canonical, so that the agent's working directory and ours name it the same way.
        let path = path.canonicalize().unwrap_or(path);
        let git = Git::new(&path);
        let identity = git.identity_env();
        Ok(Self {
            repo: repo.clone(),
            folder: Some(folder),
            path,
            branch: branch.to_owned(),
            base: repo.head.clone(),
            git,
            identity,
            finished: false,
        })
    }

    /// Where the worktree is.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The base commit every comparison is against.
    pub(crate) fn base(&self) -> &str {
        &self.base
    }

    /// Git in the worktree.
    pub(crate) fn git(&self) -> &Git {
        &self.git
    }

    /// Writes `files` (relative path → content) and commits them as the new base.
    pub(crate) fn freeze(
        &mut self,
        files: &BTreeMap<String, String>,
        task: &str,
    ) -> Result<(), String> {
        if files.is_empty() {
            return Ok(());
        }
        for (rel, content) in files {
            let target = place(&self.path, rel)?;
            // A link at the place itself is replaced, never followed.
            if std::fs::symlink_metadata(&target).is_ok_and(|m| m.file_type().is_symlink()) {
                let _ = std::fs::remove_file(&target);
            }
            std::fs::write(&target, content)
                .map_err(|err| format!("cannot write {}: {err}", target.display()))?;
        }
        let mut args = vec!["add", "--force", "--"];
        args.extend(files.keys().map(String::as_str));
        self.git.run(&args)?;
        let message =
            format!("{task}: acceptance tests\n\nFrozen by speccoder before the attempt.");
        self.commit_index(&message)?;
        self.base = self.git.run(&["rev-parse", "HEAD"])?.trim().to_owned();
        Ok(())
    }

    fn env(&self) -> Vec<(&str, &str)> {
        self.identity
            .iter()
            .map(|(k, v)| (*k, v.as_str()))
            .collect()
    }

    fn commit_index(&self, message: &str) -> Result<(), String> {
        self.git.run_with(
            &["commit", "--quiet", "--no-verify", "-m", message],
            &self.env(),
            None,
        )?;
        Ok(())
    }

    /// Undoes everything since the base: tracked changes, new files, ignored files, and any
    /// commit the agent made on the branch.
    pub(crate) fn reset(&self) -> Result<(), String> {
        self.git.run(&["reset", "--quiet", "--hard", &self.base])?;
        self.git.run(&["clean", "-fdxq"])?;
        Ok(())
    }

    /// Stages everything in the worktree (new files too) and returns the tree it makes: the
    /// candidate that the audit judges and a pass commits.
    pub(crate) fn stage(&self) -> Result<String, String> {
        self.git.run(&["add", "--all", "--", "."])?;
        Ok(self.git.run(&["write-tree"])?.trim().to_owned())
    }

    /// The paths that differ between the base and `tree`.
    pub(crate) fn changes(&self, tree: &str) -> Result<Vec<Change>, String> {
        let out = self.git.run(&[
            "diff-tree",
            "-r",
            "-z",
            "--no-renames",
            "--name-status",
            &self.base,
            tree,
        ])?;
        let mut changes = Vec::new();
        let mut fields = out.split('\0').filter(|f| !f.is_empty());
        while let (Some(status), Some(path)) = (fields.next(), fields.next()) {
            let kind = match status.chars().next() {
                Some('A') => ChangeKind::Added,
                Some('D') => ChangeKind::Deleted,
                _ => ChangeKind::Modified,
            };
            changes.push(Change {
                kind,
                path: path.to_owned(),
            });
        }
        Ok(changes)
    }

    /// Every file path of `treeish`.
    pub(crate) fn files(&self, treeish: &str) -> Vec<String> {
        self.git
            .run(&["ls-tree", "-r", "--name-only", "-z", treeish])
            .map(|out| nul_separated(&out))
            .unwrap_or_default()
    }

    /// Commits `tree` on the branch, with `path`'s content replaced by `replace` when given,
    /// as one commit on top of the base; returns the commit.
    pub(crate) fn commit(
        &self,
        tree: &str,
        replace: Option<(&str, &str)>,
        message: &str,
    ) -> Result<String, String> {
        self.git.run(&["read-tree", tree])?;
        if let Some((path, content)) = replace {
            let blob = self.git.run_with(
                &["hash-object", "-w", "--stdin"],
                &[],
                Some(content.as_bytes()),
            )?;
            let mode = self
                .git
                .run(&["ls-tree", tree, "--", path])
                .ok()
                .and_then(|line| line.split_whitespace().next().map(str::to_owned))
                .unwrap_or_else(|| "100644".into());
            self.git.run(&[
                "update-index",
                "--add",
                "--cacheinfo",
                &format!("{mode},{},{path}", blob.trim()),
            ])?;
        }
        let tree = self.git.run(&["write-tree"])?.trim().to_owned();
        let commit = self
            .git
            .run_with(
                &["commit-tree", &tree, "-p", &self.base, "-F", "-"],
                &self.env(),
                Some(message.as_bytes()),
            )?
            .trim()
            .to_owned();
        self.git.run(&[
            "update-ref",
            &format!("refs/heads/{}", self.branch),
            &commit,
        ])?;
        // The worktree's files and index follow the branch, for `--keep-worktree`.
        self.git.run(&["reset", "--quiet", "--hard", &commit])?;
        Ok(commit)
    }

    /// Ends the worktree as `leave` says. Never fails: what cannot be removed is named in
    /// the returned notes.
    pub(crate) fn finish(mut self, leave: Leave) -> Vec<String> {
        self.finished = true;
        self.end(leave)
    }

    fn end(&mut self, leave: Leave) -> Vec<String> {
        let mut notes = Vec::new();
        if leave == Leave::KeepWorktree {
            // The folder outlives this process.
            if let Some(folder) = self.folder.take() {
                let _ = folder.keep();
            }
            return notes;
        }
        let path = self.path.to_string_lossy().into_owned();
        if let Err(err) = self
            .repo
            .git
            .run(&["worktree", "remove", "--force", "--force", &path])
        {
            notes.push(err);
            let _ = std::fs::remove_dir_all(&self.path);
            let _ = self.repo.git.run(&["worktree", "prune"]);
        }
        if let Some(folder) = self.folder.take()
            && let Err(err) = folder.close()
        {
            notes.push(format!("cannot remove the temporary folder: {err}"));
        }
        if leave == Leave::RemoveBranch
            && let Err(err) = self
                .repo
                .git
                .run(&["branch", "--quiet", "-D", &self.branch])
        {
            notes.push(err);
        }
        notes
    }
}

impl Drop for Worktree {
    /// A worktree dropped without `finish` (an error or a panic on the way) is removed with
    /// its branch, so nothing of a failed start stays behind.
    fn drop(&mut self) {
        if !self.finished {
            self.finished = true;
            let _ = self.end(Leave::RemoveBranch);
        }
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
