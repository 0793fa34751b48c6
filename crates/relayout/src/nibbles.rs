//! Packed 4-bit elements (`E(4)`) moved a byte at a time. Each byte of an
//! `E(4)` buffer holds two elements that are neighbours along one logical
//! dimension (the low nibble the even one): along the most minor dimension
//! of an untiled layout or of a tile such as `T(2,128)`, along the second
//! most minor one under a packing tile such as `T(8,128)(2,1)`. Such a
//! buffer is a buffer of 1-byte units of an array with that dimension
//! halved, in a layout of bytes (the packing tile `(2,1)` dropped, the
//! tile's extent along the paired dimension halved).
//!
//! Where both sides pair the same dimension, the relayout is the byte
//! relayout of those units, by the engine's 1-byte kernels. Where they pair
//! different dimensions of a two-dimensional array, 2 × 2 blocks of
//! elements change their bytes: source bytes `a` and `b` of two
//! neighbouring rows become `(a & 0xF) | (b << 4)` and `(a >> 4) | (b &
//! 0xF0)`, the same exchange either way (64 bytes of each row at a time
//! where the CPU has AVX-512, a whole row of runs a call, else 16 with
//! SSE2). That goes in one pass between an
//! untiled layout (which pairs its minor dimension) and the layout of the
//! same physical order that pairs its major one in full tiles
//! `T(a,b)(2,1)` (rows of the tiles taken in runs of `b` bytes); between
//! two untiled layouts (a transpose) in one pass where the CPU has AVX-512
//! (`kernels/x86/avx512_nibble_rows.rs`), else in bands of at least 64
//! pairs of source rows, each exchanged into an intermediate that stays in
//! cache and transposed from there into the destination as bytes; between tiles
//! and tiles of the other order by quads (see `quads.rs`), in one pass
//! where the CPU has AVX-512 (the exchange on the way into registers),
//! else in bands of the source's tile rows, each exchanged into an
//! untiled intermediate that stays in cache and taken from there;
//! otherwise through one intermediate buffer of the array's size in the
//! other pairing and the source's physical order, relaid to the
//! destination as bytes.
//! Shapes with an odd paired dimension (whose bytes would hold elements of
//! two rows, or a padding nibble), classic padding, partial tiles and
//! other tilings keep the element-by-element paths.

use rayon::ThreadPool;
use schema::{PrimitiveType, Shape, Tile};

use stride_util::StridedView;

use super::bits::element_bits;
use super::kernels::is_large_bytes;
#[cfg(target_arch = "x86_64")]
use super::kernels::x86::avx512_nibbles::{self as avx512, Runs};
use super::parallel::in_unit_parts;
use super::quads::Quads;
use super::scratch::{Scratch, with_scratch};
use super::tiled_xla::{checked_buffers, slice_len};
use super::{RelayoutError, relayout_with_tail};

thread_local! {
    /// The intermediate buffer of each thread, kept between relayouts up to
    /// [`KEEP_BYTES`].
    static SCRATCH: Scratch = const { Scratch::new(Vec::new()) };
}

/// The byte view of one `E(4)` side: the logical dimension whose
/// neighbours share a byte, and the shape of its 1-byte units.
#[derive(Debug, Clone)]
struct Units {
    pair: usize,
    shape: Shape,
}

