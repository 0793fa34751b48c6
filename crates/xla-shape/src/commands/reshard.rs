//! `reshard`: the pieces that move an array from one sharding to another
//! (sharding-util's [`ReshardPlan`]).

use schema::Shape;
use sharding_util::ReshardPlan;

#[cfg(feature = "cli")]
use super::shard::message;
use super::shard::sharding;
#[cfg(feature = "cli")]
use super::{Outcome, reported, shape};
use crate::Error;
#[cfg(feature = "cli")]
use crate::cli::ReshardArgs;

/// The plan as a table (plain) and JSON.
#[cfg(feature = "cli")]
pub fn run(args: &ReshardArgs) -> Outcome {
    let plan = reshard(&shape(&args.shape)?, &args.from, &args.to, args.devices);
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
