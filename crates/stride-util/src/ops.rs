//! Zero-copy view operations with numpy's semantics: transpose, permute,
//! swapaxes, moveaxis, expand_dims, squeeze, broadcast_to and flip.
//! (Reshape is in [`crate::reshape`], indexing in [`crate::index`].)

use crate::error::{ViewError, numpy_tuple, overflow};
use crate::view::{StridedView, check_ndim};

/// Normalizes `axis` against `ndim` as numpy's `normalize_axis_index`:
/// `-ndim <= axis < ndim`, negative values counting from the end.
pub(crate) fn normalize_axis(
    axis: i64,
    ndim: usize,
    argument: Option<&'static str>,
) -> Result<usize, ViewError> {
    let n = i64::try_from(ndim).unwrap_or(i64::MAX);
    let normalized = if axis < 0 {
        axis.checked_add(n)
    } else {
        Some(axis)
    };
    match normalized {
        Some(a) if (0..n).contains(&a) => {
            usize::try_from(a).map_err(|_| ViewError::AxisOutOfBounds {
                argument,
                axis,
                ndim,
            })
        }
        _ => Err(ViewError::AxisOutOfBounds {
            argument,
            axis,
            ndim,
        }),
    }
}

/// Normalizes every axis of `axes` as numpy's `normalize_axis_tuple`
/// (flip, expand_dims, moveaxis): every axis is checked against the bounds
/// before any repeat is looked for, so `flip(a, (1, 1, 7))` on 3-d `a`
/// reports axis 7, not the repeat.
fn normalize_axes(
    axes: &[i64],
    ndim: usize,
    argument: Option<&'static str>,
    context: Option<&'static str>,
) -> Result<Vec<usize>, ViewError> {
    for &axis in axes {
        normalize_axis(axis, ndim, argument)?;
    }
    normalize_axes_in_order(axes, ndim, argument, context)
}

/// Normalizes the axes one at a time, as numpy's C code does for
/// `transpose` and `squeeze`: the first axis that is out of bounds or a
/// repeat is the error, so `transpose(0, 0, 5)` on 3-d `a` reports the
/// repeat.
fn normalize_axes_in_order(
    axes: &[i64],
    ndim: usize,
    argument: Option<&'static str>,
    context: Option<&'static str>,
) -> Result<Vec<usize>, ViewError> {
    let mut seen = vec![false; ndim];
    axes.iter()
        .map(|&axis| {
            let a = normalize_axis(axis, ndim, argument)?;
            if std::mem::replace(&mut seen[a], true) {
                return Err(ViewError::RepeatedAxis { context, axis: a });
            }
            Ok(a)
        })
        .collect()
}

impl StridedView {
    /// numpy's `.T` / `transpose()`: the dimensions in reverse order.
    ///
    /// ```
    /// let a = stride_util::StridedView::row_major(&[3, 4])?;
    /// let t = a.transpose();
    /// assert_eq!((t.sizes(), t.strides()), (&[4, 3][..], &[1, 4][..]));
    /// # Ok::<(), stride_util::ViewError>(())
    /// ```
    #[must_use]
    pub fn transpose(&self) -> Self {
        let order: Vec<usize> = (0..self.ndim()).rev().collect();
        self.permuted(&order)
    }

    /// numpy's `transpose(axes)`: dimension `i` of the result is dimension
    /// `axes[i]` of `self`. Negative axes count from the end.
    ///
    /// # Errors
    ///
    /// [`ViewError::AxesDontMatch`] if `axes` is not `ndim` long,
    /// [`ViewError::AxisOutOfBounds`] and [`ViewError::RepeatedAxis`].
    ///
    /// ```
    /// // Shape (2,3,4), strides (12,4,1), transpose(0,2,1).
    /// let a = stride_util::StridedView::row_major(&[2, 3, 4])?;
    /// let p = a.permute(&[0, 2, 1])?;
    /// assert_eq!((p.sizes(), p.strides()), (&[2, 4, 3][..], &[12, 1, 4][..]));
    /// # Ok::<(), stride_util::ViewError>(())
    /// ```
    pub fn permute(&self, axes: &[i64]) -> Result<Self, ViewError> {
        if axes.len() != self.ndim() {
            return Err(ViewError::AxesDontMatch {
                given: axes.len(),
                ndim: self.ndim(),
            });
        }
        let order = normalize_axes_in_order(axes, self.ndim(), None, Some("in transpose"))?;
        Ok(self.permuted(&order))
    }

