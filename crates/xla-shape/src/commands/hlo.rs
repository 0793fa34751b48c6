//! `hlo`: every buffer of an HLO module, largest first, with its padding
//! (hlo-util's [`MemoryReport`]).

#[cfg(feature = "cli")]
use std::fs::File;
use std::io::BufRead;
#[cfg(feature = "cli")]
use std::io::BufReader;

use hlo_util::MemoryReport;
use serde::Serialize;

#[cfg(feature = "cli")]
use crate::cli::HloArgs;

/// Reads the module in `args.file` (`-`: standard input) and reports its
/// largest buffers: the table, or (`json`) one JSON object, `ok` first.
#[cfg(feature = "cli")]
pub fn run(args: &HloArgs, json: bool) -> Result<String, String> {
    let top = if args.all { usize::MAX } else { args.top };
    let report = if args.file == "-" {
        read(std::io::stdin().lock(), top)
    } else {
        let file = File::open(&args.file).map_err(|e| format!("cannot open {}: {e}", args.file))?;
        read(BufReader::with_capacity(1 << 16, file), top)
    }?;
    if json {
        // Serialized directly: a report of every instruction is too large
        // to build as a `Value` first.
        serde_json::to_string(&Success {
            ok: true,
            report: &report,
        })
        .map_err(|e| e.to_string())
    } else {
        Ok(report.to_string())
    }
}

fn read(input: impl BufRead, top: usize) -> Result<MemoryReport, String> {
    MemoryReport::read(input, top).map_err(|e| e.to_string())
}

/// A report's JSON object with `"ok": true` first.
#[derive(Serialize)]
struct Success<'a> {
    ok: bool,
    #[serde(flatten)]
    report: &'a MemoryReport,
}
