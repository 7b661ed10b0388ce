//! The lexer: a makefile's text as logical lines (CRLF endings, `\` continuations,
//! `define` blocks), each read as what it means for detection (a rule, an assignment, an
//! include, a conditional, a recipe line, a doc), with the byte walks that find a rule's
//! colon and words outside variable references.

use std::borrow::Cow;

/// What a logical makefile line means for detection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Line {
    Target(RawTarget),
    /// A word of a rule's target list that holds a variable reference (`$(CMDS)`), with
    /// the rule's `##` doc and the comment block above it.
    NamedByVariables {
        word: String,
        doc: Option<String>,
        above: Option<String>,
        prerequisites: Vec<String>,
        recipe: bool,
        first: bool,
    },
    /// The words of a `.PHONY` line, `\:` unescaped in plain ones.
    Phony(Vec<String>),
    HelpDoc {
        name: String,
        text: String,
    },
    Assign(Assignment),
    Include {
        words: String,
        optional: bool,
    },
    /// `ifdef`, `ifndef`, `ifeq`, `ifneq`, `else [if…]`, `endif`.
    Conditional(Directive),
    /// A recipe line (it starts with a tab) of the rule above: whether it writes `$@`, and
    /// whether it names the goal at all.
    Recipe {
        writes_target: bool,
        names_goal: bool,
    },
}

/// A conditional directive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Directive {
    If(Condition),
    Else(Option<Condition>),
    EndIf,
}

/// The test of an `ifdef`/`ifeq` line, `negated` for `ifndef`/`ifneq`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Condition {
    pub(super) negated: bool,
    pub(super) test: Test,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Test {
    /// `ifdef NAME`: the variable has a non-empty value.
    Defined(String),
    /// `ifeq (a,b)`, `ifeq "a" "b"`: the two expand to the same text.
    Equal(String, String),
    /// A line too odd to read: nobody but make decides it.
    Unreadable,
}

/// A target as a line states it, before the makefile as a whole decides about it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(super) struct RawTarget {
    pub(super) name: String,
    /// `## text` on its line, else the comment block directly above its line (a target has
    /// one or the other: a block only counts for a line without `##`).
    pub(super) doc: Option<String>,
    /// `doc` is the comment block above.
    pub(super) doc_is_above: bool,
    /// Its rule's prerequisites, as written.
    pub(super) prerequisites: Vec<String>,
    /// Its rule has a recipe (`;` on the rule's line; tab lines come as lines of their own).
    pub(super) recipe: bool,
    /// Its inline recipe writes `$@`.
    pub(super) writes_target: bool,
    /// Its inline recipe names the goal ([`names_goal`]).
    pub(super) names_goal: bool,
    /// It is the first target of its rule's line (the recipe lines below are its rule's).
    pub(super) first: bool,
}

/// A variable assignment line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Assignment {
    pub(super) name: String,
    pub(super) op: AssignOp,
    pub(super) value: String,
}

/// The flavours of make's assignment operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum AssignOp {
    /// `=`: expanded when used.
    Recursive,
    /// `:=`, `::=`, `:::=`: expanded now.
    Simple,
    /// `?=`: only when not set.
    IfUnset,
    /// `+=`: appended.
    Append,
    /// `!=`: the output of a shell command.
    Shell,
}

/// The directive of a line starting with `ifdef`, `ifeq`, `else`, `endif`, …
fn conditional(trimmed: &str) -> Option<Directive> {
    let word = first_word(trimmed);
    let unreadable = |negated| Condition {
        negated,
        test: Test::Unreadable,
    };
    match word {
        "endif" => Some(Directive::EndIf),
        "else" => {
            let rest = trimmed[4..].split('#').next().unwrap_or("").trim_ascii();
            Some(Directive::Else((!rest.is_empty()).then(|| {
                condition_of(rest).unwrap_or(unreadable(first_word(rest).starts_with("ifn")))
            })))
        }
        "ifdef" | "ifndef" | "ifeq" | "ifneq" => Some(Directive::If(
            condition_of(trimmed).unwrap_or(unreadable(word.starts_with("ifn"))),
        )),
        _ => None,
    }
}

