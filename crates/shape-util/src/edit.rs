//! Editing the dimensions and element type of shapes, keeping layouts,
//! dynamic flags and padded extents in step (XLA's `ShapeUtil::PermuteDimensions`,
//! `DeleteDimensions`, `DropDegenerateDimensions`, `InsertDimensionAtIndex`,
//! `AppendMajorDimension`, `PrependMajorDimension`, `AppendMinorDimension`,
//! `ChangeElementType`).
//!
//! Every function returns a new shape and leaves its input alone.

use schema::{Layout, PrimitiveType, Shape};

use crate::ShapeError;
use crate::kind::{is_array, is_buffer, is_dynamic_dimension, is_tuple, proto_type_name, to_i64};
use crate::permutation::{as_permutation, compose, inverse, permute, to_i64s};

/// `shape` with element type `element_type`, through tuples and buffers
/// (`ShapeUtil::ChangeElementType`). A layout's `element_size_in_bits` is
/// reset to 0 unless the new type is a sub-byte type.
///
/// # Errors
///
/// [`ShapeError::UnsupportedElementType`] if `element_type` is not an array
/// type, [`ShapeError::NotAnArray`] for tokens, opaque and invalid leaves.
///
/// ```
/// use layout_util::LayoutBuilder;
/// use schema::PrimitiveType;
/// let s4 = shape_util::make_shape_with_layout(
///     PrimitiveType::S4, &[8], LayoutBuilder::new(&[0]).element_size_in_bits(4).build(),
/// ).unwrap();
/// let u4 = shape_util::change_element_type(&s4, PrimitiveType::U4).unwrap();
/// assert_eq!(u4.to_string(), "u4[8]{0:E(4)}");
/// let u8 = shape_util::change_element_type(&s4, PrimitiveType::U8).unwrap();
/// assert_eq!(u8.to_string(), "u8[8]{0}");
/// ```
pub fn change_element_type(
    shape: &Shape,
    element_type: PrimitiveType,
) -> Result<Shape, ShapeError> {
    if !element_type.is_array_type() {
        return Err(ShapeError::UnsupportedElementType {
            element_type: proto_type_name(element_type as i32),
        });
    }
    if is_tuple(shape) || is_buffer(shape) {
        let mut result = shape.clone();
        result.tuple_shapes = shape
            .tuple_shapes
            .iter()
            .map(|element| change_element_type(element, element_type))
            .collect::<Result<_, _>>()?;
        return Ok(result);
    }
    if !is_array(shape) {
        return Err(ShapeError::not_an_array(shape));
    }
    let mut result = shape.clone();
    result.element_type = element_type as i32;
    if let Some(layout) = result.layout.as_deref_mut()
        && !element_type.is_sub_byte()
    {
        layout.element_size_in_bits = 0;
    }
    Ok(result)
}

/// Marks dimension `dimension` of an array dynamic or static
/// (`Shape::set_dynamic_dimension`); the size becomes its bound.
///
/// # Errors
///
/// [`ShapeError::NotAnArray`], [`ShapeError::DimensionOutOfRange`].
///
/// ```
/// use schema::PrimitiveType;
/// let mut shape = shape_util::make_shape(PrimitiveType::F32, &[3, 4, 5]).unwrap();
/// shape_util::set_dynamic_dimension(&mut shape, 1, true).unwrap();
/// assert_eq!(shape.to_string(), "f32[3,<=4,5]{2,1,0}");
/// ```
pub fn set_dynamic_dimension(
    shape: &mut Shape,
    dimension: usize,
    is_dynamic: bool,
) -> Result<(), ShapeError> {
    let rank = array_rank(shape)?;
    if dimension >= rank {
        return Err(ShapeError::DimensionOutOfRange {
            dimension: to_i64(dimension),
            rank,
        });
    }
    shape.is_dynamic_dimension.resize(rank, false);
    shape.is_dynamic_dimension[dimension] = is_dynamic;
    Ok(())
}

