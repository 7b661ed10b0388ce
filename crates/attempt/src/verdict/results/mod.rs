//! Per-test results: what a check's output says about each test it ran, for the runners
//! invariant 9 of `docs/design/verdict.md` recognises (pytest, unittest, libtest, node's test
//! runner, mocha, jest, vitest and `go test`).
//!
//! A check's output is whatever its command printed, and one command may run several
//! runners between lines of noise, so each runner has one reader that takes a line only
//! when it has that runner's exact shape, and only in the context the runner prints it in
//! (libtest's lines after `running N tests`, node's after `TAP version 13`, pytest's after
//! its `short test summary info` rule). The readers know only what the runners print by
//! default when their output is not a terminal, plus the JUnit XML that pytest writes when
//! the attempt asks for it through `PYTEST_ADDOPTS`. Every sample they are tested on was
//! recorded from the real tool, under `fixtures/results/`.
//!
//! Each runner's reader has a file of its own, with its tests; `report.rs` holds what they
//! share: the report and its bounds, the `Sink` they write to, and the small parsers of counts
//! and rules; this module cleans the lines they read and runs them in turn.

use std::borrow::Cow;

/// A recorded sample under `fixtures/results/`, for the readers' tests.
#[cfg(test)]
macro_rules! sample {
    ($name:literal) => {
        include_str!(concat!("../../../../../fixtures/results/", $name))
    };
}

mod go_test;
mod jest;
mod junit;
mod libtest;
mod mocha;
mod node_test;
mod pytest;
mod report;
mod unittest;
mod vitest;

pub(crate) use report::TestReport;
use report::{MAX_LINE, Sink};
pub(crate) use report::{TestFramework, TestOutcome};

/// Reads a check's merged output (and the JUnit XML pytest wrote, when there is one).
pub(crate) fn read(output: &str, junit: Option<&str>) -> TestReport {
    let lines = clean_lines(output);
    let mut sink = Sink::default();
    pytest::read_pytest(&lines, junit, &mut sink);
    unittest::read_unittest(&lines, &mut sink);
    libtest::read_libtest(&lines, &mut sink);
    node_test::read_node_test(&lines, &mut sink);
    mocha::read_mocha(&lines, &mut sink);
    jest::read_jest(&lines, &mut sink);
    vitest::read_vitest(&lines, &mut sink);
    go_test::read_go_test(&lines, &mut sink);
    sink.finish()
}

/// The output's lines without line endings and colour codes, overlong lines left out.
///
/// vitest colours its output whenever `TERM` names a colour terminal, even into a pipe,
/// and a carriage return inside a line means the text before it was overwritten.
fn clean_lines(output: &str) -> Vec<Cow<'_, str>> {
    output
        .split('\n')
        .filter(|line| line.len() <= MAX_LINE)
        .map(|line| {
            let line = line.trim_end_matches('\r');
            let line = line.rsplit('\r').next().unwrap_or(line);
            strip_ansi(line)
        })
        .collect()
}

