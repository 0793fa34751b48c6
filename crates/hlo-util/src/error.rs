//! The errors of the HLO readers: where in the input (a line and column of
//! the text, a field of the serialized module) and what kind of error.
//!
//! A wrapped error is said once: where the message prints it (an I/O error,
//! a shape's, prost's), the variant holds it and `source()` is `None`;
//! where the message does not (a line that is not UTF-8), it is the
//! `source()`. A chain printer (anyhow's `{:#}`) so prints no text twice.

use std::error::Error;
use std::fmt;

/// Why an HLO module's text could not be read: the 1-based line and column
/// of the offending text (column 1 for errors about a whole line or the
/// input), and what is wrong there.
///
/// ```
/// use hlo_util::HloErrorKind;
///
/// let error = hlo_util::read_text("HloModule m\nENTRY e {\n  x = f32[2] negate(%y)\n}\n".as_bytes(), |_| {})
///     .unwrap_err();
/// assert_eq!((error.line, error.column), (3, 21));
/// assert!(matches!(&error.kind, HloErrorKind::Malformed(_)));
/// assert_eq!(error.to_string(), "line 3, column 21: instruction does not exist: y");
/// ```
#[derive(Debug)]
pub struct HloError {
    /// The 1-based line number.
    pub line: u64,
    /// The 1-based column, in bytes from the start of the line.
    pub column: usize,
    /// What is wrong.
    pub kind: HloErrorKind,
}

/// What is wrong in an HLO module's text.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HloErrorKind {
    /// The input could not be read.
    #[error("cannot read: {0}")]
    Io(std::io::Error),
    /// A line longer than the reader takes (the cap, in bytes).
    #[error("the line is longer than {0} bytes")]
    LineTooLong(usize),
    /// A line is not UTF-8.
    #[error("the text is not UTF-8")]
    NotUtf8(#[source] std::str::Utf8Error),
    /// A shape XLA's parser refuses (its message).
    #[error("invalid shape: {}", .0.to_string().replace("Syntax error:\n", ""))]
    Shape(schema::ParseError),
    /// A shape that cannot be sized: a layout XLA refuses, sizes that
    /// overflow.
    #[error("{0}")]
    Size(shape_util::ShapeError),
    /// The entry parameters' bytes add up beyond `i64`.
    #[error("the parameters' bytes overflow")]
    Overflow,
    /// Text that is not what XLA prints there: a missing or unexpected
    /// token, unbalanced brackets or strings, a computation without its
    /// `ROOT`, a module without computations.
    #[error("{0}")]
    Malformed(String),
}

impl HloError {
    /// An error at byte offset `offset` (0-based) of line `line`.
    pub(crate) fn at(line: u64, offset: usize, kind: HloErrorKind) -> Self {
        Self {
            line,
            column: offset.saturating_add(1),
            kind,
        }
    }
}

/// Why a serialized `HloModuleProto` could not be read: the path of the
/// offending field and what is wrong there.
///
/// ```
/// use hlo_util::ProtoErrorKind;
///
/// // Field 3 (`computations`) claims 5 bytes; 2 follow.
/// let error = hlo_util::read_proto(&[0x1a, 0x05, 0x12, 0x09], |_| {}).unwrap_err();
/// assert_eq!(error.path, "HloModuleProto");
/// assert!(matches!(error.kind, ProtoErrorKind::Wire { offset: 0, .. }));
/// assert_eq!(
///     error.to_string(),
///     "HloModuleProto: at byte 0: field 3 runs past the end of the message (4 bytes)"
/// );
/// // Field 1 (`name`), a string, holds a byte that is not UTF-8.
/// let error = hlo_util::read_proto(&[0x0a, 0x01, 0xff], |_| {}).unwrap_err();
/// assert!(matches!(error.kind, ProtoErrorKind::Decode(_)));
/// ```
#[derive(Debug)]
pub struct ProtoError {
    /// The field, from the module down: `computations[1].instructions[4].shape`
    /// (`HloModuleProto` for errors of the wire format, whose message names
    /// the fields it was decoding).
    pub path: String,
    /// What is wrong.
    pub kind: ProtoErrorKind,
}

/// What is wrong in a serialized `HloModuleProto`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProtoErrorKind {
    /// The bytes are not a message of this type (a truncated file,
    /// garbage).
    #[error("{0}")]
    Decode(prost::DecodeError),
    /// Bytes that are no protobuf message: a key that is no field's, a
    /// length past the end (found before the message is decoded).
    #[error("at byte {offset}: {message}")]
    Wire {
        /// The offset of the offending byte from the start of the message
        /// named by the path.
        offset: u64,
        /// What is wrong there.
        message: String,
    },
    /// An instruction without its shape.
    #[error("missing")]
    MissingShape,
    /// A shape of tuples nested deeper than this ([`schema::MAX_DEPTH`],
    /// as deep as the shape parser and protobuf's decoders go).
    #[error("tuples nested deeper than {0}")]
    TooDeep(usize),
    /// A shape that cannot be sized: a layout XLA refuses, sizes that
    /// overflow.
    #[error("{0}")]
    Size(shape_util::ShapeError),
    /// The entry parameters' bytes add up beyond `i64`.
    #[error("the parameters' bytes overflow")]
    Overflow,
    /// `host_program_shape` disagrees with the entry computation (XLA's
    /// verifier's message).
    #[error("{0}")]
    EntryLayout(String),
    /// No computation has the entry computation's id (or name).
    #[error("no computation has id {0}")]
    NoEntry(i64),
    /// No instruction of a computation has its root's id.
    #[error("no instruction has id {0}")]
    NoRoot(i64),
    /// The entry parameters' numbers are not 0, 1, ... each once: this one
    /// is missing or repeated.
    #[error("no parameter {0}, or two of it")]
    Parameter(usize),
}

impl ProtoError {
    /// An error of the field at `path`.
    pub(crate) fn at(path: &str, kind: ProtoErrorKind) -> Self {
        Self {
            path: path.to_owned(),
            kind,
        }
    }
}

/// Why a module (text or serialized) could not be read.
///
/// ```
/// let error = hlo_util::read_module(&b"\xff\xff"[..], |_| {}).unwrap_err();
/// assert!(matches!(error, hlo_util::ReadError::Proto(_)));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// The text form, at a line and column.
    #[error(transparent)]
    Text(#[from] HloError),
    /// The serialized form, at a field.
    #[error(transparent)]
    Proto(#[from] ProtoError),
    /// The input could not be read.
    #[error("cannot read: {0}")]
    Io(std::io::Error),
}

impl From<std::io::Error> for ReadError {
    fn from(error: std::io::Error) -> Self {
        Self::Io(error)
    }
}

impl fmt::Display for HloError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.kind
        )
    }
}

/// The source is the kind's: the UTF-8 error of a line that is not UTF-8
/// (the other wrapped errors are in the message).
impl Error for HloError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        self.kind.source()
    }
}

impl fmt::Display for ProtoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.kind)
    }
}

/// The source is the kind's (none: prost's decode error and the size error
/// are in the message).
impl Error for ProtoError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        self.kind.source()
    }
}
