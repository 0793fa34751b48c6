//! Golden tests of Shardy text in `sharding-util` against jax 0.12
//! (`build-tools/gen_shardy.py`):
//! - `shardy/jax.jsonl`: the `sdy.mesh` line and `#sdy.sharding` jax lowers for random
//!   meshes and PartitionSpecs, converted to XLA's `sharding={...}` text exactly, and
//!   every device's box equal to jax's `devices_indices_map`, and back to Shardy text;
//! - `shardy/export.jsonl`: hand-made Shardy shardings (device ids, sub-axes, replicated,
//!   unreduced, open dimensions, priorities, inline meshes) converted by XLA's own
//!   export, or the Shardy verifier's message for malformed ones;
//! - `shardy/replicated.jsonl`: shardings of nothing over jax meshes of 1 to 8 devices,
//!   `{replicated}` over the mesh's devices, every device holding the whole array.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use conformance::{Row, Tally, ints, required, same};
use serde_json::Value;
use sharding_util::sdy::{SdyMesh, SdySharding};
use sharding_util::{DeviceBox, HloSharding};

/// The sharding of one row, converted with its mesh; the text must also
/// print back as read.
fn convert(row: &Row) -> Result<HloSharding, String> {
    let mesh: SdyMesh = required(row, "mesh")?.parse().map_err(|e| format!("{e}"))?;
    let text = required(row, "sharding")?;
    let sharding: SdySharding = text.parse().map_err(|e| format!("{e}"))?;
    same("printed", sharding.to_string().as_str(), text)?;
    let mut mesh = mesh;
    if mesh.name.is_none() {
        mesh.name = Some("mesh".to_string());
    }
    let rank = ints(row, "shape")?.len();
    sharding
        .resolve_mesh(Some(&mesh))
        .and_then(|m| {
            m.verify()?;
            sharding.verify(m, Some(rank))
        })
        .map_err(|e| e.to_string())?;
    sharding.to_hlo(Some(&mesh)).map_err(|e| e.to_string())
}

fn shape_of(row: &Row) -> Result<schema::Shape, String> {
    let dims = ints(row, "shape")?;
    let text: Vec<String> = dims.iter().map(ToString::to_string).collect();
    format!("f32[{}]", text.join(","))
        .parse()
        .map_err(|e| format!("{e:?}"))
}

fn check_jax(row: &Row) -> Result<(), String> {
    let s = convert(row)?;
    same("hlo", s.to_string().as_str(), required(row, "hlo")?)?;
    let shape = shape_of(row)?;
    // Back from XLA's text: some sharding of whole axes converts to it again.
    let mesh: SdyMesh = required(row, "mesh")?.parse().map_err(|e| format!("{e}"))?;
    let back = SdySharding::from_hlo(&s, &mesh, shape.dimensions.len())
        .map_err(|e| e.to_string())?
        .ok_or("no Shardy sharding found for the HLO sharding")?;
    same(
        "round trip",
        back.to_hlo(Some(&mesh))
            .map_err(|e| e.to_string())?
            .to_string(),
        s.to_string(),
    )?;
    let indices = row
        .get("indices")
        .and_then(Value::as_array)
        .ok_or("no indices")?;
    for (device, expected) in indices.iter().enumerate() {
        let device = i64::try_from(device).map_err(|e| e.to_string())?;
        let held = s
            .device_box(&shape, device)
            .map_err(|e| e.to_string())?
            .ok_or_else(|| format!("device {device} holds nothing"))?;
        same(&format!("device {device} box"), &box_value(&held), expected)?;
    }
    Ok(())
}

/// A device's box as jax's indices are written: `[start, stop]` per
/// dimension.
fn box_value(held: &DeviceBox) -> Value {
    held.offsets
        .iter()
        .zip(&held.limits)
        .map(|(&o, &l)| Value::from(vec![o, l]))
        .collect()
}

fn check_export(row: &Row) -> Result<(), String> {
    let result = convert(row);
    match (row.get("hlo").and_then(Value::as_str), result) {
        (Some(hlo), Ok(s)) => same("hlo", s.to_string().as_str(), hlo),
        (Some(_), Err(e)) => Err(format!("rejected: {e}")),
        (None, Ok(s)) => Err(format!("accepted as {s}")),
        (None, Err(e)) => same("error", e.as_str(), required(row, "error")?),
    }
}

/// Checks every row of the golden file `name` with `check`, each case
/// named by its mesh and sharding.
fn check_all(name: &str, check: fn(&Row) -> Result<(), String>) {
    let mut tally = Tally::new(name);
    for row in load(name).unwrap() {
        let case = format!("{} {}", field(&row, "mesh"), field(&row, "sharding"));
        tally.record(&case, check(&row));
    }
    assert!(tally.finish());
}

#[test]
fn jax_lowered_shardings_convert_to_xla_text_and_jax_boxes() {
    check_all("shardy/jax.jsonl", check_jax);
}

/// A sharding that shards nothing over a jax mesh: `{replicated}`, over
/// as many devices as the mesh holds (`mhlo.num_partitions`), each holding
/// the whole array.
fn check_replicated(row: &Row) -> Result<(), String> {
    let s = convert(row)?;
    same("hlo", s.to_string().as_str(), required(row, "hlo")?)?;
    let mesh: SdyMesh = required(row, "mesh")?.parse().map_err(|e| format!("{e}"))?;
    let devices = mesh.device_count().map_err(|e| e.to_string())?;
    same(
        "devices",
        Value::from(devices),
        row.get("devices").cloned().unwrap_or_default(),
    )?;
    let shape = shape_of(row)?;
    let report =
        sharding_util::ShardReport::new(&s, &shape, Some(devices)).map_err(|e| e.to_string())?;
    let indices = row
        .get("indices")
        .and_then(Value::as_array)
        .ok_or("no indices")?;
    same("boxes", report.devices.len(), indices.len())?;
    for (device, expected) in report.devices.iter().zip(indices) {
        let held = device.held.as_ref().ok_or("a device holds nothing")?;
        same(
            &format!("device {} box", device.device),
            &box_value(held),
            expected,
        )?;
    }
    Ok(())
}

