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
/// (naming the argument that set the size and the first that disagrees),
/// `negative dimensions are not allowed`, and `broadcast dimensions too
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
    let negative = shapes
        .iter()
        .enumerate()
        .find(|(_, s)| s.iter().any(|&d| d < 0));
    if let Some((arg, shape)) = negative {
        return Err(NumpyBroadcastError::NegativeDimension {
            arg,
            shape: shape.to_vec(),
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
