//! The copy kernels, generic over the element size `N` (elements are
//! `[u8; N]`, so any alignment works in safe code). Offsets were validated
//! against both buffers before a kernel runs.

use super::plan::{Dim, Plan, Strategy};

/// Calls `f(src_offset, dst_offset)` for every index of `dims` (outermost
/// first), starting at `(src, dst)`, with incremental offsets.
fn for_each_outer(dims: &[Dim], src: i64, dst: i64, mut f: impl FnMut(i64, i64)) {
    let mut index = vec![0_i64; dims.len()];
    let (mut s, mut d) = (src, dst);
    loop {
        f(s, d);
        let mut k = dims.len();
        loop {
            if k == 0 {
                return;
            }
            k -= 1;
            index[k] += 1;
            // Past the end these may leave the valid range; they are
            // rewound before use.
            s = s.wrapping_add(dims[k].src);
            d = d.wrapping_add(dims[k].dst);
            if index[k] < dims[k].size {
                break;
            }
            index[k] = 0;
            s = s.wrapping_sub(dims[k].size.wrapping_mul(dims[k].src));
            d = d.wrapping_sub(dims[k].size.wrapping_mul(dims[k].dst));
        }
    }
}

/// A validated element offset as a slice index.
fn at(offset: i64) -> usize {
    usize::try_from(offset).unwrap_or(usize::MAX)
}

/// The tile side for `N`-byte elements: rows of 256 to 1024 bytes, so a
/// tile (64 to 256 KiB) stays in L2 while source rows and destination rows
/// are each touched as one contiguous segment. Measured on the 4096² f32
/// and 2048² f64 transposes and NCHW→NHWC: 64-byte tile rows (16 KiB
/// tiles, in L1) were 1.6× slower than 1 KiB rows, 2 KiB rows no better.
pub(crate) const fn tile_side(n: usize) -> usize {
    match n {
        1 | 2 | 4 => 256,
        8 => 128,
        _ => 64,
    }
}

/// Padding to write right after each destination row (the innermost
/// dimension, stride 1): `count` copies of `element`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tail<const N: usize> {
    pub(crate) element: [u8; N],
    pub(crate) count: usize,
}

impl<const N: usize> Tail<N> {
    /// Fills the tail of the row ending just before `row_end`.
    fn write(&self, dst: &mut [[u8; N]], row_end: usize) {
        dst[row_end..row_end + self.count].fill(self.element);
    }
}

