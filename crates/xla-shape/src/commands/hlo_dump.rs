//! `hlo` of XLA's dumps of a buffer assignment: the peak report, and with
//! `--timeline` its picture.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use hlo_util::{MemoryDump, PeakReport};

use super::files;
use super::hlo_json::Success;
use crate::cli::HloArgs;
use crate::draw::timeline;

/// The report of `args.file` when it is one of XLA's dumps (the text, or
/// with `json` one JSON object, `ok` first); none for anything else, which
/// `hlo` reads as a module.
pub fn run(args: &HloArgs, json: bool, top: usize) -> Result<Option<String>, String> {
    let path = Path::new(&args.file);
    let cannot = |p: &Path, e: std::io::Error| format!("cannot read {}: {e}", p.display());
    let mut head = Vec::with_capacity(32);
    File::open(path)
        .and_then(|f| f.take(32).read_to_end(&mut head))
        .map_err(|e| cannot(path, e))?;
    let (report, svg) = if args.live_range.is_some() || MemoryDump::is_assignment_text(&head) {
        let live_path = match &args.live_range {
            Some(p) => PathBuf::from(p),
            None => MemoryDump::live_range_beside(path).ok_or_else(|| {
                format!(
                    "{}: a buffer-assignment dump needs its live ranges: --live-range FILE",
                    args.file
                )
            })?,
        };
        let read = |p: &Path| std::fs::read_to_string(p).map_err(|e| cannot(p, e));
        let (assignment, live_range) = (read(path)?, read(&live_path)?);
        draw(
            args,
            MemoryDump::Text {
                buffer_assignment: &assignment,
                live_range: &live_range,
            },
        )?
    } else {
        let bytes = std::fs::read(path).map_err(|e| cannot(path, e))?;
        if !MemoryDump::is_hlo_proto(&bytes) {
            return match &args.timeline {
                Some(_) => Err("--timeline needs XLA's dump: the HloProto \
                     (*after_optimizations.hlo.pb) or *-buffer-assignment.txt"
                    .to_owned()),
                None => Ok(None),
            };
        }
        draw(args, MemoryDump::Proto(&bytes))?
    };
    if let (Some(out), Some(svg)) = (&args.timeline, &svg) {
        files::write_atomically(out, format!("{svg}\n").as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    }
    let written = args.timeline.as_ref().map(|p| p.display().to_string());
    if json {
        let object = Success {
            ok: true,
            report: &report,
            timeline: written,
        };
        return serde_json::to_string(&object)
            .map(Some)
            .map_err(|e| e.to_string());
    }
    let mut text = report.text(top).to_string();
    if let Some(out) = written {
        text.push_str(&format!("\nwrote {out}"));
    }
    Ok(Some(text))
}

/// The dump's peak report, and its timeline picture when asked for.
fn draw(args: &HloArgs, dump: MemoryDump<'_>) -> Result<(PeakReport, Option<String>), String> {
    let report = dump.peak().map_err(|e| e.to_string())?;
    let svg = match &args.timeline {
        Some(_) => {
            let timeline_data = dump.timeline().map_err(|e| e.to_string())?;
            Some(timeline::render(
                &title(&args.file),
                &report,
                &timeline_data,
            ))
        }
        None => None,
    };
    Ok((report, svg))
}

/// The picture's title: the memory timeline of the file's name.
pub fn title(file: &str) -> String {
    let name = Path::new(file)
        .file_name()
        .map_or_else(|| file.to_owned(), |n| n.to_string_lossy().into_owned());
    format!("memory timeline of {name}")
}
