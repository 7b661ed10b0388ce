//! `pkg`: package.json scripts of the root package and of its workspace packages, run with
//! the package manager the project declares.

use std::path::{Component, Path};

use serde_json::Value;

use crate::detection::{Absence, Arguments, Cache, CacheDefault, Context, FolderOption, RunnerDef};
use crate::files::{self, MAX_MANIFEST, MAX_PACKAGE_JSON};
use crate::parse_error::ManifestError;
use crate::quote::{push_single_quoted, single_quote};
use crate::runner::{Repeats, Runner, TailRule, Task, TaskIndex};
use crate::subprojects::{Inside, ReadBudget};

pub(crate) const RUNNER: RunnerDef = RunnerDef {
    id: "pkg",
    label: "Pkg",
    executes: "nothing: package.json files and pnpm-workspace.yaml are read as text; lockfiles are only looked for, never read",
    manifests: &["package.json"],
    detect,
    is_aside: is_hook,
    folder_options: |program| match program {
        "npm" => &[FolderOption::Dir("--prefix"), FolderOption::Dir("-C")],
        "pnpm" => &[FolderOption::Dir("-C"), FolderOption::Dir("--dir")],
        "yarn" | "bun" => &[FolderOption::Dir("--cwd")],
        _ => &[],
    },
    arguments: |runner, _| match runner.tail_rule {
        TailRule::DashDashFirst => Arguments::AfterDashDash,
        TailRule::AsWritten | TailRule::NoLeadingDashDash => Arguments::WithArguments,
    },
    caches: &[
        Cache {
            variables: &[("NPM_CONFIG_CACHE", ""), ("npm_config_cache", "")],
            default: CacheDefault::Home(".npm"),
        },
        // pnpm's content-addressed store and its metadata cache.
        Cache {
            variables: &[("PNPM_HOME", "store")],
            default: CacheDefault::UserData("pnpm"),
        },
        Cache {
            variables: &[],
            default: CacheDefault::UserCache("pnpm"),
        },
        Cache {
            variables: &[("YARN_CACHE_FOLDER", "")],
            default: CacheDefault::UserCache("yarn"),
        },
        Cache {
            variables: &[("BUN_INSTALL_CACHE_DIR", "")],
            default: CacheDefault::Home(".bun/install/cache"),
        },
    ],
    ..RunnerDef::BASE
};

/// npm's lifecycle scripts, which run by themselves around other commands.
const LIFECYCLE: &[&str] = &[
    "prepare",
    "preinstall",
    "install",
    "postinstall",
    "prepublish",
    "prepublishOnly",
    "prepack",
    "postpack",
    "publish",
    "postpublish",
];

/// Whether a script is a lifecycle hook: one npm runs by itself (`prepare`), or the
/// `pre`/`post` script of a sibling (`pretest` beside `test`, in the same package).
fn is_hook(tasks: &TaskIndex<'_>, task: &Task) -> bool {
    let (scope, leaf) = match task.name.rsplit_once('/') {
        Some((scope, leaf)) => (Some(scope), leaf),
        None => (None, task.name.as_str()),
    };
    // A sibling is in the same package: the same scope, or none for both.
    let sibling = |name: &str| match scope {
        Some(scope) => tasks.get(&format!("{scope}/{name}")).is_some(),
        None => tasks.get(name).is_some(),
    };
    LIFECYCLE.contains(&leaf)
        || task.doc.as_deref() == Some(PLACEHOLDER_DOC)
        || ["pre", "post"].iter().any(|p| {
            leaf.strip_prefix(p)
                .is_some_and(|rest| !rest.is_empty() && sibling(rest))
        })
}

/// The doc of npm init's placeholder `test` script (`echo "Error: no test specified" &&
/// exit 1`), which only fails: an aside, so that another runner's `test` wins the name.
const PLACEHOLDER_DOC: &str = "npm init's placeholder: it only prints an error and fails";

/// Whether a script's body is npm init's placeholder.
fn is_placeholder(body: &str) -> bool {
    body.contains("Error: no test specified") && body.trim_end().ends_with("exit 1")
}

/// Directories a workspace pattern never enters, whatever it says.
const NEVER_ENTERED: &[&str] = &["node_modules"];

/// How deep `**` in a workspace pattern reaches.
const MAX_WORKSPACE_DEPTH: usize = 8;

/// The most workspace patterns read: real monorepos have a handful, and each one costs
/// matching time on every folder the walk visits.
const MAX_WORKSPACE_PATTERNS: usize = 1000;

/// The longest workspace pattern compiled, which bounds the work per pattern.
const MAX_WORKSPACE_PATTERN_BYTES: usize = 1000;

/// A package manager and what its `run` form needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PackageManager {
    /// npm.
    Npm,
    /// pnpm.
    Pnpm,
    /// yarn 1 (classic).
    Yarn1,
    /// yarn 2 and later (berry).
    YarnBerry,
    /// bun.
    Bun,
}

impl PackageManager {
    /// The command prefix: always the `run` form, so a script named like a built-in
    /// (`yarn info`) runs the script.
    pub(crate) fn prefix(self) -> &'static str {
        match self {
            Self::Npm => "npm run",
            Self::Pnpm => "pnpm run",
            Self::Yarn1 | Self::YarnBerry => "yarn run",
            Self::Bun => "bun run",
        }
    }

    /// How the op's tail reaches the script.
    pub(crate) fn tail_rule(self) -> TailRule {
        match self {
            // yarn 1 drops the words before a `--` in the middle of the tail, unless a
            // leading `--` (which it removes) comes first.
            Self::Npm | Self::Yarn1 => TailRule::DashDashFirst,
            Self::Pnpm | Self::YarnBerry => TailRule::NoLeadingDashDash,
            Self::Bun => TailRule::AsWritten,
        }
    }

    /// From a `name@version` declaration (`packageManager`, `devEngines`).
    fn from_declaration(name: &str, version: &str) -> Option<Self> {
        let major: Option<u32> = version
            .trim_start_matches(['^', '~', '>', '=', 'v'])
            .split('.')
            .next()
            .and_then(|m| m.parse().ok());
        match name {
            "npm" => Some(Self::Npm),
            "pnpm" => Some(Self::Pnpm),
            "yarn" if major.is_some_and(|m| m >= 2) => Some(Self::YarnBerry),
            "yarn" => Some(Self::Yarn1),
            "bun" => Some(Self::Bun),
            _ => None,
        }
    }
}

