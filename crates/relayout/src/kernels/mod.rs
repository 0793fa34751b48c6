//! The copy kernels, generic over the element size `N` (elements are
//! `[u8; N]`, so any alignment works in safe code). Offsets were validated
//! against both buffers before a kernel runs.

mod block;
mod tile_transpose;
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
pub(crate) mod x86;

use crate::plan::{Dim, Plan, Strategy};
use crate::simd::{SimdLevel, simd_level};
pub(crate) use block::SMALL_THRESHOLDS;
use block::{Blocks, NextRows, Strip, Transpose, at, step};
pub(crate) use tile_transpose::{Axis, TileTranspose, split_axes};

/// Calls `f(src_offset, dst_offset)` for every index of `dims` (outermost
/// first), starting at `(src, dst)`, with incremental offsets.
pub(super) fn for_each_outer(dims: &[Dim], src: i64, dst: i64, mut f: impl FnMut(i64, i64)) {
    let mut index = vec![0_i64; dims.len()];
    let (mut s, mut d) = (src, dst);
    loop {
        f(s, d);
        let mut k = dims.len();
        loop {
            if k == 0 {
                return;
            }
            k -= 1;
            index[k] += 1;
            // Past the end these may leave the valid range; they are
            // rewound before use.
            s = s.wrapping_add(dims[k].src);
            d = d.wrapping_add(dims[k].dst);
            if index[k] < dims[k].size {
                break;
            }
            index[k] = 0;
            s = s.wrapping_sub(dims[k].size.wrapping_mul(dims[k].src));
            d = d.wrapping_sub(dims[k].size.wrapping_mul(dims[k].dst));
        }
    }
}

/// The tile of a transpose whose source has `a_size` rows (each becoming a
/// destination column) of `b_size` elements of `N` bytes: `(rows, row
/// length)`. At most 256 KiB (it stays in L2 while its destination rows
/// fill), at most 256 source rows (512 for bytes) so that destination row
/// segments are 1 KiB or 512 bytes, at most 512 elements per source row.
/// Measured (ratios to a plain copy, noisy shared machine): f32 4096² with
/// 256×256 tiles 1.8–2.1, 128×256 or 256×512 no better; NCHW→NHWC
/// (64 source rows) 64×512 1.55–1.7, 64×256 1.6–1.8, 64×1024 2.2; u8 8192²
/// 512×512 3.0–3.3, 256×1024, 1024×256 or 1024×1024 no better.
pub(crate) fn tile_extent(n: usize, a_size: usize, b_size: usize) -> (usize, usize) {
    // Under fuzzing and Miri, tiles of 32 (u8) or 16 rows of at most 32
    // elements, so that small arrays take several tiles and still whole
    // AVX2 register blocks (32 × 32 bytes).
    let (tile_bytes, max_rows, max_row_len) = if SMALL_THRESHOLDS {
        (1024, if n == 1 { 32 } else { 16 }, 32)
    } else {
        (256 * 1024, if n == 1 { 512 } else { 256 }, 512)
    };
    let rows = a_size.min(max_rows);
    let row_len = b_size
        .min(max_row_len)
        .min(tile_bytes / n.max(1) / rows.max(1));
    (rows, row_len.max(1))
}

/// Tiles of at most this many source rows prefetch the next tile's source
/// while they are written. Measured: NCHW→NHWC f32 (64 rows) 5–13% faster;
/// the 4096² f32 (256 rows) 10–40% and u8 8192² (512 rows) up to 15%
/// slower (the prefetched lines evict the tile from L2). Under fuzzing and
/// Miri 16, so that u8 tiles do not prefetch and others do.
const PREFETCH_MAX_ROWS: usize = if SMALL_THRESHOLDS { 16 } else { 64 };

/// Padding to write right after each destination row (the innermost
/// dimension, stride 1): `count` copies of `element`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tail<const N: usize> {
    pub(crate) element: [u8; N],
    pub(crate) count: usize,
}

impl<const N: usize> Tail<N> {
    /// Fills the tail of the row ending just before `row_end`.
    fn write(&self, dst: &mut [[u8; N]], row_end: usize) {
        dst[row_end..row_end + self.count].fill(self.element);
    }
}

