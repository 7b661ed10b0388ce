//! The two halves of the withheld twins (invariant 12 of `docs/design/verdict.md`). Each
//! twinnable withheld test takes its twin in one half and is as written in the other,
//! where it must fare as in the verdict's pass; the pass that hides itself runs three
//! times, each run one half, both among them ([`runs`]). So no run of the checks after the
//! verdict's is free of twins, and code that tells one run from another (by the clock, by
//! which ran first) gains nothing by forging in one: each holds twins it cannot tell from
//! the tests as written, and each withheld test runs as written in a run where forging is
//! caught. Only a bet on the order is left, right one time in six.
//!
//! A twin's changes are grouped by the test whose lines they fall in (its decorators,
//! attributes and opening line included); a change outside every test (a table defined
//! beside the tests) puts all the file's twinned tests in one group, so that no test
//! counted as written ever runs against a changed line.

use super::lang;
use super::lines::{Coin, Urandom};
use super::naming::Draw;

/// Which of the two runs of the pass that hides itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Half {
    One,
    Two,
}

/// Tests of one withheld file that take their twins in the same run: one test, or every
/// twinned test of the file where a changed line lies outside all of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Group {
    pub(super) names: Vec<String>,
    /// Whether all its changed lines lie in its tests' own lines: then the file's other
    /// tests run as written beside it.
    pub(super) own_lines: bool,
    /// The lines the twin changes for them.
    pub(super) lines: Vec<usize>,
}

/// The lines each test of the file `path` (its `lines`) spans: from its head (decorators,
/// attributes, the line that opens it) to its closing line, exclusive of the end.
pub(super) fn spans(path: &str, lines: &[String]) -> Vec<(String, (usize, usize))> {
    let extension = path.rsplit_once('.').map_or("", |(_, e)| e);
    match extension {
        "py" => lang::python_tests(lines)
            .into_iter()
            .filter_map(|t| {
                let def = lines[..t.body.0]
                    .iter()
                    .rposition(|l| l.trim_start().starts_with(&format!("def {}(", t.name)))?;
                // A decorator not read in full leaves the head at the `def`: a change
                // there falls outside every test, and the file is one group.
                let head = super::clone::decorators(lines, def).unwrap_or(def);
                Some((t.name, (head, t.body.1)))
            })
            .collect(),
        "go" if path.ends_with("_test.go") => lang::go_tests(lines)
            .into_iter()
            .map(|(name, _, start, end)| (name, (start - 1, end + 1)))
            .collect(),
        "rs" => lang::rust_tests(lines)
            .into_iter()
            .map(|t| {
                let mut head = t.body.0 - 1;
                while head > 0 && lines[head - 1].trim_start().starts_with("#[") {
                    head -= 1;
                }
                (t.name, (head, t.body.1 + 1))
            })
            .collect(),
        _ => lang::javascript_tests(lines)
            .into_iter()
            .map(|t| (t.name, (t.body.0 - 1, t.body.1 + 1)))
            .collect(),
    }
}

/// The groups of the twin `twin` of the file `path` (`text`), whose twinned tests are
/// `names`. Each test whose changed lines all fall in its own span is a group of its own;
/// otherwise the file is one group.
pub(super) fn groups(path: &str, text: &str, twin: &str, names: &[String]) -> Vec<Group> {
    let own: Vec<String> = text.split('\n').map(str::to_owned).collect();
    let new: Vec<&str> = twin.split('\n').collect();
    let changed: Vec<usize> = (0..own.len().min(new.len()))
        .filter(|i| own[*i] != new[*i])
        .collect();
    let whole = || {
        vec![Group {
            names: names.to_vec(),
            own_lines: false,
            lines: changed.clone(),
        }]
    };
    if own.len() != new.len() || names.is_empty() {
        return whole();
    }
    let spans = spans(path, &own);
    let mut groups: Vec<Group> = Vec::new();
    for line in &changed {
        let Some((name, _)) = spans.iter().find(|(_, (a, b))| a <= line && line < b) else {
            return whole();
        };
        match groups.iter_mut().find(|g| g.names[0] == *name) {
            Some(group) => group.lines.push(*line),
            None => groups.push(Group {
                names: vec![name.clone()],
                own_lines: true,
                lines: vec![*line],
            }),
        }
    }
    // Every twinned test must own a changed line, and every owner be a twinned test: a
    // twin reached some other way (a helper's parameter, a table elsewhere) is not split.
    let owned = |n: &String| groups.iter().any(|g| g.names[0] == *n);
    if !names.iter().all(owned) || groups.iter().any(|g| !names.contains(&g.names[0])) {
        return whole();
    }
    groups
}

