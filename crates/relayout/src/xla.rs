//! The XLA relayout path: the dispatcher that plans a relayout between
//! two XLA array shapes over its sub-paths (strided views with the
//! destination's padding filled, packed sub-byte views, tiled layouts,
//! repacking one-byte-per-element sub-byte types), none of which calls
//! back into it.

use schema::{PrimitiveType, Shape};
use stride_util::{StridedView, ViewError};

use super::bits::element_bits;
use super::nibbles::Nibbles;
use super::quads::Quads;
use super::relayout_plan::{FromTo, Padding, Path, RelayoutPlan, check_pair};
use super::repack::{Repack, packed_width};
use super::tile_rows;
use super::tiled_xla::TiledPlan;
use super::{RelayoutError, padding_pattern};

impl RelayoutPlan {
    /// The plan of copying the array laid out as `shapes.from` into the
    /// layout `shapes.to` (same element type and dimensions, any layouts
    /// with or without padding or tiles); each run then fills the
    /// destination's padding with its layout's padding value (see
    /// [`padding_pattern`](crate::padding_pattern)); tile padding is
    /// written with zeros. A tiled buffer is XLA's allocation
    /// ([`index_util::TiledLayout::buffer_size_in_bytes`], which is
    /// `shape_util::array_size`) with the element order of XLA's
    /// tiled-layout document: tilings are copied as strided pieces (see
    /// `tiled.rs`), and those with a combined `*` dimension element by
    /// element from [`index_util::TiledLayout`]'s index function (correct,
    /// but slower).
    ///
    /// # Errors
    ///
    /// [`RelayoutError::ShapeMismatch`] if the types or dimensions differ,
    /// [`RelayoutError::View`] for a shape that is not an array layout (not
    /// an array, no layout, invalid), [`RelayoutError::UnsupportedLayout`]
    /// for tiles it cannot lay out (those [`index_util::TiledLayout::new`]
    /// refuses: classic padding or split configs with tiles, later tiles
    /// that pad beyond XLA's allocation; and tilings into more than 64
    /// dimensions), [`RelayoutError::ElementSize`] if the element sizes
    /// differ or are not supported (except a sub-byte type stored one
    /// element per byte on one side and packed in `E(n)` of its own width
    /// on the other, as XLA's literals and device buffers hold it: that is
    /// packed or unpacked), [`RelayoutError::NoPaddingValue`], and those of
    /// [`RelayoutPlan::new`].
    ///
    /// ```
    /// use relayout::{FromTo, RelayoutPlan};
    /// use schema::Shape;
    ///
    /// // Row-major into column-major with dim 0 padded to 3 (zeros).
    /// let from: Shape = "u8[2,3]{1,0}".parse()?;
    /// let mut to: Shape = "u8[2,3]{0,1}".parse()?;
    /// if let Some(layout) = to.layout.as_deref_mut() {
    ///     layout.padded_dimensions = vec![3, 3];
    ///     layout.padding_value = schema::PaddingValue::ZeroPad as i32;
    /// }
    /// let plan = RelayoutPlan::xla(FromTo { from: &from, to: &to })?;
    /// let mut dst = [b'?'; 9];
    /// plan.run(b"ABCDEF", &mut dst)?;
    /// assert_eq!(&dst, b"AD\0BE\0CF\0");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn xla(shapes: FromTo<'_, Shape>) -> Result<Self, RelayoutError> {
        let FromTo {
            from: src_shape,
            to: dst_shape,
        } = shapes;
        if !same_array(src_shape, dst_shape) {
            return Err(RelayoutError::ShapeMismatch {
                source_shape: src_shape.human_string(),
                destination_shape: dst_shape.human_string(),
            });
        }
        if let Some(bits) = packed_width(src_shape, dst_shape) {
            let repack = Repack::new(src_shape, dst_shape, bits)?;
            let (from, to) = repack.middle(src_shape, dst_shape);
            let middle = Self::xla(FromTo { from, to })?;
            return Ok(Self {
                path: Path::Repack {
                    repack: Box::new(repack),
                    middle: Box::new(middle),
                },
            });
        }
        if let Some(nibbles) = Nibbles::new(src_shape, dst_shape)? {
            // A byte relayout it cannot plan leaves the element paths.
            let relay = match nibbles.relayed() {
                Some((from, to)) => Self::xla(FromTo { from, to }).ok().map(Box::new),
                None => None,
            };
            if relay.is_some() || nibbles.relayed().is_none() {
                return Ok(Self {
                    path: Path::Nibbles {
                        nibbles: Box::new(nibbles),
                        relay,
                    },
                });
            }
        }
        if let Some(quads) = Quads::new(src_shape, dst_shape)? {
            return Ok(Self {
                path: Path::Quads(Box::new(quads)),
            });
        }
        let tiled = |s: &Shape| s.layout.as_ref().is_some_and(|l| !l.tiles.is_empty());
        if !tiled(dst_shape)
            && let Some(untiled) = tile_rows::as_padded(src_shape)
        {
            // Tiles as wide as their rows: a strided relayout.
            return Self::xla(FromTo {
                from: &untiled,
                to: dst_shape,
            });
        }
        if tiled(src_shape) || tiled(dst_shape) {
            let tiled = TiledPlan::new(src_shape, dst_shape)?;
            return Ok(Self {
                path: Path::Tiled(Box::new(tiled)),
            });
        }
        // The views first: a shape that is not an array has no element size.
        let src_view = StridedView::from_xla_shape(src_shape)?;
        let dst_view = StridedView::from_xla_shape(dst_shape)?;
        let (src_bits, dst_bits) = (element_bits(src_shape)?, element_bits(dst_shape)?);
        if src_bits != dst_bits {
            return Err(RelayoutError::ElementSize {
                bits: u64::from(dst_bits),
            });
        }
        let views = FromTo {
            from: &src_view,
            to: &dst_view,
        };
        Self::strided_into(views, dst_shape, dst_bits)
    }

    /// The plan between two views, `views.to` that of the untiled XLA
    /// layout `dst_shape` with elements of `dst_bits`, whose padding each
    /// run fills.
    pub(crate) fn strided_into(
        views: FromTo<'_, StridedView>,
        dst_shape: &Shape,
        dst_bits: u32,
    ) -> Result<Self, RelayoutError> {
        check_pair(views)?;
        let padded = layout_util::is_padded(dst_shape).then(|| dst_shape.clone());
        if dst_bits < 8 {
            return Ok(Self::packed(views, dst_bits, padded));
        }
        let padding = match padded {
            Some(shape) => Some(Padding {
                row_tail: row_tail(&shape)?,
                shape,
            }),
            None => None,
        };
        let element_size = usize::try_from(dst_bits / 8).unwrap_or(0);
        Ok(Self::checked(views, element_size, padding))
    }
}

