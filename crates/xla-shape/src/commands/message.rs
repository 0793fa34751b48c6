//! `decode --message NAME` and `encode --message NAME`: any message of
//! xla_data.proto, from hex to protobuf text format and back, through
//! prost-reflect's `DynamicMessage` over the schema's descriptor pool.

use std::io::Read;

use schema::prost_reflect::MessageDescriptor;
use schema::{DecodedMessage, EncodedMessage};
use serde_json::json;

use super::{Outcome, each_of, from_hex, reported};
use crate::inputs::inputs_with_blank_lines;
use crate::output::Output;

/// Decodes hex inputs (or, with `binary`, one raw message from standard
/// input) as messages `name`.
pub fn decode(name: &str, binary: bool, args: Vec<String>, out: &mut Output) {
    let Some(descriptor) = descriptor(name, out) else {
        return;
    };
    if binary {
        let mut bytes = Vec::new();
        let outcome = std::io::stdin()
            .lock()
            .read_to_end(&mut bytes)
            .map_err(|e| format!("cannot read standard input: {e}"))
            .and_then(|_| decode_bytes(&descriptor, &bytes));
        match outcome {
            Ok((plain, fields)) => out.success(&plain, fields),
            Err(message) => out.failure(None, &message),
        }
        return;
    }
    each_of(inputs_with_blank_lines(args), out, |input| {
        decode_bytes(&descriptor, &from_hex(input)?)
    });
}

/// Parses text-format inputs as messages `name`: hex, or with `text` the
/// canonical text format.
pub fn encode(name: &str, args: Vec<String>, text: bool, out: &mut Output) {
    let Some(descriptor) = descriptor(name, out) else {
        return;
    };
    each_of(inputs_with_blank_lines(args), out, |input| {
        let message = schema::parse_text_format(&descriptor, input).map_err(|e| e.to_string())?;
        let encoded = EncodedMessage::new(&message);
        let (hex, fields) = reported(&encoded)?;
        Ok((if text { encoded.text } else { hex }, fields))
    });
}

/// Prints the names `--message` takes.
pub fn list(out: &mut Output) {
    match schema::message_names() {
        Ok(names) => {
            for name in names {
                let fields = json!({ "message": name });
                out.success(&name, fields);
            }
        }
        Err(e) => out.failure(None, &e.to_string()),
    }
}

/// The message called `name`, or the error reported.
fn descriptor(name: &str, out: &mut Output) -> Option<MessageDescriptor> {
    match schema::message_descriptor(name) {
        Ok(descriptor) if descriptor.is_map_entry() => {
            out.failure(
                None,
                &format!(
                    "{name} is a map entry, not a message of its own: decode the message \
                     that holds the map"
                ),
            );
            None
        }
        Ok(descriptor) => Some(descriptor),
        Err(e) => {
            out.failure(None, &e.to_string());
            None
        }
    }
}

/// `bytes` decoded as a `descriptor` message: its text format, and the
/// JSON fields of [`DecodedMessage`].
fn decode_bytes(descriptor: &MessageDescriptor, bytes: &[u8]) -> Outcome {
    let message = schema::decode_message(descriptor, bytes).map_err(|e| e.to_string())?;
    reported(&DecodedMessage::new(&message))
}
