//! The streaming transpose against the definition of a transpose, on
//! shapes below the size that selects it (called directly) and on one
//! relayout large enough to select it.
#![allow(clippy::unwrap_used, clippy::cast_possible_wrap)]

use super::kernels::transpose_streaming;
use super::plan::Dim;
use crate::{StridedView, relayout};

/// Element `i` of a buffer: the little-endian bytes of `i + 1`, truncated.
fn element<const N: usize>(i: usize) -> [u8; N] {
    core::array::from_fn(|k| ((i + 1) >> (8 * (k % 8))) as u8 ^ (k / 8) as u8)
}

/// Transposes `rows × cols` (source rows `src_stride` apart from
/// `src_base`) to destination rows `dst_stride` apart from `dst_base`
/// with the streaming kernel, and checks every element of the destination
/// buffer: transposed where addressed, untouched elsewhere.
fn check<const N: usize>(rows: usize, cols: usize, src_stride: usize, dst_stride: usize) {
    let src: Vec<[u8; N]> = (0..rows * src_stride + 3).map(element).collect();
    let dst_len = cols * dst_stride + 40;
    let sentinel = [0xA5; N];
    // Every destination alignment: ordinary and streaming stores.
    for dst_base in 0..16 / N.min(16) + 1 {
        let mut dst = vec![sentinel; dst_len];
        let src_base = 3;
        transpose_streaming(
            &src,
            &mut dst,
            src_base as i64,
            dst_base as i64,
            Dim {
                size: rows as i64,
                src: src_stride as i64,
                dst: 1,
            },
            Dim {
                size: cols as i64,
                src: 1,
                dst: dst_stride as i64,
            },
        );
        let mut expected = vec![sentinel; dst_len];
        for j in 0..cols {
            for i in 0..rows {
                expected[dst_base + j * dst_stride + i] = src[src_base + i * src_stride + j];
            }
        }
        assert_eq!(dst, expected, "N={N} {rows}x{cols} base {dst_base}");
    }
}

#[test]
fn consecutive_destination_rows() {
    // NCHW→NHWC-like: destination rows back to back, a ragged column.
    check::<4>(64, 37, 40, 64);
    check::<4>(8, 9, 9, 8);
    check::<1>(32, 35, 35, 32);
    check::<2>(16, 19, 20, 16);
    check::<8>(6, 7, 7, 6);
}

#[test]
fn padded_destination_rows() {
    check::<4>(12, 10, 10, 13);
    check::<1>(16, 33, 40, 20);
    check::<8>(4, 5, 5, 9);
}

#[test]
fn rows_the_kernel_leaves_to_the_element_loop() {
    // Not whole register blocks, or longer than the kernel's rows.
    check::<4>(6, 8, 8, 6);
    check::<1>(1040, 17, 17, 1040);
    check::<16>(4, 4, 4, 4);
}

#[test]
#[cfg_attr(miri, ignore = "8.6 MB: too large for Miri")]
fn large_nchw_to_nhwc_takes_the_streaming_kernel() {
    // 2·64·129·131 f32: 8.6 MB, above the streaming threshold; 129·131 is
    // odd, so the last spatial position takes the element loop.
    let sizes = [2, 64, 129, 131];
    let (nchw, nhwc) = (
        StridedView::nchw(&sizes).unwrap(),
        StridedView::nhwc(&sizes).unwrap(),
    );
    let len = nchw.num_elements() as usize;
    let src: Vec<u8> = (0..len).flat_map(element::<4>).collect();
    let mut dst = vec![0u8; len * 4];
    relayout(&src, &nchw, &mut dst, &nhwc, 4).unwrap();
    for (s, d) in nchw.offsets().zip(nhwc.offsets()) {
        let (s, d) = (s as usize * 4, d as usize * 4);
        assert_eq!(dst[d..d + 4], src[s..s + 4]);
    }
}