/// The units of `shape` if it packs 4-bit elements in whole bytes, each
/// two neighbours along one dimension of even size.
fn units(shape: &Shape) -> Option<Units> {
    let layout = shape.layout.as_deref()?;
    if element_bits(shape).ok()? != 4
        || !layout.padded_dimensions.is_empty()
        || layout.dynamic_shape_metadata_prefix_bytes != 0
        || layout.tail_padding_alignment_in_elements > 1
    {
        return None;
    }
    let rank = shape.dimensions.len();
    let order: Vec<usize> = layout
        .minor_to_major
        .iter()
        .map(|&d| usize::try_from(d).ok().filter(|&d| d < rank))
        .collect::<Option<_>>()?;
    if order.len() != rank || rank == 0 {
        return None;
    }
    let mut tiles: Vec<Vec<i64>> = layout.tiles.iter().map(|t| t.dimensions.clone()).collect();
    if tiles.iter().flatten().any(|&t| t <= 0) {
        return None;
    }
    let pair = match tiles.as_mut_slice() {
        [] => order[0],
        [tile] => {
            // Pairs along the minor dimension, within each tile row.
            let minor = tile.last_mut()?;
            if *minor % 2 != 0 {
                return None;
            }
            *minor /= 2;
            order[0]
        }
        [tile, packing] if packing.len() == 2 && packing[1] == 1 && packing[0] % 2 == 0 => {
            // `(k,1)` with `k` even: pairs along the second minor dimension.
            let len = tile.len();
            if len < 2 || rank < 2 || tile[len - 2] % packing[0] != 0 {
                return None;
            }
            tile[len - 2] /= 2;
            packing[0] /= 2;
            if packing[0] == 1 {
                tiles.pop();
            }
            order[1]
        }
        _ => return None,
    };
    let size = *shape.dimensions.get(pair)?;
    if size % 2 != 0 {
        return None;
    }
    let mut unit = shape.clone();
    unit.element_type = PrimitiveType::U8 as i32;
    unit.dimensions[pair] = size / 2;
    if let Some(l) = unit.layout.as_deref_mut() {
        l.element_size_in_bits = 0;
        l.tiles = tiles
            .into_iter()
            .map(|dimensions| Tile { dimensions })
            .collect();
    }
    Some(Units { pair, shape: unit })
}

/// One side of the 2 × 2 exchange, in its physical frame (`h` rows of `w`
/// elements, major first): an untiled buffer of `h` rows of `w / 2` bytes
/// (pairs along its rows), or `h / 2` rows of `w` units (pairs of rows)
/// in full tiles of `tile_rows` × `tile_width` units, row-major tiles of
/// row-major units (untiled: one tile as wide as a row).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Frame {
    h: usize,
    w: usize,
    /// `None` for the side that pairs along its rows.
    tiles: Option<(usize, usize)>,
}

impl Frame {
    /// The offset of unit row `row` (a pair of rows) in its first tile,
    /// and the distance from one tile to the next along it.
    fn unit_row(&self, (tile_rows, tile_width): (usize, usize), row: usize) -> (usize, usize) {
        let tile = tile_rows * tile_width;
        let across = self.w / tile_width;
        (
            (row / tile_rows) * across * tile + (row % tile_rows) * tile_width,
            tile,
        )
    }
}

/// The physical frame of a two-dimensional side: `(major, minor)` logical
/// dimensions, and the frame if it is one of the two kinds of
/// [`Frame`].
fn frame(shape: &Shape) -> Option<((usize, usize), Frame)> {
    let layout = shape.layout.as_deref()?;
    let &[minor, major] = layout.minor_to_major.as_slice() else {
        return None;
    };
    let (major, minor) = (usize::try_from(major).ok()?, usize::try_from(minor).ok()?);
    let (h, w) = (
        usize::try_from(*shape.dimensions.get(major)?).ok()?,
        usize::try_from(*shape.dimensions.get(minor)?).ok()?,
    );
    if h % 2 != 0 || w % 2 != 0 || h == 0 || w == 0 {
        return None;
    }
    let tiles: Vec<&[i64]> = layout
        .tiles
        .iter()
        .map(|t| t.dimensions.as_slice())
        .collect();
    let tiles = match tiles.as_slice() {
        [] => None,
        [[r, c], [2, 1]] => {
            let (r, c) = (usize::try_from(*r).ok()?, usize::try_from(*c).ok()?);
            // Full tiles only, with whole units and whole byte runs.
            if r % 2 != 0 || c % 2 != 0 || h % r != 0 || w % c != 0 {
                return None;
            }
            Some((r / 2, c))
        }
        _ => return None,
    };
    Some(((major, minor), Frame { h, w, tiles }))
}

