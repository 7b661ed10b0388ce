//! Each language's twin: where its tests are, which of their statements always run, and
//! which of those compare for equality with a literal, written the way the project's tests
//! write them.

use super::lines::{
    Coin, GO, JS, PY, PY_EQUALS, RUST, Reach, Shape, Strings, Test, arguments, changed_value,
    closing, depth, equality, holds_code, indent, level_lines,
};
use super::naming::{Draw, Style, drawn_name, drawn_variable};

/// What changes one statement: the file's lines, the statement's line, the coin; the
/// line's new text.
type Rewrite<'a> = dyn FnMut(&[String], usize, &mut dyn Coin) -> Option<String> + 'a;

/// `line` with the byte range `at` (of its trimmed text) replaced by `new`.
fn replaced(line: &str, at: (usize, usize), new: &str) -> String {
    let lead = indent(line).len();
    format!("{}{new}{}", &line[..lead + at.0], &line[lead + at.1..])
}

/// The changed argument of a call whose text `trimmed` starts with `head` (ending in its
/// open bracket) and ends at its closing bracket, then `tail`: the expected value among
/// the arguments `expected` (the first literal one of them), with its range in `trimmed`.
fn call_literal(
    trimmed: &str,
    head: &str,
    tail: &str,
    expected: &[usize],
    (strings, shape): (Strings, Shape),
    coin: &mut dyn Coin,
) -> Option<((usize, usize), String)> {
    if !trimmed.starts_with(head) {
        return None;
    }
    let open = head.len() - 1;
    let close = closing(trimmed, open, strings.0)?;
    if trimmed[close + 1..].trim_end() != tail {
        return None;
    }
    let inner = &trimmed[open + 1..close];
    let args = arguments(inner, strings.0);
    if args.len() < 2 {
        return None;
    }
    expected.iter().find_map(|&i| {
        let (a, b) = *args.get(i)?;
        let new = expected_changed(&inner[a..b], strings, shape, coin)?;
        Some(((open + 1 + a, open + 1 + b), new))
    })
}

/// Rewrites the statements at each test's own level that `rewrite` changes; the names of
/// the tests changed.
fn rewrite_tests(
    lines: &mut [String],
    tests: Vec<Test>,
    strings: Strings,
    rewrite: &mut Rewrite<'_>,
    coin: &mut dyn Coin,
) -> Vec<String> {
    let mut names = Vec::new();
    for test in tests {
        let mut changed_any = false;
        for i in level_lines(lines, test.body, strings) {
            if let Some(new) = rewrite(lines, i, coin) {
                lines[i] = new;
                changed_any = true;
            }
        }
        if changed_any {
            names.push(test.name);
        }
    }
    names
}

/// Changes the literal side of an equality `expression` (at `offset` in its line's trimmed
/// text): the right side first, the expected value by convention.
fn equality_literal(
    expression: &str,
    offset: usize,
    op: &str,
    (strings, shape): (Strings, Shape),
    coin: &mut dyn Coin,
) -> Option<((usize, usize), String)> {
    let (left, right) = equality(expression, op, strings)?;
    [right, left].into_iter().find_map(|(a, b)| {
        let new = expected_changed(&expression[a..b], strings, shape, coin)?;
        Some(((offset + a, offset + b), new))
    })
}

/// An expected value changed: a literal or a structure of literals, or pytest's
/// `approx(…)` of one, whose tolerance (a millionth of the value) asks a number to move
/// farther than its own size.
pub(super) fn expected_changed(
    expected: &str,
    strings: Strings,
    shape: Shape,
    coin: &mut dyn Coin,
) -> Option<String> {
    if shape == Shape::Python {
        for head in ["pytest.approx(", "approx("] {
            let Some(rest) = expected.strip_prefix(head) else {
                continue;
            };
            let open = head.len() - 1;
            let close = closing(expected, open, strings.0)?;
            let args = arguments(&rest[..close - open - 1], strings.0);
            // `rel=`, `abs=`: a tolerance of the test's own choosing.
            if close + 1 != expected.len() || args.len() != 1 {
                return None;
            }
            let (a, b) = args[0];
            let new = changed_value(&rest[a..b], strings, shape, Reach::Far, coin)?;
            return Some(format!("{head}{new})"));
        }
    }
    changed_value(expected, strings, shape, Reach::Near, coin)
}

