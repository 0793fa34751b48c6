//! The inputs of list commands: the arguments, or one per line of standard
//! input when there are none.

use std::io::{BufRead, IsTerminal, Read};

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

/// The longest line of standard input a list command takes (64 MiB): a
/// longer one is an error, skipped without being held in memory, and the
/// next line is read.
pub const MAX_LINE_BYTES: usize = 64 << 20;

fn lines(args: Vec<String>, blank_ok: bool) -> Box<dyn Iterator<Item = Result<String, String>>> {
    if !args.is_empty() {
        return Box::new(args.into_iter().map(Ok));
    }
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        eprintln!("{TERMINAL_NOTICE}");
    }
    let mut input = stdin.lock();
    Box::new(std::iter::from_fn(move || {
        let line = capped_line(&mut input, MAX_LINE_BYTES).transpose()?;
        Some(line.and_then(|mut line| {
            if line.ends_with('\r') {
                line.pop();
            }
            if !blank_ok && line.trim().is_empty() {
                return Err("the input line is empty".to_owned());
            }
            Ok(line)
        }))
    }))
}

/// The next line of `input` without its `\n` (`None` at the end), at most
/// `cap` bytes: a longer line is an error, and the rest of it is read and
/// dropped a buffer at a time.
fn capped_line(input: &mut impl BufRead, cap: usize) -> Result<Option<String>, String> {
    let cannot = |e: std::io::Error| format!("cannot read standard input: {e}");
    let mut line = Vec::new();
    let limit = u64::try_from(cap).unwrap_or(u64::MAX).saturating_add(1);
    let read = input
        .take(limit)
        .read_until(b'\n', &mut line)
        .map_err(cannot)?;
    if read == 0 {
        return Ok(None);
    }
    if line.last() == Some(&b'\n') {
        line.pop();
    } else if line.len() > cap {
        loop {
            let buffer = input.fill_buf().map_err(cannot)?;
            if buffer.is_empty() {
                break;
            }
            let (used, end) = match buffer.iter().position(|&b| b == b'\n') {
                Some(p) => (p + 1, true),
                None => (buffer.len(), false),
            };
            input.consume(used);
            if end {
                break;
            }
        }
        return Err(format!(
            "a line of standard input is longer than {cap} bytes, the most one input may be"
        ));
    }
    String::from_utf8(line)
        .map(Some)
        .map_err(|_| "cannot read standard input: stream did not contain valid UTF-8".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_capped_and_an_overlong_one_is_skipped() {
        let mut input = &b"ab\r\n0123456789\nxyz"[..];
        assert_eq!(capped_line(&mut input, 4), Ok(Some("ab\r".to_owned())));
        assert_eq!(
            capped_line(&mut input, 4),
            Err(
                "a line of standard input is longer than 4 bytes, the most one input may be"
                    .to_owned()
            )
        );
        assert_eq!(capped_line(&mut input, 4), Ok(Some("xyz".to_owned())));
        assert_eq!(capped_line(&mut input, 4), Ok(None));
        let mut exact = &b"abcd"[..];
        assert_eq!(capped_line(&mut exact, 4), Ok(Some("abcd".to_owned())));
        let mut invalid = &b"\xff\n"[..];
        assert_eq!(
            capped_line(&mut invalid, 4),
            Err("cannot read standard input: stream did not contain valid UTF-8".to_owned())
        );
    }
}
