//! Table tests' twins: the expected column of every row changed, where the test compares
//! it once, for equality, in a statement that runs for every row. pytest's
//! `@pytest.mark.parametrize("a, b, expected", [(2, 3, 5), …])` with `assert add(a, b) ==
//! expected` at the body's level, and Go's `cases := []struct{ a, b, want int }{…}` ranged
//! over at the test's level with `if got := Add(c.a, c.b); got != c.want {` failing the
//! test (directly or in `t.Run`'s function), and jest's and vitest's `test.each([[1, 2, 3],
//! …])("add(%i, %i)", (a, b, expected) => {` with `expect(add(a, b)).toBe(expected)`.
//! Loops over literal rows (Python's `for a, want in [(…)]:`, also around one `with
//! self.subTest(…):`, and JavaScript's `for (const [a, want] of [[…]]) {`), `test.each`
//! object rows, and a table defined outside its one test (a module-level Python list, a
//! Go package-level `var cases`) likewise. Every row runs and compares its own expected
//! value, so with every row's changed, each row fails, as a literal's twin does.

mod ids;

use super::lines::{
    Coin, GO, JS, PY, Reach, Shape, Strings, Test, arguments, at_level, changed_value, closing,
    elements, equality, holds_code, indent, keyed_value, level_lines,
};

/// How many times `word` stands as a whole word in `text`.
fn words(text: &str, word: &str) -> usize {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word)
        .filter(|(at, _)| {
            let before = text[..*at].chars().next_back();
            let after = text[at + word.len()..].chars().next();
            !before.is_some_and(|c| ident(c) || c == '.') && !after.is_some_and(ident)
        })
        .count()
}

/// Whether the loop `head..tail` over rows named `row` uses a row whole outside its
/// failing block `block`: `t.Run(fmt.Sprint(c), …)` names the subtest after every field,
/// the changed one among them (`TestAdd/{two_2_3_5}` runs as `TestAdd/{two_2_3_4}`,
/// measured with go 1.27), and a helper given the row may do the same. Its fields alone
/// (`c.name`) print what the twin leaves as it was.
fn row_shown(
    lines: &[String],
    (head, tail): (usize, usize),
    block: (usize, usize),
    row: &str,
) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    (head + 1..tail)
        .filter(|i| !(block.0..block.1).contains(i))
        .any(|i| {
            let text = &lines[i];
            text.match_indices(row).any(|(at, _)| {
                let before = text[..at].chars().next_back();
                let after = text[at + row.len()..].chars().next();
                !before.is_some_and(|c| ident(c) || c == '.')
                    && !after.is_some_and(|c| ident(c) || c == '.')
            })
        })
}

/// `text` with each `(range, new)` of `changes` (ranges apart) put in place.
fn spliced(text: &str, mut changes: Vec<((usize, usize), String)>) -> String {
    changes.sort_by_key(|(at, _)| std::cmp::Reverse(at.0));
    let mut out = text.to_owned();
    for ((a, b), new) in changes {
        out.replace_range(a..b, &new);
    }
    out
}

/// Each row of the table `rows` (a bracketed list at `rows.0..rows.1` of `text`), its
/// column `column` of `width` changed, as changes of `text`; `None` when one cannot be.
fn changed_rows(
    text: &str,
    rows: (usize, usize),
    column: Column<'_>,
    (strings, shape, reach): (Strings, Shape, Reach),
    coin: &mut dyn Coin,
) -> Option<Vec<((usize, usize), String)>> {
    let close = closing(text, rows.0, strings.0)?;
    if close + 1 != rows.1 {
        return None;
    }
    let mut changes = Vec::new();
    for row in elements(text, rows.0, close, strings.0) {
        let cells = row_cells(text, row, column, strings.0)?;
        let at = match column {
            Column::At(index, width) | Column::Params(index, width) => {
                if cells.len() != width
                    || cells
                        .iter()
                        .any(|c| keyed_value(text, *c, strings.0).is_some())
                {
                    return None;
                }
                cells[index]
            }
            Column::Keyed(key, index, width) => {
                let keyed: Vec<(usize, usize)> = cells
                    .iter()
                    .filter_map(|c| {
                        let value = keyed_value(text, *c, strings.0)?;
                        (text[c.0..value.0].trim_end().trim_end_matches(':').trim() == key)
                            .then_some(value)
                    })
                    .collect();
                match keyed.as_slice() {
                    [one] => *one,
                    // A positional row of a Go struct.
                    [] if cells.len() == width
                        && cells
                            .iter()
                            .all(|c| keyed_value(text, *c, strings.0).is_none()) =>
                    {
                        cells[index]
                    }
                    _ => return None,
                }
            }
        };
        let new = changed_value(&text[at.0..at.1], strings, shape, reach, coin)?;
        changes.push((at, new));
    }
    (!changes.is_empty()).then_some(changes)
}

/// The cells of the row at `row` of `text`: a bracketed row's elements, or, in a
/// parametrize table (`Column::Params`), a `pytest.param(…)`'s values.
fn row_cells(
    text: &str,
    row: (usize, usize),
    column: Column<'_>,
    quotes: &[char],
) -> Option<Vec<(usize, usize)>> {
    if matches!(column, Column::Params(..))
        && let Some(param) = ids::param(text, row)
    {
        return Some(param?.values);
    }
    let first = text[row.0..row.1].chars().next()?;
    if !matches!(first, '(' | '[' | '{') || closing(text, row.0, quotes)? + 1 != row.1 {
        return None;
    }
    Some(elements(text, row.0, row.1 - 1, quotes))
}

