//! Broadcasting: every example of XLA's broadcasting document (seed 001),
//! XLA's dynamic-dimension rules, and every error text in XLA's order.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use schema::{PrimitiveType, Shape, UNBOUNDED_SIZE};
use shape_util::{
    BroadcastError, NumpyBroadcastError, infer_broadcast_in_dim_shape,
    infer_elementwise_binary_op_shape, make_nil, make_scalar_shape, make_shape,
    make_shape_with_dense_layout, make_validated_shape, numpy_broadcast_shapes,
};

fn f32(dims: &[i64]) -> Shape {
    make_shape(PrimitiveType::F32, dims).unwrap()
}

/// `lhs <op> rhs` with `bdims`, as a human string or the error text.
fn add(lhs: &Shape, rhs: &Shape, bdims: &[i64]) -> String {
    match infer_elementwise_binary_op_shape("add", lhs, rhs, bdims) {
        Ok(shape) => shape.human_string(),
        Err(e) => e.to_string(),
    }
}

#[test]
fn seed_matrix_plus_vector_and_scalar() {
    // |1 2 3| + |7 8 9| with broadcast dimension (1); and + 7.
    assert_eq!(add(&f32(&[2, 3]), &f32(&[3]), &[1]), "f32[2,3]");
    assert_eq!(add(&f32(&[3]), &f32(&[2, 3]), &[1]), "f32[2,3]");
    assert_eq!(add(&f32(&[2, 3]), &f32(&[]), &[]), "f32[2,3]");
    assert_eq!(add(&f32(&[]), &f32(&[2, 3]), &[]), "f32[2,3]");
    // A 3-vector and a 3x3 matrix: dimension (1) or (0).
    assert_eq!(add(&f32(&[3, 3]), &f32(&[3]), &[1]), "f32[3,3]");
    assert_eq!(add(&f32(&[3, 3]), &f32(&[3]), &[0]), "f32[3,3]");
    // A 2x3x4 cube and a 3x4 matrix with (1, 2).
    assert_eq!(add(&f32(&[2, 3, 4]), &f32(&[3, 4]), &[1, 2]), "f32[2,3,4]");
    // A TxV matrix against MxNxPxQ: (2,3), (1,2), (0,3) work, V with N
    // and T with P does not (the order must strictly increase).
    let big = f32(&[5, 6, 7, 8]);
    assert_eq!(add(&big, &f32(&[7, 8]), &[2, 3]), "f32[5,6,7,8]");
    assert_eq!(add(&big, &f32(&[6, 7]), &[1, 2]), "f32[5,6,7,8]");
    assert_eq!(add(&big, &f32(&[5, 8]), &[0, 3]), "f32[5,6,7,8]");
    assert_eq!(
        add(&big, &f32(&[7, 6]), &[2, 1]),
        "Broadcast dimensions order is wrong: 1 comes after 2."
    );
}

#[test]
fn seed_degenerate_dimensions() {
    assert_eq!(add(&f32(&[2, 1]), &f32(&[2, 3]), &[]), "f32[2,3]");
    assert_eq!(add(&f32(&[1, 2, 5]), &f32(&[7, 2, 5]), &[]), "f32[7,2,5]");
    assert_eq!(add(&f32(&[7, 2, 5]), &f32(&[7, 1, 5]), &[]), "f32[7,2,5]");
    assert_eq!(
        add(&f32(&[7, 2, 5]), &f32(&[7, 2, 6]), &[]),
        "Binary op with incompatible shapes: f32[7,2,5] and f32[7,2,6]."
    );
    // The outer product.
    assert_eq!(add(&f32(&[2, 1]), &f32(&[1, 3]), &[]), "f32[2,3]");
}

