//! Tiles into transposed tiles (`Strategy::TileTranspose` between two
//! tilings), packed ones included, and untiled layouts into packing tiles
//! and back (the interleaved rows of `(2,1)` and `(4,1)`), at every SIMD
//! level the CPU has, against the element positions of
//! `index_util::TiledLayout`, with partial tiles on both sides. A file
//! of its own: forcing a level changes it for every thread of the process.
#![allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss
)]

mod positions;

use relayout::{Strategy, detected_simd_level, force_simd_level};
use std::sync::Mutex;

/// Held by each test while it forces levels: the level is the process's.
static LEVELS: Mutex<()> = Mutex::new(());

#[test]
fn every_simd_level_matches_the_index_function() {
    let _levels = LEVELS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let pairs = [
        (
            "f32[1031,777]{1,0:T(8,128)}",
            "f32[1031,777]{0,1:T(8,128)}",
            32,
        ),
        (
            "f32[1031,777]{0,1:T(8,128)}",
            "f32[1031,777]{1,0:T(8,128)}",
            32,
        ),
        (
            "f32[5,70,131]{2,1,0:T(8,128)}",
            "f32[5,70,131]{1,0,2:T(8,128)}",
            32,
        ),
        ("f32[300,40]{1,0:T(4,16)}", "f32[300,40]{0,1:T(16,64)}", 32),
        (
            "bf16[1031,770]{1,0:T(8,128)(2,1)}",
            "bf16[1031,770]{0,1:T(8,128)(2,1)}",
            16,
        ),
        (
            "u8[1029,774]{0,1:T(32,128)(4,1)}",
            "u8[1029,774]{1,0:T(32,128)(4,1)}",
            8,
        ),
        // Packed squares both ways, whole tiles and partial ones.
        (
            "bf16[1031,770]{0,1:T(8,128)(2,1)}",
            "bf16[1031,770]{1,0:T(8,128)(2,1)}",
            16,
        ),
        (
            "bf16[256,512]{1,0:T(8,128)(2,1)}",
            "bf16[256,512]{0,1:T(8,128)(2,1)}",
            16,
        ),
        (
            "u8[1029,774]{1,0:T(32,128)(4,1)}",
            "u8[1029,774]{0,1:T(32,128)(4,1)}",
            8,
        ),
        (
            "u8[512,256]{0,1:T(32,128)(4,1)}",
            "u8[512,256]{1,0:T(32,128)(4,1)}",
            8,
        ),
        (
            "u8[3,4,100,136]{3,2,1,0:T(32,128)(4,1)}",
            "u8[3,4,100,136]{2,3,1,0:T(32,128)(4,1)}",
            8,
        ),
    ];
    for level in detected_simd_level().and_below() {
        assert_eq!(force_simd_level(Some(level)), level);
        for (from, to, bits) in pairs {
            let relayout = positions::relayout(from, to, bits);
            assert_eq!(relayout.plan.strategy(), Strategy::TileTranspose);
            let mut out = vec![0xA5_u8; relayout.want.len()];
            relayout.check_into(&mut out, format_args!("at {level:?}"));
        }
    }
    force_simd_level(None);
}

/// Packed squares large enough to stream (8 MiB and more), into a
/// destination on a 64-byte line and one 16 bytes off it, at the detected
/// level and at AVX2.
#[test]
fn large_packed_squares_match_the_index_function() {
    let _levels = LEVELS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let pairs = [
        (
            "bf16[2100,2048]{1,0:T(8,128)(2,1)}",
            "bf16[2100,2048]{0,1:T(8,128)(2,1)}",
            16,
        ),
        (
            "u8[3000,2900]{0,1:T(32,128)(4,1)}",
            "u8[3000,2900]{1,0:T(32,128)(4,1)}",
            8,
        ),
        // Tiles 128 KiB apart (64 along each row of tiles), so that the
        // source rows of 16 of them start in one L2 set: the blocks are
        // walked without prefetching by regions.
        (
            "bf16[516,8192]{1,0:T(8,128)(2,1)}",
            "bf16[516,8192]{0,1:T(8,128)(2,1)}",
            16,
        ),
    ];
    for (from, to, bits) in pairs {
        let relayout = positions::relayout(from, to, bits);
        assert_eq!(relayout.plan.strategy(), Strategy::TileTranspose);
        let levels: Vec<_> = detected_simd_level().and_below().collect();
        for &level in levels.iter().rev().take(2) {
            assert_eq!(force_simd_level(Some(level)), level);
            relayout.check_on_and_off_lines(format_args!("at {level:?}"));
        }
    }
    force_simd_level(None);
}

