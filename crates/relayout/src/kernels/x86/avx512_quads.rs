//! The quad transpose of `quads.rs` in AVX-512 registers: bytes between an
//! untiled `h × w` layout and full tiles `T(4, c)` of the other order, in
//! one pass. A block is 64 untiled rows by 16 quads (one 64-byte line of
//! each row): four groups of 16 rows are each a 16 × 16 transpose of
//! 4-byte quads (`unpack_dwords`), after which one byte permute
//! (`vpermb`) puts byte `r` of the 16 quads of one column into lane `r`;
//! four such registers, one per group, exchange their 128-bit lanes
//! (`transpose_lanes`) into the four 64-byte rows of that column's tile.
//! Out of tiles, the same steps in the other order (each is its own
//! inverse but the permute, whose inverse is another permute). Blocks go
//! a tile column (`c` untiled rows) at a time, across the whole width, so
//! that the rows being read stay in a core's L2 cache while whole tiles
//! are written (or the other way). Run only where `simd_level()` found
//! AVX-512 F, BW and VBMI (see `simd.rs`).
//!
//! The `unsafe` here: calling the `#[target_feature]` code, and the
//! intrinsics' loads and stores (in `avx512.rs` and
//! `avx512_interleave.rs`), each on a reference to exactly the 64 bytes it
//! moves.

use core::arch::x86_64::{_mm512_permutexvar_epi8, _mm512_setzero_si512};
use core::ops::Range;

use super::avx512::{load, transpose_lanes, unpack_dwords};
use super::avx512_interleave::store;
use crate::simd::{SimdLevel, simd_level};

/// Untiled rows a block takes.
const ROWS: usize = 64;

/// The frame of one relayout: `h` untiled rows of `w` bytes, and the
/// tiles' width `c` (bytes).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Frame {
    pub(crate) h: usize,
    pub(crate) w: usize,
    pub(crate) c: usize,
}

/// The part of a relayout one call moves: untiled rows `rows` (whole tile
/// columns, multiples of `c`) by quad columns `quads` (multiples of 16).
/// The untiled buffer passed holds those rows from `rows.start` on, the
/// tiled one the tile rows of those quad columns from `quads.start` on.
#[derive(Debug, Clone)]
pub(crate) struct Block {
    pub(crate) rows: Range<usize>,
    pub(crate) quads: Range<usize>,
}

impl Frame {
    /// Whether the kernels take `block` of this frame over buffers of
    /// `untiled` and `tiled` bytes: `c` a multiple of 64 dividing `h`, `w`
    /// a multiple of 64, the block inside the array on whole tile columns
    /// and 16 quad columns, and both buffers long enough for it.
    fn fits(&self, block: &Block, untiled: usize, tiled: usize) -> bool {
        let Frame { h, w, c } = *self;
        let Block { rows, quads } = block;
        let inside = |span: &Range<usize>, end: usize, step: usize| {
            span.start <= span.end
                && span.end <= end
                && span.start.is_multiple_of(step)
                && span.end.is_multiple_of(step)
        };
        let bytes = |n: usize, each: Option<usize>, have: usize| {
            each.and_then(|each| each.checked_mul(n))
                .is_some_and(|need| need <= have)
        };
        c != 0
            && c.is_multiple_of(ROWS)
            && h.is_multiple_of(c)
            && w.is_multiple_of(64)
            && inside(rows, h, c)
            && inside(quads, w / 4, 16)
            && bytes(rows.len(), Some(w), untiled)
            && bytes(quads.len(), h.checked_mul(4), tiled)
    }

    /// The offset, from quad column `first`'s tile rows, of the tile row
    /// that holds byte `r` of quad column `m` at untiled rows `i..` (`i` a
    /// multiple of 64).
    fn tile_row(&self, first: usize, m: usize, i: usize, r: usize) -> usize {
        (m - first) * 4 * self.h + (i / self.c) * 4 * self.c + r * self.c + i % self.c
    }
}

/// Relays `block` of the untiled `src` into the tiles of `dst` (see the
/// module documentation and [`Block`]), with streaming stores where
/// `stream` (the caller fences); `false` (nothing written) where this CPU
/// lacks AVX-512 or the block does not fit (see [`Frame`]).
pub(crate) fn into_tiles(
    src: &[u8],
    dst: &mut [u8],
    frame: Frame,
    block: &Block,
    stream: bool,
) -> bool {
    if simd_level() < SimdLevel::Avx512 || !frame.fits(block, src.len(), dst.len()) {
        return false;
    }
    // SAFETY: `simd_level()` is `Avx512` only if `is_x86_feature_detected!`
    // found AVX-512 F, BW and VBMI (forcing can only lower it).
    #[allow(unsafe_code)]
    unsafe {
        into_tiles_avx512(src, dst, frame, block, stream);
    }
    true
}

