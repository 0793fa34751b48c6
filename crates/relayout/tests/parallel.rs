//! The parallel relayout against the single-threaded one: the same bytes
//! for every kind of view, split 2 to 13 ways (more than this machine's
//! cores) and a million ways (capped), on rayon's global pool and on
//! callers' pools of 1 and 3 threads, and the same errors; from inside
//! pools busy with the caller's own work and from another pool's workers,
//! without deadlock (each such test fails after a timeout instead of
//! hanging). Miri does not run the pools' threads well: the tests that use
//! pools are skipped there.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::cast_possible_wrap
)]

use std::num::NonZeroUsize;
use std::sync::{Arc, Barrier, OnceLock, mpsc};
use std::time::Duration;

use proptest::prelude::*;
use rayon::prelude::*;
use rayon::{ThreadPool, ThreadPoolBuilder};
use relayout::{
    MAX_THREADS, MIN_BYTES_PER_THREAD, RelayoutError, relayout, relayout_in_pool,
    relayout_parallel, relayout_with_threads,
};
use stride_util::StridedView;

/// Bytes that differ from their neighbours, so misplaced bytes show.
fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 % 253) as u8).collect()
}

fn threads(n: usize) -> NonZeroUsize {
    NonZeroUsize::new(n).unwrap()
}

/// A caller's pool of `n` threads (1 or 3), built once for all tests.
fn pool(n: usize) -> &'static ThreadPool {
    static POOLS: [OnceLock<ThreadPool>; 2] = [OnceLock::new(), OnceLock::new()];
    POOLS[usize::from(n > 1)].get_or_init(|| {
        ThreadPoolBuilder::new()
            .num_threads(n)
            .thread_name(move |k| format!("caller's pool of {n}, thread {k}"))
            .build()
            .unwrap()
    })
}

/// `f()` on a thread of its own, which must finish within `seconds`
/// (else the test fails, rather than hanging on a deadlock).
fn within<T: Send + 'static>(seconds: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || sender.send(f()));
    receiver
        .recv_timeout(Duration::from_secs(seconds))
        .expect("finished (a deadlock or a panic otherwise)")
}

/// The destination buffer of `relayout` and of `relayout_with_threads`
/// for each thread count, on rayon's global pool and run in the callers'
/// pools of 1 and 3 threads, over a buffer with bytes before and after the
/// view (which must stay untouched).
fn check(src_view: &StridedView, dst_view: &StridedView, n: usize, thread_counts: &[usize]) {
    let src = pattern(src_view.min_buffer_len().unwrap() as usize * n + 3);
    let dst_len = dst_view.min_buffer_len().unwrap() as usize * n + 70;
    let mut expected = vec![0xAA; dst_len];
    relayout(&src, src_view, &mut expected, dst_view, n).unwrap();
    for &count in thread_counts {
        let copy = |actual: &mut [u8]| {
            relayout_with_threads(&src, src_view, actual, dst_view, n, threads(count)).unwrap();
        };
        let mut actual = vec![0xAA; dst_len];
        copy(&mut actual);
        assert!(
            actual == expected,
            "{src_view:?} -> {dst_view:?}, {n} bytes, {count} threads"
        );
        if cfg!(miri) {
            continue;
        }
        for pool_threads in [1, 3] {
            let mut actual = vec![0xAA; dst_len];
            pool(pool_threads).install(|| copy(&mut actual));
            assert!(
                actual == expected,
                "{src_view:?} -> {dst_view:?}, {n} bytes, {count} threads, pool of {pool_threads}"
            );
        }
    }
}

fn rm(sizes: &[i64]) -> StridedView {
    StridedView::row_major(sizes).unwrap()
}

