//! [`PhysicalLayout`]: an array shape resolved once into the numbers index
//! conversion needs (sizes, padded extents, strides, physical order).

use layout_util::{is_array, padded_dimensions, validate_layout_for_shape};
use schema::Shape;

use crate::IndexError;

/// An array shape with a valid layout, resolved for fast index conversion:
/// its dimension sizes, padded extents, `minor_to_major` and the stride in
/// elements of each logical dimension in the (padded) buffer.
///
/// Build it once and convert many indices; the free functions
/// ([`multidimensional_index_to_linear_index`](crate::multidimensional_index_to_linear_index)
/// and friends) build one per call.
///
/// Tiles, dynamic flags and element sizes are ignored, as in XLA's
/// `IndexUtil`: for a tiled layout these are the indices of the untiled
/// array, not positions in its buffer; use [`TiledLayout`](crate::TiledLayout)
/// for those.
///
/// ```
/// use index_util::PhysicalLayout;
/// let shape = schema::Shape {
///     element_type: schema::PrimitiveType::F32 as i32,
///     dimensions: vec![10, 20],
///     layout: Some(Box::new(layout_util::make_layout(&[0, 1]))),
///     ..Default::default()
/// };
/// let layout = PhysicalLayout::new(&shape).unwrap();
/// assert_eq!(layout.strides(), [1, 10]);
/// assert_eq!(layout.linear_index(&[3, 5]).unwrap(), 53);
/// assert_eq!(layout.multidimensional_index(53).unwrap(), [3, 5]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhysicalLayout {
    dimensions: Vec<i64>,
    padded: Vec<i64>,
    minor_to_major: Vec<usize>,
    strides: Vec<i64>,
    padded_element_count: i64,
}

impl PhysicalLayout {
    /// Resolves `shape`.
    ///
    /// # Errors
    ///
    /// [`IndexError::NotAnArray`]; [`IndexError::Layout`] if the shape has no
    /// layout or [`validate_layout_for_shape`] rejects it;
    /// [`IndexError::NegativeDimension`] for a negative dimension (an
    /// unbounded `?` one, or any other, padded or not) or padded extent;
    /// [`IndexError::Overflow`] if the padded buffer has more than
    /// `i64::MAX` elements.
    pub fn new(shape: &Shape) -> Result<Self, IndexError> {
        if !is_array(shape) {
            return Err(IndexError::NotAnArray {
                shape: Box::new(shape.clone()),
            });
        }
        let m2m = layout_util::minor_to_major(shape)?;
        if let Some(layout) = shape.layout.as_deref() {
            validate_layout_for_shape(layout, shape)?;
        }
        let padded = padded_dimensions(shape)?;
        // A negative size (or padded extent) has no elements to index: a
        // padded layout must not make a negative dimension look valid.
        let negative = |sizes: &[i64]| sizes.iter().copied().enumerate().find(|&(_, s)| s < 0);
        if let Some((dimension, size)) = negative(&shape.dimensions).or_else(|| negative(padded)) {
            return Err(IndexError::NegativeDimension {
                dimension,
                size,
                shape: Box::new(shape.clone()),
            });
        }
        // A valid layout is a permutation of 0..rank, so these fit.
        let minor_to_major: Vec<usize> = m2m
            .iter()
            .filter_map(|&d| usize::try_from(d).ok())
            .collect();
        let mut strides = vec![0; padded.len()];
        let mut stride: i64 = 1;
        for &d in &minor_to_major {
            strides[d] = stride;
            stride = stride
                .checked_mul(padded[d])
                .ok_or_else(|| IndexError::Overflow {
                    shape: Box::new(shape.clone()),
                })?;
        }
        Ok(Self {
            dimensions: shape.dimensions.clone(),
            padded: padded.to_vec(),
            minor_to_major,
            strides,
            padded_element_count: stride,
        })
    }

    /// The number of dimensions.
    pub fn rank(&self) -> usize {
        self.dimensions.len()
    }

    /// The size of each logical dimension.
    pub fn dimensions(&self) -> &[i64] {
        &self.dimensions
    }

    /// The padded extent of each logical dimension (the sizes when unpadded).
    pub fn padded_dimensions(&self) -> &[i64] {
        &self.padded
    }

    /// The logical dimensions from the most minor to the most major.
    pub fn minor_to_major(&self) -> &[usize] {
        &self.minor_to_major
    }

    /// The stride in elements of each logical dimension in the padded
    /// buffer (XLA's `IndexUtil::GetDimensionStride` for every dimension).
    pub fn strides(&self) -> &[i64] {
        &self.strides
    }

    /// The number of elements in the padded buffer, padding included.
    pub fn padded_element_count(&self) -> i64 {
        self.padded_element_count
    }

