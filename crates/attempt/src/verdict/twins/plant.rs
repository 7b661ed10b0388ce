//! What each pass writes into its check tree, so that nothing but the twins' values tells
//! the verdict's pass from the twin pass (invariant 12 of `docs/design/verdict.md`).
//!
//! Both passes read the same files in the same order and rewrite the same test files in the
//! same order (each replaced, its times kept): the verdict's pass with each file's own
//! text, the twin pass with its twin where one is planted. So the files' times, their
//! inode order, their count and the folders' times are alike in both.
//!
//! Where a unit (one runner's report: a Python or JavaScript project, a Go package, a Rust
//! test binary) holds withheld tests that take twins, only those get twins: every file the
//! agent saw (and the known answer planted in one) is byte for byte what the verdict's pass
//! ran. Code that reads a visible test to learn which pass runs then learns nothing. That
//! pass runs three times, each run one of two halves, each withheld test twinned in one
//! half and as written in the other ([`super::halves`]): code that tells the runs apart by
//! other means (the clock, which ran first) meets twins in every run after the verdict's,
//! so it must run honestly in each, where each withheld test as written must fare as in
//! the verdict's pass. Where any
//! unit holds such withheld tests, visible files of every unit take twins only in a last
//! twin pass of their own ([`Side::Seen`]), with the withheld files kept, for a forger
//! that spares the visible tests it knows by name; without withheld tests, the one twin
//! pass twins every file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::halves::{self, Group, Half};
use super::helpers;
use super::known::{Known, read_plain, replace, test_files, unit};
use super::lang;
use super::lines::{Coin, Fixed, Urandom};
use super::naming::Draw;
use crate::check_tree::CheckTree;
use crate::shared::Prepared;

/// Which pass a check tree's test files are written for.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Plant<'a> {
    /// The verdict's: every test file keeps its own text.
    Own,
    /// A round of the twin pass: the files in `judged` (judged by an earlier round) keep
    /// theirs.
    Twins {
        /// Files an earlier round judged.
        judged: &'a BTreeSet<String>,
        /// Which side of the units with withheld twins takes twins.
        side: Side,
    },
}

/// Which files take twins in a twin pass where some unit's withheld tests take them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    /// The withheld files where any unit's withheld tests take twins (every file where
    /// none does): the pass the code under test cannot tell from the verdict's by the
    /// files. Each withheld test is twinned in one half and as written in the other
    /// ([`Half`]), and the halves run three times in a drawn order, so that no run after
    /// the verdict's is free of twins.
    Unseen(Half),
    /// The files the agent saw, the withheld ones kept: a forger that spares its own
    /// visible tests by name meets their twins, and one that tells this pass apart and
    /// runs honestly fails the withheld tests it forged before ([`super::changed`]).
    Seen,
}

