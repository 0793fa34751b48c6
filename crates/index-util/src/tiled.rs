//! [`TiledLayout`]: the buffer of an array under any XLA layout — tiled
//! (XLA's "Tiled layout" document), classically padded, or plain — as a
//! list of positions, each holding one logical element or padding.

use layout_util::{is_padded, padded_dimensions};
use schema::{COMBINE_DIMENSION, Layout, PrimitiveType, Shape};

use crate::{IndexError, PhysicalLayout};

/// The buffer of an array shape under its layout, tiles included.
///
/// XLA's tiling (the "Tiled layout" document, and
/// `LayoutUtil::LinearIndexForNestedTiling`): start from the physical
/// dimensions, most major first. Each tile `T(t1,...,tr)` in turn applies to
/// the `r` most minor dimensions of the previous result (leading
/// dimensions of size 1 are added when there are fewer than `r`): a `*`
/// entry combines its dimension into the next more minor one (sizes
/// multiply, row-major), then each remaining dimension `d` tiled by `t`
/// becomes `ceil(d / t)` tile indices, and the `t`-sized within-tile
/// dimensions follow them, in order. The final dimensions are laid out
/// row-major; positions whose index falls outside a dimension it was cut
/// from are padding. A layout without tiles is the plain (or classically
/// padded) layout, so one type serves every layout.
///
/// The buffer holds [`buffer_len`](Self::buffer_len) elements: the
/// positions of the tiling, rounded up (for a tiled layout) to the layout's
/// `tail_padding_alignment_in_elements` (`L(n)`), which is exactly what
/// XLA's `ShapeUtil::ArraySize` allocates (XLA ignores `L(n)` without
/// tiles, and so does this); see
/// [`buffer_size_in_bytes`](Self::buffer_size_in_bytes) for bytes with
/// `E(n)` packing.
///
/// XLA's own `IndexUtil` functions
/// ([`multidimensional_index_to_linear_index`](crate::multidimensional_index_to_linear_index)
/// and friends, [`PhysicalLayout`]) ignore tiles; this is the type for
/// tiled buffers.
///
/// XLA's figure 1, `f32[3,5]{1,0:T(2,2)}`, row-major elements 0..15 in 2x2
/// tiles (`.` is padding):
///
/// ```
/// use index_util::TiledLayout;
/// let shape: schema::Shape = "f32[3,5]{1,0:T(2,2)}".parse().unwrap();
/// let layout = TiledLayout::new(&shape).unwrap();
/// let mut cells = Vec::new();
/// layout.for_each_position(|_, element| {
///     cells.push(element.map_or(".".to_owned(), |e| e.to_string()));
/// });
/// assert_eq!(
///     cells.join(" "),
///     "0 1 5 6 2 3 7 8 4 . 9 . 10 11 . . 12 13 . . 14 . . ."
/// );
/// assert_eq!(layout.buffer_len(), 24);
/// // The document's worked example: element (2,3) is at 17, and back.
/// assert_eq!(layout.position(&[2, 3]).unwrap(), 17);
/// assert_eq!(layout.logical(17).unwrap(), Some(vec![2, 3]));
/// assert_eq!(layout.logical(9).unwrap(), None);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TiledLayout {
    /// The logical dimension sizes.
    dimensions: Vec<i64>,
    /// The logical dimension at each physical position, most major first.
    major_to_minor: Vec<usize>,
    /// The physical extents (classic padding included), most major first.
    extents: Vec<i64>,
    /// The tiling levels, in the order they apply.
    levels: Vec<Level>,
    /// The sizes of the final (row-major) dimensions of the buffer.
    final_dims: Vec<i64>,
    /// The product of `final_dims`: positions before tail padding.
    tiled_len: i64,
    /// `tiled_len` rounded up to the tail padding alignment.
    buffer_len: i64,
    /// Bits per element in the buffer (`E(n)`, or the type's bytes × 8).
    element_bits: i64,
    /// The fast iteration plan, when no tile has a `*`.
    linear: Option<LinearPlan>,
}

/// One tile applied to the dimensions of the previous level.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Level {
    /// The tile as XLA prints it, e.g. `(8,128)`.
    text: String,
    /// The tile's dimensions (`*` as [`COMBINE_DIMENSION`]).
    tile: Vec<i64>,
    /// Leading size-1 dimensions added before tiling.
    added: usize,
    /// Dimensions (after `added`) left as they are, most major first.
    kept: usize,
    /// The tiled dimensions, most major first.
    groups: Vec<Group>,
}

