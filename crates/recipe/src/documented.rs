//! What the project itself runs: the commands of its CI files (`run:` lines of GitHub
//! workflows, `script:` lines of `.gitlab-ci.yml`) and of the fenced code blocks of its
//! README, CONTRIBUTING, AGENTS.md and CLAUDE.md, read as text and never run, matched to
//! the detected tasks. The prompt puts those tasks first, marked, and takes its examples
//! from them; an ambiguous op's error names the runner they use.
//!
//! YAML is read line by line rather than with a YAML library: only `run:` keys, their block
//! scalars and `script:` lists are wanted, a library would cost build time for that, and a
//! line reader stays bounded on any input (see docs/design/dependencies.md).

use std::collections::HashMap;
use std::path::Path;

use speccoder_foundation::files;
use speccoder_foundation::quote::{quote, split_words};
use speccoder_runners::{FolderOption, Runner, Task};

use super::resolve::{op_name, resolve};

/// Where a command was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    /// A CI file.
    Ci,
    /// A README, CONTRIBUTING, AGENTS.md or CLAUDE.md code block.
    Docs,
}

/// One command line read, with the folder it runs in (`cd DIR &&`, `working-directory:`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Line {
    pub(crate) source: Source,
    pub(crate) cwd: Option<String>,
    pub(crate) text: String,
}

/// A task the project's CI or docs run, and the op that runs it as they do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DocOp<'r> {
    pub(crate) runner: &'r Runner,
    pub(crate) task: &'r Task,
    /// The op a model writes (`xtask tidy`, `py-frame/test`, `unit`).
    pub(crate) op: String,
    /// The command as the project writes it.
    pub(crate) written: String,
    pub(crate) ci: bool,
    pub(crate) docs: bool,
}

/// The tasks the project runs, found once for a prompt or an error.
#[derive(Debug, Default)]
pub(crate) struct Documented<'r> {
    /// In the order first read: CI files first, then the docs.
    pub(crate) ops: Vec<DocOp<'r>>,
    /// Each task's address, with whether CI and the docs run it.
    marks: HashMap<usize, (bool, bool)>,
}

impl Documented<'_> {
    /// How `task` is marked, when the project runs it: `CI`, `docs` or `CI, docs`.
    pub(crate) fn mark(&self, task: &Task) -> Option<&'static str> {
        match self.marks.get(&(std::ptr::from_ref(task) as usize)) {
            None => None,
            Some(&(ci, docs)) => Some(match (ci, docs) {
                (true, true) => "CI, docs",
                (true, false) => "CI",
                _ => "docs",
            }),
        }
    }

    /// Notes where `task` was read.
    fn note(&mut self, task: &Task, ci: bool, docs: bool) {
        let mark = self
            .marks
            .entry(std::ptr::from_ref(task) as usize)
            .or_insert((false, false));
        mark.0 |= ci;
        mark.1 |= docs;
    }
}

/// The most bytes read of one file.
const MAX_FILE_BYTES: u64 = 1 << 20;
/// The most workflow files read.
const MAX_WORKFLOWS: usize = 100;
/// The most command lines kept in all.
const MAX_LINES: usize = 5_000;
/// The longest command line looked at, in bytes.
const MAX_LINE_BYTES: usize = 4_096;
/// The most words of a command line looked at.
const MAX_WORDS: usize = 32;

/// The docs read, in this order.
const DOC_FILES: &[&str] = &[
    "AGENTS.md",
    "CLAUDE.md",
    "CONTRIBUTING.md",
    ".github/CONTRIBUTING.md",
    "docs/CONTRIBUTING.md",
    "README.md",
];

