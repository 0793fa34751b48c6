//! Relayout between XLA array shapes: element sizes from the type or the
//! layout's `E(n)`, views from the layouts, destination padding filled.

use schema::{PrimitiveType, Shape};

use super::padding::fill_padding_except_row_tails;
use super::{RelayoutError, fill_padding, padding_pattern, relayout_bits, relayout_with_tail};
use stride_util::StridedView;
use stride_util::ViewError;

/// The size in bits of one element of `shape` as stored: the layout's
/// `element_size_in_bits` when set, else the type's byte width × 8.
pub(crate) fn element_bits(shape: &Shape) -> Result<u32, RelayoutError> {
    let ty = PrimitiveType::try_from(shape.element_type).unwrap_or(PrimitiveType::Invalid);
    let declared = shape
        .layout
        .as_deref()
        .map_or(0, |layout| layout.element_size_in_bits);
    let bits = if declared != 0 {
        declared
    } else {
        ty.byte_width().filter(|_| ty.is_array_type()).unwrap_or(0) * 8
    };
    match u32::try_from(bits) {
        Ok(b @ (1 | 2 | 4)) => Ok(b),
        Ok(b) if b > 0 && b % 8 == 0 && i64::from(b / 8) == ty.byte_width().unwrap_or(0) => Ok(b),
        _ => Err(RelayoutError::ElementSize {
            bits: bits.unsigned_abs(),
        }),
    }
}

/// How many elements of `bits` fit in `bytes`.
pub(crate) fn capacity_in_elements(bytes: usize, bits: u32) -> i64 {
    let total_bits = u128::try_from(bytes).unwrap_or(u128::MAX) * 8;
    i64::try_from(total_bits / u128::from(bits.max(1))).unwrap_or(i64::MAX)
}

/// Copies the array `src` laid out as `src_shape` into `dst` laid out as
/// `dst_shape` (same element type and dimensions, any layouts with or
/// without padding or tiles), then fills the destination's padding with
/// its layout's padding value (see [`super::padding_pattern`]); tile
/// padding is written with zeros. A tiled buffer is XLA's allocation
/// ([`index_util::TiledLayout::buffer_size_in_bytes`], which is
/// `shape_util::array_size`) with the element order of XLA's tiled-layout
/// document: tilings are copied as strided pieces (see `tiled.rs`), and
/// those with a combined `*` dimension element by element from
/// [`index_util::TiledLayout`]'s index function (correct, but slower).
///
/// # Errors
///
/// [`RelayoutError::ShapeMismatch`] if the types or dimensions differ,
/// [`RelayoutError::View`] for a shape that is not an array layout (not
/// an array, no layout, invalid),
/// [`RelayoutError::UnsupportedLayout`] for tiles it cannot lay out (those
/// [`index_util::TiledLayout::new`] refuses: classic padding or split
/// configs with tiles, later tiles that pad beyond XLA's allocation; and
/// tilings into more than 64 dimensions), [`RelayoutError::BufferTooSmall`] for a tiled
/// side's buffer shorter than its size,
/// [`RelayoutError::ElementSize`] if the element sizes differ or are not
/// supported (except a sub-byte type stored one element per byte on one
/// side and packed in `E(n)` of its own width on the other, as XLA's
/// literals and device buffers hold it: that is packed or unpacked), and
/// the errors of
/// [`super::relayout`] and [`fill_padding`].
///
/// ```
/// use layout_util::LayoutBuilder;
/// use schema::{PaddingValue, PrimitiveType, Shape};
///
/// let shape = |minor_to_major: &[i64], padded: Vec<i64>| Shape {
///     element_type: PrimitiveType::U8 as i32,
///     dimensions: vec![2, 3],
///     is_dynamic_dimension: vec![false, false],
///     layout: Some(Box::new(
///         LayoutBuilder::new(minor_to_major)
///             .padded_dimensions(padded)
///             .padding_value(PaddingValue::ZeroPad)
///             .build(),
///     )),
///     ..Default::default()
/// };
/// // Row-major {1,0} into column-major {0,1} with dim 0 padded to 3.
/// let src = *b"ABCDEF";
/// let mut dst = [b'?'; 9];
/// relayout::relayout_xla(&src, &shape(&[1, 0], vec![]), &mut dst, &shape(&[0, 1], vec![3, 3]))?;
/// assert_eq!(&dst, b"AD\0BE\0CF\0");
/// # Ok::<(), relayout::RelayoutError>(())
/// ```
pub fn relayout_xla(
    src: &[u8],
    src_shape: &Shape,
    dst: &mut [u8],
    dst_shape: &Shape,
) -> Result<(), RelayoutError> {
    if src_shape.element_type != dst_shape.element_type
        || src_shape.dimensions != dst_shape.dimensions
    {
        return Err(RelayoutError::ShapeMismatch {
            source_shape: src_shape.human_string(),
            destination_shape: dst_shape.human_string(),
        });
    }
    if let Some(bits) = super::repack::packed_width(src_shape, dst_shape) {
        return super::repack::relayout_repacking(src, src_shape, dst, dst_shape, bits);
    }
    if [src_shape, dst_shape]
        .iter()
        .any(|s| s.layout.as_ref().is_some_and(|l| !l.tiles.is_empty()))
    {
        return super::tiled_xla::relayout_tiled(src, src_shape, dst, dst_shape);
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
    if dst_bits < 8 {
        relayout_bits(src, &src_view, dst, &dst_view, dst_bits)?;
        return fill_padding(dst, dst_shape);
    }
    let row_tail = row_tail(dst_shape)?;
    let tail = row_tail
        .as_ref()
        .map(|(element, row, count)| (element.as_slice(), *row, *count));
    let element_size = usize::try_from(dst_bits / 8).unwrap_or(0);
    let wrote_tails = relayout_with_tail(src, &src_view, dst, &dst_view, element_size, tail, None)?;
    fill_padding_except_row_tails(dst, dst_shape, wrote_tails)
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
