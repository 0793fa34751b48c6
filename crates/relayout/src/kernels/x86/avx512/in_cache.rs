//! AVX-512 transposes in cache: whole blocks with ordinary stores, in
//! bands or diagonals, in square tiles where the passes are long, each
//! block's stores finding their lines in L1 (see [`blocks_in_cache`]).

use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};

use super::whole_block;

/// The whole blocks of source rows `rows` and columns `cols` of a
/// transpose in cache, with ordinary stores, in passes down the source
/// rows: bands one block wide, or where the source rows are a multiple of
/// [`SET_PERIOD`] apart diagonals (the next block row one block further
/// right, wrapping around), so that consecutive blocks read lines of
/// different L1 sets. Where there are more than [`WHOLE_HEIGHT_ROWS`]
/// source rows, the passes are cut to square tiles of [`CACHE_TILE`]
/// rows and columns, tile by tile.
///
/// Each block prefetches the destination lines of the tile's block after
/// it, in its pass or the next (see [`prefetch_lines`]; 2-byte elements
/// only where those lines stay in L1, [`lines_stay_in_l1`]). The rows
/// start on whole blocks, the columns are a multiple of `C = S` (2, 4 and
/// 8-byte elements). `src` is the transpose's first source element, `row_bytes`
/// apart (either sign); `dst` its first destination element,
/// `dst_row_bytes` apart. A plain loop of its own, so that the compiler
/// keeps the block's addresses in registers.
///
/// Measured, diagonals against bands (best of 15, buffers on a line and
/// 16 bytes off, two runs alternating): f32 1024² 184–197 µs against
/// 204–228, f64 512² 67–72 µs against 101–110; rows 4160 bytes apart
/// (which keep bands) unchanged. The plain loop against the general loop
/// of [`super::blocks`] (best of 15, times a plain copy): f32 1024² 2.42–2.61
/// against 3.06–3.27, f64 512² 2.36–2.58 against 3.00–3.04, f32 512²
/// 1.72–1.91 against 2.38–2.59. For the tiles, see [`CACHE_TILE`].
///
/// # Safety
///
/// Every source row piece and destination row piece of those blocks must
/// be inside its buffer.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[inline(never)]
#[allow(unsafe_code)]
pub(super) unsafe fn blocks_in_cache<const N: usize, const S: usize>(
    src: *const u8,
    row_bytes: isize,
    dst: *mut u8,
    dst_row_bytes: usize,
    rows: core::ops::Range<usize>,
    cols: core::ops::Range<usize>,
) {
    let c = 64 / N;
    let (row_blocks, col_blocks) = (rows.len() / c, cols.len() / c);
    // Blocks a tile, down and across.
    let tile = if rows.len() > WHOLE_HEIGHT_ROWS {
        CACHE_TILE / c
    } else {
        usize::MAX
    };
    // The next block's destination lines are prefetched but for 2-byte
    // elements whose lines crowd a few L1 sets (see `prefetch_lines`).
    let prefetch = N >= 4 || lines_stay_in_l1(dst_row_bytes, c);
    // Block columns from one block row to the next: 1 in diagonals.
    let shift = usize::from(row_bytes.unsigned_abs().is_multiple_of(SET_PERIOD));
    // Where block `(k, j)` (block row, block column) starts: its first
    // source row piece and its first destination row piece.
    let block = |k: usize, j: usize| {
        let (i0, j0) = (rows.start + k * c, cols.start + j * c);
        (
            src.wrapping_offset(i0.cast_signed() * row_bytes)
                .wrapping_add(j0 * N),
            dst.wrapping_add(j0 * dst_row_bytes + i0 * N),
        )
    };
    for k0 in (0..row_blocks).step_by(tile) {
        let k_end = row_blocks.min(k0.saturating_add(tile));
        for j0 in (0..col_blocks).step_by(tile) {
            let width = tile.min(col_blocks - j0);
            // Pass `pass` of the tile takes block column `pass` in its
            // first block row, then `shift` further right a row, wrapping
            // around within the tile.
            for pass in 0..width {
                let mut j = pass;
                let (mut first, mut out) = block(k0, j0 + j);
                for k in k0..k_end {
                    let next_j = if j + shift == width { 0 } else { j + shift };
                    let next = if k + 1 < k_end {
                        block(k + 1, j0 + next_j)
                    } else {
                        // The next pass's first block (the tile's first
                        // after its last: a harmless prefetch).
                        block(k0, j0 + (pass + 1) % width)
                    };
                    if prefetch {
                        prefetch_lines(next.1, dst_row_bytes, c);
                    }
                    // SAFETY: block `(k, j0 + j)` is a whole block of
                    // `rows` and `cols` (`k < row_blocks`, `j < width`),
                    // whose source and destination row pieces of 64
                    // bytes are inside the buffers (the caller's
                    // contract).
                    unsafe {
                        whole_block::<N, S>(first, row_bytes, out, dst_row_bytes, false);
                    }
                    ((first, out), j) = (next, next_j);
                }
            }
        }
    }
}

