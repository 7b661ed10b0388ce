//! The one way detection and configuration read a project's files: a repository is
//! untrusted, so a file is read only when it is a regular file, opened without blocking
//! (a FIFO never hangs the reader, a device is never read), up to a cap (a huge file never
//! costs unbounded memory), and, for manifests, only when it resolves inside the project root.

use std::io::Read;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

/// The most bytes read from a package.json.
pub const MAX_PACKAGE_JSON: u64 = 16 << 20;

/// The most bytes read from one makefile.
pub const MAX_MAKEFILE: u64 = 64 << 20;

/// The most bytes read from a small manifest: `pnpm-workspace.yaml`, a Taskfile, a justfile,
/// `speccoder.toml`.
pub const MAX_MANIFEST: u64 = 4 << 20;

/// Why a file was not read.
#[derive(Debug)]
pub enum ReadError {
    /// The system said no.
    Io(std::io::Error),
    /// It is larger than the cap.
    TooLarge {
        /// The cap it passed.
        max: u64,
    },
    /// It is a FIFO, a device, a socket or a folder, which a manifest never is: reading one
    /// could block forever or never end.
    NotRegular {
        /// What it is (`a FIFO`, `a character device`).
        kind: &'static str,
    },
    /// It is a symlink (or under one) that resolves outside the project root.
    OutsideRoot {
        /// Where it resolves to.
        target: PathBuf,
    },
}

impl ReadError {
    /// Whether the file is not there.
    pub fn is_not_found(&self) -> bool {
        matches!(self, Self::Io(err) if err.kind() == std::io::ErrorKind::NotFound)
    }
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Io(err) => write!(f, "cannot read: {err}"),
            Self::TooLarge { max } if *max >= 1 << 20 => {
                write!(f, "is larger than {} MiB; not read", max >> 20)
            }
            Self::TooLarge { max } => write!(f, "is larger than {max} bytes; not read"),
            Self::NotRegular { kind } => write!(f, "is {kind}, not a regular file; not read"),
            Self::OutsideRoot { target } => write!(
                f,
                "resolves outside the project root (to {}); not read",
                target.display()
            ),
        }
    }
}

impl std::error::Error for ReadError {}

/// What a file type is, in words, when it is not a regular file.
fn irregular(kind: std::fs::FileType) -> Option<&'static str> {
    if kind.is_file() {
        None
    } else if kind.is_fifo() {
        Some("a FIFO")
    } else if kind.is_char_device() {
        Some("a character device")
    } else if kind.is_block_device() {
        Some("a block device")
    } else if kind.is_socket() {
        Some("a socket")
    } else if kind.is_dir() {
        Some("a folder")
    } else {
        Some("not a regular file")
    }
}

/// What a file type other than a regular file or a symlink is, in words.
fn irregular_type(kind: rustix::fs::FileType) -> &'static str {
    use rustix::fs::FileType;
    match kind {
        FileType::Fifo => "a FIFO",
        FileType::CharacterDevice => "a character device",
        FileType::BlockDevice => "a block device",
        FileType::Socket => "a socket",
        FileType::Directory => "a folder",
        _ => "not a regular file",
    }
}

/// The bytes of `path`, when it is a regular file of at most `max` bytes. Symlinks are
/// followed; use [`read_inside`] for a project's manifests.
pub fn read_limited(path: &Path, max: u64) -> Result<Vec<u8>, ReadError> {
    // Refused before opening: opening some devices has effects of its own.
    let meta = std::fs::metadata(path).map_err(ReadError::Io)?;
    if let Some(kind) = irregular(meta.file_type()) {
        return Err(ReadError::NotRegular { kind });
    }
    read_open(path, max, rustix::fs::OFlags::empty())
}

/// Opens `path` (with `extra` flags) and reads it when it is a regular file of at most
/// `max` bytes.
fn read_open(path: &Path, max: u64, extra: rustix::fs::OFlags) -> Result<Vec<u8>, ReadError> {
    read_open_as(path, max, extra, Cap::Refuse)
}

