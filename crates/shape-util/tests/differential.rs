//! Regressions found by differential testing against real XLA (jaxlib
//! 0.10.2): random shape strings loaded as an HLO parameter, which runs
//! XLA's shape validation (build-tools/gen_validation.py's path).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use schema::Shape;
use shape_util::validate_shape;

fn validate(text: &str) -> Result<(), String> {
    let shape: Shape = text.parse().unwrap();
    validate_shape(&shape).map_err(|error| error.to_string())
}

#[test]
fn a_zero_size_counts_before_the_byte_width() {
    // XLA accepts both: the element count is 0 before it is multiplied by
    // the byte width.
    assert_eq!(validate("(s64[<=4611686018427387904,0,2])"), Ok(()));
    assert_eq!(validate("f32[0,4611686018427387904]"), Ok(()));
    // XLA: the split config is the error, not the size.
    assert_eq!(
        validate(
            "c64[9223372036854775807,0,0,0,?,4611686018427387904]{5,0,2,4,3,1:SC(6:4)(2:0,8,0)}"
        ),
        Err("split config has out-of-bounds physical dimension: 6; shape: c64[9223372036854775807,0,0,0,?,4611686018427387904]".to_owned())
    );
}

/// numpy 2.4.6's `np.broadcast_shapes(*shapes)`, as our result or error text.
fn numpy(shapes: &[Vec<i64>]) -> Result<Vec<i64>, String> {
    let shapes: Vec<&[i64]> = shapes.iter().map(Vec::as_slice).collect();
    shape_util::numpy_broadcast_shapes(&shapes).map_err(|error| error.to_string())
}

#[test]
fn numpy_limits_dimensions_to_64_per_array_and_32_per_broadcast() {
    // np.broadcast_shapes((1,) * 65, (-1,))
    assert_eq!(
        numpy(&[vec![1; 65], vec![-1]]),
        Err("maximum supported dimension for an ndarray is currently 64, found 65".to_owned())
    );
    // np.broadcast_shapes((-1,), (1,) * 65): the arrays are made in order.
    assert_eq!(
        numpy(&[vec![-1], vec![1; 65]]),
        Err("negative dimensions are not allowed".to_owned())
    );
    // np.broadcast_shapes((1,) * 64) and ((2,), (3,), (1,) * 33): a
    // RuntimeError, before any mismatch.
    assert_eq!(
        numpy(&[vec![1; 64]]),
        Err("this function only supports up to 32 dimensions but the array has 64.".to_owned())
    );
    assert_eq!(
        numpy(&[vec![2], vec![3], vec![1; 33]]),
        Err("this function only supports up to 32 dimensions but the array has 33.".to_owned())
    );
    assert_eq!(numpy(&vec![vec![1; 32]; 3]), Ok(vec![1; 32]));
}

#[test]
fn numpy_broadcasts_more_than_64_shapes_in_groups() {
    // np.broadcast_shapes(*[(1,)] * 64, (2,), (3,)): the second group is
    // (the shape so far, (2,), (3,)).
    let mut shapes = vec![vec![1]; 64];
    shapes.extend([vec![2], vec![3]]);
    assert_eq!(
        numpy(&shapes),
        Err("shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between arg 1 with shape (2,) and arg 2 with shape (3,).".to_owned())
    );
    // np.broadcast_shapes(*[(2, 1)] * 3, *[(1,)] * 66, (2, 3), (4, 1)):
    // argument 0 of the second group is the shape so far, (2, 1).
    let mut shapes = vec![vec![2, 1]; 3];
    shapes.extend(vec![vec![1]; 66]);
    shapes.extend([vec![2, 3], vec![4, 1]]);
    assert_eq!(
        numpy(&shapes),
        Err("shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between arg 0 with shape (2, 1) and arg 7 with shape (4, 1).".to_owned())
    );
    assert_eq!(numpy(&vec![vec![1]; 100]), Ok(vec![1]));
}
