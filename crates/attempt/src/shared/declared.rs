//! What the task's own test files declare, read from their source: the ids the runner will
//! give their tests where those ids do not name the file (`go test`'s `pkg/TestX`, node's
//! and mocha's title paths), and whether a file declares tests at all.
//!
//! A withheld or acceptance test is required by its file (invariant 10 of
//! `docs/design/verdict.md`), not only by what the base's run showed: at the base a Go stub's
//! `panic` ends the test binary before the file's tests start, and a node test file whose
//! module does not exist yet is named as the file. Reading the declarations keeps each of
//! those tests required, and lets a file whose tests vanished (a package whose load exits
//! 0) be told from one that ran.

use std::collections::{BTreeMap, BTreeSet};

/// The most of a file read for its declarations.
const MAX_TEXT: usize = 4 << 20;

/// The most ids read from one file.
const MAX_IDS: usize = 10_000;

/// The most titles with holes kept from one file: each is matched against every test a
/// check names.
const MAX_PATTERNS: usize = 500;

/// What stands for a hole in a title read from source: the part a template's `${}`, a
/// variable joined with `+`, or a `.each` table's `%s` and `$name` fill in at run time. A
/// private-use character, which no title in source is expected to hold.
pub(crate) const HOLE: char = '\u{E000}';

/// What a runner names a test by, for the ids read from source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Naming {
    /// `go test`: the package's import path, `/`, the function (and `/subtest`).
    Go,
    /// node's test runner and mocha: the titles of the enclosing suites and the test,
    /// joined by ` > `.
    Titles,
    /// The runner's id names the file (pytest, unittest, libtest, jest, vitest): nothing
    /// is read beyond whether the file declares tests.
    File,
}

/// One withheld or acceptance file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DeclaredFile {
    /// Its path from the project root.
    pub(crate) path: String,
    /// How its runner names its tests.
    pub(crate) naming: Naming,
    /// The ids its tests get, where [`Naming`] is not `File`.
    pub(crate) ids: Vec<String>,
    /// Whether it declares tests at all (a helper or a data file does not, and no check
    /// needs to run it).
    pub(crate) declares_tests: bool,
    /// Whether it is a Go file with a build constraint: only a check that ran one of its
    /// tests requires the rest.
    pub(crate) constrained: bool,
    /// The ids among `ids` declared only under a condition the verdict cannot evaluate
    /// (`if (process.platform === 'win32') { test(…) }`, `cond && it(…)`, after an `if (…)
    /// return`): required only where they ran at the base, and judged wherever they run.
    pub(crate) conditional: Vec<String>,
}

impl DeclaredFile {
    /// Whether `id` is one of this file's tests, or a subtest of one.
    pub(crate) fn owns(&self, id: &str) -> bool {
        let sep = match self.naming {
            Naming::Go => "/",
            Naming::Titles => " > ",
            Naming::File => return false,
        };
        self.ids.iter().any(|own| {
            if own.contains(HOLE) {
                return matches_title(own, id) || matches_title(&format!("{own}{sep}{HOLE}"), id);
            }
            id == own
                || id
                    .strip_prefix(own.as_str())
                    .is_some_and(|r| r.starts_with(sep))
        })
    }

    /// The ids read with no hole and under no condition: each names one test that must run.
    pub(crate) fn literal_ids(&self) -> impl Iterator<Item = &String> {
        self.ids
            .iter()
            .filter(|id| !id.contains(HOLE) && !self.is_conditional(id))
    }

    /// Whether the id `id` read from the source is declared only under a condition.
    pub(crate) fn is_conditional(&self, id: &str) -> bool {
        self.conditional
            .binary_search_by(|c| c.as_str().cmp(id))
            .is_ok()
    }

