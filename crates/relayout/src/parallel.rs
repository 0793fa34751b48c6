//! Relayout on a rayon thread pool: the destination is split along its
//! outermost dimension (the one with the largest stride; then along the
//! next one if the outermost is shorter than the chunk count) into chunks
//! that occupy disjoint, ordered byte ranges of the destination buffer,
//! each chunk boundary on a cache-line boundary where the buffer's
//! alignment allows it, so that every thread writes whole destination
//! lines (and reads whole source lines, where the split axis is one that
//! the source packs several indices of to a line). Each chunk is an
//! ordinary [`relayout`](crate::relayout) of a sub-view into its own `&mut` sub-slice, run
//! as a rayon task, so the bytes written are exactly those of the
//! single-threaded relayout, and so are the errors (the views are checked
//! once, before the split, in [`relayout`](crate::relayout)'s order).
//!
//! No thread is started per call. The chunks run on a persistent pool:
//! the current rayon pool ([`relayout_parallel`](crate::relayout_parallel),
//! [`relayout_with_threads`](crate::relayout_with_threads): rayon's global pool, whose threads start
//! once and are shared with the caller's own `par_iter`s, or the pool the
//! caller runs in with `ThreadPool::install`), or a pool the caller passes
//! ([`relayout_in_pool`](crate::relayout_in_pool)). The calling thread runs the first chunk itself
//! while the pool runs the others, then waits for them; a worker of the
//! pool takes other work of its pool while it waits (its own chunks
//! first), so a pool that is busy with the caller's own work, or has one
//! thread, still finishes every chunk (on the calling thread, in the worst
//! case), and a relayout nested in another pool's work does not deadlock.
//! A thread outside the pool waits, once its chunk is done, until the
//! pool has run the others; from 8 MiB (where the relayout streams) it
//! waits from the start, a worker of the pool running the first chunk
//! (see `run`).
//!
//! [`relayout_parallel`](crate::relayout_parallel) and [`relayout_in_pool`](crate::relayout_in_pool) make at most one chunk
//! per [`MIN_BYTES_PER_THREAD`] bytes of destination elements (twice that
//! where the relayout copies contiguous runs), so small copies run on the
//! calling thread without waking the pool; whether the split pays off on
//! a machine is for the bench report (`threads N` groups, on a pool of N
//! threads beside a pooled plain copy).

use std::num::NonZeroUsize;

use rayon::iter::{IndexedParallelIterator, IntoParallelRefMutIterator, ParallelIterator};
use rayon::{Scope, ThreadPool};

use super::kernels::{SMALL_THRESHOLDS, is_large_bytes};
use super::{RelayoutError, Strategy, check_views, elements_in, relayout_with_tail, strategy_of};
use stride_util::StridedView;

/// [`relayout_parallel`](crate::relayout_parallel) and [`relayout_in_pool`](crate::relayout_in_pool) add a chunk (a task for
/// one more thread) only for every this many bytes of destination
/// elements, or twice as many where the relayout copies contiguous runs
/// (`Strategy::SingleCopy` or `Strategy::Runs`, about twice as fast a byte
/// as a transpose): smaller copies stay on the calling thread. Measured on
/// a rayon pool of 2 threads (the 2-core AMD EPYC VM, medians of 41
/// interleaved rounds, four runs), against one thread: f32 transposes of
/// 1 MiB in two chunks 33–44 µs against 40–51 µs, of 512 KiB 26–31 µs
/// against 20 µs; plain copies of 2 MiB 32–42 µs against 43–44 µs, of
/// 1 MiB 23–47 µs against 22 µs. Handing a chunk to a sleeping thread takes
/// up to tens of µs here, which a chunk must outlast. 64 bytes under `cargo
/// fuzz` and Miri, so that small arrays take the parallel path there.
pub const MIN_BYTES_PER_THREAD: u64 = if SMALL_THRESHOLDS { 64 } else { 512 << 10 };

/// [`relayout_with_threads`](crate::relayout_with_threads) splits a copy into at most this many chunks,
/// whatever it is asked for (so that a huge count cannot make a task per
/// element).
pub const MAX_THREADS: usize = 1024;

