//! What a candidate's setup wrote into a Python install folder beyond what an honest
//! install makes: code that runs at every interpreter start, or a module no installed
//! distribution owns. Such a file is no part of the candidate, so the audit never read it,
//! and it is carried into every check tree with the products.
//!
//! Measured with pip 23.2 in a Python 3.11 venv, what honest installs write into
//! `site-packages`:
//!
//! - `python3 -m venv`: pip and setuptools with their `*.dist-info`, and setuptools's
//!   `distutils-precedence.pth`, whose one line is code (`import os; …`). The base's setup
//!   makes it too, so it is the same file there and is not looked at.
//! - `setup.py develop`: `easy-install.pth` and `calc.egg-link`, path lines only.
//! - `pip install -e .` with setuptools, a `src/` layout: `__editable__.calc-0.1.0.pth`,
//!   one path line; a flat layout (or `py-modules`): the same `.pth` holding
//!   `import __editable___calc_0_1_0_finder; __editable___calc_0_1_0_finder.install()`
//!   and the finder module, setuptools's template with three lines filled in (`MAPPING`,
//!   `NAMESPACES`, `PATH_PLACEHOLDER`, literals only).
//! - hatchling: `_editable_impl_calc.pth` with a path line; with `dev-mode-exact`,
//!   `import _editable_impl_calc` and a module of three kinds of line
//!   (`from editables.redirector import RedirectingFinder as F`, `F.install()`,
//!   `F.map_module('calc', '…')`). pdm-backend, flit and poetry-core: one path line.
//! - A dependency from the index: its files, each listed in its `*.dist-info/RECORD`;
//!   `direct_url.json` beside it only for an install from a URL or a local folder.
//!
//! So a file the candidate's setup added or changed (bytes unlike the base's products at
//! the same path) is a finding when it is:
//!
//! - `sitecustomize` or `usercustomize` of any kind, anywhere in the products (a path line
//!   of a `.pth` can put any folder of them on `sys.path`);
//! - a `.pth` of `site-packages` with a line `site` runs (one starting with `import` and a
//!   space or tab), unless the line is an editable finder's and its module is the
//!   template's, or the file is recorded by a distribution installed from an index;
//! - a file in `site-packages` that a distribution installed from a local folder lists
//!   while the candidate's tree holds no such source (setup code can record what it likes
//!   in its own wheel); else a new one no `RECORD` lists (an egg `setup.py develop`
//!   fetched for `install_requires` too: easy_install writes none), or a changed one
//!   unless a distribution the base did not have (an upgrade) records it;
//! - a Python module the setup wrote outside the venv (under `src/`, `build/`) that is no
//!   copy of a source of the candidate's: a `.pth` path line puts it on `sys.path`;
//! - an `entry_points.txt` registering a pytest plugin (`[pytest11]`) that no distribution
//!   from an index records (the audit refuses the same in the candidate's own metadata);
//! - a changed file of the venv outside `site-packages` (its `bin/python`, `pyvenv.cfg`)
//!   that no new distribution records. New scripts in `bin/` (entry points) are honest.
//!
//! node's `node_modules` has rules of its own (`hooks/node.rs`): a changed file of a
//! package whose `package.json` did not change.
//!
//! Setup code can write anything, a forged `RECORD` too: these rules catch what no install
//! makes, not an installer's records forged on purpose (left open in
//! docs/design/red-team/README.md). Bytecode (`__pycache__`) is not looked at: the
//! checks read their bytecode from a prefix of their own (`shared/pycache.rs`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::super::shared::{Finding, FindingKind, SetupProducts};
use read::{content, same};

/// The most files of the products looked at; past it the rest is a finding, so an install
/// folder cannot hide a hook behind a crowd.
const MAX_FILES: usize = 400_000;

/// What was made where: the candidate's products and the base's (when the base had any).
struct Made<'a> {
    own: &'a SetupProducts,
    base: Option<&'a SetupProducts>,
    /// Every file (or link) of the candidate's products, by its path in the tree.
    files: Vec<String>,
    /// Which `*.dist-info` folder (its path) records each path.
    recorded: BTreeMap<String, String>,
    /// The `*.dist-info` folders installed from a local folder or file (`direct_url.json`
    /// naming a `file:` URL): what they record is the candidate's own to show.
    local: BTreeSet<String>,
}

