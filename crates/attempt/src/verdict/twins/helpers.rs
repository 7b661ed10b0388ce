//! Twins through the tests' own helpers. A Python test that compares through a helper
//! (`sums(2, 3, 5)` with `def sums(a, b, want): assert add(a, b) == want`) holds its
//! expected value as the helper's argument. Where the helper, as the check tree holds it,
//! compares that parameter for equality in a statement that always runs (at its body's
//! level, without a `return`, a `yield` or a decorator) and uses it nowhere else, a call
//! at the test body's level with a literal there fails once the literal changes, exactly
//! as `assert add(2, 3) == 6` does. The helper is read where the check runs it: the test
//! file's own functions, and the functions it imports by name (`from tests.helpers import
//! sums`) from a file of the tree. JavaScript likewise, with the runner's own assertion
//! (`expect(got).toBe(want)`, `assert.strictEqual(got, want)`) and the names a test file
//! takes from a relative module. The helper files the base's tests import are frozen
//! (`audit::helpers`), so the helper read is the base's.

use std::collections::BTreeMap;
use std::path::Path;

use speccoder_foundation::files;

use super::lines::{
    Coin, PY, Reach, Shape, arguments, changed_value, closing, equality, holds_code, indent,
    level_lines,
};
use crate::shared::imports::{javascript_module_paths, python_from_imports, python_module_paths};

/// The largest helper file read.
const MAX_HELPER_BYTES: u64 = 1 << 20;

/// A helper: its parameters, and the one it compares with how far a value must move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Helper {
    params: Vec<String>,
    compared: usize,
    reach: Reach,
    /// A method's: the lines of the class that defines it, where its calls must be.
    within: Option<(usize, usize)>,
}

/// The helpers a test file may call, by the name it calls them.
pub(crate) type Helpers = BTreeMap<String, Helper>;

/// Whether `name` is a plain identifier.
fn ident(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// How many times `word` stands as a whole word in `text`.
pub(super) fn words(text: &str, word: &str) -> usize {
    let id = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word)
        .filter(|(at, _)| {
            let before = text[..*at].chars().next_back();
            let after = text[at + word.len()..].chars().next();
            !before.is_some_and(|c| id(c) || c == '.') && !after.is_some_and(id)
        })
        .count()
}

/// The parameter a helper's body `body` compares for equality in an `assert` at its own
/// level, with how far a value must move (`pytest.approx(want)` asks far).
fn compared_param(
    lines: &[String],
    body: (usize, usize),
    params: &[String],
) -> Option<(usize, Reach)> {
    level_lines(lines, body, PY).into_iter().find_map(|l| {
        let trimmed = lines[l].trim();
        if trimmed.contains(';') || trimmed.contains('#') || trimmed.ends_with('\\') {
            return None;
        }
        if let Some(k) = super::tables::unittest_compared(trimmed, params) {
            return Some((k, Reach::Near));
        }
        let rest = trimmed.strip_prefix("assert ")?;
        let (0, b) = *arguments(rest, PY.0).first()? else {
            return None;
        };
        let (left, right) = equality(&rest[..b], "==", PY)?;
        [right, left].into_iter().find_map(|(a, b)| {
            let side = &rest[a..b];
            let (inner, reach) = ["pytest.approx(", "approx("]
                .iter()
                .find_map(|h| side.strip_prefix(h)?.strip_suffix(')'))
                .map_or((side, Reach::Near), |inner| (inner.trim(), Reach::Far));
            params.iter().position(|p| p == inner).map(|k| (k, reach))
        })
    })
}

/// Whether a Python text binds `name` again (`check = wrap(check)`, `global check`): the
/// function read may then not be the one the call reaches.
fn rebound(text: &str, name: &str) -> bool {
    text.lines().map(str::trim_start).any(|line| {
        line.strip_prefix(name).is_some_and(|rest| {
            let rest = rest.trim_start();
            (rest.starts_with('=') && !rest.starts_with("=="))
                || rest.starts_with(":")
                || rest.starts_with("+=")
        }) || line
            .strip_prefix("global ")
            .is_some_and(|rest| words(rest, name) > 0)
            || line
                .strip_prefix("del ")
                .is_some_and(|rest| words(rest, name) > 0)
    })
}

