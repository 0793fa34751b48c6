//! `relayout_xla` with tiled layouts against an element-by-element copy
//! computed from the index function, `index_util::TiledLayout` (whose
//! positions are checked against XLA's tiled-layout document, XLA's unit
//! tests and XLA's allocation sizes in index-util and `tests/`): XLA's
//! figure and unit-test values, packed sub-byte elements, classic padding
//! on the other side, combined (`*`) tile dimensions, and random shapes
//! and tilings.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::cast_possible_wrap,
    clippy::cast_sign_loss
)]

// The naive references shared with stride-util's tests.
#[path = "../../stride-util/tests/common/mod.rs"]
mod common;

use common::logical_indices;
use index_util::TiledLayout;
use proptest::prelude::*;
use relayout::{RelayoutError, relayout_xla};
use schema::{COMBINE_DIMENSION, Shape};

fn shape(text: &str) -> Shape {
    text.parse().unwrap()
}

/// The bytes of a buffer of `shape` (XLA's allocation).
fn bytes(shape: &Shape) -> usize {
    TiledLayout::new(shape).unwrap().buffer_size_in_bytes() as usize
}

/// Reads element `k` of `bits` bits (packed when below 8).
fn get(buffer: &[u8], k: usize, bits: usize) -> u64 {
    if bits < 8 {
        let bit = k * bits;
        u64::from((buffer[bit / 8] >> (bit % 8)) & ((1 << bits) - 1) as u8)
    } else {
        let n = bits / 8;
        buffer[k * n..(k + 1) * n]
            .iter()
            .rev()
            .fold(0, |v, &b| (v << 8) | u64::from(b))
    }
}

/// Writes element `k`.
fn set(buffer: &mut [u8], k: usize, bits: usize, value: u64) {
    if bits < 8 {
        let bit = k * bits;
        let mask = (((1_u16 << bits) - 1) as u8) << (bit % 8);
        buffer[bit / 8] = (buffer[bit / 8] & !mask) | (((value as u8) << (bit % 8)) & mask);
    } else {
        let n = bits / 8;
        buffer[k * n..(k + 1) * n].copy_from_slice(&value.to_le_bytes()[..n]);
    }
}

/// The row-major position of `index`.
fn row_major(dims: &[i64], index: &[i64]) -> i64 {
    dims.iter().zip(index).fold(0, |l, (&d, &i)| l * d + i)
}

/// A distinct nonzero value for logical element `r` (wrapping in `bits`).
fn value(r: i64, bits: usize) -> u64 {
    let v = (r as u64).wrapping_mul(2_654_435_761) % ((1_u64 << bits.min(32)) - 1);
    v + 1
}

/// The row-major buffer of `dims` with `value`s.
fn row_major_buffer(dims: &[i64], bits: usize) -> Vec<u8> {
    let n: i64 = dims.iter().product();
    let mut buffer = vec![0; (n as usize * bits).div_ceil(8)];
    for r in 0..n {
        set(&mut buffer, r as usize, bits, value(r, bits));
    }
    buffer
}

/// The buffer of `tiled` the reference expects for the array of `value`s:
/// each element written at its position under the index function, padding
/// zero.
fn expected_tiled(tiled: &Shape, bits: usize) -> Vec<u8> {
    let layout = TiledLayout::new(tiled).unwrap();
    let mut buffer = vec![0; layout.buffer_size_in_bytes() as usize];
    for index in logical_indices(layout.dimensions()) {
        let position = layout.position(&index).unwrap();
        set(
            &mut buffer,
            position as usize,
            bits,
            value(row_major(layout.dimensions(), &index), bits),
        );
    }
    buffer
}

fn tiles_text(tiles: &[Vec<i64>]) -> String {
    tiles
        .iter()
        .map(|t| {
            format!(
                "({})",
                t.iter()
                    .map(|&v| if v == COMBINE_DIMENSION {
                        "*".to_owned()
                    } else {
                        v.to_string()
                    })
                    .collect::<Vec<_>>()
                    .join(",")
            )
        })
        .collect()
}

