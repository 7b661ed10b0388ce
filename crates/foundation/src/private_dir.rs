//! Folders only this user can enter: where kept outputs live.
//!
//! A folder in a place others can write (`/tmp`) could be made in advance by another user,
//! or be a symlink to somewhere else; whatever the runtime then writes or prunes there would
//! be theirs to read or to aim. So the folder is made with mode 0700 and, whether new or
//! not, checked before use: a real folder (not a symlink), owned by this user, open to no
//! one else.

use std::ffi::OsStr;
use std::io::{Error, ErrorKind};
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};

/// Makes `dir` (and missing parents, each 0700) unless it exists, then checks it: not a
/// symlink, a folder, owned by this user. A folder of this user's that others may enter is
/// closed to them (0700).
pub fn ensure_private_dir(dir: &Path) -> std::io::Result<()> {
    let (Some(base), Some(leaf)) = (dir.parent(), dir.file_name()) else {
        return Err(Error::other(format!(
            "{}: not a folder's path",
            dir.display()
        )));
    };
    ensure_private_dirs(base, &[leaf]).map(drop)
}

/// Makes or opens the runtime's own folders `parts`, one inside the other, in `base` (a
/// folder of the user's, made with its missing parents, each 0700, when absent), and returns
/// the path of the last. Each of `parts` is checked as it is reached, through the folder
/// checked before it (`openat` with `O_NOFOLLOW`, so no swap of a name between check and
/// open is followed): made 0700 when new; a real folder, not a symlink; owned by this user,
/// so that no one else can replace what is inside it; closed to others (0700) when open.
pub fn ensure_private_dirs(base: &Path, parts: &[&OsStr]) -> std::io::Result<PathBuf> {
    use rustix::fs::{Mode, OFlags};
    match std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(base)
    {
        Ok(()) => {}
        Err(err) if err.kind() == ErrorKind::AlreadyExists => {}
        Err(err) => return Err(with_path(base, err)),
    }
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let mut dir =
        rustix::fs::open(base, flags, Mode::empty()).map_err(|err| with_path(base, err.into()))?;
    let mut path = base.to_path_buf();
    let me = rustix::process::geteuid().as_raw();
    for part in parts {
        path.push(part);
        let refuse = |why: String| Error::other(format!("{}: {why}", path.display()));
        let not_ours = |why: String| {
            Error::other(NotSafelyOurs {
                path: path.clone(),
                why,
            })
        };
        match rustix::fs::mkdirat(&dir, *part, Mode::from_raw_mode(0o700)) {
            Ok(()) | Err(rustix::io::Errno::EXIST) => {}
            Err(err) => return Err(with_path(&path, err.into())),
        }
        let next = match rustix::fs::openat(&dir, *part, flags | OFlags::NOFOLLOW, Mode::empty()) {
            Ok(fd) => fd,
            Err(err) => {
                // Say what is there rather than the bare error code.
                let what = rustix::fs::statat(&dir, *part, rustix::fs::AtFlags::SYMLINK_NOFOLLOW)
                    .map(|st| rustix::fs::FileType::from_raw_mode(st.st_mode));
                return Err(match what {
                    Ok(rustix::fs::FileType::Symlink) => {
                        not_ours("is a symlink; a private folder must be a real folder".into())
                    }
                    Ok(kind) if kind != rustix::fs::FileType::Directory => {
                        refuse("is not a folder".into())
                    }
                    _ => with_path(&path, err.into()),
                });
            }
        };
        let stat = rustix::fs::fstat(&next).map_err(|err| with_path(&path, err.into()))?;
        if stat.st_uid != me {
            return Err(not_ours(format!(
                "is owned by user {}, not by this user ({me})",
                stat.st_uid
            )));
        }
        if stat.st_mode & 0o077 != 0 {
            rustix::fs::fchmod(&next, Mode::from_raw_mode(0o700))
                .map_err(|err| with_path(&path, err.into()))?;
        }
        dir = next;
    }
    Ok(path)
}

/// A folder on the way that is there but not safely this user's: a symlink, or another
/// user's folder. Unlike a folder that cannot be made, it may be someone aiming the
/// runtime's writes, so a caller refuses it rather than go elsewhere quietly.
#[derive(Debug, thiserror::Error)]
#[error("{}: {why}", path.display())]
pub struct NotSafelyOurs {
    path: PathBuf,
    why: String,
}

/// Whether `err`, from [`ensure_private_dirs`], says a folder is there but not safely this
/// user's ([`NotSafelyOurs`]).
pub fn is_not_safely_ours(err: &Error) -> bool {
    err.get_ref()
        .is_some_and(|inner| inner.is::<NotSafelyOurs>())
}

/// `err` with the path it is about.
fn with_path(path: &Path, err: Error) -> Error {
    Error::new(err.kind(), format!("{}: {err}", path.display()))
}

/// `Ok` when `dir` exists and is private without changing it: a real folder (not a
/// symlink), owned by this user, open to no one else. For reading what another run kept
/// there (the detection cache), where a folder others could write is not trusted.
pub fn check_private_dir(dir: &Path) -> std::io::Result<()> {
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
pub fn is_own_private_file(meta: &std::fs::Metadata) -> bool {
    meta.is_file() && meta.uid() == rustix::process::geteuid().as_raw() && meta.mode() & 0o077 == 0
}

/// A new temporary folder that only this user can enter (0700; tempfile alone leaves the
/// mode to the umask), removed when dropped.
pub fn temp_dir(prefix: &str) -> std::io::Result<tempfile::TempDir> {
    use std::os::unix::fs::PermissionsExt;
    tempfile::Builder::new()
        .prefix(prefix)
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir()
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

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
        assert!(is_not_safely_ours(&err), "{err}");
        let file = base.path().join("file");
        std::fs::write(&file, "").expect("file");
        let err = ensure_private_dir(&file).expect_err("a file");
        assert!(err.to_string().ends_with("is not a folder"), "{err}");
        // A folder that cannot be made is not someone aiming the writes.
        assert!(!is_not_safely_ours(&err), "{err}");
        let err = ensure_private_dir(&file.join("under")).expect_err("under a file");
        assert!(!is_not_safely_ours(&err), "{err}");
    }

    #[test]
    fn every_part_on_the_way_is_checked() {
        let base = tempfile::tempdir().expect("temp dir");
        let parts = [OsStr::new("speccoder"), OsStr::new("outputs")];
        let made = ensure_private_dirs(base.path(), &parts).expect("made");
        assert_eq!(made, base.path().join("speccoder/outputs"));
        // An open parent of ours is closed too, not only the last folder.
        let parent = base.path().join("speccoder");
        std::fs::set_permissions(&parent, std::fs::Permissions::from_mode(0o777)).expect("chmod");
        ensure_private_dirs(base.path(), &parts).expect("still ours");
        assert_eq!(
            std::fs::metadata(&parent).expect("meta").mode() & 0o777,
            0o700
        );
        // A parent that is a symlink is refused, and nothing is made where it points.
        let elsewhere = base.path().join("elsewhere");
        std::fs::create_dir(&elsewhere).expect("mkdir");
        std::fs::rename(&parent, base.path().join("old")).expect("move");
        std::os::unix::fs::symlink(&elsewhere, &parent).expect("symlink");
        let err = ensure_private_dirs(base.path(), &parts).expect_err("a symlink");
        assert_eq!(
            err.to_string(),
            format!(
                "{}: is a symlink; a private folder must be a real folder",
                parent.display()
            )
        );
        assert_eq!(std::fs::read_dir(&elsewhere).expect("dir").count(), 0);
    }
}
