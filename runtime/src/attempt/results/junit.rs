//! JUnit XML, as pytest writes it: the outcome of each `<testcase>`.

use super::{MAX_TESTS, TestOutcome, lookup};

/// One `<testcase>` of a JUnit report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct JunitCase {
    /// The `classname` attribute.
    pub(super) classname: String,
    /// The `name` attribute.
    pub(super) name: String,
    /// What its `<failure>`, `<error>` and `<skipped>` children say, worst first.
    pub(super) outcome: TestOutcome,
}

/// The XML entities a JUnit report uses, with the text each stands for.
const XML_ENTITIES: &[(&str, char)] = &[
    ("amp", '&'),
    ("apos", '\''),
    ("gt", '>'),
    ("lt", '<'),
    ("quot", '"'),
];

/// The test cases of a JUnit report, at most `MAX_TESTS`; `None` when it has no
/// `<testsuite>` or `<testcase>` at all.
///
/// A small reader of the elements a JUnit report is made of, in one pass: comments, CDATA,
/// processing instructions and text are skipped, and only the tags and attributes that
/// carry outcomes are looked at.
pub(super) fn junit_cases(xml: &str) -> Option<Vec<JunitCase>> {
    let mut seen = false;
    let mut cases = Vec::new();
    let mut current: Option<JunitCase> = None;
    let mut rest = xml;
    while let Some(open) = rest.find('<') {
        rest = &rest[open..];
        if let Some(after) = rest.strip_prefix("<!--") {
            rest = skip_past(after, "-->");
        } else if let Some(after) = rest.strip_prefix("<![CDATA[") {
            rest = skip_past(after, "]]>");
        } else if let Some(after) = rest.strip_prefix("<?") {
            rest = skip_past(after, "?>");
        } else if let Some(after) = rest.strip_prefix("<!") {
            rest = skip_past(after, ">");
        } else if let Some(after) = rest.strip_prefix("</") {
            let (name, after) = tag_name(after);
            rest = skip_past(after, ">");
            if name == "testcase" {
                cases.extend(current.take());
            }
        } else {
            let tag = start_tag(&rest[1..]);
            rest = tag.rest;
            match tag.name {
                "testsuite" | "testsuites" => seen = true,
                "testcase" => {
                    seen = true;
                    cases.extend(current.take());
                    let case = JunitCase {
                        classname: tag.attribute("classname").unwrap_or_default(),
                        name: tag.attribute("name").unwrap_or_default(),
                        outcome: TestOutcome::Passed,
                    };
                    if tag.self_closing {
                        cases.push(case);
                    } else {
                        current = Some(case);
                    }
                }
                "error" | "failure" | "skipped" => {
                    if let Some(case) = current.as_mut() {
                        let outcome = match tag.name {
                            "error" => TestOutcome::Errored,
                            "failure" => TestOutcome::Failed,
                            _ if tag.attribute("type").as_deref() == Some("pytest.xfail") => {
                                TestOutcome::Xfailed
                            }
                            _ => TestOutcome::Skipped,
                        };
                        if outcome.severity() > case.outcome.severity() {
                            case.outcome = outcome;
                        }
                    }
                }
                _ => {}
            }
        }
        if cases.len() >= MAX_TESTS {
            cases.truncate(MAX_TESTS);
            return Some(cases);
        }
    }
    cases.extend(current);
    seen.then_some(cases)
}

/// `text` after the first `end`, or nothing when `end` never comes.
fn skip_past<'a>(text: &'a str, end: &str) -> &'a str {
    text.find(end).map_or("", |i| &text[i + end.len()..])
}

/// The tag name at the start of `text`, and the text after it.
fn tag_name(text: &str) -> (&str, &str) {
    let end = text
        .find(|c: char| c.is_whitespace() || c == '/' || c == '>')
        .unwrap_or(text.len());
    text.split_at(end)
}

