//! Regressions found by differential testing against real XLA (jaxlib
//! 0.10.2): random shape strings loaded as an HLO parameter, which runs
//! XLA's `ValidateLayoutForShape` (build-tools/gen_validation.py's path).
//! Each expected text is XLA's error message for the input, read from the
//! golden rows the generator wrote.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use schema::Shape;

#[track_caller]
fn validation_error(text: &str) -> String {
    let shape: Shape = text.parse().unwrap();
    layout_util::validate_layout_in_shape(&shape, false)
        .unwrap_err()
        .to_string()
}

/// XLA's message for `input`, from the rows `build-tools/gen_validation.py`
/// wrote with real XLA (`tests/golden/validation.jsonl`).
fn xla_message(input: &str) -> String {
    let rows = conformance::load("validation.jsonl").unwrap();
    let row = rows
        .iter()
        .find(|r| conformance::field(r, "input") == Some(input))
        .unwrap_or_else(|| panic!("{input} is not in validation.jsonl"));
    conformance::field(row, "message").unwrap().to_owned()
}

#[test]
fn split_indices_are_checked_one_at_a_time() {
    for input in [
        // 9 is out of bounds before 1 is out of order.
        "s64[<=0,1]{0,1:SC(1:9,1)}",
        // Physical dimension 0 of {3,0,1,2} is logical dimension 2 (size 3).
        "u8[<=8,3,3,?]{3,0,1,2:SC(0:3,9,7)}",
        "c64[1,1]{1,0:SC(1:5,3,5)}",
    ] {
        assert_eq!(validation_error(input), xla_message(input), "{input}");
    }
}
