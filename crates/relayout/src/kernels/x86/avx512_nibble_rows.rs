//! The transpose of packed 4-bit elements between two untiled layouts
//! (`{1,0:E(4)}` and `{0,1:E(4)}`, see `nibbles.rs`) in one pass of
//! AVX-512 registers. The source holds `h` rows of `w` elements, two to a
//! byte along its rows; the destination `w` rows of `h / 2` bytes, each
//! byte two neighbouring source rows at one column. A block is 64 pairs
//! of source rows by 128 columns: the 64-byte lines of the even rows and
//! those of the odd rows are two 64 × 64 byte transposes
//! (`avx512_bytes64.rs`), line `x` of each holding columns `2x` and `2x +
//! 1` of its rows; the two lines exchange their nibbles
//! (`avx512_nibbles.rs`) into destination rows `2x` and `2x + 1`, 128
//! lines of 64 bytes. Blocks go
//! 64 pairs of rows at a time, across the columns (or a part's), so that
//! the source rows being read stay in a core's L2 cache. Run only where
//! `simd_level()` found AVX-512 F, BW and VBMI (see `simd.rs`).
//!
//! The `unsafe` here: calling the `#[target_feature]` code, and the
//! intrinsics' loads and stores (in `avx512.rs` and
//! `avx512_interleave.rs`), each on a reference to exactly the 64 bytes it
//! moves.

use core::arch::x86_64::_mm512_setzero_si512;
use core::ops::Range;

use super::avx512::load;
use super::avx512_bytes64::{line, line_mut, prefetch_l2, transpose64_pair};
use super::avx512_interleave::store;
use super::avx512_nibbles::exchange;
use crate::simd::{SimdLevel, simd_level};

/// Pairs of source rows a block takes.
const PAIRS: usize = 64;

/// Source columns (destination rows) a block takes.
const COLUMNS: usize = 128;

/// Whether [`rows_to_pairs`] takes the frame `h × w` on this CPU (with
/// buffers long enough): AVX-512, `h / 2` a multiple of 64 and `w` of
/// 128.
pub(crate) fn takes((h, w): (usize, usize)) -> bool {
    simd_level() >= SimdLevel::Avx512 && h.is_multiple_of(2 * PAIRS) && w.is_multiple_of(COLUMNS)
}

/// Transposes the untiled `src` (`h` rows of `w` elements, paired along
/// the rows) into destination rows `columns` (source columns, multiples
/// of 128), `dst` holding those rows (`h / 2` bytes each) from
/// `columns.start` on; with streaming stores where `stream` (the caller
/// fences). `false` (nothing written) where this CPU lacks AVX-512 or the
/// sizes do not fit: `h / 2` a multiple of 64, `w` of 128, the buffers
/// long enough.
pub(crate) fn rows_to_pairs(
    src: &[u8],
    dst: &mut [u8],
    (h, w): (usize, usize),
    columns: &Range<usize>,
    stream: bool,
) -> bool {
    let fits = takes((h, w))
        && columns.start <= columns.end
        && columns.end <= w
        && columns.start.is_multiple_of(COLUMNS)
        && columns.end.is_multiple_of(COLUMNS)
        && (h / 2).checked_mul(w).is_some_and(|n| n <= src.len())
        && (h / 2)
            .checked_mul(columns.len())
            .is_some_and(|n| n <= dst.len());
    if !fits {
        return false;
    }
    // SAFETY: `simd_level()` is `Avx512` only if `is_x86_feature_detected!`
    // found AVX-512 F, BW and VBMI (forcing can only lower it).
    #[allow(unsafe_code)]
    unsafe {
        rows_to_pairs_avx512(src, dst, (h, w), columns, stream);
    }
    true
}

#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn rows_to_pairs_avx512(
    src: &[u8],
    dst: &mut [u8],
    (h, w): (usize, usize),
    columns: &Range<usize>,
    stream: bool,
) {
    // Source and destination row bytes.
    let (row, pairs) = (w / 2, h / 2);
    let mut buffer = [[_mm512_setzero_si512(); 64]; 2];
    for p0 in (0..pairs).step_by(PAIRS) {
        for x0 in columns.clone().step_by(COLUMNS) {
            // Large ones prefetch each source line of the next block along
            // the rows (see `prefetch_l2`).
            let ahead = stream && x0 + COLUMNS < columns.end;
            // The even source rows of the pairs, and the odd ones.
            transpose64_pair(
                &mut buffer,
                |odd, s, lines| {
                    for (j, reg) in lines.iter_mut().enumerate() {
                        let at = (2 * (p0 + 16 * s + j) + odd) * row + x0 / 2;
                        // SAFETY: 64 bytes of source row `2p + odd` (`p < h
                        // / 2`) from byte `x0 / 2`, `x0 + 128 <= w`: inside
                        // `src` (`rows_to_pairs` checked its length).
                        #[allow(unsafe_code)]
                        let bytes = unsafe { line(src, at) };
                        *reg = load(bytes);
                        if ahead {
                            // The line the next block along the rows reads.
                            prefetch_l2(bytes.as_ptr().wrapping_add(64));
                        }
                    }
                },
                |x, [even, odd]| {
                    // Byte `x` of the rows: columns `x0 + 2x` (low nibbles)
                    // and `x0 + 2x + 1`.
                    let (low, high) = exchange(even, odd);
                    for (k, reg) in [low, high].into_iter().enumerate() {
                        let at = (x0 - columns.start + 2 * x + k) * pairs + p0;
                        // SAFETY: 64 bytes from byte `p0` of a destination
                        // row of the part (`p0 + 64 <= h / 2`): inside `dst`.
                        #[allow(unsafe_code)]
                        let bytes = unsafe { line_mut(dst, at) };
                        store(reg, bytes, stream);
                    }
                },
            );
        }
    }
}
