//! Decoding XLA's serialized `ShapeProto`s, bare and followed by
//! `validate_shape`, in the same run: every message real XLA wrote into
//! `tests/golden/shapes.jsonl` and `hlo_shapes.jsonl` that XLA's
//! `ValidateShape` accepts (throughput is counted in messages).
//!
//! Run: `cargo bench -p shape-util --bench decode_validate -- --warm-up-time 1 --measurement-time 3`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use prost::Message;
use schema::Shape;
use shape_util::validate_shape;

/// The `hex` field (the serialized `ShapeProto`) of every line of the
/// golden files, as bytes.
fn golden_messages() -> Vec<Vec<u8>> {
    ["shapes.jsonl", "hlo_shapes.jsonl"]
        .iter()
        .flat_map(|name| conformance::load(name).unwrap())
        .map(|row| conformance::hex_decode(row["hex"].as_str().unwrap()).unwrap())
        .collect()
}

fn decode_validate(c: &mut Criterion) {
    let messages: Vec<Vec<u8>> = golden_messages()
        .into_iter()
        .filter(|bytes| validate_shape(&Shape::decode(bytes.as_slice()).unwrap()).is_ok())
        .collect();
    let mut group = c.benchmark_group("ShapeProto: golden XLA messages");
    group.throughput(Throughput::Elements(messages.len() as u64));
    group.bench_function("bare decode", |b| {
        b.iter(|| {
            for bytes in black_box(&messages) {
                black_box(Shape::decode(bytes.as_slice()).unwrap());
            }
        });
    });
    group.bench_function("decode + validate", |b| {
        b.iter(|| {
            for bytes in black_box(&messages) {
                let shape = Shape::decode(bytes.as_slice()).unwrap();
                validate_shape(&shape).unwrap();
                black_box(shape);
            }
        });
    });
    group.finish();
}

criterion_group!(benches, decode_validate);
criterion_main!(benches);
