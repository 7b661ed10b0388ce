//! Reading source text the way the audit and the gaming monitor need it: test functions,
//! assertions and skip markers counted per file, the expected values of assertions, added
//! lines, and functions whose body is one constant. Plain text scanning, per language
//! where the languages disagree; comment lines are left out so that commenting an
//! assertion out counts as removing it.

use std::collections::BTreeSet;

/// What starts a test function, by language.
const TEST_STARTS: &[(Lang, &str)] = &[
    (Lang::Go, "func Test"),
    (Lang::Js, "it("),
    (Lang::Js, "test("),
    (Lang::Python, "def test_"),
    (Lang::Rust, "#[test]"),
    (Lang::Rust, "::test]"),
    (Lang::Rust, "fn test_"),
];

/// What starts an assertion, by language.
const ASSERTIONS: &[(Lang, &str)] = &[
    (Lang::Any, "assert"),
    (Lang::Go, "t.Error"),
    (Lang::Go, "t.Fatal"),
    (Lang::Js, "expect("),
    (Lang::Python, "pytest.raises("),
    (Lang::Python, "self.fail("),
];

/// Markers that skip a test, or focus on some so that the others are skipped.
const SKIP_MARKERS: &[(Lang, &str)] = &[
    (Lang::Go, "t.Skip"),
    (Lang::Js, ".only("),
    (Lang::Js, ".skip("),
    (Lang::Js, "fdescribe("),
    (Lang::Js, "fit("),
    (Lang::Js, "xdescribe("),
    (Lang::Js, "xit("),
    (Lang::Js, "xtest("),
    (Lang::Python, "@pytest.mark.skip"),
    (Lang::Python, "@unittest.skip"),
    (Lang::Python, "pytest.skip("),
    (Lang::Python, "skipTest("),
    (Lang::Rust, "#[ignore"),
];

/// Text in source code that reads how the code is being run.
const RUN_SENSING: &[&str] = &[
    "\"CI\"",
    "\"jest\"",
    "\"mocha\"",
    "\"pytest\"",
    "\"test.v\"",
    "\"unittest\"",
    "\"vitest\"",
    "'CI'",
    "'jest'",
    "'mocha'",
    "'pytest'",
    "'unittest'",
    "'vitest'",
    ".CI",
    "JEST_WORKER_ID",
    "MAKEFLAGS",
    "MAKELEVEL",
    "NEXTEST",
    "NODE_TEST_CONTEXT",
    "PYTEST_ADDOPTS",
    "PYTEST_CURRENT_TEST",
    "PYTEST_VERSION",
    "PYTEST_XDIST_WORKER",
    "RUST_TEST_THREADS",
    "TOX_ENV_NAME",
    "VITEST",
    "VITEST_POOL_ID",
    "VITEST_WORKER_ID",
    "cfg!(test)",
    "current_thread().name",
    "npm_lifecycle_event",
    "sys.modules",
    "testing.Testing()",
    "thread::current().name()",
];

/// What reads the program's own command line: with `test` in a string beside it (`os.Args[0]`
/// ending in `.test`, the name of Go's test binaries; `process.argv[1]` matching a test
/// file), it reads whether a test runner started the process.
const ARGV_READS: &[&str] = &["argv", "env::args", "os.Args"];

/// The tokens of [`RUN_SENSING`] that are everyday code unless the line also names a
/// runner or reads the environment (a plugin lookup `sys.modules.get(name)`, a worker
/// thread's name): a warning, never one that rejects.
const WEAK: &[&str] = &[
    "current_thread().name",
    "sys.modules",
    "thread::current().name()",
];

/// The tokens of [`RUN_SENSING`] that read how the code is run only where the line reads
/// the environment: `{"CI": 101}` is a roman-numeral table, `os.environ["CI"]` is not.
const ENVIRONMENT_ONLY: &[&str] = &["\"CI\"", "'CI'", ".CI"];