/// The twin `twin` of `text` with only the groups of `half` changed (the others' lines as
/// `text` has them), and the names of its twinned tests; `None` where no group of `half`
/// is in it.
pub(super) fn halved(
    text: &str,
    twin: &str,
    groups: &[(Group, Half)],
    half: Half,
) -> Option<(String, Vec<String>)> {
    let mut lines: Vec<&str> = text.split('\n').collect();
    let new: Vec<&str> = twin.split('\n').collect();
    if lines.len() != new.len() {
        return None;
    }
    let mut names = Vec::new();
    for (group, _) in groups.iter().filter(|(_, h)| *h == half) {
        for line in &group.lines {
            lines[*line] = new[*line];
        }
        names.extend(group.names.iter().cloned());
    }
    (!names.is_empty()).then(|| (lines.join("\n"), names))
}

/// The halves of a unit's `count` groups, drawn at random: as many in each as can be
/// (the first takes the odd one), each group's half the same in every run of one attempt.
pub(super) fn assign(count: usize, draw: &mut Draw) -> Vec<Half> {
    let mut order: Vec<usize> = (0..count).collect();
    for i in (1..count).rev() {
        order.swap(i, draw.below(i + 1));
    }
    let mut halves = vec![Half::One; count];
    for at in order.into_iter().skip(count.div_ceil(2)) {
        halves[at] = Half::Two;
    }
    halves
}

