//! XLA's subshape visitors beyond [`crate::for_each_subshape`]: mutable and
//! post-order walks, and walks whose visitor can stop with an error
//! (`ForEach(Mutable)Subshape(PostOrder)(WithStatus)`,
//! `ForEach(Mutable)LeafShape(WithStatus)`). Rust form: the visitor is a
//! closure taking the subshape and its index; the `WithStatus` forms take a
//! closure returning `Result` and stop at the first error, returning it.

use schema::Shape;

use crate::kind::{is_tuple, to_i64};

/// Generates a subshape walk whose visitor can stop it: the reference type
/// (`&'a Shape` or `&mut Shape`), the element iterator (`iter` or
/// `iter_mut`), and whether a tuple is visited after its elements.
macro_rules! subshape_walk {
    ($(#[$doc:meta])* $name:ident <$($lt:lifetime)?> ($shape:ty, $iter:ident, post = $post:literal)) => {
        $(#[$doc])*
        pub fn $name<$($lt,)? E>(
            shape: $shape,
            mut visit: impl FnMut($shape, &[i64]) -> Result<(), E>,
        ) -> Result<(), E> {
            fn go<$($lt,)? E>(
                shape: $shape,
                index: &mut Vec<i64>,
                visit: &mut impl FnMut($shape, &[i64]) -> Result<(), E>,
            ) -> Result<(), E> {
                if !$post {
                    visit(shape, index)?;
                }
                if is_tuple(shape) {
                    for (i, element) in shape.tuple_shapes.$iter().enumerate() {
                        index.push(to_i64(i));
                        go(element, index, visit)?;
                        index.pop();
                    }
                }
                if $post {
                    visit(shape, index)?;
                }
                Ok(())
            }
            go(shape, &mut Vec::new(), &mut visit)
        }
    };
}

subshape_walk! {
    /// Visits `shape` and its subshapes in pre-order, the visitor able to stop
    /// the walk with an error (XLA's `ForEachSubshapeWithStatus`).
    ///
    /// ```
    /// let shape: schema::Shape = "(f32[2], (s8[], token[]))".parse().unwrap();
    /// let mut seen = Vec::new();
    /// let stop = shape_util::try_for_each_subshape(&shape, |sub, index| {
    ///     seen.push(index.to_vec());
    ///     if sub.to_string() == "s8[]" { Err(format!("stopped at {index:?}")) } else { Ok(()) }
    /// });
    /// assert_eq!(stop, Err("stopped at [1, 0]".to_owned()));
    /// assert_eq!(seen, [vec![], vec![0], vec![1], vec![1, 0]]);
    /// ```
    ///
    /// # Errors
    ///
    /// The first error the visitor returns.
    try_for_each_subshape <'a> (&'a Shape, iter, post = false)
}

subshape_walk! {
    /// As [`try_for_each_subshape`], in post-order: each tuple after its
    /// elements (XLA's `ForEachSubshapePostOrderWithStatus`).
    ///
    /// ```
    /// let shape: schema::Shape = "(f32[2], (s8[]))".parse().unwrap();
    /// let mut seen = Vec::new();
    /// shape_util::try_for_each_subshape_post_order(&shape, |_, index| {
    ///     seen.push(index.to_vec());
    ///     Ok::<(), ()>(())
    /// }).unwrap();
    /// assert_eq!(seen, [vec![0], vec![1, 0], vec![1], vec![]]);
    /// ```
    ///
    /// # Errors
    ///
    /// The first error the visitor returns.
    try_for_each_subshape_post_order <'a> (&'a Shape, iter, post = true)
}

/// Visits `shape` and its subshapes in post-order (XLA's
/// `ForEachSubshapePostOrder`).
///
/// ```
/// let shape: schema::Shape = "((f32[]), s8[])".parse().unwrap();
/// let mut seen = Vec::new();
/// shape_util::for_each_subshape_post_order(&shape, |sub, _| seen.push(sub.to_string()));
/// assert_eq!(seen, ["f32[]", "(f32[])", "s8[]", "((f32[]), s8[])"]);
/// ```
pub fn for_each_subshape_post_order<'a>(
    shape: &'a Shape,
    mut visit: impl FnMut(&'a Shape, &[i64]),
) {
    let _ = try_for_each_subshape_post_order(shape, |s, i| {
        visit(s, i);
        Ok::<(), ()>(())
    });
}

/// Visits the leaves of `shape` (the subshapes that are not tuples, and
/// empty tuples) in pre-order (XLA's `ForEachLeafShape`).
///
/// ```
/// let shape: schema::Shape = "((f32[]), s8[], ())".parse().unwrap();
/// let mut seen = Vec::new();
/// shape_util::for_each_leaf_shape(&shape, |sub, index| seen.push(format!("{index:?} {sub}")));
/// assert_eq!(seen, ["[0, 0] f32[]", "[1] s8[]", "[2] ()"]);
/// ```
pub fn for_each_leaf_shape<'a>(shape: &'a Shape, mut visit: impl FnMut(&'a Shape, &[i64])) {
    let _ = try_for_each_leaf_shape(shape, |s, i| {
        visit(s, i);
        Ok::<(), ()>(())
    });
}