/// Copies the elements of `plan` from `src` to `dst`, writing `tail` after
/// every destination row if given (the caller checked that the innermost
/// dimension of the plan is the destination's row). `large`: whether the
/// relayout (of which `plan` may be one thread's part) is too large to
/// stay in cache (see [`is_large`]).
pub(crate) fn copy<const N: usize>(
    plan: &Plan,
    src: &[[u8; N]],
    dst: &mut [[u8; N]],
    tail: Option<Tail<N>>,
    large: bool,
) {
    let (strategy, tiled_dim) = strategy::<N>(plan, large);
    let Some((&inner, outer)) = plan.dims.split_last() else {
        // Rank 0 (after dropping size-1 dimensions): one element.
        dst[at(plan.dst_offset)] = src[at(plan.src_offset)];
        return;
    };
    match strategy {
        // Never a kernel's strategy: only whole plans compose or take
        // tiles, and tile transposes are found before (`TileTranspose`).
        Strategy::Empty
        | Strategy::Elements
        | Strategy::TilePieces
        | Strategy::Composed
        | Strategy::TileTranspose
        | Strategy::NibblePairs => {}
        Strategy::SingleCopy | Strategy::Runs => copy_runs(plan, src, dst, tail, large),
        Strategy::Tiled | Strategy::Streaming => {
            let streaming = strategy == Strategy::Streaming;
            copy_tiled(plan, (src, dst), tail, large, (streaming, tiled_dim));
        }
        Strategy::Strided => {
            let n = at(inner.size);
            for_each_outer(outer, plan.src_offset, plan.dst_offset, |s, d| {
                let (mut s_k, mut d_k) = (s, d);
                for _ in 0..inner.size {
                    dst[at(d_k)] = src[at(s_k)];
                    s_k = s_k.wrapping_add(inner.src);
                    d_k = d_k.wrapping_add(inner.dst);
                }
                if let Some(tail) = &tail {
                    tail.write(dst, at(d) + n);
                }
            });
        }
    }
}

/// [`copy`] of a plan of one run or runs of its innermost dimension (at
/// least rank 1): a memcpy per run, streaming where [`runs_stream`] says.
fn copy_runs<const N: usize>(
    plan: &Plan,
    src: &[[u8; N]],
    dst: &mut [[u8; N]],
    tail: Option<Tail<N>>,
    large: bool,
) {
    let Some((inner, outer)) = plan.dims.split_last() else {
        return;
    };
    let n = at(inner.size);
    if large && runs_stream::<N>(dst, plan, tail.as_ref().map_or(0, |tail| tail.count)) {
        stream_runs(src, dst, plan, n, tail.as_ref());
    } else {
        for_each_outer(outer, plan.src_offset, plan.dst_offset, |s, d| {
            let (s, d) = (at(s), at(d));
            dst[d..d + n].copy_from_slice(&src[s..s + n]);
            if let Some(tail) = &tail {
                tail.write(dst, d + n);
            }
        });
    }
}

/// [`copy`] of a transpose (at least rank 1): the innermost dimension
/// against `tiled_dim`, tile by tile for each index of the others, by the
/// AVX-512 blocks where they apply, the SSE2 streaming kernel where the
/// plan is `streaming` and that kernel takes it, else through staged
/// tiles.
fn copy_tiled<const N: usize>(
    plan: &Plan,
    (src, dst): (&[[u8; N]], &mut [[u8; N]]),
    tail: Option<Tail<N>>,
    large: bool,
    (streaming, tiled_dim): (bool, usize),
) {
    let a = plan.dims.len() - 1;
    let n = at(plan.dims[a].size);
    let others: Vec<Dim> = plan
        .dims
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != a && i != tiled_dim)
        .map(|(_, d)| *d)
        .collect();
    let (da, db) = (plan.dims[a], plan.dims[tiled_dim]);
    let extent = tile_extent(N, at(da.size), at(db.size));
    let sse2_streams = streaming && sse2_streams::<N>(da);
    // The staged tiles' buffer (up to 256 KiB), made when first
    // needed: the AVX-512 blocks may leave nothing to them, and
    // zeroing it every call cost more than the transpose in L2.
    // Measured on the 2-core AMD EPYC (fastest of 30–40 batches,
    // three runs, made every call against when needed): f32 64²
    // 0.7 against 0.4–0.5 µs, f32 256² 8.3–8.9 against 5.6–6.1 µs,
    // f64 512² 69–70 against 66–67 µs (buffers on a line).
    let mut tile = Vec::new();
    let mut staged = |src: &[[u8; N]], dst: &mut [[u8; N]], t: &Transpose| {
        if tile.is_empty() {
            tile = vec![[0_u8; N]; extent.0 * extent.1.next_multiple_of(16)];
        }
        transpose_tiles(src, dst, t, &mut tile, extent);
    };
    for_each_outer(&others, plan.src_offset, plan.dst_offset, |s, d| {
        let t = Transpose {
            src_base: s,
            dst_base: d,
            a: da,
            b: db,
        };
        let blocks = if sse2_streams && !streams_whole_lines::<N>(dst, d, da, db) {
            None
        } else {
            avx512_blocks(src, dst, &t, large)
        };
        match blocks {
            Some(done) => {
                for rest in done.rest(&t) {
                    staged(src, dst, &rest);
                }
            }
            None if sse2_streams => transpose_streaming(src, dst, s, d, da, db),
            None => staged(src, dst, &t),
        }
        if let Some(tail) = &tail {
            // One row per index of the tiled source dimension.
            let mut row = d;
            for _ in 0..db.size {
                tail.write(dst, at(row) + n);
                row += db.dst;
            }
        }
    });
}

