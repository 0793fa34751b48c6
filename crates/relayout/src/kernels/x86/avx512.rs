//! AVX-512 transposes straight from the source, for 1, 2, 4 and 8-byte
//! elements, run only where `simd_level()` (run-time detection, see
//! `simd.rs`) found AVX-512 F, BW and VBMI. Relayouts too large to stay in
//! cache (`kernels::STREAM_MIN_BYTES`) write with streaming stores, in
//! tiles and bands (below); smaller ones with ordinary stores, one block
//! per band (or diagonal), in square tiles where the bands are long
//! ([`blocks_in_cache`]), each block's stores finding their lines in L1
//! ([`prefetch_lines`]).
//!
//! A *block* is `C = 64 / N` source rows by `C` columns: the source rows'
//! 64-byte pieces in, `C` whole 64-byte destination row pieces out. It is
//! read as 64-byte loads (`S` source rows at a time: `S = C` but for
//! bytes, whose 64 rows go in groups of 16), transposed in registers
//! ([`transpose_group`]: in-lane unpacks, then lane shuffles), and
//! written as 64-byte stores; for bytes the 4 register groups of a block
//! are stored whole in a 4 KiB stack buffer first and meet there
//! ([`write_groups`]). Blocks start on the source
//! rows' and the destination rows' 64-byte lines where all rows share
//! their place in a line: every line is then read once, whole, and
//! written whole with a streaming store (no read for ownership). Where the
//! destination rows do not share their place in a line (their length is
//! no multiple of 64 bytes), a large transpose streams them realigned:
//! each line made of the end of one block's row piece and the start of
//! the next ([`bands`]). The partial row blocks around them are
//! written with masked ordinary stores; the columns before and after the
//! aligned ones by one block each that overlaps its aligned neighbour
//! (loads spanning two lines; rows shorter than a block go to the staged
//! tiles).
//!
//! Blocks are visited tile by tile ([`tile_blocks`] blocks of source rows:
//! the tile's source pages stay in the TLB), and within a tile band by
//! band: [`band`] source columns (destination rows) at a time, all the
//! tile's source rows down the band, so that the destination rows of a
//! band are written front to back and the band's source lines are read
//! once each; in large relayouts the next blocks' lines of the band are
//! prefetched, and the blocks go two at a time, one under the other, so
//! that each destination row piece is two adjacent lines streamed one
//! after the other ([`band_blocks`]). Measured on this machine's AMD EPYC
//! before tiles and prefetching (times a plain copy of the same bytes,
//! 64-byte aligned buffers): f32 4096² 1.4–1.5 with
//! bands of 64, 1.9 with 32, 2.4 with 16; f64 2048² 1.06 with 32,
//! 1.07–1.2 with 64, 1.4–1.6 with 128; u8 8192² 2.1 with 64, 2.2–2.5 with
//! 128 to 512; u16 4096² 2.6 with 32, 3.9–8.3 with 64 to 256. Loading
//! 16-byte pieces of 64 source rows 8 KiB apart (one cache set) instead of
//! whole lines measured 2.7–8.4 for u8. A destination 16 bytes off its
//! lines costs the short rows of NCHW→NHWC (256 bytes) most: 2.8–2.9×
//! against 1.3–1.5× aligned.
//!
//! The `unsafe` here: calling the `#[target_feature]` code, and the
//! intrinsics' raw-pointer loads and stores inside the rows and columns
//! one bounds check (`inside`) vouched for.

use core::arch::x86_64::{
    __m512i, _MM_HINT_T0, _mm_prefetch, _mm_sfence, _mm512_loadu_si512, _mm512_mask_storeu_epi8,
    _mm512_permutex2var_epi8, _mm512_permutex2var_epi16, _mm512_permutex2var_epi32,
    _mm512_permutex2var_epi64, _mm512_setzero_si512, _mm512_shuffle_i64x2, _mm512_storeu_si512,
    _mm512_stream_si512, _mm512_unpackhi_epi8, _mm512_unpackhi_epi16, _mm512_unpackhi_epi32,
    _mm512_unpackhi_epi64, _mm512_unpacklo_epi8, _mm512_unpacklo_epi16, _mm512_unpacklo_epi32,
    _mm512_unpacklo_epi64,
};

mod bands;
mod in_cache;
pub(crate) mod packed_squares;
pub(crate) mod tile_blocks;

use bands::{Band, Carries, MAX_BAND, Wrapped, band_blocks, prefetch_rows};
use in_cache::{blocks_in_cache, lines_stay_in_l1, prefetch_lines};

use crate::kernels::block::{Done, SMALL_THRESHOLDS, Transpose, at, step};
use crate::simd::{SimdLevel, simd_level};

/// Transposes the blocks of `t` (see the module docs), if `large` with
/// streaming stores where the destination rows allow 64-byte aligned ones;
/// returns what it wrote, `None` (nothing written) where it does not
/// apply: an element size without blocks, no whole block, or no AVX-512 on
/// this CPU.
pub(crate) fn transpose<const N: usize>(
    src: &[[u8; N]],
    dst: &mut [[u8; N]],
    t: &Transpose,
    large: bool,
) -> Option<Done> {
    if simd_level() < SimdLevel::Avx512 || !matches!(N, 1 | 2 | 4 | 8) {
        return None;
    }
    // SAFETY: `simd_level()` is `Avx512` only if `is_x86_feature_detected!`
    // found AVX-512 F, BW and VBMI on this CPU (forcing can only lower the
    // level), so the instructions `transpose_avx512` was compiled for
    // exist; its own `unsafe` is argued where it is.
    #[allow(unsafe_code)]
    unsafe {
        transpose_avx512::<N>(src, dst, t, large)
    }
}

