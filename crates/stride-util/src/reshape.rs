//! numpy's `reshape`: a view when the strides allow it (numpy's
//! `_attempt_nocopy_reshape`), otherwise [`ViewError::ReshapeNeedsCopy`];
//! and numpy's `ravel`, a view exactly where numpy's is one.

use std::fmt;

use crate::error::{ViewError, numpy_tuple, overflow};
use crate::view::{StridedView, check_ndim};

/// The index order a reshape reads and writes elements in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Order {
    /// Row-major: the last index changes fastest (numpy's `order='C'`).
    #[default]
    C,
    /// Column-major: the first index changes fastest (numpy's `order='F'`).
    F,
}

impl fmt::Display for Order {
    /// `C` or `F`, as numpy spells the order.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(match self {
            Self::C => "C",
            Self::F => "F",
        })
    }
}

/// The orders numpy's `ravel` (and, but for `K`, `reshape`) take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum NumpyOrder {
    /// `'C'`: row-major.
    #[default]
    C,
    /// `'F'`: column-major.
    F,
    /// `'A'`: column-major if the view is F-contiguous and not C-contiguous
    /// (numpy's `ISFORTRAN`), else row-major.
    A,
    /// `'K'`: the order of the elements in memory.
    K,
}

impl fmt::Display for NumpyOrder {
    /// The order's letter, as numpy spells it ([`NumpyOrder::letter`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(match self {
            Self::C => "C",
            Self::F => "F",
            Self::A => "A",
            Self::K => "K",
        })
    }
}

impl NumpyOrder {
    /// The order's letter, as numpy spells it.
    pub fn letter(self) -> char {
        match self {
            Self::C => 'C',
            Self::F => 'F',
            Self::A => 'A',
            Self::K => 'K',
        }
    }
}

impl StridedView {
    /// numpy's `reshape(shape, order=...)` with any of numpy's reshape orders:
    /// `A` is resolved against this view, and `K` is refused as numpy does.
    ///
    /// # Errors
    ///
    /// [`ViewError::ReshapeKeepOrder`] for `K`, else as
    /// [`StridedView::reshape`].
    ///
    /// ```
    /// use stride_util::{NumpyOrder, StridedView};
    ///
    /// // A transposed (F-contiguous) matrix: order='A' reads it column-major.
    /// let a = StridedView::row_major(&[3, 4])?.transpose();
    /// assert_eq!(a.reshape_numpy(&[12], NumpyOrder::A)?.strides(), [1]);
    /// assert!(a.reshape_numpy(&[12], NumpyOrder::C).is_err());
    /// # Ok::<(), stride_util::ViewError>(())
    /// ```
    pub fn reshape_numpy(&self, shape: &[i64], order: NumpyOrder) -> Result<Self, ViewError> {
        let order = match order {
            NumpyOrder::C => Order::C,
            NumpyOrder::F => Order::F,
            NumpyOrder::A => self.any_order(),
            NumpyOrder::K => return Err(ViewError::ReshapeKeepOrder),
        };
        self.reshape_with_order(shape, order)
    }

    /// numpy's resolution of `order='A'`: `F` when the view is F-contiguous
    /// and not C-contiguous, else `C`.
    fn any_order(&self) -> Order {
        if self.is_f_contiguous() && !self.is_c_contiguous() {
            Order::F
        } else {
            Order::C
        }
    }

    /// numpy's `ravel(order)` when it returns a view (numpy's
    /// `PyArray_Ravel`): the one-dimensional view of all the elements read in
    /// `order`. It is not `reshape(-1)`: numpy's ravel returns a view only of
    /// a contiguous array. `C` (`F`) needs the view C- (F-) contiguous; `A`
    /// is `F` for an F- and not C-contiguous view, else `C`; `K` is `C` or
    /// `F` when the view is contiguous that way, and otherwise a view when
    /// the strides, sorted, are those of a packed array (no negative or zero
    /// stride, no gap): the elements in memory order, from the same offset.
    ///
    /// # Errors
    ///
    /// [`ViewError::RavelNeedsCopy`] where numpy's ravel copies.
    ///
    /// ```
    /// use stride_util::{NumpyOrder, StridedView};
    ///
    /// let a = StridedView::row_major(&[3, 4])?;
    /// assert_eq!(a.ravel(NumpyOrder::C)?.strides(), [1]);
    /// // Transposed: only order F (or A, or K) reads it without a copy.
    /// let t = a.transpose();
    /// assert!(t.ravel(NumpyOrder::C).is_err());
    /// assert_eq!(t.ravel(NumpyOrder::K)?.sizes(), [12]);
    /// // Reversed columns: reshape(-1) is a view, ravel copies.
    /// let flipped = StridedView::new(&[1, 4], &[4, -1], 3)?;
    /// assert_eq!(flipped.reshape(&[-1])?.strides(), [-1]);
    /// assert!(flipped.ravel(NumpyOrder::C).is_err());
    /// # Ok::<(), stride_util::ViewError>(())
    /// ```
    pub fn ravel(&self, order: NumpyOrder) -> Result<Self, ViewError> {
        let resolved = match order {
            NumpyOrder::C => Order::C,
            NumpyOrder::F => Order::F,
            NumpyOrder::A => self.any_order(),
            NumpyOrder::K if self.is_c_contiguous() => Order::C,
            NumpyOrder::K if self.is_f_contiguous() => Order::F,
            NumpyOrder::K => return self.ravel_in_memory_order(),
        };
        let contiguous = match resolved {
            Order::C => self.is_c_contiguous(),
            Order::F => self.is_f_contiguous(),
        };
        if contiguous {
            self.reshape_with_order(&[-1], resolved)
        } else {
            Err(self.ravel_needs_copy(order))
        }
    }

