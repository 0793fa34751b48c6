//! Questions about a shape: rank, element count, scalar-ness, dynamism,
//! dimensions by (negative) number, and the tuple tree addressed by shape
//! indices (XLA's `ShapeUtil::ElementsIn`, `TrueNumDimensions`,
//! `GetSubshape`, `ForEachSubshape`, ...).

use schema::{Shape, UNBOUNDED_SIZE};

use crate::ShapeError;
use crate::kind::{is_array, is_buffer, is_dynamic_dimension, is_tuple, to_i64};

/// The number of dimensions of an array (XLA's `shape.rank()` /
/// `dimensions_size()`).
///
/// # Errors
///
/// [`ShapeError::NotAnArray`] for tuples, tokens, opaque, buffer and invalid
/// shapes (XLA CHECK-fails).
///
/// ```
/// let shape: schema::Shape = shape_util::make_shape(schema::PrimitiveType::F32, &[3, 0, 1]).unwrap();
/// assert_eq!(shape_util::rank(&shape).unwrap(), 3);
/// assert!(shape_util::rank(&shape_util::make_nil()).is_err());
/// ```
pub fn rank(shape: &Shape) -> Result<usize, ShapeError> {
    expect_array(shape).map(|array| array.dimensions.len())
}

/// The number of dimensions whose size is not 1 (XLA's
/// `ShapeUtil::TrueNumDimensions`, formerly `TrueRank`).
///
/// # Errors
///
/// [`ShapeError::NotAnArray`] for non-arrays (XLA CHECK-fails).
///
/// ```
/// let shape = shape_util::make_shape(schema::PrimitiveType::F32, &[3, 0, 1]).unwrap();
/// assert_eq!(shape_util::true_rank(&shape).unwrap(), 2);
/// ```
pub fn true_rank(shape: &Shape) -> Result<usize, ShapeError> {
    expect_array(shape).map(|array| array.dimensions.iter().filter(|&&d| d != 1).count())
}

/// The number of elements of an array (XLA's `ShapeUtil::ElementsIn`): the
/// product of its dimensions (a bounded dynamic dimension counts with its
/// bound); 1 for a scalar, 0 if any dimension is 0. A buffer counts the
/// elements of its array.
///
/// # Errors
///
/// [`ShapeError::NotAnArray`] for non-arrays, [`ShapeError::UnboundedDimension`]
/// for a `?` dimension, [`ShapeError::NegativeDimensionSize`], and
/// [`ShapeError::ElementCountOverflow`] when the product overflows `i64`.
///
/// ```
/// use schema::PrimitiveType;
/// let shape = shape_util::make_shape(PrimitiveType::F32, &[2, 3, 4]).unwrap();
/// assert_eq!(shape_util::elements_in(&shape).unwrap(), 24);
/// let scalar = shape_util::make_scalar_shape(PrimitiveType::F32).unwrap();
/// assert_eq!(shape_util::elements_in(&scalar).unwrap(), 1);
/// let huge = shape_util::make_shape(PrimitiveType::S8, &[3037000500, 3037000500]).unwrap_err();
/// assert!(huge.to_string().starts_with("overflow in static extent product"));
/// ```
pub fn elements_in(shape: &Shape) -> Result<i64, ShapeError> {
    let array = expect_array(shape)?;
    checked_product(array, &array.dimensions)
}

/// The product of `extents` (the dimensions of `shape`, or their padded
/// extents), checked.
pub(crate) fn checked_product(shape: &Shape, extents: &[i64]) -> Result<i64, ShapeError> {
    let mut product = 1_i64;
    for (i, &size) in extents.iter().enumerate() {
        if size == UNBOUNDED_SIZE && is_dynamic_dimension(shape, i) {
            return Err(ShapeError::UnboundedDimension {
                shape: Box::new(shape.clone()),
            });
        }
        if size < 0 {
            return Err(ShapeError::NegativeDimensionSize {
                size,
                shape: Box::new(shape.clone()),
            });
        }
        product = product
            .checked_mul(size)
            .ok_or_else(|| ShapeError::ElementCountOverflow {
                shape: Box::new(shape.clone()),
            })?;
    }
    Ok(product)
}

