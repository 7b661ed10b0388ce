//! cargo's `[alias]` tables as tasks (`cargo xtask`, `cargo lint`): read as text from the
//! `.cargo/config.toml` (or `.cargo/config`) of the root and of each workspace member's
//! folder, never run.
//!
//! cargo looks for configuration from the working directory upward and then in
//! `$CARGO_HOME/config.toml`. The folders above the project root and `CARGO_HOME` are the
//! user's, not the project's: their aliases are not listed (a clone elsewhere would not
//! have them). A member's own aliases run in its folder, where cargo finds them.

use std::path::{Path, PathBuf};

use crate::detection::Context;
use crate::files;
use crate::quote::quote;
use crate::runner::{Runner, Task};

/// cargo's own commands and their short forms (cargo 1.95): cargo ignores an alias of one
/// of these names, with a warning, so such an alias is no task.
const SHADOWED: &[&str] = &[
    "add",
    "b",
    "bench",
    "build",
    "c",
    "check",
    "clean",
    "clippy",
    "config",
    "d",
    "doc",
    "fetch",
    "fix",
    "fmt",
    "generate-lockfile",
    "git-checkout",
    "help",
    "info",
    "init",
    "install",
    "locate-project",
    "login",
    "logout",
    "metadata",
    "new",
    "owner",
    "package",
    "pkgid",
    "publish",
    "r",
    "read-manifest",
    "remove",
    "report",
    "rm",
    "run",
    "rustc",
    "rustdoc",
    "search",
    "t",
    "test",
    "tree",
    "uninstall",
    "update",
    "vendor",
    "verify-project",
    "version",
    "yank",
];

/// The most aliases taken from one file: a config is untrusted, and real ones hold a few.
const MAX_ALIASES: usize = 200;

/// The longest expansion shown, in bytes.
const MAX_EXPANSION: usize = 500;

/// How an alias task's doc begins; the expansion follows, closed by a backtick.
const DOC_OPEN: &str = "cargo alias for `cargo ";

/// One alias: its name and what cargo puts in its place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Alias {
    pub(super) name: String,
    pub(super) expansion: String,
}

/// The config file cargo reads in `dir`: `.cargo/config` when it exists (cargo prefers it
/// to `.cargo/config.toml` and warns when both are there), else `.cargo/config.toml`.
pub(super) fn config_file(dir: &Path) -> PathBuf {
    let bare = dir.join(".cargo/config");
    if files::exists(&bare) {
        bare
    } else {
        dir.join(".cargo/config.toml")
    }
}

/// The aliases of a config file's text, in the file's order, and notes on those left out
/// (a shadowed name, a value cargo would refuse, a name an op cannot take).
pub(super) fn parse(text: &str) -> Result<(Vec<Alias>, Vec<String>), String> {
    let table: toml::Table = toml::from_str(text).map_err(|err| err.message().to_owned())?;
    let Some(aliases) = table.get("alias").and_then(toml::Value::as_table) else {
        return Ok((Vec::new(), Vec::new()));
    };
    let mut out = Vec::new();
    let mut notes = Vec::new();
    for (name, value) in aliases {
        if out.len() == MAX_ALIASES {
            notes.push(format!(
                "only the first {MAX_ALIASES} cargo aliases of a file are listed"
            ));
            break;
        }
        let words: Option<Vec<String>> = match value {
            toml::Value::String(s) => Some(s.split_whitespace().map(str::to_owned).collect()),
            toml::Value::Array(items) => items.iter().map(|i| i.as_str().map(quote)).collect(),
            _ => None,
        };
        let why = match &words {
            _ if SHADOWED.contains(&name.as_str()) => {
                Some("cargo's own command of that name wins over it")
            }
            _ if name.starts_with('-') || name.contains(['/', ':']) => Some("an op cannot name it"),
            None => Some("its value is neither a string nor a list of strings"),
            Some(words) if words.is_empty() => Some("it is empty"),
            Some(words)
                if words
                    .iter()
                    .any(|w| w.contains('`') || w.chars().any(char::is_control)) =>
            {
                Some("its expansion holds a backtick or a control character")
            }
            Some(_) => None,
        };
        if let Some(why) = why {
            notes.push(format!("cargo alias `{name}` is left out: {why}"));
            continue;
        }
        let mut expansion = words.unwrap_or_default().join(" ");
        if expansion.len() > MAX_EXPANSION {
            let mut end = MAX_EXPANSION;
            while !expansion.is_char_boundary(end) {
                end -= 1;
            }
            expansion.truncate(end);
            expansion.push('…');
        }
        out.push(Alias {
            name: name.clone(),
            expansion,
        });
    }
    Ok((out, notes))
}

/// The task of one alias: `cargo NAME`, named `prefix/NAME` for a member's, in `cwd`.
fn task(alias: &Alias, prefix: Option<&str>, cwd: Option<&str>) -> Task {
    Task {
        name: match prefix {
            Some(prefix) => format!("{prefix}/{}", alias.name),
            None => alias.name.clone(),
        },
        command: format!("cargo {}", quote(&alias.name)),
        doc: Some(format!("{DOC_OPEN}{}`", alias.expansion)),
        params: Vec::new(),
        cwd: cwd.map(str::to_owned),
    }
}

