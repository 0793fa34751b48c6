//! Questions about a layout or the layouts in a shape (XLA's
//! `LayoutUtil::MinorToMajor`, `Major`, `Minor`, `HasLayout`, ...), and
//! copying or reordering layouts.

use schema::{Layout, Shape};

use crate::kind::{is_array, is_buffer, is_tuple};
use crate::{LayoutError, validate_layout_for_shape};

/// The `minor_to_major` of an array shape's layout (XLA's
/// `LayoutUtil::MinorToMajor(shape)`).
///
/// # Errors
///
/// [`LayoutError::MissingLayout`] if `shape` has no layout.
///
/// ```
/// let shape = schema::Shape {
///     element_type: schema::PrimitiveType::F32 as i32,
///     dimensions: vec![2, 3],
///     layout: Some(Box::new(layout_util::make_layout(&[0, 1]))),
///     ..Default::default()
/// };
/// assert_eq!(layout_util::minor_to_major(&shape).unwrap(), [0, 1]);
/// ```
pub fn minor_to_major(shape: &Shape) -> Result<&[i64], LayoutError> {
    shape
        .layout
        .as_deref()
        .map(|layout| layout.minor_to_major.as_slice())
        .ok_or_else(|| LayoutError::MissingLayout {
            shape: Box::new(shape.clone()),
        })
}

/// The logical dimension at physical position `physical`, counting from the
/// most major (XLA's `LayoutUtil::Major`: `minor_to_major[n-1-physical]`), or
/// `None` if `physical` is out of range.
///
/// ```
/// let layout = layout_util::make_layout(&[0, 2, 1]);
/// assert_eq!(layout_util::major(&layout, 0), Some(1));
/// assert_eq!(layout_util::major(&layout, 2), Some(0));
/// assert_eq!(layout_util::major(&layout, 3), None);
/// ```
pub fn major(layout: &Layout, physical: usize) -> Option<i64> {
    let m2m = &layout.minor_to_major;
    m2m.iter().rev().nth(physical).copied()
}

/// The logical dimension at physical position `physical`, counting from the
/// most minor (XLA's `LayoutUtil::Minor`: `minor_to_major[physical]`), or
/// `None` if `physical` is out of range.
///
/// ```
/// let layout = layout_util::make_layout(&[0, 2, 1]);
/// assert_eq!(layout_util::minor(&layout, 0), Some(0));
/// assert_eq!(layout_util::minor(&layout, 1), Some(2));
/// ```
pub fn minor(layout: &Layout, physical: usize) -> Option<i64> {
    layout.minor_to_major.get(physical).copied()
}

/// For each logical dimension, its physical position counting from the most
/// major (XLA's `LayoutUtil::MakeLogicalToPhysical`, the inverse of
/// [`major`]).
///
/// # Errors
///
/// [`LayoutError::NotAPermutation`] if `minor_to_major` is not a permutation
/// of `0..n`.
///
/// ```
/// let layout = layout_util::make_layout(&[0, 2, 1]);
/// // Physical order, major to minor: 1, 2, 0.
/// assert_eq!(layout_util::make_logical_to_physical(&layout).unwrap(), [2, 0, 1]);
/// ```
pub fn make_logical_to_physical(layout: &Layout) -> Result<Vec<i64>, LayoutError> {
    let m2m = &layout.minor_to_major;
    let not_a_permutation = || LayoutError::NotAPermutation {
        minor_to_major: m2m.clone(),
    };
    let n = m2m.len();
    let mut logical_to_physical = vec![-1_i64; n];
    for (physical, slot) in (0..n).rev().zip(m2m) {
        let logical = usize::try_from(*slot)
            .ok()
            .filter(|&l| l < n)
            .ok_or_else(not_a_permutation)?;
        if logical_to_physical[logical] >= 0 {
            return Err(not_a_permutation());
        }
        logical_to_physical[logical] = i64::try_from(physical).map_err(|_| not_a_permutation())?;
    }
    Ok(logical_to_physical)
}

/// Whether `minor_to_major` is ascending, i.e. dim 0 is the most minor
/// (XLA's `LayoutUtil::IsMonotonicWithDim0Minor`, column-major for rank 2).
///
/// ```
/// assert!(layout_util::is_monotonic_with_dim0_minor(&layout_util::make_layout(&[0, 1])));
/// assert!(!layout_util::is_monotonic_with_dim0_minor(&layout_util::make_layout(&[1, 0])));
/// ```
pub fn is_monotonic_with_dim0_minor(layout: &Layout) -> bool {
    layout.minor_to_major.is_sorted()
}

/// Whether `minor_to_major` is descending, i.e. dim 0 is the most major
/// (XLA's `LayoutUtil::IsMonotonicWithDim0Major`, the default layout).
///
/// ```
/// assert!(layout_util::is_monotonic_with_dim0_major(&layout_util::make_layout(&[2, 1, 0])));
/// assert!(!layout_util::is_monotonic_with_dim0_major(&layout_util::make_layout(&[0, 2, 1])));
/// ```
pub fn is_monotonic_with_dim0_major(layout: &Layout) -> bool {
    layout.minor_to_major.is_sorted_by(|a, b| a >= b)
}