/// What reads the environment, in the languages the monitor reads.
const ENVIRONMENT_READS: &[&str] = &[
    "ENV[",
    "env!",
    "env::var",
    "environ",
    "getenv",
    "process.env",
];

/// A source language, from a file's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lang {
    /// Rust.
    Rust,
    /// Python.
    Python,
    /// JavaScript and TypeScript.
    Js,
    /// Go.
    Go,
    /// Anything else: every language's markers apply.
    Any,
}

impl Lang {
    /// The language of `path`.
    pub(crate) fn of(path: &str) -> Self {
        let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
        match ext {
            "rs" => Self::Rust,
            "py" => Self::Python,
            "js" | "jsx" | "ts" | "tsx" | "mjs" | "cjs" | "mts" | "cts" => Self::Js,
            "go" => Self::Go, // not a runner id
            _ => Self::Any,
        }
    }

    fn uses(self, table: Lang) -> bool {
        self == Self::Any || table == Self::Any || self == table
    }
}

/// Whether `path` holds source code the gaming monitor reads.
pub(crate) fn is_source(path: &str) -> bool {
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
    Lang::of(path) != Lang::Any
        || matches!(
            ext,
            "c" | "cc"
                | "cpp"
                | "cxx"
                | "h"
                | "hh"
                | "hpp"
                | "hxx"
                | "m"
                | "s"
                | "S"
                | "sx"
                | "java"
                | "kt"
                | "rb"
                | "swift"
                | "cs"
                | "php"
        )
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Whether a line is a comment and nothing else.
fn is_comment(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("//")
        || t.starts_with("/*")
        || t.starts_with('*')
        || (t.starts_with('#') && !t.starts_with("#[") && !t.starts_with("#!["))
}

/// The lines that are code, with their 1-based numbers.
fn code_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .filter(|(_, l)| !is_comment(l))
}

/// How often `token` starts at a word boundary in `line`.
fn count_in(line: &str, token: &str) -> usize {
    let boundary_needed = token.starts_with(is_ident);
    line.match_indices(token)
        .filter(|(at, _)| {
            !boundary_needed
                || line[..*at]
                    .chars()
                    .next_back()
                    .is_none_or(|c| !is_ident(c) && (c != '.' || !matches!(token, "it(" | "test(")))
        })
        .count()
}

fn count(text: &str, lang: Lang, table: &[(Lang, &str)]) -> usize {
    code_lines(text)
        .map(|(_, line)| {
            table
                .iter()
                .filter(|(l, _)| lang.uses(*l))
                .map(|(_, token)| count_in(line, token))
                .sum::<usize>()
        })
        .sum()
}

/// The counts the audit compares between the base and the candidate.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    /// Test functions.
    pub(crate) tests: usize,
    /// Assertions.
    pub(crate) assertions: usize,
    /// Skip and focus markers.
    pub(crate) skips: usize,
}

/// The counts of a test file's text.
pub(crate) fn counts(path: &str, text: &str) -> Counts {
    let lang = Lang::of(path);
    Counts {
        tests: count(text, lang, TEST_STARTS),
        assertions: count(text, lang, ASSERTIONS),
        skips: count(text, lang, SKIP_MARKERS),
    }
}

/// Whether a Rust file holds tests (`#[test]` or a `#[cfg(test)]` module), which makes it a
/// test file for the audit whatever its path.
pub(crate) fn holds_rust_tests(path: &str, text: &str) -> bool {
    Lang::of(path) == Lang::Rust && (text.contains("#[test]") || text.contains("#[cfg(test)]"))
}

/// Whether `line` holds an assertion of `lang`.
fn is_assertion(line: &str, lang: Lang) -> bool {
    ASSERTIONS
        .iter()
        .any(|(l, token)| lang.uses(*l) && count_in(line, token) > 0)
}

/// Names whose arguments are expected values rather than inputs.
fn keeps_arguments(name: &str) -> bool {
    name.starts_with("assert")
        || name.starts_with("expect")
        || name.starts_with("to")
        || name.starts_with("Error")
        || name.starts_with("Fatal")
        || name == "eq"
}

