//! Test infrastructure: the files (and the keys of shared manifests) that define what a
//! check runs, frozen like the tests themselves (`docs/design/verdict.md`). Three pure readings:
//! which paths are infrastructure, whether a manifest's frozen keys changed, and whether the
//! tests inside a Rust source file changed.

use std::collections::{BTreeMap, BTreeSet};

use speccoder_runners::{RUNNERS, RunnerDef, mise_files};

/// How a path is test infrastructure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Infra {
    /// The whole file is frozen; the text says what it is ("a makefile make reads").
    Whole(&'static str),
    /// A manifest that honest work also edits: only some keys are frozen
    /// (`frozen_keys_changed`).
    Keys,
}

/// What the classification needs to know of the project.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Project {
    /// A `go.mod` is in either tree: `go` builds from a module's `vendor/` when it has one.
    pub(crate) go: bool,
    /// What the checks run ([`Runs::of`]).
    pub(crate) runs: Runs,
}

/// The tools the checks run whose own configuration then decides what a check reports:
/// the linters of [`LINTERS`], and mise.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Runs {
    /// Bit `i` for `LINTERS[i]`.
    linters: u32,
    /// A check runs through mise.
    pub(crate) mise: bool,
}

impl Runs {
    /// What the checks whose text (their commands, and the files of their runners that
    /// define them) is `text` run, by the words that start each tool (`npx eslint .`,
    /// `cargo clippy`, `./node_modules/.bin/tsc`).
    pub(crate) fn of(text: &str) -> Self {
        let words: Vec<&str> = text
            .split(|c: char| !(c.is_alphanumeric() || matches!(c, '-' | '_' | '+' | '.')))
            .filter(|w| !w.is_empty())
            .collect();
        let says = |phrase: &str| {
            let mut parts = phrase.split(' ');
            let first = parts.next().unwrap_or_default();
            let then = parts.next();
            words.iter().enumerate().any(|(i, w)| {
                *w == first
                    && then.is_none_or(|then| {
                        // `cargo +nightly fmt`, `cargo --locked clippy`.
                        words[i + 1..]
                            .iter()
                            .find(|w| !w.starts_with(['+', '-']))
                            .is_some_and(|w| *w == then)
                    })
            })
        };
        let mut linters = 0;
        for (i, linter) in LINTERS.iter().enumerate() {
            if linter.runs.iter().any(|phrase| says(phrase)) {
                linters |= 1 << i;
            }
        }
        Self {
            linters,
            mise: says("mise"),
        }
    }

    /// Whether a check runs `linter`.
    fn linter(self, linter: &Linter) -> bool {
        LINTERS
            .iter()
            .position(|l| l.why == linter.why)
            .is_some_and(|i| self.linters & (1 << i) != 0)
    }
}

/// The part of the runner file `name` with `text` that says what its tasks run: the
/// scripts of a `package.json` (`scripts`), `composer.json` (`scripts`) and `deno.json(c)`
/// (`tasks`); every string value of a TOML manifest but its dependency tables and the
/// linters' own tables (a `[tool.ruff]` table configures ruff, it does not run it; a
/// dev-dependency on eslint runs nothing); any other file whole (a Makefile's recipes).
pub(crate) fn task_text(name: &str, text: &str) -> String {
    fn strings(value: &serde_json::Value, skip: &dyn Fn(&str) -> bool, out: &mut String) {
        match value {
            serde_json::Value::String(s) => {
                out.push_str(s);
                out.push('\n');
            }
            serde_json::Value::Array(items) => items.iter().for_each(|v| strings(v, skip, out)),
            serde_json::Value::Object(map) => map
                .iter()
                .filter(|(k, _)| !skip(k))
                .for_each(|(_, v)| strings(v, skip, out)),
            _ => {}
        }
    }
    let linter_tables: Vec<&str> = LINTERS
        .iter()
        .flat_map(|l| l.keys.iter())
        .filter_map(|k| k.split_once(':').map(|(_, key)| key))
        .collect();
    let skip = |key: &str| key.contains("depend") || linter_tables.contains(&key);
    let mut out = String::new();
    match name {
        "package.json" | "composer.json" | "deno.json" | "deno.jsonc" => {
            let value: serde_json::Value = if name.starts_with("deno") {
                speccoder_runners::parse::deno_config(text).unwrap_or_default()
            } else {
                serde_json::from_str(text).unwrap_or_default()
            };
            for key in ["scripts", "tasks"] {
                if let Some(v) = value.get(key) {
                    strings(v, &skip, &mut out);
                }
            }
        }
        _ if name.ends_with(".toml") => {
            let table = text.parse::<toml::Table>().unwrap_or_default();
            strings(&json(&toml::Value::Table(table)), &skip, &mut out);
        }
        _ => out.push_str(text),
    }
    out
}

/// A linter or type checker: what a check that runs it reports is what its configuration
/// says, so that configuration is frozen when a check runs it, and free otherwise.
#[derive(Debug)]
pub(crate) struct Linter {
    /// The words of a check's text that run it (two words: the second after the first,
    /// options between).
    runs: &'static [&'static str],
    /// Its configuration files by name in any folder, as [`FILE_NAMES`] matches them, from
    /// its documented lookup list.
    files: &'static [&'static str],
    /// Its tables in shared manifests: `pyproject.toml` `[tool.X]`, `package.json` keys,
    /// `setup.cfg` sections, each as `manifest:key`.
    keys: &'static [&'static str],
    /// What its configuration is.
    why: &'static str,
}

/// Each linter and type checker whose configuration a check reads when it runs it, with
/// its documented lookup list: eslint (flat `eslint.config.*`, legacy `.eslintrc*`,
/// `.eslintignore`, `package.json` `eslintConfig`), ruff (`ruff.toml`, `.ruff.toml`,
/// `[tool.ruff]`), golangci-lint (`.golangci.{yml,yaml,toml,json}`), clippy
/// (`clippy.toml`, `.clippy.toml`), rustfmt (`rustfmt.toml`, `.rustfmt.toml`), prettier
/// (`.prettierrc*`, `prettier.config.*`, `.prettierignore`, `.editorconfig`, `package.json`
/// `prettier`), mypy (`mypy.ini`, `.mypy.ini`, `[tool.mypy]`, `setup.cfg` `[mypy]`), tsc
/// (`tsconfig*.json`, `jsconfig.json`).
pub(crate) const LINTERS: &[Linter] = &[
    Linter {
        runs: &["eslint"],
        files: &[
            "eslint.config.*",
            ".eslintrc",
            ".eslintrc.*",
            ".eslintignore",
        ],
        keys: &["package.json:eslintConfig"],
        why: "eslint's configuration (a check runs eslint)",
    },
    Linter {
        runs: &["ruff"],
        files: &["ruff.toml", ".ruff.toml"],
        keys: &["pyproject.toml:ruff"],
        why: "ruff's configuration (a check runs ruff)",
    },
    Linter {
        runs: &["golangci-lint"],
        files: &[
            ".golangci.yml",
            ".golangci.yaml",
            ".golangci.toml",
            ".golangci.json",
        ],
        keys: &[],
        why: "golangci-lint's configuration (a check runs golangci-lint)",
    },
    Linter {
        runs: &["clippy", "cargo-clippy", "clippy-driver"],
        files: &["clippy.toml", ".clippy.toml"],
        keys: &[],
        why: "clippy's configuration (a check runs clippy)",
    },
    Linter {
        runs: &["rustfmt", "cargo fmt"],
        files: &["rustfmt.toml", ".rustfmt.toml"],
        keys: &[],
        why: "rustfmt's configuration (a check runs rustfmt)",
    },
    Linter {
        runs: &["prettier"],
        files: &[
            ".prettierrc",
            ".prettierrc.*",
            "prettier.config.*",
            ".prettierignore",
            ".editorconfig",
        ],
        keys: &["package.json:prettier"],
        why: "prettier's configuration (a check runs prettier)",
    },
    Linter {
        runs: &["mypy", "dmypy"],
        files: &["mypy.ini", ".mypy.ini"],
        keys: &["pyproject.toml:mypy", "setup.cfg:mypy"],
        why: "mypy's configuration (a check runs mypy)",
    },
    Linter {
        runs: &["tsc", "vue-tsc"],
        files: &["tsconfig.json", "tsconfig.*.json", "jsconfig.json"],
        keys: &[],
        why: "TypeScript's project file (a check runs tsc)",
    },
];

/// The linter of [`LINTERS`] whose configuration file `path` (a project path) is.
pub(crate) fn linter_config(path: &str) -> Option<&'static Linter> {
    LINTERS.iter().find(|linter| {
        linter
            .files
            .iter()
            .any(|pattern| matches_name(pattern, path))
    })
}

/// The keys `manifest` (a file name: `pyproject.toml`) holds for the linters `runs` says a
/// check runs.
fn linter_keys(manifest: &str, runs: Runs) -> Vec<&'static str> {
    LINTERS
        .iter()
        .filter(|linter| runs.linter(linter))
        .flat_map(|linter| linter.keys.iter())
        .filter_map(|key| key.strip_prefix(manifest)?.strip_prefix(':'))
        .collect()
}

/// The parts of the manifest `manifest` (a file name) with `text` that are the linters'
/// `keys`: a `package.json` key, a `pyproject.toml` `[tool.KEY]` table, a `setup.cfg`
/// section, each whole. A text that cannot be read gives none (the manifest's own reading
/// says so).
fn linter_parts(manifest: &str, text: &str, keys: &[&str]) -> Parts {
    let mut parts = Parts::new();
    if keys.is_empty() {
        return parts;
    }
    match manifest {
        "package.json" => {
            let value: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
            for key in keys {
                if let Some(v) = value.get(*key) {
                    parts.insert(format!("`{key}`"), v.clone());
                }
            }
        }
        "pyproject.toml" => {
            let table = text.parse::<toml::Table>().unwrap_or_default();
            for key in keys {
                if let Some(v) = table.get("tool").and_then(|t| t.get(*key)) {
                    parts.insert(format!("`[tool.{key}]`"), json(v));
                }
            }
        }
        "setup.cfg" => {
            let mut section: Option<String> = None;
            let mut lines: BTreeMap<String, Vec<String>> = BTreeMap::new();
            for line in text.lines() {
                let trimmed = line.trim();
                if trimmed.is_empty() || trimmed.starts_with(['#', ';']) {
                    continue;
                }
                if let Some(name) = trimmed.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
                    // `[mypy]` and its per-module `[mypy-pkg.*]` sections.
                    section = keys
                        .iter()
                        .any(|k| name == *k || name.starts_with(&format!("{k}-")))
                        .then(|| format!("`[{name}]`"));
                } else if let Some(label) = &section {
                    lines
                        .entry(label.clone())
                        .or_default()
                        .push(trimmed.to_owned());
                }
            }
            parts.extend(lines.into_iter().map(|(k, v)| (k, v.into())));
        }
        _ => {}
    }
    parts
}

/// Whether the repository path `path` is one of mise's configs (or their `MISE_ENV`
/// variants) in a folder above the project at `prefix` (a repository path): mise reads the
/// configs of every folder above the one it runs in, up to the file system's root; those
/// outside the repository are outside every tree the agent writes.
pub(crate) fn mise_config_above(path: &str, prefix: &str) -> bool {
    let prefix = prefix.trim_end_matches('/');
    if prefix.is_empty() {
        return false;
    }
    let ancestors =
        std::iter::once("").chain(prefix.match_indices('/').map(|(at, _)| &prefix[..at]));
    ancestors.into_iter().any(|folder| {
        let rest = if folder.is_empty() {
            Some(path)
        } else {
            path.strip_prefix(folder).and_then(|r| r.strip_prefix('/'))
        };
        rest.is_some_and(|rest| {
            mise_files::CONFIGS.contains(&rest)
                || mise_env_config(rest) && !rest.contains('/')
                || rest.strip_prefix(mise_files::CONF_D).is_some_and(|r| {
                    r.starts_with('/') && r.ends_with(".toml") && r.matches('/').count() == 1
                })
        })
    })
}

/// Whether `path` is a config mise reads with `MISE_ENV` set: the `ENV` variant of one of
/// its configs (`mise.ENV.toml`, `.config/mise/config.ENV.toml`, `mise.ENV.local.toml`), in
/// any folder for the root's names, as those are read in every folder above the tasks.
fn mise_env_config(path: &str) -> bool {
    let name = path.rsplit_once('/').map_or(path, |(_, name)| name);
    speccoder_runners::mise_files::CONFIGS
        .iter()
        .filter_map(|config| config.strip_suffix(".toml"))
        .filter(|stem| !stem.ends_with(".local"))
        .any(|stem| {
            let variant = |p: &str| {
                p.strip_prefix(stem)
                    .and_then(|rest| rest.strip_prefix('.'))
                    .and_then(|rest| rest.strip_suffix(".toml"))
                    .is_some_and(|env| !env.is_empty() && !env.contains('/'))
            };
            variant(path) || (!stem.contains('/') && variant(name))
        })
}

