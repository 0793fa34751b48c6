//! [`ElementIndex`]: one element's index and its position in the buffer of
//! a layout, looked up either way.

use std::fmt;

use serde::Serialize;

use crate::{IndexError, TiledLayout, dimension_list};

/// An element of an array: its position in the buffer (`linear`, tiles and
/// padding counted) and its multi-dimensional index (`multi`), found from
/// one or the other. `Display` shows the one that was looked up: the index
/// of a position, or the position of an index.
///
/// ```
/// use index_util::{ElementIndex, TiledLayout};
/// let layout = TiledLayout::new(&"f32[3,5]{1,0:T(2,2)}".parse().unwrap()).unwrap();
/// let found = ElementIndex::of_position(&layout, 5).unwrap();
/// assert_eq!(found.multi, [0, 3]);
/// assert_eq!(found.to_string(), "[0,3]");
/// let found = ElementIndex::of_index(&layout, &[0, 3]).unwrap();
/// assert_eq!(found.to_string(), "5");
/// // Position 22 falls in row 3, past the 3 rows: padding.
/// assert!(ElementIndex::of_position(&layout, 22).is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ElementIndex {
    /// The element's position in the buffer.
    pub linear: i64,
    /// The element's multi-dimensional index.
    pub multi: Vec<i64>,
    /// Whether `multi` was looked up from `linear` (else the reverse).
    #[serde(skip)]
    from_position: bool,
}

impl ElementIndex {
    /// The element at position `linear` of `layout`'s buffer.
    ///
    /// # Errors
    ///
    /// [`IndexError::LinearIndexOutOfBounds`] outside the buffer,
    /// [`IndexError::PaddingPosition`] for a position that holds padding.
    pub fn of_position(layout: &TiledLayout, linear: i64) -> Result<Self, IndexError> {
        let multi = layout
            .logical(linear)?
            .ok_or(IndexError::PaddingPosition { linear })?;
        Ok(Self {
            linear,
            multi,
            from_position: true,
        })
    }

    /// The position of the element at `index` in `layout`'s buffer.
    ///
    /// # Errors
    ///
    /// The errors of [`TiledLayout::position`]: an index of the wrong rank
    /// or out of bounds.
    pub fn of_index(layout: &TiledLayout, index: &[i64]) -> Result<Self, IndexError> {
        Ok(Self {
            linear: layout.position(index)?,
            multi: index.to_vec(),
            from_position: false,
        })
    }
}

impl fmt::Display for ElementIndex {
    /// `[i,j,...]` for a position looked up, the position for an index.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.from_position {
            f.write_str(&dimension_list(&self.multi))
        } else {
            write!(f, "{}", self.linear)
        }
    }
}
