//! Why Shardy text was not read or not converted.

use crate::error::{ErrorKind, ParseError, ShardingError};

/// A Shardy text that does not parse, or a sharding that Shardy's verifier
/// rejects (in its words) or that has no HloSharding.
///
/// ```
/// let error = sharding_util::HloSharding::from_shardy(
///     r#"#sdy.sharding<@mesh, [{"c"}]>"#,
///     r#"<["a"=2]>"#,
/// )
/// .unwrap_err();
/// assert_eq!(error.to_string(), r#"unknown axis name: "c""#);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ShardyError {
    /// The text does not parse.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// The sharding or mesh is rejected, or has no answer.
    #[error(transparent)]
    Sharding(#[from] ShardingError),
}

impl ShardyError {
    /// The kind of a rejected sharding (`None` for a syntax error).
    pub fn kind(&self) -> Option<ErrorKind> {
        match self {
            Self::Parse(_) => None,
            Self::Sharding(e) => Some(e.kind()),
        }
    }
}

/// A Shardy verifier error.
pub(crate) fn invalid(message: impl Into<String>) -> ShardingError {
    ShardingError::new(ErrorKind::Invalid, message)
}

/// An MLIR tensor type that is no XLA shape
/// ([`tensor_shape`](crate::sdy::tensor_shape)): not a tensor type, a
/// dynamic or out-of-range dimension, an element type XLA has no name for.
///
/// ```
/// let error = sharding_util::sdy::tensor_shape("tensor<4xindex>").unwrap_err();
/// assert_eq!(error.tensor_type, "tensor<4xindex>");
/// assert_eq!(error.to_string(), "`tensor<4xindex>` has element type `index`, which XLA has no name for");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
#[non_exhaustive]
pub struct TensorTypeError {
    /// The tensor type, as given.
    pub tensor_type: String,
    /// What is wrong, naming the type and the offending part.
    pub message: String,
}

impl TensorTypeError {
    pub(crate) fn new(tensor_type: &str, message: String) -> Self {
        Self {
            tensor_type: tensor_type.to_owned(),
            message,
        }
    }
}