/// The total number of array elements in `shape`, through tuples
/// (`ShapeUtil::ElementsInRecursive`); tokens and opaque shapes count 0.
///
/// # Errors
///
/// As [`elements_in`] for each array, and [`ShapeError::ElementCountOverflow`]
/// if the sum overflows.
///
/// ```
/// use schema::PrimitiveType;
/// let tuple = shape_util::make_tuple_shape(vec![
///     shape_util::make_shape(PrimitiveType::F32, &[2, 3]).unwrap(),
///     shape_util::make_token_shape(),
///     shape_util::make_shape(PrimitiveType::S8, &[4]).unwrap(),
/// ]).unwrap();
/// assert_eq!(shape_util::elements_in_recursive(&tuple).unwrap(), 10);
/// ```
pub fn elements_in_recursive(shape: &Shape) -> Result<i64, ShapeError> {
    if is_tuple(shape) {
        return shape.tuple_shapes.iter().try_fold(0_i64, |sum, element| {
            sum.checked_add(elements_in_recursive(element)?)
                .ok_or_else(|| ShapeError::ElementCountOverflow {
                    shape: Box::new(shape.clone()),
                })
        });
    }
    if is_array(shape) || is_buffer(shape) {
        elements_in(shape)
    } else {
        Ok(0)
    }
}

/// Whether `shape` is an array of rank 0 (`ShapeUtil::IsScalar`).
///
/// ```
/// use schema::PrimitiveType;
/// assert!(shape_util::is_scalar(&shape_util::make_scalar_shape(PrimitiveType::F32).unwrap()));
/// assert!(!shape_util::is_scalar(&shape_util::make_shape(PrimitiveType::F32, &[1]).unwrap()));
/// assert!(!shape_util::is_scalar(&shape_util::make_token_shape()));
/// ```
pub fn is_scalar(shape: &Shape) -> bool {
    is_array(shape) && shape.dimensions.is_empty()
}

/// Whether `shape` is an array with exactly one element, i.e. every
/// dimension is 1 (`ShapeUtil::IsEffectiveScalar`).
///
/// ```
/// use schema::PrimitiveType;
/// assert!(shape_util::is_effective_scalar(&shape_util::make_shape(PrimitiveType::F32, &[1, 1]).unwrap()));
/// assert!(!shape_util::is_effective_scalar(&shape_util::make_shape(PrimitiveType::F32, &[1, 2]).unwrap()));
/// ```
pub fn is_effective_scalar(shape: &Shape) -> bool {
    is_array(shape) && shape.dimensions.iter().all(|&d| d == 1)
}

/// Whether `shape` is an array with a zero-sized dimension
/// (`ShapeUtil::IsZeroElementArray`); false for tuples.
///
/// ```
/// use schema::PrimitiveType;
/// assert!(shape_util::is_zero_element_array(&shape_util::make_shape(PrimitiveType::F32, &[3, 0, 1]).unwrap()));
/// assert!(!shape_util::is_zero_element_array(&shape_util::make_nil()));
/// ```
pub fn is_zero_element_array(shape: &Shape) -> bool {
    is_array(shape) && shape.dimensions.contains(&0)
}

/// Whether some dimension of an array is 1 (`ShapeUtil::HasDegenerateDimensions`).
///
/// ```
/// use schema::PrimitiveType;
/// assert!(shape_util::has_degenerate_dimensions(&shape_util::make_shape(PrimitiveType::F32, &[3, 1]).unwrap()));
/// ```
pub fn has_degenerate_dimensions(shape: &Shape) -> bool {
    is_array(shape) && shape.dimensions.contains(&1)
}

/// Whether no dimension anywhere in `shape` (through tuples and buffers) is
/// dynamic (`Shape::is_static`).
///
/// ```
/// use schema::PrimitiveType;
/// let dynamic = shape_util::make_validated_shape(PrimitiveType::F32, &[4], &[true]).unwrap();
/// let tuple = shape_util::make_tuple_shape(vec![dynamic]).unwrap();
/// assert!(!shape_util::is_static(&tuple));
/// assert!(shape_util::is_dynamic(&tuple));
/// ```
pub fn is_static(shape: &Shape) -> bool {
    !shape.is_dynamic_dimension.contains(&true) && shape.tuple_shapes.iter().all(is_static)
}

/// Whether some dimension in `shape` is dynamic (`Shape::is_dynamic`): the
/// negation of [`is_static`].
///
/// ```
/// use schema::PrimitiveType;
/// assert!(!shape_util::is_dynamic(&shape_util::make_shape(PrimitiveType::F32, &[4]).unwrap()));
/// ```
pub fn is_dynamic(shape: &Shape) -> bool {
    !is_static(shape)
}

