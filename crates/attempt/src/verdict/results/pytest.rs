//! pytest: its short test summary lines, its closing counts line, and the JUnit XML it
//! writes when the attempt asks for it through `PYTEST_ADDOPTS`.

use std::borrow::Cow;
use std::collections::BTreeMap;

use super::junit::junit_cases;
use super::report::{Sink, TestFramework, TestOutcome, lookup, rule_title, word_counts};

/// pytest's short test summary words (`-rA`, and `-rfE` by default), with the outcome each
/// reports; skipped tests are reported by place (`SKIPPED [1] tests/x.py:12: why`), not id.
const PYTEST_SUMMARY_WORDS: &[(&str, TestOutcome)] = &[
    ("ERROR", TestOutcome::Errored),
    ("FAILED", TestOutcome::Failed),
    ("PASSED", TestOutcome::Passed),
    ("XFAIL", TestOutcome::Xfailed),
    ("XPASS", TestOutcome::Xpassed),
];

/// The words of pytest's closing line (`2 failed, 3 passed, 1 error in 0.04s`), with the
/// outcome each counts.
const PYTEST_COUNT_WORDS: &[(&str, Option<TestOutcome>)] = &[
    ("deselected", None),
    ("error", Some(TestOutcome::Errored)),
    ("errors", Some(TestOutcome::Errored)),
    ("failed", Some(TestOutcome::Failed)),
    ("passed", Some(TestOutcome::Passed)),
    ("rerun", None),
    ("skipped", Some(TestOutcome::Skipped)),
    ("warning", None),
    ("warnings", None),
    ("xfailed", Some(TestOutcome::Xfailed)),
    ("xpassed", Some(TestOutcome::Xpassed)),
];

/// Reads pytest's short test summary, its closing counts line, and its JUnit XML.
///
/// The XML names a test by `classname` and `name`, which pytest makes from the node id by
/// turning the file's slashes into dots, so the node ids of the summary lines are used to
/// turn them back when the output has them.
pub(super) fn read_pytest(lines: &[Cow<'_, str>], junit: Option<&str>, sink: &mut Sink) {
    let mut node_ids: BTreeMap<(String, String), String> = BTreeMap::new();
    let mut in_summary = false;
    for (at, line) in lines.iter().enumerate() {
        if rule_title(line, '=') == Some("short test summary info") {
            in_summary = true;
            sink.saw(TestFramework::Pytest, at);
            continue;
        }
        // `-x` (`--maxfail`) and `--sw` behind another tool, or in `pytest.ini`'s `addopts`,
        // where the check could not undo them.
        if line.starts_with("!!!") {
            let text = line.trim_matches(|c| c == '!' || c == ' ');
            if text.starts_with("stopping after ") || text.starts_with("Interrupted: Test failed") {
                sink.stopped(text);
            }
        }
        if let Some(counts) = pytest_counts(line) {
            in_summary = false;
            sink.saw(TestFramework::Pytest, at);
            let mut failed = false;
            for (_, outcome, n) in counts {
                if let Some(outcome) = outcome {
                    sink.count(outcome, n);
                    failed |=
                        n > 0 && matches!(outcome, TestOutcome::Failed | TestOutcome::Errored);
                }
            }
            if failed {
                sink.claim(TestFramework::Pytest, at, line.trim_matches('=').trim());
            }
            continue;
        }
        if !in_summary {
            continue;
        }
        // pytest 7.0 and 7.1 put an expected failure's reason on an indented line of its own,
        // and a failure's message goes on below its line (` +  where 5 = add(2, 3)`): every
        // summary line of a test starts with its outcome's word, never a space.
        if line.starts_with("SKIPPED [") || line.starts_with(' ') {
            continue;
        }
        let Some((outcome, node_id)) = pytest_summary_line(line) else {
            in_summary = false;
            continue;
        };
        node_ids.insert(pytest_mangle(node_id), node_id.to_owned());
        sink.test(node_id.to_owned(), outcome);
    }
    let Some(xml) = junit else {
        return;
    };
    let Some(cases) = junit_cases(xml) else {
        return;
    };
    sink.saw(TestFramework::Pytest, usize::MAX);
    for case in cases {
        let key = (case.classname, case.name);
        let id = match node_ids.get(&key) {
            Some(id) => id.clone(),
            None => pytest_node_id(&key.0, &key.1),
        };
        sink.test(id, case.outcome);
    }
}

/// The outcome and node id of a short test summary line such as
/// `FAILED tests/x.py::test_a - AssertionError: …`.
fn pytest_summary_line(line: &str) -> Option<(TestOutcome, &str)> {
    let (word, rest) = line.split_once(' ')?;
    let outcome = lookup(PYTEST_SUMMARY_WORDS, word)?;
    // A parametrized id may hold ` - ` inside its brackets, so the message starts only
    // after the closing bracket.
    let id_end = match (rest.find('['), rest.find(" - ")) {
        (Some(open), Some(dash)) if open < dash => rest[open..]
            .match_indices(']')
            .map(|(i, _)| open + i + 1)
            .find(|&end| rest[end..].is_empty() || rest[end..].starts_with(" - "))
            .unwrap_or(rest.len()),
        (_, Some(dash)) => dash,
        (_, None) => rest.len(),
    };
    let mut id = &rest[..id_end];
    // pytest 7 writes an unexpected pass's reason after a space, with no dash (and the space
    // alone when there is none).
    if outcome == TestOutcome::Xpassed && id.contains(' ') {
        id = before_space(id);
    }
    let plausible =
        !id.is_empty() && !id.contains(' ') && (id.contains("::") || id.ends_with(".py"));
    plausible.then_some((outcome, id))
}

/// `text` up to its first space outside a parametrized id's brackets.
fn before_space(text: &str) -> &str {
    let space = text.find(' ').unwrap_or(text.len());
    let end = match text.find('[') {
        Some(open) if open < space => text[open..]
            .match_indices(']')
            .map(|(i, _)| open + i + 1)
            .find(|&end| text[end..].is_empty() || text[end..].starts_with(' '))
            .unwrap_or(text.len()),
        _ => space,
    };
    &text[..end]
}

/// The counts of pytest's closing line, framed in `=` or bare (with `-q`).
fn pytest_counts(line: &str) -> Option<Vec<(&'static str, Option<TestOutcome>, usize)>> {
    let text = rule_title(line, '=').unwrap_or(line);
    let (counts, time) = text.rsplit_once(" in ")?;
    let seconds = time.split_once(' ').map_or(time, |(s, _)| s);
    let seconds = seconds.strip_suffix('s')?;
    if seconds.is_empty() || !seconds.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return None;
    }
    if counts == "no tests ran" {
        return Some(Vec::new());
    }
    word_counts(counts, ", ", PYTEST_COUNT_WORDS)
}

