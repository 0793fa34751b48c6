//! The copy between `M` rows and their element-wise interleaving, the
//! innermost step of relayouts to and from XLA's packing tiles such as
//! `(8,128)(2,1)` (bf16) or `(8,128)(4,1)` (8-bit): `M` source rows of `K`
//! elements become one run of `K` groups of `M` (or back). The general
//! engine sees a transpose with one side of `M` < 8 elements and copies it
//! element by element; here each run is one pass over `M` row slices.

use super::RelayoutError;
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
use super::kernels::x86::avx512_interleave::{fence, pack as simd_pack, unpack as simd_unpack};
use super::kernels::{for_each_outer, is_large_bytes};
use super::plan::Dim;
use stride_util::StridedView;

/// The packed side: its innermost dimension has `M` elements at stride 1,
/// the next `K` groups at stride `M`; the rows side has those dimensions
/// at stride `row_stride` and 1.
#[derive(Debug, Clone, Copy)]
struct Pattern {
    /// The dimension of the `M` rows (stride 1 on the packed side).
    rows: usize,
    /// The dimension along a row (stride 1 on the rows side).
    along: usize,
    /// The number of rows.
    m: usize,
    /// The length of a row.
    k: usize,
    /// The distance between rows on the rows side.
    row_stride: i64,
}

/// Finds the pattern with `packed` the packed side, `rows` the other.
fn find(packed: &StridedView, rows: &StridedView) -> Option<Pattern> {
    let dims = packed.sizes().len();
    let r = (0..dims).find(|&d| packed.strides()[d] == 1 && packed.sizes()[d] > 1)?;
    let m = packed.sizes()[r];
    let a = (0..dims).find(|&d| {
        d != r && packed.strides()[d] == m && rows.strides()[d] == 1 && packed.sizes()[d] >= 8
    })?;
    let row_stride = rows.strides()[r];
    (row_stride > 0).then_some(Pattern {
        rows: r,
        along: a,
        m: usize::try_from(m).ok()?,
        k: usize::try_from(packed.sizes()[a]).ok()?,
        row_stride,
    })
}

/// The other dimensions (one run to copy per index), with both strides,
/// in the views' order (whole runs of `k · M` elements written one after
/// the other), except when packing a large copy (`stream`: one from
/// memory) from more than [`MAX_ROW_STREAMS`] source rows in turn (the
/// innermost dimension's extent times `M`): then
/// the source's smallest stride goes innermost, so that `M` rows at a time
/// are read on along the lines the previous run ended on, which the
/// hardware prefetchers follow, and the runs land wherever they go.
fn outer(
    src: &StridedView,
    dst: &StridedView,
    p: &Pattern,
    packing: bool,
    stream: bool,
) -> Vec<Dim> {
    let mut dims: Vec<Dim> = (0..src.ndim())
        .filter(|&d| d != p.rows && d != p.along && src.sizes()[d] > 1)
        .map(|d| Dim {
            size: src.sizes()[d],
            src: src.strides()[d],
            dst: dst.strides()[d],
        })
        .collect();
    let m = i64::try_from(p.m).unwrap_or(i64::MAX);
    let streams = dims.last().map_or(0, |dim| dim.size).saturating_mul(m);
    if packing && stream && streams > MAX_ROW_STREAMS {
        dims.sort_by_key(|dim| std::cmp::Reverse(dim.src.unsigned_abs()));
    }
    dims
}

/// How many source rows packing may read in turn before it reorders its
/// runs (see [`outer`]). Measured (one thread, times a plain copy, AMD EPYC
/// Zen 4 with AVX-512, alternating builds): u8 `[4096,4096]` into
/// `T(32,128)(4,1)` (32 rows a tile) 2.3 in the views' order, 1.3–1.4
/// reordered; bf16 into `T(8,128)(2,1)` (8 rows) 0.93–1.05 in the views'
/// order, 1.1–1.3 reordered; in cache (u8 `[512,512]`) 2.8–2.9 in the
/// views' order, 3.1–3.2 reordered.
const MAX_ROW_STREAMS: i64 = 16;

