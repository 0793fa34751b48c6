//! XLA's reshape and dynamic-shape relations beyond the bitcast analysis:
//! `InsertedOrDeleted1SizedDimensions`, `ReshapeLeavesDimensionsUnmodified`,
//! `IsReshapeOrTransposeBitcast`, `Dynamic(Array)ShapeIsCompatible`,
//! `CompatibleKind`, `FilterDimensions`, `ReorderLogicalDimensions`,
//! `IsEffectivelyMostMajorDimension`.

use schema::Shape;

use crate::ShapeError;
use crate::bitcast::{
    deduce_transpose_dimensions_for_bitcast, dimensions_unmodified_by_reshape,
    reshape_is_bitcast_ignoring_element_type, transpose_is_bitcast_ignoring_element_type,
};
use crate::edit::delete_dimensions;
use crate::equal::{ShapeEqual, equal_ignoring_element_type};
use crate::kind::{is_tuple, to_i64};
use crate::query::{expect_array, get_subshape, is_static};
use crate::walk::try_for_each_subshape;

/// How one array shape becomes another by inserting and deleting
/// dimensions of size 1 (XLA's `ShapeEqualityDescriptor`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ShapeEqualityDescriptor {
    /// The dimensions of the first shape deleted (all of size 1 or 0).
    pub deleted_dimensions: Vec<i64>,
    /// The dimensions of the second shape inserted (all of size 1 or 0).
    pub inserted_dimensions: Vec<i64>,
}

/// XLA's `InsertedOrDeleted1SizedDimensions`: if `pre` becomes `post` by
/// deleting and inserting degenerate dimensions only, which dimensions of
/// `pre` go and which of `post` come; else `None`.
///
/// ```
/// let pre: schema::Shape = "f32[1,3,1,4]".parse().unwrap();
/// let post: schema::Shape = "f32[3,4,1]".parse().unwrap();
/// let d = shape_util::inserted_or_deleted_1_sized_dimensions(&pre, &post).unwrap().unwrap();
/// assert_eq!((d.deleted_dimensions, d.inserted_dimensions), (vec![0, 2], vec![2]));
/// let other: schema::Shape = "f32[12]".parse().unwrap();
/// assert_eq!(shape_util::inserted_or_deleted_1_sized_dimensions(&pre, &other).unwrap(), None);
/// ```
///
/// # Errors
///
/// [`ShapeError::NotAnArray`] for a shape that is not an array (XLA
/// CHECK-fails).
pub fn inserted_or_deleted_1_sized_dimensions(
    pre: &Shape,
    post: &Shape,
) -> Result<Option<ShapeEqualityDescriptor>, ShapeError> {
    let (pre, post) = (expect_array(pre)?, expect_array(post)?);
    let unmodified = dimensions_unmodified_by_reshape(pre, post)?;
    let mut out = ShapeEqualityDescriptor::default();
    let ends = (to_i64(pre.dimensions.len()), to_i64(post.dimensions.len()));
    let mut prior = (-1_i64, -1_i64);
    for pair in unmodified.iter().copied().chain(std::iter::once(ends)) {
        for d in prior.0 + 1..pair.0 {
            if pre.dimensions[usize::try_from(d).unwrap_or(0)] > 1 {
                return Ok(None);
            }
            out.deleted_dimensions.push(d);
        }
        for d in prior.1 + 1..pair.1 {
            if post.dimensions[usize::try_from(d).unwrap_or(0)] > 1 {
                return Ok(None);
            }
            out.inserted_dimensions.push(d);
        }
        prior = pair;
    }
    Ok(Some(out))
}

/// XLA's `ReshapeLeavesDimensionsUnmodified`: where the dimensions
/// `input_dims` (sorted) of `from` end up in `to` if the reshape leaves
/// them all unmodified ([`crate::dimensions_unmodified_by_reshape`]); else
/// `None` (also for unsorted `input_dims`, as in XLA).
///
/// ```
/// let from: schema::Shape = "f32[2,3,7,5,12]".parse().unwrap();
/// let to: schema::Shape = "f32[6,7,1,5,3,4]".parse().unwrap();
/// assert_eq!(shape_util::reshape_leaves_dimensions_unmodified(&from, &to, &[2, 3]).unwrap(), Some(vec![1, 3]));
/// assert_eq!(shape_util::reshape_leaves_dimensions_unmodified(&from, &to, &[0]).unwrap(), None);
/// ```
///
/// # Errors
///
/// [`ShapeError::NotAnArray`] for a shape that is not an array.
pub fn reshape_leaves_dimensions_unmodified(
    from: &Shape,
    to: &Shape,
    input_dims: &[i64],
) -> Result<Option<Vec<i64>>, ShapeError> {
    if !input_dims.is_sorted() {
        return Ok(None);
    }
    let unmodified = dimensions_unmodified_by_reshape(from, to)?;
    let mut out = Vec::with_capacity(input_dims.len());
    let mut i = 0;
    for &d in input_dims {
        while i < unmodified.len() && unmodified[i].0 < d {
            i += 1;
        }
        match unmodified.get(i) {
            Some(&(input, output)) if input == d => out.push(output),
            _ => return Ok(None),
        }
    }
    Ok(Some(out))
}

