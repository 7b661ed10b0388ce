//! The auditor's room: `audit()` runs its rules in order over the candidate's changes and
//! gathers their findings. Its files are the rules' helpers: `tampering` and `loads` (code
//! that reaches into what judges it), `gaming` (the monitor's warnings), `scan` (counts and
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
pub(super) mod infrastructure;
pub(super) mod loads;
pub(super) mod ran_from;
pub(super) mod scan;
pub(super) mod tampering;

use std::collections::{BTreeMap, BTreeSet};

use super::shared::{FileText, Warning};
use super::shared::{Finding, FindingKind, MAX_READ_BYTES, Rules};
use super::store::{Entry, GITLINK, SYMLINK, Store};
use crate::config::TestEdits;
use gaming::SourceChange;
use infrastructure::{Infra, Project};
use scan::Counts;

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
}

/// How a path changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum How {
    Added,
    Modified,
    Deleted,
}

impl How {
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

/// Whether `path` is compiled Python, which runs in place of its source.
fn compiled_python(path: &str) -> bool {
    path.ends_with(".pyc") || path.ends_with(".pyo") || path.contains("__pycache__/")
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

/// Audits the candidate `candidate` against `base`.
pub(crate) fn audit(base: &str, candidate: &str, inputs: &Inputs<'_>) -> Result<Audit, String> {
    let store = inputs.store;
    let rules = inputs.rules;
    let (base_entries, unreadable_at_base) = by_path(store.entries(base)?);
    let (new_entries, unreadable) = by_path(store.entries(candidate)?);
    let mut audit = Audit::default();
    // A name read lossily could stand for another file: every rule below would judge the
    // wrong one.
    for path in unreadable
        .iter()
        .filter(|p| !unreadable_at_base.contains(p))
    {
        audit.findings.push(Finding {
            kind: FindingKind::UnreadableName,
            path: path.clone(),
            detail: "a name that is not UTF-8, or reads as another: speccoder cannot judge it"
                .into(),
        });
    }
    if !audit.findings.is_empty() {
        return Ok(audit);
    }
    let add = |audit: &mut Audit, kind, path: &str, detail: String| {
        audit.findings.push(Finding {
            kind,
            path: path.to_owned(),
            detail,
        });
    };
    let project = Project {
        vitest: new_entries
            .keys()
            .chain(base_entries.keys())
            .any(|p| rules.project(p).starts_with("vitest.")),
    };

    // Every path that differs, with how.
    let mut changes: Vec<(String, How)> = Vec::new();
    for (path, entry) in &new_entries {
        match base_entries.get(path) {
            None => changes.push((path.clone(), How::Added)),
            Some(old) if old.object != entry.object || old.mode != entry.mode => {
                changes.push((path.clone(), How::Modified));
            }
            Some(_) => {}
        }
    }
    for path in base_entries.keys() {
        if !new_entries.contains_key(path) {
            changes.push((path.clone(), How::Deleted));
        }
    }
    changes.sort_by(|a, b| a.0.cmp(&b.0));
    audit.changed = changes.iter().map(|(p, _)| p.clone()).collect();

    // The texts the audit reads, in one batch: both sides of every change that is not
    // plainly frozen, and every new link.
    let mut wanted: Vec<String> = Vec::new();
    for (path, _) in &changes {
        for entries in [&base_entries, &new_entries] {
            if let Some(e) = entries.get(path)
                && e.mode != GITLINK
            {
                wanted.push(e.object.clone());
            }
        }
    }
    wanted.sort();
    wanted.dedup();
    let blobs: BTreeMap<String, Option<Vec<u8>>> = wanted
        .iter()
        .cloned()
        .zip(store.read_blobs(&wanted, MAX_READ_BYTES)?)
        .collect();
    let bytes = |entries: &BTreeMap<String, Entry>, path: &str| -> Option<Option<&[u8]>> {
        entries
            .get(path)
            .map(|e| blobs.get(&e.object).and_then(|b| b.as_deref()))
    };
    let text = |entries: &BTreeMap<String, Entry>, path: &str| -> Option<Option<String>> {
        bytes(entries, path).map(|b| b.map(|b| String::from_utf8_lossy(b).into_owned()))
    };

    // Every link of the candidate, to resolve links through each other.
    let links: BTreeMap<String, Vec<u8>> = {
        let link_entries: Vec<&Entry> =
            new_entries.values().filter(|e| e.mode == SYMLINK).collect();
        let objects: Vec<String> = link_entries.iter().map(|e| e.object.clone()).collect();
        link_entries
            .iter()
            .zip(store.read_blobs(&objects, 4096)?)
            .map(|(e, target)| (e.path.clone(), target.unwrap_or_default()))
            .collect()
    };
    // The files the base's makefiles, justfiles and Taskfiles include: frozen whatever
    // their names, present or not.
    let included: BTreeMap<String, String> = {
        let runner_files: Vec<&Entry> = base_entries
            .values()
            .filter(|e| infrastructure::runner_file(rules.project(&e.path)).is_some())
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
            for file in infrastructure::included(rel, &String::from_utf8_lossy(&text)) {
                included.insert(format!("{prefix}{file}"), rel.to_owned());
            }
        }
        included
    };
    let withheld: BTreeSet<&str> = inputs.withheld.iter().map(String::as_str).collect();
    let modules = python_modules(&base_entries, rules);
    let context = tampering::Context {
        test_paths: base_entries
            .keys()
            .filter(|p| rules.is_test(p))
            .map(|p| rules.project(p).to_owned())
            .collect(),
        project_modules: modules,
    };
    let mut sources: Vec<SourceChange> = Vec::new();

    for (path, how) in &changes {
        let path = path.as_str();
        let rel = rules.project(path);
        let old_entry = base_entries.get(path);
        let new_entry = new_entries.get(path);
        let restore_base = old_entry.map(|e| (e.mode.clone(), e.object.clone()));

        // What git would never read, or what reaches outside the tree.
        if let Some(entry) = new_entry {
            if entry.mode == GITLINK {
                add(
                    &mut audit,
                    FindingKind::NestedRepository,
                    path,
                    "a nested git repository: its files are not part of the candidate, and the checks would not run them".into(),
                );
                continue;
            }
            if entry.mode == SYMLINK
                && let Some(target) = links.get(path)
                && leaves_tree(path, &links)
            {
                add(
                    &mut audit,
                    FindingKind::LinkOutside,
                    path,
                    format!(
                        "a symbolic link to `{}`, outside the tree",
                        String::from_utf8_lossy(target)
                    ),
                );
                continue;
            }
        }
        if path == inputs.tasks_file {
            if *how != How::Deleted || old_entry.is_some() {
                audit.restore.insert(path.to_owned(), restore_base);
                audit.notes.push(format!(
                    "the agent's edit of {path} was left out: speccoder ticks the task itself"
                ));
            }
            continue;
        }
        if withheld.contains(path) {
            add(
                &mut audit,
                FindingKind::TestChanged,
                path,
                format!(
                    "{} where a withheld test goes: the checks run the withheld test instead",
                    how.word()
                ),
            );
            continue;
        }
        if rules.is_protected(path) {
            add(
                &mut audit,
                FindingKind::ProtectedChanged,
                path,
                format!("protected file {}", how.word()),
            );
            continue;
        }
        // Python's package metadata: what pytest loads as a plugin from anywhere on
        // `sys.path`, the project root included.
        if let Some(metadata) = python_metadata(rel) {
            let registers = *how != How::Deleted
                && metadata.ends_with("entry_points.txt")
                && text(&new_entries, path)
                    .flatten()
                    .is_some_and(|t| registers_runner_plugin(&t));
            if registers {
                add(
                    &mut audit,
                    FindingKind::Tampering,
                    path,
                    "package metadata that registers a test-runner plugin (`[pytest11]`): pytest loads it into every run".into(),
                );
                continue;
            }
            if *how == How::Added && !rel.ends_with(".pth") {
                // Build metadata an honest `pip install -e .` leaves: not part of the work.
                audit.restore.insert(path.to_owned(), None);
                let inside = metadata.split_once('/').map_or(metadata, |(f, _)| f);
                let folder = format!("{}{inside}/", &path[..path.len() - metadata.len()]);
                let note =
                    format!("{folder} (package build metadata) was left out of the candidate");
                if !audit.notes.contains(&note) {
                    audit.notes.push(note);
                }
                continue;
            }
        }
        if let Some(by) = included.get(path) {
            add(
                &mut audit,
                FindingKind::TestConfigChanged,
                path,
                format!(
                    "a file `{by}` includes, which defines the checks, was {}",
                    how.word()
                ),
            );
            continue;
        }
        let infra = infrastructure::classify(rel, project);
        if let Some(Infra::Whole(what)) = infra {
            // A new empty file does nothing (an `__init__.py` of a new test folder).
            let empty_new = *how == How::Added
                && matches!(bytes(&new_entries, path), Some(Some(b)) if b.iter().all(u8::is_ascii_whitespace));
            if !empty_new {
                add(
                    &mut audit,
                    FindingKind::TestConfigChanged,
                    path,
                    format!("{what}, which defines the checks, was {}", how.word()),
                );
            }
            continue;
        }
        if let Some(Infra::Keys) = infra {
            let old = text(&base_entries, path).flatten();
            let new = text(&new_entries, path).flatten();
            if let Some(detail) =
                infrastructure::frozen_keys_changed(rel, old.as_deref(), new.as_deref())
            {
                add(&mut audit, FindingKind::TestConfigChanged, path, detail);
            }
            continue;
        }
        if rules.is_snapshot(path) {
            let pending = [format!("{path}.new"), format!("{path}.pending-snap")];
            let accepted =
                *how == How::Added && pending.iter().any(|p| base_entries.contains_key(p));
            if *how != How::Added || accepted {
                let word = if accepted { "accepted" } else { how.word() };
                add(
                    &mut audit,
                    FindingKind::SnapshotChanged,
                    path,
                    format!("snapshot {word}: the tests are checked against it"),
                );
            }
            continue;
        }
        if new_entry.is_some() && *how == How::Added {
            if compiled_python(rel) {
                add(
                    &mut audit,
                    FindingKind::Tampering,
                    path,
                    "compiled Python: it runs in place of its source, which nobody reviews".into(),
                );
                continue;
            }
            if let Some(detail) = tampering::shadows(rel, &context) {
                add(&mut audit, FindingKind::Tampering, path, detail);
                continue;
            }
        }
        if rules.is_test(path) {
            match (old_entry, inputs.test_edits) {
                // The agent's own new test: the second pass runs it.
                (None, _) => audit.agent_tests.push(path.to_owned()),
                (Some(_), TestEdits::Frozen) => {
                    let old = text(&base_entries, path).flatten();
                    let new = text(&new_entries, path).flatten();
                    let (kind, detail) = match (how, &old, &new) {
                        (How::Deleted, _, _) => (FindingKind::TestDeleted, "test file deleted".to_owned()),
                        (_, Some(old), Some(new)) => {
                            (FindingKind::TestChanged, frozen_change(path, old, new))
                        }
                        _ => (
                            FindingKind::TestChanged,
                            "test file changed; existing test files are frozen: add new tests in new files".to_owned(),
                        ),
                    };
                    add(&mut audit, kind, path, detail);
                }
                (Some(_), TestEdits::Audit) => {
                    let old = text(&base_entries, path).flatten();
                    let new = text(&new_entries, path);
                    match new {
                        None => add(
                            &mut audit,
                            FindingKind::TestDeleted,
                            path,
                            "test file deleted".into(),
                        ),
                        Some(None) => add(
                            &mut audit,
                            FindingKind::TestChanged,
                            path,
                            format!("over {} MiB: too large to audit", MAX_READ_BYTES >> 20),
                        ),
                        Some(Some(new)) => {
                            for (kind, detail) in weakened(path, old.as_deref().unwrap_or(""), &new)
                            {
                                add(&mut audit, kind, path, detail);
                            }
                        }
                    }
                }
            }
            continue;
        }
        // Non-test code.
        let Some(new_text) = text(&new_entries, path) else {
            continue;
        };
        let old_text = text(&base_entries, path).flatten();
        if scan::is_source(path) {
            let Some(new_text) = new_text else {
                add(
                    &mut audit,
                    FindingKind::Tampering,
                    path,
                    format!("over {} MiB: too large to scan", MAX_READ_BYTES >> 20),
                );
                continue;
            };
            // Every changed Rust file: the base's tests in it stay as they were, and no
            // file may bring a macro that replaces the assertion macros. With audited test
            // edits, the counters judge the tests in it instead.
            let old = old_text.as_deref().unwrap_or("");
            match inputs.test_edits {
                TestEdits::Frozen if scan::Lang::of(path) == scan::Lang::Rust => {
                    for detail in infrastructure::rust_tests_changed(old, &new_text) {
                        add(&mut audit, FindingKind::TestChanged, path, detail);
                    }
                }
                TestEdits::Audit if scan::holds_rust_tests(path, old) => {
                    for (kind, detail) in weakened(path, old, &new_text) {
                        add(&mut audit, kind, path, detail);
                    }
                }
                TestEdits::Frozen | TestEdits::Audit => {}
            }
            // A source file whose doctests the base ran: its examples are tests.
            if inputs.test_edits == TestEdits::Frozen && rules.has_doctests(path) {
                for detail in ran_from::doctests_changed(old, &new_text) {
                    add(&mut audit, FindingKind::TestChanged, path, detail);
                }
            }
            sources.push(SourceChange {
                path: path.to_owned(),
                old: old_text.unwrap_or_default(),
                new: new_text,
            });
        }
    }

    // Code kept in files that are not source and loaded at run time, read as the loader's
    // language by the tampering rules and the gaming monitor alike.
    let (loaded, too_many) = loaded_files(
        &sources,
        &base_entries,
        &new_entries,
        &blobs,
        store,
        rules.prefix(),
    )?;
    audit.findings.extend(too_many);

    // Tampering in the changed non-test sources and in what they load.
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
    for mut finding in tampering::scan(&files, &context) {
        finding.path = prefix_of(&finding.path);
        audit.findings.push(finding);
    }
    sources.extend(loaded.into_iter().map(|l| SourceChange {
        path: l.path,
        old: l.old.unwrap_or_default(),
        new: l.new,
    }));

    // The gaming monitor, warnings unless they reject.
    if !sources.is_empty() {
        let tests: Vec<String> = new_entries
            .keys()
            .filter(|p| rules.is_test(p) && !rules.is_snapshot(p))
            .take(MAX_TEST_FILES_READ)
            .cloned()
            .collect();
        let objects: Vec<String> = tests
            .iter()
            .map(|p| new_entries[p].object.clone())
            .collect();
        let mut texts: Vec<FileText> = tests
            .into_iter()
            .zip(store.read_blobs(&objects, MAX_READ_BYTES)?)
            .filter_map(|(path, b)| {
                Some(FileText {
                    path,
                    text: String::from_utf8_lossy(&b?).into_owned(),
                })
            })
            .collect();
        texts.extend(inputs.withheld_texts.iter().cloned());
        audit.warnings = gaming::monitor(&sources, &texts);
        if inputs.reject_gaming {
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
    }

    // The frozen paths of the check tree: the base's tests, protected files and test
    // infrastructure, as the base has them. Restoring is a no-op when nothing was found,
    // except where the rules let the agent's version stand.
    for (path, entry) in &base_entries {
        let rel = rules.project(path);
        let frozen_test = rules.is_test(path) && inputs.test_edits == TestEdits::Frozen;
        let infra = matches!(
            infrastructure::classify(rel, project),
            Some(Infra::Whole(_))
        ) || included.contains_key(path);
        if (frozen_test || infra || rules.is_protected(path)) && entry.mode != GITLINK {
            audit.frozen.push(path.clone());
            if new_entries.get(path) != Some(entry) {
                audit.restore.insert(
                    path.clone(),
                    Some((entry.mode.clone(), entry.object.clone())),
                );
            }
        }
    }
    Ok(audit)
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
    sources: &[SourceChange],
    base: &BTreeMap<String, Entry>,
    new: &BTreeMap<String, Entry>,
    blobs: &BTreeMap<String, Option<Vec<u8>>>,
    store: &Store,
    root: &str,
) -> Result<(Vec<Loaded>, Vec<Finding>), String> {
    let exists = |p: &str| {
        new.get(p)
            .is_some_and(|e| e.mode != SYMLINK && e.mode != GITLINK)
    };
    let lossy = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
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
    let (mut from, mut full) = (0, false);
    for _ in 0..MAX_LOAD_DEPTH {
        // What this depth loads: (path, loader, whether the load is new), new loads first.
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
        }
        wanted.sort_by(|a, b| (&a.0, !a.2).cmp(&(&b.0, !b.2)));
        wanted.dedup_by(|a, b| a.0 == b.0);
        let mut unread: Vec<(String, String, Option<String>, String)> = Vec::new();
        for (path, loader, fresh) in wanted {
            let (Some(entry), old_entry) = (new.get(&path), base.get(&path)) else {
                continue;
            };
            let changed = old_entry.is_none_or(|o| o.object != entry.object);
            if out.iter().any(|l| l.path == path) || (!fresh && !changed) {
                continue;
            }
            if out.len() + unread.len() >= MAX_LOADED_FILES {
                full = true;
                findings.push(Finding {
                    kind: FindingKind::Tampering,
                    path: loader,
                    detail: format!(
                        "loads more than {MAX_LOADED_FILES} new or changed files as code at run time: too many to scan"
                    ),
                });
                break;
            }
            let old = old_entry.filter(|_| !fresh).map(|o| {
                blobs
                    .get(&o.object)
                    .and_then(|b| b.as_deref())
                    .map(lossy)
                    .unwrap_or_default()
            });
            unread.push((path, loader, old, entry.object.clone()));
        }
        // Unchanged files newly loaded are not among the changes read before.
        let missing: Vec<String> = unread
            .iter()
            .filter(|u| !blobs.contains_key(&u.3))
            .map(|u| u.3.clone())
            .collect();
        let read: BTreeMap<String, Option<Vec<u8>>> = missing
            .iter()
            .cloned()
            .zip(store.read_blobs(&missing, MAX_READ_BYTES)?)
            .collect();
        for (path, loader, old, object) in unread {
            let bytes = blobs
                .get(&object)
                .or_else(|| read.get(&object))
                .and_then(|b| b.as_deref());
            match bytes {
                Some(bytes) => out.push(Loaded {
                    path,
                    loader,
                    old,
                    new: lossy(bytes),
                }),
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
    fn compiled_python_is_told_apart() {
        assert!(compiled_python("tests/test_x.pyc"));
        assert!(compiled_python("tests/__pycache__/test_x.cpython-311.pyc"));
        assert!(!compiled_python("tests/test_x.py"));
    }
}
