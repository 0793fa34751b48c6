//! Relayout to, from and between tiled XLA layouts, piece by piece (see
//! `tiled.rs`), or element by element from the index function where the
//! pieces do not apply.

use index_util::{IndexError, TiledLayout};
use schema::{COMBINE_DIMENSION, Shape};

use rayon::ThreadPool;

use super::bits::{capacity_in_elements, element_bits};
use super::composed::{Composed, wants_composition};
use super::piece_copy::{has_padding, zero_padding};
use super::plan::Plan;
use super::retiled::Retiled;
use super::tiled::Tiling;
use super::{
    RelayoutError, Strategy, check_views, fill_padding, interleave, parallel, relayout_with_tail,
    strategy_of_plan, sub_byte,
};
use stride_util::StridedView;
use stride_util::ViewError;

/// The buffer of `shape` ([`TiledLayout`]) and its size in bytes: for a
/// tiled layout what XLA allocates ([`TiledLayout::array_size`]).
pub(crate) fn buffer_of(shape: &Shape) -> Result<(TiledLayout, usize), RelayoutError> {
    let layout = TiledLayout::new(shape).map_err(index_error)?;
    Ok((layout, slice_len(shape)?))
}

/// The length of a byte slice holding a buffer of `shape`: its
/// [`TiledLayout::array_size`] as a `usize`.
///
/// # Errors
///
/// The index-util error of a layout that cannot be sized;
/// [`RelayoutError::OutputTooLarge`] (with no cap) for a size beyond
/// `usize`.
pub(crate) fn slice_len(shape: &Shape) -> Result<usize, RelayoutError> {
    let bytes = TiledLayout::array_size(shape).map_err(index_error)?;
    usize::try_from(bytes).map_err(|_| RelayoutError::OutputTooLarge {
        shape: Box::new(shape.clone()),
        bytes,
        cap: 0,
    })
}

/// An index-util error as the relayout error it is: a layout the engine
/// cannot lay out, else a view error.
pub(crate) fn index_error(error: IndexError) -> RelayoutError {
    match error {
        IndexError::UnsupportedTiledLayout { shape, reason } => {
            RelayoutError::UnsupportedLayout { shape, reason }
        }
        other => RelayoutError::View(ViewError::from(other)),
    }
}

/// Whether a tile of `shape` combines dimensions (`*`): the pieces of
/// `tiled.rs` do not model it.
fn combines(shape: &Shape) -> bool {
    shape.layout.as_deref().is_some_and(|layout| {
        layout
            .tiles
            .iter()
            .any(|tile| tile.dimensions.contains(&COMBINE_DIMENSION))
    })
}

/// The relayout of XLA shapes when either side is tiled (the types and
/// dimensions were checked equal), resolved once: both buffers and, unless
/// a tile combines dimensions, both tilings.
#[derive(Debug, Clone)]
pub(crate) struct TiledPlan {
    src_shape: Shape,
    dst_shape: Shape,
    bits: u32,
    src_layout: TiledLayout,
    dst_layout: TiledLayout,
    src_bytes: usize,
    dst_bytes: usize,
    /// `None` where a tile combines dimensions (`*`): element by element.
    tilings: Option<(Option<Tiling>, Option<Tiling>)>,
    /// The composition through cache-sized intermediates, where one pass
    /// through the tiles would be slow (see `composed.rs`).
    composed: Option<Composed>,
    /// The strategy of a relayout that goes in one pass of pieces where
    /// the physical orders differ (see [`transposes_in_one_pass`]).
    one_pass: Option<Strategy>,
    /// Between two tilings, the one pass where it applies (see
    /// `retiled.rs`).
    retiled: Option<Retiled>,
    /// The pieces of a relayout with one side tiled, as (source view,
    /// destination view) pairs, made once: each run copies them. `None`
    /// where they cannot be made (each run then reports why).
    pieces: Option<Vec<(StridedView, StridedView)>>,
}

