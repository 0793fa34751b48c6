//! How many rows a report lists: all of them, or the first few.

use std::fmt;

/// How many of the largest buffers (or computations) a report lists.
///
/// A count converts into one (`MemoryReport::read(input, 20)`); every row is
/// [`Limit::All`].
///
/// ```
/// use hlo_util::Limit;
///
/// assert_eq!(Limit::from(20), Limit::First(20));
/// assert_eq!(Limit::First(3).of(10), 3);
/// assert_eq!(Limit::All.of(10), 10);
/// assert_eq!(Limit::All.to_string(), "all");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Limit {
    /// Every row.
    #[default]
    All,
    /// At most this many rows.
    First(usize),
}

impl Limit {
    /// How many of `count` rows are listed.
    pub fn of(self, count: usize) -> usize {
        match self {
            Self::All => count,
            Self::First(n) => n.min(count),
        }
    }
}

impl From<usize> for Limit {
    fn from(count: usize) -> Self {
        Self::First(count)
    }
}

impl fmt::Display for Limit {
    /// `all`, or the count; padded as one word (left-aligned unless the
    /// format says otherwise, the count too).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::All => f.pad("all"),
            Self::First(n) if f.width().is_none() && f.precision().is_none() => write!(f, "{n}"),
            Self::First(n) => f.pad(&n.to_string()),
        }
    }
}
