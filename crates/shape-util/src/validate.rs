//! Shape validation with XLA's checks and message texts
//! (`ShapeUtil::ValidateShape`, `ValidateShapeWithOptionalLayout`).
//!
//! A [`Shape`] here is the raw proto, which can hold things XLA's C++
//! `Shape` cannot (a tuple with dimensions, a token with tuple shapes, a
//! dynamic-flag list of the wrong length). The checks run in XLA's order:
//! first what XLA's `Shape::FromProto` rejects, then
//! `ValidateNonLayoutProperties` (where proto content that does not fit the
//! element type is reported as XLA's "must have a ... state" messages),
//! then the layouts through [`layout_util::validate_layout_in_shape`].

use schema::{PrimitiveType, Shape, UNBOUNDED_SIZE};

use crate::kind::{element_type, is_array, is_buffer, lowercase_type_name};
use crate::{InvalidShape, ShapeError};

/// Checks that `shape` is valid and that every array in it has a valid
/// layout (`ShapeUtil::ValidateShape`).
///
/// # Errors
///
/// The first failing check, with XLA's text: the proto checks
/// (`Malformed shape proto: number of is_dynamic_dimension fields ...`,
/// `Buffer shape must have exactly one tuple shape.`,
/// `Buffer shape must have array shape.`, `Malformed shape proto:
/// element_type %s should not have a layout.`), then
/// [`ShapeError::Invalid`] (`Shape Error: <msg> Shape(<type>): <shape>`),
/// `Shape %s size may overflow int64_t.`, then the layout errors
/// ([`ShapeError::Layout`]), including `shape %s does not have a layout`,
/// and last [`ShapeError::PaddedSizeOverflow`] for a classic padded layout
/// whose padded element count or byte size passes `i64`.
///
/// ```
/// use schema::{PrimitiveType, Shape};
/// let good = shape_util::make_shape(PrimitiveType::F32, &[2, 3]).unwrap();
/// assert!(shape_util::validate_shape(&good).is_ok());
///
/// let negative = Shape { element_type: PrimitiveType::F32 as i32, dimensions: vec![2, -3], ..Shape::default() };
/// assert_eq!(
///     shape_util::validate_shape(&negative).unwrap_err().to_string(),
///     "Shape Error: Negative dimension at index 1: -3. Shape(f32): f32[2,-3]",
/// );
///
/// let too_big = Shape {
///     element_type: PrimitiveType::F32 as i32,
///     dimensions: vec![i64::MAX],
///     layout: Some(Box::new(layout_util::make_layout(&[0]))),
///     ..Shape::default()
/// };
/// assert_eq!(
///     shape_util::validate_shape(&too_big).unwrap_err().to_string(),
///     format!("Shape f32[{}] size may overflow int64_t.", i64::MAX),
/// );
/// ```
pub fn validate_shape(shape: &Shape) -> Result<(), ShapeError> {
    validate_non_layout_properties(shape)?;
    layout_util::validate_layout_in_shape(shape, false)?;
    validate_padded_sizes(shape)
}

/// As [`validate_shape`], but arrays without a layout are accepted
/// (`ShapeUtil::ValidateShapeWithOptionalLayout`); layouts that are present
/// are still checked.
///
/// # Errors
///
/// As [`validate_shape`], except the missing-layout error.
///
/// ```
/// use schema::{PrimitiveType, Shape};
/// let no_layout = Shape {
///     element_type: PrimitiveType::F32 as i32,
///     dimensions: vec![2, 3],
///     ..Shape::default()
/// };
/// assert!(shape_util::validate_shape_with_optional_layout(&no_layout).is_ok());
/// assert_eq!(
///     shape_util::validate_shape(&no_layout).unwrap_err().to_string(),
///     "shape f32[2,3] does not have a layout",
/// );
/// ```
pub fn validate_shape_with_optional_layout(shape: &Shape) -> Result<(), ShapeError> {
    validate_non_layout_properties(shape)?;
    layout_util::validate_layout_in_shape(shape, true)?;
    validate_padded_sizes(shape)
}

/// After the layouts are valid: every array with a classic padded layout
/// has a padded element count, and a byte size, that fit in `i64`.
fn validate_padded_sizes(shape: &Shape) -> Result<(), ShapeError> {
    if !is_array(shape) {
        return shape
            .tuple_shapes
            .iter()
            .try_for_each(validate_padded_sizes);
    }
    let Some(layout) = shape.layout.as_deref() else {
        return Ok(());
    };
    let padded = &layout.padded_dimensions;
    if padded.is_empty() {
        return Ok(());
    }
    let overflow = |what| ShapeError::PaddedSizeOverflow {
        what,
        shape: Box::new(shape.clone()),
        padded_dimensions: padded.clone(),
    };
    // Valid padding has no negative extent (each is at least its size).
    padded
        .iter()
        .try_fold(1_i64, |count, &extent| count.checked_mul(extent))
        .ok_or_else(|| overflow("element count"))?;
    match crate::byte_size_of_elements(shape) {
        Err(ShapeError::ByteSizeOverflow { .. }) => Err(overflow("byte size")),
        _ => Ok(()),
    }
}

