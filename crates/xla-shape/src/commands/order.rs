//! `order`: which logical element each position of the buffer holds, tiles
//! and padding included.

use index_util::TiledLayout;
use schema::Shape;
use serde_json::json;

use super::{Outcome, shape};

/// The memory order of `shape`, as [`index_util::memory_order`] gives it:
/// what `order` prints and `draw` draws.
pub fn memory_order_of(shape: &Shape) -> Result<Vec<Option<i64>>, String> {
    let layout = TiledLayout::new(shape).map_err(|e| e.to_string())?;
    index_util::memory_order(&layout).map_err(|e| e.to_string())
}

/// The memory order as `0 3 1 4 2 5` (`pad` for padding).
pub fn run(input: &str) -> Outcome {
    let order = memory_order_of(&shape(input)?)?;
    let plain: Vec<String> = order
        .iter()
        .map(|p| p.map_or_else(|| "pad".to_owned(), |i| i.to_string()))
        .collect();
    Ok((plain.join(" "), json!({ "order": order })))
}

#[cfg(test)]
#[path = "order_tests.rs"]
mod tests;
