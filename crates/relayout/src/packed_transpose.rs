//! Packed tiles into packed tiles of the other order in one pass: XLA's
//! `(2,1)` and `(4,1)` tiles interleave pairs or quads of rows, so where
//! the two sides' tiles transpose each other (`{1,0:T(8,128)(2,1)}` into
//! `{0,1:T(8,128)(2,1)}`) a square of `m` × `m` elements is contiguous on
//! both sides, its rows on one side its columns on the other. Such squares
//! (8 bytes for `bf16`, 16 for `u8`) are the units of a transpose whose
//! rows on both sides are split in two levels, as in
//! [`TileTranspose`](crate::Strategy::TileTranspose), each unit transposed
//! in a register on its way: with AVX-512 in blocks of a line's units
//! along both axes (`kernels/x86/avx512/packed_squares.rs`), else in SSE2
//! registers, a line of units of two destination rows at a time.
//!
//! Measured on a 2-core AMD EPYC (Zen 4), times a plain copy, medians of
//! 3 alternating runs of `relayout_matrix --reps 5`, AVX-512 blocks
//! against the SSSE3 ones: bf16[256,512] `T(8,128)(2,1)` into
//! `{0,1:T(8,128)(2,1)}` and back 2.08–2.20 against 3.10–3.32,
//! bf16[4096,4096] 1.65–1.73 against 2.63–2.81; u8[512,512]
//! `T(32,128)(4,1)` both ways 1.62–1.70 against 2.47–2.48, u8[4096,4096]
//! 1.41–1.67 against 2.08–2.44.

use rayon::ThreadPool;

use super::RelayoutError;
use super::kernels::for_each_outer;
use super::kernels::{Axis, split_axes};
use super::parallel::{MIN_BYTES_PER_THREAD, run_parts};
use super::plan::{Dim, Plan};

/// `value` as a `usize` (a size or stride of a checked plan: never
/// negative there), 0 if it is not one.
fn at(value: i64) -> usize {
    usize::try_from(value).unwrap_or(0)
}

/// The shortest axis worth a pass of its own (shorter ones compose).
const MIN_AXIS: i64 = 8;

/// A plan of packed squares as a transpose of units: the squares' side
/// `m` (2 or 4 one-byte or two-byte elements of `size` bytes, a unit of
/// 8 or 16 bytes), the axis `p` contiguous in the destination, `q`
/// contiguous in the source, and the other dimensions, in units.
#[derive(Debug, Clone)]
pub(crate) struct PackedTranspose {
    unit: usize,
    src_p: Vec<usize>,
    dst_q: Vec<usize>,
    /// The largest of `src_p` and of `dst_q`.
    farthest: (usize, usize),
    outer: Vec<Dim>,
    src_offset: i64,
    dst_offset: i64,
}

impl PackedTranspose {
    /// The transpose of the canonical `plan` of elements of `size` bytes
    /// (2 or 1), where its two innermost dimensions are a square of
    /// `4 / size` elements, its rows contiguous on one side and its
    /// columns on the other, every other stride a multiple of the square,
    /// and the units make a transpose whose axes are at least
    /// [`MIN_AXIS`] long.
    pub(crate) fn find(plan: &Plan, size: usize) -> Option<Self> {
        let m = match size {
            2 => 2_i64,
            1 => 4,
            _ => return None,
        };
        let (square, dims) = plan.dims.split_last_chunk::<2>().map(|(d, s)| (s, d))?;
        if square[1]
            != (Dim {
                size: m,
                src: m,
                dst: 1,
            })
            || square[0]
                != (Dim {
                    size: m,
                    src: 1,
                    dst: m,
                })
        {
            return None;
        }
        let k = m * m;
        let Plan {
            dims,
            src_offset,
            dst_offset,
        } = Plan::divided(dims, (plan.src_offset, plan.dst_offset), k)?;
        let p_lo = dims.iter().position(|d| d.dst == 1)?;
        let q_lo = dims.iter().position(|d| d.src == 1)?;
        if p_lo == q_lo {
            return None;
        }
        let (p, q, outer) = split_axes(&dims, p_lo, q_lo, MIN_AXIS)?;
        let offsets = |axis: &Axis, stride: fn(&Dim) -> i64| {
            let mut offsets = Vec::new();
            axis.offsets(stride, &mut offsets);
            offsets
                .into_iter()
                .map(|o| usize::try_from(o).unwrap_or(usize::MAX))
                .collect()
        };
        let (src_p, dst_q): (Vec<usize>, Vec<usize>) =
            (offsets(&p, |d| d.src), offsets(&q, |d| d.dst));
        Some(Self {
            unit: usize::try_from(k).ok()? * size,
            farthest: (src_p.iter().copied().max()?, dst_q.iter().copied().max()?),
            src_p,
            dst_q,
            outer,
            src_offset,
            dst_offset,
        })
    }

