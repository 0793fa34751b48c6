//! Why a buffer assignment could not be read or replayed.

/// Why the peak memory of a dumped buffer assignment could not be computed.
///
/// ```
/// let error = hlo_util::peak_from_hlo_proto(&[0x0a, 0x05, 0x12]).unwrap_err();
/// assert!(matches!(error, hlo_util::AssignmentError::Decode(_)));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AssignmentError {
    /// The bytes are not a serialized `HloProto` (truncated, or not a proto).
    #[error("HloProto: {0}")]
    Decode(prost::DecodeError),
    /// The `HloProto` has no `hlo_module`.
    #[error("HloProto: no hlo_module")]
    NoModule,
    /// The `HloProto` has no `buffer_assignment` (a module dumped without
    /// one, or `as_serialized_hlo_module_proto()` instead of the dump).
    #[error("HloProto: no buffer_assignment (dump with --xla_dump_hlo_as_proto)")]
    NoAssignment,
    /// A field names a logical buffer the assignment does not define.
    #[error("{field}: no logical buffer has id {id}")]
    UnknownBuffer {
        /// The field that names it.
        field: String,
        /// The buffer id named.
        id: i64,
    },
    /// A field names an instruction the module does not have.
    #[error("{field}: the module has no instruction {instruction}")]
    UnknownInstruction {
        /// The field that names it.
        field: String,
        /// The instruction's id or name.
        instruction: String,
    },
    /// Two logical buffers have the same id.
    #[error("logical_buffers: id {0} is defined twice")]
    DuplicateBuffer(i64),
    /// A size is negative.
    #[error("{field}: negative size {size}")]
    NegativeSize {
        /// The field holding it.
        field: String,
        /// The size.
        size: i64,
    },
    /// A sum of sizes is beyond `i64::MAX`, the most XLA's sizes hold.
    #[error("{0}: the bytes are beyond i64")]
    Overflow(String),
    /// The module's `stack_frame_index` names what it lacks, or its
    /// frames' callers go round in a circle.
    #[error("hlo_module.stack_frame_index: {0}")]
    StackFrames(String),
    /// A heap trace frees a buffer that is not allocated at that point.
    #[error("{field}: FREE of buffer {id}, which is not allocated")]
    FreeUnallocated {
        /// The event.
        field: String,
        /// The buffer freed.
        id: i64,
    },
    /// SHARE_WITH links that go round in a circle.
    #[error("{field}: buffer {id} shares with itself through SHARE_WITH links")]
    ShareCycle {
        /// The event.
        field: String,
        /// The buffer.
        id: i64,
    },
    /// Heap events in an order the heap simulator does not write (a second
    /// ALLOC, a FREE of what was never allocated, a SHARE_WITH of storage
    /// not allocated then).
    #[error("{field}: {message}")]
    EventOrder {
        /// The event.
        field: String,
        /// What is out of order.
        message: String,
    },
    /// A field that contradicts the rest of the assignment (an offset past
    /// its allocation's end, a buffer assigned twice, an allocation index
    /// out of place).
    #[error("{field}: {message}")]
    Contradiction {
        /// The field.
        field: String,
        /// What it contradicts.
        message: String,
    },
    /// A heap event of a kind XLA does not define.
    #[error("{field}: unknown event kind {kind}")]
    UnknownEventKind {
        /// The event.
        field: String,
        /// Its kind.
        kind: i32,
    },
    /// A temporary of the buffer-assignment dump that the live-range dump
    /// does not list (the two dumps are of different modules).
    #[error("live-range: no live range for {0}")]
    NoLiveRange(String),
    /// A memory timeline of more blocks of storage than a picture draws
    /// (the most, [`crate::MAX_TIMELINE_BLOCKS`]); the peak reads such a dump.
    #[error("the memory timeline has more than {0} blocks of storage, the most it draws")]
    TooManyBlocks(usize),
    /// A line of a text dump that does not read.
    #[error("{file}, line {line}: {message}")]
    Text {
        /// Which dump: `buffer-assignment` or `live-range`.
        file: &'static str,
        /// The 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
}