/// How a relayout of `E(4)` elements goes a byte at a time.
#[derive(Debug, Clone)]
enum Route {
    /// Both sides pair the same dimension: the relayout of their units.
    Units,
    /// The 2 × 2 exchange between the two sides' frames (the same
    /// physical order), from `src` into `dst`.
    Exchange { src: Frame, dst: Frame },
    /// Between two untiled layouts (which pair different dimensions, so
    /// their physical orders differ): bands of `band` pairs of source rows
    /// exchanged into an intermediate of units that stays in cache, each
    /// transposed into the destination's units.
    Banded { src: Frame, band: usize },
    /// From tiles into tiles of the other order whose units an untiled
    /// layout reaches by quads (see `quads.rs`): bands of `band` rows of
    /// the source's frame exchanged into an untiled intermediate of the
    /// other pairing that stays in cache, each taken into the
    /// destination's tiles by `quads`.
    ThroughBands {
        src: Frame,
        band: usize,
        quads: Box<Quads>,
    },
    /// The exchange from the source's frame into an untiled intermediate
    /// of the other pairing, then the relayout of its units into the
    /// destination.
    Through {
        src: Frame,
        middle: Frame,
        bytes: usize,
    },
}

/// The plan of a relayout between two `E(4)` shapes that moves bytes.
#[derive(Debug, Clone)]
pub(crate) struct Nibbles {
    route: Route,
    /// The shapes of the byte relayout the route runs, if any: the units
    /// of both sides, or the intermediate's and the destination's.
    relay: Option<(Shape, Shape)>,
    src_shape: Shape,
    dst_shape: Shape,
    src_bytes: usize,
    dst_bytes: usize,
}

impl Nibbles {
    /// The byte-wise plan from `src_shape` into `dst_shape` (the same
    /// array), if both pack 4-bit elements in whole bytes that it can
    /// move (see the module documentation).
    pub(crate) fn new(src_shape: &Shape, dst_shape: &Shape) -> Result<Option<Self>, RelayoutError> {
        let (Some(from), Some(to)) = (units(src_shape), units(dst_shape)) else {
            return Ok(None);
        };
        let mut relay = None;
        let route = if from.pair == to.pair {
            relay = Some((from.shape, to.shape));
            Route::Units
        } else {
            let (Some((src_order, src)), Some((dst_order, dst))) =
                (frame(src_shape), frame(dst_shape))
            else {
                return Ok(None);
            };
            if src_order == dst_order && src.tiles.is_none() != dst.tiles.is_none() {
                Route::Exchange { src, dst }
            } else if src.tiles.is_none() && dst.tiles.is_none() {
                let band = (BAND_BYTES / src.w).max(MIN_BAND).min(src.h / 2);
                Route::Banded { src, band }
            } else {
                // The intermediate: the source's physical order, the other
                // pairing, untiled.
                let middle = Frame {
                    tiles: if src.tiles.is_some() {
                        None
                    } else {
                        Some((1, src.w))
                    },
                    ..src
                };
                let mut unit = from.shape.clone();
                let dims = &mut unit.dimensions;
                dims[to.pair] = dst_shape.dimensions[to.pair] / 2;
                dims[from.pair] = src_shape.dimensions[from.pair];
                if let Some(l) = unit.layout.as_deref_mut() {
                    l.tiles.clear();
                }
                match through_bands(src, &unit, &to.shape)? {
                    Some(route) => route,
                    None => {
                        relay = Some((unit, to.shape));
                        Route::Through {
                            src,
                            middle,
                            bytes: src.h * src.w / 2,
                        }
                    }
                }
            }
        };
        Ok(Some(Self {
            route,
            relay,
            src_shape: src_shape.clone(),
            dst_shape: dst_shape.clone(),
            src_bytes: slice_len(src_shape)?,
            dst_bytes: slice_len(dst_shape)?,
        }))
    }

