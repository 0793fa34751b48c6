//! Validation and construction errors: every check of XLA's
//! `ValidateShape` and `MakeValidatedShape`, with XLA's exact texts, in
//! XLA's order.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use schema::{PrimitiveType, Shape, UNBOUNDED_SIZE};
use shape_util::{
    InvalidShape, ShapeError, make_buffer_shape, make_nil, make_opaque_shape, make_program_shape,
    make_scalar_shape, make_shape, make_shape_with_dense_layout, make_token_shape,
    make_tuple_shape, make_validated_shape, validate_program_shape, validate_shape,
    validate_shape_with_optional_layout,
};

fn raw(element_type: i32, dimensions: &[i64]) -> Shape {
    Shape {
        element_type,
        dimensions: dimensions.to_vec(),
        ..Shape::default()
    }
}

fn f32_raw(dimensions: &[i64]) -> Shape {
    raw(PrimitiveType::F32 as i32, dimensions)
}

fn message(shape: &Shape) -> String {
    validate_shape_with_optional_layout(shape)
        .unwrap_err()
        .to_string()
}

#[test]
fn invalid_and_unknown_element_types() {
    assert_eq!(
        message(&raw(0, &[])),
        "Shape Error: Invalid element type. Shape(primitive_type_invalid): primitive_type_invalid[]"
    );
    assert_eq!(
        message(&raw(99, &[2])),
        "Shape Error: Invalid element type. Shape(99): primitive_type_invalid[]"
    );
    assert!(matches!(
        validate_shape(&raw(-1, &[])),
        Err(ShapeError::Invalid {
            reason: InvalidShape::InvalidElementType,
            ..
        })
    ));
}

#[test]
fn content_that_does_not_fit_the_element_type_is_a_state_error() {
    let tuple_with_dims = raw(PrimitiveType::Tuple as i32, &[2]);
    assert_eq!(
        message(&tuple_with_dims),
        "Shape Error: This type must have a tuple state. Shape(tuple): ()"
    );
    assert_eq!(
        message(&raw(PrimitiveType::Token as i32, &[1])),
        "Shape Error: This type must have a token state. Shape(token): token[]"
    );
    let opaque_with_elements = Shape {
        tuple_shapes: vec![make_nil()],
        ..raw(PrimitiveType::OpaqueType as i32, &[])
    };
    assert_eq!(
        message(&opaque_with_elements),
        "Shape Error: This type must have an opaque state. Shape(opaque): opaque[]"
    );
    let array_with_elements = Shape {
        tuple_shapes: vec![make_token_shape()],
        ..f32_raw(&[2])
    };
    assert_eq!(
        message(&array_with_elements),
        "Shape Error: This type must have an array state. Shape(f32): f32[2]"
    );
    let mut buffer_with_dims = make_buffer_shape(PrimitiveType::S32, &[3]).unwrap();
    buffer_with_dims.dimensions = vec![3];
    assert_eq!(
        message(&buffer_with_dims),
        "Shape Error: This type must have a buffer state. Shape(buffer): b(s32[3])"
    );
}

