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
//! ran. Code that reads a visible test to learn which pass runs then learns nothing, and a
//! forger must forge in both passes or in neither: the withheld twins catch the first, the
//! withheld tests the second. So where any unit holds such withheld tests, visible files
//! of every unit take twins only in a second twin pass of their own ([`Side::Seen`]),
//! with the withheld files kept, for a forger that spares the visible tests it knows by
//! name; without withheld tests, the one twin pass twins every file.

use std::collections::BTreeSet;
use std::path::Path;

use super::helpers;
use super::known::{self, Known, read_plain, replace, test_files, unit};
use super::lang;
use super::lines::Coin;
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
    /// none does): the pass the code under test cannot tell from the verdict's.
    Unseen,
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
    let unseen = split_units(check, &paths, known, &mut coin);
    let withheld_paths: Vec<String> = paths
        .iter()
        .filter(|(_, withheld)| *withheld)
        .map(|(path, _)| path.clone())
        .collect();
    let mut files = Vec::new();
    let mut kept = Vec::new();
    for (path, withheld) in paths {
        let file = check.dir.join(&path);
        let Some(text) = read_plain(&file) else {
            continue;
        };
        let split = unit(&path).is_some_and(|u| unseen.contains(&u));
        // Where any unit is split, the pass that hides itself twins withheld files alone,
        // in every unit: a visible twin anywhere (another package, another test binary, a
        // Go test beside a Python package) would tell it apart for code in any unit.
        let takes_twins = match plant {
            Plant::Twins {
                side: Side::Seen, ..
            } => !unseen.is_empty() && !withheld,
            _ => withheld || unseen.is_empty(),
        };
        // Worked out in the verdict's pass too, so that both read the same files.
        let twin = takes_twins
            .then(|| twin_in(Some(&check.dir), &path, &text, &mut coin))
            .flatten();
        // In a split unit, the known answer of a withheld file stays as the verdict's pass
        // ran it: its twin compares a value with another where it compared it with itself,
        // which code reading that file could spot.
        let twin = match twin {
            Some(twin) if split && withheld => {
                keeping_known(&text, twin, known.iter().find(|k| k.path == path))
            }
            twin => twin,
        };
        let text = match (plant, twin) {
            (Plant::Twins { judged, .. }, Some((twin, names))) if !judged.contains(&path) => {
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
    Twins {
        files,
        known: known.to_vec(),
        kept,
        withheld: withheld_paths,
        split: !unseen.is_empty(),
    }
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
    /// ones take the twins, a file with no twin, one judged in an earlier round): their
    /// tests must fare as in the verdict's pass.
    pub(crate) kept: Vec<String>,
    /// The tree's withheld test files.
    pub(crate) withheld: Vec<String>,
    /// Whether a unit's twins were split between its withheld files and the files the
    /// agent saw ([`Side`]).
    pub(crate) split: bool,
}

/// Coin flips from the system's random source.
struct Urandom {
    bytes: Vec<u8>,
    bit: usize,
}

impl Urandom {
    fn new() -> Self {
        let mut bytes = vec![0u8; 64];
        let _ = std::fs::File::open("/dev/urandom")
            .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut bytes));
        Self { bytes, bit: 0 }
    }
}

impl Coin for Urandom {
    fn flip(&mut self) -> bool {
        if self.bit >= self.bytes.len() * 8 {
            *self = Self::new();
        }
        let (byte, bit) = (self.bit / 8, self.bit % 8);
        self.bit += 1;
        self.bytes[byte] >> bit & 1 == 1
    }
}

/// The units of `paths` whose withheld files take twins besides their known answers:
/// their twins are split between the withheld files and the ones the agent saw.
fn split_units(
    check: &CheckTree,
    paths: &[(String, bool)],
    known: &[Known],
    coin: &mut dyn Coin,
) -> BTreeSet<String> {
    let mut unseen: BTreeSet<String> = BTreeSet::new();
    for (path, withheld) in paths {
        let Some(unit) = unit(path).filter(|_| *withheld) else {
            continue;
        };
        if unseen.contains(&unit) {
            continue;
        }
        let file = check.dir.join(path);
        let twinned = read_plain(&file)
            .and_then(|text| {
                let twin = twin_in(Some(&check.dir), path, &text, coin)?;
                keeping_known(&text, twin, known.iter().find(|k| k.path == *path))
            })
            .is_some();
        if twinned {
            unseen.insert(unit);
        }
    }
    unseen
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
    for (n, entry) in std::fs::read_dir(dir).ok()?.enumerate() {
        if n >= 500 {
            return None;
        }
        let entry = entry.ok()?;
        let name = entry.file_name();
        let name = name.to_str()?;
        if !name.ends_with(".go") || name == own {
            continue;
        }
        texts.push(known::read_plain(&entry.path())?);
    }
    Some(texts)
}
