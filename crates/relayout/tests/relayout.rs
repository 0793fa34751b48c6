//! The relayout engine against a naive element-by-element copy, for every
//! strategy and element size, plus its error cases.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::cast_possible_wrap
)]

// The naive references shared with stride-util's tests.
#[path = "../../stride-util/tests/common/mod.rs"]
mod common;

use common::{logical_indices, naive_offset};
use proptest::prelude::*;
use relayout::{
    RelayoutError, Strategy as CopyStrategy, relayout, relayout_bits, relayout_strategy,
};
use stride_util::StridedView;

/// A buffer whose bytes are all different-ish (so misplaced bytes show).
fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 % 253) as u8).collect()
}

/// The naive copy: every logical index, offsets computed from scratch.
fn naive(src: &[u8], src_view: &StridedView, dst: &mut [u8], dst_view: &StridedView, n: usize) {
    for index in logical_indices(src_view.sizes()) {
        let s = naive_offset(src_view, &index) as usize * n;
        let d = naive_offset(dst_view, &index) as usize * n;
        dst[d..d + n].copy_from_slice(&src[s..s + n]);
    }
}

/// Runs both copies into identical destination buffers and compares.
fn check(src_view: &StridedView, dst_view: &StridedView, n: usize) {
    let src = pattern(src_view.min_buffer_len().unwrap() as usize * n + 3);
    let dst_len = dst_view.min_buffer_len().unwrap() as usize * n + 5;
    let mut expected = vec![0xAA; dst_len];
    let mut actual = vec![0xAA; dst_len];
    naive(&src, src_view, &mut expected, dst_view, n);
    relayout(&src, src_view, &mut actual, dst_view, n).unwrap();
    assert_eq!(actual, expected, "{src_view:?} -> {dst_view:?}, {n} bytes");
}

#[test]
fn transposes_for_every_element_size() {
    for (rows, cols) in [(4096 / 64, 300), (37, 129), (128, 128), (9, 200), (3, 5)] {
        let a = StridedView::row_major(&[rows, cols]).unwrap();
        let t = StridedView::row_major(&[cols, rows]).unwrap();
        for n in [1, 2, 3, 4, 8, 16] {
            check(&a.transpose(), &t, n);
        }
    }
    let a = StridedView::row_major(&[64, 64]).unwrap();
    assert_eq!(
        relayout_strategy(&a.transpose(), &a, 4),
        CopyStrategy::Tiled
    );
}

/// Larger than one tile along both dimensions (tiles hold up to 256 or 512
/// source rows of up to 512 elements), with ragged last tiles and ragged
/// register blocks, in a batch, with padded source and destination rows;
/// and NCHW→NHWC with several tiles per image.
#[test]
fn transposes_across_several_tiles() {
    for (n, rows, cols) in [(1, 530, 1030), (2, 270, 523), (4, 270, 523), (8, 261, 515)] {
        let a = StridedView::new(&[2, rows, cols], &[rows * (cols + 3), cols + 3, 1], 5).unwrap();
        let t = StridedView::new(&[2, cols, rows], &[cols * (rows + 1), rows + 1, 1], 1).unwrap();
        check(&a.permute(&[0, 2, 1]).unwrap(), &t, n);
    }
    let (a, t) = (
        StridedView::row_major(&[300, 700]).unwrap(),
        StridedView::row_major(&[700, 300]).unwrap(),
    );
    check(&a.transpose(), &t, 16);
    // Few source rows (channels) and long ones: the next tile's source is
    // prefetched while a tile is written.
    let nchw = StridedView::nchw(&[2, 40, 33, 35]).unwrap();
    let nhwc = StridedView::nhwc(&[2, 40, 33, 35]).unwrap();
    for n in [1, 2, 4, 8] {
        check(&nchw, &nhwc, n);
    }
}

#[test]
fn nchw_to_nhwc_and_back() {
    let nchw = StridedView::nchw(&[2, 19, 7, 9]).unwrap();
    let nhwc = StridedView::nhwc(&[2, 19, 7, 9]).unwrap();
    assert_eq!(relayout_strategy(&nchw, &nhwc, 4), CopyStrategy::Tiled);
    for n in [1, 2, 4, 8] {
        check(&nchw, &nhwc, n);
        check(&nhwc, &nchw, n);
    }
}

