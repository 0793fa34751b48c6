//! `order`: which logical element each position of the buffer holds, tiles
//! and padding included, as index-util's [`index_util::MemoryOrder`].

use index_util::{MemoryOrder, TiledLayout};

use super::{Outcome, reported, shape};

/// The memory order as `0 3 1 4 2 5` (`pad` for padding).
pub fn run(input: &str) -> Outcome {
    let layout = TiledLayout::new(&shape(input)?).map_err(|e| e.to_string())?;
    reported(&MemoryOrder::of(&layout).map_err(|e| e.to_string())?)
}

#[cfg(test)]
#[path = "order_tests.rs"]
mod tests;