/// Blocks of source rows per tile: the bands of a tile of this many block
/// rows are done before the next tile, so that a tile's source pages stay
/// in the TLB while its bands pass (1024 source rows for 1-byte elements,
/// 512 for the others). Two under fuzzing and Miri, so that small arrays
/// take several tiles. Measured (times a plain copy, tiles of 16 / 32 / 64
/// blocks / the whole height): f32 4096² 1.43 / 1.34 / 1.28 / 1.51, then
/// in alternating runs 32 blocks 1.33, 1.40 against 64 blocks 1.44, 1.50,
/// 1.52, 1.59; f64 2048² 1.33 / 1.14 / 1.02 / 1.21; u8 8192² 1.93 / 2.22 /
/// 2.48 / 2.69, then 8 blocks 1.91, 16 blocks 1.85–1.97, 32 blocks
/// 2.19–2.39; u16 4096² 1.68 / 1.88 / 2.36 / 3.25; the permutation (2,0,1)
/// of `f32[256,256,256]` 1.23 / 1.14 / 1.03 / 1.26.
const fn tile_blocks(n: usize) -> usize {
    match n {
        _ if SMALL_THRESHOLDS => 2,
        1 | 2 => 16,
        4 => 32,
        _ => 64,
    }
}

/// Source columns (destination rows) per band for `N`-byte elements (see
/// the module docs), whose destination rows are `realigned` through
/// carries or start on lines; one block under fuzzing and Miri, so that
/// small arrays take several bands. Bytes take four blocks a band on
/// lines, two realigned: on the 2-core AMD EPYC (Zen 4), u8[4096,4096]
/// row-major into column-major and back, `relayout_matrix --size large
/// --reps 21`, times the faster copy, seven alternating runs: 1.12–2.14
/// with bands of 256 columns against 1.77–2.48 with 128 (512: 2.12–2.38);
/// `time_relayout` (best of 30, three runs) 1.43–1.62 ms against
/// 1.59–1.96 ms, but rows realigned (u8[4100,4096] into column-major)
/// 2.55–2.98 ms against 2.33–3.11 ms. On the Xeon (48 KiB L1d, 2 MiB L2 a
/// core), u8 8192² took 1.35–1.61 times a copy with bands of 128 columns
/// against 1.66–1.95 with 64, on one thread at 0:0, 16:48 and in `Vec`s,
/// two alternating runs of the peer harness (1.46–1.62 against 1.64–2.16
/// on two threads, one outlier 2.22); 256 measured as 128. Two-byte
/// elements take four blocks a band: on the AMD EPYC, bf16[4096,4096]
/// row-major into column-major and back, `relayout_matrix --size large
/// --reps 9`, times the faster copy, three alternating runs: 1.69–2.04 and
/// 1.75–1.78 with bands of 128 columns, 1.69–2.19 and 1.84–2.03 with 64,
/// 2.04–2.24 and 2.11–2.46 with 32 (256: 1.63–2.45 against 1.51–1.91); f32
/// there 1.52–1.62 and 1.69–1.79 with 64 against 1.77–1.83 and 1.73–1.88
/// with 128.
const fn band(n: usize, realigned: bool) -> usize {
    let block = 64 / n;
    if SMALL_THRESHOLDS {
        block
    } else {
        match n {
            8 => 32,
            4 => 64,
            1 if !realigned => 256,
            _ => 128,
        }
    }
}

#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn transpose_avx512<const N: usize>(
    src: &[[u8; N]],
    dst: &mut [[u8; N]],
    t: &Transpose,
    large: bool,
) -> Option<Done> {
    match N {
        1 => blocks::<N, 16>(src, dst, t, large),
        2 => blocks::<N, 32>(src, dst, t, large),
        4 => blocks::<N, 16>(src, dst, t, large),
        8 => blocks::<N, 8>(src, dst, t, large),
        _ => None,
    }
}

/// The 64-byte aligned scratch where the register groups of a block of
/// bytes meet: each group's `S` registers stored whole, group after group
/// (see [`write_groups`]).
#[repr(align(64))]
struct Lines([[u8; 64]; 64]);

