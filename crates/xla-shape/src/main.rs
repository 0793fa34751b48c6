//! `xla-shape`: XLA shapes, layouts, indices, broadcasting and strided views
//! from the shell, for people and for scripts.
//!
//! Exit status: 0 when every input succeeded, 1 when any input failed, 2 for
//! bad usage.

#![forbid(unsafe_code)]

mod cli;
mod commands;
mod draw;
mod inputs;
mod output;
mod view_ops;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    if let Err(error) = cli.check_usage() {
        error.exit();
    }
    let mut out = output::Output::new(cli.json);
    commands::run(cli.command, &mut out);
    out.exit_code()
}
