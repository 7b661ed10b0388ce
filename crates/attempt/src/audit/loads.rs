//! Code kept in files that are not source and loaded at run time: Rust's `include!` and
//! `#[path]`, Python's `exec(open(…).read())` and `runpy.run_path`, node's `require` of a
//! `.txt`. Such a file is code of the language that loads it, so the tampering rules and
//! the gaming monitor read it as that language's source; otherwise moving the code into
//! `impl.txt` would hide it from every rule.

use std::collections::{BTreeMap, BTreeSet};

use super::scan::Lang;
use super::tampering::{self, View, listed, words};

/// Python built-ins that run code given as a string (never a member: `re.compile` is not
/// `compile`).
const PYTHON_RUNS: &str = "compile(, eval(, exec(";
/// Python calls, of any module, that run or import the file they name.
const PYTHON_RUNS_FILE: &str = "SourceFileLoader(, run_path(, spec_from_file_location(";
/// JavaScript calls that run a string as code.
const JS_RUNS: &str = "Function(, Script(, compileFunction(, eval(, runInContext(, \
    runInNewContext(, runInThisContext(";
/// Extensions node's `require` reads as something other than JavaScript text (JSON, a
/// native addon), or as JavaScript that is scanned as source already. Any other extension
/// is read as JavaScript.
const JS_OWN: &str = "cjs, cts, js, json, jsx, mjs, mts, node, ts, tsx";
/// The strings remembered for one name, at most.
const MAX_STRINGS_PER_NAME: usize = 8;
/// The longest string read as a path, in bytes (Linux's `PATH_MAX`).
const MAX_PATH: usize = 4096;

/// What a loaded path is relative to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Base {
    /// The loading file's folder (`include!`, `require`, `#[path]`).
    File,
    /// The project's root, where the checks run (`open("impl.txt")`).
    Root,
    /// The folder of the nearest `Cargo.toml` (`concat!(env!("CARGO_MANIFEST_DIR"), …)`).
    Crate,
}

/// One file that a line loads as code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Load {
    /// The loading line, 1-based.
    pub(crate) line: usize,
    /// The loaded file's repository path.
    pub(crate) path: String,
}

/// The files `text` (at repository path `path`, read as `lang`) loads as code, in the
/// project at `root` (a repository path, `""` for the whole repository). A path counts when
/// `exists` says the candidate has a file there, it stays inside the repository, and it is
/// not a source file of `lang` (which is scanned as itself).
pub(crate) fn loads(
    path: &str,
    lang: Lang,
    root: &str,
    text: &str,
    exists: impl Fn(&str) -> bool,
) -> Vec<Load> {
    let folder = path.rsplit_once('/').map_or("", |(f, _)| f);
    let crate_root = || {
        let mut dir = folder;
        loop {
            if exists(&join(dir, "Cargo.toml")) {
                return Some(dir);
            }
            dir = dir
                .rsplit_once('/')
                .map(|(d, _)| d)
                .or((!dir.is_empty()).then_some(""))?;
        }
    };
    let mut found = Vec::new();
    let mut seen = BTreeSet::new();
    for (line, targets) in targets(&tampering::views(text, lang), lang) {
        for (base, target) in targets {
            let from = match base {
                Base::File => Some(folder),
                Base::Root => Some(root.trim_end_matches('/')),
                Base::Crate => crate_root(),
            };
            let Some(loaded) = from.and_then(|f| normalized(f, &target)) else {
                continue;
            };
            if Lang::of(&loaded) != lang && exists(&loaded) && seen.insert((line, loaded.clone())) {
                found.push(Load { line, path: loaded });
            }
        }
    }
    found
}

/// `dir` and `name` joined with `/`.
fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_owned()
    } else {
        format!("{dir}/{name}")
    }
}

