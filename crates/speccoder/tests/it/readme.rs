//! The README's examples, run, so the first screen a newcomer reads cannot go stale.
//!
//! - A ```` ```console ```` block holds `$ speccoder …` lines, each followed by what it prints.
//!   Each command runs with the built binary from the repository root (the examples use the
//!   bundled fixtures, so their output is fixed), must exit 0, and must print exactly what
//!   the README shows: stdout then stderr, with the repository's path written `.` and
//!   trailing blank lines left out.
//! - A ```` ```sh ```` block holds commands a reader types to set up: each `speccoder` line
//!   runs in `fixtures/polyglot` and must succeed, each `./scripts/…` must be an executable
//!   file, and each `cargo install --path P` must name a package.
//! - CI runs the README's test command: `.ci/run` ends with it.
//! - Every relative link of the README, the other top-level documents and `docs/` names a
//!   file of the repository, and a heading of it when the link has a `#`; every design
//!   document the code cites exists, and every invariant it cites is one of
//!   `docs/design/verdict.md`.

use crate::support;

use std::path::{Path, PathBuf};

/// The repository's top folder.
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository")
}

/// A file of the repository, as text.
fn read(relative: &str) -> String {
    std::fs::read_to_string(repo().join(relative)).unwrap_or_else(|err| panic!("{relative}: {err}"))
}

/// A fenced code block: its info string, the line its first line of content is on (1-based),
/// and its lines.
struct Block<'t> {
    info: &'t str,
    first_line: usize,
    lines: Vec<&'t str>,
}

/// The fenced code blocks of a Markdown text.
fn blocks(text: &str) -> Vec<Block<'_>> {
    let mut found = Vec::new();
    let mut open: Option<Block<'_>> = None;
    for (i, line) in text.lines().enumerate() {
        match (open.as_mut(), line.strip_prefix("```")) {
            (None, Some(info)) => {
                open = Some(Block {
                    info: info.trim(),
                    first_line: i + 2,
                    lines: Vec::new(),
                });
            }
            (Some(_), Some(_)) => found.extend(open.take()),
            (Some(block), None) => block.lines.push(line),
            (None, None) => {}
        }
    }
    assert!(open.is_none(), "a code block is never closed");
    found
}

/// One example of a console block: the command after `$ `, the README line it is on, and
/// the output shown below it.
struct Example {
    line: usize,
    command: String,
    shown: String,
}

/// The examples of a console block: each `$ ` line, with the lines up to the next one.
fn examples(block: &Block<'_>) -> Vec<Example> {
    let mut found: Vec<Example> = Vec::new();
    for (i, line) in block.lines.iter().enumerate() {
        if let Some(command) = line.strip_prefix("$ ") {
            found.push(Example {
                line: block.first_line + i,
                command: command.to_owned(),
                shown: String::new(),
            });
        } else {
            let example = found.last_mut().unwrap_or_else(|| {
                panic!(
                    "README.md:{}: output before any `$ ` line",
                    block.first_line + i
                )
            });
            example.shown.push_str(line);
            example.shown.push('\n');
        }
    }
    found
}

/// Output as the README shows it: the repository's path written `.`, no trailing blank
/// lines.
fn normalised(text: &str) -> String {
    let root = repo().display().to_string();
    text.replace(&root, ".").trim_end_matches('\n').to_owned()
}

/// The words of a README command; `speccoder` first, and only plain words and single quotes.
#[track_caller]
fn words(line: usize, command: &str) -> Vec<String> {
    let words = speccoder_foundation::quote::split_words(command)
        .unwrap_or_else(|| panic!("README.md:{line}: `{command}` needs a shell to read"));
    assert_eq!(
        words.first().map(String::as_str),
        Some("speccoder"),
        "README.md:{line}: a console example runs `speccoder`; show other commands in a sh block"
    );
    words
}

/// Runs `speccoder` with `args` (after the program's name) from the repository root, as a
/// reader would from a checkout: a leading `-C DIR` is the project, else the root is.
fn run(args: &[String]) -> std::process::Output {
    let (dir, rest) = match args {
        [flag, dir, rest @ ..] if flag == "-C" => (repo().join(dir), rest),
        rest => (repo(), rest),
    };
    let rest: Vec<&str> = rest.iter().map(String::as_str).collect();
    support::speccoder(&dir, &rest)
}