    /// `ravel(order='K')` of a view contiguous in neither order: a view if
    /// the strides of the axes larger than 1, smallest magnitude first, are
    /// exactly 1 and then the running products of the sizes.
    fn ravel_in_memory_order(&self) -> Result<Self, ViewError> {
        let mut axes: Vec<(i64, i64)> = self
            .sizes()
            .iter()
            .zip(self.strides())
            .filter(|(size, _)| **size != 1)
            .map(|(&size, &stride)| (size, stride))
            .collect();
        axes.sort_by_key(|&(_, stride)| stride.unsigned_abs());
        let mut expected = Some(1_i64);
        for (size, stride) in axes {
            if expected != Some(stride) {
                return Err(self.ravel_needs_copy(NumpyOrder::K));
            }
            expected = stride.checked_mul(size);
        }
        Self::from_parts(vec![self.num_elements()], vec![1], self.offset())
    }

    fn ravel_needs_copy(&self, order: NumpyOrder) -> ViewError {
        ViewError::RavelNeedsCopy {
            order: order.letter(),
            shape: numpy_tuple(self.sizes()),
            strides: numpy_tuple(self.strides()),
        }
    }

    /// numpy's `reshape(shape)` (C order) without copying.
    ///
    /// At most one size may be negative (numpy's `-1`); it is inferred from
    /// the element count.
    ///
    /// # Errors
    ///
    /// [`ViewError::TooManyDimensions`] (more than 64),
    /// [`ViewError::MultipleUnknownDimensions`],
    /// [`ViewError::ReshapeSizeMismatch`] (numpy's text, with `-1` printed as
    /// `newaxis` as numpy does), and [`ViewError::ReshapeNeedsCopy`] when no
    /// strides over the same buffer describe the result.
    ///
    /// ```
    /// use stride_util::StridedView;
    ///
    /// let a = StridedView::row_major(&[3, 4])?;
    /// let r = a.reshape(&[2, -1, 2])?;
    /// assert_eq!((r.sizes(), r.strides()), (&[2, 3, 2][..], &[6, 2, 1][..]));
    /// // A transposed matrix cannot be flattened without a copy.
    /// assert!(a.transpose().reshape(&[12]).is_err());
    /// # Ok::<(), stride_util::ViewError>(())
    /// ```
    pub fn reshape(&self, shape: &[i64]) -> Result<Self, ViewError> {
        self.reshape_with_order(shape, Order::C)
    }

    /// numpy's `reshape(shape, order=...)` without copying.
    ///
    /// # Errors
    ///
    /// As [`StridedView::reshape`].
    ///
    /// ```
    /// use stride_util::{Order, StridedView};
    ///
    /// let a = StridedView::row_major(&[3, 4])?.transpose();
    /// let r = a.reshape_with_order(&[12], Order::F)?;
    /// assert_eq!(r.strides(), [1]);
    /// # Ok::<(), stride_util::ViewError>(())
    /// ```
    pub fn reshape_with_order(&self, shape: &[i64], order: Order) -> Result<Self, ViewError> {
        check_ndim(shape.len())?;
        if shape == self.sizes() {
            return Ok(self.clone());
        }
        let sizes = self.fix_unknown_dimension(shape)?;
        let contiguous = match order {
            Order::C => self.is_c_contiguous(),
            Order::F => self.is_f_contiguous(),
        };
        if contiguous {
            let packed = match order {
                Order::C => Self::row_major(&sizes)?,
                Order::F => Self::column_major(&sizes)?,
            };
            return Self::from_parts(sizes, packed.strides().to_vec(), self.offset());
        }
        match self.attempt_nocopy_reshape(&sizes, order)? {
            Some(strides) => Self::from_parts(sizes, strides, self.offset()),
            None => Err(ViewError::ReshapeNeedsCopy {
                shape: numpy_tuple(self.sizes()),
                strides: numpy_tuple(self.strides()),
                target: numpy_tuple(&sizes),
            }),
        }
    }

