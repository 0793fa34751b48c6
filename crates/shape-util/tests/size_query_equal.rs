//! Sizes (spec §3), queries and equality (spec §7) with XLA's expected
//! values.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use layout_util::LayoutBuilder;
use schema::{PrimitiveType, Shape, Tile, UNBOUNDED_SIZE};
use shape_util::{
    ShapeEqual, byte_size_of, byte_size_of_elements, byte_size_of_primitive_type, byte_strides,
    compatible, dimension_number, element_size_in_bits, elements_in, equal, for_each_subshape,
    get_dimension, get_subshape, is_scalar, is_zero_element_array, leaf_count, make_buffer_shape,
    make_nil, make_opaque_shape, make_scalar_shape, make_shape, make_shape_with_dense_layout,
    make_shape_with_layout, make_token_shape, make_tuple_shape, make_validated_shape,
    same_dimensions, true_rank,
};

fn f32(dims: &[i64]) -> Shape {
    make_shape(PrimitiveType::F32, dims).unwrap()
}

#[test]
fn byte_size_of_every_primitive_type() {
    use PrimitiveType as T;
    let expected = [
        (T::Pred, 1),
        (T::S1, 1),
        (T::U1, 1),
        (T::S2, 1),
        (T::U2, 1),
        (T::S4, 1),
        (T::U4, 1),
        (T::S8, 1),
        (T::U8, 1),
        (T::F8e5m2, 1),
        (T::F8e4m3, 1),
        (T::F8e4m3fn, 1),
        (T::F8e4m3b11fnuz, 1),
        (T::F8e3m4, 1),
        (T::F8e5m2fnuz, 1),
        (T::F8e4m3fnuz, 1),
        (T::F8e8m0fnu, 1),
        (T::F4e2m1fn, 1),
        (T::F6e3m2fn, 1),
        (T::F6e2m3fn, 1),
        (T::S16, 2),
        (T::U16, 2),
        (T::F16, 2),
        (T::Bf16, 2),
        (T::S32, 4),
        (T::U32, 4),
        (T::F32, 4),
        (T::S64, 8),
        (T::U64, 8),
        (T::F64, 8),
        (T::C64, 8),
        (T::C128, 16),
    ];
    for (ty, bytes) in expected {
        assert_eq!(byte_size_of_primitive_type(ty).unwrap(), bytes, "{ty:?}");
        let scalar = make_scalar_shape(ty).unwrap();
        assert_eq!(byte_size_of(&scalar, None).unwrap(), bytes, "{ty:?}");
        assert_eq!(element_size_in_bits(&scalar).unwrap(), bytes * 8, "{ty:?}");
    }
    for ty in [T::Invalid, T::Tuple, T::OpaqueType, T::Token, T::Buffer] {
        assert_eq!(
            byte_size_of_primitive_type(ty).unwrap_err().to_string(),
            format!("Unhandled primitive type {}", ty.lowercase_name())
        );
    }
}

#[test]
fn element_size_in_bits_packs_sub_byte_types() {
    let packed = |ty, bits, dims: &[i64]| {
        let m2m: Vec<i64> = (0..i64::try_from(dims.len()).unwrap()).rev().collect();
        make_shape_with_layout(
            ty,
            dims,
            LayoutBuilder::new(&m2m).element_size_in_bits(bits).build(),
        )
        .unwrap()
    };
    // ceil(n * bits / 8)
    assert_eq!(
        byte_size_of_elements(&packed(PrimitiveType::S4, 4, &[8, 4])).unwrap(),
        16
    );
    assert_eq!(
        byte_size_of_elements(&packed(PrimitiveType::U2, 2, &[5])).unwrap(),
        2
    );
    assert_eq!(
        byte_size_of_elements(&packed(PrimitiveType::S1, 1, &[9])).unwrap(),
        2
    );
    assert_eq!(
        byte_size_of_elements(&packed(PrimitiveType::Pred, 32, &[8, 8, 8])).unwrap(),
        2048
    );
    // Tiles are ignored (XLA's ByteSizeOfElements).
    let tiled = make_shape_with_layout(
        PrimitiveType::F32,
        &[3, 5],
        LayoutBuilder::new(&[1, 0])
            .tiles(vec![Tile {
                dimensions: vec![8, 128],
            }])
            .build(),
    )
    .unwrap();
    assert_eq!(byte_size_of(&tiled, None).unwrap(), 60);
    // The unpacked strides ignore E(4): s4[2,4]{1,0:E(4)} gives [4, 1].
    assert_eq!(
        byte_strides(&packed(PrimitiveType::S4, 4, &[2, 4])).unwrap(),
        [4, 1]
    );
}

