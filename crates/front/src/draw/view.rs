//! The picture of a strided view: the view's grid, each cell the base
//! element it reads, above the base buffer with the view's elements
//! outlined; strides written on the axes.

use index_util::TiledLayout;
use schema::Shape;
use stride_util::StridedView;

use super::shape::{MAX_STRIP, element_bits, padding, padding_of, strip};
use super::{Cell, Fill, Picture, window};
use shape_util::element_label;

/// The most elements of a view whose buffer positions are collected.
pub const MAX_VIEW_ELEMENTS: i64 = 1 << 20;

/// The picture of `view` into the buffer of `base`, laid out as `layout`
/// (as [`super::shape::picture`] takes it); `title` heads it.
///
/// # Errors
/// A message if the view has more than [`MAX_VIEW_ELEMENTS`] elements or
/// reads outside the buffer.
pub fn picture(
    title: &str,
    base: &Shape,
    layout: &TiledLayout,
    view: &StridedView,
) -> Result<Picture, String> {
    let count = shape_util::elements_in(base).map_err(|e| e.to_string())?;
    let pad = padding_of(base)?;
    let elements = view.num_elements();
    if elements > MAX_VIEW_ELEMENTS {
        return Err(format!(
            "the view has {elements} elements; draw reads at most {MAX_VIEW_ELEMENTS}"
        ));
    }
    let len = layout.buffer_len();
    let in_view = read_positions(view, len)?;
    let axes = axis_captions(view);
    let label =
        |element: Option<i64>| element.map_or_else(|| pad.to_owned(), |e| element_label(e, count));
    let cell = |index: &[i64]| -> Result<Cell, String> {
        let p = view.element_offset(index).map_err(|e| e.to_string())?;
        let element = layout.logical_row_major(p).map_err(|e| e.to_string())?;
        Ok(match element {
            Some(_) => Cell {
                label: label(element),
                note: format!("@{p}"),
                fill: Fill::Position(p),
                emphasis: false,
            },
            None => padding(pad, format!("@{p}")),
        })
    };
    let (panels, window_notes) = window::panels(view.sizes(), &axes, cell, |_, _| Vec::new())?;
    let mut notes = vec![format!(
        "view: shape {:?} \u{b7} strides {:?} \u{b7} offset {} (elements)",
        view.sizes(),
        view.strides(),
        view.offset()
    )];
    notes.extend(window_notes);
    let strip = strip(layout, element_bits(base)?, |p, element| {
        let hit = usize::try_from(p)
            .ok()
            .and_then(|p| in_view.get(p))
            .copied()
            == Some(true);
        match element {
            None => Cell {
                emphasis: hit,
                ..padding(pad, String::new())
            },
            Some(_) => Cell {
                label: label(element),
                note: String::new(),
                fill: if hit { Fill::Position(p) } else { Fill::Faded },
                emphasis: hit,
            },
        }
    })?;
    Ok(Picture {
        legend: "memory position",
        title: title.to_owned(),
        notes,
        positions: len,
        panels,
        strip,
    })
}

/// Which of the strip's first [`MAX_STRIP`] positions of a buffer of `len`
/// positions `view` reads.
///
/// # Errors
/// A message naming the first position the view reads outside the buffer.
fn read_positions(view: &StridedView, len: i64) -> Result<Vec<bool>, String> {
    let mut in_view = vec![false; usize::try_from(len).unwrap_or(usize::MAX).min(MAX_STRIP)];
    let mut outside = None;
    view.for_each_offset(|p| {
        if p < 0 || p >= len {
            outside = outside.or(Some(p));
        } else if let Some(hit) = usize::try_from(p).ok().and_then(|p| in_view.get_mut(p)) {
            *hit = true;
        }
    });
    match outside {
        Some(p) => Err(format!(
            "the view reads buffer position {p}, outside the base's {len} positions"
        )),
        None => Ok(in_view),
    }
}

/// Each view axis's caption: its size and stride, and what the stride does.
fn axis_captions(view: &StridedView) -> Vec<String> {
    view.sizes()
        .iter()
        .zip(view.strides())
        .enumerate()
        .map(|(axis, (&size, &stride))| {
            let how = match stride {
                0 => " (repeats one element)",
                s if s < 0 => " (reversed)",
                _ => "",
            };
            format!("axis {axis} \u{b7} size {size} \u{b7} stride {stride}{how}")
        })
        .collect()
}
