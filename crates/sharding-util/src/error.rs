//! The crate's errors.

/// What kind of failure a [`ShardingError`] is, for a caller to match on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The sharding (or its `OpSharding`, or its mesh) contradicts itself:
    /// a tile assignment, subgroup list or mesh axis XLA rejects.
    Invalid,
    /// The sharding does not fit what it is used with: the shape, the
    /// device count, a device or tile asked about, another sharding.
    Mismatch,
    /// The sharding names no device count and none was given.
    NoDeviceCount,
    /// A count or size beyond `i64` or beyond this crate's limits
    /// ([`crate::MAX_DEVICES`], [`crate::MAX_MATERIALIZED`]).
    TooLarge,
    /// No answer for this kind of sharding, shape or element type (manual,
    /// unknown and tuple shardings hold no plain data; dynamic dimensions;
    /// sub-byte elements when executing a reshard).
    Unsupported,
    /// A per-device buffer given to execute a reshard is missing or does
    /// not fit its shard.
    Buffer,
}

/// Why a sharding was rejected, or a query about it has no answer: its
/// [`ErrorKind`] and XLA's message where XLA has one.
///
/// ```
/// use sharding_util::ErrorKind;
///
/// let error = sharding_util::TileAssignment::list(vec![3], vec![0, 1]).unwrap_err();
/// assert_eq!(error.kind(), ErrorKind::Invalid);
/// assert_eq!(
///     error.to_string(),
///     "sharding device count 2 does not match the tile assignment size 3"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ShardingError {
    kind: ErrorKind,
    message: String,
}

impl ShardingError {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }

    /// What kind of failure it is.
    pub fn kind(&self) -> ErrorKind {
        self.kind
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
#[non_exhaustive]
pub struct ParseError {
    /// What is wrong, in XLA's words where XLA has them.
    pub message: String,
    /// Byte offset of the offending token.
    pub offset: usize,
    /// The offending token, quoted, or `end of input`.
    pub found: String,
}

impl ParseError {
    /// The error `message`, at byte `offset` of the text, where `found` is
    /// (the token quoted, or `end of input`).
    ///
    /// ```
    /// let error = sharding_util::ParseError::new("expected `}`", 3, "end of input");
    /// assert_eq!(error.to_string(), "Syntax error:\nexpected `}` (at byte 3: end of input)");
    /// ```
    pub fn new(message: impl Into<String>, offset: usize, found: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            offset,
            found: found.into(),
        }
    }
}
