//! jest: its default reporter's file heads, verbose tree, failure heads and summary.

use std::borrow::Cow;

use super::report::{Sink, TestFramework, TestOutcome, indent, strip_duration, word_counts};

/// The words of jest's `Tests:` line, with the outcome each counts.
const JEST_COUNTS: &[(&str, Option<TestOutcome>)] = &[
    ("failed", Some(TestOutcome::Failed)),
    ("passed", Some(TestOutcome::Passed)),
    ("pending", Some(TestOutcome::Skipped)),
    ("skipped", Some(TestOutcome::Skipped)),
    ("todo", Some(TestOutcome::Skipped)),
    ("total", None),
];

/// The marks of jest's verbose tree, with the outcome each reports.
const JEST_MARKS: &[(&str, TestOutcome)] = &[
    ("○ skipped ", TestOutcome::Skipped),
    ("✎ todo ", TestOutcome::Skipped),
    ("✓ ", TestOutcome::Passed),
    ("✕ ", TestOutcome::Failed),
];

/// Reads jest's default reporter: `PASS file` and `FAIL file` heads, the verbose tree jest
/// prints under them when it runs one file, the `● Suite › test` head of each failure, and
/// the `Tests:` summary.
pub(super) fn read_jest(lines: &[Cow<'_, str>], sink: &mut Sink) {
    let mut file: Option<String> = None;
    let mut in_tree = false;
    let mut suites: Vec<String> = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        let line: &str = line;
        if let Some(path) = jest_file(line) {
            sink.saw(TestFramework::Jest, at);
            sink.file(path, None);
            file = Some(path.to_owned());
            in_tree = true;
            suites.clear();
            continue;
        }
        if let Some(counts) = line.strip_prefix("Tests:") {
            if read_tests_counts(counts, at, line, sink) {
                file = None;
            }
            continue;
        }
        if let Some(counts) = line.strip_prefix("Test Suites:") {
            read_suites_counts(counts, at, line, sink);
            continue;
        }
        let Some(file) = &file else {
            continue;
        };
        if let Some(title) = line.strip_prefix("  ● ") {
            in_tree = false;
            read_failure_head(file, title, sink);
            continue;
        }
        if !in_tree {
            continue;
        }
        if line.is_empty() {
            in_tree = false;
            continue;
        }
        read_tree_line(file, &mut suites, line, sink);
    }
}

/// Reads the counts after `Tests:` on line `at` (`line`); a failure among them is a claim
/// that the run failed. Returns whether they were counts.
fn read_tests_counts(counts: &str, at: usize, line: &str, sink: &mut Sink) -> bool {
    let Some(counts) = word_counts(counts.trim(), ", ", JEST_COUNTS) else {
        return false;
    };
    sink.saw(TestFramework::Jest, at);
    let mut failed = false;
    for (_, outcome, n) in counts {
        if let Some(outcome) = outcome {
            sink.count(outcome, n);
            failed |= n > 0 && outcome == TestOutcome::Failed;
        }
    }
    if failed {
        sink.claim(TestFramework::Jest, at, line);
    }
    true
}

/// Reads the counts after `Test Suites:` on line `at` (`line`): a failed suite is a claim
/// that the run failed.
fn read_suites_counts(counts: &str, at: usize, line: &str, sink: &mut Sink) {
    if let Some(counts) = word_counts(counts.trim(), ", ", JEST_COUNTS) {
        sink.saw(TestFramework::Jest, at);
        if counts
            .iter()
            .any(|(word, _, n)| *word == "failed" && *n > 0)
        {
            sink.claim(TestFramework::Jest, at, line);
        }
    }
}

/// Reads the `● Suite › test` head of a failure in `file` (`title` after the mark): a
/// failed test, or the file errored when its suite failed to run.
fn read_failure_head(file: &str, title: &str, sink: &mut Sink) {
    match title {
        "Console" => {}
        "Test suite failed to run" => sink.test(file.to_owned(), TestOutcome::Errored),
        _ => sink.test(
            format!("{file} > {}", title.replace(" › ", " > ")),
            TestOutcome::Failed,
        ),
    }
}

/// Reads one line of the verbose tree of `file`: a test under the open `suites`, or a
/// suite, which replaces those at its level and deeper.
fn read_tree_line(file: &str, suites: &mut Vec<String>, line: &str, sink: &mut Sink) {
    let spaces = indent(line);
    if spaces < 2 || !spaces.is_multiple_of(2) {
        return;
    }
    let level = spaces / 2 - 1;
    let body = &line[spaces..];
    let mark = JEST_MARKS
        .iter()
        .find_map(|(mark, outcome)| Some((body.strip_prefix(mark)?, *outcome)));
    match mark {
        Some((title, outcome)) => {
            let title = strip_duration(title, " ms)", " (");
            let mut id = file.to_owned();
            for suite in suites.iter().take(level) {
                id.push_str(" > ");
                id.push_str(suite);
            }
            id.push_str(" > ");
            id.push_str(title);
            sink.test(id, outcome);
        }
        None => {
            suites.truncate(level);
            suites.resize(level, String::new());
            suites.push(body.to_owned());
        }
    }
}