/// Copies `src_view` into `dst_view` if one of them is the packed side of
/// the pattern with 2 or 4 rows of 1-, 2- or 4-byte elements. `false` if
/// the pattern does not apply (nothing written) or, after a partial copy,
/// if a run is not inside its buffer (which the checks here exclude): the
/// caller then copies everything with the engine.
///
/// # Errors
///
/// As [`StridedView::has_overlap`] for the destination (never for views
/// that passed the engine's checks).
pub(crate) fn try_copy(
    src: &[u8],
    src_view: &StridedView,
    dst: &mut [u8],
    dst_view: &StridedView,
    bits: u32,
) -> Result<bool, RelayoutError> {
    try_copy_part(src, src_view, dst, dst_view, bits, None)
}

/// [`try_copy`] as one part of a copy of `whole_bytes` bytes if given,
/// which decides whether the stores stream (else this copy's own size).
pub(crate) fn try_copy_part(
    src: &[u8],
    src_view: &StridedView,
    dst: &mut [u8],
    dst_view: &StridedView,
    bits: u32,
    whole_bytes: Option<u64>,
) -> Result<bool, RelayoutError> {
    let n = bits as usize / 8;
    if !bits.is_multiple_of(8)
        || !matches!(n, 1 | 2 | 4)
        || src_view.sizes() != dst_view.sizes()
        || src_view.is_empty()
    {
        return Ok(false);
    }
    let (pattern, packing) = match find(dst_view, src_view) {
        Some(p) => (p, true),
        None => match find(src_view, dst_view) {
            Some(p) => (p, false),
            None => return Ok(false),
        },
    };
    if !matches!(pattern.m, 2 | 4) {
        return Ok(false);
    }
    // Every element of both views must be inside its buffer.
    let inside = |view: &StridedView, len: usize| {
        view.check_inside(i64::try_from(len / n).unwrap_or(i64::MAX))
            .is_ok()
    };
    if !inside(src_view, src.len()) || !inside(dst_view, dst.len()) || dst_view.has_overlap()? {
        return Ok(false);
    }
    let bytes =
        usize::try_from(src_view.num_elements()).map_or(usize::MAX, |e| e.saturating_mul(n));
    let stream = is_large_bytes(whole_bytes.unwrap_or(bytes as u64));
    let runs = Runs {
        outer: outer(src_view, dst_view, &pattern, packing, stream),
        src_offset: src_view.offset(),
        dst_offset: dst_view.offset(),
        pattern,
        packing,
        stream,
    };
    let complete = match (n, pattern.m) {
        (1, 2) => runs.copy::<1, 2>(src, dst),
        (1, 4) => runs.copy::<1, 4>(src, dst),
        (2, 2) => runs.copy::<2, 2>(src, dst),
        (2, 4) => runs.copy::<2, 4>(src, dst),
        (4, 2) => runs.copy::<4, 2>(src, dst),
        (4, 4) => runs.copy::<4, 4>(src, dst),
        _ => false,
    };
    if runs.stream {
        fence();
    }
    Ok(complete)
}

/// The runs of one copy.
struct Runs {
    /// The dimensions other than the pattern's.
    outer: Vec<Dim>,
    src_offset: i64,
    dst_offset: i64,
    pattern: Pattern,
    /// Whether the destination is the packed side.
    packing: bool,
    /// Whether the copy is large enough to write with streaming stores.
    stream: bool,
}

impl Runs {
    /// Copies every run with `N`-byte elements and `M` rows; `false` (after
    /// a partial copy) only if a run is outside its buffer, which the
    /// caller's checks exclude.
    fn copy<const N: usize, const M: usize>(&self, src: &[u8], dst: &mut [u8]) -> bool {
        let (src, dst) = (src.as_chunks::<N>().0, dst.as_chunks_mut::<N>().0);
        if self.copy_batched::<N, M>(src, dst) {
            return true;
        }
        let (k, stride) = (self.pattern.k, self.pattern.row_stride);
        let mut complete = true;
        for_each_outer(&self.outer, self.src_offset, self.dst_offset, |s, d| {
            let done = if self.packing {
                pack::<N, M>(src, s, stride, k, dst, d, self.stream)
            } else {
                unpack::<N, M>(src, s, dst, d, stride, k, self.stream)
            };
            complete &= done.is_some();
        });
        complete
    }
}

