//! Index conversion and iteration on every array layout real XLA produced
//! (tests/golden/shapes.jsonl and hlo_shapes.jsonl; see
//! build-tools/README.md), including tiled and non-monotonic layouts.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use index_util::{ForEachIndex, PhysicalLayout, linear_index_for_nested_tiling};
use prost::Message;
use schema::{COMBINE_DIMENSION, Shape};

/// Every array shape with a layout XLA validates, from both golden files,
/// with at most 4096 elements (buffers and tuples are opened).
fn golden_arrays() -> Vec<(String, Shape)> {
    fn leaves(shape: Shape, out: &mut Vec<Shape>) {
        if shape.tuple_shapes.is_empty() {
            out.push(shape);
        } else {
            shape.tuple_shapes.into_iter().for_each(|s| leaves(s, out));
        }
    }
    let mut arrays = Vec::new();
    for file in ["shapes.jsonl", "hlo_shapes.jsonl"] {
        for row in conformance::load(file).unwrap() {
            let bytes = conformance::hex_decode(row["hex"].as_str().unwrap()).unwrap();
            let mut found = Vec::new();
            leaves(Shape::decode(bytes.as_slice()).unwrap(), &mut found);
            for shape in found {
                let valid = shape
                    .layout
                    .as_ref()
                    .is_some_and(|l| layout_util::validate_layout_for_shape(l, &shape).is_ok());
                let small = shape.dimensions.iter().all(|&d| d >= 0)
                    && shape.dimensions.iter().product::<i64>() <= 4096;
                if layout_util::is_array(&shape) && valid && small {
                    arrays.push((shape.to_string(), shape));
                }
            }
        }
    }
    arrays
}

#[test]
fn every_golden_layout_round_trips_in_physical_order() {
    let arrays = golden_arrays();
    assert!(arrays.len() > 500, "only {} arrays", arrays.len());
    for (text, shape) in &arrays {
        let layout = PhysicalLayout::new(shape).unwrap();
        let mut previous = -1;
        let mut visited = 0;
        let mut it = ForEachIndex::over_shape(shape).unwrap();
        while let Some(index) = it.next_index() {
            let linear = layout.linear_index(index).unwrap();
            assert!(linear > previous, "{text}: {index:?}");
            assert_eq!(
                layout.multidimensional_index(linear).unwrap(),
                index,
                "{text}"
            );
            previous = linear;
            visited += 1;
        }
        assert_eq!(visited, shape.dimensions.iter().product::<i64>(), "{text}");
    }
}

#[test]
fn every_golden_tiling_is_injective() {
    let mut tiled = 0;
    for (text, shape) in golden_arrays() {
        let tiles = &shape.layout.as_ref().unwrap().tiles;
        // `*` is unsupported; a tile of 2^63-1 overflows (see iterate.rs).
        let unsupported = |d: &i64| *d == COMBINE_DIMENSION || *d > 4096;
        if tiles.is_empty() || tiles.iter().any(|t| t.dimensions.iter().any(unsupported)) {
            continue;
        }
        let mut linear: Vec<i64> = ForEachIndex::over_shape(&shape)
            .unwrap()
            .map(|index| linear_index_for_nested_tiling(&shape, &index).unwrap())
            .collect();
        let n = linear.len();
        linear.sort_unstable();
        linear.dedup();
        assert_eq!(linear.len(), n, "{text}");
        tiled += 1;
    }
    assert!(tiled >= 10, "only {tiled} tiled shapes");
}
