//! AVX-512 transposes too large to stay in cache: the blocks of a band
//! two at a time, each destination row's two lines streamed one after the
//! other, rows off their lines realigned through a carry each (see
//! [`band_blocks`]).

use core::arch::x86_64::{
    __m512i, _MM_HINT_T1, _mm_prefetch, _mm512_mask_storeu_epi8, _mm512_stream_si512,
};

use super::{
    Lines, band, block_groups, load, load_rows, load_wrapped, permute, store_pairs, store_row,
    store64, transpose_group, write_groups,
};

/// Whole blocks of `C` source rows by `C` columns, down one band of a
/// large transpose (see [`band_blocks`]).
pub(super) struct Band {
    /// The band's first source element: its first column in the first
    /// block's first row.
    pub(super) src: *const u8,
    /// From one source row to the next (either sign).
    pub(super) row_bytes: isize,
    /// Where the first block's first destination row piece goes.
    pub(super) dst: *mut u8,
    /// From one destination row to the next.
    pub(super) dst_row_bytes: usize,
    /// Blocks of source rows.
    pub(super) blocks: usize,
    /// Source columns (destination rows), a multiple of `C`.
    pub(super) cols: usize,
    /// The lines the band's last group of blocks prefetches: those of the
    /// first group of the band written next (the next band of the tile,
    /// or the next tile's first band), as the first source element, the
    /// rows and the bytes a row. Where the tile has few block rows, as in
    /// NCHW→NHWC (64 source rows a tile: two pairs a band), that first
    /// group was half the reads, each from memory on demand. Measured on
    /// the 2-core AMD EPYC (one thread, fastest of 6 batches of 4 calls,
    /// µs, builds alternating, two or three runs), against prefetching
    /// there the same band's next rows (the next tile's, read only after
    /// every other band of this tile): NCHW→NHWC at 0:0 and 16:16
    /// 1306–1830 against 1811–2213, at 0:48 1706–1709 against 1985–2078,
    /// at 16:0 1353–1370 against 1876–1973; u8 8192² 8213–8253 against
    /// 9035–9039; f32 4096² 5400–5689 against 5666–5936; f64 2048² and the
    /// permutation (2,0,1) the same within the noise.
    pub(super) next: Option<(*const u8, usize, usize)>,
    /// In the first tile of a transpose with wrapped blocks (see
    /// [`super::blocks`]), where the first block row pairs with them.
    pub(super) wrapped: Option<Wrapped>,
}

/// The wrapped blocks (see [`super::blocks`]) that the first whole blocks of a
/// band pair with: in each destination row, the line of the wrapped block
/// of the columns one before the block's comes right before the block's
/// first line, so the two are streamed one after the other (see
/// [`band_blocks`]). Only for 2, 4 and 8-byte elements (`S = C`). Measured
/// (NCHW→NHWC f32\[32,64,56,56\], one thread, times a plain copy, fastest of
/// 21 calls, two processes, against the wrapped blocks streamed alone, a
/// line a row): the source on a line and the destination 16 bytes off
/// one 0.77–0.81 against 0.91–0.94, both 16 bytes off 0.88–0.98 against
/// 1.02–1.04.
#[derive(Clone, Copy)]
pub(super) struct Wrapped {
    /// The first source row after the whole blocks, at the band's first
    /// column.
    pub(super) tail: *const u8,
    /// Source row 0 at the band's first column.
    pub(super) head: *const u8,
    /// How many source rows are after the whole blocks (the rest of a
    /// wrapped block's `C` come from the next column's first rows).
    pub(super) rows: usize,
    /// Whether the band starts at the transpose's first column, which has
    /// no wrapped block before it.
    pub(super) first_column: bool,
}