    /// The view with dimension `i` taken from `order[i]`: a permutation of
    /// the dimensions, possibly leaving out size-1 ones, which keeps every
    /// invariant.
    fn permuted(&self, order: &[usize]) -> Self {
        let sizes = order.iter().map(|&a| self.sizes()[a]).collect();
        let strides = order.iter().map(|&a| self.strides()[a]).collect();
        self.with_sizes_strides(sizes, strides)
    }

    /// numpy's `swapaxes(axis1, axis2)`.
    ///
    /// # Errors
    ///
    /// [`ViewError::AxisOutOfBounds`] (prefixed `axis1:` or `axis2:`).
    ///
    /// ```
    /// let a = stride_util::StridedView::row_major(&[2, 3, 4])?;
    /// assert_eq!(a.swapaxes(0, -1)?.strides(), [1, 4, 12]);
    /// # Ok::<(), stride_util::ViewError>(())
    /// ```
    pub fn swapaxes(&self, axis1: i64, axis2: i64) -> Result<Self, ViewError> {
        let a = normalize_axis(axis1, self.ndim(), Some("axis1"))?;
        let b = normalize_axis(axis2, self.ndim(), Some("axis2"))?;
        let mut order: Vec<usize> = (0..self.ndim()).collect();
        order.swap(a, b);
        Ok(self.permuted(&order))
    }

    /// numpy's `moveaxis(source, destination)`: moves each `source[i]` to
    /// position `destination[i]`, the other axes keeping their order.
    ///
    /// # Errors
    ///
    /// [`ViewError::MoveaxisLengthMismatch`], and
    /// [`ViewError::AxisOutOfBounds`] / [`ViewError::RepeatedAxis`] naming
    /// the argument.
    ///
    /// ```
    /// let a = stride_util::StridedView::row_major(&[2, 3, 4, 5])?;
    /// let m = a.moveaxis(&[0, 1], &[-1, -2])?;
    /// assert_eq!((m.sizes(), m.strides()), (&[4, 5, 3, 2][..], &[5, 1, 20, 60][..]));
    /// # Ok::<(), stride_util::ViewError>(())
    /// ```
    pub fn moveaxis(&self, source: &[i64], destination: &[i64]) -> Result<Self, ViewError> {
        let ndim = self.ndim();
        let source = normalize_axes(source, ndim, Some("source"), Some("in `source` argument"))?;
        let destination = normalize_axes(
            destination,
            ndim,
            Some("destination"),
            Some("in `destination` argument"),
        )?;
        if source.len() != destination.len() {
            return Err(ViewError::MoveaxisLengthMismatch {
                source_len: source.len(),
                destination_len: destination.len(),
            });
        }
        // Each source axis lands at its destination; the other axes fill
        // the free positions in their order (numpy's sorted inserts), O(ndim).
        let mut placed: Vec<Option<usize>> = vec![None; ndim];
        let mut moved = vec![false; ndim];
        for (&dest, &src) in destination.iter().zip(&source) {
            placed[dest] = Some(src);
            moved[src] = true;
        }
        let mut rest = (0..ndim).filter(|&a| !moved[a]);
        let order: Vec<usize> = placed
            .into_iter()
            .filter_map(|slot| slot.or_else(|| rest.next()))
            .collect();
        Ok(self.permuted(&order))
    }

