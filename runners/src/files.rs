//! Reading project files with a size cap: a manifest is small, and one that is not must not
//! cost unbounded memory.

use std::io::Read;
use std::path::Path;

/// The most bytes read from a package.json.
pub(crate) const MAX_PACKAGE_JSON: u64 = 16 << 20;

/// The most bytes read from one makefile.
pub(crate) const MAX_MAKEFILE: u64 = 64 << 20;

/// Why a file was not read.
#[derive(Debug)]
pub(crate) enum ReadError {
    /// The system said no.
    Io(std::io::Error),
    /// It is larger than the cap.
    TooLarge {
        /// The cap it passed.
        max: u64,
    },
}

impl ReadError {
    /// Whether the file is not there.
    pub(crate) fn is_not_found(&self) -> bool {
        matches!(self, Self::Io(err) if err.kind() == std::io::ErrorKind::NotFound)
    }
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Io(err) => write!(f, "cannot read: {err}"),
            Self::TooLarge { max } => write!(f, "is larger than {} MiB; not read", max >> 20),
        }
    }
}

/// The bytes of `path`, when it holds at most `max` of them.
pub(crate) fn read_limited(path: &Path, max: u64) -> Result<Vec<u8>, ReadError> {
    let file = std::fs::File::open(path).map_err(ReadError::Io)?;
    let mut bytes = Vec::new();
    // One byte more than the cap tells a file at the cap from a larger one, even one that
    // grows while it is read.
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    if bytes.len() as u64 > max {
        return Err(ReadError::TooLarge { max });
    }
    Ok(bytes)
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
}
