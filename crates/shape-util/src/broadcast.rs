//! XLA's broadcasting semantics for elementwise binary operations and
//! `BroadcastInDim` (XLA's `ShapeInference::InferElementwiseBinaryOpShape`,
//! `InferDegenerateDimensionBroadcastShape`, `InferInDimBroadcastShape`
//! and `InferBroadcastShape`), with XLA's error texts.
//!
//! XLA is explicit where numpy guesses: operands of different ranks need
//! `broadcast_dimensions` (except a scalar), telling which dimensions of
//! the higher-rank operand the lower-rank one's dimensions match ("InDim"
//! broadcasting); operands of equal rank broadcast their size-1
//! ("degenerate") dimensions. Both compose. From XLA's broadcasting
//! document, a vector of size 4 and a `1x2` matrix with
//! `broadcast_dimensions = (0)`: `|1 2 3 4| + [5 6]` first becomes a `4x1`,
//! then the degenerate dimensions give `4x2`:
//!
//! ```
//! use schema::PrimitiveType::F32;
//! use shape_util::{infer_elementwise_binary_op_shape, make_shape};
//! let vector = make_shape(F32, &[4]).unwrap();
//! let matrix = make_shape(F32, &[1, 2]).unwrap();
//! let result = infer_elementwise_binary_op_shape("add", &vector, &matrix, &[0]).unwrap();
//! assert_eq!(result.human_string(), "f32[4,2]");
//! ```
//!
//! A `1x2` matrix added to a `4x3x1` array with `broadcast_dimensions =
//! (1, 2)`: InDim broadcasting gives `4x1x2`, degenerate broadcasting
//! `4x3x2`:
//!
//! ```
//! use schema::PrimitiveType::F32;
//! use shape_util::{infer_elementwise_binary_op_shape, make_shape};
//! let matrix = make_shape(F32, &[1, 2]).unwrap();
//! let array = make_shape(F32, &[4, 3, 1]).unwrap();
//! let result = infer_elementwise_binary_op_shape("add", &matrix, &array, &[1, 2]).unwrap();
//! assert_eq!(result.human_string(), "f32[4,3,2]");
//! ```

use schema::{PrimitiveType, Shape};
use thiserror::Error;

use crate::ShapeError;
use crate::equal::{compatible_ignoring_fp_precision, same_element_type_ignoring_fp_precision};
use crate::kind::{
    element_type, is_array, is_dynamic_dimension, is_unbounded_dimension, proto_type_name,
};
use crate::query::is_unbounded_dynamic;