fn detect(ctx: &Context<'_>) -> Result<Runner, Absence> {
    let manifest = ctx.root.join("package.json");
    for file in [
        "package.json",
        "yarn.lock",
        ".yarnrc.yml",
        "pnpm-workspace.yaml",
    ] {
        ctx.depends_on_file(file);
    }
    let unbounded = ReadBudget::unbounded();
    let inside = Inside::new(ctx.root, &unbounded);
    let mut members = Vec::new();
    let mut runner = None;
    let mut root_manager = None;
    if manifest.is_file() {
        let root_pkg =
            read_manifest(&inside, &manifest, "package.json").map_err(Absence::Failed)?;
        let (manager, why) = package_manager(ctx, ctx.root, &root_pkg);
        root_manager = Some(manager);
        let mut root = package_runner(&root_pkg, manager, why);
        let mut patterns = workspace_patterns(&root_pkg);
        match read_pnpm_workspace(inside.root(), ctx.root) {
            Ok(more) => patterns.extend(more),
            Err(err) => root.notes.push(err),
        }
        members = find_members(ctx, &patterns, &mut root.notes);
        let (tasks, notes) = member_tasks(inside.root(), ctx.root, &members, manager.prefix());
        root.notes.extend(notes);
        root.extend_first(tasks, Repeats::Note);
        runner = Some(root);
    }
    // A workspace member is listed as one, under its package's name.
    let members: std::collections::HashSet<std::path::PathBuf> =
        members.iter().map(|m| ctx.root.join(m)).collect();
    let has_package = |dir: &Path| {
        (!members.contains(dir) && files::exists(&dir.join("package.json"))).then(String::new)
    };
    let found = crate::subprojects::find(ctx, has_package, false);
    let mut unread = Vec::new();
    let budget = ReadBudget::subprojects();
    let inside = Inside::new(ctx.root, &budget);
    let mut prefixes = Vec::new();
    for (at, (folder, _)) in found.list.iter().enumerate() {
        if let Some(manager) =
            add_subproject(ctx, &inside, &mut runner, root_manager, folder, &mut unread)
        {
            prefixes.push((folder.clone(), manager.prefix().to_owned()));
        }
        if inside.spent() {
            unread.push(crate::subprojects::spent_note(
                folder,
                found.list.len() - at - 1,
            ));
            break;
        }
    }
    unread.extend(found.note());
    // The header names each subproject's manager where it is not the root's.
    let root_prefix = root_manager.map(PackageManager::prefix);
    if let Some(runner) = &mut runner
        && let Some(header) = crate::subprojects::header(root_prefix, &prefixes)
    {
        runner.command_prefix = header;
    }
    match runner {
        Some(mut runner) if !runner.tasks.is_empty() => {
            runner.notes.extend(unread);
            Ok(runner)
        }
        Some(_) if unread.is_empty() => Err(Absence::Absent("package.json has no scripts".into())),
        None if unread.is_empty() => Err(Absence::Absent("no package.json in the root".into())),
        _ => Err(Absence::Absent(format!(
            "no scripts in the root or a subproject ({})",
            unread.join("; ")
        ))),
    }
}

/// A runner holding the scripts of the package `pkg` (the root's, or a subproject's),
/// run with `manager`, chosen for the reason `why`.
fn package_runner(pkg: &Value, manager: PackageManager, why: &str) -> Runner {
    let mut runner = Runner::new(RUNNER.id, RUNNER.label, manager.prefix());
    runner.tail_rule = manager.tail_rule();
    runner
        .notes
        .push(format!("package manager: {} ({why})", manager.prefix()));
    for script in scripts(pkg) {
        if option_like(&script, None, &mut runner.notes) {
            continue;
        }
        let placeholder = pkg
            .pointer("/scripts")
            .and_then(|s| s.get(&script))
            .and_then(Value::as_str)
            .is_some_and(is_placeholder);
        runner.push_task(Task {
            command: format!("{} {}", manager.prefix(), single_quote(&script)),
            name: script,
            doc: placeholder.then(|| PLACEHOLDER_DOC.to_owned()),
            params: Vec::new(),
            cwd: None,
        });
    }
    runner
}

/// Adds the scripts of the subproject `folder` (a package.json right below the root that
/// is no workspace member: a Go service's `web/`, a site's `docs/`), run there with the
/// package manager its own files name, else the root's. One whose manager hands words on
/// unlike the runner's (pnpm's `--` beside npm's) is left out with a note: a runner has one
/// rule for the words after a task. The manager, when its scripts were added.
fn add_subproject(
    ctx: &Context<'_>,
    inside: &Inside<'_>,
    runner: &mut Option<Runner>,
    root_manager: Option<PackageManager>,
    folder: &str,
    unread: &mut Vec<String>,
) -> Option<PackageManager> {
    let dir = ctx.root.join(folder);
    let shown = format!("{folder}/package.json");
    ctx.depends_on(dir.join("package.json"));
    let pkg = match read_manifest(inside, &dir.join("package.json"), &shown) {
        Ok(pkg) => pkg,
        // The caller says so, for this one and those after it.
        Err(_) if inside.spent() => return None,
        Err(err) => {
            unread.push(format!("subproject {folder}/ is not listed: {err}"));
            return None;
        }
    };
    let (manager, why) = match (signals(ctx, &dir, &pkg), root_manager) {
        (Some(found), _) => found,
        (None, Some(root)) => (root, "none of its own; the root's"),
        (None, None) => (PackageManager::Npm, "no declaration or lockfile"),
    };
    let sub = package_runner(&pkg, manager, why);
    if sub.tasks.is_empty() {
        return None;
    }
    let runner = runner.get_or_insert_with(|| {
        let mut first = Runner::new(RUNNER.id, RUNNER.label, manager.prefix());
        first.tail_rule = manager.tail_rule();
        first
    });
    if runner.tail_rule != manager.tail_rule() {
        unread.push(format!(
            "subproject {folder}/ is not listed: its package manager ({}) hands words to a \
             script unlike {}; run it as `cd {folder} && {} <script>`",
            manager.prefix(),
            runner.command_prefix,
            manager.prefix()
        ));
        return None;
    }
    crate::subprojects::add(runner, folder, sub, "patterns").then_some(manager)
}

