//! The picture of an array shape: its logical grid (padding and tiles
//! included) and its buffer, both from its memory order.

use index_util::PhysicalLayout;
use schema::{PaddingValue, PrimitiveType, Shape};

use super::labels::{element_label, padding_label};
use super::strip::PER_ROW;
use super::{Cell, Fill, Picture, Strip, tiles, window};

/// The most buffer positions the strip shows.
pub const MAX_STRIP: usize = 256;

/// The picture of `shape`, whose buffer holds `order[p]` (the row-major
/// index of an element, or `None` for padding) at position `p`: the
/// memory order of the `order` command.
///
/// # Errors
/// A message if `shape` is not an array with a valid layout, or `order`
/// does not hold every element exactly once.
pub fn picture(shape: &Shape, order: &[Option<i64>]) -> Result<Picture, String> {
    let physical = PhysicalLayout::new(shape).map_err(|e| e.to_string())?;
    let dims = physical.dimensions();
    let count = shape_util::elements_in(shape).map_err(|e| e.to_string())?;
    let positions = position_of_elements(order, count)?;
    let layout = shape.layout.as_deref();
    let pad = padding_of(shape)?;
    let levels = tiles::levels(
        dims.len(),
        physical.minor_to_major(),
        layout.map_or(&[][..], |l| &l.tiles[..]),
    );
    let extents: Vec<i64> = physical
        .padded_dimensions()
        .iter()
        .enumerate()
        .map(|(d, &size)| levels.extent(d, size))
        .collect();
    let tiled = layout.is_some_and(|l| !l.tiles.is_empty());
    let axes: Vec<String> = (0..dims.len())
        .map(|d| {
            let mut words = format!("dim {d} \u{b7} size {}", dims[d]);
            if extents[d] != dims[d] {
                let how = if tiled { "tiles pad to" } else { "padded to" };
                words.push_str(&format!(" \u{b7} {how} {}", extents[d]));
            }
            if !tiled {
                words.push_str(&format!(" \u{b7} stride {}", physical.strides()[d]));
            }
            words
        })
        .collect();
    let cell = |index: &[i64]| -> Result<Cell, String> {
        if index.iter().zip(dims).any(|(&i, &d)| i >= d) {
            return Ok(padding(pad, String::new()));
        }
        let element = index.iter().zip(dims).fold(0, |acc, (&i, &d)| acc * d + i);
        let position = usize::try_from(element)
            .ok()
            .and_then(|e| positions.get(e))
            .copied()
            .filter(|&p| p >= 0)
            .ok_or_else(|| format!("element {element} is not in the memory order"))?;
        Ok(Cell {
            label: element_label(element, count),
            note: format!("@{position}"),
            fill: Fill::Position(position),
            emphasis: false,
        })
    };
    let rank = dims.len();
    let panel_dims = window::panel_dims(rank);
    let (panels, window_notes) = window::panels(&extents, &axes, cell, |rows, cols| {
        levels.outlines(panel_dims, (rows, cols))
    })?;
    let mut notes = levels.notes.clone();
    if !tiled && rank > 0 {
        let strides: Vec<String> = physical.strides().iter().map(i64::to_string).collect();
        let major_to_minor: Vec<String> = physical
            .minor_to_major()
            .iter()
            .rev()
            .map(usize::to_string)
            .collect();
        notes.push(format!(
            "dims major to minor: {} \u{b7} strides [{}] (elements)",
            major_to_minor.join(","),
            strides.join(",")
        ));
    }
    if count == 0 {
        notes.push("the array has no elements".to_owned());
    }
    notes.extend(window_notes);
    let strip = strip(order, element_bits(shape)?, |_, element| match element {
        Some(e) => Cell {
            label: element_label(e, count),
            note: String::new(),
            fill: Fill::Position(0),
            emphasis: false,
        },
        None => padding(pad, String::new()),
    });
    Ok(Picture {
        title: shape.to_string(),
        notes,
        positions: i64::try_from(order.len()).unwrap_or(i64::MAX),
        panels,
        strip,
    })
}

