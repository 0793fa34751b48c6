//! The ports of the rest of XLA's `ShapeUtil` against XLA's own unit tests
//! (`xla/shape_util_test.cc`, test names cited) and the examples of
//! `xla/shape_util.h`'s documentation, and their error paths.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use schema::{PrimitiveType, Shape};

fn shape(text: &str) -> Shape {
    text.parse().unwrap()
}

/// `ShapeUtilTest.ForEachSubshapeNestedTuple`/`ForEachMutableSubshapeNestedTuple`
/// and `ForEachMutableLeafShape`: `(f32[42], (f32[101], pred[33]))`.
#[test]
fn walks_of_a_nested_tuple() {
    let mut nested = shape("(f32[42], (f32[101], pred[33]))");
    let mut calls = 0;
    shape_util::for_each_mutable_subshape(&mut nested, |sub, index| {
        if calls == 0 {
            assert!(index.is_empty());
        } else if calls == 4 {
            assert_eq!(shape_util::elements_in(sub).unwrap(), 33);
        }
        calls += 1;
    });
    assert_eq!(calls, 5);
    let mut leaves = Vec::new();
    shape_util::for_each_mutable_leaf_shape(&mut nested, |sub, _| {
        leaves.push(shape_util::elements_in(sub).unwrap())
    });
    assert_eq!(leaves, [42, 101, 33]);
    let mut post = Vec::new();
    shape_util::for_each_subshape_post_order(&nested, |_, index| post.push(index.to_vec()));
    assert_eq!(post, [vec![0], vec![1, 0], vec![1, 1], vec![1], vec![]]);
    let mut post_mut = Vec::new();
    shape_util::for_each_mutable_subshape_post_order(&mut nested, |_, index| {
        post_mut.push(index.to_vec())
    });
    assert_eq!(post_mut, post);
    // A visitor that stops: the walk ends at its first error.
    let mut seen = 0;
    let stop = shape_util::try_for_each_mutable_subshape_post_order(&mut nested, |_, index| {
        seen += 1;
        if index == [1, 1] { Err("stop") } else { Ok(()) }
    });
    assert_eq!((stop, seen), (Err("stop"), 3));
    let leaf = shape_util::try_for_each_leaf_shape(&nested, |sub, index| {
        if sub.element_type == PrimitiveType::Pred as i32 {
            Err(index.to_vec())
        } else {
            Ok(())
        }
    });
    assert_eq!(leaf, Err(vec![1, 1]));
    let mut count = 0;
    shape_util::for_each_leaf_shape(&nested, |_, _| count += 1);
    assert_eq!(count, 3);
}

/// `ShapeUtilTest.InsertedOrDeleted1SizedDimensions`.
#[test]
fn inserted_or_deleted_1_sized_dimensions() {
    let (s0, s1, s2) = (
        shape("s32[9,1,4]"),
        shape("s32[1,9,4,1]"),
        shape("s32[3,1,12]"),
    );
    let d = shape_util::inserted_or_deleted_1_sized_dimensions(&s0, &s1)
        .unwrap()
        .unwrap();
    assert_eq!(d.deleted_dimensions, [1]);
    assert_eq!(d.inserted_dimensions, [0, 3]);
    assert_eq!(
        shape_util::inserted_or_deleted_1_sized_dimensions(&s0, &s2).unwrap(),
        None
    );
    // `shape_pre = shape_post = {}` gives `{}` (the header's example).
    let scalar = shape("s32[]");
    assert_eq!(
        shape_util::inserted_or_deleted_1_sized_dimensions(&scalar, &scalar).unwrap(),
        Some(Default::default())
    );
    assert!(
        shape_util::inserted_or_deleted_1_sized_dimensions(&shape("(s32[])"), &scalar).is_err()
    );
}

/// `xla/shape_util.h`'s example of `ReshapeLeavesDimensionsUnmodified`:
/// `T[a, b, x, y, cd]` to `T[ab, x, 1, y, c, d]`, indices {2, 3} → {1, 3}.
#[test]
fn reshape_leaves_dimensions_unmodified() {
    let from = shape("f32[2,3,7,11,20]");
    let to = shape("f32[6,7,1,11,4,5]");
    let f =
        |dims: &[i64]| shape_util::reshape_leaves_dimensions_unmodified(&from, &to, dims).unwrap();
    assert_eq!(f(&[2, 3]), Some(vec![1, 3]));
    assert_eq!(f(&[3]), Some(vec![3]));
    assert_eq!(f(&[]), Some(vec![]));
    assert_eq!(f(&[1]), None);
    assert_eq!(f(&[3, 2]), None, "unsorted");
}

