//! Twins of the task's tests (invariant 12 of `docs/design/verdict.md`). Equality that always
//! holds, a neutered helper, a patched framework and a forged report have one thing in
//! common: a test whose expected value is wrong passes too. So the verdict asks that
//! question. After the verdict's pass has passed, the checks run once more in a fresh
//! check tree where each test file's equality assertions on a literal (`assert add(2, 3)
//! == 5`, `self.assertEqual(x, 5)`, `got != 5` before `t.Fatalf`, `assert_eq!(x, 5)`,
//! `expect(x).toBe(5)`, `assert.strictEqual(x, 5)`) hold another value of the same kind.
//! The files keep their names, places, tests and order; nothing but the value differs. A
//! correct implementation fails every twin whose original passed; a twin that passes, or
//! a twin pass that exits 0 where twins ran, means the checking was subverted:
//! `forged_results`, whatever the spelling.
//!
//! Only statements that run whenever the test passes are changed: at the test body's own
//! level (not in a loop, a branch or a `with`), in a test without an early `return`, a
//! skip or an expected failure, comparing for equality (never `!=`, `not`, `or`) with a
//! literal integer or plain string. For such a statement, the original passing means the
//! compared value equals the literal, so it cannot equal a different literal. The same
//! reasoning reaches a literal through one step the test always takes: a Go test's `want
//! := 5` compared once (`lang.rs`), a helper function's or method's parameter
//! (`helpers.rs`), a table's expected column where every row compares its own
//! (`tables.rs`: parametrize, `test.each`, loops over literal rows, `subTest`, tables
//! defined outside their one test).

mod clone;
mod halves;
mod helpers;
mod known;
mod lang;
mod lines;
mod messages;
mod naming;
mod plant;
mod tables;

pub(crate) use halves::runs;
pub(crate) use known::{Known, at_base, now, plant_known, scrub, strip};
#[cfg(test)]
pub(crate) use lines::Coin;
use naming::{SEPARATORS, names, unparametrized};
#[cfg(test)]
use plant::twin_in;
pub(crate) use plant::{Plant, Side, TwinFile, Twins, plant_in};

use std::collections::BTreeMap;

use super::results::{TestOutcome, TestReport};

/// The twin of one test file's `text`: the text with its expected values changed and the
/// names of the tests that hold a change, or `None` when nothing could be changed safely.
#[cfg(test)]
pub(crate) fn twin_of(
    path: &str,
    text: &str,
    coin: &mut dyn Coin,
) -> Option<(String, Vec<String>)> {
    twin_in(None, path, text, coin)
}

/// What a check's twins said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TwinsSaid {
    /// The check holds no twin whose original passed.
    None,
    /// Every twin that ran failed, as it must: the count.
    Held(usize),
    /// The twin pass was stopped from outside, or ended before any twin ran with a
    /// failing exit: nothing to judge.
    Inconclusive,
}

/// A report's ids by the names they may end in, so that finding a name's ids costs one
/// look-up, not a pass over up to 100,000 ids for each of thousands of names.
struct ByName<'a> {
    ids: std::collections::HashMap<&'a str, Vec<&'a String>>,
}

impl<'a> ByName<'a> {
    fn new(tests: &'a BTreeMap<String, TestOutcome>) -> Self {
        let mut ids: std::collections::HashMap<&str, Vec<&String>> =
            std::collections::HashMap::new();
        for id in tests.keys() {
            let bare = unparametrized(id);
            let mut tails = vec![bare];
            tails.extend(
                SEPARATORS
                    .iter()
                    .filter_map(|sep| bare.rsplit_once(sep).map(|(_, tail)| tail)),
            );
            tails.sort_unstable();
            tails.dedup();
            for tail in tails {
                ids.entry(tail).or_default().push(id);
            }
        }
        Self { ids }
    }

    /// The ids naming `name`.
    fn get(&self, name: &str) -> Vec<&'a String> {
        self.ids
            .get(name)
            .into_iter()
            .flatten()
            .copied()
            .filter(|id| names(id, name))
            .collect()
    }
}

/// The ids of `report` that are `twin`'s tests: those naming one of its tests and its
/// file's stem where the runner's ids hold the file; where they do not (go, node, mocha),
/// a name only when exactly one id of the report holds it.
fn ids_of<'a>(twin: &TwinFile, tests: &ByName<'a>) -> Vec<&'a String> {
    let file = twin.path.rsplit('/').next().unwrap_or(&twin.path);
    let stem = file.split_once('.').map_or(file, |(s, _)| s);
    let mut ids = Vec::new();
    for name in &twin.names {
        let named = tests.get(name);
        let with_file: Vec<&String> = named
            .iter()
            .copied()
            .filter(|id| id.contains(stem))
            .collect();
        if !with_file.is_empty() {
            ids.extend(with_file);
        } else if named.len() == 1 {
            ids.extend(named);
        }
    }
    ids.sort();
    ids.dedup();
    ids
}

