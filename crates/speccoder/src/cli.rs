//! The `speccoder` command line.

use speccoder_foundation::quote::escape_controls;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use speccoder_foundation::quote::quote;

use crate::error::{EXIT_CODES_HELP, Error};
use crate::root;
use speccoder_agent::{
    Allowances, Attempt, Bundle, CLAUDE_RECIPE_RULE, ClaudePermissions, Containment, Placement,
    RecipeServer, agent_argv, allowances, build_prompt, writable_roots,
};
use speccoder_attempt::{
    AttemptRequest, BaselineReport, Story, Verdict, measure_baseline, run_attempt,
};
use speccoder_config::{CONFIG_FILE, Config, ExecutorKind, ExternalExecutor, UserConfig};
use speccoder_foundation::process::{LocalSpawner, defer_exit, shutdown_signal};
use speccoder_recipe::{
    Follow, ListJson, Progress, Recipe, ResolveError, RunError, RunResult, list_json, list_text,
};

/// The version `--version` prints: the package's, and the commit it was built from.
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (",
    env!("SPECCODER_COMMIT"),
    ")"
);

/// Detects a project's task runners, runs their tasks, and runs external coding agents with
/// the project's allowances.
#[derive(Debug, Parser)]
#[command(name = "speccoder", version = VERSION, max_term_width = 100, after_help = EXIT_CODES_HELP)]
pub(crate) struct Cli {
    /// Project root, exactly. Without it, the nearest folder at or above the current one
    /// that holds a runner's manifest (or speccoder.toml), within the repository.
    #[arg(short = 'C', value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Configuration file (default: speccoder.toml in the root; a missing file means
    /// defaults). Relative paths given to speccoder are read from DIR, else from the
    /// current folder.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// The project's task runners and their tasks.
    #[command(subcommand)]
    Recipe(RecipeCommand),
    /// The commands an external agent is allowed to run.
    Allow(JsonFlag),
    /// The external coding agent.
    #[command(subcommand)]
    Agent(AgentCommand),
    /// Serves the recipe tool over MCP on stdin and stdout, until stdin closes.
    Mcp(McpArgs),
    /// Carries one task of a bundle to a verified commit: worktree, frozen acceptance
    /// tests, agent, audit, checks, verdict, retries, commit.
    Attempt(AttemptArgs),
}

/// Arguments of `speccoder mcp`.
#[derive(Debug, Args)]
pub(crate) struct McpArgs {
    /// Print the configuration an agent needs to start this server for this project, and
    /// exit: Claude Code's `--mcp-config` JSON (with the permission rule to allow), or
    /// Codex's `config.toml` table.
    #[arg(long, value_name = "AGENT")]
    pub print_config: Option<AgentName>,
}

/// An agent CLI, for `mcp --print-config`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum AgentName {
    /// Claude Code.
    Claude,
    /// Codex CLI.
    Codex,
}

