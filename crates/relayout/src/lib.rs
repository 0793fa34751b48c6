//! The relayout engine: copies the elements of a source view into a
//! destination view of the same logical shape, over byte buffers, as
//! [`StridedView`]s (numpy's and DirectML's strides) or XLA shapes with
//! their layouts (classic padding, tiles, `E(n)` packing).
//!
//! ```
//! use relayout::{StridedView, relayout};
//!
//! // Transpose a 2×3 matrix of u8 into a 3×2 one.
//! let src = [1, 2, 3, 4, 5, 6];
//! let a = StridedView::row_major(&[2, 3])?;
//! let mut dst = [0_u8; 6];
//! relayout(&src, &a.transpose(), &mut dst, &StridedView::row_major(&[3, 2])?, 1)?;
//! assert_eq!(dst, [1, 4, 2, 5, 3, 6]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The copy is planned per pair of layouts (see [`Strategy`]): dimensions
//! are canonicalized (size-1 dimensions dropped, destination strides made
//! positive, sorted so the smallest destination stride is innermost,
//! neighbours merged where both sides are contiguous across them), then the
//! fastest applicable kernel runs: one memcpy, a memcpy per contiguous run,
//! cache-blocked tiles for transposes, or a strided element loop.
//! Everything is safe Rust, except the calls into the register transposes
//! on x86_64: SSE2 (`sse2.rs`, `stream.rs`), AVX2 (`avx2.rs`) or AVX-512
//! (`avx512.rs`, and `avx512_interleave.rs` for XLA's packing tiles),
//! chosen at run time (`simd.rs`); other targets transpose tiles element by
//! element.
//! A relayout runs on the calling thread, or split into chunks on a rayon
//! thread pool: the global one or the one the caller runs in
//! ([`relayout_parallel`], [`relayout_with_threads`]), or one the caller
//! passes ([`relayout_in_pool`]); no thread is started per call.

// Denied, not forbidden: the measured SIMD kernels allow it where they use
// it (sse2.rs, stream.rs, avx2.rs, avx512.rs, avx512_interleave.rs).
#![deny(unsafe_code)]

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod avx2;
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod avx512;
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod avx512_interleave;
mod interleave;
mod kernels;
mod padding;
mod parallel;
mod plan;
mod repack;
mod simd;
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod sse2;
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod stream;
#[cfg(test)]
mod stream_tests;
mod sub_byte;
mod tiled;
mod tiled_xla;
mod xla;

pub use padding::{fill_padding, padding_pattern};
pub use parallel::{
    MAX_THREADS, MIN_BYTES_PER_THREAD, relayout_in_pool, relayout_parallel, relayout_with_threads,
};
pub use plan::Strategy;
#[doc(hidden)]
pub use simd::force_simd_level;
pub use simd::{SimdLevel, detected_simd_level, simd_level};
/// The view type of the relayout functions, re-exported from `stride-util`.
pub use stride_util::StridedView;
pub use xla::relayout_xla;

use thiserror::Error;

use plan::Plan;
use stride_util::{ViewError, numpy_tuple};

/// An error from the relayout engine.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum RelayoutError {
    /// The two views have different logical shapes.
    #[error("source has shape {source_shape} but destination has shape {destination_shape}")]
    ShapeMismatch {
        /// The source sizes, as a numpy tuple.
        source_shape: String,
        /// The destination sizes, as a numpy tuple.
        destination_shape: String,
    },
    /// An element size the engine does not handle.
    #[error("unsupported element size of {bits} bits (whole bytes, or 1, 2 or 4 packed bits)")]
    ElementSize {
        /// The element size in bits.
        bits: u64,
    },
    /// A view addresses an element outside its buffer.
    #[error("{side} element offset {offset} is outside its buffer of {len} elements")]
    OutsideBuffer {
        /// `"source"` or `"destination"`.
        side: &'static str,
        /// The offending element offset.
        offset: i64,
        /// The buffer length in elements.
        len: i64,
    },
    /// The destination addresses some element twice (overlap or stride 0).
    #[error("destination view with shape {shape} and strides {strides} writes some element twice")]
    OverlappingDestination {
        /// The destination sizes, as a numpy tuple.
        shape: String,
        /// The destination strides, as a numpy tuple.
        strides: String,
    },
    /// A layout or padding value has no byte pattern for the element type.
    #[error("{element_type} has no {padding} padding value")]
    NoPaddingValue {
        /// The element type (lowercase XLA name).
        element_type: String,
        /// The padding value (proto name).
        padding: String,
    },
    /// A layout whose element order the engine cannot produce.
    #[error("cannot relayout {shape}: {reason} is not supported")]
    UnsupportedLayout {
        /// The shape with its layout.
        shape: String,
        /// What is not supported.
        reason: String,
    },
    /// A buffer shorter than its shape's buffer size.
    #[error("{side} buffer has {actual} bytes but {shape} needs {expected}")]
    BufferTooSmall {
        /// `"source"` or `"destination"`.
        side: &'static str,
        /// The shape with its layout.
        shape: String,
        /// The buffer size of the shape in bytes.
        expected: usize,
        /// The length of the buffer given.
        actual: usize,
    },
    /// A view could not be built or checked.
    #[error(transparent)]
    View(#[from] ViewError),
}

