//! Clones of a test. A unit whose withheld files hold one twinnable test cannot split its
//! twins between two passes; a copy of that test, right after it under a new name with a
//! byte-identical body, lets it: one pass twins the original and keeps the copy as
//! written, the other the other way round.
//!
//! A copy is made only where its runner is sure to collect it and run it as it runs the
//! original: a test whose name the file uses nowhere else (no test calls it, no title is
//! referenced), delimited exactly (decorators and attributes read in full), whose body does
//! not read its own name (`t.Name()`, `request.node`, snapshots named after it) nor shares
//! what a second run would clash over (`t.Parallel()`, a handler registered once).

use super::lang::{after_last_text, go_tests, javascript_tests, python_tests, rust_tests};
use super::lines::{JS, PY, RUST, Test, closing, depth, indent};
use super::naming::{Draw, Style, extended_name, parts, words};

/// What a test's body holds when it reads its own name or would clash with a copy of
/// itself, by language.
const PY_OWN: [&str; 8] = [
    "request.",
    "snapshot",
    "_testMethodName",
    "self.id()",
    "__name__",
    "_getframe",
    "inspect.",
    "PYTEST_CURRENT_TEST",
];
const GO_OWN: [&str; 9] = [
    ".Name()",
    "Parallel(",
    "HandleFunc(",
    "http.Handle(",
    "flag.",
    "golden",
    "snapshot",
    "cupaloy",
    "runtime.Caller",
];
const RUST_OWN: [&str; 7] = [
    "snapshot",
    "function_name",
    "module_path!",
    "line!",
    "file!",
    "column!",
    "thread::current()",
];
const JS_OWN: [&str; 6] = [
    "Snapshot",
    "currentTestName",
    "expect.getState",
    "this.test",
    "this.currentTest",
    "testPath",
];

/// A copy to insert: before line `at`, after `gap` blank lines, its `lines`, its `name`.
struct Copy {
    at: usize,
    gap: usize,
    lines: Vec<String>,
    name: String,
}

/// A copy of the test `name` of the test file `path` (text `text`), right after it under
/// a new name (new to the file and to `taken`), which its runner collects and reports as a
/// test of its own: the file's text with it, and the new name (a JavaScript title; for a
/// row of `test.each`, the copy's row). `None` where a copy cannot be made safely, or
/// where `name` takes a twin in the file read alone but the copy or it would not.
///
/// `taken` must say which names the unit holds outside this file: a Go test's name is the
/// package's, so one another file of the package declares would not compile.
pub(super) fn cloned(
    path: &str,
    text: &str,
    name: &str,
    draw: &mut Draw,
    taken: &dyn Fn(&str) -> bool,
) -> Option<(String, String)> {
    let mut lines: Vec<String> = text.split('\n').map(str::to_owned).collect();
    let extension = path.rsplit_once('.').map_or("", |(_, e)| e);
    let copy = match extension {
        "py" => python(&lines, name, draw, taken)?,
        "go" if path.ends_with("_test.go") => go(&lines, name, draw, taken)?,
        "rs" => rust(&lines, name, draw, taken)?,
        "js" | "cjs" | "mjs" | "ts" | "cts" | "mts" | "jsx" | "tsx" => {
            javascript(&lines, name, draw, taken)?
        }
        _ => return None,
    };
    let mut new = vec![String::new(); copy.gap];
    new.extend(copy.lines);
    lines.splice(copy.at..copy.at, new);
    let out = lines.join("\n");
    Some((out, copy.name))
}

/// The one item of `items`; `None` for none or several.
fn one<T>(mut items: impl Iterator<Item = T>) -> Option<T> {
    let first = items.next()?;
    items.next().is_none().then_some(first)
}

/// How many times `name` stands as a whole identifier in the lines of `lines` that are
/// not comments (opened by `comment`), strings included.
fn uses(lines: &[String], name: &str, comment: &str) -> usize {
    let id = |c: char| c.is_alphanumeric() || c == '_';
    lines
        .iter()
        .filter(|l| !l.trim_start().starts_with(comment))
        .map(|l| {
            l.match_indices(name)
                .filter(|(at, _)| {
                    !l[..*at].chars().next_back().is_some_and(id)
                        && !l[at + name.len()..].chars().next().is_some_and(id)
                })
                .count()
        })
        .sum()
}

/// A new name after `base`, drawn from the words of `text`, in no line of it and not
/// `taken`: `base` with a word added, so that a runner that orders tests by name (unittest,
/// pytest's `TestCase` classes) runs the copy right after its original, never before.
fn new_name(
    text: &str,
    base: &str,
    style: Style,
    draw: &mut Draw,
    taken: &dyn Fn(&str) -> bool,
) -> Option<String> {
    let own = parts(base, style);
    extended_name(text, base, style, draw, &|name| {
        let odd = parts(name, style)
            .iter()
            .any(|p| tooling(p) && !own.iter().any(|o| o.eq_ignore_ascii_case(p)));
        odd || text.contains(name) || taken(name)
    })
}

