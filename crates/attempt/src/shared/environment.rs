//! What of your environment the agent and the checks get: an allow-list, never the whole
//! of it. A token in your shell would otherwise reach the code the agent wrote, which the
//! checks run. The setup gets the checks' environment: its commands are the repository's
//! choice and run with the network, so a private registry's token reaches `npm ci` only
//! when your own configuration file names it in `[attempt] env`.
//!
//! Every stage gets the names of [`BASE`] and, screened for secrets, the toolchains'
//! families of [`TOOLCHAINS`] (`GOCACHE`, `CARGO_HOME`, `PYTHONPATH`, `NODE_OPTIONS`…): a
//! name with `TOKEN`, `SECRET`, `PASSW`, `CREDENTIAL`, `AUTH` or a `KEY` word in it stays
//! out (`CARGO_REGISTRY_TOKEN`, `NPM_CONFIG__AUTH`, `UV_INDEX_X_PASSWORD`). The checks also
//! get `[attempt] env`; the agent gets its executor's own variables ([`CLAUDE`], [`CODEX`],
//! read from each CLI's binary: the names it looks up) and `[attempt] agent_env`. Both
//! lists come from your own configuration file only, never a repository's.

use speccoder_config::ExecutorKind;
use speccoder_foundation::process::{RunOutput, RunRequest, SpawnError, Spawner};

/// Names every stage gets as they are.
const BASE: &[&str] = &[
    "CI",
    "COLORTERM",
    "CURL_CA_BUNDLE",
    "FORCE_COLOR",
    "GIT_SSL_CAINFO",
    "HOME",
    "HTTPS_PROXY",
    "HTTP_PROXY",
    "LANG",
    "LANGUAGE",
    "LOGNAME",
    "NODE_EXTRA_CA_CERTS",
    "NO_COLOR",
    "NO_PROXY",
    "PATH",
    "REQUESTS_CA_BUNDLE",
    "SHELL",
    "SSL_CERT_DIR",
    "SSL_CERT_FILE",
    "TERM",
    "TMPDIR",
    "TZ",
    "USER",
    "XDG_CACHE_HOME",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_RUNTIME_DIR",
    "XDG_STATE_HOME",
    "http_proxy",
    "https_proxy",
    "no_proxy",
];

/// Values every stage gets whatever your environment says, so that a tool writes what it
/// fetches into the tree, where the sandbox lets it, and not into a folder of your home,
/// which the sandbox keeps read-only. Yarn 4 by default copies every package into its
/// global folder (`~/.yarn/berry/cache`, its "global cache" and its "mirror"): without
/// both turned off, `yarn install` in the sandbox failed with `EROFS … copyfile …
/// /root/.yarn/berry/cache/…` (yarn 4.18.1, a project whose `.yarnrc.yml` holds only
/// `yarnPath` and `nodeLinker`). With them off the packages land in the project's
/// `.yarn/cache` (yarn's own place for them), which the setup keeps as a product and
/// Plug'n'Play's loader names. Named in `[attempt] env`, your own value stays.
const PINNED: &[(&str, &str)] = &[
    ("YARN_ENABLE_GLOBAL_CACHE", "false"),
    ("YARN_ENABLE_MIRROR", "false"),
];

/// Families of names that say where a toolchain is and how it builds: every stage gets
/// them, but for the names that look like secrets.
const TOOLCHAINS: &[&str] = &[
    "CARGO_",
    "CC",
    "CFLAGS",
    "CGO_",
    "CONDA_",
    "COREPACK_",
    "CXX",
    "GO",
    "HATCH_",
    "JAVA_HOME",
    "LC_",
    "LD_LIBRARY_PATH",
    "NODE_",
    "NPM_CONFIG_",
    "PIP_",
    "PKG_CONFIG_PATH",
    "PYTEST_",
    "PYTHON",
    "RUST",
    "UV_",
    "VIRTUAL_ENV",
    "npm_config_",
    "pnpm_config_",
];