/// A broadcasting error, with XLA's message texts.
///
/// ```
/// use schema::PrimitiveType;
/// use shape_util::BroadcastError;
/// let a = shape_util::make_shape(PrimitiveType::F32, &[2, 3]).unwrap();
/// let b = shape_util::make_shape(PrimitiveType::F32, &[2, 4]).unwrap();
/// let err = shape_util::infer_elementwise_binary_op_shape("add", &a, &b, &[]).unwrap_err();
/// assert!(matches!(err, BroadcastError::IncompatibleShapes { .. }));
/// assert_eq!(err.to_string(), "Binary op with incompatible shapes: f32[2,3] and f32[2,4].");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum BroadcastError {
    /// An operand is not an array (XLA's `ExpectArray`).
    #[error("Expected array argument for {operand}, but got {shape}.", shape = .shape.human_string())]
    ExpectedArray {
        /// Which operand (`lhs of elementwise binary operation`).
        operand: String,
        /// The shape (its message prints it without layout).
        shape: Box<Shape>,
    },

    /// The element types differ (any two floating-point types are fine).
    #[error("Binary op {op} with different element types: {lhs} and {rhs}.", lhs = .lhs.human_string(), rhs = .rhs.human_string())]
    DifferentElementTypes {
        /// The operation name (`add`).
        op: String,
        /// The left shape (its message prints it without layout).
        lhs: Box<Shape>,
        /// The right shape (its message prints it without layout).
        rhs: Box<Shape>,
    },

    /// Equal ranks with `broadcast_dimensions` other than the identity
    /// (XLA's text does not show them; the field does).
    #[error(
        "Broadcast dimensions field must either be not set or be the identity on binary operations with operands of the same rank."
    )]
    NonIdentityBroadcastDimensions {
        /// The rejected broadcast dimensions.
        broadcast_dimensions: Vec<i64>,
    },

    /// `atan2` of non-floating, non-complex operands.
    #[error(
        "Expected input element type to be floating or complex for {op} operation; got {element_type}."
    )]
    Atan2ElementType {
        /// The operation name.
        op: String,
        /// The proto enum name of the element type (`S32`).
        element_type: String,
    },

    /// `subtract`, `divide`, `remainder`, `power`, `atan2` or a shift of
    /// a `pred` operand.
    #[error(
        "Expected element type in shape to be arithmetic type for operation {op}; got {element_type}."
    )]
    NotArithmetic {
        /// The opcode.
        op: String,
        /// The proto enum name of the element type (`PRED`).
        element_type: String,
    },

    /// `and`, `or` or `xor` of a left operand that is not `pred` or an
    /// integer (XLA's text says `and/or` for all three).
    #[error("Expected pred or integral type in argument to and/or operation; got {element_type}.")]
    NotPredOrIntegral {
        /// The proto enum name of the element type (`F32`).
        element_type: String,
    },

    /// `complex` of a left operand that is not floating-point.
    #[error(
        "Expected element type in shape to be floating for complex compose operation; got {element_type}."
    )]
    ComplexComponentNotFloating {
        /// The proto enum name of the element type (`S32`).
        element_type: String,
    },

    /// `complex` of floating-point types other than two `f32` or two `f64`.
    #[error("Complex component type is not implemented.")]
    ComplexComponentUnimplemented,

    /// Degenerate broadcasting: two sizes differ and neither is 1 or `?`.
    #[error("Binary op with incompatible shapes: {lhs} and {rhs}.", lhs = .lhs.human_string(), rhs = .rhs.human_string())]
    IncompatibleShapes {
        /// The left shape (its message prints it without layout).
        lhs: Box<Shape>,
        /// The right shape (its message prints it without layout).
        rhs: Box<Shape>,
    },

    /// Different ranks without `broadcast_dimensions` (and not a scalar).
    #[error("Shapes must be equal rank, but are {smaller} and {larger}", smaller = .smaller.human_string(), larger = .larger.human_string())]
    RankMismatch {
        /// The lower-rank shape (its message prints it without layout).
        smaller: Box<Shape>,
        /// The higher-rank shape (its message prints it without layout).
        larger: Box<Shape>,
    },

    /// `broadcast_dimensions` does not have one entry per lower-rank dimension.
    #[error(
        "Size of broadcast_dimensions has to match lower-rank operand's rank;  lower-rank operand's rank is {rank}, size of broadcast_dimensions is {size}."
    )]
    BroadcastDimensionsSize {
        /// The rank of the lower-rank operand.
        rank: usize,
        /// The number of broadcast dimensions.
        size: usize,
    },

    /// A negative broadcast dimension.
    #[error("Broadcast dimension number ({dimension}) cannot be negative.")]
    NegativeBroadcastDimension {
        /// The offending dimension.
        dimension: i64,
    },

    /// A broadcast dimension beyond the higher rank.
    #[error(
        "Broadcast dimension number ({dimension}) too large; higher-rank operand has rank {rank}."
    )]
    BroadcastDimensionTooLarge {
        /// The offending dimension.
        dimension: i64,
        /// The rank of the higher-rank operand.
        rank: usize,
    },

    /// InDim broadcasting: sizes differ and neither is 1.
    #[error("Broadcast dimension {index} mismatch: {small} != {large}; {smaller} and {larger}.", smaller = .smaller.human_string(), larger = .larger.human_string())]
    BroadcastDimensionMismatch {
        /// The lower-rank operand's dimension number.
        index: usize,
        /// Its size.
        small: i64,
        /// The size of the dimension it is matched with.
        large: i64,
        /// The lower-rank shape (its message prints it without layout).
        smaller: Box<Shape>,
        /// The higher-rank shape (its message prints it without layout).
        larger: Box<Shape>,
    },

    /// InDim broadcasting: a static and a dynamic dimension that cannot meet.
    #[error("Broadcast dimension {index} dynamism mismatch: {smaller} and {larger}.", smaller = .smaller.human_string(), larger = .larger.human_string())]
    BroadcastDimensionDynamismMismatch {
        /// The lower-rank operand's dimension number.
        index: usize,
        /// The lower-rank shape (its message prints it without layout).
        smaller: Box<Shape>,
        /// The higher-rank shape (its message prints it without layout).
        larger: Box<Shape>,
    },

    /// Broadcast dimensions not strictly increasing.
    #[error("Broadcast dimensions order is wrong: {dimension} comes after {previous}.")]
    BroadcastDimensionsOrder {
        /// The dimension out of order.
        dimension: i64,
        /// The dimension before it.
        previous: i64,
    },

    /// `BroadcastInDim` to a lower rank.
    #[error(
        "InDim style broadcast must be to an equal or higher ranked shape; operand rank: {operand_rank}; output rank: {output_rank}"
    )]
    BroadcastToLowerRank {
        /// The operand's rank.
        operand_rank: usize,
        /// The output's rank.
        output_rank: usize,
    },

    /// `BroadcastInDim`: `broadcast_dimensions` does not match the operand's rank.
    #[error(
        "Size of broadcast_dimensions has to match operand's rank; operand rank: {operand_rank}, size of broadcast_dimensions {size}."
    )]
    OperandBroadcastDimensionsSize {
        /// The operand's rank.
        operand_rank: usize,
        /// The number of broadcast dimensions.
        size: usize,
    },

    /// `BroadcastInDim`: a broadcast dimension outside the output's rank.
    #[error("Broadcast dimension {dimension} is out of bound")]
    BroadcastDimensionOutOfBound {
        /// The offending dimension.
        dimension: i64,
    },

    /// `BroadcastInDim`: an operand size neither 1 nor the output size.
    #[error(
        "Input dimension should be either 1 or equal to the output dimension it is broadcasting into; the {operand_dimension}th operand dimension is {operand_size}, the {output_dimension}th output dimension is {output_size}."
    )]
    InputDimensionMismatch {
        /// The operand's dimension number.
        operand_dimension: usize,
        /// Its size.
        operand_size: i64,
        /// The output dimension it broadcasts into.
        output_dimension: i64,
        /// That dimension's size.
        output_size: i64,
    },

    /// `BroadcastInDim`: bounded-dynamic operand and output dimensions differ.
    #[error("Broadcast input and output dynamism mismatch: {operand} and {output}")]
    InputOutputDynamismMismatch {
        /// The operand shape (without layout).
        operand: String,
        /// The output shape (without layout).
        output: String,
    },

    /// `BroadcastInDim` into an output with an unbounded `?` dimension
    /// (XLA's `TF_RET_CHECK(!output_shape.is_unbounded_dynamic())`).
    #[error("the output of a broadcast cannot have an unbounded dynamic dimension: {output}")]
    UnboundedOutput {
        /// The output shape (without layout).
        output: String,
    },

    /// The result shape could not be built.
    #[error(transparent)]
    Shape(#[from] ShapeError),
}

