//! The element positions of `index_util::TiledLayout` as the reference
//! of relayout tests: buffers whose elements hold values at their
//! positions, and a relayout checked against them on one thread and on
//! pools.

use index_util::TiledLayout;
use relayout::rayon::ThreadPoolBuilder;
use relayout::{FromTo, RelayoutPlan, Strategy};
use schema::Shape;

pub fn shape(text: &str) -> Shape {
    text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// The buffer of `shape` with element `r` (row-major number) holding a
/// value of `bits` that differs from its neighbours' at its position
/// under the index function (elements of whole bytes: the low bytes of
/// `r`'s hash), every other bit zero.
pub fn buffer(shape: &Shape, bits: usize) -> Vec<u8> {
    let layout = TiledLayout::new(shape).unwrap();
    let mut out = vec![0_u8; layout.buffer_size_in_bytes() as usize];
    layout.for_each_position(|k, element| {
        let (Some(r), k) = (element, k as usize) else {
            return;
        };
        if bits >= 8 {
            // Whole bytes: the element's number, little-endian.
            let size = bits / 8;
            let value = (r as u64).wrapping_mul(2_654_435_761).wrapping_add(1);
            let bytes = value.to_le_bytes();
            for (i, byte) in out[k * size..(k + 1) * size].iter_mut().enumerate() {
                *byte = bytes[i % 8];
            }
            return;
        }
        let value = (r as u64).wrapping_mul(2_654_435_761) % ((1_u64 << bits) - 1) + 1;
        let bit = k * bits;
        out[bit / 8] |= (value as u8) << (bit % 8);
    });
    out
}

/// Relays `from` into `to` (elements of `bits`) on one thread and on a
/// pool of each of `threads`, checks each against the positions, and
/// returns the strategy.
pub fn check(from: &str, to: &str, bits: usize, threads: &[usize]) -> Strategy {
    let (from, to) = (shape(from), shape(to));
    let plan = RelayoutPlan::xla(FromTo {
        from: &from,
        to: &to,
    })
    .unwrap();
    let (src, want) = (buffer(&from, bits), buffer(&to, bits));
    let mut got = vec![0_u8; want.len()];
    plan.run(&src, &mut got).unwrap();
    assert!(got == want, "{from} -> {to} ({})", plan.strategy());
    for &n in threads {
        let pool = ThreadPoolBuilder::new().num_threads(n).build().unwrap();
        let mut got = vec![0_u8; want.len()];
        plan.run_in(&pool, &src, &mut got).unwrap();
        assert!(got == want, "{from} -> {to} on a pool of {n}");
    }
    plan.strategy()
}
