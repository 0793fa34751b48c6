//! [`memory_order`]: which logical element each position of a buffer
//! holds, tiles and padding included.

use std::fmt;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::TiledLayout;

/// The most buffer positions [`memory_order`] lists.
pub const MAX_ORDER_POSITIONS: i64 = 1 << 20;

/// A buffer too long for [`memory_order`] to list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("the buffer has {positions} positions; order lists at most {MAX_ORDER_POSITIONS}")]
#[non_exhaustive]
pub struct TooManyPositions {
    /// The positions of the buffer.
    pub positions: i64,
}

/// For each position of the buffer in memory order (tiles, classic padding
/// and tail padding included), the row-major index of the logical element
/// stored there, or `None` for padding.
///
/// ```
/// let shape: schema::Shape = "f32[2,3]{0,1}".parse().unwrap();
/// let layout = index_util::TiledLayout::new(&shape).unwrap();
/// assert_eq!(index_util::memory_order(&layout).unwrap(), [0, 3, 1, 4, 2, 5].map(Some));
/// ```
///
/// # Errors
/// [`TooManyPositions`] for a buffer of more than
/// [`MAX_ORDER_POSITIONS`] positions.
pub fn memory_order(layout: &TiledLayout) -> Result<Vec<Option<i64>>, TooManyPositions> {
    let positions = layout.buffer_len();
    if positions > MAX_ORDER_POSITIONS {
        return Err(TooManyPositions { positions });
    }
    let mut order = Vec::with_capacity(usize::try_from(positions).unwrap_or_default());
    layout.for_each_position(|_, element| order.push(element));
    Ok(order)
}

/// A buffer in memory order, the report of `xla-shape order`: as fields
/// (`Serialize`, `null` for padding) or as `0 3 1 pad` (`Display`).
///
/// ```
/// let shape: schema::Shape = "f32[2,3]{0,1:PAD(3,4)}".parse().unwrap();
/// let layout = index_util::TiledLayout::new(&shape).unwrap();
/// let order = index_util::MemoryOrder::of(&layout).unwrap();
/// assert_eq!(order.to_string(), "0 3 pad 1 4 pad 2 5 pad pad pad pad");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct MemoryOrder {
    /// What [`memory_order`] gives.
    pub order: Vec<Option<i64>>,
}

impl MemoryOrder {
    /// The memory order of `layout`'s buffer.
    ///
    /// # Errors
    /// As [`memory_order`].
    pub fn of(layout: &TiledLayout) -> Result<Self, TooManyPositions> {
        Ok(Self {
            order: memory_order(layout)?,
        })
    }
}

impl fmt::Display for MemoryOrder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, position) in self.order.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            match position {
                Some(element) => write!(f, "{element}")?,
                None => f.write_str("pad")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "order_tests.rs"]
mod tests;