/// Which cell of a row holds the expected value.
#[derive(Debug, Clone, Copy)]
enum Column<'a> {
    /// The cell at an index, of rows this wide.
    At(usize, usize),
    /// The cell at an index, of rows this wide, of a parametrize table, whose rows may be
    /// `pytest.param(2, 3, 5, id="small")` too.
    Params(usize, usize),
    /// A keyed cell (`want: 5`), or positionally the one at an index of rows this wide.
    Keyed(&'a str, usize, usize),
}

/// The names of pytest's `argnames`: `"a, b, expected"`, or a list or tuple of strings.
fn argnames(text: &str) -> Option<Vec<String>> {
    let text = text.trim();
    let unquote = |s: &str| {
        let s = s.trim();
        let q = s.chars().next().filter(|c| *c == '"' || *c == '\'')?;
        s.strip_prefix(q)?.strip_suffix(q).map(str::to_owned)
    };
    let names: Vec<String> = if let Some(one) = unquote(text) {
        one.split(',').map(|n| n.trim().to_owned()).collect()
    } else if text.starts_with('(') || text.starts_with('[') {
        let close = closing(text, 0, PY.0)?;
        elements(text, 0, close, PY.0)
            .into_iter()
            .map(|(a, b)| unquote(&text[a..b]))
            .collect::<Option<Vec<String>>>()?
    } else {
        return None;
    };
    let ident = |n: &String| !n.is_empty() && n.chars().all(|c| c.is_alphanumeric() || c == '_');
    names.iter().all(ident).then_some(names)
}

/// The argument name a pytest test compares for equality at its body's level, with how
/// far its value must move (`pytest.approx(expected)` asks far): `assert … == expected`.
fn python_compared(lines: &[String], test: &Test, names: &[String]) -> Option<(usize, Reach)> {
    python_compared_in(lines, test.body, names)
}

/// [`python_compared`] over the statements at the level of the lines `body`.
fn python_compared_in(
    lines: &[String],
    body: (usize, usize),
    names: &[String],
) -> Option<(usize, Reach)> {
    for i in level_lines(lines, body, PY) {
        let trimmed = lines[i].trim();
        if trimmed.ends_with('\\') || trimmed.contains(';') || trimmed.contains('#') {
            continue;
        }
        if let Some(index) = unittest_compared(trimmed, names) {
            return Some((index, Reach::Near));
        }
        let Some(rest) = trimmed.strip_prefix("assert ") else {
            continue;
        };
        let Some(&(0, b)) = arguments(rest, PY.0).first() else {
            continue;
        };
        let Some((left, right)) = equality(&rest[..b], "==", PY) else {
            continue;
        };
        for (a, b) in [right, left] {
            let side = &rest[a..b];
            let (inner, reach) = ["pytest.approx(", "approx("]
                .iter()
                .find_map(|h| side.strip_prefix(h)?.strip_suffix(')'))
                .map_or((side, Reach::Near), |inner| (inner.trim(), Reach::Far));
            if let Some(index) = names.iter().position(|n| n == inner) {
                return Some((index, reach));
            }
        }
    }
    None
}

/// The name of `names` that unittest's assertion of equality `trimmed`
/// (`self.assertEqual(add(a, b), want)`, two arguments) compares, by index.
pub(super) fn unittest_compared(trimmed: &str, names: &[String]) -> Option<usize> {
    let head = super::lines::PY_EQUALS
        .iter()
        .find(|h| trimmed.starts_with(**h))?;
    let open = head.len() - 1;
    if closing(trimmed, open, PY.0)? + 1 != trimmed.len() {
        return None;
    }
    let inner = &trimmed[open + 1..trimmed.len() - 1];
    let args = arguments(inner, PY.0);
    let [x, y] = args.as_slice() else {
        return None;
    };
    [*y, *x]
        .iter()
        .find_map(|(a, b)| names.iter().position(|n| *n == inner[*a..*b]))
}

/// The first line of the decorators above the `def` on line `def` (indented `own`), with
/// their continued lines.
fn decorators(lines: &[String], def: usize, own: usize) -> usize {
    let mut first = def;
    while first > 0 {
        let line = &lines[first - 1];
        let t = line.trim_start();
        let continued = indent(line).len() > own || t.starts_with(')') || t.starts_with(']');
        if t.is_empty() || !(continued || t.starts_with('@')) {
            break;
        }
        first -= 1;
    }
    first
}

/// pytest: the expected column of a `@pytest.mark.parametrize` table of plain rows,
/// compared once at the test body's level; whether the test's twin changed.
pub(super) fn python(lines: &mut [String], test: &Test, coin: &mut dyn Coin) -> bool {
    let table = python_table(lines, test, coin).is_some();
    python_loop(lines, test, coin).is_some() || table
}

