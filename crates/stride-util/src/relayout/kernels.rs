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

/// The tile side for `N`-byte elements: rows of about 256 bytes, so a tile
/// is at most 16 KiB and stays in L1.
pub(crate) const fn tile_side(n: usize) -> usize {
    match n {
        1 | 2 => 128,
        4 => 64,
        8 => 32,
        _ => 16,
    }
}

/// Copies the elements of `plan` from `src` to `dst`.
pub(crate) fn copy<const N: usize>(plan: &Plan, src: &[[u8; N]], dst: &mut [[u8; N]]) {
    let (strategy, tiled_dim) = plan.strategy();
    let dims = &plan.dims;
    match strategy {
        Strategy::Empty => {}
        Strategy::SingleCopy => {
            let n = dims.last().map_or(1, |d| at(d.size));
            let (s, d) = (at(plan.src_offset), at(plan.dst_offset));
            dst[d..d + n].copy_from_slice(&src[s..s + n]);
        }
        Strategy::Runs => {
            let (inner, outer) = dims.split_last().unwrap_or((
                &Dim {
                    size: 1,
                    src: 1,
                    dst: 1,
                },
                &[],
            ));
            let n = at(inner.size);
            for_each_outer(outer, plan.src_offset, plan.dst_offset, |s, d| {
                let (s, d) = (at(s), at(d));
                dst[d..d + n].copy_from_slice(&src[s..s + n]);
            });
        }
        Strategy::Tiled => {
            let a = dims.len() - 1;
            let outer: Vec<Dim> = dims
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != a && i != tiled_dim)
                .map(|(_, d)| *d)
                .collect();
            let (da, db) = (dims[a], dims[tiled_dim]);
            let side = tile_side(N);
            let mut tile = vec![[0_u8; N]; side * side];
            for_each_outer(&outer, plan.src_offset, plan.dst_offset, |s, d| {
                transpose_tiles(src, dst, s, d, da, db, &mut tile, side);
            });
        }
        Strategy::Strided => {
            let (inner, outer) = dims.split_last().unwrap_or((
                &Dim {
                    size: 1,
                    src: 1,
                    dst: 1,
                },
                &[],
            ));
            for_each_outer(outer, plan.src_offset, plan.dst_offset, |s, d| {
                let (mut s, mut d) = (s, d);
                for _ in 0..inner.size {
                    dst[at(d)] = src[at(s)];
                    s = s.wrapping_add(inner.src);
                    d = d.wrapping_add(inner.dst);
                }
            });
        }
    }
}

/// One 2-D transpose: `a` is contiguous in the destination (stride 1),
/// `b` in the source (stride 1). Each tile is read as source row segments
/// into `tile`, then written as destination row segments.
#[allow(clippy::too_many_arguments)]
fn transpose_tiles<const N: usize>(
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
            // Destination rows: fixed b, contiguous along a.
            let mut d = dst_base + b0 * b.dst + a0;
            for j in 0..tb {
                let start = at(d);
                let out = &mut dst[start..start + ta];
                for (i, element) in out.iter_mut().enumerate() {
                    *element = tile[i * side + j];
                }
                d += b.dst;
            }
            a0 += step;
        }
        b0 += step;
    }
}
