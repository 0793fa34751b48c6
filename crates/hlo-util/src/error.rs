//! The error of the HLO readers: where in the input, and what is wrong.

/// Why an HLO module could not be read: the 1-based line and column of the
/// offending text (column 1 for errors about a whole line or the input), and
/// what is wrong there.
///
/// ```
/// let error = hlo_util::read_text("HloModule m\nENTRY e {\n  x = f32[2] bogus()\n}\n".as_bytes(), |_| {})
///     .unwrap_err();
/// assert_eq!((error.line, error.column), (3, 14));
/// assert_eq!(error.to_string(), "line 3, column 14: unknown opcode `bogus`");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {message}")]
pub struct HloError {
    /// The 1-based line number.
    pub line: u64,
    /// The 1-based column, in bytes from the start of the line.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

impl HloError {
    /// An error at byte offset `offset` (0-based) of line `line`.
    pub(crate) fn at(line: u64, offset: usize, message: impl Into<String>) -> Self {
        Self {
            line,
            column: offset.saturating_add(1),
            message: message.into(),
        }
    }
}
