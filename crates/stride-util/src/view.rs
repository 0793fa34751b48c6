//! [`StridedView`]: sizes, strides and an offset, all in elements, and its
//! constructors.

use crate::error::{ViewError, numpy_tuple, overflow};

/// A strided view of a one-dimensional buffer, as numpy and DirectML
/// describe arrays: the element at multi-index `i` lives at buffer offset
/// `offset + Σ i[d] · strides[d]` (in elements).
///
/// Strides may be negative (a flipped dimension) or zero (a broadcast
/// dimension). Every view satisfies these invariants, checked by every
/// constructor and operation: `sizes` and `strides` have the same length,
/// sizes are non-negative, and the number of elements and the offsets of
/// the first and last addressed elements fit in `i64`.
///
/// A DHW example: a 2×2×3 tensor stored row-major has strides
/// `{6, 3, 1}`, so element H at `(d=1, h=0, w=1)` is at offset 7.
///
/// ```
/// use stride_util::StridedView;
///
/// let dhw = StridedView::row_major(&[2, 2, 3])?;
/// assert_eq!(dhw.strides(), [6, 3, 1]);
/// assert_eq!(dhw.element_offset(&[1, 0, 1])?, 7);
/// # Ok::<(), stride_util::ViewError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StridedView {
    sizes: Vec<i64>,
    strides: Vec<i64>,
    offset: i64,
}

/// The most dimensions a numpy array has (`NPY_MAXDIMS`).
pub const MAX_DIMS: usize = 64;

/// [`ViewError::TooManyDimensions`] for a result of `ndim` dimensions
/// beyond [`MAX_DIMS`].
pub(crate) fn check_ndim(ndim: usize) -> Result<(), ViewError> {
    if ndim > MAX_DIMS {
        return Err(ViewError::TooManyDimensions { ndim });
    }
    Ok(())
}

impl StridedView {
    /// A view with the given sizes, strides and offset (in elements).
    ///
    /// # Errors
    ///
    /// [`ViewError::RankMismatch`] if the lengths differ,
    /// [`ViewError::NegativeSize`] for a negative size, and
    /// [`ViewError::Overflow`] if the element count, an element offset or
    /// the extent `(size - 1) * stride` of an axis does not fit in `i64`
    /// (every offset computation on a view stays in `i64`, so a view whose
    /// offsets fit only from a far negative offset is refused).
    ///
    /// ```
    /// let view = stride_util::StridedView::new(&[2, 3], &[-3, 1], 3)?;
    /// assert_eq!(view.element_offset(&[1, 2])?, 2);
    /// # Ok::<(), stride_util::ViewError>(())
    /// ```
    pub fn new(sizes: &[i64], strides: &[i64], offset: i64) -> Result<Self, ViewError> {
        Self::from_parts(sizes.to_vec(), strides.to_vec(), offset)
    }

    /// [`StridedView::new`] taking ownership of the vectors.
    pub(crate) fn from_parts(
        sizes: Vec<i64>,
        strides: Vec<i64>,
        offset: i64,
    ) -> Result<Self, ViewError> {
        if sizes.len() != strides.len() {
            return Err(ViewError::RankMismatch {
                sizes: sizes.len(),
                strides: strides.len(),
            });
        }
        if let Some((axis, &size)) = sizes.iter().enumerate().find(|(_, s)| **s < 0) {
            return Err(ViewError::NegativeSize { axis, size });
        }
        let view = Self {
            sizes,
            strides,
            offset,
        };
        view.checked_element_count()?;
        view.checked_offset_range()?;
        Ok(view)
    }

    /// The packed row-major ("C order", numpy's default) view of `sizes`:
    /// each stride is the product of the sizes after it, offset 0.
    ///
    /// As numpy's `_array_fill_strides` (the strides a reshape of a
    /// zero-size array gets), a zero size counts as 1 in those products.
    /// (`np.empty` of a zero-size shape sets every stride to 0 instead;
    /// both address no element.)
    ///
    /// # Errors
    ///
    /// [`ViewError::NegativeSize`] and [`ViewError::Overflow`].
    ///
    /// ```
    /// let view = stride_util::StridedView::row_major(&[3, 4])?;
    /// assert_eq!(view.strides(), [4, 1]);
    /// assert_eq!(stride_util::StridedView::row_major(&[2, 0, 3])?.strides(), [3, 3, 1]);
    /// # Ok::<(), stride_util::ViewError>(())
    /// ```
    pub fn row_major(sizes: &[i64]) -> Result<Self, ViewError> {
        let mut strides = vec![0; sizes.len()];
        packed_strides(
            strides.iter_mut().zip(sizes).rev(),
            "row-major strides",
            sizes,
        )?;
        Self::from_parts(sizes.to_vec(), strides, 0)
    }