/// Chunk boundaries are placed on multiples of this many bytes where the
/// destination's address and strides allow it, so that no two threads
/// write the same cache line.
const CACHE_LINE: u16 = 64;

/// The copy of `src_view` into `dst_view` (elements of `element_size`
/// bytes, not 0) on `pool`, or on the current rayon pool if `None`, in as
/// many chunks as the pool has threads but at most one per
/// [`MIN_BYTES_PER_THREAD`] bytes (see [`chunk_count`]); a copy of one
/// chunk runs on the calling thread. The errors are those of a relayout
/// on one thread.
pub(crate) fn sized(
    pool: Option<&ThreadPool>,
    src: &[u8],
    src_view: &StridedView,
    dst: &mut [u8],
    dst_view: &StridedView,
    element_size: usize,
) -> Result<(), RelayoutError> {
    match chunk_count(pool, src_view, dst_view, element_size) {
        Some(count) => on_pool(pool, src, src_view, dst, dst_view, element_size, count),
        None => {
            relayout_with_tail(src, src_view, dst, dst_view, element_size, None, None).map(|_| ())
        }
    }
}

/// The copy split into `threads` chunks (at most [`MAX_THREADS`]) whatever
/// its size, on the current rayon pool; on the calling thread for one.
pub(crate) fn split(
    src: &[u8],
    src_view: &StridedView,
    dst: &mut [u8],
    dst_view: &StridedView,
    element_size: usize,
    threads: NonZeroUsize,
) -> Result<(), RelayoutError> {
    if threads.get() == 1 {
        return relayout_with_tail(src, src_view, dst, dst_view, element_size, None, None)
            .map(|_| ());
    }
    on_pool(
        None,
        src,
        src_view,
        dst,
        dst_view,
        element_size,
        threads.get(),
    )
}

/// The number of chunks of a copy of `src_view` into `dst_view` on `pool`
/// (the current rayon pool if `None`): one per thread, at most one per
/// [`MIN_BYTES_PER_THREAD`] bytes (twice that where it copies contiguous
/// runs), if more than one.
pub(crate) fn chunk_count(
    pool: Option<&ThreadPool>,
    src_view: &StridedView,
    dst_view: &StridedView,
    element_size: usize,
) -> Option<usize> {
    let threads = pool.map_or_else(rayon::current_num_threads, ThreadPool::current_num_threads);
    let bytes = u64::try_from(dst_view.num_elements())
        .unwrap_or(0)
        .saturating_mul(u64::try_from(element_size).unwrap_or(u64::MAX));
    let chunks =
        |per_chunk: u64| threads.min(usize::try_from(bytes / per_chunk).unwrap_or(usize::MAX));
    let count = chunks(MIN_BYTES_PER_THREAD);
    // Only a copy large enough to split is planned (for its strategy).
    let copies_runs = count > 1
        && matches!(
            strategy_of(src_view, dst_view, element_size),
            Strategy::SingleCopy | Strategy::Runs
        );
    let count = if copies_runs {
        chunks(2 * MIN_BYTES_PER_THREAD)
    } else {
        count
    };
    (count > 1).then_some(count)
}
/// [`relayout`](crate::relayout) in `count` chunks (at most [`MAX_THREADS`]) on `pool`, or
/// on the current rayon pool if `None`; `element_size` is not 0.
pub(crate) fn on_pool(
    pool: Option<&ThreadPool>,
    src: &[u8],
    src_view: &StridedView,
    dst: &mut [u8],
    dst_view: &StridedView,
    element_size: usize,
    count: usize,
) -> Result<(), RelayoutError> {
    let engine = |src: &[u8], from: &StridedView, part: &mut [u8], to: &StridedView, whole| {
        relayout_with_tail(src, from, part, to, element_size, None, Some(whole)).map(|_| ())
    };
    on_pool_with(
        pool,
        (src, src_view),
        (dst, dst_view),
        element_size,
        count,
        engine,
    )
}

