//! `view`: a strided view after numpy-style operations, as stride-util's
//! [`stride_util::ViewReport`].

use serde_json::Value;
use stride_util::{ViewReport, resolve_view};

use super::{Outcome, reported};

/// The view after `ops` applied to `base`, printed.
pub fn run(base: &str, ops: &[String]) -> Outcome {
    let view = resolve_view(base, ops).map_err(|e| e.to_string())?;
    let (plain, mut fields) = reported(&ViewReport::of(&view))?;
    fields["error"] = Value::Null;
    Ok((plain, fields))
}