/// XLA's `IsReshapeOrTransposeBitcast`: whether `a` becomes `b` by a
/// bitcasting reshape or transpose (the element types equal unless
/// `ignore_element_type`).
///
/// ```
/// let a: schema::Shape = "f32[2,3]{1,0}".parse().unwrap();
/// let t: schema::Shape = "f32[3,2]{0,1}".parse().unwrap();
/// let r: schema::Shape = "f32[6]{0}".parse().unwrap();
/// assert!(shape_util::is_reshape_or_transpose_bitcast(&a, &t, false).unwrap());
/// assert!(shape_util::is_reshape_or_transpose_bitcast(&a, &r, false).unwrap());
/// let column_major: schema::Shape = "f32[2,3]{0,1}".parse().unwrap();
/// assert!(!shape_util::is_reshape_or_transpose_bitcast(&column_major, &r, false).unwrap());
/// ```
///
/// # Errors
///
/// As [`crate::reshape_is_bitcast`]: shapes that are not arrays with
/// layouts (XLA CHECK-fails).
pub fn is_reshape_or_transpose_bitcast(
    a: &Shape,
    b: &Shape,
    ignore_element_type: bool,
) -> Result<bool, ShapeError> {
    expect_array(a)?;
    expect_array(b)?;
    if !ignore_element_type && a.element_type != b.element_type {
        return Ok(false);
    }
    if equal_ignoring_element_type(a, b) || reshape_is_bitcast_ignoring_element_type(a, b)? {
        return Ok(true);
    }
    match deduce_transpose_dimensions_for_bitcast(a, b)? {
        Some(dimensions) => transpose_is_bitcast_ignoring_element_type(b, a, &dimensions),
        None => Ok(false),
    }
}

/// XLA's `DynamicArrayShapeIsCompatible`: same rank, and no dimension of
/// `dynamic` above `bounded`'s.
///
/// ```
/// let bounded: schema::Shape = "f32[<=4,3]".parse().unwrap();
/// assert!(shape_util::dynamic_array_shape_is_compatible(&"f32[2,3]".parse().unwrap(), &bounded));
/// assert!(!shape_util::dynamic_array_shape_is_compatible(&"f32[5,3]".parse().unwrap(), &bounded));
/// ```
pub fn dynamic_array_shape_is_compatible(dynamic: &Shape, bounded: &Shape) -> bool {
    dynamic.dimensions.len() == bounded.dimensions.len()
        && dynamic
            .dimensions
            .iter()
            .zip(&bounded.dimensions)
            .all(|(d, b)| d <= b)
}

/// XLA's `DynamicShapeIsCompatible`: [`dynamic_array_shape_is_compatible`]
/// through tuples: `bounded` has every subshape of `dynamic`, tuples where
/// it has tuples, and each dynamic array of `dynamic` fits its bound.
///
/// ```
/// let bounded: schema::Shape = "(f32[<=4], s8[2])".parse().unwrap();
/// assert!(shape_util::dynamic_shape_is_compatible(&"(f32[<=3], s8[2])".parse().unwrap(), &bounded));
/// assert!(!shape_util::dynamic_shape_is_compatible(&"(f32[<=5], s8[2])".parse().unwrap(), &bounded));
/// assert!(!shape_util::dynamic_shape_is_compatible(&"((f32[2]), s8[2])".parse().unwrap(), &bounded));
/// ```
pub fn dynamic_shape_is_compatible(dynamic: &Shape, bounded: &Shape) -> bool {
    let fits = |sub: &Shape, index: &[i64]| {
        let Ok(bound) = get_subshape(bounded, index) else {
            return false;
        };
        if is_tuple(sub) {
            return is_tuple(bound);
        }
        !is_tuple(bound) && (is_static(sub) || dynamic_array_shape_is_compatible(sub, bound))
    };
    try_for_each_subshape(
        dynamic,
        |sub, index| if fits(sub, index) { Ok(()) } else { Err(()) },
    )
    .is_ok()
}

