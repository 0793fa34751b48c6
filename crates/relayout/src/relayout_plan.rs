//! The plan users build once for a pair of layouts and run many times
//! ([`RelayoutPlan`]): on the calling thread, on a rayon pool, or as one
//! part of a larger copy. Built from two strided views (here) or from two
//! XLA shapes (`xla.rs`, which picks the sub-path: strided, packed
//! sub-byte, tiled or repacking).

use bytemuck::Pod;
use rayon::ThreadPool;
use schema::Shape;
use stride_util::{StridedView, numpy_tuple};

use super::bits::capacity_in_elements;
use super::nibbles::Nibbles;
use super::padding::fill_padding_except_row_tails;
use super::plan::Plan as Canonical;
use super::quads::Quads;
use super::repack::Repack;
use super::tiled_xla::TiledPlan;
use super::view_tiled::ViewTiled;
use super::{
    RelayoutError, Strategy, check_buffer, copy_planned, elements_in, parallel, strategy_of_plan,
    sub_byte, typed,
};

/// The two sides of a relayout, by name, so that they cannot be swapped
/// silently: `from` is read, `to` is written. The sides are of one type
/// (two views, two shapes) unless the plan says otherwise
/// ([`RelayoutPlan::view_to_xla`], [`RelayoutPlan::xla_to_view`]).
///
/// ```
/// use relayout::{FromTo, StridedView};
///
/// let nchw = StridedView::nchw(&[1, 3, 4, 4])?;
/// let nhwc = StridedView::nhwc(&[1, 3, 4, 4])?;
/// let sides = FromTo { from: &nchw, to: &nhwc };
/// assert_eq!(sides.to.strides(), nhwc.strides());
/// # Ok::<(), stride_util::ViewError>(())
/// ```
#[derive(Debug)]
pub struct FromTo<'a, F, T = F> {
    /// The source side (read).
    pub from: &'a F,
    /// The destination side (written).
    pub to: &'a T,
}

// By hand: two references are `Copy` whatever `F` and `T` are.
impl<F, T> Clone for FromTo<'_, F, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<F, T> Copy for FromTo<'_, F, T> {}

/// A relayout planned once for a pair of layouts and run many times: the
/// shapes checked, the destination checked to write every element once,
/// the dimensions canonicalized and the kernel chosen (see [`Strategy`]).
/// Each run checks only that the buffers are long enough.
///
/// Built from two [`StridedView`]s ([`RelayoutPlan::new`],
/// [`RelayoutPlan::new_bits`]) or two XLA shapes with their layouts
/// ([`RelayoutPlan::xla`]: padded, tiled, `E(n)`-packed); run with
/// [`run`](RelayoutPlan::run) on the calling thread,
/// [`run_in`](RelayoutPlan::run_in) split over a rayon pool (the bytes
/// written are the same), or [`run_part`](RelayoutPlan::run_part) as one
/// piece of a larger copy.
///
/// ```
/// use relayout::{FromTo, RelayoutPlan, StridedView, rayon};
///
/// // NCHW -> NHWC of a u8 [2, 3, 40, 50] tensor, planned once.
/// let sizes = [2, 3, 40, 50];
/// let (nchw, nhwc) = (StridedView::nchw(&sizes)?, StridedView::nhwc(&sizes)?);
/// let plan = RelayoutPlan::new(FromTo { from: &nchw, to: &nhwc }, 1)?;
/// let src: Vec<u8> = (0..2 * 3 * 40 * 50).map(|i| (i % 251) as u8).collect();
/// let mut one = vec![0u8; src.len()];
/// plan.run(&src, &mut one)?;
/// // The same on a pool of 2 threads.
/// let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build()?;
/// let mut two = vec![0u8; src.len()];
/// plan.run_in(&pool, &src, &mut two)?;
/// assert_eq!(one, two);
/// // Channel 1 of pixel (0, 0) of image 0.
/// assert_eq!(one[1], src[40 * 50]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct RelayoutPlan {
    pub(crate) path: Path,
}

