//! The heap simulator's events for the temporaries (`HeapSimulator`), on
//! the flattened schedule: at each step, the buffers that start there are
//! allocated, or take the storage of an operand that dies at that step
//! when the instruction may write into it (SHARE_WITH), then the buffers
//! that end there are freed. Replayed with XLA's reference counts; each
//! memory space is a heap of its own.

use super::LivenessError;
use super::assign::{Place, reuses_operand};
use super::best_fit::{Events, Placed, heap_size};
use super::buffers::Buffers;
use super::dataflow::Dataflow;
use super::graph::Graph;
use super::schedule::Schedule;
use crate::assignment::heap::Heap;

/// The highest point of the heaps.
#[derive(Debug, Clone, Default)]
pub(crate) struct HeapPeak {
    pub bytes: u64,
    /// The step, none when the heaps stay empty.
    pub step: Option<u64>,
    /// The buffers whose storage is live there (each storage once).
    pub live: Vec<usize>,
    /// Every buffer that takes over the storage of a dying operand's
    /// buffer (`SHARE_WITH`), with that buffer, in every heap.
    pub shares: Vec<(usize, usize)>,
    /// Each memory space's heap and the bytes it needs with its values
    /// placed as XLA places them, at offsets aligned to the backend's
    /// alignment (fragmentation included).
    pub sizes: Vec<(i64, u64)>,
    /// What the sizes could not give exactly.
    pub warnings: Vec<String>,
}

/// Replays the heaps and returns the highest, and the size of each with
/// its values placed at multiples of `alignment`.
pub(crate) fn heap_peak(
    graph: &Graph,
    flow: &Dataflow,
    buffers: &Buffers,
    place: &[Place],
    schedule: &Schedule,
    alignment: u64,
) -> Result<HeapPeak, LivenessError> {
    let in_heap = |b: usize| place.get(b) == Some(&Place::Heap);
    let mut colors: Vec<i64> = (0..buffers.list.len())
        .filter(|&b| in_heap(b))
        .map(|b| buffers.list[b].color)
        .collect();
    colors.sort_unstable();
    colors.dedup();
    let mut best = HeapPeak::default();
    let mut shares = Vec::new();
    let mut sizes = Vec::new();
    let mut warnings = Vec::new();
    for color in colors {
        let heap: Vec<usize> = (0..buffers.list.len())
            .filter(|&b| in_heap(b) && buffers.list[b].color == color)
            .collect();
        let mut events = Events::new(buffers.values.len());
        let ((bytes, step), _, shared) = run(
            graph,
            flow,
            buffers,
            &heap,
            schedule,
            None,
            Some(&mut events),
        )?;
        shares.extend(shared);
        let size = match heap_size(&events.finish(), alignment)
            .ok_or_else(|| LivenessError::Overflow("the heap's offsets".to_owned()))?
        {
            Placed::Size(size) => size,
            Placed::TooCrowded { overlaps } => {
                warnings.push(format!(
                    "the temporaries of memory space {color} overlap in {overlaps} pairs, too many to place as XLA's best-fit heap does: their allocation is given as the peak of their live bytes ({bytes}), a lower bound of XLA's"
                ));
                bytes
            }
        };
        sizes.push((color, size));
        if bytes > best.bytes {
            let live = run(graph, flow, buffers, &heap, schedule, step, None)?.1;
            best = HeapPeak {
                bytes,
                step,
                live,
                ..HeapPeak::default()
            };
        }
    }
    best.shares = shares;
    best.warnings = warnings;
    best.sizes = sizes;
    Ok(best)
}

/// A replay's peak and its step, the buffers live at `stop`, and the
/// shares made.
type Run = ((u64, Option<u64>), Vec<usize>, Vec<(usize, usize)>);

