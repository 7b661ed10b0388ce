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

use serde::Deserialize;
use serde::de::{self, Deserializer};
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
        if let Some(why) = not_yours(path) {
            return Err(ConfigError {
                file: Some(path.clone()),
                line: 0,
                column: 0,
                kind: Box::new(ConfigErrorKind::Io(why)),
            });
        }
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
        let before = attempt.clone();
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
        if *attempt != before {
            attempt.host_keys_from.clone_from(&self.source);
        }
    }
}

/// Why the file at `path` cannot speak for you: another user (but root) owns it, or anyone
/// may write it. Such a file could loosen your sandbox for them; a group-writable one is
/// left alone, since a user's own group is the default on many systems.
fn not_yours(path: &Path) -> Option<String> {
    use std::os::unix::fs::MetadataExt as _;
    let meta = std::fs::metadata(path).ok()?;
    let me = rustix::process::geteuid().as_raw();
    if meta.uid() != me && meta.uid() != 0 {
        return Some(format!(
            "owned by user {}, not by you ({me}): it could loosen your sandbox; make it yours (chown) or point ${USER_CONFIG_ENV} at your own",
            meta.uid()
        ));
    }
    (meta.mode() & 0o002 != 0)
        .then(|| "anyone may write it, and it could loosen your sandbox: `chmod o-w` it".to_owned())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn error(text: &str) -> String {
        UserConfig::parse(text).expect_err("an error").to_string()
    }

    fn var<'a>(vars: &'a [(&str, &str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn the_file_is_found_by_its_variable_then_xdg_then_home() {
        let at = |vars: &[(&str, &str)]| UserConfig::location_from(var(vars));
        assert_eq!(
            at(&[
                ("SPECCODER_CONFIG", "/etc/mine.toml"),
                ("XDG_CONFIG_HOME", "/x"),
                ("HOME", "/h")
            ]),
            Some(UserConfigPath {
                path: "/etc/mine.toml".into(),
                explicit: true
            })
        );
        let default = |path: &str| {
            Some(UserConfigPath {
                path: path.into(),
                explicit: false,
            })
        };
        assert_eq!(
            at(&[("XDG_CONFIG_HOME", "/x"), ("HOME", "/h")]),
            default("/x/speccoder/config.toml")
        );
        // Empty is unset, and a relative XDG_CONFIG_HOME is ignored, as the XDG spec says.
        assert_eq!(
            at(&[
                ("SPECCODER_CONFIG", ""),
                ("XDG_CONFIG_HOME", "rel"),
                ("HOME", "/h")
            ]),
            default("/h/.config/speccoder/config.toml")
        );
        assert_eq!(at(&[]), None);
    }

    #[test]
    fn every_key_and_folder_is_read() {
        let config = UserConfig::parse(
            r#"
[attempt]
reveal = ["~/.ssh/known_hosts"]
network = false
writable = ["~/.cache/x"]
env = ["DATABASE_URL"]
agent_env = ["GH_TOKEN"]
allow_unisolated_withheld = true

[repo."/src/shop"]
network = true
reveal = ["/run/user/1000"]
"#,
        )
        .expect("valid");
        assert_eq!(
            config.attempt,
            HostKeys {
                writable: Some(vec!["~/.cache/x".into()]),
                reveal: vec!["~/.ssh/known_hosts".into()],
                network: Some(false),
                allow_unisolated_withheld: Some(true),
                env: vec!["DATABASE_URL".into()],
                agent_env: vec!["GH_TOKEN".into()],
            }
        );
        let shop = &config.repo["/src/shop"];
        assert_eq!(shop.network, Some(true));
        assert_eq!(shop.writable, None);
    }

    #[test]
    fn errors_name_the_line_and_key() {
        assert_eq!(
            error("[attempt]\nnetwork = \"yes\"\n"),
            "2:11: [attempt] network: invalid type: string \"yes\", expected a boolean"
        );
        assert_eq!(
            error("[attempt]\nreveal = [\"run/user\"]\n"),
            "2:10: [attempt] reveal: `run/user` must be an absolute path or start with `~/`"
        );
        assert_eq!(
            error("[attempt]\nenv = [\"A=1\"]\n"),
            "2:7: [attempt] env: `A=1` is not a variable's name"
        );
        // Only the keys that loosen the sandbox: the rest is the repository's.
        assert_eq!(
            error("[attempt]\nsetup = []\n"),
            "2:1: [attempt] setup: unknown key (known: writable, reveal, network, \
             allow_unisolated_withheld, env, agent_env)"
        );
        assert_eq!(
            error("[executor]\nkind = \"claude\"\n"),
            "1:2: executor: unknown table (known: attempt, repo)"
        );
        assert_eq!(
            error("[repo.\"src/shop\"]\nnetwork = true\n"),
            "1:2: [repo.\"src/shop\"]: the folder must be an absolute path or start with `~/`"
        );
        let got = error("[attempt]\nnetwork = \n");
        assert!(got.starts_with("2:11: invalid TOML: "), "{got}");
    }

    #[test]
    fn the_keys_apply_to_the_projects_in_their_folder() {
        let dir = tempfile::tempdir().expect("temp dir");
        let shop = dir.path().join("shop");
        let app = shop.join("app");
        std::fs::create_dir_all(&app).expect("mkdir");
        let other = dir.path().join("other");
        std::fs::create_dir_all(&other).expect("mkdir");
        let config = UserConfig::parse(&format!(
            r#"
[attempt]
reveal = ["/run/user/1000/gnupg"]
env = ["CI_CACHE"]

[repo."{shop}"]
network = true
reveal = ["/run/user/1000"]
writable = ["/srv/cache"]
agent_env = ["GH_TOKEN"]

[repo."{app}"]
network = false

[repo."~/shop"]
allow_unisolated_withheld = true
"#,
            shop = shop.display(),
            app = app.display(),
        ))
        .expect("valid");
        let applied = |root: &Path| {
            let mut attempt = AttemptConfig::default();
            let root = root.canonicalize().expect("canonical");
            config.apply_with_home(&mut attempt, &root, Some(dir.path()));
            attempt
        };
        let got = applied(&shop);
        assert!(got.network);
        assert!(got.allow_unisolated_withheld, "`~/` is the home folder");
        assert_eq!(got.reveal, ["/run/user/1000/gnupg", "/run/user/1000"]);
        assert_eq!(got.env, ["CI_CACHE"]);
        assert_eq!(got.agent_env, ["GH_TOKEN"]);
        assert_eq!(got.writable.last().map(String::as_str), Some("/srv/cache"));
        assert!(
            got.writable.len() > 1,
            "added to the default writable folders"
        );
        // The deepest folder's `false` wins over its parent's `true`.
        assert!(!applied(&app).network);
        // A project in no listed folder gets only `[attempt]`.
        let got = applied(&other);
        assert!(!got.network && !got.allow_unisolated_withheld);
        assert_eq!(got.reveal, ["/run/user/1000/gnupg"]);
        assert!(got.agent_env.is_empty());
        // A folder whose name only starts the same is not the same folder.
        let shopping = dir.path().join("shopping");
        std::fs::create_dir_all(&shopping).expect("mkdir");
        assert!(!applied(&shopping).network);
        // `[attempt] writable` in your file replaces the default.
        let mut attempt = AttemptConfig::default();
        UserConfig::parse("[attempt]\nwritable = [\"/a\"]\n")
            .expect("valid")
            .apply_with_home(&mut attempt, &other, None);
        assert_eq!(attempt.writable, ["/a"]);
    }

    #[test]
    fn the_file_is_read_as_hostile_input() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("config.toml");
        let at = |explicit| UserConfigPath {
            path: path.clone(),
            explicit,
        };
        // Missing: no loosening, unless you named it.
        assert_eq!(UserConfig::load(&at(false)), Ok(UserConfig::default()));
        let err = UserConfig::load(&at(true)).expect_err("named and missing");
        assert!(
            err.to_string()
                .starts_with(&format!("{}: no such file", path.display())),
            "{err}"
        );
        // A FIFO in its place is refused, not waited on.
        let made = std::process::Command::new("mkfifo")
            .arg(&path)
            .status()
            .expect("mkfifo");
        assert!(made.success());
        let err = UserConfig::load(&at(false)).expect_err("a FIFO");
        assert!(matches!(*err.kind, ConfigErrorKind::NotText(_)), "{err}");
        std::fs::remove_file(&path).expect("rm");
        // Larger than the bound.
        std::fs::write(&path, vec![b'#'; (4 << 20) + 1]).expect("write");
        let err = UserConfig::load(&at(false)).expect_err("too large");
        assert!(matches!(*err.kind, ConfigErrorKind::NotText(_)), "{err}");
        // Anyone may write it: refused.
        std::fs::write(&path, "").expect("write");
        let mode = |m| {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(m)).expect("chmod");
        };
        mode(0o666);
        let err = UserConfig::load(&at(false)).expect_err("world-writable");
        assert!(err.to_string().contains("anyone may write it"), "{err}");
        mode(0o664);
        assert_eq!(
            UserConfig::load(&at(false)).map(|c| c.attempt),
            Ok(HostKeys::default())
        );
        // Another user's file: refused (only root can make one here).
        if rustix::process::geteuid().is_root() {
            std::os::unix::fs::chown(&path, Some(65534), None).expect("chown");
            let err = UserConfig::load(&at(false)).expect_err("another user's");
            assert!(err.to_string().contains("owned by user 65534"), "{err}");
            std::os::unix::fs::chown(&path, Some(0), None).expect("chown");
        }
        // Bad TOML names the file and line.
        std::fs::write(&path, "[attempt]\nnetwork = tru\n").expect("write");
        let err = UserConfig::load(&at(false)).expect_err("bad TOML");
        assert!(
            err.to_string()
                .starts_with(&format!("{}:2:", path.display())),
            "{err}"
        );
        std::fs::write(&path, "[attempt]\nnetwork = true\n").expect("write");
        let config = UserConfig::load(&at(false)).expect("valid");
        assert_eq!(config.attempt.network, Some(true));
        assert_eq!(config.source, Some(path.clone()));
        // What it changed is traced to it, for the story's note; a file that changes
        // nothing for this project is not named.
        let mut attempt = AttemptConfig::default();
        config.apply_with_home(&mut attempt, dir.path(), None);
        assert_eq!(attempt.host_keys_from, Some(path.clone()));
        std::fs::write(&path, "[repo.\"/elsewhere\"]\nnetwork = true\n").expect("write");
        let mut attempt = AttemptConfig::default();
        UserConfig::load(&at(false))
            .expect("valid")
            .apply_with_home(&mut attempt, dir.path(), None);
        assert_eq!(attempt, AttemptConfig::default());
    }
}
