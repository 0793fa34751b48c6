//! Layouts ↔ strides: views of XLA shapes (with classic padding), the XLA
//! layout a view's strides describe, and DirectML's NCHW/NHWC conventions.

use layout_util::LayoutBuilder;
use schema::{Layout, Shape};

use crate::error::{ViewError, numpy_tuple};
use crate::view::StridedView;

impl StridedView {
    /// The view of an XLA array shape in its buffer: the shape's dimensions
    /// with the element strides its layout gives them (`minor_to_major`
    /// order, `padded_dimensions` extents), offset 0.
    ///
    /// # Errors
    ///
    /// [`ViewError::Shape`] as [`index_util::dimension_strides`] (not an
    /// array, no or an invalid layout, an unbounded dimension), and
    /// [`ViewError::TiledLayout`] for a layout with tiles.
    ///
    /// ```
    /// use layout_util::LayoutBuilder;
    /// use schema::{PrimitiveType, Shape};
    /// use stride_util::StridedView;
    ///
    /// // f32[2,3] padded to [3,5] with dim 0 minor: strides [1, 3].
    /// let shape = Shape {
    ///     element_type: PrimitiveType::F32 as i32,
    ///     dimensions: vec![2, 3],
    ///     is_dynamic_dimension: vec![false, false],
    ///     layout: Some(Box::new(LayoutBuilder::new(&[0, 1]).padded_dimensions(vec![3, 5]).build())),
    ///     ..Default::default()
    /// };
    /// assert_eq!(StridedView::from_xla_shape(&shape)?.strides(), [1, 3]);
    /// # Ok::<(), stride_util::ViewError>(())
    /// ```
    pub fn from_xla_shape(shape: &Shape) -> Result<Self, ViewError> {
        if let Some(layout) = shape.layout.as_deref().filter(|l| !l.tiles.is_empty()) {
            return Err(ViewError::TiledLayout {
                layout: layout.to_string(),
            });
        }
        let strides = index_util::dimension_strides(shape)?;
        Self::new(&shape.dimensions, &strides, 0)
    }

    /// The XLA layout these strides describe: `minor_to_major` orders the
    /// dimensions by stride (a size-1 dimension just inside the dimension
    /// whose stride it shares, ties in descending dimension order as XLA's
    /// default layout), and when the strides leave gaps, `padded_dimensions`
    /// gives each dimension's padded extent (the next stride divided by its
    /// own; the most major dimension is not padded). The padding value is
    /// left unset. Sizes and strides of size-1 dimensions do not constrain
    /// the layout, but a size-1 dimension inside all others may be padded
    /// to give the most minor of them a stride above 1. The padding of the
    /// most major dimension (which only changes the buffer size) cannot be
    /// seen in strides.
    ///
    /// # Errors
    ///
    /// [`ViewError::NotAnXlaLayout`] if the offset is not 0 (for a view
    /// with an offset, [`to_xla_layout_and_offset`](Self::to_xla_layout_and_offset)), a stride is
    /// not positive, the most minor stride is not 1 (and no size-1
    /// dimension is inside it), a stride is not a multiple of the next
    /// smaller one at least its size apart, or the padded extents multiply
    /// to more than `i64::MAX` elements.
    ///
    /// ```
    /// use stride_util::StridedView;
    ///
    /// let column_major = StridedView::column_major(&[2, 3, 4])?;
    /// assert_eq!(column_major.to_xla_layout()?.minor_to_major, [0, 1, 2]);
    /// // Padded rows: width 3, height stride 5.
    /// let padded = StridedView::from_dml(&[2, 3], Some(&[5, 1]))?.to_xla_layout()?;
    /// assert_eq!((padded.minor_to_major, padded.padded_dimensions), (vec![1, 0], vec![2, 5]));
    /// // A size-1 dimension padded to 2 inside a dimension of stride 2.
    /// let inside = StridedView::new(&[1, 2], &[1, 2], 0)?.to_xla_layout()?;
    /// assert_eq!((inside.minor_to_major, inside.padded_dimensions), (vec![0, 1], vec![2, 2]));
    /// # Ok::<(), stride_util::ViewError>(())
    /// ```
    pub fn to_xla_layout(&self) -> Result<Layout, ViewError> {
        if self.offset() != 0 {
            return Err(ViewError::NotAnXlaLayout {
                shape: numpy_tuple(self.sizes()),
                strides: numpy_tuple(self.strides()),
                reason: format!(
                    "offset {} is not 0 (see to_xla_layout_and_offset)",
                    self.offset()
                ),
            });
        }
        self.layout_of_strides()
    }

    /// The XLA layout of the view's strides and the view's offset in
    /// elements: an array at that offset of a buffer (as a DLPack tensor's
    /// `byte_offset`, or a view into a larger array) is laid out as the
    /// layout says from there.
    ///
    /// # Errors
    ///
    /// Those of [`to_xla_layout`](Self::to_xla_layout) but the offset's.
    ///
    /// ```
    /// use stride_util::StridedView;
    ///
    /// // Rows 2.. of a row-major 4×6 array: the layout {1,0} from element 12.
    /// let rows = StridedView::new(&[2, 6], &[6, 1], 12)?;
    /// let (layout, offset) = rows.to_xla_layout_and_offset()?;
    /// assert_eq!((layout.minor_to_major, offset), (vec![1, 0], 12));
    /// # Ok::<(), stride_util::ViewError>(())
    /// ```
    pub fn to_xla_layout_and_offset(&self) -> Result<(Layout, i64), ViewError> {
        Ok((self.layout_of_strides()?, self.offset()))
    }

