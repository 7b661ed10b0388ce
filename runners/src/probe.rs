//! The probe interface: how detection runs a runner's own listing command.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Runs a listing command (`just --dump …`) for detection. `runners` only declares it; the
/// runtime implements it with its process runner, tests with whatever they need.
pub trait Probe: Sync {
    /// Runs `argv` in `cwd` within `timeout`; gives its stdout when it exits 0, else why not
    /// (exit code and stderr, timeout, could not start).
    fn run(&self, argv: &[&str], cwd: &Path, timeout: Duration) -> Result<Vec<u8>, String>;
}

/// The executable `name` would start from `PATH`, as a shell would find it.
pub fn find_on_path(name: &str, path_var: Option<&OsStr>) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    std::env::split_paths(path_var?)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(name))
        .find(|candidate| {
            std::fs::metadata(candidate)
                .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
        })
}
