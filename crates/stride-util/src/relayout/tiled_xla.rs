//! Relayout to, from and between tiled XLA layouts, piece by piece (see
//! `tiled.rs`), and the buffer size of any XLA array layout.

use index_util::PhysicalLayout;
use schema::Shape;

use super::interleave;
use super::tiled::{Slab, Tiling};
use super::xla::element_bits;
use super::{RelayoutError, fill_padding, relayout_bits};
use crate::error::ViewError;
use crate::view::StridedView;

/// The number of bytes of a buffer of the XLA array `shape`: for a tiled
/// layout what XLA allocates (`ShapeUtil::ArraySize`: the most minor
/// dimensions rounded up to the first tile, then to the layout's tail
/// padding alignment), otherwise the (classically padded) elements; packed
/// `E(n)` elements in `⌈elements · n / 8⌉` bytes. This is the length
/// [`relayout_xla`](crate::relayout_xla) reads and writes.
///
/// # Errors
///
/// As [`index_util::PhysicalLayout::new`] (not an array, no or an invalid
/// layout); [`RelayoutError::ElementSize`];
/// [`RelayoutError::UnsupportedLayout`] for tiles this crate cannot lay out
/// (a combined `*` dimension, classic padding or split configs with
/// tiles, or later tiles that pad beyond the first tile's allocation,
/// which XLA assumes they never do); [`ViewError::Overflow`].
///
/// ```
/// // XLA's figure: 3×5 in 2×2 tiles is 2×3 tiles of 4 elements.
/// assert_eq!(stride_util::buffer_bytes(&"f32[3,5]{1,0:T(2,2)}".parse()?)?, 96);
/// assert_eq!(stride_util::buffer_bytes(&"bf16[10,200]{1,0:T(8,128)(2,1)}".parse()?)?, 8192);
/// assert_eq!(stride_util::buffer_bytes(&"s4[5]{0:E(4)}".parse()?)?, 3);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
// To be replaced by shape-util's ArraySize (issue 13, sizes) when it lands.
pub fn buffer_bytes(shape: &Shape) -> Result<usize, RelayoutError> {
    let tiling = Tiling::new(shape)?;
    let elements = match &tiling {
        Some(tiling) => tiled_elements(shape, tiling)?,
        None => PhysicalLayout::new(shape)
            .map_err(ViewError::from)?
            .padded_element_count(),
    };
    bytes_of(shape, elements, element_bits(shape)?)
}

