//! `parse`: the canonical string of a shape, as schema's
//! [`schema::ShapeStrings`].

use schema::ShapeStrings;

use super::{Outcome, reported, shape};

/// XLA's HumanStringWithLayout (or HumanString with `no_layout`).
pub fn run(input: &str, no_layout: bool) -> Outcome {
    reported(&ShapeStrings::new(&shape(input)?, !no_layout))
}
