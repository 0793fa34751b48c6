//! The direct writer against prost-reflect's, byte for byte.

#![allow(clippy::unwrap_used)]

use proptest::prelude::*;

use super::{layout_text, shape_text};
use crate::proto_format::dynamic_text_format;
use crate::{Layout, Shape, SplitConfig, Tile};

/// Enum numbers inside and outside their enums, and 0 (left out).
fn enum_value() -> impl Strategy<Value = i32> {
    prop_oneof![Just(0), 1..40_i32, Just(-3), Just(i32::MAX)]
}

fn ints() -> impl Strategy<Value = Vec<i64>> {
    prop::collection::vec(
        prop_oneof![-3..300_i64, Just(i64::MIN), Just(i64::MAX)],
        0..4,
    )
}

fn int() -> impl Strategy<Value = i64> {
    prop_oneof![Just(0), -5..5_i64, Just(i64::MIN)]
}

/// Layouts with every field; `physical` gives the physical shape.
fn layout(physical: impl Strategy<Value = Option<Shape>>) -> impl Strategy<Value = Layout> {
    (
        physical,
        (
            ints(),
            ints(),
            enum_value(),
            prop::collection::vec(0..6_i32, 0..3),
        ),
        (
            prop::collection::vec(any::<bool>(), 0..3),
            prop::collection::vec(any::<bool>(), 0..3),
            prop::collection::vec(ints().prop_map(|dimensions| Tile { dimensions }), 0..3),
        ),
        (int(), int(), int(), enum_value(), enum_value(), int()),
        prop::collection::vec(
            (int(), ints()).prop_map(|(dimension, split_indices)| SplitConfig {
                dimension,
                split_indices,
            }),
            0..2,
        ),
    )
        .prop_map(
            |(
                physical,
                (m2m, padded, padding, levels),
                (unique, ordered, tiles),
                scalars,
                splits,
            )| {
                let (tail, bits, space, index, pointer, prefix) = scalars;
                Layout {
                    minor_to_major: m2m,
                    padded_dimensions: padded,
                    padding_value: padding,
                    dim_level_types: levels,
                    dim_unique: unique,
                    dim_ordered: ordered,
                    tiles,
                    tail_padding_alignment_in_elements: tail,
                    element_size_in_bits: bits,
                    memory_space: space,
                    index_primitive_type: index,
                    pointer_primitive_type: pointer,
                    physical_shape: physical.map(Box::new),
                    dynamic_shape_metadata_prefix_bytes: prefix,
                    split_configs: splits,
                }
            },
        )
}

fn leaf() -> impl Strategy<Value = Shape> {
    (
        enum_value(),
        ints(),
        prop::collection::vec(any::<bool>(), 0..3),
        prop::option::of(layout(Just(None))),
    )
        .prop_map(|(element_type, dimensions, dynamic, layout)| Shape {
            element_type,
            dimensions,
            is_dynamic_dimension: dynamic,
            tuple_shapes: vec![],
            layout: layout.map(Box::new),
        })
}

/// Shapes with tuples, layouts with a physical shape, every field.
fn shape() -> impl Strategy<Value = Shape> {
    leaf().prop_recursive(3, 12, 3, |inner| {
        (
            leaf(),
            prop::collection::vec(inner, 0..3),
            prop::option::of(layout(prop::option::of(leaf()))),
        )
            .prop_map(|(mut shape, tuple_shapes, layout)| {
                shape.tuple_shapes = tuple_shapes;
                if layout.is_some() {
                    shape.layout = layout.map(Box::new);
                }
                shape
            })
    })
}

/// Random shapes with every field, on a thread with a large stack: the
/// nested strategies' value trees are deep in a debug build.
#[test]
fn shapes_match_prost_reflect() {
    let check = || {
        let mut runner = proptest::test_runner::TestRunner::default();
        runner
            .run(&shape(), |shape| {
                prop_assert_eq!(shape_text(&shape), dynamic_text_format(&shape).unwrap());
                if let Some(layout) = shape.layout.as_deref() {
                    prop_assert_eq!(layout_text(layout), dynamic_text_format(layout).unwrap());
                }
                Ok(())
            })
            .unwrap();
    };
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(check)
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn the_empty_and_parsed_shapes_match() {
    for text in [
        "f32[2,3]{0,1:PAD(3,5)}",
        "(s32[], (pred[4]{0:T(8)}), bf16[8,128]{1,0:T(8,128)(2,1)})",
        "f32[<=4,?]",
        "()",
    ] {
        let shape: Shape = text.parse().unwrap();
        assert_eq!(
            shape_text(&shape),
            dynamic_text_format(&shape).unwrap(),
            "{text}"
        );
    }
    assert_eq!(shape_text(&Shape::default()), "");
    let empty_layout = Shape {
        layout: Some(Box::default()),
        ..Shape::default()
    };
    assert_eq!(shape_text(&empty_layout), "layout{}");
    assert_eq!(
        shape_text(&"f32[2]{0}".parse().unwrap()),
        "element_type:F32,dimensions:[2],layout{minor_to_major:[0],\
         tail_padding_alignment_in_elements:1},is_dynamic_dimension:[false]"
    );
}
