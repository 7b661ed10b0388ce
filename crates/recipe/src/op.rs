//! The op grammar: a head (an optional `runner:` prefix and a task name) and a verbatim tail.

/// An op split into its head and its tail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Op<'a> {
    /// The first run of non-whitespace: `test`, `pkg:test`, `web/dev`.
    pub head: &'a str,
    /// Everything after the whitespace that follows the head, exactly as written.
    pub tail: &'a str,
}

impl<'a> Op<'a> {
    /// Splits `op`; `None` when it holds nothing but whitespace.
    pub fn parse(op: &'a str) -> Option<Self> {
        let op = op.trim_start();
        if op.is_empty() {
            return None;
        }
        let head_end = op.find(char::is_whitespace).unwrap_or(op.len());
        let (head, rest) = op.split_at(head_end);
        Some(Self {
            head,
            tail: rest.trim_start(),
        })
    }

    /// The runner id and task name when the head is `<runner id>:<task>` and the part
    /// before the first `:` is one of `runner_ids`.
    pub fn runner_prefix(&self, runner_ids: &[&str]) -> Option<(&'a str, &'a str)> {
        let (id, task) = self.head.split_once(':')?;
        (!id.is_empty() && runner_ids.contains(&id)).then_some((id, task))
    }
}

impl std::fmt::Display for Op<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.tail.is_empty() {
            f.write_str(self.head)
        } else {
            write!(f, "{} {}", self.head, self.tail)
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[track_caller]
    fn case(op: &str, head: &str, tail: &str) {
        assert_eq!(Op::parse(op), Some(Op { head, tail }));
    }

    #[test]
    fn splits() {
        case("test", "test", "");
        case("  build --release", "build", "--release");
        case("pkg:test --watch", "pkg:test", "--watch");
        case("web/dev", "web/dev", "");
        case("x \t a  b ", "x", "a  b ");
        case("run -- 'a && b'\nnext", "run", "-- 'a && b'\nnext");
        assert_eq!(Op::parse(""), None);
        assert_eq!(Op::parse(" \n\t"), None);
    }

    #[test]
    fn prefixes() {
        let ids = ["just", "pkg", "task"];
        let op = |s| Op::parse(s).expect("op");
        assert_eq!(op("pkg:test").runner_prefix(&ids), Some(("pkg", "test")));
        assert_eq!(
            op("task:lib:fmt").runner_prefix(&ids),
            Some(("task", "lib:fmt"))
        );
        assert_eq!(op("just:").runner_prefix(&ids), Some(("just", "")));
        assert_eq!(op("lib:fmt").runner_prefix(&ids), None);
        assert_eq!(op(":x").runner_prefix(&ids), None);
        assert_eq!(op("make:x").runner_prefix(&ids), None);
    }

    proptest! {
        /// Property: printing then parsing an op gives the same head and tail, and the tail
        /// is never altered.
        #[test]
        fn print_then_parse(head in "[^\\s]{1,20}", tail in "(\\PC|\\s){0,40}") {
            let tail = tail.trim_start();
            let printed = Op { head: &head, tail }.to_string();
            let parsed = Op::parse(&printed).expect("not empty");
            prop_assert_eq!(parsed.head, head.as_str());
            prop_assert_eq!(parsed.tail, tail);
        }

        /// Property: leading whitespace never changes the op.
        #[test]
        fn leading_whitespace(ws in "\\s{0,5}", op in "\\PC{0,30}") {
            let padded = format!("{ws}{op}");
            prop_assert_eq!(Op::parse(&padded), Op::parse(&op));
        }
    }
}
