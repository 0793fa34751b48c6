//! `relayout_xla` between the layouts whose relayouts go by 64 × 64 byte
//! transposes in registers: bytes between an untiled layout and tiles
//! `T(4,c)` of the other order (`c` 64, 128, 192), and packed 4-bit
//! (`E(4)`) row-major, column-major, `T(8,128)(2,1)` and
//! `T(8,256)(2,1)` in both orders, at sizes that are whole blocks (64 or
//! 128 rows and columns times 1 to 3, so that some relayouts split into
//! parts and bands unevenly) and, one in four, sizes just off them. The
//! reference copies element by element at the positions `TiledLayout`
//! gives; the plan on a pool of 3 threads writes the same bytes. Counts
//! the cases per strategy and prints them to stderr at every power of two
//! from 256.

use std::sync::atomic::{AtomicU64, Ordering};

use index_util::TiledLayout;
use relayout::{FromTo, RelayoutPlan, Strategy, relayout_xla};
use schema::Shape;

use crate::common::for_each_index;
use crate::{bytes, get_bits, set_bits};

/// Byte layouts: untiled, then tiled of the other order with `c`.
const BYTE_PAIRS: [(&str, &str, usize); 4] = [
    ("{1,0}", "{0,1:T(4,64)}", 64),
    ("{0,1}", "{1,0:T(4,128)}", 128),
    ("{1,0}", "{0,1:T(4,192)}", 192),
    ("{0,1}", "{1,0:T(4,64)}", 64),
];

/// Packed 4-bit layouts, each pair of which is a case.
const NIBBLE_LAYOUTS: [&str; 6] = [
    "{1,0:E(4)}",
    "{0,1:E(4)}",
    "{1,0:T(8,128)(2,1)E(4)}",
    "{0,1:T(8,128)(2,1)E(4)}",
    "{1,0:T(8,256)(2,1)E(4)}",
    "{0,1:T(8,256)(2,1)E(4)}",
];

/// Cases per strategy: tile transposes, nibble pairs, any other.
static COUNTS: [AtomicU64; 3] = [const { AtomicU64::new(0) }; 3];

fn count(strategy: Strategy) {
    let slot = match strategy {
        Strategy::TileTranspose => 0,
        Strategy::NibblePairs => 1,
        _ => 2,
    };
    COUNTS[slot].fetch_add(1, Ordering::Relaxed);
    let total: u64 = COUNTS.iter().map(|c| c.load(Ordering::Relaxed)).sum();
    if total >= 256 && total.is_power_of_two() {
        let [a, b, c] = COUNTS.each_ref().map(|c| c.load(Ordering::Relaxed));
        eprintln!(
            "relayout_xla blocks after {total} cases: tile transpose {a}, nibble pairs {b}, other {c}"
        );
    }
}

fn shape(text: &str) -> Shape {
    text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// The case `pick` chooses, `a` and `b` its sizes, `off` whether they are
/// just off whole blocks, `back` its direction.
pub fn check(pick: u8, a: u8, b: u8, off: u8, seed: u64) {
    let (a, b) = (usize::from(a % 3) + 1, usize::from(b % 3) + 1);
    // Just off the blocks: a few elements more or fewer on one dimension.
    let nudge = |n: usize| match off % 8 {
        0 => n + 2,
        1 => n - 2,
        _ => n,
    };
    let pick = usize::from(pick);
    let (from, to) = if pick % 2 == 0 {
        let (untiled, tiled, c) = BYTE_PAIRS[pick / 2 % BYTE_PAIRS.len()];
        // Rows of `c` multiples, lines of 64 bytes (either order).
        let dims = format!("[{},{}]", nudge(c * a), 64 * b * 2);
        let (untiled, tiled) = (format!("u8{dims}{untiled}"), format!("u8{dims}{tiled}"));
        if pick / 2 / BYTE_PAIRS.len() % 2 == 0 {
            (untiled, tiled)
        } else {
            (tiled, untiled)
        }
    } else {
        let k = pick / 2;
        let (x, y) = (
            NIBBLE_LAYOUTS[k % 6],
            NIBBLE_LAYOUTS[k / 6 % 6],
        );
        let dims = format!("[{},{}]", nudge(128 * a), 256 * b);
        (format!("s4{dims}{x}"), format!("s4{dims}{y}"))
    };
    let (src_shape, dst_shape) = (shape(&from), shape(&to));
    let (Ok(src_layout), Ok(dst_layout)) =
        (TiledLayout::new(&src_shape), TiledLayout::new(&dst_shape))
    else {
        panic!("{from} -> {to}: TiledLayout refused a layout XLA takes");
    };
    let bits = usize::try_from(src_layout.element_size_in_bits()).unwrap_or(0);
    let size = |l: &TiledLayout| usize::try_from(l.buffer_size_in_bytes()).unwrap_or(0);
    let src = bytes(seed, size(&src_layout));
    let initial = bytes(!seed, size(&dst_layout));
    let mut got = initial.clone();
    relayout_xla(&src, &src_shape, &mut got, &dst_shape)
        .unwrap_or_else(|e| panic!("relayout_xla {from} -> {to}: {e}"));
    let plan = RelayoutPlan::xla(FromTo {
        from: &src_shape,
        to: &dst_shape,
    })
    .unwrap_or_else(|e| panic!("{from} -> {to}: {e}"));
    count(plan.strategy());
    let mut pooled = initial.clone();
    plan.run_in(crate::parallel::pool(), &src, &mut pooled)
        .unwrap_or_else(|e| panic!("{from} -> {to} on a pool: {e}"));
    assert!(pooled == got, "{from} -> {to} on a pool wrote other bytes");
    let mut expected = initial;
    let at = |l: &TiledLayout, index: &[usize]| {
        let index: Vec<i64> = index.iter().map(|&i| i as i64).collect();
        let p = l.position(&index).unwrap_or_else(|e| panic!("{e}"));
        usize::try_from(p).unwrap_or_else(|e| panic!("{e}"))
    };
    let dims: Vec<usize> = src_shape.dimensions.iter().map(|&d| d as usize).collect();
    for_each_index(&dims, |index| {
        let value = get_bits(&src, at(&src_layout, index), bits);
        set_bits(&mut expected, at(&dst_layout, index), bits, &value);
    });
    // A tiled destination's padding (tiles past the array's edge) is zero.
    if dst_layout.is_tiled() {
        dst_layout.for_each_position(|p, element| {
            if element.is_none() {
                set_bits(&mut expected, usize::try_from(p).unwrap_or(0), bits, &[0]);
            }
        });
    }
    assert!(got == expected, "relayout_xla {from} -> {to}");
}
