//! `validate`: XLA's `ShapeUtil::ValidateShape` on strings or serialized
//! messages.

use prost::Message;
use schema::Shape;
use serde_json::json;

use super::{Outcome, from_hex, shape};

/// `ok`, or XLA's validation message as the error.
pub fn run(input: &str, hex: bool) -> Outcome {
    let shape = if hex {
        Shape::decode(from_hex(input)?.as_slice())
            .map_err(|e| format!("invalid Shape message: {e}"))?
    } else {
        shape(input)?
    };
    shape_util::validate_shape(&shape).map_err(|e| e.to_string())?;
    Ok(("ok".to_owned(), json!({"error": null})))
}
