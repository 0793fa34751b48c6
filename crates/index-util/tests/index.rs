//! Index conversion, strides, bounds, comparison and bumping, with values
//! from spec §6 (XLA's `index_util_test.cc`), spec §2 and the seeds.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use index_util::{
    IndexError, PhysicalLayout, bump_indices, compare_indices, dimension_stride, dimension_strides,
    index_in_bounds, linear_index_to_multidimensional_index,
    multidimensional_index_to_linear_index,
};
use layout_util::LayoutError;
use schema::Shape;

fn shape(text: &str) -> Shape {
    text.parse().unwrap()
}

fn linear(text: &str, index: &[i64]) -> Result<i64, IndexError> {
    multidimensional_index_to_linear_index(&shape(text), index)
}

fn multi(text: &str, linear: i64) -> Result<Vec<i64>, IndexError> {
    linear_index_to_multidimensional_index(&shape(text), linear)
}

#[test]
fn xla_matrix_examples() {
    // IndexUtilTest.MatrixIndexingRowMajor/ColumnMajor (note: XLA's "row
    // major" test uses {0,1}, which is column-major).
    assert_eq!(linear("f32[10,20]{0,1}", &[0, 0]).unwrap(), 0);
    assert_eq!(linear("f32[10,20]{0,1}", &[9, 19]).unwrap(), 199);
    assert_eq!(linear("f32[10,20]{0,1}", &[3, 5]).unwrap(), 53);
    assert_eq!(linear("f32[10,20]{1,0}", &[3, 5]).unwrap(), 65);
    assert_eq!(linear("f32[10,20]{1,0}", &[9, 19]).unwrap(), 199);
    assert_eq!(multi("f32[10,20]{0,1}", 53).unwrap(), [3, 5]);
    assert_eq!(multi("f32[10,20]{1,0}", 65).unwrap(), [3, 5]);
}

#[test]
fn xla_rank4_and_scalar_examples() {
    // IndexUtilTest.VectorIndexing / scalar: rank 1 is the identity, rank 0 is 0.
    assert_eq!(linear("f32[100]{0}", &[42]).unwrap(), 42);
    assert_eq!(multi("f32[100]{0}", 42).unwrap(), [42]);
    assert_eq!(linear("f32[]", &[]).unwrap(), 0);
    assert_eq!(multi("f32[]", 0).unwrap(), Vec::<i64>::new());
    // f32[10,20,30,40] with layout {0,1,2,3} (dim 0 minor) and {3,2,1,0}.
    assert_eq!(
        linear("f32[10,20,30,40]{0,1,2,3}", &[3, 5, 7, 9]).unwrap(),
        3 + 5 * 10 + 7 * 200 + 9 * 6000
    );
    assert_eq!(
        linear("f32[10,20,30,40]{3,2,1,0}", &[3, 5, 7, 9]).unwrap(),
        3 * 24000 + 5 * 1200 + 7 * 40 + 9
    );
    // A non-monotonic layout: {1,3,0,2} on f32[4,5,6,7].
    // strides: dim1 = 1, dim3 = 5, dim0 = 35, dim2 = 140.
    assert_eq!(
        dimension_strides(&shape("f32[4,5,6,7]{1,3,0,2}")).unwrap(),
        [35, 1, 140, 5]
    );
    assert_eq!(
        linear("f32[4,5,6,7]{1,3,0,2}", &[1, 2, 3, 4]).unwrap(),
        35 + 2 + 420 + 20
    );
    assert_eq!(multi("f32[4,5,6,7]{1,3,0,2}", 477).unwrap(), [1, 2, 3, 4]);
}

#[test]
fn dimension_stride_examples() {
    // Spec §6: F32[5,8,10,4]{3,2,1,0}, d=1 -> 40.
    let s = shape("f32[5,8,10,4]{3,2,1,0}");
    assert_eq!(dimension_stride(&s, 1).unwrap(), 40);
    assert_eq!(dimension_stride(&s, 0).unwrap(), 320);
    assert_eq!(dimension_stride(&s, 3).unwrap(), 1);
    assert_eq!(
        dimension_stride(&s, 4),
        Err(IndexError::DimensionOutOfRange {
            dimension: 4,
            rank: 4
        })
    );
    // Zero-size dims give zero strides to the more major dims, as in XLA.
    assert_eq!(
        dimension_strides(&shape("f32[3,0,2]{2,1,0}")).unwrap(),
        [0, 2, 1]
    );
    assert_eq!(
        dimension_strides(&shape("f32[]")).unwrap(),
        Vec::<i64>::new()
    );
}

