//! Layout equality with XLA's `Layout::Equal` options and
//! `LayoutsInShapesEqual` (spec §7), and the classic padding queries
//! (spec §2 and the seeds' padded `[2 x 3]` example).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use layout_util::{
    LayoutBuilder, LayoutEqual, LayoutError, is_padded, layouts_in_shapes_equal, make_layout,
    padded_dimensions, padding_value,
};
use schema::{Layout, PaddingValue, PrimitiveType, Shape, SplitConfig, Tile};

fn shape(text: &str) -> Shape {
    text.parse().unwrap()
}

fn layout(text: &str) -> Layout {
    text.parse().unwrap()
}

#[test]
fn default_equality_compares_every_xla_field() {
    let eq = LayoutEqual::new();
    let base = layout("{3,2,1,0:T(42,123)(4,5)L(100)E(42)S(3)SC(0:3)}");
    assert!(eq.equal(&base, &base.clone()));
    let variants = [
        layout("{2,3,1,0:T(42,123)(4,5)L(100)E(42)S(3)SC(0:3)}"),
        layout("{3,2,1,0:T(42,123)L(100)E(42)S(3)SC(0:3)}"),
        layout("{3,2,1,0:T(42,123)(4,5)E(42)S(3)SC(0:3)}"),
        layout("{3,2,1,0:T(42,123)(4,5)L(100)S(3)SC(0:3)}"),
        layout("{3,2,1,0:T(42,123)(4,5)L(100)E(42)SC(0:3)}"),
        layout("{3,2,1,0:T(42,123)(4,5)L(100)E(42)S(3)}"),
    ];
    for variant in &variants {
        assert!(!eq.equal(&base, variant), "{variant}");
        assert!(!eq.equal(variant, &base), "{variant}");
    }
    let options = [
        LayoutEqual::new(), // minor_to_major is never ignored
        LayoutEqual::new().ignore_tiles(),
        LayoutEqual::new().ignore_tail_padding_alignment(),
        LayoutEqual::new().ignore_element_size(),
        LayoutEqual::new().ignore_memory_space(),
        LayoutEqual::new().ignore_split_configs(),
    ];
    for (i, (option, variant)) in options.iter().zip(&variants).enumerate() {
        assert_eq!(option.equal(&base, variant), i > 0, "{variant}");
    }
    for variant in &variants[1..] {
        assert!(
            LayoutEqual::new()
                .minor_to_major_only()
                .equal(&base, variant)
        );
    }
    assert!(
        !LayoutEqual::new()
            .minor_to_major_only()
            .equal(&base, &variants[0])
    );
}

#[test]
fn sparse_only_fields_and_physical_shape_have_options() {
    let plain = make_layout(&[1, 0]);
    let index = LayoutBuilder::new(&[1, 0])
        .index_primitive_type(PrimitiveType::U32)
        .build();
    let pointer = LayoutBuilder::new(&[1, 0])
        .pointer_primitive_type(PrimitiveType::U16)
        .build();
    let physical = LayoutBuilder::new(&[1, 0])
        .physical_shape(shape("s32[10]{0}"))
        .build();
    assert!(!LayoutEqual::new().equal(&plain, &index));
    assert!(
        LayoutEqual::new()
            .ignore_index_primitive_type()
            .equal(&plain, &index)
    );
    assert!(!LayoutEqual::new().equal(&plain, &pointer));
    assert!(
        LayoutEqual::new()
            .ignore_pointer_primitive_type()
            .equal(&plain, &pointer)
    );
    assert!(!LayoutEqual::new().equal(&plain, &physical));
    assert!(
        LayoutEqual::new()
            .ignore_physical_shape()
            .equal(&plain, &physical)
    );
}

#[test]
fn metadata_prefix_is_never_compared_and_zero_alignment_is_one() {
    let eq = LayoutEqual::new();
    assert!(eq.equal(&layout("{1,0:M(1024)}"), &layout("{1,0}")));
    let zero_alignment = Layout {
        minor_to_major: vec![1, 0],
        ..Layout::default()
    };
    assert!(eq.equal(&zero_alignment, &make_layout(&[1, 0])));
    let proto_only = Layout {
        dim_level_types: vec![1, 0],
        ..make_layout(&[1, 0])
    };
    assert!(eq.equal(&proto_only, &make_layout(&[1, 0])));
}

#[test]
fn padding_is_compared_unless_ignored() {
    let padded = layout("{0,1:PAD(3,5)PV(zero)}");
    let other_value = layout("{0,1:PAD(3,5)PV(one)}");
    let plain = make_layout(&[0, 1]);
    assert!(!LayoutEqual::new().equal(&padded, &plain));
    assert!(!LayoutEqual::new().equal(&padded, &other_value));
    assert!(LayoutEqual::new().ignore_padding().equal(&padded, &plain));
    assert!(
        LayoutEqual::new()
            .minor_to_major_only()
            .equal(&padded, &other_value)
    );
}