/// The blocks of `t` for `N`-byte elements, `S` source rows per register
/// group.
///
/// One long function on purpose: its pieces as helpers compile to other
/// code. rustc inlines early only callees with the same target features,
/// and refuses `#[inline(always)]` beside `#[target_feature]`, so helpers
/// without the features move the register transposes' inlining to LLVM,
/// and helpers with them stay out of line (measured by disassembly: 2–10%
/// more instructions in each of the four instances).
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn blocks<const N: usize, const S: usize>(
    src: &[[u8; N]],
    dst: &mut [[u8; N]],
    t: &Transpose,
    large: bool,
) -> Option<Done> {
    let c = 64 / N;
    let (a_size, b_size) = (at(t.a.size), at(t.b.size));
    let (src_base, dst_base, row_stride) = (at(t.src_base), at(t.dst_base), at(t.b.dst));
    // Skip `head` source rows so that blocks start destination rows on a
    // 64-byte line (where all destination rows share their place in a
    // line), and `first_col` columns so that they start source rows on one
    // (likewise): no load or store then spans two lines.
    let dst_start = dst.as_ptr().addr().wrapping_add(dst_base.wrapping_mul(N)) % 64;
    let aligned = line_head::<N>(
        dst_start,
        b_size == 1 || row_stride.checked_mul(N)?.is_multiple_of(64),
    );
    let src_start = src.as_ptr().addr().wrapping_add(src_base.wrapping_mul(N)) % 64;
    let src_row_bytes = usize::try_from(t.a.src.unsigned_abs())
        .ok()?
        .checked_mul(N)?;
    let src_shared = a_size == 1 || src_row_bytes.is_multiple_of(64);
    let first_col = line_head::<N>(src_start, src_shared).unwrap_or(0);
    let head = aligned.unwrap_or(0);
    let rows_end = head + a_size.checked_sub(head)? / c * c;
    let cols_end = first_col + b_size.checked_sub(first_col)? / c * c;
    if rows_end == head || cols_end == first_col {
        return None;
    }
    let stream = large && aligned.is_some();
    // In cache: one block per band, ordinary stores, and no software
    // prefetching of the next block's source (its destination lines are:
    // `prefetch_lines`); the whole blocks of 2, 4 and 8-byte elements take
    // `blocks_in_cache`, the rest the whole height per tile. Measured when
    // chosen, times a plain copy, before the plain loop and the diagonals
    // of `blocks_in_cache` (whose docs give today's figures): f32 1024²
    // 2.7–3.2 against 3.2 with bands of 2 blocks, 6.5 with 8, and 3.9–4.6
    // for the staged tiles of `kernels.rs`; u8 1024² 2.8 against 4.8; f64
    // 512² 2.3–2.7 against 3.7–4.3. Prefetching, best of 15 interleaved
    // rounds, without against with: f32 1024² 2.93–2.98 against
    // 3.30–3.33, f32 512² 2.26–2.32 against 2.50–2.55, f64 512² 2.81–2.82
    // against 2.95–3.10, u8 1024² 3.49–3.57 against 4.01–4.04, u16 1024²
    // 3.46–3.47 against 3.85–3.91.
    let (band_n, per_tile) = if large {
        (band(N, aligned.is_none()), tile_blocks(N))
    } else {
        (c, usize::MAX)
    };
    // Every load and store below lies inside these rows and columns.
    if !inside(t, 0..a_size, b_size, src.len(), dst.len()) {
        return None;
    }
    let row_bytes = isize::try_from(t.a.src)
        .ok()?
        .checked_mul(N.cast_signed())?;
    let (src, dst) = (
        src.as_flattened().as_ptr(),
        dst.as_flattened_mut().as_mut_ptr(),
    );
    // Only bytes (`S < c`) meet their register groups in lines
    // (`write_groups`).
    let mut lines = if S < c {
        Some(Lines([[0; 64]; 64]))
    } else {
        None
    };
    // And there, large transposes stream two blocks at a time
    // (`band_blocks`): the second block's lines.
    let mut second = if large && S < c {
        Some(Lines([[0; 64]; 64]))
    } else {
        None
    };
    // Large transposes whose destination rows do not share their place in
    // a line stream them realigned, through a carry a row
    // (`band_blocks`).
    let mut carries = if large && aligned.is_none() {
        Some(Carries([[0; 64]; MAX_BAND]))
    } else {
        None
    };
    // Bands of source columns: the aligned ones, and where the source rows
    // do not start (end) on a line, one block of the first (last) columns,
    // its loads spanning two lines, overlapping the first (last) aligned
    // block: the columns they share are written twice, with the same
    // bytes. Measured (the permutation (2,0,1) of f32[256,256,256], rows
    // of 256 elements, the source 16 or 48 bytes off a line, times a plain
    // copy, best of 9): 1.59–1.63 against 1.74–1.98 with the columns left
    // to the staged tiles.
    let left = (first_col > 0).then_some((0, c));
    let right = (cols_end < b_size && b_size >= c).then_some((b_size - c, b_size));
    let bands = left
        .into_iter()
        .chain(
            (first_col..cols_end)
                .step_by(band_n)
                .map(|b0| (b0, cols_end.min(b0 + band_n))),
        )
        .chain(right);
    // Destination rows back to back, each whole lines but not starting on
    // one (NCHW→NHWC off a line): the partial block of rows at the end of
    // one destination row and the one at the start of the next fill one
    // line together, so they are done as one *wrapped* block (the source
    // rows after `rows_end` at column `j`, then those before `head` at
    // column `j + 1`), written whole, with a streaming store if large.
    // Only the first column's head and the last block of columns (which
    // has no next column) keep the partial blocks. In large transposes
    // `band_blocks` streams the wrapped blocks but the first column's,
    // each with the first whole block of the columns after it (see
    // `Wrapped`). Measured (NCHW→NHWC
    // f32[32,64,56,56], the destination 16, 32 or 48 bytes off a line,
    // times a plain copy, best of 9): see `kernels::streams_whole_lines`.
    let wrap = S == c && head > 0 && row_stride == a_size && a_size.is_multiple_of(c) && b_size > c;
    let tail = a_size - rows_end;
    // Tiles of `per_tile` whole blocks of source rows; the first tile also
    // takes the partial block before `head`, the last the one after
    // `rows_end` (both written with masked ordinary stores). The blocks of
    // a band are counted, not drawn from a chain of iterators (measured:
    // the chain cost 8–10% of an in-cache f32 1024² transpose).
    let tile_rows = per_tile.saturating_mul(c);
    // In cache, the general loop below prefetches the next block's
    // destination lines where they stay in L1 until written.
    let prefetch_out = !large && lines_stay_in_l1(row_stride * N, c);
    // In cache, the whole blocks of the aligned columns of 2, 4 and
    // 8-byte elements take a plain loop of their own first.
    let in_cache = !large && S == c;
    if in_cache {
        // SAFETY: source rows `head..rows_end` (whole blocks) and columns
        // `first_col..cols_end` (whole blocks), and their destination
        // rows, are inside `src` and `dst` (checked by `inside`).
        #[allow(unsafe_code)]
        unsafe {
            blocks_in_cache::<N, S>(
                src.wrapping_add(step(src_base, 0, t.a.src) * N),
                row_bytes,
                dst.add(dst_base * N),
                row_stride * N,
                head..rows_end,
                first_col..cols_end,
            );
        }
    }
    for tile_start in (head..rows_end).step_by(tile_rows) {
        let tile_end = rows_end.min(tile_start.saturating_add(tile_rows));
        let head_block = tile_start == head && head > 0;
        let tail_block = tile_end == rows_end && tail > 0;
        let whole = (tile_end - tile_start) / c;
        // The first group of a band: where its lines start, rows, bytes.
        let first_group = |rows: usize, blocks: usize, (b0, band_end): (usize, usize)| {
            let first = src.wrapping_add(step(src_base, rows, t.a.src) * N + b0 * N);
            (first, blocks.min(2) * c, (band_end - b0) * N)
        };
        let next_tile_blocks = (rows_end.min(tile_end.saturating_add(tile_rows)) - tile_end) / c;
        let mut tile_bands = bands.clone().peekable();
        while let Some((b0, band_end)) = tile_bands.next() {
            // The blocks of the band written here: `head_block`, the whole
            // ones (unless written above), `tail_block`.
            let whole_here = if in_cache && b0 >= first_col && band_end <= cols_end {
                0
            } else if large {
                let band = Band {
                    src: src.wrapping_add(step(src_base, tile_start, t.a.src) * N + b0 * N),
                    row_bytes,
                    dst: dst.wrapping_add((dst_base + b0 * row_stride + tile_start) * N),
                    dst_row_bytes: row_stride * N,
                    blocks: whole,
                    cols: band_end - b0,
                    next: match tile_bands.peek() {
                        Some(&next) => Some(first_group(tile_start, whole, next)),
                        None => (next_tile_blocks > 0)
                            .then(|| bands.clone().next())
                            .flatten()
                            .map(|first| first_group(tile_end, next_tile_blocks, first)),
                    },
                    wrapped: (wrap && tile_start == head).then(|| Wrapped {
                        tail: src.wrapping_add(step(src_base, rows_end, t.a.src) * N + b0 * N),
                        head: src.wrapping_add(step(src_base, 0, t.a.src) * N + b0 * N),
                        rows: tail,
                        first_column: b0 == 0,
                    }),
                };
                // SAFETY: the whole blocks of source rows
                // `tile_start..tile_end` and columns `b0..band_end` (a
                // multiple of `c`), and their destination rows, are
                // inside `src` and `dst` (checked by `inside`), and on
                // lines (`head`) unless realigned through `carries` (the
                // band's columns are at most `MAX_BAND`: `band`).
                #[allow(unsafe_code)]
                unsafe {
                    let scratch = lines.as_mut().zip(second.as_mut());
                    band_blocks::<N, S>(&band, scratch, carries.as_mut());
                }
                0
            } else {
                whole
            };
            let blocks = usize::from(head_block) + whole_here + usize::from(tail_block);
            for k in 0..blocks {
                let (i0, count) = match k.checked_sub(usize::from(head_block)) {
                    None => (0, head),
                    Some(k) if k < whole_here => (tile_start + k * c, c),
                    Some(_) => (rows_end, tail),
                };
                let first_row = step(src_base, i0, t.a.src) * N;
                if large && i0 + count + c <= a_size {
                    // The band's lines of the next block of rows (addresses
                    // only: prefetches never fault).
                    let next = src
                        .wrapping_add(first_row + b0 * N)
                        .wrapping_offset(c.cast_signed() * row_bytes);
                    prefetch_rows(next, row_bytes, c, (band_end - b0) * N);
                }
                // The bytes of each destination row piece to store: all 64, or
                // the first `count · N` (mask bits) of a partial block.
                let mask = (count < c).then(|| u64::MAX >> (64 - count * N));
                for j0 in (b0..band_end).step_by(c) {
                    let first_out = (dst_base + j0 * row_stride + i0) * N;
                    if prefetch_out {
                        // The destination lines of the band's next block.
                        let next = dst.wrapping_add(first_out + c * N);
                        prefetch_lines(next, row_stride * N, c);
                    }
                    let wraps = wrap && j0 + c < b_size;
                    if wraps && i0 == 0 && count == head && j0 > 0 {
                        // Written by the wrapped blocks of the columns before.
                        continue;
                    }
                    if wraps && i0 == rows_end && large && j0 > 0 {
                        // Written by `band_blocks` with the next column's
                        // first whole block.
                        continue;
                    }
                    if wraps && i0 == rows_end {
                        let next_col =
                            src.wrapping_add(step(src_base, 0, t.a.src) * N + (j0 + 1) * N);
                        // SAFETY: the `tail` source rows from `rows_end` at
                        // columns `j0..j0 + c` and the `head` rows from 0 at
                        // columns `j0 + 1..j0 + c + 1` (`j0 + c < b_size`) are
                        // inside `src` (checked by `inside`).
                        #[allow(unsafe_code)]
                        let regs = unsafe {
                            load_wrapped::<S>(
                                src.wrapping_add(first_row + j0 * N),
                                next_col,
                                row_bytes,
                                tail,
                            )
                        };
                        let regs = transpose_group::<N, S>(regs);
                        // SAFETY: destination rows `j0..j0 + c` from column
                        // `rows_end`, 64 bytes each: their last `tail`
                        // elements and the first `head` of the rows after
                        // (`j0 + c < b_size`, rows back to back), inside
                        // `dst` (checked by `inside`), on a line.
                        #[allow(unsafe_code)]
                        unsafe {
                            store_rows(&regs, dst.add(first_out), row_stride * N, stream, None);
                        }
                        continue;
                    }
                    let first = src.wrapping_add(first_row + j0 * N);
                    if let Some(lines) = &mut lines {
                        // SAFETY: source rows `i0..i0 + count` and columns
                        // `j0..j0 + c` are inside `src`, and destination
                        // rows `j0..j0 + c`, 64 bytes from column `i0` each
                        // (`count · N` if masked), inside `dst` (checked by
                        // `inside`), aligned where streamed (`head`).
                        #[allow(unsafe_code)]
                        unsafe {
                            block_groups::<N, S>(first, row_bytes, count, lines);
                        }
                        let out = dst.wrapping_add(first_out);
                        write_groups::<S>(&[lines], |row, _, reg| {
                            // SAFETY: as above, row `row`.
                            #[allow(unsafe_code)]
                            unsafe {
                                store_row(reg, out.add(row * row_stride * N), stream, mask);
                            }
                        });
                    } else {
                        // SAFETY: as above, one group (`S = c`).
                        #[allow(unsafe_code)]
                        unsafe {
                            let regs = if count == S {
                                load_rows::<S>(first, row_bytes)
                            } else {
                                load_some_rows::<S>(first, row_bytes, count)
                            };
                            let regs = transpose_group::<N, S>(regs);
                            store_rows(&regs, dst.add(first_out), row_stride * N, stream, mask);
                        }
                    }
                }
            }
        }
    }
    if large {
        // Streaming stores are weakly ordered: make them visible before
        // the relayout returns (or the next piece's ordinary stores).
        sfence();
    }
    Some(Done {
        rows: 0..a_size,
        cols: left.map_or(first_col, |_| 0)..right.map_or(cols_end, |_| b_size),
    })
}