    /// Whether `id` is a test of this file's Go package: the file's tests may be required
    /// in a check that ran its package. Not for a file with a build constraint
    /// (`//go:build integration`): a check without its tags builds the package without it.
    pub(crate) fn same_package(&self, id: &str) -> bool {
        if self.naming != Naming::Go || self.constrained {
            return false;
        }
        self.ids.iter().any(|own| {
            let package = own.rsplit_once('/').map_or("", |(p, _)| p);
            id.strip_prefix(package)
                .and_then(|r| r.strip_prefix('/'))
                .is_some_and(|r| ["Test", "Fuzz", "Example"].iter().any(|p| r.starts_with(p)))
        })
    }
}

/// The withheld and acceptance files' declarations.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Declared {
    pub(crate) files: Vec<DeclaredFile>,
}

impl Declared {
    /// Reads `files` (path from the project root, text), with the Go modules of the
    /// project (`go.mod`'s folder from the project root, `""` at the top, and its module
    /// path).
    pub(crate) fn read(files: &[(String, String)], go_modules: &BTreeMap<String, String>) -> Self {
        let files = files
            .iter()
            .map(|(path, text)| {
                let text = &text[..floor(text, MAX_TEXT)];
                declared_file(path, text, go_modules)
            })
            .collect();
        Self { files }
    }

    /// The file `path`'s declarations.
    pub(crate) fn file(&self, path: &str) -> Option<&DeclaredFile> {
        self.files.iter().find(|f| f.path == path)
    }

    /// Whether `id` is a test one of `paths` declares.
    pub(crate) fn owned_by(&self, id: &str, paths: &[String]) -> bool {
        paths
            .iter()
            .filter_map(|p| self.file(p))
            .any(|f| f.owns(id))
    }
}

/// The largest char boundary of `text` at or below `at`.
fn floor(text: &str, at: usize) -> usize {
    (0..=at.min(text.len()))
        .rev()
        .find(|i| text.is_char_boundary(*i))
        .unwrap_or(0)
}