/// Python's tests: `def test…` functions and methods without a skip or expected-failure
/// decorator, an early `return`, a `yield` or a skip in their body.
pub(super) fn python_tests(lines: &[String]) -> Vec<Test> {
    let mut tests = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        let Some(rest) = trimmed.strip_prefix("def test") else {
            continue;
        };
        let Some((tail, _)) = rest.split_once('(') else {
            continue;
        };
        if !tail.chars().all(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let own = indent(line).len();
        let decorated = lines[..i]
            .iter()
            .rev()
            .take_while(|l| l.trim_start().starts_with('@'))
            .any(|l| {
                ["skip", "xfail", "expectedFailure", "raises"]
                    .iter()
                    .any(|w| l.contains(w))
            });
        // The signature may span lines: the body starts after the line that ends it.
        let mut j = i;
        let mut open = 0;
        loop {
            open += depth(&lines[j], PY.0);
            if open <= 0 && lines[j].trim_end().ends_with(':') {
                break;
            }
            j += 1;
            if j >= lines.len() {
                break;
            }
        }
        let start = j + 1;
        let mut end = start;
        while end < lines.len() && (lines[end].trim().is_empty() || indent(&lines[end]).len() > own)
        {
            end += 1;
        }
        let body = lines[start.min(end)..end].join("\n");
        let escapes = [
            "return",
            "yield",
            "skipTest",
            "pytest.skip",
            "pytest.xfail",
            "importorskip",
        ];
        if decorated || escapes.iter().any(|w| holds_code(&body, PY.0, w)) {
            continue;
        }
        tests.push(Test {
            name: format!("test{tail}"),
            body: (start.min(end), end),
        });
    }
    tests
}

/// Python: `def test…` functions and methods without a skip or expected-failure decorator,
/// an early `return`, a `yield` or a skip in their body; `assert x == LITERAL` and
/// `self.assertEqual(x, LITERAL)` at the body's level.
pub(super) fn python(text: &str, coin: &mut dyn Coin) -> (String, Vec<String>) {
    python_with(text, &super::helpers::Helpers::new(), coin)
}

/// [`python`], with calls of `helpers` at the body's level whose expected argument is a
/// literal changed too.
pub(super) fn python_with(
    text: &str,
    helpers: &super::helpers::Helpers,
    coin: &mut dyn Coin,
) -> (String, Vec<String>) {
    let mut lines: Vec<String> = text.split('\n').map(str::to_owned).collect();
    let tests = python_tests(&lines);
    // The test classes' own helper methods, reached as `self.check(…)`.
    let mut helpers = helpers.clone();
    helpers.extend(super::helpers::python_methods(text));
    let mut rewrite = |lines: &[String], i: usize, coin: &mut dyn Coin| {
        let line = &lines[i];
        let trimmed = line.trim();
        // A statement alone on its line, not continued on the next.
        if trimmed.ends_with('\\') || trimmed.contains(';') || trimmed.contains('#') {
            return None;
        }
        let (at, new) = if let Some(rest) = trimmed.strip_prefix("assert ") {
            let offset = "assert ".len();
            // The message, if any, stays as it is.
            let (a, b) = *arguments(rest, PY.0).first()?;
            if a != 0 {
                return None;
            }
            equality_literal(&rest[..b], offset, "==", (PY, Shape::Python), coin)?
        } else if let Some(args) = trimmed.strip_prefix("self.assertAlmostEqual(") {
            // Two arguments alone: `places=0` or a `delta` reach farther than a move.
            let inner = args.strip_suffix(')')?;
            if arguments(inner, PY.0).len() != 2 {
                return None;
            }
            call_literal(
                trimmed,
                "self.assertAlmostEqual(",
                "",
                &[1, 0],
                (PY, Shape::Python),
                coin,
            )?
        } else {
            PY_EQUALS
                .iter()
                .find_map(|head| {
                    call_literal(trimmed, head, "", &[1, 0], (PY, Shape::Python), coin)
                })
                .or_else(|| super::helpers::python_call((trimmed, i), &helpers, coin))?
        };
        Some(replaced(line, at, &new))
    };
    let tables: Vec<Test> = tests
        .iter()
        .map(|t| Test {
            name: t.name.clone(),
            body: t.body,
        })
        .collect();
    let mut names = rewrite_tests(&mut lines, tests, PY, &mut rewrite, coin);
    for test in tables {
        if super::tables::python(&mut lines, &test, coin) && !names.contains(&test.name) {
            names.push(test.name);
        }
    }
    (lines.join("\n"), names)
}