    /// numpy's `expand_dims(a, axes)`: inserts size-1 dimensions at
    /// `axes`, which index the result (so `-1` appends). The strides of the
    /// new dimensions are the ones numpy's reshape gives them.
    ///
    /// # Errors
    ///
    /// [`ViewError::AxisOutOfBounds`] (against the result's rank) and
    /// [`ViewError::RepeatedAxis`].
    ///
    /// ```
    /// let a = stride_util::StridedView::row_major(&[4, 3])?;
    /// let e = a.expand_dims(&[0, -1])?;
    /// assert_eq!((e.sizes(), e.strides()), (&[1, 4, 3, 1][..], &[12, 3, 1, 1][..]));
    /// # Ok::<(), stride_util::ViewError>(())
    /// ```
    pub fn expand_dims(&self, axes: &[i64]) -> Result<Self, ViewError> {
        let out_ndim = self.ndim() + axes.len();
        let mut new_axis = vec![false; out_ndim];
        for a in normalize_axes(axes, out_ndim, None, None)? {
            new_axis[a] = true;
        }
        let mut old = self.sizes().iter();
        let shape: Vec<i64> = new_axis
            .iter()
            .map(|&new| {
                if new {
                    1
                } else {
                    old.next().copied().unwrap_or(1)
                }
            })
            .collect();
        self.reshape(&shape)
    }

    /// numpy's `squeeze()`: removes every size-1 dimension.
    ///
    /// ```
    /// let a = stride_util::StridedView::row_major(&[4, 1, 3])?;
    /// assert_eq!(a.squeeze().strides(), [3, 1]);
    /// # Ok::<(), stride_util::ViewError>(())
    /// ```
    #[must_use]
    pub fn squeeze(&self) -> Self {
        let keep: Vec<usize> = (0..self.ndim()).filter(|&a| self.sizes()[a] != 1).collect();
        self.permuted(&keep)
    }

    /// numpy's `squeeze(axis=axes)`: removes the given dimensions, which
    /// must have size 1.
    ///
    /// # Errors
    ///
    /// [`ViewError::AxisOutOfBounds`], [`ViewError::DuplicateAxis`] and
    /// [`ViewError::SqueezeNotOne`].
    ///
    /// ```
    /// use stride_util::{StridedView, ViewError};
    ///
    /// let a = StridedView::row_major(&[4, 1, 3])?;
    /// assert_eq!(a.squeeze_axes(&[-2])?.sizes(), [4, 3]);
    /// assert_eq!(a.squeeze_axes(&[0]), Err(ViewError::SqueezeNotOne { axis: 0, size: 4 }));
    /// # Ok::<(), ViewError>(())
    /// ```
    pub fn squeeze_axes(&self, axes: &[i64]) -> Result<Self, ViewError> {
        let axes =
            normalize_axes_in_order(axes, self.ndim(), None, None).map_err(
                |error| match error {
                    ViewError::RepeatedAxis { axis, .. } => ViewError::DuplicateAxis { axis },
                    other => other,
                },
            )?;
        if let Some(&axis) = axes.iter().find(|&&a| self.sizes()[a] != 1) {
            return Err(ViewError::SqueezeNotOne {
                axis,
                size: self.sizes()[axis],
            });
        }
        let mut removed = vec![false; self.ndim()];
        for &a in &axes {
            removed[a] = true;
        }
        let keep: Vec<usize> = (0..self.ndim()).filter(|&a| !removed[a]).collect();
        Ok(self.permuted(&keep))
    }

    /// numpy's `broadcast_to(a, shape)`: aligns the dimensions at the right;
    /// new leading dimensions and size-1 dimensions get stride 0, others
    /// must match.
    ///
    /// # Errors
    ///
    /// [`ViewError::BroadcastToScalar`], [`ViewError::NegativeBroadcastSize`],
    /// [`ViewError::TooManyDimensions`] (more than 64),
    /// [`ViewError::BroadcastFewerDimensions`],
    /// [`ViewError::BroadcastMismatch`], then [`ViewError::BroadcastTooLarge`]
    /// (more elements than `i64` counts), as numpy checks them.
    ///
    /// ```
    /// let a = stride_util::StridedView::row_major(&[4, 1])?;
    /// let b = a.broadcast_to(&[2, 4, 5])?;
    /// assert_eq!(b.strides(), [0, 1, 0]);
    /// # Ok::<(), stride_util::ViewError>(())
    /// ```
    pub fn broadcast_to(&self, shape: &[i64]) -> Result<Self, ViewError> {
        if shape.is_empty() && self.ndim() > 0 {
            return Err(ViewError::BroadcastToScalar { ndim: self.ndim() });
        }
        if let Some((axis, &size)) = shape.iter().enumerate().find(|(_, s)| **s < 0) {
            return Err(ViewError::NegativeBroadcastSize { axis, size });
        }
        check_ndim(shape.len())?;
        let (ndim, target_ndim) = (self.ndim(), shape.len());
        let Some(leading) = target_ndim.checked_sub(ndim) else {
            return Err(ViewError::BroadcastFewerDimensions { ndim, target_ndim });
        };
        let mut strides = vec![0; target_ndim];
        for (axis, (&size, &stride)) in self.sizes().iter().zip(self.strides()).enumerate() {
            let target_axis = leading + axis;
            let target_size = shape[target_axis];
            if size == 1 {
                continue;
            }
            if size != target_size {
                return Err(ViewError::BroadcastMismatch {
                    shape: numpy_tuple(self.sizes()),
                    target: numpy_tuple(shape),
                    axis: target_axis,
                    size,
                    target_size,
                });
            }
            strides[target_axis] = stride;
        }
        if shape
            .iter()
            .try_fold(1_i64, |count, &size| count.checked_mul(size))
            .is_none()
        {
            return Err(ViewError::BroadcastTooLarge {
                target: numpy_tuple(shape),
            });
        }
        Self::from_parts(shape.to_vec(), strides, self.offset())
    }

