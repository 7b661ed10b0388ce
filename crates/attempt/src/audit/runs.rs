//! Files of the candidate that the product's code runs as a program or script: Python's
//! `subprocess`, `os.system`, `os.popen`, `os.exec*`, `os.spawn*` and `pty.spawn`, Go's
//! `exec.Command`, node's `child_process` (`exec`, `execSync`, `spawn`, `execFile`, `fork`),
//! Rust's `Command::new`. Such a file is code of the product, read as the language of the
//! interpreter it is handed to (`sh`, `python3`, `node`, or its own `#!` line), so that a
//! `tools/probe.sh` that greps the visible test is read like the Python that would open it.
//!
//! What a call runs is read the way a shell reads a command line: its strings in order (a
//! list's items, a command string's words), with the strings a name was bound to put in
//! for the name, and pieces folded (`"tools/" + "probe.sh"`, `os.path.join("tools",
//! "probe.sh")`). A path counts when the candidate has a file there; so `git status` and
//! `bin/helper.sh` that names no test are read and pass, and nothing else is claimed.

use std::collections::{BTreeMap, BTreeSet};

use super::loads;
use super::scan::Lang;
use super::shell::{self, Reader};
use super::tampering::{self, View, words};

/// Python calls, of any module, that run a program (`subprocess.run(`, `os.system(`).
const PYTHON_RUNS: &str = "Popen(, call(, check_call(, check_output(, \
    create_subprocess_exec(, create_subprocess_shell(, execl(, execle(, execlp(, execlpe(, \
    execv(, execve(, execvp(, execvpe(, getoutput(, getstatusoutput(, popen(, posix_spawn(, \
    posix_spawnp(, run(, spawn(, spawnl(, spawnle(, spawnlp(, spawnlpe(, spawnv(, spawnve(, \
    spawnvp(, spawnvpe(, startfile(, system(";
/// Node's calls that run a program (`child_process`, Bun's and Deno's own).
const JS_RUNS: &str = "Command(, exec(, execFile(, execFileSync(, execSync(, fork(, spawn(, \
    spawnSync(";
/// Go's calls that run a program.
const GO_RUNS: &str = "Command(, CommandContext(, Exec(, StartProcess(";
/// Rust's: the command, and its arguments given on later statements.
const RUST_RUNS: &str = "Command::new(, .arg(, .args(";
/// The lines one call's arguments are read over at most.
const MAX_CALL_LINES: usize = 32;
/// The strings read for one call or one name, at most.
const MAX_ATOMS: usize = 16;
/// The most strings folded into one path.
const MAX_FOLD: usize = 4;

/// One file a line of the product runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Run {
    /// The running line, 1-based.
    pub(crate) line: usize,
    /// The run file's repository path.
    pub(crate) path: String,
    /// How it is read.
    pub(crate) reader: Reader,
}

/// The files `text` (at repository path `path`, read as `lang`, [`Lang::Any`] for a shell
/// script) runs as programs, in the project at `root` (a repository path, `""` for the
/// whole repository). A path counts when
/// `exists` says the candidate has a file there, it stays inside the repository, and it is
/// not a source file the scans read as itself (a `.py` run by `python3`).
pub(crate) fn runs(
    path: &str,
    lang: Lang,
    root: &str,
    text: &str,
    exists: impl Fn(&str) -> bool,
) -> Vec<Run> {
    let folder = path.rsplit_once('/').map_or("", |(f, _)| f);
    let root = root.trim_end_matches('/');
    let commands = match lang {
        Lang::Any => shell::runs(text),
        _ => calls(&tampering::views(text, lang), lang),
    };
    let mut found = Vec::new();
    let mut seen = BTreeSet::new();
    for (line, word, reader) in commands {
        let word = without_placeholder(&word);
        for base in [folder, root] {
            let Some(run) = loads::normalized(base, word) else {
                continue;
            };
            let own = Lang::of(&run);
            let read_as_itself = own != Lang::Any
                && matches!(
                    (reader, own),
                    (Reader::Itself, _) | (Reader::Python, Lang::Python) | (Reader::Js, Lang::Js)
                );
            if !read_as_itself && exists(&run) && seen.insert(run.clone()) {
                found.push(Run {
                    line,
                    path: run,
                    reader,
                });
            }
        }
    }
    found
}