/// Go's tests: each `func TestX(t *testing.T)` without a skip or an early `return`, with
/// its parameter's name and its body's lines.
pub(super) fn go_tests(lines: &[String]) -> Vec<(String, String, usize, usize)> {
    let mut tests = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(rest) = line.strip_prefix("func Test") else {
            continue;
        };
        let Some((tail, sig)) = rest.split_once('(') else {
            continue;
        };
        let Some((t, _)) = sig.split_once(" *testing.T) {") else {
            continue;
        };
        let word = |w: &str| w.chars().all(|c| c.is_alphanumeric() || c == '_');
        if !word(tail) || !word(t) || !line.ends_with('{') {
            continue;
        }
        let start = i + 1;
        let Some(end) = lines[start..]
            .iter()
            .position(|l| l == "}")
            .map(|p| start + p)
        else {
            continue;
        };
        let body = lines[start..end].join("\n");
        if ["return", "Skip", "goto"]
            .iter()
            .any(|w| holds_code(&body, GO.0, w))
        {
            continue;
        }
        tests.push((format!("Test{tail}"), t.to_owned(), start, end));
    }
    tests
}

/// The new text of Go's line `i` (in a test ending at line `end`, whose parameter is `t`):
/// `if …; got != LITERAL {` whose block fails the test, or testify's `Equal`.
fn go_line(lines: &[String], i: usize, end: usize, t: &str, coin: &mut dyn Coin) -> Option<String> {
    let line = &lines[i];
    let trimmed = line.trim();
    let (at, new) = if let Some(cond) = trimmed
        .strip_prefix("if ")
        .and_then(|c| c.strip_suffix(" {"))
    {
        // The block must fail the test, and end at the body's level.
        let close = format!("{}}}", indent(line));
        let block: Vec<&String> = lines[i + 1..end]
            .iter()
            .take_while(|l| !l.starts_with(&close))
            .collect();
        let fails = block.iter().any(|l| {
            let l = l.trim_start();
            [".Error(", ".Errorf(", ".Fatal(", ".Fatalf("]
                .iter()
                .any(|f| l.starts_with(&format!("{t}{f}")))
        });
        if !fails || i + 1 + block.len() >= end {
            return None;
        }
        let (offset, cond) = match cond.rfind("; ") {
            Some(at) if depth(&cond[..at], GO.0) == 0 => (at + 2, &cond[at + 2..]),
            _ => (0, cond),
        };
        let offset = "if ".len() + offset;
        match cond.strip_prefix("!reflect.DeepEqual(") {
            Some(_) => {
                let head = "!reflect.DeepEqual(";
                let (at, new) = call_literal(cond, head, "", &[1, 0], (GO, Shape::Go), coin)?;
                ((offset + at.0, offset + at.1), new)
            }
            None => equality_literal(cond, offset, "!=", (GO, Shape::Go), coin)?,
        }
    } else {
        GO_EQUALS.iter().find_map(|head| {
            let args = trimmed.strip_prefix(head)?;
            args.starts_with(&format!("{t},")).then_some(())?;
            if head.ends_with("InDelta(") {
                // A delta below a half: a value one away is outside it.
                let inner = args.strip_suffix(')')?;
                let parts = arguments(inner, GO.0);
                let [_, _, _, (a, b)] = parts.as_slice() else {
                    return None;
                };
                let delta: f64 = inner[*a..*b].parse().ok()?;
                if !(0.0..0.5).contains(&delta) {
                    return None;
                }
            }
            call_literal(trimmed, head, "", &[1], (GO, Shape::Go), coin)
        })?
    };
    Some(replaced(line, at, &new))
}

/// testify's assertions of equality (`InDelta` with a literal delta below a half).
const GO_EQUALS: [&str; 6] = [
    // The first four compare exactly (testify's `ObjectsAreEqual`, and its values
    // converted to one type for `EqualValues`).
    "assert.Equal(",
    "require.Equal(",
    "assert.EqualValues(",
    "require.EqualValues(",
    "assert.InDelta(",
    "require.InDelta(",
];

/// Go: `func TestX(t *testing.T)` without a skip or an early `return`; at the body's level,
/// `if …; got != LITERAL {` whose block fails the test (`t.Error…`, `t.Fatal…`), and
/// testify's `assert.Equal(t, LITERAL, got)` and `require.Equal`.
pub(super) fn go(text: &str, coin: &mut dyn Coin) -> (String, Vec<String>) {
    go_with(text, &|_| false, coin)
}