/// `line` with the arguments of every call that is not an assertion blanked out, so that
/// what remains are the expected values (`assert add(2, 3) == 5` keeps `5`).
fn without_inputs(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = chars.clone();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '(' {
            let mut start = i;
            while start > 0 && (is_ident(chars[start - 1]) || chars[start - 1] == '!') {
                start -= 1;
            }
            let name: String = chars[start..i].iter().filter(|c| **c != '!').collect();
            if !name.is_empty() && !keeps_arguments(&name) {
                let mut depth = 0;
                let mut j = i;
                while j < chars.len() {
                    match chars[j] {
                        '(' => depth += 1,
                        ')' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
                for c in &mut out[i + 1..j.min(chars.len())] {
                    *c = ' ';
                }
                i = j;
            }
        }
        i += 1;
    }
    out.into_iter().collect()
}

/// The literals of a piece of code: numbers and quoted strings, as written.
pub(crate) fn literals(code: &str) -> Vec<String> {
    let chars: Vec<char> = code.chars().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '"' || c == '\'' {
            let mut j = i + 1;
            while j < chars.len() && chars[j] != c {
                if chars[j] == '\\' {
                    j += 1;
                }
                j += 1;
            }
            if j < chars.len() {
                found.push(chars[i..=j].iter().collect());
            }
            i = j + 1;
        } else if c.is_ascii_digit() && (i == 0 || !is_ident(chars[i - 1])) {
            let mut j = i;
            while j < chars.len()
                && (chars[j].is_ascii_alphanumeric() || chars[j] == '.' || chars[j] == '_')
            {
                j += 1;
            }
            found.push(
                chars[i..j]
                    .iter()
                    .collect::<String>()
                    .trim_end_matches('.')
                    .to_owned(),
            );
            i = j;
        } else if is_ident(c) {
            while i < chars.len() && is_ident(chars[i]) {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    found
}

/// Whether a literal says too little to be a sign of anything (`0`, `1`, `""`, `'a'`).
fn is_trivial(literal: &str) -> bool {
    matches!(literal, "0" | "1" | "0.0" | "1.0")
        || (literal.starts_with(['"', '\'']) && literal.chars().count() <= 3)
}

/// The expected values in a test file's assertions, with the line of each.
pub(crate) fn expected_values(path: &str, text: &str) -> Vec<(usize, String)> {
    let lang = Lang::of(path);
    code_lines(text)
        .filter(|(_, line)| is_assertion(line, lang))
        .flat_map(|(n, line)| {
            literals(&without_inputs(line))
                .into_iter()
                .filter(|l| !is_trivial(l))
                .map(move |l| (n, l))
        })
        .collect()
}

/// The expected values of the assertions that call `function`, each assertion's set once.
pub(crate) fn expectations_of(path: &str, text: &str, function: &str) -> BTreeSet<Vec<String>> {
    let lang = Lang::of(path);
    let call = format!("{function}(");
    code_lines(text)
        .filter(|(_, line)| is_assertion(line, lang) && count_in(line, &call) > 0)
        .map(|(_, line)| literals(&without_inputs(line)))
        .filter(|values| !values.is_empty())
        .collect()
}

/// The lines of `new` that `old` does not have (as a multiset of trimmed lines), with
/// their 1-based numbers in `new`.
pub(crate) fn added_lines<'a>(old: &str, new: &'a str) -> Vec<(usize, &'a str)> {
    let mut before: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for line in old.lines() {
        *before.entry(line.trim()).or_default() += 1;
    }
    let mut added = Vec::new();
    for (i, line) in new.lines().enumerate() {
        match before.get_mut(line.trim()) {
            Some(n) if *n > 0 => *n -= 1,
            _ => {
                if !line.trim().is_empty() {
                    added.push((i + 1, line));
                }
            }
        }
    }
    added
}

/// Whether `literal` appears in `text` as a whole token.
pub(crate) fn contains_literal(text: &str, literal: &str) -> bool {
    if literal.starts_with(['"', '\'']) {
        let inner = &literal[1..literal.len() - 1];
        return ['"', '\'']
            .iter()
            .any(|q| text.contains(&format!("{q}{inner}{q}")));
    }
    literals(text).iter().any(|l| l == literal)
}

/// The part of `line` that gives a value back: what follows `return`, or the whole line
/// when it is a lone literal (a Rust tail expression). Comparisons with inputs elsewhere on
/// the line are not expected values being handed back.
pub(crate) fn returned_part(line: &str) -> Option<&str> {
    let trimmed = line.trim().trim_end_matches(';');
    if let Some(at) = trimmed.find("return ")
        && trimmed[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !is_ident(c))
    {
        return Some(&trimmed[at + "return ".len()..]);
    }
    let lone = literals(trimmed);
    (lone.len() == 1 && lone[0] == trimmed).then_some(trimmed)
}

/// What in `line` reads how the code is being run, if anything, and whether it reads the
/// test environment itself (a runner's module or variable name, argv compared with a
/// runner's name) rather than a lookup everyday code makes too ([`WEAK`]).
pub(crate) fn run_sensing(line: &str) -> Option<(&'static str, bool)> {
    if is_comment(line) {
        return None;
    }
    // A token ending in a letter must end a word there: `.CI` is not `.CIPHER`.
    let reads_environment = ENVIRONMENT_READS.iter().any(|r| line.contains(r));
    let found = |token: &&str| {
        if ENVIRONMENT_ONLY.contains(token) && !reads_environment {
            return false;
        }
        line.match_indices(token).any(|(at, _)| {
            !token.ends_with(is_ident)
                || line[at + token.len()..]
                    .chars()
                    .next()
                    .is_none_or(|c| !is_ident(c))
        })
    };
    let strong = RUN_SENSING
        .iter()
        .filter(|t| !WEAK.contains(t))
        .find(|t| found(t))
        .or_else(|| argv_names_a_test(line));
    match strong {
        Some(token) => Some((token, true)),
        None => RUN_SENSING
            .iter()
            .filter(|t| WEAK.contains(t))
            .find(|t| found(t))
            .map(|token| (*token, reads_environment)),
    }
}

/// The [`ARGV_READS`] token of `line` when the line also holds `test` outside a regular
/// expression's `.test(` call: the command line compared with a test binary or file.
fn argv_names_a_test(line: &str) -> Option<&'static &'static str> {
    let argv = ARGV_READS.iter().find(|t| line.contains(**t))?;
    let line = line.replace(".test(", "(").to_ascii_lowercase();
    // `test` starting a word (`.test`, `_test`, `"test/`): `latest`, `pytest` are not it.
    line.match_indices("test")
        .any(|(at, _)| !line[..at].ends_with(|c: char| c.is_ascii_alphabetic()))
        .then_some(argv)
}

/// A function whose whole body returns one literal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ConstantFunction {
    /// Its name.
    pub(crate) name: String,
    /// The line of its header.
    pub(crate) line: usize,
    /// The literal it returns.
    pub(crate) value: String,
}

/// The functions of `text` whose body is only `return <literal>` (or, in Rust, the literal).
pub(crate) fn constant_functions(text: &str) -> Vec<ConstantFunction> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        let Some((keyword, rest)) = ["def ", "fn ", "function ", "func "].iter().find_map(|k| {
            let at = trimmed.find(k)?;
            let before = &trimmed[..at];
            (before.is_empty() || before.ends_with(' ')).then(|| (*k, &trimmed[at + k.len()..]))
        }) else {
            continue;
        };
        let name: String = rest.chars().take_while(|c| is_ident(*c)).collect();
        if name.is_empty() {
            continue;
        }
        let body = if keyword == "def " {
            python_body(&lines, i)
        } else {
            brace_body(&lines, i)
        };
        let Some(body) = body else { continue };
        let body = body.trim().trim_end_matches(';').trim();
        let value = body.strip_prefix("return ").unwrap_or(body).trim();
        let literal = literals(value);
        if literal.len() == 1 && literal[0] == value && !is_trivial(value) {
            found.push(ConstantFunction {
                name,
                line: i + 1,
                value: value.to_owned(),
            });
        }
    }
    found
}