/// [`on_pool`] with each chunk copied by `copy(src, src_view, part,
/// part_view, whole_bytes)`: the source, the chunk's part of the
/// destination with its view there, and the bytes of the whole copy
/// (which decide whether the stores stream); a copy that cannot be split
/// is one chunk, on the calling thread.
pub(crate) fn on_pool_with(
    pool: Option<&ThreadPool>,
    (src, src_view): (&[u8], &StridedView),
    (dst, dst_view): (&mut [u8], &StridedView),
    element_size: usize,
    count: usize,
    copy: impl Fn(&[u8], &StridedView, &mut [u8], &StridedView, u64) -> Result<(), RelayoutError> + Sync,
) -> Result<(), RelayoutError> {
    // The checks of `relayout`, in its order (so the errors are the same).
    check_views(
        (src_view, elements_in(src.len(), element_size)),
        (dst_view, elements_in(dst.len(), element_size)),
    )?;
    let place = Placement {
        src_address: src.as_ptr() as usize,
        dst_address: dst.as_ptr() as usize,
        element_size,
    };
    let whole_bytes = u64::try_from(element_size)
        .ok()
        .and_then(|n| src_view.num_elements().unsigned_abs().checked_mul(n))
        .unwrap_or(u64::MAX);
    match chunks(src_view, dst_view, count.min(MAX_THREADS), &place)? {
        Some(chunks) => run(pool, src, dst, &chunks, element_size, whole_bytes, copy),
        None => copy(src, src_view, dst, dst_view, whole_bytes),
    }
}

/// One task's share: the sub-views of both sides, the destination's
/// relative to the chunk's sub-slice of the buffer, which starts at
/// element `start` (0 for the lowest chunk, so that the first sub-slice
/// also holds whatever precedes the view).
#[derive(Debug)]
struct Chunk {
    src: StridedView,
    dst: StridedView,
    start: i64,
}

/// The chunks of a relayout split `threads` ways, lowest in the
/// destination first, or `None` if the destination cannot be split (fewer
/// than two chunks, or no dimension whose chunks are disjoint byte ranges).
/// The views were validated; `place` says where both buffers are.
fn chunks(
    src_view: &StridedView,
    dst_view: &StridedView,
    threads: usize,
    place: &Placement,
) -> Result<Option<Vec<Chunk>>, RelayoutError> {
    if dst_view.is_empty() {
        return Ok(None);
    }
    let mut pieces = Vec::new();
    place.split(src_view, dst_view, threads, &mut pieces)?;
    if pieces.len() < 2 {
        return Ok(None);
    }
    pieces.sort_by_key(|piece| piece.start);
    for piece in pieces.iter_mut().skip(1) {
        piece.dst = shift(&piece.dst, piece.start)?;
    }
    if let Some(first) = pieces.first_mut() {
        first.start = 0;
    }
    Ok(Some(pieces))
}

/// Where the buffers are, for placing chunk boundaries on cache lines.
struct Placement {
    src_address: usize,
    dst_address: usize,
    element_size: usize,
}