/// The first finding about what the candidate's setup (`own`) made beyond an honest
/// install, compared with the base's setup (`base`). `Ok` when there is none.
pub(crate) fn verify(base: Option<&SetupProducts>, own: &SetupProducts) -> Result<(), Finding> {
    let files = walk(own)?;
    let mut made = Made {
        own,
        base,
        files,
        recorded: BTreeMap::new(),
        local: BTreeSet::new(),
    };
    made.read_records();
    for path in &made.files {
        // A Python file is judged by its path and the records first, so the bulk
        // (bytecode, metadata) is never read, and what a rule refuses is then compared
        // with the base's bytes; a node file is compared first, as nearly all are the
        // base's and its rule reads manifests.
        let node = path.contains("node_modules/");
        if node && made.same_as_base(path) {
            continue;
        }
        if let Some(detail) = made
            .judge(path)
            .filter(|_| node || !made.same_as_base(path))
        {
            return Err(Finding {
                kind: FindingKind::Tampering,
                path: path.clone(),
                detail: format!("`[attempt] setup`, run again for the candidate, {detail}"),
            });
        }
    }
    Ok(())
}

/// Every file and link under the products' entries, in path order (links are not
/// followed). A finding when there are too many.
fn walk(own: &SetupProducts) -> Result<Vec<String>, Finding> {
    let mut files = Vec::new();
    let mut pending: Vec<String> = own
        .entries
        .iter()
        .map(|e| e.trim_end_matches('/').to_owned())
        .collect();
    while let Some(rel) = pending.pop() {
        if files.len() > MAX_FILES {
            return Err(Finding {
                kind: FindingKind::Tampering,
                path: rel,
                detail: format!(
                    "`[attempt] setup`, run again for the candidate, made more than {MAX_FILES} files: too many to read"
                ),
            });
        }
        let Ok(meta) = own.tree.join(&rel).symlink_metadata() else {
            continue;
        };
        if !meta.is_dir() {
            files.push(rel);
            continue;
        }
        let Ok(read) = std::fs::read_dir(own.tree.join(&rel)) else {
            continue;
        };
        for entry in read.flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str() else {
                // `site` reads a `.pth` by any name: one the rules cannot name is refused.
                return Err(Finding {
                    kind: FindingKind::UnreadableName,
                    path: format!("{rel}/{}", name.to_string_lossy()),
                    detail: "`[attempt] setup`, run again for the candidate, made a file whose name is not UTF-8".into(),
                });
            };
            pending.push(format!("{rel}/{name}"));
        }
    }
    files.sort();
    Ok(files)
}

/// The `site-packages` (or `dist-packages`) folder `path` is in, and its path there.
fn in_site_packages(path: &str) -> Option<(&str, &str)> {
    ["/site-packages/", "/dist-packages/"]
        .iter()
        .find_map(|dir| {
            let at = path.find(dir)?;
            Some((&path[..at + dir.len() - 1], &path[at + dir.len()..]))
        })
}

/// `dir/rel` with its `..` and `.` parts resolved (a `RECORD`'s `../../../bin/x`).
fn joined(dir: &str, rel: &str) -> String {
    let mut parts: Vec<&str> = dir.split('/').collect();
    for part in rel.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            _ => parts.push(part),
        }
    }
    parts.join("/")
}

/// The path of each line of a `RECORD` (its first CSV field).
fn record_paths(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            if let Some(quoted) = line.strip_prefix('"') {
                let mut out = String::new();
                let mut chars = quoted.chars().peekable();
                while let Some(c) = chars.next() {
                    if c == '"' {
                        if chars.peek() == Some(&'"') {
                            chars.next();
                        } else {
                            return Some(out);
                        }
                    }
                    out.push(c);
                }
                None
            } else {
                line.split(',').next().map(str::to_owned)
            }
        })
        .filter(|p| !p.is_empty())
        .collect()
}