fn validate_non_layout_properties(shape: &Shape) -> Result<(), ShapeError> {
    validate_proto_structure(shape)?;
    validate_states(shape)
}

/// What XLA's `Shape::FromProto` rejects (through tuples and buffers): the
/// contents first, then a layout on this shape unless it is an array or a
/// buffer (XLA's `IsArray`).
fn validate_proto_structure(shape: &Shape) -> Result<(), ShapeError> {
    validate_proto_contents(shape)?;
    if shape.layout.is_some() && !is_array(shape) && !is_buffer(shape) {
        // XLA stores an unknown type number as PRIMITIVE_TYPE_INVALID.
        let name = element_type(shape).unwrap_or(PrimitiveType::Invalid);
        return Err(ShapeError::LayoutOnNonArray {
            element_type: name.as_str_name().to_owned(),
            number: shape.element_type,
        });
    }
    Ok(())
}

/// The per-kind part of [`validate_proto_structure`].
fn validate_proto_contents(shape: &Shape) -> Result<(), ShapeError> {
    match element_type(shape) {
        Some(PrimitiveType::Tuple) => shape
            .tuple_shapes
            .iter()
            .try_for_each(validate_proto_structure),
        Some(PrimitiveType::Buffer) => {
            let [inner] = shape.tuple_shapes.as_slice() else {
                return Err(ShapeError::BufferTupleShapeCount {
                    count: shape.tuple_shapes.len(),
                });
            };
            validate_proto_structure(inner)?;
            if is_array(inner) {
                Ok(())
            } else {
                Err(ShapeError::BufferNotArray {
                    shape: Box::new(inner.clone()),
                })
            }
        }
        Some(t) if t.is_array_type() => {
            let (dynamic, dimensions) = (shape.is_dynamic_dimension.len(), shape.dimensions.len());
            if dynamic != 0 && dynamic != dimensions {
                return Err(ShapeError::MalformedDynamicDimensions {
                    dynamic,
                    dimensions,
                });
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// XLA's `ValidateNonLayoutProperties`.
fn validate_states(shape: &Shape) -> Result<(), ShapeError> {
    let invalid = |reason| ShapeError::Invalid {
        reason,
        element_type: lowercase_type_name(shape.element_type),
        shape: Box::new(shape.clone()),
    };
    let has_dimensions = !shape.dimensions.is_empty() || !shape.is_dynamic_dimension.is_empty();
    let has_elements = !shape.tuple_shapes.is_empty();
    match element_type(shape) {
        None | Some(PrimitiveType::Invalid) => Err(invalid(InvalidShape::InvalidElementType)),
        Some(PrimitiveType::Tuple) => {
            if has_dimensions {
                return Err(invalid(InvalidShape::NotTupleState));
            }
            shape.tuple_shapes.iter().try_for_each(validate_states)
        }
        Some(PrimitiveType::Buffer) => {
            if has_dimensions || shape.tuple_shapes.len() != 1 {
                return Err(invalid(InvalidShape::NotBufferState));
            }
            shape.tuple_shapes.iter().try_for_each(validate_states)
        }
        Some(PrimitiveType::Token) if has_dimensions || has_elements => {
            Err(invalid(InvalidShape::NotTokenState))
        }
        Some(PrimitiveType::OpaqueType) if has_dimensions || has_elements => {
            Err(invalid(InvalidShape::NotOpaqueState))
        }
        Some(PrimitiveType::Token | PrimitiveType::OpaqueType) => Ok(()),
        Some(array_type) => {
            if has_elements {
                return Err(invalid(InvalidShape::NotArrayState));
            }
            validate_dimensions(shape).map_err(invalid)?;
            validate_shape_size(shape, array_type)
        }
    }
}

/// XLA's `ValidateDimensions`: no negative dimension (the unbounded size is
/// skipped), and the product of the others fits in `i64`.
fn validate_dimensions(shape: &Shape) -> Result<(), InvalidShape> {
    let sized = || {
        shape
            .dimensions
            .iter()
            .copied()
            .enumerate()
            .filter(|&(_, size)| size != UNBOUNDED_SIZE)
    };
    if let Some((index, size)) = sized().find(|&(_, size)| size < 0) {
        return Err(InvalidShape::NegativeDimension { index, size });
    }
    sized()
        .try_fold(1_i64, |product, (_, size)| product.checked_mul(size))
        .map(drop)
        .ok_or(InvalidShape::DimensionsOverflow)
}

/// XLA's `ValidateShapeSize`: the element count times the element byte size
/// (sub-byte types count as one byte) fits in `i64`.
fn validate_shape_size(shape: &Shape, array_type: PrimitiveType) -> Result<(), ShapeError> {
    let byte_width = array_type.byte_width().unwrap_or(1);
    // The sizes left to right, then the byte width, as XLA: a zero size
    // before the bytes are counted makes `s64[<=2^62,0,2]` valid.
    shape
        .dimensions
        .iter()
        .filter(|&&size| size != UNBOUNDED_SIZE)
        .try_fold(1_i64, |product, &size| product.checked_mul(size))
        .and_then(|elements| elements.checked_mul(byte_width))
        .map(drop)
        .ok_or_else(|| ShapeError::SizeMayOverflow {
            shape: Box::new(shape.clone()),
        })
}
