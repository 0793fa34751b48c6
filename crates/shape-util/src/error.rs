//! [`ShapeError`] and [`InvalidShape`]: every way a shape operation can
//! fail, with XLA's message texts where XLA has one.

use layout_util::LayoutError;
use schema::Shape;
use thiserror::Error;

/// Joins `values` with `sep` (XLA's `absl::StrJoin`).
pub(crate) fn join<T: ToString>(values: &[T], sep: &str) -> String {
    values
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(sep)
}

/// Formats a shape index as XLA's `ShapeIndex::ToString`: `{0,1}`.
pub(crate) fn shape_index_string(index: &[i64]) -> String {
    format!("{{{}}}", join(index, ","))
}

/// What is wrong with a shape, as the `<msg>` part of XLA's
/// `Shape Error: <msg> Shape(<type>): <shape>` (`ValidateNonLayoutProperties`).
///
/// ```
/// use schema::{PrimitiveType, Shape};
/// use shape_util::{InvalidShape, ShapeError};
/// let shape = Shape { element_type: PrimitiveType::S8 as i32, dimensions: vec![4, -1], ..Shape::default() };
/// let Err(ShapeError::Invalid { reason, element_type, .. }) = shape_util::validate_shape(&shape) else {
///     panic!("expected a shape error");
/// };
/// assert_eq!(reason, InvalidShape::NegativeDimension { index: 1, size: -1 });
/// assert_eq!(element_type, "s8");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum InvalidShape {
    /// `element_type` is `PRIMITIVE_TYPE_INVALID` or not a known number.
    #[error("Invalid element type.")]
    InvalidElementType,
    /// A `TUPLE` shape carries dimensions (only `tuple_shapes` are allowed).
    #[error("This type must have a tuple state.")]
    NotTupleState,
    /// A `BUFFER` shape carries dimensions.
    #[error("This type must have a buffer state.")]
    NotBufferState,
    /// A `TOKEN` shape carries dimensions or tuple shapes.
    #[error("This type must have a token state.")]
    NotTokenState,
    /// An `OPAQUE_TYPE` shape carries dimensions or tuple shapes.
    #[error("This type must have an opaque state.")]
    NotOpaqueState,
    /// An array shape carries `tuple_shapes`.
    #[error("This type must have an array state.")]
    NotArrayState,
    /// A dimension is negative (and not the unbounded `?` size).
    #[error("Negative dimension at index {index}: {size}.")]
    NegativeDimension {
        /// The dimension number.
        index: usize,
        /// Its (negative) size.
        size: i64,
    },
    /// The product of the dimensions overflows `i64`.
    #[error("Dimensions overflow.")]
    DimensionsOverflow,
}

