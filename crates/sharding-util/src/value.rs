//! [`HloSharding`] as a value: equality and hashing that agree, so that a
//! sharding keys a `HashMap`.
//!
//! The metadata (`OpMetadata`, which holds floats) compares by its encoded
//! bytes: two shardings are equal when their kinds, shard groups, named
//! forms and metadata are, with metadata floats compared bit for bit.

use std::hash::{Hash, Hasher};

use schema::{Message, OpMetadata};

use crate::sharding::HloSharding;

impl PartialEq for HloSharding {
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind
            && self.shard_group == other.shard_group
            && self.named == other.named
            && self.metadata.len() == other.metadata.len()
            && self
                .metadata
                .iter()
                .zip(&other.metadata)
                .all(|(a, b)| same_metadata(a, b))
    }
}

impl Eq for HloSharding {}

impl Hash for HloSharding {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.kind.hash(state);
        self.shard_group.hash(state);
        self.named.hash(state);
        self.metadata.len().hash(state);
        for metadata in &self.metadata {
            metadata.encode_to_vec().hash(state);
        }
    }
}

/// Whether two metadata messages encode to the same bytes.
fn same_metadata(a: &OpMetadata, b: &OpMetadata) -> bool {
    a.encode_to_vec() == b.encode_to_vec()
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    #[test]
    fn shardings_key_a_map() {
        let a: HloSharding = "{devices=[2,4]<=[8]}".parse().unwrap();
        let b: HloSharding = "{devices=[2,4]<=[2,4]T(0,1)}".parse().unwrap();
        let c: HloSharding = "{replicated}".parse().unwrap();
        let mut seen = HashMap::new();
        seen.insert(a.clone(), "a");
        seen.insert(c, "c");
        // The same sharding spelled another way is the same key.
        assert_eq!(seen.get(&b), Some(&"a"));
        assert_eq!(seen.len(), 2);
        assert_eq!(a, b);
    }

    #[test]
    fn metadata_compares_bit_for_bit() {
        let mut a: HloSharding = "{replicated}".parse().unwrap();
        let mut b = a.clone();
        a.metadata.push(OpMetadata {
            op_name: "x".into(),
            ..Default::default()
        });
        assert_ne!(a, b);
        b.metadata = a.metadata.clone();
        assert_eq!(a, b);
    }
}