/// The bytes of `elements` elements of `bits` each, packed.
fn bytes_of(shape: &Shape, elements: i64, bits: u32) -> Result<usize, RelayoutError> {
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

/// XLA's allocation in elements for a tiled `shape`: the first tile's
/// rounding, the tail padding alignment; an error if later tiles address
/// positions beyond it.
// To be replaced by shape-util's ArraySize (issue 13, sizes) when it lands.
fn tiled_elements(shape: &Shape, tiling: &Tiling) -> Result<i64, RelayoutError> {
    let overflow = || {
        RelayoutError::View(ViewError::Overflow {
            what: "the tiled buffer",
            of: shape.human_string_with_layout(),
        })
    };
    let layout = shape.layout.as_deref();
    let first = layout
        .and_then(|l| l.tiles.first())
        .map_or(&[][..], |t| &t.dimensions[..]);
    let minor_to_major = layout.map_or(&[][..], |l| &l.minor_to_major[..]);
    let dimension = |k: usize| {
        minor_to_major
            .get(k)
            .and_then(|&d| usize::try_from(d).ok())
            .and_then(|d| shape.dimensions.get(d).copied())
    };
    let mut elements: i64 = 1;
    for k in 0..first.len().max(minor_to_major.len()) {
        let size = dimension(k).unwrap_or(1);
        let size = match first.len().checked_sub(k + 1).map(|i| first[i]) {
            Some(t) => round_up(size, t).ok_or_else(overflow)?,
            None => size,
        };
        elements = elements.checked_mul(size).ok_or_else(overflow)?;
    }
    let alignment = layout.map_or(1, |l| l.tail_padding_alignment_in_elements.max(1));
    let elements = round_up(elements, alignment).ok_or_else(overflow)?;
    if tiling.positions() > elements {
        return Err(RelayoutError::UnsupportedLayout {
            shape: shape.human_string_with_layout(),
            reason: format!(
                "its later tiles address {} positions but XLA allocates {elements} (by the first tile only)",
                tiling.positions()
            ),
        });
    }
    Ok(elements)
}

/// `value` rounded up to a multiple of `to` (positive), if it fits.
fn round_up(value: i64, to: i64) -> Option<i64> {
    let rest = value.checked_rem(to)?;
    if rest == 0 {
        Some(value)
    } else {
        value.checked_add(to - rest)
    }
}

/// [`relayout_xla`](crate::relayout_xla) when either side is tiled (the
/// types and dimensions were checked equal).
pub(crate) fn relayout_tiled(
    src: &[u8],
    src_shape: &Shape,
    dst: &mut [u8],
    dst_shape: &Shape,
) -> Result<(), RelayoutError> {
    let (src_tiling, dst_tiling) = (Tiling::new(src_shape)?, Tiling::new(dst_shape)?);
    let bits = element_bits(src_shape)?;
    if element_bits(dst_shape)? != bits {
        return Err(RelayoutError::ElementSize {
            bits: u64::from(element_bits(dst_shape)?),
        });
    }
    let src_bytes = buffer_bytes(src_shape)?;
    let dst_bytes = buffer_bytes(dst_shape)?;
    for (side, shape, need, len) in [
        ("source", src_shape, src_bytes, src.len()),
        ("destination", dst_shape, dst_bytes, dst.len()),
    ] {
        if len < need {
            return Err(RelayoutError::BufferTooSmall {
                side,
                shape: shape.human_string_with_layout(),
                expected: need,
                actual: len,
            });
        }
    }
    let (src, dst) = (&src[..src_bytes], &mut dst[..dst_bytes]);
    match (src_tiling, dst_tiling) {
        (Some(from), None) => {
            let dst_view = StridedView::from_xla_shape(dst_shape)?;
            for (logical, tiled) in from.pieces(src_shape, &dst_view, None)? {
                copy(src, &tiled, dst, &logical, bits)?;
            }
            fill_padding(dst, dst_shape)
        }
        (None, Some(to)) => {
            let src_view = StridedView::from_xla_shape(src_shape)?;
            to_tiled(src, &src_view, dst, dst_shape, &to, bits)
        }
        (Some(from), Some(to)) => {
            // The same layout is one copy, unless the source's padding
            // (whatever it holds) would land on the destination's zeros.
            let elements = StridedView::row_major(&dst_shape.dimensions)?.num_elements();
            if src_shape.layout == dst_shape.layout && !has_padding(dst, &to, elements, bits) {
                dst.copy_from_slice(src);
                return Ok(());
            }
            between_tilings(src, src_shape, &from, dst, dst_shape, &to, bits)
        }
        (None, None) => super::relayout_xla(src, src_shape, dst, dst_shape),
    }
}

/// Copies the array `src_view` over `src` into the tiled buffer `dst`,
/// zeroing its padding first if it has any.
fn to_tiled(
    src: &[u8],
    src_view: &StridedView,
    dst: &mut [u8],
    dst_shape: &Shape,
    to: &Tiling,
    bits: u32,
) -> Result<(), RelayoutError> {
    zero_padding(dst, to, src_view.num_elements(), bits);
    for (logical, tiled) in to.pieces(dst_shape, src_view, None)? {
        copy(src, &logical, dst, &tiled, bits)?;
    }
    Ok(())
}

/// Zeroes the tiled buffer `dst` of `elements` elements of `bits` if some
/// of its bits are padding.
fn zero_padding(dst: &mut [u8], to: &Tiling, elements: i64, bits: u32) {
    if has_padding(dst, to, elements, bits) {
        dst.fill(0);
    }
}

/// Whether some bits of the tiled buffer `dst` of `elements` elements of
/// `bits` are padding (tile, tail or last-byte padding).
fn has_padding(dst: &[u8], to: &Tiling, elements: i64, bits: u32) -> bool {
    let exact = i128::try_from(dst.len()).unwrap_or(i128::MAX) * 8
        == i128::from(elements) * i128::from(bits);
    to.has_padding() || !exact
}

/// The most elements of the row-major slab a relayout between two tilings
/// goes through (256 KiB of 4-byte elements: it stays in cache between
/// its two copies).
const SLAB_ELEMENTS: i64 = 1 << 16;

/// Relayout between two tilings through row-major slabs of the array along
/// one dimension, each starting at a multiple of both tilings' top digit
/// weight in that dimension (so that a slab is a shifted copy of the
/// array's first slab in both buffers).
fn between_tilings(
    src: &[u8],
    src_shape: &Shape,
    from: &Tiling,
    dst: &mut [u8],
    dst_shape: &Shape,
    to: &Tiling,
    bits: u32,
) -> Result<(), RelayoutError> {
    let dims = &src_shape.dimensions;
    let elements = StridedView::row_major(dims)?.num_elements();
    zero_padding(dst, to, elements, bits);
    // The dimension cut into the most slabs.
    let choice = (0..dims.len())
        .filter_map(|j| {
            let step = lcm(from.slab_step(j)?, to.slab_step(j)?)?;
            Some((j, step))
        })
        .max_by_key(|&(j, step)| dims[j] / step);
    let Some((dim, step)) = choice.filter(|&(j, _)| dims[j] > 0) else {
        let row_major = StridedView::row_major(dims)?;
        let mut middle = vec![0_u8; bytes_of(src_shape, elements, bits)?];
        for (logical, tiled) in from.pieces(src_shape, &row_major, None)? {
            copy(src, &tiled, &mut middle, &logical, bits)?;
        }
        for (logical, tiled) in to.pieces(dst_shape, &row_major, None)? {
            copy(&middle, &logical, dst, &tiled, bits)?;
        }
        return Ok(());
    };
    let per_index = elements / dims[dim];
    let height = (SLAB_ELEMENTS / per_index.max(1) / step).max(1) * step;
    let mut middle = Vec::new();
    let mut start = 0;
    while start < dims[dim] {
        let len = height.min(dims[dim] - start);
        let mut slab_dims = dims.clone();
        slab_dims[dim] = len;
        let view = StridedView::row_major(&slab_dims)?;
        middle.resize(bytes_of(src_shape, view.num_elements(), bits)?, 0);
        let slab = Some(Slab { dim, start, len });
        for (logical, tiled) in from.pieces(src_shape, &view, slab)? {
            copy(src, &tiled, &mut middle, &logical, bits)?;
        }
        for (logical, tiled) in to.pieces(dst_shape, &view, slab)? {
            copy(&middle, &logical, dst, &tiled, bits)?;
        }
        start += len;
    }
    Ok(())
}

/// The least common multiple of two positive numbers, if it fits.
fn lcm(a: i64, b: i64) -> Option<i64> {
    let (mut x, mut y) = (a, b);
    while y != 0 {
        (x, y) = (y, x % y);
    }
    (a / x).checked_mul(b)
}

/// One piece: the interleaving kernel where it applies, else the engine.
fn copy(
    src: &[u8],
    src_view: &StridedView,
    dst: &mut [u8],
    dst_view: &StridedView,
    bits: u32,
) -> Result<(), RelayoutError> {
    if interleave::try_copy(src, src_view, dst, dst_view, bits)? {
        return Ok(());
    }
    relayout_bits(src, src_view, dst, dst_view, bits)
}
