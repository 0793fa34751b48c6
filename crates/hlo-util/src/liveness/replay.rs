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
fn run(
    graph: &Graph,
    flow: &Dataflow,
    buffers: &Buffers,
    heap: &[usize],
    schedule: &Schedule,
    stop: Option<u64>,
    mut events: Option<&mut Events>,
) -> Result<Run, LivenessError> {
    let mut replay = Replay::new(graph, flow, buffers, heap);
    let mut peak = (0_u64, None);
    for t in 0..=schedule.end() {
        replay.start_values(t, events.as_deref_mut())?;
        if stop == Some(t) {
            let memory = &replay.memory;
            let live = memory.live().filter_map(|k| heap.get(k).copied()).collect();
            return Ok(((memory.memory(), Some(t)), live, replay.shares));
        }
        if replay.memory.memory() > peak.0 {
            peak = (replay.memory.memory(), Some(t));
        }
        replay.free_ended(t, events.as_deref_mut())?;
    }
    Ok((peak, Vec::new(), replay.shares))
}

/// The error of a replay whose live bytes overflow.
fn overflow() -> LivenessError {
    LivenessError::Overflow("the heap's live bytes".to_owned())
}

/// One heap's replay under way: its buffers' storage (by their slot in the
/// heap), its values by start and by end with how many of each are
/// passed, and the shares made.
struct Replay<'a> {
    graph: &'a Graph,
    flow: &'a Dataflow,
    buffers: &'a Buffers,
    /// The slot of each buffer of the heap.
    slot: Vec<usize>,
    memory: Heap,
    by_start: Vec<usize>,
    by_end: Vec<usize>,
    /// The values started and the values ended so far.
    started: usize,
    ended: usize,
    /// Each slot's live values, whether a result took its storage over,
    /// and its first value.
    refs: Vec<usize>,
    taken: Vec<bool>,
    first: Vec<Option<usize>>,
    /// Values freed as an operand whose storage a result takes.
    freed: Vec<bool>,
    shares: Vec<(usize, usize)>,
}

impl<'a> Replay<'a> {
    /// The replay of the buffers `heap`, before the first step.
    fn new(graph: &'a Graph, flow: &'a Dataflow, buffers: &'a Buffers, heap: &[usize]) -> Self {
        let mut slot = vec![usize::MAX; buffers.list.len()];
        for (k, &b) in heap.iter().enumerate() {
            slot[b] = k;
        }
        let sizes = heap.iter().map(|&b| buffers.list[b].bytes).collect();
        let values: Vec<usize> = heap
            .iter()
            .flat_map(|&b| buffers.list[b].values.iter().copied())
            .collect();
        let mut by_start = values.clone();
        by_start.sort_by_key(|&v| (buffers.values[v].start, v));
        let mut by_end = values;
        by_end.sort_by_key(|&v| (buffers.values[v].end, v));
        Self {
            graph,
            flow,
            buffers,
            slot,
            memory: Heap::new(sizes, 0, &[]),
            by_start,
            by_end,
            started: 0,
            ended: 0,
            refs: vec![0_usize; heap.len()],
            taken: vec![false; heap.len()],
            first: vec![None; heap.len()],
            freed: vec![false; buffers.values.len()],
            shares: Vec::new(),
        }
    }

    /// Starts the values that start at step `t`.
    fn start_values(
        &mut self,
        t: u64,
        mut events: Option<&mut Events>,
    ) -> Result<(), LivenessError> {
        let buffers = self.buffers;
        let values = &buffers.values;
        while let Some(&v) = self
            .by_start
            .get(self.started)
            .filter(|&&v| values[v].start == t)
        {
            self.started += 1;
            self.start_value(v, t, events.as_deref_mut())?;
        }
        Ok(())
    }

    /// Starts value `v` at step `t`: it shares its buffer's storage if
    /// that is allocated, else takes over a dying operand's or allocates.
    fn start_value(
        &mut self,
        v: usize,
        t: u64,
        mut events: Option<&mut Events>,
    ) -> Result<(), LivenessError> {
        let b = self.buffers.values[v].buffer;
        let k = self.slot[b];
        let bytes = self.buffers.list[b].bytes;
        self.refs[k] += 1;
        if let (Some(events), Some(f)) = (events.as_deref_mut(), self.first[k]) {
            events.share(v, f, bytes);
        }
        if self.refs[k] > 1 {
            return Ok(());
        }
        match self.dying_operand(v, t) {
            Some(o) => self.take_over(v, o, events),
            None => {
                if self.first[k].is_none() {
                    self.first[k] = Some(v);
                    if let Some(events) = events {
                        events.alloc(v, bytes);
                    }
                }
                self.memory.alloc(k).map_err(|_| overflow())?;
                Ok(())
            }
        }
    }

    /// The operand value dying at step `t` whose storage value `v`, the
    /// only value of its buffer, may take over: alone in a buffer at least
    /// as large, not taken over already, defined before `t`.
    fn dying_operand(&self, v: usize, t: u64) -> Option<usize> {
        let buffers = self.buffers;
        let (list, values) = (&buffers.list, &buffers.values);
        let b = values[v].buffer;
        let single = list[b].values.len() == 1;
        self.by_end[self.ended..]
            .iter()
            .take_while(|&&o| values[o].end == t)
            .copied()
            .find(|&o| {
                let ob = values[o].buffer;
                single
                    && ob != b
                    && !self.taken[self.slot[ob]]
                    && list[ob].values.len() == 1
                    && list[ob].bytes >= list[b].bytes
                    && values[o].start < t
                    && reuses_operand(self.graph, self.flow, self.buffers, v, o)
            })
    }

    /// Value `v` takes over the storage of the dying operand value `o`.
    fn take_over(
        &mut self,
        v: usize,
        o: usize,
        events: Option<&mut Events>,
    ) -> Result<(), LivenessError> {
        let buffers = self.buffers;
        let (list, values) = (&buffers.list, &buffers.values);
        let b = values[v].buffer;
        let k = self.slot[b];
        // XLA frees the dying operand first, then shares its storage: the
        // storage is then the operand's own.
        let ob = self.slot[values[o].buffer];
        if let Some(events) = events {
            let size = list[b].bytes.max(list[values[o].buffer].bytes);
            events.free(o);
            events.share(v, o, size);
        }
        self.taken[ob] = true;
        self.freed[o] = true;
        self.refs[ob] = self.refs[ob].saturating_sub(1);
        if self.refs[ob] == 0 {
            self.memory.free(ob).map_err(|_| overflow())?;
        }
        self.memory.share(k, ob).map_err(|_| overflow())?;
        self.shares.push((b, values[o].buffer));
        Ok(())
    }

    /// Frees the values that end at step `t`, except operands whose storage
    /// a result took over.
    fn free_ended(&mut self, t: u64, mut events: Option<&mut Events>) -> Result<(), LivenessError> {
        let buffers = self.buffers;
        let values = &buffers.values;
        while let Some(&v) = self.by_end.get(self.ended).filter(|&&v| values[v].end == t) {
            self.ended += 1;
            if self.freed[v] {
                continue;
            }
            if let Some(events) = events.as_deref_mut() {
                events.free(v);
            }
            let k = self.slot[values[v].buffer];
            self.refs[k] = self.refs[k].saturating_sub(1);
            if self.refs[k] == 0 {
                self.memory.free(k).map_err(|_| overflow())?;
            }
        }
        Ok(())
    }
}
