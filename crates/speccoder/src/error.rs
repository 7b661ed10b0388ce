//! [`Error`]: why a command did not do what it was asked, and the exit code each kind of
//! failure gives, so that a script can tell a typo from a missing tool from a full disk.

use std::path::PathBuf;

use speccoder_agent::{BundleError, RuleError};
use speccoder_attempt::AttemptError;
use speccoder_config::{ConfigError, ConfigErrorKind, NoExecutor};
use speccoder_recipe::{ResolveError, RunError};

/// Exit code of a usage or configuration error: a flag, speccoder.toml, a file named on the
/// command line that is not there or not what it should be, an op that does not resolve.
/// clap exits with it too.
pub(crate) const EXIT_USAGE: u8 = 2;

/// Exit code when the machine or the repository stops the command: no executor configured,
/// a program that cannot start, no sandbox, no git repository, a branch in the way.
pub(crate) const EXIT_ENVIRONMENT: u8 = 4;

/// Exit code when a file or folder cannot be read or written.
pub(crate) const EXIT_IO: u8 = 5;

/// The exit codes, as `--help` ends with them (docs/guide.md has the same table).
pub(crate) const EXIT_CODES_HELP: &str = "\
Exit codes:
  0      success
  1      the agent or the attempt failed
  2      usage or configuration: a flag, speccoder.toml, a file given, an op that does not resolve
  3      blocked: the agent stopped and said why (agent run, attempt)
  4      environment: no executor configured, a program that cannot start, no sandbox, no git
         repository, a branch in the way
  5      I/O: a file or folder that cannot be read or written
  128+N  stopped by signal N
`recipe run` exits with the task's own code instead (124 when its deadline passed), which may be
any of these; when speccoder itself fails there, stderr has a line starting `error:`.";

