//! The plan between a strided view (any strides and offset) and a tiled
//! XLA layout, the view as the untiled side of the tiled machinery: one
//! pass of pieces through the tiles, or a composition through cache-sized
//! intermediates (see `composed.rs`); built by `view_xla.rs`.

use rayon::ThreadPool;
use schema::Shape;
use stride_util::StridedView;

use super::composed::{Composed, End, physical_order, view_order, view_wants_composition};
use super::tiled::Tiling;
use super::tiled_xla::{copy, one_pass, slice_len, to_tiled};
use super::{RelayoutError, Strategy, check_buffer, elements_in};

/// The relayout between a strided view and a tiled XLA layout (the same
/// array, checked), into the tiles if `into`, else out of them.
#[derive(Debug, Clone)]
pub(crate) struct ViewTiled {
    view: StridedView,
    shape: Shape,
    tiling: Tiling,
    bits: u32,
    into: bool,
    /// The bytes of the tiled buffer.
    tiled_bytes: usize,
    /// The composition through cache-sized intermediates, where one pass
    /// would be slow (see `composed.rs`).
    composed: Option<Composed>,
    /// The strategy of one pass where the orders differ (see
    /// `tiled_xla::transposes_in_one_pass`).
    one_pass: Option<Strategy>,
}

impl ViewTiled {
    /// The plan between `view` and the tiled `shape`, elements of `bits`.
    pub(crate) fn new(
        view: &StridedView,
        shape: &Shape,
        bits: u32,
        into: bool,
    ) -> Result<Self, RelayoutError> {
        let tiled_bytes = slice_len(shape)?;
        let tiling = Tiling::new(shape)?.ok_or_else(|| RelayoutError::UnsupportedLayout {
            shape: Box::new(shape.clone()),
            reason: "a layout without tiles on the tiled path".to_owned(),
        })?;
        let one_pass = one_pass((shape, &tiling), view, into, bits);
        let composed = (one_pass.is_none() && view_wants_composition(view, shape)).then(|| {
            let view_end = (End::View(view.clone()), view_order(view));
            let tiled_end = (
                End::Tiled(tiling.clone(), shape.clone()),
                physical_order(shape),
            );
            if into {
                Composed::between(shape, view_end, tiled_end, (bits, true))
            } else {
                // A view's byte ranges need not follow its most major
                // dimension: the boxes are not split.
                Composed::between(shape, tiled_end, view_end, (bits, false))
            }
        });
        Ok(Self {
            view: view.clone(),
            shape: shape.clone(),
            tiling,
            bits,
            into,
            tiled_bytes,
            composed,
            one_pass,
        })
    }

    /// The element size in bits.
    pub(crate) fn bits(&self) -> u32 {
        self.bits
    }

    /// How the plan copies (as `TiledPlan::strategy`).
    pub(crate) fn strategy(&self) -> Strategy {
        if self.shape.dimensions.contains(&0) {
            Strategy::Empty
        } else if self.composed.is_some() {
            Strategy::Composed
        } else {
            self.one_pass.unwrap_or(Strategy::TilePieces)
        }
    }

    /// Checks the buffers and copies `src` into `dst`, each strided piece
    /// split over `pool` if given and large enough.
    pub(crate) fn run(
        &self,
        pool: Option<&ThreadPool>,
        src: &[u8],
        dst: &mut [u8],
    ) -> Result<(), RelayoutError> {
        let size = usize::try_from(self.bits / 8).unwrap_or(1);
        let (side, len) = if self.into {
            check_buffer("source", &self.view, elements_in(src.len(), size))?;
            ("destination", dst.len())
        } else {
            check_buffer("destination", &self.view, elements_in(dst.len(), size))?;
            ("source", src.len())
        };
        if len < self.tiled_bytes {
            return Err(RelayoutError::BufferTooSmall {
                side,
                shape: Box::new(self.shape.clone()),
                expected: self.tiled_bytes,
                actual: len,
            });
        }
        let (view, shape, bits) = (&self.view, &self.shape, self.bits);
        if self.into {
            let dst = &mut dst[..self.tiled_bytes];
            match &self.composed {
                Some(composed) => composed.run(pool, src, dst),
                None => to_tiled(pool, src, view, dst, shape, &self.tiling, bits),
            }
        } else {
            let src = &src[..self.tiled_bytes];
            match &self.composed {
                Some(composed) => composed.run(pool, src, dst),
                None => {
                    for (logical, tiled) in self.tiling.pieces(shape, view, &[])? {
                        copy(pool, src, &tiled, dst, &logical, bits)?;
                    }
                    Ok(())
                }
            }
        }
    }
}