impl TiledPlan {
    /// The plan between `src_shape` and `dst_shape`, either tiled.
    pub(crate) fn new(src_shape: &Shape, dst_shape: &Shape) -> Result<Self, RelayoutError> {
        let bits = element_bits(src_shape)?;
        let dst_bits = element_bits(dst_shape)?;
        if dst_bits != bits {
            return Err(RelayoutError::ElementSize {
                bits: u64::from(dst_bits),
            });
        }
        let (src_layout, src_bytes) = buffer_of(src_shape)?;
        let (dst_layout, dst_bytes) = buffer_of(dst_shape)?;
        let tilings = if combines(src_shape) || combines(dst_shape) {
            None
        } else {
            Some((Tiling::new(src_shape)?, Tiling::new(dst_shape)?))
        };
        let retiled = match &tilings {
            Some((Some(from), Some(to))) if src_shape.layout != dst_shape.layout => Retiled::new(
                &src_shape.dimensions,
                (from, to),
                bits,
                (src_bytes, dst_bytes),
            ),
            _ => None,
        };
        let one_pass = match &tilings {
            _ if retiled.is_some() => retiled.as_ref().map(Retiled::strategy),
            Some((from, to)) => {
                transposes_in_one_pass((src_shape, from.as_ref()), (dst_shape, to.as_ref()), bits)
            }
            None => None,
        };
        let composed = match &tilings {
            Some((from, to)) if one_pass.is_none() && wants_composition(src_shape, dst_shape) => {
                Some(Composed::new(
                    (src_shape, from.as_ref()),
                    (dst_shape, to.as_ref()),
                    bits,
                )?)
            }
            _ => None,
        };
        let pieces = match &tilings {
            Some((Some(from), None)) if composed.is_none() => {
                StridedView::from_xla_shape(dst_shape)
                    .ok()
                    .and_then(|view| from.pieces(src_shape, &view, &[]).ok())
                    .map(|pieces| pieces.into_iter().map(|(to, from)| (from, to)).collect())
            }
            Some((None, Some(to))) if composed.is_none() => StridedView::from_xla_shape(src_shape)
                .ok()
                .and_then(|view| to.pieces(dst_shape, &view, &[]).ok()),
            _ => None,
        };
        Ok(Self {
            src_shape: src_shape.clone(),
            dst_shape: dst_shape.clone(),
            bits,
            src_layout,
            dst_layout,
            src_bytes,
            dst_bytes,
            tilings,
            composed,
            one_pass,
            retiled,
            pieces,
        })
    }

    /// The element size in bits.
    pub(crate) fn bits(&self) -> u32 {
        self.bits
    }

    /// How the plan copies: through cache-sized intermediates
    /// ([`Strategy::Composed`]), in one pass through the tiles
    /// ([`Strategy::TileTranspose`] where the tiles transpose the other
    /// side's order, else [`Strategy::TilePieces`]; between two tilings
    /// where `retiled.rs` applies), or element by element from the index
    /// function ([`Strategy::Elements`]).
    pub(crate) fn strategy(&self) -> Strategy {
        if self.src_shape.dimensions.contains(&0) {
            Strategy::Empty
        } else if self.composed.is_some() {
            Strategy::Composed
        } else if let Some(strategy) = self.one_pass {
            strategy
        } else if self.tilings.is_some() {
            Strategy::TilePieces
        } else {
            Strategy::Elements
        }
    }

    /// Copies `src` into `dst`, each strided piece split over `pool` if
    /// given and large enough.
    pub(crate) fn run(
        &self,
        pool: Option<&ThreadPool>,
        src: &[u8],
        dst: &mut [u8],
    ) -> Result<(), RelayoutError> {
        let (src_shape, dst_shape, bits) = (&self.src_shape, &self.dst_shape, self.bits);
        let (src, dst) = checked_buffers(
            (src_shape, self.src_bytes, src),
            (dst_shape, self.dst_bytes, dst),
        )?;
        let Some(tilings) = &self.tilings else {
            by_element(src, &self.src_layout, dst, &self.dst_layout, bits)?;
            return self.fill_untiled_padding(dst);
        };
        if let (Some(_), Some(to)) = tilings {
            // The same layout is one copy, unless the source's padding
            // (whatever it holds) would land on the destination's zeros.
            let elements = StridedView::row_major(&dst_shape.dimensions)?.num_elements();
            if src_shape.layout == dst_shape.layout && !has_padding(dst, to, elements, bits) {
                dst.copy_from_slice(src);
                return Ok(());
            }
        }
        if let Some(composed) = &self.composed {
            composed.run(pool, src, dst)?;
            return self.fill_untiled_padding(dst);
        }
        if let (Some(pieces), (Some(_), None) | (None, Some(_))) = (&self.pieces, tilings) {
            if let (None, Some(to)) = tilings {
                zero_padding(dst, to, dst_shape.dimensions.iter().product(), bits);
            }
            for (from, to) in pieces {
                copy(pool, src, from, dst, to, bits)?;
            }
            return self.fill_untiled_padding(dst);
        }
        match tilings {
            (Some(from), None) => {
                let dst_view = StridedView::from_xla_shape(dst_shape)?;
                for (logical, tiled) in from.pieces(src_shape, &dst_view, &[])? {
                    copy(pool, src, &tiled, dst, &logical, bits)?;
                }
                fill_padding(dst, dst_shape)
            }
            (None, Some(to)) => {
                let src_view = StridedView::from_xla_shape(src_shape)?;
                to_tiled(pool, src, &src_view, dst, dst_shape, to, bits)
            }
            (Some(_), Some(to)) if self.retiled.is_some() => {
                let elements = StridedView::row_major(&dst_shape.dimensions)?.num_elements();
                zero_padding(dst, to, elements, bits);
                self.retiled
                    .as_ref()
                    .map_or(Ok(()), |r| r.run(pool, src, dst))
            }
            // Two other tilings are composed (see `wants_composition`).
            (Some(_), Some(_)) => Err(RelayoutError::UnsupportedLayout {
                shape: Box::new(src_shape.clone()),
                reason: "two tilings outside a composition".to_owned(),
            }),
            // The dispatcher sends only tiled layouts here.
            (None, None) => Err(RelayoutError::UnsupportedLayout {
                shape: Box::new(src_shape.clone()),
                reason: "a relayout without tiles on the tiled path".to_owned(),
            }),
        }
    }

