//! Conversion between multi-dimensional indices and linear indices into the
//! (padded) buffer, and dimension strides (XLA's `IndexUtil`).
//!
//! Like XLA's `IndexUtil`, these ignore tiles: under a tiled layout they
//! describe the untiled array. [`TiledLayout`](crate::TiledLayout) gives
//! positions in a tiled buffer.

use schema::Shape;

use crate::{IndexError, PhysicalLayout};

/// The stride in elements of each logical dimension in the buffer of
/// `shape`: the product of the padded extents of the dimensions more minor
/// than it in the layout. Tiles are ignored, as in XLA's `IndexUtil` (a
/// tiled buffer has no strides).
///
/// # Errors
///
/// As [`PhysicalLayout::new`]: not an array, no or an invalid layout, an
/// unbounded dimension, overflow.
///
/// ```
/// let shape: schema::Shape = "f32[5,8,10,4]{3,2,1,0}".parse().unwrap();
/// assert_eq!(index_util::dimension_strides(&shape).unwrap(), [320, 40, 4, 1]);
///
/// // Padded: [2 x 3] padded to [3, 5], dim 0 minor.
/// let padded: schema::Shape = "f32[2,3]{0,1:PAD(3,5)}".parse().unwrap();
/// assert_eq!(index_util::dimension_strides(&padded).unwrap(), [1, 3]);
/// ```
pub fn dimension_strides(shape: &Shape) -> Result<Vec<i64>, IndexError> {
    Ok(PhysicalLayout::new(shape)?.strides().to_vec())
}

/// The stride in elements of logical dimension `dimension` (XLA's
/// `IndexUtil::GetDimensionStride`, padding-aware as in TensorFlow-era XLA).
///
/// # Errors
///
/// As [`dimension_strides`], and [`IndexError::DimensionOutOfRange`].
///
/// ```
/// let shape: schema::Shape = "f32[5,8,10,4]{3,2,1,0}".parse().unwrap();
/// assert_eq!(index_util::dimension_stride(&shape, 1).unwrap(), 40);
/// ```
pub fn dimension_stride(shape: &Shape, dimension: usize) -> Result<i64, IndexError> {
    let layout = PhysicalLayout::new(shape)?;
    layout
        .strides()
        .get(dimension)
        .copied()
        .ok_or(IndexError::DimensionOutOfRange {
            dimension,
            rank: layout.rank(),
        })
}

/// The linear index of `index` in the buffer of `shape` (XLA's
/// `IndexUtil::MultidimensionalIndexToLinearIndex`); with padding, the
/// linear index is into the padded buffer. Tiles are ignored, as in XLA
/// (see [`TiledLayout::position`](crate::TiledLayout::position)).
///
/// The `[2 x 3]` array `a b c / d e f`: `{0,1}` stores
/// `a d b e c f`, `{1,0}` stores `a b c d e f`, and padded to `[3, 5]`
/// with dim 0 minor it stores `a d 0 b e 0 c f 0 0 0 0 0 0 0`:
///
/// ```
/// use index_util::multidimensional_index_to_linear_index as linear_index;
///
/// fn store(text: &str, len: usize) -> String {
///     let shape: schema::Shape = text.parse().unwrap();
///     let mut buffer = vec!['0'; len];
///     for (i, row) in ["abc", "def"].iter().enumerate() {
///         for (j, element) in row.chars().enumerate() {
///             let linear = linear_index(&shape, &[i as i64, j as i64]).unwrap();
///             buffer[linear as usize] = element;
///         }
///     }
///     buffer.into_iter().collect()
/// }
/// assert_eq!(store("f32[2,3]{0,1}", 6), "adbecf");
/// assert_eq!(store("f32[2,3]{1,0}", 6), "abcdef");
/// assert_eq!(store("f32[2,3]{0,1:PAD(3,5)}", 15), "ad0be0cf0000000");
///
/// // XLA's IndexUtilTest: f32[10,20]{0,1} {3,5} -> 53; {1,0} -> 65.
/// assert_eq!(linear_index(&"f32[10,20]{0,1}".parse().unwrap(), &[3, 5]).unwrap(), 53);
/// assert_eq!(linear_index(&"f32[10,20]{1,0}".parse().unwrap(), &[3, 5]).unwrap(), 65);
/// ```
///
/// # Errors
///
/// As [`PhysicalLayout::new`] and [`PhysicalLayout::linear_index`]: wrong
/// rank, an entry negative or out of bounds.
pub fn multidimensional_index_to_linear_index(
    shape: &Shape,
    index: &[i64],
) -> Result<i64, IndexError> {
    PhysicalLayout::new(shape)?.linear_index(index)
}

/// The multi-dimensional index of the element at `linear` in the buffer of
/// `shape` (XLA's `IndexUtil::LinearIndexToMultidimensionalIndex`); with
/// padding, `linear` is into the padded buffer.
///
/// # Errors
///
/// As [`PhysicalLayout::new`] and
/// [`PhysicalLayout::multidimensional_index`]: `linear` outside the buffer,
/// or in the padding.
///
/// ```
/// use index_util::{IndexError, linear_index_to_multidimensional_index as multi_index};
///
/// let shape: schema::Shape = "f32[10,20]{0,1}".parse().unwrap();
/// assert_eq!(multi_index(&shape, 53).unwrap(), [3, 5]);
///
/// // a d 0 b e 0 c f 0 0 0 0 0 0 0: linear 4 is `e`, linear 2 is padding.
/// let padded: schema::Shape = "f32[2,3]{0,1:PAD(3,5)}".parse().unwrap();
/// assert_eq!(multi_index(&padded, 4).unwrap(), [1, 1]);
/// assert!(matches!(multi_index(&padded, 2), Err(IndexError::LinearIndexInPadding { .. })));
/// ```
pub fn linear_index_to_multidimensional_index(
    shape: &Shape,
    linear: i64,
) -> Result<Vec<i64>, IndexError> {
    PhysicalLayout::new(shape)?.multidimensional_index(linear)
}
