//! The walk of a large transpose's register blocks in regions (the tile
//! transposes' blocks of `tile_blocks.rs`, the packed squares of
//! `avx512/packed_squares.rs`): a region is a few blocks along the
//! source-side axis `q` by a few along the destination-side axis `p`, its
//! source rows read on for a few lines while its destination rows fill a
//! few lines at a time; while a region is transposed its blocks prefetch
//! the next region's source lines into L2, row by row, so that memory is
//! read in runs of whole row pieces.

use core::arch::x86_64::{_MM_HINT_T1, _mm_prefetch};
use core::ops::Range;

/// Source rows (blocks along `p`, times their rows) a region of a large
/// relayout has, where they fit L2 ([`rows_fit_l2`]). Measured on a 2-core AMD EPYC
/// (Zen 4) against the walk before regions (one block along `p` for each
/// group along `q`, prefetching 8 blocks ahead into L1), `relayout_matrix
/// --size large --reps 5`, two runs, times the faster copy: f32[4096,4096]
/// column-major into `T(8,128)` 1.42 against 1.07–1.13 (runs of 2) and
/// 1.08–1.13 (4), `T(8,128)` into column-major 1.96–2.03 against
/// 1.42–1.49 and 1.12–1.26, into `{0,1:T(8,128)}` 2.02–2.04 against
/// 1.32–1.37 and 1.11–1.17, `{0,1:T(8,128)}` into row-major 1.80–1.88
/// against 1.50–1.53 and 1.13–1.17; runs of 8 1.02–1.31, noisier; bf16
/// `T(8,128)(2,1)` into column-major 1.79–1.94 (the last full matrix)
/// against 1.09–1.12 (4), u8 `{0,1:T(32,128)(4,1)}` into row-major
/// 2.04–2.13 against 1.13–1.17.
pub(super) const REGION_ROWS: usize = 64;

/// Blocks along `p` a region of a large relayout has where its rows fit
/// L2: [`REGION_ROWS`] source rows in blocks of as many rows as a line has
/// units of `unit` bytes.
pub(super) const fn region_run(unit: usize) -> usize {
    REGION_ROWS / (64 / unit)
}

/// Whether the first [`REGION_ROWS`] source rows of `rows` (offsets in
/// units of `unit` bytes) spread over the sets of L2: at most 8 (its ways)
/// starting in any one of 2048 sets (a 1 MiB, 8-way L2 of 64-byte lines, as
/// this machine's AMD EPYC has). Rows a multiple of 128 KiB apart all
/// start in one set; there the prefetched lines of a region would evict
/// each other. Measured (as for [`REGION_ROWS`]) on f32[256,256,256] whose
/// source rows `p` are 256 KiB apart, `{1,0,2}` into `T(8,128)`: regions
/// of 64 rows 2.57–2.70, of 16 prefetching by regions 2.12–2.29, by
/// blocks into L1 1.64.
pub(super) fn rows_fit_l2(rows: &[usize], unit: usize) -> bool {
    const SETS: usize = 2048;
    let mut in_set = vec![0_u8; SETS];
    rows.iter().take(REGION_ROWS).all(|&row| {
        let count = &mut in_set[row.wrapping_mul(unit) / 64 % SETS];
        *count += 1;
        *count <= 8
    })
}

/// A rectangle of blocks: `p` and `q` the ranges of their indices along
/// each axis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Region {
    pub(super) p: Range<usize>,
    pub(super) q: Range<usize>,
}

impl Region {
    /// The region's blocks as `(along p, along q)`: along `q`, and for
    /// each along `p`.
    pub(super) fn blocks(self) -> impl Iterator<Item = (usize, usize)> {
        self.q
            .flat_map(move |q| self.p.clone().map(move |p| (p, q)))
    }
}

/// The regions of a walk over `p_count` × `q_count` blocks: groups of
/// `group` blocks along `q` (the last one the rest), each cut along `p`
/// into runs of `run` blocks (the last one the rest).
#[derive(Clone)]
pub(super) struct Regions {
    p_count: usize,
    q_count: usize,
    group: usize,
    run: usize,
    /// The first blocks of the next region.
    p: usize,
    q: usize,
}

impl Regions {
    pub(super) fn new(p_count: usize, q_count: usize, group: usize, run: usize) -> Self {
        Self {
            p_count,
            q_count,
            group: group.max(1),
            run: run.max(1),
            p: 0,
            q: 0,
        }
    }
}

impl Iterator for Regions {
    type Item = Region;

