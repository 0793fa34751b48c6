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
use crate::kernels::x86::regions::{Ahead, Regions, region_run, rows_fit_l2};
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
    (large, next): (bool, Option<usize>),
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
    let walk = Walk {
        src: src.get(s * N..).unwrap_or_default(),
        next: next.and_then(|next| src.get(next.checked_mul(N)?..)),
        src_p,
        q_blocks: dst_q.len() / c,
        large,
    };
    // SAFETY: `simd_level()` is `Avx512` only if `is_x86_feature_detected!`
    // found AVX-512 F and BW on this CPU (forcing can only lower it);
    // `inside` vouched for every row piece, `dst` is borrowed exclusively,
    // and the destination rows start on lines where the stores stream.
    #[allow(unsafe_code)]
    unsafe {
        if N == 16 {
            quads(from, to, (src_p, dst_q), stream, &walk);
        } else {
            pairs(from, to, (src_p, dst_q), stream, &walk);
        }
    }
    true
}

/// The order of a transpose's blocks (`C` source rows by `C` units, of
/// `N` bytes): in cache each block along `p` with every block along `q`;
/// large, in regions of 8 blocks along `q` by 64 source rows, each block
/// prefetching a block's worth of the next region's source lines
/// (`regions.rs`; after the last region, the first one of the next
/// transpose, `next`), where those rows fit L2, else as in cache.
/// Measured on a 2-core AMD EPYC (Zen 4), `relayout_matrix --size large
/// --reps 5`, times the faster copy, two runs, against each block along
/// `p` with every block along `q` and no prefetching: bf16[4096,4096]
/// `{0,1:T(8,128)(2,1)}` into `T(8,128)(2,1)` 1.29–1.34 against 2.24
/// (each transpose a pair of tiles, 64 source rows by 64 units: regions
/// prefetched within it only, 2.47–2.50), u8[4096,4096]
/// `{0,1:T(32,128)(4,1)}` into `T(32,128)(4,1)` 1.43–1.64 against
/// 2.50–2.59 (3.14–3.74).
struct Walk<'a> {
    /// The source from the transpose's first unit, its rows, and the
    /// blocks along `q`.
    src: &'a [u8],
    /// The next transpose's source (the same rows from another start).
    next: Option<&'a [u8]>,
    src_p: &'a [usize],
    q_blocks: usize,
    large: bool,
}

impl Walk<'_> {
    /// Calls `block(along p, along q)` for every block, in the walk's
    /// order (units of `N` bytes).
    #[inline(always)]
    fn each<const N: usize>(&self, mut block: impl FnMut(usize, usize)) {
        let c = 64 / N;
        let p_blocks = self.src_p.len() / c;
        let by_regions = self.large && rows_fit_l2(self.src_p, N);
        let regions = if by_regions {
            Regions::new(p_blocks, self.q_blocks, 8, region_run(N))
        } else {
            Regions::new(p_blocks, self.q_blocks, self.q_blocks, 1)
        };
        // After the last region, the next transpose's first one.
        let mut next = by_regions.then(|| {
            regions
                .clone()
                .skip(1)
                .map(|region| (region, self.src))
                .chain(
                    self.next
                        .and_then(|next| Some((regions.clone().next()?, next))),
                )
        });
        for region in regions {
            let mut ahead = next
                .as_mut()
                .and_then(Iterator::next)
                .map(|(next, src)| Ahead::new(&next, src, self.src_p, N));
            for qb in region.q {
                for pb in region.p.clone() {
                    if let Some(ahead) = &mut ahead {
                        ahead.prefetch(c);
                    }
                    block(pb, qb);
                }
            }
        }
    }
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
unsafe fn quads(
    src: *const u8,
    dst: *mut u8,
    (src_p, dst_q): (&[usize], &[usize]),
    stream: bool,
    walk: &Walk<'_>,
) {
    // Byte `4r + c` of each square to `4c + r`.
    let order = _mm512_broadcast_i32x4(_mm_set_epi8(
        15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0,
    ));
    let (p_blocks, q_blocks) = (src_p.as_chunks::<4>().0, dst_q.as_chunks::<4>().0);
    walk.each::<16>(|pb, qb| {
        let (rows, outs, p0, q0) = (&p_blocks[pb], &q_blocks[qb], pb * 4, qb * 4);
        {
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
    });
}

/// The blocks of 8 × 8 squares of 2 × 2 two-byte elements: as [`quads`],
/// in units of 8 bytes.
///
/// # Safety
///
/// As for [`quads`], with both lengths multiples of 8.
#[target_feature(enable = "avx512f,avx512bw")]
#[allow(unsafe_code)]
unsafe fn pairs(
    src: *const u8,
    dst: *mut u8,
    (src_p, dst_q): (&[usize], &[usize]),
    stream: bool,
    walk: &Walk<'_>,
) {
    // The middle two elements of each square swap.
    let order = _mm512_broadcast_i32x4(_mm_set_epi8(
        15, 14, 11, 10, 13, 12, 9, 8, 7, 6, 3, 2, 5, 4, 1, 0,
    ));
    let (p_blocks, q_blocks) = (src_p.as_chunks::<8>().0, dst_q.as_chunks::<8>().0);
    walk.each::<8>(|pb, qb| {
        let (rows, outs, p0, q0) = (&p_blocks[pb], &q_blocks[qb], pb * 8, qb * 8);
        {
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
    });
}
