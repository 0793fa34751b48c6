//! Benchmarks of shape-util beside baselines in the same run: validating a
//! 64-element tuple against encoding it with prost (a walk over the same
//! tree), and `reshape_is_bitcast` / `infer_elementwise_binary_op_shape`
//! against cloning their inputs.
//!
//! Run: `cargo bench -p shape-util --bench shape_util -- --warm-up-time 1 --measurement-time 2`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use prost::Message;
use schema::{PrimitiveType, Shape};
use shape_util::{
    infer_elementwise_binary_op_shape, make_shape, make_shape_with_dense_layout, make_tuple_shape,
    reshape_is_bitcast, validate_shape,
};

fn tuple_of_arrays() -> Shape {
    let elements = (0..64)
        .map(|i| make_shape(PrimitiveType::F32, &[8, i + 1, 16, 4]).unwrap())
        .collect();
    make_tuple_shape(elements).unwrap()
}

fn validation(c: &mut Criterion) {
    let tuple = tuple_of_arrays();
    let mut group = c.benchmark_group("validate 64-element tuple");
    group.bench_function("baseline: prost encode", |b| {
        b.iter(|| black_box(&tuple).encode_to_vec());
    });
    group.bench_function("validate_shape", |b| {
        b.iter(|| validate_shape(black_box(&tuple)).unwrap());
    });
    group.finish();
}

fn bitcast_and_broadcast(c: &mut Criterion) {
    let input = make_shape_with_dense_layout(
        PrimitiveType::F32,
        &[8, 16, 32, 4, 2, 3],
        &[5, 4, 3, 2, 1, 0],
    )
    .unwrap();
    let output = make_shape(PrimitiveType::F32, &[128, 32, 24]).unwrap();
    let vector = make_shape(PrimitiveType::F32, &[32]).unwrap();
    let mut group = c.benchmark_group("rank-6 shape operations");
    group.bench_function("baseline: clone both shapes", |b| {
        b.iter(|| (black_box(&input).clone(), black_box(&output).clone()));
    });
    group.bench_function("reshape_is_bitcast", |b| {
        b.iter(|| reshape_is_bitcast(black_box(&input), black_box(&output)).unwrap());
    });
    group.bench_function("infer_elementwise_binary_op_shape (InDim)", |b| {
        b.iter(|| {
            infer_elementwise_binary_op_shape("add", black_box(&input), black_box(&vector), &[2])
                .unwrap()
        });
    });
    group.finish();
}

criterion_group!(benches, validation, bitcast_and_broadcast);
criterion_main!(benches);
