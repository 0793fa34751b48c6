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
//! read as 64-byte loads (`S` source rows at a time, `S = 16`, 8 for 8-byte
//! elements), transposed in registers with `log2(S)` rounds of two-table
//! permutes (`vpermt2w/d/q`, index vectors worked out at compile time by
//! [`round_indices`]; bytes with in-lane unpacks, [`unpack_bytes`]), and
//! written as 64-byte stores; for 1 and 2-byte elements the `C / S`
//! register groups of a block are stored whole in a 4 KiB stack buffer
//! first and meet there ([`write_groups`]). Blocks start on the source
//! rows' and the destination rows' 64-byte lines where all rows share
//! their place in a line: every line is then read once, whole, and
//! written whole with a streaming store (no read for ownership). Where the
//! destination rows do not share their place in a line (their length is
//! no multiple of 64 bytes), a large transpose streams them realigned:
//! each line made of the end of one block's row piece and the start of
//! the next ([`put_piece`]). The partial row blocks around them are
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
    __m512i, _MM_HINT_T0, _MM_HINT_T1, _mm_prefetch, _mm_sfence, _mm512_loadu_si512,
    _mm512_mask_storeu_epi8, _mm512_permutex2var_epi8, _mm512_permutex2var_epi16,
    _mm512_permutex2var_epi32, _mm512_permutex2var_epi64, _mm512_setzero_si512,
    _mm512_shuffle_i64x2, _mm512_storeu_si512, _mm512_stream_si512, _mm512_unpackhi_epi8,
    _mm512_unpackhi_epi16, _mm512_unpackhi_epi32, _mm512_unpackhi_epi64, _mm512_unpacklo_epi8,
    _mm512_unpacklo_epi16, _mm512_unpacklo_epi32, _mm512_unpacklo_epi64,
};

use super::kernels::{Done, SMALL_THRESHOLDS, Transpose, at, step};
use super::simd::{SimdLevel, simd_level};

