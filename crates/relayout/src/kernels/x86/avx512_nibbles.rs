//! The 2 × 2 nibble exchange of packed 4-bit elements (see `nibbles.rs`)
//! with AVX-512: 64 bytes of each of two rows that pair their elements
//! along the rows exchange nibbles (two shifts and two bit selects) and are
//! zipped byte by byte into 128 bytes of units, pairs of rows (two
//! two-table byte permutes, `vpermt2b`); and back. A tile row's pairs of
//! rows go in one call, tile by tile, so that the per-call cost is paid
//! once a tile row, not once a run, and each tile's lines are written (or
//! read) one after the other. Run only where `simd_level()` found AVX-512
//! F, BW and VBMI (see `simd.rs`).
//!
//! The `unsafe` here: calling the `#[target_feature]` code, and the
//! intrinsics' loads and stores, each on a reference to exactly the 64
//! bytes it moves.

use core::arch::x86_64::{
    __m512i, _mm512_set1_epi8, _mm512_slli_epi16, _mm512_srli_epi16, _mm512_ternarylogic_epi32,
};

use super::avx512::load;
use super::avx512_interleave::{
    PREFETCH_AHEAD, prefetch, store, unzip, unzip_indices, zip, zip_indices,
};
use crate::simd::{SimdLevel, simd_level};

/// Where the runs of the rows of one tile row go: `runs` runs of `half`
/// bytes of each of the two rows of a pair, run `t` of pair `k` to (or
/// from) the `2 · half` bytes at `start + t · step + k · 2 · half` of the
/// units' buffer (the unit rows of a tile row follow each other in its
/// tiles).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Runs {
    pub(crate) half: usize,
    pub(crate) start: usize,
    pub(crate) step: usize,
}

impl Runs {
    /// How many pairs of rows of `row` bytes each `pairs` holds where the
    /// kernels take them: whole 64-byte pieces, at least one pair, and
    /// every run of every pair inside `units` (`units` bytes).
    fn pairs(&self, pairs: usize, row: usize, units: usize) -> Option<usize> {
        let Runs { half, start, step } = *self;
        if half == 0 || !half.is_multiple_of(64) || row == 0 || !row.is_multiple_of(half) {
            return None;
        }
        let count = pairs / row.checked_mul(2)?;
        if count == 0 || count * 2 * row != pairs {
            return None;
        }
        // The last pair's last run ends farthest.
        let end = (row / half - 1)
            .checked_mul(step)?
            .checked_add(start)?
            .checked_add((count - 1).checked_mul(2 * half)?)?
            .checked_add(2 * half)?;
        (end <= units).then_some(count)
    }
}

/// Packs `pairs` (pairs of rows `2i`, `2i + 1` of `row` bytes each,
/// pairing along the rows: the unit rows of one tile row) into their runs
/// of units of pairs of rows in `units`, tile by tile, with streaming
/// stores where `stream` and a store starts a line (the caller fences);
/// `false` (nothing written) where this CPU lacks AVX-512 or the runs do
/// not fit (see [`Runs`]).
///
/// A tile's runs go one after the other, every pair's, so that its lines
/// are written (or read) in turn. Measured on the 2-core AMD EPYC (Zen
/// 4), one thread, `relayout_matrix --size large --reps 9`, times the
/// faster copy, three runs alternating with a pair at a time (two of a
/// tile's eight lines a visit): s4\[4096,4096\] `T(8,128)(2,1)E(4)` into
/// row-major 1.33–1.51 against 2.21–2.86, `{0,1:T(8,128)(2,1)E(4)}` into
/// column-major 1.06–1.34 against 2.50–2.76; into the tiles 1.96–2.14
/// against 1.89–2.48. Large ones prefetch each source row
/// [`PREFETCH_AHEAD`] bytes ahead, as the packing of `avx512_interleave.rs`
/// does (four alternating runs: row-major into `T(8,128)(2,1)E(4)`
/// 1.40–1.87 against 1.65–1.91 without, column-major into
/// `{0,1:T(8,128)(2,1)E(4)}` 1.30–1.67 against 1.49–1.96; 1024 bytes
/// ahead within the noise).
pub(crate) fn pack(pairs: &[u8], row: usize, units: &mut [u8], runs: Runs, stream: bool) -> bool {
    if simd_level() < SimdLevel::Avx512 {
        return false;
    }
    let Some(count) = runs.pairs(pairs.len(), row, units.len()) else {
        return false;
    };
    // SAFETY: `simd_level()` is `Avx512` only if `is_x86_feature_detected!`
    // found AVX-512 F, BW and VBMI (forcing can only lower it).
    #[allow(unsafe_code)]
    unsafe {
        pack_avx512(pairs, (row, count), units, runs, stream);
    }
    true
}