/// What runtime loads the files a configuration file names, when it loads any: those
/// files are code, read by the tampering scan in that language whatever their names
/// (`node-options=--require ./x.txt`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Loads {
    /// It names no code to load (or what it names is frozen another way).
    Nothing,
    /// Node (or bun) loads what it names.
    Js,
    /// Python imports what it names.
    Python,
    /// A shell runs what it names (a `script-shell`), read by the scan as a shell script.
    Shell,
}

/// What a makefile is.
const MAKEFILE: &str = "a makefile make reads";
/// What a justfile is.
const JUSTFILE: &str = "a justfile just reads";
/// What a Taskfile is.
const TASKFILE: &str = "a Taskfile go-task reads";
/// What pytest's own file is.
const PYTEST: &str = "pytest's configuration";
/// What Python runs at start-up.
const STARTUP: &str = "a module Python imports at start-up";
/// What a CI file is.
const CI: &str = "a CI definition";
/// What a mise config is.
pub(crate) const MISE: &str = "a mise config, which defines mise's tasks";
/// What PHPUnit's own file is.
const PHPUNIT: &str = "PHPUnit's configuration";
/// What an environment file is to the runners that load it (just's `dotenv-load`, bun,
/// vite, go-task's `dotenv`).
const ENV_FILE: &str = "an environment file the runners load";
/// What babel's files are: babel-jest (jest's default transform) and `@babel/register`
/// compile every test through them, plugins included.
const BABEL: &str = "babel's configuration, which compiles the tests";
/// What rustup's file is: it picks the `cargo` that runs the checks (`path` names one).
const RUSTUP: &str = "rustup's toolchain file, which picks the cargo that runs";
/// What yarn's own files are (`yarnPath` names the yarn that runs; `.pnp.cjs` is loaded
/// into every node process `yarn` starts).
pub(crate) const YARN: &str = "yarn's configuration or its runtime";
/// What a Go module's `vendor/` is: checked against `go mod vendor` when it changes
/// (`vendored::verify`).
pub(crate) const VENDOR: &str = "vendored code go builds in place of the modules";
/// What go's workspace files are: `use` and `replace` pick the code a test imports.
const GO_WORK: &str = "a go workspace file, which picks the modules the tests build";

/// Whole files by name in any folder (`*.ext` and `stem.*` as well; `name/` a folder of that
/// name and all under it), compared in lower case: just reads `Justfile` like `justfile`,
/// and on a case-insensitive disk so do the others. Each runner's and package manager's
/// own lookup list, as its documentation gives it: npm (`.npmrc` in the project, which
/// pnpm and yarn 1 also read), yarn 1 (`.yarnrc`), yarn 2+ (`.yarnrc.yml`, the `yarnPath`
/// releases and plugins under `.yarn/`, the `.pnp.*` loaders), pnpm (`.pnpmfile.cjs`,
/// `.pnpmfile.mjs`), bun (`bunfig.toml`), babel (`babel.config.*` and `.babelrc*`), jest,
/// vitest and vite (which vitest reads when there is no `vitest.config.*`; read as code,
/// [`READ_AS_CODE`]), mocha, ava,
/// rustup (`rust-toolchain`, `rust-toolchain.toml`), cargo (`.cargo/config.toml` and
/// `.cargo/config`, below), go (`go.work`, `go.work.sum`; `vendor/` beside a `go.mod`,
/// below), pytest (`pytest.ini`, `.pytest.ini`, `pytest.toml`, `.pytest.toml`, `conftest.py`;
/// `setup.cfg`'s and `pyproject.toml`'s sections are keys), tox, nox, Python's start-up
/// files, the task runners' (mise's configs anywhere; its others, below), PHPUnit's.
const FILE_NAMES: &[(&str, &str, Loads)] = &[
    ("*.just", "a module or import of a justfile", Loads::Nothing),
    ("*.mk", "a make include file", Loads::Nothing),
    (
        "*.pth",
        "a path file Python runs at start-up",
        Loads::Python,
    ),
    (".babelrc", BABEL, Loads::Js),
    (".babelrc.*", BABEL, Loads::Js),
    (".env", ENV_FILE, Loads::Nothing),
    (".env.*", ENV_FILE, Loads::Nothing),
    (".justfile", JUSTFILE, Loads::Nothing),
    (".mise.local.toml", MISE, Loads::Nothing),
    (".mise.toml", MISE, Loads::Nothing),
    (".mocharc.*", "mocha's configuration", Loads::Js),
    (
        ".npmrc",
        "npm's configuration (pnpm's and yarn 1's too)",
        Loads::Js,
    ),
    (".pnp.cjs", YARN, Loads::Js),
    (".pnp.loader.mjs", YARN, Loads::Js),
    (".pnpmfile.cjs", "pnpm's hooks", Loads::Js),
    (".pnpmfile.mjs", "pnpm's hooks", Loads::Js),
    (".pytest.ini", PYTEST, Loads::Python),
    (".pytest.toml", PYTEST, Loads::Python),
    (".yarn/plugins/", YARN, Loads::Nothing),
    (".yarn/releases/", YARN, Loads::Nothing),
    (".yarnrc", YARN, Loads::Js),
    (".yarnrc.yml", YARN, Loads::Js),
    ("ava.config.*", "ava's configuration", Loads::Js),
    ("babel.config.*", BABEL, Loads::Js),
    ("bunfig.toml", "bun's configuration", Loads::Js),
    ("conftest.py", "a conftest pytest loads", Loads::Python),
    ("gnumakefile", MAKEFILE, Loads::Nothing),
    ("go.work", GO_WORK, Loads::Nothing),
    ("go.work.sum", GO_WORK, Loads::Nothing),
    ("jest.config.*", "jest's configuration", Loads::Js),
    ("justfile", JUSTFILE, Loads::Nothing),
    ("makefile", MAKEFILE, Loads::Nothing),
    ("mise.local.toml", MISE, Loads::Nothing),
    ("mise.toml", MISE, Loads::Nothing),
    ("noxfile.py", "nox's sessions", Loads::Python),
    ("phpunit.dist.xml", PHPUNIT, Loads::Nothing),
    ("phpunit.xml", PHPUNIT, Loads::Nothing),
    ("phpunit.xml.dist", PHPUNIT, Loads::Nothing),
    ("pytest.ini", PYTEST, Loads::Python),
    ("pytest.toml", PYTEST, Loads::Python),
    ("rust-toolchain", RUSTUP, Loads::Nothing),
    ("rust-toolchain.toml", RUSTUP, Loads::Nothing),
    ("sitecustomize.py", STARTUP, Loads::Python),
    ("taskfile.dist.yaml", TASKFILE, Loads::Nothing),
    ("taskfile.dist.yml", TASKFILE, Loads::Nothing),
    ("taskfile.yaml", TASKFILE, Loads::Nothing),
    ("taskfile.yml", TASKFILE, Loads::Nothing),
    ("tox.ini", "tox's configuration", Loads::Python),
    ("usercustomize.py", STARTUP, Loads::Python),
    (
        "vite.config.*",
        "vite's configuration, which vitest reads",
        Loads::Js,
    ),
    ("vitest.config.*", "vitest's configuration", Loads::Js),
    ("vitest.workspace.*", "vitest's workspace", Loads::Js),
];
/// Entries of [`FILE_NAMES`] read as code rather than frozen: the tampering scan reads the
/// file itself and the files it names. vite's config is the product's build config (its
/// plugins, its `build` options) as much as vitest's, and it is a program: the `test` key
/// that steers vitest may be computed (`["te" + "st"]`, a spread, another module), so no
/// reading of keys can freeze it alone. What it could do to a check is caught elsewhere:
/// a transform that rewrites assertions makes the twins pass (invariant 12 of
/// docs/design/verdict.md); a setup file or reporter it names is read as code; tests it
/// leaves out did not run, which fails the check.
const READ_AS_CODE: &[&str] = &["vite.config.*"];
/// CI files and folders (ending in `/`) at the project root.
const CI_PATHS: &[&str] = &[
    ".buildkite/",
    ".ci/",
    ".circleci/",
    ".github/",
    ".gitlab-ci.yml",
    ".travis.yml",
    "Jenkinsfile",
    "azure-pipelines.yml",
];
/// Shared manifests, in any folder: only their frozen keys are infrastructure.
const KEYED_MANIFESTS: &[&str] = &[
    "Cargo.toml",
    "composer.json",
    "deno.json",
    "deno.jsonc",
    "go.mod",
    "package.json",
    "pixi.toml",
    "pyproject.toml",
    "setup.cfg",
];
/// Folder names that make `__init__.py` and `__main__.py` part of a test suite (pytest's
/// test folders; a `testing` package is product code).
const TEST_FOLDERS: &[&str] = &["test", "tests"];

/// Whether and how `path` (relative to the project root, `/`-separated) is test
/// infrastructure.
pub(crate) fn classify(path: &str, project: Project) -> Option<Infra> {
    let (folder, name) = path.rsplit_once('/').unwrap_or(("", path));
    let folders: Vec<&str> = folder.split('/').collect();
    let whole = if CI_PATHS
        .iter()
        .any(|ci| path == *ci || ci.ends_with('/') && path.starts_with(ci))
    {
        Some(CI)
    } else if path == speccoder_config::CONFIG_FILE {
        Some("speccoder's configuration")
    } else if let Some((pattern, why, _)) = steering(path)
        && !READ_AS_CODE.contains(pattern)
    {
        Some(*why)
    } else if let Some(linter) = linter_config(path)
        && project.runs.linter(linter)
    {
        Some(linter.why)
    } else if mise_files::CONFIGS.contains(&path)
        || path.starts_with(&format!("{}/", mise_files::CONF_D)) && name.ends_with(".toml")
        || project.runs.mise && (mise_env_config(path) || name == ".tool-versions")
    {
        Some(MISE)
    } else if mise_files::TASK_DIRS
        .iter()
        .any(|dir| path.starts_with(&format!("{dir}/")))
    {
        Some("a file of a mise task folder, which defines mise's tasks")
    } else if name == "build.rs" && !folders.contains(&"src") {
        // Cargo runs the `build.rs` beside a manifest; one under `src/` is a module.
        Some("a build script cargo runs")
    } else if folders.last() == Some(&".cargo") && matches!(name, "config" | "config.toml") {
        Some("cargo's configuration")
    } else if project.go && folders.contains(&"vendor") {
        // `go mod vendor`'s copy of the dependencies, which `go test` builds instead of
        // the module cache when `vendor/modules.txt` is there (go 1.14 and later).
        Some(VENDOR)
    } else if matches!(name, "__init__.py" | "__main__.py")
        && folders.iter().any(|f| TEST_FOLDERS.contains(f))
    {
        Some("a package file of a test folder")
    } else {
        None
    };
    match whole {
        Some(why) => Some(Infra::Whole(why)),
        None => KEYED_MANIFESTS.contains(&name).then_some(Infra::Keys),
    }
}

/// The entry of [`FILE_NAMES`] that `path` (a project path) matches, if one does.
pub(crate) fn steering(path: &str) -> Option<&'static (&'static str, &'static str, Loads)> {
    let name = path.rsplit_once('/').map_or(path, |(_, name)| name);
    let lower = name.to_ascii_lowercase();
    let lower_path = path.to_ascii_lowercase();
    FILE_NAMES
        .iter()
        .find(|(pattern, _, _)| matches_lower(pattern, &lower, &lower_path))
}

/// Whether `path` (a project path) matches `pattern` as [`FILE_NAMES`] reads patterns.
fn matches_name(pattern: &str, path: &str) -> bool {
    let name = path.rsplit_once('/').map_or(path, |(_, name)| name);
    matches_lower(
        pattern,
        &name.to_ascii_lowercase(),
        &path.to_ascii_lowercase(),
    )
}

/// [`matches_name`] over the name and the path in lower case.
fn matches_lower(pattern: &str, lower: &str, lower_path: &str) -> bool {
    if let Some(folder) = pattern.strip_suffix('/') {
        return lower_path.starts_with(pattern) || lower_path.contains(&format!("/{folder}/"));
    }
    match pattern.split_once('*') {
        // `*.ext`, `stem.*`, `stem.*.ext`.
        Some((stem, ext)) => {
            lower.len() > stem.len() + ext.len() && lower.starts_with(stem) && lower.ends_with(ext)
        }
        None => lower == pattern,
    }
}

/// The most files one configuration file may name as code to load.
const MAX_NAMED_LOADS: usize = 64;

