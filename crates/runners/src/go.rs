//! `go`: go's own `test`, `build` and `vet` over every module of the project, and `run/<name>`
//! for each `package main` under `cmd/`, found by reading `go.mod`, `go.work` and the Go
//! files' package clauses as text. go itself is never asked: with a `toolchain` line (or a
//! `go` line newer than the local go), `go list` downloads and runs the toolchain the
//! repository chose.
//!
//! Measured with go 1.27.3:
//! - From a `go.work` root, `go test ./...` tests only the module in `.`: other members are
//!   modules of their own, and `./...` never crosses into them (and fails with "directory
//!   prefix . does not contain modules listed in go.work" when `.` is not a member). Naming
//!   each member, `go test ./... ./tools/...`, covers them all, with any go that has
//!   workspaces (the `work` pattern would too, but only from go 1.25 on). So the built-ins
//!   name every member and no per-member task is needed.
//! - `go run ./cmd/x A B` hands every word after the package to the program unread:
//!   `-v`, `--`, `-exec=/bin/false` and `-toolexec=/bin/false` all reached `os.Args`.
//! - `go test ./... -exec /bin/echo` runs the test binaries through `/bin/echo`, and
//!   `go vet ./... -vettool=/bin/true` runs `/bin/true`: both read their own flags after the
//!   packages. `go build ./... -toolexec x` reads `-toolexec` as a package path (refused),
//!   any other word as a package to build. Their allowances are exact.
//! - go refuses a package folder named `-rf` ("invalid input directory name"), and one
//!   holding a space, a quote or ending in `.` ("malformed import path"); `_x`, `.x`,
//!   `testdata`, `a+b`, `a~b` run.

use std::path::{Component, Path, PathBuf};

use crate::detection::{Absence, Arguments, Cache, CacheDefault, Context, RunnerDef};
use crate::files::{self, MAX_MANIFEST, Root};
use crate::quote::quote_cow;
use crate::runner::{Runner, Task};

pub(crate) const RUNNER: RunnerDef = RunnerDef {
    id: "go",
    label: "Go",
    executes: "nothing: go.mod, go.work and the Go files under cmd/ are read as text, never with `go list`; running a task may download and run the Go toolchain a `toolchain` line (or a `go` line newer than your go) names, unless GOTOOLCHAIN=local, and modules from the module proxy",
    manifests: &["go.mod", "go.work"],
    detect,
    is_builtin,
    arguments: |_, task| {
        if is_builtin(task) {
            Arguments::Exact
        } else {
            // go hands every word after the package to the program (measured above).
            Arguments::WithArguments
        }
    },
    caches: &[
        // The build cache: a cold `go test` writes it.
        Cache {
            variables: &[("GOCACHE", "")],
            default: CacheDefault::UserCache("go-build"),
        },
        Cache {
            variables: &[("GOMODCACHE", ""), ("GOPATH", "pkg/mod")],
            default: CacheDefault::Home("go/pkg/mod"),
        },
    ],
    ..RunnerDef::BASE
};

/// go's own commands offered as tasks, each with what it does.
const COMMANDS: &[(&str, &str)] = &[
    ("test", "run the tests of every package"),
    ("build", "compile every package"),
    ("vet", "report suspicious constructs in every package"),
];

/// The most `use` entries of a go.work that are followed.
const MAX_USES: usize = 1000;

/// The most folders of one `cmd/` folder that are looked at.
const MAX_COMMANDS: usize = 1000;

/// The most Go files of one folder read to find its package clause.
const MAX_FILES_TRIED: usize = 100;

/// The bytes of a Go file read to find its package clause (which comes before any code).
const HEADER_BYTES: u64 = 64 << 10;

/// The longest doc kept from a command's package comment.
const MAX_DOC: usize = 160;

