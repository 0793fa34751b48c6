//! The relayouts composed through cache-sized intermediates
//! (`Strategy::Composed`: a tiled side whose physical order is not the
//! other's, two different tilings) against the element positions of
//! `index_util::TiledLayout`, on sizes that are not multiples of the
//! tiles and span many boxes, on pools of 2 and 3 threads, and on a large
//! array against the same relayout made of two plans through a full-size
//! untiled buffer.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss
)]

use index_util::TiledLayout;
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
    there.strategy().unwrap()
}

#[test]
fn transposing_into_and_out_of_tiles_at_odd_sizes() {
    let pairs = [
        ("f32[1030,771]{0,1}", "f32[1030,771]{1,0:T(8,128)}", 32),
        ("f32[1030,771]{1,0}", "f32[1030,771]{0,1:T(8,128)}", 32),
        (
            "f32[1030,771]{0,1:PAD(1030,800)PV(zero)}",
            "f32[1030,771]{1,0:T(8,128)}",
            32,
        ),
        (
            "bf16[1030,771]{0,1}",
            "bf16[1030,771]{1,0:T(8,128)(2,1)}",
            16,
        ),
        (
            "bf16[1030,771]{1,0}",
            "bf16[1030,771]{0,1:T(8,128)(2,1)}",
            16,
        ),
        ("u8[1030,771]{0,1}", "u8[1030,771]{1,0:T(32,128)(4,1)}", 8),
        ("u8[1030,771]{1,0}", "u8[1030,771]{0,1:T(32,128)(4,1)}", 8),
        (
            "f32[37,70,131]{1,0,2}",
            "f32[37,70,131]{2,1,0:T(8,128)}",
            32,
        ),
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
fn tiles_into_different_tiles_at_odd_sizes() {
    let pairs = [
        (
            "f32[1030,771]{1,0:T(8,128)}",
            "f32[1030,771]{0,1:T(8,128)}",
            32,
        ),
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
        (
            "bf16[1030,771]{1,0:T(8,128)(2,1)}",
            "bf16[1030,771]{0,1:T(8,128)(2,1)}",
            16,
        ),
        (
            "u8[1030,771]{1,0:T(32,128)(4,1)}",
            "u8[1030,771]{0,1:T(32,128)(4,1)}",
            8,
        ),
        (
            "f32[37,70,131]{2,1,0:T(8,128)}",
            "f32[37,70,131]{0,2,1:T(8,128)}",
            32,
        ),
    ];
    for (from, to, bits) in pairs {
        assert_eq!(check(from, to, bits), Strategy::Composed, "{from} -> {to}");
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
    ] {
        assert_eq!(
            check(from, to, bits),
            Strategy::TilePieces,
            "{from} -> {to}"
        );
    }
}

#[test]
fn a_large_composition_equals_two_plans() {
    // 12 MiB: the boxes also split over the pool.
    let from = shape("f32[2056,1500]{0,1}");
    let middle = shape("f32[2056,1500]{1,0}");
    let to = shape("f32[2056,1500]{1,0:T(8,128)}");
    let source: Vec<u8> = (0..2056 * 1500 * 4).map(|i| (i % 251) as u8).collect();
    let mut half = vec![0_u8; source.len()];
    plan(&from, &middle).run(&source, &mut half).unwrap();
    let len = TiledLayout::new(&to).unwrap().buffer_size_in_bytes() as usize;
    let mut two = vec![0_u8; len];
    plan(&middle, &to).run(&half, &mut two).unwrap();
    let one = plan(&from, &to);
    let mut out = vec![0xFF_u8; len];
    one.run(&source, &mut out).unwrap();
    assert!(out == two);
    let mut pooled = vec![0xFF_u8; len];
    one.run_in(&pool(2), &source, &mut pooled).unwrap();
    assert!(pooled == two);
}