/// The transpose of an array: dimension `i` of the result is dimension
/// `permutation[i]` of `shape`, with its dynamic flag
/// (`ShapeUtil::PermuteDimensions`). If `shape` has a layout, the result's
/// layout keeps the same physical order, so the transpose is a bitcast
/// ([`transpose_is_bitcast`](crate::transpose_is_bitcast) holds); tiles and
/// other layout fields are kept, padded extents move with their dimensions.
///
/// # Errors
///
/// [`ShapeError::NotAnArray`], [`ShapeError::InvalidPermutation`], and the
/// layout's validation errors.
///
/// ```
/// use schema::PrimitiveType;
/// let shape = shape_util::make_shape_with_dense_layout(PrimitiveType::F32, &[2, 3, 4], &[2, 1, 0]).unwrap();
/// let permuted = shape_util::permute_dimensions(&shape, &[2, 0, 1]).unwrap();
/// assert_eq!(permuted.to_string(), "f32[4,2,3]{0,2,1}");
/// assert!(shape_util::transpose_is_bitcast(&shape, &permuted, &[2, 0, 1]).unwrap());
/// ```
pub fn permute_dimensions(shape: &Shape, permutation: &[i64]) -> Result<Shape, ShapeError> {
    let rank = array_rank(shape)?;
    let p = as_permutation(permutation, rank).ok_or_else(|| ShapeError::InvalidPermutation {
        permutation: permutation.to_vec(),
        rank,
        shape: Box::new(shape.clone()),
    })?;
    let mut result = shape.clone();
    result.dimensions = permute(&shape.dimensions, &p);
    result.is_dynamic_dimension = permute(&dynamic_flags(shape), &p);
    if let Some(layout) = result.layout.as_deref_mut() {
        layout_util::validate_layout_for_shape(layout, shape)?;
        let m2m = positions(&layout.minor_to_major);
        layout.minor_to_major = to_i64s(&compose(&inverse(&p), &m2m));
        if !layout.padded_dimensions.is_empty() {
            layout.padded_dimensions = permute(&layout.padded_dimensions, &p);
        }
    }
    Ok(result)
}

/// `shape` without dimension `dimension`; the layout drops its entry and
/// renumbers the others (`Shape::DeleteDimension`).
///
/// # Errors
///
/// As [`delete_dimensions`].
///
/// ```
/// use schema::PrimitiveType;
/// let shape = shape_util::make_shape_with_dense_layout(PrimitiveType::F32, &[2, 3, 4], &[0, 2, 1]).unwrap();
/// assert_eq!(shape_util::delete_dimension(&shape, 1).unwrap().to_string(), "f32[2,4]{0,1}");
/// ```
pub fn delete_dimension(shape: &Shape, dimension: i64) -> Result<Shape, ShapeError> {
    delete_dimensions(shape, &[dimension])
}

/// `shape` without the given dimensions, in any order
/// (`ShapeUtil::DeleteDimensions`).
///
/// # Errors
///
/// [`ShapeError::NotAnArray`], and [`ShapeError::DimensionOutOfRange`] for a
/// dimension out of range or given twice.
///
/// ```
/// use schema::PrimitiveType;
/// let shape = shape_util::make_shape(PrimitiveType::F32, &[2, 3, 4, 5]).unwrap();
/// assert_eq!(shape_util::delete_dimensions(&shape, &[3, 1]).unwrap().to_string(), "f32[2,4]{1,0}");
/// ```
pub fn delete_dimensions(shape: &Shape, dimensions: &[i64]) -> Result<Shape, ShapeError> {
    let rank = array_rank(shape)?;
    let mut delete = vec![false; rank];
    for &dimension in dimensions {
        let slot = usize::try_from(dimension)
            .ok()
            .and_then(|d| delete.get_mut(d))
            .filter(|already| !**already)
            .ok_or(ShapeError::DimensionOutOfRange { dimension, rank })?;
        *slot = true;
    }
    Ok(filter_dimensions(shape, |d| !delete[d]))
}

