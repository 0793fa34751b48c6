//! Hostile shapes: dimensions of `i64::MIN`, `i64::MAX` and -1, element
//! counts and byte sizes just over `i64::MAX` (packed sub-byte types
//! included), shapes decoded from bytes with enum numbers no enum has, a
//! million dimensions, and the deepest nests the decoder and the parser
//! accept, on a 2 MiB stack. Each is XLA's exact error naming the
//! offending value (spec §3, §5.1), or the exact size.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use conformance::{length_delimited, nested_tuple_bytes, varint};
use layout_util::LayoutBuilder;
use prost::Message;
use schema::{MAX_DEPTH, PrimitiveType, Shape};
use shape_util::{
    ShapeError, byte_size_of, byte_size_of_elements, byte_strides, elements_in,
    elements_in_recursive, equal, get_dimension, insert_dimension_at_index, leaf_count, make_shape,
    permute_dimensions, subshape_count, validate_shape, validate_shape_with_optional_layout,
};

fn raw(element_type: PrimitiveType, dimensions: &[i64]) -> Shape {
    Shape {
        element_type: element_type as i32,
        dimensions: dimensions.to_vec(),
        ..Shape::default()
    }
}

/// `raw` with a descending layout packing elements into `bits` (0: none).
fn packed(element_type: PrimitiveType, dimensions: &[i64], bits: i64) -> Shape {
    let m2m: Vec<i64> = (0..i64::try_from(dimensions.len()).unwrap())
        .rev()
        .collect();
    Shape {
        layout: Some(Box::new(
            LayoutBuilder::new(&m2m).element_size_in_bits(bits).build(),
        )),
        ..raw(element_type, dimensions)
    }
}

fn invalid(shape: &Shape) -> String {
    validate_shape_with_optional_layout(shape)
        .unwrap_err()
        .to_string()
}

const TWO_TO_60: i64 = 1 << 60;
const TWO_TO_61: i64 = 1 << 61;
const TWO_TO_62: i64 = 1 << 62;

#[test]
fn negative_and_extreme_dimensions() {
    use PrimitiveType::{F32, Pred, S8};
    assert_eq!(
        invalid(&raw(F32, &[-1])),
        "Shape Error: Negative dimension at index 0: -1. Shape(f32): f32[-1]"
    );
    assert_eq!(
        invalid(&raw(F32, &[3, i64::MIN + 1])),
        "Shape Error: Negative dimension at index 1: -9223372036854775807. Shape(f32): f32[3,-9223372036854775807]"
    );
    // i64::MAX one-byte elements fit; four-byte ones do not.
    assert_eq!(
        validate_shape_with_optional_layout(&raw(S8, &[i64::MAX])),
        Ok(())
    );
    assert_eq!(
        validate_shape_with_optional_layout(&raw(Pred, &[i64::MAX, 1])),
        Ok(())
    );
    assert_eq!(
        invalid(&raw(F32, &[i64::MAX, 1])),
        "Shape f32[9223372036854775807,1] size may overflow int64_t."
    );
    // The product is taken left to right, as XLA's OverflowSafeMultiply: a
    // zero first hides the overflow, a zero last does not.
    assert_eq!(
        validate_shape_with_optional_layout(&raw(S8, &[0, i64::MAX, i64::MAX])),
        Ok(())
    );
    assert_eq!(
        invalid(&raw(S8, &[i64::MAX, 2, 0])),
        "Shape Error: Dimensions overflow. Shape(s8): s8[9223372036854775807,2,0]"
    );
    // Constructors refuse what validation refuses.
    assert_eq!(
        make_shape(F32, &[i64::MIN + 1]),
        Err(ShapeError::InvalidDimensionSize {
            size: i64::MIN + 1,
            is_dynamic: false
        })
    );
    assert_eq!(
        get_dimension(&raw(F32, &[5]), i64::MAX)
            .unwrap_err()
            .to_string(),
        "dimension 9223372036854775807 is out of range for rank 1"
    );
}

