//! `validate`: XLA's shape validation on strings or serialized messages:
//! `ShapeUtil::ValidateShapeWithOptionalLayout` (what XLA checks when it
//! loads a module proto), or `ShapeUtil::ValidateShape` with
//! `--require-layout`.

use prost::Message;
use schema::Shape;
use serde_json::json;

use super::{Outcome, from_hex, shape};

/// `ok`, or XLA's validation message as the error.
pub fn run(input: &str, hex: bool, require_layout: bool) -> Outcome {
    let shape = if hex {
        Shape::decode(from_hex(input)?.as_slice())
            .map_err(|e| format!("invalid Shape message: {e}"))?
    } else {
        shape(input)?
    };
    if require_layout {
        shape_util::validate_shape(&shape)
    } else {
        shape_util::validate_shape_with_optional_layout(&shape)
    }
    .map_err(|e| e.to_string())?;
    Ok(("ok".to_owned(), json!({"error": null})))
}