/// Input dimensions combined by `*` into one, tiled by `tile`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Group {
    /// The sizes of the combined input dimensions, most major first (one
    /// unless the tile has `*` entries).
    sizes: Vec<i64>,
    /// Their product.
    size: i64,
    tile: i64,
    /// `ceil(size / tile)`.
    count: i64,
}

/// What iteration in buffer order needs: per final dimension of size
/// above 1 (`active`; the others always hold index 0), its weight in the
/// row-major logical index; and the values that must stay below a limit
/// (dimensions cut into padded tiles), as weights over those final
/// coordinates. Every intermediate index is a sum of final coordinates
/// times such weights when no tile combines dimensions. At most 63 final
/// dimensions have size 2 or more (their product fits in `i64`), so the
/// plan stays small at any rank.
#[derive(Debug, Clone, PartialEq, Eq)]
struct LinearPlan {
    active: Vec<usize>,
    row_major: Vec<i64>,
    checks: Vec<Check>,
}

/// Whether [`TiledLayout::resolve`] requires every position inside the
/// buffer XLA allocates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Positions {
    Checked,
    Unchecked,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Check {
    weights: Vec<i64>,
    limit: i64,
}

impl TiledLayout {
    /// Resolves the buffer of `shape`.
    ///
    /// # Errors
    ///
    /// As [`PhysicalLayout::new`] (not an array, no or an invalid layout, a
    /// negative dimension); [`IndexError::UnsupportedTiledLayout`] for tiles
    /// combined with classic padding or split configs, a `*` as the most
    /// minor entry of a tile, or later tiles that pad beyond the first
    /// tile's positions aligned to `L(n)` (XLA's `ArraySize` allocates only
    /// those, while its index function addresses past them);
    /// [`IndexError::Overflow`] if the buffer has more than `i64::MAX`
    /// elements or bits.
    pub fn new(shape: &Shape) -> Result<Self, IndexError> {
        Self::resolve(shape, Positions::Checked)
    }

