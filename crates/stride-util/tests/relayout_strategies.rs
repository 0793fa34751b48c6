//! Every strategy of the relayout engine against a naive element-by-element
//! copy, at the sizes that select it: flipped (negative-stride) and
//! permuted views on both sides, padded destinations, every element size.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::cast_possible_wrap
)]

use stride_util::{Strategy, StridedView, relayout, relayout_strategy};

/// Distinct-ish bytes, so that a misplaced byte shows.
fn pattern(len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i * 7 % 251) as u8 ^ (i >> 8) as u8)
        .collect()
}

/// Calls `f(index)` for every multi-index of `sizes`, row-major.
fn for_each_index(sizes: &[i64], mut f: impl FnMut(&[i64])) {
    if sizes.contains(&0) {
        return;
    }
    let mut index = vec![0_i64; sizes.len()];
    loop {
        f(&index);
        let mut k = sizes.len();
        loop {
            if k == 0 {
                return;
            }
            k -= 1;
            index[k] += 1;
            if index[k] < sizes[k] {
                break;
            }
            index[k] = 0;
        }
    }
}

/// `offset + Σ index · stride`, from scratch.
fn offset_of(view: &StridedView, index: &[i64]) -> usize {
    let offset = view.offset()
        + index
            .iter()
            .zip(view.strides())
            .map(|(i, s)| i * s)
            .sum::<i64>();
    usize::try_from(offset).unwrap()
}

/// The naive copy of `n`-byte elements.
fn naive(src: &[u8], src_view: &StridedView, dst: &mut [u8], dst_view: &StridedView, n: usize) {
    for_each_index(src_view.sizes(), |index| {
        let (s, d) = (
            offset_of(src_view, index) * n,
            offset_of(dst_view, index) * n,
        );
        dst[d..d + n].copy_from_slice(&src[s..s + n]);
    });
}

/// Relayouts `src_view` into `dst_view` with `n`-byte elements and checks
/// every byte of the destination buffer against the naive copy; returns
/// the strategy.
fn check(src_view: &StridedView, dst_view: &StridedView, n: usize) -> Strategy {
    let src = pattern(src_view.min_buffer_len().unwrap() as usize * n + 3);
    let dst_len = dst_view.min_buffer_len().unwrap() as usize * n + 5;
    let mut expected = vec![0xA5; dst_len];
    let mut actual = expected.clone();
    naive(&src, src_view, &mut expected, dst_view, n);
    relayout(&src, src_view, &mut actual, dst_view, n).unwrap();
    if actual != expected {
        let wrong = actual.iter().zip(&expected).filter(|(a, e)| a != e).count();
        panic!("{src_view:?} -> {dst_view:?}, {n}-byte elements: {wrong} of {dst_len} bytes wrong");
    }
    relayout_strategy(src_view, dst_view, n)
}

#[test]
fn transpose_of_a_flipped_source_issue_12() {
    // The transpose of a vertically flipped 8×8 array, copied to row-major:
    // the tiled kernel's source rows run backwards.
    let src_view = StridedView::new(&[8, 8], &[1, -8], 56).unwrap();
    let dst_view = StridedView::row_major(&[8, 8]).unwrap();
    for n in [1, 2, 3, 4, 8, 16] {
        let expected = if n == 3 {
            Strategy::Elements
        } else {
            Strategy::Tiled
        };
        assert_eq!(check(&src_view, &dst_view, n), expected);
    }
    let big = StridedView::row_major(&[600, 300]).unwrap().transpose();
    for n in [1, 4] {
        check(
            &big.flip(),
            &StridedView::row_major(&[300, 600]).unwrap(),
            n,
        );
    }
}

#[test]
fn nchw_to_nhwc_with_the_channels_flipped_issue_12() {
    // f32[8,64,64,64]: 8 MiB, the streaming kernel, reading its source
    // rows (one per channel) backwards.
    let sizes = [8, 64, 64, 64];
    let nchw = StridedView::nchw(&sizes).unwrap();
    let nhwc = StridedView::nhwc(&sizes).unwrap();
    let flipped = nchw.flip_axes(&[1]).unwrap();
    assert_eq!(check(&flipped, &nhwc, 4), Strategy::Streaming);
}
