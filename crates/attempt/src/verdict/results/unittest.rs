//! Python's `unittest`: its verbose lines, its failure block heads, and its `Ran N tests`
//! summary.

use std::borrow::Cow;

use super::report::{Sink, TestFramework, TestOutcome, lookup, number};

/// unittest's verbose results (`test_x (mod.Class.test_x) ... ok`), with the outcome each
/// reports; `skipped 'why'` is read apart.
const UNITTEST_RESULTS: &[(&str, TestOutcome)] = &[
    ("ERROR", TestOutcome::Errored),
    ("FAIL", TestOutcome::Failed),
    ("expected failure", TestOutcome::Xfailed),
    ("ok", TestOutcome::Passed),
    ("unexpected success", TestOutcome::Xpassed),
];

/// The heads of unittest's failure blocks (`FAIL: test_x (mod.Class.test_x)`), printed
/// with or without `-v`, with the outcome each reports.
const UNITTEST_BLOCKS: &[(&str, TestOutcome)] = &[
    ("ERROR", TestOutcome::Errored),
    ("FAIL", TestOutcome::Failed),
    ("UNEXPECTED SUCCESS", TestOutcome::Xpassed),
];

/// The keys of unittest's closing line (`FAILED (failures=2, errors=1)`), with the
/// outcome each counts.
const UNITTEST_COUNTS: &[(&str, TestOutcome)] = &[
    ("errors", TestOutcome::Errored),
    ("expected failures", TestOutcome::Xfailed),
    ("failures", TestOutcome::Failed),
    ("skipped", TestOutcome::Skipped),
    ("unexpected successes", TestOutcome::Xpassed),
];

/// Reads unittest's verbose lines, its failure block heads, and its `Ran N tests` summary.
///
/// A verbose line may be split: a test's docstring sits between its name and its result,
/// what the test printed comes before its result, Python 3.10 starts the next test on the
/// same line when a subtest failed, and 3.11+ reports a failed subtest on its own indented
/// line. So a test's name is held until a result comes, and a subtest's result is its
/// parent's.
pub(super) fn read_unittest(lines: &[Cow<'_, str>], sink: &mut Sink) {
    let mut pending: Option<String> = None;
    let mut ran: Option<usize> = None;
    let mut after_rule = false;
    for (at, line) in lines.iter().enumerate() {
        let line: &str = line;
        if ran.is_some() && line.is_empty() {
            continue;
        }
        if unittest_status(line, ran.take(), at, sink) {
            continue;
        }
        if let Some(total) = unittest_ran(line) {
            sink.saw(TestFramework::Unittest, at);
            ran = Some(total);
            pending = None;
            continue;
        }
        let block = std::mem::replace(
            &mut after_rule,
            line.len() == 70 && line.bytes().all(|b| b == b'='),
        );
        if block
            && let Some((head, rest)) = line.split_once(": ")
            && let (Some(outcome), Some(id)) = (lookup(UNITTEST_BLOCKS, head), unittest_test(rest))
        {
            sink.saw(TestFramework::Unittest, at);
            sink.test(id, outcome);
            pending = None;
            continue;
        }
        let parts: Vec<&str> = line.split(" ... ").collect();
        let last = parts.len() - 1;
        for (i, part) in parts.iter().enumerate() {
            let part = if i == 0 { part.trim_start() } else { part };
            if i < last {
                if let Some(id) = unittest_test(part) {
                    pending = Some(id);
                }
                continue;
            }
            if let Some(outcome) = pending.as_ref().and_then(|_| unittest_result(part)) {
                if let Some(id) = pending.take() {
                    sink.saw(TestFramework::Unittest, at);
                    sink.test(id, outcome);
                }
            } else if last == 0
                && let Some(id) = unittest_test(part)
            {
                pending = Some(id);
            }
        }
    }
}

/// The outcome a verbose result reports.
fn unittest_result(text: &str) -> Option<TestOutcome> {
    if let Some(reason) = text.strip_prefix("skipped ") {
        // The reason is printed with `repr`, so it is quoted.
        return (reason.starts_with('\'') || reason.starts_with('"'))
            .then_some(TestOutcome::Skipped);
    }
    lookup(UNITTEST_RESULTS, text)
}

/// The id of a test as unittest describes it: `test_x (mod.Class.test_x)` from Python 3.11
/// on, `test_x (mod.Class)` before, either followed by a subtest's ` [msg]` or
/// ` (params)`. A module that failed to import is `mod (unittest.loader._FailedTest…)`.
fn unittest_test(text: &str) -> Option<String> {
    let (name, rest) = text.split_once(" (")?;
    let (dotted, subtest) = rest.split_once(')')?;
    let word = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
    };
    if !word(name) || !word(dotted) || !dotted.contains('.') {
        return None;
    }
    let subtest_shaped = subtest.is_empty()
        || (subtest.starts_with(" (") && subtest.ends_with(')'))
        || (subtest.starts_with(" [") && (subtest.ends_with(']') || subtest.ends_with(')')));
    if !subtest_shaped {
        return None;
    }
    Some(if dotted.starts_with("unittest.loader.") {
        name.to_owned()
    } else if dotted.strip_suffix(name).is_some_and(|d| d.ends_with('.')) {
        dotted.to_owned()
    } else {
        format!("{dotted}.{name}")
    })
}