    /// The bytes XLA allocates for `shape` (`ShapeUtil::ArraySize`): as
    /// [`buffer_size_in_bytes`](Self::buffer_size_in_bytes), and also for
    /// layouts whose later tiles pad beyond the first tile's positions,
    /// which [`new`](Self::new) refuses because their positions would lie
    /// past that allocation; XLA sizes them by the first tile alone.
    ///
    /// `shape_util::array_size` is this function for crates above
    /// index-util (shape-util's crate documentation lists every size
    /// function and what it counts). A buffer of `shape` as a Rust slice
    /// has this many bytes: convert it with `usize::try_from` where the
    /// slice is allocated or checked.
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new), except for later tiles that pad further.
    ///
    /// ```
    /// use index_util::TiledLayout;
    ///
    /// let shape = "f32[3,5]{1,0:T(2,2)(3)}".parse().unwrap();
    /// // (3) would pad each 2x2 tile to 6 positions; XLA allocates 2x3
    /// // tiles of 4 f32.
    /// assert!(TiledLayout::new(&shape).is_err());
    /// assert_eq!(TiledLayout::array_size(&shape).unwrap(), 96);
    /// let packed = "s4[10,200]{1,0:T(8,128)(4,1)E(4)}".parse().unwrap();
    /// assert_eq!(TiledLayout::array_size(&packed).unwrap(), 2048);
    /// ```
    pub fn array_size(shape: &Shape) -> Result<i64, IndexError> {
        Self::resolve(shape, Positions::Unchecked).map(|layout| layout.buffer_size_in_bytes())
    }

    /// [`new`](Self::new), or with `Positions::Unchecked` only the sizes
    /// (the positions of later tiles may then pass the buffer).
    fn resolve(shape: &Shape, positions: Positions) -> Result<Self, IndexError> {
        let physical = PhysicalLayout::new(shape)?;
        let layout = supported_layout(shape)?;
        let major_to_minor: Vec<usize> = physical.minor_to_major().iter().rev().copied().collect();
        let padded = padded_dimensions(shape)?;
        let extents: Vec<i64> = major_to_minor.iter().map(|&d| padded[d]).collect();
        let alignment = tail_alignment(layout);
        let Tiling {
            levels,
            final_dims: dims,
            allocated,
        } = tile_levels(shape, layout, &extents, positions)?;
        let tiled_len = checked_product(&dims).ok_or_else(|| overflow(shape))?;
        // The first tile's positions, aligned (for checked positions, the
        // later tiles' positions aligned are the same number).
        let buffer_len = match allocated {
            Some(allocated) => allocated,
            None => aligned(shape, tiled_len, alignment)?,
        };
        let element_bits = element_bits(shape, layout);
        // XLA's `ValidateShapeSize` bounds the bytes, not the bits: the bit
        // count of `s8[2^60]` passes `i64::MAX` while its bytes fit.
        if i64::try_from(packed_bytes(buffer_len, element_bits)).is_err() {
            return Err(IndexError::ByteOverflow {
                shape: Box::new(shape.clone()),
            });
        }
        let mut tiled = Self {
            dimensions: shape.dimensions.clone(),
            major_to_minor,
            extents,
            levels,
            final_dims: dims,
            tiled_len,
            buffer_len,
            element_bits,
            linear: None,
        };
        if positions == Positions::Checked {
            tiled.linear = tiled.linear_plan();
        }
        Ok(tiled)
    }

    /// The number of dimensions of the array.
    pub fn rank(&self) -> usize {
        self.dimensions.len()
    }

    /// The logical dimension sizes.
    pub fn dimensions(&self) -> &[i64] {
        &self.dimensions
    }

    /// Whether the layout has tiles.
    pub fn is_tiled(&self) -> bool {
        !self.levels.is_empty()
    }

    /// The tiles, in the order they apply (`*` as
    /// [`schema::COMBINE_DIMENSION`]).
    pub fn tiles(&self) -> impl ExactSizeIterator<Item = &[i64]> {
        self.levels.iter().map(|level| level.tile.as_slice())
    }

    /// The dimensions the buffer is laid out in row-major order after all
    /// tiles: for `f32[3,5]{1,0:T(2,2)}`, `[2, 3, 2, 2]` (2x3 tiles of 2x2).
    /// Without tiles, the physical (padded) extents, most major first.
    pub fn buffer_dimensions(&self) -> &[i64] {
        &self.final_dims
    }

    /// The dimensions of the first tiling level, for drawing tile outlines:
    /// the tile counts and the first tile's shape, as
    /// [`buffer_dimensions`](Self::buffer_dimensions) after only the first
    /// tile. `None` without tiles.
    ///
    /// ```
    /// let shape: schema::Shape = "bf16[10,200]{1,0:T(8,128)(2,1)}".parse().unwrap();
    /// let layout = index_util::TiledLayout::new(&shape).unwrap();
    /// assert_eq!(layout.first_tile_dimensions(), Some(vec![2, 2, 8, 128]));
    /// assert_eq!(layout.buffer_dimensions(), [2, 2, 4, 128, 2, 1]);
    /// ```
    pub fn first_tile_dimensions(&self) -> Option<Vec<i64>> {
        self.levels.first().map(|level| level.output(&self.extents))
    }

    /// The number of element positions in the buffer, tile padding and
    /// tail padding included (XLA's `ShapeUtil::ArraySize` in elements;
    /// [`buffer_size_in_bytes`](Self::buffer_size_in_bytes) in bytes).
    pub fn buffer_len(&self) -> i64 {
        self.buffer_len
    }

    /// The bits each element takes: the layout's `element_size_in_bits`
    /// (`E(n)`), else the type's byte width × 8.
    pub fn element_size_in_bits(&self) -> i64 {
        self.element_bits
    }

    /// The bytes of the buffer: `ceil(buffer_len × bits / 8)`, exactly XLA's
    /// `ShapeUtil::ArraySize` for a tiled layout (and the classic padded
    /// buffer, per element size, otherwise): [`array_size`](Self::array_size)
    /// of the shape, for a layout already resolved.
    ///
    /// ```
    /// use index_util::TiledLayout;
    /// let size = |text: &str| TiledLayout::new(&text.parse().unwrap()).unwrap().buffer_size_in_bytes();
    /// // One (8,128) tile of bf16 per 8 rows and 128 columns: 2 x 2 tiles.
    /// assert_eq!(size("bf16[10,200]{1,0:T(8,128)(2,1)}"), 8192);
    /// // Seven 4-bit elements in one tile of 8: 4 bytes.
    /// assert_eq!(size("s4[7]{0:T(8)E(4)}"), 4);
    /// ```
    pub fn buffer_size_in_bytes(&self) -> i64 {
        // `new` checked that the byte count fits.
        i64::try_from(packed_bytes(self.buffer_len, self.element_bits)).unwrap_or(i64::MAX)
    }

    /// The byte holding the element at `position`, and the bit offset of
    /// the element in it (0 unless elements are narrower than a byte; XLA
    /// packs sub-byte elements from the least significant bit).
    pub fn byte_offset(&self, position: i64) -> (i64, u32) {
        // In i128: the bit offset may pass `i64::MAX` where the byte fits.
        let bits = i128::from(position) * i128::from(self.element_bits);
        (
            i64::try_from(bits / 8).unwrap_or(i64::MAX),
            u32::try_from(bits % 8).unwrap_or_default(),
        )
    }

    /// The position in the buffer of the element at `index`.
    ///
    /// # Errors
    ///
    /// [`IndexError::RankMismatch`]; [`IndexError::IndexOutOfBounds`].
    ///
    /// ```
    /// // XLA's document, figure 2: f32[4,8]{1,0:T(2,4)(2,1)}.
    /// let shape: schema::Shape = "f32[4,8]{1,0:T(2,4)(2,1)}".parse().unwrap();
    /// let layout = index_util::TiledLayout::new(&shape).unwrap();
    /// assert_eq!(layout.position(&[1, 0]).unwrap(), 1);
    /// assert_eq!(layout.position(&[0, 1]).unwrap(), 2);
    /// assert_eq!(layout.position(&[0, 4]).unwrap(), 8);
    /// ```
    pub fn position(&self, index: &[i64]) -> Result<i64, IndexError> {
        if index.len() != self.rank() {
            return Err(IndexError::RankMismatch {
                len: index.len(),
                rank: self.rank(),
            });
        }
        if let Some(d) = (0..self.rank()).find(|&d| index[d] < 0 || index[d] >= self.dimensions[d])
        {
            return Err(IndexError::IndexOutOfBounds {
                index: index.to_vec(),
                dimension: d,
                size: self.dimensions[d],
            });
        }
        let mut dims = self.extents.clone();
        let mut idx: Vec<i64> = self.major_to_minor.iter().map(|&d| index[d]).collect();
        for level in &self.levels {
            idx = level.forward(&dims, &idx);
            dims = level.output(&dims);
        }
        // In bounds: the row-major position is below `tiled_len`.
        Ok(idx.iter().zip(&dims).fold(0, |acc, (&i, &d)| acc * d + i))
    }

    /// The multi-dimensional index of the element at `position`, or `None`
    /// for a padding position.
    ///
    /// # Errors
    ///
    /// [`IndexError::LinearIndexOutOfBounds`] if `position` is outside the
    /// buffer.
    pub fn logical(&self, position: i64) -> Result<Option<Vec<i64>>, IndexError> {
        if position < 0 || position >= self.buffer_len {
            return Err(IndexError::LinearIndexOutOfBounds {
                linear: position,
                size: self.buffer_len,
            });
        }
        if position >= self.tiled_len {
            return Ok(None);
        }
        let mut idx = vec![0; self.final_dims.len()];
        let mut rest = position;
        for (i, &d) in idx.iter_mut().zip(&self.final_dims).rev() {
            *i = rest % d;
            rest /= d;
        }
        for level in self.levels.iter().rev() {
            match level.backward(&idx) {
                Some(previous) => idx = previous,
                None => return Ok(None),
            }
        }
        let mut index = vec![0; self.rank()];
        for (&d, &i) in self.major_to_minor.iter().zip(&idx) {
            // Classic padding: inside the extent, past the size.
            if i >= self.dimensions[d] {
                return Ok(None);
            }
            index[d] = i;
        }
        Ok(Some(index))
    }

    /// The row-major index (over the logical dimensions) of the element at
    /// `position`, or `None` for padding.
    ///
    /// # Errors
    ///
    /// As [`logical`](Self::logical).
    pub fn logical_row_major(&self, position: i64) -> Result<Option<i64>, IndexError> {
        Ok(self.logical(position)?.map(|index| self.row_major(&index)))
    }

    /// The row-major index of a valid multi-dimensional index.
    fn row_major(&self, index: &[i64]) -> i64 {
        index
            .iter()
            .zip(&self.dimensions)
            .fold(0, |acc, (&i, &d)| acc * d + i)
    }

    /// Calls `visitor(position, element)` for every position of the buffer
    /// in order, `element` being the row-major index of the logical element
    /// stored there or `None` for padding. Incremental (no division per
    /// position) unless a tile combines dimensions with `*`.
    ///
    /// ```
    /// // XLA's figure 2, first 2x4 tile: pairs of rows interleaved.
    /// let shape: schema::Shape = "f32[4,8]{1,0:T(2,4)(2,1)}".parse().unwrap();
    /// let mut order = Vec::new();
    /// index_util::TiledLayout::new(&shape).unwrap().for_each_position(|_, e| order.push(e.unwrap()));
    /// assert_eq!(order[..8], [0, 8, 1, 9, 2, 10, 3, 11]);
    /// ```
    pub fn for_each_position(&self, mut visitor: impl FnMut(i64, Option<i64>)) {
        match &self.linear {
            Some(plan) if self.tiled_len > 0 => self.run_linear(plan, &mut visitor),
            Some(_) => {}
            None => {
                for position in 0..self.tiled_len {
                    visitor(position, self.logical_row_major(position).ok().flatten());
                }
            }
        }
        for position in self.tiled_len..self.buffer_len {
            visitor(position, None);
        }
    }

    /// The iteration plan over the final coordinates, if every level is
    /// linear (no `*`).
    fn linear_plan(&self) -> Option<LinearPlan> {
        let active: Vec<usize> = (0..self.final_dims.len())
            .filter(|&c| self.final_dims[c] > 1)
            .collect();
        let a = active.len();
        // weights[j][q]: the weight of active final coordinate q in
        // dimension j of the current level, going backwards from the final
        // dimensions; an empty row is all zeros (no active coordinate
        // reaches it), so a high rank of size-1 dimensions costs no more.
        let mut weights: Vec<Vec<i64>> = vec![Vec::new(); self.final_dims.len()];
        for (q, &c) in active.iter().enumerate() {
            weights[c] = (0..a).map(|r| i64::from(r == q)).collect();
        }
        let full = |row: &[i64]| -> Vec<i64> {
            if row.is_empty() {
                vec![0; a]
            } else {
                row.to_vec()
            }
        };
        let mut checks = Vec::new();
        for level in self.levels.iter().rev() {
            if level.groups.iter().any(|g| g.sizes.len() != 1) {
                return None;
            }
            let (kept, n) = (level.kept, level.groups.len());
            let mut previous: Vec<Vec<i64>> = weights[..kept].to_vec();
            for (g, group) in level.groups.iter().enumerate() {
                let (outer, inner) = (&weights[kept + g], &weights[kept + n + g]);
                let merged: Vec<i64> = if outer.is_empty() && inner.is_empty() {
                    Vec::new()
                } else {
                    full(outer)
                        .iter()
                        .zip(&full(inner))
                        .map(|(&o, &i)| o.wrapping_mul(group.tile).wrapping_add(i))
                        .collect()
                };
                if group.count.wrapping_mul(group.tile) != group.size {
                    checks.push(Check {
                        weights: full(&merged),
                        limit: group.size,
                    });
                }
                previous.push(merged);
            }
            // The added leading dimensions have size 1: the check above
            // keeps them at 0, so they drop out.
            previous.drain(kept..kept + level.added);
            weights = previous;
        }
        let mut rm_strides = vec![0_i64; self.rank()];
        let mut stride = 1_i64;
        for d in (0..self.rank()).rev() {
            rm_strides[d] = stride;
            stride = stride.wrapping_mul(self.dimensions[d]);
        }
        let mut row_major = vec![0_i64; a];
        for ((&d, w), &extent) in self.major_to_minor.iter().zip(&weights).zip(&self.extents) {
            for (r, &wc) in row_major.iter_mut().zip(w) {
                *r = r.wrapping_add(wc.wrapping_mul(rm_strides[d]));
            }
            if extent > self.dimensions[d] {
                checks.push(Check {
                    weights: full(w),
                    limit: self.dimensions[d],
                });
            }
        }
        Some(LinearPlan {
            active,
            row_major,
            checks,
        })
    }

    /// The odometer over the final coordinates (those of size 1 left out):
    /// the two most minor ones run in tight loops (TPU's `(2,1)` packing
    /// makes the most minor run only 2 long), the innermost one's valid
    /// positions a prefix `0..bound` of its range.
    fn run_linear(&self, plan: &LinearPlan, visitor: &mut impl FnMut(i64, Option<i64>)) {
        // Coordinates are numbered among the active ones.
        let sizes: Vec<i64> = plan.active.iter().map(|&c| self.final_dims[c]).collect();
        let numbers: Vec<usize> = (0..sizes.len()).collect();
        let (inner, mid, outer) = match numbers.as_slice() {
            [] => {
                // One position: every coordinate is 0.
                let valid = plan.checks.iter().all(|check| check.limit > 0);
                visitor(0, valid.then_some(0));
                return;
            }
            [inner] => (*inner, None, &[][..]),
            [outer @ .., mid, inner] => (*inner, Some(*mid), outer),
        };
        let rows = Rows::new(plan, &sizes, inner, mid);
        let mut odometer = Odometer {
            coords: vec![0_i64; outer.len()],
            rm: 0,
            values: vec![0_i64; plan.checks.len()],
        };
        let mut row_values = odometer.values.clone();
        let mut position = 0_i64;
        loop {
            if plan.checks.is_empty() {
                // No padding anywhere: a plain two-level loop.
                position = rows.plain(odometer.rm, position, visitor);
            } else {
                row_values.copy_from_slice(&odometer.values);
                position = rows.checked(odometer.rm, &mut row_values, position, visitor);
            }
            if !odometer.step(plan, outer, &sizes) {
                return;
            }
        }
    }
}

