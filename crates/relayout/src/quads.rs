//! Bytes between an untiled two-dimensional layout and full tiles `T(4,c)`
//! of the other physical order (`u8[h,w]{1,0}` and `{0,1:T(4,128)}`, and
//! back): the byte relayouts of the packed 4-bit (`E(4)`) layouts
//! `{1,0:E(4)}` and `{0,1:T(8,128)(2,1)E(4)}` (see `nibbles.rs`), whose
//! tiles are rows of four bytes across 128 of the other dimension.
//!
//! Four neighbouring bytes of an untiled row are a *quad* that goes to the
//! four rows of one tile, at one column. So the relayout is a transpose of
//! quads (4-byte units) into quads in the other order, followed by
//! splitting each tile's `c` quads into its four rows of `c` bytes (the
//! interleave that packing tiles `(4,1)` take apart); out of tiles, the
//! same two steps the other way. Where the CPU has AVX-512 both go in one
//! pass, 64 rows of 64 bytes at a time in registers (see
//! `kernels/x86/avx512_quads.rs`); elsewhere a band at a time through an
//! intermediate that stays in a core's L2 cache ([`BAND_BYTES`]): 16 quad
//! columns (one 64-byte line of each untiled row) across whole tiles, by
//! the engine's 4-byte transposes and its interleave kernels. On a pool
//! the destination splits into parts of whole quad columns (into tiles)
//! or tile columns (out of them), each a contiguous range of its bytes.

use std::ops::Range;

use rayon::ThreadPool;
use schema::Shape;
use stride_util::StridedView;

use super::kernels::is_large_bytes;
use super::parallel::in_unit_parts;
use super::scratch::{Scratch, with_scratch};
use super::tiled_xla::{checked_buffers, slice_len};
use super::{RelayoutError, interleave, relayout_with_tail};

thread_local! {
    /// Each thread's intermediate, kept between relayouts (a band's, at
    /// most [`BAND_BYTES`]).
    static SCRATCH: Scratch = const { Scratch::new(Vec::new()) };
}

/// The bytes of a band's intermediate, at most: in a core's L2 cache.
const BAND_BYTES: usize = 256 << 10;

/// The quad columns of a band: one 64-byte line of each untiled row.
const BAND_QUADS: usize = 16;

/// The plan of a relayout between `u8[h, w]`-shaped untiled bytes (rows of
/// `w` bytes, `h` of them, in physical terms) and the same bytes in full
/// tiles `T(4, c)` of the other order (`w / 4` rows of tiles, each `h / c`
/// tiles of 4 rows of `c` bytes).
#[derive(Debug, Clone)]
pub(crate) struct Quads {
    /// Whether the source is the untiled side.
    into_tiles: bool,
    h: usize,
    w: usize,
    c: usize,
    src_shape: Shape,
    dst_shape: Shape,
    src_bytes: usize,
    dst_bytes: usize,
}

/// The untiled physical frame `(major, minor)` of a 1-byte 2-D shape
/// without tiles, or its tiled one `(major, minor, c)` for tiles `T(4,c)`.
fn frame(shape: &Shape) -> Option<(usize, usize, Option<usize>)> {
    let layout = shape.layout.as_deref()?;
    if shape.element_type != schema::PrimitiveType::U8 as i32
        && shape.element_type != schema::PrimitiveType::S8 as i32
    {
        return None;
    }
    if !layout.padded_dimensions.is_empty()
        || layout.dynamic_shape_metadata_prefix_bytes != 0
        || layout.tail_padding_alignment_in_elements > 1
        || layout.element_size_in_bits != 0 && layout.element_size_in_bits != 8
    {
        return None;
    }
    let &[minor, major] = layout.minor_to_major.as_slice() else {
        return None;
    };
    let (major, minor) = (usize::try_from(major).ok()?, usize::try_from(minor).ok()?);
    let tile = match layout.tiles.as_slice() {
        [] => None,
        [tile] => match tile.dimensions.as_slice() {
            [4, c] => Some(usize::try_from(*c).ok()?),
            _ => return None,
        },
        _ => return None,
    };
    Some((major, minor, tile))
}

