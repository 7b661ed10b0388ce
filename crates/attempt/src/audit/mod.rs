//! The auditor's room: `audit()` runs its rules in order over the candidate's changes and
//! gathers their findings. Its files are the rules' helpers: `tampering`, `loads` and `runs`
//! (code that reaches into what judges it, and the files it loads or runs as code), `shell`
//! (shell text read as words), `gaming` (the monitor's warnings), `scan` (counts and
//! literals of test files), `infrastructure` (what a runner reads to define a check),
//! `ran_from` (what the base's run ran tests from). It may use `shared/`, `store/` and the
//! `prepare` stage; nothing here uses a later stage.
//!
//! The audit of an attempt's candidate against its base: what the agent changed of what
//! judges it (frozen tests, protected files, test infrastructure), what in the tree git
//! would never read (nested repositories, links outside), and tampering in non-test code.
//! Any finding rejects the attempt. It also decides what the checks run: the frozen
//! files as the base has them, and which test files are the agent's own.

pub(super) mod gaming;
pub(super) mod helpers;
pub(super) mod infrastructure;
pub(super) mod loads;
pub(super) mod python_stdlib;
pub(super) mod ran_from;
pub(super) mod runs;
pub(super) mod scan;
pub(super) mod shell;
pub(super) mod tampering;
pub(super) mod vendored;

use std::collections::{BTreeMap, BTreeSet};

use super::shared::{FileText, Warning};
use super::shared::{Finding, FindingKind, MAX_READ_BYTES, Rules};
use super::store::{Entry, GITLINK, SYMLINK, Store};
use gaming::SourceChange;
use infrastructure::{Infra, Project};
use scan::Counts;
use speccoder_config::TestEdits;

/// Test files read by the gaming monitor at most, so a huge suite costs a bounded time.
const MAX_TEST_FILES_READ: usize = 300;

/// Files loaded as code at run time (`include!("impl.inc")`) that the scans read at most;
/// loading more, each new or changed, is a finding of its own.
const MAX_LOADED_FILES: usize = 64;

/// How many times a file loaded as code is followed into what it loads in turn (an `.inc`
/// that includes another).
const MAX_LOAD_DEPTH: usize = 4;

/// What the audit needs besides the two trees.
#[derive(Debug)]
pub(crate) struct Inputs<'a> {
    /// The store holding both trees' objects.
    pub(crate) store: &'a Store,
    /// Which paths are tests, protected, snapshots.
    pub(crate) rules: &'a Rules,
    /// Frozen tests or audited edits.
    pub(crate) test_edits: TestEdits,
    /// The withheld tests' repository paths, which replace whatever is there in the checks.
    pub(crate) withheld: &'a [String],
    /// The withheld tests' texts, for the gaming monitor.
    pub(crate) withheld_texts: &'a [FileText],
    /// The tasks file's repository path, restored from the base whatever the agent did.
    pub(crate) tasks_file: &'a str,
    /// Whether gaming warnings reject.
    pub(crate) reject_gaming: bool,
    /// What each check runs: its runner's id and its command (`mise`, `mise run test`).
    pub(crate) checks: &'a [(String, String)],
    /// Whether `[attempt] setup` has commands: they run again for a candidate that changes
    /// what they read, and may regenerate files the candidate carries (yarn's `.pnp.cjs`).
    pub(crate) setup: bool,
}

/// What the audit decided.
#[derive(Debug, Default)]
pub(crate) struct Audit {
    /// Everything that rejects the attempt.
    pub(crate) findings: Vec<Finding>,
    /// The gaming monitor's warnings.
    pub(crate) warnings: Vec<Warning>,
    /// Paths put back as the base has them in every tree the checks run (`None`: removed).
    pub(crate) restore: BTreeMap<String, Option<(String, String)>>,
    /// Test files the agent added: they run in the second pass only.
    pub(crate) agent_tests: Vec<String>,
    /// Frozen paths of the check tree, read-only while the checks run.
    pub(crate) frozen: Vec<String>,
    /// Things a person should know.
    pub(crate) notes: Vec<String>,
    /// The paths that differ between the base and the candidate.
    pub(crate) changed: Vec<String>,
    /// The Go modules (project folders, `""` for the root) whose `vendor/` the candidate
    /// changed: left to [`vendored::verify`], not frozen.
    pub(crate) vendored: Vec<String>,
    /// Files the setup writes that the candidate changed (yarn's `.pnp.cjs`): left to the
    /// check pass, which compares each with what the setup made of the candidate, not
    /// frozen.
    pub(crate) regenerated: Vec<String>,
}

/// How a path changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ChangeKind {
    Added,
    Modified,
    Deleted,
}

impl ChangeKind {
    fn word(self) -> &'static str {
        match self {
            Self::Added => "added",
            Self::Modified => "changed",
            Self::Deleted => "deleted",
        }
    }
}

/// The entries by path, and the paths that are not exactly their names (not UTF-8, or two
/// names that read the same).
fn by_path(entries: Vec<Entry>) -> (BTreeMap<String, Entry>, Vec<String>) {
    let mut map = BTreeMap::new();
    let mut unreadable = Vec::new();
    for entry in entries {
        if !entry.utf8 {
            unreadable.push(entry.path.clone());
        }
        if let Some(other) = map.insert(entry.path.clone(), entry) {
            unreadable.push(other.path);
        }
    }
    unreadable.sort();
    unreadable.dedup();
    (map, unreadable)
}

/// The most links followed when resolving one, as the kernel's own limit.
const MAX_LINK_HOPS: usize = 40;

/// Whether the link at `path` leaves the tree, following the candidate's other `links`
/// (path → target) on the way, as the kernel would: `.d/p1 -> up/..` with `.d/up -> ..`
/// leaves it although each target alone stays inside.
fn leaves_tree(path: &str, links: &BTreeMap<String, Vec<u8>>) -> bool {
    let mut stack: Vec<String> = path.split('/').map(str::to_owned).collect();
    stack.pop();
    let mut pending: std::collections::VecDeque<String> = std::collections::VecDeque::new();
    let mut hops = 0;
    let push_target = |target: &[u8], pending: &mut std::collections::VecDeque<String>| {
        let Ok(target) = std::str::from_utf8(target) else {
            return false;
        };
        if target.starts_with('/') || target.is_empty() {
            return false;
        }
        for part in target.split('/').rev() {
            pending.push_front(part.to_owned());
        }
        true
    };
    let Some(first) = links.get(path) else {
        return false;
    };
    if !push_target(first, &mut pending) {
        return true;
    }
    while let Some(part) = pending.pop_front() {
        match part.as_str() {
            "" | "." => {}
            ".." => {
                if stack.pop().is_none() {
                    return true;
                }
            }
            _ => {
                stack.push(part);
                if let Some(target) = links.get(&stack.join("/")) {
                    hops += 1;
                    stack.pop();
                    if hops > MAX_LINK_HOPS || !push_target(target, &mut pending) {
                        return true;
                    }
                }
            }
        }
    }
    false
}

/// The path the candidate's `links` (path → target) lead `path` to, each target read from
/// its link's folder; `None` when one leaves the repository or they loop.
fn through_links(path: &str, links: &BTreeMap<String, Vec<u8>>) -> Option<String> {
    let mut path = path.to_owned();
    for _ in 0..MAX_LINK_HOPS {
        let Some(target) = links.get(&path) else {
            return Some(path);
        };
        let folder = path.rsplit_once('/').map_or("", |(f, _)| f);
        path = loads::normalized(folder, std::str::from_utf8(target).ok()?)?;
    }
    None
}

/// The names of the links the candidate added or changed that lead to a base test file or
/// into a test folder (`t -> tests`): a word through such a link reaches the tests though it
/// names none.
fn test_links(
    rules: &Rules,
    base: &BTreeMap<String, Entry>,
    new: &BTreeMap<String, Entry>,
    links: &BTreeMap<String, Vec<u8>>,
) -> BTreeSet<String> {
    let tests: BTreeSet<&str> = base
        .keys()
        .filter(|p| rules.is_test(p))
        .map(String::as_str)
        .collect();
    let into_tests = |to: &str| {
        let folder = format!("{to}/");
        tests.contains(to)
            || tests
                .range(folder.as_str()..)
                .next()
                .is_some_and(|t| t.starts_with(&folder))
    };
    links
        .keys()
        .filter(|p| base.get(*p) != new.get(*p))
        .filter(|p| through_links(p, links).is_some_and(|to| into_tests(&to)))
        .map(|p| p.rsplit('/').next().unwrap_or(p).to_owned())
        .collect()
}

/// Whether `path` is compiled Python, which runs in place of its source.
fn compiled_python(path: &str) -> bool {
    path.ends_with(".pyc") || path.ends_with(".pyo") || path.contains("__pycache__/")
}

/// The names of files a loader runs as machine code by their name alone: Python's
/// extension modules, node's addons, shared and static libraries, Go's `.syso` objects
/// (linked into every binary of their package), WebAssembly.
const MACHINE_CODE_EXTENSIONS: &[&str] = &[
    ".a", ".dll", ".dylib", ".node", ".o", ".pyd", ".so", ".syso", ".wasm",
];

