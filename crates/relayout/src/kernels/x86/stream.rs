//! The streaming transpose for large relayouts whose destination rows are
//! short (NCHW→NHWC: one row of `C` channels per spatial position): no
//! tile is staged. Each chunk of `M` destination rows (`M = 16 / N`) is
//! assembled in a small buffer from `M × M` SSE2 register transposes of
//! 16-byte pieces read straight from the source rows (which advance
//! sequentially, prefetched ahead in software), then written out with
//! non-temporal stores, one cache line after the other, so the destination
//! is never read for ownership nor kept in cache.
//!
//! Measured on NCHW→NHWC `f32[32,64,56,56]` (ratios to a plain copy in the
//! same run, noisy shared machine with 2 cores and 2 fuzzers): 1.05–1.25
//! (best of 40 alternating runs; up to 1.75 while the machine was busy),
//! criterion medians 1.05–1.8; the staged 64×512 tiles 1.35–1.6 and
//! 1.4–1.9 in the same sessions. A raw-pointer prototype of this loop
//! measured 0.75–0.9 with streaming stores and 1.35–1.55 with ordinary
//! ones: the plain copy (glibc `rep movsb`) pays for reading the
//! destination lines for ownership, streaming stores do not. Staging whole
//! 64×512 tiles and then streaming them out was slower (2.0–2.5): the
//! reads and the streaming writes did not overlap.

use core::arch::x86_64::{__m128i, _MM_HINT_T0, _mm_prefetch};
#[cfg(not(miri))]
use core::arch::x86_64::{_mm_sfence, _mm_stream_si128};

use super::sse2::{bit_reversed, load, transpose};
use crate::kernels::block::{Strip, step};

/// How far ahead of the current piece each source row is prefetched, in
/// bytes. Measured: 256 bytes ahead 10–20% slower than 512, 1024 no better.
const PREFETCH_AHEAD: usize = 512;

/// The largest destination row the kernel handles, in 16-byte pieces
/// (1 KiB: a chunk of up to 16 rows stays within 16 KiB, in L1).
pub(crate) const MAX_ROW_PIECES: usize = 64;

/// Transposes the whole chunks of `strip` (see [`Strip`]); returns the
/// number of source columns (destination rows) written, a multiple of
/// `16 / N`, or 0 if `N` has no register block (only 1, 2, 4 and 8 have)
/// or the rows do not fit.
pub(crate) fn stream_strip<const N: usize>(strip: &Strip<'_, N>, dst: &mut [[u8; N]]) -> usize {
    // SAFETY: this module is compiled only when the target enables SSE2
    // (`cfg(target_feature = "sse2")` in `relayout/mod.rs`), so every CPU
    // this code runs on supports the SSE2 instructions `stream_sse2` was
    // compiled for; the function itself is safe code except for the one
    // store in `stream`.
    #[allow(unsafe_code)]
    unsafe {
        stream_sse2::<N>(strip, dst)
    }
}

#[target_feature(enable = "sse2")]
fn stream_sse2<const N: usize>(strip: &Strip<'_, N>, dst: &mut [[u8; N]]) -> usize {
    let done = match N {
        1 => chunks::<N, 16>(strip, dst),
        2 => chunks::<N, 8>(strip, dst),
        4 => chunks::<N, 4>(strip, dst),
        8 => chunks::<N, 2>(strip, dst),
        _ => 0,
    };
    // Streaming stores are weakly ordered: fence them before returning.
    fence();
    done
}

/// Copies `src` into `dst` (of the same length) with streaming stores
/// where `dst` is 16-byte aligned (else, and for a ragged end, with
/// ordinary ones): the destination is neither read for ownership nor kept
/// in cache; whole lines with 64-byte stores where the CPU has AVX-512
/// (see `avx512::stream_lines`). Meanwhile the lines of `next` (the
/// source of the next copy, if any) are prefetched, one for every line
/// copied. The caller calls
/// [`fence_streaming`] once after the last such copy (a fence per copy of
/// 2 KiB runs measured 1.24× a plain copy against 0.70× with one at the
/// end).
pub(crate) fn copy_streaming(src: &[u8], dst: &mut [u8], next: &[u8]) {
    // SAFETY: as in `stream_strip`: SSE2 is enabled for every CPU this
    // module is compiled for; the one store argued in `stream`.
    #[allow(unsafe_code)]
    unsafe {
        copy_sse2(src, dst, next);
    }
}

