//! XLA's `ShapeUtil` over the [`schema`] types: building shapes, asking
//! about them, their sizes, validating and comparing them, editing their
//! dimensions, bitcast analysis, and broadcasting — with XLA's semantics and
//! XLA's error texts.
//!
//! A [`Shape`](schema::Shape) is an array (`f32[2,3]{1,0}`: element type,
//! dimensions, optional layout), a tuple of shapes, a token, an opaque
//! value, or a buffer of an array. Shapes built here serialize to exactly
//! the bytes XLA writes for the same shape.
//!
//! ```
//! use schema::PrimitiveType;
//! use shape_util::{byte_size_of, byte_strides, elements_in, make_shape, true_rank, validate_shape};
//!
//! let shape = make_shape(PrimitiveType::F32, &[2, 1, 3]).unwrap();
//! assert_eq!(shape.to_string(), "f32[2,1,3]{2,1,0}");
//! assert!(validate_shape(&shape).is_ok());
//! assert_eq!(true_rank(&shape).unwrap(), 2);
//! assert_eq!(elements_in(&shape).unwrap(), 6);
//! assert_eq!(byte_size_of(&shape, None).unwrap(), 24);
//! assert_eq!(byte_strides(&shape).unwrap(), [12, 12, 4]);
//! ```
//!
//! What is where:
//!
//! | concern | items |
//! |---|---|
//! | construction | [`make_shape`], [`make_validated_shape`], [`make_shape_with_dense_layout`], [`make_shape_with_layout`], [`make_shape_with_descending_layout`], [`make_scalar_shape`], [`make_tuple_shape`], [`make_maybe_tuple_shape`], [`make_nil`], [`make_token_shape`], [`make_opaque_shape`], [`make_buffer_shape`], [`make_program_shape`], [`make_static_shape`] |
//! | kinds | [`is_array`], [`is_tuple`], [`is_token`], [`is_opaque`], [`is_buffer`] |
//! | queries | [`rank`], [`true_rank`], [`elements_in`], [`elements_in_recursive`], [`is_scalar`], [`is_effective_scalar`], [`is_zero_element_array`], [`has_degenerate_dimensions`], [`is_static`], [`is_dynamic`], [`is_unbounded_dynamic`], [`get_dimension`], [`dimension_number`] |
//! | tuples and indices | [`tuple_element_count`], [`index_is_valid`], [`is_leaf_index`], [`get_subshape`], [`get_mutable_subshape`], [`leaf_count`], [`leaf_shapes`], [`subshape_count`], [`for_each_subshape`] |
//! | sizes (see [Sizes](#sizes)) | [`byte_size_of_primitive_type`], [`element_size_in_bits`], [`byte_size_of_elements`], [`byte_size_of`], [`byte_size_of_tuple_index_table`], [`array_size`], [`array_data_size`], [`allocated_size`], [`byte_strides`] |
//! | validation | [`validate_shape`], [`validate_shape_with_optional_layout`], [`validate_program_shape`] |
//! | equality | [`equal`](fn@equal), [`compatible`], [`compatible_ignoring_element_type`], [`compatible_ignoring_fp_precision`], [`equal_ignoring_layout`], [`equal_ignoring_element_type`], [`equal_ignoring_fp_precision`], [`equal_structure`], [`same_dimensions`], [`same_rank`], [`same_element_type`], [`same_element_type_ignoring_fp_precision`], [`ShapeEqual`] |
//! | dimension edits | [`permute_dimensions`], [`delete_dimension`], [`delete_dimensions`], [`drop_degenerate_dimensions`], [`insert_dimension_at_index`], [`append_major_dimension`], [`prepend_major_dimension`], [`append_minor_dimension`], [`set_dynamic_dimension`], [`change_element_type`] |
//! | bitcasts | [`transpose_is_bitcast`], [`transpose_is_bitcast_ignoring_element_type`], [`reshape_is_bitcast`], [`reshape_is_bitcast_ignoring_element_type`], [`deduce_transpose_dimensions_for_bitcast`], [`decompose_bitcast`], [`align_layouts`], [`dimensions_unmodified_by_reshape`], [`make_shape_with_descending_layout_and_same_physical_layout`] |
//! | XLA broadcasting | [`infer_binary_op_shape`], [`infer_elementwise_binary_op_shape`], [`infer_degenerate_dimension_broadcast_shape`], [`infer_in_dim_broadcast_shape`], [`infer_broadcast_in_dim_shape`], [`higher_precision_element_type`] |
//! | numpy broadcasting | [`numpy_broadcast_shapes`] |
//!
//! # Sizes
//!
//! Every size is an `i64` count of bytes (of bits for
//! [`element_size_in_bits`]), as in XLA's `ShapeUtil`; convert it with
//! `usize::try_from` only where a Rust slice is allocated or indexed. Each
//! function counts one thing:
//!
//! | function | XLA | counts |
//! |---|---|---|
//! | [`byte_size_of_primitive_type`] | `ByteSizeOfPrimitiveType` | one unpacked element of a type |
//! | [`element_size_in_bits`] | `ElementSizeInBits` | one element of an array in memory (`E(n)`, else the unpacked size) |
//! | [`byte_size_of_elements`] | `ByteSizeOfElements` | an array's elements: padded extents, `E(n)` packing; tiles ignored |
//! | [`byte_size_of`] | `ByteSizeOf` | [`byte_size_of_elements`] for an array; a tuple's index table, an opaque pointer, 0 for a token |
//! | [`byte_size_of_tuple_index_table`] | `ByteSizeOfTupleIndexTable` | a tuple's index table: one pointer per element |
//! | [`array_size`] | `ArraySize` | the buffer XLA allocates for an array: tiles, tail padding `L(n)`, `E(n)` included |
//! | [`array_data_size`] | `ArrayDataSize` | an array's buffer up to and including its last element |
//! | [`allocated_size`] | (buffer assignment) | [`array_size`] for an array or buffer shape, [`byte_size_of`] for the rest |
//! | [`index_util::TiledLayout::array_size`] | `ArraySize` | [`array_size`], for the crates below this one |
//! | [`index_util::TiledLayout::buffer_size_in_bytes`] | `ArraySize` | a resolved layout's buffer ([`buffer_len`](index_util::TiledLayout::buffer_len) counts its positions) |
//! | `relayout::output_bytes` | | the [`array_size`] of a relayout's destination, checked against the source's and a cap |
//! | `stride_util::StridedView::dml_buffer_tensor_size` | DirectML's `DMLCalcBufferTensorSize` | a strided view's buffer, rounded up to 4 bytes |
//!
//! ```
//! let size = |text: &str| text.parse::<schema::Shape>().unwrap();
//! let tiled = size("bf16[10,200]{1,0:T(8,128)(2,1)}");
//! assert_eq!(shape_util::byte_size_of(&tiled, None).unwrap(), 4000);
//! assert_eq!(shape_util::array_size(&tiled).unwrap(), 8192);
//! assert_eq!(index_util::TiledLayout::array_size(&tiled).unwrap(), 8192);
//! let tuple = size("(bf16[10,200]{1,0:T(8,128)(2,1)}, s8[3])");
//! assert_eq!(shape_util::allocated_size(&tuple, Some(8)).unwrap(), 16);
//! ```
//!
//! The text form (`f32[2,3]{0,1}`, XLA's `HumanString`/`ParseShape`) is
//! [`Display`](std::fmt::Display)/[`FromStr`](std::str::FromStr) on the
//! [`schema`] types, so parsed shapes feed straight into these functions:
//!
//! ```
//! use schema::Shape;
//! use shape_util::{compatible, infer_elementwise_binary_op_shape, numpy_broadcast_shapes};
//!
//! let lhs: Shape = "f32[4]".parse().unwrap();
//! let rhs: Shape = "f32[1,2]{0,1}".parse().unwrap();
//! // XLA: `|1 2 3 4| + [5 6]` with broadcast_dimensions (0) gives 4x2.
//! let sum = infer_elementwise_binary_op_shape("add", &lhs, &rhs, &[0]).unwrap();
//! assert_eq!(sum.to_string(), "f32[4,2]{1,0}");
//! assert!(compatible(&sum, &"f32[4,<=2]{0,1}".parse().unwrap()));
//! // numpy would not need the dimensions, and aligns at the right.
//! assert_eq!(numpy_broadcast_shapes(&[&[4], &[1, 2]]).unwrap_err().to_string(),
//!     "shape mismatch: objects cannot be broadcast to a single shape.  \
//!      Mismatch is between arg 0 with shape (4,) and arg 1 with shape (1, 2).");
//! ```
//!
//! Where XLA CHECK-fails (a crash), these functions return a [`ShapeError`]
//! (or [`BroadcastError`], [`NumpyBroadcastError`]) naming the offending
//! value; they never panic. Texts are XLA's (numpy's) where XLA has a
//! message; shapes in messages are printed without layout, as XLA's
//! `Shape::ToString()` does.