/// Copies every element of `src_view` over `src` into the same logical
/// position of `dst_view` over `dst`; elements are `element_size` bytes
/// (any size; 1, 2, 4, 8 and 16 have dedicated kernels). Bytes of `dst`
/// that `dst_view` does not address are left untouched.
///
/// # Errors
///
/// [`RelayoutError::ShapeMismatch`], [`RelayoutError::ElementSize`] for
/// size 0, [`RelayoutError::OutsideBuffer`] if a view addresses an element
/// outside its buffer, and [`RelayoutError::OverlappingDestination`] if the
/// destination addresses an element twice (checked last: see
/// [`StridedView::has_overlap`], whose [`ViewError::OverlapUndecided`]
/// comes as [`RelayoutError::View`]).
///
/// ```
/// use relayout::relayout;
/// use stride_util::StridedView;
///
/// // Transpose a 2×3 matrix of u16.
/// let src: Vec<u8> = [1u16, 2, 3, 4, 5, 6].iter().flat_map(|v| v.to_le_bytes()).collect();
/// let src_view = StridedView::row_major(&[2, 3])?.transpose();
/// let dst_view = StridedView::row_major(&[3, 2])?;
/// let mut dst = vec![0u8; 12];
/// relayout(&src, &src_view, &mut dst, &dst_view, 2)?;
/// let values: Vec<u16> = dst.chunks(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
/// assert_eq!(values, [1, 4, 2, 5, 3, 6]);
/// # Ok::<(), relayout::RelayoutError>(())
/// ```
pub fn relayout(
    src: &[u8],
    src_view: &StridedView,
    dst: &mut [u8],
    dst_view: &StridedView,
    element_size: usize,
) -> Result<(), RelayoutError> {
    relayout_of_size(src, src_view, dst, dst_view, element_size, None)
}

/// [`relayout`] of one part of a larger copy of `whole_bytes` bytes, such
/// as one piece of a reshard: the kernels choose between ordinary and
/// streaming stores (which bypass the cache, for copies too large to stay
/// in it) by the size of the whole, as if the parts were one relayout.
/// The bytes written and the errors are those of [`relayout`].
///
/// # Errors
///
/// Exactly those of [`relayout`].
///
/// ```
/// use relayout::{StridedView, relayout_part};
///
/// // The left half of a 4×4 u8 matrix, as one half of a 16-byte copy.
/// let src: Vec<u8> = (0..16).collect();
/// let half = StridedView::new(&[4, 2], &[4, 1], 0)?;
/// let mut dst = [0_u8; 8];
/// relayout_part(&src, &half, &mut dst, &StridedView::row_major(&[4, 2])?, 1, 16)?;
/// assert_eq!(dst, [0, 1, 4, 5, 8, 9, 12, 13]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn relayout_part(
    src: &[u8],
    src_view: &StridedView,
    dst: &mut [u8],
    dst_view: &StridedView,
    element_size: usize,
    whole_bytes: u64,
) -> Result<(), RelayoutError> {
    relayout_of_size(
        src,
        src_view,
        dst,
        dst_view,
        element_size,
        Some(whole_bytes),
    )
}

/// [`relayout`] as part of a copy of `whole_bytes` (see
/// [`relayout_with_tail`]), elements of size 0 refused.
fn relayout_of_size(
    src: &[u8],
    src_view: &StridedView,
    dst: &mut [u8],
    dst_view: &StridedView,
    element_size: usize,
    whole_bytes: Option<u64>,
) -> Result<(), RelayoutError> {
    if element_size == 0 {
        return Err(RelayoutError::ElementSize { bits: 0 });
    }
    relayout_with_tail(
        src,
        src_view,
        dst,
        dst_view,
        element_size,
        None,
        whole_bytes,
    )
    .map(|_| ())
}