/// The command lines of the project's CI files and docs, bounded: files inside the root
/// only, regular, their first MiB, at most [`MAX_LINES`] lines.
pub(crate) fn read_lines(root: &Path) -> Vec<Line> {
    let inside = files::Root::new(root);
    let read = |path: &Path| -> Option<String> {
        // Resolved first: a symlinked `.github/` or `docs/` may lead out of the root.
        inside.check(path).ok()?;
        let bytes = inside.read_walked_prefix(path, MAX_FILE_BYTES).ok()?;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    };
    let mut out = Vec::new();
    let workflows = root.join(".github/workflows");
    let mut names: Vec<std::path::PathBuf> = std::fs::read_dir(&workflows)
        .into_iter()
        .flatten()
        .take(10_000)
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "yml" || e == "yaml"))
        .collect();
    names.sort();
    names.truncate(MAX_WORKFLOWS);
    for path in names {
        if let Some(text) = read(&path) {
            github_run_lines(&text, &mut out);
        }
    }
    if let Some(text) = read(&root.join(".gitlab-ci.yml")) {
        gitlab_script_lines(&text, &mut out);
    }
    for name in DOC_FILES {
        if let Some(text) = read(&root.join(name)) {
            fenced_lines(&text, &mut out);
        }
    }
    out.truncate(MAX_LINES);
    out
}

/// The indent of a line, in spaces.
fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// The value of `key:` on this line (after an optional `- `), with the key's indent.
fn key_value<'l>(line: &'l str, key: &str) -> Option<(usize, &'l str)> {
    let at = indent(line);
    let rest = &line[at..];
    let (at, rest) = match rest.strip_prefix("- ") {
        Some(after) => (at + 2 + indent(after), after.trim_start_matches(' ')),
        None => (at, rest),
    };
    let value = rest.strip_prefix(key)?.strip_prefix(':')?;
    (value.is_empty() || value.starts_with([' ', '\t'])).then(|| (at, value.trim()))
}

/// A plain or quoted YAML scalar on one line, without a trailing comment.
fn scalar(value: &str) -> String {
    let value = value.trim();
    // A quoted scalar ends at its closing quote; a comment may follow.
    if let Some(rest) = value.strip_prefix('"') {
        let mut inner = String::new();
        let mut chars = rest.chars();
        while let Some(c) = chars.next() {
            match c {
                '"' => break,
                '\\' => inner.extend(chars.next()),
                c => inner.push(c),
            }
        }
        return inner;
    }
    if let Some(rest) = value.strip_prefix('\'') {
        return rest
            .split("''")
            .map(|part| part.split('\'').next().unwrap_or(""))
            .collect::<Vec<_>>()
            .join("'");
    }
    match value.find(" #") {
        Some(at) => value[..at].trim_end().to_owned(),
        None => value.to_owned(),
    }
}

/// The lines of a block scalar starting after `lines[at]`, whose key is at `key_indent`.
fn block(lines: &[&str], at: usize, key_indent: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut body_indent = None;
    for line in &lines[at + 1..] {
        if line.trim().is_empty() {
            continue;
        }
        let ind = indent(line);
        if ind <= key_indent {
            break;
        }
        let body = *body_indent.get_or_insert(ind);
        out.push(line[ind.min(body)..].to_owned());
    }
    out
}

/// The `working-directory:` of the step `lines[at]` belongs to, from keys at `key_indent`:
/// looked for up to the line that starts the step (`- `) and down to the next one.
fn working_directory(lines: &[&str], at: usize, key_indent: usize) -> Option<String> {
    let sibling = |line: &str| -> Option<String> {
        let (ind, value) = key_value(line, "working-directory")?;
        (ind == key_indent).then(|| scalar(value))
    };
    let starts_step =
        |line: &str| indent(line) + 2 == key_indent && line.trim_start().starts_with("- ");
    let mut found = None;
    if !starts_step(lines[at]) {
        for line in lines[..at].iter().rev().take(60) {
            if line.trim().is_empty() {
                continue;
            }
            if indent(line) + 2 < key_indent {
                break;
            }
            found = sibling(line);
            if found.is_some() || starts_step(line) {
                break;
            }
        }
    }
    if found.is_none() {
        for line in lines[at + 1..].iter().take(60) {
            if line.trim().is_empty() {
                continue;
            }
            if indent(line) < key_indent {
                break;
            }
            found = sibling(line);
            if found.is_some() {
                break;
            }
        }
    }
    found
        .map(|dir| {
            dir.trim_start_matches("./")
                .trim_end_matches('/')
                .to_owned()
        })
        .filter(|dir| !dir.is_empty() && dir != "." && !dir.contains("${{"))
}

