//! Iteration over a region of an array in physical order (XLA's
//! `ShapeUtil::ForEachIndex`): the most minor dimension (per the layout)
//! moves fastest, so consecutive indices are adjacent in memory. Tiles are
//! ignored, as in XLA: under a tiled layout this is not memory order (see
//! [`TiledLayout::for_each_position`](crate::TiledLayout::for_each_position)).

use schema::Shape;

use crate::{IndexError, PhysicalLayout};

/// The indices `index[d] = base[d] + k * incr[d] < base[d] + count[d]` of a
/// region of an array, in physical order (the most minor dimension of the
/// layout first), like XLA's `ShapeUtil::ForEachIndex`.
///
/// A dimension with `count == 0` is pinned at `base`. A zero-element array
/// yields nothing; a rank-0 array yields `[]` once.
///
/// Use [`next_index`](Self::next_index) to borrow each index without
/// allocating, [`for_each_index`] for the fastest loop, or the [`Iterator`]
/// impl (one `Vec` per index) for convenience.
///
/// ```
/// use index_util::ForEachIndex;
/// let shape: schema::Shape = "f32[2,3]{0,1}".parse().unwrap();
/// let all: Vec<Vec<i64>> = ForEachIndex::over_shape(&shape).unwrap().collect();
/// // Dim 0 is minor: it moves fastest (the order a d b e c f is stored in).
/// assert_eq!(all, [[0, 0], [1, 0], [0, 1], [1, 1], [0, 2], [1, 2]]);
///
/// // A strided region, dim 0 pinned at 1, without allocating per index:
/// let mut region = ForEachIndex::new(&shape, &[1, 0], &[0, 3], &[0, 2]).unwrap();
/// let mut seen = Vec::new();
/// while let Some(index) = region.next_index() {
///     seen.push(index.to_vec());
/// }
/// assert_eq!(seen, [[1, 0], [1, 2]]);
/// ```
#[derive(Debug, Clone)]
pub struct ForEachIndex {
    /// The dimensions of the region, most minor first.
    axes: Vec<Axis>,
    /// The current index, per logical dimension.
    index: Vec<i64>,
    state: State,
}

/// One dimension of the region, as the odometer steps it.
#[derive(Debug, Clone, Copy)]
struct Axis {
    /// The logical dimension.
    dimension: usize,
    base: i64,
    incr: i64,
    /// The number of positions (at least 1: a pinned dimension has one).
    steps: i64,
    /// Positions passed so far in the current sweep.
    taken: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    NotStarted,
    Running,
    Done,
}

impl ForEachIndex {
    /// The indices of the region `base`/`count`/`incr` of `shape`.
    ///
    /// # Errors
    ///
    /// As [`PhysicalLayout::new`] (not an array, no or an invalid layout);
    /// [`IndexError::RankMismatch`] if `base`, `count` or `incr` do not
    /// have one entry per dimension; [`IndexError::InvalidRegion`] unless,
    /// in every dimension, `count >= 0`, `incr > 0` (or `incr == 0` with
    /// `count == 0`), and the region is inside the array (`0 <= base` and
    /// `base + count <= size`, or `base < size` when pinned). XLA checks none
    /// of this (an `incr` of 0 loops forever there).
    pub fn new(
        shape: &Shape,
        base: &[i64],
        count: &[i64],
        incr: &[i64],
    ) -> Result<Self, IndexError> {
        let layout = PhysicalLayout::new(shape)?;
        let rank = layout.rank();
        if let Some(len) = [base.len(), count.len(), incr.len()]
            .into_iter()
            .find(|&len| len != rank)
        {
            return Err(IndexError::RankMismatch { len, rank });
        }
        let zero_elements = layout.dimensions().contains(&0);
        let mut axes = Vec::with_capacity(rank);
        for &d in layout.minor_to_major() {
            let (size, b, c, i) = (layout.dimensions()[d], base[d], count[d], incr[d]);
            let invalid = || IndexError::InvalidRegion {
                dimension: d,
                size,
                base: b,
                count: c,
                incr: i,
            };
            if c < 0 || i < 0 || (c > 0 && i == 0) || b < 0 {
                return Err(invalid());
            }
            let inside = if c == 0 {
                b < size
            } else {
                b.checked_add(c).is_some_and(|end| end <= size)
            };
            if !inside && !zero_elements {
                return Err(invalid());
            }
            axes.push(Axis {
                dimension: d,
                base: b,
                incr: i,
                // ceil(c / i) positions, or 1 when pinned.
                steps: if c == 0 {
                    1
                } else {
                    c / i + i64::from(c % i != 0)
                },
                taken: 0,
            });
        }
        Ok(Self {
            axes,
            index: base.to_vec(),
            state: if zero_elements {
                State::Done
            } else {
                State::NotStarted
            },
        })
    }

