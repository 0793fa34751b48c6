//! A relayout composed of fast steps through cache-sized intermediates,
//! for the pairs that one pass through tiles copies slowly: a tiled side
//! whose element order transposes the other's (column-major into
//! `{1,0:T(8,128)}`, row-major into `{0,1:T(8,128)}`) where no tile
//! transpose takes it in one pass (see `kernels/tile_transpose.rs`), and
//! tiled into differently tiled. The untiled side may also be any strided
//! view of the array (strides of either sign, an offset), its physical
//! order that of its strides (see `view_xla.rs`).
//!
//! The array is cut into boxes of at most [`BOX_BYTES`] (each box a multiple
//! of both tilings' top digit weight along every dimension, so that it is
//! a shifted copy of the first box in both buffers: see [`Slab`]); each box
//! goes from the source into an untiled buffer in the source's physical
//! order (a tiled source: its tiles taken apart, contiguous runs), from
//! that into an untiled buffer in the destination's physical order (a
//! transpose, by the engine's transpose kernels, in cache), and from that
//! into the destination (a tiled destination: its tiles put together).
//! Steps between the same order are skipped: an untiled source is read
//! straight into the destination's order.

use rayon::ThreadPool;
use schema::Shape;
use stride_util::{StridedView, ViewError};

use super::RelayoutError;
use super::kernels::SMALL_THRESHOLDS;
use super::parallel::MIN_BYTES_PER_THREAD;
use super::piece_copy::{bytes_of, copy_piece, zero_padding};
use super::scratch::{Scratch, with_scratch};
use super::tiled::{Slab, Tiling};

/// The bytes of a box's intermediates together (they stay in a core's L2
/// cache). 256 bytes in fuzzing and Miri builds, so that small arrays are
/// cut into many boxes there.
pub(crate) const BOX_BYTES: i64 = if SMALL_THRESHOLDS { 256 } else { 512 << 10 };

/// The run an untiled side's box rows reach first, in bytes, before the
/// box grows along other dimensions.
const RUN_BYTES: i64 = if SMALL_THRESHOLDS { 16 } else { 4 << 10 };

thread_local! {
    /// The intermediates of each thread's boxes, kept between relayouts
    /// (up to twice [`BOX_BYTES`]), so that a relayout allocates and
    /// faults in no pages for them.
    static SCRATCH: Scratch = const { Scratch::new(Vec::new()) };
}

/// One end of a composed relayout.
#[derive(Debug, Clone)]
pub(crate) enum End {
    /// A tiled buffer of the shape.
    Tiled(Tiling, Shape),
    /// An untiled buffer as a view of the whole array: an XLA layout's
    /// (padded or not), or any strided view's.
    View(StridedView),
}

impl End {
    /// The tiling of a tiled end.
    fn tiling(&self) -> Option<&Tiling> {
        match self {
            Self::Tiled(tiling, _) => Some(tiling),
            Self::View(_) => None,
        }
    }
}

/// The plan of a composed relayout (see the module documentation).
#[derive(Debug, Clone)]
pub(crate) struct Composed {
    src: End,
    dst: End,
    /// The array's shape (its dimensions; errors name it).
    shape: Shape,
    /// The destination's physical order: logical dimensions, most major
    /// first.
    dst_order: Vec<usize>,
    /// The logical dimensions of each intermediate, most major first.
    middles: Vec<Vec<usize>>,
    /// The extent of a box along each logical dimension.
    extents: Vec<i64>,
    bits: u32,
    /// Whether the boxes may be split over a pool by ranges of the
    /// destination's most major dimension, each writing its own range of
    /// bytes: a tiled destination, or an XLA layout's view.
    splits: bool,
}