/// The `run:` commands of a GitHub workflow.
fn github_run_lines(text: &str, out: &mut Vec<Line>) {
    let lines: Vec<&str> = text.lines().collect();
    for (at, line) in lines.iter().enumerate() {
        let Some((key_indent, value)) = key_value(line, "run") else {
            continue;
        };
        let cwd = working_directory(&lines, at, key_indent);
        let body = if value.starts_with(['|', '>']) {
            block(&lines, at, key_indent)
        } else {
            vec![scalar(value)]
        };
        push_shell(&body, Source::Ci, cwd.as_deref(), out);
    }
}

/// The `script:`, `before_script:` and `after_script:` commands of `.gitlab-ci.yml`.
fn gitlab_script_lines(text: &str, out: &mut Vec<Line>) {
    let lines: Vec<&str> = text.lines().collect();
    for (at, line) in lines.iter().enumerate() {
        let Some((key_indent, value)) = ["script", "before_script", "after_script"]
            .iter()
            .find_map(|key| key_value(line, key))
        else {
            continue;
        };
        if !value.is_empty() {
            push_shell(&[scalar(value)], Source::Ci, None, out);
            continue;
        }
        let mut items = Vec::new();
        for line in &lines[at + 1..] {
            if line.trim().is_empty() {
                continue;
            }
            if indent(line) < key_indent {
                break;
            }
            match line.trim_start().strip_prefix("- ") {
                Some(item) => items.push(scalar(item)),
                None if indent(line) == key_indent => break,
                None => {}
            }
        }
        push_shell(&items, Source::Ci, None, out);
    }
}

/// Code block languages read as shell.
const SHELL_FENCES: &[&str] = &[
    "",
    "sh",
    "bash",
    "shell",
    "console",
    "zsh",
    "shell-session",
    "sh-session",
    "text",
];

/// The lines of the fenced code blocks of a markdown text whose language is a shell's.
fn fenced_lines(text: &str, out: &mut Vec<Line>) {
    let mut fence: Option<(&str, bool)> = None;
    let mut body = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        match fence {
            None => {
                let mark = if trimmed.starts_with("```") {
                    "```"
                } else if trimmed.starts_with("~~~") {
                    "~~~"
                } else {
                    continue;
                };
                let language = trimmed
                    .trim_start_matches(mark.as_bytes()[0] as char)
                    .trim();
                let language = language.split([' ', ',', '{']).next().unwrap_or("");
                fence = Some((
                    mark,
                    SHELL_FENCES.contains(&language.to_lowercase().as_str()),
                ));
            }
            Some((mark, shell)) => {
                if trimmed.starts_with(mark) {
                    if shell {
                        push_shell(&body, Source::Docs, None, out);
                    }
                    body.clear();
                    fence = None;
                } else if shell {
                    // A console transcript: the prompt's commands only.
                    let line = trimmed
                        .strip_prefix("$ ")
                        .or_else(|| trimmed.strip_prefix("% "))
                        .unwrap_or(trimmed);
                    body.push(line.to_owned());
                }
            }
        }
    }
}

/// Splits shell text into simple commands: continuation lines joined, comments dropped,
/// `&&`, `||`, `;` and `|` separating commands, `cd DIR` changing the folder of the ones
/// after it.
fn push_shell(body: &[String], source: Source, cwd: Option<&str>, out: &mut Vec<Line>) {
    let mut cwd = cwd.map(str::to_owned);
    let mut joined = String::new();
    for line in body {
        if out.len() >= MAX_LINES {
            return;
        }
        let line = line.trim();
        if let Some(start) = line.strip_suffix('\\') {
            joined.push_str(start.trim_end());
            joined.push(' ');
            if joined.len() > MAX_LINE_BYTES {
                joined.clear();
            }
            continue;
        }
        joined.push_str(line);
        let text = std::mem::take(&mut joined);
        if text.starts_with('#') || text.len() > MAX_LINE_BYTES {
            continue;
        }
        for command in text.split(['&', '|', ';']).map(str::trim) {
            if command.is_empty() {
                continue;
            }
            if out.len() >= MAX_LINES {
                return;
            }
            if let Some(dir) = command.strip_prefix("cd ") {
                let dir = dir.trim().trim_start_matches("./").trim_end_matches('/');
                cwd = match dir {
                    "" | "." | "-" | "~" => None,
                    ".." => None,
                    dir if dir.contains(['$', '`']) => None,
                    dir => Some(match &cwd {
                        Some(outer) => format!("{outer}/{dir}"),
                        None => dir.to_owned(),
                    }),
                };
                continue;
            }
            out.push(Line {
                source,
                cwd: cwd.clone(),
                text: command.to_owned(),
            });
        }
    }
}

