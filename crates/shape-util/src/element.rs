//! XLA's element-type queries on shapes (`ElementIsIntegral`,
//! `ElementIsFloating`, `ElementHasBitWidth`, ..., `HasPrimitiveType`,
//! `ComplexComponentShape`, `ElementCanUpcast`) and the layout edits and
//! sizes that follow from the element type (`UpdateElementSizeInBits`,
//! `DeviceShapeToHostShape`, `ArrayDataSize`, `StaticExtentProduct`,
//! `ByteSizeOfTupleIndexTable`).

use schema::primitive_util;
use schema::{PrimitiveType, Shape, UNBOUNDED_SIZE};

use crate::ShapeError;
use crate::edit::change_element_type;
use crate::kind::{element_type, is_array, is_dynamic_dimension, is_tuple};
use crate::query::expect_array;
use crate::size::byte_size_of_primitive_type;
use crate::walk::for_each_mutable_subshape;

/// The element type of an array shape (none for the other kinds).
fn array_element(shape: &Shape) -> Option<PrimitiveType> {
    element_type(shape).filter(|t| t.is_array_type())
}

/// XLA's `ElementIsIntegral`: an integer element type (not `pred`).
///
/// ```
/// assert!(shape_util::element_is_integral(&"u4[2]".parse().unwrap()));
/// assert!(!shape_util::element_is_integral(&"pred[2]".parse().unwrap()));
/// ```
pub fn element_is_integral(shape: &Shape) -> bool {
    element_type(shape).is_some_and(PrimitiveType::is_integral)
}

/// XLA's `ElementIsFloating`: a real floating-point element type.
///
/// ```
/// assert!(shape_util::element_is_floating(&"f8e4m3fn[2]".parse().unwrap()));
/// assert!(!shape_util::element_is_floating(&"c64[2]".parse().unwrap()));
/// ```
pub fn element_is_floating(shape: &Shape) -> bool {
    element_type(shape).is_some_and(PrimitiveType::is_floating_point)
}

/// XLA's `ElementIsComplex`: `c64` or `c128` elements.
///
/// ```
/// assert!(shape_util::element_is_complex(&"c128[]".parse().unwrap()));
/// ```
pub fn element_is_complex(shape: &Shape) -> bool {
    element_type(shape).is_some_and(PrimitiveType::is_complex)
}

/// XLA's `ElementIsSigned`: signed integer or floating-point elements.
///
/// ```
/// assert!(shape_util::element_is_signed(&"bf16[]".parse().unwrap()));
/// assert!(!shape_util::element_is_signed(&"u8[]".parse().unwrap()));
/// ```
pub fn element_is_signed(shape: &Shape) -> bool {
    element_type(shape).is_some_and(|t| t.is_signed_integral() || t.is_floating_point())
}

/// XLA's `ElementHasBitWidth`: an array whose element type has `bits` bits.
///
/// ```
/// assert!(shape_util::element_has_bit_width(&"f16[3]".parse().unwrap(), 16));
/// assert!(!shape_util::element_has_bit_width(&"(f16[3])".parse().unwrap(), 16));
/// ```
pub fn element_has_bit_width(shape: &Shape, bits: i64) -> bool {
    is_array(shape)
        && array_element(shape)
            .and_then(PrimitiveType::bit_width)
            .map(i64::from)
            == Some(bits)
}

/// XLA's `ElementIsIntegralWithBits`: integer elements of `bits` bits.
///
/// ```
/// assert!(shape_util::element_is_integral_with_bits(&"s4[3]".parse().unwrap(), 4));
/// assert!(!shape_util::element_is_integral_with_bits(&"f16[3]".parse().unwrap(), 16));
/// ```
pub fn element_is_integral_with_bits(shape: &Shape, bits: i64) -> bool {
    element_is_integral(shape) && element_has_bit_width(shape, bits)
}

/// XLA's `HasPrimitiveType`: whether `shape` or any subshape has element
/// type `ty` (`tuple` for any tuple).
///
/// ```
/// use schema::PrimitiveType;
/// let shape: schema::Shape = "(f32[], (s8[2]))".parse().unwrap();
/// assert!(shape_util::has_primitive_type(&shape, PrimitiveType::S8));
/// assert!(!shape_util::has_primitive_type(&shape, PrimitiveType::U8));
/// ```
pub fn has_primitive_type(shape: &Shape, ty: PrimitiveType) -> bool {
    shape.element_type == ty as i32 || shape.tuple_shapes.iter().any(|e| has_primitive_type(e, ty))
}