#[test]
fn transposes_and_permutations_for_every_element_size() {
    let a = rm(&[300, 260]);
    let t = rm(&[260, 300]);
    for n in [1, 2, 3, 4, 8, 16] {
        check(&a.transpose(), &t, n, &[2, 3, 4]);
        check(&t, &a.transpose(), n, &[2, 3, 4]);
    }
    // f32 [40,50,60] permuted (2,0,1), and NCHW -> NHWC and back.
    let cube = rm(&[40, 50, 60]);
    let permuted = cube.permute(&[2, 0, 1]).unwrap();
    check(&permuted, &rm(&[60, 40, 50]), 4, &[2, 3, 4]);
    let sizes = [5, 64, 14, 14];
    let (nchw, nhwc) = (
        StridedView::nchw(&sizes).unwrap(),
        StridedView::nhwc(&sizes).unwrap(),
    );
    check(&nchw, &nhwc, 4, &[2, 3, 4]);
    check(&nhwc, &nchw, 2, &[2, 3, 4]);
}

/// Permutes whose split axis is the source's contiguous one, with the
/// source at every 4-byte offset of a line (the cuts move to the source's
/// lines, by up to half a line's indices, flipped or not), on 2 to 17
/// chunks: the bytes of the single-threaded relayout.
#[test]
fn cuts_on_source_lines_at_every_offset() {
    let cube = rm(&[6, 5, 48]);
    let dst = rm(&[48, 6, 5]);
    let flipped = cube.flip_axes(&[2]).unwrap().permute(&[2, 0, 1]).unwrap();
    let counts: Vec<usize> = if cfg!(miri) {
        vec![3]
    } else {
        (2..=17).collect()
    };
    for src_view in [cube.permute(&[2, 0, 1]).unwrap(), flipped] {
        let len = src_view.min_buffer_len().unwrap() as usize * 4;
        let buffer = pattern(len + 128);
        // The first byte of the buffer that starts a line.
        let line = buffer.as_ptr().align_offset(64);
        for shift in (0..64).step_by(if cfg!(miri) { 16 } else { 4 }) {
            let src = &buffer[line + shift..][..len];
            let mut expected = vec![0xAA; len];
            relayout(src, &src_view, &mut expected, &dst, 4).unwrap();
            for &count in &counts {
                let mut actual = vec![0xAA; len];
                relayout_with_threads(src, &src_view, &mut actual, &dst, 4, threads(count))
                    .unwrap();
                assert!(
                    actual == expected,
                    "source {shift} bytes past a line, {count} chunks"
                );
            }
        }
    }
}

#[test]
fn flips_padding_and_offsets() {
    let a = rm(&[97, 131]);
    for n in [1, 4, 8] {
        // Flipped destination (negative strides), flipped source.
        check(&a, &a.flip().unwrap(), n, &[2, 3, 4]);
        check(&a.flip().unwrap(), &a, n, &[2, 3, 4]);
        check(
            &a.transpose().flip().unwrap(),
            &rm(&[131, 97]).flip().unwrap(),
            n,
            &[2, 3, 4],
        );
        // Padded destination rows at an offset, and a flipped outer axis.
        let padded = StridedView::new(&[97, 131], &[150, 1], 11).unwrap();
        check(&a, &padded, n, &[2, 3, 4]);
        check(
            &a.transpose().transpose(),
            &padded.flip_axes(&[0]).unwrap(),
            n,
            &[3],
        );
        // Column-major destination: the split axis is the last one.
        check(
            &a,
            &StridedView::column_major(&[97, 131]).unwrap(),
            n,
            &[2, 4],
        );
    }
}

#[test]
fn sources_with_zero_strides_and_overlap() {
    // Broadcast rows and columns, sliding windows (overlapping source).
    let row = rm(&[257]).broadcast_to(&[90, 257]).unwrap();
    let column = rm(&[90, 1]).broadcast_to(&[90, 257]).unwrap();
    let windows = StridedView::as_strided(400, &[90, 257], &[1, 1], 0).unwrap();
    for src in [row, column, windows] {
        check(&src, &rm(&[90, 257]), 4, &[2, 3, 4]);
        check(&src, &rm(&[257, 90]).transpose(), 2, &[2, 3, 4]);
    }
}