#[test]
fn seed_composition() {
    // |1 2 3 4| + [5 6] with (0): 4x1 then 4x2.
    assert_eq!(add(&f32(&[4]), &f32(&[1, 2]), &[0]), "f32[4,2]");
    // 1x2 + 4x3x1 with (1, 2): 4x1x2 then 4x3x2.
    assert_eq!(add(&f32(&[1, 2]), &f32(&[4, 3, 1]), &[1, 2]), "f32[4,3,2]");
    // XLA's own table: [2,1] into [2,3,4] with {0,2} ends as [2,3,4].
    assert_eq!(add(&f32(&[2, 1]), &f32(&[2, 3, 4]), &[0, 2]), "f32[2,3,4]");
    assert_eq!(add(&f32(&[2, 3]), &f32(&[2, 1, 4]), &[0, 1]), "f32[2,3,4]");
    assert_eq!(
        add(&f32(&[2, 1]), &f32(&[2, 3, 4]), &[1, 2]),
        "Broadcast dimension 0 mismatch: 2 != 3; f32[2,1] and f32[2,3,4]."
    );
}

#[test]
fn errors_in_xlas_order() {
    let tuple = make_nil();
    assert_eq!(
        add(&tuple, &f32(&[2]), &[]),
        "Expected array argument for lhs of elementwise binary operation, but got ()."
    );
    assert_eq!(
        add(&f32(&[2]), &tuple, &[]),
        "Expected array argument for rhs of elementwise binary operation, but got ()."
    );
    let s32 = make_shape(PrimitiveType::S32, &[3]).unwrap();
    // The element types are checked before the ranks.
    assert_eq!(
        infer_elementwise_binary_op_shape("multiply", &f32(&[2, 3]), &s32, &[7])
            .unwrap_err()
            .to_string(),
        "Binary op multiply with different element types: f32[2,3] and s32[3]."
    );
    assert_eq!(
        add(&f32(&[2, 3]), &f32(&[2, 3]), &[1, 0]),
        "Broadcast dimensions field must either be not set or be the identity on binary \
         operations with operands of the same rank."
    );
    assert_eq!(
        infer_elementwise_binary_op_shape("add", &f32(&[2, 3]), &f32(&[2, 3]), &[1, 0]),
        Err(BroadcastError::NonIdentityBroadcastDimensions {
            broadcast_dimensions: vec![1, 0]
        })
    );
    assert_eq!(add(&f32(&[2, 3]), &f32(&[2, 3]), &[0, 1]), "f32[2,3]");
    assert_eq!(
        add(&f32(&[2, 3]), &f32(&[3]), &[]),
        "Shapes must be equal rank, but are f32[3] and f32[2,3]"
    );
    assert_eq!(
        add(&f32(&[2, 3]), &f32(&[3]), &[0, 1]),
        "Size of broadcast_dimensions has to match lower-rank operand's rank;  lower-rank \
         operand's rank is 1, size of broadcast_dimensions is 2."
    );
    assert_eq!(
        add(&f32(&[2, 3]), &f32(&[3]), &[-1]),
        "Broadcast dimension number (-1) cannot be negative."
    );
    assert_eq!(
        add(&f32(&[2, 3]), &f32(&[3]), &[2]),
        "Broadcast dimension number (2) too large; higher-rank operand has rank 2."
    );
    assert_eq!(
        add(&f32(&[4, 3]), &f32(&[3]), &[0]),
        "Broadcast dimension 0 mismatch: 3 != 4; f32[3] and f32[4,3]."
    );
    let ints = make_shape(PrimitiveType::S32, &[2]).unwrap();
    assert_eq!(
        infer_elementwise_binary_op_shape("atan2", &ints, &ints, &[])
            .unwrap_err()
            .to_string(),
        "Expected input element type to be floating or complex for atan2 operation; got S32."
    );
    assert!(infer_elementwise_binary_op_shape("atan2", &f32(&[2]), &f32(&[2]), &[]).is_ok());
}

#[test]
fn floating_point_types_mix_to_the_higher_precision() {
    let bf16 = make_shape(PrimitiveType::Bf16, &[2]).unwrap();
    let f16 = make_shape(PrimitiveType::F16, &[2]).unwrap();
    let result = infer_elementwise_binary_op_shape("add", &f16, &bf16, &[]).unwrap();
    assert_eq!(result.human_string(), "bf16[2]");
    let result = infer_elementwise_binary_op_shape("add", &bf16, &f32(&[3, 2]), &[1]).unwrap();
    assert_eq!(result.human_string(), "f32[3,2]");
}