#[test]
fn replicated_shardings_hold_the_whole_array_on_every_mesh_device() {
    check_all("shardy/replicated.jsonl", check_replicated);
}

#[test]
fn hand_made_shardings_convert_as_xla_exports_them() {
    check_all("shardy/export.jsonl", check_export);
}

#[test]
fn lowered_mlp_lists_what_jax_places_on_each_device() {
    use sharding_util::sdy::{LoweredModule, LoweredReport};
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("golden/shardy");
    let text = std::fs::read_to_string(dir.join("mlp.mlir")).unwrap();
    let report = LoweredReport::new(&LoweredModule::parse(&text).unwrap()).unwrap();
    let rows = load("shardy/mlp.jsonl").unwrap();
    assert_eq!(report.devices, 8);
    assert_eq!(report.entries.len(), rows.len());
    let mut totals = [vec![0_i64; 8], vec![0_i64; 8]];
    for (entry, row) in report.entries.iter().zip(&rows) {
        let element_bytes = match required(row, "dtype").unwrap() {
            "float32" => 4,
            "bfloat16" => 2,
            other => panic!("dtype {other}"),
        };
        let dims: Vec<String> = ints(row, "shape")
            .unwrap()
            .iter()
            .map(ToString::to_string)
            .collect();
        let element = if element_bytes == 4 { "f32" } else { "bf16" };
        assert_eq!(entry.shape, format!("{element}[{}]", dims.join(",")));
        let kind = usize::from(required(row, "kind").unwrap() == "result");
        // Every value of the MLP is sharded in the lowered module.
        let hlo: HloSharding = entry.hlo.as_deref().unwrap().parse().unwrap();
        let shape: schema::Shape = entry.shape.parse().unwrap();
        let indices = row.get("indices").and_then(Value::as_array).unwrap();
        for (device, expected) in indices.iter().enumerate() {
            let held = hlo
                .device_box(&shape, i64::try_from(device).unwrap())
                .unwrap()
                .unwrap();
            assert_eq!(
                &box_value(&held),
                expected,
                "{} device {device}",
                entry.tensor_type
            );
            let elements: i64 = expected
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r[1].as_i64().unwrap() - r[0].as_i64().unwrap())
                .product();
            assert_eq!(
                entry.bytes.as_ref().unwrap()[device],
                elements * element_bytes
            );
            totals[kind][device] += elements * element_bytes;
        }
    }
    assert_eq!(report.argument_bytes, totals[0]);
    assert_eq!(report.result_bytes, totals[1]);
}

/// The rows of `golden/shardy/<name>` beside this test.
fn load(name: &str) -> Result<Vec<Row>, String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("golden")
        .join(name);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    text.lines()
        .map(|line| serde_json::from_str(line).map_err(|e| format!("{name}: {e}")))
        .collect()
}

fn field<'a>(row: &'a Row, key: &str) -> &'a str {
    conformance::field(row, key).unwrap_or("")
}

/// Every golden mesh and sharding text cut, with bytes deleted, doubled or
/// replaced by bracket and quote characters (a fixed pseudo-random walk):
/// nothing panics, and what parses prints as text that parses back to it.
#[test]
fn mutated_shardy_text_fails_cleanly_or_prints_back() {
    let mut seed: u64 = 44;
    let mut next = |n: usize| {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        usize::try_from(seed >> 33).unwrap() % n.max(1)
    };
    let pieces = [
        "{", "}", "<", ">", "[", "]", "\"", ":", "(", ")", ",", "?", "p", "=", "-", "9",
    ];
    let mut parsed = 0;
    for row in load("shardy/export.jsonl").unwrap() {
        let mesh = required(&row, "mesh").unwrap();
        let sharding = required(&row, "sharding").unwrap();
        for _ in 0..100 {
            let mut text = format!("{mesh}\n{sharding}").into_bytes();
            for _ in 0..=next(3) {
                let at = next(text.len());
                match next(3) {
                    0 if at < text.len() => {
                        text.remove(at);
                    }
                    1 => text
                        .splice(at..at, pieces[next(pieces.len())].bytes())
                        .for_each(drop),
                    2 => text.truncate(at),
                    _ => {}
                }
            }
            let Ok(text) = String::from_utf8(text) else {
                continue;
            };
            let (m, s) = text.split_once('\n').unwrap_or((&text, ""));
            let mesh = m.parse::<SdyMesh>().ok();
            if let Ok(sharding) = s.parse::<SdySharding>() {
                parsed += 1;
                let printed = sharding.to_string();
                assert_eq!(printed.parse::<SdySharding>().unwrap(), sharding, "{s:?}");
                if let Some((mesh, Ok(hlo))) = mesh.as_ref().map(|m| (m, sharding.to_hlo(Some(m))))
                {
                    let _ = SdySharding::from_hlo(&hlo, mesh, sharding.dims.len());
                }
            }
            let _ = sharding_util::sdy::LoweredModule::parse(&text);
        }
    }
    assert!(parsed > 100, "{parsed}");
}
