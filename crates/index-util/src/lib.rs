//! XLA's `IndexUtil` over the [`schema`] types: multi-dimensional indices
//! and linear indices into an array's buffer under any layout, including
//! the classic padded layout (where the linear index is into the padded
//! buffer), dimension strides, index comparison, and iteration over a
//! region in physical order.
//!
//! ```
//! let shape: schema::Shape = "f32[2,3]{0,1}".parse().unwrap();
//! // `a b c / d e f` with dim 0 minor is stored `a d b e c f`: `e` is at 3.
//! assert_eq!(index_util::multidimensional_index_to_linear_index(&shape, &[1, 1]).unwrap(), 3);
//! ```

mod convert;
mod error;
mod physical;

pub use convert::{
    dimension_stride, dimension_strides, linear_index_to_multidimensional_index,
    multidimensional_index_to_linear_index,
};
pub use error::IndexError;
pub use physical::PhysicalLayout;
