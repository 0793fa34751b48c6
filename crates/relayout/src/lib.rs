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
//! on x86_64 (`kernels/x86/`): SSE2 (`sse2.rs`, `stream.rs`), AVX2
//! (`avx2.rs`) or AVX-512 (`avx512.rs`, and `avx512_interleave.rs` for
//! XLA's packing tiles), chosen at run time (`simd.rs`); other targets
//! transpose tiles element by element.
//!
//! A [`RelayoutPlan`] does this planning once for a pair of views
//! ([`RelayoutPlan::new`]), XLA shapes ([`RelayoutPlan::xla`]), or a view
//! and an XLA shape ([`RelayoutPlan::view_to_xla`],
//! [`RelayoutPlan::xla_to_view`]) and runs
//! it as often as needed: on the calling thread ([`RelayoutPlan::run`]),
//! split into chunks on a rayon pool the caller passes
//! ([`RelayoutPlan::run_in`]; [`rayon`] is re-exported to build one), or
//! as one part of a larger copy ([`RelayoutPlan::run_part`]). No thread is
//! started per call. The free functions are the one-shot forms: a plan
//! built and run once ([`relayout`], [`relayout_xla`], [`relayout_bits`],
//! [`relayout_part`], [`relayout_in_pool`], [`relayout_strategy`]), and
//! the two splits a plan does not make: on the current rayon pool
//! ([`relayout_parallel`]) and into a given number of chunks
//! ([`relayout_with_threads`]).

// Denied, not forbidden: the measured SIMD kernels allow it where they use
// it (kernels/x86/: sse2.rs, stream.rs, avx2.rs, avx512.rs,
// avx512_interleave.rs, tile_blocks.rs).
#![deny(unsafe_code)]

mod bits;
mod composed;
mod interleave;
mod kernels;
mod nibbles;
mod one_shot;
mod output_size;
mod packed_transpose;
mod padding;
mod parallel;
mod piece_copy;
mod plan;
mod quads;
mod relayout_plan;
mod repack;
mod retiled;
mod scratch;
mod simd;
#[cfg(test)]
mod stream_tests;
mod sub_byte;
mod tile_rows;
mod tiled;
mod tiled_xla;
mod typed;
mod view_tiled;
mod view_xla;
mod xla;

pub use one_shot::{
    relayout, relayout_bits, relayout_in_pool, relayout_parallel, relayout_part, relayout_strategy,
    relayout_with_threads, relayout_xla,
};
pub use output_size::{MAX_OUTPUT_GROWTH, OUTPUT_SLACK_BYTES, output_buffer, output_bytes};
pub use padding::{fill_padding, padding_pattern};
pub use parallel::{MAX_THREADS, MIN_BYTES_PER_THREAD};
pub use plan::Strategy;
/// The thread pools of [`RelayoutPlan::run_in`], re-exported so that a
/// caller needs no dependency of its own to build one.
pub use rayon;
pub use relayout_plan::{FromTo, RelayoutPlan};
#[doc(hidden)]
pub use simd::force_simd_level;
pub use simd::{SimdLevel, detected_simd_level, simd_level};
/// The view type of the relayout functions, re-exported from `stride-util`.
pub use stride_util::StridedView;
pub use xla::same_array;

use schema::Shape;
use thiserror::Error;

// The README's examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

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
        /// The shape (its message prints it with its layout).
        shape: Box<Shape>,
        /// What is not supported.
        reason: String,
    },
    /// A buffer shorter than its shape's buffer size.
    #[error("{side} buffer has {actual} bytes but {shape} needs {expected}")]
    BufferTooSmall {
        /// `"source"` or `"destination"`.
        side: &'static str,
        /// The shape (its message prints it with its layout).
        shape: Box<Shape>,
        /// The buffer size of the shape in bytes.
        expected: usize,
        /// The length of the buffer given.
        actual: usize,
    },
    /// A source buffer whose length is not its shape's buffer size.
    #[error("source buffer has {actual} bytes but {shape} has {expected}")]
    SourceLength {
        /// The source shape (its message prints it with its layout).
        shape: Box<Shape>,
        /// The buffer size of the shape in bytes.
        expected: i64,
        /// The length of the buffer given.
        actual: i64,
    },
    /// A destination buffer larger than [`output_bytes`] allows (`cap`),
    /// or than the system could allocate (`cap` 0).
    #[error("{}", output_too_large(shape, *bytes, *cap))]
    OutputTooLarge {
        /// The destination shape (its message prints it with its layout).
        shape: Box<Shape>,
        /// Its buffer size in bytes.
        bytes: i64,
        /// The most bytes allowed for the source given; 0 when the
        /// allocation itself failed.
        cap: i64,
    },
    /// A strided view's element size that is not the size of the XLA
    /// shape's elements on the other side of the relayout.
    #[error(
        "a view of {element_size}-byte elements cannot hold the {element_bits}-bit elements of {shape}"
    )]
    ViewElementSize {
        /// The view's element size in bytes.
        element_size: usize,
        /// The shape (its message prints it with its layout).
        shape: Box<Shape>,
        /// The size of the shape's elements as stored, in bits.
        element_bits: u32,
    },
    /// A typed buffer whose values are neither bytes nor one element each.
    #[error(
        "{side} buffer of {value_bytes}-byte values cannot hold elements of {element_bits} bits \
         (use bytes, or values of the element's size)"
    )]
    BufferType {
        /// `"source"` or `"destination"`.
        side: &'static str,
        /// The size of the buffer's values in bytes.
        value_bytes: usize,
        /// The plan's element size on that side, in bits.
        element_bits: u32,
    },
    /// A view could not be built or checked.
    #[error(transparent)]
    View(#[from] ViewError),
}

