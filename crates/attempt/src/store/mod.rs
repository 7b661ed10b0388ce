//! The git room: speccoder's own store (this module), its git calls (`git`), the user's
//! repository (`repo`), the journal (`journal`) and the bound on the kept setups (`kept`).
//! It uses nothing else of the attempt.
//!
//! Speccoder's own git repository for one attempt run: bare, in the attempt's private
//! folder, borrowing the user's objects read-only through alternates. Everything the
//! verdict rests on goes through it: the agent's tree is checked out from it, the
//! candidate is staged into it from the agent's files, the check trees are checked out of
//! it, and a pass is fetched from it into the user's repository.
//!
//! Nothing the agent can write steers this git. Its configuration is its own (the user's
//! global and system files are not read, so no filter, hook or fsmonitor is defined); its
//! `info/attributes`, which git reads before any `.gitattributes`, turns every conversion
//! off, so a file's bytes are its blob's bytes both ways; its `info/exclude` and
//! `core.excludesFile` are empty, so only the tree's own `.gitignore` files apply; and the
//! index of each step is a fresh file of speccoder's.

pub(super) mod git;
pub(super) mod journal;
pub(super) mod kept;
pub(super) mod repo;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Settings of every git command of the store, given on the command line so that no file
/// can override them.
const SETTINGS: &[&str] = &[
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.untrackedCache=false",
    "core.excludesFile=/dev/null",
    "core.attributesFile=/dev/null",
    "core.autocrlf=false",
    "core.safecrlf=false",
    "core.symlinks=true",
    "core.fileMode=true",
    "core.ignoreCase=false",
    "core.precomposeUnicode=false",
    "core.sparseCheckout=false",
    "core.splitIndex=false",
    "core.quotePath=false",
    "index.sparse=false",
    "commit.gpgSign=false",
    "gc.auto=0",
    "maintenance.auto=false",
    "submodule.recurse=false",
    "advice.detachedHead=false",
    "safe.directory=*",
];

/// Git's attribute lines that turn every conversion between a file and its blob off: end
/// of line, filters, `ident`, and working-tree encodings.
const NO_CONVERSION: &str = "* -text -crlf -eol -filter -ident -working-tree-encoding\n";

/// Variables that would point git elsewhere or add configuration.
const CLEARED: &[&str] = &[
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_ATTR_SOURCE",
    "GIT_CEILING_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_CONFIG",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_PARAMETERS",
    "GIT_DIR",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM",
    "GIT_EXEC_PATH",
    "GIT_GRAFT_FILE",
    "GIT_INDEX_FILE",
    "GIT_NAMESPACE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_REPLACE_REF_BASE",
    "GIT_SHALLOW_FILE",
    "GIT_WORK_TREE",
];

/// A file mode git records.
pub(crate) const GITLINK: &str = "160000";
/// The mode of a symbolic link.
pub(crate) const SYMLINK: &str = "120000";

/// One entry of a tree: mode, object and path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    /// `100644`, `100755`, `120000` or `160000`.
    pub(crate) mode: String,
    /// The blob (or commit, for a gitlink).
    pub(crate) object: String,
    /// The path, relative to the tree's top (its bytes read as UTF-8, lossily).
    pub(crate) path: String,
    /// Whether the path's bytes are UTF-8, so that `path` is exactly the name.
    pub(crate) utf8: bool,
}

