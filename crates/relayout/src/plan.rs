//! Canonicalizing a relayout: the dimensions both views share, with size-1
//! dimensions dropped, destination strides made positive, sorted from the
//! largest destination stride to the smallest, and neighbours merged where
//! both sides are contiguous across them. Then a [`Strategy`] per layout.

use std::fmt;

use stride_util::StridedView;

/// One dimension of a relayout: its size and the stride on each side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Dim {
    pub(crate) size: i64,
    pub(crate) src: i64,
    pub(crate) dst: i64,
}

/// A canonical relayout: `dims` outermost first (largest destination stride
/// first), and the offsets of the first element on each side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Plan {
    pub(crate) dims: Vec<Dim>,
    pub(crate) src_offset: i64,
    pub(crate) dst_offset: i64,
}

/// How the relayout engine copies the elements of one view into another,
/// chosen per pair of layouts after merging dimensions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Strategy {
    /// Nothing to copy (a zero-size shape).
    Empty,
    /// Both sides are one contiguous run in the same order: one memcpy.
    SingleCopy,
    /// Both sides are contiguous along the innermost dimension: a memcpy
    /// per run, an odometer over the outer dimensions.
    Runs,
    /// The destination is contiguous along one dimension and the source
    /// along another (a transpose): where the CPU has AVX-512, 64-byte
    /// register blocks straight from the source (both sides at least
    /// `64 / N` elements of 1, 2, 4 or 8 bytes); otherwise, and for the
    /// edges, cache-blocked tiles over those two dimensions, staged through
    /// a small buffer so that both sides are read and written in
    /// contiguous row segments (register blocks for 1, 2, 4 and 8-byte
    /// elements on x86_64: 32-byte AVX2 ones where the CPU has AVX2, for 1
    /// and 8-byte elements, else 16-byte SSE2 ones; see
    /// [`simd_level`](crate::simd_level)).
    Tiled,
    /// A transpose of at least 8 MiB of 1, 2, 4 or 8-byte elements (4-byte
    /// ones where their rows do not all start on lines: see
    /// [`TileTranspose`](Self::TileTranspose)), written with streaming
    /// stores: where the CPU has AVX-512, 64-byte
    /// register blocks straight from the source, each destination line
    /// written whole (both sides at least one block, `64 / N` elements;
    /// ordinary stores where the destination rows cannot start on a line);
    /// otherwise (SSE2) where the destination rows are short (NCHW→NHWC)
    /// and whole register blocks, a few whole destination rows at a time
    /// assembled from the source rows.
    Streaming,
    /// Anything else: an element loop along the innermost destination
    /// dimension with incremental offsets, an odometer outside it.
    Strided,
    /// Elements of a size without a dedicated kernel (not 1, 2, 4, 8 or 16
    /// bytes): a byte-slice copy per element, in logical order; also packed
    /// sub-byte elements between two views, and tiles that combine
    /// dimensions (`*`), from the index function.
    Elements,
    /// Into, out of or between XLA tiles in one pass: the tiled buffer
    /// taken as a few strided pieces (all full tiles, then the partial
    /// ones), each copied by the kernel of its own strategy. Chosen where
    /// the tiled side's physical order is the other side's, so that the
    /// pieces are runs along the tiles' rows, and where the tiles are as
    /// wide as their rows (one tile across: the pieces are then plain
    /// transposes); also between two tilings whose tile sizes nest where
    /// the largest piece is such a plain transpose.
    TilePieces,
    /// Through cache-sized intermediates: the array cut into boxes of at
    /// most 512 KiB, each taken out of the source's tiles into an
    /// untiled buffer in the source's physical order, transposed into
    /// one in the destination's order, and put into the destination's
    /// tiles, skipping the steps between the same order. Chosen where a
    /// tiled side's physical order is not the other side's
    /// (column-major into `{1,0:T(8,128)}`, row-major into
    /// `{0,1:T(8,128)}`, where [`Strategy::TileTranspose`] does not
    /// apply), and between two different tilings that take no one pass:
    /// tile sizes that do not nest along a dimension (8 and 12), pieces
    /// that are no transposes (tiles into tiles of other sizes in the
    /// same order).
    Composed,
    /// A transpose whose rows on one side, or on both, are not evenly
    /// spaced but split in two levels, such as the rows of XLA's tiles in
    /// the order that transposes the other side's (column-major into
    /// `{1,0:T(8,128)}`, row-major into `{0,1:T(8,128)}`, and back; tiles
    /// into tiles of the other order, `{1,0:T(8,128)}` into
    /// `{0,1:T(8,128)}`, where each dimension's tile sizes on the two
    /// sides nest), in one pass: blocks of 16 × 16 four-byte units
    /// (elements, or the pairs and quads of rows that packing tiles such
    /// as `(2,1)` and `(4,1)` interleave), each 16 source row pieces of 64
    /// bytes transposed in registers straight into 16 destination row
    /// pieces of 64 bytes, wherever each row starts; large ones written
    /// with streaming stores. Also, from 8 MiB, the plain transposes of
    /// 4-byte elements whose rows start on lines on both sides (f32
    /// row-major into column-major; on buffers that start on a line, else
    /// as [`Streaming`](Self::Streaming)), there faster than the
    /// streaming transpose. Also packed tiles into packed tiles of the
    /// other order (`{1,0:T(8,128)(2,1)}` into `{0,1:T(8,128)(2,1)}`),
    /// whose units are the squares of 2 × 2 or 4 × 4 elements contiguous
    /// on both sides, each transposed in a register on its way: where the
    /// CPU has AVX-512, blocks of a line's units along both axes, 64-byte
    /// source row pieces transposed as units into 64-byte destination row
    /// pieces; else in SSE2 registers (by one byte shuffle where the CPU
    /// has AVX2); large ones written with streaming stores. And 1-byte
    /// elements between an untiled layout and full tiles `T(4,c)` of the
    /// other order (the bytes of `{1,0:E(4)}` and
    /// `{0,1:T(8,128)(2,1)E(4)}`): 64 rows of 64 bytes transposed in
    /// AVX-512 registers into 64 tile rows, a tile column at a time (where
    /// the CPU lacks AVX-512, through bands that stay in cache: a 4-byte
    /// transpose and the split of packing tiles).
    TileTranspose,
    /// Packed 4-bit elements (`E(4)`) whose bytes pair neighbours along
    /// different dimensions on the two sides (an untiled layout pairs
    /// along its rows, a packing tile `(2,1)` pairs rows): each 2 × 2
    /// block of elements exchanges the nibbles of its two bytes, a run of
    /// bytes of two rows at a time, in one pass between an untiled layout
    /// and full tiles `T(a,b)(2,1)` of the same physical order; between
    /// two untiled layouts (a transpose) in one pass where the CPU has
    /// AVX-512 (blocks of 64 pairs of rows exchanged and zipped as they are
    /// loaded, then transposed in registers), elsewhere in bands of pairs
    /// of rows whose bytes stay in cache, each transposed by the 1-byte
    /// kernels;
    /// between tiles and tiles of the other order
    /// (`{1,0:T(8,128)(2,1)E(4)}` and `{0,1:T(8,128)(2,1)E(4)}`) in one
    /// pass where the CPU has AVX-512 (64 rows of 64 bytes exchanged as
    /// they are loaded, then transposed in registers into the
    /// destination's tiles, as [`Strategy::TileTranspose`] takes bytes
    /// into tiles `T(4,c)`), elsewhere in bands of tile rows exchanged into
    /// an untiled intermediate that stays in cache;
    /// otherwise into an intermediate of the array's size that a byte
    /// relayout then takes to the destination. (Packed 4-bit elements whose bytes pair
    /// the same neighbours on both sides take the strategy of the 1-byte
    /// relayout of those bytes.)
    NibblePairs,
}

