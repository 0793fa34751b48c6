//! SSE2 register transposes for the tiled kernel: a block of `M` rows of
//! 16 bytes (`M = 16 / N` elements of `N` bytes each) is loaded into `M`
//! registers, transposed with `log2(M)` rounds of unpack instructions, and
//! stored as `M` destination rows of 16 bytes. Meanwhile the source lines
//! of the next tile can be prefetched (see `NextRows`).
//!
//! The crate's `unsafe` is here and in `stream.rs`: calling a
//! `#[target_feature]` function from code compiled without the attribute
//! (and, in `stream.rs`, one aligned streaming store). It is sound because
//! the module is compiled only for targets that enable SSE2 (every x86_64
//! target does), so the CPU running the code has the instructions. The
//! loads and stores are safe slice accesses (LLVM fuses them into 16-byte
//! moves). Measured on the 4096² f32 transpose and NCHW→NHWC f32: the
//! scalar block transposes were 1.3× to 1.7× slower than these.

use core::arch::x86_64::{
    __m128i, _MM_HINT_T0, _mm_cvtsi128_si64, _mm_prefetch, _mm_set_epi64x, _mm_unpackhi_epi8,
    _mm_unpackhi_epi16, _mm_unpackhi_epi32, _mm_unpackhi_epi64, _mm_unpacklo_epi8,
    _mm_unpacklo_epi16, _mm_unpacklo_epi32, _mm_unpacklo_epi64,
};

use crate::kernels::block::{Blocks, NextRows, step};

/// Writes the transpose of the whole register blocks of `blocks` (see
/// [`Blocks`]) for elements of `N` bytes; returns the number of tile rows
/// and tile columns written (multiples of `16 / N`), `(0, 0)` if `N` has
/// no register block (only 1, 2, 4 and 8 have).
pub(crate) fn transpose_blocks<const N: usize>(
    blocks: &Blocks<'_, N>,
    dst: &mut [[u8; N]],
) -> (usize, usize) {
    // SAFETY: this module is compiled only when the target enables SSE2
    // (`cfg(target_feature = "sse2")` in `relayout/mod.rs`), so every CPU
    // this code runs on supports the SSE2 instructions `transpose_sse2`
    // was compiled for; the function itself is safe code.
    #[allow(unsafe_code)]
    unsafe {
        transpose_sse2::<N>(blocks, dst)
    }
}

#[target_feature(enable = "sse2")]
fn transpose_sse2<const N: usize>(blocks: &Blocks<'_, N>, dst: &mut [[u8; N]]) -> (usize, usize) {
    match N {
        1 => whole_blocks::<N, 16>(blocks, dst),
        2 => whole_blocks::<N, 8>(blocks, dst),
        4 => whole_blocks::<N, 4>(blocks, dst),
        8 => whole_blocks::<N, 2>(blocks, dst),
        _ => (0, 0),
    }
}

/// The register blocks of `M × M` elements (`M · N = 16`), strip by strip
/// of `M` destination rows so that each destination row segment is written
/// front to back. The tile's rows start on 16-byte boundaries, so the tile
/// and the destination row segments are indexed as 16-byte pieces (one
/// bounds check per piece).
#[target_feature(enable = "sse2")]
fn whole_blocks<const N: usize, const M: usize>(
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
    let (full_rows, full_cols) = (rows - rows % M, cols - cols % M);
    let pieces = tile.as_flattened().as_chunks::<16>().0;
    let row_pieces = row_len * N / 16;
    // Rows in bit-reversed order: the unpack rounds then leave every
    // destination row's elements in order.
    let order = const { bit_reversed::<M>() };
    let mut prefetch = next.map(|rows| Prefetch::new(rows, full_cols / M));
    for (strip, j) in (0..full_cols).step_by(M).enumerate() {
        if let Some(prefetch) = &mut prefetch {
            prefetch.strip(strip);
        }
        let mut lines = dst[first_row + j * row_stride..]
            .chunks_mut(row_stride.max(1))
            .map(|line| {
                line.get_mut(..full_rows)
                    .map(|line| line.as_flattened_mut().as_chunks_mut::<16>().0)
                    .unwrap_or_default()
            });
        let mut outs: [&mut [[u8; 16]]; M] =
            core::array::from_fn(|_| lines.next().unwrap_or_default());
        for block in 0..full_rows / M {
            let base = block * M * row_pieces + strip;
            let regs = transpose::<M>(core::array::from_fn(|r| {
                load(&pieces[base + order[r] * row_pieces])
            }));
            for (out, reg) in outs.iter_mut().zip(regs) {
                store(reg, &mut out[block]);
            }
        }
    }
    (full_rows, full_cols)
}

