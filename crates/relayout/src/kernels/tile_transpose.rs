//! Transposes whose rows on one side are not evenly spaced but split in
//! two levels ([`Strategy::TileTranspose`](crate::Strategy::TileTranspose)):
//! the rows of XLA's tiles in the order that transposes the other side's.
//!
//! Column-major into `{1,0:T(8,128)}`, as one strided piece: the source is
//! contiguous along the rows `i` of the array, across tiles, while the
//! destination has row `i` of a tile 128 elements after row `i - 1`, and
//! row 0 of the next tile further on. A plain transpose takes the 8 rows of
//! one tile at a time, less than a register block; here the source-side
//! axis `q` (contiguous in the source) is the pair of dimensions `(tile
//! row, row in the tile)`, and each destination row `q` has an offset of
//! its own. Likewise the destination-side axis `p` (contiguous in the
//! destination) may be split in two levels in the source (tiles into
//! column-major), and both axes may be split at once (tiles into tiles
//! of the other order, `{1,0:T(8,128)}` into `{0,1:T(8,128)}`: each
//! side's rows are those of its tiles). The copy goes in blocks of
//! [`BLOCK`] × [`BLOCK`] units
//! of [`UNIT`] bytes: the 16 source row pieces of 64 bytes of a block
//! (rows `p`, at `q0..q0 + 16`), transposed in registers, give its 16
//! destination row pieces of 64 bytes (rows `q`, at `p0..p0 + 16`), each
//! written where its row starts (see `x86/tile_blocks.rs`). The units are
//! the elements of 4-byte types, or the pairs and quads of rows of
//! narrower ones that packing tiles such as `(2,1)` and `(4,1)` interleave
//! (see [`Plan::in_units`]).

use super::block::{BLOCK, Grid, UNIT, at};
use super::for_each_outer;
use crate::plan::{Dim, Plan};

/// An axis in two levels: index `x` is `(x / lo.size, x % lo.size)` of the
/// dimensions `hi` and `lo` (`hi` of size 1 where the axis is one
/// dimension).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Axis {
    lo: Dim,
    hi: Dim,
}

impl Axis {
    /// Whether the axis is one dimension.
    fn is_single(&self) -> bool {
        self.hi.size == 1
    }

    /// Whether the axis has at least `len` indices.
    fn has(&self, len: i64) -> bool {
        self.lo
            .size
            .checked_mul(self.hi.size)
            .is_some_and(|n| n >= len)
    }

    /// The offset of every index of the axis on one side, with `stride`
    /// picking that side's stride of a dimension.
    pub(crate) fn offsets(&self, stride: impl Fn(&Dim) -> i64, out: &mut Vec<i64>) {
        out.clear();
        let (lo, hi) = (stride(&self.lo), stride(&self.hi));
        for h in 0..self.hi.size {
            for l in 0..self.lo.size {
                out.push(h * hi + l * lo);
            }
        }
    }
}

/// The axes of a transpose of `dims` whose rows may be split in two levels
/// on either side: `p` contiguous in the destination from the dimension
/// `p_lo` (destination stride 1), `q` contiguous in the source from `q_lo`
/// (source stride 1), each with the dimension that continues it on its
/// side if one does, and the other dimensions; `None` if an axis has fewer
/// than `min_len` indices.
pub(crate) fn split_axes(
    dims: &[Dim],
    p_lo: usize,
    q_lo: usize,
    min_len: i64,
) -> Option<(Axis, Axis, Vec<Dim>)> {
    let free = |i: usize, taken: &[usize]| !taken.contains(&i);
    let q_hi = (0..dims.len()).find(|&i| free(i, &[p_lo, q_lo]) && dims[i].src == dims[q_lo].size);
    let taken: Vec<usize> = [Some(p_lo), Some(q_lo), q_hi]
        .into_iter()
        .flatten()
        .collect();
    let p_hi = (0..dims.len()).find(|&i| free(i, &taken) && dims[i].dst == dims[p_lo].size);
    let single = Dim {
        size: 1,
        src: 0,
        dst: 0,
    };
    let axis = |lo: usize, hi: Option<usize>| Axis {
        lo: dims[lo],
        hi: hi.map_or(single, |h| dims[h]),
    };
    let (p, q) = (axis(p_lo, p_hi), axis(q_lo, q_hi));
    if !p.has(min_len) || !q.has(min_len) {
        return None;
    }
    let roles = [Some(p_lo), p_hi, Some(q_lo), q_hi];
    let outer = (0..dims.len())
        .filter(|&i| !roles.contains(&Some(i)))
        .map(|i| dims[i])
        .collect();
    Some((p, q, outer))
}

/// A plan in units of [`UNIT`] bytes as a tile transpose: the axis `p`
/// contiguous in the destination (its low dimension the plan's innermost,
/// stride 1 there, the high one `lo.size` apart), the axis `q` contiguous
/// in the source (likewise), and the other dimensions; with the rows of
/// both axes worked out once (see [`Rows`]).
#[derive(Debug, Clone)]
pub(crate) struct TileTranspose {
    outer: Vec<Dim>,
    src_offset: i64,
    dst_offset: i64,
    /// The source row of every index of `p`.
    src_p: Rows,
    /// The destination row of every index of `q`.
    dst_q: Rows,
    /// Whether neither axis is split (a plain transpose).
    plain: bool,
}

