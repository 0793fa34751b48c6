//! The text forms of the groupings and of a [`PeakDiff`]: tables, largest
//! first.

use std::fmt;

use super::diff::{DiffRow, PeakDiff};
use super::group::{GroupBy, GroupRow};
use crate::report::table::aligned;

/// What a group of no key is called in the tables.
const NO_KEY: &str = "(none)";

/// The table of `rows`, the groups of the peak by `by`: bytes, percent of
/// the peak, buffers, group.
///
/// ```
/// use hlo_util::{GroupBy, GroupRow, groups_text};
/// let rows = [GroupRow { key: Some("m.py:7".to_owned()), bytes: 96, buffers: 2, percent: 75.0 }];
/// assert_eq!(
///     groups_text(GroupBy::Source, &rows),
///     "by source: 1 group\nbytes  percent  buffers  source\n   96    75.0%        2  m.py:7"
/// );
/// ```
pub fn groups_text(by: GroupBy, rows: &[GroupRow]) -> String {
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.bytes.to_string(),
                format!("{:.1}%", r.percent),
                r.buffers.to_string(),
                r.key.clone().unwrap_or_else(|| NO_KEY.to_owned()),
            ]
        })
        .collect();
    let s = if rows.len() == 1 { "" } else { "s" };
    let mut text = format!("by {by}: {} group{s}", rows.len());
    for line in aligned(&["bytes", "percent", "buffers", by.word()], &cells, 3) {
        text.push('\n');
        text.push_str(&line);
    }
    text
}

/// A signed number of bytes with its sign.
fn signed(delta: i64) -> String {
    if delta > 0 {
        format!("+{delta}")
    } else {
        delta.to_string()
    }
}

/// One side-by-side table of a diff.
fn diff_table(
    f: &mut fmt::Formatter<'_>,
    title: &str,
    column: &str,
    rows: &[DiffRow],
) -> fmt::Result {
    write!(f, "\n{title}:")?;
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.a_bytes.to_string(),
                r.b_bytes.to_string(),
                signed(r.delta_bytes),
                r.key.clone().unwrap_or_else(|| NO_KEY.to_owned()),
            ]
        })
        .collect();
    for line in aligned(&["a_bytes", "b_bytes", "delta", column], &cells, 3) {
        write!(f, "\n{line}")?;
    }
    Ok(())
}

impl fmt::Display for PeakDiff {
    /// The peaks and their difference, then the bytes at each peak by
    /// source line and by op_name, largest change first.
    ///
    /// ```
    /// use hlo_util::{PeakDiff, PeakReport};
    /// let mut a = PeakReport::default();
    /// a.peak_bytes = 100;
    /// let mut b = PeakReport::default();
    /// b.peak_bytes = 160;
    /// assert!(PeakDiff::new(&a, &b).to_string().starts_with("peak: a 100 bytes   b 160 bytes   delta +60 bytes"));
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "peak: a {} bytes   b {} bytes   delta {} bytes",
            self.a_peak_bytes,
            self.b_peak_bytes,
            signed(self.peak_bytes_delta)
        )?;
        diff_table(f, "by source line", "source", &self.by_source)?;
        diff_table(f, "by op_name", "op", &self.by_op)
    }
}