/// Whether `script` would reach the package manager as an option (`--cwd=..` makes bun
/// run another package's script), noting that it is left out.
fn option_like(script: &str, dir: Option<&str>, notes: &mut Vec<String>) -> bool {
    if !script.starts_with('-') {
        return false;
    }
    notes.push(match dir {
        Some(dir) => format!(
            "script `{script}` of {dir}/package.json is left out: the package manager would \
             read its name as an option"
        ),
        None => format!(
            "script `{script}` is left out: the package manager would read its name as an \
             option"
        ),
    });
    true
}

/// The tasks of the member folders' scripts (in order; a folder without a package.json is
/// not a package), with the notes on what was left out. Read, parsed and made into tasks
/// on a few threads: a monorepo of thousands of packages is mostly file reading and
/// parsing.
fn member_tasks(
    inside: &files::Root,
    root: &Path,
    members: &[String],
    prefix: &str,
) -> (Vec<Task>, Vec<String>) {
    // Looked up from the root's folder, which the walk started from; without it (the root
    // cannot be opened), the walk found nothing either.
    let Ok(base) = files::WalkedDir::open(root) else {
        return (Vec::new(), Vec::new());
    };
    // One buffer for every file a thread reads.
    let part_tasks = |part: &[String]| {
        let mut buf = Vec::new();
        let mut tasks = Vec::new();
        let mut notes = Vec::new();
        let mut rel = String::new();
        for dir in part {
            rel.clear();
            rel.push_str(dir);
            rel.push_str("/package.json");
            // The walk that found the folder never follows a symlink: only the manifest
            // itself can lead outside.
            let read = inside.read_walked_in(&base, &rel, MAX_PACKAGE_JSON, &mut buf);
            let pkg = match read.map(|()| parse_member(&buf)) {
                Ok(Ok(pkg)) => pkg,
                Ok(Err(err)) => {
                    notes.push(format!("{rel}: {err}; its scripts are left out"));
                    continue;
                }
                // A matched folder without a package.json is not a package.
                Err(err) if err.is_not_found() => continue,
                Err(err) => {
                    notes.push(format!("{rel}: {err}; its scripts are left out"));
                    continue;
                }
            };
            push_member_tasks(dir, &pkg, prefix, &mut tasks, &mut notes);
        }
        (tasks, notes)
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
    if members.len() < 64 || threads == 1 {
        return part_tasks(members);
    }
    // Consecutive parts, the last one read on this thread; joined in order, they give the
    // tasks and notes in the members' order.
    let mut parts = members.chunks(members.len().div_ceil(threads));
    let last = parts.next_back().unwrap_or_default();
    let done: Vec<(Vec<Task>, Vec<String>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = parts.map(|part| scope.spawn(|| part_tasks(part))).collect();
        let mine = part_tasks(last);
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .chain([mine])
            .collect()
    });
    let mut tasks = Vec::with_capacity(done.iter().map(|(t, _)| t.len()).sum());
    let mut notes = Vec::new();
    for (mut part_tasks, mut part_notes) in done {
        tasks.append(&mut part_tasks);
        notes.append(&mut part_notes);
    }
    (tasks, notes)
}

/// Adds the tasks of the package in `dir`, whose manifest is `pkg`, leaving out (with a
/// note) scripts the package manager would read as an option.
fn push_member_tasks(
    dir: &str,
    pkg: &MemberManifest,
    prefix: &str,
    tasks: &mut Vec<Task>,
    notes: &mut Vec<String>,
) {
    let label = pkg.name.as_deref().filter(|n| !n.is_empty()).unwrap_or(dir);
    for script in &pkg.scripts {
        if option_like(script, Some(dir), notes) {
            continue;
        }
        // Built by hand: tens of thousands of names and commands in a monorepo.
        let mut name = String::with_capacity(label.len() + 1 + script.len());
        name.push_str(label);
        name.push('/');
        name.push_str(script);
        let mut command = String::with_capacity(prefix.len() + script.len() + 3);
        command.push_str(prefix);
        command.push(' ');
        push_single_quoted(&mut command, script);
        // The placeholder's doc says so (and makes it an aside); another's is its folder.
        let doc = if pkg.placeholders.contains(script) {
            PLACEHOLDER_DOC
        } else {
            dir
        };
        tasks.push(Task {
            name,
            command,
            doc: Some(doc.to_owned()),
            params: Vec::new(),
            cwd: Some(dir.to_owned()),
        });
    }
}

/// Reads a package.json that must be a JSON object; errors name the file, line and column.
fn read_manifest(inside: &Inside<'_>, path: &Path, shown: &str) -> Result<Value, String> {
    let bytes = inside
        .read(path, MAX_PACKAGE_JSON)
        .map_err(|err| format!("{shown}: {err}"))?;
    parse_manifest(&bytes).map_err(|err| format!("{shown}: {err}"))
}

/// Parses package.json text: a JSON object (a leading BOM is allowed, as npm allows it).
pub fn parse_manifest(bytes: &[u8]) -> Result<Value, ManifestError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let value: Value =
        serde_json::from_slice(bytes).map_err(|err| ManifestError::NotJson(err.to_string()))?;
    if !value.is_object() {
        return Err(ManifestError::NotAnObject);
    }
    Ok(value)
}

/// What detection needs of a workspace package's package.json: its name and the names of
/// its string-valued scripts (in declaration order). Everything else is skipped unread, and a
/// repeated key counts as its last occurrence, as in JavaScript's `JSON.parse`.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct MemberManifest {
    /// `name`, when it is a string.
    pub name: Option<String>,
    /// Names of string-valued `scripts`.
    pub scripts: Vec<String>,
    /// Those of `scripts` whose body is npm init's placeholder, which only fails.
    pub placeholders: Vec<String>,
}

