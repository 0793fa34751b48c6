//! The plain-text tables of the reports: left-aligned columns two spaces
//! apart, and XLA's `[a,b,c]` lists in their cells.

use std::fmt;

use crate::tile_assignment::join;

/// Rows of cells as left-aligned columns two spaces apart, one line each
/// (trailing spaces trimmed).
pub(crate) fn table(rows: &[Vec<String>]) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = write_table(&mut out, rows.len(), |i, cells| cells.clone_from(&rows[i]));
    out
}

/// [`table`] of `count` rows that `row(i, cells)` writes into `cells` one
/// at a time, twice (once for the column widths, once to print): the
/// table's memory is one row's, whatever the number of rows.
pub(crate) fn write_table(
    out: &mut impl fmt::Write,
    count: usize,
    mut row: impl FnMut(usize, &mut Vec<String>),
) -> fmt::Result {
    let mut cells = Vec::new();
    let mut widths: Vec<usize> = Vec::new();
    for i in 0..count {
        cells.clear();
        row(i, &mut cells);
        if widths.len() < cells.len() {
            widths.resize(cells.len(), 0);
        }
        for (width, cell) in widths.iter_mut().zip(&cells) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut line = String::new();
    for i in 0..count {
        cells.clear();
        row(i, &mut cells);
        line.clear();
        for (c, (cell, &width)) in cells.iter().zip(&widths).enumerate() {
            if c > 0 {
                line.push_str("  ");
            }
            line.push_str(cell);
            let pad = width.saturating_sub(cell.chars().count());
            line.extend(std::iter::repeat_n(' ', pad));
        }
        out.write_str(line.trim_end())?;
        out.write_char('\n')?;
    }
    Ok(())
}

/// `[a,b,c]`, as XLA prints dimension lists.
pub(crate) fn list(values: &[i64]) -> String {
    format!("[{}]", join(values))
}

/// A header row of the column names.
pub(crate) fn header(names: &[&str]) -> Vec<String> {
    names.iter().map(|&name| name.to_owned()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_align_and_lines_are_trimmed() {
        let rows = vec![
            header(&["a", "bb", "c"]),
            vec!["xyz".into(), "1".into(), "".into()],
        ];
        assert_eq!(table(&rows), "a    bb  c\nxyz  1\n");
        assert_eq!(list(&[2, 3]), "[2,3]");
        assert_eq!(list(&[]), "[]");
    }
}
