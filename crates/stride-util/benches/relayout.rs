//! Relayout throughput, each case beside a plain `copy_from_slice` of the
//! same number of bytes in the same run (compare the two times: the ratio
//! is the relayout's cost over a memcpy). The plain copy is glibc's
//! memcpy: `rep movsb` at these sizes on the 2-core benchmark VM (its
//! non-temporal threshold there is 192 MiB; forced down to 1 MiB the copy
//! of the NCHW case takes 2.0 ms instead of 3.5). Every buffer is a large
//! `Vec<u8>` (its own mapping: 16 bytes past a page boundary), so the copy
//! and the relayout see the same alignment.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use layout_util::LayoutBuilder;
use schema::{PaddingValue, PrimitiveType, Shape};
use stride_util::{StridedView, relayout, relayout_xla};

/// Bytes 0, 1, 2, ... (wrapping), so the buffers are really written.
fn buffer(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i % 251) as u8).collect()
}

/// Benchmarks `plain copy` and `relayout` of `src_view` into `dst_view`.
fn case(
    c: &mut Criterion,
    name: &str,
    src_view: &StridedView,
    dst_view: &StridedView,
    element_size: usize,
) {
    let bytes = src_view.num_elements() as usize * element_size;
    let src = buffer(src_view.min_buffer_len().unwrap() as usize * element_size);
    let mut dst = vec![0u8; dst_view.min_buffer_len().unwrap() as usize * element_size];
    let plain_src = buffer(bytes);
    let mut plain_dst = vec![0u8; bytes];
    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("plain copy", |b| {
        b.iter(|| plain_dst.copy_from_slice(black_box(&plain_src)));
    });
    group.bench_function("relayout", |b| {
        b.iter(|| relayout(black_box(&src), src_view, &mut dst, dst_view, element_size).unwrap());
    });
    group.finish();
}

fn transposes(c: &mut Criterion) {
    let f32_square = StridedView::row_major(&[4096, 4096]).unwrap();
    case(
        c,
        "transpose f32[4096,4096]",
        &f32_square.transpose(),
        &f32_square,
        4,
    );
    let f64_square = StridedView::row_major(&[2048, 2048]).unwrap();
    case(
        c,
        "transpose f64[2048,2048]",
        &f64_square.transpose(),
        &f64_square,
        8,
    );
    let u8_square = StridedView::row_major(&[8192, 8192]).unwrap();
    case(
        c,
        "transpose u8[8192,8192]",
        &u8_square.transpose(),
        &u8_square,
        1,
    );
}

fn image_layouts(c: &mut Criterion) {
    let sizes = [32, 64, 56, 56];
    let nchw = StridedView::nchw(&sizes).unwrap();
    let nhwc = StridedView::nhwc(&sizes).unwrap();
    case(c, "NCHW->NHWC f32[32,64,56,56]", &nchw, &nhwc, 4);
    case(c, "identity f32[32,64,56,56]", &nchw, &nchw, 4);
}

fn shape(padded: Vec<i64>) -> Shape {
    Shape {
        element_type: PrimitiveType::F32 as i32,
        dimensions: vec![32, 64, 56, 56],
        is_dynamic_dimension: vec![false; 4],
        layout: Some(Box::new(
            LayoutBuilder::new(&[3, 2, 1, 0])
                .padded_dimensions(padded)
                .padding_value(PaddingValue::ZeroPad)
                .build(),
        )),
        ..Default::default()
    }
}

/// Packed f32[32,64,56,56] into the same layout with rows padded to 64,
/// padding filled; the plain copy moves the padded buffer's bytes.
fn padded(c: &mut Criterion) {
    let src_shape = shape(vec![]);
    let dst_shape = shape(vec![32, 64, 56, 64]);
    let src = buffer(32 * 64 * 56 * 56 * 4);
    let bytes = 32 * 64 * 56 * 64 * 4;
    let mut dst = vec![0u8; bytes];
    let plain_src = buffer(bytes);
    let mut plain_dst = vec![0u8; bytes];
    let mut group = c.benchmark_group("padded f32[32,64,56,56] rows 56->64");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("plain copy", |b| {
        b.iter(|| plain_dst.copy_from_slice(black_box(&plain_src)));
    });
    group.bench_function("relayout", |b| {
        b.iter(|| relayout_xla(black_box(&src), &src_shape, &mut dst, &dst_shape).unwrap());
    });
    group.finish();
}

/// bf16[4096,4096] row-major into TPU's bf16 tiles `(8,128)(2,1)` and
/// back (no tile padding: the buffers have the same bytes).
fn tiled(c: &mut Criterion) {
    let row_major: Shape = "bf16[4096,4096]{1,0}".parse().unwrap();
    let tiled: Shape = "bf16[4096,4096]{1,0:T(8,128)(2,1)}".parse().unwrap();
    let bytes = 4096 * 4096 * 2;
    let plain_src = buffer(bytes);
    let mut plain_dst = vec![0u8; bytes];
    for (name, from, to) in [
        (
            "tiled bf16[4096,4096] {1,0} -> T(8,128)(2,1)",
            &row_major,
            &tiled,
        ),
        (
            "tiled bf16[4096,4096] T(8,128)(2,1) -> {1,0}",
            &tiled,
            &row_major,
        ),
    ] {
        let src = buffer(bytes);
        let mut dst = vec![0u8; bytes];
        let mut group = c.benchmark_group(name);
        group.throughput(Throughput::Bytes(bytes as u64));
        group.bench_function("plain copy", |b| {
            b.iter(|| plain_dst.copy_from_slice(black_box(&plain_src)));
        });
        group.bench_function("relayout", |b| {
            b.iter(|| relayout_xla(black_box(&src), from, &mut dst, to).unwrap());
        });
        group.finish();
    }
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
}

criterion_group! {
    name = benches;
    config = config();
    targets = transposes, image_layouts, padded, tiled
}
criterion_main!(benches);
