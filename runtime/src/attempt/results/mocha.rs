//! mocha: its default `spec` reporter.

use std::borrow::Cow;

use super::{MAX_TESTS, Sink, TestOutcome, TestRunner, indent, lookup, number, strip_duration};

/// The words of mocha's summary lines after `N passing (12ms)`, with the outcome each
/// counts.
const MOCHA_COUNTS: &[(&str, TestOutcome)] = &[
    ("failing", TestOutcome::Failed),
    ("passing", TestOutcome::Passed),
    ("pending", TestOutcome::Skipped),
];

/// mocha's titles for a failed hook, which it reports in place of a test.
const MOCHA_HOOKS: &[&str] = &[
    "\"after all\" hook",
    "\"after each\" hook",
    "\"before all\" hook",
    "\"before each\" hook",
];

/// Reads mocha's default `spec` reporter: suites and tests indented two spaces a level,
/// `✔ title`, `1) title` and `- title` (pending), then `N passing (12ms)`.
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
                sink.saw(TestRunner::Mocha, at);
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
                    sink.claim(TestRunner::Mocha, at, line);
                    details = Some((1, n));
                }
                continue;
            }
            _ => in_summary = false,
        }
        if line.starts_with(" Exception during run: ") {
            sink.saw(TestRunner::Mocha, at);
            sink.claim(TestRunner::Mocha, at, line);
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
        let spaces = indent(line);
        if spaces < 2 || !spaces.is_multiple_of(2) || held.len() >= MAX_TESTS {
            continue;
        }
        let level = spaces / 2 - 1;
        let body = &line[spaces..];
        let test = if let Some(title) = body.strip_prefix("✔ ").or_else(|| body.strip_prefix("√ "))
        {
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
        };
        match test {
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

    use crate::attempt::results::TestOutcome::{Errored, Failed, Passed, Skipped};
    use crate::attempt::results::TestRunner::Mocha;
    use crate::attempt::results::tests::{case, report};
    use crate::attempt::results::tests::{keys, sorted};

    #[test]
    fn mocha_reads_its_spec_tree() {
        case(
            sample!("mocha-spec-fail.txt"),
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
    fn tables_are_sorted() {
        sorted("MOCHA_COUNTS", keys(MOCHA_COUNTS));
        sorted("MOCHA_HOOKS", MOCHA_HOOKS.to_vec());
    }
}