/// The blocks of `band`, two block rows at a time (one where only one is
/// left), each pair left to right, written with streaming stores:
/// straight to the destination if its rows share their place in a line
/// (the blocks start on lines), else realigned through `carries` (see
/// [`put_piece`]); `scratch` holds the register groups of bytes (see
/// [`write_groups`]).
///
/// Two blocks one under the other make `C` destination row pieces of two
/// lines each, stored line after line (see [`stacked_blocks`]): streaming
/// stores to lines scattered one by one (a block's `C` rows apart) go out
/// at about half the rate of those to adjacent pairs. Measured on the
/// Xeon (2-vCPU VM, 64 MiB written with streaming stores, best of 9, three
/// runs): in order 3.3–3.6 ms, one line per 256-byte row down 64 rows
/// 6.0–6.5 ms, two adjacent lines per row 3.5–3.6 ms, one line per row of
/// 64 rows 16 KiB apart 6.1–6.6 ms and two 3.5–3.6 ms, the pair's two
/// lines 16 stores apart 4.8–5.0 ms.
///
/// # Safety
///
/// Every source row piece and destination row piece of the band's blocks
/// must be inside its buffer, and on a line unless `carries` is given
/// (then `band.cols` is at most [`MAX_BAND`]); `scratch` must be given
/// for bytes (`S < C`).
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[inline(never)]
#[allow(unsafe_code)]
pub(super) unsafe fn band_blocks<const N: usize, const S: usize>(
    band: &Band,
    mut scratch: Option<(&mut Lines, &mut Lines)>,
    mut carries: Option<&mut Carries>,
) {
    let c = 64 / N;
    let mut i0 = 0;
    while i0 < band.blocks {
        // The first block row pairs with the wrapped blocks, if any.
        let wrapped = band.wrapped.filter(|_| i0 == 0 && S == c);
        let stacked = if i0 + 1 < band.blocks && wrapped.is_none() {
            2
        } else {
            1
        };
        let src = band
            .src
            .wrapping_offset((i0 * c).cast_signed() * band.row_bytes);
        // The next group's lines, prefetched in one go, or for 1 and 2-byte
        // elements a part before each block column (see `prefetch_ahead`).
        let parts = if N <= 2 { band.cols / c } else { 1 };
        for j0 in (0..band.cols).step_by(c) {
            if j0 / c < parts {
                // SAFETY: the caller's contract (AVX-512 F on this CPU).
                unsafe { prefetch_ahead::<N>(band, src, (i0, stacked), (j0 / c, parts)) };
            }
            if let Some(w) = wrapped.filter(|w| j0 > 0 || !w.first_column) {
                // SAFETY: the caller's contract.
                unsafe { wrapped_pair::<N, S>(band, &w, src, j0) };
                continue;
            }
            let out = Out {
                first: band.dst.wrapping_add(j0 * band.dst_row_bytes + i0 * c * N),
                row_bytes: band.dst_row_bytes,
                carries: carries.as_mut().map(|k| &mut k.0[j0..j0 + c]),
                starting: i0 == 0,
            };
            // SAFETY: the caller's contract: `stacked` blocks of `C`
            // source rows of 64 bytes from column `j0`, destination rows
            // `j0..j0 + C`, `stacked` pieces of 64 bytes each, from the
            // first block's column.
            unsafe {
                stacked_blocks::<N, S>(
                    src.wrapping_add(j0 * N),
                    band.row_bytes,
                    out,
                    stacked,
                    scratch.as_mut().map(|(a, b)| (&mut **a, &mut **b)),
                );
            }
        }
        i0 += stacked;
    }
    if let Some(carries) = carries
        && band.blocks > 0
    {
        // SAFETY: the caller's contract.
        unsafe { last_pieces(band, carries) };
    }
}