impl Quads {
    /// The plan from `src_shape` into `dst_shape` (the same array), if one
    /// side is untiled and the other in full tiles `T(4, c)` of the other
    /// order, `c` a multiple of 64 bytes, with whole lines of untiled
    /// rows (see the module documentation).
    pub(crate) fn new(src_shape: &Shape, dst_shape: &Shape) -> Result<Option<Self>, RelayoutError> {
        let (Some(from), Some(to)) = (frame(src_shape), frame(dst_shape)) else {
            return Ok(None);
        };
        let (untiled, tiled, into_tiles) = match (from, to) {
            ((a, b, None), (b2, a2, Some(c))) if a == a2 && b == b2 => ((a, b), c, true),
            ((b2, a2, Some(c)), (a, b, None)) if a == a2 && b == b2 => ((a, b), c, false),
            _ => return Ok(None),
        };
        // Dimensions a malformed layout names outside the shape: no plan
        // here (the tiled paths report them).
        let size = |d: usize| usize::try_from(*src_shape.dimensions.get(d)?).ok();
        let (Some(h), Some(w)) = (size(untiled.0), size(untiled.1)) else {
            return Ok(None);
        };
        let c = tiled;
        if c == 0
            || !c.is_multiple_of(64)
            || !h.is_multiple_of(c)
            || !w.is_multiple_of(4 * BAND_QUADS)
        {
            return Ok(None);
        }
        Ok(Some(Self {
            into_tiles,
            h,
            w,
            c,
            src_shape: src_shape.clone(),
            dst_shape: dst_shape.clone(),
            src_bytes: slice_len(src_shape)?,
            dst_bytes: slice_len(dst_shape)?,
        }))
    }

    /// The tiles' width `c` and the bytes of an untiled row, where the
    /// plan goes into tiles.
    pub(crate) fn made_tiles(&self) -> Option<(usize, usize)> {
        self.into_tiles.then_some((self.c, self.w))
    }

    /// Copies `src` into `dst`: split over `pool` into parts that write
    /// disjoint ranges of `dst` (quad columns into tiles, untiled rows out
    /// of them) where it is large enough, each part in registers where the
    /// CPU has AVX-512, else a band at a time (see the module
    /// documentation).
    pub(crate) fn run(
        &self,
        pool: Option<&ThreadPool>,
        src: &[u8],
        dst: &mut [u8],
    ) -> Result<(), RelayoutError> {
        let (src, dst) = checked_buffers(
            (&self.src_shape, self.src_bytes, src),
            (&self.dst_shape, self.dst_bytes, dst),
        )?;
        let whole = u64::try_from(dst.len()).unwrap_or(u64::MAX);
        self.in_parts(pool, dst, |rows, quads, part| {
            self.run_block(src, part, rows, quads, whole)
        })
    }

    /// A relayout into tiles from rows that packed 4-bit tiles hold in
    /// pairs (`src`: unit rows of pairs of this plan's untiled rows in full
    /// tiles of `paired.0` unit rows by `paired.1` units, row-major tiles
    /// of row-major units) into `dst`: in parts over `pool` as
    /// [`Self::run`], each exchanged and taken into tiles in one pass of
    /// registers where the CPU has AVX-512, else by `fallback(quads,
    /// part)` (the part of quad columns `quads`). The caller checked the
    /// lengths.
    pub(crate) fn run_exchanged(
        &self,
        pool: Option<&ThreadPool>,
        src: &[u8],
        dst: &mut [u8],
        paired: (usize, usize),
        fallback: impl Fn(Range<usize>, &mut [u8]) -> Result<(), RelayoutError> + Sync,
    ) -> Result<(), RelayoutError> {
        let stream = is_large_bytes(u64::try_from(dst.len()).unwrap_or(u64::MAX));
        self.in_parts(pool, dst, |rows, quads, part| {
            #[cfg(target_arch = "x86_64")]
            {
                use super::kernels::x86::avx512::sfence;
                use super::kernels::x86::avx512_quads::{Block, into_tiles_exchanged};
                let block = Block {
                    rows,
                    quads: quads.clone(),
                };
                if self.into_tiles
                    && into_tiles_exchanged(src, part, self.frame(), &block, paired, stream)
                {
                    if stream {
                        sfence();
                    }
                    return Ok(());
                }
            }
            #[cfg(not(target_arch = "x86_64"))]
            let _ = (src, rows, paired, stream);
            fallback(quads, part)
        })
    }

    /// `op(rows, quads, part)` on each part of `dst`, over `pool` where
    /// the relayout is large enough: whole units of its destination, 16
    /// quad columns (`4h` bytes each) into tiles, a tile column of `c`
    /// untiled rows (`w` bytes each) out of them, each part the rows and
    /// quad columns it takes and its range of `dst`.
    fn in_parts(
        &self,
        pool: Option<&ThreadPool>,
        dst: &mut [u8],
        op: impl Fn(Range<usize>, Range<usize>, &mut [u8]) -> Result<(), RelayoutError> + Sync,
    ) -> Result<(), RelayoutError> {
        let (units, step, unit_bytes) = if self.into_tiles {
            (self.w / 4 / BAND_QUADS, BAND_QUADS, 4 * self.h * BAND_QUADS)
        } else {
            (self.h / self.c, self.c, self.c * self.w)
        };
        in_unit_parts(pool, dst, units, unit_bytes, |span, part| {
            let span = span.start * step..span.end * step;
            if self.into_tiles {
                op(0..self.h, span, part)
            } else {
                op(span, 0..self.w / 4, part)
            }
        })
    }