/// The words of a command as compared: variable settings and `env` dropped, every package
/// manager spelled `npm` and its `run`/`run-script` dropped (`yarn lint`, `pnpm run lint`
/// and `npm run lint` are one script), `python3` spelled `python`.
fn canonical(command: &str) -> Option<Vec<String>> {
    Some(normalized(settings_dropped(split_words(command)?)))
}

/// A line's folder and canonical words, the folder a runner's own option names taken in
/// (`make -C py-frame test`, `just -f web/justfile e2e`, `task -d tools lint`, `npm
/// --prefix web test`); `None` when that folder is not one inside the root.
fn line_words(line: &Line) -> Option<(Option<String>, Vec<String>)> {
    let (dir, words) = redirected(settings_dropped(split_words(&line.text)?));
    let cwd = match (line.cwd.as_deref(), dir) {
        (cwd, None) => cwd.map(str::to_owned),
        (None, Some(dir)) => inside_folder(&dir)?,
        (Some(cwd), Some(dir)) => inside_folder(&format!("{cwd}/{dir}"))?,
    };
    Some((cwd, normalized(words)))
}

/// Words with variable settings and `env` dropped, at most [`MAX_WORDS`].
fn settings_dropped(mut words: Vec<String>) -> Vec<String> {
    words.truncate(MAX_WORDS);
    let settings = words
        .iter()
        .take_while(|w| w.as_str() == "env" || is_setting(w))
        .count();
    words.drain(..settings);
    words
}

/// Every package manager spelled `npm` and its `run` dropped, `python3` spelled `python`.
fn normalized(mut words: Vec<String>) -> Vec<String> {
    if let Some(first) = words.first_mut() {
        if ["npm", "pnpm", "yarn", "bun"].contains(&first.as_str()) {
            "npm".clone_into(first);
            if words
                .get(1)
                .is_some_and(|w| w == "run" || w == "run-script")
            {
                words.remove(1);
            }
        } else if first == "python3" {
            "python".clone_into(first);
        }
    }
    words
}

/// The ways a command line of `program` names the folder it runs in, as its runner says.
fn folder_options(program: &str) -> &'static [FolderOption] {
    speccoder_runners::RUNNERS
        .iter()
        .map(|def| (def.folder_options)(program))
        .find(|options| !options.is_empty())
        .unwrap_or(&[])
}

/// The folder the command's own options (or just's `just web/e2e`) run it in, relative to
/// where it is run, as written, and its words without them.
fn redirected(mut words: Vec<String>) -> (Option<String>, Vec<String>) {
    let Some(program) = words.first().cloned() else {
        return (None, words);
    };
    let options = folder_options(&program);
    let mut dir: Option<String> = None;
    while let Some(word) = words.get(1).cloned() {
        let found = options.iter().find_map(|option| {
            let (option, file) = match option {
                FolderOption::Dir(option) => (*option, false),
                FolderOption::FileIn(option) => (*option, true),
                FolderOption::PathArgument => return None,
            };
            if word == option {
                return Some((words.get(2)?.clone(), file, 2));
            }
            // `--dir=tools`; a short option's value may follow it (`-Ctools`).
            let rest = word.strip_prefix(option)?;
            let value = rest
                .strip_prefix('=')
                .or_else(|| (!option.starts_with("--") && !rest.is_empty()).then_some(rest))?;
            Some((value.to_owned(), file, 1))
        });
        let Some((value, file, taken)) = found else {
            break;
        };
        words.drain(1..1 + taken);
        let value = if file {
            match value.rsplit_once('/') {
                Some((parent, _)) => parent.to_owned(),
                None => ".".to_owned(),
            }
        } else {
            value
        };
        dir = Some(match dir {
            Some(outer) => format!("{outer}/{value}"),
            None => value,
        });
    }
    // `just web/e2e` runs `e2e` of the justfile just finds from `web/`.
    if options.contains(&FolderOption::PathArgument)
        && dir.is_none()
        && let Some(arg) = words.get(1)
        && !arg.starts_with('-')
        && let Some((folder, recipe)) = arg.rsplit_once('/')
        && !recipe.is_empty()
    {
        dir = Some(folder.to_owned());
        words[1] = recipe.to_owned();
    }
    (dir, words)
}