/// The logical dimensions of `shape` in its physical order, most major
/// first.
pub(crate) fn physical_order(shape: &Shape) -> Vec<usize> {
    let rank = shape.dimensions.len();
    shape
        .layout
        .as_deref()
        .map(|layout| {
            layout
                .minor_to_major
                .iter()
                .rev()
                .filter_map(|&d| usize::try_from(d).ok())
                .collect()
        })
        .filter(|order: &Vec<usize>| order.len() == rank)
        .unwrap_or_else(|| (0..rank).collect())
}

/// The logical dimensions of `view` from the largest stride (in absolute
/// value) to the smallest: its physical order, most major first.
pub(crate) fn view_order(view: &StridedView) -> Vec<usize> {
    let mut order: Vec<usize> = (0..view.ndim()).collect();
    order.sort_by_key(|&d| std::cmp::Reverse(view.strides()[d].unsigned_abs()));
    order
}

/// Whether a relayout between `view` and the tiled `shape` goes through
/// cache-sized intermediates: where their physical orders differ, size-1
/// dimensions aside (see [`wants_composition`]).
pub(crate) fn view_wants_composition(view: &StridedView, shape: &Shape) -> bool {
    let sized = |order: Vec<usize>| -> Vec<usize> {
        order
            .into_iter()
            .filter(|&d| view.sizes().get(d) != Some(&1))
            .collect()
    };
    sized(view_order(view)) != sized(physical_order(shape))
}

/// Whether the relayout from `src_shape` into `dst_shape` (at least one
/// tiled) goes through cache-sized intermediates where no one pass
/// applies: where both are tiled, or their physical orders differ (one
/// pass through the tiles would then transpose them in runs as short as
/// a tile's side).
pub(crate) fn wants_composition(src_shape: &Shape, dst_shape: &Shape) -> bool {
    let tiled = |shape: &Shape| shape.layout.as_deref().is_some_and(|l| !l.tiles.is_empty());
    (tiled(src_shape) && tiled(dst_shape)) || physical_order(src_shape) != physical_order(dst_shape)
}

impl Composed {
    /// The composition from `src_shape` into `dst_shape` (the same array,
    /// at least one side tiled, checked by the caller) with their tilings
    /// (`None` for an untiled side).
    pub(crate) fn new(
        (src_shape, src_tiling): (&Shape, Option<&Tiling>),
        (dst_shape, dst_tiling): (&Shape, Option<&Tiling>),
        bits: u32,
    ) -> Result<Self, RelayoutError> {
        let end = |shape: &Shape, tiling: Option<&Tiling>| -> Result<End, RelayoutError> {
            Ok(match tiling {
                Some(tiling) => End::Tiled(tiling.clone(), shape.clone()),
                None => End::View(StridedView::from_xla_shape(shape)?),
            })
        };
        Ok(Self::between(
            src_shape,
            (end(src_shape, src_tiling)?, physical_order(src_shape)),
            (end(dst_shape, dst_tiling)?, physical_order(dst_shape)),
            (bits, true),
        ))
    }

