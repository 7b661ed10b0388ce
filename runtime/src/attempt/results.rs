//! Per-test results: what a check's output says about each test it ran, for the runners
//! invariant 9 of `spec/verdict.md` recognises (pytest, unittest, libtest, node's test
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

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// How one test ended, as its runner reported it.
///
/// Public because the attempt's public `TestSummary` counts tests by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TestOutcome {
    /// It ran and passed.
    Passed,
    /// It ran and an assertion failed.
    Failed,
    /// It did not run: skipped, ignored, pending or todo.
    Skipped,
    /// It failed, as it was marked to.
    Xfailed,
    /// It passed, though marked to fail.
    Xpassed,
    /// It could not run to an assertion: an error in setup, a hook, or the module's import.
    Errored,
}

impl TestOutcome {
    /// How bad the outcome is: a test reported twice keeps its worse report.
    ///
    /// A test is reported twice when two sources name it (pytest's XML and its summary
    /// lines; unittest's verbose line and its failure block) or when a subtest's failure is
    /// read as its parent's. pytest's XML shows an unexpected pass as a plain pass, so the
    /// summary line's `XPASS` has to win over it.
    fn severity(self) -> u8 {
        match self {
            TestOutcome::Passed => 0,
            TestOutcome::Xfailed => 1,
            TestOutcome::Skipped => 2,
            TestOutcome::Xpassed => 3,
            TestOutcome::Failed => 4,
            TestOutcome::Errored => 5,
        }
    }
}

/// The runners recognised.
///
/// Public because the attempt's public `TestSummary` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TestRunner {
    /// pytest, from its summary lines and JUnit XML.
    Pytest,
    /// Python's `unittest`.
    Unittest,
    /// Rust's libtest, as `cargo test` runs it.
    Libtest,
    /// `node --test`.
    NodeTest,
    /// mocha.
    Mocha,
    /// jest.
    Jest,
    /// vitest.
    Vitest,
    /// `go test`.
    GoTest,
}

/// What a check's output says about its tests.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub(crate) struct TestReport {
    /// Every runner whose output was recognised, in the order its output first appears (a
    /// check may run several: `make test` running pytest then cargo).
    pub(crate) runners: Vec<TestRunner>,
    /// Each test by a stable id, with its outcome; a test named twice keeps its worse
    /// outcome. pytest: the node id `file::Class::name`; unittest: `module.Class.test_x`;
    /// libtest: the name, prefixed by the test binary's source when cargo names it
    /// (`tests/sub.rs::it_works`); node: the subtest path `parent > name`; mocha: the title
    /// path; jest and vitest: the file and title path (`test/a.test.js > Calc > adds`); go:
    /// `pkg/TestX`, or `TestX` when no package line follows. Tests that only appear in
    /// counts are not here.
    pub(crate) tests: BTreeMap<String, TestOutcome>,
    /// The summary counts the runners printed, summed over runners: the only word on tests
    /// from runners that print only counts (unittest without `-v`, vitest's passing files,
    /// `go test` without `-v` prints none). Tests a runner names are counted here as well,
    /// when it prints a summary; deselected and filtered-out tests are not counted, and
    /// todo tests count as skipped.
    pub(crate) counts: BTreeMap<TestOutcome, usize>,
    /// Lines where the output itself says the run failed, the first few in output order,
    /// for the digest: a check whose exit code is 0 but whose output says this has failed.
    pub(crate) failure_claims: Vec<String>,
}

/// The most tests a report keeps; more are dropped, so a runaway output stays bounded.
pub(crate) const MAX_TESTS: usize = 100_000;

/// Lines longer than this are nobody's result line, so they are skipped unread.
const MAX_LINE: usize = 64 * 1024;

/// The most failure claims a report keeps, and the most each runner contributes.
const MAX_CLAIMS: usize = 8;

/// The most characters kept of one failure claim.
const MAX_CLAIM_CHARS: usize = 200;

