//! XLA's tuple editing and tuple queries: `AppendShapeToTuple`,
//! `UpdateTupleShape`, `SliceTuple`, `GetTupleElementShape`,
//! `IsNestedTuple`, `IsEmptyTuple`, `GetLeafCountTuple`, `FlattenTupleShape`.

use schema::Shape;

use crate::ShapeError;
use crate::kind::is_tuple;
use crate::query::leaf_count;
use crate::validate::validate_shape_with_optional_layout;

fn expect_tuple(shape: &Shape) -> Result<(), ShapeError> {
    if is_tuple(shape) {
        Ok(())
    } else {
        Err(ShapeError::NotATuple {
            shape: Box::new(shape.clone()),
        })
    }
}

fn element_index(tuple: &Shape, index: i64) -> Result<usize, ShapeError> {
    usize::try_from(index)
        .ok()
        .filter(|&i| i < tuple.tuple_shapes.len())
        .ok_or_else(|| ShapeError::InvalidShapeIndex {
            index: vec![index],
            shape: Box::new(tuple.clone()),
        })
}

/// XLA's `AppendShapeToTuple`: adds `shape` as the last element of
/// `tuple`.
///
/// ```
/// let mut tuple: schema::Shape = "(f32[2])".parse().unwrap();
/// shape_util::append_shape_to_tuple(&"s8[]".parse().unwrap(), &mut tuple).unwrap();
/// assert_eq!(tuple.to_string(), "(f32[2]{0}, s8[])");
/// ```
///
/// # Errors
///
/// [`ShapeError::NotATuple`] if `tuple` is not a tuple; `shape`'s
/// validation error (XLA validates it too).
pub fn append_shape_to_tuple(shape: &Shape, tuple: &mut Shape) -> Result<(), ShapeError> {
    expect_tuple(tuple)?;
    validate_shape_with_optional_layout(shape)?;
    tuple.tuple_shapes.push(shape.clone());
    Ok(())
}

/// XLA's `UpdateTupleShape`: replaces element `index` of `tuple` with
/// `shape`.
///
/// ```
/// let mut tuple: schema::Shape = "(f32[2], s8[])".parse().unwrap();
/// shape_util::update_tuple_shape(&"u4[3]".parse().unwrap(), 1, &mut tuple).unwrap();
/// assert_eq!(tuple.to_string(), "(f32[2]{0}, u4[3]{0})");
/// ```
///
/// # Errors
///
/// [`ShapeError::NotATuple`], or [`ShapeError::InvalidShapeIndex`] for an
/// index outside the tuple (XLA CHECK-fails).
pub fn update_tuple_shape(shape: &Shape, index: i64, tuple: &mut Shape) -> Result<(), ShapeError> {
    expect_tuple(tuple)?;
    let i = element_index(tuple, index)?;
    tuple.tuple_shapes[i] = shape.clone();
    Ok(())
}

/// XLA's `SliceTuple`: the tuple of the elements `start..limit` of
/// `tuple`.
///
/// ```
/// let tuple: schema::Shape = "(f32[], s32[], u32[])".parse().unwrap();
/// assert_eq!(shape_util::slice_tuple(&tuple, 1, 3).unwrap().to_string(), "(s32[], u32[])");
/// assert!(shape_util::slice_tuple(&tuple, 2, 4).is_err());
/// ```
///
/// # Errors
///
/// [`ShapeError::NotATuple`], or [`ShapeError::InvalidShapeIndex`] naming
/// `start` or `limit` when `0 <= start <= limit <= count` fails (XLA
/// CHECK-fails).
pub fn slice_tuple(tuple: &Shape, start: i64, limit: i64) -> Result<Shape, ShapeError> {
    expect_tuple(tuple)?;
    let count = tuple.tuple_shapes.len();
    let bad = |at: i64| ShapeError::InvalidShapeIndex {
        index: vec![at],
        shape: Box::new(tuple.clone()),
    };
    let s = usize::try_from(start)
        .ok()
        .filter(|&s| s <= count)
        .ok_or_else(|| bad(start))?;
    let l = usize::try_from(limit)
        .ok()
        .filter(|&l| s <= l && l <= count)
        .ok_or_else(|| bad(limit))?;
    Ok(Shape {
        tuple_shapes: tuple.tuple_shapes[s..l].to_vec(),
        ..tuple.clone()
    })
}

/// XLA's `GetTupleElementShape`: element `index` of `tuple`.
///
/// ```
/// let tuple: schema::Shape = "(f32[], (s8[2]))".parse().unwrap();
/// assert_eq!(shape_util::get_tuple_element_shape(&tuple, 1).unwrap().to_string(), "(s8[2]{0})");
/// ```
///
/// # Errors
///
/// [`ShapeError::NotATuple`], or [`ShapeError::InvalidShapeIndex`] for an
/// index outside the tuple.
pub fn get_tuple_element_shape(tuple: &Shape, index: i64) -> Result<&Shape, ShapeError> {
    expect_tuple(tuple)?;
    Ok(&tuple.tuple_shapes[element_index(tuple, index)?])
}

/// XLA's `IsNestedTuple`: a tuple with a tuple element.
///
/// ```
/// assert!(shape_util::is_nested_tuple(&"(f32[], ())".parse().unwrap()));
/// assert!(!shape_util::is_nested_tuple(&"(f32[], s8[])".parse().unwrap()));
/// ```
pub fn is_nested_tuple(shape: &Shape) -> bool {
    is_tuple(shape) && shape.tuple_shapes.iter().any(is_tuple)
}

/// XLA's `IsEmptyTuple`: `()`.
///
/// ```
/// assert!(shape_util::is_empty_tuple(&"()".parse().unwrap()));
/// assert!(!shape_util::is_empty_tuple(&"(())".parse().unwrap()));
/// ```
pub fn is_empty_tuple(shape: &Shape) -> bool {
    is_tuple(shape) && shape.tuple_shapes.is_empty()
}

/// XLA's `GetLeafCountTuple`: the leaves of a tuple's elements (0 for `()`).
///
/// ```
/// assert_eq!(shape_util::get_leaf_count_tuple(&"(f32[], (s8[], ()))".parse().unwrap()).unwrap(), 2);
/// ```
///
/// # Errors
///
/// [`ShapeError::NotATuple`] (XLA DCHECK-fails).
pub fn get_leaf_count_tuple(shape: &Shape) -> Result<usize, ShapeError> {
    expect_tuple(shape)?;
    Ok(shape.tuple_shapes.iter().map(leaf_count).sum())
}

/// XLA's `FlattenTupleShape`: the shapes that are not tuples, in
/// pre-order (a shape that is not a tuple gives itself; `()` nothing).
///
/// ```
/// let shape: schema::Shape = "((f32[]), s8[2], ())".parse().unwrap();
/// let flat: Vec<String> = shape_util::flatten_tuple_shape(&shape).iter().map(|s| s.to_string()).collect();
/// assert_eq!(flat, ["f32[]", "s8[2]{0}"]);
/// ```
pub fn flatten_tuple_shape(shape: &Shape) -> Vec<&Shape> {
    fn go<'a>(shape: &'a Shape, out: &mut Vec<&'a Shape>) {
        if is_tuple(shape) {
            for element in &shape.tuple_shapes {
                go(element, out);
            }
        } else {
            out.push(shape);
        }
    }
    let mut out = Vec::new();
    go(shape, &mut out);
    out
}
