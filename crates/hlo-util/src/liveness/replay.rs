//! The heap simulator's events for the temporaries (`HeapSimulator`), on
//! the flattened schedule: at each step, the buffers that start there are
//! allocated, or take the storage of an operand that dies at that step
//! when the instruction may write into it (SHARE_WITH), then the buffers
//! that end there are freed. Replayed with XLA's reference counts; each
//! memory space is a heap of its own.

use super::LivenessError;
use super::assign::{Place, reuses_operand};
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
}

/// Replays the heaps and returns the highest.
pub(crate) fn heap_peak(
    graph: &Graph,
    flow: &Dataflow,
    buffers: &Buffers,
    place: &[Place],
    schedule: &Schedule,
) -> Result<HeapPeak, LivenessError> {
    let mut colors: Vec<i64> = buffers
        .list
        .iter()
        .zip(place)
        .filter(|(_, p)| **p == Place::Heap)
        .map(|(b, _)| b.color)
        .collect();
    colors.sort_unstable();
    colors.dedup();
    let mut best = HeapPeak::default();
    for color in colors {
        let heap: Vec<usize> = (0..buffers.list.len())
            .filter(|&b| place.get(b) == Some(&Place::Heap) && buffers.list[b].color == color)
            .collect();
        let (bytes, step) = run(graph, flow, buffers, &heap, schedule, None)?.0;
        if bytes > best.bytes {
            let live = run(graph, flow, buffers, &heap, schedule, step)?.1;
            best = HeapPeak { bytes, step, live };
        }
    }
    Ok(best)
}

type Run = ((u64, Option<u64>), Vec<usize>);

/// One heap's replay: its peak and first step there; with `stop`, the
/// buffers live after the allocations of that step.
fn run(
    graph: &Graph,
    flow: &Dataflow,
    buffers: &Buffers,
    heap: &[usize],
    schedule: &Schedule,
    stop: Option<u64>,
) -> Result<Run, LivenessError> {
    let overflow = || LivenessError::Overflow("the heap's live bytes".to_owned());
    let mut slot = vec![usize::MAX; buffers.list.len()];
    for (k, &b) in heap.iter().enumerate() {
        slot[b] = k;
    }
    let sizes = heap.iter().map(|&b| buffers.list[b].bytes).collect();
    let mut memory = Heap::new(sizes, 0, &[]);
    let mut by_start = heap.to_vec();
    by_start.sort_by_key(|&b| (buffers.list[b].start, b));
    let mut by_end = heap.to_vec();
    by_end.sort_by_key(|&b| (buffers.list[b].end, b));
    let mut taken = vec![false; heap.len()];
    let (mut s, mut e) = (0, 0);
    let mut peak = (0_u64, None);
    for t in 0..=schedule.end() {
        while let Some(&b) = by_start.get(s).filter(|&&b| buffers.list[b].start == t) {
            s += 1;
            let into = by_end[e..]
                .iter()
                .take_while(|&&o| buffers.list[o].end == t)
                .copied()
                .find(|&o| {
                    let k = slot[o];
                    !taken[k]
                        && buffers.list[o].values.len() == 1
                        && buffers.list[o].bytes >= buffers.list[b].bytes
                        && buffers.list[o].start < t
                        && reuses_operand(graph, flow, buffers, b, o)
                });
            match into {
                Some(o) => {
                    taken[slot[o]] = true;
                    memory.share(slot[b], slot[o]).map_err(|_| overflow())?;
                }
                None => memory.alloc(slot[b]).map_err(|_| overflow())?,
            }
        }
        if stop == Some(t) {
            let live = memory.live().filter_map(|k| heap.get(k).copied()).collect();
            return Ok(((memory.memory(), Some(t)), live));
        }
        if memory.memory() > peak.0 {
            peak = (memory.memory(), Some(t));
        }
        while let Some(&b) = by_end.get(e).filter(|&&b| buffers.list[b].end == t) {
            e += 1;
            memory.free(slot[b]).map_err(|_| overflow())?;
        }
    }
    Ok((peak, Vec::new()))
}