/// XLA's `LayoutUtil::HasLayout`: an array (or buffer) has a layout when its
/// layout is set; a tuple when **all** its elements have one; token and
/// opaque shapes always count as having one.
///
/// ```
/// let array = schema::Shape {
///     element_type: schema::PrimitiveType::F32 as i32,
///     dimensions: vec![2],
///     ..Default::default()
/// };
/// assert!(!layout_util::has_layout(&array));
/// let token = schema::Shape { element_type: schema::PrimitiveType::Token as i32, ..Default::default() };
/// assert!(layout_util::has_layout(&token));
/// ```
pub fn has_layout(shape: &Shape) -> bool {
    if is_tuple(shape) || is_buffer(shape) {
        shape.tuple_shapes.iter().all(has_layout)
    } else if is_array(shape) {
        shape.layout.is_some()
    } else {
        true
    }
}

/// The memory space of an array's layout, 0 (the default memory space) if
/// it has none (XLA's `LayoutUtil::MemorySpace`).
///
/// ```
/// let shape = schema::Shape {
///     element_type: schema::PrimitiveType::F32 as i32,
///     layout: Some(Box::new(layout_util::LayoutBuilder::new(&[]).memory_space(5).build())),
///     ..Default::default()
/// };
/// assert_eq!(layout_util::memory_space(&shape), 5);
/// ```
pub fn memory_space(shape: &Shape) -> i64 {
    shape
        .layout
        .as_ref()
        .map_or(0, |layout| layout.memory_space)
}

/// Copies the layouts of `src` onto `dst`, which must have the same tuple
/// structure and ranks (XLA's `LayoutUtil::CopyLayoutBetweenShapes`). An
/// array of `src` without a layout clears the layout in `dst`.
///
/// # Errors
///
/// XLA's `cannot copy layout from shape: ...` errors when the structure
/// (tuple or not, buffer or not),
/// tuple length or rank differs, and any error of
/// [`validate_layout_for_shape`] for the copied layout on `dst`. On error,
/// `dst` may have been partly updated (as in XLA).
///
/// ```
/// let mut dst = schema::Shape {
///     element_type: schema::PrimitiveType::S32 as i32,
///     dimensions: vec![4, 5],
///     ..Default::default()
/// };
/// let src = schema::Shape {
///     element_type: schema::PrimitiveType::F32 as i32,
///     dimensions: vec![2, 3],
///     layout: Some(Box::new(layout_util::make_layout(&[0, 1]))),
///     ..Default::default()
/// };
/// layout_util::copy_layout_between_shapes(&src, &mut dst).unwrap();
/// assert_eq!(dst.to_string(), "s32[4,5]{0,1}");
/// ```
pub fn copy_layout_between_shapes(src: &Shape, dst: &mut Shape) -> Result<(), LayoutError> {
    if is_tuple(src) != is_tuple(dst) || is_buffer(src) != is_buffer(dst) {
        return Err(LayoutError::CopyStructureDiffers);
    }
    if is_tuple(src) || is_buffer(src) {
        if src.tuple_shapes.len() != dst.tuple_shapes.len() {
            return Err(LayoutError::CopyTupleElementCountDiffers);
        }
        for (s, d) in src.tuple_shapes.iter().zip(&mut dst.tuple_shapes) {
            copy_layout_between_shapes(s, d)?;
        }
    } else if is_array(src) {
        match &src.layout {
            Some(layout) => {
                if src.dimensions.len() != dst.dimensions.len() {
                    return Err(LayoutError::CopyRanksDiffer);
                }
                validate_layout_for_shape(layout, dst)?;
                dst.layout = Some(layout.clone());
            }
            None => dst.layout = None,
        }
    }
    Ok(())
}

/// The layout with `dimension` moved to the most major position, the others
/// keeping their order (XLA's `LayoutUtil::MoveDimToMajor`).
///
/// # Errors
///
/// [`LayoutError::DimensionNotInLayout`] if `dimension` is not in
/// `minor_to_major`.
///
/// ```
/// let layout = layout_util::make_layout(&[2, 1, 0]);
/// assert_eq!(layout_util::move_dim_to_major(&layout, 1).unwrap().to_string(), "{2,0,1}");
/// ```
pub fn move_dim_to_major(layout: &Layout, dimension: i64) -> Result<Layout, LayoutError> {
    let mut moved = without_dimension(layout, dimension)?;
    moved.minor_to_major.push(dimension);
    Ok(moved)
}

/// The layout with `dimension` moved to the most minor position, the others
/// keeping their order (XLA's `LayoutUtil::MoveDimToMinor`).
///
/// # Errors
///
/// [`LayoutError::DimensionNotInLayout`] if `dimension` is not in
/// `minor_to_major`.
///
/// ```
/// let layout = layout_util::make_layout(&[2, 1, 0]);
/// assert_eq!(layout_util::move_dim_to_minor(&layout, 0).unwrap().to_string(), "{0,2,1}");
/// ```
pub fn move_dim_to_minor(layout: &Layout, dimension: i64) -> Result<Layout, LayoutError> {
    let mut moved = without_dimension(layout, dimension)?;
    moved.minor_to_major.insert(0, dimension);
    Ok(moved)
}

/// `layout` with every occurrence of `dimension` removed from
/// `minor_to_major`; an error if there was none.
fn without_dimension(layout: &Layout, dimension: i64) -> Result<Layout, LayoutError> {
    if !layout.minor_to_major.contains(&dimension) {
        return Err(LayoutError::DimensionNotInLayout {
            dimension,
            layout: layout.to_string(),
        });
    }
    let mut result = layout.clone();
    result.minor_to_major.retain(|&d| d != dimension);
    Ok(result)
}