    /// numpy's `_fix_unknown_dimension`: replaces the one negative size by
    /// the quotient of the element count and the known sizes.
    fn fix_unknown_dimension(&self, shape: &[i64]) -> Result<Vec<i64>, ViewError> {
        let size = self.num_elements();
        let mismatch = || ViewError::ReshapeSizeMismatch {
            size,
            shape: numpy_reshape_target(shape),
        };
        let mut unknown = None;
        let mut known = 1_i64;
        for (axis, &dim) in shape.iter().enumerate() {
            if dim < 0 {
                if let Some(first) = unknown {
                    return Err(ViewError::MultipleUnknownDimensions {
                        first,
                        second: axis,
                    });
                }
                unknown = Some(axis);
            } else {
                known = known.checked_mul(dim).ok_or_else(mismatch)?;
            }
        }
        let mut sizes = shape.to_vec();
        match unknown {
            Some(axis) => {
                if known == 0 || size % known != 0 {
                    return Err(mismatch());
                }
                sizes[axis] = size / known;
            }
            None if known != size => return Err(mismatch()),
            None => {}
        }
        Ok(sizes)
    }

    /// numpy's `_attempt_nocopy_reshape`: the strides of `sizes` over the
    /// same elements, or `None` if the view is not contiguous enough.
    /// `sizes` has the same element count, which is not zero (a zero-size
    /// view is contiguous).
    fn attempt_nocopy_reshape(
        &self,
        sizes: &[i64],
        order: Order,
    ) -> Result<Option<Vec<i64>>, ViewError> {
        let (old_sizes, old_strides): (Vec<i64>, Vec<i64>) = self
            .sizes()
            .iter()
            .zip(self.strides())
            .filter(|(size, _)| **size != 1)
            .map(|(&size, &stride)| (size, stride))
            .unzip();
        let mut strides = vec![0_i64; sizes.len()];
        // [oi, oj) and [ni, nj) are the old and new axes of one group with
        // equal element counts.
        let (mut oi, mut oj, mut ni, mut nj) = (0, 1, 0, 1);
        while ni < sizes.len() && oi < old_sizes.len() {
            let mut np = sizes[ni];
            let mut op = old_sizes[oi];
            while np != op {
                if np < op {
                    // Trailing size-1 axes are handled after the loop.
                    let Some(&next) = sizes.get(nj) else {
                        return Ok(None);
                    };
                    np = checked_stride_mul(np, next)?;
                    nj += 1;
                } else {
                    let Some(&next) = old_sizes.get(oj) else {
                        return Ok(None);
                    };
                    op = checked_stride_mul(op, next)?;
                    oj += 1;
                }
            }
            if !mergeable(&old_sizes[oi..oj], &old_strides[oi..oj], order) {
                return Ok(None);
            }
            let old_stride = match order {
                Order::C => old_strides[oj - 1],
                Order::F => old_strides[oi],
            };
            group_strides(&mut strides[ni..nj], &sizes[ni..nj], old_stride, order)?;
            ni = nj;
            nj += 1;
            oi = oj;
            oj += 1;
        }
        // Trailing size-1 axes of the new shape.
        let mut last_stride = if ni >= 1 { strides[ni - 1] } else { 1 };
        if order == Order::F && ni >= 1 {
            last_stride = checked_stride_mul(last_stride, sizes[ni - 1])?;
        }
        for stride in &mut strides[ni..] {
            *stride = last_stride;
        }
        Ok(Some(strides))
    }
}

/// `a * b` for reshape strides, or the overflow error.
fn checked_stride_mul(a: i64, b: i64) -> Result<i64, ViewError> {
    a.checked_mul(b)
        .ok_or_else(|| overflow("reshape strides", format!("{a} times {b}")))
}

/// Whether the old axes of one group (`sizes`, `strides`) are contiguous
/// in `order`, so that they merge into one run of elements.
fn mergeable(sizes: &[i64], strides: &[i64], order: Order) -> bool {
    (0..sizes.len().saturating_sub(1)).all(|k| match order {
        Order::C => Some(strides[k]) == sizes[k + 1].checked_mul(strides[k + 1]),
        Order::F => Some(strides[k + 1]) == sizes[k].checked_mul(strides[k]),
    })
}

/// The strides of the new axes of one group (`sizes`), contiguous in
/// `order` from `old_stride`: the old group's most minor stride.
fn group_strides(
    strides: &mut [i64],
    sizes: &[i64],
    old_stride: i64,
    order: Order,
) -> Result<(), ViewError> {
    let n = strides.len();
    match order {
        Order::C => {
            strides[n - 1] = old_stride;
            for k in (1..n).rev() {
                strides[k - 1] = checked_stride_mul(strides[k], sizes[k])?;
            }
        }
        Order::F => {
            strides[0] = old_stride;
            for k in 1..n {
                strides[k] = checked_stride_mul(strides[k - 1], sizes[k - 1])?;
            }
        }
    }
    Ok(())
}

/// numpy's `convert_shape_to_string` for a reshape target: leading
/// negative sizes are left out and later ones print as `newaxis`.
fn numpy_reshape_target(shape: &[i64]) -> String {
    let first = shape.iter().position(|&d| d >= 0);
    let Some(first) = first else {
        return "()".to_owned();
    };
    let parts: Vec<String> = shape[first..]
        .iter()
        .map(|&d| {
            if d < 0 {
                "newaxis".to_owned()
            } else {
                d.to_string()
            }
        })
        .collect();
    if shape.len() == 1 {
        format!("({},)", parts.join(","))
    } else {
        format!("({})", parts.join(","))
    }
}
