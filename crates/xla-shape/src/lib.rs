//! The `xla-shape` command line: argument parsing, reading the inputs,
//! printing the results and the exit status. What it prints is computed by
//! the library crates and the front ends' shared library
//! (`xla-shape-front`); this crate decides nothing of its own.

#![forbid(unsafe_code)]

mod cli;
mod commands;
mod inputs;
mod output;

use std::process::ExitCode;

/// Runs the command line of the process (`xla-shape <command> ...`); the
/// exit status is 0 when every input succeeded, 1 when any failed, 2 for
/// bad usage.
pub fn run_cli() -> ExitCode {
    use clap::Parser;

    let cli = cli::Cli::parse();
    if let Err(error) = cli.check_usage() {
        error.exit();
    }
    let mut out = output::Output::new(cli.json);
    commands::run(cli.command, &mut out);
    out.exit_code()
}