/// XLA's `IsScalarWithElementType`: a scalar array of element type `ty`.
///
/// ```
/// use schema::PrimitiveType;
/// assert!(shape_util::is_scalar_with_element_type(&"s32[]".parse().unwrap(), PrimitiveType::S32));
/// assert!(!shape_util::is_scalar_with_element_type(&"s32[1]".parse().unwrap(), PrimitiveType::S32));
/// ```
pub fn is_scalar_with_element_type(shape: &Shape, ty: PrimitiveType) -> bool {
    is_array(shape) && shape.dimensions.is_empty() && shape.element_type == ty as i32
}

/// XLA's `IsInitialized`: the element type is set (not
/// `PRIMITIVE_TYPE_INVALID`).
///
/// ```
/// assert!(!shape_util::is_initialized(&schema::Shape::default()));
/// assert!(shape_util::is_initialized(&"()".parse().unwrap()));
/// ```
pub fn is_initialized(shape: &Shape) -> bool {
    shape.element_type != PrimitiveType::Invalid as i32
}

/// XLA's `ComplexComponentShape`: a complex shape with its component type
/// (`c64` → `f32`, `c128` → `f64`).
///
/// ```
/// let shape: schema::Shape = "c64[2,3]{0,1}".parse().unwrap();
/// assert_eq!(shape_util::complex_component_shape(&shape).unwrap().to_string(), "f32[2,3]{0,1}");
/// ```
///
/// # Errors
///
/// [`ShapeError::UnsupportedElementType`] for a shape whose elements are
/// not complex (XLA CHECK-fails).
pub fn complex_component_shape(shape: &Shape) -> Result<Shape, ShapeError> {
    let component = element_type(shape)
        .and_then(|t| primitive_util::complex_component_type(t).ok())
        .ok_or_else(|| ShapeError::UnsupportedElementType {
            element_type: crate::kind::lowercase_type_name(shape.element_type),
        })?;
    change_element_type(shape, component)
}

/// XLA's `ElementCanUpcast`: whether `to`'s element type is the higher
/// precision of the two ([`primitive_util::higher_precision_type`]). Two
/// different types XLA ranks equal, and shapes that are not arrays (where
/// XLA CHECK-fails), answer `false`.
///
/// ```
/// let (f16, f32): (schema::Shape, schema::Shape) = ("f16[2]".parse().unwrap(), "f32[2]".parse().unwrap());
/// assert!(shape_util::element_can_upcast(&f16, &f32));
/// assert!(!shape_util::element_can_upcast(&f32, &f16));
/// ```
pub fn element_can_upcast(from: &Shape, to: &Shape) -> bool {
    let (Some(f), Some(t)) = (array_element(from), array_element(to)) else {
        return false;
    };
    primitive_util::higher_precision_type(f, t) == Ok(t)
}

/// XLA's `StaticExtentProduct`: the product of the dimensions, bounded
/// dynamic ones at their bound and unbounded (`?`) ones left out.
///
/// ```
/// assert_eq!(shape_util::static_extent_product(&"f32[2,?,<=3]".parse().unwrap()).unwrap(), 6);
/// ```
///
/// # Errors
///
/// [`ShapeError::NotAnArray`], or [`ShapeError::StaticExtentOverflow`]
/// when the product overflows `i64`.
pub fn static_extent_product(shape: &Shape) -> Result<i64, ShapeError> {
    let array = expect_array(shape)?;
    let mut product: i64 = 1;
    for (i, &d) in array.dimensions.iter().enumerate() {
        if d == UNBOUNDED_SIZE && is_dynamic_dimension(array, i) {
            continue;
        }
        product = product
            .checked_mul(d)
            .ok_or_else(|| ShapeError::StaticExtentOverflow {
                dimensions: array.dimensions.clone(),
            })?;
    }
    Ok(product)
}

/// XLA's `ByteSizeOfTupleIndexTable`: one pointer per element of a tuple,
/// what [`byte_size_of`](crate::byte_size_of) counts for a tuple.
///
/// ```
/// assert_eq!(shape_util::byte_size_of_tuple_index_table(&"(f32[], s8[])".parse().unwrap(), 8).unwrap(), 16);
/// ```
///
/// # Errors
///
/// [`ShapeError::NotATuple`], [`ShapeError::PointerSizeRequired`] for a
/// pointer size below 1, [`ShapeError::ByteSizeOverflow`].
pub fn byte_size_of_tuple_index_table(shape: &Shape, pointer_size: i64) -> Result<i64, ShapeError> {
    if !is_tuple(shape) {
        return Err(ShapeError::NotATuple {
            shape: Box::new(shape.clone()),
        });
    }
    if pointer_size <= 0 {
        return Err(ShapeError::PointerSizeRequired {
            shape: Box::new(shape.clone()),
        });
    }
    i64::try_from(shape.tuple_shapes.len())
        .ok()
        .and_then(|n| n.checked_mul(pointer_size))
        .ok_or_else(|| ShapeError::ByteSizeOverflow {
            shape: Box::new(shape.clone()),
        })
}

