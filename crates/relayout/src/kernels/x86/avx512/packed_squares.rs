//! The packed squares of `packed_transpose.rs` with AVX-512: blocks of
//! `C × C` units (`C = 64 / N`, units of `N` bytes: the 2 × 2 squares of
//! two-byte elements, 8 bytes, or the 4 × 4 squares of bytes, 16), each
//! block's `C` source row pieces of 64 bytes loaded whole, transposed as
//! units in registers (8-byte units as [`unpack_qwords`] does, 16-byte
//! ones by two rounds of 128-bit lane shuffles), each unit's square
//! transposed by one in-lane byte shuffle, and stored as `C` destination
//! row pieces of 64 bytes: streaming stores in a large relayout whose
//! destination rows all start on a line, ordinary ones otherwise.
//!
//! The `unsafe` here: calling the `#[target_feature]` code, and the
//! 64-byte loads and stores inside the rows that one bounds check
//! ([`inside`]) vouched for.

use core::arch::x86_64::{
    __m512i, _mm_set_epi8, _mm512_broadcast_i32x4, _mm512_loadu_si512, _mm512_shuffle_epi8,
    _mm512_shuffle_i64x2,
};

use super::{store_row, unpack_qwords};
use crate::kernels::x86::row_at;
use crate::simd::{SimdLevel, simd_level};

/// Copies unit `q` of every source row `p` (at unit `s + src_p[p]` of
/// `src`), its square transposed, to unit `p` of destination row `q` (at
/// unit `d + dst_q[q]` of `dst`), for units of `N` bytes (8 or 16), with
/// streaming stores if `large` (where every destination row starts on a
/// line); `farthest` is at least the largest of `src_p` and of `dst_q`.
/// `false`, nothing written, where the CPU lacks AVX-512, `N` is
/// neither, either axis is no multiple of `64 / N` units, or a row piece
/// is outside its buffer.
pub(crate) fn transpose_squares<const N: usize>(
    src: &[u8],
    dst: &mut [u8],
    (s, d): (usize, usize),
    (src_p, dst_q): (&[usize], &[usize]),
    (src_max, dst_max): (usize, usize),
    large: bool,
) -> bool {
    let c = 64 / N;
    let whole = src_p.len().is_multiple_of(c) && dst_q.len().is_multiple_of(c);
    if simd_level() < SimdLevel::Avx512
        || !(N == 8 || N == 16)
        || !whole
        || !s
            .checked_add(src_max)
            .is_some_and(|far| inside::<N>(far, dst_q.len(), src.len()))
        || !d
            .checked_add(dst_max)
            .is_some_and(|far| inside::<N>(far, src_p.len(), dst.len()))
    {
        return false;
    }
    let base = dst.as_mut_ptr();
    let stream = large
        && dst_q
            .iter()
            .all(|&row| base.wrapping_add((d + row) * N).addr().is_multiple_of(64));
    let (from, to) = (src.as_ptr().wrapping_add(s * N), base.wrapping_add(d * N));
    // SAFETY: `simd_level()` is `Avx512` only if `is_x86_feature_detected!`
    // found AVX-512 F and BW on this CPU (forcing can only lower it);
    // `inside` vouched for every row piece, `dst` is borrowed exclusively,
    // and the destination rows start on lines where the stores stream.
    #[allow(unsafe_code)]
    unsafe {
        if N == 16 {
            quads(from, to, (src_p, dst_q), stream);
        } else {
            pairs(from, to, (src_p, dst_q), stream);
        }
    }
    true
}

/// Whether a row of `len` units of `N` bytes from unit `farthest` (the
/// farthest row) ends within `limit` bytes.
fn inside<const N: usize>(farthest: usize, len: usize, limit: usize) -> bool {
    farthest
        .checked_add(len)
        .and_then(|end| end.checked_mul(N))
        .is_some_and(|end| end <= limit)
}