/// The loop opened on line `i` (before line `limit`): its header's last line, and its
/// body's lines.
fn loop_lines(lines: &[String], i: usize, limit: usize) -> Option<(usize, (usize, usize))> {
    // The header, up to the line that closes its brackets with `:`.
    let mut end = i;
    let mut open = 0;
    loop {
        open += super::lines::depth(&lines[end], PY.0);
        if open <= 0 && lines[end].trim_end().ends_with(':') {
            break;
        }
        end += 1;
        if end >= limit {
            return None;
        }
    }
    let own = indent(&lines[i]).len();
    let start = end + 1;
    let stop = (start..limit)
        .find(|j| !lines[*j].trim().is_empty() && indent(&lines[*j]).len() <= own)
        .unwrap_or(limit);
    (start < stop).then_some((end, (start, stop)))
}

/// The comparison of a loop body `body` that is one `with self.subTest(…):` block:
/// unittest runs each row's block and fails the test where any row's fails (or, without
/// support for sub-tests, stops at the first failing row), so the block's statements at
/// its own level run for every row of a test that passed.
fn python_sub_test(
    lines: &[String],
    body: (usize, usize),
    names: &[String],
) -> Option<(usize, Reach)> {
    let [with] = level_lines(lines, body, PY)[..] else {
        return None;
    };
    if !lines[with].trim().starts_with("with self.subTest(") {
        return None;
    }
    let (_, block) = loop_lines(lines, with, body.1)?;
    python_compared_in(lines, block, names)
}

/// A table walked by a loop at the test body's level, `for a, b, want in [(2, 3, 5), …]:`,
/// whose body compares one of the names at its own level and uses it nowhere else, with
/// no `break` or `continue`: every row runs and compares its own expected cell, so every
/// row's changes.
fn python_loop(lines: &mut [String], test: &Test, coin: &mut dyn Coin) -> Option<()> {
    for i in level_lines(lines, test.body, PY) {
        let Some(rest) = lines[i].trim().strip_prefix("for ") else {
            continue;
        };
        let Some((targets, _)) = rest.split_once(" in ") else {
            continue;
        };
        let targets: Vec<String> = targets
            .trim_matches(|c| c == '(' || c == ')')
            .split(',')
            .map(|t| t.trim().to_owned())
            .collect();
        if targets.len() < 2
            || !targets
                .iter()
                .all(|t| !t.is_empty() && t.chars().all(|c| c.is_alphanumeric() || c == '_'))
        {
            continue;
        }
        let (end, (start, stop)) = loop_lines(lines, i, test.body.1)?;
        let body = lines[start..stop].join("\n");
        if ["break", "continue"]
            .iter()
            .any(|w| holds_code(&body, PY.0, w))
        {
            continue;
        }
        let Some((index, reach)) = python_compared_in(lines, (start, stop), &targets)
            .or_else(|| python_sub_test(lines, (start, stop), &targets))
        else {
            continue;
        };
        let whole = lines[test.body.0..test.body.1].join("\n");
        // The target and the comparison, nothing else.
        if words(&whole, &targets[index]) != 2 || words(&body, &targets[index]) != 1 {
            continue;
        }
        let header = lines[i..=end].join("\n");
        let at = header.find(" in ")? + " in ".len();
        let rows_at = at + header[at..].len() - header[at..].trim_start().len();
        if let Some(name) = header[rows_at..]
            .trim_end()
            .strip_suffix(':')
            .map(str::trim)
            .filter(|n| n.chars().all(|c| c.is_alphanumeric() || c == '_'))
        {
            let column = Column::At(index, targets.len());
            return module_rows(lines, name, column, (reach, coin));
        }
        if !matches!(header[rows_at..].chars().next(), Some('[' | '(')) {
            continue;
        }
        let close = closing(&header, rows_at, PY.0)?;
        if header[close + 1..].trim() != ":" {
            continue;
        }
        let changes = changed_rows(
            &header,
            (rows_at, close + 1),
            Column::At(index, targets.len()),
            (PY, Shape::Python, reach),
            coin,
        )?;
        let new = spliced(&header, changes);
        for (line, text) in lines[i..=end].iter_mut().zip(new.split('\n')) {
            text.clone_into(line);
        }
        return Some(());
    }
    None
}