/// The `C / S` register groups of a block of bytes (`count` source rows
/// of 64 bytes from `first`, `row_bytes` apart; the missing rows of a
/// partial block are zeros), transposed and stored group after group in
/// `lines` (see [`write_groups`]).
///
/// # Safety
///
/// Each of the `count` rows must be 64 readable bytes.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[inline]
#[allow(unsafe_code)]
unsafe fn block_groups<const N: usize, const S: usize>(
    first: *const u8,
    row_bytes: isize,
    count: usize,
    lines: &mut Lines,
) {
    for group in 0..64 / N / S {
        // The group's first row (only formed as an address: a group past
        // `count` reads nothing) and how many of its rows exist.
        let start = first.wrapping_offset((group * S).cast_signed() * row_bytes);
        let rows = count.saturating_sub(group * S).min(S);
        // SAFETY: the caller's contract: the group's `rows` rows.
        let regs = unsafe {
            if rows == S {
                load_rows::<S>(start, row_bytes)
            } else {
                load_some_rows::<S>(start, row_bytes, rows)
            }
        };
        let regs = transpose_group::<N, S>(regs);
        for (line, reg) in lines.0[group * S..].iter_mut().zip(regs) {
            store64(reg, line);
        }
    }
}

/// One whole block of `S = C` elements square: the source rows of 64
/// bytes from `first`, `row_bytes` apart, transposed into destination row
/// pieces of 64 bytes from `out`, `dst_row_bytes` apart, with streaming
/// stores if `stream`.
///
/// # Safety
///
/// Each of those rows must be 64 bytes inside its buffer, and each
/// destination row piece on a line if `stream`.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[inline]
#[allow(unsafe_code)]
unsafe fn whole_block<const N: usize, const S: usize>(
    first: *const u8,
    row_bytes: isize,
    out: *mut u8,
    dst_row_bytes: usize,
    stream: bool,
) {
    // SAFETY: the caller's contract.
    unsafe {
        let regs = load_rows::<S>(first, row_bytes);
        let regs = transpose_group::<N, S>(regs);
        store_rows(&regs, out, dst_row_bytes, stream, None);
    }
}

