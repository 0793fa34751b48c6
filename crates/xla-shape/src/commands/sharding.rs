//! `sharding`: XLA's canonical sharding text and its OpSharding bytes, from
//! sharding text or (with `--hex`) OpSharding bytes, as sharding-util's
//! [`sharding_util::CanonicalSharding`].

use prost::Message;
use schema::OpSharding;
use serde_json::json;
use sharding_util::sdy::{SdyMesh, SdySharding};
use sharding_util::{CanonicalSharding, HloSharding};

use super::{Outcome, from_hex, reported};

/// The canonical text (plain) and `{"sharding", "hex"}`; with `v2`, of the
/// tile-assignment form; a Shardy sharding converted over `mesh`; with
/// `sdy`, the Shardy text over `mesh` (plain) and `{"sdy"}`.
pub fn run(input: &str, hex: bool, v2: bool, mesh: Option<&str>, sdy: bool) -> Outcome {
    let s = if hex {
        let proto = OpSharding::decode(from_hex(input)?.as_slice())
            .map_err(|e| format!("invalid OpSharding message: {e}"))?;
        HloSharding::from_proto(&proto).map_err(|e| e.to_string())?
    } else {
        sharding_util::sdy::read_sharding(input, mesh).map_err(|e| e.to_string())?
    };
    if let (true, Some(mesh)) = (sdy, mesh) {
        return as_shardy(&s, mesh);
    }
    let s = if v2 { s.v3_to_v2() } else { s };
    reported(&CanonicalSharding::new(&s))
}

/// `s` as Shardy text over `mesh`, where whole axes give it.
fn as_shardy(s: &HloSharding, mesh: &str) -> Outcome {
    let mesh: SdyMesh = mesh.parse().map_err(|e| format!("--mesh: {e}"))?;
    let rank = s.tiled_data_rank();
    let found = SdySharding::from_hlo(s, &mesh, rank).map_err(|e| e.to_string())?;
    let text = found
        .ok_or_else(|| format!("no Shardy sharding of whole axes of {mesh} gives {s}"))?
        .to_string();
    Ok((text.clone(), json!({ "sdy": text })))
}
