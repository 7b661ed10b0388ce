//! A Go module's `vendor/` that the candidate changed, checked against what `go mod vendor`
//! makes of the candidate's own `go.mod` and `go.sum`: the same files are the honest result
//! of a dependency change; any other file is code the tests build in place of a module
//! (`docs/design/verdict.md`, invariant 8).
//!
//! `go mod vendor` copies the packages the module imports from the module cache (or from a
//! `replace`'s folder) and runs none of them. Still, it is a tool reading the candidate's
//! files, so it runs as the checks do: in the checks' sandbox (namespaces, the network as
//! the checks have it, your sockets and credential files hidden, the caches as overlays)
//! with the checks' environment, in a checkout of the candidate made for it alone that it
//! cannot write, writing only its own output folder beside it. On top: no module proxy
//! (`GOPROXY=off`: a module missing from the cache makes the comparison impossible, which
//! is a finding), no toolchain switch (`GOTOOLCHAIN=local`: a `toolchain` line would
//! otherwise fetch and run another `go`), no workspace (`GOWORK=off`) and none of your
//! `GOFLAGS`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::super::shared::{Finding, FindingKind, Prepared};
use speccoder_foundation::process::{RunRequest, Spawner};

/// How long one `go mod vendor` may take.
const TIMEOUT: Duration = Duration::from_secs(120);

/// The most files of one `vendor/` compared, each side.
const MAX_FILES: usize = 20_000;

/// The most bytes of one vendored file compared.
const MAX_FILE_BYTES: u64 = 16 << 20;

/// What to check: the candidate's tree and the module folders (project paths, `""` for the
/// root) whose `vendor/` it changed.
#[derive(Debug)]
pub(crate) struct Vendored<'a> {
    /// The attempt: its store, its scratch folder (for the checkout), the project's folder
    /// in the repository, and the checks' sandbox.
    pub(crate) prepared: &'a Prepared,
    pub(crate) candidate: &'a str,
    pub(crate) modules: &'a [String],
}

/// The findings for each module whose `vendor/` is not what `go mod vendor` makes of the
/// candidate's `go.mod`, and a note for each that is.
pub(crate) fn verify(v: &Vendored<'_>) -> (Vec<Finding>, Vec<String>) {
    let (mut findings, mut notes) = (Vec::new(), Vec::new());
    if v.modules.is_empty() {
        return (findings, notes);
    }
    let scratch = &v.prepared.scratch;
    // `tree` the checkout, `made` where go writes: beside it, so no name of the
    // candidate's is written through, and the only folder the sandbox lets go write.
    let top = scratch.join("vendored");
    let (dir, made_in) = (top.join("tree"), top.join("made"));
    let _ = std::fs::remove_dir_all(&top);
    let made = std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::create_dir_all(&made_in))
        .map_err(|err| err.to_string())
        .and_then(|()| v.prepared.store.checkout(v.candidate, &dir, scratch));
    let spawner = v.prepared.sealed_spawner(vec![made_in.clone()]);
    for module in v.modules {
        let rel = join(&v.prepared.prefix, module);
        let vendor = join(&rel, "vendor");
        let result = made
            .clone()
            .map_err(|err| {
                let detail = format!("changed, and a tree to check it in cannot be made: {err}");
                (format!("{vendor}/"), detail)
            })
            .and_then(|()| {
                let out = made_in.join(format!("{}", notes.len() + findings.len()));
                compare(&*spawner, &dir.join(&rel), &out, &vendor)
            });
        match result {
            Ok(()) => notes.push(format!(
                "{vendor}/ is what `go mod vendor` makes of the candidate's go.mod"
            )),
            Err((path, detail)) => findings.push(Finding {
                kind: FindingKind::TestConfigChanged,
                path,
                detail,
            }),
        }
    }
    let _ = std::fs::remove_dir_all(&top);
    (findings, notes)
}

/// `a/b` of two repository paths, either of which may be empty.
fn join(a: &str, b: &str) -> String {
    match (a.trim_end_matches('/'), b) {
        ("", b) => b.to_owned(),
        (a, "") => a.to_owned(),
        (a, b) => format!("{a}/{b}"),
    }
}

