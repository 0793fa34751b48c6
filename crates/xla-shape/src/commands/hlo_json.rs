//! The JSON object of `hlo`'s reports.

use serde::Serialize;

use super::hlo_origins::Origins;

/// A report's JSON object with `"ok": true` first (then the groupings and
/// the diff asked for, and the files written, if any, last).
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
    /// Where the flame graph and the pprof profile were written.
    #[serde(flatten)]
    pub outputs: PeakOutputs,
}

/// `report`'s text, or its JSON object (`"ok": true` first) when `json`:
/// only the one asked for is built, as a report may list a million rows.
pub fn text_or_json<R: Serialize + std::fmt::Display>(
    report: &R,
    json: bool,
) -> Result<String, String> {
    if !json {
        return Ok(report.to_string());
    }
    let success = Success {
        ok: true,
        report,
        origins: Origins::default(),
        timeline: None,
        outputs: PeakOutputs::default(),
    };
    serde_json::to_string(&success).map_err(|e| e.to_string())
}

/// Where `--flame` and `--pprof` wrote (absent when not asked for).
#[derive(Serialize, Default)]
pub struct PeakOutputs {
    /// The flame graph's path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flame: Option<String>,
    /// The pprof profile's path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pprof: Option<String>,
}

impl PeakOutputs {
    /// The paths written, as the text report's last lines say them.
    pub fn lines(&self) -> String {
        self.flame
            .iter()
            .chain(&self.pprof)
            .map(|p| format!("\nwrote {p}"))
            .collect()
    }
}