/// What a read does with a file larger than its cap.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Cap {
    /// Refuses it ([`ReadError::TooLarge`]).
    Refuse,
    /// Reads its first bytes up to the cap.
    Prefix,
}

fn read_open_as(
    path: &Path,
    max: u64,
    extra: rustix::fs::OFlags,
    cap: Cap,
) -> Result<Vec<u8>, ReadError> {
    // Without blocking and checked again once open: the path may have been swapped for a
    // FIFO since the caller's check, and opening a FIFO for reading blocks until a writer
    // comes.
    use rustix::fs::{Mode, OFlags};
    let fd = rustix::fs::open(
        path,
        OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC | extra,
        Mode::empty(),
    )
    .map_err(|err| ReadError::Io(err.into()))?;
    let file = std::fs::File::from(fd);
    let meta = file.metadata().map_err(ReadError::Io)?;
    if let Some(kind) = irregular(meta.file_type()) {
        return Err(ReadError::NotRegular { kind });
    }
    if meta.len() > max && cap == Cap::Refuse {
        return Err(ReadError::TooLarge { max });
    }
    if cap == Cap::Prefix {
        let mut bytes = Vec::with_capacity(usize::try_from(meta.len().min(max)).unwrap_or(0));
        file.take(max)
            .read_to_end(&mut bytes)
            .map_err(ReadError::Io)?;
        return Ok(bytes);
    }
    let mut bytes = Vec::new();
    read_sized(&file, meta.len(), max, &mut bytes)?;
    Ok(bytes)
}

/// Reads an open regular file whose size was `len` when it was opened into `buf` (cleared
/// first), refusing it past `max` bytes. The first read asks for one byte more than `len`:
/// when it gives exactly `len`, the file is whole and no read is spent on seeing its end.
/// Any other count (a file that grew or shrank, or a size of 0 as `/proc` reports) reads on
/// to the end, and one byte more than the cap tells a file at the cap from a larger one,
/// even one that grows while it is read.
fn read_sized(
    mut file: &std::fs::File,
    len: u64,
    max: u64,
    buf: &mut Vec<u8>,
) -> Result<(), ReadError> {
    let limit = usize::try_from(max.saturating_add(1)).unwrap_or(usize::MAX);
    let first = usize::try_from(len.saturating_add(1))
        .unwrap_or(usize::MAX)
        .min(limit);
    buf.clear();
    buf.resize(first, 0);
    let mut filled = 0;
    loop {
        match file.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(err) => {
                buf.clear();
                return Err(ReadError::Io(err));
            }
        }
        if filled as u64 == len && filled < buf.len() {
            break;
        }
        if filled as u64 > max {
            buf.clear();
            return Err(ReadError::TooLarge { max });
        }
        if filled == buf.len() {
            let more = buf.len().saturating_mul(2).max(8192).min(limit);
            buf.resize(more, 0);
        }
    }
    buf.truncate(filled);
    Ok(())
}

/// A project root, resolved once, that manifests must stay inside.
#[derive(Debug, Clone)]
pub struct Root {
    canonical: PathBuf,
}

impl Root {
    /// The root `root` resolves to (itself when it cannot be resolved).
    pub fn new(root: &Path) -> Self {
        Self {
            canonical: root.canonicalize().unwrap_or_else(|_| root.to_path_buf()),
        }
    }

    /// `Ok` when `path` resolves inside the root (or does not exist), else why not.
    pub fn check(&self, path: &Path) -> Result<(), ReadError> {
        match path.canonicalize() {
            Ok(target) if target.starts_with(&self.canonical) => Ok(()),
            Ok(target) => Err(ReadError::OutsideRoot { target }),
            Err(err) => Err(ReadError::Io(err)),
        }
    }

