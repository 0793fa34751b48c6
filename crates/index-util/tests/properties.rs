//! Property tests: linear -> multi -> linear is the identity on random
//! shapes, layouts and padding; iteration visits every index of a region
//! exactly once, in increasing linear order.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use index_util::{
    ForEachIndex, IndexError, PhysicalLayout, bump_indices, dimension_strides, for_each_index,
    linear_index_for_nested_tiling,
};
use layout_util::LayoutBuilder;
use proptest::prelude::*;
use schema::{PrimitiveType, Shape};

/// A random array: dims, a random permutation as minor_to_major, and
/// (maybe) padding of up to 2 per dimension.
fn array(max_dim: i64) -> impl Strategy<Value = Shape> {
    (0_usize..=4)
        .prop_flat_map(move |rank| {
            (
                prop::collection::vec(0..=max_dim, rank),
                Just((0_i64..).take(rank).collect::<Vec<_>>()).prop_shuffle(),
                prop::option::of(prop::collection::vec(0_i64..=2, rank)),
            )
        })
        .prop_map(|(dims, m2m, extra)| {
            let mut layout = LayoutBuilder::new(&m2m);
            if let Some(extra) = extra {
                layout =
                    layout.padded_dimensions(dims.iter().zip(extra).map(|(d, e)| d + e).collect());
            }
            Shape {
                element_type: PrimitiveType::F32 as i32,
                is_dynamic_dimension: vec![false; dims.len()],
                dimensions: dims,
                layout: Some(Box::new(layout.build())),
                ..Shape::default()
            }
        })
}

/// Every index of `shape`, row-major, by `bump_indices`.
fn all_indices(shape: &Shape) -> Vec<Vec<i64>> {
    if shape.dimensions.contains(&0) {
        return Vec::new();
    }
    let mut index = vec![0; shape.dimensions.len()];
    let mut all = vec![index.clone()];
    while bump_indices(shape, &mut index).unwrap() {
        all.push(index.clone());
    }
    all
}

proptest! {
    #[test]
    fn linear_to_multi_to_linear_is_the_identity(shape in array(4)) {
        let layout = PhysicalLayout::new(&shape).unwrap();
        let mut elements = 0;
        for linear in 0..layout.padded_element_count() {
            match layout.multidimensional_index(linear) {
                Ok(index) => {
                    prop_assert_eq!(layout.linear_index(&index).unwrap(), linear);
                    prop_assert_eq!(layout.linear_index_unchecked(&index), linear);
                    elements += 1;
                }
                Err(IndexError::LinearIndexInPadding { .. }) => {}
                Err(e) => panic!("{e}"),
            }
        }
        prop_assert_eq!(elements, shape.dimensions.iter().product::<i64>());
    }

    #[test]
    fn multi_to_linear_to_multi_is_the_identity(shape in array(5)) {
        let layout = PhysicalLayout::new(&shape).unwrap();
        for index in all_indices(&shape) {
            let linear = layout.linear_index(&index).unwrap();
            prop_assert!((0..layout.padded_element_count()).contains(&linear));
            prop_assert_eq!(layout.multidimensional_index(linear).unwrap(), index);
        }
    }

    #[test]
    fn strides_are_the_step_of_each_dimension(shape in array(4)) {
        let strides = dimension_strides(&shape).unwrap();
        let layout = PhysicalLayout::new(&shape).unwrap();
        for (d, &stride) in strides.iter().enumerate() {
            if shape.dimensions.iter().all(|&n| n >= 1) && shape.dimensions[d] >= 2 {
                let mut unit = vec![0; strides.len()];
                unit[d] = 1;
                prop_assert_eq!(layout.linear_index(&unit).unwrap(), stride);
            }
        }
    }

    #[test]
    fn iteration_visits_every_index_once_in_linear_order(shape in array(5)) {
        let layout = PhysicalLayout::new(&shape).unwrap();
        let mut linear = Vec::new();
        let rank = shape.dimensions.len();
        for_each_index(&shape, &vec![0; rank], &shape.dimensions, &vec![1; rank], |index| {
            linear.push(layout.linear_index(index).unwrap());
        })
        .unwrap();
        prop_assert_eq!(linear.len(), all_indices(&shape).len());
        prop_assert!(linear.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn region_iteration_matches_brute_force(
        shape in array(5),
        seeds in prop::collection::vec((0_i64..100, 0_i64..100, 1_i64..4), 4),
    ) {
        let dims = &shape.dimensions;
        prop_assume!(!dims.contains(&0));
        // base in [0, n), count in [0, n - base], incr in 1..4.
        let base: Vec<i64> = dims.iter().zip(&seeds).map(|(n, s)| s.0 % n).collect();
        let count: Vec<i64> =
            dims.iter().zip(&base).zip(&seeds).map(|((n, b), s)| s.1 % (n - b + 1)).collect();
        let incr: Vec<i64> = seeds.iter().take(dims.len()).map(|s| s.2).collect();
        let layout = PhysicalLayout::new(&shape).unwrap();
        let visited: Vec<Vec<i64>> = ForEachIndex::new(&shape, &base, &count, &incr).unwrap().collect();
        let mut expected: Vec<Vec<i64>> = all_indices(&shape)
            .into_iter()
            .filter(|index| {
                (0..dims.len()).all(|d| {
                    let offset = index[d] - base[d];
                    if count[d] == 0 {
                        offset == 0
                    } else {
                        offset >= 0 && offset < count[d] && offset % incr[d] == 0
                    }
                })
            })
            .collect();
        expected.sort_by_key(|index| layout.linear_index(index).unwrap());
        prop_assert_eq!(visited, expected);
    }

    #[test]
    fn nested_tiling_without_tiles_is_the_plain_linear_index(shape in array(4)) {
        let mut unpadded = shape.clone();
        if let Some(layout) = unpadded.layout.as_mut() {
            layout.padded_dimensions.clear();
        }
        let layout = PhysicalLayout::new(&unpadded).unwrap();
        for index in all_indices(&unpadded) {
            prop_assert_eq!(
                linear_index_for_nested_tiling(&unpadded, &index).unwrap(),
                layout.linear_index(&index).unwrap()
            );
        }
    }

    #[test]
    fn nested_tiling_is_injective(
        shape in array(5),
        tiles in prop::collection::vec(prop::collection::vec(1_i64..=3, 1..=3), 0..=3),
    ) {
        let mut tiled = shape.clone();
        if let Some(layout) = tiled.layout.as_mut() {
            layout.padded_dimensions.clear();
            layout.tiles = tiles.into_iter().map(|dimensions| schema::Tile { dimensions }).collect();
        }
        let mut linear: Vec<i64> = all_indices(&tiled)
            .iter()
            .map(|index| linear_index_for_nested_tiling(&tiled, index).unwrap())
            .collect();
        let n = linear.len();
        linear.sort_unstable();
        linear.dedup();
        prop_assert_eq!(linear.len(), n);
        prop_assert!(linear.first().is_none_or(|&first| first == 0));
    }
}
