//! The messages of a dumped `HloProto` as the peak reads them: the module
//! and the assignment's buffers and allocations decoded, each heap trace
//! kept as its bytes, whose events are then read one at a time
//! (`heap_events`): prost would build every event at once, with its names,
//! about ten times the event's bytes.

use crate::proto::{BufferAllocationProto, HloModuleProto, LogicalBufferProto};

/// `xla.HloProto`: its module and buffer assignment.
#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct HloProto {
    #[prost(message, optional, tag = "1")]
    pub hlo_module: Option<HloModuleProto>,
    #[prost(message, optional, tag = "3")]
    pub buffer_assignment: Option<BufferAssignmentProto>,
}

/// `xla.BufferAssignmentProto` with its heap traces as bytes (buffer
/// aliases are not read).
#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct BufferAssignmentProto {
    #[prost(message, repeated, tag = "1")]
    pub logical_buffers: Vec<LogicalBufferProto>,
    #[prost(message, repeated, tag = "3")]
    pub buffer_allocations: Vec<BufferAllocationProto>,
    #[prost(bytes = "vec", repeated, tag = "4")]
    pub heap_simulator_traces: Vec<Vec<u8>>,
}
