//! Hostile layouts: `minor_to_major` with `i64` extremes, duplicates and the
//! wrong length, padding shorter, longer or smaller than the dimensions,
//! enum numbers no enum has, and tiles, alignments, element sizes and split
//! configs at the `i64` extremes. Each is the error XLA's format strings
//! give (spec §2 and §5.1, with the offending value), or accepted where
//! XLA accepts it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use layout_util::{
    LayoutBuilder, LayoutEqual, LayoutError, clear_layout, copy_layout_between_shapes, has_layout,
    is_padded, layouts_in_shapes_equal, major, make_layout, make_logical_to_physical, minor,
    move_dim_to_major, move_dim_to_minor, padded_dimensions, padding_value, set_to_default_layout,
    validate_layout_for_shape, validate_layout_in_shape,
};
use schema::{Layout, MAX_DEPTH, PrimitiveType, Shape, SplitConfig, Tile};

/// An f32 array without a layout.
fn f32_array(dimensions: &[i64]) -> Shape {
    Shape {
        element_type: PrimitiveType::F32 as i32,
        dimensions: dimensions.to_vec(),
        is_dynamic_dimension: vec![false; dimensions.len()],
        ..Shape::default()
    }
}

/// The error text of `layout` on `f32[2,3]`, or "ok".
fn check(layout: &Layout) -> String {
    check_on(layout, &[2, 3])
}

fn check_on(layout: &Layout, dimensions: &[i64]) -> String {
    validate_layout_for_shape(layout, &f32_array(dimensions))
        .map_or_else(|e| e.to_string(), |()| "ok".to_owned())
}

#[test]
fn minor_to_major_extremes_duplicates_and_wrong_lengths() {
    assert_eq!(
        check(&make_layout(&[i64::MIN, i64::MAX])),
        "layout minor_to_major field has out-of-bounds value: {-9223372036854775808, 9223372036854775807}; shape: f32[2,3]"
    );
    assert_eq!(
        check(&make_layout(&[1, -1])),
        "layout minor_to_major field has out-of-bounds value: {1, -1}; shape: f32[2,3]"
    );
    // The length is checked first, then the entries one by one.
    assert_eq!(
        check(&make_layout(&[1, 1, 0])),
        "layout minor_to_major field contains 3 elements, but shape has 2 dimensions: {1, 1, 0}; shape: f32[2,3]"
    );
    assert_eq!(
        check(&make_layout(&[])),
        "layout minor_to_major field contains 0 elements, but shape has 2 dimensions: {}; shape: f32[2,3]"
    );
    assert_eq!(
        check_on(&make_layout(&[0, 0, 3]), &[1, 2, 3]),
        "layout minor_to_major field has duplicate values: {0, 0, 3}; shape: f32[1,2,3]"
    );
    assert_eq!(
        check_on(&make_layout(&[3, 0, 0]), &[1, 2, 3]),
        "layout minor_to_major field has out-of-bounds value: {3, 0, 0}; shape: f32[1,2,3]"
    );
    let million: Vec<i64> = (0..1_000_000).collect();
    assert!(matches!(
        validate_layout_for_shape(&make_layout(&million), &f32_array(&[2, 3])),
        Err(LayoutError::MinorToMajorLength {
            len: 1_000_000,
            rank: 2,
            ..
        })
    ));
    // Layout checks do not look at the sizes (ValidateDimensions does).
    assert_eq!(check_on(&make_layout(&[1, 0]), &[i64::MAX, i64::MIN]), "ok");
    assert_eq!(check_on(&make_layout(&[0]), &[-1]), "ok");
}

#[test]
fn padding_shorter_longer_or_smaller_than_the_dimensions() {
    let padded = |extents: &[i64]| {
        LayoutBuilder::new(&[1, 0])
            .padded_dimensions(extents.to_vec())
            .build()
    };
    assert_eq!(
        check(&padded(&[3])),
        "layout has 1 padded dimensions, but shape is rank 2"
    );
    assert_eq!(
        check(&padded(&[3, 5, 7])),
        "layout has 3 padded dimensions, but shape is rank 2"
    );
    assert_eq!(
        check(&padded(&[i64::MIN, 5])),
        "for dimension 0, dimension padding (-9223372036854775808) is smaller than the dimension size (2) of the shape"
    );
    assert_eq!(
        check(&padded(&[2, 2])),
        "for dimension 1, dimension padding (2) is smaller than the dimension size (3) of the shape"
    );
    assert_eq!(check(&padded(&[i64::MAX, i64::MAX])), "ok");
    // Padding equal to the dimensions is not padding (spec §2).
    let mut shape = f32_array(&[i64::MAX, 3]);
    shape.layout = Some(Box::new(padded(&[i64::MAX, 3])));
    assert!(!is_padded(&shape));
    assert_eq!(padded_dimensions(&shape).unwrap(), [i64::MAX, 3]);
    // padded_dimensions applies the same checks.
    shape.layout = Some(Box::new(padded(&[i64::MAX])));
    assert_eq!(
        padded_dimensions(&shape),
        Err(LayoutError::PaddedDimensionCount { count: 1, rank: 2 })
    );
    assert!(!is_padded(&shape));
}

