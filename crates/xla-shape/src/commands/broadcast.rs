//! `broadcast`: result shapes under XLA's broadcasting rules (elementwise
//! binary ops, BroadcastInDim) or numpy's implicit rules.

use serde_json::json;

use xla_shape_front::BroadcastRule;

use super::Outcome;
use crate::cli::BroadcastArgs;

/// The broadcast result (or XLA's / numpy's error).
pub fn run(args: &BroadcastArgs) -> Outcome {
    let dims = args.dims.as_ref().map(|d| d.0.clone()).unwrap_or_default();
    let rule = if args.numpy {
        BroadcastRule::Numpy
    } else if args.in_dim {
        BroadcastRule::InDim { dims }
    } else {
        BroadcastRule::Elementwise { dims }
    };
    let text = xla_shape_front::broadcast(&args.shapes, &rule)
        .map_err(|e| e.to_string())?
        .to_string();
    Ok((text.clone(), json!({"shape": text, "error": null})))
}