#[test]
fn short_outer_axes_and_unsplittable_destinations() {
    // Fewer outer indices than threads; a single element; rank 0.
    check(
        &rm(&[2, 64, 64]).permute(&[0, 2, 1]).unwrap(),
        &rm(&[2, 64, 64]),
        4,
        &[4, 5],
    );
    check(&rm(&[1, 1]), &rm(&[1, 1]), 8, &[3]);
    check(&rm(&[]), &rm(&[]), 4, &[2]);
    // Huge thread counts: at most MAX_THREADS chunks, not one per element.
    check(
        &rm(&[64, 64]).transpose(),
        &rm(&[64, 64]),
        1,
        &[1_000_000, usize::MAX],
    );
    check(
        &rm(&[3000, 3]).transpose(),
        &rm(&[3, 3000]),
        4,
        &[1, 2, 7, MAX_THREADS, 1_000_000],
    );
    // Interleaved but not overlapping: offsets 0,2,4 and 3,5,7; no axis's
    // stride exceeds the reach of the other, so one thread copies.
    let interleaved = StridedView::new(&[2, 3], &[3, 2], 0).unwrap();
    check(&rm(&[2, 3]), &interleaved, 4, &[2, 3]);
    // Empty views.
    check(&rm(&[0, 5]), &rm(&[0, 5]), 4, &[2]);
}

/// Above `2 × MIN_BYTES_PER_THREAD` the default entries split the copy
/// (`relayout_parallel` on a machine with at least 2 cores, and
/// `relayout_in_pool` on a pool of 3 threads), and take the kernels that
/// only large relayouts take (streaming NCHW -> NHWC from 8 MiB); on a
/// pool of one thread `relayout_in_pool` copies on the calling thread.
#[test]
fn default_entries_at_parallel_sizes() {
    let side = ((3 * MIN_BYTES_PER_THREAD / 4) as f64).sqrt() as i64 + 16;
    let a = rm(&[side, side]);
    let sizes = [11, 64, 56, 56];
    let (nchw, nhwc) = (
        StridedView::nchw(&sizes).unwrap(),
        StridedView::nhwc(&sizes).unwrap(),
    );
    for (src_view, dst_view) in [(a.transpose(), a), (nchw, nhwc)] {
        let src = pattern(src_view.min_buffer_len().unwrap() as usize * 4);
        let mut expected = vec![0u8; src.len()];
        relayout(&src, &src_view, &mut expected, &dst_view, 4).unwrap();
        let mut actual = vec![0u8; src.len()];
        relayout_parallel(&src, &src_view, &mut actual, &dst_view, 4).unwrap();
        assert!(actual == expected, "{src_view:?} -> {dst_view:?}");
        actual.fill(0);
        relayout_with_threads(&src, &src_view, &mut actual, &dst_view, 4, threads(3)).unwrap();
        assert!(
            actual == expected,
            "{src_view:?} -> {dst_view:?}, 3 threads"
        );
        if cfg!(miri) {
            continue;
        }
        for pool_threads in [1, 3] {
            actual.fill(0);
            relayout_in_pool(
                pool(pool_threads),
                &src,
                &src_view,
                &mut actual,
                &dst_view,
                4,
            )
            .unwrap();
            assert!(
                actual == expected,
                "{src_view:?} -> {dst_view:?}, pool of {pool_threads}"
            );
        }
    }
}

/// A copy of contiguous runs makes a chunk per `2 × MIN_BYTES_PER_THREAD`
/// bytes, a transpose one per `MIN_BYTES_PER_THREAD`: at 3 × that size,
/// `relayout_in_pool` copies on the calling thread, finishing while every
/// thread of the pool is blocked, and splits the transpose, which waits
/// for the pool.
#[test]
#[cfg_attr(miri, ignore)]
fn copies_of_runs_split_at_twice_the_size() {
    let pool = Arc::new(ThreadPoolBuilder::new().num_threads(2).build().unwrap());
    let release = Arc::new(Barrier::new(3));
    let (started, blocked) = mpsc::channel();
    for _ in 0..2 {
        let (started, release) = (started.clone(), Arc::clone(&release));
        pool.spawn(move || {
            started.send(()).unwrap();
            release.wait();
        });
    }
    for _ in 0..2 {
        blocked.recv().unwrap();
    }
    // 3 × MIN_BYTES_PER_THREAD of f32 in rows of 1 KiB.
    let rows = (3 * MIN_BYTES_PER_THREAD / 1024) as i64;
    let dst_view = rm(&[rows, 256]);
    let start = |src_view: StridedView| {
        let (pool, dst_view) = (Arc::clone(&pool), dst_view.clone());
        std::thread::spawn(move || {
            let src = pattern(rows as usize * 1024);
            let mut dst = vec![0; src.len()];
            relayout_in_pool(&pool, &src, &src_view, &mut dst, &dst_view, 4).unwrap();
            let mut expected = vec![0; src.len()];
            relayout(&src, &src_view, &mut expected, &dst_view, 4).unwrap();
            dst == expected
        })
    };
    let copying = start(dst_view.clone());
    let transposing = start(rm(&[256, rows]).transpose());
    assert!(within(60, move || copying.join().unwrap()));
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        !transposing.is_finished(),
        "the transpose ran on one thread"
    );
    release.wait();
    assert!(within(60, move || transposing.join().unwrap()));
}