    /// The composition of the array `shape` (its dimensions) between two
    /// ends in the physical orders given (logical dimensions, most major
    /// first), at least one tiled; the boxes split over a pool if `splits`
    /// (see [`Composed::splits`]).
    pub(crate) fn between(
        shape: &Shape,
        (src, src_order): (End, Vec<usize>),
        (dst, dst_order): (End, Vec<usize>),
        (bits, splits): (u32, bool),
    ) -> Self {
        let (src_tiling, dst_tiling) = (src.tiling(), dst.tiling());
        let mut middles = Vec::new();
        if src_tiling.is_some() {
            middles.push(src_order.clone());
        }
        if dst_tiling.is_some() && middles.last() != Some(&dst_order) {
            middles.push(dst_order.clone());
        }
        if src_tiling.is_none() && dst_tiling.is_none() {
            middles.push(dst_order.clone());
        }
        let dims = &shape.dimensions;
        let steps: Vec<i64> = (0..dims.len())
            .map(|j| {
                let step = |t: Option<&Tiling>| t.map_or(Some(1), |t| t.slab_step(j));
                step(src_tiling)
                    .zip(step(dst_tiling))
                    .and_then(|(a, b)| lcm(a, b))
                    .unwrap_or(dims[j])
            })
            .collect();
        // The boxes grow along an untiled side's minor dimension first (its
        // runs are only as long as the box), up to runs of [`RUN_BYTES`],
        // then along both sides' minor dimensions alternately (a tiled
        // side's runs are at least a tile long).
        let first = match (src_tiling, dst_tiling) {
            (None, _) => src_order.last(),
            (_, None) => dst_order.last(),
            _ => None,
        };
        let first = first.map(|&j| (j, (RUN_BYTES * 8 / i64::from(bits.max(1))).max(1)));
        let mut priority = Vec::with_capacity(dims.len());
        for (a, b) in src_order.iter().rev().zip(dst_order.iter().rev()) {
            for &j in [a, b] {
                if !priority.contains(&j) {
                    priority.push(j);
                }
            }
        }
        // The intermediates of a box share the budget.
        let count = i64::try_from(middles.len()).unwrap_or(1).max(1);
        let budget = (BOX_BYTES / count * 8 / i64::from(bits.max(1))).max(1);
        let extents = extents(dims, &steps, (first, &priority), budget);
        Self {
            src,
            dst,
            shape: shape.clone(),
            dst_order,
            middles,
            extents,
            bits,
            splits,
        }
    }

    /// Copies `src` into `dst` (both checked to hold their shapes'
    /// buffers, `dst`'s tile padding to be zeroed here, its classic padding
    /// left to the caller), box by box, the boxes split over `pool` if
    /// given and the copy is large enough.
    pub(crate) fn run(
        &self,
        pool: Option<&ThreadPool>,
        src: &[u8],
        dst: &mut [u8],
    ) -> Result<(), RelayoutError> {
        let dims = &self.shape.dimensions;
        if dims.contains(&0) {
            return Ok(());
        }
        let elements = StridedView::row_major(dims)?.num_elements();
        if let End::Tiled(to, _) = &self.dst {
            zero_padding(dst, to, elements, self.bits);
        }
        let whole = u64::try_from(dst.len()).unwrap_or(u64::MAX);
        let groups = self.groups(pool, whole);
        match (pool, groups.len()) {
            (Some(pool), 2..) => {
                let mut parts = Vec::with_capacity(groups.len());
                let mut rest: &mut [u8] = dst;
                let mut at = 0;
                for group in &groups {
                    let (part, tail) = std::mem::take(&mut rest).split_at_mut(group.end - at);
                    parts.push((group, &mut part[group.start - at..]));
                    at = group.end;
                    rest = tail;
                }
                let mut results = Vec::new();
                results.resize_with(parts.len(), || Ok(()));
                pool.scope(|scope| {
                    for ((group, part), result) in parts.into_iter().zip(&mut results) {
                        scope.spawn(move |_| *result = self.boxes(src, part, group, whole));
                    }
                });
                results.into_iter().collect()
            }
            _ => {
                let all = Group {
                    from: 0,
                    to: i64::MAX,
                    start: 0,
                    end: dst.len(),
                };
                self.boxes(src, dst, &all, whole)
            }
        }
    }

