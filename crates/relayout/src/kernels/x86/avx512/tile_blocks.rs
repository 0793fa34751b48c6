//! The register blocks of the tile transposes (`kernels/tile_transpose.rs`)
//! with AVX-512: each block's 16 source row pieces of 64 bytes are 16
//! registers, transposed by [`unpack_dwords`] (in-lane unpacks and lane
//! shuffles) into its 16 destination row pieces, one 64-byte store each:
//! in a large relayout a streaming one (every destination row starting on
//! a line, else the AVX2 blocks stream them on 32 bytes), in cache an
//! ordinary one. The blocks are walked, and a large relayout's source lines
//! prefetched, as for AVX2 (`x86/tile_blocks.rs`).
//!
//! Measured on a 2-core AMD EPYC (Zen 4), times a plain copy, two runs
//! alternating with the AVX2 blocks: large, `relayout_matrix --reps 7`,
//! f32[4096,4096] column-major into `T(8,128)` 0.90–1.01 against
//! 1.20–1.22, out of it 1.03–1.28 against 1.22–1.49, row-major into
//! `{0,1:T(8,128)}` 0.95–1.21 against 1.15, out of it 1.06 against
//! 1.28–1.60; f32[256,256,256] row-major into `{1,0,2:T(8,128)}` 0.86–0.92
//! against 0.96–1.10. In cache, `--reps 9`, f32[256,256] the same four
//! pairs 1.72–1.85 against 2.06–2.16; prefetching the next block's
//! destination lines into L1 (as `in_cache.rs` does) 1.78–2.04, no better.
//!
//! The `unsafe` here: calling the `#[target_feature]` code, and the
//! 64-byte loads and stores inside the rows that one bounds check
//! ([`Grid::inside`]) vouched for.

use core::arch::x86_64::{__m512i, _mm512_loadu_si512, _mm512_setzero_si512};

use super::{store_row, unpack_dwords};
use crate::kernels::block::{BLOCK, Grid, UNIT};
use crate::kernels::x86::row_at;
use crate::kernels::x86::tile_blocks::each_block;
use crate::simd::{SimdLevel, simd_level};

/// Transposes the whole blocks of `grid` (see [`Grid`]) with AVX-512;
/// `false` (nothing written) where this CPU lacks it, where a row piece is
/// outside its buffer, or where a large relayout's destination rows do not
/// all start on a 64-byte line.
pub(crate) fn transpose_blocks(
    src: &[[u8; UNIT]],
    dst: &mut [[u8; UNIT]],
    grid: &Grid<'_>,
) -> bool {
    if simd_level() < SimdLevel::Avx512 || !grid.inside(src.len(), dst.len()) {
        return false;
    }
    let base = dst.as_mut_ptr().cast::<u8>();
    let on_lines = || {
        grid.dst_rows
            .iter()
            .all(|&row| base.wrapping_add(row * UNIT).addr().is_multiple_of(64))
    };
    if grid.large && !on_lines() {
        return false;
    }
    // SAFETY: `simd_level()` is `Avx512` only if `is_x86_feature_detected!`
    // found AVX-512 F and BW (and VBMI) on this CPU; forcing can only lower
    // it.
    #[allow(unsafe_code)]
    unsafe {
        blocks(src, base, grid);
    }
    true
}

/// Every whole block of `grid`, from `src` into the destination at `dst`,
/// whose row pieces [`Grid::inside`] vouched for, streaming (onto lines) if
/// the relayout is large.
#[target_feature(enable = "avx512f,avx512bw")]
fn blocks(src: &[[u8; UNIT]], dst: *mut u8, grid: &Grid<'_>) {
    let from = src.as_ptr().cast::<u8>();
    let stream = grid.large;
    each_block(src, grid, |p_rows, q_rows, p0, q0| {
        // SAFETY: `inside` vouched for every row piece of the grid, the
        // destination is borrowed exclusively by the caller, and its row
        // pieces start on lines where the stores stream.
        #[allow(unsafe_code)]
        unsafe {
            block(from, dst, (p_rows, q_rows), (p0, q0), stream);
        }
    });
}

/// One block: source rows `p_rows` from unit `q0` of `src`, into
/// destination rows `q_rows` from unit `p0` of `dst`, with streaming
/// stores if `stream`.
///
/// # Safety
///
/// Each of the 16 source row pieces of 64 bytes must be readable, each
/// destination row piece of 64 bytes writable (and on a line if
/// `stream`), and no other reference may access them until the caller's
/// fence.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
#[allow(unsafe_code)]
unsafe fn block(
    src: *const u8,
    dst: *mut u8,
    (p_rows, q_rows): (&[usize; BLOCK], &[usize; BLOCK]),
    (p0, q0): (usize, usize),
    stream: bool,
) {
    let mut rows: [__m512i; BLOCK] = [_mm512_setzero_si512(); BLOCK];
    let (src, dst) = (src.wrapping_add(q0 * UNIT), dst.wrapping_add(p0 * UNIT));
    for (reg, row) in rows.iter_mut().zip(p_rows) {
        // SAFETY: a source row piece (the caller's contract).
        *reg = unsafe { _mm512_loadu_si512(src.wrapping_add(row_at(row) * UNIT).cast()) };
    }
    let columns = unpack_dwords(rows);
    for (&reg, row) in columns.iter().zip(q_rows) {
        // SAFETY: a destination row piece, on a line if `stream` (the
        // caller's contract).
        unsafe {
            store_row(reg, dst.wrapping_add(row_at(row) * UNIT), stream, None);
        }
    }
}