/// Whether a word names a test framework or its tooling (`pytest`, `vitest`): drawn from
/// the imports, it would not read as the project's own name for a test.
fn tooling(word: &str) -> bool {
    const TOOLING: [&str; 12] = [
        "pytest", "unittest", "vitest", "jest", "mocha", "chai", "node", "testify", "require",
        "assert", "expect", "strict",
    ];
    TOOLING.iter().any(|t| t.eq_ignore_ascii_case(word))
}

/// The blank lines the file puts between its tests, read around the test of lines
/// `first..after`: those after it where a line at its indentation follows, else those
/// before it (past its comments) where a line at its indentation or deeper precedes;
/// `default` where neither does. At most two.
fn gap(lines: &[String], (first, after): (usize, usize), default: usize, comment: &str) -> usize {
    let own = indent(&lines[first]);
    let blank = |l: &&String| l.trim().is_empty();
    let below = lines[after..].iter().take_while(blank).count();
    if lines.get(after + below).is_some_and(|l| indent(l) == own) {
        return below.min(2);
    }
    let top = lines[..first]
        .iter()
        .rev()
        .take_while(|l| l.trim_start().starts_with(comment) && indent(l) == own)
        .count();
    let top = first - top;
    let above = lines[..top].iter().rev().take_while(blank).count();
    match top.checked_sub(above + 1) {
        Some(prev) if indent(&lines[prev]).len() >= own.len() => above.min(2),
        _ => default,
    }
}

/// Python: a `def test…` function, or a method of a class at the module's level, with its
/// decorators.
fn python(
    lines: &[String],
    name: &str,
    draw: &mut Draw,
    taken: &dyn Fn(&str) -> bool,
) -> Option<Copy> {
    let test = one(python_tests(lines).into_iter().filter(|t| t.name == name))?;
    let (start, end) = test.body;
    let head = format!("def {name}(");
    let def = lines[..start]
        .iter()
        .rposition(|l| l.trim_start().starts_with(&head))?;
    let own = indent(&lines[def]);
    if !own.is_empty() && !in_class(lines, def) {
        return None;
    }
    let first = decorators(lines, def)?;
    let after = after_last_text(lines, start, end);
    let body = lines[def..after].join("\n");
    if after <= start || uses(lines, name, "#") != 1 || PY_OWN.iter().any(|m| body.contains(m)) {
        return None;
    }
    let text = lines.join("\n");
    let new = new_name(&text, name, Style::Snake, draw, taken).filter(|n| n.starts_with("test"))?;
    let mut copy = lines[first..after].to_vec();
    copy[def - first] = lines[def].replacen(&head, &format!("def {new}("), 1);
    let default = if own.is_empty() { 2 } else { 1 };
    Some(Copy {
        at: after,
        gap: gap(lines, (first, after), default, "#"),
        lines: copy,
        name: new,
    })
}

/// Whether the method defined on line `def` is in a class at the module's level.
fn in_class(lines: &[String], def: usize) -> bool {
    let own = indent(&lines[def]).len();
    lines[..def]
        .iter()
        .rev()
        .find(|l| !l.trim().is_empty() && indent(l).len() < own)
        .is_some_and(|l| l.starts_with("class ") && l.trim_end().ends_with(':'))
}

/// The first line of the decorators of the function defined on line `def` (`def` where it
/// has none); `None` where a decorator may stand above that is not read in full (behind a
/// blank line, a comment, or a bracket left open).
pub(super) fn decorators(lines: &[String], def: usize) -> Option<usize> {
    let own = indent(&lines[def]);
    let mut first = def;
    loop {
        // The nearest line above at the function's indentation that opens a statement.
        let above = (0..first).rev().find(|&j| {
            let l = lines[j].trim_start();
            !l.is_empty() && indent(&lines[j]).len() <= own.len() && !l.starts_with([')', ']', '}'])
        });
        let Some(j) = above else {
            return Some(first);
        };
        let block = &lines[j..first];
        let line = lines[j].trim_start();
        if indent(&lines[j]) == own
            && line.starts_with('@')
            && block.iter().all(|l| !l.trim().is_empty())
            && depth(&block.join("\n"), PY.0) == 0
        {
            first = j;
            continue;
        }
        // The statement above, past comments and blank lines: a decorator there is one
        // not read in full.
        let opener = (0..first).rev().map(|j| &lines[j]).find(|l| {
            let t = l.trim_start();
            !t.is_empty()
                && !t.starts_with('#')
                && indent(l).len() <= own.len()
                && !t.starts_with([')', ']', '}'])
        });
        let unread = opener.is_some_and(|l| indent(l) == own && l.trim_start().starts_with('@'));
        return (!unread && !line.starts_with('@')).then_some(first);
    }
}