#[test]
fn malformed_protos_are_rejected_as_xlas_from_proto_does() {
    let empty_buffer = raw(PrimitiveType::Buffer as i32, &[]);
    assert_eq!(
        message(&empty_buffer),
        "Buffer shape must have exactly one tuple shape."
    );
    let buffer_of_tuple = Shape {
        tuple_shapes: vec![make_nil()],
        ..empty_buffer.clone()
    };
    assert_eq!(
        message(&buffer_of_tuple),
        "Buffer shape must have array shape."
    );
    // XLA's texts name nothing; the variants carry what was wrong.
    assert_eq!(
        validate_shape(&empty_buffer),
        Err(ShapeError::BufferTupleShapeCount { count: 0 })
    );
    assert_eq!(
        validate_shape(&buffer_of_tuple),
        Err(ShapeError::BufferNotArray {
            shape: Box::new(buffer_of_tuple.tuple_shapes[0].clone())
        })
    );
    let Err(ShapeError::BufferNotArray { shape }) = make_buffer_shape(PrimitiveType::Token, &[])
    else {
        panic!("a buffer of a token is no buffer shape");
    };
    assert_eq!(shape.human_string(), "token[]");
    let flags = Shape {
        is_dynamic_dimension: vec![false],
        ..f32_raw(&[2, 3])
    };
    assert_eq!(
        message(&flags),
        "Malformed shape proto: number of is_dynamic_dimension fields (1) does not match \
         number of dimension fields (2)."
    );
    // Only arrays (and buffers) may carry a layout, even an empty one.
    let layout = Some(Box::new(schema::Layout::default()));
    for (element_type, name) in [
        (PrimitiveType::Tuple as i32, "TUPLE"),
        (PrimitiveType::Token as i32, "TOKEN"),
        (PrimitiveType::OpaqueType as i32, "OPAQUE_TYPE"),
        (0, "PRIMITIVE_TYPE_INVALID"),
        (99, "PRIMITIVE_TYPE_INVALID"),
    ] {
        let with_layout = Shape {
            layout: layout.clone(),
            ..raw(element_type, &[])
        };
        assert_eq!(
            validate_shape_with_optional_layout(&with_layout),
            Err(ShapeError::LayoutOnNonArray {
                element_type: name.to_owned(),
                number: element_type,
            })
        );
        // XLA's words; an unknown number is named after them.
        let number = if element_type == 99 {
            " (element type 99)"
        } else {
            ""
        };
        assert_eq!(
            message(&with_layout),
            format!("Malformed shape proto: element_type {name} should not have a layout.{number}")
        );
    }
    // A tuple's elements are read before its own layout.
    let tuple_with_layout = Shape {
        tuple_shapes: vec![buffer_of_tuple.clone()],
        layout: layout.clone(),
        ..make_nil()
    };
    assert_eq!(
        message(&tuple_with_layout),
        "Buffer shape must have array shape."
    );
    // The proto checks run over the whole tree before the element checks.
    let tuple = Shape {
        tuple_shapes: vec![raw(0, &[]), empty_buffer],
        ..make_nil()
    };
    assert_eq!(
        message(&tuple),
        "Buffer shape must have exactly one tuple shape."
    );
}

#[test]
fn negative_dimensions_are_reported_before_overflow() {
    assert_eq!(
        message(&f32_raw(&[i64::MAX, 2, -1])),
        format!(
            "Shape Error: Negative dimension at index 2: -1. Shape(f32): f32[{},2,-1]",
            i64::MAX
        )
    );
    assert_eq!(
        message(&f32_raw(&[i64::MAX, 2])),
        format!(
            "Shape Error: Dimensions overflow. Shape(f32): f32[{},2]",
            i64::MAX
        )
    );
}

#[test]
fn the_byte_size_must_fit_in_i64_with_sub_byte_types_counting_one_byte() {
    let two_to_62 = 1_i64 << 62;
    assert_eq!(
        message(&f32_raw(&[two_to_62])),
        format!("Shape f32[{two_to_62}] size may overflow int64_t.")
    );
    assert!(
        validate_shape_with_optional_layout(&raw(PrimitiveType::S4 as i32, &[i64::MAX])).is_ok()
    );
    assert!(
        validate_shape_with_optional_layout(&raw(PrimitiveType::S16 as i32, &[two_to_62])).is_err()
    );
}

#[test]
fn unbounded_dimensions_are_skipped_even_when_marked_static() {
    let unbounded = make_shape(PrimitiveType::F32, &[UNBOUNDED_SIZE, i64::MAX / 4]).unwrap();
    assert_eq!(
        validate_shape(&unbounded).map_err(|e| e.to_string()),
        Ok(())
    );
    // XLA never checks the dynamic flag here (spec §5.1, derived).
    assert_eq!(
        validate_shape_with_optional_layout(&f32_raw(&[UNBOUNDED_SIZE])).map_err(|e| e.to_string()),
        Ok(())
    );
}

#[test]
fn element_errors_name_the_element_not_the_tuple() {
    let tuple = make_tuple_shape(vec![make_scalar_shape(PrimitiveType::F32).unwrap()]).unwrap();
    let mut bad = tuple.clone();
    bad.tuple_shapes.push(f32_raw(&[-4]));
    assert_eq!(
        message(&bad),
        "Shape Error: Negative dimension at index 0: -4. Shape(f32): f32[-4]"
    );
}

#[test]
fn non_layout_checks_come_before_layout_checks() {
    let mut shape = make_shape_with_dense_layout(PrimitiveType::F32, &[2], &[0]).unwrap();
    shape.dimensions = vec![-2];
    shape.layout.as_mut().unwrap().minor_to_major = vec![5];
    assert_eq!(
        message(&shape),
        "Shape Error: Negative dimension at index 0: -2. Shape(f32): f32[-2]"
    );
}

