//! [`CanonicalSharding`]: a sharding's canonical text and `OpSharding`
//! bytes.

use std::fmt;

use schema::Message;
use serde::{Deserialize, Serialize};

use crate::HloSharding;

/// A sharding as XLA prints it (`HloSharding::ToString`) and the hex of its
/// serialized `OpSharding` (`HloSharding::ToProto`): the two forms that
/// normalise any way of writing it.
///
/// ```
/// use sharding_util::{CanonicalSharding, HloSharding};
/// let s: HloSharding = "{devices=[2,1]0,1}".parse().unwrap();
/// let canonical = CanonicalSharding::new(&s);
/// assert_eq!(canonical.to_string(), "{devices=[2,1]0,1}");
/// assert_eq!(canonical.hex, "08031a02020122020001");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CanonicalSharding {
    /// XLA's text of the sharding.
    pub sharding: String,
    /// Lowercase hex of its serialized `OpSharding`.
    pub hex: String,
}

impl CanonicalSharding {
    /// The canonical forms of `sharding`.
    pub fn new(sharding: &HloSharding) -> Self {
        Self {
            sharding: sharding.to_string(),
            hex: hex::encode(sharding.to_proto().encode_to_vec()),
        }
    }
}

impl fmt::Display for CanonicalSharding {
    /// The text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(&self.sharding)
    }
}
