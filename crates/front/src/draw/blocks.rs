//! A large sharded array drawn at the level of its tiles: each cell of the
//! grid stands for a block of elements (the same size along rows and
//! columns, so that the tiles keep their proportions, unless a dimension's
//! tiles would then share cells), each tile a block of cells outlined,
//! coloured by its tile and labelled once, at its first cell, by its
//! devices. Past rank 2, one panel per tile along the leading dimensions.

use super::window::{MAX_CELLS, MAX_PANELS, MAX_SIDE, next_row_major, panel_dims};
use super::{Axis, Cell, Outline, Panel, outline_grid};

/// Whether an array of `dims` needs the block view: a panel's side is
/// longer than the cell view shows.
pub fn needed(dims: &[i64]) -> bool {
    let (rows, cols) = panel_dims(dims.len());
    [rows, cols]
        .into_iter()
        .flatten()
        .any(|d| dims.get(d).is_some_and(|&n| n > MAX_SIDE))
}

/// `n / d` rounded up (0 for `n <= 0`), `d` taken as at least 1, without
/// the overflow of `n + d - 1`.
fn ceil_div(n: i64, d: i64) -> i64 {
    if n <= 0 { 0 } else { (n - 1) / d.max(1) + 1 }
}

/// The elements per cell along each dimension of `dims` (tiles `shard`
/// elements long): one size for both panel sides, the smallest that fits
/// [`MAX_SIDE`] cells, but never longer than a tile, so that each tile has a
/// cell; 1 for the leading dimensions.
fn steps(dims: &[i64], shard: &[i64]) -> Vec<i64> {
    let (rows, cols) = panel_dims(dims.len());
    let sides: Vec<usize> = [rows, cols].into_iter().flatten().collect();
    let uniform = sides
        .iter()
        .map(|&d| ceil_div(dims[d], MAX_SIDE).max(1))
        .max()
        .unwrap_or(1);
    (0..dims.len())
        .map(|d| {
            if sides.contains(&d) {
                uniform.min(shard[d].max(1))
            } else {
                1
            }
        })
        .collect()
}

/// The block panels of an array of `dims` in tiles of `shard` elements
/// (`counts` tiles per dimension), with the axis words `axes`; `tile_cell`
/// gives the cell of a tile (its index per dimension, its flat number).
/// Also returns the notes saying what a cell is and what was left out.
///
/// # Errors
/// Whatever `tile_cell` returns.
pub fn panels(
    dims: &[i64],
    shard: &[i64],
    counts: &[i64],
    axes: &[String],
    mut tile_cell: impl FnMut(&[i64], i64) -> Result<Cell, String>,
) -> Result<(Vec<Panel>, Vec<String>), String> {
    let rank = dims.len();
    let step = steps(dims, shard);
    let (row_dim, col_dim) = panel_dims(rank);
    let mut notes = Vec::new();
    let grid = BlockGrid {
        shard,
        counts,
        row_dim,
        col_dim,
        rows: cell_starts(dims, &step, row_dim, "rows", &mut notes),
        cols: cell_starts(dims, &step, col_dim, "columns", &mut notes),
        row_step: row_dim.map_or(1, |d| step[d]),
        col_step: col_dim.map_or(1, |d| step[d]),
    };
    notes.push(format!(
        "blocks: one a shard, to scale, labelled by its devices \u{b7} a cell is {}\u{d7}{} elements",
        grid.row_step, grid.col_step
    ));
    // Leading dimensions: one panel per tile, at the tile's first index.
    let leading: Vec<i64> = counts[..rank.saturating_sub(2)].to_vec();
    let panel_count = panel_count(&leading, grid.rows.len() * grid.cols.len(), &mut notes);
    let tile_of = |d: usize, i: i64| grid.tile_of(d, i);
    let outlines = tile_outlines(row_dim, &grid.rows, col_dim, &grid.cols, &tile_of);
    let axis = |dim: Option<usize>| {
        dim.map(|d| Axis {
            label: axes[d].clone(),
        })
    };
    let mut lead = vec![0_i64; leading.len()];
    let mut result = Vec::new();
    for _ in 0..panel_count {
        let caption = lead_caption(&lead, shard);
        let cells = grid.cells(&lead, rank, &mut tile_cell)?;
        result.push(Panel {
            caption,
            row_axis: axis(row_dim),
            col_axis: axis(col_dim),
            rows: grid.rows.clone(),
            cols: grid.cols.clone(),
            cells,
            outlines: outlines.clone(),
        });
        next_row_major(&mut lead, &leading);
    }
    Ok((result, notes))
}

