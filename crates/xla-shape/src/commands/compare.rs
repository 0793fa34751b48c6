//! `compare`: how two shapes relate under XLA's rules, as shape-util's
//! [`shape_util::Relation`].

use super::{Outcome, reported, shape_or_dims};

/// Equality, compatibility and bitcast relations of `a` and `b` (shapes or
/// bare dimension lists).
pub fn run(a: &str, b: &str) -> Outcome {
    let (a, b) = (shape_or_dims(a)?.0, shape_or_dims(b)?.0);
    reported(&shape_util::Relation::of(&a, &b))
}