impl Runs {
    /// Copies every run with the AVX-512 kernels of many runs a call, in
    /// batches of [`BATCH`] runs, in cache (large copies wait on memory
    /// either way: bf16\[4096,4096\] out of `T(8,128)(2,1)` measured
    /// 0.66–0.79 times a plain copy in batches against 0.61–0.67 a call a
    /// run); `false` (nothing written) where they do not take these runs
    /// (see `RunShape::applies`) or the copy streams.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    fn copy_batched<const N: usize, const M: usize>(
        &self,
        src: &[[u8; N]],
        dst: &mut [[u8; N]],
    ) -> bool {
        use super::kernels::x86::avx512_interleave_runs::{RunShape, copy_runs};
        let Some(stride) = at(self.pattern.row_stride).filter(|_| !self.stream) else {
            return false;
        };
        let shape = RunShape {
            k: self.pattern.k,
            stride,
        };
        let copy = |runs: &[(usize, usize)], dst: &mut [[u8; N]]| {
            copy_runs::<N, M>(src, dst, runs, shape, self.packing)
        };
        // No runs: whether the kernels take the shape on this CPU.
        if !copy(&[], dst) {
            return false;
        }
        // A batch that fails its bounds check (which the caller's checks
        // exclude) leaves every run to the loops, which write the same
        // elements again.
        let (mut batch, mut len, mut done) = ([(0_usize, 0_usize); BATCH], 0, true);
        for_each_outer(&self.outer, self.src_offset, self.dst_offset, |s, d| {
            let (Some(s), Some(d), true) = (at(s), at(d), done) else {
                done = false;
                return;
            };
            batch[len] = (s, d);
            len += 1;
            if len == BATCH {
                done = copy(&batch, dst);
                len = 0;
            }
        });
        done && copy(&batch[..len], dst)
    }

    /// Without x86_64 there is no AVX-512 kernel.
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    fn copy_batched<const N: usize, const M: usize>(
        &self,
        _: &[[u8; N]],
        _: &mut [[u8; N]],
    ) -> bool {
        false
    }
}

/// Runs a call of the AVX-512 kernels of many runs.
#[cfg(target_arch = "x86_64")]
const BATCH: usize = 64;

/// Interleaves the `M` rows of `k` elements at `s + i·stride` into the
/// `k·M` elements at `d` (AVX-512 as far as it goes, with streaming stores
/// if `stream`, then vectorised loops).
fn pack<const N: usize, const M: usize>(
    src: &[[u8; N]],
    s: i64,
    stride: i64,
    k: usize,
    dst: &mut [[u8; N]],
    d: i64,
    stream: bool,
) -> Option<()> {
    let out = dst.get_mut(at(d)?..at(d)?.checked_add(k.checked_mul(M)?)?)?;
    let mut rows: [&[[u8; N]]; M] = [&[]; M];
    for (i, row) in (0_i64..).zip(rows.iter_mut()) {
        let start = at(s.checked_add(stride.checked_mul(i)?)?)?;
        *row = src.get(start..start.checked_add(k)?)?;
    }
    let done = simd_pack::<N, M>(&rows, out, stream);
    if done == k {
        return Some(());
    }
    let (groups, _) = out[done * M..].as_chunks_mut::<M>();
    let row = |i: usize| Some(&rows.get(i)?[done..]);
    // Zipped iterators: no bounds checks, and the loops vectorize.
    if M == 2 && N == 2 {
        // Pairs of 16-bit elements as 32-bit words.
        let words = groups
            .as_flattened_mut()
            .as_flattened_mut()
            .as_chunks_mut::<4>()
            .0;
        let (a, b) = (
            row(0)?.as_flattened().as_chunks::<2>().0,
            row(1)?.as_flattened().as_chunks::<2>().0,
        );
        for ((word, a), b) in words.iter_mut().zip(a).zip(b) {
            let w = u32::from(u16::from_le_bytes(*a)) | (u32::from(u16::from_le_bytes(*b)) << 16);
            *word = w.to_le_bytes();
        }
    } else if M == 4 && N == 1 {
        // Quads of bytes as 32-bit words: widening shifts, which vectorize.
        let words = groups
            .as_flattened_mut()
            .as_flattened_mut()
            .as_chunks_mut::<4>()
            .0;
        let bytes = |i: usize| Some(row(i)?.as_flattened());
        let (a, b, c, e) = (bytes(0)?, bytes(1)?, bytes(2)?, bytes(3)?);
        for (((word, a), b), (c, e)) in words.iter_mut().zip(a).zip(b).zip(c.iter().zip(e)) {
            let w = u32::from(*a)
                | (u32::from(*b) << 8)
                | (u32::from(*c) << 16)
                | (u32::from(*e) << 24);
            *word = w.to_le_bytes();
        }
    } else if M == 2 {
        for ((group, a), b) in groups.iter_mut().zip(row(0)?).zip(row(1)?) {
            group.copy_from_slice(&[*a, *b][..M]);
        }
    } else {
        for (((group, a), b), (c, e)) in groups
            .iter_mut()
            .zip(row(0)?)
            .zip(row(1)?)
            .zip(row(2)?.iter().zip(row(3)?))
        {
            group.copy_from_slice(&[*a, *b, *c, *e][..M]);
        }
    }
    Some(())
}