    /// Copies the plan's elements from `src` to `dst` (both checked to
    /// hold every position of the plan).
    pub(crate) fn copy(&self, src: &[u8], dst: &mut [u8], large: bool) {
        match self.unit {
            8 => self.copy_units::<8, u64>(src, dst, large),
            _ => self.copy_units::<16, u128>(src, dst, large),
        }
    }

    /// [`copy`](Self::copy) on `pool` (if given): split along the outer
    /// dimension of the largest destination stride, where each of its
    /// indices writes a range of `dst` of its own (the stride at least the
    /// reach of everything inside it), in one part for each thread but at
    /// most one for every [`MIN_BYTES_PER_THREAD`] bytes of `dst`; on the
    /// calling thread where there is one part or no such dimension.
    pub(crate) fn copy_in(
        &self,
        pool: Option<&ThreadPool>,
        src: &[u8],
        dst: &mut [u8],
        large: bool,
    ) -> Result<(), RelayoutError> {
        let threads = pool.map_or(1, ThreadPool::current_num_threads);
        let by_size = u64::try_from(dst.len()).unwrap_or(u64::MAX) / MIN_BYTES_PER_THREAD;
        let count = threads.min(usize::try_from(by_size).unwrap_or(usize::MAX));
        let split = (count > 1).then(|| self.split_dim()).flatten();
        let (Some((k, reach)), Ok(d)) = (split, usize::try_from(self.dst_offset)) else {
            self.copy(src, dst, large);
            return Ok(());
        };
        let dim = self.outer[k];
        let (size, stride) = (at(dim.size), at(dim.dst));
        let count = count.min(size);
        // Part `j`: indices `size · j / count..` of the dimension, its
        // bytes from its first index's first unit (the first part's
        // from 0, the last part's to the end).
        let firsts: Vec<usize> = (0..count).map(|j| size * j / count).collect();
        let mut parts = Vec::with_capacity(count);
        let mut rest = dst;
        for (j, &i0) in firsts.iter().enumerate() {
            let i1 = firsts.get(j + 1).copied().unwrap_or(size);
            let start = if j == 0 {
                0
            } else {
                (d + i0 * stride) * self.unit
            };
            let len = match firsts.get(j + 1) {
                Some(&next) => ((d + next * stride) * self.unit - start).min(rest.len()),
                None => rest.len(),
            };
            let (part, tail) = core::mem::take(&mut rest).split_at_mut(len);
            rest = tail;
            let mut outer = self.outer.clone();
            outer[k].size = i64::try_from(i1 - i0).unwrap_or(i64::MAX);
            let plan = Self {
                outer,
                src_offset: self.src_offset + i64::try_from(i0).unwrap_or(0) * dim.src,
                dst_offset: i64::try_from(d + i0 * stride - start / self.unit).unwrap_or(0),
                ..self.clone()
            };
            parts.push((plan, part));
        }
        debug_assert!(reach <= stride);
        run_parts(pool, !large, &mut parts, |plan, part| {
            plan.copy(src, part, large);
            Ok(())
        })
    }