/// [`go`], where `elsewhere` says whether another file of the package names an identifier
/// (a table declared at the file's level is changed only where none does).
pub(super) fn go_with(
    text: &str,
    elsewhere: &dyn Fn(&str) -> bool,
    coin: &mut dyn Coin,
) -> (String, Vec<String>) {
    let mut lines: Vec<String> = text.split('\n').map(str::to_owned).collect();
    let mut names = Vec::new();
    // `cmp` is go-cmp where the file imports it under its own name.
    let go_cmp = lines.iter().any(|l| {
        let l = l.trim();
        l == "\"github.com/google/go-cmp/cmp\"" || l == "import \"github.com/google/go-cmp/cmp\""
    });
    for (name, t, start, end) in go_tests(&lines) {
        let mut rewrite =
            |lines: &[String], i: usize, coin: &mut dyn Coin| go_line(lines, i, end, &t, coin);
        let test = Test {
            name: name.clone(),
            body: (start, end),
        };
        let mut changed = rewrite_tests(&mut lines, vec![test], GO, &mut rewrite, coin);
        if super::tables::go(&mut lines, (&t, start, end), elsewhere, coin) && changed.is_empty() {
            changed.push(name.clone());
        }
        if go_named(&mut lines, (&t, start, end), go_cmp, coin) && changed.is_empty() {
            changed.push(name.clone());
        }
        names.extend(changed);
    }
    (lines.join("\n"), names)
}

/// Rust's tests: `#[test] fn` without `#[ignore]`, `#[should_panic]` or an early `return`.
pub(super) fn rust_tests(lines: &[String]) -> Vec<Test> {
    let mut tests = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if line.trim() != "#[test]" {
            continue;
        }
        let own = indent(line);
        let mut j = i + 1;
        let mut attributes = String::new();
        while j < lines.len() && lines[j].trim_start().starts_with("#[") {
            attributes.push_str(&lines[j]);
            j += 1;
        }
        let Some(rest) = lines
            .get(j)
            .and_then(|l| l.trim_start().strip_prefix("fn "))
        else {
            continue;
        };
        let Some((name, _)) = rest.split_once('(') else {
            continue;
        };
        if attributes.contains("ignore")
            || attributes.contains("should_panic")
            || !lines[j].ends_with('{')
            || !name.chars().all(|c| c.is_alphanumeric() || c == '_')
        {
            continue;
        }
        let start = j + 1;
        let close = format!("{own}}}");
        let Some(end) = lines[start..]
            .iter()
            .position(|l| *l == close)
            .map(|p| start + p)
        else {
            continue;
        };
        if holds_code(&lines[start..end].join("\n"), RUST.0, "return") {
            continue;
        }
        tests.push(Test {
            name: name.to_owned(),
            body: (start, end),
        });
    }
    tests
}

/// Rust: `#[test] fn` without `#[ignore]`, `#[should_panic]` or an early `return`;
/// `assert_eq!(x, LITERAL);` at the body's level.
pub(super) fn rust(text: &str, coin: &mut dyn Coin) -> (String, Vec<String>) {
    let mut lines: Vec<String> = text.split('\n').map(str::to_owned).collect();
    let tests = rust_tests(&lines);
    let mut rewrite = |lines: &[String], i: usize, coin: &mut dyn Coin| {
        let line = &lines[i];
        let (at, new) = call_literal(
            line.trim(),
            "assert_eq!(",
            ";",
            &[1, 0],
            (RUST, Shape::Rust),
            coin,
        )?;
        Some(replaced(line, at, &new))
    };
    let names = rewrite_tests(&mut lines, tests, RUST, &mut rewrite, coin);
    (lines.join("\n"), names)
}

/// The title of a JavaScript test opened on `trimmed` (`test("t", () => {`, `it('t',
/// async function () {`), when nothing but the callback follows it.
fn js_title(trimmed: &str) -> Option<&str> {
    let rest = trimmed
        .strip_prefix("test(")
        .or_else(|| trimmed.strip_prefix("it("))?;
    let quote = rest.chars().next().filter(|q| *q == '"' || *q == '\'')?;
    let (title, after) = rest[1..].split_once(quote)?;
    if title.contains('\\') || title.is_empty() {
        return None;
    }
    let after = after.strip_prefix(", ")?;
    let after = after.strip_prefix("async ").unwrap_or(after);
    ["() => {", "function () {", "function() {"]
        .contains(&after)
        .then_some(title)
}