fn joined(values: &[i64]) -> String {
    values
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

#[test]
fn xla_figure_order_and_back() {
    // Figure 1 of XLA's tiled-layout document: f32[3,5]{1,0:T(2,2)},
    // element r holds r + 1 and padding 0.
    let tiled = shape("f32[3,5]{1,0:T(2,2)}");
    let src: Vec<u8> = (1..=15_u32)
        .flat_map(|v| (v as f32).to_le_bytes())
        .collect();
    let mut dst = vec![0xAA; bytes(&tiled)];
    relayout_xla(&src, &shape("f32[3,5]{1,0}"), &mut dst, &tiled).unwrap();
    let order: Vec<Option<u32>> = dst
        .chunks(4)
        .map(|c| {
            let v = f32::from_le_bytes(c.try_into().unwrap());
            (v != 0.0).then(|| v as u32 - 1)
        })
        .collect();
    let p = None;
    let s = Some;
    assert_eq!(
        order,
        [
            s(0),
            s(1),
            s(5),
            s(6),
            s(2),
            s(3),
            s(7),
            s(8),
            s(4),
            p,
            s(9),
            p,
            s(10),
            s(11),
            p,
            p,
            s(12),
            s(13),
            p,
            p,
            s(14),
            p,
            p,
            p
        ]
    );
    let mut back = vec![0; 60];
    relayout_xla(&dst, &tiled, &mut back, &shape("f32[3,5]{1,0}")).unwrap();
    assert_eq!(back, src);
}

/// Where the element at `index` of `dims` lands in `text`'s buffer (u8
/// elements), found by relayouting a one-hot array.
fn landing(text: &str, dims: &[i64], index: &[i64]) -> usize {
    let target = shape(text);
    let mut src = vec![0_u8; dims.iter().product::<i64>() as usize];
    src[row_major(dims, index) as usize] = 1;
    let untiled = shape(&format!(
        "u8[{}]{{{}}}",
        joined(dims),
        joined(&(0..dims.len() as i64).rev().collect::<Vec<_>>())
    ));
    let mut dst = vec![0; bytes(&target)];
    relayout_xla(&src, &untiled, &mut dst, &target).unwrap();
    assert_eq!(dst.iter().filter(|&&b| b == 1).count(), 1);
    dst.iter().position(|&b| b == 1).unwrap()
}

#[test]
fn xla_document_and_unit_test_positions() {
    // The document: (2,3) of [3,5] in 2x2 tiles is at 17; (6,5) of an 8x8
    // array in (2,4)(2,1,1,1) at 51.
    assert_eq!(landing("u8[3,5]{1,0:T(2,2)}", &[3, 5], &[2, 3]), 17);
    assert_eq!(
        landing("u8[8,8]{1,0:T(2,4)(2,1,1,1)}", &[8, 8], &[6, 5]),
        51
    );
    // XLA's LayoutUtil tests: [3,1] of [8,4] in 2x2 tiles at 11; bf16
    // packing of a rank-1 array by (1024)(128)(2,1).
    assert_eq!(landing("u8[8,4]{1,0:T(2,2)}", &[8, 4], &[3, 1]), 11);
    assert_eq!(landing("u8[2048]{0:T(1024)(128)(2,1)}", &[2048], &[128]), 1);
    assert_eq!(landing("u8[2048]{0:T(1024)(128)(2,1)}", &[2048], &[1]), 2);
}

#[test]
fn sub_byte_s4_in_tiles() {
    // s4[3,5]{1,0:T(2,2)E(4)}: the figure's order in nibbles, padding 0.
    let tiled = shape("s4[3,5]{1,0:T(2,2)E(4)}");
    let untiled = shape("s4[3,5]{1,0:E(4)}");
    let mut src = vec![0_u8; 8];
    for r in 0..15 {
        set(&mut src, r, 4, (r as u64 % 15) + 1);
    }
    let mut dst = vec![0xFF; bytes(&tiled)];
    assert_eq!(dst.len(), 12);
    relayout_xla(&src, &untiled, &mut dst, &tiled).unwrap();
    let order: Vec<u64> = (0..24).map(|k| get(&dst, k, 4)).collect();
    assert_eq!(
        order,
        [
            1, 2, 6, 7, 3, 4, 8, 9, 5, 0, 10, 0, 11, 12, 0, 0, 13, 14, 0, 0, 15, 0, 0, 0
        ]
    );
    let mut back = vec![0; 8];
    relayout_xla(&dst, &tiled, &mut back, &untiled).unwrap();
    assert_eq!(back, src);
}

#[test]
fn a_tiled_buffer_is_written_whole_to_its_last_bit() {
    // 45 nibbles in 23 bytes: the high nibble of the last byte holds no
    // element; a tiled destination writes it as padding, zero (fuzz find).
    let untiled = shape("s4[3,15]{1,0:E(4)}");
    let tiled = shape("s4[3,15]{0,1:T(1)E(4)}");
    let src: Vec<u8> = (0..23).map(|i| 0x11 * (i % 15 + 1)).collect();
    let mut dst = vec![0xB0; bytes(&tiled)];
    assert_eq!(dst.len(), 23);
    relayout_xla(&src, &untiled, &mut dst, &tiled).unwrap();
    assert_eq!(dst[22] >> 4, 0);
    // Column-major: element (2,14), row-major 44, is the last position.
    assert_eq!(get(&dst, 44, 4), get(&src, 44, 4));
}

#[test]
fn tiled_to_tiled_and_classic_padding() {
    let dims = [10, 200];
    let bf16 = shape("bf16[10,200]{1,0:T(8,128)(2,1)}");
    let other = shape("bf16[10,200]{0,1:T(4,128)}");
    let src = row_major_buffer(&dims, 16);
    let mut a = vec![0xEE; bytes(&bf16)];
    assert_eq!(a.len(), 8192);
    relayout_xla(&src, &shape("bf16[10,200]{1,0}"), &mut a, &bf16).unwrap();
    assert_eq!(a, expected_tiled(&bf16, 16));
    let mut b = vec![0xEE; bytes(&other)];
    relayout_xla(&a, &bf16, &mut b, &other).unwrap();
    assert_eq!(b, expected_tiled(&other, 16));
    // Into a classic padded layout (padding value 1 = 0x3F80) and back.
    let padded = {
        let mut s = shape("bf16[10,200]{0,1}");
        let layout = s.layout.as_mut().unwrap();
        layout.padded_dimensions = vec![12, 201];
        layout.padding_value = schema::PaddingValue::OnePad as i32;
        s
    };
    let mut c = vec![0; bytes(&padded)];
    assert_eq!(c.len(), 12 * 201 * 2);
    relayout_xla(&b, &other, &mut c, &padded).unwrap();
    for (k, pair) in c.chunks(2).enumerate() {
        let (row, col) = (k as i64 % 12, k as i64 / 12);
        let v = u64::from(u16::from_le_bytes([pair[0], pair[1]]));
        if row < 10 && col < 200 {
            assert_eq!(v, value(row * 200 + col, 16));
        } else {
            assert_eq!(v, 0x3F80, "padding at {k}");
        }
    }
    let mut d = vec![0xEE; 8192];
    relayout_xla(&c, &padded, &mut d, &bf16).unwrap();
    assert_eq!(d, a);
}

/// Found by the relayout fuzz target: between two equal tiled layouts the
/// source's padding bytes were copied over the destination's zeros.
#[test]
fn same_tiled_layout_writes_zero_padding() {
    // Rank 0 in a 2x8 tile: one element, 15 bytes of padding.
    let scalar = shape("u8[]{:T(2,8)(2,1)}");
    let src: Vec<u8> = (1..=16).collect();
    let mut dst = vec![0xEE; 16];
    relayout_xla(&src, &scalar, &mut dst, &scalar).unwrap();
    let mut expected = vec![0; 16];
    expected[0] = 1;
    assert_eq!(dst, expected);
    // f32[3,5] in 2x2 tiles: the figure's 9 padding positions are zeros.
    let figure = shape("f32[3,5]{1,0:T(2,2)}");
    let src = vec![0xAB; 96];
    let mut dst = vec![0xEE; 96];
    relayout_xla(&src, &figure, &mut dst, &figure).unwrap();
    let padding = [9, 11, 14, 15, 18, 19, 21, 22, 23];
    for (k, element) in dst.chunks(4).enumerate() {
        let value = if padding.contains(&k) { 0 } else { 0xAB };
        assert_eq!(element, [value; 4], "position {k}");
    }
    // Without padding the layout's buffer is copied as it is.
    let exact = shape("u8[4,8]{1,0:T(2,8)}");
    let src: Vec<u8> = (0..32).collect();
    let mut dst = vec![0xEE; 32];
    relayout_xla(&src, &exact, &mut dst, &exact).unwrap();
    assert_eq!(dst, src);
}

#[test]
fn errors_name_the_values() {
    let tiled = shape("f32[3,5]{1,0:T(2,2)}");
    let mut dst = vec![0; 95];
    let err = relayout_xla(&[0; 60], &shape("f32[3,5]{1,0}"), &mut dst, &tiled).unwrap_err();
    assert_eq!(
        err.to_string(),
        "destination buffer has 95 bytes but f32[3,5]{1,0:T(2,2)} needs 96"
    );
    let err = relayout_xla(&[0; 60], &shape("f32[3,4]{1,0}"), &mut [0; 96], &tiled).unwrap_err();
    assert!(matches!(err, RelayoutError::ShapeMismatch { .. }), "{err}");
    assert!(err.to_string().contains("f32[3,4]"), "{err}");
    // A later tile that pads beyond XLA's allocation by the first one.
    let beyond = shape("f32[4]{0:T(2)(3)}");
    let err = relayout_xla(&[0; 16], &shape("f32[4]{0}"), &mut [0; 64], &beyond).unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot relayout f32[4]{0:T(2)(3)}: tile (3) pads the buffer to 6 elements, but XLA allocates 4 (ShapeUtil::ArraySize counts only the first tile) is not supported"
    );
    let many = shape(&format!("f32[4]{{0:T{}}}", "(1)".repeat(64)));
    let err = relayout_xla(&[0; 16], &shape("f32[4]{0}"), &mut [0; 16], &many).unwrap_err();
    assert!(err.to_string().contains("more than 64 dimensions"), "{err}");
}