/// How an id is named in a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shown {
    /// By its id.
    Id,
    /// A withheld test's, or the known answer's, never: the next agent reads the findings.
    Hidden,
}

fn shown(id: &str, how: Shown) -> String {
    match how {
        Shown::Id => format!("`{id}`"),
        Shown::Hidden => "a withheld test (or speccoder's known answer)".into(),
    }
}

/// Judges one check's twin pass: `verdict`, the verdict's report of the check (which
/// passed); `twin`, the twin pass's, which exited `exit_code` (`None` when stopped from
/// outside); `base`, the check's tests at the base, where a runner that names only its
/// failures named the task's tests; `sole`, whether it is the attempt's only check. `Err`
/// says why the checking was subverted.
pub(crate) fn judge(
    twins: &Twins,
    verdict: &TestReport,
    twin: &TestReport,
    exit_code: Option<i32>,
    timed_out: bool,
    base: Option<&BTreeMap<String, TestOutcome>>,
    sole: bool,
) -> Result<TwinsSaid, String> {
    // The twins whose originals passed in the verdict's pass, by id.
    let mut judged: BTreeMap<&String, Shown> = BTreeMap::new();
    let by_name = ByName::new(&verdict.tests);
    for file in &twins.files {
        for id in ids_of(file, &by_name) {
            if verdict.tests.get(id) == Some(&TestOutcome::Passed) {
                let known = twins.known.iter().any(|k| k.is(id));
                let how = if file.withheld || known {
                    Shown::Hidden
                } else {
                    Shown::Id
                };
                judged.insert(id, how);
            }
        }
    }
    // A runner that names only failures (unittest without `-v`, jest and vitest over
    // several files) does not name the twins' originals: those it named at the base
    // (failing there) and the withheld ones are known to run, and must be named failing.
    let passing = |r: &TestReport| r.counts.get(&TestOutcome::Passed).copied().unwrap_or(0);
    let named_passes = verdict
        .tests
        .values()
        .filter(|o| **o == TestOutcome::Passed)
        .count();
    let counts_only = passing(verdict) > named_passes && counts_hold_twins(twins, verdict);
    let copies = copies_in(twins);
    if judged.is_empty() && !counts_only && copies.is_empty() {
        return Ok(TwinsSaid::None);
    }
    if timed_out || exit_code.is_none() {
        return Ok(TwinsSaid::Inconclusive);
    }
    let copies_failed = copies_judged(&copies, twin)?;
    let renamed = Renamed::new(verdict, twin);
    for (id, how) in &judged {
        if renamed
            .outcome(id)
            .is_some_and(|o| matches!(o, TestOutcome::Passed | TestOutcome::Xpassed))
        {
            return Err(passed(id, *how));
        }
    }
    let mut failed = judged
        .keys()
        .filter(|id| failing(renamed.outcome(id).as_ref()))
        .count()
        + copies_failed;
    if counts_only {
        // A report that names no test at all ended before its summary.
        if twin.runners.is_empty() {
            return Ok(TwinsSaid::Inconclusive);
        }
        failed += named_failing(twins, twin, base, sole)?;
    }
    if failed > 0 {
        return Ok(TwinsSaid::Held(failed));
    }
    // Twins ran whose originals passed, none failed, and the run ended well: they
    // vanished from a report that is not the runner's.
    if exit_code == Some(0) {
        return Err(
            "the twin pass exited 0 and reported none of its twins failing: a correct implementation fails them, so the run's report or exit was subverted"
                .into(),
        );
    }
    Ok(TwinsSaid::Inconclusive)
}

/// The copies twinned in this pass (`twins.clones`), each with its file and the name of
/// the test it copies.
fn copies_in(twins: &Twins) -> Vec<(&TwinFile, &String, &String)> {
    twins
        .files
        .iter()
        .flat_map(|file| copies_of(twins, file).map(move |(copy, original)| (file, copy, original)))
        .collect()
}