fn python_table(lines: &mut [String], test: &Test, coin: &mut dyn Coin) -> Option<()> {
    let def = lines[..test.body.0].iter().rposition(|l| {
        let t = l.trim_start();
        t.starts_with(&format!("def {}(", test.name))
            || t.starts_with(&format!("async def {}(", test.name))
    })?;
    let own = indent(&lines[def]).len();
    let first = decorators(lines, def, own);
    let block = lines[first..def].join("\n");
    let heads = ["@pytest.mark.parametrize(", "@mark.parametrize("];
    let mut starts = Vec::new();
    let mut offset = 0;
    for line in &lines[first..def] {
        let t = line.trim_start();
        if indent(line).len() == own && t.starts_with('@') {
            starts.push((offset + own, heads.iter().find(|h| t.starts_with(**h))));
        }
        offset += line.len() + 1;
    }
    // One table: a second one multiplies the rows, a mark may skip or expect a failure.
    let found: Vec<(usize, &&str)> = starts
        .iter()
        .filter_map(|(at, head)| head.map(|h| (*at, h)))
        .collect();
    let [(at, head)] = found.as_slice() else {
        return None;
    };
    let open = at + head.len() - 1;
    let close = closing(&block, open, PY.0)?;
    let inner = &block[open + 1..close];
    if ["indirect", "skip", "xfail", "marks"]
        .iter()
        .any(|w| holds_code(&block, PY.0, w))
    {
        return None;
    }
    let args = arguments(inner, PY.0);
    // The rest are keywords (`ids=`); a third positional argument is `indirect`.
    let [(n0, n1), (r0, r1), rest @ ..] = args.as_slice() else {
        return None;
    };
    if rest
        .iter()
        .any(|(a, b)| at_level(&inner[*a..*b], PY.0, "=").is_empty())
    {
        return None;
    }
    let names = argnames(&inner[*n0..*n1])?;
    if names.len() < 2 {
        return None;
    }
    let (index, reach) = python_compared(lines, test, &names)?;
    // Compared once, and never an input.
    let body = lines[test.body.0..test.body.1].join("\n");
    if words(&body, &names[index]) != 1 {
        return None;
    }
    let rows = (open + 1 + r0, open + 1 + r1);
    let call = (open + 1, &args[..]);
    if !matches!(block[rows.0..rows.1].chars().next(), Some('[' | '(')) {
        let name = &block[rows.0..rows.1];
        let (text, table) = module_table(lines, name)?;
        let ids = kept_ids(&block, call, ids::of_rows(&text, table, &names)?)?;
        let column = Column::Params(index, names.len());
        module_rows(lines, name, column, (reach, coin))?;
        write_block(lines, first, &spliced(&block, ids.into_iter().collect()));
        return Some(());
    }
    let ids = kept_ids(&block, call, ids::of_rows(&block, rows, &names)?)?;
    let mut changes = changed_rows(
        &block,
        rows,
        Column::Params(index, names.len()),
        (PY, Shape::Python, reach),
        coin,
    )?;
    changes.extend(ids);
    write_block(lines, first, &spliced(&block, changes));
    Some(())
}

/// Writes `block`, the text of the lines from `first` changed without a line added or
/// taken, back into `lines`.
fn write_block(lines: &mut [String], first: usize, block: &str) {
    for (line, text) in lines[first..].iter_mut().zip(block.split('\n')) {
        text.clone_into(line);
    }
}

/// The change of a parametrize call's `ids=` argument that keeps its rows' ids: the call's
/// arguments `args` (ranges of `block` from `at`), and `computed`, the ids pytest gave
/// the rows. No change where the call's own ids are all given; `None` where its ids
/// cannot be kept (a callable).
fn kept_ids(
    block: &str,
    (at, args): (usize, &[(usize, usize)]),
    computed: String,
) -> Option<Option<((usize, usize), String)>> {
    let close = at + args.last()?.1;
    let inner = &block[at..close];
    let args: Vec<(usize, usize)> = args.to_vec();
    match ids::keyword(inner, &args, "ids") {
        Some((a, b)) => {
            let new = ids::kept(Some(&inner[a..b]), &computed).ok()?;
            Some(new.map(|new| ((at + a, at + b), new)))
        }
        None => Some(Some(((close, close), format!(", ids={computed}")))),
    }
}

/// The module-level table named `name`: the file's text, and the range of its rows'
/// brackets (`CASES = [(2, 3, 5), …]`, nothing after it on its last line, named nowhere
/// else in the file but in one use).
fn module_table(lines: &[String], name: &str) -> Option<(String, (usize, usize))> {
    if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return None;
    }
    let text = lines.join("\n");
    if words(&text, name) != 2 {
        return None;
    }
    let head = format!("{name} = ");
    let mut offset = 0;
    let mut open = None;
    for line in lines {
        if let Some(rest) = line.strip_prefix(&head)
            && rest.starts_with(['[', '('])
        {
            open = Some(offset + head.len());
            break;
        }
        offset += line.len() + 1;
    }
    let open = open?;
    let close = closing(&text, open, PY.0)?;
    let after = &text[close + 1..];
    if !after.split('\n').next().unwrap_or("").trim().is_empty() {
        return None;
    }
    Some((text, (open, close + 1)))
}

/// A table named `name` where a test walks or parametrizes over it: defined once at the
/// module's level as a plain list or tuple of rows (`CASES = [(2, 3, 5), …]`, nothing
/// after it), and named nowhere else in the file but in that one use. Its rows' `column`
/// changed in `lines`.
fn module_rows(
    lines: &mut [String],
    name: &str,
    column: Column<'_>,
    (reach, coin): (Reach, &mut dyn Coin),
) -> Option<()> {
    let (text, (open, end)) = module_table(lines, name)?;
    let changes = changed_rows(&text, (open, end), column, (PY, Shape::Python, reach), coin)?;
    let new = spliced(&text, changes);
    for (line, text) in lines.iter_mut().zip(new.split('\n')) {
        text.clone_into(line);
    }
    Some(())
}

/// The fields of a Go struct type's body (`a, b, want int` or one per line), in order.
fn go_fields(text: &str) -> Option<Vec<String>> {
    let mut fields = Vec::new();
    for decl in text.split(['\n', ';']) {
        let decl = decl.split('`').next().unwrap_or(decl);
        let decl = decl.split("//").next().unwrap_or(decl).trim();
        if decl.is_empty() {
            continue;
        }
        let mut names: Vec<&str> = decl.split(", ").collect();
        let (last, _type) = names.pop()?.split_once(' ')?;
        names.push(last);
        for name in names {
            if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
                return None;
            }
            fields.push(name.to_owned());
        }
    }
    Some(fields)
}

