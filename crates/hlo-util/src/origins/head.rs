//! A module text's head: its header and the stack-frame tables XLA prints
//! after it (`FileNames`, ... `StackFrames`), read before the instructions
//! that name their frames, then handed back to the text reader.

use std::io::{BufRead, Read};

use super::tables::Tables;
use crate::{HloError, HloErrorKind, MAX_LINE_BYTES};

/// The module's first lines, up to its first computation: the header and
/// the stack-frame tables. Chain them before the rest of `input` to read
/// the whole module (`head.as_slice().chain(input)`).
///
/// # Errors
///
/// [`HloError`]: the line where `input` could not be read.
pub(crate) fn read_head(input: &mut impl BufRead) -> Result<Vec<u8>, HloError> {
    let mut head = Vec::new();
    let mut header = false;
    let mut line = 1_u64;
    loop {
        let start = head.len();
        let read = input
            .by_ref()
            .take(u64::try_from(MAX_LINE_BYTES).unwrap_or(u64::MAX))
            .read_until(b'\n', &mut head)
            .map_err(|e| HloError::at(line, 0, HloErrorKind::Io(e)))?;
        let text = String::from_utf8_lossy(head.get(start..).unwrap_or_default());
        let text = text.trim();
        let more = if text.is_empty() {
            read > 0
        } else if header {
            table_line(text)
        } else {
            text.starts_with("HloModule")
        };
        if !more {
            return Ok(head);
        }
        header |= !text.is_empty();
        line = line.saturating_add(1);
    }
}

/// A line of the stack-frame tables: a table's name or a row (`1 "f.py"`).
fn table_line(line: &str) -> bool {
    line.starts_with(|c: char| c.is_ascii_digit())
        || ["FileNames", "FunctionNames", "FileLocations", "StackFrames"].contains(&line)
}

/// The stack-frame tables of `head` ([`read_head`]); none, with a warning
/// in `warnings`, where a row does not read.
pub(crate) fn head_tables(head: &[u8], warnings: &mut Vec<String>) -> Tables {
    std::str::from_utf8(head)
        .map_or_else(|_| Ok(Tables::default()), Tables::from_text)
        .unwrap_or_else(|m| {
            warnings.push(format!("{m}; the stacks are left out"));
            Tables::default()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_head_ends_at_the_first_computation() {
        let text = "HloModule m\n\nFileNames\n1 \"a.py\"\n\nENTRY %e () -> f32[] {\n";
        let mut input = text.as_bytes();
        let head = read_head(&mut input).unwrap();
        assert_eq!(
            head,
            b"HloModule m\n\nFileNames\n1 \"a.py\"\n\nENTRY %e () -> f32[] {\n"
        );
        assert!(input.is_empty());
        let mut warnings = Vec::new();
        let bad = head_tables(b"HloModule m\nFileNames\n2 \"a.py\"\n", &mut warnings);
        assert_eq!(bad.frame(1), None);
        assert_eq!(
            warnings,
            ["line 3: FileNames row: id 2 where 1 was expected; the stacks are left out"]
        );
    }
}