/// What Claude Code reads: every `ANTHROPIC_`, `CLAUDE_`, `DISABLE_`, `AWS_`, `OTEL_` and
/// `MCP_` name, and Google's and Vertex's (Claude Code 2.1.332's binary names 18
/// `ANTHROPIC_` and 127 `CLAUDE_` variables).
const CLAUDE: &[&str] = &[
    "ANTHROPIC_",
    "AWS_",
    "BASH_DEFAULT_TIMEOUT_MS",
    "BASH_MAX_TIMEOUT_MS",
    "CLAUDE_",
    "CLOUDSDK_CONFIG",
    "CLOUD_ML_REGION",
    "DISABLE_",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "GOOGLE_CLOUD_PROJECT",
    "GOOGLE_CLOUD_QUOTA_PROJECT",
    "MAX_THINKING_TOKENS",
    "MCP_",
    "OTEL_",
    "VERTEX_REGION_",
];

/// What Codex reads (codex-cli 0.171.0's binary): `OPENAI_`, `CODEX_` and Azure's.
const CODEX: &[&str] = &["AZURE_OPENAI_", "CODEX_", "OPENAI_"];

/// Whether `name` looks like it holds a secret.
fn secret(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    [
        "TOKEN",
        "SECRET",
        "PASSW",
        "CREDENTIAL",
        "AUTH",
        "APIKEY",
        "COOKIE",
    ]
    .iter()
    .any(|word| upper.contains(word))
        || upper.split('_').any(|part| part == "KEY" || part == "PAT")
}

/// Whether `value` carries credentials: a URL with a user (and maybe a password) before
/// its host, `scheme://user:pass@host` (`PIP_INDEX_URL`, `HTTPS_PROXY`, `GOPROXY`), in any
/// of the URLs of a list.
fn carries_credentials(value: &str) -> bool {
    value.match_indices("://").any(|(at, sep)| {
        let rest = &value[at + sep.len()..];
        let authority = rest
            .split(['/', '?', '#', ' ', ',', '|', ';'])
            .next()
            .unwrap_or_default();
        authority.contains('@')
    })
}

/// Whether `name` is `entry`, or in its family (an entry ending in `_`, or one of
/// [`TOOLCHAINS`], names a prefix).
fn matches(name: &str, entry: &str, prefix: bool) -> bool {
    name == entry || (prefix && name.starts_with(entry))
}

/// Whether every stage gets `name` with `value`: one of [`BASE`], or of a toolchain's
/// family and not a secret's name, and not a value carrying credentials.
pub(crate) fn in_allow_list_with(name: &str, value: &str) -> bool {
    in_allow_list(name) && !carries_credentials(value)
}

/// Whether every stage gets `name`: one of [`BASE`], or of a toolchain's family and not
/// a secret's name.
pub(crate) fn in_allow_list(name: &str) -> bool {
    BASE.contains(&name) || (TOOLCHAINS.iter().any(|e| matches(name, e, true)) && !secret(name))
}

/// Who runs with the environment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stage {
    /// The checks, with `[attempt] env`.
    Checks,
    /// The agent of this kind, with `[attempt] agent_env`.
    Agent(ExecutorKind),
}

/// The variables of `vars` that `stage` gets, with `named` (`[attempt] env` or
/// `agent_env`) on top.
pub(crate) fn allowed(
    vars: impl Iterator<Item = (String, String)>,
    stage: Stage,
    named: &[String],
) -> Vec<(String, String)> {
    let own: &[&str] = match stage {
        Stage::Checks | Stage::Agent(ExecutorKind::Command) => &[],
        Stage::Agent(ExecutorKind::Claude) => CLAUDE,
        Stage::Agent(ExecutorKind::Codex) => CODEX,
    };
    let mut kept: Vec<(String, String)> = vars
        .filter(|(name, value)| {
            in_allow_list_with(name, value)
                || named.iter().any(|n| n == name)
                || own.iter().any(|e| matches(name, e, e.ends_with('_')))
        })
        .collect();
    for (name, value) in PINNED {
        if !kept.iter().any(|(n, _)| n == name) {
            kept.push(((*name).to_owned(), (*value).to_owned()));
        }
    }
    kept.sort();
    kept
}