/// Copies the elements of `plan` from `src` to `dst`, writing `tail` after
/// every destination row if given (the caller checked that the innermost
/// dimension of the plan is the destination's row).
pub(crate) fn copy<const N: usize>(
    plan: &Plan,
    src: &[[u8; N]],
    dst: &mut [[u8; N]],
    tail: Option<Tail<N>>,
) {
    let (strategy, tiled_dim) = plan.strategy();
    let Some((&inner, outer)) = plan.dims.split_last() else {
        // Rank 0 (after dropping size-1 dimensions): one element.
        dst[at(plan.dst_offset)] = src[at(plan.src_offset)];
        return;
    };
    let n = at(inner.size);
    match strategy {
        Strategy::Empty => {}
        Strategy::SingleCopy | Strategy::Runs => {
            for_each_outer(outer, plan.src_offset, plan.dst_offset, |s, d| {
                let (s, d) = (at(s), at(d));
                dst[d..d + n].copy_from_slice(&src[s..s + n]);
                if let Some(tail) = &tail {
                    tail.write(dst, d + n);
                }
            });
        }
        Strategy::Tiled => {
            let a = plan.dims.len() - 1;
            let others: Vec<Dim> = plan
                .dims
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != a && i != tiled_dim)
                .map(|(_, d)| *d)
                .collect();
            let (da, db) = (plan.dims[a], plan.dims[tiled_dim]);
            let side = tile_side(N);
            let mut tile = vec![[0_u8; N]; side * side];
            for_each_outer(&others, plan.src_offset, plan.dst_offset, |s, d| {
                // Register tiles of M×M elements, one M-element row per lane.
                match N {
                    1 => transpose_tiles::<N, 8, u64>(src, dst, s, d, da, db, &mut tile, side),
                    2 => transpose_tiles::<N, 4, u64>(src, dst, s, d, da, db, &mut tile, side),
                    4 => transpose_tiles::<N, 4, u128>(src, dst, s, d, da, db, &mut tile, side),
                    8 => transpose_tiles::<N, 2, u128>(src, dst, s, d, da, db, &mut tile, side),
                    _ => transpose_tiles::<N, 1, u128>(src, dst, s, d, da, db, &mut tile, side),
                }
                if let Some(tail) = &tail {
                    // One row per index of the tiled source dimension.
                    let mut row = d;
                    for _ in 0..db.size {
                        tail.write(dst, at(row) + n);
                        row += db.dst;
                    }
                }
            });
        }
        Strategy::Strided => {
            for_each_outer(outer, plan.src_offset, plan.dst_offset, |s, d| {
                let (mut s_k, mut d_k) = (s, d);
                for _ in 0..inner.size {
                    dst[at(d_k)] = src[at(s_k)];
                    s_k = s_k.wrapping_add(inner.src);
                    d_k = d_k.wrapping_add(inner.dst);
                }
                if let Some(tail) = &tail {
                    tail.write(dst, at(d) + n);
                }
            });
        }
    }
}

/// One 2-D transpose: `a` is contiguous in the destination (stride 1),
/// `b` in the source (stride 1). Each tile is read as source row segments
/// into `tile`, then written as destination row segments, transposed in
/// registers `L::BYTES / N` elements at a time.
#[allow(clippy::too_many_arguments)]
fn transpose_tiles<const N: usize, const M: usize, L: Lane>(
    src: &[[u8; N]],
    dst: &mut [[u8; N]],
    src_base: i64,
    dst_base: i64,
    a: Dim,
    b: Dim,
    tile: &mut [[u8; N]],
    side: usize,
) {
    let step = i64::try_from(side).unwrap_or(i64::MAX);
    let mut b0 = 0_i64;
    while b0 < b.size {
        let tb = at(step.min(b.size - b0));
        let mut a0 = 0_i64;
        while a0 < a.size {
            let ta = at(step.min(a.size - a0));
            // Source rows: fixed a, contiguous along b.
            let mut s = src_base + a0 * a.src + b0;
            for row in tile.chunks_exact_mut(side).take(ta) {
                let start = at(s);
                row[..tb].copy_from_slice(&src[start..start + tb]);
                s += a.src;
            }
            let first_row = dst_base + b0 * b.dst + a0;
            scatter::<N, M, L>(tile, side, ta, tb, dst, first_row, b.dst);
            a0 += step;
        }
        b0 += step;
    }
}

/// Writes the transpose of the `ta × tb` block of `tile` (row length
/// `side`) to `tb` destination rows of `ta` elements, the first at
/// `first_row`, `row_stride` apart.
fn scatter<const N: usize, const M: usize, L: Lane>(
    tile: &[[u8; N]],
    side: usize,
    ta: usize,
    tb: usize,
    dst: &mut [[u8; N]],
    first_row: i64,
    row_stride: i64,
) {
    let (full_a, full_b) = (ta - ta % M, tb - tb % M);
    let block_stride = row_stride * i64::try_from(M).unwrap_or(0);
    let mut block_row = first_row;
    for j0 in (0..full_b).step_by(M) {
        for i0 in (0..full_a).step_by(M) {
            let mut rows = [L::ZERO; M];
            for (r, row) in rows.iter_mut().enumerate() {
                let k = (i0 + r) * side + j0;
                *row = L::load(tile[k..k + M].as_flattened());
            }
            transpose_lanes::<L, M>(&mut rows, N);
            let mut d = block_row;
            for row in rows {
                let start = at(d) + i0;
                row.store(dst[start..start + M].as_flattened_mut());
                d += row_stride;
            }
        }
        block_row += block_stride;
    }
    // The edges: columns past the last full block, then rows past it.
    let row_start = |j: usize| at(first_row + i64::try_from(j).unwrap_or(0) * row_stride);
    for j in 0..tb {
        let start = row_start(j);
        let i_range = if j < full_b { full_a..ta } else { 0..ta };
        for i in i_range {
            dst[start + i] = tile[i * side + j];
        }
    }
}