impl Made<'_> {
    /// Reads each `*.dist-info/RECORD` of the candidate's products, and which of them
    /// were installed from a local folder.
    fn read_records(&mut self) {
        let records: Vec<String> = self
            .files
            .iter()
            .filter(|p| p.ends_with(".dist-info/RECORD"))
            .cloned()
            .collect();
        for record in records {
            let Some((site, _)) = in_site_packages(&record) else {
                continue;
            };
            let info = record.trim_end_matches("/RECORD").to_owned();
            let text = content(&self.own.tree, &record).unwrap_or_default();
            for rel in record_paths(&String::from_utf8_lossy(&text)) {
                self.recorded
                    .entry(joined(site, &rel))
                    .or_insert_with(|| info.clone());
            }
            let url = content(&self.own.tree, &format!("{info}/direct_url.json"))
                .and_then(|t| serde_json::from_slice::<serde_json::Value>(&t).ok())
                .and_then(|v| v["url"].as_str().map(str::to_owned));
            if url.is_some_and(|u| u.starts_with("file:")) {
                self.local.insert(info);
            }
        }
    }

    /// Whether the base's products hold the same thing at `path`.
    fn same_as_base(&self, path: &str) -> bool {
        self.base
            .is_some_and(|base| same(&base.tree, path, &self.own.tree, path))
    }

    /// Whether the base's products hold anything at `path`.
    fn in_base(&self, path: &str) -> bool {
        self.base
            .is_some_and(|b| speccoder_foundation::files::exists(&b.tree.join(path)))
    }

    /// Why the file `path`, new or unlike the base's, is no honest install's, or `None`.
    fn judge(&self, path: &str) -> Option<String> {
        if path.contains("node_modules/") {
            return node::judge(&self.own.tree, self.base.map(|b| b.tree.as_path()), path);
        }
        let name = path.rsplit('/').next().unwrap_or(path);
        let stem = name.split('.').next().unwrap_or(name);
        if matches!(stem, "sitecustomize" | "usercustomize") {
            return Some(format!(
                "wrote `{name}`, which Python imports at every start: code no install makes and the audit never read"
            ));
        }
        let metadata = path
            .split('/')
            .any(|p| p.ends_with(".dist-info") || p.ends_with(".egg-info"));
        if metadata && name == "entry_points.txt" {
            return self.entry_points(path);
        }
        let Some((site, rel)) = in_site_packages(path) else {
            return self.outside_site_packages(path);
        };
        let top = rel.split('/').next().unwrap_or(rel);
        if top == "__pycache__"
            || rel.contains("/__pycache__/")
            || top.ends_with(".dist-info")
            || top.ends_with(".egg-info")
            || top.ends_with(".egg-link")
        {
            return None;
        }
        if rel.ends_with(".pth") && !rel.contains('/') {
            return self.pth(site, path);
        }
        if let Some(kind) = finder_kind(rel) {
            return self.finder(site, path, kind);
        }
        self.module(path, top)
    }

    /// A distribution's `entry_points.txt`: one registering a pytest plugin (`[pytest11]`,
    /// which pytest loads into every run by itself) must be recorded by a distribution
    /// from an index, as the audit refuses it in the candidate's own metadata.
    fn entry_points(&self, path: &str) -> Option<String> {
        let text = content(&self.own.tree, path).unwrap_or_default();
        let registers = String::from_utf8_lossy(&text).lines().any(|line| {
            let line: String = line.chars().filter(|c| !c.is_whitespace()).collect();
            line.eq_ignore_ascii_case("[pytest11]")
        });
        let from_index = self
            .recorded
            .get(path)
            .is_some_and(|info| !self.local.contains(info));
        (registers && !from_index).then(|| {
            "wrote package metadata that registers a test-runner plugin (`[pytest11]`): pytest loads it into every run".into()
        })
    }

    /// A file of a venv outside its `site-packages`: a changed one must be an upgraded
    /// distribution's; a new one (an entry point's script) is honest.
    fn outside_site_packages(&self, path: &str) -> Option<String> {
        let in_venv = Path::new(path)
            .ancestors()
            .skip(1)
            .filter(|dir| !dir.as_os_str().is_empty())
            .any(|dir| {
                speccoder_foundation::files::exists(&self.own.tree.join(dir).join("pyvenv.cfg"))
            });
        if !in_venv {
            return self.beside_sources(path);
        }
        if !self.in_base(path) || self.upgraded(path) {
            return None;
        }
        Some(
            "changed this file of the venv the base's setup made, while no distribution that records it changed version"
                .into(),
        )
    }

    /// A product outside any venv and `node_modules` (under a folder the base's setup made,
    /// such as `src/` or `build/`): a Python module there is on `sys.path` through a path
    /// line, so one the candidate's code imports is code the audit never read, unless it is
    /// a copy of a source of the candidate's (`build/lib/calc/x.py` of `src/calc/x.py`).
    fn beside_sources(&self, path: &str) -> Option<String> {
        let module =
            path.ends_with(".py") || (path.ends_with(".pyc") && !path.contains("__pycache__/"));
        if !module
            || path
                .split('/')
                .any(|p| p.ends_with(".egg-info") || p.ends_with(".dist-info"))
        {
            return None;
        }
        let copy = path.match_indices('/').any(|(at, _)| {
            let rest = &path[at + 1..];
            ["", "src/"].iter().any(|dir| {
                let source = format!("{dir}{rest}");
                source != path && same(&self.own.tree, path, &self.own.tree, &source)
            })
        });
        (!copy).then(|| {
            "wrote a Python module beside the candidate's sources, which no source of the candidate's holds: code the audit never read".into()
        })
    }

    /// Whether a distribution the base's products do not hold (new, or another version)
    /// records `path`.
    fn upgraded(&self, path: &str) -> bool {
        self.recorded
            .get(path)
            .is_some_and(|info| !self.in_base(info) && !self.local.contains(info))
    }

    /// A file of `site-packages` that is neither a `.pth` nor a finder (`top` is its first
    /// name there). Installed from a local folder, it must be the candidate's own source;
    /// else a distribution must record it, and when it changed, one the base did not have
    /// (an upgrade).
    fn module(&self, path: &str, top: &str) -> Option<String> {
        let info = self.recorded.get(path);
        if info.is_some_and(|info| self.local.contains(info)) {
            return (!self.is_own_source(path)).then(|| {
                format!(
                    "installed `{top}` into site-packages from a local folder, and the candidate holds no such source file"
                )
            });
        }
        if self.in_base(path) {
            return (!self.upgraded(path)).then(|| {
                format!(
                    "changed a file of `{top}` in site-packages while no distribution that records it changed version"
                )
            });
        }
        info.is_none().then(|| {
            format!(
                "wrote `{top}` into site-packages, a module no installed distribution records and the audit never read"
            )
        })
    }

    /// Whether the candidate's tree holds `path`'s bytes as a source at its path in
    /// `site-packages` (`calc/__init__.py` as `calc/…`, `src/calc/…` or `lib/calc/…`).
    fn is_own_source(&self, path: &str) -> bool {
        let Some((site, rel)) = in_site_packages(path) else {
            return false;
        };
        // `<project>/<venv>/lib/pythonX.Y/site-packages`: the project is four names up.
        let parts: Vec<&str> = site.split('/').collect();
        let project = parts[..parts.len().saturating_sub(4)].join("/");
        let prefix = if project.is_empty() {
            project
        } else {
            format!("{project}/")
        };
        ["", "src/", "lib/"].iter().any(|dir| {
            let source = format!("{prefix}{dir}{rel}");
            same(&self.own.tree, path, &self.own.tree, &source)
        })
    }

    /// A `.pth` of `site-packages`: every line `site` executes must be an editable
    /// finder's whose module is the template's, unless a distribution from an index
    /// records the file.
    fn pth(&self, site: &str, path: &str) -> Option<String> {
        let Some(text) = content(&self.own.tree, path) else {
            return Some("wrote this `.pth`, too large to read: Python runs its `import` lines at every start".into());
        };
        let text = String::from_utf8_lossy(&text);
        let from_index = self
            .recorded
            .get(path)
            .is_some_and(|info| !self.local.contains(info));
        for (n, line) in text.lines().enumerate() {
            if !(line.starts_with("import ") || line.starts_with("import\t")) || from_index {
                continue;
            }
            let honest = finder_line(line).is_some_and(|module| {
                let file = format!("{module}.py");
                finder_kind(&file).is_some_and(|kind| {
                    self.finder(site, &format!("{site}/{file}"), kind).is_none()
                })
            });
            if !honest {
                return Some(format!(
                    "wrote line {} of this `.pth`, `{}`, which Python runs at every start: code no install makes and the audit never read",
                    n + 1,
                    line.chars().take(120).collect::<String>()
                ));
            }
        }
        None
    }

    /// An editable install's finder module at `path`: setuptools's must be the base's
    /// finder but for its three filled-in lines, which hold literals only; hatchling's
    /// (`editables`) must hold only its three kinds of line.
    fn finder(&self, site: &str, path: &str, kind: Finder) -> Option<String> {
        let text = content(&self.own.tree, path).unwrap_or_default();
        let text = String::from_utf8_lossy(&text);
        let fine = !text.is_empty()
            && match kind {
                Finder::Editables => editables_module(&text),
                Finder::Setuptools => self.setuptools_finder(site, &text),
            };
        (!fine).then(|| {
            "wrote an editable install's finder module unlike the one the install makes: code the audit never read"
                .into()
        })
    }

    /// Whether `text` is a setuptools finder like one of the base's in `site` (or its
    /// other `site-packages`), but for its filled-in lines, which hold literals only.
    fn setuptools_finder(&self, site: &str, text: &str) -> bool {
        let Some(base) = self.base else {
            return false;
        };
        if !text.lines().filter_map(filled_in).all(literal_only) {
            return false;
        }
        let Ok(read) = std::fs::read_dir(base.tree.join(site)) else {
            return false;
        };
        read.flatten().any(|entry| {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            finder_kind(&name) == Some(Finder::Setuptools)
                && content(&base.tree, &format!("{site}/{name}"))
                    .is_some_and(|b| template(&String::from_utf8_lossy(&b)) == template(text))
        })
    }
}

