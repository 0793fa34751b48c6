//! Relayout between a strided view (strides of either sign, an offset) and
//! an XLA layout, in one plan: an untiled layout as a view of its own (the
//! engine takes any two views), a view whose strides are an XLA layout as
//! the XLA relayout between the two layouts (from the view's offset), and
//! any other view into or out of tiles through the tiled machinery, with
//! the view as its untiled side: in one pass through the tiles where the
//! view's physical order (its strides, largest first) is the tiles' or a
//! tile transpose takes it, else composed through cache-sized
//! intermediates (see `view_tiled.rs` and `composed.rs`).

use schema::Shape;
use stride_util::{StridedView, numpy_tuple};

use super::RelayoutError;
use super::bits::element_bits;
use super::relayout_plan::{FromTo, Path, RelayoutPlan, check_pair};
use super::view_tiled::ViewTiled;

impl RelayoutPlan {
    /// The plan of copying every element of the view `sides.from` (any
    /// strides, negative ones included, and any offset) into the same
    /// logical position of the XLA layout `sides.to` (padded, tiled or
    /// plain), in one plan: elements are `element_size` bytes, the size of
    /// the shape's elements. Each run fills the destination's padding as
    /// [`RelayoutPlan::xla`] does (its layout's padding value; tile padding
    /// with zeros).
    ///
    /// A view whose strides are an unpadded XLA layout
    /// ([`StridedView::to_xla_layout_and_offset`]) is relaid as that
    /// layout from its offset ([`RelayoutPlan::xla`]); an untiled
    /// destination is a view of its own (the engine takes any two views).
    /// Other views go into tiles piece by piece as an XLA layout's would:
    /// in one pass where the view's physical order (its dimensions from
    /// the largest stride to the smallest, signs aside) is the tiled
    /// layout's, or a tile transpose takes it; otherwise through
    /// intermediates of at most 512 KiB per thread, kept between runs
    /// ([`Strategy::Composed`](crate::Strategy::Composed)): no full-size intermediate is made.
    ///
    /// # Errors
    ///
    /// [`RelayoutError::ShapeMismatch`] if the view's sizes are not the
    /// shape's dimensions, [`RelayoutError::ElementSize`] for
    /// `element_size` 0 or a shape without an element size,
    /// [`RelayoutError::ViewElementSize`] if `element_size` is not the
    /// size of the shape's elements (packed sub-byte layouts included),
    /// [`RelayoutError::UnsupportedLayout`] for tiles that combine
    /// dimensions (`*`) and the tilings [`RelayoutPlan::xla`] refuses, and
    /// those of [`RelayoutPlan::xla`].
    ///
    /// ```
    /// use relayout::{FromTo, RelayoutError, RelayoutPlan, StridedView};
    /// use schema::Shape;
    ///
    /// // A 20×300 f32 array with its rows reversed (stride -300, from the
    /// // last row) into TPU's T(8,128) tiles: no XLA layout runs backwards.
    /// let values: Vec<f32> = (0..20 * 300).map(|v| v as f32).collect();
    /// let reversed = StridedView::row_major(&[20, 300])?.flip_axes(&[0])?;
    /// let tiles: Shape = "f32[20,300]{1,0:T(8,128)}".parse()?;
    /// let plan = RelayoutPlan::view_to_xla(FromTo { from: &reversed, to: &tiles }, 4)?;
    /// let mut tiled = vec![0.0_f32; 24 * 384];
    /// plan.run(&values, &mut tiled)?;
    /// // The first tile's first row: the last row's first 128 elements.
    /// assert_eq!(tiled[..128], values[19 * 300..19 * 300 + 128]);
    /// // And back into the reversed view.
    /// let back = RelayoutPlan::xla_to_view(FromTo { from: &tiles, to: &reversed }, 4)?;
    /// let mut again = vec![0.0_f32; values.len()];
    /// back.run(&tiled, &mut again)?;
    /// assert_eq!(again, values);
    /// // The element size is the shape's.
    /// let err = RelayoutPlan::view_to_xla(FromTo { from: &reversed, to: &tiles }, 2).unwrap_err();
    /// assert!(matches!(err, RelayoutError::ViewElementSize { element_size: 2, element_bits: 32, .. }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn view_to_xla(
        sides: FromTo<'_, StridedView, Shape>,
        element_size: usize,
    ) -> Result<Self, RelayoutError> {
        let FromTo {
            from: view,
            to: shape,
        } = sides;
        let bits = check_sides(view, shape, element_size, true)?;
        if !is_tiled(shape) {
            let to = StridedView::from_xla_shape(shape)?;
            return Self::strided_into(
                FromTo {
                    from: view,
                    to: &to,
                },
                shape,
                bits,
            );
        }
        if let Some((from, offset)) = as_xla_shape(view, shape) {
            let plan = Self::xla(FromTo {
                from: &from,
                to: shape,
            })?;
            return Ok(plan.shifted((offset, 0), element_size));
        }
        let plan = ViewTiled::new(view, shape, bits, true)?;
        Ok(Self {
            path: Path::ViewTiled(Box::new(plan)),
        })
    }

    /// The reverse of [`RelayoutPlan::view_to_xla`]: every element of the
    /// XLA layout `sides.from` into the same logical position of the view
    /// `sides.to` (any strides and offset, writing each element once);
    /// bytes of the destination buffer the view does not address are left
    /// untouched. Chosen as there (the view as an XLA layout where its
    /// strides are one, one pass out of the tiles where the orders agree,
    /// else intermediates of at most 512 KiB per thread); a destination
    /// view that is no XLA layout is written on the calling thread when
    /// the plan composes.
    ///
    /// # Errors
    ///
    /// Those of [`RelayoutPlan::view_to_xla`], and
    /// [`RelayoutError::OverlappingDestination`] if the view addresses an
    /// element twice.
    ///
    /// ```
    /// use relayout::{FromTo, RelayoutPlan, StridedView};
    /// use schema::Shape;
    ///
    /// // bf16 tiles out into a column-major view with its columns reversed.
    /// let rows: Shape = "bf16[16,256]{1,0}".parse()?;
    /// let tiles: Shape = "bf16[16,256]{1,0:T(8,128)(2,1)}".parse()?;
    /// let values: Vec<u16> = (0..16 * 256).map(|v| v as u16).collect();
    /// let mut tiled = vec![0_u16; values.len()];
    /// RelayoutPlan::xla(FromTo { from: &rows, to: &tiles })?.run(&values, &mut tiled)?;
    /// let view = StridedView::column_major(&[16, 256])?.flip_axes(&[1])?;
    /// let out = RelayoutPlan::xla_to_view(FromTo { from: &tiles, to: &view }, 2)?;
    /// let mut dst = vec![0_u16; values.len()];
    /// out.run(&tiled, &mut dst)?;
    /// // The last column comes first: element (3, 255) is at position 3.
    /// assert_eq!(dst[3], values[3 * 256 + 255]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn xla_to_view(
        sides: FromTo<'_, Shape, StridedView>,
        element_size: usize,
    ) -> Result<Self, RelayoutError> {
        let FromTo {
            from: shape,
            to: view,
        } = sides;
        let bits = check_sides(view, shape, element_size, false)?;
        if !is_tiled(shape) {
            let from = StridedView::from_xla_shape(shape)?;
            let views = FromTo {
                from: &from,
                to: view,
            };
            check_pair(views)?;
            return Ok(Self::checked(views, element_size, None));
        }
        if view.has_overlap()? {
            return Err(RelayoutError::OverlappingDestination {
                shape: numpy_tuple(view.sizes()),
                strides: numpy_tuple(view.strides()),
            });
        }
        if let Some((to, offset)) = as_xla_shape(view, shape) {
            let plan = Self::xla(FromTo {
                from: shape,
                to: &to,
            })?;
            return Ok(plan.shifted((0, offset), element_size));
        }
        let plan = ViewTiled::new(view, shape, bits, false)?;
        Ok(Self {
            path: Path::ViewTiled(Box::new(plan)),
        })
    }

    /// This plan run on the buffers from elements `src` and `dst` (of
    /// `size` bytes) on.
    fn shifted(self, (src, dst): (usize, usize), size: usize) -> Self {
        if src == 0 && dst == 0 {
            return self;
        }
        Self {
            path: Path::Shifted {
                src,
                dst,
                size,
                plan: Box::new(self),
            },
        }
    }
}

