//! Building a [`MemoryTimeline`] from either of XLA's dumps, or from the
//! memory of a module computed from its text.

use std::collections::BTreeMap;

/// The most blocks of storage a dump's timeline holds (2^20): a picture
/// draws the largest few and the others as one row, and a dump of more
/// blocks is refused before their names and shapes are copied.
pub const MAX_TIMELINE_BLOCKS: usize = 1 << 20;

/// A block before it is drawn: its first step, value and last step.
type Block = (u64, usize, u64);

use super::AssignmentError;
use super::assignment_text::read_assignment_text;
use super::baseline::static_baseline;
use super::from_proto::Dump;
use super::from_text::{Live, heap_values};
use super::live_range::{LiveRanges, read_live_ranges};
use super::model::Assignment;
use super::report::{BufferKind, LiveBuffer, StepUnit};
use super::timeline::{MemoryTimeline, TimelineBuffer};
use crate::liveness::ModuleMemory;

/// The memory timeline of a serialized `HloProto` with its buffer
/// assignment, on the axis of its heap events (trace after trace): the
/// static baseline at every step, and each heap block from the event that
/// allocates its storage to the one before the event that frees it, so that
/// the live bytes after event `e` are the memory XLA's replay has there.
///
/// ```
/// let error = hlo_util::timeline_from_hlo_proto(&[]).unwrap_err();
/// assert_eq!(error, hlo_util::AssignmentError::NoModule);
/// ```
///
/// # Errors
///
/// As [`super::peak_from_hlo_proto`].
pub fn timeline_from_hlo_proto(bytes: &[u8]) -> Result<MemoryTimeline, AssignmentError> {
    timeline_of_dump(&Dump::decode(bytes)?)
}

/// [`timeline_from_hlo_proto`] of a dump already decoded.
pub(crate) fn timeline_of_dump(dump: &Dump) -> Result<MemoryTimeline, AssignmentError> {
    let steps = u64::try_from(dump.events.len()).unwrap_or(u64::MAX).max(1);
    let last = steps.saturating_sub(1);
    // Each block as its value and steps until the picture is drawn: the
    // names and shapes are copied only for the blocks kept.
    let mut blocks: Vec<Block> = dump.counted.iter().map(|&v| (0, v, last)).collect();
    let mut heap = dump.heap();
    // The step each value's storage was allocated at, while it is.
    let mut open: Vec<Option<u64>> = vec![None; dump.assignment.values.len()];
    for e in 0..dump.events.len() {
        let step = u64::try_from(e).unwrap_or(u64::MAX);
        let Some(b) = dump.apply(&mut heap, e)? else {
            continue;
        };
        let Some(slot) = open.get_mut(b) else {
            continue;
        };
        match slot.take() {
            // Freed: live up to the event before.
            Some(first) => blocks.push((first, b, step.saturating_sub(1).max(first))),
            None => *slot = Some(step),
        }
        if blocks.len() > MAX_TIMELINE_BLOCKS {
            return Err(AssignmentError::TooManyBlocks(MAX_TIMELINE_BLOCKS));
        }
    }
    blocks.extend(
        open.iter()
            .enumerate()
            .filter_map(|(b, first)| Some(((*first)?, b, last))),
    );
    if blocks.len() > MAX_TIMELINE_BLOCKS {
        return Err(AssignmentError::TooManyBlocks(MAX_TIMELINE_BLOCKS));
    }
    drop(open);
    blocks.sort_by_key(|&(first, _, _)| first);
    let buffers = blocks
        .into_iter()
        .filter_map(|(first, v, last)| block(&dump.assignment, v, first, last))
        .collect();
    Ok(MemoryTimeline {
        unit: StepUnit::HeapEvent,
        steps,
        buffers,
    })
}

/// The memory timeline of XLA's text dumps, on the time steps of the
/// live-range dump: the static baseline at every step, and each storage
/// group of the temporaries (values at one offset of one allocation) as one
/// block per stretch of overlapping live ranges, as large as its largest
/// value. Values of one stretch that are not live at once are counted
/// together, so the blocks' sum can exceed the peak there.
///
/// ```
/// let assignment = "BufferAssignment:
/// allocation 0: size 64, page 0, parameter 0, shape |f32[16]| at ShapeIndex {}:
///  value: <0 p @0> (size=64,offset=0): f32[16]{0}
/// allocation 1: size 64, page 0, preallocated-temp:
///  value: <1 t @0> (size=64,offset=0): f32[16]{0}
/// ";
/// let live_range = "HloLiveRange (max 2):
///   InstructionSequence:
///     0:p
///     1:t
///   BufferLiveRange:
///     p{}:0-2
///     t{}:1-1
/// ";
/// let timeline = hlo_util::timeline_from_text_dumps(assignment, live_range).unwrap();
/// assert_eq!(timeline.live_bytes(), [64, 128, 64]);
/// ```
///
/// # Errors
///
/// As [`super::peak_from_text_dumps`].
pub fn timeline_from_text_dumps(
    buffer_assignment: &str,
    live_range: &str,
) -> Result<MemoryTimeline, AssignmentError> {
    let assignment = read_assignment_text(buffer_assignment)?;
    let ranges = read_live_ranges(live_range)?;
    timeline_of_text(&assignment, &ranges)
}