/// The copies among the twins of `file`, each with the name of the test it copies.
fn copies_of<'a>(
    twins: &'a Twins,
    file: &'a TwinFile,
) -> impl Iterator<Item = &'a (String, String)> + 'a {
    twins
        .clones
        .iter()
        .filter(move |(copy, _)| file.names.contains(copy))
}

/// The ids of `tests` that are the test `name` of `file`, as [`ids_of`] finds them.
fn ids_named<'a>(file: &TwinFile, name: &str, tests: &ByName<'a>) -> Vec<&'a String> {
    let one = TwinFile {
        names: vec![name.to_owned()],
        ..file.clone()
    };
    ids_of(&one, tests)
}

/// Judges the twins of copies, which the verdict's pass never ran, by `twin`'s report
/// alone: one reported passing is `Err`, and so is one missing where the report names
/// the test it copies (run as written beside it: the file ran, and its twin vanished).
/// How many failed.
fn copies_judged(
    copies: &[(&TwinFile, &String, &String)],
    twin: &TestReport,
) -> Result<usize, String> {
    let by_name = ByName::new(&twin.tests);
    let mut failed = 0;
    for (file, copy, original) in copies {
        let ids = ids_named(file, copy, &by_name);
        let outcomes: Vec<Option<&TestOutcome>> =
            ids.iter().map(|id| twin.tests.get(id.as_str())).collect();
        if let Some(at) = outcomes
            .iter()
            .position(|o| matches!(o, Some(TestOutcome::Passed | TestOutcome::Xpassed)))
        {
            return Err(passed(ids[at], Shown::Hidden));
        }
        if outcomes.iter().any(|o| failing(*o)) {
            failed += 1;
        } else if !ids_named(file, original, &by_name).is_empty() {
            return Err(
                "the twin of a withheld test vanished from a report that names the test beside it: a correct implementation fails it, so the run's report was subverted"
                    .into(),
            );
        }
    }
    Ok(failed)
}

/// The twin pass's outcomes by the verdict's ids. A table's twin keeps its rows' ids
/// (`tables/ids.rs`); where a project's own `pytest_make_parametrize_id` hook names them
/// from the values, the twin runs under another id (`test_add[2-3-6]`): an id the twin
/// pass lacks takes the outcomes of the new ids of its test, a pass among them first.
struct Renamed<'a> {
    twin: &'a TestReport,
    new: std::collections::HashMap<&'a str, Vec<TestOutcome>>,
}

impl<'a> Renamed<'a> {
    fn new(verdict: &TestReport, twin: &'a TestReport) -> Self {
        let mut new: std::collections::HashMap<&str, Vec<TestOutcome>> =
            std::collections::HashMap::new();
        for (id, outcome) in &twin.tests {
            let bare = unparametrized(id);
            if bare != id && !verdict.tests.contains_key(id) {
                new.entry(bare).or_default().push(*outcome);
            }
        }
        Self { twin, new }
    }

    fn outcome(&self, id: &str) -> Option<TestOutcome> {
        if let Some(outcome) = self.twin.tests.get(id) {
            return Some(*outcome);
        }
        let bare = unparametrized(id);
        if bare == id {
            return None;
        }
        let outcomes = self.new.get(bare)?;
        outcomes
            .iter()
            .find(|o| matches!(o, TestOutcome::Passed | TestOutcome::Xpassed))
            .or_else(|| outcomes.iter().find(|o| failing(Some(o))))
            .or_else(|| outcomes.first())
            .copied()
    }
}

/// The files of `twins` whose twins the pass reached, and those it did not: files with a
/// test whose original passed in `verdict`, by whether any of those tests has an outcome
/// in `twin`. A check of several steps (`pytest && go test`) stopped at the first step's
/// failing twins reaches the later steps' files only in a round of their own.
pub(crate) fn reached(
    twins: &Twins,
    verdict: &TestReport,
    twin: &TestReport,
) -> (Vec<String>, Vec<String>) {
    let by_name = ByName::new(&verdict.tests);
    let renamed = Renamed::new(verdict, twin);
    let (mut reached, mut unreached) = (Vec::new(), Vec::new());
    let by_twin = ByName::new(&twin.tests);
    for file in &twins.files {
        let ids: Vec<&String> = ids_of(file, &by_name)
            .into_iter()
            .filter(|id| verdict.tests.get(id.as_str()) == Some(&TestOutcome::Passed))
            .collect();
        // A file whose twins are copies alone: reached where this run names the copy or
        // the test it copies.
        let mut copies = copies_of(twins, file).peekable();
        if ids.is_empty() && copies.peek().is_some() {
            let named = |name: &String| !ids_named(file, name, &by_twin).is_empty();
            if copies.any(|(copy, original)| named(copy) || named(original)) {
                reached.push(file.path.clone());
            } else {
                unreached.push(file.path.clone());
            }
            continue;
        }
        if ids.is_empty() {
            continue;
        }
        if ids.iter().any(|id| renamed.outcome(id).is_some()) {
            reached.push(file.path.clone());
        } else {
            unreached.push(file.path.clone());
        }
    }
    (reached, unreached)
}