    /// The outer dimension to split a copy along (see
    /// [`copy_in`](Self::copy_in)) and the reach of one of its indices in
    /// units: the one of largest destination stride, if every outer
    /// stride is positive and the reach of one index (the other outer
    /// dimensions' and the rows') is at most that stride.
    fn split_dim(&self) -> Option<(usize, usize)> {
        let positive = self
            .outer
            .iter()
            .all(|d| d.dst > 0 && d.src >= 0 && d.size > 0);
        let (k, dim) = self
            .outer
            .iter()
            .enumerate()
            .filter(|(_, d)| d.size > 1)
            .max_by_key(|(_, d)| d.dst)?;
        let rows = self.farthest.1.checked_add(self.src_p.len())?;
        let reach = self
            .outer
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != k)
            .try_fold(rows, |sum, (_, d)| {
                sum.checked_add(at(d.size - 1).checked_mul(at(d.dst))?)
            })?;
        (positive && reach <= at(dim.dst)).then_some((k, reach))
    }

    /// [`copy`](Self::copy) in units of `N` bytes: the whole blocks of a
    /// line's units along the source-side rows (see [`blocks`]), then the
    /// edges unit by unit.
    fn copy_units<const N: usize, U: Square<N>>(&self, src: &[u8], dst: &mut [u8], large: bool) {
        let (p_len, q_len) = (self.src_p.len(), self.dst_q.len());
        let line = 64 / N;
        // AVX-512 takes blocks of a line's units along both axes, the
        // narrower registers pairs of destination rows.
        let q_step = if crate::simd_level() >= crate::SimdLevel::Avx512 {
            line
        } else {
            2
        };
        let (p_full, q_full) = if cfg!(all(target_arch = "x86_64", target_feature = "sse2")) {
            (p_len - p_len % line, q_len - q_len % q_step)
        } else {
            (0, 0)
        };
        let at = |o: i64| usize::try_from(o).unwrap_or(usize::MAX);
        // Each outer index's transpose runs once the next one's source
        // start is known (a large one prefetches its first lines).
        let mut run = |(s, d): (usize, usize), next: Option<usize>| {
            if p_full > 0 && q_full > 0 {
                let rows = (&self.src_p[..p_full], &self.dst_q[..q_full]);
                blocks::<N>(src, dst, (s, d), rows, self.farthest, (large, next));
            }
            if p_full == p_len && q_full == q_len {
                return;
            }
            let (src, dst) = (src.as_chunks::<N>().0, dst.as_chunks_mut::<N>().0);
            // The edges: the columns past the whole blocks, then the rows.
            for (q, &to) in self.dst_q.iter().enumerate() {
                let first = if q < q_full { p_full } else { 0 };
                for (p, &from) in self.src_p.iter().enumerate().skip(first) {
                    dst[d + to + p] = U::transposed(src[s + from + q]);
                }
            }
        };
        let mut pending = None;
        for_each_outer(&self.outer, self.src_offset, self.dst_offset, |s, d| {
            let here = (at(s), at(d));
            if let Some(before) = pending.replace(here) {
                run(before, Some(here.0));
            }
        });
        if let Some(last) = pending {
            run(last, None);
        }
    }
}

/// Copies unit `q` of source row `p` (at unit `s + src_p[p]`), transposed,
/// to unit `p` of destination row `q` (at `d + dst_q[q]`), for every `p`
/// of `src_p` (a multiple of a line's units) and `q` of `dst_q` (of a
/// line's units where the CPU has AVX-512, else of 2): in AVX-512 blocks,
/// else in SSE2 registers, a line of each destination row at a time.
/// `farthest`: at least the largest of each side's rows; `large` whether
/// the relayout is, with the source start of the transpose that comes
/// next (whose first lines a large one prefetches).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
fn blocks<const N: usize>(
    src: &[u8],
    dst: &mut [u8],
    start: (usize, usize),
    rows: (&[usize], &[usize]),
    farthest: (usize, usize),
    (large, next): (bool, Option<usize>),
) {
    use super::kernels::x86::avx512::packed_squares::transpose_squares;
    if transpose_squares::<N>(src, dst, start, rows, farthest, (large, next)) {
        if large {
            super::kernels::x86::stream::fence_streaming();
        }
        return;
    }
    if crate::simd_level() >= crate::SimdLevel::Avx2 {
        // SAFETY: the level says the CPU has AVX2, hence SSSE3, the
        // instructions `squares_ssse3` and `pairs_ssse3` were compiled
        // for; they are safe code.
        #[allow(unsafe_code)]
        unsafe {
            match (N, large) {
                (16, false) => squares_ssse3::<false>(src, dst, start, rows),
                (16, true) => squares_ssse3::<true>(src, dst, start, rows),
                (_, false) => pairs_ssse3::<false>(src, dst, start, rows),
                (_, true) => pairs_ssse3::<true>(src, dst, start, rows),
            }
        }
        if large {
            super::kernels::x86::stream::fence_streaming();
        }
        return;
    }
    // SAFETY: compiled only where the target enables SSE2 (the `cfg`
    // above), so the CPU running this has the instructions
    // `blocks_sse2` was compiled for; the function itself is safe code.
    #[allow(unsafe_code)]
    unsafe {
        blocks_sse2::<N>(src, dst, start, rows);
    }
}

