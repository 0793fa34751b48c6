//! Reshard plans against jax 0.12's `device_put` (`build-tools/gen_reshard.py`,
//! `tests/golden/reshard_device_put.jsonl`): tiled, partially replicated,
//! one-device (maximal) and `int4` arrays over 8 devices. Every position
//! comes from jax (each shard's global index and data), none from
//! sharding-util's own placement: each destination's pieces cover exactly
//! the box jax gives that device, each from a device jax says holds it,
//! with the bytes of XLA's element size; executed over the per-device
//! buffers jax holds, the plan gives each device the data jax gives it.
//! Between meshes whose devices are in other orders
//! (`tests/golden/reshard_device_ids.jsonl`), the pieces go between jax's
//! device ids and the bytes kept and moved are jax's.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use conformance::{Row, Tally, load, required, same};
use schema::PrimitiveType;
use serde_json::Value;
use sharding_util::{HloSharding, ReshardPlan, execute_plan, reshard_plan, reshard_plan_between};

/// What jax holds on one device: its global box and its elements.
struct Held {
    index: Vec<(i64, i64)>,
    data: Vec<i64>,
}

/// Per device, what jax holds there (`None`: nothing).
fn holdings(row: &Row, key: &str) -> Result<Vec<Option<Held>>, String> {
    let list = row
        .get(key)
        .and_then(Value::as_array)
        .ok_or(format!("no {key}"))?;
    list.iter()
        .map(|device| {
            if device.is_null() {
                return Ok(None);
            }
            let index: Vec<[i64; 2]> =
                serde_json::from_value(device["index"].clone()).map_err(|e| e.to_string())?;
            let data: Vec<i64> =
                serde_json::from_value(device["data"].clone()).map_err(|e| e.to_string())?;
            Ok(Some(Held {
                index: index.iter().map(|&[a, b]| (a, b)).collect(),
                data,
            }))
        })
        .collect()
}

/// XLA's element type and bytes per element (`int4` unpacked: one byte,
/// as XLA stores S4 without an `E(4)` layout).
fn element(dtype: &str) -> Result<(PrimitiveType, usize), String> {
    Ok(match dtype {
        "int32" => (PrimitiveType::S32, 4),
        "float32" => (PrimitiveType::F32, 4),
        "int16" => (PrimitiveType::S16, 2),
        "int4" => (PrimitiveType::S4, 1),
        other => return Err(format!("dtype {other}")),
    })
}

/// The little-endian bytes of `values` as `dtype`.
fn encode(dtype: &str, values: &[i64]) -> Vec<u8> {
    values
        .iter()
        .flat_map(|&v| match dtype {
            "int32" => i32::try_from(v).unwrap().to_le_bytes().to_vec(),
            "float32" => (v as f32).to_le_bytes().to_vec(),
            "int16" => i16::try_from(v).unwrap().to_le_bytes().to_vec(),
            _ => i8::try_from(v).unwrap().to_le_bytes().to_vec(),
        })
        .collect()
}

/// The pieces of `plan` against jax's boxes.
fn check_pieces(
    plan: &ReshardPlan,
    dims: &[i64],
    size: usize,
    source: &[Option<Held>],
    result: &[Option<Held>],
) -> Result<(), String> {
    let count: i64 = dims.iter().product();
    let mut covered = vec![vec![0_u32; usize::try_from(count).unwrap()]; result.len()];
    let mut total = 0;
    for p in &plan.pieces {
        let from = source[usize::try_from(p.from).unwrap()]
            .as_ref()
            .ok_or(format!("piece from device {}, which holds nothing", p.from))?;
        let inside = p
            .offsets
            .iter()
            .zip(&p.limits)
            .zip(&from.index)
            .all(|((&o, &l), &(a, b))| a <= o && l <= b);
        if !inside {
            return Err(format!(
                "device {} does not hold {:?}..{:?}",
                p.from, p.offsets, p.limits
            ));
        }
        let extents: Vec<i64> = p
            .offsets
            .iter()
            .zip(&p.limits)
            .map(|(o, l)| l - o)
            .collect();
        let elements: i64 = extents.iter().product();
        same(
            "piece bytes",
            p.bytes,
            elements * i64::try_from(size).unwrap(),
        )?;
        total += p.bytes;
        for k in 0..elements {
            let (mut rest, mut flat) = (k, 0);
            let mut index = vec![0; dims.len()];
            for (i, slot) in index.iter_mut().enumerate().rev() {
                *slot = p.offsets[i] + rest % extents[i];
                rest /= extents[i];
            }
            for (&x, &d) in index.iter().zip(dims) {
                flat = flat * d + x;
            }
            covered[usize::try_from(p.to).unwrap()][usize::try_from(flat).unwrap()] += 1;
        }
    }
    same(
        "bytes moved and kept",
        plan.bytes_moved + plan.bytes_kept,
        total,
    )?;
    for (device, held) in result.iter().enumerate() {
        let want: Vec<u32> = (0..count)
            .map(|flat| {
                let Some(held) = held else { return 0 };
                let mut rest = flat;
                let mut inside = true;
                for (i, &d) in dims.iter().enumerate().rev() {
                    let x = rest % d;
                    rest /= d;
                    inside &= held.index[i].0 <= x && x < held.index[i].1;
                }
                u32::from(inside)
            })
            .collect();
        same(
            &format!("device {device}'s elements"),
            &covered[device],
            &want,
        )?;
    }
    Ok(())
}