/// How many of the `leading` tiles (one per panel) are shown as panels of
/// `cells_per_panel` cells within the budget, with a note on those left
/// out.
fn panel_count(leading: &[i64], cells_per_panel: usize, notes: &mut Vec<String>) -> i64 {
    let slices = leading
        .iter()
        .try_fold(1_i64, |acc, &c| acc.checked_mul(c))
        .unwrap_or(i64::MAX);
    let per_panel = i64::try_from(cells_per_panel).unwrap_or(MAX_CELLS);
    let budget = (MAX_CELLS / per_panel.max(1)).clamp(1, MAX_PANELS);
    let panel_count = slices.min(budget);
    if panel_count < slices {
        notes.push(format!(
            "window: the first {panel_count} of {slices} tiles of the leading dimensions shown"
        ));
    }
    panel_count
}

/// The cells every block panel shows: tiles of `shard` elements (`counts`
/// per dimension), the dimensions along rows and columns (if any), the
/// first element of each cell shown along each, and a cell's elements
/// along each.
struct BlockGrid<'a> {
    shard: &'a [i64],
    counts: &'a [i64],
    row_dim: Option<usize>,
    col_dim: Option<usize>,
    rows: Vec<i64>,
    cols: Vec<i64>,
    row_step: i64,
    col_step: i64,
}

impl BlockGrid<'_> {
    /// The tile along dimension `d` that element `i` falls in.
    fn tile_of(&self, d: usize, i: i64) -> i64 {
        if self.shard[d] == 0 {
            0
        } else {
            i / self.shard[d]
        }
    }

    /// The cells of the panel at leading tiles `lead` (of an array of
    /// `rank`), row by row: each its tile's cell from `tile_cell`, labelled
    /// only at the tile's first cell.
    fn cells(
        &self,
        lead: &[i64],
        rank: usize,
        tile_cell: &mut impl FnMut(&[i64], i64) -> Result<Cell, String>,
    ) -> Result<Vec<Cell>, String> {
        let mut tile = lead.to_vec();
        tile.resize(rank, 0);
        let mut cells = Vec::with_capacity(self.rows.len() * self.cols.len());
        for &r in &self.rows {
            for &c in &self.cols {
                let mut first = true;
                for (dim, start, size) in [
                    (self.row_dim, r, self.row_step),
                    (self.col_dim, c, self.col_step),
                ] {
                    if let Some(d) = dim {
                        tile[d] = self.tile_of(d, start);
                        // The first cell of the tile (whose first element may
                        // lie in the cell before, counted to the tile before).
                        let tile_start = tile[d] * self.shard[d];
                        first &= start < tile_start + size;
                    }
                }
                let flat = tile
                    .iter()
                    .zip(self.counts)
                    .fold(0, |acc, (&t, &n)| acc * n + t);
                let mut cell = tile_cell(&tile, flat)?;
                if !first {
                    cell.label.clear();
                    cell.note.clear();
                }
                cells.push(cell);
            }
        }
        Ok(cells)
    }
}

/// The first element of each cell shown along panel dimension `dim` (cells
/// of `step` elements), noting in `notes` what a window leaves out.
fn cell_starts(
    dims: &[i64],
    step: &[i64],
    dim: Option<usize>,
    what: &str,
    notes: &mut Vec<String>,
) -> Vec<i64> {
    let Some(d) = dim else { return vec![0] };
    let cells = ceil_div(dims[d], step[d]);
    if cells > MAX_SIDE {
        notes.push(format!(
            "window: {what} 0-{} of {} of dim {d} shown",
            MAX_SIDE * step[d] - 1,
            dims[d]
        ));
    }
    (0..cells.min(MAX_SIDE)).map(|k| k * step[d]).collect()
}

/// A panel's caption: the first index of its leading tiles `lead` (tiles of
/// `shard`), `[i,j,:,:]`; none for an array of rank 2 or less.
fn lead_caption(lead: &[i64], shard: &[i64]) -> String {
    if lead.is_empty() {
        return String::new();
    }
    let mut parts: Vec<String> = (0..lead.len())
        .map(|d| (lead[d] * shard[d]).to_string())
        .collect();
    parts.extend([":".to_owned(), ":".to_owned()]);
    format!("[{}]", parts.join(","))
}

