//! Naive reference helpers shared by the integration tests.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, dead_code)]

use stride_util::StridedView;

/// Every multi-index of `sizes` in row-major order.
pub fn logical_indices(sizes: &[i64]) -> Vec<Vec<i64>> {
    let mut all = vec![vec![]];
    for &size in sizes {
        all = all
            .into_iter()
            .flat_map(|prefix| {
                (0..size).map(move |i| {
                    let mut next = prefix.clone();
                    next.push(i);
                    next
                })
            })
            .collect();
    }
    all
}

/// `offset + Σ index · stride`, computed from scratch.
pub fn naive_offset(view: &StridedView, index: &[i64]) -> i64 {
    view.offset()
        + index
            .iter()
            .zip(view.strides())
            .map(|(i, s)| i * s)
            .sum::<i64>()
}