/// The language of a test file, for the rounds of the twin pass: one runner's files.
pub(crate) fn language(path: &str) -> &'static str {
    match path.rsplit_once('.').map_or("", |(_, e)| e) {
        "py" => "python",
        "go" => "go",
        "rs" => "rust",
        _ => "javascript",
    }
}

/// Whether a report gives `outcome` as a failure.
fn failing(outcome: Option<&TestOutcome>) -> bool {
    outcome.is_some_and(|o| matches!(o, TestOutcome::Failed | TestOutcome::Errored))
}

/// For a runner that names only failures: the twins that must be named failing in `twin`
/// (those `base` named, the withheld ones where the check is the `sole` one, the known
/// answer), how many were; `Err` for one
/// that was not, which passed. With none of those, any failure counts as one.
fn named_failing(
    twins: &Twins,
    twin: &TestReport,
    base: Option<&BTreeMap<String, TestOutcome>>,
    sole: bool,
) -> Result<usize, String> {
    let mut failed = 0;
    let at_base = base.map(ByName::new);
    let now = ByName::new(&twin.tests);
    for file in &twins.files {
        let known: Vec<&String> = at_base
            .as_ref()
            .map_or_else(Vec::new, |base| ids_of(file, base));
        for id in &known {
            if !failing(twin.tests.get(id.as_str())) {
                let how = if file.withheld {
                    Shown::Hidden
                } else {
                    Shown::Id
                };
                return Err(passed(id, how));
            }
        }
        failed += known.len();
        // A withheld file the base's run never named: by name, where this check is the
        // only one (with several, another may be the one that runs it).
        let by_name: Vec<&String> = if file.withheld && known.is_empty() && sole {
            file.names.iter().collect()
        } else {
            // The known answer, where the runner shows it ran the file (it names another of
            // its tests): a file the check never runs is no evidence.
            let name = file.path.rsplit('/').next().unwrap_or(&file.path);
            let stem = name.split_once('.').map_or(name, |(s, _)| s);
            let ran = twin.tests.keys().any(|id| id.contains(stem));
            let answer = twins.known.iter().find(|k| k.path == file.path && ran);
            file.names
                .iter()
                .filter(|n| answer.is_some_and(|k| k.name == **n))
                .collect()
        };
        for name in by_name {
            if !now
                .get(name)
                .iter()
                .any(|id| failing(twin.tests.get(id.as_str())))
            {
                return Err(passed(name, Shown::Hidden));
            }
            failed += 1;
        }
    }
    let counted = |o: TestOutcome| twin.counts.get(&o).copied().unwrap_or(0);
    if failed == 0 && counted(TestOutcome::Failed) + counted(TestOutcome::Errored) > 0 {
        failed = 1;
    }
    Ok(failed)
}

/// A test of a file the twin pass left as it was (`twins.kept`, and the untwinned tests of
/// a withheld file whose other tests took twins) that passed in `verdict` and failed in
/// `twin`, shown: nothing changed it but which pass ran, so either it is flaky or the code
/// under test told the passes apart and cheated in the verdict's alone. A withheld test
/// the verdict's report does not name (a runner that names only failures, such as
/// unittest without `-v`) passed there too, the check having passed: failing here, it
/// counts the same. Read are the tests whose ids name their file (Python's, and the
/// runners that print the file before the title), and those `declared` says a kept file
/// declares (a withheld Go test, a node title). Only a test of a visible file is shown by
/// its id.
pub(crate) fn changed(
    twins: &Twins,
    (verdict, twin): (&TestReport, &TestReport),
    declared: &dyn Fn(&str) -> bool,
) -> Option<String> {
    if twins.kept.is_empty() {
        return None;
    }
    let (by_verdict, by_twin) = (ByName::new(&verdict.tests), ByName::new(&twin.tests));
    // By name in both reports: a table's twin may run under other ids.
    let twinned: std::collections::BTreeSet<&String> = twins
        .files
        .iter()
        .flat_map(|file| file.names.iter())
        .flat_map(|name| by_verdict.get(name).into_iter().chain(by_twin.get(name)))
        .collect();
    let kept = Files::new(&twins.kept);
    let withheld = Files::new(&twins.withheld);
    let of_kept = |id: &str| file_of(id).is_some_and(|f| kept.holds(&f)) || declared(id);
    let of_withheld = |id: &str| file_of(id).is_some_and(|f| withheld.holds(&f));
    let (id, _) = twin
        .tests
        .iter()
        .filter(|(id, outcome)| failing(Some(outcome)) && of_kept(id))
        .filter(|(id, _)| match verdict.tests.get(id.as_str()) {
            Some(outcome) => *outcome == TestOutcome::Passed,
            None => of_withheld(id) || declared(id),
        })
        .filter(|(id, _)| !twins.clones.iter().any(|(c, _)| names(id, c)))
        .find(|(id, _)| !twinned.contains(id) && !twins.known.iter().any(|k| k.is(id)))?;
    // A withheld test's id is never shown: the next agent reads the reasons.
    let visible = file_of(id).is_some_and(|f| kept.holds(&f) && !withheld.holds(&f));
    Some(shown(id, if visible { Shown::Id } else { Shown::Hidden }))
}