/// Go: `func TestX(t *testing.T) { … }` as `func TestY(t *testing.T) { … }`.
fn go(lines: &[String], name: &str, draw: &mut Draw, taken: &dyn Fn(&str) -> bool) -> Option<Copy> {
    let (_, _, start, end) = one(go_tests(lines).into_iter().filter(|t| t.0 == name))?;
    let def = start.checked_sub(1)?;
    let body = lines[def..=end].join("\n");
    // A subtest named from the test's name (`t.Run("TestX", …)`, `t.Run(t.Name()+…)`):
    // its id ends in a name of the other test.
    let inner = lines[start..end].join("\n");
    if uses(lines, name, "//") != 1
        || inner.contains(name)
        || GO_OWN.iter().any(|m| body.contains(m))
    {
        return None;
    }
    let text = lines.join("\n");
    // `go test` runs `TestX` where `X` does not start with a lowercase letter.
    let runs = |n: &String| {
        n.strip_prefix("Test")
            .is_some_and(|rest| !rest.starts_with(|c: char| c.is_lowercase()))
    };
    let new = new_name(&text, name, Style::Camel, draw, taken).filter(runs)?;
    let head = format!("func {name}(");
    let mut copy = lines[def..=end].to_vec();
    copy[0] = lines[def].replacen(&head, &format!("func {new}("), 1);
    Some(Copy {
        at: end + 1,
        gap: gap(lines, (def, end + 1), 1, "//"),
        lines: copy,
        name: new,
    })
}

/// Rust: `#[test]` with the attributes on it and `fn x() { … }`, at its indentation.
fn rust(
    lines: &[String],
    name: &str,
    draw: &mut Draw,
    taken: &dyn Fn(&str) -> bool,
) -> Option<Copy> {
    let test = one(rust_tests(lines).into_iter().filter(|t| t.name == name))?;
    let (start, end) = test.body;
    let def = start.checked_sub(1)?;
    let marker = lines[..def].iter().rposition(|l| l.trim() == "#[test]")?;
    let first = attributes(lines, marker)?;
    let body = lines[first..=end].join("\n");
    if uses(lines, name, "//") != 1 || RUST_OWN.iter().any(|m| body.contains(m)) {
        return None;
    }
    let text = lines.join("\n");
    let new = new_name(&text, name, Style::Snake, draw, taken)?;
    let mut copy = lines[first..=end].to_vec();
    copy[def - first] = lines[def].replacen(&format!("fn {name}("), &format!("fn {new}("), 1);
    Some(Copy {
        at: end + 1,
        gap: gap(lines, (first, end + 1), 1, "//"),
        lines: copy,
        name: new,
    })
}

/// The first line of the attributes above the `#[test]` on line `marker` (each on a line
/// of its own at its indentation); `None` where one spans lines.
fn attributes(lines: &[String], marker: usize) -> Option<usize> {
    let own = indent(&lines[marker]);
    let mut first = marker;
    while let Some(line) = first.checked_sub(1).map(|j| &lines[j]) {
        let t = line.trim();
        if indent(line) == own && t.starts_with("#[") && t.ends_with(']') && depth(t, RUST.0) == 0 {
            first -= 1;
            continue;
        }
        // An attribute over several lines, not read.
        if t.ends_with(']') || t.starts_with("#[") || t.ends_with(',') || t.ends_with('(') {
            return None;
        }
        break;
    }
    Some(first)
}

/// JavaScript and TypeScript: `test("title", () => { … })` or `it(…)`, or a whole
/// `test.each(…)(…)` call, with a new title.
fn javascript(
    lines: &[String],
    name: &str,
    draw: &mut Draw,
    taken: &dyn Fn(&str) -> bool,
) -> Option<Copy> {
    let plain: Vec<Test> = javascript_tests(lines)
        .into_iter()
        .filter(|t| t.name == name)
        .collect();
    let each = each_calls(lines, name);
    let text = lines.join("\n");
    let (first, last, title) = match (plain.as_slice(), each.as_slice()) {
        ([test], []) => (test.body.0.checked_sub(1)?, test.body.1, name.to_owned()),
        ([], [(first, last, title)]) => (*first, *last, title.clone()),
        _ => return None,
    };
    let body = lines[first..=last].join("\n");
    if quoted(&text, &title) != 1 || JS_OWN.iter().any(|m| body.contains(m)) {
        return None;
    }
    let (new, shown) = if title.contains(['%', '$']) {
        each_title(&text, (&title, name), draw, taken)?
    } else {
        let new = new_name(&text, &title, Style::Title, draw, taken)?;
        (new.clone(), new)
    };
    let copy = retitled(&body, &title, &new)?;
    Some(Copy {
        at: last + 1,
        gap: gap(lines, (first, last + 1), 1, "//"),
        lines: copy.split('\n').map(str::to_owned).collect(),
        name: shown,
    })
}

/// How many times `title` stands quoted in `text`.
fn quoted(text: &str, title: &str) -> usize {
    ['"', '\'', '`']
        .iter()
        .map(|q| text.matches(&format!("{q}{title}{q}")).count())
        .sum()
}

/// `text` with its quoted `old` (the first) quoted as `new`.
fn retitled(text: &str, old: &str, new: &str) -> Option<String> {
    ['"', '\'', '`'].iter().find_map(|q| {
        let old = format!("{q}{old}{q}");
        text.contains(&old)
            .then(|| text.replacen(&old, &format!("{q}{new}{q}"), 1))
    })
}