impl Placement {
    /// Appends the chunks of copying `src` into `dst` on `threads` threads
    /// to `out`, each with its lowest destination offset as `start`. The
    /// split dimension is cut into `threads` ranges if it is that long,
    /// else into single indices whose sub-views are split further, the
    /// threads shared among them (at most one level per dimension).
    ///
    /// Each cut is moved off the even split to where it costs least. A cut
    /// off a destination line makes one line written by two threads. A cut
    /// off a source line, where the split axis is a fine one of the source
    /// (several indices to a line, the same alignment in every row), makes
    /// the line at the cut in every source row read by two threads. So a
    /// cut goes on both lines, else on a source line (searched up to half
    /// a line's indices either way), else on a destination line (up to an
    /// eighth of a chunk above). Measured on the 16-CPU Xeon with the
    /// source 16 bytes past a line, on 4, 8 and 16 threads, against
    /// destination-line cuts (f32 4096², u8 8192² and permute (2,0,1)
    /// `f32[256,256,256]`, whose split axis is the source's contiguous one,
    /// a line a chunk on 16 threads): 0.78–1.06 times the time, 14 of 18
    /// configurations faster (where the source starts a line and the cuts
    /// are the same, 9 of 18: the noise).
    fn split(
        &self,
        src: &StridedView,
        dst: &StridedView,
        threads: usize,
        out: &mut Vec<Chunk>,
    ) -> Result<(), RelayoutError> {
        let axis = if threads > 1 { split_axis(dst) } else { None };
        let (Some(axis), Some((low, _))) = (axis, dst.offset_range()) else {
            out.push(Chunk {
                src: src.clone(),
                dst: dst.clone(),
                start: dst.offset_range().map_or(0, |(low, _)| low),
            });
            return Ok(());
        };
        let size = dst.sizes()[axis];
        let stride = dst.strides()[axis];
        let count = i64::try_from(threads).unwrap_or(i64::MAX).min(size);
        // The lowest element offset of index `i` along the axis.
        let row_low = |i: i64| low + if stride > 0 { i } else { size - 1 - i } * stride.abs();
        // The first element (of the higher chunk) at a cut before `i`.
        let boundary = |i: i64| {
            if stride > 0 {
                row_low(i)
            } else {
                row_low(i - 1)
            }
        };
        let src_period = self.fine_source_period(src, axis);
        // Of a cut before `i`: 2 if on a source line (where that counts),
        // plus 1 if on a destination line.
        let score = |i: i64| {
            let on_source = src_period.is_some() && self.source_cut_aligned(src, axis, i);
            2 * i64::from(on_source) + i64::from(self.aligned(self.dst_address, boundary(i)))
        };
        let even = |k: i64| k * (size / count) + (k * (size % count)) / count;
        let mut splits = vec![0];
        for k in 1..count {
            let (cut, last) = (even(k), splits.last().copied().unwrap_or(0));
            // Destination lines: up to an eighth of the chunk above (the
            // alignment repeats every 64 indices). Source lines: half a
            // line's indices either way. Every chunk keeps an index.
            let dst_window = ((even(k + 1) - cut) / 8).min(i64::from(CACHE_LINE));
            let half_period = src_period.map_or(0, |p| p / 2);
            let lowest = (cut - half_period).max(last + 1);
            let highest = (cut + dst_window.max(half_period)).min(even(k + 1) - 1);
            let best = (lowest..=highest)
                .filter(|&i| i == cut || (i > cut && i - cut < dst_window) || score(i) >= 2)
                .max_by_key(|&i| (score(i), -(i - cut).abs(), -i));
            splits.push(best.unwrap_or(cut));
        }
        splits.push(size);
        let count = usize::try_from(count).unwrap_or(1);
        for (k, range) in splits.windows(2).enumerate() {
            let share = threads / count + usize::from(k < threads % count);
            let (begin, end) = (range[0], range[1]);
            let (src, dst) = (
                narrow(src, axis, begin, end)?,
                narrow(dst, axis, begin, end)?,
            );
            self.split(&src, &dst, share, out)?;
        }
        Ok(())
    }

    /// How many indices of `axis` make a line of the source, if that is
    /// more than one and every other axis (of size > 1) moves whole lines
    /// (then every row of the source is cut at the same place in its
    /// line); `None` otherwise.
    fn fine_source_period(&self, src: &StridedView, axis: usize) -> Option<i64> {
        let line = i64::from(CACHE_LINE);
        let bytes = |stride: i64| {
            stride
                .unsigned_abs()
                .checked_mul(u64::try_from(self.element_size).ok()?)
                .and_then(|b| i64::try_from(b).ok())
        };
        let step = bytes(src.strides()[axis])?;
        let whole_lines = src
            .sizes()
            .iter()
            .zip(src.strides())
            .enumerate()
            .filter(|&(other, (&size, _))| other != axis && size > 1)
            .all(|(_, (_, &stride))| bytes(stride).is_some_and(|b| b % line == 0));
        match step {
            1..64 if line % step == 0 && whole_lines => Some(line / step),
            _ => None,
        }
    }

