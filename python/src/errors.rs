//! The package's exceptions: `XlaShapeError` (a `ValueError`) and its
//! subclasses by kind, and the conversion of the workspace's errors into
//! them.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

create_exception!(
    xla_shape,
    XlaShapeError,
    PyValueError,
    "An input XLA (or numpy) rejects; the message is XLA's."
);
create_exception!(
    xla_shape,
    ParseError,
    XlaShapeError,
    "A shape or layout string XLA's parser rejects."
);
create_exception!(
    xla_shape,
    InvalidShapeError,
    XlaShapeError,
    "A shape that parses but that XLA's `ShapeUtil::ValidateShape` rejects, \
     or whose buffer cannot be laid out."
);
create_exception!(
    xla_shape,
    ShardingError,
    XlaShapeError,
    "A sharding that does not parse, or that does not fit the shape or the \
     device count."
);
create_exception!(
    xla_shape,
    HloError,
    XlaShapeError,
    "An HLO module or XLA dump that cannot be read or analysed."
);
create_exception!(
    xla_shape,
    UnsupportedError,
    XlaShapeError,
    "An input that is valid but that this package does not handle."
);

/// `XlaShapeError(message)`: the kind-less error.
pub(crate) fn error(message: impl ToString) -> PyErr {
    XlaShapeError::new_err(message.to_string())
}

/// `ParseError(message)`.
pub(crate) fn parse_error(message: impl ToString) -> PyErr {
    ParseError::new_err(message.to_string())
}

/// `InvalidShapeError(message)`.
pub(crate) fn invalid_shape(message: impl ToString) -> PyErr {
    InvalidShapeError::new_err(message.to_string())
}

/// `HloError(message)`.
pub(crate) fn hlo_error(message: impl ToString) -> PyErr {
    HloError::new_err(message.to_string())
}

/// A sharding-util error: `UnsupportedError` where the sharding is valid
/// but not handled, else `ShardingError`; the device-count hint names the
/// Python keyword.
pub(crate) fn sharding_error(e: &sharding_util::ShardingError) -> PyErr {
    let message = match e.kind() {
        sharding_util::ErrorKind::NoDeviceCount => format!("{e}: give devices=N"),
        _ => e.to_string(),
    };
    match e.kind() {
        sharding_util::ErrorKind::Unsupported => UnsupportedError::new_err(message),
        _ => ShardingError::new_err(message),
    }
}

/// The error of the `xla-shape` library by kind.
pub(crate) fn library_error(e: xla_shape_front::Error) -> PyErr {
    use xla_shape_front::Error as E;
    match e {
        E::Parse(e) => parse_error(e),
        E::Explain(_) | E::Layout(_) | E::Order(_) => invalid_shape(e),
        E::ShardingText(e) => ShardingError::new_err(e.to_string()),
        E::Sharding(e) => sharding_error(&e),
        E::Open { .. }
        | E::Read { .. }
        | E::NoLiveRange { .. }
        | E::NotModuleText(_)
        | E::Module(_)
        | E::Assignment(_)
        | E::Liveness(_) => hlo_error(e),
        _ => error(e),
    }
}

/// Adds the exceptions to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("XlaShapeError", py.get_type::<XlaShapeError>())?;
    m.add("ParseError", py.get_type::<ParseError>())?;
    m.add("InvalidShapeError", py.get_type::<InvalidShapeError>())?;
    m.add("ShardingError", py.get_type::<ShardingError>())?;
    m.add("HloError", py.get_type::<HloError>())?;
    m.add("UnsupportedError", py.get_type::<UnsupportedError>())?;
    Ok(())
}
