//! Property tests: no function panics on hostile shapes (dimensions like
//! `i64::MIN`/`i64::MAX`, deep tuples, wrong-length `minor_to_major`,
//! unknown element types), and invariants on valid shapes.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use prost::Message;
use schema::{Layout, PrimitiveType, Shape, SplitConfig, Tile};
use shape_util as su;

const HOSTILE_DIMS: [i64; 10] = [i64::MIN, i64::MAX, -1, 0, 1, 2, 3, 7, 1 << 32, 1 << 62];

fn hostile_dim() -> impl Strategy<Value = i64> {
    prop_oneof![
        3 => prop::sample::select(HOSTILE_DIMS.to_vec()),
        1 => any::<i64>(),
    ]
}

fn element_type() -> impl Strategy<Value = i32> {
    prop_oneof![
        6 => prop::sample::select(PrimitiveType::all().to_vec()).prop_map(|t| t as i32),
        1 => prop::sample::select(vec![-1, 37, 99, i32::MIN, i32::MAX]),
    ]
}

fn hostile_layout() -> impl Strategy<Value = Layout> {
    (
        prop::collection::vec(-2_i64..6, 0..6),
        prop::collection::vec(prop::collection::vec(hostile_dim(), 0..3), 0..3),
        prop::sample::select(vec![0_i64, 1, -3, 64, 4]),
        prop::sample::select(vec![0_i64, -4, 1, 4, 32, 7]),
        prop::collection::vec(hostile_dim(), 0..4),
        prop::collection::vec((-1_i64..4, prop::collection::vec(-1_i64..5, 0..3)), 0..2),
        prop::sample::select(vec![0_i32, 5, 9]),
    )
        .prop_map(
            |(m2m, tiles, tail, esb, padded, splits, padding_value)| Layout {
                minor_to_major: m2m,
                tiles: tiles
                    .into_iter()
                    .map(|dimensions| Tile { dimensions })
                    .collect(),
                tail_padding_alignment_in_elements: tail,
                element_size_in_bits: esb,
                padded_dimensions: padded,
                padding_value,
                split_configs: splits
                    .into_iter()
                    .map(|(dimension, split_indices)| SplitConfig {
                        dimension,
                        split_indices,
                    })
                    .collect(),
                ..Layout::default()
            },
        )
}

fn hostile_leaf() -> impl Strategy<Value = Shape> {
    (
        element_type(),
        prop::collection::vec(hostile_dim(), 0..5),
        prop::collection::vec(any::<bool>(), 0..5),
        prop::option::of(hostile_layout()),
    )
        .prop_map(|(element_type, dimensions, dynamic, layout)| Shape {
            element_type,
            dimensions,
            is_dynamic_dimension: dynamic,
            tuple_shapes: Vec::new(),
            layout: layout.map(Box::new),
        })
}

fn hostile_shape() -> impl Strategy<Value = Shape> {
    hostile_leaf().prop_recursive(6, 24, 4, |inner| {
        (
            prop::sample::select(vec![
                PrimitiveType::Tuple as i32,
                PrimitiveType::Buffer as i32,
                PrimitiveType::F32 as i32,
                PrimitiveType::Token as i32,
            ]),
            prop::collection::vec(inner, 0..4),
            prop::collection::vec(hostile_dim(), 0..2),
        )
            .prop_map(|(element_type, tuple_shapes, dimensions)| Shape {
                element_type,
                dimensions,
                tuple_shapes,
                ..Shape::default()
            })
    })
}