    /// The split of the boxes over `pool`: ranges of box starts along the
    /// destination's most major dimension, each writing its own range of
    /// the destination buffer; one group when there is no pool or the
    /// copy is too small to split.
    fn groups(&self, pool: Option<&ThreadPool>, whole: u64) -> Vec<Group> {
        let threads = pool.map_or(1, ThreadPool::current_num_threads);
        let Some(&major) = self.dst_order.first().filter(|_| self.splits) else {
            return Vec::new();
        };
        let (size, extent) = (self.shape.dimensions[major], self.extents[major]);
        let extent = extent.max(1);
        let boxes = size / extent + i64::from(size % extent != 0);
        let count = u64::try_from(threads)
            .unwrap_or(1)
            .min(whole / MIN_BYTES_PER_THREAD.max(1))
            .min(u64::try_from(boxes).unwrap_or(1));
        if count < 2 || !self.bits.is_multiple_of(8) {
            return Vec::new();
        }
        let count = i64::try_from(count).unwrap_or(1);
        let mut groups = Vec::new();
        for k in 0..count {
            let (from, to) = (boxes * k / count, boxes * (k + 1) / count);
            let (Some(start), Some(end)) = (
                self.dst_byte(major, from * extent),
                self.dst_byte(major, (to * extent).min(size)),
            ) else {
                return Vec::new();
            };
            if from < to {
                groups.push(Group {
                    from: from * extent,
                    to: to * extent,
                    start,
                    end,
                });
            }
        }
        groups
    }

    /// The byte of the destination buffer where index `index` of its most
    /// major dimension `major` starts (`index` a multiple of its box
    /// extent, or the dimension's size).
    fn dst_byte(&self, major: usize, index: i64) -> Option<usize> {
        let element = match &self.dst {
            End::Tiled(tiling, _) => tiling.major_position(major, index)?,
            End::View(view) => {
                let stride = *view.strides().get(major)?;
                if index == self.shape.dimensions[major] {
                    // The end of the buffer's elements.
                    view.offset_range()?.1.checked_add(1)?
                } else {
                    view.offset().checked_add(index.checked_mul(stride)?)?
                }
            }
        };
        usize::try_from(element.checked_mul(i64::from(self.bits / 8))?).ok()
    }

    /// Copies the boxes of `group` from `src` into `dst`, which holds bytes
    /// `group.start..group.end` of the destination buffer; the kernels
    /// stream their stores by the size of the `whole` copy.
    fn boxes(
        &self,
        src: &[u8],
        dst: &mut [u8],
        group: &Group,
        whole: u64,
    ) -> Result<(), RelayoutError> {
        let box_elements = self.extents.iter().product::<i64>();
        let each = bytes_of(&self.shape, box_elements, self.bits)?.max(1);
        let need = each.saturating_mul(self.middles.len());
        // Kept unless a tiling's large tiles made the boxes large.
        let keep = usize::try_from(2 * BOX_BYTES).unwrap_or(usize::MAX);
        with_scratch(&SCRATCH, need, keep, |scratch| {
            let middles: Vec<&mut [u8]> = scratch.chunks_mut(each).collect();
            self.boxes_through(src, dst, group, whole, middles)
        })
    }

    /// [`boxes`](Self::boxes) through the intermediates `middles`, one per
    /// entry of `self.middles`, each a box long.
    fn boxes_through(
        &self,
        src: &[u8],
        dst: &mut [u8],
        group: &Group,
        whole: u64,
        mut middles: Vec<&mut [u8]>,
    ) -> Result<(), RelayoutError> {
        let major = &self.dst_order;
        let shift = i64::try_from(group.start).unwrap_or(0) * 8 / i64::from(self.bits);
        let small = u64::try_from(middles.first().map_or(0, |m| m.len())).unwrap_or(0);
        // Box starts, odometer over the destination's physical order.
        let mut start = vec![0_i64; self.shape.dimensions.len()];
        if let Some(&m) = major.first() {
            start[m] = group.from;
        }
        loop {
            self.one_box(src, dst, &start, &mut middles, (shift, small, whole))?;
            if !self.next_box(&mut start, major, group) {
                return Ok(());
            }
        }
    }