/// The sub-path a plan runs.
#[derive(Debug, Clone)]
pub(crate) enum Path {
    /// Whole-byte elements between two views.
    Bytes(Box<Bytes>),
    /// Packed sub-byte elements between two views (the slow path), the
    /// destination's padding filled if `padded` names its shape.
    Bits {
        src: StridedView,
        dst: StridedView,
        bits: u32,
        padded: Option<Shape>,
    },
    /// Either side tiled (see `tiled_xla.rs`).
    Tiled(Box<TiledPlan>),
    /// One side packs a sub-byte type that the other stores one element
    /// per byte: through a one-byte-per-element buffer, relaid by `middle`.
    Repack {
        repack: Box<Repack>,
        middle: Box<RelayoutPlan>,
    },
    /// Packed 4-bit elements moved a byte at a time (see `nibbles.rs`),
    /// with the plan of the byte relayout it runs, if any.
    Nibbles {
        nibbles: Box<Nibbles>,
        relay: Option<Box<RelayoutPlan>>,
    },
    /// A strided view and a tiled XLA layout (see `view_tiled.rs`).
    ViewTiled(Box<ViewTiled>),
    /// Bytes between an untiled layout and tiles `T(4,c)` of the other
    /// order (see `quads.rs`).
    Quads(Box<Quads>),
    /// `plan` on the buffers from `src` and `dst` elements of `size` bytes
    /// on (a view's offset).
    Shifted {
        src: usize,
        dst: usize,
        size: usize,
        plan: Box<RelayoutPlan>,
    },
}

/// A relayout of whole-byte elements between two checked views.
#[derive(Debug, Clone)]
pub(crate) struct Bytes {
    pub(crate) src: StridedView,
    pub(crate) dst: StridedView,
    pub(crate) size: usize,
    /// `None` for an empty shape.
    pub(crate) canonical: Option<Canonical>,
    /// The destination's XLA padded layout, to fill after the copy.
    pub(crate) padding: Option<Padding>,
}

/// The padding of a destination XLA layout.
#[derive(Debug, Clone)]
pub(crate) struct Padding {
    /// The destination shape with its layout.
    pub(crate) shape: Shape,
    /// `(padding element, row size, count)` after each row of the most
    /// minor dimension, written with the rows where the plan allows.
    pub(crate) row_tail: Option<(Vec<u8>, i64, i64)>,
}

impl RelayoutPlan {
    /// The plan of copying every element of `views.from` into the same
    /// logical position of `views.to`; elements are `element_size` bytes
    /// (any size; 1, 2, 4, 8 and 16 have dedicated kernels). Bytes of the
    /// destination buffer that `views.to` does not address are left
    /// untouched by the runs.
    ///
    /// # Errors
    ///
    /// [`RelayoutError::ShapeMismatch`], [`RelayoutError::ElementSize`] for
    /// size 0, and [`RelayoutError::OverlappingDestination`] if the
    /// destination addresses an element twice (see
    /// [`StridedView::has_overlap`], whose
    /// [`ViewError::OverlapUndecided`](stride_util::ViewError::OverlapUndecided)
    /// comes as [`RelayoutError::View`]).
    ///
    /// ```
    /// use relayout::{FromTo, RelayoutPlan, StridedView};
    ///
    /// // Transpose a 2×3 matrix of u16.
    /// let src: Vec<u8> = [1u16, 2, 3, 4, 5, 6].iter().flat_map(|v| v.to_le_bytes()).collect();
    /// let from = StridedView::row_major(&[2, 3])?.transpose();
    /// let to = StridedView::row_major(&[3, 2])?;
    /// let plan = RelayoutPlan::new(FromTo { from: &from, to: &to }, 2)?;
    /// let mut dst = vec![0u8; 12];
    /// plan.run(&src, &mut dst)?;
    /// let values: Vec<u16> = dst.chunks(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
    /// assert_eq!(values, [1, 4, 2, 5, 3, 6]);
    /// # Ok::<(), relayout::RelayoutError>(())
    /// ```
    pub fn new(views: FromTo<'_, StridedView>, element_size: usize) -> Result<Self, RelayoutError> {
        if element_size == 0 {
            return Err(RelayoutError::ElementSize { bits: 0 });
        }
        check_pair(views)?;
        Ok(Self::checked(views, element_size, None))
    }

    /// [`RelayoutPlan::new`] of views checked by the caller
    /// ([`check_pair`]), the destination's padding filled after each run
    /// if `padding` is given.
    pub(crate) fn checked(
        views: FromTo<'_, StridedView>,
        element_size: usize,
        padding: Option<Padding>,
    ) -> Self {
        let canonical = (!views.from.is_empty()).then(|| Canonical::new(views.from, views.to));
        Self {
            path: Path::Bytes(Box::new(Bytes {
                src: views.from.clone(),
                dst: views.to.clone(),
                size: element_size,
                canonical,
                padding,
            })),
        }
    }