/// The word a directive line starts with (up to whitespace or `(`).
fn first_word(text: &str) -> &str {
    let end = text
        .find(|c: char| c.is_ascii_whitespace() || c == '(')
        .unwrap_or(text.len());
    &text[..end]
}

/// The condition of `ifdef X`, `ifeq (a,b)`, `ifneq "a" 'b'`, …
fn condition_of(text: &str) -> Option<Condition> {
    let word = first_word(text);
    let rest = text[word.len()..].trim_ascii();
    let test = match word {
        "ifdef" | "ifndef" => {
            let name = rest.split('#').next().unwrap_or("").trim_ascii();
            if name.is_empty() || name.contains(char::is_whitespace) {
                return None;
            }
            Test::Defined(name.to_owned())
        }
        "ifeq" | "ifneq" => {
            if rest.starts_with('(') {
                let close = matching_close(rest, '(', ')')?;
                let inner = &rest[1..close];
                let comma = outside_references(inner, b',')?;
                Test::Equal(
                    inner[..comma].trim_ascii().to_owned(),
                    inner[comma + 1..].trim_ascii().to_owned(),
                )
            } else {
                let (a, after) = quoted(rest)?;
                let (b, _) = quoted(after.trim_ascii_start())?;
                Test::Equal(a.to_owned(), b.to_owned())
            }
        }
        _ => return None,
    };
    Some(Condition {
        negated: word.starts_with("ifn"),
        test,
    })
}

/// The text of a `"…"` or `'…'` word at the start of `text`, and what follows it.
fn quoted(text: &str) -> Option<(&str, &str)> {
    let quote = text.chars().next().filter(|c| matches!(c, '"' | '\''))?;
    let end = text[1..].find(quote)? + 1;
    Some((&text[1..end], &text[end + 1..]))
}

/// Whether a recipe line writes the rule's target (`> $@`, `-o $@`, `touch $@`, `cp a
/// $@`): then the target is a file, whatever its name looks like. `echo $@` is not.
/// What a recipe line says of the goal: whether it writes `$@` (a file target), and whether
/// it names the goal at all (`$@`, `$(MAKECMDGOALS)`), as a catch-all rule that forwards
/// goals does (`%: ; @go run -C .make . $@`); one that names none (`%:\n\t@:`) only
/// swallows them. `$@` is looked for once: a 50,000-target makefile has as many recipes.
fn goal_use(recipe: &str) -> (bool, bool) {
    if find_pair(recipe, 0, *b"$@").is_some() {
        return (writes_target(recipe), true);
    }
    (false, recipe.contains("MAKECMDGOALS"))
}

/// Whether a recipe holding `$@` writes it.
fn writes_target(recipe: &str) -> bool {
    let recipe = recipe.trim_ascii().trim_start_matches(['@', '-', '+']);
    [
        "> $@",
        ">$@",
        "-o $@",
        "-o$@",
        "--output $@",
        "--output=$@",
        "touch $@",
    ]
    .iter()
    .any(|form| recipe.contains(form))
        || (["cp ", "mv ", "ln ", "install "]
            .iter()
            .any(|cmd| recipe.starts_with(cmd))
            && recipe.ends_with("$@"))
}

/// Calls `emit` with what each logical line of `text` means, in order.
pub(super) fn parse_lines(text: &str, mut emit: impl FnMut(Line)) {
    let mut define_depth = 0usize;
    // The comment lines right above the current line: a rule's doc when a rule follows.
    let mut comments: Vec<Cow<'_, str>> = Vec::new();
    for line in logical_lines(text) {
        // Lines inside `define … endef` are a variable's value, whatever they look like.
        if define_depth > 0 {
            let trimmed = line.trim_ascii_start();
            if trimmed.split_ascii_whitespace().next() == Some("endef") {
                define_depth -= 1;
            } else if starts_define(trimmed) {
                define_depth += 1;
            }
            continue;
        }
        // Recipe lines start with a tab; blank lines end a comment block.
        let trimmed = line.trim_ascii_start();
        if let Some(recipe) = line.strip_prefix('\t') {
            comments.clear();
            let (writes_target, names_goal) = goal_use(recipe);
            emit(Line::Recipe {
                writes_target,
                names_goal,
            });
            continue;
        }
        if trimmed.is_empty() {
            comments.clear();
            continue;
        }
        if trimmed.starts_with(['i', 'e'])
            && let Some(directive) = conditional(trimmed)
        {
            emit(Line::Conditional(directive));
            comments.clear();
            continue;
        }
        if let Some(rest) = trimmed.strip_prefix('#') {
            match rest.strip_prefix('?') {
                Some(help) => {
                    if let Some(doc) = help_doc(help) {
                        emit(doc);
                    }
                }
                None => comments.push(line),
            }
            continue;
        }
        if starts_define(trimmed) {
            define_depth += 1;
            comments.clear();
            continue;
        }
        if let Some(include) = include_line(trimmed) {
            emit(include);
            comments.clear();
            continue;
        }
        if let Some(assignment) = assignment(trimmed) {
            emit(Line::Assign(assignment));
            comments.clear();
            continue;
        }
        // A target line starts at column 0.
        if line.starts_with(' ') {
            comments.clear();
            continue;
        }
        // A comment above `.PHONY: x` still documents the rule of `x` below it.
        if !target_line(&line, &comments, &mut emit) {
            comments.clear();
        }
    }
}