/// Every entry's result for a copy of `src_view` over `src` into
/// `dst_view` over a buffer of `dst_len` bytes: an error, the same as
/// `relayout`'s.
fn same_error(
    src: &[u8],
    src_view: &StridedView,
    dst_len: usize,
    dst_view: &StridedView,
    n: usize,
) {
    let mut dst = vec![0u8; dst_len];
    let expected = relayout(src, src_view, &mut dst, dst_view, n);
    assert!(matches!(
        expected,
        Err(RelayoutError::ShapeMismatch { .. }
            | RelayoutError::OutsideBuffer { .. }
            | RelayoutError::OverlappingDestination { .. }
            | RelayoutError::ElementSize { bits: 0 })
    ));
    let context = format!("{src_view:?} -> {dst_view:?}, {n} bytes");
    for count in [1, 2, 4, 7, 1_000_000] {
        let actual = relayout_with_threads(src, src_view, &mut dst, dst_view, n, threads(count));
        assert_eq!(actual, expected, "{context}, {count} threads");
    }
    assert_eq!(
        relayout_parallel(src, src_view, &mut dst, dst_view, n),
        expected,
        "{context}"
    );
    if cfg!(miri) {
        return;
    }
    for pool_threads in [1, 3] {
        let pool = pool(pool_threads);
        let actual = relayout_in_pool(pool, src, src_view, &mut dst, dst_view, n);
        assert_eq!(actual, expected, "{context}, pool of {pool_threads}");
        let actual = pool.install(|| relayout_parallel(src, src_view, &mut dst, dst_view, n));
        assert_eq!(actual, expected, "{context}, in a pool of {pool_threads}");
        let actual = pool
            .install(|| relayout_with_threads(src, src_view, &mut dst, dst_view, n, threads(5)));
        assert_eq!(
            actual, expected,
            "{context}, 5 threads in a pool of {pool_threads}"
        );
    }
}

#[test]
fn errors_are_those_of_relayout() {
    let a = rm(&[20, 30]);
    let broadcast = rm(&[30]).broadcast_to(&[20, 30]).unwrap();
    same_error(&[0; 600], &a, 600, &a.transpose(), 1);
    same_error(&[0; 599], &a, 600, &a, 1);
    same_error(&[0; 1200], &a, 1199, &a, 2);
    same_error(&[0; 600], &a, 600, &broadcast, 1);
    same_error(&[0; 600], &a, 600, &a, 0);
    same_error(&[0; 600], &rm(&[0, 30]), 0, &rm(&[0, 30]), 0);
    // At the sizes where every entry splits (6 MiB of f32: 3 chunks).
    let (rows, cols) = (1024, 1536);
    let len = (rows * cols * 4) as usize;
    let big = rm(&[rows, cols]);
    let src = vec![0; len];
    let broadcast = rm(&[cols]).broadcast_to(&[rows, cols]).unwrap();
    same_error(&src, &big.transpose(), len, &big, 4);
    same_error(&src[..len - 1], &big, len, &big, 4);
    same_error(&src, &rm(&[cols, rows]).transpose(), len - 4, &big, 4);
    same_error(&src, &big, len, &broadcast, 4);
    same_error(&src, &big, len, &big, 0);
}

