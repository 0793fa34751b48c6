//! Regressions found by differential testing against real XLA (jaxlib
//! 0.10.2): random shape strings loaded as an HLO parameter, which runs
//! XLA's `ValidateLayoutForShape` (build-tools/gen_validation.py's path).
//! Each expected text is XLA's error message for the input.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use schema::Shape;

#[track_caller]
fn validation_error(text: &str) -> String {
    let shape: Shape = text.parse().unwrap();
    layout_util::validate_layout_in_shape(&shape, false)
        .unwrap_err()
        .to_string()
}

#[test]
fn split_indices_are_checked_one_at_a_time() {
    // 9 is out of bounds before 1 is out of order.
    assert_eq!(
        validation_error("s64[<=0,1]{0,1:SC(1:9,1)(1:3,6)}"),
        "split config split index is out of bounds: 9 (dim size 0); shape: s64[<=0,1]"
    );
    // Physical dimension 0 of {3,0,1,2} is logical dimension 2 (size 3).
    assert_eq!(
        validation_error("u8[<=8,3,3,?]{3,0,1,2:T(3,4)S(0)SC(0:3,9,7)}"),
        "split config split index is out of bounds: 3 (dim size 3); shape: u8[<=8,3,3,?]"
    );
    assert_eq!(
        validation_error("c64[1,1]{1,0:SC(1:5,3,5)(1:1,0,5)}"),
        "split config split index is out of bounds: 5 (dim size 1); shape: c64[1,1]"
    );
}
