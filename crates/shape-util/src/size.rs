//! Sizes in bytes and bits (XLA's `ShapeUtil::ByteSizeOf`,
//! `ByteSizeOfElements`, `ElementSizeInBits`, `UnpackedByteStrides`).
//!
//! Element widths come from [`PrimitiveType::bit_width`] and
//! [`PrimitiveType::byte_width`] (`s4` is 4 bits wide but takes a whole
//! byte unless the layout packs it with `E(4)`). A classic padded layout
//! stores its padded extents, so sizes and strides use those. The crate
//! documentation's [Sizes](crate#sizes) table says what each size function
//! counts.

use schema::{PrimitiveType, Shape};

use crate::ShapeError;
use crate::kind::{array_type, element_type, is_array, is_buffer, lowercase_type_name};
use crate::query::{checked_product, expect_array};

/// The bytes one unpacked element of `element_type` takes
/// (`ShapeUtil::ByteSizeOfPrimitiveType`): 1 for `pred` and the sub-byte
/// types, 8 for `c64`.
///
/// # Errors
///
/// [`ShapeError::UnhandledPrimitiveType`] for non-array types (XLA
/// `LOG(FATAL)`s).
///
/// ```
/// use schema::PrimitiveType;
/// assert_eq!(shape_util::byte_size_of_primitive_type(PrimitiveType::S4).unwrap(), 1);
/// assert_eq!(shape_util::byte_size_of_primitive_type(PrimitiveType::C128).unwrap(), 16);
/// assert!(shape_util::byte_size_of_primitive_type(PrimitiveType::Tuple).is_err());
/// ```
pub fn byte_size_of_primitive_type(element_type: PrimitiveType) -> Result<i64, ShapeError> {
    element_type
        .byte_width()
        .ok_or_else(|| ShapeError::UnhandledPrimitiveType {
            element_type: element_type.lowercase_name().to_owned(),
        })
}

/// The bits one element of an array takes in memory
/// (`ShapeUtil::ElementSizeInBits`): the layout's `element_size_in_bits`
/// if set (`E(4)`), else the unpacked byte size times 8 — so 8 for `s4`
/// without `E(4)`.
///
/// # Errors
///
/// [`ShapeError::NotAnArray`] for non-arrays.
///
/// ```
/// use layout_util::LayoutBuilder;
/// use schema::PrimitiveType;
/// let s4 = shape_util::make_shape(PrimitiveType::S4, &[8]).unwrap();
/// assert_eq!(shape_util::element_size_in_bits(&s4).unwrap(), 8);
/// let packed = shape_util::make_shape_with_layout(
///     PrimitiveType::S4,
///     &[8],
///     LayoutBuilder::new(&[0]).element_size_in_bits(4).build(),
/// )
/// .unwrap();
/// assert_eq!(packed.to_string(), "s4[8]{0:E(4)}");
/// assert_eq!(shape_util::element_size_in_bits(&packed).unwrap(), 4);
/// ```
pub fn element_size_in_bits(shape: &Shape) -> Result<i64, ShapeError> {
    let array = expect_array(shape)?;
    let ty = array_type(array).ok_or_else(|| ShapeError::not_an_array(shape))?;
    match array.layout.as_deref().map(|l| l.element_size_in_bits) {
        Some(bits) if bits != 0 => Ok(bits),
        _ => Ok(byte_size_of_primitive_type(ty)? * 8),
    }
}

/// The bytes of an array's elements (`ShapeUtil::ByteSizeOfElements`): the
/// element count (bounded dynamic dimensions count with their bound;
/// padded layouts with their padded extents) times the element size,
/// rounded up to whole bytes when the layout sets `element_size_in_bits`.
/// Tiles and tail padding are ignored, as in XLA (see [`array_size`] for
/// the bytes a tiled buffer occupies). A buffer counts its array.
///
/// # Errors
///
/// [`ShapeError::NotAnArray`] for non-arrays, the errors of
/// [`elements_in`](crate::elements_in), padding errors, and
/// [`ShapeError::ByteSizeOverflow`].
///
/// ```
/// use layout_util::LayoutBuilder;
/// use schema::PrimitiveType;
/// let f32 = shape_util::make_shape(PrimitiveType::F32, &[10, 20]).unwrap();
/// assert_eq!(shape_util::byte_size_of_elements(&f32).unwrap(), 800);
/// // Padded to [15, 21] (XLA's classic padded layout): 15 * 21 * 4 bytes.
/// let padded = shape_util::make_shape_with_layout(
///     PrimitiveType::F32,
///     &[10, 20],
///     LayoutBuilder::new(&[1, 0]).padded_dimensions(vec![15, 21]).build(),
/// )
/// .unwrap();
/// assert_eq!(shape_util::byte_size_of_elements(&padded).unwrap(), 1260);
/// // Seven 4-bit elements take 4 bytes.
/// let s4 = shape_util::make_shape_with_layout(
///     PrimitiveType::S4,
///     &[7],
///     LayoutBuilder::new(&[0]).element_size_in_bits(4).build(),
/// )
/// .unwrap();
/// assert_eq!(shape_util::byte_size_of_elements(&s4).unwrap(), 4);
/// ```
pub fn byte_size_of_elements(shape: &Shape) -> Result<i64, ShapeError> {
    let array = expect_array(shape)?;
    let overflow = || ShapeError::ByteSizeOverflow {
        shape: Box::new(array.clone()),
    };
    let extents = layout_util::padded_dimensions(array)?;
    let count = checked_product(array, extents)?;
    let bits = element_size_in_bits(array)?;
    let custom = array
        .layout
        .as_deref()
        .is_some_and(|l| l.element_size_in_bits != 0);
    if custom {
        // ceil(count * bits / 8), in i128: the bit count may pass i64::MAX
        // while the byte count fits (s4[i64::MAX]{0:E(4)} takes 2^62 bytes).
        let total_bits = i128::from(count) * i128::from(bits);
        let bytes = total_bits.div_euclid(8) + i128::from(total_bits.rem_euclid(8) != 0);
        i64::try_from(bytes).map_err(|_| overflow())
    } else {
        count.checked_mul(bits / 8).ok_or_else(overflow)
    }
}

