//! XLA's `LayoutUtil` over the [`schema`] types: building layouts, asking
//! about them, checking them against shapes (with XLA's exact messages),
//! comparing them, and the classic padded layout.
//!
//! A layout's `minor_to_major` lists the dimensions from the most minor
//! (fastest varying in memory) to the most major. For the `[2 x 3]` array
//!
//! ```text
//! a b c
//! d e f
//! ```
//!
//! `{0,1}` stores `a d b e c f` ("dim 0 is minor", column-major) and `{1,0}`
//! stores `a b c d e f` (the default: "dim 0 is major", row-major).
//!
//! ```
//! use layout_util::{is_monotonic_with_dim0_major, make_descending_layout};
//! let layout = make_descending_layout(2);
//! assert_eq!(layout.to_string(), "{1,0}");
//! assert!(is_monotonic_with_dim0_major(&layout));
//! ```

#![forbid(unsafe_code)]

mod construct;
mod equal;
mod error;
mod kind;
mod padding;
mod query;
mod split;
mod validate;

pub use construct::{
    LayoutBuilder, clear_layout, default_layout_for_shape, make_ascending_layout,
    make_descending_layout, make_layout, make_layout_from_major_to_minor, set_to_default_layout,
};
pub use equal::{LayoutEqual, layouts_in_shapes_equal};
pub use error::LayoutError;
pub use kind::is_array;
pub use padding::{is_padded, padded_dimensions, padding_value};
pub use query::{
    copy_layout_between_shapes, has_layout, is_monotonic_with_dim0_major,
    is_monotonic_with_dim0_minor, major, make_logical_to_physical, memory_space, minor,
    minor_to_major, move_dim_to_major, move_dim_to_minor,
};
pub use split::{
    are_dimensions_consecutive, byte_strides_is_major_to_minor, clear_tiles, get_split_config,
    has_custom_element_size_in_bits, is_dense_array, linear_index, max_elements_in_per_split,
    max_split_size,
};
pub use validate::{validate_layout_for_shape, validate_layout_in_shape};