/// A folder written in a command, relative and inside the root, `/`-separated without `.`
/// parts: `None` for the root itself; no answer for one leaving it or not knowable.
fn inside_folder(dir: &str) -> Option<Option<String>> {
    if dir.starts_with('/') || dir.starts_with('~') || dir.contains(['$', '`']) {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in dir.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            part => parts.push(part),
        }
    }
    Some((!parts.is_empty()).then(|| parts.join("/")))
}

/// Whether a word sets a variable (`FOO=1`).
fn is_setting(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// Tasks by their folder and canonical command.
type ByCommand<'r> = HashMap<(Option<&'r str>, Vec<String>), (&'r Runner, &'r Task)>;

/// The tasks `lines` run, each once with every place it was read, in the order first read.
pub(crate) fn match_lines<'r>(runners: &[&'r Runner], lines: &[Line]) -> Documented<'r> {
    // Each task under its canonical command and folder: a line is matched by looking up
    // its own prefixes, not by a scan of every task (a monorepo has tens of thousands).
    let mut by_command: ByCommand<'r> = HashMap::new();
    for runner in runners {
        for task in &runner.tasks {
            if runner.is_pattern(task) {
                continue;
            }
            if let Some(words) = canonical(&task.command) {
                by_command
                    .entry((task.cwd.as_deref(), words))
                    .or_insert((*runner, task));
            }
        }
    }
    let mut out = Documented::default();
    for line in lines {
        let Some((cwd, words)) = line_words(line) else {
            continue;
        };
        if words.is_empty() {
            continue;
        }
        let cwd = cwd.as_deref();
        let found =
            by_task(runners, &by_command, cwd, &words).or_else(|| by_pattern(runners, cwd, &words));
        let Some((runner, task, op)) = found else {
            continue;
        };
        // The op must reach this very task as written: bare, else with its runner's id
        // (`make:test` where package.json has a `test` too).
        let reaches = |op: &str| {
            resolve(runners, op)
                .is_ok_and(|r| std::ptr::eq(r.task, task) && std::ptr::eq(r.runner, runner))
        };
        let op = if reaches(&op) {
            op
        } else {
            let prefixed = format!("{}:{op}", runner.id);
            if !reaches(&prefixed) {
                continue;
            }
            prefixed
        };
        let (ci, docs) = (line.source == Source::Ci, line.source == Source::Docs);
        out.note(task, ci, docs);
        match out
            .ops
            .iter_mut()
            .find(|o| std::ptr::eq(o.task, task) && o.op == op)
        {
            Some(known) => {
                known.ci |= ci;
                known.docs |= docs;
            }
            None => out.ops.push(DocOp {
                runner,
                task,
                op,
                written: line.text.clone(),
                ci,
                docs,
            }),
        }
    }
    out
}

/// The task whose whole command the line starts with (the longest such), and the op that
/// runs it with the line's other words.
fn by_task<'r>(
    runners: &[&'r Runner],
    by_command: &ByCommand<'r>,
    cwd: Option<&str>,
    words: &[String],
) -> Option<(&'r Runner, &'r Task, String)> {
    for len in (1..=words.len()).rev() {
        let key = (cwd, words[..len].to_vec());
        if let Some((runner, task)) = by_command.get(&key) {
            let mut op = op_name(runners, runner, task).into_owned();
            for word in &words[len..] {
                op.push(' ');
                op.push_str(&quote(word));
            }
            return Some((runner, task, op));
        }
    }
    None
}

