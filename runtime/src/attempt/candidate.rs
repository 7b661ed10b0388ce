//! The candidate: the tree speccoder stages from the agent's files, in its own store, with
//! its own index and settings (see `store.rs`), on top of the base; and the nested
//! repositories in the agent's tree, whose files git would not read as the tree's.

use std::path::Path;

use super::prepare::Prepared;

/// Folders walked at most when looking for nested repositories, so a tree of millions of
/// folders costs a bounded time (what is past it is still staged, and audited).
const MAX_FOLDERS: usize = 200_000;

/// The staged candidate and the nested repositories found beside it.
#[derive(Debug)]
pub(crate) struct Candidate {
    /// The candidate tree.
    pub(crate) tree: String,
    /// Folders (tree paths) holding a `.git` of their own that the tree does not ignore.
    pub(crate) nested: Vec<String>,
}

/// Stages the agent's tree and returns the candidate tree.
pub(crate) fn build(prepared: &Prepared) -> Result<Candidate, String> {
    let tree = prepared
        .store
        .stage(&prepared.tree, &prepared.base, &prepared.scratch)?;
    let found = nested_git(&prepared.tree);
    let ignored = prepared
        .store
        .ignored(&prepared.tree, &found, &prepared.scratch);
    let nested = found.into_iter().filter(|p| !ignored.contains(p)).collect();
    Ok(Candidate { tree, nested })
}

/// The folders below `top` (not `top` itself) that hold a `.git`, file or folder. Links
/// are not followed; `.git` folders are not entered.
fn nested_git(top: &Path) -> Vec<String> {
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
            }
        }
    }
    found.sort();
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_git_folders_and_files_below_the_top() {
        let dir = tempfile::tempdir().expect("temp dir");
        let top = dir.path();
        for folder in [".git/objects", "a/b/.git", "c", "d/.git/x/.git"] {
            std::fs::create_dir_all(top.join(folder)).expect("mkdir");
        }
        std::fs::write(top.join("c/.git"), "gitdir: /elsewhere\n").expect("gitfile");
        assert_eq!(nested_git(top), ["a/b", "c", "d"]);
    }
}
