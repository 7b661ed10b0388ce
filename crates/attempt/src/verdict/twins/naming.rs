//! Names: how a known answer's name, variable and value are drawn so that they read as the
//! project's own, and how a test id is matched to a test's name.

use std::collections::BTreeSet;
use std::hash::BuildHasher;
use std::sync::OnceLock;

/// Draws from this process's random key, keyed by what is drawn for: the same tree and
/// file draw the same in every pass of one attempt.
pub(super) struct Draw {
    seed: (String, String),
    n: u64,
}

/// The process's key: `RandomState` is keyed from the system's random source.
fn key() -> &'static std::collections::hash_map::RandomState {
    static KEY: OnceLock<std::collections::hash_map::RandomState> = OnceLock::new();
    KEY.get_or_init(std::collections::hash_map::RandomState::new)
}

impl Draw {
    pub(super) fn new(tree: &str, path: &str) -> Self {
        Self {
            seed: (tree.to_owned(), path.to_owned()),
            n: 0,
        }
    }

    /// A number below `n` (0 when `n` is 0).
    pub(super) fn below(&mut self, n: usize) -> usize {
        self.n += 1;
        let drawn = key().hash_one((&self.seed, self.n));
        if n == 0 {
            0
        } else {
            usize::try_from(drawn % n as u64).unwrap_or(0)
        }
    }
}

/// Words no name or variable may take: the reserved words of Python, Go, Rust and
/// JavaScript of three letters or more, and the test frameworks' own.
const RESERVED: &[&str] = &[
    "&[",
    "&str]",
    "=",
    "abstract",
    "and",
    "arguments",
    "as",
    "assert",
    "async",
    "await",
    "become",
    "box",
    "break",
    "case",
    "catch",
    "chan",
    "class",
    "const",
    "continue",
    "crate",
    "debugger",
    "declare",
    "def",
    "default",
    "defer",
    "del",
    "delete",
    "describe",
    "dyn",
    "elif",
    "else",
    "enum",
    "eval",
    "except",
    "expect",
    "export",
    "exports",
    "extends",
    "extern",
    "fallthrough",
    "false",
    "final",
    "finally",
    "fmt",
    "for",
    "from",
    "func",
    "function",
    "gen",
    "global",
    "goto",
    "impl",
    "implements",
    "import",
    "infer",
    "instanceof",
    "interface",
    "keyof",
    "lambda",
    "let",
    "loop",
    "macro",
    "map",
    "match",
    "mod",
    "module",
    "move",
    "mut",
    "namespace",
    "new",
    "nil",
    "none",
    "nonlocal",
    "not",
    "null",
    "override",
    "package",
    "pass",
    "priv",
    "private",
    "protected",
    "pub",
    "public",
    "raise",
    "range",
    "readonly",
    "ref",
    "require",
    "return",
    "select",
    "self",
    "skip",
    "static",
    "struct",
    "super",
    "switch",
    "test",
    "testing",
    "tests",
    "this",
    "throw",
    "trait",
    "true",
    "try",
    "type",
    "typeof",
    "undefined",
    "unsafe",
    "unsized",
    "use",
    "var",
    "virtual",
    "void",
    "where",
    "while",
    "with",
    "yield",
];

/// The words of `text` a drawn name may take: the parts of its identifiers (split at `_`
/// and at capitals), lowercase, of 3 to 10 letters, not reserved; sorted, once each.
pub(super) fn words(text: &str) -> Vec<String> {
    let mut found = BTreeSet::new();
    for ident in text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
        let mut word = String::new();
        let mut flush = |word: &mut String| {
            let w = std::mem::take(word).to_ascii_lowercase();
            if (3..=10).contains(&w.len())
                && w.bytes().all(|b| b.is_ascii_lowercase())
                && !RESERVED.contains(&w.as_str())
            {
                found.insert(w);
            }
        };
        for c in ident.chars() {
            if c == '_' || c.is_ascii_digit() || (c.is_ascii_uppercase() && !word.is_empty()) {
                flush(&mut word);
            }
            if c != '_' && !c.is_ascii_digit() {
                word.push(c);
            }
        }
        flush(&mut word);
    }
    found.into_iter().collect()
}

/// How a language writes a test's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Style {
    /// `test_add_small`.
    Snake,
    /// `TestAddSmall`.
    Camel,
    /// `"adds small numbers"`.
    Title,
}

fn capital(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map_or_else(String::new, |c| {
        c.to_ascii_uppercase().to_string() + chars.as_str()
    })
}

