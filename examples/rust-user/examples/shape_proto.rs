//! A `ShapeProto` service's handler: the request's bytes decoded into a
//! `Shape`, validated as XLA validates it, printed as XLA's text, and
//! encoded again as the reply.

use anyhow::Context;
use schema::{Message, Shape};

/// XLA's bytes of `f32[2,3]{0,1}` (what `xla-shape encode` prints, in hex).
const REQUEST: [u8; 19] = [
    0x10, 0x0b, 0x1a, 0x02, 0x02, 0x03, 0x2a, 0x07, 0x0a, 0x02, 0x00, 0x01, 0x80, 0x01, 0x01, 0x32,
    0x02, 0x00, 0x00,
];

/// One request: the shape's text and its bytes, or why the bytes are no
/// valid shape.
fn handle(request: &[u8]) -> anyhow::Result<(String, Vec<u8>)> {
    let shape = Shape::decode(request).context("the request is no ShapeProto")?;
    shape_util::validate_shape(&shape).context("the request's shape is invalid")?;
    Ok((shape.to_string(), shape.encode_to_vec()))
}

fn main() -> anyhow::Result<()> {
    let (text, reply) = handle(&REQUEST)?;
    println!("{text}");
    assert_eq!(text, "f32[2,3]{0,1}");
    // Decoding and encoding keep every byte.
    assert_eq!(reply, REQUEST);
    let shape = Shape::decode(reply.as_slice())?;
    assert_eq!(shape.dimensions, [2, 3]);
    assert_eq!(layout_util::minor_to_major(&shape)?, [0, 1]);

    // Bytes that decode but name dimension 1 twice in the layout.
    let mut twice = shape;
    if let Some(layout) = twice.layout.as_mut() {
        layout.minor_to_major = vec![1, 1];
    }
    let error = handle(&twice.encode_to_vec())
        .err()
        .context("a bad layout passed")?;
    let cause = error.root_cause().to_string();
    println!("refused: {cause}");
    assert!(cause.contains("duplicate"), "{cause}");

    // Bytes that do not decode.
    let error = handle(&REQUEST[..5])
        .err()
        .context("truncated bytes decoded")?;
    assert_eq!(error.to_string(), "the request is no ShapeProto");
    Ok(())
}

rust_user::test_main!();