/// Arguments of `speccoder attempt`.
#[derive(Debug, Args)]
pub(crate) struct AttemptArgs {
    /// The task bundle (JSON), with optional `acceptance` tests.
    #[arg(long, value_name = "F", required_unless_present = "baseline")]
    pub bundle: Option<PathBuf>,
    /// Run the configured checks on HEAD, as the verdict would, and print the tests that
    /// fail there as a ready `known_failures = [...]` line; no agent runs.
    #[arg(long, conflicts_with_all = ["bundle", "withheld", "keep_worktree"])]
    pub baseline: bool,
    /// A folder of tests the agent must never read; the checks run them.
    #[arg(long, value_name = "DIR")]
    pub withheld: Option<PathBuf>,
    /// Keep the worktree at the end.
    #[arg(long)]
    pub keep_worktree: bool,
    /// Print the whole story as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `speccoder recipe …`
#[derive(Debug, Subcommand)]
pub(crate) enum RecipeCommand {
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
pub(crate) enum AgentCommand {
    /// The argv the configured executor would be started with.
    Argv(AgentArgvArgs),
    /// One attempt by the configured external agent; prints the outcome as JSON.
    Run(AgentRunArgs),
}

/// A `--json` flag.
#[derive(Debug, Args)]
pub(crate) struct JsonFlag {
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `speccoder agent argv`.
#[derive(Debug, Args)]
pub(crate) struct AgentArgvArgs {
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// Where the agent works (default: the project root).
    #[arg(long, value_name = "DIR")]
    pub worktree: Option<PathBuf>,
    /// A directory the agent must not read (held-out tests).
    #[arg(long, value_name = "DIR")]
    pub withheld: Option<PathBuf>,
}

/// Arguments of `speccoder agent run`.
#[derive(Debug, Args)]
pub(crate) struct AgentRunArgs {
    /// A file holding the whole prompt.
    #[arg(
        long,
        value_name = "F",
        required_unless_present = "bundle",
        conflicts_with = "bundle"
    )]
    pub prompt_file: Option<PathBuf>,
    /// A task bundle (JSON) to build the prompt from.
    #[arg(long, value_name = "F")]
    pub bundle: Option<PathBuf>,
    /// The previous attempt's digest (JSON), for a retry.
    #[arg(long, value_name = "F")]
    pub digest: Option<PathBuf>,
    /// Where the agent works (default: the project root).
    #[arg(long, value_name = "DIR")]
    pub worktree: Option<PathBuf>,
    /// A directory the agent must not read (held-out tests).
    #[arg(long, value_name = "DIR")]
    pub withheld: Option<PathBuf>,
}

/// Runs the command line and returns the process exit code.
pub(crate) fn run(cli: Cli) -> ExitCode {
    match dispatch(&cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {}", escape_controls(&err.to_string()));
            ExitCode::from(err.exit_code())
        }
    }
}

/// The project root and its configuration.
struct Project {
    root: PathBuf,
    /// Where relative paths given to speccoder are read from: `-C DIR`, else the folder
    /// the command started in (which a root found above it does not change).
    base: PathBuf,
    /// How the root was found, when it was found above where the command started.
    found: Option<root::Found>,
    config: Config,
}

impl Project {
    fn load(cli: &Cli) -> Result<Self, Error> {
        let given = cli.dir.clone().unwrap_or_else(|| PathBuf::from("."));
        let base = given.canonicalize().map_err(|source| Error::Root {
            path: given.clone(),
            source,
        })?;
        if !base.is_dir() {
            return Err(Error::RootNotFolder(base));
        }
        let found = cli
            .dir
            .is_none()
            .then(|| root::find(&base))
            .filter(|found| found.claimed_by.is_some());
        let root = found
            .as_ref()
            .map_or_else(|| base.clone(), |f| f.root.clone());
        let config_path = match &cli.config {
            // Given explicitly, the file must be there: falling back to the defaults would
            // quietly run with other settings than the ones asked for.
            Some(path) => {
                let path = base.join(path);
                if let Err(source) = std::fs::metadata(&path) {
                    return Err(Error::ConfigFile { path, source });
                }
                path
            }
            None => root.join(CONFIG_FILE),
        };
        let mut config = Config::load(&config_path)?;
        // The keys that loosen the sandbox come from your own file only; the commands that
        // start an agent are the ones that read them.
        if matches!(cli.command, Command::Attempt(_) | Command::Agent(_))
            && let Some(location) = UserConfig::location()
        {
            UserConfig::load(&location)?.apply(&mut config.attempt, &root);
        }
        Ok(Self {
            root,
            base,
            found,
            config,
        })
    }

    /// `path` read from `-C DIR` when it is relative, else from where the command started.
    fn path(&self, path: &Path) -> PathBuf {
        self.base.join(path)
    }

    /// The worktree given, read from the root when relative; the root when none is given.
    fn worktree(&self, given: Option<&Path>) -> PathBuf {
        given.map_or_else(|| self.root.clone(), |p| self.path(p))
    }

    /// The configured external agent, or the reason there is none.
    fn executor(&self) -> Result<&ExternalExecutor, Error> {
        Ok(self.config.external_executor()?)
    }