/// The names of `env`, for the story: never the values.
pub(crate) fn names(env: &[(String, String)]) -> Vec<String> {
    env.iter().map(|(name, _)| name.clone()).collect()
}

/// A runner whose commands get `env` and nothing else of this process's environment, with
/// what a request sets on top.
pub(crate) struct Allowed {
    pub(crate) inner: Box<dyn Spawner>,
    pub(crate) env: Vec<(String, String)>,
}

impl Spawner for Allowed {
    fn run(&self, request: &RunRequest) -> Result<RunOutput, SpawnError> {
        let mut request = request.clone();
        request.env_clear = true;
        let set = std::mem::take(&mut request.env);
        let mut env: Vec<(String, String)> = self
            .env
            .iter()
            .filter(|(name, _)| !set.iter().any(|(n, _)| n == name))
            .cloned()
            .collect();
        env.extend(set);
        request.env = env;
        self.inner.run(&request)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(names: &[&str]) -> impl Iterator<Item = (String, String)> {
        names
            .iter()
            .map(|n| ((*n).to_owned(), "v".to_owned()))
            .collect::<Vec<_>>()
            .into_iter()
    }

    /// The names `stage` gets of `names`, but the pinned ones (every stage gets those).
    fn kept(names: &[&str], stage: Stage, named: &[&str]) -> Vec<String> {
        let named: Vec<String> = named.iter().map(|n| (*n).to_owned()).collect();
        self::names(&allowed(vars(names), stage, &named))
            .into_iter()
            .filter(|n| !PINNED.iter().any(|(p, _)| p == n))
            .collect()
    }

    #[test]
    fn every_stage_gets_yarn_kept_out_of_the_home_folder_unless_you_name_it() {
        let value = |env: &[(String, String)], name: &str| {
            env.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone())
        };
        let yours = || {
            vec![
                ("YARN_ENABLE_MIRROR".to_owned(), "true".to_owned()),
                ("PATH".to_owned(), "/bin".to_owned()),
            ]
            .into_iter()
        };
        for stage in [
            Stage::Checks,
            Stage::Agent(ExecutorKind::Claude),
            Stage::Agent(ExecutorKind::Codex),
            Stage::Agent(ExecutorKind::Command),
        ] {
            let env = allowed(yours(), stage, &[]);
            assert_eq!(value(&env, "YARN_ENABLE_MIRROR").as_deref(), Some("false"));
            assert_eq!(
                value(&env, "YARN_ENABLE_GLOBAL_CACHE").as_deref(),
                Some("false")
            );
        }
        // Named in `[attempt] env`: your value, when you have one.
        let env = allowed(yours(), Stage::Checks, &["YARN_ENABLE_MIRROR".to_owned()]);
        assert_eq!(value(&env, "YARN_ENABLE_MIRROR").as_deref(), Some("true"));
        let names = self::names(&env);
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted, "sorted, as the story shows them");
    }

    #[test]
    fn certificate_bundles_reach_every_stage() {
        // A machine whose traffic passes a proxy with its own authority: poetry's `install`
        // in the setup failed with CERTIFICATE_VERIFY_FAILED without REQUESTS_CA_BUNDLE.
        let names = [
            "REQUESTS_CA_BUNDLE",
            "CURL_CA_BUNDLE",
            "GIT_SSL_CAINFO",
            "SSL_CERT_FILE",
        ];
        assert_eq!(kept(&names, Stage::Checks, &[]).len(), names.len());
    }

    #[test]
    fn the_checks_get_the_allow_list_and_nothing_that_looks_secret() {
        let user = [
            "PATH",
            "HOME",
            "LC_ALL",
            "GOCACHE",
            "GOPATH",
            "CARGO_HOME",
            "CARGO_REGISTRY_TOKEN",
            "NPM_CONFIG__AUTH",
            "NPM_CONFIG_CACHE",
            "UV_INDEX_PRIVATE_PASSWORD",
            "PYTHONPATH",
            "GITHUB_TOKEN",
            "AWS_SECRET_ACCESS_KEY",
            "ANTHROPIC_API_KEY",
            "DATABASE_URL",
            "SSH_AUTH_SOCK",
            "GH_PAT",
            "RUSTUP_HOME",
        ];
        assert_eq!(
            kept(&user, Stage::Checks, &[]),
            [
                "CARGO_HOME",
                "GOCACHE",
                "GOPATH",
                "HOME",
                "LC_ALL",
                "NPM_CONFIG_CACHE",
                "PATH",
                "PYTHONPATH",
                "RUSTUP_HOME"
            ]
        );
        // Named by `[attempt] env`: yours to give, secret or not.
        assert!(kept(&user, Stage::Checks, &["DATABASE_URL", "GITHUB_TOKEN"]).len() == 11);
        // The agent gets its executor's own, and no other executor's.
        let claude = kept(&user, Stage::Agent(ExecutorKind::Claude), &[]);
        assert!(
            claude.contains(&"ANTHROPIC_API_KEY".to_owned()),
            "{claude:?}"
        );
        assert!(
            claude.contains(&"AWS_SECRET_ACCESS_KEY".to_owned()),
            "{claude:?}"
        );
        assert!(!claude.contains(&"GITHUB_TOKEN".to_owned()), "{claude:?}");
        let codex = kept(
            &["OPENAI_API_KEY", "ANTHROPIC_API_KEY"],
            Stage::Agent(ExecutorKind::Codex),
            &[],
        );
        assert_eq!(codex, ["OPENAI_API_KEY"]);
        let command = kept(&user, Stage::Agent(ExecutorKind::Command), &["GH_PAT"]);
        assert!(
            command.contains(&"GH_PAT".to_owned())
                && !command.contains(&"ANTHROPIC_API_KEY".to_owned())
        );
        // A family's member must be of the family, not a word that starts alike.
        assert_eq!(
            kept(&["GOOGLE_X", "CCACHE_DIR", "CC"], Stage::Checks, &[]),
            ["CC", "CCACHE_DIR", "GOOGLE_X"]
        );
    }

    #[test]
    fn values_carrying_credentials_are_screened_like_secret_names() {
        // A value carrying credentials is screened like a secret's name; named, it is
        // yours to give.
        let with = |pairs: &[(&str, &str)], named: &[String]| {
            let vars = pairs
                .iter()
                .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()));
            self::names(&allowed(vars, Stage::Checks, named))
                .into_iter()
                .filter(|n| !n.starts_with("YARN_"))
                .collect::<Vec<_>>()
        };
        let pairs = [
            ("PIP_INDEX_URL", "https://user:pass@pypi.example/simple"),
            ("HTTPS_PROXY", "http://u:p@proxy:3128"),
            (
                "GOPROXY",
                "https://proxy.golang.example,https://tok@goproxy.example",
            ),
            ("GOFLAGS", "-mod=mod"),
            ("HTTP_PROXY", "http://proxy:3128"),
            ("PIP_EXTRA_INDEX_URL", "https://pypi.example/simple?x=a@b"),
            ("npm_config_registry", "https://registry.example/"),
            ("npm_config__auth", "dXNlcjpwYXNz"),
            ("pnpm_config_store_dir", "/x"),
        ];
        assert_eq!(
            with(&pairs, &[]),
            [
                "GOFLAGS",
                "HTTP_PROXY",
                "PIP_EXTRA_INDEX_URL",
                "npm_config_registry",
                "pnpm_config_store_dir"
            ]
        );
        assert!(with(&pairs, &["HTTPS_PROXY".to_owned()]).contains(&"HTTPS_PROXY".to_owned()));
    }
}
