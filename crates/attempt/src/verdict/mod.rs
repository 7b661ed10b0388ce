//! The verdict's room: what the checks' results mean. `outcomes` judges a check's tests
//! against the baseline, `baseline` measures the base (running the earlier stages itself),
//! `twins` plants the known answer and the twins that show a report is the runner's and a
//! wrong value fails, and `results/` reads each
//! runner's output. It may use every stage before it, `shared/` and `store/`; `results/`
//! uses nothing of the attempt, so `checks` reads reports with it.
//!
//! This module: the verdict of one attempt, and the digest handed to the next.

pub(super) mod baseline;
pub(super) mod outcomes;
pub(super) mod results;
pub(super) mod twins;

use serde_json::{Value, json};

use super::shared::{CheckResult, Finding, Verdict};
use speccoder_agent::{Outcome, Status};

/// A one-line reason for a person: why the attempt ended as it did.
pub(crate) fn reason(
    verdict: Verdict,
    agent: &Outcome,
    findings: &[Finding],
    checks: &[CheckResult],
) -> String {
    match verdict {
        Verdict::Passed => {
            let known: Vec<&String> = checks
                .iter()
                .flat_map(|c| c.tests.known_failures.iter())
                .collect();
            match known.len() {
                0 => "every check passed".into(),
                n => {
                    let named: Vec<String> =
                        known.iter().take(5).map(|id| format!("`{id}`")).collect();
                    let more = if n > 5 {
                        format!(" and {} more", n - 5)
                    } else {
                        String::new()
                    };
                    let s = if n == 1 { "" } else { "s" };
                    format!(
                        "passed with {n} known failure{s} ([attempt] known_failures): {}{more}",
                        named.join(", ")
                    )
                }
            }
        }
        Verdict::Rejected => findings
            .iter()
            .map(|f| {
                format!(
                    "{} {}",
                    serde_json::to_value(f.kind)
                        .unwrap_or(Value::Null)
                        .as_str()
                        .unwrap_or("?"),
                    f.path
                )
            })
            .collect::<Vec<_>>()
            .join(", "),
        Verdict::Blocked | Verdict::Failed if agent.status != Status::Completed => {
            agent.reason.clone().unwrap_or_default()
        }
        Verdict::Failed => checks
            .iter()
            .filter(|c| !c.passed())
            .map(failed_check)
            .collect::<Vec<_>>()
            .join(", "),
        Verdict::Blocked => agent.reason.clone().unwrap_or_default(),
        Verdict::Interrupted => "interrupted by a signal".into(),
    }
}

/// Why the failed check `c` failed, in a few words.
fn failed_check(c: &CheckResult) -> String {
    if c.timed_out {
        format!("check `{}` timed out", c.op)
    } else if let Some(cause) = &c.cause {
        let missing = match c.tests.not_passed_count {
            0 => String::new(),
            1 => " (1 required test did not run)".into(),
            n => format!(" ({n} required tests did not run)"),
        };
        format!(
            "check `{}` stopped before its tests: {cause}{missing}",
            c.op
        )
    } else if !c.tests.not_passed.is_empty() {
        let more = c.tests.not_passed_count - c.tests.not_passed.len().min(3);
        let mut named = c.tests.not_passed[..c.tests.not_passed.len().min(3)].join(", ");
        if more > 0 {
            named.push_str(&format!(" and {more} more"));
        }
        // Why they did not run, where the verdict knows: the runner stopped early.
        if let Some(why) = &c.tests.unexplained {
            named.push_str(&format!("; {why}"));
        }
        format!("check `{}`: {named}", c.op)
    } else if let Some(why) = &c.tests.unexplained {
        format!("check `{}`: {why}", c.op)
    } else {
        match c.exit_code {
            Some(code) => format!("check `{}` exited {code}", c.op),
            None if c.command.is_none() => {
                format!("check `{}`: {}", c.op, c.output_tail)
            }
            None => format!("check `{}` was killed", c.op),
        }
    }
}

/// Whether the digest may quote the checks' output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Quote {
    /// The output's last lines go in.
    Output,
    /// Only the tests' ids and counts: withheld tests ran, and code under test could print
    /// them (their assertions, their expected values) into the next agent's prompt.
    TestIdsOnly,
}

/// The digest for the next attempt: facts only, no advice. The verdict, the findings, each
/// failed check with the tests that did not pass (and its last lines of output, unless
/// `quote` forbids), and the agent's own summary or reason.
pub(crate) fn digest(
    verdict: Verdict,
    agent: &Outcome,
    findings: &[Finding],
    checks: &[CheckResult],
    quote: Quote,
) -> Value {
    let failed: Vec<Value> = checks
        .iter()
        .filter(|c| !c.passed())
        .map(|c| {
            json!({
                "op": c.op,
                "pass": c.pass,
                "exit_code": c.exit_code,
                "timed_out": c.timed_out,
                "tests_not_passed": match quote {
                    Quote::Output => c.tests.not_passed.clone(),
                    Quote::TestIdsOnly => c
                        .tests
                        .not_passed
                        .iter()
                        .filter(|t| !t.starts_with(outcomes::WITHHELD_MARK))
                        .cloned()
                        .collect(),
                },
                "withheld_tests_not_passed": c
                    .tests
                    .not_passed
                    .iter()
                    .filter(|t| t.starts_with(outcomes::WITHHELD_MARK))
                    .count(),
                "tests_not_passed_count": c.tests.not_passed_count,
                // Visible tests that failed before the change too: not excused, and not
                // withheld, so the next agent reads which ones its change must make pass.
                "failing_at_the_base_too": if c.tests.failing_at_base.is_empty() {
                    Value::Null
                } else {
                    json!({
                        "note": "these failed before your change as well, and still fail: your change must make them pass",
                        "tests": c.tests.failing_at_base,
                    })
                },
                "known_failures": c.tests.known_failures,
                "unexplained": c.tests.unexplained,
                "stopped_before_its_tests": c.cause,
                "hint": c.hint,
                "output_tail": match quote {
                    Quote::Output => Value::String(c.output_tail.clone()),
                    Quote::TestIdsOnly => Value::Null,
                },
            })
        })
        .collect();
    let mut agent_part = json!({ "status": agent.status });
    if let Some(report) = &agent.report {
        agent_part["summary"] = json!(report.summary);
    }
    if let Some(reason) = &agent.reason {
        agent_part["reason"] = json!(reason);
    }
    // The calls the agent's CLI refused: the next attempt should not spend turns on them.
    if let Some(denials) = &agent.permission_denials {
        agent_part["refused_by_its_permissions"] = json!(denials);
    }
    json!({
        "verdict": verdict,
        "findings": findings,
        "failed_checks": failed,
        "agent": agent_part,
    })
}