#[test]
fn every_console_example_prints_what_the_readme_shows() {
    support::require_tools(&["just", "make"]);
    let readme = read("README.md");
    let mut ran = 0;
    let mut stale = Vec::new();
    for block in blocks(&readme).iter().filter(|b| b.info == "console") {
        for example in examples(block) {
            let words = words(example.line, &example.command);
            let out = run(&words[1..]);
            let printed = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            let (printed, shown) = (normalised(&printed), normalised(&example.shown));
            if printed != shown || !out.status.success() {
                stale.push(format!(
                    "README.md:{}: `$ {}` ({})\n--- the README shows:\n{shown}\n--- it prints:\n{printed}\n",
                    example.line, example.command, out.status
                ));
            }
            ran += 1;
        }
    }
    assert!(
        ran >= 3,
        "the README shows {ran} console examples, not three"
    );
    assert!(
        stale.is_empty(),
        "examples of the README differ from what speccoder prints (paste the output, or fix \
         the command):\n\n{}",
        stale.join("\n")
    );
}

#[test]
fn the_readmes_setup_commands_work() {
    let readme = read("README.md");
    let mut checked = 0;
    for block in blocks(&readme).iter().filter(|b| b.info == "sh") {
        for (i, line) in block.lines.iter().enumerate() {
            let at = block.first_line + i;
            // A comment, then a redirection, belong to the reader's shell.
            let command = line.split(" #").next().unwrap_or("");
            let command = command.split(" >").next().unwrap_or("").trim();
            if command.is_empty() {
                continue;
            }
            let words = speccoder_foundation::quote::split_words(command)
                .unwrap_or_else(|| panic!("README.md:{at}: `{command}` needs a shell to read"));
            match words.iter().map(String::as_str).collect::<Vec<_>>()[..] {
                ["speccoder", ref args @ ..] => {
                    let dir = support::fixtures_dir().join("polyglot");
                    let out = support::speccoder(&dir, args);
                    assert!(
                        out.status.success() && !out.stdout.is_empty(),
                        "README.md:{at}: `{command}` in fixtures/polyglot: {}\n{}",
                        out.status,
                        String::from_utf8_lossy(&out.stderr)
                    );
                }
                [script, ..] if script.starts_with("./scripts/") => {
                    let mode = std::fs::metadata(repo().join(script))
                        .unwrap_or_else(|err| panic!("README.md:{at}: {script}: {err}"));
                    assert!(
                        std::os::unix::fs::PermissionsExt::mode(&mode.permissions()) & 0o111 != 0,
                        "README.md:{at}: {script} is not executable"
                    );
                }
                ["cargo", "install", "--path", path, ..] => assert!(
                    repo().join(path).join("Cargo.toml").is_file(),
                    "README.md:{at}: `{command}`: {path} holds no Cargo.toml"
                ),
                _ => panic!("README.md:{at}: `{command}`: this test does not know how to check it"),
            }
            checked += 1;
        }
    }
    assert!(
        checked >= 4,
        "the README's sh blocks hold {checked} commands"
    );
}

/// The README says what its test command runs (every test); CI runs that command, so that
/// what CI runs is what the README says.
#[test]
fn ci_runs_the_readmes_test_command() {
    let readme = read("README.md");
    let command = blocks(&readme)
        .iter()
        .filter(|b| b.info == "sh")
        .flat_map(|b| b.lines.iter())
        .map(|line| line.split(" #").next().unwrap_or("").trim())
        .find(|command| command.starts_with("./scripts/test"))
        .expect("the README names ./scripts/test");
    let ci = read(".ci/run");
    let last = ci
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    assert_eq!(
        last, command,
        ".ci/run's last line is not the README's test command"
    );
}

/// The documents whose links are checked: the top-level Markdown files and `docs/`.
fn documents() -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = ["README.md", "CONTRIBUTING.md", "CHANGELOG.md"]
        .iter()
        .map(|name| repo().join(name))
        .collect();
    let mut folders = vec![repo().join("docs")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("docs/").flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// The text of a Markdown document outside its code blocks and inline code.
fn prose(text: &str) -> Vec<(usize, String)> {
    let mut fenced = false;
    let mut lines = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Every other piece between backticks is code.
        let outside: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        lines.push((i + 1, outside));
    }
    lines
}