/// `Ok` when `module/vendor` equals what `go mod vendor` makes in `module` (written to
/// `made`, outside the checkout, so no name of the candidate's is written through); else
/// the path to name (`vendor` is its repository path) and why.
fn compare(
    spawner: &dyn Spawner,
    module: &Path,
    made: &Path,
    vendor: &str,
) -> Result<(), (String, String)> {
    let whole = |detail: String| (format!("{vendor}/"), detail);
    if !module.join("go.mod").is_file() {
        return Err(whole(
            "vendored code with no go.mod beside it: nothing says what it should be".into(),
        ));
    }
    let request = RunRequest {
        env: [
            ("GOTOOLCHAIN", "local"),
            ("GOPROXY", "off"),
            ("GOWORK", "off"),
            ("GOFLAGS", ""),
        ]
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect(),
        ..RunRequest::new(
            format!("go mod vendor -o '{}'", made.display()),
            module,
            TIMEOUT,
        )
    };
    let out = spawner.run(&request).map_err(|err| {
        whole(format!(
            "`go mod vendor` could not start to check it: {err}"
        ))
    })?;
    if !out.success() {
        let text = out.stdout.text();
        let first: String = text.lines().take(3).collect::<Vec<_>>().join(" ");
        return Err(whole(format!(
            "changed, and `go mod vendor` could not make it for the candidate's go.mod to compare: {first}"
        )));
    }
    // With nothing to vendor, `go mod vendor` says so and makes no folder.
    let ours = if made.exists() {
        files(made)
    } else {
        Ok(Vec::new())
    };
    let (theirs, ours) = (files(&module.join("vendor")), ours);
    let (theirs, ours) = match (theirs, ours) {
        (Ok(t), Ok(o)) => (t, o),
        (Err(err), _) | (_, Err(err)) => return Err(whole(err)),
    };
    let mut names: Vec<&PathBuf> = theirs.iter().chain(&ours).collect();
    names.sort();
    names.dedup();
    for name in names {
        let shown = format!("{vendor}/{}", name.display());
        let detail = match (theirs.contains(name), ours.contains(name)) {
            (true, false) => {
                "line 1: a file `go mod vendor` does not make for the candidate's go.mod".to_owned()
            }
            (false, true) => {
                "missing: `go mod vendor` makes it for the candidate's go.mod".to_owned()
            }
            _ => match differing_line(&module.join("vendor").join(name), &made.join(name)) {
                None => continue,
                Some(line) => format!(
                    "line {line}: differs from what `go mod vendor` makes for the candidate's go.mod"
                ),
            },
        };
        return Err((shown, detail));
    }
    Ok(())
}

/// The files under `root` (relative paths, sorted); a link or anything else that is not a
/// plain file or folder is an error, and so are more than [`MAX_FILES`].
fn files(root: &Path) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|err| format!("cannot be read: {err}"))?;
        for entry in entries {
            let entry = entry.map_err(|err| format!("cannot be read: {err}"))?;
            let kind = entry.file_type().map_err(|err| err.to_string())?;
            let path = entry.path();
            let rel = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file() {
                out.push(rel);
            } else {
                return Err(format!(
                    "`{}` is not a plain file, which `go mod vendor` never makes",
                    rel.display()
                ));
            }
            if out.len() > MAX_FILES {
                return Err(format!("over {MAX_FILES} files: too many to compare"));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The first line (from 1) where the files `a` and `b` differ, `None` when they are equal;
/// a file over [`MAX_FILE_BYTES`] or unreadable differs at line 1.
fn differing_line(a: &Path, b: &Path) -> Option<usize> {
    let read = |p: &Path| speccoder_foundation::files::read_limited(p, MAX_FILE_BYTES).ok();
    let (Some(a), Some(b)) = (read(a), read(b)) else {
        return Some(1);
    };
    if a == b {
        return None;
    }
    let mut line = 1;
    for (x, y) in a.iter().zip(&b) {
        if x != y {
            return Some(line);
        }
        line += usize::from(*x == b'\n');
    }
    Some(line)
}

#[cfg(test)]
mod tests {
    use super::{differing_line, files, join};

    #[test]
    fn where_two_vendored_copies_differ() {
        let dir = tempfile::tempdir().expect("temp dir");
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        for (root, text) in [
            (&a, "package th\n\nfunc Equal() {\n\tcheck()\n}\n"),
            (&b, "package th\n\nfunc Equal() {\n\t_ = 0\n}\n"),
        ] {
            std::fs::create_dir_all(root.join("x")).expect("mkdir");
            std::fs::write(root.join("x/th.go"), text).expect("write");
        }
        assert_eq!(
            differing_line(&a.join("x/th.go"), &b.join("x/th.go")),
            Some(4)
        );
        assert_eq!(differing_line(&a.join("x/th.go"), &a.join("x/th.go")), None);
        // A file one side lacks differs from its first line.
        assert_eq!(
            differing_line(&a.join("x/th.go"), &b.join("x/none.go")),
            Some(1)
        );
        assert_eq!(files(&a), Ok(vec!["x/th.go".into()]));
        // go never makes a link: a link in the candidate's copy cannot be compared.
        std::os::unix::fs::symlink("/etc/passwd", a.join("x/link.go")).expect("link");
        assert!(files(&a).is_err_and(|err| err.contains("not a plain file")));
        assert_eq!(join("", "vendor"), "vendor");
        assert_eq!(join("svc/", "vendor"), "svc/vendor");
        assert_eq!(join("svc", ""), "svc");
    }
}