/// The elements of `N` bytes to skip from a place `start` bytes into a
/// 64-byte line to reach the next line; `None` if the rows concerned do
/// not all share that place (`shared`) or no element starts a line.
fn line_head<const N: usize>(start: usize, shared: bool) -> Option<usize> {
    (shared && start.is_multiple_of(N)).then_some((64 - start) % 64 / N)
}

/// Whether source rows `rows` (indices along `a`) of columns `0..cols` of
/// `t`, and their destination, lie inside buffers of `src_len` and
/// `dst_len` elements. The source rows are evenly spaced, so the first
/// and the last bound them all.
fn inside(
    t: &Transpose,
    rows: core::ops::Range<usize>,
    cols: usize,
    src_len: usize,
    dst_len: usize,
) -> bool {
    let (src_base, dst_base, row_stride) = (at(t.src_base), at(t.dst_base), at(t.b.dst));
    let source_ok = [rows.start, rows.end - 1].into_iter().all(|i| {
        step(src_base, i, t.a.src)
            .checked_add(cols)
            .is_some_and(|end| end <= src_len)
    });
    let last_row = (cols - 1).checked_mul(row_stride);
    let dst_end = last_row.and_then(|r| dst_base.checked_add(r)?.checked_add(rows.end));
    source_ok && dst_end.is_some_and(|end| end <= dst_len)
}

/// Loads `S` rows of 64 bytes, the first at `first`, `stride` bytes apart.
///
/// # Safety
///
/// Each of the `S` rows must be 64 readable bytes.
#[target_feature(enable = "avx512f")]
#[inline]
#[allow(unsafe_code)]
unsafe fn load_rows<const S: usize>(first: *const u8, stride: isize) -> [__m512i; S] {
    let mut regs = [_mm512_setzero_si512(); S];
    let mut row = first;
    for reg in &mut regs {
        // SAFETY: 64 readable bytes (the caller's contract); the row after
        // the last is never read.
        unsafe {
            *reg = _mm512_loadu_si512(row.cast());
            row = row.wrapping_offset(stride);
        }
    }
    regs
}

/// Loads `S` rows of 64 bytes, `stride` bytes apart: `count` from `first`,
/// then `S - count` from `then`.
///
/// # Safety
///
/// Each of those rows must be 64 readable bytes.
#[target_feature(enable = "avx512f")]
#[inline]
#[allow(unsafe_code)]
unsafe fn load_wrapped<const S: usize>(
    first: *const u8,
    then: *const u8,
    stride: isize,
    count: usize,
) -> [__m512i; S] {
    let mut regs = [_mm512_setzero_si512(); S];
    for (k, reg) in regs.iter_mut().enumerate() {
        let row = if k < count {
            first.wrapping_offset(k.cast_signed() * stride)
        } else {
            then.wrapping_offset((k - count).cast_signed() * stride)
        };
        // SAFETY: 64 readable bytes (the caller's contract).
        unsafe {
            *reg = _mm512_loadu_si512(row.cast());
        }
    }
    regs
}

/// Loads the first `count` (below `S`) of `S` rows of 64 bytes, the first
/// at `first`, `stride` bytes apart; the other registers are zero.
///
/// # Safety
///
/// Each of the `count` rows must be 64 readable bytes.
#[target_feature(enable = "avx512f")]
#[allow(unsafe_code)]
unsafe fn load_some_rows<const S: usize>(
    first: *const u8,
    stride: isize,
    count: usize,
) -> [__m512i; S] {
    let mut regs = [_mm512_setzero_si512(); S];
    let mut row = first;
    for reg in regs.iter_mut().take(count) {
        // SAFETY: 64 readable bytes (the caller's contract).
        unsafe {
            *reg = _mm512_loadu_si512(row.cast());
        }
        row = row.wrapping_offset(stride);
    }
    regs
}

/// Stores `regs` as rows of 64 bytes, the first at `first`, `stride` bytes
/// apart: with streaming stores if `stream`, or only the bytes of `mask`
/// (with ordinary stores) if given.
///
/// # Safety
///
/// Each row must be 64 writable bytes (those of `mask` if given), and
/// 64-byte aligned if streamed.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
#[allow(unsafe_code)]
unsafe fn store_rows<const S: usize>(
    regs: &[__m512i; S],
    first: *mut u8,
    stride: usize,
    stream: bool,
    mask: Option<u64>,
) {
    let mut row = first;
    for &reg in regs {
        // SAFETY: the caller's contract.
        unsafe {
            store_row(reg, row, stream, mask);
        }
        row = row.wrapping_add(stride);
    }
}