    /// The linear index of `index` in the padded buffer (XLA's
    /// `IndexUtil::MultidimensionalIndexToLinearIndex`, padding-aware).
    ///
    /// # Errors
    ///
    /// [`IndexError::RankMismatch`]; [`IndexError::IndexOutOfBounds`] for an
    /// entry that is negative or not below its dimension size.
    #[inline]
    pub fn linear_index(&self, index: &[i64]) -> Result<i64, IndexError> {
        if index.len() != self.rank() {
            return Err(IndexError::RankMismatch {
                len: index.len(),
                rank: self.rank(),
            });
        }
        let (linear, out_of_bounds) = self.sum(index);
        if out_of_bounds {
            return Err(self.out_of_bounds(index));
        }
        Ok(linear)
    }

    /// `Σ index[d] * strides[d]` (wrapping) and whether some entry is out of
    /// bounds. Ranks up to 4 get a fully unrolled loop (see the `index`
    /// bench).
    #[inline]
    fn sum(&self, index: &[i64]) -> (i64, bool) {
        match index.len() {
            1 => self.sum_of_rank::<1>(index),
            2 => self.sum_of_rank::<2>(index),
            3 => self.sum_of_rank::<3>(index),
            4 => self.sum_of_rank::<4>(index),
            _ => sum(index, &self.dimensions, &self.strides),
        }
    }

    /// [`sum`](Self::sum) for `N` entries, with arrays of known length.
    #[inline]
    fn sum_of_rank<const N: usize>(&self, index: &[i64]) -> (i64, bool) {
        match (
            <&[i64; N]>::try_from(index),
            <&[i64; N]>::try_from(self.dimensions.as_slice()),
            <&[i64; N]>::try_from(self.strides.as_slice()),
        ) {
            (Ok(index), Ok(dimensions), Ok(strides)) => sum(index, dimensions, strides),
            _ => sum(index, &self.dimensions, &self.strides),
        }
    }

    /// The error for an `index` known to be out of bounds somewhere.
    #[cold]
    fn out_of_bounds(&self, index: &[i64]) -> IndexError {
        let (dimension, size) = index
            .iter()
            .zip(&self.dimensions)
            .position(|(&i, &size)| i < 0 || i >= size)
            .map_or((0, 0), |d| (d, self.dimensions[d]));
        IndexError::IndexOutOfBounds {
            index: index.to_vec(),
            dimension,
            size,
        }
    }

    /// The linear index of `index` without any check, for hot loops whose
    /// indices are known to be valid. An index of the wrong rank or out of
    /// bounds gives a meaningless result (wrapping arithmetic), never a panic
    /// or UB.
    #[inline]
    pub fn linear_index_unchecked(&self, index: &[i64]) -> i64 {
        self.sum(index).0
    }

    /// The multi-dimensional index of the element at `linear` in the padded
    /// buffer (XLA's `IndexUtil::LinearIndexToMultidimensionalIndex`,
    /// padding-aware).
    ///
    /// # Errors
    ///
    /// [`IndexError::LinearIndexOutOfBounds`] if `linear` is outside the
    /// padded buffer; [`IndexError::LinearIndexInPadding`] if it addresses a
    /// padding element.
    pub fn multidimensional_index(&self, linear: i64) -> Result<Vec<i64>, IndexError> {
        let mut index = vec![0; self.rank()];
        self.multidimensional_index_into(linear, &mut index)?;
        Ok(index)
    }

    /// [`multidimensional_index`](Self::multidimensional_index) into a
    /// caller's buffer.
    ///
    /// # Errors
    ///
    /// As [`multidimensional_index`](Self::multidimensional_index), and
    /// [`IndexError::RankMismatch`] if `index` does not have one entry per
    /// dimension.
    pub fn multidimensional_index_into(
        &self,
        linear: i64,
        index: &mut [i64],
    ) -> Result<(), IndexError> {
        if index.len() != self.rank() {
            return Err(IndexError::RankMismatch {
                len: index.len(),
                rank: self.rank(),
            });
        }
        if linear < 0 || linear >= self.padded_element_count {
            return Err(IndexError::LinearIndexOutOfBounds {
                linear,
                size: self.padded_element_count,
            });
        }
        for &d in &self.minor_to_major {
            // Strides and extents are positive here: the buffer is not empty.
            let i = (linear / self.strides[d]) % self.padded[d];
            if i >= self.dimensions[d] {
                return Err(IndexError::LinearIndexInPadding {
                    linear,
                    dimension: d,
                    index: i,
                    size: self.dimensions[d],
                });
            }
            index[d] = i;
        }
        Ok(())
    }
}

/// `Σ index[d] * strides[d]` (wrapping), and whether some `index[d]` is
/// outside `[0, dimensions[d])`. Branch-free, so the loop stays tight; in
/// bounds the sum cannot wrap, as it stays below the padded element count.
#[inline]
fn sum(index: &[i64], dimensions: &[i64], strides: &[i64]) -> (i64, bool) {
    let mut linear = 0_i64;
    let mut out_of_bounds = false;
    for ((&i, &size), &stride) in index.iter().zip(dimensions).zip(strides) {
        // `as u64` maps negative indices above any size: one comparison
        // checks both bounds.
        #[allow(clippy::cast_sign_loss)]
        let outside = i as u64 >= size as u64;
        out_of_bounds |= outside;
        linear = linear.wrapping_add(i.wrapping_mul(stride));
    }
    (linear, out_of_bounds)
}
