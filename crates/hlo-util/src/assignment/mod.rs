//! Peak memory from XLA's own buffer assignment, exactly as XLA computes
//! `CompiledMemoryStats.peak_memory_in_bytes` (`ComputePeakMemory` of its
//! `buffer_assignment.cc`): the static baseline, the largest logical buffer
//! of each entry parameter, constant and maybe-live-out allocation that is
//! not thread-local, plus the highest point of the heap simulator's trace
//! replayed with reference counts.
//!
//! Two inputs: the `HloProto` XLA dumps with `--xla_dump_hlo_as_proto`
//! (`*after_optimizations.hlo.pb`, the module with its
//! `BufferAssignmentProto`, heap traces included), read by
//! [`peak_from_hlo_proto`]; or the text dumps `*-buffer-assignment.txt` and
//! `*-live-range.txt`, read by [`peak_from_text_dumps`]. Both give a
//! [`PeakReport`]: the peak, where it is reached, the buffers live there
//! largest first, and XLA's allocation totals. The same dumps give a
//! [`MemoryTimeline`] ([`timeline_from_hlo_proto`],
//! [`timeline_from_text_dumps`]): every block of storage with the steps it
//! is live at; so does the memory of a module computed from its text
//! ([`timeline_from_module_memory`]).

mod assignment_text;
pub(crate) mod baseline;
pub(crate) mod bytes;
mod dump;
mod dump_proto;
mod error;
mod from_proto;
#[cfg(test)]
mod from_proto_tests;
mod from_text;
pub(crate) mod heap;
mod heap_events;
mod live_range;
pub(crate) mod model;
mod report;
mod report_text;
pub(crate) mod summary;
mod timeline;
mod timeline_build;
mod trace_order;

pub use dump::MemoryDump;
pub use error::AssignmentError;
pub use from_proto::peak_from_hlo_proto;
pub use from_text::peak_from_text_dumps;
pub use report::{AllocationTotals, BufferKind, LiveBuffer, PeakPoint, PeakReport, StepUnit};
pub use report_text::PeakText;
pub use timeline::{MemoryTimeline, TimelineBuffer};
pub use timeline_build::{
    MAX_TIMELINE_BLOCKS, timeline_from_hlo_proto, timeline_from_module_memory,
    timeline_from_text_dumps,
};
