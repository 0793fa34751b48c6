//! Hostile shapes and indices: extreme and negative dimensions, buffers
//! just over `i64::MAX` elements, broken layouts, indices whose products
//! with strides overflow. Every one is a precise error, never a panic or a
//! wrapped value; the fuzz target `index_broadcast` found the first case.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use index_util::{
    ForEachIndex, IndexError, PhysicalLayout, linear_index_for_nested_tiling,
    linear_index_to_multidimensional_index, multidimensional_index_to_linear_index,
};
use layout_util::LayoutBuilder;
use schema::{PrimitiveType, Shape};

/// An f32 array with an explicit layout.
fn array(dimensions: &[i64], minor_to_major: &[i64], padded: &[i64]) -> Shape {
    Shape {
        element_type: PrimitiveType::F32 as i32,
        dimensions: dimensions.to_vec(),
        is_dynamic_dimension: vec![false; dimensions.len()],
        layout: Some(Box::new(
            LayoutBuilder::new(minor_to_major)
                .padded_dimensions(padded.to_vec())
                .build(),
        )),
        ..Shape::default()
    }
}

fn error(shape: &Shape) -> String {
    PhysicalLayout::new(shape).unwrap_err().to_string()
}

#[test]
fn a_negative_dimension_under_a_padded_layout_is_rejected() {
    // Fuzz regression: padding larger than a negative size used to pass,
    // giving an array whose every linear index "fell in the padding".
    let shape = array(&[-720_575_940_379_279_105], &[0], &[14_155_776]);
    assert_eq!(
        PhysicalLayout::new(&shape),
        Err(IndexError::NegativeDimension {
            dimension: 0,
            size: -720_575_940_379_279_105,
            shape: Box::new(shape.clone()),
        })
    );
    let shape = array(&[2, -1], &[1, 0], &[2, 3]);
    assert_eq!(
        error(&shape),
        "dimension 1 of shape f32[2,-1] has no size: -1"
    );
}

#[test]
fn negative_and_unbounded_dimensions_are_rejected() {
    let unbounded: Shape = "f32[2,?]".parse().unwrap();
    assert_eq!(
        error(&unbounded),
        "dimension 1 of shape f32[2,?] has no size: -9223372036854775808"
    );
    assert_eq!(
        error(&array(&[i64::MIN], &[0], &[])),
        "dimension 0 of shape f32[-9223372036854775808] has no size: -9223372036854775808"
    );
    assert_eq!(
        error(&array(&[-1, 2], &[1, 0], &[])),
        "dimension 0 of shape f32[-1,2] has no size: -1"
    );
}

#[test]
fn buffers_just_over_i64_max_elements_overflow() {
    // 2^62 * 2 = 2^63 = i64::MAX + 1 elements.
    let shape = array(&[1 << 62, 2], &[1, 0], &[]);
    assert_eq!(
        error(&shape),
        "the buffer of shape f32[4611686018427387904,2] (padding and tiles included) has more than i64::MAX elements"
    );
    // i64::MAX elements fit; padding one dimension by one more does not.
    let fits = array(&[i64::MAX], &[0], &[]);
    let layout = PhysicalLayout::new(&fits).unwrap();
    assert_eq!(layout.padded_element_count(), i64::MAX);
    assert_eq!(
        layout.multidimensional_index(i64::MAX - 1).unwrap(),
        [i64::MAX - 1]
    );
    assert_eq!(
        layout.multidimensional_index(i64::MAX),
        Err(IndexError::LinearIndexOutOfBounds {
            linear: i64::MAX,
            size: i64::MAX
        })
    );
    let padded = array(&[i64::MAX / 2, 1], &[0, 1], &[i64::MAX / 2, 3]);
    assert!(matches!(
        PhysicalLayout::new(&padded),
        Err(IndexError::Overflow { .. })
    ));
}

#[test]
fn indices_whose_products_with_strides_would_overflow_are_out_of_bounds() {
    // Dimension 0 has stride 2^62 - 1; the last element is at 2^63 - 3.
    let big = (1_i64 << 62) - 1;
    let shape = array(&[2, big], &[1, 0], &[]);
    let layout = PhysicalLayout::new(&shape).unwrap();
    assert_eq!(layout.strides(), [big, 1]);
    assert_eq!(layout.linear_index(&[1, big - 1]).unwrap(), i64::MAX - 2);
    assert_eq!(
        layout.linear_index(&[2, 0]).unwrap_err().to_string(),
        format!("index {{2, 0}} is out of bounds in dimension 0 (size 2)")
    );
    for index in [[i64::MAX, 0], [i64::MIN, 0], [-1, 0], [0, i64::MAX]] {
        let dimension = usize::from(index[0] == 0);
        assert_eq!(
            layout.linear_index(&index),
            Err(IndexError::IndexOutOfBounds {
                index: index.to_vec(),
                dimension,
                size: shape.dimensions[dimension],
            })
        );
        // The unchecked path wraps instead of panicking.
        let _ = layout.linear_index_unchecked(&index);
    }
    assert_eq!(
        multidimensional_index_to_linear_index(&shape, &[0]),
        Err(IndexError::RankMismatch { len: 1, rank: 2 })
    );
}

#[test]
fn linear_indices_outside_the_buffer_name_the_value() {
    let shape: Shape = "f32[2,3]{0,1:PAD(3,5)}".parse().unwrap();
    for linear in [i64::MIN, -1, 15, i64::MAX] {
        assert_eq!(
            linear_index_to_multidimensional_index(&shape, linear)
                .unwrap_err()
                .to_string(),
            format!("linear index {linear} is out of bounds for a buffer of 15 elements")
        );
    }
    // 2 is the padding row of dim 0 (extent 3, size 2).
    assert_eq!(
        linear_index_to_multidimensional_index(&shape, 2),
        Err(IndexError::LinearIndexInPadding {
            linear: 2,
            dimension: 0,
            index: 2,
            size: 2
        })
    );
}

