//! Whether an instruction may write its output into the buffer of an
//! operand that dies there (`CanShareOperandBufferWithUser`): the same
//! shape, and the user reads each element before it writes it (an
//! elementwise operation, a loop fusion whose parameter feeds only
//! elementwise operations) or updates the operand in place.

use std::collections::HashSet;

use super::dataflow::sub_shape;
use super::graph::{Graph, Inst};
use super::in_place::in_place_pairs;

/// Opcodes that compute each output element from the same element of
/// their operands.
const ELEMENTWISE: &[&str] = &[
    "abs",
    "add",
    "and",
    "atan2",
    "bitcast-convert",
    "cbrt",
    "ceil",
    "clamp",
    "compare",
    "complex",
    "convert",
    "cosine",
    "count-leading-zeros",
    "divide",
    "erf",
    "exponential",
    "exponential-minus-one",
    "floor",
    "imag",
    "is-finite",
    "log",
    "log-plus-one",
    "logistic",
    "map",
    "maximum",
    "minimum",
    "multiply",
    "negate",
    "not",
    "or",
    "popcnt",
    "power",
    "real",
    "reduce-precision",
    "remainder",
    "round-nearest-afz",
    "round-nearest-even",
    "rsqrt",
    "select",
    "shift-left",
    "shift-right-arithmetic",
    "shift-right-logical",
    "sign",
    "sine",
    "sqrt",
    "stochastic-convert",
    "subtract",
    "tan",
    "tanh",
    "xor",
];

fn elementwise(opcode: &str) -> bool {
    ELEMENTWISE.contains(&opcode)
}

/// Whether `user`'s output at `user_index` may take the buffer of its
/// operand `operand` (an operand number) at `operand_index`.
pub(crate) fn can_share(
    graph: &Graph,
    user: &Inst,
    user_index: &[usize],
    operand: usize,
    operand_index: &[usize],
) -> bool {
    let Some(operand_inst) = graph
        .operands(user)
        .get(operand)
        .and_then(|&o| graph.insts.get(o))
    else {
        return false;
    };
    if graph.opcode(user) == "copy" || graph.opcode(operand_inst) == "constant" {
        return false;
    }
    let same = sub_shape(graph.shape(user), user_index)
        .zip(sub_shape(graph.shape(operand_inst), operand_index))
        .is_some_and(|(a, b)| a == b);
    if !same {
        return false;
    }
    let in_place = in_place_pairs(graph, user);
    if in_place
        .iter()
        .any(|(out, o, oi)| out == user_index && *o == operand && oi == operand_index)
    {
        return true;
    }
    match graph.opcode(user) {
        "fusion" => {
            user.loop_fusion && in_place.is_empty() && fused_elementwise(graph, user, operand)
        }
        // A sort writes each sorted operand over itself, if nothing else
        // reads it.
        "sort" => {
            operand_inst.users() == 1
                && (graph.operands(user).len() == 1 || user_index.first() == Some(&operand))
        }
        "dynamic-update-slice" | "scatter" | "custom-call" => false,
        opcode => elementwise(opcode),
    }
}

/// Whether every use of the fusion's parameter `number`, and their uses in
/// turn, is elementwise (or a tuple): one pass over the body, whose text
/// lists each instruction after its operands.
fn fused_elementwise(graph: &Graph, fusion: &Inst, number: usize) -> bool {
    let Some(body) = graph
        .called(fusion)
        .first()
        .and_then(|&c| graph.comps.get(c))
    else {
        return false;
    };
    let Some(&param) = body.parameters.get(number) else {
        return false;
    };
    let mut reached = HashSet::from([param]);
    for i in body.instructions() {
        let Some(inst) = graph.insts.get(i) else {
            continue;
        };
        if graph.operands(inst).iter().any(|o| reached.contains(o)) {
            if !(elementwise(graph.opcode(inst)) || graph.opcode(inst) == "tuple") {
                return false;
            }
            reached.insert(i);
        }
    }
    true
}
