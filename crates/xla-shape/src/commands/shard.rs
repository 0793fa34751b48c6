//! `shard`: what each device holds of a global array under a sharding
//! (sharding-util's [`ShardReport`]).

use sharding_util::ShardReport;
use xla_shape_front::Error;

use super::hlo_json::text_or_json;
use super::shape;
use crate::cli::ShardArgs;

/// The command line's message for `error`: how to give a device count
/// where the sharding lacks one.
pub(crate) fn message(error: impl Into<Error>) -> String {
    error.into().with_device_count_hint("--devices N")
}

/// The per-device table, or its JSON object (`"ok": true` first) when
/// `json`: only the one asked for is built, as a report may list a million
/// devices.
pub fn run(args: &ShardArgs, json: bool) -> Result<String, String> {
    let shape = shape(&args.shape)?;
    let mesh = args.mesh.as_deref();
    let s = sharding_util::sdy::read_sharding(&args.sharding, mesh).map_err(message)?;
    let devices = sharding_util::sdy::device_count(&[&args.sharding], mesh, args.devices)
        .map_err(|e| e.to_string())?;
    let report = ShardReport::new(&s, &shape, devices).map_err(message)?;
    text_or_json(&report, json)
}
