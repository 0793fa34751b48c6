//! The inputs of list commands: the arguments, or one per line of standard
//! input when there are none.

use std::io::{BufRead, IsTerminal};

/// What a list command says on standard error before it reads a terminal.
pub const TERMINAL_NOTICE: &str = "xla-shape: reading one input per line from standard input \
    (end with Ctrl-D; see --help)";

/// The inputs to process: `args` when given, else the lines of standard input
/// (a trailing `\r` is dropped; a blank line is an error, so that output lines
/// stay aligned with input lines). When standard input is a terminal, a
/// notice on standard error says that the command is waiting for lines.
pub fn inputs(args: Vec<String>) -> Box<dyn Iterator<Item = Result<String, String>>> {
    lines(args, false)
}

/// [`inputs`] where a blank line is an input of its own (the empty message
/// of hex or text-format inputs), not an error.
pub fn inputs_with_blank_lines(
    args: Vec<String>,
) -> Box<dyn Iterator<Item = Result<String, String>>> {
    lines(args, true)
}

fn lines(args: Vec<String>, blank_ok: bool) -> Box<dyn Iterator<Item = Result<String, String>>> {
    if !args.is_empty() {
        return Box::new(args.into_iter().map(Ok));
    }
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        eprintln!("{TERMINAL_NOTICE}");
    }
    Box::new(stdin.lock().lines().map(move |line| {
        let mut line = line.map_err(|e| format!("cannot read standard input: {e}"))?;
        if line.ends_with('\r') {
            line.pop();
        }
        if !blank_ok && line.trim().is_empty() {
            return Err("the input line is empty".to_owned());
        }
        Ok(line)
    }))
}
