//! numpy basic indexing: [`IndexItem`] (slice, integer, `None`, `...`) and
//! [`StridedView::index`], plus [`parse_index_expression`] for the text form.

use crate::error::{ViewError, overflow};
use crate::ops::normalize_axis;
use crate::view::{MAX_DIMS, StridedView};

/// One item of a numpy basic index such as `[0:3:2, ..., None, -1]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IndexItem {
    /// `start:stop:step`, each part optional (numpy's defaults apply).
    Slice {
        /// First index (negative counts from the end).
        start: Option<i64>,
        /// One past the last index (negative counts from the end).
        stop: Option<i64>,
        /// Step; may be negative, never 0.
        step: Option<i64>,
    },
    /// An integer: selects one position and drops the dimension.
    Index(i64),
    /// `None` / `np.newaxis`: inserts a size-1 dimension (stride 0).
    NewAxis,
    /// `...`: as many full slices as needed to index every dimension.
    Ellipsis,
}

impl IndexItem {
    /// The slice `start:stop:step`.
    #[must_use]
    pub fn slice(start: Option<i64>, stop: Option<i64>, step: Option<i64>) -> Self {
        Self::Slice { start, stop, step }
    }

    /// The full slice `:`.
    #[must_use]
    pub fn full() -> Self {
        Self::slice(None, None, None)
    }

    /// How many dimensions of the view this item consumes.
    fn consumed(self) -> usize {
        match self {
            Self::Slice { .. } | Self::Index(_) => 1,
            Self::NewAxis | Self::Ellipsis => 0,
        }
    }
}

/// The positions a slice selects along a dimension of `length`, as
/// CPython's `PySlice_Unpack` + `PySlice_AdjustIndices`: `(start, step,
/// count)`, out-of-range bounds clamped.
///
/// # Errors
///
/// [`ViewError::NegativeSize`] for a negative `length` (Python's `length
/// should not be negative`), then [`ViewError::ZeroStep`] for step 0.
///
/// ```
/// // 1:4:2 over 4 positions: 1 and 3.
/// assert_eq!(stride_util::adjust_slice(4, Some(1), Some(4), Some(2), 0)?, (1, 2, 2));
/// // ::-1 over 3 positions: 2, 1, 0.
/// assert_eq!(stride_util::adjust_slice(3, None, None, Some(-1), 0)?, (2, -1, 3));
/// # Ok::<(), stride_util::ViewError>(())
/// ```
pub fn adjust_slice(
    length: i64,
    start: Option<i64>,
    stop: Option<i64>,
    step: Option<i64>,
    axis: usize,
) -> Result<(i64, i64, i64), ViewError> {
    if length < 0 {
        return Err(ViewError::NegativeSize { axis, size: length });
    }
    let step = step.unwrap_or(1).max(-i64::MAX);
    if step == 0 {
        return Err(ViewError::ZeroStep { axis });
    }
    let backwards = step < 0;
    let clamp = |bound: i64| {
        if bound < 0 {
            let from_end = bound + length;
            if from_end < 0 {
                if backwards { -1 } else { 0 }
            } else {
                from_end
            }
        } else if bound >= length {
            if backwards { length - 1 } else { length }
        } else {
            bound
        }
    };
    let start = clamp(start.unwrap_or(if backwards { i64::MAX } else { 0 }));
    let stop = clamp(stop.unwrap_or(if backwards { i64::MIN } else { i64::MAX }));
    let count = if backwards {
        if stop < start {
            (start - stop - 1) / -step + 1
        } else {
            0
        }
    } else if start < stop {
        (stop - start - 1) / step + 1
    } else {
        0
    };
    Ok((start, step, count))
}

