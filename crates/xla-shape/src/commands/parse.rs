//! `parse`: the canonical string of a shape.

use prost::Message;
use serde_json::json;

use super::{Outcome, shape, to_hex};

/// XLA's HumanStringWithLayout (or HumanString with `no_layout`).
pub fn run(input: &str, no_layout: bool) -> Outcome {
    let shape = shape(input)?;
    let text = if no_layout {
        shape.human_string()
    } else {
        shape.to_string()
    };
    let hex = to_hex(&shape.encode_to_vec());
    Ok((text.clone(), json!({"shape": text, "hex": hex})))
}
