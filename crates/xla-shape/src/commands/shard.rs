//! `shard`: what each device holds of a global array under a sharding
//! (sharding-util's [`ShardReport`]).

use schema::Shape;
use sharding_util::{HloSharding, ShardReport};

use crate::Error;

#[cfg(feature = "cli")]
use super::{Outcome, reported, shape};
#[cfg(feature = "cli")]
use crate::cli::ShardArgs;

/// A parsed sharding.
pub(crate) fn sharding(text: &str) -> Result<HloSharding, sharding_util::ParseError> {
    text.trim().parse()
}

/// The command line's message for `error`: how to give a device count
/// where the sharding lacks one.
#[cfg(feature = "cli")]
pub(crate) fn message(error: &Error) -> String {
    error.with_device_count_hint("--devices N")
}

/// The per-device table (plain) and its JSON.
#[cfg(feature = "cli")]
pub fn run(args: &ShardArgs) -> Outcome {
    reported(&shard(&shape(&args.shape)?, &args.sharding, args.devices).map_err(|e| message(&e))?)
}

/// What each device holds of `shape` under the sharding `text` (with
/// `devices` devices when the sharding names no count).
pub(crate) fn shard(shape: &Shape, text: &str, devices: Option<i64>) -> Result<ShardReport, Error> {
    Ok(ShardReport::new(&sharding(text)?, shape, devices)?)
}