/// A task a runner's pattern matches (make's catch-all, tox's on-demand `py312`, nox's
/// `tests-3.12`): a word of the line that the runner finds, whose command the line starts
/// with.
fn by_pattern<'r>(
    runners: &[&'r Runner],
    cwd: Option<&str>,
    words: &[String],
) -> Option<(&'r Runner, &'r Task, String)> {
    for runner in runners {
        for (at, word) in words.iter().enumerate().skip(1).take(4) {
            if word.starts_with('-') || word.contains(['/', ':']) {
                continue;
            }
            let Some((task, command)) = runner.find(word) else {
                continue;
            };
            if task.cwd.as_deref() != cwd {
                continue;
            }
            let Some(command) = canonical(&command) else {
                continue;
            };
            if words.len() >= command.len() && words[..command.len()] == command[..] {
                let mut op = format!("{}:{word}", runner.id);
                if resolve(runners, word).is_ok_and(|r| std::ptr::eq(r.task, task)) {
                    op = word.clone();
                }
                for rest in &words[command.len().max(at + 1)..] {
                    op.push(' ');
                    op.push_str(&quote(rest));
                }
                return Some((runner, task, op));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(lines: &[Line]) -> Vec<(Source, Option<&str>, &str)> {
        lines
            .iter()
            .map(|l| (l.source, l.cwd.as_deref(), l.text.as_str()))
            .collect()
    }

    /// Property: `run:` values inline, quoted and in block scalars are read, with the
    /// step's `working-directory`; other keys and `${{ }}` folders are not.
    #[test]
    fn github_workflow_run_lines() {
        let text = "jobs:\n  t:\n    steps:\n      - uses: actions/checkout@v4\n      - run: cargo test --workspace\n      - name: Tidy\n        run: |\n          cargo xtask tidy \\\n            --check\n          # a comment\n          make lint && make unit\n      - run: \"npm test\" # quoted\n      - working-directory: py-frame\n        run: make test\n      - run: make docs\n        working-directory: ./site/\n      - run: >-\n          cd sub && just build\n      - name: not a run\n        with:\n          runs: make nope\n";
        let mut out = Vec::new();
        github_run_lines(text, &mut out);
        assert_eq!(
            texts(&out),
            [
                (Source::Ci, None, "cargo test --workspace"),
                (Source::Ci, None, "cargo xtask tidy --check"),
                (Source::Ci, None, "make lint"),
                (Source::Ci, None, "make unit"),
                (Source::Ci, None, "npm test"),
                (Source::Ci, Some("py-frame"), "make test"),
                (Source::Ci, Some("site"), "make docs"),
                (Source::Ci, Some("sub"), "just build"),
            ]
        );
    }

    #[test]
    fn gitlab_script_lines_and_fences() {
        let text = "test:\n  image: rust\n  before_script:\n    - rustup component add clippy\n  script:\n    - cargo test\n    - 'make lint'\nlint:\n  script: npm run lint\n";
        let mut out = Vec::new();
        gitlab_script_lines(text, &mut out);
        assert_eq!(
            texts(&out),
            [
                (Source::Ci, None, "rustup component add clippy"),
                (Source::Ci, None, "cargo test"),
                (Source::Ci, None, "make lint"),
                (Source::Ci, None, "npm run lint"),
            ]
        );
        let md = "# x\n\n```python\nmake nope\n```\n\n```console\n$ tox -e py\nok\n```\n\n~~~\ncd py-frame\nmake test\n~~~\n```sh\nunclosed\n";
        let mut out = Vec::new();
        fenced_lines(md, &mut out);
        assert_eq!(
            texts(&out),
            [
                (Source::Docs, None, "tox -e py"),
                (Source::Docs, None, "ok"),
                (Source::Docs, Some("py-frame"), "make test"),
            ]
        );
    }

    /// Property: the readers stay bounded on hostile text: a megabyte line, a flood of
    /// `run:` keys, deep indentation.
    #[test]
    fn hostile_text_stays_bounded() {
        let long = format!("- run: make {}\n", "a".repeat(2 << 20));
        let flood = "      - run: make t\n".repeat(200_000);
        let started = std::time::Instant::now();
        let mut out = Vec::new();
        github_run_lines(&long, &mut out);
        assert!(out.is_empty());
        github_run_lines(&flood, &mut out);
        assert_eq!(out.len(), MAX_LINES);
        let mut out = Vec::new();
        fenced_lines(&format!("```\n{}```\n", "x && ".repeat(100_000)), &mut out);
        assert!(out.len() <= MAX_LINES);
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
    }

    /// Property: a runner's own folder options (and just's `DIR/recipe`) move a command
    /// into that folder, joined to a `cd`'s; one leaving the root or unknowable is dropped.
    #[test]
    fn folder_options_move_a_line() {
        let words = |cwd: Option<&str>, text: &str| {
            let line = Line {
                source: Source::Docs,
                cwd: cwd.map(str::to_owned),
                text: text.to_owned(),
            };
            line_words(&line).map(|(cwd, words)| (cwd, words.join(" ")))
        };
        let at = |cwd: &str, words: &str| Some((Some(cwd.to_owned()), words.to_owned()));
        assert_eq!(
            words(None, "make -C py-polars test"),
            at("py-polars", "make test")
        );
        assert_eq!(
            words(None, "make -Cpy-polars test"),
            at("py-polars", "make test")
        );
        assert_eq!(
            words(None, "make --directory=py-polars test"),
            at("py-polars", "make test")
        );
        assert_eq!(
            words(None, "just -f web/justfile e2e"),
            at("web", "just e2e")
        );
        assert_eq!(
            words(None, "just --justfile ./web/justfile e2e"),
            at("web", "just e2e")
        );
        assert_eq!(words(None, "just web/e2e"), at("web", "just e2e"));
        assert_eq!(words(None, "task -d tools lint"), at("tools", "task lint"));
        assert_eq!(
            words(None, "task --dir=tools lint"),
            at("tools", "task lint")
        );
        assert_eq!(
            words(None, "task -t tools/Taskfile.yml lint"),
            at("tools", "task lint")
        );
        assert_eq!(words(None, "npm --prefix web test"), at("web", "npm test"));
        assert_eq!(words(None, "pnpm -C web run build"), at("web", "npm build"));
        assert_eq!(
            words(None, "yarn --cwd docs build"),
            at("docs", "npm build")
        );
        assert_eq!(
            words(Some("apps"), "npm --prefix web test"),
            at("apps/web", "npm test")
        );
        // Back to the root, or the root itself: no folder.
        assert_eq!(
            words(Some("web"), "make -C .. test"),
            Some((None, "make test".to_owned()))
        );
        assert_eq!(
            words(None, "just -f justfile e2e"),
            Some((None, "just e2e".to_owned()))
        );
        // Out of the root, absolute, or known only when run: not matched.
        assert_eq!(words(None, "make -C ../other test"), None);
        assert_eq!(words(None, "make -C /tmp test"), None);
        assert_eq!(words(None, "task -d $DIR lint"), None);
        // Another program's `-C` is its own.
        assert_eq!(
            words(None, "git -C web status"),
            Some((None, "git -C web status".to_owned()))
        );
        // An option past the first is left as it is.
        assert_eq!(
            words(None, "make test -C web"),
            Some((None, "make test -C web".to_owned()))
        );
    }

    #[test]
    fn canonical_words() {
        let c = |s: &str| canonical(s).expect("words").join(" ");
        assert_eq!(c("yarn lint"), "npm lint");
        assert_eq!(c("pnpm run lint --fix"), "npm lint --fix");
        assert_eq!(c("npm run 'lint'"), "npm lint");
        assert_eq!(c("CI=1 env FOO=bar python3 -m pytest"), "python -m pytest");
        assert_eq!(c("env PYTHONPATH=. pytest"), "pytest");
    }
}