impl StridedView {
    /// numpy basic indexing `a[items]`: slices keep a dimension (offset +=
    /// start × stride, stride ×= step, size = the slice's count), integers
    /// drop one (offset += index × stride), `NewAxis` inserts a size-1
    /// dimension with stride 0, and one `Ellipsis` stands for the full
    /// slices of the dimensions no other item indexes (also implied at the
    /// end). An empty slice keeps the stride and adds no offset, as numpy.
    ///
    /// # Errors
    ///
    /// [`ViewError::MultipleEllipsis`], [`ViewError::TooManyIndices`],
    /// [`ViewError::IndexTooManyDimensions`] (more than 64), [`ViewError::ZeroStep`], [`ViewError::IndexOutOfBounds`] and
    /// [`ViewError::Overflow`].
    ///
    /// A classic example: `A[0:3:2, 1:4:2]` of a (3,4) array.
    ///
    /// ```
    /// use stride_util::{IndexItem, StridedView};
    ///
    /// let a = StridedView::row_major(&[3, 4])?;
    /// let b = a.index(&[
    ///     IndexItem::slice(Some(0), Some(3), Some(2)),
    ///     IndexItem::slice(Some(1), Some(4), Some(2)),
    /// ])?;
    /// assert_eq!((b.sizes(), b.strides(), b.offset()), (&[2, 2][..], &[8, 2][..], 1));
    /// # Ok::<(), stride_util::ViewError>(())
    /// ```
    pub fn index(&self, items: &[IndexItem]) -> Result<Self, ViewError> {
        let ellipses = items.iter().filter(|i| **i == IndexItem::Ellipsis).count();
        if ellipses > 1 {
            return Err(ViewError::MultipleEllipsis);
        }
        let consumed: usize = items.iter().map(|i| i.consumed()).sum();
        let ndim = self.ndim();
        if consumed > ndim {
            return Err(ViewError::TooManyIndices {
                ndim,
                indexed: consumed,
            });
        }
        let integers = items
            .iter()
            .filter(|i| matches!(i, IndexItem::Index(_)))
            .count();
        let new_axes = items.iter().filter(|i| **i == IndexItem::NewAxis).count();
        let result_ndim = ndim - integers + new_axes;
        if result_ndim > MAX_DIMS {
            return Err(ViewError::IndexTooManyDimensions { ndim: result_ndim });
        }
        let mut sizes = Vec::with_capacity(ndim + items.len());
        let mut strides = Vec::with_capacity(ndim + items.len());
        let mut offset = self.offset();
        let mut axis = 0;
        let full_slices = ndim - consumed;
        let implied_ellipsis = [IndexItem::Ellipsis];
        let tail: &[IndexItem] = if ellipses == 0 {
            &implied_ellipsis
        } else {
            &[]
        };
        for &item in items.iter().chain(tail) {
            match item {
                IndexItem::NewAxis => {
                    sizes.push(1);
                    strides.push(0);
                }
                IndexItem::Ellipsis => {
                    sizes.extend_from_slice(&self.sizes()[axis..axis + full_slices]);
                    strides.extend_from_slice(&self.strides()[axis..axis + full_slices]);
                    axis += full_slices;
                }
                IndexItem::Index(index) => {
                    let size = self.sizes()[axis];
                    let position = if index < 0 { index + size } else { index };
                    if !(0..size).contains(&position) {
                        return Err(ViewError::IndexOutOfBounds { index, axis, size });
                    }
                    offset += position * self.strides()[axis];
                    axis += 1;
                }
                IndexItem::Slice { start, stop, step } => {
                    let stride = self.strides()[axis];
                    let (start, step, count) =
                        adjust_slice(self.sizes()[axis], start, stop, step, axis)?;
                    if count == 1 {
                        // Never stepped along, so never an address: numpy's
                        // product, wrapped as its C arithmetic wraps it.
                        offset += start * stride;
                        strides.push(stride.wrapping_mul(step));
                    } else if count > 1 {
                        offset += start * stride;
                        strides.push(stride.checked_mul(step).ok_or_else(|| {
                            overflow(
                                "a slice stride",
                                format!("stride {stride} times step {step}"),
                            )
                        })?);
                    } else {
                        strides.push(stride);
                    }
                    sizes.push(count);
                    axis += 1;
                }
            }
        }
        Self::from_parts(sizes, strides, offset)
    }