#[test]
fn combined_tile_dimensions_are_copied_element_by_element() {
    // T(2,*,2) on [2,3,4]: dims 1 and 2 combine into 12, tiled by 2; dim 0
    // by 2. Every tiling into, out of and between them matches the index
    // function, sub-byte elements included.
    for (name, bits) in [("f32", 32), ("u8", 8), ("s4", 4)] {
        let e = if bits < 8 {
            format!("E({bits})")
        } else {
            String::new()
        };
        let row_major = shape(&format!(
            "{name}[2,3,4]{{2,1,0{}}}",
            if e.is_empty() {
                String::new()
            } else {
                format!(":{e}")
            }
        ));
        let combined = shape(&format!("{name}[2,3,4]{{2,1,0:T(2,*,2){e}}}"));
        let other = shape(&format!("{name}[2,3,4]{{0,2,1:T(*,3)(3){e}}}"));
        let src = row_major_buffer(&[2, 3, 4], bits);
        let mut dst = vec![0x5A; bytes(&combined)];
        relayout_xla(&src, &row_major, &mut dst, &combined).unwrap();
        assert_eq!(dst, expected_tiled(&combined, bits), "{combined}");
        let mut twice = vec![0x5A; bytes(&other)];
        relayout_xla(&dst, &combined, &mut twice, &other).unwrap();
        assert_eq!(twice, expected_tiled(&other, bits), "{other}");
        let mut back = vec![0; src.len()];
        relayout_xla(&twice, &other, &mut back, &row_major).unwrap();
        assert_eq!(back, src, "{other}");
    }
    // Into a classic padded layout: its padding value (1.0) is written.
    let padded = {
        let mut s = shape("f32[2,3,4]{0,1,2}");
        let layout = s.layout.as_mut().unwrap();
        layout.padded_dimensions = vec![3, 3, 4];
        layout.padding_value = schema::PaddingValue::OnePad as i32;
        s
    };
    let combined = shape("f32[2,3,4]{2,1,0:T(2,*,2)}");
    let mut out = vec![0; bytes(&padded)];
    relayout_xla(&expected_tiled(&combined, 32), &combined, &mut out, &padded).unwrap();
    for (k, v) in out.chunks(4).enumerate() {
        let (i, j, l) = (k % 3, k / 3 % 3, k / 9);
        let v = u64::from(u32::from_le_bytes(v.try_into().unwrap()));
        if i < 2 {
            assert_eq!(
                v,
                value(row_major(&[2, 3, 4], &[i as i64, j as i64, l as i64]), 32)
            );
        } else {
            assert_eq!(v, u64::from(1.0_f32.to_bits()), "padding at {k}");
        }
    }
}