    /// [`RelayoutPlan::new`] for elements of `element_size_in_bits`: whole
    /// bytes, or 1, 2 or 4 bits packed into bytes as XLA's `E(n)` layouts
    /// store them (element `k` of the buffer in bits `k·n .. k·n+n`
    /// counting from the least significant bit of byte 0). Sub-byte
    /// elements take a correct but slow element-by-element path, on the
    /// calling thread.
    ///
    /// # Errors
    ///
    /// As [`RelayoutPlan::new`]; [`RelayoutError::ElementSize`] for other
    /// bit sizes.
    ///
    /// ```
    /// use relayout::{FromTo, RelayoutPlan, StridedView};
    ///
    /// // Four 4-bit elements 1,2,3,4 packed in two bytes, reversed.
    /// let view = StridedView::row_major(&[4])?;
    /// let plan = RelayoutPlan::new_bits(FromTo { from: &view.flip()?, to: &view }, 4)?;
    /// let mut dst = [0u8; 2];
    /// plan.run(&[0x21_u8, 0x43], &mut dst)?;
    /// assert_eq!(dst, [0x34, 0x12]);
    /// # Ok::<(), relayout::RelayoutError>(())
    /// ```
    pub fn new_bits(
        views: FromTo<'_, StridedView>,
        element_size_in_bits: u32,
    ) -> Result<Self, RelayoutError> {
        match element_size_in_bits {
            bits @ (1 | 2 | 4) => {
                check_pair(views)?;
                Ok(Self::packed(views, bits, None))
            }
            bits if bits > 0 && bits % 8 == 0 => Self::new(views, bits as usize / 8),
            bits => Err(RelayoutError::ElementSize {
                bits: u64::from(bits),
            }),
        }
    }

    /// The plan of packed sub-byte elements of `bits` between views checked
    /// by the caller, filling the padding of `padded` after each run.
    pub(crate) fn packed(views: FromTo<'_, StridedView>, bits: u32, padded: Option<Shape>) -> Self {
        Self {
            path: Path::Bits {
                src: views.from.clone(),
                dst: views.to.clone(),
                bits,
                padded,
            },
        }
    }