fn detect(ctx: &Context<'_>) -> Result<Runner, Absence> {
    ctx.depends_on_file("go.work");
    ctx.depends_on_file("go.mod");
    let work = ctx.root.join("go.work");
    let module = ctx.root.join("go.mod");
    let workspace = files::exists(&work);
    if !workspace && !files::exists(&module) {
        return Err(Absence::Absent("no go.mod or go.work in the root".into()));
    }
    ctx.needs_binary("go")?;
    let inside = Root::new(ctx.root);
    let mut runner = Runner::new("go", "Go", "go");
    let (file_name, path) = if workspace {
        ("go.work", &work)
    } else {
        ("go.mod", &module)
    };
    let bytes = inside
        .read(path, MAX_MANIFEST)
        .map_err(|err| Absence::Failed(format!("{file_name}: {err}")))?;
    let parsed = parse_modfile(&String::from_utf8_lossy(&bytes));
    if let Some(toolchain) = &parsed.toolchain {
        runner.notes.push(format!(
            "{file_name} names `toolchain {toolchain}`: a task run with an older go downloads \
             and runs that toolchain (GOTOOLCHAIN=local keeps your own)"
        ));
    }
    let members = if workspace {
        members(ctx, &inside, &parsed, &mut runner.notes)
    } else {
        vec![String::new()]
    };
    if members.is_empty() {
        runner
            .notes
            .push("go.work uses no module inside the project root".into());
        return Ok(runner);
    }
    builtin_tasks(&mut runner, &members);
    for member in &members {
        command_tasks(ctx, &inside, member, &mut runner);
    }
    Ok(runner)
}

/// The go.work members to list, as folders relative to the root (`""` for the root), in
/// the file's order without repeats: those inside the root holding a regular `go.mod`.
fn members(
    ctx: &Context<'_>,
    inside: &Root,
    parsed: &ModFile,
    notes: &mut Vec<String>,
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut missing: Vec<&str> = Vec::new();
    if parsed.uses.len() > MAX_USES {
        notes.push(format!(
            "go.work has {} `use` entries; only the first {MAX_USES} are read",
            parsed.uses.len()
        ));
    }
    for used in parsed.uses.iter().take(MAX_USES) {
        let Some(relative) = relative_inside(ctx.root, used) else {
            notes.push(format!(
                "go.work: `use {used}` is outside the project root; its module is left out"
            ));
            continue;
        };
        if out.contains(&relative) {
            continue;
        }
        let dir = ctx.root.join(&relative);
        let manifest = dir.join("go.mod");
        ctx.depends_on(dir.clone());
        ctx.depends_on(manifest.clone());
        if let Err(err) = inside.check(&dir) {
            if err.is_not_found() {
                missing.push(used.as_str());
            } else {
                notes.push(format!(
                    "go.work: `use {used}`: {err}; its module is left out"
                ));
            }
            continue;
        }
        if let Err(err) = inside.check_manifest(&manifest) {
            let shown = shown_path(&relative, "go.mod");
            notes.push(format!("{shown}: {err}; its module is left out"));
            continue;
        }
        out.push(relative);
    }
    // One note for them all: a go.work may name hundreds.
    if let Some(first) = missing.first() {
        let more = match missing.len() {
            1 => String::new(),
            n => format!(" and {} more", n - 1),
        };
        notes.push(format!(
            "go.work: `use {first}`{more}: no such folder; left out (go refuses the workspace \
             until it exists)"
        ));
    }
    out
}

/// `used` (a go.work `use` path) as a folder relative to `root`, `""` for the root itself,
/// when it stays inside it as written; `None` when it leaves it (`..`, an absolute path
/// elsewhere). Symlinks are checked by the caller.
fn relative_inside(root: &Path, used: &str) -> Option<String> {
    let path = Path::new(used);
    let path = if path.is_absolute() {
        path.strip_prefix(root).ok()?
    } else {
        path
    };
    let mut parts: Vec<&str> = Vec::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::Normal(part) => parts.push(part.to_str()?),
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(parts.join("/"))
}

/// `name` in the member folder `member`, as shown in notes.
fn shown_path(member: &str, name: &str) -> String {
    if member.is_empty() {
        name.to_owned()
    } else {
        format!("{member}/{name}")
    }
}