    /// `Ok` when `path` is a regular file inside the root: for a manifest that a runner's
    /// own listing command reads, which must not be a FIFO or `/etc/passwd` either.
    pub fn check_manifest(&self, path: &Path) -> Result<(), ReadError> {
        self.check(path)?;
        let meta = std::fs::metadata(path).map_err(ReadError::Io)?;
        match irregular(meta.file_type()) {
            Some(kind) => Err(ReadError::NotRegular { kind }),
            None => Ok(()),
        }
    }

    /// Like [`read_limited`], and only when `path` resolves inside the root: a manifest
    /// that is a symlink to `/etc/passwd` is not the project's.
    pub fn read(&self, path: &Path, max: u64) -> Result<Vec<u8>, ReadError> {
        self.check(path)?;
        read_limited(path, max)
    }
}

impl Root {
    /// Like [`Root::read`] for a file whose folders the caller reached from the root
    /// without following a symlink (a walker that skips symlinked folders): only the file
    /// itself can lead elsewhere, so it is resolved only when it is a symlink. This saves a
    /// `realpath` per file, which counts in a monorepo of thousands of packages.
    pub fn read_walked(&self, path: &Path, max: u64) -> Result<Vec<u8>, ReadError> {
        let meta = path.symlink_metadata().map_err(ReadError::Io)?;
        if meta.file_type().is_symlink() {
            return self.read(path, max);
        }
        if let Some(kind) = irregular(meta.file_type()) {
            return Err(ReadError::NotRegular { kind });
        }
        // Swapped for a symlink since: the open fails rather than follows it.
        read_open(path, max, rustix::fs::OFlags::NOFOLLOW)
    }

    /// Like [`Root::read_walked`], but a file over `max` bytes gives its first `max` bytes
    /// instead of an error: for a header (a Go file's package clause) that comes first.
    pub fn read_walked_prefix(&self, path: &Path, max: u64) -> Result<Vec<u8>, ReadError> {
        let meta = path.symlink_metadata().map_err(ReadError::Io)?;
        let mut flags = rustix::fs::OFlags::NOFOLLOW;
        if meta.file_type().is_symlink() {
            self.check(path)?;
            flags = rustix::fs::OFlags::empty();
        } else if let Some(kind) = irregular(meta.file_type()) {
            return Err(ReadError::NotRegular { kind });
        }
        read_open_as(path, max, flags, Cap::Prefix)
    }
}

/// A folder the caller reached from the root without following a symlink, opened once: the
/// files found below it are then looked up from it, not from `/` through every folder of
/// its path again (which counts for the thousands of manifests of a monorepo).
#[derive(Debug)]
pub struct WalkedDir {
    fd: std::os::fd::OwnedFd,
    path: PathBuf,
}

impl WalkedDir {
    /// Opens the folder `path` for looking names up below it ([`open_lookup_dir`]).
    pub fn open(path: &Path) -> Result<Self, ReadError> {
        let fd = open_lookup_dir(path).map_err(ReadError::Io)?;
        Ok(Self {
            fd,
            path: path.to_path_buf(),
        })
    }
}