/// Packed squares on pools of 2 and 3 threads, split into parts of whole
/// blocks of destination rows: in cache (1 MiB and more, two parts or
/// three), streamed, with partial tiles (whose rows the last part's
/// edges take), and a 3-D array whose outer dimension keeps them on one
/// thread.
#[test]
fn packed_squares_on_pools_match_the_index_function() {
    let pairs = [
        (
            "bf16[1024,1024]{1,0:T(8,128)(2,1)}",
            "bf16[1024,1024]{0,1:T(8,128)(2,1)}",
            16,
        ),
        (
            "bf16[1031,1290]{0,1:T(8,128)(2,1)}",
            "bf16[1031,1290]{1,0:T(8,128)(2,1)}",
            16,
        ),
        (
            "u8[1029,1500]{1,0:T(32,128)(4,1)}",
            "u8[1029,1500]{0,1:T(32,128)(4,1)}",
            8,
        ),
        (
            "bf16[2100,2048]{0,1:T(8,128)(2,1)}",
            "bf16[2100,2048]{1,0:T(8,128)(2,1)}",
            16,
        ),
        (
            "u8[3,4,300,536]{3,2,1,0:T(32,128)(4,1)}",
            "u8[3,4,300,536]{2,3,1,0:T(32,128)(4,1)}",
            8,
        ),
    ];
    for (from, to, bits) in pairs {
        let strategy = positions::check(from, to, bits, &[2, 3]);
        assert_eq!(strategy, Strategy::TileTranspose, "{from} -> {to}");
    }
}

/// Untiled layouts into packing tiles and back on pools of 2 and 3
/// threads, each part of the destination interleaved on its own thread:
/// large enough to split (1 MiB and more) in cache and streamed (from
/// 8 MiB), with partial tiles, both orders.
#[test]
fn packing_tiles_on_pools_match_the_index_function() {
    let pairs = [
        (
            "bf16[1031,1290]{1,0}",
            "bf16[1031,1290]{1,0:T(8,128)(2,1)}",
            16,
        ),
        (
            "bf16[1031,1290]{1,0:T(8,128)(2,1)}",
            "bf16[1031,1290]{1,0}",
            16,
        ),
        ("u8[1029,1500]{0,1}", "u8[1029,1500]{0,1:T(32,128)(4,1)}", 8),
        ("u8[1029,1500]{0,1:T(32,128)(4,1)}", "u8[1029,1500]{0,1}", 8),
        (
            "bf16[2100,2048]{1,0}",
            "bf16[2100,2048]{1,0:T(8,128)(2,1)}",
            16,
        ),
        ("u8[3000,2900]{1,0:T(32,128)(4,1)}", "u8[3000,2900]{1,0}", 8),
    ];
    for (from, to, bits) in pairs {
        let strategy = positions::check(from, to, bits, &[2, 3]);
        assert_eq!(strategy, Strategy::TilePieces, "{from} -> {to}");
    }
}

/// Untiled layouts into packing tiles of the same order and back, whose
/// tiles' rows interleave pairs or quads of the array's rows: whole tiles
/// and partial ones, in cache and large enough to stream (into a
/// destination on a line and 16 bytes off it), at every SIMD level.
#[test]
fn packing_tiles_at_every_level() {
    let _levels = LEVELS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let pairs = [
        ("bf16[256,512]{1,0}", "bf16[256,512]{1,0:T(8,128)(2,1)}", 16),
        ("bf16[37,300]{1,0:T(8,128)(2,1)}", "bf16[37,300]{1,0}", 16),
        ("u8[512,512]{1,0}", "u8[512,512]{1,0:T(32,128)(4,1)}", 8),
        ("u8[512,512]{1,0:T(32,128)(4,1)}", "u8[512,512]{1,0}", 8),
        ("u8[70,260]{0,1}", "u8[70,260]{0,1:T(32,128)(4,1)}", 8),
        ("f32[64,256]{1,0}", "f32[64,256]{1,0:T(8,128)(2,1)}", 32),
        ("u8[3000,2900]{1,0}", "u8[3000,2900]{1,0:T(32,128)(4,1)}", 8),
        (
            "bf16[2100,2048]{1,0:T(8,128)(2,1)}",
            "bf16[2100,2048]{1,0}",
            16,
        ),
    ];
    let levels: Vec<_> = detected_simd_level().and_below().collect();
    for (from, to, bits) in pairs {
        let relayout = positions::relayout(from, to, bits);
        for &level in &levels {
            assert_eq!(force_simd_level(Some(level)), level);
            relayout.check_on_and_off_lines(format_args!("at {level:?}"));
        }
    }
    force_simd_level(None);
}