/// What `bytes` (or, unread, `path`'s name) say a file of machine code is: an object a
/// loader maps and runs (an extension module `import calc` picks before `calc.py` is gone,
/// an addon `require` loads, a `.syso` go links, a library `ctypes` opens). Nothing reads
/// its code, so what it does in the test process (forge the report in one pass of the
/// checks, answer the tests it reads) is unseen; measured: a C extension `calc.so` that
/// patched pytest only when the visible test held its original value passed with wrong
/// code (`cheats::machine_code_*` in the integration tests).
fn machine_code(path: &str, bytes: Option<&[u8]>) -> Option<&'static str> {
    let Some(bytes) = bytes else {
        let name = path.rsplit('/').next().unwrap_or(path);
        let versioned = name.contains(".so.");
        return (versioned || MACHINE_CODE_EXTENSIONS.iter().any(|e| name.ends_with(e)))
            .then_some("a compiled object (by its name; too large to read)");
    };
    let head = |magic: &[u8]| bytes.starts_with(magic);
    if head(b"\x7fELF") {
        (!elf_executable(bytes)).then_some("an ELF object")
    } else if head(b"\xcf\xfa\xed\xfe") || head(b"\xce\xfa\xed\xfe") {
        // Little-endian Mach-O, whose `filetype` says an executable (2).
        let filetype = bytes
            .get(12..16)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        (filetype != Some(2)).then_some("a Mach-O object")
    } else if [
        b"\xfe\xed\xfa\xce",
        b"\xfe\xed\xfa\xcf",
        b"\xce\xfa\xed\xfe",
        b"\xcf\xfa\xed\xfe",
        b"\xca\xfe\xba\xbe",
    ]
    .iter()
    .any(|m| head(*m))
    {
        Some("a Mach-O object")
    } else if head(b"\0asm") {
        Some("a WebAssembly module")
    } else if head(b"!<arch>\n") {
        Some("an archive of objects")
    } else if head(b"MZ") && bytes.iter().take(1024).any(|b| *b == 0) {
        Some("a PE object")
    } else {
        None
    }
}

/// Whether an ELF file is a program (`go build`'s or `cc -o`'s output an honest agent may
/// leave), which no loader maps into a test process: `ET_EXEC`, or an `ET_DYN` marked
/// position-independent (`DF_1_PIE` in `DT_FLAGS_1`: glibc refuses to `dlopen` it). A
/// shared object, even one with an interpreter (`libc.so.6` has one and loads), and a
/// relocatable object (`ET_REL`, a `.syso`) are not.
fn elf_executable(bytes: &[u8]) -> bool {
    const PT_DYNAMIC: u64 = 2;
    const DT_FLAGS_1: u64 = 0x6fff_fffb;
    const DF_1_PIE: u64 = 0x0800_0000;
    let wide = bytes.get(4) == Some(&2);
    let little = bytes.get(5) == Some(&1);
    let int = |at: usize, size: usize| -> Option<u64> {
        let field = bytes.get(at..at.checked_add(size)?)?;
        let mut value = 0u64;
        for k in 0..size {
            let byte = if little {
                field[size - 1 - k]
            } else {
                field[k]
            };
            value = value << 8 | u64::from(byte);
        }
        Some(value)
    };
    let at = |v: u64| usize::try_from(v).ok();
    let word = if wide { 8 } else { 4 };
    let read = || -> Option<bool> {
        match int(16, 2)? {
            2 => return Some(true),
            3 => {}
            _ => return Some(false),
        }
        let (phoff, entsize, count) = if wide {
            (int(32, 8)?, int(54, 2)?, int(56, 2)?)
        } else {
            (int(28, 4)?, int(42, 2)?, int(44, 2)?)
        };
        let (phoff, entsize) = (at(phoff)?, at(entsize)?);
        // The dynamic segment's place in the file: p_offset and p_filesz.
        let (offset_at, size_at) = if wide { (8, 32) } else { (4, 16) };
        let dynamic = (0..at(count)?).find_map(|k| {
            let header = phoff.checked_add(k.checked_mul(entsize)?)?;
            (int(header, 4)? == PT_DYNAMIC)
                .then(|| {
                    Some((
                        at(int(header + offset_at, word)?)?,
                        at(int(header + size_at, word)?)?,
                    ))
                })
                .flatten()
        })?;
        let entries = dynamic.1 / (2 * word);
        Some((0..entries.min(4096)).any(|k| {
            let entry = dynamic.0 + k * 2 * word;
            int(entry, word) == Some(DT_FLAGS_1)
                && int(entry + word, word).is_some_and(|flags| flags & DF_1_PIE != 0)
        }))
    };
    read().unwrap_or(false)
}

/// The project's own top-level Python modules in `entries`: what a file in a test folder
/// must not be named after.
fn python_modules(entries: &BTreeMap<String, Entry>, rules: &Rules) -> Vec<String> {
    let mut modules = BTreeSet::new();
    for path in entries.keys() {
        let rel = rules.project(path);
        let rel = rel.strip_prefix("src/").unwrap_or(rel);
        if rules.is_test(path) {
            continue;
        }
        match rel.split_once('/') {
            Some((package, "__init__.py")) => {
                modules.insert(package.to_owned());
            }
            None => {
                if let Some(module) = rel.strip_suffix(".py") {
                    modules.insert(module.to_owned());
                }
            }
            _ => {}
        }
    }
    modules.into_iter().collect()
}

/// The part of `path` inside a Python package's metadata folder (`x-1.0.dist-info/`,
/// `x.egg-info/`), with that folder's name: `x.egg-info/entry_points.txt`.
fn python_metadata(path: &str) -> Option<&str> {
    let mut at = 0;
    for part in path.split('/') {
        let end = at + part.len();
        if end < path.len() && (part.ends_with(".dist-info") || part.ends_with(".egg-info")) {
            return Some(&path[at..]);
        }
        at = end + 1;
    }
    None
}

/// Whether an `entry_points.txt` registers a plugin a test runner loads by itself.
fn registers_runner_plugin(text: &str) -> bool {
    text.lines().any(|line| {
        let line: String = line.chars().filter(|c| !c.is_whitespace()).collect();
        line.eq_ignore_ascii_case("[pytest11]")
    })
}

/// Audits the candidate tree against the base tree (both tree or commit ids in `store`).
///
/// The rules run in order over every changed path, the first that decides a path ending
/// its turn; then the tampering scan over the changed sources and what they load, the
/// gaming monitor, and the frozen paths of the check tree.
pub(crate) fn audit(base: &str, candidate: &str, inputs: &Inputs<'_>) -> Result<Audit, String> {
    let (base_entries, unreadable_at_base) = by_path(inputs.store.entries(base)?);
    let (new_entries, unreadable) = by_path(inputs.store.entries(candidate)?);
    let mut audit = Audit::default();
    unreadable_names(&mut audit, &unreadable, &unreadable_at_base);
    if !audit.findings.is_empty() {
        return Ok(audit);
    }
    let changes = changes(&base_entries, &new_entries);
    audit.changed = changes.iter().map(|(p, _)| p.clone()).collect();
    let sides = BothTrees::read(inputs, base_entries, new_entries, &changes)?;
    let mut sources: Vec<SourceChange> = Vec::new();
    'changes: for (path, how) in &changes {
        let change = sides.change(path, *how);
        for rule in PATH_RULES {
            if rule(&sides, &change, &mut audit) == RuleOutcome::Done {
                continue 'changes;
            }
        }
        sources.extend(non_test_code(&sides, &change, &mut audit));
    }
    let steered = steered_loads(&sides, &sources, &mut audit)?;
    let runners = unchanged_runners(&sides, &changes)?;
    let sources = scan_sources(&sides, sources, &runners, steered, &mut audit)?;
    monitor_gaming(&sides, &sources, &mut audit)?;
    freeze(&sides, &mut audit);
    Ok(audit)
}

/// Whether a rule decided a path, or leaves it to the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RuleOutcome {
    /// The rule decided the path: no later rule sees it.
    Done,
    /// The path is not the rule's: the next rule judges it.
    Pass,
}

/// A rule over one changed path.
type PathRule = fn(&BothTrees<'_>, &Change<'_>, &mut Audit) -> RuleOutcome;

/// The rules over each changed path, in the order they judge it; the first that decides a
/// path ends its turn, and a path no rule decides is non-test code.
const PATH_RULES: &[PathRule] = &[
    unreachable_entry,
    tasks_file,
    withheld_path,
    protected,
    python_metadata_rule,
    included_file,
    infrastructure_file,
    snapshot,
    compiled_or_shadowing,
    test_file,
];

impl Audit {
    /// Adds a finding of `kind` at `path`.
    fn add(&mut self, kind: FindingKind, path: &str, detail: String) {
        self.findings.push(Finding {
            kind,
            path: path.to_owned(),
            detail,
        });
    }
}

