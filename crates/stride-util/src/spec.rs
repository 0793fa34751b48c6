//! A view written as text: a base array (`[3,4]`, or an XLA shape whose
//! layout and padding give the strides) and a chain of numpy-style
//! operations, resolved to a [`StridedView`].

use schema::{ParseError, Shape};
use thiserror::Error;

use crate::chain::{ChainError, Op, parse_chain};
use crate::error::ViewError;
use crate::integers::{IntegerError, parse_integers};
use crate::view::{MAX_DIMS, StridedView};

/// Why a view written as text cannot be resolved.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ViewSpecError {
    /// A bare base `[d0,...]` whose sizes are no integers.
    #[error("in base {text:?}: {source}")]
    BaseSizes {
        /// The base as given.
        text: String,
        /// Why.
        source: IntegerError,
    },
    /// A base that is no XLA shape string (XLA's parser's message).
    #[error(transparent)]
    BaseShape(#[from] ParseError),
    /// The operations do not parse.
    #[error(transparent)]
    Chain(#[from] ChainError),
    /// numpy would refuse the base or an operation (numpy's message).
    #[error(transparent)]
    View(#[from] ViewError),
}

impl From<index_util::IndexError> for ViewSpecError {
    fn from(error: index_util::IndexError) -> Self {
        Self::View(error.into())
    }
}

/// The view after the operations `ops` (one chain, or its pieces: they are
/// joined) applied left to right to `base`: a bare `[d0,...]` list (packed
/// row-major) or an XLA shape string, of at most [`MAX_DIMS`] dimensions.
///
/// ```
/// let view = stride_util::resolve_view("[3,4]", &["[0:3:2, 1:4:2]"]).unwrap();
/// assert_eq!((view.strides(), view.offset()), (&[8, 2][..], 1));
/// ```
///
/// # Errors
/// numpy's message for an operation it would refuse; the parsers' for text
/// that does not parse.
pub fn resolve_view(base: &str, ops: &[impl AsRef<str>]) -> Result<StridedView, ViewSpecError> {
    let (mut view, buffer_len) = base_view(base)?;
    let chain: String = ops.iter().map(AsRef::as_ref).collect();
    for op in parse_chain(&chain)? {
        view = apply(&view, &op, buffer_len)?;
    }
    Ok(view)
}

/// The base array and the length of its buffer in elements; as numpy, at
/// most [`MAX_DIMS`] dimensions.
fn base_view(text: &str) -> Result<(StridedView, i64), ViewSpecError> {
    let (view, len) = if text.trim_start().starts_with('[') {
        let sizes = parse_integers(text).map_err(|source| ViewSpecError::BaseSizes {
            text: text.to_owned(),
            source,
        })?;
        let view = StridedView::row_major(&sizes)?;
        let len = view.min_buffer_len()?;
        (view, len)
    } else {
        let shape: Shape = text.trim().parse()?;
        let view = StridedView::from_xla_shape(&shape)?;
        let len = index_util::PhysicalLayout::new(&shape)?.padded_element_count();
        (view, len)
    };
    if view.ndim() > MAX_DIMS {
        return Err(ViewError::TooManyDimensions { ndim: view.ndim() }.into());
    }
    Ok((view, len))
}

/// Applies one operation to `view` over a buffer of `buffer_len` elements.
fn apply(view: &StridedView, op: &Op, buffer_len: i64) -> Result<StridedView, ViewError> {
    match op {
        Op::Transpose(None) => Ok(view.transpose()),
        Op::Transpose(Some(axes)) => view.permute(axes),
        Op::Reshape(sizes, order) => view.reshape_numpy(sizes, *order),
        Op::Ravel(order) => view.ravel(*order),
        Op::BroadcastTo(sizes) => view.broadcast_to(sizes),
        Op::ExpandDims(axes) => view.expand_dims(axes),
        Op::Squeeze(None) => Ok(view.squeeze()),
        Op::Squeeze(Some(axes)) => view.squeeze_axes(axes),
        Op::SwapAxes(a, b) => view.swapaxes(*a, *b),
        Op::MoveAxis(source, destination) => view.moveaxis(&[*source], &[*destination]),
        Op::Flip(None) => view.flip(),
        Op::Flip(Some(axis)) => view.flip_axes(&[*axis]),
        Op::AsStrided { shape, strides } => {
            StridedView::as_strided(buffer_len, shape, strides, view.offset())
        }
        Op::Index(items) => view.index(items),
    }
}