/// The rows of one axis on one side, as unit offsets from the axis's
/// lowest row (`shift` units from the start of the outer index), and the
/// largest of them: worked out once a plan (a relayout between two
/// tilings) or once a copy, not once an outer index, and bounds-checked
/// once a side from the largest. Measured on a 2-core AMD EPYC (Zen 4),
/// times a plain copy, medians of 4–6 alternating runs of
/// `relayout_matrix --reps 5` under load: f32[256,256] `T(8,128)` into
/// `{0,1:T(8,128)}` and back 1.25–1.27 against 1.71 with the rows of
/// every outer index built and checked row by row; with one tiled side
/// (a copy each, its rows in one pass into a buffer of their size)
/// 1.69–1.98 against 2.14–2.51 from growing buffers, sorted and checked.
#[derive(Debug, Clone)]
struct Rows {
    offsets: Vec<usize>,
    shift: i64,
    max: usize,
}

impl Rows {
    /// The rows of `axis` on the side whose stride `stride` picks: each
    /// level's offsets from its lowest one (its last index where its
    /// stride is negative), in one pass.
    fn new(axis: &Axis, stride: impl Fn(&Dim) -> i64) -> Option<Self> {
        // A level's lowest offset, its span, and its offsets from the lowest.
        let level = |dim: &Dim| -> Option<(i64, usize, Level)> {
            let s = stride(dim);
            let last = usize::try_from(dim.size.checked_sub(1)?).ok()?;
            let span = s.checked_mul(dim.size - 1)?;
            let step = usize::try_from(s.unsigned_abs()).ok()?;
            let flipped = s < 0;
            Some((
                span.min(0),
                usize::try_from(span.unsigned_abs()).ok()?,
                Level {
                    last,
                    step,
                    flipped,
                },
            ))
        };
        let (lo_low, lo_span, lo) = level(&axis.lo)?;
        let (hi_low, hi_span, hi) = level(&axis.hi)?;
        let max = lo_span.checked_add(hi_span)?;
        let mut offsets = Vec::with_capacity((lo.last + 1).checked_mul(hi.last + 1)?);
        for h in 0..=hi.last {
            let base = hi.at(h);
            offsets.extend((0..=lo.last).map(|l| base + lo.at(l)));
        }
        Some(Self {
            offsets,
            shift: lo_low.checked_add(hi_low)?,
            max,
        })
    }
}

/// One level of an axis's rows: indices `0..=last`, `step` units apart,
/// in reverse order where `flipped` (a negative stride).
#[derive(Debug, Clone, Copy)]
struct Level {
    last: usize,
    step: usize,
    flipped: bool,
}

impl Level {
    /// The offset of index `i` (at most `last`) from the level's lowest
    /// row: at most the level's span, which [`Rows::new`] checked.
    fn at(self, i: usize) -> usize {
        let from_lowest = if self.flipped { self.last - i } else { i };
        from_lowest * self.step
    }
}

impl TileTranspose {
    /// The tile transpose of the canonical `plan` of elements of
    /// `element_size` bytes, where it applies: in units of [`UNIT`] bytes
    /// (see [`Plan::in_units`]), an axis split in two levels (a plain
    /// transpose has none) and both axes at least a block long. Also
    /// where the split axis's low dimension is a block or longer (the
    /// plain transposes could take the pieces between its splits): one
    /// pass over the whole axis measured faster, f32[256,256,256]
    /// row-major into `{1,0,2:T(8,128)}` 1.30 times a plain copy against
    /// 2.15 through cache-sized intermediates, its way back 2.73 against
    /// 3.08 (2-vCPU AMD EPYC, Zen 3, medians of 3 alternating runs of
    /// `relayout_matrix --reps 5`, under load).
    pub(crate) fn find(plan: &Plan, element_size: usize) -> Option<Self> {
        Self::find_with(plan, element_size, false)
    }

    /// [`find`](Self::find), and where `large`, the plain transposes of
    /// 4-byte elements whose rows on both sides are whole lines apart:
    /// their blocks walked in regions (`x86/regions.rs`) rather than by the
    /// streaming transpose's bands. Measured on a 2-core AMD EPYC (Zen 4),
    /// `relayout_matrix --size large --reps 7`, times the faster copy,
    /// three alternating runs, against the streaming transpose: f32[4096,4096]
    /// row-major into column-major 1.37–1.62 against 1.32–1.51, back
    /// 1.48–1.50 against 1.38–1.79, column-major into rows padded by 64
    /// elements 1.31–1.39 against 1.36–1.47; f32[256,256,256] row-major into
    /// `{1,0,2}` 1.12–1.49 against 1.34–1.52, back (source rows 256 KiB
    /// apart) 1.75–1.96 against 2.09–2.40.
    pub(crate) fn find_for(plan: &Plan, element_size: usize, large: bool) -> Option<Self> {
        Self::find_with(plan, element_size, large)
    }

