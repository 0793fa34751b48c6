//! `order`: which logical element each position of the buffer holds.

use index_util::{IndexError, PhysicalLayout};
use schema::Shape;
use serde_json::{Value, json};

use super::{Outcome, shape};

/// The most buffer positions `order` lists.
pub const MAX_POSITIONS: i64 = 1 << 20;

/// For each position of the (padded) buffer in memory order, the row-major
/// index of the logical element stored there, or `None` for padding.
pub fn memory_order(layout: &PhysicalLayout) -> Result<Vec<Option<i64>>, String> {
    let count = layout.padded_element_count();
    if count > MAX_POSITIONS {
        return Err(format!(
            "the buffer has {count} positions; order lists at most {MAX_POSITIONS}"
        ));
    }
    let dims = layout.dimensions();
    (0..count)
        .map(|position| match layout.multidimensional_index(position) {
            // The row-major index fits: it is below the element count, which
            // is at most the padded count.
            Ok(index) => Ok(Some(
                index.iter().zip(dims).fold(0, |acc, (&i, &d)| acc * d + i),
            )),
            Err(IndexError::LinearIndexInPadding { .. }) => Ok(None),
            Err(e) => Err(e.to_string()),
        })
        .collect()
}

/// The memory order of `shape`, as [`memory_order`] gives it: what `order`
/// prints and `draw` draws.
pub fn memory_order_of(shape: &Shape) -> Result<Vec<Option<i64>>, String> {
    let layout = PhysicalLayout::new(shape).map_err(|e| e.to_string())?;
    memory_order(&layout)
}

/// The memory order as `0 3 1 4 2 5` (`pad` for padding).
pub fn run(input: &str) -> Outcome {
    let order = memory_order_of(&shape(input)?)?;
    let plain: Vec<String> = order
        .iter()
        .map(|p| p.map_or_else(|| "pad".to_owned(), |i| i.to_string()))
        .collect();
    let json_order: Vec<Value> = order.iter().map(|p| json!(p)).collect();
    Ok((plain.join(" "), json!({"order": json_order})))
}
