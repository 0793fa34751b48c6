//! `reshard`: the pieces that move an array from one sharding to another
//! (sharding-util's [`ReshardPlan`]).

use schema::Shape;
use sharding_util::ReshardPlan;

use super::shard::sharding;
#[cfg(feature = "cli")]
use super::shard::{message, sharding_in};
#[cfg(feature = "cli")]
use super::{Outcome, reported, shape};
use crate::Error;
#[cfg(feature = "cli")]
use crate::cli::ReshardArgs;

/// The plan as a table (plain) and JSON.
#[cfg(feature = "cli")]
pub fn run(args: &ReshardArgs) -> Outcome {
    let shape = shape(&args.shape)?;
    let mesh = args.mesh.as_deref();
    let plan = sharding_in(&args.from, mesh).and_then(|from| {
        let to = sharding_in(&args.to, mesh)?;
        Ok(sharding_util::reshard_plan(
            &shape,
            &from,
            &to,
            args.devices,
        )?)
    });
    reported(&plan.map_err(|e| message(&e))?)
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
