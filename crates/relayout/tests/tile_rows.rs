//! Relayouts out of one tile as wide as its rows (`T(8,128)` over rows of
//! at most 128 elements), which are strided relayouts of the untiled
//! layout of the same order with padding: against the element positions
//! of `index_util::TiledLayout`, on one thread and on pools, with partial
//! tiles, rank 3, several tile ranks, and the pairs that keep the tiled
//! paths (tiles narrower than the rows, a tiled destination).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss
)]

mod positions;

use relayout::Strategy;

#[test]
fn tiles_as_wide_as_their_rows_relay_as_strided_views() {
    for (from, to, bits) in [
        (
            "f32[16,64,128]{1,0,2:T(8,128)}",
            "f32[16,64,128]{2,1,0}",
            32,
        ),
        (
            "f32[16,64,128]{2,1,0:T(8,128)}",
            "f32[16,64,128]{1,0,2}",
            32,
        ),
        ("f32[13,100]{1,0:T(8,128)}", "f32[13,100]{0,1}", 32),
        ("f32[3,13,100]{2,1,0:T(8,128)}", "f32[3,13,100]{0,1,2}", 32),
        ("bf16[40,70]{0,1:T(16,128)}", "bf16[40,70]{1,0}", 16),
        ("u8[5,6,7]{2,1,0:T(4,8,8)}", "u8[5,6,7]{0,1,2}", 8),
        ("f64[9,33]{1,0:T(128)}", "f64[9,33]{0,1}", 64),
        ("s8[300,64]{1,0:T(32,64)}", "s8[300,64]{1,0}", 8),
    ] {
        let strategy = positions::check(from, to, bits, &[2, 3]);
        // The strided strategies (a transpose of rows in two levels is a
        // tile transpose too), not the compositions through tiles.
        assert!(
            !matches!(strategy, Strategy::Composed | Strategy::TilePieces),
            "{from} -> {to}: {strategy}"
        );
    }
}

#[test]
fn narrower_tiles_and_tiled_destinations_keep_the_tiled_paths() {
    for (from, to, bits) in [
        ("f32[16,256]{1,0:T(8,128)}", "f32[16,256]{0,1}", 32),
        (
            "f32[16,64,128]{1,0,2:T(8,128)}",
            "f32[16,64,128]{2,1,0:T(8,128)}",
            32,
        ),
        ("f32[16,64]{1,0}", "f32[16,64]{1,0:T(8,128)}", 32),
        ("bf16[16,64]{1,0:T(8,128)(2,1)}", "bf16[16,64]{0,1}", 16),
    ] {
        positions::check(from, to, bits, &[2]);
    }
}

#[test]
fn tiles_too_wide_for_any_buffer_are_errors_not_overflows() {
    for (from, to) in [
        ("f32[3,5]{1,0:T(2,4611686018427387904)}", "f32[3,5]{0,1}"),
        ("u8[2,3]{1,0:T(1,9223372036854775807)}", "u8[2,3]{0,1}"),
        (
            "u8[4,2,3]{2,1,0:T(3,4611686018427387904)}",
            "u8[4,2,3]{0,1,2}",
        ),
    ] {
        let (from, to) = (positions::shape(from), positions::shape(to));
        let plan = relayout::RelayoutPlan::xla(relayout::FromTo {
            from: &from,
            to: &to,
        });
        assert!(plan.is_err(), "{from} -> {to}");
    }
}