/// The comparison of Go's `if` condition `cond`: its two sides, as ranges of `cond`.
fn go_sides(cond: &str) -> Option<[(usize, usize); 2]> {
    let (offset, cond) = match cond.rfind("; ") {
        Some(at) if super::lines::depth(&cond[..at], GO.0) == 0 => (at + 2, &cond[at + 2..]),
        _ => (0, cond),
    };
    let shift = |(a, b): (usize, usize), by: usize| (a + by, b + by);
    if let Some(rest) = cond.strip_prefix("!reflect.DeepEqual(") {
        let inner = rest.strip_suffix(')')?;
        let by = offset + "!reflect.DeepEqual(".len();
        let [x, y] = arguments(inner, GO.0)[..] else {
            return None;
        };
        return Some([shift(x, by), shift(y, by)]);
    }
    let (x, y) = equality(cond, "!=", GO)?;
    Some([shift(x, offset), shift(y, offset)])
}

/// Whether the block opened by line `i` (ended by a line of its indentation and `}`)
/// fails the test through `t`; the block's lines.
fn go_block(lines: &[String], i: usize, end: usize, t: &str) -> Option<(usize, usize)> {
    let close = format!("{}}}", indent(&lines[i]));
    let last = (i + 1..end).find(|j| lines[*j].starts_with(&close))?;
    let fails = lines[i + 1..last].iter().any(|l| {
        let l = l.trim_start();
        [".Error(", ".Errorf(", ".Fatal(", ".Fatalf("]
            .iter()
            .any(|f| l.starts_with(&format!("{t}{f}")))
    });
    fails.then_some((i + 1, last))
}

/// The comparison in the loop `loop_lines` (its head and closing line) over rows named
/// `c`: at the loop's level with `t`, or at the level of a `t.Run` function opened at the
/// loop's level, with that function's own parameter. The field compared, the line, and
/// the failing block's lines.
fn go_compared(
    lines: &[String],
    (head, tail): (usize, usize),
    t: &str,
    c: &str,
    fields: &[String],
) -> Option<(String, usize, (usize, usize))> {
    let mut runner: Option<String> = None;
    for i in head + 1..tail {
        let line = &lines[i];
        let trimmed = line.trim();
        let level = indent(line).len();
        if level == 2 {
            runner = trimmed
                .strip_prefix(&format!("{t}.Run("))
                .and_then(|r| r.strip_suffix(" *testing.T) {"))
                .and_then(|r| r.rsplit_once("func(").map(|(_, p)| p.to_owned()));
        }
        let tester = match level {
            2 => t.to_owned(),
            3 => match &runner {
                Some(r) => r.clone(),
                None => continue,
            },
            _ => continue,
        };
        let Some(cond) = trimmed
            .strip_prefix("if ")
            .and_then(|c| c.strip_suffix(" {"))
        else {
            continue;
        };
        let Some(sides) = go_sides(cond) else {
            continue;
        };
        let Some(field) = sides.iter().find_map(|(a, b)| {
            cond[*a..*b]
                .strip_prefix(&format!("{c}."))
                .filter(|f| fields.iter().any(|x| x == f))
        }) else {
            continue;
        };
        let Some(block) = go_block(lines, i, tail, &tester) else {
            continue;
        };
        return Some((field.to_owned(), i, block));
    }
    None
}

/// Go: the `want` column of a table declared at the test's level (or at the file's, `var
/// cases = []struct{…}{…}`, named by no other file of the package: `elsewhere`) and
/// ranged over at the test's level, compared once for every row by a statement that fails
/// the test; whether it changed.
pub(super) fn go(
    lines: &mut [String],
    test: (&str, usize, usize),
    elsewhere: &dyn Fn(&str) -> bool,
    coin: &mut dyn Coin,
) -> bool {
    go_table(lines, test, elsewhere, coin).is_some()
}

/// Where a Go table is declared: its name, the lines of the text that holds it (the test's
/// body, or the whole file), and the offset in that text after `[]struct`.
fn go_declaration(
    lines: &[String],
    (start, end): (usize, usize),
    elsewhere: &dyn Fn(&str) -> bool,
) -> Option<(String, (usize, usize), usize)> {
    let mut offset = 0;
    for line in &lines[start..end] {
        if let Some(rest) = line.strip_prefix('\t')
            && !rest.starts_with(['\t', ' '])
            && let Some((var, tail)) = rest.split_once(" := []struct")
            && tail.starts_with(['{', ' '])
            && var.chars().all(|c| c.is_alphanumeric() || c == '_')
        {
            return Some((
                var.to_owned(),
                (start, end),
                offset + 1 + var.len() + " := []struct".len(),
            ));
        }
        offset += line.len() + 1;
    }
    // The table the test ranges over, declared at the file's level.
    let var = lines[start..end].iter().find_map(|l| {
        let rest = l.strip_prefix("\tfor _, ")?;
        let (_, tail) = rest.split_once(" := range ")?;
        tail.strip_suffix(" {").map(str::to_owned)
    })?;
    if var.is_empty() || !var.chars().all(|c| c.is_alphanumeric() || c == '_') || elsewhere(&var) {
        return None;
    }
    let text = lines.join("\n");
    if words(&text, &var) != 2 {
        return None;
    }
    let head = format!("var {var} = []struct");
    let mut offset = 0;
    for line in lines {
        if let Some(tail) = line.strip_prefix(&head)
            && tail.starts_with(['{', ' '])
        {
            return Some((var, (0, lines.len()), offset + head.len()));
        }
        offset += line.len() + 1;
    }
    None
}

