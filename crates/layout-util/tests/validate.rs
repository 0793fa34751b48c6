//! Validation of layouts against shapes: every check of XLA's
//! `ValidateLayoutForShape` (spec §5.1) and the classic padding checks
//! (spec §2), in XLA's order, with the messages its format strings give
//! as the spec quotes them. The messages XLA itself wrote for the shapes
//! of `tests/golden/validation.jsonl` are checked in `tests/validation.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use layout_util::{
    LayoutBuilder, LayoutError, make_layout, validate_layout_for_shape, validate_layout_in_shape,
};
use schema::{Layout, PrimitiveType, Shape};

fn shape(text: &str) -> Shape {
    text.parse().unwrap()
}

/// The message `validate_layout_in_shape` gives for `text`, or "ok".
fn check(text: &str) -> String {
    match validate_layout_in_shape(&shape(text), false) {
        Ok(()) => "ok".to_owned(),
        Err(e) => e.to_string(),
    }
}

fn check_layout(layout: &Layout, text: &str) -> String {
    match validate_layout_for_shape(layout, &shape(text)) {
        Ok(()) => "ok".to_owned(),
        Err(e) => e.to_string(),
    }
}

#[test]
fn valid_layouts_pass() {
    for text in [
        "f32[2,3]{1,0}",
        "f32[2,3]{0,1}",
        "f32[]",
        "f32[16,12,3,17]{2,1,0,3}",
        "f32[2,3,4]{0,1,2:T(512,1024)}",
        "bf16[8,2,3,1004]{3,2,1,0:T(2,*,*,128)}",
        "pred[8,8,8]{0,2,1:T(8,128)E(32)}",
        "f32[]{:T(256)}",
        "f32[2]{0:M(-5)}",
        "pred[123,456]{1,0:S(3)SC(0:10)(1:4,5)}",
        "(f32[2]{0}, (s32[3,4]{0,1}, token[]), opaque[])",
        "b(s32[3,4]{1,0})",
        "f32[2,3]{0,1:PAD(3,5)PV(zero)}",
        "f32[2,3]{1,0:PAD(2,3)}",
    ] {
        assert_eq!(check(text), "ok", "{text}");
    }
}

#[test]
fn minor_to_major_must_be_a_permutation_of_the_dimensions() {
    // Out-of-bounds and duplicate values: XLA's messages for `{0,5}`,
    // `{-1,0}` and `{1,1}` are rows of the validation golden file.
    assert_eq!(
        check_layout(&make_layout(&[0]), "f32[2,3]"),
        "layout minor_to_major field contains 1 elements, but shape has 2 dimensions: {0}; shape: f32[2,3]"
    );
}

#[test]
fn messages_show_the_shape_without_layout_and_dynamic_dims() {
    assert_eq!(
        check_layout(&make_layout(&[2, 0, 0]), "f32[<=4,?,5]"),
        "layout minor_to_major field has duplicate values: {2, 0, 0}; shape: f32[<=4,?,5]"
    );
}

#[test]
fn tail_padding_alignment_must_be_positive_zero_reads_as_one() {
    let layout = |alignment| {
        LayoutBuilder::new(&[0])
            .tail_padding_alignment_in_elements(alignment)
            .build()
    };
    assert_eq!(
        check_layout(&layout(-3), "f32[2]"),
        "layout tail_padding_alignment_in_elements field is <= 0: {-3}"
    );
    assert_eq!(check_layout(&layout(0), "f32[2]"), "ok");
    assert_eq!(check("f32[2]{0:L(100)}"), "ok");
}

#[test]
fn sparse_only_fields_are_rejected() {
    assert_eq!(
        check("f32[10,10]{1,0:#(u32)}"),
        "layout has a index_primitive_type, but is not a sparse array: f32[10,10]"
    );
    assert_eq!(
        check("f32[10,10]{1,0:*(u16)}"),
        "layout has a pointer_primitive_type, but is not a sparse array: f32[10,10]"
    );
    let physical = LayoutBuilder::new(&[1, 0])
        .physical_shape(shape("s32[10,20]{1,0}"))
        .build();
    assert_eq!(
        check_layout(&physical, "f32[10,10]"),
        "layout has a physical_shape, but is not a sparse array: f32[10,10]"
    );
}

#[test]
fn tiles_must_be_non_empty_with_positive_or_combine_dimensions() {
    assert_eq!(check("f32[2]{0:T()}"), "layout has invalid tiles: f32[2]");
    assert_eq!(
        check("f32[2]{0:T(0)}"),
        "layout has invalid tiles: tile dimension 0 must be positive or kCombineDimension: f32[2]"
    );
    let negative = LayoutBuilder::new(&[0])
        .tiles(vec![schema::Tile {
            dimensions: vec![2, -2],
        }])
        .build();
    assert_eq!(
        check_layout(&negative, "f32[2]"),
        "layout has invalid tiles: tile dimension -2 must be positive or kCombineDimension: f32[2]"
    );
    // A tile of higher rank than the shape is allowed.
    assert_eq!(check("f32[2]{0:T(8,128)}"), "ok");
}

#[test]
fn element_size_must_not_be_negative() {
    assert_eq!(
        check("f32[2]{0:E(-4)}"),
        "layout element_size_in_bits field is negative: -4"
    );
}