/// `test`, `build` and `vet` over every member (`./...` for the root, `./<member>/...`
/// for the others).
fn builtin_tasks(runner: &mut Runner, members: &[String]) {
    let patterns: Vec<String> = members
        .iter()
        .map(|m| {
            if m.is_empty() {
                "./...".to_owned()
            } else {
                quote_cow(&format!("./{m}/...")).into_owned()
            }
        })
        .collect();
    let patterns = patterns.join(" ");
    for (verb, what) in COMMANDS {
        runner.push_task(Task {
            name: (*verb).to_owned(),
            command: format!("go {verb} {patterns}"),
            doc: Some(format!("{what} (go's own command)")),
            params: Vec::new(),
            cwd: None,
        });
    }
}

/// Whether `task` is one of go's own commands rather than a command of the project: a task
/// of that name in another runner is what the project's authors meant, so it wins.
fn is_builtin(task: &Task) -> bool {
    COMMANDS.iter().any(|(verb, _)| {
        task.name == *verb
            && task
                .command
                .strip_prefix("go ")
                .and_then(|rest| rest.strip_prefix(verb))
                .is_some_and(|rest| rest.starts_with(" ./") || rest.starts_with(" './"))
    })
}

/// The `run` tasks of the member `member`: its own folder when it is `package main`, and
/// each folder of its `cmd/` that is.
#[expect(
    clippy::too_many_lines,
    reason = "over 80 lines when the limit was set; split it when it next changes"
)]
fn command_tasks(ctx: &Context<'_>, inside: &Root, member: &str, runner: &mut Runner) {
    let dir = ctx.root.join(member);
    let prefix = if member.is_empty() {
        String::new()
    } else {
        format!("{member}/")
    };
    if let Some(package) = main_package(ctx, inside, &dir, member, &mut runner.notes) {
        let target = if member.is_empty() {
            ".".to_owned()
        } else {
            format!("./{member}")
        };
        runner.push_task(Task {
            name: format!("{prefix}run"),
            command: format!("go run {}", quote_cow(&target)),
            doc: Some(package.doc.unwrap_or_else(|| match member {
                "" => "the root package main".to_owned(),
                member => format!("package main in {member}"),
            })),
            params: Vec::new(),
            cwd: None,
        });
    }
    let cmd = dir.join("cmd");
    ctx.depends_on(cmd.clone());
    let shown_cmd = shown_path(member, "cmd");
    let Ok(meta) = cmd.symlink_metadata() else {
        return;
    };
    if meta.file_type().is_symlink() {
        runner
            .notes
            .push(format!("{shown_cmd} is a symlink; not followed"));
        return;
    }
    if !meta.is_dir() {
        return;
    }
    let mut entries: Vec<(std::ffi::OsString, std::fs::FileType)> = std::fs::read_dir(&cmd)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| Some((e.file_name(), e.file_type().ok()?)))
        .collect();
    entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    if entries.len() > MAX_COMMANDS {
        runner.notes.push(format!(
            "{shown_cmd} holds {} entries; only the first {MAX_COMMANDS} are read",
            entries.len()
        ));
        entries.truncate(MAX_COMMANDS);
    }
    for (name, kind) in entries {
        let shown = format!("{shown_cmd}/{}", name.to_string_lossy());
        if kind.is_symlink() {
            runner
                .notes
                .push(format!("{shown} is a symlink; not followed"));
            continue;
        }
        if !kind.is_dir() {
            continue;
        }
        let Some(name) = name.to_str() else {
            runner
                .notes
                .push(format!("{shown}: the name is not UTF-8; left out"));
            continue;
        };
        let folder = cmd.join(name);
        let Some(package) = main_package(ctx, inside, &folder, &shown, &mut runner.notes) else {
            continue;
        };
        if let Err(why) = package_folder_name(name) {
            runner.notes.push(format!(
                "{shown} is left out: go refuses a package folder {why}"
            ));
            continue;
        }
        runner.push_task(Task {
            name: format!("{prefix}run/{name}"),
            command: run_command(&format!("./{shown}")),
            doc: Some(package.doc.unwrap_or_else(|| shown.clone())),
            params: Vec::new(),
            cwd: None,
        });
    }
}

