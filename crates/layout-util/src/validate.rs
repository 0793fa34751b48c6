//! Validation of layouts against shapes, with XLA's checks and messages
//! (`LayoutUtil::ValidateLayoutForShape`/`ValidateLayoutInShape`) plus the
//! TensorFlow-era padding checks.

use schema::{COMBINE_DIMENSION, Layout, Shape};

use crate::LayoutError;
use crate::kind::{is_array, is_buffer, is_tuple, proto_type_name};

/// Checks that `layout` is a valid layout for `shape`, in XLA's order:
/// 1. a tuple cannot have a single layout; a token/opaque shape accepts
///    only a trivial layout (no `minor_to_major`, no padding); a buffer is
///    checked against its array;
/// 2. `minor_to_major` has one entry per dimension, each in `[0, rank)`,
///    with no duplicates;
/// 3. the classic padding: `padded_dimensions` is empty or has one entry
///    per dimension, each at least the dimension size;
/// 4. `tail_padding_alignment_in_elements > 0` (0, the proto default, is
///    read as 1 as XLA's `Layout::FromProto` does);
/// 5. no sparse-only fields (index/pointer type, physical shape);
/// 6. tiles are non-empty with dimensions `> 0` or `*`;
/// 7. `element_size_in_bits >= 0`;
/// 8. split configs: physical dimension in range and unique, split indices
///    strictly increasing, positive and below the split dimension's size.
///
/// # Errors
///
/// The first failing check, as a [`LayoutError`] whose Display is XLA's text.
///
/// ```
/// use layout_util::{make_layout, validate_layout_for_shape};
/// let shape = schema::Shape {
///     element_type: schema::PrimitiveType::F32 as i32,
///     dimensions: vec![2, 3],
///     is_dynamic_dimension: vec![false, false],
///     ..Default::default()
/// };
/// assert!(validate_layout_for_shape(&make_layout(&[0, 1]), &shape).is_ok());
/// assert_eq!(
///     validate_layout_for_shape(&make_layout(&[0, 0]), &shape).unwrap_err().to_string(),
///     "layout minor_to_major field has duplicate values: {0, 0}; shape: f32[2,3]",
/// );
/// ```
pub fn validate_layout_for_shape(layout: &Layout, shape: &Shape) -> Result<(), LayoutError> {
    if is_tuple(shape) {
        return Err(LayoutError::TupleLayout);
    }
    if is_buffer(shape) {
        // The array has the dimensions; errors name the buffer, as XLA's.
        return shape
            .tuple_shapes
            .first()
            .map_or(Ok(()), |array| validate_array_layout(layout, array, shape));
    }
    if !is_array(shape) {
        if layout.minor_to_major.is_empty() && layout.padded_dimensions.is_empty() {
            return Ok(());
        }
        return Err(LayoutError::NonTrivialLayout {
            element_type: proto_type_name(shape),
        });
    }
    validate_array_layout(layout, shape, shape)
}

/// The checks of an array's layout; errors name `named` (the array, or the
/// buffer holding it).
fn validate_array_layout(layout: &Layout, array: &Shape, named: &Shape) -> Result<(), LayoutError> {
    validate_minor_to_major(layout, array, named)?;
    validate_padding(layout, array)?;
    validate_scalar_fields(layout, named)?;
    validate_split_configs(layout, array, named)
}

/// Checks the layouts in `shape` (XLA's `LayoutUtil::ValidateLayoutInShape`):
/// every array (through tuples and buffers) must have a layout valid for it
/// (see [`validate_layout_for_shape`]), unless `allow_missing_layouts`, in
/// which case arrays without one pass. Token and opaque shapes pass unless
/// they carry a non-trivial layout.
///
/// # Errors
///
/// `shape %s does not have a layout`, XLA's `tuple should not have a layout
/// field` for a layout on a tuple, or any error of
/// [`validate_layout_for_shape`].
///
/// ```
/// let shape = schema::Shape {
///     element_type: schema::PrimitiveType::F32 as i32,
///     dimensions: vec![2, 3],
///     ..Default::default()
/// };
/// assert!(layout_util::validate_layout_in_shape(&shape, true).is_ok());
/// assert_eq!(
///     layout_util::validate_layout_in_shape(&shape, false).unwrap_err().to_string(),
///     "shape f32[2,3] does not have a layout",
/// );
/// ```
pub fn validate_layout_in_shape(
    shape: &Shape,
    allow_missing_layouts: bool,
) -> Result<(), LayoutError> {
    if is_tuple(shape) || is_buffer(shape) {
        if shape.layout.is_some() {
            return Err(if is_tuple(shape) {
                LayoutError::TupleHasLayout
            } else {
                LayoutError::NonTrivialLayout {
                    element_type: proto_type_name(shape),
                }
            });
        }
        if let Some(array) = shape.tuple_shapes.first().filter(|_| is_buffer(shape)) {
            // The buffer's array holds the layout; errors name the buffer.
            if is_array(array) {
                return validate_array_in_shape(array, shape, allow_missing_layouts);
            }
        }
        return shape
            .tuple_shapes
            .iter()
            .try_for_each(|element| validate_layout_in_shape(element, allow_missing_layouts));
    }
    validate_array_in_shape(shape, shape, allow_missing_layouts)
}

