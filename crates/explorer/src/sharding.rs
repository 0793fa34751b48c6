//! The sharding panel: a shape's per-device boxes under an `HloSharding`
//! or a Shardy sharding over its mesh, its picture, and the plan of a
//! reshard between two shardings.

use serde::Serialize;
use sharding_util::{ReshardPlan, ShardReport};
use wasm_bindgen::prelude::wasm_bindgen;

use crate::reply;

/// What the sharding panel shows of one sharding.
#[derive(Serialize)]
struct ShardReply<'a> {
    /// The sharding as XLA's `HloSharding` text (a Shardy sharding
    /// converted, as `xla-shape sharding --mesh MESH` prints it).
    sharding: String,
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
/// `sharding`, XLA's text or Shardy's over the mesh `mesh` (as `xla-shape
/// shard SHAPE SHARDING --mesh MESH` reads them): `sharding` (the
/// `HloSharding` text it converts to), the command's `--json` fields
/// (`shard_shape`, `devices` with each device's `tile`, `offsets`, `limits`
/// and `bytes`, `replication_groups`) and `svg` (the picture `xla-shape
/// draw --sharding` draws, naming a Shardy mesh's axes) or `svg_error`;
/// `devices` is the device count of a sharding that names none.
///
/// ```
/// let reply = xla_shape_explorer::shard("f32[6,8]", "{devices=[2,2]<=[4]}", None, None);
/// let reply: serde_json::Value = serde_json::from_str(&reply).unwrap();
/// assert_eq!(reply["shard_shape"], "f32[3,4]{1,0}");
/// assert_eq!(reply["devices"][1]["offsets"], serde_json::json!([0, 4]));
/// assert_eq!(reply["devices"][1]["bytes"], 48);
///
/// let mesh = Some(r#"sdy.mesh @mesh = <["a"=2, "b"=2]>"#.to_owned());
/// let reply = xla_shape_explorer::shard("f32[6,8]", r#"#sdy.sharding<@mesh, [{"b"}, {"a"}]>"#, mesh, None);
/// let reply: serde_json::Value = serde_json::from_str(&reply).unwrap();
/// assert_eq!(reply["sharding"], "{devices=[2,2]<=[2,2]T(1,0)}");
/// assert_eq!(reply["devices"][1]["offsets"], serde_json::json!([3, 0]));
/// ```
#[wasm_bindgen]
pub fn shard(shape: &str, sharding: &str, mesh: Option<String>, devices: Option<u32>) -> String {
    let shape: schema::Shape = match shape.parse() {
        Ok(shape) => shape,
        Err(error) => return reply::error(error),
    };
    let mesh = mesh.as_deref();
    let mut devices = devices.map(i64::from);
    let report = (|| -> Result<_, xla_shape_front::Error> {
        let s = sharding_util::sdy::read_sharding(sharding, mesh)?;
        devices = sharding_util::sdy::device_count(&[sharding], mesh, devices)?;
        let report = ShardReport::new(&s, &shape, devices)?;
        Ok((s, report))
    })();
    let (s, report) = match report {
        Ok(read) => read,
        Err(error) => return reply::error(error),
    };
    let axes = sharding_util::sdy::mesh_axes(sharding, mesh);
    let (svg, svg_error) =
        match xla_shape_front::draw_hlo_sharding(&shape, &s, devices, axes.as_deref()) {
            Ok(svg) => (Some(svg), None),
            Err(error) => (None, Some(error.to_string())),
        };
    reply::ok(&ShardReply {
        sharding: s.to_string(),
        report: &report,
        svg,
        svg_error,
    })
}

