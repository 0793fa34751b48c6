//! Plain-text tables of the reports: columns as wide as their widest cell,
//! numbers right-aligned.

use std::borrow::Cow;

use crate::printable::printable;

/// The lines of a table: the header, then one line per row; each column as
/// wide as its widest cell, the first `numeric` columns right-aligned, the
/// others left-aligned, the last unpadded and trailing blanks trimmed.
/// Control characters in a cell are escaped ([`printable`]): a cell stays
/// on its line and the terminal's state is left alone.
pub(crate) fn aligned(header: &[&str], rows: &[Vec<String>], numeric: usize) -> Vec<String> {
    let rows: Vec<Vec<Cow<'_, str>>> = rows
        .iter()
        .map(|cells| cells.iter().map(|cell| printable(cell)).collect())
        .collect();
    let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for cells in &rows {
        for (width, cell) in widths.iter_mut().zip(cells) {
            *width = (*width).max(cell.len());
        }
    }
    let mut lines = vec![line(header, &widths, numeric)];
    lines.extend(rows.iter().map(|cells| line(cells, &widths, numeric)));
    lines
}

/// One line of the table.
fn line(cells: &[impl AsRef<str>], widths: &[usize], numeric: usize) -> String {
    let mut line = String::new();
    for (column, (cell, &width)) in cells.iter().zip(widths).enumerate() {
        let cell = cell.as_ref();
        if column + 1 == cells.len() {
            line.push_str(cell);
        } else if column < numeric {
            line.push_str(&format!("{cell:>width$}  "));
        } else {
            line.push_str(&format!("{cell:<width$}  "));
        }
    }
    line.trim_end().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_in_cells_are_escaped() {
        let rows = vec![vec!["a\u{1b}[1A\nfake".to_owned(), "x".to_owned()]];
        assert_eq!(
            aligned(&["name", "last"], &rows, 0),
            ["name              last", "a\\u{1b}[1A\\nfake  x"]
        );
    }

    #[test]
    fn columns_fit_their_widest_cell() {
        let rows = vec![
            vec!["1".to_owned(), "a".to_owned(), "x".to_owned()],
            vec!["100".to_owned(), "bcd".to_owned(), String::new()],
        ];
        assert_eq!(
            aligned(&["n", "name", "last"], &rows, 1),
            ["  n  name  last", "  1  a     x", "100  bcd"]
        );
    }
}
