//! The quad transpose of `quads.rs` in AVX-512 registers: bytes between an
//! untiled `h × w` layout and full tiles `T(4, c)` of the other order, in
//! one pass. A block is 64 untiled rows by 16 quads (one 64-byte line of
//! each row), and its 64 tile rows (four of each quad column, at the
//! block's rows): a 64 × 64 byte transpose either way (`avx512_bytes64.rs`). Blocks go a tile column (`c` untiled rows) at a
//! time, across the whole width (or a part's quad columns), so that the
//! rows being read stay in a core's L2 cache while whole tiles are
//! written (or the other way). Into tiles, the untiled rows can also come
//! from packed 4-bit tiles of the other pairing, exchanged on their way in
//! ([`into_tiles_exchanged`]): `{1,0:T(8,128)(2,1)E(4)}` into
//! `{0,1:T(8,128)(2,1)E(4)}` in one pass. Run only where `simd_level()`
//! found AVX-512 F, BW and VBMI (see `simd.rs`).
//!
//! The `unsafe` here: calling the `#[target_feature]` code, and the
//! intrinsics' loads and stores (in `avx512.rs` and
//! `avx512_interleave.rs`), each on a reference to exactly the 64 bytes it
//! moves.

use core::arch::x86_64::{__m512i, _mm512_setzero_si512};
use core::ops::Range;

use super::avx512::load;
use super::avx512_bytes64::{line, line_mut, prefetch_l2, transpose64};
use super::avx512_interleave::{store, unzip, unzip_indices};
use super::avx512_nibbles::exchange;
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

/// Relays `block` of the untiled `src` into the tiles of `dst` if
/// `into_tiles`, else of the tiles of `src` into the untiled `dst` (see
/// the module documentation and [`Block`]), with streaming stores where
/// `stream` (the caller fences); `false` (nothing written) where this CPU
/// lacks AVX-512 or the block does not fit (see [`Frame`]).
pub(crate) fn transpose(
    src: &[u8],
    dst: &mut [u8],
    frame: Frame,
    (block, into_tiles): (&Block, bool),
    stream: bool,
) -> bool {
    let (untiled, tiled) = if into_tiles {
        (src.len(), dst.len())
    } else {
        (dst.len(), src.len())
    };
    if simd_level() < SimdLevel::Avx512 || !frame.fits(block, untiled, tiled) {
        return false;
    }
    // SAFETY: `simd_level()` is `Avx512` only if `is_x86_feature_detected!`
    // found AVX-512 F, BW and VBMI (forcing can only lower it).
    #[allow(unsafe_code)]
    unsafe {
        if into_tiles {
            into_tiles_avx512(src, dst, frame, block, stream);
        } else {
            out_of_tiles_avx512(src, dst, frame, block, stream);
        }
    }
    true
}

/// [`transpose`] into tiles from rows that packed 4-bit tiles hold in pairs: the
/// untiled rows (of `frame.w` bytes, `2 · frame.w` elements) are the
/// nibble exchange (`avx512_nibbles.rs`) of units of pairs of rows in full
/// tiles of `paired.0` unit rows by `paired.1` units (a multiple of 128),
/// row-major tiles of row-major units, `src` holding the unit rows of
/// `block.rows` from its first on; `false` (nothing written) where this
/// CPU lacks AVX-512 or the block does not fit.
pub(crate) fn into_tiles_exchanged(
    src: &[u8],
    dst: &mut [u8],
    frame: Frame,
    block: &Block,
    paired: (usize, usize),
    stream: bool,
) -> bool {
    let (tile_rows, tile_width) = paired;
    let takes = tile_rows != 0
        && tile_width != 0
        && tile_width.is_multiple_of(128)
        && frame.c.is_multiple_of(2 * tile_rows)
        && (2 * frame.w).is_multiple_of(tile_width);
    if simd_level() < SimdLevel::Avx512 || !takes || !frame.fits(block, src.len(), dst.len()) {
        return false;
    }
    // SAFETY: as in `transpose`.
    #[allow(unsafe_code)]
    unsafe {
        into_tiles_exchanged_avx512(src, dst, frame, block, paired, stream);
    }
    true
}

/// `f(m0, i0)` for each 64 × 64 block of `block`: quad columns `m0..m0 +
/// 16`, untiled rows `i0..i0 + 64`; a tile column (`c` rows) at a time,
/// across the block's quad columns.
#[inline(always)]
fn for_each_block(frame: Frame, block: &Block, mut f: impl FnMut(usize, usize)) {
    for group in block.rows.clone().step_by(frame.c) {
        for m0 in block.quads.clone().step_by(16) {
            for i0 in (group..group + frame.c).step_by(ROWS) {
                f(m0, i0);
            }
        }
    }
}

/// The stores of [`transpose64`]'s lines into tiles: line `x` into the
/// tile row that holds byte `x % 4` of quad column `m0 + x / 4` at
/// untiled rows `i0..` (a block's, from quad column `first`'s tile rows
/// on).
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[inline]
fn into_tile_rows(
    dst: &mut [u8],
    frame: Frame,
    first: usize,
    (m0, i0): (usize, usize),
    stream: bool,
) -> impl FnMut(usize, __m512i) {
    move |x, reg| {
        let at = frame.tile_row(first, m0 + x / 4, i0, x % 4);
        // SAFETY: a tile row of the block's quad columns, 64 of its
        // bytes: inside `dst` (`Frame::fits`).
        #[allow(unsafe_code)]
        let bytes = unsafe { line_mut(dst, at) };
        store(reg, bytes, stream);
    }
}