/// `shape` keeping only the dimensions `d` for which `keep(d)` holds
/// (`ShapeUtil::FilterDimensions`); non-arrays are returned unchanged.
fn filter_dimensions(shape: &Shape, keep: impl Fn(usize) -> bool) -> Shape {
    let rank = shape.dimensions.len();
    let kept: Vec<usize> = (0..rank).filter(|&d| keep(d)).collect();
    let mut new_number = vec![None; rank];
    for (new, &old) in kept.iter().enumerate() {
        new_number[old] = Some(new);
    }
    let flags = dynamic_flags(shape);
    let mut result = shape.clone();
    result.dimensions = kept.iter().map(|&d| shape.dimensions[d]).collect();
    result.is_dynamic_dimension = kept.iter().map(|&d| flags[d]).collect();
    if let Some(layout) = result.layout.as_deref_mut() {
        layout.minor_to_major = layout
            .minor_to_major
            .iter()
            .filter_map(
                |&d| match usize::try_from(d).ok().and_then(|d| new_number.get(d)) {
                    Some(Some(new)) => Some(to_i64(*new)),
                    Some(None) => None,
                    // Not a dimension number: left for validation to report.
                    None => Some(d),
                },
            )
            .collect();
        if layout.padded_dimensions.len() == rank {
            layout.padded_dimensions = kept.iter().map(|&d| layout.padded_dimensions[d]).collect();
        }
    }
    result
}

/// `shape` without its size-1 dimensions (`ShapeUtil::DropDegenerateDimensions`).
///
/// # Errors
///
/// [`ShapeError::NotAnArray`].
///
/// ```
/// use schema::PrimitiveType;
/// let shape = shape_util::make_shape_with_dense_layout(PrimitiveType::F32, &[4, 1, 3, 1], &[0, 1, 2, 3]).unwrap();
/// assert_eq!(shape_util::drop_degenerate_dimensions(&shape).unwrap().to_string(), "f32[4,3]{0,1}");
/// ```
pub fn drop_degenerate_dimensions(shape: &Shape) -> Result<Shape, ShapeError> {
    array_rank(shape)?;
    Ok(filter_dimensions(shape, |d| shape.dimensions[d] != 1))
}

/// `shape` with a new static dimension of size `size` inserted at logical
/// position `index` (`ShapeUtil::InsertDimensionAtIndex`). In the layout,
/// the new dimension becomes next-major to the dimension it displaces, or
/// the most minor when appended at the end.
///
/// # Errors
///
/// [`ShapeError::NotAnArray`], [`ShapeError::DimensionOutOfRange`] unless
/// `index <= rank`, [`ShapeError::InvalidDimensionSize`] for a negative size.
///
/// ```
/// use schema::PrimitiveType;
/// let shape = shape_util::make_shape(PrimitiveType::F32, &[2, 3]).unwrap();
/// assert_eq!(shape_util::insert_dimension_at_index(&shape, 0, 5).unwrap().to_string(), "f32[5,2,3]{2,1,0}");
/// assert_eq!(shape_util::insert_dimension_at_index(&shape, 2, 5).unwrap().to_string(), "f32[2,3,5]{2,1,0}");
/// ```
pub fn insert_dimension_at_index(
    shape: &Shape,
    index: usize,
    size: i64,
) -> Result<Shape, ShapeError> {
    let rank = array_rank(shape)?;
    if index > rank {
        return Err(ShapeError::DimensionOutOfRange {
            dimension: to_i64(index),
            rank,
        });
    }
    insert_dimension(shape, index, size, |m2m| {
        // After renumbering, the displaced dimension is `index + 1`.
        let displaced = to_i64(index + 1);
        m2m.iter()
            .position(|&d| d == displaced)
            .map_or(0, |position| position + 1)
    })
}

/// `shape` with a new last dimension of size `size` that is the most major
/// in the layout (`ShapeUtil::AppendMajorDimension`).
///
/// # Errors
///
/// [`ShapeError::NotAnArray`], [`ShapeError::InvalidDimensionSize`].
///
/// ```
/// use schema::PrimitiveType;
/// let shape = shape_util::make_shape(PrimitiveType::F32, &[2, 3]).unwrap();
/// assert_eq!(shape_util::append_major_dimension(&shape, 5).unwrap().to_string(), "f32[2,3,5]{1,0,2}");
/// let col = shape_util::make_shape_with_dense_layout(PrimitiveType::F32, &[2, 3], &[0, 1]).unwrap();
/// assert_eq!(shape_util::append_major_dimension(&col, 5).unwrap().to_string(), "f32[2,3,5]{0,1,2}");
/// ```
pub fn append_major_dimension(shape: &Shape, size: i64) -> Result<Shape, ShapeError> {
    let rank = array_rank(shape)?;
    insert_dimension(shape, rank, size, |m2m| m2m.len())
}