/// The two most minor active coordinates of [`TiledLayout::run_linear`]:
/// `mid_len` rows of `inner_len` positions each, what one step of the
/// outer coordinates covers.
struct Rows<'a> {
    checks: &'a [Check],
    inner: usize,
    inner_len: i64,
    inner_rm: i64,
    mid_len: i64,
    mid_rm: i64,
    /// The middle coordinate's weight in each check (0 without one).
    mid_weights: Vec<i64>,
}

impl<'a> Rows<'a> {
    /// The rows of `plan` over the active `sizes`, with coordinates `inner`
    /// and `mid` (none for a single active coordinate).
    fn new(plan: &'a LinearPlan, sizes: &[i64], inner: usize, mid: Option<usize>) -> Self {
        let (mid_len, mid_rm) = mid.map_or((1, 0), |m| (sizes[m], plan.row_major[m]));
        let mid_weights: Vec<i64> = plan
            .checks
            .iter()
            .map(|check| mid.map_or(0, |m| check.weights[m]))
            .collect();
        Self {
            checks: &plan.checks,
            inner,
            inner_len: sizes[inner],
            inner_rm: plan.row_major[inner],
            mid_len,
            mid_rm,
            mid_weights,
        }
    }

    /// Visits the rows from row-major index `rm` and `position` on, when no
    /// check can fail (every position an element); the next position.
    #[inline(always)]
    fn plain(&self, rm: i64, mut position: i64, visitor: &mut impl FnMut(i64, Option<i64>)) -> i64 {
        let mut row_rm = rm;
        for _ in 0..self.mid_len {
            let mut element = row_rm;
            for _ in 0..self.inner_len {
                visitor(position, Some(element));
                element = element.wrapping_add(self.inner_rm);
                position += 1;
            }
            row_rm = row_rm.wrapping_add(self.mid_rm);
        }
        position
    }

