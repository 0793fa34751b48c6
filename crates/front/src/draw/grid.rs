//! The logical array: 2-D panels of labelled, coloured cells with their
//! axes and tile outlines, laid out left to right.

use super::svg::{FONT, MARGIN, Svg, TextStyle, text_width};
use super::{Cell, Extent, Fill, Panel, colour};

/// The side of a grid cell.
pub const CELL: i64 = 44;
/// The smallest font a cell's text is set in; past that, it overflows.
const MIN_FONT: i64 = 6;
/// Room left of the cells for the row indices.
const LEFT: i64 = 36;
/// Space between panels.
const GAP: i64 = 28;
/// Panels wrap onto a new line past this width.
const MAX_WIDTH: i64 = 1200;
/// The height of one line of words above a panel.
const LINE: i64 = FONT + 5;

/// Draws `panels` from `top`; returns the space they took.
pub fn panels(out: &mut Svg, panels: &[Panel], positions: i64, top: i64) -> Extent {
    let (mut x, mut y) = (MARGIN, top);
    let (mut width, mut line_height) = (0, 0);
    for (number, panel) in panels.iter().enumerate() {
        let size = panel_extent(panel);
        if x > MARGIN && x + size.width > MAX_WIDTH {
            x = MARGIN;
            y += line_height + GAP;
            line_height = 0;
        }
        draw_panel(out, number, panel, positions, (x, y));
        width = width.max(x + size.width - MARGIN);
        line_height = line_height.max(size.height);
        x += size.width + GAP;
    }
    Extent {
        width,
        height: y - top + line_height + GAP,
    }
}

/// The words above a panel: caption and axes.
fn heading(panel: &Panel) -> Vec<String> {
    let mut lines = Vec::new();
    if !panel.caption.is_empty() {
        lines.push(panel.caption.clone());
    }
    if let Some(axis) = &panel.row_axis {
        lines.push(format!("\u{2193} rows: {}", axis.label));
    }
    if let Some(axis) = &panel.col_axis {
        lines.push(format!("\u{2192} columns: {}", axis.label));
    }
    lines
}

fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX / CELL)
}

fn panel_extent(panel: &Panel) -> Extent {
    let words = heading(panel)
        .iter()
        .map(|line| text_width(line, FONT))
        .max()
        .unwrap_or(0);
    let lines = count(heading(panel).len());
    Extent {
        width: words.max(LEFT + count(panel.cols.len()) * CELL),
        height: lines * LINE + LINE + count(panel.rows.len()) * CELL,
    }
}

fn draw_panel(out: &mut Svg, number: usize, panel: &Panel, positions: i64, (x, y): (i64, i64)) {
    let mut line_y = y;
    for line in heading(panel) {
        line_y += LINE;
        out.text(x, line_y - 5, TextStyle::plain(FONT), &line);
    }
    let left = x + LEFT;
    let top = line_y + LINE;
    let index_style = TextStyle::plain(11).filled(colour::MUTED_TEXT);
    let cols = panel.col_axis.as_ref().map_or(&[][..], |_| &panel.cols[..]);
    let rows = panel.row_axis.as_ref().map_or(&[][..], |_| &panel.rows[..]);
    for (c, index) in cols.iter().enumerate() {
        let cx = left + count(c) * CELL + CELL / 2;
        out.text(
            cx,
            top - 5,
            index_style.anchored("middle"),
            &index.to_string(),
        );
    }
    for (r, index) in rows.iter().enumerate() {
        let cy = top + count(r) * CELL + CELL / 2 + 4;
        out.text(
            left - 6,
            cy,
            index_style.anchored("end"),
            &index.to_string(),
        );
    }
    let width = panel.cols.len().max(1);
    for (i, cell) in panel.cells.iter().enumerate() {
        let (r, c) = (count(i / width), count(i % width));
        let id = format!("cell-{number}-{r}-{c}");
        draw_cell(
            out,
            &id,
            cell,
            positions,
            (left + c * CELL, top + r * CELL),
            CELL,
        );
    }
    // Inner levels first, so that outer outlines stay whole on top.
    let mut outlines = panel.outlines.clone();
    outlines.sort_by_key(|o| std::cmp::Reverse(o.level));
    for o in outlines {
        let stroke = colour::OUTLINES[o.level % colour::OUTLINES.len()];
        out.frame(
            left + count(o.col) * CELL,
            top + count(o.row) * CELL,
            (count(o.cols) * CELL, count(o.rows) * CELL),
            stroke,
        );
    }
}

/// The font size, at most `size`, at which `text` fits across `side` by
/// [`text_width`]'s measure (at least [`MIN_FONT`]: past that, it
/// overflows).
fn fit(text: &str, size: i64, side: i64) -> i64 {
    let chars = i64::try_from(text.chars().count())
        .unwrap_or(i64::MAX)
        .max(1);
    size.min((side - 4).saturating_mul(20) / chars.saturating_mul(13))
        .max(MIN_FONT)
}

/// Whether `text` fits across a cell of `side` (at the smallest font).
pub fn fits(text: &str, side: i64) -> bool {
    text_width(text, MIN_FONT) <= side - 4
}

/// One square cell of side `side` at `(x, y)`: fill, label, and the note
/// under it. Shared with the strip.
pub fn draw_cell(
    out: &mut Svg,
    id: &str,
    cell: &Cell,
    positions: i64,
    (x, y): (i64, i64),
    side: i64,
) {
    let (fill, ink) = match cell.fill {
        Fill::Position(p) => {
            let rgb = colour::rgb(p, positions);
            (colour::hex(rgb), colour::text_on(rgb))
        }
        Fill::Padding => (format!("url(#{})", super::svg::HATCH_ID), colour::INK),
        Fill::Faded => (colour::FADED.to_owned(), colour::MUTED_TEXT),
    };
    out.rect(id, x, y, (side, side), &fill);
    if cell.fill == Fill::Padding {
        // A plain patch under the padding value, to read it on the hatching.
        let patch = side * 2 / 5;
        let (px, py) = (x + (side - patch) / 2, y + side / 2 - patch * 3 / 4);
        out.rect("", px, py, (patch, patch), colour::PADDING);
    }
    if !cell.label.is_empty() {
        let label = TextStyle::plain(fit(&cell.label, side / 3, side))
            .anchored("middle")
            .filled(ink);
        out.text(x + side / 2, y + side / 2 + 1, label, &cell.label);
    }
    if !cell.note.is_empty() {
        let note = TextStyle::plain(fit(&cell.note, side / 5, side))
            .anchored("middle")
            .filled(ink);
        out.text(x + side / 2, y + side - 5, note, &cell.note);
    }
    if cell.emphasis {
        out.frame(x + 1, y + 1, (side - 2, side - 2), (colour::INK, 3, ""));
    }
}