    /// The shapes of the byte relayout that [`Nibbles::run`] takes a plan
    /// of, if it runs one.
    pub(crate) fn relayed(&self) -> Option<(&Shape, &Shape)> {
        self.relay.as_ref().map(|(from, to)| (from, to))
    }

    /// The strategy: `relayed`'s (the strategy of the plan of
    /// [`Nibbles::relayed`]) where the byte relayout is the whole route,
    /// else [`Strategy::NibblePairs`](super::Strategy::NibblePairs).
    pub(crate) fn strategy(&self, relayed: Option<super::Strategy>) -> super::Strategy {
        match (&self.route, relayed) {
            (Route::Units, Some(strategy)) => strategy,
            _ => super::Strategy::NibblePairs,
        }
    }

    /// Copies `src` into `dst`, `relay(from, to)` running the byte
    /// relayout of [`Nibbles::relayed`]; the exchanges and transposes split
    /// over `pool` (the routes through intermediates run on the calling
    /// thread, or split in `relay`).
    pub(crate) fn run(
        &self,
        pool: Option<&ThreadPool>,
        src: &[u8],
        dst: &mut [u8],
        relay: impl Fn(&[u8], &mut [u8]) -> Result<(), RelayoutError>,
    ) -> Result<(), RelayoutError> {
        let (src, dst) = checked_buffers(
            (&self.src_shape, self.src_bytes, src),
            (&self.dst_shape, self.dst_bytes, dst),
        )?;
        match &self.route {
            Route::Units => relay(src, dst),
            Route::Exchange { src: from, dst: to } => {
                let stream = is_large_bytes(u64::try_from(dst.len()).unwrap_or(u64::MAX));
                // Parts of whole tile rows (of pairs of rows): on both
                // sides `tile_rows · w` bytes each, in order.
                let tile_rows = from.tiles.or(to.tiles).map_or(1, |(rows, _)| rows);
                let bytes = tile_rows * from.w;
                in_unit_parts(pool, dst, from.h / 2 / tile_rows, bytes, |span, part| {
                    let h = 2 * tile_rows * span.len();
                    let src = &src[span.start * bytes..span.end * bytes];
                    exchange(src, Frame { h, ..*from }, part, Frame { h, ..*to }, stream);
                    Ok(())
                })
            }
            Route::Banded { src: from, band } => {
                let (h, w) = (from.h, from.w);
                let stream = is_large_bytes(u64::try_from(dst.len()).unwrap_or(u64::MAX));
                if in_one_pass((h, w)) {
                    // One pass in registers, in parts of whole blocks
                    // (each taken, as the whole is).
                    return in_unit_parts(pool, dst, w / 128, 128 * h / 2, |span, part| {
                        let columns = 128 * span.start..128 * span.end;
                        in_registers(src, part, (h, w), &columns, stream);
                        Ok(())
                    });
                }
                with_scratch(&SCRATCH, band * from.w, KEEP_BYTES, |buffer| {
                    banded(src, *from, *band, dst, buffer)
                })
            }
            Route::ThroughBands {
                src: from,
                band,
                quads,
            } => {
                let whole = u64::try_from(dst.len()).unwrap_or(u64::MAX);
                let paired = from.tiles.unwrap_or((1, from.w));
                quads.run_exchanged(pool, src, dst, paired, |span, part| {
                    with_scratch(&SCRATCH, band * from.w / 2, KEEP_BYTES, |buffer| {
                        let bands = Bands {
                            from: *from,
                            band: *band,
                            quads: span,
                            whole,
                        };
                        in_bands_through(src, &bands, quads, part, buffer)
                    })
                })
            }
            Route::Through {
                src: from,
                middle,
                bytes,
            } => with_scratch(&SCRATCH, *bytes, KEEP_BYTES, |buffer| {
                exchange(src, *from, buffer, *middle, false);
                relay(buffer, dst)
            }),
        }
    }
}