impl fmt::Display for Strategy {
    /// The strategy in snake case, as its variant reads: `single_copy`, `tile_pieces`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(match self {
            Self::Empty => "empty",
            Self::SingleCopy => "single_copy",
            Self::Runs => "runs",
            Self::Tiled => "tiled",
            Self::Streaming => "streaming",
            Self::Strided => "strided",
            Self::Elements => "elements",
            Self::TilePieces => "tile_pieces",
            Self::Composed => "composed",
            Self::TileTranspose => "tile_transpose",
            Self::NibblePairs => "nibble_pairs",
        })
    }
}

/// Tiles need at least this many elements along both dimensions to pay off.
const MIN_TILE_EXTENT: i64 = 8;

impl Plan {
    /// The canonical plan for copying `src` into `dst` (same sizes, not empty).
    pub(crate) fn new(src: &StridedView, dst: &StridedView) -> Self {
        let mut src_offset = src.offset();
        let mut dst_offset = dst.offset();
        let mut dims: Vec<Dim> = src
            .sizes()
            .iter()
            .zip(src.strides().iter().zip(dst.strides()))
            .filter(|(size, _)| **size != 1)
            .map(|(&size, (&s, &d))| {
                if d < 0 {
                    // Walk this dimension backwards on both sides.
                    let last = size - 1;
                    src_offset += last * s;
                    dst_offset += last * d;
                    Dim {
                        size,
                        src: -s,
                        dst: -d,
                    }
                } else {
                    Dim {
                        size,
                        src: s,
                        dst: d,
                    }
                }
            })
            .collect();
        dims.sort_by_key(|d| {
            (
                std::cmp::Reverse(d.dst),
                std::cmp::Reverse(d.src.unsigned_abs()),
            )
        });
        let mut merged: Vec<Dim> = Vec::with_capacity(dims.len());
        for dim in dims {
            match merged.last_mut() {
                Some(outer)
                    if Some(outer.dst) == dim.dst.checked_mul(dim.size)
                        && Some(outer.src) == dim.src.checked_mul(dim.size) =>
                {
                    outer.size *= dim.size;
                    outer.src = dim.src;
                    outer.dst = dim.dst;
                }
                _ => merged.push(dim),
            }
        }
        Self {
            dims: merged,
            src_offset,
            dst_offset,
        }
    }