/// The project files (existing in the candidate, by `exists`) that the configuration file
/// at `path` (a project path) with `text` names as code its runtime loads, each with the
/// language it is loaded as: every word of it that, read from the file's folder, is such a
/// file (`--require ./x.txt`, `yarn-path ".yarn/x.js"`, `plugins: ["./p.js"]`, `-p plugin`
/// as `plugin.py`). Reading words, not each tool's syntax, finds a name whatever key or
/// flag carries it; the keys of [`SHELL_KEYS`] name a shell script instead.
pub(crate) fn loaded_by(
    path: &str,
    text: &str,
    exists: impl Fn(&str) -> bool,
) -> Vec<(String, Loads)> {
    let Some((_, _, loads)) = steering(path) else {
        return Vec::new();
    };
    if *loads == Loads::Nothing {
        return Vec::new();
    }
    let folder = path.rsplit_once('/').map_or("", |(f, _)| f);
    let name = path.rsplit_once('/').map_or(path, |(_, name)| name);
    let mut found: Vec<(String, Loads)> = Vec::new();
    for line in text.lines() {
        let key = line.split('=').next().unwrap_or("").trim();
        let loads = if SHELL_KEYS.contains(&(name, key)) {
            Loads::Shell
        } else {
            *loads
        };
        let words = line.split(|c: char| {
            c.is_whitespace()
                || matches!(
                    c,
                    '"' | '\'' | '`' | '=' | ',' | '[' | ']' | '(' | ')' | '{' | '}' | ';'
                )
        });
        for word in words.filter(|w| !w.is_empty() && w.len() < 512) {
            let word = word.trim_start_matches("<rootDir>/").trim_end_matches(':');
            let candidates: Vec<String> = match loads {
                Loads::Nothing => return Vec::new(),
                Loads::Shell => vec![word.to_owned()],
                Loads::Js => ["", ".js", ".cjs", ".mjs", ".ts", "/index.js"]
                    .iter()
                    .map(|ext| format!("{word}{ext}"))
                    .collect(),
                Loads::Python => {
                    let module = word.replace('.', "/");
                    vec![
                        word.to_owned(),
                        format!("{module}.py"),
                        format!("{module}/__init__.py"),
                    ]
                }
            };
            let hit = candidates
                .iter()
                .filter_map(|c| join_rel(folder, c))
                .find(|c| c != path && exists(c));
            if let Some(hit) = hit
                && !found.iter().any(|(f, _)| *f == hit)
            {
                found.push((hit, loads));
                if found.len() >= MAX_NAMED_LOADS {
                    return found;
                }
            }
        }
    }
    found
}

/// Keys of configuration files (file name, key) whose value is a shell script the tool
/// runs: npm's (and pnpm's) `script-shell` runs every script of `package.json`.
const SHELL_KEYS: &[(&str, &str)] = &[(".npmrc", "script-shell")];

/// `rel` read from `folder`, both project paths; `None` when it leaves the project or is
/// absolute.
fn join_rel(folder: &str, rel: &str) -> Option<String> {
    if rel.is_empty() || rel.starts_with('/') {
        return None;
    }
    let mut parts: Vec<&str> = folder.split('/').filter(|p| !p.is_empty()).collect();
    for part in rel.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            part => parts.push(part),
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// The runner that reads `path` (a project path) and follows what it includes, when one
/// does (a makefile, justfile or Taskfile).
pub(crate) fn runner_file(path: &str) -> Option<&'static RunnerDef> {
    let name = path.rsplit_once('/').map_or(path, |(_, name)| name);
    RUNNERS
        .iter()
        .find(|def| def.included.is_some() && def.reads_file(name))
}

/// The files that the runner file `path` (a makefile, justfile or Taskfile, a project
/// path) makes its runner read, as project paths, whether they exist or not (each
/// runner's `included` says which it names). Names built from variables or globs are left
/// out (the file names frozen anywhere cover the usual ones), and so are names outside the
/// project.
pub(crate) fn included(path: &str, text: &str) -> Vec<String> {
    let folder = path.rsplit_once('/').map_or("", |(f, _)| f);
    let join = |rel: &str| -> Option<String> {
        let rel = rel.trim().trim_matches(['\'', '"']);
        if rel.contains(['$', '*', '?', '[', '{']) {
            return None;
        }
        join_rel(folder, rel)
    };
    let named = runner_file(path)
        .and_then(|def| def.included)
        .map(|named_in| named_in(text))
        .unwrap_or_default();
    let mut found: Vec<String> = named.iter().filter_map(|rel| join(rel)).collect();
    found.sort();
    found.dedup();
    found
}

/// Keys of `package.json` that configure a test runner, babel (which compiles the tests),
/// or which package manager runs and how (`packageManager`, `pnpm`), frozen whole
/// (`scripts` is frozen script by script).
const PACKAGE_JSON_KEYS: &[&str] = &[
    "ava",
    "babel",
    "jest",
    "mocha",
    "packageManager",
    "pnpm",
    "vitest",
];
/// `[package]` keys of `Cargo.toml` that decide which targets cargo finds, or what it runs
/// before them.
const PACKAGE_KEYS: &[&str] = &["autobins", "autoexamples", "autolib", "autotests", "build"];
/// Keys of a `Cargo.toml` target that decide whether and how `cargo test` runs it.
const TARGET_KEYS: &[&str] = &["doctest", "harness", "path", "required-features", "test"];
/// Tables under `[tool]` of `pyproject.toml` that configure a test or task runner, frozen
/// key by key (and each hatch environment's `scripts`); `uv`'s, whose `sources` can put a
/// local folder in place of a package `uv run` installs.
const PYPROJECT_TABLES: &[&str] = &[
    "nox",
    "pdm.scripts",
    "pixi.environments",
    "pixi.tasks",
    "poe.tasks",
    "pytest",
    "pytest.ini_options",
    "tox",
    "uv",
];

/// The frozen parts of one manifest, by the label a detail names them with, as JSON values
/// (key order inside objects does not count).
type Parts = BTreeMap<String, serde_json::Value>;

/// For an `Infra::Keys` path: `None` when the frozen parts of `old` and `new` are equal,
/// else a detail naming what changed. `None` for a side means the file is absent there.
#[cfg(test)]
fn frozen_keys_changed(path: &str, old: Option<&str>, new: Option<&str>) -> Option<String> {
    frozen_keys_changed_in(path, old, new, Runs::default(), &|_| false)
}

/// [`frozen_keys_changed`], where `member` says whether a folder (a project path) is a
/// crate of the candidate's cargo workspace: a new dev-dependency from such a folder is
/// the project's own code, whose new or changed sources the tampering scan reads as code
/// (a helper that sits outside every workspace is the tests' alone, and stays frozen).
pub(crate) fn frozen_keys_changed_in(
    path: &str,
    old: Option<&str>,
    new: Option<&str>,
    runs: Runs,
    member: &dyn Fn(&str) -> bool,
) -> Option<String> {
    let manifest = path.rsplit('/').next().unwrap_or(path);
    let linters = linter_keys(manifest, runs);
    let read: fn(&str) -> Result<Parts, String> = match manifest {
        "Cargo.toml" => cargo_parts,
        "package.json" => package_json_parts,
        "composer.json" => composer_json_parts,
        "deno.json" | "deno.jsonc" => deno_json_parts,
        "pixi.toml" => pixi_toml_parts,
        "pyproject.toml" => pyproject_parts,
        "setup.cfg" => |text| Ok(setup_cfg_parts(text)),
        "go.mod" => |text| Ok(go_mod_parts(text)),
        _ => return None,
    };
    let side = |text: Option<&str>| {
        text.map_or_else(
            || Ok(Parts::new()),
            |text| {
                let mut parts = read(text)?;
                parts.extend(linter_parts(manifest, text, &linters));
                Ok(parts)
            },
        )
    };
    let (before, now) = match (side(old), side(new)) {
        (Ok(before), Ok(now)) => (before, now),
        (Ok(_), Err(err)) => return Some(err),
        (Err(err), Ok(_)) => return Some(format!("the base's version {err}")),
        // Neither side says what is frozen, so any edit counts.
        (Err(_), Err(err)) => return (old != new).then_some(err),
    };
    let labels: BTreeSet<&String> = before.keys().chain(now.keys()).collect();
    let folder = path.rsplit_once('/').map_or("", |(f, _)| f);
    let workspace_crate = |label: &str, value: &serde_json::Value| {
        label.starts_with("`[dev-dependencies]")
            && label.ends_with(FROM_A_FOLDER)
            && value
                .as_str()
                .and_then(|p| join_rel(folder, p.trim_end_matches('/')))
                .is_some_and(|p| p != folder && member(&p))
    };
    let changes: Vec<String> = labels
        .into_iter()
        .filter_map(|label| match (before.get(label), now.get(label)) {
            (Some(a), Some(b)) if a != b => Some(format!("{label} changed")),
            (Some(_), None) => Some(format!("{label} removed")),
            (None, Some(b)) if workspace_crate(label, b) => None,
            (None, Some(_)) => Some(format!("{label} added")),
            _ => None,
        })
        .collect();
    (!changes.is_empty()).then(|| changes.join("; "))
}

/// The frozen parts of a `package.json`: each script, and the test runners' keys.
fn package_json_parts(text: &str) -> Result<Parts, String> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|err| format!("cannot be read as JSON: {err}"))?;
    let object = value
        .as_object()
        .ok_or("cannot be read as JSON: not an object")?;
    let mut parts = Parts::new();
    match object.get("scripts") {
        Some(serde_json::Value::Object(scripts)) => {
            for (name, script) in scripts {
                parts.insert(format!("`scripts.{name}`"), script.clone());
            }
        }
        Some(other) => _ = parts.insert("`scripts`".to_owned(), other.clone()),
        None => {}
    }
    for key in PACKAGE_JSON_KEYS {
        if let Some(value) = object.get(*key) {
            parts.insert(format!("`{key}`"), value.clone());
        }
    }
    Ok(parts)
}

/// Keys of `composer.json` that decide what its scripts and PHPUnit load, frozen whole
/// (`scripts` is frozen script by script).
const COMPOSER_JSON_KEYS: &[&str] = &["autoload-dev"];

/// The frozen parts of a `composer.json`: each script, and the test autoloading.
fn composer_json_parts(text: &str) -> Result<Parts, String> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|err| format!("cannot be read as JSON: {err}"))?;
    let object = value
        .as_object()
        .ok_or("cannot be read as JSON: not an object")?;
    let mut parts = Parts::new();
    each_entry(&mut parts, "scripts", object.get("scripts"));
    for key in COMPOSER_JSON_KEYS {
        if let Some(value) = object.get(*key) {
            parts.insert(format!("`{key}`"), value.clone());
        }
    }
    Ok(parts)
}

/// The frozen parts of a `deno.json(c)`: each task, `test` (what `deno test` runs) and the
/// workspace members.
fn deno_json_parts(text: &str) -> Result<Parts, String> {
    let value = speccoder_runners::parse::deno_config(text)
        .map_err(|err| format!("cannot be read as JSONC: {err}"))?;
    let mut parts = Parts::new();
    each_entry(&mut parts, "tasks", value.get("tasks"));
    for key in ["test", "workspace"] {
        if let Some(value) = value.get(key) {
            parts.insert(format!("`{key}`"), value.clone());
        }
    }
    Ok(parts)
}

/// Each entry of the object at `key` as a part of its own (`scripts.test`), or the value
/// whole when it is not an object.
fn each_entry(parts: &mut Parts, key: &str, value: Option<&serde_json::Value>) {
    match value {
        Some(serde_json::Value::Object(entries)) => {
            for (name, entry) in entries {
                parts.insert(format!("`{key}.{name}`"), entry.clone());
            }
        }
        Some(other) => _ = parts.insert(format!("`{key}`"), other.clone()),
        None => {}
    }
}

/// The frozen parts of a `pixi.toml`: each task of the default feature, of each feature and
/// of each platform, and the environments (which decide where a task runs).
fn pixi_toml_parts(text: &str) -> Result<Parts, String> {
    let manifest = read_toml(text)?;
    let mut parts = Parts::new();
    let mut tasks = |section: String, value: Option<&toml::Value>| match value {
        Some(toml::Value::Table(table)) => {
            for (name, task) in table {
                parts.insert(format!("`[{section}] {name}`"), json(task));
            }
        }
        Some(other) => _ = parts.insert(format!("`[{section}]`"), json(other)),
        None => {}
    };
    tasks("tasks".to_owned(), manifest.get("tasks"));
    for group in ["feature", "target"] {
        let table = manifest.get(group).and_then(toml::Value::as_table);
        for (name, value) in table.into_iter().flatten() {
            tasks(format!("{group}.{name}.tasks"), value.get("tasks"));
        }
    }
    if let Some(environments) = manifest.get("environments") {
        parts.insert("`[environments]`".to_owned(), json(environments));
    }
    Ok(parts)
}

/// `text` as a TOML table, or why it cannot be read, with the line.
fn read_toml(text: &str) -> Result<toml::Table, String> {
    text.parse::<toml::Table>().map_err(|err| {
        let at = err.span().map_or(0, |span| span.start.min(text.len()));
        let line = text.as_bytes()[..at].split(|b| *b == b'\n').count();
        format!("cannot be read as TOML: {} (line {line})", err.message())
    })
}

/// A TOML value as JSON, so that every manifest's parts compare alike.
fn json(value: &toml::Value) -> serde_json::Value {
    serde_json::to_value(value).unwrap_or_default()
}

/// How a detail names a dev-dependency taken from a folder, after its name.
const FROM_A_FOLDER: &str = " from a folder";

