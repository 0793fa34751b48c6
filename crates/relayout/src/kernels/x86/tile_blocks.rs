//! The register blocks of the tile transposes (`kernels/tile_transpose.rs`):
//! blocks of 16 × 16 units of 4 bytes, each 16 source row pieces of 64
//! bytes in and 16 destination row pieces of 64 bytes out, every row
//! where its own offset puts it. AVX2: eight of the in-lane 4 × 4
//! transposes of `avx2.rs`, each of 8 source rows (two 16-byte pieces a
//! register) making 4 destination row pieces of 32 bytes, stored two by two
//! into whole lines; SSE2: sixteen 4 × 4 transposes of `sse2.rs`. With
//! AVX-512, the 64-byte blocks of `avx512/tile_blocks.rs`.
//!
//! The blocks go in regions of [`Q_GROUP`] blocks along the source-side
//! axis `q` by (in large relayouts) 4 along the destination-side
//! axis `p`, each group along `q` cut into runs along `p`: a region's 64
//! source rows are read on for 8 lines while its 128 destination rows fill
//! 4 lines at a time, front to back. Large relayouts prefetch the next
//! region's source lines row by row into L2 (or, where that many rows
//! crowd the L2 sets, the source lines of the block [`AHEAD`] blocks on
//! into L1: see [`each_block`]) and write with streaming stores where
//! every destination row starts on 32 bytes (AVX2) or its pieces on 16
//! (SSE2).
//! Measured on a 2-vCPU AMD EPYC (Zen 3, AVX2) with one block along `q`
//! for each group, f32[4096,4096] column-major into `{1,0:T(8,128)}` and
//! back, times a plain copy in the same run (medians of 3 or 4 alternating
//! runs of `relayout_matrix --reps 5`, under load): 1.18 and 1.36; out of
//! the tiles, two blocks along `p` for each along `q` (each column's two
//! lines in turn) 1.71–1.90 against 1.41; two along `q` for each along `p`
//! 1.52 and 1.83 (groups of 2, slower again on Zen 4; from 4 on they are
//! faster: see [`Q_GROUP`]); prefetching 4 blocks ahead, into the tiles
//! 1.39–1.66 against 1.24–1.25 (out of them within the noise); into L2
//! (`T1`), into the tiles 1.67 against 1.21. Raw-pointer loads and stores
//! inside one bounds check (`Grid::inside`) against slice accesses: in cache
//! (f32[256,256]) 2.2 against 3.1–3.5, large 1.28 and 1.41 against 1.37
//! and 1.72.
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

use super::regions::{Ahead, Region, Regions, region_run, rows_fit_l2};
use super::sse2::{self, bit_reversed, load};
use super::stream::{fence_streaming, stream};
use super::{avx2, avx512};
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
        SimdLevel::Avx512 if avx512::tile_blocks::transpose_blocks(src, dst, grid) => {}
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
/// block of `grid`, region by region ([`Regions`]): each region's blocks
/// along `q`, and for each the region's blocks along `p`, so that each
/// source row piece is read on for a few lines and each destination row
/// filled a few lines at a time. In cache, runs of one block along `p`;
/// where a block's source lines spread over the L1 sets
/// ([`lines_spread`]), groups of one block along `q` too: each band of 16
/// destination rows is then filled front to back, as the plain transposes
/// in cache fill theirs. A large relayout prefetches: with regions of 64
/// source rows (`regions.rs`), each block a block's worth of the next
/// region's source lines into L2, row by row (after a grid's last region,
/// the first one of the next grid, `grid.next`); where that many source
/// rows would crowd the L2 sets, runs of one block, each block the source
/// lines of the block [`AHEAD`] blocks on into L1.
#[inline(always)]
pub(super) fn each_block(
    src: &[[u8; UNIT]],
    grid: &Grid<'_>,
    mut block: impl FnMut(&[usize; BLOCK], &[usize; BLOCK], usize, usize),
) {
    let (p_blocks, q_blocks) = (
        grid.src_rows.as_chunks::<BLOCK>().0,
        grid.dst_rows.as_chunks::<BLOCK>().0,
    );
    let group = match p_blocks.first() {
        Some(rows) if !grid.large && lines_spread(rows) => 1,
        _ => Q_GROUP,
    };
    if !grid.large {
        // In cache: no prefetching, groups along `q` down the whole of `p`.
        for q0 in (0..q_blocks.len()).step_by(group) {
            let q_end = q_blocks.len().min(q0 + group);
            for (pb, p_rows) in p_blocks.iter().enumerate() {
                for (qb, q_rows) in q_blocks[q0..q_end].iter().enumerate() {
                    block(p_rows, q_rows, pb * BLOCK, (q0 + qb) * BLOCK);
                }
            }
        }
        return;
    }
    let by_regions = rows_fit_l2(grid.src_rows, UNIT);
    let run = if by_regions { region_run(UNIT) } else { 1 };
    let regions = Regions::new(p_blocks.len(), q_blocks.len(), group, run);
    // The region after each: the next one of this grid, after the last
    // the first one of the next grid.
    let mut next_region = by_regions.then(|| {
        regions.clone().skip(1).map(|region| (region, src)).chain(
            grid.next
                .and_then(|next| Some((regions.clone().next()?, next))),
        )
    });
    // The block `AHEAD` blocks on, where not prefetching by regions.
    let mut next_block =
        (grid.large && !by_regions).then(|| regions.clone().flat_map(Region::blocks).skip(AHEAD));
    for region in regions {
        let mut ahead = next_region
            .as_mut()
            .and_then(Iterator::next)
            .map(|(next, src)| Ahead::new(&next, src.as_flattened(), grid.src_rows, UNIT));
        for qb in region.q {
            for pb in region.p.clone() {
                if let Some(ahead) = &mut ahead {
                    ahead.prefetch(BLOCK);
                } else if let Some((pn, qn)) = next_block.as_mut().and_then(Iterator::next) {
                    prefetch_rows(src, &p_blocks[pn], qn * BLOCK);
                }
                block(&p_blocks[pb], &q_blocks[qb], pb * BLOCK, qb * BLOCK);
            }
        }
    }
}