#[test]
fn byte_sizes_of_non_arrays() {
    assert_eq!(byte_size_of(&make_token_shape(), None).unwrap(), 0);
    assert_eq!(byte_size_of(&make_opaque_shape(), Some(8)).unwrap(), 8);
    assert_eq!(
        byte_size_of(&make_opaque_shape(), None)
            .unwrap_err()
            .to_string(),
        "a positive pointer size is needed for the byte size of opaque[]"
    );
    assert!(byte_size_of(&make_nil(), Some(0)).is_err());
    assert_eq!(byte_size_of(&make_nil(), Some(8)).unwrap(), 0);
    let buffer = make_buffer_shape(PrimitiveType::S32, &[3, 4]).unwrap();
    assert_eq!(byte_size_of(&buffer, None).unwrap(), 48);
    // A bounded dynamic dimension counts with its bound.
    let bounded = make_validated_shape(PrimitiveType::F32, &[10, 3], &[true, false]).unwrap();
    assert_eq!(byte_size_of(&bounded, None).unwrap(), 120);
    let unbounded = f32(&[UNBOUNDED_SIZE, 3]);
    assert_eq!(
        byte_size_of(&unbounded, None).unwrap_err().to_string(),
        "shape f32[?,3] has an unbounded dynamic dimension"
    );
}

#[test]
fn padded_layouts_use_their_padded_extents() {
    // f32[10,20] padded to [15,21] takes 1260 bytes (TensorFlow-era XLA).
    let padded = make_shape_with_layout(
        PrimitiveType::F32,
        &[10, 20],
        LayoutBuilder::new(&[1, 0])
            .padded_dimensions(vec![15, 21])
            .build(),
    )
    .unwrap();
    assert_eq!(byte_size_of(&padded, None).unwrap(), 1260);
    assert_eq!(byte_strides(&padded).unwrap(), [84, 4]);
    assert_eq!(elements_in(&padded).unwrap(), 200);
    let too_small = make_shape_with_layout(
        PrimitiveType::F32,
        &[10, 20],
        LayoutBuilder::new(&[1, 0])
            .padded_dimensions(vec![9, 21])
            .build(),
    );
    assert_eq!(
        too_small.unwrap_err().to_string(),
        "for dimension 0, dimension padding (9) is smaller than the dimension size (10) of the shape"
    );
}

#[test]
fn byte_strides_follow_the_layout() {
    let shape =
        make_shape_with_dense_layout(PrimitiveType::F32, &[5, 8, 10, 4], &[3, 2, 1, 0]).unwrap();
    assert_eq!(byte_strides(&shape).unwrap(), [1280, 160, 16, 4]);
    let shape = make_shape_with_dense_layout(PrimitiveType::S16, &[2, 3, 4], &[1, 2, 0]).unwrap();
    assert_eq!(byte_strides(&shape).unwrap(), [24, 2, 6]);
    let mut no_layout = f32(&[2]);
    no_layout.layout = None;
    assert_eq!(
        byte_strides(&no_layout).unwrap_err().to_string(),
        "shape f32[2] does not have a layout"
    );
}

#[test]
fn element_counts() {
    assert_eq!(elements_in(&f32(&[3, 0, 1])).unwrap(), 0);
    assert_eq!(elements_in(&f32(&[])).unwrap(), 1);
    assert!(elements_in(&make_nil()).is_err());
    // 2^32 * 2^31 = 2^63 elements overflow; the constructors refuse such a
    // shape, so build it raw.
    let raw = Shape {
        element_type: PrimitiveType::S8 as i32,
        dimensions: vec![1 << 32, 1 << 31],
        ..Shape::default()
    };
    assert_eq!(
        elements_in(&raw).unwrap_err().to_string(),
        format!(
            "the number of elements of s8[{},{}] overflows int64_t",
            1_i64 << 32,
            1_i64 << 31
        )
    );
}

#[test]
fn ranks_and_dimensions() {
    assert_eq!(true_rank(&f32(&[3, 0, 1])).unwrap(), 2);
    assert_eq!(true_rank(&f32(&[1, 1])).unwrap(), 0);
    assert!(true_rank(&make_token_shape()).is_err());
    let shape = f32(&[2, 3, 4]);
    assert_eq!(get_dimension(&shape, -3).unwrap(), 2);
    assert_eq!(dimension_number(&shape, 2).unwrap(), 2);
    assert_eq!(
        get_dimension(&shape, 3).unwrap_err().to_string(),
        "dimension 3 is out of range for rank 3"
    );
    assert!(get_dimension(&shape, i64::MIN).is_err());
    assert!(is_scalar(&f32(&[])));
    assert!(is_zero_element_array(&f32(&[2, 0])));
    assert!(!is_zero_element_array(&f32(&[2, 1])));
}

