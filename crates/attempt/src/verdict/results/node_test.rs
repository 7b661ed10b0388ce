//! `node --test`: the TAP node's test runner prints when not on a terminal.

use std::borrow::Cow;

use super::report::{Sink, TestFramework, TestOutcome, indent, lookup, number};

/// The keys of the TAP summary node prints after its plan (`# pass 6`), with the outcome
/// each counts; a todo test neither passes nor fails there, so it counts as skipped.
const TAP_COUNTS: &[(&str, Option<TestOutcome>)] = &[
    ("cancelled", Some(TestOutcome::Errored)),
    ("duration_ms", None),
    ("fail", Some(TestOutcome::Failed)),
    ("pass", Some(TestOutcome::Passed)),
    ("skipped", Some(TestOutcome::Skipped)),
    ("suites", None),
    ("tests", None),
    ("todo", Some(TestOutcome::Skipped)),
];

/// Reads the TAP node's test runner prints when not on a terminal: `ok 1 - name` and
/// `not ok 2 - name # SKIP`, nested four spaces a level under `# Subtest: parent`, and the
/// `# tests N` summary after the closing plan.
///
/// A `# TODO` test that fails is an expected failure and one that passes an unexpected
/// pass. What the tests print reaches the TAP as `# ` comments with their `#` escaped, and
/// the YAML block under each result is skipped, so neither can pass for a result.
pub(super) fn read_node_test(lines: &[Cow<'_, str>], sink: &mut Sink) {
    let mut active = false;
    let mut path: Vec<String> = Vec::new();
    let mut yaml: Option<usize> = None;
    let mut summary = false;
    for (at, line) in lines.iter().enumerate() {
        let line: &str = line;
        if line.starts_with("TAP version ") {
            active = true;
            path.clear();
            yaml = None;
            summary = false;
            sink.saw(TestFramework::NodeTest, at);
            continue;
        }
        if !active {
            continue;
        }
        let depth_spaces = indent(line);
        let body = &line[depth_spaces..];
        if in_yaml(&mut yaml, depth_spaces, body) {
            continue;
        }
        if body == "---" && depth_spaces % 4 == 2 {
            yaml = Some(depth_spaces);
            continue;
        }
        if !depth_spaces.is_multiple_of(4) {
            continue;
        }
        let depth = depth_spaces / 4;
        if summary {
            if depth == 0 && read_summary_line(body, at, sink) {
                continue;
            }
            // The summary is the last thing node prints.
            active = false;
            summary = false;
            continue;
        }
        if let Some(name) = body.strip_prefix("# Subtest: ") {
            path.truncate(depth);
            path.resize(depth, String::new());
            path.push(tap_unescape(name));
            continue;
        }
        if depth == 0 && tap_plan(body) {
            summary = true;
            continue;
        }
        let Some((ok, title)) = tap_result(body) else {
            continue;
        };
        let (name, outcome) = tap_outcome(ok, title);
        let mut id = String::new();
        for parent in path.iter().take(depth) {
            id.push_str(parent);
            id.push_str(" > ");
        }
        id.push_str(&tap_unescape(name));
        sink.saw(TestFramework::NodeTest, at);
        sink.test(id, outcome);
    }
}

/// Whether the line (`spaces` of indent, then `body`) is in the YAML block that opened at
/// `yaml`; a line past the block closes it. A YAML block is as indented as its `---` or
/// more, and ends with `...` there.
fn in_yaml(yaml: &mut Option<usize>, spaces: usize, body: &str) -> bool {
    if let Some(block) = *yaml {
        if spaces == block && body == "..." {
            *yaml = None;
            return true;
        }
        if body.is_empty() || spaces >= block {
            return true;
        }
        *yaml = None;
    }
    false
}

/// Reads a line of the summary after the closing plan (`# pass 6`, line `at`, unindented);
/// a failure or cancellation counted is a claim that the run failed. Returns whether it
/// was a summary line.
fn read_summary_line(body: &str, at: usize, sink: &mut Sink) -> bool {
    let Some((key, value)) = body.strip_prefix("# ").and_then(|b| b.split_once(' ')) else {
        return false;
    };
    let Some(outcome) = lookup(TAP_COUNTS, key) else {
        return false;
    };
    if let (Some(outcome), Some(n)) = (outcome, number(value)) {
        sink.count(outcome, n);
        if n > 0 && matches!(outcome, TestOutcome::Failed | TestOutcome::Errored) {
            sink.claim(TestFramework::NodeTest, at, body);
        }
    }
    true
}

/// The name and outcome of a TAP result's `title` (`ok` when it passed): a `# SKIP` is
/// skipped, a `# TODO` an expected failure or an unexpected pass.
fn tap_outcome(ok: bool, title: &str) -> (&str, TestOutcome) {
    let (name, directive) = match title.split_once(" # ") {
        Some((name, directive)) => (name, Some(directive)),
        None => (title, None),
    };
    let word = directive.map(|d| d.split(' ').next().unwrap_or(d).to_ascii_uppercase());
    let outcome = match (ok, word.as_deref()) {
        (_, Some("SKIP")) => TestOutcome::Skipped,
        (true, Some("TODO")) => TestOutcome::Xpassed,
        (false, Some("TODO")) => TestOutcome::Xfailed,
        (true, _) => TestOutcome::Passed,
        (false, _) => TestOutcome::Failed,
    };
    (name, outcome)
}

/// Whether `text` is a TAP plan, `1..N`.
fn tap_plan(text: &str) -> bool {
    text.strip_prefix("1..").and_then(number).is_some()
}

/// Whether a TAP result passed, and its title: `ok 1 - name` or `not ok 2 - name # SKIP`.
fn tap_result(text: &str) -> Option<(bool, &str)> {
    let (ok, rest) = match text.strip_prefix("not ok ") {
        Some(rest) => (false, rest),
        None => (true, text.strip_prefix("ok ")?),
    };
    let (n, title) = rest.split_once(" - ")?;
    number(n)?;
    Some((ok, title))
}

/// A TAP name with node's escapes of `\` and `#` undone.
fn tap_unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match (c, chars.clone().next()) {
            ('\\', Some(next @ ('\\' | '#'))) => {
                out.push(next);
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::verdict::results::TestFramework::NodeTest;
    use crate::verdict::results::TestOutcome::{Failed, Passed, Skipped, Xfailed, Xpassed};
    use crate::verdict::results::TestReport;
    use crate::verdict::results::tests::{case, report};
    use crate::verdict::results::tests::{keys, sorted};

    #[test]
    fn node_test_reads_nested_tap() {
        case(
            sample!("node-tap-mixed.txt"),
            None,
            report(
                &[NodeTest],
                &[
                    ("/tmp/rs-scratch/nt/test/broken.test.js", Failed),
                    ("adds", Passed),
                    ("fails", Failed),
                    ("fine", Passed),
                    ("later", Skipped),
                    ("name with # hash", Passed),
                    ("parent", Failed),
                    ("parent > child fails", Failed),
                    ("parent > child ok", Passed),
                    ("skipped", Skipped),
                    ("suite", Passed),
                    ("suite > in suite", Passed),
                    ("suite > nested", Passed),
                    ("suite > nested > deep", Passed),
                    ("todo failing", Xfailed),
                    ("todo passing", Xpassed),
                ],
                &[(Passed, 6), (Failed, 4), (Skipped, 4)],
                &["# fail 4"],
            ),
        );
        case(
            sample!("node-tap-skip.txt"),
            None,
            report(
                &[NodeTest],
                &[("fine", Passed), ("later", Skipped)],
                &[(Passed, 1), (Skipped, 1)],
                &[],
            ),
        );
        // What a test prints is a comment with its `#` escaped, never a result.
        case(
            sample!("node-tap-escape.txt"),
            None,
            report(
                &[NodeTest],
                &[
                    ("back\\slash and\\nnewline # and ok 1 - x", Passed),
                    ("prints", Passed),
                ],
                &[(Passed, 2)],
                &[],
            ),
        );
    }

    #[test]
    fn node_test_reads_its_tap_as_installed() {
        // node 20 (installed) and 22 print TAP into a pipe; a suite is reported as a test.
        for output in [
            sample!("node-20.20.2-test-mixed.txt"),
            sample!("node-22.23.5-test-mixed.txt"),
        ] {
            case(
                output,
                None,
                report(
                    &[NodeTest],
                    &[
                        ("Calc", Failed),
                        ("Calc > adds", Passed),
                        ("Calc > fails", Failed),
                        ("Calc > is skipped", Skipped),
                        ("other works", Passed),
                    ],
                    &[(Passed, 2), (Failed, 1), (Skipped, 1)],
                    &["# fail 1"],
                ),
            );
        }
        // node 24 prints its `spec` reporter into a pipe too, which is not read: such a
        // check is judged by its exit code.
        case(
            sample!("node-24.22.3-test-spec-mixed.txt"),
            None,
            TestReport::default(),
        );
    }

    #[test]
    fn tables_are_sorted() {
        sorted("TAP_COUNTS", keys(TAP_COUNTS));
    }
}
