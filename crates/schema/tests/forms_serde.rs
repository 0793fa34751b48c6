//! The forms of a message read back from their JSON.

#![cfg(feature = "text-format")]
#![allow(clippy::unwrap_used)]

use schema::{DecodedMessage, DecodedShape, EncodedMessage, Message, Shape, ShapeStrings};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// `value` written as JSON and read back.
fn round_trip<T: Serialize + DeserializeOwned>(value: &T) -> T {
    serde_json::from_str(&serde_json::to_string(value).unwrap()).unwrap()
}

#[test]
fn every_form_reads_back_equal() {
    let shape: Shape = "bf16[10,200]{1,0:T(8,128)(2,1)}".parse().unwrap();
    for with_layout in [false, true] {
        let forms = ShapeStrings::new(&shape, with_layout);
        assert_eq!(round_trip(&forms), forms);
    }
    let decoded =
        DecodedShape::new(&Shape::decode(shape.encode_to_vec().as_slice()).unwrap()).unwrap();
    assert_eq!(decoded.shape, "bf16[10,200]{1,0:T(8,128)(2,1)}");
    assert_eq!(round_trip(&decoded), decoded);

    let descriptor = schema::message_descriptor("xla.TileProto").unwrap();
    let message = schema::decode_message(&descriptor, &[0x0a, 0x01, 0x02]).unwrap();
    let decoded = DecodedMessage::new(&message);
    assert_eq!(round_trip(&decoded), decoded);
    let message = schema::parse_text_format(&descriptor, "dimensions: [8, 128]").unwrap();
    let encoded = EncodedMessage::new(&message);
    assert_eq!(encoded.hex, "0a03088001");
    assert_eq!(round_trip(&encoded), encoded);
}

#[test]
fn every_form_pads_as_one_word() {
    let shape: Shape = "f32[2]{0}".parse().unwrap();
    let forms = ShapeStrings::new(&shape, false);
    assert_eq!(format!("{forms:>10}|"), "    f32[2]|");
    let decoded =
        DecodedShape::new(&Shape::decode(shape.encode_to_vec().as_slice()).unwrap()).unwrap();
    assert_eq!(format!("{decoded:<12}|"), "f32[2]{0}   |");

    let descriptor = schema::message_descriptor("xla.TileProto").unwrap();
    let message = schema::decode_message(&descriptor, &[0x0a, 0x01, 0x02]).unwrap();
    let decoded = DecodedMessage::new(&message);
    let text = decoded.to_string();
    assert_eq!(format!("{decoded:>20}"), format!("{text:>20}"));
    let encoded = EncodedMessage::new(&message);
    assert_eq!(format!("{encoded:>10}|"), "    0a0102|");
}
