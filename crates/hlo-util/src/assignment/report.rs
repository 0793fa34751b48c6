//! The peak memory report: XLA's `peak_memory_in_bytes`, where it is
//! reached, the buffers live there, and XLA's other allocation totals.

use std::fmt;

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::origins::frame::{Stack, deserialize_op_name, serialize_op_name};

/// What a buffer holds, as XLA's buffer assignment classifies its
/// allocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BufferKind {
    /// An entry computation parameter (donated ones included).
    Parameter,
    /// A constant.
    Constant,
    /// A value that may be live out of the program: an output.
    Output,
    /// A value of a fused or called computation, on the stack.
    ThreadLocal,
    /// Everything else: the heap's temporaries.
    Temporary,
}

impl fmt::Display for BufferKind {
    /// The kind as its JSON form spells it: `parameter`, `thread_local`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(match self {
            Self::Parameter => "parameter",
            Self::Constant => "constant",
            Self::Output => "output",
            Self::ThreadLocal => "thread_local",
            Self::Temporary => "temporary",
        })
    }
}

/// One buffer live at the peak.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LiveBuffer {
    /// The instruction that defines it.
    pub name: String,
    /// Where in the instruction's shape (empty for an array output).
    pub shape_index: Vec<i64>,
    /// Its shape, as XLA prints it.
    pub shape: String,
    /// Bytes as XLA allocates them.
    pub bytes: u64,
    /// What it holds.
    pub kind: BufferKind,
    /// The `op_name` of the instruction that defines it (an entry
    /// parameter's is its pytree path, `args[0]['w1']`); none when the
    /// module records none.
    #[serde(
        serialize_with = "serialize_op_name",
        deserialize_with = "deserialize_op_name"
    )]
    pub op_name: Option<Arc<str>>,
    /// The Python stack of the instruction that defines it, innermost
    /// first; empty when the module records none.
    pub stack: Stack,
}

impl LiveBuffer {
    /// The line it comes from, `file:line` of its innermost frame.
    ///
    /// ```
    /// let buffer = hlo_util::LiveBuffer {
    ///     name: "dot.3".to_owned(),
    ///     shape_index: Vec::new(),
    ///     shape: "f32[8]{0}".to_owned(),
    ///     bytes: 32,
    ///     kind: hlo_util::BufferKind::Temporary,
    ///     op_name: Some("jit(f)/dot_general".into()),
    ///     stack: hlo_util::Stack::from_frames(vec![hlo_util::Frame::at("m.py", 7, "f")]),
    /// };
    /// assert_eq!(buffer.source().as_deref(), Some("m.py:7"));
    /// ```
    pub fn source(&self) -> Option<String> {
        self.stack.innermost().map(crate::Frame::source)
    }
}

/// What a [`PeakPoint`]'s `step` counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepUnit {
    /// Events of the heap traces, 0-based, trace after trace (an `HloProto`).
    HeapEvent,
    /// Time steps of the flattened schedule (`*-live-range.txt`).
    ScheduleStep,
}

impl fmt::Display for StepUnit {
    /// The unit as its JSON form spells it: `heap_event`, `schedule_step`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(match self {
            Self::HeapEvent => "heap_event",
            Self::ScheduleStep => "schedule_step",
        })
    }
}

/// Where the peak is first reached.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PeakPoint {
    /// The position, in `unit`s.
    pub step: u64,
    /// What `step` counts.
    pub unit: StepUnit,
    /// The instruction there.
    pub instruction: String,
}

/// XLA's `CompiledMemoryStats` totals of one memory (device or host): sums
/// of allocation sizes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AllocationTotals {
    /// Entry parameters (`argument_size_in_bytes`).
    pub argument_bytes: u64,
    /// Outputs, maybe-live-out allocations (`output_size_in_bytes`).
    pub output_bytes: u64,
    /// Parameters an output aliases (`alias_size_in_bytes`).
    pub alias_bytes: u64,
    /// Preallocated temporaries, fragmentation included
    /// (`temp_size_in_bytes`).
    pub temp_bytes: u64,
}

/// The peak memory of a module as XLA computes `peak_memory_in_bytes` from
/// its buffer assignment.
///
/// ```
/// let report = hlo_util::PeakReport::default();
/// assert_eq!(report.peak_bytes, report.static_bytes + report.heap_peak_bytes);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PeakReport {
    /// The peak: `static_bytes + heap_peak_bytes`.
    pub peak_bytes: u64,
    /// The static baseline: the largest value of each entry parameter,
    /// constant and maybe-live-out allocation that is not thread-local.
    pub static_bytes: u64,
    /// The heap's live bytes at the peak: temporaries without
    /// fragmentation.
    pub heap_peak_bytes: u64,
    /// Where the peak is first reached; none when no heap event raises the
    /// memory above the static baseline.
    pub peak_at: Option<PeakPoint>,
    /// Every buffer live at the peak, largest first (ties in name order).
    pub live_at_peak: Vec<LiveBuffer>,
    /// Device memory totals (every color but host memory `S(5)`).
    pub device: AllocationTotals,
    /// Host memory `S(5)` totals.
    pub host: AllocationTotals,
}
