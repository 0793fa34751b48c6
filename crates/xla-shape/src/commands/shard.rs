//! `shard`: what each device holds of a global array under a sharding:
//! the shard shape, each device's tile and box, the bytes of its box, and
//! the replication groups.

use schema::Shape;
use serde_json::{Value, json};
use sharding_util::HloSharding;

#[cfg(feature = "cli")]
use super::shape;
use super::{Outcome, list};
#[cfg(feature = "cli")]
use crate::cli::ShardArgs;

/// The most devices a table lists.
const MAX_LISTED: i64 = 1 << 20;

/// A parsed sharding, or its error text.
pub(crate) fn sharding(text: &str) -> Result<HloSharding, String> {
    text.trim()
        .parse()
        .map_err(|e: sharding_util::ParseError| e.to_string())
}

/// The device count: the sharding's own, else `--devices`; checked against
/// the shape and each other by validation.
pub(crate) fn device_count(s: &HloSharding, devices: Option<i64>) -> Result<i64, String> {
    match (s.num_devices(), devices) {
        (Some(n), _) | (None, Some(n)) => Ok(n),
        (None, None) => Err(format!("{s} names no device count: give --devices N")),
    }
}

/// Rows of cells as left-aligned columns two spaces apart.
pub(crate) fn table(rows: &[Vec<String>]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|cell| cell.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(cell, &w)| format!("{cell:w$}"))
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

/// The per-device table (plain) and its JSON.
#[cfg(feature = "cli")]
pub fn run(args: &ShardArgs) -> Outcome {
    shard(&shape(&args.shape)?, &args.sharding, args.devices)
}

/// What each device holds of `shape` under the sharding `text` (with
/// `devices` devices when the sharding names no count): the table and its
/// JSON.
pub(crate) fn shard(shape: &Shape, text: &str, devices: Option<i64>) -> Outcome {
    let s = sharding(text)?;
    let n = device_count(&s, devices)?;
    s.validate(shape, n).map_err(|e| e.to_string())?;
    if n > MAX_LISTED {
        return Err(format!(
            "{n} devices are more than the {MAX_LISTED} a table lists"
        ));
    }
    let shard = s.shard_shape(shape).map_err(|e| e.to_string())?;
    let bits = shape_util::element_size_in_bits(shape).map_err(|e| e.to_string())?;
    let placement = sharding_util::Placement::new(&s, shape).map_err(|e| e.to_string())?;
    let mut rows = Vec::new();
    let mut cells = vec![
        ["device", "tile", "offsets", "limits", "bytes"]
            .map(String::from)
            .to_vec(),
    ];
    for device in 0..n {
        match placement.device_box(device).map_err(|e| e.to_string())? {
            Some(b) => {
                let bytes =
                    sharding_util::data_bytes(b.elements(), bits).ok_or("byte size overflows")?;
                cells.push(vec![
                    device.to_string(),
                    list(&b.tile),
                    list(&b.offsets),
                    list(&b.limits),
                    bytes.to_string(),
                ]);
                rows.push(json!({"device": device, "tile": b.tile, "offsets": b.offsets, "limits": b.limits, "bytes": bytes}));
            }
            None => {
                cells.push(vec![
                    device.to_string(),
                    "-".into(),
                    "-".into(),
                    "-".into(),
                    "0".into(),
                ]);
                rows.push(json!({"device": device, "tile": null, "offsets": null, "limits": null, "bytes": 0}));
            }
        }
    }
    let mut plain = format!("shard shape {shard}\n{}", table(&cells));
    let groups = s.replication_groups(n).map_err(|e| e.to_string())?;
    let shown: Vec<String> = groups.iter().map(|g| list(g)).collect();
    plain.push_str(&format!("replication groups {}", shown.join(" ")));
    Ok((
        plain,
        json!({"shard_shape": shard.to_string(), "devices": Value::Array(rows), "replication_groups": groups}),
    ))
}