/// Parses a workspace package's package.json (a leading BOM is allowed).
pub fn parse_member(bytes: &[u8]) -> Result<MemberManifest, ManifestError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    serde_json::from_slice::<MemberManifest>(bytes).map_err(|err| {
        if err.is_data() {
            ManifestError::NotAnObject
        } else {
            ManifestError::NotJson(err.to_string())
        }
    })
}

impl<'de> serde::Deserialize<'de> for MemberManifest {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(MemberVisitor)
    }
}

struct MemberVisitor;

impl<'de> serde::de::Visitor<'de> for MemberVisitor {
    type Value = MemberManifest;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a package.json object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = MemberManifest::default();
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "name" => out.name = map.next_value::<OrNone<String>>()?.0,
                "scripts" => {
                    let names = map.next_value::<ScriptNames>()?;
                    out.scripts = names.0;
                    out.placeholders = names.1;
                }
                _ => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
        Ok(out)
    }
}

/// A value of the expected type, or `None` for any other JSON value.
struct OrNone<T>(Option<T>);

impl<'de, T: serde::Deserialize<'de>> serde::Deserialize<'de> for OrNone<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Ok(Self(T::deserialize(value).ok()))
    }
}

/// The names of the string-valued entries of a `scripts` object, in declaration order (a
/// repeated key keeps its first place and its last value, as in `JSON.parse`); none when
/// `scripts` is not an object. Read straight from the text: no `Value` is built for the
/// scripts of thousands of packages. Then those whose body is npm init's placeholder.
struct ScriptNames(Vec<String>, Vec<String>);

impl<'de> serde::Deserialize<'de> for ScriptNames {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ScriptsVisitor)
    }
}

/// Up to this many scripts, a repeated name is found by a scan; past it, through an index.
const SCRIPTS_SCANNED: usize = 32;

struct ScriptsVisitor;

impl<'de> serde::de::Visitor<'de> for ScriptsVisitor {
    type Value = ScriptNames;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        // Each name with what its (last) body is.
        let mut entries: Vec<(std::borrow::Cow<'de, str>, Body)> = Vec::new();
        let mut index: std::collections::HashMap<std::borrow::Cow<'de, str>, usize> =
            std::collections::HashMap::new();
        while let Some(name) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            let is_string = map.next_value::<Body>()?;
            if entries.len() == SCRIPTS_SCANNED && index.is_empty() {
                index.extend(entries.iter().enumerate().map(|(i, (n, _))| (n.clone(), i)));
            }
            let seen = if index.is_empty() {
                entries.iter().position(|(n, _)| *n == name)
            } else {
                index.get(&name).copied()
            };
            match seen {
                Some(at) => entries[at].1 = is_string,
                None => {
                    if !index.is_empty() {
                        index.insert(name.clone(), entries.len());
                    }
                    entries.push((name, is_string));
                }
            }
        }
        let placeholders = entries
            .iter()
            .filter(|(name, body)| *body == Body::Placeholder && !is_comment(name))
            .map(|(name, _)| name.to_string())
            .collect();
        Ok(ScriptNames(
            entries
                .into_iter()
                .filter(|(name, body)| *body != Body::Other && !is_comment(name))
                .map(|(name, _)| name.into_owned())
                .collect(),
            placeholders,
        ))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
        Ok(ScriptNames(Vec::new(), Vec::new()))
    }

    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(ScriptNames(Vec::new(), Vec::new()))
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(ScriptNames(Vec::new(), Vec::new()))
    }

    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(ScriptNames(Vec::new(), Vec::new()))
    }

    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(ScriptNames(Vec::new(), Vec::new()))
    }

    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(ScriptNames(Vec::new(), Vec::new()))
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(ScriptNames(Vec::new(), Vec::new()))
    }
}

/// What a script's body is: a string (npm init's placeholder, or any other), or another
/// JSON value, read through and dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Body {
    Script,
    Placeholder,
    Other,
}

impl<'de> serde::Deserialize<'de> for Body {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(IsStringVisitor)
    }
}

struct IsStringVisitor;

impl<'de> serde::de::Visitor<'de> for IsStringVisitor {
    type Value = Body;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_str<E>(self, body: &str) -> Result<Self::Value, E> {
        Ok(if is_placeholder(body) {
            Body::Placeholder
        } else {
            Body::Script
        })
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map
            .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
            .is_some()
        {}
        Ok(Body::Other)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
        Ok(Body::Other)
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Body::Other)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Body::Other)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Body::Other)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Body::Other)
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Body::Other)
    }
}

/// Whether a `scripts` key is a comment: npm's documented convention is a key starting
/// with `//` (`"//": "…"`, `"// build": "…"`), which no one means to run.
fn is_comment(name: &str) -> bool {
    name.starts_with("//")
}

/// String-valued scripts, in declaration order: authors put the important ones first.
fn scripts(pkg: &Value) -> Vec<String> {
    pkg.get("scripts")
        .and_then(Value::as_object)
        .map(|scripts| {
            scripts
                .iter()
                .filter(|(name, body)| body.is_string() && !is_comment(name))
                .map(|(name, _)| name.clone())
                .collect()
        })
        .unwrap_or_default()
}

/// The package manager and why: `packageManager`, then `devEngines.packageManager`, then
/// lockfiles, then a manager's own configuration (`bunfig.toml`, `pnpm-workspace.yaml`,
/// `.yarnrc.yml`), then the manager the root's own scripts call most
/// (`npm run build && …`), else npm. Never what is on PATH: the answer is the project's,
/// the same on every machine.
fn package_manager(ctx: &Context<'_>, dir: &Path, pkg: &Value) -> (PackageManager, &'static str) {
    signals(ctx, dir, pkg).unwrap_or((PackageManager::Npm, "no declaration or lockfile"))
}