/// The inverse of [`into_tiles`]: `block` of the tiles of `src` into the
/// untiled `dst`.
pub(crate) fn out_of_tiles(
    src: &[u8],
    dst: &mut [u8],
    frame: Frame,
    block: &Block,
    stream: bool,
) -> bool {
    if simd_level() < SimdLevel::Avx512 || !frame.fits(block, dst.len(), src.len()) {
        return false;
    }
    // SAFETY: as in `into_tiles`.
    #[allow(unsafe_code)]
    unsafe {
        out_of_tiles_avx512(src, dst, frame, block, stream);
    }
    true
}

/// The byte permute of a transposed column of 16 quads: byte `r` of quad
/// `j` (at `4j + r`) to `16r + j`, and its inverse.
const fn gather_indices(inverse: bool) -> [u8; 64] {
    let mut indices = [0; 64];
    let mut at = 0;
    while at < 64 {
        let (r, j) = (at / 16, at % 16);
        if inverse {
            indices[4 * j + r] = at as u8;
        } else {
            indices[at] = (4 * j + r) as u8;
        }
        at += 1;
    }
    indices
}

/// The 64-byte line at `at`.
fn line(bytes: &[u8], at: usize) -> &[u8; 64] {
    &bytes[at..at + 64].as_chunks::<64>().0[0]
}

/// The writable 64-byte line at `at`.
fn line_mut(bytes: &mut [u8], at: usize) -> &mut [u8; 64] {
    &mut bytes[at..at + 64].as_chunks_mut::<64>().0[0]
}

#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn into_tiles_avx512(src: &[u8], dst: &mut [u8], frame: Frame, block: &Block, stream: bool) {
    let gather = load(&const { gather_indices(false) });
    let (Frame { w, c, .. }, Block { rows, quads }) = (frame, block);
    // Column `k` of row group `s` at `16s + k`, its bytes by tile row
    // (every block writes all 64 before it reads one).
    let mut columns = [_mm512_setzero_si512(); 64];
    for group in rows.clone().step_by(c) {
        for m0 in quads.clone().step_by(16) {
            for i0 in (group..group + c).step_by(ROWS) {
                for s in 0..4 {
                    let mut lines = [_mm512_setzero_si512(); 16];
                    for (j, reg) in lines.iter_mut().enumerate() {
                        *reg = load(line(src, (i0 - rows.start + 16 * s + j) * w + 4 * m0));
                    }
                    let transposed = unpack_dwords::<16>(lines);
                    for k in 0..16 {
                        columns[16 * s + k] = _mm512_permutexvar_epi8(gather, transposed[k]);
                    }
                }
                for k in 0..16 {
                    let groups = [
                        columns[k],
                        columns[16 + k],
                        columns[32 + k],
                        columns[48 + k],
                    ];
                    let lines = transpose_lanes(groups);
                    for (r, &reg) in lines.iter().enumerate() {
                        store(
                            reg,
                            line_mut(dst, frame.tile_row(quads.start, m0 + k, i0, r)),
                            stream,
                        );
                    }
                }
            }
        }
    }
}

#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn out_of_tiles_avx512(src: &[u8], dst: &mut [u8], frame: Frame, block: &Block, stream: bool) {
    let scatter = load(&const { gather_indices(true) });
    let (Frame { w, c, .. }, Block { rows, quads }) = (frame, block);
    // Column `k` of row group `s` at `16s + k`, its bytes by tile row
    // (every block writes all 64 before it reads one).
    let mut columns = [_mm512_setzero_si512(); 64];
    for group in rows.clone().step_by(c) {
        for m0 in quads.clone().step_by(16) {
            for i0 in (group..group + c).step_by(ROWS) {
                for k in 0..16 {
                    let mut lines = [_mm512_setzero_si512(); 4];
                    for (r, reg) in lines.iter_mut().enumerate() {
                        *reg = load(line(src, frame.tile_row(quads.start, m0 + k, i0, r)));
                    }
                    let groups = transpose_lanes(lines);
                    for s in 0..4 {
                        columns[16 * s + k] = _mm512_permutexvar_epi8(scatter, groups[s]);
                    }
                }
                for s in 0..4 {
                    let mut quads = [_mm512_setzero_si512(); 16];
                    quads.copy_from_slice(&columns[16 * s..16 * s + 16]);
                    let transposed = unpack_dwords::<16>(quads);
                    for (j, &reg) in transposed.iter().enumerate() {
                        store(
                            reg,
                            line_mut(dst, (i0 - rows.start + 16 * s + j) * w + 4 * m0),
                            stream,
                        );
                    }
                }
            }
        }
    }
}
