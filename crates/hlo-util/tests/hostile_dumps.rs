//! An `HloProto` dump whose heap traces hold millions of events: its peak
//! and its memory timeline in memory a small multiple of the dump, the
//! timeline of more blocks than a picture draws refused by their count.
//! The dumps are built here, not stored; the ignored tests measure the
//! worst case of `docs/robustness.md` (10^7 heap events) with the
//! process's peak memory, which only grows: run each alone, in release.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod memory;
mod wire;

use hlo_util::{
    AssignmentError, MAX_TIMELINE_BLOCKS, peak_from_hlo_proto, timeline_from_hlo_proto,
};
use memory::peak_memory;
use wire::{bytes_field, int_field, varint};

/// An `HloProto` (module 1, buffer assignment 3) of one instruction `t`
/// (`f32[4]{0}`, id 1) defining `n` logical buffers of 16 bytes, all at
/// offset 0 of one temporary allocation, and `traces` heap traces that
/// share the buffers out: each buffer allocated and freed in its trace,
/// one after the other (`2 n` events in all).
fn dump(n: u64, traces: u64) -> Vec<u8> {
    let mut shape = Vec::new();
    int_field(2, 11, &mut shape); // F32
    let mut dimensions = Vec::new();
    varint(4, &mut dimensions);
    bytes_field(3, &dimensions, &mut shape);
    let mut layout = Vec::new();
    bytes_field(1, &[0], &mut layout); // minor_to_major {0}
    bytes_field(5, &layout, &mut shape);
    let mut instruction = Vec::new();
    bytes_field(1, b"t", &mut instruction);
    bytes_field(2, b"negate", &mut instruction);
    bytes_field(3, &shape, &mut instruction);
    int_field(35, 1, &mut instruction);
    let mut computation = Vec::new();
    bytes_field(1, b"e", &mut computation);
    bytes_field(2, &instruction, &mut computation);
    int_field(5, 1, &mut computation);
    int_field(6, 1, &mut computation);
    let mut module = Vec::new();
    bytes_field(1, b"m", &mut module);
    bytes_field(3, &computation, &mut module);
    int_field(6, 1, &mut module);

    let mut assignment = Vec::new();
    let mut location = Vec::new();
    int_field(4, 1, &mut location); // instruction_id
    let mut allocation = Vec::new();
    int_field(2, 16, &mut allocation); // size; index 0
    for b in 0..n {
        // LogicalBufferProto: id 1, size 2, defined_at 3.
        let mut buffer = Vec::new();
        int_field(1, b, &mut buffer);
        int_field(2, 16, &mut buffer);
        bytes_field(3, &location, &mut buffer);
        bytes_field(1, &buffer, &mut assignment);
        // Assigned: logical_buffer_id 1, size 3.
        let mut assigned = Vec::new();
        int_field(1, b, &mut assigned);
        int_field(3, 16, &mut assigned);
        bytes_field(9, &assigned, &mut allocation);
    }
    bytes_field(3, &allocation, &mut assignment);
    let per_trace = n.div_ceil(traces.max(1));
    for t in 0..traces {
        // HeapSimulatorTrace: events 1 (kind 1, buffer_id 2,
        // instruction_name 4), buffer_allocation_index 3 (0).
        let mut trace = Vec::new();
        for b in t * per_trace..((t + 1) * per_trace).min(n) {
            for kind in [0, 1] {
                let mut event = Vec::new();
                if kind != 0 {
                    int_field(1, kind, &mut event);
                }
                int_field(2, b, &mut event);
                bytes_field(4, b"t", &mut event);
                bytes_field(1, &event, &mut trace);
            }
        }
        bytes_field(4, &trace, &mut assignment);
    }
    let mut out = Vec::new();
    bytes_field(1, &module, &mut out);
    bytes_field(3, &assignment, &mut out);
    out
}

/// The peak and the timeline of `bytes` (a [`dump`] of `n` buffers),
/// checked, and the peak memory they added with the dump, as a multiple of
/// its size; the timeline refused when it holds more blocks than it draws.
fn peak_and_timeline(bytes: &[u8], n: usize) -> f64 {
    let before = peak_memory();
    let report = peak_from_hlo_proto(bytes).unwrap();
    assert_eq!((report.peak_bytes, report.static_bytes), (16, 0));
    assert_eq!(report.peak_at.unwrap().instruction, "t");
    match timeline_from_hlo_proto(bytes) {
        Ok(timeline) => {
            assert_eq!(timeline.steps, 2 * n as u64);
            assert_eq!(timeline.buffers.len(), n);
            let live = timeline.live_bytes();
            assert!(live.iter().step_by(2).all(|&b| b == 16));
            assert!(live.iter().skip(1).step_by(2).all(|&b| b == 0));
        }
        Err(error) => {
            assert!(n > MAX_TIMELINE_BLOCKS, "{error}");
            assert_eq!(error, AssignmentError::TooManyBlocks(MAX_TIMELINE_BLOCKS));
            assert_eq!(
                error.to_string(),
                "the memory timeline has more than 1048576 blocks of storage, the most it draws"
            );
        }
    }
    let added = peak_memory().saturating_sub(before) as f64 + bytes.len() as f64;
    let multiple = added / bytes.len() as f64;
    println!("{} bytes, {n} buffers: {multiple:.1}x", bytes.len());
    multiple
}

/// The only test here that runs by default: the process's peak memory is
/// its own.
#[test]
fn a_dump_of_many_events_takes_a_small_multiple_of_its_bytes() {
    let bytes = dump(200_000, 100);
    let multiple = peak_and_timeline(&bytes, 200_000);
    assert!(multiple <= 20.0, "{multiple:.1}x");
}

#[test]
#[ignore = "measures peak memory: run alone, in release"]
fn a_dump_of_ten_million_events_takes_a_small_multiple_of_its_bytes() {
    let bytes = dump(5_000_000, 1_000);
    let multiple = peak_and_timeline(&bytes, 5_000_000);
    assert!(multiple <= 20.0, "{multiple:.1}x");
}

#[test]
#[ignore = "measures peak memory: run alone, in release"]
fn a_timeline_of_a_million_blocks_takes_a_small_multiple_of_its_bytes() {
    let bytes = dump(1_000_000, 1_000);
    let multiple = peak_and_timeline(&bytes, 1_000_000);
    assert!(multiple <= 20.0, "{multiple:.1}x");
}

/// Writes `heap.pb`, a dump of 10^7 heap events (5 * 10^6 buffers, 1,000
/// traces), to `HOSTILE_DUMPS_DIR` (for the CLI's time and memory).
#[test]
#[ignore = "writes a dump of 10^7 heap events"]
fn write_the_large_dump() {
    let dir = std::env::var_os("HOSTILE_DUMPS_DIR").map_or_else(std::env::temp_dir, Into::into);
    std::fs::write(
        std::path::Path::new(&dir).join("heap.pb"),
        dump(5_000_000, 1_000),
    )
    .unwrap();
}