#[test]
fn layouts_are_required_unless_optional() {
    let bare = f32_raw(&[2]);
    let tuple = Shape {
        tuple_shapes: vec![bare.clone()],
        ..make_nil()
    };
    assert_eq!(
        validate_shape_with_optional_layout(&tuple).map_err(|e| e.to_string()),
        Ok(())
    );
    assert_eq!(
        validate_shape(&tuple).unwrap_err().to_string(),
        "shape f32[2] does not have a layout"
    );
    let mut wrong = make_shape(PrimitiveType::F32, &[2, 3]).unwrap();
    wrong.layout.as_mut().unwrap().minor_to_major = vec![0];
    assert_eq!(
        validate_shape_with_optional_layout(&wrong)
            .unwrap_err()
            .to_string(),
        "layout minor_to_major field contains 1 elements, but shape has 2 dimensions: {0}; shape: f32[2,3]"
    );
    // Tokens and scalars are fine with or without their empty layout.
    assert_eq!(
        validate_shape(&make_token_shape()).map_err(|e| e.to_string()),
        Ok(())
    );
    assert_eq!(
        validate_shape(&make_scalar_shape(PrimitiveType::Pred).unwrap()).map_err(|e| e.to_string()),
        Ok(())
    );
}

#[test]
fn make_validated_shape_errors_in_xlas_order() {
    let err = |ty, dims: &[i64], dynamic: &[bool]| {
        make_validated_shape(ty, dims, dynamic)
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        err(PrimitiveType::Token, &[1], &[true, true]),
        "dynamic dimensions size 2 did not match number of dimensions 1"
    );
    assert_eq!(
        err(PrimitiveType::Token, &[1], &[false]),
        "Invalid dimensions size 1 for non-array shape of type TOKEN"
    );
    assert_eq!(
        err(PrimitiveType::F32, &[3, UNBOUNDED_SIZE], &[false, false]),
        format!("Invalid dimension size {UNBOUNDED_SIZE}, is_dynamic=false")
    );
    assert_eq!(
        err(PrimitiveType::F32, &[-1], &[true]),
        "Invalid dimension size -1, is_dynamic=true"
    );
    assert_eq!(
        err(PrimitiveType::F32, &[1 << 40, 1 << 30], &[false, false]),
        format!(
            "overflow in static extent product: dimensions=[{}, {}].",
            1_i64 << 40,
            1_i64 << 30
        )
    );
    assert_eq!(
        err(PrimitiveType::Buffer, &[], &[]),
        "Unsupported element type: BUFFER"
    );
    // A dynamic bound counts towards the extent; `?` does not.
    assert!(make_validated_shape(PrimitiveType::F32, &[1 << 61], &[true]).is_err());
    assert!(
        make_validated_shape(
            PrimitiveType::F32,
            &[UNBOUNDED_SIZE, 1 << 60],
            &[true, false]
        )
        .is_ok()
    );
}

#[test]
fn non_array_types_without_dimensions_make_their_shapes() {
    assert_eq!(make_shape(PrimitiveType::Tuple, &[]).unwrap(), make_nil());
    assert_eq!(
        make_shape(PrimitiveType::Token, &[]).unwrap().to_string(),
        "token[]"
    );
    assert_eq!(
        make_shape(PrimitiveType::OpaqueType, &[])
            .unwrap()
            .to_string(),
        "opaque[]"
    );
}

#[test]
fn dense_layout_constructor_errors() {
    assert_eq!(
        make_shape_with_dense_layout(PrimitiveType::Tuple, &[], &[])
            .unwrap_err()
            .to_string(),
        "Unsupported element type: TUPLE"
    );
    assert_eq!(
        make_shape_with_dense_layout(PrimitiveType::OpaqueType, &[], &[])
            .unwrap_err()
            .to_string(),
        "Unsupported element type: OPAQUE_TYPE"
    );
    assert_eq!(
        make_shape_with_dense_layout(PrimitiveType::F32, &[2, 3], &[1, 1])
            .unwrap_err()
            .to_string(),
        "layout minor_to_major field has duplicate values: {1, 1}; shape: f32[2,3]"
    );
}

#[test]
fn tuple_construction_validates_its_elements() {
    let err = make_tuple_shape(vec![make_nil(), f32_raw(&[-1])]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Shape Error: Negative dimension at index 0: -1. Shape(f32): f32[-1]"
    );
    // Layouts are optional in tuple elements.
    assert!(make_tuple_shape(vec![f32_raw(&[2])]).is_ok());
}