/// The 8-byte squares of [`blocks`]: two of each of two source rows
/// unpacked into two destination row pieces, each square's middle two
/// elements swapped by one byte shuffle.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "sse2,ssse3")]
fn pairs_ssse3<const STREAM: bool>(
    src: &[u8],
    dst: &mut [u8],
    (s, d): (usize, usize),
    (src_p, dst_q): (&[usize], &[usize]),
) {
    use super::kernels::x86::sse2::load;
    use core::arch::x86_64::{
        _mm_set_epi8, _mm_setzero_si128, _mm_shuffle_epi8, _mm_unpackhi_epi64, _mm_unpacklo_epi64,
    };
    let order = _mm_set_epi8(15, 14, 11, 10, 13, 12, 9, 8, 7, 6, 3, 2, 5, 4, 1, 0);
    let piece = |unit: usize| -> [u8; 16] {
        src.get(unit * 8..unit * 8 + 16)
            .and_then(|b| b.try_into().ok())
            .unwrap_or([0; 16])
    };
    for p0 in (0..src_p.len()).step_by(8) {
        let from = &src_p[p0..p0 + 8];
        for (pair, tos) in dst_q.chunks_exact(2).enumerate() {
            let q = pair * 2;
            let (a0, a1) = ((d + tos[0] + p0) * 8, (d + tos[1] + p0) * 8);
            let mut regs = [[_mm_setzero_si128(); 4]; 2];
            for (k, rows) in from.chunks_exact(2).enumerate() {
                let a = load(&piece(s + rows[0] + q));
                let b = load(&piece(s + rows[1] + q));
                regs[0][k] = _mm_shuffle_epi8(_mm_unpacklo_epi64(a, b), order);
                regs[1][k] = _mm_shuffle_epi8(_mm_unpackhi_epi64(a, b), order);
            }
            for (at, regs) in [a0, a1].into_iter().zip(regs) {
                if let Some(out) = dst.get_mut(at..at + 64) {
                    for (out, reg) in out.as_chunks_mut::<16>().0.iter_mut().zip(regs) {
                        put::<STREAM>(reg, out);
                    }
                }
            }
        }
    }
}

/// The 16-byte squares of [`blocks`], each transposed by one byte shuffle.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "sse2,ssse3")]
fn squares_ssse3<const STREAM: bool>(
    src: &[u8],
    dst: &mut [u8],
    (s, d): (usize, usize),
    (src_p, dst_q): (&[usize], &[usize]),
) {
    use super::kernels::x86::sse2::load;
    use core::arch::x86_64::{_mm_set_epi8, _mm_shuffle_epi8};
    let order = _mm_set_epi8(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0);
    for p0 in (0..src_p.len()).step_by(4) {
        let from = &src_p[p0..p0 + 4];
        for (q, &to) in dst_q.iter().enumerate() {
            let at = (d + to + p0) * 16;
            let Some(out) = dst.get_mut(at..at + 64) else {
                continue;
            };
            for (&row, out) in from.iter().zip(out.as_chunks_mut::<16>().0) {
                let unit = (s + row + q) * 16;
                let x: &[u8; 16] = src[unit..unit + 16].try_into().unwrap_or(&[0; 16]);
                put::<STREAM>(_mm_shuffle_epi8(load(x), order), out);
            }
        }
    }
}

/// Without SSE2 there are no whole blocks (see `copy_units`).
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
fn blocks<const N: usize>(
    _: &[u8],
    _: &mut [u8],
    _: (usize, usize),
    _: (&[usize], &[usize]),
    _: (usize, usize),
    _: (bool, Option<usize>),
) {
}