/// The result shape of the elementwise binary operation `op` (a name such
/// as `add`, used in messages; `atan2` also requires floating-point or
/// complex operands) on `lhs` and `rhs` (XLA's
/// `ShapeInference::InferElementwiseBinaryOpShape`):
///
/// - shapes compatible apart from floating-point precision (and no `?`):
///   `lhs` with the higher-precision type and `rhs`'s dynamic flags OR-ed
///   in (`lhs`'s layout is kept);
/// - equal ranks: [`infer_degenerate_dimension_broadcast_shape`];
/// - different ranks: [`infer_in_dim_broadcast_shape`] of the lower-rank
///   operand into the higher-rank one, then degenerate broadcasting.
///
/// Degenerate results get XLA's default layout.
///
/// # Errors
///
/// In XLA's order: `Expected array argument for lhs of elementwise binary
/// operation, but got %s.` (and rhs), `Binary op %s with different element
/// types: %s and %s.`, `Broadcast dimensions field must either be not set
/// or be the identity on binary operations with operands of the same
/// rank.`, the atan2 type check, then the errors of the broadcasts.
///
/// ```
/// use schema::PrimitiveType::{F32, S32};
/// use shape_util::{infer_elementwise_binary_op_shape, make_scalar_shape, make_shape};
/// // |1 2 3| + 7: a scalar broadcasts without broadcast_dimensions.
/// let matrix = make_shape(F32, &[2, 3]).unwrap();
/// let seven = make_scalar_shape(F32).unwrap();
/// assert_eq!(infer_elementwise_binary_op_shape("add", &matrix, &seven, &[]).unwrap().human_string(), "f32[2,3]");
/// // |1 2 3| + |7 8 9| with broadcast dimension (1).
/// let vector = make_shape(F32, &[3]).unwrap();
/// assert_eq!(infer_elementwise_binary_op_shape("add", &matrix, &vector, &[1]).unwrap().human_string(), "f32[2,3]");
/// // Without it, XLA refuses to guess.
/// assert_eq!(
///     infer_elementwise_binary_op_shape("add", &matrix, &vector, &[]).unwrap_err().to_string(),
///     "Shapes must be equal rank, but are f32[3] and f32[2,3]",
/// );
/// let ints = make_shape(S32, &[2, 3]).unwrap();
/// assert_eq!(
///     infer_elementwise_binary_op_shape("add", &matrix, &ints, &[]).unwrap_err().to_string(),
///     "Binary op add with different element types: f32[2,3] and s32[2,3].",
/// );
/// ```
pub fn infer_elementwise_binary_op_shape(
    op: &str,
    lhs: &Shape,
    rhs: &Shape,
    broadcast_dimensions: &[i64],
) -> Result<Shape, BroadcastError> {
    expect_array(lhs, "lhs of elementwise binary operation")?;
    expect_array(rhs, "rhs of elementwise binary operation")?;
    if !same_element_type_ignoring_fp_precision(lhs, rhs) {
        return Err(BroadcastError::DifferentElementTypes {
            op: op.to_owned(),
            lhs: Box::new(lhs.clone()),
            rhs: Box::new(rhs.clone()),
        });
    }
    let (lhs_rank, rhs_rank) = (lhs.dimensions.len(), rhs.dimensions.len());
    if lhs_rank == rhs_rank
        && !broadcast_dimensions.is_empty()
        && !broadcast_dimensions
            .iter()
            .copied()
            .eq(0..crate::kind::to_i64(lhs_rank))
    {
        return Err(BroadcastError::NonIdentityBroadcastDimensions {
            broadcast_dimensions: broadcast_dimensions.to_vec(),
        });
    }
    if op == "atan2" {
        let ty = element_type(lhs).unwrap_or_default();
        if !(ty.is_floating_point() || ty.is_complex()) {
            return Err(BroadcastError::Atan2ElementType {
                op: op.to_owned(),
                element_type: proto_type_name(lhs.element_type),
            });
        }
    }
    if compatible_ignoring_fp_precision(lhs, rhs)
        && !is_unbounded_dynamic(lhs)
        && !is_unbounded_dynamic(rhs)
    {
        let mut result = crate::change_element_type(lhs, higher_precision_element_type(lhs, rhs))?;
        result.is_dynamic_dimension = (0..lhs_rank)
            .map(|i| is_dynamic_dimension(lhs, i) || is_dynamic_dimension(rhs, i))
            .collect();
        return Ok(result);
    }
    if lhs_rank == rhs_rank {
        return infer_degenerate_dimension_broadcast_shape(lhs, rhs);
    }
    let (smaller, larger) = if lhs_rank > rhs_rank {
        (rhs, lhs)
    } else {
        (lhs, rhs)
    };
    let in_dim = infer_in_dim_broadcast_shape(smaller, larger, broadcast_dimensions)?;
    infer_degenerate_dimension_broadcast_shape(&in_dim, larger)
}

