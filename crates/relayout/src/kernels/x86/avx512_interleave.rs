//! AVX-512 interleaving for large relayouts to and from XLA's packing tiles
//! (see `interleave.rs`): `M` (2 or 4) rows of `N`-byte elements (1, 2 or
//! 4 bytes) zipped into one run, 64 bytes of each row at a time, with
//! two-table permutes (`vpermt2b/w/d`), and back. Whole 64-byte lines of
//! the destination are written with streaming stores where they start a
//! line. Run only where `simd_level()` found AVX-512 (see `simd.rs`).
//!
//! Measured on `bf16[4096,4096]` to `T(8,128)(2,1)` and back (AMD EPYC, times
//! a plain copy of the same 32 MiB, 64-byte aligned buffers): 0.9–1.0× and
//! 0.77× (1.62× and 1.72× with the vectorised loops of `interleave.rs`).
//!
//! The `unsafe` here: calling the `#[target_feature]` code, and the
//! intrinsics' raw-pointer loads and stores, each on a reference to
//! exactly the 64 bytes it moves.

use core::arch::x86_64::{
    __m512i, _MM_HINT_T0, _mm_prefetch, _mm512_setzero_si512, _mm512_storeu_si512,
    _mm512_stream_si512,
};

pub(crate) use super::avx512::sfence as fence;
use super::avx512::{load, permute};
use crate::simd::{SimdLevel, simd_level};

/// Zips the first `k - k mod (64 / N)` elements of each of the `M` rows
/// into `out` (`k · M` elements; element `j` of row `i` at `j · M + i`);
/// returns how many elements of each row it zipped (0 where AVX-512 is
/// missing or `N`, `M` have no kernel).
pub(crate) fn pack<const N: usize, const M: usize>(
    rows: &[&[[u8; N]]; M],
    out: &mut [[u8; N]],
    stream: bool,
) -> usize {
    if !applies::<N, M>() {
        return 0;
    }
    // SAFETY: `simd_level()` is `Avx512` only if `is_x86_feature_detected!`
    // found AVX-512 F, BW and VBMI (forcing can only lower it).
    #[allow(unsafe_code)]
    unsafe {
        pack_avx512::<N, M>(rows, out, stream)
    }
}

/// Splits the first `k - k mod (64 / N)` groups of `packed` (`k` groups of
/// `M` elements) into the `M` rows; returns how many elements of each row
/// it wrote (0 as for [`pack`]).
pub(crate) fn unpack<const N: usize, const M: usize>(
    packed: &[[u8; N]],
    rows: &mut [&mut [[u8; N]]; M],
    stream: bool,
) -> usize {
    if !applies::<N, M>() {
        return 0;
    }
    // SAFETY: as in `pack`.
    #[allow(unsafe_code)]
    unsafe {
        unpack_avx512::<N, M>(packed, rows, stream)
    }
}

/// Whether this CPU runs the kernels and `N`, `M` have one.
fn applies<const N: usize, const M: usize>() -> bool {
    simd_level() >= SimdLevel::Avx512 && matches!(N, 1 | 2 | 4) && matches!(M, 2 | 4)
}

#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn pack_avx512<const N: usize, const M: usize>(
    rows: &[&[[u8; N]]; M],
    out: &mut [[u8; N]],
    stream: bool,
) -> usize {
    let indices = const { zip_indices::<N>() };
    let (zip_low, zip_high) = (load(&indices[0]), load(&indices[1]));
    // A loop, not `map`: the closure of a `map` here is not inlined.
    let mut lines: [&[[u8; 64]]; M] = [&[]; M];
    for (line, row) in lines.iter_mut().zip(rows) {
        *line = row.as_flattened().as_chunks::<64>().0;
    }
    let count = lines.iter().map(|l| l.len()).min().unwrap_or(0);
    let out_lines = out.as_flattened_mut().as_chunks_mut::<64>().0;
    for (j, outs) in out_lines.chunks_exact_mut(M).take(count).enumerate() {
        let mut regs = [_mm512_setzero_si512(); M];
        for (reg, row) in regs.iter_mut().zip(&lines) {
            *reg = load(&row[j]);
            if stream {
                prefetch(row[j].as_ptr().wrapping_add(PREFETCH_AHEAD));
            }
        }
        let (first, second) = if M == 2 {
            (regs[0], regs[1])
        } else {
            // Rows 0 and 2, 1 and 3 first: then zipping those zips gives
            // the order 0, 1, 2, 3.
            let (ac_low, ac_high) = zip::<N>(regs[0], regs[2], zip_low, zip_high);
            let (bd_low, bd_high) = zip::<N>(regs[1], regs[3], zip_low, zip_high);
            let (o0, o1) = zip::<N>(ac_low, bd_low, zip_low, zip_high);
            let (o2, o3) = zip::<N>(ac_high, bd_high, zip_low, zip_high);
            store(o0, &mut outs[0], stream);
            store(o1, &mut outs[1], stream);
            store(o2, &mut outs[2], stream);
            store(o3, &mut outs[3], stream);
            continue;
        };
        let (o0, o1) = zip::<N>(first, second, zip_low, zip_high);
        store(o0, &mut outs[0], stream);
        store(o1, &mut outs[1], stream);
    }
    count * 64 / N
}