/// Whether `id` is a title `pattern` read from source gives: its text in order, each
/// [`HOLE`] standing for any text (none included).
pub(crate) fn matches_title(pattern: &str, id: &str) -> bool {
    let mut parts = pattern.split(HOLE);
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = id.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

fn declared_file(path: &str, text: &str, go_modules: &BTreeMap<String, String>) -> DeclaredFile {
    let name = path.rsplit('/').next().unwrap_or(path);
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    let mut conditional = Vec::new();
    let (naming, ids, declares_tests) = match ext {
        "go" if name.ends_with("_test.go") => {
            let ids = go_ids(path, text, go_modules);
            let declares = !ids.is_empty();
            (Naming::Go, ids, declares)
        }
        "js" | "mjs" | "cjs" | "ts" | "mts" | "cts" | "jsx" | "tsx" => {
            let (ids, under) = js_titles(text);
            conditional = under;
            let declares = !ids.is_empty() && js_test_file(path);
            (Naming::Titles, ids, declares)
        }
        "py" => (
            Naming::File,
            Vec::new(),
            python_test_file(name) && python_declares_tests(text),
        ),
        "rs" => (
            Naming::File,
            Vec::new(),
            text.contains("#[test]") || text.contains("#[tokio::test"),
        ),
        _ => (Naming::File, Vec::new(), false),
    };
    DeclaredFile {
        path: path.to_owned(),
        naming,
        ids,
        declares_tests,
        constrained: naming == Naming::Go
            && text
                .lines()
                .any(|l| l.starts_with("//go:build") || l.starts_with("// +build")),
        conditional,
    }
}

/// Whether `name` is a Python test file by the runners' default names (pytest's
/// `test_*.py` and `*_test.py`, unittest's `test*.py`): a helper module that defines a
/// `test_data()` is not run by them, and need not run.
fn python_test_file(name: &str) -> bool {
    name.starts_with("test") || name.ends_with("_test.py")
}

/// Whether `path` is a JavaScript test file by the runners' default names (node's
/// `*.test.js`, `*-test.js`, `*_test.js`, `test-*.js`, `test.js` and `test/**`, mocha's
/// `test/`, jest's `__tests__/` and `*.spec.js`).
fn js_test_file(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let stem = name.split('.').next().unwrap_or(name);
    [".test.", ".spec.", "-test.", "_test."]
        .iter()
        .any(|m| name.contains(m))
        || stem == "test"
        || stem.starts_with("test-")
        || path
            .split('/')
            .rev()
            .skip(1)
            .any(|d| matches!(d, "test" | "tests" | "__tests__" | "spec"))
}

/// Whether Python source declares a test: a `def test…` at any level, or a `TestCase`.
fn python_declares_tests(text: &str) -> bool {
    text.lines().any(|line| {
        let line = line.trim_start();
        let def = line
            .strip_prefix("async def ")
            .or_else(|| line.strip_prefix("def "));
        def.is_some_and(|d| d.starts_with("test"))
            || (line.starts_with("class ") && line.contains("TestCase"))
    })
}

/// The ids `go test` gives the tests of the `_test.go` file `path`: its module's path (the
/// nearest `go.mod` above it), its folder below that, and each `func TestX(t *testing.T)`
/// or `func FuzzX(f *testing.F)` it declares.
fn go_ids(path: &str, text: &str, go_modules: &BTreeMap<String, String>) -> Vec<String> {
    let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
    let Some((module_dir, module)) = go_modules
        .iter()
        .filter(|(d, _)| d.is_empty() || dir == d.as_str() || dir.starts_with(&format!("{d}/")))
        .max_by_key(|(d, _)| d.len())
    else {
        return Vec::new();
    };
    let below = dir
        .strip_prefix(module_dir.as_str())
        .unwrap_or(dir)
        .trim_start_matches('/');
    let package = if below.is_empty() {
        module.clone()
    } else {
        format!("{module}/{below}")
    };
    let mut ids = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("func ") else {
            continue;
        };
        let Some((name, params)) = rest.split_once('(') else {
            continue;
        };
        let kind = if name.starts_with("Test") {
            "T"
        } else if name.starts_with("Fuzz") {
            "F"
        } else {
            continue;
        };
        // `TestXxx` where `Xxx` does not start with a lower-case letter, as `go test` runs.
        let after = &name[4..];
        if after.starts_with(|c: char| c.is_lowercase())
            || !name.chars().all(|c| c.is_alphanumeric() || c == '_')
        {
            continue;
        }
        let param = params.split(')').next().unwrap_or("");
        if !(param.ends_with(&format!("*testing.{kind}")) || param.ends_with(&format!("*{kind}"))) {
            continue;
        }
        if ids.len() < MAX_IDS {
            ids.push(format!("{package}/{name}"));
        }
    }
    ids
}

/// The functions that declare a suite, and those that declare a test, in node's test
/// runner, mocha, jest and vitest.
const SUITES: &[&str] = &["context", "describe", "suite"];
const TESTS: &[&str] = &["it", "specify", "test"];

/// The title paths (`suite > test`) of the tests a JavaScript or TypeScript file declares:
/// `describe("s", () => { it("t", …) })` gives `s > t`. A title built at run time keeps its
/// literal text with a [`HOLE`] for each part filled in then: a template's `${}`, a value
/// joined with `+` (`it("adds " + a, …)` in a loop), and a `.each` table's printf
/// placeholders (`%s`, `%i`, `%p`, …) and `$name` (`test.each(rows)("adds %i", …)`). A
/// title of holes alone, or one built by anything else (a call's result in a `?:`), is not
/// read, nor are the tests it would name.
#[cfg(test)]
fn js_title_paths(text: &str) -> Vec<String> {
    js_titles(text).0
}