/// `path` read from the folder `dir`, with `.` and `..` taken out; `None` when it is
/// absolute or climbs out of the repository.
pub(super) fn normalized(dir: &str, path: &str) -> Option<String> {
    if path.is_empty() || path.starts_with('/') || path.contains(['\0', '\n']) {
        return None;
    }
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            _ => parts.push(part),
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// The paths each line of `views` loads as code, 1-based, with what each is relative to.
fn targets(views: &[View], lang: Lang) -> Vec<(usize, Vec<(Base, String)>)> {
    // What a name holds when its line builds or reads a path: `src = open("x").read()`,
    // `with open("x") as f`, `const src = fs.readFileSync("x")`.
    let mut names: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let mut found = Vec::new();
    for (k, view) in views.iter().enumerate() {
        let code = view.code.trim();
        let mut paths: Vec<(Base, String)> = Vec::new();
        match lang {
            Lang::Rust => {
                let squeezed = code.replace(' ', "");
                let strings = &view.strings;
                for s in tampering::strings_in(&squeezed, strings, "include!(''") {
                    paths.push((Base::File, s.to_owned()));
                }
                for s in tampering::strings_in(&squeezed, strings, "#[path=''") {
                    paths.push((Base::File, s.to_owned()));
                }
                let manifest = "include!(concat!(env!(''),''";
                let variables =
                    tampering::strings_in(&squeezed, strings, "include!(concat!(env!(''");
                let relative = tampering::strings_in(&squeezed, strings, manifest);
                for (variable, s) in variables.zip(relative) {
                    if variable == "CARGO_MANIFEST_DIR" {
                        paths.push((Base::Crate, s.trim_start_matches('/').to_owned()));
                    }
                }
            }
            Lang::Python | Lang::Js => {
                let (runs, runs_file) = match lang {
                    Lang::Python => (PYTHON_RUNS, PYTHON_RUNS_FILE),
                    _ => (JS_RUNS, ""),
                };
                let runs = words(runs).any(|r| tampering::occurs(code, r))
                    || words(runs_file).any(|r| !r.is_empty() && code.contains(r));
                if lang == Lang::Js {
                    for s in tampering::strings_after(view, "require(''") {
                        let (_, name) = s.rsplit_once('/').unwrap_or(("", s));
                        let ext = name.rsplit_once('.').map(|(_, e)| e);
                        let relative = s.starts_with("./") || s.starts_with("../");
                        if relative && ext.is_some_and(|e| !listed(JS_OWN, e)) {
                            paths.push((Base::File, s.to_owned()));
                        }
                    }
                }
                let strings: Vec<&str> = view.strings.iter().map(String::as_str).collect();
                let used: BTreeSet<&str> = identifiers(code).into_iter().collect();
                let mut held: Vec<&str> = used
                    .into_iter()
                    .filter_map(|n| names.get(n))
                    .flatten()
                    .copied()
                    .collect();
                held.extend(&strings);
                // A path is short, and a name used a thousand times on a line is one path.
                held.retain(|s| s.len() <= MAX_PATH);
                held.sort_unstable();
                held.dedup();
                if runs {
                    for s in held {
                        paths.extend([Base::File, Base::Root].map(|b| (b, s.to_owned())));
                    }
                } else if let Some(name) = holder(code, lang).filter(|_| !held.is_empty()) {
                    held.truncate(MAX_STRINGS_PER_NAME);
                    names.insert(name, held);
                }
            }
            Lang::Go | Lang::Any => {}
        }
        if !paths.is_empty() {
            found.push((k + 1, paths));
        }
    }
    found
}

/// The names in `code` that are not members (`src` of `exec(src)`, not `read` of `f.read`).
pub(super) fn identifiers(code: &str) -> Vec<&str> {
    let mut previous = ' ';
    let mut start = None;
    let mut found = Vec::new();
    for (at, c) in code.char_indices().chain([(code.len(), ' ')]) {
        match (start, tampering::is_word(c)) {
            (None, true) => start = Some((at, previous == '.')),
            (Some((from, member)), false) => {
                if !member {
                    found.push(&code[from..at]);
                }
                start = None;
            }
            _ => {}
        }
        if !c.is_whitespace() {
            previous = c;
        }
    }
    found
}

/// The name a line binds to what it reads: `src = …`, `const src = …`, `with … as f:`.
fn holder(code: &str, lang: Lang) -> Option<&str> {
    if lang == Lang::Python
        && code.starts_with("with ")
        && let Some((_, name)) = code.rsplit_once(" as ")
    {
        let name = name.trim_end_matches(':').trim();
        return Some(name).filter(|n| n.chars().all(tampering::is_word));
    }
    let mut rest = code;
    if lang == Lang::Js {
        for keyword in ["const ", "let ", "var "] {
            rest = rest.strip_prefix(keyword).unwrap_or(rest);
        }
    }
    let end = rest
        .find(|c: char| !tampering::is_word(c))
        .unwrap_or(rest.len());
    let after = rest[end..].trim_start().strip_prefix('=')?;
    (end > 0 && !after.starts_with(['=', '>'])).then(|| &rest[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The loads of `text` at `path`, as `line path`, in a candidate holding `files`.
    #[track_caller]
    fn case(path: &str, text: &str, files: &[&str], expected: &[&str]) {
        let lang = Lang::of(path);
        let found: Vec<String> = loads(path, lang, "", text, |p| files.contains(&p))
            .into_iter()
            .map(|l| format!("{} {}", l.line, l.path))
            .collect();
        assert_eq!(found, expected, "{path}:\n{text}");
    }

    #[test]
    fn rust_includes_and_paths() {
        let rust = "\
include!(\"impl.inc\");
include!(\"../gen/tables.rs\");
#[path = \"imp.txt\"]
mod imp;
include!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/data/more.inc\"));
include!(concat!(env!(\"OUT_DIR\"), \"/gen.inc\"));
include!(\"../../../etc/passwd\");
const T: &str = include_str!(\"words.txt\");
";
        let files = [
            "c/src/impl.inc",
            "c/gen/tables.rs",
            "c/src/imp.txt",
            "c/Cargo.toml",
            "c/data/more.inc",
            "c/src/words.txt",
        ];
        let found = ["1 c/src/impl.inc", "3 c/src/imp.txt", "5 c/data/more.inc"];
        case("c/src/lib.rs", rust, &files, &found);
    }

    #[test]
    fn python_runs_what_it_reads() {
        let python = "\
exec(open(\"impl.txt\").read())
exec(Path(__file__).with_name(\"near.txt\").read_text())
import runpy; runpy.run_path(\"run.txt\")
with open(\"held.txt\") as f:
    exec(f.read())
src = open(\"split.txt\").read()
code = compile(src, \"split.txt\", \"exec\")
pattern = re.compile(open(\"pattern.txt\").read())
exec(open(\"version.py\").read())
DATA = open(\"data.txt\").read()
";
        let files = [
            "impl.txt",
            "pkg/near.txt",
            "run.txt",
            "held.txt",
            "split.txt",
            "pattern.txt",
            "version.py",
            "data.txt",
        ];
        let found = [
            "1 impl.txt",
            "2 pkg/near.txt",
            "3 run.txt",
            "5 held.txt",
            "7 split.txt",
        ];
        case("pkg/calc.py", python, &files, &found);
    }

    #[test]
    fn node_requires_text_as_code() {
        let js = "\
const impl = require(\"./impl.txt\");
const data = require(\"./data.json\");
const lib = require(\"./lib\");
const up = require(\"../shared/x.tpl\");
const pkg = require(\"left-pad.txt\");
eval(fs.readFileSync(path.join(__dirname, \"ev.txt\"), \"utf8\"));
const src = fs.readFileSync(\"held.txt\", \"utf8\");
new Function(src)();
const words = fs.readFileSync(\"words.txt\", \"utf8\");
";
        let files = [
            "src/impl.txt",
            "src/data.json",
            "shared/x.tpl",
            "src/ev.txt",
            "held.txt",
            "words.txt",
        ];
        let found = [
            "1 src/impl.txt",
            "4 shared/x.tpl",
            "6 src/ev.txt",
            "8 held.txt",
        ];
        case("src/calc.js", js, &files, &found);
    }

    #[test]
    fn paths_stay_in_the_repository() {
        assert_eq!(normalized("a/b", "../c.txt").as_deref(), Some("a/c.txt"));
        assert_eq!(normalized("a", "../../c.txt"), None);
        assert_eq!(normalized("", "/etc/passwd"), None);
        assert_eq!(normalized("", "./x/./y.txt").as_deref(), Some("x/y.txt"));
        assert_eq!(normalized("a", ".."), None);
    }
}