#[test]
fn subshapes_in_pre_order() {
    let tuple = make_tuple_shape(vec![
        f32(&[1]),
        make_tuple_shape(vec![f32(&[2]), make_token_shape()]).unwrap(),
        make_opaque_shape(),
        f32(&[3]),
    ])
    .unwrap();
    let mut visited = Vec::new();
    for_each_subshape(&tuple, |subshape, index| {
        visited.push(format!("{index:?}={}", subshape.human_string()));
    });
    assert_eq!(
        visited,
        [
            "[]=(f32[1], (f32[2], token[]), opaque[], f32[3])",
            "[0]=f32[1]",
            "[1]=(f32[2], token[])",
            "[1, 0]=f32[2]",
            "[1, 1]=token[]",
            "[2]=opaque[]",
            "[3]=f32[3]",
        ]
    );
    assert_eq!(leaf_count(&tuple), 5);
    assert_eq!(
        get_subshape(&tuple, &[1, 1]).unwrap().to_string(),
        "token[]"
    );
    assert_eq!(
        get_subshape(&tuple, &[-1]).unwrap_err().to_string(),
        "Shape index {-1} not a valid subshape index for tuple with shape \
         (f32[1], (f32[2], token[]), opaque[], f32[3])"
    );
}

#[test]
fn equality_follows_shape_equal() {
    let row = make_shape_with_dense_layout(PrimitiveType::F32, &[2, 3], &[1, 0]).unwrap();
    let col = make_shape_with_dense_layout(PrimitiveType::F32, &[2, 3], &[0, 1]).unwrap();
    assert!(equal(&row, &row.clone()));
    assert!(!equal(&row, &col));
    assert!(compatible(&row, &col));
    // One side without a layout is not equal, but equal ignoring layouts.
    let mut bare = row.clone();
    bare.layout = None;
    assert!(!equal(&row, &bare));
    assert!(ShapeEqual::new().ignore_layout().equal(&row, &bare));
    // Memory space, tiles and element size each have their own option.
    let fancy = make_shape_with_layout(
        PrimitiveType::F32,
        &[2, 3],
        LayoutBuilder::new(&[1, 0])
            .memory_space(1)
            .tiles(vec![Tile {
                dimensions: vec![8, 128],
            }])
            .build(),
    )
    .unwrap();
    assert!(!equal(&row, &fancy));
    assert!(
        !ShapeEqual::new()
            .ignore_memory_space_in_layout()
            .equal(&row, &fancy)
    );
    assert!(
        ShapeEqual::new()
            .ignore_memory_space_in_layout()
            .ignore_tiles_in_layout()
            .equal(&row, &fancy)
    );
    assert!(
        ShapeEqual::new()
            .minor_to_major_only_in_layout()
            .equal(&row, &fancy)
    );
    // Dynamic metadata prefix bytes are never compared.
    let mut prefixed = row.clone();
    prefixed
        .layout
        .as_mut()
        .unwrap()
        .dynamic_shape_metadata_prefix_bytes = 64;
    assert!(equal(&row, &prefixed));
}

#[test]
fn dynamic_dimensions_and_compatibility() {
    let bounded_first = make_validated_shape(PrimitiveType::F32, &[4, 3], &[true, false]).unwrap();
    let bounded_second = make_validated_shape(PrimitiveType::F32, &[4, 3], &[false, true]).unwrap();
    assert!(!equal(&bounded_first, &bounded_second));
    assert!(compatible(&bounded_first, &bounded_second));
    let unbounded = f32(&[UNBOUNDED_SIZE, 3]);
    assert!(compatible(&unbounded, &f32(&[9, 3])));
    assert!(!compatible(&unbounded, &f32(&[9, 4])));
    assert!(same_dimensions(&unbounded, &f32(&[9, 3])));
    assert!(
        !ShapeEqual::new()
            .ignore_layout()
            .equal(&unbounded, &f32(&[9, 3]))
    );
}

#[test]
fn tuples_tokens_and_buffers_compare_structurally() {
    let a = make_tuple_shape(vec![f32(&[2]), make_token_shape()]).unwrap();
    let b = make_tuple_shape(vec![f32(&[2]), make_opaque_shape()]).unwrap();
    assert!(!equal(&a, &b));
    assert!(!equal(&a, &make_nil()));
    assert!(!equal(&f32(&[]), &make_nil()));
    let buffer = make_buffer_shape(PrimitiveType::F32, &[2]).unwrap();
    assert!(!equal(&buffer, &f32(&[2])));
    assert!(ShapeEqual::new().ignore_buffer().equal(&buffer, &f32(&[2])));
    assert!(ShapeEqual::new().ignore_buffer().equal(&f32(&[2]), &buffer));
    assert!(equal(&buffer, &buffer.clone()));
}

#[test]
fn ignore_dimensions_compares_types_and_layouts_only() {
    let a = f32(&[2, 3]);
    let b = f32(&[7, 8]);
    assert!(ShapeEqual::new().ignore_dimensions().equal(&a, &b));
    assert!(!ShapeEqual::new().ignore_dimensions().equal(&a, &f32(&[7])));
}
