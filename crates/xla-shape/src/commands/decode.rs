//! `decode`: serialized Shape messages back to strings (no validation), as
//! schema's [`schema::DecodedShape`].

use std::io::Read;

use prost::Message;
use schema::{DecodedShape, Shape};

use super::{Outcome, from_hex, reported};
use crate::output::Output;

/// Decodes one hex-encoded message.
pub fn run(input: &str) -> Outcome {
    describe(&from_hex(input)?)
}

/// Decodes one raw message read from standard input.
pub fn run_binary(out: &mut Output) {
    let mut bytes = Vec::new();
    let outcome = std::io::stdin()
        .lock()
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read standard input: {e}"))
        .and_then(|_| describe(&bytes));
    match outcome {
        Ok((plain, fields)) => out.success(&plain, fields),
        Err(message) => out.failure(None, &message),
    }
}

fn describe(bytes: &[u8]) -> Outcome {
    let shape = Shape::decode(bytes).map_err(|e| format!("invalid Shape message: {e}"))?;
    reported(&DecodedShape::new(&shape).map_err(|e| e.to_string())?)
}
