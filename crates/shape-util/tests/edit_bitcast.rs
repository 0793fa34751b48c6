//! Dimension edits and bitcast analysis, with the examples of XLA's
//! `shape_util_test.cc` quoted in the spec (§3, §9).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use layout_util::LayoutBuilder;
use schema::{PrimitiveType, Shape};
use shape_util::{
    BitcastDecomposition, align_layouts, change_element_type, decompose_bitcast,
    deduce_transpose_dimensions_for_bitcast, delete_dimensions, drop_degenerate_dimensions,
    make_nil, make_shape, make_shape_with_dense_layout, make_shape_with_layout, make_tuple_shape,
    make_validated_shape, permute_dimensions, reshape_is_bitcast, transpose_is_bitcast,
};

fn laid_out(ty: PrimitiveType, dims: &[i64], m2m: &[i64]) -> Shape {
    make_shape_with_dense_layout(ty, dims, m2m).unwrap()
}

fn f32(dims: &[i64], m2m: &[i64]) -> Shape {
    laid_out(PrimitiveType::F32, dims, m2m)
}

#[test]
fn change_element_type_resets_the_element_size_unless_sub_byte() {
    let s4 = make_shape_with_layout(
        PrimitiveType::S4,
        &[4],
        LayoutBuilder::new(&[0]).element_size_in_bits(4).build(),
    )
    .unwrap();
    let element_size = |ty| {
        change_element_type(&s4, ty)
            .unwrap()
            .layout
            .unwrap()
            .element_size_in_bits
    };
    assert_eq!(element_size(PrimitiveType::U4), 4);
    assert_eq!(element_size(PrimitiveType::U8), 0);
    assert_eq!(element_size(PrimitiveType::Pred), 0);
    // Through tuples.
    let tuple = make_tuple_shape(vec![s4.clone(), make_nil()]).unwrap();
    assert_eq!(
        change_element_type(&tuple, PrimitiveType::S8)
            .unwrap()
            .to_string(),
        "(s8[4]{0}, ())"
    );
    assert_eq!(
        change_element_type(&s4, PrimitiveType::Token)
            .unwrap_err()
            .to_string(),
        "Unsupported element type: TOKEN"
    );
}

#[test]
fn permute_dimensions_moves_sizes_flags_and_layout() {
    let shape =
        make_validated_shape(PrimitiveType::F32, &[2, 3, 4], &[true, false, false]).unwrap();
    let permuted = permute_dimensions(&shape, &[1, 2, 0]).unwrap();
    assert_eq!(permuted.to_string(), "f32[3,4,<=2]{1,0,2}");
    assert!(transpose_is_bitcast(&shape, &permuted, &[1, 2, 0]).unwrap());
    assert_eq!(
        permute_dimensions(&shape, &[0, 0, 1])
            .unwrap_err()
            .to_string(),
        "{0,0,1} is not a permutation of the 3 dimensions of f32[<=2,3,4]"
    );
    let padded = make_shape_with_layout(
        PrimitiveType::F32,
        &[2, 3],
        LayoutBuilder::new(&[1, 0])
            .padded_dimensions(vec![4, 5])
            .build(),
    )
    .unwrap();
    let permuted = permute_dimensions(&padded, &[1, 0]).unwrap();
    assert_eq!(permuted.layout.as_ref().unwrap().padded_dimensions, [5, 4]);
    assert_eq!(permuted.layout.as_ref().unwrap().minor_to_major, [0, 1]);
}

#[test]
fn permute_dimensions_matches_xlas_reorder_logical_dimensions_examples() {
    // ReorderLogicalDimensions maps the layout through the inverse
    // permutation (the 2026 fix), which is what PermuteDimensions does.
    let shape = f32(&[16, 3, 12, 17], &[1, 2, 0, 3]);
    assert_eq!(
        permute_dimensions(&shape, &[0, 2, 1, 3])
            .unwrap()
            .to_string(),
        "f32[16,12,3,17]{2,1,0,3}"
    );
    let shape = f32(&[10, 20, 30], &[2, 1, 0]);
    assert_eq!(
        permute_dimensions(&shape, &[1, 2, 0]).unwrap().to_string(),
        "f32[20,30,10]{1,0,2}"
    );
}