/// A start tag, read from after its `<`.
#[derive(Debug)]
struct StartTag<'a> {
    /// The element's name.
    name: &'a str,
    /// Its attributes as written, values still escaped.
    attributes: Vec<(&'a str, &'a str)>,
    /// Whether it ended with `/>`.
    self_closing: bool,
    /// The text after the tag.
    rest: &'a str,
}

impl StartTag<'_> {
    /// The unescaped value of attribute `key`.
    fn attribute(&self, key: &str) -> Option<String> {
        self.attributes
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| xml_unescape(v))
    }
}

/// Reads a start tag from after its `<`; a malformed one reads as far as its `>`.
fn start_tag(text: &str) -> StartTag<'_> {
    let (name, mut rest) = tag_name(text);
    let mut attributes = Vec::new();
    loop {
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix("/>") {
            return StartTag {
                name,
                attributes,
                self_closing: true,
                rest: after,
            };
        }
        if let Some(after) = rest.strip_prefix('>') {
            return StartTag {
                name,
                attributes,
                self_closing: false,
                rest: after,
            };
        }
        let key_end = rest
            .find(|c: char| c == '=' || c.is_whitespace() || c == '>' || c == '/')
            .unwrap_or(rest.len());
        let (key, after) = rest.split_at(key_end);
        let after = after.trim_start();
        let quoted = after
            .strip_prefix('=')
            .map(str::trim_start)
            .and_then(|value| {
                let quote = value.chars().next().filter(|q| *q == '"' || *q == '\'')?;
                let value = &value[1..];
                let end = value.find(quote)?;
                Some((&value[..end], &value[end + 1..]))
            });
        match quoted {
            Some((value, after)) if !key.is_empty() => {
                attributes.push((key, value));
                rest = after;
            }
            _ => {
                let self_closing = rest.find('>').is_some_and(|i| rest[..i].ends_with('/'));
                return StartTag {
                    name,
                    attributes,
                    self_closing,
                    rest: skip_past(rest, ">"),
                };
            }
        }
    }
}

/// `text` with XML's character and entity references replaced; unknown ones stay as
/// written.
fn xml_unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let decoded = rest.get(1..).and_then(|after| {
            // No reference is longer than a few characters, so the search stays short.
            let semi = after.bytes().take(12).position(|b| b == b';')?;
            let name = &after[..semi];
            let c = if let Some(hex) = name.strip_prefix("#x").or_else(|| name.strip_prefix("#X")) {
                char::from_u32(u32::from_str_radix(hex, 16).ok()?)?
            } else if let Some(decimal) = name.strip_prefix('#') {
                char::from_u32(decimal.parse().ok()?)?
            } else {
                lookup(XML_ENTITIES, name)?
            };
            Some((c, semi + 2))
        });
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::attempt::results::TestOutcome::{Errored, Passed, Skipped};
    use crate::attempt::results::tests::{keys, sorted};

    #[test]
    fn junit_reading_handles_entities_comments_and_cdata() {
        let xml = r#"<?xml version="1.0"?><!-- <testcase name="no"/> -->
<testsuite><testcase classname="a.test_b" name="t&amp;&lt;&#62;&#x41;&quot;&apos;&bogus;">
<system-out><![CDATA[<failure>]]></system-out></testcase>
<testcase classname='a.test_b' name='two' ><skipped/><error message="x > y"/></testcase>
<testcase name="unclosed"><skipped type="pytest.skip"/>"#;
        let cases = junit_cases(xml).expect("a report");
        let got: Vec<(&str, &str, TestOutcome)> = cases
            .iter()
            .map(|c| (c.classname.as_str(), c.name.as_str(), c.outcome))
            .collect();
        assert_eq!(
            got,
            [
                ("a.test_b", "t&<>A\"'&bogus;", Passed),
                ("a.test_b", "two", Errored),
                ("", "unclosed", Skipped),
            ]
        );
        assert_eq!(junit_cases("<html><body/></html>"), None);
        assert_eq!(junit_cases("<testsuites/>"), Some(vec![]));
    }

    #[test]
    fn tables_are_sorted() {
        sorted("XML_ENTITIES", keys(XML_ENTITIES));
    }
}