#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn into_tiles_avx512(src: &[u8], dst: &mut [u8], frame: Frame, block: &Block, stream: bool) {
    let (w, Block { rows, quads }) = (frame.w, block);
    let mut columns = [_mm512_setzero_si512(); 64];
    for_each_block(frame, block, |m0, i0| {
        // Untiled rows `i0..i0 + 64` at quads `m0..` in, the tile
        // rows of quads `m0..` (4 each) at rows `i0..` out.
        let first = (i0 - rows.start) * w + 4 * m0;
        let ahead = stream && m0 + 16 < quads.end;
        transpose64(
            &mut columns,
            |s, lines| {
                for (j, reg) in lines.iter_mut().enumerate() {
                    // SAFETY: row `i0 + 16s + j` of the block, bytes `4 m0..4 m0 + 64`
                    // of it: inside `src` (`Frame::fits`).
                    #[allow(unsafe_code)]
                    let bytes = unsafe { line(src, first + (16 * s + j) * w) };
                    *reg = load(bytes);
                    if ahead {
                        prefetch_l2(bytes.as_ptr().wrapping_add(64));
                    }
                }
            },
            into_tile_rows(dst, frame, quads.start, (m0, i0), stream),
        );
    });
}

#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn out_of_tiles_avx512(src: &[u8], dst: &mut [u8], frame: Frame, block: &Block, stream: bool) {
    let (w, Block { rows, quads }) = (frame.w, block);
    let mut columns = [_mm512_setzero_si512(); 64];
    for_each_block(frame, block, |m0, i0| {
        // The tile rows of quads `m0..` at rows `i0..` in, untiled
        // rows `i0..i0 + 64` at quads `m0..` out.
        let first = (i0 - rows.start) * w + 4 * m0;
        let ahead = stream && m0 + 16 < quads.end;
        transpose64(
            &mut columns,
            |s, lines| {
                for (j, reg) in lines.iter_mut().enumerate() {
                    let x = 16 * s + j;
                    let at = frame.tile_row(quads.start, m0 + x / 4, i0, x % 4);
                    // SAFETY: as the stores into tiles.
                    #[allow(unsafe_code)]
                    let bytes = unsafe { line(src, at) };
                    *reg = load(bytes);
                    if ahead {
                        // Quad columns `m0 + 16..`: 16 tile columns on.
                        prefetch_l2(bytes.as_ptr().wrapping_add(64 * frame.h));
                    }
                }
            },
            |j, reg| {
                // SAFETY: as the loads of untiled rows into tiles.
                #[allow(unsafe_code)]
                let bytes = unsafe { line_mut(dst, first + j * w) };
                store(reg, bytes, stream);
            },
        );
    });
}

#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn into_tiles_exchanged_avx512(
    src: &[u8],
    dst: &mut [u8],
    frame: Frame,
    block: &Block,
    (tile_rows, tile_width): (usize, usize),
    stream: bool,
) {
    let [first_half, second_half] = const { unzip_indices::<1>() }.map(|v| load(&v));
    let (w, Block { rows, quads }) = (frame.w, block);
    let tile = tile_rows * tile_width;
    let across = 2 * w / tile_width;
    let mut columns = [_mm512_setzero_si512(); 64];
    for_each_block(frame, block, |m0, i0| {
        // Untiled bytes `4 m0..` are the units `8 m0..8 m0 + 128` of
        // each unit row: in tile `t`, from `at`.
        let (t, at) = (8 * m0 / tile_width, 8 * m0 % tile_width);
        let ahead = stream && m0 + 16 < quads.end;
        let (t_next, at_next) = (8 * (m0 + 16) / tile_width, 8 * (m0 + 16) % tile_width);
        transpose64(
            &mut columns,
            |s, lines| {
                for (pair, regs) in lines.chunks_exact_mut(2).enumerate() {
                    // Unit row `p`, relative to the block's first.
                    let p = (i0 - rows.start + 16 * s) / 2 + pair;
                    let start =
                        ((p / tile_rows) * across + t) * tile + (p % tile_rows) * tile_width + at;
                    // SAFETY: 128 units of a unit row of the block
                    // (`into_tiles_exchanged` checked that the rows'
                    // tiles hold 128 units from `at` and that `src`
                    // holds the block's rows).
                    #[allow(unsafe_code)]
                    let (a, b) = unsafe { (line(src, start), line(src, start + 64)) };
                    if ahead {
                        let next = ((p / tile_rows) * across + t_next) * tile
                            + (p % tile_rows) * tile_width
                            + at_next;
                        let next = src.as_ptr().wrapping_add(next);
                        prefetch_l2(next);
                        prefetch_l2(next.wrapping_add(64));
                    }
                    let (even, odd) = unzip::<1>(load(a), load(b), first_half, second_half);
                    (regs[0], regs[1]) = exchange(even, odd);
                }
            },
            into_tile_rows(dst, frame, quads.start, (m0, i0), stream),
        );
    });
}