/// Whether some dimension in `shape` is unbounded dynamic (`?`), through
/// tuples and buffers (`Shape::is_unbounded_dynamic`).
///
/// ```
/// use schema::{PrimitiveType, UNBOUNDED_SIZE};
/// let shape = shape_util::make_shape(PrimitiveType::F32, &[UNBOUNDED_SIZE, 3]).unwrap();
/// assert!(shape_util::is_unbounded_dynamic(&shape));
/// ```
pub fn is_unbounded_dynamic(shape: &Shape) -> bool {
    (0..shape.dimensions.len()).any(|i| crate::kind::is_unbounded_dimension(shape, i))
        || shape.tuple_shapes.iter().any(is_unbounded_dynamic)
}

/// The size of dimension `dimension`, where a negative number counts from
/// the end as in Python (`ShapeUtil::GetDimension`): -1 is the last.
///
/// # Errors
///
/// As [`dimension_number`].
///
/// ```
/// use schema::PrimitiveType;
/// let shape = shape_util::make_shape(PrimitiveType::F32, &[2, 3, 4]).unwrap();
/// assert_eq!(shape_util::get_dimension(&shape, 0).unwrap(), 2);
/// assert_eq!(shape_util::get_dimension(&shape, -1).unwrap(), 4);
/// assert_eq!(
///     shape_util::get_dimension(&shape, -4).unwrap_err().to_string(),
///     "dimension -4 is out of range for rank 3",
/// );
/// ```
pub fn get_dimension(shape: &Shape, dimension: i64) -> Result<i64, ShapeError> {
    let number = dimension_number(shape, dimension)?;
    let dimensions = &expect_array(shape)?.dimensions;
    dimensions
        .get(number)
        .copied()
        .ok_or(ShapeError::DimensionOutOfRange {
            dimension,
            rank: dimensions.len(),
        })
}

/// The dimension number meant by `dimension`, negative numbers counting
/// from the end (`ShapeUtil::GetDimensionNumber`).
///
/// # Errors
///
/// [`ShapeError::NotAnArray`] for non-arrays, and
/// [`ShapeError::DimensionOutOfRange`] unless `-rank <= dimension < rank`
/// (XLA CHECK-fails).
///
/// ```
/// use schema::PrimitiveType;
/// let shape = shape_util::make_shape(PrimitiveType::F32, &[2, 3, 4]).unwrap();
/// assert_eq!(shape_util::dimension_number(&shape, -2).unwrap(), 1);
/// ```
pub fn dimension_number(shape: &Shape, dimension: i64) -> Result<usize, ShapeError> {
    let rank = expect_array(shape)?.dimensions.len();
    let adjusted = if dimension < 0 {
        dimension.checked_add(to_i64(rank))
    } else {
        Some(dimension)
    };
    adjusted
        .and_then(|d| usize::try_from(d).ok())
        .filter(|&d| d < rank)
        .ok_or(ShapeError::DimensionOutOfRange { dimension, rank })
}

/// The number of elements of a tuple (`ShapeUtil::TupleElementCount`).
///
/// # Errors
///
/// [`ShapeError::NotATuple`] for non-tuples (XLA CHECK-fails).
///
/// ```
/// assert_eq!(shape_util::tuple_element_count(&shape_util::make_nil()).unwrap(), 0);
/// ```
pub fn tuple_element_count(shape: &Shape) -> Result<usize, ShapeError> {
    if is_tuple(shape) {
        Ok(shape.tuple_shapes.len())
    } else {
        Err(ShapeError::NotATuple {
            shape: Box::new(shape.clone()),
        })
    }
}

/// Whether `index` names a subshape of `shape` (`ShapeUtil::IndexIsValid`):
/// each entry selects an element of a tuple. The empty index is `shape`
/// itself.
///
/// ```
/// use schema::PrimitiveType;
/// let f32 = shape_util::make_scalar_shape(PrimitiveType::F32).unwrap();
/// let nested = shape_util::make_tuple_shape(vec![f32.clone(), shape_util::make_tuple_shape(vec![f32]).unwrap()]).unwrap();
/// assert!(shape_util::index_is_valid(&nested, &[1, 0]));
/// assert!(!shape_util::index_is_valid(&nested, &[0, 0]));
/// assert!(!shape_util::index_is_valid(&nested, &[2]));
/// ```
pub fn index_is_valid(shape: &Shape, index: &[i64]) -> bool {
    get_subshape(shape, index).is_ok()
}

