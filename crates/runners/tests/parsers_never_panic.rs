//! Every parser returns, on any input: a value or an error, never a panic.

use proptest::prelude::*;
use serde_json::Value;
use speccoder_runners::parse;

/// Any JSON value, a few levels deep, with keys the parsers look for mixed in.
fn json_value() -> impl Strategy<Value = Value> {
    let key = prop_oneof![
        Just("recipes".to_owned()),
        Just("modules".to_owned()),
        Just("parameters".to_owned()),
        Just("tasks".to_owned()),
        Just("task".to_owned()),
        Just("packages".to_owned()),
        Just("targets".to_owned()),
        Just("kind".to_owned()),
        Just("name".to_owned()),
        Just("scripts".to_owned()),
        Just("workspace_members".to_owned()),
        Just("required-features".to_owned()),
        "[a-z]{1,6}",
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        "\\PC{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 64, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(key.clone(), inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    /// Property: the makefile parser returns on any text.
    #[test]
    fn makefile(text in "(\\PC|[\\t\\n\\r\\\\:=#$%()]){0,400}") {
        let _ = parse::makefile(&text);
    }

    /// Property: the makefile parser returns on text built from make's own symbols.
    #[test]
    fn makefile_symbols(lines in prop::collection::vec("[a-z.%$(){}:=?+!;# \\t\\\\]{0,30}", 0..40)) {
        let text = lines.join("\n");
        let targets = parse::makefile(&text);
        // Whatever it finds is a name an op can hold.
        for target in targets {
            prop_assert!(!target.name.is_empty() && !target.name.contains(char::is_whitespace));
        }
    }

    /// Property: the JSON listing parsers return on any bytes.
    #[test]
    fn listings_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let _ = parse::just_dump(&bytes);
        let _ = parse::task_list(&bytes);
        let _ = parse::cargo_metadata(&bytes);
        let _ = parse::package_json(&bytes);
        let _ = parse::workspace_package_json(&bytes);
        let _ = parse::pnpm_workspace(&String::from_utf8_lossy(&bytes));
        let _ = parse::composer_json(&bytes);
        let text = String::from_utf8_lossy(&bytes);
        let _ = parse::deno_config(&text);
        let _ = parse::mise_file_task_headers(&text);
    }

    /// Property: the JSONC and mise header readers return on text built from their symbols.
    #[test]
    fn jsonc_and_mise_headers(text in "([\\[\\]{}:,\"'/*\n ]|MISE|#|tasks|a){0,300}") {
        let _ = parse::deno_config(&text);
        let _ = parse::mise_file_task_headers(&text);
    }

    /// Property: the JSON listing parsers return on any JSON, whatever its shape.
    #[test]
    fn listings_on_json(value in json_value()) {
        let bytes = serde_json::to_vec(&value).expect("serialises");
        let _ = parse::just_dump(&bytes);
        let _ = parse::task_list(&bytes);
        let _ = parse::cargo_metadata(&bytes);
        let _ = parse::package_json(&bytes);
        let _ = parse::workspace_package_json(&bytes);
        let _ = parse::composer_json(&bytes);
        let _ = parse::deno_config(&String::from_utf8_lossy(&bytes));
    }
}
