//! vitest: its default reporter's file lines, failure heads and summary.

use std::borrow::Cow;
use std::collections::BTreeMap;

use super::report::{Sink, TestFramework, TestOutcome, indent, number, word_counts};

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
/// vitest lists a failed file's tests under it, indented two spaces a level. vitest 2 and 3
/// name each by its suites' path (`✓ Calc > adds 1ms`, all at one depth); vitest 5 prints
/// each suite on a line of its own (`❯ Calc (5)`) with its tests under it, so they are named
/// from that tree; vitest 4 prints the tests of suites without their suites' names, so only
/// the file's top-level tests are named from its list there, and a test inside a suite only
/// when it failed. vitest 1 lists only the failed tests. vitest 4's verbose reporter (which
/// a check that runs vitest itself asks for) prints no file line, and each test on one
/// line with its file and suites (` ✓ test/a.test.js > Calc > adds 2ms`): the file counts
/// the tests named so.
pub(super) fn read_vitest(lines: &[Cow<'_, str>], sink: &mut Sink) {
    let mut active = false;
    let mut file: Option<String> = None;
    let mut section = VitestSection::Other;
    // The suites of the current file's tree, by depth, where vitest names them.
    let mut suites: Vec<String> = Vec::new();
    // The tests of each file named so far by the verbose reporter's lines.
    let mut flat_counts: BTreeMap<String, usize> = BTreeMap::new();
    for (at, line) in lines.iter().enumerate() {
        let line: &str = line;
        let text = line.trim_start();
        if text.starts_with("RUN  v") {
            active = true;
            file = None;
            section = VitestSection::Other;
            sink.saw(TestFramework::Vitest, at);
            continue;
        }
        if !active {
            continue;
        }
        if let Some((path, count)) = vitest_file(line) {
            sink.file(path, Some(count));
            file = Some(path.to_owned());
            suites.clear();
            continue;
        }
        if let Some((path, outcome, name)) = vitest_flat_line(line) {
            let n = flat_counts.entry(path.to_owned()).or_insert(0);
            *n += 1;
            sink.file(path, Some(*n));
            sink.test(format!("{path} > {name}"), outcome);
            file = None;
            continue;
        }
        if let Some(file) = &file
            && let Some((depth, mark, text)) = vitest_tree_line(line)
            && read_tree_line(file, &mut suites, depth, mark, text, sink)
        {
            continue;
        }
        if text.starts_with('⎯') {
            file = None;
            read_section_head(text, at, &mut section, sink);
            continue;
        }
        if let Some(rest) = text.strip_prefix("FAIL  ") {
            read_failure_head(rest, section, sink);
            continue;
        }
        read_summary_line(text, at, sink);
    }
}

/// Reads a line of a file's tree in `file` (at `depth`, with its `mark` and `text`): a
/// suite, which replaces those at its depth and deeper in `suites`, or a test under them.
/// Returns whether the line was either.
fn read_tree_line(
    file: &str,
    suites: &mut Vec<String>,
    depth: usize,
    mark: char,
    text: &str,
    sink: &mut Sink,
) -> bool {
    if let Some(suite) = vitest_suite(mark, text) {
        suites.truncate(depth);
        if suites.len() == depth {
            suites.push(suite.to_owned());
        }
        return true;
    }
    let outcome = VITEST_MARKS.iter().find(|(m, _)| *m == mark);
    if let Some((_, outcome)) = outcome
        && suites.len() >= depth
    {
        let mut id = file.to_owned();
        for suite in &suites[..depth] {
            id.push_str(" > ");
            id.push_str(suite);
        }
        id.push_str(" > ");
        id.push_str(vitest_name(text));
        sink.test(id, *outcome);
        return true;
    }
    false
}

/// Reads the `⎯⎯ Failed Tests 1 ⎯⎯` head of a part of the failure report (`text`, line
/// `at`) into `section`; an `Unhandled Error` part is a claim that the run failed.
fn read_section_head(text: &str, at: usize, section: &mut VitestSection, sink: &mut Sink) {
    let title = text.trim_matches(|c| c == '⎯' || c == ' ');
    if title.starts_with("Failed Suites") {
        *section = VitestSection::Suites;
    } else if title.starts_with("Failed Tests") {
        *section = VitestSection::Tests;
    } else if title.starts_with("Unhandled Error") {
        *section = VitestSection::Other;
        sink.claim(TestFramework::Vitest, at, title);
    }
}

/// Reads the id after `FAIL  ` (`rest`, its `[ file ]` dropped) in `section`: an errored
/// file or suite, or a failed test.
fn read_failure_head(rest: &str, section: VitestSection, sink: &mut Sink) {
    let id = match rest.rsplit_once(" [ ") {
        Some((id, _)) if rest.ends_with(" ]") => id,
        _ => rest,
    };
    match section {
        VitestSection::Suites => sink.test(id.to_owned(), TestOutcome::Errored),
        VitestSection::Tests => sink.test(id.to_owned(), TestOutcome::Failed),
        VitestSection::Other => {}
    }
}

/// Reads a summary line (`text`, line `at`): the counts of `Tests`, and of either that or
/// `Test Files` a failure, or an `Errors` line, as a claim that the run failed.
fn read_summary_line(text: &str, at: usize, sink: &mut Sink) {
    let (counted, summary) = if let Some(rest) = text.strip_prefix("Tests  ") {
        (true, rest)
    } else if let Some(rest) = text.strip_prefix("Test Files  ") {
        (false, rest)
    } else {
        if text.starts_with("Errors  ") {
            sink.claim(TestFramework::Vitest, at, text);
        }
        return;
    };
    let (summary, total) = match summary.rsplit_once(" (") {
        Some((counts, total)) if total.strip_suffix(')').and_then(number).is_some() => {
            (counts, total.strip_suffix(')').and_then(number))
        }
        _ => (summary, None),
    };
    let Some(counts) = word_counts(summary, " | ", VITEST_COUNTS) else {
        return;
    };
    // `--bail` (on the command line of a script, or in `vitest.config`): the files it
    // found but never ran are counted in the total only (`Test Files  1 failed (3)`).
    let ran: usize = counts.iter().map(|(_, _, n)| n).sum();
    if !counted && let Some(total) = total.filter(|t| ran < *t) {
        sink.stopped(&format!("{text}: vitest ran {ran} of {total} test files"));
    }
    let mut failed = false;
    for (_, outcome, n) in counts {
        failed |= n > 0 && outcome == Some(TestOutcome::Failed);
        if let (true, Some(outcome)) = (counted, outcome) {
            sink.count(outcome, n);
        }
    }
    if failed {
        sink.claim(TestFramework::Vitest, at, text);
    }
}

/// The file and test count of a vitest file line such as ` ❯ test/a.test.js (7 tests | 1 failed) 8ms`.
fn vitest_file(line: &str) -> Option<(&str, usize)> {
    let rest = line.strip_prefix(' ')?;
    let mut chars = rest.chars();
    let mark = chars.next()?;
    if !matches!(mark, '✓' | '❯' | '×' | '↓') {
        return None;
    }
    let (path, counts) = chars.as_str().strip_prefix(' ')?.split_once(" (")?;
    let (n, _) = counts.split_once(" test")?;
    // vitest 1 puts two spaces before the counts.
    number(n).map(|n| (path.trim_end(), n))
}

/// The file, outcome and name (suites and title) of a line of vitest 4's verbose reporter:
/// one space, the mark, the file, ` > `, the path to the test and its duration.
fn vitest_flat_line(line: &str) -> Option<(&str, TestOutcome, &str)> {
    let rest = line.strip_prefix(' ').filter(|r| !r.starts_with(' '))?;
    let mut chars = rest.chars();
    let mark = chars.next()?;
    let (_, outcome) = VITEST_MARKS.iter().find(|(m, _)| *m == mark)?;
    let (path, name) = chars.as_str().strip_prefix(' ')?.split_once(" > ")?;
    let ext = path.rsplit_once('.').map(|(_, e)| e)?;
    let script = matches!(
        ext,
        "js" | "mjs" | "cjs" | "jsx" | "ts" | "mts" | "cts" | "tsx"
    );
    let name = vitest_name(name);
    (script && !name.is_empty()).then_some((path, *outcome, name))
}

/// The depth, mark and text of a line of a file's tree in vitest's report: three spaces,
/// two more a level, then the mark and a space (`     ✓ adds 3ms` is at depth 1).
fn vitest_tree_line(line: &str) -> Option<(usize, char, &str)> {
    let spaces = indent(line);
    let depth = spaces.checked_sub(3)?;
    if !depth.is_multiple_of(2) {
        return None;
    }
    let mut chars = line[spaces..].chars();
    let mark = chars.next()?;
    let text = chars.as_str().strip_prefix(' ')?;
    Some((depth / 2, mark, text))
}

/// The name of a suite's line in vitest 5's tree, `❯ Calc (5)`: a test's mark or `❯`, then
/// the name and the count of its tests, and no duration.
fn vitest_suite(mark: char, text: &str) -> Option<&str> {
    let suite_mark = mark == '❯' || VITEST_MARKS.iter().any(|(m, _)| *m == mark);
    let (name, count) = text.strip_suffix(')')?.rsplit_once(" (")?;
    (suite_mark && !name.is_empty() && number(count).is_some()).then_some(name)
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

    use crate::verdict::results::TestFramework::Vitest;
    use crate::verdict::results::TestOutcome;
    use crate::verdict::results::TestOutcome::{Errored, Failed, Passed, Skipped, Xfailed};
    use crate::verdict::results::tests::{case, report};
    use crate::verdict::results::tests::{keys, sorted};

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

    /// The tests a sample names.
    type Named<'a> = &'a [(&'a str, TestOutcome)];

    #[test]
    fn vitest_reads_every_major_version() {
        let fails = ("test/calc.test.js > Calc > fails", Failed);
        let all = [
            ("test/calc.test.js > Calc > adds", Passed),
            fails,
            ("test/calc.test.js > Calc > is skipped", Skipped),
        ];
        let one = [
            "Test Files  1 failed (1)",
            "Tests  1 failed | 1 passed | 1 skipped (3)",
        ];
        let two = [
            "Test Files  1 failed | 1 passed (2)",
            "Tests  1 failed | 2 passed | 1 skipped (4)",
        ];
        // vitest 1 lists only the failed test, 2 and 4 the failed and the top-level ones,
        // 3 and 5 every test of a failed file; a passing file is a line of counts.
        let samples: [(&str, &str, Named); 5] = [
            (
                sample!("vitest-1.6.1-one-file.txt"),
                sample!("vitest-1.6.1-two-files.txt"),
                &[fails],
            ),
            (
                sample!("vitest-2.1.9-one-file.txt"),
                sample!("vitest-2.1.9-two-files.txt"),
                &[fails],
            ),
            (
                sample!("vitest-3.2.7-one-file.txt"),
                sample!("vitest-3.2.7-two-files.txt"),
                &all,
            ),
            (
                sample!("vitest-4.1.12-one-file.txt"),
                sample!("vitest-4.1.12-two-files.txt"),
                &[fails],
            ),
            (
                sample!("vitest-5.1.2-one-file.txt"),
                sample!("vitest-5.1.2-two-files.txt"),
                &all,
            ),
        ];
        for (one_file, two_files, tests) in samples {
            let counts = [(Passed, 1), (Failed, 1), (Skipped, 1)];
            case(one_file, None, report(&[Vitest], tests, &counts, &one));
            let counts = [(Passed, 2), (Failed, 1), (Skipped, 1)];
            case(two_files, None, report(&[Vitest], tests, &counts, &two));
        }
    }

    #[test]
    fn vitest_names_nested_tests_where_it_prints_their_suites() {
        let every = [
            ("test/calc.test.js > Calc > adds", Passed),
            ("test/calc.test.js > Calc > fails", Failed),
            ("test/calc.test.js > Calc > is skipped", Skipped),
            ("test/calc.test.js > Calc > is todo", Skipped),
            ("test/calc.test.js > Calc > nested > deep ok", Passed),
            ("test/calc.test.js > Other > works", Passed),
            ("test/calc.test.js > top level", Passed),
        ];
        let counts = [(Passed, 4), (Failed, 1), (Skipped, 2)];
        let claims = [
            "Test Files  1 failed (1)",
            "Tests  1 failed | 4 passed | 1 skipped | 1 todo (7)",
        ];
        // vitest 3 names each test by its path, vitest 5 prints a line per suite
        // (`✓ Other (1)` is a suite, not a test).
        for output in [
            sample!("vitest-3.2.7-nested.txt"),
            sample!("vitest-5.1.2-nested.txt"),
        ] {
            case(output, None, report(&[Vitest], &every, &counts, &claims));
        }
        // vitest 4 prints the tests of suites without the suites: they are counted.
        case(
            sample!("vitest-4.1.12-nested.txt"),
            None,
            report(&[Vitest], &[every[1], every[6]], &counts, &claims),
        );
    }

    #[test]
    fn vitest_4_verbose_names_every_test_and_counts_each_file() {
        let every = [
            ("test/calc.test.js > Calc > adds", Passed),
            ("test/calc.test.js > Calc > fails", Failed),
            ("test/calc.test.js > Calc > inner > is todo", Skipped),
            ("test/calc.test.js > Calc > inner > nests", Passed),
            ("test/calc.test.js > Calc > is skipped", Skipped),
            ("test/calc.test.js > top level", Passed),
            ("test/other.test.js > passes", Passed),
        ];
        let counts = [(Passed, 4), (Failed, 1), (Skipped, 2)];
        let claims = [
            "Test Files  1 failed | 1 passed (2)",
            "Tests  1 failed | 4 passed | 1 skipped | 1 todo (7)",
        ];
        let mut expected = report(&[Vitest], &every, &counts, &claims);
        expected.files = [
            ("test/calc.test.js".to_owned(), Some(6)),
            ("test/other.test.js".to_owned(), Some(1)),
        ]
        .into();
        case(sample!("vitest-4.1.12-verbose.txt"), None, expected);
    }

    #[test]
    fn vitest_reads_import_errors_todo_and_expected_failures_in_every_major_version() {
        // The test files of `vitest-summary-fail.txt` (vitest 4) under vitest 1 to 5.
        // vitest 1 to 3 count a `test.fails` that fails as a pass, 4 and 5 as an expected
        // failure; all mark it `✓`, so where it is named it is a pass.
        let broken = ("broken/broken.test.js", Errored);
        let fails = ("test/calc.test.js > Calc > fails", Failed);
        let top = ("test/calc.test.js > top level", Passed);
        let every = [
            broken,
            ("test/calc.test.js > Calc > adds", Passed),
            ("test/calc.test.js > Calc > expected to fail", Passed),
            fails,
            ("test/calc.test.js > Calc > is skipped", Skipped),
            ("test/calc.test.js > Calc > is todo", Skipped),
            ("test/calc.test.js > Calc > nested > deep ok", Passed),
            top,
        ];
        let old_counts = [(Passed, 5), (Failed, 1), (Skipped, 3)];
        let new_counts = [(Passed, 4), (Failed, 1), (Skipped, 3), (Xfailed, 1)];
        let files = "Test Files  2 failed | 1 passed (3)";
        let old_claims = [files, "Tests  1 failed | 5 passed | 2 skipped | 1 todo (9)"];
        let new_claims = [
            files,
            "Tests  1 failed | 4 passed | 1 expected fail | 2 skipped | 1 todo (9)",
        ];
        let old = |tests: Named| report(&[Vitest], tests, &old_counts, &old_claims);
        let new = |tests: Named| report(&[Vitest], tests, &new_counts, &new_claims);
        let v1 = sample!("vitest-1.6.1-three-files-import-error.txt");
        case(v1, None, old(&[broken, fails]));
        let v2 = sample!("vitest-2.1.9-three-files-import-error.txt");
        case(v2, None, old(&[broken, fails]));
        let v3 = sample!("vitest-3.2.7-three-files-import-error.txt");
        case(v3, None, old(&every));
        let v4 = sample!("vitest-4.1.12-three-files-import-error.txt");
        case(v4, None, new(&[broken, fails, top]));
        let v5 = sample!("vitest-5.1.2-three-files-import-error.txt");
        case(v5, None, new(&every));
    }

    #[test]
    fn tables_are_sorted() {
        sorted("VITEST_COUNTS", keys(VITEST_COUNTS));
        let marks: Vec<String> = VITEST_MARKS.iter().map(|(c, _)| c.to_string()).collect();
        sorted("VITEST_MARKS", marks.iter().map(String::as_str).collect());
    }
}
