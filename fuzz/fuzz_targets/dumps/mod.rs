//! What the dump targets check of every peak and timeline they read.

use hlo_util::{MemoryTimeline, PeakReport};

/// The peak is the static baseline plus the heap, within `i64`, and the
/// buffers live there add up to it; every block of the timeline lies
/// inside its steps (at least one), and its live bytes can be summed.
pub fn check(report: &PeakReport, timeline: &MemoryTimeline) {
    assert_eq!(
        Some(report.peak_bytes),
        report.static_bytes.checked_add(report.heap_peak_bytes)
    );
    assert!(i64::try_from(report.peak_bytes).is_ok());
    let live: u64 = report.live_at_peak.iter().map(|b| b.bytes).sum();
    assert_eq!(live, report.peak_bytes);
    assert!(timeline.steps >= 1);
    for block in &timeline.buffers {
        assert!(block.first <= block.last && block.last < timeline.steps);
    }
    let _ = timeline.live_bytes();
}
