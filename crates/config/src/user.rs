//! Your own configuration file: the keys that loosen the attempt's sandbox ([`HOST_KEYS`]),
//! which a repository's `speccoder.toml` may not set, since a repository is untrusted input.
//!
//! `$SPECCODER_CONFIG` names it (and must exist), else `$XDG_CONFIG_HOME/speccoder/config.toml`,
//! else `~/.config/speccoder/config.toml`; a missing default file means no loosening. It is
//! read through the same layer as every other file (size bound, regular files only) and
//! its errors name the file, line and key as a repository's do.
//!
//! [`HOST_KEYS`]: crate::HOST_KEYS

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde::de::{self, Deserializer};
use serde::Deserialize;
use toml::de::DeTable;

use super::{AttemptConfig, ConfigError, ConfigErrorKind, error, located, read_text};

/// The variable that names your own configuration file.
pub const USER_CONFIG_ENV: &str = "SPECCODER_CONFIG";

/// How an error names the default file before it is known where it is.
pub(crate) const DEFAULT_SHOWN: &str = "~/.config/speccoder/config.toml";

/// Where your own file is, and whether you named it (`$SPECCODER_CONFIG`): a file you
/// named must exist, since running without it would run with other settings than asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserConfigPath {
    /// The file.
    pub path: PathBuf,
    /// Named by `$SPECCODER_CONFIG`.
    pub explicit: bool,
}

/// Your own configuration file: `[attempt]` for every repository, `[repo."<folder>"]` for
/// the projects in that folder.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct UserConfig {
    /// The file it was read from, when there was one.
    #[serde(skip)]
    pub source: Option<PathBuf>,
    /// The keys for every repository.
    pub attempt: HostKeys,
    /// The keys for the projects in one folder (absolute, or starting with `~/`), added to
    /// `[attempt]`'s; a `true`/`false` of the deepest folder wins.
    #[serde(deserialize_with = "folders")]
    pub repo: BTreeMap<String, HostKeys>,
}

/// The `[attempt]` keys only your own file may set. Absent keys leave the default.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HostKeys {
    /// Replaces the default writable folders (in `[attempt]`), or adds to them (in a
    /// `[repo."…"]` table).
    #[serde(deserialize_with = "some_paths")]
    pub writable: Option<Vec<String>>,
    /// Hidden sockets and credential files let through.
    #[serde(deserialize_with = "super::writable")]
    pub reveal: Vec<String>,
    /// The checks keep the machine's network.
    pub network: Option<bool>,
    /// Withheld tests may run where no namespace hides them.
    pub allow_unisolated_withheld: Option<bool>,
    /// Your variables the checks get, unscreened.
    #[serde(deserialize_with = "super::names")]
    pub env: Vec<String>,
    /// Your variables the agent gets, unscreened.
    #[serde(deserialize_with = "super::names")]
    pub agent_env: Vec<String>,
}

impl UserConfig {
    /// Where your own file is, from this process's environment; `None` without a home.
    pub fn location() -> Option<UserConfigPath> {
        Self::location_from(|name| std::env::var_os(name))
    }

    /// [`Self::location`] with the environment given.
    pub fn location_from(var: impl Fn(&str) -> Option<OsString>) -> Option<UserConfigPath> {
        let set = |name: &str| var(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        if let Some(path) = set(USER_CONFIG_ENV) {
            return Some(UserConfigPath {
                path,
                explicit: true,
            });
        }
        // The XDG base directory specification: a relative value is to be ignored.
        let base = set("XDG_CONFIG_HOME")
            .filter(|p| p.is_absolute())
            .or_else(|| set("HOME").map(|home| home.join(".config")))?;
        Some(UserConfigPath {
            path: base.join("speccoder").join("config.toml"),
            explicit: false,
        })
    }

    /// Reads the file at `at`: a missing default file means no loosening; a missing file
    /// you named is an error.
    pub fn load(at: &UserConfigPath) -> Result<Self, ConfigError> {
        let path = &at.path;
        let Some(text) = read_text(path)? else {
            if at.explicit {
                return Err(ConfigError {
                    file: Some(path.clone()),
                    line: 0,
                    column: 0,
                    kind: Box::new(ConfigErrorKind::Io(format!(
                        "no such file, named by ${USER_CONFIG_ENV}: create it, or unset the variable"
                    ))),
                });
            }
            return Ok(Self::default());
        };
        let mut config = Self::parse(&text).map_err(|mut err| {
            err.file = Some(path.clone());
            err
        })?;
        config.source = Some(path.clone());
        Ok(config)
    }

    /// Parses the text of your own file.
    pub fn parse(text: &str) -> Result<Self, ConfigError> {
        let doc = DeTable::parse(text).map_err(|err| {
            let kind = ConfigErrorKind::Syntax(err.message().trim_end().to_owned());
            error(text, err.span(), kind)
        })?;
        let read = Self::deserialize(toml::de::Deserializer::from(doc.clone()));
        read.map_err(|err| located(text, doc.get_ref(), &err))
    }

    /// `attempt` with the keys of this file that apply to the project in `root` (a
    /// canonical path): `[attempt]`'s, then each `[repo."…"]` holding `root`, the
    /// shallowest first.
    pub fn apply(&self, attempt: &mut AttemptConfig, root: &Path) {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        self.apply_with_home(attempt, root, home.as_deref());
    }

    /// [`Self::apply`] with the home folder given.
    pub fn apply_with_home(&self, attempt: &mut AttemptConfig, root: &Path, home: Option<&Path>) {
        if let Some(writable) = &self.attempt.writable {
            attempt.writable.clone_from(writable);
        }
        let mut matching: Vec<(PathBuf, &HostKeys)> = self
            .repo
            .iter()
            .filter_map(|(folder, keys)| {
                let folder = match folder.strip_prefix("~/") {
                    Some(rest) => home?.join(rest),
                    None => PathBuf::from(folder),
                };
                let folder = folder.canonicalize().unwrap_or(folder);
                root.starts_with(&folder).then_some((folder, keys))
            })
            .collect();
        matching.sort_by_key(|(folder, _)| folder.components().count());
        let global = std::iter::once(&self.attempt);
        for (i, keys) in global.chain(matching.iter().map(|(_, k)| *k)).enumerate() {
            if i > 0 {
                add(&mut attempt.writable, keys.writable.iter().flatten());
            }
            add(&mut attempt.reveal, &keys.reveal);
            add(&mut attempt.env, &keys.env);
            add(&mut attempt.agent_env, &keys.agent_env);
            if let Some(network) = keys.network {
                attempt.network = network;
            }
            if let Some(allow) = keys.allow_unisolated_withheld {
                attempt.allow_unisolated_withheld = allow;
            }
        }
    }
}

/// `items` added to `list`, each once.
fn add<'a>(list: &mut Vec<String>, items: impl IntoIterator<Item = &'a String>) {
    for item in items {
        if !list.contains(item) {
            list.push(item.clone());
        }
    }
}

fn some_paths<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    super::writable(d).map(Some)
}

/// The `[repo."…"]` tables, each named by an absolute folder or one starting with `~/`.
fn folders<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<String, HostKeys>, D::Error> {
    let tables = BTreeMap::<String, HostKeys>::deserialize(d)?;
    if let Some(bad) = tables
        .keys()
        .find(|folder| !(folder.starts_with('/') || folder.starts_with("~/")))
    {
        return Err(de::Error::custom(format!(
            "[repo.{bad:?}]: the folder must be an absolute path or start with `~/`"
        )));
    }
    Ok(tables)
}