/// The file of a jest head such as `PASS tests/a.test.js` or `FAIL b.test.ts (5.2 s)`.
pub(super) fn jest_file(line: &str) -> Option<&str> {
    let line = line.trim_start();
    let rest = line
        .strip_prefix("PASS ")
        .or_else(|| line.strip_prefix("FAIL "))?;
    let rest = rest.trim_start();
    let (path, after) = rest.split_once(' ').unwrap_or((rest, ""));
    let after = after.trim();
    let timed = after.is_empty() || strip_duration(after, " s)", "(").is_empty();
    (path.contains('.') && timed).then_some(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::verdict::results::TestFramework::Jest;
    use crate::verdict::results::TestOutcome::{Errored, Failed, Passed, Skipped};
    use crate::verdict::results::tests::{case, report};
    use crate::verdict::results::tests::{keys, sorted};

    /// What jest reports for the one-file project of the samples (`tests/calc.test.js`), in
    /// its tree, whatever its version.
    fn calc_tree() -> super::super::TestReport {
        report(
            &[Jest],
            &[
                ("tests/calc.test.js > Calc > adds", Passed),
                ("tests/calc.test.js > Calc > fails", Failed),
                ("tests/calc.test.js > Calc > is skipped", Skipped),
                ("tests/calc.test.js > Calc > is todo", Skipped),
                ("tests/calc.test.js > Calc > nested > deep ok", Passed),
                ("tests/calc.test.js > top level", Passed),
            ],
            &[(Passed, 3), (Failed, 1), (Skipped, 2)],
            &[
                "Test Suites: 1 failed, 1 total",
                "Tests:       1 failed, 1 skipped, 1 todo, 3 passed, 6 total",
            ],
        )
    }

    #[test]
    fn jest_reads_its_tree_failures_and_summary() {
        // `jest-verbose-fail.txt` and `jest-summary-fail.txt` are read with every major
        // version's output of their files, in
        // `jest_reads_todo_and_import_errors_in_every_major_version`.
        case(
            sample!("jest-summary-skip.txt"),
            None,
            report(&[Jest], &[], &[(Passed, 2), (Skipped, 1)], &[]),
        );
        // Console output before the tree is not a test, whatever it says.
        case(
            sample!("jest-verbose-console.txt"),
            None,
            report(
                &[Jest],
                &[
                    ("con/c.test.js > Logger > logs", Passed),
                    ("con/c.test.js > Logger > slow", Passed),
                ],
                &[(Passed, 2)],
                &[],
            ),
        );
    }

    #[test]
    fn jest_reads_every_major_version() {
        // One file: the verbose tree names every test.
        for output in [
            sample!("jest-27.5.1-one-file.txt"),
            sample!("jest-29.7.0-one-file.txt"),
            sample!("jest-30.5.2-one-file.txt"),
        ] {
            case(
                output,
                None,
                report(
                    &[Jest],
                    &[
                        ("tests/calc.test.js > Calc > adds", Passed),
                        ("tests/calc.test.js > Calc > fails", Failed),
                        ("tests/calc.test.js > Calc > is skipped", Skipped),
                    ],
                    &[(Passed, 1), (Failed, 1), (Skipped, 1)],
                    &[
                        "Test Suites: 1 failed, 1 total",
                        "Tests:       1 failed, 1 skipped, 1 passed, 3 total",
                    ],
                ),
            );
        }
        // Two files: only the failure is named, the rest counted.
        for output in [
            sample!("jest-27.5.1-two-files.txt"),
            sample!("jest-29.7.0-two-files.txt"),
            sample!("jest-30.5.2-two-files.txt"),
        ] {
            case(
                output,
                None,
                report(
                    &[Jest],
                    &[("tests/calc.test.js > Calc > fails", Failed)],
                    &[(Passed, 2), (Failed, 1), (Skipped, 1)],
                    &[
                        "Test Suites: 1 failed, 1 passed, 2 total",
                        "Tests:       1 failed, 1 skipped, 2 passed, 4 total",
                    ],
                ),
            );
        }
    }

    #[test]
    fn jest_reads_todo_and_import_errors_in_every_major_version() {
        // The same test files under the jest of `jest-verbose-fail.txt` and
        // `jest-summary-fail.txt`, and under jest 27, 29 and 30.
        for (one_file, three_files) in [
            (
                sample!("jest-verbose-fail.txt"),
                sample!("jest-summary-fail.txt"),
            ),
            (
                sample!("jest-27.5.1-one-file-todo.txt"),
                sample!("jest-27.5.1-three-files-import-error.txt"),
            ),
            (
                sample!("jest-29.7.0-one-file-todo.txt"),
                sample!("jest-29.7.0-three-files-import-error.txt"),
            ),
            (
                sample!("jest-30.5.2-one-file-todo.txt"),
                sample!("jest-30.5.2-three-files-import-error.txt"),
            ),
        ] {
            case(one_file, None, calc_tree());
            case(
                three_files,
                None,
                report(
                    &[Jest],
                    &[
                        ("broken/broken.test.js", Errored),
                        ("tests/calc.test.js > Calc > fails", Failed),
                    ],
                    &[(Passed, 4), (Failed, 1), (Skipped, 2)],
                    &[
                        "Test Suites: 2 failed, 1 passed, 3 total",
                        "Tests:       1 failed, 1 skipped, 1 todo, 4 passed, 7 total",
                    ],
                ),
            );
        }
    }

    #[test]
    fn tables_are_sorted() {
        sorted("JEST_COUNTS", keys(JEST_COUNTS));
        sorted("JEST_MARKS", keys(JEST_MARKS));
    }
}
