//! vitest: its default reporter's file lines, failure heads and summary.

use std::borrow::Cow;

use super::{Sink, TestOutcome, TestRunner, number, word_counts};

/// The words of vitest's `Tests` and `Test Files` lines, with the outcome each counts.
const VITEST_COUNTS: &[(&str, Option<TestOutcome>)] = &[
    ("expected fail", Some(TestOutcome::Xfailed)),
    ("failed", Some(TestOutcome::Failed)),
    ("passed", Some(TestOutcome::Passed)),
    ("skipped", Some(TestOutcome::Skipped)),
    ("todo", Some(TestOutcome::Skipped)),
];

/// The marks of vitest's test lines, with the outcome each reports.
const VITEST_MARKS: &[(char, TestOutcome)] = &[
    ('×', TestOutcome::Failed),
    ('↓', TestOutcome::Skipped),
    ('□', TestOutcome::Skipped),
    ('✓', TestOutcome::Passed),
];

/// Which part of vitest's failure report a line is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum VitestSection {
    /// Before the failures, or in a part that names no tests.
    Other,
    /// `Failed Suites`: files and suites that failed as a whole.
    Suites,
    /// `Failed Tests`.
    Tests,
}

/// Reads vitest's default reporter after its ` RUN  v…` line: a line per file, the tests
/// of a failed file, the `FAIL  file > suite > test` head of each failure, and the `Tests`
/// summary.
///
/// vitest lists a failed file's tests indented by depth but without their suites' names,
/// so only the file's top-level tests can be named from that list; a test inside a suite
/// is named only when it failed.
pub(super) fn read_vitest(lines: &[Cow<'_, str>], sink: &mut Sink) {
    let mut active = false;
    let mut file: Option<String> = None;
    let mut section = VitestSection::Other;
    for (at, line) in lines.iter().enumerate() {
        let line: &str = line;
        let text = line.trim_start();
        if text.starts_with("RUN  v") {
            active = true;
            file = None;
            section = VitestSection::Other;
            sink.saw(TestRunner::Vitest, at);
            continue;
        }
        if !active {
            continue;
        }
        if let Some(path) = vitest_file(line) {
            file = Some(path.to_owned());
            continue;
        }
        if let (Some(file), Some(rest)) = (&file, line.strip_prefix("   ")) {
            let mut chars = rest.chars();
            let mark = chars
                .next()
                .and_then(|c| VITEST_MARKS.iter().find(|(m, _)| *m == c));
            if let (Some((_, outcome)), Some(name)) = (mark, chars.as_str().strip_prefix(' ')) {
                sink.test(format!("{file} > {}", vitest_name(name)), *outcome);
                continue;
            }
        }
        if text.starts_with('⎯') {
            file = None;
            let title = text.trim_matches(|c| c == '⎯' || c == ' ');
            if title.starts_with("Failed Suites") {
                section = VitestSection::Suites;
            } else if title.starts_with("Failed Tests") {
                section = VitestSection::Tests;
            } else if title.starts_with("Unhandled Error") {
                section = VitestSection::Other;
                sink.claim(TestRunner::Vitest, at, title);
            }
            continue;
        }
        if let Some(rest) = text.strip_prefix("FAIL  ") {
            let id = match rest.rsplit_once(" [ ") {
                Some((id, _)) if rest.ends_with(" ]") => id,
                _ => rest,
            };
            match section {
                VitestSection::Suites => sink.test(id.to_owned(), TestOutcome::Errored),
                VitestSection::Tests => sink.test(id.to_owned(), TestOutcome::Failed),
                VitestSection::Other => {}
            }
            continue;
        }
        let (counted, summary) = if let Some(rest) = text.strip_prefix("Tests  ") {
            (true, rest)
        } else if let Some(rest) = text.strip_prefix("Test Files  ") {
            (false, rest)
        } else {
            if text.starts_with("Errors  ") {
                sink.claim(TestRunner::Vitest, at, text);
            }
            continue;
        };
        let summary = match summary.rsplit_once(" (") {
            Some((counts, total)) if total.strip_suffix(')').and_then(number).is_some() => counts,
            _ => summary,
        };
        let Some(counts) = word_counts(summary, " | ", VITEST_COUNTS) else {
            continue;
        };
        let mut failed = false;
        for (_, outcome, n) in counts {
            failed |= n > 0 && outcome == Some(TestOutcome::Failed);
            if let (true, Some(outcome)) = (counted, outcome) {
                sink.count(outcome, n);
            }
        }
        if failed {
            sink.claim(TestRunner::Vitest, at, text);
        }
    }
}

/// The file of a vitest file line such as ` ❯ test/a.test.js (7 tests | 1 failed) 8ms`.
fn vitest_file(line: &str) -> Option<&str> {
    let rest = line.strip_prefix(' ')?;
    let mut chars = rest.chars();
    let mark = chars.next()?;
    if !matches!(mark, '✓' | '❯' | '×' | '↓') {
        return None;
    }
    let (path, counts) = chars.as_str().strip_prefix(' ')?.split_once(" (")?;
    let (n, _) = counts.split_once(" test")?;
    number(n).map(|_| path)
}

/// A vitest test's name without the duration, retry, heap and skip-note suffixes vitest
/// adds after it.
fn vitest_name(text: &str) -> &str {
    let mut name = text.trim_end();
    loop {
        let before = name;
        if let Some((head, last)) = name.rsplit_once(' ') {
            let ms = last.strip_suffix("ms").is_some_and(|d| number(d).is_some());
            let counted =
                last.ends_with(')') && (head.ends_with("(retry") || head.ends_with("(repeat"));
            if ms {
                name = head.trim_end();
            } else if counted {
                name = head.rsplit_once(" (").map_or(head, |(h, _)| h).trim_end();
            } else if last == "used" && head.ends_with(" MB heap") {
                name = head.trim_end_matches(" MB heap");
                name = name.rsplit_once(' ').map_or(name, |(h, _)| h).trim_end();
            }
        }
        if name.ends_with(']')
            && let Some((head, _)) = name.rsplit_once(" [")
        {
            name = head.trim_end();
        }
        if name == before {
            return name;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::attempt::results::TestOutcome::{Errored, Failed, Passed, Skipped, Xfailed};
    use crate::attempt::results::TestRunner::Vitest;
    use crate::attempt::results::tests::{case, report};
    use crate::attempt::results::tests::{keys, sorted};

    #[test]
    fn vitest_reads_failed_files_and_summary() {
        let expected = report(
            &[Vitest],
            &[
                ("broken/broken.test.js", Errored),
                ("test/calc.test.js > Calc > fails", Failed),
                ("test/calc.test.js > top level", Passed),
            ],
            &[(Passed, 4), (Failed, 1), (Skipped, 3), (Xfailed, 1)],
            &[
                "Test Files  2 failed | 1 passed (3)",
                "Tests  1 failed | 4 passed | 1 expected fail | 2 skipped | 1 todo (9)",
            ],
        );
        case(sample!("vitest-summary-fail.txt"), None, expected.clone());
        case(sample!("vitest-nocolor-fail.txt"), None, expected);
        case(
            sample!("vitest-summary.txt"),
            None,
            report(&[Vitest], &[], &[(Passed, 1), (Skipped, 1)], &[]),
        );
        assert_eq!(vitest_name("slow one  1203ms (retry x2) [why]"), "slow one");
    }

    #[test]
    fn tables_are_sorted() {
        sorted("VITEST_COUNTS", keys(VITEST_COUNTS));
        let marks: Vec<String> = VITEST_MARKS.iter().map(|(c, _)| c.to_string()).collect();
        sorted("VITEST_MARKS", marks.iter().map(String::as_str).collect());
    }
}
