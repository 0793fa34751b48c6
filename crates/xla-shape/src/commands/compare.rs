//! `compare`: how two shapes relate under XLA's rules.

use serde_json::{Value, json};

use super::{Outcome, shape_or_dims};

/// Equality, compatibility and bitcast relations of `a` and `b` (shapes or
/// bare dimension lists).
pub fn run(a: &str, b: &str) -> Outcome {
    let (a, b) = (shape_or_dims(a)?.0, shape_or_dims(b)?.0);
    let both_arrays = shape_util::is_array(&a) && shape_util::is_array(&b);
    // Bitcasts are defined between arrays with layouts; anything else is
    // simply not a bitcast.
    let reshape_is_bitcast = both_arrays && shape_util::reshape_is_bitcast(&a, &b).unwrap_or(false);
    let transpose_dims = if both_arrays {
        shape_util::deduce_transpose_dimensions_for_bitcast(&a, &b).unwrap_or(None)
    } else {
        None
    };
    let relations = [
        ("equal", json!(shape_util::equal(&a, &b))),
        ("compatible", json!(shape_util::compatible(&a, &b))),
        (
            "equal_ignoring_layout",
            json!(shape_util::equal_ignoring_layout(&a, &b)),
        ),
        (
            "same_dimensions",
            json!(both_arrays && shape_util::same_dimensions(&a, &b)),
        ),
        ("reshape_is_bitcast", json!(reshape_is_bitcast)),
        ("transpose_is_bitcast_dims", json!(transpose_dims)),
    ];
    let plain: Vec<String> = relations
        .iter()
        .map(|(name, value)| format!("{name}: {}", plain_value(value)))
        .collect();
    let fields: serde_json::Map<String, Value> = relations
        .into_iter()
        .map(|(name, value)| (name.to_owned(), value))
        .collect();
    Ok((plain.join("\n"), Value::Object(fields)))
}

/// `true`, `[1,0]`, `none`.
fn plain_value(value: &Value) -> String {
    match value {
        Value::Null => "none".to_owned(),
        other => other.to_string(),
    }
}