    /// Visits the rows from row-major index `rm` and `position` on, the
    /// checks' values at the first row in `row_values` (stepped along the
    /// rows); the next position.
    #[inline(always)]
    fn checked(
        &self,
        rm: i64,
        row_values: &mut [i64],
        mut position: i64,
        visitor: &mut impl FnMut(i64, Option<i64>),
    ) -> i64 {
        let mut row_rm = rm;
        for _ in 0..self.mid_len {
            let bound = self.bound(row_values);
            let mut element = row_rm;
            for _ in 0..bound {
                visitor(position, Some(element));
                element = element.wrapping_add(self.inner_rm);
                position += 1;
            }
            for _ in bound..self.inner_len {
                visitor(position, None);
                position += 1;
            }
            row_rm = row_rm.wrapping_add(self.mid_rm);
            for (value, &w) in row_values.iter_mut().zip(&self.mid_weights) {
                *value = value.wrapping_add(w);
            }
        }
        position
    }

    /// How far the inner coordinate may go before a check fails, the
    /// checks' values at the row's start being `row_values`.
    #[inline(always)]
    fn bound(&self, row_values: &[i64]) -> i64 {
        let mut bound = self.inner_len;
        for (check, &value) in self.checks.iter().zip(row_values) {
            let room = check.limit - value;
            let w = check.weights[self.inner];
            let allowed = if room <= 0 {
                0
            } else if w == 0 {
                self.inner_len
            } else {
                room / w + i64::from(room % w != 0)
            };
            bound = bound.min(allowed);
        }
        bound
    }
}

