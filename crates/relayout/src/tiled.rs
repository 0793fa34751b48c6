//! Tiled XLA layouts as pieces of strided views.
//!
//! XLA's tiling `T(a,b)(c,d)…` (its "Tiled layout" document) starts from
//! the physical dimensions (most major first); each tile of rank `r`
//! replaces the last `r` dimensions of the previous result (after
//! prepending dimensions of size 1 if there are fewer) by their tile counts
//! `⌈size / t⌉` followed by the tile's own dimensions `t`, and an index `e`
//! by `⌊e / t⌋` and `e mod t`. The buffer is the final dimensions in
//! row-major order; positions no index reaches are padding.
//!
//! Every logical dimension is thus a tree of splits whose leaves are final
//! dimensions, and an index is the sum of its leaf digits times their
//! weights (the product of the tile sizes divided off above them). The
//! range `[0, d)` of a dimension is a union of a few boxes (all full tiles,
//! then the partial one, level by level): in each box every leaf digit is
//! either fixed or runs over a prefix `[0, n)`. A product of such boxes,
//! one per dimension, is a pair of strided views of the same higher-rank
//! shape: one over the logical array, one over the tiled buffer. The
//! relayout engine copies each at full speed.

use index_util::PhysicalLayout;
use schema::{COMBINE_DIMENSION, Shape};

use super::RelayoutError;
use stride_util::StridedView;
use stride_util::ViewError;

/// The most pieces one tiled relayout is split into (each a strided copy).
const MAX_PIECES: usize = 1 << 16;

/// The most dimensions the tiles may make of a shape (a rank-4 shape with
/// three rank-4 tiles has 16).
const MAX_TILED_DIMS: usize = 64;

/// A node of a dimension's split tree.
#[derive(Debug, Clone, Copy)]
struct Node {
    /// The number of index values the node has (a tile count or a tile size).
    size: i64,
    /// What an index step of this node is worth in its logical dimension.
    weight: i64,
    /// `(tile size, outer child, inner child)` once split.
    split: Option<(i64, usize, usize)>,
}

/// An index range of a node: `[0, n)` or the single value `v`.
#[derive(Debug, Clone, Copy)]
enum Range {
    Prefix(i64),
    Single(i64),
}

/// One box of a logical dimension: the index is `base + Σ i·weight` over
/// the free digits; its tiled position is `position + Σ i·stride`.
#[derive(Debug, Clone, Default)]
struct DimBox {
    base: i64,
    position: i64,
    /// `(count, weight, tiled stride, final dimension)` of each free digit.
    free: Vec<(i64, i64, i64, usize)>,
}

/// A part `start..start + len` of logical dimension `dim`, `start` a
/// multiple of its [`Tiling::slab_step`] (several, along different
/// dimensions, cut out a box).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Slab {
    pub(crate) dim: usize,
    pub(crate) start: i64,
    pub(crate) len: i64,
}

/// A tiled array shape resolved into split trees.
#[derive(Debug, Clone)]
pub(crate) struct Tiling {
    nodes: Vec<Node>,
    /// The root of each tree and its logical dimension (`None` for the
    /// leading size-1 dimensions a tile of higher rank adds).
    roots: Vec<(usize, Option<usize>)>,
    /// The node of each final dimension, most major first.
    leaves: Vec<usize>,
    /// The row-major stride of each final dimension.
    strides: Vec<i64>,
    /// The number of positions of the final dimensions.
    positions: i64,
    /// The number of logical elements.
    elements: i64,
}

/// The split trees of a tiling while its tiles are applied.
struct Trees {
    nodes: Vec<Node>,
    roots: Vec<(usize, Option<usize>)>,
    /// The node of each current dimension, most major first.
    current: Vec<usize>,
}

impl Trees {
    /// One unsplit tree per physical dimension, most major first.
    fn of(physical: &PhysicalLayout) -> Self {
        let mut trees = Self {
            nodes: Vec::new(),
            roots: Vec::new(),
            current: Vec::new(),
        };
        for &d in physical.minor_to_major().iter().rev() {
            let id = trees.nodes.len();
            trees.current.push(id);
            trees.roots.push((id, Some(d)));
            trees.nodes.push(Node {
                size: physical.dimensions()[d],
                weight: 1,
                split: None,
            });
        }
        trees
    }

