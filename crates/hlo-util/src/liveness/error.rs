//! Why the memory of a module could not be computed from its text.

use crate::HloError;

/// Why [`memory_from_module_text`](crate::memory_from_module_text) failed.
///
/// ```
/// let error = hlo_util::memory_from_module_text("HloModule m\n").unwrap_err();
/// assert!(matches!(error, hlo_util::LivenessError::Read(_)));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LivenessError {
    /// The text does not read as an HLO module.
    #[error(transparent)]
    Read(#[from] HloError),
    /// An operand names an instruction the module does not have.
    #[error("instruction `{instruction}`: no operand `{operand}` in the module")]
    UnknownOperand {
        /// The instruction.
        instruction: String,
        /// The name it uses.
        operand: String,
    },
    /// An attribute names a computation the module does not have.
    #[error("instruction `{instruction}`: no computation `{computation}` in the module")]
    UnknownComputation {
        /// The instruction.
        instruction: String,
        /// The name it calls.
        computation: String,
    },
    /// An attribute or operand that does not fit the instruction (a tuple
    /// index beyond its operand's shape, an alias naming no parameter).
    #[error("instruction `{instruction}`: {message}")]
    Malformed {
        /// The instruction (or `input_output_alias`).
        instruction: String,
        /// What is wrong.
        message: String,
    },
    /// Two instructions or two computations with one name.
    #[error("`{0}` is defined twice")]
    Duplicate(String),
    /// A sum of sizes is beyond `i64::MAX`, the most XLA's sizes hold.
    #[error("{0}: the bytes are beyond i64")]
    Overflow(String),
}
