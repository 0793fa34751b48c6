//! XLA's `ShapeInference::InferBinaryOpShape` for the elementwise opcodes:
//! the checks an opcode makes of its operands' element types, around
//! [`infer_elementwise_binary_op_shape`], and `complex`'s result type. This
//! is the inference XLA's HLO parser runs for `add(p0, p1)` written without
//! a result shape.

use schema::{PrimitiveType, Shape};

use crate::broadcast::{BroadcastError, expect_array, infer_elementwise_binary_op_shape};
use crate::kind::{element_type, proto_type_name};

/// The result shape of the binary HLO instruction `opcode` (XLA's opcode
/// name: `add`, `subtract`, `shift-left`, `and`, `complex`, ...) on `lhs`
/// and `rhs`, as XLA's `InferBinaryOpShape`:
///
/// - both operands must be arrays (`Expected array argument for lhs of
///   binary operation add, but got (f32[]).`);
/// - `subtract`, `divide`, `remainder`, `power`, `atan2` and the shifts
///   reject `pred` operands; `and`, `or` and `xor` need a `pred` or integer
///   `lhs`; `complex` needs a floating-point `lhs`;
/// - then [`infer_elementwise_binary_op_shape`];
/// - `complex` of two `f32` gives `c64`, of two `f64` `c128`; other
///   floating-point pairs are not implemented.
///
/// Other opcodes get [`infer_elementwise_binary_op_shape`] alone.
///
/// # Errors
///
/// The messages above, then those of [`infer_elementwise_binary_op_shape`].
///
/// ```
/// use schema::Shape;
/// use shape_util::infer_binary_op_shape;
/// let shape = |text: &str| text.parse::<Shape>().unwrap();
/// let result = infer_binary_op_shape("complex", &shape("f32[2,3]{0,1}"), &shape("f32[2,3]"), &[]);
/// assert_eq!(result.unwrap().to_string(), "c64[2,3]{0,1}");
/// // Real XLA (jaxlib 0.10.2) on `subtract(f32[], pred[])`:
/// assert_eq!(
///     infer_binary_op_shape("subtract", &shape("f32[]"), &shape("pred[]"), &[]).unwrap_err().to_string(),
///     "Expected element type in shape to be arithmetic type for operation subtract; got PRED.",
/// );
/// assert!(infer_binary_op_shape("add", &shape("pred[]"), &shape("pred[]"), &[]).is_ok());
/// ```
pub fn infer_binary_op_shape(
    opcode: &str,
    lhs: &Shape,
    rhs: &Shape,
    broadcast_dimensions: &[i64],
) -> Result<Shape, BroadcastError> {
    expect_array(lhs, &format!("lhs of binary operation {opcode}"))?;
    expect_array(rhs, &format!("rhs of binary operation {opcode}"))?;
    let lhs_type = element_type(lhs).unwrap_or_default();
    let rhs_type = element_type(rhs).unwrap_or_default();
    let pred = PrimitiveType::Pred;
    match opcode {
        "subtract"
        | "divide"
        | "remainder"
        | "power"
        | "atan2"
        | "shift-left"
        | "shift-right-logical"
        | "shift-right-arithmetic"
            if lhs_type == pred || rhs_type == pred =>
        {
            Err(BroadcastError::NotArithmetic {
                op: opcode.to_owned(),
                element_type: proto_type_name(pred as i32),
            })
        }
        "and" | "or" | "xor" if !(lhs_type == pred || lhs_type.is_integral()) => {
            Err(BroadcastError::NotPredOrIntegral {
                element_type: proto_type_name(lhs.element_type),
            })
        }
        "complex" => {
            if !lhs_type.is_floating_point() {
                return Err(BroadcastError::ComplexComponentNotFloating {
                    element_type: proto_type_name(lhs.element_type),
                });
            }
            let shape = infer_elementwise_binary_op_shape(opcode, lhs, rhs, broadcast_dimensions)?;
            let complex = match (lhs_type, rhs_type) {
                (PrimitiveType::F32, PrimitiveType::F32) => PrimitiveType::C64,
                (PrimitiveType::F64, PrimitiveType::F64) => PrimitiveType::C128,
                _ => return Err(BroadcastError::ComplexComponentUnimplemented),
            };
            Ok(crate::change_element_type(&shape, complex)?)
        }
        _ => infer_elementwise_binary_op_shape(opcode, lhs, rhs, broadcast_dimensions),
    }
}