/// Stores 16 bytes, bypassing the caches if `STREAM` (where aligned).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "sse2")]
#[inline]
fn put<const STREAM: bool>(reg: core::arch::x86_64::__m128i, out: &mut [u8; 16]) {
    if STREAM {
        super::kernels::x86::stream::stream(reg, out);
    } else {
        super::kernels::x86::sse2::store(reg, out);
    }
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "sse2")]
fn blocks_sse2<const N: usize>(
    src: &[u8],
    dst: &mut [u8],
    (s, d): (usize, usize),
    (src_p, dst_q): (&[usize], &[usize]),
) {
    use super::kernels::x86::sse2::{load, store};
    use core::arch::x86_64::{
        _mm_shufflehi_epi16, _mm_shufflelo_epi16, _mm_srli_si128, _mm_unpackhi_epi64,
        _mm_unpacklo_epi8, _mm_unpacklo_epi64,
    };
    let piece = |bytes: &[u8], unit: usize| -> [u8; 16] {
        bytes[unit * N..][..16].try_into().unwrap_or([0; 16])
    };
    let line = 64 / N;
    for p0 in (0..src_p.len()).step_by(line) {
        let from = &src_p[p0..p0 + line];
        if N == 8 {
            // Two units of each of two source rows, one 16-byte register
            // each: their two columns are two destination row pieces.
            for (pair, tos) in dst_q.chunks_exact(2).enumerate() {
                let q = pair * 2;
                for (k, rows) in from.chunks_exact(2).enumerate() {
                    let a = load(&piece(src, s + rows[0] + q));
                    let b = load(&piece(src, s + rows[1] + q));
                    for (to, reg) in tos
                        .iter()
                        .zip([_mm_unpacklo_epi64(a, b), _mm_unpackhi_epi64(a, b)])
                    {
                        // The middle two of each 2 × 2 square swap.
                        let reg = _mm_shufflehi_epi16::<0xD8>(_mm_shufflelo_epi16::<0xD8>(reg));
                        let at = (d + to + p0 + 2 * k) * N;
                        let out: &mut [u8; 16] = (&mut dst[at..at + 16])
                            .try_into()
                            .unwrap_or_else(|_| unreachable!());
                        store(reg, out);
                    }
                }
            }
        } else {
            // One 4 × 4 square of bytes a register: rows 0 and 2, 1 and
            // 3 interleaved, then those halves.
            for (q, &to) in dst_q.iter().enumerate() {
                for (k, &row) in from.iter().enumerate() {
                    let x = load(&piece(src, s + row + q));
                    let u = _mm_unpacklo_epi8(x, _mm_srli_si128::<8>(x));
                    let v = _mm_unpacklo_epi8(u, _mm_srli_si128::<8>(u));
                    let at = (d + to + p0 + k) * N;
                    let out: &mut [u8; 16] = (&mut dst[at..at + 16])
                        .try_into()
                        .unwrap_or_else(|_| unreachable!());
                    store(v, out);
                }
            }
        }
    }
}

/// A square of bytes or two-byte elements held in an integer, transposed.
trait Square<const N: usize> {
    fn transposed(unit: [u8; N]) -> [u8; N];
}

impl Square<8> for u64 {
    /// A 2 × 2 square of two-byte elements: the middle two swap.
    fn transposed(unit: [u8; 8]) -> [u8; 8] {
        let x = u64::from_le_bytes(unit);
        let kept = x & 0xFFFF_0000_0000_FFFF;
        let up = (x & 0x0000_0000_FFFF_0000) << 16;
        let down = (x & 0x0000_FFFF_0000_0000) >> 16;
        (kept | up | down).to_le_bytes()
    }
}

impl Square<16> for u128 {
    /// A 4 × 4 square of bytes (byte `4r + c` to `4c + r`): two swaps of
    /// index bits, the low bits of row and column (bytes 3 apart), then
    /// the high ones (6 apart).
    fn transposed(unit: [u8; 16]) -> [u8; 16] {
        let mut x = u128::from_le_bytes(unit);
        for (shift, mask) in [
            (24, 0x0000_0000_FF00_FF00_0000_0000_FF00_FF00_u128),
            (48, 0x0000_0000_0000_0000_FFFF_0000_FFFF_0000_u128),
        ] {
            let t = ((x >> shift) ^ x) & mask;
            x ^= t ^ (t << shift);
        }
        x.to_le_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::Square;

    #[test]
    fn squares_transpose() {
        let bytes: [u8; 16] = std::array::from_fn(|i| i as u8);
        let want: [u8; 16] = std::array::from_fn(|i| ((i % 4) * 4 + i / 4) as u8);
        assert_eq!(<u128 as Square<16>>::transposed(bytes), want);
        let pairs: [u8; 8] = [0, 1, 2, 3, 4, 5, 6, 7];
        assert_eq!(
            <u64 as Square<8>>::transposed(pairs),
            [0, 1, 4, 5, 2, 3, 6, 7]
        );
    }
}
