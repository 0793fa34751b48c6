//! [`IndexError`]: every way an index operation can fail.

use layout_util::LayoutError;
use schema::Shape;
use thiserror::Error;

/// Joins `values` as XLA does in messages (`absl::StrJoin(values, ", ")`).
pub(crate) fn join(values: &[i64]) -> String {
    values
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// An error from an index operation. XLA only `DCHECK`s these conditions;
/// here they are errors, never a panic or a silently wrong index.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum IndexError {
    /// The shape is not an array (a tuple, token, opaque or buffer shape).
    #[error("shape {shape} is not an array", shape = .shape.human_string_naming_type())]
    NotAnArray {
        /// The shape (its message prints it without layout, with the
        /// number of an element type the schema does not name).
        shape: Box<Shape>,
    },

    /// The shape has no layout, or its layout is invalid for it.
    #[error(transparent)]
    Layout(#[from] LayoutError),

    /// A dimension (or its padded extent) is negative, e.g. an unbounded
    /// dynamic dimension `?`.
    #[error("dimension {dimension} of shape {shape} has no size: {size}", shape = .shape.human_string())]
    NegativeDimension {
        /// The dimension number.
        dimension: usize,
        /// Its (padded) size.
        size: i64,
        /// The shape (its message prints it without layout).
        shape: Box<Shape>,
    },

    /// The number of elements in the buffer (with padding or tiles)
    /// overflows `i64`.
    #[error(
        "the buffer of shape {shape} (padding and tiles included) has more than i64::MAX elements",
        shape = .shape.human_string()
    )]
    Overflow {
        /// The shape (its message prints it without layout).
        shape: Box<Shape>,
    },

    /// The bytes of the buffer (with padding or tiles) overflow `i64`,
    /// XLA's bound (`ShapeUtil::ValidateShape`: bytes, not bits).
    #[error(
        "the buffer of shape {shape} (padding and tiles included) has more than i64::MAX bytes",
        shape = .shape.human_string()
    )]
    ByteOverflow {
        /// The shape (its message prints it without layout).
        shape: Box<Shape>,
    },

    /// An index does not have one entry per dimension.
    #[error("index has {len} elements, but shape has {rank} dimensions")]
    RankMismatch {
        /// The number of index entries.
        len: usize,
        /// The rank of the shape.
        rank: usize,
    },

    /// An index entry is negative or not below the dimension size.
    #[error("index {{{}}} is out of bounds in dimension {dimension} (size {size})", join(.index))]
    IndexOutOfBounds {
        /// The offending index.
        index: Vec<i64>,
        /// The first dimension out of bounds.
        dimension: usize,
        /// That dimension's size.
        size: i64,
    },

    /// A linear index is negative or not below the padded element count.
    #[error("linear index {linear} is out of bounds for a buffer of {size} elements")]
    LinearIndexOutOfBounds {
        /// The offending linear index.
        linear: i64,
        /// The number of elements in the (padded) buffer.
        size: i64,
    },

    /// A linear index addresses a padding element, not an array element.
    #[error(
        "linear index {linear} falls in the padding: its index in dimension {dimension} is {index}, but the dimension size is {size}"
    )]
    LinearIndexInPadding {
        /// The offending linear index.
        linear: i64,
        /// The first dimension (minor to major) where it lands in padding.
        dimension: usize,
        /// Its index in that dimension.
        index: i64,
        /// The dimension size.
        size: i64,
    },

    /// A dimension number is not in `[0, rank)`.
    #[error("dimension {dimension} is out of range for rank {rank}")]
    DimensionOutOfRange {
        /// The offending dimension number.
        dimension: usize,
        /// The rank of the shape.
        rank: usize,
    },

    /// Two indices to compare have different lengths.
    #[error("indices have different lengths: {lhs} vs {rhs}")]
    LengthMismatch {
        /// Length of the left index.
        lhs: usize,
        /// Length of the right index.
        rhs: usize,
    },

    /// A region given to `for_each_index` is not inside the shape or has a
    /// non-positive increment.
    #[error(
        "invalid region in dimension {dimension} (size {size}): base {base}, count {count}, incr {incr}"
    )]
    InvalidRegion {
        /// The dimension number.
        dimension: usize,
        /// Its size.
        size: i64,
        /// The region's base in that dimension.
        base: i64,
        /// The region's count in that dimension.
        count: i64,
        /// The region's increment in that dimension.
        incr: i64,
    },

    /// A position in a buffer holds padding (tile padding included), not an
    /// element.
    #[error("linear index {linear} falls in the padding")]
    PaddingPosition {
        /// The position in the buffer.
        linear: i64,
    },

    /// A tile with a `*` (combine) dimension, which nested tiling does not
    /// support.
    #[error("tile {tile} has a combine dimension (*), which nested tiling does not support")]
    CombineDimensionInTile {
        /// The tile as XLA prints it.
        tile: String,
    },

    /// A layout whose buffer this crate does not model (it says why).
    #[error("unsupported tiled layout {shape}: {reason}")]
    UnsupportedTiledLayout {
        /// The shape (its message prints it with its layout).
        shape: Box<Shape>,
        /// What is unsupported.
        reason: String,
    },
}