/// Prefetches the cache lines of the next tile's source rows, an equal
/// share before each strip of the current tile.
pub(crate) struct Prefetch<'a, const N: usize> {
    rows: NextRows<'a, N>,
    lines_per_row: usize,
    lines: usize,
    per_strip: usize,
}

impl<'a, const N: usize> Prefetch<'a, N> {
    const LINE_ELEMENTS: usize = if N < 64 { 64 / N } else { 1 };

    pub(super) fn new(rows: NextRows<'a, N>, strips: usize) -> Self {
        let lines_per_row = rows.len.div_ceil(Self::LINE_ELEMENTS);
        let lines = rows.rows * lines_per_row;
        Self {
            rows,
            lines_per_row,
            lines,
            per_strip: lines.div_ceil(strips.max(1)),
        }
    }

    /// The share before strip `strip`.
    #[target_feature(enable = "sse2")]
    pub(super) fn strip(&self, strip: usize) {
        let start = strip * self.per_strip;
        for line in start..(start + self.per_strip).min(self.lines) {
            let (row, column) = (line / self.lines_per_row, line % self.lines_per_row);
            let k = step(self.rows.start, row, self.rows.stride)
                .saturating_add(column * Self::LINE_ELEMENTS);
            if let Some(element) = self.rows.src.get(k) {
                _mm_prefetch::<_MM_HINT_T0>(element.as_ptr().cast());
            }
        }
    }
}

/// `0..M` with the `log2(M)` low bits of each index reversed.
pub(crate) const fn bit_reversed<const M: usize>() -> [usize; M] {
    let bits = M.trailing_zeros();
    let mut order = [0; M];
    let mut r = 0;
    while r < M {
        order[r] = if bits == 0 {
            r
        } else {
            r.reverse_bits() >> (usize::BITS - bits)
        };
        r += 1;
    }
    order
}

/// Transposes `M` rows of `M` elements of `16 / M` bytes whose rows were
/// loaded in bit-reversed order: each round interleaves row `i` with row
/// `i + M/2` in units twice as wide as the previous round's, up to 8 bytes.
#[target_feature(enable = "sse2")]
#[inline]
pub(crate) fn transpose<const M: usize>(mut rows: [__m128i; M]) -> [__m128i; M] {
    if M >= 16 {
        rows = round::<M, 1>(rows);
    }
    if M >= 8 {
        rows = round::<M, 2>(rows);
    }
    if M >= 4 {
        rows = round::<M, 4>(rows);
    }
    round::<M, 8>(rows)
}

/// One round of [`transpose`], interleaving units of `W` bytes.
#[target_feature(enable = "sse2")]
#[inline]
fn round<const M: usize, const W: usize>(rows: [__m128i; M]) -> [__m128i; M] {
    let mut next = rows;
    for i in 0..M / 2 {
        let (a, b) = (rows[i], rows[i + M / 2]);
        let (lo, hi) = match W {
            1 => (_mm_unpacklo_epi8(a, b), _mm_unpackhi_epi8(a, b)),
            2 => (_mm_unpacklo_epi16(a, b), _mm_unpackhi_epi16(a, b)),
            4 => (_mm_unpacklo_epi32(a, b), _mm_unpackhi_epi32(a, b)),
            _ => (_mm_unpacklo_epi64(a, b), _mm_unpackhi_epi64(a, b)),
        };
        next[2 * i] = lo;
        next[2 * i + 1] = hi;
    }
    next
}

/// Loads 16 bytes (compiled to one unaligned load).
#[target_feature(enable = "sse2")]
#[inline]
pub(crate) fn load(bytes: &[u8; 16]) -> __m128i {
    let value = i128::from_le_bytes(*bytes);
    _mm_set_epi64x((value >> 64) as i64, value as i64)
}

/// Stores 16 bytes (compiled to one unaligned store).
#[target_feature(enable = "sse2")]
#[inline]
pub(crate) fn store(reg: __m128i, bytes: &mut [u8; 16]) {
    let low = _mm_cvtsi128_si64(reg);
    let high = _mm_cvtsi128_si64(_mm_unpackhi_epi64(reg, reg));
    bytes[..8].copy_from_slice(&low.to_le_bytes());
    bytes[8..].copy_from_slice(&high.to_le_bytes());
}
