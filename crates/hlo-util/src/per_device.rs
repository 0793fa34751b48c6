//! What one device holds of a buffer in a module not yet partitioned
//! (jax's `lowered.compiler_ir('hlo')`), as XLA's SPMD partitioner shards
//! it: the instruction's `sharding={...}` applied to its shape.

use schema::{PrimitiveType, Shape};
use sharding_util::{HloSharding, Kind};

use crate::sizes::{BufferSizes, EntryBytes, entry_bytes};

/// What one device holds of an instruction's buffer.
#[derive(Debug, Clone, PartialEq)]
pub struct PerDevice {
    /// The shape on one device (the shard shape; the full shape where the
    /// sharding replicates it or puts it on one device).
    pub shape: Shape,
    /// The bytes of that shape's buffer.
    pub sizes: BufferSizes,
}

impl PerDevice {
    /// The shape one device holds of `shape` under `sharding`, and its
    /// sizes; `None` when the sharding does not say (`{unknown}`), does not
    /// fit the shape, or the shard cannot be sized.
    ///
    /// ```
    /// let shape = "f32[7,9]{1,0}".parse().unwrap();
    /// let sharding = "{devices=[2,4]<=[8]}".parse().unwrap();
    /// let d = hlo_util::PerDevice::of(&shape, &sharding).unwrap();
    /// assert_eq!((d.shape.to_string(), d.sizes.bytes), ("f32[4,3]{1,0}".to_owned(), 48));
    /// ```
    pub fn of(shape: &Shape, sharding: &HloSharding) -> Option<Self> {
        let shape = per_device_shape(shape, sharding)?;
        let sizes = BufferSizes::of(&shape).ok()?;
        Some(Self { shape, sizes })
    }
}

/// The shape one device holds of `shape` under `sharding`: each tiled
/// dimension divided by its tile count, rounded up (sharding-util's
/// [`HloSharding::shard_shape`], the shape XLA's SPMD partitioner gives);
/// the full shape for a replicated, maximal, manual or unreduced sharding.
/// A tuple sharding names one sharding per array (leaf) of a tuple shape,
/// in order; any other sharding of a tuple applies to each of its arrays.
///
/// ```
/// let shape = "(f32[8,12]{1,0}, f32[], f32[16]{0})".parse().unwrap();
/// let sharding = "{{devices=[2,4]<=[8]}, {replicated}, {devices=[4,2]<=[8] last_tile_dim_replicate}}"
///     .parse()
///     .unwrap();
/// let d = hlo_util::per_device_shape(&shape, &sharding).unwrap();
/// assert_eq!(d.to_string(), "(f32[4,3]{1,0}, f32[], f32[4]{0})");
/// ```
///
/// `None` where the sharding does not say: `{unknown}`, a tuple sharding
/// whose count is not the tuple's array count, a tile grid whose rank is
/// not the array's.
pub fn per_device_shape(shape: &Shape, sharding: &HloSharding) -> Option<Shape> {
    let tuple = match sharding.kind() {
        Kind::Tuple(elements) => Some(elements.as_slice()),
        _ => None,
    };
    let mut out = shape.clone();
    let mut next = 0;
    // The arrays in order: a stack of subshapes still to visit.
    let mut pending: Vec<&mut Shape> = vec![&mut out];
    while let Some(s) = pending.pop() {
        if s.element_type == PrimitiveType::Tuple as i32 {
            pending.extend(s.tuple_shapes.iter_mut().rev());
            continue;
        }
        let element = match tuple {
            Some(elements) => elements.get(next)?,
            None => sharding,
        };
        next += 1;
        match element.kind() {
            Kind::Tiled { .. } => *s = element.shard_shape(s).ok()?,
            Kind::Unknown | Kind::Tuple(_) => return None,
            Kind::Replicated | Kind::Maximal(_) | Kind::Manual | Kind::Unreduced => {}
        }
    }
    match tuple {
        Some(elements) if elements.len() != next => None,
        _ => Some(out),
    }
}

/// The bytes one device holds of entry parameters (or of the entry result)
/// of `shapes`, each under its sharding, counted as the global totals are
/// ([`entry_bytes`]); `None` if a sharding is missing or does not say, or
/// the counts differ.
pub(crate) fn per_device_bytes(
    shapes: &[Shape],
    shardings: &[Option<HloSharding>],
) -> Option<EntryBytes> {
    if shapes.len() != shardings.len() {
        return None;
    }
    let mut total = EntryBytes::default();
    for (shape, sharding) in shapes.iter().zip(shardings) {
        let bytes = entry_bytes(&per_device_shape(shape, sharding.as_ref()?)?).ok()?;
        total = total.plus(bytes.logical, bytes.allocated)?;
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shard(shape: &str, sharding: &str) -> Option<String> {
        per_device_shape(&shape.parse().unwrap(), &sharding.parse().unwrap()).map(|s| s.to_string())
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