    /// Fills an untiled destination's classic padding (a tiled one's
    /// padding was zeroed before the copy).
    fn fill_untiled_padding(&self, dst: &mut [u8]) -> Result<(), RelayoutError> {
        if self.dst_layout.is_tiled() {
            Ok(())
        } else {
            fill_padding(dst, &self.dst_shape)
        }
    }
}

/// `src` and `dst` cut to the bytes their shapes take (each `(shape,
/// bytes needed, buffer)`); errs, naming the side, its shape and both
/// lengths, if the source or the destination buffer is short.
pub(crate) fn checked_buffers<'s, 'd>(
    (src_shape, src_need, src): (&Shape, usize, &'s [u8]),
    (dst_shape, dst_need, dst): (&Shape, usize, &'d mut [u8]),
) -> Result<(&'s [u8], &'d mut [u8]), RelayoutError> {
    let short = |side, shape: &Shape, expected, actual| RelayoutError::BufferTooSmall {
        side,
        shape: Box::new(shape.clone()),
        expected,
        actual,
    };
    let src_len = src.len();
    let src = src
        .get(..src_need)
        .ok_or_else(|| short("source", src_shape, src_need, src_len))?;
    let dst_len = dst.len();
    let dst = dst
        .get_mut(..dst_need)
        .ok_or_else(|| short("destination", dst_shape, dst_need, dst_len))?;
    Ok((src, dst))
}

/// How the relayout from `src_shape` into `dst_shape`, one of them tiled
/// (`Some` tiling) and the other not, goes in one pass through the tiles
/// where their physical orders differ, judged by its largest piece (whose
/// tiles are full; the other pieces take whatever kernel suits them):
/// [`Strategy::TileTranspose`] where that piece is one, or
/// [`Strategy::TilePieces`] where it is a plain transpose of two
/// dimensions (tiles as wide as their rows: every row of the tiled side
/// equally far from the next); `None` (compose instead) otherwise, for
/// packed sub-byte elements, and where the pieces cannot be made.
fn transposes_in_one_pass(
    (src_shape, from): (&Shape, Option<&Tiling>),
    (dst_shape, to): (&Shape, Option<&Tiling>),
    bits: u32,
) -> Option<Strategy> {
    match (from, to) {
        (None, Some(to)) => {
            let view = StridedView::from_xla_shape(src_shape).ok()?;
            one_pass((dst_shape, to), &view, true, bits)
        }
        (Some(from), None) => {
            let view = StridedView::from_xla_shape(dst_shape).ok()?;
            one_pass((src_shape, from), &view, false, bits)
        }
        _ => None,
    }
}

/// [`transposes_in_one_pass`] between the tiled `shape` (its `tiling`)
/// and the untiled side `view`, into the tiles if `into` (else out of
/// them).
pub(crate) fn one_pass(
    (shape, tiling): (&Shape, &Tiling),
    view: &StridedView,
    into: bool,
    bits: u32,
) -> Option<Strategy> {
    let size = usize::try_from(bits / 8).ok().filter(|&n| n > 0)?;
    if !bits.is_multiple_of(8) {
        return None;
    }
    let pieces = tiling.pieces(shape, view, &[]).ok()?;
    let (logical, tiled) = pieces
        .iter()
        .max_by_key(|(logical, _)| logical.num_elements())?;
    let (from, to) = if into {
        (logical, tiled)
    } else {
        (tiled, logical)
    };
    if from.is_empty() {
        return None;
    }
    let plan = Plan::new(from, to);
    match strategy_of_plan(&plan, size) {
        Strategy::TileTranspose => Some(Strategy::TileTranspose),
        Strategy::Tiled | Strategy::Streaming if plan.dims.len() == 2 => Some(Strategy::TilePieces),
        _ => None,
    }
}

/// Copies the array `src_view` over `src` into the tiled buffer `dst`,
/// zeroing its padding first if it has any.
pub(crate) fn to_tiled(
    pool: Option<&ThreadPool>,
    src: &[u8],
    src_view: &StridedView,
    dst: &mut [u8],
    dst_shape: &Shape,
    to: &Tiling,
    bits: u32,
) -> Result<(), RelayoutError> {
    zero_padding(dst, to, src_view.num_elements(), bits);
    for (logical, tiled) in to.pieces(dst_shape, src_view, &[])? {
        copy(pool, src, &logical, dst, &tiled, bits)?;
    }
    Ok(())
}

/// One piece: the interleaving kernel where it applies, else the engine,
/// split over `pool` if given and the piece of whole-byte elements is
/// large enough (each part interleaved where it can be), or the sub-byte
/// element loop.
pub(crate) fn copy(
    pool: Option<&ThreadPool>,
    src: &[u8],
    src_view: &StridedView,
    dst: &mut [u8],
    dst_view: &StridedView,
    bits: u32,
) -> Result<(), RelayoutError> {
    let size = usize::try_from(bits / 8).unwrap_or(0);
    if let Some(pool) = pool
        && bits.is_multiple_of(8)
        && let Some(count) = parallel::chunk_count(Some(pool), src_view, dst_view, size)
    {
        let copy_part =
            |src: &[u8], from: &StridedView, part: &mut [u8], to: &StridedView, whole| {
                if interleave::try_copy_part(src, from, part, to, bits, Some(whole))? {
                    return Ok(());
                }
                relayout_with_tail(src, from, part, to, size, None, Some(whole)).map(|_| ())
            };
        return parallel::on_pool_with(
            Some(pool),
            (src, src_view),
            (dst, dst_view),
            size,
            count,
            copy_part,
        );
    }
    if interleave::try_copy(src, src_view, dst, dst_view, bits)? {
        return Ok(());
    }
    if bits < 8 {
        check_views(
            (src_view, capacity_in_elements(src.len(), bits)),
            (dst_view, capacity_in_elements(dst.len(), bits)),
        )?;
        sub_byte::copy(src, src_view, dst, dst_view, bits);
        return Ok(());
    }
    relayout_with_tail(src, src_view, dst, dst_view, size, None, None).map(|_| ())
}

/// The slow path, for tilings the pieces do not model (a `*` entry): the
/// destination zeroed, then each of its positions that holds an element
/// read from that element's position in the source, both from
/// [`TiledLayout`]'s index function. Classic padding of an untiled
/// destination is left to the caller.
fn by_element(
    src: &[u8],
    from: &TiledLayout,
    dst: &mut [u8],
    to: &TiledLayout,
    bits: u32,
) -> Result<(), RelayoutError> {
    dst.fill(0);
    let dims = from.dimensions();
    let mut index = vec![0_i64; dims.len()];
    let mut failure = None;
    to.for_each_position(|position, element| {
        let Some(mut rest) = element.filter(|_| failure.is_none()) else {
            return;
        };
        // The row-major index back to a multi-index.
        for (i, &d) in index.iter_mut().zip(dims).rev() {
            *i = rest % d;
            rest /= d;
        }
        match from.position(&index) {
            Ok(source) => copy_element(src, source, dst, position, bits),
            Err(error) => failure = Some(error),
        }
    });
    failure.map_or(Ok(()), |error| {
        Err(RelayoutError::View(ViewError::from(error)))
    })
}

/// Copies the element at position `from` of `src` to position `to` of
/// `dst` (elements of `bits`, packed from the least significant bit when
/// narrower than a byte). Both buffers hold their layout's positions.
fn copy_element(src: &[u8], from: i64, dst: &mut [u8], to: i64, bits: u32) {
    let offset = |position: i64| usize::try_from(position).unwrap_or(usize::MAX);
    let (from, to) = (offset(from), offset(to));
    if bits >= 8 {
        let width = usize::try_from(bits / 8).unwrap_or(1);
        let (Some(start), Some(end)) = (from.checked_mul(width), to.checked_mul(width)) else {
            return;
        };
        if let (Some(source), Some(target)) = (
            src.get(start..start.saturating_add(width)),
            dst.get_mut(end..end.saturating_add(width)),
        ) {
            target.copy_from_slice(source);
        }
        return;
    }
    let width = usize::try_from(bits).unwrap_or(1);
    let mask = u8::try_from((1_u16 << bits) - 1).unwrap_or(u8::MAX);
    let (from_bit, to_bit) = (from.saturating_mul(width), to.saturating_mul(width));
    let Some(&byte) = src.get(from_bit / 8) else {
        return;
    };
    let value = (byte >> (from_bit % 8)) & mask;
    if let Some(target) = dst.get_mut(to_bit / 8) {
        let shift = to_bit % 8;
        *target = (*target & !(mask << shift)) | (value << shift);
    }
}