#[test]
fn transpose_and_reshape_need_layouts() {
    let mut bare = f32(&[2, 3], &[1, 0]);
    bare.layout = None;
    let with = f32(&[3, 2], &[0, 1]);
    assert_eq!(
        transpose_is_bitcast(&bare, &with, &[1, 0])
            .unwrap_err()
            .to_string(),
        "shape f32[2,3] does not have a layout"
    );
    assert!(reshape_is_bitcast(&with, &bare).is_err());
}

#[test]
fn reshape_bitcasts_from_xlas_tests() {
    // f32[3,4] -> f32[6,2] is a bitcast only when both are {1,0}.
    for (a, b, expected) in [
        (&[1, 0], &[1, 0], true),
        (&[0, 1], &[1, 0], false),
        (&[1, 0], &[0, 1], false),
        (&[0, 1], &[0, 1], false),
    ] {
        assert_eq!(
            reshape_is_bitcast(&f32(&[3, 4], a), &f32(&[6, 2], b)).unwrap(),
            expected,
            "{a:?} {b:?}"
        );
    }
    // Element types must match unless ignored; zero elements always bitcast.
    let s32 = laid_out(PrimitiveType::S32, &[12], &[0]);
    assert!(!reshape_is_bitcast(&f32(&[3, 4], &[1, 0]), &s32).unwrap());
    assert!(reshape_is_bitcast(&f32(&[0, 4], &[0, 1]), &f32(&[4, 0], &[0, 1])).unwrap());
    assert!(!reshape_is_bitcast(&f32(&[3, 4], &[1, 0]), &f32(&[13], &[0])).unwrap());
    // Adding and removing degenerate dimensions.
    assert!(reshape_is_bitcast(&f32(&[3, 1, 4], &[0, 1, 2]), &f32(&[3, 4], &[0, 1])).unwrap());
}

#[test]
fn padded_shapes_do_not_bitcast() {
    let padded = |dims: &[i64], m2m: &[i64], pad: Vec<i64>| {
        make_shape_with_layout(
            PrimitiveType::F32,
            dims,
            LayoutBuilder::new(m2m).padded_dimensions(pad).build(),
        )
        .unwrap()
    };
    let a = padded(&[2, 3], &[1, 0], vec![4, 3]);
    let b = padded(&[3, 2], &[0, 1], vec![3, 4]);
    assert!(!transpose_is_bitcast(&a, &b, &[1, 0]).unwrap());
    assert_eq!(
        deduce_transpose_dimensions_for_bitcast(&a, &b).unwrap(),
        None
    );
    // One padded side is enough to stop a transpose and a reshape: the
    // buffers differ (8 positions and 6), whichever side is padded.
    let plain = f32(&[3, 2], &[0, 1]);
    assert!(!transpose_is_bitcast(&a, &plain, &[1, 0]).unwrap());
    assert!(!transpose_is_bitcast(&plain, &a, &[1, 0]).unwrap());
    assert_eq!(
        deduce_transpose_dimensions_for_bitcast(&a, &plain).unwrap(),
        None
    );
    assert_eq!(
        deduce_transpose_dimensions_for_bitcast(&plain, &a).unwrap(),
        None
    );
    assert!(!reshape_is_bitcast(&a, &f32(&[6], &[0])).unwrap());
    assert!(!reshape_is_bitcast(&f32(&[6], &[0]), &a).unwrap());
    // The case: f32[2,3]{0,1:PAD(3,5)} against f32[2,3]{0,1}.
    let column_major = padded(&[2, 3], &[0, 1], vec![3, 5]);
    let unpadded_column_major = f32(&[2, 3], &[0, 1]);
    assert_eq!(
        deduce_transpose_dimensions_for_bitcast(&column_major, &unpadded_column_major).unwrap(),
        None
    );
    assert!(!transpose_is_bitcast(&column_major, &unpadded_column_major, &[0, 1]).unwrap());
    assert_eq!(
        decompose_bitcast(&column_major, &unpadded_column_major).unwrap(),
        None
    );
    // Padding equal to the dimensions is no padding.
    let unpadded = padded(&[2, 3], &[1, 0], vec![2, 3]);
    assert!(reshape_is_bitcast(&unpadded, &f32(&[6], &[0])).unwrap());
}