/// Whether the runs of a large relayout `plan` (one run, or runs of the
/// innermost dimension), each followed by `tail` elements of padding, are
/// written with streaming stores: where the target has them and either
/// every run and every tail is whole cache lines, or (without tails) the
/// runs fill the destination without gaps from a 16-byte aligned start
/// (each run then completes the lines the one before left partial, in the
/// write-combining buffers). A run that ends inside a line
/// otherwise would leave it to an ordinary store later, which stalls
/// behind the streaming ones. Measured (2 KiB runs of a 64 MiB copy, this
/// machine's AMD EPYC, best of 15): 0.70× a plain `copy_from_slice` of the
/// whole, against 2.3× with ordinary stores; f32[4096,4096] row-major into
/// rows padded by 64 elements (`relayout_matrix --size large --reps 9`,
/// times the faster copy, two runs): 1.05–1.07 with the tails streamed
/// too, against 1.50–1.57 with runs and tails written by ordinary stores.
pub(super) fn runs_stream<const N: usize>(dst: &[[u8; N]], plan: &Plan, tail: usize) -> bool {
    let start = (dst.as_ptr() as usize).wrapping_add(at(plan.dst_offset).wrapping_mul(N));
    let lines = |elements: i64| at(elements).wrapping_mul(N).is_multiple_of(64);
    let Some(tail) = i64::try_from(tail).ok() else {
        return false;
    };
    // A destination row: a run and its tail.
    let mut filled = 1_i64;
    let gapless = plan.dims.iter().rev().enumerate().all(|(k, dim)| {
        let next = dim.dst == filled;
        let row = if k == 0 {
            dim.size.saturating_add(tail)
        } else {
            dim.size
        };
        filled = filled.saturating_mul(row);
        next
    });
    let whole_lines = start.is_multiple_of(64)
        && plan.dims.iter().all(|dim| dim.dst == 1 || lines(dim.dst))
        && plan.dims.last().is_some_and(|inner| lines(inner.size))
        && lines(tail);
    // With tails, whole lines only: the short rows of a padded NCHW array
    // (f32[32,64,56,56] rows 56 → 64, 224 bytes a run) streamed as
    // gapless runs and tails took 2.39× the faster copy, against 1.21–1.30×
    // with ordinary stores.
    cfg!(all(target_arch = "x86_64", target_feature = "sse2"))
        && ((gapless && tail == 0 && start.is_multiple_of(16)) || whole_lines)
}

