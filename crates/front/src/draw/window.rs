//! The logical array cut into 2-D panels, within the cell budget: ranks 0
//! to 2 as one panel, higher ranks as slices labelled by their leading
//! indices; past the budget, a window of the array, said in notes.

use super::{Axis, Cell, Outline, Panel};

/// The most rows (and columns) a panel shows.
pub const MAX_SIDE: i64 = 32;
/// The most cells all panels show together.
pub const MAX_CELLS: i64 = 1024;
/// The most panels shown.
pub const MAX_PANELS: i64 = 16;

/// The dimensions along a panel's rows (none for ranks 0 and 1: one row)
/// and columns (none for rank 0: one cell) in an array of `rank`.
pub fn panel_dims(rank: usize) -> (Option<usize>, Option<usize>) {
    match rank {
        0 => (None, None),
        1 => (None, Some(0)),
        _ => (Some(rank - 2), Some(rank - 1)),
    }
}

/// The panels of an array with the given `extents` (padding included) and
/// axis words; `cell` gives each shown cell from its full index, `outlines`
/// the tile outlines of a panel showing `rows` by `cols` cells. Also returns
/// the notes saying what was left out.
///
/// # Errors
/// Whatever `cell` returns.
pub fn panels(
    extents: &[i64],
    axes: &[String],
    mut cell: impl FnMut(&[i64]) -> Result<Cell, String>,
    outlines: impl Fn(usize, usize) -> Vec<Outline>,
) -> Result<(Vec<Panel>, Vec<String>), String> {
    let rank = extents.len();
    let mut notes = Vec::new();
    let (row_dim, col_dim) = panel_dims(rank);
    let grid = Grid {
        rank,
        row_dim,
        col_dim,
        rows: shown(extents, row_dim, "rows", &mut notes),
        cols: shown(extents, col_dim, "columns", &mut notes),
    };
    let leading = &extents[..rank.saturating_sub(2)];
    let panel_count = panel_count(extents, grid.rows.len() * grid.cols.len(), &mut notes);
    for words in axes.iter().take(leading.len()) {
        notes.push(format!("slices along {words}"));
    }
    let axis = |dim: Option<usize>| {
        dim.map(|d| Axis {
            label: axes[d].clone(),
        })
    };
    let panel_outlines = outlines(grid.rows.len(), grid.cols.len());
    let mut result = Vec::new();
    let mut lead = vec![0_i64; leading.len()];
    for _ in 0..panel_count {
        let caption = caption(&lead);
        let cells = grid.cells(&lead, &mut cell)?;
        result.push(Panel {
            caption,
            row_axis: axis(row_dim),
            col_axis: axis(col_dim),
            rows: grid.rows.clone(),
            cols: grid.cols.clone(),
            cells,
            outlines: panel_outlines.clone(),
        });
        next_row_major(&mut lead, leading);
    }
    Ok((result, notes))
}

/// The indices shown along `dim` of `extents` (`[0]` without one): at
/// most [`MAX_SIDE`], with a note naming the `what` left out.
fn shown(extents: &[i64], dim: Option<usize>, what: &str, notes: &mut Vec<String>) -> Vec<i64> {
    let Some(d) = dim else { return vec![0] };
    let extent = extents[d];
    if extent > MAX_SIDE {
        notes.push(format!(
            "window: {what} 0-{} of {extent} of dim {d} shown",
            MAX_SIDE - 1
        ));
    }
    (0..extent.min(MAX_SIDE)).collect()
}

/// How many of the slices of `extents` (along all but the last two
/// dimensions) are shown as panels of `cells_per_panel` cells within the
/// budget, with notes on the slices of a high rank and on those left out.
fn panel_count(extents: &[i64], cells_per_panel: usize, notes: &mut Vec<String>) -> i64 {
    let rank = extents.len();
    let leading = &extents[..rank.saturating_sub(2)];
    let slices = leading
        .iter()
        .try_fold(1_i64, |acc, &e| acc.checked_mul(e))
        .unwrap_or(i64::MAX);
    let cells_per_panel = i64::try_from(cells_per_panel).unwrap_or(MAX_CELLS);
    let budget = (MAX_CELLS / cells_per_panel.max(1)).clamp(1, MAX_PANELS);
    let panel_count = slices.min(budget);
    if rank > 4 {
        notes.push(format!(
            "rank {rank}: dims 0-{} summarized as {slices} slices of dims {}-{}",
            rank - 3,
            rank - 2,
            rank - 1
        ));
    }
    if panel_count < slices {
        notes.push(format!(
            "window: the first {panel_count} of {slices} slices shown"
        ));
    }
    panel_count
}

