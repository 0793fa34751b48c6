//! The peak's other pictures and formats, of a module's text or of XLA's
//! dump alike: the flame graph (`--flame OUT.svg`) and the pprof profile
//! (`--pprof OUT`) of the buffers live at the peak.

use hlo_util::PeakReport;

use crate::draw::flame;
use crate::peak_samples::samples;
use crate::pprof;

/// `file`'s name, without its directories.
fn file_name(file: &str) -> String {
    std::path::Path::new(file)
        .file_name()
        .map_or_else(|| file.to_owned(), |n| n.to_string_lossy().into_owned())
}

/// The flame graph of `report`'s peak, titled with `file`'s name when
/// given.
pub fn flame_graph(file: Option<&str>, report: &PeakReport) -> String {
    let title = match file {
        Some(file) => format!("peak memory by Python stack: {}", file_name(file)),
        None => "peak memory by Python stack".to_owned(),
    };
    flame::render(&title, &samples(report), report.peak_bytes)
}

/// The gzipped pprof profile of `report`'s peak, its comment naming
/// `file` when given.
///
/// # Errors
/// The compressor's.
pub fn profile(file: Option<&str>, report: &PeakReport) -> std::io::Result<Vec<u8>> {
    let mut comment = format!("buffers live at the peak: {} bytes", report.peak_bytes);
    if let Some(at) = &report.peak_at {
        comment.push_str(&format!(" at {}", at.instruction));
    }
    if let Some(file) = file {
        comment.push_str(&format!(" of {}", file_name(file)));
    }
    pprof::gzipped(&samples(report), &comment)
}
