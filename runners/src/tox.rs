//! `tox`: the environments of the configuration file tox would read, parsed as text. tox
//! itself is never asked: `tox list` loads plugins and provisions the `requires` of the
//! configuration, which installs and runs packages.

use std::collections::HashSet;

use toml::de::{DeTable, DeValue};

use crate::detection::{Absence, Arguments, Context, RunnerDef, Words};
use crate::files::{self, MAX_MANIFEST};
use crate::quote::quote;
use crate::runner::{Runner, TailRule, Task};

pub(crate) const RUNNER: RunnerDef = RunnerDef {
    id: "tox",
    label: "Tox",
    executes: "nothing: tox.ini, setup.cfg, pyproject.toml and tox.toml are read as text, never with `tox list` (which loads plugins and provisions `requires`); running an env installs its deps and runs its commands",
    manifests: CONFIGS,
    detect,
    // Measured with tox 4.67: `tox -e lint -- --foo -- a 'b c'` hands `--foo -- a 'b c'`
    // to `{posargs}` (the first `--` dropped, later ones kept); a word before `--` is
    // tox's own (`tox -e lint --foo` fails with "unrecognized arguments", and `-x
    // testenv:lint.commands=…` would replace the env's commands).
    arguments: |_, _| Arguments::AfterDashDash,
    words: Words::AfterDashDash {
        test_argument: "--verbose",
    },
    ..RunnerDef::BASE
};

/// The files tox looks for in a folder, in its order (tox 4.67,
/// `tox/config/source/discover.py`): a `setup.cfg` without `[tox:tox]`, a `pyproject.toml`
/// without `[tool.tox]` and an empty `tox.toml` are passed over.
const CONFIGS: &[&str] = &["tox.ini", "setup.cfg", "pyproject.toml", "tox.toml"];

/// `sys.platform` as Python spells it here: a factor every env has.
const PLATFORM: &str = match std::env::consts::OS.as_bytes() {
    b"macos" => "darwin",
    b"windows" => "win32",
    _ => std::env::consts::OS,
};

fn detect(ctx: &Context<'_>) -> Result<Runner, Absence> {
    for name in CONFIGS {
        // Creating one earlier in the order changes which file tox reads.
        ctx.depends_on_file(name);
    }
    if !CONFIGS.iter().any(|n| files::exists(&ctx.root.join(n))) {
        return Err(Absence::Absent(
            "no tox.ini, setup.cfg, pyproject.toml or tox.toml in the root".into(),
        ));
    }
    ctx.needs_binary("tox")?;
    let inside = files::Root::new(ctx.root);
    for name in CONFIGS {
        let path = ctx.root.join(name);
        if !files::exists(&path) {
            continue;
        }
        let bytes = inside
            .read(&path, MAX_MANIFEST)
            .map_err(|err| Absence::Failed(format!("{name}: {err}")))?;
        let text = String::from_utf8(bytes)
            .map_err(|_| Absence::Failed(format!("{name}: not UTF-8, which tox cannot read")))?;
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        let envs = match *name {
            "tox.ini" => parse_ini(text).and_then(|ini| envs_of_ini(&ini, "tox").map(Some)),
            // tox reads setup.cfg only when it has `[tox:tox]` (a broken one fails it all the
            // same: it is parsed first).
            "setup.cfg" => parse_ini(text).and_then(|ini| match ini.section("tox:tox") {
                Some(_) => envs_of_ini(&ini, "tox:tox").map(Some),
                None => Ok(None),
            }),
            "pyproject.toml" => pyproject_envs(text),
            _ => toml_envs(text),
        }
        .map_err(|err| Absence::Failed(format!("{name}: {err}")))?;
        if let Some(envs) = envs {
            return Ok(into_runner(name, envs));
        }
    }
    Err(Absence::Absent(
        "no tox configuration: setup.cfg has no [tox:tox], pyproject.toml no [tool.tox], tox.toml no settings"
            .into(),
    ))
}

/// One environment tox lists, with its description.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Env {
    /// Its name, as `tox -e` takes it.
    pub name: String,
    /// Its `description`, on one line.
    pub description: Option<String>,
}

fn into_runner(file: &str, envs: Vec<Env>) -> Runner {
    let mut runner = Runner::new("tox", "Tox", "tox");
    runner.tail_rule = TailRule::DashDashFirst;
    runner.notes.push(format!("configuration: {file}"));
    for env in envs {
        let name = env.name;
        if name == "ALL" || name.contains([',', '{', '}']) {
            runner.notes.push(format!(
                "env `{name}` is left out: `tox -e` reads `ALL`, commas and braces as a list of \
                 envs"
            ));
            continue;
        }
        // `tox -e -x` fails ("expected one argument"); `tox -e-x` runs the env `-x`.
        let command = if name.starts_with('-') {
            format!("tox -e{}", quote(&name))
        } else {
            format!("tox -e {}", quote(&name))
        };
        runner.push_task(Task {
            name,
            command,
            doc: env.description,
            params: Vec::new(),
            cwd: None,
        });
    }
    runner
}