/// `xla/shape_util.h`'s example of `SliceTuple`: `(f32, s32, u32)` sliced
/// `1, 3` is `(s32, u32)`.
#[test]
fn tuple_editing() {
    let tuple = shape("(f32[], s32[], u32[])");
    assert_eq!(
        shape_util::slice_tuple(&tuple, 1, 3).unwrap().to_string(),
        "(s32[], u32[])"
    );
    assert_eq!(
        shape_util::slice_tuple(&tuple, 3, 3).unwrap().to_string(),
        "()"
    );
    for (start, limit) in [(-1, 2), (2, 1), (0, 4)] {
        assert!(
            shape_util::slice_tuple(&tuple, start, limit).is_err(),
            "{start}..{limit}"
        );
    }
    assert!(shape_util::slice_tuple(&shape("f32[]"), 0, 0).is_err());
    let mut t = shape("()");
    shape_util::append_shape_to_tuple(&shape("f32[2]{0}"), &mut t).unwrap();
    shape_util::append_shape_to_tuple(&shape("()"), &mut t).unwrap();
    assert_eq!(t.to_string(), "(f32[2]{0}, ())");
    assert!(shape_util::is_nested_tuple(&t) && !shape_util::is_empty_tuple(&t));
    let mut bad = shape("f32[2]");
    assert!(shape_util::append_shape_to_tuple(&shape("f32[]"), &mut bad).is_err());
    let mut negative = shape("f32[1]");
    negative.dimensions[0] = -1;
    assert!(shape_util::append_shape_to_tuple(&negative, &mut t).is_err());
    shape_util::update_tuple_shape(&shape("s8[]"), 1, &mut t).unwrap();
    assert_eq!(t.to_string(), "(f32[2]{0}, s8[])");
    assert_eq!(
        shape_util::update_tuple_shape(&shape("s8[]"), 2, &mut t)
            .unwrap_err()
            .to_string(),
        "Shape index {2} not a valid subshape index for tuple with shape (f32[2], s8[])"
    );
    assert!(shape_util::get_tuple_element_shape(&t, -1).is_err());
    assert_eq!(shape_util::get_leaf_count_tuple(&shape("(())")).unwrap(), 0);
    assert!(shape_util::get_leaf_count_tuple(&shape("f32[]")).is_err());
    assert_eq!(shape_util::flatten_tuple_shape(&shape("f32[]")).len(), 1);
}

/// `xla/shape_util.h`'s examples of `FilterDimensions`:
/// `FilterDimensions((< 2), T[m, n, k]) = T[m, n]`, `is_even` gives `T[m, k]`.
#[test]
fn filter_and_reorder_dimensions() {
    let t = shape("f32[2,3,4]{2,1,0}");
    assert_eq!(
        shape_util::filter_dimensions(|i| i < 2, &t)
            .unwrap()
            .to_string(),
        "f32[2,3]{1,0}"
    );
    assert_eq!(
        shape_util::filter_dimensions(|i| i % 2 == 0, &t)
            .unwrap()
            .to_string(),
        "f32[2,4]{1,0}"
    );
    assert!(shape_util::filter_dimensions(|_| true, &shape("(f32[])")).is_err());
    let dynamic = shape("f32[<=2,3]{0,1}");
    let r = shape_util::reorder_logical_dimensions(&dynamic, &[1, 0]).unwrap();
    assert_eq!(r.to_string(), "f32[3,<=2]{1,0}");
    assert!(shape_util::reorder_logical_dimensions(&dynamic, &[0, 0]).is_err());
    assert!(
        shape_util::is_effectively_most_major_dimension(&shape("f32[1,1,4]{0,2,1}"), 2).unwrap()
    );
    assert!(
        !shape_util::is_effectively_most_major_dimension(&shape("f32[2,3,4]{0,2,1}"), 2).unwrap()
    );
    assert!(shape_util::is_effectively_most_major_dimension(&shape("(f32[])"), 0).is_err());
}

#[test]
fn element_queries() {
    let s4 = shape("s4[2]");
    assert!(shape_util::element_is_integral_with_bits(&s4, 4));
    assert!(
        shape_util::element_has_bit_width(&s4, 4) && !shape_util::element_has_bit_width(&s4, 8)
    );
    assert!(shape_util::element_is_signed(&s4) && !shape_util::element_is_floating(&s4));
    assert!(!shape_util::element_is_signed(&shape("c64[]")));
    assert!(!shape_util::element_has_bit_width(&shape("token[]"), 0));
    assert!(shape_util::is_scalar_with_element_type(
        &shape("pred[]"),
        PrimitiveType::Pred
    ));
    assert!(shape_util::has_primitive_type(
        &shape("(f32[], (s4[]))"),
        PrimitiveType::Tuple
    ));
    assert_eq!(
        shape_util::complex_component_shape(&shape("c128[3]"))
            .unwrap()
            .to_string(),
        "f64[3]{0}"
    );
    assert_eq!(
        shape_util::complex_component_shape(&shape("f32[3]"))
            .unwrap_err()
            .to_string(),
        "Unsupported element type: f32"
    );
    assert!(shape_util::element_can_upcast(
        &shape("bf16[]"),
        &shape("f32[]")
    ));
    assert!(!shape_util::element_can_upcast(
        &shape("f8e5m2[]"),
        &shape("f8e5m2fnuz[]")
    ));
    assert!(!shape_util::element_can_upcast(
        &shape("()"),
        &shape("f32[]")
    ));
    assert_eq!(
        shape_util::static_extent_product(&shape("f32[]")).unwrap(),
        1
    );
    assert!(shape_util::static_extent_product(&shape("f32[4294967296,4294967296]")).is_err());
    assert!(shape_util::static_extent_product(&shape("()")).is_err());
    assert!(shape_util::byte_size_of_tuple_index_table(&shape("(f32[])"), 0).is_err());
    assert!(shape_util::byte_size_of_tuple_index_table(&shape("f32[]"), 8).is_err());
}

