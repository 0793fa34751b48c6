//! [`StridedView`]s from and to ndarray's views (the `ndarray` feature), of
//! any dimension and strides, negative included: a view located in the
//! buffer that holds its elements, and an `ArrayView` of a view over a
//! buffer where ndarray can hold it.

use ndarray::{ArrayView, ArrayViewMut, Dimension, IxDyn, ShapeBuilder};

use super::{StridedView, ViewError, numpy_tuple};

/// The error of a conversion of the view with `sizes` and `strides`.
fn failure(to: &'static str, sizes: &[i64], strides: &[i64], reason: String) -> ViewError {
    ViewError::Conversion {
        to,
        shape: numpy_tuple(sizes),
        strides: numpy_tuple(strides),
        reason,
    }
}

/// The shape and strides of an ndarray view as `i64`s.
fn dims_of<A, D: Dimension>(view: &ArrayView<'_, A, D>) -> Option<(Vec<i64>, Vec<i64>)> {
    let sizes = view
        .shape()
        .iter()
        .map(|&s| i64::try_from(s).ok())
        .collect::<Option<_>>()?;
    let strides = view
        .strides()
        .iter()
        .map(|&s| i64::try_from(s).ok())
        .collect::<Option<_>>()?;
    Some((sizes, strides))
}

impl StridedView {
    /// The view of the ndarray view `array` over `buffer`, the elements of
    /// the array it views (its owner's `as_slice_memory_order()`, or any
    /// slice holding every element of `array`): its shape, its strides
    /// (negative ones too) and the position of its first element in
    /// `buffer` as the offset.
    ///
    /// # Errors
    ///
    /// [`ViewError::Conversion`] for zero-sized elements, a first element
    /// outside `buffer` or not on an element boundary of it, or elements
    /// outside `buffer`.
    ///
    /// ```
    /// use ndarray::{Array2, s};
    /// use stride_util::StridedView;
    ///
    /// let owner = Array2::from_shape_fn((4, 6), |(i, j)| (i * 6 + j) as f32);
    /// // Every other column, rows reversed.
    /// let part = owner.slice(s![..;-1, ..;2]);
    /// let view = StridedView::from_ndarray_in(&part, owner.as_slice().unwrap())?;
    /// assert_eq!((view.sizes(), view.strides(), view.offset()), (&[4, 3][..], &[-6, 2][..], 18));
    /// # Ok::<(), stride_util::ViewError>(())
    /// ```
    pub fn from_ndarray_in<A, D: Dimension>(
        array: &ArrayView<'_, A, D>,
        buffer: &[A],
    ) -> Result<Self, ViewError> {
        let Some((sizes, strides)) = dims_of(array) else {
            let sizes: Vec<i64> = array
                .shape()
                .iter()
                .map(|&s| i64::try_from(s).unwrap_or(i64::MAX))
                .collect();
            let strides: Vec<i64> = array.strides().iter().map(|&s| s as i64).collect();
            return Err(failure(
                "from an ndarray view",
                &sizes,
                &strides,
                "a size does not fit in i64".into(),
            ));
        };
        let fail = |reason: String| failure("from an ndarray view", &sizes, &strides, reason);
        let size = size_of::<A>();
        if size == 0 {
            return Err(fail("its elements have no size".into()));
        }
        // Addresses only: the pointers are compared, never read.
        let (first, start) = (array.as_ptr() as usize, buffer.as_ptr() as usize);
        let bytes = first
            .checked_sub(start)
            .filter(|bytes| bytes.is_multiple_of(size))
            .ok_or_else(|| fail("its first element is not an element of the buffer".into()))?;
        let offset = i64::try_from(bytes / size)
            .map_err(|_| fail("its first element is too far into the buffer".into()))?;
        let view = StridedView::new(&sizes, &strides, offset)?;
        let len = i64::try_from(buffer.len()).unwrap_or(i64::MAX);
        if !array.is_empty() && view.check_inside(len).is_err() {
            return Err(fail(format!(
                "some element is outside the buffer of {len} elements"
            )));
        }
        Ok(view)
    }