/// The outer active coordinates of [`TiledLayout::run_linear`], with the
/// row-major index and each check's value where they stand.
struct Odometer {
    coords: Vec<i64>,
    rm: i64,
    values: Vec<i64>,
}

impl Odometer {
    /// Steps the `outer` coordinates (of `sizes`), most minor first; false
    /// past the last.
    #[inline(always)]
    fn step(&mut self, plan: &LinearPlan, outer: &[usize], sizes: &[i64]) -> bool {
        let mut level = outer.len();
        loop {
            if level == 0 {
                return false;
            }
            level -= 1;
            let c = outer[level];
            self.coords[level] += 1;
            self.rm = self.rm.wrapping_add(plan.row_major[c]);
            for (value, check) in self.values.iter_mut().zip(&plan.checks) {
                *value = value.wrapping_add(check.weights[c]);
            }
            if self.coords[level] < sizes[c] {
                return true;
            }
            let back = sizes[c];
            self.coords[level] = 0;
            self.rm = self.rm.wrapping_sub(plan.row_major[c].wrapping_mul(back));
            for (value, check) in self.values.iter_mut().zip(&plan.checks) {
                *value = value.wrapping_sub(check.weights[c].wrapping_mul(back));
            }
        }
    }
}

/// [`IndexError::UnsupportedTiledLayout`] of `shape`, for `reason`.
fn unsupported(shape: &Shape, reason: String) -> IndexError {
    IndexError::UnsupportedTiledLayout {
        shape: Box::new(shape.clone()),
        reason,
    }
}