    /// The allowances: `[commands] allow`, and the detected tasks when
    /// `[recipe] allow_tasks` (and the recipe tool) are on.
    fn allowances(&self) -> Allowances {
        let recipe = (self.config.recipe.enabled && self.config.recipe.allow_tasks)
            .then(|| Recipe::detect(&self.root, &self.config.recipe));
        allowances(&self.config, recipe.as_ref())
    }

    /// The Claude rules of the allowances; only Claude takes them, so the others skip the
    /// detection they need.
    fn claude_rules(&self, executor: &ExternalExecutor) -> Vec<String> {
        match executor.kind {
            ExecutorKind::Claude => {
                let mut rules = self.allowances().claude_rules;
                if self.recipe_server(executor).is_some() {
                    rules.push(CLAUDE_RECIPE_RULE.to_owned());
                }
                rules
            }
            ExecutorKind::Codex | ExecutorKind::Command => Vec::new(),
        }
    }

    /// `speccoder mcp` for the agent, when `[executor] recipe_mcp` and the recipe tool are
    /// on: this very binary, with the project's configuration file.
    fn recipe_server(&self, executor: &ExternalExecutor) -> Option<RecipeServer> {
        if !(executor.recipe_mcp && self.config.recipe.enabled) {
            return None;
        }
        Some(self.server())
    }

    /// `speccoder mcp` for this project: this very binary, with the project's
    /// configuration file and the variables it needs passed through.
    fn server(&self) -> RecipeServer {
        // Without a path to ourselves, the agent's PATH may still find us.
        let program = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("speccoder"));
        RecipeServer {
            program,
            config: self.config.source.clone(),
            env_vars: speccoder_attempt::recipe_server_env(),
        }
    }

    /// What an agent outside any namespace of ours may write besides its worktree: the
    /// caches of the project's runners and `[attempt] writable`, for Codex's own sandbox.
    fn writable(&self, executor: &ExternalExecutor) -> Vec<PathBuf> {
        if executor.kind != ExecutorKind::Codex {
            return Vec::new();
        }
        let recipe = self
            .config
            .recipe
            .enabled
            .then(|| Recipe::detect(&self.root, &self.config.recipe));
        writable_roots(
            recipe.as_ref(),
            &speccoder_attempt::writable(&self.config.attempt.writable),
        )
    }

    /// Detects the runners, unless the recipe tool is turned off.
    fn recipe(&self) -> Result<Recipe, Error> {
        if !self.config.recipe.enabled {
            return Err(Error::RecipeDisabled);
        }
        Ok(Recipe::detect(&self.root, &self.config.recipe))
    }
}

/// Loads the project and runs the command given.
fn dispatch(cli: &Cli) -> Result<ExitCode, Error> {
    let project = Project::load(cli)?;
    match &cli.command {
        Command::Recipe(RecipeCommand::List { json, explain }) => {
            recipe_list(&project, *json, *explain)
        }
        Command::Recipe(RecipeCommand::Prompt) => recipe_prompt(&project),
        Command::Recipe(RecipeCommand::Resolve { json, op }) => {
            recipe_resolve(&project, &op.join(" "), *json)
        }
        Command::Recipe(RecipeCommand::Run { timeout, json, op }) => {
            recipe_run(&project, &op.join(" "), *timeout, *json)
        }
        Command::Allow(JsonFlag { json }) => allow(&project, *json),
        Command::Agent(AgentCommand::Argv(args)) => agent_argv_command(&project, args),
        Command::Agent(AgentCommand::Run(args)) => agent_run(&project, args),
        Command::Mcp(args) => mcp(&project, args),
        Command::Attempt(args) => attempt(&project, args),
    }
}

