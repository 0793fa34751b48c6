//! Array literals to and from raw buffers in any layout, through the
//! relayout engine.

use schema::{Layout, LiteralProto, PrimitiveType, Shape};

use crate::error::{LiteralError, MAX_GROWTH};
use crate::storage;

/// The checked shape of an array literal: its type, element count and
/// data as XLA's `Literal` holds it.
pub(crate) struct ArrayData {
    pub(crate) ty: PrimitiveType,
    pub(crate) data: Vec<u8>,
}

/// The shape of `literal`, or [`LiteralError::NoShape`].
pub(crate) fn shape_of(literal: &LiteralProto) -> Result<&Shape, LiteralError> {
    literal.shape.as_ref().ok_or(LiteralError::NoShape)
}

/// Checks an array shape the way XLA's `Literal::CreateFromProto` does
/// (a layout, a valid shape), plus what XLA's literals cannot hold (`E(n)`,
/// dynamic dimensions); its element type and element count.
pub(crate) fn check_array(shape: &Shape) -> Result<(PrimitiveType, u64), LiteralError> {
    let ty = storage::element_type(shape)?;
    let layout = shape.layout.as_deref().ok_or(LiteralError::NoLayout)?;
    shape_util::validate_shape_with_optional_layout(shape)
        .map_err(|e| LiteralError::InvalidShape(e.to_string()))?;
    let unsupported = |what: &str| LiteralError::Unsupported {
        shape: Box::new(shape.clone()),
        what: what.to_string(),
    };
    if layout.element_size_in_bits != 0 {
        return Err(unsupported(
            "element_size_in_bits in a LiteralProto's shape (XLA's literals hold sub-byte \
             elements one per byte, and XLA refuses such a LiteralProto)",
        ));
    }
    if shape.is_dynamic_dimension.iter().any(|&d| d) {
        return Err(unsupported("a literal with dynamic dimensions"));
    }
    let elements = shape.dimensions.iter().try_fold(1_u64, |acc, &d| {
        u64::try_from(d).ok().and_then(|d| acc.checked_mul(d))
    });
    let elements = elements.ok_or_else(|| unsupported("an element count beyond u64"))?;
    Ok((ty, elements))
}

/// The data of the array `literal`, checked.
pub(crate) fn array_data(literal: &LiteralProto) -> Result<ArrayData, LiteralError> {
    let shape = shape_of(literal)?;
    let (ty, elements) = check_array(shape)?;
    let data = storage::read(literal, ty, elements, shape)?;
    Ok(ArrayData { ty, data })
}

/// The shape of the data XLA's `Literal` holds for `shape`: its
/// `minor_to_major` alone (tiles, padding and `E(n)` dropped).
pub(crate) fn storage_shape(shape: &Shape) -> Shape {
    let mut storage = shape.clone();
    let minor_to_major = shape
        .layout
        .as_deref()
        .map(|l| l.minor_to_major.clone())
        .unwrap_or_default();
    storage.layout = Some(Box::new(layout_util::make_layout(&minor_to_major)));
    storage
}

/// The bytes of the buffer of an array shape in its layout (XLA's
/// `ShapeUtil::ArraySize`, classic padding and tiles included).
fn buffer_size(shape: &Shape) -> Result<u64, LiteralError> {
    let bytes = index_util::TiledLayout::array_size(shape)
        .map_err(|e| LiteralError::InvalidShape(e.to_string()))?;
    // A size is never negative.
    Ok(bytes.unsigned_abs())
}

/// The array `literal` as a raw buffer in `layout`, or in the layout of its
/// own shape when `None`: tiles, classic padding (filled with the padding
/// value) and `E(n)` packing of sub-byte types as the layout says. Without
/// `E(n)`, sub-byte elements take one byte each (low bits), as in the
/// LiteralProto.
///
/// # Errors
///
/// [`LiteralError::NoShape`], [`LiteralError::NoLayout`],
/// [`LiteralError::InvalidShape`], [`LiteralError::NotAnArray`] for a tuple
/// or token (see [`crate::element`]), [`LiteralError::Unsupported`] for F6
/// types, `E(n)` in the literal's own shape and dynamic dimensions,
/// [`LiteralError::DataSize`] when the data field holds more or fewer
/// values than the shape needs, [`LiteralError::BufferTooLarge`] and the
/// relayout engine's errors for the layout.
///
/// ```
/// use literal_util::{from_buffer, to_buffer};
///
/// let shape: schema::Shape = "s8[2,3]{1,0}".parse().unwrap();
/// let literal = from_buffer(&shape, &[1, 2, 3, 4, 5, 6]).unwrap();
/// let column_major: schema::Layout = layout_util::make_layout(&[0, 1]);
/// assert_eq!(to_buffer(&literal, Some(&column_major)).unwrap(), [1, 4, 2, 5, 3, 6]);
/// ```
pub fn to_buffer(literal: &LiteralProto, layout: Option<&Layout>) -> Result<Vec<u8>, LiteralError> {
    let shape = shape_of(literal)?;
    let array = array_data(literal)?;
    let mut target = shape.clone();
    if let Some(layout) = layout {
        target.layout = Some(Box::new(layout.clone()));
        shape_util::validate_shape_with_optional_layout(&target)
            .map_err(|e| LiteralError::InvalidShape(e.to_string()))?;
    }
    let bytes = buffer_size(&target)?;
    let data = array.data.len() as u64;
    if bytes > data.saturating_mul(MAX_GROWTH).saturating_add(1 << 20) {
        return Err(LiteralError::BufferTooLarge {
            shape: Box::new(target.clone()),
            bytes,
            data,
        });
    }
    let mut out = vec![0_u8; usize::try_from(bytes).unwrap_or(usize::MAX)];
    relayout::relayout_xla(&array.data, &storage_shape(shape), &mut out, &target)?;
    Ok(out)
}