/// Rewrites the test files of the check tree `check` of `tree` for `plant`: each visible
/// test file and each withheld test, in order, replaced by its own text or (in the twin
/// pass) its twin. `known` are the known answers planted already. A file that cannot be
/// read or written goes without twins.
pub(crate) fn plant_in(
    prepared: &Prepared,
    tree: &str,
    check: &CheckTree,
    known: &[Known],
    plant: Plant<'_>,
) -> Twins {
    let paths = test_files(prepared, tree);
    let mut coin = Urandom::new();
    // The units whose withheld tests take twins: their visible files keep their text.
    let split = split_units(tree, check, &paths, known, &mut coin);
    let withheld_paths: Vec<String> = paths
        .iter()
        .filter(|(_, withheld)| *withheld)
        .map(|(path, _)| path.clone())
        .collect();
    let mut files = Vec::new();
    let mut kept = Vec::new();
    for (path, withheld) in paths {
        let file = check.dir.join(&path);
        let Some(own) = read_plain(&file) else {
            continue;
        };
        let halving = split.files.get(&path).filter(|_| withheld);
        let (text, twin) = file_twin(
            check,
            (&path, own, withheld),
            (&split, halving),
            plant,
            known,
            &mut coin,
        );
        let text = match (plant, twin) {
            (Plant::Twins { judged, .. }, Some((twin, names))) if !judged.contains(&path) => {
                // A withheld file whose other tests are as written beside its twins: they
                // must fare as in the verdict's pass.
                if halving.is_some_and(|h| h.groups.iter().all(|(g, _)| g.own_lines)) {
                    kept.push(path.clone());
                }
                files.push(TwinFile {
                    path,
                    withheld,
                    names,
                });
                twin
            }
            // Judged in an earlier round, no twin here, or the verdict's pass: its own
            // text, so that the steps before the unjudged files pass and the run reaches
            // them; its tests must fare as they did in the verdict's pass.
            _ => {
                kept.push(path);
                text
            }
        };
        // A file that cannot be replaced goes as it is, in both passes alike.
        let _ = replace(&file, &text);
    }
    let notes = weak_withheld(prepared, &withheld_paths, &split);
    Twins {
        files,
        known: known.to_vec(),
        kept,
        notes,
        withheld: withheld_paths,
        split: !split.units.is_empty(),
        clones: copies(plant, &split),
    }
}

/// The text a pass writes for the test file `path` (`own`, withheld or not) before its
/// twin, and the twin it takes there, if any (worked out in the verdict's pass too, so that
/// every pass reads the same files).
fn file_twin(
    check: &CheckTree,
    (path, own, withheld): (&str, String, bool),
    (split, halving): (&Split, Option<&Halving>),
    plant: Plant<'_>,
    known: &[Known],
    coin: &mut dyn Coin,
) -> (String, Option<(String, Vec<String>)>) {
    // Where any unit is split, the pass that hides itself twins withheld files alone,
    // in every unit: a visible twin anywhere (another package, another test binary, a
    // Go test beside a Python package) would tell it apart for code in any unit.
    let (takes_twins, half) = match plant {
        Plant::Twins {
            side: Side::Seen, ..
        } => (!split.units.is_empty() && !withheld, None),
        Plant::Twins {
            side: Side::Unseen(half),
            ..
        } => (withheld || split.units.is_empty(), Some(half)),
        Plant::Own => (withheld || split.units.is_empty(), None),
    };
    // The halves of the pass that hides itself start from the file with its clone.
    let text = match (half, halving.and_then(|h| h.clone.as_ref())) {
        (Some(_), Some(clone)) => clone.text.clone(),
        _ => own,
    };
    let twin = takes_twins
        .then(|| twin_in(Some(&check.dir), path, &text, coin))
        .flatten();
    // In a split unit, the known answer of a withheld file stays as the verdict's pass ran
    // it: its twin compares a value with another where it compared it with itself, which
    // code reading that file could spot. Each half changes its own tests alone.
    let twin = match (twin, halving) {
        (Some(twin), Some(halving)) => {
            // With the copy, the known answer's lines are moved past it.
            let known = match (half, &halving.clone) {
                (Some(_), Some(clone)) => clone.known.as_ref(),
                _ => known.iter().find(|k| k.path == path),
            };
            keeping_known(&text, twin, known)
                .and_then(|(twin, _)| halves::halved(&text, &twin, &halving.groups, half?))
        }
        (twin, _) => twin,
    };
    (text, twin)
}

/// The copies a pass plants (in the two halves alone), with the names of their originals.
fn copies(plant: Plant<'_>, split: &Split) -> Vec<(String, String)> {
    let Plant::Twins {
        side: Side::Unseen(_),
        ..
    } = plant
    else {
        return Vec::new();
    };
    split
        .files
        .values()
        .filter_map(|h| h.clone.as_ref())
        .map(|c| (c.name.clone(), c.original.clone()))
        .collect()
}

