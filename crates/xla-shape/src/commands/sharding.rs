//! `sharding`: XLA's canonical sharding text and its OpSharding bytes, from
//! sharding text or (with `--hex`) OpSharding bytes, as sharding-util's
//! [`sharding_util::CanonicalSharding`].

use prost::Message;
use schema::OpSharding;
use sharding_util::{CanonicalSharding, HloSharding};

use super::{Outcome, from_hex, reported, shard};

/// The canonical text (plain) and `{"sharding", "hex"}`; with `v2`, of the
/// tile-assignment form.
pub fn run(input: &str, hex: bool, v2: bool) -> Outcome {
    let s = if hex {
        let proto = OpSharding::decode(from_hex(input)?.as_slice())
            .map_err(|e| format!("invalid OpSharding message: {e}"))?;
        HloSharding::from_proto(&proto).map_err(|e| e.to_string())?
    } else {
        shard::sharding(input).map_err(|e| e.to_string())?
    };
    let s = if v2 { s.v3_to_v2() } else { s };
    reported(&CanonicalSharding::new(&s))
}
