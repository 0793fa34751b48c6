//! A 64 × 64 byte transpose in AVX-512 registers, between the caller's
//! loads and stores: 64 lines of 64 bytes in, 64 lines out, line `x` of
//! the result byte `x` of each line in. Four groups of 16 lines are each
//! transposed within their 128-bit lanes (`unpack_bytes`: four rounds of
//! in-lane unpacks), after which register `k` of a group holds, in lane
//! `L`, column `16 L + k` of the group's rows; the four groups' registers
//! `k` exchange their lanes (`transpose_lanes`) into four output lines: 6
//! shuffles a line, and one store and load of a 4 KiB stack buffer where
//! the groups meet. The quad transposes into and out of tiles
//! (`avx512_quads.rs`) and the packed 4-bit transposes
//! (`avx512_nibble_rows.rs`) are this with their own loads and stores.
//! Run only from code that `simd_level()` found AVX-512 F, BW and VBMI
//! for (see `simd.rs`).
//!
//! Measured on the 2-core AMD EPYC (Zen 4) against 16 × 16 transposes of
//! 4-byte quads and a byte permute a line (7 shuffles a line): both in
//! one build, alternating batches of 20 calls (fastest of 300 ÷ a plain
//! copy), s4\[512,1024\] row-major into column-major 2.66 against 2.99,
//! `{1,0:T(8,128)(2,1)E(4)}` into `{0,1:T(8,128)(2,1)E(4)}` 2.46 against
//! 2.76 (the run-time switch between the two slowed both); two builds
//! alternating (fastest two of five processes), the first 1.89 and 1.81
//! back against 2.32 and 1.90.
//!
//! The `unsafe` here: the lines the callers load and store, without
//! bounds checks, each inside its buffer by the caller's checks.

use core::arch::x86_64::{__m512i, _MM_HINT_T1, _mm_prefetch, _mm512_setzero_si512};

use super::avx512::{transpose_lanes, unpack_bytes};

/// The 64-byte line at `at`, without a bounds check (which, inside the
/// kernels' loops, measured up to 1.7 times their time in cache).
///
/// # Safety
///
/// `at + 64 <= bytes.len()`.
#[inline]
#[allow(unsafe_code)]
pub(super) unsafe fn line(bytes: &[u8], at: usize) -> &[u8; 64] {
    debug_assert!(at.checked_add(64).is_some_and(|end| end <= bytes.len()));
    // SAFETY: the 64 bytes from `at` are inside `bytes` (the caller's
    // contract), and `[u8; 64]` has the alignment of `u8`.
    #[allow(unsafe_code)]
    unsafe {
        &*bytes.as_ptr().add(at).cast::<[u8; 64]>()
    }
}

/// The writable 64-byte line at `at`, without a bounds check (as
/// [`line`]).
///
/// # Safety
///
/// `at + 64 <= bytes.len()`.
#[inline]
#[allow(unsafe_code)]
pub(super) unsafe fn line_mut(bytes: &mut [u8], at: usize) -> &mut [u8; 64] {
    debug_assert!(at.checked_add(64).is_some_and(|end| end <= bytes.len()));
    // SAFETY: as in `line`, and `bytes` is borrowed mutably.
    #[allow(unsafe_code)]
    unsafe {
        &mut *bytes.as_mut_ptr().add(at).cast::<[u8; 64]>()
    }
}

/// Prefetches the line at `address` into L2 (a hint: never faults,
/// whatever the address): in large relayouts, the callers' loads prefetch
/// each source line of the next block as they load the one before, since
/// a block's 64 lines come from 64 or 128 rows or 16 tile columns, more
/// streams than the hardware prefetchers follow. Measured on the 2-core
/// AMD EPYC (Zen 4), one thread, `relayout_matrix --size large --reps 9`,
/// times the faster copy, against none: s4\[4096,4096\] row-major into
/// column-major and back (`avx512_nibble_rows.rs`) 1.91–2.25 and
/// 1.91–2.13 against 2.06–3.66 and 2.22–4.83 (two blocks on, or two
/// blocks written a visit, the first's lines held: within the noise);
/// two runs (`avx512_quads.rs`): row-major into `{0,1:T(8,128)(2,1)E(4)}`
/// 1.42–1.48 against 2.43–2.74, column-major into `T(8,128)(2,1)E(4)`
/// 1.38–1.69 against 2.54–2.75, `T(8,128)(2,1)E(4)` out into column-major
/// 2.01–2.32 against 2.95–3.38, `{0,1:T(8,128)(2,1)E(4)}` into row-major
/// 1.92–2.24 against 2.80–2.87, the tiles into tiles of the other pairing
/// 1.58–1.94 against 1.96–2.37.
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) fn prefetch_l2(address: *const u8) {
    _mm_prefetch::<_MM_HINT_T1>(address.cast());
}

