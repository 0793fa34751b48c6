//! The register blocks of the tile transposes (`kernels/tile_transpose.rs`):
//! blocks of 16 × 16 units of 4 bytes, each 16 source row pieces of 64
//! bytes in and 16 destination row pieces of 64 bytes out, every row
//! where its own offset puts it. AVX2: eight of the in-lane 4 × 4
//! transposes of `avx2.rs`, each of 8 source rows (two 16-byte pieces a
//! register) making 4 destination row pieces of 32 bytes, stored two by two
//! into whole lines; SSE2: sixteen 4 × 4 transposes of `sse2.rs`. In
//! cache with AVX-512, the 64-byte blocks of `tile_blocks_avx512.rs`.
//!
//! The blocks go along the destination-side axis `p` for each block of
//! the source-side axis `q`: into tiles, a block of 16 destination rows
//! (two tiles of 8 rows) is written whole before the next while 16 source
//! rows advance one line each; out of tiles, 16 destination rows (columns)
//! are written front to back. Large relayouts prefetch the source lines
//! of the block [`AHEAD`] blocks on and write with streaming stores where
//! every destination row starts on 32 bytes (AVX2) or its pieces on 16
//! (SSE2). Measured on a 2-vCPU AMD EPYC (Zen 3, AVX2), f32[4096,4096]
//! column-major into `{1,0:T(8,128)}` and back, times a plain copy in the
//! same run (medians of 3 or 4 alternating runs of `relayout_matrix
//! --reps 5`, under load): 1.18 and 1.36 as here; out of the tiles, two
//! blocks along `p` for each along `q` (each column's two lines in turn)
//! 1.71–1.90 against 1.41; two along `q` for each along `p` 1.52 and 1.83;
//! prefetching 4 blocks ahead, into the tiles 1.39–1.66 against 1.24–1.25
//! (out of them within the noise); into L2 (`T1`), into the tiles 1.67
//! against 1.21. Raw-pointer loads and stores inside one bounds check
//! (`Grid::inside`) against slice accesses: in cache (f32[256,256]) 2.2 against
//! 3.1–3.5, large 1.28 and 1.41 against 1.37 and 1.72.
//!
//! The `unsafe` here: calling the `#[target_feature]` code, and in the
//! AVX2 blocks the raw-pointer loads and stores inside the rows that one
//! bounds check (`Grid::inside`) vouched for, and the 32-byte streaming store
//! (`stream32`) on rows checked to start on 32 bytes. The SSE2 blocks
//! load and store slices.

#[cfg(not(miri))]
use core::arch::x86_64::_mm256_stream_si256;
use core::arch::x86_64::{
    __m256i, _MM_HINT_T0, _mm_loadu_si128, _mm_prefetch, _mm256_set_m128i, _mm256_setzero_si256,
    _mm256_storeu_si256,
};