/// For each element (row-major index), its position in the buffer.
fn position_of_elements(order: &[Option<i64>], count: i64) -> Result<Vec<i64>, String> {
    let count = usize::try_from(count).unwrap_or(0);
    if count > order.len() {
        return Err(format!(
            "the memory order has {} positions for {count} elements",
            order.len()
        ));
    }
    let mut positions = vec![-1; count];
    for (position, element) in order.iter().enumerate() {
        if let Some(e) = *element {
            let slot = usize::try_from(e)
                .ok()
                .and_then(|e| positions.get_mut(e))
                .filter(|slot| **slot < 0)
                .ok_or_else(|| {
                    format!("element {e} is out of range or repeated in the memory order")
                })?;
            *slot = i64::try_from(position).unwrap_or(i64::MAX);
        }
    }
    Ok(positions)
}

/// How the padding of `shape` is written (see [`padding_label`]).
///
/// # Errors
/// A message for an unknown padding value.
pub fn padding_of(shape: &Shape) -> Result<&'static str, String> {
    let value = shape
        .layout
        .as_deref()
        .map_or(Ok(PaddingValue::InvalidPad), layout_util::padding_value)
        .map_err(|e| e.to_string())?;
    Ok(padding_label(value))
}

/// A padding cell showing the padding value.
pub fn padding(pad: &str, note: String) -> Cell {
    Cell {
        label: pad.to_owned(),
        note,
        fill: Fill::Padding,
        emphasis: false,
    }
}

/// The bits one element takes in the buffer: the layout's
/// `element_size_in_bits`, else the type's whole bytes.
///
/// # Errors
/// A message for a type with no size (tuples, tokens).
pub fn element_bits(shape: &Shape) -> Result<i64, String> {
    match shape.layout.as_deref().map(|l| l.element_size_in_bits) {
        Some(bits) if bits > 0 => Ok(bits),
        _ => PrimitiveType::try_from(shape.element_type)
            .ok()
            .and_then(PrimitiveType::byte_width)
            .map(|bytes| bytes * 8)
            .ok_or_else(|| format!("{shape} has no element size")),
    }
}

/// The strip of the buffer `order` (its first [`MAX_STRIP`] positions):
/// `entry(position, element)` gives each entry, whose fill, if a position,
/// is set to its own position.
pub fn strip(
    order: &[Option<i64>],
    element_bits: i64,
    mut entry: impl FnMut(i64, Option<i64>) -> Cell,
) -> Strip {
    let shown = order.len().min(MAX_STRIP);
    let entries = order
        .iter()
        .take(shown)
        .enumerate()
        .map(|(p, &element)| {
            let position = i64::try_from(p).unwrap_or(i64::MAX);
            let mut cell = entry(position, element);
            if let Fill::Position(_) = cell.fill {
                cell.fill = Fill::Position(position);
            }
            cell
        })
        .collect();
    // Byte offsets under every `tick`-th entry: at most 8 a row, and each
    // a whole byte.
    let mut tick = 1;
    while shown.min(PER_ROW).div_ceil(tick) > 8
        || (i64::try_from(tick).unwrap_or(8) * element_bits) % 8 != 0
    {
        tick *= 2;
    }
    let mut caption = format!(
        "buffer in memory order: {} positions of {element_bits} bits (byte offsets below)",
        order.len()
    );
    if shown < order.len() {
        caption.push_str(&format!("; positions 0-{} shown", shown - 1));
    }
    Strip {
        caption,
        entries,
        tick,
        element_bits,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_strip_ticks_whole_bytes_at_most_eight_a_row() {
        let order: Vec<Option<i64>> = (0..6).map(Some).collect();
        let entry = |_, e: Option<i64>| Cell {
            label: format!("{e:?}"),
            note: String::new(),
            fill: Fill::Position(0),
            emphasis: false,
        };
        assert_eq!(strip(&order, 32, entry).tick, 1);
        assert_eq!(strip(&order, 4, entry).tick, 2);
        assert_eq!(strip(&order, 1, entry).tick, 8);
        let long: Vec<Option<i64>> = (0..300).map(Some).collect();
        let long_strip = strip(&long, 32, entry);
        assert_eq!((long_strip.tick, long_strip.entries.len()), (4, MAX_STRIP));
        assert!(long_strip.caption.ends_with("positions 0-255 shown"));
        assert_eq!(long_strip.entries[7].fill, Fill::Position(7));
    }

    #[test]
    fn a_bad_memory_order_is_an_error() {
        assert!(position_of_elements(&[Some(0), Some(0)], 2).is_err());
        assert!(position_of_elements(&[Some(2), None], 2).is_err());
        assert!(position_of_elements(&[Some(0)], 2).is_err());
        assert_eq!(
            position_of_elements(&[Some(1), None, Some(0)], 2).unwrap(),
            [2, 0]
        );
    }
}