/// How many blocks along `q` the walk takes for each block along `p` (see
/// [`each_block`]). Measured on a 2-core AMD EPYC (Zen 4), times a plain
/// copy, `relayout_matrix --reps 5`, two runs of each build alternating:
/// f32[256,256,256] `{1,0,2}` into `{2,1,0:T(8,128)}` 2.1–2.3 with 1 block,
/// 2.9–3.1 with 2, 1.4–1.5 with 4, 1.2–1.5 with 8, 1.1–1.2 with 16, 1.0–1.2
/// with 32; `{1,0,2:T(8,128)}` into `{2,1,0}` 3.1–3.4, 2.5–2.7, 1.3–1.6,
/// 0.9–1.1, 0.95–1.0, 0.9; f32[4096,4096] column-major into
/// `{1,0:T(8,128)}` 1.0–1.3 with 1, 0.9–1.1 with 8, and back 1.0–1.1 with
/// 1, 1.1–1.6 with 8, 1.2–1.4 with 16 and 32; row-major into
/// `{1,0,2:T(8,128)}` of the 3-D array 0.8–1.0 with 1, 1.2–1.3 with 8.
const Q_GROUP: usize = 8;

/// Whether the lines of a block's source rows (their first units) spread
/// over the 64 sets of L1: at most 4 in any one set, half the 8 ways of
/// the smallest L1 data cache among these CPUs (see `lines_stay_in_l1` of
/// `avx512/in_cache.rs`). Rows 2 KiB apart or more put 8 or 16 lines in a
/// set; there the groups of [`Q_GROUP`] blocks read each row on for a few
/// lines instead. Measured on the 2-core AMD EPYC (Zen 4) in cache,
/// fastest of 20–60 batches of 100 calls ÷ a plain copy, two runs, one
/// block a group against [`Q_GROUP`]: source rows 1 KiB apart,
/// bf16\[256,512\] row-major into `{0,1:T(8,128)(2,1)}` 1.52–1.55 against
/// 1.99–2.26 and back 1.50–1.52 against 2.01–2.06, f32\[256,256\] 1.43–1.57
/// against 1.37–1.46; source tile rows (8 a tile, 512 bytes apart)
/// f32\[256,256\] `T(8,128)` into column-major 1.43 against 1.82–2.01,
/// f32\[512,512\] 1.56–1.61 against 2.08–2.30, f32\[1024,1024\] 2.10–2.14
/// against 2.43–2.51; rows 2 KiB apart, f32\[512,512\] row-major into
/// `{0,1:T(8,128)}` 1.86–1.92 against 1.48–1.50, bf16\[1024,1024\]
/// column-major into `T(8,128)(2,1)` 1.85–1.87 against 1.73–1.76; 4 KiB
/// apart, f32\[1024,1024\] 2.74–2.92 against 1.79–1.85.
fn lines_spread(rows: &[usize; BLOCK]) -> bool {
    let mut in_set = [0_u8; 64];
    rows.iter().all(|&row| {
        let count = &mut in_set[row * UNIT / 64 % 64];
        *count += 1;
        *count <= 4
    })
}

/// How many blocks ahead a large relayout whose source rows crowd the L2
/// sets prefetches the source lines (see [`each_block`]).
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

#[cfg(test)]
mod tests {
    use super::{BLOCK, lines_spread};

    #[test]
    fn source_lines_in_l1_sets() {
        // Units of 4 bytes: rows 1 KiB apart put 4 lines in each of 4
        // sets, 2 KiB apart 8 in each of 2.
        let apart = |units: usize| core::array::from_fn::<_, BLOCK, _>(|k| k * units);
        assert!(lines_spread(&apart(256)));
        assert!(!lines_spread(&apart(512)));
        assert!(!lines_spread(&apart(1024)));
        // Tile rows: 8 rows 512 bytes apart, then the next tile row.
        let tiles = core::array::from_fn::<_, BLOCK, _>(|k| k % 8 * 128 + k / 8 * 2048);
        assert!(lines_spread(&tiles));
        assert!(lines_spread(&apart(16)));
    }
}
