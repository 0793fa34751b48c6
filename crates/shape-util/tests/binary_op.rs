//! `infer_binary_op_shape` against real XLA (jaxlib 0.10.2): each case is
//! an HLO module `ROOT r = <opcode>(p0, p1)` written without a result
//! shape, which XLA's HLO parser infers with `InferBinaryOpShape`; the
//! expected value is the shape XLA printed or the error after `error: `.
//! Found by differential testing on random operand pairs.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use schema::Shape;
use shape_util::infer_binary_op_shape;

#[track_caller]
fn infer(opcode: &str, lhs: &str, rhs: &str) -> Result<String, String> {
    let lhs: Shape = lhs.parse().unwrap();
    let rhs: Shape = rhs.parse().unwrap();
    infer_binary_op_shape(opcode, &lhs, &rhs, &[])
        .map(|shape| shape.to_string())
        .map_err(|error| error.to_string())
}

#[test]
fn arithmetic_opcodes_reject_pred_operands() {
    for opcode in [
        "subtract",
        "divide",
        "remainder",
        "power",
        "atan2",
        "shift-left",
        "shift-right-logical",
        "shift-right-arithmetic",
    ] {
        assert_eq!(
            infer(opcode, "f32[]", "pred[]"),
            Err(format!(
                "Expected element type in shape to be arithmetic type for operation {opcode}; got PRED."
            ))
        );
    }
    // Before the element types are compared: subtract(pred[1,1,0,0], u8[1,5,0,5]).
    assert_eq!(
        infer("subtract", "pred[1,1,0,0]", "u8[1,5,0,5]"),
        Err("Expected element type in shape to be arithmetic type for operation subtract; got PRED.".to_owned())
    );
    // add, multiply, maximum and minimum take pred.
    for opcode in ["add", "multiply", "maximum", "minimum"] {
        assert_eq!(
            infer(opcode, "pred[4,5,4]", "pred[1,1,4]"),
            Ok("pred[4,5,4]{2,1,0}".to_owned())
        );
    }
    // The shifts take floating point.
    assert_eq!(
        infer("shift-left", "f32[2]", "f32[2]"),
        Ok("f32[2]{0}".to_owned())
    );
}

#[test]
fn bitwise_opcodes_need_a_pred_or_integer_lhs() {
    // xor(f16[2], s8[1]{0}): the lhs check comes before the type comparison.
    assert_eq!(
        infer("xor", "f16[2]", "s8[1]{0}"),
        Err("Expected pred or integral type in argument to and/or operation; got F16.".to_owned())
    );
    assert_eq!(
        infer("and", "pred[]", "f32[]"),
        Err("Binary op and with different element types: pred[] and f32[].".to_owned())
    );
    assert_eq!(infer("or", "s4[3]", "s4[1]"), Ok("s4[3]{0}".to_owned()));
}

#[test]
fn complex_composes_f32_and_f64_pairs() {
    assert_eq!(
        infer("complex", "f32[2,3]{0,1}", "f32[2,3]"),
        Ok("c64[2,3]{0,1}".to_owned())
    );
    assert_eq!(
        infer("complex", "f32[]", "f32[5]{0}"),
        Ok("c64[5]{0}".to_owned())
    );
    assert_eq!(
        infer("complex", "f64[<=2]", "f64[2]"),
        Ok("c128[<=2]{0}".to_owned())
    );
    assert_eq!(
        infer("complex", "bf16[2]", "bf16[2]"),
        Err("Complex component type is not implemented.".to_owned())
    );
    assert_eq!(
        infer("complex", "f16[2]", "f32[2]"),
        Err("Complex component type is not implemented.".to_owned())
    );
    // Shape inference runs before the component types are looked at.
    assert_eq!(
        infer("complex", "f32[2]", "f32[3]"),
        Err("Binary op with incompatible shapes: f32[2] and f32[3].".to_owned())
    );
    assert_eq!(
        infer("complex", "c64[]", "f32[]"),
        Err(
            "Expected element type in shape to be floating for complex compose operation; got C64."
                .to_owned()
        )
    );
}

#[test]
fn non_array_operands_name_the_binary_operation() {
    assert_eq!(
        infer("add", "(f32[])", "f32[]"),
        Err("Expected array argument for lhs of binary operation add, but got (f32[]).".to_owned())
    );
    assert_eq!(
        infer("subtract", "pred[]", "(f32[])"),
        Err(
            "Expected array argument for rhs of binary operation subtract, but got (f32[])."
                .to_owned()
        )
    );
    assert_eq!(
        infer("add", "opaque[]", "f32[]"),
        Err(
            "Expected array argument for lhs of binary operation add, but got opaque[].".to_owned()
        )
    );
}