/// XLA's `CompatibleKind`: the same tuple tree with leaves of the same
/// kind and rank (dimension sizes, element types and layouts aside).
///
/// ```
/// assert!(shape_util::compatible_kind(&"(f32[2,3], s8[])".parse().unwrap(), &"(u4[7,1], f16[])".parse().unwrap()));
/// assert!(!shape_util::compatible_kind(&"f32[2]".parse().unwrap(), &"f32[2,1]".parse().unwrap()));
/// ```
pub fn compatible_kind(lhs: &Shape, rhs: &Shape) -> bool {
    let same_tree = ShapeEqual::new()
        .ignore_element_type()
        .ignore_layout()
        .ignore_dimensions()
        .ignore_dynamic_dimension()
        .equal(lhs, rhs);
    // The same tree, so every subshape of `lhs` is one of `rhs`.
    same_tree
        && try_for_each_subshape(lhs, |sub, index| match get_subshape(rhs, index) {
            Ok(other) if other.dimensions.len() == sub.dimensions.len() => Ok(()),
            _ => Err(()),
        })
        .is_ok()
}

/// XLA's `FilterDimensions`: `shape` keeping the dimensions `i` for which
/// `keep(i)` holds (layout and dynamic flags follow, as
/// [`crate::delete_dimensions`]).
///
/// ```
/// let shape: schema::Shape = "f32[2,3,4]{2,1,0}".parse().unwrap();
/// let even = shape_util::filter_dimensions(|i| i % 2 == 0, &shape).unwrap();
/// assert_eq!(even.to_string(), "f32[2,4]{1,0}");
/// ```
///
/// # Errors
///
/// [`ShapeError::NotAnArray`] for a shape that is not an array.
pub fn filter_dimensions(keep: impl Fn(i64) -> bool, shape: &Shape) -> Result<Shape, ShapeError> {
    let array = expect_array(shape)?;
    let drop: Vec<i64> = (0..to_i64(array.dimensions.len()))
        .filter(|&i| !keep(i))
        .collect();
    delete_dimensions(shape, &drop)
}

/// XLA's `ReorderLogicalDimensions`: the dimensions (and dynamic flags)
/// permuted, `result[i] = shape[permutation[i]]`, and the layout renumbered
/// so that the physical order stays (`minor_to_major` entries mapped
/// through `permutation`, as XLA maps them).
///
/// ```
/// let shape: schema::Shape = "f32[2,3,4]{2,1,0}".parse().unwrap();
/// let out = shape_util::reorder_logical_dimensions(&shape, &[2, 0, 1]).unwrap();
/// assert_eq!(out.to_string(), "f32[4,2,3]{1,0,2}");
/// ```
///
/// # Errors
///
/// [`ShapeError::NotAnArray`], or [`ShapeError::InvalidPermutation`] when
/// `permutation` is not one of the dimensions.
pub fn reorder_logical_dimensions(shape: &Shape, permutation: &[i64]) -> Result<Shape, ShapeError> {
    let array = expect_array(shape)?;
    let rank = array.dimensions.len();
    let p: Vec<usize> = crate::permutation::as_permutation(permutation, rank).ok_or_else(|| {
        ShapeError::InvalidPermutation {
            permutation: permutation.to_vec(),
            rank,
            shape: Box::new(array.clone()),
        }
    })?;
    let mut out = array.clone();
    out.dimensions = p.iter().map(|&i| array.dimensions[i]).collect();
    if !array.is_dynamic_dimension.is_empty() {
        out.is_dynamic_dimension = p
            .iter()
            .map(|&i| array.is_dynamic_dimension.get(i).copied().unwrap_or(false))
            .collect();
    }
    if let Some(layout) = out.layout.as_deref_mut() {
        for d in &mut layout.minor_to_major {
            if let Some(&mapped) = usize::try_from(*d).ok().and_then(|i| permutation.get(i)) {
                *d = mapped;
            }
        }
    }
    Ok(out)
}

/// XLA's `IsEffectivelyMostMajorDimension`: whether `dimension` is the
/// most major one in the layout once the more major dimensions of size 1
/// are set aside.
///
/// ```
/// let shape: schema::Shape = "f32[1,5,3]{2,1,0}".parse().unwrap();
/// assert!(shape_util::is_effectively_most_major_dimension(&shape, 1).unwrap());
/// assert!(!shape_util::is_effectively_most_major_dimension(&shape, 2).unwrap());
/// ```
///
/// # Errors
///
/// [`ShapeError::NotAnArray`], or the layout error of a shape without a
/// valid layout (XLA requires one).
pub fn is_effectively_most_major_dimension(
    shape: &Shape,
    dimension: i64,
) -> Result<bool, ShapeError> {
    let array = expect_array(shape)?;
    let order = layout_util::minor_to_major(array)?;
    for &major in order.iter().rev() {
        if major == dimension {
            return Ok(true);
        }
        let size = usize::try_from(major)
            .ok()
            .and_then(|m| array.dimensions.get(m));
        if size != Some(&1) {
            return Ok(false);
        }
    }
    Ok(false)
}
