//! `reshard`: the pieces that move an array from one sharding to another
//! (sharding-util's [`ReshardPlan`]).

use schema::Shape;
use sharding_util::ReshardPlan;

#[cfg(feature = "cli")]
use super::hlo_json::Success;
#[cfg(feature = "cli")]
use super::shape;
use super::shard::sharding;
#[cfg(feature = "cli")]
use super::shard::{mesh_device_count, message, sharding_in};
use crate::Error;
#[cfg(feature = "cli")]
use crate::cli::ReshardArgs;

/// The plan as a table, or as its JSON object (`"ok": true` first) when
/// `json`: only the one asked for is built, as a plan may hold a million
/// pieces.
#[cfg(feature = "cli")]
pub fn run(args: &ReshardArgs, json: bool) -> Result<String, String> {
    let shape = shape(&args.shape)?;
    let mesh = args.mesh.as_deref();
    let (from, to) = sharding_in(&args.from, mesh)
        .and_then(|from| Ok((from, sharding_in(&args.to, mesh)?)))
        .map_err(|e| message(&e))?;
    let devices = mesh_device_count(&[&args.from, &args.to], mesh, args.devices)?;
    let from_ids = args.from_device_ids.as_ref().map(|i| i.0.as_slice());
    let to_ids = args.to_device_ids.as_ref().map(|i| i.0.as_slice());
    let plan =
        sharding_util::reshard_plan_between(&shape, (&from, from_ids), (&to, to_ids), devices)
            .map_err(|e| message(&Error::from(e)))?;
    if json {
        let success = Success {
            ok: true,
            report: &plan,
            origins: super::hlo_origins::Origins::default(),
            timeline: None,
            outputs: Default::default(),
        };
        serde_json::to_string(&success).map_err(|e| e.to_string())
    } else {
        Ok(plan.to_string())
    }
}

/// The plan that moves `shape` from the sharding `from` to `to` (over
/// `devices` devices when neither names a count).
pub(crate) fn reshard(
    shape: &Shape,
    from: &str,
    to: &str,
    devices: Option<i64>,
) -> Result<ReshardPlan, Error> {
    let (from, to) = (sharding(from)?, sharding(to)?);
    Ok(sharding_util::reshard_plan(shape, &from, &to, devices)?)
}