    /// Whether a cut of `axis` before index `i` starts a line of the
    /// source (the first element of the higher indices, or of the lower
    /// ones where the stride is negative).
    fn source_cut_aligned(&self, src: &StridedView, axis: usize, i: i64) -> bool {
        let stride = src.strides()[axis];
        let index = if stride > 0 { i } else { i - 1 };
        index
            .checked_mul(stride)
            .and_then(|o| o.checked_add(src.offset()))
            .is_some_and(|offset| self.aligned(self.src_address, offset))
    }

    /// Whether element `offset` of a buffer at `address` starts a cache
    /// line.
    fn aligned(&self, address: usize, offset: i64) -> bool {
        usize::try_from(offset).is_ok_and(|element| {
            element
                .checked_mul(self.element_size)
                .and_then(|bytes| bytes.checked_add(address))
                .is_some_and(|byte| byte % usize::from(CACHE_LINE) == 0)
        })
    }
}

/// The dimension to split: the one of largest stride magnitude among those
/// of size > 1, if that stride exceeds the reach of all the others (then
/// ranges of its indices occupy disjoint, ordered ranges of offsets).
fn split_axis(view: &StridedView) -> Option<usize> {
    let moving = || {
        view.sizes()
            .iter()
            .zip(view.strides())
            .enumerate()
            .filter(|(_, (size, _))| **size > 1)
    };
    let (axis, (_, stride)) = moving().max_by_key(|(_, (_, stride))| stride.unsigned_abs())?;
    // Exact in u128: sizes and strides are below 2^63.
    let reach: u128 = moving()
        .filter(|(other, _)| *other != axis)
        .map(|(_, (&size, stride))| {
            u128::from(size.unsigned_abs() - 1) * u128::from(stride.unsigned_abs())
        })
        .sum();
    (reach < u128::from(stride.unsigned_abs())).then_some(axis)
}

/// `view` restricted to indices `begin..end` along `axis`.
fn narrow(
    view: &StridedView,
    axis: usize,
    begin: i64,
    end: i64,
) -> Result<StridedView, RelayoutError> {
    let mut sizes = view.sizes().to_vec();
    sizes[axis] = end - begin;
    let offset = view.offset() + begin * view.strides()[axis];
    Ok(StridedView::new(&sizes, view.strides(), offset)?)
}

/// `view` with its offsets `by` elements lower.
fn shift(view: &StridedView, by: i64) -> Result<StridedView, RelayoutError> {
    Ok(StridedView::new(
        view.sizes(),
        view.strides(),
        view.offset() - by,
    )?)
}

/// Runs the chunks, each into its own sub-slice of `dst` by `copy` (see
/// [`on_pool_with`]): all but the first as one task spawned on `pool`
/// (the current pool if `None`), which its threads split among themselves,
/// the first meanwhile on the thread that spawned them, which then waits
/// for the others (a worker of the pool takes other tasks of its pool
/// while it waits); returns the first error in chunk order, if any. Each
/// chunk writes with streaming stores if the whole relayout is large
/// enough, whatever its own share (`whole_bytes`).
///
/// Below [`STREAM_MIN_BYTES`](super::kernels::STREAM_MIN_BYTES) that thread is the calling one, which thus
/// works instead of waiting for a woken worker to start: on a pool of 2
/// threads (the 2-core AMD EPYC VM, a 4 MiB copy in two halves, best of
/// 300), 44 µs, against 54 µs with the caller waiting on
/// `pool.install(|| rayon::join(..))`, 71–78 µs on
/// `pool.install(|| par_chunks_mut(..))` and 86 µs on one thread. From
/// there up it is a worker of the pool (the calling thread, if it is one),
/// the caller outside the pool waiting, as for a `par_iter`: a caller
/// outside working beside the pool's threads measured slower on the
/// 2-vCPU Xeon (peer harness, pool of 2 threads, ÷ the pooled copy, at
/// 0:0, 16:48 and in `Vec`s, two runs; the caller working against
/// waiting): f32 4096² 0.98–1.46 against 0.90–1.06, f64 2048² 0.92–1.20
/// against 0.90–1.19, u8 8192² 1.39–1.80 against 1.36–1.47, the
/// permutation (2,0,1) 1.08–1.45 against 0.88–1.08, NCHW→NHWC 1.24–1.59
/// against 1.22–1.61; f32 1024² (4 MiB) 1.24–1.52 against 1.28–1.55.
fn run(
    pool: Option<&ThreadPool>,
    src: &[u8],
    dst: &mut [u8],
    chunks: &[Chunk],
    element_size: usize,
    whole_bytes: u64,
    copy: impl Fn(&[u8], &StridedView, &mut [u8], &StridedView, u64) -> Result<(), RelayoutError> + Sync,
) -> Result<(), RelayoutError> {
    let mut parts = Vec::with_capacity(chunks.len());
    let mut rest = dst;
    for (k, chunk) in chunks.iter().enumerate() {
        // The starts ascend and are inside the buffer (were they not,
        // the chunk's relayout would report its view outside `part`).
        let len = chunks.get(k + 1).map_or(rest.len(), |next| {
            usize::try_from(next.start - chunk.start).map_or(0, |n| n * element_size)
        });
        let len = len.min(rest.len());
        let (part, tail) = std::mem::take(&mut rest).split_at_mut(len);
        rest = tail;
        parts.push((chunk, part));
    }
    let copy_chunk =
        |chunk: &&Chunk, part: &mut [u8]| copy(src, &chunk.src, part, &chunk.dst, whole_bytes);
    run_parts(pool, !is_large_bytes(whole_bytes), &mut parts, copy_chunk)
}

