//! What the sharding targets leave out of their print-and-read-back checks.

use sharding_util::{HloSharding, Kind};

/// Whether a mesh axis name of the sharding (or of a tuple's element) has a
/// backslash or a quote, which XLA prints as it is (so the text does not
/// read back).
pub fn raw_names(sharding: &HloSharding) -> bool {
    sharding.named().is_some_and(|n| {
        n.mesh
            .axes
            .iter()
            .any(|(name, _)| name.contains(['\\', '\'']))
    }) || matches!(sharding.kind(), Kind::Tuple(elements) if elements.iter().any(raw_names))
}
