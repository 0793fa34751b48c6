//! Property tests over random permutations: every permutation validates,
//! `make_logical_to_physical` inverts `major`, moves keep a permutation,
//! and anything that is not a permutation is rejected.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use layout_util::{
    LayoutEqual, is_monotonic_with_dim0_major, is_monotonic_with_dim0_minor, major,
    make_descending_layout, make_layout, make_layout_from_major_to_minor, make_logical_to_physical,
    minor, move_dim_to_major, move_dim_to_minor, validate_layout_for_shape,
};
use proptest::prelude::*;
use schema::{PrimitiveType, Shape};

fn array(rank: usize) -> Shape {
    Shape {
        element_type: PrimitiveType::F32 as i32,
        dimensions: vec![3; rank],
        is_dynamic_dimension: vec![false; rank],
        ..Shape::default()
    }
}

fn permutation() -> impl Strategy<Value = Vec<i64>> {
    (0_usize..=6)
        .prop_flat_map(|rank| Just((0_i64..).take(rank).collect::<Vec<_>>()).prop_shuffle())
}

proptest! {
    #[test]
    fn permutations_validate_and_invert(m2m in permutation()) {
        let layout = make_layout(&m2m);
        let rank = m2m.len();
        prop_assert_eq!(validate_layout_for_shape(&layout, &array(rank)), Ok(()));
        let logical_to_physical = make_logical_to_physical(&layout).unwrap();
        for p in 0..rank {
            let logical = usize::try_from(major(&layout, p).unwrap()).unwrap();
            prop_assert_eq!(logical_to_physical[logical], i64::try_from(p).unwrap());
            prop_assert_eq!(minor(&layout, p), major(&layout, rank - 1 - p));
        }
        let reversed: Vec<i64> = m2m.iter().rev().copied().collect();
        prop_assert_eq!(make_layout_from_major_to_minor(&reversed), layout.clone());
        prop_assert_eq!(is_monotonic_with_dim0_major(&layout), layout == make_descending_layout(rank));
        prop_assert_eq!(is_monotonic_with_dim0_minor(&layout), m2m.is_sorted());
        prop_assert!(LayoutEqual::new().equal(&layout, &layout.clone()));
    }

    #[test]
    fn moves_keep_a_valid_permutation(m2m in permutation(), pick in 0_usize..6) {
        prop_assume!(!m2m.is_empty());
        let dim = m2m[pick % m2m.len()];
        let rank = m2m.len();
        let to_major = move_dim_to_major(&make_layout(&m2m), dim).unwrap();
        let to_minor = move_dim_to_minor(&make_layout(&m2m), dim).unwrap();
        prop_assert_eq!(major(&to_major, 0), Some(dim));
        prop_assert_eq!(minor(&to_minor, 0), Some(dim));
        prop_assert_eq!(validate_layout_for_shape(&to_major, &array(rank)), Ok(()));
        prop_assert_eq!(validate_layout_for_shape(&to_minor, &array(rank)), Ok(()));
        let others = |l: &schema::Layout| l.minor_to_major.iter().copied().filter(|&d| d != dim).collect::<Vec<_>>();
        prop_assert_eq!(others(&to_major), others(&make_layout(&m2m)));
        prop_assert_eq!(others(&to_minor), others(&make_layout(&m2m)));
    }

    #[test]
    fn non_permutations_are_rejected(m2m in prop::collection::vec(-2_i64..6, 1..=5)) {
        let rank = m2m.len();
        let mut sorted = m2m.clone();
        sorted.sort_unstable();
        let is_permutation = sorted == (0_i64..).take(rank).collect::<Vec<_>>();
        let layout = make_layout(&m2m);
        prop_assert_eq!(validate_layout_for_shape(&layout, &array(rank)).is_ok(), is_permutation);
        prop_assert_eq!(make_logical_to_physical(&layout).is_ok(), is_permutation);
    }
}
