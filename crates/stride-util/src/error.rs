//! [`ViewError`]: every way building or transforming a strided view can fail.
//!
//! The texts follow numpy's messages (`IndexError`, `AxisError`,
//! `ValueError`) and always name the offending value and axis.

use thiserror::Error;

/// An error from a view constructor, a view operation or a classification
/// that needs checked arithmetic.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ViewError {
    /// `sizes` and `strides` (or a layout) disagree on the number of dimensions.
    #[error("sizes have {sizes} dimensions but strides have {strides}")]
    RankMismatch {
        /// Number of sizes.
        sizes: usize,
        /// Number of strides.
        strides: usize,
    },
    /// A dimension size is negative.
    #[error("negative dimensions are not allowed: size {size} at axis {axis}")]
    NegativeSize {
        /// The axis.
        axis: usize,
        /// The size given.
        size: i64,
    },
    /// Size, stride or offset arithmetic overflowed `i64`.
    #[error("integer overflow computing {what} of {of}")]
    Overflow {
        /// What was being computed.
        what: &'static str,
        /// The values it was computed from (a view's sizes, strides and
        /// offset, or the operands).
        of: String,
    },
    /// `as_strided` (or a buffer check) addresses an element outside the buffer.
    #[error("element offset {offset} is outside a buffer of {len} elements")]
    OutsideBuffer {
        /// The first offending element offset.
        offset: i64,
        /// The buffer length in elements.
        len: i64,
    },
    /// An axis argument is outside `[-ndim, ndim)` (numpy's `AxisError`).
    #[error("{}axis {axis} is out of bounds for array of dimension {ndim}", prefix_text(.argument))]
    AxisOutOfBounds {
        /// The argument name numpy prefixes (`axis1`, `source`, ...), if any.
        argument: Option<&'static str>,
        /// The axis given.
        axis: i64,
        /// The number of dimensions it was checked against.
        ndim: usize,
    },
    /// The same axis was given twice.
    #[error("repeated axis{} (axis {axis})", context_text(.context))]
    RepeatedAxis {
        /// Where, as numpy says it (`in transpose`, ``in `source` argument``), if anywhere.
        context: Option<&'static str>,
        /// The repeated axis, normalized to be non-negative.
        axis: usize,
    },
    /// `squeeze` was given the same axis twice (numpy words it differently
    /// from [`ViewError::RepeatedAxis`]).
    #[error("duplicate value in 'axis' (axis {axis})")]
    DuplicateAxis {
        /// The repeated axis, normalized to be non-negative.
        axis: usize,
    },
    /// A permutation has the wrong length.
    #[error("axes don't match array: {given} axes given for an array of dimension {ndim}")]
    AxesDontMatch {
        /// Number of axes given.
        given: usize,
        /// Number of dimensions of the view.
        ndim: usize,
    },
    /// `moveaxis` got `source` and `destination` of different lengths.
    #[error(
        "`source` and `destination` arguments must have the same number of elements ({source_len} and {destination_len})"
    )]
    MoveaxisLengthMismatch {
        /// Length of `source`.
        source_len: usize,
        /// Length of `destination`.
        destination_len: usize,
    },
    /// An integer index is outside `[-size, size)`.
    #[error("index {index} is out of bounds for axis {axis} with size {size}")]
    IndexOutOfBounds {
        /// The index given.
        index: i64,
        /// The axis it indexes.
        axis: usize,
        /// The size of that axis.
        size: i64,
    },
    /// More integer/slice indices than dimensions.
    #[error("too many indices for array: array is {ndim}-dimensional, but {indexed} were indexed")]
    TooManyIndices {
        /// Number of dimensions of the view.
        ndim: usize,
        /// Number of dimensions the index consumes.
        indexed: usize,
    },
    /// More than one `...` in an index.
    #[error("an index can only have a single ellipsis ('...')")]
    MultipleEllipsis,
    /// A slice with step 0.
    #[error("slice step cannot be zero (axis {axis})")]
    ZeroStep {
        /// The axis the slice applies to.
        axis: usize,
    },
    /// The reshape target has a different number of elements.
    #[error("cannot reshape array of size {size} into shape {shape}")]
    ReshapeSizeMismatch {
        /// Number of elements of the view.
        size: i64,
        /// The requested shape, printed as numpy does (`-1` prints as `newaxis`).
        shape: String,
    },
    /// More than one negative (unknown) dimension in a reshape.
    #[error("can only specify one unknown dimension (axes {first} and {second} are both negative)")]
    MultipleUnknownDimensions {
        /// The first unknown axis.
        first: usize,
        /// The second unknown axis.
        second: usize,
    },
    /// The reshape cannot be expressed with strides over the same buffer.
    #[error(
        "Unable to avoid creating a copy while reshaping. Shape {shape} with strides {strides} cannot be viewed as shape {target}"
    )]
    ReshapeNeedsCopy {
        /// The view's shape, as a numpy tuple.
        shape: String,
        /// The view's strides in elements, as a numpy tuple.
        strides: String,
        /// The requested shape, as a numpy tuple.
        target: String,
    },
    /// numpy's `ravel` of this view returns a copy, not a view.
    #[error(
        "ravel(order='{order}') of shape {shape} with strides {strides} needs a copy (numpy returns a copy, not a view)"
    )]
    RavelNeedsCopy {
        /// The order asked for: `C`, `F`, `A` or `K`.
        order: char,
        /// The view's shape, as a numpy tuple.
        shape: String,
        /// The view's strides in elements, as a numpy tuple.
        strides: String,
    },
    /// numpy's `reshape` does not take `order='K'`.
    #[error("order 'K' is not permitted for reshaping")]
    ReshapeKeepOrder,
    /// `squeeze` of an axis whose size is not 1.
    #[error(
        "cannot select an axis to squeeze out which has size not equal to one (axis {axis} has size {size})"
    )]
    SqueezeNotOne {
        /// The axis.
        axis: usize,
        /// Its size.
        size: i64,
    },
    /// A `broadcast_to` target with a negative size.
    #[error("all elements of broadcast shape must be non-negative (size {size} at axis {axis})")]
    NegativeBroadcastSize {
        /// The axis of the target shape.
        axis: usize,
        /// The size given.
        size: i64,
    },
    /// A result with more dimensions than a numpy array may have (64).
    #[error("maximum supported dimension for an ndarray is currently 64, found {ndim}")]
    TooManyDimensions {
        /// The number of dimensions asked for.
        ndim: usize,
    },
    /// An `as_strided` shape of more than 64 dimensions.
    #[error("number of dimensions must be within [0, 64], got {ndim}")]
    StridedTooManyDimensions {
        /// The number of dimensions asked for.
        ndim: usize,
    },
    /// An index whose result would have more than 64 dimensions.
    #[error("number of dimensions must be within [0, 64], indexing result would have {ndim}")]
    IndexTooManyDimensions {
        /// The number of dimensions of the result.
        ndim: usize,
    },
    /// A `broadcast_to` target with no dimensions for a view with some
    /// (numpy checks this before anything else).
    #[error("cannot broadcast a non-scalar to a scalar array (a {ndim}-d view to shape ())")]
    BroadcastToScalar {
        /// Number of dimensions of the view.
        ndim: usize,
    },
    /// A `broadcast_to` target with fewer dimensions than the view.
    #[error(
        "input operand has more dimensions than allowed by the axis remapping ({ndim} dimensions into a shape of {target_ndim})"
    )]
    BroadcastFewerDimensions {
        /// Number of dimensions of the view.
        ndim: usize,
        /// Number of dimensions of the target.
        target_ndim: usize,
    },
    /// A `broadcast_to` target incompatible with the view.
    #[error(
        "operands could not be broadcast together with remapped shapes [original->remapped]: {shape}  and requested shape {target} (axis {axis}: size {size} cannot become {target_size})"
    )]
    BroadcastMismatch {
        /// The view's shape, as a numpy tuple.
        shape: String,
        /// The requested shape, as a numpy tuple.
        target: String,
        /// The axis of the target shape where they disagree.
        axis: usize,
        /// The view's size there.
        size: i64,
        /// The requested size there.
        target_size: i64,
    },
    /// A `broadcast_to` target with more elements than `i64` counts (numpy
    /// checks this after the sizes agree).
    #[error("iterator is too large: the broadcast shape {target} has more than 2^63 - 1 elements")]
    BroadcastTooLarge {
        /// The requested shape, as a numpy tuple.
        target: String,
    },
    /// An index expression could not be parsed.
    #[error("invalid index expression {expression:?}: {reason}")]
    InvalidIndexExpression {
        /// The text given.
        expression: String,
        /// What is wrong with it.
        reason: String,
    },
    /// An XLA shape that index-util cannot resolve (not an array, no or an
    /// invalid layout, an unbounded dimension).
    #[error(transparent)]
    Shape(#[from] index_util::IndexError),
    /// An XLA layout with tiles: its element order is not strided.
    #[error("layout {layout} is tiled; tiled layouts cannot be described by strides")]
    TiledLayout {
        /// The layout.
        layout: String,
    },
    /// A view that another library's array description cannot hold, or
    /// that cannot be located in the buffer given.
    #[error("cannot convert the view with shape {shape} and strides {strides} {to}: {reason}")]
    Conversion {
        /// `"to an ndarray view"`, `"from an ndarray view"`, `"to DLPack"`,
        /// `"from DLPack"`.
        to: &'static str,
        /// The view's shape, as a numpy tuple.
        shape: String,
        /// The view's strides, as a numpy tuple.
        strides: String,
        /// Why.
        reason: String,
    },
    /// Strides that no XLA layout (a dense permutation, possibly padded)
    /// describes.
    #[error("strides {strides} of shape {shape} do not describe an XLA layout: {reason}")]
    NotAnXlaLayout {
        /// The view's shape, as a numpy tuple.
        shape: String,
        /// The view's strides, as a numpy tuple.
        strides: String,
        /// Why.
        reason: String,
    },
    /// A DirectML tensor rank other than 4 or 5, or sizes of higher rank.
    #[error(
        "cannot describe {rank} sizes as a DirectML {target}-D tensor (4 or 5, sizes padded with leading 1s)"
    )]
    DmlRank {
        /// The number of sizes given.
        rank: usize,
        /// The requested DirectML rank.
        target: usize,
    },
    /// Overlap could not be decided within the work limit.
    #[error("cannot decide whether a view spanning {span} elements overlaps itself")]
    OverlapUndecided {
        /// The offset span of the view.
        span: i64,
    },
}

fn prefix_text(argument: &Option<&'static str>) -> String {
    argument.map_or_else(String::new, |name| format!("{name}: "))
}

fn context_text(context: &Option<&'static str>) -> String {
    context.map_or_else(String::new, |text| format!(" {text}"))
}

/// `what`, computed from `of`, overflowed.
pub(crate) fn overflow(what: &'static str, of: String) -> ViewError {
    ViewError::Overflow { what, of }
}

/// Formats values as a numpy shape tuple, as the errors print shapes and
/// strides.
///
/// ```
/// use stride_util::numpy_tuple;
///
/// assert_eq!(numpy_tuple(&[]), "()");
/// assert_eq!(numpy_tuple(&[3]), "(3,)");
/// assert_eq!(numpy_tuple(&[4, 3]), "(4,3)");
/// ```
#[must_use]
pub fn numpy_tuple(values: &[i64]) -> String {
    match values {
        [] => "()".to_owned(),
        [one] => format!("({one},)"),
        _ => {
            let inner: Vec<String> = values.iter().map(i64::to_string).collect();
            format!("({})", inner.join(","))
        }
    }
}
