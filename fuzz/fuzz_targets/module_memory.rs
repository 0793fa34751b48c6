//! Arbitrary bytes as an HLO module's text -> the peak memory computed from
//! it (`memory_from_module_text`: dataflow, the flattened schedule, XLA's
//! heap simulation and its placement), read whole and a line at a time;
//! then what the reports build on it: the groups at the peak by every
//! `GroupBy`, the peak against itself, the timeline.
//!
//! Nothing may panic. Both reads agree, result and error. The peak is the
//! static baseline plus the heap, within `i64`, and the buffers live there
//! add up to it, largest first; every grouping adds up to the same bytes and
//! buffers; the peak against itself changes nothing; every block of the
//! timeline lies inside its steps, and the timeline has one step more than
//! the schedule.

#![no_main]

mod dumps;

use hlo_util::{GroupBy, PeakDiff, group_at_peak, memory_from_module_reader};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let by_lines = memory_from_module_reader(data);
    if let Ok(text) = std::str::from_utf8(data) {
        let whole = hlo_util::memory_from_module_text(text);
        match (&whole, &by_lines) {
            (Ok(a), Ok(b)) => assert_eq!(a, b),
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
            _ => panic!("the two reads disagree: {whole:?} against {by_lines:?}"),
        }
    }
    let Ok(memory) = by_lines else {
        return;
    };
    let peak = &memory.peak;
    let timeline = hlo_util::timeline_from_module_memory(&memory);
    dumps::check(peak, &timeline);
    assert_eq!(timeline.steps, memory.steps.saturating_add(1));
    assert!(peak.live_at_peak.windows(2).all(|w| w[0].bytes >= w[1].bytes));
    let count = u64::try_from(peak.live_at_peak.len()).unwrap_or(u64::MAX);
    for by in GroupBy::ALL {
        let rows = group_at_peak(peak, by);
        assert_eq!(rows.iter().map(|r| r.bytes).sum::<u64>(), peak.peak_bytes);
        assert_eq!(rows.iter().map(|r| r.buffers).sum::<u64>(), count);
        assert!(rows.windows(2).all(|w| w[0].bytes >= w[1].bytes));
    }
    let same = PeakDiff::new(peak, peak);
    assert_eq!(same.peak_bytes_delta, 0);
    assert!(
        same.by_source
            .iter()
            .chain(&same.by_op)
            .all(|row| row.delta_bytes == 0 && row.a_bytes == row.b_bytes)
    );
});