    /// The packed column-major ("Fortran order") view of `sizes`: each
    /// stride is the product of the sizes before it (a zero size counting
    /// as 1), offset 0.
    ///
    /// # Errors
    ///
    /// [`ViewError::NegativeSize`] and [`ViewError::Overflow`].
    ///
    /// ```
    /// // A column-major 2×3 matrix: height stride 1, width stride 2.
    /// let view = stride_util::StridedView::column_major(&[2, 3])?;
    /// assert_eq!(view.strides(), [1, 2]);
    /// # Ok::<(), stride_util::ViewError>(())
    /// ```
    pub fn column_major(sizes: &[i64]) -> Result<Self, ViewError> {
        let mut strides = vec![0; sizes.len()];
        packed_strides(strides.iter_mut().zip(sizes), "column-major strides", sizes)?;
        Self::from_parts(sizes.to_vec(), strides, 0)
    }

    /// A DirectML buffer tensor (`DML_BUFFER_TENSOR_DESC::Sizes` and
    /// `Strides`): offset 0, and `strides: None` (DirectML's `nullptr`)
    /// meaning packed row-major (NCHW) strides.
    ///
    /// # Errors
    ///
    /// As [`StridedView::new`].
    ///
    /// ```
    /// use stride_util::StridedView;
    ///
    /// // A padded 2×3 tensor: rows 5 elements apart, {A B C x x D E F x x}.
    /// let padded = StridedView::from_dml(&[2, 3], Some(&[5, 1]))?;
    /// assert_eq!(padded.element_offset(&[1, 0])?, 5);
    /// assert!(padded.is_padded()?);
    /// // The broadcast 2×3 tensor: height stride 0, both rows are {A B C}.
    /// let broadcast = StridedView::from_dml(&[2, 3], Some(&[0, 1]))?;
    /// assert_eq!(broadcast.element_offset(&[1, 2])?, 2);
    /// assert!(broadcast.is_broadcast());
    /// assert_eq!(broadcast.min_buffer_len()?, 3);
    /// # Ok::<(), stride_util::ViewError>(())
    /// ```
    pub fn from_dml(sizes: &[i64], strides: Option<&[i64]>) -> Result<Self, ViewError> {
        match strides {
            Some(strides) => Self::new(sizes, strides, 0),
            None => Self::row_major(sizes),
        }
    }

    /// A view with the same offset and new sizes and strides that address
    /// the same elements (a permutation of the dimensions, possibly without
    /// some size-1 ones), so the invariants still hold.
    pub(crate) fn with_sizes_strides(&self, sizes: Vec<i64>, strides: Vec<i64>) -> Self {
        Self {
            sizes,
            strides,
            offset: self.offset,
        }
    }

    /// numpy's `as_strided` over a buffer of `buffer_len` elements: the view
    /// `(sizes, strides, offset)`, checked to address only elements inside
    /// the buffer.
    ///
    /// # Errors
    ///
    /// [`ViewError::StridedTooManyDimensions`] past numpy's 64 dimensions,
    /// the errors of [`StridedView::new`], and [`ViewError::OutsideBuffer`]
    /// naming the first offending offset (the smallest if below 0, else the
    /// largest).
    ///
    /// ```
    /// use stride_util::{StridedView, ViewError};
    ///
    /// // Sliding windows of 3 over 5 elements.
    /// let windows = StridedView::as_strided(5, &[3, 3], &[1, 1], 0)?;
    /// assert_eq!(windows.element_offset(&[2, 2])?, 4);
    /// assert_eq!(
    ///     StridedView::as_strided(5, &[4, 3], &[1, 1], 0),
    ///     Err(ViewError::OutsideBuffer { offset: 5, len: 5 })
    /// );
    /// # Ok::<(), ViewError>(())
    /// ```
    pub fn as_strided(
        buffer_len: i64,
        sizes: &[i64],
        strides: &[i64],
        offset: i64,
    ) -> Result<Self, ViewError> {
        // numpy's array constructor checks the rank before anything else.
        if sizes.len() > MAX_DIMS {
            return Err(ViewError::StridedTooManyDimensions { ndim: sizes.len() });
        }
        let view = Self::new(sizes, strides, offset)?;
        view.check_inside(buffer_len)?;
        Ok(view)
    }

    /// Checks that every element lies in `[0, buffer_len)`.
    ///
    /// # Errors
    ///
    /// [`ViewError::OutsideBuffer`] naming the first offending offset.
    pub fn check_inside(&self, buffer_len: i64) -> Result<(), ViewError> {
        if let Some((low, high)) = self.offset_range() {
            if low < 0 {
                return Err(ViewError::OutsideBuffer {
                    offset: low,
                    len: buffer_len,
                });
            }
            if high >= buffer_len {
                return Err(ViewError::OutsideBuffer {
                    offset: high,
                    len: buffer_len,
                });
            }
        }
        Ok(())
    }

