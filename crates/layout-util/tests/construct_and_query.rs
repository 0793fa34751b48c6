//! Layout construction, default layouts, clearing, and the queries of
//! XLA's `LayoutUtil` (spec §8), with values from the spec and the seeds.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use layout_util::{
    LayoutBuilder, LayoutError, clear_layout, copy_layout_between_shapes, default_layout_for_shape,
    has_layout, is_monotonic_with_dim0_major, is_monotonic_with_dim0_minor, major,
    make_ascending_layout, make_descending_layout, make_layout, make_layout_from_major_to_minor,
    make_logical_to_physical, memory_space, minor, minor_to_major, move_dim_to_major,
    move_dim_to_minor, set_to_default_layout,
};
use prost::Message;
use schema::{Layout, PrimitiveType, Shape, SplitConfig, Tile};

fn shape(text: &str) -> Shape {
    text.parse().unwrap()
}

#[test]
fn make_layout_serializes_like_xla() {
    // XLA's serialized `{1,0}` layout: minor_to_major [1,0] and tail padding
    // alignment 1 (tests/golden/shapes.jsonl, `pred[2,3]{1,0}`: 0a0201008001 01).
    assert_eq!(
        make_layout(&[1, 0]).encode_to_vec(),
        [0x0a, 0x02, 0x01, 0x00, 0x80, 0x01, 0x01]
    );
    assert_eq!(make_layout(&[]).to_string(), "{}");
}

#[test]
fn builder_sets_every_field_in_xla_print_order() {
    let layout = LayoutBuilder::new(&[0, 1])
        .tiles(vec![Tile {
            dimensions: vec![123],
        }])
        .split_configs(vec![
            SplitConfig {
                dimension: 0,
                split_indices: vec![3],
            },
            SplitConfig {
                dimension: 1,
                split_indices: vec![0, 4],
            },
        ])
        .build();
    assert_eq!(layout.to_string(), "{0,1:T(123)SC(0:3)(1:0,4)}");
    let layout = LayoutBuilder::new(&[3, 2, 1, 0])
        .index_primitive_type(PrimitiveType::U32)
        .pointer_primitive_type(PrimitiveType::U16)
        .memory_space(3)
        .dynamic_shape_metadata_prefix_bytes(123)
        .build();
    assert_eq!(layout.to_string(), "{3,2,1,0:#(u32)*(u16)S(3)M(123)}");
    let physical = LayoutBuilder::new(&[0, 1])
        .physical_shape(shape("s32[10,20]{1,0}"))
        .build();
    assert_eq!(physical.to_string(), "{0,1:P(s32[10,20]{1,0})}");
}

#[test]
fn descending_ascending_and_major_to_minor() {
    assert_eq!(make_descending_layout(4).minor_to_major, [3, 2, 1, 0]);
    assert_eq!(make_ascending_layout(4).minor_to_major, [0, 1, 2, 3]);
    assert_eq!(make_descending_layout(2), make_layout(&[1, 0]));
    assert_eq!(
        make_layout_from_major_to_minor(&[3, 0, 2, 1]).minor_to_major,
        [1, 2, 0, 3]
    );
    assert_eq!(
        make_layout_from_major_to_minor(&[1, 0]).tail_padding_alignment_in_elements,
        1
    );
}

#[test]
fn default_layout_for_each_kind_of_shape() {
    assert_eq!(
        default_layout_for_shape(&shape("f32[2,3,4]{0,1,2}")).unwrap(),
        make_layout(&[2, 1, 0])
    );
    assert_eq!(
        default_layout_for_shape(&shape("f32[]")).unwrap(),
        make_layout(&[])
    );
    assert_eq!(
        default_layout_for_shape(&shape("token[]")).unwrap(),
        Layout::default()
    );
    assert_eq!(
        default_layout_for_shape(&shape("opaque[]")).unwrap(),
        Layout::default()
    );
    assert_eq!(
        default_layout_for_shape(&shape("b(s32[3,4]{0,1})")).unwrap(),
        make_layout(&[1, 0])
    );
    assert_eq!(
        default_layout_for_shape(&shape("(f32[2])")),
        Err(LayoutError::TupleLayout)
    );
}

#[test]
fn set_to_default_layout_recurses_and_keeps_other_fields() {
    let mut tuple =
        shape("(f32[2,3]{0,1:T(2,2)S(1)}, (s32[4,5,6]{0,1,2}, token[]), b(u8[2,2]{0,1}))");
    set_to_default_layout(&mut tuple);
    assert_eq!(
        tuple.to_string(),
        "(f32[2,3]{1,0:T(2,2)S(1)}, (s32[4,5,6]{2,1,0}, token[]), b(u8[2,2]{1,0}))"
    );
    let mut bare = shape("(f32[2,3]{0,1})");
    clear_layout(&mut bare);
    set_to_default_layout(&mut bare);
    assert_eq!(
        bare.tuple_shapes[0].layout.as_deref(),
        Some(&make_layout(&[1, 0]))
    );
}

#[test]
fn clear_layout_recurses() {
    let mut tuple = shape("(f32[2,3]{0,1}, (s32[4]{0}, token[]), b(u8[2]{0}))");
    clear_layout(&mut tuple);
    assert_eq!(tuple.to_string(), "(f32[2,3], (s32[4], token[]), b(u8[2]))");
    assert!(!has_layout(&tuple));
}

#[test]
fn has_layout_follows_xla_rules() {
    assert!(has_layout(&shape("f32[2]{0}")));
    assert!(has_layout(&shape("token[]")));
    assert!(has_layout(&shape("opaque[]")));
    assert!(has_layout(&shape("()")));
    let mut tuple = shape("(f32[2]{0}, (s32[3]{0}, token[]))");
    assert!(has_layout(&tuple));
    // A tuple needs a layout on **all** its arrays.
    tuple.tuple_shapes[1].tuple_shapes[0].layout = None;
    assert!(!has_layout(&tuple));
    let mut buffer = shape("b(f32[2]{0})");
    assert!(has_layout(&buffer));
    buffer.tuple_shapes[0].layout = None;
    assert!(!has_layout(&buffer));
}

