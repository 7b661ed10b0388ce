//! `cargo`: cargo's own commands (`test`, `build`, …, per workspace member too) and the
//! binaries, examples, integration tests and benchmarks of `cargo metadata --no-deps`.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::detection::{Absence, Arguments, Cache, CacheDefault, Context, RunnerDef, Words};
use crate::files;
use crate::parse_error::ListingError;
use crate::probe::find_on_path;
use crate::quote::single_quote;
use crate::runner::{Runner, Task};

mod aliases;

pub(crate) const RUNNER: RunnerDef = RunnerDef {
    id: "cargo",
    label: "Cargo",
    executes: "`cargo metadata --no-deps`, with your own rustup toolchain pinned (`RUSTUP_TOOLCHAIN`, else the default in rustup's `settings.toml`, else `rustup default`) and run as that toolchain's own cargo when it is installed, never one a rust-toolchain file of the project names; it runs no build script, rustc or wrapper; refused when a member's `Cargo.toml` or `.cargo/config.toml` is not a regular file (or over 4 MiB)",
    manifests: &["Cargo.toml"],
    detect,
    is_builtin,
    // An alias ending in `--` (`xtask = "run --package xtask --"`) hands every word on to
    // the program; anything else reads its words as cargo's own options up to `--`.
    arguments: |_, task| match aliases::hands_on_every_word(task) {
        true => Arguments::WithArguments,
        false => Arguments::AfterDashDash,
    },
    words: Words::AfterDashDash {
        test_argument: "--nocapture",
    },
    caches: &[Cache {
        // The registry's sources and index, and git dependencies.
        variables: &[("CARGO_HOME", "")],
        default: CacheDefault::Home(".cargo"),
    }],
    // `cargo metadata --no-deps`: ~20 ms of CPU on all-five (perf stat, task-clock).
    probe_cost: 2,
    ..RunnerDef::BASE
};

fn detect(ctx: &Context<'_>) -> Result<Runner, Absence> {
    let manifest = ctx.root.join("Cargo.toml");
    if !files::exists(&manifest) {
        return Err(Absence::Absent("no Cargo.toml in the root".into()));
    }
    ctx.needs_binary("cargo")?;
    ctx.depends_on_file("Cargo.toml");
    files::Root::new(ctx.root)
        .check_manifest(&manifest)
        .and_then(|()| files::check_regular(&manifest, files::MAX_MANIFEST))
        .map_err(|err| Absence::Failed(format!("Cargo.toml: {err}")))?;
    check_read_files(ctx)?;
    let toolchain = pinned_toolchain(ctx)?;
    let mut env = Vec::new();
    if let Some(toolchain) = &toolchain {
        // rustup obeys these before any rust-toolchain file or directory override, and
        // never downloads a toolchain the project names.
        env.push(("RUSTUP_TOOLCHAIN", toolchain.as_str()));
        env.push(("RUSTUP_AUTO_INSTALL", "0"));
    }
    // Never without --no-deps: that resolves dependencies, writes a lockfile and may go to
    // the network.
    // cargo reads its configuration too (`[build]`, `[env]`, paths).
    ctx.depends_on_file(".cargo/config.toml");
    ctx.depends_on_file(".cargo/config");
    // The toolchain's own cargo when rustup has it: the proxy's start is skipped, and it is
    // no proxy, so it obeys no toolchain file either.
    let own_cargo = toolchain.as_deref().and_then(|name| {
        let cargo = toolchain_cargo(&rustup_home(ctx)?, name, &|p| ctx.depends_on(p))?;
        cargo.into_os_string().into_string().ok()
    });
    let cargo = own_cargo.as_deref().unwrap_or("cargo");
    let metadata = ctx
        .probe_with_env(
            &[cargo, "metadata", "--no-deps", "--format-version=1"],
            &env,
        )
        // Said as the user would type it, whichever cargo ran.
        .map_err(|absence| match absence {
            Absence::Failed(reason) if own_cargo.is_some() => {
                Absence::Failed(reason.replacen(cargo, "cargo", 1))
            }
            other => other,
        })
        .inspect_err(|absence| {
            // A failure is cached like a listing: the files cargo names in its error (a
            // member's broken manifest) are what fixing it will change.
            if let Absence::Failed(reason) = absence
                && ctx.records_inputs()
            {
                ctx.depends_on_file("src");
                for path in named_paths(ctx.root, reason)
                    .into_iter()
                    .chain(member_manifests(ctx.root))
                {
                    ctx.depends_on(path);
                }
            }
        })?;
    let canonical_root = ctx.root.canonicalize().ok();
    let mut runner = parse_metadata_in(&metadata, canonical_root.as_deref())
        .map_err(|err| Absence::Failed(format!("Cargo.toml: {err}")))?;
    let chosen_by_project = ["rust-toolchain.toml", "rust-toolchain"]
        .into_iter()
        .find(|name| files::exists(&ctx.root.join(name)));
    if let (Some(toolchain), Some(file)) = (toolchain, chosen_by_project) {
        runner.notes.push(format!(
            "{file} is not used for listing: `cargo metadata` ran with your rustup \
             toolchain `{toolchain}`, so the project cannot choose the cargo that lists it"
        ));
    }
    let value = serde_json::from_slice::<Value>(&metadata).unwrap_or(Value::Null);
    aliases::add(ctx, &mut runner, &member_folders(&value));
    if ctx.records_inputs() {
        for path in metadata_inputs(&value, ctx.root) {
            ctx.depends_on(path);
        }
    }
    Ok(runner)
}

