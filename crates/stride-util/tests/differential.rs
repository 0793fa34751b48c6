//! Regressions found by differential testing against numpy 2.4.6 (random
//! view chains compared with numpy's result or error). Each expected value
//! is what numpy gave for the expression in the comment.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use stride_util::StridedView;

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