/// The JUnit `(classname, name)` pytest writes for `node_id`: the file's slashes become
/// dots and its `.py` goes, and every part but the last joins the class name.
fn pytest_mangle(node_id: &str) -> (String, String) {
    let (path, params) = match node_id.find('[') {
        Some(open) => node_id.split_at(open),
        None => (node_id, ""),
    };
    let mut names: Vec<String> = path.split("::").map(str::to_owned).collect();
    if let Some(file) = names.first_mut() {
        let dotted = file.replace('/', ".");
        *file = dotted.strip_suffix(".py").unwrap_or(&dotted).to_owned();
    }
    let mut name = names.pop().unwrap_or_default();
    name.push_str(params);
    (names.join("."), name)
}

/// A node id for a JUnit test the summary lines did not name: the class name's parts up to
/// the last that looks like a test module (`test_*`, `*_test`) make the file, or up to the
/// last not capitalised like a class.
fn pytest_node_id(classname: &str, name: &str) -> String {
    if classname.is_empty() {
        // A module that failed to collect, named by its dotted path.
        return format!("{}.py", name.replace('.', "/"));
    }
    let parts: Vec<&str> = classname.split('.').collect();
    let is_module = |p: &&str| p.starts_with("test_") || p.ends_with("_test");
    let is_class = |p: &&str| p.starts_with(|c: char| c.is_ascii_uppercase());
    let file_end = parts
        .iter()
        .rposition(is_module)
        .or_else(|| parts.iter().rposition(|p| !is_class(p)))
        .unwrap_or(0);
    let mut id = format!("{}.py", parts[..=file_end].join("/"));
    for class in &parts[file_end + 1..] {
        id.push_str("::");
        id.push_str(class);
    }
    id.push_str("::");
    id.push_str(name);
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::verdict::results::TestFramework::Pytest;
    use crate::verdict::results::TestOutcome::{
        Errored, Failed, Passed, Skipped, Xfailed, Xpassed,
    };
    use crate::verdict::results::tests::{case, report};
    use crate::verdict::results::tests::{keys, sorted};

    /// The tests of `tests/test_mixed.py`, one of each outcome, as every pytest version's
    /// sample of it reads.
    const MIXED: &[(&str, TestOutcome)] = &[
        ("tests/test_mixed.py::TestGroup::test_in_class", Passed),
        ("tests/test_mixed.py::TestGroup::test_param[1]", Passed),
        ("tests/test_mixed.py::TestGroup::test_param[2]", Failed),
        ("tests/test_mixed.py::test_error", Errored),
        ("tests/test_mixed.py::test_fail", Failed),
        ("tests/test_mixed.py::test_pass", Passed),
        ("tests/test_mixed.py::test_skip", Skipped),
        ("tests/test_mixed.py::test_xfail", Xfailed),
        ("tests/test_mixed.py::test_xpass", Xpassed),
    ];

    #[test]
    fn pytest_reads_its_junit_xml_and_summary_lines() {
        let expected = report(
            &[Pytest],
            MIXED,
            &[
                (Passed, 3),
                (Failed, 2),
                (Skipped, 1),
                (Xfailed, 1),
                (Xpassed, 1),
                (Errored, 1),
            ],
            &["2 failed, 3 passed, 1 skipped, 1 xfailed, 1 xpassed, 1 error in 0.04s"],
        );
        case(
            sample!("pytest-mixed.txt"),
            Some(sample!("pytest-junit-mixed.xml")),
            expected.clone(),
        );
        // Without the summary lines the XML alone names every test the same way, except
        // that it shows the unexpected pass as a pass.
        let mut xml_only = expected.clone();
        xml_only
            .tests
            .insert("tests/test_mixed.py::test_xpass".into(), Passed);
        xml_only.counts.clear();
        xml_only.failure_claims.clear();
        case("", Some(sample!("pytest-junit-mixed.xml")), xml_only);
        // Without the XML, the summary lines name every test but the skipped one.
        let mut text_only = expected;
        text_only.tests.remove("tests/test_mixed.py::test_skip");
        case(sample!("pytest-mixed.txt"), None, text_only);
    }

    /// A failure's message can go on below its summary line (measured with `pytest -q` and
    /// a failing `assert add(2, 3) == 6`): the lines after it still name their tests.
    #[test]
    fn pytest_summary_lines_after_a_message_that_goes_on_name_their_tests() {
        let output =
            "=========================== short test summary info ============================
FAILED tests/test_add.py::test_small - assert 5 == 6
 +  where 5 = add(2, 3)
FAILED tests/test_add.py::test_negative - assert -3 == -4
 +  where -3 = add(-4, 1)
FAILED tests/test_add.py::test_sum - assert 9 == 8
3 failed in 0.02s
";
        case(
            output,
            None,
            report(
                &[Pytest],
                &[
                    ("tests/test_add.py::test_negative", Failed),
                    ("tests/test_add.py::test_small", Failed),
                    ("tests/test_add.py::test_sum", Failed),
                ],
                &[(Failed, 3)],
                &["3 failed in 0.02s"],
            ),
        );
    }

    #[test]
    fn pytest_reads_its_default_output_and_collection_errors() {
        case(
            sample!("pytest-default-fail.txt"),
            None,
            report(
                &[Pytest],
                &[
                    ("tests/test_mixed.py::TestGroup::test_param[2]", Failed),
                    ("tests/test_mixed.py::test_error", Errored),
                    ("tests/test_mixed.py::test_fail", Failed),
                ],
                &[
                    (Passed, 3),
                    (Failed, 2),
                    (Skipped, 1),
                    (Xfailed, 1),
                    (Xpassed, 1),
                    (Errored, 1),
                ],
                &["2 failed, 3 passed, 1 skipped, 1 xfailed, 1 xpassed, 1 error in 0.05s"],
            ),
        );
        let collect_error = report(
            &[Pytest],
            &[("tests/test_broken_import.py", Errored)],
            &[(Errored, 1)],
            &["1 error in 0.49s"],
        );
        case(
            sample!("pytest-collect-error.txt"),
            Some(sample!("pytest-junit-collect-error.xml")),
            collect_error.clone(),
        );
        case(sample!("pytest-collect-error.txt"), None, collect_error);
        case(
            sample!("pytest-deselected-pass.txt"),
            None,
            report(&[Pytest], &[], &[(Passed, 2), (Xpassed, 1)], &[]),
        );
    }

    #[test]
    fn pytest_node_ids_come_back_from_junit_names() {
        #[track_caller]
        fn id(classname: &str, name: &str, expected: &str) {
            assert_eq!(pytest_node_id(classname, name), expected);
            assert_eq!(
                pytest_mangle(expected),
                (classname.to_owned(), name.to_owned())
            );
        }
        id("tests.test_x", "test_a", "tests/test_x.py::test_a");
        id(
            "tests.test_x.TestA.TestB",
            "test_b[1.5-x]",
            "tests/test_x.py::TestA::TestB::test_b[1.5-x]",
        );
        id("pkg.calc_test", "test_c", "pkg/calc_test.py::test_c");
        id("checks.TestThing", "test_d", "checks.py::TestThing::test_d");
        id("", "tests.test_broken", "tests/test_broken.py");
    }

    #[test]
    fn pytest_reads_every_major_version() {
        // pytest 7, 8 and 9 on the same two files, with `-rA` and `--junitxml`.
        let samples = [
            (
                sample!("pytest-7.4.4-rA-mixed.txt"),
                sample!("pytest-7.4.4-junit-mixed.xml"),
                "0.04s",
            ),
            (
                sample!("pytest-8.4.2-rA-mixed.txt"),
                sample!("pytest-8.4.2-junit-mixed.xml"),
                "0.05s",
            ),
            (
                sample!("pytest-9.2.0-rA-mixed.txt"),
                sample!("pytest-9.2.0-junit-mixed.xml"),
                "0.05s",
            ),
        ];
        let tests = [
            ("tests/test_calc.py::test_adds", Passed),
            ("tests/test_calc.py::test_fails", Failed),
            ("tests/test_calc.py::test_skipped", Skipped),
            ("tests/test_other.py::test_other", Passed),
        ];
        for (output, xml, time) in samples {
            let claim = format!("1 failed, 2 passed, 1 skipped in {time}");
            let counts = [(Passed, 2), (Failed, 1), (Skipped, 1)];
            case(
                output,
                Some(xml),
                report(&[Pytest], &tests, &counts, &[&claim]),
            );
            // The XML alone names the same tests; the lines alone all but the skipped one.
            case("", Some(xml), report(&[Pytest], &tests, &[], &[]));
            let named: Vec<_> = tests
                .iter()
                .copied()
                .filter(|(_, o)| *o != Skipped)
                .collect();
            case(output, None, report(&[Pytest], &named, &counts, &[&claim]));
        }
    }

    #[test]
    fn pytest_7_summary_lines_are_read_too() {
        // The sample of `pytest_reads_its_junit_xml_and_summary_lines` (pytest 9.2.0) under
        // pytest 7.0 (an expected failure's reason on a line of its own), 7.4 (an unexpected
        // pass's reason after a bare space) and 8.4, with their XML and without.
        let tests = MIXED;
        let counts = [
            (Passed, 3),
            (Failed, 2),
            (Skipped, 1),
            (Xfailed, 1),
            (Xpassed, 1),
            (Errored, 1),
        ];
        for (output, xml, time) in [
            (
                sample!("pytest-7.0.1-rA-full.txt"),
                sample!("pytest-7.0.1-junit-full.xml"),
                "0.09s",
            ),
            (
                sample!("pytest-7.4.4-rA-full.txt"),
                sample!("pytest-7.4.4-junit-full.xml"),
                "0.07s",
            ),
            (
                sample!("pytest-8.4.2-rA-full.txt"),
                sample!("pytest-8.4.2-junit-full.xml"),
                "0.11s",
            ),
        ] {
            let claim =
                format!("2 failed, 3 passed, 1 skipped, 1 xfailed, 1 xpassed, 1 error in {time}");
            let expected = report(&[Pytest], tests, &counts, &[&claim]);
            case(output, Some(xml), expected.clone());
            let mut text_only = expected;
            text_only.tests.remove("tests/test_mixed.py::test_skip");
            case(output, None, text_only);
        }
        // pytest 7's unexpected pass with no reason, and with a parametrized id.
        for (line, id) in [
            ("XPASS tests/x.py::test_x ", "tests/x.py::test_x"),
            ("XPASS tests/x.py::test_p[a] fixed", "tests/x.py::test_p[a]"),
        ] {
            assert_eq!(pytest_summary_line(line), Some((Xpassed, id)));
        }
    }

    #[test]
    fn tables_are_sorted() {
        sorted("PYTEST_SUMMARY_WORDS", keys(PYTEST_SUMMARY_WORDS));
        sorted("PYTEST_COUNT_WORDS", keys(PYTEST_COUNT_WORDS));
    }
}