/// An integer holding a row of `BYTES / N` elements of a register tile.
pub(crate) trait Lane:
    Copy
    + std::ops::BitAnd<Output = Self>
    + std::ops::BitOr<Output = Self>
    + std::ops::Not<Output = Self>
    + std::ops::Shl<u32, Output = Self>
    + std::ops::Shr<u32, Output = Self>
{
    /// The width in bytes.
    const BYTES: usize;
    /// Zero.
    const ZERO: Self;
    /// All bits set.
    const ONES: Self;
    /// Little-endian load of `BYTES` bytes.
    fn load(bytes: &[u8]) -> Self;
    /// Little-endian store of `BYTES` bytes.
    fn store(self, bytes: &mut [u8]);
}

impl Lane for u64 {
    const BYTES: usize = 8;
    const ZERO: Self = 0;
    const ONES: Self = u64::MAX;
    fn load(bytes: &[u8]) -> Self {
        let mut raw = [0; 8];
        raw.copy_from_slice(bytes);
        u64::from_le_bytes(raw)
    }
    fn store(self, bytes: &mut [u8]) {
        bytes.copy_from_slice(&self.to_le_bytes());
    }
}

impl Lane for u128 {
    const BYTES: usize = 16;
    const ZERO: Self = 0;
    const ONES: Self = u128::MAX;
    fn load(bytes: &[u8]) -> Self {
        let mut raw = [0; 16];
        raw.copy_from_slice(bytes);
        u128::from_le_bytes(raw)
    }
    fn store(self, bytes: &mut [u8]) {
        bytes.copy_from_slice(&self.to_le_bytes());
    }
}

/// Transposes the square matrix of `n`-byte elements held in `rows` (row
/// `i`, element `j` at byte `j·n`) by swapping ever smaller blocks; every
/// loop has a constant trip count, so it unrolls into registers.
#[inline(always)]
fn transpose_lanes<L: Lane, const M: usize>(rows: &mut [L; M], n: usize) {
    if M >= 8 {
        swap_blocks::<L, M, 4>(rows, n);
    }
    if M >= 4 {
        swap_blocks::<L, M, 2>(rows, n);
    }
    if M >= 2 {
        swap_blocks::<L, M, 1>(rows, n);
    }
}

/// Swaps the off-diagonal `K`×`K` blocks of each `2K`×`2K` block.
#[inline(always)]
fn swap_blocks<L: Lane, const M: usize, const K: usize>(rows: &mut [L; M], n: usize) {
    let unit = u32::try_from(K * n * 8).unwrap_or(0);
    let mask = alternating::<L>(unit);
    for base in (0..M).step_by(2 * K) {
        for i in base..base + K {
            let (x, y) = (rows[i], rows[i + K]);
            rows[i] = (x & mask) | ((y & mask) << unit);
            rows[i + K] = ((x >> unit) & mask) | (y & !mask);
        }
    }
}

/// `unit` one bits, `unit` zero bits, repeated from the least significant bit.
#[inline(always)]
fn alternating<L: Lane>(unit: u32) -> L {
    let bits = u32::try_from(L::BYTES * 8).unwrap_or(0);
    let mut mask = L::ONES >> (bits - unit);
    let mut width = 2 * unit;
    while width < bits {
        mask = mask | (mask << width);
        width *= 2;
    }
    mask
}