/// As [`for_each_leaf_shape`], the visitor able to stop the walk with an
/// error (XLA's `ForEachLeafShapeWithStatus`).
///
/// ```
/// let shape: schema::Shape = "(f32[], s8[])".parse().unwrap();
/// let first = shape_util::try_for_each_leaf_shape(&shape, |sub, _| Err(sub.to_string()));
/// assert_eq!(first, Err("f32[]".to_owned()));
/// ```
///
/// # Errors
///
/// The first error the visitor returns.
pub fn try_for_each_leaf_shape<'a, E>(
    shape: &'a Shape,
    mut visit: impl FnMut(&'a Shape, &[i64]) -> Result<(), E>,
) -> Result<(), E> {
    try_for_each_subshape(shape, |s, i| if is_leaf(s) { visit(s, i) } else { Ok(()) })
}

/// XLA's `IsLeafIndex` on the subshape itself: not a tuple, or an empty
/// tuple.
fn is_leaf(shape: &Shape) -> bool {
    !is_tuple(shape) || shape.tuple_shapes.is_empty()
}

subshape_walk! {
    /// Visits `shape` and its subshapes mutably in pre-order, the visitor able
    /// to stop the walk with an error (XLA's `ForEachMutableSubshapeWithStatus`).
    /// A visitor that turns a tuple into an array stops the walk below it; one
    /// that adds elements to a tuple has them visited.
    ///
    /// ```
    /// let mut shape: schema::Shape = "(f32[2], s8[3])".parse().unwrap();
    /// shape_util::try_for_each_mutable_subshape(&mut shape, |sub, _| {
    ///     if shape_util::is_array(sub) { sub.dimensions[0] += 1 }
    ///     Ok::<(), ()>(())
    /// }).unwrap();
    /// assert_eq!(shape.to_string(), "(f32[3]{0}, s8[4]{0})");
    /// ```
    ///
    /// # Errors
    ///
    /// The first error the visitor returns.
    try_for_each_mutable_subshape <> (&mut Shape, iter_mut, post = false)
}

/// Visits `shape` and its subshapes mutably in pre-order (XLA's
/// `ForEachMutableSubshape`).
///
/// ```
/// let mut shape: schema::Shape = "(f32[2]{0}, (s8[3]{0}))".parse().unwrap();
/// shape_util::for_each_mutable_subshape(&mut shape, |sub, _| { sub.layout = None; });
/// assert_eq!(shape.to_string(), "(f32[2], (s8[3]))");
/// ```
pub fn for_each_mutable_subshape(shape: &mut Shape, mut visit: impl FnMut(&mut Shape, &[i64])) {
    let _ = try_for_each_mutable_subshape(shape, |s, i| {
        visit(s, i);
        Ok::<(), ()>(())
    });
}

subshape_walk! {
    /// Visits `shape` and its subshapes mutably in post-order, the visitor able
    /// to stop with an error (XLA's `ForEachMutableSubshapePostOrderWithStatus`).
    ///
    /// ```
    /// let mut shape: schema::Shape = "((f32[]), s8[])".parse().unwrap();
    /// let mut seen = Vec::new();
    /// shape_util::try_for_each_mutable_subshape_post_order(&mut shape, |_, index| {
    ///     seen.push(index.to_vec());
    ///     Ok::<(), ()>(())
    /// }).unwrap();
    /// assert_eq!(seen, [vec![0, 0], vec![0], vec![1], vec![]]);
    /// ```
    ///
    /// # Errors
    ///
    /// The first error the visitor returns.
    try_for_each_mutable_subshape_post_order <> (&mut Shape, iter_mut, post = true)
}

/// Visits `shape` and its subshapes mutably in post-order (XLA's
/// `ForEachMutableSubshapePostOrder`).
///
/// ```
/// let mut shape: schema::Shape = "(f32[2], s8[3])".parse().unwrap();
/// let mut order = Vec::new();
/// shape_util::for_each_mutable_subshape_post_order(&mut shape, |sub, _| order.push(sub.to_string()));
/// assert_eq!(order.last().unwrap(), "(f32[2]{0}, s8[3]{0})");
/// ```
pub fn for_each_mutable_subshape_post_order(
    shape: &mut Shape,
    mut visit: impl FnMut(&mut Shape, &[i64]),
) {
    let _ = try_for_each_mutable_subshape_post_order(shape, |s, i| {
        visit(s, i);
        Ok::<(), ()>(())
    });
}

/// Visits the leaves of `shape` mutably in pre-order (XLA's
/// `ForEachMutableLeafShape`).
///
/// ```
/// let mut shape: schema::Shape = "(f32[2], (s8[3]))".parse().unwrap();
/// shape_util::for_each_mutable_leaf_shape(&mut shape, |sub, _| sub.dimensions[0] = 1);
/// assert_eq!(shape.to_string(), "(f32[1]{0}, (s8[1]{0}))");
/// ```
pub fn for_each_mutable_leaf_shape(shape: &mut Shape, mut visit: impl FnMut(&mut Shape, &[i64])) {
    let _ = try_for_each_mutable_subshape(shape, |s, i| {
        if is_leaf(s) {
            visit(s, i);
        }
        Ok::<(), ()>(())
    });
}