/// Notes for the withheld test files (`withheld`) whose twins leave a pass without a
/// question: a unit none of whose withheld tests takes a twin (its twins are in files the
/// agent saw, which code reading them tells apart), and a unit whose one twinned test
/// takes no clone (its twins are in one half alone).
fn weak_withheld(prepared: &Prepared, withheld: &[String], split: &Split) -> Vec<String> {
    let mut notes = Vec::new();
    let mut untwinned: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for path in withheld {
        let declares = prepared
            .declared
            .file(path)
            .is_some_and(|d| d.declares_tests);
        if let Some(unit) = unit(path).filter(|u| declares && !split.units.contains(u)) {
            untwinned.entry(unit).or_default().push(path);
        }
    }
    for files in untwinned.values() {
        notes.push(format!(
            "the withheld tests in {} hold no assertion a twin can change (an equality with a literal, at a test's own level): their unit's twins are in files the agent saw, which code reading those files can tell from the verdict's pass; one such assertion among the withheld tests closes that",
            quoted(files)
        ));
    }
    for (path, name) in &split.one_sided {
        notes.push(format!(
            "the withheld test `{name}` in `{path}` is the only one of its unit with a twin, and no copy of it could be made: its twin is in one run of the pass that hides itself, and a second withheld test with an equality on a literal would put a question in the other"
        ));
    }
    notes
}