#[test]
fn runs_single_copy_and_strided() {
    let a = StridedView::row_major(&[6, 10]).unwrap();
    let padded = StridedView::new(&[6, 10], &[13, 1], 2).unwrap();
    assert_eq!(relayout_strategy(&a, &a, 4), CopyStrategy::SingleCopy);
    assert_eq!(relayout_strategy(&a, &padded, 4), CopyStrategy::Runs);
    check(&a, &a, 4);
    check(&a, &padded, 4);
    check(&padded, &a, 2);
    let every_other = StridedView::new(&[6, 10], &[20, 2], 0).unwrap();
    assert_eq!(
        relayout_strategy(&every_other, &a, 8),
        CopyStrategy::Strided
    );
    check(&every_other, &a, 8);
    check(&a.flip().unwrap(), &a, 4);
    let broadcast = StridedView::row_major(&[10])
        .unwrap()
        .broadcast_to(&[6, 10])
        .unwrap();
    check(&broadcast, &a, 1);
}

#[test]
fn errors() {
    let a = StridedView::row_major(&[2, 3]).unwrap();
    let mut dst = [0u8; 6];
    assert_eq!(
        relayout(&[0u8; 6], &a, &mut dst, &a.transpose(), 1),
        Err(RelayoutError::ShapeMismatch {
            source_shape: "(2,3)".into(),
            destination_shape: "(3,2)".into()
        })
    );
    assert_eq!(
        relayout(&[0u8; 5], &a, &mut dst, &a, 1),
        Err(RelayoutError::OutsideBuffer {
            side: "source",
            offset: 5,
            len: 5
        })
    );
    assert_eq!(
        relayout(&[0u8; 12], &a, &mut dst, &a, 2),
        Err(RelayoutError::OutsideBuffer {
            side: "destination",
            offset: 5,
            len: 3
        })
    );
    let broadcast = StridedView::row_major(&[3])
        .unwrap()
        .broadcast_to(&[2, 3])
        .unwrap();
    assert_eq!(
        relayout(&[0u8; 6], &a, &mut dst, &broadcast, 1)
            .unwrap_err()
            .to_string(),
        "destination view with shape (2,3) and strides (0,1) writes some element twice"
    );
    assert_eq!(
        relayout_bits(&[0u8; 6], &a, &mut dst, &a, 3),
        Err(RelayoutError::ElementSize { bits: 3 })
    );
}

/// A random view over its own buffer: a row-major base, permuted, sliced
/// with random steps (possibly negative), maybe broadcast.
fn arb_view(max_rank: usize) -> impl Strategy<Value = StridedView> {
    (1..=max_rank)
        .prop_flat_map(|rank| {
            (
                prop::collection::vec(1_i64..7, rank),
                Just((0..rank).collect::<Vec<usize>>()).prop_shuffle(),
                prop::collection::vec(
                    (0_i64..3, prop::sample::select(vec![1_i64, 2, -1, -2])),
                    rank,
                ),
            )
        })
        .prop_map(|(sizes, order, slices)| {
            let base = StridedView::row_major(&sizes).unwrap();
            let order: Vec<i64> = order.iter().map(|&a| a as i64).collect();
            let permuted = base.permute(&order).unwrap();
            let items: Vec<stride_util::IndexItem> = slices
                .iter()
                .map(|&(start, step)| {
                    if step > 0 {
                        stride_util::IndexItem::slice(Some(start), None, Some(step))
                    } else {
                        stride_util::IndexItem::slice(Some(-1 - start), None, Some(step))
                    }
                })
                .collect();
            permuted.index(&items).unwrap()
        })
}

proptest! {
    #[test]
    fn relayout_equals_naive_copy(
        src in arb_view(4),
        order in any::<u64>(),
        n in prop::sample::select(vec![1_usize, 2, 4, 8, 16, 3]),
    ) {
        // Destination: the source's shape in a packed layout given by a
        // permutation derived from `order`.
        let rank = src.ndim();
        let mut perm: Vec<usize> = (0..rank).collect();
        let mut seed = order;
        for i in (1..rank).rev() {
            perm.swap(i, (seed % (i as u64 + 1)) as usize);
            seed /= i as u64 + 1;
        }
        let physical: Vec<i64> = perm.iter().map(|&d| src.sizes()[d]).collect();
        let packed = StridedView::row_major(&physical).unwrap();
        let mut inverse = vec![0_i64; rank];
        for (i, &d) in perm.iter().enumerate() {
            inverse[d] = i as i64;
        }
        let dst = packed.permute(&inverse).unwrap();
        prop_assert_eq!(dst.sizes(), src.sizes());
        check(&src, &dst, n);
        check(&dst, &src.flip().unwrap(), n);
    }
}

#[test]
fn a_reversed_destination_over_a_forward_source_is_not_tiled() {
    // Found by the parallel property test: flipping the reversed
    // destination dimension reverses the source's, and the transposing
    // kernel (which walks source rows forwards) overflowed its offsets.
    let src = StridedView::new(&[8, 5, 8], &[1, 1, 5], 0).unwrap();
    let dst = StridedView::new(&[8, 5, 8], &[40, 8, -1], 7).unwrap();
    for n in [1, 2, 4, 8] {
        check(&src, &dst, n);
    }
}