/// Reads a check's merged output (and the JUnit XML pytest wrote, when there is one).
pub(crate) fn read(output: &str, junit: Option<&str>) -> TestReport {
    let lines = clean_lines(output);
    let mut sink = Sink::default();
    read_pytest(&lines, junit, &mut sink);
    read_unittest(&lines, &mut sink);
    read_libtest(&lines, &mut sink);
    read_node_test(&lines, &mut sink);
    read_mocha(&lines, &mut sink);
    read_jest(&lines, &mut sink);
    read_vitest(&lines, &mut sink);
    read_go_test(&lines, &mut sink);
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

/// Collects what the readers find, keeping every bound.
#[derive(Debug, Default)]
struct Sink {
    /// The tests found so far.
    tests: BTreeMap<String, TestOutcome>,
    /// The summary counts found so far.
    counts: BTreeMap<TestOutcome, usize>,
    /// Each runner recognised, with the first line it was recognised on.
    runners: Vec<(usize, TestRunner)>,
    /// Each failure claim with its line and runner.
    claims: Vec<(usize, TestRunner, String)>,
}

impl Sink {
    /// Notes that `runner`'s output appears at line `at`.
    fn saw(&mut self, runner: TestRunner, at: usize) {
        match self.runners.iter_mut().find(|(_, r)| *r == runner) {
            Some(entry) => entry.0 = entry.0.min(at),
            None => self.runners.push((at, runner)),
        }
    }

    /// Records one test, keeping the worse outcome of a test already recorded.
    fn test(&mut self, id: String, outcome: TestOutcome) {
        if let Some(old) = self.tests.get_mut(&id) {
            if outcome.severity() > old.severity() {
                *old = outcome;
            }
        } else if self.tests.len() < MAX_TESTS {
            self.tests.insert(id, outcome);
        }
    }

    /// Adds `n` to the count of `outcome`.
    fn count(&mut self, outcome: TestOutcome, n: usize) {
        let total = self.counts.entry(outcome).or_default();
        *total = total.saturating_add(n);
    }

    /// Records line `at`, `text`, as `runner`'s claim that the run failed.
    fn claim(&mut self, runner: TestRunner, at: usize, text: &str) {
        let own = self.claims.iter().filter(|(_, r, _)| *r == runner).count();
        if own < MAX_CLAIMS {
            let text: String = text.trim().chars().take(MAX_CLAIM_CHARS).collect();
            self.claims.push((at, runner, text));
        }
    }

    /// The report, runners and claims in output order.
    fn finish(mut self) -> TestReport {
        self.runners.sort_by_key(|(at, _)| *at);
        self.claims.sort_by_key(|(at, _, _)| *at);
        TestReport {
            runners: self.runners.into_iter().map(|(_, r)| r).collect(),
            tests: self.tests,
            counts: self.counts.into_iter().filter(|(_, n)| *n > 0).collect(),
            failure_claims: self
                .claims
                .into_iter()
                .take(MAX_CLAIMS)
                .map(|(_, _, text)| text)
                .collect(),
        }
    }
}

/// Looks `key` up in a sorted table of pairs.
fn lookup<T: Copy>(table: &[(&str, T)], key: &str) -> Option<T> {
    table
        .binary_search_by(|(k, _)| k.cmp(&key))
        .ok()
        .map(|i| table[i].1)
}

/// `text` as a count, when it is all ASCII digits.
fn number(text: &str) -> Option<usize> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// Reads a list of `N word` counts split by `sep`, each word looked up in `table`; `None`
/// when a part has another shape. Words the table maps to `None` are known but counted
/// nowhere.
fn word_counts(
    text: &str,
    sep: &str,
    table: &[(&'static str, Option<TestOutcome>)],
) -> Option<Vec<(&'static str, Option<TestOutcome>, usize)>> {
    let mut found = Vec::new();
    for part in text.split(sep) {
        let (n, word) = part.trim().split_once(' ')?;
        let n = number(n)?;
        let i = table.binary_search_by(|(k, _)| k.cmp(&word)).ok()?;
        found.push((table[i].0, table[i].1, n));
    }
    Some(found)
}

/// The number of leading spaces of `line`.
fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// The title of a rule line such as `===== short test summary info =====`, made of `ch`.
fn rule_title(line: &str, ch: char) -> Option<&str> {
    let inner = line.strip_prefix(ch)?.strip_suffix(ch)?;
    Some(inner.trim_matches(ch).trim())
}

// ---- pytest ----------------------------------------------------------------------------

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
fn read_pytest(lines: &[Cow<'_, str>], junit: Option<&str>, sink: &mut Sink) {
    let mut node_ids: BTreeMap<(String, String), String> = BTreeMap::new();
    let mut in_summary = false;
    for (at, line) in lines.iter().enumerate() {
        if rule_title(line, '=') == Some("short test summary info") {
            in_summary = true;
            sink.saw(TestRunner::Pytest, at);
            continue;
        }
        if let Some(counts) = pytest_counts(line) {
            in_summary = false;
            sink.saw(TestRunner::Pytest, at);
            let mut failed = false;
            for (_, outcome, n) in counts {
                if let Some(outcome) = outcome {
                    sink.count(outcome, n);
                    failed |=
                        n > 0 && matches!(outcome, TestOutcome::Failed | TestOutcome::Errored);
                }
            }
            if failed {
                sink.claim(TestRunner::Pytest, at, line.trim_matches('=').trim());
            }
            continue;
        }
        if !in_summary {
            continue;
        }
        if line.starts_with("SKIPPED [") {
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
    sink.saw(TestRunner::Pytest, usize::MAX);
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
    let id = &rest[..id_end];
    let plausible =
        !id.is_empty() && !id.contains(' ') && (id.contains("::") || id.ends_with(".py"));
    plausible.then_some((outcome, id))
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

// ---- JUnit XML -------------------------------------------------------------------------

/// One `<testcase>` of a JUnit report.
#[derive(Debug, Clone, PartialEq, Eq)]
struct JunitCase {
    /// The `classname` attribute.
    classname: String,
    /// The `name` attribute.
    name: String,
    /// What its `<failure>`, `<error>` and `<skipped>` children say, worst first.
    outcome: TestOutcome,
}

/// The XML entities a JUnit report uses, with the text each stands for.
const XML_ENTITIES: &[(&str, char)] = &[
    ("amp", '&'),
    ("apos", '\''),
    ("gt", '>'),
    ("lt", '<'),
    ("quot", '"'),
];

/// The test cases of a JUnit report, at most `MAX_TESTS`; `None` when it has no
/// `<testsuite>` or `<testcase>` at all.
///
/// A small reader of the elements a JUnit report is made of, in one pass: comments, CDATA,
/// processing instructions and text are skipped, and only the tags and attributes that
/// carry outcomes are looked at.
fn junit_cases(xml: &str) -> Option<Vec<JunitCase>> {
    let mut seen = false;
    let mut cases = Vec::new();
    let mut current: Option<JunitCase> = None;
    let mut rest = xml;
    while let Some(open) = rest.find('<') {
        rest = &rest[open..];
        if let Some(after) = rest.strip_prefix("<!--") {
            rest = skip_past(after, "-->");
        } else if let Some(after) = rest.strip_prefix("<![CDATA[") {
            rest = skip_past(after, "]]>");
        } else if let Some(after) = rest.strip_prefix("<?") {
            rest = skip_past(after, "?>");
        } else if let Some(after) = rest.strip_prefix("<!") {
            rest = skip_past(after, ">");
        } else if let Some(after) = rest.strip_prefix("</") {
            let (name, after) = tag_name(after);
            rest = skip_past(after, ">");
            if name == "testcase" {
                cases.extend(current.take());
            }
        } else {
            let tag = start_tag(&rest[1..]);
            rest = tag.rest;
            match tag.name {
                "testsuite" | "testsuites" => seen = true,
                "testcase" => {
                    seen = true;
                    cases.extend(current.take());
                    let case = JunitCase {
                        classname: tag.attribute("classname").unwrap_or_default(),
                        name: tag.attribute("name").unwrap_or_default(),
                        outcome: TestOutcome::Passed,
                    };
                    if tag.self_closing {
                        cases.push(case);
                    } else {
                        current = Some(case);
                    }
                }
                "error" | "failure" | "skipped" => {
                    if let Some(case) = current.as_mut() {
                        let outcome = match tag.name {
                            "error" => TestOutcome::Errored,
                            "failure" => TestOutcome::Failed,
                            _ if tag.attribute("type").as_deref() == Some("pytest.xfail") => {
                                TestOutcome::Xfailed
                            }
                            _ => TestOutcome::Skipped,
                        };
                        if outcome.severity() > case.outcome.severity() {
                            case.outcome = outcome;
                        }
                    }
                }
                _ => {}
            }
        }
        if cases.len() >= MAX_TESTS {
            cases.truncate(MAX_TESTS);
            return Some(cases);
        }
    }
    cases.extend(current);
    seen.then_some(cases)
}

/// `text` after the first `end`, or nothing when `end` never comes.
fn skip_past<'a>(text: &'a str, end: &str) -> &'a str {
    text.find(end).map_or("", |i| &text[i + end.len()..])
}

/// The tag name at the start of `text`, and the text after it.
fn tag_name(text: &str) -> (&str, &str) {
    let end = text
        .find(|c: char| c.is_whitespace() || c == '/' || c == '>')
        .unwrap_or(text.len());
    text.split_at(end)
}

/// A start tag, read from after its `<`.
#[derive(Debug)]
struct StartTag<'a> {
    /// The element's name.
    name: &'a str,
    /// Its attributes as written, values still escaped.
    attributes: Vec<(&'a str, &'a str)>,
    /// Whether it ended with `/>`.
    self_closing: bool,
    /// The text after the tag.
    rest: &'a str,
}

impl StartTag<'_> {
    /// The unescaped value of attribute `key`.
    fn attribute(&self, key: &str) -> Option<String> {
        self.attributes
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| xml_unescape(v))
    }
}

/// Reads a start tag from after its `<`; a malformed one reads as far as its `>`.
fn start_tag(text: &str) -> StartTag<'_> {
    let (name, mut rest) = tag_name(text);
    let mut attributes = Vec::new();
    loop {
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix("/>") {
            return StartTag {
                name,
                attributes,
                self_closing: true,
                rest: after,
            };
        }
        if let Some(after) = rest.strip_prefix('>') {
            return StartTag {
                name,
                attributes,
                self_closing: false,
                rest: after,
            };
        }
        let key_end = rest
            .find(|c: char| c == '=' || c.is_whitespace() || c == '>' || c == '/')
            .unwrap_or(rest.len());
        let (key, after) = rest.split_at(key_end);
        let after = after.trim_start();
        let quoted = after
            .strip_prefix('=')
            .map(str::trim_start)
            .and_then(|value| {
                let quote = value.chars().next().filter(|q| *q == '"' || *q == '\'')?;
                let value = &value[1..];
                let end = value.find(quote)?;
                Some((&value[..end], &value[end + 1..]))
            });
        match quoted {
            Some((value, after)) if !key.is_empty() => {
                attributes.push((key, value));
                rest = after;
            }
            _ => {
                let self_closing = rest.find('>').is_some_and(|i| rest[..i].ends_with('/'));
                return StartTag {
                    name,
                    attributes,
                    self_closing,
                    rest: skip_past(rest, ">"),
                };
            }
        }
    }
}

/// `text` with XML's character and entity references replaced; unknown ones stay as
/// written.
fn xml_unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let decoded = rest.get(1..).and_then(|after| {
            // No reference is longer than a few characters, so the search stays short.
            let semi = after.bytes().take(12).position(|b| b == b';')?;
            let name = &after[..semi];
            let c = if let Some(hex) = name.strip_prefix("#x").or_else(|| name.strip_prefix("#X")) {
                char::from_u32(u32::from_str_radix(hex, 16).ok()?)?
            } else if let Some(decimal) = name.strip_prefix('#') {
                char::from_u32(decimal.parse().ok()?)?
            } else {
                lookup(XML_ENTITIES, name)?
            };
            Some((c, semi + 2))
        });
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

// ---- unittest --------------------------------------------------------------------------

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
fn read_unittest(lines: &[Cow<'_, str>], sink: &mut Sink) {
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
            sink.saw(TestRunner::Unittest, at);
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
            sink.saw(TestRunner::Unittest, at);
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
                    sink.saw(TestRunner::Unittest, at);
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
        sink.saw(TestRunner::Unittest, at);
        sink.claim(TestRunner::Unittest, at, line);
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
    sink.saw(TestRunner::Unittest, at);
    if let Some(total) = total {
        let others: usize = counted.iter().map(|(_, n)| n).sum();
        sink.count(TestOutcome::Passed, total.saturating_sub(others));
    }
    for (outcome, n) in counted {
        sink.count(outcome, n);
    }
    if word == "FAILED" {
        sink.claim(TestRunner::Unittest, at, line);
    }
    true
}

// ---- libtest ---------------------------------------------------------------------------

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
/// tests then share ids, and the worse outcome is kept.
fn read_libtest(lines: &[Cow<'_, str>], sink: &mut Sink) {
    let mut binary: Option<String> = None;
    let mut running = false;
    for (at, line) in lines.iter().enumerate() {
        let line: &str = line;
        // cargo right-aligns its status words in twelve columns.
        if let Some(rest) = line.strip_prefix("     Running ") {
            binary = Some(libtest_binary(rest));
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
                sink.saw(TestRunner::Libtest, at);
            }
            continue;
        }
        if !running {
            continue;
        }
        if let Some(rest) = line.strip_prefix("test result: ") {
            running = false;
            let (status, counts) = rest.split_once(". ").unwrap_or((rest, ""));
            let counts = counts.split("; finished in").next().unwrap_or(counts);
            for (_, outcome, n) in word_counts(counts, "; ", LIBTEST_COUNTS).unwrap_or_default() {
                if let Some(outcome) = outcome {
                    sink.count(outcome, n);
                }
            }
            if status == "FAILED" {
                sink.claim(TestRunner::Libtest, at, line);
            }
            continue;
        }
        let Some((name, result)) = line
            .strip_prefix("test ")
            .and_then(|r| r.rsplit_once(" ... "))
        else {
            continue;
        };
        let outcome = if result.starts_with("ignored, ") {
            TestOutcome::Skipped
        } else if let Some(outcome) = lookup(LIBTEST_RESULTS, result) {
            outcome
        } else {
            continue;
        };
        let name = name.strip_suffix(" - should panic").unwrap_or(name);
        let id = match &binary {
            Some(binary) => format!("{binary}::{name}"),
            None => name.to_owned(),
        };
        sink.test(id, outcome);
    }
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

// ---- node --test -----------------------------------------------------------------------

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
fn read_node_test(lines: &[Cow<'_, str>], sink: &mut Sink) {
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
            sink.saw(TestRunner::NodeTest, at);
            continue;
        }
        if !active {
            continue;
        }
        let depth_spaces = indent(line);
        let body = &line[depth_spaces..];
        // A YAML block is as indented as its `---` or more, and ends with `...` there.
        if let Some(block) = yaml {
            if depth_spaces == block && body == "..." {
                yaml = None;
                continue;
            }
            if body.is_empty() || depth_spaces >= block {
                continue;
            }
            yaml = None;
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
            if depth == 0
                && let Some((key, value)) = body.strip_prefix("# ").and_then(|b| b.split_once(' '))
                && let Some(outcome) = lookup(TAP_COUNTS, key)
            {
                if let (Some(outcome), Some(n)) = (outcome, number(value)) {
                    sink.count(outcome, n);
                    if n > 0 && matches!(outcome, TestOutcome::Failed | TestOutcome::Errored) {
                        sink.claim(TestRunner::NodeTest, at, body);
                    }
                }
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
        let mut id = String::new();
        for parent in path.iter().take(depth) {
            id.push_str(parent);
            id.push_str(" > ");
        }
        id.push_str(&tap_unescape(name));
        sink.saw(TestRunner::NodeTest, at);
        sink.test(id, outcome);
    }
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

// ---- mocha -----------------------------------------------------------------------------

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
fn read_mocha(lines: &[Cow<'_, str>], sink: &mut Sink) {
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

/// `title` without a trailing duration such as ` (61ms)`: `open`, digits (and a dot),
/// then `close`.
fn strip_duration<'a>(title: &'a str, close: &str, open: &str) -> &'a str {
    let Some(rest) = title.strip_suffix(close) else {
        return title;
    };
    let Some((head, digits)) = rest.rsplit_once(open) else {
        return title;
    };
    let digits = digits.trim_end();
    let timed = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit() || b == b'.');
    if timed { head } else { title }
}

// ---- jest ------------------------------------------------------------------------------

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
fn read_jest(lines: &[Cow<'_, str>], sink: &mut Sink) {
    let mut file: Option<String> = None;
    let mut in_tree = false;
    let mut suites: Vec<String> = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        let line: &str = line;
        if let Some(path) = jest_file(line) {
            sink.saw(TestRunner::Jest, at);
            file = Some(path.to_owned());
            in_tree = true;
            suites.clear();
            continue;
        }
        if let Some(counts) = line.strip_prefix("Tests:") {
            let Some(counts) = word_counts(counts.trim(), ", ", JEST_COUNTS) else {
                continue;
            };
            sink.saw(TestRunner::Jest, at);
            let mut failed = false;
            for (_, outcome, n) in counts {
                if let Some(outcome) = outcome {
                    sink.count(outcome, n);
                    failed |= n > 0 && outcome == TestOutcome::Failed;
                }
            }
            if failed {
                sink.claim(TestRunner::Jest, at, line);
            }
            file = None;
            continue;
        }
        if let Some(counts) = line.strip_prefix("Test Suites:") {
            if let Some(counts) = word_counts(counts.trim(), ", ", JEST_COUNTS) {
                sink.saw(TestRunner::Jest, at);
                if counts
                    .iter()
                    .any(|(word, _, n)| *word == "failed" && *n > 0)
                {
                    sink.claim(TestRunner::Jest, at, line);
                }
            }
            continue;
        }
        let Some(file) = &file else {
            continue;
        };
        if let Some(title) = line.strip_prefix("  ● ") {
            in_tree = false;
            match title {
                "Console" => {}
                "Test suite failed to run" => sink.test(file.clone(), TestOutcome::Errored),
                _ => sink.test(
                    format!("{file} > {}", title.replace(" › ", " > ")),
                    TestOutcome::Failed,
                ),
            }
            continue;
        }
        if !in_tree {
            continue;
        }
        if line.is_empty() {
            in_tree = false;
            continue;
        }
        let spaces = indent(line);
        if spaces < 2 || !spaces.is_multiple_of(2) {
            continue;
        }
        let level = spaces / 2 - 1;
        let body = &line[spaces..];
        let mark = JEST_MARKS
            .iter()
            .find_map(|(mark, outcome)| Some((body.strip_prefix(mark)?, *outcome)));
        match mark {
            Some((title, outcome)) => {
                let title = strip_duration(title, " ms)", " (");
                let mut id = file.clone();
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
}

/// The file of a jest head such as `PASS tests/a.test.js` or `FAIL b.test.ts (5.2 s)`.
fn jest_file(line: &str) -> Option<&str> {
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

// ---- vitest ----------------------------------------------------------------------------

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
fn read_vitest(lines: &[Cow<'_, str>], sink: &mut Sink) {
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

// ---- go test ---------------------------------------------------------------------------

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
fn read_go_test(lines: &[Cow<'_, str>], sink: &mut Sink) {
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
            sink.claim(TestRunner::GoTest, at, line);
            Some(rest)
        } else {
            None
        };
        if let Some(rest) = package {
            let package = rest.split(['\t', ' ']).next().unwrap_or(rest);
            sink.saw(TestRunner::GoTest, at);
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
        sink.saw(TestRunner::GoTest, at);
        if outcome == TestOutcome::Failed {
            sink.claim(TestRunner::GoTest, at, line);
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
    use proptest::prelude::*;

    use super::*;

    use super::TestOutcome::{Errored, Failed, Passed, Skipped, Xfailed, Xpassed};
    use super::TestRunner::{GoTest, Jest, Libtest, Mocha, NodeTest, Pytest, Unittest, Vitest};

    /// A recorded sample under `fixtures/results/`.
    macro_rules! sample {
        ($name:literal) => {
            include_str!(concat!("../../../fixtures/results/", $name))
        };
    }

    /// A report from its parts.
    fn report(
        runners: &[TestRunner],
        tests: &[(&str, TestOutcome)],
        counts: &[(TestOutcome, usize)],
        claims: &[&str],
    ) -> TestReport {
        TestReport {
            runners: runners.to_vec(),
            tests: tests.iter().map(|(id, o)| ((*id).to_owned(), *o)).collect(),
            counts: counts.iter().copied().collect(),
            failure_claims: claims.iter().map(|c| (*c).to_owned()).collect(),
        }
    }

    #[track_caller]
    fn case(output: &str, junit: Option<&str>, expected: TestReport) {
        assert_eq!(read(output, junit), expected);
    }

    #[test]
    fn pytest_reads_its_junit_xml_and_summary_lines() {
        let expected = report(
            &[Pytest],
            &[
                ("tests/test_mixed.py::TestGroup::test_in_class", Passed),
                ("tests/test_mixed.py::TestGroup::test_param[1]", Passed),
                ("tests/test_mixed.py::TestGroup::test_param[2]", Failed),
                ("tests/test_mixed.py::test_error", Errored),
                ("tests/test_mixed.py::test_fail", Failed),
                ("tests/test_mixed.py::test_pass", Passed),
                ("tests/test_mixed.py::test_skip", Skipped),
                ("tests/test_mixed.py::test_xfail", Xfailed),
                ("tests/test_mixed.py::test_xpass", Xpassed),
            ],
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
    fn junit_reading_handles_entities_comments_and_cdata() {
        let xml = r#"<?xml version="1.0"?><!-- <testcase name="no"/> -->
<testsuite><testcase classname="a.test_b" name="t&amp;&lt;&#62;&#x41;&quot;&apos;&bogus;">
<system-out><![CDATA[<failure>]]></system-out></testcase>
<testcase classname='a.test_b' name='two' ><skipped/><error message="x > y"/></testcase>
<testcase name="unclosed"><skipped type="pytest.skip"/>"#;
        let cases = junit_cases(xml).expect("a report");
        let got: Vec<(&str, &str, TestOutcome)> = cases
            .iter()
            .map(|c| (c.classname.as_str(), c.name.as_str(), c.outcome))
            .collect();
        assert_eq!(
            got,
            [
                ("a.test_b", "t&<>A\"'&bogus;", Passed),
                ("a.test_b", "two", Errored),
                ("", "unclosed", Skipped),
            ]
        );
        assert_eq!(junit_cases("<html><body/></html>"), None);
        assert_eq!(junit_cases("<testsuites/>"), Some(vec![]));
    }

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
            ),
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
            ),
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
    fn jest_reads_its_tree_failures_and_summary() {
        case(
            sample!("jest-verbose-fail.txt"),
            None,
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
            ),
        );
        case(
            sample!("jest-summary-fail.txt"),
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

    #[test]
    fn no_sample_is_read_as_another_runner() {
        let samples: &[(&str, &str, &[TestRunner])] = &[
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
        ];
        for (name, output, runners) in samples {
            assert_eq!(read(output, None).runners, *runners, "{name}");
        }
        // Every sample after every other reads as the two apart: the same runners in
        // order and, for two runners, the same tests.
        for (first, before, a) in samples {
            for (second, after, b) in samples {
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

    #[test]
    fn tables_are_sorted() {
        #[track_caller]
        fn sorted(name: &str, keys: Vec<&str>) {
            let mut want = keys.clone();
            want.sort_unstable();
            want.dedup();
            assert_eq!(
                keys, want,
                "keep {name} sorted (and without repeats): lookups search it by halves"
            );
        }
        fn keys<T>(table: &[(&'static str, T)]) -> Vec<&'static str> {
            table.iter().map(|(k, _)| *k).collect()
        }
        sorted("PYTEST_SUMMARY_WORDS", keys(PYTEST_SUMMARY_WORDS));
        sorted("PYTEST_COUNT_WORDS", keys(PYTEST_COUNT_WORDS));
        sorted("XML_ENTITIES", keys(XML_ENTITIES));
        sorted("UNITTEST_RESULTS", keys(UNITTEST_RESULTS));
        sorted("UNITTEST_BLOCKS", keys(UNITTEST_BLOCKS));
        sorted("UNITTEST_COUNTS", keys(UNITTEST_COUNTS));
        sorted("LIBTEST_RESULTS", keys(LIBTEST_RESULTS));
        sorted("LIBTEST_COUNTS", keys(LIBTEST_COUNTS));
        sorted("TAP_COUNTS", keys(TAP_COUNTS));
        sorted("MOCHA_COUNTS", keys(MOCHA_COUNTS));
        sorted("MOCHA_HOOKS", MOCHA_HOOKS.to_vec());
        sorted("JEST_COUNTS", keys(JEST_COUNTS));
        sorted("JEST_MARKS", keys(JEST_MARKS));
        sorted("VITEST_COUNTS", keys(VITEST_COUNTS));
        sorted("GO_RESULTS", keys(GO_RESULTS));
        let marks: Vec<String> = VITEST_MARKS.iter().map(|(c, _)| c.to_string()).collect();
        sorted("VITEST_MARKS", marks.iter().map(String::as_str).collect());
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
}
