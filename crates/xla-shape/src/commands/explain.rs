//! `explain`: a readable report on a shape for a person (or, with `--json`,
//! the same facts as fields): shape-util's [`shape_util::Explanation`].

use super::{Outcome, reported, shape};

/// The report on one shape.
pub fn run(input: &str) -> Outcome {
    let report = shape_util::explain(&shape(input)?).map_err(|e| e.to_string())?;
    reported(&report)
}