/// A view's offsets as a `u8` relayout: element `d` of the destination
/// holds element `s` of the source, every other byte keeps `sentinel`.
fn expected_bytes(
    src: &[u8],
    src_view: &StridedView,
    dst_view: &StridedView,
    len: usize,
    sentinel: u8,
) -> Vec<u8> {
    let mut expected = vec![sentinel; len];
    for (s, d) in src_view.offsets().zip(dst_view.offsets()) {
        expected[d as usize] = src[s as usize];
    }
    expected
}

#[test]
fn runs_stream_at_every_alignment_as_parts_of_a_large_copy() {
    use super::kernels::runs_stream;
    use super::plan::Plan;
    let src: Vec<u8> = (0..48 * 40).map(|i| (i % 251) as u8).collect();
    // One run; runs that fill the destination without gaps (rows 16..40
    // of rows of 48 bytes, packed); whole-line runs 128 bytes apart.
    let cases = [
        (
            StridedView::new(&[1000], &[1], 7).unwrap(),
            StridedView::row_major(&[1000]).unwrap(),
            1000,
        ),
        (
            StridedView::new(&[30, 24], &[48, 1], 16).unwrap(),
            StridedView::row_major(&[30, 24]).unwrap(),
            720,
        ),
        (
            StridedView::new(&[12, 64], &[48, 1], 5).unwrap(),
            StridedView::new(&[12, 64], &[128, 1], 0).unwrap(),
            1536,
        ),
    ];
    let mut storage = vec![0_u8; 2048 + 128];
    let line = storage.as_ptr().align_offset(64);
    for (k, (src_view, dst_view, len)) in cases.iter().enumerate() {
        for shift in 0..64 {
            let dst = &mut storage[line + shift..][..*len];
            dst.fill(0xA5);
            crate::relayout_part(&src, src_view, dst, dst_view, 1, u64::MAX).unwrap();
            assert_eq!(
                dst,
                expected_bytes(&src, src_view, dst_view, *len, 0xA5),
                "case {k} shift {shift}"
            );
            let plan = Plan::new(src_view, dst_view);
            let streams = runs_stream::<1>(dst.as_chunks().0, &plan, 0);
            // Streamed from any 16-byte boundary where gapless, only from
            // a line for the runs with gaps between them.
            let expected = if k < 2 { shift % 16 == 0 } else { shift == 0 };
            assert_eq!(
                streams,
                expected && cfg!(target_arch = "x86_64"),
                "case {k} shift {shift}"
            );
            // A tail of padding after every run: streamed only where runs
            // and tails are whole lines (the whole-line runs from a line).
            let x86 = cfg!(target_arch = "x86_64");
            for (tail, streams) in [(64, k == 2 && shift == 0), (3, false)] {
                assert_eq!(
                    runs_stream::<1>(dst.as_chunks().0, &plan, tail),
                    streams && x86,
                    "case {k} shift {shift} tail {tail}"
                );
            }
        }
    }
}

#[test]
#[cfg_attr(miri, ignore = "8.6 MB: too large for Miri")]
fn large_nchw_to_nhwc_off_the_destination_lines() {
    // Destinations 16, 32 and 48 bytes past a line take the SSE2
    // streaming kernel (the AVX-512 one only where on a line).
    let sizes = [2, 64, 129, 131];
    let (nchw, nhwc) = (
        StridedView::nchw(&sizes).unwrap(),
        StridedView::nhwc(&sizes).unwrap(),
    );
    let len = nchw.num_elements() as usize * 4;
    let src: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
    let mut storage = vec![0u8; len + 128];
    let line = storage.as_ptr().align_offset(64);
    let mut expected = vec![0u8; len];
    for (s, d) in nchw.offsets().zip(nhwc.offsets()) {
        let (s, d) = (s as usize * 4, d as usize * 4);
        expected[d..d + 4].copy_from_slice(&src[s..s + 4]);
    }
    for shift in [0, 16, 32, 48] {
        let dst = &mut storage[line + shift..][..len];
        dst.fill(0);
        relayout(&src, &nchw, dst, &nhwc, 4).unwrap();
        assert!(dst == expected.as_slice(), "shift {shift}");
    }
}