/// Whether `task` is an alias whose expansion ends with `--`, so that every word after its
/// name goes to the program cargo runs (`cargo xtask tidy` is `cargo run --package xtask
/// -- tidy`) and none is read by cargo.
pub(super) fn hands_on_every_word(task: &Task) -> bool {
    task.doc
        .as_deref()
        .and_then(|doc| doc.strip_prefix(DOC_OPEN))
        .is_some_and(|rest| rest.ends_with(" --`") && !rest[..rest.len() - 1].contains('`'))
}

/// The aliases of the config file in `dir`; the file is noted as an input, and a file that
/// is not a regular file inside the root, is over the cap or is not TOML is left out with a
/// note.
fn read_dir_aliases(
    ctx: &Context<'_>,
    inside: &files::Root,
    dir: &Path,
    notes: &mut Vec<String>,
) -> Vec<Alias> {
    ctx.depends_on(dir.join(".cargo/config"));
    ctx.depends_on(dir.join(".cargo/config.toml"));
    let file = config_file(dir);
    if !files::exists(&file) {
        return Vec::new();
    }
    let shown = file.strip_prefix(ctx.root).unwrap_or(&file).display();
    let parsed = inside
        .read(&file, files::MAX_MANIFEST)
        .map_err(|err| err.to_string())
        .and_then(|bytes| parse(&String::from_utf8_lossy(&bytes)));
    match parsed {
        Ok((aliases, left_out)) => {
            notes.extend(left_out.into_iter().map(|note| format!("{shown}: {note}")));
            aliases
        }
        Err(err) => {
            notes.push(format!("{shown}: its aliases are not listed: {err}"));
            Vec::new()
        }
    }
}

/// Adds the aliases of the root's config (after cargo's own commands) and of each member
/// folder's own config (`<package>/<alias>`, run in that folder). `members` are the
/// workspace members' names and folders.
pub(super) fn add(ctx: &Context<'_>, runner: &mut Runner, members: &[(String, PathBuf)]) {
    let inside = files::Root::new(ctx.root);
    let mut notes = Vec::new();
    let mut tasks: Vec<Task> = read_dir_aliases(ctx, &inside, ctx.root, &mut notes)
        .iter()
        .map(|alias| task(alias, None, None))
        .collect();
    for (package, dir) in members {
        let Ok(relative) = dir.strip_prefix(ctx.root) else {
            continue;
        };
        if relative.as_os_str().is_empty() {
            continue;
        }
        let cwd = relative.to_string_lossy();
        tasks.extend(
            read_dir_aliases(ctx, &inside, dir, &mut notes)
                .iter()
                .map(|alias| task(alias, Some(package), Some(&cwd))),
        );
    }
    runner.notes.append(&mut notes);
    if tasks.is_empty() {
        return;
    }
    // After cargo's own commands, before the targets: the prompt shows a runner's first
    // tasks, and a project's aliases are what its docs name.
    let at = runner
        .tasks
        .iter()
        .position(|t| !super::is_builtin(t) || t.name.contains('/'))
        .unwrap_or(runner.tasks.len());
    let rest = runner.tasks.split_off(at);
    runner.extend_first(tasks, crate::runner::Repeats::Note);
    runner.extend_first(rest, crate::runner::Repeats::Note);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Property: string values split on whitespace as cargo splits them, lists keep each
    /// word (quoted when it needs it), and what cargo ignores or an op cannot name is left
    /// out with a note.
    #[test]
    fn aliases_as_cargo_reads_them() {
        let text = r#"
[build]
rustflags = []
[alias]
xtask = "run --package xtask --"
lint = ["clippy", "--workspace", "--", "-D", "warnings"]
xfmt = ["run", "-p", "fmt tool", "--"]
test = "nextest run"
"-x" = "run"
num = 3
blank = "  "
tick = "run `x`"
"#;
        let (aliases, notes) = parse(text).expect("toml");
        let got: Vec<(&str, &str)> = aliases
            .iter()
            .map(|a| (a.name.as_str(), a.expansion.as_str()))
            .collect();
        // toml keeps a table's keys sorted.
        assert_eq!(
            got,
            [
                ("lint", "clippy --workspace -- -D warnings"),
                ("xfmt", "run -p 'fmt tool' --"),
                ("xtask", "run --package xtask --"),
            ]
        );
        assert_eq!(notes.len(), 5, "{notes:#?}");
        assert!(
            notes
                .iter()
                .any(|n| n.contains("`test`") && n.contains("own command"))
        );
        let xtask = task(&aliases[2], None, None);
        assert_eq!(xtask.command, "cargo xtask");
        assert!(hands_on_every_word(&xtask));
        assert!(!hands_on_every_word(&task(&aliases[0], None, None)));
        let member = task(&aliases[0], Some("core"), Some("crates/core"));
        assert_eq!(member.name, "core/lint");
        assert_eq!(member.cwd.as_deref(), Some("crates/core"));
        assert!(parse("[alias\n").is_err());
        assert_eq!(parse("").expect("empty"), (Vec::new(), Vec::new()));
    }

    /// Property: a flood of aliases is cut at the bound, with a note.
    #[test]
    fn aliases_are_bounded() {
        let text: String = std::iter::once("[alias]\n".to_owned())
            .chain((0..5000).map(|i| format!("a{i} = \"run\"\n")))
            .collect();
        let (aliases, notes) = parse(&text).expect("toml");
        assert_eq!(aliases.len(), MAX_ALIASES);
        assert_eq!(notes.len(), 1);
    }
}
