//! `reshard`: the pieces that move an array from one sharding to another
//! (sharding-util's [`ReshardPlan`]).

use sharding_util::sdy::{device_count, read_sharding};

use super::hlo_json::text_or_json;
use super::shape;
use super::shard::message;
use crate::cli::ReshardArgs;

/// The plan as a table, or as its JSON object (`"ok": true` first) when
/// `json`: only the one asked for is built, as a plan may hold a million
/// pieces.
pub fn run(args: &ReshardArgs, json: bool) -> Result<String, String> {
    let shape = shape(&args.shape)?;
    let mesh = args.mesh.as_deref();
    let (from, to) = read_sharding(&args.from, mesh)
        .and_then(|from| Ok((from, read_sharding(&args.to, mesh)?)))
        .map_err(message)?;
    let devices =
        device_count(&[&args.from, &args.to], mesh, args.devices).map_err(|e| e.to_string())?;
    let from_ids = args.from_device_ids.as_ref().map(|i| i.0.as_slice());
    let to_ids = args.to_device_ids.as_ref().map(|i| i.0.as_slice());
    let plan =
        sharding_util::reshard_plan_between(&shape, (&from, from_ids), (&to, to_ids), devices)
            .map_err(message)?;
    text_or_json(&plan, json)
}
