//! `order` against a per-position reference, and its cost at high rank.

#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

use index_util::{IndexError, PhysicalLayout, TiledLayout};

use index_util::memory_order;

use super::run;

fn layout(text: &str) -> PhysicalLayout {
    PhysicalLayout::new(&text.parse().unwrap()).unwrap()
}

/// The definition: the multi-index of each linear position, row-major.
fn reference(layout: &PhysicalLayout) -> Vec<Option<i64>> {
    (0..layout.padded_element_count())
        .map(|position| match layout.multidimensional_index(position) {
            Ok(index) => Some(
                index
                    .iter()
                    .zip(layout.dimensions())
                    .fold(0, |acc, (&i, &d)| acc * d + i),
            ),
            Err(IndexError::LinearIndexInPadding { .. }) => None,
            Err(e) => panic!("{e}"),
        })
        .collect()
}

#[test]
fn memory_order_is_the_per_position_definition() {
    for text in [
        "f32[2,3]{0,1}",
        "f32[2,3]{1,0}",
        "f32[2,3]{0,1:PAD(3,5)}",
        "f32[]",
        "f32[0,3]{1,0}",
        "f32[0,3]{1,0:PAD(2,3)}",
        "u8[2,1,3,1,2]{0,2,4,1,3}",
        "u8[2,1,3,1,2]{4,3,2,1,0:PAD(3,2,4,1,2)}",
        "u8[3,2,2]{1,2,0:PAD(4,3,2)}",
        "u8[1,1,1]{0,1,2:PAD(1,3,1)}",
        "u8[2,2,2,2]{3,1,2,0:PAD(2,3,3,2)}",
    ] {
        let tiled = TiledLayout::new(&text.parse().unwrap()).unwrap();
        assert_eq!(
            memory_order(&tiled).unwrap(),
            reference(&layout(text)),
            "{text}"
        );
    }
    // The seed: rows of 3 padded to 5, column-major.
    assert_eq!(
        memory_order(&TiledLayout::new(&"f32[2,3]{0,1:PAD(3,5)}".parse().unwrap()).unwrap())
            .unwrap()[..6],
        [Some(0), Some(3), None, Some(1), Some(4), None]
    );
}

/// `f32[1048576,1,...]` with `units` unit dimensions, row-major.
fn tall(units: usize) -> String {
    format!("f32[1048576{}]", ",1".repeat(units))
}

/// Runs `order` on `input`: how long it took.
fn time_order(input: &str) -> Duration {
    let start = Instant::now();
    let (plain, _) = run(input).unwrap();
    let elapsed = start.elapsed();
    assert!(plain.starts_with("0 1 2 3 "));
    elapsed
}

/// O(positions), not positions × rank: a million positions with 16,000
/// unit dimensions (78 s before) cost about the same as with none.
/// Release: `cargo test -p xla-shape --release -- --ignored order_scales`.
#[test]
#[ignore = "a million positions: a second or more in a debug build"]
fn order_scales_with_positions_not_rank() {
    let flat = time_order(&tall(0));
    let deep = time_order(&tall(16_000));
    eprintln!("order of 2^20 positions: rank 1 {flat:?}, rank 16001 {deep:?}");
    assert!(deep < Duration::from_secs(10), "took {deep:?}");
    assert!(
        deep < flat * 3 + Duration::from_millis(500),
        "{deep:?} vs {flat:?}"
    );
}
