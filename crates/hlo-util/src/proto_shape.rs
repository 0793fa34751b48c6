//! A serialized `ShapeProto` read a tuple element at a time, as
//! [`schema::ShapeEvent`]s: the elements of a tuple are decoded one by one,
//! never the whole tuple, so that a tuple of millions of elements costs
//! its bytes.

use std::borrow::Cow;
use std::ops::Range;

use prost::Message;
use schema::{MAX_DEPTH, PrimitiveType, Shape, ShapeEvent};

use crate::wire::{WireError, split_field};

/// The field number of `ShapeProto.tuple_shapes`.
const TUPLE_SHAPES: u32 = 4;

/// Why shape bytes cannot be read.
#[derive(Debug)]
pub(crate) enum ShapeBytesError {
    /// Bytes that are no message.
    Wire(WireError),
    /// A message prost does not decode.
    Decode(prost::DecodeError),
    /// Tuples nested deeper than [`MAX_DEPTH`].
    TooDeep,
}

/// The message bytes of a field given as `ranges` of `bytes`: the one
/// occurrence as it is, or several concatenated (protobuf merges them).
pub(crate) fn field_bytes<'b>(bytes: &'b [u8], ranges: &[Range<usize>]) -> Cow<'b, [u8]> {
    match ranges {
        [one] => Cow::Borrowed(&bytes[one.clone()]),
        _ => Cow::Owned(
            ranges
                .iter()
                .flat_map(|r| &bytes[r.clone()])
                .copied()
                .collect(),
        ),
    }
}

/// Hands `receiver` the events of the serialized shape `bytes`: those
/// `Shape::decode(bytes)?.events(receiver)` gives, with each tuple's
/// elements decoded one at a time.
///
/// # Errors
///
/// [`ShapeBytesError`]: bytes that are no message, or no `ShapeProto`, or
/// tuples nested deeper than [`MAX_DEPTH`].
pub(crate) fn shape_events(
    bytes: &[u8],
    receiver: &mut impl FnMut(ShapeEvent<'_>),
) -> Result<(), ShapeBytesError> {
    // The tuples open: each one's element ranges in `bytes`, and the next.
    let mut open: Vec<(Vec<Range<usize>>, usize)> = Vec::new();
    let mut next = 0..bytes.len();
    loop {
        let shape = &bytes[next.clone()];
        let (elements, rest) = split_field(shape, TUPLE_SHAPES).map_err(ShapeBytesError::Wire)?;
        let mut own = Shape::decode(rest.as_slice()).map_err(ShapeBytesError::Decode)?;
        if own.element_type == PrimitiveType::Tuple as i32 && !elements.is_empty() {
            if open.len() >= MAX_DEPTH {
                return Err(ShapeBytesError::TooDeep);
            }
            receiver(ShapeEvent::TupleStart);
            let start = next.start;
            let elements = elements
                .into_iter()
                .map(|r| start + r.start..start + r.end)
                .collect();
            open.push((elements, 0));
        } else {
            if !elements.is_empty() {
                // A buffer's array, or elements of a shape that is no
                // tuple: decoded with it, as prost decodes them.
                own = Shape::decode(shape).map_err(ShapeBytesError::Decode)?;
            }
            receiver(ShapeEvent::Element(&own));
        }
        // The next element to read, closing the tuples it ends.
        loop {
            let Some((elements, index)) = open.last_mut() else {
                return Ok(());
            };
            if let Some(range) = elements.get(*index) {
                *index += 1;
                next = range.clone();
                break;
            }
            receiver(ShapeEvent::TupleEnd(elements.len()));
            open.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events_of_bytes(bytes: &[u8]) -> Result<Vec<String>, String> {
        let mut events = Vec::new();
        shape_events(bytes, &mut |event| events.push(describe(event)))
            .map_err(|e| format!("{e:?}"))?;
        Ok(events)
    }

    fn describe(event: ShapeEvent<'_>) -> String {
        match event {
            ShapeEvent::Element(shape) => shape.to_string(),
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn elements_come_as_the_decoded_shape_gives_them() {
        for text in [
            "f32[2,3]{0,1}",
            "()",
            "(f32[2], (s8[], token[]), ((), b(f32[4])), opaque[])",
            "((((s8[]))))",
        ] {
            let shape: Shape = text.parse().unwrap();
            let mut expected = Vec::new();
            shape.events(|event| expected.push(describe(event)));
            assert_eq!(
                events_of_bytes(&shape.encode_to_vec()).unwrap(),
                expected,
                "{text}"
            );
        }
    }

    #[test]
    fn a_tuple_split_over_two_fields_is_merged() {
        let a: Shape = "(f32[2])".parse().unwrap();
        let b: Shape = "(s8[])".parse().unwrap();
        let mut bytes = a.encode_to_vec();
        bytes.extend(b.encode_to_vec());
        let ranges = [0..a.encoded_len(), a.encoded_len()..bytes.len()];
        let merged = field_bytes(&bytes, &ranges);
        assert_eq!(
            events_of_bytes(&merged).unwrap(),
            ["TupleStart", "f32[2]{0}", "s8[]", "TupleEnd(2)"]
        );
    }

    #[test]
    fn bad_bytes_and_deep_nesting_are_errors() {
        assert!(
            events_of_bytes(b"\x22\x05\x10")
                .unwrap_err()
                .contains("Wire")
        );
        assert!(
            events_of_bytes(b"\x10\x0d\x22\x02\x12\x00")
                .unwrap_err()
                .contains("Decode")
        );
        let mut shape: Shape = "s8[]".parse().unwrap();
        for _ in 0..=MAX_DEPTH {
            shape = Shape {
                element_type: PrimitiveType::Tuple as i32,
                tuple_shapes: vec![shape],
                ..Shape::default()
            };
        }
        // Encoded by hand: prost's encoder has no depth limit, but its
        // decoder has.
        assert_eq!(
            events_of_bytes(&shape.encode_to_vec()).unwrap_err(),
            "TooDeep"
        );
    }
}