/// A 64 × 64 byte transpose: `load(s, lines)` gives input lines from
/// `16s` on, 16 of them (`s` from 0 to 3, in order), `store(x, line)`
/// takes output line `x`, byte `x` of each input line in order, every
/// line once, in runs of four consecutive lines (`4y..4y + 4`). Each
/// group of 16 lines is transposed within its lanes and kept in `columns`
/// (`16s + k` for register `k`, see [`group_columns`]); the lanes of the
/// four groups' registers `k` then exchange into output lines `k`, `16 +
/// k`, `32 + k` and `48 + k` ([`column_lines`]).
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[inline]
pub(super) fn transpose64(
    columns: &mut [__m512i; 64],
    load: impl FnMut(usize, &mut [__m512i; 16]),
    mut store: impl FnMut(usize, __m512i),
) {
    group_columns(columns, load);
    for k0 in (0..16).step_by(4) {
        // A loop, not `core::array::from_fn`: its closure would not be
        // compiled for this function's target features, nor inline
        // `column_lines`.
        let mut lines = [[_mm512_setzero_si512(); 4]; 4];
        for (i, regs) in lines.iter_mut().enumerate() {
            *regs = column_lines(columns, k0 + i);
        }
        for lane in 0..4 {
            for (i, regs) in lines.iter().enumerate() {
                store(16 * lane + k0 + i, regs[lane]);
            }
        }
    }
}

/// Two 64 × 64 byte transposes side by side, as [`transpose64`] each:
/// `load(t, s, lines)` gives transpose `t`'s input lines from `16s` on,
/// `store(x, [a, b])` output line `x` of each, every `x` once, in the
/// order `k`, `16 + k`, `32 + k`, `48 + k` for each `k` (the runs of four
/// of [`transpose64`] would hold 32 registers).
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[inline]
pub(super) fn transpose64_pair(
    columns: &mut [[__m512i; 64]; 2],
    mut load: impl FnMut(usize, usize, &mut [__m512i; 16]),
    mut store: impl FnMut(usize, [__m512i; 2]),
) {
    for (t, columns) in columns.iter_mut().enumerate() {
        group_columns(columns, |s, lines| load(t, s, lines));
    }
    for k in 0..16 {
        let [a, b] = [column_lines(&columns[0], k), column_lines(&columns[1], k)];
        for (lane, pair) in a.into_iter().zip(b).enumerate() {
            store(16 * lane + k, pair.into());
        }
    }
}

/// The first half of [`transpose64`]: each group of 16 input lines
/// transposed within its lanes into `columns`.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[inline]
fn group_columns(columns: &mut [__m512i; 64], mut load: impl FnMut(usize, &mut [__m512i; 16])) {
    let mut lines = [_mm512_setzero_si512(); 16];
    for (s, group) in columns.chunks_exact_mut(16).enumerate() {
        load(s, &mut lines);
        group.copy_from_slice(&unpack_bytes::<16>(lines));
    }
}

/// The second half of [`transpose64`]: output lines `k`, `16 + k`, `32 +
/// k` and `48 + k`, from register `k` of the four groups.
#[target_feature(enable = "avx512f")]
#[inline]
fn column_lines(columns: &[__m512i; 64], k: usize) -> [__m512i; 4] {
    transpose_lanes([
        columns[k],
        columns[16 + k],
        columns[32 + k],
        columns[48 + k],
    ])
}