/// The runs of the pass that hides itself, in order: three, each of them one half or the
/// other, both among them, drawn at random from the system's random source. Code that
/// tells the runs apart by the clock and bets on which of them twins which test must now
/// bet on one of six orders, not one of two: a test with its copy is as written in some
/// runs and twinned in the others, and a forger must forge exactly where it is as written.
pub(crate) fn runs() -> [Half; 3] {
    const ORDERS: [[Half; 3]; 6] = [
        [Half::One, Half::One, Half::Two],
        [Half::One, Half::Two, Half::One],
        [Half::Two, Half::One, Half::One],
        [Half::One, Half::Two, Half::Two],
        [Half::Two, Half::One, Half::Two],
        [Half::Two, Half::Two, Half::One],
    ];
    // Three flips, the two draws past six thrown back: the six alike. Without a random
    // source every flip is tails, and the first order.
    let mut coin = Urandom::new();
    loop {
        let drawn = (0..3).fold(0, |n, _| n * 2 + usize::from(coin.flip()));
        if let Some(order) = ORDERS.get(drawn) {
            return *order;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        text.split('\n').map(str::to_owned).collect()
    }

    const TWO: &str = "from calc import add\n\n\ndef test_big():\n    assert add(10, 20) == 30\n\n\n@pytest.mark.parametrize(\n    \"a, b, want\",\n    [(1, 2, 3)],\n)\ndef test_huge(a, b, want):\n    assert add(a, b) == want\n";

    #[test]
    fn a_python_tests_span_holds_its_decorators() {
        let spans = spans("tests/test_big.py", &lines(TWO));
        assert_eq!(
            spans,
            vec![
                ("test_big".to_owned(), (3, 7)),
                ("test_huge".to_owned(), (7, 14)),
            ]
        );
    }

    #[test]
    fn changes_in_each_test_make_a_group_each_and_one_outside_makes_one() {
        let twin = TWO
            .replace("== 30", "== 31")
            .replace("(1, 2, 3)", "(1, 2, 4)");
        let names = vec!["test_big".to_owned(), "test_huge".to_owned()];
        let split = groups("tests/test_big.py", TWO, &twin, &names);
        assert_eq!(split.len(), 2);
        assert_eq!(split[0].names, vec!["test_big".to_owned()]);
        assert_eq!(split[0].lines, vec![4]);
        assert_eq!(split[1].lines, vec![9]);
        // A table beside the tests, changed: one group.
        let table = format!("ROWS = [1]\n{TWO}");
        let twin = table
            .replace("ROWS = [1]", "ROWS = [2]")
            .replace("== 30", "== 31");
        let one = groups("tests/test_big.py", &table, &twin, &names);
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].names, names);
        assert!(!one[0].own_lines && split[0].own_lines);
        // A twinned test that owns no changed line (reached through a helper): one group.
        let twin = TWO.replace("== 30", "== 31");
        assert_eq!(groups("tests/test_big.py", TWO, &twin, &names).len(), 1);
    }

    #[test]
    fn a_half_changes_its_own_groups_alone() {
        let twin = TWO
            .replace("== 30", "== 31")
            .replace("(1, 2, 3)", "(1, 2, 4)");
        let names = vec!["test_big".to_owned(), "test_huge".to_owned()];
        let split = groups("tests/test_big.py", TWO, &twin, &names);
        let halves = vec![(split[0].clone(), Half::One), (split[1].clone(), Half::Two)];
        let (one, named) = halved(TWO, &twin, &halves, Half::One).expect("the first half");
        assert_eq!(named, vec!["test_big".to_owned()]);
        assert!(one.contains("== 31") && one.contains("(1, 2, 3)"));
        let (two, named) = halved(TWO, &twin, &halves, Half::Two).expect("the second half");
        assert_eq!(named, vec!["test_huge".to_owned()]);
        assert!(two.contains("== 30") && two.contains("(1, 2, 4)"));
        let only_one = vec![(split[0].clone(), Half::One)];
        assert!(halved(TWO, &twin, &only_one, Half::Two).is_none());
    }

    #[test]
    fn halves_are_as_even_as_can_be_and_drawn() {
        let mut seen_first = [false; 2];
        for n in 0..40 {
            let mut draw = Draw::new("tree", &format!("unit{n}"));
            for count in 1..6 {
                let halves = assign(count, &mut draw);
                let ones = halves.iter().filter(|h| **h == Half::One).count();
                assert_eq!(ones, count.div_ceil(2), "{halves:?}");
            }
            let mut draw = Draw::new("tree", &format!("unit{n}"));
            let halves = assign(2, &mut draw);
            seen_first[usize::from(halves[0] == Half::One)] = true;
        }
        assert_eq!(seen_first, [true, true], "the first group's half is drawn");
        let again = |n: &str| assign(5, &mut Draw::new("tree", n));
        assert_eq!(again("u"), again("u"), "the same in every run");
    }

    #[test]
    fn the_runs_hold_both_halves_in_every_order() {
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..400 {
            let runs = runs();
            assert!(
                runs.contains(&Half::One) && runs.contains(&Half::Two),
                "{runs:?}"
            );
            seen.insert(format!("{runs:?}"));
        }
        assert_eq!(seen.len(), 6, "{seen:?}");
    }

    #[test]
    fn go_rust_and_javascript_spans_hold_their_opening_and_closing_lines() {
        let go = "package calc\n\nfunc TestBig(t *testing.T) {\n\tif got := Add(1, 2); got != 3 {\n\t\tt.Fatal(got)\n\t}\n}\n";
        assert_eq!(
            spans("calc/big_test.go", &lines(go)),
            vec![("TestBig".to_owned(), (2, 7))]
        );
        let rust = "#[test]\n#[cfg(unix)]\nfn big() {\n    assert_eq!(add(1, 2), 3);\n}\n";
        assert_eq!(
            spans("tests/big.rs", &lines(rust)),
            vec![("big".to_owned(), (0, 5))]
        );
        let js = "test('big', () => {\n  expect(add(1, 2)).toBe(3);\n});\n";
        assert_eq!(
            spans("test/big.test.js", &lines(js)),
            vec![("big".to_owned(), (0, 3))]
        );
    }
}