/// What a file read by its own first line is read as until its text is read: the mark
/// [`read_as_itself`] replaces.
const BY_FIRST_LINE: &str = ".#!";

/// The path whose language and kind the scans read a run file at `path` as: a shell
/// script as `.sh`, Python as a `__main__.py` and JavaScript as a `cli.js` (a program in a
/// process of its own, which may exit), a file run by itself as [`BY_FIRST_LINE`] until
/// [`read_as_itself`] reads its first line.
pub(crate) fn read_as(path: &str, reader: Reader) -> String {
    match reader {
        Reader::Shell => format!("{path}.sh"),
        Reader::Python => format!("{path}/__main__.py"),
        Reader::Js => format!("{path}/cli.js"),
        Reader::Itself => format!("{path}{BY_FIRST_LINE}"),
    }
}

/// `loader` with a file run by itself read as its first line says ([`read_as`]); any
/// other `loader` as it is.
pub(crate) fn read_as_itself(loader: String, text: &str) -> String {
    match loader.strip_suffix(BY_FIRST_LINE) {
        Some(path) => read_as(path, shell::by_first_line(text)),
        None => loader,
    }
}

/// `word` without a leading placeholder of a template (`{here}/probe.sh`, `${dir}/x`):
/// the rest is read from the running file's folder and from the project's root.
fn without_placeholder(word: &str) -> &str {
    let rest = word.strip_prefix('$').unwrap_or(word);
    match rest.strip_prefix('{').and_then(|r| r.split_once('}')) {
        Some((_, after)) => after.trim_start_matches('/'),
        None => word,
    }
}

/// The commands the calls of `views` run, as a shell would read each call's strings: the
/// line, the word naming a file, and how it is read.
fn calls(views: &[View], lang: Lang) -> Vec<(usize, String, Reader)> {
    let names = bound_names(views, lang);
    let tokens = match lang {
        Lang::Python => PYTHON_RUNS,
        Lang::Js => JS_RUNS,
        Lang::Go => GO_RUNS,
        Lang::Rust => RUST_RUNS,
        Lang::Any => "",
    };
    let mut found = Vec::new();
    let mut read_to = (0, 0);
    for (k, view) in views.iter().enumerate() {
        let mut starts: Vec<(usize, &str)> = words(tokens)
            .filter(|t| !t.is_empty())
            .flat_map(|t| call_starts(&view.code, t).map(move |at| (at, t)))
            .collect();
        starts.sort_unstable();
        // The strings before each start, counted once along the line.
        let (mut counted_to, mut skip) = (0, 0);
        for (at, token) in starts {
            if (k, at) < read_to {
                continue;
            }
            skip += view.code[counted_to..at].matches("''").count();
            counted_to = at;
            let (mut atoms, end) = atoms(views, &names, (k, at), skip, true);
            read_to = end;
            if lang == Lang::Js && token == "fork(" {
                atoms.insert(0, "node".to_owned());
            }
            for (word, reader) in commands(&atoms) {
                found.push((k + 1, word, reader));
            }
        }
    }
    found
}

/// Where `token` starts a call in `code`: not inside a longer name (`prerun(` is not
/// `run(`), a member of anything (`subprocess.run(`, `_sp.run(`) or bare.
fn call_starts<'c>(code: &'c str, token: &'c str) -> impl Iterator<Item = usize> + 'c {
    code.match_indices(token).filter_map(move |(at, _)| {
        let before = code[..at].chars().next_back();
        let bare =
            !token.starts_with(tampering::is_word) || before.is_none_or(|c| !tampering::is_word(c));
        bare.then_some(at)
    })
}