    /// numpy's `a[index]` for one integer along `axis` (negative axes and
    /// indices count from the end): drops the dimension.
    ///
    /// # Errors
    ///
    /// [`ViewError::AxisOutOfBounds`] and [`ViewError::IndexOutOfBounds`].
    ///
    /// ```
    /// let a = stride_util::StridedView::row_major(&[3, 4])?;
    /// let column = a.select(1, -1)?;
    /// assert_eq!((column.sizes(), column.strides(), column.offset()), (&[3][..], &[4][..], 3));
    /// # Ok::<(), stride_util::ViewError>(())
    /// ```
    pub fn select(&self, axis: i64, index: i64) -> Result<Self, ViewError> {
        let axis = normalize_axis(axis, self.ndim(), None)?;
        let mut items = vec![IndexItem::full(); axis];
        items.push(IndexItem::Index(index));
        self.index(&items)
    }
}

/// Parses a numpy basic index such as `[0:3:2, 1:4:2]`, `[::-1, 2]` or
/// `[..., None]` (the brackets are optional; `newaxis` and `np.newaxis` are
/// accepted for `None`).
///
/// # Errors
///
/// [`ViewError::InvalidIndexExpression`] naming the bad item.
///
/// ```
/// use stride_util::{IndexItem, parse_index_expression};
///
/// assert_eq!(
///     parse_index_expression("[::-1, 2]")?,
///     [IndexItem::slice(None, None, Some(-1)), IndexItem::Index(2)]
/// );
/// assert_eq!(parse_index_expression("[..., None]")?, [IndexItem::Ellipsis, IndexItem::NewAxis]);
/// # Ok::<(), stride_util::ViewError>(())
/// ```
pub fn parse_index_expression(text: &str) -> Result<Vec<IndexItem>, ViewError> {
    let invalid = |reason: String| ViewError::InvalidIndexExpression {
        expression: text.to_owned(),
        reason,
    };
    let trimmed = text.trim();
    let inner = match (trimmed.strip_prefix('['), trimmed.strip_suffix(']')) {
        (Some(_), Some(_)) => &trimmed[1..trimmed.len() - 1],
        (None, None) => trimmed,
        _ => return Err(invalid("unbalanced brackets".to_owned())),
    };
    if inner.trim().is_empty() {
        return Ok(Vec::new());
    }
    let mut items: Vec<&str> = inner.split(',').map(str::trim).collect();
    // A trailing comma, as in `[1,]`, is allowed.
    if items.len() > 1 && items.last() == Some(&"") {
        items.pop();
    }
    items
        .into_iter()
        .map(|item| parse_item(item).map_err(&invalid))
        .collect()
}

fn parse_item(item: &str) -> Result<IndexItem, String> {
    match item {
        "..." | "Ellipsis" => return Ok(IndexItem::Ellipsis),
        "None" | "newaxis" | "np.newaxis" => return Ok(IndexItem::NewAxis),
        "" => return Err("empty index item".to_owned()),
        _ => {}
    }
    if !item.contains(':') {
        return parse_integer(item).map(IndexItem::Index);
    }
    let parts: Vec<&str> = item.split(':').map(str::trim).collect();
    if parts.len() > 3 {
        return Err(format!("slice {item:?} has more than two ':'"));
    }
    let part = |i: usize| -> Result<Option<i64>, String> {
        match parts.get(i).copied() {
            None | Some("" | "None") => Ok(None),
            Some(text) => parse_integer(text).map(Some),
        }
    };
    Ok(IndexItem::slice(part(0)?, part(1)?, part(2)?))
}

fn parse_integer(text: &str) -> Result<i64, String> {
    text.parse::<i64>()
        .map_err(|e| format!("{text:?} is not an integer ({e})"))
}
