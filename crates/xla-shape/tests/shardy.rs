//! Shardy text on the command line: `sharding --mesh`, `sharding --sdy`,
//! `shard`/`reshard`/`draw` with `--mesh`, and `lowered` on jax's lowered
//! text of a sharded MLP (tests/golden/shardy/mlp.mlir). Expected
//! shardings are XLA's (from jax 0.12's export).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::Value;

mod common;

use common::run;

const MESH_LINE: &str = r#"sdy.mesh @mesh = <["a"=2, "b"=4]> {stablehlo.mesh = {axes = [{name = "a", size = 2 : i64}, {name = "b", size = 4 : i64}]}}"#;

#[test]
fn sharding_converts_shardy_text_with_the_mesh_in_any_form() {
    for mesh in [
        MESH_LINE,
        r#"<["a"=2, "b"=4]>"#,
        r#"#sdy.mesh<["a"=2, "b"=4]>"#,
    ] {
        let (out, code) = run(
            &[
                "sharding",
                "--mesh",
                mesh,
                r#"#sdy.sharding<@mesh, [{"b", "a"}, {}]>"#,
            ],
            None,
        );
        assert_eq!(
            (out.as_str(), code),
            ("{devices=[8,1]<=[2,4]T(1,0)}\n", 0),
            "{mesh}"
        );
    }
    let (out, code) = run(
        &[
            "sharding",
            "--mesh",
            r#"<["a"=2, "b"=4], device_ids=[7, 6, 5, 4, 3, 2, 1, 0]>"#,
            r#"#sdy.sharding<@mesh, [{"b":(2)2, "a"}, {?}], replicated={"b":(1)2}>"#,
        ],
        None,
    );
    assert_eq!(
        (out.as_str(), code),
        (
            "{devices=[4,1,2]5,7,1,3,4,6,0,2 last_tile_dim_replicate}\n",
            0
        )
    );
}

#[test]
fn sharding_reports_shardy_verifier_errors() {
    let (out, code) = run(
        &[
            "--json",
            "sharding",
            "--mesh",
            r#"<["a"=2]>"#,
            r#"#sdy.sharding<@mesh, [{"a", "a"}]>"#,
        ],
        None,
    );
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["error"], r#"duplicate axis ref: "a""#);
    let (out, code) = run(&["sharding", r#"#sdy.sharding<@mesh, [{"a"}]>"#], None);
    assert_eq!((code, out.as_str()), (1, "error: unknown mesh: @mesh\n"));
}

#[test]
fn sharding_sdy_writes_xla_text_as_shardy() {
    let (out, code) = run(
        &[
            "--json",
            "sharding",
            "--sdy",
            "--mesh",
            MESH_LINE,
            "{devices=[8,1]<=[2,4]T(1,0)}",
        ],
        None,
    );
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["sdy"], r#"#sdy.sharding<@mesh, [{"b", "a"}, {}]>"#);
    let (_, code) = run(
        &[
            "sharding",
            "--sdy",
            "--mesh",
            MESH_LINE,
            "{devices=[3]<=[3]}",
        ],
        None,
    );
    assert_eq!(code, 1);
}

#[test]
fn shard_reshard_and_draw_take_shardy_shardings() {
    let mesh = r#"<["a"=2, "b"=2]>"#;
    let (out, code) = run(
        &[
            "--json",
            "shard",
            "f32[8,4]",
            r#"#sdy.sharding<@mesh, [{"a"}, {}]>"#,
            "--mesh",
            mesh,
        ],
        None,
    );
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["shard_shape"], "f32[4,4]{1,0}");
    assert_eq!(v["replication_groups"], serde_json::json!([[0, 1], [2, 3]]));
    let (out, code) = run(
        &[
            "--json",
            "reshard",
            "f32[8]",
            r#"#sdy.sharding<@mesh, [{"a"}]>"#,
            "{devices=[2,2]<=[2,2]T(1,0) last_tile_dim_replicate}",
            "--mesh",
            mesh,
        ],
        None,
    );
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["bytes_moved"], 32);
    let (out, code) = run(
        &[
            "draw",
            "f32[4,4]",
            "--sharding",
            r#"#sdy.sharding<@mesh, [{"a"}, {"b"}]>"#,
            "--mesh",
            mesh,
        ],
        None,
    );
    assert_eq!(code, 0);
    assert!(
        out.contains("{devices=[2,2]&lt;=[4]}") || out.contains("{devices=[2,2]<=[4]}"),
        "{out}"
    );
}