    /// numpy's `flip(a)`: every dimension reversed (`a[::-1, ::-1, ...]`).
    ///
    /// # Errors
    ///
    /// [`ViewError::TooManyDimensions`] for a view of more than 64
    /// dimensions (numpy has no such array), and [`ViewError::Overflow`]
    /// if a stride of `i64::MIN` would have to be negated.
    ///
    /// ```
    /// let a = stride_util::StridedView::row_major(&[2, 3])?;
    /// let f = a.flip()?;
    /// assert_eq!((f.strides(), f.offset()), (&[-3, -1][..], 5));
    /// # Ok::<(), stride_util::ViewError>(())
    /// ```
    pub fn flip(&self) -> Result<Self, ViewError> {
        check_ndim(self.ndim())?;
        self.flipped(&vec![true; self.ndim()])
    }

    /// numpy's `flip(a, axes)`: the given dimensions reversed.
    ///
    /// # Errors
    ///
    /// [`ViewError::TooManyDimensions`] as [`flip`](Self::flip), then
    /// [`ViewError::AxisOutOfBounds`] and [`ViewError::RepeatedAxis`].
    ///
    /// ```
    /// let a = stride_util::StridedView::row_major(&[2, 3])?;
    /// let f = a.flip_axes(&[-1])?;
    /// assert_eq!((f.strides(), f.offset()), (&[3, -1][..], 2));
    /// # Ok::<(), stride_util::ViewError>(())
    /// ```
    pub fn flip_axes(&self, axes: &[i64]) -> Result<Self, ViewError> {
        check_ndim(self.ndim())?;
        let mut flipped = vec![false; self.ndim()];
        for axis in normalize_axes(axes, self.ndim(), None, None)? {
            flipped[axis] = true;
        }
        self.flipped(&flipped)
    }

    /// The view with every dimension `a` with `flipped[a]` reversed, as the
    /// slice `::-1` gives it: a dimension of size > 1 starts at its last
    /// element and steps back; size 1 only negates the stride (never
    /// stepped along, so wrapping as numpy's C arithmetic); size 0 is left
    /// as it is. O(ndim).
    fn flipped(&self, flipped: &[bool]) -> Result<Self, ViewError> {
        let mut strides = self.strides().to_vec();
        let mut offset = self.offset();
        for ((stride, &size), _) in strides
            .iter_mut()
            .zip(self.sizes())
            .zip(flipped)
            .filter(|(_, flip)| **flip)
        {
            let (value, negated) = (*stride, stride.checked_neg());
            match size {
                0 => {}
                1 => *stride = stride.wrapping_neg(),
                _ => {
                    let fail =
                        || overflow("a slice stride", format!("stride {value} times step -1"));
                    // The last element's offset: inside the checked range.
                    offset = (size - 1)
                        .checked_mul(value)
                        .and_then(|extent| offset.checked_add(extent))
                        .ok_or_else(fail)?;
                    *stride = negated.ok_or_else(fail)?;
                }
            }
        }
        Self::from_parts(self.sizes().to_vec(), strides, offset)
    }
}
