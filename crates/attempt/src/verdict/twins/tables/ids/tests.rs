use super::*;

/// A table of rows written in `rows`, its ids for the parameters `a, b, expected`.
fn ids(rows: &str) -> Option<String> {
    let names: Vec<String> = ["a", "b", "expected"].map(str::to_owned).to_vec();
    of_rows(rows, (0, rows.len()), &names)
}

/// The part of an id pytest 9.2 generated for each cell, read from `pytest --collect-only
/// -q` on a table holding them (the ids it printed, before escaping: `é` showed as `\xe9`).
#[test]
fn each_cells_part_is_the_one_pytest_generated() {
    for (cell, part) in [
        ("5", "5"),
        ("-4", "-4"),
        ("-0", "0"),
        ("+5", "5"),
        ("000", "0"),
        ("1_000", "1000"),
        ("0x10", "16"),
        ("0b101", "5"),
        ("1.5", "1.5"),
        ("2.0", "2.0"),
        ("1.", "1.0"),
        (".5", "0.5"),
        ("-0.0", "-0.0"),
        ("0.0001", "0.0001"),
        ("0.00001", "1e-05"),
        ("1e3", "1000.0"),
        ("-1.5e-7", "-1.5e-07"),
        ("1e16", "1e+16"),
        ("123456.789", "123456.789"),
        ("None", "None"),
        ("True", "True"),
        ("False", "False"),
    ] {
        assert_eq!(
            piece(cell, "a", 0),
            Some(Piece::Plain(part.to_owned())),
            "{cell}"
        );
    }
    // A list, a tuple, a dict or a set: the parameter's name and the row's index.
    for cell in ["(1, 2)", "[3]", "{\"k\": 1}", "()", "(1,)", "{1, 2}", "[]"] {
        assert_eq!(
            piece(cell, "b", 8),
            Some(Piece::Plain("b8".into())),
            "{cell}"
        );
    }
    // Strings: their own literal, which pytest escapes as it escapes the generated id.
    for cell in [
        "\"a b\"",
        "'é'",
        "r\"a\\b\"",
        "\"tab\\there\"",
        "'q\"t'",
        "u\"x\"",
        "\"\"\"tri'ple\"\"\"",
        "\"\"",
    ] {
        assert_eq!(piece(cell, "a", 0), Some(Piece::Literal(cell)), "{cell}");
    }
}

/// Where pytest's part depends on more than the literal (the value's type, its settings
/// for strings over 100 characters, a non-ASCII name it does not escape), no part.
#[test]
fn cells_whose_part_cannot_be_known_have_none() {
    let long = format!("\"{}\"", "x".repeat(101));
    for cell in [
        "int",
        "CONST",
        "b\"by\"",
        "f\"{a}\"",
        "\"a\" \"b\"",
        "\"x\" * 3",
        "2 ** 3",
        "1j",
        "(5)",
        "(x for x in y)",
        "float(\"inf\")",
        "1e999",
        "0x",
        "01",
        "- 4",
        "\"\"\"two\nlines\"\"\"",
        long.as_str(),
    ] {
        assert_eq!(piece(cell, "a", 0), None, "{cell}");
    }
    assert_eq!(piece("(1, 2)", "α", 0), None);
    assert!(piece(&format!("\"{}\"", "x".repeat(100)), "a", 0).is_some());
}

/// The ids of a table, before pytest's suffixes: it adds those itself, to an explicit
/// id as to a generated one (`2-3-5_0`, `2-3-5_1` for two equal rows, measured).
#[test]
fn a_tables_ids_join_each_rows_parts() {
    assert_eq!(
        ids("[(2, 3, 5), (-4, 1, -3), (2, 3, 5)]").as_deref(),
        Some("[\"2-3-5\", \"-4-1--3\", \"2-3-5\"]")
    );
    assert_eq!(
        ids("[(\"a b\", 'é', 5), ((1, 2), [3], \"ü x\")]").as_deref(),
        Some("[\"a b\" \"-\" 'é' \"-5\", \"a1-b1-\" \"ü x\"]")
    );
    assert_eq!(
        ids("[\n    [\"\", 1.5, None],\n]").as_deref(),
        Some("[\"\" \"-1.5-None\"]")
    );
    // A row of another width, a row that is not a tuple or list, a cell without a part.
    for rows in ["[(2, 3)]", "[ROW]", "[(2, 3, int)]", "[]"] {
        assert_eq!(ids(rows), None, "{rows}");
    }
}

/// The table's own `ids=`: literal ids stay (no change), `None` entries and an empty list
/// take the generated ones, anything computed leaves the table alone.
#[test]
fn a_tables_own_ids_are_kept() {
    let computed = "[\"1-2\", \"3-4\"]";
    assert_eq!(kept(None, computed), Ok(Some(computed.to_owned())));
    assert_eq!(kept(Some("[\"one\", \"two\"]"), computed), Ok(None));
    assert_eq!(kept(Some("(\"one\", 2)"), computed), Ok(None));
    assert_eq!(
        kept(Some("[\"one\", None]"), computed),
        Ok(Some("[\"one\", \"3-4\"]".to_owned()))
    );
    for given in ["[]", "None"] {
        assert_eq!(kept(Some(given), computed), Ok(Some(computed.to_owned())));
    }
    for given in [
        "lambda v: str(v)",
        "IDS",
        "[\"one\"]",
        "[\"one\", name]",
        "[f\"{x}\", \"two\"]",
        "[str(i) for i in range(2)]",
    ] {
        assert_eq!(kept(Some(given), computed), Err(()), "{given}");
    }
}

/// `pytest.param` rows: an `id=` literal is the row's id, `id=None` or none generates one
/// from its values (measured: `test_params[small one]`, `[-4-1--3]`, `[2-3-5_0]`, …).
/// Another keyword (`marks=`) or an id pytest computes leaves the table alone.
#[test]
fn a_pytest_param_rows_id_is_its_own_or_its_values() {
    assert_eq!(
        ids("[pytest.param(2, 3, 5, id=\"small one\"), pytest.param(-4, 1, -3), (2, 3, 5), pytest.param(2, 3, 5, id=None)]").as_deref(),
        Some("[\"small one\", \"-4-1--3\", \"2-3-5\", \"2-3-5\"]")
    );
    for rows in [
        "[pytest.param(2, 3, 5, marks=pytest.mark.slow)]",
        "[pytest.param(2, 3, 5, id=NAME)]",
        "[pytest.param(2, 3, 5, id=f\"{x}\")]",
        "[pytest.param(2, 3)]",
    ] {
        assert_eq!(ids(rows), None, "{rows}");
    }
}