/// The blocks of 4 × 4 squares of 4 × 4 bytes: source rows `src_p` (unit
/// offsets from `src`) into destination rows `dst_q` (from `dst`), in
/// units of 16 bytes.
///
/// # Safety
///
/// Every source row's `dst_q.len()` units must be readable, every
/// destination row's `src_p.len()` units writable (on a line if
/// `stream`), both lengths multiples of 4, and no other reference may
/// access the destination meanwhile.
#[target_feature(enable = "avx512f,avx512bw")]
#[allow(unsafe_code)]
unsafe fn quads(src: *const u8, dst: *mut u8, (src_p, dst_q): (&[usize], &[usize]), stream: bool) {
    // Byte `4r + c` of each square to `4c + r`.
    let order = _mm512_broadcast_i32x4(_mm_set_epi8(
        15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0,
    ));
    for (pb, rows) in src_p.chunks_exact(4).enumerate() {
        let p0 = pb * 4;
        for (qb, outs) in dst_q.chunks_exact(4).enumerate() {
            let q0 = qb * 4;
            // SAFETY: 64 bytes of a source row (the caller's contract).
            let r: [__m512i; 4] = core::array::from_fn(|k| unsafe {
                _mm512_loadu_si512(src.wrapping_add((row_at(&rows[k]) + q0) * 16).cast())
            });
            // Lanes 0, 1 (`a`, `c`) and 2, 3 (`b`, `d`) of rows 0, 1 and 2, 3.
            let a = _mm512_shuffle_i64x2::<0x44>(r[0], r[1]);
            let b = _mm512_shuffle_i64x2::<0xEE>(r[0], r[1]);
            let c = _mm512_shuffle_i64x2::<0x44>(r[2], r[3]);
            let d = _mm512_shuffle_i64x2::<0xEE>(r[2], r[3]);
            // Column `j`: lane `j` of the four rows.
            let columns = [
                _mm512_shuffle_i64x2::<0x88>(a, c),
                _mm512_shuffle_i64x2::<0xDD>(a, c),
                _mm512_shuffle_i64x2::<0x88>(b, d),
                _mm512_shuffle_i64x2::<0xDD>(b, d),
            ];
            for (&column, row) in columns.iter().zip(outs) {
                // SAFETY: 64 bytes of a destination row, on a line if
                // `stream` (the caller's contract).
                unsafe {
                    store_row(
                        _mm512_shuffle_epi8(column, order),
                        dst.wrapping_add((row_at(row) + p0) * 16),
                        stream,
                        None,
                    );
                }
            }
        }
    }
}

/// The blocks of 8 × 8 squares of 2 × 2 two-byte elements: as [`quads`],
/// in units of 8 bytes.
///
/// # Safety
///
/// As for [`quads`], with both lengths multiples of 8.
#[target_feature(enable = "avx512f,avx512bw")]
#[allow(unsafe_code)]
unsafe fn pairs(src: *const u8, dst: *mut u8, (src_p, dst_q): (&[usize], &[usize]), stream: bool) {
    // The middle two elements of each square swap.
    let order = _mm512_broadcast_i32x4(_mm_set_epi8(
        15, 14, 11, 10, 13, 12, 9, 8, 7, 6, 3, 2, 5, 4, 1, 0,
    ));
    for (pb, rows) in src_p.chunks_exact(8).enumerate() {
        let p0 = pb * 8;
        for (qb, outs) in dst_q.chunks_exact(8).enumerate() {
            let q0 = qb * 8;
            // SAFETY: 64 bytes of a source row (the caller's contract).
            let r: [__m512i; 8] = core::array::from_fn(|k| unsafe {
                _mm512_loadu_si512(src.wrapping_add((row_at(&rows[k]) + q0) * 8).cast())
            });
            for (&column, row) in unpack_qwords(r).iter().zip(outs) {
                // SAFETY: 64 bytes of a destination row, on a line if
                // `stream` (the caller's contract).
                unsafe {
                    store_row(
                        _mm512_shuffle_epi8(column, order),
                        dst.wrapping_add((row_at(row) + p0) * 8),
                        stream,
                        None,
                    );
                }
            }
        }
    }
}