    /// [`to_xla_layout`](Self::to_xla_layout) whatever the offset.
    fn layout_of_strides(&self) -> Result<Layout, ViewError> {
        let fail = |reason: String| ViewError::NotAnXlaLayout {
            shape: numpy_tuple(self.sizes()),
            strides: numpy_tuple(self.strides()),
            reason,
        };
        let ndim = self.ndim();
        let mut order: Vec<usize> = (0..ndim).collect();
        order.sort_by_key(|&d| {
            (
                self.strides()[d],
                self.sizes()[d] != 1,
                std::cmp::Reverse(d),
            )
        });
        let mut padded = self.sizes().to_vec();
        let mut previous: Option<usize> = None;
        // The last size-1 dimension seen before any other: padding it can
        // give the most minor other dimension a stride above 1.
        let mut size_one_inside: Option<usize> = None;
        for &d in &order {
            let (size, stride) = (self.sizes()[d], self.strides()[d]);
            if size == 1 {
                if previous.is_none() {
                    size_one_inside = Some(d);
                }
                continue;
            }
            if stride <= 0 {
                return Err(fail(format!("dimension {d} has stride {stride}")));
            }
            match previous {
                None if stride != 1 => match size_one_inside {
                    Some(one) => padded[one] = stride,
                    None => {
                        return Err(fail(format!(
                            "the most minor dimension {d} has stride {stride}, not 1"
                        )));
                    }
                },
                None => {}
                Some(p) => {
                    let inner = self.strides()[p];
                    let extent = stride / inner;
                    if stride % inner != 0 || extent < self.sizes()[p] {
                        return Err(fail(format!(
                            "stride {stride} of dimension {d} is not a multiple of stride {inner} of dimension {p} at least {} apart",
                            self.sizes()[p]
                        )));
                    }
                    padded[p] = extent;
                }
            }
            previous = Some(d);
        }
        let minor_to_major: Vec<i64> = order
            .iter()
            .map(|&d| i64::try_from(d).unwrap_or(i64::MAX))
            .collect();
        if padded
            .iter()
            .try_fold(1_i64, |n, &d| n.checked_mul(d))
            .is_none()
        {
            return Err(fail(format!(
                "the padded buffer {} has more than i64::MAX elements",
                numpy_tuple(&padded)
            )));
        }
        let mut builder = LayoutBuilder::new(&minor_to_major);
        if padded != self.sizes() {
            builder = builder.padded_dimensions(padded);
        }
        Ok(builder.build())
    }

    /// DirectML's packed NCHW (or NCDHW) tensor: `sizes` padded with leading
    /// 1s to 4 dimensions (5 if given 5), row-major strides.
    ///
    /// # Errors
    ///
    /// [`ViewError::DmlRank`] for more than 5 sizes, and as
    /// [`StridedView::row_major`].
    ///
    /// ```
    /// // A 3×5 tensor as DirectML sees it: sizes {1,1,3,5}.
    /// let nchw = stride_util::StridedView::nchw(&[3, 5])?;
    /// assert_eq!(nchw.sizes(), [1, 1, 3, 5]);
    /// assert_eq!(nchw.strides(), [15, 15, 5, 1]);
    /// # Ok::<(), stride_util::ViewError>(())
    /// ```
    pub fn nchw(sizes: &[i64]) -> Result<Self, ViewError> {
        Self::row_major(&dml_sizes(sizes)?)
    }

    /// DirectML's packed NHWC (or NDHWC) tensor: logical sizes in NCHW
    /// (NCDHW) order, padded with leading 1s as [`StridedView::nchw`],
    /// stored with the channels innermost.
    ///
    /// # Errors
    ///
    /// As [`StridedView::nchw`].
    ///
    /// ```
    /// // DirectML's table: sizes {1,1,3,5}, NHWC strides {15,1,5,1}.
    /// let nhwc = stride_util::StridedView::nhwc(&[1, 1, 3, 5])?;
    /// assert_eq!(nhwc.strides(), [15, 1, 5, 1]);
    /// # Ok::<(), stride_util::ViewError>(())
    /// ```
    pub fn nhwc(sizes: &[i64]) -> Result<Self, ViewError> {
        let sizes = dml_sizes(sizes)?;
        // Physical order N, spatial dimensions..., C: move C last.
        let rank = i64::try_from(sizes.len()).unwrap_or(4);
        let mut physical = sizes.clone();
        let channels = physical.remove(1);
        physical.push(channels);
        Self::row_major(&physical)?.moveaxis(&[rank - 1], &[1])
    }
}

/// `sizes` padded with leading 1s to DirectML's 4 dimensions (5 if there
/// are 5).
///
/// # Errors
///
/// [`ViewError::DmlRank`] for more than 5 sizes.
///
/// ```
/// assert_eq!(stride_util::dml_sizes(&[3, 5])?, [1, 1, 3, 5]);
/// assert_eq!(stride_util::dml_sizes(&[2, 3, 4, 5, 6])?, [2, 3, 4, 5, 6]);
/// # Ok::<(), stride_util::ViewError>(())
/// ```
pub fn dml_sizes(sizes: &[i64]) -> Result<Vec<i64>, ViewError> {
    let target: usize = if sizes.len() == 5 { 5 } else { 4 };
    let Some(missing) = target.checked_sub(sizes.len()) else {
        return Err(ViewError::DmlRank {
            rank: sizes.len(),
            target,
        });
    };
    let mut padded = vec![1; missing];
    padded.extend_from_slice(sizes);
    Ok(padded)
}
