//! The plain-text tables of the reports: left-aligned columns two spaces
//! apart, and XLA's `[a,b,c]` lists in their cells.

use crate::tile_assignment::join;

/// Rows of cells as left-aligned columns two spaces apart, one line each
/// (trailing spaces trimmed).
pub(crate) fn table(rows: &[Vec<String>]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|cell| cell.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(cell, &w)| format!("{cell:w$}"))
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
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