/// The bytes `shape` takes (`ShapeUtil::ByteSizeOf(shape, pointer_size)`):
/// an array its [`byte_size_of_elements`], a buffer its array's, a token
/// 0, an opaque shape one pointer, and a tuple one pointer per element (its
/// index table; the elements live elsewhere).
///
/// # Errors
///
/// [`ShapeError::PointerSizeRequired`] for a tuple or opaque shape without
/// a positive `pointer_size` (XLA CHECK-fails),
/// [`ShapeError::UnhandledPrimitiveType`] for invalid types, and the errors
/// of [`byte_size_of_elements`].
///
/// ```
/// use schema::PrimitiveType;
/// let tuple = shape_util::make_tuple_shape(vec![
///     shape_util::make_shape(PrimitiveType::F32, &[1024]).unwrap(),
///     shape_util::make_token_shape(),
///     shape_util::make_opaque_shape(),
/// ]).unwrap();
/// assert_eq!(shape_util::byte_size_of(&tuple, Some(8)).unwrap(), 24);
/// assert!(shape_util::byte_size_of(&tuple, None).is_err());
/// let c64 = shape_util::make_shape(PrimitiveType::C64, &[3, 2]).unwrap();
/// assert_eq!(shape_util::byte_size_of(&c64, None).unwrap(), 48);
/// ```
pub fn byte_size_of(shape: &Shape, pointer_size: Option<i64>) -> Result<i64, ShapeError> {
    let pointer = || {
        pointer_size
            .filter(|&p| p > 0)
            .ok_or_else(|| ShapeError::PointerSizeRequired {
                shape: Box::new(shape.clone()),
            })
    };
    match element_type(shape) {
        Some(PrimitiveType::Tuple) => {
            let count = i64::try_from(shape.tuple_shapes.len()).map_err(|_| {
                ShapeError::ByteSizeOverflow {
                    shape: Box::new(shape.clone()),
                }
            })?;
            pointer()?
                .checked_mul(count)
                .ok_or_else(|| ShapeError::ByteSizeOverflow {
                    shape: Box::new(shape.clone()),
                })
        }
        Some(PrimitiveType::Token) => Ok(0),
        Some(PrimitiveType::OpaqueType) => pointer(),
        Some(PrimitiveType::Buffer) => byte_size_of_elements(shape),
        _ if is_array(shape) => byte_size_of_elements(shape),
        _ => Err(ShapeError::UnhandledPrimitiveType {
            element_type: lowercase_type_name(shape.element_type),
        }),
    }
}