/// An error from a shape operation. The Display text is XLA's message where
/// XLA has one; shapes appear as XLA's error messages show them (without
/// layout, `shape.human_string()`).
///
/// ```
/// use schema::PrimitiveType;
/// use shape_util::ShapeError;
/// let err = shape_util::make_validated_shape(PrimitiveType::F32, &[3], &[false, true]).unwrap_err();
/// assert_eq!(err, ShapeError::DynamicDimensionsSize { dynamic: 2, dimensions: 1 });
/// assert_eq!(err.to_string(), "dynamic dimensions size 2 did not match number of dimensions 1");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ShapeError {
    /// XLA's `ShapeError`: the shape breaks a non-layout rule.
    #[error("Shape Error: {reason} Shape({element_type}): {shape}", shape = .shape.human_string())]
    Invalid {
        /// What is wrong.
        reason: InvalidShape,
        /// The lowercase element type name, or its number if unknown.
        element_type: String,
        /// The shape (its message prints it without layout).
        shape: Box<Shape>,
    },

    /// The element count times the element byte size overflows `i64`.
    #[error("Shape {shape} size may overflow int64_t.", shape = .shape.human_string())]
    SizeMayOverflow {
        /// The shape (its message prints it without layout).
        shape: Box<Shape>,
    },

    /// A classic padded layout whose padded element count, or its byte size,
    /// overflows `i64` (the layout and the logical shape may be valid).
    #[error(
        "the padded {what} of {shape} (padded_dimensions [{}]) overflows int64_t",
        join(.padded_dimensions, ","),
        shape = .shape.human_string()
    )]
    PaddedSizeOverflow {
        /// `element count` or `byte size`.
        what: &'static str,
        /// The shape (its message prints it without layout).
        shape: Box<Shape>,
        /// The layout's padded extents.
        padded_dimensions: Vec<i64>,
    },

    /// `is_dynamic_dimension` is set but has the wrong length.
    #[error(
        "Malformed shape proto: number of is_dynamic_dimension fields ({dynamic}) does not match number of dimension fields ({dimensions})."
    )]
    MalformedDynamicDimensions {
        /// The number of `is_dynamic_dimension` entries.
        dynamic: usize,
        /// The number of dimensions.
        dimensions: usize,
    },

    /// A buffer shape does not hold exactly one shape (XLA's text does not
    /// say how many; the field does).
    #[error("Buffer shape must have exactly one tuple shape.")]
    BufferTupleShapeCount {
        /// How many shapes the buffer holds.
        count: usize,
    },

    /// A buffer shape holds something other than an array (XLA's text does
    /// not name it; the field does).
    #[error("Buffer shape must have array shape.")]
    BufferNotArray {
        /// The held shape (its message prints it without layout).
        shape: Box<Shape>,
    },

    /// A tuple, token, opaque or invalid shape carries a layout (XLA's
    /// `Shape::FromProto`).
    #[error(
        "Malformed shape proto: element_type {element_type} should not have a layout.{}",
        unknown_type_number(.number)
    )]
    LayoutOnNonArray {
        /// The proto enum name of the element type (`TUPLE`;
        /// `PRIMITIVE_TYPE_INVALID` for unknown numbers, as XLA).
        element_type: String,
        /// The element type's number in the message (`9999`): the message
        /// ends with it where the name hides it.
        number: i32,
    },

    /// A layout check failed (see [`LayoutError`]).
    #[error(transparent)]
    Layout(#[from] LayoutError),

    /// The buffer of a tiled layout cannot be resolved (see
    /// [`index_util::IndexError`]).
    #[error(transparent)]
    Index(#[from] index_util::IndexError),

    /// `make_validated_shape`: the dynamic flags do not match the dimensions.
    #[error("dynamic dimensions size {dynamic} did not match number of dimensions {dimensions}")]
    DynamicDimensionsSize {
        /// The number of dynamic flags given.
        dynamic: usize,
        /// The number of dimensions given.
        dimensions: usize,
    },

    /// `make_validated_shape`: dimensions for a non-array type.
    #[error("Invalid dimensions size {count} for non-array shape of type {element_type}")]
    NonArrayDimensions {
        /// The number of dimensions given.
        count: usize,
        /// The proto enum name of the type (`TOKEN`).
        element_type: String,
    },

    /// `make_validated_shape`: a negative size that is not a dynamic `?`.
    #[error("Invalid dimension size {size}, is_dynamic={is_dynamic}")]
    InvalidDimensionSize {
        /// The offending size.
        size: i64,
        /// Whether the dimension was marked dynamic.
        is_dynamic: bool,
    },

    /// `make_validated_shape`: the byte size of the static extent overflows.
    #[error("overflow in static extent product: dimensions=[{}].", join(.dimensions, ", "))]
    StaticExtentOverflow {
        /// The dimensions given.
        dimensions: Vec<i64>,
    },

    /// `make_shape_with_dense_layout`: `minor_to_major` has the wrong length.
    #[error("Dimensions size is {dimensions}, but layout size is {layout}.")]
    DenseLayoutSize {
        /// The number of dimensions.
        dimensions: usize,
        /// The number of `minor_to_major` entries.
        layout: usize,
    },

    /// A constructor was given a type it cannot build (for example an
    /// array constructor given `TUPLE`).
    #[error("Unsupported element type: {element_type}")]
    UnsupportedElementType {
        /// The proto enum name of the type (`OPAQUE_TYPE`), or its number.
        element_type: String,
    },

    /// `make_program_shape`: names and parameters differ in number.
    #[error(
        "ProgramShapeProto has different numbers of parameters and parameter names: {parameters} vs {names}"
    )]
    ProgramShapeParameterNames {
        /// The number of parameters.
        parameters: usize,
        /// The number of names.
        names: usize,
    },

    /// A shape index does not name a subshape.
    #[error("Shape index {} not a valid subshape index for tuple with shape {shape}", shape_index_string(.index), shape = .shape.human_string())]
    InvalidShapeIndex {
        /// The offending index.
        index: Vec<i64>,
        /// The shape (its message prints it without layout).
        shape: Box<Shape>,
    },

    /// An operation that needs an array (where XLA CHECK-fails) got a
    /// tuple, token, opaque, buffer or invalid shape.
    #[error("expected an array shape, got {shape}", shape = .shape.human_string())]
    NotAnArray {
        /// The shape (its message prints it without layout).
        shape: Box<Shape>,
    },

    /// An operation that needs a tuple got something else.
    #[error("expected a tuple shape, got {shape}", shape = .shape.human_string())]
    NotATuple {
        /// The shape (its message prints it without layout).
        shape: Box<Shape>,
    },

    /// The element count of an array overflows `i64`.
    #[error("the number of elements of {shape} overflows int64_t", shape = .shape.human_string())]
    ElementCountOverflow {
        /// The shape (its message prints it without layout).
        shape: Box<Shape>,
    },

    /// A size or stride computation overflows `i64`.
    #[error("the byte size of {shape} overflows int64_t", shape = .shape.human_string())]
    ByteSizeOverflow {
        /// The shape (its message prints it without layout).
        shape: Box<Shape>,
    },

    /// A total of byte sizes overflows `i64` where no one shape holds
    /// what was counted (a tuple's index table counted as a module is read).
    #[error("the byte size of {what} overflows int64_t")]
    ByteTotalOverflow {
        /// What was counted (`a tuple of 3 elements`).
        what: String,
    },

    /// An element count was asked of an array with an unbounded (`?`)
    /// dimension, which has no size.
    #[error("shape {shape} has an unbounded dynamic dimension", shape = .shape.human_string())]
    UnboundedDimension {
        /// The shape (its message prints it without layout).
        shape: Box<Shape>,
    },

    /// A dimension size is negative where a size is needed.
    #[error("shape {shape} has a negative dimension size {size}", shape = .shape.human_string())]
    NegativeDimensionSize {
        /// The offending size.
        size: i64,
        /// The shape (its message prints it without layout).
        shape: Box<Shape>,
    },

    /// A dimension number is out of range for the shape's rank.
    #[error("dimension {dimension} is out of range for rank {rank}")]
    DimensionOutOfRange {
        /// The offending dimension number (as given).
        dimension: i64,
        /// The rank of the shape.
        rank: usize,
    },

    /// `byte_size_of` on a tuple or opaque shape without a pointer size.
    #[error("a positive pointer size is needed for the byte size of {shape}", shape = .shape.human_string())]
    PointerSizeRequired {
        /// The shape (its message prints it without layout).
        shape: Box<Shape>,
    },

    /// A non-array primitive type where an element type is needed.
    #[error("Unhandled primitive type {element_type}")]
    UnhandledPrimitiveType {
        /// The lowercase type name, or its number if unknown.
        element_type: String,
    },

    /// A permutation is not a permutation of `0..rank`.
    #[error("{{{}}} is not a permutation of the {rank} dimensions of {shape}", join(.permutation, ","), shape = .shape.human_string())]
    InvalidPermutation {
        /// The offending permutation.
        permutation: Vec<i64>,
        /// The rank it should permute.
        rank: usize,
        /// The shape (its message prints it without layout).
        shape: Box<Shape>,
    },

    /// Two shapes that must have the same number of elements do not.
    #[error("element counts differ: {lhs} and {rhs}", lhs = .lhs.human_string(), rhs = .rhs.human_string())]
    ElementCountMismatch {
        /// The first shape (its message prints it without layout).
        lhs: Box<Shape>,
        /// The second shape (its message prints it without layout).
        rhs: Box<Shape>,
    },

    /// Two shapes that must have the same rank do not.
    #[error("ranks differ: {lhs} and {rhs}", lhs = .lhs.human_string(), rhs = .rhs.human_string())]
    RankMismatch {
        /// The first shape (its message prints it without layout).
        lhs: Box<Shape>,
        /// The second shape (its message prints it without layout).
        rhs: Box<Shape>,
    },
}

impl ShapeError {
    /// [`ShapeError::NotAnArray`] for `shape`.
    pub(crate) fn not_an_array(shape: &schema::Shape) -> Self {
        Self::NotAnArray {
            shape: Box::new(shape.clone()),
        }
    }
}

/// The end of [`ShapeError::LayoutOnNonArray`]'s text: the element type's
/// number where it names no type (XLA's `PRIMITIVE_TYPE_INVALID` hides it).
fn unknown_type_number(number: &i32) -> String {
    if *number != 0 && schema::PrimitiveType::try_from(*number).is_err() {
        format!(" (element type {number})")
    } else {
        String::new()
    }
}