/// A name read lossily could stand for another file: every rule would judge the wrong one.
fn unreadable_names(audit: &mut Audit, unreadable: &[String], at_base: &[String]) {
    for path in unreadable.iter().filter(|p| !at_base.contains(p)) {
        audit.add(
            FindingKind::UnreadableName,
            path,
            "a name that is not UTF-8, or reads as another: speccoder cannot judge it".into(),
        );
    }
}

/// Every path that differs, with how, in path order.
fn changes(
    base: &BTreeMap<String, Entry>,
    new: &BTreeMap<String, Entry>,
) -> Vec<(String, ChangeKind)> {
    let mut changes: Vec<(String, ChangeKind)> = Vec::new();
    for (path, entry) in new {
        match base.get(path) {
            None => changes.push((path.clone(), ChangeKind::Added)),
            Some(old) if old.object != entry.object || old.mode != entry.mode => {
                changes.push((path.clone(), ChangeKind::Modified));
            }
            Some(_) => {}
        }
    }
    for path in base.keys() {
        if !new.contains_key(path) {
            changes.push((path.clone(), ChangeKind::Deleted));
        }
    }
    changes.sort_by(|a, b| a.0.cmp(&b.0));
    changes
}

/// What the rules read: both trees, the texts of their changes, and what the base defines.
struct BothTrees<'a> {
    inputs: &'a Inputs<'a>,
    base: BTreeMap<String, Entry>,
    new: BTreeMap<String, Entry>,
    /// The texts the audit reads, by object: both sides of every change, and every new link.
    blobs: BTreeMap<String, Option<Vec<u8>>>,
    /// Every link of the candidate (path → target), to resolve links through each other.
    links: BTreeMap<String, Vec<u8>>,
    /// The files the base's makefiles, justfiles and Taskfiles include, with the file that
    /// includes each: frozen whatever their names, present or not.
    included: BTreeMap<String, String>,
    withheld: BTreeSet<&'a str>,
    context: tampering::Context,
    project: Project,
}

/// One changed path, as the rules see it.
struct Change<'c> {
    path: &'c str,
    /// The path from the project root.
    rel: &'c str,
    how: ChangeKind,
    old: Option<&'c Entry>,
    new: Option<&'c Entry>,
}

impl<'a> BothTrees<'a> {
    /// Reads what the rules need of both trees, in as few batches as the store allows.
    fn read(
        inputs: &'a Inputs<'a>,
        base: BTreeMap<String, Entry>,
        new: BTreeMap<String, Entry>,
        changes: &[(String, ChangeKind)],
    ) -> Result<Self, String> {
        let rules = inputs.rules;
        let project = Project {
            go: new
                .keys()
                .chain(base.keys())
                .any(|p| p == "go.mod" || p.ends_with("/go.mod")),
            runs: what_checks_run(inputs, &base)?,
        };
        let blobs = changed_blobs(inputs.store, &base, &new, changes)?;
        let links = links(inputs.store, &new)?;
        let included = included(inputs.store, rules, &base)?;
        let test_imports = test_imports(inputs, &base, changes)?;
        let context = tampering::Context {
            test_paths: base
                .keys()
                .filter(|p| rules.is_test(p))
                .map(|p| rules.project(p).to_owned())
                .collect(),
            project_modules: python_modules(&base, rules),
            test_imports,
            go_folders: new
                .keys()
                .filter(|p| p.ends_with(".go"))
                .map(|p| {
                    rules
                        .project(p)
                        .rsplit_once('/')
                        .map_or("", |(f, _)| f)
                        .to_owned()
                })
                .collect(),
            test_links: test_links(rules, &base, &new, &links),
        };
        Ok(Self {
            withheld: inputs.withheld.iter().map(String::as_str).collect(),
            inputs,
            base,
            new,
            blobs,
            links,
            included,
            context,
            project,
        })
    }

    /// How the repository path `path` is test infrastructure: by its project path, or, when
    /// a check runs through mise, as a mise config in a folder above the project's (mise
    /// reads those of every folder above the one it runs in).
    fn classify(&self, path: &str) -> Option<Infra> {
        let rules = self.inputs.rules;
        infrastructure::classify(rules.project(path), self.project).or_else(|| {
            (self.project.runs.mise && infrastructure::mise_config_above(path, rules.prefix()))
                .then_some(Infra::Whole(infrastructure::MISE))
        })
    }

    /// The base's runner file that includes `path`, itself or a folder above it.
    fn included_by(&self, path: &str) -> Option<&String> {
        self.included.get(path).or_else(|| {
            path.match_indices('/')
                .find_map(|(at, _)| self.included.get(&path[..=at]))
        })
    }

    /// The change at `path`.
    fn change<'c>(&'c self, path: &'c str, how: ChangeKind) -> Change<'c> {
        Change {
            path,
            rel: self.inputs.rules.project(path),
            how,
            old: self.base.get(path),
            new: self.new.get(path),
        }
    }

    /// The bytes of `path` in `entries`: `None` when it is not there, `Some(None)` when it
    /// is too large to read.
    fn bytes(&self, entries: &BTreeMap<String, Entry>, path: &str) -> Option<Option<&[u8]>> {
        entries
            .get(path)
            .map(|e| self.blobs.get(&e.object).and_then(|b| b.as_deref()))
    }

    /// The text of `path` in `entries`, read lossily, as [`Sides::bytes`].
    fn text(&self, entries: &BTreeMap<String, Entry>, path: &str) -> Option<Option<String>> {
        self.bytes(entries, path)
            .map(|b| b.map(|b| String::from_utf8_lossy(b).into_owned()))
    }
}

/// The most files read to learn what the checks run.
const MAX_CHECK_FILES: usize = 64;

/// What the checks run: their commands, and what the base's files that their runners read
/// for their tasks say those run ([`infrastructure::task_text`]: a Makefile's `lint:`
/// recipe runs `eslint`). A runner file that names a tool in a task no check runs counts
/// too: the configuration it would read is
/// frozen rather than left free to an edit that changes what a check reports.
fn what_checks_run(
    inputs: &Inputs<'_>,
    base: &BTreeMap<String, Entry>,
) -> Result<infrastructure::Runs, String> {
    let rules = inputs.rules;
    let defs: Vec<&speccoder_runners::RunnerDef> = inputs
        .checks
        .iter()
        .filter_map(|(id, _)| speccoder_runners::RunnerDef::of(id))
        .collect();
    let (names, files): (Vec<&str>, Vec<String>) = base
        .values()
        .filter(|e| e.mode != GITLINK && e.mode != SYMLINK)
        .filter_map(|e| {
            let rel = rules.project(&e.path);
            let name = rel.rsplit('/').next().unwrap_or(rel);
            defs.iter()
                .any(|def| def.reads_file(name))
                .then(|| (name, e.object.clone()))
        })
        .take(MAX_CHECK_FILES)
        .unzip();
    let mut text: String = inputs
        .checks
        .iter()
        .map(|(_, command)| format!("{command}\n"))
        .collect();
    let texts = inputs.store.read_blobs(&files, MAX_STEERING_BYTES)?;
    for (name, bytes) in names.into_iter().zip(texts) {
        let Some(bytes) = bytes else { continue };
        text.push_str(&infrastructure::task_text(name, &lossy(&bytes)));
        text.push('\n');
    }
    // A mise task's command is `mise run NAME`: the word says it runs through mise.
    Ok(infrastructure::Runs::of(&text))
}

/// The standard modules the base's Python tests, conftest files and protected files (the
/// acceptance tests among them) and the withheld tests import, with what those load ([`tampering::python_imports`]); read only when the
/// candidate adds a Python file named like a standard module, at most
/// [`MAX_TEST_FILES_READ`] files.
fn test_imports(
    inputs: &Inputs<'_>,
    base: &BTreeMap<String, Entry>,
    changes: &[(String, ChangeKind)],
) -> Result<BTreeSet<String>, String> {
    let rules = inputs.rules;
    let standard_name = changes.iter().any(|(path, how)| {
        let rel = rules.project(path);
        *how == ChangeKind::Added
            && rel.ends_with(".py")
            && rel.split('/').any(|part| {
                let name = part.strip_suffix(".py").unwrap_or(part);
                python_stdlib::STDLIB.binary_search(&name).is_ok()
            })
    });
    if !standard_name {
        return Ok(BTreeSet::new());
    }
    let tests: Vec<&Entry> = base
        .values()
        .filter(|e| {
            e.path.ends_with(".py")
                && (rules.is_test(&e.path)
                    || rules.is_protected(&e.path)
                    || e.path.ends_with("conftest.py"))
                && e.mode != GITLINK
                && e.mode != SYMLINK
        })
        .take(MAX_TEST_FILES_READ)
        .collect();
    let objects: Vec<String> = tests.iter().map(|e| e.object.clone()).collect();
    let texts: Vec<String> = inputs
        .store
        .read_blobs(&objects, MAX_READ_BYTES)?
        .into_iter()
        .flatten()
        .map(|b| lossy(&b))
        .collect();
    let withheld = inputs.withheld_texts.iter().map(|t| t.text.as_str());
    Ok(tampering::python_imports(
        texts.iter().map(String::as_str).chain(withheld),
    ))
}