/// A random tiled case: dims, two layouts, tiles, element bits.
#[derive(Debug, Clone)]
struct Case {
    dims: Vec<i64>,
    untiled: Vec<i64>,
    minor_to_major: Vec<i64>,
    tiles: Vec<Vec<i64>>,
    other_tiles: Vec<Vec<i64>>,
    alignment: i64,
    ty: (&'static str, usize),
    /// Classic padding of each dimension on the untiled side.
    extra: Vec<i64>,
}

fn permutation(rank: usize) -> impl Strategy<Value = Vec<i64>> {
    Just((0..rank as i64).collect::<Vec<_>>()).prop_shuffle()
}

/// Tiles of positive sizes, now and then a combined (`*`) entry.
fn tiles(rank: usize) -> impl Strategy<Value = Vec<Vec<i64>>> {
    let entry = prop_oneof![9 => 1_i64..6, 1 => Just(COMBINE_DIMENSION)];
    prop::collection::vec(prop::collection::vec(entry, 1..=rank + 1), 1..=3)
}

fn case() -> impl Strategy<Value = Case> {
    (1_usize..=4)
        .prop_flat_map(|rank| {
            (
                prop::collection::vec(0_i64..8, rank),
                prop::collection::vec(0_i64..3, rank),
                permutation(rank),
                permutation(rank),
                tiles(rank),
                tiles(rank),
                prop::sample::select(vec![1_i64, 1, 3]),
                prop::sample::select(vec![
                    ("u8", 8),
                    ("bf16", 16),
                    ("f32", 32),
                    ("u32", 32),
                    ("s4", 4),
                    ("u2", 2),
                ]),
            )
        })
        .prop_map(
            |(dims, extra, untiled, minor_to_major, tiles, other_tiles, alignment, ty)| Case {
                dims,
                extra,
                untiled,
                minor_to_major,
                tiles,
                other_tiles,
                alignment,
                ty,
            },
        )
}

impl Case {
    fn text(&self, minor_to_major: &[i64], tiles: &[Vec<i64>], alignment: i64) -> String {
        let (name, bits) = self.ty;
        let mut attributes = String::new();
        if !tiles.is_empty() {
            attributes.push('T');
            attributes.push_str(&tiles_text(tiles));
        }
        if alignment != 1 {
            attributes.push_str(&format!("L({alignment})"));
        }
        if bits < 8 {
            attributes.push_str(&format!("E({bits})"));
        }
        let colon = if attributes.is_empty() { "" } else { ":" };
        format!(
            "{name}[{}]{{{}{colon}{attributes}}}",
            joined(&self.dims),
            joined(minor_to_major)
        )
    }