/// Whether the folder `dependency` (a project path) is a crate of the cargo workspace whose
/// root manifest, at `root` (a project path), holds `text`: cargo makes every path
/// dependency inside a workspace's folder one of its members, and so is every folder its
/// `members` name, unless `exclude` names it.
pub(crate) fn workspace_member(root: &str, text: &str, dependency: &str) -> bool {
    let Ok(manifest) = text.parse::<toml::Table>() else {
        return false;
    };
    let Some(workspace) = manifest.get("workspace") else {
        return false;
    };
    let folder = root.rsplit_once('/').map_or("", |(f, _)| f);
    let listed = |key: &str| -> Vec<String> {
        workspace
            .get(key)
            .and_then(toml::Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(toml::Value::as_str)
            .filter_map(|m| join_rel(folder, m.trim_end_matches('/')))
            .collect()
    };
    let names = |list: &[String]| {
        list.iter().any(|m| match m.strip_suffix('*') {
            Some(prefix) => dependency.starts_with(prefix),
            None => dependency == m || dependency.starts_with(&format!("{m}/")),
        })
    };
    let inside = folder.is_empty() || dependency.starts_with(&format!("{folder}/"));
    inside && !names(&listed("exclude"))
}

/// The frozen parts of a `Cargo.toml`: what decides what `cargo test` builds and runs.
fn cargo_parts(text: &str) -> Result<Parts, String> {
    let manifest = read_toml(text)?;
    let mut parts = Parts::new();
    let mut put = |label: String, value: Option<&toml::Value>| {
        if let Some(value) = value {
            parts.insert(label, json(value));
        }
    };
    let (package, lib) = (manifest.get("package"), manifest.get("lib"));
    for key in PACKAGE_KEYS {
        let value = package.and_then(|p| p.get(*key));
        put(format!("`[package] {key}`"), value);
    }
    for key in TARGET_KEYS {
        put(format!("`[lib] {key}`"), lib.and_then(|l| l.get(*key)));
    }
    // Targets are matched by name, else by position.
    for kind in ["bin", "example", "test"] {
        let Some(value) = manifest.get(kind) else {
            continue;
        };
        let one = std::slice::from_ref(value);
        let targets = value.as_array().map_or(one, Vec::as_slice);
        for (i, target) in targets.iter().enumerate() {
            let name = target.get("name").and_then(|n| n.as_str());
            let name = name.map_or_else(|| format!("#{}", i + 1), |name| format!("`{name}`"));
            if kind == "test" {
                put(format!("`[[test]]` target {name}"), Some(target));
            }
            for key in TARGET_KEYS.iter().filter(|_| kind != "test") {
                let label = format!("`[[{kind}]]` target {name}: `{key}`");
                put(label, target.get(*key));
            }
        }
    }
    let profile = manifest.get("profile").and_then(|p| p.get("test"));
    put("`[profile.test]`".to_owned(), profile);
    // A dev-dependency from a folder is the tests' own helper: pointing it elsewhere, or
    // at a copy, changes what the tests assert with.
    let targets = manifest.get("target").and_then(toml::Value::as_table);
    let tables = std::iter::once(("", manifest.get("dev-dependencies"))).chain(
        targets
            .into_iter()
            .flatten()
            .map(|(cfg, t)| (cfg.as_str(), t.get("dev-dependencies"))),
    );
    for (cfg, table) in tables {
        let Some(table) = table.and_then(toml::Value::as_table) else {
            continue;
        };
        for (name, dependency) in table {
            let at = if cfg.is_empty() {
                String::new()
            } else {
                format!(" ({cfg})")
            };
            put(
                format!("`[dev-dependencies]{at} {name}`{FROM_A_FOLDER}"),
                dependency.get("path"),
            );
        }
    }
    Ok(parts)
}

/// The folders (project paths) of the crates the `Cargo.toml` at `path` takes from a folder
/// as dev-dependencies and for nothing else: the tests' own helpers, which honest work on
/// the crate has no reason to change. The crate itself (`path = "."`) is not one.
pub(crate) fn test_helper_crates(path: &str, text: &str) -> Vec<String> {
    let Ok(manifest) = text.parse::<toml::Table>() else {
        return Vec::new();
    };
    let folder = path.rsplit_once('/').map_or("", |(f, _)| f);
    let targets = manifest.get("target").and_then(toml::Value::as_table);
    let section = |name: &str| -> Vec<&toml::Value> {
        manifest
            .get(name)
            .into_iter()
            .chain(
                targets
                    .into_iter()
                    .flatten()
                    .filter_map(|(_, t)| t.get(name)),
            )
            .collect()
    };
    let names = |tables: Vec<&toml::Value>| -> Vec<(String, Option<String>)> {
        tables
            .into_iter()
            .filter_map(toml::Value::as_table)
            .flatten()
            .map(|(name, d)| {
                let path = d
                    .get("path")
                    .and_then(toml::Value::as_str)
                    .map(str::to_owned);
                (name.clone(), path)
            })
            .collect()
    };
    let used: Vec<(String, Option<String>)> =
        [section("dependencies"), section("build-dependencies")]
            .into_iter()
            .flat_map(names)
            .collect();
    // A workspace member is code of its own (a library an integration-test crate takes as
    // a dev-dependency is the code under test), and so is a crate beside this one: a helper
    // sits inside the package's folder and belongs to no workspace.
    let members: Vec<String> = manifest
        .get("workspace")
        .and_then(|w| w.get("members"))
        .and_then(toml::Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(toml::Value::as_str)
        .filter_map(|m| join_rel(folder, m.trim_end_matches('/')))
        .collect();
    let member = |p: &str| {
        members.iter().any(|m| match m.strip_suffix('*') {
            Some(prefix) => p.starts_with(prefix),
            None => p == m,
        })
    };
    let inside = |p: &str| folder.is_empty() || p.starts_with(&format!("{folder}/"));
    let mut found: Vec<String> = names(section("dev-dependencies"))
        .into_iter()
        .filter(|(name, _)| !used.iter().any(|(n, _)| n == name))
        .filter_map(|(_, p)| join_rel(folder, p.as_deref()?.trim_end_matches('/')))
        .filter(|p| !p.is_empty() && p != folder && inside(p) && !member(p))
        .collect();
    found.sort();
    found.dedup();
    found
}

/// The frozen parts of a `go.mod`: each `replace` directive, by what it replaces, which
/// picks the code a test imports (its helpers' among them).
fn go_mod_parts(text: &str) -> Parts {
    let mut parts = Parts::new();
    let mut in_block = false;
    for line in text.lines() {
        let line = line.split("//").next().unwrap_or("").trim();
        let directive = if in_block {
            if line == ")" {
                in_block = false;
                continue;
            }
            line
        } else if let Some(rest) = line.strip_prefix("replace") {
            let rest = rest.trim();
            if rest == "(" {
                in_block = true;
                continue;
            }
            rest
        } else {
            continue;
        };
        if let Some((old, new)) = directive.split_once("=>") {
            let old = old.split_whitespace().collect::<Vec<_>>().join(" ");
            let new = new.split_whitespace().collect::<Vec<_>>().join(" ");
            parts.insert(format!("`replace {old}`"), new.into());
        }
    }
    parts
}

/// The frozen parts of a `pyproject.toml`: the test and task runners' tables, key by key.
fn pyproject_parts(text: &str) -> Result<Parts, String> {
    let manifest = read_toml(text)?;
    let mut parts = Parts::new();
    let Some(tool) = manifest.get("tool") else {
        return Ok(parts);
    };
    let mut tables = Vec::new();
    for dotted in PYPROJECT_TABLES {
        if let Some(table) = dotted.split('.').try_fold(tool, |v, key| v.get(key)) {
            tables.push((format!("tool.{dotted}"), table));
        }
    }
    let envs = tool
        .get("hatch")
        .and_then(|h| h.get("envs"))
        .and_then(|e| e.as_table());
    for (env, config) in envs.into_iter().flatten() {
        if let Some(scripts) = config.get("scripts") {
            tables.push((format!("tool.hatch.envs.{env}.scripts"), scripts));
        }
    }
    for (section, value) in tables {
        match value.as_table() {
            Some(table) if !table.is_empty() => {
                // `[tool.pytest.ini_options]` is a table of its own.
                for (key, value) in table
                    .iter()
                    .filter(|(key, _)| section != "tool.pytest" || *key != "ini_options")
                {
                    parts.insert(format!("`[{section}] {key}`"), json(value));
                }
            }
            // An empty `[tool.pytest.ini_options]` still makes its file pytest's configuration.
            _ => _ = parts.insert(format!("`[{section}]`"), json(value)),
        }
    }
    Ok(parts)
}

/// Sections of `setup.cfg` that configure pytest and tox, frozen line by line (`testenv`
/// stands for `testenv` and every `testenv:name`).
const SETUP_CFG_SECTIONS: &[&str] = &["testenv", "tool:pytest", "tox:tox"];

/// The frozen parts of a `setup.cfg`: the lines of its pytest and tox sections, trimmed,
/// without blank and comment lines, by section.
fn setup_cfg_parts(text: &str) -> Parts {
    let mut parts: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut section: Option<String> = None;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with(['#', ';']) {
            continue;
        }
        // pytest's reader (iniconfig) takes a header only at the start of a line, comments
        // cut off; an indented `[x]` continues a value.
        let header = line.split(['#', ';']).next().unwrap_or("").trim_end();
        if let Some(name) = header.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
            let frozen = SETUP_CFG_SECTIONS.contains(&name) || name.starts_with("testenv:");
            section = frozen.then(|| format!("`[{name}]`"));
            if let Some(label) = &section {
                parts.entry(label.clone()).or_default();
            }
        } else if let Some(label) = &section {
            let words: Vec<&str> = trimmed.split_whitespace().collect();
            parts
                .entry(label.clone())
                .or_default()
                .push(words.join(" "));
        }
    }
    parts.into_iter().map(|(k, v)| (k, v.into())).collect()
}

/// Attributes that make a function a test, by their path's last segment (`tokio::test`).
const TEST_ATTRIBUTES: &[&str] = &[
    "quickcheck",
    "rstest",
    "test",
    "test_case",
    "wasm_bindgen_test",
];
/// Attributes that change warnings or docs, never what runs, by their first segment.
const FREE_ATTRIBUTES: &[&str] = &[
    "allow", "deny", "doc", "expect", "forbid", "rustfmt", "warn",
];
/// Macros whose replacement would change what every test asserts.
const ASSERTION_MACROS: &[&str] = &[
    "assert",
    "assert_eq",
    "assert_matches",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "panic",
];

/// Items named by the word after their keyword.
const NAMED_ITEMS: &[&str] = &[
    "const", "enum", "fn", "mod", "static", "struct", "trait", "type", "union",
];
/// Items that end at their `;` though they may hold braces before it.
const TO_SEMICOLON: &[&str] = &["const", "static", "type", "use"];

/// The problems with the Rust tests of `old` in `new`: every test of `old`, and every item
/// of its `#[cfg(test)]` modules, must be in `new` with the same tokens; so must the
/// attributes of each module holding tests; and `new` must not bring in a replacement for an
/// assertion macro. Whitespace, comments and lint attributes do not count.
pub(crate) fn rust_tests_changed(old: &str, new: &str) -> Vec<String> {
    let (old, new) = (Reading::of(old), Reading::of(new));
    let mut by_key: BTreeMap<&str, Vec<&Item>> = BTreeMap::new();
    for item in &new.items {
        by_key.entry(&item.key).or_default().push(item);
    }
    let mut problems = Vec::new();
    for item in old.items.iter().filter(|item| item.frozen(&old.items)) {
        let same_key = by_key.get(item.key.as_str()).map_or(&[][..], Vec::as_slice);
        let same = |n: &&Item| n.kind == item.kind && n.text == item.text;
        if same_key.iter().any(same) {
            continue;
        }
        let label = item.snippet.as_ref().unwrap_or(&item.key);
        problems.push(match (item.kind, same_key.first().map(|n| n.line)) {
            (Kind::Test, Some(line)) => format!("test `{label}` changed (line {line})"),
            (Kind::Test, None) => format!("test `{label}` removed"),
            (Kind::Module, Some(line)) if label.is_empty() => {
                format!("the file's `#![…]` attributes changed (line {line})")
            }
            (Kind::Module, Some(line)) => {
                format!("the attributes of `mod {label}` changed (line {line})")
            }
            (Kind::Module, None) => format!("`mod {label}` removed"),
            (Kind::Other, Some(line)) => {
                format!("`{label}` in a `#[cfg(test)]` module changed (line {line})")
            }
            (Kind::Other, None) => {
                format!("`{label}` in a `#[cfg(test)]` module changed or removed")
            }
        });
    }
    for (n, (form, line)) in new.shadows.iter().enumerate() {
        let seen = new.shadows[..=n].iter().filter(|(f, _)| f == form).count();
        if seen > old.shadows.iter().filter(|(f, _)| f == form).count() {
            problems.push(format!(
                "{form} added (line {line}): it replaces the assertion macro"
            ));
        }
    }
    problems
}

