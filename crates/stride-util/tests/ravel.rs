//! numpy's `ravel` refused where numpy copies: the error's text, which is
//! ours. Where numpy returns a view and where it copies, in every order,
//! is checked against numpy's own answers in the views golden test
//! (`tests/views.rs`, the `ravel` steps of `tests/golden/views.jsonl`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use stride_util::NumpyOrder::C;
use stride_util::StridedView;

/// A reversed vector reshapes to itself (a view) but ravels to a copy;
/// the refusal names the order, the shape and the strides (our text).
#[test]
fn orders_pad_as_one_word() {
    assert_eq!(format!("{:>10}|", stride_util::Order::F), "         F|");
    assert_eq!(format!("{:<3}|", stride_util::NumpyOrder::K), "K  |");
    assert_eq!(format!("{C:^3}|"), " C |");
}

#[test]
fn ravel_copies_what_reshape_views() {
    let reversed = StridedView::new(&[6], &[-1], 5).unwrap();
    assert_eq!(reversed.reshape(&[-1]).unwrap().strides(), [-1]);
    assert_eq!(
        reversed.ravel(C).unwrap_err().to_string(),
        "ravel(order='C') of shape (6,) with strides (-1,) needs a copy \
         (numpy returns a copy, not a view)"
    );
}