/// Checks that `view` (the source if `view_is_source`) and `shape` hold
/// the same array, in elements of `element_size` bytes; the shape's
/// element size in bits.
fn check_sides(
    view: &StridedView,
    shape: &Shape,
    element_size: usize,
    view_is_source: bool,
) -> Result<u32, RelayoutError> {
    if element_size == 0 {
        return Err(RelayoutError::ElementSize { bits: 0 });
    }
    if view.sizes() != shape.dimensions.as_slice() {
        let (view_side, shape_side) = (numpy_tuple(view.sizes()), shape.human_string());
        let (source_shape, destination_shape) = if view_is_source {
            (view_side, shape_side)
        } else {
            (shape_side, view_side)
        };
        return Err(RelayoutError::ShapeMismatch {
            source_shape,
            destination_shape,
        });
    }
    let bits = element_bits(shape)?;
    if u64::from(bits) != (element_size as u64).saturating_mul(8) {
        return Err(RelayoutError::ViewElementSize {
            element_size,
            shape: Box::new(shape.clone()),
            element_bits: bits,
        });
    }
    Ok(bits)
}

/// Whether `shape`'s layout has tiles.
fn is_tiled(shape: &Shape) -> bool {
    shape.layout.as_deref().is_some_and(|l| !l.tiles.is_empty())
}

/// `shape` with the unpadded XLA layout of `view`'s strides, and the
/// view's offset, if its strides are one.
fn as_xla_shape(view: &StridedView, shape: &Shape) -> Option<(Shape, usize)> {
    let (layout, offset) = view.to_xla_layout_and_offset().ok()?;
    if !layout.padded_dimensions.is_empty() {
        return None;
    }
    let offset = usize::try_from(offset).ok()?;
    let shape = Shape {
        layout: Some(Box::new(layout)),
        ..shape.clone()
    };
    Some((shape, offset))
}