/// Opens the folder `path` only to look names up below it (`openat`, `statat`), following
/// a symlink at `path` itself. On Linux that is `O_PATH`, which needs no read permission
/// and reads nothing; elsewhere a read-only descriptor of the folder, which needs it.
pub fn open_lookup_dir(path: &Path) -> std::io::Result<std::os::fd::OwnedFd> {
    use rustix::fs::{Mode, OFlags};
    #[cfg(target_os = "linux")]
    let lookup = OFlags::PATH;
    #[cfg(not(target_os = "linux"))]
    let lookup = OFlags::RDONLY;
    rustix::fs::open(
        path,
        lookup | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(Into::into)
}

impl Root {
    /// Like [`Root::read_walked`] for the file `rel` below `dir` (`/`-separated, reached
    /// without following a symlink but for the file itself), read into `buf` so that one
    /// buffer serves many reads. The same checks, in the same order: the file is looked at
    /// before it is opened (a device is never opened, a symlink is resolved and must stay
    /// inside the root), opened without following a symlink and without blocking, and
    /// checked again once open.
    pub fn read_walked_in(
        &self,
        dir: &WalkedDir,
        rel: &str,
        max: u64,
        buf: &mut Vec<u8>,
    ) -> Result<(), ReadError> {
        use rustix::fs::{AtFlags, FileType, Mode, OFlags};
        buf.clear();
        let stat = rustix::fs::statat(&dir.fd, rel, AtFlags::SYMLINK_NOFOLLOW)
            .map_err(|err| ReadError::Io(err.into()))?;
        // Looked at before opening: opening some devices has effects of its own.
        match FileType::from_raw_mode(stat.st_mode) {
            FileType::RegularFile => {}
            FileType::Symlink => {
                *buf = self.read(&dir.path.join(rel), max)?;
                return Ok(());
            }
            other => {
                return Err(ReadError::NotRegular {
                    kind: irregular_type(other),
                });
            }
        }
        // Swapped for a symlink since: the open fails rather than follows it.
        let fd = rustix::fs::openat(
            &dir.fd,
            rel,
            OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC | OFlags::NOFOLLOW,
            Mode::empty(),
        )
        .map_err(|err| ReadError::Io(err.into()))?;
        // A plain `fstat`: std's `statx` on an empty path copies that path in first.
        let stat = rustix::fs::fstat(&fd).map_err(|err| ReadError::Io(err.into()))?;
        match FileType::from_raw_mode(stat.st_mode) {
            FileType::RegularFile => {}
            other => {
                return Err(ReadError::NotRegular {
                    kind: irregular_type(other),
                });
            }
        }
        let len = u64::try_from(stat.st_size).unwrap_or(0);
        if len > max {
            return Err(ReadError::TooLarge { max });
        }
        read_sized(&std::fs::File::from(fd), len, max, buf)
    }
}

/// Like [`read_limited`], and only when `path` resolves inside `root`.
pub fn read_inside(root: &Path, path: &Path, max: u64) -> Result<Vec<u8>, ReadError> {
    Root::new(root).read(path, max)
}

/// `Ok` when `path` (symlinks followed) is a regular file of at most `max` bytes; nothing
/// is opened. For a file that a runner's own tool will read, which must not be a device or
/// grow without bound there either.
pub fn check_regular(path: &Path, max: u64) -> Result<(), ReadError> {
    let meta = std::fs::metadata(path).map_err(ReadError::Io)?;
    if let Some(kind) = irregular(meta.file_type()) {
        return Err(ReadError::NotRegular { kind });
    }
    if meta.len() > max {
        return Err(ReadError::TooLarge { max });
    }
    Ok(())
}

/// Whether anything (a file, a folder, a FIFO, a dangling symlink) is at `path`.
pub fn exists(path: &Path) -> bool {
    path.symlink_metadata().is_ok()
}

/// Whether `path` is a regular file (following symlinks); nothing is opened or read. For
/// files only consulted for their name, such as lockfiles.
pub fn is_regular_file(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

/// Makes a FIFO at `path` for a test, with the `mkfifo` command, which every platform has
/// (the call itself differs between them).
#[cfg(test)]
pub(crate) fn make_fifo(path: &Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo");
    assert!(made.success(), "mkfifo {}", path.display());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("f");
        std::fs::write(&path, b"12345").expect("write");
        assert_eq!(read_limited(&path, 5).expect("at the cap"), b"12345");
        let err = read_limited(&path, 4).expect_err("over the cap");
        assert!(matches!(err, ReadError::TooLarge { max: 4 }));
        assert!(
            read_limited(&dir.path().join("missing"), 4)
                .expect_err("missing")
                .is_not_found()
        );
        assert_eq!(
            ReadError::TooLarge { max: 16 << 20 }.to_string(),
            "is larger than 16 MiB; not read"
        );
    }

    /// Property: a FIFO, a device or a folder is refused at once, with what it is.
    #[test]
    fn special_files_are_refused_without_blocking() {
        let dir = tempfile::tempdir().expect("temp dir");
        let fifo = dir.path().join("fifo");
        crate::files::make_fifo(&fifo);
        let zero = dir.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &zero).expect("symlink");
        #[track_caller]
        fn case(path: &Path, want: &str) {
            let err = read_limited(path, 1 << 20).expect_err("refused");
            assert_eq!(err.to_string(), want);
        }
        case(&fifo, "is a FIFO, not a regular file; not read");
        case(&zero, "is a character device, not a regular file; not read");
        case(dir.path(), "is a folder, not a regular file; not read");
    }

    /// Property: a symlink leaving the root is refused; one staying inside is read.
    #[test]
    fn manifests_stay_inside_the_root() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().join("root");
        std::fs::create_dir(&root).expect("root");
        std::fs::write(dir.path().join("secret"), "s").expect("secret");
        std::fs::write(root.join("real"), "r").expect("real");
        std::os::unix::fs::symlink(dir.path().join("secret"), root.join("out")).expect("link");
        std::os::unix::fs::symlink("real", root.join("in")).expect("link");
        assert_eq!(
            read_inside(&root, &root.join("in"), 10).expect("inside"),
            b"r"
        );
        let err = read_inside(&root, &root.join("out"), 10).expect_err("outside");
        assert!(matches!(err, ReadError::OutsideRoot { .. }), "{err}");
        assert!(
            err.to_string()
                .starts_with("resolves outside the project root")
        );
    }

    /// Property: a prefix read gives at most the cap's bytes of a larger file (a 1 GiB
    /// sparse one costs nothing), refuses a FIFO, `/dev/zero` and a link out of the root.
    #[test]
    fn prefixes_are_bounded() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().join("root");
        std::fs::create_dir(&root).expect("root");
        let huge = std::fs::File::create(root.join("huge")).expect("huge");
        huge.set_len(1 << 30).expect("sparse");
        std::fs::write(root.join("small"), "abc").expect("small");
        std::fs::write(dir.path().join("secret"), "s").expect("secret");
        std::os::unix::fs::symlink(dir.path().join("secret"), root.join("out")).expect("link");
        std::os::unix::fs::symlink("/dev/zero", root.join("zero")).expect("link");
        crate::files::make_fifo(&root.join("fifo"));
        let inside = Root::new(&root);
        assert_eq!(
            inside
                .read_walked_prefix(&root.join("huge"), 10)
                .expect("huge"),
            vec![0; 10]
        );
        assert_eq!(
            inside
                .read_walked_prefix(&root.join("small"), 10)
                .expect("small"),
            b"abc"
        );
        for name in ["out", "zero", "fifo"] {
            assert!(
                inside.read_walked_prefix(&root.join(name), 10).is_err(),
                "{name}"
            );
        }
    }

    /// Property: a walked file is read like any other; a symlink is still resolved and
    /// refused when it leaves the root; a FIFO is refused.
    #[test]
    fn walked_files_are_checked_only_when_they_are_links() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().join("root");
        std::fs::create_dir(&root).expect("root");
        std::fs::write(dir.path().join("secret"), "s").expect("secret");
        std::fs::write(root.join("real"), "r").expect("real");
        std::os::unix::fs::symlink(dir.path().join("secret"), root.join("out")).expect("link");
        std::os::unix::fs::symlink("real", root.join("in")).expect("link");
        crate::files::make_fifo(&root.join("fifo"));
        let inside = Root::new(&root);
        assert_eq!(
            inside.read_walked(&root.join("real"), 10).expect("real"),
            b"r"
        );
        assert_eq!(
            inside.read_walked(&root.join("in"), 10).expect("inside"),
            b"r"
        );
        let err = inside
            .read_walked(&root.join("out"), 10)
            .expect_err("outside");
        assert!(matches!(err, ReadError::OutsideRoot { .. }), "{err}");
        let err = inside
            .read_walked(&root.join("fifo"), 10)
            .expect_err("fifo");
        assert!(
            matches!(err, ReadError::NotRegular { kind: "a FIFO" }),
            "{err}"
        );
        assert!(
            inside
                .read_walked(&root.join("missing"), 10)
                .expect_err("missing")
                .is_not_found()
        );
    }

    /// Property: a file read from a walked folder gets the same checks: a link is resolved
    /// and refused when it leaves the root, a FIFO, a folder and `/dev/zero` are refused at
    /// once, a 1 GiB file is refused unread, a file at the cap is read whole; one buffer
    /// serves every read.
    #[test]
    fn files_read_from_a_walked_folder_are_checked() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().join("root");
        std::fs::create_dir_all(root.join("sub")).expect("root");
        std::fs::write(dir.path().join("secret"), "s").expect("secret");
        std::fs::write(root.join("sub/real"), "12345").expect("real");
        std::os::unix::fs::symlink(dir.path().join("secret"), root.join("sub/out")).expect("link");
        std::os::unix::fs::symlink("real", root.join("sub/in")).expect("link");
        std::os::unix::fs::symlink("/dev/zero", root.join("sub/zero")).expect("link");
        crate::files::make_fifo(&root.join("sub/fifo"));
        std::fs::create_dir(root.join("sub/folder")).expect("folder");
        let huge = std::fs::File::create(root.join("sub/huge")).expect("huge");
        huge.set_len(1 << 30).expect("sparse");
        let inside = Root::new(&root);
        let walked = WalkedDir::open(&root).expect("open");
        let mut buf = Vec::new();
        let mut read = |rel: &str, max: u64| {
            inside
                .read_walked_in(&walked, rel, max, &mut buf)
                .map(|()| String::from_utf8_lossy(&buf).into_owned())
                .map_err(|err| err.to_string())
        };
        assert_eq!(read("sub/real", 5), Ok("12345".to_owned()));
        assert_eq!(read("sub/in", 5), Ok("12345".to_owned()));
        assert_eq!(
            read("sub/real", 4),
            Err("is larger than 4 bytes; not read".to_owned())
        );
        assert!(
            read("sub/out", 5)
                .expect_err("outside")
                .starts_with("resolves outside the project root")
        );
        assert!(read("sub/zero", 5).expect_err("zero").contains("outside"));
        assert_eq!(
            read("sub/fifo", 5),
            Err("is a FIFO, not a regular file; not read".to_owned())
        );
        assert_eq!(
            read("sub/folder", 5),
            Err("is a folder, not a regular file; not read".to_owned())
        );
        assert_eq!(
            read("sub/huge", 16 << 20),
            Err("is larger than 16 MiB; not read".to_owned())
        );
        assert_eq!(read("sub/real", 5), Ok("12345".to_owned()));
        let missing = inside.read_walked_in(&walked, "sub/missing", 5, &mut Vec::new());
        assert!(missing.expect_err("missing").is_not_found());
    }

    /// Property: a file that grows past the size it had is read on to the end, and refused
    /// past the cap.
    #[test]
    fn a_sized_read_goes_on_past_the_size() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("f");
        std::fs::write(&path, vec![b'x'; 20_000]).expect("write");
        let file = std::fs::File::open(&path).expect("open");
        let mut buf = Vec::new();
        // Told it had 10 bytes: the first read fills the 11 asked for, and reading goes on.
        read_sized(&file, 10, 1 << 20, &mut buf).expect("read");
        assert_eq!(buf.len(), 20_000);
        let file = std::fs::File::open(&path).expect("open");
        let err = read_sized(&file, 10, 15_000, &mut buf).expect_err("over the cap");
        assert!(matches!(err, ReadError::TooLarge { max: 15_000 }), "{err}");
        // Told it had more than it has: read to the end.
        let file = std::fs::File::open(&path).expect("open");
        read_sized(&file, 30_000, 1 << 20, &mut buf).expect("read");
        assert_eq!(buf.len(), 20_000);
    }
}