    /// Runs the relayout from `src` into `dst` on the calling thread.
    ///
    /// Either buffer is bytes (`&[u8]`, for any plan) or values of any
    /// plain-old-data type ([`bytemuck::Pod`]: `f32`, `u16` for bf16,
    /// `i8`, `[u8; 3]`, ...) of exactly the element's size on that side.
    /// Name the type of a new buffer (`vec![0_u8; n]`): an untyped
    /// `vec![0; n]` is a `Vec<i32>`, whose length counts 4-byte values.
    ///
    /// # Errors
    ///
    /// [`RelayoutError::BufferType`] if a buffer's values are neither
    /// bytes nor one element each; [`RelayoutError::OutsideBuffer`]
    /// (views) or [`RelayoutError::BufferTooSmall`] (tiled and repacked
    /// XLA layouts) if a buffer is too short for its side; for XLA
    /// layouts, the errors of [`fill_padding`](crate::fill_padding).
    ///
    /// ```
    /// use relayout::{FromTo, RelayoutError, RelayoutPlan};
    /// use schema::Shape;
    ///
    /// // f32 values in row-major order into TPU's T(8,128) tiles, and back.
    /// let from: Shape = "f32[16,256]{1,0}".parse()?;
    /// let to: Shape = "f32[16,256]{1,0:T(8,128)}".parse()?;
    /// let values: Vec<f32> = (0..16 * 256).map(|v| v as f32).collect();
    /// let mut tiled = vec![0.0_f32; values.len()];
    /// RelayoutPlan::xla(FromTo { from: &from, to: &to })?.run(&values, &mut tiled)?;
    /// // The second tile starts with row 0, column 128.
    /// assert_eq!(tiled[8 * 128], 128.0);
    /// let mut back = vec![0.0_f32; values.len()];
    /// RelayoutPlan::xla(FromTo { from: &to, to: &from })?.run(&tiled, &mut back)?;
    /// assert_eq!(back, values);
    /// // u16 values cannot hold f32 elements.
    /// let mut wrong = vec![0_u16; 2 * values.len()];
    /// let plan = RelayoutPlan::xla(FromTo { from: &from, to: &to })?;
    /// let err = plan.run(&values, &mut wrong).unwrap_err();
    /// assert!(matches!(err, RelayoutError::BufferType { value_bytes: 2, element_bits: 32, .. }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn run<S: Pod, D: Pod>(&self, src: &[S], dst: &mut [D]) -> Result<(), RelayoutError> {
        let (src, dst) = self.bytes(src, dst)?;
        self.exec(None, src, dst, None)
    }

    /// The bytes of typed buffers, checked against the element sizes.
    fn bytes<'a, S: Pod, D: Pod>(
        &self,
        src: &'a [S],
        dst: &'a mut [D],
    ) -> Result<(&'a [u8], &'a mut [u8]), RelayoutError> {
        let (src_bits, dst_bits) = self.element_bits();
        Ok((
            typed::bytes("source", src, src_bits)?,
            typed::bytes_mut("destination", dst, dst_bits)?,
        ))
    }

    /// The element sizes in bits of the source and the destination.
    fn element_bits(&self) -> (u32, u32) {
        let bits = match &self.path {
            Path::Bytes(bytes) => u32::try_from(bytes.size.saturating_mul(8)).unwrap_or(u32::MAX),
            Path::Bits { bits, .. } => *bits,
            Path::Tiled(tiled) => tiled.bits(),
            Path::Repack { repack, .. } => return repack.sides(),
            Path::Nibbles { .. } => 4,
            Path::ViewTiled(plan) => plan.bits(),
            Path::Quads(_) => 8,
            Path::Shifted { plan, .. } => return plan.element_bits(),
        };
        (bits, bits)
    }

    /// [`run`](Self::run) split over `pool`: in as many chunks as it has
    /// threads, but at most one per
    /// [`MIN_BYTES_PER_THREAD`](crate::MIN_BYTES_PER_THREAD) bytes of
    /// destination elements (twice that for copies of contiguous runs), so
    /// that small copies run on the calling thread without entering the
    /// pool. The calling thread runs the first chunk and the pool the
    /// others, whether the caller is outside `pool` or one of its workers
    /// (see [`relayout_in_pool`](crate::relayout_in_pool)). Tiled layouts
    /// split each of their strided pieces; packed sub-byte elements run on
    /// the calling thread. The bytes written are those of `run`.
    ///
    /// # Errors
    ///
    /// Those of [`run`](Self::run).
    pub fn run_in<S: Pod, D: Pod>(
        &self,
        pool: &ThreadPool,
        src: &[S],
        dst: &mut [D],
    ) -> Result<(), RelayoutError> {
        let (src, dst) = self.bytes(src, dst)?;
        self.exec(Some(pool), src, dst, None)
    }

    /// [`run`](Self::run) as one part of a larger copy of `whole_bytes`
    /// bytes, such as one piece of a reshard: the kernels choose between
    /// ordinary and streaming stores (which bypass the cache, for copies
    /// too large to stay in it) by the size of the whole, as if the parts
    /// were one relayout.
    ///
    /// # Errors
    ///
    /// Those of [`run`](Self::run).
    ///
    /// ```
    /// use relayout::{FromTo, RelayoutPlan, StridedView};
    ///
    /// // The left half of a 4×4 u8 matrix, as one half of a 16-byte copy.
    /// let src: Vec<u8> = (0..16).collect();
    /// let half = StridedView::new(&[4, 2], &[4, 1], 0)?;
    /// let to = StridedView::row_major(&[4, 2])?;
    /// let plan = RelayoutPlan::new(FromTo { from: &half, to: &to }, 1)?;
    /// let mut dst = [0_u8; 8];
    /// plan.run_part(&src, &mut dst, 16)?;
    /// assert_eq!(dst, [0, 1, 4, 5, 8, 9, 12, 13]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn run_part<S: Pod, D: Pod>(
        &self,
        src: &[S],
        dst: &mut [D],
        whole_bytes: u64,
    ) -> Result<(), RelayoutError> {
        let (src, dst) = self.bytes(src, dst)?;
        self.exec(None, src, dst, Some(whole_bytes))
    }

    /// How the plan copies (see [`Strategy`]): for views and untiled XLA
    /// layouts of whole-byte elements, the kernel's strategy; into, out of
    /// or between tiles, [`Strategy::TilePieces`],
    /// [`Strategy::TileTranspose`] or [`Strategy::Composed`]; packed
    /// sub-byte elements between views, [`Strategy::Elements`]; a repack
    /// between sub-byte elements one per byte and packed, the strategy of
    /// its relayout between the packed side's layout and the other; packed
    /// 4-bit XLA layouts whose bytes hold the same pairs of elements, the
    /// strategy of the 1-byte relayout of those bytes, and
    /// [`Strategy::NibblePairs`] where the pairs differ.
    ///
    /// ```
    /// use relayout::{FromTo, RelayoutPlan, StridedView, Strategy};
    /// use schema::Shape;
    ///
    /// let a = StridedView::row_major(&[64, 64])?;
    /// let plan = RelayoutPlan::new(FromTo { from: &a.transpose(), to: &a }, 4)?;
    /// assert_eq!(plan.strategy(), Strategy::Tiled);
    /// // Column-major into TPU tiles: one pass of tile transposes.
    /// let from: Shape = "f32[1024,1024]{0,1}".parse()?;
    /// let to: Shape = "f32[1024,1024]{1,0:T(8,128)}".parse()?;
    /// let plan = RelayoutPlan::xla(FromTo { from: &from, to: &to })?;
    /// assert_eq!(plan.strategy(), Strategy::TileTranspose);
    /// // Tiles into tiles of the other order: one pass too.
    /// let other: Shape = "f32[1024,1024]{0,1:T(8,128)}".parse()?;
    /// let plan = RelayoutPlan::xla(FromTo { from: &to, to: &other })?;
    /// assert_eq!(plan.strategy(), Strategy::TileTranspose);
    /// // Tiles of sizes that do not nest (8 and 12 rows) go through
    /// // cache-sized intermediates.
    /// let from: Shape = "f32[1024,1024]{1,0:T(8,128)}".parse()?;
    /// let to: Shape = "f32[1024,1024]{0,1:T(12,128)}".parse()?;
    /// let plan = RelayoutPlan::xla(FromTo { from: &from, to: &to })?;
    /// assert_eq!(plan.strategy(), Strategy::Composed);
    /// // Packed 4-bit elements, row-major into pairs of rows per byte.
    /// let from: Shape = "s4[256,256]{1,0:E(4)}".parse()?;
    /// let to: Shape = "s4[256,256]{1,0:T(8,128)(2,1)E(4)}".parse()?;
    /// let plan = RelayoutPlan::xla(FromTo { from: &from, to: &to })?;
    /// assert_eq!(plan.strategy(), Strategy::NibblePairs);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn strategy(&self) -> Strategy {
        match &self.path {
            Path::Bytes(bytes) => bytes
                .canonical
                .as_ref()
                .map_or(Strategy::Empty, |c| strategy_of_plan(c, bytes.size)),
            Path::Bits { .. } => Strategy::Elements,
            Path::Tiled(tiled) => tiled.strategy(),
            Path::Repack { middle, .. } => middle.strategy(),
            Path::Nibbles { nibbles, relay } => {
                nibbles.strategy(relay.as_ref().map(|plan| plan.strategy()))
            }
            Path::ViewTiled(plan) => plan.strategy(),
            Path::Quads(_) => Strategy::TileTranspose,
            Path::Shifted { plan, .. } => plan.strategy(),
        }
    }

    /// Runs the plan on `pool` if given (else the calling thread), as part
    /// of a copy of `whole_bytes` if given.
    fn exec(
        &self,
        pool: Option<&ThreadPool>,
        src: &[u8],
        dst: &mut [u8],
        whole_bytes: Option<u64>,
    ) -> Result<(), RelayoutError> {
        match &self.path {
            Path::Bytes(bytes) => bytes.run(pool, src, dst, whole_bytes),
            Path::Bits {
                src: src_view,
                dst: dst_view,
                bits,
                padded,
            } => {
                check_buffer("source", src_view, capacity_in_elements(src.len(), *bits))?;
                check_buffer(
                    "destination",
                    dst_view,
                    capacity_in_elements(dst.len(), *bits),
                )?;
                sub_byte::copy(src, src_view, dst, dst_view, *bits);
                padded.as_ref().map_or(Ok(()), |shape| {
                    fill_padding_except_row_tails(dst, shape, false)
                })
            }
            Path::Tiled(tiled) => tiled.run(pool, src, dst),
            Path::Repack { repack, middle } => {
                repack.run(src, dst, |from, to| middle.exec(pool, from, to, None))
            }
            Path::Nibbles { nibbles, relay } => {
                nibbles.run(pool, src, dst, |from, to| match relay {
                    Some(plan) => plan.exec(pool, from, to, whole_bytes),
                    None => Ok(()),
                })
            }
            Path::ViewTiled(plan) => plan.run(pool, src, dst),
            Path::Quads(quads) => quads.run(pool, src, dst),
            Path::Shifted {
                src: src_offset,
                dst: dst_offset,
                size,
                plan,
            } => {
                let src = tail_from("source", src, *src_offset, *size)?;
                let dst = tail_from_mut("destination", dst, *dst_offset, *size)?;
                plan.exec(pool, src, dst, whole_bytes)
            }
        }
    }
}

