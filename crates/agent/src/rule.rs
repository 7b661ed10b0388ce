//! The grammar of the Claude Code permission rules we write, checked before any rule leaves
//! the runtime.
//!
//! Claude Code reads a rule as `Tool` or `Tool(content)`. In `-p` mode a settings file that
//! fails its validation is silently ignored, so a malformed rule could drop every rule with
//! it: each rule is checked here, against the narrow forms we mean to write.

/// Whether `c` is a control character or a Unicode line or paragraph separator: anything that
/// could end a line or an argument in a reader of the rule.
pub(crate) fn is_control(c: char) -> bool {
    // U+2028 and U+2029 are not in Unicode's control category, yet they end a line.
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}')
}

/// Whether `c` is a Unicode format character (category Cf): a bidi control such as U+202E,
/// a zero-width space, joiner or word joiner, a byte order mark, a tag. Invisible or
/// reordering the text around it, it can make a name in a rule or a prompt look like
/// another.
pub(crate) fn is_format(c: char) -> bool {
    use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};
    c.general_category() == GeneralCategory::Format
}

/// Checks that `rule` is one of the forms the runtime writes: a bare tool name
/// (`WebFetch`), an MCP server's or tool's name (`mcp__speccoder`, `mcp__speccoder__recipe`), `Bash(<command>)` or `Bash(<command> *)` with a command free of rule
/// syntax, or `Read(//<absolute folder>/**)`.
pub(crate) fn check_rule(rule: &str) -> Result<(), String> {
    let bad = |why: &str| Err(format!("the rule `{}` {why}", rule.escape_debug()));
    if let Some(c) = rule.chars().find(|&c| is_control(c)) {
        return bad(&format!("holds the control character {c:?}"));
    }
    if let Some(c) = rule.chars().find(|&c| is_format(c)) {
        return bad(&format!("holds the format character {c:?}"));
    }
    let Some(open) = rule.find('(') else {
        return if is_tool_name(rule) || is_mcp_tool_name(rule) {
            Ok(())
        } else {
            bad("is not a tool name")
        };
    };
    let (tool, rest) = rule.split_at(open);
    let Some(content) = rest
        .strip_prefix('(')
        .and_then(|rest| rest.strip_suffix(')'))
    else {
        return bad("does not end with `)`");
    };
    if !is_tool_name(tool) {
        return bad("does not start with a tool name");
    }
    if content.trim().is_empty() {
        return bad("is empty inside its parentheses");
    }
    if content.contains(['(', ')']) {
        return bad("holds a parenthesis inside its parentheses");
    }
    match tool {
        "Bash" => {
            // The only wildcard we write is the documented trailing ` *`.
            let command = content.strip_suffix(" *").unwrap_or(content);
            if command.contains(['*', ',']) || command.trim() != command {
                return bad("is not a plain command, or a plain command followed by ` *`");
            }
            Ok(())
        }
        "Read" => {
            // `//path` is absolute in a rule; `/path` would be read from the settings file's
            // folder, and a glob character would widen or narrow what is withheld.
            let Some(path) = content
                .strip_prefix("//")
                .and_then(|p| p.strip_suffix("/**"))
            else {
                return bad("is not of the form `Read(//<absolute folder>/**)`");
            };
            if path.is_empty() || path.contains(['*', '?', '[', ']', '{', '}', '\\']) {
                return bad("names a folder that a rule cannot name exactly");
            }
            Ok(())
        }
        _ => bad("is for a tool the runtime never writes content rules for"),
    }
}

fn is_tool_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_uppercase()) && chars.all(|c| c.is_ascii_alphanumeric())
}

/// Whether `name` is an MCP server's tool as Claude Code names it, `mcp__<server>__<tool>`.
fn is_mcp_tool_name(name: &str) -> bool {
    let part = |p: &str| {
        !p.is_empty()
            && p.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    };
    // `mcp__server` (every tool of the server) or `mcp__server__tool`.
    name.strip_prefix("mcp__")
        .is_some_and(|rest| match rest.split_once("__") {
            Some((server, tool)) => part(server) && part(tool),
            None => part(rest),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grammar() {
        #[track_caller]
        fn case(rule: &str, ok: bool) {
            assert_eq!(
                check_rule(rule).is_ok(),
                ok,
                "{rule:?}: {:?}",
                check_rule(rule)
            );
        }
        case("Read", true);
        case("WebFetch", true);
        case("Bash(cargo test)", true);
        case("Bash(npm run 'test' -- *)", true);
        case("Bash(just build *)", true);
        case("Read(//s/held-out/f/T1/**)", true);
        case("Read(/s/held-out/f/T1/**)", false);
        case("Read(//**)", false);
        case("Read(//a/*/b/**)", false);
        case("Read(//a/[x]/**)", false);
        case("Bash(rm *)x", false);
        case("Bash()", false);
        case("Bash(a)Bash(b)", false);
        case("Bash(a(b)", false);
        case("Bash(a * b)", false);
        case("Bash(a,b)", false);
        case("Bash(a\nb)", false);
        case("Bash(a\u{2028}b)", false);
        case("Bash(a\u{2029}b)", false);
        case("Bash(just te\u{202e}st)", false);
        case("Bash(just te\u{200b}st)", false);
        case("Bash(just \u{feff}test)", false);
        case("Bash(just t\u{e9}st)", true);
        case("bash(a)", false);
        case("Edit(//x/**)", false);
        case("Web Fetch", false);
        case("mcp__speccoder__recipe", true);
        case("mcp__speccoder__", false);
        case("mcp__speccoder", true);
        case("mcp__", false);
        case("mcp__a b__c", false);
    }

    #[test]
    fn unicode_separators_are_control() {
        for c in [
            '\n', '\r', '\u{0}', '\u{85}', '\u{2028}', '\u{2029}', '\u{0b}',
        ] {
            assert!(is_control(c), "{c:?}");
        }
        assert!(!is_control('é'));
    }
}