/// The workspace members' names and folders, from `cargo metadata`.
fn member_folders(metadata: &Value) -> Vec<(String, PathBuf)> {
    let members: Vec<&str> = metadata
        .get("workspace_members")
        .and_then(Value::as_array)
        .map(|ids| ids.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    metadata
        .get("packages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|p| {
            p.get("id")
                .and_then(Value::as_str)
                .is_some_and(|id| members.contains(&id))
        })
        .filter_map(|p| {
            let name = p.get("name").and_then(Value::as_str)?;
            let manifest = Path::new(p.get("manifest_path").and_then(Value::as_str)?);
            Some((name.to_owned(), manifest.parent()?.to_path_buf()))
        })
        .collect()
}

/// Refuses the workspace when a file `cargo metadata` will read, and that can be named
/// beforehand, is not a regular file or is over the cap: the root's `.cargo/config.toml`
/// and `.cargo/config`, and each workspace member's `Cargo.toml` (cargo reads a device
/// there for gigabytes, or waits on a FIFO until the deadline on every call).
fn check_read_files(ctx: &Context<'_>) -> Result<(), Absence> {
    let config = [".cargo/config.toml", ".cargo/config"].map(|f| ctx.root.join(f));
    let members = member_manifests(ctx.root)
        .into_iter()
        .filter(|path| path.file_name().is_some_and(|n| n == "Cargo.toml"));
    for path in config.into_iter().chain(members) {
        if !files::exists(&path) {
            continue;
        }
        if let Err(err) = files::check_regular(&path, files::MAX_MANIFEST) {
            if ctx.records_inputs() {
                ctx.depends_on(path.clone());
            }
            return Err(Absence::Failed(format!(
                "Cargo.toml: not listed: it reads {}, which {err}",
                path.strip_prefix(ctx.root).unwrap_or(&path).display()
            )));
        }
    }
    Ok(())
}