/// The attempt's own repository.
#[derive(Debug, Clone)]
pub(crate) struct Store {
    dir: PathBuf,
    identity: Vec<(&'static str, String)>,
}

impl Store {
    /// A new bare repository at `dir` that reads the objects of `user_objects` too.
    pub(crate) fn create(
        dir: &Path,
        user_objects: &Path,
        identity: Vec<(&'static str, String)>,
    ) -> Result<Self, String> {
        let store = Self {
            dir: dir.to_path_buf(),
            identity,
        };
        let text = dir
            .to_str()
            .ok_or("the attempt's folder is not a UTF-8 path")?;
        std::fs::create_dir_all(dir).map_err(|err| err.to_string())?;
        store.run_in(
            None,
            &["init", "--quiet", "--bare", "--template=", text],
            None,
        )?;
        let info = dir.join("info");
        std::fs::create_dir_all(&info).map_err(|err| err.to_string())?;
        std::fs::write(info.join("attributes"), NO_CONVERSION).map_err(|err| err.to_string())?;
        std::fs::write(info.join("exclude"), "").map_err(|err| err.to_string())?;
        let alternates = dir.join("objects/info");
        std::fs::create_dir_all(&alternates).map_err(|err| err.to_string())?;
        std::fs::write(
            alternates.join("alternates"),
            format!("{}\n", user_objects.display()),
        )
        .map_err(|err| err.to_string())?;
        Ok(store)
    }

    /// The repository's folder.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// Git on this store, working on `work_tree` with the index `index` when given.
    fn command(&self, work: Option<(&Path, &Path)>, args: &[&str]) -> Command {
        let mut command = Command::new("git");
        for key in CLEARED {
            command.env_remove(key);
        }
        command
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_OPTIONAL_LOCKS", "0")
            .env("LC_ALL", "C")
            .env("GIT_DIR", &self.dir)
            .envs(self.identity.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .process_group(0);
        if let Some((tree, index)) = work {
            command
                .current_dir(tree)
                .env("GIT_WORK_TREE", tree)
                .env("GIT_INDEX_FILE", index);
        } else {
            command.current_dir(&self.dir);
        }
        for setting in SETTINGS {
            command.arg("-c").arg(setting);
        }
        command.args(args);
        command
    }

    /// Runs git and returns its stdout as bytes.
    fn run_in(
        &self,
        work: Option<(&Path, &Path)>,
        args: &[&str],
        input: Option<&[u8]>,
    ) -> Result<Vec<u8>, String> {
        git::output_of(self.command(work, args), args, input)
    }

    /// Runs git on the store alone and returns its stdout, trimmed.
    pub(crate) fn run(&self, args: &[&str]) -> Result<String, String> {
        self.run_in(None, args, None)
            .map(|out| String::from_utf8_lossy(&out).trim().to_owned())
    }

    /// Writes `bytes` as a blob and returns it.
    pub(crate) fn blob(&self, bytes: &[u8]) -> Result<String, String> {
        self.run_in(
            None,
            &["hash-object", "-w", "--no-filters", "--stdin"],
            Some(bytes),
        )
        .map(|out| String::from_utf8_lossy(&out).trim().to_owned())
    }

    /// The entries of `treeish`, every file (gitlinks included).
    pub(crate) fn entries(&self, treeish: &str) -> Result<Vec<Entry>, String> {
        let out = self.run_in(None, &["ls-tree", "-r", "-z", "--full-tree", treeish], None)?;
        Ok(parse_entries(&out))
    }

    /// `tree` with the `changes` made (path → entry, or `None` to remove it), as a new tree.
    pub(crate) fn edit(
        &self,
        scratch: &Path,
        tree: &str,
        changes: &BTreeMap<String, Option<(String, String)>>,
    ) -> Result<String, String> {
        if changes.is_empty() {
            return Ok(tree.to_owned());
        }
        let index = scratch.join("edit.index");
        let _ = std::fs::remove_file(&index);
        let work = Some((scratch, index.as_path()));
        self.run_in(work, &["read-tree", tree], None)?;
        let mut lines = Vec::new();
        for (path, entry) in changes {
            match entry {
                Some((mode, object)) => lines.extend(format!("{mode} {object}\t").bytes()),
                None => lines.extend(format!("0 {}\t", "0".repeat(40)).bytes()),
            }
            lines.extend(path.bytes());
            lines.push(0);
        }
        self.run_in(work, &["update-index", "-z", "--index-info"], Some(&lines))?;
        let out = self.run_in(work, &["write-tree"], None)?;
        let _ = std::fs::remove_file(&index);
        Ok(String::from_utf8_lossy(&out).trim().to_owned())
    }

    /// A commit of `tree` on `parent` with `message`.
    pub(crate) fn commit(&self, tree: &str, parent: &str, message: &str) -> Result<String, String> {
        self.run_in(
            None,
            &["commit-tree", tree, "-p", parent, "-F", "-"],
            Some(message.as_bytes()),
        )
        .map(|out| String::from_utf8_lossy(&out).trim().to_owned())
    }

    /// Writes the files of `tree` into the empty folder `into`, byte for byte.
    pub(crate) fn checkout(&self, tree: &str, into: &Path, scratch: &Path) -> Result<(), String> {
        let index = scratch.join(format!(
            "checkout-{}.index",
            into.file_name().and_then(|n| n.to_str()).unwrap_or("tree")
        ));
        let _ = std::fs::remove_file(&index);
        let work = Some((into, index.as_path()));
        self.run_in(work, &["read-tree", tree], None)?;
        self.run_in(work, &["checkout-index", "--all", "--force"], None)?;
        let _ = std::fs::remove_file(&index);
        Ok(())
    }

    /// Writes the files `paths` of `tree` into `into`, over what is there.
    pub(crate) fn checkout_paths(
        &self,
        tree: &str,
        paths: &[String],
        into: &Path,
        scratch: &Path,
    ) -> Result<(), String> {
        if paths.is_empty() {
            return Ok(());
        }
        let index = scratch.join("paths.index");
        let _ = std::fs::remove_file(&index);
        let work = Some((into, index.as_path()));
        self.run_in(work, &["read-tree", tree], None)?;
        let mut input = Vec::new();
        for path in paths {
            input.extend(path.bytes());
            input.push(0);
        }
        self.run_in(
            work,
            &["checkout-index", "--force", "-z", "--stdin"],
            Some(&input),
        )?;
        let _ = std::fs::remove_file(&index);
        Ok(())
    }

    /// Stages every file of `tree_dir` as a fresh `git add --all` would on top of `base`,
    /// under the store's settings, and returns the tree it makes: the candidate.
    pub(crate) fn stage(
        &self,
        tree_dir: &Path,
        base: &str,
        scratch: &Path,
    ) -> Result<String, String> {
        let index = scratch.join("candidate.index");
        let _ = std::fs::remove_file(&index);
        let work = Some((tree_dir, index.as_path()));
        self.run_in(work, &["read-tree", base], None)?;
        self.run_in(work, &["add", "--all", "--", "."], None)?;
        let out = self.run_in(work, &["write-tree"], None)?;
        let _ = std::fs::remove_file(&index);
        Ok(String::from_utf8_lossy(&out).trim().to_owned())
    }

    /// The files and folders (ending in `/`) of `tree_dir` that `base` does not hold,
    /// ignored ones included: what commands run in a tree of the base made.
    pub(crate) fn untracked(
        &self,
        tree_dir: &Path,
        base: &str,
        scratch: &Path,
    ) -> Result<Vec<String>, String> {
        let index = scratch.join("untracked.index");
        let _ = std::fs::remove_file(&index);
        let work = Some((tree_dir, index.as_path()));
        self.run_in(work, &["read-tree", base], None)?;
        let out = self.run_in(work, &["ls-files", "--others", "--directory", "-z"], None)?;
        let _ = std::fs::remove_file(&index);
        Ok(out
            .split(|b| *b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .collect())
    }

    /// The paths of `paths` that the tree's own `.gitignore` files leave out of a candidate
    /// (the store's settings: no other exclude applies).
    pub(crate) fn ignored(&self, tree_dir: &Path, paths: &[String], scratch: &Path) -> Vec<String> {
        if paths.is_empty() {
            return Vec::new();
        }
        let index = scratch.join("ignored.index");
        let work = Some((tree_dir, index.as_path()));
        let mut input = Vec::new();
        for path in paths {
            input.extend(path.bytes());
            input.push(0);
        }
        // Exit 1 means none is ignored.
        let out = self
            .run_in(
                work,
                &["check-ignore", "--no-index", "-z", "--stdin"],
                Some(&input),
            )
            .unwrap_or_default();
        out.split(|b| *b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .collect()
    }

    /// The contents of `objects`, each `None` when it is missing or larger than `cap`;
    /// read through one `git cat-file --batch`.
    pub(crate) fn read_blobs(
        &self,
        objects: &[String],
        cap: usize,
    ) -> Result<Vec<Option<Vec<u8>>>, String> {
        if objects.is_empty() {
            return Ok(Vec::new());
        }
        let mut command = self.command(None, &["cat-file", "--batch"]);
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = command
            .spawn()
            .map_err(|err| format!("cannot run git: {err}"))?;
        let mut stdin = child.stdin.take().ok_or("git has no stdin")?;
        let requests: Vec<u8> = objects
            .iter()
            .flat_map(|o| format!("{o}\n").into_bytes())
            .collect();
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(&requests);
        });
        let stdout = child.stdout.take().ok_or("git has no stdout")?;
        let mut reader = BufReader::new(stdout);
        let mut out = Vec::with_capacity(objects.len());
        for _ in objects {
            let mut header = String::new();
            if reader.read_line(&mut header).map_err(|e| e.to_string())? == 0 {
                break;
            }
            let fields: Vec<&str> = header.split_whitespace().collect();
            let size = match fields.as_slice() {
                [_, _, size] => size.parse::<usize>().map_err(|e| e.to_string())?,
                _ => {
                    out.push(None);
                    continue;
                }
            };
            if size > cap {
                std::io::copy(
                    &mut (&mut reader).take(size as u64 + 1),
                    &mut std::io::sink(),
                )
                .map_err(|e| e.to_string())?;
                out.push(None);
                continue;
            }
            let mut bytes = vec![0; size + 1];
            reader.read_exact(&mut bytes).map_err(|e| e.to_string())?;
            bytes.pop();
            out.push(Some(bytes));
        }
        let _ = writer.join();
        let _ = child.wait();
        out.resize(objects.len(), None);
        Ok(out)
    }

    /// Makes the folder `dir` a repository of its own holding `tree` on `branch` at
    /// `commit`, its files checked out byte for byte: the agent's tree. Its objects are
    /// read from the store's and the user's (alternates), never written there.
    pub(crate) fn seed(
        &self,
        dir: &Path,
        commit: &str,
        branch: &str,
        user_objects: &Path,
        scratch: &Path,
    ) -> Result<(), String> {
        std::fs::create_dir_all(dir).map_err(|err| err.to_string())?;
        self.checkout(commit, dir, scratch)?;
        let git_dir = dir.join(".git");
        let text = git_dir
            .to_str()
            .ok_or("the agent's folder is not a UTF-8 path")?;
        std::fs::create_dir_all(&git_dir).map_err(|err| err.to_string())?;
        let agent = Self {
            dir: git_dir.clone(),
            identity: self.identity.clone(),
        };
        agent.run_in(
            None,
            &["init", "--quiet", "--bare", "--template=", text],
            None,
        )?;
        agent.run(&["config", "core.bare", "false"])?;
        std::fs::create_dir_all(git_dir.join("objects/info")).map_err(|err| err.to_string())?;
        std::fs::write(
            git_dir.join("objects/info/alternates"),
            format!(
                "{}\n{}\n",
                self.dir.join("objects").display(),
                user_objects.display()
            ),
        )
        .map_err(|err| err.to_string())?;
        agent.run(&["update-ref", &format!("refs/heads/{branch}"), commit])?;
        agent.run(&["symbolic-ref", "HEAD", &format!("refs/heads/{branch}")])?;
        let index = git_dir.join("index");
        let work = Some((dir, index.as_path()));
        agent.run_in(work, &["read-tree", commit], None)?;
        // Stat information in the index, so `git status` in the tree starts clean.
        let _ = agent.run_in(work, &["update-index", "-q", "--refresh"], None);
        Ok(())
    }
}

/// The entries of `ls-tree -r -z` output: `<mode> SP <type> SP <object> TAB <path> NUL`.
pub(crate) fn parse_entries(out: &[u8]) -> Vec<Entry> {
    out.split(|b| *b == 0)
        .filter(|e| !e.is_empty())
        .filter_map(|e| {
            let utf8 = std::str::from_utf8(e).is_ok();
            let text = String::from_utf8_lossy(e);
            let (meta, path) = text.split_once('\t')?;
            let mut fields = meta.split(' ');
            let mode = fields.next()?.to_owned();
            let _kind = fields.next()?;
            let object = fields.next()?.to_owned();
            Some(Entry {
                mode,
                object,
                path: path.to_owned(),
                utf8,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_sorted() {
        let mut sorted = CLEARED.to_vec();
        sorted.sort_unstable();
        assert_eq!(CLEARED, sorted, "keep CLEARED sorted");
    }

    #[test]
    fn a_name_that_is_not_utf8_is_marked() {
        let entries = parse_entries(b"100644 blob aaaa\ttests/test_\xff.py\x00");
        assert_eq!(entries[0].path, "tests/test_\u{fffd}.py");
        assert!(!entries[0].utf8);
    }

    #[test]
    fn entries_of_ls_tree() {
        let out = b"100644 blob aaaa\ta b.txt\x00160000 commit bbbb\tsub\x00";
        assert_eq!(
            parse_entries(out),
            vec![
                Entry {
                    mode: "100644".into(),
                    object: "aaaa".into(),
                    path: "a b.txt".into(),
                    utf8: true,
                },
                Entry {
                    mode: GITLINK.into(),
                    object: "bbbb".into(),
                    path: "sub".into(),
                    utf8: true,
                },
            ]
        );
    }
}
