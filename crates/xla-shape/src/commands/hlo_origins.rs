//! `hlo FILE --peak --by GROUP` and `--diff B`: the bytes live at the peak
//! grouped by where they come from, and what changed at the peak of
//! another program (a module's text or one of XLA's dumps).

use std::collections::BTreeMap;
use std::path::Path;

use hlo_util::{GroupRow, PeakDiff, PeakReport, group_at_peak, groups_text};
use serde::Serialize;

use crate::cli::HloArgs;
use xla_shape_front::{DumpFiles, Error, module_peak_memory};

/// The groupings and the diff asked for, as the JSON object has them.
#[derive(Debug, Default, Serialize)]
pub struct Origins {
    /// Each `--by` grouping by its name, largest group first.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub groups: BTreeMap<&'static str, Vec<GroupRow>>,
    /// The peak of `--diff`'s program against this one's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<PeakDiff>,
}

impl Origins {
    /// The groupings of `report` and its diff with `args.diff`'s program.
    ///
    /// # Errors
    /// Why `args.diff`'s program has no peak.
    pub fn of(args: &HloArgs, report: &PeakReport) -> Result<Self, String> {
        let groups = args
            .by
            .iter()
            .map(|&by| (by.word(), group_at_peak(report, by)))
            .collect();
        let diff = match &args.diff {
            Some(other) => Some(PeakDiff::new(report, &peak_of_file(other)?)),
            None => None,
        };
        Ok(Self { groups, diff })
    }

    /// The tables, each after a blank line (empty when none was asked
    /// for), in the order of `--by`, the diff last.
    pub fn text(&self, args: &HloArgs) -> String {
        let mut text = String::new();
        for by in &args.by {
            if let Some(rows) = self.groups.get(by.word()) {
                text.push_str("\n\n");
                text.push_str(&groups_text(*by, rows));
            }
        }
        if let Some(diff) = &self.diff {
            text.push_str(&format!(
                "\n\ndiff against {}:\n{diff}",
                args.diff.as_deref().unwrap_or("")
            ));
        }
        text
    }
}

/// The peak of the program in `path`: XLA's dump of its buffer assignment,
/// or its module's text.
fn peak_of_file(path: &str) -> Result<PeakReport, String> {
    if let Some(dump) = DumpFiles::read(Path::new(path), None).map_err(|e| e.to_string())? {
        return dump.dump().peak().map_err(|e| format!("{path}: {e}"));
    }
    let input = std::fs::read(path).map_err(|source| {
        Error::Open {
            path: path.into(),
            source,
        }
        .to_string()
    })?;
    module_peak_memory(&input)
        .map(|m| m.peak)
        .map_err(|e| format!("{path}: {e}"))
}