/// The anchor GitHub gives a heading: lowercase, punctuation but `-` and `_` dropped, spaces
/// made `-`.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown document's headings.
fn anchors(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut found: Vec<String> = Vec::new();
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let base = anchor(line.trim_start_matches('#'));
        let repeats = found
            .iter()
            .filter(|a| **a == base || a.starts_with(&format!("{base}-")))
            .count();
        found.push(if repeats == 0 {
            base
        } else {
            format!("{base}-{repeats}")
        });
    }
    found
}

#[test]
fn every_relative_link_of_the_documents_resolves() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for document in documents() {
        let text = std::fs::read_to_string(&document).expect("read");
        let shown = document.strip_prefix(repo()).unwrap_or(&document).display();
        for (line, prose) in prose(&text) {
            for piece in prose.split("](").skip(1) {
                let Some(target) = piece.split(')').next() else {
                    continue;
                };
                if target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                let (path, fragment) = target.split_once('#').unwrap_or((target, ""));
                let file = if path.is_empty() {
                    document.clone()
                } else {
                    document.parent().expect("a folder").join(path)
                };
                checked += 1;
                if !file.exists() {
                    broken.push(format!("{shown}:{line}: {target}: no such file"));
                } else if !fragment.is_empty() {
                    let linked = std::fs::read_to_string(&file).unwrap_or_default();
                    if !anchors(&linked).iter().any(|a| a == fragment) {
                        broken.push(format!("{shown}:{line}: {target}: no such heading"));
                    }
                }
            }
        }
    }
    assert!(checked > 50, "only {checked} links found");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// Every `.rs` file of the repository but build outputs and fixtures.
fn rust_files() -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut folders = vec![repo()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("read dir").flatten() {
            let path = entry.path();
            let name = entry.file_name();
            if path.is_dir() {
                if !["target", ".git", "fixtures", "node_modules"]
                    .iter()
                    .any(|skip| name == *skip)
                {
                    folders.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "rs") {
                found.push(path);
            }
        }
    }
    found
}

/// The numbers of the invariants `docs/design/verdict.md` lists (`1. **Checked is …`).
fn invariants() -> Vec<u32> {
    read("docs/design/verdict.md")
        .lines()
        .filter_map(|line| {
            let (number, _) = line.trim_start().split_once(". **")?;
            number.parse().ok()
        })
        .collect()
}

#[test]
fn what_the_code_cites_of_the_design_is_in_docs() {
    let known = invariants();
    assert_eq!(
        known,
        (1..=12).collect::<Vec<_>>(),
        "docs/design/verdict.md"
    );
    let mut wrong = Vec::new();
    for file in rust_files() {
        let text = std::fs::read_to_string(&file).expect("read");
        let shown = file.strip_prefix(repo()).unwrap_or(&file).display();
        for (i, line) in text.lines().enumerate() {
            let at = format!("{shown}:{}", i + 1);
            if !line.trim_start().starts_with("//") {
                continue;
            }
            for old in ["spec/verdict.md", "spec/attempt.md"] {
                if line.contains(old) && !line.contains(&format!("docs/design/{}", &old[5..])) {
                    wrong.push(format!(
                        "{at}: cites {old}, which is docs/design/{}",
                        &old[5..]
                    ));
                }
            }
            for piece in line.split("docs/").skip(1) {
                let path: String = piece
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || matches!(c, '/' | '.' | '_' | '-'))
                    .collect();
                let path = path.trim_end_matches('.');
                if path.ends_with(".md") && !repo().join("docs").join(path).is_file() {
                    wrong.push(format!("{at}: docs/{path} does not exist"));
                }
            }
            let lower = line.to_lowercase();
            for piece in lower.split("invariant").skip(1) {
                let numbers = piece.trim_start_matches('s').trim_start();
                for number in numbers.split(" and ").take(2) {
                    let digits: String = number.chars().take_while(char::is_ascii_digit).collect();
                    if let Ok(n) = digits.parse::<u32>()
                        && !known.contains(&n)
                    {
                        wrong.push(format!(
                            "{at}: invariant {n} is not in docs/design/verdict.md"
                        ));
                    }
                    if digits.is_empty() {
                        break;
                    }
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
