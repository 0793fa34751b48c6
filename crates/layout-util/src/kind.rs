//! Which kind of shape a [`Shape`] is (XLA's `IsTuple`/`IsArray`/...), from
//! its element type.

use schema::{PrimitiveType, Shape};

/// The element type, or `None` if the number is not a known type.
pub(crate) fn element_type(shape: &Shape) -> Option<PrimitiveType> {
    PrimitiveType::try_from(shape.element_type).ok()
}

/// Whether `shape` is a tuple.
pub(crate) fn is_tuple(shape: &Shape) -> bool {
    element_type(shape) == Some(PrimitiveType::Tuple)
}

/// Whether `shape` is a buffer (`b(...)`).
pub(crate) fn is_buffer(shape: &Shape) -> bool {
    element_type(shape) == Some(PrimitiveType::Buffer)
}

/// Whether `shape` is a dense array (not a tuple, token, opaque, buffer or
/// invalid type).
pub fn is_array(shape: &Shape) -> bool {
    element_type(shape).is_some_and(PrimitiveType::is_array_type)
}

/// XLA's `PrimitiveType_Name`: the proto enum name (`TOKEN`), or the number
/// if the type is unknown.
pub(crate) fn proto_type_name(shape: &Shape) -> String {
    element_type(shape).map_or_else(
        || shape.element_type.to_string(),
        |t| t.as_str_name().to_owned(),
    )
}