fn starts_define(trimmed: &str) -> bool {
    // Most lines are not: the first word is `define` or one of the words before it.
    if !trimmed.starts_with(['d', 'o', 'e', 'p']) {
        return false;
    }
    let mut words = trimmed.split_ascii_whitespace();
    let mut word = words.next();
    while matches!(word, Some("override" | "export" | "private")) {
        word = words.next();
    }
    word == Some("define")
}

/// The lines of `text` with CRLF endings and `\` continuations taken care of; a line is
/// borrowed from `text` unless it had to be joined.
pub(super) fn logical_lines(text: &str) -> impl Iterator<Item = Cow<'_, str>> {
    // `text.split('\n')`, with the newline found by `memchr` alone (a `char` pattern also
    // calls `memcmp` for each line it finds).
    let mut rest = Some(text);
    let mut raw_lines = std::iter::from_fn(move || {
        let text = rest?;
        match memchr::memchr(b'\n', text.as_bytes()) {
            Some(end) => {
                rest = Some(&text[end + 1..]);
                Some(&text[..end])
            }
            None => {
                rest = None;
                Some(text)
            }
        }
    });
    std::iter::from_fn(move || {
        let mut joined: Option<String> = None;
        loop {
            let Some(raw) = raw_lines.next() else {
                return joined.filter(|j| !j.is_empty()).map(Into::into);
            };
            let raw = raw.strip_suffix('\r').unwrap_or(raw);
            // An odd number of trailing backslashes continues the line.
            let trailing = raw.bytes().rev().take_while(|&b| b == b'\\').count();
            if trailing % 2 == 1 {
                let part = joined.get_or_insert_with(String::new);
                part.push_str(raw[..raw.len() - 1].trim_ascii_end());
                part.push(' ');
                continue;
            }
            return Some(match joined {
                Some(mut part) => {
                    part.push_str(raw);
                    part.into()
                }
                None => raw.into(),
            });
        }
    })
}

/// A `#? name: text` line (after its `#?`), a convention of self-documenting makefiles.
fn help_doc(rest: &str) -> Option<Line> {
    let (name, text) = rest.split_once(':')?;
    let (name, text) = (name.trim_ascii(), text.trim_ascii());
    (!name.is_empty() && !text.is_empty() && !name.contains(char::is_whitespace)).then(|| {
        Line::HelpDoc {
            name: name.to_owned(),
            text: text.to_owned(),
        }
    })
}