/// Calls every function of the crate on `shape` (and `other`); none may panic.
fn exercise(shape: &Shape, other: &Shape, number: i64) {
    let _ = su::validate_shape(shape);
    let _ = su::validate_shape_with_optional_layout(shape);
    let _ = su::validate_program_shape(&su::make_program_shape(
        vec![shape.clone(), other.clone()],
        shape.clone(),
    ));
    let _ = su::rank(shape);
    let _ = su::true_rank(shape);
    let _ = su::elements_in(shape);
    let _ = su::elements_in_recursive(shape);
    let _ = su::get_dimension(shape, number);
    let _ = su::byte_size_of(shape, Some(8));
    let _ = su::byte_size_of(shape, None);
    let _ = su::byte_strides(shape);
    let _ = su::element_size_in_bits(shape);
    let _ = su::is_static(shape);
    let _ = su::is_unbounded_dynamic(shape);
    let _ = su::leaf_shapes(shape);
    let _ = su::subshape_count(shape);
    let _ = su::get_subshape(shape, &[number, 0]);
    let _ = su::change_element_type(shape, PrimitiveType::S4);
    let reverse: Vec<i64> = (0..i64::try_from(shape.dimensions.len()).unwrap())
        .rev()
        .collect();
    let _ = su::permute_dimensions(shape, &reverse);
    let _ = su::drop_degenerate_dimensions(shape);
    let _ = su::delete_dimensions(shape, &[number, 0]);
    let _ = su::insert_dimension_at_index(shape, 0, number);
    let _ = su::append_minor_dimension(shape, 2);
    let _ = su::prepend_major_dimension(shape, 2);
    let _ = su::make_static_shape(shape);
    let _ = su::transpose_is_bitcast(shape, other, &reverse);
    let _ = su::reshape_is_bitcast(shape, other);
    let _ = su::deduce_transpose_dimensions_for_bitcast(shape, other);
    let _ = su::decompose_bitcast(shape, other);
    let _ = su::align_layouts(shape, other);
    let _ = su::dimensions_unmodified_by_reshape(shape, other);
    let _ = su::make_shape_with_descending_layout_and_same_physical_layout(shape);
    let _ = su::infer_elementwise_binary_op_shape("add", shape, other, &[0]);
    let _ = su::infer_elementwise_binary_op_shape("atan2", shape, other, &[]);
    let _ = su::infer_broadcast_in_dim_shape(shape, other, &reverse);
    let _ = su::numpy_broadcast_shapes(&[&shape.dimensions, &other.dimensions]);
    assert!(su::equal(shape, shape));
    let _ = su::compatible(shape, other);
    let _ = su::same_dimensions(shape, other);
    let _ = (shape.to_string(), shape.human_string());
}

/// A valid array: small dimensions, random dynamic flags and layout.
fn valid_array() -> impl Strategy<Value = Shape> {
    let types: Vec<PrimitiveType> = PrimitiveType::all()
        .iter()
        .copied()
        .filter(|t| t.is_array_type())
        .collect();
    (
        prop::sample::select(types),
        prop::collection::vec(0_i64..5, 0..6),
    )
        .prop_flat_map(|(ty, dims)| {
            let rank = dims.len();
            (
                Just(ty),
                Just(dims),
                prop::collection::vec(any::<bool>(), rank),
                Just((0..i64::try_from(rank).unwrap()).collect::<Vec<_>>()).prop_shuffle(),
            )
        })
        .prop_map(|(ty, dims, dynamic, m2m)| {
            let mut shape = su::make_shape_with_dense_layout(ty, &dims, &m2m).unwrap();
            for (i, &d) in dynamic.iter().enumerate() {
                su::set_dynamic_dimension(&mut shape, i, d).unwrap();
            }
            shape
        })
}

fn permutation_of(shape: &Shape) -> impl Strategy<Value = Vec<i64>> + use<> {
    Just((0..i64::try_from(shape.dimensions.len()).unwrap()).collect::<Vec<_>>()).prop_shuffle()
}

/// The physical position of every element in row-major logical order.
fn physical_positions(shape: &Shape) -> Vec<i64> {
    let dims = &shape.dimensions;
    let mut strides = vec![0_i64; dims.len()];
    let mut scale = 1;
    for &d in &shape.layout.as_ref().unwrap().minor_to_major {
        let d = usize::try_from(d).unwrap();
        strides[d] = scale;
        scale *= dims[d];
    }
    let count: i64 = dims.iter().product();
    (0..count)
        .map(|mut linear| {
            let mut physical = 0;
            for (k, &size) in dims.iter().enumerate().rev() {
                physical += (linear % size) * strides[k];
                linear /= size;
            }
            physical
        })
        .collect()
}