/// [`relayout`], also writing `tail = (element bytes, count)` right after
/// every destination row when the plan's innermost dimension is the
/// destination's contiguous row of the same size as `row_size` (so padding
/// is filled while the row is in cache). Returns whether the tails were
/// written. `whole_bytes`, if given, is the size of the whole relayout this
/// one is a part of (one thread's share), which decides whether the kernels
/// write with streaming stores (else this relayout's own size does).
pub(crate) fn relayout_with_tail(
    src: &[u8],
    src_view: &StridedView,
    dst: &mut [u8],
    dst_view: &StridedView,
    element_size: usize,
    tail: Option<(&[u8], i64, i64)>,
    whole_bytes: Option<u64>,
) -> Result<bool, RelayoutError> {
    check_views(
        (src_view, elements_in(src.len(), element_size)),
        (dst_view, elements_in(dst.len(), element_size)),
    )?;
    if src_view.is_empty() {
        return Ok(false);
    }
    let plan = Plan::new(src_view, dst_view);
    // The tail applies if the innermost dimension is the padded row and
    // the padding after the last row is inside the buffer.
    let tail = tail.filter(|&(_, row_size, count)| {
        let row = plan.dims.last();
        row.is_some_and(|r| r.dst == 1 && r.size == row_size)
            && dst_view.offset_range().is_some_and(|(_, high)| {
                high.checked_add(count)
                    .is_some_and(|end| end < elements_in(dst.len(), element_size))
            })
    });
    let large = whole_bytes.map(kernels::is_large_bytes);
    let applied = match element_size {
        1 => run::<1>(&plan, src, dst, tail, large),
        2 => run::<2>(&plan, src, dst, tail, large),
        4 => run::<4>(&plan, src, dst, tail, large),
        8 => run::<8>(&plan, src, dst, tail, large),
        16 => run::<16>(&plan, src, dst, tail, large),
        _ => {
            copy_any_size(src, src_view, dst, dst_view, element_size);
            false
        }
    };
    Ok(applied)
}

/// Runs the kernel for `N`-byte elements (`large`: see
/// [`relayout_with_tail`]); whether the tail was written.
fn run<const N: usize>(
    plan: &Plan,
    src: &[u8],
    dst: &mut [u8],
    tail: Option<(&[u8], i64, i64)>,
    large: Option<bool>,
) -> bool {
    let tail = tail_of::<N>(tail);
    let large = large.unwrap_or_else(|| kernels::is_large::<N>(plan));
    kernels::copy::<N>(plan, src.as_chunks().0, dst.as_chunks_mut().0, tail, large);
    tail.is_some()
}

/// The kernel form of a tail, if its element has `N` bytes.
fn tail_of<const N: usize>(tail: Option<(&[u8], i64, i64)>) -> Option<kernels::Tail<N>> {
    let (element, _, count) = tail?;
    Some(kernels::Tail {
        element: element.try_into().ok()?,
        count: usize::try_from(count).ok()?,
    })
}

/// [`relayout`] for elements of `element_size_in_bits`: whole bytes, or
/// 1, 2 or 4 bits packed into bytes as XLA's `E(n)` layouts store them
/// (element `k` of the buffer in bits `k·n .. k·n+n` counting from the
/// least significant bit of byte 0). Sub-byte elements take a correct but
/// slow element-by-element path.
///
/// # Errors
///
/// As [`relayout`]; [`RelayoutError::ElementSize`] for other bit sizes.
///
/// ```
/// use relayout::relayout_bits;
/// use stride_util::StridedView;
///
/// // Four 4-bit elements 1,2,3,4 packed in two bytes, reversed.
/// let src = [0x21u8, 0x43];
/// let mut dst = [0u8; 2];
/// let view = StridedView::row_major(&[4])?;
/// relayout_bits(&src, &view.flip()?, &mut dst, &view, 4)?;
/// assert_eq!(dst, [0x34, 0x12]);
/// # Ok::<(), relayout::RelayoutError>(())
/// ```
pub fn relayout_bits(
    src: &[u8],
    src_view: &StridedView,
    dst: &mut [u8],
    dst_view: &StridedView,
    element_size_in_bits: u32,
) -> Result<(), RelayoutError> {
    match element_size_in_bits {
        1 | 2 | 4 => {
            let bits = element_size_in_bits;
            check_views(
                (src_view, xla::capacity_in_elements(src.len(), bits)),
                (dst_view, xla::capacity_in_elements(dst.len(), bits)),
            )?;
            sub_byte::copy(src, src_view, dst, dst_view, element_size_in_bits);
            Ok(())
        }
        bits if bits > 0 && bits % 8 == 0 => {
            relayout(src, src_view, dst, dst_view, bits as usize / 8)
        }
        bits => Err(RelayoutError::ElementSize {
            bits: u64::from(bits),
        }),
    }
}