/// The bytes of a band's intermediate (in a core's L2 cache), unless that
/// is fewer than [`MIN_BAND`] rows. Measured (one thread, times a plain
/// copy, AMD EPYC Zen 4 with AVX-512, alternating builds): s4[512,1024]
/// row-major → column-major 3.7 in bands of 64 KiB, 4.5–5.4 in one band;
/// s4[4096,4096] 2.4–2.5 in bands of 64 rows (256 KiB) as through a
/// full-size intermediate, 7–9 in bands of 16 rows.
const BAND_BYTES: usize = 64 << 10;

/// The fewest pairs of rows in a band: each destination line written
/// whole.
const MIN_BAND: usize = 64;

/// The most bytes of intermediate a thread keeps between relayouts: a
/// band's ([`BAND_BYTES`]) and more, never an array's.
const KEEP_BYTES: usize = 1 << 20;

/// The relayout between two untiled frames in bands (see
/// [`Route::Banded`]): `from` the source's, the destination's its
/// transpose with pairs of its rows in each byte.
fn banded(
    src: &[u8],
    from: Frame,
    band: usize,
    dst: &mut [u8],
    scratch: &mut [u8],
) -> Result<(), RelayoutError> {
    let (h, w) = (from.h, from.w);
    let whole = u64::try_from(dst.len()).unwrap_or(u64::MAX);
    let as_i64 = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
    for first in (0..h / 2).step_by(band) {
        let rows = band.min(h / 2 - first);
        let part = Frame {
            h: 2 * rows,
            w,
            tiles: None,
        };
        let units = Frame {
            tiles: Some((1, w)),
            ..part
        };
        let middle = &mut scratch[..rows * w];
        exchange(
            &src[first * w..(first + rows) * w],
            part,
            middle,
            units,
            false,
        );
        let (rows, width) = (as_i64(rows), as_i64(w));
        let from_view = StridedView::row_major(&[rows, width])?;
        let to_view = StridedView::new(&[rows, width], &[1, as_i64(h / 2)], as_i64(first))?;
        relayout_with_tail(middle, &from_view, dst, &to_view, 1, None, Some(whole))?;
    }
    Ok(())
}

/// The bytes of a band of [`Route::ThroughBands`]: in a core's L2 cache.
const THROUGH_BAND_BYTES: usize = 256 << 10;

/// [`Route::ThroughBands`] from the tiled frame `src` if the units of its
/// untiled intermediate (`middle`, the source's physical order, the other
/// pairing) go into the destination's (`to`) by quads, in bands of whole
/// tile rows of both sides.
fn through_bands(src: Frame, middle: &Shape, to: &Shape) -> Result<Option<Route>, RelayoutError> {
    let (Some((tile_rows, _)), Some(quads)) = (src.tiles, Quads::new(middle, to)?) else {
        return Ok(None);
    };
    let Some((c, row_bytes)) = quads.made_tiles() else {
        return Ok(None);
    };
    // Rows of the source's frame: whole tile columns of the quads, each a
    // whole number of the source's tile rows (pairs of rows).
    if !c.is_multiple_of(2 * tile_rows) {
        return Ok(None);
    }
    let band = (THROUGH_BAND_BYTES / row_bytes.max(1) / c).max(1) * c;
    Ok(Some(Route::ThroughBands {
        src,
        band: band.min(src.h),
        quads: Box::new(quads),
    }))
}

/// A part of [`Route::ThroughBands`] where the CPU takes no one pass:
/// bands of `band` rows of the tiled frame `from` (the last one fewer),
/// into quad columns `quads` of the destination's tiles, of a relayout of
/// `whole` bytes.
struct Bands {
    from: Frame,
    band: usize,
    quads: std::ops::Range<usize>,
    whole: u64,
}

