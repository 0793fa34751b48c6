//! XLA's human shape strings: parsing and printing the shape strings real
//! XLA wrote into `tests/golden/shapes.jsonl` and `hlo_shapes.jsonl`
//! (throughput is counted in strings, so criterion's elements/s is shapes/s).
//!
//! Run: `cargo bench -p schema --bench human_string -- --warm-up-time 1 --measurement-time 3`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fmt::Write as _;
use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use schema::Shape;

/// The `string` field (XLA's `ShapeUtil::HumanStringWithLayout`) of every
/// line of the golden files whose string XLA's own parser reads back to the
/// same shape (`reparse_equal`).
fn golden_strings() -> Vec<String> {
    ["shapes.jsonl", "hlo_shapes.jsonl"]
        .iter()
        .flat_map(|name| conformance::load(name).unwrap())
        .filter(|row| row["reparse_equal"].as_bool().unwrap())
        .map(|row| row["string"].as_str().unwrap().to_owned())
        .collect()
}

fn parse_and_print(c: &mut Criterion) {
    let strings = golden_strings();
    let shapes: Vec<Shape> = strings.iter().map(|s| s.parse().unwrap()).collect();
    let mut group = c.benchmark_group("human string: golden XLA shapes");
    group.throughput(Throughput::Elements(strings.len() as u64));
    group.bench_function("parse", |b| {
        b.iter(|| {
            for s in black_box(&strings) {
                black_box(s.parse::<Shape>().unwrap());
            }
        });
    });
    let mut out = String::new();
    group.bench_function("print", |b| {
        b.iter(|| {
            for shape in black_box(&shapes) {
                out.clear();
                write!(out, "{shape}").unwrap();
                black_box(&out);
            }
        });
    });
    group.finish();
}

criterion_group!(benches, parse_and_print);
criterion_main!(benches);
