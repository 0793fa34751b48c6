//! [`ElementIndex`]: one element's index and its position in the buffer of
//! a layout, looked up either way.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::{IndexError, TiledLayout, dimension_list};

/// An element of an array: its position in the buffer (`linear`, tiles and
/// padding counted) and its multi-dimensional index (`multi`), found from
/// one or the other. `Display` shows the one that was looked up: the index
/// of a position, or the position of an index. `Serialize` writes `linear`
/// and `multi`; `Deserialize` reads them back, as an element looked up by
/// its index (which way it was looked up is not serialized).
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
    /// `[i,j,...]` for a position looked up, the position for an index;
    /// padded as one word (left-aligned unless the format says otherwise).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.from_position {
            f.pad(&dimension_list(&self.multi))
        } else if f.width().is_none() && f.precision().is_none() {
            write!(f, "{}", self.linear)
        } else {
            f.pad(&self.linear.to_string())
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn layout(text: &str) -> TiledLayout {
        TiledLayout::new(&text.parse().unwrap()).unwrap()
    }

    #[test]
    fn an_element_pads_as_one_word() {
        let tiled = layout("f32[3,5]{1,0:T(2,2)}");
        let found = ElementIndex::of_index(&tiled, &[2, 4]).unwrap();
        assert_eq!(format!("{found:>10}|"), "        20|");
        assert_eq!(format!("{found:<4}|"), "20  |");
        let found = ElementIndex::of_position(&tiled, 20).unwrap();
        assert_eq!(format!("{found:>10}|"), "     [2,4]|");
        assert_eq!(found.to_string(), "[2,4]");
    }

    #[test]
    fn an_element_reads_back_from_its_json() {
        let tiled = layout("f32[3,5]{1,0:T(2,2)}");
        // [2,4] is the first element of the last of the 2x3 tiles of 4.
        let found = ElementIndex::of_index(&tiled, &[2, 4]).unwrap();
        let json = serde_json::to_string(&found).unwrap();
        assert_eq!(json, r#"{"linear":20,"multi":[2,4]}"#);
        let back: ElementIndex = serde_json::from_str(&json).unwrap();
        assert_eq!(back, found);
        assert_eq!(back.to_string(), "20");
        // Looked up by position, it reads back as looked up by index.
        let found = ElementIndex::of_position(&tiled, 5).unwrap();
        let back: ElementIndex =
            serde_json::from_str(&serde_json::to_string(&found).unwrap()).unwrap();
        assert_eq!(
            back,
            ElementIndex {
                from_position: false,
                ..found
            }
        );
    }
}