impl Bytes {
    /// Checks the buffers, copies (split over `pool` if given and the copy
    /// is large enough), then fills the destination's padding.
    fn run(
        &self,
        pool: Option<&ThreadPool>,
        src: &[u8],
        dst: &mut [u8],
        whole_bytes: Option<u64>,
    ) -> Result<(), RelayoutError> {
        check_buffer("source", &self.src, elements_in(src.len(), self.size))?;
        check_buffer("destination", &self.dst, elements_in(dst.len(), self.size))?;
        let mut wrote_tails = false;
        if let Some(canonical) = &self.canonical {
            match pool.and_then(|p| parallel::chunk_count(Some(p), &self.src, &self.dst, self.size))
            {
                Some(count) => {
                    parallel::on_pool(pool, src, &self.src, dst, &self.dst, self.size, count)?;
                }
                None => {
                    let tail = self.padding.as_ref().and_then(|p| p.row_tail.as_ref());
                    wrote_tails = copy_planned(
                        canonical,
                        (src, &self.src),
                        (dst, &self.dst),
                        self.size,
                        tail.map(|(element, row, count)| (element.as_slice(), *row, *count)),
                        whole_bytes,
                    );
                }
            }
        }
        self.padding.as_ref().map_or(Ok(()), |padding| {
            fill_padding_except_row_tails(dst, &padding.shape, wrote_tails)
        })
    }
}

