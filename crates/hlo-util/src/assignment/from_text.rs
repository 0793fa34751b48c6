//! XLA's `peak_memory_in_bytes` from its text dumps, `*-buffer-assignment.txt`
//! with its `*-live-range.txt`: the static baseline, plus the largest sum
//! over time steps of the temporaries live then, where values at one offset
//! of one allocation share their storage (the largest counts) and
//! tuple-shaped values (index tables, not in the heap's trace) are left out.
//! Each memory space (color) has a heap of its own, and XLA replays their
//! traces one after the other: the heap part is the largest of their peaks.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::AssignmentError;
use super::assignment_text::read_assignment_text;
use super::baseline::static_baseline;
use super::bytes::add_bytes;
use super::live_range::{LiveRanges, read_live_ranges};
use super::model::Assignment;
use super::report::{PeakPoint, PeakReport, StepUnit};
use super::summary::{allocation_totals, live_buffers};

/// A heap value: its storage group (allocation and offset), live range and
/// bytes.
#[derive(Debug, Clone, Copy)]
pub(super) struct Live {
    /// The value's index in the assignment.
    pub value: usize,
    /// Its memory space.
    pub color: i64,
    /// Values of one group share their storage.
    pub group: usize,
    /// The first step it is live at.
    pub start: u64,
    /// The last step it is live at.
    pub end: u64,
    /// Its bytes.
    pub bytes: u64,
}

/// Computes the peak as XLA does from its two text dumps, with the buffers
/// live there.
///
/// ```
/// let assignment = "BufferAssignment:
/// allocation 0: size 64, page 0, parameter 0, shape |f32[16]| at ShapeIndex {}:
///  value: <0 p @0> (size=64,offset=0): f32[16]{0}
/// allocation 1: size 64, page 0, output shape is |f32[16]|, maybe-live-out:
///  value: <2 out @0> (size=64,offset=0): f32[16]{0}
/// allocation 2: size 64, page 0, preallocated-temp:
///  value: <1 t @0> (size=64,offset=0): f32[16]{0}
/// ";
/// let live_range = "HloLiveRange (max 3):
///   InstructionSequence:
///     0:p
///     1:t
///     2:out
///   BufferLiveRange:
///     p{}:0-3
///     t{}:1-2
///     out{}:2-3
/// ";
/// let report = hlo_util::peak_from_text_dumps(assignment, live_range).unwrap();
/// assert_eq!((report.static_bytes, report.peak_bytes), (128, 192));
/// assert_eq!(report.peak_at.unwrap().instruction, "t");
/// ```
///
/// # Errors
///
/// [`AssignmentError::Text`] for a line of either dump that does not read,
/// [`AssignmentError::NoLiveRange`] for a temporary without a live range,
/// [`AssignmentError::Overflow`] when sums are beyond `i64::MAX`.
pub fn peak_from_text_dumps(
    buffer_assignment: &str,
    live_range: &str,
) -> Result<PeakReport, AssignmentError> {
    let assignment = read_assignment_text(buffer_assignment)?;
    let ranges = read_live_ranges(live_range)?;
    peak_of_text(&assignment, &ranges)
}

/// [`peak_from_text_dumps`] of the dumps already read.
pub(crate) fn peak_of_text(
    assignment: &Assignment,
    ranges: &LiveRanges,
) -> Result<PeakReport, AssignmentError> {
    let (static_bytes, counted) = static_baseline(assignment)?;
    let heap = heap_values(assignment, &ranges.ranges)?;
    let mut heap_peak = 0;
    let mut at = None;
    let mut peak_heap = Vec::new();
    let colors: BTreeSet<i64> = heap.iter().map(|l| l.color).collect();
    for color in colors {
        let one: Vec<Live> = heap.iter().filter(|l| l.color == color).copied().collect();
        let (bytes, step) = peak_of(&one)?;
        if bytes > heap_peak {
            (heap_peak, at, peak_heap) = (bytes, step, one);
        }
    }
    let peak_bytes = add_bytes(static_bytes, heap_peak).ok_or_else(|| {
        AssignmentError::Overflow(format!("the peak ({static_bytes} + {heap_peak})"))
    })?;
    let mut live = counted;
    if let Some(t) = at {
        live.extend(live_at(&peak_heap, t));
    }
    let (device, host) = allocation_totals(assignment)?;
    Ok(PeakReport {
        peak_bytes,
        static_bytes,
        heap_peak_bytes: heap_peak,
        peak_at: at.map(|t| PeakPoint {
            step: t,
            unit: StepUnit::ScheduleStep,
            instruction: usize::try_from(t)
                .ok()
                .and_then(|t| ranges.sequence.get(t))
                .cloned()
                .unwrap_or_default(),
        }),
        live_at_peak: live_buffers(assignment, &live),
        device,
        host,
    })
}

