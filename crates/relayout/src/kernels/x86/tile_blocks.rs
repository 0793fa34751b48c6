//! The register blocks of the tile transposes (`kernels/tile_transpose.rs`):
//! blocks of 16 × 16 units of 4 bytes, each 16 source row pieces of 64
//! bytes in and 16 destination row pieces of 64 bytes out, every row
//! where its own offset puts it. AVX2: eight of the in-lane 4 × 4
//! transposes of `avx2.rs`, each of 8 source rows (two 16-byte pieces a
//! register) making 4 destination row pieces of 32 bytes, stored two by two
//! into whole lines; SSE2: sixteen 4 × 4 transposes of `sse2.rs`. The
//! blocks go along the destination-side axis `p` for each block of the
//! source-side axis `q`: a block of 16 destination rows (two tiles of 8
//! rows, say) is written whole before the next, while the source rows
//! advance one line each; in large relayouts that next line is prefetched
//! while the block before it is transposed, and the destination is written
//! with streaming stores where its rows start on 32-byte (AVX2) or 16-byte
//! (SSE2) boundaries.
//!
//! The `unsafe` here: calling the `#[target_feature]` code, and the
//! 32-byte streaming store (`stream32`), on 32 bytes of an exclusive
//! borrow it checks are aligned. Loads and other stores are slice
//! accesses.

#[cfg(miri)]
use core::arch::x86_64::__m256i;
#[cfg(not(miri))]
use core::arch::x86_64::{__m256i, _mm256_stream_si256};
use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch, _mm256_set_m128i, _mm256_setzero_si256};

use super::avx2;
use super::sse2::{self, bit_reversed, load};
use super::stream::{fence_streaming, stream};
use crate::kernels::block::{BLOCK, Grid, UNIT};
use crate::simd::{SimdLevel, simd_level};

/// Transposes the whole blocks of `grid` (see [`Grid`]) with the widest
/// register transposes of [`simd_level`]; `false` (nothing written) at the
/// scalar level.
pub(crate) fn transpose_blocks(
    src: &[[u8; UNIT]],
    dst: &mut [[u8; UNIT]],
    grid: &Grid<'_>,
) -> bool {
    match simd_level() {
        SimdLevel::Scalar => return false,
        level if level >= SimdLevel::Avx2 => {
            // SAFETY: `simd_level()` is `Avx2` or above only if
            // `is_x86_feature_detected!` found AVX2 on this CPU (forcing
            // can only lower the level), so the instructions
            // `blocks_avx2` was compiled for exist; its one `unsafe`
            // block is argued in `stream32`.
            #[allow(unsafe_code)]
            unsafe {
                blocks_avx2(src, dst, grid);
            }
        }
        _ => {
            // SAFETY: this module is compiled only where the target
            // enables SSE2 (`kernels/mod.rs`), so every CPU running it has
            // the instructions `blocks_sse2` was compiled for.
            #[allow(unsafe_code)]
            unsafe {
                blocks_sse2(src, dst, grid);
            }
        }
    }
    if grid.large {
        // Streaming stores are weakly ordered: make them visible before
        // the edges' ordinary stores and the caller's.
        fence_streaming();
    }
    true
}

/// Calls `block(source rows, destination rows, p0, q0)` for every whole
/// block of `grid`, the blocks along `p` for each block along `q`, then
/// in a large relayout prefetches the source lines that the block under
/// it (the next along `q`) reads.
#[inline(always)]
fn each_block(
    src: &[[u8; UNIT]],
    grid: &Grid<'_>,
    mut block: impl FnMut(&[usize], &[usize], usize, usize),
) {
    let q_blocks = grid.dst_rows.len() / BLOCK;
    for (qb, q_rows) in grid.dst_rows.chunks_exact(BLOCK).enumerate() {
        let q0 = qb * BLOCK;
        for (pb, p_rows) in grid.src_rows.chunks_exact(BLOCK).enumerate() {
            if grid.large && qb + 1 < q_blocks {
                prefetch_rows(src, p_rows, q0 + BLOCK);
            }
            block(p_rows, q_rows, pb * BLOCK, q0);
        }
    }
}

/// Prefetches unit `at` of each of the source rows `p_rows` into L1.
#[inline(always)]
fn prefetch_rows(src: &[[u8; UNIT]], p_rows: &[usize], at: usize) {
    for &row in p_rows {
        if let Some(unit) = src.get(row + at) {
            // SAFETY: SSE (`prefetcht0`) is enabled for every target this
            // module is compiled for (`kernels/mod.rs`); a prefetch reads
            // nothing into the program.
            #[allow(unsafe_code)]
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(unit.as_ptr().cast());
            }
        }
    }
}