/// The message of [`RelayoutError::OutputTooLarge`].
fn output_too_large(shape: &Shape, bytes: i64, cap: i64) -> String {
    if cap == 0 {
        format!("cannot allocate the {bytes} bytes of a buffer of {shape}")
    } else {
        format!(
            "a buffer of {shape} has {bytes} bytes, more than the {cap} allowed \
             ({MAX_OUTPUT_GROWTH} times the source's plus {OUTPUT_SLACK_BYTES})"
        )
    }
}

/// The copy of `src_view` over `src` into `dst_view` over `dst` after
/// [`check_views`], also writing `tail = (element bytes, row size, count)`
/// right after every destination row when the plan's innermost dimension
/// is the destination's contiguous row of `row size` (so padding is filled
/// while the row is in cache). Returns whether the tails were written.
/// `whole_bytes`, if given, is the size of the whole relayout this one is
/// a part of (one thread's share), which decides whether the kernels write
/// with streaming stores (else this relayout's own size does).
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
    Ok(copy_planned(
        &plan,
        (src, src_view),
        (dst, dst_view),
        element_size,
        tail,
        whole_bytes,
    ))
}

/// [`relayout_with_tail`] of views already checked against their buffers,
/// with their canonical `plan`.
pub(crate) fn copy_planned(
    plan: &Plan,
    (src, src_view): (&[u8], &StridedView),
    (dst, dst_view): (&mut [u8], &StridedView),
    element_size: usize,
    tail: Option<(&[u8], i64, i64)>,
    whole_bytes: Option<u64>,
) -> bool {
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
    let is_large = large.unwrap_or_else(|| kernels::is_large_plan(plan, element_size));
    if let Some(transpose) = kernels::TileTranspose::find_for(plan, element_size, is_large)
        && transpose.takes(src, dst)
    {
        transpose.copy(src, dst, is_large);
        return false;
    }
    match element_size {
        1 => run::<1>(plan, src, dst, tail, large),
        2 => run::<2>(plan, src, dst, tail, large),
        4 => run::<4>(plan, src, dst, tail, large),
        8 => run::<8>(plan, src, dst, tail, large),
        16 => run::<16>(plan, src, dst, tail, large),
        _ => {
            copy_any_size(src, src_view, dst, dst_view, element_size);
            false
        }
    }
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

/// The strategy of copying `src_view` into `dst_view` with elements of
/// `element_size` bytes.
pub(crate) fn strategy_of(
    src_view: &StridedView,
    dst_view: &StridedView,
    element_size: usize,
) -> Strategy {
    if src_view.is_empty() || src_view.sizes() != dst_view.sizes() {
        return Strategy::Empty;
    }
    strategy_of_plan(&Plan::new(src_view, dst_view), element_size)
}

/// The strategy of the canonical `plan` with elements of `element_size`
/// bytes.
pub(crate) fn strategy_of_plan(plan: &Plan, element_size: usize) -> Strategy {
    let large = kernels::is_large_plan(plan, element_size);
    if kernels::TileTranspose::find_for(plan, element_size, large).is_some() {
        return Strategy::TileTranspose;
    }
    match element_size {
        1 => kernels::strategy::<1>(plan, kernels::is_large::<1>(plan)).0,
        2 => kernels::strategy::<2>(plan, kernels::is_large::<2>(plan)).0,
        4 => kernels::strategy::<4>(plan, kernels::is_large::<4>(plan)).0,
        8 => kernels::strategy::<8>(plan, kernels::is_large::<8>(plan)).0,
        16 => kernels::strategy::<16>(plan, kernels::is_large::<16>(plan)).0,
        _ => Strategy::Elements,
    }
}

/// Checks, cheapest first, that the views have the same shape, that each
/// stays inside its buffer of the given length in elements, and that the
/// destination writes every element once (the overlap check, bounded but
/// the costliest, comes last).
pub(crate) fn check_views(
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
pub(crate) fn elements_in(bytes: usize, element_size: usize) -> i64 {
    i64::try_from(bytes / element_size).unwrap_or(i64::MAX)
}

pub(crate) fn check_buffer(
    side: &'static str,
    view: &StridedView,
    len: i64,
) -> Result<(), RelayoutError> {
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
