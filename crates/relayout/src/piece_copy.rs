//! The copies that the tiled paths are made of: one strided piece between
//! views inside their buffers, a tiled buffer's padding zeroed, and the
//! bytes of packed elements.

use schema::Shape;
use stride_util::{StridedView, ViewError};

use super::bits::capacity_in_elements;
use super::plan::Plan;
use super::tiled::Tiling;
use super::{RelayoutError, check_buffer, copy_planned, elements_in, interleave, sub_byte};

/// The bytes of `elements` elements of `bits` each, packed.
pub(crate) fn bytes_of(shape: &Shape, elements: i64, bits: u32) -> Result<usize, RelayoutError> {
    i128::from(elements)
        .checked_mul(i128::from(bits))
        .map(|total| (total + 7) / 8)
        .and_then(|bytes| usize::try_from(bytes).ok())
        .ok_or_else(|| {
            RelayoutError::View(ViewError::Overflow {
                what: "the buffer size in bytes",
                of: shape.human_string_with_layout(),
            })
        })
}

/// Zeroes the tiled buffer `dst` of `elements` elements of `bits` if some
/// of its bits are padding.
pub(crate) fn zero_padding(dst: &mut [u8], to: &Tiling, elements: i64, bits: u32) {
    if has_padding(dst, to, elements, bits) {
        dst.fill(0);
    }
}

/// Whether some bits of the tiled buffer `dst` of `elements` elements of
/// `bits` are padding (tile, tail or last-byte padding).
pub(crate) fn has_padding(dst: &[u8], to: &Tiling, elements: i64, bits: u32) -> bool {
    let exact = i128::try_from(dst.len()).unwrap_or(i128::MAX) * 8
        == i128::from(elements) * i128::from(bits);
    to.has_padding() || !exact
}

/// One piece of a composed relayout between views the caller built inside
/// their buffers, writing distinct elements: the interleaving kernel where
/// it applies, else the engine's kernels, storing as for a copy of
/// `whole_bytes` (streaming where that is large), or the sub-byte element
/// loop. Only the bounds are checked.
pub(crate) fn copy_piece(
    src: &[u8],
    src_view: &StridedView,
    dst: &mut [u8],
    dst_view: &StridedView,
    bits: u32,
    whole_bytes: u64,
) -> Result<(), RelayoutError> {
    if interleave::try_copy_part(src, src_view, dst, dst_view, bits, Some(whole_bytes))? {
        return Ok(());
    }
    if bits < 8 {
        check_buffer("source", src_view, capacity_in_elements(src.len(), bits))?;
        check_buffer(
            "destination",
            dst_view,
            capacity_in_elements(dst.len(), bits),
        )?;
        sub_byte::copy(src, src_view, dst, dst_view, bits);
        return Ok(());
    }
    let size = usize::try_from(bits / 8).unwrap_or(1);
    check_buffer("source", src_view, elements_in(src.len(), size))?;
    check_buffer("destination", dst_view, elements_in(dst.len(), size))?;
    if !src_view.is_empty() {
        let plan = Plan::new(src_view, dst_view);
        copy_planned(
            &plan,
            (src, src_view),
            (dst, dst_view),
            size,
            None,
            Some(whole_bytes),
        );
    }
    Ok(())
}