/// Whether two XLA shapes hold the same array, whatever their layouts:
/// the same element type and the same dimensions (what a relayout between
/// them needs).
///
/// ```
/// let shape = |text: &str| -> schema::Shape { text.parse().unwrap() };
/// assert!(relayout::same_array(&shape("f32[2,3]{1,0}"), &shape("f32[2,3]{0,1:T(2,2)}")));
/// assert!(!relayout::same_array(&shape("f32[2,3]{1,0}"), &shape("f32[3,2]{1,0}")));
/// assert!(!relayout::same_array(&shape("f32[2,3]{1,0}"), &shape("s32[2,3]{1,0}")));
/// ```
pub fn same_array(a: &Shape, b: &Shape) -> bool {
    a.element_type == b.element_type && a.dimensions == b.dimensions
}

/// The padding after each row of the most minor dimension of a padded
/// layout: `(padding element, row size, padding count)`, if any is written.
fn row_tail(shape: &Shape) -> Result<Option<(Vec<u8>, i64, i64)>, RelayoutError> {
    let Some(layout) = shape
        .layout
        .as_deref()
        .filter(|_| layout_util::is_padded(shape))
    else {
        return Ok(None);
    };
    let padded = layout_util::padded_dimensions(shape)
        .map_err(|e| ViewError::from(index_util::IndexError::from(e)))?;
    let value = layout_util::padding_value(layout)
        .map_err(|e| ViewError::from(index_util::IndexError::from(e)))?;
    let ty = PrimitiveType::try_from(shape.element_type).unwrap_or(PrimitiveType::Invalid);
    let Some(element) = padding_pattern(ty, value)? else {
        return Ok(None);
    };
    let minor = layout
        .minor_to_major
        .first()
        .and_then(|&d| usize::try_from(d).ok());
    Ok(minor.and_then(|d| {
        let (size, extent) = (*shape.dimensions.get(d)?, *padded.get(d)?);
        (extent > size).then_some((element, size, extent - size))
    }))
}