#[test]
fn padded_strides_and_indices() {
    // Spec §2: f32[10,20] padded to [15,21] is 1260 bytes, 315 elements;
    // strides use the padded extents.
    let row_major = PhysicalLayout::new(&shape("f32[10,20]{1,0:PAD(15,21)}")).unwrap();
    assert_eq!(row_major.padded_element_count() * 4, 1260);
    assert_eq!(row_major.strides(), [21, 1]);
    assert_eq!(row_major.padded_dimensions(), [15, 21]);
    assert_eq!(row_major.dimensions(), [10, 20]);
    assert_eq!(row_major.linear_index(&[9, 19]).unwrap(), 9 * 21 + 19);
    assert_eq!(
        row_major.multidimensional_index(9 * 21 + 19).unwrap(),
        [9, 19]
    );
    // Seeds: [2 x 3] padded to [3, 5], column-major: a d 0 b e 0 c f 0 0 0 0 0 0 0.
    let seed = "f32[2,3]{0,1:PAD(3,5)}";
    let letters = [
        [0, 0],
        [1, 0],
        [3, 3],
        [0, 1],
        [1, 1],
        [3, 3],
        [0, 2],
        [1, 2],
    ];
    for (lin, expected) in (0_i64..).zip(&letters) {
        if expected[0] == 3 {
            assert_eq!(
                multi(seed, lin),
                Err(IndexError::LinearIndexInPadding {
                    linear: lin,
                    dimension: 0,
                    index: 2,
                    size: 2
                })
            );
        } else {
            assert_eq!(multi(seed, lin).unwrap(), expected);
            assert_eq!(linear(seed, expected).unwrap(), lin);
        }
    }
    // Linear 8..15 are in the padded dimension 1 (index 3 or 4 >= 3), except
    // the ones that first land in dimension 0's padding.
    assert_eq!(
        multi(seed, 9).unwrap_err().to_string(),
        "linear index 9 falls in the padding: its index in dimension 1 is 3, but the dimension size is 3"
    );
    assert_eq!(
        multi(seed, 15).unwrap_err().to_string(),
        "linear index 15 is out of bounds for a buffer of 15 elements"
    );
}

#[test]
fn checked_conversion_errors() {
    assert_eq!(
        linear("f32[2,3]{1,0}", &[1]).unwrap_err().to_string(),
        "index has 1 elements, but shape has 2 dimensions"
    );
    assert_eq!(
        linear("f32[2,3]{1,0}", &[1, 3]).unwrap_err().to_string(),
        "index {1, 3} is out of bounds in dimension 1 (size 3)"
    );
    assert!(matches!(
        linear("f32[2,3]{1,0}", &[-1, 0]),
        Err(IndexError::IndexOutOfBounds { dimension: 0, .. })
    ));
    assert!(matches!(
        multi("f32[2,3]{1,0}", -1),
        Err(IndexError::LinearIndexOutOfBounds {
            linear: -1,
            size: 6
        })
    ));
    assert!(matches!(
        linear("f32[0,3]{1,0}", &[0, 0]),
        Err(IndexError::IndexOutOfBounds { .. })
    ));
    assert!(matches!(
        multi("f32[0,3]{1,0}", 0),
        Err(IndexError::LinearIndexOutOfBounds { linear: 0, size: 0 })
    ));
    let mut into = [0; 3];
    assert!(matches!(
        PhysicalLayout::new(&shape("f32[2,3]{1,0}"))
            .unwrap()
            .multidimensional_index_into(0, &mut into),
        Err(IndexError::RankMismatch { len: 3, rank: 2 })
    ));
}