    /// This plan in units of `unit` bytes, for elements of `element_size`:
    /// itself where they are the same size, else its innermost dimension,
    /// where it is a run of `unit / element_size` elements contiguous on
    /// both sides, taken as one unit (every other stride and both offsets
    /// divided by its length); `None` where some is not a multiple of it.
    /// The pairs and quads of rows that XLA's packing tiles (`(2,1)`,
    /// `(4,1)`) interleave are such runs.
    pub(crate) fn in_units(&self, element_size: usize, unit: usize) -> Option<Self> {
        if element_size == unit {
            return Some(self.clone());
        }
        let (inner, outer) = self.dims.split_last()?;
        let k = i64::try_from(unit / element_size.max(1)).ok()?;
        let exact = element_size.checked_mul(unit / element_size.max(1)) == Some(unit);
        if !exact
            || k < 2
            || *inner
                != (Dim {
                    size: k,
                    src: 1,
                    dst: 1,
                })
        {
            return None;
        }
        Self::divided(outer, (self.src_offset, self.dst_offset), k)
    }

    /// The plan of `dims` and `(source, destination)` offsets with every
    /// stride and offset divided by `k`, if each is a multiple of it: the
    /// same copy in units of `k` elements (`None` for `k` < 1).
    pub(crate) fn divided(dims: &[Dim], (src, dst): (i64, i64), k: i64) -> Option<Self> {
        if k < 1 {
            return None;
        }
        let divided = |x: i64| (x % k == 0).then_some(x / k);
        let dims = dims
            .iter()
            .map(|d| {
                Some(Dim {
                    size: d.size,
                    src: divided(d.src)?,
                    dst: divided(d.dst)?,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Self {
            dims,
            src_offset: divided(src)?,
            dst_offset: divided(dst)?,
        })
    }

    /// The strategy for this plan, and for [`Strategy::Tiled`] the index of
    /// the dimension that is contiguous in the source.
    pub(crate) fn strategy(&self) -> (Strategy, usize) {
        let Some(inner) = self.dims.last() else {
            return (Strategy::SingleCopy, 0);
        };
        if inner.dst == 1 && inner.src == 1 {
            let strategy = if self.dims.len() == 1 {
                Strategy::SingleCopy
            } else {
                Strategy::Runs
            };
            return (strategy, 0);
        }
        if inner.dst == 1 && inner.size >= MIN_TILE_EXTENT {
            let source_contiguous = self
                .dims
                .iter()
                .position(|d| d.src == 1 && d.size >= MIN_TILE_EXTENT);
            if let Some(b) = source_contiguous {
                return (Strategy::Tiled, b);
            }
        }
        (Strategy::Strided, 0)
    }
}