/// A random view with any strides (zero and negative included: sources
/// may overlap), offset so that it starts at element 0 or a bit later.
fn arb_source() -> impl Strategy<Value = StridedView> {
    prop::collection::vec((1_i64..9, -12_i64..13), 1..5).prop_flat_map(|dims| {
        let (sizes, strides): (Vec<i64>, Vec<i64>) = dims.into_iter().unzip();
        let below: i64 = sizes
            .iter()
            .zip(&strides)
            .map(|(n, s)| (n - 1) * s.min(&0))
            .sum();
        (0_i64..3).prop_map(move |extra| StridedView::new(&sizes, &strides, extra - below).unwrap())
    })
}

/// A random non-overlapping destination of `sizes`: a permutation of a
/// row-major layout with padding after each dimension, some axes flipped.
fn arb_destination(sizes: Vec<i64>) -> impl Strategy<Value = StridedView> {
    let rank = sizes.len();
    (
        Just((0..rank).collect::<Vec<usize>>()).prop_shuffle(),
        prop::collection::vec((0_i64..3, any::<bool>()), rank),
    )
        .prop_map(move |(order, pads)| {
            // Physical dimension k (outermost first) is logical order[k].
            let mut strides = vec![0_i64; rank];
            let mut stride = 1;
            for &axis in order.iter().rev() {
                strides[axis] = stride;
                stride *= sizes[axis] + pads[axis].0;
            }
            let view = StridedView::new(&sizes, &strides, 0).unwrap();
            let flips: Vec<i64> = (0..rank as i64).filter(|&a| pads[a as usize].1).collect();
            view.flip_axes(&flips).unwrap()
        })
}

proptest! {
    #[test]
    fn same_bytes_as_relayout(
        (src, dst) in arb_source().prop_flat_map(|src| {
            let sizes = src.sizes().to_vec();
            (Just(src), arb_destination(sizes))
        }),
        n in prop::sample::select(vec![1_usize, 2, 3, 4, 8, 16]),
        count in 2_usize..6,
    ) {
        check(&src, &dst, n, &[count]);
    }
}

/// A relayout of 8 MiB and more streams on every thread, however small
/// each thread's share (7 and 13 threads here: shares of about 1 MiB, cut
/// anywhere in a block); every element size with register blocks.
#[test]
fn large_relayouts_split_into_small_shares() {
    for (n, rows, cols) in [
        (1, 2048 + 5, 4096 + 3),
        (2, 2048, 2048 + 9),
        (4, 1024 + 7, 2048),
        (8, 1024 + 3, 1024 + 1),
    ] {
        let src_view = rm(&[rows, cols]);
        let dst_view = rm(&[cols, rows]).transpose();
        check(&src_view, &dst_view, n, &[7, 13]);
    }
}

/// A transpose of f32 large enough that the default entries split it:
/// the source, its views and the expected destination.
struct Large {
    src: Vec<u8>,
    src_view: StridedView,
    dst_view: StridedView,
    expected: Vec<u8>,
}

impl Large {
    /// 6 MiB (in 3 chunks at most: the calling thread outside the pool
    /// runs one), or if `streams` 10 MiB (streaming stores: a worker of
    /// the pool runs them all).
    fn new(streams: bool) -> Arc<Self> {
        let (rows, cols) = (1024, if streams { 2560 } else { 1536 });
        let src_view = rm(&[cols, rows]).transpose();
        let dst_view = rm(&[rows, cols]);
        let src = pattern((rows * cols * 4) as usize);
        let mut expected = vec![0; src.len()];
        relayout(&src, &src_view, &mut expected, &dst_view, 4).unwrap();
        Arc::new(Self {
            src,
            src_view,
            dst_view,
            expected,
        })
    }

    /// Whether `copy` (given the source, the views and the destination)
    /// writes the expected bytes.
    fn copies(
        &self,
        copy: impl FnOnce(&[u8], &StridedView, &mut [u8], &StridedView) -> Result<(), RelayoutError>,
    ) -> bool {
        let mut dst = vec![0; self.src.len()];
        copy(&self.src, &self.src_view, &mut dst, &self.dst_view).unwrap();
        dst == self.expected
    }
}