/// XLA's `UpdateElementSizeInBits`: on every subshape with a layout, sets
/// `element_size_in_bits` to the type's bit width for sub-byte types when
/// `pack_subbyte_types` (so they pack, `E(4)`), else to 0 (one element per
/// byte, or the type's own size).
///
/// ```
/// let mut shape: schema::Shape = "(s4[8]{0}, f32[2]{0})".parse().unwrap();
/// shape_util::update_element_size_in_bits(&mut shape, true);
/// assert_eq!(shape.to_string(), "(s4[8]{0:E(4)}, f32[2]{0})");
/// shape_util::update_element_size_in_bits(&mut shape, false);
/// assert_eq!(shape.to_string(), "(s4[8]{0}, f32[2]{0})");
/// ```
pub fn update_element_size_in_bits(shape: &mut Shape, pack_subbyte_types: bool) {
    for_each_mutable_subshape(shape, |sub, _| {
        let ty = element_type(sub).filter(|t| pack_subbyte_types && t.is_sub_byte());
        if let Some(layout) = sub.layout.as_deref_mut() {
            layout.element_size_in_bits =
                ty.and_then(PrimitiveType::bit_width).map_or(0, i64::from);
        }
    });
}

/// XLA's `DeviceShapeToHostShape`: every array's layout stripped of what
/// only a device has: tiles, memory space, physical shape, element size,
/// tail padding alignment (back to 1) and dynamic-shape metadata prefix.
///
/// ```
/// let device: schema::Shape = "(bf16[8,128]{1,0:T(8,128)(2,1)S(1)}, s4[8]{0:E(4)})".parse().unwrap();
/// let host = shape_util::device_shape_to_host_shape(device);
/// assert_eq!(host.to_string(), "(bf16[8,128]{1,0}, s4[8]{0})");
/// ```
pub fn device_shape_to_host_shape(mut shape: Shape) -> Shape {
    for_each_mutable_subshape(&mut shape, |sub, _| {
        if !is_array(sub) {
            return;
        }
        if let Some(layout) = sub.layout.as_deref_mut() {
            layout.tiles.clear();
            layout.memory_space = 0;
            layout.physical_shape = None;
            layout.element_size_in_bits = 0;
            layout.tail_padding_alignment_in_elements = 1;
            layout.dynamic_shape_metadata_prefix_bytes = 0;
        }
    });
    shape
}

/// XLA's `ArrayDataSize`: the bytes up to and including the last element
/// of an array in its layout ([`layout_util::linear_index`] of
/// `[d0-1, d1-1, ...]`, by the first tile, plus one), so the padding after
/// the last element is left out where [`crate::array_size`] counts it. An
/// array with a zero-sized dimension has 0.
///
/// ```
/// let size = |text: &str| shape_util::array_data_size(&text.parse().unwrap()).unwrap();
/// assert_eq!(size("f32[3,5]{1,0:T(2,2)}"), 84); // 96 allocated
/// assert_eq!(size("f32[3,5]{1,0}"), 60);
/// assert_eq!(size("s4[5]{0:E(4)}"), 3);
/// assert_eq!(size("f32[0,5]{1,0:T(2,2)}"), 0);
/// ```
///
/// # Errors
///
/// [`ShapeError::NotAnArray`]; the errors of [`layout_util::linear_index`]
/// (a layout that does not fit the shape; a missing one is taken as the
/// default, major-to-minor).
pub fn array_data_size(shape: &Shape) -> Result<i64, ShapeError> {
    let array = expect_array(shape)?;
    let ty = array_element(array).ok_or_else(|| ShapeError::not_an_array(shape))?;
    if array.dimensions.contains(&0) {
        return Ok(0);
    }
    let default;
    let laid_out = if array.layout.is_some() {
        array
    } else {
        let mut with_layout = array.clone();
        layout_util::set_to_default_layout(&mut with_layout);
        default = with_layout;
        &default
    };
    let last: Vec<i64> = array.dimensions.iter().map(|&d| d - 1).collect();
    let elements = layout_util::linear_index(laid_out, &last)? + 1;
    let overflow = || ShapeError::ByteSizeOverflow {
        shape: Box::new(array.clone()),
    };
    let bits = array
        .layout
        .as_deref()
        .map_or(0, |l| l.element_size_in_bits);
    if bits != 0 {
        let total = elements.checked_mul(bits).ok_or_else(overflow)?;
        return Ok(total / 8 + i64::from(total % 8 != 0));
    }
    elements
        .checked_mul(byte_size_of_primitive_type(ty)?)
        .ok_or_else(overflow)
}