/// Prefetches the band's lines of the next group of blocks after the
/// `stacked` block rows from `i0` (whose first source element is `src`):
/// a pair, even after the first block row that went with the wrapped
/// blocks alone, those of the tile. Measured (NCHW→NHWC, one thread,
/// back-to-back calls ÷ a copy, fastest of 12, two runs, against
/// prefetching only one block after the wrapped ones' group): the
/// destination 48 bytes off a line 1.14–1.20 against 1.27–1.28, both
/// buffers 16 bytes off 1.22–1.23 against 1.42–1.46, on lines 1.00–1.14
/// against 1.15–1.18. After the band's last group, the first group of the
/// band written next (see `Band::next`).
///
/// Part `part` of `parts` of those rows, so that the prefetches spread
/// over a group's block columns instead of queueing up at its start (the
/// 128 source rows of a group of bytes, 64 of 2-byte elements, each a
/// band's 256 bytes): measured on the 2-core AMD EPYC (Zen 4), one thread,
/// `relayout_matrix --size large --reps 15`, times the faster copy, seven
/// alternating runs, bf16[4096,4096] row-major into column-major and back
/// 1.44–1.70 and 1.46–1.63 against 1.69–2.13 and 1.75–2.01, u8 1.58–1.98
/// and 1.52–1.89 against 1.55–2.26 and 1.62–2.12; 4 and 8-byte elements
/// keep one part (`time_relayout`, best of 15, three runs: f64[2048,2048]
/// 3.16–3.22 ms spread against 2.75–3.37 ms, f32 the same within the
/// noise).
///
/// Like the other helpers of [`band_blocks`], always inlined into it (so
/// compiled for its target features, which `#[inline(always)]` cannot be
/// given itself).
///
/// # Safety
///
/// The CPU must have AVX-512 F.
#[inline(always)]
#[allow(unsafe_code)]
unsafe fn prefetch_ahead<const N: usize>(
    band: &Band,
    src: *const u8,
    (i0, stacked): (usize, usize),
    (part, parts): (usize, usize),
) {
    let c = 64 / N;
    let ahead = (band.blocks - (i0 + stacked)).min(2);
    // SAFETY (both): the caller's contract; prefetches never fault.
    let (first, rows, bytes) = if ahead > 0 {
        let next = src.wrapping_offset((stacked * c).cast_signed() * band.row_bytes);
        (next, ahead * c, band.cols * N)
    } else if let Some(next) = band.next {
        next
    } else {
        return;
    };
    let per = rows.div_ceil(parts);
    let from = (part * per).min(rows);
    let to = (from + per).min(rows);
    unsafe {
        prefetch_rows(
            first.wrapping_offset(from.cast_signed() * band.row_bytes),
            band.row_bytes,
            to - from,
            bytes,
        )
    };
}

/// The first whole block of the band's first block row at column `j0`
/// (its first row's first source element at `src`) and the wrapped block
/// `w` of the columns from `j0 - 1` before it, whose destination line is
/// the one before the block's in each row: the two streamed one after the
/// other.
///
/// # Safety
///
/// As for [`band_blocks`] (AVX-512 F, BW and VBMI on this CPU), for both
/// blocks.
#[inline(always)]
#[allow(unsafe_code)]
unsafe fn wrapped_pair<const N: usize, const S: usize>(
    band: &Band,
    w: &Wrapped,
    src: *const u8,
    j0: usize,
) {
    // SAFETY: the caller's contract: the block as below, and
    // the wrapped block of the columns from `j0 - 1`, whose
    // destination line is the one before the block's in each
    // row.
    unsafe {
        let regs = load_wrapped::<S>(
            w.tail.wrapping_add(j0 * N).wrapping_sub(N),
            w.head.wrapping_add(j0 * N),
            band.row_bytes,
            w.rows,
        );
        let before = transpose_group::<N, S>(regs);
        let regs = load_rows::<S>(src.wrapping_add(j0 * N), band.row_bytes);
        let block = transpose_group::<N, S>(regs);
        let out = band.dst.add(j0 * band.dst_row_bytes);
        store_pairs(&before, &block, out.sub(64), band.dst_row_bytes, true);
    }
}

/// Each row's last piece of a band written through `carries`: the part
/// of it on the line after the last one streamed.
///
/// # Safety
///
/// As for [`band_blocks`] (AVX-512 F and BW on this CPU), the band having
/// at least one block.
#[inline(always)]
#[allow(unsafe_code)]
unsafe fn last_pieces(band: &Band, carries: &mut Carries) {
    for (r, carry) in carries.0.iter().take(band.cols).enumerate() {
        let last = band
            .dst
            .wrapping_add(r * band.dst_row_bytes + (band.blocks - 1) * 64);
        let place = last.addr() % 64;
        if place > 0 {
            // SAFETY: the caller's contract: the last piece of row `r`
            // is 64 bytes inside the destination.
            unsafe {
                _mm512_mask_storeu_epi8(last.cast(), !(u64::MAX >> place), load(carry));
            }
        }
    }
}