/// The package manager the package in `dir` names, and how: [`package_manager`] without
/// its last resort.
fn signals(ctx: &Context<'_>, dir: &Path, pkg: &Value) -> Option<(PackageManager, &'static str)> {
    let root = dir;
    if let Some(decl) = pkg.get("packageManager").and_then(Value::as_str) {
        let (name, version) = decl.split_once('@').unwrap_or((decl, ""));
        if let Some(pm) = PackageManager::from_declaration(name, version) {
            return Some((pm, "from `packageManager`"));
        }
    }
    let dev = pkg.get("devEngines").and_then(|d| d.get("packageManager"));
    let dev = match dev {
        Some(Value::Array(list)) => list.first(),
        other => other,
    };
    if let Some(dev) = dev
        && let Some(name) = dev.get("name").and_then(Value::as_str)
    {
        let version = dev.get("version").and_then(Value::as_str).unwrap_or("");
        if let Some(pm) = PackageManager::from_declaration(name, version) {
            return Some((pm, "from `devEngines.packageManager`"));
        }
    }
    // Lockfiles are consulted for their name only: never opened, so a huge or special one
    // costs nothing.
    let has = |name: &str| files::is_regular_file(&root.join(name));
    if has("bun.lock") || has("bun.lockb") {
        return Some((PackageManager::Bun, "from its lockfile"));
    }
    if has("pnpm-lock.yaml") {
        return Some((PackageManager::Pnpm, "from its lockfile"));
    }
    if has("yarn.lock") {
        let pm = if has(".yarnrc.yml") {
            PackageManager::YarnBerry
        } else {
            PackageManager::Yarn1
        };
        return Some((pm, "from its lockfile"));
    }
    if has("package-lock.json") || has("npm-shrinkwrap.json") {
        return Some((PackageManager::Npm, "from its lockfile"));
    }
    // A manager's own configuration names it without a lockfile.
    ctx.depends_on(dir.join("bunfig.toml"));
    if has("bunfig.toml") {
        return Some((PackageManager::Bun, "from its bunfig.toml"));
    }
    if has("pnpm-workspace.yaml") {
        return Some((PackageManager::Pnpm, "from its pnpm-workspace.yaml"));
    }
    if has(".yarnrc.yml") {
        return Some((PackageManager::YarnBerry, "from its .yarnrc.yml"));
    }
    if let Some(pm) = called_by_scripts(pkg, has(".yarnrc.yml")) {
        return Some((pm, "no declaration or lockfile; its scripts call it"));
    }
    None
}

/// The package manager the root's scripts call most (`npm run a && npm test`, `pnpm -r
/// build`, `yarn lint`, `bunx x`), when one is called more than any other.
fn called_by_scripts(pkg: &Value, berry: bool) -> Option<PackageManager> {
    let scripts = pkg.get("scripts").and_then(Value::as_object)?;
    // npm, pnpm, yarn, bun.
    let mut counts = [0usize; 4];
    for body in scripts.values().filter_map(Value::as_str).take(1000) {
        let words = body
            .split(|c: char| c.is_whitespace() || matches!(c, '&' | '|' | ';' | '(' | ')'))
            .take(200);
        for word in words {
            let slot = match word {
                "npm" | "npx" => 0,
                "pnpm" | "pnpx" => 1,
                "yarn" => 2,
                "bun" | "bunx" => 3,
                _ => continue,
            };
            counts[slot] += 1;
        }
    }
    let most = *counts.iter().max()?;
    if most == 0 || counts.iter().filter(|c| **c == most).count() > 1 {
        return None;
    }
    let slot = counts.iter().position(|c| *c == most)?;
    Some(match slot {
        0 => PackageManager::Npm,
        1 => PackageManager::Pnpm,
        2 if berry => PackageManager::YarnBerry,
        2 => PackageManager::Yarn1,
        _ => PackageManager::Bun,
    })
}

/// `workspaces` as an array, or as an object with `packages`.
fn workspace_patterns(pkg: &Value) -> Vec<String> {
    let list = match pkg.get("workspaces") {
        Some(Value::Array(list)) => Some(list),
        Some(Value::Object(obj)) => obj.get("packages").and_then(Value::as_array),
        _ => None,
    };
    list.into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect()
}

fn read_pnpm_workspace(inside: &files::Root, root: &Path) -> Result<Vec<String>, String> {
    match inside.read(&root.join("pnpm-workspace.yaml"), MAX_MANIFEST) {
        Ok(bytes) => Ok(parse_pnpm_workspace(&String::from_utf8_lossy(&bytes))),
        Err(err) if err.is_not_found() => Ok(Vec::new()),
        Err(err) => Err(format!(
            "pnpm-workspace.yaml: {err}; its patterns are left out"
        )),
    }
}

/// The `packages:` list of a pnpm-workspace.yaml: a block list (`- 'apps/*'`) or a flow list
/// (`['apps/*', 'libs/*']`). Only that key is read, so a small reader does instead of a
/// YAML library.
pub fn parse_pnpm_workspace(text: &str) -> Vec<String> {
    let mut patterns = Vec::new();
    let mut in_packages = false;
    for line in text.lines() {
        let content = strip_yaml_comment(line);
        if content.trim().is_empty() {
            continue;
        }
        let top_level = !content.starts_with([' ', '\t', '-']);
        if top_level {
            in_packages = false;
            if let Some(rest) = content.strip_prefix("packages:") {
                let rest = rest.trim();
                if let Some(flow) = rest.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
                    patterns.extend(flow.split(',').map(unquote).filter(|p| !p.is_empty()));
                } else {
                    in_packages = rest.is_empty();
                }
            }
            continue;
        }
        if in_packages && let Some(item) = content.trim_start().strip_prefix('-') {
            let item = unquote(item);
            if !item.is_empty() {
                patterns.push(item);
            }
        }
    }
    patterns
}

fn strip_yaml_comment(line: &str) -> &str {
    // A `#` starts a comment at the line start or after a space, outside quotes.
    let mut quote = None;
    let mut prev = ' ';
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '#') if prev == ' ' || prev == '\t' => return &line[..i],
            _ => {}
        }
        prev = c;
    }
    line
}