/// The title paths a JavaScript file declares (as `js_title_paths` reads them), and those
/// of them declared only under a condition: in the body or the one statement of an `if`,
/// `else` or `switch`, after `&&`, `||` or `?`, or after an `if (…) return` in the same
/// block. A title declared both so and not is not conditional.
fn js_titles(text: &str) -> (Vec<String>, Vec<String>) {
    let bytes = text.as_bytes();
    let mut scan = TitleScan::default();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i = text[i + 2..]
                    .find("*/")
                    .map_or(bytes.len(), |e| i + 2 + e + 2);
                continue;
            }
            b'"' | b'\'' | b'`' => {
                i = skip_string(bytes, i).1;
                continue;
            }
            b'{' => scan.depth += 1,
            b'}' => scan.close(),
            b';' => scan.pending = false,
            b'&' | b'|' if bytes.get(i + 1) == Some(&c) => {
                scan.pending = true;
                i += 2;
                continue;
            }
            b'?' if !matches!(bytes.get(i + 1), Some(b'.' | b'?' | b':')) => scan.pending = true,
            _ if c.is_ascii_alphabetic() && (i == 0 || !is_ident(bytes[i - 1])) => {
                i = scan.word(text, i);
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    let TitleScan {
        mut ids,
        under,
        plain,
        ..
    } = scan;
    ids.sort();
    ids.dedup();
    let conditional = under.difference(&plain).cloned().collect();
    (ids, conditional)
}

/// What `js_titles` has read so far.
#[derive(Debug, Default)]
struct TitleScan {
    /// The ids read.
    ids: Vec<String>,
    /// The ids read under a condition, and those read under none.
    under: BTreeSet<String>,
    plain: BTreeSet<String>,
    /// The titles with holes kept.
    patterns: usize,
    /// The open suites: their titles, the brace depth their bodies are at, and whether
    /// they were declared under a condition.
    suites: Vec<(String, usize, bool)>,
    /// The brace depths of the open blocks whose statements run under a condition.
    conditions: Vec<usize>,
    /// A condition that covers the next statement only (`if (x) test(…)`, `x && test(…)`).
    pending: bool,
    /// The brace depth.
    depth: usize,
}

impl TitleScan {
    /// A `}`: the suites and conditional blocks it closes end.
    fn close(&mut self) {
        self.depth = self.depth.saturating_sub(1);
        let depth = self.depth;
        while self.suites.last().is_some_and(|(_, d, _)| *d > depth) {
            self.suites.pop();
        }
        while self.conditions.last().is_some_and(|d| *d > depth) {
            self.conditions.pop();
        }
        self.pending = false;
    }

    /// Reads the word starting at `start` of `text`: a keyword of a condition, a suite or
    /// a test with its title, or any other. Returns where to read on.
    fn word(&mut self, text: &str, start: usize) -> usize {
        let bytes = text.as_bytes();
        let mut i = start;
        while i < bytes.len() && (is_ident(bytes[i]) || bytes[i] == b'.') {
            i += 1;
        }
        let word = &text[start..i];
        if matches!(word, "if" | "else" | "switch") {
            return condition(
                bytes,
                i,
                self.depth,
                &mut self.conditions,
                &mut self.pending,
            );
        }
        let head = word.split('.').next().unwrap_or(word);
        let suite = SUITES.contains(&head);
        if !(suite || TESTS.contains(&head)) {
            return i;
        }
        let each = word.ends_with(".each");
        let at = if each {
            skip_each_table(bytes, i)
        } else {
            Some(i)
        };
        let Some(title) = at.and_then(|at| call_title(bytes, at, each)) else {
            return i;
        };
        let conditional = std::mem::take(&mut self.pending)
            || !self.conditions.is_empty()
            || self.suites.iter().any(|(_, _, c)| *c);
        if suite {
            self.suites.push((title, self.depth + 1, conditional));
        } else {
            let titles: Vec<String> = self.suites.iter().map(|(t, _, _)| t.clone()).collect();
            if let Some(id) = push_title(&mut self.ids, &mut self.patterns, &titles, &title) {
                if conditional {
                    self.under.insert(id);
                } else {
                    self.plain.insert(id);
                }
            }
        }
        i
    }
}