/// `go run` of the package in `target`, a path starting with `./` so that go never reads it
/// as an option, quoted as one word.
fn run_command(target: &str) -> String {
    debug_assert!(target.starts_with("./"));
    format!("go run {}", quote_cow(target))
}

/// `Ok` when go accepts `name` as a package folder (an import path element: ASCII letters,
/// digits and `-._~+`, not starting with `-`, not ending with `.`), else why not.
fn package_folder_name(name: &str) -> Result<(), &'static str> {
    if name.starts_with('-') {
        return Err("whose name starts with `-`");
    }
    if name.ends_with('.') {
        return Err("whose name ends with `.`");
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"-._~+".contains(&b))
    {
        return Err("whose name holds characters other than letters, digits and `-._~+`");
    }
    Ok(())
}

/// A folder's `package main`, with its doc.
struct MainPackage {
    doc: Option<String>,
}

/// Whether the Go files of `dir` are `package main`: the first file (by name) that go
/// would build (`.go`, not `_test.go`, not starting with `.` or `_`, not `//go:build
/// ignore`) and that has a package clause decides. Each file is read up to
/// [`HEADER_BYTES`]; one that is not a regular file inside the root is noted and skipped.
fn main_package(
    ctx: &Context<'_>,
    inside: &Root,
    dir: &Path,
    shown: &str,
    notes: &mut Vec<String>,
) -> Option<MainPackage> {
    ctx.depends_on(dir.to_path_buf());
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.ends_with(".go") && !n.ends_with("_test.go"))
        .filter(|n| !n.starts_with(['.', '_']))
        .collect();
    names.sort_unstable();
    for name in names.iter().take(MAX_FILES_TRIED) {
        let path: PathBuf = dir.join(name);
        ctx.depends_on(path.clone());
        let bytes = match inside.read_walked_prefix(&path, HEADER_BYTES) {
            Ok(bytes) => bytes,
            Err(err) => {
                let shown = match shown {
                    "" => name.clone(),
                    dir => format!("{dir}/{name}"),
                };
                notes.push(format!("{shown}: {err}"));
                continue;
            }
        };
        let header = parse_header(&String::from_utf8_lossy(&bytes));
        if header.ignored {
            continue;
        }
        match header.package {
            Some(package) if package == "main" => return Some(MainPackage { doc: header.doc }),
            Some(_) => return None,
            None => {}
        }
    }
    None
}

/// What detection needs of a `go.mod` or `go.work`.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ModFile {
    /// The `go` line's version.
    pub go: Option<String>,
    /// The `toolchain` line's name.
    pub toolchain: Option<String>,
    /// The `use` paths, as written (unquoted), in order.
    pub uses: Vec<String>,
}

/// The `go`, `toolchain` and `use` directives of a go.mod or go.work (modfile syntax: `//`
/// comments, `verb ( … )` blocks, `"quoted"` and `` `raw` `` strings).
pub fn parse_modfile(text: &str) -> ModFile {
    let mut out = ModFile::default();
    let mut block: Option<String> = None;
    for line in text.lines() {
        let tokens = tokens(line);
        let Some(first) = tokens.first() else {
            continue;
        };
        if let Some(verb) = &block {
            if first == ")" {
                block = None;
            } else if verb == "use" {
                out.uses.push(first.clone());
            }
            continue;
        }
        match (first.as_str(), tokens.get(1).map(String::as_str)) {
            (verb, Some("(")) if tokens.len() == 2 => block = Some(verb.to_owned()),
            ("use", Some(path)) => out.uses.push(path.to_owned()),
            ("go", Some(version)) => out.go = Some(version.to_owned()),
            ("toolchain", Some(name)) => out.toolchain = Some(name.to_owned()),
            _ => {}
        }
    }
    out
}

