//! The lexer: Python source as logical lines, strings, comments, brackets and backslash
//! continuations taken care of.

/// A logical line of Python: physical lines joined inside brackets and after `\`, comments
/// removed, strings kept as written.
#[derive(Debug)]
pub(super) struct Line {
    pub(super) indent: usize,
    pub(super) text: String,
}

/// Splits Python source into logical lines, with a lexer that knows strings (single,
/// triple, any prefix), comments, brackets and backslash continuations.
#[expect(
    clippy::too_many_lines,
    reason = "over 80 lines when the limit was set; split it when it next changes"
)]
pub(super) fn logical_lines(source: &str) -> Vec<Line> {
    let mut lines = Vec::new();
    let mut text = String::new();
    let mut indent = 0;
    let mut at_start = true;
    let mut depth = 0usize;
    let mut chars = source.chars().peekable();
    let end_line = |lines: &mut Vec<Line>, text: &mut String, indent: usize| {
        let trimmed = text.trim();
        if !trimmed.is_empty() {
            lines.push(Line {
                indent,
                text: trimmed.to_owned(),
            });
        }
        text.clear();
    };
    while let Some(c) = chars.next() {
        if at_start {
            match c {
                ' ' => {
                    indent += 1;
                    continue;
                }
                '\t' => {
                    indent = (indent / 8 + 1) * 8;
                    continue;
                }
                '\n' | '\r' | '\x0c' => {
                    indent = 0;
                    continue;
                }
                _ => at_start = false,
            }
        }
        match c {
            '#' => while chars.next_if(|&c| c != '\n').is_some() {},
            '\\' if chars.peek() == Some(&'\n') => {
                chars.next();
                text.push(' ');
            }
            '\'' | '"' => {
                text.push(c);
                let triple = chars.peek() == Some(&c) && {
                    let mut ahead = chars.clone();
                    ahead.next();
                    ahead.peek() == Some(&c)
                };
                if triple {
                    text.push(c);
                    text.push(c);
                    chars.next();
                    chars.next();
                }
                let mut run = 0;
                while let Some(s) = chars.next() {
                    text.push(s);
                    if s == '\\' {
                        if let Some(escaped) = chars.next() {
                            text.push(escaped);
                        }
                        run = 0;
                        continue;
                    }
                    if s == c {
                        run += 1;
                        if !triple || run == 3 {
                            break;
                        }
                    } else {
                        run = 0;
                        // An unclosed one-line string ends with its line.
                        if s == '\n' && !triple {
                            break;
                        }
                    }
                }
            }
            '(' | '[' | '{' => {
                depth += 1;
                text.push(c);
            }
            ')' | ']' | '}' => {
                depth = depth.saturating_sub(1);
                text.push(c);
            }
            '\n' if depth == 0 => {
                end_line(&mut lines, &mut text, indent);
                indent = 0;
                at_start = true;
            }
            '\n' | '\r' => text.push(' '),
            ';' if depth == 0 => {
                end_line(&mut lines, &mut text, indent);
            }
            c => text.push(c),
        }
    }
    end_line(&mut lines, &mut text, indent);
    lines
}