fn unquote(s: &str) -> String {
    let s = s.trim();
    s.strip_prefix('\'')
        .and_then(|s| s.strip_suffix('\''))
        .or_else(|| s.strip_prefix('"').and_then(|s| s.strip_suffix('"')))
        .unwrap_or(s)
        .to_owned()
}

/// Workspace patterns and how they are applied: includes and `!` excludes, each compiled
/// once into one matcher.
#[derive(Debug)]
struct WorkspaceGlobs {
    include: globset::GlobSet,
    exclude: globset::GlobSet,
    /// Each include pattern split at `/`, so the walk enters a folder only when some
    /// pattern can match below it.
    paths: Vec<Vec<Segment>>,
    /// How many folder levels below the root the includes can reach.
    depth: usize,
}

/// One `/`-separated part of an include pattern.
#[derive(Debug)]
enum Segment {
    /// `**`, or a part that cannot be told apart from the others (a brace set holding `/`):
    /// anything, at any depth.
    Any,
    /// A name pattern.
    Name(globset::GlobMatcher),
}

/// The parts of `pattern`, for deciding which folders the walk enters.
fn segments(pattern: &str) -> Vec<Segment> {
    // A brace set holding `/` spans parts: from the part it starts in, the pattern may
    // match anywhere below.
    let mut spanning = None;
    let mut from = 0;
    while let Some(open) = pattern[from..].find('{').map(|at| from + at) {
        let close = pattern[open..]
            .find('}')
            .map_or(pattern.len(), |at| open + at);
        if pattern[open..close].contains('/') {
            spanning = Some(open);
            break;
        }
        from = close.min(pattern.len() - 1) + 1;
        if from >= pattern.len() {
            break;
        }
    }
    let (literal, any_after) = match spanning {
        Some(open) => (
            pattern[..open]
                .rsplit_once('/')
                .map_or("", |(head, _)| head),
            true,
        ),
        None => (pattern, false),
    };
    let mut parts: Vec<Segment> = literal
        .split('/')
        .filter(|part| !(any_after && part.is_empty()))
        .map(|part| {
            if part == "**" {
                return Segment::Any;
            }
            match globset::GlobBuilder::new(part)
                .backslash_escape(true)
                .build()
            {
                Ok(glob) => Segment::Name(glob.compile_matcher()),
                Err(_) => Segment::Any,
            }
        })
        .collect();
    if any_after {
        parts.push(Segment::Any);
    }
    parts
}

impl WorkspaceGlobs {
    /// Whether some include pattern can match a folder below `rel` (a folder the walk
    /// reached): folders that cannot hold a package are not entered, nor recorded as
    /// inputs of the cache.
    fn may_hold(&self, rel: &str) -> bool {
        let parts: Vec<&str> = rel.split('/').collect();
        self.paths.iter().any(|segments| {
            for (i, part) in parts.iter().enumerate() {
                match segments.get(i) {
                    Some(Segment::Any) => return true,
                    Some(Segment::Name(glob)) if glob.is_match(part) => {}
                    _ => return false,
                }
            }
            segments.len() > parts.len()
        })
    }

    /// Compiles `patterns` with the package managers' semantics: `dir/**` also matches
    /// `dir`, brace sets (`{apps,libs}/*`) expand, `!` excludes. Patterns that would leave
    /// the root, are invalid, or come past [`MAX_WORKSPACE_PATTERNS`] are noted and dropped.
    fn new(patterns: &[String], notes: &mut Vec<String>) -> Self {
        let mut include = globset::GlobSetBuilder::new();
        let mut exclude = globset::GlobSetBuilder::new();
        let mut paths = Vec::new();
        let mut depth = 0;
        if patterns.len() > MAX_WORKSPACE_PATTERNS {
            notes.push(format!(
                "{} workspace patterns past the first {MAX_WORKSPACE_PATTERNS} are ignored",
                patterns.len() - MAX_WORKSPACE_PATTERNS
            ));
        }
        for raw in patterns.iter().take(MAX_WORKSPACE_PATTERNS) {
            if raw.len() > MAX_WORKSPACE_PATTERN_BYTES {
                notes.push(format!(
                    "a workspace pattern of {} bytes is ignored (the limit is \
                     {MAX_WORKSPACE_PATTERN_BYTES})",
                    raw.len()
                ));
                continue;
            }
            let (negated, pattern) = match raw.strip_prefix('!') {
                Some(rest) => (true, rest),
                None => (false, raw.as_str()),
            };
            let pattern = pattern.trim_start_matches("./").trim_end_matches('/');
            let path = Path::new(pattern);
            if pattern.is_empty()
                || path.is_absolute()
                || path.components().any(|c| matches!(c, Component::ParentDir))
            {
                notes.push(format!(
                    "workspace pattern `{raw}` reaches outside the root; ignored"
                ));
                continue;
            }
            // npm and pnpm count `dir/**` as `dir` and everything below it.
            let mut forms = vec![pattern];
            if let Some(base) = pattern.strip_suffix("/**") {
                forms.push(base);
            }
            let mut compiled = Vec::with_capacity(forms.len());
            for form in forms {
                match globset::GlobBuilder::new(form)
                    .literal_separator(true)
                    .backslash_escape(true)
                    .build()
                {
                    Ok(glob) => compiled.push(glob),
                    Err(err) => {
                        notes.push(format!("workspace pattern `{raw}` is invalid: {err}"));
                        compiled.clear();
                        break;
                    }
                }
            }
            if compiled.is_empty() {
                continue;
            }
            let target = if negated { &mut exclude } else { &mut include };
            for glob in compiled {
                target.add(glob);
            }
            if !negated {
                paths.push(segments(pattern));
                // Every `/` is a level at most (a brace set may hold several choices).
                depth = depth.max(if pattern.contains("**") {
                    MAX_WORKSPACE_DEPTH
                } else {
                    (pattern.matches('/').count() + 1).min(MAX_WORKSPACE_DEPTH)
                });
            }
        }
        let build = |builder: globset::GlobSetBuilder, notes: &mut Vec<String>| {
            builder.build().unwrap_or_else(|err| {
                notes.push(format!("workspace patterns cannot be matched: {err}"));
                globset::GlobSet::empty()
            })
        };
        let include = build(include, notes);
        let exclude = build(exclude, notes);
        if include.is_empty() {
            depth = 0;
        }
        Self {
            include,
            exclude,
            paths,
            depth,
        }
    }