/// Stores `upper` and `lower` as rows of 128 bytes, the first at `first`,
/// `stride` bytes apart: each row `upper`'s register then `lower`'s, with
/// streaming stores if `stream`.
///
/// # Safety
///
/// Each row must be 128 writable bytes, 64-byte aligned if streamed.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
#[allow(unsafe_code)]
unsafe fn store_pairs<const S: usize>(
    upper: &[__m512i; S],
    lower: &[__m512i; S],
    first: *mut u8,
    stride: usize,
    stream: bool,
) {
    let mut row = first;
    for (&upper, &lower) in upper.iter().zip(lower) {
        // SAFETY: the caller's contract.
        unsafe {
            store_row(upper, row, stream, None);
            store_row(lower, row.add(64), stream, None);
        }
        row = row.wrapping_add(stride);
    }
}

/// Stores `reg` as 64 bytes at `at`, as [`store_rows`] does each row.
///
/// # Safety
///
/// As for [`store_rows`], for the one row.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
#[allow(unsafe_code)]
unsafe fn store_row(reg: __m512i, at: *mut u8, stream: bool, mask: Option<u64>) {
    // SAFETY: the caller's contract.
    unsafe {
        match mask {
            Some(mask) => _mm512_mask_storeu_epi8(at.cast(), mask, reg),
            None if stream => {
                debug_assert!(at.addr().is_multiple_of(64));
                _mm512_stream_si512(at.cast(), reg);
            }
            None => _mm512_storeu_si512(at.cast(), reg),
        }
    }
}

/// The destination row pieces of one block of bytes, or of two one under
/// the other, from their register groups in `blocks` (4 groups of `S =
/// 16` registers each; see [`blocks`]), each handed to `put(row, block,
/// piece)`: a destination row piece is one 16-byte piece from each of the
/// 4 groups, at the same place in their registers, so a transpose of
/// those pieces across the groups' registers makes whole row pieces.
/// Register `k` of a group holds the pieces of rows `k`, `k + 16`, `k +
/// 32` and `k + 48` (see [`unpack_bytes`]). The blocks' pieces of a row
/// come one after the other (see [`band_blocks`]).
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn write_groups<const S: usize>(blocks: &[&Lines], mut put: impl FnMut(usize, usize, __m512i)) {
    for k in 0..S {
        // Each block's 4 row pieces of register `k`.
        let mut pieces = [[_mm512_setzero_si512(); 4]; 2];
        for (rows, lines) in pieces.iter_mut().zip(blocks) {
            let line = |k: usize| load(&lines.0[k]);
            let [a, b, c, d] = [k, S + k, 2 * S + k, 3 * S + k].map(line);
            let (ab_low, ab_high) = (
                _mm512_shuffle_i64x2::<0x44>(a, b),
                _mm512_shuffle_i64x2::<0xEE>(a, b),
            );
            let (cd_low, cd_high) = (
                _mm512_shuffle_i64x2::<0x44>(c, d),
                _mm512_shuffle_i64x2::<0xEE>(c, d),
            );
            *rows = [
                _mm512_shuffle_i64x2::<0x88>(ab_low, cd_low),
                _mm512_shuffle_i64x2::<0xDD>(ab_low, cd_low),
                _mm512_shuffle_i64x2::<0x88>(ab_high, cd_high),
                _mm512_shuffle_i64x2::<0xDD>(ab_high, cd_high),
            ];
        }
        for (q, row) in (k..64).step_by(S).enumerate() {
            for (block, rows) in pieces.iter().take(blocks.len()).enumerate() {
                put(row, block, rows[q]);
            }
        }
    }
}

/// A group of 16 source rows of bytes transposed within each 128-bit lane
/// (four rounds of in-lane unpacks, which this CPU issues faster than the
/// two-table byte permutes): register `k` lane `L` holds column `16 L + k`
/// of the 16 rows, in row order. Measured, with [`write_groups`], against
/// the byte permute rounds and the groups met in `Lines` by 16-byte
/// stores (best of 9, buffers on a line and 16 bytes off, three
/// alternating runs): u8 1024² 49.8–60.7 µs against 76.4–87.0 µs (2.29–2.82
/// times a plain copy against 3.53–4.03), u8 8192² 7.1–8.2 ms against
/// 8.4–9.6 ms; u16 1024² (only `write_groups`) 131–145 µs against 138–154.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
pub(super) fn unpack_bytes<const S: usize>(rows: [__m512i; S]) -> [__m512i; S] {
    let mut out = [_mm512_setzero_si512(); S];
    if S != 16 {
        // Not a byte group: never called so (`blocks` unpacks only 1-byte
        // elements, whose groups are 16 rows).
        return out;
    }
    // Rounds of pairs: after round 1, register `(x, h1)` holds rows `2x`
    // and `2x + 1` interleaved, columns `8 h1..8 h1 + 8` of each lane;
    // each round doubles the rows and halves the columns.
    let pairs: [[__m512i; 2]; 8] = core::array::from_fn(|x| {
        let (a, b) = (rows[2 * x], rows[2 * x + 1]);
        [_mm512_unpacklo_epi8(a, b), _mm512_unpackhi_epi8(a, b)]
    });
    let quads: [[[__m512i; 2]; 2]; 4] = core::array::from_fn(|y| {
        core::array::from_fn(|h1| {
            let (a, b) = (pairs[2 * y][h1], pairs[2 * y + 1][h1]);
            [_mm512_unpacklo_epi16(a, b), _mm512_unpackhi_epi16(a, b)]
        })
    });
    let octets: [[[[__m512i; 2]; 2]; 2]; 2] = core::array::from_fn(|z| {
        core::array::from_fn(|h1| {
            core::array::from_fn(|h2| {
                let (a, b) = (quads[2 * z][h1][h2], quads[2 * z + 1][h1][h2]);
                [_mm512_unpacklo_epi32(a, b), _mm512_unpackhi_epi32(a, b)]
            })
        })
    });
    for (k, pair) in out.chunks_exact_mut(2).enumerate() {
        let (h1, h2, h3) = (k / 4, k / 2 % 2, k % 2);
        let (a, b) = (octets[0][h1][h2][h3], octets[1][h1][h2][h3]);
        pair[0] = _mm512_unpacklo_epi64(a, b);
        pair[1] = _mm512_unpackhi_epi64(a, b);
    }
    out
}

