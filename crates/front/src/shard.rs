//! What each device holds of an array under a sharding (sharding-util's
//! [`ShardReport`]), and the plan that moves it to another.

use schema::Shape;
use sharding_util::{HloSharding, ShardReport};

use crate::Error;

/// A parsed sharding.
pub(crate) fn sharding(text: &str) -> Result<HloSharding, sharding_util::ParseError> {
    text.trim().parse()
}

/// What each device holds of `shape` under the sharding `text` (with
/// `devices` devices when the sharding names no count).
pub(crate) fn shard(shape: &Shape, text: &str, devices: Option<i64>) -> Result<ShardReport, Error> {
    Ok(ShardReport::new(&sharding(text)?, shape, devices)?)
}

/// The plan that moves `shape` from the sharding `from` to `to` (over
/// `devices` devices when neither names a count).
pub(crate) fn reshard(
    shape: &Shape,
    from: &str,
    to: &str,
    devices: Option<i64>,
) -> Result<sharding_util::ReshardPlan, Error> {
    let (from, to) = (sharding(from)?, sharding(to)?);
    Ok(sharding_util::reshard_plan(shape, &from, &to, devices)?)
}
