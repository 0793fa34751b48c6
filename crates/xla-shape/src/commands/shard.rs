//! `shard`: what each device holds of a global array under a sharding
//! (sharding-util's [`ShardReport`]).

use schema::Shape;
use sharding_util::{ErrorKind, HloSharding, ShardReport, ShardingError};

#[cfg(feature = "cli")]
use super::{Outcome, reported, shape};
#[cfg(feature = "cli")]
use crate::cli::ShardArgs;

/// A parsed sharding, or its error text.
pub(crate) fn sharding(text: &str) -> Result<HloSharding, String> {
    text.trim()
        .parse()
        .map_err(|e: sharding_util::ParseError| e.to_string())
}

/// The error text of a sharding query: sharding-util's message, with how
/// to give a device count where it lacks one.
pub(crate) fn message(error: &ShardingError) -> String {
    match error.kind() {
        ErrorKind::NoDeviceCount => format!("{error}: give --devices N"),
        _ => error.to_string(),
    }
}

/// The per-device table (plain) and its JSON.
#[cfg(feature = "cli")]
pub fn run(args: &ShardArgs) -> Outcome {
    reported(&shard(&shape(&args.shape)?, &args.sharding, args.devices)?)
}

/// What each device holds of `shape` under the sharding `text` (with
/// `devices` devices when the sharding names no count).
pub(crate) fn shard(
    shape: &Shape,
    text: &str,
    devices: Option<i64>,
) -> Result<ShardReport, String> {
    ShardReport::new(&sharding(text)?, shape, devices).map_err(|e| message(&e))
}
