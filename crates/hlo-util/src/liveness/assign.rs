//! Buffer assignment's first pass (`AssignBuffersForComputations`): the
//! buffers, largest first, each given an allocation of its own (entry
//! parameters, constants, tuples, results), the allocation of an operand or
//! of an earlier result whose live range it does not overlap, or else left
//! to the heap simulator (temporaries).

use std::collections::{BTreeMap, BTreeSet};

use super::buffers::Buffers;
use super::dataflow::Dataflow;
use super::graph::Graph;
use super::post_order::post_order_positions;
use super::share::can_share;

/// Where a buffer went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// Nowhere (a buffer without values).
    None,
    /// An allocation of [`Assigned::allocations`].
    Allocation(usize),
    /// The heap.
    Heap,
}

/// One allocation made by the first pass.
#[derive(Debug, Clone, Default)]
pub(crate) struct Alloc {
    pub size: u64,
    pub color: i64,
    pub parameter: bool,
    pub aliased: bool,
    pub constant: bool,
    pub tuple: bool,
    pub live_out: bool,
    pub buffers: Vec<usize>,
    /// The union of its buffers' live ranges, as disjoint closed ranges
    /// (start to end): a buffer outside it interferes with none of them.
    cover: BTreeMap<u64, u64>,
    /// Its buffers by the start of their live ranges: (start, buffer,
    /// end), one entry each (no list per step).
    starts: BTreeSet<(u64, usize, u64)>,
    /// Its buffers by the end of their live ranges: (end, buffer, start).
    ends: BTreeSet<(u64, usize, u64)>,
    /// The longest of its buffers' live ranges (end less start).
    longest: u64,
}

impl Alloc {
    fn readonly(&self) -> bool {
        (self.parameter && !self.aliased) || self.constant
    }

    /// Whether `start..=end` meets the live range of one of its buffers.
    fn covers(&self, start: u64, end: u64) -> bool {
        self.cover
            .range(..=end)
            .next_back()
            .is_some_and(|(_, &last)| last >= start)
    }

    /// Its buffers whose live ranges may meet `start..=end`: first those
    /// that start inside it (each meets it), then those that start before
    /// it and end inside it or after, found by their ends (no later than
    /// its start plus the longest range). A buffer that interferes is met
    /// at once, and those that end before the range are never visited:
    /// lookups stay logarithmic however many buffers the allocation holds.
    fn near(&self, start: u64, end: u64) -> impl Iterator<Item = usize> + '_ {
        let inside = self
            .starts
            .range((start, 0, 0)..=(end, usize::MAX, u64::MAX))
            .map(|&(_, b, _)| b);
        let reach = start.saturating_add(self.longest);
        let before = self
            .ends
            .range((start, 0, 0)..=(reach, usize::MAX, u64::MAX))
            .filter(move |&&(_, _, s)| s < start)
            .map(|&(_, b, _)| b);
        inside.chain(before)
    }

    /// Drops the lookups of its buffers' live ranges.
    fn forget_ranges(&mut self) {
        self.cover = BTreeMap::new();
        self.starts = BTreeSet::new();
        self.ends = BTreeSet::new();
    }

    /// Adds a buffer live over `start..=end`.
    fn add(&mut self, b: usize, start: u64, end: u64) {
        self.buffers.push(b);
        self.starts.insert((start, b, end));
        self.ends.insert((end, b, start));
        self.longest = self.longest.max(end.saturating_sub(start));
        let (mut start, mut end) = (start, end);
        while let Some((&a, &z)) = self
            .cover
            .range(..=end)
            .next_back()
            .filter(|&(_, &z)| z >= start)
        {
            self.cover.remove(&a);
            start = start.min(a);
            end = end.max(z);
        }
        self.cover.insert(start, end);
    }
}

/// The first pass's result.
#[derive(Debug, Clone, Default)]
pub(crate) struct Assigned {
    pub allocations: Vec<Alloc>,
    pub place: Vec<Place>,
}

/// Runs the first pass.
pub(crate) fn assign(graph: &Graph, flow: &Dataflow, buffers: &Buffers) -> Assigned {
    let mut out = Assigned {
        allocations: Vec::new(),
        place: vec![Place::None; buffers.list.len()],
    };
    let mut reusable: Vec<usize> = Vec::new();
    for b in assignment_order(graph, buffers) {
        out.assign_buffer(graph, flow, buffers, &mut reusable, b);
    }
    // The lookups are done with: what is read of an allocation from here
    // on is its buffers and flags.
    for alloc in &mut out.allocations {
        alloc.forget_ranges();
    }
    out
}

/// The buffers with values in the order the first pass takes them:
/// largest first, then those live out, then by the earliest post-order
/// position of their values' instructions, then by number.
fn assignment_order(graph: &Graph, buffers: &Buffers) -> Vec<usize> {
    let mut order: Vec<usize> = (0..buffers.list.len())
        .filter(|&b| buffers.list.get(b).is_some_and(|x| !x.values.is_empty()))
        .collect();
    let positions = post_order_positions(graph);
    let first: Vec<usize> = (0..buffers.list.len())
        .map(|b| first_position(buffers, &positions, b))
        .collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (&buffers.list[a], &buffers.list[b]);
        y.bytes
            .cmp(&x.bytes)
            .then(y.live_out.cmp(&x.live_out))
            .then(first[a].cmp(&first[b]))
            .then(a.cmp(&b))
    });
    order
}

