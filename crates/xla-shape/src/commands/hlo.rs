//! `hlo`: every buffer of an HLO module, largest first, with its padding
//! (hlo-util's [`MemoryReport`]); XLA's dumps of a buffer assignment go to
//! `hlo_dump`, the peak of a module's text (`--peak`) to `hlo_peak`.

use std::fs::File;
use std::io::BufRead;
use std::io::BufReader;

use super::hlo_json::Success;
use hlo_util::MemoryReport;

use crate::cli::HloArgs;

/// Reads the module in `args.file` (`-`: standard input) and reports its
/// largest buffers: the table, or (`json`) one JSON object, `ok` first.
pub fn run(args: &HloArgs, json: bool) -> Result<String, String> {
    let top = if args.all { usize::MAX } else { args.top };
    if args.file != "-" {
        if let Some(report) = super::hlo_dump::run(args, json, top)? {
            return Ok(report);
        }
    } else if args.timeline.is_some() || args.live_range.is_some() {
        return Err("XLA's dumps are read from their files, not standard input".to_owned());
    }
    if args.peak
        || args.timeline.is_some()
        || !args.by.is_empty()
        || args.diff.is_some()
        || args.flame.is_some()
        || args.pprof.is_some()
    {
        return super::hlo_peak::run(args, json, top);
    }
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
            origins: super::hlo_origins::Origins::default(),
            timeline: None,
            outputs: Default::default(),
        })
        .map_err(|e| e.to_string())
    } else {
        Ok(report.to_string())
    }
}

fn read(input: impl BufRead, top: usize) -> Result<MemoryReport, String> {
    xla_shape_front::hlo_memory_read(input, top).map_err(|e| e.to_string())
}