#[test]
fn lowered_lists_the_mlp_of_jax() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/golden/shardy/mlp.mlir"
    );
    let (out, code) = run(&["--json", "lowered", path], None);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["devices"], 8);
    let entries = v["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 5);
    assert_eq!(entries[1]["shape"], "bf16[64,256]");
    assert_eq!(
        entries[1]["hlo"],
        "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"
    );
    assert_eq!(entries[1]["shard_shape"], "bf16[64,64]");
    assert_eq!(entries[4]["kind"], "result");
    assert_eq!(entries[4]["name"], "result");
    // x 32*64/2, w1 64*256/4 bf16, b 256/4, w2 256*64/4, all f32 but w1.
    assert_eq!(
        v["argument_bytes"][0],
        32 * 64 / 2 * 4 + 64 * 256 / 4 * 2 + 256 / 4 * 4 + 256 * 64 / 4 * 4
    );
    assert_eq!(v["result_bytes"][7], 32 * 64 / 2 * 4);
    let text = std::fs::read_to_string(path).unwrap();
    let (out, code) = run(&["lowered", "-"], Some(&text));
    assert_eq!(code, 0);
    assert!(
        out.starts_with("8 devices\nargument 0 %arg0: tensor<32x64xf32> = f32[32,64]\n"),
        "{out}"
    );
    let (_, code) = run(&["lowered", "-"], Some("module {}"));
    assert_eq!(code, 1);
}

/// The cases of tests/golden/shardy/propagated.jsonl: lowered modules
/// whose values jax left to XLA's sharding propagation, with what XLA
/// chose for each value once compiled.
fn propagated_cases() -> Vec<Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/golden/shardy/propagated.jsonl"
    );
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

#[test]
fn a_value_left_to_propagation_is_unspecified_and_counts_in_no_total() {
    let cases = propagated_cases();
    assert_eq!(cases.len(), 5);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let (out, code) = run(&["--json", "lowered", "-"], case["mlir"].as_str());
        assert_eq!(code, 0, "{name}: {out}");
        let report: Value = serde_json::from_str(out.trim()).unwrap();
        let entries = report["entries"].as_array().unwrap();
        let values = case["values"].as_array().unwrap();
        assert_eq!(entries.len(), values.len(), "{name}");
        let mut totals = [vec![0_i64; 8], vec![0_i64; 8]];
        for (entry, value) in entries.iter().zip(values) {
            assert_eq!(entry["kind"], value["kind"], "{name}");
            if value["lowered"] == true {
                // Sharded in the lowered module: what XLA kept.
                assert_eq!(entry["source"], "lowered", "{name}");
                assert_eq!(entry["bytes"], value["bytes"], "{name}");
                let total = &mut totals[usize::from(value["kind"] == "result")];
                for (t, b) in total.iter_mut().zip(value["bytes"].as_array().unwrap()) {
                    *t += b.as_i64().unwrap();
                }
            } else {
                assert_eq!(entry["source"], "unspecified", "{name}");
                assert_eq!(
                    (&entry["hlo"], &entry["shard_shape"], &entry["bytes"]),
                    (&Value::Null, &Value::Null, &Value::Null),
                    "{name}"
                );
            }
        }
        assert_eq!(
            report["argument_bytes"],
            serde_json::json!(totals[0]),
            "{name}"
        );
        assert_eq!(
            report["result_bytes"],
            serde_json::json!(totals[1]),
            "{name}"
        );
        let (text, code) = run(&["lowered", "-"], case["mlir"].as_str());
        assert_eq!(code, 0);
        assert!(
            text.contains(
                "result 0 result: tensor<"
            ) && text.contains(
                "\n  hlo    unspecified: left to XLA's sharding propagation (not counted below)\n"
            ),
            "{name}: {text}"
        );
    }
}

