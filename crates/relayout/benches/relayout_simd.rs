//! The relayout kernels at every SIMD level this CPU has (SSE2 and up),
//! side by side in one run beside a plain `copy_from_slice` of the same
//! bytes and a streaming-store copy of them, so that each level's time
//! over the copies' compares without the drift between runs of a shared
//! machine: `cargo bench -p xla-relayout --bench relayout_simd`. Every buffer starts on a 64-byte line;
//! `BENCH_SHIFT=16` moves them all 16 bytes on (see `common/mod.rs`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use relayout::{SimdLevel, detected_simd_level, force_simd_level, relayout};
use stride_util::StridedView;

mod common;
use common::{buffers_for, group_beside_plain_copy};

/// Benchmarks `plain copy`, then `relayout` of `src_view` into `dst_view`
/// at each SIMD level from SSE2 up.
fn case(
    c: &mut Criterion,
    name: &str,
    src_view: &StridedView,
    dst_view: &StridedView,
    element_size: usize,
) {
    let (src, mut dst, bytes) = buffers_for(src_view, dst_view, element_size);
    let mut group = group_beside_plain_copy(c, name, bytes);
    for level in detected_simd_level().and_below() {
        if level < SimdLevel::Sse2 {
            continue;
        }
        force_simd_level(Some(level));
        group.bench_function(format!("relayout {level:?}"), |b| {
            b.iter(|| {
                relayout(black_box(&src), src_view, &mut dst, dst_view, element_size).unwrap();
            });
        });
    }
    force_simd_level(None);
    group.finish();
}

fn transposes(c: &mut Criterion) {
    for (sizes, n, name) in [
        ([4096, 4096], 4, "transpose f32[4096,4096]"),
        ([2048, 2048], 8, "transpose f64[2048,2048]"),
        ([8192, 8192], 1, "transpose u8[8192,8192]"),
        ([4096, 4096], 2, "transpose u16[4096,4096]"),
        ([1024, 1024], 4, "transpose f32[1024,1024]"),
    ] {
        let dst = StridedView::row_major(&sizes).unwrap();
        case(c, name, &dst.transpose(), &dst, n);
    }
    let cube = StridedView::row_major(&[256, 256, 256]).unwrap();
    let permuted = cube.permute(&[2, 0, 1]).unwrap();
    let dst = StridedView::row_major(permuted.sizes()).unwrap();
    case(c, "permute f32[256,256,256] (2,0,1)", &permuted, &dst, 4);
    let sizes = [32, 64, 56, 56];
    let nchw = StridedView::nchw(&sizes).unwrap();
    let nhwc = StridedView::nhwc(&sizes).unwrap();
    case(c, "NCHW->NHWC f32[32,64,56,56]", &nchw, &nhwc, 4);
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
}

criterion_group! {
    name = benches;
    config = config();
    targets = transposes
}
criterion_main!(benches);