/// Source rows and columns per tile of a transpose in cache (see
/// [`blocks_in_cache`]): the tile's source lines and destination lines,
/// 64 KiB each for 4-byte elements, stay in L2 from one pass to the next,
/// and its 256 rows' pages in the TLB. Measured on the Xeon (2-vCPU VM;
/// fastest of 60 calls ÷ a plain copy, the variants alternating in one
/// process a case, two runs, whole height passes against tiles of 64 /
/// 128 / 192 / 256): f32 1024² 2.20 and 1.38 against – / 1.27 / – / 1.30
/// and 1.29 / 1.31 / 1.29 / –,
/// f64 \[1024,512\] 2.02 and 1.84 against – / 1.14 / – / 1.28 and 1.21 /
/// 1.06 / 1.11 / –, f64 700² 1.39, 1.21 against 1.19, 1.14 (128), f64
/// \[724,1024\] 1.36, 1.33 against 1.25, 1.14, f32 \[1448,724\] 1.60, 1.52
/// against 1.45, 1.37, f32 \[4096,256\] 1.53 against 1.41, 1.42, f32
/// \[1024,768\] 1.66, 1.77 against 1.52, 1.61; the same or within 3%
/// elsewhere but for few source rows (see [`WHOLE_HEIGHT_ROWS`]). (Under
/// fuzzing, whose relayouts stay in cache only below 1 KiB, no transpose
/// takes two tiles: `avx512_blocks_and_their_edges` tests them.)
const CACHE_TILE: usize = 128;

/// Transposes in cache down at most this many source rows take passes of
/// the whole height (see [`blocks_in_cache`]): cut to tiles they measured
/// slower (as for [`CACHE_TILE`], whole height against tiles of 128): f64
/// 512² 1.18, 1.15 against 1.24, 1.27, f32 \[512,2048\] 1.30, 1.16 against
/// 1.45, 1.21, f32 \[256,4096\] 1.14, 1.12 against 1.16, 1.17.
const WHOLE_HEIGHT_ROWS: usize = 512;

/// Bytes apart, lines of the same L1 data cache set (64 sets of 64-byte
/// lines on every x86-64 CPU with AVX-512): a band's block of source rows
/// this far apart reads all its lines from one set, and walking down the
/// band the next blocks' lines (those the hardware prefetches) land in the
/// same set and evict each other. Measured on this machine's AMD EPYC
/// (4 MiB read down 16-row blocks, one line per row): 175 µs with rows
/// 4096 bytes apart against 43 µs 4160 bytes apart; in diagonals 83 µs.
const SET_PERIOD: usize = 4096;

