//! `explain`: a readable report on a shape for a person (or, with `--json`,
//! the same facts as fields).

use index_util::{PhysicalLayout, TiledLayout};
use schema::{COMBINE_DIMENSION, PaddingValue, PrimitiveType, Shape};
use serde_json::{Value, json};

use super::order::memory_order;
use super::{Outcome, list, shape};
use crate::draw::labels::{element_label, padding_label};

/// The memory picture is drawn for buffers of at most this many positions.
const MAX_PICTURE: i64 = 64;

/// The report on one shape.
pub fn run(input: &str) -> Outcome {
    explain(&shape(input)?)
}

/// The report on `shape`: the plain text and the JSON fields.
pub fn explain(shape: &Shape) -> Outcome {
    if shape_util::is_array(shape) {
        explain_array(shape)
    } else {
        explain_other(shape)
    }
}

fn err(e: impl ToString) -> String {
    e.to_string()
}

fn explain_array(shape: &Shape) -> Outcome {
    let element_type = PrimitiveType::try_from(shape.element_type).map_err(err)?;
    let name = element_type.lowercase_name();
    let rank = shape_util::rank(shape).map_err(err)?;
    let true_rank = shape_util::true_rank(shape).map_err(err)?;
    let element_count = shape_util::elements_in(shape).map_err(err)?;
    let byte_size = shape_util::byte_size_of(shape, None).map_err(err)?;
    let physical = PhysicalLayout::new(shape).map_err(err)?;
    let tiled = TiledLayout::new(shape).map_err(err)?;
    let buffer_size = tiled.buffer_size_in_bytes();
    let major_to_minor: Vec<i64> = layout_util::minor_to_major(shape)
        .map_err(err)?
        .iter()
        .rev()
        .copied()
        .collect();
    let padded = layout_util::is_padded(shape).then(|| physical.padded_dimensions().to_vec());
    // A tiled buffer has no strides.
    let strides = if tiled.is_tiled() {
        None
    } else {
        let byte_strides = shape_util::byte_strides(shape).map_err(err)?;
        Some((physical.strides().to_vec(), byte_strides))
    };

    let bits = element_type.bit_width().unwrap_or(0);
    let mut lines = vec![
        format!("shape: {shape}"),
        format!("element type: {name} ({bits} bits)"),
        format!("rank: {rank} (true rank {true_rank})"),
        format!("elements: {element_count}"),
        format!("byte size: {byte_size}"),
        format!("layout: {}", layout_words(shape, &major_to_minor)),
    ];
    if tiled.is_tiled() {
        lines.push(format!("tiles: {}", tile_words(&tiled)));
        lines.push(format!(
            "buffer size: {buffer_size} bytes ({} positions for {element_count} elements, {} bits each)",
            tiled.buffer_len(),
            tiled.element_size_in_bits(),
        ));
        lines.push("strides: none (a tiled buffer has no strides)".to_owned());
    } else {
        lines.push(format!("buffer size: {buffer_size} bytes"));
    }
    if let Some((strides, byte_strides)) = &strides {
        lines.push(format!(
            "strides: {} elements, {} bytes",
            list(strides),
            list(byte_strides)
        ));
    }
    lines.push(format!(
        "padding: {}",
        padding_words(shape, &physical, &tiled)?
    ));
    if tiled.buffer_len() <= MAX_PICTURE {
        lines.push(format!("memory: {}", memory_picture(shape, &tiled)?));
    }
    let tiles: Vec<Vec<Value>> = tiled
        .tiles()
        .map(|tile| tile.iter().map(|&d| tile_entry_json(d)).collect())
        .collect();
    let fields = json!({
        "element_type": name,
        "rank": rank,
        "true_rank": true_rank,
        "element_count": element_count,
        "byte_size": byte_size,
        "buffer_size": buffer_size,
        "tiles": tiles,
        "strides": strides.as_ref().map(|s| &s.0),
        "byte_strides": strides.as_ref().map(|s| &s.1),
        "major_to_minor": major_to_minor,
        "padded_dimensions": padded,
    });
    Ok((lines.join("\n"), fields))
}

/// A tile entry in JSON: its size, or `"*"` for a combined dimension.
fn tile_entry_json(d: i64) -> Value {
    if d == COMBINE_DIMENSION {
        json!("*")
    } else {
        json!(d)
    }
}

