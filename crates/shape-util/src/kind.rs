//! What kind of shape a [`Shape`] is (XLA's `IsArray`, `IsTuple`, ...),
//! decided by its element type.

use schema::{PrimitiveType, Shape};

/// The element type, or `None` if the number is not a known type.
pub(crate) fn element_type(shape: &Shape) -> Option<PrimitiveType> {
    PrimitiveType::try_from(shape.element_type).ok()
}

/// Whether `shape` is a dense array: its element type is an array type
/// (not invalid, tuple, token, opaque or buffer).
///
/// ```
/// use schema::PrimitiveType;
/// assert!(shape_util::is_array(&shape_util::make_shape(PrimitiveType::F32, &[2]).unwrap()));
/// assert!(!shape_util::is_array(&shape_util::make_nil()));
/// ```
pub fn is_array(shape: &Shape) -> bool {
    element_type(shape).is_some_and(PrimitiveType::is_array_type)
}

/// Whether `shape` is a tuple (`(...)`).
///
/// ```
/// assert!(shape_util::is_tuple(&shape_util::make_nil()));
/// ```
pub fn is_tuple(shape: &Shape) -> bool {
    element_type(shape) == Some(PrimitiveType::Tuple)
}

/// Whether `shape` is a token (`token[]`).
///
/// ```
/// assert!(shape_util::is_token(&shape_util::make_token_shape()));
/// ```
pub fn is_token(shape: &Shape) -> bool {
    element_type(shape) == Some(PrimitiveType::Token)
}

/// Whether `shape` is opaque (`opaque[]`).
///
/// ```
/// assert!(shape_util::is_opaque(&shape_util::make_opaque_shape()));
/// ```
pub fn is_opaque(shape: &Shape) -> bool {
    element_type(shape) == Some(PrimitiveType::OpaqueType)
}

/// Whether `shape` is a buffer (`b(s32[3])`).
///
/// ```
/// use schema::PrimitiveType;
/// assert!(shape_util::is_buffer(&shape_util::make_buffer_shape(PrimitiveType::S32, &[3]).unwrap()));
/// ```
pub fn is_buffer(shape: &Shape) -> bool {
    element_type(shape) == Some(PrimitiveType::Buffer)
}

/// The array element type of an array shape, if it is one.
pub(crate) fn array_type(shape: &Shape) -> Option<PrimitiveType> {
    element_type(shape).filter(|t| t.is_array_type())
}

/// The type as XLA's `ShapeError` names it: the lowercase name, or the
/// number if unknown.
pub(crate) fn lowercase_type_name(element_type: i32) -> String {
    PrimitiveType::try_from(element_type).map_or_else(
        |_| element_type.to_string(),
        |t| t.lowercase_name().to_owned(),
    )
}

/// XLA's `PrimitiveType_Name`: the proto enum name (`TOKEN`), or the number
/// if unknown.
pub(crate) fn proto_type_name(element_type: i32) -> String {
    PrimitiveType::try_from(element_type)
        .map_or_else(|_| element_type.to_string(), |t| t.as_str_name().to_owned())
}

/// Whether dimension `i` of `shape` is dynamic (an empty
/// `is_dynamic_dimension` means all static).
pub(crate) fn is_dynamic_dimension(shape: &Shape, i: usize) -> bool {
    shape.is_dynamic_dimension.get(i).copied().unwrap_or(false)
}

/// Whether dimension `i` of `shape` is unbounded dynamic (`?`).
pub(crate) fn is_unbounded_dimension(shape: &Shape, i: usize) -> bool {
    is_dynamic_dimension(shape, i) && shape.dimensions.get(i) == Some(&schema::UNBOUNDED_SIZE)
}

/// A dimension number or count as XLA stores it (`i64`).
pub(crate) fn to_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}