/// What each name of `views` is bound to, by the strings of its statement
/// (`CMD = ["sh", "tools/probe.sh"]`, `script := "tools/" + "probe.sh"`), names bound
/// before put in.
fn bound_names(views: &[View], lang: Lang) -> BTreeMap<String, Vec<String>> {
    let mut names = BTreeMap::new();
    for (k, view) in views.iter().enumerate() {
        let Some((name, at)) = binding(&view.code, lang) else {
            continue;
        };
        let skip = view.code[..at].matches("''").count();
        let (atoms, _) = atoms(views, &names, (k, at), skip, false);
        if !atoms.is_empty() {
            names.insert(name.to_owned(), atoms);
        }
    }
    names
}

/// The name a statement binds and where its value starts: `x = …`, `x: str = …`,
/// `const x = …`, `let mut x: &str = …`, `x := …`, `var x = …`.
fn binding(code: &str, lang: Lang) -> Option<(&str, usize)> {
    let mut rest = code.trim_start();
    loop {
        let before = rest;
        for keyword in ["pub ", "let ", "mut ", "const ", "static ", "var "] {
            rest = rest.strip_prefix(keyword).unwrap_or(rest).trim_start();
        }
        if before == rest {
            break;
        }
    }
    let end = rest
        .find(|c: char| !tampering::is_word(c))
        .unwrap_or(rest.len());
    let (name, mut after) = rest.split_at(end);
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    after = after.trim_start();
    // A type annotation before the value (`x: str =`, `X: &str =`), never Go's `:=`.
    if after.starts_with(':') && !after.starts_with(":=") {
        after = &after[after.find('=')?..];
    }
    let value = after
        .strip_prefix(":=")
        .or_else(|| after.strip_prefix('='))?;
    if value.starts_with(['=', '>']) || (lang == Lang::Python && name == "return") {
        return None;
    }
    Some((name, code.len() - value.len()))
}

/// `string` with each `{name}` or `${name}` of a bound name replaced by the first string
/// it was bound to: an f-string's or a template's slot (`f"sh {SCRIPT}"`).
fn filled_in(string: &str, names: &BTreeMap<String, Vec<String>>) -> String {
    let mut out = String::new();
    let mut rest = string;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}').map(|c| open + c) else {
            break;
        };
        let name = rest[open + 1..close].trim();
        let held = names.get(name).and_then(|held| held.first());
        // A path is short: a long value, or a string grown long, is left as written.
        match held.filter(|v| v.len() <= MAX_PATH && out.len() <= MAX_FILLED) {
            Some(value) => {
                out.push_str(rest[..open].strip_suffix('$').unwrap_or(&rest[..open]));
                out.push_str(value);
            }
            None => out.push_str(&rest[..=close]),
        }
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

/// Where the reading of a call stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reading {
    /// Before the call's opening parenthesis, or in a statement's value.
    Head,
    /// Inside brackets this deep.
    Inside(usize),
    /// After the closing parenthesis: a `.` goes on to a chained call.
    Closed,
    /// After a chained call's `.`, before its name.
    Member,
    /// After a chained call's name, before its parenthesis.
    Named,
}

