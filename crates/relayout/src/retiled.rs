//! Between two tilings in one pass, where every dimension's tile sizes on
//! both sides nest (each a multiple of the next smaller one).
//!
//! Each logical dimension is then one mixed-radix number on both sides:
//! the weights of its digits are the union of the two sides' (for
//! `{1,0:T(8,128)}` into `{0,1:T(8,128)}`, dimension 0 has weights 1 and 8
//! on one side and 1 and 128 on the other: digits of weights 1, 8 and
//! 128), and every digit has a buffer stride on each side. The range
//! `[0, n)` of a dimension is a few boxes of such digits (all full, then
//! the partial ones from the top digit down), and a product of boxes, one
//! per dimension, is a pair of strided views over the two buffers. Where
//! the tiles of one side are the other side's transposed, the largest
//! such pair is a transpose whose rows are split in two levels on both
//! sides ([`TileTranspose`]), copied in one pass; the other pairs (the
//! partial tiles) take whatever kernel suits them.

use rayon::ThreadPool;
use stride_util::StridedView;

use super::kernels::{self, TileTranspose};
use super::packed_transpose::PackedTranspose;
use super::piece_copy::copy_piece;
use super::plan::Plan;
use super::tiled::Tiling;
use super::{RelayoutError, Strategy, check_views, elements_in, parallel, strategy_of_plan};

/// The most pieces a relayout between two tilings is split into here.
const MAX_PIECES: usize = 1 << 12;

/// One pair of views, with its tile transpose where it is one.
#[derive(Debug, Clone)]
struct Piece {
    src: StridedView,
    dst: StridedView,
    transpose: Option<TileTranspose>,
    /// Where it is a transpose of packed squares instead.
    packed: Option<PackedTranspose>,
}

/// A relayout between two tilings in one pass of strided pieces, resolved
/// once: each piece's views and, where it is one, its tile transpose.
#[derive(Debug, Clone)]
pub(crate) struct Retiled {
    pieces: Vec<Piece>,
    /// [`Strategy::TileTranspose`] or, where the largest piece is a plain
    /// transpose, [`Strategy::TilePieces`].
    strategy: Strategy,
    bits: u32,
    /// The element size in bytes.
    size: usize,
    /// The bytes the whole relayout writes: large ones stream.
    whole_bytes: u64,
}

/// One box of a dimension: the offsets of its fixed digits on each side,
/// and `(count, source stride, destination stride)` of each free digit.
type DimBox = (i64, i64, Vec<(i64, i64, i64)>);