/// `speccoder recipe list`.
fn recipe_list(project: &Project, json: bool, explain: bool) -> Result<ExitCode, Error> {
    let recipe = project.recipe()?;
    // Where the root came from, when it was found above the current folder.
    let root_note = project
        .found
        .as_ref()
        .filter(|_| explain)
        .and_then(|found| Some((found, found.claimed_by.as_deref()?)));
    if json {
        match root_note {
            // Only then through a `Value`: a listing of 50,000 tasks costs a third more that
            // way.
            Some((_, file)) => {
                let mut value =
                    serde_json::to_value(list_json(&recipe, explain)).map_err(|source| {
                        Error::Print {
                            what: "the listing",
                            source,
                        }
                    })?;
                if let Some(object) = value.as_object_mut() {
                    object.insert(
                        "root_found".into(),
                        serde_json::json!({"from": project.base, "claimed_by": file}),
                    );
                }
                print_json(&value);
            }
            None => print_list_json(&list_json(&recipe, explain)),
        }
    } else {
        let mut text = String::new();
        if let Some((found, file)) = root_note {
            text = format!(
                "Root: {} (the nearest folder above {} holding `{file}`)\n\n",
                found.root.display(),
                project.base.display()
            );
        }
        text.push_str(&list_text(&recipe, explain));
        print_text(&text);
    }
    // A runner that is there but broken is worth knowing without `--explain`.
    for (id, reason) in recipe.failed() {
        eprintln!("speccoder: runner `{id}` failed: {reason}");
    }
    // The process ends right after: the listing's memory (the strings of tens of thousands
    // of tasks) goes back with it rather than being freed one at a time.
    std::mem::forget(recipe);
    Ok(ExitCode::SUCCESS)
}

/// `speccoder recipe prompt`.
fn recipe_prompt(project: &Project) -> Result<ExitCode, Error> {
    let recipe = project.recipe()?;
    match recipe.prompt() {
        Some(prompt) => print_text(&prompt),
        None if recipe.failed().next().is_some() => eprintln!(
            "No working task runner in {}: {} There is no recipe tool; `speccoder recipe list \
             --explain` says more.",
            project.root.display(),
            recipe.failures_text()
        ),
        None => eprintln!(
            "No task runner detected in {}: there is no recipe tool.",
            project.root.display()
        ),
    }
    Ok(ExitCode::SUCCESS)
}

/// `speccoder recipe resolve`.
fn recipe_resolve(project: &Project, op: &str, json: bool) -> Result<ExitCode, Error> {
    let recipe = project.recipe()?;
    let resolved = match recipe.resolve(op) {
        Ok(resolved) => resolved,
        // `--list WORD` is a question, and its answer is the output.
        Err(ResolveError::Listing { text }) => return Ok(listing(&text, json)),
        Err(err) => return Err(err.into()),
    };
    if json {
        print_json(&serde_json::json!({
            "runner": resolved.runner.id,
            "task": resolved.task.name,
            "command": resolved.command,
            "cwd": resolved.cwd,
        }));
    } else {
        let mut text = format!("{}\n", resolved.command);
        if let Some(cwd) = resolved.cwd {
            text.push_str(&format!("in {cwd}\n"));
        }
        print_text(&text);
    }
    Ok(ExitCode::SUCCESS)
}

/// `speccoder recipe run`: exits with the task's own code.
fn recipe_run(
    project: &Project,
    op: &str,
    timeout: Option<u64>,
    json: bool,
) -> Result<ExitCode, Error> {
    let recipe = project.recipe()?;
    // On a terminal a person watches the output as it comes; anything else (a program, a
    // file, `--json`) gets the result text as before.
    if !json && std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        let result = run_live(&recipe, op, timeout)?;
        return Ok(task_code(&result));
    }
    let result = match recipe.run(op, timeout, &LocalSpawner::default()) {
        Ok(result) => result,
        Err(RunError::Resolve(ResolveError::Listing { text })) => {
            return Ok(listing(&text, json));
        }
        Err(err) => return Err(err.into()),
    };
    if json {
        print_json(&result);
    } else {
        print_text(&result.printed_text());
    }
    Ok(task_code(&result))
}

/// The exit code a run's task gave, as a shell would report it.
fn task_code(result: &RunResult) -> ExitCode {
    let code = result.shell_code().clamp(0, 255);
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}

/// `speccoder allow`.
fn allow(project: &Project, json: bool) -> Result<ExitCode, Error> {
    let allowances = project.allowances();
    if json {
        print_json(&allowances);
    } else {
        print_text(&allowances_text(&allowances));
    }
    Ok(ExitCode::SUCCESS)
}