/// The strings read from `start` (line, column, past the line's first `skip` strings) on,
/// in order, with the strings each name was bound to in its place: a `call`'s arguments up
/// to its closing parenthesis and along a chain of calls after it
/// (`Command::new("sh").arg("x")`), or a statement to the end of its line with its
/// brackets closed. Also where the reading ended.
fn atoms(
    views: &[View],
    names: &BTreeMap<String, Vec<String>>,
    start: (usize, usize),
    skip: usize,
    call: bool,
) -> (Vec<String>, (usize, usize)) {
    let mut out: Vec<String> = Vec::new();
    let mut reading = Reading::Head;
    let last = (start.0 + MAX_CALL_LINES).min(views.len());
    for (k, view) in views.iter().enumerate().take(last).skip(start.0) {
        let code = view.code.as_str();
        let from = if k == start.0 { start.1 } else { 0 };
        let mut strings = view
            .strings
            .iter()
            .skip(if k == start.0 { skip } else { 0 });
        let mut at = from;
        while let Some(c) = code[at..].chars().next() {
            let next = step(reading, c, call);
            let Some(next) = next else {
                return (out, (k, at));
            };
            reading = next;
            let mut width = c.len_utf8();
            if c == '\'' && code[at..].starts_with("''") {
                width = 2;
                out.extend(strings.next().map(|s| filled_in(s, names)));
            } else if tampering::is_word(c) {
                width = code[at..]
                    .find(|c: char| !tampering::is_word(c))
                    .unwrap_or(code.len() - at);
                let name = &code[at..at + width];
                if code[..at].ends_with('.') {
                    out.extend(interpreter_of(name).map(str::to_owned));
                } else if let Some(held) = names.get(name) {
                    out.extend(held.iter().cloned());
                }
            }
            at += width;
            if out.len() >= MAX_ATOMS {
                out.truncate(MAX_ATOMS);
                return (out, (k, at));
            }
        }
        if !call && matches!(reading, Reading::Head) {
            return (out, (k + 1, 0));
        }
    }
    (out, (last, 0))
}

/// The reading after `c`, or `None` where the call's text ends.
fn step(reading: Reading, c: char, call: bool) -> Option<Reading> {
    let open = "([{".contains(c);
    let close = ")]}".contains(c);
    Some(match reading {
        _ if c.is_whitespace() => reading,
        Reading::Head | Reading::Named if open => Reading::Inside(1),
        Reading::Head => reading,
        Reading::Inside(depth) if open => Reading::Inside(depth + 1),
        Reading::Inside(1) if close && call => Reading::Closed,
        Reading::Inside(1) if close => Reading::Head,
        Reading::Inside(depth) if close => Reading::Inside(depth - 1),
        Reading::Inside(_) => reading,
        Reading::Closed if c == '.' => Reading::Member,
        Reading::Member if tampering::is_word(c) => Reading::Named,
        Reading::Named if tampering::is_word(c) => Reading::Named,
        Reading::Closed | Reading::Member | Reading::Named => return None,
    })
}

/// The interpreter a member names: Python's `sys.executable`, node's `process.execPath`
/// (of any alias of the module: `_sys.executable`).
fn interpreter_of(member: &str) -> Option<&'static str> {
    match member {
        "executable" => Some("python3"),
        "execPath" => Some("node"),
        _ => None,
    }
}

/// The longest string folded into a path, in bytes (Linux's `PATH_MAX`).
const MAX_PATH: usize = 4096;

/// The longest string names are filled into, in bytes.
const MAX_FILLED: usize = 1 << 16;