/// What a token of Rust source is, as far as finding items needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok {
    /// An identifier, keyword, number or lifetime.
    Word,
    /// A string, raw string, byte string or char literal.
    Literal,
    /// One punctuation byte.
    Punct(u8),
}

/// One token and where its bytes are; comments are not tokens.
#[derive(Debug, Clone, Copy)]
struct Token {
    /// What it is.
    tok: Tok,
    /// Its first byte.
    start: usize,
    /// One past its last byte.
    end: usize,
}

/// Whether `c` can be part of a word (the bytes of non-ASCII characters included).
fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80
}

/// One past the string, raw string or char literal that starts at `i`, if one does.
fn literal_end(b: &[u8], i: usize) -> Option<usize> {
    let j = i + usize::from(matches!(b[i], b'b' | b'c'));
    if b.get(j) == Some(&b'r') {
        let hashes = b[j + 1..].iter().take_while(|c| **c == b'#').count();
        let open = j + 1 + hashes;
        if b.get(open) != Some(&b'"') {
            return None;
        }
        let mut quote = vec![b'"'];
        quote.resize(hashes + 1, b'#');
        let close = (open + 1..b.len()).find(|k| b[*k..].starts_with(&quote));
        return Some(close.map_or(b.len(), |k| k + quote.len()));
    }
    match (b.get(j), b.get(j + 1)) {
        (Some(b'"'), _) => {
            let mut k = j + 1;
            while k < b.len() && b[k] != b'"' {
                k += 1 + usize::from(b[k] == b'\\');
            }
            Some((k + 1).min(b.len()))
        }
        // `'\''`, `'\n'`, `'\u{1F600}'`: the closing quote comes within a few bytes.
        (Some(b'\''), Some(b'\\')) => (j + 3..b.len().min(j + 16))
            .find(|k| b[*k] == b'\'')
            .map(|k| k + 1),
        // One character and a quote; else it is a lifetime or a label.
        (Some(b'\''), Some(c)) => {
            let width = [0xC0, 0xE0, 0xF0].iter().filter(|lead| c >= *lead).count() + 1;
            (b.get(j + 1 + width) == Some(&b'\'')).then_some(j + 2 + width)
        }
        _ => None,
    }
}

/// The tokens of `src`: a `}` in a string, char literal or comment is none of them.
fn tokens(src: &str) -> Vec<Token> {
    let b = src.as_bytes();
    let (mut out, mut i) = (Vec::new(), 0);
    while i < b.len() {
        let start = i;
        let tok = if b[i].is_ascii_whitespace() {
            i += 1;
            continue;
        } else if b[i..].starts_with(b"//") {
            let line = b[i..].iter().position(|c| *c == b'\n');
            i = line.map_or(b.len(), |n| i + n);
            continue;
        } else if b[i..].starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                let (opens, closes) = (b[i..].starts_with(b"/*"), b[i..].starts_with(b"*/"));
                depth += i32::from(opens) - i32::from(closes);
                i += if opens || closes { 2 } else { 1 };
                if depth == 0 {
                    break;
                }
            }
            continue;
        } else if let Some(end) = literal_end(b, i) {
            i = end;
            Tok::Literal
        } else if is_word(b[i]) || b[i] == b'\'' {
            // `r#type` and `'a` are one word each.
            i += 1 + usize::from(b[i..].starts_with(b"r#") || b[i] == b'\'');
            while i < b.len() && is_word(b[i]) {
                i += 1;
            }
            Tok::Word
        } else {
            i += 1;
            Tok::Punct(b[start])
        };
        let end = i.min(b.len());
        out.push(Token { tok, start, end });
    }
    out
}

/// What an item is, for the comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A test function.
    Test,
    /// A module; its text is its attributes, inner ones included.
    Module,
    /// Any other item.
    Other,
}

/// One item of a Rust file, as the comparison reads it.
#[derive(Debug)]
struct Item {
    /// Module path and name (`tests::adds`, `""` for the file); an unnamed item (`use`,
    /// `impl`) is keyed by its module and text, so it can be removed but not changed.
    key: String,
    /// How a detail names an unnamed item: its first line.
    snippet: Option<String>,
    /// What it is.
    kind: Kind,
    /// Whether it is frozen whatever it holds: a `#[cfg(test)]` item, or one inside such a
    /// module (`#[cfg(test)] mod tests;` has its tests in another file).
    test_code: bool,
    /// Attributes (but the free ones), signature and body, tokens joined by single spaces.
    text: String,
    /// The line where it starts, after its attributes.
    line: usize,
}

impl Item {
    /// Whether `new` must hold this item of `old`, one of `items`, unchanged.
    fn frozen(&self, items: &[Item]) -> bool {
        let inside = format!("{}::", self.key);
        let holds =
            |t: &Item| t.kind == Kind::Test && (self.key.is_empty() || t.key.starts_with(&inside));
        match self.kind {
            Kind::Test => true,
            Kind::Other => self.test_code,
            Kind::Module => self.test_code || items.iter().any(holds),
        }
    }
}

/// The outer attributes before an item, as `Reading::read_attributes` finds them.
#[derive(Debug)]
struct Attributes {
    /// Those not free, normalized, each followed by a space.
    attrs: String,
    /// Whether one marks a test (`#[test]`, `#[tokio::test]`).
    test: bool,
    /// Whether one is `#[cfg(test)]`.
    cfg_test: bool,
}

/// A Rust file read far enough to compare its tests.
#[derive(Debug)]
struct Reading<'s> {
    /// The text.
    src: &'s str,
    /// Its tokens.
    toks: Vec<Token>,
    /// For each opening `(`, `[` or `{`, the index of its closing token (`toks.len()` when
    /// unclosed).
    close: Vec<usize>,
    /// Every item at item level, those of modules and brace macros included; the file
    /// itself comes first, as the module `""`.
    items: Vec<Item>,
    /// Each `macro_rules!` or `use` that names an assertion macro, with its line.
    shadows: Vec<(String, usize)>,
    /// Where each line ends.
    newlines: Vec<usize>,
}

impl<'s> Reading<'s> {
    /// The items of the Rust source `src`.
    fn of(src: &'s str) -> Self {
        let toks = tokens(src);
        let (mut close, mut open) = (vec![toks.len(); toks.len()], Vec::new());
        for (i, token) in toks.iter().enumerate() {
            let want = match token.tok {
                Tok::Punct(b'(' | b'[' | b'{') => {
                    open.push(i);
                    continue;
                }
                Tok::Punct(b')') => b'(',
                Tok::Punct(b']') => b'[',
                Tok::Punct(b'}') => b'{',
                _ => continue,
            };
            // Groups left open inside this one end with it.
            if let Some(at) = open.iter().rposition(|o| toks[*o].tok == Tok::Punct(want)) {
                open.drain(at..).for_each(|o| close[o] = i);
            }
        }
        let file = Item {
            key: String::new(),
            snippet: None,
            kind: Kind::Module,
            test_code: false,
            text: String::new(),
            line: 1,
        };
        let mut reading = Self {
            src,
            toks,
            close,
            newlines: src.match_indices('\n').map(|(at, _)| at).collect(),
            items: vec![file],
            shadows: Vec::new(),
        };
        let inner = reading.read(0, reading.toks.len(), "", false);
        reading.items[0].text = inner.join(" ");
        reading
    }

    /// Whether token `i` is the punctuation `c`.
    fn is(&self, i: usize, c: u8) -> bool {
        self.toks.get(i).is_some_and(|t| t.tok == Tok::Punct(c))
    }