/// `line` without its ANSI escape sequences.
fn strip_ansi(line: &str) -> Cow<'_, str> {
    if !line.contains('\x1b') {
        return Cow::Borrowed(line);
    }
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\x1b' {
            out.push(c);
            continue;
        }
        match chars.next() {
            // A control sequence: parameters and intermediates, then one final byte.
            Some('[') => {
                for c in chars.by_ref() {
                    if ('\x40'..='\x7e').contains(&c) {
                        break;
                    }
                }
            }
            // An operating system command, ended by BEL or by ESC `\`.
            Some(']') => {
                while let Some(c) = chars.next() {
                    if c == '\x07' {
                        break;
                    }
                    if c == '\x1b' && chars.peek() == Some(&'\\') {
                        chars.next();
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::report::{MAX_CLAIMS, MAX_TESTS};
    use super::*;

    use super::TestFramework::{GoTest, Jest, Libtest, Mocha, NodeTest, Pytest, Unittest, Vitest};
    use super::TestOutcome::Passed;

    /// A report from its parts.
    pub(super) fn report(
        runners: &[TestFramework],
        tests: &[(&str, TestOutcome)],
        counts: &[(TestOutcome, usize)],
        claims: &[&str],
    ) -> TestReport {
        TestReport {
            runners: runners.to_vec(),
            tests: tests.iter().map(|(id, o)| ((*id).to_owned(), *o)).collect(),
            counts: counts.iter().copied().collect(),
            failure_claims: claims.iter().map(|c| (*c).to_owned()).collect(),
            ..TestReport::default()
        }
    }

    impl TestReport {
        /// The report with the test binaries cargo named.
        pub(super) fn ran(mut self, binaries: &[&str]) -> Self {
            self.binaries = binaries.iter().map(|b| (*b).to_owned()).collect();
            self
        }
    }

    #[test]
    fn a_runner_that_stopped_at_a_failure_says_so() {
        let stepwise = read(sample!("pytest-stepwise.txt"), None);
        assert_eq!(
            stepwise.stopped.as_deref(),
            Some("Interrupted: Test failed, continuing from this test next run.")
        );
        let exitfirst = read(sample!("pytest-exitfirst.txt"), None);
        assert_eq!(
            exitfirst.stopped.as_deref(),
            Some("stopping after 1 failures")
        );
        let bail = read(sample!("vitest-4.1.12-bail.txt"), None);
        assert_eq!(
            bail.stopped.as_deref(),
            Some("Test Files  1 failed (2): vitest ran 1 of 2 test files")
        );
        // A collection error interrupts pytest too, but stops no test after a failure; a
        // vitest run of every file it found stopped nowhere.
        for output in [
            sample!("pytest-collect-error.txt"),
            sample!("vitest-4.1.12-two-files.txt"),
            sample!("vitest-4.1.12-verbose.txt"),
        ] {
            assert_eq!(read(output, None).stopped, None);
        }
    }

    #[track_caller]
    #[test]
    fn jest_and_vitest_name_the_files_they_ran() {
        let vitest = read(sample!("vitest-1.6.1-two-files.txt"), None);
        assert_eq!(
            vitest.files.into_iter().collect::<Vec<_>>(),
            [
                ("test/calc.test.js".to_owned(), Some(3)),
                ("test/other.test.js".to_owned(), Some(1))
            ]
        );
        let jest = read(sample!("jest-29.7.0-two-files.txt"), None);
        assert!(!jest.files.is_empty(), "{jest:?}");
        assert!(jest.files.values().all(Option::is_none));
    }

    /// Asserts that `output` (and `junit`) read as `expected`; the files the runner named
    /// are compared where `expected` names some.
    pub(super) fn case(output: &str, junit: Option<&str>, expected: TestReport) {
        let mut got = read(output, junit);
        if expected.files.is_empty() {
            got.files.clear();
        }
        assert_eq!(got, expected);
    }

    /// Asserts that a table's keys are sorted and without repeats.
    #[track_caller]
    pub(super) fn sorted(name: &str, keys: Vec<&str>) {
        let mut want = keys.clone();
        want.sort_unstable();
        want.dedup();
        assert_eq!(
            keys, want,
            "keep {name} sorted (and without repeats): lookups search it by halves"
        );
    }

    /// The keys of a lookup table.
    pub(super) fn keys<T>(table: &[(&'static str, T)]) -> Vec<&'static str> {
        table.iter().map(|(k, _)| *k).collect()
    }

    #[test]
    fn output_mixing_two_runners_gives_both() {
        let output = format!(
            "noise: ok 1 - not tap\n{}\n$ cargo test\n{}\nPASSED tests/x.py::nope\n",
            sample!("pytest-mixed.txt"),
            sample!("cargo-ignored.txt"),
        );
        let got = read(&output, None);
        assert_eq!(got.runners, [Pytest, Libtest]);
        let from = |prefix: &str| got.tests.keys().filter(|id| id.starts_with(prefix)).count();
        assert_eq!(
            (
                from("tests/test_mixed.py::"),
                from("src/lib.rs::"),
                got.tests.len()
            ),
            (8, 4, 12)
        );
        assert_eq!(got.counts.get(&Passed), Some(&5));
        // The libtest sample first, then mocha's: both, in output order.
        let output = format!(
            "{}{}",
            sample!("cargo-ignored.txt"),
            sample!("mocha-spec-pending.txt")
        );
        assert_eq!(read(&output, None).runners, [Libtest, Mocha]);
    }

    /// Every sample of `fixtures/results`, by name, with the runners its output names.
    const SAMPLES: &[(&str, &str, &[TestFramework])] = &[
        (
            "cargo-compile-error",
            sample!("cargo-compile-error.txt"),
            &[],
        ),
        ("cargo-ignored", sample!("cargo-ignored.txt"), &[Libtest]),
        ("cargo-mixed", sample!("cargo-mixed.txt"), &[Libtest]),
        ("go-test", sample!("go-test-documented.txt"), &[GoTest]),
        (
            "go-test-v",
            sample!("go-test-v-fail-documented.txt"),
            &[GoTest],
        ),
        (
            "jest-summary-fail",
            sample!("jest-summary-fail.txt"),
            &[Jest],
        ),
        (
            "jest-summary-skip",
            sample!("jest-summary-skip.txt"),
            &[Jest],
        ),
        (
            "jest-verbose-console",
            sample!("jest-verbose-console.txt"),
            &[Jest],
        ),
        (
            "jest-verbose-fail",
            sample!("jest-verbose-fail.txt"),
            &[Jest],
        ),
        (
            "mocha-import-error",
            sample!("mocha-import-error.txt"),
            &[Mocha],
        ),
        ("mocha-spec-fail", sample!("mocha-spec-fail.txt"), &[Mocha]),
        (
            "mocha-spec-pending",
            sample!("mocha-spec-pending.txt"),
            &[Mocha],
        ),
        (
            "node-tap-escape",
            sample!("node-tap-escape.txt"),
            &[NodeTest],
        ),
        ("node-tap-mixed", sample!("node-tap-mixed.txt"), &[NodeTest]),
        ("node-tap-skip", sample!("node-tap-skip.txt"), &[NodeTest]),
        (
            "pytest-collect-error",
            sample!("pytest-collect-error.txt"),
            &[Pytest],
        ),
        (
            "pytest-default-fail",
            sample!("pytest-default-fail.txt"),
            &[Pytest],
        ),
        (
            "pytest-deselected-pass",
            sample!("pytest-deselected-pass.txt"),
            &[Pytest],
        ),
        ("pytest-mixed", sample!("pytest-mixed.txt"), &[Pytest]),
        (
            "unittest-plain-fail",
            sample!("unittest-plain-fail.txt"),
            &[Unittest],
        ),
        (
            "unittest-plain-ok",
            sample!("unittest-plain-ok.txt"),
            &[Unittest],
        ),
        (
            "unittest-verbose-fail",
            sample!("unittest-verbose-fail.txt"),
            &[Unittest],
        ),
        (
            "unittest-verbose-py310",
            sample!("unittest-verbose-py310.txt"),
            &[Unittest],
        ),
        (
            "unittest-verbose-subtests-py310",
            sample!("unittest-verbose-subtests-py310.txt"),
            &[Unittest],
        ),
        (
            "unittest-verbose-subtests-py312",
            sample!("unittest-verbose-subtests-py312.txt"),
            &[Unittest],
        ),
        (
            "vitest-nocolor-fail",
            sample!("vitest-nocolor-fail.txt"),
            &[Vitest],
        ),
        ("vitest-summary", sample!("vitest-summary.txt"), &[Vitest]),
        (
            "vitest-summary-fail",
            sample!("vitest-summary-fail.txt"),
            &[Vitest],
        ),
        (
            "go-test-1.27.3-mixed",
            sample!("go-test-1.27.3-mixed.txt"),
            &[GoTest],
        ),
        (
            "go-test-1.27.3-v-cached",
            sample!("go-test-1.27.3-v-cached.txt"),
            &[GoTest],
        ),
        (
            "go-test-1.27.3-v-mixed",
            sample!("go-test-1.27.3-v-mixed.txt"),
            &[GoTest],
        ),
        (
            "jest-27.5.1-one-file",
            sample!("jest-27.5.1-one-file.txt"),
            &[Jest],
        ),
        (
            "jest-27.5.1-two-files",
            sample!("jest-27.5.1-two-files.txt"),
            &[Jest],
        ),
        (
            "jest-29.7.0-one-file",
            sample!("jest-29.7.0-one-file.txt"),
            &[Jest],
        ),
        (
            "jest-29.7.0-two-files",
            sample!("jest-29.7.0-two-files.txt"),
            &[Jest],
        ),
        (
            "jest-30.5.2-one-file",
            sample!("jest-30.5.2-one-file.txt"),
            &[Jest],
        ),
        (
            "jest-30.5.2-two-files",
            sample!("jest-30.5.2-two-files.txt"),
            &[Jest],
        ),
        (
            "libtest-1.95.0-mixed",
            sample!("libtest-1.95.0-mixed.txt"),
            &[Libtest],
        ),
        (
            "libtest-1.95.0-nocapture-one-thread",
            sample!("libtest-1.95.0-nocapture-one-thread.txt"),
            &[Libtest],
        ),
        (
            "libtest-1.95.0-nocapture",
            sample!("libtest-1.95.0-nocapture.txt"),
            &[Libtest],
        ),
        (
            "mocha-10.8.2-spec-mixed",
            sample!("mocha-10.8.2-spec-mixed.txt"),
            &[Mocha],
        ),
        (
            "mocha-11.8.0-spec-mixed",
            sample!("mocha-11.8.0-spec-mixed.txt"),
            &[Mocha],
        ),
        (
            "mocha-6.2.3-spec-mixed",
            sample!("mocha-6.2.3-spec-mixed.txt"),
            &[Mocha],
        ),
        (
            "mocha-8.4.0-spec-mixed",
            sample!("mocha-8.4.0-spec-mixed.txt"),
            &[Mocha],
        ),
        (
            "node-20.20.2-test-mixed",
            sample!("node-20.20.2-test-mixed.txt"),
            &[NodeTest],
        ),
        (
            "node-22.23.5-test-mixed",
            sample!("node-22.23.5-test-mixed.txt"),
            &[NodeTest],
        ),
        (
            "node-24.22.3-test-spec-mixed",
            sample!("node-24.22.3-test-spec-mixed.txt"),
            &[],
        ),
        (
            "pytest-7.0.1-rA-full",
            sample!("pytest-7.0.1-rA-full.txt"),
            &[Pytest],
        ),
        (
            "pytest-7.4.4-rA-full",
            sample!("pytest-7.4.4-rA-full.txt"),
            &[Pytest],
        ),
        (
            "pytest-8.4.2-rA-full",
            sample!("pytest-8.4.2-rA-full.txt"),
            &[Pytest],
        ),
        (
            "pytest-7.4.4-rA-mixed",
            sample!("pytest-7.4.4-rA-mixed.txt"),
            &[Pytest],
        ),
        (
            "pytest-8.4.2-rA-mixed",
            sample!("pytest-8.4.2-rA-mixed.txt"),
            &[Pytest],
        ),
        (
            "pytest-9.2.0-rA-mixed",
            sample!("pytest-9.2.0-rA-mixed.txt"),
            &[Pytest],
        ),
        (
            "vitest-1.6.1-one-file",
            sample!("vitest-1.6.1-one-file.txt"),
            &[Vitest],
        ),
        (
            "vitest-1.6.1-two-files",
            sample!("vitest-1.6.1-two-files.txt"),
            &[Vitest],
        ),
        (
            "vitest-2.1.9-one-file",
            sample!("vitest-2.1.9-one-file.txt"),
            &[Vitest],
        ),
        (
            "vitest-2.1.9-two-files",
            sample!("vitest-2.1.9-two-files.txt"),
            &[Vitest],
        ),
        (
            "vitest-3.2.7-nested",
            sample!("vitest-3.2.7-nested.txt"),
            &[Vitest],
        ),
        (
            "vitest-3.2.7-one-file",
            sample!("vitest-3.2.7-one-file.txt"),
            &[Vitest],
        ),
        (
            "vitest-3.2.7-two-files",
            sample!("vitest-3.2.7-two-files.txt"),
            &[Vitest],
        ),
        (
            "vitest-4.1.12-nested",
            sample!("vitest-4.1.12-nested.txt"),
            &[Vitest],
        ),
        (
            "vitest-4.1.12-one-file",
            sample!("vitest-4.1.12-one-file.txt"),
            &[Vitest],
        ),
        (
            "vitest-4.1.12-two-files",
            sample!("vitest-4.1.12-two-files.txt"),
            &[Vitest],
        ),
        (
            "vitest-5.1.2-nested",
            sample!("vitest-5.1.2-nested.txt"),
            &[Vitest],
        ),
        (
            "vitest-5.1.2-one-file",
            sample!("vitest-5.1.2-one-file.txt"),
            &[Vitest],
        ),
        (
            "vitest-5.1.2-two-files",
            sample!("vitest-5.1.2-two-files.txt"),
            &[Vitest],
        ),
        (
            "jest-27.5.1-one-file-todo",
            sample!("jest-27.5.1-one-file-todo.txt"),
            &[Jest],
        ),
        (
            "jest-27.5.1-three-files-import-error",
            sample!("jest-27.5.1-three-files-import-error.txt"),
            &[Jest],
        ),
        (
            "jest-29.7.0-one-file-todo",
            sample!("jest-29.7.0-one-file-todo.txt"),
            &[Jest],
        ),
        (
            "jest-29.7.0-three-files-import-error",
            sample!("jest-29.7.0-three-files-import-error.txt"),
            &[Jest],
        ),
        (
            "jest-30.5.2-one-file-todo",
            sample!("jest-30.5.2-one-file-todo.txt"),
            &[Jest],
        ),
        (
            "jest-30.5.2-three-files-import-error",
            sample!("jest-30.5.2-three-files-import-error.txt"),
            &[Jest],
        ),
        (
            "mocha-10.8.2-spec-hooks",
            sample!("mocha-10.8.2-spec-hooks.txt"),
            &[Mocha],
        ),
        (
            "mocha-11.8.0-spec-hooks",
            sample!("mocha-11.8.0-spec-hooks.txt"),
            &[Mocha],
        ),
        (
            "mocha-6.2.3-spec-hooks",
            sample!("mocha-6.2.3-spec-hooks.txt"),
            &[Mocha],
        ),
        (
            "mocha-8.4.0-spec-hooks",
            sample!("mocha-8.4.0-spec-hooks.txt"),
            &[Mocha],
        ),
        (
            "vitest-1.6.1-three-files-import-error",
            sample!("vitest-1.6.1-three-files-import-error.txt"),
            &[Vitest],
        ),
        (
            "vitest-2.1.9-three-files-import-error",
            sample!("vitest-2.1.9-three-files-import-error.txt"),
            &[Vitest],
        ),
        (
            "vitest-3.2.7-three-files-import-error",
            sample!("vitest-3.2.7-three-files-import-error.txt"),
            &[Vitest],
        ),
        (
            "vitest-4.1.12-three-files-import-error",
            sample!("vitest-4.1.12-three-files-import-error.txt"),
            &[Vitest],
        ),
        (
            "vitest-5.1.2-three-files-import-error",
            sample!("vitest-5.1.2-three-files-import-error.txt"),
            &[Vitest],
        ),
    ];

    #[test]
    fn no_sample_is_read_as_another_runner() {
        for (name, output, runners) in SAMPLES {
            assert_eq!(read(output, None).runners, *runners, "{name}");
        }
    }

    #[test]
    fn two_samples_together_read_as_the_two_apart() {
        // Every sample after every other reads as the two apart: the same runners in
        // order and, for two runners, the same tests.
        for (first, before, a) in SAMPLES {
            for (second, after, b) in SAMPLES {
                let both = read(&format!("{before}\n{after}"), None);
                let mut want = a.to_vec();
                want.extend(b.iter().filter(|r| !a.contains(r)));
                assert_eq!(both.runners, want, "{first} then {second}");
                if a.iter().all(|r| !b.contains(r)) {
                    let mut tests = read(before, None).tests;
                    tests.extend(read(after, None).tests);
                    assert_eq!(both.tests, tests, "{first} then {second}");
                }
            }
        }
    }

    #[test]
    fn reports_keep_their_bounds() {
        let mut output = String::from("running 100001 tests\n");
        for i in 0..=MAX_TESTS {
            output.push_str(&format!("test t{i} ... FAILED\n"));
        }
        output.push_str(&format!("test {} ... ok\n", "x".repeat(MAX_LINE)));
        output.push_str(&"test result: FAILED. 0 passed; 100001 failed; 0 ignored; 0 measured; 0 filtered out; finished in 1.00s\n".repeat(20));
        let got = read(&output, None);
        assert_eq!(got.tests.len(), MAX_TESTS);
        assert!(!got.tests.contains_key(&"x".repeat(MAX_LINE)));
        assert_eq!(
            got.failure_claims.len(),
            1,
            "one `test result` is counted, once `running` is over"
        );
        let claims = "--- FAIL: TestX (0.00s)\n".repeat(20);
        assert_eq!(read(&claims, None).failure_claims.len(), MAX_CLAIMS);
    }

    /// Lines from every sample, to build outputs that reach deep into the readers.
    fn sample_lines() -> Vec<&'static str> {
        [
            sample!("cargo-mixed.txt"),
            sample!("go-test-v-fail-documented.txt"),
            sample!("jest-verbose-fail.txt"),
            sample!("mocha-spec-fail.txt"),
            sample!("node-tap-mixed.txt"),
            sample!("pytest-mixed.txt"),
            sample!("unittest-verbose-py310.txt"),
            sample!("vitest-summary-fail.txt"),
            sample!("go-test-1.27.3-v-mixed.txt"),
            sample!("libtest-1.95.0-nocapture-one-thread.txt"),
            sample!("mocha-6.2.3-spec-hooks.txt"),
            sample!("node-24.22.3-test-spec-mixed.txt"),
            sample!("pytest-7.0.1-rA-full.txt"),
            sample!("vitest-5.1.2-three-files-import-error.txt"),
        ]
        .iter()
        .flat_map(|s| s.lines())
        .collect()
    }

    proptest! {
        /// Property: any text reads to a report without panicking, and at most 100,000 tests.
        #[test]
        fn any_text_reads_to_a_bounded_report(
            parts in prop::collection::vec(
                prop_oneof![prop::sample::select(sample_lines()).prop_map(str::to_owned), "\\PC{0,40}"],
                0..60,
            ),
            junit in prop::option::of("(<testcase name='[a-z&;#0-9]{0,6}'>|</testcase>|<skipped/>|<!--|\\PC{0,8}){0,12}"),
        ) {
            let got = read(&parts.join("\n"), junit.as_deref());
            prop_assert!(got.tests.len() <= MAX_TESTS);
            prop_assert!(got.failure_claims.len() <= MAX_CLAIMS);
        }
    }
}