    /// The box at `start`: from `src` into the first intermediate, from
    /// each intermediate into the next, from the last into `dst` (whose
    /// first byte is byte `shift` elements into the destination buffer),
    /// the intermediates' copies storing as for a copy of `small` bytes,
    /// the destination's as for one of `whole`.
    fn one_box(
        &self,
        src: &[u8],
        dst: &mut [u8],
        start: &[i64],
        middles: &mut [&mut [u8]],
        (shift, small, whole): (i64, u64, u64),
    ) -> Result<(), RelayoutError> {
        let dims = &self.shape.dimensions;
        let lens: Vec<i64> = (0..dims.len())
            .map(|j| self.extents[j].min(dims[j] - start[j]))
            .collect();
        let slabs: Vec<Slab> = (0..dims.len())
            .map(|j| Slab {
                dim: j,
                start: start[j],
                len: lens[j],
            })
            .collect();
        let views = self
            .middles
            .iter()
            .map(|order| middle_view(&lens, order))
            .collect::<Result<Vec<_>, _>>()?;
        // The source into the first intermediate.
        let (first, first_view) = (&mut *middles[0], &views[0]);
        match &self.src {
            End::Tiled(tiling, shape) => {
                for (logical, tiled) in tiling.pieces(shape, first_view, &slabs)? {
                    copy_piece(src, &tiled, first, &logical, self.bits, small)?;
                }
            }
            End::View(view) => {
                let from = sub_view(view, start, &lens, 0)?;
                copy_piece(src, &from, first, first_view, self.bits, small)?;
            }
        }
        // Between the intermediates.
        for k in 1..middles.len() {
            let (done, next) = middles.split_at_mut(k);
            copy_piece(
                &*done[k - 1],
                &views[k - 1],
                &mut *next[0],
                &views[k],
                self.bits,
                small,
            )?;
        }
        // The last intermediate into the destination.
        let (last, last_view) = (&*middles[middles.len() - 1], &views[views.len() - 1]);
        match &self.dst {
            End::Tiled(tiling, shape) => {
                for (logical, tiled) in tiling.pieces(shape, last_view, &slabs)? {
                    let to = shifted(&tiled, shift)?;
                    copy_piece(last, &logical, dst, &to, self.bits, whole)?;
                }
            }
            End::View(view) => {
                let to = sub_view(view, start, &lens, shift)?;
                copy_piece(last, last_view, dst, &to, self.bits, whole)?;
            }
        }
        Ok(())
    }

    /// Moves `start` to the next box of `group`, the destination's minor
    /// dimension fastest (`major`: its physical order, most major first);
    /// whether there is one.
    fn next_box(&self, start: &mut [i64], major: &[usize], group: &Group) -> bool {
        let dims = &self.shape.dimensions;
        let mut k = major.len();
        loop {
            if k == 0 {
                return false;
            }
            k -= 1;
            let j = major[k];
            start[j] += self.extents[j];
            let end = if k == 0 {
                group.to.min(dims[j])
            } else {
                dims[j]
            };
            if start[j] < end {
                return true;
            }
            if k == 0 {
                return false;
            }
            start[j] = 0;
        }
    }
}

/// A range of box starts `from..to` along the destination's most major
/// dimension, and the bytes `start..end` of the destination it writes.
#[derive(Debug)]
struct Group {
    from: i64,
    to: i64,
    start: usize,
    end: usize,
}

/// A contiguous buffer of sizes `lens` in the physical order `order`
/// (logical dimensions, most major first).
fn middle_view(lens: &[i64], order: &[usize]) -> Result<StridedView, ViewError> {
    let mut strides = vec![0_i64; lens.len()];
    let mut stride = 1_i64;
    for &j in order.iter().rev() {
        strides[j] = stride;
        stride = stride.saturating_mul(lens[j]);
    }
    StridedView::new(lens, &strides, 0)
}

