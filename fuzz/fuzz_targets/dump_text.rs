//! Arbitrary bytes -> XLA's two text dumps of a buffer assignment
//! (`*-buffer-assignment.txt`, then a NUL byte, then `*-live-range.txt`):
//! the peak and the memory timeline.
//!
//! Nothing may panic; the peak is the static baseline plus the heap, within
//! `i64`, and the buffers live there add up to it; the timeline has no more
//! steps than the live-range dump has lines (plus one), each block inside
//! them; what the peak reads the timeline reads, and their errors agree.

#![no_main]

mod dumps;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (assignment, live_range) = match data.iter().position(|&b| b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &[][..]),
    };
    let (Ok(assignment), Ok(live_range)) = (
        std::str::from_utf8(assignment),
        std::str::from_utf8(live_range),
    ) else {
        return;
    };
    let peak = hlo_util::peak_from_text_dumps(assignment, live_range);
    let timeline = hlo_util::timeline_from_text_dumps(assignment, live_range);
    match (&peak, &timeline) {
        (Ok(report), Ok(timeline)) => {
            dumps::check(report, timeline);
            let lines = u64::try_from(live_range.lines().count()).unwrap_or(u64::MAX);
            assert!(timeline.steps <= lines.saturating_add(1));
        }
        (Err(a), Err(b)) => assert_eq!(a, b),
        // The peak checks its totals too.
        (Err(_), Ok(_)) => {}
        (Ok(_), Err(e)) => panic!("the timeline fails where the peak reads: {e:?}"),
    }
});
