//! `relayout_xla` against a naive reference: random dimensions, layouts
//! (`minor_to_major` and `padded_dimensions` on both sides), padding values
//! and element types, whole bytes and packed `E(n)` sub-byte elements.
//! The reference computes every physical position from the layout's
//! definition, writes the padding value at every padded position and the
//! source element at every logical one.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::cast_possible_wrap
)]

// The naive references shared with stride-util's tests.
#[path = "../../stride-util/tests/common/mod.rs"]
mod common;

use common::logical_indices;
use layout_util::LayoutBuilder;
use proptest::prelude::*;
use relayout::{padding_pattern, relayout_xla};
use schema::{PaddingValue, PrimitiveType, Shape};

/// One side: `minor_to_major` and the padding added to each dimension.
#[derive(Debug, Clone)]
struct Side {
    minor_to_major: Vec<i64>,
    extra: Vec<i64>,
}

impl Side {
    fn padded(&self, dims: &[i64]) -> Vec<i64> {
        dims.iter().zip(&self.extra).map(|(d, e)| d + e).collect()
    }

    fn shape(&self, ty: PrimitiveType, bits: i64, dims: &[i64], value: PaddingValue) -> Shape {
        let mut layout = LayoutBuilder::new(&self.minor_to_major).padding_value(value);
        if self.extra.iter().any(|&e| e > 0) {
            layout = layout.padded_dimensions(self.padded(dims));
        }
        if bits < 8 {
            layout = layout.element_size_in_bits(bits);
        }
        Shape {
            element_type: ty as i32,
            dimensions: dims.to_vec(),
            is_dynamic_dimension: vec![false; dims.len()],
            layout: Some(Box::new(layout.build())),
            ..Default::default()
        }
    }

    /// The element offset of `index` in the padded box, from the definition.
    fn offset(&self, dims: &[i64], index: &[i64]) -> i64 {
        let padded = self.padded(dims);
        let mut offset = 0;
        let mut scale = 1;
        for &d in &self.minor_to_major {
            offset += index[d as usize] * scale;
            scale *= padded[d as usize];
        }
        offset
    }

    fn len(&self, dims: &[i64]) -> i64 {
        self.padded(dims).iter().product()
    }
}

/// Element `k` of a buffer of `bits`-bit elements: whole bytes, or packed
/// from the least significant bit of byte 0.
fn get(buffer: &[u8], k: i64, bits: i64) -> Vec<u8> {
    if bits >= 8 {
        let n = (bits / 8) as usize;
        return buffer[k as usize * n..][..n].to_vec();
    }
    let bit = (k * bits) as usize;
    vec![(buffer[bit / 8] >> (bit % 8)) & ((1 << bits) - 1) as u8]
}

fn set(buffer: &mut [u8], k: i64, bits: i64, value: &[u8]) {
    if bits >= 8 {
        let n = (bits / 8) as usize;
        buffer[k as usize * n..][..n].copy_from_slice(value);
        return;
    }
    let bit = (k * bits) as usize;
    let mask = (((1_u16 << bits) - 1) as u8) << (bit % 8);
    buffer[bit / 8] = (buffer[bit / 8] & !mask) | ((value[0] << (bit % 8)) & mask);
}

fn bytes_for(elements: i64, bits: i64) -> usize {
    ((elements * bits + 7) / 8) as usize
}

fn arb_side(rank: usize) -> impl Strategy<Value = Side> {
    (
        Just((0..rank as i64).collect::<Vec<i64>>()).prop_shuffle(),
        prop::collection::vec(prop::sample::select(vec![0_i64, 0, 1, 3]), rank),
    )
        .prop_map(|(minor_to_major, extra)| Side {
            minor_to_major,
            extra,
        })
}

fn arb_case() -> impl Strategy<Value = (Vec<i64>, Side, Side)> {
    // 9 and 17 reach the tiled transposes (8 elements a side at least).
    prop::collection::vec(prop::sample::select(vec![1_i64, 2, 3, 5, 9, 17]), 0..=3).prop_flat_map(
        |dims| {
            let rank = dims.len();
            (Just(dims), arb_side(rank), arb_side(rank))
        },
    )
}