#[test]
fn enum_numbers_outside_their_enums() {
    for value in [77, i32::MIN, i32::MAX] {
        let layout = Layout {
            padding_value: value,
            ..make_layout(&[1, 0])
        };
        assert_eq!(
            padding_value(&layout),
            Err(LayoutError::UnknownPaddingValue { value })
        );
        assert_eq!(
            padding_value(&layout).unwrap_err().to_string(),
            format!("layout has unknown padding_value {value}")
        );
    }
    // dim_level_types is proto-only since 2025-05 (spec §1.2): neither its
    // values nor its length are checked.
    let sparse = Layout {
        dim_level_types: vec![9999, -1, 9999],
        ..make_layout(&[1, 0])
    };
    assert_eq!(check(&sparse), "ok");
    // Any index or pointer type is a sparse-only field.
    let index = Layout {
        index_primitive_type: 9999,
        ..make_layout(&[1, 0])
    };
    assert_eq!(
        check(&index),
        "layout has a index_primitive_type, but is not a sparse array: f32[2,3]"
    );
    let pointer = Layout {
        pointer_primitive_type: -1,
        ..make_layout(&[1, 0])
    };
    assert_eq!(
        check(&pointer),
        "layout has a pointer_primitive_type, but is not a sparse array: f32[2,3]"
    );
}

#[test]
fn tiles_alignment_element_size_and_split_configs_at_the_extremes() {
    let tiled = |dimensions: Vec<i64>| {
        LayoutBuilder::new(&[1, 0])
            .tiles(vec![Tile { dimensions }])
            .build()
    };
    // i64::MIN is the combine dimension `*`; one above it is not.
    assert_eq!(check(&tiled(vec![i64::MIN, 1])), "ok");
    assert_eq!(check(&tiled(vec![i64::MAX, i64::MAX, i64::MAX])), "ok");
    assert_eq!(
        check(&tiled(vec![8, i64::MIN + 1])),
        "layout has invalid tiles: tile dimension -9223372036854775807 must be positive or kCombineDimension: f32[2,3]"
    );
    let aligned = LayoutBuilder::new(&[1, 0])
        .tail_padding_alignment_in_elements(i64::MIN)
        .build();
    assert_eq!(
        check(&aligned),
        "layout tail_padding_alignment_in_elements field is <= 0: {-9223372036854775808}"
    );
    let sized = |bits| {
        LayoutBuilder::new(&[1, 0])
            .element_size_in_bits(bits)
            .build()
    };
    assert_eq!(
        check(&sized(i64::MIN)),
        "layout element_size_in_bits field is negative: -9223372036854775808"
    );
    assert_eq!(check(&sized(i64::MAX)), "ok");
    let split = |dimension, split_indices: Vec<i64>| {
        LayoutBuilder::new(&[1, 0])
            .split_configs(vec![SplitConfig {
                dimension,
                split_indices,
            }])
            .build()
    };
    for dimension in [i64::MIN, -1, 2, i64::MAX] {
        assert_eq!(
            check(&split(dimension, vec![1])),
            format!(
                "split config has out-of-bounds physical dimension: {dimension}; shape: f32[2,3]"
            )
        );
    }
    assert_eq!(
        check(&split(1, vec![i64::MIN])),
        "split config split indices must be strictly increasing and positive: {-9223372036854775808}; shape: f32[2,3]"
    );
    // Physical dimension 1 of {1,0} is logical dimension 1, of size 3.
    assert_eq!(
        check(&split(1, vec![1, i64::MAX])),
        "split config split index is out of bounds: 9223372036854775807 (dim size 3); shape: f32[2,3]"
    );
}

#[test]
fn queries_with_out_of_range_dimensions() {
    assert_eq!(
        make_logical_to_physical(&make_layout(&[i64::MIN, 0]))
            .unwrap_err()
            .to_string(),
        "layout minor_to_major field is not a permutation: {-9223372036854775808, 0}"
    );
    assert_eq!(
        make_logical_to_physical(&make_layout(&[1, 1])),
        Err(LayoutError::NotAPermutation {
            minor_to_major: vec![1, 1]
        })
    );
    let layout = make_layout(&[1, 0]);
    for dimension in [i64::MIN, -1, 2, i64::MAX] {
        assert_eq!(
            move_dim_to_major(&layout, dimension),
            Err(LayoutError::DimensionNotInLayout {
                dimension,
                layout: "{1,0}".to_owned()
            })
        );
        assert!(move_dim_to_minor(&layout, dimension).is_err());
    }
    assert_eq!(major(&layout, usize::MAX), None);
    assert_eq!(minor(&layout, usize::MAX), None);
    assert_eq!(major(&layout, 2), None);
    assert_eq!(major(&layout, 1), Some(1));
}

#[test]
fn the_deepest_nest_the_parser_accepts_works_on_a_small_stack() {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            let text = format!(
                "{}f32[2,3]{{0,1}}{}",
                "(".repeat(MAX_DEPTH - 1),
                ")".repeat(MAX_DEPTH - 1)
            );
            let mut shape: Shape = text.parse().unwrap();
            assert_eq!(validate_layout_in_shape(&shape, false), Ok(()));
            assert!(has_layout(&shape));
            let mut copy = shape.clone();
            clear_layout(&mut copy);
            assert!(!has_layout(&copy));
            copy_layout_between_shapes(&shape, &mut copy).unwrap();
            assert!(layouts_in_shapes_equal(&shape, &copy, &LayoutEqual::new()));
            set_to_default_layout(&mut shape);
            assert!(!layouts_in_shapes_equal(&shape, &copy, &LayoutEqual::new()));
            // The innermost array's broken layout is found at the bottom.
            let mut inner = &mut shape;
            while let Some(next) = inner.tuple_shapes.first_mut() {
                inner = next;
            }
            inner.layout = Some(Box::new(make_layout(&[0, 0])));
            assert_eq!(
                validate_layout_in_shape(&shape, false)
                    .unwrap_err()
                    .to_string(),
                "layout minor_to_major field has duplicate values: {0, 0}; shape: f32[2,3]"
            );
        })
        .unwrap()
        .join()
        .unwrap();
}