/// Adds the test `title` under the suites titled `suites` to `ids`, within the bounds
/// (`patterns` counts the titles with holes kept); a title of holes alone would match any
/// test and is left out. Returns the id added.
fn push_title(
    ids: &mut Vec<String>,
    patterns: &mut usize,
    suites: &[String],
    title: &str,
) -> Option<String> {
    let mut id = String::new();
    for s in suites {
        id.push_str(s);
        id.push_str(" > ");
    }
    id.push_str(title);
    let holes = id.contains(HOLE);
    let anchored = !id.replace(HOLE, "").replace(" > ", "").trim().is_empty();
    if anchored && ids.len() < MAX_IDS && (!holes || *patterns < MAX_PATTERNS) {
        *patterns += usize::from(holes);
        ids.push(id.clone());
        return Some(id);
    }
    None
}

/// Reads what follows the keyword `if`, `else` or `switch` that ends before `at`, at brace
/// `depth`: its condition, then a block (whose depth joins `conditions`), an `if (…)
/// return` (the rest of the block at `depth` is under it), or one statement (`pending`).
/// Returns where to read on: the block's `{`, or past the condition.
fn condition(
    bytes: &[u8],
    at: usize,
    depth: usize,
    conditions: &mut Vec<usize>,
    pending: &mut bool,
) -> usize {
    let mut at = skip_spaces(bytes, at);
    if bytes.get(at) == Some(&b'(') {
        at = skip_balanced(bytes, at).unwrap_or(bytes.len());
        at = skip_spaces(bytes, at);
    }
    let rest = &bytes[at.min(bytes.len())..];
    if rest.first() == Some(&b'{') {
        conditions.push(depth + 1);
    } else if rest.starts_with(b"return") && !rest.get(6).copied().is_some_and(is_ident) {
        conditions.push(depth);
    } else if !rest.starts_with(b"if") || rest.get(2).copied().is_some_and(is_ident) {
        *pending = true;
    }
    at
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$'
}

fn skip_spaces(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    at
}

/// Where a `.each` table that follows `at` ends: after its `(…)` or its tagged template.
fn skip_each_table(bytes: &[u8], at: usize) -> Option<usize> {
    let at = skip_spaces(bytes, at);
    match bytes.get(at) {
        Some(b'`') => Some(skip_string(bytes, at).1),
        Some(b'(') => skip_balanced(bytes, at),
        _ => None,
    }
}