/// The inverse of [`pack`]: the runs of `units` into `pairs`.
pub(crate) fn unpack(units: &[u8], pairs: &mut [u8], row: usize, runs: Runs, stream: bool) -> bool {
    if simd_level() < SimdLevel::Avx512 {
        return false;
    }
    let Some(count) = runs.pairs(pairs.len(), row, units.len()) else {
        return false;
    };
    // SAFETY: as in `pack`.
    #[allow(unsafe_code)]
    unsafe {
        unpack_avx512(units, pairs, (row, count), runs, stream);
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

/// Where run `t` of pair `k` is: its even and odd rows' bytes in a
/// buffer of `count` pairs of `row` bytes, and its units.
#[inline(always)]
fn run_at(
    Runs { half, start, step }: Runs,
    row: usize,
    (t, k): (usize, usize),
) -> (usize, usize, usize) {
    let even = k * 2 * row + t * half;
    (even, even + row, start + t * step + k * 2 * half)
}

#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn pack_avx512(
    pairs: &[u8],
    (row, count): (usize, usize),
    units: &mut [u8],
    runs: Runs,
    stream: bool,
) {
    let [low, high] = const { zip_indices::<1>() }.map(|v| load(&v));
    let half = runs.half;
    for t in 0..row / half {
        for k in 0..count {
            let (even, odd, at) = run_at(runs, row, (t, k));
            let out = units[at..at + 2 * half].as_chunks_mut::<64>().0;
            let a = pairs[even..even + half].as_chunks::<64>().0;
            let b = pairs[odd..odd + half].as_chunks::<64>().0;
            for ((pair, x), y) in out.chunks_exact_mut(2).zip(a).zip(b) {
                if stream {
                    prefetch(x.as_ptr().wrapping_add(PREFETCH_AHEAD));
                    prefetch(y.as_ptr().wrapping_add(PREFETCH_AHEAD));
                }
                let (lo, hi) = exchange(load(x), load(y));
                let (first, second) = zip::<1>(lo, hi, low, high);
                store(first, &mut pair[0], stream);
                store(second, &mut pair[1], stream);
            }
        }
    }
}

#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn unpack_avx512(
    units: &[u8],
    pairs: &mut [u8],
    (row, count): (usize, usize),
    runs: Runs,
    stream: bool,
) {
    let [first, second] = const { unzip_indices::<1>() }.map(|v| load(&v));
    let half = runs.half;
    for t in 0..row / half {
        for k in 0..count {
            let (even, odd, at) = run_at(runs, row, (t, k));
            let ins = units[at..at + 2 * half].as_chunks::<64>().0;
            let (a, b) = pairs[even..odd + half].split_at_mut(row);
            let (a, b) = (
                a[..half].as_chunks_mut::<64>().0,
                b[..half].as_chunks_mut::<64>().0,
            );
            for ((pair, x), y) in ins.chunks_exact(2).zip(a).zip(b) {
                let (e, o) = unzip::<1>(load(&pair[0]), load(&pair[1]), first, second);
                let (lo, hi) = exchange(e, o);
                store(lo, x, stream);
                store(hi, y, stream);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Runs;

    #[test]
    fn runs_count_the_pairs_of_a_tile_row_that_fit() {
        // Rows of 256 bytes (512 elements) in tiles of 4 unit rows of 128
        // bytes: 4 runs of 64 bytes of each row, four tiles across, 512
        // bytes a tile.
        let runs = Runs {
            half: 64,
            start: 0,
            step: 512,
        };
        // A whole tile row: 4 pairs, every run inside the four tiles.
        assert_eq!(runs.pairs(4 * 512, 256, 2048), Some(4));
        // A byte short of what their runs need, or a partial pair.
        assert_eq!(runs.pairs(4 * 512, 256, 2047), None);
        assert_eq!(runs.pairs(4 * 512 + 1, 256, 2048), None);
        // The tile row's last pair alone, 3 unit rows in; two from there
        // would end past the tiles.
        let last = Runs { start: 384, ..runs };
        assert_eq!(last.pairs(512, 256, 2048), Some(1));
        assert_eq!(last.pairs(1024, 256, 2048), None);
        // Runs off 64 bytes, empty rows, no pair, offsets that overflow.
        assert_eq!(Runs { half: 32, ..runs }.pairs(512, 256, 2048), None);
        assert_eq!(runs.pairs(0, 256, 2048), None);
        assert_eq!(runs.pairs(512, 0, 2048), None);
        let far = Runs {
            start: usize::MAX - 10,
            ..runs
        };
        assert_eq!(far.pairs(512, 256, usize::MAX), None);
    }
}
