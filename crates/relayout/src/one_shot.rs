//! The one-shot forms of [`RelayoutPlan`]: a plan built and run once, for
//! callers that relayout a pair of layouts once (a plan pays off when the
//! same pair is copied again), and for the pieces of a reshard, each its
//! own pair.

use std::num::NonZeroUsize;

use rayon::ThreadPool;
use schema::Shape;
use stride_util::StridedView;

use super::bits::capacity_in_elements;
use super::relayout_plan::{FromTo, RelayoutPlan};
use super::{RelayoutError, Strategy, check_views, elements_in, parallel, strategy_of};

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
/// [`StridedView::has_overlap`], whose [`ViewError::OverlapUndecided`](stride_util::ViewError::OverlapUndecided)
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
/// The plan form: [`RelayoutPlan::new`] and [`RelayoutPlan::run`].
pub fn relayout(
    src: &[u8],
    src_view: &StridedView,
    dst: &mut [u8],
    dst_view: &StridedView,
    element_size: usize,
) -> Result<(), RelayoutError> {
    checked_plan(src, src_view, dst, dst_view, element_size)?.run(src, dst)
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
/// The plan form: [`RelayoutPlan::run_part`].
pub fn relayout_part(
    src: &[u8],
    src_view: &StridedView,
    dst: &mut [u8],
    dst_view: &StridedView,
    element_size: usize,
    whole_bytes: u64,
) -> Result<(), RelayoutError> {
    checked_plan(src, src_view, dst, dst_view, element_size)?.run_part(src, dst, whole_bytes)
}

/// The plan of [`relayout`] after its checks, in its order: element size,
/// shapes, buffers, overlap.
fn checked_plan(
    src: &[u8],
    src_view: &StridedView,
    dst: &mut [u8],
    dst_view: &StridedView,
    element_size: usize,
) -> Result<RelayoutPlan, RelayoutError> {
    if element_size == 0 {
        return Err(RelayoutError::ElementSize { bits: 0 });
    }
    check_views(
        (src_view, elements_in(src.len(), element_size)),
        (dst_view, elements_in(dst.len(), element_size)),
    )?;
    let views = FromTo {
        from: src_view,
        to: dst_view,
    };
    Ok(RelayoutPlan::checked(views, element_size, None))
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
/// The plan form: [`RelayoutPlan::new_bits`].
pub fn relayout_bits(
    src: &[u8],
    src_view: &StridedView,
    dst: &mut [u8],
    dst_view: &StridedView,
    element_size_in_bits: u32,
) -> Result<(), RelayoutError> {
    match element_size_in_bits {
        bits @ (1 | 2 | 4) => {
            check_views(
                (src_view, capacity_in_elements(src.len(), bits)),
                (dst_view, capacity_in_elements(dst.len(), bits)),
            )?;
            let views = FromTo {
                from: src_view,
                to: dst_view,
            };
            RelayoutPlan::packed(views, bits, None).run(src, dst)
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
/// The plan form: [`RelayoutPlan::strategy`].
pub fn relayout_strategy(
    src_view: &StridedView,
    dst_view: &StridedView,
    element_size: usize,
) -> Strategy {
    strategy_of(src_view, dst_view, element_size)
}

/// [`relayout`] on the current rayon pool (rayon's global pool, or the
/// pool the caller runs in with `ThreadPool::install`), in as many chunks
/// as the pool has threads (`rayon::current_num_threads()`), but at most
/// one per [`MIN_BYTES_PER_THREAD`](crate::MIN_BYTES_PER_THREAD) bytes of destination elements (twice
/// that for copies of contiguous runs): small copies run on the calling
/// thread without involving the pool. See [`relayout_with_threads`] for
/// how the work is split.
///
/// # Errors
///
/// Exactly those of [`relayout`].
///
/// ```
/// use relayout::relayout_parallel;
/// use stride_util::StridedView;
///
/// // Transpose a 2048×2048 f32 matrix (16 MiB: split over rayon's global
/// // pool if the machine has several cores).
/// let a = StridedView::row_major(&[2048, 2048])?;
/// let src: Vec<u8> = (0..2048 * 2048 * 4).map(|i| (i % 251) as u8).collect();
/// let mut dst = vec![0u8; src.len()];
/// relayout_parallel(&src, &a.transpose(), &mut dst, &a, 4)?;
/// // Element (1, 0) of the result is element (0, 1) of the source.
/// assert_eq!(dst[2048 * 4..2049 * 4], src[4..8]);
/// # Ok::<(), relayout::RelayoutError>(())
/// ```
/// The plan form: [`RelayoutPlan::run_in`] (on a pool the caller passes).
pub fn relayout_parallel(
    src: &[u8],
    src_view: &StridedView,
    dst: &mut [u8],
    dst_view: &StridedView,
    element_size: usize,
) -> Result<(), RelayoutError> {
    if element_size == 0 {
        return Err(RelayoutError::ElementSize { bits: 0 });
    }
    parallel::sized(None, src, src_view, dst, dst_view, element_size)
}

/// [`relayout`] on `pool`, in as many chunks as it has threads, but (as
/// [`relayout_parallel`]) at most one per [`MIN_BYTES_PER_THREAD`](crate::MIN_BYTES_PER_THREAD) bytes
/// of destination elements (twice that for copies of contiguous runs): a
/// copy that makes a single chunk (a small one, or any on a pool of one
/// thread) runs on the calling thread without entering the pool.
/// Otherwise the calling thread runs the first chunk and `pool` the others
/// (see the module docs), whether the caller is outside `pool` or one of
/// its workers (say inside its `par_iter`), so that the caller works
/// instead of waiting for a worker to wake. To split a copy into a given
/// number of chunks whatever its size, call [`relayout_with_threads`]
/// inside `pool.install`.
///
/// # Errors
///
/// Exactly those of [`relayout`].
///
/// ```
/// use relayout::{relayout, relayout_in_pool};
/// use stride_util::StridedView;
///
/// // A pool built once and used for every relayout (and anything else).
/// let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build()?;
/// // NCHW -> NHWC of an f32 [8, 64, 56, 56] tensor (6.1 MiB: 3 chunks).
/// let sizes = [8, 64, 56, 56];
/// let (nchw, nhwc) = (StridedView::nchw(&sizes)?, StridedView::nhwc(&sizes)?);
/// let src: Vec<u8> = (0..8 * 64 * 56 * 56 * 4).map(|i| (i % 251) as u8).collect();
/// let mut dst = vec![0u8; src.len()];
/// relayout_in_pool(&pool, &src, &nchw, &mut dst, &nhwc, 4)?;
/// let mut expected = vec![0u8; src.len()];
/// relayout(&src, &nchw, &mut expected, &nhwc, 4)?;
/// assert!(dst == expected);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
/// The plan form: [`RelayoutPlan::run_in`].
pub fn relayout_in_pool(
    pool: &ThreadPool,
    src: &[u8],
    src_view: &StridedView,
    dst: &mut [u8],
    dst_view: &StridedView,
    element_size: usize,
) -> Result<(), RelayoutError> {
    if element_size == 0 {
        return Err(RelayoutError::ElementSize { bits: 0 });
    }
    parallel::sized(Some(pool), src, src_view, dst, dst_view, element_size)
}

/// [`relayout`] split into `threads` chunks (at most [`MAX_THREADS`](crate::MAX_THREADS)),
/// whatever the size of the copy, run on the current rayon pool (rayon's
/// global pool, or the pool the caller runs in with `ThreadPool::install`):
/// no thread is started, and the chunks share the pool's threads (more
/// chunks than threads queue; a pool of one thread runs them one after
/// another).
///
/// The destination's dimension with the largest stride is split into
/// `threads` chunks (if it is shorter, into its indices, each split
/// further along the next dimension with its share of the chunks), each
/// written by one task into its own byte range of `dst`; chunk boundaries
/// fall on 64-byte boundaries of `dst` where its address and the stride
/// allow. A destination that cannot be split into disjoint byte ranges
/// (its largest stride does not exceed the reach of the others, as in some
/// interleaved views) is copied on the calling thread, as is any copy for
/// `threads` = 1. The bytes written are exactly those [`relayout`] writes;
/// every chunk writes with streaming stores if the whole relayout is large
/// enough for them.
///
/// # Errors
///
/// Exactly those of [`relayout`].
///
/// ```
/// use std::num::NonZeroUsize;
/// use relayout::{relayout, relayout_with_threads};
/// use stride_util::StridedView;
///
/// // NCHW -> NHWC of a u8 [2, 3, 40, 50] tensor in 3 chunks, on rayon's
/// // global pool; then in 5 chunks on a pool of 2 threads.
/// let sizes = [2, 3, 40, 50];
/// let (nchw, nhwc) = (StridedView::nchw(&sizes)?, StridedView::nhwc(&sizes)?);
/// let src: Vec<u8> = (0..2 * 3 * 40 * 50).map(|i| (i % 251) as u8).collect();
/// let mut expected = vec![0u8; src.len()];
/// relayout(&src, &nchw, &mut expected, &nhwc, 1)?;
/// let mut dst = vec![0u8; src.len()];
/// let three = NonZeroUsize::new(3).unwrap_or(NonZeroUsize::MIN);
/// relayout_with_threads(&src, &nchw, &mut dst, &nhwc, 1, three)?;
/// assert_eq!(dst, expected);
///
/// let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build()?;
/// let five = NonZeroUsize::new(5).unwrap_or(NonZeroUsize::MIN);
/// let mut dst = vec![0u8; src.len()];
/// pool.install(|| relayout_with_threads(&src, &nchw, &mut dst, &nhwc, 1, five))?;
/// assert_eq!(dst, expected);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn relayout_with_threads(
    src: &[u8],
    src_view: &StridedView,
    dst: &mut [u8],
    dst_view: &StridedView,
    element_size: usize,
    threads: NonZeroUsize,
) -> Result<(), RelayoutError> {
    if element_size == 0 {
        return Err(RelayoutError::ElementSize { bits: 0 });
    }
    parallel::split(src, src_view, dst, dst_view, element_size, threads)
}

/// Copies the array `src` laid out as `src_shape` into `dst` laid out as
/// `dst_shape` (same element type and dimensions, any layouts with or
/// without padding or tiles), then fills the destination's padding with
/// its layout's padding value (see [`padding_pattern`](crate::padding_pattern)); tile
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
/// [`relayout`] and [`fill_padding`](crate::fill_padding).
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
/// The plan form: [`RelayoutPlan::xla`], which runs on a pool too.
pub fn relayout_xla(
    src: &[u8],
    src_shape: &Shape,
    dst: &mut [u8],
    dst_shape: &Shape,
) -> Result<(), RelayoutError> {
    let shapes = FromTo {
        from: src_shape,
        to: dst_shape,
    };
    RelayoutPlan::xla(shapes)?.run(src, dst)
}