/// One heap's replay: its peak and first step there; with `stop`, the
/// buffers live after the allocations of that step (and the shares made
/// up to there). A value whose buffer
/// is allocated shares it; a buffer's storage goes with its last live
/// value. With `events`, each value's allocation, share and free is
/// recorded as XLA's heap algorithm receives them (a value shares the
/// storage of its buffer's first value; an operand whose storage is taken
/// over is freed just before).
#[allow(clippy::too_many_lines)]
fn run(
    graph: &Graph,
    flow: &Dataflow,
    buffers: &Buffers,
    heap: &[usize],
    schedule: &Schedule,
    stop: Option<u64>,
    mut events: Option<&mut Events>,
) -> Result<Run, LivenessError> {
    let overflow = || LivenessError::Overflow("the heap's live bytes".to_owned());
    let mut slot = vec![usize::MAX; buffers.list.len()];
    for (k, &b) in heap.iter().enumerate() {
        slot[b] = k;
    }
    let sizes = heap.iter().map(|&b| buffers.list[b].bytes).collect();
    let mut memory = Heap::new(sizes, 0, &[]);
    let values: Vec<usize> = heap
        .iter()
        .flat_map(|&b| buffers.list[b].values.iter().copied())
        .collect();
    let mut by_start = values.clone();
    by_start.sort_by_key(|&v| (buffers.values[v].start, v));
    let mut by_end = values;
    by_end.sort_by_key(|&v| (buffers.values[v].end, v));
    let mut refs = vec![0_usize; heap.len()];
    let mut taken = vec![false; heap.len()];
    let mut first = vec![None; heap.len()];
    // Values freed as an operand whose storage a result takes.
    let mut freed = vec![false; buffers.values.len()];
    let (mut s, mut e) = (0, 0);
    let mut peak = (0_u64, None);
    let mut shares = Vec::new();
    for t in 0..=schedule.end() {
        while let Some(&v) = by_start.get(s).filter(|&&v| buffers.values[v].start == t) {
            s += 1;
            let b = buffers.values[v].buffer;
            let k = slot[b];
            let bytes = buffers.list[b].bytes;
            refs[k] += 1;
            if let (Some(events), Some(f)) = (events.as_deref_mut(), first[k]) {
                events.share(v, f, bytes);
            }
            if refs[k] > 1 {
                continue;
            }
            let single = buffers.list[b].values.len() == 1;
            let into = by_end[e..]
                .iter()
                .take_while(|&&o| buffers.values[o].end == t)
                .copied()
                .find(|&o| {
                    let ob = buffers.values[o].buffer;
                    single
                        && ob != b
                        && !taken[slot[ob]]
                        && buffers.list[ob].values.len() == 1
                        && buffers.list[ob].bytes >= buffers.list[b].bytes
                        && buffers.values[o].start < t
                        && reuses_operand(graph, flow, buffers, v, o)
                });
            match into {
                Some(o) => {
                    // XLA frees the dying operand first, then shares its
                    // storage: the storage is then the operand's own.
                    let ob = slot[buffers.values[o].buffer];
                    if let Some(events) = events.as_deref_mut() {
                        let size = bytes.max(buffers.list[buffers.values[o].buffer].bytes);
                        events.free(o);
                        events.share(v, o, size);
                    }
                    taken[ob] = true;
                    freed[o] = true;
                    refs[ob] = refs[ob].saturating_sub(1);
                    if refs[ob] == 0 {
                        memory.free(ob).map_err(|_| overflow())?;
                    }
                    memory.share(k, ob).map_err(|_| overflow())?;
                    shares.push((b, buffers.values[o].buffer));
                }
                None => {
                    if first[k].is_none() {
                        first[k] = Some(v);
                        if let Some(events) = events.as_deref_mut() {
                            events.alloc(v, bytes);
                        }
                    }
                    memory.alloc(k).map_err(|_| overflow())?;
                }
            }
        }
        if stop == Some(t) {
            let live = memory.live().filter_map(|k| heap.get(k).copied()).collect();
            return Ok(((memory.memory(), Some(t)), live, shares));
        }
        if memory.memory() > peak.0 {
            peak = (memory.memory(), Some(t));
        }
        while let Some(&v) = by_end.get(e).filter(|&&v| buffers.values[v].end == t) {
            e += 1;
            if freed[v] {
                continue;
            }
            if let Some(events) = events.as_deref_mut() {
                events.free(v);
            }
            let k = slot[buffers.values[v].buffer];
            refs[k] = refs[k].saturating_sub(1);
            if refs[k] == 0 {
                memory.free(k).map_err(|_| overflow())?;
            }
        }
    }
    Ok((peak, Vec::new(), shares))
}
