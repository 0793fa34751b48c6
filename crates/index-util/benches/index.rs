//! Benchmarks of the hot paths against naive baselines in the same run:
//! iterating all indices of f32[64,64,64,64] in physical order,
//! multi-dimensional -> linear index for rank 4, and the buffer order of
//! bf16[16,64,64,256] untiled and tiled (`TiledLayout::for_each_position`).
//!
//! Run: `cargo bench -p index-util --bench index -- --warm-up-time 1 --measurement-time 3`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use index_util::{
    ForEachIndex, PhysicalLayout, TiledLayout, for_each_index,
    multidimensional_index_to_linear_index,
};
use layout_util::make_layout;
use schema::{PrimitiveType, Shape};

fn f32_shape(dims: &[i64], minor_to_major: &[i64]) -> Shape {
    Shape {
        element_type: PrimitiveType::F32 as i32,
        dimensions: dims.to_vec(),
        is_dynamic_dimension: vec![false; dims.len()],
        layout: Some(Box::new(make_layout(minor_to_major))),
        ..Shape::default()
    }
}

/// The naive baseline: every linear index of the buffer turned back into a
/// multi-dimensional index with a division and a remainder per dimension.
fn naive_delinearize_all(dims: &[i64], minor_to_major: &[i64], mut visit: impl FnMut(&[i64])) {
    let total: i64 = dims.iter().product();
    let mut index = vec![0; dims.len()];
    for linear in 0..total {
        let mut rest = linear;
        for &d in minor_to_major {
            let d = d as usize;
            index[d] = rest % dims[d];
            rest /= dims[d];
        }
        visit(&index);
    }
}

/// The naive baseline: XLA's formula read from the shape on every call.
fn naive_linear_index(shape: &Shape, index: &[i64]) -> i64 {
    let m2m = &shape.layout.as_ref().unwrap().minor_to_major;
    let dims = &shape.dimensions;
    let mut linear = index[m2m[0] as usize];
    let mut scale = 1;
    for i in 1..m2m.len() {
        scale *= dims[m2m[i - 1] as usize];
        linear += scale * index[m2m[i] as usize];
    }
    linear
}

fn iteration(c: &mut Criterion) {
    let dims = [64, 64, 64, 64];
    let m2m = [3, 2, 1, 0];
    let shape = f32_shape(&dims, &m2m);
    let elements: i64 = dims.iter().product();
    let mut group = c.benchmark_group("iterate f32[64,64,64,64] physical order");
    group.throughput(Throughput::Elements(elements as u64));
    group.sample_size(10);
    group.bench_function("for_each_index (callback)", |b| {
        b.iter(|| {
            let mut sum = 0_i64;
            for_each_index(&shape, &[0; 4], &dims, &[1; 4], |index| {
                sum = sum.wrapping_add(index[0] ^ index[3]);
            })
            .unwrap();
            black_box(sum)
        });
    });
    group.bench_function("ForEachIndex::next_index (lending)", |b| {
        b.iter(|| {
            let mut sum = 0_i64;
            let mut it = ForEachIndex::over_shape(&shape).unwrap();
            while let Some(index) = it.next_index() {
                sum = sum.wrapping_add(index[0] ^ index[3]);
            }
            black_box(sum)
        });
    });
    group.bench_function("baseline: delinearize each linear index", |b| {
        b.iter(|| {
            let mut sum = 0_i64;
            naive_delinearize_all(&dims, &m2m, |index| {
                sum = sum.wrapping_add(index[0] ^ index[3]);
            });
            black_box(sum)
        });
    });
    group.finish();
}

fn multi_to_linear(c: &mut Criterion) {
    let dims = [64, 64, 64, 64];
    let shape = f32_shape(&dims, &[0, 2, 1, 3]);
    // A fixed pseudo-random batch of in-bounds indices.
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let indices: Vec<[i64; 4]> = (0..4096)
        .map(|_| {
            std::array::from_fn(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                i64::try_from(state % 64).unwrap()
            })
        })
        .collect();
    let layout = PhysicalLayout::new(&shape).unwrap();
    let mut group = c.benchmark_group("multi->linear rank 4");
    group.throughput(Throughput::Elements(indices.len() as u64));
    group.bench_function("PhysicalLayout::linear_index (checked)", |b| {
        b.iter(|| {
            let mut sum = 0_i64;
            for index in black_box(&indices) {
                sum = sum.wrapping_add(layout.linear_index(index).unwrap());
            }
            black_box(sum)
        });
    });
    group.bench_function("PhysicalLayout::linear_index_unchecked", |b| {
        b.iter(|| {
            let mut sum = 0_i64;
            for index in black_box(&indices) {
                sum = sum.wrapping_add(layout.linear_index_unchecked(index));
            }
            black_box(sum)
        });
    });
    group.bench_function("baseline: XLA formula from the shape", |b| {
        b.iter(|| {
            let mut sum = 0_i64;
            for index in black_box(&indices) {
                sum = sum.wrapping_add(naive_linear_index(&shape, index));
            }
            black_box(sum)
        });
    });
    group.bench_function(
        "multidimensional_index_to_linear_index (one-shot, validates)",
        |b| {
            b.iter(|| {
                let mut sum = 0_i64;
                for index in black_box(&indices) {
                    sum = sum.wrapping_add(
                        multidimensional_index_to_linear_index(&shape, index).unwrap(),
                    );
                }
                black_box(sum)
            });
        },
    );
    group.finish();
}

/// Every position of a buffer in memory order with the row-major element
/// there: the untiled layout through `for_each_index` (the baseline) and
/// through `TiledLayout`, and TPU's tiled bf16 formats.
fn buffer_order(c: &mut Criterion) {
    let dims = [16, 64, 64, 256];
    let elements: i64 = dims.iter().product();
    let mut group = c.benchmark_group("buffer order bf16[16,64,64,256]");
    group.throughput(Throughput::Elements(elements as u64));
    group.sample_size(10);
    let untiled: Shape = "bf16[16,64,64,256]{3,2,1,0}".parse().unwrap();
    group.bench_function("baseline: for_each_index untiled (callback)", |b| {
        b.iter(|| {
            let mut sum = 0_i64;
            for_each_index(&untiled, &[0; 4], &dims, &[1; 4], |index| {
                sum = sum.wrapping_add(index[0] ^ index[3]);
            })
            .unwrap();
            black_box(sum)
        });
    });
    for text in [
        "bf16[16,64,64,256]{3,2,1,0}",
        "bf16[16,64,64,256]{3,2,1,0:T(8,128)}",
        "bf16[16,64,64,256]{3,2,1,0:T(8,128)(2,1)}",
    ] {
        let layout = TiledLayout::new(&text.parse().unwrap()).unwrap();
        group.bench_function(format!("TiledLayout::for_each_position {text}"), |b| {
            b.iter(|| {
                let mut sum = 0_i64;
                layout.for_each_position(|position, element| {
                    sum = sum.wrapping_add(position ^ element.unwrap_or(-1));
                });
                black_box(sum)
            });
        });
    }
    group.finish();
}

criterion_group!(benches, iteration, multi_to_linear, buffer_order);
criterion_main!(benches);