/// The source row pieces of a block: rows `p_rows` from unit `q0`, each as
/// four 16-byte pieces.
#[inline(always)]
fn row_pieces<'a>(src: &'a [[u8; UNIT]], p_rows: &[usize], q0: usize) -> [&'a [[u8; 16]]; BLOCK] {
    core::array::from_fn(|k| {
        let start = p_rows[k] + q0;
        src[start..start + BLOCK].as_flattened().as_chunks::<16>().0
    })
}

/// The blocks with AVX2: for each 4 destination rows, two in-lane
/// transposes of 8 source rows each give both halves of the rows' pieces.
#[target_feature(enable = "avx2")]
fn blocks_avx2(src: &[[u8; UNIT]], dst: &mut [[u8; UNIT]], grid: &Grid<'_>) {
    // Rows in bit-reversed order within each lane (see `avx2::transpose`).
    let order = const { bit_reversed::<4>() };
    let stream = grid.large;
    each_block(src, grid, |p_rows, q_rows, p0, q0| {
        let pieces = row_pieces(src, p_rows, q0);
        for (qc, rows) in q_rows.chunks_exact(4).enumerate() {
            let mut halves = [[_mm256_setzero_si256(); 4]; 2];
            for (half, first) in halves.iter_mut().zip([0, 8]) {
                // A loop, not `core::array::from_fn`, as in `avx2.rs`.
                let mut regs = [_mm256_setzero_si256(); 4];
                for (reg, &r) in regs.iter_mut().zip(&order) {
                    let (low, high) = (pieces[first + r][qc], pieces[first + 4 + r][qc]);
                    *reg = _mm256_set_m128i(load(&high), load(&low));
                }
                *half = avx2::transpose::<4>(regs);
            }
            for (m, &row) in rows.iter().enumerate() {
                let start = row + p0;
                let out = dst[start..start + BLOCK]
                    .as_flattened_mut()
                    .as_chunks_mut::<32>()
                    .0;
                store32(halves[0][m], &mut out[0], stream);
                store32(halves[1][m], &mut out[1], stream);
            }
        }
    });
}

/// The blocks with SSE2: sixteen 4 × 4 transposes, four for each 4
/// destination rows, whose 16-byte pieces fill the rows' lines in turn.
#[target_feature(enable = "sse2")]
fn blocks_sse2(src: &[[u8; UNIT]], dst: &mut [[u8; UNIT]], grid: &Grid<'_>) {
    let order = const { bit_reversed::<4>() };
    let stream_rows = grid.large;
    each_block(src, grid, |p_rows, q_rows, p0, q0| {
        let pieces = row_pieces(src, p_rows, q0);
        for (qc, rows) in q_rows.chunks_exact(4).enumerate() {
            for pc in 0..4 {
                let regs = sse2::transpose::<4>(core::array::from_fn(|r| {
                    load(&pieces[4 * pc + order[r]][qc])
                }));
                for (&row, reg) in rows.iter().zip(regs) {
                    let start = row + p0 + 4 * pc;
                    let out = &mut dst[start..start + 4]
                        .as_flattened_mut()
                        .as_chunks_mut::<16>()
                        .0[0];
                    if stream_rows {
                        stream(reg, out);
                    } else {
                        sse2::store(reg, out);
                    }
                }
            }
        }
    });
}

/// Stores 32 bytes, with a streaming store if `stream` and they start on
/// a 32-byte boundary (else an ordinary one).
#[target_feature(enable = "avx2")]
#[inline]
fn store32(reg: __m256i, bytes: &mut [u8; 32], stream: bool) {
    #[cfg(not(miri))]
    if stream && bytes.as_ptr().addr().is_multiple_of(32) {
        // SAFETY: 32 writable bytes of an exclusive borrow, on a 32-byte
        // boundary as `_mm256_stream_si256` requires (checked just above);
        // the caller fences before anything else reads them.
        #[allow(unsafe_code)]
        unsafe {
            _mm256_stream_si256(bytes.as_mut_ptr().cast(), reg);
        }
        return;
    }
    // Miri cannot run the streaming store's inline assembly: a plain store
    // of the same bytes stands in.
    #[cfg(miri)]
    let _ = stream;
    avx2::store(reg, bytes);
}