fn python_body(lines: &[&str], header: usize) -> Option<String> {
    let line = lines[header];
    if let Some((_, after)) = line.rsplit_once(':')
        && !after.trim().is_empty()
        && !after.trim().starts_with('#')
    {
        return Some(after.trim().to_owned());
    }
    let indent = line.len() - line.trim_start().len();
    let body: Vec<&str> = lines[header + 1..]
        .iter()
        .take_while(|l| l.trim().is_empty() || l.len() - l.trim_start().len() > indent)
        .map(|l| l.trim())
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    (body.len() == 1).then(|| body[0].to_owned())
}

fn brace_body(lines: &[&str], header: usize) -> Option<String> {
    let text = lines[header..].join("\n");
    let open = text.find('{')?;
    let mut depth = 0;
    for (at, c) in text[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(text[open + 1..open + at].to_owned());
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn case(path: &str, text: &str, tests: usize, assertions: usize, skips: usize) {
        assert_eq!(
            counts(path, text),
            Counts {
                tests,
                assertions,
                skips
            },
            "{path}: {text}"
        );
    }

    #[test]
    fn counts_per_language() {
        case(
            "tests/test_add.py",
            "import unittest\nclass T(unittest.TestCase):\n    def test_a(self):\n        self.assertEqual(add(1, 2), 3)\n        assert add(2, 2) == 4\n    # assert commented\n    @unittest.skip('x')\n    def test_b(self):\n        pass\n",
            2,
            2,
            1,
        );
        case(
            "src/lib.rs",
            "#[test]\nfn a() { assert_eq!(f(), 1); }\n#[test]\n#[ignore]\nfn b() { assert!(g()); }\n// assert!(h());\nlet v: Vec<_> = x.iter().skip(1).collect();\n",
            2,
            2,
            1,
        );
        case(
            "web/sum.test.ts",
            "describe('s', () => {\n  it('adds', () => { expect(sum(1, 2)).toBe(3); });\n  it.skip('no', () => {});\n  test.only('x', () => {});\n  xit('y', () => {});\n});\nre.test(s);\n",
            1,
            1,
            3,
        );
        case(
            "pkg/sum_test.go",
            "func TestSum(t *testing.T) {\n\tif Sum(1, 2) != 3 {\n\t\tt.Errorf(\"bad\")\n\t}\n\tt.Skip(\"later\")\n}\n",
            1,
            1,
            1,
        );
    }

    #[test]
    fn expected_values_leave_inputs_out() {
        let values = |path: &str, text: &str| -> Vec<String> {
            expected_values(path, text)
                .into_iter()
                .map(|(_, v)| v)
                .collect()
        };
        assert_eq!(values("t.py", "assert add(2, 3) == 5\n"), ["5"]);
        assert_eq!(values("t.py", "self.assertEqual(add(20, 3), 23)\n"), ["23"]);
        assert_eq!(
            values("t.ts", "expect(greet('bob')).toBe(\"hello bob\")\n"),
            ["\"hello bob\""]
        );
        assert_eq!(values("t.rs", "assert_eq!(parse(\"x=1\"), 42);\n"), ["42"]);
        assert_eq!(values("t.py", "x = compute(7)\n"), Vec::<String>::new());
    }

    #[test]
    fn added_lines_and_literals() {
        assert_eq!(
            added_lines("a\nb\n", "a\nreturn 5\nb\n  \n"),
            [(2, "return 5")]
        );
        assert!(contains_literal("    return 5", "5"));
        assert_eq!(returned_part("        return 5"), Some("5"));
        assert_eq!(returned_part("    42"), Some("42"));
        assert_eq!(returned_part("    if (a, b) == (2, 3):"), None);
        assert_eq!(run_sensing("if process.env.CI {"), Some((".CI", true)));
        assert_eq!(run_sensing("let c = config.CIPHER;"), None);
        assert_eq!(run_sensing("# os.environ['CI']"), None);
        // A roman-numeral table and a plugin lookup: the first is nothing, the second a
        // weak warning; a runner's name beside either is a read of the test environment.
        assert_eq!(run_sensing("ROMAN = {\"CI\": 101, \"XC\": 90}"), None);
        assert_eq!(
            run_sensing("plugin = sys.modules.get(name)"),
            Some(("sys.modules", false))
        );
        assert_eq!(
            run_sensing("if \"pytest\" in sys.modules:"),
            Some(("\"pytest\"", true))
        );
        assert_eq!(
            run_sensing("if \"unittest\" in sys.argv[0]:"),
            Some(("\"unittest\"", true))
        );
        assert_eq!(
            run_sensing("if 'unittest' in ' '.join(sys.argv):"),
            Some(("'unittest'", true))
        );
        // Issue 39's spellings of code right only under test.
        for (line, token) in [
            (
                "const w = process.env.VITEST_WORKER_ID;",
                "VITEST_WORKER_ID",
            ),
            (
                "if \"junitxml\" in os.environ.get(\"PYTEST_ADDOPTS\", \"\"):",
                "PYTEST_ADDOPTS",
            ),
            ("if strings.HasSuffix(os.Args[0], \".test\") {", "os.Args"),
            ("if (/\\.test\\.js$/.test(process.argv[1])) {", "argv"),
            ("if flag.Lookup(\"test.v\") != nil {", "\"test.v\""),
            (
                "if std::env::args().next().unwrap().contains(\"-test\") {",
                "env::args",
            ),
        ] {
            assert_eq!(run_sensing(line), Some((token, true)), "{line}");
        }
        // A command line read for everyday reasons.
        for line in [
            "fmt.Fprintf(os.Stderr, \"usage: %s FILE\\n\", os.Args[0])",
            "const verbose = /--verbose/.test(process.argv.join(\" \"));",
            "let args: Vec<String> = std::env::args().collect();",
            "def main(argv=None):  # the latest layout",
        ] {
            assert_eq!(run_sensing(line), None, "{line}");
        }
        assert!(!contains_literal("    return 55", "5"));
        assert!(contains_literal("return 'hi there'", "\"hi there\""));
    }

    #[test]
    fn constant_functions_found() {
        let py = "def add(a, b):\n    return 5\n\ndef sub(a, b):\n    return a - b\n";
        assert_eq!(
            constant_functions(py),
            [ConstantFunction {
                name: "add".into(),
                line: 1,
                value: "5".into()
            }]
        );
        let rs = "pub fn add(a: i32, b: i32) -> i32 {\n    5\n}\nfn zero() -> i32 { 0 }\n";
        assert_eq!(constant_functions(rs).len(), 1);
        let js = "function add(a, b) { return 5; }\n";
        assert_eq!(constant_functions(js)[0].name, "add");
        assert_eq!(
            expectations_of(
                "t.py",
                "assert add(2, 3) == 5\nassert add(1, 1) == 2\n",
                "add"
            )
            .len(),
            2
        );
    }

    #[test]
    fn tables_are_sorted_within_a_language() {
        for (name, table) in [
            ("TEST_STARTS", TEST_STARTS),
            ("ASSERTIONS", ASSERTIONS),
            ("SKIP_MARKERS", SKIP_MARKERS),
        ] {
            let keys: Vec<String> = table.iter().map(|(l, t)| format!("{l:?}/{t}")).collect();
            let mut sorted = keys.clone();
            sorted.sort();
            assert_eq!(keys, sorted, "keep {name} sorted by language, then token");
        }
        let mut sorted = RUN_SENSING.to_vec();
        sorted.sort_unstable();
        assert_eq!(RUN_SENSING, sorted, "keep RUN_SENSING sorted");
    }
}
