//! The commands an agent is allowed to run: `[commands] allow` and the detected tasks, and
//! the Claude Code permission rules built from them.

use serde::Serialize;
use speccoder_runners::quote;

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
    /// The Claude Code rule of each allowed command that could have one.
    pub claude_rules: Vec<String>,
    /// Commands that could not safely become rules.
    pub dropped: Vec<Dropped>,
}

/// Whether an allowance is the exact command or also admits trailing arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Match {
    /// Only this command (`[commands] allow`).
    Exact,
    /// This command with any arguments after it (a task).
    WithArguments,
}

impl Allowances {
    /// Adds an allowance and its rule, unless the rule could not be built safely.
    pub fn push(&mut self, argv: Vec<String>, how: Match) {
        let command = argv.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ");
        if self.allow.contains(&argv) {
            return;
        }
        match rule(&command, how) {
            Ok(rule) => {
                self.allow.push(argv);
                if !self.claude_rules.contains(&rule) {
                    self.claude_rules.push(rule);
                }
            }
            Err(reason) => self.dropped.push(Dropped { command, reason }),
        }
    }
}

/// The Claude Code rule for `command`: `Bash(<command>)` for an exact command, and the
/// documented prefix form `Bash(<command> *)` for one that takes arguments. A command with a
/// character that could change the meaning of the comma-separated rule list never becomes a
/// rule: `,` separates rules, `(` `)` delimit one, `*` is a wildcard, and line breaks or
/// other control characters could end the argument.
fn rule(command: &str, how: Match) -> Result<String, String> {
    if command.trim().is_empty() {
        return Err("it is empty".into());
    }
    if let Some(c) = command
        .chars()
        .find(|c| matches!(c, ',' | '(' | ')' | '*') || c.is_control())
    {
        let shown = if c.is_control() {
            format!("the control character {:?}", c)
        } else {
            format!("`{c}`")
        };
        return Err(format!(
            "it holds {shown}, which could change what the rule list allows"
        ));
    }
    Ok(match how {
        Match::Exact => format!("Bash({command})"),
        Match::WithArguments => format!("Bash({command} *)"),
    })
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
        a.push(argv(&["cargo", "test"]), Match::Exact);
        assert_eq!(a.claude_rules, ["Bash(cargo test)", "Bash(npm run test *)"]);
        assert_eq!(
            a.allow,
            [argv(&["cargo", "test"]), argv(&["npm", "run", "test"])]
        );
        let reasons: Vec<&str> = a.dropped.iter().map(|d| d.reason.as_str()).collect();
        assert_eq!(
            reasons,
            [
                "it holds `,`, which could change what the rule list allows",
                "it holds `)`, which could change what the rule list allows",
                "it holds `*`, which could change what the rule list allows",
                "it holds the control character '\\n', which could change what the rule list allows",
            ]
        );
        assert_eq!(a.dropped[0].command, "npm run 'x,Bash(rm'");
    }
}