/// The toolchain the listing must use when `cargo` on PATH is rustup's proxy: the one in
/// `RUSTUP_TOOLCHAIN` when the user set it, else rustup's default. Without it the proxy
/// would obey the project's `rust-toolchain.toml`, whose `path` can name a `cargo` inside
/// the repository. `None` when `cargo` is not rustup (no toolchain file is obeyed then).
fn pinned_toolchain(ctx: &Context<'_>) -> Result<Option<String>, Absence> {
    let Some(cargo) = find_on_path("cargo", ctx.path_var) else {
        return Ok(None);
    };
    let resolved = cargo.canonicalize().unwrap_or(cargo);
    let named_rustup = resolved
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("rustup"));
    // Older rustup installs its proxies as hard links: the same file as `rustup`.
    let rustup = find_on_path("rustup", ctx.path_var);
    let linked_rustup = rustup
        .as_ref()
        .is_some_and(|rustup| same_file(rustup, &resolved));
    let resolved = match rustup {
        Some(rustup) if linked_rustup => rustup,
        _ if named_rustup => resolved,
        _ => return Ok(None),
    };
    // An input like a file: another toolchain's cargo may list the project differently
    // (a `cargo-features` manifest parses on nightly only).
    if let Some(chosen) = ctx
        .env_var("RUSTUP_TOOLCHAIN")
        .and_then(|t| t.into_string().ok())
        .filter(|t| !t.is_empty())
    {
        return Ok(Some(chosen));
    }
    // rustup's own record of its default, when it names a toolchain that is there: the
    // same answer as `rustup default` without starting rustup.
    if let Some(home) = rustup_home(ctx) {
        ctx.depends_on(home.join("settings.toml"));
        if let Some(name) = settings_default(&home, &|p| ctx.depends_on(p)) {
            return Ok(Some(name));
        }
    }
    let refused = |why: String| {
        Absence::Failed(format!(
            "not listed: `cargo` is rustup's proxy and {why}; without a toolchain of yours, \
             the project's rust-toolchain file would choose the cargo that runs"
        ))
    };
    let rustup = resolved.to_string_lossy();
    // Asked outside the project, so that nothing of it is consulted.
    let out = ctx
        .probe
        .run(
            &[&rustup, "default"],
            std::path::Path::new("/"),
            ctx.probe_timeout,
        )
        .map_err(|err| refused(format!("asking rustup for its default failed ({err})")))?;
    let text = String::from_utf8_lossy(&out);
    let name = text.split_whitespace().next().unwrap_or("");
    if !plausible_toolchain(name) || name == "none" || text.starts_with("no ") {
        return Err(refused(format!(
            "rustup has no default toolchain (`rustup default` said {:?})",
            text.trim()
        )));
    }
    Ok(Some(name.to_owned()))
}

/// Whether `name` can be a toolchain's name (and a folder name that stays where it is).
fn plausible_toolchain(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'))
}

