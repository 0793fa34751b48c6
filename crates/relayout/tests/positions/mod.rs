//! The element positions of `index_util::TiledLayout` as the reference
//! of relayout tests: buffers whose elements hold values at their
//! positions, and a relayout checked against them on one thread and on
//! pools, or into destinations on and off a 64-byte line.

// Each test file uses the checks it needs.
#![allow(dead_code)]

use std::fmt::Display;

use index_util::TiledLayout;
use relayout::rayon::ThreadPoolBuilder;
use relayout::{FromTo, RelayoutPlan, Strategy};
use schema::Shape;

pub fn shape(text: &str) -> Shape {
    text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// The buffer of `shape` with element `r` (row-major number) holding a
/// value of `bits` that differs from its neighbours' at its position
/// under the index function, every other bit zero. Elements of whole
/// bytes hold `r`'s hash modulo the largest prime their bytes hold (of
/// at most 8 bytes), plus one: values that repeat a prime number of
/// elements apart, so that rows of a power of two elements do not all
/// hold the same ones (as the hash's low byte alone would).
pub fn buffer(shape: &Shape, bits: usize) -> Vec<u8> {
    let layout = TiledLayout::new(shape).unwrap();
    let mut out = vec![0_u8; layout.buffer_size_in_bytes() as usize];
    layout.for_each_position(|k, element| {
        let (Some(r), k) = (element, k as usize) else {
            return;
        };
        if bits >= 8 {
            // Whole bytes: the hash modulo a prime, little-endian.
            let size = bits / 8;
            let prime = match size {
                1 => 251,
                2 => 65_521,
                3 => 16_777_213,
                4 => 4_294_967_291,
                _ => 18_446_744_073_709_551_557,
            };
            let value = (r as u64).wrapping_mul(2_654_435_761) % prime + 1;
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

/// A relayout of `from` into `to` (elements of `bits`): its plan, a
/// source [`buffer`] and the destination buffer the positions make.
pub struct Relayout {
    pub plan: RelayoutPlan,
    src: Vec<u8>,
    pub want: Vec<u8>,
    name: String,
}

/// The plan of `from` into `to` (elements of `bits`) and its buffers.
pub fn relayout(from: &str, to: &str, bits: usize) -> Relayout {
    let (from, to) = (shape(from), shape(to));
    let plan = RelayoutPlan::xla(FromTo {
        from: &from,
        to: &to,
    })
    .unwrap();
    let (src, want) = (buffer(&from, bits), buffer(&to, bits));
    let name = format!("{from} -> {to}");
    Relayout {
        plan,
        src,
        want,
        name,
    }
}

impl Relayout {
    /// Relays on the calling thread into `out` (as long as `want`,
    /// whatever it holds) and checks it against the positions, `context`
    /// in the message if not.
    pub fn check_into(&self, out: &mut [u8], context: impl Display) {
        self.plan.run(&self.src, out).unwrap();
        assert!(*out == self.want[..], "{} ({context})", self.name);
    }

    /// [`Self::check_into`] a destination on a 64-byte line and one 16
    /// bytes off it, each filled with `0xA5` first (the padding too is to
    /// be written).
    pub fn check_on_and_off_lines(&self, context: impl Display) {
        on_and_off_lines(self.want.len(), 0xA5, |out, start| {
            self.check_into(out, format_args!("{context}, {start}"));
        });
    }
}

/// Calls `each` with a destination of `len` bytes on a 64-byte line and
/// with one 16 bytes off it (where large register transposes stream every
/// row piece, and where they cannot), each filled with `fill` first, and
/// the byte of its storage it starts at.
pub fn on_and_off_lines(len: usize, fill: u8, mut each: impl FnMut(&mut [u8], usize)) {
    let mut storage = vec![fill; len + 128];
    let line = storage.as_ptr().align_offset(64);
    for start in [line, line + 16] {
        let out = &mut storage[start..start + len];
        out.fill(fill);
        each(out, start);
    }
}

/// Relays `from` into `to` (elements of `bits`) on one thread and on a
/// pool of each of `threads`, checks each against the positions, and
/// returns the strategy.
pub fn check(from: &str, to: &str, bits: usize, threads: &[usize]) -> Strategy {
    let relayout = relayout(from, to, bits);
    let (plan, want) = (&relayout.plan, &relayout.want);
    let mut got = vec![0_u8; want.len()];
    relayout.check_into(&mut got, plan.strategy());
    for &n in threads {
        let pool = ThreadPoolBuilder::new().num_threads(n).build().unwrap();
        let mut got = vec![0_u8; want.len()];
        plan.run_in(&pool, &relayout.src, &mut got).unwrap();
        assert!(got == *want, "{} on a pool of {n}", relayout.name);
    }
    plan.strategy()
}