/// The doc a comment block gives the rule below it: its lines without their `#` marks,
/// joined, cut at a sentence-sized length; a leading `name:` is left out.
fn block_doc(comments: &[Cow<'_, str>], name: &str) -> Option<String> {
    /// About two lines of prose: the prompt shows one line anyway.
    const MAX: usize = 200;
    // `## text` is the doc convention (`make help` scripts grep for it): in a block that
    // has such lines, the plain `#` ones are the maintainer's notes. `##@` lines title a
    // section of `make help`.
    let marked = |line: &str| {
        let line = line.trim_ascii();
        line.starts_with("##")
            && !line.starts_with("##@")
            && !line.trim_matches('#').trim_ascii().is_empty()
    };
    let only_marked = comments.iter().any(|line| marked(line));
    let mut doc = String::new();
    for line in comments
        .iter()
        .filter(|line| !line.trim_ascii().starts_with("##@"))
        .filter(|line| !only_marked || marked(line))
    {
        let text = line
            .trim_ascii()
            .trim_start_matches('#')
            .trim_end_matches('#')
            .trim_ascii();
        if text.is_empty() {
            continue;
        }
        if !doc.is_empty() {
            doc.push(' ');
        }
        doc.push_str(text);
        if doc.len() > MAX {
            let mut cut = MAX;
            while !doc.is_char_boundary(cut) {
                cut -= 1;
            }
            doc.truncate(cut);
            doc.push('…');
            break;
        }
    }
    without_name(&doc, name)
}

/// A doc without a leading `name:` (a comment block often starts with the rule's name), or
/// nothing when that leaves it empty.
pub(super) fn without_name(doc: &str, name: &str) -> Option<String> {
    let doc = match doc.strip_prefix(name).and_then(|d| d.strip_prefix(':')) {
        Some(rest) => rest.trim_ascii_start(),
        None => doc,
    };
    (!doc.is_empty()).then(|| doc.to_owned())
}

fn include_line(trimmed: &str) -> Option<Line> {
    if !trimmed.starts_with(['i', '-', 's']) {
        return None;
    }
    let (keyword, rest) = trimmed.split_once([' ', '\t'])?;
    let optional = match keyword {
        "include" => false,
        "-include" | "sinclude" => true,
        _ => return None,
    };
    let words = rest.split('#').next().unwrap_or("").to_owned();
    Some(Line::Include { words, optional })
}

/// A variable assignment (`A = b`, `export A := b`, `A ?= b`, …), not a rule.
fn assignment(trimmed: &str) -> Option<Assignment> {
    let eq = memchr::memchr(b'=', trimmed.as_bytes())?;
    let before = &trimmed[..eq];
    let (name, op) = if let Some(name) = before
        .strip_suffix(":::")
        .or_else(|| before.strip_suffix("::"))
        .or_else(|| before.strip_suffix(':'))
    {
        (name, AssignOp::Simple)
    } else if let Some(name) = before.strip_suffix('?') {
        (name, AssignOp::IfUnset)
    } else if let Some(name) = before.strip_suffix('+') {
        (name, AssignOp::Append)
    } else if let Some(name) = before.strip_suffix('!') {
        (name, AssignOp::Shell)
    } else {
        (before, AssignOp::Recursive)
    };
    // Another `:` before the `=` makes a rule (`a: X = 1` sets a variable for `a` only).
    if name.contains(':') {
        return None;
    }
    let mut words = name.split_ascii_whitespace();
    let mut name = words.next()?;
    while matches!(name, "export" | "override" | "private") {
        name = words.next()?;
    }
    if words.next().is_some() {
        return None;
    }
    let value = trimmed[eq + 1..]
        .split('#')
        .next()
        .unwrap_or("")
        .trim_ascii();
    Some(Assignment {
        name: name.to_owned(),
        op,
        value: value.to_owned(),
    })
}

/// Emits the targets (or the `.PHONY` names) of a line that starts at column 0; says
/// whether it was a `.PHONY` line.
fn target_line(line: &str, comments: &[Cow<'_, str>], emit: &mut impl FnMut(Line)) -> bool {
    // The code ends at the first `#`; the doc starts after the first `##` (at or after it).
    let (code, doc) = match memchr::memchr(b'#', line.as_bytes()) {
        Some(hash) => (
            &line[..hash],
            find_pair(line, hash, *b"##").map(|at| line[at + 2..].trim_ascii()),
        ),
        None => (line, None),
    };
    let Some(colon) = rule_colon(code) else {
        return false;
    };
    let (names, after) = (&code[..colon], &code[colon + 1..]);
    // `=` before the colon is an assignment (`A = b:c`, `A ?= x`, `A != cmd`); `:=`, `::=`
    // and `:::=` are assignments too.
    if outside_references(names, b'=').is_some() || after.trim_start_matches(':').starts_with('=') {
        return false;
    }
    // `target: VAR = value` sets a target-specific variable; it does not define the target.
    let mut parts = after.trim_start_matches(':').splitn(2, ';');
    let prerequisites = parts.next().unwrap_or("");
    let inline_recipe = parts.next();
    if is_variable_assignment(prerequisites) {
        return false;
    }
    // `a b &: c` is a grouped target.
    let names = names.trim_ascii_end().trim_end_matches('&');
    if names.split_ascii_whitespace().any(|n| n == ".PHONY") {
        let phony: Vec<String> = words(prerequisites)
            .map(|word| match word.contains('$') {
                true => word.to_owned(),
                false => unescape_colons(word).into_owned(),
            })
            .collect();
        // `.PHONY: install  ## Install the package` is a common way to document a target
        // (`make help` scripts grep for it); with one name, the doc is that target's.
        if let (Some(doc), [name]) = (doc.filter(|d| !d.is_empty()), phony.as_slice())
            && !name.contains('$')
        {
            emit(Line::HelpDoc {
                name: name.clone(),
                text: doc.to_owned(),
            });
        }
        emit(Line::Phony(phony));
        return true;
    }
    let doc = doc.filter(|d| !d.is_empty());
    let above = |name: &str| {
        if comments.is_empty() || doc.is_some() {
            None
        } else {
            block_doc(comments, name)
        }
    };
    // Order-only prerequisites (after `|`) count as prerequisites too.
    let prerequisite_words: Vec<String> = words(prerequisites)
        .filter(|w| *w != "|")
        .map(str::to_owned)
        .collect();
    for (i, word) in words(names).enumerate() {
        let first = i == 0;
        if word.contains('$') {
            emit(Line::NamedByVariables {
                word: word.to_owned(),
                doc: doc.map(str::to_owned),
                above: above(""),
                prerequisites: prerequisite_words.clone(),
                recipe: inline_recipe.is_some(),
                first,
            });
            continue;
        }
        let name = unescape_colons(word);
        let above = above(&name);
        emit(Line::Target(RawTarget {
            doc_is_above: above.is_some(),
            doc: doc.map(str::to_owned).or(above),
            name: name.into_owned(),
            prerequisites: prerequisite_words.clone(),
            recipe: inline_recipe.is_some(),
            writes_target: inline_recipe.is_some_and(|r| goal_use(r).0),
            names_goal: inline_recipe.is_some_and(|r| goal_use(r).1),
            first,
        }));
    }
    false
}

/// Where the two bytes of `pair` (`##`, `$@`) first follow each other in `text`, from
/// `from` on: a search for the first byte, where `str::find("##")` would set up a
/// substring searcher for each of a makefile's lines.
fn find_pair(text: &str, from: usize, pair: [u8; 2]) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = from;
    loop {
        let found = at + memchr::memchr(pair[0], bytes.get(at..)?)?;
        if bytes.get(found + 1) == Some(&pair[1]) {
            return Some(found);
        }
        at = found + 1;
    }
}

/// Where the colon that ends a rule's target list is: the first one that is neither
/// escaped (`docker\:build`) nor inside a variable reference (`$(SRC:.c=.o)`).
fn rule_colon(code: &str) -> Option<usize> {
    outside_references(code, b':')
}

/// The first `wanted` byte of `code` that is neither escaped with `\` nor inside a
/// variable reference.
pub(super) fn outside_references(code: &str, wanted: u8) -> Option<usize> {
    debug_assert!(!matches!(wanted, b'(' | b'{' | b')' | b'}' | b'\\'));
    let bytes = code.as_bytes();
    // The first `wanted`, when no `(`, `{` or backslash comes before it, is the one: the
    // usual line (`name: prerequisites`) takes one plain pass, where the walk below cost a
    // 50,000-rule makefile more than any other step of its lines (and `memchr` is slower
    // than a loop on text this short).
    match bytes
        .iter()
        .position(|&b| b == wanted || matches!(b, b'(' | b'{' | b'\\'))
    {
        None => return None,
        Some(i) if bytes[i] == wanted => return Some(i),
        Some(_) => {}
    }
    let mut depth = 0usize;
    let mut backslashes = 0usize;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'(' | b'{' if depth > 0 || (i > 0 && bytes[i - 1] == b'$') => depth += 1,
            b')' | b'}' if depth > 0 => depth -= 1,
            _ if b == wanted && depth == 0 && backslashes.is_multiple_of(2) => return Some(i),
            _ => {}
        }
        backslashes = if b == b'\\' { backslashes + 1 } else { 0 };
    }
    None
}