/// The values of the preallocated-temp allocations that are not tuples,
/// with their storage groups and live ranges.
pub(super) fn heap_values(
    assignment: &Assignment,
    ranges: &HashMap<String, (u64, u64)>,
) -> Result<Vec<Live>, AssignmentError> {
    let mut groups: HashMap<(usize, u64), usize> = HashMap::new();
    let mut heap = Vec::new();
    // `name{index}`, as the live-range dump writes it.
    let mut key = String::new();
    for (a, allocation) in assignment.allocations.iter().enumerate() {
        if !allocation.is_temp() {
            continue;
        }
        for &v in &allocation.values {
            let Some(value) = assignment.values.get(v) else {
                continue;
            };
            if value.shape.starts_with('(') {
                continue;
            }
            key.clear();
            key.push_str(&value.instruction);
            key.push('{');
            for (k, i) in value.shape_index.iter().enumerate() {
                if k > 0 {
                    key.push(',');
                }
                key.push_str(&i.to_string());
            }
            key.push('}');
            let &(start, end) = ranges
                .get(&key)
                .ok_or_else(|| AssignmentError::NoLiveRange(key.clone()))?;
            let next = groups.len();
            let group = *groups.entry((a, value.offset)).or_insert(next);
            heap.push(Live {
                value: v,
                color: allocation.color,
                group,
                start,
                end,
                bytes: value.bytes,
            });
        }
    }
    Ok(heap)
}

/// The largest bytes of one heap over time and the first step where they
/// are reached (none when the heap is empty): a sweep over the starts, each
/// group counting its largest live value.
fn peak_of(heap: &[Live]) -> Result<(u64, Option<u64>), AssignmentError> {
    let mut by_start: Vec<&Live> = heap.iter().collect();
    by_start.sort_by_key(|l| l.start);
    let mut by_end: Vec<&Live> = heap.iter().collect();
    by_end.sort_by_key(|l| l.end);
    let mut sizes: Vec<BTreeMap<u64, usize>> = Vec::new();
    let mut memory = 0_u64;
    let mut peak = (0_u64, None);
    let mut ended = by_end.iter().peekable();
    let mut k = 0;
    while let Some(first) = by_start.get(k) {
        let t = first.start;
        while let Some(gone) = ended.next_if(|l| l.end < t) {
            memory = change(&mut sizes, memory, gone, false)?;
        }
        while let Some(born) = by_start.get(k).filter(|l| l.start == t) {
            memory = change(&mut sizes, memory, born, true)?;
            k = k.saturating_add(1);
        }
        if memory > peak.0 {
            peak = (memory, Some(t));
        }
    }
    Ok(peak)
}

/// Adds or removes one live value; the new heap bytes.
fn change(
    sizes: &mut Vec<BTreeMap<u64, usize>>,
    memory: u64,
    live: &Live,
    add: bool,
) -> Result<u64, AssignmentError> {
    let overflow = || AssignmentError::Overflow("the heap's live bytes".to_owned());
    if sizes.len() <= live.group {
        sizes.resize_with(live.group.saturating_add(1), BTreeMap::new);
    }
    let Some(group) = sizes.get_mut(live.group) else {
        return Err(overflow());
    };
    let before = group.last_key_value().map_or(0, |(&b, _)| b);
    if add {
        let count = group.entry(live.bytes).or_insert(0);
        *count = count.saturating_add(1);
    } else if let Some(count) = group.get_mut(&live.bytes) {
        *count = count.saturating_sub(1);
        if *count == 0 {
            group.remove(&live.bytes);
        }
    }
    let after = group.last_key_value().map_or(0, |(&b, _)| b);
    memory
        .checked_sub(before)
        .and_then(|m| add_bytes(m, after))
        .ok_or_else(overflow)
}

/// The value standing for each group live at step `t`: the one whose
/// allocation XLA's heap trace makes, where the dumps show it, else the
/// group's largest (the first of equals).
///
/// Values of one group whose live ranges overlap or meet at a step share
/// their storage at that step (they are at one offset of one allocation):
/// XLA's trace allocates it for the first of them and the others take it
/// (`SHARE_WITH`, a loop's state or a value reusing a dying operand's
/// storage). The storage live at `t` is that of the run of such values
/// around `t`, named by the run's first value (earliest start, then the
/// dump's value order) when it has the bytes the group counts.
fn live_at(heap: &[Live], t: u64) -> Vec<usize> {
    let mut largest: BTreeMap<usize, (u64, usize)> = BTreeMap::new();
    for live in heap.iter().filter(|l| l.start <= t && t <= l.end) {
        let entry = largest
            .entry(live.group)
            .or_insert((live.bytes, live.value));
        if live.bytes > entry.0 {
            *entry = (live.bytes, live.value);
        }
    }
    let mut members: HashMap<usize, Vec<&Live>> = HashMap::new();
    for live in heap.iter().filter(|l| largest.contains_key(&l.group)) {
        members.entry(live.group).or_default().push(live);
    }
    largest
        .into_iter()
        .map(|(group, (bytes, value))| {
            let mut values = members.remove(&group).unwrap_or_default();
            match first_of_run(&mut values, t) {
                Some(first) if first.bytes == bytes => first.value,
                _ => value,
            }
        })
        .collect()
}

/// The first value of the run of `values` (one group's) whose live ranges
/// overlap or meet, one after the other, around step `t`.
fn first_of_run<'l>(values: &mut [&'l Live], t: u64) -> Option<&'l Live> {
    // A stable sort: equal starts keep the dump's value order.
    values.sort_by_key(|l| l.start);
    let mut run: Option<(&Live, u64)> = None;
    for &live in values.iter() {
        if live.start > t {
            break;
        }
        run = match run {
            Some((first, end)) if live.start <= end => Some((first, end.max(live.end))),
            _ => Some((live, live.end)),
        };
    }
    run.filter(|&(_, end)| end >= t).map(|(first, _)| first)
}