    fn next(&mut self) -> Option<Region> {
        if self.p >= self.p_count || self.q >= self.q_count {
            return None;
        }
        let p = self.p..(self.p + self.run).min(self.p_count);
        let q = self.q..(self.q + self.group).min(self.q_count);
        self.p = p.end;
        if self.p == self.p_count {
            (self.p, self.q) = (0, q.end);
        }
        Some(Region { p, q })
    }
}

/// The source lines of a region still to prefetch, row by row: source
/// row `row` (of `rows`, offsets in units of `unit` bytes from the start
/// of `src`; blocks of as many rows as a line has units) from line `q`
/// (block `q` along `q`).
pub(super) struct Ahead<'a> {
    src: &'a [u8],
    rows: &'a [usize],
    unit: usize,
    rows_end: usize,
    q_blocks: Range<usize>,
    row: usize,
    q: usize,
}

impl<'a> Ahead<'a> {
    pub(super) fn new(region: &Region, src: &'a [u8], rows: &'a [usize], unit: usize) -> Self {
        let block = 64 / unit;
        Self {
            src,
            rows,
            unit,
            rows_end: region.p.end * block,
            q_blocks: region.q.clone(),
            row: region.p.start * block,
            q: region.q.start,
        }
    }

    /// Prefetches the next `lines` source lines of the region into L2.
    #[inline(always)]
    pub(super) fn prefetch(&mut self, lines: usize) {
        for _ in 0..lines {
            let Some(&row) = self.rows.get(self.row).filter(|_| self.row < self.rows_end) else {
                return;
            };
            if let Some(byte) = self
                .src
                .get(row.wrapping_mul(self.unit).wrapping_add(self.q * 64))
            {
                // SAFETY: SSE (`prefetcht1`) is enabled for every target
                // this module is compiled for (`kernels/mod.rs`); a
                // prefetch reads nothing into the program.
                #[allow(unsafe_code)]
                unsafe {
                    _mm_prefetch::<_MM_HINT_T1>(core::ptr::from_ref(byte).cast());
                }
            }
            self.q += 1;
            if self.q == self.q_blocks.end {
                (self.q, self.row) = (self.q_blocks.start, self.row + 1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{REGION_ROWS, Region, Regions, region_run, rows_fit_l2};

    #[test]
    fn every_block_once_in_regions() {
        for (group, run) in [(1, 1), (8, 1), (8, 4), (3, 2)] {
            for (p_count, q_count) in [(3, 5), (1, 1), (2, 17), (9, 8), (0, 4), (4, 0)] {
                let regions: Vec<_> = Regions::new(p_count, q_count, group, run).collect();
                for region in &regions {
                    assert!(
                        region.p.len() <= run && region.q.len() <= group,
                        "{region:?}"
                    );
                }
                let mut seen: Vec<_> = regions.into_iter().flat_map(Region::blocks).collect();
                seen.sort_unstable();
                let all: Vec<_> = (0..p_count)
                    .flat_map(|p| (0..q_count).map(move |q| (p, q)))
                    .collect();
                assert_eq!(
                    seen, all,
                    "{p_count}x{q_count}, groups of {group}, runs of {run}"
                );
            }
        }
    }

    #[test]
    fn regions_along_q_then_runs_along_p() {
        let regions: Vec<_> = Regions::new(5, 3, 2, 2).map(|r| (r.p, r.q)).collect();
        assert_eq!(
            regions,
            [
                (0..2, 0..2),
                (2..4, 0..2),
                (4..5, 0..2),
                (0..2, 2..3),
                (2..4, 2..3),
                (4..5, 2..3)
            ]
        );
        let blocks: Vec<_> = Region { p: 2..4, q: 0..2 }.blocks().collect();
        assert_eq!(blocks, [(2, 0), (3, 0), (2, 1), (3, 1)]);
    }

    #[test]
    fn region_rows_in_l2_sets() {
        // Units of 4 bytes: rows 16 KiB apart start in 8 sets, 8 rows in
        // each; 128 or 256 KiB apart all in one.
        let apart = |units: usize| (0..REGION_ROWS).map(|k| k * units).collect::<Vec<_>>();
        assert!(rows_fit_l2(&apart(4096), 4));
        assert!(rows_fit_l2(&apart(256), 4));
        assert!(!rows_fit_l2(&apart(65536), 4));
        assert!(!rows_fit_l2(&apart(32768), 4));
        // Units of 8 bytes: rows 8 KiB apart start in 16 sets.
        assert!(rows_fit_l2(&apart(1024), 8));
        assert_eq!((region_run(4), region_run(8), region_run(16)), (4, 8, 16));
    }
}