#[test]
fn element_counts_and_byte_sizes_just_over_i64_max() {
    use PrimitiveType::{F32, S4, U8};
    // f32[2^62, 2]: 2^63 elements, one more than i64::MAX.
    let elements = raw(F32, &[TWO_TO_62, 2]);
    assert_eq!(
        invalid(&elements),
        "Shape Error: Dimensions overflow. Shape(f32): f32[4611686018427387904,2]"
    );
    assert_eq!(
        byte_size_of(&elements, None).unwrap_err().to_string(),
        "the number of elements of f32[4611686018427387904,2] overflows int64_t"
    );
    // f32[2^60, 2]: 2^61 elements fit, their 2^63 bytes do not.
    let bytes = raw(F32, &[TWO_TO_60, 2]);
    assert_eq!(elements_in(&bytes).unwrap(), TWO_TO_61);
    assert_eq!(
        invalid(&bytes),
        "Shape f32[1152921504606846976,2] size may overflow int64_t."
    );
    assert_eq!(
        byte_size_of(&bytes, None),
        Err(ShapeError::ByteSizeOverflow {
            shape: Box::new(bytes.clone())
        })
    );
    // One element fewer fits: (2^61 - 1) * 4 = i64::MAX - 3.
    assert_eq!(
        byte_size_of(&raw(F32, &[TWO_TO_61 - 1]), None).unwrap(),
        i64::MAX - 3
    );
    // s4 without E(4) takes a byte per element (spec §3).
    assert_eq!(byte_size_of(&raw(S4, &[i64::MAX]), None).unwrap(), i64::MAX);
    // Packed, s4[2^62, 2] has 2^63 elements: the count overflows first.
    assert!(matches!(
        byte_size_of(&packed(S4, &[TWO_TO_62, 2], 4), None),
        Err(ShapeError::ElementCountOverflow { .. })
    ));
    // E(32) on u8 makes f32-sized elements: 2^61 of them need 2^63 bytes.
    assert_eq!(
        byte_size_of(&packed(U8, &[TWO_TO_61], 32), None)
            .unwrap_err()
            .to_string(),
        "the byte size of u8[2305843009213693952] overflows int64_t"
    );
}

#[test]
fn packed_sizes_whose_bit_count_exceeds_i64_still_fit_in_bytes() {
    use PrimitiveType::{Pred, S4, U2};
    // ceil(n * bits / 8): the bit count passes i64::MAX, the bytes do not.
    assert_eq!(
        byte_size_of_elements(&packed(S4, &[i64::MAX], 4)).unwrap(),
        TWO_TO_62
    );
    assert_eq!(
        byte_size_of_elements(&packed(S4, &[TWO_TO_62], 4)).unwrap(),
        TWO_TO_61
    );
    assert_eq!(
        byte_size_of_elements(&packed(U2, &[i64::MAX], 2)).unwrap(),
        TWO_TO_61
    );
    assert_eq!(
        byte_size_of_elements(&packed(Pred, &[i64::MAX], 1)).unwrap(),
        TWO_TO_60
    );
}

#[test]
fn strides_of_padded_extents_that_overflow() {
    let shape = Shape {
        layout: Some(Box::new(
            LayoutBuilder::new(&[1, 0])
                .padded_dimensions(vec![2, TWO_TO_61])
                .build(),
        )),
        ..raw(PrimitiveType::F32, &[2, 3])
    };
    // Dimension 0 steps over 2^61 four-byte elements: 2^63 bytes.
    assert_eq!(
        byte_strides(&shape).unwrap_err().to_string(),
        "the byte size of f32[2,3] overflows int64_t"
    );
    assert_eq!(
        byte_size_of(&shape, None).unwrap_err().to_string(),
        "the byte size of f32[2,3] overflows int64_t"
    );
}

#[test]
fn dimension_edits_with_extreme_arguments() {
    let shape = make_shape(PrimitiveType::F32, &[2, 3]).unwrap();
    assert_eq!(
        insert_dimension_at_index(&shape, usize::MAX, 1),
        Err(ShapeError::DimensionOutOfRange {
            dimension: i64::MAX,
            rank: 2
        })
    );
    assert!(matches!(
        insert_dimension_at_index(&shape, 0, i64::MIN),
        Err(ShapeError::InvalidDimensionSize { size: i64::MIN, .. })
    ));
    for permutation in [[i64::MIN, 0], [0, 0], [1, i64::MAX]] {
        assert_eq!(
            permute_dimensions(&shape, &permutation),
            Err(ShapeError::InvalidPermutation {
                permutation: permutation.to_vec(),
                rank: 2,
                shape: Box::new(shape.clone())
            })
        );
    }
}