#[test]
fn the_shardings_xla_chose_give_what_each_device_holds() {
    use sharding_util::HloSharding;
    use sharding_util::sdy::{LoweredModule, LoweredReport, ShardingSource};

    for case in propagated_cases() {
        let name = case["name"].as_str().unwrap();
        let module = LoweredModule::parse(case["mlir"].as_str().unwrap()).unwrap();
        let values = case["values"].as_array().unwrap();
        let chosen: Vec<Option<HloSharding>> = values
            .iter()
            .map(|v| Some(v["hlo"].as_str().unwrap().parse().unwrap()))
            .collect();
        let report = LoweredReport::with_chosen(&module, &chosen).unwrap();
        let mut results = vec![0_i64; 8];
        for (entry, value) in report.entries.iter().zip(values) {
            let want: Vec<i64> = value["bytes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| b.as_i64().unwrap())
                .collect();
            assert_eq!(entry.bytes.as_ref(), Some(&want), "{name}");
            let source = if value["lowered"] == true {
                ShardingSource::Lowered
            } else {
                ShardingSource::Compiled
            };
            assert_eq!(entry.source, source, "{name}");
            if value["kind"] == "result" {
                for (r, b) in results.iter_mut().zip(&want) {
                    *r += b;
                }
            }
        }
        assert_eq!(report.result_bytes, results, "{name}");
        // XLA's own figure: the output bytes of one device's program.
        assert_eq!(
            Some(report.result_bytes[0]),
            case["output_size_in_bytes"].as_i64(),
            "{name}"
        );
        let text = report.to_string();
        assert!(text.contains(" (chosen by XLA)\n"), "{text}");
    }
}

/// jax's replicated shardings over meshes of 1 to 8 devices
/// (tests/golden/shardy/replicated.jsonl, from jax 0.12): `shard` takes
/// the device count from the mesh, lists every device's box as jax's
/// `devices_indices_map` does, and `reshard`/`draw` take the same count;
/// a `--devices` the mesh contradicts is refused.
#[test]
fn a_replicated_shardy_sharding_takes_its_mesh_device_count() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/golden/shardy/replicated.jsonl"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let mut checked = 0;
    for line in text.lines() {
        let row: Value = serde_json::from_str(line).unwrap();
        let dims: Vec<String> = row["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(ToString::to_string)
            .collect();
        let shape = format!("f32[{}]", dims.join(","));
        let (mesh, sharding) = (
            row["mesh"].as_str().unwrap(),
            row["sharding"].as_str().unwrap(),
        );
        let (out, code) = run(&["--json", "shard", &shape, sharding, "--mesh", mesh], None);
        assert_eq!(code, 0, "{line}: {out}");
        let v: Value = serde_json::from_str(out.trim()).unwrap();
        let devices = v["devices"].as_array().unwrap();
        assert_eq!(
            devices.len() as u64,
            row["devices"].as_u64().unwrap(),
            "{line}"
        );
        for (device, expected) in devices.iter().zip(row["indices"].as_array().unwrap()) {
            let boxes: Vec<Value> = device["offsets"]
                .as_array()
                .unwrap()
                .iter()
                .zip(device["limits"].as_array().unwrap())
                .map(|(o, l)| Value::from(vec![o.clone(), l.clone()]))
                .collect();
            assert_eq!(&Value::from(boxes), expected, "{line}");
        }
        assert_eq!(row["hlo"], "{replicated}");
        checked += 1;
    }
    assert_eq!(checked, 40);
    let mesh = r#"sdy.mesh @mesh = <["m"=4]>"#;
    let replicated = "#sdy.sharding<@mesh, [{}]>";
    let (out, code) = run(
        &[
            "reshard",
            "f32[8]",
            replicated,
            r#"#sdy.sharding<@mesh, [{"m"}]>"#,
            "--mesh",
            mesh,
        ],
        None,
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.ends_with("bytes moved 0, bytes kept 32\n"), "{out}");
    let (out, code) = run(
        &["draw", "f32[8]", "--sharding", replicated, "--mesh", mesh],
        None,
    );
    assert_eq!(code, 0, "{out}");
    let (out, code) = run(
        &[
            "shard",
            "f32[8]",
            replicated,
            "--mesh",
            mesh,
            "--devices",
            "8",
        ],
        None,
    );
    assert_eq!(
        (out.as_str(), code),
        (
            "error: the mesh of #sdy.sharding<@mesh, [{}]> holds 4 devices, but --devices says 8\n",
            1
        )
    );
}