#[target_feature(enable = "sse2")]
fn copy_sse2(src: &[u8], dst: &mut [u8], next: &[u8]) {
    if !(dst.as_ptr() as usize).is_multiple_of(16) || src.len() != dst.len() {
        dst.copy_from_slice(src);
        return;
    }
    // 16-byte pieces up to the first line, whole lines with 64-byte
    // stores where the CPU has them, 16-byte pieces for the rest.
    let head = (dst.as_ptr() as usize).wrapping_neg() % 64;
    let head = head.min(dst.len());
    let (src_head, src_rest) = src.split_at(head);
    let (dst_head, dst_rest) = dst.split_at_mut(head);
    stream_pieces(src_head, dst_head, &[]);
    let lines = super::avx512::stream_lines(src_rest, dst_rest, next);
    let next = next.get(lines..).unwrap_or_default();
    stream_pieces(&src_rest[lines..], &mut dst_rest[lines..], next);
}

/// [`copy_streaming`] with 16-byte stores, `dst` 16-byte aligned.
#[target_feature(enable = "sse2")]
fn stream_pieces(src: &[u8], dst: &mut [u8], next: &[u8]) {
    let (pieces, rest) = src.as_chunks::<16>();
    let (out, out_rest) = dst.as_chunks_mut::<16>();
    let mut ahead = next.chunks(64);
    for (k, (piece, out)) in pieces.iter().zip(out).enumerate() {
        if k % 4 == 0
            && let Some(line) = ahead.next()
        {
            _mm_prefetch::<_MM_HINT_T0>(line.as_ptr().cast());
        }
        stream(load(piece), out);
    }
    out_rest.copy_from_slice(rest);
}

/// Makes the streaming stores of [`copy_streaming`] visible before every
/// later store.
pub(crate) fn fence_streaming() {
    // SAFETY: SSE2 (which has `sfence`) is enabled for every CPU this
    // module is compiled for.
    #[allow(unsafe_code)]
    unsafe {
        fence();
    }
}

/// Orders the streaming stores before every later store: `sfence`, which
/// Miri does not implement; under Miri a sequentially consistent fence
/// stands in (Miri performs the streaming stores as plain stores).
#[target_feature(enable = "sse2")]
#[inline]
fn fence() {
    #[cfg(not(miri))]
    _mm_sfence();
    #[cfg(miri)]
    core::sync::atomic::fence(core::sync::atomic::Ordering::SeqCst);
}

/// The chunks of `M` destination rows, each assembled from `rows / M`
/// register blocks and then streamed out.
#[target_feature(enable = "sse2")]
fn chunks<const N: usize, const M: usize>(strip: &Strip<'_, N>, dst: &mut [[u8; N]]) -> usize {
    let Strip {
        src,
        src_base,
        rows,
        row_stride_src,
        cols,
        dst_base,
        row_stride,
    } = *strip;
    let row_pieces = rows / M;
    if rows % M != 0 || row_pieces == 0 || row_pieces > MAX_ROW_PIECES {
        return 0;
    }
    let full_cols = cols - cols % M;
    // Each source row once as its register-block pieces (validated: all
    // inside the source), in groups of `M` rows in bit-reversed order so
    // that the unpack rounds leave every destination row in order.
    let order = const { bit_reversed::<M>() };
    let source_rows: Vec<&[[[u8; N]; M]]> = (0..rows)
        .map(|i| {
            let row = (i - i % M) + order[i % M];
            src.get(step(src_base, row, row_stride_src)..)
                .and_then(|row| row.get(..full_cols))
                .map(|row| row.as_chunks::<M>().0)
                .unwrap_or_default()
        })
        .collect();
    let groups = source_rows.as_chunks::<M>().0;
    // One 16-byte piece per chunk and source row: the rows prefetched
    // before a chunk are those whose next cache line it starts.
    let chunks_per_line = 64 / 16;
    let ahead = PREFETCH_AHEAD / N;
    let mut staged = [[[0_u8; 16]; MAX_ROW_PIECES]; M];
    for (chunk, j) in (0..full_cols).step_by(M).enumerate() {
        let column = src_base + j;
        for row in (chunk % chunks_per_line..rows).step_by(chunks_per_line) {
            if let Some(element) = src.get(step(column, row, row_stride_src).saturating_add(ahead))
            {
                _mm_prefetch::<_MM_HINT_T0>(element.as_ptr().cast());
            }
        }
        for (block, group) in groups.iter().enumerate() {
            let regs = transpose::<M>(
                core::array::from_fn(|r| {
                    group[r]
                        .get(chunk)
                        .map_or(&[0; 16], |piece| bytes_of(piece))
                })
                .map(|piece| load(piece)),
            );
            for (out, reg) in staged.iter_mut().zip(regs) {
                if let Some(out) = out.get_mut(block) {
                    *out = store_bytes(reg);
                }
            }
        }
        // Consecutive destination rows stream as one segment.
        let whole_lines = row_stride != rows;
        let start = dst_base + j * row_stride;
        for (r, row) in staged.iter().enumerate() {
            let start = start + r * row_stride;
            if let Some(segment) = dst.get_mut(start..start + rows) {
                write_out(&row[..row_pieces], segment.as_flattened_mut(), whole_lines);
            }
        }
    }
    full_cols
}