#[test]
fn split_configs_compare_in_full() {
    let a = LayoutBuilder::new(&[1, 0])
        .split_configs(vec![SplitConfig {
            dimension: 0,
            split_indices: vec![3],
        }])
        .build();
    let b = LayoutBuilder::new(&[1, 0])
        .split_configs(vec![SplitConfig {
            dimension: 0,
            split_indices: vec![4],
        }])
        .build();
    assert!(!LayoutEqual::new().equal(&a, &b));
    assert!(LayoutEqual::new().ignore_split_configs().equal(&a, &b));
    let t = |d: Vec<i64>| {
        LayoutBuilder::new(&[0])
            .tiles(vec![Tile { dimensions: d }])
            .build()
    };
    assert!(!LayoutEqual::new().equal(&t(vec![8]), &t(vec![8, 1])));
}

#[test]
fn layouts_in_shapes_equal_follows_xla() {
    let eq = LayoutEqual::new();
    // Dimensions and element types are ignored, rank is not.
    assert!(layouts_in_shapes_equal(
        &shape("f32[2,3]{0,1}"),
        &shape("s8[7,9]{0,1}"),
        &eq
    ));
    assert!(!layouts_in_shapes_equal(
        &shape("f32[2,3]{0,1}"),
        &shape("f32[2,3]{1,0}"),
        &eq
    ));
    assert!(!layouts_in_shapes_equal(
        &shape("f32[2]{0}"),
        &shape("f32[2,1]{1,0}"),
        &eq
    ));
    let mut bare = shape("f32[2,3]");
    bare.layout = None;
    assert!(layouts_in_shapes_equal(&bare, &bare.clone(), &eq));
    assert!(!layouts_in_shapes_equal(
        &bare,
        &shape("f32[2,3]{1,0}"),
        &eq
    ));
    assert!(!layouts_in_shapes_equal(
        &shape("f32[2,3]{1,0}"),
        &bare,
        &eq
    ));
    // Tuples: same length, elementwise.
    let t = shape("(f32[2]{0}, (s32[2,2]{0,1}, token[]))");
    assert!(layouts_in_shapes_equal(
        &t,
        &shape("(u8[5]{0}, (s32[2,2]{0,1}, opaque[]))"),
        &eq
    ));
    assert!(!layouts_in_shapes_equal(
        &t,
        &shape("(u8[5]{0}, (s32[2,2]{1,0}, token[]))"),
        &eq
    ));
    assert!(!layouts_in_shapes_equal(&t, &shape("(u8[5]{0})"), &eq));
    assert!(!layouts_in_shapes_equal(&t, &shape("f32[2]{0}"), &eq));
    // Other leaves always compare equal; options are passed down.
    assert!(layouts_in_shapes_equal(
        &shape("token[]"),
        &shape("opaque[]"),
        &eq
    ));
    assert!(layouts_in_shapes_equal(
        &shape("(f32[2]{0:T(2)})"),
        &shape("(f32[2]{0})"),
        &LayoutEqual::new().ignore_tiles()
    ));
    assert!(layouts_in_shapes_equal(
        &shape("b(f32[2]{0})"),
        &shape("b(s8[3]{0})"),
        &eq
    ));
}

#[test]
fn is_padded_needs_some_padding_beyond_a_dimension() {
    assert!(is_padded(&shape("f32[2,3]{0,1:PAD(3,5)}")));
    assert!(is_padded(&shape("f32[2,3]{0,1:PAD(2,4)}")));
    assert!(!is_padded(&shape("f32[2,3]{0,1:PAD(2,3)}")));
    assert!(!is_padded(&shape("f32[2,3]{0,1}")));
    assert!(!is_padded(&shape("(f32[2]{0:PAD(3)})")));
}

#[test]
fn padded_dimensions_are_the_padded_extents_or_the_dimensions() {
    assert_eq!(
        padded_dimensions(&shape("f32[2,3]{0,1:PAD(3,5)}")).unwrap(),
        [3, 5]
    );
    assert_eq!(padded_dimensions(&shape("f32[2,3]{0,1}")).unwrap(), [2, 3]);
    let mut bare = shape("f32[10,20]");
    bare.layout = None;
    assert_eq!(padded_dimensions(&bare).unwrap(), [10, 20]);
    assert_eq!(
        padded_dimensions(&shape("f32[2,3]{0,1:PAD(1,5)}")),
        Err(LayoutError::PaddingSmallerThanDimension {
            dimension: 0,
            padding: 1,
            size: 2
        })
    );
    assert_eq!(
        padded_dimensions(&shape("f32[2,3]{0,1:PAD(5)}"))
            .unwrap_err()
            .to_string(),
        "layout has 1 padded dimensions, but shape is rank 2"
    );
}

#[test]
fn padding_values() {
    assert_eq!(
        padding_value(&make_layout(&[0])).unwrap(),
        PaddingValue::InvalidPad
    );
    for (text, value) in [
        ("{0:PAD(3)PV(zero)}", PaddingValue::ZeroPad),
        ("{0:PAD(3)PV(one)}", PaddingValue::OnePad),
        ("{0:PAD(3)PV(lowest)}", PaddingValue::LowestPad),
        ("{0:PAD(3)PV(highest)}", PaddingValue::HighestPad),
        ("{0:PAD(3)PV(unknown)}", PaddingValue::UnknownPad),
    ] {
        assert_eq!(padding_value(&layout(text)).unwrap(), value, "{text}");
    }
    let bad = Layout {
        padding_value: 9,
        ..make_layout(&[0])
    };
    assert_eq!(
        padding_value(&bad).unwrap_err().to_string(),
        "layout has unknown padding_value 9"
    );
}