/// JavaScript's tests: `test`/`it` with a title and a callback taking nothing, without a
/// skip or an early `return`.
pub(super) fn javascript_tests(lines: &[String]) -> Vec<Test> {
    let mut tests = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(title) = js_title(line.trim()) else {
            continue;
        };
        let own = indent(line);
        let start = i + 1;
        let Some(end) = lines[start..]
            .iter()
            .position(|l| {
                l.strip_prefix(own)
                    .is_some_and(|rest| rest == "});" || rest == "})")
            })
            .map(|p| start + p)
        else {
            continue;
        };
        let body = lines[start..end].join("\n");
        if ["return", "skip", "todo", "done"]
            .iter()
            .any(|w| holds_code(&body, JS.0, w))
        {
            continue;
        }
        tests.push(Test {
            name: title.to_owned(),
            body: (start, end),
        });
    }
    tests
}

/// JavaScript and TypeScript: `test`/`it` with a title and a callback taking nothing
/// (no `done`), without a skip or an early `return`; at the body's level
/// `expect(x).toBe(LITERAL)` (and `toEqual`, `toStrictEqual`, chai's `to.equal`,
/// `to.eql`) and `assert.strictEqual(x, LITERAL)` (and `equal`, `deepStrictEqual`,
/// `deepEqual`).
pub(super) fn javascript(text: &str, coin: &mut dyn Coin) -> (String, Vec<String>) {
    javascript_with(text, &super::helpers::Helpers::new(), coin)
}