/// The widest band of a large transpose whose destination rows are
/// realigned through carries, in destination rows (128 bytes of the
/// source rows: [`band`] for bytes).
pub(super) const MAX_BAND: usize = 128;

const _: () = assert!(
    band(1, true) <= MAX_BAND
        && band(2, true) <= MAX_BAND
        && band(4, true) <= MAX_BAND
        && band(8, true) <= MAX_BAND,
    "every realigned band fits the carries"
);

/// A 64-byte carry for each destination row of a band (see
/// [`put_piece`]).
#[repr(align(64))]
pub(super) struct Carries(pub(super) [[u8; 64]; MAX_BAND]);

/// Where [`stacked_blocks`] writes: row pieces `row_bytes` apart from
/// `first`, straight, or through `carries` (one a row) if given.
struct Out<'a> {
    /// The first row's first piece.
    first: *mut u8,
    /// From one row to the next.
    row_bytes: usize,
    /// The rows' carries, where the rows do not start on lines.
    carries: Option<&'a mut [[u8; 64]]>,
    /// Whether these are the first pieces of the rows in this band.
    starting: bool,
}

impl Out<'_> {
    /// Writes `reg` as piece `piece` (0 or 1: the two blocks of a pair)
    /// of row `row` (see [`put_piece`]).
    ///
    /// # Safety
    ///
    /// The piece must be 64 bytes inside the destination, on a line
    /// unless there are carries (then `row` below their count).
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    #[inline]
    #[allow(unsafe_code)]
    unsafe fn put(&mut self, row: usize, piece: usize, reg: __m512i) {
        let at = self.first.wrapping_add(row * self.row_bytes + piece * 64);
        // SAFETY: the caller's contract.
        unsafe {
            match &mut self.carries {
                None => store_row(reg, at, true, None),
                Some(carries) => put_piece(reg, at, &mut carries[row], self.starting && piece == 0),
            }
        }
    }
}

/// Writes `reg`, a destination row piece of 64 bytes at `at` that need
/// not start on a line, with a streaming store of the whole line it
/// starts in: the end of the row's previous piece (its `carry`) then the
/// start of this one, bytes shifted with a two-table byte permute
/// ([`SHIFTS`]). The row's first piece in a band (`first`) writes its
/// part of its first line with a masked ordinary store instead (the line
/// is shared with what comes before it), and [`band_blocks`] writes the
/// last piece's part of the line after the last one. `reg` becomes the
/// carry. Measured on the Xeon (2-vCPU VM, one thread, times a plain copy,
/// best of 9, against the ordinary stores these rows had before): f32
/// \[1000,3000\] 1.60 against 4.15, \[3000,1000\] 1.64 against 3.67,
/// \[4104,4096\] 1.33 against 2.97; f64 \[2050,2050\] 1.31 against 2.59; u8
/// \[8200,8192\] 1.90 against 3.61; u16 \[4100,4096\] 2.40 against 4.22.
///
/// # Safety
///
/// The 64 bytes at `at` must be inside the destination, and (unless
/// `first`) the row's previous piece must be the 64 bytes before them,
/// held in `carry`.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[inline]
#[allow(unsafe_code)]
unsafe fn put_piece(reg: __m512i, at: *mut u8, carry: &mut [u8; 64], first: bool) {
    let place = at.addr() % 64;
    // SAFETY: the caller's contract: the line from `at - place` holds
    // the previous piece's last `place` bytes and this one's first.
    unsafe {
        if first {
            _mm512_mask_storeu_epi8(at.cast(), u64::MAX >> place, reg);
        } else {
            let line = permute::<1>(load(carry), load(&SHIFTS[place]), reg);
            _mm512_stream_si512(at.sub(place).cast(), line);
        }
    }
    store64(reg, carry);
}