    /// Whether the folder at `rel` is a workspace package folder.
    fn matches(&self, rel: &str) -> bool {
        // One candidate for both sets: making one copies and splits the path.
        let candidate = globset::Candidate::new(rel);
        self.include.is_match_candidate(&candidate) && !self.exclude.is_match_candidate(&candidate)
    }
}

/// Directories (relative, `/`-separated, sorted by their package.json path) matched by the
/// include patterns, not by a `!` pattern. The walk never enters `node_modules` or hidden
/// directories and never follows a symlink.
fn find_members(ctx: &Context<'_>, patterns: &[String], notes: &mut Vec<String>) -> Vec<String> {
    let root = ctx.root;
    let globs = WorkspaceGlobs::new(patterns, notes);
    let depth = globs.depth;
    let mut found = Vec::new();
    let mut stack = vec![(String::new(), 0usize)];
    while let Some((dir, level)) = stack.pop() {
        if level >= depth {
            continue;
        }
        // A folder's entries decide what matches: adding a package changes them.
        if ctx.records_inputs() {
            ctx.depends_on(root.join(&dir));
        }
        let Ok(entries) = std::fs::read_dir(root.join(&dir)) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            if name.starts_with('.') || NEVER_ENTERED.contains(&name.as_str()) {
                continue;
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let rel = if dir.is_empty() {
                name.clone()
            } else {
                format!("{dir}/{name}")
            };
            let matched = globs.matches(&rel);
            if kind.is_symlink() {
                if matched && root.join(&rel).join("package.json").is_file() {
                    notes.push(format!(
                        "workspace match `{rel}` is a symlink; not followed"
                    ));
                }
                continue;
            }
            if !kind.is_dir() {
                continue;
            }
            if matched {
                // Whether it holds a package.json is found when it is read.
                if ctx.records_inputs() {
                    ctx.depends_on(root.join(&rel).join("package.json"));
                }
                found.push(rel.clone());
            }
            // Folders deeper than any pattern reaches are never listed: not queued.
            if level + 1 < depth && globs.may_hold(&rel) {
                stack.push((rel, level + 1));
            }
        }
    }
    // The order of their manifests' paths: `a-b/package.json` before `a/package.json`.
    found.sort_unstable_by(|a, b| manifest_order(a, b));
    found
}

