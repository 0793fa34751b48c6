//! [`Error`]: why a library function of this crate fails, by kind, with the
//! message the command prints for it.

use std::path::PathBuf;

use hlo_util::{AssignmentError, LivenessError};
use schema::{ParseError, Shape};
use shape_util::{BroadcastError, ExplainError, NumpyBroadcastError, ShapeError};
use stride_util::{IntegerError, ViewSpecError};
use thiserror::Error;

/// An error of a library function. Each kind keeps the error it comes
/// from; the text is the message the command prints (XLA's or numpy's
/// where they have one).
///
/// ```
/// use stride_util::{ViewError, ViewSpecError};
/// use xla_shape_front::Error;
///
/// let error = xla_shape_front::view("[3,4]", &[".T.reshape(12)".to_owned()]).unwrap_err();
/// assert!(matches!(error, Error::View(ViewSpecError::View(ViewError::ReshapeNeedsCopy { .. }))));
/// let rule = xla_shape_front::BroadcastRule::Elementwise { dims: vec![] };
/// let error = xla_shape_front::broadcast(&["[2]".to_owned()], &rule).unwrap_err();
/// assert!(matches!(error, Error::OperandCount { count: 1 }));
/// assert_eq!(error.to_string(), "XLA broadcasting takes two shapes, got 1");
/// ```
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum Error {
    /// A shape string XLA's parser rejects.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// A bare `[d0,...]` list whose sizes are no integers.
    #[error("in {text:?}: {source}")]
    Dimensions {
        /// The list as given.
        text: String,
        /// Why.
        source: IntegerError,
    },
    /// A bare `[d0,...]` list that is no array shape.
    #[error("in {text:?}: {source}")]
    DimensionsShape {
        /// The list as given.
        text: String,
        /// XLA's message.
        source: ShapeError,
    },
    /// An operand of `broadcast` that is no array.
    #[error("{shape} is not an array", shape = .shape.human_string())]
    NotAnArray {
        /// The operand (its message prints it as XLA does, without
        /// layout).
        shape: Box<Shape>,
    },
    /// XLA's broadcasting takes two shapes.
    #[error("XLA broadcasting takes two shapes, got {count}")]
    OperandCount {
        /// The shapes given.
        count: usize,
    },
    /// The shapes do not broadcast under XLA's rules.
    #[error(transparent)]
    Broadcast(#[from] BroadcastError),
    /// The shapes do not broadcast under numpy's rules.
    #[error(transparent)]
    NumpyBroadcast(#[from] NumpyBroadcastError),
    /// A shape `explain` cannot report on.
    #[error(transparent)]
    Explain(#[from] ExplainError),
    /// A view that does not resolve.
    #[error(transparent)]
    View(#[from] ViewSpecError),
    /// A shape whose buffer index-util cannot lay out.
    #[error(transparent)]
    Layout(#[from] index_util::IndexError),
    /// A buffer too long to list in memory order.
    #[error(transparent)]
    Order(#[from] index_util::TooManyPositions),
    /// A sharding text the parser rejects.
    #[error(transparent)]
    ShardingText(#[from] sharding_util::ParseError),
    /// A sharding that does not fit the shape or the device count (XLA's
    /// message), or that names no device count when none is given.
    #[error(transparent)]
    Sharding(#[from] sharding_util::ShardingError),
    /// A Shardy error of a kind added after these (its own words).
    #[error(transparent)]
    Shardy(sharding_util::sdy::ShardyError),
    /// A device count that a Shardy sharding's mesh contradicts.
    #[error(transparent)]
    MeshDevices(sharding_util::sdy::DeviceCountError),
    /// A picture that cannot be drawn.
    #[error("{message}")]
    Picture {
        /// Why.
        message: String,
    },
    /// A file that cannot be opened.
    #[error("cannot open {}: {source}", .path.display())]
    Open {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A file that cannot be read.
    #[error("cannot read {}: {source}", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A buffer-assignment text whose live ranges are neither given nor in
    /// the file beside it.
    #[error(
        "{}: a buffer-assignment dump needs its live ranges: --live-range FILE",
        .path.display()
    )]
    NoLiveRange {
        /// The buffer-assignment text.
        path: PathBuf,
    },
    /// StableHLO or a serialized module given where the module's text is
    /// wanted (hlo-util's message, naming the fix).
    #[error(transparent)]
    NotModuleText(#[from] hlo_util::NotModuleText),
    /// A module (text or serialized) that cannot be read: where and why.
    #[error(transparent)]
    Module(#[from] hlo_util::ReadError),
    /// A dump whose buffer assignment cannot be replayed.
    #[error(transparent)]
    Assignment(#[from] AssignmentError),
    /// A module's text whose buffers' liveness cannot be computed.
    #[error(transparent)]
    Liveness(#[from] LivenessError),
}

impl Error {
    /// The message, and for a sharding that names no device count how to
    /// give one (`give`: the front end's way, `--devices N` on the command
    /// line).
    ///
    /// ```
    /// let shape: schema::Shape = "f32[8]".parse().unwrap();
    /// let error = xla_shape_front::shard(&shape, "{replicated}", None).unwrap_err();
    /// assert_eq!(error.to_string(), "{replicated} names no device count");
    /// assert_eq!(
    ///     error.with_device_count_hint("devices=N"),
    ///     "{replicated} names no device count: give devices=N"
    /// );
    /// ```
    #[must_use]
    pub fn with_device_count_hint(&self, give: &str) -> String {
        match self {
            Self::Sharding(e) if e.kind() == sharding_util::ErrorKind::NoDeviceCount => {
                format!("{self}: give {give}")
            }
            _ => self.to_string(),
        }
    }

    /// A picture's error from the drawing code's message.
    pub(crate) fn picture(message: String) -> Self {
        Self::Picture { message }
    }
}

/// A sharding text that does not read: the parser's error, or Shardy's
/// verifier's.
impl From<sharding_util::sdy::ShardyError> for Error {
    fn from(error: sharding_util::sdy::ShardyError) -> Self {
        match error {
            sharding_util::sdy::ShardyError::Parse(e) => Self::ShardingText(e),
            sharding_util::sdy::ShardyError::Sharding(e) => Self::Sharding(e),
            other => Self::Shardy(other),
        }
    }
}

/// A device count that the shardings' meshes contradict.
impl From<sharding_util::sdy::DeviceCountError> for Error {
    fn from(error: sharding_util::sdy::DeviceCountError) -> Self {
        match error {
            sharding_util::sdy::DeviceCountError::Sharding(e) => Self::Sharding(e),
            other => Self::MeshDevices(other),
        }
    }
}
