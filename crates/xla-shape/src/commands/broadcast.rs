//! `broadcast`: result shapes under XLA's broadcasting rules (elementwise
//! binary ops, BroadcastInDim) or numpy's implicit rules.

use serde_json::json;

use super::Outcome;
use crate::cli::BroadcastArgs;

/// The broadcast result (or XLA's / numpy's error).
pub fn run(args: &BroadcastArgs) -> Outcome {
    let dims = args.dims.as_ref().map(|d| d.0.as_slice());
    let text = xla_shape_front::broadcast(&args.shapes, dims, args.in_dim, args.numpy)
        .map_err(|e| e.to_string())?;
    Ok((text.clone(), json!({"shape": text, "error": null})))
}
