//! The candidate: the tree speccoder stages from the agent's files, in its own store, with
//! its own index and settings (see `store.rs`), on top of the base; and the nested
//! repositories in the agent's tree, whose files git would not read as the tree's.

use std::path::Path;

use super::shared::{Finding, FindingKind, Prepared};

/// Folders walked at most when looking for nested repositories and large files, so a tree
/// of millions of folders costs a bounded time (what is past it is still staged, and
/// audited).
const MAX_FOLDERS: usize = 200_000;

/// The largest file a candidate may hold, by its apparent size (a sparse file is written
/// out whole by every checkout): larger ones are findings, and nothing is staged.
pub(crate) const MAX_FILE_BYTES: u64 = 100 << 20;

/// The staged candidate and what was found beside it.
#[derive(Debug)]
pub(crate) struct Candidate {
    /// The candidate tree; `None` when files too large kept it from being staged.
    pub(crate) tree: Option<String>,
    /// Folders (tree paths) holding a `.git` of their own that the tree does not ignore.
    pub(crate) nested: Vec<String>,
    /// Files larger than [`MAX_FILE_BYTES`] that the tree does not ignore, with their size.
    pub(crate) too_large: Vec<(String, u64)>,
}

impl Candidate {
    /// The findings of what was found beside the candidate.
    pub(crate) fn findings(&self) -> Vec<Finding> {
        let nested = self.nested.iter().map(|path| Finding {
            kind: FindingKind::NestedRepository,
            path: path.clone(),
            detail: "a nested git repository: git reads its files as another repository's, so they are not the tree's".into(),
        });
        let large = self.too_large.iter().map(|(path, size)| Finding {
            kind: FindingKind::FileTooLarge,
            path: path.clone(),
            detail: format!(
                "{} MiB (apparent size): a candidate's files are at most {} MiB; ignore it in `.gitignore` if it is a product",
                size >> 20,
                MAX_FILE_BYTES >> 20
            ),
        });
        nested.chain(large).collect()
    }
}

/// Stages the agent's tree and returns the candidate tree.
pub(crate) fn build(prepared: &Prepared) -> Result<Candidate, String> {
    let (found, large) = walk(&prepared.tree);
    let names: Vec<String> = found
        .iter()
        .chain(large.iter().map(|(p, _)| p))
        .cloned()
        .collect();
    let ignored = prepared
        .store
        .ignored(&prepared.tree, &names, &prepared.scratch);
    let nested = found.into_iter().filter(|p| !ignored.contains(p)).collect();
    let too_large: Vec<(String, u64)> = large
        .into_iter()
        .filter(|(p, _)| !ignored.contains(p))
        .collect();
    let tree = if too_large.is_empty() {
        Some(
            prepared
                .store
                .stage(&prepared.tree, &prepared.base, &prepared.scratch)?,
        )
    } else {
        None
    };
    Ok(Candidate {
        tree,
        nested,
        too_large,
    })
}

/// The folders below `top` (not `top` itself) that hold a `.git`, file or folder, and the
/// files larger than [`MAX_FILE_BYTES`]. Links are not followed; `.git` folders are not
/// entered.
fn walk(top: &Path) -> (Vec<String>, Vec<(String, u64)>) {
    let mut large = Vec::new();
    let mut found = Vec::new();
    let mut stack = vec![top.to_path_buf()];
    let mut walked = 0;
    while let Some(dir) = stack.pop() {
        walked += 1;
        if walked > MAX_FOLDERS {
            break;
        }
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if entry.file_name() == ".git" {
                if dir != top
                    && let Ok(rel) = dir.strip_prefix(top)
                {
                    found.push(rel.to_string_lossy().into_owned());
                }
            } else if kind.is_dir() {
                stack.push(entry.path());
            } else if kind.is_file()
                && let Ok(meta) = entry.metadata()
                && meta.len() > MAX_FILE_BYTES
                && let Ok(rel) = entry.path().strip_prefix(top)
            {
                large.push((rel.to_string_lossy().into_owned(), meta.len()));
            }
        }
    }
    found.sort();
    large.sort();
    (found, large)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_git_folders_and_large_files_below_the_top() {
        let dir = tempfile::tempdir().expect("temp dir");
        let top = dir.path();
        for folder in [".git/objects", "a/b/.git", "c", "d/.git/x/.git"] {
            std::fs::create_dir_all(top.join(folder)).expect("mkdir");
        }
        std::fs::write(top.join("c/.git"), "gitdir: /elsewhere\n").expect("gitfile");
        let big = std::fs::File::create(top.join("c/big.bin")).expect("file");
        big.set_len(MAX_FILE_BYTES + 1).expect("sparse");
        let (nested, large) = walk(top);
        assert_eq!(nested, ["a/b", "c", "d"]);
        assert_eq!(large, [("c/big.bin".to_owned(), MAX_FILE_BYTES + 1)]);
    }
}