fn go_table(
    lines: &mut [String],
    (t, start, end): (&str, usize, usize),
    elsewhere: &dyn Fn(&str) -> bool,
    coin: &mut dyn Coin,
) -> Option<()> {
    let body = lines[start..end].join("\n");
    // `cases := []struct{ a, b, want int }{` at the test's level, or `var cases =
    // []struct{…}{` at the file's.
    let (var, held, after) = go_declaration(lines, (start, end), elsewhere)?;
    let var = var.as_str();
    let table = lines[held.0..held.1].join("\n");
    let fields_open = after + table[after..].find('{')?;
    let fields_close = closing(&table, fields_open, GO.0)?;
    let fields = go_fields(&table[fields_open + 1..fields_close])?;
    let rows_open = fields_close + 1;
    if !table[rows_open..].starts_with('{') {
        return None;
    }
    let rows_close = closing(&table, rows_open, GO.0)?;
    if held.0 == 0
        && !table[rows_close + 1..]
            .split('\n')
            .next()?
            .trim()
            .is_empty()
    {
        return None;
    }
    // `for _, c := range cases {` at the test's level, the table's only other use.
    let loop_head = |l: &String| {
        let rest = l.strip_prefix("\tfor _, ")?;
        let (c, tail) = rest.split_once(" := range ")?;
        (tail == format!("{var} {{") && c.chars().all(|x| x.is_alphanumeric() || x == '_'))
            .then(|| c.to_owned())
    };
    let (head, c) = (start..end).find_map(|i| Some((i, loop_head(&lines[i])?)))?;
    let tail = (head + 1..end).find(|i| lines[*i] == "\t}")?;
    let uses = if held.0 == 0 { 1 } else { 2 };
    if words(&body, var) != uses
        || ["continue", "break"]
            .iter()
            .any(|w| holds_code(&lines[head..tail].join("\n"), GO.0, w))
    {
        return None;
    }
    let (field, line, block) = go_compared(lines, (head, tail), t, &c, &fields)?;
    if row_shown(lines, (head, tail), block, &c) {
        return None;
    }
    // Compared there alone; the failing block may print it.
    let reference = format!("{c}.{field}");
    let inside =
        words(&lines[line], &reference) + words(&lines[block.0..block.1].join("\n"), &reference);
    if words(&body, &reference) != inside || words(&lines[line], &reference) != 1 {
        return None;
    }
    let index = fields.iter().position(|f| *f == field)?;
    let changes = changed_rows(
        &table,
        (rows_open, rows_close + 1),
        Column::Keyed(&field, index, fields.len()),
        (GO, Shape::Go, Reach::Near),
        coin,
    )?;
    let new = spliced(&table, changes);
    for (line, text) in lines[held.0..held.1].iter_mut().zip(new.split('\n')) {
        text.clone_into(line);
    }
    Some(())
}

/// The title jest and vitest give a row of `test.each` whose title is `title`: `%i`,
/// `%d` and `%s` take the row's cells in order, `%#` its index; `None` for any other
/// placeholder, or a cell those do not print as written. How many cells it takes.
/// Measured with both: vitest takes as many cells as the title holds `%` signs and
/// prints those no placeholder took after it (`"50%% %i %i"` over `[2, 3, 5]` is `50% 2
/// 3 5` there, `50% 2 3` in jest), and reads `$x` from a first cell that is an object
/// (`obj 1` where jest prints `obj $x`): a title with `%%`, or with `$` over such a row,
/// is `None`.
fn each_title(title: &str, cells: &[&str], index: usize) -> Option<(String, usize)> {
    if title.contains('$') && cells.first().is_some_and(|c| c.trim().starts_with('{')) {
        return None;
    }
    let mut out = String::new();
    let mut taken = 0;
    let mut chars = title.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            '#' => out.push_str(&index.to_string()),
            kind @ ('i' | 'd' | 's') => {
                let cell = cells.get(taken)?.trim();
                taken += 1;
                let integer = {
                    let d = cell.strip_prefix('-').unwrap_or(cell);
                    !d.is_empty()
                        && d.len() < 16
                        && d.bytes().all(|b| b.is_ascii_digit())
                        && (d == "0" || !d.starts_with('0'))
                };
                let quoted = (cell.starts_with('"') || cell.starts_with('\''))
                    && cell.len() >= 2
                    && cell.ends_with(&cell[..1])
                    && !cell[1..cell.len() - 1].contains(['\\', '"', '\''])
                    && kind == 's';
                if integer {
                    out.push_str(cell);
                } else if quoted {
                    out.push_str(&cell[1..cell.len() - 1]);
                } else {
                    return None;
                }
            }
            _ => return None,
        }
    }
    Some((out, taken))
}