/// The box of `view` at `start` of sizes `lens`, its offset less `shift`.
fn sub_view(
    view: &StridedView,
    start: &[i64],
    lens: &[i64],
    shift: i64,
) -> Result<StridedView, RelayoutError> {
    let overflow = || {
        RelayoutError::View(ViewError::Overflow {
            what: "a box of a composed relayout",
            of: stride_util::numpy_tuple(view.sizes()),
        })
    };
    let offset = start
        .iter()
        .zip(view.strides())
        .try_fold(view.offset(), |o, (&s, &stride)| {
            s.checked_mul(stride).and_then(|d| o.checked_add(d))
        })
        .and_then(|o| o.checked_sub(shift))
        .ok_or_else(overflow)?;
    Ok(StridedView::new(lens, view.strides(), offset)?)
}

/// `view` with its offset less `shift`.
fn shifted(view: &StridedView, shift: i64) -> Result<StridedView, RelayoutError> {
    if shift == 0 {
        return Ok(view.clone());
    }
    sub_view(view, &vec![0; view.ndim()], view.sizes(), shift)
}

/// The extent of a box along each dimension of `dims`: a multiple of its
/// `steps` entry (or the whole dimension), doubled along the `first`
/// dimension up to its limit, then in turn along the dimensions of
/// `priority`, while the box holds at most `budget` elements.
fn extents(
    dims: &[i64],
    steps: &[i64],
    (first, priority): (Option<(usize, i64)>, &[usize]),
    budget: i64,
) -> Vec<i64> {
    let mut extents: Vec<i64> = dims
        .iter()
        .zip(steps)
        .map(|(&d, &s)| s.clamp(1, d.max(1)))
        .collect();
    if let Some((j, limit)) = first {
        while extents[j] < limit && grow(&mut extents, dims, steps, j, budget) {}
    }
    loop {
        let mut grown = false;
        for &j in priority {
            grown |= grow(&mut extents, dims, steps, j, budget);
        }
        if !grown {
            return extents;
        }
    }
}

/// Doubles `extents[j]` (rounded up to a multiple of its step, at most the
/// dimension) if the box then holds at most `budget` elements; whether it
/// grew.
fn grow(extents: &mut [i64], dims: &[i64], steps: &[i64], j: usize, budget: i64) -> bool {
    let (e, d, step) = (extents[j], dims[j], steps[j].max(1));
    if e >= d {
        return false;
    }
    let next = e
        .saturating_mul(2)
        .checked_add(step - 1)
        .map_or(d, |x| x / step * step)
        .min(d);
    let volume = extents
        .iter()
        .enumerate()
        .map(|(i, &x)| if i == j { next } else { x })
        .try_fold(1_i64, |n, x| n.checked_mul(x));
    let fits = volume.is_some_and(|v| v <= budget);
    if fits {
        extents[j] = next;
    }
    fits
}

/// The least common multiple of two positive numbers, if it fits.
fn lcm(a: i64, b: i64) -> Option<i64> {
    let (mut x, mut y) = (a, b);
    while y != 0 {
        (x, y) = (y, x % y);
    }
    (a / x).checked_mul(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boxes_grow_along_both_minor_dimensions_in_turn() {
        // Tiles into tiles: steps 8 and 128, minor dims 0 then 1.
        assert_eq!(
            extents(&[4096, 4096], &[8, 128], (None, &[0, 1]), 1 << 15),
            [64, 512]
        );
        // Column-major into T(8,128): the source's runs first.
        assert_eq!(
            extents(&[4096, 4096], &[8, 128], (Some((0, 256)), &[0, 1]), 1 << 15),
            [256, 128]
        );
        // A dimension shorter than its step is whole.
        assert_eq!(
            extents(&[5, 4096], &[8, 128], (None, &[1, 0]), 1 << 15),
            [5, 4096]
        );
        // Never past the budget once past the steps.
        assert_eq!(extents(&[100, 100], &[1, 1], (None, &[1, 0]), 64), [8, 8]);
    }

    #[test]
    fn the_least_common_multiple() {
        assert_eq!(lcm(8, 128), Some(128));
        assert_eq!(lcm(6, 4), Some(12));
        assert_eq!(lcm(i64::MAX, i64::MAX - 1), None);
    }
}