/// A block of 32 rows of 2-byte elements transposed: register `r` of the
/// result holds column `r`, in row order. Three rounds of in-lane unpacks
/// make each 128-bit lane of each group of 8 rows an 8 × 8 transpose,
/// then two rounds of 128-bit lane shuffles move the lanes across the
/// four groups: 160 instructions, all in registers. Measured on the
/// 2-core AMD EPYC (Zen 4) against four rounds of two-table permutes
/// (`vpermt2w`) on groups of 16 rows, met in the stack buffer as bytes'
/// are (fastest of 40 batches of 100 calls ÷ a plain copy, the two builds
/// alternating, two runs): bf16\[256,512\] row-major into column-major
/// 1.55–1.58 against 2.50–2.82, back 1.64 against 2.28–2.29;
/// bf16\[1000,1000\] 2.09–2.17 against 2.79–2.82; bf16\[64,32,128\]
/// `{2,1,0}` into `{1,0,2}` 2.28–2.44 against 2.94–3.15; streamed
/// bf16\[4096,4096\] 1.48–1.52 against 1.42–1.56.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn unpack_words<const S: usize>(rows: [__m512i; S]) -> [__m512i; S] {
    let mut out = [_mm512_setzero_si512(); S];
    if S != 32 {
        // Not a 2-byte block: never called so (`transpose_group`).
        return out;
    }
    // Register `8 g + k` holds, in each lane `L`, column `8 L + k` of rows
    // `8 g..8 g + 8`.
    let mut lanes = [_mm512_setzero_si512(); S];
    for (group, found) in rows.chunks_exact(8).zip(lanes.chunks_exact_mut(8)) {
        // Rows `2x` and `2x + 1` interleaved, the low (`h1 = 0`) or high
        // four columns of each lane.
        let pairs: [[__m512i; 2]; 4] = core::array::from_fn(|x| {
            let (a, b) = (group[2 * x], group[2 * x + 1]);
            [_mm512_unpacklo_epi16(a, b), _mm512_unpackhi_epi16(a, b)]
        });
        // Rows `4y..4y + 4`, columns `4 h1 + 2 h2` and the one after.
        let quads: [[[__m512i; 2]; 2]; 2] = core::array::from_fn(|y| {
            core::array::from_fn(|h1| {
                let (a, b) = (pairs[2 * y][h1], pairs[2 * y + 1][h1]);
                [_mm512_unpacklo_epi32(a, b), _mm512_unpackhi_epi32(a, b)]
            })
        });
        for (k, reg) in found.iter_mut().enumerate() {
            let (a, b) = (quads[0][k / 4][k / 2 % 2], quads[1][k / 4][k / 2 % 2]);
            *reg = unpack::<8>(a, b, k % 2 == 1);
        }
    }
    lanes_to_columns(&lanes, &mut out);
    out
}

/// A block of 16 rows of 4-byte elements transposed: register `r` of the
/// result holds column `r`, in row order. Two rounds of in-lane unpacks
/// make each 128-bit lane a 4 × 4 transpose, then two rounds of 128-bit
/// lane shuffles move the lanes: 64 instructions, as many as the four
/// permute rounds of `vpermt2d`, but cheaper ones where the permutes are
/// slow. Measured on the 2-core AMD EPYC (Zen 4): 15.7 ns a block in L1
/// against 22 ns with the permute rounds; in the engine (alternating
/// builds, fastest call ÷ a plain copy, three runs), f32 256² 8.3–8.4 µs
/// against 9.0–9.3 µs, the streaming f32 4096², permutation (2,0,1) and
/// NCHW→NHWC 5–7% faster (means of six placements and runs). On Intel's
/// cores both kinds issue on the one 512-bit shuffle port (not measured
/// there).
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) fn unpack_dwords<const S: usize>(rows: [__m512i; S]) -> [__m512i; S] {
    let mut out = [_mm512_setzero_si512(); S];
    if S != 16 {
        // Not a 4-byte block: never called so (`transpose_group`).
        return out;
    }
    // Register `2x + h` holds rows `2x` and `2x + 1` interleaved, the low
    // (h = 0) or high two columns of each lane.
    let t: [__m512i; 16] =
        core::array::from_fn(|i| unpack::<4>(rows[i & !1], rows[i | 1], i % 2 == 1));
    // Register `4q + c` holds, in each lane `L`, column `4L + c` of rows
    // `4q..4q + 4`.
    let u: [__m512i; 16] = core::array::from_fn(|i| {
        let (q, c) = (i / 4, i % 4);
        unpack::<8>(t[4 * q + c / 2], t[4 * q + 2 + c / 2], c % 2 == 1)
    });
    // Column `4L + c` is lane `L` of registers `c`, `4 + c`, `8 + c` and
    // `12 + c`.
    lanes_to_columns(&u, &mut out);
    out
}

/// A block of 8 rows of 8-byte elements transposed: register `r` of the
/// result holds column `r`, in row order. One round of in-lane unpacks,
/// then two of 128-bit lane shuffles (as [`unpack_dwords`]): 24
/// instructions, as many as three permute rounds of `vpermt2q`. Measured
/// on the 2-core AMD EPYC: 5.2 ns a block in L1 against 9.7 ns with the
/// permute rounds; in the engine within 3% (f64 128², 512², 2048²).
#[target_feature(enable = "avx512f")]
#[inline]
fn unpack_qwords<const S: usize>(rows: [__m512i; S]) -> [__m512i; S] {
    let mut out = [_mm512_setzero_si512(); S];
    if S != 8 {
        // Not an 8-byte block: never called so (`transpose_group`).
        return out;
    }
    // Register `2x + h` holds, in each lane `L`, column `2L + h` of rows
    // `2x` and `2x + 1`.
    let t: [__m512i; 8] =
        core::array::from_fn(|i| unpack::<8>(rows[i & !1], rows[i | 1], i % 2 == 1));
    // Column `2L + h` is lane `L` of registers `h`, `2 + h`, `4 + h` and
    // `6 + h`.
    lanes_to_columns(&t, &mut out);
    out
}

/// The `W`-byte elements of `a` and `b` interleaved within each 128-bit
/// lane, from the low (`high` false) or high half of each lane
/// (`vpunpckl*`, `vpunpckh*`; `W` 4 or 8).
#[target_feature(enable = "avx512f")]
#[inline]
fn unpack<const W: usize>(a: __m512i, b: __m512i, high: bool) -> __m512i {
    match (W, high) {
        (4, false) => _mm512_unpacklo_epi32(a, b),
        (4, true) => _mm512_unpackhi_epi32(a, b),
        (_, false) => _mm512_unpacklo_epi64(a, b),
        (_, true) => _mm512_unpackhi_epi64(a, b),
    }
}

