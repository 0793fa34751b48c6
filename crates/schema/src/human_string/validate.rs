//! The checks XLA's parser applies to the elements of a tuple.
//!
//! XLA builds a parsed tuple with `ShapeUtil::MakeValidatedTupleShape`, which
//! runs `ValidateShapeWithOptionalLayout` over it: an element whose layout or
//! size a lone shape may have (`f32[2]{5}`, `f32[2]{0:T(0)}`,
//! `f32[2305843009213693952]`) makes the tuple fail to parse. The checks
//! reach into buffers (`(b(f32[2]{5}))` fails although `b(f32[2]{5})`
//! parses). XLA reports these failures with an empty `Syntax error:`; the
//! messages here are those of XLA's validators.

use crate::{COMBINE_DIMENSION, Layout, PrimitiveType, Shape, UNBOUNDED_SIZE};

/// Why `element` cannot be an element of a parsed tuple, or `None` if it
/// can. Tuple elements are not looked into: a parsed tuple was checked when
/// it was built.
pub(super) fn tuple_element_error(element: &Shape) -> Option<String> {
    let array = match PrimitiveType::try_from(element.element_type) {
        Ok(PrimitiveType::Buffer) => element.tuple_shapes.first()?,
        Ok(t) if t.is_array_type() => element,
        _ => return None,
    };
    array_error(array)
}

/// XLA's `ValidateNonLayoutProperties` size checks and
/// `ValidateLayoutForShape` for one array.
fn array_error(shape: &Shape) -> Option<String> {
    let element_type = PrimitiveType::try_from(shape.element_type).ok()?;
    let human = Human(shape);
    // ValidateDimensions and ValidateShapeSize: the product of the sizes
    // (bounds for `<=N`, skipping `?`), left to right, then the bytes.
    let mut elements: i64 = 1;
    for &size in &shape.dimensions {
        if size == UNBOUNDED_SIZE {
            continue;
        }
        elements = match elements.checked_mul(size) {
            Some(product) => product,
            None => return Some("Dimensions overflow.".to_owned()),
        };
    }
    if elements.checked_mul(element_type.byte_width()?).is_none() {
        return Some(format!("Shape {human} size may overflow int64_t."));
    }
    shape
        .layout
        .as_deref()
        .and_then(|layout| layout_error(layout, shape, &human))
}

fn layout_error(layout: &Layout, shape: &Shape, human: &Human<'_>) -> Option<String> {
    let rank = shape.dimensions.len();
    let joined = |values: &[i64]| {
        values
            .iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let m2m = &layout.minor_to_major;
    let mut seen = vec![false; rank];
    for &d in m2m {
        let Some(slot) = usize::try_from(d).ok().and_then(|d| seen.get_mut(d)) else {
            return Some(format!(
                "layout minor_to_major field has out-of-bounds value: {{{}}}; shape: {human}",
                joined(m2m)
            ));
        };
        if std::mem::replace(slot, true) {
            return Some(format!(
                "layout minor_to_major field has duplicate values: {{{}}}; shape: {human}",
                joined(m2m)
            ));
        }
    }
    if layout.index_primitive_type != PrimitiveType::Invalid as i32 {
        return Some(format!(
            "layout has a index_primitive_type, but is not a sparse array: {human}"
        ));
    }
    if layout.pointer_primitive_type != PrimitiveType::Invalid as i32 {
        return Some(format!(
            "layout has a pointer_primitive_type, but is not a sparse array: {human}"
        ));
    }
    for tile in &layout.tiles {
        let bad = tile
            .dimensions
            .iter()
            .any(|&d| d <= 0 && d != COMBINE_DIMENSION);
        if tile.dimensions.is_empty() || bad {
            return Some(format!("layout has invalid tiles: {human}"));
        }
    }
    if layout.element_size_in_bits < 0 {
        return Some(format!(
            "layout element_size_in_bits field is negative: {}",
            layout.element_size_in_bits
        ));
    }
    split_config_error(layout, shape, human)
}

/// The 2026 split-config checks: a valid, unique physical dimension, and
/// split indices strictly increasing, positive and inside the dimension.
fn split_config_error(layout: &Layout, shape: &Shape, human: &Human<'_>) -> Option<String> {
    let mut seen = vec![false; shape.dimensions.len()];
    for config in &layout.split_configs {
        let dimension = config.dimension;
        let Some(index) = usize::try_from(dimension).ok().filter(|&d| d < seen.len()) else {
            return Some(format!(
                "split config has out-of-bounds physical dimension: {dimension}; shape: {human}"
            ));
        };
        if std::mem::replace(&mut seen[index], true) {
            return Some(format!(
                "split config has duplicate physical dimension: {dimension}; shape: {human}"
            ));
        }
        let mut previous = 0;
        for &split in &config.split_indices {
            if split <= previous {
                return Some(format!(
                    "split config split indices must be strictly increasing and positive: {{{}}}; shape: {human}",
                    config
                        .split_indices
                        .iter()
                        .map(i64::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            previous = split;
            // The physical dimension counts from the most major: its size is
            // that of the logical dimension `minor_to_major[rank - 1 - index]`.
            let size = seen
                .len()
                .checked_sub(index + 1)
                .and_then(|position| layout.minor_to_major.get(position))
                .and_then(|&logical| usize::try_from(logical).ok())
                .and_then(|logical| shape.dimensions.get(logical))
                .copied()
                .unwrap_or_default();
            if split >= size {
                return Some(format!(
                    "split config split index is out of bounds: {split} (dim size {size}); shape: {human}"
                ));
            }
        }
    }
    None
}

/// A shape's text without layout, written only when a message needs it:
/// every element of a tuple is validated, few fail.
struct Human<'a>(&'a Shape);

impl std::fmt::Display for Human<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0.human_string())
    }
}