/// Splits the `k·M` elements at `s` into the `M` rows of `k` elements at
/// `d + i·stride` (`stride ≥ k`: the rows do not overlap), AVX-512 as far
/// as it goes (with streaming stores if `stream`), then loops.
fn unpack<const N: usize, const M: usize>(
    src: &[[u8; N]],
    s: i64,
    dst: &mut [[u8; N]],
    d: i64,
    stride: i64,
    k: usize,
    stream: bool,
) -> Option<()> {
    let packed = src.get(at(s)?..at(s)?.checked_add(k.checked_mul(M)?)?)?;
    let stride = at(stride).filter(|&stride| stride >= k)?;
    let span = stride.checked_mul(M - 1)?.checked_add(k)?;
    let mut rest = dst.get_mut(at(d)?..at(d)?.checked_add(span)?)?;
    let mut rows: [&mut [[u8; N]]; M] = std::array::from_fn(|_| &mut [][..]);
    for (i, row) in rows.iter_mut().enumerate() {
        let (head, tail) =
            std::mem::take(&mut rest).split_at_mut(if i + 1 < M { stride } else { k });
        *row = head.get_mut(..k)?;
        rest = tail;
    }
    let done = simd_unpack::<N, M>(packed, &mut rows, stream);
    if done == k {
        return Some(());
    }
    let (groups, _) = packed[done * M..].as_chunks::<M>();
    let packed = &packed[done * M..];
    for row in &mut rows {
        *row = &mut std::mem::take(row)[done..];
    }
    match rows.as_mut_slice() {
        [a, b] if N == 2 => {
            // Pairs of 16-bit elements as 32-bit words: shifts and packs.
            let words = packed.as_flattened().as_chunks::<4>().0;
            let a = a.as_flattened_mut().as_chunks_mut::<2>().0;
            let b = b.as_flattened_mut().as_chunks_mut::<2>().0;
            for ((word, a), b) in words.iter().zip(a.iter_mut()).zip(b.iter_mut()) {
                // Arithmetic shifts keep both halves in i16 range, so the
                // narrowing is one signed pack (SSE2 `packssdw`).
                let w = i32::from_le_bytes(*word);
                *a = (((w << 16) >> 16) as i16).to_le_bytes();
                *b = ((w >> 16) as i16).to_le_bytes();
            }
        }
        [a, b] => {
            for ((group, a), b) in groups.iter().zip(a.iter_mut()).zip(b.iter_mut()) {
                *a = group[0];
                *b = group[1];
            }
        }
        [a, b, c, e] => {
            for (((group, a), b), (c, e)) in groups
                .iter()
                .zip(a.iter_mut())
                .zip(b.iter_mut())
                .zip(c.iter_mut().zip(e.iter_mut()))
            {
                *a = group[0];
                *b = group[1];
                *c = group[2];
                *e = group[3];
            }
        }
        _ => return None,
    }
    Some(())
}

/// Without x86_64 there is no AVX-512 kernel.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
fn simd_pack<const N: usize, const M: usize>(
    _: &[&[[u8; N]]; M],
    _: &mut [[u8; N]],
    _: bool,
) -> usize {
    0
}

/// Without x86_64 there is no AVX-512 kernel.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
fn simd_unpack<const N: usize, const M: usize>(
    _: &[[u8; N]],
    _: &mut [&mut [[u8; N]]; M],
    _: bool,
) -> usize {
    0
}

/// Without x86_64 nothing streams.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
fn fence() {}

fn at(offset: i64) -> Option<usize> {
    usize::try_from(offset).ok()
}