/// The `test.each(…)(…)` (`it.each`) calls of `lines`, each ending its last line, whose
/// title names `name` (the title itself, or a row's title built from it): their first and
/// last lines and their title.
fn each_calls(lines: &[String], name: &str) -> Vec<(usize, usize, String)> {
    let quotes = JS.0;
    (0..lines.len())
        .filter_map(|first| {
            let t = lines[first].trim_start();
            if !(t.starts_with("test.each(") || t.starts_with("it.each(")) {
                return None;
            }
            let text = lines[first..].join("\n");
            let open = text.find(".each(")? + ".each".len();
            let call = closing(&text, open, quotes)? + 1;
            let rest = text[call..].strip_prefix('(')?;
            let quote = rest
                .chars()
                .next()
                .filter(|q| matches!(q, '"' | '\'' | '`'))?;
            let (title, _) = rest[1..].split_once(quote)?;
            if title.contains('\\') || title.contains("${") || !each_names(title, name) {
                return None;
            }
            let end = closing(&text, call, quotes)?;
            let tail = text[end + 1..].split('\n').next()?;
            (tail.is_empty() || tail == ";").then(|| {
                let last = first + text[..end].matches('\n').count();
                (first, last, title.to_owned())
            })
        })
        .collect()
}

/// Whether `name` is `title`, or a row's title built from it: `%…` and `$key` stand for
/// any text, the rest as written.
fn each_names(title: &str, name: &str) -> bool {
    let mut pieces = vec![String::new()];
    let mut chars = title.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '%' => {
                chars.next();
                pieces.push(String::new());
            }
            '$' => {
                while chars
                    .next_if(|c| c.is_alphanumeric() || *c == '_' || *c == '.')
                    .is_some()
                {}
                pieces.push(String::new());
            }
            c => pieces.last_mut().into_iter().for_each(|p| p.push(c)),
        }
    }
    let [first, middle @ .., last] = pieces.as_slice() else {
        return title == name;
    };
    let Some(mut rest) = name
        .strip_prefix(first.as_str())
        .and_then(|r| r.strip_suffix(last.as_str()))
    else {
        return false;
    };
    for piece in middle {
        let Some(at) = rest.find(piece.as_str()) else {
            return false;
        };
        rest = &rest[at + piece.len()..];
    }
    true
}

