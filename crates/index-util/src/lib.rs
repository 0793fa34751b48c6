//! XLA's `IndexUtil` over the [`schema`] types: multi-dimensional indices
//! and linear indices into an array's buffer under any layout, including
//! the classic padded layout (where the linear index is into the padded
//! buffer) and nested tiling, dimension strides, index comparison, and
//! iteration over a region in physical order.
//!
//! XLA's `IndexUtil` ignores tiles, and so do the functions named after it;
//! [`TiledLayout`] is the buffer of any layout, tiled or not: positions of
//! elements, the element at each position, iteration in memory order, and
//! the buffer size (XLA's `ShapeUtil::ArraySize`).
//!
//! For repeated conversions on one shape, resolve it once into a
//! [`PhysicalLayout`]; [`PhysicalLayout::linear_index_unchecked`] is the fast
//! path for hot loops over known-valid indices.
//!
//! ```
//! let shape: schema::Shape = "f32[2,3]{0,1}".parse().unwrap();
//! // `a b c / d e f` with dim 0 minor is stored `a d b e c f`: `e` is at 3.
//! assert_eq!(index_util::multidimensional_index_to_linear_index(&shape, &[1, 1]).unwrap(), 3);
//! ```

#![forbid(unsafe_code)]

mod compare;
mod convert;
mod error;
mod iterate;
mod list;
mod lookup;
mod order;
mod physical;
mod tiled;
mod tiling;

pub use compare::{bump_indices, compare_indices, index_in_bounds};
pub use convert::{
    dimension_stride, dimension_strides, linear_index_to_multidimensional_index,
    multidimensional_index_to_linear_index,
};
pub use error::IndexError;
pub use iterate::{ForEachIndex, for_each_index};
pub use list::dimension_list;
pub use lookup::ElementIndex;
pub use order::{MAX_ORDER_POSITIONS, MemoryOrder, TooManyPositions, memory_order};
pub use physical::PhysicalLayout;
pub use tiled::TiledLayout;
pub use tiling::linear_index_for_nested_tiling;
