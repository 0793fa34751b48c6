//! The AVX-512 interleaving of `avx512_interleave.rs` over many runs in
//! one call, for copies in cache (ordinary stores): where every run's
//! rows are whole 64-byte pieces (`k` a multiple of `64 / N`), one bounds
//! check per run and the runs' zips in one loop, instead of a call, its
//! slices and its index vectors per run. Runs of packing tiles are short
//! (a tile's row, 128 elements: two or four 64-byte pieces a row), so in
//! cache the calls cost as much as the zips.
//!
//! The `unsafe` here: calling the `#[target_feature]` code, and the
//! intrinsics' raw-pointer loads and stores inside the runs that the
//! bounds check vouched for.

use core::arch::x86_64::{_mm512_loadu_si512, _mm512_setzero_si512, _mm512_storeu_si512};

use super::avx512::load;
use super::avx512_interleave::{unzip, unzip_indices, zip, zip_indices};
use crate::simd::{SimdLevel, simd_level};

/// The shape of the runs of one copy: `M` rows of `k` elements of `N`
/// bytes, `stride` elements apart on the rows' side.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RunShape {
    pub(crate) k: usize,
    pub(crate) stride: usize,
}

impl RunShape {
    /// Whether the kernels take runs of this shape with `N`-byte elements
    /// and `M` rows on this CPU: rows of whole 64-byte pieces that do not
    /// overlap.
    fn applies<const N: usize, const M: usize>(&self) -> bool {
        simd_level() >= SimdLevel::Avx512
            && matches!(N, 1 | 2 | 4)
            && matches!(M, 2 | 4)
            && self.k > 0
            && self.k.is_multiple_of(64 / N)
            && self.stride >= self.k
    }

    /// Elements from the first row's start to the last row's end, and
    /// elements of the zipped run: `None` on overflow.
    fn spans<const M: usize>(&self) -> Option<(usize, usize)> {
        let rows = self.stride.checked_mul(M - 1)?.checked_add(self.k)?;
        Some((rows, self.k.checked_mul(M)?))
    }
}

/// Whether `len` elements from `start` end within `limit`.
fn fits(start: usize, len: usize, limit: usize) -> bool {
    start.checked_add(len).is_some_and(|end| end <= limit)
}

/// Zips, if `packing`, for each `(s, d)` of `runs`, the `M` rows of
/// `shape.k` elements at `s + i · shape.stride` of `src` into the `k · M`
/// elements at `d` of `dst` (element `j` of row `i` at `d + j · M + i`);
/// else splits the `k · M` elements at `s` of `src` into the `M` rows of
/// `k` elements at `d + i · shape.stride` of `dst`, the inverse. `false`,
/// nothing written, where the kernels do not take the shape (see
/// [`RunShape::applies`]) or a run is outside its buffer.
pub(crate) fn copy_runs<const N: usize, const M: usize>(
    src: &[[u8; N]],
    dst: &mut [[u8; N]],
    runs: &[(usize, usize)],
    shape: RunShape,
    packing: bool,
) -> bool {
    let Some((rows, zipped)) = shape.spans::<M>() else {
        return false;
    };
    let (from, to) = if packing {
        (rows, zipped)
    } else {
        (zipped, rows)
    };
    if !shape.applies::<N, M>()
        || !runs
            .iter()
            .all(|&(s, d)| fits(s, from, src.len()) && fits(d, to, dst.len()))
    {
        return false;
    }
    let (src, dst) = (src.as_ptr().cast(), dst.as_mut_ptr().cast());
    // SAFETY: `applies` found AVX-512 F, BW and VBMI on this CPU
    // (`simd_level()` is `Avx512` only then; forcing can only lower it);
    // every run's rows and its zipped run are inside the buffers (checked
    // above), and `dst` is borrowed exclusively.
    #[allow(unsafe_code)]
    unsafe {
        if packing {
            pack_avx512::<N, M>(src, dst, runs, shape);
        } else {
            unpack_avx512::<N, M>(src, dst, runs, shape);
        }
    }
    true
}