/// The part `bands` of [`Route::ThroughBands`] into `part` (the tile rows
/// of its quad columns): each band of the source exchanged into `scratch`
/// (untiled, the other pairing), then taken into tiles by `quads`.
fn in_bands_through(
    src: &[u8],
    bands: &Bands,
    quads: &Quads,
    part: &mut [u8],
    scratch: &mut [u8],
) -> Result<(), RelayoutError> {
    let Bands { from, band, .. } = *bands;
    let row_bytes = from.w / 2;
    for first in (0..from.h).step_by(band) {
        // The last band may be shorter: whole tile columns still.
        let band = band.min(from.h - first);
        let tiled = Frame { h: band, ..from };
        let untiled = Frame {
            tiles: None,
            ..tiled
        };
        let start = first * row_bytes;
        exchange(
            &src[start..start + band * row_bytes],
            tiled,
            scratch,
            untiled,
            false,
        );
        let rows = first..first + band;
        quads.run_block(scratch, part, rows, bands.quads.clone(), bands.whole)?;
    }
    Ok(())
}

/// Whether the untiled transpose of [`Route::Banded`] (the frame `h × w`)
/// goes in one pass of AVX-512 registers on this CPU (see
/// [`in_registers`]).
fn in_one_pass(frame: (usize, usize)) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        super::kernels::x86::avx512_nibble_rows::takes(frame)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = frame;
        false
    }
}

/// Whether the untiled transpose of [`Route::Banded`] (the frame `h × w`)
/// went in one pass of AVX-512 registers, into destination rows `columns`
/// (`dst` from the first on), with streaming stores where `stream`.
fn in_registers(
    src: &[u8],
    dst: &mut [u8],
    frame: (usize, usize),
    columns: &std::ops::Range<usize>,
    stream: bool,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        let done = super::kernels::x86::avx512_nibble_rows::rows_to_pairs(
            src, dst, frame, columns, stream,
        );
        if done && stream {
            sse2::fence();
        }
        done
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (src, dst, frame, columns, stream);
        false
    }
}

/// The 2 × 2 exchange of one pair of bytes.
#[inline(always)]
fn swap(a: u8, b: u8) -> (u8, u8) {
    ((a & 0x0F) | (b << 4), (a >> 4) | (b & 0xF0))
}

/// The exchange from the frame `from` over `src` into `to` over `dst`
/// (the same `h`, `w`; one pairs along rows, the other pairs of rows).
fn exchange(src: &[u8], from: Frame, dst: &mut [u8], to: Frame, stream: bool) {
    let (h, w) = (from.h, from.w);
    match (from.tiles, to.tiles) {
        (None, Some(tiles)) => {
            let (tile_rows, width) = tiles;
            let half = width / 2;
            // A tile row's pairs of rows at a time (see `avx512::pack`).
            for (group, rows) in src[..h * w / 2].chunks(tile_rows * w).enumerate() {
                let first = group * tile_rows;
                #[cfg(target_arch = "x86_64")]
                {
                    let (start, step) = to.unit_row(tiles, first);
                    if avx512::pack(rows, w / 2, dst, Runs { half, start, step }, stream) {
                        continue;
                    }
                }
                for (row, pair) in (first..).zip(rows.chunks_exact(w)) {
                    let (even, odd) = pair.split_at(w / 2);
                    let (start, step) = to.unit_row(tiles, row);
                    for (t, (a, b)) in even
                        .chunks_exact(half)
                        .zip(odd.chunks_exact(half))
                        .enumerate()
                    {
                        let at = start + t * step;
                        pack_run(a, b, &mut dst[at..at + width], stream);
                    }
                }
            }
        }
        (Some(tiles), None) => {
            let (tile_rows, width) = tiles;
            let half = width / 2;
            for (group, rows) in dst[..h * w / 2].chunks_mut(tile_rows * w).enumerate() {
                let first = group * tile_rows;
                #[cfg(target_arch = "x86_64")]
                {
                    let (start, step) = from.unit_row(tiles, first);
                    if avx512::unpack(src, rows, w / 2, Runs { half, start, step }, stream) {
                        continue;
                    }
                }
                for (row, pair) in (first..).zip(rows.chunks_exact_mut(w)) {
                    let (even, odd) = pair.split_at_mut(w / 2);
                    let (start, step) = from.unit_row(tiles, row);
                    for (t, (a, b)) in even
                        .chunks_exact_mut(half)
                        .zip(odd.chunks_exact_mut(half))
                        .enumerate()
                    {
                        let at = start + t * step;
                        unpack_run(&src[at..at + width], a, b, stream);
                    }
                }
            }
        }
        // The callers pair one frame of each kind.
        _ => {}
    }
    #[cfg(target_arch = "x86_64")]
    if stream {
        sse2::fence();
    }
}