/// rustup's folder: `RUSTUP_HOME` when set to an absolute path, else `~/.rustup`.
fn rustup_home(ctx: &Context<'_>) -> Option<PathBuf> {
    let var = |name| {
        ctx.env_var(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    var("RUSTUP_HOME").or_else(|| var("HOME").map(|home| home.join(".rustup")))
}

/// The most bytes read from rustup's `settings.toml` (a few hundred in practice).
const MAX_SETTINGS: u64 = 1 << 20;

/// The default toolchain `settings.toml` in rustup's folder names, when that toolchain is
/// installed under its full name (a short `stable` is left to `rustup default`, which
/// knows the host it stands for).
fn settings_default(home: &Path, note: &dyn Fn(&Path)) -> Option<String> {
    let bytes = files::read_limited(&home.join("settings.toml"), MAX_SETTINGS).ok()?;
    let settings: toml::Table = toml::from_str(std::str::from_utf8(&bytes).ok()?).ok()?;
    let name = settings.get("default_toolchain")?.as_str()?;
    toolchain_cargo(home, name, note).map(|_| name.to_owned())
}

/// The `cargo` of the toolchain `name` in rustup's folder `home`, when it is an executable
/// file there (through a link too: `rustup toolchain link` makes one). The path looked at
/// goes to `note`, found or not: installing or removing the toolchain changes which cargo
/// lists, or whether one can.
fn toolchain_cargo(home: &Path, name: &str, note: &dyn Fn(&Path)) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    if !plausible_toolchain(name) {
        return None;
    }
    let cargo = home.join("toolchains").join(name).join("bin").join("cargo");
    note(&cargo);
    let meta = std::fs::metadata(&cargo).ok()?;
    (meta.is_file() && meta.permissions().mode() & 0o111 != 0).then_some(cargo)
}

/// The paths an error names, with their folders: absolute ones quoted in backticks
/// (`` failed to read `/p/a/Cargo.toml` ``) and the file of a `--> crates/a/Cargo.toml:5:7`
/// pointer, relative to the root.
fn named_paths(root: &std::path::Path, reason: &str) -> Vec<std::path::PathBuf> {
    let quoted = reason
        .split('`')
        .skip(1)
        .step_by(2)
        .map(std::path::PathBuf::from)
        .filter(|p| p.is_absolute());
    let pointed = reason.split("--> ").skip(1).filter_map(|rest| {
        let file = rest.split([':', ' ', '|']).next()?;
        (!file.is_empty()).then(|| root.join(file))
    });
    let mut out = Vec::new();
    for path in quoted.chain(pointed) {
        if let Some(dir) = path.parent() {
            out.push(dir.to_path_buf());
        }
        out.push(path);
    }
    out
}

/// The workspace members' manifests and folders, from the root Cargo.toml's
/// `[workspace] members` globs, and the folders those globs look in (a new member appears
/// there): what a failed `cargo metadata` may have read.
fn member_manifests(root: &std::path::Path) -> Vec<std::path::PathBuf> {
    let Ok(bytes) = files::read_inside(root, &root.join("Cargo.toml"), files::MAX_MANIFEST) else {
        return Vec::new();
    };
    let Ok(manifest) = toml::from_slice::<toml::Table>(&bytes) else {
        return Vec::new();
    };
    let patterns = manifest
        .get("workspace")
        .and_then(|w| w.get("members"))
        .and_then(toml::Value::as_array)
        .map(|m| m.iter().filter_map(toml::Value::as_str).collect::<Vec<_>>())
        .unwrap_or_default();
    let mut out = Vec::new();
    // A bound: a manifest is untrusted, and this only sharpens the cache.
    for pattern in patterns.into_iter().take(1000) {
        if pattern.starts_with('/') || pattern.split('/').any(|c| c == "..") {
            continue;
        }
        // Expanded one component at a time; each folder listed is an input too.
        let mut dirs = vec![root.to_path_buf()];
        for component in pattern.split('/').filter(|c| !c.is_empty() && *c != ".") {
            let Ok(matcher) = globset::Glob::new(component).map(|g| g.compile_matcher()) else {
                dirs.clear();
                break;
            };
            let mut next = Vec::new();
            for dir in dirs {
                if !component.contains(['*', '?', '[', '{']) {
                    next.push(dir.join(component));
                    continue;
                }
                out.push(dir.clone());
                let Ok(entries) = std::fs::read_dir(&dir) else {
                    continue;
                };
                // A symlinked folder counts: cargo's glob follows it.
                next.extend(
                    entries
                        .flatten()
                        .filter(|e| matcher.is_match(e.file_name()))
                        .filter(|e| e.path().is_dir())
                        .map(|e| e.path()),
                );
            }
            next.truncate(10_000);
            dirs = next;
        }
        for dir in dirs {
            out.push(dir.join("Cargo.toml"));
            // A package without targets fails until its `src/main.rs` or `lib.rs` appears.
            out.push(dir.join("src"));
            out.push(dir);
        }
    }
    out
}

/// Whether two paths are the same file (device and inode).
fn same_file(a: &std::path::Path, b: &std::path::Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// What cargo read to list the targets: every manifest and target source, the folders it
/// scans for targets it finds by itself, and the folders workspace members sit in.
fn metadata_inputs(metadata: &Value, root: &std::path::Path) -> Vec<std::path::PathBuf> {
    // cargo looks for the workspace of a package that is not one itself in every folder
    // above it: a `Cargo.toml` made in any of them takes the package in or refuses it. Those
    // files are the inputs, not the folders above, which change whenever anything is made
    // beside the project.
    let workspace = metadata
        .get("workspace_root")
        .and_then(Value::as_str)
        .map_or(root, std::path::Path::new);
    let mut out: Vec<std::path::PathBuf> = root
        .ancestors()
        .skip(1)
        .chain(workspace.ancestors().skip(1))
        .map(|folder| folder.join("Cargo.toml"))
        .collect();
    let packages = metadata.get("packages").and_then(Value::as_array);
    for package in packages.into_iter().flatten() {
        let Some(manifest) = package.get("manifest_path").and_then(Value::as_str) else {
            continue;
        };
        let manifest = std::path::Path::new(manifest);
        out.push(manifest.to_path_buf());
        if let Some(dir) = manifest.parent() {
            for sub in ["", "src", "src/bin", "examples", "tests", "benches"] {
                out.push(dir.join(sub));
            }
            // cargo also finds `src/bin/NAME/main.rs` and `examples/NAME/main.rs`: a file
            // appearing in a folder that already exists changes only that folder.
            for sub in ["src/bin", "examples", "tests", "benches"] {
                let Ok(entries) = std::fs::read_dir(dir.join(sub)) else {
                    continue;
                };
                out.extend(
                    entries
                        .flatten()
                        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                        .map(|e| e.path()),
                );
            }
            // A member's folder beside others (`crates/*`): a new one there may be a new
            // member. The folders above the workspace are covered by their `Cargo.toml`.
            if let Some(parent) = dir.parent()
                && !(workspace.starts_with(parent) && parent != workspace)
            {
                out.push(parent.to_path_buf());
            }
        }
        let targets = package.get("targets").and_then(Value::as_array);
        for target in targets.into_iter().flatten() {
            if let Some(src) = target.get("src_path").and_then(Value::as_str) {
                out.push(src.into());
            }
        }
    }
    out
}

/// The kinds of target that become tasks, in the order a target's kinds are tried.
const KINDS: &[&str] = &["bin", "example", "test", "bench"];

/// cargo's own commands offered as tasks, so a cargo-only project has `test`; each with
/// what it does.
const COMMANDS: &[(&str, &str)] = &[
    ("test", "run the tests"),
    ("build", "compile"),
    ("check", "check for errors without building"),
    ("clippy", "lint with clippy"),
    ("bench", "run the benchmarks"),
    ("doc", "build the documentation"),
    ("fmt", "format the code"),
];

/// Whether `task` is one of cargo's own commands rather than a target of the project: a
/// task of that name in another runner is what the project's authors meant, so it wins.
fn is_builtin(task: &Task) -> bool {
    let (package, verb) = match task.name.rsplit_once('/') {
        Some((package, verb)) => (Some(package), verb),
        None => (None, task.name.as_str()),
    };
    if !COMMANDS.iter().any(|(v, _)| *v == verb) {
        return false;
    }
    match package {
        None => {
            task.command == format!("cargo {verb}")
                || task.command == format!("cargo {verb} {}", whole_workspace(verb))
        }
        Some(package) => {
            task.command == format!("cargo {verb} --package {}", single_quote(package))
        }
    }
}

/// The option that makes cargo's own command `verb` take every workspace member.
fn whole_workspace(verb: &str) -> &'static str {
    match verb {
        "fmt" => "--all",
        _ => "--workspace",
    }
}

/// cargo's own commands; with `workspace`, each for every member (`cargo test
/// --workspace`), for a workspace whose plain commands take only its default members (or
/// only its root package).
fn builtin_tasks(runner: &mut Runner, workspace: bool) {
    for (verb, what) in COMMANDS {
        runner.push_task(Task {
            name: (*verb).to_owned(),
            command: match workspace {
                true => format!("cargo {verb} {}", whole_workspace(verb)),
                false => format!("cargo {verb}"),
            },
            doc: Some(match workspace {
                true => format!("{what}, every workspace member (cargo's own command)"),
                false => format!("{what} (cargo's own command)"),
            }),
            params: Vec::new(),
            cwd: None,
        });
    }
}

/// With several packages, the `--package` forms of cargo's own commands.
fn package_builtin_tasks(runner: &mut Runner, packages: &[&str]) {
    if packages.len() < 2 {
        return;
    }
    for package in packages {
        for (verb, what) in COMMANDS {
            runner.push_task(Task {
                name: format!("{package}/{verb}"),
                command: format!("cargo {verb} --package {}", single_quote(package)),
                doc: Some(format!("{what} (package {package})")),
                params: Vec::new(),
                cwd: None,
            });
        }
    }
}

/// Tasks from the JSON of `cargo metadata --no-deps --format-version=1`, listed from the
/// workspace's root.
pub fn parse_metadata(json: &[u8]) -> Result<Runner, ListingError> {
    parse_metadata_in(json, None)
}

/// [`parse_metadata`] for a project whose root is `root`: the workspace commands say
/// `--workspace` only when that is the workspace's root (in a member's folder, cargo's
/// plain commands take that member, which is the project then).
#[expect(
    clippy::too_many_lines,
    reason = "over 80 lines when the limit was set; split it when it next changes"
)]
fn parse_metadata_in(json: &[u8], root: Option<&Path>) -> Result<Runner, ListingError> {
    const METADATA: &str = "`cargo metadata`";
    let metadata: Value = serde_json::from_slice(json).map_err(|err| ListingError::NotJson {
        command: METADATA,
        detail: err.to_string(),
    })?;
    let packages =
        metadata
            .get("packages")
            .and_then(Value::as_array)
            .ok_or(ListingError::NoField {
                command: METADATA,
                field: "packages",
                shape: "array",
                hint: None,
            })?;
    let members: Vec<&str> = metadata
        .get("workspace_members")
        .and_then(Value::as_array)
        .map(|ids| ids.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let packages: Vec<&Value> = packages
        .iter()
        .filter(|p| {
            members.is_empty()
                || p.get("id")
                    .and_then(Value::as_str)
                    .is_some_and(|id| members.contains(&id))
        })
        .collect();
    let several = packages.len() > 1;
    let mut runner = Runner::new("cargo", "Cargo", "cargo");
    let names: Vec<&str> = packages
        .iter()
        .filter_map(|p| p.get("name").and_then(Value::as_str))
        .collect();
    // The workspace commands first, then the targets, then the per-package commands: the
    // prompt shows the first tasks of a runner.
    // cargo's plain commands take the default members only (`default-members`, else the
    // root package when there is one): the docs of such a workspace say `--workspace`.
    let defaults = metadata
        .get("workspace_default_members")
        .and_then(Value::as_array)
        .map_or(usize::MAX, Vec::len);
    let at_workspace_root = root.is_none_or(|root| {
        metadata
            .get("workspace_root")
            .and_then(Value::as_str)
            .is_some_and(|w| Path::new(w) == root)
    });
    builtin_tasks(
        &mut runner,
        several && at_workspace_root && defaults < packages.len(),
    );
    for package in packages {
        let Some(pkg) = package.get("name").and_then(Value::as_str) else {
            continue;
        };
        let targets = package.get("targets").and_then(Value::as_array);
        for target in targets.into_iter().flatten() {
            let Some(target_name) = target.get("name").and_then(Value::as_str) else {
                continue;
            };
            let kinds: Vec<&str> = target
                .get("kind")
                .and_then(Value::as_array)
                .map(|k| k.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let Some(kind) = KINDS.iter().find(|k| kinds.contains(k)) else {
                continue;
            };
            let mut command = match *kind {
                "test" | "bench" => format!(
                    "cargo {kind} --package {} --{kind} {}",
                    single_quote(pkg),
                    single_quote(target_name)
                ),
                _ => format!(
                    "cargo run --package {} --{kind} {}",
                    single_quote(pkg),
                    single_quote(target_name)
                ),
            };
            let features: Vec<&str> = target
                .get("required-features")
                .and_then(Value::as_array)
                .map(|f| f.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            // Spaces, not commas, between features: cargo takes both, and a comma would
            // keep the command from becoming an allowance.
            if !features.is_empty() {
                command.push_str(&format!(
                    " --features {}",
                    single_quote(&features.join(" "))
                ));
            }
            let name = if several {
                format!("{pkg}/{kind}/{target_name}")
            } else {
                format!("{kind}/{target_name}")
            };
            runner.push_task(Task {
                name,
                command,
                doc: Some(format!("{pkg} {kind} target {target_name}")),
                params: Vec::new(),
                cwd: None,
            });
        }
    }
    package_builtin_tasks(&mut runner, &names);
    Ok(runner)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Property: rustup's recorded default is used only when it names a toolchain whose own
    /// cargo is an executable file there; anything else (a short name, a name that leaves
    /// the folder, a missing or plain file, a settings file that is a FIFO) leaves the
    /// answer to `rustup default`.
    #[test]
    fn the_default_toolchain_is_read_from_rustups_settings_only_when_it_is_there() {
        use std::os::unix::fs::PermissionsExt;
        let home = tempfile::tempdir().expect("temp dir");
        let home = home.path();
        let install = |name: &str, mode: u32| {
            let bin = home.join("toolchains").join(name).join("bin");
            std::fs::create_dir_all(&bin).expect("bin");
            std::fs::write(bin.join("cargo"), "#!/bin/sh\n").expect("cargo");
            std::fs::set_permissions(bin.join("cargo"), std::fs::Permissions::from_mode(mode))
                .expect("mode");
        };
        let settings = |name: &str| {
            std::fs::write(
                home.join("settings.toml"),
                format!("version = \"12\"\ndefault_toolchain = \"{name}\"\n"),
            )
            .expect("settings");
        };
        install("stable-x86_64-unknown-linux-gnu", 0o755);
        install("plain", 0o644);
        settings("stable-x86_64-unknown-linux-gnu");
        assert_eq!(
            settings_default(home, &|_| {}).as_deref(),
            Some("stable-x86_64-unknown-linux-gnu")
        );
        assert_eq!(
            toolchain_cargo(home, "stable-x86_64-unknown-linux-gnu", &|_| {}),
            Some(home.join("toolchains/stable-x86_64-unknown-linux-gnu/bin/cargo"))
        );
        for name in [
            "stable",
            "plain",
            "../toolchains/plain",
            "..",
            ".hidden",
            "a b",
            "",
        ] {
            settings(name);
            assert_eq!(settings_default(home, &|_| {}), None, "{name:?}");
            assert_eq!(toolchain_cargo(home, name, &|_| {}), None, "{name:?}");
        }
        std::fs::write(home.join("settings.toml"), "default_toolchain = [1]\n").expect("w");
        assert_eq!(settings_default(home, &|_| {}), None);
        std::fs::remove_file(home.join("settings.toml")).expect("rm");
        crate::make_fifo(&home.join("settings.toml"));
        assert_eq!(settings_default(home, &|_| {}), None);
    }

    #[test]
    fn recorded_metadata() {
        let json = include_bytes!("../../tests/samples/cargo-metadata.json");
        let runner = parse_metadata(json).expect("valid");
        let got: Vec<(&str, &str)> = runner
            .tasks
            .iter()
            .map(|t| (t.name.as_str(), t.command.as_str()))
            .collect();
        crate::snapshot_settings().bind(|| insta::assert_debug_snapshot!(got));
    }

    #[test]
    fn required_features_and_several_packages() {
        let json = br#"{"packages":[
            {"name":"a","id":"a-id","targets":[{"name":"srv","kind":["bin"],"required-features":["x","y"]},
                                               {"name":"a","kind":["lib"]}]},
            {"name":"b","id":"b-id","targets":[{"name":"it","kind":["test"]},{"name":"demo","kind":["example"]}]},
            {"name":"dep","id":"dep-id","targets":[{"name":"dep","kind":["bin"]}]}],
            "workspace_members":["a-id","b-id"]}"#;
        let runner = parse_metadata(json).expect("valid");
        // cargo's own commands: for the workspace first, for each member after the targets.
        let builtins: Vec<&str> = runner
            .tasks
            .iter()
            .filter(|t| runner.is_builtin(t))
            .map(|t| t.name.as_str())
            .collect();
        assert_eq!(
            builtins,
            [
                "test", "build", "check", "clippy", "bench", "doc", "fmt", "a/test", "a/build",
                "a/check", "a/clippy", "a/bench", "a/doc", "a/fmt", "b/test", "b/build", "b/check",
                "b/clippy", "b/bench", "b/doc", "b/fmt",
            ]
        );
        assert_eq!(runner.tasks[11].command, "cargo build --package 'a'");
        assert_eq!(runner.tasks[11].doc.as_deref(), Some("compile (package a)"));
        let got: Vec<(&str, &str, Option<&str>)> = runner
            .tasks
            .iter()
            .filter(|t| !runner.is_builtin(t))
            .map(|t| (t.name.as_str(), t.command.as_str(), t.doc.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                (
                    "a/bin/srv",
                    "cargo run --package 'a' --bin 'srv' --features 'x y'",
                    Some("a bin target srv")
                ),
                (
                    "b/test/it",
                    "cargo test --package 'b' --test 'it'",
                    Some("b test target it")
                ),
                (
                    "b/example/demo",
                    "cargo run --package 'b' --example 'demo'",
                    Some("b example target demo")
                ),
            ]
        );
    }

    /// Property: when cargo's plain commands take fewer packages than the workspace has
    /// (`default-members`, or a root package beside members), the workspace commands say
    /// `--workspace` (`--all` for fmt) and stay cargo's own; otherwise they are plain.
    #[test]
    fn default_members_make_the_workspace_commands_say_workspace() {
        let metadata = |defaults: &str| {
            format!(
                r#"{{"packages":[{{"name":"a","id":"a-id","targets":[]}},{{"name":"b","id":"b-id","targets":[]}}],
                "workspace_members":["a-id","b-id"],"workspace_default_members":{defaults}}}"#
            )
        };
        let commands = |defaults: &str| {
            let runner = parse_metadata(metadata(defaults).as_bytes()).expect("valid");
            assert!(runner.tasks.iter().all(|t| runner.is_builtin(t)));
            runner
                .tasks
                .iter()
                .filter(|t| !t.name.contains('/'))
                .map(|t| t.command.clone())
                .collect::<Vec<_>>()
        };
        let narrowed = commands(r#"["a-id"]"#);
        assert_eq!(narrowed[0], "cargo test --workspace");
        assert_eq!(narrowed[6], "cargo fmt --all");
        assert_eq!(commands(r#"["a-id","b-id"]"#)[0], "cargo test");
        // An older cargo without the field: plain commands, as before.
        assert_eq!(commands("null")[0], "cargo test");
    }

    #[test]
    fn builtins_are_only_cargo_commands() {
        #[track_caller]
        fn case(name: &str, command: &str, want: bool) {
            let task = Task {
                name: name.into(),
                command: command.into(),
                doc: None,
                params: Vec::new(),
                cwd: None,
            };
            assert_eq!(is_builtin(&task), want, "{name}: {command}");
        }
        case("test", "cargo test", true);
        case("core/test", "cargo test --package 'core'", true);
        case("test/it", "cargo test --package 'x' --test 'it'", false);
        case(
            "bench/throughput",
            "cargo bench --package 'p' --bench 'throughput'",
            false,
        );
        case("core/test", "cargo test --package 'other'", false);
        case("run", "cargo run", false);
    }

    /// Property: the files a cargo error names, absolute in backticks or relative after
    /// `-->`, become inputs with their folders.
    #[test]
    fn paths_named_by_errors() {
        let root = std::path::Path::new("/r");
        let got = named_paths(
            root,
            "`cargo metadata` exited with code 101: error: failed to read `/r/b/Cargo.toml` | \
             error: extra `=` | --> crates/a/Cargo.toml:5:7 | x",
        );
        let want: Vec<std::path::PathBuf> = [
            "/r/b",
            "/r/b/Cargo.toml",
            "/r/crates/a",
            "/r/crates/a/Cargo.toml",
        ]
        .iter()
        .map(std::path::PathBuf::from)
        .collect();
        assert_eq!(got, want);
    }
}
