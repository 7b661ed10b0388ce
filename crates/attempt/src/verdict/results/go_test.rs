//! `go test`: its `--- PASS: TestX (0.00s)` lines and the line that closes each package.

use std::borrow::Cow;

use super::report::{MAX_TESTS, Sink, TestFramework, TestOutcome, lookup};

/// The results of `go test`'s `--- PASS: TestX (0.00s)` lines, with the outcome each
/// reports.
const GO_RESULTS: &[(&str, TestOutcome)] = &[
    ("FAIL", TestOutcome::Failed),
    ("PASS", TestOutcome::Passed),
    ("SKIP", TestOutcome::Skipped),
];

/// Reads `go test`'s `--- PASS: TestX (0.00s)` lines (every test with `-v`, failures
/// without), indented four spaces a subtest level, and the `ok  \tpkg` or `FAIL\tpkg`
/// line that closes each package.
///
/// The package line comes after its tests, so they are held until it comes.
pub(super) fn read_go_test(lines: &[Cow<'_, str>], sink: &mut Sink) {
    let mut held: Vec<(String, TestOutcome)> = Vec::new();
    // Tests `-v` announced (`=== RUN   TestX`) and not yet ended: one that never ends
    // stopped the binary (a panic, an exit), and counts as errored.
    let mut running: Vec<String> = Vec::new();
    let unfinished = |running: &mut Vec<String>, held: &mut Vec<(String, TestOutcome)>| {
        for name in running.drain(..) {
            if held.len() < MAX_TESTS {
                held.push((name, TestOutcome::Errored));
            }
        }
    };
    for (at, line) in lines.iter().enumerate() {
        let line: &str = line;
        if let Some(name) = line.strip_prefix("=== RUN").map(str::trim)
            && !name.is_empty()
            && !name.contains(' ')
        {
            if running.len() < MAX_TESTS && !running.iter().any(|r| r == name) {
                running.push(name.to_owned());
            }
            continue;
        }
        let package = if let Some(rest) = line.strip_prefix("ok  \t") {
            Some(rest)
        } else if let Some(rest) = line.strip_prefix("FAIL\t") {
            sink.claim(TestFramework::GoTest, at, line);
            Some(rest)
        } else {
            None
        };
        if let Some(rest) = package {
            let package = rest.split(['\t', ' ']).next().unwrap_or(rest);
            sink.saw(TestFramework::GoTest, at);
            unfinished(&mut running, &mut held);
            for (name, outcome) in held.drain(..) {
                sink.test(format!("{package}/{name}"), outcome);
            }
            continue;
        }
        let Some(rest) = line.trim_start_matches(' ').strip_prefix("--- ") else {
            continue;
        };
        let Some((word, rest)) = rest.split_once(": ") else {
            continue;
        };
        let (Some(outcome), Some((name, time))) = (lookup(GO_RESULTS, word), rest.split_once(' '))
        else {
            continue;
        };
        let timed = time
            .strip_prefix('(')
            .and_then(|t| t.strip_suffix("s)"))
            .is_some_and(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit() || b == b'.'));
        if !timed || name.is_empty() {
            continue;
        }
        sink.saw(TestFramework::GoTest, at);
        if outcome == TestOutcome::Failed {
            sink.claim(TestFramework::GoTest, at, line);
        }
        running.retain(|r| r != name);
        if held.len() < MAX_TESTS {
            held.push((name.to_owned(), outcome));
        }
    }
    unfinished(&mut running, &mut held);
    for (name, outcome) in held {
        sink.test(name, outcome);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::verdict::results::TestFramework::GoTest;
    use crate::verdict::results::TestOutcome::{Failed, Passed, Skipped};
    use crate::verdict::results::read;
    use crate::verdict::results::tests::{case, report};
    use crate::verdict::results::tests::{keys, sorted};

    #[test]
    fn go_test_reads_its_documented_formats() {
        case(
            sample!("go-test-v-fail-documented.txt"),
            None,
            report(
                &[GoTest],
                &[
                    ("example.com/calc/TestAdd", Passed),
                    ("example.com/calc/TestFail", Failed),
                    ("example.com/calc/TestSkip", Skipped),
                    ("example.com/calc/TestSub", Failed),
                    ("example.com/calc/TestSub/one", Passed),
                    ("example.com/calc/TestSub/two", Failed),
                ],
                &[],
                &[
                    "--- FAIL: TestFail (0.00s)",
                    "--- FAIL: TestSub (0.00s)",
                    "--- FAIL: TestSub/two (0.00s)",
                    "FAIL\texample.com/calc\t0.002s",
                ],
            ),
        );
        case(
            sample!("go-test-documented.txt"),
            None,
            report(
                &[GoTest],
                &[("example.com/calc/TestFail", Failed)],
                &[],
                &[
                    "--- FAIL: TestFail (0.00s)",
                    "FAIL\texample.com/calc\t0.002s",
                    "FAIL\texample.com/calc/broken [build failed]",
                ],
            ),
        );
        case(
            "--- PASS: TestAlone (0.01s)\n",
            None,
            report(&[GoTest], &[("TestAlone", Passed)], &[], &[]),
        );
    }

    #[test]
    fn a_go_test_that_never_ends_errored() {
        let text =
            "=== RUN   TestAddSmall\n--- PASS: TestAddSmall (0.00s)\n=== RUN   TestAddNegative\n";
        let got = read(text, None);
        assert_eq!(
            got.tests.get("TestAddNegative"),
            Some(&TestOutcome::Errored),
            "{got:?}"
        );
        assert_eq!(
            got.tests.get("TestAddSmall"),
            Some(&TestOutcome::Passed),
            "{got:?}"
        );
    }

    #[test]
    fn go_test_reads_its_recorded_output() {
        // go 1.27.3 over three packages: one failing, one passing, one with subtests.
        case(
            sample!("go-test-1.27.3-mixed.txt"),
            None,
            report(
                &[GoTest],
                &[
                    ("example.com/calc/TestFail", Failed),
                    ("example.com/calc/sub/TestSub", Failed),
                    ("example.com/calc/sub/TestSub/two", Failed),
                ],
                &[],
                &[
                    "--- FAIL: TestFail (0.00s)",
                    "FAIL\texample.com/calc\t0.002s",
                    "--- FAIL: TestSub (0.00s)",
                    "--- FAIL: TestSub/two (0.00s)",
                    "FAIL\texample.com/calc/sub\t0.002s",
                ],
            ),
        );
        // With `-v`, and again with the passing package's result from the cache.
        let every = [
            ("example.com/calc/TestAdd", Passed),
            ("example.com/calc/TestFail", Failed),
            ("example.com/calc/TestSkip", Skipped),
            ("example.com/calc/other/TestOther", Passed),
            ("example.com/calc/sub/TestSub", Failed),
            ("example.com/calc/sub/TestSub/one", Passed),
            ("example.com/calc/sub/TestSub/two", Failed),
        ];
        for (output, times) in [
            (sample!("go-test-1.27.3-v-mixed.txt"), ["0.002s", "0.002s"]),
            (sample!("go-test-1.27.3-v-cached.txt"), ["0.004s", "0.003s"]),
        ] {
            let calc = format!("FAIL\texample.com/calc\t{}", times[0]);
            let sub = format!("FAIL\texample.com/calc/sub\t{}", times[1]);
            let claims = [
                "--- FAIL: TestFail (0.00s)",
                &calc,
                "--- FAIL: TestSub (0.00s)",
                "--- FAIL: TestSub/two (0.00s)",
                &sub,
            ];
            case(output, None, report(&[GoTest], &every, &[], &claims));
        }
    }

    #[test]
    fn tables_are_sorted() {
        sorted("GO_RESULTS", keys(GO_RESULTS));
    }
}