/// `a` and `b` (rows `2i`, `2i + 1` of bytes that pair along the rows)
/// into `out`, twice as long: the units of pairs of rows.
/// With `stream`, the stores bypass the cache where `out` starts on 16
/// bytes.
fn pack_run(a: &[u8], b: &[u8], out: &mut [u8], stream: bool) {
    #[cfg(target_arch = "x86_64")]
    let done = sse2::pack(a, b, out, stream);
    #[cfg(not(target_arch = "x86_64"))]
    let done = {
        let _ = stream;
        0
    };
    for ((pair, &x), &y) in out[2 * done..]
        .chunks_exact_mut(2)
        .zip(&a[done..])
        .zip(&b[done..])
    {
        let (lo, hi) = swap(x, y);
        pair.copy_from_slice(&[lo, hi]);
    }
}

/// The inverse of [`pack_run`] (the same exchange).
fn unpack_run(units: &[u8], a: &mut [u8], b: &mut [u8], stream: bool) {
    #[cfg(target_arch = "x86_64")]
    let done = sse2::unpack(units, a, b, stream);
    #[cfg(not(target_arch = "x86_64"))]
    let done = {
        let _ = stream;
        0
    };
    for ((pair, x), y) in units[2 * done..]
        .chunks_exact(2)
        .zip(&mut a[done..])
        .zip(&mut b[done..])
    {
        (*x, *y) = swap(pair[0], pair[1]);
    }
}

