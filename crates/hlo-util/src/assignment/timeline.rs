//! The memory timeline of a dumped buffer assignment: every block of
//! storage with the steps it is live at, on the step axis of the dump.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::origins::frame::{Stack, deserialize_op_name, serialize_op_name};

use super::report::{BufferKind, StepUnit};

/// One block of storage over its live range: a value and whatever shares
/// its storage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimelineBuffer {
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
    /// The `op_name` of the instruction that defines it; none when the
    /// module records none.
    #[serde(
        serialize_with = "serialize_op_name",
        deserialize_with = "deserialize_op_name"
    )]
    pub op_name: Option<Arc<str>>,
    /// The Python stack of the instruction that defines it, innermost
    /// first; empty when the module records none.
    pub stack: Stack,
    /// The first step it is live at.
    pub first: u64,
    /// The last step it is live at (included).
    pub last: u64,
}

/// Live storage over program order: the blocks, each with its first and
/// last step on an axis of `steps` steps (`0..steps`).
///
/// The static baseline's buffers (parameters, constants, outputs) are live
/// at every step; the sum of the blocks live at a step is the memory there.
///
/// ```
/// let timeline = hlo_util::MemoryTimeline::default();
/// assert!(timeline.live_bytes().is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct MemoryTimeline {
    /// What a step counts.
    pub unit: StepUnit,
    /// The number of steps.
    pub steps: u64,
    /// Every block, in the order they are allocated.
    pub buffers: Vec<TimelineBuffer>,
}

impl Default for MemoryTimeline {
    fn default() -> Self {
        Self {
            unit: StepUnit::ScheduleStep,
            steps: 0,
            buffers: Vec::new(),
        }
    }
}

impl MemoryTimeline {
    /// A timeline of `steps` steps counted in `unit`, of `buffers` (each
    /// block's `first` and `last` steps inside them), as a picture draws it.
    pub fn new(unit: StepUnit, steps: u64, buffers: Vec<TimelineBuffer>) -> Self {
        Self {
            unit,
            steps,
            buffers,
        }
    }

    /// The live bytes at each step, summed with saturation.
    ///
    /// ```
    /// use hlo_util::{BufferKind, MemoryTimeline, StepUnit, TimelineBuffer};
    /// let block = |bytes, first, last| TimelineBuffer {
    ///     name: "t".to_owned(),
    ///     shape_index: Vec::new(),
    ///     shape: "f32[4]".to_owned(),
    ///     bytes,
    ///     kind: BufferKind::Temporary,
    ///     op_name: None,
    ///     stack: hlo_util::Stack::default(),
    ///     first,
    ///     last,
    /// };
    /// let timeline = MemoryTimeline::new(
    ///     StepUnit::ScheduleStep,
    ///     3,
    ///     vec![block(16, 0, 2), block(4, 1, 1)],
    /// );
    /// assert_eq!(timeline.live_bytes(), [16, 20, 16]);
    /// assert_eq!(timeline.live_bytes_of(BufferKind::Parameter), [0, 0, 0]);
    /// let huge = MemoryTimeline::new(timeline.unit, u64::MAX, timeline.buffers);
    /// assert!(huge.live_bytes().is_empty());
    /// ```
    pub fn live_bytes(&self) -> Vec<u64> {
        self.sum(|_| true)
    }

    /// The live bytes of the blocks of one kind at each step.
    pub fn live_bytes_of(&self, kind: BufferKind) -> Vec<u64> {
        self.sum(|b| b.kind == kind)
    }

    /// The live bytes of the blocks that `keep` at each step.
    ///
    /// ```
    /// let timeline = hlo_util::MemoryTimeline::default();
    /// assert!(timeline.live_bytes_where(|b| b.bytes > 4).is_empty());
    /// ```
    pub fn live_bytes_where(&self, keep: impl Fn(&TimelineBuffer) -> bool) -> Vec<u64> {
        self.sum(keep)
    }

    /// The bytes of the blocks that `keep` at each step: a sweep over
    /// where they start and end.
    /// A timeline of more steps than memory holds (built by hand: the
    /// readers bound the steps by their input) sums to nothing.
    fn sum(&self, keep: impl Fn(&TimelineBuffer) -> bool) -> Vec<u64> {
        let steps = usize::try_from(self.steps).unwrap_or(0);
        let (Some(mut starts), Some(mut ends)) = (zeros(steps), zeros(steps.saturating_add(1)))
        else {
            return Vec::new();
        };
        for buffer in self.buffers.iter().filter(|b| keep(b)) {
            let first = usize::try_from(buffer.first).unwrap_or(usize::MAX);
            let after = usize::try_from(buffer.last)
                .unwrap_or(usize::MAX)
                .saturating_add(1)
                .min(steps);
            if first >= after {
                continue;
            }
            if let Some(s) = starts.get_mut(first) {
                *s = s.saturating_add(buffer.bytes);
            }
            if let Some(e) = ends.get_mut(after) {
                *e = e.saturating_add(buffer.bytes);
            }
        }
        let mut live = 0_u64;
        starts
            .iter()
            .zip(&ends)
            .map(|(&start, &end)| {
                live = live.saturating_sub(end).saturating_add(start);
                live
            })
            .collect()
    }
}

/// `n` zeros, none when they cannot be allocated.
fn zeros(n: usize) -> Option<Vec<u64>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).ok()?;
    v.resize(n, 0);
    Some(v)
}
