//! The `speccoder` command line.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use crate::config::{CONFIG_FILE, Config};
use crate::process::LocalRunner;
use crate::recipe::{Recipe, list_json, list_text};

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
    match dispatch(&cli) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

/// The project root and its configuration.
struct Project {
    root: PathBuf,
    config: Config,
}

impl Project {
    fn load(cli: &Cli) -> Result<Self, String> {
        let root = cli
            .dir
            .canonicalize()
            .map_err(|err| format!("project root {}: {err}", cli.dir.display()))?;
        if !root.is_dir() {
            return Err(format!(
                "project root {} is not a directory",
                root.display()
            ));
        }
        let config_path = cli.config.clone().unwrap_or_else(|| root.join(CONFIG_FILE));
        let config = Config::load(&config_path).map_err(|err| err.to_string())?;
        Ok(Self { root, config })
    }

    /// Detects the runners, unless the recipe tool is turned off.
    fn recipe(&self) -> Result<Recipe, String> {
        if !self.config.recipe.enabled {
            return Err("the recipe tool is disabled (`[recipe] enabled = false`)".into());
        }
        Ok(Recipe::detect(&self.root, &self.config.recipe))
    }
}

fn dispatch(cli: &Cli) -> Result<ExitCode, String> {
    let project = Project::load(cli)?;
    match &cli.command {
        Command::Recipe(RecipeCommand::List { json, explain }) => {
            let recipe = project.recipe()?;
            if *json {
                print_json(&list_json(&recipe, *explain));
            } else {
                print!("{}", list_text(&recipe, *explain));
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Recipe(RecipeCommand::Prompt) => {
            let recipe = project.recipe()?;
            match recipe.prompt() {
                Some(prompt) => print!("{prompt}"),
                None => eprintln!(
                    "No task runner detected in {}: there is no recipe tool.",
                    project.root.display()
                ),
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Recipe(RecipeCommand::Resolve { json, op }) => {
            let recipe = project.recipe()?;
            let resolved = recipe.resolve(&op.join(" ")).map_err(|e| e.to_string())?;
            if *json {
                print_json(&serde_json::json!({
                    "runner": resolved.runner.id,
                    "task": resolved.task.name,
                    "command": resolved.command,
                    "cwd": resolved.cwd,
                }));
            } else {
                println!("{}", resolved.command);
                if let Some(cwd) = resolved.cwd {
                    println!("in {cwd}");
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Recipe(RecipeCommand::Run { timeout, json, op }) => {
            let recipe = project.recipe()?;
            let result = match recipe.run(&op.join(" "), *timeout, &LocalRunner::default()) {
                Ok(result) => result,
                Err(err) => return Err(err.to_string()),
            };
            if *json {
                print_json(&result);
            } else {
                let text = result.text();
                print!("{text}");
                if !text.ends_with('\n') {
                    println!();
                }
            }
            let code = result.shell_code().clamp(0, 255);
            Ok(ExitCode::from(u8::try_from(code).unwrap_or(1)))
        }
        Command::Allow(_) => Ok(not_available("allow")),
        Command::Agent(AgentCommand::Argv(_)) => Ok(not_available("agent argv")),
        Command::Agent(AgentCommand::Run(_)) => Ok(not_available("agent run")),
    }
}

fn print_json(value: &impl serde::Serialize) {
    match serde_json::to_string_pretty(value) {
        Ok(text) => println!("{text}"),
        Err(err) => eprintln!("error: cannot print JSON: {err}"),
    }
}

fn not_available(name: &str) -> ExitCode {
    eprintln!("error: `speccoder {name}` is not available yet in this version");
    ExitCode::from(EXIT_USAGE)
}
