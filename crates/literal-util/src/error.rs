//! [`LiteralError`]: every way reading, writing or printing a literal fails.

use schema::Shape;
use thiserror::Error;

/// An error from a literal operation.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum LiteralError {
    /// The LiteralProto has no `shape` (XLA's text).
    #[error("LiteralProto has no shape")]
    NoShape,
    /// An array shape without a layout (XLA's text).
    #[error("LiteralProto has no layout")]
    NoLayout,
    /// The shape is not valid (XLA's validation message).
    #[error("invalid literal shape: {0}")]
    InvalidShape(String),
    /// What the crate does not support, as XLA does not.
    #[error("{shape}: {what} is not supported")]
    Unsupported {
        /// The shape (its message prints it with its layout).
        shape: Box<Shape>,
        /// What is not supported, and why.
        what: String,
    },
    /// The data field holds more or fewer values than the shape needs.
    #[error("{shape} needs {expected} {unit} in {field}, the LiteralProto has {actual}")]
    DataSize {
        /// The shape (its message prints it with its layout).
        shape: Box<Shape>,
        /// The LiteralProto field (`f32s`, `s4s`, ...).
        field: &'static str,
        /// `"values"` or `"bytes"`.
        unit: &'static str,
        /// What the shape needs.
        expected: u64,
        /// What the field holds.
        actual: u64,
    },
    /// A tuple LiteralProto with another number of elements than its shape.
    #[error("Expected {expected} tuple elements in LiteralProto, has {actual}")]
    TupleSize {
        /// The shape's element count.
        expected: usize,
        /// The number of `tuple_literals`.
        actual: usize,
    },
    /// A tuple element whose own shape differs from the tuple's.
    #[error("tuple element {index} has shape {actual}, the tuple's shape says {expected}")]
    TupleElementShape {
        /// The element's position.
        index: usize,
        /// The shape in the tuple's shape.
        expected: Box<Shape>,
        /// The element literal's shape.
        actual: Box<Shape>,
    },
    /// An operation on arrays given a tuple or token (or the reverse).
    #[error("{shape} is not an array: {what}")]
    NotAnArray {
        /// The shape.
        shape: Box<Shape>,
        /// What was asked.
        what: &'static str,
    },
    /// A tuple index past the tuple's elements.
    #[error("index {index} is out of range for {shape}")]
    BadIndex {
        /// The offending index.
        index: usize,
        /// The shape indexed.
        shape: Box<Shape>,
    },
    /// A raw buffer longer or shorter than its layout's buffer.
    #[error("{shape} takes a buffer of {expected} bytes, the buffer has {actual}")]
    BufferSize {
        /// The shape (its message prints it with its layout).
        shape: Box<Shape>,
        /// The layout's buffer size in bytes.
        expected: u64,
        /// The buffer's length.
        actual: u64,
    },
    /// A layout whose buffer is far larger than the literal's data.
    #[error(
        "{shape} takes a buffer of {bytes} bytes for {data} bytes of data (more than {MAX_GROWTH} times the data plus 1 MiB)"
    )]
    BufferTooLarge {
        /// The shape (its message prints it with its layout).
        shape: Box<Shape>,
        /// The layout's buffer size in bytes.
        bytes: u64,
        /// The literal's data in bytes.
        data: u64,
    },
    /// The relayout engine refused the layouts.
    #[error(transparent)]
    Relayout(#[from] relayout::RelayoutError),
}

/// How many times the literal's data (plus 1 MiB) a layout's buffer may
/// take: tiles and padding grow a buffer, a claimed layout cannot make the
/// library allocate without bound.
pub const MAX_GROWTH: u64 = 1024;
