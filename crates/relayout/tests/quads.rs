//! Bytes between an untiled two-dimensional layout and full tiles
//! `T(4,c)` of the other order (the quad transpose, which the packed
//! 4-bit layouts `{1,0:E(4)}` ↔ `{0,1:T(8,128)(2,1)E(4)}` run as bytes),
//! against the element positions of `index_util::TiledLayout`: both
//! directions and both physical orders, at every SIMD level of this CPU
//! (AVX-512 in registers, the others through bands), on sizes that take
//! it and on sizes that keep other paths, in cache and large enough to
//! stream.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss
)]

mod positions;

use relayout::{Strategy, detected_simd_level, force_simd_level};

/// Checked on one thread and on pools, against the positions.
fn check(from: &str, to: &str, bits: usize) -> Strategy {
    positions::check(from, to, bits, &[2, 3])
}

/// `(untiled, tiled)` layout pairs of one array, each order.
const PAIRS: [(&str, &str); 6] = [
    ("{1,0}", "{0,1:T(4,128)}"),
    ("{0,1}", "{1,0:T(4,128)}"),
    ("{1,0}", "{0,1:T(4,64)}"),
    ("{0,1}", "{1,0:T(4,192)}"),
    ("{1,0:E(4)}", "{0,1:T(8,128)(2,1)E(4)}"),
    ("{0,1:E(4)}", "{1,0:T(8,128)(2,1)E(4)}"),
];

#[test]
fn quads_go_into_and_out_of_tiles_at_every_level() {
    for level in detected_simd_level().and_below() {
        assert_eq!(force_simd_level(Some(level)), level);
        for (untiled, tiled) in PAIRS {
            let (ty, bits) = if untiled.contains("E(4)") {
                ("s4", 4)
            } else {
                ("u8", 8)
            };
            // Minor dimension (untiled) of 64 quads, major of 3 tiles.
            let dims = match (untiled.starts_with("{1"), tiled.contains("192"), bits) {
                (true, _, 8) => "[384,256]",
                (false, false, 8) => "[256,384]",
                (false, true, 8) => "[256,576]",
                (true, _, _) => "[384,512]",
                (false, _, _) => "[512,384]",
            };
            for (a, b) in [(untiled, tiled), (tiled, untiled)] {
                let strategy = check(&format!("{ty}{dims}{a}"), &format!("{ty}{dims}{b}"), bits);
                assert_eq!(
                    strategy,
                    Strategy::TileTranspose,
                    "{dims}{a} -> {b} at {level:?}"
                );
            }
        }
    }
    force_simd_level(None);
}

#[test]
fn sizes_off_the_quads_keep_other_paths_exactly() {
    // Partial tiles, rows of no whole line, narrower tiles, signed bytes.
    for (dims, untiled, tiled) in [
        ("u8[200,512]", "{1,0}", "{0,1:T(4,128)}"),
        ("u8[256,500]", "{1,0}", "{0,1:T(4,128)}"),
        ("u8[256,510]", "{1,0}", "{0,1:T(4,128)}"),
        ("u8[128,256]", "{1,0}", "{0,1:T(4,32)}"),
        ("s8[128,256]", "{1,0}", "{0,1:T(4,128)}"),
        ("u8[128,256]", "{1,0}", "{0,1:T(8,128)}"),
        ("s4[200,1024]", "{1,0:E(4)}", "{0,1:T(8,128)(2,1)E(4)}"),
    ] {
        check(
            &format!("{dims}{untiled}"),
            &format!("{dims}{tiled}"),
            8.min(bits(dims)),
        );
        check(
            &format!("{dims}{tiled}"),
            &format!("{dims}{untiled}"),
            8.min(bits(dims)),
        );
    }
}

fn bits(dims: &str) -> usize {
    if dims.starts_with("s4") { 4 } else { 8 }
}