/// [`IndexError::Overflow`] of `shape`.
fn overflow(shape: &Shape) -> IndexError {
    IndexError::Overflow {
        shape: Box::new(shape.clone()),
    }
}

/// The layout of `shape`, unless it has none or combines tiles with
/// classic padding or split configs.
fn supported_layout(shape: &Shape) -> Result<&Layout, IndexError> {
    let layout = shape
        .layout
        .as_deref()
        .ok_or_else(|| unsupported(shape, "no layout".to_owned()))?;
    let tiled = !layout.tiles.is_empty();
    if tiled && is_padded(shape) {
        return Err(unsupported(
            shape,
            "tiles combined with classic padding (padded_dimensions)".to_owned(),
        ));
    }
    if tiled && !layout.split_configs.is_empty() {
        return Err(unsupported(
            shape,
            "tiles combined with split configs".to_owned(),
        ));
    }
    Ok(layout)
}

/// The multiple the buffer's positions are rounded up to: `L(n)`, which
/// XLA's ArraySize applies to tiled layouts only.
fn tail_alignment(layout: &Layout) -> i64 {
    if layout.tiles.is_empty() {
        1
    } else {
        layout.tail_padding_alignment_in_elements.max(1)
    }
}

/// `len` rounded up to a multiple of `alignment`.
fn aligned(shape: &Shape, len: i64, alignment: i64) -> Result<i64, IndexError> {
    match len % alignment {
        0 => Some(len),
        rest => len.checked_add(alignment - rest),
    }
    .ok_or_else(|| overflow(shape))
}

/// The tiles of a layout applied to its physical extents.
struct Tiling {
    /// A level per tile, in order.
    levels: Vec<Level>,
    /// The dimensions after the last tile.
    final_dims: Vec<i64>,
    /// The positions XLA allocates for a tiled layout: the first tile's,
    /// aligned (none without tiles).
    allocated: Option<i64>,
}

/// The tiling of `layout` over `extents`. With `Positions::Checked`, a
/// later tile must address positions inside the first tile's allocation.
fn tile_levels(
    shape: &Shape,
    layout: &Layout,
    extents: &[i64],
    positions: Positions,
) -> Result<Tiling, IndexError> {
    let alignment = tail_alignment(layout);
    let mut dims = extents.to_vec();
    let mut levels = Vec::with_capacity(layout.tiles.len());
    let mut allocated = None;
    for tile in &layout.tiles {
        let level = Level::new(&tile.dimensions, tile.to_string(), &dims)
            .map_err(|reason| unsupported(shape, reason))?;
        dims = level.output(&dims);
        let len = checked_product(&dims).ok_or_else(|| overflow(shape))?;
        match allocated {
            Some(allocated) if len > allocated && positions == Positions::Checked => {
                return Err(unsupported(
                    shape,
                    format!(
                        "tile {} pads the buffer to {len} elements, but XLA allocates {allocated} (ShapeUtil::ArraySize counts only the first tile)",
                        level.text
                    ),
                ));
            }
            Some(_) => {}
            None => allocated = Some(aligned(shape, len, alignment)?),
        }
        levels.push(level);
    }
    Ok(Tiling {
        levels,
        final_dims: dims,
        allocated,
    })
}

