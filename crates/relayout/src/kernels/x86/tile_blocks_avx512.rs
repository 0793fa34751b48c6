//! The register blocks of the tile transposes in cache with AVX-512
//! (`kernels/tile_transpose.rs`, [`super::tile_blocks`] for the others):
//! each block of 16 × 16 units of 4 bytes is 16 source row pieces of 64
//! bytes loaded whole, transposed with in-lane unpacks and lane shuffles
//! (the 4-byte blocks of `avx512.rs`), and stored as 16 destination row
//! pieces of 64 bytes, each where its row starts. The blocks go along the
//! destination-side axis `p` for each block of the source-side one `q`
//! (as in [`super::tile_blocks`]). Measured on a 2-vCPU AMD EPYC (Zen 4),
//! times a plain copy, alternating builds of `relayout_matrix --reps 9`
//! (two runs, under load): f32[256,256] row-major into `{0,1:T(8,128)}`,
//! column-major into `T(8,128)`, `T(8,128)` into column-major and
//! `{0,1:T(8,128)}` into row-major 1.72–1.85 against 2.06–2.16 with the
//! AVX2 blocks; prefetching the next block's destination lines into L1
//! (as `avx512/in_cache.rs` does) 1.78–2.04, no better. Large relayouts
//! keep the AVX2 blocks with their source prefetches and streaming
//! stores.
//!
//! The `unsafe` here: calling the `#[target_feature]` code, and the
//! raw-pointer loads and stores inside the rows that one bounds check
//! ([`Grid::inside`]) vouched for.

use core::arch::x86_64::{__m512i, _mm512_loadu_si512, _mm512_setzero_si512, _mm512_storeu_si512};

use super::avx512::unpack_dwords;
use crate::kernels::block::{BLOCK, Grid, UNIT};

/// Transposes the whole blocks of `grid` (not a large one: ordinary
/// stores) with AVX-512; `false` (nothing written) if a row piece lies
/// outside its buffer, for the other blocks to take.
///
/// # Safety
///
/// The CPU must have AVX-512 F (`simd_level()` at `Avx512`).
#[target_feature(enable = "avx512f")]
#[allow(unsafe_code)]
pub(super) unsafe fn blocks_in_cache(
    src: &[[u8; UNIT]],
    dst: &mut [[u8; UNIT]],
    grid: &Grid<'_>,
) -> bool {
    if !grid.inside(src.len(), dst.len()) {
        return false;
    }
    let (from, to) = (src.as_ptr().cast::<u8>(), dst.as_mut_ptr().cast::<u8>());
    let p_blocks = grid.src_rows.as_chunks::<BLOCK>().0;
    for (qb, q_rows) in grid.dst_rows.as_chunks::<BLOCK>().0.iter().enumerate() {
        for (pb, p_rows) in p_blocks.iter().enumerate() {
            let (p0, q0) = (pb * BLOCK, qb * BLOCK);
            // SAFETY: `inside` vouched for every row piece of the grid,
            // and `dst` is borrowed exclusively.
            unsafe { block(from, to, (p_rows, q_rows), (p0, q0)) };
        }
    }
    true
}

/// One block: source rows `p_rows` from unit `q0` of `src`, into
/// destination rows `q_rows` from unit `p0` of `dst`.
///
/// # Safety
///
/// Each of the 16 source row pieces of 64 bytes must be readable, each
/// destination row piece of 64 bytes writable, and no other reference may
/// access them meanwhile.
#[target_feature(enable = "avx512f")]
#[inline]
#[allow(unsafe_code)]
unsafe fn block(
    src: *const u8,
    dst: *mut u8,
    (p_rows, q_rows): (&[usize; BLOCK], &[usize; BLOCK]),
    (p0, q0): (usize, usize),
) {
    let mut rows = [_mm512_setzero_si512(); BLOCK];
    for (reg, &row) in rows.iter_mut().zip(p_rows) {
        // SAFETY: a source row piece (the caller's contract).
        *reg = unsafe { _mm512_loadu_si512(src.add((row + q0) * UNIT).cast()) };
    }
    let columns: [__m512i; BLOCK] = unpack_dwords(rows);
    for (&column, &row) in columns.iter().zip(q_rows) {
        // SAFETY: a destination row piece (the caller's contract).
        unsafe { _mm512_storeu_si512(dst.add((row + p0) * UNIT).cast(), column) };
    }
}