/// The subshape of `shape` at `index` (`ShapeUtil::GetSubshape` /
/// `TryGetSubshape`).
///
/// # Errors
///
/// `Shape index %s not a valid subshape index for tuple with shape %s`.
///
/// ```
/// use schema::PrimitiveType;
/// let s8 = shape_util::make_shape(PrimitiveType::S8, &[3]).unwrap();
/// let tuple = shape_util::make_tuple_shape(vec![shape_util::make_token_shape(), s8.clone()]).unwrap();
/// assert_eq!(shape_util::get_subshape(&tuple, &[1]).unwrap(), &s8);
/// assert_eq!(
///     shape_util::get_subshape(&tuple, &[1, 0]).unwrap_err().to_string(),
///     "Shape index {1,0} not a valid subshape index for tuple with shape (token[], s8[3])",
/// );
/// ```
pub fn get_subshape<'a>(shape: &'a Shape, index: &[i64]) -> Result<&'a Shape, ShapeError> {
    let mut current = shape;
    for &i in index {
        current = usize::try_from(i)
            .ok()
            .filter(|_| is_tuple(current))
            .and_then(|i| current.tuple_shapes.get(i))
            .ok_or_else(|| ShapeError::InvalidShapeIndex {
                index: index.to_vec(),
                shape: Box::new(shape.clone()),
            })?;
    }
    Ok(current)
}

/// The subshape of `shape` at `index`, mutably (`ShapeUtil::GetMutableSubshape`).
///
/// # Errors
///
/// As [`get_subshape`].
///
/// ```
/// use schema::PrimitiveType;
/// let mut tuple = shape_util::make_tuple_shape(vec![shape_util::make_shape(PrimitiveType::S8, &[3]).unwrap()]).unwrap();
/// shape_util::get_mutable_subshape(&mut tuple, &[0]).unwrap().dimensions[0] = 5;
/// assert_eq!(tuple.to_string(), "(s8[5]{0})");
/// ```
pub fn get_mutable_subshape<'a>(
    shape: &'a mut Shape,
    index: &[i64],
) -> Result<&'a mut Shape, ShapeError> {
    if !index_is_valid(shape, index) {
        return Err(ShapeError::InvalidShapeIndex {
            index: index.to_vec(),
            shape: Box::new(shape.clone()),
        });
    }
    // The index was just checked, so the walk below always succeeds (the
    // shape, borrowed by the walk, cannot be named in this error).
    subshape_mut(shape, index).ok_or_else(|| ShapeError::InvalidShapeIndex {
        index: index.to_vec(),
        shape: Box::default(),
    })
}

fn subshape_mut<'a>(shape: &'a mut Shape, index: &[i64]) -> Option<&'a mut Shape> {
    match index.split_first() {
        None => Some(shape),
        Some((&first, rest)) => {
            let element = shape.tuple_shapes.get_mut(usize::try_from(first).ok()?)?;
            subshape_mut(element, rest)
        }
    }
}

/// Whether the subshape at `index` is a leaf, i.e. not a tuple
/// (`ShapeUtil::IsLeafIndex`). The empty tuple `()` counts as a leaf of
/// nothing: it is not a leaf.
///
/// # Errors
///
/// As [`get_subshape`].
///
/// ```
/// use schema::PrimitiveType;
/// let tuple = shape_util::make_tuple_shape(vec![shape_util::make_token_shape()]).unwrap();
/// assert!(shape_util::is_leaf_index(&tuple, &[0]).unwrap());
/// assert!(!shape_util::is_leaf_index(&tuple, &[]).unwrap());
/// ```
pub fn is_leaf_index(shape: &Shape, index: &[i64]) -> Result<bool, ShapeError> {
    Ok(!is_tuple(get_subshape(shape, index)?))
}