/// Keys of the protobuf fields used below.
const ELEMENT_TYPE: u8 = 2 << 3;
const DIMENSIONS_PACKED: u8 = 3 << 3 | 2;

#[test]
fn decoded_element_types_outside_the_enum_are_invalid() {
    // XLA stores an unknown number as PRIMITIVE_TYPE_INVALID and names the
    // number in the message (spec §1.3, §5.1).
    for (number, name) in [
        (9999_u64, "9999"),
        (u64::MAX, "-1"),
        (1 << 32, "primitive_type_invalid"),
    ] {
        let mut bytes = vec![ELEMENT_TYPE];
        bytes.extend(varint(number));
        bytes.extend(length_delimited(DIMENSIONS_PACKED, &[2]));
        let shape = Shape::decode(bytes.as_slice()).unwrap();
        assert_eq!(
            invalid(&shape),
            format!("Shape Error: Invalid element type. Shape({name}): primitive_type_invalid[]")
        );
    }
}

#[test]
fn a_million_decoded_dimensions_are_validated_and_sized() {
    let mut bytes = vec![ELEMENT_TYPE, PrimitiveType::F32 as u8];
    bytes.extend(length_delimited(DIMENSIONS_PACKED, &vec![1; 1_000_000]));
    let mut shape = Shape::decode(bytes.as_slice()).unwrap();
    assert_eq!(validate_shape_with_optional_layout(&shape), Ok(()));
    assert_eq!(byte_size_of(&shape, None).unwrap(), 4);
    // The 64th dimension of 2 would make 2^64 elements.
    for size in shape.dimensions.iter_mut().take(64) {
        *size = 2;
    }
    assert!(matches!(
        validate_shape_with_optional_layout(&shape),
        Err(ShapeError::Invalid { .. })
    ));
    assert!(matches!(
        elements_in(&shape),
        Err(ShapeError::ElementCountOverflow { .. })
    ));
}

#[test]
fn the_deepest_decodable_and_parsable_nests_work_on_a_small_stack() {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            // 100 tuples decode (protobuf's limit); the arrays have no layout.
            let decoded = Shape::decode(nested_tuple_bytes(100).as_slice()).unwrap();
            assert_eq!(validate_shape_with_optional_layout(&decoded), Ok(()));
            assert_eq!(
                validate_shape(&decoded).unwrap_err().to_string(),
                "shape f32[] does not have a layout"
            );
            assert_eq!(elements_in_recursive(&decoded).unwrap(), 1);
            assert_eq!(leaf_count(&decoded), 1);
            assert_eq!(subshape_count(&decoded), 101);
            assert_eq!(byte_size_of(&decoded, Some(8)).unwrap(), 8);
            assert!(equal(&decoded, &decoded.clone()));
            let text = format!(
                "{}s32[2]{}",
                "(".repeat(MAX_DEPTH - 1),
                ")".repeat(MAX_DEPTH - 1)
            );
            let parsed: Shape = text.parse().unwrap();
            assert_eq!(validate_shape(&parsed), Ok(()));
            assert_eq!(elements_in_recursive(&parsed).unwrap(), 2);
            // A bad innermost array is found at the bottom.
            let mut bad = parsed.clone();
            let mut inner = &mut bad;
            while let Some(next) = inner.tuple_shapes.first_mut() {
                inner = next;
            }
            inner.dimensions[0] = i64::MIN + 1;
            assert_eq!(
                validate_shape(&bad).unwrap_err().to_string(),
                "Shape Error: Negative dimension at index 0: -9223372036854775807. Shape(s32): s32[-9223372036854775807]"
            );
            assert!(!equal(&bad, &parsed));
        })
        .unwrap()
        .join()
        .unwrap();
}