/// The bits of one element: the layout's `E(n)`, else the element type's
/// width (0 for a type without one).
fn element_bits(shape: &Shape, layout: &Layout) -> i64 {
    match layout.element_size_in_bits {
        0 => PrimitiveType::try_from(shape.element_type)
            .ok()
            .and_then(PrimitiveType::byte_width)
            .map_or(0, |bytes| bytes * 8),
        bits => bits,
    }
}

impl Level {
    /// The level of `tile` over dimensions `dims` (most major first).
    fn new(tile: &[i64], text: String, dims: &[i64]) -> Result<Self, String> {
        if tile.last() == Some(&COMBINE_DIMENSION) {
            return Err(format!(
                "tile {text} ends with *, which has no more minor dimension to combine with"
            ));
        }
        let added = tile.len().saturating_sub(dims.len());
        let kept = dims.len() + added - tile.len();
        let mut groups = Vec::new();
        let mut sizes = Vec::new();
        let tiled = std::iter::repeat_n(1, added).chain(dims[kept..].iter().copied());
        for (size, &t) in tiled.zip(tile) {
            sizes.push(size);
            if t != COMBINE_DIMENSION {
                let size = checked_product(&sizes).ok_or_else(|| {
                    format!("tile {text} combines dimensions past i64::MAX elements")
                })?;
                // Validation made `t` positive.
                groups.push(Group {
                    sizes: std::mem::take(&mut sizes),
                    size,
                    tile: t,
                    count: size / t + i64::from(size % t != 0),
                });
            }
        }
        Ok(Self {
            text,
            tile: tile.to_vec(),
            added,
            kept,
            groups,
        })
    }

    /// The dimensions after this level.
    fn output(&self, dims: &[i64]) -> Vec<i64> {
        let mut out: Vec<i64> = dims[..self.kept].to_vec();
        out.extend(self.groups.iter().map(|g| g.count));
        out.extend(self.groups.iter().map(|g| g.tile));
        out
    }

    /// The index after this level of `idx` over `dims`.
    fn forward(&self, dims: &[i64], idx: &[i64]) -> Vec<i64> {
        let tiled = std::iter::repeat_n((1, 0), self.added).chain(
            dims[self.kept..]
                .iter()
                .copied()
                .zip(idx[self.kept..].iter().copied()),
        );
        let mut combined = Vec::with_capacity(self.groups.len());
        let mut value = 0_i64;
        for ((size, i), &t) in tiled.zip(&self.tile) {
            value = value * size + i;
            if t != COMBINE_DIMENSION {
                combined.push(value);
                value = 0;
            }
        }
        let mut out: Vec<i64> = idx[..self.kept].to_vec();
        out.extend(combined.iter().zip(&self.groups).map(|(&v, g)| v / g.tile));
        out.extend(combined.iter().zip(&self.groups).map(|(&v, g)| v % g.tile));
        out
    }

    /// The index before this level of `idx` (after it), or `None` if it is
    /// in this level's padding.
    fn backward(&self, idx: &[i64]) -> Option<Vec<i64>> {
        let n = self.groups.len();
        let kept = idx.len() - 2 * n;
        let mut out: Vec<i64> = Vec::with_capacity(kept + self.tile.len());
        out.extend_from_slice(&idx[..kept]);
        for (g, group) in self.groups.iter().enumerate() {
            let value = idx[kept + g] * group.tile + idx[kept + n + g];
            if value >= group.size {
                return None;
            }
            let start = out.len();
            let mut rest = value;
            for &size in group.sizes.iter().rev() {
                out.push(rest % size);
                rest /= size;
            }
            out[start..].reverse();
        }
        // The added leading dimensions (size 1) hold 0 here.
        out.drain(kept..kept + self.added);
        Some(out)
    }
}

/// The product of `values`, or `None` on overflow.
fn checked_product(values: &[i64]) -> Option<i64> {
    values.iter().try_fold(1_i64, |acc, &v| acc.checked_mul(v))
}

/// `ceil(positions × bits / 8)` in `i128`, where it cannot overflow.
fn packed_bytes(positions: i64, bits: i64) -> i128 {
    let total = i128::from(positions) * i128::from(bits);
    total.div_euclid(8) + i128::from(total.rem_euclid(8) != 0)
}