/// The number of leaves (non-tuple subshapes) of `shape`; a non-tuple is
/// one leaf and `()` has none (`ShapeUtil::GetLeafCount`).
///
/// ```
/// use schema::PrimitiveType;
/// let f32 = shape_util::make_scalar_shape(PrimitiveType::F32).unwrap();
/// let tuple = shape_util::make_tuple_shape(vec![
///     f32.clone(),
///     shape_util::make_tuple_shape(vec![f32.clone(), shape_util::make_nil()]).unwrap(),
/// ]).unwrap();
/// assert_eq!(shape_util::leaf_count(&tuple), 2);
/// assert_eq!(shape_util::leaf_count(&f32), 1);
/// ```
pub fn leaf_count(shape: &Shape) -> usize {
    if is_tuple(shape) {
        shape.tuple_shapes.iter().map(leaf_count).sum()
    } else {
        1
    }
}

/// Every leaf of `shape` with its index, in pre-order
/// (`ShapeUtil::GetLeafShapes`).
///
/// ```
/// use schema::PrimitiveType;
/// let f32 = shape_util::make_scalar_shape(PrimitiveType::F32).unwrap();
/// let tuple = shape_util::make_tuple_shape(vec![
///     shape_util::make_token_shape(),
///     shape_util::make_tuple_shape(vec![f32]).unwrap(),
/// ]).unwrap();
/// let leaves: Vec<(Vec<i64>, String)> = shape_util::leaf_shapes(&tuple)
///     .into_iter()
///     .map(|(index, leaf)| (index, leaf.to_string()))
///     .collect();
/// assert_eq!(leaves, [(vec![0], "token[]".to_owned()), (vec![1, 0], "f32[]".to_owned())]);
/// ```
pub fn leaf_shapes(shape: &Shape) -> Vec<(Vec<i64>, &Shape)> {
    let mut leaves = Vec::new();
    for_each_subshape(shape, |subshape, index| {
        if !is_tuple(subshape) {
            leaves.push((index.to_vec(), subshape));
        }
    });
    leaves
}

/// The number of subshapes of `shape`, itself included
/// (`ShapeUtil::SubshapeCount`).
///
/// ```
/// let nested = shape_util::make_tuple_shape(vec![shape_util::make_nil(), shape_util::make_token_shape()]).unwrap();
/// assert_eq!(shape_util::subshape_count(&nested), 3);
/// ```
pub fn subshape_count(shape: &Shape) -> usize {
    1 + shape
        .tuple_shapes
        .iter()
        .filter(|_| is_tuple(shape))
        .map(subshape_count)
        .sum::<usize>()
}

/// Calls `visit(subshape, index)` on every subshape of `shape`, depth-first
/// in pre-order, starting with `shape` itself at index `[]`
/// (`ShapeUtil::ForEachSubshape`). A buffer is one subshape (its array is
/// not visited separately).
///
/// ```
/// use schema::PrimitiveType;
/// let f32 = shape_util::make_scalar_shape(PrimitiveType::F32).unwrap();
/// let tuple = shape_util::make_tuple_shape(vec![
///     shape_util::make_tuple_shape(vec![f32.clone()]).unwrap(),
///     f32,
/// ]).unwrap();
/// let mut seen = Vec::new();
/// shape_util::for_each_subshape(&tuple, |subshape, index| seen.push(format!("{index:?} {subshape}")));
/// assert_eq!(seen, ["[] ((f32[]), f32[])", "[0] (f32[])", "[0, 0] f32[]", "[1] f32[]"]);
/// ```
pub fn for_each_subshape<'a>(shape: &'a Shape, mut visit: impl FnMut(&'a Shape, &[i64])) {
    let mut index = Vec::new();
    walk(shape, &mut index, &mut visit);
}

fn walk<'a>(shape: &'a Shape, index: &mut Vec<i64>, visit: &mut impl FnMut(&'a Shape, &[i64])) {
    visit(shape, index);
    if is_tuple(shape) {
        for (i, element) in shape.tuple_shapes.iter().enumerate() {
            index.push(to_i64(i));
            walk(element, index, visit);
            index.pop();
        }
    }
}

/// `shape` if it is an array, else [`ShapeError::NotAnArray`]; a buffer
/// stands for its array.
pub(crate) fn expect_array(shape: &Shape) -> Result<&Shape, ShapeError> {
    if is_array(shape) {
        return Ok(shape);
    }
    if is_buffer(shape)
        && let [inner] = shape.tuple_shapes.as_slice()
        && is_array(inner)
    {
        return Ok(inner);
    }
    Err(ShapeError::not_an_array(shape))
}
