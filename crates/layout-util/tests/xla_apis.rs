//! The ports of the rest of XLA's `LayoutUtil` against XLA's own unit tests
//! (`xla/layout_util_test.cc`, test names cited), and their error paths.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use schema::PrimitiveType::{F32, Tuple};
use schema::Shape;

fn shape(text: &str) -> Shape {
    text.parse().unwrap()
}

/// `LayoutUtilTest.StridesIsMajorToMinor`,
/// `StridesNotMajorToMinorInnerMostStrideIncorrect`, `StridesNotMajorToMinor`.
#[test]
fn byte_strides_is_major_to_minor() {
    let dims = [8, 9, 10, 11];
    assert!(layout_util::byte_strides_is_major_to_minor(&[3960, 440, 44, 4], &dims, F32).unwrap());
    assert!(!layout_util::byte_strides_is_major_to_minor(&[1880, 220, 22, 2], &dims, F32).unwrap());
    assert!(!layout_util::byte_strides_is_major_to_minor(&[1880, 440, 44, 4], &dims, F32).unwrap());
    assert!(layout_util::byte_strides_is_major_to_minor(&[], &[], F32).unwrap());
    assert_eq!(
        layout_util::byte_strides_is_major_to_minor(&[4], &dims, F32)
            .unwrap_err()
            .to_string(),
        "1 byte strides for 4 dimensions"
    );
    assert!(layout_util::byte_strides_is_major_to_minor(&[4], &[1], Tuple).is_err());
    assert!(
        !layout_util::byte_strides_is_major_to_minor(&[1, 4], &[i64::MAX, i64::MAX], F32).unwrap()
    );
}

/// `LayoutUtilTest.HasCustomElementSizeInBits`.
#[test]
fn has_custom_element_size_in_bits() {
    assert!(!layout_util::has_custom_element_size_in_bits(&shape(
        "f32[1,2]{1,0}"
    )));
    let mut s = shape("f32[1,2]{1,0}");
    s.layout.as_deref_mut().unwrap().element_size_in_bits = 32;
    assert!(layout_util::has_custom_element_size_in_bits(&s));
    let mut nested = shape("((f32[1,2]{1,0}, f32[1,2]{1,0}), f32[1,2]{1,0})");
    assert!(!layout_util::has_custom_element_size_in_bits(&nested));
    nested.tuple_shapes[0].tuple_shapes[1]
        .layout
        .as_deref_mut()
        .unwrap()
        .element_size_in_bits = 32;
    assert!(layout_util::has_custom_element_size_in_bits(&nested));
    assert!(!layout_util::has_custom_element_size_in_bits(&shape(
        "token[]"
    )));
}

/// `f32[150,200,100]{0,1,2}` with split configs `(0:30)` and `(1:40,130)`.
fn split_shape() -> Shape {
    shape("f32[150,200,100]{0,1,2:SC(0:30)(1:40,130)}")
}

/// `LayoutUtilTest.MaxSplitSize`.
#[test]
fn max_split_size() {
    let s = split_shape();
    assert_eq!(layout_util::max_split_size(&s, 0).unwrap(), 150);
    assert_eq!(layout_util::max_split_size(&s, 1).unwrap(), 90);
    assert_eq!(layout_util::max_split_size(&s, 2).unwrap(), 70);
    assert_eq!(
        layout_util::max_split_size(&s, 3).unwrap_err().to_string(),
        "dimension 3 is out of range for rank 3"
    );
    assert!(layout_util::max_split_size(&s, -1).is_err());
    assert!(layout_util::max_split_size(&shape("(f32[2])"), 0).is_err());
    assert_eq!(layout_util::max_split_size(&shape("f32[7]"), 0).unwrap(), 7);
}

/// `LayoutUtilTest.MaxElementsInPerSplit`.
#[test]
fn max_elements_in_per_split() {
    assert_eq!(
        layout_util::max_elements_in_per_split(&shape("f32[150,200,100]{0,1,2}")).unwrap(),
        150 * 200 * 100
    );
    assert_eq!(
        layout_util::max_elements_in_per_split(&split_shape()).unwrap(),
        150 * 90 * 70
    );
    assert!(layout_util::max_elements_in_per_split(&shape("f32[4294967296,4294967296]")).is_err());
    assert_eq!(
        layout_util::get_split_config(&split_shape())
            .unwrap_err()
            .to_string(),
        "layout of f32[150,200,100]{0,1,2:SC(0:30)(1:40,130)} has 2 split configs, at most one expected"
    );
    assert_eq!(
        layout_util::get_split_config(&shape("f32[2]")).unwrap(),
        None
    );
}

#[test]
fn tiles_consecutive_dimensions_and_linear_index() {
    let mut s = shape("(f32[8,128]{1,0:T(8,128)}, (s8[256]{0:T(256)(4,1)}))");
    layout_util::clear_tiles(&mut s);
    assert_eq!(s.to_string(), "(f32[8,128]{1,0}, (s8[256]{0}))");
    let layout = layout_util::make_layout(&[3, 1, 2, 0]);
    assert!(layout_util::are_dimensions_consecutive(&layout, &[2, 1, 0]));
    assert!(layout_util::are_dimensions_consecutive(&layout, &[3]));
    assert!(layout_util::are_dimensions_consecutive(&layout, &[]));
    assert!(!layout_util::are_dimensions_consecutive(&layout, &[3, 2]));
    assert!(!layout_util::are_dimensions_consecutive(&layout, &[1, 1]));
    assert!(
        layout_util::is_dense_array(&shape("pred[]"))
            && !layout_util::is_dense_array(&shape("token[]"))
    );
    // The first tile only: `T(2,2)(1,1)` counts as `T(2,2)`.
    let tiled = shape("f32[3,5]{1,0:T(2,2)(1,1)}");
    assert_eq!(layout_util::linear_index(&tiled, &[1, 1]).unwrap(), 3);
    assert_eq!(layout_util::linear_index(&tiled, &[2, 0]).unwrap(), 12);
    assert_eq!(layout_util::linear_index(&shape("f32[]"), &[]).unwrap(), 0);
    assert_eq!(
        layout_util::linear_index(&shape("f32[9]{0:T(4)}"), &[7]).unwrap(),
        7
    );
    assert!(layout_util::linear_index(&tiled, &[1]).is_err());
    assert!(layout_util::linear_index(&tiled, &[-1, 0]).is_err());
    assert!(layout_util::linear_index(&shape("(f32[])"), &[]).is_err());
    let mut no_layout = shape("f32[2,2]");
    no_layout.layout = None;
    assert!(layout_util::linear_index(&no_layout, &[0, 0]).is_err());
    let huge = shape("f32[4294967296,4294967296]{1,0}");
    assert_eq!(
        layout_util::linear_index(&huge, &[1, 4294967295]).unwrap(),
        8589934591
    );
    assert!(layout_util::linear_index(&huge, &[4294967295, 4294967295]).is_err());
    let bigger = shape("f32[9223372036854775807,9223372036854775807]{1,0}");
    assert!(layout_util::linear_index(&bigger, &[9223372036854775806, 1]).is_err());
}
