//! Valid relayouts at the sizes that select every kernel of the engine
//! (`cfg(fuzzing)` lowers its size thresholds: tiles of at most 32 rows of
//! 32 elements, streaming from 1 KiB): permuted, padded and flipped views
//! on both sides, element sizes 1..=17 and sub-byte 1, 2 and 4 bits,
//! against a naive copy, at a SIMD level drawn from those this CPU has
//! (scalar, SSE2, AVX2), and the same by a parallel entry on a rayon pool
//! (`parallel/mod.rs`). Counts the cases per strategy, and the tiled ones
//! per SIMD level, and prints them to stderr at every power of two of
//! cases from 1024.

use std::sync::atomic::{AtomicU64, Ordering};

use arbitrary::Arbitrary;
use relayout::{
    SimdLevel, Strategy, detected_simd_level, force_simd_level, relayout, relayout_bits,
    relayout_strategy,
};
use stride_util::StridedView;

use crate::common::for_each_index;

/// One side of a relayout: a permuted, padded row-major layout, flipped
/// along some axes, at an offset.
#[derive(Arbitrary, Debug)]
pub struct Side {
    /// Picks the physical order, outermost first (Lehmer code digits).
    permutation: Vec<u8>,
    /// Extra padded extent per dimension (`% 4`).
    padding: Vec<u8>,
    /// Bit `i` flips dimension `i`.
    flips: u8,
    offset: u8,
}

/// Element sizes drawn: whole bytes 1..=17, then 1, 2 and 4 bits.
const SIZES: usize = 20;

/// Cases per strategy (`Strategy` in declaration order), then sub-byte,
/// then the transposes (tiled or streaming) per SIMD level.
static COUNTS: [AtomicU64; 12] = [const { AtomicU64::new(0) }; 12];
const NAMES: [&str; 12] = [
    "empty",
    "single-copy",
    "runs",
    "tiled",
    "streaming",
    "strided",
    "elements",
    "sub-byte",
    "tiled scalar",
    "tiled sse2",
    "tiled avx2",
    "transposes avx512",
];

fn count(slot: usize) {
    COUNTS[slot].fetch_add(1, Ordering::Relaxed);
    let total: u64 = COUNTS[..8].iter().map(|c| c.load(Ordering::Relaxed)).sum();
    if total >= 1024 && total.is_power_of_two() {
        let counts: Vec<String> = NAMES
            .iter()
            .zip(&COUNTS)
            .map(|(name, c)| format!("{name} {}", c.load(Ordering::Relaxed)))
            .collect();
        eprintln!(
            "relayout kernels after {total} cases: {}",
            counts.join(", ")
        );
    }
}

fn slot(strategy: Strategy) -> usize {
    match strategy {
        Strategy::Empty => 0,
        Strategy::SingleCopy => 1,
        Strategy::Runs => 2,
        Strategy::Tiled => 3,
        Strategy::Streaming => 4,
        Strategy::Strided => 5,
        _ => 6,
    }
}

/// The slot of the transposes at `level`.
fn level_slot(level: SimdLevel) -> usize {
    match level {
        SimdLevel::Scalar => 8,
        SimdLevel::Sse2 => 9,
        SimdLevel::Avx2 => 10,
        _ => 11,
    }
}

/// The view of `side` over `sizes`.
fn view(side: &Side, sizes: &[i64]) -> StridedView {
    let rank = sizes.len();
    let order = crate::permutation(&side.permutation, rank);
    let padded: Vec<i64> = (0..rank)
        .map(|d| sizes[d] + i64::from(side.padding.get(d).copied().unwrap_or(0) % 4))
        .collect();
    let mut strides = vec![0; rank];
    let mut stride = 1;
    for &d in order.iter().rev() {
        strides[d] = stride;
        stride *= padded[d];
    }
    let mut offset = i64::from(side.offset % 8);
    for d in 0..rank {
        if side.flips >> d & 1 == 1 && sizes[d] > 0 {
            offset += (sizes[d] - 1) * strides[d];
            strides[d] = -strides[d];
        }
    }
    StridedView::new(sizes, &strides, offset).unwrap_or_else(|e| panic!("{e}"))
}

