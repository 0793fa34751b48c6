//! `reshard`: the pieces that move an array from one sharding to another.

use schema::Shape;
use serde_json::{Value, json};

#[cfg(feature = "cli")]
use super::shape;
use super::shard::{device_count, sharding, table};
use super::{Outcome, list};
#[cfg(feature = "cli")]
use crate::cli::ReshardArgs;

/// The plan as a table (plain) and JSON.
#[cfg(feature = "cli")]
pub fn run(args: &ReshardArgs) -> Outcome {
    reshard(&shape(&args.shape)?, &args.from, &args.to, args.devices)
}

/// The plan that moves `shape` from the sharding `from` to `to` (over
/// `devices` devices when neither names a count): the table and its JSON.
pub(crate) fn reshard(shape: &Shape, from: &str, to: &str, devices: Option<i64>) -> Outcome {
    let from = sharding(from)?;
    let to = sharding(to)?;
    let n = match from.num_devices() {
        Some(n) => n,
        None => device_count(&to, devices)?,
    };
    let plan = sharding_util::reshard_plan(shape, &from, &to, n).map_err(|e| e.to_string())?;
    let mut cells = vec![
        ["from", "to", "offsets", "limits", "bytes"]
            .map(String::from)
            .to_vec(),
    ];
    let mut pieces = Vec::with_capacity(plan.pieces.len());
    for p in &plan.pieces {
        cells.push(vec![
            p.from.to_string(),
            p.to.to_string(),
            list(&p.offsets),
            list(&p.limits),
            p.bytes.to_string(),
        ]);
        pieces.push(json!({"from": p.from, "to": p.to, "offsets": p.offsets, "limits": p.limits, "bytes": p.bytes}));
    }
    let mut plain = table(&cells);
    plain.push_str(&format!(
        "bytes moved {}, bytes kept {}",
        plan.bytes_moved, plan.bytes_kept
    ));
    Ok((
        plain,
        json!({"pieces": Value::Array(pieces), "bytes_moved": plan.bytes_moved, "bytes_kept": plan.bytes_kept}),
    ))
}
