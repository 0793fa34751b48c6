//! Tile outlines from a layout's `tiles`: the outermost tile partitions the
//! minor-most dimensions into rectangles of the logical array; each nested
//! tile subdivides its parent's rectangles, until a tile reaches across
//! several parent tiles (an interleave, which no rectangle shows).

use schema::{COMBINE_DIMENSION, Tile};

use super::Outline;

/// For each tiling level drawn, the tile's size along each logical
/// dimension (1 along dimensions it does not cover), and notes on levels
/// not drawn.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Levels {
    /// `sizes[level][dim]`.
    pub sizes: Vec<Vec<i64>>,
    /// Why some levels are not outlined, and how the drawn ones look.
    pub notes: Vec<String>,
}

/// The tiling levels of an array of `rank` with `minor_to_major` and
/// `tiles`. A tile's last dimension covers the most minor logical dimension,
/// its one before that the next, and so on; tile dimensions past the rank
/// cover the leading size-1 dimensions tiling adds and are ignored here.
pub fn levels(rank: usize, minor_to_major: &[usize], tiles: &[Tile]) -> Levels {
    let mut levels = Levels::default();
    let mut parent_rank = usize::MAX;
    for (level, tile) in tiles.iter().enumerate() {
        let t = &tile.dimensions;
        let why = if t.iter().any(|&s| s == COMBINE_DIMENSION || s <= 0) {
            Some("has a combined or non-positive dimension")
        } else if t.len() > parent_rank {
            Some("reaches across the tiles of the level above (an interleave)")
        } else {
            None
        };
        if let Some(why) = why {
            levels.notes.push(format!(
                "tile level {} T{tile} {why}: not outlined",
                level + 1
            ));
            break;
        }
        let mut sizes = vec![1; rank];
        for (j, &dim) in minor_to_major.iter().enumerate().take(t.len()) {
            sizes[dim] = t[t.len() - 1 - j];
        }
        levels.sizes.push(sizes);
        parent_rank = t.len();
    }
    for (level, tile) in tiles.iter().enumerate().take(levels.sizes.len()) {
        let style = ["solid black", "dashed orange", "dotted blue"][level % 3];
        levels.notes.insert(
            level,
            format!("tile level {} T{tile}: {style} outlines", level + 1),
        );
    }
    levels
}

impl Levels {
    /// The grid's extent along `dim` of `size` (padded size when padded):
    /// rounded up to whole outermost tiles.
    pub fn extent(&self, dim: usize, size: i64) -> i64 {
        match self.sizes.first() {
            Some(sizes) => {
                let t = sizes[dim];
                (size.div_euclid(t) * t).saturating_add(if size % t == 0 { 0 } else { t })
            }
            None => size,
        }
    }

    /// The outlines of a panel whose rows run along `row_dim` (none: one
    /// row) and columns along `col_dim`, of which `rows` by `cols` cells
    /// are shown.
    pub fn outlines(
        &self,
        (row_dim, col_dim): (Option<usize>, Option<usize>),
        (rows, cols): (usize, usize),
    ) -> Vec<Outline> {
        let mut outlines = Vec::new();
        for level in 0..self.sizes.len() {
            let along = |dim: Option<usize>, shown: usize| match dim {
                Some(d) => segments(self.sizes[..=level].iter().map(|s| s[d]), shown),
                None => vec![(0, shown)],
            };
            let row_segments = along(row_dim, rows);
            for &(col, width) in &along(col_dim, cols) {
                for &(row, height) in &row_segments {
                    outlines.push(Outline {
                        row,
                        col,
                        rows: height,
                        cols: width,
                        level,
                    });
                }
            }
        }
        outlines
    }
}

/// `(start, length)` of the tiles along one dimension of `shown` cells:
/// chunks of the first size, each cut into chunks of the next, and so on.
fn segments(sizes: impl Iterator<Item = i64>, shown: usize) -> Vec<(usize, usize)> {
    let mut segments = vec![(0, shown)];
    for size in sizes {
        let size = usize::try_from(size).unwrap_or(usize::MAX).max(1);
        segments = segments
            .iter()
            .flat_map(|&(start, len)| {
                (start..start + len)
                    .step_by(size)
                    .map(move |s| (s, size.min(start + len - s)))
            })
            .collect();
    }
    segments
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tile(dims: &[i64]) -> Tile {
        Tile {
            dimensions: dims.to_vec(),
        }
    }

    #[test]
    fn one_level_partitions_the_minor_dims() {
        // f32[3,5]{1,0:T(2,2)}: a 4x6 grid of 2x2 tiles.
        let levels = levels(2, &[1, 0], &[tile(&[2, 2])]);
        assert_eq!(levels.sizes, [vec![2, 2]]);
        assert_eq!((levels.extent(0, 3), levels.extent(1, 5)), (4, 6));
        let outlines = levels.outlines((Some(0), Some(1)), (4, 6));
        assert_eq!(outlines.len(), 6);
        assert_eq!(
            outlines[1],
            Outline {
                row: 2,
                col: 0,
                rows: 2,
                cols: 2,
                level: 0
            }
        );
    }

    #[test]
    fn tiles_follow_minor_to_major_and_skip_major_dims() {
        // {0,1}: the tile's last dimension covers dim 0.
        assert_eq!(levels(2, &[0, 1], &[tile(&[2, 4])]).sizes, [vec![4, 2]]);
        // A rank-1 tile of a rank-2 array: one row per tile.
        let levels = levels(2, &[1, 0], &[tile(&[4])]);
        assert_eq!(levels.sizes, [vec![1, 4]]);
        assert_eq!(levels.outlines((Some(0), Some(1)), (2, 8)).len(), 4);
        // Tile dimensions beyond the rank are ignored.
        assert_eq!(super::levels(1, &[0], &[tile(&[2, 2])]).sizes, [vec![2]]);
    }

    #[test]
    fn nested_levels_subdivide_until_an_interleave() {
        let levels = levels(1, &[0], &[tile(&[8]), tile(&[3]), tile(&[2, 1])]);
        assert_eq!(levels.sizes, [vec![8], vec![3]]);
        assert_eq!(levels.notes.len(), 3);
        assert!(levels.notes[2].contains("level 3 T(2,1) reaches across"));
        let outlines = levels.outlines((None, Some(0)), (1, 10));
        let level_1: Vec<(usize, usize)> = outlines
            .iter()
            .filter(|o| o.level == 1)
            .map(|o| (o.col, o.cols))
            .collect();
        // The 8-tile at 0 cut into 3, 3, 2; the window cuts the second 8-tile.
        assert_eq!(level_1, [(0, 3), (3, 3), (6, 2), (8, 2)]);
    }

    #[test]
    fn combined_dimensions_are_not_outlined() {
        let levels = levels(2, &[1, 0], &[tile(&[COMBINE_DIMENSION, 2])]);
        assert!(levels.sizes.is_empty());
        assert!(levels.notes[0].contains("not outlined"));
        assert_eq!(levels.extent(0, 3), 3);
    }
}