/// The strategy [`relayout`] would use to copy `src_view` into `dst_view`
/// with elements of `element_size` bytes.
///
/// ```
/// use relayout::{Strategy, relayout_strategy};
/// use stride_util::StridedView;
///
/// let a = StridedView::row_major(&[64, 64])?;
/// assert_eq!(relayout_strategy(&a, &a, 4), Strategy::SingleCopy);
/// assert_eq!(relayout_strategy(&a.transpose(), &a, 4), Strategy::Tiled);
/// assert_eq!(relayout_strategy(&a.transpose(), &a, 3), Strategy::Elements);
/// let padded = StridedView::new(&[64, 64], &[80, 1], 0)?;
/// assert_eq!(relayout_strategy(&a, &padded, 4), Strategy::Runs);
/// # Ok::<(), stride_util::ViewError>(())
/// ```
pub fn relayout_strategy(
    src_view: &StridedView,
    dst_view: &StridedView,
    element_size: usize,
) -> Strategy {
    if src_view.is_empty() || src_view.sizes() != dst_view.sizes() {
        return Strategy::Empty;
    }
    let plan = Plan::new(src_view, dst_view);
    match element_size {
        1 => kernels::strategy::<1>(&plan, kernels::is_large::<1>(&plan)).0,
        2 => kernels::strategy::<2>(&plan, kernels::is_large::<2>(&plan)).0,
        4 => kernels::strategy::<4>(&plan, kernels::is_large::<4>(&plan)).0,
        8 => kernels::strategy::<8>(&plan, kernels::is_large::<8>(&plan)).0,
        16 => kernels::strategy::<16>(&plan, kernels::is_large::<16>(&plan)).0,
        _ => Strategy::Elements,
    }
}

/// Checks, cheapest first, that the views have the same shape, that each
/// stays inside its buffer of the given length in elements, and that the
/// destination writes every element once (the overlap check, bounded but
/// the costliest, comes last).
fn check_views(
    (src_view, src_len): (&StridedView, i64),
    (dst_view, dst_len): (&StridedView, i64),
) -> Result<(), RelayoutError> {
    if src_view.sizes() != dst_view.sizes() {
        return Err(RelayoutError::ShapeMismatch {
            source_shape: numpy_tuple(src_view.sizes()),
            destination_shape: numpy_tuple(dst_view.sizes()),
        });
    }
    check_buffer("source", src_view, src_len)?;
    check_buffer("destination", dst_view, dst_len)?;
    if dst_view.has_overlap()? {
        return Err(RelayoutError::OverlappingDestination {
            shape: numpy_tuple(dst_view.sizes()),
            strides: numpy_tuple(dst_view.strides()),
        });
    }
    Ok(())
}

/// The number of whole elements of `element_size` bytes in `bytes`.
fn elements_in(bytes: usize, element_size: usize) -> i64 {
    i64::try_from(bytes / element_size).unwrap_or(i64::MAX)
}

fn check_buffer(side: &'static str, view: &StridedView, len: i64) -> Result<(), RelayoutError> {
    view.check_inside(len).map_err(|error| match error {
        ViewError::OutsideBuffer { offset, len } => {
            RelayoutError::OutsideBuffer { side, offset, len }
        }
        other => RelayoutError::View(other),
    })
}

/// The kernel for element sizes without a dedicated one: a byte-slice copy
/// per element, in logical order.
fn copy_any_size(
    src: &[u8],
    src_view: &StridedView,
    dst: &mut [u8],
    dst_view: &StridedView,
    element_size: usize,
) {
    for (s, d) in src_view.offsets().zip(dst_view.offsets()) {
        // Validated: both offsets are inside their buffers.
        let (s, d) = (s as usize * element_size, d as usize * element_size);
        dst[d..d + element_size].copy_from_slice(&src[s..s + element_size]);
    }
}