/// The parts of a name: `test_add_small` as `test`, `add`, `small`; `TestAddSmall` as
/// `Test`, `Add`, `Small`; a title by its spaces.
pub(super) fn parts(name: &str, style: Style) -> Vec<String> {
    match style {
        Style::Snake => name.split('_').map(str::to_owned).collect(),
        Style::Title => name.split(' ').map(str::to_owned).collect(),
        Style::Camel => {
            let mut parts: Vec<String> = Vec::new();
            for c in name.chars() {
                match parts.last_mut() {
                    Some(last) if !c.is_ascii_uppercase() => last.push(c),
                    _ => parts.push(c.to_string()),
                }
            }
            parts
        }
    }
}

fn joined(parts: &[String], style: Style) -> String {
    match style {
        Style::Snake => parts.join("_"),
        Style::Title => parts.join(" "),
        Style::Camel => parts.concat(),
    }
}

/// A new test name after `base`, one of the file's test names, from the words of `text`:
/// its last word replaced by a drawn one (or one added, where it has one word past its
/// prefix), so that it reads as the project's names read. `taken` says a name is used
/// already; `None` when no draw gives a free name.
pub(super) fn drawn_name(
    text: &str,
    base: &str,
    style: Style,
    draw: &mut Draw,
    taken: &dyn Fn(&str) -> bool,
) -> Option<String> {
    drawn_after(text, (base, false), style, draw, taken)
}

/// A new name that is `base` with a word drawn from `text` added (two where one gives no
/// free name): it sorts right after `base`, as runners that order tests by name run them.
pub(super) fn extended_name(
    text: &str,
    base: &str,
    style: Style,
    draw: &mut Draw,
    taken: &dyn Fn(&str) -> bool,
) -> Option<String> {
    drawn_after(text, (base, true), style, draw, taken)
}

/// [`drawn_name`], or with every word of `base` kept where `keep_all`.
fn drawn_after(
    text: &str,
    (base, keep_all): (&str, bool),
    style: Style,
    draw: &mut Draw,
    taken: &dyn Fn(&str) -> bool,
) -> Option<String> {
    let mut pool = words(text);
    if pool.is_empty() {
        pool = words(base);
    }
    if pool.is_empty() {
        return None;
    }
    let own = parts(base, style);
    // `test_add` and `TestAdd` keep both parts; a title of one word keeps it.
    let prefixed = matches!(style, Style::Snake | Style::Camel);
    let keep = if own.len() > usize::from(prefixed) + 1 && !keep_all {
        own.len() - 1
    } else {
        own.len()
    };
    for round in 0..40 {
        let word = &pool[draw.below(pool.len())];
        if own[..keep].iter().any(|p| p.eq_ignore_ascii_case(word)) && round < 20 {
            continue;
        }
        let word = if style == Style::Camel {
            capital(word)
        } else {
            word.clone()
        };
        let mut new = own[..keep].to_vec();
        new.push(word);
        // Past half the draws, two words: a file whose words are all in its names.
        if round >= 20 {
            let second = &pool[draw.below(pool.len())];
            new.push(if style == Style::Camel {
                capital(second)
            } else {
                second.clone()
            });
        }
        let name = joined(&new, style);
        if name != base && !taken(&name) {
            return Some(name);
        }
    }
    None
}

/// A variable's name for the known answer's value, drawn from the words of `text`; `value`
/// where the file has none free.
pub(super) fn drawn_variable(text: &str, draw: &mut Draw) -> String {
    let pool = words(text);
    for _ in 0..20 {
        let Some(word) = pool.get(draw.below(pool.len())) else {
            break;
        };
        if !text.contains(&format!("{word}(")) && !text.contains(&format!("{word}!")) {
            return word.clone();
        }
    }
    "value".to_owned()
}

/// The last part of a test id, without pytest's parameters (`test_x[1-2]`).
pub(super) fn unparametrized(id: &str) -> &str {
    match id.strip_suffix(']').and_then(|s| s.rsplit_once('[')) {
        Some((head, _)) => head,
        None => id,
    }
}

/// The separators before a test's own name in the runners' ids.
pub(super) const SEPARATORS: [&str; 5] = ["::", "/", " > ", ".", " › "];

/// Whether `id` names the test `name`: its last part, after a runner's separator.
pub(super) fn names(id: &str, name: &str) -> bool {
    let id = unparametrized(id);
    id == name
        || SEPARATORS.iter().any(|sep| {
            id.strip_suffix(name)
                .is_some_and(|head| head.ends_with(sep))
        })
}
