//! `encode`: a shape serialized as a Shape message.

use prost::Message;
use schema::ProtoFormat;
use serde_json::json;

use super::{Outcome, shape, to_hex};

/// Lowercase hex of the serialized Shape, or its protobuf text format.
pub fn run(input: &str, text: bool) -> Outcome {
    // The shape is dropped before the output is copied: at most one of
    // them and two copies of the output are alive at once.
    let encoded = {
        let shape = shape(input)?;
        if text {
            shape.to_text_format().map_err(|e| e.to_string())?
        } else {
            to_hex(&shape.encode_to_vec())
        }
    };
    let field = if text { "text" } else { "hex" };
    Ok((encoded.clone(), json!({ field: encoded })))
}

#[cfg(test)]
#[path = "encode_tests.rs"]
mod tests;
