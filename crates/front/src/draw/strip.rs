//! The buffer as a strip of entries in memory order, wrapped into rows,
//! with byte offsets under every `tick`-th entry.

use super::grid::draw_cell;
use super::svg::{FONT, MARGIN, Svg, TextStyle, text_width};
use super::{Extent, Strip, colour};

/// The side of a strip entry.
const SIDE: i64 = 36;
/// Entries per row of the strip.
pub const PER_ROW: usize = 32;
/// Room under a row for the byte offsets.
const UNDER: i64 = 24;

/// Draws `strip` from `top`; returns the space it took.
pub fn strip(out: &mut Svg, strip: &Strip, positions: i64, top: i64) -> Extent {
    let line = FONT + 5;
    out.text(
        MARGIN,
        top + line - 5,
        TextStyle::plain(FONT),
        &strip.caption,
    );
    let mut width = text_width(&strip.caption, FONT);
    let rows_top = top + line + 4;
    let tick = strip.tick.max(1);
    let offset_style = TextStyle::plain(10).filled(colour::MUTED_TEXT);
    let mut height = line + 4;
    for (row, entries) in strip.entries.chunks(PER_ROW).enumerate() {
        let y = rows_top + count(row) * (SIDE + UNDER);
        for (j, entry) in entries.iter().enumerate() {
            let position = row * PER_ROW + j;
            let x = MARGIN + count(j) * SIDE;
            draw_cell(
                out,
                &format!("strip-{position}"),
                entry,
                positions,
                (x, y),
                SIDE,
            );
            if position.is_multiple_of(tick) {
                out.line((x, y + SIDE), (x, y + SIDE + 6), colour::INK);
                let bits = count(position).saturating_mul(strip.element_bits);
                out.text(x + 2, y + SIDE + 16, offset_style, &(bits / 8).to_string());
            }
        }
        width = width.max(count(entries.len()) * SIDE);
        height = y - top + SIDE + UNDER;
    }
    Extent { width, height }
}

fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX / SIDE)
}