/// For each place `p` in a line, the byte permute indices that make the
/// line starting `p` bytes before a piece from the previous piece (first
/// table) and the piece (second): byte `k` is byte `64 - p + k` of the
/// two.
const SHIFTS: [[u8; 64]; 64] = {
    let mut shifts = [[0; 64]; 64];
    let mut p = 0;
    while p < 64 {
        let mut k = 0;
        while k < 64 {
            shifts[p][k] = (64 - p + k) as u8;
            k += 1;
        }
        p += 1;
    }
    shifts
};

/// `stacked` (1 or 2) whole blocks, one under the other: source rows of
/// 64 bytes from `first`, `row_bytes` apart (the second block's `C` rows
/// further), transposed into `C` destination row pieces of `64 ·
/// stacked` bytes, written through `out` line after line. Bytes meet
/// their register groups in `scratch` (one `Lines` a block).
///
/// # Safety
///
/// Each of those rows must be inside its buffer, as for [`Out::put`];
/// `scratch` must be given if `S < C`.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[inline]
#[allow(unsafe_code)]
unsafe fn stacked_blocks<const N: usize, const S: usize>(
    first: *const u8,
    row_bytes: isize,
    mut out: Out<'_>,
    stacked: usize,
    scratch: Option<(&mut Lines, &mut Lines)>,
) {
    let c = 64 / N;
    let second = first.wrapping_offset(c.cast_signed() * row_bytes);
    if S == c {
        // SAFETY: the caller's contract (the second block's rows only
        // where `stacked` is 2).
        unsafe {
            let upper = transpose_group::<N, S>(load_rows::<S>(first, row_bytes));
            if stacked == 1 {
                for (row, &reg) in upper.iter().enumerate() {
                    out.put(row, 0, reg);
                }
                return;
            }
            let lower = transpose_group::<N, S>(load_rows::<S>(second, row_bytes));
            for (row, (&upper, &lower)) in upper.iter().zip(&lower).enumerate() {
                out.put(row, 0, upper);
                out.put(row, 1, lower);
            }
        }
    } else if let Some((upper, lower)) = scratch {
        // SAFETY: the caller's contract.
        unsafe {
            block_groups::<N, S>(first, row_bytes, c, upper);
            if stacked == 2 {
                block_groups::<N, S>(second, row_bytes, c, lower);
            }
        }
        let blocks: &[&Lines] = if stacked == 1 {
            &[upper]
        } else {
            &[upper, lower]
        };
        // SAFETY: the caller's contract, for each piece.
        write_groups::<S>(blocks, |row, piece, reg| unsafe {
            out.put(row, piece, reg)
        });
    }
}

/// Prefetches `bytes` bytes of each of `rows` rows, the first at `first`,
/// `stride` bytes apart (a hint: never faults, whatever the addresses),
/// into L2 (`T1`): a `T0` prefetch waits for one of L1's few miss buffers,
/// stalling the loads and stores of the block in flight. Measured (times
/// a plain copy, best of 5, buffers on a line and 16 bytes off, `T1`
/// against `T0` in alternating runs): f32 4096² 1.12–1.30 against
/// 1.32–1.43, the permutation (2,0,1) 1.01–1.35 against 1.54–1.70,
/// NCHW→NHWC 0.84–1.07 against 1.19–1.33, u8 8192² 1.61–2.05 against
/// 1.94–2.10; `NTA` 1.17–1.42, 1.45–1.60, 1.07–1.32, 1.83–2.20; two blocks
/// ahead instead of one: no better.
#[target_feature(enable = "avx512f")]
pub(super) fn prefetch_rows(first: *const u8, stride: isize, rows: usize, bytes: usize) {
    let mut row = first;
    for _ in 0..rows {
        // Every line the row's bytes touch: one more where they start
        // inside a line (measured, u16 [4096,4100], whose source rows
        // start anywhere in a line: 1.53–1.74 times a copy against
        // 2.55–2.63 with the row's first line only).
        let place = row.addr() % 64;
        let line = row.wrapping_sub(place);
        for offset in (0..place + bytes).step_by(64) {
            _mm_prefetch::<_MM_HINT_T1>(line.wrapping_add(offset).cast());
        }
        row = row.wrapping_offset(stride);
    }
}
