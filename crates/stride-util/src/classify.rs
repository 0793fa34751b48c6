//! Classifying a view: C/F contiguity (numpy's rules), broadcast, overlap,
//! packed and padded (DirectML's terms), and the minimal buffer size.

use crate::error::{ViewError, overflow};
use crate::view::StridedView;

/// The largest span (in elements) for which [`StridedView::has_overlap`]
/// enumerates offsets when the quick tests cannot decide: one bit each, so
/// at most an 8 MiB bitmap and 2²⁶ offsets visited.
const MAX_ENUMERATED_SPAN: u128 = 1 << 26;

impl StridedView {
    /// numpy's `C_CONTIGUOUS` flag: strides are the row-major suffix
    /// products, ignoring size-1 dimensions; a view with a zero size is
    /// contiguous. The offset does not matter.
    ///
    /// ```
    /// use stride_util::StridedView;
    ///
    /// assert!(StridedView::new(&[2, 1, 3], &[3, 99, 1], 0)?.is_c_contiguous());
    /// assert!(StridedView::new(&[2, 0], &[7, 7], 0)?.is_c_contiguous());
    /// assert!(!StridedView::row_major(&[2, 3])?.transpose().is_c_contiguous());
    /// # Ok::<(), stride_util::ViewError>(())
    /// ```
    pub fn is_c_contiguous(&self) -> bool {
        contiguous(
            self.sizes().iter().zip(self.strides()).rev(),
            self.is_empty(),
        )
    }

    /// numpy's `F_CONTIGUOUS` flag: strides are the column-major prefix
    /// products, ignoring size-1 dimensions; a view with a zero size is
    /// contiguous.
    ///
    /// ```
    /// let a = stride_util::StridedView::row_major(&[2, 3])?;
    /// assert!(a.transpose().is_f_contiguous());
    /// assert!(!a.is_f_contiguous());
    /// # Ok::<(), stride_util::ViewError>(())
    /// ```
    pub fn is_f_contiguous(&self) -> bool {
        contiguous(self.sizes().iter().zip(self.strides()), self.is_empty())
    }

    /// Whether some dimension of size > 1 has stride 0 (DirectML's
    /// "broadcasting": elements repeated along it).
    ///
    /// ```
    /// let a = stride_util::StridedView::row_major(&[3])?;
    /// assert!(a.broadcast_to(&[2, 3])?.is_broadcast());
    /// # Ok::<(), stride_util::ViewError>(())
    /// ```
    pub fn is_broadcast(&self) -> bool {
        self.sizes()
            .iter()
            .zip(self.strides())
            .any(|(&size, &stride)| size > 1 && stride == 0)
    }

    /// The offset span `last - first + 1` of the addressed elements (0 for an
    /// empty view); `None` if it exceeds `i64::MAX` (the offsets fit in
    /// `i64`, their distance may not).
    ///
    /// ```
    /// use stride_util::StridedView;
    ///
    /// assert_eq!(StridedView::new(&[2, 3], &[-10, 2], 20)?.span(), Some(15));
    /// assert_eq!(StridedView::new(&[2, 2], &[i64::MIN, i64::MAX], 0)?.span(), None);
    /// # Ok::<(), stride_util::ViewError>(())
    /// ```
    pub fn span(&self) -> Option<i64> {
        match self.offset_range() {
            Some((low, high)) => high.checked_sub(low)?.checked_add(1),
            None => Some(0),
        }
    }