    /// Applies the tile `t` of `shape`: its last `t.len()` current
    /// dimensions (after prepending size-1 ones if there are fewer) split
    /// into tile counts followed by the tile's own dimensions.
    fn split(&mut self, shape: &Shape, t: &[i64]) -> Result<(), RelayoutError> {
        if t.contains(&COMBINE_DIMENSION) {
            return Err(unsupported(shape, "a combined (*) tile dimension"));
        }
        if t.iter().any(|&size| size <= 0) {
            return Err(unsupported(shape, "a tile dimension that is not positive"));
        }
        if self.current.len().max(t.len()) + t.len() > MAX_TILED_DIMS {
            return Err(unsupported(
                shape,
                &format!("tiling into more than {MAX_TILED_DIMS} dimensions"),
            ));
        }
        let nodes = &mut self.nodes;
        while self.current.len() < t.len() {
            self.current.insert(0, nodes.len());
            self.roots.insert(0, (nodes.len(), None));
            nodes.push(Node {
                size: 1,
                weight: 1,
                split: None,
            });
        }
        let first = self.current.len() - t.len();
        let mut inners = Vec::with_capacity(t.len());
        for (k, &size) in t.iter().enumerate() {
            let id = self.current[first + k];
            let node = nodes[id];
            let (outer, inner) = (nodes.len(), nodes.len() + 1);
            nodes.push(Node {
                size: node.size / size + i64::from(node.size % size != 0),
                weight: node
                    .weight
                    .checked_mul(size)
                    .ok_or_else(|| overflow(shape))?,
                split: None,
            });
            nodes.push(Node {
                size,
                weight: node.weight,
                split: None,
            });
            nodes[id].split = Some((size, outer, inner));
            self.current[first + k] = outer;
            inners.push(inner);
        }
        self.current.extend(inners);
        Ok(())
    }

    /// The tiling of `shape` once its tiles are applied: the final
    /// dimensions' row-major strides and the buffer's positions.
    fn finish(self, shape: &Shape, physical: &PhysicalLayout) -> Result<Tiling, RelayoutError> {
        let Self {
            nodes,
            roots,
            current,
        } = self;
        let mut strides = vec![0; current.len()];
        let mut positions: i64 = 1;
        for (stride, &id) in strides.iter_mut().zip(&current).rev() {
            *stride = positions;
            positions = positions
                .checked_mul(nodes[id].size)
                .ok_or_else(|| overflow(shape))?;
        }
        let elements = physical
            .dimensions()
            .iter()
            .try_fold(1_i64, |n, &d| n.checked_mul(d))
            .ok_or_else(|| overflow(shape))?;
        Ok(Tiling {
            nodes,
            roots,
            leaves: current,
            strides,
            positions,
            elements,
        })
    }
}

/// The error of a tiling of `shape` the pieces do not model.
fn unsupported(shape: &Shape, reason: &str) -> RelayoutError {
    RelayoutError::UnsupportedLayout {
        shape: Box::new(shape.clone()),
        reason: reason.to_owned(),
    }
}

/// The error of a tiled buffer of `shape` of more than `i64::MAX` positions.
fn overflow(shape: &Shape) -> RelayoutError {
    RelayoutError::View(ViewError::Overflow {
        what: "the tiled buffer",
        of: shape.human_string_with_layout(),
    })
}

impl Tiling {
    /// Resolves the tiles of `shape`; `None` if its layout has none.
    ///
    /// # Errors
    ///
    /// As [`PhysicalLayout::new`]; [`RelayoutError::UnsupportedLayout`] for
    /// a combined (`*`) tile dimension, classic padding or split configs
    /// with tiles, or more than [`MAX_TILED_DIMS`] tiled dimensions;
    /// [`ViewError::Overflow`] for a buffer of more than `i64::MAX`
    /// positions.
    pub(crate) fn new(shape: &Shape) -> Result<Option<Self>, RelayoutError> {
        let Some(layout) = shape.layout.as_deref().filter(|l| !l.tiles.is_empty()) else {
            return Ok(None);
        };
        let physical = PhysicalLayout::new(shape).map_err(ViewError::from)?;
        if physical.padded_dimensions() != physical.dimensions() {
            return Err(unsupported(shape, "classic padding combined with tiles"));
        }
        if !layout.split_configs.is_empty() {
            return Err(unsupported(shape, "split configs"));
        }
        let mut trees = Trees::of(&physical);
        for tile in &layout.tiles {
            trees.split(shape, &tile.dimensions)?;
        }
        trees.finish(shape, &physical).map(Some)
    }

    /// Whether some position of the buffer holds no element.
    pub(crate) fn has_padding(&self) -> bool {
        self.positions != self.elements
    }

