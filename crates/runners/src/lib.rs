//! Detection of a project's task runners — just, package.json scripts, cargo, make,
//! go-task, Python's own tools (pytest or unittest, poe, pdm, hatch), tox, nox, go, the
//! scripts of a `scripts/` folder, mise, deno, composer and pixi — and of their tasks.
//!
//! Each runner is one file (or one folder, for the four that interpret their tool's
//! language: make, python, tox, nox) with one `detect` function; [`RUNNERS`] registers them. Parsers
//! are pure functions over text; only the `detect` functions read files and run probes.

#![forbid(unsafe_code)]

// The foundation's files and quoting, under the names this crate's modules use.
use speccoder_foundation::{files, quote};

mod cargo;
mod composer;
mod deno;
mod detection;
mod go;
mod just;
mod make;
mod mise;
mod nox;
mod parse_error;
mod pixi;
mod pkg;
mod probe;
mod python;
mod runner;
mod scripts;
mod subprojects;
mod task;
mod tox;
mod yaml_tree;

pub use detection::{
    Absence, Arguments, Cache, CacheDefault, Context, Detection, FolderOption, Inputs, RunnerDef,
    Words, detect_all, detect_all_with_inputs,
};
pub use parse_error::{ListingError, ManifestError};
pub use probe::{Probe, ProbeError, find_on_path};
pub use runner::{Asides, Repeats, Runner, TailRule, Task, TaskIndex, aliases};

/// The places mise reads, as [`RUNNERS`]' mise runner reads them: the one list the audit
/// freezes too.
pub mod mise_files {
    pub use crate::mise::{CONF_D, CONFIGS, TASK_DIRS};
}

/// Every runner, in the default probe order. Adding a runner: one file (or folder) beside
/// this one with a `pub(crate) const RUNNER: RunnerDef`, and one line here.
pub const RUNNERS: &[RunnerDef] = &[
    just::RUNNER,
    pkg::RUNNER,
    cargo::RUNNER,
    make::RUNNER,
    task::RUNNER,
    python::RUNNER,
    tox::RUNNER,
    nox::RUNNER,
    go::RUNNER,
    scripts::RUNNER,
    mise::RUNNER,
    deno::RUNNER,
    composer::RUNNER,
    pixi::RUNNER,
];

/// The runner ids, in the default probe order (read from [`RUNNERS`]).
pub const RUNNER_IDS: &[&str] = &{
    let mut ids = [""; RUNNERS.len()];
    let mut i = 0;
    while i < RUNNERS.len() {
        ids[i] = RUNNERS[i].id;
        i += 1;
    }
    ids
};

/// The parsers, for tests and fuzzing from outside the crate.
pub mod parse {
    pub use crate::cargo::parse_metadata as cargo_metadata;
    pub use crate::composer::parse_manifest as composer_json;
    pub use crate::deno::parse_config as deno_config;
    pub use crate::go::{parse_header as go_file_header, parse_modfile as go_modfile};
    pub use crate::just::parse_dump as just_dump;
    pub use crate::make::parse_makefile as makefile;
    #[doc(hidden)]
    pub use crate::make::stage_timings as makefile_stage_timings;
    pub use crate::mise::parse_headers as mise_file_task_headers;
    pub use crate::pkg::{
        parse_manifest as package_json, parse_member as workspace_package_json,
        parse_pnpm_workspace as pnpm_workspace,
    };
    pub use crate::task::parse_list as task_list;
}

/// Makes a FIFO at `path` for a test, with the `mkfifo` command (as the foundation's own
/// tests do).
#[cfg(test)]
pub(crate) fn make_fifo(path: &std::path::Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo");
    assert!(made.success(), "mkfifo {}", path.display());
}

/// Insta settings that keep this crate's snapshots in the top-level `snapshots/` folder.
#[cfg(test)]
pub(crate) fn snapshot_settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../snapshots/runners"
    ));
    settings
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    #[test]
    fn runner_ids_come_from_the_table() {
        let ids: Vec<&str> = RUNNERS.iter().map(|r| r.id).collect();
        assert_eq!(ids, RUNNER_IDS);
        for def in RUNNERS {
            assert_eq!(RunnerDef::of(def.id).map(|d| d.label), Some(def.label));
        }
    }

    /// Everything runner-specific lives in the runner's own file (`crates/runners/src/<id>.rs`)
    /// or, for a runner that is an interpreter, its own folder (`crates/runners/src/<id>/`,
    /// every file in it): no other source file branches on a runner id (`== "just"`,
    /// `"cargo" =>`, `Some("make")`). Test modules (from `#[cfg(test)]` on) and this file's
    /// table are left out.
    #[test]
    fn no_file_outside_a_runner_branches_on_its_id() {
        let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut files = Vec::new();
        for entry in std::fs::read_dir(workspace.join("crates"))
            .expect("crates")
            .flatten()
        {
            if entry.path().join("src").is_dir() {
                collect_rs(&entry.path().join("src"), &mut files);
            }
        }
        assert!(files.len() > 20, "found {} files", files.len());
        let src = workspace.join("crates/runners/src");
        let mut own = Vec::new();
        for id in RUNNER_IDS {
            let file = src.join(format!("{id}.rs"));
            let folder = src.join(id);
            assert!(
                file.is_file() || folder.join("mod.rs").is_file(),
                "runner `{id}`: neither {} nor {} is there",
                file.display(),
                folder.join("mod.rs").display()
            );
            if file.is_file() {
                own.push(file.canonicalize().expect("canonical"));
            }
            if folder.is_dir() {
                collect_rs(&folder, &mut own);
            }
        }
        let mut found = Vec::new();
        for file in &files {
            if own.contains(file) || file.ends_with("crates/runners/src/lib.rs") {
                continue;
            }
            let text = std::fs::read_to_string(file).expect("read");
            // A line may say it names something else (the `go` file extension).
            let code: String = text
                .split("#[cfg(test)]")
                .next()
                .unwrap_or("")
                .lines()
                .filter(|line| !line.ends_with("// not a runner id"))
                .collect::<Vec<_>>()
                .join("\n");
            for id in RUNNER_IDS {
                let quoted = format!("\"{id}\"");
                for shape in [
                    format!("== {quoted}"),
                    format!("!= {quoted}"),
                    format!("{quoted} =>"),
                    format!("{quoted} |"),
                    format!("| {quoted}"),
                    format!("Some({quoted})"),
                    format!("({quoted},"),
                ] {
                    if code.contains(&shape) {
                        found.push(format!("{}: {shape}", file.display()));
                    }
                }
            }
        }
        assert!(
            found.is_empty(),
            "runner ids outside their runner: {found:#?}"
        );
    }

    fn collect_rs(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("read dir").flatten() {
            let path = entry.path();
            if path.is_dir() {
                collect_rs(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path.canonicalize().expect("canonical"));
            }
        }
    }
}