/// The module-level functions of a Python text that compare one of their parameters for
/// equality in a statement that always runs, by name. Test functions are not helpers.
pub(crate) fn python_helpers(text: &str) -> Helpers {
    let lines: Vec<String> = text.split('\n').map(str::to_owned).collect();
    let mut found: Helpers = BTreeMap::new();
    let mut twice: Vec<String> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(rest) = line.strip_prefix("def ") else {
            continue;
        };
        let Some((name, sig)) = rest.split_once('(') else {
            continue;
        };
        let Some((params, tail)) = sig.split_once(')') else {
            continue;
        };
        if !ident(name) || name.starts_with("test") || !tail.trim_end().ends_with(':') {
            continue;
        }
        if found.contains_key(name) || twice.iter().any(|n| n == name) {
            // Defined twice: which one runs is not read here.
            found.remove(name);
            twice.push(name.to_owned());
            continue;
        }
        if i > 0 && lines[i - 1].starts_with('@') {
            continue;
        }
        let params: Vec<String> = params.split(',').map(|p| p.trim().to_owned()).collect();
        // Plain parameters only: no defaults, `*args`, `**kwargs` or annotations.
        if params.is_empty() || !params.iter().all(|p| ident(p)) {
            continue;
        }
        let start = i + 1;
        let mut end = start;
        while end < lines.len() && (lines[end].trim().is_empty() || !indent(&lines[end]).is_empty())
        {
            end += 1;
        }
        let body = lines[start..end].join("\n");
        if ["return", "yield", "pytest.skip", "skipTest"]
            .iter()
            .any(|w| holds_code(&body, PY.0, w))
        {
            continue;
        }
        let compared = compared_param(&lines, (start, end), &params);
        let Some((compared, reach)) = compared else {
            continue;
        };
        // Compared there alone, never an input of what it compares.
        if words(&body, &params[compared]) != 1 {
            continue;
        }
        found.insert(
            name.to_owned(),
            Helper {
                params,
                compared,
                reach,
                within: None,
            },
        );
    }
    found.retain(|name, _| !rebound(text, name));
    found
}

/// The lines of the class whose method is defined on line `def`: from the line after
/// the nearest line above indented less (which must open a class), to the next line
/// indented no more than that one.
fn class_lines(lines: &[String], def: usize) -> Option<(usize, usize)> {
    let own = indent(&lines[def]).len();
    let class = (0..def)
        .rev()
        .find(|j| !lines[*j].trim().is_empty() && indent(&lines[*j]).len() < own)?;
    if !lines[class].trim_start().starts_with("class ") {
        return None;
    }
    let class_own = indent(&lines[class]).len();
    let end = (class + 1..lines.len())
        .find(|j| !lines[*j].trim().is_empty() && indent(&lines[*j]).len() <= class_own)
        .unwrap_or(lines.len());
    Some((class + 1, end))
}

