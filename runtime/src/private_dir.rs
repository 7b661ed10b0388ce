//! Folders only this user can enter: where kept outputs live.
//!
//! A folder in a place others can write (`/tmp`) could be made in advance by another user,
//! or be a symlink to somewhere else; whatever the runtime then writes or prunes there would
//! be theirs to read or to aim. So the folder is made with mode 0700 and, whether new or
//! not, checked before use: a real folder (not a symlink), owned by this user, open to no
//! one else.

use std::io::{Error, ErrorKind};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::Path;

/// Makes `dir` (and missing parents, each 0700) unless it exists, then checks it: not a
/// symlink, a folder, owned by this user. A folder of this user's that others may enter is
/// closed to them (0700).
pub(crate) fn ensure_private_dir(dir: &Path) -> std::io::Result<()> {
    match std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
    {
        Ok(()) => {}
        // A symlink to nowhere, say: the check below says what it is.
        Err(err) if err.kind() == ErrorKind::AlreadyExists => {}
        Err(err) => return Err(err),
    }
    let meta = std::fs::symlink_metadata(dir)?;
    let refuse = |why: String| Err(Error::other(format!("{}: {why}", dir.display())));
    if meta.file_type().is_symlink() {
        return refuse("is a symlink; a private folder must be a real folder".into());
    }
    if !meta.is_dir() {
        return refuse("is not a folder".into());
    }
    let me = rustix::process::geteuid().as_raw();
    if meta.uid() != me {
        return refuse(format!(
            "is owned by user {}, not by this user ({me})",
            meta.uid()
        ));
    }
    if meta.mode() & 0o077 != 0 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// `Ok` when `dir` exists and is private without changing it: a real folder (not a
/// symlink), owned by this user, open to no one else. For reading what another run kept
/// there (the detection cache), where a folder others could write is not trusted.
pub(crate) fn check_private_dir(dir: &Path) -> std::io::Result<()> {
    let meta = std::fs::symlink_metadata(dir)?;
    let private = !meta.file_type().is_symlink()
        && meta.is_dir()
        && meta.uid() == rustix::process::geteuid().as_raw()
        && meta.mode() & 0o077 == 0;
    if private {
        Ok(())
    } else {
        Err(Error::other(format!(
            "{}: not a private folder",
            dir.display()
        )))
    }
}

/// Whether `meta` is a regular file of this user's that no one else may read or write.
pub(crate) fn is_own_private_file(meta: &std::fs::Metadata) -> bool {
    meta.is_file() && meta.uid() == rustix::process::geteuid().as_raw() && meta.mode() & 0o077 == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn made_private_and_checked() {
        let base = tempfile::tempdir().expect("temp dir");
        let dir = base.path().join("state/speccoder/outputs");
        ensure_private_dir(&dir).expect("made");
        for folder in [&dir, &base.path().join("state")] {
            let mode = std::fs::metadata(folder).expect("meta").mode() & 0o777;
            assert_eq!(mode, 0o700, "{}", folder.display());
        }
        // An open folder of ours is closed.
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).expect("chmod");
        ensure_private_dir(&dir).expect("still ours");
        assert_eq!(std::fs::metadata(&dir).expect("meta").mode() & 0o777, 0o700);

        let link = base.path().join("link");
        std::os::unix::fs::symlink(&dir, &link).expect("symlink");
        let err = ensure_private_dir(&link).expect_err("a symlink");
        assert!(
            err.to_string()
                .ends_with("is a symlink; a private folder must be a real folder")
        );
        let file = base.path().join("file");
        std::fs::write(&file, "").expect("file");
        let err = ensure_private_dir(&file).expect_err("a file");
        assert!(err.to_string().ends_with("is not a folder"), "{err}");
    }
}
