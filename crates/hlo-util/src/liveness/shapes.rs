//! Walking a shape's tree of sub-shapes in pre-order (a tuple before its
//! elements), without recursion.

use schema::{PrimitiveType, Shape};

/// Whether `shape` is a tuple.
pub(crate) fn is_tuple(shape: &Shape) -> bool {
    shape.element_type == PrimitiveType::Tuple as i32
}

/// Every sub-shape of `shape` with its index, in pre-order.
pub(crate) fn subshapes(shape: &Shape) -> Vec<(Vec<usize>, &Shape)> {
    let mut out = Vec::new();
    let mut pending = vec![(Vec::new(), shape)];
    while let Some((index, shape)) = pending.pop() {
        if is_tuple(shape) {
            for (k, element) in shape.tuple_shapes.iter().enumerate().rev() {
                let mut child = index.clone();
                child.push(k);
                pending.push((child, element));
            }
        }
        out.push((index, shape));
    }
    out
}

/// How many sub-shapes `shape` has, itself included.
pub(crate) fn count(shape: &Shape) -> usize {
    let mut n = 0_usize;
    let mut pending = vec![shape];
    while let Some(shape) = pending.pop() {
        n = n.saturating_add(1);
        if is_tuple(shape) {
            pending.extend(shape.tuple_shapes.iter());
        }
    }
    n
}

/// The pre-order position of the sub-shape at `index`, `None` when the
/// index leaves the shape.
pub(crate) fn offset(shape: &Shape, index: &[usize]) -> Option<usize> {
    let mut at = 0_usize;
    let mut shape = shape;
    for &k in index {
        if !is_tuple(shape) {
            return None;
        }
        at = at.checked_add(1)?;
        for element in shape.tuple_shapes.get(..k)? {
            at = at.checked_add(count(element))?;
        }
        shape = shape.tuple_shapes.get(k)?;
    }
    Some(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tuples_are_walked_in_pre_order() {
        let shape: Shape = "((f32[2]{0}, s32[]), f32[3]{0})".parse().unwrap();
        let indices: Vec<Vec<usize>> = subshapes(&shape).into_iter().map(|(i, _)| i).collect();
        assert_eq!(indices, [vec![], vec![0], vec![0, 0], vec![0, 1], vec![1]]);
        assert_eq!(count(&shape), 5);
        assert_eq!(offset(&shape, &[1]), Some(4));
        assert_eq!(offset(&shape, &[0, 1]), Some(3));
        assert_eq!(offset(&shape, &[2]), None);
    }
}