#[test]
fn compatible_operands_keep_the_lhs_layout_and_or_the_dynamic_flags() {
    let lhs = make_shape_with_dense_layout(PrimitiveType::F32, &[2, 3], &[0, 1]).unwrap();
    let rhs = make_validated_shape(PrimitiveType::F32, &[2, 3], &[false, true]).unwrap();
    let result = infer_elementwise_binary_op_shape("add", &lhs, &rhs, &[]).unwrap();
    assert_eq!(result.to_string(), "f32[2,<=3]{0,1}");
    // A degenerate broadcast gets the default layout.
    let lhs = make_shape_with_dense_layout(PrimitiveType::F32, &[2, 1], &[0, 1]).unwrap();
    let result = infer_elementwise_binary_op_shape("add", &lhs, &f32(&[2, 3]), &[]).unwrap();
    assert_eq!(result.to_string(), "f32[2,3]{1,0}");
}

#[test]
fn dynamic_dimensions_follow_xla() {
    let bounded = |dims: &[i64]| {
        let dynamic: Vec<bool> = dims.iter().map(|_| true).collect();
        make_validated_shape(PrimitiveType::F32, dims, &dynamic).unwrap()
    };
    let unbounded = f32(&[UNBOUNDED_SIZE]);
    // <=2 against ? gives <=2 (the other side's size and flag).
    assert_eq!(add(&bounded(&[2]), &unbounded, &[]), "f32[<=2]");
    assert_eq!(add(&unbounded, &bounded(&[2]), &[]), "f32[<=2]");
    assert_eq!(add(&unbounded, &f32(&[5]), &[]), "f32[5]");
    assert_eq!(add(&unbounded, &f32(&[1]), &[]), "f32[?]");
    assert_eq!(add(&f32(&[1]), &unbounded, &[]), "f32[?]");
    assert_eq!(add(&unbounded, &unbounded, &[]), "f32[?]");
    assert_eq!(add(&bounded(&[1]), &f32(&[4]), &[]), "f32[4]");
    assert_eq!(add(&bounded(&[3]), &f32(&[3]), &[]), "f32[<=3]");
    // `?` is not special in InDim broadcasting.
    assert_eq!(
        add(&f32(&[2]), &f32(&[UNBOUNDED_SIZE, 3]), &[0]),
        format!("Broadcast dimension 0 mismatch: 2 != {UNBOUNDED_SIZE}; f32[2] and f32[?,3].")
    );
    assert_eq!(
        add(&bounded(&[1]), &f32(&[2, 4]), &[1]),
        "Broadcast dimension 0 dynamism mismatch: f32[<=1] and f32[2,4]."
    );
    assert_eq!(add(&bounded(&[4]), &f32(&[2, 4]), &[1]), "f32[2,<=4]");
    assert_eq!(add(&f32(&[1]), &bounded(&[2, 4]), &[1]), "f32[<=2,<=4]");
}