    /// Copies untiled rows `rows` by quad columns `quads` (whole tile
    /// columns, multiples of 16) from `src` into `dst`, in registers where
    /// the CPU has AVX-512, else a band at a time; the untiled buffer holds
    /// those rows from `rows.start` on, the tiled one the tile rows of
    /// those quad columns from `quads.start` on. `whole` is the bytes of
    /// the whole relayout the block is part of (which stream if large).
    pub(crate) fn run_block(
        &self,
        src: &[u8],
        dst: &mut [u8],
        rows: Range<usize>,
        quads: Range<usize>,
        whole: u64,
    ) -> Result<(), RelayoutError> {
        if self.in_registers(src, dst, &rows, &quads, is_large_bytes(whole)) {
            Ok(())
        } else {
            self.in_bands(src, dst, rows, quads, whole)
        }
    }

    /// The kernels' frame of this plan.
    #[cfg(target_arch = "x86_64")]
    fn frame(&self) -> super::kernels::x86::avx512_quads::Frame {
        super::kernels::x86::avx512_quads::Frame {
            h: self.h,
            w: self.w,
            c: self.c,
        }
    }

    /// Whether the register kernel copied the block (as in
    /// [`Self::run_block`]) where the CPU has AVX-512.
    fn in_registers(
        &self,
        src: &[u8],
        dst: &mut [u8],
        rows: &Range<usize>,
        quads: &Range<usize>,
        stream: bool,
    ) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            use super::kernels::x86::avx512::sfence;
            use super::kernels::x86::avx512_quads::{Block, transpose};
            let block = Block {
                rows: rows.clone(),
                quads: quads.clone(),
            };
            let done = transpose(src, dst, self.frame(), (&block, self.into_tiles), stream);
            if done && stream {
                sfence();
            }
            done
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (src, dst, rows, quads, stream);
            false
        }
    }

    /// The block (as in [`Self::run_block`]) a band at a time through the
    /// thread's intermediate: a 4-byte transpose of quads and the
    /// engine's interleave kernels.
    fn in_bands(
        &self,
        src: &[u8],
        dst: &mut [u8],
        rows_in: Range<usize>,
        quads_in: Range<usize>,
        whole: u64,
    ) -> Result<(), RelayoutError> {
        let (h, w, c) = (self.h, self.w, self.c);
        // Untiled rows a band takes: whole tiles, within the band's bytes.
        let rows = (BAND_BYTES / (4 * BAND_QUADS) / c).max(1) * c;
        let rows = rows.min(h);
        // Sizes and offsets inside buffers that exist: exact in i64.
        let signed = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
        let (q, c64, h64) = (signed(BAND_QUADS), signed(c), signed(h));
        // The blocks's first row and quad column in the buffers.
        let (first_row, first_quad) = (signed(rows_in.start), signed(quads_in.start));
        let whole = Some(whole);
        with_scratch(&SCRATCH, BAND_QUADS * rows * 4, BAND_BYTES, |scratch| {
            for i0 in rows_in.clone().step_by(rows) {
                let n = rows.min(rows_in.end - i0);
                let scratch = &mut scratch[..BAND_QUADS * n * 4];
                let (n64, t, i) = (signed(n), signed(n / c), signed(i0));
                // The band's quads, `BAND_QUADS` rows of `n` quads; and the
                // same bytes as the tiles' rows: per quad row, `n / c`
                // tiles of 4 rows of `c` bytes (dimensions quad row, tile,
                // row in the tile, column).
                let quads = StridedView::new(&[n64, q], &[1, n64], 0)?;
                let packed = StridedView::new(&[q, t, 4, c64], &[4 * n64, 4 * c64, 1, 4], 0)?;
                for m0 in quads_in.clone().step_by(BAND_QUADS) {
                    let m = signed(m0);
                    // The untiled side's quads: rows `i0..`, quads `m0..`.
                    let untiled = StridedView::new(
                        &[n64, q],
                        &[signed(w / 4), 1],
                        (i - first_row) * signed(w / 4) + m,
                    )?;
                    // The tiled side: tile rows `m0..`, tiles `i0 / c..`.
                    let tiled = StridedView::new(
                        &[q, t, 4, c64],
                        &[4 * h64, 4 * c64, c64, 1],
                        (m - first_quad) * 4 * h64 + i * 4,
                    )?;
                    if self.into_tiles {
                        relayout_with_tail(src, &untiled, scratch, &quads, 4, None, None)?;
                        if !interleave::try_copy_part(scratch, &packed, dst, &tiled, 8, whole)? {
                            relayout_with_tail(scratch, &packed, dst, &tiled, 1, None, whole)?;
                        }
                    } else {
                        if !interleave::try_copy(src, &tiled, scratch, &packed, 8)? {
                            relayout_with_tail(src, &tiled, scratch, &packed, 1, None, None)?;
                        }
                        relayout_with_tail(scratch, &quads, dst, &untiled, 4, None, whole)?;
                    }
                }
            }
            Ok(())
        })
    }
}
