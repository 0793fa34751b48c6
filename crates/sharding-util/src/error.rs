//! The crate's errors.

/// Why a sharding was rejected, or a query about it has no answer: XLA's
/// message where XLA has one.
///
/// ```
/// let error = sharding_util::TileAssignment::list(vec![3], vec![0, 1]).unwrap_err();
/// assert_eq!(
///     error.to_string(),
///     "sharding device count 2 does not match the tile assignment size 3"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ShardingError {
    message: String,
}

impl ShardingError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// Why a sharding text was rejected: XLA's message, the byte offset where
/// it was found and the token found there, as the shape parser reports.
///
/// ```
/// let error = "{devices=[2]0}".parse::<sharding_util::HloSharding>().unwrap_err();
/// assert_eq!(
///     error.to_string(),
///     "Syntax error:\nnon-maximal shardings must have more than one device assigned (at byte 1: `devices=`)"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Syntax error:\n{message} (at byte {offset}: {found})")]
pub struct ParseError {
    /// What is wrong, in XLA's words where XLA has them.
    pub message: String,
    /// Byte offset of the offending token.
    pub offset: usize,
    /// The offending token, quoted, or `end of input`.
    pub found: String,
}
