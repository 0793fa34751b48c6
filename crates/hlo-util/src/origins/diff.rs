//! What changed between the peaks of two programs: the peak, and the bytes
//! at each one's peak by source line and by op_name, side by side.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::group::{GroupBy, group_at_peak};
use crate::PeakReport;

/// One group's bytes at the peaks of programs A and B.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiffRow {
    /// The group (a source line, an op_name); none for the buffers whose
    /// module records nothing of them.
    pub key: Option<String>,
    /// Its bytes at A's peak.
    pub a_bytes: u64,
    /// Its bytes at B's peak.
    pub b_bytes: u64,
    /// `b_bytes - a_bytes`.
    pub delta_bytes: i64,
}

/// The peak of program B against that of program A.
///
/// ```
/// use hlo_util::{PeakDiff, PeakReport};
/// let mut a = PeakReport::default();
/// a.peak_bytes = 100;
/// let mut b = PeakReport::default();
/// b.peak_bytes = 60;
/// let diff = PeakDiff::new(&a, &b);
/// assert_eq!(diff.peak_bytes_delta, -40);
/// assert!(diff.by_source.is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PeakDiff {
    /// A's peak.
    pub a_peak_bytes: u64,
    /// B's peak.
    pub b_peak_bytes: u64,
    /// B's peak less A's.
    pub peak_bytes_delta: i64,
    /// The bytes at each peak by source line (the innermost frame's),
    /// largest change first.
    pub by_source: Vec<DiffRow>,
    /// The bytes at each peak by op_name, largest change first.
    pub by_op: Vec<DiffRow>,
}

impl PeakDiff {
    /// B's peak against A's.
    pub fn new(a: &PeakReport, b: &PeakReport) -> Self {
        Self {
            a_peak_bytes: a.peak_bytes,
            b_peak_bytes: b.peak_bytes,
            peak_bytes_delta: delta(a.peak_bytes, b.peak_bytes),
            by_source: side_by_side(a, b, GroupBy::Source),
            by_op: side_by_side(a, b, GroupBy::Op),
        }
    }
}

/// `b - a`, saturated to 64 bits.
fn delta(a: u64, b: u64) -> i64 {
    let d = i128::from(b) - i128::from(a);
    i64::try_from(d).unwrap_or(if d < 0 { i64::MIN } else { i64::MAX })
}

/// The groups of both peaks by `by`, largest change first (then by key).
fn side_by_side(a: &PeakReport, b: &PeakReport, by: GroupBy) -> Vec<DiffRow> {
    let mut rows: HashMap<Option<String>, (u64, u64)> = HashMap::new();
    for row in group_at_peak(a, by) {
        rows.entry(row.key).or_default().0 = row.bytes;
    }
    for row in group_at_peak(b, by) {
        rows.entry(row.key).or_default().1 = row.bytes;
    }
    let mut rows: Vec<DiffRow> = rows
        .into_iter()
        .map(|(key, (a_bytes, b_bytes))| DiffRow {
            key,
            a_bytes,
            b_bytes,
            delta_bytes: delta(a_bytes, b_bytes),
        })
        .collect();
    rows.sort_by(|x, y| {
        y.delta_bytes
            .unsigned_abs()
            .cmp(&x.delta_bytes.unsigned_abs())
            .then_with(|| y.b_bytes.max(y.a_bytes).cmp(&x.b_bytes.max(x.a_bytes)))
            .then_with(|| x.key.is_none().cmp(&y.key.is_none()))
            .then_with(|| x.key.cmp(&y.key))
    });
    rows
}