/// Broadcasts the size-1 ("degenerate") dimensions of two arrays of equal
/// rank (XLA's `InferDegenerateDimensionBroadcastShape`). Per dimension:
/// if either size is 1 the other side's size and dynamic flag win; equal
/// sizes stay (dynamic if either is); otherwise if either side is `?` the
/// *other* side's size and flag win (`<=2` against `?` gives `<=2`). The
/// result has the higher-precision element type and the default layout.
///
/// # Errors
///
/// `Binary op with incompatible shapes: %s and %s.`, and
/// [`ShapeError::RankMismatch`] for different ranks (XLA's `TF_RET_CHECK`).
///
/// ```
/// use schema::PrimitiveType::F32;
/// use shape_util::{infer_degenerate_dimension_broadcast_shape, make_shape};
/// let f32 = |dims: &[i64]| make_shape(F32, dims).unwrap();
/// let result = |a: &[i64], b: &[i64]| {
///     infer_degenerate_dimension_broadcast_shape(&f32(a), &f32(b)).map(|s| s.human_string())
/// };
/// // The examples of XLA's broadcasting document.
/// assert_eq!(result(&[2, 1], &[2, 3]).unwrap(), "f32[2,3]");
/// assert_eq!(result(&[1, 2, 5], &[7, 2, 5]).unwrap(), "f32[7,2,5]");
/// assert_eq!(result(&[7, 2, 5], &[7, 1, 5]).unwrap(), "f32[7,2,5]");
/// assert_eq!(
///     result(&[7, 2, 5], &[7, 2, 6]).unwrap_err().to_string(),
///     "Binary op with incompatible shapes: f32[7,2,5] and f32[7,2,6].",
/// );
/// // The "outer product" case.
/// assert_eq!(result(&[2, 1], &[1, 3]).unwrap(), "f32[2,3]");
/// ```
pub fn infer_degenerate_dimension_broadcast_shape(
    lhs: &Shape,
    rhs: &Shape,
) -> Result<Shape, BroadcastError> {
    let rank = lhs.dimensions.len();
    if rank != rhs.dimensions.len() {
        return Err(ShapeError::RankMismatch {
            lhs: Box::new(lhs.clone()),
            rhs: Box::new(rhs.clone()),
        }
        .into());
    }
    let mut dimensions = Vec::with_capacity(rank);
    let mut dynamic = Vec::with_capacity(rank);
    for i in 0..rank {
        let (l, r) = (lhs.dimensions[i], rhs.dimensions[i]);
        let (l_dyn, r_dyn) = (is_dynamic_dimension(lhs, i), is_dynamic_dimension(rhs, i));
        let (size, is_dynamic) = if l == 1 || r == 1 {
            if l == 1 { (r, r_dyn) } else { (l, l_dyn) }
        } else if l == r {
            (l, l_dyn || r_dyn)
        } else if is_unbounded_dimension(lhs, i) || is_unbounded_dimension(rhs, i) {
            if is_unbounded_dimension(lhs, i) {
                (r, r_dyn)
            } else {
                (l, l_dyn)
            }
        } else {
            return Err(BroadcastError::IncompatibleShapes {
                lhs: Box::new(lhs.clone()),
                rhs: Box::new(rhs.clone()),
            });
        };
        dimensions.push(size);
        dynamic.push(is_dynamic);
    }
    Ok(crate::make_validated_shape(
        higher_precision_element_type(lhs, rhs),
        &dimensions,
        &dynamic,
    )?)
}

