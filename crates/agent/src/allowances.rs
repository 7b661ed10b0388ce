//! The commands an agent is allowed to run: `[commands] allow` and the detected tasks, and
//! the Claude Code permission rules built from them.

use std::collections::HashSet;

use serde::Serialize;
use speccoder_foundation::quote::quote;

use super::rule::{check_rule, is_control, is_format};

/// One command that is not turned into a rule, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Dropped {
    /// The command as text.
    pub command: String,
    /// Why it has no rule.
    pub reason: String,
}

/// The allowances and their rules.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Allowances {
    /// Each allowed command as an argv.
    pub allow: Vec<Vec<String>>,
    /// The Claude Code rules of the allowed commands, each once, in order.
    pub claude_rules: Vec<String>,
    /// Commands that could not safely become rules.
    pub dropped: Vec<Dropped>,
    /// The rules of each entry of `allow`, in the same order.
    #[serde(skip)]
    rules_of: Vec<Vec<String>>,
    /// The entries of `allow` and `claude_rules`, for a constant-time duplicate check: with
    /// 40,000 tasks a search of the lists took seconds.
    #[serde(skip)]
    seen_argv: HashSet<Vec<String>>,
    #[serde(skip)]
    seen_rules: HashSet<String>,
}

/// Which arguments an allowance admits after its command (each runner says which).
pub use speccoder_runners::Arguments as Match;

impl Allowances {
    /// Adds an allowance and its rules, unless a rule could not be built safely.
    pub fn push(&mut self, argv: Vec<String>, how: Match) {
        if self.seen_argv.contains(&argv) {
            return;
        }
        let command = argv.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ");
        match rules(&argv, &command, how) {
            Ok(rules) => {
                for rule in &rules {
                    if self.seen_rules.insert(rule.clone()) {
                        self.claude_rules.push(rule.clone());
                    }
                }
                self.seen_argv.insert(argv.clone());
                self.allow.push(argv);
                self.rules_of.push(rules);
            }
            Err(reason) => self.dropped.push(Dropped { command, reason }),
        }
    }

    /// Each allowed command with its rules.
    pub fn entries(&self) -> impl Iterator<Item = (&[String], &[String])> {
        self.allow
            .iter()
            .zip(&self.rules_of)
            .map(|(argv, rules)| (argv.as_slice(), rules.as_slice()))
    }
}

/// The Claude Code rules for `command`: `Bash(<command>)` for an exact command, the
/// documented prefix form `Bash(<command> *)` for one that takes any words after it, and
/// both `Bash(<command>)` and `Bash(<command> -- *)` for one that takes words after `--`,
/// both `Bash(<command>)` and `Bash(<program> <option> <rest of command> *)` for one that takes
/// words once the option is given.
/// A command with a character that could change the meaning of a rule never becomes one:
/// `,` separates rules on a command line, `(` `)` delimit one, `*` is a wildcard, and line
/// breaks or other control characters (U+2028 and U+2029 too) could end the argument, and
/// format characters (bidi controls, zero-width spaces, byte order marks) could make it look
/// like another command.
fn rules(argv: &[String], command: &str, how: Match) -> Result<Vec<String>, String> {
    if command.trim().is_empty() {
        return Err("it is empty".into());
    }
    if let Some(c) = command
        .chars()
        .find(|&c| matches!(c, ',' | '(' | ')' | '*') || is_control(c) || is_format(c))
    {
        let shown = if is_control(c) {
            format!("the control character {:?}", c)
        } else if is_format(c) {
            format!("the format character {:?}", c)
        } else {
            format!("`{c}`")
        };
        return Err(format!(
            "it holds {shown}, which could change what the rule list allows"
        ));
    }
    let rules = match how {
        Match::Exact => vec![format!("Bash({command})")],
        Match::WithArguments => vec![format!("Bash({command} *)")],
        Match::AfterDashDash => vec![format!("Bash({command})"), format!("Bash({command} -- *)")],
        Match::WithArgumentsAfterOption(option) => {
            let mut with_option: Vec<String> = argv.iter().map(|w| quote(w)).collect();
            with_option.insert(1.min(with_option.len()), quote(option));
            vec![
                format!("Bash({command})"),
                format!("Bash({} *)", with_option.join(" ")),
            ]
        }
    };
    for rule in &rules {
        check_rule(rule)?;
    }
    Ok(rules)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn rules_and_drops() {
        let mut a = Allowances::default();
        a.push(argv(&["cargo", "test"]), Match::Exact);
        a.push(argv(&["npm", "run", "test"]), Match::WithArguments);
        a.push(argv(&["npm", "run", "x,Bash(rm"]), Match::WithArguments);
        a.push(
            argv(&["npm", "run", "y)", "Bash(curl"]),
            Match::WithArguments,
        );
        a.push(argv(&["npm", "run", "*"]), Match::WithArguments);
        a.push(argv(&["npm", "run", "a\nb"]), Match::WithArguments);
        a.push(argv(&["just", "a\u{2028}b"]), Match::WithArguments);
        // Format characters that make a name look like another: bidi override, zero-width
        // space, byte order mark, word joiner, a language tag.
        for c in ['\u{202e}', '\u{200b}', '\u{feff}', '\u{2060}', '\u{e0041}'] {
            a.push(argv(&["just", &format!("te{c}st")]), Match::WithArguments);
        }
        a.push(argv(&["task", "lint"]), Match::AfterDashDash);
        a.push(
            argv(&["just", "mod::two"]),
            Match::WithArgumentsAfterOption("--one"),
        );
        a.push(argv(&["cargo", "test"]), Match::Exact);
        assert_eq!(
            a.claude_rules,
            [
                "Bash(cargo test)",
                "Bash(npm run test *)",
                "Bash(task lint)",
                "Bash(task lint -- *)",
                "Bash(just mod::two)",
                "Bash(just --one mod::two *)"
            ]
        );
        assert_eq!(
            a.allow,
            [
                argv(&["cargo", "test"]),
                argv(&["npm", "run", "test"]),
                argv(&["task", "lint"]),
                argv(&["just", "mod::two"])
            ]
        );
        assert_eq!(
            a.entries()
                .map(|(_, rules)| rules.len())
                .collect::<Vec<_>>(),
            [1, 1, 2, 2]
        );
        let reasons: Vec<&str> = a.dropped.iter().map(|d| d.reason.as_str()).collect();
        assert_eq!(
            reasons,
            [
                "it holds `,`, which could change what the rule list allows",
                "it holds `)`, which could change what the rule list allows",
                "it holds `*`, which could change what the rule list allows",
                "it holds the control character '\\n', which could change what the rule list allows",
                "it holds the control character '\\u{2028}', which could change what the rule list allows",
                "it holds the format character '\\u{202e}', which could change what the rule list allows",
                "it holds the format character '\\u{200b}', which could change what the rule list allows",
                "it holds the format character '\\u{feff}', which could change what the rule list allows",
                "it holds the format character '\\u{2060}', which could change what the rule list allows",
                "it holds the format character '\\u{e0041}', which could change what the rule list allows",
            ]
        );
        assert_eq!(a.dropped[0].command, "npm run 'x,Bash(rm'");
    }
}