/// The bytes of a register block's piece (`N · M = 16`).
fn bytes_of<const N: usize, const M: usize>(piece: &[[u8; N]; M]) -> &[u8; 16] {
    piece.as_flattened().try_into().unwrap_or(&[0; 16])
}

/// The 16 bytes of `reg`.
#[target_feature(enable = "sse2")]
#[inline]
fn store_bytes(reg: __m128i) -> [u8; 16] {
    let mut bytes = [0; 16];
    super::sse2::store(reg, &mut bytes);
    bytes
}

/// Copies `pieces` to `segment` (the same length) with streaming stores if
/// it is 16-byte aligned, else with ordinary stores. If `whole_lines`, the
/// partial cache lines at the ends of `segment` take ordinary stores (the
/// rest of those lines is written much later: streaming them would write
/// partial lines to memory). Consecutive segments stream throughout: the
/// line they share is completed at once, in the write-combining buffer,
/// and an ordinary store that misses would stall the streaming stores
/// queued behind it (measured: 1.7–1.9 instead of 0.8–0.9).
#[target_feature(enable = "sse2")]
fn write_out(pieces: &[[u8; 16]], segment: &mut [u8], whole_lines: bool) {
    let address = segment.as_ptr() as usize;
    let lines = if !address.is_multiple_of(16) {
        0..0
    } else if whole_lines {
        let first = (64 - address % 64) % 64;
        let end = address.saturating_add(segment.len());
        let last = (end - end % 64).saturating_sub(address);
        first / 16..last.max(first) / 16
    } else {
        0..pieces.len()
    };
    let out = segment.as_chunks_mut::<16>().0;
    for (i, (piece, out)) in pieces.iter().zip(out).enumerate() {
        if lines.contains(&i) {
            stream(load(piece), out);
        } else {
            *out = *piece;
        }
    }
}

/// Stores 16 bytes bypassing the caches where they are 16-byte aligned
/// (as the callers check), else with an ordinary store.
#[target_feature(enable = "sse2")]
#[inline]
#[cfg(not(miri))]
pub(crate) fn stream(reg: __m128i, bytes: &mut [u8; 16]) {
    let ptr = bytes.as_mut_ptr();
    if !ptr.addr().is_multiple_of(16) {
        super::sse2::store(reg, bytes);
        return;
    }
    // SAFETY: `ptr` comes from an exclusive reference to 16 bytes, 16-byte
    // aligned (checked just above) as `_mm_stream_si128` requires; nothing
    // else accesses them until the callers' fence.
    #[allow(unsafe_code)]
    unsafe {
        _mm_stream_si128(ptr.cast(), reg);
    }
}

/// Under Miri, which cannot run the inline assembly of
/// `_mm_stream_si128`, a plain store of the same 16 bytes stands in,
/// aligned or not.
#[target_feature(enable = "sse2")]
#[inline]
#[cfg(miri)]
pub(crate) fn stream(reg: __m128i, bytes: &mut [u8; 16]) {
    super::sse2::store(reg, bytes);
}