/// `shape` reshaped to `dims` with the layout `minor_to_major`.
fn reshaped(shape: &Shape, dims: &[i64], minor_to_major: &[i64]) -> Shape {
    su::make_shape_with_dense_layout(shape.element_type(), dims, minor_to_major).unwrap()
}

/// A valid array and a reshape of it (merging two neighbouring dimensions,
/// or inserting a 1) with a random layout.
fn reshape_pair() -> impl Strategy<Value = (Shape, Shape)> {
    valid_array()
        .prop_flat_map(|shape| {
            let rank = shape.dimensions.len();
            (Just(shape), 0..=rank, any::<bool>())
        })
        .prop_flat_map(|(shape, at, merge)| {
            let dims = &shape.dimensions;
            let mut target = dims.clone();
            if merge && at + 1 < dims.len() {
                target.splice(at..at + 2, [dims[at] * dims[at + 1]]);
            } else {
                target.insert(at.min(dims.len()), 1);
            }
            let layout =
                Just((0..i64::try_from(target.len()).unwrap()).collect::<Vec<_>>()).prop_shuffle();
            (Just(shape), Just(target), layout)
        })
        .prop_map(|(shape, target, layout)| {
            let other = reshaped(&shape, &target, &layout);
            (shape, other)
        })
}

proptest! {
    #[test]
    fn reshape_is_bitcast_iff_every_element_keeps_its_place((a, b) in reshape_pair()) {
        let count = su::elements_in(&a).unwrap();
        let expected = count == 0 || physical_positions(&a) == physical_positions(&b);
        prop_assert_eq!(su::reshape_is_bitcast(&a, &b).unwrap(), expected, "{} -> {}", a, b);
        prop_assert_eq!(su::reshape_is_bitcast(&b, &a).unwrap(), expected, "{} -> {}", b, a);
    }

    #[test]
    fn nothing_panics_on_hostile_shapes(shape in hostile_shape(), other in hostile_shape(), number in hostile_dim()) {
        exercise(&shape, &other, number);
        exercise(&other, &shape, number);
    }

    #[test]
    fn decoded_garbage_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        if let Ok(shape) = Shape::decode(bytes.as_slice()) {
            exercise(&shape, &shape, 1);
        }
    }

    #[test]
    fn valid_arrays_validate_and_round_trip(shape in valid_array()) {
        su::validate_shape(&shape).unwrap();
        prop_assert_eq!(Shape::decode(shape.encode_to_vec().as_slice()).unwrap(), shape.clone());
        let count: i64 = shape.dimensions.iter().product();
        prop_assert_eq!(su::elements_in(&shape).unwrap(), count);
        let width = shape.element_type().byte_width().unwrap();
        prop_assert_eq!(su::byte_size_of(&shape, None).unwrap(), count * width);
    }

    #[test]
    fn strides_walk_the_layout(shape in valid_array()) {
        let strides = su::byte_strides(&shape).unwrap();
        let m2m = &shape.layout.as_ref().unwrap().minor_to_major;
        let width = shape.element_type().byte_width().unwrap();
        let mut expected = width;
        for &d in m2m {
            let d = usize::try_from(d).unwrap();
            prop_assert_eq!(strides[d], expected);
            expected *= shape.dimensions[d];
        }
    }

    #[test]
    fn permuting_is_a_bitcast_transpose(
        (shape, permutation) in valid_array().prop_flat_map(|s| { let p = permutation_of(&s); (Just(s), p) })
    ) {
        let permuted = su::permute_dimensions(&shape, &permutation).unwrap();
        su::validate_shape(&permuted).unwrap();
        prop_assert!(su::transpose_is_bitcast(&shape, &permuted, &permutation).unwrap());
        let deduced = su::deduce_transpose_dimensions_for_bitcast(&shape, &permuted).unwrap().unwrap();
        prop_assert!(su::transpose_is_bitcast(&shape, &permuted, &deduced).unwrap());
        let mut inverse = vec![0; permutation.len()];
        for (i, &p) in permutation.iter().enumerate() {
            inverse[usize::try_from(p).unwrap()] = i64::try_from(i).unwrap();
        }
        prop_assert_eq!(su::permute_dimensions(&permuted, &inverse).unwrap(), shape.clone());
        prop_assert!(su::decompose_bitcast(&shape, &permuted).unwrap().is_some());
    }

    #[test]
    fn degenerate_dimensions_drop_as_a_bitcast(shape in valid_array()) {
        let dropped = su::drop_degenerate_dimensions(&shape).unwrap();
        su::validate_shape(&dropped).unwrap();
        prop_assert!(su::reshape_is_bitcast(&shape, &dropped).unwrap());
        prop_assert!(su::reshape_is_bitcast(&shape, &shape).unwrap());
    }

    #[test]
    fn aligned_layouts_make_bitcasts(shape in valid_array(), split in 1_usize..4) {
        let count = su::elements_in(&shape).unwrap();
        let ty = shape.element_type();
        let outputs = [vec![count], vec![1, count, 1], if count % 2 == 0 && split > 1 { vec![2, count / 2] } else { vec![count] }];
        for dims in outputs {
            let output = su::make_shape(ty, &dims).unwrap();
            if let Some(aligned) = su::align_layouts(&shape, &output).unwrap() {
                prop_assert!(su::reshape_is_bitcast(&shape, &aligned).unwrap(), "{} -> {}", shape, aligned);
            }
        }
    }

    #[test]
    fn numpy_and_xla_agree_on_equal_rank_degenerate_broadcasting(
        pairs in prop::collection::vec((prop::sample::select(vec![1_i64, 2, 3]), prop::sample::select(vec![1_i64, 2, 3])), 0..5)
    ) {
        let lhs: Vec<i64> = pairs.iter().map(|p| p.0).collect();
        let rhs: Vec<i64> = pairs.iter().map(|p| p.1).collect();
        let numpy = su::numpy_broadcast_shapes(&[&lhs, &rhs]);
        let reversed = su::numpy_broadcast_shapes(&[&rhs, &lhs]);
        prop_assert_eq!(numpy.is_ok(), reversed.is_ok());
        let xla = su::infer_elementwise_binary_op_shape(
            "add",
            &su::make_shape(PrimitiveType::F32, &lhs).unwrap(),
            &su::make_shape(PrimitiveType::F32, &rhs).unwrap(),
            &[],
        );
        match numpy {
            Ok(dims) => {
                prop_assert_eq!(&xla.unwrap().dimensions, &dims);
                prop_assert_eq!(reversed.unwrap(), dims);
            }
            Err(_) => prop_assert!(xla.is_err()),
        }
    }
}

#[test]
fn very_deep_tuples_validate_without_overflowing_the_stack() {
    // Ten times prost's decoding limit (100 levels). Much deeper trees
    // overflow a 2 MiB test-thread stack in debug builds already in the
    // derived `Clone`, so 1000 is what any shape function can be asked for.
    let mut shape = su::make_shape(PrimitiveType::F32, &[2]).unwrap();
    for _ in 0..1000 {
        shape = su::make_tuple_shape(vec![shape]).unwrap();
    }
    su::validate_shape(&shape).unwrap();
    assert_eq!(su::leaf_count(&shape), 1);
    assert_eq!(su::subshape_count(&shape), 1001);
    let index = vec![0; 1000];
    assert_eq!(
        su::get_subshape(&shape, &index).unwrap().human_string(),
        "f32[2]"
    );
    assert!(su::equal(&shape, &shape));
}

#[test]
fn every_function_handles_tuples_nested_beyond_prosts_limit() {
    let mut shape = su::make_shape(PrimitiveType::F32, &[2]).unwrap();
    for _ in 0..200 {
        shape = su::make_tuple_shape(vec![shape]).unwrap();
    }
    exercise(&shape, &shape, 3);
}
