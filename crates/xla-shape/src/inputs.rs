//! The inputs of list commands: the arguments, or one per line of standard
//! input when there are none.

use std::io::BufRead;

/// The inputs to process: `args` when given, else the lines of standard input
/// (a trailing `\r` is dropped; blank lines are kept so that output lines stay
/// aligned with input lines).
pub fn inputs(args: Vec<String>) -> Box<dyn Iterator<Item = Result<String, String>>> {
    if !args.is_empty() {
        return Box::new(args.into_iter().map(Ok));
    }
    let lines = std::io::stdin().lock().lines();
    Box::new(lines.map(|line| {
        line.map(|mut l| {
            if l.ends_with('\r') {
                l.pop();
            }
            l
        })
        .map_err(|e| format!("cannot read standard input: {e}"))
    }))
}
