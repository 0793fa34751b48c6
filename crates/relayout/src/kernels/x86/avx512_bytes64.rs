//! A 64 × 64 byte transpose in AVX-512 registers, between the caller's
//! loads and stores: 64 lines of 64 bytes in, 64 lines out, line `x` of
//! the result byte `x` of each line in. Four groups of 16 lines are each a
//! 16 × 16 transpose of 4-byte quads (`unpack_dwords`), after which one
//! byte permute (`vpermb`) puts byte `r` of the 16 quads of one column
//! into lane `r`; four such registers, one per group, exchange their
//! 128-bit lanes (`transpose_lanes`) into four output lines: 7 shuffles a
//! line, and one store and load of a 4 KiB stack buffer where the groups
//! meet. The quad transposes into and out of tiles (`avx512_quads.rs`)
//! and the packed 4-bit transposes (`avx512_nibble_rows.rs`) are this
//! with their own loads and stores. Run only from code that
//! `simd_level()` found AVX-512 F, BW and VBMI for (see `simd.rs`).
//!
//! The `unsafe` here: the lines the callers load and store, without
//! bounds checks, each inside its buffer by the caller's checks.

use core::arch::x86_64::{__m512i, _mm512_permutexvar_epi8, _mm512_setzero_si512};

use super::avx512::{transpose_lanes, unpack_dwords};

/// The byte permute of a transposed column of 16 quads: byte `r` of quad
/// `j` (at `4j + r`) to `16r + j`.
pub(super) const fn gather_indices() -> [u8; 64] {
    let mut indices = [0; 64];
    let mut at = 0;
    while at < 64 {
        let (r, j) = (at / 16, at % 16);
        indices[at] = (4 * j + r) as u8;
        at += 1;
    }
    indices
}

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

/// A 64 × 64 byte transpose: `load(s, lines)` gives input lines from
/// `16s` on, 16 of them (`s` from 0 to 3, in order), `store(x, line)`
/// takes output line `x`, byte `x` of each input line in order (`x` from
/// 0 to 63, in order). Each group of 16 lines is a 16 × 16 transpose of
/// 4-byte quads, whose columns a byte permute (`gather`,
/// [`gather_indices`]) turns into four 16-byte lanes of one byte of each
/// quad, kept in `columns` (`16s + k` for quad column `k`, see
/// [`gather_columns`]); the lanes of a column's four groups then exchange
/// into its four output lines ([`column_lines`]).
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[inline]
pub(super) fn transpose64(
    columns: &mut [__m512i; 64],
    gather: __m512i,
    load: impl FnMut(usize, &mut [__m512i; 16]),
    mut store: impl FnMut(usize, __m512i),
) {
    gather_columns(columns, gather, load);
    for k in 0..16 {
        for (r, reg) in column_lines(columns, k).into_iter().enumerate() {
            store(4 * k + r, reg);
        }
    }
}

/// Two 64 × 64 byte transposes side by side, as [`transpose64`] each:
/// `load(t, s, lines)` gives transpose `t`'s input lines from `16s` on,
/// `store(x, [a, b])` output line `x` of each.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[inline]
pub(super) fn transpose64_pair(
    columns: &mut [[__m512i; 64]; 2],
    gather: __m512i,
    mut load: impl FnMut(usize, usize, &mut [__m512i; 16]),
    mut store: impl FnMut(usize, [__m512i; 2]),
) {
    for (t, columns) in columns.iter_mut().enumerate() {
        gather_columns(columns, gather, |s, lines| load(t, s, lines));
    }
    for k in 0..16 {
        let [a, b] = [column_lines(&columns[0], k), column_lines(&columns[1], k)];
        for (r, pair) in a.into_iter().zip(b).enumerate() {
            store(4 * k + r, pair.into());
        }
    }
}

/// The first half of [`transpose64`]: each group of 16 input lines
/// transposed as quads, each quad column's bytes gathered into lanes.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[inline]
fn gather_columns(
    columns: &mut [__m512i; 64],
    gather: __m512i,
    mut load: impl FnMut(usize, &mut [__m512i; 16]),
) {
    let mut lines = [_mm512_setzero_si512(); 16];
    for s in 0..4 {
        load(s, &mut lines);
        let transposed = unpack_dwords::<16>(lines);
        for (k, &quads) in transposed.iter().enumerate() {
            columns[16 * s + k] = _mm512_permutexvar_epi8(gather, quads);
        }
    }
}

/// The second half of [`transpose64`]: output lines `4k..4k + 4`, from
/// quad column `k` of the four groups.
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