/// [`timeline_from_text_dumps`] of the dumps already read.
pub(crate) fn timeline_of_text(
    assignment: &Assignment,
    ranges: &LiveRanges,
) -> Result<MemoryTimeline, AssignmentError> {
    let (_, counted) = static_baseline(assignment)?;
    let heap = heap_values(assignment, &ranges.ranges)?;
    let ends = heap
        .iter()
        .map(|l| l.end)
        .chain(ranges.ranges.values().map(|&(_, end)| end));
    let steps = ends
        .max()
        .map_or(0, |end| end.saturating_add(1))
        .max(u64::try_from(ranges.sequence.len()).unwrap_or(u64::MAX))
        .max(1);
    let last = steps.saturating_sub(1);
    let mut buffers: Vec<TimelineBuffer> = counted
        .iter()
        .filter_map(|&v| block(assignment, v, 0, last))
        .collect();
    let mut groups: BTreeMap<usize, Vec<Live>> = BTreeMap::new();
    for live in heap {
        groups.entry(live.group).or_default().push(live);
    }
    for mut group in groups.into_values() {
        group.sort_by_key(|l| (l.start, l.end));
        let mut stretch: Option<(Live, u64)> = None;
        for live in group {
            stretch = match stretch {
                Some((largest, end)) if live.start <= end => {
                    let largest = if live.bytes > largest.bytes {
                        Live {
                            start: largest.start,
                            ..live
                        }
                    } else {
                        largest
                    };
                    Some((largest, end.max(live.end)))
                }
                done => {
                    if let Some((largest, end)) = done {
                        buffers.extend(block(assignment, largest.value, largest.start, end));
                    }
                    Some((live, live.end))
                }
            };
        }
        if let Some((largest, end)) = stretch {
            buffers.extend(block(assignment, largest.value, largest.start, end));
        }
        if buffers.len() > MAX_TIMELINE_BLOCKS {
            return Err(AssignmentError::TooManyBlocks(MAX_TIMELINE_BLOCKS));
        }
    }
    buffers.sort_by_key(|b| b.first);
    Ok(MemoryTimeline {
        unit: StepUnit::ScheduleStep,
        steps,
        buffers,
    })
}

/// The memory timeline of a module's memory computed from its text
/// ([`crate::memory_from_module_text`]), on the steps of its flattened
/// schedule (`0..=memory.steps`, the last the program's end): the static
/// baseline's buffers (the parameters, constants and outputs live at the
/// peak) at every step, and each temporary's storage over its live range,
/// as one block with the temporaries that take it over as it dies
/// (`storage_of`). Thread-local values, which live inside one instruction,
/// and the tuples' index tables, which the peak does not count, are left
/// out.
///
/// ```
/// let text = "HloModule m, is_scheduled=true, entry_computation_layout={(f32[256]{0})->f32[256]{0}}
///
/// ENTRY %main (p: f32[256]) -> f32[256] {
///   %p = f32[256]{0} parameter(0)
///   %e = f32[256]{0} exponential(%p)
///   %n = f32[256]{0} negate(%e)
///   ROOT %s = f32[256]{0} add(%n, %e)
/// }
/// ";
/// let memory = hlo_util::memory_from_module_text(text).unwrap();
/// let timeline = hlo_util::timeline_from_module_memory(&memory);
/// assert_eq!(timeline.steps, 5);
/// assert_eq!(timeline.live_bytes(), [2048, 2048, 3072, 3072, 2048]);
/// ```
pub fn timeline_from_module_memory(memory: &ModuleMemory) -> MemoryTimeline {
    let steps = memory.steps.saturating_add(1);
    let last = memory.steps;
    let block = |b: &LiveBuffer, first, last| TimelineBuffer {
        name: b.name.clone(),
        shape_index: b.shape_index.clone(),
        shape: b.shape.clone(),
        bytes: b.bytes,
        kind: b.kind,
        op_name: b.op_name.clone(),
        stack: b.stack.clone(),
        first,
        last,
    };
    let mut buffers: Vec<TimelineBuffer> = memory
        .peak
        .live_at_peak
        .iter()
        .filter(|b| {
            matches!(
                b.kind,
                BufferKind::Parameter | BufferKind::Constant | BufferKind::Output
            )
        })
        .map(|b| block(b, 0, last))
        .collect();
    let mut temporaries: Vec<(usize, u64, u64)> = memory
        .buffers
        .iter()
        .enumerate()
        // A tuple's index table has an allocation of its own, off the
        // heap, and is not in the peak.
        .filter(|(_, m)| m.buffer.kind == BufferKind::Temporary && !m.buffer.shape.starts_with('('))
        .filter_map(|(p, m)| Some((p, m.first_step?, m.last_step?)))
        .collect();
    temporaries.sort_by_key(|&(p, first, _)| (first, p));
    // The block holding each buffer's storage.
    let mut block_of: Vec<Option<usize>> = vec![None; memory.buffers.len()];
    for (p, first, end) in temporaries {
        let Some(m) = memory.buffers.get(p) else {
            continue;
        };
        let taken = m
            .storage_of
            .and_then(|o| block_of.get(o).copied().flatten());
        let k = match taken.and_then(|k| buffers.get_mut(k).map(|t| (k, t))) {
            Some((k, storage)) => {
                storage.last = storage.last.max(end);
                k
            }
            None => {
                buffers.push(block(&m.buffer, first, end));
                buffers.len().saturating_sub(1)
            }
        };
        if let Some(slot) = block_of.get_mut(p) {
            *slot = Some(k);
        }
    }
    buffers.sort_by_key(|b| b.first);
    MemoryTimeline {
        unit: StepUnit::ScheduleStep,
        steps,
        buffers,
    }
}

/// The block of value `v` from step `first` to `last`.
fn block(assignment: &Assignment, v: usize, first: u64, last: u64) -> Option<TimelineBuffer> {
    let value = assignment.values.get(v)?;
    Some(TimelineBuffer {
        name: value.instruction.clone(),
        shape_index: value.shape_index.clone(),
        shape: value.shape.clone(),
        bytes: value.bytes,
        kind: assignment.kind_of(v),
        op_name: value.origin.op_name.clone(),
        stack: value.origin.stack.clone(),
        first,
        last,
    })
}
