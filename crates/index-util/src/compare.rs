//! Checking, comparing and stepping multi-dimensional indices (XLA's
//! `IndexUtil::IndexInBounds`, `CompareIndices`, `BumpIndices`).

use std::cmp::Ordering;

use layout_util::is_array;
use schema::Shape;

use crate::IndexError;

/// Whether `index` is a valid index of the array `shape`: one entry per
/// dimension, each in `[0, size)` (XLA's `IndexUtil::IndexInBounds`, which
/// does not reject negative entries; this does). Always false for a
/// non-array shape.
///
/// ```
/// let shape: schema::Shape = "f32[2,3]".parse().unwrap();
/// assert!(index_util::index_in_bounds(&shape, &[1, 2]));
/// assert!(!index_util::index_in_bounds(&shape, &[2, 0]));
/// assert!(!index_util::index_in_bounds(&shape, &[-1, 0]));
/// assert!(!index_util::index_in_bounds(&shape, &[1]));
/// ```
pub fn index_in_bounds(shape: &Shape, index: &[i64]) -> bool {
    is_array(shape)
        && index.len() == shape.dimensions.len()
        && index
            .iter()
            .zip(&shape.dimensions)
            .all(|(&i, &size)| 0 <= i && i < size)
}

/// Compares two indices lexicographically (XLA's
/// `IndexUtil::CompareIndices`): `-1` when `lhs < rhs`, `0` when equal, `1`
/// when `lhs > rhs`. (XLA's header comment says the opposite; its code, and
/// this function, return `-1` for the smaller.)
///
/// # Errors
///
/// [`IndexError::LengthMismatch`] if the lengths differ (XLA CHECK-fails).
///
/// ```
/// assert_eq!(index_util::compare_indices(&[0, 1], &[1, 0]).unwrap(), -1);
/// assert_eq!(index_util::compare_indices(&[1, 0], &[0, 9]).unwrap(), 1);
/// assert_eq!(index_util::compare_indices(&[2, 2], &[2, 2]).unwrap(), 0);
/// ```
pub fn compare_indices(lhs: &[i64], rhs: &[i64]) -> Result<i32, IndexError> {
    if lhs.len() != rhs.len() {
        return Err(IndexError::LengthMismatch {
            lhs: lhs.len(),
            rhs: rhs.len(),
        });
    }
    Ok(match lhs.cmp(rhs) {
        Ordering::Less => -1,
        Ordering::Equal => 0,
        Ordering::Greater => 1,
    })
}

/// Steps `index` to the next index of `shape` in row-major order, ignoring
/// the layout (XLA's `IndexUtil::BumpIndices`): the last dimension
/// increments first. Returns `false` when `index` was the last one (`index`
/// is then left unchanged; XLA leaves it unspecified).
///
/// # Errors
///
/// [`IndexError::RankMismatch`] if `index` does not have one entry per
/// dimension.
///
/// ```
/// let shape: schema::Shape = "f32[2,2]".parse().unwrap();
/// let mut index = [0, 0];
/// let mut seen = vec![index];
/// while index_util::bump_indices(&shape, &mut index).unwrap() {
///     seen.push(index);
/// }
/// assert_eq!(seen, [[0, 0], [0, 1], [1, 0], [1, 1]]);
/// ```
pub fn bump_indices(shape: &Shape, index: &mut [i64]) -> Result<bool, IndexError> {
    if index.len() != shape.dimensions.len() {
        return Err(IndexError::RankMismatch {
            len: index.len(),
            rank: shape.dimensions.len(),
        });
    }
    let Some(dimension) = (0..index.len()).rev().find(|&d| {
        index[d]
            .checked_add(1)
            .is_some_and(|next| next < shape.dimensions[d])
    }) else {
        return Ok(false);
    };
    index[dimension] += 1;
    index[dimension + 1..].fill(0);
    Ok(true)
}