/// Transposes the blocks of `t` (see the module docs), if `large` with
/// streaming stores where the destination rows allow 64-byte aligned ones;
/// returns what it wrote, `None` (nothing written) where it does not
/// apply: an element size without blocks, no whole block, or no AVX-512 on
/// this CPU.
pub(super) fn transpose<const N: usize>(
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
/// the module docs); one block under fuzzing and Miri, so that small
/// arrays take several bands. Bytes take two blocks a band: on the Xeon
/// (48 KiB L1d, 2 MiB L2 a core), u8 8192² took 1.35–1.61 times a copy
/// with bands of 128 columns against 1.66–1.95 with 64, on one thread at
/// 0:0, 16:48 and in `Vec`s, two alternating runs of the peer harness
/// (1.46–1.62 against 1.64–2.16 on two threads, one outlier 2.22); 256
/// measured as 128.
const fn band(n: usize) -> usize {
    let block = 64 / n;
    if SMALL_THRESHOLDS {
        block
    } else {
        match n {
            8 => 32,
            4 => 64,
            2 => 32,
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
        1 => blocks::<N, 16, 4>(src, dst, t, large),
        2 => blocks::<N, 16, 4>(src, dst, t, large),
        4 => blocks::<N, 16, 4>(src, dst, t, large),
        8 => blocks::<N, 8, 3>(src, dst, t, large),
        _ => None,
    }
}

/// The 64-byte aligned scratch where the register groups of a block of 1
/// or 2-byte elements meet: each group's `S` registers stored whole, group
/// after group (see [`write_groups`]).
#[repr(align(64))]
struct Lines([[u8; 64]; 64]);

/// The blocks of `t` for `N`-byte elements, `S` source rows per register
/// group, `R = log2(S)` permute rounds.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn blocks<const N: usize, const S: usize, const R: usize>(
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
    // `prefetch_lines`); the whole blocks of 4 and 8-byte elements take
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
        (band(N), tile_blocks(N))
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
    let indices = const { round_indices::<N, S, R>() };
    // Only 1 and 2-byte elements (`S < c`) meet their register groups in
    // lines (`write_groups`).
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
    // In cache, the whole blocks of the aligned columns of 4 and 8-byte
    // elements take a plain loop of their own first.
    let in_cache = !large && S == c;
    if in_cache {
        // SAFETY: source rows `head..rows_end` (whole blocks) and columns
        // `first_col..cols_end` (whole blocks), and their destination
        // rows, are inside `src` and `dst` (checked by `inside`).
        #[allow(unsafe_code)]
        unsafe {
            blocks_in_cache::<N, S, R>(
                src.wrapping_add(step(src_base, 0, t.a.src) * N),
                row_bytes,
                dst.add(dst_base * N),
                row_stride * N,
                head..rows_end,
                first_col..cols_end,
                &indices,
            );
        }
    }
    for tile_start in (head..rows_end).step_by(tile_rows) {
        let tile_end = rows_end.min(tile_start.saturating_add(tile_rows));
        let head_block = tile_start == head && head > 0;
        let tail_block = tile_end == rows_end && tail > 0;
        let whole = (tile_end - tile_start) / c;
        for (b0, band_end) in bands.clone() {
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
                    prefetch: (a_size - tile_start) / c - 1,
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
                    band_blocks::<N, S, R>(&band, &indices, scratch, carries.as_mut());
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
                        let regs = permute_rounds::<N, S, R>(regs, &indices);
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
                            block_groups::<N, S, R>(first, row_bytes, count, lines, &indices);
                        }
                        let out = dst.wrapping_add(first_out);
                        write_groups::<N, S>(&[lines], |row, _, reg| {
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
                            let regs = permute_rounds::<N, S, R>(regs, &indices);
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
/// it, in its pass or the next (see [`prefetch_lines`]). The rows start on
/// whole blocks, the columns are a multiple of `C = S` (4 and 8-byte
/// elements). `src` is the transpose's first source element, `row_bytes`
/// apart (either sign); `dst` its first destination element,
/// `dst_row_bytes` apart. A plain loop of its own, so that the compiler
/// keeps the block's addresses in registers.
///
/// Measured, diagonals against bands (best of 15, buffers on a line and
/// 16 bytes off, two runs alternating): f32 1024² 184–197 µs against
/// 204–228, f64 512² 67–72 µs against 101–110; rows 4160 bytes apart
/// (which keep bands) unchanged. The plain loop against the general loop
/// of [`blocks`] (best of 15, times a plain copy): f32 1024² 2.42–2.61
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
unsafe fn blocks_in_cache<const N: usize, const S: usize, const R: usize>(
    src: *const u8,
    row_bytes: isize,
    dst: *mut u8,
    dst_row_bytes: usize,
    rows: core::ops::Range<usize>,
    cols: core::ops::Range<usize>,
    indices: &[[[u8; 64]; 2]; R],
) {
    let c = 64 / N;
    let (row_blocks, col_blocks) = (rows.len() / c, cols.len() / c);
    // Blocks a tile, down and across.
    let tile = if rows.len() > WHOLE_HEIGHT_ROWS {
        CACHE_TILE / c
    } else {
        usize::MAX
    };
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
                    prefetch_lines(next.1, dst_row_bytes, c);
                    // SAFETY: block `(k, j0 + j)` is a whole block of
                    // `rows` and `cols` (`k < row_blocks`, `j < width`),
                    // whose source and destination row pieces of 64
                    // bytes are inside the buffers (the caller's
                    // contract).
                    unsafe {
                        whole_block::<N, S, R>(
                            first,
                            row_bytes,
                            out,
                            dst_row_bytes,
                            false,
                            indices,
                        );
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
/// fastest of 60 calls ÷ a plain copy, one process each, two runs, whole
/// height passes against tiles of 64 / 128 / 192 / 256): f32 1024² 2.20
/// and 1.38 against – / 1.27 / – / 1.30 and 1.29 / 1.31 / 1.29 / –,
/// f64 [1024,512] 2.02 and 1.84 against – / 1.14 / – / 1.28 and 1.21 /
/// 1.06 / 1.11 / –, f64 700² 1.39, 1.21 against 1.19, 1.14 (128), f64
/// [724,1024] 1.36, 1.33 against 1.25, 1.14, f32 [1448,724] 1.60, 1.52
/// against 1.45, 1.37, f32 [4096,256] 1.53 against 1.41, 1.42, f32
/// [1024,768] 1.66, 1.77 against 1.52, 1.61; the same or within 3%
/// elsewhere but for few source rows (see [`WHOLE_HEIGHT_ROWS`]). (Under
/// fuzzing, whose relayouts stay in cache only below 1 KiB, no transpose
/// takes two tiles: `avx512_blocks_and_their_edges` tests them.)
const CACHE_TILE: usize = 128;

/// Transposes in cache down at most this many source rows take passes of
/// the whole height (see [`blocks_in_cache`]): cut to tiles they measured
/// slower (as for [`CACHE_TILE`], whole height against tiles of 128): f64
/// 512² 1.18, 1.15 against 1.24, 1.27, f32 [512,2048] 1.30, 1.16 against
/// 1.45, 1.21, f32 [256,4096] 1.14, 1.12 against 1.16, 1.17.
const WHOLE_HEIGHT_ROWS: usize = 512;

/// Bytes apart, lines of the same L1 data cache set (64 sets of 64-byte
/// lines on every x86-64 CPU with AVX-512): a band's block of source rows
/// this far apart reads all its lines from one set, and walking down the
/// band the next blocks' lines (those the hardware prefetches) land in the
/// same set and evict each other. Measured on this machine's AMD EPYC
/// (4 MiB read down 16-row blocks, one line per row): 175 µs with rows
/// 4096 bytes apart against 43 µs 4160 bytes apart; in diagonals 83 µs.
const SET_PERIOD: usize = 4096;

/// Whole blocks of `C` source rows by `C` columns, down one band of a
/// large transpose (see [`band_blocks`]).
struct Band {
    /// The band's first source element: its first column in the first
    /// block's first row.
    src: *const u8,
    /// From one source row to the next (either sign).
    row_bytes: isize,
    /// Where the first block's first destination row piece goes.
    dst: *mut u8,
    /// From one destination row to the next.
    dst_row_bytes: usize,
    /// Blocks of source rows.
    blocks: usize,
    /// Source columns (destination rows), a multiple of `C`.
    cols: usize,
    /// How many of the blocks prefetch the band's lines of the block of
    /// source rows after them.
    prefetch: usize,
    /// In the first tile of a transpose with wrapped blocks (see
    /// [`blocks`]), where the first block row pairs with them.
    wrapped: Option<Wrapped>,
}

/// The wrapped blocks (see [`blocks`]) that the first whole blocks of a
/// band pair with: in each destination row, the line of the wrapped block
/// of the columns one before the block's comes right before the block's
/// first line, so the two are streamed one after the other (see
/// [`band_blocks`]). Only for 4 and 8-byte elements (`S = C`). Measured
/// (NCHW→NHWC f32[32,64,56,56], one thread, times a plain copy, fastest of
/// 21 calls, two processes, against the wrapped blocks streamed alone, a
/// line a row): the source on a line and the destination 16 bytes off
/// one 0.77–0.81 against 0.91–0.94, both 16 bytes off 0.88–0.98 against
/// 1.02–1.04.
#[derive(Clone, Copy)]
struct Wrapped {
    /// The first source row after the whole blocks, at the band's first
    /// column.
    tail: *const u8,
    /// Source row 0 at the band's first column.
    head: *const u8,
    /// How many source rows are after the whole blocks (the rest of a
    /// wrapped block's `C` come from the next column's first rows).
    rows: usize,
    /// Whether the band starts at the transpose's first column, which has
    /// no wrapped block before it.
    first_column: bool,
}

/// The blocks of `band`, two block rows at a time (one where only one is
/// left), each pair left to right, written with streaming stores:
/// straight to the destination if its rows share their place in a line
/// (the blocks start on lines), else realigned through `carries` (see
/// [`put_piece`]); `scratch` holds the register groups of 1 and 2-byte
/// elements (see [`write_groups`]).
///
/// Two blocks one under the other make `C` destination row pieces of two
/// lines each, stored line after line (see [`stacked_blocks`]): streaming
/// stores to lines scattered one by one (a block's `C` rows apart) go out
/// at about half the rate of those to adjacent pairs. Measured on the
/// Xeon (2-vCPU VM, 64 MiB written with streaming stores, best of 9, three
/// runs): in order 3.3–3.6 ms, one line per 256-byte row down 64 rows
/// 6.0–6.5 ms, two adjacent lines per row 3.5–3.6 ms, one line per row of
/// 64 rows 16 KiB apart 6.1–6.6 ms and two 3.5–3.6 ms, the pair's two
/// lines 16 stores apart 4.8–5.0 ms.
///
/// # Safety
///
/// Every source row piece and destination row piece of the band's blocks
/// must be inside its buffer, and on a line unless `carries` is given
/// (then `band.cols` is at most [`MAX_BAND`]); `scratch` must be given
/// for 1 and 2-byte elements (`S < C`).
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[inline(never)]
#[allow(unsafe_code)]
unsafe fn band_blocks<const N: usize, const S: usize, const R: usize>(
    band: &Band,
    indices: &[[[u8; 64]; 2]; R],
    mut scratch: Option<(&mut Lines, &mut Lines)>,
    mut carries: Option<&mut Carries>,
) {
    let c = 64 / N;
    let mut i0 = 0;
    while i0 < band.blocks {
        // The first block row pairs with the wrapped blocks, if any.
        let wrapped = band.wrapped.filter(|_| i0 == 0 && S == c);
        let stacked = if i0 + 1 < band.blocks && wrapped.is_none() {
            2
        } else {
            1
        };
        let src = band
            .src
            .wrapping_offset((i0 * c).cast_signed() * band.row_bytes);
        // The band's lines of the blocks after these, those that exist.
        let ahead = (band.prefetch + 1)
            .min(i0 + 2 * stacked)
            .saturating_sub(i0 + stacked);
        if ahead > 0 {
            let next = src.wrapping_offset((stacked * c).cast_signed() * band.row_bytes);
            prefetch_rows(next, band.row_bytes, ahead * c, band.cols * N);
        }
        for j0 in (0..band.cols).step_by(c) {
            if let Some(w) = wrapped.filter(|w| j0 > 0 || !w.first_column) {
                // SAFETY: the caller's contract: the block as below, and
                // the wrapped block of the columns from `j0 - 1`, whose
                // destination line is the one before the block's in each
                // row.
                unsafe {
                    let regs = load_wrapped::<S>(
                        w.tail.wrapping_add(j0 * N).wrapping_sub(N),
                        w.head.wrapping_add(j0 * N),
                        band.row_bytes,
                        w.rows,
                    );
                    let before = permute_rounds::<N, S, R>(regs, indices);
                    let regs = load_rows::<S>(src.wrapping_add(j0 * N), band.row_bytes);
                    let block = permute_rounds::<N, S, R>(regs, indices);
                    let out = band.dst.add(j0 * band.dst_row_bytes);
                    store_pairs(&before, &block, out.sub(64), band.dst_row_bytes, true);
                }
                continue;
            }
            let out = Out {
                first: band.dst.wrapping_add(j0 * band.dst_row_bytes + i0 * c * N),
                row_bytes: band.dst_row_bytes,
                carries: carries.as_mut().map(|k| &mut k.0[j0..j0 + c]),
                starting: i0 == 0,
            };
            // SAFETY: the caller's contract: `stacked` blocks of `C`
            // source rows of 64 bytes from column `j0`, destination rows
            // `j0..j0 + C`, `stacked` pieces of 64 bytes each, from the
            // first block's column.
            unsafe {
                stacked_blocks::<N, S, R>(
                    src.wrapping_add(j0 * N),
                    band.row_bytes,
                    out,
                    stacked,
                    indices,
                    scratch.as_mut().map(|(a, b)| (&mut **a, &mut **b)),
                );
            }
        }
        i0 += stacked;
    }
    if let Some(carries) = carries
        && band.blocks > 0
    {
        // Each row's last piece: the part of it on the line after the
        // last one streamed.
        for (r, carry) in carries.0.iter().take(band.cols).enumerate() {
            let last = band
                .dst
                .wrapping_add(r * band.dst_row_bytes + (band.blocks - 1) * 64);
            let place = last.addr() % 64;
            if place > 0 {
                // SAFETY: the caller's contract: the last piece of row `r`
                // is 64 bytes inside the destination.
                unsafe {
                    _mm512_mask_storeu_epi8(last.cast(), !(u64::MAX >> place), load(carry));
                }
            }
        }
    }
}

/// The widest band of a large transpose, in destination rows (128 bytes
/// of the source rows: [`band`] for bytes).
const MAX_BAND: usize = 128;

const _: () = assert!(
    band(1) <= MAX_BAND && band(2) <= MAX_BAND && band(4) <= MAX_BAND && band(8) <= MAX_BAND,
    "every band fits the carries"
);

/// A 64-byte carry for each destination row of a band (see
/// [`put_piece`]).
#[repr(align(64))]
struct Carries([[u8; 64]; MAX_BAND]);

/// Where [`stacked_blocks`] writes: row pieces `row_bytes` apart from
/// `first`, straight, or through `carries` (one a row) if given.
struct Out<'a> {
    /// The first row's first piece.
    first: *mut u8,
    /// From one row to the next.
    row_bytes: usize,
    /// The rows' carries, where the rows do not start on lines.
    carries: Option<&'a mut [[u8; 64]]>,
    /// Whether these are the first pieces of the rows in this band.
    starting: bool,
}

impl Out<'_> {
    /// Writes `reg` as piece `piece` (0 or 1: the two blocks of a pair)
    /// of row `row` (see [`put_piece`]).
    ///
    /// # Safety
    ///
    /// The piece must be 64 bytes inside the destination, on a line
    /// unless there are carries (then `row` below their count).
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    #[inline]
    #[allow(unsafe_code)]
    unsafe fn put(&mut self, row: usize, piece: usize, reg: __m512i) {
        let at = self.first.wrapping_add(row * self.row_bytes + piece * 64);
        // SAFETY: the caller's contract.
        unsafe {
            match &mut self.carries {
                None => store_row(reg, at, true, None),
                Some(carries) => put_piece(reg, at, &mut carries[row], self.starting && piece == 0),
            }
        }
    }
}

/// Writes `reg`, a destination row piece of 64 bytes at `at` that need
/// not start on a line, with a streaming store of the whole line it
/// starts in: the end of the row's previous piece (its `carry`) then the
/// start of this one, bytes shifted with a two-table byte permute
/// ([`SHIFTS`]). The row's first piece in a band (`first`) writes its
/// part of its first line with a masked ordinary store instead (the line
/// is shared with what comes before it), and [`band_blocks`] writes the
/// last piece's part of the line after the last one. `reg` becomes the
/// carry. Measured on the Xeon (2-vCPU VM, one thread, times a plain copy,
/// best of 9, against the ordinary stores these rows had before): f32
/// [1000,3000] 1.60 against 4.15, [3000,1000] 1.64 against 3.67,
/// [4104,4096] 1.33 against 2.97; f64 [2050,2050] 1.31 against 2.59; u8
/// [8200,8192] 1.90 against 3.61; u16 [4100,4096] 2.40 against 4.22.
///
/// # Safety
///
/// The 64 bytes at `at` must be inside the destination, and (unless
/// `first`) the row's previous piece must be the 64 bytes before them,
/// held in `carry`.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[inline]
#[allow(unsafe_code)]
unsafe fn put_piece(reg: __m512i, at: *mut u8, carry: &mut [u8; 64], first: bool) {
    let place = at.addr() % 64;
    // SAFETY: the caller's contract: the line from `at - place` holds
    // the previous piece's last `place` bytes and this one's first.
    unsafe {
        if first {
            _mm512_mask_storeu_epi8(at.cast(), u64::MAX >> place, reg);
        } else {
            let line = permute::<1>(load(carry), load(&SHIFTS[place]), reg);
            _mm512_stream_si512(at.sub(place).cast(), line);
        }
    }
    store64(reg, carry);
}

/// For each place `p` in a line, the byte permute indices that make the
/// line starting `p` bytes before a piece from the previous piece (first
/// table) and the piece (second): byte `k` is byte `64 - p + k` of the
/// two.
const SHIFTS: [[u8; 64]; 64] = {
    let mut shifts = [[0; 64]; 64];
    let mut p = 0;
    while p < 64 {
        let mut k = 0;
        while k < 64 {
            shifts[p][k] = (64 - p + k) as u8;
            k += 1;
        }
        p += 1;
    }
    shifts
};

/// `stacked` (1 or 2) whole blocks, one under the other: source rows of
/// 64 bytes from `first`, `row_bytes` apart (the second block's `C` rows
/// further), transposed into `C` destination row pieces of `64 ·
/// stacked` bytes, written through `out` line after line. 1 and 2-byte
/// elements meet their register groups in `scratch` (one `Lines` a
/// block).
///
/// # Safety
///
/// Each of those rows must be inside its buffer, as for [`Out::put`];
/// `scratch` must be given if `S < C`.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[inline]
#[allow(unsafe_code)]
unsafe fn stacked_blocks<const N: usize, const S: usize, const R: usize>(
    first: *const u8,
    row_bytes: isize,
    mut out: Out<'_>,
    stacked: usize,
    indices: &[[[u8; 64]; 2]; R],
    scratch: Option<(&mut Lines, &mut Lines)>,
) {
    let c = 64 / N;
    let second = first.wrapping_offset(c.cast_signed() * row_bytes);
    if S == c {
        // SAFETY: the caller's contract (the second block's rows only
        // where `stacked` is 2).
        unsafe {
            let upper = permute_rounds::<N, S, R>(load_rows::<S>(first, row_bytes), indices);
            if stacked == 1 {
                for (row, &reg) in upper.iter().enumerate() {
                    out.put(row, 0, reg);
                }
                return;
            }
            let lower = permute_rounds::<N, S, R>(load_rows::<S>(second, row_bytes), indices);
            for (row, (&upper, &lower)) in upper.iter().zip(&lower).enumerate() {
                out.put(row, 0, upper);
                out.put(row, 1, lower);
            }
        }
    } else if let Some((upper, lower)) = scratch {
        // SAFETY: the caller's contract.
        unsafe {
            block_groups::<N, S, R>(first, row_bytes, c, upper, indices);
            if stacked == 2 {
                block_groups::<N, S, R>(second, row_bytes, c, lower, indices);
            }
        }
        let blocks: &[&Lines] = if stacked == 1 {
            &[upper]
        } else {
            &[upper, lower]
        };
        // SAFETY: the caller's contract, for each piece.
        write_groups::<N, S>(blocks, |row, piece, reg| unsafe {
            out.put(row, piece, reg)
        });
    }
}

/// The `C / S` register groups of a block of 1 or 2-byte elements (`count`
/// source rows of 64 bytes from `first`, `row_bytes` apart; the missing
/// rows of a partial block are zeros), transposed and stored group after
/// group in `lines` (see [`write_groups`]).
///
/// # Safety
///
/// Each of the `count` rows must be 64 readable bytes.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[inline]
#[allow(unsafe_code)]
unsafe fn block_groups<const N: usize, const S: usize, const R: usize>(
    first: *const u8,
    row_bytes: isize,
    count: usize,
    lines: &mut Lines,
    indices: &[[[u8; 64]; 2]; R],
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
        let regs = if N == 1 {
            unpack_bytes(regs)
        } else {
            permute_rounds::<N, S, R>(regs, indices)
        };
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
unsafe fn whole_block<const N: usize, const S: usize, const R: usize>(
    first: *const u8,
    row_bytes: isize,
    out: *mut u8,
    dst_row_bytes: usize,
    stream: bool,
    indices: &[[[u8; 64]; 2]; R],
) {
    // SAFETY: the caller's contract.
    unsafe {
        let regs = load_rows::<S>(first, row_bytes);
        let regs = permute_rounds::<N, S, R>(regs, indices);
        store_rows(&regs, out, dst_row_bytes, stream, None);
    }
}

/// Prefetches `bytes` bytes of each of `rows` rows, the first at `first`,
/// `stride` bytes apart (a hint: never faults, whatever the addresses),
/// into L2 (`T1`): a `T0` prefetch waits for one of L1's few miss buffers,
/// stalling the loads and stores of the block in flight. Measured (times
/// a plain copy, best of 5, buffers on a line and 16 bytes off, `T1`
/// against `T0` in alternating runs): f32 4096² 1.12–1.30 against
/// 1.32–1.43, the permutation (2,0,1) 1.01–1.35 against 1.54–1.70,
/// NCHW→NHWC 0.84–1.07 against 1.19–1.33, u8 8192² 1.61–2.05 against
/// 1.94–2.10; `NTA` 1.17–1.42, 1.45–1.60, 1.07–1.32, 1.83–2.20; two blocks
/// ahead instead of one: no better.
#[target_feature(enable = "avx512f")]
fn prefetch_rows(first: *const u8, stride: isize, rows: usize, bytes: usize) {
    let mut row = first;
    for _ in 0..rows {
        // Every line the row's bytes touch: one more where they start
        // inside a line (measured, u16 [4096,4100], whose source rows
        // start anywhere in a line: 1.53–1.74 times a copy against
        // 2.55–2.63 with the row's first line only).
        let place = row.addr() % 64;
        let line = row.wrapping_sub(place);
        for offset in (0..place + bytes).step_by(64) {
            _mm_prefetch::<_MM_HINT_T1>(line.wrapping_add(offset).cast());
        }
        row = row.wrapping_offset(stride);
    }
}

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
/// (256 KiB) measured 2–4% slower, f64 128² the same. Into L2 (`T1`) measured slower
/// than into L1; two blocks ahead, no better. (`PREFETCHW` needs the
/// `prfchw` target feature, not stable in Rust yet: without it
/// `_MM_HINT_ET0` compiles to this same `prefetcht0`.)
#[target_feature(enable = "avx512f")]
fn prefetch_lines(first: *const u8, stride: usize, rows: usize) {
    let mut row = first;
    for _ in 0..rows {
        _mm_prefetch::<_MM_HINT_T0>(row.cast());
        row = row.wrapping_add(stride);
    }
}

/// Whether the lines of `rows` rows `stride` bytes apart (one line each)
/// can stay in L1 beside those of the block in flight: at most half the
/// [`L1_WAYS`] of any one of its 64 sets. Measured with the general loop
/// of [`blocks`] prefetching (best quarter of 41 calls, times a plain
/// copy, at 0:0 and 16:16): u8 512² and u16 512² (8 lines a set) 3.21–3.99
/// and 3.54–4.13 against 2.94–3.67 and 3.24–3.81 without; u8 1024² and
/// u16 1024² (16 a set) 2.51–2.84 and 2.39–2.57 against 2.53–2.76 and
/// 2.36–2.46; u8 2048² (32) 2.16–2.32 against 2.04–2.19; rows that start
/// mid-line gain (u8 724², 1000², 1448², u16 362², 1000²: see
/// [`prefetch_lines`]).
fn lines_stay_in_l1(stride: usize, rows: usize) -> bool {
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

/// The destination row pieces of one block of 1 or 2-byte elements, or
/// of two one under the other, from their register groups in `blocks`
/// (`C / S` groups of `S` registers each; see [`blocks`]), each handed to
/// `put(row, block, piece)`: a destination row piece is one 16-byte
/// (32-byte) piece from each of the 4 (2) groups, at the same place in
/// their registers, so a transpose of those pieces across the groups'
/// registers makes whole row pieces. For bytes, register `k` of a group
/// holds the pieces of rows `k`, `k + 16`, `k + 32` and `k + 48` (see
/// [`unpack_bytes`]); for 2-byte elements, register `r` those of rows `2r`
/// and `2r + 1` (see [`round_indices`]). The blocks' pieces of a row come
/// one after the other (see [`band_blocks`]).
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn write_groups<const N: usize, const S: usize>(
    blocks: &[&Lines],
    mut put: impl FnMut(usize, usize, __m512i),
) {
    for k in 0..S {
        // Each block's row pieces of register `k`: 4 for bytes, 2 for
        // 2-byte elements.
        let mut pieces = [[_mm512_setzero_si512(); 4]; 2];
        for (rows, lines) in pieces.iter_mut().zip(blocks) {
            let line = |k: usize| load(&lines.0[k]);
            *rows = if N == 1 {
                let [a, b, c, d] = [k, S + k, 2 * S + k, 3 * S + k].map(line);
                let (ab_low, ab_high) = (
                    _mm512_shuffle_i64x2::<0x44>(a, b),
                    _mm512_shuffle_i64x2::<0xEE>(a, b),
                );
                let (cd_low, cd_high) = (
                    _mm512_shuffle_i64x2::<0x44>(c, d),
                    _mm512_shuffle_i64x2::<0xEE>(c, d),
                );
                [
                    _mm512_shuffle_i64x2::<0x88>(ab_low, cd_low),
                    _mm512_shuffle_i64x2::<0xDD>(ab_low, cd_low),
                    _mm512_shuffle_i64x2::<0x88>(ab_high, cd_high),
                    _mm512_shuffle_i64x2::<0xDD>(ab_high, cd_high),
                ]
            } else {
                let [a, b] = [k, S + k].map(line);
                let zero = _mm512_setzero_si512();
                [
                    _mm512_shuffle_i64x2::<0x44>(a, b),
                    _mm512_shuffle_i64x2::<0xEE>(a, b),
                    zero,
                    zero,
                ]
            };
        }
        for q in 0..64 / N / S {
            let row = if N == 1 { k + S * q } else { 2 * k + q };
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
fn unpack_bytes<const S: usize>(rows: [__m512i; S]) -> [__m512i; S] {
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

/// The `R` permute rounds: round `k` makes registers `2i` and `2i + 1`
/// from registers `i` and `i + S/2` with the round's two index vectors.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[inline]
fn permute_rounds<const N: usize, const S: usize, const R: usize>(
    mut regs: [__m512i; S],
    indices: &[[[u8; 64]; 2]; R],
) -> [__m512i; S] {
    for [low, high] in indices {
        let (low, high) = (load(low), load(high));
        let old = regs;
        for i in 0..S / 2 {
            let (x, y) = (old[i], old[i + S / 2]);
            regs[2 * i] = permute::<N>(x, low, y);
            regs[2 * i + 1] = permute::<N>(x, high, y);
        }
    }
    regs
}

/// The element `index` picks from the 128 bytes of `a` then `b`, element
/// by element of `N` bytes.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[inline]
pub(super) fn permute<const N: usize>(a: __m512i, index: __m512i, b: __m512i) -> __m512i {
    match N {
        1 => _mm512_permutex2var_epi8(a, index, b),
        2 => _mm512_permutex2var_epi16(a, index, b),
        4 => _mm512_permutex2var_epi32(a, index, b),
        _ => _mm512_permutex2var_epi64(a, index, b),
    }
}

/// The index vectors of the permute rounds transposing `S` registers, each
/// one source row of `C = 64 / N` elements, into `S` registers where
/// register `r` holds the `P = C / S` destination rows (source columns)
/// `r · P..r · P + P`, each as its `S` elements in source row order.
///
/// Worked out by following every element: round `k` sends to register
/// `2i + h` the elements of registers `i` and `i + S/2` whose column has
/// bit `C / 2^(k+1)` equal to `h`, ordered by (column, row). The rounds
/// thus sort the columns' high bits into the register number; after
/// `log2(S)` rounds each register holds its `P` columns in order. Every
/// register pair needs the same indices (checked: compilation fails
/// otherwise, as it does if the result is not the transpose). All zeros
/// for the sizes without blocks (never used: see [`transpose_avx512`]).
const fn round_indices<const N: usize, const S: usize, const R: usize>() -> [[[u8; 64]; 2]; R] {
    let mut indices = [[[0_u8; 64]; 2]; R];
    if !matches!(N, 1 | 2 | 4 | 8) || S > 64 / N || 1 << R != S {
        return indices;
    }
    let c = 64 / N;
    // (column, row) of the element at each place of each register.
    let mut at = [[(0_usize, 0_usize); 64]; 16];
    let mut r = 0;
    while r < S {
        let mut place = 0;
        while place < c {
            at[r][place] = (place, r);
            place += 1;
        }
        r += 1;
    }
    let mut round = 0;
    while round < R {
        let bit = c >> (round + 1);
        let mut next = [[(0_usize, 0_usize); 64]; 16];
        let mut i = 0;
        while i < S / 2 {
            let mut h = 0;
            while h < 2 {
                // The chosen elements as (column, row, index into a ++ b).
                let mut chosen = [(0_usize, 0_usize, 0_usize); 64];
                let mut count = 0;
                let mut side = 0;
                while side < 2 {
                    let mut place = 0;
                    while place < c {
                        let (column, row) = at[i + side * (S / 2)][place];
                        if (column & bit != 0) == (h == 1) {
                            chosen[count] = (column, row, side * c + place);
                            count += 1;
                        }
                        place += 1;
                    }
                    side += 1;
                }
                // Insertion sort by (column, row).
                let mut k = 1;
                while k < count {
                    let mut m = k;
                    while m > 0
                        && (chosen[m - 1].0 > chosen[m].0
                            || (chosen[m - 1].0 == chosen[m].0 && chosen[m - 1].1 > chosen[m].1))
                    {
                        let moved = chosen[m - 1];
                        chosen[m - 1] = chosen[m];
                        chosen[m] = moved;
                        m -= 1;
                    }
                    k += 1;
                }
                assert!(count == c, "a round keeps every element");
                let mut place = 0;
                while place < c {
                    next[2 * i + h][place] = (chosen[place].0, chosen[place].1);
                    // The index, little-endian in the element's N bytes
                    // (at most 127: one byte).
                    let mut byte = 0;
                    while byte < N {
                        let value = if byte == 0 { chosen[place].2 as u8 } else { 0 };
                        let slot = &mut indices[round][h][place * N + byte];
                        assert!(i == 0 || *slot == value, "register pairs share indices");
                        *slot = value;
                        byte += 1;
                    }
                    place += 1;
                }
                h += 1;
            }
            i += 1;
        }
        at = next;
        round += 1;
    }
    let p = c / S;
    let mut r = 0;
    while r < S {
        let mut place = 0;
        while place < c {
            assert!(
                at[r][place].0 == r * p + place / S,
                "the columns end in order"
            );
            assert!(at[r][place].1 == place % S, "the rows end in order");
            place += 1;
        }
        r += 1;
    }
    indices
}

/// Loads 64 bytes.
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) fn load(bytes: &[u8; 64]) -> __m512i {
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
pub(super) fn sfence() {
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
pub(super) fn stream_lines(src: &[u8], dst: &mut [u8], next: &[u8]) -> usize {
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
