//! `speccoder`: the command line of the speccoder runtime.

use std::process::ExitCode;

use clap::Parser;
use speccoder_runtime::cli::{self, Cli};
use speccoder_runtime::process::stop_process_groups_on_signals;

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Err(err) = stop_process_groups_on_signals() {
        eprintln!("error: cannot watch for signals: {err}");
        return ExitCode::from(cli::EXIT_USAGE);
    }
    cli::run(cli)
}