/// The total of `Ran 3 tests in 0.001s`.
fn unittest_ran(line: &str) -> Option<usize> {
    let rest = line.strip_prefix("Ran ")?;
    let (n, rest) = rest.split_once(' ')?;
    let time = rest
        .strip_prefix("tests in ")
        .or_else(|| rest.strip_prefix("test in "))?;
    let seconds = time.strip_suffix('s')?;
    (!seconds.is_empty() && seconds.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
        .then_some(())?;
    number(n)
}

/// Reads unittest's status line: `OK`, `OK (skipped=1)`, `FAILED (failures=2, errors=1)`
/// or `NO TESTS RAN`, with the `Ran N tests` total before it when there was one; whether
/// the line was one. Tests in none of its counts passed. Without a total, only the shapes
/// with counts are unittest's: a bare `OK` or `FAILED` could be anyone's.
fn unittest_status(line: &str, total: Option<usize>, at: usize, sink: &mut Sink) -> bool {
    if line == "NO TESTS RAN" && total.is_some() {
        sink.saw(TestFramework::Unittest, at);
        sink.claim(TestFramework::Unittest, at, line);
        return true;
    }
    let (word, details) = match line.split_once(' ') {
        Some((word, details)) => (
            word,
            details.strip_prefix('(').and_then(|d| d.strip_suffix(')')),
        ),
        None if total.is_some() => (line, Some("")),
        None => return false,
    };
    let (Some(details), "OK" | "FAILED") = (details, word) else {
        return false;
    };
    let mut counted = Vec::new();
    for part in details.split(", ").filter(|p| !p.is_empty()) {
        let Some((key, n)) = part.split_once('=') else {
            return false;
        };
        let (Some(outcome), Some(n)) = (lookup(UNITTEST_COUNTS, key), number(n)) else {
            return false;
        };
        counted.push((outcome, n));
    }
    sink.saw(TestFramework::Unittest, at);
    if let Some(total) = total {
        let others: usize = counted.iter().map(|(_, n)| n).sum();
        sink.count(TestOutcome::Passed, total.saturating_sub(others));
    }
    for (outcome, n) in counted {
        sink.count(outcome, n);
    }
    if word == "FAILED" {
        sink.claim(TestFramework::Unittest, at, line);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::verdict::results::TestFramework::Unittest;
    use crate::verdict::results::TestOutcome::{
        Errored, Failed, Passed, Skipped, Xfailed, Xpassed,
    };
    use crate::verdict::results::TestReport;
    use crate::verdict::results::tests::{case, report};
    use crate::verdict::results::tests::{keys, sorted};

    #[test]
    fn unittest_reads_its_plain_summary() {
        case(
            sample!("unittest-plain-fail.txt"),
            None,
            report(
                &[Unittest],
                &[
                    ("tests.test_broken", Errored),
                    ("tests.test_calc.CalcTest.test_error", Errored),
                    ("tests.test_calc.CalcTest.test_fail", Failed),
                    ("tests.test_calc.CalcTest.test_sub", Failed),
                    ("tests.test_calc.CalcTest.test_xpass", Xpassed),
                ],
                &[
                    (Passed, 3),
                    (Failed, 2),
                    (Skipped, 2),
                    (Xfailed, 1),
                    (Xpassed, 1),
                    (Errored, 2),
                ],
                &[
                    "FAILED (failures=2, errors=2, skipped=2, expected failures=1, unexpected successes=1)",
                ],
            ),
        );
        case(
            sample!("unittest-plain-ok.txt"),
            None,
            report(&[Unittest], &[], &[(Passed, 1), (Skipped, 1)], &[]),
        );
    }

    /// The tests of the `unittest-verbose-*` samples, whose ids every Python names alike.
    fn unittest_verbose_tests() -> Vec<(&'static str, TestOutcome)> {
        vec![
            ("tests.test_broken", Errored),
            ("tests.test_calc.CalcTest.test_add", Passed),
            ("tests.test_calc.CalcTest.test_error", Errored),
            ("tests.test_calc.CalcTest.test_fail", Failed),
            ("tests.test_calc.CalcTest.test_skip", Skipped),
            ("tests.test_calc.CalcTest.test_sub", Failed),
            ("tests.test_calc.CalcTest.test_xfail", Xfailed),
            ("tests.test_calc.CalcTest.test_xpass", Xpassed),
            ("tests.test_calc.OtherTest.test_ok", Passed),
            ("tests.test_ok.OkTest.test_one", Passed),
            ("tests.test_ok.OkTest.test_two", Skipped),
        ]
    }

    #[test]
    fn unittest_reads_verbose_lines_in_both_forms() {
        let counts = [
            (Passed, 3),
            (Failed, 2),
            (Skipped, 2),
            (Xfailed, 1),
            (Xpassed, 1),
            (Errored, 2),
        ];
        let claim =
            "FAILED (failures=2, errors=2, skipped=2, expected failures=1, unexpected successes=1)";
        let expected = report(&[Unittest], &unittest_verbose_tests(), &counts, &[claim]);
        case(sample!("unittest-verbose-fail.txt"), None, expected.clone());
        case(sample!("unittest-verbose-py310.txt"), None, expected);
        let subtests = [
            ("test_more.More.test_prints", Passed),
            ("test_more.More.test_sub_msg", Failed),
            ("test_more.More.test_subs_pass", Passed),
        ];
        let expected = report(
            &[Unittest],
            &subtests,
            &[(Passed, 2), (Failed, 1)],
            &["FAILED (failures=1)"],
        );
        case(
            sample!("unittest-verbose-subtests-py312.txt"),
            None,
            expected.clone(),
        );
        case(
            sample!("unittest-verbose-subtests-py310.txt"),
            None,
            expected,
        );
    }

    #[test]
    fn a_failed_summary_alone_is_a_failure_claim() {
        case(
            "Ran 3 tests in 0.010s\n\nFAILED (failures=2)\n",
            None,
            report(
                &[Unittest],
                &[],
                &[(Passed, 1), (Failed, 2)],
                &["FAILED (failures=2)"],
            ),
        );
        case(
            "FAILED (failures=2)\n",
            None,
            report(&[Unittest], &[], &[(Failed, 2)], &["FAILED (failures=2)"]),
        );
        // A bare `FAILED` could be anyone's.
        case("FAILED\n", None, TestReport::default());
    }

    #[test]
    fn tables_are_sorted() {
        sorted("UNITTEST_RESULTS", keys(UNITTEST_RESULTS));
        sorted("UNITTEST_BLOCKS", keys(UNITTEST_BLOCKS));
        sorted("UNITTEST_COUNTS", keys(UNITTEST_COUNTS));
    }
}
