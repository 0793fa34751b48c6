//! The 2 × 2 nibble exchange of packed 4-bit elements (see `nibbles.rs`)
//! with AVX-512: 64 bytes of each of two rows that pair their elements
//! along the rows exchange nibbles (two shifts and two bit selects) and are
//! zipped byte by byte into 128 bytes of units, pairs of rows (two
//! two-table byte permutes, `vpermt2b`); and back. A whole row of runs
//! goes in one call, so that the per-call cost is paid once a row, not
//! once a run. Run only where `simd_level()` found AVX-512 F, BW and VBMI
//! (see `simd.rs`).
//!
//! The `unsafe` here: calling the `#[target_feature]` code, and the
//! intrinsics' loads and stores, each on a reference to exactly the 64
//! bytes it moves.

use core::arch::x86_64::{
    __m512i, _mm512_set1_epi8, _mm512_slli_epi16, _mm512_srli_epi16, _mm512_ternarylogic_epi32,
};

use super::avx512::load;
use super::avx512_interleave::{store, unzip, unzip_indices, zip, zip_indices};
use crate::simd::{SimdLevel, simd_level};

/// Where the runs of one row go: `runs` runs of `half` bytes of each of the
/// two rows, run `t` to (or from) the `2 · half` bytes at `start + t ·
/// step` of the units' buffer.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Runs {
    pub(crate) half: usize,
    pub(crate) start: usize,
    pub(crate) step: usize,
}

impl Runs {
    /// Whether the kernels take these runs: whole 64-byte pieces, `even`
    /// and `odd` `runs · half` bytes each, and every run inside `units`
    /// (`units` bytes).
    fn fit(&self, even: usize, odd: usize, units: usize) -> bool {
        let Runs { half, start, step } = *self;
        if half == 0 || !half.is_multiple_of(64) || even != odd || !even.is_multiple_of(half) {
            return false;
        }
        let runs = even / half;
        runs == 0
            || (runs - 1)
                .checked_mul(step)
                .and_then(|last| last.checked_add(start))
                .and_then(|last| last.checked_add(2 * half))
                .is_some_and(|end| end <= units)
    }
}

/// Packs `even` and `odd` (rows `2i`, `2i + 1`, pairing along the rows)
/// into the runs of units of pairs of rows in `units`, with streaming
/// stores where `stream` and a store starts a line (the caller fences);
/// `false` (nothing written) where this CPU lacks AVX-512 or the runs do
/// not fit (see [`Runs`]).
pub(crate) fn pack(even: &[u8], odd: &[u8], units: &mut [u8], runs: Runs, stream: bool) -> bool {
    if simd_level() < SimdLevel::Avx512 || !runs.fit(even.len(), odd.len(), units.len()) {
        return false;
    }
    // SAFETY: `simd_level()` is `Avx512` only if `is_x86_feature_detected!`
    // found AVX-512 F, BW and VBMI (forcing can only lower it).
    #[allow(unsafe_code)]
    unsafe {
        pack_avx512(even, odd, units, runs, stream);
    }
    true
}

/// The inverse of [`pack`]: the runs of `units` into `even` and `odd`.
pub(crate) fn unpack(
    units: &[u8],
    even: &mut [u8],
    odd: &mut [u8],
    runs: Runs,
    stream: bool,
) -> bool {
    if simd_level() < SimdLevel::Avx512 || !runs.fit(even.len(), odd.len(), units.len()) {
        return false;
    }
    // SAFETY: as in `pack`.
    #[allow(unsafe_code)]
    unsafe {
        unpack_avx512(units, even, odd, runs, stream);
    }
    true
}

/// The exchange of 64 pairs of bytes: the low nibbles of `x` with those
/// of `y` above them, and the high nibbles likewise.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
pub(super) fn exchange(x: __m512i, y: __m512i) -> (__m512i, __m512i) {
    let low = _mm512_set1_epi8(0x0F);
    // Bit select `(mask & a) | (!mask & b)`: truth table 0xCA over
    // (mask, a, b).
    let lo = _mm512_ternarylogic_epi32::<0xCA>(low, x, _mm512_slli_epi16::<4>(y));
    let hi = _mm512_ternarylogic_epi32::<0xCA>(low, _mm512_srli_epi16::<4>(x), y);
    (lo, hi)
}

#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn pack_avx512(even: &[u8], odd: &[u8], units: &mut [u8], runs: Runs, stream: bool) {
    let [low, high] = const { zip_indices::<1>() }.map(|v| load(&v));
    let Runs { half, start, step } = runs;
    for (t, (a, b)) in even
        .chunks_exact(half)
        .zip(odd.chunks_exact(half))
        .enumerate()
    {
        let at = start + t * step;
        let out = units[at..at + 2 * half].as_chunks_mut::<64>().0;
        let (a, b) = (a.as_chunks::<64>().0, b.as_chunks::<64>().0);
        for ((pair, x), y) in out.chunks_exact_mut(2).zip(a).zip(b) {
            let (lo, hi) = exchange(load(x), load(y));
            let (first, second) = zip::<1>(lo, hi, low, high);
            store(first, &mut pair[0], stream);
            store(second, &mut pair[1], stream);
        }
    }
}

#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn unpack_avx512(units: &[u8], even: &mut [u8], odd: &mut [u8], runs: Runs, stream: bool) {
    let [first, second] = const { unzip_indices::<1>() }.map(|v| load(&v));
    let Runs { half, start, step } = runs;
    for (t, (a, b)) in even
        .chunks_exact_mut(half)
        .zip(odd.chunks_exact_mut(half))
        .enumerate()
    {
        let at = start + t * step;
        let ins = units[at..at + 2 * half].as_chunks::<64>().0;
        let (a, b) = (a.as_chunks_mut::<64>().0, b.as_chunks_mut::<64>().0);
        for ((pair, x), y) in ins.chunks_exact(2).zip(a).zip(b) {
            let (e, o) = unzip::<1>(load(&pair[0]), load(&pair[1]), first, second);
            let (lo, hi) = exchange(e, o);
            store(lo, x, stream);
            store(hi, y, stream);
        }
    }
}