/// `files` as a list of quoted paths.
fn quoted(files: &[&str]) -> String {
    files
        .iter()
        .map(|f| format!("`{f}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The tests of one file whose twins must fail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TwinFile {
    /// The file, as a repository path.
    pub(crate) path: String,
    /// Whether it is a withheld test file (its ids are not named to the agent).
    pub(crate) withheld: bool,
    /// The names of its tests whose expected values were changed: a function's or
    /// method's name, a Go test's, a JavaScript test's title.
    pub(crate) names: Vec<String>,
}

/// The twins planted in one check tree.
#[derive(Debug, Clone, Default)]
pub(crate) struct Twins {
    pub(crate) files: Vec<TwinFile>,
    /// The known answers among them.
    pub(crate) known: Vec<Known>,
    /// The test files this pass left as they were (the visible ones while the withheld
    /// ones take the twins, a file with no twin, one judged in an earlier round), and the
    /// withheld files whose twins are their own tests' lines alone: their tests, twins
    /// aside, must fare as in the verdict's pass.
    pub(crate) kept: Vec<String>,
    /// The tree's withheld test files.
    pub(crate) withheld: Vec<String>,
    /// What the story says of withheld tests that leave the passes weaker than designed.
    pub(crate) notes: Vec<String>,
    /// Whether a unit's twins were split between its withheld files and the files the
    /// agent saw ([`Side`]).
    pub(crate) split: bool,
    /// The copies planted beside a unit's one withheld test, each with its original's
    /// name: judged by their twins alone, found in the twin pass's report (the verdict's
    /// pass never ran them; their original is judged as written in the other half).
    pub(crate) clones: Vec<(String, String)>,
}

/// How the pass that hides itself twins the withheld files of the units it splits.
#[derive(Debug, Default)]
struct Split {
    /// The units whose withheld files take twins besides their known answers.
    units: BTreeSet<String>,
    /// Each of their withheld files with twins.
    files: BTreeMap<String, Halving>,
    /// The withheld tests that are their unit's only twinned test and take no clone (the
    /// file, the test): their twins are in the first half alone.
    one_sided: Vec<(String, String)>,
}

/// A withheld file with a copy of its one twinnable test.
#[derive(Debug)]
struct Copied {
    /// The file's text with the copy.
    text: String,
    /// The copy's name.
    name: String,
    /// The name of the test it copies.
    original: String,
    /// The file's known answer, if it holds one, with its lines in `text`.
    known: Option<Known>,
}

/// One withheld file's twins in the two halves of the pass that hides itself.
#[derive(Debug)]
struct Halving {
    /// The file with a clone of its one twinnable test, where that test is its unit's
    /// only one: the original takes its twin in one half, the clone in the other.
    clone: Option<Copied>,
    /// Its groups of tests, each with the half it is twinned in.
    groups: Vec<(Group, Half)>,
}

/// The units of `paths` whose withheld files take twins besides their known answers, and
/// the halves of their twins: every unit's groups drawn into the two halves, as evenly as
/// can be, the same in every pass of the tree `tree`. A unit with a single group gets a
/// clone of that test where one can be made; else its twins are all in the first half.
fn split_units(
    tree: &str,
    check: &CheckTree,
    paths: &[(String, bool)],
    known: &[Known],
    coin: &mut dyn Coin,
) -> Split {
    // Each unit's withheld files: their text and groups.
    let mut units: BTreeMap<String, Vec<(String, String, Vec<Group>)>> = BTreeMap::new();
    for (path, withheld) in paths {
        let Some(unit) = unit(path).filter(|_| *withheld) else {
            continue;
        };
        let Some(text) = read_plain(&check.dir.join(path)) else {
            continue;
        };
        let Some((twin, names)) = twin_in(Some(&check.dir), path, &text, coin)
            .and_then(|twin| keeping_known(&text, twin, known.iter().find(|k| k.path == *path)))
        else {
            continue;
        };
        let groups = halves::groups(path, &text, &twin, &names);
        units
            .entry(unit)
            .or_default()
            .push((path.clone(), text, groups));
    }
    let mut split = Split::default();
    for (unit, mut files) in units {
        let mut draw = Draw::new(tree, &format!("halves of {unit}"));
        let count: usize = files.iter().map(|(_, _, g)| g.len()).sum();
        let mut clone = None;
        if count == 1 {
            let (path, text, groups) = &mut files[0];
            let here = known.iter().find(|k| k.path == *path);
            if let Some((cloned, cloned_groups)) = groups[0]
                .names
                .first()
                .and_then(|name| cloned_groups(check, (path, text, here), name, &mut draw))
            {
                *groups = cloned_groups;
                clone = Some((path.clone(), cloned));
            } else {
                let name = groups[0].names.first().cloned().unwrap_or_default();
                split.one_sided.push((path.clone(), name));
            }
        }
        let count: usize = files.iter().map(|(_, _, g)| g.len()).sum();
        let mut drawn = halves::assign(count, &mut draw).into_iter();
        for (path, _, groups) in files {
            let groups = groups
                .into_iter()
                .map(|g| (g, drawn.next().unwrap_or(Half::One)))
                .collect();
            let clone = clone.take_if(|(p, _)| *p == path).map(|(_, c)| c);
            split.files.insert(path, Halving { clone, groups });
        }
        split.units.insert(unit);
    }
    split
}

/// The file `path` (`text`) with a clone of its test `name`, the clone's name, and the two
/// groups of its twin, the original's and the clone's; `None` where no clone is made or
/// its twin does not split in two.
fn cloned_groups(
    check: &CheckTree,
    (path, text, known): (&str, &str, Option<&Known>),
    name: &str,
    draw: &mut Draw,
) -> Option<(Copied, Vec<Group>)> {
    // A Go test's name is the package's: it must be new to the package's other files.
    let others = if path.ends_with("_test.go") {
        go_package(&check.dir, path)?
    } else {
        Vec::new()
    };
    if runs_beside(&check.dir, path, text, &others) {
        return None;
    }
    let taken = |n: &str| others.iter().any(|t| t.contains(n));
    let (cloned, clone) = super::clone::cloned(path, text, name, draw, &taken)?;
    // A known answer planted in the file keeps its lines, moved past the copy.
    let known = match known {
        Some(known) => Some(moved(text, &cloned, known)?),
        None => None,
    };
    // The twin with every coin heads, and with every coin tails: which lines change does
    // not hang on the coin, only which way each value moves.
    let [heads, tails] = [Fixed(true), Fixed(false)].map(|mut coin| {
        twin_in(Some(&check.dir), path, &cloned, &mut coin)
            .and_then(|twin| keeping_known(&cloned, twin, known.as_ref()))
    });
    let ((heads, names), (tails, _)) = (heads?, tails?);
    let groups = halves::groups(path, &cloned, &heads, &names);
    if groups.len() != 2 || !groups.iter().any(|g| g.names == [clone.clone()]) {
        return None;
    }
    // Beside its copy, a test's right value and its twin are seen in one run: a rule that
    // always moves a value one way (a float's `2n + 1`, `0` to `1`, a typed integer at its
    // type's end) would say which is which. Each changed line must move by the coin.
    let (heads, tails): (Vec<&str>, Vec<&str>) =
        (heads.split('\n').collect(), tails.split('\n').collect());
    let by_coin = groups
        .iter()
        .flat_map(|g| &g.lines)
        .all(|i| heads.get(*i) != tails.get(*i));
    by_coin.then_some((
        Copied {
            text: cloned,
            name: clone,
            original: name.to_owned(),
            known,
        },
        groups,
    ))
}

/// Whether the tests of the file `path` (`text`; `others`, its Go package's other files)
/// may run at the same moment as a copy of one of them, which would then meet it over a
/// folder, a port or a variable they both use: a Go package that calls `t.Parallel()`
/// anywhere (a helper may call it for the test), JavaScript's `test.concurrent` or node's
/// `concurrency`, a Rust file whose tests touch files, the environment, sockets, processes
/// or statics (cargo runs a binary's tests on threads at once), pytest-xdist named in the
/// project's configuration at the tree's top.
pub(super) fn runs_beside(root: &Path, path: &str, text: &str, others: &[String]) -> bool {
    let extension = path.rsplit_once('.').map_or("", |(_, e)| e);
    let holds = |words: &[&str], text: &str| words.iter().any(|w| text.contains(w));
    match extension {
        "go" if path.ends_with("_test.go") => std::iter::once(text)
            .chain(others.iter().map(String::as_str))
            .any(|t| t.contains("Parallel(")),
        "rs" => holds(
            &[
                "fs::",
                "File::",
                "set_var",
                "remove_var",
                "TcpListener",
                "UdpSocket",
                "Command",
                "static ",
                "thread::",
            ],
            text,
        ),
        "py" => ["pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini"]
            .iter()
            .filter_map(|f| read_plain(&root.join(f)))
            .any(|config| holds(&["xdist", "numprocesses", " -n ", "-n=", "-nauto"], &config)),
        _ => holds(&["concurrent", "concurrency"], text),
    }
}

/// The known answer `known` of `text`, where `cloned` is `text` with lines inserted in one
/// place: its lines moved past them; `None` where they fall inside it.
pub(super) fn moved(text: &str, cloned: &str, known: &Known) -> Option<Known> {
    let old: Vec<&str> = text.split('\n').collect();
    let new: Vec<&str> = cloned.split('\n').collect();
    let added = new.len().checked_sub(old.len())?;
    // The places the lines could have gone in: at most the common head's length, at least
    // past all but the common tail (a copy that opens as the known answer does, with a
    // blank line and `#[test]`, could have gone before or after those).
    let head = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let tail = old
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take_while(|(a, b)| a == b)
        .count()
        .min(old.len());
    let (first, last) = (old.len() - tail, head);
    let (from, to) = known.lines;
    let lines = if first <= from && from <= last {
        (from + added, to + added)
    } else if first <= to && to <= last {
        (from, to)
    } else {
        return None;
    };
    Some(Known {
        lines,
        ..known.clone()
    })
}

/// The twin `twin` of the test file `text` with the lines of its known answer, if it holds
/// one, as `text` has them; `None` when no other test has a twin, or when the twin's lines
/// do not line up with the file's.
pub(super) fn keeping_known(
    text: &str,
    (twin, names): (String, Vec<String>),
    known: Option<&Known>,
) -> Option<(String, Vec<String>)> {
    let Some(known) = known else {
        return Some((twin, names));
    };
    let own: Vec<&str> = text.split('\n').collect();
    let mut lines: Vec<&str> = twin.split('\n').collect();
    let (from, to) = known.lines;
    if lines.len() != own.len() || from > to || to > own.len() {
        return None;
    }
    lines[from..to].copy_from_slice(&own[from..to]);
    let names: Vec<String> = names.into_iter().filter(|n| *n != known.name).collect();
    (!names.is_empty()).then(|| (lines.join("\n"), names))
}

/// The twin of the test file `path` (text `text`) of the check tree `root` (`None`: the
/// file read alone), whose tests may call helpers defined there.
pub(super) fn twin_in(
    root: Option<&Path>,
    path: &str,
    text: &str,
    coin: &mut dyn Coin,
) -> Option<(String, Vec<String>)> {
    let extension = path.rsplit_once('.').map_or("", |(_, e)| e);
    let (out, names) = match extension {
        "py" => match root {
            Some(root) => lang::python_with(text, &helpers::python_for(root, path, text), coin),
            None => lang::python(text, coin),
        },
        "go" if path.ends_with("_test.go") => match root {
            Some(root) => {
                let others = go_package(root, path);
                let elsewhere = |name: &str| {
                    others
                        .as_ref()
                        .is_none_or(|texts| texts.iter().any(|t| helpers::words(t, name) > 0))
                };
                lang::go_with(text, &elsewhere, coin)
            }
            None => lang::go(text, coin),
        },
        "rs" => lang::rust(text, coin),
        "js" | "cjs" | "mjs" | "ts" | "cts" | "mts" | "jsx" | "tsx" => match root {
            Some(root) => {
                lang::javascript_with(text, &helpers::javascript_for(root, path, text), coin)
            }
            None => lang::javascript(text, coin),
        },
        _ => return None,
    };
    // A message spelling a changed value changes with it.
    let out = super::messages::follow(text, &out);
    (!names.is_empty()).then_some((out, names))
}

/// The other Go files of the package of `path` (its directory) in the tree `root`, read;
/// `None` where one cannot be read or the directory holds more than 500 entries: then
/// every name counts as named elsewhere.
fn go_package(root: &Path, path: &str) -> Option<Vec<String>> {
    let dir = match path.rsplit_once('/') {
        Some((dir, _)) => root.join(dir),
        None => root.to_path_buf(),
    };
    let own = path.rsplit('/').next().unwrap_or(path);
    let mut texts = Vec::new();
    let mut read = 0;
    for (n, entry) in std::fs::read_dir(dir).ok()?.enumerate() {
        if n >= 500 {
            return None;
        }
        let entry = entry.ok()?;
        let name = entry.file_name();
        let name = name.to_str()?;
        // go builds no folder, whatever its name (`notes.go/`): nothing to read there.
        if !name.ends_with(".go") || name == own || entry.file_type().ok()?.is_dir() {
            continue;
        }
        // A large generated file is read too (bounded), so that one cannot take a copy's
        // name check, and with it the second half, away.
        let meta = std::fs::symlink_metadata(entry.path()).ok()?;
        read += meta.len();
        if !meta.file_type().is_file() || meta.len() > MAX_GO_FILE || read > MAX_GO_PACKAGE {
            return None;
        }
        let bytes = speccoder_foundation::files::read_limited(&entry.path(), MAX_GO_FILE).ok()?;
        texts.push(String::from_utf8(bytes).ok()?);
    }
    Some(texts)
}

/// The largest Go file of a package read for the names it declares.
const MAX_GO_FILE: u64 = 16 << 20;

/// The most bytes of a package's Go files read for the names they declare.
const MAX_GO_PACKAGE: u64 = 64 << 20;