/// The parameter a `test.each` body compares at its own level, by index:
/// `expect(x).toBe(expected)` (`toEqual`, `toStrictEqual`) or `assert.strictEqual(x,
/// expected)` (`equal`, `deepStrictEqual`, `deepEqual`).
pub(super) fn each_compared(
    lines: &[String],
    body: (usize, usize),
    params: &[&str],
) -> Option<usize> {
    let quotes = JS.0;
    level_lines(lines, body, JS).into_iter().find_map(|i| {
        let trimmed = lines[i].trim().trim_end_matches(';');
        let expected = if trimmed.starts_with("expect(") {
            let close = closing(trimmed, "expect".len(), quotes)?;
            let matcher = &trimmed[close + 1..];
            [".toBe(", ".toEqual(", ".toStrictEqual("]
                .iter()
                .find_map(|h| matcher.strip_prefix(h)?.strip_suffix(')'))?
                .trim()
        } else {
            let inner = [
                "assert.strictEqual(",
                "assert.equal(",
                "assert.deepStrictEqual(",
                "assert.deepEqual(",
            ]
            .iter()
            .find_map(|h| trimmed.strip_prefix(h)?.strip_suffix(')'))?;
            let args = arguments(inner, quotes);
            let (a, b) = *args.get(1)?;
            if args.len() != 2 {
                return None;
            }
            &inner[a..b]
        };
        params.iter().position(|p| *p == expected)
    })
}

/// jest and vitest: `test.each` (or `it.each`) over an array of array rows, whose title
/// prints no cell at or after the expected one, and whose function compares one parameter
/// at its body's level and uses it nowhere else: every row's expected cell changed; the
/// titles of the rows changed.
pub(super) fn javascript(lines: &mut [String], coin: &mut dyn Coin) -> Vec<String> {
    let mut names = Vec::new();
    let starts: Vec<usize> = (0..lines.len())
        .filter(|i| {
            let t = lines[*i].trim_start();
            t.starts_with("test.each([") || t.starts_with("it.each([")
        })
        .collect();
    for start in starts {
        if let Some(titles) = javascript_each(lines, start, coin) {
            names.extend(
                titles
                    .into_iter()
                    .filter(|t| !names.contains(t))
                    .collect::<Vec<_>>(),
            );
        }
    }
    names
}

fn javascript_each(lines: &mut [String], start: usize, coin: &mut dyn Coin) -> Option<Vec<String>> {
    let quotes = JS.0;
    let own = indent(&lines[start]).to_owned();
    // The rows, up to the line that opens the function.
    let text = lines[start..].join("\n");
    let open = text.find('(')?;
    let close = closing(&text, open, quotes)?;
    let rows = text[open + 1..close].trim();
    let rows_at = open + 1 + text[open + 1..close].find('[')?;
    if !rows.starts_with('[') || !rows.ends_with(']') {
        return None;
    }
    let head_end = close + text[close..].find('\n')?;
    let head = &text[close + 1..head_end];
    let head = head.strip_prefix('(')?;
    let quote = head.chars().next().filter(|q| *q == '"' || *q == '\'')?;
    let (title, after) = head[1..].split_once(quote)?;
    let params = after.strip_prefix(", (")?.strip_suffix(") => {")?;
    // Object rows, `({ a, b, expected }) =>`: each row's cell keyed by the name.
    let objects = params.strip_prefix("{ ").and_then(|p| p.strip_suffix(" }"));
    let params: Vec<&str> = objects.unwrap_or(params).split(", ").collect();
    if params.len() < 2 || title.contains('\\') || !params.iter().all(|p| ident_js(p)) {
        return None;
    }
    // The function's body: up to `});` at the call's indentation.
    let first_body = start + text[..head_end].matches('\n').count() + 1;
    let end = (first_body..lines.len()).find(|i| lines[*i] == format!("{own}}});"))?;
    let body_text = lines[first_body..end].join("\n");
    if ["return", "skip", "todo", "done"]
        .iter()
        .any(|w| holds_code(&body_text, quotes, w))
    {
        return None;
    }
    let index = each_compared(lines, (first_body, end), &params)?;
    if words(&body_text, params[index]) != 1 {
        return None;
    }
    let rows_close = closing(&text, rows_at, quotes)?;
    let mut titles = Vec::new();
    if objects.is_some() {
        let rows = (rows_at, rows_close);
        return each_objects(lines, (start, &text), rows, (title, params[index]), coin);
    }
    for (n, (a, b)) in elements(&text, rows_at, rows_close, quotes)
        .into_iter()
        .enumerate()
    {
        let row = &text[a..b];
        if !row.starts_with('[') || closing(row, 0, quotes)? + 1 != row.len() {
            return None;
        }
        let cells: Vec<&str> = elements(row, 0, row.len() - 1, quotes)
            .into_iter()
            .map(|(x, y)| &row[x..y])
            .collect();
        let (name, taken) = each_title(title, &cells, n)?;
        // A title that prints the expected value would change with it.
        if taken > index || cells.len() != params.len() {
            return None;
        }
        titles.push(name);
    }
    let changes = changed_rows(
        &text,
        (rows_at, rows_close + 1),
        Column::At(index, params.len()),
        (JS, Shape::Js, Reach::Near),
        coin,
    )?;
    let new = spliced(&text, changes);
    for (line, text) in lines[start..].iter_mut().zip(new.split('\n')) {
        text.clone_into(line);
    }
    Some(titles)
}

