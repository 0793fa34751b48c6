//! Where XLA's heap places the temporaries, and so the size of the
//! temporary allocation (`temp_size_in_bytes`): the heap simulator's events
//! as intervals of event time (`GlobalDecreasingSizeBestFitHeap`), each
//! placed in turn, by size or by span (XLA tries both and keeps the smaller
//! heap), in the smallest free gap of the memory used over its interval and
//! that of the values that share its storage, at an aligned offset.

/// One value's interval in the heap's event time: from the event that
/// allocates or shares it to the one that frees it.
#[derive(Debug, Clone)]
pub(crate) struct Interval {
    /// Its bytes.
    pub size: u64,
    /// The event that allocates it (or shares another's storage).
    pub start: u64,
    /// The event that frees it (the last event when none does).
    pub end: u64,
    /// The intervals that share its storage (`ShareWith` it).
    pub colocations: Vec<usize>,
    /// Whether it has storage of its own (allocated, not shared).
    pub need_allocation: bool,
}

/// The heap's events, recorded as XLA's heap algorithm sees them: each
/// allocation, share and free of a value with bytes is one step of time.
#[derive(Debug, Clone, Default)]
pub(crate) struct Events {
    time: u64,
    /// The interval of each value, by the caller's value numbers.
    of_value: Vec<Option<usize>>,
    /// The intervals, in the order of their first events.
    pub intervals: Vec<Interval>,
}

impl Events {
    /// Events for values numbered below `values`.
    pub fn new(values: usize) -> Self {
        Self {
            of_value: vec![None; values],
            ..Self::default()
        }
    }

    /// Value `v` gets storage of its own.
    pub fn alloc(&mut self, v: usize, size: u64) {
        self.start(v, size, true);
    }

    /// Value `v` takes the storage of value `with`.
    pub fn share(&mut self, v: usize, with: usize, size: u64) {
        let Some(root) = self.of_value.get(with).copied().flatten() else {
            self.alloc(v, size);
            return;
        };
        let Some(k) = self.start(v, size, false) else {
            return;
        };
        if let Some(interval) = self.intervals.get_mut(root) {
            interval.colocations.push(k);
        }
    }

    /// Value `v` is freed (once; a value without bytes has no interval).
    pub fn free(&mut self, v: usize) {
        let Some(k) = self.of_value.get(v).copied().flatten() else {
            return;
        };
        if let Some(interval) = self.intervals.get_mut(k)
            && interval.end == u64::MAX
        {
            interval.end = self.time;
            self.time = self.time.saturating_add(1);
        }
    }

    fn start(&mut self, v: usize, size: u64, need_allocation: bool) -> Option<usize> {
        if size == 0 || self.of_value.get(v).copied().flatten().is_some() {
            return None;
        }
        let k = self.intervals.len();
        self.intervals.push(Interval {
            size,
            start: self.time,
            end: u64::MAX,
            colocations: Vec::new(),
            need_allocation,
        });
        if let Some(slot) = self.of_value.get_mut(v) {
            *slot = Some(k);
        }
        self.time = self.time.saturating_add(1);
        Some(k)
    }

    /// The intervals, every one ended (at the last event when nothing
    /// freed it).
    pub fn finish(mut self) -> Vec<Interval> {
        let last = self.time.saturating_sub(1);
        for interval in &mut self.intervals {
            if interval.end == u64::MAX {
                interval.end = last.max(interval.start);
            }
        }
        self.intervals
    }
}

/// The bytes the heap needs with every interval placed at a multiple of
/// `alignment`: the smaller of XLA's two orders (`kSpatial`: largest
/// first; `kTemporal`: longest span first). `None` when an offset
/// overflows.
pub(crate) fn heap_size(intervals: &[Interval], alignment: u64) -> Option<Placed> {
    let overlaps = overlap_count(intervals);
    if overlaps > visit_budget(intervals.len()) {
        return Some(Placed::TooCrowded { overlaps });
    }
    let alignment = alignment.max(1);
    let groups = colocation_groups(intervals);
    let spatial = place(intervals, &groups, alignment, Order::Spatial)?;
    let temporal = place(intervals, &groups, alignment, Order::Temporal)?;
    Some(Placed::Size(spatial.min(temporal)))
}