/// "InDim" broadcasting of the lower-rank `smaller` into the higher-rank
/// `larger` (XLA's `InferInDimBroadcastShape`): dimension `i` of `smaller`
/// is matched with dimension `broadcast_dimensions[i]` of `larger`; the
/// sizes must be equal or one of them 1 (degenerate broadcasting, which
/// runs next, resolves those), and `broadcast_dimensions` must be strictly
/// increasing. The result is `larger` (layout kept) with the
/// higher-precision element type and the matched dimensions taken from
/// `smaller`. A scalar needs no `broadcast_dimensions`.
///
/// # Errors
///
/// In XLA's order: `Shapes must be equal rank, but are %s and %s`,
/// `Size of broadcast_dimensions has to match lower-rank operand's rank;
/// lower-rank operand's rank is %d, size of broadcast_dimensions is %u.`,
/// then per dimension `Broadcast dimension number (%d) cannot be
/// negative.`, `Broadcast dimension number (%d) too large; higher-rank
/// operand has rank %d.`, `Broadcast dimension %d mismatch: %d != %d; %s
/// and %s.`, `Broadcast dimension %d dynamism mismatch: %s and %s.`,
/// `Broadcast dimensions order is wrong: %d comes after %d.`.
///
/// ```
/// use schema::PrimitiveType::F32;
/// use shape_util::{infer_in_dim_broadcast_shape, make_shape};
/// let f32 = |dims: &[i64]| make_shape(F32, dims).unwrap();
/// let shape = infer_in_dim_broadcast_shape(&f32(&[2, 1]), &f32(&[2, 3, 4]), &[0, 2]).unwrap();
/// assert_eq!(shape.human_string(), "f32[2,3,1]");
/// assert_eq!(
///     infer_in_dim_broadcast_shape(&f32(&[3]), &f32(&[4, 3]), &[0]).unwrap_err().to_string(),
///     "Broadcast dimension 0 mismatch: 3 != 4; f32[3] and f32[4,3].",
/// );
/// // A 2x3x4 cube and a 3x4 matrix, matched with dimensions (1, 2).
/// assert_eq!(infer_in_dim_broadcast_shape(&f32(&[3, 4]), &f32(&[2, 3, 4]), &[1, 2]).unwrap().human_string(), "f32[2,3,4]");
/// assert_eq!(
///     infer_in_dim_broadcast_shape(&f32(&[4, 4]), &f32(&[3, 4, 4]), &[2, 1]).unwrap_err().to_string(),
///     "Broadcast dimensions order is wrong: 1 comes after 2.",
/// );
/// ```
pub fn infer_in_dim_broadcast_shape(
    smaller: &Shape,
    larger: &Shape,
    broadcast_dimensions: &[i64],
) -> Result<Shape, BroadcastError> {
    if broadcast_dimensions.is_empty() && !crate::is_scalar(smaller) {
        return Err(BroadcastError::RankMismatch {
            smaller: Box::new(smaller.clone()),
            larger: Box::new(larger.clone()),
        });
    }
    let small_rank = smaller.dimensions.len();
    if broadcast_dimensions.len() != small_rank {
        return Err(BroadcastError::BroadcastDimensionsSize {
            rank: small_rank,
            size: broadcast_dimensions.len(),
        });
    }
    let large_rank = larger.dimensions.len();
    let mut output = larger.clone();
    output.element_type = higher_precision_element_type(larger, smaller) as i32;
    output.is_dynamic_dimension = (0..large_rank)
        .map(|i| is_dynamic_dimension(larger, i))
        .collect();
    for (i, &dimension) in broadcast_dimensions.iter().enumerate() {
        let Ok(target) = usize::try_from(dimension) else {
            return Err(BroadcastError::NegativeBroadcastDimension { dimension });
        };
        if target >= large_rank {
            return Err(BroadcastError::BroadcastDimensionTooLarge {
                dimension,
                rank: large_rank,
            });
        }
        let (small, large) = (smaller.dimensions[i], larger.dimensions[target]);
        let (small_dyn, large_dyn) = (
            is_dynamic_dimension(smaller, i),
            is_dynamic_dimension(larger, target),
        );
        if small != large && small != 1 && large != 1 {
            return Err(BroadcastError::BroadcastDimensionMismatch {
                index: i,
                small,
                large,
                smaller: Box::new(smaller.clone()),
                larger: Box::new(larger.clone()),
            });
        }
        if small_dyn != large_dyn
            && !(small == large || (small == 1 && !small_dyn) || (large == 1 && !large_dyn))
        {
            return Err(BroadcastError::BroadcastDimensionDynamismMismatch {
                index: i,
                smaller: Box::new(smaller.clone()),
                larger: Box::new(larger.clone()),
            });
        }
        if let Some(&previous) = i.checked_sub(1).and_then(|p| broadcast_dimensions.get(p))
            && previous >= dimension
        {
            return Err(BroadcastError::BroadcastDimensionsOrder {
                dimension,
                previous,
            });
        }
        output.dimensions[target] = small;
        output.is_dynamic_dimension[target] = small_dyn;
    }
    Ok(output)
}

