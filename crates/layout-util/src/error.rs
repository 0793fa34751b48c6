//! [`LayoutError`]: every way a layout operation can fail, with XLA's texts.

use schema::{PrimitiveType, Shape};
use thiserror::Error;

/// Joins `values` as XLA's `absl::StrJoin(values, ", ")`.
pub(crate) fn join(values: &[i64]) -> String {
    values
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// An error from a layout operation. The Display text is XLA's message
/// where XLA has one (`LayoutUtil::ValidateLayoutForShape` and friends, and
/// the TensorFlow-era padding checks); shapes are shown as XLA's error
/// messages show them, without their layouts.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum LayoutError {
    /// A tuple was given where a single array layout is meant.
    #[error("a single Layout is not valid for tuple shapes")]
    TupleLayout,

    /// A tuple shape carries a layout of its own.
    #[error("tuple should not have a layout field")]
    TupleHasLayout,

    /// A token/opaque shape carries minor_to_major entries or padding.
    #[error("shape of primitive type {element_type} should not have a non-trivial layout")]
    NonTrivialLayout {
        /// The proto enum name of the element type (`TOKEN`).
        element_type: String,
    },

    /// An array shape has no layout where one is required.
    #[error("shape {shape} does not have a layout", shape = .shape.human_string())]
    MissingLayout {
        /// The shape (its message prints it without layout).
        shape: Box<Shape>,
    },

    /// `minor_to_major` does not have one entry per dimension.
    #[error(
        "layout minor_to_major field contains {len} elements, but shape has {rank} dimensions: {{{}}}; shape: {shape}",
        join(.minor_to_major),
        shape = .shape.human_string()
    )]
    MinorToMajorLength {
        /// The number of `minor_to_major` entries.
        len: usize,
        /// The rank of the shape.
        rank: usize,
        /// The offending `minor_to_major`.
        minor_to_major: Vec<i64>,
        /// The shape (its message prints it without layout).
        shape: Box<Shape>,
    },

    /// A `minor_to_major` entry is not a dimension number of the shape.
    #[error(
        "layout minor_to_major field has out-of-bounds value: {{{}}}; shape: {shape}",
        join(.minor_to_major),
        shape = .shape.human_string()
    )]
    MinorToMajorOutOfBounds {
        /// The offending `minor_to_major`.
        minor_to_major: Vec<i64>,
        /// The shape (its message prints it without layout).
        shape: Box<Shape>,
    },

    /// A dimension appears twice in `minor_to_major`.
    #[error(
        "layout minor_to_major field has duplicate values: {{{}}}; shape: {shape}",
        join(.minor_to_major),
        shape = .shape.human_string()
    )]
    MinorToMajorDuplicate {
        /// The offending `minor_to_major`.
        minor_to_major: Vec<i64>,
        /// The shape (its message prints it without layout).
        shape: Box<Shape>,
    },

    /// A bare `minor_to_major` (with no shape to check against) is not a
    /// permutation of `0..n`.
    #[error("layout minor_to_major field is not a permutation: {{{}}}", join(.minor_to_major))]
    NotAPermutation {
        /// The offending `minor_to_major`.
        minor_to_major: Vec<i64>,
    },

    /// `padded_dimensions` is set but does not have one entry per dimension.
    #[error("layout has {count} padded dimensions, but shape is rank {rank}")]
    PaddedDimensionCount {
        /// The number of `padded_dimensions` entries.
        count: usize,
        /// The rank of the shape.
        rank: usize,
    },

    /// A padded extent is smaller than the dimension it pads.
    #[error(
        "for dimension {dimension}, dimension padding ({padding}) is smaller than the dimension size ({size}) of the shape"
    )]
    PaddingSmallerThanDimension {
        /// The dimension number.
        dimension: usize,
        /// Its padded extent.
        padding: i64,
        /// Its size.
        size: i64,
    },

    /// `padding_value` is not a known `PaddingValue`.
    #[error("layout has unknown padding_value {value}")]
    UnknownPaddingValue {
        /// The raw enum number.
        value: i32,
    },

    /// `tail_padding_alignment_in_elements` is zero or negative.
    #[error("layout tail_padding_alignment_in_elements field is <= 0: {{{alignment}}}")]
    TailPaddingAlignment {
        /// The offending alignment.
        alignment: i64,
    },

    /// `index_primitive_type` is set (sparse arrays no longer exist).
    #[error("layout has a index_primitive_type, but is not a sparse array: {shape}", shape = .shape.human_string())]
    IndexPrimitiveType {
        /// The shape (its message prints it without layout).
        shape: Box<Shape>,
    },

    /// `pointer_primitive_type` is set (sparse arrays no longer exist).
    #[error("layout has a pointer_primitive_type, but is not a sparse array: {shape}", shape = .shape.human_string())]
    PointerPrimitiveType {
        /// The shape (its message prints it without layout).
        shape: Box<Shape>,
    },

    /// `physical_shape` is set (sparse arrays no longer exist).
    #[error("layout has a physical_shape, but is not a sparse array: {shape}", shape = .shape.human_string())]
    PhysicalShape {
        /// The shape (its message prints it without layout).
        shape: Box<Shape>,
    },

    /// A tile has no dimensions.
    #[error("layout has invalid tiles: {shape}", shape = .shape.human_string())]
    EmptyTile {
        /// The shape (its message prints it without layout).
        shape: Box<Shape>,
    },

    /// A tile dimension is `<= 0` and not `*` (`COMBINE_DIMENSION`).
    #[error(
        "layout has invalid tiles: tile dimension {dimension} must be positive or kCombineDimension: {shape}",
        shape = .shape.human_string()
    )]
    InvalidTileDimension {
        /// The offending tile dimension.
        dimension: i64,
        /// The shape (its message prints it without layout).
        shape: Box<Shape>,
    },

    /// `element_size_in_bits` is negative.
    #[error("layout element_size_in_bits field is negative: {element_size_in_bits}")]
    NegativeElementSize {
        /// The offending value.
        element_size_in_bits: i64,
    },

    /// A split config names a physical dimension outside `[0, rank)`.
    #[error("split config has out-of-bounds physical dimension: {dimension}; shape: {shape}", shape = .shape.human_string())]
    SplitConfigDimensionOutOfBounds {
        /// The offending physical dimension.
        dimension: i64,
        /// The shape (its message prints it without layout).
        shape: Box<Shape>,
    },

    /// Two split configs name the same physical dimension.
    #[error("split config has duplicate physical dimension: {dimension}; shape: {shape}", shape = .shape.human_string())]
    SplitConfigDuplicateDimension {
        /// The repeated physical dimension.
        dimension: i64,
        /// The shape (its message prints it without layout).
        shape: Box<Shape>,
    },

    /// Split indices are not strictly increasing and positive.
    #[error(
        "split config split indices must be strictly increasing and positive: {{{}}}; shape: {shape}",
        join(.split_indices),
        shape = .shape.human_string()
    )]
    SplitIndicesNotIncreasing {
        /// The offending split indices.
        split_indices: Vec<i64>,
        /// The shape (its message prints it without layout).
        shape: Box<Shape>,
    },

    /// A split index is not less than the size of the split dimension.
    #[error(
        "split config split index is out of bounds: {index} (dim size {dim_size}); shape: {shape}",
        shape = .shape.human_string()
    )]
    SplitIndexOutOfBounds {
        /// The offending split index.
        index: i64,
        /// The size of the (logical) dimension it splits.
        dim_size: i64,
        /// The shape (its message prints it without layout).
        shape: Box<Shape>,
    },

    /// `copy_layout_between_shapes`: one side is a tuple and the other not.
    #[error("cannot copy layout from shape: shape structure differs")]
    CopyStructureDiffers,

    /// `copy_layout_between_shapes`: the tuples have different lengths.
    #[error("cannot copy layout from shape: tuple element count differs")]
    CopyTupleElementCountDiffers,

    /// `copy_layout_between_shapes`: the arrays have different ranks.
    #[error("cannot copy layout from shape: ranks differs")]
    CopyRanksDiffer,

    /// An operation that needs an array (where XLA CHECK-fails) got another
    /// kind of shape.
    #[error("expected an array shape, got {shape}", shape = .shape.human_string_naming_type())]
    NotAnArray {
        /// The shape (its message prints it without layout, with the
        /// number of an element type the schema does not name).
        shape: Box<Shape>,
    },

    /// An operation on an array's elements got a type that is no array
    /// element type (it has no byte width).
    #[error("expected an array shape, got {}", .element_type.lowercase_name())]
    NotAnArrayType {
        /// The type given.
        element_type: PrimitiveType,
    },

    /// A dimension number is outside the shape's rank.
    #[error("dimension {dimension} is out of range for rank {rank}")]
    DimensionOutOfRange {
        /// The dimension asked for.
        dimension: i64,
        /// The shape's rank.
        rank: usize,
    },

    /// An index has another number of entries than the shape has
    /// dimensions, or an entry outside its dimension.
    #[error("index {{{}}} is not an index of {shape}", join(.index), shape = .shape.human_string())]
    IndexOutOfRange {
        /// The index.
        index: Vec<i64>,
        /// The shape (its message prints it without layout).
        shape: Box<Shape>,
    },

    /// Strides and dimensions of different lengths.
    #[error("{strides} byte strides for {dimensions} dimensions")]
    StridesLength {
        /// The number of strides.
        strides: usize,
        /// The number of dimensions.
        dimensions: usize,
    },

    /// More than one split config where XLA expects at most one.
    #[error("layout of {shape} has {count} split configs, at most one expected")]
    SplitConfigCount {
        /// The split configs of the layout.
        count: usize,
        /// The shape (its message prints it with its layout).
        shape: Box<Shape>,
    },

    /// A size computed from the layout overflows `i64`.
    #[error("a size of {shape} overflows int64_t", shape = .shape.human_string())]
    Overflow {
        /// The shape (its message prints it without layout).
        shape: Box<Shape>,
    },

    /// A dimension to move is not in the layout.
    #[error("dimension {dimension} is not in layout {layout}")]
    DimensionNotInLayout {
        /// The dimension asked for.
        dimension: i64,
        /// The layout (XLA's `Layout::ToString`).
        layout: String,
    },
}
