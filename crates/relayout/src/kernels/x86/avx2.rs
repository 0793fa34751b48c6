//! AVX2 register transposes for the tiled kernel with 1 and 8-byte
//! elements (where they measured faster than SSE2's: see
//! `kernels::register_blocks`), run only where `simd_level()` (run-time
//! detection, see `simd.rs`) found AVX2. A block
//! is `M = 32 / N` source rows by `H = M / 2` columns (one 16-byte piece
//! of each row). Register `r` holds the pieces of rows `r` and `r + H`, so
//! that the `log2(H)` rounds of in-lane unpacks of the SSE2 transpose, run
//! on both lanes at once, leave `H` whole 32-byte destination row segments:
//! no lane-crossing shuffle is needed, and the second 16 bytes of each
//! register come from a load folded into `vinserti128`. Strips of `H`
//! destination rows (as many as SSE2's for bytes): measured on u8 8192²,
//! strips of `M` rows were 1.5× slower, with more destination rows written
//! at once.
//!
//! The one `unsafe` here is the call into the `#[target_feature(enable =
//! "avx2")]` code; loads and stores are safe slice accesses (LLVM fuses
//! them into 16-byte loads, `vinserti128` and 32-byte stores).

use core::arch::x86_64::{
    __m256i, _mm256_castsi256_si128, _mm256_extracti128_si256, _mm256_set_m128i,
    _mm256_setzero_si256, _mm256_unpackhi_epi8, _mm256_unpackhi_epi16, _mm256_unpackhi_epi32,
    _mm256_unpackhi_epi64, _mm256_unpacklo_epi8, _mm256_unpacklo_epi16, _mm256_unpacklo_epi32,
    _mm256_unpacklo_epi64,
};

use super::sse2::{self, Prefetch, bit_reversed, load};
use crate::kernels::block::Blocks;
use crate::simd::{SimdLevel, simd_level};

/// Writes the transpose of the whole register blocks of `blocks` (see
/// [`Blocks`]) for elements of `N` bytes; returns the number of tile rows and tile columns
/// written (multiples of `32 / N` and `16 / N`), `(0, 0)` if `N` has no register block
/// (only 1 and 8 have: 2 and 4-byte elements take SSE2's, see
/// `kernels::register_blocks`) or the CPU has no AVX2.
pub(crate) fn transpose_blocks<const N: usize>(
    blocks: &Blocks<'_, N>,
    dst: &mut [[u8; N]],
) -> (usize, usize) {
    if simd_level() < SimdLevel::Avx2 {
        return (0, 0);
    }
    // SAFETY: `simd_level()` is `Avx2` only if `is_x86_feature_detected!`
    // found AVX2 on this CPU (forcing can only lower the level), so the
    // instructions `transpose_avx2` was compiled for exist; the function
    // itself is safe code.
    #[allow(unsafe_code)]
    unsafe {
        transpose_avx2::<N>(blocks, dst)
    }
}

#[target_feature(enable = "avx2")]
fn transpose_avx2<const N: usize>(blocks: &Blocks<'_, N>, dst: &mut [[u8; N]]) -> (usize, usize) {
    match N {
        1 => whole_blocks::<N, 32, 16>(blocks, dst),
        8 => whole_blocks::<N, 4, 2>(blocks, dst),
        _ => (0, 0),
    }
}

/// The register blocks of `M × H` elements (`M · N = 32`, `H = M / 2`),
/// strip by strip of `H` destination rows so that each destination row
/// segment is written front to back. The tile is read as 16-byte pieces,
/// the destination written as 32-byte pieces (one bounds check each).
#[target_feature(enable = "avx2")]
fn whole_blocks<const N: usize, const M: usize, const H: usize>(
    blocks: &Blocks<'_, N>,
    dst: &mut [[u8; N]],
) -> (usize, usize) {
    let Blocks {
        tile,
        row_len,
        rows,
        cols,
        first_row,
        row_stride,
        next,
    } = *blocks;
    let full_rows = rows - rows % M;
    let pieces = tile.as_flattened().as_chunks::<16>().0;
    let row_pieces = row_len * N / 16;
    // Rows in bit-reversed order within each lane: the unpack rounds then
    // leave every destination row's elements in order.
    let order = const { bit_reversed::<H>() };
    let full_cols = cols - cols % H;
    let mut prefetch = next.map(|rows| Prefetch::new(rows, full_cols / H));
    for (strip, j) in (0..full_cols).step_by(H).enumerate() {
        if let Some(prefetch) = &mut prefetch {
            prefetch.strip(strip);
        }
        let mut lines = dst[first_row + j * row_stride..]
            .chunks_mut(row_stride.max(1))
            .map(|line| {
                line.get_mut(..full_rows)
                    .map(|line| line.as_flattened_mut().as_chunks_mut::<32>().0)
                    .unwrap_or_default()
            });
        let mut outs: [&mut [[u8; 32]]; H] =
            core::array::from_fn(|_| lines.next().unwrap_or_default());
        for block in 0..full_rows / M {
            let base = block * M * row_pieces + strip;
            // A loop, not `core::array::from_fn`: that is compiled without
            // AVX2 and would take the registers through memory.
            let mut regs = [_mm256_setzero_si256(); H];
            for (reg, &r) in regs.iter_mut().zip(&order) {
                let row = base + r * row_pieces;
                *reg = _mm256_set_m128i(load(&pieces[row + H * row_pieces]), load(&pieces[row]));
            }
            let regs = transpose::<H>(regs);
            for (out, reg) in outs.iter_mut().zip(regs) {
                store(reg, &mut out[block]);
            }
        }
    }
    (full_rows, full_cols)
}

/// Transposes, in each 128-bit lane, `H` rows of `H` elements of `16 / H`
/// bytes loaded in bit-reversed order: each round interleaves row `i` with
/// row `i + H/2` in units twice as wide as the previous round's, up to 8
/// bytes.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) fn transpose<const H: usize>(mut rows: [__m256i; H]) -> [__m256i; H] {
    if H >= 16 {
        rows = round::<H, 1>(rows);
    }
    if H >= 8 {
        rows = round::<H, 2>(rows);
    }
    if H >= 4 {
        rows = round::<H, 4>(rows);
    }
    round::<H, 8>(rows)
}

/// One round of [`transpose`], interleaving units of `W` bytes.
#[target_feature(enable = "avx2")]
#[inline]
fn round<const H: usize, const W: usize>(rows: [__m256i; H]) -> [__m256i; H] {
    let mut next = rows;
    for i in 0..H / 2 {
        let (a, b) = (rows[i], rows[i + H / 2]);
        let (lo, hi) = match W {
            1 => (_mm256_unpacklo_epi8(a, b), _mm256_unpackhi_epi8(a, b)),
            2 => (_mm256_unpacklo_epi16(a, b), _mm256_unpackhi_epi16(a, b)),
            4 => (_mm256_unpacklo_epi32(a, b), _mm256_unpackhi_epi32(a, b)),
            _ => (_mm256_unpacklo_epi64(a, b), _mm256_unpackhi_epi64(a, b)),
        };
        next[2 * i] = lo;
        next[2 * i + 1] = hi;
    }
    next
}

/// Stores 32 bytes (compiled to one unaligned store).
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) fn store(reg: __m256i, bytes: &mut [u8; 32]) {
    let (low, high) = bytes.split_at_mut(16);
    if let (Ok(low), Ok(high)) = (low.try_into(), high.try_into()) {
        sse2::store(_mm256_castsi256_si128(reg), low);
        sse2::store(_mm256_extracti128_si256::<1>(reg), high);
    }
}
