//! `speccoder`: the command line of the speccoder runtime.

use std::process::ExitCode;

use clap::Parser;
mod cli;
mod error;
mod root;

use cli::Cli;
use speccoder_foundation::process::{
    shutdown_signal, stop_all_process_groups, stop_process_groups_on_signals,
};

fn main() -> ExitCode {
    // The first process of an attempt's sandbox (see `sandbox.rs`): not a command for
    // people, so it is not in the help.
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.len() == 3 && args[1] == "__sandbox" {
        let code = speccoder_foundation::sandbox::main(std::path::Path::new(&args[2]));
        return ExitCode::from(u8::try_from(code).unwrap_or(1));
    }
    // The reaper of `speccoder mcp`'s tasks (see `process/registry.rs`).
    if args.len() == 2 && args[1] == "__reaper" {
        let code = speccoder_foundation::process::reaper_main();
        return ExitCode::from(u8::try_from(code).unwrap_or(1));
    }
    let cli = Cli::parse();
    if let Err(err) = stop_process_groups_on_signals() {
        eprintln!("error: cannot watch for signals: {err}");
        return ExitCode::from(error::EXIT_ENVIRONMENT);
    }
    let code = cli::run(cli);
    // A run cut short by a signal ends as the signal says, whichever thread gets here first.
    if let Some(signal) = shutdown_signal() {
        stop_all_process_groups();
        return ExitCode::from(u8::try_from(128 + signal).unwrap_or(1));
    }
    code
}
