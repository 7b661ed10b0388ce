//! JUnit XML, as pytest writes it: the outcome of each `<testcase>`, read with quick-xml.

use std::borrow::Cow;

use quick_xml::Reader;
use quick_xml::escape::{resolve_predefined_entity, unescape_with};
use quick_xml::events::{BytesStart, Event};

use super::report::{MAX_TESTS, TestOutcome};

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

/// The test cases of a JUnit report, at most `MAX_TESTS`; `None` when it has no
/// `<testsuite>` or `<testcase>` at all.
///
/// quick-xml reads the elements in one pass, borrowing from `xml`: comments, CDATA,
/// processing instructions, the doctype and text are skipped, and only the tags and
/// attributes that carry outcomes are looked at. A report cut short or a little malformed
/// still gives the tests it names: end tags need not match their start tags, a tag the
/// rules of XML reject is read past, and where the syntax breaks off (a tag or a comment
/// never closed) reading stops with the tests read so far. A `<testcase>` still open at the
/// end counts.
pub(super) fn junit_cases(xml: &str) -> Option<Vec<JunitCase>> {
    let mut reader = Reader::from_str(xml);
    let config = reader.config_mut();
    config.check_end_names = false;
    config.allow_unmatched_ends = true;
    config.allow_dangling_amp = true;
    let mut seen = false;
    let mut cases = Vec::new();
    let mut current: Option<JunitCase> = None;
    loop {
        let before = reader.buffer_position();
        let (tag, self_closing) = match reader.read_event() {
            Ok(Event::Start(tag)) => (tag, false),
            Ok(Event::Empty(tag)) => (tag, true),
            Ok(Event::End(end)) => {
                if end.name().as_ref() == "testcase" {
                    cases.extend(current.take());
                }
                continue;
            }
            Ok(Event::Eof) => break,
            Ok(_) => continue,
            // Ill-formed but readable on: a reader that moved on goes on from there.
            Err(quick_xml::Error::IllFormed(_)) if reader.buffer_position() > before => continue,
            Err(_) => break,
        };
        match tag.name().as_ref() {
            "testsuite" | "testsuites" => seen = true,
            "testcase" => {
                seen = true;
                cases.extend(current.take());
                let case = JunitCase {
                    classname: attribute(&tag, "classname").unwrap_or_default(),
                    name: attribute(&tag, "name").unwrap_or_default(),
                    outcome: TestOutcome::Passed,
                };
                if self_closing {
                    cases.push(case);
                } else {
                    current = Some(case);
                }
            }
            name @ ("error" | "failure" | "skipped") => {
                if let Some(case) = current.as_mut() {
                    let outcome = match name {
                        "error" => TestOutcome::Errored,
                        "failure" => TestOutcome::Failed,
                        _ if attribute(&tag, "type").as_deref() == Some("pytest.xfail") => {
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
        if cases.len() >= MAX_TESTS {
            cases.truncate(MAX_TESTS);
            return Some(cases);
        }
    }
    cases.extend(current);
    seen.then_some(cases)
}

/// The unescaped value of `tag`'s first attribute `key`, among those before any malformed
/// one.
fn attribute(tag: &BytesStart<'_>, key: &str) -> Option<String> {
    let mut attributes = tag.attributes();
    attributes.with_checks(false);
    attributes
        .map_while(Result::ok)
        .find(|a| a.key.as_ref() == key)
        .map(|a| xml_unescape(&a.value))
}

/// `text` with XML's character and entity references replaced, as quick-xml reads them.
/// An unknown entity stays as written; a text whose references do not read (a bare `&`, a
/// character reference to no character) stays whole as written.
fn xml_unescape(text: &str) -> String {
    // quick-xml asks for each entity in order, so each unknown one is the next `&name;`
    // from where the last one ended.
    let mut from = 0;
    let mut as_written = |name: &str| {
        let written = format!("&{name};");
        let at = from + text.get(from..)?.find(&written)?;
        from = at + written.len();
        text.get(at..from)
    };
    let unescaped = unescape_with(text, |name| {
        resolve_predefined_entity(name).or_else(|| as_written(name))
    });
    unescaped.map_or_else(|_| text.to_owned(), Cow::into_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::verdict::results::TestOutcome::{Errored, Failed, Passed, Skipped, Xfailed};

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

    /// `(classname, name, outcome)` of each case of `xml`, `None` when it is no report.
    fn read(xml: &str) -> Option<Vec<(String, String, TestOutcome)>> {
        junit_cases(xml).map(|cases| {
            cases
                .into_iter()
                .map(|c| (c.classname, c.name, c.outcome))
                .collect()
        })
    }

    /// The cases `read` gives, from string slices.
    fn want(cases: &[(&str, &str, TestOutcome)]) -> Option<Vec<(String, String, TestOutcome)>> {
        Some(
            cases
                .iter()
                .map(|(c, n, o)| ((*c).to_owned(), (*n).to_owned(), *o))
                .collect(),
        )
    }

    #[test]
    fn junit_reading_skips_cdata_comments_instructions_and_doctype() {
        // Each place a `<testcase>` could hide in without being one, entities in names and
        // messages, and a doctype declaring entities, which are never expanded.
        let xml = r#"<?xml version="1.0" encoding="utf-8"?>
<?xml-stylesheet type="text/xsl" href="junit.xsl"?>
<!DOCTYPE testsuites [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]>
<!-- a comment -- with <testcase name="in a comment"/> -->
<testsuites><testsuite name="pytest" tests="4">
<testcase classname="tests.test_x" name="test_a[&lt;&#x1F600;&#33;&gt;]" time="0.001">
<system-out><![CDATA[</testcase><failure message="in CDATA"/>]]></system-out></testcase>
<testcase classname="tests.test_x" name="test_b &amp; &lol2;">
<failure message="assert &quot;a&quot; == &apos;b&apos;">trace &amp; &lt;more&gt;</failure></testcase>
<?pi <testcase name="in an instruction"/> ?>
<testcase classname="tests.test_x" name="test_c"><skipped type="pytest.xfail" message="x"/></testcase>
<testcase classname="tests.test_x" name="test_d"><skipped type="pytest.skip" message="why"/>
<system-err>&lt;testcase name="in text"/&gt;</system-err></testcase>
</testsuite></testsuites>
"#;
        assert_eq!(
            read(xml),
            want(&[
                ("tests.test_x", "test_a[<\u{1F600}!>]", Passed),
                ("tests.test_x", "test_b & &lol2;", Failed),
                ("tests.test_x", "test_c", Xfailed),
                ("tests.test_x", "test_d", Skipped),
            ])
        );
    }

    #[test]
    fn junit_reading_survives_malformed_xml() {
        // Cut short inside a tag, a comment or CDATA: the tests before the break.
        let cut =
            r#"<testsuite><testcase classname="a" name="one"/><testcase classname="a" name="tw"#;
        assert_eq!(read(cut), want(&[("a", "one", Passed)]));
        let comment = r#"<testsuite><testcase name="a"/><!-- <testcase name="b"/>"#;
        assert_eq!(read(comment), want(&[("", "a", Passed)]));
        let cdata = r#"<testsuite><testcase name="a"><failure/><![CDATA[ <testcase name="b"/>"#;
        assert_eq!(read(cdata), want(&[("", "a", Failed)]));
        // End tags that match nothing, or the wrong start tag, and a tag with no name.
        let mismatched = r#"<testsuite><testcase name="x"><failure></skipped></testcase>
</testsuite></testsuite>< b><testcase name="y"/></testsuites>"#;
        assert_eq!(
            read(mismatched),
            want(&[("", "x", Failed), ("", "y", Passed)])
        );
        // Attributes: an unquoted value ends them, a repeated one keeps its first value, a
        // bare `&` or a reference to no character leaves the value as written.
        let attributes = r#"<testsuite><testcase name=bare classname="c"/>
<testcase name="p" name="q" classname="a &amp; b"/><testcase name="&#0;x &amp;" classname="a & b"/>
<testcase name="k" lone /></testsuite>"#;
        assert_eq!(
            read(attributes),
            want(&[
                ("", "", Passed),
                ("a & b", "p", Passed),
                ("a & b", "&#0;x &amp;", Passed),
                ("", "k", Passed),
            ])
        );
        // Nothing like a report.
        for junk in [
            "",
            "<<<>>>&&&",
            "\0<testcase",
            "</testcase></testsuite>",
            "{\"json\": 1}",
        ] {
            assert_eq!(read(junk), None, "{junk:?}");
        }
    }

    #[test]
    fn junit_reading_keeps_its_bound() {
        let mut xml = String::from("<testsuite>");
        for i in 0..=MAX_TESTS {
            xml.push_str(&format!(
                "<testcase classname=\"t\" name=\"t{i}\"><failure/></testcase>"
            ));
        }
        let cases = junit_cases(&xml).expect("a report");
        assert_eq!(cases.len(), MAX_TESTS);
        assert_eq!(cases.last().map(|c| c.name.as_str()), Some("t99999"));
    }

    proptest::proptest! {
        /// Property: any text reads without panicking, to at most `MAX_TESTS` cases.
        #[test]
        fn any_text_reads_without_panicking(xml in "(<testcase name='[a-z&;#0-9]{0,6}'>|</testcase>|<testsuite>|<failure/>|<skipped type=\"pytest.xfail\"/>|<!--|-->|<!\\[CDATA\\[|\\]\\]>|<\\?|\\?>|<!DOCTYPE|&[a-z#0-9]{0,4};?|\\PC{0,8}){0,24}") {
            let cases = junit_cases(&xml);
            proptest::prop_assert!(cases.is_none_or(|c| c.len() <= MAX_TESTS));
        }
    }
}