#[test]
fn minor_to_major_major_minor_and_logical_to_physical() {
    let s = shape("f32[16,12,3,17]{2,1,0,3}");
    assert_eq!(minor_to_major(&s).unwrap(), [2, 1, 0, 3]);
    let mut bare = s.clone();
    bare.layout = None;
    assert_eq!(
        minor_to_major(&bare).unwrap_err().to_string(),
        "shape f32[16,12,3,17] does not have a layout"
    );
    let layout = s.layout.as_deref().unwrap();
    // Major(p) = m2m[n-1-p]; Minor(p) = m2m[p].
    assert_eq!(
        (0..4)
            .map(|p| major(layout, p).unwrap())
            .collect::<Vec<_>>(),
        [3, 0, 1, 2]
    );
    assert_eq!(
        (0..4)
            .map(|p| minor(layout, p).unwrap())
            .collect::<Vec<_>>(),
        [2, 1, 0, 3]
    );
    assert_eq!(major(layout, 4), None);
    assert_eq!(minor(layout, 4), None);
    // The inverse of Major: dim 3 is physical 0 (most major), dim 2 physical 3.
    assert_eq!(make_logical_to_physical(layout).unwrap(), [1, 2, 3, 0]);
    for bad in [&[0, 0][..], &[0, 2], &[-1, 0]] {
        assert_eq!(
            make_logical_to_physical(&make_layout(bad)),
            Err(LayoutError::NotAPermutation {
                minor_to_major: bad.to_vec()
            })
        );
    }
}

#[test]
fn monotonic_layouts() {
    assert!(is_monotonic_with_dim0_major(&make_layout(&[3, 2, 1, 0])));
    assert!(!is_monotonic_with_dim0_minor(&make_layout(&[3, 2, 1, 0])));
    assert!(is_monotonic_with_dim0_minor(&make_layout(&[0, 1, 2])));
    assert!(!is_monotonic_with_dim0_major(&make_layout(&[0, 1, 2])));
    // Rank 0 and 1 are both.
    for rank in [0, 1] {
        assert!(is_monotonic_with_dim0_major(&make_descending_layout(rank)));
        assert!(is_monotonic_with_dim0_minor(&make_descending_layout(rank)));
    }
    assert!(!is_monotonic_with_dim0_major(&make_layout(&[2, 0, 1])));
    assert!(!is_monotonic_with_dim0_minor(&make_layout(&[2, 0, 1])));
}

#[test]
fn memory_space_defaults_to_zero() {
    assert_eq!(memory_space(&shape("f32[2]{0:S(5)}")), 5);
    assert_eq!(memory_space(&shape("f32[2]{0}")), 0);
    let mut bare = shape("f32[2]");
    bare.layout = None;
    assert_eq!(memory_space(&bare), 0);
}

#[test]
fn copy_layout_between_shapes_with_xla_errors() {
    let src = shape("(f32[2,3]{0,1:T(2)}, s32[4]{0})");
    let mut dst = shape("(u8[5,6]{1,0}, pred[7]{0})");
    copy_layout_between_shapes(&src, &mut dst).unwrap();
    assert_eq!(dst.to_string(), "(u8[5,6]{0,1:T(2)}, pred[7]{0})");

    let mut unlaid = src.clone();
    unlaid.tuple_shapes[1].layout = None;
    copy_layout_between_shapes(&unlaid, &mut dst).unwrap();
    assert_eq!(dst.to_string(), "(u8[5,6]{0,1:T(2)}, pred[7])");

    let err = |src: &str, dst: &str| {
        copy_layout_between_shapes(&shape(src), &mut shape(dst))
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        err("(f32[2])", "f32[2]"),
        "cannot copy layout from shape: shape structure differs"
    );
    assert_eq!(
        err("(f32[2])", "(f32[2], f32[2])"),
        "cannot copy layout from shape: tuple element count differs"
    );
    assert_eq!(
        err("f32[2,3]{1,0}", "f32[6]"),
        "cannot copy layout from shape: ranks differs"
    );
    assert_eq!(
        err("f32[2,3]{1,0:SC(0:3)}", "f32[3,2]"),
        "split config split index is out of bounds: 3 (dim size 3); shape: f32[3,2]"
    );
    // Token leaves are left alone.
    let mut token = shape("token[]");
    copy_layout_between_shapes(&shape("token[]"), &mut token).unwrap();
    assert_eq!(token.layout, None);
}

#[test]
fn move_dims_to_major_and_minor() {
    let layout = make_layout(&[3, 2, 1, 0]);
    assert_eq!(
        move_dim_to_major(&layout, 2).unwrap().minor_to_major,
        [3, 1, 0, 2]
    );
    assert_eq!(move_dim_to_major(&layout, 0).unwrap(), layout);
    assert_eq!(
        move_dim_to_minor(&layout, 1).unwrap().minor_to_major,
        [1, 3, 2, 0]
    );
    assert_eq!(move_dim_to_minor(&layout, 3).unwrap(), layout);
    let tiled = LayoutBuilder::new(&[1, 0]).memory_space(1).build();
    assert_eq!(
        move_dim_to_minor(&tiled, 0).unwrap().to_string(),
        "{0,1:S(1)}"
    );
    assert_eq!(
        move_dim_to_major(&layout, 4).unwrap_err().to_string(),
        "dimension 4 is not in layout {3,2,1,0}"
    );
}
