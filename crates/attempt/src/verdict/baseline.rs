//! The baseline (invariant 10 of `docs/design/verdict.md`): before the agent starts, the checks
//! run once at the base, with the withheld and acceptance tests in place, in a check tree
//! of the base. Every test that ran there, passed or failed, must run and pass after the
//! change: a test failing at the base is what the task is for, and only `[attempt]
//! known_failures` excuses one. The result is kept in the journal, per base tree and
//! checks, so a later run at the same base reuses it.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::outcomes::{self, BaseTests, NewTests};
use super::results::TestOutcome;
use super::twins;
use crate::attempt_error::AttemptError;
use crate::check_tree::CheckTree;
use crate::checks;
use crate::prepare::prepare;
use crate::setup::{self, fingerprint};
use crate::shared::{AttemptRequest, CheckResult, KnownFailures, Pass, Prepared};

/// The baseline of one attempt run.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct Baseline {
    /// Each check at the base, with the withheld and acceptance tests in place.
    pub(crate) checks: Vec<BaseTests>,
    /// Each check at the base without the withheld tests, when there are some: what runs
    /// only in `checks` is withheld.
    #[serde(default)]
    pub(crate) without_withheld: Vec<BaseTests>,
}

impl Baseline {
    /// The base's tests of `op`.
    pub(crate) fn of(&self, op: &str) -> Option<&BaseTests> {
        self.checks.iter().find(|c| c.op == op)
    }

    /// The tests of `op` at the base without the withheld tests.
    pub(crate) fn without_withheld(&self, op: &str) -> Option<&BaseTests> {
        self.without_withheld.iter().find(|c| c.op == op)
    }
}

/// What the checks' environment adds, in the cache key of a baseline (and what speccoder
/// plants: a baseline kept with the old canary's places has none of the known answer's).
const CHECKS_RUN_AS: &str =
    "PYTEST_ADDOPTS=--junitxml -rA; GOFLAGS=-v; CARGO_TARGET_DIR; known answer; 5\0";

/// The file the baseline of this base and these checks is kept in.
fn cache_file(prepared: &Prepared) -> Option<PathBuf> {
    let tree = prepared
        .store
        .run(&["rev-parse", &format!("{}^{{tree}}", prepared.base)])
        .ok()?;
    // How the checks are run is part of what a kept baseline measured: a change to it (go
    // asked for every result with `GOFLAGS=-v`) must not reuse an older one.
    let mut what = String::from(CHECKS_RUN_AS);
    for op in &prepared.ops {
        what.push_str(op);
        what.push('\0');
        if let Ok(resolved) = prepared.recipe.resolve(op) {
            what.push_str(&resolved.command);
        }
        what.push('\0');
    }
    if let Some(withheld) = &prepared.withheld {
        for text in &withheld.texts {
            what.push_str(&text.path);
            what.push('\0');
            what.push_str(&text.text);
        }
    }
    Some(
        prepared
            .repo
            .common_dir
            .join("speccoder")
            .join("baselines")
            .join(format!("{tree}-{}.json", fingerprint(&what))),
    )
}

/// The baseline: read from the journal when this base was measured before, else run now.
/// `None` when there are no checks, or when the base's check tree cannot be made (the
/// checks are then judged without it, and the note says why).
pub(crate) fn baseline(
    prepared: &Prepared,
    notes: &mut Vec<String>,
) -> (Option<Baseline>, Vec<CheckResult>) {
    if prepared.ops.is_empty() {
        return (None, Vec::new());
    }
    let file = cache_file(prepared);
    if let Some(file) = &file
        && let Ok(bytes) = speccoder_foundation::files::read_limited(file, 64 << 20)
        && let Ok(cached) = serde_json::from_slice::<Baseline>(&bytes)
    {
        return (Some(cached), Vec::new());
    }
    let mut baseline = Baseline::default();
    let results = match run_at(prepared, &prepared.base, "check-base", true) {
        Ok((tests, results)) => {
            baseline.checks = tests;
            results
        }
        Err(err) => {
            notes.push(format!(
                "the checks did not run at the base ({err}): every check is judged without a baseline"
            ));
            return (None, Vec::new());
        }
    };
    // At the base without the withheld tests: what only the first run ran is withheld.
    if prepared.withheld.is_some() {
        match run_at(prepared, &prepared.base, "check-base-only", false) {
            Ok((tests, _)) => baseline.without_withheld = tests,
            Err(err) => notes.push(format!(
                "the checks did not run at the base without the withheld tests ({err})"
            )),
        }
    }
    if let Some(file) = &file
        && let Some(parent) = file.parent()
        && speccoder_foundation::private_dir::ensure_private_dir(parent).is_ok()
        && let Ok(text) = serde_json::to_vec(&baseline)
    {
        let part = file.with_extension("json.part");
        if std::fs::write(&part, text).is_ok() {
            let _ = std::fs::rename(&part, file);
        }
    }
    (Some(baseline), results)
}

/// What `speccoder attempt --baseline` found: the checks at `HEAD`, as the verdict would
/// run them, and the tests that fail there.
#[derive(Debug, Clone, Serialize)]
pub struct BaselineReport {
    /// Each check, judged as a change would be (every test must pass).
    pub checks: Vec<CheckResult>,
    /// The ids of the tests that failed or errored, sorted, over every check.
    pub failing: Vec<String>,
    /// `failing` as a line for `[attempt]` in `speccoder.toml`.
    pub known_failures: String,
    /// Notes: the setup, checks whose runner names no failing test.
    pub notes: Vec<String>,
}