/// What placing a heap's intervals gave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Placed {
    /// The heap's bytes with every interval placed.
    Size(u64),
    /// Not placed: XLA's best fit looks at every chunk live beside each one
    /// it places, and these intervals overlap in `overlaps` pairs, more
    /// than [`visit_budget`] allows (quadratic when many are live at once).
    TooCrowded {
        /// The pairs of overlapping intervals (each counted from both
        /// sides, itself included).
        overlaps: u64,
    },
}

/// The most overlapping pairs of `intervals` intervals that are placed: a
/// small multiple of the intervals, and at least enough for thousands of
/// temporaries live at once.
fn visit_budget(intervals: usize) -> u64 {
    let n = u64::try_from(intervals).unwrap_or(u64::MAX);
    n.saturating_mul(128).max(1 << 24)
}

/// How many (interval, interval it overlaps) pairs there are, itself
/// included: the chunks the placements look at, at most. `O(n log n)`.
fn overlap_count(intervals: &[Interval]) -> u64 {
    let mut starts: Vec<u64> = intervals.iter().map(|i| i.start).collect();
    let mut ends: Vec<u64> = intervals.iter().map(|i| i.end).collect();
    starts.sort_unstable();
    ends.sort_unstable();
    intervals.iter().fold(0_u64, |total, i| {
        // Those starting by its end, less those ended before its start.
        let started = starts.partition_point(|&s| s <= i.end);
        let ended = ends.partition_point(|&e| e < i.start);
        let pairs = u64::try_from(started.saturating_sub(ended)).unwrap_or(u64::MAX);
        total.saturating_add(pairs)
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Order {
    Spatial,
    Temporal,
}

/// For each interval with storage of its own, the intervals that share it,
/// transitively (each sharer shares exactly one interval's storage).
fn colocation_groups(intervals: &[Interval]) -> Vec<Vec<usize>> {
    let mut groups = vec![Vec::new(); intervals.len()];
    let mut seen = vec![false; intervals.len()];
    for (k, interval) in intervals.iter().enumerate() {
        if !interval.need_allocation {
            continue;
        }
        seen[k] = true;
        let mut stack: Vec<usize> = interval.colocations.clone();
        let mut group = Vec::new();
        while let Some(c) = stack.pop() {
            if seen.get(c).is_none_or(|&s| s) {
                continue;
            }
            seen[c] = true;
            group.push(c);
            stack.extend(intervals[c].colocations.iter().copied());
        }
        groups[k] = group;
    }
    groups
}

/// Places the intervals in `order` and returns the heap's size.
fn place(
    intervals: &[Interval],
    groups: &[Vec<usize>],
    alignment: u64,
    order: Order,
) -> Option<u64> {
    let span = |k: usize| {
        let i = &intervals[k];
        groups[k].iter().fold((i.start, i.end), |(s, e), &c| {
            let c = &intervals[c];
            (s.min(c.start), e.max(c.end))
        })
    };
    let mut sorted: Vec<(u64, u64, usize)> = intervals
        .iter()
        .enumerate()
        .filter(|(_, i)| i.need_allocation)
        .map(|(k, i)| match order {
            Order::Spatial => (i.size, i.end.saturating_sub(i.start), k),
            Order::Temporal => {
                let (s, e) = span(k);
                (e.saturating_sub(s), i.size, k)
            }
        })
        .collect();
    // Larger first on both keys, then in the order of the events.
    sorted.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
    let mut tree = Tree::new(intervals);
    let mut heap = 0_u64;
    let mut used = Vec::new();
    for &(_, _, k) in &sorted {
        let interval = &intervals[k];
        let group = &groups[k];
        let max_size = group
            .iter()
            .fold(interval.size, |m, &c| m.max(intervals[c].size));
        used.clear();
        tree.overlapping(interval.start, interval.end, &mut used);
        for &c in group {
            tree.overlapping(intervals[c].start, intervals[c].end, &mut used);
        }
        let offset = best_fit(&mut used, interval.size, max_size, alignment)?;
        heap = heap.max(offset.checked_add(max_size)?);
        tree.add(k, offset, max_size);
        for &c in group {
            tree.add(c, offset, max_size);
        }
    }
    Some(heap)
}

/// The offset XLA's best fit chooses among the gaps between the `used`
/// chunks (offset, size): the aligned start of the smallest gap, the first
/// of equals, that holds `max_size` (gaps narrower than `size` are not
/// gaps), else after the last chunk.
fn best_fit(used: &mut [(u64, u64)], size: u64, max_size: u64, alignment: u64) -> Option<u64> {
    used.sort_unstable_by_key(|c| c.0);
    let align = |x: u64| x.div_ceil(alignment).checked_mul(alignment);
    let mut free: Vec<(u64, u64)> = Vec::new();
    let mut free_start = 0_u64;
    let mut chunks = used.iter().filter(|c| c.1 > 0);
    if let Some(&(first, first_size)) = chunks.next() {
        let (mut offset, mut end) = (first, first.checked_add(first_size)?);
        for &(o, s) in chunks {
            let chunk_end = o.checked_add(s)?;
            if o < end {
                end = end.max(chunk_end);
            } else {
                if offset.saturating_sub(free_start) >= size && offset >= free_start {
                    free.push((free_start, offset));
                }
                free_start = free_start.max(align(end)?);
                offset = o;
                end = chunk_end;
            }
        }
        if offset >= free_start && offset - free_start >= size {
            free.push((free_start, offset));
        }
        free_start = free_start.max(align(end)?);
    }
    free.push((free_start, u64::MAX));
    let mut best: Option<(u64, u64)> = None;
    for &(start, end) in &free {
        let aligned = align(start)?;
        if end.checked_sub(max_size).is_none_or(|last| last < aligned) {
            continue;
        }
        let gap = end - start;
        if best.is_none_or(|(b, _)| gap < b) {
            best = Some((gap, aligned));
        }
    }
    best.map(|(_, offset)| offset)
}

/// The placed intervals, queried by time: a segment tree over all
/// intervals sorted by start, each node the latest end of the placed
/// intervals under it, so that a query visits only the nodes whose
/// intervals may overlap it.
struct Tree {
    /// Interval numbers by start.
    by_start: Vec<usize>,
    starts: Vec<u64>,
    /// Position in `by_start` of each interval.
    leaf_of: Vec<usize>,
    /// Per node: the latest end placed under it (`None`: nothing placed).
    latest: Vec<Option<u64>>,
    ends: Vec<u64>,
    /// Per interval: its chunk once placed.
    chunk: Vec<Option<(u64, u64)>>,
    width: usize,
}

impl Tree {
    fn new(intervals: &[Interval]) -> Self {
        let mut by_start: Vec<usize> = (0..intervals.len()).collect();
        by_start.sort_by_key(|&k| (intervals[k].start, k));
        let mut leaf_of = vec![0; intervals.len()];
        for (p, &k) in by_start.iter().enumerate() {
            leaf_of[k] = p;
        }
        let width = by_start.len().next_power_of_two().max(1);
        Self {
            starts: by_start.iter().map(|&k| intervals[k].start).collect(),
            ends: intervals.iter().map(|i| i.end).collect(),
            by_start,
            leaf_of,
            latest: vec![None; 2 * width],
            chunk: vec![None; intervals.len()],
            width,
        }
    }

    /// Places interval `k` at `offset`, `size` bytes.
    fn add(&mut self, k: usize, offset: u64, size: u64) {
        let (Some(&leaf), Some(&end)) = (self.leaf_of.get(k), self.ends.get(k)) else {
            return;
        };
        if let Some(slot) = self.chunk.get_mut(k) {
            *slot = Some((offset, size));
        }
        let mut node = self.width + leaf;
        while node > 0 {
            let slot = &mut self.latest[node];
            *slot = Some(slot.map_or(end, |e| e.max(end)));
            node /= 2;
        }
    }

    /// Appends the chunks of the placed intervals that overlap
    /// `start..=end` to `out`.
    fn overlapping(&self, start: u64, end: u64, out: &mut Vec<(u64, u64)>) {
        let mut stack = vec![(1_usize, 0_usize, self.width)];
        while let Some((node, lo, hi)) = stack.pop() {
            if self.latest[node].is_none_or(|latest| latest < start)
                || self.starts.get(lo).is_none_or(|&s| s > end)
            {
                continue;
            }
            if hi - lo == 1 {
                let k = self.by_start[lo];
                if let Some(chunk) = self.chunk[k] {
                    out.push(chunk);
                }
                continue;
            }
            let mid = lo + (hi - lo) / 2;
            stack.push((2 * node + 1, mid, hi));
            stack.push((2 * node, lo, mid));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn interval(size: u64, start: u64, end: u64) -> Interval {
        Interval {
            size,
            start,
            end,
            colocations: Vec::new(),
            need_allocation: true,
        }
    }

    #[test]
    fn overlapping_pairs_are_counted_from_both_sides() {
        let intervals = [interval(4, 0, 2), interval(4, 1, 3), interval(4, 4, 5)];
        // 0 and 1 overlap each other and themselves; 2 only itself. An end
        // meets a start at the same event.
        assert_eq!(overlap_count(&intervals), 5);
        let touching = [interval(4, 0, 2), interval(4, 2, 3)];
        assert_eq!(overlap_count(&touching), 4);
    }

    #[test]
    fn thousands_live_at_once_are_refused_before_any_is_placed() {
        // 5,000 temporaries all live together: 25 million pairs.
        let n = 5_000_u64;
        let crowded: Vec<Interval> = (0..n).map(|k| interval(64, k, 2 * n - k)).collect();
        assert_eq!(
            heap_size(&crowded, 64),
            Some(Placed::TooCrowded { overlaps: n * n })
        );
        // 4,000 (16 million pairs) are placed, each beside all the others.
        let n = 4_000_u64;
        let placed: Vec<Interval> = (0..n).map(|k| interval(64, k, 2 * n - k)).collect();
        assert_eq!(heap_size(&placed, 64), Some(Placed::Size(64 * n)));
    }

    #[test]
    fn live_together_each_at_an_aligned_offset() {
        // Two 4-byte scalars live at once: at 0 and 64.
        let both = [interval(4, 0, 2), interval(4, 1, 3)];
        assert_eq!(heap_size(&both, 64), Some(Placed::Size(68)));
        assert_eq!(heap_size(&both, 1), Some(Placed::Size(8)));
        // One after the other: the same bytes.
        let apart = [interval(4, 0, 1), interval(4, 2, 3)];
        assert_eq!(heap_size(&apart, 64), Some(Placed::Size(4)));
    }

    #[test]
    fn the_smallest_gap_that_fits() {
        // 100 and 40 bytes long-lived with a gap between them where the
        // 100 bytes die; a later 30-byte value takes the gap.
        let intervals = [
            interval(100, 0, 10),
            interval(50, 1, 3),
            interval(40, 2, 10),
            interval(30, 4, 10),
        ];
        assert_eq!(heap_size(&intervals, 1), Some(Placed::Size(190)));
    }

    #[test]
    fn shared_storage_is_placed_once_for_all_its_values() {
        let mut events = Events::new(3);
        events.alloc(0, 8);
        events.alloc(1, 16);
        events.free(0);
        events.share(2, 1, 16);
        events.free(1);
        events.free(2);
        let intervals = events.finish();
        assert_eq!(intervals.len(), 3);
        assert_eq!(intervals[1].colocations, vec![2]);
        assert!(!intervals[2].need_allocation);
        // The 16 bytes and their sharer at 0, the 8 bytes live beside them at 64.
        assert_eq!(heap_size(&intervals, 64), Some(Placed::Size(64 + 8)));
    }

    #[test]
    fn offsets_that_overflow_are_none() {
        let intervals = [interval(u64::MAX, 0, 2), interval(4, 1, 3)];
        assert_eq!(heap_size(&intervals, 64), None);
    }
}