    /// Whether two different indices address the same element (broadcast
    /// views included). Exact, in time and memory bounded independently of
    /// the span: after sorting the dimensions by stride, the outermost ones
    /// whose stride exceeds the reach of all smaller ones (a mixed radix)
    /// are set aside, as they never meet; the rest overlap if they have
    /// more elements than their span, and otherwise their offsets are
    /// enumerated into a bitmap of at most 2²⁶ bits (8 MiB).
    ///
    /// # Errors
    ///
    /// [`ViewError::OverlapUndecided`] when that bitmap would be larger
    /// (only for interleaved strides over a huge span).
    ///
    /// ```
    /// use stride_util::StridedView;
    ///
    /// // Offsets {0,4,8,3,7,11,6,10,14}: no overlap though strides 3 and 4 interleave.
    /// assert!(!StridedView::new(&[3, 3], &[3, 4], 0)?.has_overlap()?);
    /// // Sliding windows share elements.
    /// assert!(StridedView::new(&[3, 3], &[1, 1], 0)?.has_overlap()?);
    /// // Interleaved over a span of 2^40: too large a bitmap to decide.
    /// assert!(StridedView::new(&[3, 3], &[3 << 40, 4 << 40], 0)?.has_overlap().is_err());
    /// # Ok::<(), stride_util::ViewError>(())
    /// ```
    pub fn has_overlap(&self) -> Result<bool, ViewError> {
        if self.is_empty() {
            return Ok(false);
        }
        let mut dims = moving_dimensions(self);
        if dims.iter().any(|&(_, stride)| stride == 0) || has_multiple_stride(&dims) {
            return Ok(true);
        }
        dims.sort_unstable_by_key(|&(_, stride)| stride);
        // reach[j]: the largest offset the dimensions below j reach (exact
        // in u128: sizes and strides are below 2^64, at most 63 moving
        // dimensions of size >= 2).
        let mut reach = Vec::with_capacity(dims.len() + 1);
        let mut total = 0_u128;
        reach.push(total);
        for &(size, stride) in &dims {
            total = total.saturating_add(u128::from(size - 1) * u128::from(stride));
            reach.push(total);
        }
        // The mixed-radix dimensions on top: each stride exceeds the reach of
        // all smaller ones, so they are digits that never meet.
        let inner = dims
            .iter()
            .zip(&reach)
            .rposition(|(&(_, stride), &below)| u128::from(stride) <= below)
            .map_or(0, |last| last + 1);
        if inner == 0 {
            return Ok(false);
        }
        let (dims, span) = (&dims[..inner], reach[inner] + 1);
        let count = dims
            .iter()
            .try_fold(1_u128, |n, &(size, _)| n.checked_mul(u128::from(size)));
        if count.is_none_or(|n| n > span) {
            return Ok(true);
        }
        if span > MAX_ENUMERATED_SPAN {
            return Err(ViewError::OverlapUndecided {
                span: self.span().unwrap_or(i64::MAX),
            });
        }
        // Small: the sizes, strides and span fit in i64 and usize.
        let to_i64 = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
        let sizes: Vec<i64> = dims.iter().map(|&(size, _)| to_i64(size)).collect();
        let strides: Vec<i64> = dims.iter().map(|&(_, stride)| to_i64(stride)).collect();
        let view = Self::new(&sizes, &strides, 0)?;
        let words = usize::try_from(span / 64 + 1)
            .map_err(|_| overflow("an overlap bitmap", self.describe()))?;
        let mut seen = vec![0_u64; words];
        let mut overlap = false;
        view.for_each_offset(|offset| {
            let (word, mask) = ((offset / 64) as usize, 1_u64 << (offset % 64));
            overlap |= seen[word] & mask != 0;
            seen[word] |= mask;
        });
        Ok(overlap)
    }

    /// DirectML's "packed": every element has its own offset and together
    /// they fill their span (no padding, no overlap). An empty view is packed.
    ///
    /// # Errors
    ///
    /// As [`StridedView::has_overlap`].
    ///
    /// ```
    /// use stride_util::StridedView;
    ///
    /// assert!(StridedView::row_major(&[2, 2, 3])?.is_packed()?);
    /// assert!(StridedView::row_major(&[2, 3])?.transpose().is_packed()?);
    /// assert!(!StridedView::from_dml(&[2, 3], Some(&[5, 1]))?.is_packed()?);
    /// # Ok::<(), stride_util::ViewError>(())
    /// ```
    pub fn is_packed(&self) -> Result<bool, ViewError> {
        Ok(self.span() == Some(self.num_elements()) && !self.has_overlap()?)
    }

    /// DirectML's "padded": no overlap, and the span is larger than the
    /// number of elements (gaps between them).
    ///
    /// # Errors
    ///
    /// As [`StridedView::has_overlap`].
    ///
    /// ```
    /// let a = stride_util::StridedView::row_major(&[3, 4])?;
    /// assert!(a.index(&stride_util::parse_index_expression("[:, ::2]")?)?.is_padded()?);
    /// assert!(!a.is_padded()?);
    /// # Ok::<(), stride_util::ViewError>(())
    /// ```
    pub fn is_padded(&self) -> Result<bool, ViewError> {
        Ok(self.span().is_none_or(|span| span > self.num_elements()) && !self.has_overlap()?)
    }

