//! Detection of a project's task runners — just, package.json scripts, cargo, make and
//! go-task — and of their tasks.

/// The runner ids, in the order they are probed by default.
pub const RUNNER_IDS: &[&str] = &["just", "pkg", "cargo", "make", "task"];