fn case(row: &Row) -> Result<(), String> {
    let dims = conformance::ints(row, "dims")?;
    let dtype = required(row, "dtype")?;
    let (ty, size) = element(dtype)?;
    let shape = shape_util::make_shape(ty, &dims).map_err(|e| e.to_string())?;
    let from: HloSharding = required(row, "from")?.parse().map_err(|e| format!("{e}"))?;
    let to: HloSharding = required(row, "to")?.parse().map_err(|e| format!("{e}"))?;
    let (source, result) = (holdings(row, "source")?, holdings(row, "result")?);
    let plan = reshard_plan(&shape, &from, &to, Some(8)).map_err(|e| e.to_string())?;
    check_pieces(&plan, &dims, size, &source, &result)?;
    // jax's shards divide evenly: each shard buffer is exactly jax's data.
    let sources: Vec<Vec<u8>> = source
        .iter()
        .map(|h| h.as_ref().map_or_else(Vec::new, |h| encode(dtype, &h.data)))
        .collect();
    let want: Vec<Vec<u8>> = result
        .iter()
        .map(|h| h.as_ref().map_or_else(Vec::new, |h| encode(dtype, &h.data)))
        .collect();
    let mut got: Vec<Vec<u8>> = want.iter().map(|w| vec![0xa5; w.len()]).collect();
    execute_plan(&plan, (&from, &shape), (&to, &shape), &sources, &mut got)
        .map_err(|e| e.to_string())?;
    same("device buffers", got, want)
}

#[test]
fn reshard_device_put() {
    let mut tally = Tally::new("reshard_device_put");
    let rows = load("reshard_device_put.jsonl").unwrap();
    assert_eq!(rows.len(), 11);
    for row in &rows {
        let name = format!(
            "{} {:?}: {} -> {}",
            row["dtype"], row["dims"], row["from"], row["to"]
        );
        tally.record(&name, case(row));
    }
    assert!(tally.finish());
}

fn case_between(row: &Row) -> Result<(), String> {
    let dims = conformance::ints(row, "dims")?;
    let dtype = required(row, "dtype")?;
    let (ty, size) = element(dtype)?;
    let shape = shape_util::make_shape(ty, &dims).map_err(|e| e.to_string())?;
    let from: HloSharding = required(row, "from")?.parse().map_err(|e| format!("{e}"))?;
    let to: HloSharding = required(row, "to")?.parse().map_err(|e| format!("{e}"))?;
    let (from_ids, to_ids) = (
        conformance::ints(row, "from_ids")?,
        conformance::ints(row, "to_ids")?,
    );
    let (source, result) = (holdings(row, "source")?, holdings(row, "result")?);
    let plan = reshard_plan_between(&shape, (&from, Some(&from_ids)), (&to, Some(&to_ids)), None)
        .map_err(|e| e.to_string())?;
    check_pieces(&plan, &dims, size, &source, &result)?;
    same(
        "bytes kept",
        plan.bytes_kept,
        conformance::int(row, "bytes_kept")?,
    )?;
    same(
        "bytes moved",
        plan.bytes_moved,
        conformance::int(row, "bytes_moved")?,
    )
}

#[test]
fn reshard_between_device_orders() {
    let mut tally = Tally::new("reshard_device_ids");
    let rows = load("reshard_device_ids.jsonl").unwrap();
    assert_eq!(rows.len(), 6);
    for row in &rows {
        let name = format!(
            "{} {:?}: {} on {:?} -> {} on {:?}",
            row["dtype"], row["dims"], row["from"], row["from_ids"], row["to"], row["to_ids"]
        );
        tally.record(&name, case_between(row));
    }
    assert!(tally.finish());
}