#[test]
fn large_quads_stream_and_split_exactly() {
    // 8 MiB each way: the stores stream, and pools split the work (in 3
    // uneven parts on 3 threads); at every level.
    let (rows, tiles) = ("u8[4096,2048]{1,0}", "u8[4096,2048]{0,1:T(4,128)}");
    for level in detected_simd_level().and_below() {
        assert_eq!(force_simd_level(Some(level)), level);
        assert_eq!(check(rows, tiles, 8), Strategy::TileTranspose);
        assert_eq!(check(tiles, rows, 8), Strategy::TileTranspose);
    }
    force_simd_level(None);
}

#[test]
fn packed_tiles_go_into_tiles_of_the_other_order_in_bands() {
    // Tiles into tiles of the other order: bands of 256 rows of the
    // source's frame and a last one of 128, or one band; at every level.
    // Tiles two lines wide take their lines from within the tiles.
    let (rows, columns) = ("{1,0:T(8,128)(2,1)E(4)}", "{0,1:T(8,128)(2,1)E(4)}");
    let wide = ("{1,0:T(8,256)(2,1)E(4)}", "{0,1:T(8,256)(2,1)E(4)}");
    for level in detected_simd_level().and_below() {
        assert_eq!(force_simd_level(Some(level)), level);
        for (dims, (rows, columns)) in [
            ("[384,2048]", (rows, columns)),
            ("[2048,384]", (rows, columns)),
            ("[256,512]", (rows, columns)),
            ("[512,1024]", wide),
        ] {
            for (a, b) in [(rows, columns), (columns, rows)] {
                let strategy = check(&format!("s4{dims}{a}"), &format!("s4{dims}{b}"), 4);
                assert_eq!(
                    strategy,
                    Strategy::NibblePairs,
                    "{dims}{a} -> {b} at {level:?}"
                );
            }
        }
    }
    force_simd_level(None);
}

#[test]
fn large_packed_tiles_stream_and_split_exactly() {
    // 8 MiB each way: the stores stream, and pools split the work.
    let (rows, columns) = (
        "s4[4096,4096]{1,0:T(8,128)(2,1)E(4)}",
        "s4[4096,4096]{0,1:T(8,128)(2,1)E(4)}",
    );
    assert_eq!(check(rows, columns, 4), Strategy::NibblePairs);
    assert_eq!(check(columns, rows, 4), Strategy::NibblePairs);
}

#[test]
fn empty_arrays_take_the_same_plans_and_write_nothing() {
    for (from, to) in [
        ("u8[0,256]{1,0}", "u8[0,256]{0,1:T(4,128)}"),
        ("u8[256,0]{1,0}", "u8[256,0]{0,1:T(4,128)}"),
        ("u8[0,256]{0,1:T(4,128)}", "u8[0,256]{1,0}"),
        ("s4[0,256]{1,0:E(4)}", "s4[0,256]{0,1:E(4)}"),
        ("s4[256,0]{0,1:E(4)}", "s4[256,0]{1,0:E(4)}"),
        (
            "s4[0,256]{1,0:T(8,128)(2,1)E(4)}",
            "s4[0,256]{0,1:T(8,128)(2,1)E(4)}",
        ),
        ("s4[0,256]{1,0:E(4)}", "s4[0,256]{1,0:T(8,128)(2,1)E(4)}"),
    ] {
        check(from, to, if from.starts_with("s4") { 4 } else { 8 });
    }
}

#[test]
fn layouts_naming_dimensions_outside_the_shape_are_errors() {
    let mut from = positions::shape("u8[256,256]{1,0}");
    let mut to = positions::shape("u8[256,256]{0,1:T(4,128)}");
    for (a, b) in [(&mut from, false), (&mut to, true)] {
        if let Some(layout) = a.layout.as_deref_mut() {
            layout.minor_to_major = if b { vec![0, 9] } else { vec![9, 0] };
        }
    }
    for (src, dst) in [(&from, &to), (&to, &from)] {
        let plan = relayout::RelayoutPlan::xla(relayout::FromTo { from: src, to: dst });
        assert!(plan.is_err(), "{src} -> {dst}");
    }
}
