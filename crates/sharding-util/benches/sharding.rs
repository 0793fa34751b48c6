//! Benchmarks of sharding-util: a device's box on an iota tile assignment of
//! 65536 devices (beside cloning the shape it reads, as a baseline), a
//! reshard plan between two 4096-device shardings of a rank-3 array, and
//! executing a 64 MiB reshard beside a plain copy of the same bytes.
//!
//! Run: `cargo bench -p sharding-util --features execute --bench sharding -- --warm-up-time 1 --measurement-time 3`
//! (without the `execute` feature, the execution benchmark is left out).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use schema::Shape;
use sharding_util::{HloSharding, Placement, reshard_plan};

fn device_box(c: &mut Criterion) {
    let s: HloSharding = "{devices=[16,64,64]<=[64,16,64]T(1,0,2)}".parse().unwrap();
    let shape: Shape = "f32[1000,4096,4096]".parse().unwrap();
    let mut group = c.benchmark_group("device box, iota over 65536 devices");
    group.bench_function("baseline: clone the shape", |b| {
        b.iter(|| black_box(&shape).clone())
    });
    let placement = Placement::new(&s, &shape).unwrap();
    let (mut tile, mut offsets, mut limits) = ([0; 3], [0; 3], [0; 3]);
    let mut device = 0;
    group.bench_function("Placement::box_into", |b| {
        b.iter(|| {
            device = (device + 7919) % 65536;
            placement
                .box_into(black_box(device), &mut tile, &mut offsets, &mut limits)
                .unwrap()
        });
    });
    group.bench_function("HloSharding::device_box (builds a Placement)", |b| {
        b.iter(|| {
            device = (device + 7919) % 65536;
            s.device_box(black_box(&shape), black_box(device)).unwrap()
        });
    });
    group.finish();
}

fn plan(c: &mut Criterion) {
    let shape: Shape = "f32[256,512,1024]".parse().unwrap();
    let from: HloSharding = "{devices=[16,16,16]<=[4096]}".parse().unwrap();
    let to: HloSharding = "{devices=[64,8,8]<=[8,64,8]T(1,0,2)}".parse().unwrap();
    let mut group = c.benchmark_group("reshard plan, 4096 devices, rank 3");
    group.sample_size(10);
    group.bench_function("reshard_plan", |b| {
        b.iter(|| reshard_plan(black_box(&shape), &from, &to, None).unwrap());
    });
    group.finish();
}

#[cfg(feature = "execute")]
fn execute(c: &mut Criterion) {
    // 64 MiB of f32 over 8 devices: [8,1] rows -> [1,8] columns, every byte moves.
    let shape: Shape = "f32[4096,4096]{1,0}".parse().unwrap();
    let from: HloSharding = "{devices=[8,1]<=[8]}".parse().unwrap();
    let to: HloSharding = "{devices=[1,8]<=[8]}".parse().unwrap();
    let plan = reshard_plan(&shape, &from, &to, None).unwrap();
    let sources: Vec<Vec<u8>> = (0..8).map(|d| vec![d as u8; 8 << 20]).collect();
    let mut destinations: Vec<Vec<u8>> = (0..8).map(|_| vec![0; 8 << 20]).collect();
    let mut group = c.benchmark_group("execute a 64 MiB reshard");
    group.sample_size(10);
    group.bench_function("baseline: copy 64 MiB", |b| {
        b.iter(|| {
            for (s, d) in sources.iter().zip(destinations.iter_mut()) {
                d.copy_from_slice(s);
            }
        });
    });
    // The same bytes moved as 2 KiB runs (the pieces' rows): no large
    // memcpy, so no non-temporal stores.
    group.bench_function("baseline: copy 64 MiB in 2 KiB runs", |b| {
        b.iter(|| {
            for (s, d) in sources.iter().zip(destinations.iter_mut()) {
                for (from, to) in s.chunks(2048).zip(d.chunks_mut(2048)) {
                    to.copy_from_slice(from);
                }
            }
        });
    });
    group.bench_function("execute_plan", |b| {
        b.iter(|| {
            sharding_util::execute_plan(
                &plan,
                (&from, &shape),
                (&to, &shape),
                &sources,
                &mut destinations,
            )
            .unwrap();
        });
    });
    group.finish();
}

#[cfg(feature = "execute")]
criterion_group!(benches, device_box, plan, execute);
#[cfg(not(feature = "execute"))]
criterion_group!(benches, device_box, plan);
criterion_main!(benches);
