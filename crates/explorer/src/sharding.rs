//! The sharding panel: a shape's per-device boxes under an `HloSharding`,
//! its picture, and the plan of a reshard between two shardings.

use serde::Serialize;
use sharding_util::{ReshardPlan, ShardReport};
use wasm_bindgen::prelude::wasm_bindgen;

use crate::reply;

/// What the sharding panel shows of one sharding.
#[derive(Serialize)]
struct ShardReply<'a> {
    /// `xla-shape shard --json`'s fields.
    #[serde(flatten)]
    report: &'a ShardReport,
    /// `xla-shape draw SHAPE --sharding SHARDING`'s picture.
    svg: Option<String>,
    /// Why it cannot be drawn.
    svg_error: Option<String>,
}

/// What the sharding panel shows of a reshard.
#[derive(Serialize)]
struct ReshardReply<'a> {
    /// `xla-shape reshard --json`'s fields.
    #[serde(flatten)]
    plan: &'a ReshardPlan,
}

/// The sharding panel's reply for the shape `shape` under the sharding
/// `sharding` (XLA's text, as `xla-shape shard` reads it): the command's
/// `--json` fields (`shard_shape`, `devices` with each device's `tile`,
/// `offsets`, `limits` and `bytes`, `replication_groups`) and `svg` (the
/// picture `xla-shape draw --sharding` draws) or `svg_error`; `devices`
/// is the device count of a sharding that names none.
///
/// ```
/// let reply = xla_shape_explorer::shard("f32[6,8]", "{devices=[2,2]<=[4]}", None);
/// let reply: serde_json::Value = serde_json::from_str(&reply).unwrap();
/// assert_eq!(reply["shard_shape"], "f32[3,4]{1,0}");
/// assert_eq!(reply["devices"][1]["offsets"], serde_json::json!([0, 4]));
/// assert_eq!(reply["devices"][1]["bytes"], 48);
/// ```
#[wasm_bindgen]
pub fn shard(shape: &str, sharding: &str, devices: Option<u32>) -> String {
    let shape: schema::Shape = match shape.parse() {
        Ok(shape) => shape,
        Err(error) => return reply::error(error),
    };
    let devices = devices.map(i64::from);
    let report = match xla_shape::shard(&shape, sharding, devices) {
        Ok(report) => report,
        Err(error) => return reply::error(error),
    };
    let (svg, svg_error) = match xla_shape::draw_sharding(&shape, sharding, devices) {
        Ok(svg) => (Some(svg), None),
        Err(error) => (None, Some(error.to_string())),
    };
    reply::ok(&ShardReply {
        report: &report,
        svg,
        svg_error,
    })
}

/// The sharding panel's reply for moving `shape` from the sharding `from`
/// to `to`: `xla-shape reshard --json`'s fields (`pieces`, `bytes_moved`,
/// `bytes_kept`); `devices` is the device count when neither sharding
/// names one.
///
/// ```
/// let reply = xla_shape_explorer::reshard("f32[8]", "{replicated}", "{devices=[4]<=[4]}", Some(4));
/// let reply: serde_json::Value = serde_json::from_str(&reply).unwrap();
/// assert_eq!((reply["bytes_moved"].as_i64(), reply["bytes_kept"].as_i64()), (Some(0), Some(32)));
/// ```
#[wasm_bindgen]
pub fn reshard(shape: &str, from: &str, to: &str, devices: Option<u32>) -> String {
    let shape: schema::Shape = match shape.parse() {
        Ok(shape) => shape,
        Err(error) => return reply::error(error),
    };
    match xla_shape::reshard(&shape, from, to, devices.map(i64::from)) {
        Ok(plan) => reply::ok(&ReshardReply { plan: &plan }),
        Err(error) => reply::error(error),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    #[test]
    fn a_replicated_tile_lists_its_groups() {
        let reply = shard(
            "bf16[6]",
            "{devices=[2,2]<=[4] last_tile_dim_replicate}",
            None,
        );
        let reply: Value = serde_json::from_str(&reply).unwrap();
        assert_eq!(reply["shard_shape"], "bf16[3]{0}");
        assert_eq!(reply["devices"][2]["offsets"], json!([3]));
        assert_eq!(reply["replication_groups"], json!([[0, 1], [2, 3]]));
        assert!(reply["svg"].as_str().unwrap().contains("<svg"));
    }

    #[test]
    fn a_bad_sharding_is_the_parsers_message() {
        let reply: Value = serde_json::from_str(&shard("f32[4]", "{devices=[2}", None)).unwrap();
        assert_eq!(reply["ok"], false);
        let shape: schema::Shape = "f32[4]".parse().unwrap();
        let error = xla_shape::shard(&shape, "{devices=[2}", None).unwrap_err();
        assert_eq!(reply["error"], error.to_string());
    }

    #[test]
    fn a_reshard_counts_what_moves() {
        let reply = reshard("f32[8]", "{devices=[2]<=[2]}", "{devices=[2]1,0}", None);
        let reply: Value = serde_json::from_str(&reply).unwrap();
        assert_eq!(reply["bytes_moved"], 32);
        assert_eq!(reply["bytes_kept"], 0);
    }
}