/// `speccoder agent argv`.
fn agent_argv_command(project: &Project, args: &AgentArgvArgs) -> Result<ExitCode, Error> {
    let executor = project.executor()?;
    let worktree = project.worktree(args.worktree.as_deref());
    let withheld = args.withheld.as_deref().map(|p| project.path(p));
    let settings = match executor.kind {
        ExecutorKind::Claude => Some(
            ClaudePermissions::new(&project.claude_rules(executor), withheld.as_deref())?
                .settings_json(Containment::Host),
        ),
        ExecutorKind::Codex | ExecutorKind::Command => None,
    };
    let writable = project.writable(executor);
    let argv = agent_argv(
        executor,
        Placement {
            worktree: &worktree,
            last_message: Path::new("<last-message-file>"),
            settings: Path::new("<settings-file>"),
            recipe_server: project.recipe_server(executor).as_ref(),
            containment: Containment::Host,
            writable: &writable,
        },
    );
    if args.json {
        let mut json = serde_json::json!({ "argv": argv });
        if let Some(settings) = &settings {
            json["settings"] = settings.clone();
        }
        print_json(&json);
    } else {
        let words: Vec<String> = argv.iter().map(|w| quote(w)).collect();
        let mut text = format!("{}\n", words.join(" "));
        if let Some(settings) = &settings {
            let pretty = serde_json::to_string_pretty(settings).map_err(|source| Error::Print {
                what: "the settings",
                source,
            })?;
            text.push_str(&format!("\n<settings-file>:\n{pretty}\n"));
        }
        print_text(&text);
    }
    Ok(ExitCode::SUCCESS)
}

/// `speccoder agent run`: exits with the outcome's code.
fn agent_run(project: &Project, args: &AgentRunArgs) -> Result<ExitCode, Error> {
    let executor = project.executor()?;
    let prompt = match (&args.prompt_file, &args.bundle) {
        (Some(_), _) if args.digest.is_some() => {
            return Err(Error::Flags("--digest needs --bundle"));
        }
        (Some(file), _) => read_text(&project.path(file))?,
        (None, Some(bundle)) => {
            let bundle = read_bundle(&project.path(bundle))?;
            let digest = args
                .digest
                .as_deref()
                .map(|d| read_json(&project.path(d)))
                .transpose()?;
            build_prompt(&bundle, digest.as_ref(), &project.config.wording)
        }
        (None, None) => return Err(Error::Flags("give --prompt-file or --bundle")),
    };
    let worktree = project.worktree(args.worktree.as_deref());
    let withheld = args.withheld.as_deref().map(|p| project.path(p));
    let rules = project.claude_rules(executor);
    let recipe_server = project.recipe_server(executor);
    let writable = project.writable(executor);
    let outcome = Attempt {
        executor,
        claude_rules: &rules,
        worktree: &worktree,
        withheld: withheld.as_deref(),
        prompt: &prompt,
        recipe_server: recipe_server.as_ref(),
        folder: None,
        containment: Containment::Host,
        writable: &writable,
    }
    .run(&LocalSpawner::default());
    print_json(&outcome);
    Ok(ExitCode::from(outcome.status.exit_code()))
}

/// `speccoder mcp`: serves until stdin closes, or prints the configuration that starts it.
fn mcp(project: &Project, args: &McpArgs) -> Result<ExitCode, Error> {
    if let Some(agent) = args.print_config {
        let (config, hint) = mcp_config(&project.server(), &project.root, agent);
        eprintln!("{hint}");
        print_text(&config);
        return Ok(ExitCode::SUCCESS);
    }
    let recipe = project.recipe()?;
    speccoder_recipe::mcp::serve(
        &project.root,
        &project.config.recipe,
        &project.config.mcp,
        recipe,
    )
    .map_err(Error::Mcp)?;
    Ok(ExitCode::SUCCESS)
}