/// `T(8,128)(2,1)` in words: `8x128 tiles over the 2 most minor dimensions,
/// then 2x1 tiles over the 2 most minor dimensions of the result`.
fn tile_words(tiled: &TiledLayout) -> String {
    let mut words = Vec::new();
    for (level, tile) in tiled.tiles().enumerate() {
        let sizes: Vec<String> = tile
            .iter()
            .map(|&d| {
                if d == COMBINE_DIMENSION {
                    "*".to_owned()
                } else {
                    d.to_string()
                }
            })
            .collect();
        let over = match (level, tile.len()) {
            (0, 1) => "the most minor dimension".to_owned(),
            (0, n) => format!("the {n} most minor dimensions"),
            (_, 1) => "the most minor dimension of the result".to_owned(),
            (_, n) => format!("the {n} most minor dimensions of the result"),
        };
        let then = if level == 0 { "" } else { "then " };
        words.push(format!("{then}{} tiles over {over}", sizes.join("x")));
    }
    let mut text = words.join(", ");
    if tiled.tiles().any(|t| t.contains(&COMBINE_DIMENSION)) {
        text.push_str(" (* combines a dimension with the next more minor one)");
    }
    if let Some(dims) = tiled.first_tile_dimensions() {
        text.push_str(&format!("; laid out as {}", list(&dims)));
        if tiled.tiles().len() > 1 {
            text.push_str(&format!(", then {}", list(tiled.buffer_dimensions())));
        }
    }
    text
}

/// `major to minor: dim 1 (size 3), dim 0 (size 2)`.
fn layout_words(shape: &Shape, major_to_minor: &[i64]) -> String {
    if major_to_minor.is_empty() {
        return "none needed (a scalar)".to_owned();
    }
    let dims: Vec<String> = major_to_minor
        .iter()
        .map(|&d| {
            let size = usize::try_from(d)
                .ok()
                .and_then(|d| shape.dimensions.get(d))
                .copied()
                .unwrap_or_default();
            format!("dim {d} (size {size})")
        })
        .collect();
    format!("major to minor: {}", dims.join(", "))
}

/// `none`, or the padded extents and the padding value.
fn padding_words(
    shape: &Shape,
    physical: &PhysicalLayout,
    tiled: &TiledLayout,
) -> Result<String, String> {
    Ok(if layout_util::is_padded(shape) {
        format!(
            "padded to {} with {} ({} positions for {} elements)",
            list(physical.padded_dimensions()),
            padding_value(shape)?.as_str_name(),
            physical.padded_element_count(),
            shape_util::elements_in(shape).map_err(err)?,
        )
    } else if tiled.is_tiled() {
        let elements: i64 = tiled.dimensions().iter().product();
        format!(
            "{} positions of tile and tail padding (any value)",
            tiled.buffer_len() - elements
        )
    } else {
        "none".to_owned()
    })
}

fn padding_value(shape: &Shape) -> Result<PaddingValue, String> {
    shape
        .layout
        .as_deref()
        .map_or(Ok(PaddingValue::InvalidPad), layout_util::padding_value)
        .map_err(err)
}

/// The buffer in memory order: elements named `a`, `b`, ... in row-major
/// order with padding shown by its value (`0`, `1`, `lo`, `hi`, `?`), as in
/// the seeds' `a d 0 b e 0 ...` (tile padding, of any value, as `.` like
/// XLA's tiled-layout figure); past 26 elements, row-major numbers with
/// `pad` for padding.
fn memory_picture(shape: &Shape, tiled: &TiledLayout) -> Result<String, String> {
    let count = tiled.dimensions().iter().product::<i64>();
    let pad = match padding_value(shape)? {
        _ if count > 26 => "pad",
        _ if tiled.is_tiled() => ".",
        value => padding_label(value),
    };
    let cells: Vec<String> = memory_order(tiled)?
        .into_iter()
        .map(|cell| cell.map_or_else(|| pad.to_owned(), |i| element_label(i, count)))
        .collect();
    Ok(cells.join(" "))
}

/// Tuples, tokens, opaque and buffer shapes: what they are and their size.
fn explain_other(shape: &Shape) -> Outcome {
    let kind = PrimitiveType::try_from(shape.element_type)
        .map(PrimitiveType::lowercase_name)
        .map_err(err)?;
    let byte_size = shape_util::byte_size_of(shape, Some(8)).map_err(err)?;
    let mut lines = vec![format!("shape: {shape}"), format!("kind: {kind}")];
    if shape_util::is_tuple(shape) {
        lines.push(format!("elements: {}", shape.tuple_shapes.len()));
    }
    lines.push(format!("byte size: {byte_size} (8-byte pointers)"));
    let fields = json!({
        "element_type": kind,
        "rank": Value::Null,
        "true_rank": Value::Null,
        "element_count": Value::Null,
        "byte_size": byte_size,
        "buffer_size": Value::Null,
        "tiles": Value::Null,
        "strides": Value::Null,
        "byte_strides": Value::Null,
        "major_to_minor": Value::Null,
        "padded_dimensions": Value::Null,
    });
    Ok((lines.join("\n"), fields))
}