    /// Every index of `shape`, in physical order.
    ///
    /// # Errors
    ///
    /// As [`ForEachIndex::new`].
    pub fn over_shape(shape: &Shape) -> Result<Self, IndexError> {
        let rank = shape.dimensions.len();
        Self::new(shape, &vec![0; rank], &shape.dimensions, &vec![1; rank])
    }

    /// The next index, borrowed until the next call; `None` at the end.
    pub fn next_index(&mut self) -> Option<&[i64]> {
        match self.state {
            State::Running => {
                if !advance(&mut self.axes, &mut self.index) {
                    self.state = State::Done;
                    return None;
                }
            }
            State::NotStarted => self.state = State::Running,
            State::Done => return None,
        }
        Some(&self.index)
    }

    /// Calls `visitor` with every index of a fresh iteration; the
    /// minor-most dimension runs in a tight inner loop.
    fn run(mut self, mut visitor: impl FnMut(&[i64])) {
        if self.state == State::Done {
            return;
        }
        let Some(&Axis {
            dimension: inner,
            base,
            incr,
            steps,
            ..
        }) = self.axes.first()
        else {
            visitor(&[]);
            return;
        };
        let index = self.index.as_mut_slice();
        let last = base + (steps - 1) * incr;
        loop {
            let mut value = base;
            for _ in 0..steps {
                index[inner] = value;
                visitor(index);
                // Past the last step this may leave the region; it is reset.
                value = value.wrapping_add(incr);
            }
            index[inner] = last;
            self.axes[0].taken = steps - 1;
            if !advance(&mut self.axes, index) {
                return;
            }
        }
    }
}

/// Steps the odometer `axes` (most minor first) and `index`; false when it
/// wraps around (the end).
#[inline]
fn advance(axes: &mut [Axis], index: &mut [i64]) -> bool {
    for axis in axes {
        axis.taken += 1;
        if axis.taken < axis.steps {
            // Stays inside the region, so no overflow.
            index[axis.dimension] += axis.incr;
            return true;
        }
        axis.taken = 0;
        index[axis.dimension] = axis.base;
    }
    false
}

/// Yields each index as a `Vec` (one allocation per index; use
/// [`ForEachIndex::next_index`] or [`for_each_index`] in hot loops).
impl Iterator for ForEachIndex {
    type Item = Vec<i64>;

    fn next(&mut self) -> Option<Vec<i64>> {
        self.next_index().map(<[i64]>::to_vec)
    }
}

/// Once exhausted, stays exhausted.
impl std::iter::FusedIterator for ForEachIndex {}

/// Calls `visitor` with every index of the region `base`/`count`/`incr` of
/// `shape`, in physical order (XLA's `ShapeUtil::ForEachIndex`); see
/// [`ForEachIndex`] for the rules. The fastest way to visit a region: no
/// allocation per index, and the minor-most dimension runs in a tight loop.
///
/// # Errors
///
/// As [`ForEachIndex::new`]; nothing is visited then.
///
/// ```
/// let shape: schema::Shape = "f32[2,3]{1,0}".parse().unwrap();
/// let mut linear = Vec::new();
/// index_util::for_each_index(&shape, &[0, 0], &[2, 3], &[1, 1], |index| {
///     linear.push(index[0] * 3 + index[1]);
/// })
/// .unwrap();
/// assert_eq!(linear, [0, 1, 2, 3, 4, 5]);
/// ```
pub fn for_each_index(
    shape: &Shape,
    base: &[i64],
    count: &[i64],
    incr: &[i64],
    visitor: impl FnMut(&[i64]),
) -> Result<(), IndexError> {
    ForEachIndex::new(shape, base, count, incr)?.run(visitor);
    Ok(())
}
