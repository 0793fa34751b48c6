//! `hlo` of XLA's dumps of a buffer assignment: the peak report, and with
//! `--timeline` its picture (`--flame`, `--pprof`: its flame graph and
//! pprof profile).

use std::path::Path;

use hlo_util::{MemoryDump, ModuleOrigins, PeakReport};

use super::files;
use super::hlo_json::Success;
use super::hlo_origins::Origins;
use super::peak_outputs;
use crate::cli::HloArgs;
use xla_shape_front::DumpFiles;

/// The report of `args.file` when it is one of XLA's dumps (the text, or
/// with `json` one JSON object, `ok` first); none for anything else, which
/// `hlo` reads as a module.
pub fn run(args: &HloArgs, json: bool, top: usize) -> Result<Option<String>, String> {
    let live_range = args.live_range.as_deref().map(Path::new);
    let Some(read) =
        DumpFiles::read(Path::new(&args.file), live_range).map_err(|e| e.to_string())?
    else {
        return Ok(None);
    };
    let origins = match read {
        DumpFiles::Text(..) => origins_beside(Path::new(&args.file)),
        DumpFiles::Proto(_) => None,
    };
    let (report, svg) = draw(args, read.dump(), origins.as_ref())?;
    if let (Some(out), Some(svg)) = (&args.timeline, &svg) {
        files::write_output(out, format!("{svg}\n").as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    }
    let outputs = peak_outputs::write(args, &report)?;
    let written = args.timeline.as_ref().map(|p| p.display().to_string());
    let origins = Origins::of(args, &report)?;
    if json {
        let object = Success {
            ok: true,
            report: &report,
            origins,
            timeline: written,
            outputs,
        };
        return serde_json::to_string(&object)
            .map(Some)
            .map_err(|e| e.to_string());
    }
    let mut text = report.text(top).to_string();
    text.push_str(&origins.text(args));
    if let Some(out) = written {
        text.push_str(&format!("\nwrote {out}"));
    }
    text.push_str(&outputs.lines());
    Ok(Some(text))
}

/// The origins of the instructions of the module text XLA dumps beside
/// the buffer-assignment dump `path`, if it is there and reads.
fn origins_beside(path: &Path) -> Option<ModuleOrigins> {
    let text = std::fs::read_to_string(MemoryDump::module_text_beside(path)?).ok()?;
    ModuleOrigins::from_text(&text).ok()
}

/// The dump's peak report, and its timeline picture when asked for, their
/// buffers given the `origins` of their instructions.
fn draw(
    args: &HloArgs,
    dump: MemoryDump<'_>,
    origins: Option<&ModuleOrigins>,
) -> Result<(PeakReport, Option<String>), String> {
    // One reading of the dump gives the peak and, when asked for, the
    // timeline.
    let (mut report, timeline) = if args.timeline.is_some() {
        let (report, timeline) = dump.peak_and_timeline().map_err(|e| e.to_string())?;
        (report, Some(timeline))
    } else {
        (dump.peak().map_err(|e| e.to_string())?, None)
    };
    if let Some(origins) = origins {
        origins.apply(&mut report);
    }
    let svg = timeline.map(|mut timeline| {
        if let Some(origins) = origins {
            origins.apply_to_timeline(&mut timeline);
        }
        xla_shape_front::timeline_picture(Some(&args.file), &report, &timeline)
    });
    Ok((report, svg))
}