/// The LiteralProto XLA's `Literal::ToProto` writes for the array `buffer`
/// laid out as `shape` (its layout, or the default one if it has none): the
/// data in the order of `minor_to_major`, the shape without `E(n)` and
/// classic padding (XLA's literals hold neither), tiles kept.
///
/// # Errors
///
/// [`LiteralError::BufferSize`] unless `buffer` is exactly the layout's
/// buffer size; the shape errors of [`to_buffer`]; the relayout engine's.
///
/// ```
/// let shape: schema::Shape = "s4[4]{0:E(4)}".parse().unwrap();
/// let literal = literal_util::from_buffer(&shape, &[0x21, 0x8f]).unwrap();
/// assert_eq!(literal.s4s, [1, 2, 0xf, 0x8]);
/// assert_eq!(literal_util::to_text(&literal).unwrap(), "{1, 2, -1, -8}");
/// ```
pub fn from_buffer(shape: &Shape, buffer: &[u8]) -> Result<LiteralProto, LiteralError> {
    let mut shape = shape.clone();
    if shape.layout.is_none() && layout_util::is_array(&shape) {
        layout_util::set_to_default_layout(&mut shape);
    }
    let mut literal_shape = shape.clone();
    if let Some(layout) = literal_shape.layout.as_deref_mut() {
        layout.element_size_in_bits = 0;
        layout.padded_dimensions.clear();
        layout.padding_value = 0;
    }
    let (ty, elements) = check_array(&literal_shape)?;
    let expected = buffer_size(&shape)?;
    if buffer.len() as u64 != expected {
        return Err(LiteralError::BufferSize {
            shape: Box::new(shape.clone()),
            expected,
            actual: buffer.len() as u64,
        });
    }
    // At most the buffer's size times 8 (one byte per packed element).
    let bytes = elements.saturating_mul(storage::width(ty) as u64);
    let mut data = vec![0_u8; usize::try_from(bytes).unwrap_or(usize::MAX)];
    relayout::relayout_xla(buffer, &shape, &mut data, &storage_shape(&literal_shape))?;
    let mut literal = LiteralProto {
        shape: Some(literal_shape),
        ..Default::default()
    };
    storage::write(&mut literal, ty, data);
    Ok(literal)
}

/// The element of a tuple literal at `index` (one position per tuple
/// level; an empty index is `literal` itself).
///
/// # Errors
///
/// [`LiteralError::NoShape`], [`LiteralError::NotAnArray`] when indexing
/// into an array, [`LiteralError::BadIndex`], and the tuple checks of
/// [`crate::to_text`].
///
/// ```
/// let pair = schema::LiteralProto {
///     shape: Some("(f32[], s8[2])".parse().unwrap()),
///     ..Default::default()
/// };
/// assert!(literal_util::element(&pair, &[2]).is_err());
/// ```
pub fn element<'a>(
    literal: &'a LiteralProto,
    index: &[usize],
) -> Result<&'a LiteralProto, LiteralError> {
    let mut current = literal;
    for &i in index {
        let shape = shape_of(current)?;
        if PrimitiveType::try_from(shape.element_type) != Ok(PrimitiveType::Tuple) {
            return Err(LiteralError::NotAnArray {
                shape: Box::new(shape.clone()),
                what: "only tuples have elements",
            });
        }
        if i >= shape.tuple_shapes.len() {
            return Err(LiteralError::BadIndex {
                index: i,
                shape: Box::new(shape.clone()),
            });
        }
        check_tuple(current, shape)?;
        current = &current.tuple_literals[i];
    }
    Ok(current)
}

/// Checks that the tuple `literal` has one element literal per element of
/// its shape, each with that element's shape (as XLA does).
pub(crate) fn check_tuple(literal: &LiteralProto, shape: &Shape) -> Result<(), LiteralError> {
    if literal.tuple_literals.len() != shape.tuple_shapes.len() {
        return Err(LiteralError::TupleSize {
            expected: shape.tuple_shapes.len(),
            actual: literal.tuple_literals.len(),
        });
    }
    for (index, (element, expected)) in literal
        .tuple_literals
        .iter()
        .zip(&shape.tuple_shapes)
        .enumerate()
    {
        let actual = shape_of(element)?;
        if actual != expected {
            return Err(LiteralError::TupleElementShape {
                index,
                expected: Box::new(expected.clone()),
                actual: Box::new(actual.clone()),
            });
        }
    }
    Ok(())
}