    /// [`find`](Self::find), with the plain transposes on lines if `plain`.
    fn find_with(plan: &Plan, element_size: usize, plain: bool) -> Option<Self> {
        let plan = plan.in_units(element_size, UNIT)?;
        let dims = &plan.dims;
        let p_lo = dims.len().checked_sub(1)?;
        if dims[p_lo].dst != 1 || dims[p_lo].src == 1 {
            return None;
        }
        let q_lo = (0..p_lo).find(|&i| dims[i].src == 1)?;
        let block = i64::try_from(BLOCK).ok()?;
        let (p, q, outer) = split_axes(dims, p_lo, q_lo, block)?;
        let line = i64::try_from(BLOCK).ok()?;
        let on_lines = [p.lo.src, q.lo.dst, plan.src_offset, plan.dst_offset]
            .iter()
            .all(|units| units % line == 0);
        let is_plain = p.is_single() && q.is_single();
        if is_plain && !(plain && element_size == UNIT && on_lines) {
            return None;
        }
        Some(Self {
            outer,
            src_offset: plan.src_offset,
            dst_offset: plan.dst_offset,
            src_p: Rows::new(&p, |d| d.src)?,
            dst_q: Rows::new(&q, |d| d.dst)?,
            plain: is_plain,
        })
    }

    /// Whether the transpose takes buffers `src` and `dst`: a plain one
    /// ([`find_for`](Self::find_for)) only where both start on a line
    /// (its rows then all start on lines; elsewhere the streaming
    /// transpose, whose blocks realign, takes it).
    pub(crate) fn takes(&self, src: &[u8], dst: &[u8]) -> bool {
        let on_line = |bytes: &[u8]| bytes.as_ptr().addr().is_multiple_of(64);
        !self.plain || (on_line(src) && on_line(dst))
    }

    /// Copies the plan's elements from `src` to `dst` (both validated),
    /// with streaming stores if `large`: for each index of the outer
    /// dimensions, the transpose of the rows from that index's lowest
    /// ones on.
    pub(crate) fn copy(&self, src: &[u8], dst: &mut [u8], large: bool) {
        let (src, dst) = (src.as_chunks::<UNIT>().0, dst.as_chunks_mut::<UNIT>().0);
        let (src_p, dst_q) = (&self.src_p, &self.dst_q);
        // Each outer index's transpose runs once the next one's source
        // start is known (its first lines prefetched at the end).
        let mut pending: Option<(usize, usize)> = None;
        let mut run = |(s, d): (usize, usize), next: Option<&[[u8; UNIT]]>| {
            if let (Some(src), Some(dst)) = (src.get(s..), dst.get_mut(d..)) {
                transpose(src, dst, (src_p, dst_q), large, next);
            }
        };
        for_each_outer(&self.outer, self.src_offset, self.dst_offset, |s, d| {
            let here = (at(s + src_p.shift), at(d + dst_q.shift));
            if let Some(before) = pending.replace(here) {
                run(before, src.get(here.0..));
            }
        });
        if let Some(last) = pending {
            run(last, None);
        }
    }
}

/// Copies element `q` of every source row `p` (starting at `src_p[p]`)
/// into element `p` of destination row `q` (starting at `dst_q[q]`):
/// the whole blocks with register transposes where the target has them,
/// the rest element by element.
fn transpose(
    src: &[[u8; UNIT]],
    dst: &mut [[u8; UNIT]],
    (src_p, dst_q): (&Rows, &Rows),
    large: bool,
    next: Option<&[[u8; UNIT]]>,
) {
    let (src_rows, dst_rows) = (&src_p.offsets[..], &dst_q.offsets[..]);
    let (p_len, q_len) = (src_rows.len(), dst_rows.len());
    let (p_full, q_full) = (p_len - p_len % BLOCK, q_len - q_len % BLOCK);
    let grid = Grid {
        src_rows: &src_rows[..p_full],
        dst_rows: &dst_rows[..q_full],
        src_max: src_p.max,
        dst_max: dst_q.max,
        large,
        next,
    };
    if !register_blocks(src, dst, &grid) {
        for (qb, rows) in grid.dst_rows.chunks_exact(BLOCK).enumerate() {
            for (p, &from) in grid.src_rows.iter().enumerate() {
                let from = &src[from + qb * BLOCK..][..BLOCK];
                for (&to, &element) in rows.iter().zip(from) {
                    dst[to + p] = element;
                }
            }
        }
    }
    if p_full == p_len && q_full == q_len {
        return;
    }
    // The edges: the columns past the whole blocks, then the rows.
    for (q, &to) in dst_rows.iter().enumerate() {
        let first = if q < q_full { p_full } else { 0 };
        for (p, &from) in src_rows.iter().enumerate().skip(first) {
            dst[to + p] = src[from + q];
        }
    }
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
use super::x86::tile_blocks::transpose_blocks as register_blocks;

/// Without x86_64 the blocks go element by element.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
fn register_blocks(_: &[[u8; UNIT]], _: &mut [[u8; UNIT]], _: &Grid<'_>) -> bool {
    false
}