/// Reads element `k` of `bits` bits (whole bytes or packed).
fn get(buffer: &[u8], k: usize, bits: usize) -> Vec<u8> {
    if bits >= 8 {
        buffer[k * bits / 8..(k + 1) * bits / 8].to_vec()
    } else {
        let per_byte = 8 / bits;
        vec![(buffer[k / per_byte] >> (bits * (k % per_byte))) & ((1 << bits) - 1)]
    }
}

/// Writes element `k` of `bits` bits.
fn set(buffer: &mut [u8], k: usize, bits: usize, value: &[u8]) {
    if bits >= 8 {
        buffer[k * bits / 8..(k + 1) * bits / 8].copy_from_slice(value);
    } else {
        let per_byte = 8 / bits;
        let (byte, shift) = (k / per_byte, bits * (k % per_byte));
        let mask = ((1_u16 << bits) - 1) as u8;
        buffer[byte] = (buffer[byte] & !(mask << shift)) | ((value[0] & mask) << shift);
    }
}

/// At most this many elements per case.
const MAX_ELEMENTS: i64 = 1 << 11;

pub fn check(element: u8, sizes: &[u8], src: &Side, dst: &Side, seed: u64) {
    let bits = match usize::from(element) % SIZES {
        17 => 1,
        18 => 2,
        19 => 4,
        bytes => 8 * (bytes + 1),
    };
    let mut sizes: Vec<i64> = sizes.iter().take(4).map(|&s| i64::from(s % 64)).collect();
    while sizes.iter().product::<i64>() > MAX_ELEMENTS {
        if let Some(largest) = sizes.iter_mut().max() {
            *largest /= 2;
        }
    }
    let (src_view, dst_view) = (view(src, &sizes), view(dst, &sizes));
    let capacity = |view: &StridedView| {
        let elements = view.min_buffer_len().unwrap_or(0) as usize;
        (elements * bits).div_ceil(8)
    };
    let src_bytes = crate::bytes(seed, capacity(&src_view));
    let initial = crate::bytes(!seed, capacity(&dst_view) + 3);
    let mut got = initial.clone();
    let levels: Vec<SimdLevel> = detected_simd_level().and_below().collect();
    let level = force_simd_level(Some(levels[(seed >> 56) as usize % levels.len()]));
    let result = if bits % 8 == 0 {
        let strategy = relayout_strategy(&src_view, &dst_view, bits / 8);
        if matches!(strategy, Strategy::Tiled | Strategy::Streaming) {
            COUNTS[level_slot(level)].fetch_add(1, Ordering::Relaxed);
        }
        count(slot(strategy));
        let result = relayout(&src_bytes, &src_view, &mut got, &dst_view, bits / 8);
        crate::parallel::check(
            seed >> 40,
            &src_bytes,
            &src_view,
            &initial,
            &dst_view,
            bits / 8,
            &result,
            &got,
        );
        result
    } else {
        count(7);
        relayout_bits(&src_bytes, &src_view, &mut got, &dst_view, bits as u32)
    };
    if let Err(error) = result {
        panic!("relayout {src_view:?} -> {dst_view:?} ({bits} bits): {error}");
    }
    let mut expected = initial;
    let at = |view: &StridedView, index: &[i64]| {
        let offset = view.offset()
            + index
                .iter()
                .zip(view.strides())
                .map(|(i, s)| i * s)
                .sum::<i64>();
        offset as usize
    };
    for_each_index(&sizes, |index| {
        let value = get(&src_bytes, at(&src_view, index), bits);
        set(&mut expected, at(&dst_view, index), bits, &value);
    });
    assert_eq!(got, expected, "{src_view:?} -> {dst_view:?} ({bits} bits)");
}