/// The outline of each tile: the run of cells whose first elements fall in
/// it, along rows and along columns.
fn tile_outlines(
    row_dim: Option<usize>,
    rows: &[i64],
    col_dim: Option<usize>,
    cols: &[i64],
    tile_of: &impl Fn(usize, i64) -> i64,
) -> Vec<Outline> {
    let runs = |dim: Option<usize>, starts: &[i64]| -> Vec<(usize, usize)> {
        let Some(d) = dim else {
            return vec![(0, starts.len())];
        };
        let mut out: Vec<(usize, usize)> = Vec::new();
        for (k, &s) in starts.iter().enumerate() {
            match out.last_mut() {
                Some((first, count)) if tile_of(d, starts[*first]) == tile_of(d, s) => {
                    *count += 1;
                }
                _ => out.push((k, 1)),
            }
        }
        out
    };
    outline_grid(&runs(row_dim, rows), &runs(col_dim, cols))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::draw::Fill;

    fn cell(tile: &[i64], flat: i64) -> Result<Cell, String> {
        Ok(Cell {
            label: format!("{tile:?}"),
            note: format!("tile {flat}"),
            fill: Fill::Position(flat),
            emphasis: false,
        })
    }

    fn axes(rank: usize) -> Vec<String> {
        (0..rank).map(|d| format!("dim {d}")).collect()
    }

    #[test]
    fn a_weight_split_by_columns_is_four_blocks_to_scale() {
        assert!(needed(&[512, 1024]));
        assert!(!needed(&[32, 32]));
        let (panels, notes) = panels(&[512, 1024], &[512, 256], &[1, 4], &axes(2), cell).unwrap();
        let panel = &panels[0];
        // 32 elements a cell both ways: 16 rows, 32 columns, 8 a tile.
        assert_eq!((panel.rows.len(), panel.cols.len()), (16, 32));
        assert_eq!((panel.rows[1], panel.cols[31]), (32, 992));
        assert_eq!(panel.outlines.len(), 4);
        assert_eq!(
            (
                panel.outlines[1].col,
                panel.outlines[1].cols,
                panel.outlines[1].rows
            ),
            (8, 8, 16)
        );
        let labelled: Vec<&str> = panel
            .cells
            .iter()
            .map(|c| c.label.as_str())
            .filter(|l| !l.is_empty())
            .collect();
        assert_eq!(labelled, ["[0, 0]", "[0, 1]", "[0, 2]", "[0, 3]"]);
        assert_eq!(panel.cells[8].fill, Fill::Position(1));
        assert_eq!(
            notes,
            [
                "blocks: one a shard, to scale, labelled by its devices \u{b7} a cell is 32\u{d7}32 elements"
            ]
        );
    }

    #[test]
    fn tiles_narrower_than_the_scale_keep_a_cell_each() {
        // 64 rows in 32 tiles of 2, 4096 columns: rows are 2 elements a cell.
        let (drawn, notes) = panels(&[64, 4096], &[2, 4096], &[32, 1], &axes(2), cell).unwrap();
        assert_eq!((drawn[0].rows.len(), drawn[0].cols.len()), (32, 32));
        assert_eq!(drawn[0].outlines.len(), 32);
        assert!(
            notes[0].ends_with("a cell is 2\u{d7}128 elements"),
            "{notes:?}"
        );
        // More tiles than cells: a window, said.
        let (_, notes) = panels(&[4096], &[1], &[4096], &axes(1), cell).unwrap();
        assert_eq!(notes[0], "window: columns 0-31 of 4096 of dim 0 shown");
    }

    #[test]
    fn leading_dimensions_are_a_panel_per_tile() {
        let (drawn, notes) =
            panels(&[4, 64, 64], &[2, 64, 32], &[2, 1, 2], &axes(3), cell).unwrap();
        assert_eq!(drawn.len(), 1);
        assert!(notes.contains(
            &"window: the first 1 of 2 tiles of the leading dimensions shown".to_owned()
        ));
        let (drawn, _) = panels_with_budget();
        assert_eq!(drawn[1].caption, "[2,:,:]");
    }

    fn panels_with_budget() -> (Vec<Panel>, Vec<String>) {
        panels(&[4, 40, 8], &[2, 40, 8], &[2, 1, 1], &axes(3), cell).unwrap()
    }
}
