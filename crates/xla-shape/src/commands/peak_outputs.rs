//! `hlo --flame OUT.svg` and `--pprof OUT`: the peak's flame graph and
//! pprof profile written to their files.

use hlo_util::PeakReport;

/// Writes the flame graph and the pprof profile `args` asks for (of the
/// module or dump `args.file`), and says where.
///
/// # Errors
/// Which file could not be written, and why.
pub fn write(
    args: &crate::cli::HloArgs,
    report: &PeakReport,
) -> Result<super::hlo_json::PeakOutputs, String> {
    use super::files::write_output;
    let mut written = super::hlo_json::PeakOutputs::default();
    let file = Some(args.file.as_str()).filter(|f| *f != "-");
    let failed =
        |out: &std::path::Path, e: std::io::Error| format!("cannot write {}: {e}", out.display());
    if let Some(out) = &args.flame {
        let svg = xla_shape_front::peak_flame_graph(file, report);
        write_output(out, format!("{svg}\n").as_bytes()).map_err(|e| failed(out, e))?;
        written.flame = Some(out.display().to_string());
    }
    if let Some(out) = &args.pprof {
        let bytes = xla_shape_front::peak_pprof(file, report).map_err(|e| failed(out, e))?;
        write_output(out, &bytes).map_err(|e| failed(out, e))?;
        written.pprof = Some(out.display().to_string());
    }
    Ok(written)
}