#[test]
fn shapes_that_cannot_be_indexed() {
    assert_eq!(
        linear("(f32[2]{0})", &[0]).unwrap_err().to_string(),
        "shape (f32[2]) is not an array"
    );
    assert!(matches!(
        linear("token[]", &[]),
        Err(IndexError::NotAnArray { .. })
    ));
    let mut bare = shape("f32[2,3]");
    bare.layout = None;
    assert_eq!(
        multidimensional_index_to_linear_index(&bare, &[0, 0]),
        Err(IndexError::Layout(LayoutError::MissingLayout {
            shape: Box::new(bare.clone())
        }))
    );
    assert_eq!(
        linear("f32[2,3]{1,1}", &[0, 0]).unwrap_err().to_string(),
        "layout minor_to_major field has duplicate values: {1, 1}; shape: f32[2,3]"
    );
    assert_eq!(
        linear("f32[2,3]{1,0:PAD(1,3)}", &[0, 0])
            .unwrap_err()
            .to_string(),
        "for dimension 0, dimension padding (1) is smaller than the dimension size (2) of the shape"
    );
    assert_eq!(
        linear("f32[?,3]{1,0}", &[0, 0]).unwrap_err().to_string(),
        format!("dimension 0 of shape f32[?,3] has no size: {}", i64::MIN)
    );
    // Bounded dynamic dimensions index within the bound.
    assert_eq!(linear("f32[<=4,3]{1,0}", &[3, 2]).unwrap(), 11);
    assert_eq!(
        linear("f32[4294967296,4294967296]{1,0}", &[0, 0])
            .unwrap_err()
            .to_string(),
        "the buffer of shape f32[4294967296,4294967296] (padding and tiles included) has more than i64::MAX elements"
    );
}

#[test]
fn unchecked_matches_checked_on_valid_indices() {
    let layout = PhysicalLayout::new(&shape("f32[3,4,5]{0,2,1:PAD(4,4,7)}")).unwrap();
    for i in 0..3 {
        for j in 0..4 {
            for k in 0..5 {
                let index = [i, j, k];
                assert_eq!(
                    layout.linear_index_unchecked(&index),
                    layout.linear_index(&index).unwrap()
                );
            }
        }
    }
    assert_eq!(layout.minor_to_major(), [0, 2, 1]);
    assert_eq!(layout.rank(), 3);
}

#[test]
fn index_in_bounds_rejects_negative_and_wrong_rank() {
    let s = shape("f32[2,3]{1,0}");
    assert!(index_in_bounds(&s, &[0, 0]));
    assert!(index_in_bounds(&s, &[1, 2]));
    assert!(!index_in_bounds(&s, &[2, 2]));
    assert!(!index_in_bounds(&s, &[1, 3]));
    assert!(!index_in_bounds(&s, &[0, -1]));
    assert!(!index_in_bounds(&s, &[0, 0, 0]));
    assert!(index_in_bounds(&shape("f32[]"), &[]));
    assert!(!index_in_bounds(&shape("f32[0]"), &[0]));
    assert!(!index_in_bounds(&shape("(f32[2])"), &[0]));
}

#[test]
fn compare_indices_uses_xla_sign_convention() {
    assert_eq!(compare_indices(&[], &[]).unwrap(), 0);
    assert_eq!(compare_indices(&[1, 2, 3], &[1, 2, 4]).unwrap(), -1);
    assert_eq!(compare_indices(&[1, 3, 0], &[1, 2, 9]).unwrap(), 1);
    assert_eq!(compare_indices(&[-1], &[0]).unwrap(), -1);
    assert_eq!(
        compare_indices(&[1], &[1, 2]).unwrap_err().to_string(),
        "indices have different lengths: 1 vs 2"
    );
}

#[test]
fn bump_indices_is_a_row_major_odometer_ignoring_layout() {
    // The layout {0,1} does not change the order.
    let s = shape("f32[2,3]{0,1}");
    let mut index = [0, 0];
    let mut seen = vec![index];
    while bump_indices(&s, &mut index).unwrap() {
        seen.push(index);
    }
    assert_eq!(seen, [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]);
    assert_eq!(index, [1, 2]);
    let mut scalar: [i64; 0] = [];
    assert!(!bump_indices(&shape("f32[]"), &mut scalar).unwrap());
    assert_eq!(
        bump_indices(&s, &mut [0]).unwrap_err(),
        IndexError::RankMismatch { len: 1, rank: 2 }
    );
}
