//! The JSON object of `hlo`'s reports.

use serde::Serialize;

/// A report's JSON object with `"ok": true` first (and the picture
/// written, if any, last).
#[derive(Serialize)]
pub struct Success<'a, R> {
    /// Always true.
    pub ok: bool,
    /// The report's fields.
    #[serde(flatten)]
    pub report: &'a R,
    /// Where the timeline picture was written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeline: Option<String>,
}