/// `speccoder attempt --baseline`: the configured checks on `HEAD` in a check tree, in the
/// sandbox, after `[attempt] setup`, as the verdict would run them; the tests that fail
/// there, as a ready `known_failures` line. Nothing is kept.
pub fn measure(request: &AttemptRequest<'_>) -> Result<BaselineReport, AttemptError> {
    let mut prepared = prepare(request)?;
    let timeout = std::time::Duration::from_secs(request.config.recipe.timeout_secs);
    setup::install(&mut prepared, &request.config.attempt.setup, timeout)
        .map_err(AttemptError::Setup)?;
    if prepared.ops.is_empty() {
        return Err(AttemptError::Checks(
            "no checks to run: `[attempt] checks` is empty; name the checks there, or leave it out to run the `test` task".into(),
        ));
    }
    let head = prepared.repo.head.clone();
    let (tests, checks) =
        run_at(&prepared, &head, "check-head", false).map_err(AttemptError::Io)?;
    let mut notes = std::mem::take(&mut prepared.notes);
    let mut failing: Vec<String> = tests
        .iter()
        .flat_map(|t| t.tests.iter())
        .filter(|(_, o)| matches!(o, TestOutcome::Failed | TestOutcome::Errored))
        .map(|(id, _)| id.clone())
        .collect();
    failing.sort();
    failing.dedup();
    for (check, base) in checks.iter().zip(&tests) {
        let named = base
            .tests
            .values()
            .filter(|o| matches!(o, TestOutcome::Failed | TestOutcome::Errored))
            .count();
        let counted = check
            .tests
            .counts
            .iter()
            .filter(|(o, _)| matches!(o, TestOutcome::Failed | TestOutcome::Errored))
            .map(|(_, n)| n)
            .sum::<usize>();
        if check.tests.runners.is_empty() && !check.passed {
            notes.push(format!(
                "check `{}` failed and no recognised test runner's results were in its output: it is judged by its exit code, which no list excuses",
                check.op
            ));
        } else if counted > named {
            notes.push(format!(
                "check `{}`: {} failing tests are counted but not named by the runner; run it verbosely to name them",
                check.op,
                counted - named
            ));
        }
    }
    let quoted: Vec<String> = failing
        .iter()
        // A JSON string is a TOML basic string: the same escapes, `\uXXXX` included.
        .map(|id| serde_json::Value::String(KnownFailures::entry_for(id)).to_string())
        .collect();
    let known_failures = format!("known_failures = [{}]", quoted.join(", "));
    // Dropping `prepared` removes the attempt's folder and its running mark.
    Ok(BaselineReport {
        checks,
        failing,
        known_failures,
        notes,
    })
}

/// The checks in a fresh tree of `commit`, with the withheld tests when `withheld`.
fn run_at(
    prepared: &Prepared,
    commit: &str,
    name: &str,
    withheld: bool,
) -> Result<(Vec<BaseTests>, Vec<CheckResult>), String> {
    let frozen: Vec<String> = prepared
        .store
        .entries(commit)
        .unwrap_or_default()
        .into_iter()
        .filter(|e| prepared.rules.is_test(&e.path))
        .map(|e| e.path)
        .collect();
    let tree = CheckTree::make(prepared, commit, name, &frozen, withheld)?;
    let known = twins::plant_known(prepared, commit, &tree);
    // The base's checks alone write the shared bytecode (`shared/pycache.rs`).
    let place = checks::Place::new(prepared, &tree.dir, true);
    let runner = prepared.check_spawner(
        &tree.dir,
        (tree.read_only.clone(), tree.caches.as_deref()),
        place.also_writable(),
    );
    let ran = checks::run_checks(
        &prepared.recipe,
        &prepared.ops,
        &tree.project,
        &place,
        runner.as_ref(),
        Pass::Baseline,
    );
    let mut tests = Vec::new();
    let mut results = Vec::new();
    for checks::CheckRun {
        mut result,
        mut report,
    } in ran
    {
        // The known answer shows where one is reported; the tests are the base's without it.
        let mut places = BaseTests::default();
        let state = twins::at_base(&known, &report, &mut places);
        twins::strip(&known, &mut report);
        let mut base = BaseTests::of(&result.op, result.exit_code, &report);
        base.known_places = places.known_places;
        base.known_misread = places.known_misread;
        result.output_tail = twins::scrub(&known, &result.output_tail);
        result.cause = result.cause.as_deref().map(|c| twins::scrub(&known, c));
        // How the base itself fares: every test it runs must pass, as after a change.
        let (passed, mut summary) = outcomes::judge(
            result.exit_code,
            result.timed_out,
            &report,
            None,
            outcomes::NewTests::default(),
            &prepared.known,
        );
        summary.canary = Some(state);
        result.passed = passed;
        result.tests = summary;
        tests.push(base);
        results.push(result);
    }
    Ok((tests, results))
}

/// The tests the task brings to the check `op` of `prepared`, told apart by `baseline`.
pub(crate) fn new_tests<'a>(
    prepared: &'a Prepared,
    baseline: Option<&'a Baseline>,
    op: &str,
) -> NewTests<'a> {
    NewTests {
        acceptance: &prepared.acceptance_files,
        withheld: prepared.withheld.as_ref().map_or(&[][..], |w| &w.files),
        without_withheld: baseline.and_then(|b| b.without_withheld(op)),
        declared: Some(&prepared.declared),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_differ_and_are_stable() {
        assert_eq!(fingerprint("make test"), fingerprint("make test"));
        assert_ne!(fingerprint("make test"), fingerprint("make tests"));
        assert_eq!(fingerprint("").len(), 16);
    }
}
