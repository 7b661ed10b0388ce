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

    /// Like [`Probe::run`] with `env` added to the command's environment. A probe that
    /// cannot set variables refuses rather than run the command without them: they are
    /// what keeps the project from choosing the program (`RUSTUP_TOOLCHAIN`).
    fn run_with_env(
        &self,
        argv: &[&str],
        env: &[(&str, &str)],
        cwd: &Path,
        timeout: Duration,
    ) -> Result<Vec<u8>, String> {
        if env.is_empty() {
            return self.run(argv, cwd, timeout);
        }
        Err(format!(
            "`{}` not run: this probe cannot set its environment",
            argv.join(" ")
        ))
    }
}

/// The executable `name` would start from `PATH`, as a shell would find it, looking only
/// in absolute folders.
pub fn find_on_path(name: &str, path_var: Option<&OsStr>) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    std::env::split_paths(path_var?)
        // A relative folder (`.`, `node_modules/.bin`) is the project's own: a probe runs in
        // the root, where the project would choose the program.
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(name))
        .find(|candidate| {
            std::fs::metadata(candidate)
                .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
        })
}