/// What `mcp --print-config` prints: the lines that start this server for the project
/// at `root`, for `agent`, and a hint for stderr. Claude's is pure JSON, so that it can be
/// saved as `.mcp.json` as it is.
fn mcp_config(server: &RecipeServer, root: &Path, agent: AgentName) -> (String, String) {
    match agent {
        AgentName::Claude => {
            let config = serde_json::json!({
                "mcpServers": { speccoder_agent::SERVER_NAME: server.claude_entry(root) }
            });
            let pretty = serde_json::to_string_pretty(&config).unwrap_or_default();
            (
                format!("{pretty}\n"),
                format!(
                    "speccoder: save this as .mcp.json in the project (or pass it to claude --mcp-config), and allow the server's four tools with the rule \"{CLAUDE_RECIPE_RULE}\" in .claude/settings.json"
                ),
            )
        }
        AgentName::Codex => (
            server.codex_table(root),
            "speccoder: add this table to ~/.codex/config.toml (or $CODEX_HOME/config.toml)"
                .to_owned(),
        ),
    }
}

/// The answer to `--list WORD`, printed on stdout (as `{"list": …}` with `--json`).
fn listing(text: &str, json: bool) -> ExitCode {
    if json {
        print_json(&serde_json::json!({ "list": text }));
    } else {
        print_text(&format!("{text}\n"));
    }
    ExitCode::SUCCESS
}

/// `speccoder attempt`: exits with the verdict's code.
fn attempt(project: &Project, args: &AttemptArgs) -> Result<ExitCode, Error> {
    // A stop signal lets this command remove its worktree and write its journal first.
    let _deferral = defer_exit();
    let bundle = args.bundle.as_deref().map(|p| project.path(p));
    let withheld = args.withheld.as_deref().map(|p| project.path(p));
    let request = AttemptRequest {
        root: &project.root,
        config: &project.config,
        bundle: bundle.as_deref(),
        withheld: withheld.as_deref(),
        keep_worktree: args.keep_worktree,
    };
    if args.baseline {
        let report = measure_baseline(&request)?;
        if args.json {
            print_json(&report);
        } else {
            print_text(&escape_controls(&baseline_text(&report)));
        }
        return Ok(ExitCode::SUCCESS);
    }
    // Notes known before the agent starts are said at once (an agent may run for half an
    // hour); the report repeats only the later ones.
    let mut said = Vec::new();
    let story = run_attempt(&request, &mut |note| {
        eprintln!("note: {}", escape_controls(note));
        said.push(note.to_owned());
    })?;
    if args.json {
        print_json(&story);
    } else {
        print_text(&escape_controls(&story_text(&story, &said)));
    }
    let code = match (story.verdict, story.signal.or_else(shutdown_signal)) {
        (Verdict::Interrupted, Some(signal)) => u8::try_from(128 + signal).unwrap_or(1),
        (verdict, _) => verdict.exit_code(),
    };
    Ok(ExitCode::from(code))
}

/// The report of `attempt --baseline`: each check with its counts, then the failing tests
/// as a line for `speccoder.toml`.
fn baseline_text(report: &BaselineReport) -> String {
    let mut out = String::new();
    for check in &report.checks {
        let counts: Vec<String> = check
            .tests
            .counts
            .iter()
            .map(|(outcome, n)| {
                let word = serde_json::to_value(outcome).unwrap_or_default();
                format!("{n} {}", word.as_str().unwrap_or("?"))
            })
            .collect();
        let counts = if counts.is_empty() {
            "no test results read".to_owned()
        } else {
            counts.join(", ")
        };
        let exit = check
            .exit_code
            .map_or_else(|| "did not exit".to_owned(), |c| format!("exit {c}"));
        out.push_str(&format!(
            "check `{}` ({}): {exit}; {counts}\n",
            check.op,
            check.command.as_deref().unwrap_or("not run")
        ));
        if !check.passed && check.tests.counts.is_empty() {
            let why = check
                .cause
                .as_deref()
                .or(check.tests.unexplained.as_deref())
                .unwrap_or("no recognised test runner's results were in its output");
            out.push_str(&format!(
                "  it fails at HEAD without test results: {why}\n  its last lines:\n"
            ));
            for line in last_lines(&check.output_tail, 10) {
                out.push_str(&format!("    {line}\n"));
            }
        }
    }
    let failing_checks: Vec<&str> = report
        .checks
        .iter()
        .filter(|c| !c.passed && c.tests.counts.is_empty())
        .map(|c| c.op.as_str())
        .collect();
    if !failing_checks.is_empty() {
        out.push_str(&format!(
            "{} fail{} at HEAD without test results: every attempt fails {} until {} at HEAD, and `known_failures` cannot excuse that\n",
            failing_checks
                .iter()
                .map(|op| format!("check `{op}`"))
                .collect::<Vec<_>>()
                .join(", "),
            if failing_checks.len() == 1 { "s" } else { "" },
            if failing_checks.len() == 1 { "it" } else { "them" },
            if failing_checks.len() == 1 { "it passes" } else { "they pass" },
        ));
    }
    if report.failing.is_empty() {
        if failing_checks.is_empty() {
            out.push_str("no test fails at HEAD: `[attempt] known_failures` can stay empty\n");
        }
    } else {
        out.push_str(&format!(
            "{} tests fail at HEAD. If they fail for reasons of the environment, not of the code, put this line in `[attempt]` of speccoder.toml:\n{}\n",
            report.failing.len(),
            report.known_failures
        ));
    }
    for note in &report.notes {
        out.push_str(&format!("note: {note}\n"));
    }
    out
}

