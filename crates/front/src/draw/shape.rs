//! The picture of an array shape: its logical grid (padding and tiles
//! included) and its buffer, from the shape's [`TiledLayout`]. Only what is
//! shown is computed (the window's cells, the strip's first positions), so
//! arrays of any size draw in the same time.

use index_util::{PhysicalLayout, TiledLayout};
use schema::{PaddingValue, PrimitiveType, Shape};

use super::strip::PER_ROW;
use super::{Cell, Fill, Picture, Strip, tiles, window};
use shape_util::{element_label, padding_label};

/// The most buffer positions the strip shows.
pub const MAX_STRIP: usize = 256;

/// The picture of `shape`, whose buffer is `layout` (the same layout as
/// the `order` command follows): each shown cell's position from
/// [`TiledLayout::position`], each shown strip entry's element from
/// [`TiledLayout::logical_row_major`].
///
/// # Errors
/// A message if `shape` is not an array with a valid layout.
pub fn picture(shape: &Shape, layout: &TiledLayout) -> Result<Picture, String> {
    let physical = PhysicalLayout::new(shape).map_err(|e| e.to_string())?;
    let dims = physical.dimensions();
    let count = shape_util::elements_in(shape).map_err(|e| e.to_string())?;
    let shape_layout = shape.layout.as_deref();
    let pad = padding_of(shape)?;
    let levels = tiles::levels(
        dims.len(),
        physical.minor_to_major(),
        shape_layout.map_or(&[][..], |l| &l.tiles[..]),
    );
    let extents: Vec<i64> = physical
        .padded_dimensions()
        .iter()
        .enumerate()
        .map(|(d, &size)| levels.extent(d, size))
        .collect();
    let tiled = layout.is_tiled();
    let axes = axis_captions(&physical, &extents, tiled);
    let cell = |index: &[i64]| -> Result<Cell, String> {
        if index.iter().zip(dims).any(|(&i, &d)| i >= d) {
            return Ok(padding(pad, String::new()));
        }
        let element = index.iter().zip(dims).fold(0, |acc, (&i, &d)| acc * d + i);
        let position = layout.position(index).map_err(|e| e.to_string())?;
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
        notes.push(strides_note(&physical));
    }
    if count == 0 {
        notes.push("the array has no elements".to_owned());
    }
    notes.extend(window_notes);
    let strip = strip(layout, element_bits(shape)?, |_, element| match element {
        Some(e) => Cell {
            label: element_label(e, count),
            note: String::new(),
            fill: Fill::Position(0),
            emphasis: false,
        },
        None => padding(pad, String::new()),
    })?;
    Ok(Picture {
        legend: "memory position",
        title: shape.to_string(),
        notes,
        positions: layout.buffer_len(),
        panels,
        strip,
    })
}

/// Each dimension's caption: its size, what its tiles or padding pad it
/// to (`extents`), and its stride when the layout is not tiled.
fn axis_captions(physical: &PhysicalLayout, extents: &[i64], tiled: bool) -> Vec<String> {
    let dims = physical.dimensions();
    (0..dims.len())
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
        .collect()
}

/// The note of an untiled layout: its dimensions major to minor and their
/// strides.
fn strides_note(physical: &PhysicalLayout) -> String {
    let strides: Vec<String> = physical.strides().iter().map(i64::to_string).collect();
    let major_to_minor: Vec<String> = physical
        .minor_to_major()
        .iter()
        .rev()
        .map(usize::to_string)
        .collect();
    format!(
        "dims major to minor: {} \u{b7} strides [{}] (elements)",
        major_to_minor.join(","),
        strides.join(",")
    )
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

/// The strip of the buffer `layout` (its first [`MAX_STRIP`] positions):
/// `entry(position, element)` gives each entry from the row-major index of
/// the element there (`None` for padding); its fill, if a position, is set
/// to its own position.
///
/// # Errors
/// [`TiledLayout::logical_row_major`]'s, as a message (not for positions
/// inside the buffer).
pub fn strip(
    layout: &TiledLayout,
    element_bits: i64,
    mut entry: impl FnMut(i64, Option<i64>) -> Cell,
) -> Result<Strip, String> {
    let len = layout.buffer_len();
    let shown = usize::try_from(len).unwrap_or(usize::MAX).min(MAX_STRIP);
    let mut entries = Vec::with_capacity(shown);
    for position in (0..len).take(shown) {
        let element = layout
            .logical_row_major(position)
            .map_err(|e| e.to_string())?;
        let mut cell = entry(position, element);
        if let Fill::Position(_) = cell.fill {
            cell.fill = Fill::Position(position);
        }
        entries.push(cell);
    }
    // Byte offsets under every `tick`-th entry: at most 8 a row, and each
    // a whole byte.
    let mut tick = 1;
    while shown.min(PER_ROW).div_ceil(tick) > 8
        || (i64::try_from(tick).unwrap_or(8) * element_bits) % 8 != 0
    {
        tick *= 2;
    }
    let mut caption = format!(
        "buffer in memory order: {len} positions of {element_bits} bits (byte offsets below)"
    );
    if i64::try_from(shown).unwrap_or(i64::MAX) < len {
        caption.push_str(&format!("; positions 0-{} shown", shown - 1));
    }
    Ok(Strip {
        caption,
        entries,
        tick,
        element_bits,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(text: &str) -> TiledLayout {
        TiledLayout::new(&text.parse().unwrap()).unwrap()
    }

    fn entry(_: i64, e: Option<i64>) -> Cell {
        Cell {
            label: format!("{e:?}"),
            note: String::new(),
            fill: Fill::Position(0),
            emphasis: false,
        }
    }

    #[test]
    fn the_strip_ticks_whole_bytes_at_most_eight_a_row() {
        let tick = |text: &str, bits| strip(&layout(text), bits, entry).unwrap().tick;
        assert_eq!(tick("f32[6]{0}", 32), 1);
        assert_eq!(tick("s4[6]{0:E(4)}", 4), 2);
        assert_eq!(tick("pred[6]{0:E(1)}", 1), 8);
        let long_strip = strip(&layout("f32[300]{0}"), 32, entry).unwrap();
        assert_eq!((long_strip.tick, long_strip.entries.len()), (4, MAX_STRIP));
        assert!(long_strip.caption.ends_with("positions 0-255 shown"));
        assert_eq!(long_strip.entries[7].fill, Fill::Position(7));
    }

    #[test]
    fn the_strip_follows_the_tiles() {
        // XLA's figure: 0 1 5 6 2 3 7 8 4 . 9 . ...
        let figure = strip(&layout("f32[3,5]{1,0:T(2,2)}"), 32, entry).unwrap();
        let labels: Vec<&str> = figure.entries.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(
            labels[..10],
            [
                "Some(0)", "Some(1)", "Some(5)", "Some(6)", "Some(2)", "Some(3)", "Some(7)",
                "Some(8)", "Some(4)", "None"
            ]
        );
        assert_eq!(figure.entries.len(), 24);
    }
}
