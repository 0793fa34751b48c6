//! `relayout_xla` between a sub-byte type stored one element per byte (no
//! `E(n)`, as XLA's literals hold it) and packed in `E(n)` of its width.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use relayout::{RelayoutError, relayout_xla};
use schema::Shape;

fn shape(text: &str) -> Shape {
    text.parse().unwrap()
}

/// Packs one-byte-per-element values `n` bits each, low bits first.
fn pack(values: &[u8], bits: usize) -> Vec<u8> {
    let mut out = vec![0_u8; (values.len() * bits).div_ceil(8)];
    for (k, &v) in values.iter().enumerate() {
        let bit = k * bits;
        out[bit / 8] |= (v & ((1 << bits) - 1)) << (bit % 8);
    }
    out
}

#[test]
fn unpacked_row_major_to_packed_column_major_and_back() {
    // s4[2,3] = {{1,2,3},{-1,-2,-8}}, one byte each (low 4 bits).
    let src = [1_u8, 2, 3, 0x0f, 0x0e, 0x08];
    let mut dst = [0_u8; 3];
    relayout_xla(
        &src,
        &shape("s4[2,3]{1,0}"),
        &mut dst,
        &shape("s4[2,3]{0,1:E(4)}"),
    )
    .unwrap();
    // Column-major order 1,-1,2,-2,3,-8.
    assert_eq!(dst, [0xf1, 0xe2, 0x83]);
    let mut back = [0xff_u8; 6];
    relayout_xla(
        &dst,
        &shape("s4[2,3]{0,1:E(4)}"),
        &mut back,
        &shape("s4[2,3]{1,0}"),
    )
    .unwrap();
    assert_eq!(back, src);
}

#[test]
fn high_bits_of_unpacked_bytes_are_dropped_when_packing() {
    let src = [0xf1_u8, 0x72];
    let mut dst = [0_u8; 1];
    relayout_xla(&src, &shape("u2[2]{0}"), &mut dst, &shape("u2[2]{0:E(2)}")).unwrap();
    assert_eq!(dst, [0b1001]);
}

#[test]
fn tiled_packed_is_the_unpacked_tiled_buffer_packed() {
    for (logical, unpacked, packed, bits) in [
        (
            "s4[3,5]",
            "s4[3,5]{1,0:T(2,2)}",
            "s4[3,5]{1,0:T(2,2)E(4)}",
            4,
        ),
        ("u2[5,3]", "u2[5,3]{0,1:T(4)}", "u2[5,3]{0,1:T(4)E(2)}", 2),
        (
            "f4e2m1fn[9,3]",
            "f4e2m1fn[9,3]{1,0:T(8,2)(2,1)}",
            "f4e2m1fn[9,3]{1,0:T(8,2)(2,1)E(4)}",
            4,
        ),
    ] {
        let logical = shape(logical);
        let n = usize::try_from(logical.dimensions.iter().product::<i64>()).unwrap();
        let src: Vec<u8> = (0..n)
            .map(|k| (k * 7 % 16) as u8 & ((1 << bits) - 1))
            .collect();
        let size = |s: &str| {
            index_util::TiledLayout::new(&shape(s))
                .unwrap()
                .buffer_size_in_bytes() as usize
        };
        let mut wide = vec![0_u8; size(unpacked)];
        relayout_xla(&src, &logical, &mut wide, &shape(unpacked)).unwrap();
        let mut narrow = vec![0_u8; size(packed)];
        relayout_xla(&src, &logical, &mut narrow, &shape(packed)).unwrap();
        assert_eq!(narrow, pack(&wide, bits), "{packed}");
        let mut back = vec![0_u8; n];
        relayout_xla(&narrow, &shape(packed), &mut back, &logical).unwrap();
        assert_eq!(back, src, "{packed}");
    }
}

#[test]
fn short_buffers_name_both_sizes() {
    let mut dst = [0_u8; 1];
    let err = relayout_xla(
        &[0; 6],
        &shape("s4[2,3]{1,0}"),
        &mut dst,
        &shape("s4[2,3]{1,0:E(4)}"),
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            RelayoutError::BufferTooSmall {
                expected: 3,
                actual: 1,
                ..
            }
        ),
        "{err}"
    );
    let mut dst = [0_u8; 6];
    let err = relayout_xla(
        &[0; 2],
        &shape("s4[2,3]{1,0:E(4)}"),
        &mut dst,
        &shape("s4[2,3]{1,0}"),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "source buffer has 2 bytes but s4[2,3]{1,0:E(4)} needs 3"
    );
}

#[test]
fn whole_byte_types_and_other_widths_still_refuse() {
    let mut dst = [0_u8; 4];
    for (from, to) in [("s8[4]{0}", "s8[4]{0:E(4)}"), ("s4[4]{0}", "s4[4]{0:E(2)}")] {
        let err = relayout_xla(&[0; 4], &shape(from), &mut dst, &shape(to)).unwrap_err();
        assert!(
            matches!(err, RelayoutError::ElementSize { .. }),
            "{from} -> {to}: {err}"
        );
    }
}