/// The tokens of one modfile line, a `//` comment dropped, quotes removed.
fn tokens(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = line.chars().peekable();
    while let Some(&c) = chars.peek() {
        match c {
            c if c.is_whitespace() => {
                chars.next();
            }
            '/' => {
                chars.next();
                if chars.peek() == Some(&'/') {
                    break;
                }
                let mut word = String::from('/');
                while let Some(&c) = chars.peek() {
                    if c.is_whitespace() {
                        break;
                    }
                    word.push(c);
                    chars.next();
                }
                out.push(word);
            }
            '"' | '`' => {
                chars.next();
                let mut word = String::new();
                while let Some(next) = chars.next() {
                    match next {
                        // Only a double-quoted string has escapes.
                        '\\' if c == '"' => {
                            if let Some(escaped) = chars.next() {
                                word.push(escaped);
                            }
                        }
                        next if next == c => break,
                        next => word.push(next),
                    }
                }
                out.push(word);
            }
            '(' | ')' => {
                chars.next();
                out.push(c.to_string());
            }
            _ => {
                let mut word = String::new();
                while let Some(&c) = chars.peek() {
                    if c.is_whitespace() || c == '(' || c == ')' {
                        break;
                    }
                    if c == '/' {
                        // `a//comment` ends the word at the comment.
                        let mut ahead = chars.clone();
                        ahead.next();
                        if ahead.peek() == Some(&'/') {
                            break;
                        }
                    }
                    word.push(c);
                    chars.next();
                }
                out.push(word);
            }
        }
    }
    out
}

/// What the start of a Go file says.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Header {
    /// The package clause's name; `None` when none comes before other text.
    pub package: Option<String>,
    /// Whether a `//go:build ignore` (or `// +build ignore`) line keeps go from building it.
    pub ignored: bool,
    /// The first line of the comment right above the package clause.
    pub doc: Option<String>,
}