    /// The size of each dimension.
    pub fn sizes(&self) -> &[i64] {
        &self.sizes
    }

    /// The stride of each dimension, in elements.
    pub fn strides(&self) -> &[i64] {
        &self.strides
    }

    /// The buffer offset of the element at index `(0, ..., 0)`, in elements.
    pub fn offset(&self) -> i64 {
        self.offset
    }

    /// The number of dimensions.
    pub fn ndim(&self) -> usize {
        self.sizes.len()
    }

    /// The number of elements (the product of the sizes; 1 for rank 0).
    pub fn num_elements(&self) -> i64 {
        // The constructors checked that the product fits.
        self.sizes.iter().product()
    }

    /// Whether the view addresses no element (some size is 0).
    pub fn is_empty(&self) -> bool {
        self.sizes.contains(&0)
    }

    /// The buffer offset of the element at `index`: `offset + Σ index[d] ·
    /// strides[d]`. Negative indices are not wrapped.
    ///
    /// # Errors
    ///
    /// [`ViewError::TooManyIndices`] if `index` has the wrong length, and
    /// [`ViewError::IndexOutOfBounds`] for an index outside `[0, size)`.
    ///
    /// ```
    /// // A (3,4) array: A[2][3] = Adata[0 + 2*4 + 3*1] = Adata[11].
    /// let a = stride_util::StridedView::row_major(&[3, 4])?;
    /// assert_eq!(a.element_offset(&[2, 3])?, 11);
    /// # Ok::<(), stride_util::ViewError>(())
    /// ```
    pub fn element_offset(&self, index: &[i64]) -> Result<i64, ViewError> {
        if index.len() != self.ndim() {
            return Err(ViewError::TooManyIndices {
                ndim: self.ndim(),
                indexed: index.len(),
            });
        }
        let mut offset = self.offset;
        for (axis, ((&i, &size), &stride)) in
            index.iter().zip(&self.sizes).zip(&self.strides).enumerate()
        {
            if !(0..size).contains(&i) {
                return Err(ViewError::IndexOutOfBounds {
                    index: i,
                    axis,
                    size,
                });
            }
            // In bounds, so within the checked offset range.
            offset += i * stride;
        }
        Ok(offset)
    }

    /// The smallest and largest element offsets, or `None` for an empty view.
    ///
    /// ```
    /// let view = stride_util::StridedView::new(&[2, 3], &[-3, 1], 3)?;
    /// assert_eq!(view.offset_range(), Some((0, 5)));
    /// # Ok::<(), stride_util::ViewError>(())
    /// ```
    pub fn offset_range(&self) -> Option<(i64, i64)> {
        // The constructors checked this computation.
        self.checked_offset_range().ok().flatten()
    }

    /// `the view of sizes (2,3), strides (3,1), offset 0`, for errors.
    pub(crate) fn describe(&self) -> String {
        format!(
            "the view of sizes {}, strides {}, offset {}",
            numpy_tuple(&self.sizes),
            numpy_tuple(&self.strides),
            self.offset
        )
    }

    fn checked_element_count(&self) -> Result<i64, ViewError> {
        self.sizes.iter().try_fold(1_i64, |n, &size| {
            n.checked_mul(size).ok_or_else(|| {
                overflow(
                    "the number of elements",
                    format!("the sizes {}", numpy_tuple(&self.sizes)),
                )
            })
        })
    }

    fn checked_offset_range(&self) -> Result<Option<(i64, i64)>, ViewError> {
        if self.is_empty() {
            return Ok(None);
        }
        let mut low = self.offset;
        let mut high = self.offset;
        for (&size, &stride) in self.sizes.iter().zip(&self.strides) {
            let extent = (size - 1)
                .checked_mul(stride)
                .ok_or_else(|| overflow("an element offset", self.describe()))?;
            if extent < 0 {
                low = low
                    .checked_add(extent)
                    .ok_or_else(|| overflow("an element offset", self.describe()))?;
            } else {
                high = high
                    .checked_add(extent)
                    .ok_or_else(|| overflow("an element offset", self.describe()))?;
            }
        }
        Ok(Some((low, high)))
    }
}

/// Fills `(stride, size)` pairs, innermost first, with the products of the
/// sizes inside each (a zero size counting as 1). Only the products a
/// stride needs are checked: the product of all sizes is the element
/// count, which [`StridedView::from_parts`] checks.
fn packed_strides<'a>(
    dims: impl Iterator<Item = (&'a mut i64, &'a i64)>,
    what: &'static str,
    sizes: &[i64],
) -> Result<(), ViewError> {
    let mut running = Some(1_i64);
    for (stride, &size) in dims {
        *stride =
            running.ok_or_else(|| overflow(what, format!("the sizes {}", numpy_tuple(sizes))))?;
        running = running.and_then(|r| r.checked_mul(size.max(1)));
    }
    Ok(())
}
