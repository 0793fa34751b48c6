//! Relayouts of packed 4-bit elements (`E(4)`) that move whole bytes:
//! between layouts whose bytes pair the same neighbours (the units'
//! byte relayout) and layouts that pair neighbours along different
//! dimensions (`Strategy::NibblePairs`), against the element positions
//! of `index_util::TiledLayout`, on sizes that are and are not multiples
//! of the tiles (odd ones keep the element paths), on one thread and on a
//! pool; 1- and 2-bit elements keep their paths.
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
    positions::check(from, to, bits, &[2])
}

const LAYOUTS: [&str; 6] = [
    "{1,0:E(4)}",
    "{0,1:E(4)}",
    "{1,0:T(8,128)(2,1)E(4)}",
    "{0,1:T(8,128)(2,1)E(4)}",
    "{1,0:T(4,64)(4,1)E(4)}",
    "{0,1:T(2,16)E(4)}",
];

#[test]
fn every_pair_of_layouts_at_whole_tiles() {
    for dims in ["[256,512]", "[16,128]", "[1024,256]", "[200,2048]"] {
        for a in LAYOUTS {
            for b in LAYOUTS {
                let strategy = check(&format!("s4{dims}{a}"), &format!("s4{dims}{b}"), 4);
                assert_ne!(strategy, Strategy::Elements, "{dims}{a} -> {b}");
            }
        }
    }
}

#[test]
fn the_exchanges_go_by_nibble_pairs() {
    let pairs = [
        ("{1,0:E(4)}", "{0,1:E(4)}"),
        ("{0,1:E(4)}", "{1,0:E(4)}"),
        ("{1,0:E(4)}", "{1,0:T(8,128)(2,1)E(4)}"),
        ("{1,0:T(8,128)(2,1)E(4)}", "{1,0:E(4)}"),
        ("{0,1:E(4)}", "{0,1:T(8,128)(2,1)E(4)}"),
        ("{0,1:T(8,128)(2,1)E(4)}", "{0,1:E(4)}"),
        ("{1,0:T(8,128)(2,1)E(4)}", "{0,1:T(8,128)(2,1)E(4)}"),
        ("{0,1:T(8,128)(2,1)E(4)}", "{1,0:T(8,128)(2,1)E(4)}"),
    ];
    // At every SIMD level of this CPU (AVX-512 exchanges 64 bytes of two
    // rows at a time, SSE2 16); other tests running meanwhile only take
    // another level's path.
    for level in detected_simd_level().and_below() {
        assert_eq!(force_simd_level(Some(level)), level);
        for (a, b) in pairs {
            let strategy = check(&format!("u4[256,640]{a}"), &format!("u4[256,640]{b}"), 4);
            assert_eq!(strategy, Strategy::NibblePairs, "{a} -> {b} at {level:?}");
        }
    }
    force_simd_level(None);
}

#[test]
fn odd_and_partial_sizes_stay_exact() {
    for dims in [
        "[255,512]",
        "[256,511]",
        "[257,129]",
        "[3,5]",
        "[10,130]",
        "[136,200]",
        "[2,2]",
    ] {
        for a in LAYOUTS {
            for b in LAYOUTS {
                check(&format!("s4{dims}{a}"), &format!("s4{dims}{b}"), 4);
            }
        }
    }
}

#[test]
fn other_ranks_and_widths_stay_exact() {
    let pairs = [
        ("s4[6,8,10]{2,1,0:E(4)}", "s4[6,8,10]{0,1,2:E(4)}", 4),
        (
            "s4[6,8,10]{2,1,0:E(4)}",
            "s4[6,8,10]{1,2,0:T(2,128)(2,1)E(4)}",
            4,
        ),
        ("s4[64]{0:E(4)}", "s4[64]{0:T(16)E(4)}", 4),
        ("u2[64,36]{1,0:E(2)}", "u2[64,36]{0,1:E(2)}", 2),
        ("u2[64,36]{1,0:E(2)}", "u2[64,36]{0,1:T(8,128)(4,1)E(2)}", 2),
        ("u1[64,40]{0,1:E(1)}", "u1[64,40]{1,0:T(8,128)(8,1)E(1)}", 1),
    ];
    for (from, to, bits) in pairs {
        check(from, to, bits);
    }
}

#[test]
fn large_exchanges_stream_exactly() {
    // 8 MiB each: the stores stream.
    let (rows, tiles) = (
        "s4[4096,4096]{1,0:E(4)}",
        "s4[4096,4096]{1,0:T(8,128)(2,1)E(4)}",
    );
    assert_eq!(check(rows, tiles, 4), Strategy::NibblePairs);
    assert_eq!(check(tiles, rows, 4), Strategy::NibblePairs);
    // And the untiled transpose, both ways (split over the pool).
    let columns = "s4[4096,4096]{0,1:E(4)}";
    assert_eq!(check(rows, columns, 4), Strategy::NibblePairs);
    assert_eq!(check(columns, rows, 4), Strategy::NibblePairs);
}
