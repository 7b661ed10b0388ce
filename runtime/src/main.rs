//! `speccoder`: the command line of the speccoder runtime.

use std::process::ExitCode;

use clap::Parser;
use speccoder_runtime::cli::{self, Cli};
use speccoder_runtime::process::{
    shutdown_signal, stop_all_process_groups, stop_process_groups_on_signals,
};

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Err(err) = stop_process_groups_on_signals() {
        eprintln!("error: cannot watch for signals: {err}");
        return ExitCode::from(cli::EXIT_USAGE);
    }
    let code = cli::run(cli);
    // A run cut short by a signal ends as the signal says, whichever thread gets here first.
    if let Some(signal) = shutdown_signal() {
        stop_all_process_groups();
        return ExitCode::from(u8::try_from(128 + signal).unwrap_or(1));
    }
    code
}
