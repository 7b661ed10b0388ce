//! Rust's libtest, as `cargo test` runs it: result lines named by test binary.

use std::borrow::Cow;

use super::report::{Sink, TestFramework, TestOutcome, lookup, number, word_counts};

/// libtest's results (`test name ... ok`), with the outcome each reports; `ignored, why`
/// is read apart.
const LIBTEST_RESULTS: &[(&str, TestOutcome)] = &[
    ("FAILED", TestOutcome::Failed),
    ("ignored", TestOutcome::Skipped),
    ("ok", TestOutcome::Passed),
];

/// The words of libtest's `test result:` line, with the outcome each counts.
const LIBTEST_COUNTS: &[(&str, Option<TestOutcome>)] = &[
    ("failed", Some(TestOutcome::Failed)),
    ("filtered out", None),
    ("ignored", Some(TestOutcome::Skipped)),
    ("measured", None),
    ("passed", Some(TestOutcome::Passed)),
];

/// Reads libtest's result lines between `running N tests` and `test result:`, with the
/// test binary cargo names before them (`Running tests/sub.rs (…)`, `Doc-tests crate`).
///
/// In a workspace two crates' binaries can share a source path (`src/lib.rs`); their
/// tests then share ids, and the worse outcome is kept. With `--nocapture` and one test
/// thread, libtest prints `test name ... ` before the test runs, so what the test prints
/// follows on that line and its result ends a later line: `ok`, `FAILED` or `ignored` alone
/// on a line is the result of the test left waiting.
pub(super) fn read_libtest(lines: &[Cow<'_, str>], sink: &mut Sink) {
    let mut binary: Option<String> = None;
    let mut running = false;
    // A test whose `test name ... ` line ended in its own output, not its result.
    let mut pending: Option<String> = None;
    for (at, line) in lines.iter().enumerate() {
        let line: &str = line;
        // cargo right-aligns its status words in twelve columns.
        if let Some(rest) = line.strip_prefix("     Running ") {
            let source = libtest_binary(rest);
            sink.binary(&source);
            binary = Some(source);
            continue;
        }
        if let Some(krate) = line.strip_prefix("   Doc-tests ") {
            binary = Some(format!("Doc-tests {krate}"));
            continue;
        }
        if let Some(n) = line.strip_prefix("running ") {
            let n = n.strip_suffix(" tests").or_else(|| n.strip_suffix(" test"));
            if n.and_then(number).is_some() {
                running = true;
                pending = None;
                sink.saw(TestFramework::Libtest, at);
            }
            continue;
        }
        if !running {
            continue;
        }
        if let Some(rest) = line.strip_prefix("test result: ") {
            running = false;
            pending = None;
            let (status, counts) = rest.split_once(". ").unwrap_or((rest, ""));
            let counts = counts.split("; finished in").next().unwrap_or(counts);
            for (_, outcome, n) in word_counts(counts, "; ", LIBTEST_COUNTS).unwrap_or_default() {
                if let Some(outcome) = outcome {
                    sink.count(outcome, n);
                }
            }
            if status == "FAILED" {
                sink.claim(TestFramework::Libtest, at, line);
            }
            continue;
        }
        if let Some(outcome) = libtest_result(line)
            && let Some(name) = pending.take()
        {
            libtest_test(sink, binary.as_deref(), &name, outcome);
            continue;
        }
        let Some(rest) = line.strip_prefix("test ") else {
            continue;
        };
        pending = None;
        let Some((name, result)) = rest.rsplit_once(" ... ") else {
            continue;
        };
        match libtest_result(result) {
            Some(outcome) => libtest_test(sink, binary.as_deref(), name, outcome),
            // What the test printed, with `--nocapture` on one thread: its result ends a
            // line of its own later.
            None => pending = rest.split_once(" ... ").map(|(name, _)| name.to_owned()),
        }
    }
}

/// The outcome a libtest result reports: `ok`, `FAILED`, `ignored` or `ignored, why`.
fn libtest_result(result: &str) -> Option<TestOutcome> {
    if result.starts_with("ignored, ") {
        Some(TestOutcome::Skipped)
    } else {
        lookup(LIBTEST_RESULTS, result)
    }
}

/// Records test `name` of `binary` (the source cargo names for it).
fn libtest_test(sink: &mut Sink, binary: Option<&str>, name: &str, outcome: TestOutcome) {
    let name = name.strip_suffix(" - should panic").unwrap_or(name);
    let id = match binary {
        Some(binary) => format!("{binary}::{name}"),
        None => name.to_owned(),
    };
    sink.test(id, outcome);
}

/// The source cargo names for a test binary: `unittests src/lib.rs (target/…/demo-1a2b)`
/// is `src/lib.rs`. Older cargo printed only the binary's path, whose hash is left out.
fn libtest_binary(text: &str) -> String {
    let source = match text.rsplit_once(" (") {
        Some((source, binary)) if binary.ends_with(')') => source,
        _ => {
            let name = text.rsplit('/').next().unwrap_or(text);
            let unhashed = name
                .rsplit_once('-')
                .filter(|(_, hash)| hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()))
                .map_or(name, |(name, _)| name);
            return unhashed.to_owned();
        }
    };
    source
        .strip_prefix("unittests ")
        .unwrap_or(source)
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::verdict::results::TestFramework::Libtest;
    use crate::verdict::results::TestOutcome::{Failed, Passed, Skipped};
    use crate::verdict::results::TestReport;
    use crate::verdict::results::tests::{case, report};
    use crate::verdict::results::tests::{keys, sorted};

    #[test]
    fn libtest_names_tests_by_binary() {
        case(
            sample!("cargo-mixed.txt"),
            None,
            report(
                &[Libtest],
                &[
                    ("Doc-tests demo::src/lib.rs - add (line 3)", Passed),
                    ("Doc-tests demo::src/lib.rs - add (line 7)", Failed),
                    ("src/lib.rs::tests::adds", Passed),
                    ("src/lib.rs::tests::fails", Failed),
                    ("src/lib.rs::tests::ignored_plain", Skipped),
                    ("src/lib.rs::tests::ignored_reason", Skipped),
                    ("src/lib.rs::tests::panics", Passed),
                    ("tests/sub.rs::it_works", Passed),
                ],
                &[(Passed, 4), (Failed, 2), (Skipped, 2)],
                &[
                    "test result: FAILED. 2 passed; 1 failed; 2 ignored; 0 measured; 0 filtered out; finished in 0.00s",
                    "test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s",
                ],
            )
            .ran(&["src/lib.rs", "tests/sub.rs"]),
        );
        case(
            sample!("cargo-ignored.txt"),
            None,
            report(
                &[Libtest],
                &[
                    ("src/lib.rs::tests::adds", Passed),
                    ("src/lib.rs::tests::ignored_plain", Skipped),
                    ("src/lib.rs::tests::ignored_reason", Skipped),
                    ("src/lib.rs::tests::panics", Passed),
                ],
                &[(Passed, 2), (Skipped, 2)],
                &[],
            )
            .ran(&["src/lib.rs"]),
        );
        case(
            sample!("cargo-compile-error.txt"),
            None,
            TestReport::default(),
        );
        // A test binary run by hand, and a result line with no `running` header before it.
        case(
            "test it ... ok\nrunning 1 test\ntest it ... ok\n",
            None,
            report(&[Libtest], &[("it", Passed)], &[], &[]),
        );
        assert_eq!(
            libtest_binary("target/debug/deps/demo-8348ca7a80742723"),
            "demo"
        );
    }

    #[test]
    fn libtest_reads_its_output_with_and_without_nocapture() {
        // cargo 1.95: captured; `--nocapture`, where what tests print comes between the
        // result lines; and `--nocapture --test-threads=1`, where it comes between a test's
        // name and its result.
        for output in [
            sample!("libtest-1.95.0-mixed.txt"),
            sample!("libtest-1.95.0-nocapture.txt"),
            sample!("libtest-1.95.0-nocapture-one-thread.txt"),
        ] {
            case(
                output,
                None,
                report(
                    &[Libtest],
                    &[
                        ("src/lib.rs::tests::adds", Passed),
                        ("src/lib.rs::tests::fails", Failed),
                        ("src/lib.rs::tests::skipped", Skipped),
                        ("tests/other.rs::other_works", Passed),
                    ],
                    &[(Passed, 2), (Failed, 1), (Skipped, 1)],
                    &[
                        "test result: FAILED. 1 passed; 1 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s",
                    ],
                )
                .ran(&["src/lib.rs", "tests/other.rs"]),
            );
        }
        // A result alone on a line is a waiting test's, and nobody's otherwise.
        case(
            "running 2 tests\ntest a ... ok\nok\ntest b ... printed\nmore\nFAILED\nok\n",
            None,
            report(&[Libtest], &[("a", Passed), ("b", Failed)], &[], &[]),
        );
    }

    #[test]
    fn tables_are_sorted() {
        sorted("LIBTEST_RESULTS", keys(LIBTEST_RESULTS));
        sorted("LIBTEST_COUNTS", keys(LIBTEST_COUNTS));
    }
}