impl Assigned {
    /// Gives buffer `b` the allocation `alloc` of its own.
    fn own(&mut self, b: usize, alloc: Alloc) {
        self.place[b] = Place::Allocation(self.allocations.len());
        self.allocations.push(alloc);
    }

    /// Places buffer `b`: a constant, an entry parameter or a tuple in an
    /// allocation of its own, another buffer as [`Self::share_or_heap`]
    /// does. `reusable`: the allocations later buffers may join, the last
    /// tried first.
    fn assign_buffer(
        &mut self,
        graph: &Graph,
        flow: &Dataflow,
        buffers: &Buffers,
        reusable: &mut Vec<usize>,
        b: usize,
    ) {
        let buffer = &buffers.list[b];
        let mut alloc = Alloc {
            size: buffer.bytes,
            color: buffer.color,
            live_out: buffer.live_out,
            ..Alloc::default()
        };
        alloc.add(b, buffer.start, buffer.end);
        let alloc = if buffer.constant {
            Alloc {
                constant: true,
                ..alloc
            }
        } else if buffer.parameter {
            let aliased = buffer.live_out;
            if aliased {
                reusable.push(self.allocations.len());
            }
            Alloc {
                parameter: true,
                aliased,
                ..alloc
            }
        } else if buffer.tuple {
            Alloc {
                tuple: true,
                ..alloc
            }
        } else {
            self.share_or_heap(graph, flow, buffers, reusable, b, alloc);
            return;
        };
        self.own(b, alloc);
    }

    /// Places buffer `b`, neither a constant, an entry parameter nor a
    /// tuple: in the first allocation of an operand, or else of `reusable`
    /// (the last first), that it fits; else a result in `alloc`, an
    /// allocation of its own later buffers may join, and a temporary in the
    /// heap.
    fn share_or_heap(
        &mut self,
        graph: &Graph,
        flow: &Dataflow,
        buffers: &Buffers,
        reusable: &mut Vec<usize>,
        b: usize,
        alloc: Alloc,
    ) {
        let buffer = &buffers.list[b];
        let mut candidates = operand_allocations(graph, flow, buffers, self, b);
        candidates.extend(reusable.iter().rev());
        if let Some(&a) = candidates
            .iter()
            .find(|&&a| fits(graph, flow, buffers, self, a, b))
        {
            self.place[b] = Place::Allocation(a);
            if let Some(alloc) = self.allocations.get_mut(a) {
                alloc.add(b, buffer.start, buffer.end);
                alloc.live_out |= buffer.live_out;
            }
            return;
        }
        if buffer.live_out {
            reusable.push(self.allocations.len());
            self.own(b, alloc);
        } else {
            self.place[b] = Place::Heap;
        }
    }
}

/// The earliest post-order position of a buffer's values' instructions.
fn first_position(buffers: &Buffers, positions: &[usize], b: usize) -> usize {
    buffers.list[b]
        .values
        .iter()
        .filter_map(|&v| buffers.values.get(v).and_then(|v| positions.get(v.inst)))
        .copied()
        .min()
        .unwrap_or(usize::MAX)
}

/// The allocations of the operands of the instructions defining `b` at
/// their top level.
fn operand_allocations(
    graph: &Graph,
    flow: &Dataflow,
    buffers: &Buffers,
    out: &Assigned,
    b: usize,
) -> Vec<usize> {
    let mut found = Vec::new();
    for &v in &buffers.list[b].values {
        let Some(value) = buffers.values.get(v) else {
            continue;
        };
        if !value.index.is_empty() {
            continue;
        }
        for &o in graph
            .insts
            .get(value.inst)
            .map_or(&[][..], |i| graph.operands(i))
        {
            let place = flow
                .pos(graph, o, &[])
                .and_then(|p| buffers.of_position.get(p))
                .and_then(|&ob| out.place.get(ob));
            if let Some(&Place::Allocation(a)) = place {
                found.push(a);
            }
        }
    }
    found
}

/// `MaybeAssignBuffer`: whether buffer `b` may join allocation `a`.
fn fits(
    graph: &Graph,
    flow: &Dataflow,
    buffers: &Buffers,
    out: &Assigned,
    a: usize,
    b: usize,
) -> bool {
    let (Some(alloc), Some(buffer)) = (out.allocations.get(a), buffers.list.get(b)) else {
        return false;
    };
    if alloc.color != buffer.color
        || buffer.bytes > alloc.size
        || alloc.readonly()
        || alloc.tuple
        || (buffer.live_out && alloc.size != buffer.bytes)
    {
        return false;
    }
    // Outside every live range of the allocation: no pair to compare.
    if !alloc.covers(buffer.start, buffer.end) {
        return true;
    }
    // A buffer whose range does not meet `b`'s cannot interfere with it
    // (`interferes` compares ranges first), so only those near are compared.
    alloc
        .near(buffer.start, buffer.end)
        .all(|m| !interferes(graph, flow, buffers, m, b))
        && !copied_from(graph, flow, buffers, b)
            .any(|m| out.place.get(m) == Some(&Place::Allocation(a)))
}