/// Repository paths, matched with the file a runner's id names relative to wherever it
/// ran: by their last folder and name, or by name alone where the id names no folder.
struct Files<'a> {
    tails: std::collections::HashSet<&'a str>,
    names: std::collections::HashSet<&'a str>,
}

impl<'a> Files<'a> {
    fn new(paths: &'a [String]) -> Self {
        Self {
            tails: paths.iter().map(|p| tail(p)).collect(),
            names: paths
                .iter()
                .map(|p| p.rsplit('/').next().unwrap_or(p))
                .collect(),
        }
    }

    fn holds(&self, file: &str) -> bool {
        if file.contains('/') {
            self.tails.contains(tail(file))
        } else {
            self.names.contains(file)
        }
    }
}

/// The file a runner's id names before its test (`tests/test_add.py` of pytest's
/// `tests/test_add.py::test_small`, the path before a title), or the module of
/// unittest's dotted id (`tests/test_add.py` of `tests.test_add.AddTest.test_small`), if
/// any.
fn file_of(id: &str) -> Option<std::borrow::Cow<'_, str>> {
    let file = match id.split_once("::") {
        Some((file, _)) => file,
        None => match id.split_once(' ') {
            Some((file, _)) => file,
            None => return unittest_module(id).map(std::borrow::Cow::Owned),
        },
    };
    file.contains('.')
        .then_some(std::borrow::Cow::Borrowed(file))
}

/// The module file of unittest's id `package.module.Class.test`: its words but the last
/// two, as a path.
fn unittest_module(id: &str) -> Option<String> {
    let words: Vec<&str> = id.split('.').collect();
    let word =
        |w: &&str| !w.is_empty() && w.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if words.len() < 3 || !words.iter().all(word) {
        return None;
    }
    Some(format!("{}.py", words[..words.len() - 2].join("/")))
}

/// The last folder and name of a path (`tests/test_add.py` of `pkg/tests/test_add.py`), by
/// which a runner's id, relative to wherever it ran, is matched with a repository path.
fn tail(path: &str) -> &str {
    let mut slashes = path.rmatch_indices('/');
    match (slashes.next(), slashes.next()) {
        (Some(_), Some((at, _))) => &path[at + 1..],
        _ => path,
    }
}

/// The finding's words for the twin of `id`, which passed.
fn passed(id: &str, how: Shown) -> String {
    format!(
        "the twin of {}, whose expected value was changed, passed: a correct implementation fails it, so the checking was subverted (equality that always holds, a neutered assertion or helper, or a report that is not the runner's)",
        shown(id, how)
    )
}

/// Whether a check judged by counts runs twins: a twin file in the language of a
/// counts-only runner it ran.
fn counts_hold_twins(twins: &Twins, verdict: &TestReport) -> bool {
    use super::results::TestFramework::{Jest, Pytest, Unittest, Vitest};
    let has = |extensions: &[&str]| {
        twins
            .files
            .iter()
            .any(|f| extensions.iter().any(|e| f.path.ends_with(e)))
    };
    verdict.runners.iter().any(|r| match r {
        Unittest | Pytest => has(&[".py"]),
        Jest | Vitest => has(&[".js", ".cjs", ".mjs", ".ts", ".cts", ".mts", ".jsx", ".tsx"]),
        _ => false,
    })
}

#[cfg(test)]
mod tests;