/// The package clause of a Go file's text, after its comments, whether a build constraint
/// of exactly `ignore` excludes the file, and the package comment's first line.
pub fn parse_header(text: &str) -> Header {
    let mut out = Header::default();
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // The comment group being read, reset by a blank line.
    let mut group: Vec<String> = Vec::new();
    let mut in_block = false;
    let clean = |line: &str| line.trim().trim_start_matches('*').trim().to_owned();
    for line in text.lines() {
        let mut rest = line.trim();
        if in_block {
            let Some((body, after)) = rest.split_once("*/") else {
                group.push(clean(rest));
                continue;
            };
            group.push(clean(body));
            in_block = false;
            rest = after.trim();
            if rest.is_empty() {
                continue;
            }
        } else if rest.is_empty() {
            group.clear();
            continue;
        }
        loop {
            if let Some(comment) = rest.strip_prefix("//") {
                let constraint = comment
                    .strip_prefix("go:build")
                    .or_else(|| comment.trim_start().strip_prefix("+build"));
                if let Some(expr) = constraint {
                    if expr.trim() == "ignore" {
                        out.ignored = true;
                    }
                    group.clear();
                } else {
                    group.push(comment.trim().to_owned());
                }
                break;
            }
            if let Some(comment) = rest.strip_prefix("/*") {
                match comment.split_once("*/") {
                    Some((body, after)) => {
                        group.push(clean(body));
                        rest = after.trim();
                        if rest.is_empty() {
                            break;
                        }
                        continue;
                    }
                    None => {
                        group.push(clean(comment));
                        in_block = true;
                        break;
                    }
                }
            }
            if let Some(after) = rest.strip_prefix("package")
                && after.starts_with([' ', '\t'])
            {
                let name: String = after
                    .trim_start()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    out.package = Some(name);
                    out.doc = group
                        .iter()
                        .find(|l| !l.is_empty())
                        .map(|l| l.chars().take(MAX_DOC).collect());
                }
            }
            return out;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modfile_directives() {
        let parsed = parse_modfile(
            "// a workspace\ngo 1.22.0\ntoolchain go1.99.1 // pinned\n\nuse (\n\t.\n\t./tools // the tools\n\t\"./my lib\"\n\t`./raw`\n)\nuse ../outside\nreplace x => ./y\ngodebug (\n\tdefault=go1.21\n)\n",
        );
        assert_eq!(
            parsed,
            ModFile {
                go: Some("1.22.0".into()),
                toolchain: Some("go1.99.1".into()),
                uses: vec![
                    ".".into(),
                    "./tools".into(),
                    "./my lib".into(),
                    "./raw".into(),
                    "../outside".into()
                ],
            }
        );
        let module = parse_modfile(
            "module example.com/x\n\ngo 1.22\n\nrequire (\n\tgolang.org/x/y v1.0.0\n)\n",
        );
        assert_eq!(module.go.as_deref(), Some("1.22"));
        assert_eq!(module.toolchain, None);
        assert!(module.uses.is_empty());
    }

    #[test]
    fn go_file_headers() {
        #[track_caller]
        fn case(text: &str, package: Option<&str>, ignored: bool, doc: Option<&str>) {
            let got = parse_header(text);
            assert_eq!(
                (got.package.as_deref(), got.ignored, got.doc.as_deref()),
                (package, ignored, doc),
                "{text:?}"
            );
        }
        case(
            "package main\n\nfunc main() {}\n",
            Some("main"),
            false,
            None,
        );
        case(
            "// Copyright 2024 The Authors.\n\n// Server serves the shop.\n// More.\npackage main\n",
            Some("main"),
            false,
            Some("Server serves the shop."),
        );
        case(
            "//go:build ignore\n\npackage main\n",
            Some("main"),
            true,
            None,
        );
        case(
            "// +build ignore\n\npackage main\n",
            Some("main"),
            true,
            None,
        );
        case(
            "//go:build linux\n\npackage main\n",
            Some("main"),
            false,
            None,
        );
        case(
            "/* Tool\n * does x\n */\npackage main",
            Some("main"),
            false,
            Some("Tool"),
        );
        case("\u{feff}package\tgreet // x\n", Some("greet"), false, None);
        case("/* unterminated\npackage main\n", None, false, None);
        case("func main() {}\npackage main\n", None, false, None);
        case("packagemain\n", None, false, None);
        case("", None, false, None);
        // A package clause past the bytes read is not seen.
        case(&"// x\n".repeat(20_000), None, false, None);
    }

    #[test]
    fn folder_names_go_accepts() {
        for name in ["server", "a+b", "a~b", "a.b", "_x", "A9", "my-tool"] {
            assert_eq!(package_folder_name(name), Ok(()), "{name}");
        }
        for name in ["-rf", "--exec=x", "a.", "sp ace", "it's", "$(x)", "ünï"] {
            assert!(package_folder_name(name).is_err(), "{name}");
        }
    }

    #[test]
    fn use_paths_inside_the_root() {
        let root = Path::new("/r");
        #[track_caller]
        fn case(used: &str, want: Option<&str>) {
            assert_eq!(
                relative_inside(Path::new("/r"), used).as_deref(),
                want,
                "{used}"
            );
        }
        let _ = root;
        case(".", Some(""));
        case("./", Some(""));
        case("./tools", Some("tools"));
        case("libs/./a/", Some("libs/a"));
        case("libs/../tools", Some("tools"));
        case("../outside", None);
        case("a/../../x", None);
        case("/r/abs", Some("abs"));
        case("/elsewhere", None);
    }

    #[test]
    fn commands_are_never_options() {
        assert_eq!(run_command("./cmd/server"), "go run ./cmd/server");
        assert_eq!(run_command("./cmd/-rf"), "go run ./cmd/-rf");
        assert_eq!(run_command("./cmd/a b"), "go run './cmd/a b'");
        assert_eq!(run_command("./cmd/$(x)"), "go run './cmd/$(x)'");
    }

    #[test]
    fn builtins_cover_every_member() {
        let mut runner = Runner::new("go", "Go", "go");
        builtin_tasks(&mut runner, &["".into(), "tools".into(), "my lib".into()]);
        let got: Vec<(&str, &str)> = runner
            .tasks
            .iter()
            .map(|t| (t.name.as_str(), t.command.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("test", "go test ./... ./tools/... './my lib/...'"),
                ("build", "go build ./... ./tools/... './my lib/...'"),
                ("vet", "go vet ./... ./tools/... './my lib/...'"),
            ]
        );
        assert!(runner.tasks.iter().all(is_builtin));
        let run = Task {
            name: "test".into(),
            command: "go run ./cmd/test".into(),
            doc: None,
            params: Vec::new(),
            cwd: None,
        };
        assert!(!is_builtin(&run));
    }
}