/// Checks XLA's `BroadcastInDim(operand, output, broadcast_dimensions)`
/// (`ShapeInference::InferBroadcastShape` with an output shape) and
/// returns `output`: operand dimension `i` goes to output dimension
/// `broadcast_dimensions[i]`, which must be in range and strictly
/// increasing; each operand size must be 1 or the output size (an
/// unbounded `?` operand dimension is not checked), and bounded dynamism
/// must agree.
///
/// # Errors
///
/// `Expected array argument for operand of broadcast, but got %s.`, then
/// `InDim style broadcast must be to an equal or higher ranked shape;
/// operand rank: %lld; output rank: %lld`, `Size of broadcast_dimensions
/// has to match operand's rank; operand rank: %lld, size of
/// broadcast_dimensions %u.`, then per dimension `Broadcast dimension %lld
/// is out of bound`, `Input dimension should be either 1 or equal to the
/// output dimension it is broadcasting into; the %lldth operand dimension
/// is %lld, the %lldth output dimension is %lld.`, `Broadcast input and
/// output dynamism mismatch: %s and %s`, `Broadcast dimensions order is
/// wrong: %d comes after %d.`.
///
/// ```
/// use schema::PrimitiveType::F32;
/// use shape_util::{infer_broadcast_in_dim_shape, make_shape};
/// let f32 = |dims: &[i64]| make_shape(F32, dims).unwrap();
/// let out = infer_broadcast_in_dim_shape(&f32(&[3]), &f32(&[2, 3]), &[1]).unwrap();
/// assert_eq!(out.human_string(), "f32[2,3]");
/// assert_eq!(
///     infer_broadcast_in_dim_shape(&f32(&[3]), &f32(&[2, 3]), &[0]).unwrap_err().to_string(),
///     "Input dimension should be either 1 or equal to the output dimension it is broadcasting into; \
///      the 0th operand dimension is 3, the 0th output dimension is 2.",
/// );
/// ```
pub fn infer_broadcast_in_dim_shape(
    operand: &Shape,
    output: &Shape,
    broadcast_dimensions: &[i64],
) -> Result<Shape, BroadcastError> {
    expect_array(operand, "operand of broadcast")?;
    expect_array(output, "operand of broadcast")?;
    if is_unbounded_dynamic(output) {
        return Err(BroadcastError::UnboundedOutput {
            output: output.human_string(),
        });
    }
    let (operand_rank, output_rank) = (operand.dimensions.len(), output.dimensions.len());
    if operand_rank > output_rank {
        return Err(BroadcastError::BroadcastToLowerRank {
            operand_rank,
            output_rank,
        });
    }
    if operand_rank != broadcast_dimensions.len() {
        return Err(BroadcastError::OperandBroadcastDimensionsSize {
            operand_rank,
            size: broadcast_dimensions.len(),
        });
    }
    for (i, &dimension) in broadcast_dimensions.iter().enumerate() {
        let Some(target) = usize::try_from(dimension).ok().filter(|&t| t < output_rank) else {
            return Err(BroadcastError::BroadcastDimensionOutOfBound { dimension });
        };
        let operand_size = operand.dimensions[i];
        let output_size = output.dimensions[target];
        let unbounded = is_unbounded_dimension(operand, i);
        if !unbounded && operand_size != output_size && operand_size != 1 {
            return Err(BroadcastError::InputDimensionMismatch {
                operand_dimension: i,
                operand_size,
                output_dimension: dimension,
                output_size,
            });
        }
        let bounded = |shape: &Shape, d: usize| {
            is_dynamic_dimension(shape, d) && !is_unbounded_dimension(shape, d)
        };
        if !unbounded && bounded(operand, i) != bounded(output, target) {
            return Err(BroadcastError::InputOutputDynamismMismatch {
                operand: operand.human_string(),
                output: output.human_string(),
            });
        }
        if let Some(&previous) = i.checked_sub(1).and_then(|p| broadcast_dimensions.get(p))
            && previous >= dimension
        {
            return Err(BroadcastError::BroadcastDimensionsOrder {
                dimension,
                previous,
            });
        }
    }
    Ok(output.clone())
}

