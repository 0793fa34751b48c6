//! `order`: which logical element each position of the buffer holds.

use index_util::PhysicalLayout;
use schema::Shape;
use serde_json::{Value, json};

use super::{Outcome, shape};

/// The most buffer positions `order` lists.
pub const MAX_POSITIONS: i64 = 1 << 20;

/// For each position of the (padded) buffer in memory order, the row-major
/// index of the logical element stored there, or `None` for padding.
///
/// # Errors
///
/// A message if the buffer has more than [`MAX_POSITIONS`] positions.
pub fn memory_order(layout: &PhysicalLayout) -> Result<Vec<Option<i64>>, String> {
    let count = layout.padded_element_count();
    if count > MAX_POSITIONS {
        return Err(format!(
            "the buffer has {count} positions; order lists at most {MAX_POSITIONS}"
        ));
    }
    Ok(Positions::new(layout).collect())
}

/// The positions of an untiled (possibly padded) buffer in memory order,
/// each the row-major index of its logical element or `None` for padding.
///
/// An odometer over the dimensions whose padded extent exceeds 1 (most
/// minor first) keeps the row-major index and the number of digits in
/// padding up to date, so each position costs O(1) amortized whatever the
/// rank: unit dimensions are never touched after the start.
struct Positions {
    /// The moving dimensions, most minor first.
    axes: Vec<Axis>,
    /// The row-major index of the current position (meaningful when no
    /// digit is in padding).
    logical: i64,
    /// How many digits are at or past their dimension's size.
    in_padding: usize,
    /// Positions left, counting the current one.
    remaining: i64,
}

/// One moving dimension of [`Positions`].
struct Axis {
    /// The logical size.
    size: i64,
    /// The padded extent (> 1).
    padded: i64,
    /// The row-major stride of the dimension among the logical sizes.
    row_major_stride: i64,
    /// The current digit.
    digit: i64,
}

impl Positions {
    fn new(layout: &PhysicalLayout) -> Self {
        let sizes = layout.dimensions();
        // Row-major strides; the products stay below the element count,
        // at most the padded count, which fits.
        let mut row_major = vec![0_i64; sizes.len()];
        let mut stride = 1_i64;
        for (d, &size) in sizes.iter().enumerate().rev() {
            row_major[d] = stride;
            stride = stride.saturating_mul(size);
        }
        // With a dimension of size 0 every position is padding: nothing
        // needs to move.
        let empty = sizes.contains(&0);
        let padded = layout.padded_dimensions();
        let axes = layout
            .minor_to_major()
            .iter()
            .filter(|&&d| padded[d] > 1 && !empty)
            .map(|&d| Axis {
                size: sizes[d],
                padded: padded[d],
                row_major_stride: row_major[d],
                digit: 0,
            })
            .collect::<Vec<_>>();
        Self {
            axes,
            logical: 0,
            in_padding: usize::from(empty),
            remaining: layout.padded_element_count(),
        }
    }
}

impl Iterator for Positions {
    type Item = Option<i64>;

    fn next(&mut self) -> Option<Option<i64>> {
        if self.remaining <= 0 {
            return None;
        }
        self.remaining -= 1;
        let current = (self.in_padding == 0).then_some(self.logical);
        // Step the odometer (a no-op past the last position).
        for axis in &mut self.axes {
            axis.digit += 1;
            if axis.digit < axis.padded {
                self.logical += axis.row_major_stride;
                if axis.digit == axis.size {
                    self.in_padding += 1;
                }
                break;
            }
            if axis.size < axis.padded {
                self.in_padding -= 1;
            }
            self.logical -= (axis.padded - 1) * axis.row_major_stride;
            axis.digit = 0;
        }
        Some(current)
    }
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

#[cfg(test)]
#[path = "order_tests.rs"]
mod tests;