/// The methods of a Python text's classes that compare one of their parameters for
/// equality in a statement that always runs and use it nowhere else (`def check(self,
/// got, want): self.assertEqual(got, want)`), by the name a test of the same class calls
/// them (`self.check`). A name defined twice in the file (an override), decorated, bound
/// again, or reached otherwise than through `self` is left out; a subclass in another
/// file that overrides the method is not read.
pub(crate) fn python_methods(text: &str) -> Helpers {
    let lines: Vec<String> = text.split('\n').map(str::to_owned).collect();
    let mut found = Helpers::new();
    for (i, line) in lines.iter().enumerate() {
        let own = indent(line);
        let Some(rest) = line.trim_start().strip_prefix("def ") else {
            continue;
        };
        let (Some((name, sig)), false) = (rest.split_once('('), own.is_empty()) else {
            continue;
        };
        let Some((params, tail)) = sig.split_once(')') else {
            continue;
        };
        if !ident(name) || name.starts_with("test") || name.starts_with("__") {
            continue;
        }
        if !tail.trim_end().ends_with(':') || lines[i - 1].trim_start().starts_with('@') {
            continue;
        }
        let definitions = lines
            .iter()
            .filter(|l| l.trim_start().starts_with(&format!("def {name}(")))
            .count();
        // Bound again on the instance or the class, by name or through `setattr`.
        if definitions != 1
            || rebound(text, name)
            || text.contains(&format!(".{name} ="))
            || text.contains("setattr(")
        {
            continue;
        }
        let params: Vec<String> = params.split(',').map(|p| p.trim().to_owned()).collect();
        let Some((first, params)) = params.split_first() else {
            continue;
        };
        if first != "self" || params.is_empty() || !params.iter().all(|p| ident(p)) {
            continue;
        }
        let Some(class) = class_lines(&lines, i) else {
            continue;
        };
        let start = i + 1;
        let end = (start..lines.len())
            .find(|j| !lines[*j].trim().is_empty() && indent(&lines[*j]).len() <= own.len())
            .unwrap_or(lines.len());
        let body = lines[start..end].join("\n");
        if ["return", "yield", "pytest.skip", "skipTest", "subTest"]
            .iter()
            .any(|w| holds_code(&body, PY.0, w))
        {
            continue;
        }
        let Some((compared, reach)) = compared_param(&lines, (start, end), params) else {
            continue;
        };
        if words(&body, &params[compared]) != 1 {
            continue;
        }
        found.insert(
            format!("self.{name}"),
            Helper {
                params: params.to_vec(),
                compared,
                reach,
                within: Some(class),
            },
        );
    }
    found
}

/// Of the repository paths `candidates` a test's import may name, the one that is a
/// regular file of the tree `root` within the bound, read: `Err` when none or several are
/// (the name is ambiguous), `Ok(None)` when the one could not be read. Not a link: a
/// helper is the tree's own file.
fn sole_module(root: &Path, candidates: Vec<String>) -> Result<Option<String>, ()> {
    let files: Vec<String> = candidates
        .into_iter()
        .filter(|p| {
            std::fs::symlink_metadata(root.join(p))
                .is_ok_and(|m| m.file_type().is_file() && m.len() <= MAX_HELPER_BYTES)
        })
        .collect();
    let [file] = files.as_slice() else {
        return Err(());
    };
    Ok(files::read_limited(&root.join(file), MAX_HELPER_BYTES)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok()))
}

/// The helpers the Python test file `path` (text `text`) calls by name, read in the check
/// tree `root`: its own module-level functions and those it imports from a file there.
/// A name found in two places is left out.
pub(crate) fn python_for(root: &Path, path: &str, text: &str) -> Helpers {
    let mut helpers = python_helpers(text);
    let mut ambiguous: Vec<String> = Vec::new();
    for (module, name, local) in python_from_imports(text) {
        let Ok(read) = sole_module(root, python_module_paths(&module, path)) else {
            ambiguous.push(local);
            continue;
        };
        let Some(source) = read else {
            continue;
        };
        let Some(helper) = python_helpers(&source).remove(&name) else {
            ambiguous.push(local);
            continue;
        };
        if helpers.insert(local.clone(), helper).is_some() {
            ambiguous.push(local);
        }
    }
    for name in ambiguous {
        helpers.remove(&name);
    }
    helpers.retain(|name, _| !rebound(text, name));
    helpers
}