use super::avx2;
use super::sse2::{self, bit_reversed, load};
use super::stream::{fence_streaming, stream};
use super::tile_blocks_avx512::blocks_in_cache;
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
        // SAFETY: `simd_level()` is `Avx512` only if
        // `is_x86_feature_detected!` found AVX-512 F on this CPU.
        #[allow(unsafe_code)]
        SimdLevel::Avx512 if !grid.large && unsafe { blocks_in_cache(src, dst, grid) } => {}
        level if level >= SimdLevel::Avx2 => {
            // SAFETY: `simd_level()` is `Avx2` or above only if
            // `is_x86_feature_detected!` found AVX2 on this CPU (forcing
            // can only lower the level), so the instructions
            // `blocks_avx2` was compiled for exist; its own `unsafe` is
            // argued where it is.
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
/// block of `grid`, the blocks along `p` for each block along `q`; in a
/// large relayout each block first prefetches the source lines of the
/// block [`AHEAD`] blocks after it.
#[inline(always)]
fn each_block(
    src: &[[u8; UNIT]],
    grid: &Grid<'_>,
    mut block: impl FnMut(&[usize; BLOCK], &[usize; BLOCK], usize, usize),
) {
    let (p_blocks, q_blocks) = (
        grid.src_rows.as_chunks::<BLOCK>().0,
        grid.dst_rows.as_chunks::<BLOCK>().0,
    );
    let p_count = p_blocks.len().max(1);
    // The block `AHEAD` after this one: its index along `p` and along `q`.
    let (mut p_next, mut q_next) = (AHEAD % p_count, AHEAD / p_count);
    for (qb, q_rows) in q_blocks.iter().enumerate() {
        for (pb, p_rows) in p_blocks.iter().enumerate() {
            if grid.large
                && q_next < q_blocks.len()
                && let Some(rows) = p_blocks.get(p_next)
            {
                prefetch_rows(src, rows, q_next * BLOCK);
            }
            p_next += 1;
            if p_next == p_count {
                (p_next, q_next) = (0, q_next + 1);
            }
            block(p_rows, q_rows, pb * BLOCK, qb * BLOCK);
        }
    }
}

/// How many blocks ahead a large relayout prefetches the source lines.
const AHEAD: usize = 8;

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
/// Every row piece is inside its buffer where [`Grid::inside`] says so; else
/// the SSE2 blocks take them.
#[target_feature(enable = "avx2")]
fn blocks_avx2(src: &[[u8; UNIT]], dst: &mut [[u8; UNIT]], grid: &Grid<'_>) {
    if !grid.inside(src.len(), dst.len()) {
        blocks_sse2(src, dst, grid);
        return;
    }
    // Streaming stores where every destination row starts on 32 bytes
    // (the blocks' 32-byte pieces then do too: `p0` is a multiple of 16
    // units).
    let base = dst.as_mut_ptr().cast::<u8>();
    let aligned = grid
        .dst_rows
        .iter()
        .all(|&row| base.wrapping_add(row * UNIT).addr().is_multiple_of(32));
    let (from, to) = (src.as_ptr().cast::<u8>(), base);
    if grid.large && aligned {
        each_block(src, grid, |p_rows, q_rows, p0, q0| {
            // SAFETY: `inside` vouched for every row piece of the grid,
            // and `dst` is borrowed exclusively; the destination rows
            // start on 32 bytes.
            #[allow(unsafe_code)]
            unsafe {
                block_avx2::<true>(from, to, (p_rows, q_rows), (p0, q0));
            }
        });
    } else {
        each_block(src, grid, |p_rows, q_rows, p0, q0| {
            // SAFETY: `inside` vouched for every row piece of the grid,
            // and `dst` is borrowed exclusively.
            #[allow(unsafe_code)]
            unsafe {
                block_avx2::<false>(from, to, (p_rows, q_rows), (p0, q0));
            }
        });
    }
}

/// One block with AVX2: source rows `p_rows` from unit `q0` of `src`, into
/// destination rows `q_rows` from unit `p0` of `dst`, with streaming
/// stores if `STREAM`.
///
/// # Safety
///
/// Each of the 16 source row pieces of 64 bytes must be readable, each
/// destination row piece of 64 bytes writable (and on 32 bytes if
/// `STREAM`), and no other reference may access them meanwhile.
#[target_feature(enable = "avx2")]
#[inline]
#[allow(unsafe_code)]
unsafe fn block_avx2<const STREAM: bool>(
    src: *const u8,
    dst: *mut u8,
    (p_rows, q_rows): (&[usize; BLOCK], &[usize; BLOCK]),
    (p0, q0): (usize, usize),
) {
    // Rows in bit-reversed order within each lane (see `avx2::transpose`).
    let order = const { bit_reversed::<4>() };
    let piece = |k: usize, qc: usize| src.wrapping_add((p_rows[k] + q0 + 4 * qc) * UNIT);
    for (qc, rows) in q_rows.chunks_exact(4).enumerate() {
        let mut halves = [[_mm256_setzero_si256(); 4]; 2];
        for (half, first) in halves.iter_mut().zip([0, 8]) {
            // A loop, not `core::array::from_fn`, as in `avx2.rs`.
            let mut regs = [_mm256_setzero_si256(); 4];
            for (reg, &r) in regs.iter_mut().zip(&order) {
                // SAFETY: 16 bytes of a source row piece (the caller's
                // contract).
                unsafe {
                    let low = _mm_loadu_si128(piece(first + r, qc).cast());
                    let high = _mm_loadu_si128(piece(first + 4 + r, qc).cast());
                    *reg = _mm256_set_m128i(high, low);
                }
            }
            *half = avx2::transpose::<4>(regs);
        }
        for (m, &row) in rows.iter().enumerate() {
            let out = dst.wrapping_add((row + p0) * UNIT);
            // SAFETY: the 64 bytes of a destination row piece, on 32 bytes
            // if `STREAM` (the caller's contract).
            unsafe {
                if STREAM {
                    stream32(halves[0][m], out);
                    stream32(halves[1][m], out.add(32));
                } else {
                    _mm256_storeu_si256(out.cast(), halves[0][m]);
                    _mm256_storeu_si256(out.add(32).cast(), halves[1][m]);
                }
            }
        }
    }
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

/// Stores 32 bytes bypassing the caches.
///
/// # Safety
///
/// `at` must be 32 writable bytes on a 32-byte boundary, which no other
/// reference accesses until the caller's fence.
#[target_feature(enable = "avx2")]
#[inline]
#[allow(unsafe_code)]
unsafe fn stream32(reg: __m256i, at: *mut u8) {
    debug_assert!(at.addr().is_multiple_of(32));
    // SAFETY: the caller's contract.
    #[cfg(not(miri))]
    unsafe {
        _mm256_stream_si256(at.cast(), reg);
    }
    // Miri cannot run the streaming store's inline assembly: a plain store
    // of the same bytes stands in.
    #[cfg(miri)]
    unsafe {
        assert!(at.addr().is_multiple_of(32), "unaligned streaming store");
        _mm256_storeu_si256(at.cast(), reg);
    }
}