/// [`javascript`], with calls of `helpers` at the body's level whose expected argument
/// is a literal changed too.
pub(super) fn javascript_with(
    text: &str,
    helpers: &super::helpers::Helpers,
    coin: &mut dyn Coin,
) -> (String, Vec<String>) {
    let mut lines: Vec<String> = text.split('\n').map(str::to_owned).collect();
    let tests = javascript_tests(&lines);
    let mut rewrite = |lines: &[String], i: usize, coin: &mut dyn Coin| {
        let line = &lines[i];
        let trimmed = line.trim().trim_end_matches(';');
        let (at, new) = if trimmed.starts_with("expect(") {
            let close = closing(trimmed, "expect".len(), JS.0)?;
            let matcher = &trimmed[close + 1..];
            let heads = [
                ".toBe(",
                ".toEqual(",
                ".toStrictEqual(",
                ".to.equal(",
                ".to.eql(",
                ".to.deep.equal(",
                ".toBeCloseTo(",
            ];
            let head = heads.iter().find(|h| matcher.starts_with(**h))?;
            let open = close + head.len();
            let end = closing(trimmed, open, JS.0)?;
            if end + 1 != trimmed.len() {
                return None;
            }
            let inner = &trimmed[open + 1..end];
            let args = arguments(inner, JS.0);
            let (a, b) = match (args.as_slice(), *head) {
                ([one], _) => *one,
                // `toBeCloseTo(v, digits)`: with digits 0 to 15 the tolerance is at most
                // a half, so a value one away is outside it.
                ([one, (c, d)], ".toBeCloseTo(")
                    if inner[*c..*d].parse::<u8>().is_ok_and(|n| n <= 15) =>
                {
                    *one
                }
                _ => return None,
            };
            let new = expected_changed(&inner[a..b], JS, Shape::Js, coin)?;
            ((open + 1 + a, open + 1 + b), new)
        } else {
            let heads = [
                "assert.strictEqual(",
                "assert.equal(",
                "assert.deepStrictEqual(",
                "assert.deepEqual(",
            ];
            heads
                .iter()
                .find_map(|head| call_literal(trimmed, head, "", &[1, 0], (JS, Shape::Js), coin))
                .or_else(|| super::helpers::javascript_call(trimmed, helpers, coin))?
        };
        Some(replaced(line, at, &new))
    };
    let loops: Vec<Test> = tests
        .iter()
        .map(|t| Test {
            name: t.name.clone(),
            body: t.body,
        })
        .collect();
    let mut names = rewrite_tests(&mut lines, tests, JS, &mut rewrite, coin);
    for test in loops {
        if super::tables::javascript_loops(&mut lines, &test, coin) && !names.contains(&test.name) {
            names.push(test.name);
        }
    }
    for name in super::tables::javascript(&mut lines, coin) {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    (lines.join("\n"), names)
}

/// The tests of a file in the order a known answer tries them: from one drawn at random,
/// round to the one before it.
fn drawn_order(count: usize, draw: &mut Draw) -> impl Iterator<Item = usize> {
    let first = draw.below(count);
    (first..count).chain(0..first)
}

/// The line after the last line of `lines[start..end]` that holds text.
pub(super) fn after_last_text(lines: &[String], start: usize, end: usize) -> usize {
    (start..end)
        .rev()
        .find(|i| !lines[*i].trim().is_empty())
        .map_or(start, |i| i + 1)
}

/// `lines` with `new` inserted before line `at`, joined.
fn inserted(mut lines: Vec<String>, at: usize, new: Vec<String>) -> String {
    lines.splice(at..at, new);
    lines.join("\n")
}

/// A name for the known answer after `base`, new to the file and to `taken`.
fn known_name(
    text: &str,
    base: &str,
    style: Style,
    draw: &mut Draw,
    taken: &dyn Fn(&str) -> bool,
) -> Option<String> {
    drawn_name(text, base, style, draw, &|name| {
        text.contains(name) || taken(name)
    })
}

/// Python's known answer, after one of the file's tests drawn at random: a function or a
/// method as that one is, asserting as its body does.
pub(super) fn python_known(
    text: &str,
    value: u32,
    draw: &mut Draw,
    taken: &dyn Fn(&str) -> bool,
) -> Option<(String, String)> {
    let lines: Vec<String> = text.split('\n').map(str::to_owned).collect();
    let tests = python_tests(&lines);
    let chosen = drawn_order(tests.len(), draw).find_map(|k| {
        let test = &tests[k];
        let def = lines[..test.body.0]
            .iter()
            .rposition(|l| l.trim_start().starts_with(&format!("def {}(", test.name)))?;
        let level = lines[test.body.0..test.body.1]
            .iter()
            .find(|l| !l.trim().is_empty())
            .map(|l| indent(l).to_owned())?;
        Some((test, def, level))
    });
    let (test, def, level) = chosen?;
    let own = indent(&lines[def]).to_owned();
    let method = lines[def].contains("(self");
    let body = lines[test.body.0..test.body.1].join("\n");
    let name = known_name(text, &test.name, Style::Snake, draw, taken)?;
    let variable = drawn_variable(text, draw);
    let assertion = if body.contains("self.assert") {
        format!("self.assertEqual({variable}, {value})")
    } else {
        format!("assert {variable} == {value}")
    };
    let mut new = vec![String::new()];
    if own.is_empty() {
        new.push(String::new());
    }
    new.push(format!(
        "{own}def {name}({}):",
        if method { "self" } else { "" }
    ));
    new.push(format!("{level}{variable} = {value}"));
    new.push(format!("{level}{assertion}"));
    let at = after_last_text(&lines, test.body.0, test.body.1);
    // Before the next test's own blank lines, as the file spaces its tests.
    if at < lines.len() && !lines[at].trim().is_empty() {
        new.push(String::new());
        if own.is_empty() {
            new.push(String::new());
        }
    }
    Some((inserted(lines, at, new), name))
}

/// Go's known answer, after one of the file's tests drawn at random: a test named after
/// it, failing as it does (`Fatalf` or `Errorf`).
pub(super) fn go_known(
    text: &str,
    value: u32,
    draw: &mut Draw,
    taken: &dyn Fn(&str) -> bool,
) -> Option<(String, String)> {
    let lines: Vec<String> = text.split('\n').map(str::to_owned).collect();
    let tests = go_tests(&lines);
    let k = drawn_order(tests.len(), draw).next()?;
    let (base, t, start, end) = &tests[k];
    let body = lines[*start..*end].join("\n");
    let fail = if body.contains(&format!("{t}.Fatal")) {
        "Fatalf"
    } else {
        "Errorf"
    };
    let name = known_name(text, base, Style::Camel, draw, taken)?;
    let variable = drawn_variable(text, draw);
    let new = vec![
        String::new(),
        format!("func {name}({t} *testing.T) {{"),
        format!("\tif {variable} := {value}; {variable} != {value} {{"),
        format!("\t\t{t}.{fail}(\"got %d\", {variable})"),
        "\t}".to_owned(),
        "}".to_owned(),
    ];
    Some((inserted(lines, end + 1, new), name))
}

/// Rust's known answer, after one of the file's tests drawn at random, at its indentation
/// (inside its `mod tests` where it is).
pub(super) fn rust_known(
    text: &str,
    value: u32,
    draw: &mut Draw,
    taken: &dyn Fn(&str) -> bool,
) -> Option<(String, String)> {
    let lines: Vec<String> = text.split('\n').map(str::to_owned).collect();
    let tests = rust_tests(&lines);
    let k = drawn_order(tests.len(), draw).next()?;
    let test = &tests[k];
    let own = indent(&lines[test.body.1]).to_owned();
    let name = known_name(text, &test.name, Style::Snake, draw, taken)?;
    let variable = drawn_variable(text, draw);
    let new = vec![
        String::new(),
        format!("{own}#[test]"),
        format!("{own}fn {name}() {{"),
        format!("{own}    let {variable} = {value};"),
        format!("{own}    assert_eq!({variable}, {value});"),
        format!("{own}}}"),
    ];
    Some((inserted(lines, test.body.1 + 1, new), name))
}

/// JavaScript's known answer, after one of the file's tests drawn at random: opened as
/// that one is, asserting as its body does (`expect(…).toBe`, chai's `to.equal`, or
/// `assert.strictEqual`).
pub(super) fn javascript_known(
    text: &str,
    value: u32,
    draw: &mut Draw,
    taken: &dyn Fn(&str) -> bool,
) -> Option<(String, String)> {
    let lines: Vec<String> = text.split('\n').map(str::to_owned).collect();
    let tests = javascript_tests(&lines);
    let assertion_of = |body: &str, variable: &str| {
        if body.contains(".to.equal(") {
            Some(format!("expect({variable}).to.equal({value})"))
        } else if body.contains("expect(") {
            Some(format!("expect({variable}).toBe({value})"))
        } else if body.contains("assert.strictEqual(") {
            Some(format!("assert.strictEqual({variable}, {value})"))
        } else {
            None
        }
    };
    let test = drawn_order(tests.len(), draw)
        .map(|k| &tests[k])
        .find(|t| assertion_of(&lines[t.body.0..t.body.1].join("\n"), "").is_some())?;
    let (start, end) = test.body;
    let level = lines[start..end]
        .iter()
        .find(|l| !l.trim().is_empty())
        .map(|l| indent(l).to_owned())?;
    let body = lines[start..end].join("\n");
    let semi = if body.lines().any(|l| l.trim_end().ends_with(';')) {
        ";"
    } else {
        ""
    };
    let title = known_name(text, &test.name, Style::Title, draw, taken)?;
    let variable = drawn_variable(text, draw);
    let assertion = assertion_of(&body, &variable)?;
    // The title in its quotes: a title such as `it` is also the call's own name.
    let opening = &lines[start - 1];
    let open = ['"', '\'']
        .iter()
        .map(|q| (format!("{q}{}{q}", test.name), format!("{q}{title}{q}")))
        .find(|(old, _)| opening.contains(old.as_str()))
        .map(|(old, new)| opening.replacen(&old, &new, 1))?;
    let new = vec![
        String::new(),
        open,
        format!("{level}const {variable} = {value}{semi}"),
        format!("{level}{assertion}{semi}"),
        lines[end].clone(),
    ];
    Some((inserted(lines, end + 1, new), title))
}

/// The expected value a Go test names before comparing it (`want := 5`, `var want = 5`,
/// `const want = 5`, at the test's level): changed where the name is compared once at
/// that level by a statement whose block fails the test (`if got != want {`, `if
/// !reflect.DeepEqual(got, want) {`, `if !cmp.Equal(got, want) {`, `if diff :=
/// cmp.Diff(want, got); diff != "" {`) and used nowhere else but in that block. The
/// original passing means the comparison ran and found the value equal to the literal.
fn go_named(
    lines: &mut [String],
    (t, start, end): (&str, usize, usize),
    go_cmp: bool,
    coin: &mut dyn Coin,
) -> bool {
    let level = level_lines(lines, (start, end), GO);
    let body = lines[start..end].join("\n");
    let mut changed_any = false;
    for &i in &level {
        let trimmed = lines[i].trim();
        let Some((name, value)) = ["var ", "const ", ""].iter().find_map(|head| {
            let rest = trimmed.strip_prefix(head)?;
            let (name, value) = rest.split_once(if head.is_empty() { " := " } else { " = " })?;
            let plain = !name.is_empty()
                && !name.starts_with(|c: char| c.is_ascii_digit())
                && name.chars().all(|c| c.is_alphanumeric() || c == '_');
            plain.then_some((name.to_owned(), value))
        }) else {
            continue;
        };
        // The first compared use after the declaration, with its failing block.
        let Some((line, block)) = level
            .iter()
            .filter(|j| **j > i)
            .find_map(|&j| go_compares_name(lines, j, end, (t, &name), go_cmp).map(|b| (j, b)))
        else {
            continue;
        };
        let uses = super::helpers::words(&lines[i], &name)
            + super::helpers::words(&lines[line], &name)
            + super::helpers::words(&lines[block.0..block.1].join("\n"), &name);
        if super::helpers::words(&body, &name) != uses
            || super::helpers::words(&lines[line], &name) != 1
            || super::helpers::words(&lines[i], &name) != 1
        {
            continue;
        }
        let Some(new) = expected_changed(value, GO, Shape::Go, coin) else {
            continue;
        };
        let at = trimmed.len() - value.len();
        lines[i] = replaced(&lines[i], (at, trimmed.len()), &new);
        changed_any = true;
    }
    changed_any
}

/// testify's `assert.Equal(t, want, got)` (`require.Equal`, `EqualValues`), three
/// arguments, one of the compared two `name`: `Some(0)`, a statement with no block.
fn go_testify_compares(trimmed: &str, (t, name): (&str, &str)) -> Option<usize> {
    let head = GO_EQUALS[..4].iter().find(|h| trimmed.starts_with(**h))?;
    let open = head.len() - 1;
    if closing(trimmed, open, GO.0)? + 1 != trimmed.len() {
        return None;
    }
    let inner = &trimmed[open + 1..trimmed.len() - 1];
    let args = arguments(inner, GO.0);
    let [first, x, y] = args.as_slice() else {
        return None;
    };
    (inner[first.0..first.1] == *t && (inner[x.0..x.1] == *name || inner[y.0..y.1] == *name))
        .then_some(0)
}

/// Whether Go's line `j` (of a test ending at line `end`, parameter `t`) is an `if` whose
/// condition compares `name` for equality with one other value and whose block fails the
/// test; the block's lines.
fn go_compares_name(
    lines: &[String],
    j: usize,
    end: usize,
    (t, name): (&str, &str),
    go_cmp: bool,
) -> Option<(usize, usize)> {
    let line = &lines[j];
    if let Some(block) = go_testify_compares(line.trim(), (t, name)) {
        return Some((j + 1, j + 1 + block));
    }
    let cond = line.trim().strip_prefix("if ")?.strip_suffix(" {")?;
    let close = format!("{}}}", indent(line));
    let last = (j + 1..end).find(|k| lines[*k].starts_with(&close))?;
    // The block ends the `if`: no `else` that could fail instead.
    if lines[last].trim() != "}" {
        return None;
    }
    let fails = lines[j + 1..last].iter().any(|l| {
        let l = l.trim_start();
        [".Error(", ".Errorf(", ".Fatal(", ".Fatalf("]
            .iter()
            .any(|f| l.starts_with(&format!("{t}{f}")))
    });
    if !fails {
        return None;
    }
    let two = |inner: &str| -> Option<bool> {
        let args = arguments(inner, GO.0);
        let [x, y] = args.as_slice() else {
            return None;
        };
        Some(inner[x.0..x.1] == *name || inner[y.0..y.1] == *name)
    };
    // `diff := cmp.Diff(want, got); diff != ""`: go-cmp's diff is empty exactly when its
    // two values are equal (with no options, which could loosen it).
    if let Some(rest) = cond.strip_prefix("diff := cmp.Diff(") {
        let close = closing(cond, "diff := cmp.Diff".len(), GO.0)?;
        let inner = &rest[..close - "diff := cmp.Diff(".len()];
        return (go_cmp && &cond[close + 1..] == "; diff != \"\"" && two(inner)?)
            .then_some((j + 1, last));
    }
    let cond = match cond.rfind("; ") {
        Some(at) if depth(&cond[..at], GO.0) == 0 => &cond[at + 2..],
        _ => cond,
    };
    for head in ["!reflect.DeepEqual(", "!cmp.Equal("] {
        if let Some(rest) = cond.strip_prefix(head) {
            if head == "!cmp.Equal(" && !go_cmp {
                return None;
            }
            if closing(cond, head.len() - 1, GO.0)? + 1 != cond.len() {
                return None;
            }
            return two(&rest[..rest.len() - 1])?.then_some((j + 1, last));
        }
    }
    let (x, y) = equality(cond, "!=", GO)?;
    (cond[x.0..x.1] == *name || cond[y.0..y.1] == *name).then_some((j + 1, last))
}