    /// The expected buffer, or `None` if the index function refuses the
    /// tiling (later tiles that pad beyond XLA's allocation, `*` as a
    /// tile's last entry): then relayout refuses it too.
    fn expected(&self, tiles: &[Vec<i64>], alignment: i64) -> Option<Vec<u8>> {
        let tiled = shape(&self.text(&self.minor_to_major, tiles, alignment));
        TiledLayout::new(&tiled).ok()?;
        Some(expected_tiled(&tiled, self.ty.1))
    }
}

proptest! {
    /// Untiled → tiled equals the reference copy element by element,
    /// tiled → untiled (another layout) gives back the array, and tiled →
    /// tiled equals the reference of the other tiling.
    #[test]
    fn tiled_relayout_matches_the_formula(case in case()) {
        let bits = case.ty.1;
        let row_major_text = case.text(&(0..case.dims.len() as i64).rev().collect::<Vec<_>>(), &[], 1);
        let src = row_major_buffer(&case.dims, bits);
        let tiled = shape(&case.text(&case.minor_to_major, &case.tiles, case.alignment));
        let Some(expected) = case.expected(&case.tiles, case.alignment) else {
            let mut dst = vec![0; 1 << 16];
            let err = relayout_xla(&src, &shape(&row_major_text), &mut dst, &tiled).unwrap_err();
            prop_assert!(matches!(err, RelayoutError::UnsupportedLayout { .. }), "{}", err);
            return Ok(());
        };
        let mut dst = vec![0x5A; expected.len()];
        relayout_xla(&src, &shape(&row_major_text), &mut dst, &tiled).unwrap();
        prop_assert_eq!(&dst, &expected);

        // Back into another untiled layout with classic padding, compared
        // through row-major, and from there into the tiling again.
        let mut untiled = shape(&case.text(&case.untiled, &[], 1));
        if case.extra.iter().any(|&e| e > 0) {
            let padded = case.dims.iter().zip(&case.extra).map(|(d, e)| d + e).collect();
            untiled.layout.as_mut().unwrap().padded_dimensions = padded;
        }
        let mut back = vec![0; bytes(&untiled)];
        relayout_xla(&dst, &tiled, &mut back, &untiled).unwrap();
        let mut round = vec![0; src.len()];
        relayout_xla(&back, &untiled, &mut round, &shape(&row_major_text)).unwrap();
        prop_assert_eq!(&round, &src);
        let mut again = vec![0x5A; expected.len()];
        relayout_xla(&back, &untiled, &mut again, &tiled).unwrap();
        prop_assert_eq!(&again, &expected);

        // Tiled → tiled.
        let other = Case { minor_to_major: case.untiled.clone(), alignment: 1, ..case.clone() };
        let other_shape = shape(&other.text(&other.minor_to_major, &other.tiles_for_other(), 1));
        if let Some(expected) = other.expected(&other.tiles_for_other(), 1) {
            let mut twice = vec![0x5A; expected.len()];
            relayout_xla(&dst, &tiled, &mut twice, &other_shape).unwrap();
            prop_assert_eq!(&twice, &expected);
        }
    }
}

impl Case {
    fn tiles_for_other(&self) -> Vec<Vec<i64>> {
        self.other_tiles.clone()
    }
}

#[test]
fn packing_tiles_of_each_element_size_both_ways() {
    // The interleaving kernel's cases: 2 or 4 rows of 1-, 2- and 4-byte
    // elements, whole tiles and partial ones, and a transposed source.
    for (name, bits, tiles) in [
        ("u8", 8, "(8,128)(4,1)"),
        ("u8", 8, "(8,128)(2,1)"),
        ("bf16", 16, "(8,128)(2,1)"),
        ("bf16", 16, "(8,128)(4,1)"),
        ("f32", 32, "(8,128)(2,1)"),
        ("s32", 32, "(4,64)(4,1)"),
    ] {
        for (dims, m2m) in [
            ([16, 256], [1, 0]),
            ([20, 300], [1, 0]),
            ([24, 136], [0, 1]),
        ] {
            let tiled = shape(&format!(
                "{name}[{}]{{{}:T{tiles}}}",
                joined(&dims),
                joined(&m2m)
            ));
            let row_major = shape(&format!("{name}[{}]{{1,0}}", joined(&dims)));
            let src = row_major_buffer(&dims, bits);
            let expected = expected_tiled(&tiled, bits);
            let mut dst = vec![0x77; expected.len()];
            relayout_xla(&src, &row_major, &mut dst, &tiled).unwrap();
            assert_eq!(dst, expected, "{tiled:?}");
            let mut back = vec![0; src.len()];
            relayout_xla(&dst, &tiled, &mut back, &row_major).unwrap();
            assert_eq!(back, src, "{tiled:?}");
        }
    }
}

/// Copies of 8 MiB and more to and from packing tiles (where the AVX-512
/// interleaving writes with streaming stores, on CPUs with AVX-512), with
/// partial tiles whose rows end between 64-byte pieces, and rows that do
/// not fill the last tile.
#[test]
fn large_packing_tiles_both_ways() {
    for (name, bits, tiles, dims) in [
        ("bf16", 16, "(8,128)(2,1)", [2048, 2100]),
        ("u8", 8, "(8,128)(4,1)", [2048, 4100]),
        // 32 rows a tile: packing reads them 4 at a time along the rows.
        ("u8", 8, "(32,128)(4,1)", [2051, 4100]),
        ("f32", 32, "(8,128)(2,1)", [1024, 2100]),
        // Runs of whole lines into and out of the tiles, streamed in the
        // source's order, partial tiles along both dimensions.
        ("f32", 32, "(8,128)", [2051, 1500]),
    ] {
        let tiled = shape(&format!("{name}[{}]{{1,0:T{tiles}}}", joined(&dims)));
        let row_major = shape(&format!("{name}[{}]{{1,0}}", joined(&dims)));
        let src = row_major_buffer(&dims, bits);
        let expected = expected_tiled(&tiled, bits);
        let (from, from_range) = on_a_line(&src);
        let (mut dst, dst_range) = on_a_line(&vec![0x77; expected.len()]);
        relayout_xla(
            &from[from_range],
            &row_major,
            &mut dst[dst_range.clone()],
            &tiled,
        )
        .unwrap();
        assert!(dst[dst_range.clone()] == expected, "{tiled:?}");
        let (mut back, back_range) = on_a_line(&vec![0; src.len()]);
        relayout_xla(
            &dst[dst_range],
            &tiled,
            &mut back[back_range.clone()],
            &row_major,
        )
        .unwrap();
        assert!(back[back_range] == src, "{tiled:?}");
    }
}

/// `bytes` in a buffer where they start on a 64-byte line (as XLA's
/// allocator places buffers, and the streaming kernels need), with their
/// range there.
fn on_a_line(bytes: &[u8]) -> (Vec<u8>, std::ops::Range<usize>) {
    let mut buffer = vec![0; bytes.len() + 64];
    let start = buffer.as_ptr().align_offset(64);
    buffer[start..start + bytes.len()].copy_from_slice(bytes);
    (buffer, start..start + bytes.len())
}

#[test]
fn tiled_to_tiled_in_several_slabs() {
    // Large enough to go through more than one row-major slab (the last
    // one partial), between tilings of different tile sizes and orders.
    let bits = 8;
    let from = shape("u8[300,1000]{1,0:T(8,128)(4,1)}");
    let to = shape("u8[300,1000]{0,1:T(16,32)}");
    let src = expected_tiled(&from, bits);
    let expected = expected_tiled(&to, bits);
    let mut dst = vec![0x33; expected.len()];
    relayout_xla(&src, &from, &mut dst, &to).unwrap();
    assert!(dst == expected);
    // And 4-bit elements the other way.
    let from4 = shape("s4[300,1000]{0,1:T(16,32)E(4)}");
    let to4 = shape("s4[300,1000]{1,0:T(8,128)(4,1)E(4)}");
    let src4 = expected_tiled(&from4, 4);
    let expected4 = expected_tiled(&to4, 4);
    let mut dst4 = vec![0x33; expected4.len()];
    relayout_xla(&src4, &from4, &mut dst4, &to4).unwrap();
    assert!(dst4 == expected4);
}

#[test]
fn adversarial_tiled_shapes_error_without_panicking() {
    for (text, untiled) in [
        (
            "f32[9223372036854775807]{0:T(2)}",
            "f32[9223372036854775807]{0}",
        ),
        ("f32[4]{0:T(9223372036854775807)}", "f32[4]{0}"),
        (
            "f32[3037000500,3037000500]{1,0:T(2,2)}",
            "f32[3037000500,3037000500]{1,0}",
        ),
        ("u8[4,4]{1,0:T(9223372036854775807,2)(2)}", "u8[4,4]{1,0}"),
        ("f32[?]{0:T(2)}", "f32[?]{0}"),
        ("f32[0,5]{1,0:T(2,2)}", "f32[0,5]{1,0}"),
        ("pred[9]{0:T(8)E(1)}", "pred[9]{0:E(1)}"),
        ("s4[5]{0:T(2,2,2,2)E(4)}", "s4[5]{0:E(4)}"),
        ("u8[2,2]{1,0:T(2,2)SC(0:1)}", "u8[2,2]{1,0}"),
    ] {
        let (Ok(tiled), Ok(untiled)) = (text.parse::<Shape>(), untiled.parse::<Shape>()) else {
            continue;
        };
        let size = TiledLayout::new(&tiled).map(|l| l.buffer_size_in_bytes() as usize);
        let mut dst = vec![0; 64];
        let result = relayout_xla(&[0; 64], &untiled, &mut dst, &tiled);
        let back = relayout_xla(&[0; 64], &tiled, &mut dst, &untiled);
        if let Ok(size) = size {
            // Small enough to be real: then 64 bytes were enough or an error
            // names the sizes.
            assert!(size <= 64 || result.is_err(), "{text}");
        }
        let _ = back;
    }
    // The zero-size and sub-byte cases above have exact answers.
    assert_eq!(bytes(&shape("f32[0,5]{1,0:T(2,2)}")), 0);
    assert_eq!(bytes(&shape("pred[9]{0:T(8)E(1)}")), 2);
    // Padded with leading 1s to [1,1,1,5], rounded to [2,2,2,6]: 48 nibbles.
    assert_eq!(bytes(&shape("s4[5]{0:T(2,2,2,2)E(4)}")), 24);
}