// ---------------------------------------------------------------------------------------
// Factor expressions (tox/config/loader/ini/factor.py).

/// tox's `expand_ranges`: `{10-12}` is `{10,11,12}`, `{12-}` runs to 3.15's minor and
/// `{-13}` starts at 11.
fn expand_ranges(value: &str) -> String {
    const MIN: u32 = 11;
    const MAX: u32 = 15;
    let bytes = value.as_bytes();
    let digits = |from: usize| {
        bytes[from..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count()
    };
    let delimiter = |at: usize| matches!(bytes.get(at), Some(b',' | b'}'));
    let number = |from: usize, len: usize| value[from..from + len].parse::<u32>().ok();
    let list = |range: Vec<u32>| {
        range
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(",")
    };
    let open = |start: Option<u32>, stop: Option<u32>| {
        let first = start.unwrap_or(MIN);
        let last = stop.unwrap_or(MAX);
        let range: Vec<u32> = (first..=last).collect();
        if range.is_empty() {
            vec![if start.is_none() { last } else { first }]
        } else {
            range
        }
    };
    let mut out = String::with_capacity(value.len());
    let mut i = 0;
    while i < bytes.len() {
        let prev = i.checked_sub(1).map(|p| bytes[p]);
        // `(?<![\w.-])`: only an env or a brace item opens a range.
        let free = !value[..i]
            .chars()
            .next_back()
            .is_some_and(|p| p.is_alphanumeric() || matches!(p, '_' | '.' | '-'));
        let d1 = digits(i);
        if free && d1 > 0 && bytes.get(i + d1) == Some(&b'-') {
            let d2 = digits(i + d1 + 1);
            let end = i + d1 + 1 + d2;
            if d2 > 0 && delimiter(end) {
                if let (Some(a), Some(b)) = (number(i, d1), number(i + d1 + 1, d2)) {
                    let range: Vec<u32> = if a <= b {
                        (a..=b).collect()
                    } else {
                        (b..=a).rev().collect()
                    };
                    out.push_str(&list(range));
                    out.push(char::from(bytes[end]));
                    i = end + 1;
                    continue;
                }
            } else if d2 == 0 && delimiter(i + d1 + 1) {
                out.push_str(&list(open(number(i, d1), None)));
                out.push(char::from(bytes[i + d1 + 1]));
                i += d1 + 2;
                continue;
            }
        }
        if matches!(prev, Some(b'{' | b',')) && bytes[i] == b'-' {
            let d = digits(i + 1);
            if d > 0 && delimiter(i + 1 + d) {
                out.push_str(&list(open(None, number(i + 1, d))));
                out.push(char::from(bytes[i + 1 + d]));
                i += d + 2;
                continue;
            }
        }
        if d1 > 0 && delimiter(i + d1) {
            out.push_str(&value[i..=i + d1]);
            i += d1 + 1;
            continue;
        }
        let c = value[i..].chars().next().unwrap_or('\0');
        out.push(c);
        i += c.len_utf8().max(1);
    }
    out
}

/// Whether `factor` is one tox accepts (`_FACTOR_RE`): word characters, `.`, and fnmatch's
/// `*`, `?`, `[…]`, with an optional leading `!`; or nothing.
fn is_factor(factor: &str) -> bool {
    if factor.is_empty() {
        return true;
    }
    let rest = factor.strip_prefix('!').unwrap_or(factor);
    let mut chars = rest.chars().peekable();
    if chars.peek().is_none() {
        return false;
    }
    while let Some(c) = chars.next() {
        if c == '[' {
            chars.next_if_eq(&'!');
        } else if !(c.is_alphanumeric() || matches!(c, '_' | '.' | '*' | '?' | ']')) {
            return false;
        }
    }
    true
}

/// The index past a run of brace groups starting at `at` (`{a,b}{c}`), if one starts there.
fn brace_run(value: &str, at: usize) -> Option<usize> {
    let mut end = at;
    while value[end..].starts_with('{') {
        let close = value[end + 1..].find('}')?;
        if close == 0 {
            break;
        }
        end += close + 2;
    }
    (end > at).then_some(end)
}

/// tox's `expand_env_with_negation`: `{py,!pi}-{a,b},c` is `py-a`, `py-b`, `!pi-a`,
/// `!pi-b`, `c`. An expression whose factors tox refuses is an error, with the variant.
fn expand_env_with_negation(value: &str) -> Result<Vec<String>, String> {
    // Split on commas outside brace groups; empty items drop out.
    let mut items = Vec::new();
    let mut item = String::new();
    let mut i = 0;
    while i < value.len() {
        if let Some(end) = brace_run(value, i) {
            item.push_str(&value[i..end]);
            i = end;
            continue;
        }
        let c = value[i..].chars().next().unwrap_or('\0');
        if c == ',' {
            items.push(std::mem::take(&mut item));
        } else {
            item.push(c);
        }
        i += c.len_utf8();
    }
    items.push(item);
    let mut out = Vec::new();
    for item in items.iter().map(|i| i.trim()).filter(|i| !i.is_empty()) {
        // Literal parts and brace contents alternate.
        let mut parts: Vec<Vec<&str>> = Vec::new();
        let mut rest = item;
        loop {
            let open = rest
                .find('{')
                .filter(|&o| rest[o + 1..].find('}').is_some_and(|c| c > 0));
            match open {
                Some(o) => {
                    let close = o + 1 + rest[o + 1..].find('}').unwrap_or(0);
                    parts.push(rest[..o].split(',').map(str::trim).collect());
                    parts.push(rest[o + 1..close].split(',').map(str::trim).collect());
                    rest = &rest[close + 1..];
                }
                None => {
                    parts.push(rest.split(',').map(str::trim).collect());
                    break;
                }
            }
        }
        let mut variants = vec![String::new()];
        for part in &parts {
            if variants.len().saturating_mul(part.len()) > MAX_VARIANTS {
                return Err(format!("`{item}` expands to more than {MAX_VARIANTS} envs"));
            }
            variants = variants
                .iter()
                .flat_map(|v| part.iter().map(move |p| format!("{v}{p}")))
                .collect();
        }
        for variant in variants {
            if !variant.split('-').all(is_factor) {
                return Err(format!("`{variant}` is not an env name tox can expand"));
            }
            out.push(variant);
        }
    }
    Ok(out)
}

/// The most envs one expression may expand to: a product of braces grows fast.
const MAX_VARIANTS: usize = 10_000;

/// Envs as their factors, each with whether it is negated (`!lint`).
type FactorGroups = Vec<Vec<(String, bool)>>;

/// tox's `find_factor_groups`: each env of an expression, as its factors with whether each
/// is negated.
fn factor_groups(value: &str) -> Result<FactorGroups, String> {
    Ok(expand_env_with_negation(&expand_ranges(value))?
        .into_iter()
        .map(|env| {
            env.split('-')
                .map(|f| match f.strip_prefix('!') {
                    Some(name) => (name.to_owned(), true),
                    None => (f.to_owned(), false),
                })
                .collect()
        })
        .collect())
}

/// tox's `extend_factors`: the env names an expression stands for (`py3{10,11}` is
/// `py310`, `py311`).
pub(crate) fn expand(value: &str) -> Result<Vec<String>, String> {
    Ok(factor_groups(value)?
        .into_iter()
        .map(|group| {
            group
                .into_iter()
                .map(|(name, _)| name)
                .collect::<Vec<_>>()
                .join("-")
        })
        .collect())
}

/// A line split at its factor condition (`django42,!lint: text`): the condition's groups,
/// when it has one tox reads, and the text.
fn split_condition(line: &str) -> (Option<FactorGroups>, &str) {
    let marker = line
        .char_indices()
        .find(|&(i, c)| c == ':' && line[i + 1..].chars().next().is_none_or(char::is_whitespace));
    if let Some((at, _)) = marker
        && let Ok(groups) = factor_groups(line[..at].trim())
    {
        return (Some(groups), line[at + 1..].trim());
    }
    (None, line)
}

/// tox's `filter_for_env`: the lines of a value that hold for env `name` (those without a
/// condition, and those whose condition its factors or the platform meet).
fn filter_for_env(value: &str, name: Option<&str>) -> String {
    let mut current: HashSet<String> = name
        .and_then(|n| factor_groups(n).ok())
        .into_iter()
        .flatten()
        .flatten()
        .map(|(f, _)| f)
        .collect();
    current.insert(PLATFORM.to_owned());
    current.insert(std::env::consts::ARCH.to_owned());
    let mut overall: Vec<&str> = Vec::new();
    let mut continuation = false;
    let mut pending_skip = false;
    for line in value.split('\n') {
        match split_condition(line) {
            (None, content) => {
                if pending_skip && !continuation && !content.ends_with('\\') {
                    pending_skip = false;
                    continue;
                }
                if !content.is_empty() {
                    overall.push(content);
                    continuation = content.ends_with('\\');
                }
                pending_skip = false;
            }
            (Some(groups), content) => {
                let matched = groups
                    .iter()
                    .any(|group| group.iter().all(|(f, negate)| current.contains(f) ^ negate));
                if matched {
                    overall.push(content);
                    continuation = content.ends_with('\\');
                    pending_skip = false;
                } else {
                    pending_skip = content.ends_with('\\');
                }
            }
        }
    }
    overall.join("\n")
}

// ---------------------------------------------------------------------------------------
// INI files, read as Python's configparser reads them (tox 4.67 uses `ConfigParser(
// interpolation=None)`): `#`/`;` comment lines, values continued on deeper-indented lines,
// keys lowercased, a repeated section or key an error.

#[derive(Debug, Default)]
struct Ini {
    sections: Vec<IniSection>,
}

#[derive(Debug)]
struct IniSection {
    name: String,
    values: Vec<(String, String)>,
}

impl Ini {
    fn section(&self, name: &str) -> Option<&IniSection> {
        self.sections.iter().find(|s| s.name == name)
    }
}

impl IniSection {
    fn get(&self, key: &str) -> Option<&str> {
        self.values
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

fn parse_ini(text: &str) -> Result<Ini, String> {
    let mut ini = Ini::default();
    // The lines of the value being read, and the indentation of its key.
    let mut current: Option<(String, Vec<String>)> = None;
    let mut indent_level = 0;
    let flush = |ini: &mut Ini, current: &mut Option<(String, Vec<String>)>| {
        if let (Some((key, lines)), Some(section)) = (current.take(), ini.sections.last_mut()) {
            let value = lines.join("\n").trim_end().to_owned();
            section.values.push((key, value));
        }
    };
    for (number, line) in text.lines().enumerate() {
        let number = number + 1;
        let line = line.strip_suffix('\r').unwrap_or(line);
        let comment = line.trim_start().starts_with(['#', ';']);
        let value = if comment { "" } else { line.trim() };
        if value.is_empty() {
            if !comment && let Some((_, lines)) = &mut current {
                lines.push(String::new());
            }
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        if let Some((_, lines)) = &mut current
            && indent > indent_level
        {
            lines.push(value.to_owned());
            continue;
        }
        indent_level = indent;
        flush(&mut ini, &mut current);
        if let Some(header) = value
            .strip_prefix('[')
            .and_then(|rest| rest.rfind(']').filter(|&c| c > 0).map(|c| &rest[..c]))
        {
            if ini.section(header).is_some() {
                return Err(format!(
                    "line {number}: section [{header}] appears twice, which tox refuses"
                ));
            }
            ini.sections.push(IniSection {
                name: header.to_owned(),
                values: Vec::new(),
            });
            continue;
        }
        let Some(section) = ini.sections.last() else {
            return Err(format!("line {number}: a value before any [section]"));
        };
        let Some(at) = value.find(['=', ':']) else {
            return Err(format!(
                "line {number}: neither a section, a key nor a value"
            ));
        };
        let key = value[..at].trim_end().to_lowercase();
        if key.is_empty() {
            return Err(format!("line {number}: a value without a key"));
        }
        if section.get(&key).is_some() {
            return Err(format!(
                "line {number}: `{key}` is set twice in [{}], which tox refuses",
                section.name
            ));
        }
        current = Some((key, vec![value[at + 1..].trim().to_owned()]));
    }
    flush(&mut ini, &mut current);
    Ok(ini)
}

/// How tox reads a value it uses (`IniLoader.process_raw`): comments dropped, the lines
/// for env `name` kept, continued lines joined.
fn process_raw(value: &str, name: Option<&str>) -> Option<String> {
    let mut lines = Vec::new();
    for line in value.split('\n') {
        if line.starts_with('#') {
            continue;
        }
        let cut = unescaped_hash(line).map_or(line, |at| line[..at].trim_end());
        lines.push(cut.replace("\\#", "#"));
    }
    let stripped = lines.join("\n").replace('\r', "");
    let filtered = filter_for_env(&stripped, name);
    if filtered.is_empty() && !stripped.trim().is_empty() {
        // No line holds for this env: tox looks further, as if the key were not set.
        return None;
    }
    Some(filtered.replace("\\\n", ""))
}

/// Where a `#` not preceded by `\` starts a comment.
fn unescaped_hash(line: &str) -> Option<usize> {
    line.char_indices()
        .find(|&(i, c)| c == '#' && !line[..i].ends_with('\\'))
        .map(|(i, _)| i)
}

/// The envs `tox list` shows for INI text whose core section is `core` (`tox` in tox.ini
/// and pyproject's `legacy_tox_ini`, `tox:tox` in setup.cfg), in its order: the default
/// `env_list` (else `py`), the `[testenv:…]` sections (generative names expanded), then envs
/// that only factor conditions name with a factor nothing else has (tox lists
/// `mysql: mysqlclient` as the env `mysql`).
pub(crate) fn ini_envs(text: &str, core: &str) -> Result<Vec<Env>, String> {
    envs_of_ini(&parse_ini(text)?, core)
}

fn envs_of_ini(ini: &Ini, core: &str) -> Result<Vec<Env>, String> {
    let core_prefix = core.split_once(':').map(|(p, _)| p);
    let core_section = ini.section(core);
    let raw_list = core_section.and_then(|s| s.get("env_list").or_else(|| s.get("envlist")));
    let mut explicit = Vec::new();
    if let Some(raw) = raw_list.and_then(|r| process_raw(r, None)) {
        for line in raw.split('\n') {
            explicit.extend(expand(line).map_err(|e| format!("[{core}] env_list: {e}"))?);
        }
    }
    let mut known: HashSet<String> = factors_of(&explicit);
    // (name, section) for every env a [testenv:…] section defines.
    let mut defined: Vec<(String, &IniSection)> = Vec::new();
    for section in &ini.sections {
        let Some(("testenv", name)) = section.name.split_once(':') else {
            continue;
        };
        let names = expand(name).map_err(|e| format!("[{}]: {e}", section.name))?;
        known.extend(factors_of(&names));
        defined.extend(names.into_iter().map(|n| (n, section)));
    }
    let is_tox_section = |s: &IniSection| match s.name.split_once(':') {
        Some(("testenv", _)) => true,
        _ if s.name == core => true,
        Some((prefix, rest)) => {
            Some(prefix) == core_prefix && (rest == "testenv" || rest.starts_with("testenv:"))
        }
        None => core_prefix.is_none() && s.name == "testenv",
    };
    let mut conditional = Vec::new();
    for section in ini.sections.iter().filter(|s| is_tox_section(s)) {
        for (_, value) in &section.values {
            for line in value.split('\n') {
                if let (Some(groups), _) = split_condition(line) {
                    for group in groups {
                        let env: Vec<String> = group.into_iter().map(|(n, _)| n).collect();
                        if env.iter().any(|f| !known.contains(f)) {
                            conditional.push(env.join("-"));
                        }
                    }
                }
            }
        }
    }
    let base = ini.section("testenv");
    let mut order = explicit.clone();
    if order.is_empty() {
        // tox runs `py` when no env is chosen.
        order.push("py".into());
    }
    order.extend(defined.iter().map(|(n, _)| n.clone()));
    order.extend(conditional);
    let mut seen = HashSet::new();
    let mut envs = Vec::new();
    for name in order {
        if name.starts_with('.') || !seen.insert(name.clone()) {
            // `.pkg` and its kind are packaging envs, which `tox list` leaves out.
            continue;
        }
        let own = defined.iter().find(|(n, _)| *n == name).map(|(_, s)| *s);
        let description = [own, base]
            .into_iter()
            .flatten()
            .find_map(|s| {
                s.get("description")
                    .and_then(|v| process_raw(v, Some(&name)))
            })
            .map(|d| {
                d.replace("{env_name}", &name)
                    .replace("{envname}", &name)
                    .replace('\n', " ")
                    .trim()
                    .to_owned()
            })
            .filter(|d| !d.is_empty());
        envs.push(Env { name, description });
    }
    Ok(envs)
}

fn factors_of(names: &[String]) -> HashSet<String> {
    names
        .iter()
        .flat_map(|n| n.split('-').map(str::to_owned))
        .collect()
}

// ---------------------------------------------------------------------------------------
// TOML: tox.toml and pyproject.toml's [tool.tox].

/// The envs of pyproject.toml: `[tool.tox]` in TOML form, else its `legacy_tox_ini` text;
/// `None` when it has neither.
fn pyproject_envs(text: &str) -> Result<Option<Vec<Env>>, String> {
    let doc = DeTable::parse(text).map_err(|e| format!("not TOML: {}", e.message()))?;
    let tox = match get(doc.get_ref(), "tool") {
        Some(DeValue::Table(tool)) => match get(tool, "tox") {
            Some(DeValue::Table(tox)) => tox,
            _ => return Ok(None),
        },
        _ => return Ok(None),
    };
    if tox.iter().any(|(k, _)| k.get_ref() != "legacy_tox_ini") {
        return envs_of_table(tox).map(Some);
    }
    match get(tox, "legacy_tox_ini") {
        Some(DeValue::String(ini)) => ini_envs(ini, "tox")
            .map(Some)
            .map_err(|e| format!("legacy_tox_ini: {e}")),
        _ => Ok(None),
    }
}

/// The envs of a tox.toml; `None` when it sets nothing (tox passes over it).
fn toml_envs(text: &str) -> Result<Option<Vec<Env>>, String> {
    let doc = DeTable::parse(text).map_err(|e| format!("not TOML: {}", e.message()))?;
    let table = doc.get_ref();
    if table.iter().all(|(k, _)| k.get_ref() == "legacy_tox_ini") {
        return Ok(None);
    }
    envs_of_table(table).map(Some)
}

fn get<'t, 'i>(table: &'t DeTable<'i>, key: &str) -> Option<&'t DeValue<'i>> {
    table
        .iter()
        .find(|(k, _)| k.get_ref() == key)
        .map(|(_, v)| v.get_ref())
}

/// A table's entries in the order the file writes them (the parser's map sorts them).
fn ordered<'t, 'i>(table: &'t DeTable<'i>) -> Vec<(&'t str, &'t DeValue<'i>)> {
    let mut entries: Vec<_> = table.iter().collect();
    entries.sort_by_key(|(k, _)| k.span().start);
    entries
        .into_iter()
        .map(|(k, v)| (k.get_ref().as_ref(), v.get_ref()))
        .collect()
}

fn string_of<'t>(value: Option<&'t DeValue<'_>>) -> Option<&'t str> {
    match value {
        Some(DeValue::String(s)) => Some(s.as_ref()),
        _ => None,
    }
}

/// The envs of tox's TOML configuration (the table that holds `env_list`): `env_list`
/// (strings as written, `product`, range and labelled groups expanded), the `[env.…]`
/// tables, then the envs `[env_base.…]` generates from its `factors`.
pub(crate) fn envs_of_table(tox: &DeTable<'_>) -> Result<Vec<Env>, String> {
    let mut names: Vec<String> = Vec::new();
    match get(tox, "env_list") {
        None => {}
        Some(DeValue::Array(items)) => {
            for item in items.iter().map(|i| i.get_ref()) {
                match item {
                    DeValue::String(s) => names.push(s.to_string()),
                    DeValue::Table(t) if get(t, "product").is_some() => {
                        names.extend(product(t)?);
                    }
                    DeValue::Table(_) => names.extend(factor_group(item)?),
                    _ => return Err("env_list holds an item tox cannot read".into()),
                }
            }
        }
        Some(_) => return Err("env_list is not a list".into()),
    }
    if names.is_empty() {
        names.push("py".into());
    }
    let envs = match get(tox, "env") {
        Some(DeValue::Table(envs)) => ordered(envs),
        Some(_) => return Err("env is not a table".into()),
        None => Vec::new(),
    };
    names.extend(envs.iter().map(|(n, _)| (*n).to_owned()));
    let mut generated: Vec<(String, &str)> = Vec::new();
    let bases = match get(tox, "env_base") {
        Some(DeValue::Table(bases)) => ordered(bases),
        _ => Vec::new(),
    };
    for (base, config) in &bases {
        let DeValue::Table(config) = config else {
            return Err(format!("env_base.{base} is not a table"));
        };
        let Some(DeValue::Array(factors)) = get(config, "factors") else {
            return Err(format!("env_base.{base} has no `factors` list"));
        };
        let grouped = factors
            .first()
            .is_some_and(|f| matches!(f.get_ref(), DeValue::Array(_) | DeValue::Table(_)));
        let suffixes = if grouped {
            let groups = factors
                .iter()
                .map(|g| factor_group(g.get_ref()))
                .collect::<Result<Vec<_>, _>>()?;
            cartesian(&groups)?
        } else {
            factors
                .iter()
                .map(|f| scalar(f.get_ref()))
                .collect::<Result<Vec<_>, _>>()?
        };
        generated.extend(suffixes.into_iter().map(|s| (format!("{base}-{s}"), *base)));
    }
    names.extend(generated.iter().map(|(n, _)| n.clone()));
    let run_base = match get(tox, "env_run_base") {
        Some(DeValue::Table(t)) => string_of(get(t, "description")),
        _ => None,
    };
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for name in names {
        if name.starts_with('.') || !seen.insert(name.clone()) {
            continue;
        }
        let own = envs
            .iter()
            .find(|(n, _)| *n == name)
            .and_then(|(_, v)| match v {
                DeValue::Table(t) => string_of(get(t, "description")),
                _ => None,
            });
        let from_base = generated
            .iter()
            .find(|(n, _)| *n == name)
            .and_then(|(_, base)| bases.iter().find(|(b, _)| b == base))
            .and_then(|(_, v)| match v {
                DeValue::Table(t) => string_of(get(t, "description")),
                _ => None,
            });
        let description = own
            .or(from_base)
            .or(run_base)
            .map(|d| {
                d.replace("{env_name}", &name)
                    .replace('\n', " ")
                    .trim()
                    .to_owned()
            })
            .filter(|d| !d.is_empty());
        out.push(Env { name, description });
    }
    Ok(out)
}

fn scalar(value: &DeValue<'_>) -> Result<String, String> {
    match value {
        DeValue::String(s) => Ok(s.to_string()),
        DeValue::Integer(i) => Ok(i.as_str().to_owned()),
        _ => Err("a factor that is not a string".into()),
    }
}

/// A `product` item of `env_list`: every combination of its groups joined with `-`, less
/// its `exclude`.
fn product(table: &DeTable<'_>) -> Result<Vec<String>, String> {
    let Some(DeValue::Array(groups)) = get(table, "product") else {
        return Err("`product` is not a list".into());
    };
    let groups = groups
        .iter()
        .map(|g| factor_group(g.get_ref()))
        .collect::<Result<Vec<_>, _>>()?;
    let exclude: HashSet<String> = match get(table, "exclude") {
        Some(DeValue::Array(items)) => items
            .iter()
            .filter_map(|i| scalar(i.get_ref()).ok())
            .collect(),
        _ => HashSet::new(),
    };
    if groups.is_empty() {
        return Ok(Vec::new());
    }
    Ok(cartesian(&groups)?
        .into_iter()
        .filter(|n| !exclude.contains(n))
        .collect())
}

fn cartesian(groups: &[Vec<String>]) -> Result<Vec<String>, String> {
    let mut out = vec![String::new()];
    for group in groups {
        if out.len().saturating_mul(group.len()) > MAX_VARIANTS {
            return Err(format!(
                "a product expands to more than {MAX_VARIANTS} envs"
            ));
        }
        out = out
            .iter()
            .flat_map(|o| {
                group.iter().map(move |g| {
                    if o.is_empty() {
                        g.clone()
                    } else {
                        format!("{o}-{g}")
                    }
                })
            })
            .collect();
    }
    Ok(out)
}

/// One factor group: a list of names, a range (`{ prefix = "py3", start = 10, stop = 13 }`)
/// or a labelled group (`{ django = ["42", "50"] }`, `{ py = { prefix = … } }`).
fn factor_group(value: &DeValue<'_>) -> Result<Vec<String>, String> {
    match value {
        DeValue::Array(items) => items
            .iter()
            .map(|i| match i.get_ref() {
                DeValue::String(s) => Ok(s.to_string()),
                _ => Err("a factor group item that is not a string".to_owned()),
            })
            .collect(),
        DeValue::Table(t) if get(t, "prefix").is_some() => range(t),
        DeValue::Table(t) if t.len() == 1 => {
            let (_, inner) = t
                .iter()
                .next()
                .map(|(k, v)| (k, v.get_ref()))
                .ok_or("empty")?;
            match inner {
                DeValue::Table(inner) if get(inner, "prefix").is_some() => range(inner),
                DeValue::Table(inner) => match get(inner, "values") {
                    Some(DeValue::Array(values)) => {
                        values.iter().map(|v| scalar(v.get_ref())).collect()
                    }
                    _ => Err("a labelled factor group without `values`".into()),
                },
                DeValue::Array(values) => values.iter().map(|v| scalar(v.get_ref())).collect(),
                _ => Err("a labelled factor group tox cannot read".into()),
            }
        }
        _ => Err("a factor group tox cannot read".into()),
    }
}

fn range(table: &DeTable<'_>) -> Result<Vec<String>, String> {
    let prefix = match get(table, "prefix") {
        Some(DeValue::String(p)) => p.to_string(),
        Some(other) => scalar(other)?,
        None => String::new(),
    };
    let int = |key| match get(table, key) {
        Some(DeValue::Integer(i)) if i.radix() == 10 => i
            .as_str()
            .replace('_', "")
            .parse::<u32>()
            .map(Some)
            .map_err(|_| format!("range `{key}` is not a small number")),
        None => Ok(None),
        Some(_) => Err(format!("range `{key}` is not an integer")),
    };
    let (start, stop) = (int("start")?, int("stop")?);
    let minors: Vec<u32> = match (start, stop) {
        (None, None) => return Err("a range without `start` or `stop`".into()),
        (Some(a), Some(b)) => (a..=b).collect(),
        (a, b) => {
            let first = a.unwrap_or(11);
            let last = b.unwrap_or(15);
            let r: Vec<u32> = (first..=last).collect();
            if r.is_empty() {
                vec![if a.is_none() { last } else { first }]
            } else {
                r
            }
        }
    };
    if minors.len() > MAX_VARIANTS {
        return Err(format!("a range of more than {MAX_VARIANTS} envs"));
    }
    Ok(minors.into_iter().map(|m| format!("{prefix}{m}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(envs: &[Env]) -> Vec<&str> {
        envs.iter().map(|e| e.name.as_str()).collect()
    }

    #[test]
    fn factor_expressions_expand_as_tox_expands_them() {
        #[track_caller]
        fn case(value: &str, want: &[&str]) {
            assert_eq!(expand(value).expect(value), want, "{value}");
        }
        case("py3{10,11}", &["py310", "py311"]);
        case(
            "py{310,311}-django{42,50}",
            &[
                "py310-django42",
                "py310-django50",
                "py311-django42",
                "py311-django50",
            ],
        );
        case("py311, lint ,type", &["py311", "lint", "type"]);
        case("py3{10-12}", &["py310", "py311", "py312"]);
        case("py3{13-}", &["py313", "py314", "py315"]);
        case("py3{-12}", &["py311", "py312"]);
        case("py3{12-10}", &["py312", "py311", "py310"]);
        case("py-django-4-2", &["py-django-4-2"]);
        case("{py,!pi}-a", &["py-a", "pi-a"]);
        case("", &[]);
        case("-x", &["-x"]);
        assert!(expand("has space").is_err());
        assert!(expand("a/b").is_err());
        assert!(
            expand("{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}{q,r}{s,t}{u,v}{w,x}{y,z}{1,2}")
                .is_err()
        );
    }

    #[test]
    fn factor_conditions_hold_per_env() {
        let value = "pytest\ndjango42: Django>=4.2,<4.3\ndjango50: Django>=5.0\n!lint: coverage";
        assert_eq!(
            filter_for_env(value, Some("py311-django42")),
            "pytest\nDjango>=4.2,<4.3\ncoverage"
        );
        assert_eq!(filter_for_env(value, Some("lint")), "pytest");
    }

    /// Measured: `tox l` in a folder holding this tox.ini (tox 4.67.13) lists these, in
    /// this order, with these descriptions (and `.pkg`, which is tox's packaging env in any
    /// project that builds a package).
    #[test]
    fn tox_ini_lists_what_tox_list_lists() {
        let text = "\
[tox]
env_list = py3{10,11}, lint  # the usual
    type
requires = tox>=4

[testenv]
description = run the tests on {env_name}
deps =
    django42: Django>=4.2
    mysql: mysqlclient
    !lint: pytest
commands = pytest {posargs}

[testenv:lint]
description = lint
  the code
commands = ruff check

[testenv:py{310,311}-django{42,50}]
; a comment
description =
    py310: old
    py311: new

[testenv:.pkg]
[testenv:-x]
";
        let envs = ini_envs(text, "tox").expect("parsed");
        assert_eq!(
            names(&envs),
            [
                "py310",
                "py311",
                "lint",
                "type",
                "py310-django42",
                "py310-django50",
                "py311-django42",
                "py311-django50",
                "-x",
                "mysql"
            ]
        );
        let doc = |name: &str| {
            envs.iter()
                .find(|e| e.name == name)
                .and_then(|e| e.description.clone())
        };
        assert_eq!(doc("py310").as_deref(), Some("run the tests on py310"));
        assert_eq!(doc("lint").as_deref(), Some("lint the code"));
        assert_eq!(doc("py310-django50").as_deref(), Some("old"));
        assert_eq!(doc("py311-django42").as_deref(), Some("new"));
    }

    #[test]
    fn without_env_list_tox_runs_py() {
        let envs = ini_envs("[testenv:lint]\ncommands = ruff\n", "tox").expect("parsed");
        assert_eq!(names(&envs), ["py", "lint"]);
    }

    #[test]
    fn ini_errors_tox_would_refuse() {
        assert!(ini_envs("[testenv:has space]\n", "tox").is_err());
        assert!(ini_envs("[tox]\n[tox]\n", "tox").is_err());
        assert!(ini_envs("[tox]\nenv_list = a\nenvlist = b\nenv_list = c\n", "tox").is_err());
        assert!(ini_envs("key = before any section\n", "tox").is_err());
    }

    #[test]
    fn setup_cfg_core_section() {
        let text = "[metadata]\nname = x\n[tox:tox]\nenvlist = py311\n[testenv:lint]\n";
        assert_eq!(
            names(&ini_envs(text, "tox:tox").expect("parsed")),
            ["py311", "lint"]
        );
    }

    /// Measured the same way with this tox.toml (without `has space`, on which `tox l`
    /// fails: "failed to load has space.description").
    #[test]
    fn toml_forms() {
        let text = r#"
env_list = ["lint", { product = [["py310", "py311"], { django = ["42", "50"] }], exclude = ["py310-50"] }, { prefix = "py3", start = 12, stop = 13 }]

[env_run_base]
description = "run {env_name}"

[env.type]
description = "check types"

[env.lint]

[env."has space"]

[env_base.test]
factors = [["a", "b"]]
description = "generated"
"#;
        let envs = toml_envs(text).expect("parsed").expect("settings");
        assert_eq!(
            names(&envs),
            [
                "lint",
                "py310-42",
                "py311-42",
                "py311-50",
                "py312",
                "py313",
                "type",
                "has space",
                "test-a",
                "test-b"
            ]
        );
        assert_eq!(envs[0].description.as_deref(), Some("run lint"));
        assert_eq!(envs[6].description.as_deref(), Some("check types"));
        assert_eq!(envs[8].description.as_deref(), Some("generated"));
        assert_eq!(toml_envs("").expect("empty"), None);
    }

    #[test]
    fn pyproject_forms() {
        let native = "[project]\nname = 'x'\n[tool.tox]\nenv_list = ['a']\n[tool.tox.env.b]\n";
        assert_eq!(
            names(&pyproject_envs(native).expect("ok").expect("tox")),
            ["a", "b"]
        );
        let legacy = "[tool.tox]\nlegacy_tox_ini = \"\"\"\n[tox]\nenvlist = py3{10,11}\n\"\"\"\n";
        assert_eq!(
            names(&pyproject_envs(legacy).expect("ok").expect("tox")),
            ["py310", "py311"]
        );
        assert_eq!(pyproject_envs("[project]\nname = 'x'\n").expect("ok"), None);
    }

    #[test]
    fn commands_never_read_a_name_as_an_option() {
        let envs = ["lint", "-x", "ALL", "a,b", "py{a}", "has space"]
            .map(|n| Env {
                name: n.into(),
                description: None,
            })
            .to_vec();
        let runner = into_runner("tox.toml", envs);
        let got: Vec<(&str, &str)> = runner
            .tasks
            .iter()
            .map(|t| (t.name.as_str(), t.command.as_str()))
            .collect();
        assert_eq!(got, [("lint", "tox -e lint"), ("-x", "tox -e-x")]);
        assert_eq!(runner.notes.len(), 5, "{:#?}", runner.notes);
    }
}