/// Why a command failed. Its message is one line for a person (or a model) to act on.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Error {
    /// `-C DIR` cannot be read.
    #[error("project root {}: {source}", path.display())]
    Root {
        /// The folder given.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// `-C DIR` is a file.
    #[error("project root {} is not a directory", .0.display())]
    RootNotFolder(PathBuf),
    /// `--config FILE` cannot be read.
    #[error("--config {}: {source}", path.display())]
    ConfigFile {
        /// The file given.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// speccoder.toml is wrong or cannot be read.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// Flags that do not go together, or one that is missing.
    #[error("{0}")]
    Flags(&'static str),
    /// The command needs the recipe tool, which the configuration turns off.
    #[error("the recipe tool is disabled (`[recipe] enabled = false`)")]
    RecipeDisabled,
    /// The command needs an external agent, and none is configured.
    #[error(transparent)]
    NoExecutor(#[from] NoExecutor),
    /// The op does not resolve.
    #[error(transparent)]
    Resolve(#[from] ResolveError),
    /// The op could not run.
    #[error(transparent)]
    Run(#[from] RunError),
    /// The attempt could not start.
    #[error(transparent)]
    Attempt(#[from] AttemptError),
    /// No Claude permission rules can be written.
    #[error(transparent)]
    Rules(#[from] RuleError),
    /// A file given on the command line cannot be read.
    #[error("{}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// A file given on the command line is not JSON.
    #[error("{}: {source}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// What the JSON reader said.
        source: serde_json::Error,
    },
    /// A bundle given on the command line is no task bundle.
    #[error("{}: {source}", path.display())]
    Bundle {
        /// The file.
        path: PathBuf,
        /// Why.
        source: BundleError,
    },
    /// `speccoder mcp` could not serve.
    #[error("cannot serve MCP: {0}")]
    Mcp(std::io::Error),
    /// Output could not be made.
    #[error("cannot print {what}: {source}")]
    Print {
        /// What was to be printed.
        what: &'static str,
        /// Why.
        source: serde_json::Error,
    },
}

impl Error {
    /// The process exit code for this error.
    pub(crate) fn exit_code(&self) -> u8 {
        match self {
            Self::Root { source, .. }
            | Self::ConfigFile { source, .. }
            | Self::Read { source, .. } => named_file(source.kind()),
            Self::Config(err) => match *err.kind {
                ConfigErrorKind::Io(_) => EXIT_IO,
                ConfigErrorKind::NotText(_)
                | ConfigErrorKind::Syntax(_)
                | ConfigErrorKind::UnknownTable { .. }
                | ConfigErrorKind::UnknownKey { .. }
                | ConfigErrorKind::Invalid { .. }
                | ConfigErrorKind::FromRepository { .. } => EXIT_USAGE,
            },
            Self::RootNotFolder(_)
            | Self::Flags(_)
            | Self::RecipeDisabled
            | Self::Resolve(_)
            | Self::Rules(_)
            | Self::Json { .. }
            | Self::Bundle { .. } => EXIT_USAGE,
            Self::NoExecutor(_) => EXIT_ENVIRONMENT,
            Self::Run(err) => match err {
                RunError::Resolve(_) | RunError::CwdOutsideRoot(_) => EXIT_USAGE,
                RunError::Spawn(_) => EXIT_ENVIRONMENT,
                RunError::OutputFile(_) => EXIT_IO,
            },
            Self::Attempt(err) => match err {
                AttemptError::Bundle(_)
                | AttemptError::Withheld(_)
                | AttemptError::Config(_)
                | AttemptError::Checks(_)
                | AttemptError::SandboxRefused(_) => EXIT_USAGE,
                AttemptError::Read { kind, .. } => named_file(*kind),
                AttemptError::NoExecutor(_)
                | AttemptError::Repository(_)
                | AttemptError::BranchExists { .. }
                | AttemptError::BranchConflict { .. }
                | AttemptError::Busy { .. }
                | AttemptError::NoSandbox
                | AttemptError::Setup(_)
                | AttemptError::Stopped => EXIT_ENVIRONMENT,
                AttemptError::Io(_) => EXIT_IO,
            },
            Self::Mcp(_) | Self::Print { .. } => EXIT_IO,
        }
    }
}

/// A file named on the command line that is not there is a usage error (a typo in the
/// name); one the system refuses to read is an I/O error.
fn named_file(kind: std::io::ErrorKind) -> u8 {
    if kind == std::io::ErrorKind::NotFound {
        EXIT_USAGE
    } else {
        EXIT_IO
    }
}

#[cfg(test)]
mod tests {
    use std::io::ErrorKind;
    use std::path::Path;

    use super::*;

    fn io(kind: ErrorKind, text: &str) -> std::io::Error {
        std::io::Error::new(kind, text)
    }

    /// Every kind of error the command line ends with, as a person reads it and with the
    /// exit code it gives, as one reviewed snapshot.
    #[test]
    #[expect(
        clippy::too_many_lines,
        reason = "over 80 lines when the limit was set; split it when it next changes"
    )]
    fn error_texts_and_codes() {
        let config = |text: &str| {
            let mut err = speccoder_config::Config::parse(text).expect_err("an error");
            err.file = Some("speccoder.toml".into());
            Error::Config(err)
        };
        let resolve = ResolveError::NotFound {
            head: "tset".into(),
            suggestion: Some("test".into()),
            runner_ids: vec!["make".into()],
            example: "make:test".into(),
            list: "- make: test, lint".into(),
        };
        let errors = [
            Error::Root {
                path: "/nowhere".into(),
                source: io(
                    ErrorKind::NotFound,
                    "No such file or directory (os error 2)",
                ),
            },
            Error::RootNotFolder("/p/Makefile".into()),
            Error::ConfigFile {
                path: "/p/other.toml".into(),
                source: io(
                    ErrorKind::NotFound,
                    "No such file or directory (os error 2)",
                ),
            },
            config("[executor]\nkind = \"claude-code\"\n"),
            config("[recipe]\ntimeout = 5\n"),
            Error::Config(speccoder_config::ConfigError {
                file: Some("speccoder.toml".into()),
                line: 0,
                column: 0,
                kind: Box::new(ConfigErrorKind::Io(
                    "cannot read: Permission denied (os error 13)".into(),
                )),
            }),
            Error::Flags("--digest needs --bundle"),
            Error::RecipeDisabled,
            Error::NoExecutor(NoExecutor),
            Error::Resolve(resolve.clone()),
            Error::Run(RunError::Resolve(resolve)),
            Error::Run(RunError::Spawn(
                speccoder_foundation::process::SpawnError::CwdNotFound("/p/web".into()),
            )),
            Error::Run(RunError::OutputFile(io(
                ErrorKind::Other,
                "/s/speccoder/outputs: is a symlink; a private folder must be a real folder",
            ))),
            Error::Attempt(AttemptError::Bundle(
                "bundle b.json: the bundle has no task id: an attempt needs `task.id`, of \
                 letters, digits, `.`, `_` and `-` (at most 64), as in \
                 `{\"task\": {\"id\": \"T1\"}}`"
                    .into(),
            )),
            Error::Attempt(AttemptError::Read {
                message: "bundle b.json: cannot read: Permission denied (os error 13)".into(),
                kind: ErrorKind::PermissionDenied,
            }),
            Error::Attempt(AttemptError::Checks(
                "the check `tset` ([attempt] checks) does not resolve: no runner task named \
                 `tset`: did you mean `test`? …"
                    .into(),
            )),
            Error::Attempt(AttemptError::NoExecutor(NoExecutor)),
            Error::Attempt(AttemptError::Repository(
                "/p is not inside a git repository: an attempt starts from a commit of one".into(),
            )),
            Error::Attempt(AttemptError::BranchExists {
                branch: "speccoder/T7".into(),
                settled: None,
            }),
            Error::Attempt(AttemptError::BranchConflict {
                branch: "speccoder/T7".into(),
                other: "speccoder".into(),
            }),
            Error::Attempt(AttemptError::Busy { pid: 4242 }),
            Error::Attempt(AttemptError::NoSandbox),
            Error::Attempt(AttemptError::SandboxRefused(
                "no private mount namespace could be made: cannot make /home read-only (EINVAL), and it cannot be covered: /home/u/repo is under it and must stay writable".into(),
            )),
            Error::Attempt(AttemptError::Setup(
                "`[attempt] setup` `npm ci` failed (exit code 1):\nnpm ERR! missing lockfile"
                    .into(),
            )),
            Error::Attempt(AttemptError::Io(
                "cannot create a temporary folder: No space left on device (os error 28)".into(),
            )),
            Error::Rules(RuleError::RelativeWithheld("held".into())),
            Error::Read {
                path: "/p/prompt.md".into(),
                source: io(
                    ErrorKind::PermissionDenied,
                    "Permission denied (os error 13)",
                ),
            },
            Error::Bundle {
                path: "/p/array.json".into(),
                source: BundleError::NotAnObject { found: "an array" },
            },
            Error::Mcp(io(ErrorKind::BrokenPipe, "Broken pipe (os error 32)")),
        ];
        let texts: Vec<String> = errors
            .iter()
            .map(|err| format!("exit {}: error: {err}", err.exit_code()))
            .collect();
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../snapshots/errors"
        ));
        settings.set_prepend_module_to_snapshot(false);
        settings.bind(|| insta::assert_snapshot!("cli_errors", texts.join("\n")));
    }

    /// Property: `--help` and docs/guide.md list the same exit codes, and each code this
    /// module gives is among them.
    #[test]
    fn help_and_guide_list_the_exit_codes() {
        let guide = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/guide.md"),
        )
        .expect("docs/guide.md");
        let section = guide
            .split("### Exit codes")
            .nth(1)
            .and_then(|rest| rest.split("\n#").next())
            .expect("docs/guide.md has an `### Exit codes` section");
        let in_guide: Vec<&str> = section
            .lines()
            .filter_map(|line| line.strip_prefix("| ")?.split(" |").next())
            .filter(|code| *code != "code" && !code.starts_with('-'))
            .collect();
        let in_help: Vec<&str> = EXIT_CODES_HELP
            .lines()
            .filter_map(|line| line.strip_prefix("  "))
            .filter_map(|line| line.split_whitespace().next())
            .filter(|code| code.starts_with(|c: char| c.is_ascii_digit()))
            .collect();
        assert_eq!(in_help, ["0", "1", "2", "3", "4", "5", "128+N"]);
        assert_eq!(
            in_guide
                .iter()
                .map(|c| c.replace(' ', ""))
                .collect::<Vec<_>>(),
            in_help
        );
        for code in [EXIT_USAGE, EXIT_ENVIRONMENT, EXIT_IO] {
            assert!(in_help.contains(&code.to_string().as_str()), "{code}");
        }
    }
}