/// The exchange in 16-byte SSE2 registers (every x86_64 CPU has them).
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod sse2 {
    use std::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_loadu_si128, _mm_or_si128, _mm_packus_epi16, _mm_set1_epi8,
        _mm_set1_epi16, _mm_sfence, _mm_slli_epi16, _mm_srli_epi16, _mm_storeu_si128,
        _mm_stream_si128, _mm_unpackhi_epi8, _mm_unpacklo_epi8,
    };

    /// Orders the streaming stores before what follows.
    pub(super) fn fence() {
        // SAFETY: SSE2 (which has `sfence`) is part of x86_64.
        #[cfg(not(miri))]
        unsafe {
            _mm_sfence();
        }
    }

    /// Stores `v` at `p`: a streaming store if `stream` (then `p` is on
    /// 16 bytes).
    ///
    /// # Safety
    ///
    /// `p` is valid for writing 16 bytes, and on 16 bytes if `stream`.
    #[inline(always)]
    unsafe fn store(p: *mut __m128i, v: __m128i, stream: bool) {
        // SAFETY: as the caller guarantees.
        unsafe {
            if stream {
                _mm_stream_si128(p, v);
            } else {
                _mm_storeu_si128(p, v);
            }
        }
    }

    /// Whether stores to `p` may stream: asked to, on 16 bytes, not
    /// under Miri.
    fn streams(stream: bool, p: *const u8) -> bool {
        stream && !cfg!(miri) && (p as usize).is_multiple_of(16)
    }

    /// The low nibbles of `x` with those of `y` above them, and the high
    /// nibbles likewise (`swap` on 16 pairs of bytes).
    #[inline(always)]
    fn swap16(x: __m128i, y: __m128i) -> (__m128i, __m128i) {
        // SAFETY: SSE2 is part of x86_64; register operations only.
        unsafe {
            let low = _mm_set1_epi8(0x0F);
            let high = _mm_set1_epi8(0xF0_u8.cast_signed());
            let lo = _mm_or_si128(
                _mm_and_si128(x, low),
                _mm_and_si128(_mm_slli_epi16::<4>(y), high),
            );
            let hi = _mm_or_si128(
                _mm_and_si128(_mm_srli_epi16::<4>(x), low),
                _mm_and_si128(y, high),
            );
            (lo, hi)
        }
    }

    /// [`pack_run`](super::pack_run) of the whole 16-byte blocks of `a`
    /// and `b` (as long as each other, `out` twice as long); returns the
    /// bytes of `a` done.
    pub(super) fn pack(a: &[u8], b: &[u8], out: &mut [u8], stream: bool) -> usize {
        let blocks = a.len().min(b.len()).min(out.len() / 2) / 16;
        let stream = streams(stream, out.as_ptr());
        for ((o, x), y) in out
            .chunks_exact_mut(32)
            .zip(a.chunks_exact(16))
            .zip(b.chunks_exact(16))
            .take(blocks)
        {
            // SAFETY: SSE2 is part of x86_64; `x` and `y` are 16 bytes and
            // `o` 32 (on 16 bytes if `stream`: `out` is, and each `o` 32
            // bytes on), so the loads and stores stay inside them.
            unsafe {
                let x = _mm_loadu_si128(x.as_ptr().cast());
                let y = _mm_loadu_si128(y.as_ptr().cast());
                let (lo, hi) = swap16(x, y);
                let p = o.as_mut_ptr().cast::<__m128i>();
                store(p, _mm_unpacklo_epi8(lo, hi), stream);
                store(p.add(1), _mm_unpackhi_epi8(lo, hi), stream);
            }
        }
        blocks * 16
    }

    /// [`unpack_run`](super::unpack_run) of the whole 32-byte blocks of
    /// `units` (`a` and `b` half as long); returns the bytes of `a` done.
    pub(super) fn unpack(units: &[u8], a: &mut [u8], b: &mut [u8], stream: bool) -> usize {
        let blocks = a.len().min(b.len()).min(units.len() / 2) / 16;
        let stream = streams(stream, a.as_ptr()) && streams(stream, b.as_ptr());
        for ((u, x), y) in units
            .chunks_exact(32)
            .zip(a.chunks_exact_mut(16))
            .zip(b.chunks_exact_mut(16))
            .take(blocks)
        {
            // SAFETY: SSE2 is part of x86_64; `u` is 32 bytes, `x` and `y`
            // 16 (on 16 bytes if `stream`: `a` and `b` are, and each 16
            // bytes on), so the loads and stores stay inside them.
            unsafe {
                let p = u.as_ptr().cast::<__m128i>();
                let (u0, u1) = (_mm_loadu_si128(p), _mm_loadu_si128(p.add(1)));
                let even_mask = _mm_set1_epi16(0x00FF);
                let even =
                    _mm_packus_epi16(_mm_and_si128(u0, even_mask), _mm_and_si128(u1, even_mask));
                let odd = _mm_packus_epi16(_mm_srli_epi16::<8>(u0), _mm_srli_epi16::<8>(u1));
                let (lo, hi) = swap16(even, odd);
                store(x.as_mut_ptr().cast(), lo, stream);
                store(y.as_mut_ptr().cast(), hi, stream);
            }
        }
        blocks * 16
    }
}
