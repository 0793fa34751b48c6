//! The `xla-shape` command-line tool, and the few of its results that other
//! front ends (the Python package `xla_shape`) share with it: the `explain`
//! report, broadcasting, views, memory order and pictures, computed by the
//! same code the commands run.

#![forbid(unsafe_code)]

mod cli;
mod commands;
mod draw;
mod inputs;
mod output;
mod view_ops;

use std::process::ExitCode;

use clap::Parser;
use schema::Shape;
use serde_json::Value;

/// Runs the command line of the process (`xla-shape <command> ...`); the
/// exit status is 0 when every input succeeded, 1 when any failed, 2 for bad
/// usage.
pub fn run_cli() -> ExitCode {
    let cli = cli::Cli::parse();
    if let Err(error) = cli.check_usage() {
        error.exit();
    }
    let mut out = output::Output::new(cli.json);
    commands::run(cli.command, &mut out);
    out.exit_code()
}

/// The object `xla-shape --json explain` prints for `shape`, less `ok` and
/// `input`.
///
/// ```
/// let shape: schema::Shape = "f32[2,3]{0,1}".parse().unwrap();
/// let fields = xla_shape::explain(&shape).unwrap();
/// assert_eq!(fields["buffer_size"], 24);
/// assert_eq!(fields["strides"], serde_json::json!([1, 2]));
/// ```
///
/// # Errors
/// XLA's message for a shape it rejects.
pub fn explain(shape: &Shape) -> Result<Value, String> {
    commands::explain::explain(shape).map(|(_, fields)| fields)
}

/// What `xla-shape broadcast` prints: the broadcast of `shapes` (XLA shape
/// strings, or bare `[d0,...]` lists standing for `f32` arrays) under
/// numpy's rules with `numpy` (any number of shapes), else under XLA's for
/// two: an elementwise binary op, or with `in_dim` BroadcastInDim of the
/// first into the second; `dims` are the broadcast dimensions.
///
/// ```
/// let shapes = ["[4]".to_owned(), "[1,2]".to_owned()];
/// assert_eq!(xla_shape::broadcast(&shapes, Some(&[0]), false, false).unwrap(), "[4,2]");
/// ```
///
/// # Errors
/// XLA's (or numpy's) message when the shapes do not broadcast.
pub fn broadcast(
    shapes: &[String],
    dims: Option<&[i64]>,
    in_dim: bool,
    numpy: bool,
) -> Result<String, String> {
    commands::broadcast::broadcast(shapes, dims, in_dim, numpy)
}

/// The object `xla-shape --json view BASE OPS...` prints, less `ok` and
/// `error`: the strided view (`shape`, `strides`, `offset`,
/// `c_contiguous`, `f_contiguous`) after numpy-style operations on `base`
/// (a bare `[d0,...]` list or an XLA shape string).
///
/// ```
/// let view = xla_shape::view("[3,4]", &["[0:3:2, 1:4:2]".to_owned()]).unwrap();
/// assert_eq!(view["strides"], serde_json::json!([8, 2]));
/// assert_eq!(view["offset"], 1);
/// ```
///
/// # Errors
/// numpy's message for an operation it would refuse.
pub fn view(base: &str, ops: &[String]) -> Result<Value, String> {
    let (_, mut fields) = commands::view::run(base, ops)?;
    if let Some(object) = fields.as_object_mut() {
        object.remove("error");
    }
    Ok(fields)
}

/// What `xla-shape order` lists: for each position of `shape`'s buffer in
/// memory order (tiles and padding included), the row-major index of the
/// element stored there, or `None` for padding.
///
/// ```
/// let shape: schema::Shape = "f32[2,3]{0,1}".parse().unwrap();
/// let order = xla_shape::memory_order(&shape).unwrap();
/// assert_eq!(order, [0, 3, 1, 4, 2, 5].map(Some));
/// ```
///
/// # Errors
/// XLA's message for a shape it rejects, or a buffer of more than 2^20
/// positions.
pub fn memory_order(shape: &Shape) -> Result<Vec<Option<i64>>, String> {
    commands::order::memory_order_of(shape)
}

/// What `xla-shape draw` draws: the SVG picture of `shape`'s layout.
///
/// ```
/// let shape: schema::Shape = "f32[2,3]{0,1}".parse().unwrap();
/// assert!(xla_shape::draw(&shape).unwrap().contains("<svg"));
/// ```
///
/// # Errors
/// XLA's message for a shape it rejects.
pub fn draw(shape: &Shape) -> Result<String, String> {
    commands::draw::draw_shape(shape)
}