/// Prefetches into L1 (`T0`) the first line of each of `rows` destination
/// row pieces, the first at `first`, `stride` bytes apart (a hint: never
/// faults, whatever the addresses): those of the block after the one in
/// flight, in transposes in cache, so that its stores find their lines
/// there instead of waiting, one by one, for lines from L3 (the store
/// buffer commits in order). Measured on the Xeon (48 KiB L1d, 2 MiB L2 a
/// core, 300 MiB L3), with and without in one process (same buffers,
/// alternating; best quarter of 41 calls, times a plain copy, buffers on a
/// line and 16 bytes off one, 3–6 processes): f32 1024² 1.18–1.42 against
/// 1.48–1.55 in quiet periods (1.06–1.13 times the time in two noisy
/// ones), f64 512² 1.08–1.26 against 1.35–1.56, f32 1000² 1.28–1.60
/// against 2.46–3.37, f64 1000² 1.21–1.35 against 1.30–1.44, u8 1000²
/// 2.31–2.48 against 3.63–4.65, u16 1000² 1.91–2.24 against 3.18–3.66.
/// Bytes and 2-byte elements whose destination rows crowd their lines
/// into a few L1 sets (u8 and u16 512² to 2048²) measured up to 12%
/// slower with it, so they keep none (see [`lines_stay_in_l1`]); f32 256²
/// (256 KiB) measured 2–4% slower, f64 128² the same. The 2-byte blocks of
/// `blocks_in_cache` likewise: bf16\[1024,1024\] 2.89–2.99 times a copy
/// without against 3.06–3.18 with (fastest of four processes). Into L2
/// (`T1`) measured slower than into L1; two blocks ahead, no better. (`PREFETCHW` needs the
/// `prfchw` target feature, not stable in Rust yet: without it
/// `_MM_HINT_ET0` compiles to this same `prefetcht0`.)
#[target_feature(enable = "avx512f")]
pub(super) fn prefetch_lines(first: *const u8, stride: usize, rows: usize) {
    let mut row = first;
    for _ in 0..rows {
        _mm_prefetch::<_MM_HINT_T0>(row.cast());
        row = row.wrapping_add(stride);
    }
}

/// Whether the lines of `rows` rows `stride` bytes apart (one line each)
/// can stay in L1 beside those of the block in flight: at most half the
/// [`L1_WAYS`] of any one of its 64 sets. Measured with the general loop
/// of [`super::blocks`] prefetching (best quarter of 41 calls, times a plain
/// copy, at 0:0 and 16:16): u8 512² and u16 512² (8 lines a set) 3.21–3.99
/// and 3.54–4.13 against 2.94–3.67 and 3.24–3.81 without; u8 1024² and
/// u16 1024² (16 a set) 2.51–2.84 and 2.39–2.57 against 2.53–2.76 and
/// 2.36–2.46; u8 2048² (32) 2.16–2.32 against 2.04–2.19; rows that start
/// mid-line gain (u8 724², 1000², 1448², u16 362², 1000²: see
/// [`prefetch_lines`]).
pub(super) fn lines_stay_in_l1(stride: usize, rows: usize) -> bool {
    const SETS: usize = 64;
    // Rows that start mid-line spread over the sets.
    let sets = if stride.is_multiple_of(64) {
        SETS / gcd(stride / 64 % SETS, SETS)
    } else {
        SETS
    };
    rows.div_ceil(sets) <= L1_WAYS / 2
}

/// The ways of the smallest L1 data cache among the CPUs with AVX-512
/// (AMD's Zen 4 and 5: 8; Intel's: 8 or 12).
const L1_WAYS: usize = 8;

/// The greatest common divisor (`gcd(0, n) = n`).
const fn gcd(mut a: usize, mut b: usize) -> usize {
    while a != 0 {
        (a, b) = (b % a, a);
    }
    b
}

#[cfg(test)]
mod tests {
    use super::lines_stay_in_l1;

    #[test]
    fn destination_lines_in_l1_sets() {
        // u8 and u16 blocks whose rows are 2 KiB apart: 64 and 32 lines
        // in two sets.
        assert!(!lines_stay_in_l1(2048, 64));
        assert!(!lines_stay_in_l1(2048, 32));
        // f32 rows 4 KiB apart: one set. Rows of a zero stride likewise.
        assert!(!lines_stay_in_l1(4096, 16));
        assert!(!lines_stay_in_l1(0, 16));
        // Four lines may share a set; rows 4160 bytes (65 lines) apart
        // spread over every set, as do rows that start mid-line.
        assert!(lines_stay_in_l1(4096, 4));
        assert!(!lines_stay_in_l1(4096, 5));
        assert!(lines_stay_in_l1(4160, 64));
        assert!(lines_stay_in_l1(1000, 64));
        // 512 bytes: eight sets, eight lines each for 64 rows, four for 32.
        assert!(!lines_stay_in_l1(512, 64));
        assert!(lines_stay_in_l1(512, 32));
    }
}