/// The texts the audit reads, in one batch: both sides of every change that is not plainly
/// frozen, and every new link.
fn changed_blobs(
    store: &Store,
    base: &BTreeMap<String, Entry>,
    new: &BTreeMap<String, Entry>,
    changes: &[(String, ChangeKind)],
) -> Result<BTreeMap<String, Option<Vec<u8>>>, String> {
    let mut wanted: Vec<String> = Vec::new();
    for (path, _) in changes {
        for entries in [base, new] {
            if let Some(e) = entries.get(path)
                && e.mode != GITLINK
            {
                wanted.push(e.object.clone());
            }
        }
    }
    wanted.sort();
    wanted.dedup();
    Ok(wanted
        .iter()
        .cloned()
        .zip(store.read_blobs(&wanted, MAX_READ_BYTES)?)
        .collect())
}

/// Every link of the candidate, to resolve links through each other.
fn links(
    store: &Store,
    new: &BTreeMap<String, Entry>,
) -> Result<BTreeMap<String, Vec<u8>>, String> {
    let link_entries: Vec<&Entry> = new.values().filter(|e| e.mode == SYMLINK).collect();
    let objects: Vec<String> = link_entries.iter().map(|e| e.object.clone()).collect();
    Ok(link_entries
        .iter()
        .zip(store.read_blobs(&objects, 4096)?)
        .map(|(e, target)| (e.path.clone(), target.unwrap_or_default()))
        .collect())
}

/// The files the base's makefiles, justfiles and Taskfiles include, and the files of the
/// crates a base `Cargo.toml` takes from a folder for its tests alone: frozen whatever
/// their names, present or not.
fn included(
    store: &Store,
    rules: &Rules,
    base: &BTreeMap<String, Entry>,
) -> Result<BTreeMap<String, String>, String> {
    let runner_files: Vec<&Entry> = base
        .values()
        .filter(|e| {
            let rel = rules.project(&e.path);
            infrastructure::runner_file(rel).is_some()
                || rel == "Cargo.toml"
                || rel.ends_with("/Cargo.toml")
        })
        .collect();
    let objects: Vec<String> = runner_files.iter().map(|e| e.object.clone()).collect();
    let mut included = BTreeMap::new();
    for (entry, text) in runner_files
        .iter()
        .zip(store.read_blobs(&objects, MAX_READ_BYTES)?)
    {
        let Some(text) = text else { continue };
        let rel = rules.project(&entry.path);
        let prefix = &entry.path[..entry.path.len() - rel.len()];
        let text = String::from_utf8_lossy(&text);
        for file in infrastructure::included(rel, &text) {
            // A folder (mise's `[task_config] includes = ["tasks"]`): every file in it,
            // and a file added there later ([`included_file`]).
            let folder = format!("{prefix}{file}/");
            if base.keys().any(|p| p.starts_with(&folder)) {
                included.insert(folder, rel.to_owned());
            }
            included.insert(format!("{prefix}{file}"), rel.to_owned());
        }
        for folder in infrastructure::test_helper_crates(rel, &text) {
            let under = format!("{prefix}{folder}/");
            for path in base.keys().filter(|p| p.starts_with(&under)) {
                included.insert(path.clone(), rel.to_owned());
            }
        }
    }
    Ok(included)
}

/// What git would never read, or what reaches outside the tree.
fn unreachable_entry(sides: &BothTrees<'_>, change: &Change<'_>, audit: &mut Audit) -> RuleOutcome {
    let (path, Some(entry)) = (change.path, change.new) else {
        return RuleOutcome::Pass;
    };
    if entry.mode == GITLINK {
        audit.add(
            FindingKind::NestedRepository,
            path,
            "a nested git repository: its files are not part of the candidate, and the checks would not run them".into(),
        );
        return RuleOutcome::Done;
    }
    if entry.mode == SYMLINK
        && let Some(target) = sides.links.get(path)
        && leaves_tree(path, &sides.links)
    {
        audit.add(
            FindingKind::LinkOutside,
            path,
            format!(
                "a symbolic link to `{}`, outside the tree",
                String::from_utf8_lossy(target)
            ),
        );
        return RuleOutcome::Done;
    }
    RuleOutcome::Pass
}

/// The tasks file: speccoder ticks the task itself, so the agent's edit is left out.
fn tasks_file(sides: &BothTrees<'_>, change: &Change<'_>, audit: &mut Audit) -> RuleOutcome {
    let path = change.path;
    if path != sides.inputs.tasks_file {
        return RuleOutcome::Pass;
    }
    if change.how != ChangeKind::Deleted || change.old.is_some() {
        let restore_base = change.old.map(|e| (e.mode.clone(), e.object.clone()));
        audit.restore.insert(path.to_owned(), restore_base);
        audit.notes.push(format!(
            "the agent's edit of {path} was left out: speccoder ticks the task itself"
        ));
    }
    RuleOutcome::Done
}

/// A path where a withheld test goes.
fn withheld_path(sides: &BothTrees<'_>, change: &Change<'_>, audit: &mut Audit) -> RuleOutcome {
    if !sides.withheld.contains(change.path) {
        return RuleOutcome::Pass;
    }
    audit.add(
        FindingKind::TestChanged,
        change.path,
        format!(
            "{} where a withheld test goes: the checks run the withheld test instead",
            change.how.word()
        ),
    );
    RuleOutcome::Done
}

/// A protected file.
fn protected(sides: &BothTrees<'_>, change: &Change<'_>, audit: &mut Audit) -> RuleOutcome {
    if !sides.inputs.rules.is_protected(change.path) {
        return RuleOutcome::Pass;
    }
    audit.add(
        FindingKind::ProtectedChanged,
        change.path,
        format!("protected file {}", change.how.word()),
    );
    RuleOutcome::Done
}

/// Python's package metadata: what pytest loads as a plugin from anywhere on `sys.path`,
/// the project root included, and the build metadata an honest `pip install -e .` leaves.
fn python_metadata_rule(
    sides: &BothTrees<'_>,
    change: &Change<'_>,
    audit: &mut Audit,
) -> RuleOutcome {
    let (path, rel, how) = (change.path, change.rel, change.how);
    let Some(metadata) = python_metadata(rel) else {
        return RuleOutcome::Pass;
    };
    let registers = how != ChangeKind::Deleted
        && metadata.ends_with("entry_points.txt")
        && sides
            .text(&sides.new, path)
            .flatten()
            .is_some_and(|t| registers_runner_plugin(&t));
    if registers {
        audit.add(
            FindingKind::Tampering,
            path,
            "package metadata that registers a test-runner plugin (`[pytest11]`): pytest loads it into every run".into(),
        );
        return RuleOutcome::Done;
    }
    if how == ChangeKind::Added && !rel.ends_with(".pth") {
        // Build metadata an honest `pip install -e .` leaves: not part of the work.
        audit.restore.insert(path.to_owned(), None);
        let inside = metadata.split_once('/').map_or(metadata, |(f, _)| f);
        let folder = format!("{}{inside}/", &path[..path.len() - metadata.len()]);
        let note = format!("{folder} (package build metadata) was left out of the candidate");
        if !audit.notes.contains(&note) {
            audit.notes.push(note);
        }
        return RuleOutcome::Done;
    }
    RuleOutcome::Pass
}

/// A file a base makefile, justfile or Taskfile includes.
fn included_file(sides: &BothTrees<'_>, change: &Change<'_>, audit: &mut Audit) -> RuleOutcome {
    let Some(by) = sides.included_by(change.path) else {
        return RuleOutcome::Pass;
    };
    audit.add(
        FindingKind::TestConfigChanged,
        change.path,
        format!(
            "a file `{by}` includes (or takes for its tests alone), which defines the checks, was {}{}",
            change.how.word(),
            first_new_line(sides, change.path),
        ),
    );
    RuleOutcome::Done
}

/// Test infrastructure: a file that defines the checks whole, or the frozen keys of a
/// manifest.
fn infrastructure_file(
    sides: &BothTrees<'_>,
    change: &Change<'_>,
    audit: &mut Audit,
) -> RuleOutcome {
    let (path, how) = (change.path, change.how);
    match sides.classify(change.path) {
        Some(Infra::Whole(infrastructure::VENDOR)) => {
            // Compared with what `go mod vendor` makes of the candidate's go.mod.
            let module = vendor_module(change.rel);
            if !audit.vendored.contains(&module) {
                audit.vendored.push(module);
            }
            RuleOutcome::Done
        }
        Some(Infra::Whole(infrastructure::YARN))
            if sides.inputs.setup && how != ChangeKind::Deleted && regenerated(change.rel) =>
        {
            audit.regenerated.push(path.to_owned());
            RuleOutcome::Done
        }
        Some(Infra::Whole(what)) => {
            // A new empty file does nothing (an `__init__.py` of a new test folder).
            let empty_new = how == ChangeKind::Added
                && matches!(sides.bytes(&sides.new, path), Some(Some(b)) if b.iter().all(u8::is_ascii_whitespace));
            if !empty_new {
                let at = first_new_line(sides, path);
                audit.add(
                    FindingKind::TestConfigChanged,
                    path,
                    format!("{what}, which defines the checks, was {}{at}", how.word()),
                );
            }
            RuleOutcome::Done
        }
        Some(Infra::Keys) => {
            let old = sides.text(&sides.base, path).flatten();
            let new = sides.text(&sides.new, path).flatten();
            let workspaces = if change.rel.ends_with("Cargo.toml") {
                cargo_workspaces(sides, change)
            } else {
                Vec::new()
            };
            let member = |folder: &str| {
                workspaces
                    .iter()
                    .any(|(root, text)| infrastructure::workspace_member(root, text, folder))
            };
            if let Some(detail) = infrastructure::frozen_keys_changed_in(
                change.rel,
                old.as_deref(),
                new.as_deref(),
                sides.project.runs,
                &member,
            ) {
                let at = new
                    .as_deref()
                    .and_then(|new| first_line_naming(old.as_deref().unwrap_or(""), new, &detail))
                    .unwrap_or_default();
                audit.add(
                    FindingKind::TestConfigChanged,
                    path,
                    format!("{detail}{at}"),
                );
            }
            RuleOutcome::Done
        }
        None => RuleOutcome::Pass,
    }
}