/// Whether two buffers' values overlap (`LiveRangeInterferes`, pairwise).
fn interferes(graph: &Graph, flow: &Dataflow, buffers: &Buffers, x: usize, y: usize) -> bool {
    let (bx, by) = (&buffers.list[x], &buffers.list[y]);
    if bx.start > by.end || by.start > bx.end {
        return false;
    }
    bx.values.iter().any(|&u| {
        by.values
            .iter()
            .any(|&v| values_interfere(graph, flow, buffers, u, v))
    })
}

/// Overlapping live ranges (an entry parameter's to its last use, as
/// `HloOrdering` sees it), unless one ends where the other starts at an
/// instruction that may write into the dying one.
fn values_interfere(graph: &Graph, flow: &Dataflow, buffers: &Buffers, x: usize, y: usize) -> bool {
    let (vx, vy) = (&buffers.values[x], &buffers.values[y]);
    if vx.start > vy.used_until || vy.start > vx.used_until {
        return false;
    }
    if vx.used_until == vy.start {
        return !reuses_operand(graph, flow, buffers, y, x);
    }
    if vy.used_until == vx.start {
        return !reuses_operand(graph, flow, buffers, x, y);
    }
    true
}

/// Whether the instruction that defines value `user` may write it into
/// value `operand`, one of its operands.
pub(crate) fn reuses_operand(
    graph: &Graph,
    flow: &Dataflow,
    buffers: &Buffers,
    user: usize,
    operand: usize,
) -> bool {
    let Some(value) = buffers.values.get(user) else {
        return false;
    };
    let Some(inst) = graph.insts.get(value.inst) else {
        return false;
    };
    if graph.opcode(inst) == "copy" {
        return false;
    }
    graph.operands(inst).iter().enumerate().any(|(k, &o)| {
        let shape = graph.insts.get(o).map(|x| graph.shape(x));
        flow.positions(graph, o)
            .zip(shape.map(super::shapes::subshapes).unwrap_or_default())
            .any(|(p, (index, _))| {
                buffers.value_of_position.get(p) == Some(&operand)
                    && can_share(graph, inst, &value.index, k, &index)
            })
    })
}

/// The buffers that buffer `b` is copied from: a copy never writes into
/// the buffer it copies from.
fn copied_from<'a>(
    graph: &'a Graph,
    flow: &'a Dataflow,
    buffers: &'a Buffers,
    b: usize,
) -> impl Iterator<Item = usize> + 'a {
    buffers.list[b]
        .values
        .iter()
        .filter_map(|&v| buffers.values.get(v).and_then(|x| graph.insts.get(x.inst)))
        .filter(|inst| graph.opcode(inst) == "copy")
        .flat_map(|inst| graph.operands(inst).iter())
        .flat_map(|&o| flow.positions(graph, o))
        .filter_map(|p| buffers.of_position.get(p).copied())
}

#[cfg(test)]
mod tests {
    use super::Alloc;

    /// The buffers of an allocation live over `ranges`, numbered in order.
    fn alloc(ranges: &[(u64, u64)]) -> Alloc {
        let mut alloc = Alloc::default();
        for (b, &(start, end)) in ranges.iter().enumerate() {
            alloc.add(b, start, end);
        }
        alloc
    }

    fn near(alloc: &Alloc, start: u64, end: u64) -> Vec<usize> {
        let mut found: Vec<usize> = alloc.near(start, end).collect();
        found.sort_unstable();
        found
    }

    #[test]
    fn near_holds_every_buffer_that_meets_the_range() {
        // A chain of short ranges and one long one.
        let alloc = alloc(&[(0, 1), (1, 2), (2, 3), (3, 4), (10, 11), (0, 6)]);
        // Every buffer meeting 4..=5 is listed (3 and 5); those listed
        // beside them end before it or start after it.
        let found = near(&alloc, 4, 5);
        assert!(found.contains(&3) && found.contains(&5));
        assert!(!found.contains(&4));
        // Past the longest range after every start, none.
        assert_eq!(near(&alloc, 18, 20), Vec::<usize>::new());
        assert_eq!(near(&alloc, 11, 11), [4]);
    }

    #[test]
    fn near_looks_back_no_further_than_the_longest_range() {
        let alloc = alloc(&[(0, 1), (1, 2), (2, 3), (100, 101)]);
        assert_eq!(near(&alloc, 50, 60), Vec::<usize>::new());
        assert_eq!(near(&alloc, 3, 3), [2]);
        assert_eq!(near(&alloc, 2, 2), [1, 2]);
    }
}