/// The bytes of `buffer` from element `offset` of `size` bytes on.
fn tail_from<'a>(
    side: &'static str,
    buffer: &'a [u8],
    offset: usize,
    size: usize,
) -> Result<&'a [u8], RelayoutError> {
    match offset.checked_mul(size) {
        Some(start) if start <= buffer.len() => Ok(&buffer[start..]),
        _ => Err(outside(side, offset, buffer.len(), size)),
    }
}

/// [`tail_from`] of a mutable buffer.
fn tail_from_mut<'a>(
    side: &'static str,
    buffer: &'a mut [u8],
    offset: usize,
    size: usize,
) -> Result<&'a mut [u8], RelayoutError> {
    let len = buffer.len();
    match offset.checked_mul(size) {
        Some(start) if start <= len => Ok(&mut buffer[start..]),
        _ => Err(outside(side, offset, len, size)),
    }
}

/// The error of element `offset` past the end of a buffer of `len` bytes.
fn outside(side: &'static str, offset: usize, len: usize, size: usize) -> RelayoutError {
    RelayoutError::OutsideBuffer {
        side,
        offset: i64::try_from(offset).unwrap_or(i64::MAX),
        len: elements_in(len, size),
    }
}

/// Checks that the two views have the same shape and that the destination
/// writes every element once.
pub(crate) fn check_pair(views: FromTo<'_, StridedView>) -> Result<(), RelayoutError> {
    let FromTo { from, to } = views;
    if from.sizes() != to.sizes() {
        return Err(RelayoutError::ShapeMismatch {
            source_shape: numpy_tuple(from.sizes()),
            destination_shape: numpy_tuple(to.sizes()),
        });
    }
    if to.has_overlap()? {
        return Err(RelayoutError::OverlappingDestination {
            shape: numpy_tuple(to.sizes()),
            strides: numpy_tuple(to.strides()),
        });
    }
    Ok(())
}