/// The last `n` lines of `text`.
fn last_lines(text: &str, n: usize) -> Vec<&str> {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].to_vec()
}

/// The short report of an attempt: one line per attempt, then where the result is, then
/// the notes not already in `said`.
fn story_text(story: &Story, said: &[String]) -> String {
    let mut out = String::new();
    let total = story.max_attempts;
    for record in &story.attempts {
        let verdict = serde_json::to_value(record.verdict).unwrap_or_default();
        let verdict = verdict.as_str().unwrap_or("?");
        out.push_str(&format!(
            "attempt {} of {total}: {verdict}: {}\n",
            record.n,
            one_line(&record.reason)
        ));
        for warning in &record.warnings {
            out.push_str(&format!(
                "  warning: {}:{}: {}\n",
                warning.path, warning.line, warning.detail
            ));
        }
    }
    let verdict = serde_json::to_value(story.verdict).unwrap_or_default();
    out.push_str(&format!(
        "{}: {}\n",
        story.task,
        verdict.as_str().unwrap_or("?")
    ));
    if let (Some(branch), Some(commit)) = (&story.branch, &story.commit) {
        out.push_str(&format!("committed {commit} on {branch}\n"));
    }
    if let Some(worktree) = &story.worktree {
        out.push_str(&format!("worktree kept at {}\n", worktree.display()));
    }
    for note in story.notes.iter().filter(|n| !said.contains(n)) {
        out.push_str(&format!("note: {note}\n"));
    }
    out
}

/// `text` on one line, at most 300 characters.
fn one_line(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(300) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line,
    }
}

/// Runs `op` with its output copied to stdout as it arrives, then writes the closing line
/// (exit code, duration, full-output file) to stderr.
fn run_live(recipe: &Recipe, op: &str, timeout: Option<u64>) -> Result<RunResult, Error> {
    use std::io::Write;
    let mut stdout = std::io::stdout();
    let mut ends_line = true;
    let mut follower = |progress: Progress<'_>| {
        if let Some(&last) = progress.new_output.last() {
            // A reader that went away changes nothing for the run, which is still captured.
            let _ = stdout
                .write_all(progress.new_output)
                .and_then(|()| stdout.flush());
            ends_line = last == b'\n';
        }
    };
    let result = recipe.run_following(
        op,
        timeout,
        &LocalSpawner::default(),
        Some(Follow::Output(&mut follower)),
    )?;
    // The closing line starts a line of its own even when the output did not end one.
    let gap = if ends_line { "" } else { "\n" };
    eprintln!("{gap}{}", result.closing_line());
    Ok(result)
}

/// The text of a file given on the command line.
fn read_text(path: &Path) -> Result<String, Error> {
    std::fs::read_to_string(path).map_err(|source| Error::Read {
        path: path.to_path_buf(),
        source,
    })
}

