//! [`Relation`]: how two shapes relate under XLA's rules, the report of
//! `xla-shape compare`.

use std::fmt;

use index_util::dimension_list;
use schema::Shape;
use serde::{Deserialize, Serialize};

use crate::{
    compatible, deduce_transpose_dimensions_for_bitcast, equal, equal_ignoring_layout, is_array,
    reshape_is_bitcast, same_dimensions,
};

/// Equality, compatibility and bitcast relations of two shapes, as fields
/// (`Serialize`) or `name: value` lines (`Display`).
///
/// ```
/// let a: schema::Shape = "f32[5,3]{1,0}".parse().unwrap();
/// let b: schema::Shape = "f32[3,5]{0,1}".parse().unwrap();
/// let relation = shape_util::Relation::of(&a, &b);
/// assert!(!relation.equal && !relation.reshape_is_bitcast);
/// assert_eq!(relation.transpose_is_bitcast_dims, Some(vec![1, 0]));
/// assert!(relation.to_string().ends_with("transpose_is_bitcast_dims: [1,0]"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Relation {
    /// XLA's `ShapeUtil::Equal`.
    pub equal: bool,
    /// XLA's `ShapeUtil::Compatible`.
    pub compatible: bool,
    /// XLA's `ShapeUtil::EqualIgnoringLayout`.
    pub equal_ignoring_layout: bool,
    /// Both are arrays of the same dimensions.
    pub same_dimensions: bool,
    /// Reshaping the first into the second only reinterprets memory.
    pub reshape_is_bitcast: bool,
    /// The transpose of the first into the second that only reinterprets
    /// memory, if any.
    pub transpose_is_bitcast_dims: Option<Vec<i64>>,
}

impl Relation {
    /// How `a` relates to `b`. Bitcasts are defined between arrays with
    /// layouts; anything else is simply not a bitcast.
    #[must_use]
    pub fn of(a: &Shape, b: &Shape) -> Self {
        let both_arrays = is_array(a) && is_array(b);
        Self {
            equal: equal(a, b),
            compatible: compatible(a, b),
            equal_ignoring_layout: equal_ignoring_layout(a, b),
            same_dimensions: both_arrays && same_dimensions(a, b),
            reshape_is_bitcast: both_arrays && reshape_is_bitcast(a, b).unwrap_or(false),
            transpose_is_bitcast_dims: if both_arrays {
                deduce_transpose_dimensions_for_bitcast(a, b).unwrap_or(None)
            } else {
                None
            },
        }
    }
}

impl fmt::Display for Relation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "equal: {}", self.equal)?;
        writeln!(f, "compatible: {}", self.compatible)?;
        writeln!(f, "equal_ignoring_layout: {}", self.equal_ignoring_layout)?;
        writeln!(f, "same_dimensions: {}", self.same_dimensions)?;
        writeln!(f, "reshape_is_bitcast: {}", self.reshape_is_bitcast)?;
        match &self.transpose_is_bitcast_dims {
            Some(dims) => write!(f, "transpose_is_bitcast_dims: {}", dimension_list(dims)),
            None => write!(f, "transpose_is_bitcast_dims: none"),
        }
    }
}
