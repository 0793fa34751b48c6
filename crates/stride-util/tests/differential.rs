//! Regressions found by differential testing against numpy 2.4.6 (random
//! view chains compared with numpy's result or error). Each expected value
//! is what numpy gave for the expression in the comment.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use stride_util::{IndexItem, StridedView};

fn rm(sizes: &[i64]) -> StridedView {
    StridedView::row_major(sizes).unwrap()
}

#[track_caller]
fn error_starts_with<T: std::fmt::Debug>(result: Result<T, stride_util::ViewError>, numpy: &str) {
    let message = result.unwrap_err().to_string();
    assert!(message.starts_with(numpy), "{message:?} vs numpy {numpy:?}");
}

#[test]
fn axis_tuples_are_bounds_checked_before_repeats() {
    let a = rm(&[2, 1, 1]);
    // np.flip(np.zeros((2,1,1)), (1, 1, 7))
    error_starts_with(
        a.flip_axes(&[1, 1, 7]),
        "axis 7 is out of bounds for array of dimension 3",
    );
    // np.expand_dims(np.zeros((2,1,1)), (1, 1, 9))
    error_starts_with(
        a.expand_dims(&[1, 1, 9]),
        "axis 9 is out of bounds for array of dimension 6",
    );
    // np.moveaxis(np.zeros((2,1,1)), [0, 0, 9], [1, 2, 0])
    error_starts_with(
        a.moveaxis(&[0, 0, 9], &[1, 2, 0]),
        "source: axis 9 is out of bounds for array of dimension 3",
    );
}

#[test]
fn transpose_and_squeeze_check_axes_one_at_a_time() {
    let a = rm(&[2, 1, 1]);
    // np.zeros((2,1,1)).transpose(0, 0, 5)
    error_starts_with(a.permute(&[0, 0, 5]), "repeated axis in transpose");
    // np.squeeze(np.zeros((2,1,1)), (1, 1, 7))
    error_starts_with(a.squeeze_axes(&[1, 1, 7]), "duplicate value in 'axis'");
}

#[test]
fn broadcast_to_a_scalar_shape_is_numpys_scalar_error() {
    // np.broadcast_to(np.zeros(4), ()) and np.broadcast_to(np.zeros((1, 1)), ())
    error_starts_with(
        rm(&[4]).broadcast_to(&[]),
        "cannot broadcast a non-scalar to a scalar array",
    );
    error_starts_with(
        rm(&[1, 1]).broadcast_to(&[]),
        "cannot broadcast a non-scalar to a scalar array",
    );
    // np.broadcast_to(np.zeros(()), ()) is a 0-d view.
    assert_eq!(rm(&[]).broadcast_to(&[]).unwrap().sizes(), [] as [i64; 0]);
}

#[test]
fn a_result_has_at_most_64_dimensions() {
    let a = rm(&[2]);
    // np.arange(2).reshape((1,) * 64 + (2,), copy=False)
    error_starts_with(
        a.reshape(&[[1; 64].as_slice(), &[2]].concat()),
        "maximum supported dimension for an ndarray is currently 64, found 65",
    );
    // np.expand_dims(np.arange(2), tuple(range(64))): the axes are checked
    // first (`repeated axis` for tuple(range(64)) + (0,)).
    let axes: Vec<i64> = (0..64).collect();
    error_starts_with(
        a.expand_dims(&axes),
        "maximum supported dimension for an ndarray is currently 64, found 65",
    );
    error_starts_with(
        a.expand_dims(&[axes.as_slice(), &[0]].concat()),
        "repeated axis",
    );
    // np.broadcast_to(np.arange(2), (1,) * 64 + (2, 3)): after the sizes'
    // signs, before the shapes are compared.
    error_starts_with(
        a.broadcast_to(&[[1; 64].as_slice(), &[2, 3]].concat()),
        "maximum supported dimension for an ndarray is currently 64, found 66",
    );
    // np.arange(2)[(None,) * 65 + (5,)]: before the bounds.
    let mut items = vec![IndexItem::NewAxis; 65];
    items.push(IndexItem::Index(5));
    error_starts_with(
        a.index(&items),
        "number of dimensions must be within [0, 64], indexing result would have 65",
    );
    // np.arange(2)[(None,) * 64 + (0,)] has 64 dimensions.
    let mut items = vec![IndexItem::NewAxis; 64];
    items.push(IndexItem::Index(0));
    assert_eq!(a.index(&items).unwrap().ndim(), 64);
}

#[test]
fn as_strided_has_at_most_64_dimensions() {
    // as_strided(np.zeros(5), shape=(1,)*65, strides=(8,)*64): the rank is
    // checked before the strides' count.
    let message = StridedView::as_strided(5, &[1; 65], &[1; 64], 0)
        .unwrap_err()
        .to_string();
    assert_eq!(
        message,
        "number of dimensions must be within [0, 64], got 65"
    );
    assert!(StridedView::as_strided(5, &[1; 64], &[1; 64], 0).is_ok());
}