/// The layout check of one array (or token/opaque) shape; errors name
/// `named`.
fn validate_array_in_shape(
    array: &Shape,
    named: &Shape,
    allow_missing_layouts: bool,
) -> Result<(), LayoutError> {
    match &array.layout {
        Some(layout) if is_array(array) => validate_array_layout(layout, array, named),
        Some(layout) => validate_layout_for_shape(layout, array),
        None if is_array(array) && !allow_missing_layouts => Err(LayoutError::MissingLayout {
            shape: Box::new(named.clone()),
        }),
        None => Ok(()),
    }
}

/// `minor_to_major` must be a permutation of the shape's dimensions.
fn validate_minor_to_major(
    layout: &Layout,
    shape: &Shape,
    named: &Shape,
) -> Result<(), LayoutError> {
    let m2m = &layout.minor_to_major;
    let rank = shape.dimensions.len();
    if m2m.len() != rank {
        return Err(LayoutError::MinorToMajorLength {
            len: m2m.len(),
            rank,
            minor_to_major: m2m.clone(),
            shape: Box::new(named.clone()),
        });
    }
    let mut seen = vec![false; rank];
    for &dim in m2m {
        let Some(slot) = usize::try_from(dim).ok().and_then(|d| seen.get_mut(d)) else {
            return Err(LayoutError::MinorToMajorOutOfBounds {
                minor_to_major: m2m.clone(),
                shape: Box::new(named.clone()),
            });
        };
        if *slot {
            return Err(LayoutError::MinorToMajorDuplicate {
                minor_to_major: m2m.clone(),
                shape: Box::new(named.clone()),
            });
        }
        *slot = true;
    }
    Ok(())
}

/// The TensorFlow-era checks: `padded_dimensions` is empty or one padded
/// extent, at least the dimension size, per dimension.
pub(crate) fn validate_padding(layout: &Layout, shape: &Shape) -> Result<(), LayoutError> {
    let padded = &layout.padded_dimensions;
    if padded.is_empty() {
        return Ok(());
    }
    if padded.len() != shape.dimensions.len() {
        return Err(LayoutError::PaddedDimensionCount {
            count: padded.len(),
            rank: shape.dimensions.len(),
        });
    }
    for (dimension, (&padding, &size)) in padded.iter().zip(&shape.dimensions).enumerate() {
        if padding < size {
            return Err(LayoutError::PaddingSmallerThanDimension {
                dimension,
                padding,
                size,
            });
        }
    }
    Ok(())
}

/// Tail padding, sparse-only fields, tiles and element size, in XLA's order.
fn validate_scalar_fields(layout: &Layout, named: &Shape) -> Result<(), LayoutError> {
    if layout.tail_padding_alignment_in_elements < 0 {
        return Err(LayoutError::TailPaddingAlignment {
            alignment: layout.tail_padding_alignment_in_elements,
        });
    }
    if layout.index_primitive_type != 0 {
        return Err(LayoutError::IndexPrimitiveType {
            shape: Box::new(named.clone()),
        });
    }
    if layout.pointer_primitive_type != 0 {
        return Err(LayoutError::PointerPrimitiveType {
            shape: Box::new(named.clone()),
        });
    }
    if layout.physical_shape.is_some() {
        return Err(LayoutError::PhysicalShape {
            shape: Box::new(named.clone()),
        });
    }
    for tile in &layout.tiles {
        if tile.dimensions.is_empty() {
            return Err(LayoutError::EmptyTile {
                shape: Box::new(named.clone()),
            });
        }
        if let Some(&dimension) = tile
            .dimensions
            .iter()
            .find(|&&d| d <= 0 && d != COMBINE_DIMENSION)
        {
            return Err(LayoutError::InvalidTileDimension {
                dimension,
                shape: Box::new(named.clone()),
            });
        }
    }
    if layout.element_size_in_bits < 0 {
        return Err(LayoutError::NegativeElementSize {
            element_size_in_bits: layout.element_size_in_bits,
        });
    }
    Ok(())
}

/// Split configs (2026): the physical dimension is in range and unique; the
/// split indices are strictly increasing, positive, and below the size of
/// the logical dimension at that physical position (`Major(layout, dim)`).
/// Runs after `minor_to_major` is known to be a permutation.
fn validate_split_configs(
    layout: &Layout,
    shape: &Shape,
    named: &Shape,
) -> Result<(), LayoutError> {
    let rank = shape.dimensions.len();
    let mut seen = vec![false; rank];
    for config in &layout.split_configs {
        let dimension = config.dimension;
        let Some(physical) = usize::try_from(dimension).ok().filter(|&p| p < rank) else {
            return Err(LayoutError::SplitConfigDimensionOutOfBounds {
                dimension,
                shape: Box::new(named.clone()),
            });
        };
        if seen[physical] {
            return Err(LayoutError::SplitConfigDuplicateDimension {
                dimension,
                shape: Box::new(named.clone()),
            });
        }
        seen[physical] = true;
        let dim_size = crate::major(layout, physical)
            .and_then(|logical| usize::try_from(logical).ok())
            .and_then(|logical| shape.dimensions.get(logical).copied())
            .unwrap_or_default();
        // Index by index, as XLA: `SC(0:9,1)` on a dimension of size 0 is
        // out of bounds at 9 before it is out of order at 1.
        let mut previous = 0;
        for &index in &config.split_indices {
            if index <= previous {
                return Err(LayoutError::SplitIndicesNotIncreasing {
                    split_indices: config.split_indices.clone(),
                    shape: Box::new(named.clone()),
                });
            }
            if index >= dim_size {
                return Err(LayoutError::SplitIndexOutOfBounds {
                    index,
                    dim_size,
                    shape: Box::new(named.clone()),
                });
            }
            previous = index;
        }
    }
    Ok(())
}
