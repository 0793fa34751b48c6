//! Iteration over regions in physical order (XLA's `ForEachIndex`, spec §6)
//! and linear indices under nested tiling.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use index_util::{ForEachIndex, IndexError, for_each_index, linear_index_for_nested_tiling};
use schema::Shape;

fn shape(text: &str) -> Shape {
    text.parse().unwrap()
}

/// The indices visited by the callback, the lending iterator and the
/// `Iterator` impl, checked to agree.
fn visit(text: &str, base: &[i64], count: &[i64], incr: &[i64]) -> Vec<Vec<i64>> {
    let s = shape(text);
    let mut by_callback = Vec::new();
    for_each_index(&s, base, count, incr, |index| {
        by_callback.push(index.to_vec())
    })
    .unwrap();
    let mut lending = ForEachIndex::new(&s, base, count, incr).unwrap();
    let mut by_lending = Vec::new();
    while let Some(index) = lending.next_index() {
        by_lending.push(index.to_vec());
    }
    assert_eq!(lending.next_index(), None);
    let by_iterator: Vec<Vec<i64>> = ForEachIndex::new(&s, base, count, incr).unwrap().collect();
    assert_eq!(by_callback, by_lending);
    assert_eq!(by_callback, by_iterator);
    by_callback
}

#[test]
fn minor_most_dimension_moves_first() {
    assert_eq!(
        visit("f32[2,3]{1,0}", &[0, 0], &[2, 3], &[1, 1]),
        [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]
    );
    assert_eq!(
        visit("f32[2,3]{0,1}", &[0, 0], &[2, 3], &[1, 1]),
        [[0, 0], [1, 0], [0, 1], [1, 1], [0, 2], [1, 2]]
    );
    assert_eq!(
        visit("f32[2,2,2]{1,2,0}", &[0, 0, 0], &[2, 2, 2], &[1, 1, 1]),
        [
            [0, 0, 0],
            [0, 1, 0],
            [0, 0, 1],
            [0, 1, 1],
            [1, 0, 0],
            [1, 1, 0],
            [1, 0, 1],
            [1, 1, 1]
        ]
    );
}

#[test]
fn regions_with_base_count_and_incr() {
    // Every second row from 1, columns 1..3.
    assert_eq!(
        visit("f32[5,4]{1,0}", &[1, 1], &[4, 2], &[2, 1]),
        [[1, 1], [1, 2], [3, 1], [3, 2]]
    );
    // count not a multiple of incr: 0, 3, 6 < 7.
    assert_eq!(visit("f32[7]{0}", &[0], &[7], &[3]), [[0], [3], [6]]);
    // count 0 pins a dimension at base (incr 0 or not).
    assert_eq!(
        visit("f32[3,4]{1,0}", &[2, 0], &[0, 4], &[0, 2]),
        [[2, 0], [2, 2]]
    );
    assert_eq!(visit("f32[3,4]{1,0}", &[1, 3], &[0, 0], &[1, 0]), [[1, 3]]);
}

#[test]
fn rank_zero_once_and_zero_elements_never() {
    assert_eq!(visit("f32[]", &[], &[], &[]), [Vec::<i64>::new()]);
    assert!(visit("f32[3,0]{1,0}", &[0, 0], &[3, 0], &[1, 1]).is_empty());
    assert!(visit("f32[0]{0}", &[0], &[0], &[0]).is_empty());
    let all: Vec<_> = ForEachIndex::over_shape(&shape("f32[2,0,3]{2,1,0}"))
        .unwrap()
        .collect();
    assert!(all.is_empty());
}

#[test]
fn over_shape_visits_everything_in_physical_order() {
    let s = shape("f32[3,2,4]{0,2,1:PAD(4,2,5)}");
    let layout = index_util::PhysicalLayout::new(&s).unwrap();
    let linear: Vec<i64> = ForEachIndex::over_shape(&s)
        .unwrap()
        .map(|index| layout.linear_index(&index).unwrap())
        .collect();
    assert_eq!(linear.len(), 24);
    assert!(linear.is_sorted());
}