/// `regs` as four quarters of `k` registers: `out[k L + c]` gets lane `L`
/// of register `c` of each quarter, in order (`c < k`; both slices `4 k`
/// long).
#[target_feature(enable = "avx512f")]
#[inline]
fn lanes_to_columns(regs: &[__m512i], out: &mut [__m512i]) {
    let k = regs.len() / 4;
    for c in 0..k {
        let lanes = transpose_lanes([regs[c], regs[k + c], regs[2 * k + c], regs[3 * k + c]]);
        for (lane, reg) in lanes.into_iter().enumerate() {
            out[k * lane + c] = reg;
        }
    }
}

/// The 128-bit lanes of four registers transposed: register `L` of the
/// result holds lane `L` of each of `regs`, in order.
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) fn transpose_lanes([a, b, x, y]: [__m512i; 4]) -> [__m512i; 4] {
    // Lanes 0 and 2 (`0x88`), 1 and 3 (`0xDD`) of each pair.
    let (ab_even, ab_odd) = (
        _mm512_shuffle_i64x2::<0x88>(a, b),
        _mm512_shuffle_i64x2::<0xDD>(a, b),
    );
    let (xy_even, xy_odd) = (
        _mm512_shuffle_i64x2::<0x88>(x, y),
        _mm512_shuffle_i64x2::<0xDD>(x, y),
    );
    [
        _mm512_shuffle_i64x2::<0x88>(ab_even, xy_even),
        _mm512_shuffle_i64x2::<0x88>(ab_odd, xy_odd),
        _mm512_shuffle_i64x2::<0xDD>(ab_even, xy_even),
        _mm512_shuffle_i64x2::<0xDD>(ab_odd, xy_odd),
    ]
}

/// A register group of `S` source rows transposed, each function saying
/// what its registers then hold: in-lane unpacks for bytes
/// ([`unpack_bytes`]), 4-byte ([`unpack_dwords`]) and 8-byte elements
/// ([`unpack_qwords`]) and 2-byte elements ([`unpack_words`]).
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[inline]
fn transpose_group<const N: usize, const S: usize>(regs: [__m512i; S]) -> [__m512i; S] {
    match N {
        1 => unpack_bytes(regs),
        2 => unpack_words(regs),
        4 => unpack_dwords(regs),
        _ => unpack_qwords(regs),
    }
}

/// The element `index` picks from the 128 bytes of `a` then `b`, element
/// by element of `N` bytes.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[inline]
pub(crate) fn permute<const N: usize>(a: __m512i, index: __m512i, b: __m512i) -> __m512i {
    match N {
        1 => _mm512_permutex2var_epi8(a, index, b),
        2 => _mm512_permutex2var_epi16(a, index, b),
        4 => _mm512_permutex2var_epi32(a, index, b),
        _ => _mm512_permutex2var_epi64(a, index, b),
    }
}

/// Loads 64 bytes.
#[target_feature(enable = "avx512f")]
#[inline]
pub(crate) fn load(bytes: &[u8; 64]) -> __m512i {
    // SAFETY: `bytes` is 64 readable bytes; the load is unaligned.
    #[allow(unsafe_code)]
    unsafe {
        _mm512_loadu_si512(bytes.as_ptr().cast())
    }
}

/// Stores 64 bytes.
#[target_feature(enable = "avx512f")]
#[inline]
fn store64(reg: __m512i, bytes: &mut [u8; 64]) {
    // SAFETY: 64 writable bytes; the store is unaligned.
    #[allow(unsafe_code)]
    unsafe {
        _mm512_storeu_si512(bytes.as_mut_ptr().cast(), reg);
    }
}

/// Orders the streaming stores before every later store (the kernels call
/// it once after their last streaming store).
pub(crate) fn sfence() {
    #[cfg(not(miri))]
    // SAFETY: SSE (every x86_64 CPU has it).
    #[allow(unsafe_code)]
    unsafe {
        _mm_sfence();
    }
}

/// Copies the whole 64-byte lines of `src` into `dst` (which starts on a
/// line) with 64-byte streaming stores, prefetching one line of `next`
/// per line copied; returns the bytes copied (0 without AVX-512: the
/// caller copies them otherwise). The caller fences. Measured on the
/// 2 KiB runs of a 64 MiB reshard (8 sources of rows 16 KiB apart, best
/// of 15): 0.97–1.04× a plain copy of the whole, against 1.23–1.27× with
/// 16-byte streaming stores. The next run is prefetched into L1 (`T0`),
/// unlike the transposes' next block (`T1`, see [`prefetch_rows`]): here
/// prefetching into L2, non-temporally or further ahead measured no
/// better (see `docs/relayout-performance.md`).
pub(crate) fn stream_lines(src: &[u8], dst: &mut [u8], next: &[u8]) -> usize {
    if simd_level() < SimdLevel::Avx512 || !dst.as_ptr().addr().is_multiple_of(64) {
        return 0;
    }
    // SAFETY: `simd_level()` is `Avx512` only where AVX-512 F was
    // detected (see `transpose`); the stores are argued inside.
    #[allow(unsafe_code)]
    unsafe {
        stream_lines_avx512(src, dst, next)
    }
}

#[target_feature(enable = "avx512f")]
fn stream_lines_avx512(src: &[u8], dst: &mut [u8], next: &[u8]) -> usize {
    let mut ahead = next.chunks(64);
    let lines = src
        .as_chunks::<64>()
        .0
        .iter()
        .zip(dst.as_chunks_mut::<64>().0);
    let mut done = 0;
    for (line, out) in lines {
        if let Some(next) = ahead.next() {
            _mm_prefetch::<_MM_HINT_T0>(next.as_ptr().cast());
        }
        let reg = load(line);
        #[cfg(not(miri))]
        // SAFETY: `out` is 64 writable bytes of an exclusive borrow, on a
        // line (`dst` starts on one, and the chunks are 64 bytes).
        #[allow(unsafe_code)]
        unsafe {
            _mm512_stream_si512(out.as_mut_ptr().cast(), reg);
        }
        #[cfg(miri)]
        {
            *out = *line;
        }
        done += 64;
    }
    done
}
