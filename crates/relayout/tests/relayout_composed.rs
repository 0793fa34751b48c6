//! The relayouts between a tiled side and a side in another physical
//! order, and between two different tilings: composed through cache-sized
//! intermediates (`Strategy::Composed`) or in one pass of tile transposes
//! (`Strategy::TileTranspose`), against the element positions of
//! `index_util::TiledLayout`, on sizes that are not multiples of the
//! tiles and span many boxes and blocks, on pools of 2 and 3 threads, on
//! random shapes and tiles (proptest), and on large arrays against the
//! same relayout made of two plans through a full-size untiled buffer.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss
)]

mod positions;

use index_util::TiledLayout;
use proptest::prelude::*;
use proptest::strategy::Strategy as _;
use relayout::rayon::{ThreadPool, ThreadPoolBuilder};
use relayout::{FromTo, RelayoutPlan, Strategy};
use schema::Shape;

fn shape(text: &str) -> Shape {
    text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn pool(threads: usize) -> ThreadPool {
    ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

/// The buffer of `shape` with element `r` (row-major number) holding a
/// value distinct from its neighbours (`bits` wide) at its position under
/// the index function (`TiledLayout::for_each_position`), every other bit
/// zero.
fn buffer(shape: &Shape, bits: usize) -> Vec<u8> {
    let layout = TiledLayout::new(shape).unwrap();
    let mut out = vec![0_u8; layout.buffer_size_in_bytes() as usize];
    layout.for_each_position(|k, element| {
        let (Some(r), k) = (element, k as usize) else {
            return;
        };
        let value = (r as u64).wrapping_mul(2_654_435_761) % ((1_u64 << bits.min(32)) - 1) + 1;
        if bits < 8 {
            let bit = k * bits;
            out[bit / 8] |= (value as u8) << (bit % 8);
        } else {
            let n = bits / 8;
            out[k * n..(k + 1) * n].copy_from_slice(&value.to_le_bytes()[..n]);
        }
    });
    out
}

fn plan(from: &Shape, to: &Shape) -> RelayoutPlan {
    RelayoutPlan::xla(FromTo { from, to }).unwrap()
}

/// Checks the relayout from `from` into `to` and back against the index
/// function, on the calling thread and on pools, and returns the plan's
/// strategy.
fn check(from: &str, to: &str, bits: usize) -> Strategy {
    let (from, to) = (shape(from), shape(to));
    let (source, expected) = (buffer(&from, bits), buffer(&to, bits));
    let there = plan(&from, &to);
    let mut out = vec![0xA5_u8; expected.len()];
    there.run(&source, &mut out).unwrap();
    let name = format!(
        "{} -> {}",
        from.human_string_with_layout(),
        to.human_string_with_layout()
    );
    assert!(out == expected, "{name}");
    for threads in [2, 3] {
        let mut many = vec![0x5A_u8; expected.len()];
        there.run_in(&pool(threads), &source, &mut many).unwrap();
        assert!(many == expected, "{name} on {threads} threads");
    }
    let back = plan(&to, &from);
    let mut again = vec![0xA5_u8; source.len()];
    back.run(&expected, &mut again).unwrap();
    assert!(again == source, "{name}, back");
    there.strategy()
}

#[test]
fn transposing_into_and_out_of_tiles_at_odd_sizes() {
    let pairs = [
        // Narrow elements whose packed pairs or quads do not start every
        // source row (771 or 1030 is no multiple of them), a source-side
        // axis of 5, packed sub-byte elements.
        (
            "bf16[1030,771]{1,0}",
            "bf16[1030,771]{0,1:T(8,128)(2,1)}",
            16,
        ),
        ("u8[1030,771]{0,1}", "u8[1030,771]{1,0:T(32,128)(4,1)}", 8),
        ("u8[1030,771]{1,0}", "u8[1030,771]{0,1:T(32,128)(4,1)}", 8),
        (
            "f32[3,5,70,131]{1,3,2,0}",
            "f32[3,5,70,131]{3,2,1,0:T(8,128)}",
            32,
        ),
        (
            "s4[300,513]{0,1:E(4)}",
            "s4[300,513]{1,0:T(8,128)(4,1)E(4)}",
            4,
        ),
    ];
    for (from, to, bits) in pairs {
        assert_eq!(check(from, to, bits), Strategy::Composed, "{from} -> {to}");
    }
}

#[test]
fn tile_transposes_at_odd_sizes() {
    let pairs = [
        ("f32[1030,771]{0,1}", "f32[1030,771]{1,0:T(8,128)}", 32),
        ("f32[1030,771]{1,0}", "f32[1030,771]{0,1:T(8,128)}", 32),
        // Partial tiles along both dimensions, and blocks past them.
        ("f32[1031,777]{0,1}", "f32[1031,777]{1,0:T(8,128)}", 32),
        ("f32[17,129]{0,1}", "f32[17,129]{1,0:T(8,128)}", 32),
        ("f32[40,300]{1,0}", "f32[40,300]{0,1:T(4,16)}", 32),
        ("f32[100,300]{0,1}", "f32[100,300]{1,0:T(2,128)}", 32),
        ("u32[100,60]{0,1}", "u32[100,60]{1,0:T(12,20)}", 32),
        (
            "f32[1030,771]{0,1:PAD(1030,800)PV(zero)}",
            "f32[1030,771]{1,0:T(8,128)}",
            32,
        ),
        (
            "f32[1030,771]{1,0:PAD(1032,780)PV(zero)}",
            "f32[1030,771]{0,1:T(8,128)}",
            32,
        ),
        (
            "bf16[1030,771]{0,1}",
            "bf16[1030,771]{1,0:T(8,128)(2,1)}",
            16,
        ),
        (
            "bf16[1030,772]{1,0}",
            "bf16[1030,772]{0,1:T(8,128)(2,1)}",
            16,
        ),
        ("u8[1032,771]{0,1}", "u8[1032,771]{1,0:T(32,128)(4,1)}", 8),
        ("u8[200,772]{1,0}", "u8[200,772]{0,1:T(32,128)(4,1)}", 8),
        (
            "f32[37,70,131]{1,0,2}",
            "f32[37,70,131]{2,1,0:T(8,128)}",
            32,
        ),
        // The destination-side axis split in two levels of a tile's rows
        // and columns (as long as a block or longer).
        (
            "f32[20,130,40]{2,1,0}",
            "f32[20,130,40]{1,0,2:T(8,128)}",
            32,
        ),
        (
            "f32[3,37,70,131]{2,3,0,1}",
            "f32[3,37,70,131]{3,2,1,0:T(8,128)}",
            32,
        ),
    ];
    for (from, to, bits) in pairs {
        assert_eq!(
            check(from, to, bits),
            Strategy::TileTranspose,
            "{from} -> {to}"
        );
    }
}

#[test]
fn tiles_into_different_tiles_at_odd_sizes() {
    let pairs = [
        (
            "f32[1030,771]{1,0:T(8,128)}",
            "f32[1030,771]{1,0:T(4,128)}",
            32,
        ),
        (
            "f32[1030,771]{1,0:T(8,128)}",
            "f32[1030,771]{1,0:T(2,3)}",
            32,
        ),
        // Tile sizes that do not nest (12 and 8 along one dimension).
        (
            "f32[1030,771]{1,0:T(8,128)}",
            "f32[1030,771]{0,1:T(12,128)}",
            32,
        ),
    ];
    for (from, to, bits) in pairs {
        assert_eq!(check(from, to, bits), Strategy::Composed, "{from} -> {to}");
    }
}

#[test]
fn tiles_into_transposed_tiles_take_one_pass() {
    let pairs = [
        (
            "f32[1030,771]{1,0:T(8,128)}",
            "f32[1030,771]{0,1:T(8,128)}",
            32,
        ),
        // Partial tiles on both sides along both dimensions, arrays
        // smaller than one tile along one, tiles of other sizes.
        (
            "f32[1031,777]{0,1:T(8,128)}",
            "f32[1031,777]{1,0:T(8,128)}",
            32,
        ),
        ("f32[17,129]{1,0:T(8,128)}", "f32[17,129]{0,1:T(8,128)}", 32),
        ("f32[129,17]{0,1:T(8,128)}", "f32[129,17]{1,0:T(8,128)}", 32),
        ("f32[300,40]{1,0:T(4,16)}", "f32[300,40]{0,1:T(16,64)}", 32),
        ("u32[100,61]{1,0:T(2,32)}", "u32[100,61]{0,1:T(16,32)}", 32),
        (
            "f32[37,70,131]{2,1,0:T(8,128)}",
            "f32[37,70,131]{0,2,1:T(8,128)}",
            32,
        ),
        (
            "f32[5,70,131]{2,1,0:T(8,128)}",
            "f32[5,70,131]{1,0,2:T(8,128)}",
            32,
        ),
        (
            "f32[5,70,131]{1,0,2:T(8,128)}",
            "f32[5,70,131]{2,1,0:T(8,128)}",
            32,
        ),
        // Packed pairs and quads of rows into pairs and quads of columns,
        // partial squares, tiles and blocks on both sides.
        (
            "bf16[1030,771]{1,0:T(8,128)(2,1)}",
            "bf16[1030,771]{0,1:T(8,128)(2,1)}",
            16,
        ),
        (
            "bf16[1031,770]{0,1:T(8,128)(2,1)}",
            "bf16[1031,770]{1,0:T(8,128)(2,1)}",
            16,
        ),
        (
            "u8[1030,771]{1,0:T(32,128)(4,1)}",
            "u8[1030,771]{0,1:T(32,128)(4,1)}",
            8,
        ),
        (
            "u8[1029,774]{0,1:T(32,128)(4,1)}",
            "u8[1029,774]{1,0:T(32,128)(4,1)}",
            8,
        ),
        (
            "u8[170,67]{1,0:T(32,64)(4,1)}",
            "u8[170,67]{0,1:T(32,128)(4,1)}",
            8,
        ),
        (
            "bf16[5,37,300]{2,1,0:T(8,128)(2,1)}",
            "bf16[5,37,300]{1,2,0:T(8,128)(2,1)}",
            16,
        ),
    ];
    for (from, to, bits) in pairs {
        assert_eq!(
            check(from, to, bits),
            Strategy::TileTranspose,
            "{from} -> {to}"
        );
    }
}

#[test]
fn tiles_in_the_other_sides_order_take_one_pass() {
    for (from, to, bits) in [
        ("f32[1030,771]{1,0}", "f32[1030,771]{1,0:T(8,128)}", 32),
        (
            "bf16[1030,771]{0,1}",
            "bf16[1030,771]{0,1:T(8,128)(2,1)}",
            16,
        ),
        // Tiles as wide as their rows: every row of the tiles as far from
        // the next, a plain transpose.
        ("f32[16,16]{0,1}", "f32[16,16]{1,0:T(8,128)}", 32),
        ("f32[100,128]{0,1}", "f32[100,128]{1,0:T(8,128)}", 32),
        (
            "f32[16,64,128]{1,0,2}",
            "f32[16,64,128]{2,1,0:T(8,128)}",
            32,
        ),
    ] {
        assert_eq!(
            check(from, to, bits),
            Strategy::TilePieces,
            "{from} -> {to}"
        );
    }
}

/// The relayout from `from` into `to` equals the two plans from `from`
/// into `middle` and from there into `to` (each one pass of another
/// kind), on one thread and on a pool of 2; returns its strategy.
fn equals_two_plans(from: &str, middle: &str, to: &str) -> Strategy {
    let (from, middle, to) = (shape(from), shape(middle), shape(to));
    let len = |shape: &Shape| TiledLayout::new(shape).unwrap().buffer_size_in_bytes() as usize;
    let source: Vec<u8> = (0..len(&from)).map(|i| (i % 251) as u8).collect();
    let mut half = vec![0_u8; len(&middle)];
    plan(&from, &middle).run(&source, &mut half).unwrap();
    let mut two = vec![0_u8; len(&to)];
    plan(&middle, &to).run(&half, &mut two).unwrap();
    let one = plan(&from, &to);
    let name = format!(
        "{} -> {}",
        from.human_string_with_layout(),
        to.human_string_with_layout()
    );
    positions::on_and_off_lines(two.len(), 0xFF, |out, start| {
        one.run(&source, out).unwrap();
        assert!(*out == two, "{name} (from byte {start})");
        out.fill(0xFF);
        one.run_in(&pool(2), &source, out).unwrap();
        assert!(*out == two, "{name} on 2 threads (from byte {start})");
    });
    one.strategy()
}

#[test]
fn a_large_composition_equals_two_plans() {
    // 12 MiB: the boxes also split over the pool.
    let strategy = equals_two_plans(
        "f32[2056,1500]{1,0:T(8,128)}",
        "f32[2056,1500]{1,0}",
        "f32[2056,1500]{0,1:T(12,128)}",
    );
    assert_eq!(strategy, Strategy::Composed);
}

#[test]
fn large_tile_transposes_equal_two_plans() {
    // 12 and 6 MiB and more (streaming stores from 8 MiB, on one thread),
    // partial tiles along both dimensions.
    let cases = [
        (
            "f32[2056,1500]{0,1}",
            "f32[2056,1500]{1,0}",
            "f32[2056,1500]{1,0:T(8,128)}",
        ),
        (
            "f32[2056,1500]{1,0:T(8,128)}",
            "f32[2056,1500]{1,0}",
            "f32[2056,1500]{0,1}",
        ),
        (
            "f32[2051,1500]{1,0}",
            "f32[2051,1500]{0,1}",
            "f32[2051,1500]{0,1:T(8,128)}",
        ),
        (
            "bf16[2056,2300]{0,1}",
            "bf16[2056,2300]{1,0}",
            "bf16[2056,2300]{1,0:T(8,128)(2,1)}",
        ),
        (
            "bf16[2056,2300]{1,0:T(8,128)(2,1)}",
            "bf16[2056,2300]{1,0}",
            "bf16[2056,2300]{0,1}",
        ),
        (
            "u8[4100,3000]{0,1}",
            "u8[4100,3000]{1,0}",
            "u8[4100,3000]{1,0:T(32,128)(4,1)}",
        ),
        (
            "f32[40,256,300]{1,0,2}",
            "f32[40,256,300]{2,1,0}",
            "f32[40,256,300]{2,1,0:T(8,128)}",
        ),
        // Source rows 128 KiB apart (the tiles of one index of the major
        // dimension), all starting in one L2 set: the blocks prefetch
        // their source lines block by block, not region by region.
        (
            "f32[128,256,72]{1,0,2:T(8,128)}",
            "f32[128,256,72]{1,0,2}",
            "f32[128,256,72]{2,1,0}",
        ),
        // Tiles into transposed tiles, partial ones on both sides.
        (
            "f32[2051,1500]{1,0:T(8,128)}",
            "f32[2051,1500]{1,0}",
            "f32[2051,1500]{0,1:T(8,128)}",
        ),
        (
            "f32[2051,1500]{0,1:T(8,128)}",
            "f32[2051,1500]{1,0}",
            "f32[2051,1500]{1,0:T(8,128)}",
        ),
        (
            "f32[40,256,300]{2,1,0:T(8,128)}",
            "f32[40,256,300]{2,1,0}",
            "f32[40,256,300]{1,0,2:T(8,128)}",
        ),
        (
            "bf16[2057,2301]{1,0:T(8,128)(2,1)}",
            "bf16[2057,2301]{1,0}",
            "bf16[2057,2301]{0,1:T(8,128)(2,1)}",
        ),
        (
            "u8[4101,3001]{0,1:T(32,128)(4,1)}",
            "u8[4101,3001]{1,0}",
            "u8[4101,3001]{1,0:T(32,128)(4,1)}",
        ),
    ];
    for (from, middle, to) in cases {
        let strategy = equals_two_plans(from, middle, to);
        assert_eq!(strategy, Strategy::TileTranspose, "{from} -> {to}");
    }
}

/// A random 2-D or 3-D array of a 4-, 2- or 1-byte type, its layout on
/// the untiled side (column-major, or the other order of the last two
/// dimensions), and tiles whose rows are few (some narrower than a
/// register block) in the other order, packing pairs or quads of rows of
/// narrow types as XLA does.
fn tile_transpose_case() -> impl proptest::strategy::Strategy<Value = (String, String, usize)> {
    (
        prop::sample::select(vec![("f32", 32, 1), ("bf16", 16, 2), ("u8", 8, 4)]),
        0_i64..4,
        8_i64..300,
        8_i64..300,
        prop::sample::select(vec![1_i64, 2, 3, 4, 8, 12]),
        prop::sample::select(vec![16_i64, 32, 100, 128]),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |((ty, bits, pack), outer, rows, cols, tile_rows, tile_cols, three, flip)| {
                let (dims, untiled, tiled) = if three {
                    (format!("{},{rows},{cols}", outer + 1), "1,0,2", "2,1,0")
                } else {
                    (format!("{rows},{cols}"), "0,1", "1,0")
                };
                let (untiled, tiled) = if flip && !three {
                    (tiled, untiled)
                } else {
                    (untiled, tiled)
                };
                let tiles = if pack > 1 {
                    format!("T({},{tile_cols})({pack},1)", tile_rows * pack)
                } else {
                    format!("T({tile_rows},{tile_cols})")
                };
                (
                    format!("{ty}[{dims}]{{{untiled}}}"),
                    format!("{ty}[{dims}]{{{tiled}:{tiles}}}"),
                    bits,
                )
            },
        )
}

/// A random 2-D or 3-D array of a 4-, 2- or 1-byte type, tiled on both
/// sides in orders that transpose each other's, with tile sizes that nest
/// (powers of two) or not, packing pairs or quads of rows of narrow types
/// as XLA does.
fn retile_case() -> impl proptest::strategy::Strategy<Value = (String, String, usize)> {
    let side = || prop::sample::select(vec![1_i64, 2, 4, 8, 16, 32, 128, 12]);
    (
        prop::sample::select(vec![("f32", 32, 1), ("bf16", 16, 2), ("u8", 8, 4)]),
        1_i64..4,
        1_i64..300,
        1_i64..300,
        (side(), side(), side(), side()),
        any::<bool>(),
    )
        .prop_map(
            |((ty, bits, pack), outer, rows, cols, (a, b, c, d), three)| {
                let (dims, from, to) = if three {
                    (format!("{outer},{rows},{cols}"), "2,1,0", "1,0,2")
                } else {
                    (format!("{rows},{cols}"), "1,0", "0,1")
                };
                let tiles = |r: i64, c: i64| {
                    if pack > 1 {
                        format!("T({},{c})({pack},1)", r * pack)
                    } else {
                        format!("T({r},{c})")
                    }
                };
                (
                    format!("{ty}[{dims}]{{{from}:{}}}", tiles(a, b)),
                    format!("{ty}[{dims}]{{{to}:{}}}", tiles(c, d)),
                    bits,
                )
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Relayouts between tiles in transposed orders equal the index
    /// function, whatever strategy takes them.
    #[test]
    fn tiles_into_transposed_tiles_match_the_index_function((from, to, bits) in retile_case()) {
        let strategy = check(&from, &to, bits);
        prop_assert!(
            matches!(
                strategy,
                Strategy::TileTranspose | Strategy::TilePieces | Strategy::Composed
            ),
            "{} -> {}: {:?}", from, to, strategy
        );
    }

    /// Whatever strategy takes them, relayouts into and out of such tiles
    /// equal the index function; those whose rows and columns allow it are
    /// tile transposes.
    #[test]
    fn tile_transposes_match_the_index_function((from, to, bits) in tile_transpose_case()) {
        let strategy = check(&from, &to, bits);
        prop_assert!(
            matches!(
                strategy,
                Strategy::TileTranspose | Strategy::TilePieces | Strategy::Composed
            ),
            "{} -> {}: {:?}", from, to, strategy
        );
    }
}