    /// The pieces of a copy between the logical array, addressed by
    /// `logical` (one stride per logical dimension), and the tiled buffer:
    /// pairs of (logical side, tiled side) views of the same sizes. With
    /// `slabs` (at most one per dimension), only the box they cut out of
    /// the array: `logical` addresses the box (each slab's dimension `len`
    /// long), the tiled side the box in the whole buffer.
    ///
    /// # Errors
    ///
    /// [`RelayoutError::UnsupportedLayout`] for more than [`MAX_PIECES`]
    /// pieces, and [`ViewError::Overflow`].
    pub(crate) fn pieces(
        &self,
        shape: &Shape,
        logical: &StridedView,
        slabs: &[Slab],
    ) -> Result<Vec<(StridedView, StridedView)>, RelayoutError> {
        let too_many = || RelayoutError::UnsupportedLayout {
            shape: Box::new(shape.clone()),
            reason: format!("its tiles split a copy into more than {MAX_PIECES} pieces"),
        };
        let per_dim = self.boxes_per_dim(slabs, too_many)?;
        if per_dim.iter().any(Vec::is_empty) {
            return Ok(Vec::new());
        }
        let count = per_dim
            .iter()
            .try_fold(1_usize, |n, b| n.checked_mul(b.len()))
            .filter(|&n| n <= MAX_PIECES)
            .ok_or_else(too_many)?;
        let mut pieces = Vec::with_capacity(count);
        let mut choice = vec![0_usize; per_dim.len()];
        loop {
            pieces.push(self.piece(shape, logical, &per_dim, &choice)?);
            // Next combination, last dimension fastest.
            let mut k = choice.len();
            loop {
                if k == 0 {
                    return Ok(pieces);
                }
                k -= 1;
                choice[k] += 1;
                if choice[k] < per_dim[k].len() {
                    break;
                }
                choice[k] = 0;
            }
        }
    }

    /// The boxes of each tree (see [`pieces`](Self::pieces)): of the whole
    /// dimension, or of the slab cut out of it.
    fn boxes_per_dim(
        &self,
        slabs: &[Slab],
        too_many: impl Fn() -> RelayoutError + Copy,
    ) -> Result<Vec<Vec<DimBox>>, RelayoutError> {
        let mut per_dim = Vec::with_capacity(self.roots.len());
        for &(root, dim) in &self.roots {
            match slabs.iter().find(|slab| Some(slab.dim) == dim) {
                Some(slab) => {
                    // The slab starts at a multiple of the top digit's weight:
                    // its boxes are those of [0, len) with the top digit moved.
                    let (top, leaf) = self.top(root);
                    let shift = (slab.start / top) * self.strides[leaf];
                    let mut boxes = self.dim_boxes(root, slab.len, too_many)?;
                    for b in &mut boxes {
                        b.position += shift;
                    }
                    per_dim.push(boxes);
                }
                None => per_dim.push(self.dim_boxes(root, self.nodes[root].size, too_many)?),
            }
        }
        Ok(per_dim)
    }

    /// The piece of the boxes `choice` picks, one per tree of `per_dim`:
    /// their free digits gathered in tiled order.
    fn piece(
        &self,
        shape: &Shape,
        logical: &StridedView,
        per_dim: &[Vec<DimBox>],
        choice: &[usize],
    ) -> Result<(StridedView, StridedView), RelayoutError> {
        let overflow = || {
            RelayoutError::View(ViewError::Overflow {
                what: "a piece of a tiled relayout",
                of: shape.human_string_with_layout(),
            })
        };
        let mut digits: Vec<(usize, i64, i64, i64)> = Vec::new();
        let (mut logical_offset, mut tiled_offset) = (logical.offset(), 0_i64);
        for ((&(_, dim), boxes), &c) in self.roots.iter().zip(per_dim).zip(choice) {
            let b = &boxes[c];
            let stride = dim.map_or(0, |d| logical.strides()[d]);
            tiled_offset = tiled_offset.checked_add(b.position).ok_or_else(overflow)?;
            logical_offset = stride
                .checked_mul(b.base)
                .and_then(|o| o.checked_add(logical_offset))
                .ok_or_else(overflow)?;
            for &(n, weight, tiled, leaf) in &b.free {
                let s = stride.checked_mul(weight).ok_or_else(overflow)?;
                digits.push((leaf, n, s, tiled));
            }
        }
        digits.sort_unstable_by_key(|d| d.0);
        let sizes: Vec<i64> = digits.iter().map(|d| d.1).collect();
        let logical_strides: Vec<i64> = digits.iter().map(|d| d.2).collect();
        let tiled_strides: Vec<i64> = digits.iter().map(|d| d.3).collect();
        Ok((
            StridedView::new(&sizes, &logical_strides, logical_offset)?,
            StridedView::new(&sizes, &tiled_strides, tiled_offset)?,
        ))
    }