/// A call at a test body's level, `trimmed`, of a helper: its expected argument changed,
/// with its range in `trimmed`.
pub(crate) fn python_call(
    (trimmed, line): (&str, usize),
    helpers: &Helpers,
    coin: &mut dyn Coin,
) -> Option<((usize, usize), String)> {
    let open = trimmed.find('(')?;
    let helper = helpers.get(&trimmed[..open])?;
    if helper
        .within
        .is_some_and(|(start, end)| !(start..end).contains(&line))
    {
        return None;
    }
    let close = closing(trimmed, open, PY.0)?;
    if close + 1 != trimmed.len() {
        return None;
    }
    let inner = &trimmed[open + 1..close];
    let args = arguments(inner, PY.0);
    if args.len() != helper.params.len() {
        return None;
    }
    let want = &helper.params[helper.compared];
    // Positional up to the first keyword; the expected one by position or by name.
    let mut at = None;
    for (i, (a, b)) in args.iter().enumerate() {
        let arg = &inner[*a..*b];
        if arg.starts_with('*') {
            return None;
        }
        match arg.split_once('=') {
            Some((key, value)) if ident(key.trim()) && !value.starts_with('=') => {
                let _ = value;
                let key = key.trim();
                if !helper.params.iter().any(|p| p == key) {
                    return None;
                }
                if key == want {
                    let value_at = arg.find('=')? + 1;
                    let value = &arg[value_at..];
                    let lead = value.len() - value.trim_start().len();
                    at = Some((a + value_at + lead, *b));
                }
            }
            _ if i == helper.compared => at = Some((*a, *b)),
            _ => {}
        }
    }
    let (a, b) = at?;
    let new = changed_value(&inner[a..b], PY, Shape::Python, helper.reach, coin)?;
    Some(((open + 1 + a, open + 1 + b), new))
}

/// A JavaScript helper's head at the start of `line`: `function check(got, want) {`,
/// `export function …`, `const check = (got, want) => {`, `exports.check = (…) => {`.
fn javascript_head(line: &str) -> Option<(&str, &str)> {
    for head in ["function ", "export function "] {
        if let Some(rest) = line.strip_prefix(head) {
            let (name, rest) = rest.split_once('(')?;
            let params = rest.strip_suffix(") {")?;
            return Some((name, params));
        }
    }
    for head in ["const ", "export const ", "exports."] {
        if let Some(rest) = line.strip_prefix(head) {
            let (name, rest) = rest.split_once(" = (")?;
            let params = rest.strip_suffix(") => {")?;
            return Some((name, params));
        }
    }
    None
}

/// Whether a JavaScript text binds `name` other than on line `own` (`check = …`,
/// `{ check: other }`): the function read may not be the one the call reaches.
fn javascript_rebound(text: &str, name: &str, own: Option<usize>) -> bool {
    text.lines().enumerate().any(|(i, line)| {
        Some(i) != own
            && line.match_indices(name).any(|(at, _)| {
                let before = line[..at].chars().next_back();
                let rest = line[at + name.len()..].trim_start();
                let word = !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$')
                    && !line[at + name.len()..]
                        .starts_with(|c: char| c.is_alphanumeric() || c == '_' || c == '$');
                word && ((rest.starts_with('=')
                    && !rest.starts_with("==")
                    && !rest.starts_with("=>"))
                    || rest.starts_with(':'))
            })
    })
}

/// The top-level JavaScript functions of a text that compare one of their parameters
/// with the runner's own assertion (`expect(got).toBe(want)`, `assert.strictEqual(got,
/// want)`) in a statement that always runs, and use it nowhere else, by name.
pub(crate) fn javascript_helpers(text: &str) -> Helpers {
    let lines: Vec<String> = text.split('\n').map(str::to_owned).collect();
    let mut found = Helpers::new();
    for (i, line) in lines.iter().enumerate() {
        let Some((name, params)) = javascript_head(line) else {
            continue;
        };
        let params: Vec<String> = params.split(',').map(|p| p.trim().to_owned()).collect();
        let plain = |p: &String| {
            !p.is_empty()
                && !p.starts_with(|c: char| c.is_ascii_digit())
                && p.chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        };
        if !ident(name) || !params.iter().all(plain) || javascript_rebound(text, name, Some(i)) {
            continue;
        }
        let start = i + 1;
        let Some(end) = (start..lines.len()).find(|j| lines[*j] == "}" || lines[*j] == "};") else {
            continue;
        };
        let body = lines[start..end].join("\n");
        if ["return", "await", "yield", "try"]
            .iter()
            .any(|w| holds_code(&body, super::lines::JS.0, w))
        {
            continue;
        }
        let names: Vec<&str> = params.iter().map(String::as_str).collect();
        let Some(compared) = super::tables::each_compared(&lines, (start, end), &names) else {
            continue;
        };
        if words(&body, &params[compared]) != 1 {
            continue;
        }
        found.insert(
            name.to_owned(),
            Helper {
                params,
                compared,
                reach: Reach::Near,
                within: None,
            },
        );
    }
    found
}