/// The files a call's strings run, read as one command line, and the folds of neighbouring
/// strings (`"tools/" + "probe.sh"`, `join("tools", "probe.sh")`), each run by the
/// interpreter named before it, or by itself where it is the command. Each fold is read
/// once, so a call costs what its strings cost.
fn commands(atoms: &[String]) -> Vec<(String, Reader)> {
    let mut found: Vec<(String, Reader)> = Vec::new();
    let mut add = |word: String, reader: Reader| {
        if !found.iter().any(|(w, _)| *w == word) {
            found.push((word, reader));
        }
    };
    for (_, word, reader) in shell::runs(&atoms.join(" ")) {
        add(word, reader);
    }
    for start in 0..atoms.len() {
        // The interpreter named before the fold, past its flags; the fold is the command
        // where nothing comes before it.
        let before = atoms[..start].iter().rev().find(|a| !a.starts_with('-'));
        let reader = match before {
            None => Some(Reader::Itself),
            Some(a) => shell::interpreter(a),
        };
        for len in 2..=MAX_FOLD.min(atoms.len() - start) {
            let pieces = &atoms[start..start + len];
            // A fold starts at a path, never at the interpreter or a flag before it.
            if shell::interpreter(&pieces[0]).is_some()
                || pieces[0].starts_with('-')
                || pieces.iter().any(|p| p.len() > MAX_PATH)
            {
                continue;
            }
            for joined in [pieces.concat(), pieces.join("/")] {
                if joined.contains(char::is_whitespace) {
                    for (_, word, r) in shell::runs(&joined) {
                        add(word, r);
                    }
                } else if let Some(r) = reader {
                    add(joined, r);
                }
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The runs of `text` at `path`, as `line path reader`, in a candidate holding `files`.
    #[track_caller]
    fn case(path: &str, text: &str, files: &[&str], expected: &[&str]) {
        let found: Vec<String> = runs(path, Lang::of(path), "", text, |p| files.contains(&p))
            .into_iter()
            .map(|r| format!("{} {} {:?}", r.line, r.path, r.reader))
            .collect();
        assert_eq!(found, expected, "{path}:\n{text}");
    }
    #[test]
    fn python_runs_scripts() {
        let python = "\
import subprocess as _subprocess
import os, pty, sys
if _subprocess.run([\"sh\", \"tools/probe.sh\"]).returncode == 0:
    pass
os.system(\"bash tools/a.sh --quiet\")
out = subprocess.check_output(\"./tools/b\", shell=True)
SCRIPT = \"tools/\" + \"c.sh\"
subprocess.Popen(
    [\"sh\", SCRIPT],
    stdout=subprocess.PIPE,
)
subprocess.run([_sys.executable, os.path.join(\"tools\", \"gen.txt\")])
pty.spawn([\"sh\", f\"{HERE}/near.sh\"])
os.execv(\"/bin/sh\", [\"sh\", \"tools/d.sh\"])
subprocess.run([\"git\", \"status\"])
subprocess.run([\"sh\", \"bin/helper.sh\"])
subprocess.run([\"python3\", \"tools/own.py\"])
subprocess.run([\"cat\", \"tools/data.txt\"])
os.system(\"sh %s\" % SCRIPT2)
os.system(f\"bash {SCRIPT3} --fast\")
SCRIPT2 = \"tools/e.sh\"
SCRIPT3 = \"tools/f.sh\"
subprocess.run([\"sh\", \"-c\", \"$(cat tools/g.txt)\"])
subprocess.run([\"sh\"], stdin=open(\"tools/h.txt\"))
";
        let files = [
            "tools/probe.sh",
            "tools/a.sh",
            "tools/b",
            "tools/c.sh",
            "tools/gen.txt",
            "pkg/near.sh",
            "tools/d.sh",
            "bin/helper.sh",
            "tools/own.py",
            "tools/data.txt",
            "status",
            "tools/e.sh",
            "tools/f.sh",
            "tools/g.txt",
            "tools/h.txt",
        ];
        let found = [
            "3 tools/probe.sh Shell",
            "5 tools/a.sh Shell",
            "6 tools/b Itself",
            "8 tools/c.sh Shell",
            "12 tools/gen.txt Python",
            "13 pkg/near.sh Shell",
            "14 tools/d.sh Shell",
            "16 bin/helper.sh Shell",
            "19 tools/e.sh Shell",
            "20 tools/f.sh Shell",
            "23 tools/g.txt Shell",
            "24 tools/h.txt Shell",
        ];
        case("pkg/calc.py", python, &files, &found);
    }

    #[test]
    fn go_node_and_rust_run_scripts() {
        let go = "\
package calc
import \"os/exec\"
func probe() bool {
\tscript := \"tools/probe.sh\"
\treturn exec.Command(\"sh\", script).Run() == nil
}
func other() { exec.CommandContext(ctx, \"./tools/b\").Run() }
";
        let files = [
            "tools/probe.sh",
            "tools/b",
            "src/t.sh",
            "src/mod.txt",
            "c/tools/r.sh",
        ];
        case(
            "calc.go",
            go,
            &files,
            &["5 tools/probe.sh Shell", "7 tools/b Itself"],
        );
        let js = "\
const { execSync, spawn, fork } = require(\"child_process\");
execSync(`sh ${__dirname}/t.sh`);
spawn(\"sh\", [path.join(__dirname, \"..\", \"tools\", \"probe.sh\")]);
fork(\"./mod.txt\");
const re = /x/; re.exec(\"tools/b\");
";
        // Read generously: a regular expression's `exec` of a string naming a file of the
        // candidate reads that file too, a finding only where the file names a test.
        let found = [
            "2 src/t.sh Shell",
            "3 tools/probe.sh Shell",
            "4 src/mod.txt Js",
            "5 tools/b Itself",
        ];
        case("src/calc.js", js, &files, &found);
        let rust = "\
use std::process::Command;
pub fn probe() -> bool {
    let ok = Command::new(\"sh\")
        .arg(\"tools/r.sh\")
        .status()
        .is_ok();
    ok
}
";
        case("c/src/lib.rs", rust, &files, &[]);
        let rust = rust.replace("tools/r.sh", "../tools/r.sh");
        case("c/src/lib.rs", &rust, &files, &["3 c/tools/r.sh Shell"]);
    }

    #[test]
    fn bindings_and_placeholders() {
        assert_eq!(binding("CMD = [", Lang::Python), Some(("CMD", 5)));
        assert_eq!(binding("x: str = ''", Lang::Python), Some(("x", 8)));
        assert_eq!(binding("\tscript := ''", Lang::Go), Some(("script", 10)));
        assert_eq!(binding("let mut p: &str = ''", Lang::Rust), Some(("p", 17)));
        assert_eq!(binding("if a == b:", Lang::Python), None);
        assert_eq!(binding("f = x => 1", Lang::Js), Some(("f", 3)));
        assert_eq!(binding("a == b", Lang::Js), None);
        assert_eq!(without_placeholder("{HERE}/probe.sh"), "probe.sh");
        assert_eq!(without_placeholder("${dir}/x"), "x");
        assert_eq!(without_placeholder("tools/x"), "tools/x");
    }
    #[test]
    fn long_lines_cost_what_reading_them_costs() {
        let n = 1 << 18;
        let line = |unit: &str| unit.repeat(n / unit.len());
        let shapes = [
            (
                "c.py",
                format!("{}\n", line("subprocess.run(\"sh\", \"x\") ")),
            ),
            ("c.py", format!("{}\n", line("run("))),
            ("c.py", format!("CMD = [{}]\nrun(CMD)\n", line("\"a\", "))),
            (
                "c.py",
                format!("X = \"{}\"\nrun(f\"{}\")\n", line("x"), line("{X}")),
            ),
            ("c.js", format!("{}\n", line("exec('a' + 'b/' + 'c'); "))),
            ("c.rs", format!("{}\n", line(".arg(\"x\")"))),
            ("t.sh", format!("x=aaaa\n{}\n", line("$x"))),
            ("t.sh", format!("{}\n", line("sh a; "))),
        ];
        let started = std::time::Instant::now();
        for (path, text) in &shapes {
            let lang = if path.ends_with(".sh") {
                Lang::Any
            } else {
                Lang::of(path)
            };
            let found = runs(path, lang, "", text, |_| false);
            assert!(found.is_empty(), "{path}");
        }
        let spent = started.elapsed();
        assert!(
            spent.as_secs() < 30,
            "{} shapes took {spent:?}",
            shapes.len()
        );
    }
}