#[test]
fn program_shapes_print_and_validate_as_xla() {
    // XLA's ShapeTest.ProgramShapeToString: unnamed parameters print as
    // `(unknown)`, named ones by name, all without layouts.
    let opaque = make_opaque_shape();
    let scalar = make_scalar_shape(PrimitiveType::F32).unwrap();
    let matrix = make_shape(PrimitiveType::U32, &[1, 2]).unwrap();
    let matrix2 = make_shape_with_dense_layout(PrimitiveType::S32, &[3, 4], &[0, 1]).unwrap();
    let tuple = make_tuple_shape(vec![
        opaque.clone(),
        scalar.clone(),
        matrix.clone(),
        matrix2.clone(),
    ])
    .unwrap();
    let nested = make_tuple_shape(vec![tuple.clone(), matrix.clone(), make_token_shape()]).unwrap();
    let mut program = make_program_shape(
        vec![opaque, scalar, matrix, matrix2, tuple, nested.clone()],
        nested,
    );
    assert_eq!(
        program.to_string(),
        "((unknown): opaque[], (unknown): f32[], (unknown): u32[1,2], (unknown): s32[3,4], \
         (unknown): (opaque[], f32[], u32[1,2], s32[3,4]), \
         (unknown): ((opaque[], f32[], u32[1,2], s32[3,4]), u32[1,2], token[])) \
         -> ((opaque[], f32[], u32[1,2], s32[3,4]), u32[1,2], token[])"
    );
    assert!(validate_program_shape(&program).is_ok());
    program.parameter_names = [
        "arg0",
        "scalar",
        "matrix",
        "matrix2",
        "tuple",
        "nested_tuple",
    ]
    .map(String::from)
    .to_vec();
    assert_eq!(
        program.to_string(),
        "(arg0: opaque[], scalar: f32[], matrix: u32[1,2], matrix2: s32[3,4], \
         tuple: (opaque[], f32[], u32[1,2], s32[3,4]), \
         nested_tuple: ((opaque[], f32[], u32[1,2], s32[3,4]), u32[1,2], token[])) \
         -> ((opaque[], f32[], u32[1,2], s32[3,4]), u32[1,2], token[])"
    );

    // ProgramShape::FromProto's name count check, then each shape's
    // validation (layouts optional).
    program.parameter_names.pop();
    assert_eq!(
        validate_program_shape(&program).unwrap_err().to_string(),
        "ProgramShapeProto has different numbers of parameters and parameter names: 6 vs 5"
    );
    let bad = make_program_shape(vec![f32_raw(&[2]), f32_raw(&[-1])], f32_raw(&[3]));
    assert_eq!(
        validate_program_shape(&bad).unwrap_err().to_string(),
        "Shape Error: Negative dimension at index 0: -1. Shape(f32): f32[-1]"
    );
    let bad_result = make_program_shape(vec![], f32_raw(&[i64::MAX, 2]));
    assert_eq!(
        validate_program_shape(&bad_result).unwrap_err().to_string(),
        "Shape Error: Dimensions overflow. Shape(f32): f32[9223372036854775807,2]"
    );
}

/// A classic padded layout is refused when its padded extents hold more
/// elements, or bytes, than `i64` counts, though the shape has few elements;
/// the message names the padded extents.
#[test]
fn padded_sizes_past_i64_are_refused() {
    let check = |text: &str| {
        let shape: Shape = text.parse().unwrap();
        validate_shape(&shape).map_err(|e| e.to_string())
    };
    // 3 * 2^62 elements.
    assert_eq!(
        check("f32[2,3]{0,1:PAD(3,4611686018427387904)}").unwrap_err(),
        "the padded element count of f32[2,3] (padded_dimensions [3,4611686018427387904]) \
         overflows int64_t"
    );
    // 2^62 elements fit; 2^64 bytes of f32 do not; 2^62 bytes of s8 do.
    assert_eq!(
        check("f32[2]{0:PAD(4611686018427387904)}").unwrap_err(),
        "the padded byte size of f32[2] (padded_dimensions [4611686018427387904]) \
         overflows int64_t"
    );
    assert_eq!(check("s8[2]{0:PAD(4611686018427387904)}"), Ok(()));
    // Through tuples, and with the layout optional.
    let tuple: Shape = "(s32[], f32[2,3]{0,1:PAD(3,4611686018427387904)})"
        .parse()
        .unwrap();
    assert!(matches!(
        validate_shape_with_optional_layout(&tuple),
        Err(ShapeError::PaddedSizeOverflow {
            what: "element count",
            ..
        })
    ));
    assert_eq!(check("f32[2,3]{0,1:PAD(3,5)}"), Ok(()));
}