/// `shape` with a new first dimension of size `size` that is the most major
/// in the layout; the other dimensions shift up by one
/// (`ShapeUtil::PrependMajorDimension`).
///
/// # Errors
///
/// [`ShapeError::NotAnArray`], [`ShapeError::InvalidDimensionSize`].
///
/// ```
/// use schema::PrimitiveType;
/// let col = shape_util::make_shape_with_dense_layout(PrimitiveType::F32, &[2, 3], &[0, 1]).unwrap();
/// assert_eq!(shape_util::prepend_major_dimension(&col, 5).unwrap().to_string(), "f32[5,2,3]{1,2,0}");
/// ```
pub fn prepend_major_dimension(shape: &Shape, size: i64) -> Result<Shape, ShapeError> {
    array_rank(shape)?;
    insert_dimension(shape, 0, size, |m2m| m2m.len())
}

/// `shape` with a new last dimension of size `size` that is the most minor
/// in the layout (`ShapeUtil::AppendMinorDimension`).
///
/// # Errors
///
/// [`ShapeError::NotAnArray`], [`ShapeError::InvalidDimensionSize`].
///
/// ```
/// use schema::PrimitiveType;
/// let col = shape_util::make_shape_with_dense_layout(PrimitiveType::F32, &[2, 3], &[0, 1]).unwrap();
/// assert_eq!(shape_util::append_minor_dimension(&col, 5).unwrap().to_string(), "f32[2,3,5]{2,0,1}");
/// ```
pub fn append_minor_dimension(shape: &Shape, size: i64) -> Result<Shape, ShapeError> {
    let rank = array_rank(shape)?;
    insert_dimension(shape, rank, size, |_| 0)
}

/// Inserts a static dimension of `size` at logical `index`, renumbering the
/// layout, and places it at the `minor_to_major` position chosen by
/// `position` (given the renumbered `minor_to_major`).
fn insert_dimension(
    shape: &Shape,
    index: usize,
    size: i64,
    position: impl Fn(&[i64]) -> usize,
) -> Result<Shape, ShapeError> {
    if size < 0 {
        return Err(ShapeError::InvalidDimensionSize {
            size,
            is_dynamic: false,
        });
    }
    let rank = shape.dimensions.len();
    let mut result = shape.clone();
    result.dimensions.insert(index, size);
    let mut flags = dynamic_flags(shape);
    flags.insert(index, false);
    result.is_dynamic_dimension = flags;
    if let Some(layout) = result.layout.as_deref_mut() {
        insert_into_layout(layout, rank, index, size, position);
    }
    Ok(result)
}

fn insert_into_layout(
    layout: &mut Layout,
    rank: usize,
    index: usize,
    size: i64,
    position: impl Fn(&[i64]) -> usize,
) {
    let new = to_i64(index);
    for d in &mut layout.minor_to_major {
        if *d >= new {
            *d = d.saturating_add(1);
        }
    }
    let at = position(&layout.minor_to_major).min(layout.minor_to_major.len());
    layout.minor_to_major.insert(at, new);
    if layout.padded_dimensions.len() == rank && rank > 0 {
        layout.padded_dimensions.insert(index, size);
    }
}

/// The rank of an array, or [`ShapeError::NotAnArray`].
fn array_rank(shape: &Shape) -> Result<usize, ShapeError> {
    if is_array(shape) {
        Ok(shape.dimensions.len())
    } else {
        Err(ShapeError::not_an_array(shape))
    }
}

/// One dynamic flag per dimension (an empty list means all static).
fn dynamic_flags(shape: &Shape) -> Vec<bool> {
    (0..shape.dimensions.len())
        .map(|i| is_dynamic_dimension(shape, i))
        .collect()
}

/// A validated `minor_to_major` as indices.
fn positions(minor_to_major: &[i64]) -> Vec<usize> {
    minor_to_major
        .iter()
        .map(|&d| usize::try_from(d).unwrap_or_default())
        .collect()
}