#[test]
fn broadcast_in_dim_checks() {
    let err = |operand: &Shape, output: &Shape, bdims: &[i64]| {
        infer_broadcast_in_dim_shape(operand, output, bdims)
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        infer_broadcast_in_dim_shape(&f32(&[1, 3]), &f32(&[2, 5, 3]), &[0, 2])
            .unwrap()
            .human_string(),
        "f32[2,5,3]"
    );
    assert_eq!(
        err(&make_nil(), &f32(&[2]), &[]),
        "Expected array argument for operand of broadcast, but got ()."
    );
    assert_eq!(
        err(&f32(&[2, 3]), &f32(&[3]), &[0, 1]),
        "InDim style broadcast must be to an equal or higher ranked shape; operand rank: 2; \
         output rank: 1"
    );
    assert_eq!(
        err(&f32(&[3]), &f32(&[2, 3]), &[]),
        "Size of broadcast_dimensions has to match operand's rank; operand rank: 1, size of \
         broadcast_dimensions 0."
    );
    assert_eq!(
        err(&f32(&[3]), &f32(&[2, 3]), &[2]),
        "Broadcast dimension 2 is out of bound"
    );
    assert_eq!(
        err(&f32(&[3]), &f32(&[2, 3]), &[-1]),
        "Broadcast dimension -1 is out of bound"
    );
    assert_eq!(
        err(&f32(&[3, 3]), &f32(&[3, 3]), &[1, 0]),
        "Broadcast dimensions order is wrong: 0 comes after 1."
    );
    let bounded = make_validated_shape(PrimitiveType::F32, &[3], &[true]).unwrap();
    assert_eq!(
        err(&bounded, &f32(&[2, 3]), &[1]),
        "Broadcast input and output dynamism mismatch: f32[<=3] and f32[2,3]"
    );
    // An unbounded operand dimension is not checked.
    assert!(infer_broadcast_in_dim_shape(&f32(&[UNBOUNDED_SIZE]), &f32(&[2, 3]), &[1]).is_ok());
    assert!(infer_broadcast_in_dim_shape(&f32(&[3]), &f32(&[UNBOUNDED_SIZE, 3]), &[1]).is_err());
    assert!(
        infer_broadcast_in_dim_shape(
            &make_scalar_shape(PrimitiveType::F32).unwrap(),
            &f32(&[4]),
            &[]
        )
        .is_ok()
    );
}

#[test]
fn numpy_broadcasting() {
    let ok = |shapes: &[&[i64]]| numpy_broadcast_shapes(shapes).unwrap();
    // numpy's documentation examples.
    assert_eq!(ok(&[&[256, 256, 3], &[3]]), [256, 256, 3]);
    assert_eq!(ok(&[&[8, 1, 6, 1], &[7, 1, 5]]), [8, 7, 6, 5]);
    assert_eq!(ok(&[&[5, 4], &[1]]), [5, 4]);
    assert_eq!(ok(&[&[15, 3, 5], &[15, 1, 5]]), [15, 3, 5]);
    assert_eq!(ok(&[&[1, 2], &[3, 1], &[3, 2]]), [3, 2]);
    assert_eq!(ok(&[&[6, 7], &[5, 6, 1], &[7], &[5, 1, 7]]), [5, 6, 7]);
    assert_eq!(ok(&[]), Vec::<i64>::new());
    assert_eq!(ok(&[&[]]), Vec::<i64>::new());
    assert_eq!(ok(&[&[2, 0], &[1, 1]]), [2, 0]);
    let err = |shapes: &[&[i64]]| numpy_broadcast_shapes(shapes).unwrap_err().to_string();
    assert_eq!(
        err(&[&[3], &[4]]),
        "shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between \
         arg 0 with shape (3,) and arg 1 with shape (4,)."
    );
    // The first argument named is the one that set the size.
    assert_eq!(
        err(&[&[1], &[2], &[3]]),
        "shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between \
         arg 1 with shape (2,) and arg 2 with shape (3,)."
    );
    assert_eq!(err(&[&[2, -1]]), "negative dimensions are not allowed");
    assert_eq!(
        err(&[&[1 << 40], &[1 << 40, 1]]),
        "broadcast dimensions too large."
    );
    // numpy's texts name nothing; the variants carry the offending values.
    assert_eq!(
        numpy_broadcast_shapes(&[&[3], &[2, -1], &[-5]]).unwrap_err(),
        NumpyBroadcastError::NegativeDimension {
            arg: 1,
            shape: vec![2, -1]
        }
    );
    assert_eq!(
        numpy_broadcast_shapes(&[&[1 << 40], &[1 << 40, 1]]).unwrap_err(),
        NumpyBroadcastError::TooLarge {
            shape: vec![1 << 40, 1 << 40]
        }
    );
}
