//! Golden tests of the binary wire format, protobuf text format and JSON:
//! XLA's serialized shapes decode and re-encode to identical bytes, and
//! hostile bytes never panic.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use conformance::{Tally, field, hex_decode, load, required, same};
use proptest::prelude::*;
use prost::Message;
use schema::{Layout, PaddingValue, PrimitiveType, ProtoFormat, Shape};

/// Every layout in `shape` and its tuple elements, depth first.
fn layouts(shape: &Shape) -> Vec<&Layout> {
    let mut out: Vec<&Layout> = shape.layout.as_deref().into_iter().collect();
    for element in &shape.tuple_shapes {
        out.extend(layouts(element));
    }
    out
}

/// Decodes a golden message and checks every round trip of it.
fn check_wire_row(row: &conformance::Row) -> Result<(), String> {
    let bytes = hex_decode(required(row, "hex")?)?;
    let shape = Shape::decode(bytes.as_slice()).map_err(|e| format!("decode: {e}"))?;
    same("re-encoded bytes", shape.encode_to_vec(), bytes.clone())?;
    // XLA never writes the classic padding fields.
    for layout in layouts(&shape) {
        same(
            "padded_dimensions",
            layout.padded_dimensions.as_slice(),
            &[],
        )?;
        same(
            "padding_value",
            layout.padding_value,
            PaddingValue::InvalidPad as i32,
        )?;
    }
    // Removing the last byte always cuts the last field short.
    if Shape::decode(&bytes[..bytes.len() - 1]).is_ok() {
        return Err("decoding the bytes without their last byte succeeded".into());
    }
    let text = required(row, "text")?;
    let from_text = Shape::from_text_format(text).map_err(|e| e.to_string())?;
    same("from_text_format(text)", &from_text, &shape)?;
    let json = shape.to_json().map_err(|e| e.to_string())?;
    let from_json = Shape::from_json(&json).map_err(|e| e.to_string())?;
    same("JSON round trip", &from_json, &shape)
}

/// The golden files whose `hex` fields are messages real XLA serialized
/// (`validation.jsonl` also has `hex`, but of hand-made, often invalid,
/// protos: `validation.rs` checks those).
const XLA_WRITTEN: [&str; 3] = ["shapes.jsonl", "hlo_shapes.jsonl", "parse_ok.jsonl"];

#[test]
fn golden_messages_round_trip_through_every_format() {
    let mut ok = true;
    for name in XLA_WRITTEN {
        let mut tally = Tally::new(name);
        for row in load(name).unwrap() {
            let case = field(&row, "string")
                .or(field(&row, "input"))
                .unwrap_or("?");
            tally.record(case, check_wire_row(&row));
        }
        ok &= tally.finish();
    }
    assert!(ok);
}

#[test]
fn padded_layout_survives_encode_and_decode() {
    let shape: Shape = "f32[3,5]{0,1:T(8,128)PAD(4,8)PV(lowest)}".parse().unwrap();
    let layout = shape.layout.as_deref().unwrap();
    assert_eq!(layout.padded_dimensions, [4, 8]);
    assert_eq!(layout.padding_value, PaddingValue::LowestPad as i32);
    let bytes = shape.encode_to_vec();
    let decoded = Shape::decode(bytes.as_slice()).unwrap();
    assert_eq!(decoded, shape);
    assert_eq!(
        decoded.to_string(),
        "f32[3,5]{0,1:T(8,128)PAD(4,8)PV(lowest)}"
    );
    assert_eq!(
        Shape::from_text_format(&shape.to_text_format().unwrap()).unwrap(),
        shape
    );
    assert_eq!(Shape::from_json(&shape.to_json().unwrap()).unwrap(), shape);
}

/// `n` shapes nested in tuples around an `f32[]`, encoded by hand.
fn nested_tuple_bytes(depth: usize) -> Vec<u8> {
    let mut bytes = vec![0x10, PrimitiveType::F32 as u8];
    for _ in 0..depth {
        let mut outer = vec![0x10, PrimitiveType::Tuple as u8, 0x22];
        let mut len = bytes.len();
        while len >= 0x80 {
            outer.push(u8::try_from(len & 0x7f).unwrap() | 0x80);
            len >>= 7;
        }
        outer.push(u8::try_from(len).unwrap());
        outer.extend_from_slice(&bytes);
        bytes = outer;
    }
    bytes
}

#[test]
fn deeply_nested_bytes_hit_prosts_recursion_limit() {
    // prost accepts 100 levels of nested messages.
    let shallow = Shape::decode(nested_tuple_bytes(50).as_slice()).unwrap();
    assert_eq!(shallow.tuple_shapes.len(), 1);
    let deep = nested_tuple_bytes(10_000);
    let error = Shape::decode(deep.as_slice()).unwrap_err();
    assert!(error.to_string().contains("recursion limit"), "{error}");
}

#[test]
fn unknown_fields_are_dropped() {
    // f32[] followed by field 99 (varint 7), which xla.Shape does not have.
    let bytes = [0x10, 0x0b, 0x98, 0x06, 0x07];
    let shape = Shape::decode(bytes.as_slice()).unwrap();
    assert_eq!(
        shape,
        Shape {
            element_type: PrimitiveType::F32 as i32,
            ..Shape::default()
        }
    );
    assert_eq!(shape.encode_to_vec(), [0x10, 0x0b]);
}

#[test]
fn every_truncation_of_golden_bytes_decodes_or_fails_cleanly() {
    let mut decoded = 0;
    let mut failed = 0;
    for row in load("shapes.jsonl").unwrap() {
        let bytes = hex_decode(required(&row, "hex").unwrap()).unwrap();
        for end in 0..bytes.len() {
            match Shape::decode(&bytes[..end]) {
                Ok(shape) => {
                    decoded += 1;
                    // Whatever decodes re-encodes and prints.
                    let _ = shape.encode_to_vec();
                    let _ = shape.to_string();
                }
                Err(_) => failed += 1,
            }
        }
    }
    // Cuts between fields decode; cuts inside a field fail.
    assert!(
        decoded > 0 && failed > 0,
        "{decoded} decoded, {failed} failed"
    );
}

proptest! {
    // The tests live outside src/, where proptest cannot persist failures.
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..96)) {
        if let Ok(shape) = Shape::decode(bytes.as_slice()) {
            let _ = shape.to_string();
            let _ = shape.human_string();
            prop_assert_eq!(Shape::decode(shape.encode_to_vec().as_slice()).ok(), Some(shape));
        }
    }

    #[test]
    fn random_layout_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        if let Ok(layout) = Layout::decode(bytes.as_slice()) {
            let _ = layout.to_string();
        }
    }
}
