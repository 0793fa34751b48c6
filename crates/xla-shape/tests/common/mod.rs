//! Running the `xla-shape` binary from the CLI tests.

// Each test binary uses the helpers it needs.
#![allow(dead_code, clippy::expect_used)]

use assert_cmd::cargo::cargo_bin_cmd;
use serde_json::Value;

/// Runs `xla-shape ARGS` with `stdin` (none: an empty standard input):
/// standard output and the exit status.
pub fn run(args: &[&str], stdin: Option<&str>) -> (String, i32) {
    let (stdout, _, code) = run_bytes(args, stdin.unwrap_or_default().as_bytes());
    (String::from_utf8(stdout).expect("utf-8 output"), code)
}

/// Runs `xla-shape ARGS` with binary `stdin`: standard output, standard
/// error and the exit status.
pub fn run_bytes(args: &[&str], stdin: &[u8]) -> (Vec<u8>, String, i32) {
    let output = cargo_bin_cmd!("xla-shape")
        .args(args)
        .write_stdin(stdin.to_vec())
        .output()
        .expect("the binary runs");
    let stderr = String::from_utf8(output.stderr).expect("utf-8 errors");
    (
        output.stdout,
        stderr,
        output.status.code().expect("exited, not killed"),
    )
}

/// Each line of `stdout` as a JSON object.
pub fn json_lines(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("each line is JSON"))
        .collect()
}