#[test]
fn decomposable_bitcasts() {
    let s4 = laid_out(PrimitiveType::S4, &[3, 2], &[1, 0]);
    assert_eq!(
        decompose_bitcast(&s4, &laid_out(PrimitiveType::S8, &[3], &[0])).unwrap(),
        None
    );
    assert_eq!(
        decompose_bitcast(&s4, &laid_out(PrimitiveType::S8, &[3, 2], &[1, 0])).unwrap(),
        Some(BitcastDecomposition::Reshape)
    );
    let Some(BitcastDecomposition::TransposeReshapeTranspose {
        transpose1_dimensions,
        transpose1_shape,
        reshape_shape,
        transpose2_dimensions,
    }) = decompose_bitcast(&f32(&[2, 3, 4], &[0, 1, 2]), &f32(&[4, 6], &[0, 1])).unwrap()
    else {
        panic!("expected a transpose-reshape-transpose");
    };
    assert_eq!(transpose1_dimensions, [2, 1, 0]);
    assert_eq!(transpose1_shape.to_string(), "f32[4,3,2]{2,1,0}");
    assert_eq!(reshape_shape.to_string(), "f32[6,4]{1,0}");
    assert_eq!(transpose2_dimensions, [1, 0]);
}

#[test]
fn align_layouts_from_xlas_tests() {
    let input = f32(&[3, 8, 5, 7, 11], &[3, 2, 1, 0, 4]);
    let output = make_shape(PrimitiveType::F32, &[4, 3, 2, 7, 5, 11]).unwrap();
    let aligned = align_layouts(&input, &output).unwrap().unwrap();
    assert_eq!(
        aligned.layout.as_ref().unwrap().minor_to_major,
        [4, 3, 2, 1, 0, 5]
    );
    assert!(reshape_is_bitcast(&input, &aligned).unwrap());
    // All dimensions trivial: the 1-dims are the most major, descending.
    let ones = f32(&[1, 1, 1, 1], &[0, 1, 3, 2]);
    let output = make_shape(PrimitiveType::F32, &[1, 1, 1, 1, 1]).unwrap();
    let aligned = align_layouts(&ones, &output).unwrap().unwrap();
    assert_eq!(
        aligned.layout.as_ref().unwrap().minor_to_major,
        [4, 3, 2, 1, 0]
    );
    // Degenerate dimensions are dropped and re-added.
    let input = f32(&[4, 1, 3], &[2, 1, 0]);
    let aligned = align_layouts(&input, &make_shape(PrimitiveType::F32, &[1, 12]).unwrap())
        .unwrap()
        .unwrap();
    assert_eq!(aligned.to_string(), "f32[1,12]{1,0}");
    assert!(reshape_is_bitcast(&input, &aligned).unwrap());
    assert_eq!(
        align_layouts(&input, &make_shape(PrimitiveType::F32, &[5]).unwrap())
            .unwrap_err()
            .to_string(),
        "element counts differ: f32[4,1,3] and f32[5]"
    );
}

#[test]
fn dimension_edits_keep_the_layout_in_step() {
    let shape = f32(&[2, 1, 3, 1], &[3, 0, 1, 2]);
    assert_eq!(
        drop_degenerate_dimensions(&shape).unwrap().to_string(),
        "f32[2,3]{0,1}"
    );
    assert_eq!(
        delete_dimensions(&shape, &[0, 2]).unwrap().to_string(),
        "f32[1,1]{1,0}"
    );
    assert_eq!(
        delete_dimensions(&shape, &[1, 1]).unwrap_err().to_string(),
        "dimension 1 is out of range for rank 4"
    );
    assert!(drop_degenerate_dimensions(&make_nil()).is_err());
}