/// `op(span, part)` on parts of `dst`, a destination of `units` units of
/// `unit_bytes` bytes each in order: `span` the units of `part`, over
/// `pool` (one part for each thread, but one for every
/// [`MIN_BYTES_PER_THREAD`] bytes at most), or on the calling thread in
/// one part. Large ones (that stream) run on a worker of the pool, as in
/// [`run_parts`].
pub(crate) fn in_unit_parts(
    pool: Option<&ThreadPool>,
    dst: &mut [u8],
    units: usize,
    unit_bytes: usize,
    op: impl Fn(std::ops::Range<usize>, &mut [u8]) -> Result<(), RelayoutError> + Sync,
) -> Result<(), RelayoutError> {
    let whole = u64::try_from(dst.len()).unwrap_or(u64::MAX);
    let threads = pool.map_or(1, ThreadPool::current_num_threads);
    let count = threads
        .min(usize::try_from(whole / MIN_BYTES_PER_THREAD).unwrap_or(usize::MAX))
        .clamp(1, units.max(1));
    let mut parts = Vec::with_capacity(count);
    let mut rest = dst;
    for k in 0..count {
        let (from, to) = (units * k / count, units * (k + 1) / count);
        let bytes = ((to - from) * unit_bytes).min(rest.len());
        let (part, tail) = std::mem::take(&mut rest).split_at_mut(bytes);
        rest = tail;
        parts.push((from..to, part));
    }
    run_parts(pool, !is_large_bytes(whole), &mut parts, |span, part| {
        op(span.clone(), part)
    })
}

/// Runs `op` on each of `parts` (each a task's share and its own slice of
/// a destination): the first on the calling thread if `in_place` (else on
/// a worker of the pool, see [`scope_on`]), the others as one task spawned
/// on `pool` (the current pool if `None`), which its threads split among
/// themselves; returns the first error in part order, if any. A single
/// part runs on the calling thread, without the pool.
pub(crate) fn run_parts<T: Send + Sync>(
    pool: Option<&ThreadPool>,
    in_place: bool,
    parts: &mut [(T, &mut [u8])],
    op: impl Fn(&T, &mut [u8]) -> Result<(), RelayoutError> + Sync,
) -> Result<(), RelayoutError> {
    if let [(only, part)] = parts {
        return op(only, part);
    }
    let mut results: Vec<Result<(), RelayoutError>> = parts.iter().map(|_| Ok(())).collect();
    let (Some(((chunk, part), others)), Some((first_result, other_results))) =
        (parts.split_first_mut(), results.split_first_mut())
    else {
        return Ok(());
    };
    let op = &op;
    scope_on(pool, in_place, |scope| {
        // One task for all the others, split among the pool's threads
        // as they steal it (a task per chunk measured 2.4 times slower
        // over the fuzz target's corpus of small relayouts in many chunks).
        scope.spawn(move |_| {
            others
                .par_iter_mut()
                .zip(other_results.par_iter_mut())
                .with_max_len(1)
                .for_each(|((chunk, part), result)| *result = op(chunk, part));
        });
        *first_result = op(chunk, part);
    });
    results.into_iter().collect()
}