/// The whitespace-separated words of a target list, a variable reference with spaces in it
/// (`$(addprefix x-, a b)`) kept whole.
fn words(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut start = 0;
    std::iter::from_fn(move || {
        while start < bytes.len() && bytes[start].is_ascii_whitespace() {
            start += 1;
        }
        if start >= bytes.len() {
            return None;
        }
        let mut depth = 0usize;
        let mut end = start;
        while end < bytes.len() && (depth > 0 || !bytes[end].is_ascii_whitespace()) {
            match bytes[end] {
                b'(' | b'{' if depth > 0 || (end > 0 && bytes[end - 1] == b'$') => depth += 1,
                b')' | b'}' if depth > 0 => depth -= 1,
                _ => {}
            }
            end += 1;
        }
        let word = &text[start..end];
        start = end;
        Some(word)
    })
}

/// A target name as make knows it: `\:` in a makefile is a colon in the name
/// (`docker\:build` is the goal `make docker:build` builds).
pub(super) fn unescape_colons(word: &str) -> Cow<'_, str> {
    if find_pair(word, 0, *b"\\:").is_some() {
        word.replace("\\:", ":").into()
    } else {
        word.into()
    }
}

/// Whether `text` (what follows a target's colon) is `VAR = value`, `VAR := value`, …
fn is_variable_assignment(text: &str) -> bool {
    let text = text.trim_ascii_start();
    // A loop, not `find` or `memchr`: the text is a rule's prerequisites, most often short.
    let Some(eq) = text.bytes().position(|b| b == b'=') else {
        return false;
    };
    let before = text[..eq].trim_ascii_end();
    let before = before
        .strip_suffix([':', '?', '+', '!'])
        .unwrap_or(before)
        .trim_end_matches(':');
    let mut words = before.split_ascii_whitespace();
    let name = match words.next() {
        Some("export" | "override" | "private") => words.next(),
        other => other,
    };
    name.is_some_and(|n| !n.is_empty()) && words.next().is_none()
}

