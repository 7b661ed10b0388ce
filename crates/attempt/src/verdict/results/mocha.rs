//! mocha: its default `spec` reporter.

use std::borrow::Cow;

use super::jest::jest_file;
use super::report::{
    MAX_TESTS, Sink, TestFramework, TestOutcome, indent, lookup, number, strip_duration,
};

/// The words of mocha's summary lines after `N passing (12ms)`, with the outcome each
/// counts.
const MOCHA_COUNTS: &[(&str, TestOutcome)] = &[
    ("failing", TestOutcome::Failed),
    ("passing", TestOutcome::Passed),
    ("pending", TestOutcome::Skipped),
];

/// The marks of a passing test in mocha's `spec` reporter: `✔` (U+2714) from mocha 9 on,
/// `✓` (U+2713) in mocha 8 and before, `√` where the terminal is Windows' console.
const MOCHA_PASS_MARKS: &[&str] = &["✔ ", "✓ ", "√ "];

/// mocha's titles for a failed hook, which it reports in place of a test.
const MOCHA_HOOKS: &[&str] = &[
    "\"after all\" hook",
    "\"after each\" hook",
    "\"before all\" hook",
    "\"before each\" hook",
];

/// Reads mocha's default `spec` reporter: suites and tests indented two spaces a level,
/// `✔ title` (or `✓ title`), `1) title` and `- title` (pending), then `N passing (12ms)`.
///
/// Nothing marks the start of mocha's tree, so its lines are held and kept only when the
/// `passing` line comes; after `N failing`, the numbered failure details are skipped.
pub(super) fn read_mocha(lines: &[Cow<'_, str>], sink: &mut Sink) {
    let mut suites: Vec<String> = Vec::new();
    let mut held: Vec<(String, TestOutcome)> = Vec::new();
    let mut in_summary = false;
    // The next failure detail's number, and the last one's.
    let mut details: Option<(usize, usize)> = None;
    for (at, line) in lines.iter().enumerate() {
        let line: &str = line;
        match mocha_count(line) {
            // `passing` opens the summary, so the tree held before it was mocha's.
            Some((TestOutcome::Passed, n)) => {
                sink.saw(TestFramework::Mocha, at);
                sink.count(TestOutcome::Passed, n);
                for (id, outcome) in held.drain(..) {
                    sink.test(id, outcome);
                }
                suites.clear();
                in_summary = true;
                continue;
            }
            Some((outcome, n)) if in_summary => {
                sink.count(outcome, n);
                if n > 0 && outcome == TestOutcome::Failed {
                    sink.claim(TestFramework::Mocha, at, line);
                    details = Some((1, n));
                }
                continue;
            }
            _ => in_summary = false,
        }
        if foreign(line) {
            held.clear();
            suites.clear();
            continue;
        }
        if line.starts_with(" Exception during run: ") {
            sink.saw(TestFramework::Mocha, at);
            sink.claim(TestFramework::Mocha, at, line);
            continue;
        }
        if let Some((next, last)) = details {
            if line
                .strip_prefix("  ")
                .and_then(|l| l.strip_prefix(&format!("{next})")))
                .is_some()
            {
                details = (next < last).then_some((next + 1, last));
            }
            continue;
        }
        read_tree_line(&mut suites, &mut held, line);
    }
}

/// Reads one line of mocha's tree into `held`: a test under the open `suites`, or a suite,
/// which replaces those at its level and deeper. At most [`MAX_TESTS`] tests are held.
fn read_tree_line(suites: &mut Vec<String>, held: &mut Vec<(String, TestOutcome)>, line: &str) {
    let spaces = indent(line);
    if spaces < 2 || !spaces.is_multiple_of(2) || held.len() >= MAX_TESTS {
        return;
    }
    let level = spaces / 2 - 1;
    let body = &line[spaces..];
    match mocha_test(body) {
        Some((title, outcome)) => {
            let mut id = String::new();
            for suite in suites.iter().take(level) {
                id.push_str(suite);
                id.push_str(" > ");
            }
            id.push_str(title);
            held.push((id, outcome));
        }
        None if !body.is_empty() => {
            suites.truncate(level);
            suites.resize(level, String::new());
            suites.push(body.to_owned());
        }
        None => {}
    }
}

/// The title and outcome of the test a tree line's `body` (past its indent) reports, if it
/// reports one: `✔ title (12ms)`, `- title` (pending) or `1) title` (failed; errored when
/// a hook failed).
fn mocha_test(body: &str) -> Option<(&str, TestOutcome)> {
    let pass = MOCHA_PASS_MARKS
        .iter()
        .find_map(|mark| body.strip_prefix(mark));
    if let Some(title) = pass {
        Some((strip_duration(title, "ms)", " ("), TestOutcome::Passed))
    } else if let Some(title) = body.strip_prefix("- ") {
        Some((title, TestOutcome::Skipped))
    } else if let Some((n, title)) = body.split_once(") ")
        && number(n).is_some()
    {
        let hook = MOCHA_HOOKS.iter().any(|h| title.starts_with(h));
        Some((
            title,
            if hook {
                TestOutcome::Errored
            } else {
                TestOutcome::Failed
            },
        ))
    } else {
        None
    }
}

/// Whether `line` is where another runner's output shaped like mocha's tree ends, so what
/// was held before it is not mocha's: jest's file head or summary (jest's tree is mocha's
/// before mocha 9, `✓` and all) and the summary of node's `spec` reporter (`ℹ tests 4`,
/// what `node --test` prints into a pipe on node 24, where node 22 printed TAP; `✔` and
/// all).
fn foreign(line: &str) -> bool {
    line.starts_with("Test Suites: ")
        || line.starts_with("ℹ tests ")
        || (indent(line) < 2 && jest_file(line).is_some())
}

/// The outcome and count of a mocha summary line: `  4 passing (68ms)`, `  2 pending` or
/// `  3 failing`.
fn mocha_count(line: &str) -> Option<(TestOutcome, usize)> {
    let rest = line.strip_prefix("  ")?;
    let (n, rest) = rest.split_once(' ')?;
    let n = number(n)?;
    let (word, duration) = rest.split_once(' ').unwrap_or((rest, ""));
    let outcome = lookup(MOCHA_COUNTS, word)?;
    // Only `passing` says how long the run took.
    let fits = match outcome {
        TestOutcome::Passed => duration.strip_prefix('(').is_some_and(|d| d.ends_with(')')),
        _ => duration.is_empty(),
    };
    fits.then_some((outcome, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::verdict::results::TestFramework::Mocha;
    use crate::verdict::results::TestOutcome::{Errored, Failed, Passed, Skipped};
    use crate::verdict::results::tests::{case, report};
    use crate::verdict::results::tests::{keys, sorted};

    #[test]
    fn mocha_reads_its_spec_tree() {
        // `mocha-spec-fail.txt` is read with every major version's output of its file, in
        // `mocha_reads_hooks_pending_and_nesting_in_every_major_version`.
        case(
            sample!("mocha-spec-pending.txt"),
            None,
            report(
                &[Mocha],
                &[
                    ("Todo list > when empty > counts zero", Passed),
                    ("Todo list > when empty > shows a hint", Skipped),
                    ("Todo list > will do later", Skipped),
                    ("Todo list > works", Passed),
                ],
                &[(Passed, 2), (Skipped, 2)],
                &[],
            ),
        );
        let import_error = sample!("mocha-import-error.txt");
        let claim = "Exception during run: Error: Cannot find module 'does-not-exist'";
        case(import_error, None, report(&[Mocha], &[], &[], &[claim]));
    }

    #[test]
    fn mocha_reads_every_major_version() {
        // mocha 6 and 8 mark a pass `✓` (U+2713), 10 and 11 `✔` (U+2714).
        for output in [
            sample!("mocha-6.2.3-spec-mixed.txt"),
            sample!("mocha-8.4.0-spec-mixed.txt"),
            sample!("mocha-10.8.2-spec-mixed.txt"),
            sample!("mocha-11.8.0-spec-mixed.txt"),
        ] {
            case(
                output,
                None,
                report(
                    &[Mocha],
                    &[
                        ("Calc > adds", Passed),
                        ("Calc > fails", Failed),
                        ("Calc > is skipped", Skipped),
                        ("Other > works", Passed),
                    ],
                    &[(Passed, 2), (Failed, 1), (Skipped, 1)],
                    &["1 failing"],
                ),
            );
        }
    }

    #[test]
    fn trees_of_other_runners_are_not_mochas() {
        // jest's verbose tree and node's `spec` tree have the shape of mocha's; before a
        // mocha run in the same output, they are not read as its tests.
        for before in [
            sample!("jest-27.5.1-one-file.txt"),
            sample!("node-24.22.3-test-spec-mixed.txt"),
        ] {
            let output = format!("{before}\n{}", sample!("mocha-6.2.3-spec-mixed.txt"));
            let tests: Vec<String> = crate::verdict::results::read(&output, None)
                .tests
                .into_keys()
                .filter(|id| !id.contains(".test.js"))
                .collect();
            assert_eq!(
                tests,
                [
                    "Calc > adds",
                    "Calc > fails",
                    "Calc > is skipped",
                    "Other > works"
                ]
            );
        }
    }

    #[test]
    fn mocha_reads_hooks_pending_and_nesting_in_every_major_version() {
        // One test file under mocha 12 (`mocha-spec-fail.txt`), 6, 8, 10 and 11.
        for output in [
            sample!("mocha-spec-fail.txt"),
            sample!("mocha-6.2.3-spec-hooks.txt"),
            sample!("mocha-8.4.0-spec-hooks.txt"),
            sample!("mocha-10.8.2-spec-hooks.txt"),
            sample!("mocha-11.8.0-spec-hooks.txt"),
        ] {
            case(
                output,
                None,
                report(
                    &[Mocha],
                    &[
                        ("Calc > adds", Passed),
                        ("Calc > fails", Failed),
                        ("Calc > is pending", Skipped),
                        ("Calc > is skipped", Skipped),
                        ("Calc > is slow", Passed),
                        ("Calc > nested > deep fails", Failed),
                        ("Calc > nested > deep ok", Passed),
                        ("Hooks > \"before each\" hook for \"never runs\"", Errored),
                        ("top level", Passed),
                    ],
                    &[(Passed, 4), (Failed, 3), (Skipped, 2)],
                    &["3 failing"],
                ),
            );
        }
    }

    #[test]
    fn tables_are_sorted() {
        sorted("MOCHA_COUNTS", keys(MOCHA_COUNTS));
        sorted("MOCHA_HOOKS", MOCHA_HOOKS.to_vec());
    }
}
