//! The parallel relayout against the single-threaded one: the same bytes
//! for every kind of view, on 2 to 5 threads (more than this machine's
//! cores), and the same errors.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::cast_possible_wrap
)]

use std::num::NonZeroUsize;

use proptest::prelude::*;
use relayout::{
    MIN_BYTES_PER_THREAD, RelayoutError, relayout, relayout_parallel, relayout_with_threads,
};
use stride_util::StridedView;

/// Bytes that differ from their neighbours, so misplaced bytes show.
fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 % 253) as u8).collect()
}

fn threads(n: usize) -> NonZeroUsize {
    NonZeroUsize::new(n).unwrap()
}

/// The destination buffer of `relayout` and of `relayout_with_threads`
/// for each thread count, over a buffer with bytes before and after the
/// view (which must stay untouched).
fn check(src_view: &StridedView, dst_view: &StridedView, n: usize, thread_counts: &[usize]) {
    let src = pattern(src_view.min_buffer_len().unwrap() as usize * n + 3);
    let dst_len = dst_view.min_buffer_len().unwrap() as usize * n + 70;
    let mut expected = vec![0xAA; dst_len];
    relayout(&src, src_view, &mut expected, dst_view, n).unwrap();
    for &count in thread_counts {
        let mut actual = vec![0xAA; dst_len];
        relayout_with_threads(&src, src_view, &mut actual, dst_view, n, threads(count)).unwrap();
        assert!(
            actual == expected,
            "{src_view:?} -> {dst_view:?}, {n} bytes, {count} threads"
        );
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
    // A huge thread count: at most MAX_THREADS chunks, not one per element.
    check(&rm(&[64, 64]).transpose(), &rm(&[64, 64]), 1, &[usize::MAX]);
    // Interleaved but not overlapping: offsets 0,2,4 and 3,5,7; no axis's
    // stride exceeds the reach of the other, so one thread copies.
    let interleaved = StridedView::new(&[2, 3], &[3, 2], 0).unwrap();
    check(&rm(&[2, 3]), &interleaved, 4, &[2, 3]);
    // Empty views.
    check(&rm(&[0, 5]), &rm(&[0, 5]), 4, &[2]);
}

/// Above `2 × MIN_BYTES_PER_THREAD` the default entry splits the copy
/// (on a machine with at least 2 cores), and takes the kernels that only
/// large relayouts take (streaming NCHW -> NHWC from 8 MiB).
#[test]
fn default_entry_at_parallel_sizes() {
    let side = ((2 * MIN_BYTES_PER_THREAD / 4) as f64).sqrt() as i64 + 16;
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
        relayout_with_threads(&src, &src_view, &mut actual, &dst_view, 4, threads(3)).unwrap();
        assert!(
            actual == expected,
            "{src_view:?} -> {dst_view:?}, 3 threads"
        );
    }
}

#[test]
fn errors_are_those_of_relayout() {
    let a = rm(&[20, 30]);
    let broadcast = rm(&[30]).broadcast_to(&[20, 30]).unwrap();
    let cases: [(&[u8], &StridedView, usize, &StridedView, usize); 6] = [
        (&[0; 600], &a, 600, &a.transpose(), 1),
        (&[0; 599], &a, 600, &a, 1),
        (&[0; 1200], &a, 1199, &a, 2),
        (&[0; 600], &a, 600, &broadcast, 1),
        (&[0; 600], &a, 600, &a, 0),
        (&[0; 600], &rm(&[0, 30]), 0, &rm(&[0, 30]), 0),
    ];
    for (src, src_view, dst_len, dst_view, n) in cases {
        let mut dst = vec![0u8; dst_len];
        let expected = relayout(src, src_view, &mut dst, dst_view, n);
        assert!(matches!(
            expected,
            Err(RelayoutError::ShapeMismatch { .. }
                | RelayoutError::OutsideBuffer { .. }
                | RelayoutError::OverlappingDestination { .. }
                | RelayoutError::ElementSize { bits: 0 })
        ));
        for count in [1, 2, 4] {
            let actual =
                relayout_with_threads(src, src_view, &mut dst, dst_view, n, threads(count));
            assert_eq!(actual, expected, "{count} threads");
        }
        assert_eq!(
            relayout_parallel(src, src_view, &mut dst, dst_view, n),
            expected
        );
    }
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