/// Where the bracket opening at `at` (`(`, `[` or `{`) closes, past it; strings inside are
/// skipped whole.
fn skip_balanced(bytes: &[u8], at: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = at;
    while i < bytes.len() {
        match bytes[i] {
            b'"' | b'\'' | b'`' => {
                i = skip_string(bytes, i).1;
                continue;
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The title of a call whose `(` follows `at` (after spaces), from its first argument:
/// string literals and templates joined with `+`, any other operand (a variable, a
/// member, a call) a [`HOLE`]; in a `.each` call (`each`), printf placeholders and
/// `$name` are holes too. `None` when the argument is built any other way.
fn call_title(bytes: &[u8], at: usize, each: bool) -> Option<String> {
    let mut at = skip_spaces(bytes, at);
    if bytes.get(at) != Some(&b'(') {
        return None;
    }
    at += 1;
    let mut title = String::new();
    loop {
        at = skip_spaces(bytes, at);
        match *bytes.get(at)? {
            b'"' | b'\'' | b'`' => {
                let (value, end) = skip_string(bytes, at);
                let value = value?;
                title.push_str(&if each { each_holes(&value) } else { value });
                at = end;
            }
            c if is_ident(c) || c == b'(' || c == b'[' => {
                at = skip_operand(bytes, at)?;
                if !title.ends_with(HOLE) {
                    title.push(HOLE);
                }
            }
            _ => return None,
        }
        at = skip_spaces(bytes, at);
        match bytes.get(at)? {
            b'+' => at += 1,
            b',' | b')' => return Some(title),
            _ => return None,
        }
    }
}

/// Where an operand that starts at `at` ends: a name with its members, calls and indexes
/// (`c.name`, `String(n)`, `row[0]`), or a bracketed expression.
fn skip_operand(bytes: &[u8], mut at: usize) -> Option<usize> {
    loop {
        while bytes.get(at).is_some_and(|c| {
            is_ident(*c) || *c == b'.' || *c == b'?' && bytes.get(at + 1) == Some(&b'.')
        }) {
            at += if bytes[at] == b'?' { 2 } else { 1 };
        }
        match bytes.get(at) {
            Some(b'(' | b'[') => at = skip_balanced(bytes, at)?,
            _ => return Some(at),
        }
    }
}

/// A `.each` title with its placeholders as holes: printf's `%s`, `%d`, `%i`, `%f`, `%j`,
/// `%o`, `%O`, `%p`, `%#`, `%$` (`%%` is `%`), and `$name` or `$row.field` from a tagged
/// template table.
fn each_holes(title: &str) -> String {
    let mut out = String::new();
    let mut chars = title.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '%' => match chars.peek() {
                Some('%') => {
                    chars.next();
                    out.push('%');
                }
                Some('s' | 'd' | 'i' | 'f' | 'j' | 'o' | 'O' | 'p' | '#' | '$') => {
                    chars.next();
                    push_hole(&mut out);
                }
                _ => out.push('%'),
            },
            '$' if chars.peek().is_some_and(|n| n.is_alphabetic() || *n == '_') => {
                while chars
                    .peek()
                    .is_some_and(|n| n.is_alphanumeric() || matches!(n, '_' | '.' | '$'))
                {
                    chars.next();
                }
                push_hole(&mut out);
            }
            c => out.push(c),
        }
    }
    out
}

fn push_hole(title: &mut String) {
    if !title.ends_with(HOLE) {
        title.push(HOLE);
    }
}

/// The string literal opening at `at`: its value, with a [`HOLE`] for each `${}` of a
/// template (`None` when it does not end), and where it ends.
fn skip_string(bytes: &[u8], at: usize) -> (Option<String>, usize) {
    let quote = bytes[at];
    let mut value = Vec::new();
    let mut i = at + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => {
                match bytes.get(i + 1) {
                    Some(b'n') => value.push(b'\n'),
                    Some(b't') => value.push(b'\t'),
                    Some(&other) => value.push(other),
                    None => {}
                }
                i += 2;
                continue;
            }
            b'$' if quote == b'`' && bytes.get(i + 1) == Some(&b'{') => {
                let Some(end) = skip_balanced(bytes, i + 1) else {
                    return (None, bytes.len());
                };
                let mut hole = [0u8; 4];
                if !value.ends_with(HOLE.encode_utf8(&mut hole).as_bytes()) {
                    value.extend_from_slice(HOLE.encode_utf8(&mut hole).as_bytes());
                }
                i = end;
                continue;
            }
            b'\n' if quote != b'`' => return (None, i),
            c if c == quote => {
                let text = String::from_utf8_lossy(&value).into_owned();
                return (Some(text), i + 1);
            }
            c => value.push(c),
        }
        i += 1;
    }
    (None, bytes.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn modules(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(d, m)| ((*d).to_owned(), (*m).to_owned()))
            .collect()
    }

    #[test]
    fn go_test_functions_are_named_by_package_and_function() {
        let text = "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {}\nfunc TestAdd_Mixed(t *testing.T) {}\nfunc Testadd(t *testing.T) {}\nfunc helper(t *testing.T) {}\nfunc TestHelper(x int) {}\nfunc FuzzAdd(f *testing.F) {}\nfunc BenchmarkAdd(b *testing.B) {}\n";
        let mods = modules(&[("", "example.com/calc"), ("tools", "example.com/tools")]);
        let root = declared_file("calc_test.go", text, &mods);
        assert_eq!(
            root.ids,
            [
                "example.com/calc/TestAdd",
                "example.com/calc/TestAdd_Mixed",
                "example.com/calc/FuzzAdd"
            ]
        );
        assert!(root.declares_tests && root.owns("example.com/calc/TestAdd/case_1"));
        assert!(!root.owns("example.com/calc/TestAddition"));
        assert!(root.same_package("example.com/calc/TestOther"));
        assert!(!root.same_package("example.com/calc/sub/TestOther"));
        let sub = declared_file("internal/spec/x_test.go", text, &mods);
        assert_eq!(sub.ids[0], "example.com/calc/internal/spec/TestAdd");
        let tool = declared_file("tools/a/x_test.go", text, &mods);
        assert_eq!(tool.ids[0], "example.com/tools/a/TestAdd");
        // Behind a build constraint, the package alone does not make its tests required.
        let tagged = declared_file("e2e_test.go", &format!("//go:build e2e\n\n{text}"), &mods);
        assert!(tagged.constrained && !tagged.same_package("example.com/calc/TestOther"));
        assert!(tagged.owns("example.com/calc/TestAdd"));
        // A `_test.go` with no test function (a helper) declares none.
        assert!(
            !declared_file("h_test.go", "package calc\nfunc helper() {}\n", &mods).declares_tests
        );
    }

    #[test]
    fn javascript_titles_nest_by_suite() {
        let text = r#"
const assert = require("node:assert");
// it("in a comment", () => {});
describe("add", () => {
  it('adds two', () => { assert.equal(add(2, 3), 5); });
  describe(`negative`, function () {
    test("keeps the sign", () => { const s = "}"; });
  });
  it("after the inner suite", () => {});
});
test("top { level", () => {});
it(`built ${n}`, () => {});
it.skip("skipped", () => {});
"#;
        assert_eq!(
            js_title_paths(text),
            [
                "add > adds two",
                "add > after the inner suite",
                "add > negative > keeps the sign",
                format!("built {HOLE}").as_str(),
                "skipped",
                "top { level",
            ]
        );
        let file = declared_file("test/add.test.js", text, &BTreeMap::new());
        assert!(file.owns("add > negative > keeps the sign"));
        assert!(file.owns("add > adds two > sub"));
        assert!(!file.owns("add > adds"));
    }

    #[test]
    fn titles_built_at_run_time_are_read_with_holes() {
        let text = r#"
const cases = [[1, 2, 3], [2, 2, 4]];
test.each(cases)('add(%i, %i) is %i', (a, b, want) => {});
it.each`
  a    | b    | want
  ${1} | ${2} | ${3}
`('returns $want when $a is added to $b', ({ a, b, want }) => {});
describe.each([['neg', -1]])('with %s numbers', (name, n) => {
  test(`adds ${n} to ${n + 1}`, () => {});
});
describe('loop', function () {
  [['Hello World', 'hello-world'], ['Route 66', 'route-66']].forEach(([input, want]) => {
    it('slug of ' + input + ' is ' + want, () => {});
    it(`keeps ${input.length} characters`, () => {});
    it(input, () => {});
  });
});
test(name, () => {});
test("100%% sure %s", () => {});
test(a ? 'x' : 'y', () => {});
"#;
        let h = HOLE;
        let ids = js_title_paths(text);
        assert_eq!(
            ids,
            [
                "100%% sure %s".to_owned(),
                format!("add({h}, {h}) is {h}"),
                format!("loop > keeps {h} characters"),
                format!("loop > slug of {h} is {h}"),
                format!("loop > {h}"),
                format!("returns {h} when {h} is added to {h}"),
                format!("with {h} numbers > adds {h} to {h}"),
            ]
        );
        let file = declared_file("test/add.test.js", text, &BTreeMap::new());
        assert!(file.declares_tests);
        assert!(file.owns("add(1, 2) is 3"));
        assert!(file.owns("with neg numbers > adds -1 to 0"));
        assert!(file.owns("loop > slug of Route 66 is route-66"));
        // A suite's literal title anchors a title of holes alone.
        assert!(file.owns("loop > anything"));
        assert!(!file.owns("add(1, 2) is"));
        assert!(!file.owns("other > adds 1 to 2"));
        assert_eq!(file.literal_ids().collect::<Vec<_>>(), ["100%% sure %s"]);
        // A file whose only test is all holes declares none that can be told.
        assert!(
            !declared_file(
                "test/x.test.js",
                "test(name, () => {});\n",
                &BTreeMap::new()
            )
            .declares_tests
        );
    }

    #[test]
    fn titles_under_a_condition_are_told_apart() {
        let text = r#"
const { slug } = require('../slug');
test('always', () => {
  expect(a && b).toBe(true);
});
if (process.platform === 'win32') {
  test('on windows', () => {});
  describe('drives', () => {
    it('reads C:', () => {});
  });
} else if (process.env.CI) test('in ci', () => {});
else {
  test('elsewhere', () => {});
}
const slow = process.env.SLOW === '1';
slow && test('slow one', () => {});
describe('suite', () => {
  it('kept', () => {});
  if (!slug.fast) return;
  it('fast only', () => {});
});
switch (process.arch) {
  case 'arm64':
    test('on arm', () => {});
}
test('after all', () => {});
if (a) { test('both ways', () => {}); }
test('both ways', () => {});
"#;
        let file = declared_file("test/slug.test.js", text, &BTreeMap::new());
        assert_eq!(
            file.conditional,
            [
                "drives > reads C:",
                "elsewhere",
                "in ci",
                "on arm",
                "on windows",
                "slow one",
                "suite > fast only",
            ]
        );
        assert_eq!(
            file.literal_ids().collect::<Vec<_>>(),
            ["after all", "always", "both ways", "suite > kept"]
        );
        // Still the file's own: a run of one is judged.
        assert!(file.owns("on windows"));
    }

    #[test]
    fn a_title_with_holes_matches_in_order() {
        let p = format!("a{HOLE}b{HOLE}c");
        assert!(
            matches_title(&p, "abc") && matches_title(&p, "a-b-c") && matches_title(&p, "abbc")
        );
        assert!(!matches_title(&p, "ab") && !matches_title(&p, "bac") && !matches_title(&p, "a-c"));
        assert!(
            matches_title(&format!("{HOLE}"), "")
                && matches_title("x", "x")
                && !matches_title("x", "xy")
        );
        assert!(!matches_title(&format!("ab{HOLE}ba"), "aba"));
    }

    #[test]
    fn python_and_rust_files_say_whether_they_declare_tests() {
        let no = BTreeMap::new();
        assert!(declared_file("tests/test_a.py", "def test_a():\n    pass\n", &no).declares_tests);
        assert!(
            declared_file(
                "tests/test_t.py",
                "class A(unittest.TestCase):\n    pass\n",
                &no
            )
            .declares_tests
        );
        assert!(!declared_file("tests/helpers.py", "def make():\n    pass\n", &no).declares_tests);
        // A helper defining a `test_…` function is no test file by the runners' names.
        assert!(
            !declared_file("tests/data.py", "def test_data():\n    pass\n", &no).declares_tests
        );
        assert!(declared_file("test/add.test.js", "test('a', () => {});\n", &no).declares_tests);
        assert!(declared_file("test/add.js", "it('a', () => {});\n", &no).declares_tests);
        assert!(!declared_file("src/util.js", "test('a', () => {});\n", &no).declares_tests);
        assert!(declared_file("tests/reset.rs", "#[test]\nfn r() {}\n", &no).declares_tests);
        assert!(!declared_file("tests/data.json", "{}", &no).declares_tests);
    }
}