#[test]
fn broken_minor_to_major_and_padding_are_layout_errors() {
    let cases: [(Shape, &str); 5] = [
        (
            array(&[2, 3], &[0, 0], &[]),
            "layout minor_to_major field has duplicate values: {0, 0}; shape: f32[2,3]",
        ),
        (
            array(&[2, 3], &[0, 2], &[]),
            "layout minor_to_major field has out-of-bounds value: {0, 2}; shape: f32[2,3]",
        ),
        (
            array(&[2, 3], &[i64::MIN, 0], &[]),
            "layout minor_to_major field has out-of-bounds value: {-9223372036854775808, 0}; shape: f32[2,3]",
        ),
        (
            array(&[2, 3], &[0], &[]),
            "layout minor_to_major field contains 1 elements, but shape has 2 dimensions: {0}; shape: f32[2,3]",
        ),
        (
            array(&[2, 3], &[1, 0], &[2]),
            "layout has 1 padded dimensions, but shape is rank 2",
        ),
    ];
    for (shape, message) in cases {
        let e = PhysicalLayout::new(&shape).unwrap_err();
        assert!(matches!(e, IndexError::Layout(_)), "{e:?}");
        assert_eq!(e.to_string(), message);
    }
    assert_eq!(
        error(&array(&[2, 3], &[1, 0], &[2, 2])),
        "for dimension 1, dimension padding (2) is smaller than the dimension size (3) of the shape"
    );
}

#[test]
fn non_arrays_and_out_of_range_types_are_not_arrays() {
    let mut shape = array(&[2], &[0], &[]);
    shape.element_type = 999;
    assert!(matches!(
        PhysicalLayout::new(&shape),
        Err(IndexError::NotAnArray { .. })
    ));
    let tuple: Shape = "(f32[2])".parse().unwrap();
    assert_eq!(error(&tuple), "shape (f32[2]) is not an array");
}

#[test]
fn iteration_regions_that_overflow_or_never_advance_are_rejected() {
    let shape = array(&[4], &[0], &[]);
    let region = |base: i64, count: i64, incr: i64| {
        ForEachIndex::new(&shape, &[base], &[count], &[incr]).map(|_| ())
    };
    for (base, count, incr) in [
        (i64::MAX, 1, 1),
        (0, i64::MAX, 1),
        (1, 1, 0),
        (-1, 1, 1),
        (i64::MIN, 2, 1),
        (0, 4, i64::MIN),
    ] {
        assert_eq!(
            region(base, count, incr),
            Err(IndexError::InvalidRegion {
                dimension: 0,
                size: 4,
                base,
                count,
                incr
            }),
            "base {base}, count {count}, incr {incr}"
        );
    }
    // A huge increment over a valid region visits the base only.
    let mut iterator = ForEachIndex::new(&shape, &[1], &[3], &[i64::MAX]).unwrap();
    assert_eq!(iterator.next_index(), Some(&[1][..]));
    assert_eq!(iterator.next_index(), None);
}

#[test]
fn tiles_that_overflow_the_buffer_are_errors() {
    // Tiles (1, i64::MAX): row 1 starts i64::MAX elements in, so its
    // element 1 is one past i64::MAX.
    let shape: Shape = format!("f32[2,3]{{1,0:T(1,{})}}", i64::MAX)
        .parse()
        .unwrap();
    assert_eq!(linear_index_for_nested_tiling(&shape, &[0, 2]), Ok(2));
    assert_eq!(
        linear_index_for_nested_tiling(&shape, &[1, 0]),
        Ok(i64::MAX)
    );
    assert_eq!(
        linear_index_for_nested_tiling(&shape, &[1, 1]),
        Err(IndexError::Overflow {
            shape: Box::new(shape.clone())
        })
    );
    let combine: Shape = "f32[4,4]{1,0:T(2,*)}".parse().unwrap();
    assert_eq!(
        linear_index_for_nested_tiling(&combine, &[1, 1])
            .unwrap_err()
            .to_string(),
        "tile (2,*) has a combine dimension (*), which nested tiling does not support"
    );
}

#[test]
fn memory_order_at_a_high_rank_costs_no_more_than_its_positions() {
    // Rank 100,000 of size-1 dimensions around a 3x5 array in 2x2 tiles:
    // the iteration plan is over the few final dimensions of size > 1 (it
    // was quadratic in the rank: 80 GB at rank 100,000).
    let rank: usize = 100_000;
    let top = i64::try_from(rank).unwrap();
    let mut dimensions = vec![1; rank];
    dimensions[rank - 2] = 3;
    dimensions[rank - 1] = 5;
    let mut shape = array(&dimensions, &(0..top).rev().collect::<Vec<_>>(), &[]);
    shape.layout.as_mut().unwrap().tiles = vec![schema::Tile {
        dimensions: vec![2, 2],
    }];
    let layout = index_util::TiledLayout::new(&shape).unwrap();
    let mut order = Vec::new();
    layout.for_each_position(|_, element| order.push(element.map_or(-1, |e| e)));
    assert_eq!(
        order,
        [
            0, 1, 5, 6, 2, 3, 7, 8, 4, -1, 9, -1, 10, 11, -1, -1, 12, 13, -1, -1, 14, -1, -1, -1
        ]
    );
}
