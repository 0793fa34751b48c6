//! The parallel entries of the relayout engine, on the same inputs as
//! `relayout`: under `cfg(fuzzing)` `MIN_BYTES_PER_THREAD` is 64 bytes, so
//! that small arrays are split into chunks on rayon pools (the global one
//! and a caller's pool of 3 threads). Each entry must write the same bytes
//! and return the same result (the same error) as `relayout`.

use std::num::NonZeroUsize;
use std::sync::OnceLock;

use rayon::{ThreadPool, ThreadPoolBuilder};
use relayout::{RelayoutError, relayout_in_pool, relayout_parallel, relayout_with_threads};
use stride_util::StridedView;

/// A caller's pool of 3 threads, built once.
pub fn pool() -> &'static ThreadPool {
    static POOL: OnceLock<ThreadPool> = OnceLock::new();
    POOL.get_or_init(|| {
        ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap_or_else(|e| panic!("{e}"))
    })
}

/// A relayout by the parallel entry that `pick` chooses: the default
/// entry on the global pool, `relayout_in_pool` on the pool of 3, or a
/// split into 2..=9 chunks or a million (capped) on either pool.
pub fn relayout_by(
    pick: u64,
    src: &[u8],
    src_view: &StridedView,
    dst: &mut [u8],
    dst_view: &StridedView,
    element_size: usize,
) -> Result<(), RelayoutError> {
    let count = match pick >> 2 & 15 {
        15 => 1_000_000,
        k => 2 + k as usize % 8,
    };
    let threads = NonZeroUsize::new(count).unwrap_or(NonZeroUsize::MIN);
    match pick & 3 {
        0 => relayout_parallel(src, src_view, dst, dst_view, element_size),
        1 => relayout_in_pool(pool(), src, src_view, dst, dst_view, element_size),
        2 => pool()
            .install(|| relayout_with_threads(src, src_view, dst, dst_view, element_size, threads)),
        _ => relayout_with_threads(src, src_view, dst, dst_view, element_size, threads),
    }
}

/// Checks the parallel entry `pick` against `relayout`'s outcome: its
/// result `expected` and the destination it left (`expected_dst`, from
/// `initial`).
#[allow(clippy::too_many_arguments)]
pub fn check(
    pick: u64,
    src: &[u8],
    src_view: &StridedView,
    initial: &[u8],
    dst_view: &StridedView,
    element_size: usize,
    expected: &Result<(), RelayoutError>,
    expected_dst: &[u8],
) {
    let mut dst = initial.to_vec();
    let result = relayout_by(pick, src, src_view, &mut dst, dst_view, element_size);
    assert_eq!(
        &result,
        expected,
        "parallel entry {} on {src_view:?} -> {dst_view:?}",
        pick & 3
    );
    assert!(
        dst == expected_dst,
        "parallel entry {} wrote other bytes: {src_view:?} -> {dst_view:?}",
        pick & 3
    );
}
