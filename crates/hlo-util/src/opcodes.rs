//! The opcodes XLA's HLO parser knows.

/// Every opcode the HLO parser of XLA 0.12 (jaxlib 0.12.0.1) accepts, in
/// sorted order, less the async forms [`is_opcode`] accepts by rule
/// (`all-reduce-start` is `all-reduce` and `-start`). Found by offering
/// XLA's parser each word in jaxlib's library and keeping those it reads as
/// an opcode (`build-tools/gen_hlo_opcodes.py`).
pub const OPCODES: &[&str] = &[
    "abs",
    "acos",
    "acosh",
    "add",
    "add-dependency",
    "after-all",
    "all-gather",
    "all-reduce",
    "all-to-all",
    "and",
    "asin",
    "asinh",
    "async-done",
    "async-start",
    "async-update",
    "atan2",
    "atanh",
    "batch-norm-grad",
    "batch-norm-inference",
    "batch-norm-training",
    "bitcast",
    "bitcast-convert",
    "broadcast",
    "call",
    "cbrt",
    "ceil",
    "cholesky",
    "clamp",
    "collective-broadcast",
    "collective-permute",
    "collective-reduce",
    "compare",
    "complex",
    "concatenate",
    "conditional",
    "constant",
    "convert",
    "convolution",
    "copy",
    "cosh",
    "cosine",
    "count-leading-zeros",
    "custom-call",
    "divide",
    "domain",
    "dot",
    "dynamic-reshape",
    "dynamic-slice",
    "dynamic-update-slice",
    "erf",
    "exp2",
    "exponential",
    "exponential-minus-one",
    "fft",
    "floor",
    "fusion",
    "gather",
    "get-dimension-size",
    "get-tuple-element",
    "imag",
    "infeed",
    "iota",
    "is-finite",
    "log",
    "log-plus-one",
    "log2",
    "logistic",
    "map",
    "maximum",
    "minimum",
    "mulhi",
    "multiply",
    "negate",
    "not",
    "opt-barrier",
    "or",
    "outfeed",
    "pad",
    "parameter",
    "partition-id",
    "popcnt",
    "power",
    "ragged-all-to-all",
    "ragged-dot",
    "real",
    "recv",
    "reduce",
    "reduce-precision",
    "reduce-scatter",
    "reduce-window",
    "remainder",
    "replica-id",
    "reshape",
    "reverse",
    "rng",
    "rng-bit-generator",
    "rng-get-and-update-state",
    "round-nearest-afz",
    "round-nearest-even",
    "rsqrt",
    "scaled-dot",
    "scan",
    "scatter",
    "select",
    "select-and-scatter",
    "send",
    "set-dimension-size",
    "shift-left",
    "shift-right-arithmetic",
    "shift-right-logical",
    "shuffle",
    "sign",
    "sine",
    "sinh",
    "slice",
    "sort",
    "sqrt",
    "stochastic-convert",
    "subtract",
    "tan",
    "tanh",
    "topk",
    "transpose",
    "triangular-solve",
    "tuple",
    "while",
    "xor",
];

/// Whether XLA's HLO parser knows `opcode`: one of [`OPCODES`], or the async
/// form `OPCODE-start`, `OPCODE-update` or `OPCODE-done` of one (XLA's parser
/// reads `fusion-start` as an `async-start` wrapping a fusion).
///
/// ```
/// assert!(hlo_util::is_opcode("get-tuple-element"));
/// assert!(hlo_util::is_opcode("custom-call-start"));
/// assert!(!hlo_util::is_opcode("bogus"));
/// assert!(!hlo_util::is_opcode("bogus-done"));
/// ```
pub fn is_opcode(opcode: &str) -> bool {
    let known = |name: &str| OPCODES.binary_search(&name).is_ok();
    known(opcode)
        || ["-start", "-update", "-done"]
            .iter()
            .any(|suffix| opcode.strip_suffix(suffix).is_some_and(known))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opcodes_are_sorted_and_unique() {
        assert!(OPCODES.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(OPCODES.len(), 127);
    }
}
