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

mod dumps;

use hlo_util::{MAX_TIMELINE_BLOCKS, MemoryDump};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dump = MemoryDump::Proto(data);
    let peak = dump.peak();
    let timeline = dump.timeline();
    match (&peak, &timeline) {
        (Ok(report), Ok(timeline)) => {
            dumps::check(report, timeline);
            assert!(timeline.buffers.len() <= MAX_TIMELINE_BLOCKS);
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