    /// Token `i` when it is a word.
    fn word(&self, i: usize) -> Option<&'s str> {
        let token = self.toks.get(i).filter(|t| t.tok == Tok::Word);
        token.map(|t| &self.src[t.start..t.end])
    }

    /// Whether token `i` is a word of `table`.
    fn word_in(&self, i: usize, table: &[&str]) -> bool {
        self.word(i).is_some_and(|w| table.contains(&w))
    }

    /// The first line of the source from token `i`, trimmed to 60 characters at most.
    fn first_line(&self, i: usize) -> String {
        let line = self.src[self.toks[i].start..].lines().next().unwrap_or("");
        line.trim().chars().take(60).collect()
    }

    /// One past the closing token of the group opened at `i`.
    fn end_of(&self, i: usize) -> usize {
        (self.close[i] + 1).min(self.toks.len())
    }

    /// Tokens `lo..hi` joined by single spaces, so whitespace and comments do not count.
    fn norm(&self, lo: usize, hi: usize) -> String {
        let toks = &self.toks[lo.min(self.toks.len())..hi.min(self.toks.len())];
        let texts: Vec<&str> = toks.iter().map(|t| &self.src[t.start..t.end]).collect();
        texts.join(" ")
    }

    /// The 1-based line of token `i`.
    fn line(&self, i: usize) -> usize {
        let at = self.toks.get(i).map_or(self.src.len(), |t| t.start);
        self.newlines.partition_point(|n| *n < at) + 1
    }

    /// One past the item starting at `i`: its `;`, or its first `{ … }` unless `to_semicolon`
    /// (a `const` value may hold braces).
    fn item_end(&self, mut i: usize, hi: usize, to_semicolon: bool) -> usize {
        while i < hi {
            match self.toks[i].tok {
                Tok::Punct(b';') => return i + 1,
                Tok::Punct(b'{') if !to_semicolon => return self.end_of(i),
                Tok::Punct(b'(' | b'[' | b'{') => i = self.end_of(i),
                _ => i += 1,
            }
        }
        hi
    }

    /// Reads the items of tokens `lo..hi` in `module` (`test_code` when it is compiled for
    /// tests only), and returns the module's inner attributes.
    fn read(&mut self, lo: usize, hi: usize, module: &str, test_code: bool) -> Vec<String> {
        let (mut inner, mut i) = (Vec::new(), lo);
        while i < hi {
            let Attributes {
                attrs,
                test,
                cfg_test,
            } = self.read_attributes(&mut i, &mut inner);
            if i >= hi || self.is(i, b';') {
                i += 1;
                continue;
            }
            let start = i;
            i = self.skip_qualifiers(i);
            let word = self.word(i).unwrap_or("");
            let mut call = i;
            while self.is(call + 1, b':') && self.is(call + 2, b':') {
                call += 3;
            }
            let bang = self.word(call).is_some() && self.is(call + 1, b'!');
            let name = self.item_name(i, word, bang);
            let kind = match word {
                "fn" if test => Kind::Test,
                "mod" => Kind::Module,
                _ => Kind::Other,
            };
            let key = name.map(|name| match module {
                "" => name,
                _ => format!("{module}::{name}"),
            });
            let test_code = test_code || cfg_test;
            let group = if word == "mod" { i + 2 } else { call + 2 };
            let braced = word == "mod" || bang && word != "macro_rules";
            let (end, text) = if braced && self.is(group, b'{') {
                // An inline module, or a brace macro (`proptest! { #[test] fn … }`), holds
                // items of its own; a macro's inner attributes count as its module's.
                let close = self.close[group].min(hi);
                let inside = key.as_deref().unwrap_or(module);
                let inside = self.read(group + 1, close, inside, test_code);
                if kind != Kind::Module {
                    inner.extend(inside);
                    i = close + 1;
                    continue;
                }
                (close + 1, format!("{attrs}{}", inside.join(" ")))
            } else {
                let end = self.item_end(i, hi, self.word_in(i, TO_SEMICOLON));
                (end, format!("{attrs}{}", self.norm(start, end)))
            };
            self.note_shadows(i, end, word);
            let snippet = key.is_none().then(|| self.first_line(start));
            let key = key.unwrap_or_else(|| format!("{module} {text}"));
            let line = self.line(start);
            self.items.push(Item {
                key,
                snippet,
                kind,
                test_code,
                text,
                line,
            });
            i = end.max(start + 1);
        }
        inner
    }

    /// Reads the attributes before the item at `*i` and moves `*i` past them: inner ones
    /// (`#![…]`) go to `inner`, outer ones are returned with what they say of the item.
    fn read_attributes(&self, i: &mut usize, inner: &mut Vec<String>) -> Attributes {
        let (mut attrs, mut test, mut cfg_test) = (String::new(), false, false);
        loop {
            let open = *i + 1 + usize::from(self.is(*i + 1, b'!'));
            if !self.is(*i, b'#') || !self.is(open, b'[') {
                break;
            }
            let mut last = open + 1;
            while self.is(last + 1, b':') && self.word(last + 3).is_some() {
                last += 3;
            }
            test |= self.word_in(last, TEST_ATTRIBUTES);
            let end = self.end_of(open);
            let text = self.norm(*i, end);
            cfg_test |= text == "# [ cfg ( test ) ]";
            match (self.word_in(open + 1, FREE_ATTRIBUTES), open > *i + 1) {
                (true, _) => {}
                (false, true) => inner.push(text),
                (false, false) => attrs = format!("{attrs}{text} "),
            }
            *i = end;
        }
        Attributes {
            attrs,
            test,
            cfg_test,
        }
    }

    /// The name of the item whose keyword `word` is at `i` (`bang` when it is a macro call),
    /// or `None` for an item without one.
    fn item_name(&self, i: usize, word: &str, bang: bool) -> Option<String> {
        match word {
            "macro_rules" if bang => self.word(i + 2).map(|n| format!("macro_rules! {n}")),
            "static" if self.word(i + 1) == Some("mut") => self.word(i + 2).map(str::to_owned),
            _ if NAMED_ITEMS.contains(&word) => self.word(i + 1).map(str::to_owned),
            _ => None,
        }
    }

    /// Notes what the item `i..end` with keyword `word` shadows: a `use` of an assertion
    /// macro, or a `macro_rules!` named like one.
    fn note_shadows(&mut self, i: usize, end: usize, word: &str) {
        if word == "use" {
            self.use_shadows(i, end);
        }
        if word == "macro_rules" && self.word_in(i + 2, ASSERTION_MACROS) {
            let form = format!("`macro_rules! {}`", self.word(i + 2).unwrap_or(""));
            self.shadows.push((form, self.line(i)));
        }
    }

    /// Past the visibility and qualifiers (`pub(crate) async unsafe extern "C"`) at `i`.
    fn skip_qualifiers(&self, mut i: usize) -> usize {
        loop {
            match self.word(i) {
                Some("pub") if self.is(i + 1, b'(') => i = self.end_of(i + 1),
                Some("async" | "pub" | "unsafe") => i += 1,
                // `const fn`, but not `const X: u8`.
                Some("const") if !self.is(i + 2, b':') => i += 1,
                Some("extern") if self.word(i + 1) != Some("crate") => {
                    i += 1;
                    let abi = self.toks.get(i).is_some_and(|t| t.tok == Tok::Literal);
                    i += usize::from(abi);
                }
                _ => return i,
            }
        }
    }

    /// Records each import or rename, in the `use` item of tokens `lo..hi`, that brings in
    /// the name of an assertion macro (but the standard library's own: `use std::panic;`).
    fn use_shadows(&mut self, lo: usize, hi: usize) {
        let root = (lo + 1..hi).find(|k| !self.is(*k, b':')).unwrap_or(hi);
        let std = self.word_in(root, &["core", "std"]);
        for k in lo + 1..hi {
            let Some(name) = self.word(k).filter(|w| ASSERTION_MACROS.contains(w)) else {
                continue;
            };
            let renamed = self.word(k - 1) == Some("as");
            let leaf = [b',', b'}', b';'].iter().any(|c| self.is(k + 1, *c));
            if renamed || leaf && !std {
                let how = if renamed { " as " } else { "::" };
                self.shadows
                    .push((format!("`use …{how}{name}`"), self.line(k)));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths() {
        let init = "a package file of a test folder";
        for (path, want) in [
            ("Makefile", Some(MAKEFILE)),
            ("sub/GNUmakefile", Some(MAKEFILE)),
            ("mk/rules.mk", Some("a make include file")),
            ("Justfile", Some(JUSTFILE)),
            ("sub/.justfile", Some(JUSTFILE)),
            ("mods/db.just", Some("a module or import of a justfile")),
            ("sub/Taskfile.dist.yaml", Some(TASKFILE)),
            ("pkg/tests/conftest.py", Some("a conftest pytest loads")),
            ("pytest.ini", Some(PYTEST)),
            ("tox.ini", Some("tox's configuration")),
            ("noxfile.py", Some("nox's sessions")),
            ("usercustomize.py", Some(STARTUP)),
            ("lib/x.pth", Some("a path file Python runs at start-up")),
            ("tests/unit/__init__.py", Some(init)),
            ("test/__main__.py", Some(init)),
            ("calc_tools/testing/__init__.py", None), // a product package, no test folder
            ("src/pkg/__init__.py", None),
            ("web/jest.config.ts", Some("jest's configuration")),
            ("vitest.config.mts", Some("vitest's configuration")),
            ("vitest.workspace.ts", Some("vitest's workspace")),
            (".mocharc.yml", Some("mocha's configuration")),
            ("ava.config.js", Some("ava's configuration")),
            // Read as code: `READ_AS_CODE`.
            ("vite.config.ts", None),
            (".c8rc.json", None),
            (".nycrc", None),
            ("crates/a/build.rs", Some("a build script cargo runs")),
            ("src/build.rs", None),
            ("sub/.cargo/config", Some("cargo's configuration")),
            (".cargo/config.toml", Some("cargo's configuration")),
            ("speccoder.toml", Some("speccoder's configuration")),
            ("fixtures/speccoder.toml", None),
            (".github/workflows/ci.yml", Some(CI)),
            (".gitlab-ci.yml", Some(CI)),
            ("Jenkinsfile", Some(CI)),
            ("src/.github/x", None),
            ("src/lib.rs", None),
            ("mise.toml", Some(MISE)),
            ("svc/.mise.toml", Some(MISE)),
            (".config/mise/config.toml", Some(MISE)),
            (".config/mise/conf.d/ops.toml", Some(MISE)),
            ("mise/config.toml", Some(MISE)),
            ("src/mise/config.toml", None),
            (
                ".mise/tasks/db/migrate",
                Some("a file of a mise task folder, which defines mise's tasks"),
            ),
            (
                "mise-tasks/test.sh",
                Some("a file of a mise task folder, which defines mise's tasks"),
            ),
            ("phpunit.xml.dist", Some(PHPUNIT)),
        ] {
            let got = classify(path, Project::default());
            assert_eq!(got, want.map(Infra::Whole), "{path}");
        }
        for path in [
            "web/package.json",
            "composer.json",
            "deno.jsonc",
            "packages/api/deno.json",
            "pixi.toml",
            "a/Cargo.toml",
            "pyproject.toml",
            "setup.cfg",
        ] {
            assert_eq!(
                classify(path, Project::default()),
                Some(Infra::Keys),
                "{path}"
            );
        }
    }

    #[test]
    fn a_go_modules_vendor_folder() {
        let go = Project {
            go: true,
            ..Project::default()
        };
        let vendored = Some(Infra::Whole(
            "vendored code go builds in place of the modules",
        ));
        assert_eq!(classify("vendor/modules.txt", go), vendored);
        assert_eq!(classify("svc/vendor/example.com/m/m.go", go), vendored);
        assert_eq!(classify("vendor/modules.txt", Project::default()), None);
    }

    #[test]
    fn helpers_reached_through_a_manifest_are_frozen() {
        let go = "module example.com/calc\n\ngo 1.21\n\nrequire example.com/th v0.0.0\n\nreplace example.com/th => ./internal/th\n";
        for (new, want) in [
            (
                go.replace("./internal/th", "./fake"),
                Some("`replace example.com/th` changed"),
            ),
            (
                go.replace("replace example.com/th => ./internal/th\n", ""),
                Some("`replace example.com/th` removed"),
            ),
            (
                format!("{go}replace (\n\texample.com/x => ./x // mine\n)\n"),
                Some("`replace example.com/x` added"),
            ),
            (format!("{go}require example.com/y v1.0.0\n"), None),
        ] {
            assert_eq!(
                frozen_keys_changed("go.mod", Some(go), Some(&new)).as_deref(),
                want,
                "{new}"
            );
        }
        let cargo = "[package]\nname = \"calc\"\n\n[dev-dependencies]\nth = { path = \"th\" }\nproptest = \"1\"\n";
        let moved = cargo.replace("path = \"th\"", "path = \"fake\"");
        assert_eq!(
            frozen_keys_changed("Cargo.toml", Some(cargo), Some(&moved)).as_deref(),
            Some("`[dev-dependencies] th` from a folder changed")
        );
        let honest = cargo.replace("proptest = \"1\"", "proptest = \"1.5\"\nrand = \"0.8\"");
        assert_eq!(
            frozen_keys_changed("Cargo.toml", Some(cargo), Some(&honest)),
            None
        );
        assert_eq!(
            classify("svc/go.mod", Project::default()),
            Some(Infra::Keys)
        );
    }

    #[test]
    fn crates_only_the_tests_use_are_helpers() {
        let manifest = "[package]\nname = \"calc\"\n\n[dependencies]\nshared = { path = \"../shared\" }\ncore = { path = \"core\" }\n\n[dev-dependencies]\nth = { path = \"th\" }\ncore = { path = \"core\" }\ncalc = { path = \".\" }\nproptest = \"1\"\n\n[target.'cfg(unix)'.dev-dependencies]\nunix-th = { path = \"../unix-th/\" }\n";
        assert_eq!(test_helper_crates("app/Cargo.toml", manifest), ["app/th"]);
        // The library under test, taken by a crate of integration tests or by the workspace
        // root for its tests, is no helper.
        let tests_crate =
            "[package]\nname = \"it\"\n\n[dev-dependencies]\ncalc = { path = \"../calc\" }\n";
        assert_eq!(
            test_helper_crates("crates/it/Cargo.toml", tests_crate),
            Vec::<String>::new()
        );
        let root = "[workspace]\nmembers = [\"crates/*\", \"tools/gen\"]\n\n[package]\nname = \"app\"\n\n[dev-dependencies]\ncalc = { path = \"crates/calc\" }\ngen = { path = \"tools/gen\" }\nth = { path = \"support/th\" }\n";
        assert_eq!(test_helper_crates("Cargo.toml", root), ["support/th"]);
        assert_eq!(
            test_helper_crates("Cargo.toml", "not toml ["),
            Vec::<String>::new()
        );
    }

    /// An example path for each entry of [`FILE_NAMES`]: the name itself, a `*` filled.
    fn example(pattern: &str) -> String {
        if pattern.ends_with('/') {
            return format!("{pattern}x-1.cjs");
        }
        pattern.replace('*', "x")
    }

    #[test]
    fn every_steering_file_is_frozen_in_any_folder_and_any_case() {
        for (pattern, what, _) in FILE_NAMES {
            let name = example(pattern);
            for path in [name.clone(), format!("web/{name}"), name.to_uppercase()] {
                // Read as code, not frozen: the scans read it and what it names.
                let want = (!READ_AS_CODE.contains(pattern)).then_some(Infra::Whole(what));
                assert_eq!(
                    classify(&path, Project::default()),
                    want,
                    "{pattern}: {path}"
                );
                assert!(steering(&path).is_some(), "{path}");
            }
        }
        // The documented names each tool looks up, each one matched.
        for path in [
            ".npmrc",
            ".yarnrc",
            ".yarnrc.yml",
            "bunfig.toml",
            ".pnpmfile.cjs",
            ".babelrc",
            ".babelrc.json",
            ".babelrc.js",
            "babel.config.json",
            "babel.config.cjs",
            "jest.config.mjs",
            "vitest.config.ts",
            "rust-toolchain",
            "rust-toolchain.toml",
            ".cargo/config.toml",
            ".cargo/config",
            "go.work",
            "go.work.sum",
            "pytest.ini",
            "tox.ini",
            "conftest.py",
            ".yarn/releases/yarn-4.1.0.cjs",
            ".pnp.cjs",
        ] {
            assert!(
                matches!(classify(path, Project::default()), Some(Infra::Whole(_))),
                "{path}"
            );
        }
        for path in [
            "babel.js",
            "src/npmrc.js",
            "go.sum",
            "docs/vite.md",
            "yarn.lock",
            "vite.config.mjs",
            "web/vite.config.ts",
        ] {
            assert_eq!(classify(path, Project::default()), None, "{path}");
        }
    }

    #[test]
    fn files_a_configuration_names_are_found_as_code() {
        let files = [
            "x.txt",
            "sh",
            "tools/plugin.js",
            "conf/setup.cjs",
            "myplugin.py",
            "pkg/plug/__init__.py",
            ".yarn/releases/yarn.cjs",
        ];
        let exists = |p: &str| files.contains(&p);
        for (path, text, want) in [
            (
                ".npmrc",
                "node-options=--require ./x.txt\nscript-shell=./sh\n",
                &["x.txt", "sh"][..],
            ),
            (
                ".yarnrc",
                "yarn-path \".yarn/releases/yarn.cjs\"\n",
                &[".yarn/releases/yarn.cjs"],
            ),
            (
                ".babelrc",
                "{\"plugins\": [\"./tools/plugin\"]}",
                &["tools/plugin.js"],
            ),
            (
                "conf/jest.config.js",
                "module.exports = {setupFiles: ['<rootDir>/setup.cjs']};",
                &["conf/setup.cjs"],
            ),
            (
                "pytest.ini",
                "[pytest]\naddopts = -p myplugin -p pkg.plug\n",
                &["myplugin.py", "pkg/plug/__init__.py"],
            ),
            ("bunfig.toml", "[test]\npreload = [\"../x.txt\"]\n", &[]),
            ("Makefile", "include x.txt\n", &[]),
        ] {
            let got: Vec<String> = loaded_by(path, text, exists)
                .into_iter()
                .map(|(p, _)| p)
                .collect();
            assert_eq!(got, want, "{path}");
        }
        // npm's `script-shell` names a shell script; its `node-options` names JavaScript.
        let npmrc = "node-options=--require ./x.txt\n script-shell = ./sh\n";
        assert_eq!(
            loaded_by(".npmrc", npmrc, exists),
            [
                ("x.txt".to_owned(), Loads::Js),
                ("sh".to_owned(), Loads::Shell)
            ]
        );
    }

    #[test]
    fn name_tables_are_sorted() {
        let file_names: Vec<&str> = FILE_NAMES.iter().map(|(name, _, _)| *name).collect();
        for (name, table) in [
            ("FILE_NAMES", file_names.as_slice()),
            ("CI_PATHS", CI_PATHS),
            ("KEYED_MANIFESTS", KEYED_MANIFESTS),
            ("TEST_FOLDERS", TEST_FOLDERS),
            ("PACKAGE_JSON_KEYS", PACKAGE_JSON_KEYS),
            ("PACKAGE_KEYS", PACKAGE_KEYS),
            ("TARGET_KEYS", TARGET_KEYS),
            ("PYPROJECT_TABLES", PYPROJECT_TABLES),
            ("SETUP_CFG_SECTIONS", SETUP_CFG_SECTIONS),
            ("TEST_ATTRIBUTES", TEST_ATTRIBUTES),
            ("FREE_ATTRIBUTES", FREE_ATTRIBUTES),
            ("ASSERTION_MACROS", ASSERTION_MACROS),
            ("NAMED_ITEMS", NAMED_ITEMS),
            ("TO_SEMICOLON", TO_SEMICOLON),
        ] {
            let mut sorted = table.to_vec();
            sorted.sort_unstable();
            assert_eq!(table, sorted, "keep {name} sorted");
        }
    }

    /// `base` with its first `from` replaced by `to`, or `to` appended when `from` is empty.
    fn edit(base: &str, from: &str, to: &str) -> String {
        assert!(base.contains(from), "{from}");
        if from.is_empty() {
            format!("{base}{to}")
        } else {
            base.replacen(from, to, 1)
        }
    }

    /// Checks the detail for a manifest at `path` from `old` to `new` (`""`: none).
    #[track_caller]
    fn keys(path: &str, old: Option<&str>, new: Option<&str>, want: &str) {
        let got = frozen_keys_changed(path, old, new).unwrap_or_default();
        assert_eq!(got, want, "{new:?}");
    }

    /// Checks the detail for each edit `(from, to, want)` of the manifest `base`.
    #[track_caller]
    fn edits(path: &str, base: &str, edits: &[(&str, &str, &str)]) {
        for (from, to, want) in edits {
            keys(path, Some(base), Some(&edit(base, from, to)), want);
        }
    }

    #[test]
    fn package_json() {
        let base = r#"{"scripts": {"test": "t"}, "jest": {"a": 1, "b": 2}}"#;
        let eof = "EOF while parsing an object at line 1 column 51";
        let broken = format!("cannot be read as JSON: {eof}");
        let rows = [
            ("}}", r#"}, "dependencies": {"x": "1"}}"#, ""),
            ("}}", r#"}, "c8": {}, "nyc": {}}"#, ""),
            (r#""a": 1, "b": 2"#, r#""b": 2, "a": 1"#, ""),
            ("\"t\"}", "\"t -x\"}", "`scripts.test` changed"),
            ("\"t\"}", "\"t\", \"lint\": \"x\"}", "`scripts.lint` added"),
            ("2}", "3}, \"mocha\": {}", "`jest` changed; `mocha` added"),
            ("}}", "}", &broken),
        ];
        edits("web/package.json", base, &rows);
        let removed = "`jest` removed; `scripts.test` removed";
        keys("package.json", Some(base), None, removed);
        let eof = "EOF while parsing an object at line 1 column 1";
        let base_broken = format!("the base's version cannot be read as JSON: {eof}");
        keys("package.json", Some("{"), Some(base), &base_broken);
        keys("package.json", None, Some("{}"), "");
        keys("README.md", Some("a"), Some("b"), "");
    }

    #[test]
    fn composer_deno_and_pixi_manifests() {
        let composer = r#"{"require": {"php": ">=8.1"}, "scripts": {"test": "phpunit"}}"#;
        edits(
            "composer.json",
            composer,
            &[
                ("8.1\"}", "8.1\", \"psr/log\": \"3\"}", ""),
                ("\"phpunit\"", "\"true\"", "`scripts.test` changed"),
                ("}}", "}, \"autoload-dev\": {}}", "`autoload-dev` added"),
            ],
        );
        let deno =
            "{\n  // tasks\n  \"imports\": {},\n  \"tasks\": {\"test\": \"deno test\",},\n}\n";
        edits(
            "packages/api/deno.jsonc",
            deno,
            &[
                ("\"imports\": {}", "\"imports\": {\"x\": \"npm:x\"}", ""),
                ("deno test", "true", "`tasks.test` changed"),
                ("},\n}", "}, \"test\": {\"include\": []}\n}", "`test` added"),
            ],
        );
        let pixi = "[dependencies]\npython = '3.12'\n[tasks]\ntest = 'pytest'\n[feature.gpu.tasks]\nbench = 'b'\n";
        edits(
            "pixi.toml",
            pixi,
            &[
                ("python = '3.12'", "python = '3.12'\nnumpy = '*'", ""),
                ("'pytest'", "'true'", "`[tasks] test` changed"),
                ("'b'", "'true'", "`[feature.gpu.tasks] bench` changed"),
                (
                    "[tasks]",
                    "[environments]\ngpu = ['gpu']\n[tasks]",
                    "`[environments]` added",
                ),
            ],
        );
    }

    #[test]
    fn cargo_toml() {
        let base = "[package]\nname = \"a\"\n[dependencies]\nx = \"1\"\n[[bin]]\nname = \"cli\"\n";
        let test = "`[[test]]` target `it` added";
        let harness = "`[[bin]]` target `cli`: `harness` added";
        let broken = "cannot be read as TOML: duplicate key (line 7)";
        let rows = [
            ("\"1\"", "\"1\"\ny = \"1\"", ""),
            ("", "[[bench]]\nname = \"b\"\nharness = false\n", ""),
            ("", "[features]\nslow = []\n", ""),
            ("", "[[test]]\nname = \"it\"\n", test),
            ("", "[lib]\ntest = false\n", "`[lib] test` added"),
            (
                "",
                "[profile.test]\nopt-level = 1\n",
                "`[profile.test]` added",
            ),
            ("\"cli\"", "\"cli\"\nharness = false", harness),
            (
                "\"a\"",
                "\"a\"\nautotests = false",
                "`[package] autotests` added",
            ),
            ("", "[package]\n", broken),
        ];
        edits("Cargo.toml", base, &rows);
    }

    #[test]
    fn a_new_dev_dependency_from_a_workspace_crate_is_code() {
        let ws = "[workspace]\nmembers = [\"crates/*\"]\nexclude = [\"crates/th\"]\n";
        assert!(workspace_member("Cargo.toml", ws, "crates/fixtures"));
        assert!(workspace_member("Cargo.toml", ws, "tools/gen"));
        assert!(!workspace_member("Cargo.toml", ws, "crates/th"));
        assert!(!workspace_member(
            "Cargo.toml",
            "[package]\nname = \"x\"\n",
            "th"
        ));
        assert!(!workspace_member("svc/Cargo.toml", ws, "other/x"));
        let base = "[package]\nname = \"calc\"\n\n[dev-dependencies]\nth = { path = \"th\" }\n";
        let added = format!("{base}fixtures = {{ path = \"crates/fixtures\" }}\n");
        let member = |p: &str| workspace_member("Cargo.toml", ws, p);
        assert_eq!(
            frozen_keys_changed_in(
                "Cargo.toml",
                Some(base),
                Some(&added),
                Runs::default(),
                &member
            ),
            None
        );
        assert_eq!(
            frozen_keys_changed("Cargo.toml", Some(base), Some(&added)).as_deref(),
            Some("`[dev-dependencies] fixtures` from a folder added")
        );
        // A helper redirected stays frozen, into the workspace or not.
        let moved = base.replace("path = \"th\"", "path = \"crates/fixtures\"");
        assert_eq!(
            frozen_keys_changed_in(
                "Cargo.toml",
                Some(base),
                Some(&moved),
                Runs::default(),
                &member
            )
            .as_deref(),
            Some("`[dev-dependencies] th` from a folder changed")
        );
        // The crate itself is no helper of its own.
        let own = format!("{base}calc = {{ path = \".\" }}\n");
        assert_eq!(
            frozen_keys_changed_in(
                "Cargo.toml",
                Some(base),
                Some(&own),
                Runs::default(),
                &|_| true
            )
            .as_deref(),
            Some("`[dev-dependencies] calc` from a folder added")
        );
    }

    /// A project whose checks run `text`.
    fn running(text: &str) -> Project {
        Project {
            runs: Runs::of(text),
            ..Project::default()
        }
    }

    #[test]
    fn what_the_checks_run() {
        let runs = |text: &str| {
            let runs = Runs::of(text);
            let mut names: Vec<&str> = LINTERS
                .iter()
                .filter(|l| runs.linter(l))
                .map(|l| l.runs[0])
                .collect();
            if runs.mise {
                names.push("mise");
            }
            names.join(" ")
        };
        assert_eq!(
            runs("npx eslint . && ./node_modules/.bin/tsc --noEmit"),
            "eslint tsc"
        );
        assert_eq!(
            runs("cargo +nightly fmt --check\ncargo clippy -- -D warnings"),
            "clippy rustfmt"
        );
        assert_eq!(runs("lint:\n\truff check . && mypy src"), "ruff mypy");
        assert_eq!(
            runs("golangci-lint run ./...; prettier --check ."),
            "golangci-lint prettier"
        );
        assert_eq!(runs("mise run test"), "mise");
        // Names inside other words, and `fmt` without cargo, are not the tools.
        assert_eq!(
            runs("eslint-plugin-x; go fmt ./...; tscompile; npm test"),
            ""
        );
    }

    #[test]
    fn a_linters_config_is_frozen_when_a_check_runs_it() {
        for linter in LINTERS {
            let runs = running(linter.runs[0]);
            for pattern in linter.files {
                let name = example(pattern);
                for path in [name.clone(), format!("web/{name}")] {
                    assert_eq!(
                        classify(&path, runs),
                        Some(Infra::Whole(linter.why)),
                        "{path}"
                    );
                    // No check runs it: a config like any other file.
                    assert_eq!(classify(&path, running("npm test")), None, "{path}");
                }
            }
        }
        for (path, runs) in [
            ("eslint.config.mjs", "eslint"),
            (".eslintrc.json", "eslint"),
            (".prettierrc.yaml", "prettier"),
            ("tsconfig.build.json", "tsc"),
            (".golangci.yml", "golangci-lint"),
            ("clippy.toml", "cargo clippy"),
            (".rustfmt.toml", "cargo fmt"),
            ("ruff.toml", "ruff"),
            ("mypy.ini", "mypy"),
        ] {
            assert!(
                matches!(classify(path, running(runs)), Some(Infra::Whole(_))),
                "{path}"
            );
        }
        assert_eq!(classify("tsconfig.json.bak", running("tsc")), None);
        let whys: BTreeSet<&str> = LINTERS.iter().map(|l| l.why).collect();
        assert_eq!(
            whys.len(),
            LINTERS.len(),
            "`Runs::linter` finds one by its text"
        );
    }

    #[test]
    fn what_a_runner_file_says_its_tasks_run() {
        let runs = |name: &str, text: &str| {
            let runs = Runs::of(&task_text(name, text));
            LINTERS
                .iter()
                .filter(|l| runs.linter(l))
                .map(|l| l.runs[0])
                .collect::<Vec<_>>()
                .join(" ")
        };
        let package = r#"{"scripts": {"test": "node --test", "lint": "eslint ."}, "devDependencies": {"eslint": "^9", "prettier": "^3"}, "prettier": {"semi": false}}"#;
        assert_eq!(runs("package.json", package), "eslint");
        let pyproject = "[project]\nname = \"calc\"\ndependencies = [\"mypy-extensions\"]\n\n[dependency-groups]\ndev = [\"ruff\", \"mypy\"]\n\n[tool.ruff]\nextend-exclude = [\"ruff-cache\"]\n\n[tool.poe.tasks]\ntest = \"pytest\"\ntypes = \"mypy src\"\n";
        assert_eq!(runs("pyproject.toml", pyproject), "mypy");
        let cargo = "[package]\nname = \"calc\"\n\n[lints.clippy]\npedantic = \"warn\"\n";
        assert_eq!(runs("Cargo.toml", cargo), "");
        assert_eq!(runs("Makefile", "lint:\n\truff check .\n"), "ruff");
    }

    #[test]
    fn a_linters_tables_in_shared_manifests() {
        let eslint = running("eslint");
        let package =
            r#"{"scripts": {"lint": "eslint ."}, "eslintConfig": {"rules": {"semi": 2}}}"#;
        let off = package.replace("2}", "0}");
        assert_eq!(
            frozen_keys_changed_in(
                "package.json",
                Some(package),
                Some(&off),
                eslint.runs,
                &|_| false
            )
            .as_deref(),
            Some("`eslintConfig` changed")
        );
        assert_eq!(
            frozen_keys_changed("package.json", Some(package), Some(&off)),
            None
        );
        let pyproject = "[tool.ruff]\nline-length = 88\n\n[tool.ruff.lint]\nselect = [\"E\"]\n\n[tool.mypy]\nstrict = true\n";
        let ruff = running("ruff check");
        let fewer = pyproject.replace("[\"E\"]", "[]");
        assert_eq!(
            frozen_keys_changed_in(
                "pyproject.toml",
                Some(pyproject),
                Some(&fewer),
                ruff.runs,
                &|_| false
            )
            .as_deref(),
            Some("`[tool.ruff]` changed")
        );
        let lax = pyproject.replace("strict = true", "strict = false");
        assert_eq!(
            frozen_keys_changed_in(
                "pyproject.toml",
                Some(pyproject),
                Some(&lax),
                ruff.runs,
                &|_| false
            ),
            None
        );
        let mypy = running("mypy .");
        let cfg = "[metadata]\nname = x\n\n[mypy]\nstrict = True\n\n[mypy-calc.*]\nignore_errors = False\n";
        let ignored = cfg.replace("= False", "= True");
        assert_eq!(
            frozen_keys_changed_in("setup.cfg", Some(cfg), Some(&ignored), mypy.runs, &|_| {
                false
            })
            .as_deref(),
            Some("`[mypy-calc.*]` changed")
        );
    }

    #[test]
    fn mises_places_are_frozen_when_a_check_runs_through_mise() {
        let mise = running("mise run test");
        for path in [
            "mise.ci.toml",
            ".mise.ci.toml",
            "mise.ci.local.toml",
            "mise/config.ci.toml",
            ".config/mise/config.ci.toml",
            ".config/mise.ci.toml",
            "web/mise.test.toml",
            ".tool-versions",
        ] {
            assert_eq!(classify(path, mise), Some(Infra::Whole(MISE)), "{path}");
            assert_eq!(classify(path, Project::default()), None, "{path}");
        }
        // Every config and task folder of the runner's own list, whatever the checks run.
        for config in mise_files::CONFIGS {
            assert_eq!(
                classify(config, Project::default()),
                Some(Infra::Whole(MISE))
            );
        }
        for dir in mise_files::TASK_DIRS {
            assert!(classify(&format!("{dir}/build"), Project::default()).is_some());
        }
        let conf_d = format!("{}/tools.toml", mise_files::CONF_D);
        assert_eq!(
            classify(&conf_d, Project::default()),
            Some(Infra::Whole(MISE))
        );
        for path in [
            "mise.toml.bak",
            "src/mise/x.toml",
            "mise..toml",
            "mise/tasks.rs",
        ] {
            assert_eq!(classify(path, mise), None, "{path}");
        }
    }

    #[test]
    fn mise_configs_above_the_project() {
        for (path, prefix, want) in [
            (".config/mise/config.toml", "svc/api", true),
            ("svc/mise.toml", "svc/api", true),
            ("svc/mise.ci.toml", "svc/api", true),
            ("svc/.config/mise/conf.d/go.toml", "svc/api", true),
            ("svc/api/mise.toml", "svc/api", false),
            ("other/mise/config.toml", "svc/api", false),
            ("svc/src/mise/config.toml", "svc/api", false),
            ("mise/config.toml", "", false),
        ] {
            assert_eq!(
                mise_config_above(path, prefix),
                want,
                "{path} above {prefix}"
            );
        }
    }

    #[test]
    fn pyproject_toml() {
        let base = "[project]\ndependencies = []\n[tool.pytest.ini_options]\naddopts = \"-q\"\n";
        let options = "`[tool.pytest.ini_options]";
        let (changed, emptied) = (
            format!("{options} addopts` changed"),
            format!("{options} addopts` removed; {options}` added"),
        );
        let rows = [
            ("[]", "[\"rich\"]", ""),
            ("", "[tool.coverage.run]\nbranch = true\n", ""),
            ("\"-q\"", "\"-k x\"", &changed),
            ("addopts = \"-q\"\n", "", &emptied),
            (
                "",
                "[tool.poe.tasks]\nt = \"x\"\n",
                "`[tool.poe.tasks] t` added",
            ),
            (
                "",
                "[tool.hatch.envs.ci.scripts]\nt = \"x\"\n",
                "`[tool.hatch.envs.ci.scripts] t` added",
            ),
            (
                "",
                "[tool.tox]\nenv_list = []\n",
                "`[tool.tox] env_list` added",
            ),
            ("", "[tool.pytest]\nx = \"9\"\n", "`[tool.pytest] x` added"),
        ];
        edits("pyproject.toml", base, &rows);
    }

    #[test]
    fn setup_cfg() {
        let base = "[flake8]\nmax = 99\n[tool:pytest]\nmarkers =\n    [slow]\naddopts = -q\n";
        let (added, removed) = ("`[tool:pytest]` added", "`[tool:pytest]` removed");
        let rows = [
            ("99", "120", ""),
            ("addopts = -q", "# why\naddopts  =  -q\n", ""),
            ("[tool:pytest]", "[tool:pytest] # tests", ""),
            ("-q", "-q -p no:randomly", "`[tool:pytest]` changed"),
            ("[tool:pytest]", "[other]", removed),
        ];
        edits("setup.cfg", base, &rows);
        keys("setup.cfg", Some("[flake8]\n"), Some(base), added);
        keys("setup.cfg", None, Some("[tool:pytest]\n"), added);
        keys("setup.cfg", Some(base), None, removed);
        keys("setup.cfg", None, Some("[metadata]\n"), "");
    }

    #[test]
    fn tokens_skip_strings_chars_and_comments() {
        let src = r###"a /* /* */ } */ "}\"" r##"}"#"## '}' '\'' b'x' 'a: c"s" br#"}"# // }
}"###;
        let got: Vec<&str> = tokens(src).iter().map(|t| &src[t.start..t.end]).collect();
        let want = [
            "a",
            r#""}\"""#,
            r###"r##"}"#"##"###,
            "'}'",
            r"'\''",
            "b'x'",
            "'a",
            ":",
        ];
        assert_eq!(got[..8], want);
        assert_eq!(got[8..], [r#"c"s""#, r##"br#"}"#"##, "}"]);
    }

    /// A library and its test module: a helper, a test, and a test whose body holds braces in
    /// a string, a raw string, a comment, a char and a label.
    const LIB: &str = r##"pub fn add(a: i32, b: i32) -> i32 {
    a + b
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(got: i32, want: i32) {
        assert_eq!(got, want, "a }} in a string");
    }

    #[test]
    fn adds() {
        check(add(1, 2), 3);
    }

    #[test]
    fn tricky() {
        let s: &'static str = r#"}"#; /* } */
        let c = '}'; // }
        'outer: loop { break 'outer; }
        assert_eq!((s, c), ("}", '}'));
    }
}
"##;

    /// Checks the problems, one a line, for each edit `(from, to, want)` of the Rust `base`.
    #[track_caller]
    fn rust(base: &str, edits: &[(&str, &str, &str)]) {
        for (from, to, want) in edits {
            let got = rust_tests_changed(base, &edit(base, from, to));
            assert_eq!(got.join("\n"), *want, "{to}");
        }
    }

    #[test]
    fn rust_tests_in_a_source_file() {
        let (adds, moved) = (
            "test `tests::adds` changed (line 15)",
            "test `tests::adds` changed (line 13)",
        );
        let tricky = "test `tests::tricky` changed (line 19)";
        let module = "the attributes of `mod tests` changed (line 6)";
        let helper = "`tests::check` in a `#[cfg(test)]` module changed (line 9)";
        let import = "`use super::*;` in a `#[cfg(test)]` module changed or removed";
        let body = &LIB[LIB.find("    #[test]\n    fn tricky").unwrap_or(0)..LIB.len() - 2];
        let rows = [
            ("a + b", "b + a", ""),
            ("add(1, 2), 3", "\n        add(1,2),3\n", ""),
            ("    }\n}\n", "    }\n#[test]\nfn more() {}\n}\n", ""),
            (
                "mod tests {",
                "#[expect(unused)]\n/// Doc.\nmod tests {",
                "",
            ),
            ("3);", "4);", "test `tests::adds` changed (line 14)"),
            ("    fn adds", "#[ignore]\n    fn adds", adds),
            ("    fn adds", "#[cfg_attr(all(), ignore)]\nfn adds", adds),
            ("    fn adds", "#[should_panic]\n    fn adds", adds),
            ("#[test]\n    fn adds", "fn adds", moved),
            ("'}'));", "'{'));", tricky),
            ("'outer: loop { break 'outer; }", "", tricky),
            (body, "", "test `tests::tricky` removed"),
            ("#[cfg(test)]", "#[cfg(any())]", module),
            ("mod tests {", "mod tests {\n#![cfg(any())]", module),
            ("want, \"a", "want + 1, \"a", helper),
            ("super::*", "super::add", import),
        ];
        rust(LIB, &rows);
    }

    #[test]
    fn replaced_assertion_macros() {
        let rules = "macro_rules! assert_eq { ($($t:tt)*) => {}; }\n";
        let replaces = |what: &str, line: u8| {
            format!("`{what}` added (line {line}): it replaces the assertion macro")
        };
        let (defining, defined) = (
            format!("{rules}pub fn"),
            replaces("macro_rules! assert_eq", 1),
        );
        let (renamed, imported) = (
            replaces("use … as assert_eq", 8),
            replaces("use …::assert_eq", 8),
        );
        let rows = [
            ("pub fn", defining.as_str(), defined.as_str()),
            ("super::*;", "super::*;\nuse x::y as assert_eq;", &renamed),
            (
                "super::*;",
                "super::*;\nuse p::{assert_eq, a as b};",
                &imported,
            ),
            ("super::*;", "super::*;\nuse std::{assert_eq, panic};", ""),
            (
                "super::*;",
                "super::*;\nmacro_rules! check { () => {} }",
                "",
            ),
        ];
        rust(LIB, &rows);
        let both = format!("{rules}{LIB}");
        rust(&both, &[("", "", "")]);
        assert_eq!(rust_tests_changed(&both, LIB), Vec::<String>::new());
    }

    /// Tests of other frameworks, at the top of a file.
    const OTHERS: &str = r"#![allow(dead_code)]
#[tokio::test]
async fn waits() { assert!(f().await > 0); }
#[rstest]
#[case(1)]
fn cases(#[case] n: u8) { assert!(n > 0); }
#[test_case(2)]
fn numbered(n: u8) { assert!(n > 0); }
proptest! {
    #![proptest_config(ProptestConfig::with_cases(9))]
    #[test]
    fn holds(n in 0..10u8) { prop_assert!(n > 0); }
}
";

    #[test]
    fn rust_tests_of_other_frameworks_and_places() {
        let changed = rust_tests_changed(OTHERS, &OTHERS.replace("> 0", ">= 0"));
        let lines = [("waits", 3), ("cases", 6), ("numbered", 8), ("holds", 12)];
        let want = lines.map(|(name, line)| format!("test `{name}` changed (line {line})"));
        assert_eq!(changed, want);
        let file = "the file's `#![…]` attributes changed (line 1)";
        let rows = [
            ("#![allow(dead_code)]", "#![warn(missing_docs)]", ""),
            ("(9)", "(0)", file),
            ("#![allow", "#![cfg(any())]\n#![allow", file),
        ];
        rust(OTHERS, &rows);
        let hidden = "the attributes of `mod tests` changed (line 3)";
        let rows = [
            ("#[cfg(test)]\nmod tests;\n", "", "`mod tests` removed"),
            ("mod util;\n", "", ""),
            ("(test)", "(all(test, any()))", hidden),
        ];
        rust("mod util;\n#[cfg(test)]\nmod tests;\n", &rows);
    }

    #[test]
    fn files_the_runner_files_include() {
        #[track_caller]
        fn case(path: &str, text: &str, want: &[&str]) {
            assert_eq!(included(path, text), want, "{path}");
        }
        case(
            "Makefile",
            "include rules.make\n-include local.mk $(EXTRA)\nsinclude ../out.mk\ntest:\n\t@true\n",
            &["local.mk", "rules.make"],
        );
        case(
            "sub/Makefile",
            "include ../common/rules\n",
            &["common/rules"],
        );
        case(
            "justfile",
            "set dotenv-load\nimport 'ci.justfile'\nimport? \"local.just\"\nmod tools\nmod web 'web/tasks.just'\nset dotenv-filename := '.env.test'\n",
            &[
                ".env",
                ".env.test",
                "ci.justfile",
                "local.just",
                "tools.just",
                "tools/.justfile",
                "tools/justfile",
                "tools/mod.just",
                "web/tasks.just",
            ],
        );
        case(
            "Taskfile.yml",
            "version: '3'\ndotenv: ['.env', 'ci.env']\nincludes:\n  ci:\n    taskfile: ./ci.yml\n    flatten: true\n  docs: ./docs/Tasks.yml\ntasks:\n  test:\n    cmds: [go test]\n",
            &[".env", "ci.env", "ci.yml", "docs/Tasks.yml"],
        );
        case("README.md", "include x\n", &[]);
    }
}
