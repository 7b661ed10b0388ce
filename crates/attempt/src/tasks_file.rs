//! Ticking a task's checkbox in the tasks file (`- [ ] T7 …` → `- [x] T7 …`), byte for
//! byte: every other byte of the file, valid UTF-8 or not, stays as it is.

/// `bytes` with the first unticked checkbox line of `task` ticked, or `None` when it has no
/// such line.
pub(crate) fn tick(bytes: &[u8], task: &str) -> Option<Vec<u8>> {
    let mut at = 0;
    for line in bytes.split_inclusive(|b| *b == b'\n') {
        if let Some(offset) = unticked_box(line, task.as_bytes()) {
            let mut out = bytes.to_vec();
            out[at + offset + 1] = b'x';
            return Some(out);
        }
        at += line.len();
    }
    None
}

/// Where the `[ ]` of `line` is, when the line is a list item whose checkbox is followed by
/// the task id as a whole word.
fn unticked_box(line: &[u8], task: &[u8]) -> Option<usize> {
    let indent = line
        .iter()
        .take_while(|b| matches!(b, b' ' | b'\t'))
        .count();
    let rest = &line[indent..];
    let rest = rest
        .strip_prefix(b"- ")
        .or_else(|| rest.strip_prefix(b"* "))?;
    let at = line.len() - rest.len();
    let after = rest.strip_prefix(b"[ ]")?;
    let spaces = after
        .iter()
        .take_while(|b| matches!(b, b' ' | b'\t'))
        .count();
    let after = after[spaces..].strip_prefix(task)?;
    after
        .first()
        .is_none_or(|c| !(c.is_ascii_alphanumeric() || *c == b'_' || *c == b'-' || *c >= 0x80))
        .then_some(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn case(text: &[u8], task: &str, want: Option<&[u8]>) {
        assert_eq!(
            tick(text, task).as_deref(),
            want,
            "{}",
            String::from_utf8_lossy(text)
        );
    }

    #[test]
    fn ticks_only_that_task() {
        case(
            b"# Tasks\n- [ ] T70 other\n- [ ] T7 add\n- [ ] T7 again\n",
            "T7",
            Some(b"# Tasks\n- [ ] T70 other\n- [x] T7 add\n- [ ] T7 again\n"),
        );
        case(b"  * [ ] T7: x", "T7", Some(b"  * [x] T7: x"));
        case(b"- [x] T7 done\n", "T7", None);
        case(b"T7 [ ]\n", "T7", None);
    }

    #[test]
    fn every_other_byte_stays() {
        let text = b"caf\xe9 \xff\xfe\r\n- [ ] T1 one\r\n- [ ] T7 \xe9t\xe9\r\n\xc3";
        let mut want = text.to_vec();
        let at = text
            .windows(9)
            .position(|w| w == b"- [ ] T7 ")
            .expect("line")
            + 3;
        want[at] = b'x';
        case(text, "T7", Some(&want));
    }
}