/// Names that can be tasks: not special (`.PHONY`, `.SUFFIXES`, suffix rules), not
/// patterns, not built from variables.
pub(super) fn is_task_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && !name
            .bytes()
            .any(|b| matches!(b, b'%' | b'$' | b'=' | b'(' | b')'))
}

/// Where the reference opened by `after[0]` closes, counting nested pairs.
pub(super) fn matching_close(after: &str, open: char, close: char) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in after.char_indices() {
        if c == open {
            depth += 1;
        } else if c == close {
            depth -= 1;
            if depth == 0 {
                return Some(i);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outside_references_finds_what_a_byte_walk_finds() {
        // The byte walk `outside_references` takes when a reference or a backslash comes
        // first, run over every line of up to five bytes from the bytes that matter.
        fn walk(code: &str, wanted: u8) -> Option<usize> {
            let bytes = code.as_bytes();
            let (mut depth, mut backslashes) = (0usize, 0usize);
            for (i, &b) in bytes.iter().enumerate() {
                match b {
                    b'(' | b'{' if depth > 0 || (i > 0 && bytes[i - 1] == b'$') => depth += 1,
                    b')' | b'}' if depth > 0 => depth -= 1,
                    _ if b == wanted && depth == 0 && backslashes.is_multiple_of(2) => {
                        return Some(i);
                    }
                    _ => {}
                }
                backslashes = if b == b'\\' { backslashes + 1 } else { 0 };
            }
            None
        }
        let alphabet = b"a:=$({)}\\";
        let mut line = Vec::new();
        for len in 0..=5u32 {
            for mut n in 0..alphabet.len().pow(len) {
                line.clear();
                for _ in 0..len {
                    line.push(alphabet[n % alphabet.len()]);
                    n /= alphabet.len();
                }
                let line = std::str::from_utf8(&line).expect("ASCII");
                for wanted in [b':', b'='] {
                    assert_eq!(
                        outside_references(line, wanted),
                        walk(line, wanted),
                        "{line:?}"
                    );
                }
            }
        }
    }
}
