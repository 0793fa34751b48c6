//! Strided views, as numpy and DirectML describe arrays.
//!
//! A [`StridedView`] is sizes, strides (in elements, negative and zero
//! allowed) and an offset over a one-dimensional buffer. Views come from
//! packed row/column-major shapes, DirectML descriptions, `as_strided`, or
//! an XLA [`schema::Shape`] with its layout; numpy's zero-copy operations
//! (reshape, transpose, broadcasting, basic indexing, ...) return new views
//! with numpy's exact semantics and errors.
//! The relayout engine that copies the elements of one view into another
//! is the crate `xla-relayout`.
//!
//! Slicing, as in `A[0:3:2, 1:4:2]` on a (3,4) array:
//!
//! ```
//! use stride_util::{StridedView, parse_index_expression};
//!
//! let a = StridedView::row_major(&[3, 4])?;
//! let b = a.index(&parse_index_expression("[0:3:2, 1:4:2]")?)?;
//! assert_eq!(b.sizes(), [2, 2]);
//! assert_eq!(b.strides(), [8, 2]);
//! assert_eq!(b.offset(), 1);
//! # Ok::<(), stride_util::ViewError>(())
//! ```

#![forbid(unsafe_code)]

mod chain;
mod classify;
#[cfg(feature = "dlpack")]
mod dlpack;
mod error;
mod index;
mod integers;
#[cfg(feature = "ndarray")]
mod ndarray_view;
mod offsets;
mod ops;
mod report;
mod reshape;
mod spec;
mod view;
mod xla_layout;

pub use chain::{ChainError, Op, parse_chain};
#[cfg(feature = "dlpack")]
pub use dlpack::DlpackLayout;
pub use error::{ViewError, numpy_tuple};
pub use index::{IndexItem, adjust_slice, parse_index_expression};
pub use integers::{IntegerError, parse_integer, parse_integers};
pub use offsets::Offsets;
pub use report::ViewReport;
pub use reshape::{NumpyOrder, Order};
pub use spec::{ViewSpecError, resolve_view};
pub use view::{MAX_DIMS, StridedView};
pub use xla_layout::dml_sizes;