/// `op` in a rayon scope whose tasks go to `pool` (the current pool if
/// `None`), run on the calling thread if `in_place`, else on a worker of
/// the pool (the calling thread, if it is one).
fn scope_on<'scope>(
    pool: Option<&ThreadPool>,
    in_place: bool,
    op: impl FnOnce(&Scope<'scope>) + Send,
) {
    match (pool, in_place) {
        (Some(pool), true) => pool.in_place_scope(op),
        (Some(pool), false) => pool.scope(op),
        (None, true) => rayon::in_place_scope(op),
        (None, false) => rayon::scope(op),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::{Chunk, Placement, chunks};
    use stride_util::StridedView;

    /// Buffers at these addresses, of elements of `n` bytes.
    fn at(src_address: usize, dst_address: usize, n: usize) -> Placement {
        Placement {
            src_address,
            dst_address,
            element_size: n,
        }
    }

    /// The chunks of a copy of `view` into itself, as (start, size along
    /// the split axis) pairs, for a buffer at `address`.
    fn split(
        view: &StridedView,
        threads: usize,
        address: usize,
        n: usize,
    ) -> Option<Vec<(i64, i64)>> {
        let chunks: Vec<Chunk> = chunks(view, view, threads, &at(address, address, n)).unwrap()?;
        Some(
            chunks
                .iter()
                .map(|c| (c.start, c.dst.num_elements()))
                .collect(),
        )
    }

    #[test]
    fn chunks_start_on_cache_lines_where_the_address_allows() {
        // Rows of 1040 bytes: every 4th row starts a cache line; the even
        // splits of 300 rows in 3 (100, 200) are such rows.
        let view = StridedView::row_major(&[300, 260]).unwrap();
        assert_eq!(
            split(&view, 3, 0, 4),
            Some(vec![
                (0, 100 * 260),
                (100 * 260, 100 * 260),
                (200 * 260, 100 * 260)
            ])
        );
        // At address 48, rows 1, 5, 9, ... start cache lines: 101 and 201.
        assert_eq!(
            split(&view, 3, 48, 4),
            Some(vec![
                (0, 101 * 260),
                (101 * 260, 100 * 260),
                (201 * 260, 99 * 260)
            ])
        );
        // Rows of 64 bytes at address 16: no row starts a cache line, so
        // the splits stay even.
        let view = StridedView::row_major(&[10, 16]).unwrap();
        assert_eq!(split(&view, 2, 16, 4), Some(vec![(0, 80), (80, 80)]));
    }

    #[test]
    fn cuts_of_a_fine_source_axis_go_on_source_lines() {
        // Permute (2,0,1) of f32[4,4,64]: the destination's split axis is
        // the source's contiguous one, 16 indices to a line. On 4 threads
        // the even cuts are 16, 32, 48: source lines at source address 0,
        // whatever the destination's.
        let src = StridedView::row_major(&[4, 4, 64])
            .unwrap()
            .permute(&[2, 0, 1])
            .unwrap();
        let dst = StridedView::row_major(&[64, 4, 4]).unwrap();
        let cuts = |src_address, dst_address| -> Vec<i64> {
            chunks(&src, &dst, 4, &at(src_address, dst_address, 4))
                .unwrap()
                .unwrap()
                .iter()
                .map(|c| c.src.offset())
                .collect()
        };
        assert_eq!(cuts(0, 16), [0, 16, 32, 48]);
        // At source address 16, index 12 starts a line, then every 16th:
        // the cuts move down by 4 (the last chunk takes 20), also where
        // every cut would be on a destination line (address 0).
        assert_eq!(cuts(16, 16), [0, 12, 28, 44]);
        assert_eq!(cuts(16, 0), [0, 12, 28, 44]);
        // A source whose other strides are not whole lines (193 f32) has
        // no such cuts: those of the destination stay (rows of 48 bytes at
        // address 0: 16, 32 and 48 start lines).
        let src = StridedView::new(&[64, 4, 3], &[1, 193, 64], 0).unwrap();
        let dst = StridedView::row_major(&[64, 4, 3]).unwrap();
        let starts: Vec<i64> = chunks(&src, &dst, 4, &at(16, 0, 4))
            .unwrap()
            .unwrap()
            .iter()
            .map(|c| c.src.offset())
            .collect();
        assert_eq!(starts, [0, 16, 32, 48]);
        // The source's contiguous axis flipped (stride -1): a cut before
        // `i` falls after the element of index `i - 1`, at offset 64 - i
        // (plus 4 elements at address 16): lines at 20, 36, 52.
        let src = StridedView::row_major(&[4, 4, 64])
            .unwrap()
            .flip_axes(&[2])
            .unwrap()
            .permute(&[2, 0, 1])
            .unwrap();
        let dst = StridedView::row_major(&[64, 4, 4]).unwrap();
        let cuts: Vec<i64> = chunks(&src, &dst, 4, &at(16, 16, 4))
            .unwrap()
            .unwrap()
            .iter()
            .map(|c| c.start / 16)
            .collect();
        assert_eq!(cuts, [0, 20, 36, 52]);
    }

    #[test]
    fn chunks_of_flipped_and_padded_destinations_ascend() {
        // Flipped rows of 16 f32 (64 bytes) at offset 5 in rows of 20:
        // the chunk of rows 3..6 is lowest in the buffer.
        let view = StridedView::new(&[6, 16], &[20, 1], 5)
            .unwrap()
            .flip_axes(&[0])
            .unwrap();
        let chunks = chunks(&view, &view, 2, &at(0, 0, 4)).unwrap().unwrap();
        let starts: Vec<i64> = chunks.iter().map(|c| c.start).collect();
        assert_eq!(starts, [0, 65]);
        // The first chunk's view keeps the absolute offsets, the second's
        // are relative to its start.
        assert_eq!(chunks[0].dst.offset_range(), Some((5, 60)));
        assert_eq!(chunks[1].dst.offset_range(), Some((0, 55)));
        assert_eq!(chunks[0].src.offset(), 45);
    }

    #[test]
    fn unsplittable_destinations() {
        // One element; interleaved axes.
        assert_eq!(
            split(&StridedView::row_major(&[1, 1]).unwrap(), 4, 0, 1),
            None
        );
        let interleaved = StridedView::new(&[2, 3], &[3, 2], 0).unwrap();
        assert_eq!(split(&interleaved, 2, 0, 1), None);
        // One row is split along it (at 64 for a cache line, as 64 is
        // within an eighth of a chunk past 60, the even split).
        let row = StridedView::row_major(&[1, 120]).unwrap();
        assert_eq!(split(&row, 2, 0, 1), Some(vec![(0, 64), (64, 56)]));
        // Fewer rows than threads: each row split further, 3 and 2 ways.
        let two = StridedView::row_major(&[2, 8]).unwrap();
        assert_eq!(
            split(&two, 5, 0, 1),
            Some(vec![(0, 2), (2, 3), (5, 3), (8, 4), (12, 4)])
        );
        // Two matrices on 4 threads: each split in halves along its rows
        // (rows of 16 bytes: row 4 starts a cache line). On 5 threads the
        // first matrix gets 3.
        let batch = StridedView::row_major(&[2, 8, 16]).unwrap();
        let quarters = (0..4).map(|k| (64 * k, 64)).collect();
        assert_eq!(split(&batch, 4, 0, 1), Some(quarters));
        assert_eq!(
            split(&batch, 5, 0, 1),
            Some(vec![(0, 32), (32, 48), (80, 48), (128, 64), (192, 64)])
        );
    }
}
