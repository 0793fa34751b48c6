//! Regressions found by differential testing against real XLA (jaxlib
//! 0.10.2's `xla_client.Shape(text)`, XLA's `ParseShape`) on random shape
//! strings. XLA's parser records every error it meets, also those of the
//! lenient layout attributes it goes past, and reports them all when the
//! parse fails; a failure that adds no message of its own (an invalid
//! dimension size, a tuple element that fails validation, a buffer of a
//! non-array) is reported with the earlier ones. Ours is the first message
//! XLA printed for the input (as `was parsing L:C: error: <message>`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use schema::{ParseError, Shape};

/// The message of our error for `input`.
#[track_caller]
fn message(input: &str) -> String {
    match input.parse::<Shape>() {
        Ok(shape) => panic!("{input} parsed as {shape}"),
        Err(ParseError::Syntax { message, .. }) => message,
        Err(other) => panic!("{input}: {other}"),
    }
}

#[test]
fn a_tuple_element_failing_validation_reports_the_recorded_errors() {
    // XLA: `expecting an unsigned integer type` (the layout's `#(s32)`, which
    // XLA records but accepts in `f32[2]{0:#(s32)}` on its own).
    assert_eq!(
        message("(f32[2]{0:#(s32)})"),
        "expecting an unsigned integer type"
    );
    // XLA: `expects integer` (it tries an integer before `*`), once per `*`.
    assert_eq!(message("(f32[2]{0:T(*)*(u64)})"), "expects integer");
    assert_eq!(
        message("(f32[2]{0:T(*)}, f32[2]{0:T(0)})"),
        "expects integer"
    );
    // XLA: `expects element size in bits to end with kRparen`.
    assert_eq!(
        message("(f32[2]{0:E(4}, f32[2]{0:T(0)})"),
        "expects element size in bits to end with kRparen"
    );
    // XLA: `expects kOctothorp to be followed by kLparen`, then more.
    assert_eq!(
        message("(f32[2]{0:#s8}, f32[2]{0:T(0)})"),
        "expects kOctothorp to be followed by kLparen"
    );
    // XLA: `expects memory space to start with kLparen`.
    assert_eq!(
        message("(f32[2]{0:S}, f32[2]{0:T(0)})"),
        "expects memory space to start with kLparen"
    );
    // XLA: `expects integer` for the buffer of a token after a `T(*)`.
    assert_eq!(message("(f32[2]{0:T(*)}, b(token[]))"), "expects integer");
}

#[test]
fn the_dimension_list_is_read_before_sizes_are_checked() {
    // XLA: `expects integer` (at `x`), nothing about the -1.
    assert_eq!(message("f32[-1,x]"), "expects integer");
    // XLA: `expects a list to end with kRsquare`.
    assert_eq!(message("f32[-1"), "expects a list to end with kRsquare");
    // XLA: `expects integer`, recorded at the `*` before the invalid size.
    assert_eq!(message("(f32[2]{0:T(*)}, f32[-1])"), "expects integer");
}

#[test]
fn a_physical_shape_that_fails_is_kept_as_far_as_it_was_built() {
    // XLA: `Layout has physical shape, but is not for a sparse array:
    // {0:P(s32[2])}` (the sizes up to the invalid one).
    assert_eq!(
        message("f32[2]{0:P(s32[2,-1,3])}"),
        "Layout has physical shape, but is not for a sparse array: {0:P(s32[2])}"
    );
    // XLA records the length mismatch, and prints it first.
    assert_eq!(
        message("f32[2]{0:P(s32[2,3]{0})}"),
        "Dimensions size is 2, but minor to major size is 1."
    );
}

#[test]
fn attributes_need_the_colon() {
    // XLA: `expects layout to end with kRbrace` for both.
    assert_eq!(
        message("u16[16,64,8]{1,0,2M(0)}"),
        "expects layout to end with kRbrace"
    );
    assert_eq!(
        message("f32[2,3]{1,0PAD(3,5)}"),
        "expects layout to end with kRbrace"
    );
}

#[test]
fn a_failed_parse_reports_the_first_recorded_error() {
    // XLA: `expects integer` (the `*`), then `expects layout to end with kRbrace`.
    assert_eq!(message("f32[2]{0:T(*)Q}"), "expects integer");
    // XLA: `expecting an unsigned integer type`, then the length mismatch.
    assert_eq!(
        message("f64[3037000500,2,8,4]{2,1,0,3,4:#(u32)*(pred)M(8)}"),
        "expecting an unsigned integer type"
    );
    // XLA: `Extra content after shape` alone.
    let error = "f32[2]{0:#(s8)}x".parse::<Shape>().unwrap_err();
    assert!(matches!(error, ParseError::ExtraContent { .. }), "{error}");
}

#[test]
fn a_split_config_in_a_tuple_is_bounded_by_its_physical_dimension() {
    // Physical dimension 0 of {0,1} is logical dimension 1: XLA accepts
    // `(f32[2,5]{0,1:SC(0:3)})` and rejects `(f32[5,2]{0,1:SC(0:3)})` (with
    // a bare `Syntax error:`).
    let accepted: Shape = "(f32[2,5]{0,1:SC(0:3)})".parse().unwrap();
    assert_eq!(accepted.to_string(), "(f32[2,5]{0,1:SC(0:3)})");
    assert_eq!(
        message("(f32[5,2]{0,1:SC(0:3)})"),
        "split config split index is out of bounds: 3 (dim size 2); shape: f32[5,2]"
    );
}

#[test]
fn padding_keywords_without_a_parenthesis_are_xlas_unexpected_words() {
    // XLA (which has no PAD/PV): `expects layout to end with kRbrace`.
    assert_eq!(
        message("f32[8]{:T(256)PAD}"),
        "expects layout to end with kRbrace"
    );
    assert_eq!(
        message("u8[4]{0:S(1)SC(0:2)M(8)PV}"),
        "expects layout to end with kRbrace"
    );
    // With `(` they are the padded-layout extension.
    let padded: Shape = "f32[2,3]{1,0:PAD(3,5)PV(zero)}".parse().unwrap();
    assert_eq!(padded.to_string(), "f32[2,3]{1,0:PAD(3,5)PV(zero)}");
}