/// A new title for a `test.each` whose `title` prints its rows (`%i`, `$a`), named `name`
/// (the title or a row's): its first word, printed as written, replaced by a word of
/// `text` that opens no quoted text there, so that no row of the copy can be titled as a
/// row of the original. The new title and the copy's `name`.
fn each_title(
    text: &str,
    (title, name): (&str, &str),
    draw: &mut Draw,
    taken: &dyn Fn(&str) -> bool,
) -> Option<(String, String)> {
    let (word, rest) = title.split_once(' ')?;
    if word.is_empty() || word.contains(['%', '$']) || rest.is_empty() {
        return None;
    }
    let tail = name.strip_prefix(word)?.strip_prefix(' ')?;
    let pool = words(text);
    (0..20).find_map(|_| {
        let drawn = pool.get(draw.below(pool.len()))?;
        let new = format!("{drawn} {rest}");
        let opens = ['"', '\'', '`']
            .iter()
            .any(|q| text.contains(&format!("{q}{drawn} ")));
        let shown = format!("{drawn} {tail}");
        (drawn != word
            && !tooling(drawn)
            && !opens
            && !text.contains(&new)
            && !taken(&new)
            && !taken(&shown))
        .then_some((new, shown))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::twins::{Coin, twin_of};

    struct Up;
    impl Coin for Up {
        fn flip(&mut self) -> bool {
            true
        }
    }

    fn split(text: &str) -> Vec<String> {
        text.split('\n').map(str::to_owned).collect()
    }

    fn clone_of(path: &str, text: &str, name: &str) -> Option<(String, String)> {
        let mut draw = Draw::new("clone", path);
        cloned(path, text, name, &mut draw, &|_| false)
    }

    /// The clone of `name` in `text`, checked: lines inserted and nothing else changed,
    /// both names found by `found`, both tests twinned with the same statements changed.
    fn checked(
        path: &str,
        text: &str,
        name: &str,
        found: &dyn Fn(&[String]) -> Vec<String>,
    ) -> (String, String) {
        let (out, new) = clone_of(path, text, name).expect("a clone");
        assert_ne!(new, name);
        let (a, b) = (split(text), split(&out));
        let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
        let suffix = a[prefix..]
            .iter()
            .rev()
            .zip(b.iter().rev())
            .take_while(|(x, y)| x == y)
            .count();
        assert_eq!(prefix + suffix, a.len(), "not an insertion:\n{out}");
        let names = found(&b);
        for n in [name, new.as_str()] {
            assert!(names.iter().any(|f| f == n), "{n} not in {names:?}");
        }
        let (twin, twinned) = twin_of(path, &out, &mut Up).expect("twinned");
        for n in [name, new.as_str()] {
            assert!(
                twinned.iter().any(|f| f == n),
                "{n} not twinned: {twinned:?}"
            );
        }
        let changed: Vec<(&str, &str)> = out
            .split('\n')
            .zip(twin.split('\n'))
            .filter(|(x, y)| x != y)
            .collect();
        assert!(!changed.is_empty());
        for pair in &changed {
            let times = changed.iter().filter(|p| *p == pair).count();
            assert_eq!(times % 2, 0, "{pair:?} changed in one test alone");
        }
        (out, new)
    }

    fn python_names(lines: &[String]) -> Vec<String> {
        python_tests(lines).into_iter().map(|t| t.name).collect()
    }

    fn rust_names(lines: &[String]) -> Vec<String> {
        rust_tests(lines).into_iter().map(|t| t.name).collect()
    }

    fn js_names(lines: &[String]) -> Vec<String> {
        javascript_tests(lines)
            .into_iter()
            .map(|t| t.name)
            .collect()
    }

    fn go_names(lines: &[String]) -> Vec<String> {
        go_tests(lines).into_iter().map(|t| t.0).collect()
    }

    const PYTEST: &str = "import pytest\n\nfrom inventory import Inventory\n\n\n@pytest.fixture\ndef stocked():\n    inv = Inventory()\n    inv.add(\"apple\", 3)\n    return inv\n\n\ndef test_remove_lowers_count(stocked):\n    stocked.remove(\"apple\", 2)\n    assert stocked.count(\"apple\") == 1\n";

    #[test]
    fn a_pytest_function_is_copied_after_itself() {
        let (out, new) = checked(
            "tests/test_inventory.py",
            PYTEST,
            "test_remove_lowers_count",
            &python_names,
        );
        assert!(new.starts_with("test_remove_lowers_"), "{new}");
        let body = "(stocked):\n    stocked.remove(\"apple\", 2)\n    assert stocked.count(\"apple\") == 1\n";
        let expected = format!("{}\n\n\ndef {new}{body}", PYTEST.trim_end_matches('\n'));
        assert_eq!(out, expected);
    }

    #[test]
    fn a_test_case_method_and_a_parametrized_test_take_their_class_and_decorators() {
        let unittest = "import unittest\n\nfrom inventory import Inventory\n\n\nclass InventoryTest(unittest.TestCase):\n    def setUp(self):\n        self.inv = Inventory()\n\n    def test_remove_lowers_count(self):\n        self.inv.add(\"apple\", 3)\n        self.inv.remove(\"apple\", 2)\n        self.assertEqual(self.inv.count(\"apple\"), 1)\n\n\nif __name__ == \"__main__\":\n    unittest.main()\n";
        let (out, new) = checked(
            "tests/test_inventory.py",
            unittest,
            "test_remove_lowers_count",
            &python_names,
        );
        let copy = format!(
            "        self.assertEqual(self.inv.count(\"apple\"), 1)\n\n    def {new}(self):\n        self.inv.add(\"apple\", 3)\n        self.inv.remove(\"apple\", 2)\n        self.assertEqual(self.inv.count(\"apple\"), 1)\n\n\nif __name__"
        );
        assert!(out.contains(&copy), "{out}");
        let table = "import pytest\n\nfrom calc import add\n\n\n@pytest.mark.slow\n@pytest.mark.parametrize(\n    \"a, b, expected\",\n    [\n        (2, 3, 5),\n        (-1, 1, 0),\n    ],\n)\ndef test_add(a, b, expected):\n    assert add(a, b) == expected\n\n\ndef helper():\n    return 1\n";
        let (out, new) = checked("tests/test_add.py", table, "test_add", &python_names);
        let decorated = "@pytest.mark.slow\n@pytest.mark.parametrize(\n    \"a, b, expected\",\n    [\n        (2, 3, 5),\n        (-1, 1, 0),\n    ],\n)\ndef ";
        let copy = format!(
            "{decorated}test_add(a, b, expected):\n    assert add(a, b) == expected\n\n\n{decorated}{new}(a, b, expected):\n    assert add(a, b) == expected\n\n\ndef helper"
        );
        assert!(out.contains(&copy), "{out}");
    }

    const GO_TEST: &str = "package inventory\n\nimport \"testing\"\n\n// TestRemove checks that removing lowers the count.\nfunc TestRemove(t *testing.T) {\n\tinv := New()\n\tinv.Add(\"apple\", 3)\n\tinv.Remove(\"apple\", 2)\n\tif got := inv.Count(\"apple\"); got != 1 {\n\t\tt.Fatalf(\"Count = %d, want 1\", got)\n\t}\n}\n";

    #[test]
    fn a_go_test_is_copied_as_another_test_function() {
        let (out, new) = checked(
            "inventory/inventory_test.go",
            GO_TEST,
            "TestRemove",
            &go_names,
        );
        assert!(new.starts_with("TestRemove"), "{new}");
        let body = "(t *testing.T) {\n\tinv := New()\n\tinv.Add(\"apple\", 3)\n\tinv.Remove(\"apple\", 2)\n\tif got := inv.Count(\"apple\"); got != 1 {\n\t\tt.Fatalf(\"Count = %d, want 1\", got)\n\t}\n}\n";
        assert_eq!(out, format!("{}\n\nfunc {new}{body}", GO_TEST.trim_end()));
    }

    #[test]
    fn a_rust_test_is_copied_with_its_attributes_at_its_indentation() {
        let text = "use inventory::Inventory;\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn helper_is_not_a_test() {}\n\n    #[cfg(unix)]\n    #[test]\n    #[allow(unused_mut)]\n    fn remove_lowers_count() {\n        let mut inv = Inventory::new();\n        inv.add(\"apple\", 3);\n        inv.remove(\"apple\", 2);\n        assert_eq!(inv.count(\"apple\"), 1);\n    }\n}\n";
        let (out, new) = checked(
            "tests/inventory.rs",
            text,
            "remove_lowers_count",
            &rust_names,
        );
        let copy = format!(
            "    }}\n\n    #[cfg(unix)]\n    #[test]\n    #[allow(unused_mut)]\n    fn {new}() {{\n        let mut inv = Inventory::new();\n        inv.add(\"apple\", 3);\n        inv.remove(\"apple\", 2);\n        assert_eq!(inv.count(\"apple\"), 1);\n    }}\n}}\n"
        );
        assert!(out.ends_with(&copy), "{out}");
    }

    const NODE_TEST: &str = "const { test } = require(\"node:test\");\nconst assert = require(\"node:assert\");\nconst { Inventory } = require(\"../src/inventory\");\n\ntest(\"removing lowers the count\", () => {\n  const inv = new Inventory();\n  inv.add(\"apple\", 3);\n  inv.remove(\"apple\", 2);\n  assert.strictEqual(inv.count(\"apple\"), 1);\n});\n";

    #[test]
    fn a_javascript_test_is_copied_with_a_new_title() {
        let (out, new) = checked(
            "test/inventory.test.js",
            NODE_TEST,
            "removing lowers the count",
            &js_names,
        );
        assert!(new.starts_with("removing lowers the "), "{new}");
        let body = "\", () => {\n  const inv = new Inventory();\n  inv.add(\"apple\", 3);\n  inv.remove(\"apple\", 2);\n  assert.strictEqual(inv.count(\"apple\"), 1);\n});\n";
        assert_eq!(
            out,
            format!("{}\n\ntest(\"{new}{body}", NODE_TEST.trim_end())
        );
        // jest's `it` in a `describe`, at its indentation.
        let jest = "import { add } from \"../src/calc\";\n\ndescribe(\"add\", () => {\n  it(\"adds small numbers\", () => {\n    expect(add(2, 3)).toBe(5);\n  });\n});\n";
        let (out, new) = checked("src/calc.test.ts", jest, "adds small numbers", &js_names);
        let copy = format!(
            "  }});\n\n  it(\"{new}\", () => {{\n    expect(add(2, 3)).toBe(5);\n  }});\n}});\n"
        );
        assert!(out.ends_with(&copy), "{out}");
    }

    #[test]
    fn a_test_each_call_is_copied_whole_with_a_new_title() {
        let text = "import { add } from \"../src/calc\";\n\ntest.each([\n  [2, 3, 5],\n])(\"add(%i, %i) is right\", (a, b, expected) => {\n  expect(add(a, b)).toBe(expected);\n});\n";
        // A title that starts with a row's value has no word to change.
        assert_eq!(clone_of("calc.test.js", text, "add(2, 3) is right"), None);
        let text = text.replace("add(%i, %i) is right", "sums %i and %i");
        for name in ["sums 2 and 3", "sums %i and %i"] {
            let (out, new) = clone_of("calc.test.js", &text, name).expect("a clone");
            let (word, rest) = new.split_once(' ').expect("two words");
            assert_ne!(word, "sums");
            assert_eq!(rest, &name["sums ".len()..]);
            let (_, twinned) = twin_of("calc.test.js", &out, &mut Up).expect("twinned");
            let copy = format!("{word} 2 and 3");
            assert!(twinned.contains(&"sums 2 and 3".to_owned()), "{twinned:?}");
            assert!(twinned.contains(&copy), "{twinned:?}");
            let call = "test.each([\n  [2, 3, 5],\n])(\"";
            let body =
                " %i and %i\", (a, b, expected) => {\n  expect(add(a, b)).toBe(expected);\n});\n";
            assert!(
                out.ends_with(&format!("{body}\n{call}{word}{body}")),
                "{out}"
            );
        }
    }

    #[test]
    fn a_test_named_elsewhere_in_its_file_is_not_copied() {
        let called = format!(
            "{PYTEST}\n\ndef test_twice(stocked):\n    test_remove_lowers_count(stocked)\n"
        );
        let method = "class T(unittest.TestCase):\n    def test_a(self):\n        self.assertEqual(f(), 1)\n\n    def test_b(self):\n        self.test_a()\n";
        let go_called =
            format!("{GO_TEST}\nfunc TestTwice(t *testing.T) {{\n\tTestRemove(t)\n}}\n");
        let go_sub = GO_TEST.replace(
            "\tinv := New()\n",
            "\tt.Run(\"TestRemove_empty\", func(t *testing.T) {})\n\tinv := New()\n",
        );
        let rust_called = "#[test]\nfn adds() {\n    assert_eq!(add(1, 1), 2);\n}\n\n#[test]\nfn twice() {\n    adds();\n}\n";
        let title = NODE_TEST.replace(
            "});\n",
            "});\n\nconst TITLE = \"removing lowers the count\";\n",
        );
        let cases = [
            ("t/test_i.py", called.as_str(), "test_remove_lowers_count"),
            ("t/test_i.py", method, "test_a"),
            ("i/i_test.go", &go_called, "TestRemove"),
            ("i/i_test.go", &go_sub, "TestRemove"),
            ("tests/add.rs", rust_called, "adds"),
            ("t/i.test.js", &title, "removing lowers the count"),
        ];
        for (path, text, name) in cases {
            assert_eq!(clone_of(path, text, name), None, "{path}: {name}");
        }
        // A comment naming it is no use of it.
        assert!(clone_of("i/i_test.go", GO_TEST, "TestRemove").is_some());
    }

    #[test]
    fn a_test_not_delimited_exactly_is_not_copied() {
        // A decorator behind a comment, one over lines behind a blank line, a test nested
        // in a function, a name the file does not hold as a test.
        let behind = PYTEST.replace(
            "\n\n\ndef test_",
            "\n\n\n@pytest.mark.slow\n# slow\ndef test_",
        );
        let blank = "@pytest.mark.parametrize(\n    \"a\",\n\n    [1],\n)\ndef test_a(a):\n    assert a == 1\n";
        let nested = "def outer():\n    def test_a():\n        assert f() == 1\n";
        // An attribute over lines, a JavaScript test closed off its indentation, two tests
        // of one title.
        let rust = "#[cfg_attr(\n    unix,\n    allow(unused)\n)]\n#[test]\nfn adds() {\n    assert_eq!(add(1, 1), 2);\n}\n";
        let js = "test(\"adds\", () => {\n  expect(add(1, 1)).toBe(2);\n  });\n";
        let twice = "describe(\"a\", () => {\n  it(\"adds\", () => {\n    expect(add(1, 1)).toBe(2);\n  });\n});\ndescribe(\"b\", () => {\n  it(\"adds\", () => {\n    expect(add(1, 1)).toBe(2);\n  });\n});\n";
        let cases = [
            ("t/test_i.py", behind.as_str(), "test_remove_lowers_count"),
            ("t/test_a.py", blank, "test_a"),
            ("t/test_a.py", nested, "test_a"),
            ("t/test_i.py", PYTEST, "test_missing"),
            ("tests/add.rs", rust, "adds"),
            ("t/a.test.js", js, "adds"),
            ("t/a.test.js", twice, "adds"),
            ("i/i_test.go", GO_TEST, "TestMissing"),
        ];
        for (path, text, name) in cases {
            assert_eq!(clone_of(path, text, name), None, "{path}: {name}");
        }
    }

    #[test]
    fn a_test_that_reads_its_own_name_is_not_copied() {
        let run = GO_TEST.replace(
            "\tinv := New()\n",
            "\tt.Run(t.Name()+\"_empty\", func(t *testing.T) {})\n\tinv := New()\n",
        );
        let parallel = GO_TEST.replace("\tinv := New()\n", "\tt.Parallel()\n\tinv := New()\n");
        let node = PYTEST.replace(
            "(stocked):\n",
            "(stocked, request):\n    print(request.node.name)\n",
        );
        let insta = "#[test]\nfn shows() {\n    insta::assert_snapshot!(show(2));\n    assert_eq!(show(1), \"1\");\n}\n";
        let snapshot = "test(\"shows\", () => {\n  expect(show(2)).toMatchSnapshot();\n  expect(show(1)).toBe(\"1\");\n});\n";
        let cases = [
            ("i/i_test.go", run.as_str(), "TestRemove"),
            ("i/i_test.go", &parallel, "TestRemove"),
            ("t/test_i.py", &node, "test_remove_lowers_count"),
            ("tests/show.rs", insta, "shows"),
            ("t/show.test.js", snapshot, "shows"),
        ];
        for (path, text, name) in cases {
            assert_eq!(clone_of(path, text, name), None, "{path}: {name}");
        }
    }

    #[test]
    fn the_new_name_is_new_to_the_file_and_to_taken() {
        let mut draw = Draw::new("clone", "i/i_test.go");
        let mut seen = Vec::new();
        for _ in 0..20 {
            let taken = |n: &str| seen.iter().any(|s: &String| s == n);
            let Some((out, new)) = cloned("i/i_test.go", GO_TEST, "TestRemove", &mut draw, &taken)
            else {
                break;
            };
            assert_eq!(out.matches(&format!("func {new}(")).count(), 1);
            assert!(!GO_TEST.contains(&new) && !seen.contains(&new), "{new}");
            seen.push(new);
        }
        assert!(!seen.is_empty());
        assert_eq!(
            cloned("i/i_test.go", GO_TEST, "TestRemove", &mut draw, &|_| true),
            None
        );
    }

    #[test]
    fn a_test_whose_table_the_copy_would_share_gives_the_copy_no_twin() {
        // Both would read the module's table, which then takes no twin: no use.
        let table = "import pytest\n\nCASES = [\n    (2, 3, 5),\n    (1, 1, 2),\n]\n\n\n@pytest.mark.parametrize(\"a, b, expected\", CASES)\ndef test_add(a, b, expected):\n    assert add(a, b) == expected\n";
        assert!(twin_of("tests/test_t.py", table, &mut Up).is_some());
        let mut draw = Draw::new("clone", "tests/test_t.py");
        let copy = python(&split(table), "test_add", &mut draw, &|_| false).expect("a copy");
        assert_eq!(
            copy.lines[0],
            "@pytest.mark.parametrize(\"a, b, expected\", CASES)"
        );
        // The twin passes take no clone whose twin does not name both (`plant.rs`).
        let (out, new) = clone_of("tests/test_t.py", table, "test_add").expect("copied");
        assert!(twin_of("tests/test_t.py", &out, &mut Up).is_none_or(|(_, n)| !n.contains(&new)));
        let go = "package x\n\nimport \"testing\"\n\nvar cases = []struct {\n\ta, b, want int\n}{\n\t{2, 3, 5},\n}\n\nfunc TestAdd(t *testing.T) {\n\tfor _, c := range cases {\n\t\tif got := Add(c.a, c.b); got != c.want {\n\t\t\tt.Errorf(\"got %d\", got)\n\t\t}\n\t}\n}\n";
        assert!(twin_of("x/x_test.go", go, &mut Up).is_some());
        let (out, new) = clone_of("x/x_test.go", go, "TestAdd").expect("copied");
        assert!(twin_of("x/x_test.go", &out, &mut Up).is_none_or(|(_, n)| !n.contains(&new)));
        // A `want` of its own is the copy's own too.
        let want = "package x\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\twant := 5\n\tif got := Add(2, 3); got != want {\n\t\tt.Errorf(\"got %d\", got)\n\t}\n}\n";
        checked("x/x_test.go", want, "TestAdd", &go_names);
    }

    #[test]
    fn a_row_title_is_read_from_its_each_title() {
        assert!(each_names("sums %i and %i", "sums 2 and 3"));
        assert!(each_names("sums %i and %i", "sums %i and %i"));
        assert!(each_names("adds $a and $b", "adds 1 and 1"));
        assert!(each_names("adds", "adds"));
        assert!(!each_names("adds", "adds 1"));
        assert!(!each_names("sums %i and %i", "adds 2 and 3"));
        assert!(!each_names("sums %i and %i", "sums 2 or 3"));
        // A row of an object table, copied whole with its new title.
        let text = "describe(\"calc\", () => {\n  test.each([\n    { a: 1, b: 1, expected: 2 },\n  ])(\"adds $a and $b\", ({ a, b, expected }) => {\n    expect(add(a, b)).toBe(expected);\n  });\n});\n";
        let (out, new) = clone_of("calc.test.js", text, "adds 1 and 1").expect("a clone");
        let (word, rest) = new.split_once(' ').expect("two words");
        assert_eq!(rest, "1 and 1");
        assert!(out.contains(&format!(
            "  ])(\"{word} $a and $b\", ({{ a, b, expected }}) => {{\n"
        )));
        let (_, twinned) = twin_of("calc.test.js", &out, &mut Up).expect("twinned");
        assert!(twinned.contains(&new) && twinned.contains(&"adds 1 and 1".to_owned()));
    }

    #[test]
    fn a_copys_name_is_its_originals_with_a_word_added() {
        // Runners that order tests by name run the copy right after its original: a
        // test that leaves a folder behind meets its copy's folder only after it ran.
        let py = "import os\nimport unittest\n\n\nclass BigTest(unittest.TestCase):\n    def test_big_value(self):\n        os.mkdir(\"big-out\")\n        self.assertEqual(add(10, 20), 30)\n";
        let go = "package calc\n\nimport \"testing\"\n\nfunc TestBig(t *testing.T) {\n\tif got := Add(10, 20); got != 30 {\n\t\tt.Fatalf(\"got %d\", got)\n\t}\n}\n";
        let js = "const { add } = require(\"../calc\");\n\ntest(\"adds big numbers\", () => {\n  expect(add(10, 20)).toBe(30);\n});\n";
        for n in 0..20 {
            let draw = |p: &str| Draw::new(&format!("sorted {n}"), p);
            let (_, new) = cloned(
                "tests/test_big.py",
                py,
                "test_big_value",
                &mut draw("a"),
                &|_| false,
            )
            .expect("a python copy");
            assert!(
                new.starts_with("test_big_value_") && new.as_str() > "test_big_value",
                "{new}"
            );
            let (_, new) = cloned("calc/big_test.go", go, "TestBig", &mut draw("b"), &|_| {
                false
            })
            .expect("a go copy");
            assert!(
                new.starts_with("TestBig") && new.len() > "TestBig".len(),
                "{new}"
            );
            let (_, new) = cloned(
                "test/big.test.js",
                js,
                "adds big numbers",
                &mut draw("c"),
                &|_| false,
            )
            .expect("a javascript copy");
            assert!(new.starts_with("adds big numbers "), "{new}");
        }
    }
}