/// Whether `rel` is a file yarn's install writes from the manifests and the lockfile (its
/// Plug'n'Play loaders), which the setup makes again for a candidate that changes them.
fn regenerated(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    matches!(name, ".pnp.cjs" | ".pnp.loader.mjs")
}

/// The module folder of a path in a Go `vendor/` folder (`svc` of `svc/vendor/x/y.go`, `""`
/// at the root).
fn vendor_module(rel: &str) -> String {
    if rel.starts_with("vendor/") {
        return String::new();
    }
    rel.split_once("/vendor/")
        .map_or_else(String::new, |(module, _)| module.to_owned())
}

/// `: line N: `…`` for the first line the candidate's `path` adds, where the file is text
/// and one is new; empty otherwise.
fn first_new_line(sides: &BothTrees<'_>, path: &str) -> String {
    let old = sides.text(&sides.base, path).flatten().unwrap_or_default();
    let new = sides.text(&sides.new, path).flatten().unwrap_or_default();
    scan::added_lines(&old, &new)
        .first()
        .map(|(n, line)| {
            let line: String = line.trim().chars().take(120).collect();
            format!(": line {n}: `{line}`")
        })
        .unwrap_or_default()
}

/// The candidate's `Cargo.toml` files that hold a `[workspace]`, at the changed manifest
/// and in each folder above it inside the project, with their texts (project paths).
fn cargo_workspaces(sides: &BothTrees<'_>, change: &Change<'_>) -> Vec<(String, String)> {
    let prefix = &change.path[..change.path.len() - change.rel.len()];
    let mut folder = change.rel.rsplit_once('/').map_or("", |(f, _)| f);
    let mut manifests = Vec::new();
    loop {
        let rel = if folder.is_empty() {
            "Cargo.toml".to_owned()
        } else {
            format!("{folder}/Cargo.toml")
        };
        if let Some(entry) = sides.new.get(&format!("{prefix}{rel}")) {
            manifests.push((rel, entry.object.clone()));
        }
        if folder.is_empty() {
            break;
        }
        folder = folder.rsplit_once('/').map_or("", |(f, _)| f);
    }
    let objects: Vec<String> = manifests.iter().map(|(_, o)| o.clone()).collect();
    let texts = sides
        .inputs
        .store
        .read_blobs(&objects, MAX_STEERING_BYTES)
        .unwrap_or_default();
    manifests
        .into_iter()
        .zip(texts)
        .filter_map(|((rel, _), text)| Some((rel, lossy(&text?))))
        .filter(|(_, text)| text.contains("workspace"))
        .collect()
}