#[test]
fn invalid_regions_are_errors() {
    let s = shape("f32[4,4]{1,0}");
    let err = |base: &[i64], count: &[i64], incr: &[i64]| {
        ForEachIndex::new(&s, base, count, incr).unwrap_err()
    };
    assert_eq!(
        err(&[0, 0], &[4, 4], &[0, 1]).to_string(),
        "invalid region in dimension 0 (size 4): base 0, count 4, incr 0"
    );
    assert!(matches!(
        err(&[0, 0], &[4, 4], &[1, -1]),
        IndexError::InvalidRegion { dimension: 1, .. }
    ));
    assert!(matches!(
        err(&[1, 0], &[4, 4], &[1, 1]),
        IndexError::InvalidRegion {
            dimension: 0,
            base: 1,
            count: 4,
            ..
        }
    ));
    assert!(matches!(
        err(&[-1, 0], &[1, 4], &[1, 1]),
        IndexError::InvalidRegion { dimension: 0, .. }
    ));
    assert!(matches!(
        err(&[4, 0], &[0, 4], &[0, 1]),
        IndexError::InvalidRegion { dimension: 0, .. }
    ));
    assert!(matches!(
        err(&[0, 0], &[-1, 4], &[1, 1]),
        IndexError::InvalidRegion { dimension: 0, .. }
    ));
    assert!(matches!(
        err(&[0, 1], &[1, i64::MAX], &[1, 1]),
        IndexError::InvalidRegion { dimension: 1, .. }
    ));
    assert_eq!(
        err(&[0], &[4, 4], &[1, 1]),
        IndexError::RankMismatch { len: 1, rank: 2 }
    );
    assert!(matches!(
        for_each_index(&shape("(f32[2])"), &[], &[], &[], |_| {}),
        Err(IndexError::NotAnArray { .. })
    ));
    // A huge increment steps once without overflowing.
    assert_eq!(
        visit("f32[4,4]{1,0}", &[3, 0], &[1, 4], &[i64::MAX, 3]),
        [[3, 0], [3, 3]]
    );
}

#[test]
fn nested_tiling_examples_from_xla() {
    let tiled = |text: &str, index: &[i64]| linear_index_for_nested_tiling(&shape(text), index);
    // Spec §6: f32[8,4]{1,0:T(2,2)} {3,1} -> 11 (13 untiled).
    assert_eq!(tiled("f32[8,4]{1,0:T(2,2)}", &[3, 1]).unwrap(), 11);
    assert_eq!(tiled("f32[8,4]{1,0}", &[3, 1]).unwrap(), 13);
    // bf16[2048]{0:T(1024)(128)(2,1)}: {128} -> 1, {1} -> 2.
    assert_eq!(tiled("bf16[2048]{0:T(1024)(128)(2,1)}", &[128]).unwrap(), 1);
    assert_eq!(tiled("bf16[2048]{0:T(1024)(128)(2,1)}", &[1]).unwrap(), 2);
    assert_eq!(tiled("bf16[2048]{0:T(1024)(128)(2,1)}", &[0]).unwrap(), 0);
    // Tiles pad partial tiles: f32[3,3]{1,0:T(2,2)}, {2,0} is in the second
    // row of tiles, each of 2 tiles x 4 elements.
    assert_eq!(tiled("f32[3,3]{1,0:T(2,2)}", &[2, 0]).unwrap(), 8);
    // Column-major physical order is tiled, not the logical one.
    assert_eq!(tiled("f32[4,8]{0,1:T(2,2)}", &[1, 3]).unwrap(), 11);
    assert!(matches!(
        tiled("f32[8,4]{1,0:T(2,2)}", &[8, 0]),
        Err(IndexError::IndexOutOfBounds { .. })
    ));
    // XLA's parser accepts a tile of i64::MAX; the tiled buffer overflows.
    let huge = "f32[8,8]{1,0:T(9223372036854775807,1)}";
    assert_eq!(tiled(huge, &[7, 0]).unwrap(), 7);
    assert_eq!(tiled(huge, &[0, 1]).unwrap(), i64::MAX);
    assert_eq!(
        tiled(huge, &[7, 1]).unwrap_err().to_string(),
        "the buffer of shape f32[8,8] (padding and tiles included) has more than i64::MAX elements"
    );
    assert_eq!(
        tiled("f32[8,4]{1,0:T(2,*)}", &[0, 0])
            .unwrap_err()
            .to_string(),
        "tile (2,*) has a combine dimension (*), which nested tiling does not support"
    );
}