/// The JSON of a file given on the command line.
fn read_json(path: &Path) -> Result<serde_json::Value, Error> {
    serde_json::from_str(&read_text(path)?).map_err(|source| Error::Json {
        path: path.to_path_buf(),
        source,
    })
}

/// A task bundle, read leniently: any JSON object is a bundle.
fn read_bundle(path: &Path) -> Result<Bundle, Error> {
    Bundle::from_json(&read_json(path)?).map_err(|source| Error::Bundle {
        path: path.to_path_buf(),
        source,
    })
}

/// `speccoder allow` as text: each allowed command with its rule, then what was dropped.
fn allowances_text(allowances: &Allowances) -> String {
    let mut out = String::new();
    let entries: Vec<(String, String)> = allowances
        .entries()
        .map(|(argv, rules)| {
            let command = argv.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ");
            (command, rules.join(" "))
        })
        .collect();
    // Aligned, but a very long command does not push every rule to the right.
    let width = entries
        .iter()
        .map(|(c, _)| c.chars().count())
        .filter(|&n| n <= 48)
        .max()
        .unwrap_or(0);
    out.push_str(&format!("Allowed commands ({}):\n", entries.len()));
    for (command, rules) in &entries {
        out.push_str(&format!("  {command:<width$}  {rules}\n"));
    }
    if !allowances.dropped.is_empty() {
        out.push_str(&format!(
            "Not allowed, no safe rule ({}):\n",
            allowances.dropped.len()
        ));
        for dropped in &allowances.dropped {
            out.push_str(&format!("  {}  ({})\n", dropped.command, dropped.reason));
        }
    }
    out
}

/// Writes `text` to stdout. A reader that went away (`| head`) ends the output quietly:
/// the command's own outcome, already decided, is what the exit code reports.
fn print_text(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(err) = out.write_all(text.as_bytes()).and_then(|()| out.flush())
        && err.kind() != std::io::ErrorKind::BrokenPipe
    {
        eprintln!("error: cannot print: {err}");
    }
}

fn print_json(value: &impl serde::Serialize) {
    write_json(value, |out| Ok(serde_json::to_writer(out, value)?));
}

/// [`print_json`] of a listing, whose compact form has a quicker writer of its own.
fn print_list_json(list: &ListJson<'_>) {
    write_json(list, |out| list.write_compact(out));
}

/// Writes `value` to stdout, indented at a terminal and else by `compact`.
fn write_json(
    value: &impl serde::Serialize,
    compact: impl FnOnce(&mut std::io::BufWriter<Box<dyn std::io::Write + '_>>) -> std::io::Result<()>,
) {
    use std::io::Write;
    let stdout = std::io::stdout();
    // Indented for a person at a terminal; compact for a program reading a pipe (a listing
    // of 50,000 tasks is then a third smaller and quicker to write).
    let pretty = std::io::IsTerminal::is_terminal(&stdout);
    // Large enough that a listing of 50,000 tasks (6 MB) takes about a hundred writes.
    let mut out = std::io::BufWriter::with_capacity(64 << 10, direct(&stdout));
    let written = if pretty {
        serde_json::to_writer_pretty(&mut out, value).map_err(std::io::Error::from)
    } else {
        compact(&mut out)
    };
    let written = written
        .and_then(|()| writeln!(out))
        .and_then(|()| out.flush());
    // A reader that went away (`| head`) is not an error worth a message.
    if let Err(err) = written
        && err.kind() != std::io::ErrorKind::BrokenPipe
    {
        eprintln!("error: cannot print JSON: {err}");
    }
}

/// Stdout as a file of its own (a duplicate of its descriptor), else through its lock: std's
/// stdout is line-buffered and looks through every write for a newline, 6M instructions for a
/// 50,000-task listing written in 64 KiB pieces that have none.
fn direct(stdout: &std::io::Stdout) -> Box<dyn std::io::Write + '_> {
    use std::io::Write;
    use std::os::fd::AsFd;
    let mut lock = stdout.lock();
    // Whatever std still holds goes first.
    let _ = lock.flush();
    match stdout.as_fd().try_clone_to_owned() {
        Ok(fd) => Box::new(std::fs::File::from(fd)),
        Err(_) => Box::new(lock),
    }
}