impl Retiled {
    /// The one-pass relayout of the array of `dims` from the tiling `from`
    /// (a buffer of `src_bytes`) into `to` (of `dst_bytes`), elements of
    /// `bits`, where it applies: whole bytes, nested tile sizes, and the
    /// largest piece a [`TileTranspose`] or a plain transpose (tiles as
    /// wide as the rows on the side that is contiguous across them);
    /// `None` (compose instead) otherwise.
    pub(crate) fn new(
        dims: &[i64],
        (from, to): (&Tiling, &Tiling),
        bits: u32,
        (src_bytes, dst_bytes): (usize, usize),
    ) -> Option<Self> {
        if bits == 0 || !bits.is_multiple_of(8) {
            return None;
        }
        let size = usize::try_from(bits / 8).ok()?;
        let mut per_dim = Vec::with_capacity(dims.len());
        for (d, &n) in dims.iter().enumerate() {
            if n == 1 {
                continue;
            }
            per_dim.push(boxes(n, &from.digits(d)?, &to.digits(d)?)?);
        }
        let pieces = product(&per_dim)?;
        let largest = pieces.iter().max_by_key(|(s, _)| s.num_elements())?;
        if largest.0.is_empty() {
            return None;
        }
        let plan = Plan::new(&largest.0, &largest.1);
        let strategy = match strategy_of_plan(&plan, size) {
            Strategy::TileTranspose => Strategy::TileTranspose,
            _ if PackedTranspose::find(&plan, size).is_some() => Strategy::TileTranspose,
            Strategy::Tiled | Strategy::Streaming => Strategy::TilePieces,
            _ => return None,
        };
        let (src_len, dst_len) = (elements_in(src_bytes, size), elements_in(dst_bytes, size));
        let whole_bytes = u64::try_from(dst_bytes).ok()?;
        let pieces = pieces
            .into_iter()
            .map(|(src, dst)| {
                check_views((&src, src_len), (&dst, dst_len)).ok()?;
                let plan = Plan::new(&src, &dst);
                let transpose = TileTranspose::find(&plan, size);
                let packed = transpose
                    .is_none()
                    .then(|| PackedTranspose::find(&plan, size))
                    .flatten();
                Some(Piece {
                    src,
                    dst,
                    transpose,
                    packed,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Self {
            pieces,
            strategy,
            bits,
            size,
            whole_bytes,
        })
    }

    /// How the relayout goes: [`Strategy::TileTranspose`] or
    /// [`Strategy::TilePieces`].
    pub(crate) fn strategy(&self) -> Strategy {
        self.strategy
    }

    /// Copies `src` into `dst` (both their layout's size, the
    /// destination's padding already zero), each piece split over `pool`
    /// if given and large enough.
    pub(crate) fn run(
        &self,
        pool: Option<&ThreadPool>,
        src: &[u8],
        dst: &mut [u8],
    ) -> Result<(), RelayoutError> {
        let large = kernels::is_large_bytes(self.whole_bytes);
        for piece in &self.pieces {
            if let Some(packed) = &piece.packed {
                packed.copy_in(pool, src, dst, large)?;
                continue;
            }
            match (&piece.transpose, pool) {
                (Some(_), Some(pool)) => {
                    parallel::sized(Some(pool), src, &piece.src, dst, &piece.dst, self.size)?;
                }
                (Some(transpose), None) => transpose.copy(src, dst, large),
                (None, _) => {
                    copy_piece(
                        src,
                        &piece.src,
                        dst,
                        &piece.dst,
                        self.bits,
                        self.whole_bytes,
                    )?;
                }
            }
        }
        Ok(())
    }
}

/// The boxes of `[0, n)` of one dimension whose digits on the source are
/// `from` and on the destination `to` (`(weight, count, stride)`, least
/// weight first, see [`Tiling::digits`]); `None` where the weights do not
/// nest.
fn boxes(n: i64, from: &[(i64, i64, i64)], to: &[(i64, i64, i64)]) -> Option<Vec<DimBox>> {
    // Digits that only ever hold 0 do not count.
    let kept = |digits: &[(i64, i64, i64)]| -> Option<Vec<(i64, i64, i64)>> {
        let kept: Vec<_> = digits.iter().copied().filter(|d| d.1 > 1).collect();
        let nested = kept.first().is_none_or(|d| d.0 == 1)
            && kept
                .windows(2)
                .all(|w| w[0].0.checked_mul(w[0].1) == Some(w[1].0));
        nested.then_some(kept)
    };
    let (from, to) = (kept(from)?, kept(to)?);
    let mut weights: Vec<i64> = from.iter().chain(&to).map(|d| d.0).collect();
    weights.push(1);
    weights.sort_unstable();
    weights.dedup();
    if !weights.windows(2).all(|w| w[1] % w[0] == 0) {
        return None;
    }
    // Each weight's stride on a side: that of its side's digit of the
    // largest weight not above it, times their ratio.
    let stride = |digits: &[(i64, i64, i64)], w: i64| -> Option<i64> {
        match digits.iter().rev().find(|d| d.0 <= w) {
            Some(&(weight, _, s)) => s.checked_mul(w / weight),
            None => Some(0),
        }
    };
    let digits = weights
        .iter()
        .enumerate()
        .map(|(j, &w)| {
            let radix = weights.get(j + 1).map(|&next| next / w);
            Some((w, radix, stride(&from, w)?, stride(&to, w)?))
        })
        .collect::<Option<Vec<_>>>()?;
    // The digits of `n`, then a box per nonzero one, the top first.
    let value = |&(w, radix, ..): &(i64, Option<i64>, i64, i64)| {
        let q = n / w;
        radix.map_or(q, |r| q % r)
    };
    let mut out = Vec::new();
    for j in (0..digits.len()).rev() {
        let count = value(&digits[j]);
        if count == 0 {
            continue;
        }
        let (mut src_offset, mut dst_offset) = (0_i64, 0_i64);
        for digit in &digits[j + 1..] {
            let v = value(digit);
            src_offset = src_offset.checked_add(v.checked_mul(digit.2)?)?;
            dst_offset = dst_offset.checked_add(v.checked_mul(digit.3)?)?;
        }
        let mut free = vec![(count, digits[j].2, digits[j].3)];
        for &(_, radix, s, d) in &digits[..j] {
            free.push((radix?, s, d));
        }
        out.push((src_offset, dst_offset, free));
    }
    Some(out)
}

/// The pairs of views of every combination of one box per dimension.
fn product(per_dim: &[Vec<DimBox>]) -> Option<Vec<(StridedView, StridedView)>> {
    let count = per_dim
        .iter()
        .try_fold(1_usize, |n, b| n.checked_mul(b.len()))
        .filter(|&n| n <= MAX_PIECES)?;
    let mut pieces = Vec::with_capacity(count);
    if count == 0 {
        return Some(pieces);
    }
    let mut choice = vec![0_usize; per_dim.len()];
    loop {
        let (mut src_offset, mut dst_offset) = (0_i64, 0_i64);
        let (mut sizes, mut src_strides, mut dst_strides) = (Vec::new(), Vec::new(), Vec::new());
        for (boxes, &c) in per_dim.iter().zip(&choice) {
            let (s, d, free) = &boxes[c];
            src_offset = src_offset.checked_add(*s)?;
            dst_offset = dst_offset.checked_add(*d)?;
            for &(n, s, d) in free.iter().rev() {
                sizes.push(n);
                src_strides.push(s);
                dst_strides.push(d);
            }
        }
        pieces.push((
            StridedView::new(&sizes, &src_strides, src_offset).ok()?,
            StridedView::new(&sizes, &dst_strides, dst_offset).ok()?,
        ));
        // Next combination, last dimension fastest.
        let mut k = choice.len();
        loop {
            if k == 0 {
                return Some(pieces);
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
