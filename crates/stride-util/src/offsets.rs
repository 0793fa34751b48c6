//! The buffer offsets of a view's elements in logical (row-major index)
//! order: [`Offsets`] and [`StridedView::for_each_offset`].

use crate::view::StridedView;

/// Iterator over the buffer offsets of a view's elements, the last index
/// changing fastest. An odometer that adds or subtracts strides, never
/// recomputing `Σ index · stride`.
///
/// ```
/// let a = stride_util::StridedView::row_major(&[2, 3])?.transpose();
/// assert_eq!(a.offsets().collect::<Vec<_>>(), [0, 3, 1, 4, 2, 5]);
/// # Ok::<(), stride_util::ViewError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Offsets {
    sizes: Vec<i64>,
    strides: Vec<i64>,
    index: Vec<i64>,
    next: Option<i64>,
    remaining: u64,
}

impl Iterator for Offsets {
    type Item = i64;

    fn next(&mut self) -> Option<i64> {
        let current = self.next?;
        self.remaining -= 1;
        self.next = None;
        let mut value = current;
        for d in (0..self.sizes.len()).rev() {
            self.index[d] += 1;
            if self.index[d] < self.sizes[d] {
                self.next = Some(value + self.strides[d]);
                break;
            }
            // Wrap this dimension back to 0 and carry.
            value -= (self.sizes[d] - 1) * self.strides[d];
            self.index[d] = 0;
        }
        if self.remaining == 0 {
            self.next = None;
        }
        Some(current)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = usize::try_from(self.remaining).ok();
        (n.unwrap_or(usize::MAX), n)
    }
}

impl StridedView {
    /// The buffer offsets of every element, in logical order.
    pub fn offsets(&self) -> Offsets {
        let remaining = u64::try_from(self.num_elements()).unwrap_or(0);
        Offsets {
            sizes: self.sizes().to_vec(),
            strides: self.strides().to_vec(),
            index: vec![0; self.ndim()],
            next: (remaining > 0).then_some(self.offset()),
            remaining,
        }
    }

    /// Calls `f` with the buffer offset of every element, in logical order:
    /// a tight loop over the last dimension inside an odometer over the
    /// others, faster than [`StridedView::offsets`].
    ///
    /// ```
    /// let a = stride_util::StridedView::row_major(&[2, 2])?.flip()?;
    /// let mut seen = Vec::new();
    /// a.for_each_offset(|o| seen.push(o));
    /// assert_eq!(seen, [3, 2, 1, 0]);
    /// # Ok::<(), stride_util::ViewError>(())
    /// ```
    pub fn for_each_offset(&self, mut f: impl FnMut(i64)) {
        if self.is_empty() {
            return;
        }
        let Some((&inner_size, outer_sizes)) = self.sizes().split_last() else {
            f(self.offset());
            return;
        };
        let (&inner_stride, outer_strides) = self.strides().split_last().unwrap_or((&0, &[]));
        let mut index = vec![0_i64; outer_sizes.len()];
        let mut base = self.offset();
        loop {
            let mut offset = base;
            for _ in 0..inner_size {
                f(offset);
                // Past the last element this may leave the view's range;
                // that value is never used.
                offset = offset.wrapping_add(inner_stride);
            }
            // Odometer over the outer dimensions.
            let mut d = outer_sizes.len();
            loop {
                if d == 0 {
                    return;
                }
                d -= 1;
                index[d] += 1;
                base = base.wrapping_add(outer_strides[d]);
                if index[d] < outer_sizes[d] {
                    break;
                }
                base = base.wrapping_sub(outer_sizes[d].wrapping_mul(outer_strides[d]));
                index[d] = 0;
            }
        }
    }
}