    /// The minimal buffer length in elements: the offset of the last
    /// element + 1 (rten's `min_data_len`), 0 for an empty view.
    ///
    /// # Errors
    ///
    /// [`ViewError::OutsideBuffer`] if an element has a negative offset, and
    /// [`ViewError::Overflow`].
    ///
    /// ```
    /// // Padded rows: {A B C x x D E F x x} needs 8 elements.
    /// let padded = stride_util::StridedView::from_dml(&[2, 3], Some(&[5, 1]))?;
    /// assert_eq!(padded.min_buffer_len()?, 8);
    /// # Ok::<(), stride_util::ViewError>(())
    /// ```
    pub fn min_buffer_len(&self) -> Result<i64, ViewError> {
        match self.offset_range() {
            None => Ok(0),
            Some((low, high)) if low < 0 => Err(ViewError::OutsideBuffer {
                offset: low,
                len: high.saturating_add(1),
            }),
            Some((_, high)) => high
                .checked_add(1)
                .ok_or_else(|| overflow("the buffer length", self.describe())),
        }
    }

    /// DirectML's `DMLCalcBufferTensorSize`: (offset of the last element + 1)
    /// × element size, rounded up to a multiple of 4 bytes. Sub-byte
    /// elements (`element_size_in_bits` < 8) are packed, so the bits are
    /// rounded up to whole bytes first. An empty view needs 0 bytes
    /// (DirectML's unsigned arithmetic would wrap around there).
    ///
    /// A DirectML size, not XLA's: an XLA layout's buffer is
    /// `index_util::TiledLayout::array_size` (shape-util's crate
    /// documentation lists every size function and what it counts).
    ///
    /// # Errors
    ///
    /// As [`StridedView::min_buffer_len`].
    ///
    /// ```
    /// let padded = stride_util::StridedView::from_dml(&[2, 3], Some(&[5, 1]))?;
    /// assert_eq!(padded.dml_buffer_tensor_size(8)?, 8);
    /// assert_eq!(padded.dml_buffer_tensor_size(16)?, 16);
    /// assert_eq!(stride_util::StridedView::row_major(&[3])?.dml_buffer_tensor_size(8)?, 4);
    /// # Ok::<(), stride_util::ViewError>(())
    /// ```
    pub fn dml_buffer_tensor_size(&self, element_size_in_bits: u32) -> Result<i64, ViewError> {
        // In i128: the bit count may pass i64::MAX while the bytes fit.
        let len = self.min_buffer_len()?;
        let bytes = (i128::from(len) * i128::from(element_size_in_bits) + 7) / 8;
        i64::try_from((bytes + 3) / 4 * 4).map_err(|_| {
            let of = format!("{len} elements of {element_size_in_bits} bits");
            overflow("the buffer size in bytes", of)
        })
    }
}

/// `(size, |stride|)` of the dimensions of size > 1: the ones an index
/// moves along.
fn moving_dimensions(view: &StridedView) -> Vec<(u64, u64)> {
    view.sizes()
        .iter()
        .zip(view.strides())
        .filter(|(size, _)| **size > 1)
        .map(|(&size, &stride)| (size.unsigned_abs(), stride.unsigned_abs()))
        .collect()
}

/// Whether some stride is `m` times another with `m` below that other
/// dimension's size (equal strides included): index `m` along the one and
/// index 1 along the other address the same element.
fn has_multiple_stride(dims: &[(u64, u64)]) -> bool {
    dims.iter().enumerate().any(|(i, &(size, small))| {
        dims.iter().enumerate().any(|(j, &(_, large))| {
            i != j && small != 0 && large % small == 0 && large / small < size
        })
    })
}

/// numpy's `_UpdateContiguousFlags` over `(size, stride)` pairs, from the
/// fastest-varying dimension outward.
fn contiguous<'a>(dims: impl Iterator<Item = (&'a i64, &'a i64)>, empty: bool) -> bool {
    if empty {
        return true;
    }
    let mut expected = 1_i64;
    for (&size, &stride) in dims {
        if size != 1 {
            if stride != expected {
                return false;
            }
            // Fits: the view's offsets fit and the dimension is not empty.
            expected = expected.saturating_mul(size);
        }
    }
    true
}