/// The caption of the slice at leading indices `lead`: `[i,j,:,:]`, or
/// none for ranks up to 2.
fn caption(lead: &[i64]) -> String {
    if lead.is_empty() {
        String::new()
    } else {
        let mut parts: Vec<String> = lead.iter().map(i64::to_string).collect();
        parts.extend([":".to_owned(), ":".to_owned()]);
        format!("[{}]", parts.join(","))
    }
}

/// The cells every panel shows: the dimensions along its rows and columns
/// (if any) and the indices shown along each.
struct Grid {
    rank: usize,
    row_dim: Option<usize>,
    col_dim: Option<usize>,
    rows: Vec<i64>,
    cols: Vec<i64>,
}

impl Grid {
    /// The cells of the panel at leading indices `lead`, row by row, as
    /// `cell` gives them.
    fn cells(
        &self,
        lead: &[i64],
        cell: &mut impl FnMut(&[i64]) -> Result<Cell, String>,
    ) -> Result<Vec<Cell>, String> {
        let mut index = lead.to_vec();
        index.resize(self.rank, 0);
        let mut cells = Vec::with_capacity(self.rows.len() * self.cols.len());
        for &r in &self.rows {
            for &c in &self.cols {
                if let Some(d) = self.row_dim {
                    index[d] = r;
                }
                if let Some(d) = self.col_dim {
                    index[d] = c;
                }
                cells.push(cell(&index)?);
            }
        }
        Ok(cells)
    }
}

/// Steps `index` to the next index of `dims` in row-major order (back to
/// all zeros after the last).
pub(super) fn next_row_major(index: &mut [i64], dims: &[i64]) {
    for d in (0..index.len()).rev() {
        index[d] += 1;
        if index[d] < dims[d] {
            return;
        }
        index[d] = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::draw::Fill;

    fn numbered(index: &[i64]) -> Result<Cell, String> {
        Ok(Cell {
            label: format!("{index:?}"),
            note: String::new(),
            fill: Fill::Padding,
            emphasis: false,
        })
    }

    fn axes(rank: usize) -> Vec<String> {
        (0..rank).map(|d| format!("dim {d}")).collect()
    }

    #[test]
    fn ranks_0_to_2_are_one_panel() {
        let (panels, notes) = panels(&[], &[], numbered, |_, _| Vec::new()).unwrap();
        assert_eq!((panels.len(), panels[0].cells.len()), (1, 1));
        assert!(panels[0].row_axis.is_none() && panels[0].col_axis.is_none());
        assert!(notes.is_empty());
        let (panels, _) = panels_of(&[3]);
        assert_eq!(
            (panels[0].rows.clone(), panels[0].cols.clone()),
            (vec![0], vec![0, 1, 2])
        );
        assert_eq!(panels[0].cells[2].label, "[2]");
        let (panels, _) = panels_of(&[2, 3]);
        assert_eq!(panels[0].cells[4].label, "[1, 1]");
        assert_eq!(panels[0].col_axis.as_ref().unwrap().label, "dim 1");
    }

    fn panels_of(extents: &[i64]) -> (Vec<Panel>, Vec<String>) {
        panels(extents, &axes(extents.len()), numbered, |_, _| Vec::new()).unwrap()
    }

    #[test]
    fn higher_ranks_are_slices_within_the_budget() {
        let (panels, notes) = panels_of(&[2, 2, 3]);
        assert_eq!(panels.len(), 2);
        assert_eq!(panels[1].caption, "[1,:,:]");
        assert_eq!(panels[1].cells[5].label, "[1, 1, 2]");
        assert_eq!(notes, ["slices along dim 0"]);
        // 40x40 slices: a 32x32 window, one slice fits the budget.
        let (panels, notes) = panels_of(&[3, 40, 40]);
        assert_eq!((panels.len(), panels[0].cells.len()), (1, 1024));
        assert!(notes.contains(&"window: the first 1 of 3 slices shown".to_owned()));
        assert!(notes.contains(&"window: rows 0-31 of 40 of dim 1 shown".to_owned()));
        // Empty leading dimensions: no slices.
        assert!(panels_of(&[0, 2, 2]).0.is_empty());
    }

    #[test]
    fn cell_errors_pass_through() {
        let failing = |_: &[i64]| Err("no".to_owned());
        assert_eq!(
            panels(&[2], &axes(1), failing, |_, _| Vec::new()).unwrap_err(),
            "no"
        );
    }
}
