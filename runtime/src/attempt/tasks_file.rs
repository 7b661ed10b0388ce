//! Ticking a task's checkbox in the tasks file (`- [ ] T7 …` → `- [x] T7 …`).

/// `text` with the first unticked checkbox line of `task` ticked, or `None` when it has no
/// such line.
pub(crate) fn tick(text: &str, task: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut ticked = false;
    for line in text.split_inclusive('\n') {
        if !ticked && let Some(at) = unticked_box(line, task) {
            out.push_str(&line[..at]);
            out.push_str("[x]");
            out.push_str(&line[at + 3..]);
            ticked = true;
        } else {
            out.push_str(line);
        }
    }
    ticked.then_some(out)
}

/// Where the `[ ]` of `line` is, when the line is a list item whose checkbox is followed by
/// the task id as a whole word.
fn unticked_box(line: &str, task: &str) -> Option<usize> {
    let indent = line.len() - line.trim_start().len();
    let rest = &line[indent..];
    let rest = rest
        .strip_prefix("- ")
        .or_else(|| rest.strip_prefix("* "))?;
    let at = line.len() - rest.len();
    let after = rest.strip_prefix("[ ]")?;
    let after = after.trim_start();
    let after = after.strip_prefix(task)?;
    after
        .chars()
        .next()
        .is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '-'))
        .then_some(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_only_that_task() {
        let text = "# Tasks\n- [ ] T70 other\n- [ ] T7 add\n- [ ] T7 again\n";
        assert_eq!(
            tick(text, "T7").as_deref(),
            Some("# Tasks\n- [ ] T70 other\n- [x] T7 add\n- [ ] T7 again\n")
        );
        assert_eq!(
            tick("  * [ ] T7: x", "T7").as_deref(),
            Some("  * [x] T7: x")
        );
        assert_eq!(tick("- [x] T7 done\n", "T7"), None);
        assert_eq!(tick("T7 [ ]\n", "T7"), None);
    }
}
