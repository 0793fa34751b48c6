//! The cost of `order` at high rank.

#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

use super::run;

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
