//! What one device holds of a buffer in a module not yet partitioned
//! (jax's `lowered.compiler_ir('hlo')`), as XLA's SPMD partitioner shards
//! it: the instruction's `sharding={...}` applied to its shape.

use schema::Shape;
use sharding_util::HloSharding;

use crate::shape_facts::{ShapeFacts, facts_of};
use crate::sizes::BufferSizes;

/// What one device holds of an instruction's buffer.
#[derive(Debug, Clone, PartialEq)]
pub struct PerDevice {
    /// The shape on one device, as XLA prints it (the shard shape; the
    /// full shape where the sharding replicates it or puts it on one
    /// device): each tiled dimension divided by its tile count, rounded up
    /// (sharding-util's [`HloSharding::shard_shape`], the shape XLA's SPMD
    /// partitioner gives); a tuple sharding gives each array its element.
    pub shape: String,
    /// The bytes of that shape's buffer.
    pub sizes: BufferSizes,
}

impl PerDevice {
    /// The shape one device holds of `shape` under `sharding`, and its
    /// sizes; `None` when the sharding does not say (`{unknown}`), does not
    /// fit the shape (a tuple sharding of another length, a tiling of
    /// another rank), or the shard cannot be sized.
    ///
    /// ```
    /// let shape = "f32[7,9]{1,0}".parse().unwrap();
    /// let sharding = "{devices=[2,4]<=[8]}".parse().unwrap();
    /// let d = hlo_util::PerDevice::of(&shape, &sharding).unwrap();
    /// assert_eq!((d.shape.as_str(), d.sizes.bytes), ("f32[4,3]{1,0}", 48));
    /// ```
    #[must_use]
    pub fn of(shape: &Shape, sharding: &HloSharding) -> Option<Self> {
        Self::from_facts(facts_of(shape, Some(sharding)).1?)
    }

    /// What one device holds, from the facts of its shape.
    pub(crate) fn from_facts(facts: ShapeFacts) -> Option<Self> {
        Some(Self {
            sizes: facts.sizes.ok()?,
            shape: facts.text,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shard(shape: &str, sharding: &str) -> Option<String> {
        PerDevice::of(&shape.parse().unwrap(), &sharding.parse().unwrap()).map(|d| d.shape)
    }

    #[test]
    fn shardings_apply_to_arrays_and_tuples() {
        assert_eq!(
            shard("f32[7,9]", "{devices=[2,4]<=[8]}").as_deref(),
            Some("f32[4,3]{1,0}")
        );
        assert_eq!(
            shard("f32[7,9]", "{replicated}").as_deref(),
            Some("f32[7,9]{1,0}")
        );
        assert_eq!(
            shard("f32[7,9]", "{maximal device=3}").as_deref(),
            Some("f32[7,9]{1,0}")
        );
        assert_eq!(shard("f32[7,9]", "{unknown}"), None);
        assert_eq!(shard("f32[7,9]", "{devices=[8]<=[8]}"), None);
        assert_eq!(
            shard("((f32[8], s32[4]), f32[2])", "{devices=[2]<=[2]}").as_deref(),
            Some("((f32[4]{0}, s32[2]{0}), f32[1]{0})")
        );
        assert_eq!(
            shard(
                "((f32[8], s32[4]), f32[2])",
                "{{replicated}, {devices=[4]<=[4]}, {maximal device=0}}"
            )
            .as_deref(),
            Some("((f32[8]{0}, s32[1]{0}), f32[2]{0})")
        );
        assert_eq!(shard("(f32[8], f32[2])", "{{replicated}}"), None);
        assert_eq!(shard("(f32[8])", "{{replicated}, {replicated}}"), None);
    }
}