/// Work of the caller's own that keeps a thread busy for a while.
fn busy_work() -> u64 {
    std::thread::sleep(Duration::from_millis(50));
    (0..200_000_u64).fold(0, |acc, i| acc.wrapping_mul(31).wrapping_add(i))
}

/// A pool whose threads run the caller's own work beside the relayout
/// (the other half of a `join`, the other items of a `par_iter`) still
/// finishes with the right bytes, on callers' pools of 1 and 3 threads and
/// on the global pool, below 8 MiB and above.
#[test]
#[cfg_attr(miri, ignore)]
fn pools_busy_with_the_callers_work() {
    for streams in [false, true] {
        pools_busy_with_the_callers_work_on(Large::new(streams));
    }
}

fn pools_busy_with_the_callers_work_on(large: Arc<Large>) {
    let ok = within(120, move || {
        let mut ok = Vec::new();
        for pool_threads in [1, 3] {
            let pool = pool(pool_threads);
            // Half of a join, from a worker of the same pool.
            let (copied, _) = pool.install(|| {
                rayon::join(
                    || large.copies(|s, sv, d, dv| relayout_in_pool(pool, s, sv, d, dv, 4)),
                    busy_work,
                )
            });
            ok.push(copied);
            let (_, copied) = pool.install(|| {
                rayon::join(busy_work, || {
                    large.copies(|s, sv, d, dv| relayout_with_threads(s, sv, d, dv, 4, threads(7)))
                })
            });
            ok.push(copied);
            // Every item of a par_iter of the same pool relayouts.
            let copied: Vec<bool> = pool.install(|| {
                (0..4)
                    .into_par_iter()
                    .map(|k| match k % 2 {
                        0 => large.copies(|s, sv, d, dv| relayout_in_pool(pool, s, sv, d, dv, 4)),
                        _ => large.copies(|s, sv, d, dv| relayout_parallel(s, sv, d, dv, 4)),
                    })
                    .collect()
            });
            ok.extend(copied);
            // From outside, while every thread of the pool is busy.
            for _ in 0..pool_threads {
                pool.spawn(|| {
                    busy_work();
                });
            }
            ok.push(large.copies(|s, sv, d, dv| relayout_in_pool(pool, s, sv, d, dv, 4)));
        }
        // The global pool, busy with a par_iter of relayouts and work.
        let copied: Vec<bool> = (0..4)
            .into_par_iter()
            .map(|k| {
                if k % 2 == 0 {
                    busy_work();
                }
                large.copies(|s, sv, d, dv| relayout_parallel(s, sv, d, dv, 4))
            })
            .collect();
        ok.extend(copied);
        ok
    });
    assert!(ok.iter().all(|&ok| ok), "{ok:?}");
}

/// `relayout_in_pool` of one pool called from the workers of another (and
/// from a worker of the global pool), both ways; and a pool built with
/// `num_threads(0)` (rayon's default count); below 8 MiB and above.
#[test]
#[cfg_attr(miri, ignore)]
fn nested_pools() {
    for streams in [false, true] {
        nested_pools_on(Large::new(streams));
    }
}

fn nested_pools_on(large: Arc<Large>) {
    let ok = within(120, move || {
        let (one, three) = (pool(1), pool(3));
        let mut ok: Vec<bool> = three.install(|| {
            (0..3)
                .into_par_iter()
                .map(|_| large.copies(|s, sv, d, dv| relayout_in_pool(one, s, sv, d, dv, 4)))
                .collect()
        });
        ok.push(
            one.install(|| large.copies(|s, sv, d, dv| relayout_in_pool(three, s, sv, d, dv, 4))),
        );
        let (a, b) = rayon::join(
            || three.install(|| large.copies(|s, sv, d, dv| relayout_parallel(s, sv, d, dv, 4))),
            || large.copies(|s, sv, d, dv| relayout_in_pool(three, s, sv, d, dv, 4)),
        );
        ok.extend([a, b]);
        let default = ThreadPoolBuilder::new().num_threads(0).build().unwrap();
        ok.push(large.copies(|s, sv, d, dv| relayout_in_pool(&default, s, sv, d, dv, 4)));
        ok
    });
    assert!(ok.iter().all(|&ok| ok), "{ok:?}");
}