/// `test.each` over object rows (`{ a: 2, b: 3, expected: 5 }`) of the text `text` from
/// line `start`, the rows at `rows` (the brackets' offsets), titled `title`, comparing the
/// key `expected`: every row's expected cell changed; the rows' titles.
fn each_objects(
    lines: &mut [String],
    (start, text): (usize, &str),
    (rows_at, rows_close): (usize, usize),
    (title, expected): (&str, &str),
    coin: &mut dyn Coin,
) -> Option<Vec<String>> {
    let quotes = JS.0;
    let mut titles = Vec::new();
    for (a, b) in elements(text, rows_at, rows_close, quotes) {
        let row = &text[a..b];
        if !row.starts_with('{') || closing(row, 0, quotes)? + 1 != row.len() {
            return None;
        }
        titles.push(each_object_title(title, row, expected)?);
    }
    let changes = changed_rows(
        text,
        (rows_at, rows_close + 1),
        Column::Keyed(expected, 0, usize::MAX),
        (JS, Shape::Js, Reach::Near),
        coin,
    )?;
    let new = spliced(text, changes);
    for (line, text) in lines[start..].iter_mut().zip(new.split('\n')) {
        text.clone_into(line);
    }
    Some(titles)
}

/// The title jest and vitest give an object row `row` (`{ a: 2, b: 3, expected: 5 }`) of
/// `test.each` whose title is `title`: `$a` takes the row's value of `a`, where it is an
/// integer literal (printed as written by both); `None` for a title that prints the
/// expected value (`expected`, which changes), any other placeholder (`%s`, `$a.b`,
/// `$#`), or a value not printed as written.
fn each_object_title(title: &str, row: &str, expected: &str) -> Option<String> {
    let quotes = JS.0;
    if title.contains('%') {
        return None;
    }
    let mut values: Vec<(&str, &str)> = Vec::new();
    for (a, b) in elements(row, 0, row.len() - 1, quotes) {
        if let Some((va, vb)) = keyed_value(row, (a, b), quotes) {
            let key = row[a..va].trim_end().trim_end_matches(':').trim();
            values.push((key, &row[va..vb]));
        }
    }
    let mut out = String::new();
    let mut rest = title;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let len = after
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        let key = &after[..len];
        if key.is_empty() || key == expected || after[len..].starts_with(['.', '[']) {
            return None;
        }
        let [(_, value)] = values
            .iter()
            .filter(|(k, _)| *k == key)
            .copied()
            .collect::<Vec<_>>()[..]
        else {
            return None;
        };
        let digits = value.strip_prefix('-').unwrap_or(value);
        let integer = !digits.is_empty()
            && digits.len() < 16
            && digits.bytes().all(|b| b.is_ascii_digit())
            && (digits == "0" || !digits.starts_with('0'));
        if !integer {
            return None;
        }
        out.push_str(value);
        rest = &after[len..];
    }
    out.push_str(rest);
    Some(out)
}

/// Whether `name` is a JavaScript identifier of plain letters.
fn ident_js(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
}

/// JavaScript: a loop at a test body's level over literal rows, `for (const [a, b, want]
/// of [[2, 3, 5], …]) {`, whose body compares one of the names at its own level with the
/// runner's assertion and uses it nowhere else, with no `break`, `continue` or `return`:
/// every row runs and compares its own expected cell, so every row's changes. Whether the
/// test's twin changed.
pub(super) fn javascript_loops(lines: &mut [String], test: &Test, coin: &mut dyn Coin) -> bool {
    let mut changed_any = false;
    for i in level_lines(lines, test.body, JS) {
        if javascript_loop(lines, i, test, coin).is_some() {
            changed_any = true;
        }
    }
    changed_any
}

fn javascript_loop(lines: &mut [String], i: usize, test: &Test, coin: &mut dyn Coin) -> Option<()> {
    let quotes = JS.0;
    let own = indent(&lines[i]).to_owned();
    if !lines[i].trim_start().starts_with("for (const [") {
        return None;
    }
    let text = lines[i..test.body.1].join("\n");
    let open = text.find('(')?;
    let close = closing(&text, open, quotes)?;
    let header_end = close + 1 + text[close + 1..].find('\n')?;
    if &text[close + 1..header_end] != " {" {
        return None;
    }
    let inner = &text[open + 1..close];
    let rest = inner.strip_prefix("const [")?;
    let (targets, rows) = rest.split_once("] of ")?;
    let targets: Vec<&str> = targets.split(',').map(str::trim).collect();
    if targets.len() < 2 || !targets.iter().all(|t| ident_js(t)) {
        return None;
    }
    let rows_at = open + 1 + inner.len() - rows.len();
    if !rows.starts_with('[') || closing(&text, rows_at, quotes)? + 1 != close {
        return None;
    }
    let first_body = i + text[..header_end].matches('\n').count() + 1;
    let end = (first_body..test.body.1).find(|j| lines[*j] == format!("{own}}}"))?;
    let body = lines[first_body..end].join("\n");
    if ["break", "continue", "return", "yield", "await"]
        .iter()
        .any(|w| holds_code(&body, quotes, w))
    {
        return None;
    }
    let index = each_compared(lines, (first_body, end), &targets)?;
    let whole = lines[test.body.0..test.body.1].join("\n");
    if words(&whole, targets[index]) != 2 || words(&body, targets[index]) != 1 {
        return None;
    }
    let changes = changed_rows(
        &text,
        (rows_at, close),
        Column::At(index, targets.len()),
        (JS, Shape::Js, Reach::Near),
        coin,
    )?;
    let new = spliced(&text, changes);
    for (line, text) in lines[i..].iter_mut().zip(new.split('\n')) {
        text.clone_into(line);
    }
    Some(())
}
