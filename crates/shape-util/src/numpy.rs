//! numpy's implicit broadcasting of shapes (`numpy.broadcast_shapes`),
//! which XLA deliberately does not do: shapes are aligned at their last
//! dimension, missing leading dimensions count as 1, and each dimension's
//! sizes must be equal or 1.

use thiserror::Error;

/// A numpy broadcasting error, with numpy's message texts.
///
/// ```
/// use shape_util::{NumpyBroadcastError, numpy_broadcast_shapes};
/// let err = numpy_broadcast_shapes(&[&[2, 3], &[4, 3]]).unwrap_err();
/// assert_eq!(
///     err,
///     NumpyBroadcastError::Mismatch { first: 0, first_shape: vec![2, 3], second: 1, second_shape: vec![4, 3] },
/// );
/// let err = numpy_broadcast_shapes(&[&[3], &[2, -3]]).unwrap_err();
/// assert_eq!(err, NumpyBroadcastError::NegativeDimension { arg: 1, shape: vec![2, -3] });
/// assert_eq!(err.to_string(), "negative dimensions are not allowed");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum NumpyBroadcastError {
    /// Two shapes have different sizes, neither 1, in one dimension.
    #[error(
        "shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between arg {first} with shape {} and arg {second} with shape {}.",
        python_tuple(.first_shape),
        python_tuple(.second_shape)
    )]
    Mismatch {
        /// The argument that set the size first.
        first: usize,
        /// Its shape.
        first_shape: Vec<i64>,
        /// The argument that disagrees.
        second: usize,
        /// Its shape.
        second_shape: Vec<i64>,
    },

    /// A negative size (numpy's text does not name it; the fields do).
    #[error("negative dimensions are not allowed")]
    NegativeDimension {
        /// The first argument with a negative size.
        arg: usize,
        /// Its shape.
        shape: Vec<i64>,
    },

    /// A shape with more dimensions than a numpy array may have (64).
    #[error("maximum supported dimension for an ndarray is currently 64, found {ndim}")]
    TooManyDimensions {
        /// The argument.
        arg: usize,
        /// Its number of dimensions.
        ndim: usize,
    },

    /// A shape with more dimensions than numpy's broadcasting iterator
    /// takes (32; numpy raises a `RuntimeError`).
    #[error("this function only supports up to 32 dimensions but the array has {ndim}.")]
    IteratorDimensions {
        /// The argument.
        arg: usize,
        /// Its number of dimensions.
        ndim: usize,
    },

    /// The broadcast shape's element count overflows (numpy's text does not
    /// name the shape; the field does).
    #[error("broadcast dimensions too large.")]
    TooLarge {
        /// The broadcast shape whose element count overflows `i64`.
        shape: Vec<i64>,
    },
}

/// Formats a shape as Python prints a tuple: `()`, `(3,)`, `(2, 3)`.
fn python_tuple(shape: &[i64]) -> String {
    match shape {
        [] => "()".to_owned(),
        [only] => format!("({only},)"),
        _ => format!("({})", crate::error::join(shape, ", ")),
    }
}

/// The shape numpy broadcasts `shapes` to (`numpy.broadcast_shapes`):
/// right-aligned, each dimension the common size of the shapes that have
/// it, where size 1 stretches to any size (including 0). No shapes give `[]`.
///
/// # Errors
///
/// numpy's `shape mismatch: objects cannot be broadcast to a single shape.
/// Mismatch is between arg %d with shape %s and arg %d with shape %s.`
/// (naming the argument that set the size and the first that disagrees;
/// past 64 shapes, numbered within numpy's groups),
/// `negative dimensions are not allowed`, `maximum supported dimension for
/// an ndarray is currently 64, found %d`, `this function only supports up
/// to 32 dimensions but the array has %d.`, and `broadcast dimensions too
/// large.`.
///
/// ```
/// use shape_util::numpy_broadcast_shapes;
/// assert_eq!(numpy_broadcast_shapes(&[&[2, 3], &[3]]).unwrap(), [2, 3]);
/// assert_eq!(numpy_broadcast_shapes(&[&[8, 1, 6, 1], &[7, 1, 5]]).unwrap(), [8, 7, 6, 5]);
/// assert_eq!(numpy_broadcast_shapes(&[&[0], &[1]]).unwrap(), [0]);
/// assert_eq!(
///     numpy_broadcast_shapes(&[&[2, 1], &[8, 4, 3]]).unwrap_err().to_string(),
///     "shape mismatch: objects cannot be broadcast to a single shape.  \
///      Mismatch is between arg 0 with shape (2, 1) and arg 1 with shape (8, 4, 3).",
/// );
/// ```
pub fn numpy_broadcast_shapes(shapes: &[&[i64]]) -> Result<Vec<i64>, NumpyBroadcastError> {
    // numpy first makes an empty array of each shape, in order.
    for (arg, shape) in shapes.iter().enumerate() {
        if shape.len() > MAX_DIMS {
            return Err(NumpyBroadcastError::TooManyDimensions {
                arg,
                ndim: shape.len(),
            });
        }
        if shape.iter().any(|&d| d < 0) {
            return Err(NumpyBroadcastError::NegativeDimension {
                arg,
                shape: shape.to_vec(),
            });
        }
    }
    // Then `np.broadcast` takes at most 64 of them; each further group of
    // 63 is broadcast with the shape so far as its argument 0, so errors
    // name arguments by their place in the group.
    let (first, rest) = shapes.split_at(shapes.len().min(MAX_ARGS));
    let mut result = broadcast_group(first)?;
    for group in rest.chunks(MAX_ARGS - 1) {
        let mut arguments: Vec<&[i64]> = vec![&result];
        arguments.extend_from_slice(group);
        result = broadcast_group(&arguments)?;
    }
    Ok(result)
}

/// The most dimensions a numpy array has.
const MAX_DIMS: usize = 64;
/// The most dimensions `np.broadcast`'s iterator takes.
const MAX_ITERATOR_DIMS: usize = 32;
/// The most arguments `np.broadcast` takes.
const MAX_ARGS: usize = 64;

/// One `np.broadcast` of at most 64 shapes.
fn broadcast_group(shapes: &[&[i64]]) -> Result<Vec<i64>, NumpyBroadcastError> {
    if let Some((arg, shape)) = shapes
        .iter()
        .enumerate()
        .find(|(_, shape)| shape.len() > MAX_ITERATOR_DIMS)
    {
        return Err(NumpyBroadcastError::IteratorDimensions {
            arg,
            ndim: shape.len(),
        });
    }
    let rank = shapes.iter().map(|shape| shape.len()).max().unwrap_or(0);
    let mut result = vec![1_i64; rank];
    for (i, size) in result.iter_mut().enumerate() {
        let mut source = 0;
        for (arg, shape) in shapes.iter().enumerate() {
            let Some(k) = (i + shape.len()).checked_sub(rank) else {
                continue;
            };
            let d = shape[k];
            if d == 1 {
                continue;
            }
            if *size == 1 {
                *size = d;
                source = arg;
            } else if *size != d {
                return Err(NumpyBroadcastError::Mismatch {
                    first: source,
                    first_shape: shapes[source].to_vec(),
                    second: arg,
                    second_shape: shape.to_vec(),
                });
            }
        }
    }
    if result
        .iter()
        .try_fold(1_i64, |product, &d| product.checked_mul(d))
        .is_none()
    {
        return Err(NumpyBroadcastError::TooLarge { shape: result });
    }
    Ok(result)
}
