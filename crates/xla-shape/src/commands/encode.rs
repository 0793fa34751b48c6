//! `encode`: a shape serialized as a Shape message.

use prost::Message;
use schema::ProtoFormat;
use serde_json::json;

use super::{Outcome, shape, to_hex};

/// Lowercase hex of the serialized Shape, or its protobuf text format.
pub fn run(input: &str, text: bool) -> Outcome {
    let shape = shape(input)?;
    if text {
        let text = shape.to_text_format().map_err(|e| e.to_string())?;
        Ok((text.clone(), json!({"text": text})))
    } else {
        let hex = to_hex(&shape.encode_to_vec());
        Ok((hex.clone(), json!({"hex": hex})))
    }
}
