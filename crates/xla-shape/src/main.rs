//! `xla-shape`: XLA shapes, layouts, indices, broadcasting and strided views
//! from the shell, for people and for scripts.
//!
//! Exit status: 0 when every input succeeded, 1 when any input failed, 2 for
//! bad usage.

#![forbid(unsafe_code)]

use std::process::ExitCode;

fn main() -> ExitCode {
    xla_shape::run_cli()
}