    /// The boxes of the tree at `root` covering `[0, size)` (none for size
    /// 0), worked out with an explicit stack.
    fn dim_boxes(
        &self,
        root: usize,
        size: i64,
        too_many: impl Fn() -> RelayoutError,
    ) -> Result<Vec<DimBox>, RelayoutError> {
        let mut done = Vec::new();
        // Each partial box: its nodes still to resolve, and the box so far.
        let mut stack = vec![(vec![(root, Range::Prefix(size))], DimBox::default())];
        while let Some((mut pending, mut b)) = stack.pop() {
            let Some((id, range)) = pending.pop() else {
                done.push(b);
                if done.len() > MAX_PIECES {
                    return Err(too_many());
                }
                continue;
            };
            let node = self.nodes[id];
            match (node.split, range) {
                (_, Range::Prefix(0)) => {}
                (None, Range::Prefix(n)) => {
                    let leaf = self.leaf_index(id);
                    b.free.push((n, node.weight, self.strides[leaf], leaf));
                    stack.push((pending, b));
                }
                (None, Range::Single(v)) => {
                    let leaf = self.leaf_index(id);
                    // In range: the digits stay below their node's size.
                    b.base += v * node.weight;
                    b.position += v * self.strides[leaf];
                    stack.push((pending, b));
                }
                (Some((t, outer, inner)), Range::Single(v)) => {
                    pending.push((outer, Range::Single(v / t)));
                    pending.push((inner, Range::Single(v % t)));
                    stack.push((pending, b));
                }
                (Some((t, outer, inner)), Range::Prefix(n)) => {
                    if n % t != 0 {
                        let mut partial = pending.clone();
                        partial.push((outer, Range::Single(n / t)));
                        partial.push((inner, Range::Prefix(n % t)));
                        stack.push((partial, b.clone()));
                    }
                    if n / t != 0 {
                        pending.push((outer, Range::Prefix(n / t)));
                        pending.push((inner, Range::Prefix(t)));
                        stack.push((pending, b));
                    }
                }
            }
        }
        Ok(done)
    }

    /// The weight of the most major digit of the tree at `root` (the
    /// product of the tile sizes divided off it) and its final dimension.
    fn top(&self, root: usize) -> (i64, usize) {
        let mut id = root;
        while let Some((_, outer, _)) = self.nodes[id].split {
            id = outer;
        }
        (self.nodes[id].weight, self.leaf_index(id))
    }

    /// The step of the slabs of logical dimension `dim` (see [`Slab`]):
    /// the weight of its most major digit.
    pub(crate) fn slab_step(&self, dim: usize) -> Option<i64> {
        let &(root, _) = self.roots.iter().find(|(_, d)| *d == Some(dim))?;
        Some(self.top(root).0)
    }

    /// The position in the buffer where index `index` of logical
    /// dimension `dim` starts, `index` a multiple of its
    /// [`slab_step`](Self::slab_step) (or the dimension's size, where
    /// `dim` is the most major: then the end of the buffer).
    pub(crate) fn major_position(&self, dim: usize, index: i64) -> Option<i64> {
        let &(root, _) = self.roots.iter().find(|(_, d)| *d == Some(dim))?;
        let (top, leaf) = self.top(root);
        let tops = index / top + i64::from(index % top != 0);
        tops.checked_mul(self.strides[leaf])
    }

    /// The digits of logical dimension `dim`: `(weight, count, buffer
    /// stride)` of each leaf of its split tree, least weight first (an
    /// index is the sum of its digits times their weights); `None` for a
    /// dimension the tiling does not have.
    pub(crate) fn digits(&self, dim: usize) -> Option<Vec<(i64, i64, i64)>> {
        let &(root, _) = self.roots.iter().find(|(_, d)| *d == Some(dim))?;
        let (mut stack, mut digits) = (vec![root], Vec::new());
        while let Some(id) = stack.pop() {
            let node = self.nodes[id];
            match node.split {
                Some((_, outer, inner)) => stack.extend([outer, inner]),
                None => {
                    let leaf = self.leaf_index(id);
                    digits.push((node.weight, node.size, self.strides[leaf]));
                }
            }
        }
        digits.sort_unstable_by_key(|d| d.0);
        Some(digits)
    }

    /// The final dimension of leaf node `id`.
    fn leaf_index(&self, id: usize) -> usize {
        self.leaves.iter().position(|&l| l == id).unwrap_or(0)
    }
}