/// The two kinds of editable finder module an honest install writes into site-packages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Finder {
    /// setuptools's `__editable___<name>_<version>_finder.py`.
    Setuptools,
    /// hatchling's `_editable_impl_<name>.py`, through the `editables` package.
    Editables,
}

/// Which finder module `rel` (a path in site-packages) is named as, if any.
fn finder_kind(rel: &str) -> Option<Finder> {
    let name = rel.strip_suffix(".py").filter(|n| !n.contains('/'))?;
    let word = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if let Some(middle) = name
        .strip_prefix("__editable___")
        .and_then(|n| n.strip_suffix("_finder"))
    {
        return word(middle).then_some(Finder::Setuptools);
    }
    let middle = name.strip_prefix("_editable_impl_")?;
    word(middle).then_some(Finder::Editables)
}

/// The module a finder's `.pth` line imports: setuptools's
/// `import M; M.install()` or hatchling's `import M`.
fn finder_line(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("import ")?.trim_end();
    if let Some((module, call)) = rest.split_once("; ") {
        return (call == format!("{module}.install()")).then_some(module);
    }
    Some(rest)
}

/// The value of one of setuptools's three filled-in lines of its finder template.
fn filled_in(line: &str) -> Option<&str> {
    ["MAPPING: ", "NAMESPACES: ", "PATH_PLACEHOLDER = "]
        .iter()
        .find_map(|head| line.strip_prefix(head))
        .map(|rest| rest.split_once(" = ").map_or(rest, |(_, value)| value))
}

