//! Iteration over a region of an array in physical order (XLA's
//! `ShapeUtil::ForEachIndex`): the most minor dimension (per the layout)
//! moves fastest, so consecutive indices are adjacent in memory.

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
    /// Logical dimensions, most minor first.
    minor_to_major: Vec<usize>,
    /// Per logical dimension.
    base: Vec<i64>,
    incr: Vec<i64>,
    steps: Vec<i64>,
    /// Steps taken so far, per logical dimension.
    taken: Vec<i64>,
    index: Vec<i64>,
    state: State,
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
        let mut steps = vec![0; rank];
        for (d, &size) in layout.dimensions().iter().enumerate() {
            let (b, c, i) = (base[d], count[d], incr[d]);
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
            if zero_elements {
                continue;
            }
            let inside = if c == 0 {
                b < size
            } else {
                b.checked_add(c).is_some_and(|end| end <= size)
            };
            if !inside {
                return Err(invalid());
            }
            // ceil(c / i) steps, or 1 when pinned.
            steps[d] = if c == 0 {
                1
            } else {
                c / i + i64::from(c % i != 0)
            };
        }
        Ok(Self {
            minor_to_major: layout.minor_to_major().to_vec(),
            base: base.to_vec(),
            incr: incr.to_vec(),
            steps,
            taken: vec![0; rank],
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
            State::Done => return None,
            State::NotStarted => self.state = State::Running,
            State::Running => {
                if !self.advance() {
                    self.state = State::Done;
                    return None;
                }
            }
        }
        Some(&self.index)
    }

    /// Steps the odometer; false when it wraps around (the end).
    fn advance(&mut self) -> bool {
        for &d in &self.minor_to_major {
            self.taken[d] += 1;
            if self.taken[d] < self.steps[d] {
                // Stays inside the region, so no overflow.
                self.index[d] += self.incr[d];
                return true;
            }
            self.taken[d] = 0;
            self.index[d] = self.base[d];
        }
        false
    }

    /// Calls `visitor` with every index of a fresh iteration; the
    /// minor-most dimension runs in a tight inner loop.
    fn run(mut self, mut visitor: impl FnMut(&[i64])) {
        if self.state == State::Done {
            return;
        }
        let Some(&inner) = self.minor_to_major.first() else {
            visitor(&[]);
            return;
        };
        let (inner_incr, inner_steps) = (self.incr[inner], self.steps[inner]);
        loop {
            let mut value = self.base[inner];
            for _ in 0..inner_steps {
                self.index[inner] = value;
                visitor(&self.index);
                // Past the last step this may leave the region; it is reset.
                value = value.wrapping_add(inner_incr);
            }
            self.taken[inner] = inner_steps - 1;
            self.index[inner] = self.base[inner] + (inner_steps - 1) * inner_incr;
            if !self.advance() {
                return;
            }
        }
    }
}

/// Yields each index as a `Vec` (one allocation per index; use
/// [`ForEachIndex::next_index`] or [`for_each_index`] in hot loops).
impl Iterator for ForEachIndex {
    type Item = Vec<i64>;

    fn next(&mut self) -> Option<Vec<i64>> {
        self.next_index().map(<[i64]>::to_vec)
    }
}

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