/// The order of `a/` and `b/` (so of `a/package.json` and `b/package.json`), without
/// building either: the common prefix is compared at once, then the bytes where they part.
fn manifest_order(a: &str, b: &str) -> std::cmp::Ordering {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let common = a.len().min(b.len());
    a[..common].cmp(&b[..common]).then_with(|| {
        let next = |s: &[u8]| s.get(common).copied().unwrap_or(b'/');
        next(a).cmp(&next(b)).then(a.len().cmp(&b.len()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Property: the manager the scripts call most is chosen, a tie or no call chooses
    /// none, and yarn is berry only with a `.yarnrc.yml`.
    #[test]
    fn the_manager_the_scripts_call() {
        let pick = |scripts: serde_json::Value, berry: bool| {
            called_by_scripts(&serde_json::json!({ "scripts": scripts }), berry)
        };
        let npm = serde_json::json!({"a": "npm run b && npm run c", "b": "bun x.ts", "c": "tsc"});
        assert_eq!(pick(npm, false), Some(PackageManager::Npm));
        let yarn = serde_json::json!({"a": "yarn b;yarn c", "b": "x"});
        assert_eq!(pick(yarn.clone(), false), Some(PackageManager::Yarn1));
        assert_eq!(pick(yarn, true), Some(PackageManager::YarnBerry));
        assert_eq!(
            pick(serde_json::json!({"a": "pnpm -r build|bunx x"}), false),
            None
        );
        assert_eq!(
            pick(serde_json::json!({"a": "tsc", "b": "npmx"}), false),
            None
        );
        assert_eq!(
            pick(serde_json::json!({"a": "(bunx vite)"}), false),
            Some(PackageManager::Bun)
        );
    }

    #[test]
    fn npm_inits_placeholder_is_an_aside() {
        assert!(is_placeholder(
            r#"echo "Error: no test specified" && exit 1"#
        ));
        assert!(!is_placeholder("vitest run"));
        assert!(!is_placeholder(
            r#"echo "Error: no test specified" && exit 1 || vitest"#
        ));
    }

    #[test]
    fn pnpm_workspace_lists() {
        let text = "# comment\npackages:\n  - 'apps/*'\n  - \"libs/**\" # trailing\n  - '!**/test/**'\ncatalog:\n  - nope\n";
        assert_eq!(
            parse_pnpm_workspace(text),
            ["apps/*", "libs/**", "!**/test/**"]
        );
        assert_eq!(
            parse_pnpm_workspace("packages: ['a/*', \"b\"]\n"),
            ["a/*", "b"]
        );
        assert!(parse_pnpm_workspace("other: 1\n").is_empty());
    }

    #[test]
    fn declared_manager_versions() {
        #[track_caller]
        fn case(name: &str, version: &str, want: Option<PackageManager>) {
            assert_eq!(PackageManager::from_declaration(name, version), want);
        }
        case("yarn", "1.22.22", Some(PackageManager::Yarn1));
        case("yarn", "4.18.1", Some(PackageManager::YarnBerry));
        case("yarn", "^3", Some(PackageManager::YarnBerry));
        case("pnpm", "12.21.0", Some(PackageManager::Pnpm));
        case("npm", "", Some(PackageManager::Npm));
        case("bun", "1.4.5", Some(PackageManager::Bun));
        case("deno", "2", None);
    }

    #[test]
    fn member_manifests() {
        let m = parse_member(
            br#"{"name":"a","deps":{"x":"1"},"scripts":{"b":"x","a":"y","n":1},"name":"z"}"#,
        )
        .expect("valid");
        assert_eq!(
            m,
            MemberManifest {
                name: Some("z".into()),
                scripts: vec!["b".into(), "a".into()],
                placeholders: Vec::new(),
            }
        );
        // npm's comment keys are not scripts.
        let m = parse_member(br#"{"scripts":{"//":"notes","// b":"more","b":"x","a//b":"y"}}"#)
            .expect("valid");
        assert_eq!(m.scripts, ["b", "a//b"]);
        let m = parse_member(b"\xEF\xBB\xBF{\"name\": 3, \"scripts\": []}").expect("valid");
        assert_eq!(m, MemberManifest::default());
        for scripts in ["\"x\"", "1", "-2", "1.5", "true", "null", "[{\"a\":\"b\"}]"] {
            let text = format!(r#"{{"scripts":{scripts},"name":"n"}}"#);
            let m = parse_member(text.as_bytes()).expect("valid");
            assert_eq!(
                (m.name.as_deref(), m.scripts.len()),
                (Some("n"), 0),
                "{scripts}"
            );
        }
        // A repeated script keeps its first place and its last body, as in `JSON.parse`;
        // bodies of any shape are read through.
        let m = parse_member(
            br#"{"scripts":{"a":"x","b":{"c":["d"]},"\u0061":1,"c":"y","b":"z","ab":"w"}}"#,
        )
        .expect("valid");
        assert_eq!(m.scripts, ["b", "c", "ab"]);
        // The same past the scan, through the index.
        let mut text = String::from(r#"{"scripts":{"first":1"#);
        for i in 0..100 {
            text.push_str(&format!(r#","s{i}":"x""#));
        }
        text.push_str(r#","first":"now a string","s7":false}}"#);
        let m = parse_member(text.as_bytes()).expect("valid");
        assert_eq!(m.scripts.len(), 100);
        assert_eq!(m.scripts[0], "first");
        assert!(!m.scripts.iter().any(|s| s == "s7"));
        assert_eq!(m.scripts[99], "s99");
        assert!(parse_member(br#"{"scripts":{"a":[1,}}"#).is_err());
        assert_eq!(
            parse_member(b"[1]").expect_err("array"),
            ManifestError::NotAnObject
        );
        assert!(
            parse_member(b"{")
                .expect_err("bad")
                .to_string()
                .starts_with("invalid JSON: ")
        );
    }

    #[test]
    fn manifests() {
        assert!(parse_manifest(b"\xEF\xBB\xBF{\"name\":\"x\"}").is_ok());
        assert_eq!(
            parse_manifest(b"[1]").expect_err("array"),
            ManifestError::NotAnObject
        );
        let err = parse_manifest(b"{\n  \"a\": ,\n}").expect_err("bad");
        assert_eq!(
            err.to_string(),
            "invalid JSON: expected value at line 2 column 8"
        );
    }

    #[test]
    fn workspace_globs_follow_the_package_managers() {
        #[track_caller]
        fn case(patterns: &[&str], yes: &[&str], no: &[&str]) {
            let patterns: Vec<String> = patterns.iter().map(|p| (*p).to_owned()).collect();
            let mut notes = Vec::new();
            let globs = WorkspaceGlobs::new(&patterns, &mut notes);
            assert_eq!(notes, Vec::<String>::new());
            for dir in yes {
                assert!(globs.matches(dir), "{patterns:?} should match {dir}");
            }
            for dir in no {
                assert!(!globs.matches(dir), "{patterns:?} should not match {dir}");
            }
        }
        case(
            &["tools/**"],
            &["tools", "tools/a", "tools/a/b"],
            &["toolsx", "other"],
        );
        case(
            &["{apps,libs}/*"],
            &["apps/web", "libs/ui"],
            &["apps", "apps/web/x", "docs/a"],
        );
        case(
            &["packages/**", "!packages/internal/**", "!**/fixtures/**"],
            &["packages/core", "packages/plugins/pay"],
            &[
                "packages/internal",
                "packages/internal/x",
                "packages/core/fixtures/s",
            ],
        );
        case(
            &["./apps/*/", "libs/legacy"],
            &["apps/web", "libs/legacy"],
            &["libs/ui"],
        );
    }

    #[test]
    fn the_walk_enters_only_folders_a_pattern_reaches_below() {
        let patterns: Vec<String> = ["{apps,libs}/*", "tools/**", "a/{b/c,d}/e"]
            .iter()
            .map(|p| (*p).to_owned())
            .collect();
        let globs = WorkspaceGlobs::new(&patterns, &mut Vec::new());
        for (rel, want) in [
            ("apps", true),
            ("apps/web", false),
            ("libs", true),
            ("docs", false),
            ("tools", true),
            ("tools/x/y", true),
            ("a/b/c/d", true),
        ] {
            assert_eq!(globs.may_hold(rel), want, "{rel}");
        }
    }

    /// Property: folders sort as the folders' names with a `/` after them do.
    #[test]
    fn members_sort_as_folder_paths() {
        let names = [
            "a", "a-b", "a/b", "a/b/c", "ab", "a.b", "b", "a/", "", "a0", "a/-",
        ];
        for a in names {
            for b in names {
                let want = format!("{a}/").cmp(&format!("{b}/"));
                assert_eq!(manifest_order(a, b), want, "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn workspace_patterns_are_bounded() {
        let mut patterns: Vec<String> = (0..MAX_WORKSPACE_PATTERNS + 5)
            .map(|i| format!("p{i}/*"))
            .collect();
        patterns[0] = "a".repeat(MAX_WORKSPACE_PATTERN_BYTES + 1);
        let mut notes = Vec::new();
        let globs = WorkspaceGlobs::new(&patterns, &mut notes);
        assert_eq!(
            notes,
            [
                "5 workspace patterns past the first 1000 are ignored".to_owned(),
                "a workspace pattern of 1001 bytes is ignored (the limit is 1000)".to_owned(),
            ]
        );
        assert!(globs.matches("p999/x") && !globs.matches("p1000/x"));
    }
}
