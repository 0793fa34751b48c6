//! The types and helpers that the copy kernels and the ISA-specific
//! register kernels (`x86/`) share: staged tiles, 2-D transposes and
//! their done parts, streaming strips, the blocks of tile transposes,
//! validated offsets.

use crate::plan::Dim;

/// A validated element offset as a slice index.
pub(crate) fn at(offset: i64) -> usize {
    usize::try_from(offset).unwrap_or(usize::MAX)
}

/// The slice index `row · stride` elements after `base`: the start of
/// source row `row` of a transpose, whose rows may be any distance apart in
/// either direction (a negative `stride` walks a flipped source). Exact for
/// validated rows; `usize::MAX` (outside every slice) if the row would lie
/// outside the address space, as rows prefetched past the end may.
pub(crate) fn step(base: usize, row: usize, stride: i64) -> usize {
    i64::try_from(row)
        .ok()
        .and_then(|row| row.checked_mul(stride))
        .and_then(|delta| isize::try_from(delta).ok())
        .and_then(|delta| base.checked_add_signed(delta))
        .unwrap_or(usize::MAX)
}

/// Whether the size thresholds of the kernels are lowered so that small
/// arrays reach every kernel: under `cargo fuzz` (`cfg(fuzzing)`) and Miri.
pub(crate) const SMALL_THRESHOLDS: bool = cfg!(any(fuzzing, miri));

/// A 2-D transpose for the streaming kernel: `rows` source rows of `cols`
/// elements, the first at `src_base`, `row_stride_src` apart (negative for
/// a flipped source; see [`step`]); source
/// column `j` goes to the destination row of `rows` elements starting at
/// `dst_base + j · row_stride`.
#[derive(Debug, Clone, Copy)]
// Read by the x86_64 register kernels only.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) struct Strip<'a, const N: usize> {
    pub(crate) src: &'a [[u8; N]],
    pub(crate) src_base: usize,
    pub(crate) rows: usize,
    pub(crate) row_stride_src: i64,
    pub(crate) cols: usize,
    pub(crate) dst_base: usize,
    pub(crate) row_stride: usize,
}

/// A 2-D transpose: `a` contiguous in the destination (stride 1), `b` in
/// the source (stride 1), the first element at `src_base` and `dst_base`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Transpose {
    pub(crate) src_base: i64,
    pub(crate) dst_base: i64,
    pub(crate) a: Dim,
    pub(crate) b: Dim,
}

/// The part of a [`Transpose`] a block kernel wrote: source rows `rows`
/// (indices along `a`) of source columns `cols` (along `b`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Done {
    pub(crate) rows: core::ops::Range<usize>,
    pub(crate) cols: core::ops::Range<usize>,
}

impl Done {
    /// The parts of `t` left: the rows before and after `rows`, and the
    /// columns before and after `cols` of `rows` (the empty ones left out).
    pub(crate) fn rest(&self, t: &Transpose) -> impl Iterator<Item = Transpose> {
        let (a_size, b_size) = (at(t.a.size), at(t.b.size));
        let (rows, cols) = (self.rows.clone(), self.cols.clone());
        [
            (0..rows.start, 0..b_size),
            (rows.end..a_size, 0..b_size),
            (rows.clone(), 0..cols.start),
            (rows, cols.end..b_size),
        ]
        .into_iter()
        .filter(|(rows, cols)| !rows.is_empty() && !cols.is_empty())
        .map(|(rows, cols)| t.part(rows, cols))
    }
}

impl Transpose {
    /// Source rows `rows` of source columns `cols` of this transpose.
    fn part(&self, rows: core::ops::Range<usize>, cols: core::ops::Range<usize>) -> Self {
        // Within the validated transpose: exact in i64.
        let signed = |x: usize| i64::try_from(x).unwrap_or(i64::MAX);
        let (i, j) = (signed(rows.start), signed(cols.start));
        Self {
            src_base: self.src_base + i * self.a.src + j * self.b.src,
            dst_base: self.dst_base + i * self.a.dst + j * self.b.dst,
            a: Dim {
                size: signed(rows.len()),
                ..self.a
            },
            b: Dim {
                size: signed(cols.len()),
                ..self.b
            },
        }
    }
}

/// A staged tile to write transposed: `rows × cols` elements of `tile`
/// (row `i` at `i · row_len`), whose column `j` goes to the destination row
/// segment starting at `first_row + j · row_stride`.
#[derive(Debug, Clone, Copy)]
// Read by the x86_64 register kernels only.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) struct Blocks<'a, const N: usize> {
    pub(crate) tile: &'a [[u8; N]],
    pub(crate) row_len: usize,
    pub(crate) rows: usize,
    pub(crate) cols: usize,
    pub(crate) first_row: usize,
    pub(crate) row_stride: usize,
    /// The source rows of the next tile, to prefetch meanwhile.
    pub(crate) next: Option<NextRows<'a, N>>,
}

/// `rows` source rows of `len` elements, the first at `start`, `stride`
/// apart (either sign; see [`step`]).
#[derive(Debug, Clone, Copy)]
// Read by the x86_64 register kernels only.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) struct NextRows<'a, const N: usize> {
    pub(crate) src: &'a [[u8; N]],
    pub(crate) start: usize,
    pub(crate) stride: i64,
    pub(crate) rows: usize,
    pub(crate) len: usize,
}

/// The bytes of the units the tile transposes move (`tile_transpose.rs`).
pub(crate) const UNIT: usize = 4;

/// Units a block has along both sides: one 64-byte line of each row.
pub(crate) const BLOCK: usize = 64 / UNIT;

/// The whole blocks of a tile transpose: `src_rows` and `dst_rows` (see
/// `tile_transpose::transpose`) are multiples of [`BLOCK`] long; `large` says whether
/// to write with streaming stores; `next` is the source of the grid the
/// caller transposes next (the same rows from another start), whose first
/// lines a large relayout prefetches while it ends this one.
#[derive(Debug, Clone, Copy)]
// `large` is read by the x86_64 register kernels only.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) struct Grid<'a> {
    pub(crate) src_rows: &'a [usize],
    pub(crate) dst_rows: &'a [usize],
    /// At least the largest of `src_rows` and of `dst_rows` (those of the
    /// whole axes, edges included, worked out with the plan).
    pub(crate) src_max: usize,
    pub(crate) dst_max: usize,
    pub(crate) large: bool,
    pub(crate) next: Option<&'a [[u8; UNIT]]>,
}

impl Grid<'_> {
    /// Whether every source row piece of the whole blocks (units from
    /// `q0` to `q0 + BLOCK` of the rows `src_rows`, for the whole blocks
    /// along `q`) and every destination row piece (likewise) lies inside
    /// buffers of `src_len` and `dst_len` units: whether the farthest row
    /// ends inside, on each side.
    // Read by the x86_64 register kernels only.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) fn inside(&self, src_len: usize, dst_len: usize) -> bool {
        let ends = |rows: &[usize], max: usize, len: usize, limit: usize| {
            rows.is_empty() || max.checked_add(len).is_some_and(|end| end <= limit)
        };
        ends(self.src_rows, self.src_max, self.dst_rows.len(), src_len)
            && ends(self.dst_rows, self.dst_max, self.src_rows.len(), dst_len)
    }
}
