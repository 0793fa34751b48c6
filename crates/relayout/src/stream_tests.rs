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