/// The names a JavaScript test file takes from a relative module, as (specifier, names):
/// `const { check } = require("./helpers");`, `import { check } from "./helpers";`.
fn javascript_named_imports(text: &str) -> Vec<(String, Vec<String>)> {
    let mut found = Vec::new();
    for line in text.lines() {
        let Some(open) = line.find('{') else {
            continue;
        };
        let Some(close) = line[open..].find('}').map(|c| open + c) else {
            continue;
        };
        let tail = &line[close + 1..];
        let spec = ["require(\"", "require('", "from \"", "from '"]
            .iter()
            .find_map(|h| {
                let rest = &tail[tail.find(h)? + h.len()..];
                rest.split_once(['"', '\'']).map(|(s, _)| s.to_owned())
            });
        let Some(spec) = spec.filter(|s| s.starts_with("./") || s.starts_with("../")) else {
            continue;
        };
        // Renamed ones (`{ check: c }`, `{ check as c }`) are left out.
        let names: Vec<String> = line[open + 1..close]
            .split(',')
            .map(str::trim)
            .filter(|n| ident(n))
            .map(str::to_owned)
            .collect();
        found.push((spec, names));
    }
    found
}

/// The helpers the JavaScript test file `path` (text `text`) calls by name, read in the
/// check tree `root`: its own top-level functions and those it takes by name from a
/// relative module of the tree. A name found in two places is left out.
pub(crate) fn javascript_for(root: &Path, path: &str, text: &str) -> Helpers {
    let mut helpers = javascript_helpers(text);
    let mut ambiguous: Vec<String> = Vec::new();
    for (spec, names) in javascript_named_imports(text) {
        let candidates = javascript_module_paths(&spec, path).unwrap_or_default();
        let Ok(read) = sole_module(root, candidates) else {
            ambiguous.extend(names);
            continue;
        };
        let Some(source) = read else {
            continue;
        };
        let mut theirs = javascript_helpers(&source);
        for name in names {
            match theirs.remove(&name) {
                Some(helper) if !helpers.contains_key(&name) => {
                    helpers.insert(name, helper);
                }
                _ => ambiguous.push(name),
            }
        }
    }
    for name in ambiguous {
        helpers.remove(&name);
    }
    helpers
        .retain(|name, _| !javascript_rebound(text, name, None) || javascript_head_in(text, name));
    helpers
}

/// Whether `name` is defined by a helper head of `text` (its own binding there is no
/// rebinding).
fn javascript_head_in(text: &str, name: &str) -> bool {
    let heads: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| javascript_head(l).is_some_and(|(n, _)| n == name))
        .map(|(i, _)| i)
        .collect();
    match heads.as_slice() {
        [own] => !javascript_rebound(text, name, Some(*own)),
        _ => false,
    }
}

/// A call at a JavaScript test body's level, `trimmed` (without its `;`), of a helper:
/// its expected argument changed, with its range in `trimmed`.
pub(crate) fn javascript_call(
    trimmed: &str,
    helpers: &Helpers,
    coin: &mut dyn Coin,
) -> Option<((usize, usize), String)> {
    let quotes = super::lines::JS;
    let open = trimmed.find('(')?;
    let helper = helpers.get(&trimmed[..open])?;
    let close = closing(trimmed, open, quotes.0)?;
    if close + 1 != trimmed.len() {
        return None;
    }
    let inner = &trimmed[open + 1..close];
    let args = arguments(inner, quotes.0);
    if args.len() != helper.params.len() {
        return None;
    }
    let (a, b) = args[helper.compared];
    if inner[a..b].starts_with("...") {
        return None;
    }
    let new = changed_value(&inner[a..b], quotes, Shape::Js, helper.reach, coin)?;
    Some(((open + 1 + a, open + 1 + b), new))
}