/// The bytes a buffer of an array shape occupies (XLA's
/// `ShapeUtil::ArraySize`): tile padding, tail padding (`L(n)`), classic
/// padding and sub-byte packing (`E(n)`) included. For a tiled layout this
/// is exactly what XLA allocates; without tiles it is
/// [`byte_size_of_elements`] (XLA ignores `L(n)` then). It is
/// [`index_util::TiledLayout::array_size`]; see [`index_util::TiledLayout`]
/// for the positions in that buffer, and [`array_data_size`](crate::array_data_size)
/// for the bytes up to the last element.
///
/// Where XLA's formula is silent this follows XLA's tiled-layout document:
/// a `*` tile entry combines dimensions before rounding up (XLA's
/// `ArraySize` would round up to a multiple of `i64::MIN`).
///
/// # Errors
///
/// [`ShapeError::NotAnArray`] for non-arrays; [`ShapeError::Index`] as
/// [`index_util::TiledLayout::new`]: an invalid layout, tiles with classic
/// padding or split configs, overflow. Later tiles that pad beyond the first
/// tile's positions are sized as XLA sizes them, by the first tile alone
/// (`TiledLayout::new` refuses them: their positions would pass XLA's
/// allocation).
///
/// ```
/// let size = |text: &str| shape_util::array_size(&text.parse().unwrap()).unwrap();
/// // XLA's figure 1: 2x3 tiles of 2x2 f32.
/// assert_eq!(size("f32[3,5]{1,0:T(2,2)}"), 96);
/// // What XLA's CPU client allocates for TPU's bf16 and packed s4 formats.
/// assert_eq!(size("bf16[10,200]{1,0:T(8,128)(2,1)}"), 8192);
/// assert_eq!(size("s4[10,200]{1,0:T(8,128)(4,1)E(4)}"), 2048);
/// // A rank-1 shape under a 2-dimensional tile counts as [1,5].
/// assert_eq!(size("f32[5]{0:T(2,2)}"), 48);
/// // Untiled: the classic padded buffer.
/// assert_eq!(size("f32[2,3]{0,1:PAD(3,5)}"), 60);
/// ```
pub fn array_size(shape: &Shape) -> Result<i64, ShapeError> {
    let array = expect_array(shape)?;
    Ok(index_util::TiledLayout::array_size(array)?)
}

/// The bytes a buffer of any shape occupies, one call for arrays and the
/// rest: an array's (or a buffer shape's array's) [`array_size`], tiles and
/// padding included; for a tuple, token or opaque shape its
/// [`byte_size_of`] with `pointer_size` (a tuple's index table, one pointer
/// per element: its elements are buffers of their own). XLA has no single
/// function for this; its buffer assignment sizes a buffer so.
///
/// # Errors
///
/// The errors of [`array_size`] for arrays and of [`byte_size_of`] for the
/// rest ([`ShapeError::PointerSizeRequired`] for a tuple without a positive
/// `pointer_size`).
///
/// ```
/// let size = |text: &str| {
///     shape_util::allocated_size(&text.parse().unwrap(), Some(8)).unwrap()
/// };
/// assert_eq!(size("f32[3,5]{1,0:T(2,2)}"), 96);
/// assert_eq!(size("f32[3,5]"), 60);
/// // A tuple of two arrays: its table of two pointers.
/// assert_eq!(size("(f32[3,5]{1,0:T(2,2)}, s8[7])"), 16);
/// assert_eq!(size("token[]"), 0);
/// ```
pub fn allocated_size(shape: &Shape, pointer_size: Option<i64>) -> Result<i64, ShapeError> {
    if is_array(shape) || is_buffer(shape) {
        array_size(shape)
    } else {
        byte_size_of(shape, pointer_size)
    }
}

/// The byte stride of each dimension of an array in its layout
/// (`ShapeUtil::UnpackedByteStrides`, formerly `ByteStrides`): the most
/// minor dimension has the element byte size, each more major one the
/// stride of the previous times its (padded) extent. Tiles and
/// `element_size_in_bits` are ignored, as in XLA: `s4[2,4]{1,0:E(4)}` gives
/// `[4, 1]`.
///
/// # Errors
///
/// [`ShapeError::NotAnArray`], the layout's validation errors (including a
/// missing layout), and [`ShapeError::ByteSizeOverflow`].
///
/// ```
/// use schema::PrimitiveType;
/// let row_major = shape_util::make_shape(PrimitiveType::F32, &[2, 3, 4]).unwrap();
/// assert_eq!(shape_util::byte_strides(&row_major).unwrap(), [48, 16, 4]);
/// let column_major = shape_util::make_shape_with_dense_layout(PrimitiveType::F32, &[2, 3, 4], &[0, 1, 2]).unwrap();
/// assert_eq!(shape_util::byte_strides(&column_major).unwrap(), [4, 8, 24]);
/// ```
pub fn byte_strides(shape: &Shape) -> Result<Vec<i64>, ShapeError> {
    let array = expect_array(shape)?;
    let ty = array_type(array).ok_or_else(|| ShapeError::not_an_array(shape))?;
    let layout = layout_util::minor_to_major(array)?;
    if let Some(layout) = array.layout.as_deref() {
        layout_util::validate_layout_for_shape(layout, array)?;
    }
    let extents = layout_util::padded_dimensions(array)?;
    let mut strides = vec![0; extents.len()];
    let mut stride = byte_size_of_primitive_type(ty)?;
    for (position, &dimension) in layout.iter().enumerate() {
        // `validate_layout_for_shape` made `layout` a permutation of 0..rank.
        let d = usize::try_from(dimension).unwrap_or_default();
        strides[d] = stride;
        if position + 1 < layout.len() {
            stride =
                stride
                    .checked_mul(extents[d])
                    .ok_or_else(|| ShapeError::ByteSizeOverflow {
                        shape: Box::new(array.clone()),
                    })?;
        }
    }
    Ok(strides)
}