/// `: line N: `…`` for the first line `new` adds to `old` that holds a name the `detail`
/// quotes (`[dev-dependencies] th` names `th`), if one does.
fn first_line_naming(old: &str, new: &str, detail: &str) -> Option<String> {
    let names: Vec<&str> = detail
        .split('`')
        .skip(1)
        .step_by(2)
        .filter_map(|quoted| quoted.rsplit([' ', '.', ']']).next())
        .filter(|name| !name.is_empty())
        .collect();
    scan::added_lines(old, new)
        .into_iter()
        .find(|(_, line)| {
            line.split(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-')))
                .any(|word| names.contains(&word))
        })
        .map(|(n, line)| {
            let line: String = line.trim().chars().take(120).collect();
            format!(": line {n}: `{line}`")
        })
}

/// A snapshot file: changed, deleted, or a pending one accepted.
fn snapshot(sides: &BothTrees<'_>, change: &Change<'_>, audit: &mut Audit) -> RuleOutcome {
    let (path, how) = (change.path, change.how);
    if !sides.inputs.rules.is_snapshot(path) {
        return RuleOutcome::Pass;
    }
    let pending = [format!("{path}.new"), format!("{path}.pending-snap")];
    let accepted = how == ChangeKind::Added && pending.iter().any(|p| sides.base.contains_key(p));
    if how != ChangeKind::Added || accepted {
        let word = if accepted { "accepted" } else { how.word() };
        audit.add(
            FindingKind::SnapshotChanged,
            path,
            format!("snapshot {word}: the tests are checked against it"),
        );
    }
    RuleOutcome::Done
}

/// A new file that runs in place of code: compiled Python, or a module that shadows one the
/// tests import; and machine code, new or changed.
fn compiled_or_shadowing(
    sides: &BothTrees<'_>,
    change: &Change<'_>,
    audit: &mut Audit,
) -> RuleOutcome {
    if change.new.is_none() {
        return RuleOutcome::Pass;
    }
    let bytes = sides.bytes(&sides.new, change.path).flatten();
    if let Some(what) = machine_code(change.rel, bytes) {
        audit.add(
            FindingKind::Tampering,
            change.path,
            format!(
                "machine code ({what}) {}: a loader runs it in the checks, and nobody reads what it does; commit its source and build it in `[attempt] setup`",
                change.how.word()
            ),
        );
        return RuleOutcome::Done;
    }
    if change.how != ChangeKind::Added {
        return RuleOutcome::Pass;
    }
    if compiled_python(change.rel) {
        audit.add(
            FindingKind::Tampering,
            change.path,
            "compiled Python: it runs in place of its source, which nobody reviews".into(),
        );
        return RuleOutcome::Done;
    }
    if let Some(detail) = tampering::shadows(change.rel, &sides.context) {
        audit.add(FindingKind::Tampering, change.path, detail);
        return RuleOutcome::Done;
    }
    RuleOutcome::Pass
}

/// A test file: the agent's own new one runs in the second pass; an existing one is frozen,
/// or its edits are audited.
fn test_file(sides: &BothTrees<'_>, change: &Change<'_>, audit: &mut Audit) -> RuleOutcome {
    let path = change.path;
    if !sides.inputs.rules.is_test(path) {
        return RuleOutcome::Pass;
    }
    match (change.old, sides.inputs.test_edits) {
        // The agent's own new test: the second pass runs it.
        (None, _) => audit.agent_tests.push(path.to_owned()),
        (Some(_), TestEdits::Frozen) => frozen_test(sides, change, audit),
        (Some(_), TestEdits::Audit) => audited_test(sides, change, audit),
    }
    RuleOutcome::Done
}

/// A frozen test file changed or deleted.
fn frozen_test(sides: &BothTrees<'_>, change: &Change<'_>, audit: &mut Audit) {
    let path = change.path;
    let old = sides.text(&sides.base, path).flatten();
    let new = sides.text(&sides.new, path).flatten();
    let (kind, detail) = match (change.how, &old, &new) {
        (ChangeKind::Deleted, _, _) => (FindingKind::TestDeleted, "test file deleted".to_owned()),
        (_, Some(old), Some(new)) => (FindingKind::TestChanged, frozen_change(path, old, new)),
        _ => (
            FindingKind::TestChanged,
            "test file changed; existing test files are frozen: add new tests in new files"
                .to_owned(),
        ),
    };
    audit.add(kind, path, detail);
}

/// An existing test file edited under audited test edits: what the edit weakened.
fn audited_test(sides: &BothTrees<'_>, change: &Change<'_>, audit: &mut Audit) {
    let path = change.path;
    let old = sides.text(&sides.base, path).flatten();
    match sides.text(&sides.new, path) {
        None => audit.add(FindingKind::TestDeleted, path, "test file deleted".into()),
        Some(None) => audit.add(
            FindingKind::TestChanged,
            path,
            format!("over {} MiB: too large to audit", MAX_READ_BYTES >> 20),
        ),
        Some(Some(new)) => {
            for (kind, detail) in weakened(path, old.as_deref().unwrap_or(""), &new) {
                audit.add(kind, path, detail);
            }
        }
    }
}

/// Non-test code: a changed source file, with the tests and doctests it holds judged, is
/// handed on to the tampering scan and the gaming monitor.
fn non_test_code(
    sides: &BothTrees<'_>,
    change: &Change<'_>,
    audit: &mut Audit,
) -> Option<SourceChange> {
    let path = change.path;
    let new_text = sides.text(&sides.new, path)?;
    let old_text = sides.text(&sides.base, path).flatten();
    if !scan::is_source(path) {
        return None;
    }
    let Some(new_text) = new_text else {
        audit.add(
            FindingKind::Tampering,
            path,
            format!("over {} MiB: too large to scan", MAX_READ_BYTES >> 20),
        );
        return None;
    };
    let old = old_text.as_deref().unwrap_or("");
    tests_in_source(sides, path, old, &new_text, audit);
    Some(SourceChange {
        path: path.to_owned(),
        old: old_text.unwrap_or_default(),
        new: new_text,
    })
}

/// The tests in a changed source file. Every changed Rust file: the base's tests in it stay
/// as they were, and no file may bring a macro that replaces the assertion macros. With
/// audited test edits, the counters judge the tests in it instead. A source file whose
/// doctests the base ran: its examples are tests.
fn tests_in_source(sides: &BothTrees<'_>, path: &str, old: &str, new: &str, audit: &mut Audit) {
    let test_edits = sides.inputs.test_edits;
    match test_edits {
        TestEdits::Frozen if scan::Lang::of(path) == scan::Lang::Rust => {
            for detail in infrastructure::rust_tests_changed(old, new) {
                audit.add(FindingKind::TestChanged, path, detail);
            }
        }
        TestEdits::Audit if scan::holds_rust_tests(path, old) => {
            for (kind, detail) in weakened(path, old, new) {
                audit.add(kind, path, detail);
            }
        }
        TestEdits::Frozen | TestEdits::Audit => {}
    }
    if test_edits == TestEdits::Frozen && sides.inputs.rules.has_doctests(path) {
        for detail in ran_from::doctests_changed(old, new) {
            audit.add(FindingKind::TestChanged, path, detail);
        }
    }
}

/// Tampering in the changed non-test sources and in what they load at run time (code kept
/// in files that are not source, read as the loader's language) or run as programs, and in
/// what the unchanged `runners` run; returns the sources with what they load, for the
/// gaming monitor.
fn scan_sources(
    sides: &BothTrees<'_>,
    mut sources: Vec<SourceChange>,
    runners: &[SourceChange],
    steered: Vec<Loaded>,
    audit: &mut Audit,
) -> Result<Vec<SourceChange>, String> {
    let rules = sides.inputs.rules;
    let (mut loaded, too_many) = loaded_files(
        &sources.iter().chain(runners).collect::<Vec<_>>(),
        &sides.base,
        &sides.new,
        &sides.links,
        &sides.blobs,
        sides.inputs.store,
        rules.prefix(),
    )?;
    audit.findings.extend(too_many);
    for file in steered {
        if !loaded.iter().any(|l| l.path == file.path) {
            loaded.push(file);
        }
    }
    let files: Vec<tampering::SourceFile<'_>> = sources
        .iter()
        .map(|s| tampering::SourceFile {
            path: rules.project(&s.path),
            read_as: rules.project(&s.path),
            old: (!s.old.is_empty()).then_some(s.old.as_str()),
            new: &s.new,
        })
        .chain(loaded.iter().map(|l| tampering::SourceFile {
            path: rules.project(&l.path),
            read_as: rules.project(&l.loader),
            old: l.old.as_deref(),
            new: &l.new,
        }))
        .collect();
    let prefix_of = |rel: &str| -> String {
        let mut paths = (sources.iter().map(|s| &s.path)).chain(loaded.iter().map(|l| &l.path));
        paths
            .find(|p| rules.project(p) == rel)
            .map_or_else(|| rel.to_owned(), Clone::clone)
    };
    for mut finding in tampering::scan(&files, &sides.context) {
        finding.path = prefix_of(&finding.path);
        audit.findings.push(finding);
    }
    sources.extend(loaded.into_iter().map(|l| SourceChange {
        path: l.path,
        old: l.old.unwrap_or_default(),
        new: l.new,
    }));
    Ok(sources)
}

/// The unchanged sources read at most for the scripts they run.
const MAX_RUNNER_FILES: usize = 512;

/// The most of each such source read.
const MAX_RUNNER_BYTES: usize = 1 << 20;

/// The candidate's unchanged non-test sources that name a script the candidate added or
/// changed (a file whose first line is a `#!`, or a `.sh`), as changes with no added line:
/// what they run is read ([`runs`]) as a changed source's would be, so a script that the
/// base's own code already ran cannot be changed to read the tests unread. Read only when
/// such a script changed, at most [`MAX_RUNNER_FILES`] of them.
fn unchanged_runners(
    sides: &BothTrees<'_>,
    changes: &[(String, ChangeKind)],
) -> Result<Vec<SourceChange>, String> {
    let rules = sides.inputs.rules;
    let names: BTreeSet<&str> = changes
        .iter()
        .filter(|(path, how)| *how != ChangeKind::Deleted && !rules.is_test(path))
        .filter(|(path, _)| !scan::is_source(path))
        .filter(|(path, _)| {
            let script = sides.bytes(&sides.new, path).flatten();
            path.ends_with(".sh") || script.is_some_and(|b| b.starts_with(b"#!"))
        })
        .map(|(path, _)| path.rsplit('/').next().unwrap_or(path))
        .collect();
    if names.is_empty() {
        return Ok(Vec::new());
    }
    let unchanged: Vec<(&String, &Entry)> = sides
        .new
        .iter()
        .filter(|(path, entry)| {
            sides.base.get(*path) == Some(*entry)
                && scan::Lang::of(path) != scan::Lang::Any
                && !rules.is_test(path)
                && entry.mode != SYMLINK
                && entry.mode != GITLINK
        })
        .take(MAX_RUNNER_FILES)
        .collect();
    let objects: Vec<String> = unchanged.iter().map(|(_, e)| e.object.clone()).collect();
    let texts = sides.inputs.store.read_blobs(&objects, MAX_RUNNER_BYTES)?;
    Ok(unchanged
        .into_iter()
        .zip(texts)
        .filter_map(|((path, _), bytes)| {
            let text = lossy(&bytes?);
            names
                .iter()
                .any(|n| text.contains(n))
                .then(|| SourceChange {
                    path: path.clone(),
                    old: text.clone(),
                    new: text,
                })
        })
        .collect())
}

/// The base's configuration files read at most for the code they name.
const MAX_STEERING_FILES: usize = 256;

/// The most of each such file read: a configuration file is small, and 256 files at the
/// scans' own bound would be gigabytes.
const MAX_STEERING_BYTES: usize = 1 << 20;

/// The files the base's frozen configuration files name as code their runtime loads
/// (`.npmrc`'s `node-options=--require ./x.txt`, a `.babelrc` plugin, pytest's `-p plugin`)
/// that the candidate added or changed, read as that runtime's language whatever their
/// names. One already scanned as a source of that language is left out.
fn steered_loads(
    sides: &BothTrees<'_>,
    sources: &[SourceChange],
    audit: &mut Audit,
) -> Result<Vec<Loaded>, String> {
    let rules = sides.inputs.rules;
    let configs: Vec<(&Entry, infrastructure::Loads)> = sides
        .base
        .values()
        .filter(|e| e.mode != GITLINK && e.mode != SYMLINK)
        .filter_map(|e| {
            let (_, _, loads) = infrastructure::steering(rules.project(&e.path))?;
            (*loads != infrastructure::Loads::Nothing).then_some((e, *loads))
        })
        .take(MAX_STEERING_FILES)
        .collect();
    let objects: Vec<String> = configs.iter().map(|(e, _)| e.object.clone()).collect();
    let texts = sides
        .inputs
        .store
        .read_blobs(&objects, MAX_STEERING_BYTES)?;
    let mut out: Vec<Loaded> = Vec::new();
    for ((entry, _), text) in configs.into_iter().zip(texts) {
        let Some(text) = text else { continue };
        let rel = rules.project(&entry.path);
        let prefix = &entry.path[..entry.path.len() - rel.len()];
        let exists = |p: &str| {
            sides
                .new
                .get(&format!("{prefix}{p}"))
                .is_some_and(|e| e.mode != SYMLINK && e.mode != GITLINK)
        };
        for (file, loads) in infrastructure::loaded_by(rel, &lossy(&text), exists) {
            let ext = match loads {
                infrastructure::Loads::Python => "py",
                infrastructure::Loads::Shell => "sh",
                _ => "js",
            };
            let path = format!("{prefix}{file}");
            let (Some(new), old) = (sides.new.get(&path), sides.base.get(&path)) else {
                continue;
            };
            let scanned = sources.iter().any(|s| {
                s.path == path && scan::Lang::of(&path) == scan::Lang::of(&format!("x.{ext}"))
            });
            if old == Some(new)
                || scanned
                || rules.is_test(&path)
                || out.iter().any(|l| l.path == path)
            {
                continue;
            }
            let Some(Some(bytes)) = sides.bytes(&sides.new, &path) else {
                audit.add(
                    FindingKind::Tampering,
                    &path,
                    format!(
                        "named as code by `{rel}`, and over {} MiB: too large to scan",
                        MAX_READ_BYTES >> 20
                    ),
                );
                continue;
            };
            out.push(Loaded {
                loader: format!("{path}.{ext}"),
                old: sides.text(&sides.base, &path).flatten(),
                new: lossy(bytes),
                path,
            });
        }
    }
    Ok(out)
}

/// The gaming monitor over the changed sources, warnings unless they reject.
fn monitor_gaming(
    sides: &BothTrees<'_>,
    sources: &[SourceChange],
    audit: &mut Audit,
) -> Result<(), String> {
    let (rules, new) = (sides.inputs.rules, &sides.new);
    let manifests: Vec<Warning> = new
        .iter()
        .filter(|(path, entry)| {
            path.ends_with("Cargo.toml") && sides.base.get(*path) != Some(entry)
        })
        .flat_map(|(path, _)| {
            let old = sides.text(&sides.base, path).flatten().unwrap_or_default();
            let now = sides.text(new, path).flatten().unwrap_or_default();
            gaming::manifest(path, &old, &now)
        })
        .collect();
    if sources.is_empty() && manifests.is_empty() {
        return Ok(());
    }
    let tests: Vec<String> = new
        .keys()
        .filter(|p| rules.is_test(p) && !rules.is_snapshot(p))
        .take(MAX_TEST_FILES_READ)
        .cloned()
        .collect();
    let objects: Vec<String> = tests.iter().map(|p| new[p].object.clone()).collect();
    let mut texts: Vec<FileText> = tests
        .into_iter()
        .zip(sides.inputs.store.read_blobs(&objects, MAX_READ_BYTES)?)
        .filter_map(|(path, b)| {
            Some(FileText {
                path,
                text: String::from_utf8_lossy(&b?).into_owned(),
            })
        })
        .collect();
    texts.extend(sides.inputs.withheld_texts.iter().cloned());
    audit.warnings = gaming::monitor(sources, &texts);
    audit.warnings.extend(manifests);
    if sides.inputs.reject_gaming {
        let gaming: Vec<Finding> = audit
            .warnings
            .iter()
            .filter(|w| !w.weak)
            .map(|w| Finding {
                kind: FindingKind::Gaming,
                path: w.path.clone(),
                detail: format!("line {}: {}", w.line, w.detail),
            })
            .collect();
        audit.findings.extend(gaming);
    }
    Ok(())
}

/// The frozen paths of the check tree: the base's tests, protected files and test
/// infrastructure, as the base has them. Restoring is a no-op when nothing was found,
/// except where the rules let the agent's version stand.
fn freeze(sides: &BothTrees<'_>, audit: &mut Audit) {
    let (rules, test_edits) = (sides.inputs.rules, sides.inputs.test_edits);
    for (path, entry) in &sides.base {
        let rel = rules.project(path);
        let frozen_test = rules.is_test(path) && test_edits == TestEdits::Frozen;
        let infra = matches!(sides.classify(path), Some(Infra::Whole(_)))
            || sides.included_by(path).is_some();
        // A `vendor/` the candidate changed is compared with `go mod vendor`'s instead.
        let vendored = audit.vendored.iter().any(|m| {
            rel.starts_with(&format!("{m}/vendor/")) || m.is_empty() && rel.starts_with("vendor/")
        }) || audit.regenerated.contains(path);
        if (frozen_test || infra || rules.is_protected(path)) && entry.mode != GITLINK && !vendored
        {
            audit.frozen.push(path.clone());
            if sides.new.get(path) != Some(entry) {
                audit.restore.insert(
                    path.clone(),
                    Some((entry.mode.clone(), entry.object.clone())),
                );
            }
        }
    }
}

/// A file that a changed source loads as code at run time, as the scans read it.
#[derive(Debug)]
struct Loaded {
    /// Its repository path.
    path: String,
    /// The source whose language and kind it is read as.
    loader: String,
    /// Its text at the base, `None` when the load itself is new: then all of it is new code.
    old: Option<String>,
    /// Its text in the candidate.
    new: String,
}

/// The files the changed `sources` load as code ([`loads`]), and what they load in turn,
/// that hold new code: a new load, or a changed file. A file the base loaded the same way
/// and that did not change holds nothing new. Each is read at most to [`MAX_READ_BYTES`]
/// (a larger one is a finding), at most [`MAX_LOADED_FILES`] of them (more is a finding),
/// followed [`MAX_LOAD_DEPTH`] deep.
fn loaded_files(
    sources: &[&SourceChange],
    base: &BTreeMap<String, Entry>,
    new: &BTreeMap<String, Entry>,
    links: &BTreeMap<String, Vec<u8>>,
    blobs: &BTreeMap<String, Option<Vec<u8>>>,
    store: &Store,
    root: &str,
) -> Result<(Vec<Loaded>, Vec<Finding>), String> {
    let mut out: Vec<Loaded> = Vec::new();
    let mut findings = Vec::new();
    // The files read at this depth: (path, read as, old text, new text).
    let mut level: Vec<(&str, &str, &str, &str)> = sources
        .iter()
        .map(|s| {
            (
                s.path.as_str(),
                s.path.as_str(),
                s.old.as_str(),
                s.new.as_str(),
            )
        })
        .collect();
    let mut from = 0;
    for _ in 0..MAX_LOAD_DEPTH {
        let wanted = wanted_loads(level, new, links, root);
        let (unread, full) = unread_loads(wanted, &out, base, new, blobs, &mut findings);
        read_loads(unread, blobs, store, &mut out, &mut findings)?;
        level = out[from..]
            .iter()
            .map(|l| {
                (
                    l.path.as_str(),
                    l.loader.as_str(),
                    l.old.as_deref().unwrap_or(""),
                    l.new.as_str(),
                )
            })
            .collect();
        from = out.len();
        if level.is_empty() || full {
            break;
        }
    }
    Ok((out, findings))
}

/// A file's bytes as text, invalid UTF-8 replaced.
fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// What the files of one depth (path, read as, old text, new text) load, as (path, loader,
/// whether the load is new), one per path, a new load before an old one.
fn wanted_loads(
    level: Vec<(&str, &str, &str, &str)>,
    new: &BTreeMap<String, Entry>,
    links: &BTreeMap<String, Vec<u8>>,
    root: &str,
) -> Vec<(String, String, bool)> {
    let exists = |p: &str| {
        new.get(p)
            .is_some_and(|e| e.mode != SYMLINK && e.mode != GITLINK)
    };
    let exists_or_link = |p: &str| exists(p) || links.contains_key(p);
    let mut wanted: Vec<(String, String, bool)> = Vec::new();
    for (path, read_as, old, text) in level {
        let lang = scan::Lang::of(read_as);
        let added: BTreeSet<usize> = scan::added_lines(old, text)
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        for load in loads::loads(path, lang, root, text, exists) {
            let fresh = added.contains(&load.line);
            wanted.push((load.path, read_as.to_owned(), fresh));
        }
        // A script read as shell runs files as a shell does; a source runs them through
        // its language's calls (`subprocess.run`, `exec.Command`).
        let shell = read_as.ends_with(".sh");
        if shell || lang != scan::Lang::Any {
            let lang = if shell { scan::Lang::Any } else { lang };
            for run in runs::runs(path, lang, root, text, exists_or_link) {
                // A link run is the file it leads to (`tools/probe.sh -> probe.txt`).
                let Some(file) = through_links(&run.path, links).filter(|f| exists(f)) else {
                    continue;
                };
                let fresh = added.contains(&run.line);
                wanted.push((file.clone(), runs::read_as(&file, run.reader), fresh));
            }
        }
    }
    wanted.sort_by(|a, b| (&a.0, !a.2).cmp(&(&b.0, !b.2)));
    wanted.dedup_by(|a, b| a.0 == b.0);
    wanted
}

/// A load to read: a file that holds new code.
#[derive(Debug)]
struct Unread {
    /// Its repository path.
    path: String,
    /// The source whose language and kind it is read as.
    loader: String,
    /// Its text at the base, `None` when the load itself is new.
    old: Option<String>,
    /// Its object in the candidate.
    object: String,
}

/// Of the `wanted` loads, those that hold new code and are not read yet, and whether they
/// passed [`MAX_LOADED_FILES`] (then a finding says so, and the rest are left).
fn unread_loads(
    wanted: Vec<(String, String, bool)>,
    out: &[Loaded],
    base: &BTreeMap<String, Entry>,
    new: &BTreeMap<String, Entry>,
    blobs: &BTreeMap<String, Option<Vec<u8>>>,
    findings: &mut Vec<Finding>,
) -> (Vec<Unread>, bool) {
    let mut unread: Vec<Unread> = Vec::new();
    for (path, loader, fresh) in wanted {
        let (Some(entry), old_entry) = (new.get(&path), base.get(&path)) else {
            continue;
        };
        let changed = old_entry.is_none_or(|o| o.object != entry.object);
        if out.iter().any(|l| l.path == path) || (!fresh && !changed) {
            continue;
        }
        if out.len() + unread.len() >= MAX_LOADED_FILES {
            findings.push(Finding {
                kind: FindingKind::Tampering,
                path: loader,
                detail: format!(
                    "loads more than {MAX_LOADED_FILES} new or changed files as code at run time: too many to scan"
                ),
            });
            return (unread, true);
        }
        let old = old_entry.filter(|_| !fresh).map(|o| {
            blobs
                .get(&o.object)
                .and_then(|b| b.as_deref())
                .map(lossy)
                .unwrap_or_default()
        });
        unread.push(Unread {
            path,
            loader,
            old,
            object: entry.object.clone(),
        });
    }
    (unread, false)
}

/// Reads the `unread` loads into `out`, each one's object from `blobs` or else from the
/// store; one over [`MAX_READ_BYTES`] is a finding instead.
fn read_loads(
    unread: Vec<Unread>,
    blobs: &BTreeMap<String, Option<Vec<u8>>>,
    store: &Store,
    out: &mut Vec<Loaded>,
    findings: &mut Vec<Finding>,
) -> Result<(), String> {
    // Unchanged files newly loaded are not among the changes read before.
    let missing: Vec<String> = unread
        .iter()
        .filter(|u| !blobs.contains_key(&u.object))
        .map(|u| u.object.clone())
        .collect();
    let read: BTreeMap<String, Option<Vec<u8>>> = missing
        .iter()
        .cloned()
        .zip(store.read_blobs(&missing, MAX_READ_BYTES)?)
        .collect();
    for Unread {
        path,
        loader,
        old,
        object,
    } in unread
    {
        let bytes = blobs
            .get(&object)
            .or_else(|| read.get(&object))
            .and_then(|b| b.as_deref());
        match bytes {
            Some(bytes) => {
                let new = lossy(bytes);
                out.push(Loaded {
                    path,
                    loader: runs::read_as_itself(loader, &new),
                    old,
                    new,
                });
            }
            None => findings.push(Finding {
                kind: FindingKind::Tampering,
                path,
                detail: format!(
                    "loaded as code, and over {} MiB: too large to scan",
                    MAX_READ_BYTES >> 20
                ),
            }),
        }
    }
    Ok(())
}

/// What changed in a frozen test file, as specific as the counters can say.
fn frozen_change(path: &str, old: &str, new: &str) -> String {
    let mut parts: Vec<String> = weakened(path, old, new)
        .into_iter()
        .map(|(_, detail)| detail)
        .collect();
    if parts.is_empty() {
        parts.push("its content changed".into());
    }
    format!(
        "{}; existing test files are frozen (the checks run the base's version): add new tests in new files",
        parts.join("; ")
    )
}

/// The weakening the counters see between two versions of a test file.
fn weakened(path: &str, old: &str, new: &str) -> Vec<(FindingKind, String)> {
    let before: Counts = scan::counts(path, old);
    let after = scan::counts(path, new);
    let mut out = Vec::new();
    if after.tests < before.tests {
        out.push((
            FindingKind::TestsRemoved,
            format!(
                "{} test functions before, {} now",
                before.tests, after.tests
            ),
        ));
    }
    if after.skips > before.skips {
        out.push((
            FindingKind::TestSkipped,
            format!(
                "{} skip or focus markers before, {} now",
                before.skips, after.skips
            ),
        ));
    }
    if after.assertions < before.assertions {
        out.push((
            FindingKind::AssertionsRemoved,
            format!(
                "{} assertions before, {} now",
                before.assertions, after.assertions
            ),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_that_leave_the_tree() {
        #[track_caller]
        fn case(links: &[(&str, &str)], path: &str, leaves: bool) {
            let links: BTreeMap<String, Vec<u8>> = links
                .iter()
                .map(|(p, t)| ((*p).to_owned(), t.as_bytes().to_vec()))
                .collect();
            assert_eq!(leaves_tree(path, &links), leaves, "{path} in {links:?}");
        }
        case(&[("a", "/etc/passwd")], "a", true);
        case(&[("a", "../x")], "a", true);
        case(&[("d/a", "../x")], "d/a", false);
        case(&[("d/a", "../../x")], "d/a", true);
        case(&[("d/a", "./b/../../c")], "d/a", false);
        case(&[("a", "b/c")], "a", false);
        case(&[("a", "")], "a", true);
        // Each target stays inside alone; together they climb out.
        let chain = [
            (".d/up", ".."),
            (".d/p1", "up/.."),
            (".d/p2", "p1/.."),
            (".d/passwd", "p2/etc/passwd"),
        ];
        case(&chain, ".d/passwd", true);
        case(&chain, ".d/up", false);
        // A loop is cut off.
        case(&[("a", "b"), ("b", "a")], "a", true);
    }

    #[test]
    fn links_lead_a_run_to_its_file() {
        let links: BTreeMap<String, Vec<u8>> = [
            ("tools/probe.sh", "probe.txt"),
            ("tools/up.sh", "../bin/x.sh"),
            ("tools/hop.sh", "up.sh"),
            ("tools/out.sh", "../../etc/passwd"),
            ("tools/abs.sh", "/bin/sh"),
            ("a", "b"),
            ("b", "a"),
        ]
        .into_iter()
        .map(|(p, t)| (p.to_owned(), t.as_bytes().to_vec()))
        .collect();
        let through = |p: &str| through_links(p, &links);
        assert_eq!(
            through("tools/probe.sh").as_deref(),
            Some("tools/probe.txt")
        );
        assert_eq!(through("tools/hop.sh").as_deref(), Some("bin/x.sh"));
        assert_eq!(through("tools/plain.sh").as_deref(), Some("tools/plain.sh"));
        assert_eq!(through("tools/out.sh"), None);
        assert_eq!(through("tools/abs.sh"), None);
        assert_eq!(through("a"), None);
    }

    #[test]
    fn machine_code_is_told_by_its_bytes() {
        // A 64-bit little-endian ELF header of type `kind` with one program header of
        // type `segment`.
        let elf_of = |kind: u8, segment: u8| {
            let mut b = vec![0u8; 64 + 56];
            b[..6].copy_from_slice(b"\x7fELF\x02\x01");
            b[16] = kind;
            b[32] = 64; // e_phoff
            b[54] = 56; // e_phentsize
            b[56] = 1; // e_phnum
            b[64] = segment;
            b
        };
        let shared = elf_of(3, 1);
        assert_eq!(
            machine_code("calc.so", Some(&shared)),
            Some("an ELF object")
        );
        assert_eq!(
            machine_code("forge.syso", Some(&elf_of(1, 0))),
            Some("an ELF object")
        );
        // A program `go build` or `cc -o` left (static, or marked position-independent)
        // is no object a test process loads; one with an interpreter alone may be
        // (`libc.so.6` has one).
        assert_eq!(machine_code("calc", Some(&elf_of(2, 1))), None);
        let mut pie = elf_of(3, 2);
        pie[64 + 8] = 120; // p_offset of the dynamic segment
        pie[64 + 32] = 16; // p_filesz: one entry
        pie.extend_from_slice(&0x6fff_fffb_u64.to_le_bytes());
        pie.extend_from_slice(&0x0800_0001_u64.to_le_bytes());
        assert_eq!(machine_code("calc", Some(&pie)), None);
        assert!(machine_code("calc.so", Some(&elf_of(3, 3))).is_some());
        // Truncated headers read as an object.
        assert!(machine_code("x.so", Some(b"\x7fELF\x02\x01\x01\0\0\0")).is_some());
        let elf = &shared;
        // By its bytes whatever its name: `ctypes` opens any path.
        assert_eq!(
            machine_code("data/table.bin", Some(elf)),
            Some("an ELF object")
        );
        assert!(
            machine_code(
                "x.dylib",
                Some(b"\xcf\xfa\xed\xfe\x07\0\0\x01\0\0\0\0\x06\0\0\0")
            )
            .is_some()
        );
        let program = b"\xcf\xfa\xed\xfe\x07\0\0\x01\0\0\0\0\x02\0\0\0";
        assert_eq!(machine_code("calc", Some(program)), None);
        assert!(machine_code("x.wasm", Some(b"\0asm\x01\0\0\0")).is_some());
        assert!(machine_code("x.syso", Some(b"!<arch>\nlib.o/")).is_some());
        assert!(machine_code("x.pyd", Some(b"MZ\x90\0\x03\0")).is_some());
        // Text that starts like a magic number is text.
        assert_eq!(machine_code("notes.txt", Some(b"MZ was here\n")), None);
        assert_eq!(machine_code("calc.so", Some(b"not an object\n")), None);
        assert_eq!(machine_code("calc.py", Some(b"def add(a, b):\n")), None);
        // Too large to read: by its name.
        assert!(machine_code("lib/calc.cpython-311-x86_64-linux-gnu.so", None).is_some());
        assert!(machine_code("libz.so.1", None).is_some());
        assert!(machine_code("addon.node", None).is_some());
        assert_eq!(machine_code("big.json", None), None);
        assert_eq!(machine_code("module.sol", None), None);
    }

    #[test]
    fn compiled_python_is_told_apart() {
        assert!(compiled_python("tests/test_x.pyc"));
        assert!(compiled_python("tests/__pycache__/test_x.cpython-311.pyc"));
        assert!(!compiled_python("tests/test_x.py"));
    }
}