proptest! {
    #[test]
    fn relayout_xla_equals_naive_copy_and_fill(
        (dims, src_side, dst_side) in arb_case(),
        (ty, bits) in prop::sample::select(vec![
            (PrimitiveType::U8, 8_i64),
            (PrimitiveType::F16, 16),
            (PrimitiveType::S32, 32),
            (PrimitiveType::F32, 32),
            (PrimitiveType::F64, 64),
            (PrimitiveType::C128, 128),
            (PrimitiveType::S4, 4),
            (PrimitiveType::U2, 2),
            (PrimitiveType::U1, 1),
        ]),
        value in prop::sample::select(vec![
            PaddingValue::ZeroPad,
            PaddingValue::OnePad,
            PaddingValue::LowestPad,
            PaddingValue::HighestPad,
            PaddingValue::UnknownPad,
        ]),
    ) {
        // Complex numbers have no lowest/highest.
        let value = if ty == PrimitiveType::C128 && matches!(value, PaddingValue::LowestPad | PaddingValue::HighestPad) {
            PaddingValue::OnePad
        } else {
            value
        };
        let src_shape = src_side.shape(ty, bits, &dims, value);
        let dst_shape = dst_side.shape(ty, bits, &dims, value);
        let src: Vec<u8> = (0..bytes_for(src_side.len(&dims), bits))
            .map(|i| (i * 37 % 251) as u8)
            .collect();
        let dst_len = bytes_for(dst_side.len(&dims), bits);

        let mut expected = vec![0xA5_u8; dst_len];
        if let Some(pattern) = padding_pattern(ty, value).unwrap() {
            let padded = dst_side.padded(&dims);
            for index in logical_indices(&padded) {
                if index.iter().zip(&dims).any(|(i, d)| i >= d) {
                    set(&mut expected, dst_side.offset(&dims, &index), bits, &pattern);
                }
            }
        }
        for index in logical_indices(&dims) {
            let element = get(&src, src_side.offset(&dims, &index), bits);
            set(&mut expected, dst_side.offset(&dims, &index), bits, &element);
        }

        let mut actual = vec![0xA5_u8; dst_len];
        relayout_xla(&src, &src_shape, &mut actual, &dst_shape).unwrap();
        prop_assert_eq!(actual, expected);
    }
}

/// Large enough to stream (8 MiB of f32 elements), into rows padded by
/// whole lines (every run and its tail streamed), by 16 bytes and by 12
/// (stored as they come).
#[test]
fn large_rows_into_padded_rows() {
    let dims = [1024_i64, 2048];
    let src_side = Side {
        minor_to_major: vec![1, 0],
        extra: vec![0, 0],
    };
    let src: Vec<u8> = (0..src_side.len(&dims) * 4)
        .map(|i| (i * 37 % 251) as u8)
        .collect();
    for (extra, value) in [
        (16, PaddingValue::OnePad),
        (4, PaddingValue::LowestPad),
        (3, PaddingValue::ZeroPad),
    ] {
        let dst_side = Side {
            minor_to_major: vec![1, 0],
            extra: vec![0, extra],
        };
        let ty = PrimitiveType::F32;
        let pattern = padding_pattern(ty, value).unwrap().unwrap();
        let row = (dims[1] + extra) as usize * 4;
        let mut expected = vec![0_u8; dst_side.len(&dims) as usize * 4];
        for (i, out) in expected.chunks_exact_mut(row).enumerate() {
            let (run, tail) = out.split_at_mut(dims[1] as usize * 4);
            run.copy_from_slice(&src[i * run.len()..][..run.len()]);
            for element in tail.chunks_exact_mut(4) {
                element.copy_from_slice(&pattern);
            }
        }
        let mut actual = vec![0xA5_u8; expected.len()];
        relayout_xla(
            &src,
            &src_side.shape(ty, 32, &dims, value),
            &mut actual,
            &dst_side.shape(ty, 32, &dims, value),
        )
        .unwrap();
        assert!(actual == expected, "rows padded by {extra}");
    }
}

/// Large enough to stream (8 MiB and more): bytes and 2-byte elements
/// row-major into column-major, in bands of four blocks where the
/// destination rows start on lines (4096 and 4160 bytes; 2112 columns
/// leave a last band of one block) and realigned through carries (4100
/// bytes), each band's next lines prefetched a part a block column.
#[test]
fn large_narrow_transposes_in_bands() {
    let value = PaddingValue::ZeroPad;
    let side = |minor_to_major: Vec<i64>| Side {
        minor_to_major,
        extra: vec![0, 0],
    };
    for (ty, n, rows, cols) in [
        (PrimitiveType::U8, 1, 4096_usize, 2112_usize),
        (PrimitiveType::U8, 1, 4160, 2048),
        (PrimitiveType::U8, 1, 4100, 2050),
        (PrimitiveType::Bf16, 2, 2048, 2112),
        (PrimitiveType::Bf16, 2, 2050, 2048),
    ] {
        let dims = [rows as i64, cols as i64];
        let src: Vec<u8> = (0..rows * cols * n).map(|i| (i * 37 % 251) as u8).collect();
        let mut expected = vec![0_u8; src.len()];
        for (i, row) in src.chunks_exact(cols * n).enumerate() {
            for (j, element) in row.chunks_exact(n).enumerate() {
                expected[(j * rows + i) * n..][..n].copy_from_slice(element);
            }
        }
        let mut actual = vec![0xA5_u8; expected.len()];
        let bits = 8 * n as i64;
        relayout_xla(
            &src,
            &side(vec![1, 0]).shape(ty, bits, &dims, value),
            &mut actual,
            &side(vec![0, 1]).shape(ty, bits, &dims, value),
        )
        .unwrap();
        assert!(
            actual == expected,
            "{ty:?}[{rows},{cols}] into column-major"
        );
    }
}