    /// The view of the ndarray view `array` over the elements it spans,
    /// returned with it: for an array contiguous in memory in any order
    /// (negative strides included), else an error; views with gaps are
    /// located in their owner's buffer with
    /// [`from_ndarray_in`](Self::from_ndarray_in).
    ///
    /// # Errors
    ///
    /// [`ViewError::Conversion`] if `array`'s elements are not contiguous
    /// in memory; those of [`from_ndarray_in`](Self::from_ndarray_in).
    ///
    /// ```
    /// use ndarray::Array3;
    /// use stride_util::StridedView;
    ///
    /// let a = Array3::<u16>::zeros((2, 3, 4));
    /// let (view, elements) = StridedView::from_ndarray(&a.view().reversed_axes())?;
    /// assert_eq!((view.sizes(), view.strides()), (&[4, 3, 2][..], &[1, 4, 12][..]));
    /// assert_eq!(elements.len(), 24);
    /// # Ok::<(), stride_util::ViewError>(())
    /// ```
    pub fn from_ndarray<'a, A, D: Dimension>(
        array: &ArrayView<'a, A, D>,
    ) -> Result<(Self, &'a [A]), ViewError> {
        let Some(elements) = array.to_slice_memory_order() else {
            let (sizes, strides) = dims_of(array).unwrap_or_default();
            return Err(failure(
                "from an ndarray view",
                &sizes,
                &strides,
                "its elements are not contiguous in memory (locate it in its owner's buffer \
                 with from_ndarray_in)"
                    .into(),
            ));
        };
        Ok((Self::from_ndarray_in(array, elements)?, elements))
    }

    /// The ndarray view of this view over `buffer` (of any dimension, with
    /// its strides, negative included).
    ///
    /// # Errors
    ///
    /// [`ViewError::OutsideBuffer`] if the view addresses an element
    /// outside `buffer`; [`ViewError::Conversion`] where ndarray cannot
    /// hold the view.
    ///
    /// ```
    /// use stride_util::StridedView;
    ///
    /// let data: Vec<i32> = (0..6).collect();
    /// let flipped = StridedView::row_major(&[2, 3])?.flip()?.transpose();
    /// let array = flipped.to_ndarray(&data)?;
    /// assert_eq!(array.shape(), [3, 2]);
    /// assert_eq!(array[[0, 0]], 5);
    /// assert_eq!(array[[2, 1]], 0);
    /// # Ok::<(), stride_util::ViewError>(())
    /// ```
    pub fn to_ndarray<'a, A>(&self, buffer: &'a [A]) -> Result<ArrayView<'a, A, IxDyn>, ViewError> {
        let (low, high) = self.elements_in(buffer.len())?;
        let (shape, strides) = self.ndarray_dims()?;
        if self.is_empty() {
            // No element to address: ndarray's own strides.
            return ArrayView::from_shape(IxDyn(&shape), &buffer[low..high]).map_err(|e| {
                failure(
                    "to an ndarray view",
                    self.sizes(),
                    self.strides(),
                    e.to_string(),
                )
            });
        }
        ArrayView::from_shape(IxDyn(&shape).strides(IxDyn(&strides)), &buffer[low..high]).map_err(
            |e| {
                failure(
                    "to an ndarray view",
                    self.sizes(),
                    self.strides(),
                    e.to_string(),
                )
            },
        )
    }

    /// [`to_ndarray`](Self::to_ndarray) to write: ndarray refuses a view
    /// that addresses some element twice.
    ///
    /// # Errors
    ///
    /// Those of [`to_ndarray`](Self::to_ndarray).
    ///
    /// ```
    /// use stride_util::StridedView;
    ///
    /// let mut data = [0_u8; 6];
    /// let column_major = StridedView::column_major(&[2, 3])?;
    /// column_major.to_ndarray_mut(&mut data)?[[1, 0]] = 7;
    /// assert_eq!(data, [0, 7, 0, 0, 0, 0]);
    /// // A broadcast view cannot be written.
    /// let broadcast = StridedView::new(&[2, 3], &[0, 1], 0)?;
    /// assert!(broadcast.to_ndarray_mut(&mut data).is_err());
    /// # Ok::<(), stride_util::ViewError>(())
    /// ```
    pub fn to_ndarray_mut<'a, A>(
        &self,
        buffer: &'a mut [A],
    ) -> Result<ArrayViewMut<'a, A, IxDyn>, ViewError> {
        let (low, high) = self.elements_in(buffer.len())?;
        let (shape, strides) = self.ndarray_dims()?;
        if self.is_empty() {
            // No element to address: ndarray's own strides.
            return ArrayViewMut::from_shape(IxDyn(&shape), &mut buffer[low..high]).map_err(|e| {
                failure(
                    "to an ndarray view",
                    self.sizes(),
                    self.strides(),
                    e.to_string(),
                )
            });
        }
        ArrayViewMut::from_shape(
            IxDyn(&shape).strides(IxDyn(&strides)),
            &mut buffer[low..high],
        )
        .map_err(|e| {
            failure(
                "to an ndarray view",
                self.sizes(),
                self.strides(),
                e.to_string(),
            )
        })
    }

    /// The elements `low..high` of a buffer of `len` that the view spans,
    /// checked inside it (empty for an empty view).
    fn elements_in(&self, len: usize) -> Result<(usize, usize), ViewError> {
        self.check_inside(i64::try_from(len).unwrap_or(i64::MAX))?;
        let Some((low, high)) = self.offset_range() else {
            return Ok((0, 0));
        };
        // Inside the buffer: both are in 0..len.
        let at = |v: i64| usize::try_from(v).unwrap_or(0);
        Ok((at(low), at(high) + 1))
    }

    /// The shape and strides as ndarray takes them (strides as the bits of
    /// `isize`s, as ndarray's custom strides are given).
    fn ndarray_dims(&self) -> Result<(Vec<usize>, Vec<usize>), ViewError> {
        let fail = |reason: &str| {
            failure(
                "to an ndarray view",
                self.sizes(),
                self.strides(),
                reason.into(),
            )
        };
        let shape = self
            .sizes()
            .iter()
            .map(|&s| usize::try_from(s).map_err(|_| fail("a size does not fit in usize")))
            .collect::<Result<_, _>>()?;
        let strides = self
            .strides()
            .iter()
            .map(|&s| {
                isize::try_from(s)
                    .map(isize::cast_unsigned)
                    .map_err(|_| fail("a stride does not fit in isize"))
            })
            .collect::<Result<_, _>>()?;
        Ok((shape, strides))
    }
}
