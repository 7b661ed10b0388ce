//! The `speccoder` command line.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use crate::config::{CONFIG_FILE, Config};

/// Detects a project's task runners, runs their tasks, and runs external coding agents with
/// the project's allowances.
#[derive(Debug, Parser)]
#[command(name = "speccoder", version, max_term_width = 100)]
pub struct Cli {
    /// Project root.
    #[arg(short = 'C', value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,
    /// Configuration file (default: DIR/speccoder.toml; a missing file means defaults).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// The project's task runners and their tasks.
    #[command(subcommand)]
    Recipe(RecipeCommand),
    /// The commands an external agent is allowed to run.
    Allow(JsonFlag),
    /// The external coding agent.
    #[command(subcommand)]
    Agent(AgentCommand),
}

/// `speccoder recipe …`
#[derive(Debug, Subcommand)]
pub enum RecipeCommand {
    /// Every detected task of every runner.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// Also say, per runner, whether it was detected and why not.
        #[arg(long)]
        explain: bool,
    },
    /// The tool description a model receives.
    Prompt,
    /// The command and working directory an op resolves to, without running it.
    Resolve {
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// The op: a task name, then its arguments.
        #[arg(required = true, num_args = 1.., trailing_var_arg = true, allow_hyphen_values = true)]
        op: Vec<String>,
    },
    /// Resolves an op and runs it.
    Run {
        /// Deadline in seconds (clamped to 1..=3600; default from the configuration).
        #[arg(long, value_name = "SECS")]
        timeout: Option<u64>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// The op: a task name, then its arguments.
        #[arg(required = true, num_args = 1.., trailing_var_arg = true, allow_hyphen_values = true)]
        op: Vec<String>,
    },
}

/// `speccoder agent …`
#[derive(Debug, Subcommand)]
pub enum AgentCommand {
    /// The argv the configured executor would be started with.
    Argv(JsonFlag),
    /// One attempt by the configured external agent; prints the outcome as JSON.
    Run(AgentRunArgs),
}

/// A `--json` flag.
#[derive(Debug, Args)]
pub struct JsonFlag {
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `speccoder agent run`.
#[derive(Debug, Args)]
#[group(required = true, multiple = false, id = "input")]
pub struct AgentRunArgs {
    /// A file holding the whole prompt.
    #[arg(long, value_name = "F", group = "input")]
    pub prompt_file: Option<PathBuf>,
    /// A task bundle (JSON) to build the prompt from.
    #[arg(long, value_name = "F", group = "input")]
    pub bundle: Option<PathBuf>,
    /// The previous attempt's digest (JSON), for a retry.
    #[arg(long, value_name = "F")]
    pub digest: Option<PathBuf>,
    /// Where the agent works (default: the project root).
    #[arg(long, value_name = "DIR")]
    pub worktree: Option<PathBuf>,
}

/// Exit code for a usage or configuration error, and for a command that is not available.
pub const EXIT_USAGE: u8 = 2;

/// Runs the command line and returns the process exit code.
pub fn run(cli: Cli) -> ExitCode {
    let config_path = cli
        .config
        .clone()
        .unwrap_or_else(|| cli.dir.join(CONFIG_FILE));
    let config = match Config::load(&config_path) {
        Ok(config) => config,
        Err(err) => {
            eprintln!("error: {err}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let name = match &cli.command {
        Command::Recipe(RecipeCommand::List { .. }) => "recipe list",
        Command::Recipe(RecipeCommand::Prompt) => "recipe prompt",
        Command::Recipe(RecipeCommand::Resolve { .. }) => "recipe resolve",
        Command::Recipe(RecipeCommand::Run { .. }) => "recipe run",
        Command::Allow(_) => "allow",
        Command::Agent(AgentCommand::Argv(_)) => "agent argv",
        Command::Agent(AgentCommand::Run(_)) => "agent run",
    };
    let _ = config;
    not_available(name)
}

fn not_available(name: &str) -> ExitCode {
    eprintln!("error: `speccoder {name}` is not available yet in this version");
    ExitCode::from(EXIT_USAGE)
}