/// The element type of higher precision of two shapes
/// (`ShapeUtil::HigherPrecisionElementType`): complex beats real, then a
/// floating-point type with more exponent range, then more significand
/// bits, then more bits, then signed over unsigned; on a tie, `lhs`'s.
///
/// ```
/// use schema::PrimitiveType::{Bf16, F16, F32};
/// let shape = |t| shape_util::make_scalar_shape(t).unwrap();
/// // bf16 has f32's range, f16 more precision: range wins.
/// assert_eq!(shape_util::higher_precision_element_type(&shape(F16), &shape(Bf16)), Bf16);
/// assert_eq!(shape_util::higher_precision_element_type(&shape(Bf16), &shape(F32)), F32);
/// ```
pub fn higher_precision_element_type(lhs: &Shape, rhs: &Shape) -> PrimitiveType {
    let (l, r) = (
        element_type(lhs).unwrap_or_default(),
        element_type(rhs).unwrap_or_default(),
    );
    // Two different types of equal rank (where XLA's CHECK fails) give `lhs`'s.
    schema::primitive_util::higher_precision_type(l, r).unwrap_or(l)
}

pub(crate) fn expect_array(shape: &Shape, operand: &str) -> Result<(), BroadcastError> {
    if is_array(shape) {
        Ok(())
    } else {
        Err(BroadcastError::ExpectedArray {
            operand: operand.to_owned(),
            shape: Box::new(shape.clone()),
        })
    }
}