#![forbid(unsafe_code)]

mod binary_op;
mod bitcast;
mod broadcast;
mod common_factors;
mod construct;
mod edit;
mod element;
mod equal;
mod error;
mod explain;
mod explain_text;
mod kind;
mod labels;
mod numpy;
mod permutation;
mod query;
mod relation;
mod reshape;
mod size;
mod tuple_edit;
mod validate;
mod walk;

pub use binary_op::infer_binary_op_shape;
pub use bitcast::{
    BitcastDecomposition, align_layouts, decompose_bitcast,
    deduce_transpose_dimensions_for_bitcast, dimensions_unmodified_by_reshape,
    make_shape_with_descending_layout_and_same_physical_layout, reshape_is_bitcast,
    reshape_is_bitcast_ignoring_element_type, transpose_is_bitcast,
    transpose_is_bitcast_ignoring_element_type,
};
pub use broadcast::{
    BroadcastError, higher_precision_element_type, infer_broadcast_in_dim_shape,
    infer_degenerate_dimension_broadcast_shape, infer_elementwise_binary_op_shape,
    infer_in_dim_broadcast_shape,
};
pub use construct::{
    make_buffer_shape, make_maybe_tuple_shape, make_nil, make_opaque_shape, make_program_shape,
    make_scalar_shape, make_shape, make_shape_with_dense_layout, make_shape_with_descending_layout,
    make_shape_with_layout, make_static_shape, make_token_shape, make_tuple_shape,
    make_validated_shape, validate_program_shape,
};
pub use edit::{
    append_major_dimension, append_minor_dimension, change_element_type, delete_dimension,
    delete_dimensions, drop_degenerate_dimensions, insert_dimension_at_index, permute_dimensions,
    prepend_major_dimension, set_dynamic_dimension,
};
pub use element::{
    array_data_size, byte_size_of_tuple_index_table, complex_component_shape,
    device_shape_to_host_shape, element_can_upcast, element_has_bit_width, element_is_complex,
    element_is_floating, element_is_integral, element_is_integral_with_bits, element_is_signed,
    has_primitive_type, is_initialized, is_scalar_with_element_type, static_extent_product,
    update_element_size_in_bits,
};
pub use equal::{
    ShapeEqual, compatible, compatible_ignoring_element_type, compatible_ignoring_fp_precision,
    equal, equal_ignoring_element_type, equal_ignoring_fp_precision, equal_ignoring_layout,
    equal_structure, same_dimensions, same_element_type, same_element_type_ignoring_fp_precision,
    same_rank,
};
pub use error::{InvalidShape, ShapeError};
pub use explain::{
    ArrayDetails, Details, ExplainError, Explanation, MAX_PICTURE_POSITIONS, Padding, TileSize,
    Tiling, explain,
};
pub use kind::{is_array, is_buffer, is_opaque, is_token, is_tuple};
pub use labels::{element_label, padding_label};
pub use numpy::{NumpyBroadcastError, numpy_broadcast_shapes};
pub use query::{
    dimension_number, elements_in, elements_in_recursive, for_each_subshape, get_dimension,
    get_mutable_subshape, get_subshape, has_degenerate_dimensions, index_is_valid, is_dynamic,
    is_effective_scalar, is_leaf_index, is_scalar, is_static, is_unbounded_dynamic,
    is_zero_element_array, leaf_count, leaf_shapes, rank, subshape_count, true_rank,
    tuple_element_count,
};
pub use relation::Relation;
pub use reshape::{
    ShapeEqualityDescriptor, compatible_kind, dynamic_array_shape_is_compatible,
    dynamic_shape_is_compatible, filter_dimensions, inserted_or_deleted_1_sized_dimensions,
    is_effectively_most_major_dimension, is_reshape_or_transpose_bitcast,
    reorder_logical_dimensions, reshape_leaves_dimensions_unmodified,
};
pub use size::{
    allocated_size, array_size, byte_size_of, byte_size_of_elements, byte_size_of_primitive_type,
    byte_strides, element_size_in_bits,
};
pub use tuple_edit::{
    append_shape_to_tuple, flatten_tuple_shape, get_leaf_count_tuple, get_tuple_element_shape,
    is_empty_tuple, is_nested_tuple, slice_tuple, update_tuple_shape,
};
pub use validate::{validate_shape, validate_shape_with_optional_layout};
pub use walk::{
    for_each_leaf_shape, for_each_mutable_leaf_shape, for_each_mutable_subshape,
    for_each_mutable_subshape_post_order, for_each_subshape_post_order, try_for_each_leaf_shape,
    try_for_each_mutable_subshape, try_for_each_mutable_subshape_post_order, try_for_each_subshape,
    try_for_each_subshape_post_order,
};