#[test]
fn split_configs_are_checked() {
    assert_eq!(
        check("f32[2]{0:SC(3:1)}"),
        "split config has out-of-bounds physical dimension: 3; shape: f32[2]"
    );
    assert_eq!(
        check("f32[2]{0:SC(0:1)(0:1)}"),
        "split config has duplicate physical dimension: 0; shape: f32[2]"
    );
    assert_eq!(
        check("f32[2]{0:SC(0:0)}"),
        "split config split indices must be strictly increasing and positive: {0}; shape: f32[2]"
    );
    assert_eq!(
        check("f32[4]{0:SC(0:3,1)}"),
        "split config split indices must be strictly increasing and positive: {3, 1}; shape: f32[4]"
    );
    assert_eq!(
        check("f32[2]{0:SC(0:5)}"),
        "split config split index is out of bounds: 5 (dim size 2); shape: f32[2]"
    );
    // The split dimension is physical: physical 0 (most major) of {0,1} is dim 1.
    assert_eq!(check("f32[2,4]{0,1:SC(0:3)}"), "ok");
    assert_eq!(
        check("f32[2,4]{1,0:SC(0:3)}"),
        "split config split index is out of bounds: 3 (dim size 2); shape: f32[2,4]"
    );
}

#[test]
fn padding_must_cover_every_dimension() {
    assert_eq!(
        check_layout(
            &LayoutBuilder::new(&[1, 0])
                .padded_dimensions(vec![3])
                .build(),
            "f32[2,3]"
        ),
        "layout has 1 padded dimensions, but shape is rank 2"
    );
    assert_eq!(
        check("f32[2,3]{1,0:PAD(3,2)}"),
        "for dimension 1, dimension padding (2) is smaller than the dimension size (3) of the shape"
    );
}

#[test]
fn only_arrays_take_a_non_trivial_layout() {
    assert_eq!(
        check_layout(&make_layout(&[0]), "token[]"),
        "shape of primitive type TOKEN should not have a non-trivial layout"
    );
    let padded = LayoutBuilder::new(&[]).padded_dimensions(vec![1]).build();
    assert_eq!(
        check_layout(&padded, "opaque[]"),
        "shape of primitive type OPAQUE_TYPE should not have a non-trivial layout"
    );
    assert_eq!(check_layout(&Layout::default(), "token[]"), "ok");
    assert_eq!(
        check_layout(&make_layout(&[]), "(f32[])"),
        "a single Layout is not valid for tuple shapes"
    );
}

#[test]
fn checks_run_in_xla_order() {
    // minor_to_major before padding before tail padding before the
    // sparse-only fields before tiles before element size.
    let everything_wrong = LayoutBuilder::new(&[0, 0])
        .padded_dimensions(vec![1])
        .tail_padding_alignment_in_elements(-1)
        .index_primitive_type(PrimitiveType::U32)
        .tiles(vec![schema::Tile { dimensions: vec![] }])
        .element_size_in_bits(-1)
        .build();
    let mut layout = everything_wrong.clone();
    let mut messages = Vec::new();
    for fix in 0..6 {
        messages.push(validate_layout_for_shape(&layout, &shape("f32[2,3]")).unwrap_err());
        match fix {
            0 => layout.minor_to_major = vec![1, 0],
            1 => layout.padded_dimensions.clear(),
            2 => layout.tail_padding_alignment_in_elements = 1,
            3 => layout.index_primitive_type = 0,
            4 => layout.tiles.clear(),
            _ => layout.element_size_in_bits = 0,
        }
    }
    assert!(matches!(
        messages[0],
        LayoutError::MinorToMajorDuplicate { .. }
    ));
    assert!(matches!(
        messages[1],
        LayoutError::PaddedDimensionCount { .. }
    ));
    assert!(matches!(
        messages[2],
        LayoutError::TailPaddingAlignment { .. }
    ));
    assert!(matches!(
        messages[3],
        LayoutError::IndexPrimitiveType { .. }
    ));
    assert!(matches!(messages[4], LayoutError::EmptyTile { .. }));
    assert!(matches!(
        messages[5],
        LayoutError::NegativeElementSize { .. }
    ));
    assert_eq!(
        validate_layout_for_shape(&layout, &shape("f32[2,3]")).map_err(|e| e.to_string()),
        Ok(())
    );
}

#[test]
fn layouts_in_shape_are_checked_through_tuples_and_buffers() {
    let mut tuple = shape("(f32[2]{0}, (s32[4]{0}))");
    tuple.tuple_shapes[1].tuple_shapes[0].layout = None;
    assert_eq!(
        validate_layout_in_shape(&tuple, false)
            .unwrap_err()
            .to_string(),
        "shape s32[4] does not have a layout"
    );
    assert_eq!(
        validate_layout_in_shape(&tuple, true).map_err(|e| e.to_string()),
        Ok(())
    );

    let mut with_tuple_layout = shape("(f32[2]{0})");
    with_tuple_layout.layout = Some(Box::new(Layout::default()));
    assert_eq!(
        validate_layout_in_shape(&with_tuple_layout, true)
            .unwrap_err()
            .to_string(),
        "tuple should not have a layout field"
    );

    // A buffer's errors name the buffer, as XLA's (validation.jsonl:
    // `b(f32[2,3]{1,1})`), though its array holds the layout.
    let mut buffer = shape("b(s32[3,4]{1,0})");
    buffer.tuple_shapes[0].layout = Some(Box::new(make_layout(&[1, 1])));
    assert_eq!(
        validate_layout_in_shape(&buffer, false)
            .unwrap_err()
            .to_string(),
        "layout minor_to_major field has duplicate values: {1, 1}; shape: b(s32[3,4])"
    );
    buffer.tuple_shapes[0].layout = None;
    assert_eq!(
        validate_layout_in_shape(&buffer, false)
            .unwrap_err()
            .to_string(),
        "shape b(s32[3,4]) does not have a layout"
    );
    assert_eq!(
        validate_layout_for_shape(&make_layout(&[0]), &buffer)
            .unwrap_err()
            .to_string(),
        "layout minor_to_major field contains 1 elements, but shape has 2 dimensions: {0}; shape: b(s32[3,4])"
    );
}