/// A finder's text without its filled-in lines: the template.
fn template(text: &str) -> Vec<&str> {
    text.lines().filter(|l| filled_in(l).is_none()).collect()
}

/// Whether `value` holds only string literals in brackets, braces, `:`, `,` and `+`.
fn literal_only(value: &str) -> bool {
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' => loop {
                match chars.next() {
                    None => return false,
                    Some('\\') => {
                        chars.next();
                    }
                    Some(end) if end == c => break,
                    Some(_) => {}
                }
            },
            '{' | '}' | '[' | ']' | ':' | ',' | '+' | ' ' => {}
            _ => return false,
        }
    }
    true
}

/// Whether `text` is a module hatchling writes for `editables`: its import, `F.install()`
/// and `F.map_module(…)` / `F.map_path(…)` lines of literals.
fn editables_module(text: &str) -> bool {
    text.lines().filter(|l| !l.trim().is_empty()).all(|line| {
        line == "from editables.redirector import RedirectingFinder as F"
            || line == "F.install()"
            || ["F.map_module(", "F.map_path("].iter().any(|head| {
                line.strip_prefix(head)
                    .and_then(|rest| rest.strip_suffix(')'))
                    .is_some_and(literal_only)
            })
    })
}

mod node;
mod read;

#[cfg(test)]
mod tests;
