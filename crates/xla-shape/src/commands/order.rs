//! `order`: which logical element each position of the buffer holds, tiles
//! and padding included.

use index_util::TiledLayout;
use schema::Shape;
use serde_json::{Value, json};

use super::{Outcome, shape};

/// The most buffer positions `order` lists.
pub const MAX_POSITIONS: i64 = 1 << 20;

/// For each position of the buffer in memory order (tiles, classic padding
/// and tail padding included), the row-major index of the logical element
/// stored there, or `None` for padding.
pub fn memory_order(layout: &TiledLayout) -> Result<Vec<Option<i64>>, String> {
    let count = layout.buffer_len();
    if count > MAX_POSITIONS {
        return Err(format!(
            "the buffer has {count} positions; order lists at most {MAX_POSITIONS}"
        ));
    }
    let mut order = Vec::with_capacity(usize::try_from(count).unwrap_or_default());
    layout.for_each_position(|_, element| order.push(element));
    Ok(order)
}

/// The memory order of `shape`, as [`memory_order`] gives it: what `order`
/// prints and `draw` draws.
pub fn memory_order_of(shape: &Shape) -> Result<Vec<Option<i64>>, String> {
    memory_order(&TiledLayout::new(shape).map_err(|e| e.to_string())?)
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

#[cfg(test)]
#[path = "order_tests.rs"]
mod tests;
