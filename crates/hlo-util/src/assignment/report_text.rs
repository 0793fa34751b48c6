//! The text form of [`PeakReport`]: the peak, where it is reached, XLA's
//! totals, and the table of the buffers live at the peak.

use std::fmt;

use super::report::{AllocationTotals, BufferKind, LiveBuffer, PeakReport, StepUnit};
use crate::Limit;
use crate::printable::printable;
use crate::report::table::aligned;

/// The columns of the live buffers' table; the first is a number. The
/// last, the source line, is shown when a buffer listed has one.
const COLUMNS: [&str; 5] = ["bytes", "kind", "buffer", "shape", "source"];

/// A [`PeakReport`] as text with at most `top` rows of live buffers (the
/// rest summed on one line).
#[derive(Debug, Clone, Copy)]
pub struct PeakText<'r> {
    report: &'r PeakReport,
    top: Limit,
}

impl PeakReport {
    /// The report as text with at most `top` buffers listed (a count, or
    /// [`Limit::All`]).
    ///
    /// ```
    /// let report = hlo_util::PeakReport::default();
    /// assert!(report.text(5).to_string().starts_with("peak: 0 bytes"));
    /// ```
    pub fn text(&self, top: impl Into<Limit>) -> PeakText<'_> {
        PeakText {
            report: self,
            top: top.into(),
        }
    }
}

impl fmt::Display for PeakReport {
    /// Every live buffer listed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.text(Limit::All).fmt(f)
    }
}

impl fmt::Display for PeakText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = self.report;
        write!(f, "peak: {} bytes", r.peak_bytes)?;
        match &r.peak_at {
            Some(at) => {
                let unit = match at.unit {
                    StepUnit::HeapEvent => "heap event",
                    StepUnit::ScheduleStep => "step",
                };
                write!(f, " at {unit} {} ({})", at.step, printable(&at.instruction))?;
            }
            None => write!(f, " (the static buffers alone)")?,
        }
        write!(
            f,
            "\nstatic: {} bytes (parameters, constants, outputs)   heap at the peak: {} bytes",
            r.static_bytes, r.heap_peak_bytes
        )?;
        totals(f, "device", &r.device)?;
        if r.host != AllocationTotals::default() {
            totals(f, "host S(5)", &r.host)?;
        }
        let count = r.live_at_peak.len();
        write!(
            f,
            "\nlive at the peak: {count} buffer{}",
            if count == 1 { "" } else { "s" }
        )?;
        let listed = r.live_at_peak.get(..self.top.of(count)).unwrap_or_default();
        let sources = listed.iter().any(|b| !b.stack.is_empty());
        let columns = if sources { &COLUMNS[..] } else { &COLUMNS[..4] };
        let rows: Vec<Vec<String>> = listed.iter().map(|b| cells(b, sources)).collect();
        for line in aligned(columns, &rows, 1) {
            write!(f, "\n{line}")?;
        }
        let rest = r.live_at_peak.get(rows.len()..).unwrap_or_default();
        if !rest.is_empty() {
            let bytes = rest.iter().fold(0_u64, |s, b| s.saturating_add(b.bytes));
            let s = if rest.len() == 1 { "" } else { "s" };
            write!(f, "\n... {} more buffer{s}: {bytes} bytes", rest.len())?;
        }
        Ok(())
    }
}

/// One line of XLA's allocation totals.
fn totals(f: &mut fmt::Formatter<'_>, memory: &str, t: &AllocationTotals) -> fmt::Result {
    write!(
        f,
        "\n{memory}: arguments {} bytes   outputs {} bytes   aliased {} bytes   temporaries {} bytes",
        t.argument_bytes, t.output_bytes, t.alias_bytes, t.temp_bytes
    )
}

/// The cells of one live buffer, its source line last if `source`.
fn cells(b: &LiveBuffer, source: bool) -> Vec<String> {
    let index: Vec<String> = b.shape_index.iter().map(i64::to_string).collect();
    let mut cells = vec![
        b.bytes.to_string(),
        b.kind.word().to_owned(),
        format!("{}{{{}}}", b.name, index.join(",")),
        b.shape.clone(),
    ];
    if source {
        cells.push(b.source().unwrap_or_else(|| "-".to_owned()));
    }
    cells
}

impl BufferKind {
    /// The kind in words, as its JSON form spells it.
    ///
    /// ```
    /// assert_eq!(hlo_util::BufferKind::ThreadLocal.word(), "thread_local");
    /// ```
    pub fn word(self) -> &'static str {
        match self {
            Self::Parameter => "parameter",
            Self::Constant => "constant",
            Self::Output => "output",
            Self::ThreadLocal => "thread_local",
            Self::Temporary => "temporary",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::report::{LiveBuffer, PeakPoint};
    use super::*;

    fn buffer(name: &str, bytes: u64, kind: BufferKind) -> LiveBuffer {
        LiveBuffer {
            name: name.to_owned(),
            shape_index: vec![1],
            shape: "f32[4]".to_owned(),
            bytes,
            kind,
            op_name: None,
            stack: crate::Stack::default(),
        }
    }

    #[test]
    fn the_table_lists_the_top_and_sums_the_rest() {
        let report = PeakReport {
            peak_bytes: 112,
            static_bytes: 96,
            heap_peak_bytes: 16,
            peak_at: Some(PeakPoint {
                step: 3,
                unit: StepUnit::HeapEvent,
                instruction: "t".to_owned(),
            }),
            live_at_peak: vec![
                buffer("p", 64, BufferKind::Parameter),
                buffer("t", 16, BufferKind::Temporary),
                buffer("c", 16, BufferKind::Constant),
                buffer("o", 16, BufferKind::Output),
            ],
            host: AllocationTotals {
                argument_bytes: 8,
                ..AllocationTotals::default()
            },
            ..PeakReport::default()
        };
        assert_eq!(
            report.text(1).to_string(),
            "peak: 112 bytes at heap event 3 (t)\n\
             static: 96 bytes (parameters, constants, outputs)   heap at the peak: 16 bytes\n\
             device: arguments 0 bytes   outputs 0 bytes   aliased 0 bytes   temporaries 0 bytes\n\
             host S(5): arguments 8 bytes   outputs 0 bytes   aliased 0 bytes   temporaries 0 bytes\n\
             live at the peak: 4 buffers\n\
             bytes  kind       buffer  shape\n   \
             64  parameter  p{1}    f32[4]\n\
             ... 3 more buffers: 48 bytes"
        );
        assert!(
            report
                .to_string()
                .ends_with("16  output     o{1}    f32[4]")
        );
        let mut with_source = report.clone();
        with_source.live_at_peak[1].stack =
            crate::Stack::from_frames(vec![crate::Frame::at("m.py", 7, "f")]);
        assert!(with_source.text(2).to_string().ends_with(
            "bytes  kind       buffer  shape   source\n   \
             64  parameter  p{1}    f32[4]  -\n   \
             16  temporary  t{1}    f32[4]  m.py:7\n\
             ... 2 more buffers: 32 bytes"
        ));
    }
}