#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn unpack_avx512<const N: usize, const M: usize>(
    packed: &[[u8; N]],
    rows: &mut [&mut [[u8; N]]; M],
    stream: bool,
) -> usize {
    let [even, odd] = const { unzip_indices::<N>() }.map(|v| load(&v));
    let lines = packed.as_flattened().as_chunks::<64>().0;
    let mut outs: [&mut [[u8; 64]]; M] = core::array::from_fn(|_| &mut [][..]);
    for (out, row) in outs.iter_mut().zip(rows.iter_mut()) {
        *out = row.as_flattened_mut().as_chunks_mut::<64>().0;
    }
    let count = outs.iter().map(|o| o.len()).min().unwrap_or(0);
    for (j, ins) in lines.chunks_exact(M).take(count).enumerate() {
        let mut regs = [_mm512_setzero_si512(); M];
        for (reg, line) in regs.iter_mut().zip(ins) {
            *reg = load(line);
        }
        if M == 2 {
            let (a, b) = unzip::<N>(regs[0], regs[1], even, odd);
            store(a, &mut outs[0][j], stream);
            store(b, &mut outs[1][j], stream);
        } else {
            // Even elements are rows 0 and 2 in turn, odd ones 1 and 3.
            let (ac_01, bd_01) = unzip::<N>(regs[0], regs[1], even, odd);
            let (ac_23, bd_23) = unzip::<N>(regs[2], regs[3], even, odd);
            let (a, c) = unzip::<N>(ac_01, ac_23, even, odd);
            let (b, d) = unzip::<N>(bd_01, bd_23, even, odd);
            store(a, &mut outs[0][j], stream);
            store(b, &mut outs[1][j], stream);
            store(c, &mut outs[2][j], stream);
            store(d, &mut outs[3][j], stream);
        }
    }
    count * 64 / N
}

/// The two halves of the element-by-element zip of `a` and `b`.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[inline]
pub(super) fn zip<const N: usize>(
    a: __m512i,
    b: __m512i,
    low: __m512i,
    high: __m512i,
) -> (__m512i, __m512i) {
    (permute::<N>(a, low, b), permute::<N>(a, high, b))
}

/// The even and the odd elements of `a` then `b`.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[inline]
pub(super) fn unzip<const N: usize>(
    a: __m512i,
    b: __m512i,
    even: __m512i,
    odd: __m512i,
) -> (__m512i, __m512i) {
    (permute::<N>(a, even, b), permute::<N>(a, odd, b))
}

/// The index vectors of a zip of `E = 64 / N` elements: the low half takes
/// element `i` of each input in turn, the high half element `E/2 + i`.
pub(super) const fn zip_indices<const N: usize>() -> [[u8; 64]; 2] {
    let e = 64 / N;
    let mut indices = [[0_u8; 64]; 2];
    let mut i = 0;
    while i < e / 2 {
        let mut half = 0;
        while half < 2 {
            let from = half * e / 2 + i;
            indices[half][2 * i * N] = from as u8;
            indices[half][(2 * i + 1) * N] = (e + from) as u8;
            half += 1;
        }
        i += 1;
    }
    indices
}

/// The index vectors of an unzip of `E = 64 / N` elements: the even and
/// the odd ones of the `2E` inputs.
pub(super) const fn unzip_indices<const N: usize>() -> [[u8; 64]; 2] {
    let e = 64 / N;
    let mut indices = [[0_u8; 64]; 2];
    let mut i = 0;
    while i < e {
        indices[0][i * N] = (2 * i) as u8;
        indices[1][i * N] = (2 * i + 1) as u8;
        i += 1;
    }
    indices
}

/// How far ahead along each row [`pack`] prefetches: the rows of a packing
/// tile are read a tile's width at a time, `M` at once, which the
/// hardware prefetchers follow badly. Measured (`bf16[4096,4096]` to
/// `T(8,128)(2,1)`, times a plain copy of 32 MiB, 64-byte aligned buffers,
/// alternating runs): no prefetch 1.6; 256 bytes ahead 1.1; 512 0.89,
/// 0.98, 0.90; 1024 1.3; 2048 0.94, 1.09, 1.08. Only relayouts large
/// enough to stream prefetch: in cache the lines are there already.
pub(super) const PREFETCH_AHEAD: usize = 512;

/// Prefetches the line at `address` into all cache levels (a hint: never
/// faults, whatever the address).
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) fn prefetch(address: *const u8) {
    // A safe intrinsic: a prefetch reads nothing architecturally.
    _mm_prefetch::<_MM_HINT_T0>(address.cast());
}

/// Stores 64 bytes, with a streaming store if `stream` and they start a
/// 64-byte line.
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) fn store(reg: __m512i, bytes: &mut [u8; 64], stream: bool) {
    let ptr = bytes.as_mut_ptr();
    // SAFETY: 64 writable bytes; the streaming store only where aligned.
    #[allow(unsafe_code)]
    unsafe {
        if stream && ptr.addr().is_multiple_of(64) {
            _mm512_stream_si512(ptr.cast(), reg);
        } else {
            _mm512_storeu_si512(ptr.cast(), reg);
        }
    }
}
