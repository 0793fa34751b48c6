//! The JSON object of `hlo`'s reports.

use serde::Serialize;

use super::hlo_origins::Origins;

/// A report's JSON object with `"ok": true` first (then the groupings and
/// the diff asked for, and the picture written, if any, last).
#[derive(Serialize)]
pub struct Success<'a, R> {
    /// Always true.
    pub ok: bool,
    /// The report's fields.
    #[serde(flatten)]
    pub report: &'a R,
    /// The `--by` groupings and the `--diff`.
    #[serde(flatten)]
    pub origins: Origins,
    /// Where the timeline picture was written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeline: Option<String>,
}