/// The runs of [`copy_runs`] packing, at the bytes `src` and `dst`.
///
/// # Safety
///
/// Every run's rows must be readable and its zipped run writable, and no
/// other reference may access the latter meanwhile.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[allow(unsafe_code)]
unsafe fn pack_avx512<const N: usize, const M: usize>(
    src: *const u8,
    dst: *mut u8,
    runs: &[(usize, usize)],
    shape: RunShape,
) {
    let indices = const { zip_indices::<N>() };
    let (low, high) = (load(&indices[0]), load(&indices[1]));
    let (row_bytes, pieces) = (shape.stride * N, shape.k * N / 64);
    for &(s, d) in runs {
        let (first, mut out) = (src.wrapping_add(s * N), dst.wrapping_add(d * N));
        for j in 0..pieces {
            let mut regs = [_mm512_setzero_si512(); M];
            for (i, reg) in regs.iter_mut().enumerate() {
                let piece = first.wrapping_add(i * row_bytes + 64 * j);
                // SAFETY: 64 bytes of a row (the caller's contract).
                *reg = unsafe { _mm512_loadu_si512(piece.cast()) };
            }
            let mut zipped = [_mm512_setzero_si512(); M];
            if M == 2 {
                (zipped[0], zipped[1]) = zip::<N>(regs[0], regs[1], low, high);
            } else {
                // Rows 0 and 2, 1 and 3 first: then zipping those zips
                // gives the order 0, 1, 2, 3.
                let (ac_low, ac_high) = zip::<N>(regs[0], regs[2], low, high);
                let (bd_low, bd_high) = zip::<N>(regs[1], regs[3], low, high);
                (zipped[0], zipped[1]) = zip::<N>(ac_low, bd_low, low, high);
                (zipped[2], zipped[3]) = zip::<N>(ac_high, bd_high, low, high);
            }
            for reg in zipped {
                // SAFETY: 64 bytes of the zipped run (the caller's
                // contract).
                unsafe { _mm512_storeu_si512(out.cast(), reg) };
                out = out.wrapping_add(64);
            }
        }
    }
}

/// The runs of [`copy_runs`] not packing, at the bytes `src` and `dst`.
///
/// # Safety
///
/// Every zipped run must be readable and its rows writable, and no other
/// reference may access the latter meanwhile.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[allow(unsafe_code)]
unsafe fn unpack_avx512<const N: usize, const M: usize>(
    src: *const u8,
    dst: *mut u8,
    runs: &[(usize, usize)],
    shape: RunShape,
) {
    let [even, odd] = const { unzip_indices::<N>() }.map(|v| load(&v));
    let (row_bytes, pieces) = (shape.stride * N, shape.k * N / 64);
    for &(s, d) in runs {
        let (mut from, first) = (src.wrapping_add(s * N), dst.wrapping_add(d * N));
        for j in 0..pieces {
            let mut regs = [_mm512_setzero_si512(); M];
            for reg in &mut regs {
                // SAFETY: 64 bytes of the zipped run (the caller's
                // contract).
                *reg = unsafe { _mm512_loadu_si512(from.cast()) };
                from = from.wrapping_add(64);
            }
            let mut rows = [_mm512_setzero_si512(); M];
            if M == 2 {
                (rows[0], rows[1]) = unzip::<N>(regs[0], regs[1], even, odd);
            } else {
                // Even elements are rows 0 and 2 in turn, odd ones 1 and 3.
                let (ac_01, bd_01) = unzip::<N>(regs[0], regs[1], even, odd);
                let (ac_23, bd_23) = unzip::<N>(regs[2], regs[3], even, odd);
                (rows[0], rows[2]) = unzip::<N>(ac_01, ac_23, even, odd);
                (rows[1], rows[3]) = unzip::<N>(bd_01, bd_23, even, odd);
            }
            for (i, reg) in rows.into_iter().enumerate() {
                let at = first.wrapping_add(i * row_bytes + 64 * j);
                // SAFETY: 64 bytes of a row (the caller's contract).
                unsafe { _mm512_storeu_si512(at.cast(), reg) };
            }
        }
    }
}