#[test]
fn layouts_for_the_host_and_packing() {
    let device = shape("(s4[8,128]{1,0:T(8,128)(2,1)L(4)E(4)S(2)M(8)}, token[], (f32[2]{0:T(2)}))");
    let host = shape_util::device_shape_to_host_shape(device);
    assert_eq!(host.to_string(), "(s4[8,128]{1,0}, token[], (f32[2]{0}))");
    let mut packed = shape("(s4[8]{0}, u2[3]{0}, pred[2]{0}, f32[], (s1[1]))");
    shape_util::update_element_size_in_bits(&mut packed, true);
    assert_eq!(
        packed.to_string(),
        "(s4[8]{0:E(4)}, u2[3]{0:E(2)}, pred[2]{0}, f32[], (s1[1]{0:E(1)}))"
    );
}

/// `XlaShapeUtilTest.ZeroSize` (a zero-sized dimension has no data) and
/// the data before the tile padding.
#[test]
fn array_data_size() {
    let size = |text: &str| shape_util::array_data_size(&shape(text)).unwrap();
    assert_eq!(size("f32[0,128]{1,0:T(8,128)}"), 0);
    assert_eq!(size("f32[8,0]{1,0:T(8,128)}"), 0);
    assert_eq!(size("f32[1,1]{1,0:T(8,128)}"), 4);
    assert_eq!(size("f32[2,3]{1,0:T(8,128)}"), (128 + 3) * 4);
    assert_eq!(size("f32[]"), 4);
    assert_eq!(size("f32[2,3]"), 24);
    assert_eq!(size("pred[9]{0:E(1)}"), 2);
    assert!(shape_util::array_data_size(&shape("(f32[])")).is_err());
}

#[test]
fn dynamic_compatibility_and_kinds() {
    let bounded = shape("(f32[<=4,2], (s8[<=3]))");
    assert!(shape_util::dynamic_shape_is_compatible(
        &shape("(f32[<=4,2], (s8[<=1]))"),
        &bounded
    ));
    // A static subshape is compatible whatever its sizes (XLA checks dynamic ones).
    assert!(shape_util::dynamic_shape_is_compatible(
        &shape("(f32[9,9], (s8[9]))"),
        &bounded
    ));
    assert!(!shape_util::dynamic_shape_is_compatible(
        &shape("(f32[<=4,<=3], (s8[<=3]))"),
        &bounded
    ));
    assert!(!shape_util::dynamic_shape_is_compatible(
        &shape("(f32[<=4,2], s8[<=3])"),
        &bounded
    ));
    assert!(!shape_util::dynamic_shape_is_compatible(
        &shape("(f32[<=4,2], (s8[<=3]), s8[])"),
        &bounded
    ));
    assert!(!shape_util::dynamic_array_shape_is_compatible(
        &shape("f32[<=1]"),
        &shape("f32[1,1]")
    ));
    assert!(shape_util::compatible_kind(
        &shape("(f32[1], ())"),
        &shape("(s8[9], ())")
    ));
    assert!(!shape_util::compatible_kind(
        &shape("(f32[1], ())"),
        &shape("(f32[1])")
    ));
    assert!(!shape_util::compatible_kind(
        &shape("f32[1]"),
        &shape("token[]")
    ));
    assert!(
        shape_util::is_reshape_or_transpose_bitcast(
            &shape("f32[2,3]{1,0}"),
            &shape("s32[2,3]{1,0}"),
            true
        )
        .unwrap()
    );
    assert!(
        !shape_util::is_reshape_or_transpose_bitcast(
            &shape("f32[2,3]{1,0}"),
            &shape("s32[2,3]{1,0}"),
            false
        )
        .unwrap()
    );
    assert!(
        shape_util::is_reshape_or_transpose_bitcast(&shape("f32[2,3]"), &shape("(f32[])"), false)
            .is_err()
    );
    assert!(shape_util::is_initialized(&shape("token[]")));
}