/// The runs of `plan` (each `n` elements) with streaming stores, each
/// prefetching the next one's source (see [`runs_stream`]), in the
/// source's order (its largest stride outermost): the source is read front
/// to back, which the hardware prefetchers follow, while each run's whole
/// lines stream wherever they go. Measured on a 2-core AMD EPYC (Zen 4),
/// times a plain copy, `relayout_matrix --reps 7`, two runs alternating
/// with the destination's order: f32[4096,4096] `T(8,128)` into row-major
/// 0.56–0.70 against 1.36–1.83, into padded 0.62 against 1.52–1.58,
/// `{0,1:T(8,128)}` into column-major 0.60–0.62 against 1.63–1.81,
/// row-major into `T(8,128)` 0.69–0.70 against 0.79–1.01; f32[256,256,256]
/// row-major into `T(8,128)` 0.64–0.71 against 1.74–1.83.
fn stream_runs<const N: usize>(
    src: &[[u8; N]],
    dst: &mut [[u8; N]],
    plan: &Plan,
    n: usize,
    tail: Option<&Tail<N>>,
) {
    let mut outer = plan.dims[..plan.dims.len().saturating_sub(1)].to_vec();
    outer.sort_by_key(|dim| std::cmp::Reverse(dim.src.unsigned_abs()));
    // Each run's tail streams from a copy of its padding.
    let padding = tail.map_or_else(Vec::new, |tail| vec![tail.element; tail.count]);
    let padding = padding.as_flattened();
    let mut run = |(from, to): (usize, usize), next: &[u8]| {
        copy_streaming(
            src[from..from + n].as_flattened(),
            dst[to..to + n].as_flattened_mut(),
            next,
        );
        if !padding.is_empty() {
            let end = to + n;
            copy_streaming(
                padding,
                dst[end..end + padding.len() / N].as_flattened_mut(),
                &[],
            );
        }
    };
    let mut pending: Option<(usize, usize)> = None;
    for_each_outer(&outer, plan.src_offset, plan.dst_offset, |s, d| {
        let (s, d) = (at(s), at(d));
        if let Some(before) = pending.replace((s, d)) {
            run(before, src[s..s + n].as_flattened());
        }
    });
    if let Some(last) = pending {
        run(last, &[]);
    }
    fence_streaming();
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
use x86::stream::{copy_streaming, fence_streaming};

/// Without SSE2 there are no streaming stores ([`runs_stream`] is false).
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
fn copy_streaming(src: &[u8], dst: &mut [u8], _: &[u8]) {
    dst.copy_from_slice(src);
}

/// Without SSE2 there is nothing to fence.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
fn fence_streaming() {}

/// Relayouts of at least this many bytes are large enough not to stay in
/// cache: their destination is written with streaming stores where the
/// streaming transpose applies. 1 KiB under fuzzing and Miri.
pub(super) const STREAM_MIN_BYTES: usize = if SMALL_THRESHOLDS { 1 << 10 } else { 8 << 20 };

/// The kernel for `plan` with `N`-byte elements: the plan's strategy (see
/// [`Plan::strategy`]), [`Strategy::Streaming`] for the transposes that
/// stream (only if `large`: see [`is_large`]).
pub(super) fn strategy<const N: usize>(plan: &Plan, large: bool) -> (Strategy, usize) {
    match (plan.strategy(), plan.dims.last()) {
        ((Strategy::Tiled, b), Some(&a))
            if large && (avx512_streams::<N>(a, plan.dims[b]) || sse2_streams::<N>(a)) =>
        {
            (Strategy::Streaming, b)
        }
        (strategy, _) => strategy,
    }
}

/// Whether a relayout of `plan` is large enough not to stay in cache
/// ([`STREAM_MIN_BYTES`]).
pub(super) fn is_large<const N: usize>(plan: &Plan) -> bool {
    is_large_plan(plan, N)
}

/// [`is_large`] for elements of `element_size` bytes.
pub(super) fn is_large_plan(plan: &Plan, element_size: usize) -> bool {
    plan.dims
        .iter()
        .try_fold(element_size, |bytes, dim| bytes.checked_mul(at(dim.size)))
        .is_some_and(|bytes| is_large_bytes(bytes as u64))
}

/// Whether a relayout of `bytes` bytes is large enough not to stay in
/// cache ([`STREAM_MIN_BYTES`]).
pub(super) fn is_large_bytes(bytes: u64) -> bool {
    bytes >= STREAM_MIN_BYTES as u64
}

/// Whether the AVX-512 kernel streams a large transpose (`a` its innermost
/// dimension, `b` the source's): at that level, with at least one whole
/// block (see `avx512.rs`).
fn avx512_streams<const N: usize>(a: Dim, b: Dim) -> bool {
    let block = 64 / N.clamp(1, 64);
    simd_level() >= SimdLevel::Avx512
        && matches!(N, 1 | 2 | 4 | 8)
        && at(a.size) >= block
        && at(b.size) >= block
}

/// Whether the AVX-512 kernel would write every whole line of a large
/// transpose's destination with streaming stores: its first element
/// (`dst_base`) on a 64-byte line and every row (`b.dst` apart) likewise,
/// or, for 2, 4 and 8-byte elements, rows back to back and whole lines each
/// (its wrapped blocks then complete the lines across rows, see
/// `avx512.rs`). Where not, short destination rows take the SSE2
/// streaming kernel, which streams them at any 16-byte alignment.
/// Measured on NCHW→NHWC `f32[32,64,56,56]` with the destination 16, 32 or
/// 48 bytes off a line (best of 9 or 11 interleaved rounds, times a plain
/// copy of as misaligned bytes): wrapped blocks 1.23–1.26 (one 1.41),
/// the SSE2 kernel 1.57–1.65, the AVX-512 kernel's partial blocks with
/// ordinary stores at the ends of each row 2.0–2.3; 1.17–1.28 aligned.
/// `bf16[32,64,56,56]` 16 bytes off (fastest of 3 batches of 100 calls,
/// two runs): wrapped blocks 2.87–3.02, the SSE2 kernel 3.00–3.42.
fn streams_whole_lines<const N: usize>(dst: &[[u8; N]], dst_base: i64, a: Dim, b: Dim) -> bool {
    let start = (dst.as_ptr() as usize).wrapping_add(at(dst_base).wrapping_mul(N));
    let lines = |elements: i64| at(elements).wrapping_mul(N).is_multiple_of(64);
    let rows_on_lines = b.size == 1 || lines(b.dst);
    // Rows back to back, whole lines each: the wrapped blocks of 2, 4
    // and 8-byte elements complete the lines across rows.
    let wrapped = matches!(N, 2 | 4 | 8) && b.dst == a.size && lines(a.size) && at(b.size) > 64 / N;
    rows_on_lines && (start.is_multiple_of(64) || (wrapped && start.is_multiple_of(N)))
}

/// Whether a large transpose (`a` its innermost dimension) takes the SSE2
/// streaming kernel: where SSE2 is in use, destination rows of whole
/// register blocks, short enough for the kernel.
fn sse2_streams<const N: usize>(a: Dim) -> bool {
    let block = 16 / N.clamp(1, 16);
    cfg!(all(target_arch = "x86_64", target_feature = "sse2"))
        && simd_level() >= SimdLevel::Sse2
        && matches!(N, 1 | 2 | 4 | 8)
        && at(a.size).is_multiple_of(block)
        && at(a.size) * N <= MAX_ROW_PIECES * 16
}

/// One 2-D transpose with the streaming kernel (see `stream.rs`), then the
/// source columns it left (fewer than a register block) element by element.
pub(super) fn transpose_streaming<const N: usize>(
    src: &[[u8; N]],
    dst: &mut [[u8; N]],
    src_base: i64,
    dst_base: i64,
    a: Dim,
    b: Dim,
) {
    let strip = Strip {
        src,
        src_base: at(src_base),
        rows: at(a.size),
        row_stride_src: a.src,
        cols: at(b.size),
        dst_base: at(dst_base),
        row_stride: at(b.dst),
    };
    let done = stream_strip(&strip, dst);
    for j in done..strip.cols {
        let start = strip.dst_base + j * strip.row_stride;
        for i in 0..strip.rows {
            dst[start + i] = src[step(strip.src_base, i, strip.row_stride_src) + j];
        }
    }
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
use x86::stream::{MAX_ROW_PIECES, stream_strip};

/// The largest destination row of the streaming kernel, in 16-byte pieces
/// (without SSE2 it never runs).
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
const MAX_ROW_PIECES: usize = 0;

/// Without SSE2 the streaming kernel never runs.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
fn stream_strip<const N: usize>(_: &Strip<'_, N>, _: &mut [[u8; N]]) -> usize {
    0
}

/// One 2-D transpose `t`: `a` is contiguous in the destination (stride
/// 1), `b` in the source (stride 1); the source stride of `a` has either
/// sign (negative where the source is flipped along `a`). Each tile of up
/// to `extent` = (rows along `a`, row length along `b`) elements is read as
/// source row segments into `tile`, then written as destination row
/// segments.
fn transpose_tiles<const N: usize>(
    src: &[[u8; N]],
    dst: &mut [[u8; N]],
    t: &Transpose,
    tile: &mut [[u8; N]],
    extent: (usize, usize),
) {
    let (a, b) = (t.a, t.b);
    let (a_size, b_size) = (at(a.size), at(b.size));
    let (src_base, dst_base, row_stride) = (at(t.src_base), at(t.dst_base), at(b.dst));
    // The source row of index `i` along `a`.
    let source_row = |i: usize| step(src_base, i, a.src);
    let next_tile = |a0: usize, b0: usize| {
        if extent.0 > PREFETCH_MAX_ROWS {
            None
        } else if a0 + extent.0 < a_size {
            Some((a0 + extent.0, b0))
        } else if b0 + extent.1 < b_size {
            Some((0, b0 + extent.1))
        } else {
            None
        }
    };
    for b0 in (0..b_size).step_by(extent.1) {
        let cols = extent.1.min(b_size - b0);
        for a0 in (0..a_size).step_by(extent.0) {
            let rows = extent.0.min(a_size - a0);
            // Source rows: fixed a, contiguous along b. Tile rows start on
            // 16-byte boundaries of the tile.
            let row_len = cols.next_multiple_of(16);
            for (i, row) in tile.chunks_exact_mut(row_len).take(rows).enumerate() {
                let s = source_row(a0 + i) + b0;
                row[..cols].copy_from_slice(&src[s..s + cols]);
            }
            let blocks = Blocks {
                tile,
                row_len,
                rows,
                cols,
                first_row: dst_base + b0 * row_stride + a0,
                row_stride,
                next: next_tile(a0, b0).map(|(a0, b0)| NextRows {
                    src,
                    start: source_row(a0) + b0,
                    stride: a.src,
                    rows: extent.0.min(a_size - a0),
                    len: extent.1.min(b_size - b0),
                }),
            };
            scatter(&blocks, dst);
        }
    }
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
use x86::avx512::transpose as avx512_blocks;

/// Without x86_64 there is no AVX-512 kernel.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
fn avx512_blocks<const N: usize>(
    _: &[[u8; N]],
    _: &mut [[u8; N]],
    _: &Transpose,
    _: bool,
) -> Option<block::Done> {
    None
}

/// Writes the transpose of `blocks` to `dst`: whole 16-byte register blocks
/// where the target has them, then the ragged edges element by element.
fn scatter<const N: usize>(blocks: &Blocks<'_, N>, dst: &mut [[u8; N]]) {
    let (done_rows, done_cols) = register_blocks(blocks, dst);
    let Blocks {
        tile,
        row_len,
        rows,
        cols,
        first_row,
        row_stride,
        next: _,
    } = *blocks;
    for j in 0..cols {
        let start = first_row + j * row_stride;
        let range = if j < done_cols {
            done_rows..rows
        } else {
            0..rows
        };
        for i in range {
            dst[start + i] = tile[i * row_len + j];
        }
    }
}

/// The whole register blocks of `blocks` with the widest transposes of
/// [`simd_level`] that pay; returns the tile rows and columns written.
/// AVX2's only for 1 and 8-byte elements: measured in one run beside SSE2's
/// (`benches/relayout_simd.rs`, shared 2-core AMD EPYC VM, times a plain
/// copy), AVX2's were faster in 5 of 5 runs on u8 8192² (e.g. 4.00
/// against 4.83, 3.49 against 3.62) and 8 of 9 on f64 2048² (3.62 against
/// 3.98, 3.60 against 3.66), but slower in 3 of 3 on u16 4096² (4.04
/// against 3.57) and 5 of 6 on f32 4096² (3.39 against 2.81) and no faster
/// on f32 1024².
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
fn register_blocks<const N: usize>(blocks: &Blocks<'_, N>, dst: &mut [[u8; N]]) -> (usize, usize) {
    match simd_level() {
        SimdLevel::Scalar => (0, 0),
        level if level >= SimdLevel::Avx2 && (N == 1 || N == 8) => {
            x86::avx2::transpose_blocks(blocks, dst)
        }
        _ => x86::sse2::transpose_blocks(blocks, dst),
    }
}

/// Without SSE2 every element goes through the edge loop of [`scatter`].
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
fn register_blocks<const N: usize>(_: &Blocks<'_, N>, _: &mut [[u8; N]]) -> (usize, usize) {
    (0, 0)
}
