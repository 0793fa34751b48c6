//! `hlo FILE --peak`: the peak report of a module computed from its text,
//! and with `--timeline` its picture (`--flame`, `--pprof`: its flame
//! graph and pprof profile).

use super::files;
use super::hlo_json::Success;
use super::hlo_origins::Origins;
use super::peak_outputs;
use crate::cli::HloArgs;
use xla_shape_front::{Error, module_memory_timeline, module_peak_memory_read};

/// The peak report of the module in `args.file` (`-`: standard input):
/// the text with at most `top` live buffers listed and the reader's
/// warnings last (as `hlo` prints them), or (`json`) the whole memory as
/// one JSON object, `ok` first.
pub fn run(args: &HloArgs, json: bool, top: usize) -> Result<String, String> {
    // Read a line at a time: the text is not held, only the module's graph.
    let memory = if args.file == "-" {
        module_peak_memory_read(std::io::stdin().lock(), "standard input")
    } else {
        let file = std::fs::File::open(&args.file).map_err(|source| {
            Error::Open {
                path: args.file.clone().into(),
                source,
            }
            .to_string()
        })?;
        module_peak_memory_read(std::io::BufReader::with_capacity(1 << 16, file), &args.file)
    }
    .map_err(|e| e.to_string())?;
    if let Some(out) = &args.timeline {
        let svg = module_memory_timeline(Some(&args.file), &memory);
        files::write_output(out, format!("{svg}\n").as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    }
    let outputs = peak_outputs::write(args, &memory.peak)?;
    let written = args.timeline.as_ref().map(|p| p.display().to_string());
    let origins = Origins::of(args, &memory.peak)?;
    if json {
        return serde_json::to_string(&Success {
            ok: true,
            report: &memory,
            origins,
            timeline: written,
            outputs,
        })
        .map_err(|e| e.to_string());
    }
    let mut text = memory.text(top).to_string();
    text.push_str(&origins.text(args));
    if let Some(out) = written {
        text.push_str(&format!("\nwrote {out}"));
    }
    text.push_str(&outputs.lines());
    for warning in &memory.warnings {
        text.push_str(&format!("\nwarning: {warning}"));
    }
    Ok(text)
}
