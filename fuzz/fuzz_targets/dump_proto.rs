//! Arbitrary bytes -> XLA's `HloProto` dump of a buffer assignment (the
//! module and its `BufferAssignmentProto`, heap traces read an event at a
//! time): the peak and the memory timeline, apart and from one decode.
//!
//! Nothing may panic; the peak is the static baseline plus the heap, within
//! `i64`, and the buffers live there add up to it; every block of the
//! timeline lies inside its steps, and there are no more blocks than
//! `MAX_TIMELINE_BLOCKS`; one decode for both gives what each gives alone,
//! and their errors agree.

#![no_main]

use hlo_util::{MAX_TIMELINE_BLOCKS, MemoryDump};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dump = MemoryDump::Proto(data);
    let peak = dump.peak();
    let timeline = dump.timeline();
    match (&peak, &timeline) {
        (Ok(report), Ok(timeline)) => {
            assert_eq!(
                Some(report.peak_bytes),
                report.static_bytes.checked_add(report.heap_peak_bytes)
            );
            assert!(i64::try_from(report.peak_bytes).is_ok());
            let live: u64 = report.live_at_peak.iter().map(|b| b.bytes).sum();
            assert_eq!(live, report.peak_bytes);
            assert!(timeline.steps >= 1);
            assert!(timeline.buffers.len() <= MAX_TIMELINE_BLOCKS);
            for block in &timeline.buffers {
                assert!(block.first <= block.last && block.last < timeline.steps);
            }
            let _ = timeline.live_bytes();
            let (both_peak, both_timeline) = dump.peak_and_timeline().unwrap();
            assert_eq!(&both_peak, report);
            assert_eq!(&both_timeline, timeline);
        }
        (Err(a), Err(b)) => {
            assert_eq!(a, b);
            assert!(dump.peak_and_timeline().is_err());
        }
        // The timeline refuses more blocks than it draws; the peak reads on.
        (Ok(_), Err(_)) | (Err(_), Ok(_)) => assert!(dump.peak_and_timeline().is_err()),
    }
});