/// The sharding panel's reply for moving `shape` from the sharding `from`
/// to `to` (each XLA's text or Shardy's over the mesh `mesh`, as `xla-shape
/// reshard --mesh MESH` reads them): the command's `--json` fields
/// (`pieces`, `bytes_moved`, `bytes_kept`); `devices` is the device count
/// when neither sharding names one.
///
/// ```
/// let reply = xla_shape_explorer::reshard("f32[8]", "{replicated}", "{devices=[4]<=[4]}", None, Some(4));
/// let reply: serde_json::Value = serde_json::from_str(&reply).unwrap();
/// assert_eq!((reply["bytes_moved"].as_i64(), reply["bytes_kept"].as_i64()), (Some(0), Some(32)));
/// ```
#[wasm_bindgen]
pub fn reshard(
    shape: &str,
    from: &str,
    to: &str,
    mesh: Option<String>,
    devices: Option<u32>,
) -> String {
    let shape: schema::Shape = match shape.parse() {
        Ok(shape) => shape,
        Err(error) => return reply::error(error),
    };
    let mesh = mesh.as_deref();
    let plan = (|| -> Result<_, xla_shape_front::Error> {
        let from_sharding = sharding_util::sdy::read_sharding(from, mesh)?;
        let to_sharding = sharding_util::sdy::read_sharding(to, mesh)?;
        let devices = sharding_util::sdy::device_count(&[from, to], mesh, devices.map(i64::from))?;
        Ok(sharding_util::reshard_plan(
            &shape,
            &from_sharding,
            &to_sharding,
            devices,
        )?)
    })();
    match plan {
        Ok(plan) => reply::ok(&ReshardReply { plan: &plan }),
        Err(error) => reply::error(error),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    /// A mesh of two axes, as jax lowers `Mesh(devices, ("a", "b"))`.
    const MESH: &str = r#"sdy.mesh @mesh = <["a"=2, "b"=2]> {stablehlo.mesh = {axes = []}}"#;

    fn parsed(reply: &str) -> Value {
        serde_json::from_str(reply).unwrap()
    }

    #[test]
    fn a_replicated_tile_lists_its_groups() {
        let reply = parsed(&shard(
            "bf16[6]",
            "{devices=[2,2]<=[4] last_tile_dim_replicate}",
            None,
            None,
        ));
        assert_eq!(reply["shard_shape"], "bf16[3]{0}");
        assert_eq!(reply["devices"][2]["offsets"], json!([3]));
        assert_eq!(reply["replication_groups"], json!([[0, 1], [2, 3]]));
        assert!(reply["svg"].as_str().unwrap().contains("<svg"));
    }

    #[test]
    fn a_replicated_shardy_sharding_takes_its_mesh_device_count() {
        // As `xla-shape shard f32[8] SDY --mesh MESH` (jax's P() over 4 devices).
        let mesh = Some(MESH.to_owned());
        let reply = parsed(&shard(
            "f32[8]",
            "#sdy.sharding<@mesh, [{}]>",
            mesh.clone(),
            None,
        ));
        assert_eq!(reply["sharding"], "{replicated}");
        assert_eq!(reply["devices"].as_array().unwrap().len(), 4);
        let reply = parsed(&shard(
            "f32[8]",
            "#sdy.sharding<@mesh, [{}]>",
            mesh.clone(),
            Some(8),
        ));
        assert_eq!(
            reply["error"],
            "the mesh of #sdy.sharding<@mesh, [{}]> holds 4 devices, but --devices says 8"
        );
        let to = r#"#sdy.sharding<@mesh, [{"a", "b"}]>"#;
        let reply = parsed(&reshard(
            "f32[8]",
            "#sdy.sharding<@mesh, [{}]>",
            to,
            mesh,
            None,
        ));
        assert_eq!(reply["bytes_kept"], 32);
    }

    #[test]
    fn a_bad_sharding_is_the_parsers_message() {
        let reply = parsed(&shard("f32[4]", "{devices=[2}", None, None));
        assert_eq!(reply["ok"], false);
        let shape: schema::Shape = "f32[4]".parse().unwrap();
        let error = xla_shape_front::shard(&shape, "{devices=[2}", None).unwrap_err();
        assert_eq!(reply["error"], error.to_string());
    }

    #[test]
    fn a_shardy_sharding_is_converted_and_its_axes_named() {
        let text = r#"#sdy.sharding<@mesh, [{"b"}, {"a"}]>"#;
        let reply = parsed(&shard("f32[6,8]", text, Some(MESH.to_owned()), None));
        // `xla-shape sharding --mesh MESH SDY` and `shard f32[6,8] SDY --mesh MESH`.
        assert_eq!(reply["sharding"], "{devices=[2,2]<=[2,2]T(1,0)}");
        assert_eq!(reply["shard_shape"], "f32[3,4]{1,0}");
        let boxes: Vec<(Value, Value)> = reply["devices"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| (d["offsets"].clone(), d["limits"].clone()))
            .collect();
        assert_eq!(
            boxes,
            [
                (json!([0, 0]), json!([3, 4])),
                (json!([3, 0]), json!([6, 4])),
                (json!([0, 4]), json!([3, 8])),
                (json!([3, 4]), json!([6, 8])),
            ]
        );
        assert!(
            reply["svg"]
                .as_str()
                .unwrap()
                .contains("mesh a=2 \u{b7} b=2")
        );
    }

    #[test]
    fn an_xla_sharding_ignores_the_mesh() {
        let reply = parsed(&shard(
            "f32[6,8]",
            "{devices=[2,2]<=[4]}",
            Some(MESH.to_owned()),
            None,
        ));
        assert_eq!(reply["sharding"], "{devices=[2,2]<=[4]}");
        assert!(!reply["svg"].as_str().unwrap().contains("mesh a=2"));
    }

    #[test]
    fn shardys_verifier_errors_are_the_commands() {
        let cases = [
            (
                r#"#sdy.sharding<@mesh, [{"a"}, {"a"}]>"#,
                MESH,
                r#"duplicate axis ref: "a""#,
            ),
            (
                r#"#sdy.sharding<@mesh, [{"c"}, {}]>"#,
                MESH,
                r#"unknown axis name: "c""#,
            ),
            (
                r#"#sdy.sharding<@mesh, [{"a":(2)2}, {}]>"#,
                MESH,
                r#"sub-axis next pre-size 4 doesn't divide the size of the full axis 2: "a":(2)2"#,
            ),
            (
                r#"#sdy.sharding<@mesh, [{"a"}, {}]>"#,
                r#"<["a"=2, "b"=2], device_ids=[0,0,1,2]>"#,
                "sorted device ids must be iota(product(axes)), got: 0, 0, 1, 2",
            ),
        ];
        for (text, mesh, message) in cases {
            let reply = parsed(&shard("f32[6,8]", text, Some(mesh.to_owned()), None));
            assert_eq!(
                (&reply["ok"], reply["error"].as_str()),
                (&json!(false), Some(message))
            );
        }
        let reply = parsed(&shard(
            "f32[6,8]",
            r#"#sdy.sharding<@mesh, [{"a"}, {}]>"#,
            None,
            None,
        ));
        assert_eq!(reply["error"], "unknown mesh: @mesh");
    }

    #[test]
    fn a_reshard_counts_what_moves() {
        let reply = parsed(&reshard(
            "f32[8]",
            "{devices=[2]<=[2]}",
            "{devices=[2]1,0}",
            None,
            None,
        ));
        assert_eq!(reply["bytes_moved"], 32);
        assert_eq!(reply["bytes_kept"], 0);
    }

    #[test]
    fn a_shardy_reshard_reads_both_over_the_mesh() {
        let reply = parsed(&reshard(
            "f32[6,8]",
            r#"#sdy.sharding<@mesh, [{"b"}, {"a"}]>"#,
            r#"#sdy.sharding<@mesh, [{"a", "b"}, {}]>"#,
            Some(MESH.to_owned()),
            None,
        ));
        // `xla-shape reshard f32[6,8] FROM TO --mesh MESH`.
        assert_eq!(
            (&reply["bytes_moved"], &reply["bytes_kept"]),
            (&json!(144), &json!(48))
        );
        assert_eq!(reply["pieces"].as_array().map(Vec::len), Some(8));
    }
}
